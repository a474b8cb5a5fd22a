//! A site's settings given at install (`scripts/install.sh BUILD PREFIX
//! --log-path DIR --jobid-env VAR ...`), as C Darshan's configure options
//! compile them in: the installed library, shared or static, writes every
//! log to DIR/YYYY/M/D/ with nothing in the job's environment and takes
//! the job id from VAR; a config file and the environment override them,
//! in C's order; darshan-config answers them; C Darshan's own script names
//! (bin/darshan-mk-log-dirs.pl, share/darshan-mmap-epilog.sh) take the
//! log tree; with `--enable-group-readable-logs` and
//! `--with-username-env VAR` (C's spellings) every log, the epilogs'
//! too, is 0440 and named after VAR's user. Every program runs with a
//! time limit.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{compile, files, output, scratch, start_ready};

/// A tree installed in `dir` with the site's settings: the log tree
/// `<dir>/site-logs`, a flat directory from SITE_LOG_DIR, the job id from
/// SITE_JOB, the user's name from SITE_USER, logs readable by the group,
/// and a configuration file's line (no heat maps).
fn install_with_settings(dir: &Path) -> (PathBuf, PathBuf) {
    let prefix = dir.join("prefix");
    let tree = dir.join("site-logs");
    std::fs::create_dir_all(&tree).unwrap();
    let conf = dir.join("site.conf");
    std::fs::write(&conf, "# the site's\nMOD_DISABLE HEATMAP\n").unwrap();
    let build = common::built("darshan-config").parent().unwrap().to_path_buf();
    let out = output(
        Command::new(common::root().join("scripts/install.sh"))
            .arg(&build)
            .arg(&prefix)
            .arg("--log-path")
            .arg(&tree)
            .args(["--log-path-by-env", "SITE_LOG_DIR", "--jobid-env=SITE_JOB", "--mod-mem", "8"])
            .args(["--enable-group-readable-logs", "--with-username-env=SITE_USER", "--config"])
            .arg(&conf),
    );
    assert!(out.status.success(), "install.sh: {}", String::from_utf8_lossy(&out.stderr));
    (prefix, tree)
}

/// The site's name for the job's user (SITE_USER), and what C Darshan
/// names the logs after: its first 8 bytes (a `cuserid` buffer), not
/// LOGNAME. C 3.5.0 configured with `--enable-group-readable-logs
/// --with-username-env=SITE_USER`, run here with these two variables,
/// wrote `jdoe-at-_cat_id..._1.darshan`, mode 0440 (with SITE_USER empty:
/// `batchlog_cat_...`).
const SITE_USER: &str = "jdoe-at-site";
const LOG_USER: &str = "jdoe-at-";

/// A command with nothing of Darshan's in its environment but what a
/// non-MPI process needs to be recorded (crash-safe files in `dir`), and
/// a LOGNAME that is not the site's user name.
fn bare(exe: &Path, dir: &Path) -> Command {
    let mut c = Command::new(exe);
    for k in ["DARSHAN_LOGPATH", "DARSHAN_LOGFILE", "DARSHAN_CONFIG_PATH", "LD_PRELOAD", "SLURM_JOB_ID", "SITE_JOB"] {
        c.env_remove(k);
    }
    c.env("DARSHAN_ENABLE_NONMPI", "1").env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    c.env("SITE_USER", SITE_USER).env("LOGNAME", "batchlogin");
    c
}

/// A log as the installed settings make it: readable by its owner's
/// group (0440, as C's --enable-group-readable-logs chmods it) and named
/// after SITE_USER's user.
fn assert_as_installed(log: &Path, how: &str) {
    let mode = std::fs::metadata(log).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o440, "{how}: {} is {mode:o}", log.display());
    let name = log.file_name().unwrap().to_string_lossy();
    assert!(name.starts_with(&format!("{LOG_USER}_")), "{how}: {name} named after SITE_USER's first 8 bytes");
}

