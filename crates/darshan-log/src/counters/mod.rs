//! Every fixed-layout module's record, one file each: its counters and
//! fcounters in on-disk order (as Darshan's
//! `include/darshan-*-log-format.h`), written once in a [`layout!`] that
//! makes of them the index constants, the typed indices and the names
//! darshan-parser prints (`NAMES`, `F_NAMES`). A record is 64-bit words:
//! id, rank, counters, then fcounters.

/// Index (0..10) of Darshan's access-size bucket for an access of `bytes`
/// (SIZE_*_0_100, 100_1K, ... 1G_PLUS): upper bounds inclusive. Shared by
/// the runtime's wrappers and the tools that write logs.
#[inline]
pub fn size_bucket(bytes: i64) -> usize {
    const BOUNDS: [i64; 9] = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824];
    BOUNDS.iter().position(|&b| bytes <= b).unwrap_or(9)
}

/// Compile-time check of a `layout!`: index k is the k-th constant.
#[doc(hidden)]
pub const fn in_position(indices: &[usize]) {
    let mut k = 0;
    while k < indices.len() {
        assert!(indices[k] == k, "a counter index is not its position");
        k += 1;
    }
}

/// A NUL-terminated literal as a C string, at compile time (`layout!`'s
/// C names).
#[doc(hidden)]
pub const fn c_str(s: &'static str) -> &'static core::ffi::CStr {
    match core::ffi::CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("a counter name is not one C string"),
    }
}

/// The parts, in order, as one array (a compile-time error when their
/// lengths do not add up to `N`).
pub(crate) const fn flatten<T: Copy, const N: usize>(parts: &[&[T]], fill: T) -> [T; N] {
    let mut out = [fill; N];
    let (mut p, mut at) = (0, 0);
    while p < parts.len() {
        let mut k = 0;
        while k < parts[p].len() {
            out[at] = parts[p][k];
            at += 1;
            k += 1;
        }
        p += 1;
    }
    assert!(at == N, "the parts do not make the format's counters");
    out
}

