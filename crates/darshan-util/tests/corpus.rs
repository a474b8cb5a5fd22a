//! Runs the real binaries on the shared corpus of C-Darshan logs and
//! compares with the C darshan-util 3.5.0 output byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_log::{LogFile, Record};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// The C outputs are stored gzipped; the system gzip reads them.
fn gunzip(p: &Path) -> Vec<u8> {
    let f = std::fs::File::open(p).unwrap();
    let out = darshan_test_support::output(Command::new("gzip").arg("-dc").stdin(f));
    assert!(out.status.success(), "gzip -dc {}", p.display());
    out.stdout
}

fn expected(suffix: &str) -> Vec<(String, PathBuf)> {
    let mut v: Vec<_> = std::fs::read_dir(shared().join("expected"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let n = p.file_name()?.to_str()?.to_string();
            n.strip_suffix(suffix).map(|b| (b.to_string(), p.clone()))
        })
        .collect();
    v.sort();
    v
}

fn all_logs() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(shared().join("logs")).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

fn run(bin: &str, args: &[&str]) -> std::process::Output {
    darshan_test_support::output(Command::new(bin).args(args).env("TZ", "UTC"))
}

#[test]
fn parser_all_matches_c_output_on_every_expected_log() {
    let cases = expected(".all.txt.gz");
    assert_eq!(cases.len(), 33);
    let mut failed = vec![];
    for (base, exp) in &cases {
        let log = shared().join("logs").join(format!("{base}.darshan"));
        let out = run(env!("CARGO_BIN_EXE_darshan-parser"), &["--all", log.to_str().unwrap()]);
        if out.stdout != gunzip(exp) {
            failed.push(base.clone());
        }
    }
    assert!(failed.is_empty(), "output differs from C darshan-parser for {failed:?}");
}

#[test]
fn dxt_parser_matches_c_output() {
    let cases = expected(".dxt.txt.gz");
    assert_eq!(cases.len(), 8);
    for (base, exp) in &cases {
        let log = shared().join("logs").join(format!("{base}.darshan"));
        let out = run(env!("CARGO_BIN_EXE_darshan-dxt-parser"), &[log.to_str().unwrap()]);
        assert!(out.stdout == gunzip(exp), "dxt output differs for {base}");
    }
}

