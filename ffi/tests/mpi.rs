//! MPI jobs under the library, each test on real Open MPI (`mpirun
//! --allow-run-as-root --oversubscribe -np 4`) and on real MPICH
//! (`mpirun.mpich -np 4`), C programs compiled with mpicc at test time,
//! logs read back with our reader and checked against the programs' own
//! known access patterns (tests/programs/mpi_mix.c). The logs stay under
//! target/preload-tests for the PyDarshan check.

mod common;

use common::mpi::*;

on_both_mpis!(
    a_log_dir_missing_at_start_is_said_once_and_leaves_nothing,
    a_bad_setting_is_said_once_per_job,
    a_missing_log_dir_leaves_crash_safe_files_that_merge_into_the_jobs_log,
    a_four_rank_job_writes_one_log_with_shared_records_reduced,
    mpi_init_thread_starts_the_runtime_too,
    mod_disable_mpiio_leaves_posix_and_stdio,
    disable_shared_reduction_keeps_one_record_per_rank,
    an_excluded_rank_records_nothing_but_takes_part_in_the_shutdown,
    log_hints_are_kept_in_the_job_record_and_the_log_still_written,
    a_log_too_large_to_gather_is_written_through_mpi_io_with_the_same_records,
    group_readable_logs_and_the_sites_user_name_reach_an_mpi_jobs_log_either_way_it_is_written,
    enable_nonmpi_in_an_mpi_job_still_gives_one_job_log,
    lost_calls_of_every_rank_are_counted_in_the_job_log,
    a_non_mpi_program_does_not_load_libmpi,
    a_step_of_the_shutdown_failing_on_one_rank_neither_hangs_the_job_nor_loses_its_records,
    mpi_init_failed_when_libmpi_was_loaded_by_a_dlopened_library,
    large_count_mpi_io_is_counted_as_the_plain_calls_are,
    mpi4py_failed_to_start_under_the_library,
    an_mpi_ranks_first_io_opened_the_crash_safe_file_again,
    a_vfork_child_whose_exec_failed_cost_the_job_its_log,
    one_ranks_unused_stdout_left_the_stdout_of_the_others_unshared,
    internal_timing_printed_lines_c_does_not,
);

