//! Privileged use (docs/robustness.md "Privileged use"): the tools a
//! centre runs as root — the epilogs, darshan-merge, darshan-ingest,
//! darshan-parser, darshan-summary, darshan-study, darshan-convert —
//! against files an unprivileged user (nobody, uid 65534, through
//! setpriv) planted in 1777 directories; and
//! a set-user-ID program under a site-wide preload. Each case is refused
//! or skipped with one line, nothing outside the output directory
//! changes, and no tool runs past its time limit.
//!
//! These tests need root (as `just test` runs in CI); elsewhere they say
//! so and pass nothing off as checked.

mod common;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::*;

const NOBODY: u32 = 65534;
/// No tool may take longer than this on a planted file.
const TOOL_LIMIT: Duration = Duration::from_secs(60);

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

macro_rules! need_root {
    () => {
        if !is_root() {
            eprintln!("not root: the privileged-use tests are not run");
            return;
        }
    };
}

/// Runs `script` as nobody (what an unprivileged user can do).
fn as_nobody(script: &str) {
    let o =
        output(Command::new("setpriv").args(["--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script]));
    assert!(o.status.success(), "as nobody: {script}: {}", String::from_utf8_lossy(&o.stderr));
}

/// A directory anyone may create files in (1777, as darshan-mk-log-dirs
/// and /tmp are).
fn sticky(d: &Path) -> PathBuf {
    std::fs::create_dir_all(d).unwrap();
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o1777)).unwrap();
    d.to_path_buf()
}

/// A root-owned file with its content and mode: what must not change.
struct Victim {
    path: PathBuf,
    bytes: Vec<u8>,
    mode: u32,
}

impl Victim {
    fn new(path: PathBuf, mode: u32) -> Victim {
        let bytes = format!("root's own file {}\n", path.display()).into_bytes();
        std::fs::write(&path, &bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        Victim { path, bytes, mode }
    }

    fn unchanged(&self) {
        let m = std::fs::metadata(&self.path).unwrap();
        // Not assert_eq: a report written into it would fill the screen.
        assert!(std::fs::read(&self.path).unwrap() == self.bytes, "{} was written", self.path.display());
        assert_eq!(m.permissions().mode() & 0o7777, self.mode, "{}'s mode changed", self.path.display());
    }
}

fn run(cmd: &mut Command) -> (Output, String) {
    let o = output_within(cmd, TOOL_LIMIT);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, err)
}

/// Two tasks of Slurm job `job` (job_tasks.c), their logs in `logs`.
fn two_tasks(d: &Path, logs: &Path, job: &str) {
    let exe = compile("job_tasks", d, &[]);
    for r in 0..2 {
        let mut c = instrumented(&exe, d);
        c.arg(d.join("data")).env("DARSHAN_LOGPATH", logs);
        c.env("SLURM_PROCID", r.to_string())
            .env("SLURM_NTASKS", "2")
            .env("SLURM_JOB_ID", job)
            .env("SLURM_STEP_ID", "0");
        assert!(output(&mut c).status.success());
    }
}

/// `err` names `p` on exactly one line, and that line says `why`.
fn said_once(err: &str, p: &Path, why: &str) {
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(&*p.to_string_lossy())).collect();
    assert!(lines.len() == 1 && lines[0].contains(why), "{} {why}: {err}", p.display());
}

fn job_log_name(logs: &Path, job: &str) -> PathBuf {
    let first = files(logs).into_iter().find(|p| p.to_string_lossy().contains(&format!("_id{job}-"))).unwrap();
    let n = first.file_name().unwrap().to_string_lossy().into_owned();
    let stem = &n[..n.find(&format!("_id{job}")).unwrap()];
    logs.join(format!("{stem}_id{job}_slurm-{job}.0_job.darshan"))
}

