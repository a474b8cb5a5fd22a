//! Programs under resource limits the runtime broke. Under a file size
//! limit (`ulimit -f`, RLIMIT_FSIZE) a write or `ftruncate` past it brings
//! the kernel's SIGXFSZ, and the crash-safe file (6.75 MB, sized at the
//! first record), its growth and the log at exit all went past limits the
//! program's own files kept to (C Darshan 3.5.0 kills it too, at its
//! crash-safe file). Under an address space limit (`ulimit -v`) a program
//! that used up its memory before exiting was aborted by the shutdown's
//! first failed allocation. A thread with the smallest stack a pthread
//! may have overflowed it at its first record. Each test is named after
//! the failure; the
//! oracle is the test program's known pattern (N new files, 6 bytes each)
//! and its own exit status.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::mpi::Mpi;
use common::*;

/// Run `cmd` with its soft limit of `resource` (RLIMIT_FSIZE: `ulimit -f`,
/// RLIMIT_AS: `ulimit -v`) at `bytes` from its start, as its shell would.
fn limited_from_the_start(cmd: &mut Command, resource: libc::__rlimit_resource_t, bytes: u64) -> std::process::Output {
    // SAFETY: between fork and exec only setrlimit runs, a system call
    // that is async-signal-safe; nothing is allocated or locked.
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit { rlim_cur: bytes, rlim_max: libc::RLIM_INFINITY };
            match libc::setrlimit(resource, &r) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    output(cmd)
}

/// The program ran to its end (exit 0, its own output) and the runtime
/// said one line, naming each of `words`.
fn ran_to_its_end(out: &std::process::Output, stdout: &str, words: &[&str]) {
    assert!(out.status.success(), "killed: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = err.lines().filter(|l| l.starts_with("darshan:")).collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(words.iter().all(|w| said[0].contains(w)), "{said:?}");
}

fn setup(tag: &str, program: &str) -> (PathBuf, PathBuf, PathBuf) {
    let d = scratch(tag);
    let data = d.join("data");
    for sub in [&data, &d.join("logs"), &d.join("mmap")] {
        std::fs::create_dir_all(sub).unwrap();
    }
    (compile(program, &d, &[]), d, data)
}

/// `ulimit -f 100` (100 KiB), far above the program's 6-byte files: the
/// runtime sized its crash-safe file to 6.75 MB and the program died of
/// SIGXFSZ at its first file. Now the records stay in memory, one line
/// says why, and the log (a few KB, under the limit) holds them all.
#[test]
fn a_file_size_limit_below_the_crash_safe_files_size_killed_the_program() {
    let (exe, d, data) = setup("fsize-start", "fsize_limit");
    let out = limited_from_the_start(instrumented(&exe, &d).arg(&data).arg("50"), libc::RLIMIT_FSIZE, 100 << 10);
    ran_to_its_end(&out, "done 50\n", &["ulimit -f", "records kept in memory"]);
    assert!(files(&d.join("mmap")).is_empty(), "no crash-safe file");
    assert_eq!(files_and_bytes(&only_log(&d), &data), (50, 300));
}

/// The program lowered its own limit to 4 KiB after the crash-safe file
/// was made, then made 1,000 files: the file's growth (zeros written
/// past the limit) killed it. Now the growth maps its pages instead, the
/// log (about 50 KB) is not written, one line says where the records
/// are, and darshan-merge recovers every one of them.
#[test]
fn a_file_size_limit_lowered_after_the_crash_safe_file_was_made_killed_the_program() {
    let (exe, d, data) = setup("fsize-lowered", "fsize_limit");
    let out = output(instrumented(&exe, &d).arg(&data).arg("1000").arg("4096"));
    ran_to_its_end(&out, "done 1000\n", &["ulimit -f", "darshan-merge"]);
    assert!(files(&d.join("logs")).is_empty(), "no log, whole or partial: {:?}", files(&d.join("logs")));
    assert_eq!(files_and_bytes(&recovered(&d), &data), (1000, 6000));
}

/// Each rank lowered its limit to 4 KiB after MPI_Init and its first
/// file: the shutdown's log write (gathered onto rank 0, or with MPI-IO
/// from every rank) killed the job. Now every rank leaves MPI_Finalize,
/// no log is left, and the crash-safe files hold every rank's records.
fn a_file_size_limit_below_an_mpi_jobs_log_killed_the_job(mpi: Mpi) {
    for gather_max in ["16", "0"] {
        let d = scratch(&format!("fsize-mpi-{gather_max}"));
        let data = d.join("data");
        std::fs::create_dir_all(&data).unwrap();
        let exe = common::mpi::mpicc_with(mpi, "fsize_limit", &d, &["-DUSE_MPI"]);
        let args = [data.to_str().unwrap(), "300", "4096"];
        let logs = common::mpi::mpirun(mpi, &exe, &args, &d, &[("DARSHAN_LOG_GATHER_MAX", gather_max)]);
        assert!(logs.is_empty(), "no log, whole or partial: {logs:?}");
        let (n, bytes) = files_and_bytes(&recovered(&d), &data);
        let np = common::mpi::NP as usize;
        assert_eq!(
            (n, bytes),
            (np * 300, np as i64 * 1800),
            "every rank's records, DARSHAN_LOG_GATHER_MAX={gather_max}"
        );
    }
}

on_both_mpis!(a_file_size_limit_below_an_mpi_jobs_log_killed_the_job);

/// Under `ulimit -v` (512 MiB here), the program took every byte of its
/// address space before it returned from main: the shutdown's first
/// allocation failed, and Rust's answer, `abort`, turned the program's
/// success into SIGABRT and a core dump. Now the shutdown asks for its
/// memory before taking any, says in one line (formatted on the stack)
/// that the log is not written and where the records are, and the
/// program exits 0; darshan-merge recovers all 50 files.
#[test]
fn an_address_space_used_up_before_exit_aborted_the_program_at_its_shutdown() {
    let (exe, d, data) = setup("as-used-up", "exhaust_memory");
    let out = limited_from_the_start(instrumented(&exe, &d).arg(&data).arg("50"), libc::RLIMIT_AS, 512 << 20);
    ran_to_its_end(&out, "done 50\n", &["not enough memory", "darshan-merge"]);
    assert!(files(&d.join("logs")).is_empty(), "no log, whole or partial");
    assert_eq!(files_and_bytes(&recovered(&d), &data), (50, 300));
}

/// `lock_memory`'s address space and locked memory in KiB (0 locked
/// when it may not lock: not root, a low `ulimit -l`), and how much of
/// its address space lay in mappings of `files` (the runtime's library,
/// its crash-safe file).
fn address_space_kib(out: &std::process::Output, files: &[&Path]) -> (u64, u64, u64) {
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let head: Vec<u64> = lines.next().unwrap().split(' ').filter_map(|w| w.parse().ok()).collect();
    let ours = lines
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, path)| files.iter().any(|f| Path::new(path).starts_with(f)))
        .map(|(kib, _)| kib.parse::<u64>().unwrap())
        .sum();
    (head[0], head[1], ours)
}