/// DARSHAN_INTERNAL_TIMING printed `darshan: init` and `darshan: shutdown`
/// lines of our own; C prints, from rank 0, a `#darshan:<op>` block at
/// MPI_Init and one at MPI_Finalize, an op per line with the job's
/// process count and the slowest rank's seconds. The ops are C 3.5.0's
/// (its Open MPI and MPICH builds) for mpi_mix at 4 ranks; ours follow
/// C's block as more ops of its form, and POSIX_META (not C's) has its
/// own among the modules'.
fn internal_timing_printed_lines_c_does_not(mpi: Mpi) {
    let d = scratch_mpi(mpi, "timing_as_c");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let (logs, err) = mpirun_said(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_INTERNAL_TIMING", "1")]);
    assert_eq!(logs.len(), 1);
    let ops: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("darshan:") && !l.starts_with("darshan:POSIX_META_"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let c = [
        "#darshan:<op>",
        "darshan:init",
        "#darshan:<op>",
        "darshan:log_open",
        "darshan:job_write",
        "darshan:hash_write",
        "darshan:header_write",
        "darshan:POSIX_shutdown",
        "darshan:MPI-IO_shutdown",
        "darshan:STDIO_shutdown",
        "darshan:HEATMAP_shutdown",
        "darshan:core_shutdown",
    ];
    assert_eq!(&ops[..c.len().min(ops.len())], &c[..], "{err}");
    let nprocs = NP.to_string();
    assert!(err.lines().filter(|l| l.starts_with("darshan:")).all(|l| l.split('\t').nth(1) == Some(&nprocs)), "{err}");
    assert!(ops.contains(&"darshan:reduce"), "{err}");
}

/// A rank that shelled out with vfork and exec, the exec failing and its
/// child leaving with `_exit(127)`: the child, sharing the rank's memory,
/// took the runtime's `_exit` for the rank's own end without
/// MPI_Finalize, said so ("this process ended without MPI_Finalize") and
/// switched the rank's MPI shutdown off: the job had no log. A process
/// other than the one whose records these are now leaves them alone, as
/// a serial program's vfork child already did. Every rank's files are in
/// the job's one log.
fn a_vfork_child_whose_exec_failed_cost_the_job_its_log(mpi: Mpi) {
    let d = scratch_mpi(mpi, "vfork-exec");
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let exe = mpicc(mpi, "mpi_vfork_exec", &d);
    let (logs, said) = mpirun_said(mpi, &exe, &[data.to_str().unwrap(), "5"], &d, &[]);
    assert!(!said.contains("darshan"), "{said}");
    let log = the_log(&logs);
    for r in 0..NP {
        let mine = format!("{}/", data.join(format!("rank{r}")).display());
        let files: Vec<_> = log.recs.iter().filter(|(m, n, _)| *m == POSIX && n.starts_with(&mine)).collect();
        assert_eq!(files.len(), 10, "rank {r}");
        assert!(files.iter().all(|(_, _, rec)| c(rec, px::BYTES_WRITTEN) == 6), "rank {r}");
    }
}

/// Regression: an MPI rank makes its crash-safe file in MPI_Init, but its
/// first POSIX record opened the file a second time to give the POSIX
/// area its first storage (open, dup, 64 KiB of zeros, close: about
/// 0.1 ms of the rank's first I/O on ext4, where C's first I/O pays
/// nothing of its own). POSIX's and MPI-IO's areas now get it with the
/// file. strace (each rank's own trace, the library given to the traced
/// program only) sees one open of each rank's crash-safe file, and the
/// job's log has every rank's write.
fn an_mpi_ranks_first_io_opened_the_crash_safe_file_again(mpi: Mpi) {
    let d = common::scratch(&format!("mpi-first-io-{}", mpi.tag()));
    let exe = mpicc_with(mpi, "first_io_threaded", &d, &["-DUSE_MPI"]);
    let (mmap, trace) = (d.join("mmap"), d.join("trace"));
    let env = [
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", mmap.display().to_string()),
    ];
    let mut cmd = mpi.launcher(&env);
    cmd.args(["strace", "-f", "-qq", "-e", "trace=openat", "-ff", "-o"]).arg(&trace);
    cmd.arg("-E").arg(format!("LD_PRELOAD={}", common::lib().display())).arg(&exe).arg(d.join("data/f"));
    let out = darshan_test_support::output(&mut cmd);
    assert!(out.status.success(), "{mpi:?}: {}", String::from_utf8_lossy(&out.stderr));
    let mut opens = Vec::new();
    for e in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
        if e.file_name().unwrap().to_string_lossy().starts_with("trace.") {
            let text = std::fs::read_to_string(&e).unwrap();
            let n = text.lines().filter(|l| l.contains(&*mmap.to_string_lossy())).count();
            if n > 0 {
                opens.push(n);
            }
        }
    }
    assert_eq!(opens, vec![1; NP as usize], "{mpi:?}: opens of each rank's crash-safe file");
    let log = the_log(&common::files(&d.join("logs")));
    for r in 0..NP {
        let rec = log.one(darshan_log::modules::POSIX, &d.join(format!("data/f.{r}")));
        assert_eq!((rec.rank, c(rec, px::WRITES), c(rec, px::BYTES_WRITTEN)), (r, 1, 4096), "{mpi:?}");
    }
}

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_log::counters::{mpiio as mx, posix as px};
use darshan_log::modules::{HEATMAP, MPIIO, POSIX};

fn a_four_rank_job_writes_one_log_with_shared_records_reduced(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mix");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[]));
    check_mpi_mix(&log, &data);
    // The name region: one zlib stream per rank; the names of shared
    // records only in rank 0's, names of a subset's file in each of its.
    let bytes = std::fs::read(&logs_of(&d)[0]).unwrap();
    let m = log.file.header.name_map;
    let (names, streams) = common::inflate_region(&bytes[m.off as usize..(m.off + m.len) as usize]);
    assert_eq!(streams, NP as usize);
    let count =
        |n: &str| names.windows(n.len() + 1).filter(|w| w[..n.len()] == *n.as_bytes() && w[n.len()] == 0).count();
    assert_eq!(count(data.join("posix_shared.dat").to_str().unwrap()), 1);
    assert_eq!(count(data.join("subset.dat").to_str().unwrap()), 2);
    assert_eq!(count(data.join("fpp.3").to_str().unwrap()), 1);
    // Regression (log_bigger_than_cs): names registered for records never
    // written (the standard streams', an unused heatmap's) were in every
    // rank's stream, and each run of records between two shared ones was
    // a zlib stream of its own; at 32 ranks the log was 10% larger than
    // C's. Now: every name is the name of a record in the log, and each
    // module region is one stream per rank that has records in it (C's
    // layout): every rank has its own POSIX file.
    let in_log: std::collections::HashSet<&str> = log.recs.iter().map(|(_, n, _)| n.as_str()).collect();
    let mut entries = Vec::new();
    let mut rest = &names[..];
    while rest.len() > 8 {
        let end = 8 + rest[8..].iter().position(|&b| b == 0).unwrap();
        entries.push(String::from_utf8_lossy(&rest[8..end]).into_owned());
        rest = &rest[end + 1..];
    }
    for n in &entries {
        assert!(in_log.contains(n.as_str()), "name {n:?} in the name table has no record in the log");
    }
    assert_eq!(count("<STDIN>"), 0, "mpi_mix reads no standard input");
    let posix = log.file.header.mod_map[POSIX];
    let (_, posix_streams) = common::inflate_region(&bytes[posix.off as usize..(posix.off + posix.len) as usize]);
    assert_eq!(posix_streams, NP as usize, "one POSIX stream per rank");
}

/// Regression (found by scripts/differential, kind mpiposix): ranks 0, 1
/// and 3 print a line, rank 2 writes a file through fopen. C Darshan 3.5.0
/// makes the three standard streams' records when a rank's STDIO module is
/// set up (its first STDIO call), and the ranks agree on the records they
/// share before the unused standard streams are dropped: its log has one
/// `<STDOUT>` record of rank -1, OPENS 4, WRITES 3, FLUSHES 3, 21 bytes
/// (C's logs of tests/programs/std_streams_shared.c, Open MPI, 4 ranks). We
/// made a standard stream's record at its first use, so rank 2 had none
/// and each writer kept its own. When rank 2 makes no STDIO call at all,
/// C has three records of rank 0, 1 and 3, each OPENS 1 and 7 bytes. With
/// DARSHAN_DISABLE_SHARED_REDUCTION and rank 0 the quiet one, C has the
/// records of ranks 1, 2 and 3, named (the first fix, agreeing with rank
/// 0's unused `<STDOUT>`, left them without a name).
fn one_ranks_unused_stdout_left_the_stdout_of_the_others_unshared(mpi: Mpi) {
    use darshan_log::counters::stdio as sx;
    use darshan_log::modules::STDIO;
    let own = |r| (r, 1, 1, 1, 7);
    let cases = [
        ("touch", "2", "", vec![(-1, 4, 3, 3, 21)]),
        ("none", "2", "", vec![own(0), own(1), own(3)]),
        ("touch", "0", "1", vec![own(1), own(2), own(3)]),
    ];
    for (mode, quiet, no_reduction, c_darshan) in cases {
        let d = scratch_mpi(mpi, &format!("std-{mode}-{quiet}"));
        let exe = mpicc(mpi, "std_streams_shared", &d);
        let data = d.join("data");
        std::fs::create_dir_all(&data).unwrap();
        let env: &[(&str, &str)] =
            if no_reduction.is_empty() { &[] } else { &[("DARSHAN_DISABLE_SHARED_REDUCTION", "1")] };
        let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap(), mode, quiet], &d, env));
        let ours: Vec<_> = log
            .all(STDIO, Path::new("<STDOUT>"))
            .iter()
            .map(|r| (r.rank, c(r, sx::OPENS), c(r, sx::WRITES), c(r, sx::FLUSHES), c(r, sx::BYTES_WRITTEN)))
            .collect();
        let case = format!("{mpi:?} {mode}, quiet rank {quiet}, no reduction {no_reduction:?}");
        assert_eq!(ours, c_darshan, "{case}: (rank, opens, writes, flushes, bytes) of <STDOUT>");
        for unused in ["<STDIN>", "<STDERR>"] {
            assert!(log.all(STDIO, Path::new(unused)).is_empty(), "{case}: {unused} is used by no rank");
        }
    }
}