#[test]
fn the_job_epilog_never_writes_or_chmods_through_a_link_planted_at_its_output() {
    need_root!();
    let d = scratch("priv-job-link");
    let logs = sticky(&d.join("logs"));
    two_tasks(&d, &logs, "6101");
    let target = job_log_name(&logs, "6101");
    let secret = Victim::new(d.join("shadow-like"), 0o600);
    let program = Victim::new(d.join("program"), 0o755);
    // The job log's name links to root's 0600 file; the name the merge's
    // temporary file once had links to a 0755 one.
    let partial = target.with_extension("darshan_partial_merge");
    as_nobody(&format!(
        "ln -s '{}' '{}' && ln -s '{}' '{}'",
        secret.path.display(),
        target.display(),
        program.path.display(),
        partial.display()
    ));
    let (o, err) = run(Command::new(root().join("scripts/darshan-job-epilog"))
        .arg("6101")
        .arg(&logs)
        .env("DARSHAN_MERGE", built("darshan-merge")));
    assert!(!o.status.success(), "the epilog must fail when its output's name is taken: {err}");
    assert!(err.contains("already exists; not replaced"), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("not replaced")).count(), 1, "one line: {err}");
    secret.unchanged();
    program.unchanged();
    assert!(std::fs::symlink_metadata(&target).unwrap().file_type().is_symlink(), "the planted link is left as it was");
    assert_eq!(
        files(&logs).iter().filter(|p| p.to_string_lossy().contains("_id6101-")).count(),
        2,
        "inputs kept when nothing was merged"
    );
    // Once the name is free, the job log is made new, read-only, root's.
    as_nobody(&format!("rm '{}'", target.display()));
    let (o, err) = run(Command::new(root().join("scripts/darshan-job-epilog"))
        .arg("6101")
        .arg(&logs)
        .env("DARSHAN_MERGE", built("darshan-merge")));
    assert!(o.status.success(), "{err}");
    let m = std::fs::symlink_metadata(&target).unwrap();
    assert!(m.file_type().is_file() && m.permissions().mode() & 0o777 == 0o400 && m.uid() == 0, "{m:?}");
    secret.unchanged();
    program.unchanged();
    assert!(
        !files(&logs).iter().any(|p| p.to_string_lossy().contains(".tmp")),
        "no temporary file left: {:?}",
        files(&logs)
    );
}

#[test]
fn the_mmap_epilog_never_writes_through_a_link_planted_at_its_output() {
    need_root!();
    let d = scratch("priv-mmap-link");
    let mmap = sticky(&d.join("mmap"));
    let out = sticky(&d.join("out"));
    let exe = compile("crash_io", &d, &[]);
    let mut c = instrumented(&exe, &d);
    c.arg(d.join("data/a.dat"))
        .arg(d.join("data/b.txt"))
        .env("DARSHAN_MMAP_LOGPATH", &mmap)
        .env("SLURM_JOB_ID", "6102");
    let (mut child, _) = start_ready(&mut c);
    child.kill().unwrap();
    child.wait().unwrap();
    let left = files(&mmap);
    assert_eq!(left.len(), 1, "the killed process's crash-safe file: {left:?}");
    let base = left[0].file_name().unwrap().to_string_lossy().into_owned();
    let (head, tail) = base.split_once("_mmap-log-").unwrap();
    let hash = tail.rsplit_once('-').unwrap().0;
    let name = out.join(format!("{head}_{hash}-recovered.darshan"));
    let secret = Victim::new(d.join("shadow-like"), 0o600);
    as_nobody(&format!("ln -s '{}' '{}'", secret.path.display(), name.display()));
    let epilog = || {
        let mut c = Command::new(root().join("scripts/darshan-mmap-epilog"));
        c.arg("6102").arg(&out).env("DARSHAN_MMAP_LOGPATH", &mmap).env("DARSHAN_MERGE", built("darshan-merge"));
        run(&mut c)
    };
    let (o, err) = epilog();
    assert!(!o.status.success() && err.contains("already exists; not replaced"), "{err}");
    secret.unchanged();
    assert_eq!(files(&mmap), left, "the crash-safe file stays while its log is not made");
    as_nobody(&format!("rm '{}'", name.display()));
    let (o, err) = epilog();
    assert!(o.status.success(), "{err}");
    assert_eq!(std::fs::symlink_metadata(&name).unwrap().permissions().mode() & 0o777, 0o400);
    secret.unchanged();
}

