//! The LUSTRE module end to end through the real code path: a FUSE file
//! system (tests/programs/lustre_fuse.c, libfuse3) serves regular files
//! and answers `getxattr("lustre.lov")` with layouts recorded here, as a
//! Lustre client would; programs write files there under LD_PRELOAD, and
//! the log's LUSTRE records must carry exactly the striping served.
//! Skipped, with a message, where /dev/fuse or fusermount3 is missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::fuse::Fuse;
use common::mpi::{self, Mpi};
use common::*;
use darshan_log::modules::LUSTRE;
use darshan_log::{Extra, Record};
use darshan_test_support::lustre_blobs::*;

const EOF_I: i64 = -1;

/// (components' seven counters and pool name, OST ids) of a record.
fn striping(r: &Record) -> (Vec<([i64; 7], String)>, Vec<i64>) {
    let Extra::Lustre { components, ost_ids } = &r.extra else { panic!("not a LUSTRE record") };
    let comps = components
        .iter()
        .map(|c| {
            let end = c.pool_name.iter().position(|&b| b == 0).unwrap_or(16);
            (c.counters, String::from_utf8_lossy(&c.pool_name[..end]).into_owned())
        })
        .collect();
    (comps, ost_ids.clone())
}

#[test]
fn striping_served_by_a_fuse_file_system_is_what_the_log_records() {
    let d = scratch("lustre_fuse");
    let Some(fs) = Fuse::start(&d) else { return };
    let exe = compile("lustre_files", &d, &[]);
    let wide: Vec<u32> = (0..300).map(|k| (k * 7) % 512).collect();
    fs.layout("v1.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 4, None, &[3, 0, 1, 2]));
    fs.layout("pool.dat", &plain(LOV_PATTERN_RAID0, 4 << 20, 2, Some("flash"), &[8, 9]));
    fs.layout("pfl.dat", &progressive_layout());
    // 7,232 bytes: past the wrapper's 4 KiB buffer.
    fs.layout("wide.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 300, None, &wide));
    fs.layout("stdio.dat", &plain(LOV_PATTERN_RAID0, 2 << 20, 1, None, &[11]));
    fs.layout("bad.dat", b"this is not a lustre layout");
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let names = ["v1.dat", "pool.dat", "pfl.dat", "wide.dat", "plain.dat", "bad.dat"];
    let mut cmd = instrumented(&exe, &d);
    cmd.args(names.iter().map(|n| fs.path(n))).arg("-s").arg(fs.path("stdio.dat"));
    let out = output(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&d.join("logs"));
    let log = mpi::the_log(&logs);
    let rec = |n: &str| striping(log.one(LUSTRE, &fs.path(n)));

    assert_eq!(rec("v1.dat"), (vec![([1 << 20, 4, 0, 0, 0, EOF_I, 0], String::new())], vec![3, 0, 1, 2]));
    assert_eq!(rec("pool.dat"), (vec![([4 << 20, 2, 0, 0, 0, EOF_I, 0], "flash".into())], vec![8, 9]));
    let init = i64::from(LCME_FL_INIT);
    assert_eq!(
        rec("pfl.dat"),
        (
            vec![
                ([1 << 20, 1, 0, init, 0, 4 << 20, 0], String::new()),
                ([1 << 20, 4, 0, init, 4 << 20, 64 << 20, 0], String::new())
            ],
            vec![5, 6, 7, 0, 1]
        )
    );
    assert_eq!(rec("wide.dat").1, wide.iter().map(|&o| i64::from(o)).collect::<Vec<_>>());
    assert_eq!(rec("stdio.dat"), (vec![([2 << 20, 1, 0, 0, 0, EOF_I, 0], String::new())], vec![11]));
    assert!(log.all(LUSTRE, &fs.path("plain.dat")).is_empty(), "no attribute, no record");
    assert!(log.all(LUSTRE, &fs.path("bad.dat")).is_empty(), "an undecodable attribute makes no record");
    assert_eq!(log.recs.iter().filter(|(m, _, _)| *m == LUSTRE).count(), 5);
    let meta = String::from_utf8_lossy(&log.file.job.metadata).into_owned();
    assert!(meta.contains("lustre_bad_layouts=1\n"), "metadata: {meta:?}");

    parser_prints_the_striping(&logs[0], &fs);
}

/// darshan-parser prints the records as darshan-util does (its LUSTRE
/// output is byte-identical to the C parser's on the corpus logs).
fn parser_prints_the_striping(log: &Path, fs: &Fuse) {
    let p = output(Command::new(built("darshan-parser")).arg(log));
    assert!(p.status.success());
    let text = String::from_utf8_lossy(&p.stdout);
    let line = |name: &str, counter: &str| {
        text.lines()
            .find(|l| l.contains(&format!("\t{counter}\t")) && l.contains(fs.path(name).to_str().unwrap()))
            .map(|l| l.split('\t').nth(4).unwrap().to_string())
    };
    assert_eq!(line("pfl.dat", "LUSTRE_NUM_COMPONENTS").as_deref(), Some("2"));
    assert_eq!(line("pfl.dat", "LUSTRE_COMP2_EXT_START").as_deref(), Some("4194304"));
    assert_eq!(line("pfl.dat", "LUSTRE_COMP1_FLAGS").as_deref(), Some("init"));
    assert_eq!(line("pfl.dat", "LUSTRE_COMP2_OST_ID_0").as_deref(), Some("6"), "OST ids count from 0");
    assert_eq!(line("pfl.dat", "LUSTRE_COMP2_OST_ID_3").as_deref(), Some("1"));
    assert_eq!(line("pool.dat", "LUSTRE_COMP1_POOL_NAME").as_deref(), Some("flash"));
    assert_eq!(line("v1.dat", "LUSTRE_COMP1_STRIPE_PATTERN").as_deref(), Some("raid0"));
    assert_eq!(line("v1.dat", "LUSTRE_COMP1_POOL_NAME").as_deref(), Some("N/A"));
}

/// A killed process leaves its LUSTRE records in the crash-safe file
/// (records of several sizes back to back, one with an unused component
/// still in it); darshan-merge makes a log of them with the same striping.
#[test]
fn a_killed_process_leaves_lustre_records_darshan_merge_recovers() {
    let d = scratch("lustre_killed");
    let Some(fs) = Fuse::start(&d) else { return };
    let exe = compile("lustre_files", &d, &[]);
    fs.layout("v1.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 4, None, &[3, 0, 1, 2]));
    fs.layout("pfl.dat", &progressive_layout());
    let out = output(instrumented(&exe, &d).arg(fs.path("v1.dat")).arg(fs.path("pfl.dat")).arg("-k"));
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&out.status), Some(9));
    let left = files(&d.join("mmap"));
    assert_eq!(left.len(), 1, "one crash-safe file: {left:?}");
    let merged = d.join("merged.darshan");
    let m = output(Command::new(built("darshan-merge")).arg("--output").arg(&merged).arg(&left[0]));
    assert!(m.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&m.stderr));
    let log = mpi::read(&merged);
    assert_eq!(striping(log.one(LUSTRE, &fs.path("v1.dat"))).1, vec![3, 0, 1, 2]);
    let pfl_rec = striping(log.one(LUSTRE, &fs.path("pfl.dat")));
    assert_eq!((pfl_rec.0.len(), pfl_rec.1), (2, vec![5, 6, 7, 0, 1]), "the unused third component dropped");
}

