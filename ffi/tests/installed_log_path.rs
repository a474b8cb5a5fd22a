//! A site's log tree given at install (`scripts/install.sh BUILD PREFIX
//! --log-path DIR`), as C Darshan's `configure --with-log-path=DIR`: the
//! installed library, shared or static, writes every log to DIR/YYYY/M/D/
//! with nothing in the job's environment; a config file's LOGPATH and
//! DARSHAN_LOGPATH override it, in C's order; darshan-config and C
//! Darshan's own script names (bin/darshan-mk-log-dirs.pl,
//! share/darshan-mmap-epilog.sh) take it. Every program runs with a time
//! limit.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{compile, files, output, scratch, start_ready};

/// A tree installed with `--log-path <dir>/site-logs`, in `dir`.
fn install_with_log_path(dir: &Path) -> (PathBuf, PathBuf) {
    let prefix = dir.join("prefix");
    let tree = dir.join("site-logs");
    std::fs::create_dir_all(&tree).unwrap();
    let build = common::built("darshan-config").parent().unwrap().to_path_buf();
    let out = output(
        Command::new(common::root().join("scripts/install.sh")).arg(&build).arg(&prefix).arg("--log-path").arg(&tree),
    );
    assert!(out.status.success(), "install.sh: {}", String::from_utf8_lossy(&out.stderr));
    (prefix, tree)
}

/// A command with nothing of Darshan's in its environment but what a
/// non-MPI process needs to be recorded (crash-safe files in `dir`).
fn bare(exe: &Path, dir: &Path) -> Command {
    let mut c = Command::new(exe);
    for k in ["DARSHAN_LOGPATH", "DARSHAN_LOGFILE", "DARSHAN_CONFIG_PATH", "LD_PRELOAD"] {
        c.env_remove(k);
    }
    c.env("DARSHAN_ENABLE_NONMPI", "1").env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    c
}

/// YYYY/M/D of today, as `date` prints it.
fn today() -> String {
    let o = output(Command::new("date").arg("+%Y/%-m/%-d"));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// api_mix, run as `cmd` says, leaves one log in `day`, with its known
/// pattern; the log is taken away for the next run.
fn run_api_mix_into(cmd: &mut Command, data: &Path, day: &Path, how: &str) {
    std::fs::create_dir_all(data).unwrap();
    let out = output(cmd.arg(data));
    assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
    let logs = files(day);
    assert_eq!(logs.len(), 1, "{how}: one log in {}: {logs:?}", day.display());
    common::api_mix::check(&common::mpi::read(&logs[0]), data, how);
    std::fs::remove_file(&logs[0]).unwrap();
}

#[test]
fn a_log_path_given_at_install_is_where_every_process_writes_as_c_darshans_configured_one() {
    let d = scratch("installed-log-path");
    let (prefix, tree) = install_with_log_path(&d);
    let config = |arg: &str| output(Command::new(prefix.join("bin/darshan-config")).arg(arg));
    assert_eq!(String::from_utf8_lossy(&config("--log-path").stdout).trim(), tree.to_str().unwrap());
    let all = String::from_utf8_lossy(&config("--all").stdout).into_owned();
    assert!(all.contains(&format!("  --log-path        -> {}\n", tree.display())), "{all}");
    // C's name, without an argument: the installed tree's days, shared.
    let made = output(&mut bare(&prefix.join("bin/darshan-mk-log-dirs.pl"), &d));
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let day = tree.join(today());
    assert_eq!(std::fs::metadata(&day).unwrap().permissions().mode() & 0o7777, 0o1777);
    let src = common::root().join("tests/programs/api_mix.c");
    let dynamic = compile("api_mix", &d, &["-lrt"]);
    let lib = prefix.join("lib/libdarshan.so");
    run_api_mix_into(bare(&dynamic, &d).env("LD_PRELOAD", &lib), &d.join("data-preload"), &day, "LD_PRELOAD");
    let static_exe = d.join("api_mix_static");
    let flags = |opt: &str| -> Vec<String> {
        String::from_utf8_lossy(&config(opt).stdout).split_whitespace().map(String::from).collect()
    };
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
    run_api_mix_into(&mut bare(&static_exe, &d), &d.join("data-static"), &day, "-static");
    // C's order: a config file's LOGPATH over the installed one, then
    // DARSHAN_LOGPATH (a flat directory) over both.
    let other = d.join("other-tree");
    let other_day = other.join(today());
    std::fs::create_dir_all(&other_day).unwrap();
    let cfg = d.join("site.conf");
    std::fs::write(&cfg, format!("LOGPATH {}\n", other.display())).unwrap();
    let mut by_file = bare(&dynamic, &d);
    by_file.env("LD_PRELOAD", &lib).env("DARSHAN_CONFIG_PATH", &cfg);
    run_api_mix_into(&mut by_file, &d.join("data-file"), &other_day, "LOGPATH");
    let flat = d.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    let mut by_env = bare(&dynamic, &d);
    by_env.env("LD_PRELOAD", &lib).env("DARSHAN_CONFIG_PATH", &cfg).env("DARSHAN_LOGPATH", &flat);
    run_api_mix_into(&mut by_env, &d.join("data-env"), &flat, "DARSHAN_LOGPATH");
    assert!(files(&day).is_empty() && files(&other_day).is_empty());
}

/// A job's killed processes leave crash-safe files; the Slurm epilog line
/// sites have for C Darshan (`$PREFIX/share/darshan-mmap-epilog.sh`, with
/// only Slurm's SLURM_JOB_ID) turns them into logs in the installed tree.
#[test]
fn c_darshans_mmap_epilog_script_merges_a_killed_jobs_files_into_the_installed_tree() {
    let d = scratch("installed-log-path-epilog");
    let (prefix, tree) = install_with_log_path(&d);
    let exe = compile("fill_records", &d, &[]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut cmd = bare(&exe, &d);
    cmd.env("LD_PRELOAD", prefix.join("lib/libdarshan.so")).env("SLURM_JOB_ID", "5151").arg(&data).arg("1");
    let (mut child, _lines) = start_ready(&mut cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(files(&d.join("mmap")).len(), 1, "the killed process's crash-safe file");
    let mut epilog = Command::new(prefix.join("share/darshan-mmap-epilog.sh"));
    epilog
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("SLURM_JOB_ID", "5151")
        .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    let out = output(&mut epilog);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(files(&d.join("mmap")).is_empty(), "crash-safe files removed");
    let logs = files(&tree.join(today()));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert_eq!(log.job.jobid, 5151);
    let names = log.names().unwrap();
    let first = data.join("first");
    let posix = log.records(darshan_log::modules::POSIX).unwrap();
    assert!(posix.iter().any(|r| names.get(r.id) == Some(first.to_str().unwrap().as_bytes())), "its file's record");
}

/// The path is checked before anything is installed: a relative one (which
/// every process would take from its own working directory) is refused
/// in one line.
#[test]
fn install_refuses_a_relative_log_path() {
    let d = scratch("installed-log-path-relative");
    let build = common::built("darshan-config").parent().unwrap().to_path_buf();
    let out = output(
        Command::new(common::root().join("scripts/install.sh"))
            .arg(&build)
            .arg(d.join("prefix"))
            .arg("--log-path=logs"),
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("absolute path expected") && !d.join("prefix").exists(), "{err}");
}