/// A command of `tool` that writes its output to `to`: a report of
/// `log`, a conversion of it, or a calibration from `obs`.
fn writing_to(tool: &str, to: &Path, log: &Path, obs: &Path) -> Command {
    let mut c = Command::new(built(tool));
    match tool {
        "darshan-summary" => c.arg("-o").arg(to).arg(log),
        "darshan-convert" => c.arg(log).arg(to),
        _ => c.arg("calibrate").arg(obs).arg("-o").arg(to),
    };
    c
}

/// darshan-summary, darshan-study and darshan-convert wrote their outputs
/// with `fs::write` and `File::create`: as root, through a link another
/// user planted at the output's name, into the file it named. Now the
/// link is replaced by a new file of root's, a rerun replaces the last
/// output, a FIFO planted at the name is refused without waiting, and
/// root's own `/dev/null` is written through as before.
#[test]
fn a_report_study_or_converted_log_went_through_a_link_planted_at_its_name() {
    need_root!();
    let d = scratch("priv-replace");
    let out = sticky(&d.join("out"));
    let log = root()
        .join("../shared/corpus/logs/stdio_no_posix__laytonjb_test1_id28730_6-7-43012-2131301613401632697_1.darshan");
    let obs = d.join("obs.csv");
    std::fs::write(
        &obs,
        "op,size,count,seconds\nread,4096,100,0.01\nread,1048576,10,0.2\nwrite,4096,100,0.02\nwrite,1048576,10,0.3\n",
    )
    .unwrap();
    let secret = Victim::new(d.join("shadow-like"), 0o600);
    for tool in ["darshan-summary", "darshan-convert", "darshan-study"] {
        let (name, fifo) = (out.join(format!("{tool}.out")), out.join(format!("{tool}.fifo")));
        as_nobody(&format!("ln -s '{}' '{}' && mkfifo '{}'", secret.path.display(), name.display(), fifo.display()));
        for round in ["over the planted link", "over its last output"] {
            let (o, err) = run(&mut writing_to(tool, &name, &log, &obs));
            assert!(o.status.success(), "{tool} {round}: {err}");
            secret.unchanged();
            let m = std::fs::symlink_metadata(&name).unwrap();
            assert!(m.file_type().is_file() && m.uid() == 0 && m.len() > 0, "{tool} {round}: {m:?}");
        }
        if tool == "darshan-convert" {
            // C's darshan_log_create: creat(name, 0400).
            assert_eq!(std::fs::metadata(&name).unwrap().permissions().mode() & 0o777, 0o400);
        }
        let (o, err) = run(&mut writing_to(tool, &fifo, &log, &obs));
        assert!(!o.status.success(), "{tool} into nobody's FIFO: {err}");
        said_once(&err, &fifo, "another user's: not written");
        let (o, err) = run(&mut writing_to(tool, Path::new("/dev/null"), &log, &obs));
        let convert_seeks = tool == "darshan-convert";
        assert!(o.status.success() || convert_seeks, "{tool} into /dev/null: {err}");
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "{tool} replaced /dev/null");
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 6, "no temporary file left");
}