fn logs_of(d: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(d.join("logs")).unwrap().map(|e| e.unwrap().path()).collect()
}

fn mpi_init_thread_starts_the_runtime_too(mpi: Mpi) {
    let d = scratch_mpi(mpi, "thread");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap(), "thread"], &d, &[]));
    check_mpi_mix(&log, &data);
}

fn mod_disable_mpiio_leaves_posix_and_stdio(mpi: Mpi) {
    let d = scratch_mpi(mpi, "nompiio");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_MOD_DISABLE", "MPI-IO")]));
    assert!(!log.file.modules_present().contains(&MPIIO));
    assert_eq!(log.one(POSIX, &data.join("posix_shared.dat")).rank, -1);
    assert_eq!(c(log.one(POSIX, &data.join("shared.dat")), px::BYTES_WRITTEN), 2000 * NP);
    assert_eq!(log.file.job.nprocs, NP);
}

fn disable_shared_reduction_keeps_one_record_per_rank(mpi: Mpi) {
    let d = scratch_mpi(mpi, "noredux");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_DISABLE_SHARED_REDUCTION", "1")]));
    let recs = log.all(POSIX, &data.join("posix_shared.dat"));
    assert_eq!(recs.iter().map(|r| r.rank).collect::<Vec<_>>(), (0..NP).collect::<Vec<_>>());
    assert!(recs.iter().all(|r| c(r, px::BYTES_WRITTEN) == 4096 && c(r, px::FASTEST_RANK) == 0));
    let m = log.all(MPIIO, &data.join("shared.dat"));
    assert_eq!(
        m.iter().map(|r| (r.rank, c(r, mx::COLL_WRITES))).collect::<Vec<_>>(),
        (0..NP).map(|r| (r, 2)).collect::<Vec<_>>()
    );
}

