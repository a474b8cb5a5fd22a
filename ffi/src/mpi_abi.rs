//! MPI without linking libmpi (docs/interposition.md rules 16-17). The real
//! `PMPI_*` functions are found with `dlsym(RTLD_NEXT)` the first time
//! the program calls MPI_Init, so a non-MPI program never loads libmpi.
//! Handles are opaque `usize`s: Open MPI's are pointers to global objects
//! (`&ompi_mpi_comm_world`), looked up by name here; the MPICH family's
//! (MPICH, Intel MPI, MVAPICH, Cray MPICH: one ABI) are 32-bit ints with
//! fixed values, except MPI_File, a pointer in both. An int handle passes
//! through a 64-bit register to the real function unchanged, so one set
//! of wrappers serves both; only where a wrapper itself looks at an int
//! handle must it ignore the register's upper half ([`Abi::is_info_null`]).

use std::ffi::c_void;
use std::sync::atomic::AtomicPtr;
use std::sync::OnceLock;

use libc::{c_char, c_int};

use crate::real::lookup;

/// An MPI handle (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Info, MPI_File).
pub type H = usize;
pub type UserOp = extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut H);

pub const MPI_SUCCESS: c_int = 0;
/// What a wrapper returns when the real function cannot be found:
/// MPI_ERR_OTHER (16 in Open MPI, 15 in MPICH; Open MPI's before MPI_Init
/// has told which library this is).
pub fn mpi_err_other() -> c_int {
    abi_ready().map(|a| a.err_other).unwrap_or(16)
}
/// MPI_ERR_ARG (13 in Open MPI, 12 in MPICH).
pub fn mpi_err_arg() -> c_int {
    abi_ready().map(|a| a.err_arg).unwrap_or(13)
}
/// MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL (same in both).
pub const LOG_AMODE: c_int = 1 | 4 | 64;