/// darshan-merge (`--job`, `--dir --jobid`) and the mmap epilog over
/// `logs` and `mmap`, where nobody planted two FIFOs and a link to
/// /dev/zero (`planted`): one line each, and the real logs merged.
fn merges_go_past(d: &Path, [logs, mmap]: [&Path; 2], planted: [&Path; 3]) {
    let merge = built("darshan-merge");
    let [fifo_log, fifo_mmap, zero] = planted;

    // darshan-merge --job over the directories.
    let (o, err) =
        run(Command::new(&merge).arg("--job").arg("--output").arg(d.join("job.darshan")).arg(logs).arg(mmap));
    assert!(o.status.success(), "{err}");
    for p in [fifo_log, fifo_mmap] {
        said_once(&err, p, "not a regular file");
    }
    said_once(&err, zero, "a symbolic link owned by another user");
    assert!(err.contains("2 logs, nprocs 2"), "{err}");

    // darshan-merge --dir --jobid and the mmap epilog (only the FIFO there).
    let (o, err) = run(Command::new(&merge)
        .args(["--dir"])
        .arg(mmap)
        .args(["--jobid", "6103", "--output"])
        .arg(d.join("m.darshan")));
    assert!(!o.status.success() && err.contains("not a regular file") && err.contains("no input log left"), "{err}");
    let (o, err) = run(Command::new(root().join("scripts/darshan-mmap-epilog"))
        .arg("6103")
        .arg(d.join("data"))
        .env("DARSHAN_MMAP_LOGPATH", mmap)
        .env("DARSHAN_MERGE", &merge));
    assert!(!o.status.success() && err.contains("not a regular file"), "{err}");
}

/// FIFOs named like logs and crash-safe files, and a `*.darshan` link to
/// /dev/zero: every tool goes on past them with one line each.
#[test]
fn fifos_and_devices_named_like_logs_never_stop_a_tool() {
    need_root!();
    let d = scratch("priv-fifo");
    let logs = sticky(&d.join("logs"));
    let mmap = sticky(&d.join("mmap"));
    two_tasks(&d, &logs, "6103");
    let fifo_log = logs.join("nobody_x_id6103-1-2.darshan");
    let fifo_mmap = mmap.join("nobody_x_id6103_mmap-log-1-0.darshan");
    let zero = logs.join("nobody_z_id6103-3-4.darshan");
    as_nobody(&format!(
        "mkfifo '{}' '{}' && ln -s /dev/zero '{}'",
        fifo_log.display(),
        fifo_mmap.display(),
        zero.display()
    ));
    let merge = built("darshan-merge");
    merges_go_past(&d, [&logs, &mmap], [&fifo_log, &fifo_mmap, &zero]);

    // The job epilog: the two tasks' job log, the FIFOs skipped.
    let (o, err) = run(Command::new(root().join("scripts/darshan-job-epilog"))
        .arg("6103")
        .arg(&logs)
        .env("DARSHAN_MMAP_LOGPATH", &mmap)
        .env("DARSHAN_MERGE", &merge));
    assert!(o.status.success(), "{err}");
    assert!(err.contains("skipped: not a regular file"), "{err}");
    assert!(
        std::fs::symlink_metadata(&fifo_log).unwrap().file_type().is_fifo(),
        "--remove-inputs removes only what was merged in"
    );

    // darshan-ingest over the tree, twice: the second is not locked out.
    let db = d.join("f.db");
    for _ in 0..2 {
        let (o, err) = run(Command::new(built("darshan-ingest")).arg("-q").arg(&logs).arg("--db").arg(&db));
        assert!(err.contains("not a regular file") && !err.contains("in use"), "{err}");
        assert!(o.status.code().is_some(), "{err}");
    }
    // The readers given one on the command line.
    for tool in ["darshan-parser", "darshan-summary"] {
        for p in [&fifo_log, &zero] {
            let (o, err) = run(Command::new(built(tool)).arg(p));
            assert!(!o.status.success(), "{tool} {}: {err}", p.display());
            assert_eq!(err.trim().lines().count(), 1, "{tool}: one line: {err}");
        }
    }
    // Gone, so that nothing reading the test tree later meets them.
    for p in [&fifo_log, &fifo_mmap, &zero] {
        let _ = std::fs::remove_file(p);
    }
}

/// A file removed when the test ends, however it ends.
struct RemovedOnDrop(PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// setuid_probe.c built in `d` twice: set-user-ID root, and plain. A
/// set-user-ID root program that writes where it is told must not outlive
/// the test (a local user could truncate any file with it): removed on
/// every way out, a failed assertion included.
fn setuid_probes(d: &Path) -> (PathBuf, PathBuf, RemovedOnDrop) {
    let exe = compile("setuid_probe", d, &[]);
    let plain = d.join("plain_probe");
    std::fs::copy(&exe, &plain).unwrap();
    let gone = RemovedOnDrop(exe.clone());
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o4755)).unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
    (exe, plain, gone)
}

