//! MPI without linking libmpi (interposition rules 16-17). The real
//! `PMPI_*` functions are found with `dlsym(RTLD_NEXT)` the first time
//! the program calls MPI_Init, so a non-MPI program never loads libmpi.
//! Handles are opaque `usize`s: Open MPI's are pointers to global objects
//! (`&ompi_mpi_comm_world`), looked up by name here; MPICH's are ints,
//! which pass through a 64-bit register unchanged, so adding MPICH means
//! adding its constants to [`Abi::detect`], not new wrappers.

use std::ffi::c_void;
use std::sync::atomic::AtomicPtr;
use std::sync::OnceLock;

use libc::{c_char, c_int};

use crate::real::lookup;

/// An MPI handle (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Info, MPI_File).
pub type H = usize;
pub type UserOp = extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut H);

pub const MPI_SUCCESS: c_int = 0;
/// What a wrapper returns when the real function cannot be found
/// (MPI_ERR_OTHER in Open MPI and MPICH).
pub const MPI_ERR_OTHER: c_int = 16;
/// MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL (same in both).
pub const LOG_AMODE: c_int = 1 | 4 | 64;

reals! {
    PMPI_Init: fn(*mut c_int, *mut *mut *mut c_char) -> c_int;
    PMPI_Init_thread: fn(*mut c_int, *mut *mut *mut c_char, c_int, *mut c_int) -> c_int;
    PMPI_Finalize: fn() -> c_int;
    PMPI_Comm_rank: fn(H, *mut c_int) -> c_int;
    PMPI_Comm_size: fn(H, *mut c_int) -> c_int;
    PMPI_Barrier: fn(H) -> c_int;
    PMPI_Bcast: fn(*mut c_void, c_int, H, c_int, H) -> c_int;
    PMPI_Allreduce: fn(*const c_void, *mut c_void, c_int, H, H, H) -> c_int;
    PMPI_Reduce: fn(*const c_void, *mut c_void, c_int, H, H, c_int, H) -> c_int;
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

/// The predefined handles the runtime itself uses.
pub struct Abi {
    pub name: &'static str,
    pub comm_world: H,
    pub info_null: H,
    pub byte: H,
    pub uint64: H,
    pub int64: H,
    pub double: H,
    pub sum: H,
    pub min: H,
    pub max: H,
    pub band: H,
    pub bor: H,
}

fn global(name: &'static [u8]) -> Option<H> {
    // SAFETY: `name` is a NUL-terminated literal; dlsym(RTLD_DEFAULT)
    // only looks the symbol up.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr().cast()) };
    (!p.is_null()).then_some(p as H)
}

impl Abi {
    /// The MPI library in this process, or None if it is not one we know.
    fn detect() -> Option<Abi> {
        // Open MPI: every predefined handle is the address of a global.
        Some(Abi {
            name: "Open MPI",
            comm_world: global(b"ompi_mpi_comm_world\0")?,
            info_null: global(b"ompi_mpi_info_null\0")?,
            byte: global(b"ompi_mpi_byte\0")?,
            uint64: global(b"ompi_mpi_uint64_t\0")?,
            int64: global(b"ompi_mpi_int64_t\0")?,
            double: global(b"ompi_mpi_double\0")?,
            sum: global(b"ompi_mpi_op_sum\0")?,
            min: global(b"ompi_mpi_op_min\0")?,
            max: global(b"ompi_mpi_op_max\0")?,
            band: global(b"ompi_mpi_op_band\0")?,
            bor: global(b"ompi_mpi_op_bor\0")?,
        })
    }
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

/// Size in bytes of `count` elements of `dt` (0 if MPI cannot say).
pub fn type_bytes(dt: H, count: c_int) -> i64 {
    let Some(f) = PMPI_Type_size() else { return 0 };
    let mut size: c_int = 0;
    // SAFETY: `size` is writable; `dt` is the caller's datatype handle,
    // which the real call just accepted.
    if unsafe { f(dt, &mut size) } != MPI_SUCCESS {
        return 0;
    }
    size as i64 * count as i64
}

/// Ranks in `comm` (1 if MPI cannot say).
pub fn comm_size(comm: H) -> i64 {
    let Some(f) = PMPI_Comm_size() else { return 1 };
    let mut n: c_int = 1;
    // SAFETY: `n` is writable; `comm` was just accepted by MPI_File_open.
    unsafe { f(comm, &mut n) };
    n as i64
}
