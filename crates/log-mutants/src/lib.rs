//! The mutation-testing harness of every tool that reads Darshan logs
//! (issue: tools as trustworthy as the runtime). From real logs it makes
//! mutants ([`mutate`]): damaged bytes, and, inside valid compressed
//! streams ([`unpacked`]), the counts, ranks and offsets a reader believes
//! ([`fields`]) set to lies; then it runs each tool ([`tools`]) on each
//! mutant under an address-space limit and a timeout ([`runner`]). A run
//! passes when it ends by itself, with a documented exit status, without
//! a panic, with a one-line error for our own tools, and within its
//! memory bound. `just test` runs a short pass, `just fuzz` a long one.
#![forbid(unsafe_code)]

pub mod fields;
pub mod inputs;
pub mod mutate;
pub mod runner;
pub mod tools;
pub mod unpacked;