reals! {
    PMPI_Init: fn(*mut c_int, *mut *mut *mut c_char) -> c_int;
    PMPI_Init_thread: fn(*mut c_int, *mut *mut *mut c_char, c_int, *mut c_int) -> c_int;
    PMPI_Finalize: fn() -> c_int;
    PMPI_Get_library_version: fn(*mut c_char, *mut c_int) -> c_int;
    PMPI_Error_string: fn(c_int, *mut c_char, *mut c_int) -> c_int;
    PMPI_Comm_rank: fn(H, *mut c_int) -> c_int;
    PMPI_Comm_size: fn(H, *mut c_int) -> c_int;
    PMPI_Barrier: fn(H) -> c_int;
    PMPI_Bcast: fn(*mut c_void, c_int, H, c_int, H) -> c_int;
    PMPI_Allreduce: fn(*const c_void, *mut c_void, c_int, H, H, H) -> c_int;
    PMPI_Reduce: fn(*const c_void, *mut c_void, c_int, H, H, c_int, H) -> c_int;
    PMPI_Gather: fn(*const c_void, c_int, H, *mut c_void, c_int, H, c_int, H) -> c_int;
    PMPI_Gatherv: fn(*const c_void, c_int, H, *mut c_void, *const c_int, *const c_int, H, c_int, H) -> c_int;
    PMPI_Exscan: fn(*const c_void, *mut c_void, c_int, H, H, H) -> c_int;
    PMPI_Type_contiguous: fn(c_int, H, *mut H) -> c_int;
    PMPI_Type_commit: fn(*mut H) -> c_int;
    PMPI_Type_free: fn(*mut H) -> c_int;
    PMPI_Type_size: fn(H, *mut c_int) -> c_int;
    PMPI_Op_create: fn(UserOp, c_int, *mut H) -> c_int;
    PMPI_Op_free: fn(*mut H) -> c_int;
    PMPI_Info_create: fn(*mut H) -> c_int;
    PMPI_Info_set: fn(H, *const c_char, *const c_char) -> c_int;
    PMPI_Info_free: fn(*mut H) -> c_int;
    PMPI_File_open: fn(H, *const c_char, c_int, H, *mut H) -> c_int;
    PMPI_File_close: fn(*mut H) -> c_int;
    PMPI_File_sync: fn(H) -> c_int;
    PMPI_File_set_size: fn(H, i64) -> c_int;
    PMPI_File_set_info: fn(H, H) -> c_int;
    PMPI_File_set_view: fn(H, i64, H, H, *const c_char, H) -> c_int;
    PMPI_File_get_position: fn(H, *mut i64) -> c_int;
    PMPI_File_get_position_shared: fn(H, *mut i64) -> c_int;
    PMPI_File_get_byte_offset: fn(H, i64, *mut i64) -> c_int;
    PMPI_File_read: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_read_all: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write_all: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_read_shared: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write_shared: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_read_ordered: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write_ordered: fn(H, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_read_at: fn(H, i64, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write_at: fn(H, i64, *mut c_void, c_int, H, *mut c_void) -> c_int;
    // MPI-4 large-count calls (MPI_Count counts), where the library has
    // them (MPICH 4, Open MPI 5): spec extensions.md section 2.
    PMPI_File_read_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_read_all_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_read_at_c: fn(H, i64, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_read_at_all_c: fn(H, i64, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_read_shared_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_read_ordered_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_iread_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iread_all_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iread_at_c: fn(H, i64, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iread_at_all_c: fn(H, i64, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iread_shared_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_read_all_begin_c: fn(H, *mut c_void, i64, H) -> c_int;
    PMPI_File_read_at_all_begin_c: fn(H, i64, *mut c_void, i64, H) -> c_int;
    PMPI_File_read_ordered_begin_c: fn(H, *mut c_void, i64, H) -> c_int;
    PMPI_File_write_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_write_all_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_write_at_c: fn(H, i64, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_write_at_all_c: fn(H, i64, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_write_shared_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_write_ordered_c: fn(H, *mut c_void, i64, H, *mut c_void) -> c_int;
    PMPI_File_iwrite_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iwrite_all_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iwrite_at_c: fn(H, i64, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iwrite_at_all_c: fn(H, i64, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_iwrite_shared_c: fn(H, *mut c_void, i64, H, *mut H) -> c_int;
    PMPI_File_write_all_begin_c: fn(H, *mut c_void, i64, H) -> c_int;
    PMPI_File_write_at_all_begin_c: fn(H, i64, *mut c_void, i64, H) -> c_int;
    PMPI_File_write_ordered_begin_c: fn(H, *mut c_void, i64, H) -> c_int;
    PMPI_Type_size_x: fn(H, *mut i64) -> c_int;
    PMPI_File_read_at_all: fn(H, i64, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_write_at_all: fn(H, i64, *mut c_void, c_int, H, *mut c_void) -> c_int;
    PMPI_File_read_all_begin: fn(H, *mut c_void, c_int, H) -> c_int;
    PMPI_File_write_all_begin: fn(H, *mut c_void, c_int, H) -> c_int;
    PMPI_File_read_ordered_begin: fn(H, *mut c_void, c_int, H) -> c_int;
    PMPI_File_write_ordered_begin: fn(H, *mut c_void, c_int, H) -> c_int;
    PMPI_File_read_at_all_begin: fn(H, i64, *mut c_void, c_int, H) -> c_int;
    PMPI_File_write_at_all_begin: fn(H, i64, *mut c_void, c_int, H) -> c_int;
    PMPI_File_iread: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iwrite: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iread_shared: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iwrite_shared: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iread_all: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iwrite_all: fn(H, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iread_at: fn(H, i64, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iwrite_at: fn(H, i64, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iread_at_all: fn(H, i64, *mut c_void, c_int, H, *mut H) -> c_int;
    PMPI_File_iwrite_at_all: fn(H, i64, *mut c_void, c_int, H, *mut H) -> c_int;
}

/// The function a wrapper of `MPI_x` passes the call to: `pmpi`, the next
/// `PMPI_x`, else the next definition of `MPI_x` itself (`name`, found
/// once into `plain`). An MPI stub library (a serial build's, such as
/// mpi-serial) defines MPI_x without a profiling layer: the program's
/// call must still reach it, not fail in our wrapper.
pub fn or_plain<F: Copy>(pmpi: Option<F>, plain: &'static AtomicPtr<c_void>, name: &'static [u8]) -> Option<F> {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    pmpi.or_else(|| {
        let p = lookup(plain, name);
        // SAFETY: F is the function pointer type of PMPI_x, whose C
        // prototype MPI_x shares; `p` is that function's address (never
        // ours: lookup finds definitions outside this library).
        (!p.is_null()).then(|| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    })
}

/// [`or_plain`] for the real function `$pmpi` (its Option), `$name`'s
/// own slot kept where the macro is used.
macro_rules! pmpi_or_plain {
    ($pmpi:expr, $name:ident) => {{
        static PLAIN: std::sync::atomic::AtomicPtr<std::ffi::c_void> =
            std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
        $crate::mpi_abi::or_plain($pmpi, &PLAIN, concat!(stringify!($name), "\0").as_bytes())
    }};
}

/// Exports `$name` (MPI_x) and `$pname` (PMPI_x) with one body, as C
/// Darshan's aliases do: a program, a Fortran binding or a tool may call
/// either (docs/interposition.md rule 16).
macro_rules! mpi_pair {
    ($name:ident, $pname:ident, ($($a:ident : $t:ty),*), $body:expr) => {
        /// # Safety
        /// Called by the program with the MPI function's own arguments.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> c_int {
            $body
        }

        /// # Safety
        /// As the MPI_ name.
        #[no_mangle]
        pub unsafe extern "C" fn $pname($($a: $t),*) -> c_int {
            // SAFETY: same contract.
            unsafe { $name($($a),*) }
        }
    };
}

/// The predefined handles the runtime itself uses.
pub struct Abi {
    pub name: &'static str,
    /// The bits of an MPI_Info (MPI_Comm, MPI_Datatype, MPI_Op) handle
    /// that a callee may look at: all 64 for Open MPI's pointers, the low
    /// 32 for MPICH's ints (the C ABI leaves a register's upper half
    /// undefined when an int is passed in it).
    pub handle_mask: H,
    pub err_other: c_int,
    pub err_arg: c_int,
    pub comm_world: H,
    pub info_null: H,
    pub datatype_null: H,
    pub byte: H,
    pub uint64: H,
    pub int64: H,
    pub double: H,
    pub sum: H,
    pub min: H,
    pub max: H,
    pub band: H,
    pub bor: H,
    /// MPI_STATUS_IGNORE, MPI_IN_PLACE (pointers), MPI_PROC_NULL and
    /// MPI_ROOT (ranks): constants, each library its own.
    pub status_ignore: usize,
    pub in_place: usize,
    pub proc_null: c_int,
    pub root: c_int,
}

/// The address of Open MPI's global `name`: in the global scope, else in
/// the MPI library found outside it (mpi4py's, loaded RTLD_LOCAL).
fn global(name: &'static [u8]) -> Option<H> {
    // SAFETY: `name` is a NUL-terminated literal; dlsym(RTLD_DEFAULT)
    // only looks the symbol up.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr().cast()) };
    let p = if p.is_null() { crate::loaded::in_known_objects(name)? } else { p };
    Some(p as H)
}

impl Abi {
    /// The MPI library in this process, or None if it is not one we know.
    fn detect() -> Option<Abi> {
        Abi::open_mpi().or_else(|| mpich_family().then_some(Abi::MPICH))
    }

    /// Open MPI: every predefined handle is the address of a global.
    fn open_mpi() -> Option<Abi> {
        Some(Abi {
            name: "Open MPI",
            handle_mask: H::MAX,
            err_other: 16,
            err_arg: 13,
            comm_world: global(b"ompi_mpi_comm_world\0")?,
            info_null: global(b"ompi_mpi_info_null\0")?,
            datatype_null: global(b"ompi_mpi_datatype_null\0")?,
            byte: global(b"ompi_mpi_byte\0")?,
            uint64: global(b"ompi_mpi_uint64_t\0")?,
            int64: global(b"ompi_mpi_int64_t\0")?,
            double: global(b"ompi_mpi_double\0")?,
            sum: global(b"ompi_mpi_op_sum\0")?,
            min: global(b"ompi_mpi_op_min\0")?,
            max: global(b"ompi_mpi_op_max\0")?,
            band: global(b"ompi_mpi_op_band\0")?,
            bor: global(b"ompi_mpi_op_bor\0")?,
            status_ignore: 0,
            in_place: 1,
            proc_null: -2,
            root: -4,
        })
    }

    /// The MPICH ABI's fixed handle values (mpi.h of MPICH 3.x and 4.x,
    /// shared by Intel MPI, MVAPICH and Cray MPICH).
    const MPICH: Abi = Abi {
        name: "MPICH",
        handle_mask: 0xffff_ffff,
        err_other: 15,
        err_arg: 12,
        comm_world: 0x4400_0000,
        info_null: 0x1c00_0000,
        datatype_null: 0x0c00_0000,
        byte: 0x4c00_010d,
        uint64: 0x4c00_083e,
        int64: 0x4c00_083a,
        double: 0x4c00_080b,
        sum: 0x5800_0003,
        min: 0x5800_0002,
        max: 0x5800_0001,
        band: 0x5800_0006,
        bor: 0x5800_0008,
        status_ignore: 1,
        in_place: usize::MAX,
        proc_null: -1,
        root: -3,
    };

    /// Whether a program's MPI_Info argument is MPI_INFO_NULL.
    pub fn is_info_null(&self, info: H) -> bool {
        info & self.handle_mask == self.info_null
    }

    /// Whether a program's MPI_Datatype argument is MPI_DATATYPE_NULL.
    pub fn is_datatype_null(&self, dt: H) -> bool {
        dt & self.handle_mask == self.datatype_null
    }
}

/// Whether the MPI library says it is of the MPICH family (MPICH, Intel
/// MPI, MVAPICH, Cray MPICH), whose handle values are fixed by one ABI.
/// Asked through MPI_Get_library_version (MPI 3.0), which any library
/// answers without a handle, so an MPI we do not know is never handed
/// values it could crash on.
fn mpich_family() -> bool {
    let Some(f) = PMPI_Get_library_version() else { return false };
    // MPI_MAX_LIBRARY_VERSION_STRING: 8192 in MPICH, 256 in Open MPI.
    let mut buf = [0u8; 8192];
    let mut len: c_int = 0;
    // SAFETY: `buf` has room for the longest version string of any MPI
    // library (MPI_MAX_LIBRARY_VERSION_STRING); `len` is writable.
    if unsafe { f(buf.as_mut_ptr().cast(), &mut len) } != MPI_SUCCESS {
        return false;
    }
    let n = usize::try_from(len).unwrap_or(0).min(buf.len());
    is_mpich_family(&buf[..n])
}

/// The version strings of the MPICH family: "MPICH Version: 4.0.2",
/// "Intel(R) MPI Library 2021.10", "MVAPICH2 Version 2.3.7",
/// "MPI VERSION : CRAY MPICH version 8.1.25".
fn is_mpich_family(version: &[u8]) -> bool {
    let v = String::from_utf8_lossy(version).to_ascii_lowercase();
    v.contains("mpich") || v.contains("mvapich") || v.contains("intel(r) mpi")
}

static ABI: OnceLock<Option<Abi>> = OnceLock::new();

/// The MPI ABI, detected once (after PMPI_Init returned).
pub fn abi() -> Option<&'static Abi> {
    ABI.get_or_init(|| {
        resolve_all();
        Abi::detect()
    })
    .as_ref()
}

/// The ABI if already detected (wrappers called after MPI_Init).
pub fn abi_ready() -> Option<&'static Abi> {
    ABI.get().and_then(|a| a.as_ref())
}

/// Size in bytes of one element of `dt` (None if MPI cannot say).
pub fn type_size(dt: H) -> Option<c_int> {
    let f = PMPI_Type_size()?;
    let mut size: c_int = 0;
    // SAFETY: `size` is writable; `dt` is the caller's datatype handle,
    // which the real call just accepted.
    (unsafe { f(dt, &mut size) } == MPI_SUCCESS).then_some(size)
}

/// Size in bytes of `count` elements of `dt` (0 if MPI cannot say).
pub fn type_bytes(dt: H, count: c_int) -> i64 {
    type_size(dt).map_or(0, |size| size as i64 * count as i64)
}

/// Bytes of `count` elements of `dt` for the large-count calls: the
/// datatype's size as an MPI_Count (MPI_Type_size_x), times the count.
pub fn type_bytes_c(dt: H, count: i64) -> i64 {
    let Some(f) = PMPI_Type_size_x() else { return 0 };
    let mut size: i64 = 0;
    // SAFETY: `size` is writable; `dt` is the caller's datatype handle,
    // which the real call just accepted.
    if unsafe { f(dt, &mut size) } != MPI_SUCCESS {
        return 0;
    }
    size.saturating_mul(count)
}

/// Ranks in `comm` (1 if MPI cannot say).
pub fn comm_size(comm: H) -> i64 {
    let Some(f) = PMPI_Comm_size() else { return 1 };
    let mut n: c_int = 1;
    // SAFETY: `n` is writable; `comm` was just accepted by MPI_File_open.
    unsafe { f(comm, &mut n) };
    n as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mpich_family_is_told_by_its_version_string() {
        for v in [
            "MPICH Version:\t4.0.2\nMPICH Release date: Thu Apr  7 2022",
            "Intel(R) MPI Library 2021.10 for Linux* OS",
            "MVAPICH2 Version      :\t2.3.7",
            "MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)",
        ] {
            assert!(is_mpich_family(v.as_bytes()), "{v}");
        }
        for v in ["Open MPI v4.1.4, package: Debian OpenMPI", "MPItrampoline", ""] {
            assert!(!is_mpich_family(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn an_int_handle_with_a_dirty_upper_half_is_still_info_null() {
        let m = Abi::MPICH;
        assert!(m.is_info_null(0xdead_beef_1c00_0000));
        assert!(!m.is_info_null(0x1c00_0001));
        assert!(!m.is_info_null(0x9c00_0000));
    }
}