fn a_non_mpi_program_does_not_load_libmpi(mpi: Mpi) {
    let d = scratch_mpi(mpi, "maps");
    let exe = d.join("maps_check");
    let src = common::root().join("tests/programs/maps_check.c");
    assert!(darshan_test_support::status(Command::new("cc").arg("-O2").arg("-o").arg(&exe).arg(&src)).success());
    let out = darshan_test_support::output(
        Command::new(&exe)
            .arg(d.join("data/out.txt"))
            .env("LD_PRELOAD", common::lib())
            .env("DARSHAN_ENABLE_NONMPI", "1")
            .env("DARSHAN_LOGPATH", d.join("logs")),
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0", "libmpi mapped into a non-MPI program");
    let logs: Vec<_> = std::fs::read_dir(d.join("logs")).unwrap().collect();
    assert_eq!(logs.len(), 1, "the non-MPI program is still recorded");
    // The same check fails for a program that does link MPI (the test can fail).
    let mexe = d.join("maps_check_mpi");
    // (--no-as-needed: the program calls no MPI function, yet links libmpi.)
    assert!(darshan_test_support::status(
        Command::new(mpi.cc()).args(["-Wl,--no-as-needed", "-o"]).arg(&mexe).arg(&src)
    )
    .success());
    let out = darshan_test_support::output(Command::new(&mexe).arg(d.join("data/out2.txt")));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}

fn an_excluded_rank_records_nothing_but_takes_part_in_the_shutdown(mpi: Mpi) {
    let d = scratch_mpi(mpi, "rankexcl");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_RANK_EXCLUDE", "1")]));
    assert_eq!(log.file.job.nprocs, NP);
    // Rank 1 has no records, so nothing is shared by every rank any more.
    let p = log.all(POSIX, &data.join("posix_shared.dat"));
    assert_eq!(p.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![0, 2, 3]);
    assert!(log.recs.iter().all(|(_, _, r)| r.rank != 1 && r.rank != -1));
    assert!(log.all(MPIIO, &data.join("fpp.1")).is_empty());
}

fn log_hints_are_kept_in_the_job_record_and_the_log_still_written(mpi: Mpi) {
    let d = scratch_mpi(mpi, "hints");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let hints = "cb_nodes=2;romio_cb_write=enable";
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_LOGHINTS", hints)]));
    let meta = String::from_utf8_lossy(&log.file.job.metadata).into_owned();
    assert!(meta.contains(&format!("h={hints}\n")), "{meta}");
    check_mpi_mix(&log, &data);
}

/// A small log (most are) is gathered onto rank 0 and written there: the
/// collective MPI-IO open and close were most of the shutdown's cost. A
/// larger one is written through MPI-IO, each rank its own pieces
/// (DARSHAN_LOG_GATHER_MAX=0 sends every log that way): the same records.
fn a_log_too_large_to_gather_is_written_through_mpi_io_with_the_same_records(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpiio-write");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_LOG_GATHER_MAX", "0")]));
    check_mpi_mix(&log, &data);
}

/// A site's GROUP_READABLE_LOGS and USERNAME_ENV (C's
/// `--enable-group-readable-logs`, `--with-username-env`; given here in a
/// config file, as install.sh writes them into the library): rank 0
/// publishes the job's log 0440 and names it after the variable's user
/// (its first 8 bytes, as C's `cuserid` buffer keeps), whether the log
/// was gathered onto rank 0 or written through MPI-IO.
fn group_readable_logs_and_the_sites_user_name_reach_an_mpi_jobs_log_either_way_it_is_written(mpi: Mpi) {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch_mpi(mpi, "group-readable");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let cfg = d.join("site.conf");
    std::fs::write(&cfg, "GROUP_READABLE_LOGS\nUSERNAME_ENV SITE_USER\n").unwrap();
    for gather_max in ["16", "0"] {
        let data = d.join(format!("data-{gather_max}"));
        std::fs::create_dir_all(&data).unwrap();
        let env = [
            ("DARSHAN_CONFIG_PATH", cfg.to_str().unwrap()),
            ("DARSHAN_LOG_GATHER_MAX", gather_max),
            ("SITE_USER", "jdoe-at-site"),
            ("LOGNAME", "batchlogin"),
        ];
        let logs = mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &env);
        let log = the_log(&logs);
        check_mpi_mix(&log, &data);
        let mode = std::fs::metadata(&logs[0]).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o440, "DARSHAN_LOG_GATHER_MAX={gather_max}: {}", logs[0].display());
        let name = logs[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("jdoe-at-_mpi_mix"), "DARSHAN_LOG_GATHER_MAX={gather_max}: {name}");
        std::fs::remove_file(&logs[0]).unwrap();
    }
}

fn enable_nonmpi_in_an_mpi_job_still_gives_one_job_log(mpi: Mpi) {
    // Facilities set DARSHAN_ENABLE_NONMPI for every job: an MPI program
    // then records from its constructor on and still writes one log.
    let d = scratch_mpi(mpi, "nonmpi");
    let exe = mpicc(mpi, "mpi_mix", &d);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_ENABLE_NONMPI", "1")]));
    check_mpi_mix(&log, &data);
    let heat: Vec<i64> = log.recs.iter().filter(|(m, _, _)| *m == HEATMAP).map(|x| x.2.rank).collect();
    assert!((0..NP).all(|r| heat.contains(&r)), "heatmaps carry each rank: {heat:?}");
}

