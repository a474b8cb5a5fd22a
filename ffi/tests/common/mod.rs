//! Helpers shared by the runtime's integration tests: where the library
//! and tools are, scratch directories, compiling the test programs, and
//! running a program with a time limit (no test may hang on a program).
#![allow(dead_code)]

pub mod api_mix;
pub mod fuse;
pub mod installed;
pub mod mpi;

use darshan_test_support::SpawnWatched;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A binary of the profile this test was built with (libdarshan.so,
/// darshan-merge, darshan-parser ...).
pub fn built(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps.join(name), deps.join("..").join(name)]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found next to {} (cargo build --release)", exe.display()))
}

/// The runtime library under test. `scripts/test.sh` names the one a
/// centre installs in `DARSHAN_TEST_LIB`: target/release/libdarshan.so,
/// which scripts/build.sh links with the runtime's own features. Without
/// it, the copy `cargo test --workspace` links into deps/ with every
/// crate's features unified (the tools' regex tables in it), which loads
/// more slowly but counts the same.
pub fn lib() -> PathBuf {
    match std::env::var_os("DARSHAN_TEST_LIB") {
        Some(p) => {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "DARSHAN_TEST_LIB names no file: {}", p.display());
            p
        }
        None => built("libdarshan.so"),
    }
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch directory under target/preload-tests with logs/,
/// data/ and mmap/ in it (the PyDarshan check reads every log there).
pub fn scratch(tag: &str) -> PathBuf {
    let d = root().join("target/preload-tests").join(format!(
        "{tag}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    for sub in ["logs", "data", "mmap"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    d
}

/// Compile tests/programs/<name>.c into `dir`.
pub fn compile(name: &str, dir: &Path, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let src = root().join("tests/programs").join(format!("{name}.c"));
    let st = status(Command::new("cc").arg("-O2").arg("-o").arg(&out).arg(&src).args(flags));
    assert!(st.success(), "compiling {name}");
    out
}

/// tests/programs/spy_open.c built as a library to preload before ours.
pub fn spy(d: &Path) -> PathBuf {
    let spy = d.join("spy_open.so");
    let src = root().join("tests/programs/spy_open.c");
    let st = status(Command::new("cc").args(["-O2", "-shared", "-fPIC", "-o"]).arg(&spy).arg(&src).arg("-ldl"));
    assert!(st.success(), "compiling spy_open.c");
    spy
}

/// tests/programs/<name>.c built with `cc` (a C compiler: `mpicc` for
/// an MPI program) as a shared library whose `main` is `<name>_main`,
/// and tests/programs/dlopen_main.c, which loads it RTLD_LOCAL as Python
/// loads an extension module: the libraries it links (`flags`) are then
/// outside the global scope. The loader's path, and its arguments up to
/// the program's own.
pub fn compile_loaded_locally(name: &str, cc: &str, dir: &Path, flags: &[&str]) -> (PathBuf, Vec<String>) {
    let lib = dir.join(format!("lib{name}.so"));
    let src = root().join("tests/programs").join(format!("{name}.c"));
    let main = format!("-Dmain={name}_main");
    let st = status(Command::new(cc).args(["-O2", "-shared", "-fPIC", &main, "-o"]).arg(&lib).arg(&src).args(flags));
    assert!(st.success(), "{cc}: {name} as a shared library");
    let loader = compile("dlopen_main", dir, &["-ldl"]);
    (loader, vec![lib.display().to_string(), format!("{name}_main")])
}

/// The Python interpreter itself (`python3` may be a launcher script, as
/// pyenv's is, that would start a dozen instrumented processes first).
pub fn python() -> PathBuf {
    let out = output(Command::new("python3").args(["-c", "import sys; print(sys.executable)"]));
    assert!(out.status.success(), "python3");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// `cmd` with the runtime preloaded for a non-MPI program, its logs and
/// crash-safe files in `dir`.
pub fn instrumented(exe: &Path, dir: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env("LD_PRELOAD", lib())
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", dir.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    c
}

/// `c` may make up to 20,000 POSIX records (a configuration file in `d`
/// and 32 MiB of record memory): past the default 1,024, enough for a
/// megabyte of records, which the shutdown compresses on helper threads.
#[allow(dead_code)]
pub fn room_for_many_records<'a>(c: &'a mut Command, d: &Path) -> &'a mut Command {
    let cfg = d.join("many-records.cfg");
    std::fs::write(&cfg, "MAX_RECORDS 20000 POSIX\n").unwrap();
    c.env("DARSHAN_CONFIG_PATH", cfg).env("DARSHAN_MODMEM", "32")
}

#[allow(unused_imports)]
pub use darshan_test_support::{output, output_within, status, wait, wait_within, LIMIT};

/// The one log in `dir`/logs (there must be exactly one).
pub fn only_log(dir: &Path) -> PathBuf {
    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "one log: {logs:?}");
    logs[0].clone()
}

/// Files in `dir`, sorted (none if it does not exist).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    v.sort();
    v
}

/// The lines a started program prints.
pub type Lines = std::io::Lines<std::io::BufReader<std::process::ChildStdout>>;