/// A file reached through a symlink from another file system (a home
/// directory's link into scratch) gets its striping: the attribute is
/// asked of every recorded file where the mount table can reach Lustre,
/// whatever the file system its path names.
#[test]
fn a_file_reached_through_a_symlink_from_elsewhere_gets_its_striping() {
    let d = scratch("lustre_symlink");
    let Some(fs) = Fuse::start(&d) else { return };
    fs.layout("v1.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 4, None, &[3, 0, 1, 2]));
    let link = d.join("link.dat");
    std::os::unix::fs::symlink(fs.path("v1.dat"), &link).unwrap();
    let log = lustre_files_log(&d, std::slice::from_ref(&link), &[], LIMIT);
    assert_eq!(striping(log.one(LUSTRE, &link)).1, vec![3, 0, 1, 2], "recorded under the name opened");
}

/// Regression (a failed `fgetxattr("lustre.lov")` at every recorded
/// close, 0.9 us each on this machine, on file systems that cannot hold
/// Lustre files): where the mount table the runtime read holds no mount
/// that can reach Lustre, no file is asked; where it holds one (another
/// test's FUSE file system mounted meanwhile, a container's overlay
/// root), every recorded file still is.
#[test]
fn no_file_is_asked_for_its_striping_where_no_mount_can_reach_lustre() {
    let d = scratch("lustre_none");
    let exe = compile("lustre_files", &d, &[]);
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let trace = d.join("strace.txt");
    let mut c = Command::new("strace");
    c.args(["-f", "-qq", "-e", "trace=fgetxattr", "-o"]).arg(&trace);
    c.arg("-E").arg(format!("LD_PRELOAD={}", lib().display()));
    c.env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", d.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    let files_written = [d.join("a.dat"), d.join("b.dat")];
    let out = output_within(c.arg(&exe).args(&files_written).arg("-s").arg(d.join("c.txt")), LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let asked = std::fs::read_to_string(&trace).unwrap().lines().filter(|l| l.contains("lustre.lov")).count();
    let log = mpi::the_log(&files(&d.join("logs")));
    // The mount table as the runtime read it: "<exe>\n<type>\t<path>..."
    let table = String::from_utf8_lossy(&log.file.job.exe_mnt).into_owned();
    let types: Vec<&str> = table.lines().skip(1).filter_map(|l| l.split('\t').next()).collect();
    let reachable = types.is_empty()
        || types.len() >= darshan_core::mounts::MAX_MNTS
        || types.iter().any(|t| *t == "lustre" || *t == "overlay" || t.starts_with("fuse"));
    if reachable {
        assert_eq!(asked, 3, "every recorded file asked where Lustre can be reached: {types:?}");
    } else {
        assert_eq!(asked, 0, "no file asked where no mount can reach Lustre: {types:?}");
    }
    // Recorded files, each closed once: the count above is of real closes.
    log.one(darshan_log::modules::POSIX, &files_written[0]);
    log.one(darshan_log::modules::POSIX, &files_written[1]);
    log.one(darshan_log::modules::STDIO, &d.join("c.txt"));
}

/// DARSHAN_MOD_DISABLE=LUSTRE: no LUSTRE records, and POSIX unchanged.
#[test]
fn lustre_switched_off_records_no_striping() {
    let d = scratch("lustre_off");
    let Some(fs) = Fuse::start(&d) else { return };
    fs.layout("v1.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 1, None, &[3]));
    let log = lustre_files_log(&d, &[fs.path("v1.dat")], &[("DARSHAN_MOD_DISABLE", "LUSTRE")], LIMIT);
    assert!(log.all(LUSTRE, &fs.path("v1.dat")).is_empty());
    assert_eq!(log.all(darshan_log::modules::POSIX, &fs.path("v1.dat")).len(), 1);
}

/// A traced file on Lustre: darshan-dxt-parser names, after each of its
/// segments, the OSTs its bytes lie on, from the LUSTRE record the runtime
/// made at its close (lustre_files writes 64 KiB at offset 0). It printed
/// no OST at all: it read the LUSTRE records and dropped them.
#[test]
fn darshan_dxt_parser_dropped_the_osts_of_a_traced_lustre_file() {
    let d = scratch("lustre_dxt");
    let Some(fs) = Fuse::start(&d) else { return };
    fs.layout("wide.dat", &plain(LOV_PATTERN_RAID0, 16 << 10, 4, None, &[3, 0, 1, 2]));
    fs.layout("one.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 2, None, &[6, 7]));
    let paths = [fs.path("wide.dat"), fs.path("one.dat"), d.join("local.dat")];
    let log = lustre_files_log(&d, &paths, &[("DXT_ENABLE_IO_TRACE", "1")], LIMIT);
    assert_eq!(log.all(LUSTRE, &paths[0]).len(), 1, "a LUSTRE record of the traced file");
    let out = output(Command::new(built("darshan-dxt-parser")).arg(only_log(&d)));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // The segment line of each file's one write.
    let write_of = |p: &Path| {
        let block = text.split("\n# DXT, file_id: ").find(|b| b.contains(&format!("file_name: {}\n", p.display())));
        let block = block.unwrap_or_else(|| panic!("no trace of {}: {text}", p.display()));
        block.lines().find(|l| l.contains(" X_POSIX ") && l.contains(" write ")).unwrap().to_string()
    };
    // 64 KiB from 0: the four 16 KiB stripes, each once; one 1 MiB stripe.
    assert!(write_of(&paths[0]).ends_with("   [3] [0] [1] [2]   N/A"), "{text}");
    assert!(write_of(&paths[1]).ends_with("   [6]   N/A"), "{text}");
    assert!(!write_of(&paths[2]).contains('['), "not on Lustre: {text}");
    assert!(text.contains("stripe_size: 16384, stripe_count: 4, OSTs: 3 0 1 2\n"), "{text}");
}

/// tests/programs/lustre_files run under the runtime on `paths` with
/// `env`, within `limit`: it must succeed; its one log.
fn lustre_files_log(d: &Path, paths: &[PathBuf], env: &[(&str, &str)], limit: Duration) -> mpi::Log {
    let exe = compile("lustre_files", d, &[]);
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let out = output_within(instrumented(&exe, d).args(paths).envs(env.iter().copied()), limit);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    mpi::the_log(&files(&d.join("logs")))
}

/// Four ranks write one shared file through MPI-IO and one file each:
/// the shared file's LUSTRE record is reduced to rank -1 (one record),
/// each rank's own file keeps its rank.
fn four_ranks_share_one_lustre_record(m: Mpi) {
    let d = scratch(&format!("lustre_mpi_{}", m.tag()));
    let Some(fs) = Fuse::start(&d) else { return };
    let exe = mpi::mpicc(m, "lustre_mpi", &d);
    fs.layout("shared.dat", &progressive_layout());
    for r in 0..4u32 {
        fs.layout(&format!("rank{r}.dat"), &plain(LOV_PATTERN_RAID0, 1 << 20, 1, None, &[r]));
    }
    let logs = mpi::mpirun(m, &exe, &[fs.mount.to_str().unwrap()], &d, &[]);
    let log = mpi::the_log(&logs);
    let shared = log.all(LUSTRE, &fs.path("shared.dat"));
    assert_eq!(shared.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![-1], "one shared record");
    assert_eq!(striping(shared[0]).1, vec![5, 6, 7, 0, 1]);
    for r in 0..4i64 {
        let own = log.one(LUSTRE, &fs.path(&format!("rank{r}.dat")));
        assert_eq!(own.rank, r);
        assert_eq!(striping(own).1, vec![r]);
    }
}

/// With no log directory the ranks' crash-safe files are left;
/// `darshan-merge --shared-redux` gives the shared file one rank -1
/// record (the first rank's layout, as darshan-util aggregates LUSTRE)
/// and keeps each rank's own.
fn crash_safe_files_of_four_ranks_merge_into_one_shared_lustre_record(m: Mpi) {
    let d = scratch(&format!("lustre_merge_{}", m.tag()));
    let Some(fs) = Fuse::start(&d) else { return };
    let exe = mpi::mpicc(m, "lustre_mpi", &d);
    fs.layout("shared.dat", &progressive_layout());
    for r in 0..4u32 {
        fs.layout(&format!("rank{r}.dat"), &plain(LOV_PATTERN_RAID0, 1 << 20, 1, None, &[10 + r]));
    }
    let mmap = d.join("mmap");
    // A log directory that cannot take the log at the end (a missing one
    // is refused at start-up): the ranks' crash-safe files stay.
    let Some(_full) = common::full_log_dir(&d.join("full")) else {
        eprintln!("SKIPPED: a full log directory needs a tmpfs mount (root)");
        return;
    };
    let mut cmd = m.launcher(&[
        ("LD_PRELOAD", lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("full").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", mmap.display().to_string()),
    ]);
    let out = output(cmd.arg(&exe).arg(&fs.mount));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let left = files(&mmap);
    assert_eq!(left.len(), 4, "{left:?}");
    let merged = d.join("merged.darshan");
    let mo =
        output(Command::new(built("darshan-merge")).arg("--shared-redux").arg("--output").arg(&merged).args(&left));
    assert!(mo.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&mo.stderr));
    let log = mpi::read(&merged);
    let shared = log.all(LUSTRE, &fs.path("shared.dat"));
    assert_eq!(shared.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![-1]);
    assert_eq!(striping(shared[0]).1, vec![5, 6, 7, 0, 1]);
    for r in 0..4i64 {
        assert_eq!(striping(log.one(LUSTRE, &fs.path(&format!("rank{r}.dat")))).1, vec![10 + r]);
    }
}

on_both_mpis!(four_ranks_share_one_lustre_record, crash_safe_files_of_four_ranks_merge_into_one_shared_lustre_record);

/// A mount's block size (a record's POSIX_FILE_ALIGNMENT) is asked of the
/// file system when a record on it is made: files on a file system that
/// reports 64 KiB blocks record 65,536.
#[test]
fn a_files_alignment_is_the_block_size_its_file_system_reports() {
    use darshan_log::counters::posix as p;
    let d = scratch("lustre_bsize");
    let Some(fs) = Fuse::start_with(&d, &[("LUSTRE_FUSE_BSIZE", "65536")]) else { return };
    let log = lustre_files_log(&d, &[fs.path("a.dat"), fs.path("b.dat")], &[], LIMIT);
    for name in ["a.dat", "b.dat"] {
        let r = log.one(darshan_log::modules::POSIX, &fs.path(name));
        assert_eq!(mpi::c(r, p::FILE_ALIGNMENT), 65536, "{name}");
    }
}

/// Every process asked every mount its block size at start-up: a mount
/// whose server does not answer (a Lustre or NFS server that is down)
/// held up every instrumented process on the node, even one that never
/// touched it, until statfs came back.
#[test]
fn a_mount_whose_statfs_hangs_does_not_stop_a_process_that_never_uses_it() {
    let d = scratch("statfs_hang");
    let Some(_fs) = Fuse::start_with(&d, &[("LUSTRE_FUSE_STATFS_SLEEP", "60")]) else { return };
    let elsewhere = d.join("elsewhere.dat");
    let log = lustre_files_log(&d, std::slice::from_ref(&elsewhere), &[], Duration::from_secs(20));
    assert_eq!(log.all(darshan_log::modules::POSIX, &elsewhere).len(), 1);
}