/// A bad setting printed one identical line per rank (N lines at N
/// ranks): rank 0 alone says it now.
fn a_bad_setting_is_said_once_per_job(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-bad-setting");
    let exe = mpicc(mpi, "mpi_mix", &d);
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let mut cmd = mpi.launcher(&[
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
        ("DARSHAN_MODMEM", "lots".to_string()),
    ]);
    let out = darshan_test_support::output(cmd.arg(&exe).arg(d.join("data")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("bad value 'lots' for DARSHAN_MODMEM")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert_eq!(common::files(&d.join("logs")).len(), 1, "the job still logs with the default");
}

/// A log directory missing at start-up: one line (rank 0's), at once; no
/// crash-safe file anywhere; the job runs as without the library. Ranks
/// once each left a crash-safe file in DARSHAN_MMAP_LOGPATH (/tmp by
/// default), and said nothing until the end.
fn a_log_dir_missing_at_start_is_said_once_and_leaves_nothing(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-missing-logdir");
    std::fs::create_dir_all(d.join("mmap")).unwrap();
    let exe = mpicc(mpi, "mpi_mix", &d);
    let missing = d.join("no/such/dir");
    let mut cmd = mpi.launcher(&[
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", missing.display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ]);
    let out = darshan_test_support::output(cmd.arg(&exe).arg(d.join("data")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("darshan:")).collect();
    assert_eq!(ours.len(), 1, "one line for the job: {err}");
    assert!(ours[0].contains(&format!("the log directory {} does not exist", missing.display())), "{}", ours[0]);
    assert!(ours[0].contains("not instrumented"), "{}", ours[0]);
    assert!(std::fs::read_dir(d.join("mmap")).unwrap().next().is_none(), "no crash-safe file");
}

/// An MPI job whose log directory does not exist printed the error once
/// per rank and left a crash-safe file per rank with no word of how to
/// recover them. Now one line for the job says where they are and the
/// command that merges them, which gives the job's log.
///
/// The merged log is mpi_mix's known pattern: the shutdown's reduction,
/// done before the log could not be created, once marked each rank's
/// shared records rank -1 in the crash-safe files, and the merge then
/// held them four times (PyDarshan saw 153 values differ on MPICH).
///
/// Now a missing directory is refused at start-up, so the directory here
/// is a full file system: Open MPI's MPI-IO reported no error for its
/// failed writes, and the job left an empty log under its final name and
/// removed every crash-safe file. Rank 0 now checks the log's size.
fn a_missing_log_dir_leaves_crash_safe_files_that_merge_into_the_jobs_log(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-nologdir");
    std::fs::create_dir_all(d.join("mmap")).unwrap();
    let exe = mpicc(mpi, "mpi_mix", &d);
    // A directory missing at start-up is refused at once (below); one that
    // cannot take the log at the end (full) leaves the crash-safe files.
    let Some(_full) = common::full_log_dir(&d.join("full")) else {
        eprintln!("SKIPPED: a full log directory needs a tmpfs mount (root)");
        return;
    };
    let mut cmd = mpi.launcher(&[
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("full").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
        ("DARSHAN_JOBID", "MYJOB".to_string()),
        ("MYJOB", "777".to_string()),
    ]);
    let out = darshan_test_support::output(cmd.arg(&exe).arg(d.join("data")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("darshan:")).collect();
    assert_eq!(ours.len(), 1, "{err}");
    let in_full: Vec<_> = std::fs::read_dir(d.join("full")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(in_full, vec![std::ffi::OsString::from("filler")], "no log, empty or partial, in the full directory");
    let mmap = d.join("mmap");
    let advice = format!("darshan-merge --shared-redux --dir {} --jobid 777", mmap.display());
    assert!(ours[0].contains(&advice), "{}", ours[0]);
    let left: Vec<PathBuf> = std::fs::read_dir(&mmap).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(left.len() as i64, NP, "{left:?}");
    merge_and_check_mpi_mix(&mmap, "777", &d.join("logs/recovered.darshan"), &d.join("data"));
}

/// The shutdown's local steps are each followed by an agreement among
/// the ranks: a step that fails on one rank (a panic injected into rank
/// 1's work, between two collective calls) makes every rank stop after it
/// together. Without the agreement, rank 1 left the sequence early (first
/// seen in its compression) and the other ranks waited in the next
/// collective until the job was killed. For every step of the shutdown in
/// turn: the job ends (within the time limit), rank 0 says once that the
/// log was not written and how to merge the crash-safe files, which are
/// all there and merge into mpi_mix's known log.
fn a_step_of_the_shutdown_failing_on_one_rank_neither_hangs_the_job_nor_loses_its_records(mpi: Mpi) {
    for (k, step) in darshan_core::shutdown_mpi::STEPS.into_iter().enumerate() {
        one_step_failing_on_one_rank(mpi, step, 778 + k);
    }
}

fn one_step_failing_on_one_rank(mpi: Mpi, step: &str, jobid: usize) {
    let d = scratch_mpi(mpi, &format!("mpi-step-fails-{step}"));
    std::fs::create_dir_all(d.join("mmap")).unwrap();
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let exe = mpicc(mpi, "mpi_mix", &d);
    let mut cmd = mpi.launcher(&[
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
        ("DARSHAN_JOBID", "MYJOB".to_string()),
        ("MYJOB", jobid.to_string()),
        ("DARSHAN_RS_TEST_FAIL", format!("{step}@1")),
        // The injected panic's message (rank 1) is on stderr too.
        ("RUST_BACKTRACE", "0".to_string()),
    ]);
    let out = darshan_test_support::output_within(cmd.arg(&exe).arg(d.join("data")), darshan_test_support::LIMIT);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The launcher forwards the ranks' stderr in chunks: rank 1's panic
    // message can land in the middle of rank 0's line's, so our line is
    // found wherever it starts.
    let ours: Vec<&str> = err.lines().filter_map(|l| l.find("darshan: ").map(|at| &l[at..])).collect();
    assert_eq!(ours.len(), 1, "one line for the job: {err}");
    assert!(ours[0].contains(&format!("{step} step failed")), "{}", ours[0]);
    let mmap = d.join("mmap");
    assert!(
        ours[0].contains(&format!("darshan-merge --shared-redux --dir {} --jobid {jobid}", mmap.display())),
        "{}",
        ours[0]
    );
    assert!(common::files(&d.join("logs")).is_empty(), "no log, whole or partial");
    let left: Vec<PathBuf> = std::fs::read_dir(&mmap).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(left.len() as i64, NP, "{left:?}");
    merge_and_check_mpi_mix(&mmap, &jobid.to_string(), &d.join("recovered.darshan"), &d.join("data"));
}

/// The crash-safe files of job `jobid` in `mmap`, merged as the line the
/// job printed says, give mpi_mix's known log.
fn merge_and_check_mpi_mix(mmap: &Path, jobid: &str, merged: &Path, data: &Path) {
    let m = darshan_test_support::output(
        Command::new(common::built("darshan-merge"))
            .args(["--shared-redux", "--dir"])
            .arg(mmap)
            .args(["--jobid", jobid, "--output"])
            .arg(merged),
    );
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    check_mpi_mix_as(&read(merged), data, MixLog::Merged);
}

/// A scratch directory of this file's tests (`mpi-<tag>-<mpi>`).
fn scratch_mpi(mpi: Mpi, tag: &str) -> PathBuf {
    common::scratch(&format!("mpi-{tag}-{}", mpi.tag()))
}

/// Calls a signal handler makes while the runtime records another pass
/// through unrecorded and are counted as `lost_calls=` in the job
/// metadata: in an MPI job, every rank's (only rank 0's were counted).
fn lost_calls_of_every_rank_are_counted_in_the_job_log(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-signals");
    let exe = mpicc_with(mpi, "signals", &d, &["-DUSE_MPI"]);
    let data = d.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap(), "100000"], &d, &[]));
    let lost: i64 = log
        .file
        .job
        .metadata_pairs()
        .iter()
        .find(|(k, _)| *k == b"lost_calls")
        .map(|(_, v)| String::from_utf8_lossy(v).parse().unwrap())
        .unwrap_or(0);
    let (mut made, mut recorded) = (0i64, 0i64);
    for rank in 0..NP {
        let h: i64 = std::fs::read_to_string(data.join(format!("handled.{rank}"))).unwrap().trim().parse().unwrap();
        assert!(h > 0, "rank {rank}: the handler ran");
        made += h;
        let rec = log.one(POSIX, &data.join(format!("handler.{rank}")));
        assert_eq!(rec.rank, rank);
        recorded += c(rec, px::WRITES);
        assert_eq!(c(log.one(POSIX, &data.join(format!("main.{rank}"))), px::WRITES), 100_000);
    }
    assert_eq!(recorded + lost, made, "handler writes recorded {recorded} + lost {lost} != made {made}");
}

/// An MPI library the runtime does not know (its own
/// MPI_Get_library_version, no Open MPI globals): one line from the rank
/// the launcher calls 0 (none from the others), every MPI call's return
/// value and output unchanged, no log, and the program runs to its end.
#[test]
fn an_unknown_mpi_gets_one_line_and_its_calls_pass_through_unchanged() {
    let d = common::scratch("mpi-unknown");
    let lib = d.join("libunknownmpi.so");
    let programs = common::root().join("tests/programs");
    assert!(darshan_test_support::status(
        Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&lib).arg(programs.join("unknown_mpi_lib.c"))
    )
    .success());
    let exe = d.join("unknown_mpi");
    assert!(darshan_test_support::status(
        Command::new("cc")
            .arg("-o")
            .arg(&exe)
            .arg(programs.join("unknown_mpi.c"))
            .arg(format!("-L{}", d.display()))
            .arg(format!("-Wl,-rpath,{}", d.display()))
            .arg("-lunknownmpi")
    )
    .success());
    let plain = darshan_test_support::output(&mut Command::new(&exe));
    let expected = "init 0 open 7 fh 4242 finalize 0\n";
    assert_eq!(String::from_utf8_lossy(&plain.stdout), expected);
    for (rank, lines) in [(None, 1), (Some("0"), 1), (Some("1"), 0)] {
        let mut cmd = Command::new(&exe);
        cmd.env("LD_PRELOAD", common::lib()).env("DARSHAN_LOGPATH", d.join("logs")).env_remove("PMI_RANK");
        for k in ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID", "ALPS_APP_PE"] {
            cmd.env_remove(k);
        }
        if let Some(r) = rank {
            cmd.env("PMI_RANK", r);
        }
        let out = darshan_test_support::output(&mut cmd);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "PMI_RANK={rank:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let ours: Vec<&str> = err.lines().filter(|l| l.contains("unsupported MPI library")).collect();
        assert_eq!(ours.len(), lines, "PMI_RANK={rank:?}: {err}");
    }
    assert!(common::files(&d.join("logs")).is_empty());
}

/// MPI-4 large-count MPI-IO: the 28 `MPI_File_*_c` calls were not
/// wrapped, and the log said MPIIO_BYTES_WRITTEN 0 for them. Each is
/// called once (tests/programs/mpiio_large_count.c) and the MPI-IO record
/// must equal the one of the same program through the int forms (our
/// plain wrappers, checked against C elsewhere), counter by counter, with
/// 14 writes and 14 reads of 1,000 bytes on each of 4 ranks, and the file
/// the same size. MPICH 4 has the calls; Open MPI 4 has none, and the
/// program reaches ours through weak declarations, as mpi4py does
/// (regression: they failed with MPI_ERR_OTHER, and mpi4py's
/// `File.Write_at_all` raised): the plain calls serve them.
fn large_count_mpi_io_is_counted_as_the_plain_calls_are(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-large-count");
    let exe = mpicc(mpi, "mpiio_large_count", &d);
    let mut recs = Vec::new();
    let mut sizes = Vec::new();
    for (k, how) in ["large", "plain"].iter().enumerate() {
        let data = d.join(format!("data-{how}"));
        std::fs::create_dir_all(&data).unwrap();
        let mut args = vec![data.to_str().unwrap().to_string()];
        if *how == "plain" {
            args.push("plain".into());
        }
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let logs = mpirun(mpi, &exe, &a, &d, &[]);
        assert_eq!(logs.len(), k + 1, "one more log");
        let newest = logs.iter().max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap()).unwrap();
        let log = read(newest);
        recs.push(log.one(darshan_log::modules::MPIIO, &data.join("lc.dat")).clone());
        sizes.push(std::fs::metadata(data.join("lc.dat")).unwrap().len());
    }
    let (large, plain) = (&recs[0], &recs[1]);
    assert_eq!(sizes[0], sizes[1], "the file the large-count calls wrote against the int calls'");
    use darshan_log::counters::mpiio as mx;
    assert_eq!(large.counters[mx::BYTES_WRITTEN], 14 * 1000 * NP, "bytes written through the _c calls");
    assert_eq!(large.counters[mx::BYTES_READ], 14 * 1000 * NP);
    let names = darshan_log::modules::counter_names(darshan_log::modules::MPIIO).0;
    for (i, n) in names.iter().enumerate() {
        if n.contains("RANK") {
            continue; // the fastest and slowest rank are the clock's choice
        }
        assert_eq!(large.counters[i], plain.counters[i], "{n}: large-count run against the int-count run");
    }
}

/// A count past INT_MAX through a large-count call on Open MPI 4, which
/// has none: MPI_ERR_ARG, what mpi4py's own fallback answers (its count
/// cast fails) when the library has no such call, and nothing written.
/// Regression: MPI_ERR_OTHER.
#[test]
fn a_large_count_past_int_max_gets_mpi_err_arg_from_a_library_without_large_counts() {
    let d = scratch_mpi(OpenMpi, "mpi-too-large");
    let exe = mpicc(OpenMpi, "mpiio_large_count", &d);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let logs = d.join("logs");
    let env = [
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", logs.display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ];
    let out = darshan_test_support::output(OpenMpi.launcher(&env).arg(&exe).arg(&data).arg("toolarge"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}: {stdout} {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), "error class MPI_ERR_ARG");
    assert_eq!(std::fs::metadata(data.join("lc.dat")).unwrap().len(), 0, "nothing written");
}

/// Regression (mpi4py's writes took 107 us each instead of 1.3 on Open
/// MPI 4): the large-count call's real function, which that library does
/// not have, was looked for in every loaded object again at every call.
/// The loader's own trace (LD_DEBUG=symbols) counts the look-ups of
/// PMPI_File_write_at_c: as many for 40 calls as for 1.
#[test]
fn a_large_count_call_the_library_lacks_was_looked_up_again_at_every_call() {
    let d = scratch_mpi(OpenMpi, "mpi-lookups");
    let exe = mpicc(OpenMpi, "mpiio_large_count", &d);
    let lookups = |times: &str| {
        let data = d.join(format!("data-{times}"));
        let trace = d.join(format!("trace-{times}"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(&trace).unwrap();
        let env = [("LD_DEBUG", "symbols"), ("LD_DEBUG_OUTPUT", &*trace.join("ld").display().to_string())];
        mpirun(OpenMpi, &exe, &[data.to_str().unwrap(), "repeat", times], &d, &env);
        let text: String = common::files(&trace).iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        text.matches("symbol=PMPI_File_write_at_c;").count()
    };
    let (once, forty) = (lookups("1"), lookups("40"));
    assert!(once > 0, "the loader's trace shows the look-ups");
    assert_eq!(forty, once, "look-ups for 40 calls against 1");
}

/// Regression (`from mpi4py import MPI` raised "MPI_Init_thread() failed"
/// under the library): a library that a program dlopens RTLD_LOCAL, as
/// Python imports mpi4py's extension module, brings libmpi in outside the
/// global scope. Its MPI calls reach our exported wrappers, which looked
/// for the real PMPI functions only in the global scope and failed
/// MPI_Init. mpi_mix, built as such a library, must run and give the log
/// of its known pattern, as when it is the program.
fn mpi_init_failed_when_libmpi_was_loaded_by_a_dlopened_library(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi-local");
    let (loader, mut args) = common::compile_loaded_locally("mpi_mix", mpi.cc(), &d, &[]);
    let data = d.join("data");
    args.push(data.display().to_string());
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let log = the_log(&mpirun(mpi, &loader, &a, &d, &[]));
    check_mpi_mix(&log, &data);
}

/// mpi4py itself (its wheel, built for both MPI families, loads libmpi
/// RTLD_LOCAL and asks for the large-count calls through weak symbols):
/// importing it, a collective write and a read back of a file on 4 ranks,
/// under the library. Regression: the import raised "MPI_Init_thread()
/// failed", then `Write_at_all` MPI_ERR_OTHER. The log's MPI-IO record
/// holds the known pattern; the data is read back.
fn mpi4py_failed_to_start_under_the_library(mpi: Mpi) {
    let d = scratch_mpi(mpi, "mpi4py");
    let python = common::root().join(".venv/bin/python");
    assert!(python.exists(), "the venv (scripts/setup.sh)");
    let script = common::root().join("tests/programs/mpi4py_io.py");
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let env = mpi4py_env(mpi, &d);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let logs = mpirun(mpi, &python, &[script.to_str().unwrap(), data.to_str().unwrap()], &d, &env);
    let log = the_log(&logs);
    let r = log.one(MPIIO, &data.join("m4p.dat"));
    let want = [(mx::COLL_OPENS, NP), (mx::COLL_WRITES, NP), (mx::COLL_READS, NP)];
    for (k, v) in want {
        assert_eq!(c(r, k), v, "MPIIO counter {k}");
    }
    assert_eq!((c(r, mx::BYTES_WRITTEN), c(r, mx::BYTES_READ)), (4096 * NP, 4096 * NP));
    assert_eq!(std::fs::metadata(data.join("m4p.dat")).unwrap().len(), 4096 * NP as u64);
}

/// What makes mpi4py's wheel use `mpi`. Open MPI is its default here
/// (Debian's `libmpi.so` is Open MPI's). The wheel's MPICH variant links
/// `libmpi.so.12`, MPICH's own name for its library, which Debian renames
/// `libmpich.so.12`: a directory in `dir` gives it that name, as an MPICH
/// installed from source has it.
fn mpi4py_env(mpi: Mpi, dir: &Path) -> Vec<(&'static str, String)> {
    match mpi {
        OpenMpi => vec![],
        Mpich => {
            let libs = dir.join("mpich-libmpi");
            std::fs::create_dir_all(&libs).unwrap();
            let real = Path::new("/usr/lib/x86_64-linux-gnu/libmpich.so.12");
            assert!(real.exists(), "Debian's MPICH (scripts/setup.sh)");
            let _ = std::fs::remove_file(libs.join("libmpi.so.12"));
            std::os::unix::fs::symlink(real, libs.join("libmpi.so.12")).unwrap();
            vec![("MPI4PY_MPIABI", "mpich".into()), ("LD_LIBRARY_PATH", libs.display().to_string())]
        }
    }
}