/// YYYY/M/D of today, as `date` prints it.
fn today() -> String {
    let o = output(Command::new("date").arg("+%Y/%-m/%-d"));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// api_mix, run as `cmd` says, leaves one log in `day`, with its known
/// pattern, the job id `jobid` and no heat map (the installed config
/// file's line); the log is taken away for the next run.
fn run_api_mix_into(cmd: &mut Command, data: &Path, day: &Path, jobid: i64, how: &str) {
    std::fs::create_dir_all(data).unwrap();
    let out = output(cmd.arg(data));
    assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
    let logs = files(day);
    assert_eq!(logs.len(), 1, "{how}: one log in {}: {logs:?}", day.display());
    assert_as_installed(&logs[0], how);
    common::api_mix::check(&common::mpi::read(&logs[0]), data, how);
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert_eq!(log.job.jobid, jobid, "{how}");
    assert!(!log.modules_present().contains(&darshan_log::modules::HEATMAP), "{how}: MOD_DISABLE HEATMAP");
    std::fs::remove_file(&logs[0]).unwrap();
}

#[test]
fn settings_given_at_install_are_every_processs_defaults_as_c_darshans_configured_ones() {
    let d = scratch("installed-config");
    let (prefix, tree) = install_with_settings(&d);
    let config = |arg: &str| output(Command::new(prefix.join("bin/darshan-config")).arg(arg));
    let answer = |arg: &str| String::from_utf8_lossy(&config(arg).stdout).trim().to_string();
    assert_eq!(answer("--log-path"), tree.to_str().unwrap());
    assert_eq!(
        [answer("--log-path-by-env"), answer("--jobid-env"), answer("--mod-mem")],
        ["SITE_LOG_DIR", "SITE_JOB", "8"]
    );
    assert_eq!([answer("--group-readable-logs"), answer("--username-env")], ["yes", "SITE_USER"]);
    let all = String::from_utf8_lossy(&config("--all").stdout).into_owned();
    assert!(all.contains(&format!("  --log-path        -> {}\n", tree.display())), "{all}");
    assert!(all.contains("  --group-readable-logs   -> yes\n"), "{all}");
    assert!(all.contains("  --username-env    -> SITE_USER\n"), "{all}");
    // C's name, without an argument: the installed tree's days, shared.
    let made = output(&mut bare(&prefix.join("bin/darshan-mk-log-dirs.pl"), &d));
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let day = tree.join(today());
    assert_eq!(std::fs::metadata(&day).unwrap().permissions().mode() & 0o7777, 0o1777);
    let src = common::root().join("tests/programs/api_mix.c");
    let dynamic = compile("api_mix", &d, &["-lrt"]);
    let lib = prefix.join("lib/libdarshan.so");
    let mut preloaded = bare(&dynamic, &d);
    preloaded.env("LD_PRELOAD", &lib).env("SITE_JOB", "4711");
    run_api_mix_into(&mut preloaded, &d.join("data-preload"), &day, 4711, "LD_PRELOAD");
    let static_exe = d.join("api_mix_static");
    let flags = |opt: &str| -> Vec<String> { answer(opt).split_whitespace().map(String::from).collect() };
    let built = output(
        Command::new("cc")
            .arg("-static")
            .args(flags("--pre-ld-flags"))
            .arg("-o")
            .arg(&static_exe)
            .arg(&src)
            .arg("-lrt")
            .args(flags("--post-ld-flags")),
    );
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    run_api_mix_into(bare(&static_exe, &d).env("SITE_JOB", "4712"), &d.join("data-static"), &day, 4712, "-static");
    overridden_in_c_darshans_order(&d, &dynamic, &lib);
    assert!(files(&day).is_empty());
}

/// A config file's LOGPATH over the installed one; the by-env variable
/// (SITE_LOG_DIR: a flat directory) over both; DARSHAN_LOGPATH, not one
/// of the by-env variables, the dated tree's root (C's
/// darshan-config.c).
fn overridden_in_c_darshans_order(d: &Path, exe: &Path, lib: &Path) {
    let run = |envs: &[(&str, &Path)], into: &Path, how: &str| {
        let mut cmd = bare(exe, d);
        cmd.env("LD_PRELOAD", lib).env("SITE_JOB", "7");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        run_api_mix_into(&mut cmd, &d.join(format!("data-{how}")), into, 7, how);
    };
    let other = d.join("other-tree");
    let other_day = other.join(today());
    std::fs::create_dir_all(&other_day).unwrap();
    let cfg = d.join("user.conf");
    std::fs::write(&cfg, format!("LOGPATH {}\n", other.display())).unwrap();
    run(&[("DARSHAN_CONFIG_PATH", &cfg)], &other_day, "LOGPATH");
    let flat = d.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    run(&[("DARSHAN_CONFIG_PATH", &cfg), ("SITE_LOG_DIR", &flat)], &flat, "SITE_LOG_DIR");
    let dated = d.join("dated-by-env");
    let dated_day = dated.join(today());
    std::fs::create_dir_all(&dated_day).unwrap();
    run(&[("DARSHAN_CONFIG_PATH", &cfg), ("DARSHAN_LOGPATH", &dated)], &dated_day, "DARSHAN_LOGPATH");
}

/// An epilog as Slurm runs it: nothing of the job's environment but its
/// id (and the node's crash-safe files in `dir`).
fn epilog(script: &Path, jobid: &str, dir: &Path) -> Command {
    let mut cmd = Command::new(script);
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("SLURM_JOB_ID", jobid)
        .env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    cmd
}

/// A job's killed processes leave crash-safe files; the Slurm epilog line
/// sites have for C Darshan (`$PREFIX/share/darshan-mmap-epilog.sh`, with
/// only Slurm's SLURM_JOB_ID) turns them into logs in the installed tree.
#[test]
fn c_darshans_mmap_epilog_script_merges_a_killed_jobs_files_into_the_installed_tree() {
    let d = scratch("installed-config-epilog");
    let (prefix, tree) = install_with_settings(&d);
    let exe = compile("fill_records", &d, &[]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut cmd = bare(&exe, &d);
    cmd.env("LD_PRELOAD", prefix.join("lib/libdarshan.so"))
        .env("SLURM_JOB_ID", "5151")
        .env("SITE_JOB", "5151")
        .arg(&data)
        .arg("1");
    let (mut child, _lines) = start_ready(&mut cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(files(&d.join("mmap")).len(), 1, "the killed process's crash-safe file");
    let out = output(&mut epilog(&prefix.join("share/darshan-mmap-epilog.sh"), "5151", &d));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(files(&d.join("mmap")).is_empty(), "crash-safe files removed");
    let logs = files(&tree.join(today()));
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_as_installed(&logs[0], "darshan-mmap-epilog.sh");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert_eq!(log.job.jobid, 5151);
    let names = log.names().unwrap();
    let first = data.join("first");
    let posix = log.records(darshan_log::modules::POSIX).unwrap();
    assert!(posix.iter().any(|r| names.get(r.id) == Some(first.to_str().unwrap().as_bytes())), "its file's record");
}

/// A job without MPI (two Slurm tasks) leaves a log per task in the
/// installed tree; the job epilog, given only the job's id, makes them
/// one job log there.
#[test]
fn the_job_epilog_merges_a_jobs_task_logs_in_the_installed_tree() {
    let d = scratch("installed-config-job-epilog");
    let (prefix, tree) = install_with_settings(&d);
    let day = tree.join(today());
    std::fs::create_dir_all(&day).unwrap();
    let exe = compile("job_tasks", &d, &[]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    for rank in 0..2 {
        let mut task = bare(&exe, &d);
        task.env("LD_PRELOAD", prefix.join("lib/libdarshan.so")).env("SITE_JOB", "5252").env("SLURM_JOB_ID", "5252");
        task.env("SLURM_PROCID", rank.to_string()).env("SLURM_NTASKS", "2").env("SLURM_STEP_ID", "0");
        let out = output(task.arg(&data).arg("-1"));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(files(&day).len(), 2, "a log per task");
    let out = output(&mut epilog(&prefix.join("bin/darshan-job-epilog"), "5252", &d));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&day);
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_as_installed(&logs[0], "darshan-job-epilog");
    assert_eq!(darshan_log::LogFile::open(&logs[0]).unwrap().job.nprocs, 2);
}

/// The settings are checked before anything is installed, each in one
/// line: a relative log path (which every process would take from its own
/// working directory), and a line the runtime would have said was wrong
/// in every process of the site.
#[test]
fn install_refuses_settings_every_process_would_get_wrong() {
    let d = scratch("installed-config-refused");
    let build = common::built("darshan-config").parent().unwrap().to_path_buf();
    let bad = d.join("bad.conf");
    std::fs::write(&bad, "MODMEM 4\nBOGUS 1\n").unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["--log-path=logs"], "--log-path logs: an absolute path expected"),
        (&["--config", bad.to_str().unwrap()], "installed config line 2: unknown keyword 'BOGUS'"),
        (&["--jobid-env", "A B"], "--jobid-env A B: a variable name expected"),
    ];
    for (args, said) in cases {
        let out = output(
            Command::new(common::root().join("scripts/install.sh")).arg(&build).arg(d.join("prefix")).args(args),
        );
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(said) && !d.join("prefix").exists(), "{args:?}: {err}");
    }
}