/// A program that locks its memory (`mlockall(MCL_CURRENT)`, as real-time
/// and some HPC codes do) made 16 MiB of the runtime's never-used address
/// space resident: a pool reserved at start-up for its tables (13 MiB of
/// it unused) and 3 MiB of HDF5 and of PnetCDF access tuples in a program
/// that used neither. 26 MB locked in all, against C Darshan 3.5.0's 6.4
/// MB; `ulimit -v`, `ulimit -l` and a strict overcommit policy count the
/// same bytes (the address space: what `mlockall` locks). Apart from its
/// library and its crash-safe file (its configured record and name
/// memory), the runtime may now add 3 MiB: its tables at the default
/// limits, 1.9 MiB (LUSTRE's index and io_uring's table of requests in
/// flight are taken at their first use).
#[test]
fn locking_all_memory_made_sixteen_mib_of_the_runtimes_unused_reservations_resident() {
    let (exe, d, data) = setup("lock-memory", "lock_memory");
    let (plain, plain_locked, _) = address_space_kib(&output(Command::new(&exe).arg(&data)), &[]);
    let lib = lib().canonicalize().unwrap();
    let out = output(instrumented(&exe, &d).arg(&data));
    let (size, locked, ours) = address_space_kib(&out, &[&lib, &d.join("mmap").canonicalize().unwrap()]);
    assert!(ours > 4 << 10, "the library and the crash-safe file are among the mappings: {ours} KiB");
    let rest = size.saturating_sub(plain).saturating_sub(ours);
    assert!(
        rest <= 3 << 10,
        "{rest} KiB beyond the library and the crash-safe file ({plain} KiB without the runtime, {size} with)"
    );
    if plain_locked > 0 {
        // Root (or a high `ulimit -l`): all of it was made resident, but
        // for what was mapped after the lock (the heap stdio's buffers
        // start).
        assert!(locked + 512 >= size, "locked {locked} of {size} KiB");
    }
}