/// `prog` run by nobody in a private mount namespace whose /etc is `etc`,
/// naming `secret` as its Darshan configuration, its logs and output in
/// `drop`.
fn run_as_nobody_with_etc(etc: &Path, secret: &Path, drop: &Path, prog: &Path) -> Output {
    let inner = format!(
        "mount --bind '{etc}' /etc && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
         env DARSHAN_CONFIG_PATH='{secret}' DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH='{drop}' \
         DARSHAN_MMAP_LOGPATH='{drop}' '{prog}' /etc/hostname '{drop}/out-{name}'",
        etc = etc.display(),
        secret = secret.display(),
        drop = drop.display(),
        prog = prog.display(),
        name = prog.file_name().unwrap().to_string_lossy()
    );
    output(Command::new("unshare").args(["-m", "sh", "-c", &inner]))
}

/// A set-user-ID program run by a user under a site-wide preload
/// (/etc/ld.so.preload, in a private mount namespace): nothing of the
/// file the user named in DARSHAN_CONFIG_PATH is printed, and nothing is
/// left that the user cannot remove. The same program without its
/// set-user-ID bit shows that the preload and the setting are real.
#[test]
fn a_setuid_program_under_a_site_wide_preload_says_nothing_of_a_file_the_user_named() {
    need_root!();
    let d = scratch("priv-setuid");
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (exe, plain, _gone) = setuid_probes(&d);
    let secret = Victim::new(d.join("shadow"), 0o600);
    std::fs::write(&secret.path, "root:SECRETHASH:19000:0:99999:7:::\n").unwrap();
    let secret = Victim { bytes: std::fs::read(&secret.path).unwrap(), ..secret };
    let drop_dir = sticky(&d.join("drop"));
    let etc = d.join("etc");
    assert!(status(Command::new("cp").arg("-a").arg("/etc").arg(&etc)).success());
    std::fs::write(etc.join("ld.so.preload"), format!("{}\n", lib().display())).unwrap();
    let run_as_user = |prog: &Path| run_as_nobody_with_etc(&etc, &secret.path, &drop_dir, prog);
    // The control: an ordinary program run by the user reads the file as
    // the user, who cannot: the runtime says it cannot read it (the
    // preload is in force), and what it leaves is the user's.
    let o = run_as_user(&plain);
    let said = String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{said}");
    assert!(
        said.contains("uid 65534 euid 65534") && said.contains("cannot read config file"),
        "the preload must be in force: {said}"
    );
    // The set-user-ID program: runs as root, says nothing of the file.
    let o = run_as_user(&exe);
    let said = String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{said}");
    assert!(said.contains("uid 65534 euid 0"), "the program ran set-user-ID: {said}");
    assert!(!said.contains("SECRETHASH") && !said.contains("DARSHAN") && !said.contains("darshan"), "{said}");
    secret.unchanged();
    // Nothing of root's but the program's own output in the user's 1777 directory.
    for f in files(&drop_dir) {
        let m = std::fs::symlink_metadata(&f).unwrap();
        let own_output = f.file_name().unwrap() == "out-setuid_probe";
        assert!(m.uid() == NOBODY || own_output, "{} left by root where the user cannot remove it", f.display());
    }
    assert!(files(&drop_dir).iter().any(|f| f.to_string_lossy().ends_with(".darshan")), "the ordinary run's log");
    drop(_gone);
    assert!(!exe.exists(), "the set-user-ID program is gone");
}

