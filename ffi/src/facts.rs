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
