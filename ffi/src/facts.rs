// Values the Rust side and the C shim (shim.c) must agree on, in one
// place: ffi/build.rs reads this file to write the header shim.c
// includes. (Plain comments: the file is also included into the build
// script, where an inner doc comment cannot stand.)

/// The per-thread guard's values: outside the runtime; recording a call (a
/// signal handler that calls an interposed function now re-enters it);
/// doing the runtime's own I/O (not a missed call).
pub const OUTSIDE: i32 = 0;
pub const RECORDING: i32 = 1;
pub const OWN_IO: i32 = 2;

/// The runtime's life cycle, one byte that the Rust wrappers and the C
/// shim read (`darshan_rs_life`): only `Running` records. Set only by the
/// start, fork and shutdown frames (init.rs, mpi_wrap.rs) and by a
/// wrapper whose recording panicked (`Disabled`).
#[repr(u8)]
#[allow(dead_code)] // the build script, which includes this file, uses one variant
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Life {
    /// Not started yet (an MPI program until MPI_Init).
    Uninit = 0,
    Running = 1,
    /// Writing the log, or set up but not recording (an excluded MPI
    /// rank, which still takes part in the collective shutdown).
    ShuttingDown = 2,
    Finalized = 3,
    /// Never records again (DARSHAN_DISABLE, an error, a panic).
    Disabled = 4,
}

/// The words of the thread-local slot where an HDF5 hyperslab selection
/// just set waits for the access that uses it (hdf5_select.rs; the
/// storage is C's, for the initial-exec TLS model).
pub const H5_SELECTION_WORDS: usize = 31;

// The C declarations of what the Rust side gives the shim (functions it
// calls, statics it reads), written by build.rs into darshan_facts.h:
// shim.c declares none of them itself. Each has its Rust type checked in
// ffi/src/c_api.rs, and a test there fails when a name here has no check.
// Read by build.rs and by c_api.rs's test only.
#[allow(dead_code)]
pub const C_DECLARATIONS: &str = "\
void darshan_rs_stdio_write(FILE *f, long bytes, int64_t tm1, int64_t tm2);
void darshan_rs_stdio_read(FILE *f, long bytes, int64_t tm1);
int64_t darshan_rs_now(void);
void darshan_rs_lost_call(void);
extern unsigned char darshan_rs_life;
extern unsigned char darshan_rs_use_tsc;
extern uint64_t darshan_rs_t0;
";
