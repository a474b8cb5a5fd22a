// The shape of the STDIO module's stream filter (`MAYBE_TRACKED`), which
// the C shim tests too: ffi/build.rs reads this file to write the header
// ffi/src/shim.c includes, so the Rust and the C side hash a `FILE*` the
// same way by construction. (Plain comments: the file is also included
// into a build script, where an inner doc comment cannot stand.)

/// Fibonacci hashing of the `FILE*` value: multiply, keep the top bits.
pub const FILTER_MUL: u64 = 0x9E37_79B9_7F4A_7C15;
/// 64 - 10: the hash is 10 bits, one of 1,024 filter bits.
pub const FILTER_SHIFT: u32 = 54;
/// 64-bit words of the filter.
pub const FILTER_WORDS: usize = 16;
