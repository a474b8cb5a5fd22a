//! What the Rust side gives the C shim: `RsApi`, the twin of the C struct
//! the shim compiles with (`facts::C_DECLARATIONS`, written by build.rs
//! into darshan_facts.h), handed to it once at start-up (shim.rs). A Rust
//! function or static whose type changes stops compiling there, and a
//! field that differs from the C declaration in name, order or type fails
//! this file's test. The C types map as: `FILE *` = `*mut libc::FILE`,
//! `long` = `c_long`, `int64_t` = `i64`, `unsigned char` = a one-byte
//! atomic, `uint64_t` = `AtomicU64`.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8};

use libc::{c_long, FILE};

/// `struct darshan_rs_api` (facts.rs), field for field.
#[repr(C)]
pub struct RsApi {
    pub stream_filter: *const AtomicU64,
    pub stdio_begun: *const AtomicBool,
    pub stdio_begin: extern "C" fn(),
    pub life: *const AtomicU8,
    pub use_tsc: *const AtomicBool,
    pub t0: *const AtomicU64,
    pub now: extern "C" fn() -> i64,
    pub lost_call: extern "C" fn(),
    pub stdio_write: extern "C" fn(*mut FILE, c_long, i64, i64),
    pub stdio_read: extern "C" fn(*mut FILE, c_long, i64),
}

const _: () = assert!(size_of::<AtomicU8>() == 1 && size_of::<AtomicBool>() == 1 && size_of::<AtomicU64>() == 8);

#[cfg(test)]
mod tests {
    /// `(type, name)` of each field of the one struct in `text`, in order:
    /// C's `T *name;` / `R (*name)(args);`, or Rust's `pub name: T,`.
    fn fields(text: &str, c: bool) -> Vec<(String, String)> {
        let body = text.split('{').nth(1).and_then(|b| b.split("\n}").next()).expect("a struct body");
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        body.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .map(|l| {
                if !c {
                    let (name, ty) = l.trim_start_matches("pub ").split_once(':').expect("name: type");
                    return (squash(ty.trim_end_matches(',')), name.trim().to_string());
                }
                let l = l.trim_end_matches(';');
                match l.split_once("(*") {
                    Some((ret, rest)) => {
                        let (name, args) = rest.split_once(')').expect("(*name)(args)");
                        // Parameter names are not part of the type (a `*` is).
                        let args: Vec<String> = args.trim_matches(['(', ')']).split(',').map(param_type).collect();
                        (format!("{} (*)({})", squash(ret), args.join(", ")), name.to_string())
                    }
                    None => {
                        let (ty, name) = l.rsplit_once(' ').expect("type name");
                        let (ty, name) = match name.strip_prefix('*') {
                            Some(n) => (format!("{ty} *"), n),
                            None => (ty.to_string(), name),
                        };
                        (squash(&ty), name.to_string())
                    }
                }
            })
            .collect()
    }

    /// A C parameter's type: `FILE *f` is `FILE *`, `void` is `void`.
    fn param_type(param: &str) -> String {
        let param = param.trim();
        match param.rsplit_once(' ') {
            None => param.to_string(),
            Some((ty, name)) => {
                let stars = name.len() - name.trim_start_matches('*').len();
                format!("{ty}{}", if stars > 0 { format!(" {}", "*".repeat(stars)) } else { String::new() })
            }
        }
    }

    /// The Rust type each C type stands for (the module's doc).
    fn rust_for(c: &str) -> &'static str {
        match c {
            "const uint64_t *" => "*const AtomicU64",
            "const unsigned char *" => "*const AtomicU8",
            "int64_t (*)(void)" => "extern \"C\" fn() -> i64",
            "void (*)(void)" => "extern \"C\" fn()",
            "void (*)(FILE *, long, int64_t, int64_t)" => "extern \"C\" fn(*mut FILE, c_long, i64, i64)",
            "void (*)(FILE *, long, int64_t)" => "extern \"C\" fn(*mut FILE, c_long, i64)",
            other => panic!("no Rust type is known for the C type {other:?}"),
        }
    }

    #[test]
    fn the_rust_struct_is_the_c_struct_field_by_field() {
        let c = fields(crate::facts::C_DECLARATIONS, true);
        let source = include_str!("c_api.rs");
        let rust_struct = &source[source.find("pub struct RsApi").expect("RsApi")..];
        let rust = fields(rust_struct, false);
        assert_eq!(c.len(), 10, "{c:?}");
        let c_names: Vec<_> = c.iter().map(|(_, n)| n.as_str()).collect();
        let rust_names: Vec<_> = rust.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(c_names, rust_names, "the fields' names and order");
        for ((ct, name), (rt, _)) in c.iter().zip(&rust) {
            // use_tsc and stdio_begun are C bytes read as flags:
            // AtomicBool, one byte.
            let flag = name == "use_tsc" || name == "stdio_begun";
            let want = if flag { "*const AtomicBool" } else { rust_for(ct) };
            assert_eq!(rt, want, "field {name}: C {ct}");
        }
        assert_eq!(size_of::<super::RsApi>(), 10 * size_of::<usize>());
    }
}