#[test]
fn every_corpus_log_parses() {
    let logs = all_logs();
    assert_eq!(logs.len(), 84);
    for log in &logs {
        let out = run(env!("CARGO_BIN_EXE_darshan-parser"), &["--all", log.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}: {}", log.display(), String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("Error"), "{}", log.display());
    }
}

#[test]
fn partial_log_exits_255_without_show_incomplete() {
    let log = shared().join("logs/partial_data_stdio__partial_data_stdio.darshan");
    let out = run(env!("CARGO_BIN_EXE_darshan-parser"), &[log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).contains("The STDIO module contains incomplete data!"));
}

fn records_of(log: &LogFile) -> Vec<(usize, Vec<Record>)> {
    log.modules_present()
        .into_iter()
        .filter(|&m| m < darshan_log::modules::KNOWN_MODULE_COUNT && darshan_log::modules::WRITE_VERSIONS[m] != 0)
        .map(|m| (m, log.records(m).unwrap()))
        .collect()
}

/// read -> darshan-convert -> read keeps header facts, job, names and
/// every decoded record (zlib for all logs, bzip2 for some).
#[test]
fn convert_round_trip_keeps_everything() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, log) in all_logs().iter().enumerate() {
        let out = dir.join("out.darshan");
        let mut args = vec![log.to_str().unwrap(), out.to_str().unwrap()];
        if i % 7 == 0 {
            args.insert(0, "--bzip2");
        }
        let r = run(env!("CARGO_BIN_EXE_darshan-convert"), &args);
        assert!(r.status.success(), "convert {}: {}", log.display(), String::from_utf8_lossy(&r.stderr));
        let a = LogFile::open(log).unwrap();
        let b = LogFile::open(&out).unwrap();
        // The job as it was, but the mount table in the order C's
        // darshan-convert writes it (reversed: equal-length mount points
        // swap places); the same mounts.
        let (mut ja, mut jb) = (a.job.clone(), b.job.clone());
        let mounts = |j: &darshan_log::job::Job| {
            let mut m: Vec<_> = j.mounts().unwrap().into_iter().map(|m| (m.path, m.fs_type)).collect();
            m.sort();
            m
        };
        assert_eq!(mounts(&ja), mounts(&jb), "mounts of {}", log.display());
        assert_eq!(ja.exe(), jb.exe(), "command line of {}", log.display());
        (ja.exe_mnt, jb.exe_mnt) = (Vec::new(), Vec::new());
        assert_eq!(ja, jb, "job of {}", log.display());
        let (na, nb) = (a.names().unwrap(), b.names().unwrap());
        assert_eq!(na.iter().collect::<Vec<_>>(), nb.iter().collect::<Vec<_>>(), "names of {}", log.display());
        let (ra, rb) = (records_of(&a), records_of(&b));
        assert_eq!(ra.len(), rb.len(), "module count of {}", log.display());
        for ((ma, va), (mb, vb)) in ra.iter().zip(rb.iter()) {
            assert_eq!(ma, mb);
            assert_eq!(va.len(), vb.len(), "records of module {ma} in {}", log.display());
            for (x, y) in va.iter().zip(vb.iter()) {
                // NaN-safe comparison through bit patterns
                assert_eq!(x.id, y.id);
                assert_eq!(x.rank, y.rank);
                assert_eq!(x.counters, y.counters);
                let fx: Vec<u64> = x.fcounters.iter().map(|f| f.to_bits()).collect();
                let fy: Vec<u64> = y.fcounters.iter().map(|f| f.to_bits()).collect();
                assert_eq!(fx, fy, "fcounters of {} in {}", x.id, log.display());
                // DXT is written at the 32-byte-segment versions: the only
                // loss would be pthread ids, which no corpus log has.
                assert_eq!(x.extra, y.extra, "extra data of {} in {}", x.id, log.display());
            }
        }
        let apmpi = darshan_log::modules::APMPI;
        let mask = !((1u64 << apmpi) | (1u64 << darshan_log::modules::APXC));
        assert_eq!(a.header.partial_flag & mask, b.header.partial_flag, "partial flag of {}", log.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn clear_errors_for_truncated_and_foreign_files() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(shared().join("logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan")).unwrap();
    let trunc = dir.join("trunc.darshan");
    std::fs::write(&trunc, &good[..good.len() / 2]).unwrap();
    let out = run(env!("CARGO_BIN_EXE_darshan-parser"), &[trunc.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(255));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the file") || err.contains("truncated"), "{err}");

    let foreign = dir.join("notes.txt");
    std::fs::write(&foreign, b"this is just some text, certainly not a darshan log at all........").unwrap();
    let out = run(env!("CARGO_BIN_EXE_darshan-parser"), &[foreign.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a Darshan log"));

    let missing = run(env!("CARGO_BIN_EXE_darshan-parser"), &["/nonexistent/x.darshan"]);
    assert_eq!(missing.status.code(), Some(255));
    std::fs::remove_dir_all(&dir).ok();
}

/// darshan-convert removed the path named as its output whenever it
/// failed: `darshan-convert missing.darshan kept.darshan` deleted
/// kept.darshan (C's darshan-convert leaves it: it unlinks only a file it
/// made). Now a failed conversion leaves the name as it was, and a
/// successful one makes a new read-only file in its place (C's
/// `creat(name, 0400)`), written neither through a link nor into the
/// file the name held.
#[test]
fn a_conversion_that_failed_deleted_the_file_named_as_its_output() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("convert-failed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let kept = dir.join("kept.darshan");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, b"not a darshan log, but long enough to be read as one........").unwrap();
    for input in [dir.join("missing.darshan"), notes.clone()] {
        std::fs::write(&kept, b"precious").unwrap();
        let r = run(env!("CARGO_BIN_EXE_darshan-convert"), &[input.to_str().unwrap(), kept.to_str().unwrap()]);
        assert_eq!(r.status.code(), Some(255), "{}", String::from_utf8_lossy(&r.stderr));
        assert_eq!(std::fs::read(&kept).ok().as_deref(), Some(&b"precious"[..]), "from {}", input.display());
    }
    let log = shared().join("logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan");
    let linked = dir.join("linked.darshan");
    std::os::unix::fs::symlink(&notes, &linked).unwrap();
    for to in [&kept, &linked] {
        let r = run(env!("CARGO_BIN_EXE_darshan-convert"), &[log.to_str().unwrap(), to.to_str().unwrap()]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        assert!(LogFile::open(to).is_ok(), "{} is the converted log", to.display());
    }
    // Our own link is followed (as open(2) would): the file it names is
    // the output; the name the user gave and held a file is a new file.
    assert!(std::fs::symlink_metadata(&linked).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o400);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3, "no temporary file left");
    std::fs::remove_dir_all(&dir).ok();
}

/// darshan-convert equals C's: our converted log, printed by our parser
/// (byte-identical to C's), equals C darshan-convert 3.5.0's, printed by
/// C's parser (tests/c-convert/README.md), with and without obfuscation.
/// Regressions: names were obfuscated with lookup8 where C uses lookup3's
/// hashlittle (every obfuscated name and id differed); the mount table was
/// written back in its own order where C reverses it (mount points of
/// equal length swapped places). Not compared: C's converter loses three
/// time counters of old big-endian POSIX records (its reader's swap
/// quirk), which ours keeps (convert_round_trip_keeps_everything).
#[test]
fn convert_output_equals_c_darshan_converts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c-convert");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".txt.gz"))
        .collect();
    fixtures.sort();
    assert_eq!(fixtures.len(), 9, "three logs, three option sets");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-convert");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut failures = Vec::new();
    for f in &fixtures {
        let name = f.file_name().unwrap().to_string_lossy().trim_end_matches(".txt.gz").to_string();
        let (log, set) = name.rsplit_once('.').unwrap();
        let opts: &[&str] = match set {
            "plain" => &[],
            "obf42" => &["--obfuscate", "--key", "42"],
            "names-7" => &["--obfuscate_names", "--obfuscate_exe", "--key", "-7"],
            other => panic!("unknown option set {other}"),
        };
        let src = shared().join("logs").join(format!("{log}.darshan"));
        let dst = out_dir.join(format!("{name}.darshan"));
        let _ = std::fs::remove_file(&dst);
        let mut args: Vec<&str> = opts.to_vec();
        args.push(src.to_str().unwrap());
        args.push(dst.to_str().unwrap());
        let r = run(env!("CARGO_BIN_EXE_darshan-convert"), &args);
        assert!(r.status.success(), "convert {name}: {}", String::from_utf8_lossy(&r.stderr));
        let p = run(env!("CARGO_BIN_EXE_darshan-parser"), &[dst.to_str().unwrap()]);
        let ours: String = String::from_utf8_lossy(&p.stdout)
            .lines()
            .filter(|l| !(l.contains("compressed)") || l.starts_with("# header")))
            .map(|l| format!("{l}\n"))
            .collect();
        let want = String::from_utf8(gunzip(f)).unwrap();
        if ours != want {
            let line = ours.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
            failures.push(format!(
                "{name}: first difference at line {}: ours {:?}, C {:?}",
                line + 1,
                ours.lines().nth(line),
                want.lines().nth(line)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// darshan-dxt-parser on a log without DXT data stopped after the mount
/// table; darshan-util's (3.5.0 and since) then says "# no DXT module data
/// available for this Darshan log." and exits 0. The job header is the
/// one darshan-parser prints for the same log (the corpus's C output).
#[test]
fn dxt_parser_on_a_log_without_dxt_data_did_not_say_there_is_none() {
    let logs = all_logs();
    let log = logs.iter().find(|l| l.ends_with("release_logs__mpi-io-test-x86_64-3.5.0.darshan")).expect("corpus log");
    let header = LogFile::open(log).unwrap().header;
    assert!((0..header.mod_map.len()).all(|m| !darshan_log::modules::is_dxt(m) || header.mod_map[m].len == 0));
    let out = run(env!("CARGO_BIN_EXE_darshan-dxt-parser"), &[log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, tail) = text.rsplit_once("# mount entry:").expect("the mount table");
    assert!(head.starts_with("# darshan log version:"), "{head}");
    assert_eq!(tail.split_once('\n').unwrap().1, "\n# no DXT module data available for this Darshan log.\n");
}

/// A log with AutoPerf's APMPI records (3.4.0's release log) stopped
/// every merge it was in: "Invalid APMPI module version number (got 1)",
/// no log. darshan-util without AutoPerf leaves those records out and
/// merges the rest; ours now does the same, and says so.
#[test]
fn a_log_with_autoperf_records_stopped_the_whole_merge() {
    let input = shared().join("logs/release_logs__mpi-io-test-x86_64-3.4.0.darshan");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-merge-apmpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("merged.darshan");
    let _ = std::fs::remove_file(&out);
    let o = run(env!("CARGO_BIN_EXE_darshan-merge"), &["--output", out.to_str().unwrap(), input.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("the APMPI records are left out"), "{err}");
    let (before, after) = (LogFile::open(&input).unwrap(), LogFile::open(&out).unwrap());
    assert!(before.modules_present().contains(&darshan_log::modules::APMPI));
    assert!(!after.modules_present().contains(&darshan_log::modules::APMPI));
    let kept = |log: &LogFile| -> Vec<(usize, Vec<Record>)> {
        records_of(log).into_iter().filter(|(m, _)| *m != darshan_log::modules::APMPI).collect()
    };
    assert_eq!(kept(&after), kept(&before), "every other record as it was");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A merge of a log with APMPI records that then failed (its HEATMAP
/// region corrupt, read only as the merge writes it) printed the note on
/// the left-out records and then its error: two lines, where a failure
/// says one (the mutation harness found it). The note now comes once the
/// log is written.
#[test]
fn a_failed_merge_of_a_log_with_autoperf_records_said_two_lines() {
    let src = shared().join("logs/e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan");
    let map = LogFile::open(&src).unwrap().header.mod_map[darshan_log::modules::HEATMAP];
    let mut bytes = std::fs::read(&src).unwrap();
    let mid = (map.off + map.len / 3) as usize;
    bytes[mid..mid + 60].fill(0x80);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-merge-apmpi-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (bad, out) = (dir.join("bad.darshan"), dir.join("merged.darshan"));
    std::fs::write(&bad, &bytes).unwrap();
    let o = run(
        env!("CARGO_BIN_EXE_darshan-merge"),
        &["--shared-redux", "--output", out.to_str().unwrap(), bad.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("HEATMAP region"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
