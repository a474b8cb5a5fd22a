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
/// shim read (the shim through `darshan_rs_api.life`): only `Running`
/// records. Set only by the start, fork and shutdown frames (init.rs,
/// mpi_wrap.rs) and by a wrapper whose recording panicked (`Disabled`).
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

// What the Rust side gives the shim, as the C struct it is handed once,
// at start-up (darshan_shim_init), written by build.rs into
// darshan_facts.h. Handed, not linked by name: a name the shim could
// link would have to be exported from the library, and only interposed
// functions are (docs/interposition.md rule 12). Its Rust twin,
// `c_api::RsApi`, is checked field by field against this text by the
// test in ffi/src/c_api.rs. Read by build.rs and by that test only.
#[allow(dead_code)]
pub const C_DECLARATIONS: &str = "\
struct darshan_rs_api {
    const uint64_t *stream_filter;
    const unsigned char *stdio_begun;
    void (*stdio_begin)(void);
    const unsigned char *life;
    const unsigned char *use_tsc;
    const uint64_t *t0;
    int64_t (*now)(void);
    void (*lost_call)(void);
    void (*stdio_write)(FILE *f, long bytes, int64_t tm1, int64_t tm2);
    void (*stdio_read)(FILE *f, long bytes, int64_t tm1);
};
";
