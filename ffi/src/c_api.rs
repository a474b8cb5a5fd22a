//! What the Rust side gives the C shim, checked against the declarations
//! the shim compiles with (`facts::C_DECLARATIONS`, written by build.rs
//! into darshan_facts.h): a Rust definition whose type changes stops
//! compiling here, and a declaration added without a check here fails
//! this file's test. The C types map as: `FILE *` = `*mut libc::FILE`,
//! `long` = `c_long`, `int64_t` = `i64`, `unsigned char` = a one-byte
//! atomic, `uint64_t` = `AtomicU64`.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8};

use libc::{c_long, FILE};

const _: extern "C" fn(*mut FILE, c_long, i64, i64) = crate::shim::darshan_rs_stdio_write;
const _: extern "C" fn(*mut FILE, c_long, i64) = crate::shim::darshan_rs_stdio_read;
const _: extern "C" fn() -> i64 = crate::clock::darshan_rs_now;
const _: extern "C" fn() = crate::guard::darshan_rs_lost_call;

/// darshan_rs_life, darshan_rs_use_tsc (unsigned char) and
/// darshan_rs_t0 (uint64_t), by their Rust names.
#[allow(dead_code)]
fn statics() -> (&'static AtomicU8, &'static AtomicBool, &'static AtomicU64) {
    (&crate::guard::LIFE, &crate::clock::USE_TSC, &crate::clock::T0)
}
const _: () = assert!(size_of::<AtomicU8>() == 1 && size_of::<AtomicBool>() == 1 && size_of::<AtomicU64>() == 8);

#[cfg(test)]
mod tests {
    /// The names the C declarations give, each followed by `(` or `;`.
    fn declared_names() -> Vec<&'static str> {
        crate::facts::C_DECLARATIONS
            .lines()
            .filter_map(|l| {
                let end = l.find('(').or_else(|| l.find(';'))?;
                l[..end].rsplit([' ', '*']).next()
            })
            .collect()
    }

    #[test]
    fn every_declaration_the_shim_compiles_with_has_its_rust_check() {
        let names = declared_names();
        assert_eq!(names.len(), 7, "{names:?}");
        let checks = include_str!("c_api.rs");
        let exported = [include_str!("guard.rs"), include_str!("clock.rs"), include_str!("shim.rs")].concat();
        for n in names {
            // A function is checked by name; a static through the Rust
            // static its export_name names.
            let by_name = checks.contains(&format!("::{n};"));
            let by_export = exported
                .split(&format!("#[export_name = \"{n}\"]"))
                .nth(1)
                .and_then(|rest| rest.split_whitespace().skip_while(|w| *w != "static").nth(1))
                .map(|s| s.trim_end_matches(':'))
                .is_some_and(|rust| checks.contains(&format!("::{rust})")) || checks.contains(&format!("::{rust},")));
            assert!(by_name || by_export, "{n} is declared to C but not checked in c_api.rs");
        }
    }
}