/// A thread with PTHREAD_STACK_MIN (16 KiB, an Argobots ULT's default)
/// made the process's first records and died of SIGSEGV (C Darshan 3.5.0
/// runs it): every wrapper that may name a descriptor (ftruncate, fchmod,
/// mmap, fclose ...) carried a PATH_MAX buffer in its frame, taken on
/// every call, and the runtime's own `ftruncate` of its crash-safe file
/// passes through one, under the open that made the record (whose frame
/// held a PATH_MAX buffer too, for names longer than 512 bytes).
#[test]
fn a_thread_with_the_smallest_stack_overflowed_it_at_its_first_record() {
    let (exe, d, data) = setup("small-stack", "small_stack");
    kept_every_record(&output(instrumented(&exe, &d).arg(&data).arg("50")), &d, &data);
}

/// The small-stack program ran to its end ("ok 50") and its log holds its
/// 50 files: 49 short names and one of 600 bytes under data/, 6 bytes
/// each (named from the working directory: getcwd's answer, links
/// resolved).
fn kept_every_record(out: &std::process::Output, d: &Path, data: &Path) {
    assert!(out.status.success(), "killed: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok 50\n");
    assert_eq!(files_and_bytes(&only_log(d), &data.canonicalize().unwrap()), (50, 300));
}

/// The same thread, ending the process with `exit(0)` after its line:
/// the log's writing ran on its 16 KiB (the deflate's code lengths alone
/// take 9 KiB of frame) and the program died of SIGSEGV, its buffered
/// line lost (C Darshan 3.5.0 runs it). The start-up and the log's writing
/// now run on a stack the runtime maps for them.
#[test]
fn a_thread_with_the_smallest_stack_that_called_exit_died_writing_the_log() {
    let (exe, d, data) = setup("small-stack-exit", "small_stack");
    kept_every_record(&output(instrumented(&exe, &d).arg(&data).arg("50").arg("exit")), &d, &data);
}

/// A main thread under `ulimit -s 22` (KiB; the program alone needs less,
/// and loading any library with LD_PRELOAD about 20): the constructor's
/// start-up (the configuration's regular expressions) overflowed it and
/// the program died of SIGSEGV before `main` (C Darshan 3.5.0 runs it).
/// The environment is only what the test sets: its bytes are on the same
/// stack, and a runner's own would move the floor.
#[test]
fn a_main_thread_under_a_small_stack_limit_died_at_the_start_up() {
    let (exe, d, data) = setup("small-stack-main", "small_stack");
    let limit = 22 << 10;
    let plain = limited_from_the_start(
        Command::new(&exe).env_clear().arg(&data).arg("50").arg("main"),
        libc::RLIMIT_STACK,
        limit,
    );
    assert_eq!(String::from_utf8_lossy(&plain.stdout), "ok 50\n", "without the library: {plain:?}");
    for f in files(&data) {
        std::fs::remove_file(f).ok();
    }
    std::fs::remove_dir_all(data.join("d".repeat(200))).unwrap();
    let mut cmd = only_its_own_environment(instrumented(&exe, &d));
    let out = limited_from_the_start(cmd.arg(&data).arg("50").arg("main"), libc::RLIMIT_STACK, limit);
    kept_every_record(&out, &d, &data);
}

/// `cmd` with the variables it sets and no others.
fn only_its_own_environment(cmd: Command) -> Command {
    let mut bare = Command::new(cmd.get_program());
    bare.env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            bare.env(k, v);
        }
    }
    bare
}

/// A program that lowered its soft descriptor limit (the hard one above
/// it) and opened files until it had none left, keeping them to its end:
/// no log was written (no descriptor for it; the records left in the
/// crash-safe file) or, under a limit of 4, no record kept at all (no
/// descriptor for the crash-safe file either). The runtime now takes the
/// one descriptor it needs past the soft limit, for a moment; the program
/// opens exactly as many files as without it.
#[test]
fn a_program_that_used_every_descriptor_its_limit_allows_lost_its_log() {
    for limit in ["4", "16"] {
        let (exe, d, data) = setup(&format!("nofile-{limit}"), "nofile_limit");
        let plain = output(std::process::Command::new(&exe).arg(&data).arg(limit));
        assert!(plain.status.success(), "without the library: {plain:?}");
        let n: usize = String::from_utf8_lossy(&plain.stdout).trim().trim_start_matches("opened ").parse().unwrap();
        assert!(n > 0, "{plain:?}");
        for f in files(&data) {
            std::fs::remove_file(f).unwrap();
        }
        let out = output(instrumented(&exe, &d).arg(&data).arg(limit));
        assert!(out.status.success(), "killed: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("opened {n}\n"));
        assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(files(&d.join("mmap")).is_empty(), "crash-safe file left: {:?}", files(&d.join("mmap")));
        assert_eq!(files_and_bytes(&only_log(&d), &data), (n, 6 * n as i64));
    }
}