/// Start `cmd` with its stdin, stdout and stderr piped and a watchdog on
/// it, and wait for the "ready" line it prints once set up (the test
/// programs that are talked to: fill_records, crash_io ...).
pub fn start_ready(cmd: &mut Command) -> (std::process::Child, Lines) {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn_watched();
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = lines.next().and_then(Result::ok);
    assert_eq!(first.as_deref(), Some("ready"), "the program did not get ready");
    (child, lines)
}

/// h5py's own libhdf5 (`.venv/.../h5py.libs/libhdf5-<hash>.so.*`).
pub fn h5py_libhdf5() -> Option<std::path::PathBuf> {
    let lib = root().join(".venv/lib");
    let py = std::fs::read_dir(&lib)
        .ok()?
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))?;
    let libs = py.path().join("site-packages/h5py.libs");
    std::fs::read_dir(libs).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| {
        let n = p.file_name().unwrap().to_string_lossy();
        n.starts_with("libhdf5-") && n.contains(".so")
    })
}

/// tests/programs/<name>.c built against Debian's serial HDF5 1.10
/// (`wheel` false) or h5py's bundled HDF5 2.0 (with 1.10's headers: the
/// functions the programs use are the same; run them with
/// HDF5_DISABLE_VERSION_CHECK=2). Named `<name>` or `<name>-2.0`.
pub fn compile_hdf5(name: &str, dir: &Path, wheel: bool) -> PathBuf {
    let (libdir, link) = if wheel {
        let lib = h5py_libhdf5().expect("h5py's bundled libhdf5 in .venv (scripts/setup.sh)");
        let file = lib.file_name().unwrap().to_str().unwrap().to_string();
        (lib.parent().unwrap().to_str().unwrap().to_string(), format!("-l:{file}"))
    } else {
        ("/usr/lib/x86_64-linux-gnu/hdf5/serial".to_string(), "-lhdf5".to_string())
    };
    let out = dir.join(format!("{name}{}", if wheel { "-2.0" } else { "" }));
    let rpath = format!("-Wl,-rpath,{libdir}");
    let built = compile(name, dir, &["-I/usr/include/hdf5/serial", "-L", &libdir, &link, &rpath, "-lpthread"]);
    std::fs::rename(built, &out).unwrap();
    out
}

/// A log region made of zlib streams one after another (one per rank in
/// an MPI job's), decompressed: (bytes, streams).
pub fn inflate_region(mut b: &[u8]) -> (Vec<u8>, usize) {
    use std::io::Read;
    let (mut out, mut n) = (Vec::new(), 0);
    while !b.is_empty() {
        let mut z = flate2::bufread::ZlibDecoder::new(b);
        z.read_to_end(&mut out).unwrap();
        b = &b[z.total_in() as usize..];
        n += 1;
    }
    (out, n)
}

/// Defined dynamic symbols of a shared object (version suffixes removed).
pub fn dynamic_symbols(path: &Path) -> std::collections::BTreeSet<String> {
    let out = output(Command::new("nm").args(["-D", "--defined-only"]).arg(path));
    assert!(out.status.success(), "nm {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect()
}

/// Unmounts a test file system even when the test fails.
pub struct Mount(std::path::PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = status(Command::new("umount").arg("-l").arg(&self.0));
    }
}

pub fn mount_tmpfs(dir: &std::path::Path, size: &str) -> Option<Mount> {
    std::fs::create_dir_all(dir).unwrap();
    let st = status(Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir));
    match st {
        s if s.success() => Some(Mount(dir.to_path_buf())),
        // Only root can mount; CI runs as root, where this must work.
        _ if effective_uid() != 0 => None,
        _ => panic!("mount -t tmpfs failed as root"),
    }
}

pub fn effective_uid() -> u32 {
    let out = output(Command::new("id").arg("-u"));
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(1)
}

/// A log directory that exists and is writable when a run starts but
/// cannot take the log at its end: a full 4 KiB tmpfs. The run records,
/// its log cannot be written, and its crash-safe files stay (a missing
/// directory is refused at start-up instead). None where this user
/// cannot mount.
pub fn full_log_dir(dir: &Path) -> Option<Mount> {
    let m = mount_tmpfs(dir, "4k")?;
    // Fill it: the first page goes to this file.
    let _ = std::fs::write(dir.join("filler"), vec![0u8; 1 << 20]);
    Some(m)
}

/// The program's files in the log at `path`: how many, and the bytes
/// written to them in all.
pub fn files_and_bytes(path: &Path, data: &Path) -> (usize, i64) {
    let log = mpi::read(path);
    let data = format!("{}/", data.display());
    let mine: Vec<_> =
        log.recs.iter().filter(|(m, n, _)| *m == darshan_log::modules::POSIX && n.starts_with(&data)).collect();
    (mine.len(), mine.iter().map(|(_, _, r)| r.counters[darshan_log::counters::posix::BYTES_WRITTEN]).sum())
}

/// darshan-merge's log of the crash-safe files in `mmap`.
pub fn recovered(d: &Path) -> PathBuf {
    let out = d.join("recovered.darshan");
    let o = output(Command::new(built("darshan-merge")).arg("--output").arg(&out).args(files(&d.join("mmap"))));
    assert!(o.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&o.stderr));
    out
}