/// The names as the C strings darshan-util exports.
pub(crate) const fn c_names<const N: usize>(text: [&'static str; N]) -> [&'static core::ffi::CStr; N] {
    let mut out = [c""; N];
    let mut k = 0;
    while k < N {
        out[k] = c_str(text[k]);
        k += 1;
    }
    out
}

/// The word positions of a module's counters, from its `COUNTERS_AT`,
/// `FCOUNTERS_AT`, `NUM_INDICES` and `F_NUM_INDICES`: `word(k)` and
/// `fword(k)` (checked in debug builds and wherever `k` is a constant),
/// and `words(first, last)` for a family whose members are consecutive
/// by the format's definition (histogram bins, per-call counters).
#[macro_export]
macro_rules! layout_fns {
    () => {
        /// Word of counter `k` in a record.
        #[inline(always)]
        pub const fn word(k: usize) -> usize {
            debug_assert!(k < NUM_INDICES);
            COUNTERS_AT + k
        }
        /// Word of fcounter `k` in a record.
        #[inline(always)]
        pub const fn fword(k: usize) -> usize {
            debug_assert!(k < F_NUM_INDICES);
            FCOUNTERS_AT + k
        }
        /// The words of counters `first..=last`, checked to be in order.
        pub const fn words(first: usize, last: usize) -> std::ops::RangeInclusive<usize> {
            assert!(first <= last && last < NUM_INDICES);
            word(first)..=word(last)
        }
    };
}

/// A module's counter and fcounter indices, written once: as `usize`
/// constants (the tools index parsed records' counter vectors with them)
/// and, in the module's `typed` namespace, as constants of two distinct
/// types, `Counter` and `FCounter`, whose `word`/`fword` take only their
/// own kind. The runtime's modules use `typed`: an fcounter passed where
/// a counter belongs (or another module's counter: each module's types
/// are its own) does not compile, where with plain indices it silently
/// addressed the wrong word:
///
/// ```compile_fail
/// use darshan_log::counters::posix::typed as c;
/// let _ = c::word(c::F_READ_TIME); // an fcounter where a counter belongs
/// ```
///
/// ```compile_fail
/// use darshan_log::counters::posix::typed as c;
/// let _ = c::word(darshan_log::counters::stdio::typed::OPENS); // STDIO's
/// ```
///
/// An index out of its place (here B's) does not compile, so the names
/// the macro makes are the constants' own:
///
/// ```compile_fail
/// mod m {
///     pub const NUM_INDICES: usize = 2;
///     pub const F_NUM_INDICES: usize = 0;
///     pub const COUNTERS_AT: usize = 2;
///     pub const FCOUNTERS_AT: usize = 4;
///     darshan_log::layout! { prefix "X"; counters { A = 0, B = 0, } fcounters { } }
/// }
/// ```
///
/// ```
/// mod m {
///     pub const NUM_INDICES: usize = 2;
///     pub const F_NUM_INDICES: usize = 0;
///     pub const COUNTERS_AT: usize = 2;
///     pub const FCOUNTERS_AT: usize = 4;
///     darshan_log::layout! { prefix "X"; counters { A = 0, B = 1, } fcounters { } }
/// }
/// assert_eq!(m::NAMES, ["X_A", "X_B"]);
/// ```
///
/// ```
/// use darshan_log::counters::posix::{self, typed as c};
/// assert_eq!(c::word(c::OPENS), posix::word(posix::OPENS));
/// assert_eq!(c::fword(c::F_READ_TIME), posix::fword(posix::F_READ_TIME));
/// ```
#[macro_export]
macro_rules! layout {
    (prefix $prefix:literal; counters { $($c:ident = $cv:expr,)* } fcounters { $($f:ident = $fv:expr,)* }) => {
        $(pub const $c: usize = $cv;)*
        $(pub const $f: usize = $fv;)*
        $crate::layout_fns!();

        /// The counters' names in on-disk order (`<PREFIX>_<NAME>`, as
        /// darshan-parser prints them), made from the constants above:
        /// the names have no other source.
        pub const NAMES: [&str; NUM_INDICES] = [$(concat!($prefix, "_", stringify!($c)),)*];
        /// The fcounters' names, likewise.
        pub const F_NAMES: [&str; F_NUM_INDICES] = [$(concat!($prefix, "_", stringify!($f)),)*];
        /// The counters' names as C strings, ending in `<PREFIX>_NUM_INDICES`
        /// as darshan-util's `<module>_counter_names` arrays do (what
        /// PyDarshan reads its column names from: ffi/util exports them).
        pub const C_NAMES: [&::core::ffi::CStr; NUM_INDICES + 1] = [
            $($crate::counters::c_str(concat!($prefix, "_", stringify!($c), "\0")),)*
            $crate::counters::c_str(concat!($prefix, "_NUM_INDICES\0")),
        ];
        /// The fcounters' names as C strings, ending in `<PREFIX>_F_NUM_INDICES`.
        pub const F_C_NAMES: [&::core::ffi::CStr; F_NUM_INDICES + 1] = [
            $($crate::counters::c_str(concat!($prefix, "_", stringify!($f), "\0")),)*
            $crate::counters::c_str(concat!($prefix, "_F_NUM_INDICES\0")),
        ];

        // Each index is its name's position: a constant out of place (or
        // one missing, or one too many: the arrays above have the
        // format's lengths) does not compile.
        const _: () = $crate::counters::in_position(&[$($cv),*]);
        const _: () = $crate::counters::in_position(&[$($fv),*]);

        /// This module's record layout with typed indices (see
        /// [`layout!`](crate::layout)): everything of the module, with
        /// the counter names, `word`, `fword` and `words` typed.
        pub mod typed {
            pub use super::*;

            /// A counter of this module's record.
            #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
            pub struct Counter(usize);
            /// An fcounter of this module's record.
            #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
            pub struct FCounter(usize);

            impl Counter {
                /// Its index among the counters (the tools' `usize` index).
                pub const fn index(self) -> usize {
                    self.0
                }
                /// The counter `n` places after this one, in a family the
                /// format lays out consecutively (histogram bins, ACCESS1..4).
                #[inline(always)]
                pub const fn plus(self, n: usize) -> Counter {
                    assert!(self.0 + n < NUM_INDICES);
                    Counter(self.0 + n)
                }
                /// Every counter, in order.
                pub fn all() -> impl Iterator<Item = Counter> {
                    (0..NUM_INDICES).map(Counter)
                }
            }

            impl FCounter {
                pub const fn index(self) -> usize {
                    self.0
                }
                #[inline(always)]
                pub const fn plus(self, n: usize) -> FCounter {
                    assert!(self.0 + n < F_NUM_INDICES);
                    FCounter(self.0 + n)
                }
                pub fn all() -> impl Iterator<Item = FCounter> {
                    (0..F_NUM_INDICES).map(FCounter)
                }
            }

            $(pub const $c: Counter = Counter($cv);)*
            $(pub const $f: FCounter = FCounter($fv);)*

            /// Word of counter `k` in a record.
            #[inline(always)]
            pub const fn word(k: Counter) -> usize {
                super::word(k.0)
            }
            /// Word of fcounter `k` in a record.
            #[inline(always)]
            pub const fn fword(k: FCounter) -> usize {
                super::fword(k.0)
            }
            /// The words of counters `first..=last`, checked to be in order.
            pub const fn words(first: Counter, last: Counter) -> std::ops::RangeInclusive<usize> {
                super::words(first.0, last.0)
            }
            /// The words of fcounters `first..=last`, checked to be in order.
            pub const fn fwords(first: FCounter, last: FCounter) -> std::ops::RangeInclusive<usize> {
                assert!(first.0 <= last.0 && last.0 < F_NUM_INDICES);
                super::fword(first.0)..=super::fword(last.0)
            }
        }
    };
}

pub mod apmpi;
pub mod apxc;
pub mod bgq;
pub mod daos;
pub mod dfs;
pub mod h5d;
pub mod h5f;
pub mod io_uring;
pub mod lustre_comp;
pub mod mdhim;
pub mod mpiio;
pub mod null;
pub mod pnetcdf_file;
pub mod pnetcdf_var;
pub mod posix;
pub mod posix_meta;
pub mod processes;
pub mod stdio;
