// Compiles the C shim for the variadic printf/scanf wrappers (with the
// header of the values it shares with the Rust side, written here from
// their one source), and links the unwinder statically (see
// `static_unwinder`).

mod facts {
    include!("src/facts.rs");
}
mod stdio_filter {
    include!("../modules/stdio/src/filter.rs");
}

fn main() {
    println!("cargo:rerun-if-changed=src/shim.c");
    println!("cargo:rerun-if-changed=src/facts.rs");
    println!("cargo:rerun-if-changed=../modules/stdio/src/filter.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let header = format!(
        "/* Written by ffi/build.rs from ffi/src/facts.rs and modules/stdio/src/filter.rs: do not edit. */\n\
         #define DARSHAN_GUARD_OUTSIDE {}\n#define DARSHAN_GUARD_RECORDING {}\n#define DARSHAN_GUARD_OWN_IO {}\n\
         #define DARSHAN_LIFE_RUNNING {}\n\
         #define DARSHAN_FILTER_MUL {:#x}ull\n#define DARSHAN_FILTER_SHIFT {}\n#define DARSHAN_FILTER_WORDS {}\n\
         #define DARSHAN_H5_SELECTION_WORDS {}\n\
         #include <stdio.h>\n#include <stdint.h>\n{}",
        facts::OUTSIDE,
        facts::RECORDING,
        facts::OWN_IO,
        facts::Life::Running as u8,
        stdio_filter::FILTER_MUL,
        stdio_filter::FILTER_SHIFT,
        stdio_filter::FILTER_WORDS,
        facts::H5_SELECTION_WORDS,
        facts::C_DECLARATIONS
    );
    std::fs::write(out.join("darshan_facts.h"), header).expect("writing darshan_facts.h");
    cc::Build::new()
        .file("src/shim.c")
        .include(&out)
        .flag("-fvisibility=hidden")
        .flag_if_supported("-O2")
        .compile("darshanshim");
    // The BG/Q module's hardware provider, only for BG/Q targets
    // (RUSTFLAGS="--cfg darshan_bgq" with IBM's headers); see bgq_wrap.rs.
    println!("cargo::rustc-check-cfg=cfg(darshan_bgq)");
    println!("cargo:rerun-if-changed=src/bgq_kernel.c");
    if std::env::var_os("CARGO_CFG_DARSHAN_BGQ").is_some() {
        cc::Build::new().file("src/bgq_kernel.c").flag("-fvisibility=hidden").compile("darshanbgq");
    }
    static_unwinder();
    text_order();
    never_unloaded();
    soname();
}

/// C Darshan's libtool build names the library libdarshan.so.0, and a
/// program linked with it (`darshan-config --dyn-ld-flags`, Cray's
/// compiler wrappers, MPICH's profile) records that name: this tree
/// installs the library under it (scripts/install.sh), and a program
/// linked against this tree records the same name, so that either tree
/// can take the other's place under a program already linked.
fn soname() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdarshan.so.0");
}

/// A program that loads the runtime with `dlopen` and lets it go with
/// `dlclose` must not have it unmapped: the thread-local destructors it
/// registered on the program's threads run at their exit (the main
/// thread's at `exit`), into a library no longer there (SIGSEGV; C
/// Darshan, without such destructors, runs it). `-z nodelete` keeps it
/// mapped to the end; its destructor, and so the log, waits for exit,
/// when the process's records are complete.
fn never_unloaded() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}

/// Rust's std asks for `-lgcc_s` (the unwinder a caught panic needs).
/// Loading libgcc_s.so into a program that does not use it costs every
/// process its mapping, relocation and constructor (CPU detection with
/// `cpuid`, ~7 us per instruction in a VM): about 0.1 ms, a fifth of what
/// the library adds to `/bin/true`. GCC's own answer for shared libraries
/// is `-static-libgcc`, which links the same unwinder from libgcc_eh.a
/// (position-independent, and hidden by the cdylib's export list). Rust
/// has no such switch, so `-lgcc_s` is pointed at libgcc_eh.a: a copy
/// named libgcc_s.a in a directory searched before the system's. Where the
/// compiler has no libgcc_eh.a the library simply keeps libgcc_s.
fn static_unwinder() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if !target.contains("linux-gnu") {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let Ok(out) = std::process::Command::new(&cc).arg("-print-file-name=libgcc_eh.a").output() else { return };
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    // `cc` prints the bare name when it has no such file.
    if !out.status.success() || !path.starts_with('/') || !std::path::Path::new(&path).exists() {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("static-unwinder");
    if std::fs::create_dir_all(&dir).is_err() || std::fs::copy(&path, dir.join("libgcc_s.a")).is_err() {
        return;
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
}

/// The functions a short process runs in the library (text-order.txt,
/// written by scripts/text-order.sh) go first in its text, together: the
/// kernel maps text 64 KiB at a time on a page fault, and in the
/// compiler's order /bin/true's 415 functions lay in 19 of the 28 windows
/// (5 together): its text faults go from 15 to 4, about 30 us less per
/// process (docs/performance.md, issue 51, sixth step). Only LLD reads a symbol
/// ordering file, and rustc links with its own LLD on x86-64 Linux since
/// 1.90 unless a linker is configured; elsewhere the library is linked in
/// the compiler's order, as before. DARSHAN_TEXT_ORDER=0 turns it off.
///
/// The linker reads the list as scripts/build.sh resolved it against the
/// last build ([`resolved_order`]), not text-order.txt itself.
fn text_order() {
    println!("cargo:rerun-if-changed=text-order.txt");
    println!("cargo:rerun-if-env-changed=DARSHAN_TEXT_ORDER");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let own_lld = var("TARGET") == "x86_64-unknown-linux-gnu"
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("linker")
        && rustc_minor().is_some_and(|m| m >= 90);
    let list = std::path::PathBuf::from(var("CARGO_MANIFEST_DIR")).join("text-order.txt");
    if !own_lld || var("DARSHAN_TEXT_ORDER") == "0" || !list.exists() {
        return;
    }
    let Some(order) = resolved_order(&list) else { return };
    let path = order.display().to_string();
    if path.contains(',') {
        return;
    }
    println!("cargo:rerun-if-changed={path}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--symbol-ordering-file={path}");
    // A name the code no longer has is skipped, not an error.
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-warn-symbol-ordering");
}

/// The list the linker reads: `text-order.resolved.txt` in the profile's
/// directory (target/release), made here as a copy of text-order.txt when
/// missing. A local function that ThinLTO exports from its module is
/// renamed `name.llvm.<hash of the module>`, and the hash moves with any
/// change to the module's code: one change to the format crate took 72 of
/// the list's 88 such names away, and the linker, which matches exact
/// names, left those functions out of the order. scripts/build.sh
/// rewrites the copy with the names the built library has for the same
/// functions (scripts/text_order.py --resolve) and links again when they
/// differ; text-order.txt itself only changes when scripts/text-order.sh
/// runs the workloads again.
fn resolved_order(list: &std::path::Path) -> Option<std::path::PathBuf> {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").ok()?);
    // OUT_DIR is <profile dir>/build/darshan-ffi-<hash>/out.
    let resolved = out.ancestors().nth(3)?.join("text-order.resolved.txt");
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    // Made again from a list newer than it (scripts/text-order.sh ran).
    if modified(&resolved).is_none_or(|r| modified(list).is_some_and(|l| l > r)) {
        std::fs::copy(list, &resolved).ok()?;
    }
    Some(resolved)
}

/// The compiler's minor version (`rustc 1.95.0 ...`).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_whitespace().nth(1)?.split('.').nth(1)?.parse().ok()
}