/// An ingest into a database its user cannot write left read-only (0444)
/// -wal and -shm files that broke every later ingest, with a message
/// that did not name the database. Now: one line naming it, nothing made.
#[test]
fn an_ingest_into_a_read_only_database_names_it_and_leaves_nothing() {
    need_root!();
    let d = scratch("priv-ro-db");
    let dir = sticky(&d.join("facility"));
    let db = dir.join("f.db");
    let log = root().join("../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan");
    let ingest = built("darshan-ingest");
    as_nobody(&format!(
        "'{}' -q --db '{}' '{}' && chmod 0444 '{}'",
        ingest.display(),
        db.display(),
        log.display(),
        db.display()
    ));
    let before = std::fs::read(&db).unwrap();
    let o = output(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&ingest)
            .arg("-q")
            .arg("--db")
            .arg(&db)
            .arg(log.parent().unwrap()),
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&db.display().to_string()) && err.contains("read-only"), "{err}");
    let extra: Vec<PathBuf> = files(&dir).into_iter().filter(|p| *p != db).collect();
    assert!(extra.is_empty(), "left beside the database: {extra:?}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // Writable again, the next ingest works.
    as_nobody(&format!("chmod 0644 '{}'", db.display()));
    let o = output(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&ingest)
            .arg("-q")
            .arg("--db")
            .arg(&db)
            .arg(&log),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A process started as root that became another user after its first
/// record (a daemon or batch wrapper dropping to the job's user with
/// setuid and kin) could not remove its crash-safe file at exit: in a
/// sticky directory only a file's owner may, and root owned it. 6.75 MB
/// stayed behind per such process (C Darshan 3.5.0 leaves its own, mode
/// 0644). The file is now the new user's: removed at exit, and after a
/// crash left to that user, with every record.
#[test]
fn a_process_that_gave_up_root_left_its_crash_safe_file_behind() {
    need_root!();
    let d = scratch("priv-drop");
    let exe = compile("drop_root", &d, &[]);
    for how in ["setuid", "seteuid", "setreuid", "setresuid", "killed"] {
        let (run_dir, out, err) = drop_root(&exe, &d, how);
        let left = files(&run_dir.join("mmap"));
        let data = run_dir.join("data");
        if how == "killed" {
            assert_eq!(out.status.code(), None, "{how}: killed: {err}");
            assert_eq!(left.len(), 1, "{how}: the crash-safe file: {left:?}");
            let m = std::fs::metadata(&left[0]).unwrap();
            assert_eq!((m.uid(), m.permissions().mode() & 0o777), (NOBODY, 0o600), "{how}: its owner and mode");
            assert_eq!(files_and_bytes(&recovered(&run_dir), &data), (41, 205), "{how}: records kept");
            as_nobody(&format!("rm {}", left[0].display()));
            continue;
        }
        assert!(out.status.success(), "{how}: {err}");
        assert!(left.is_empty(), "{how}: left behind: {left:?} {err}");
        let log = only_log(&run_dir);
        assert_eq!(std::fs::metadata(&log).unwrap().uid(), NOBODY, "{how}: the log's owner");
        assert_eq!(files_and_bytes(&log, &data), (41, 205), "{how}: the log's records");
    }
}

/// A change of user the kernel refused: the crash-safe file, given to
/// the new user before the call, is root's again, and the program sees
/// the call's own result and errno (EPERM).
#[test]
fn a_refused_change_of_user_gives_the_crash_safe_file_back() {
    need_root!();
    let d = scratch("priv-refused");
    let exe = compile("drop_root", &d, &[]);
    let (run_dir, out, err) = drop_root(&exe, &d, "refused");
    assert!(out.status.success(), "{err}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.trim(), format!("result -1 errno {} owner 0", libc::EPERM), "{err}");
    assert!(files(&run_dir.join("mmap")).is_empty(), "{err}");
    assert_eq!(files_and_bytes(&only_log(&run_dir), &run_dir.join("data")), (1, 5));
}

/// drop_root.c run as root in `d`/`how`, its data, crash-safe and log
/// directories sticky and open to all, as /tmp is.
fn drop_root(exe: &Path, d: &Path, how: &str) -> (PathBuf, Output, String) {
    let run_dir = d.join(how);
    let dirs = ["data", "mmap", "logs"].map(|s| sticky(&run_dir.join(s)));
    let mut c = instrumented(exe, &run_dir);
    c.arg(how).args(&dirs[..2]);
    let (out, err) = run(&mut c);
    (run_dir, out, err)
}
