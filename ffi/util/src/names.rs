//! The counter-name arrays darshan-util exports (`posix_counter_names`,
//! `posix_f_counter_names`, ...): pointers to C strings, the last
//! `<PREFIX>_NUM_INDICES` (or `_F_NUM_INDICES`), which is where PyDarshan
//! stops reading them for its column names. The strings are the format
//! crate's (`layout!`'s `C_NAMES`): no name is written here.

use std::ffi::{c_char, CStr};

use darshan_log::counters as c;

/// An exported array of C string pointers.
#[repr(transparent)]
pub struct Names<const N: usize>([*const c_char; N]);

// SAFETY: the pointers are to 'static C strings that nothing writes: the
// array is as shareable between threads as the strings are.
unsafe impl<const N: usize> Sync for Names<N> {}

pub(crate) const fn pointers<const N: usize>(names: [&'static CStr; N]) -> Names<N> {
    let mut out = [std::ptr::null(); N];
    let mut k = 0;
    while k < N {
        out[k] = names[k].as_ptr();
        k += 1;
    }
    Names(out)
}

/// `$sym` (and `$fsym` when given) exported for module `$m`.
macro_rules! exported {
    ($m:ident, $sym:ident) => {
        #[no_mangle]
        #[allow(non_upper_case_globals)]
        pub static $sym: Names<{ c::$m::NUM_INDICES + 1 }> = pointers(c::$m::C_NAMES);
    };
    ($m:ident, $sym:ident, $fsym:ident) => {
        exported!($m, $sym);
        #[no_mangle]
        #[allow(non_upper_case_globals)]
        pub static $fsym: Names<{ c::$m::F_NUM_INDICES + 1 }> = pointers(c::$m::F_C_NAMES);
    };
}

exported!(null, null_counter_names, null_f_counter_names);
exported!(posix, posix_counter_names, posix_f_counter_names);
exported!(mpiio, mpiio_counter_names, mpiio_f_counter_names);
exported!(h5f, h5f_counter_names, h5f_f_counter_names);
exported!(h5d, h5d_counter_names, h5d_f_counter_names);
exported!(pnetcdf_file, pnetcdf_file_counter_names, pnetcdf_file_f_counter_names);
exported!(pnetcdf_var, pnetcdf_var_counter_names, pnetcdf_var_f_counter_names);
exported!(bgq, bgq_counter_names, bgq_f_counter_names);
exported!(lustre_comp, lustre_comp_counter_names);
exported!(stdio, stdio_counter_names, stdio_f_counter_names);
exported!(mdhim, mdhim_counter_names, mdhim_f_counter_names);
exported!(dfs, dfs_counter_names, dfs_f_counter_names);
exported!(daos, daos_counter_names, daos_f_counter_names);
