//! Each failure the tools had on a crafted log, as a test named after
//! it: the log is crafted here from a corpus log (a count set to a lie
//! inside a valid compressed stream), the tool is run under a 1 GiB
//! address-space limit and a time limit, and it must end by itself with a
//! documented status, never a signal, a panic or a hang.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use darshan_log::modules::{HEATMAP, LUSTRE, POSIX};
use log_mutants::fields::fields;
use log_mutants::unpacked::{Region, Unpacked};

fn corpus(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A tool of the workspace, built beside this test.
fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe.parent().unwrap().parent().unwrap().join(name);
    assert!(p.is_file(), "{} is missing: build the workspace first", p.display());
    p
}

fn scratch(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-logs").join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `tool args` under a 1 GiB address-space limit, killed after 60 s.
fn run_limited(tool: &str, args: &[&std::ffi::OsStr]) -> Output {
    let mut c = Command::new("prlimit");
    c.arg(format!("--as={}", 1u64 << 30)).arg("--").arg(bin(tool)).args(args).stdin(Stdio::null());
    darshan_test_support::output_within(&mut c, Duration::from_secs(60))
}

/// Set the `nth` field named `what` of `region` to `v`.
fn set(u: &mut Unpacked, region: Region, what: &str, nth: usize, v: i64) {
    let ver = match region {
        Region::Module(m) => u.mod_ver[m],
        _ => 0,
    };
    let log = u.version;
    let b = u.region_mut(region).expect("region present");
    let f = fields(log, region, ver, b).into_iter().filter(|f| f.what == what).nth(nth).expect(what);
    b[f.offset..f.offset + 8].copy_from_slice(&v.to_le_bytes());
}

fn crafted(dir: &Path, name: &str, from: &str, lie: impl FnOnce(&mut Unpacked)) -> PathBuf {
    let mut u = Unpacked::of(&corpus(from)).expect("a little-endian log");
    lie(&mut u);
    let p = dir.join(name);
    std::fs::write(&p, u.pack()).unwrap();
    p
}

fn ended_by_itself(o: &Output, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code().is_some(), "{what}: killed by a signal ({:?}): {err}", o.status);
    assert!(
        !err.contains("panicked") && !err.contains("internal error") && !err.contains("memory allocation"),
        "{what}: {err}"
    );
}

const LUSTRE_LOG: &str = "dlio_logs__snyder_python3_id3116902-2110483_12-19-66980-15861026832475351160_1.darshan";

/// `darshan-parser --all` on a log whose LUSTRE component claimed 5e7 or
/// 2^40 stripes printed an OST id per claimed stripe: past 2 GB, then an
/// abort with a backtrace. Now the record is refused in one error, as a
/// record that cannot be read is (the parser goes on, as C's does).
#[test]
fn a_lustre_stripe_count_of_5e7_or_2_40_is_an_error_not_gigabytes() {
    let d = scratch("lustre");
    for claim in [50_000_000i64, 1 << 40, (1 << 31) - 1] {
        let log = crafted(&d, &format!("stripes-{claim}.darshan"), LUSTRE_LOG, |u| {
            set(u, Region::Module(LUSTRE), "LUSTRE COMP1 STRIPE_COUNT", 0, claim)
        });
        let o = run_limited("darshan-parser", &["--all".as_ref(), log.as_os_str()]);
        ended_by_itself(&o, &format!("stripe count {claim}"));
        assert_eq!(o.status.code(), Some(0), "C's parser goes on after a record it cannot read");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("failed to parse LUSTRE module record"), "{err}");
        assert!(err.contains(&format!("claim {claim} stripes")), "{err}");
        assert!(o.stdout.len() < 4 << 20, "{} bytes of output", o.stdout.len());
    }
}

/// A crash-safe file whose module map points LUSTRE at the POSIX region
/// (the same bug: POSIX counters read as component counts) aborted the
/// parser; it is an error now.
#[test]
fn a_crash_safe_file_with_lustre_mapped_onto_posix_is_a_clean_error() {
    let d = scratch("crash-safe");
    let (mmap_dir, logs) = (d.join("mmap"), d.join("logs"));
    std::fs::create_dir_all(&mmap_dir).unwrap();
    std::fs::create_dir_all(&logs).unwrap();
    let lib = bin("libdarshan.so");
    // A shell that writes a file, then kills itself: its crash-safe file
    // stays behind with a POSIX region.
    let script = format!("echo hello > {}/f.txt; kill -9 $$", d.display());
    let st = darshan_test_support::status(
        Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("LD_PRELOAD", &lib)
            .env("DARSHAN_ENABLE_NONMPI", "1")
            .env("DARSHAN_LOGPATH", &logs)
            .env("DARSHAN_MMAP_LOGPATH", &mmap_dir),
    );
    assert!(!st.success());
    let file = std::fs::read_dir(&mmap_dir).unwrap().map(|e| e.unwrap().path()).next().expect("a crash-safe file");
    let mut b = std::fs::read(&file).unwrap();
    let h = darshan_log::Header::parse(&b[..darshan_log::header::HEADER_SIZE], b.len() as u64).unwrap();
    assert!(h.mod_map[POSIX].len > 0, "the shell's POSIX record");
    let posix = h.mod_map[POSIX];
    b[48 + 16 * LUSTRE..56 + 16 * LUSTRE].copy_from_slice(&posix.off.to_le_bytes());
    b[56 + 16 * LUSTRE..64 + 16 * LUSTRE].copy_from_slice(&posix.len.to_le_bytes());
    b[1072 + 4 * LUSTRE..1076 + 4 * LUSTRE].copy_from_slice(&2u32.to_le_bytes());
    // Read as a LUSTRE record, the first POSIX record's POSIX_OPENS (1) is
    // its component count and POSIX_READS its first component's stripe
    // count: a program that read 5e7 times (set here) claims 5e7 stripes.
    let reads = posix.off as usize + 16 + 8 * darshan_log::counters::posix::READS;
    b[reads..reads + 8].copy_from_slice(&50_000_000i64.to_le_bytes());
    let bad = d.join("lustre-on-posix.darshan");
    std::fs::write(&bad, &b).unwrap();
    for args in [vec!["--all"], vec![]] {
        let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_ref()).collect();
        a.push(bad.as_os_str());
        let o = run_limited("darshan-parser", &a);
        ended_by_itself(&o, "parser");
        assert!(String::from_utf8_lossy(&o.stderr).contains("LUSTRE"), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = run_limited("darshan-merge", &["--output".as_ref(), d.join("m.darshan").as_os_str(), bad.as_os_str()]);
    ended_by_itself(&o, "merge");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1, "{}", String::from_utf8_lossy(&o.stderr));
}

/// darshan-summary (HTML and --json) aborted on a job record claiming
/// 2^31−1 or 2^40 processes ("memory allocation of 17179869176 bytes
/// failed"): it sized per-rank tables by the claim.
#[test]
fn a_summary_of_a_job_claiming_2_31_or_2_40_processes_stays_small() {
    let d = scratch("nprocs");
    for claim in [(1i64 << 31) - 1, 1 << 40, i64::MAX] {
        // A log with heat maps: their per-rank totals were sized by the claim.
        let src = "dlio_logs__snyder_python3_id3116902-2110365_12-19-66957-188958432683465822_1.darshan";
        let log = crafted(&d, &format!("nprocs-{claim}.darshan"), src, |u| set(u, Region::Job, "job nprocs", 0, claim));
        for args in [vec!["-o", "-"], vec!["--json", "-o", "-"], vec!["--text", "-o", "-"]] {
            let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_ref()).collect();
            a.push(log.as_os_str());
            let o = run_limited("darshan-summary", &a);
            ended_by_itself(&o, &format!("nprocs {claim} {args:?}"));
            assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let o = run_limited("darshan-parser", &["--perf".as_ref(), log.as_os_str()]);
        ended_by_itself(&o, "parser --perf");
    }
}

/// darshan-dxt-parser exited 0 after "failed to parse DXT_POSIX module
/// record"; C's exits 255.
#[test]
fn the_dxt_parser_exits_255_when_a_dxt_record_cannot_be_parsed() {
    let d = scratch("dxt");
    let src = "mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan";
    let log = crafted(&d, "dxt.darshan", src, |u| {
        set(u, Region::Module(darshan_log::modules::DXT_POSIX), "DXT_POSIX write_count", 0, 1 << 40)
    });
    let o = run_limited("darshan-dxt-parser", &[log.as_os_str()]);
    ended_by_itself(&o, "dxt-parser");
    assert_eq!(o.status.code(), Some(255), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("failed to parse DXT_POSIX module record"));
}

/// Found by the mutation harness: darshan-merge spun forever folding the
/// bins of a heatmap whose width was 0 towards its peers' width.
#[test]
fn merging_a_heatmap_of_zero_bin_width_ends() {
    let d = scratch("heat");
    let src = "runtime_heatmap_inactive_ranks__treddy_runtime_heatmap_inactive_ranks.darshan";
    let log = crafted(&d, "heat.darshan", src, |u| set(u, Region::Module(HEATMAP), "HEATMAP bin width", 1, 0));
    let o = run_limited("darshan-merge", &["--output".as_ref(), d.join("m.darshan").as_os_str(), log.as_os_str()]);
    ended_by_itself(&o, "merge");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Found by the mutation harness: an infinite POSIX_F_META_TIME sent the
/// HTML report's chart axis on a search for ticks that never ended.
#[test]
fn a_report_of_infinite_seconds_has_a_note_where_the_chart_was() {
    let d = scratch("inf");
    let log = crafted(&d, "inf.darshan", "imbalanced_io__imbalanced-io.darshan", |u| {
        // POSIX_F_META_TIME is the eleventh fcounter: word 2 + 69 + 10.
        set(u, Region::Module(POSIX), "POSIX word 81", 0, f64::INFINITY.to_bits() as i64)
    });
    let html = d.join("inf.html");
    let o = run_limited("darshan-summary", &[log.as_os_str(), "-o".as_ref(), html.as_os_str()]);
    ended_by_itself(&o, "summary");
    assert_eq!(o.status.code(), Some(0));
    assert!(std::fs::read_to_string(&html).unwrap().contains("chart unavailable"));
}

/// A region that expands more than 1100 times (a decompression bomb: a
/// small file that unpacks to gigabytes) is refused by the reader, so no
/// tool holds more than a bounded multiple of the file's size.
#[test]
fn a_region_that_expands_more_than_1100_times_is_refused() {
    let d = scratch("bomb");
    let mut u = Unpacked::of(&corpus("imbalanced_io__imbalanced-io.darshan")).unwrap();
    u.compression = darshan_log::Compression::Bzip2;
    u.header[16] = darshan_log::Compression::Bzip2.code();
    let names = u.names.clone();
    // 64 MiB of zeros after the names: bzip2 packs it into a few hundred bytes.
    u.names = names.into_iter().chain(std::iter::repeat_n(0u8, 64 << 20)).collect();
    let log = d.join("bomb.darshan");
    let packed = u.pack();
    assert!(packed.len() < 64 << 10, "{} bytes", packed.len());
    std::fs::write(&log, &packed).unwrap();
    let o = run_limited("darshan-parser", &[log.as_os_str()]);
    ended_by_itself(&o, "parser");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(255), "{err}");
    assert!(err.contains("1100 times"), "{err}");
}

fn ingest_and_study(d: &Path, logs: &[PathBuf]) -> Output {
    let db = d.join("f.db");
    let mut args: Vec<&std::ffi::OsStr> = vec!["-q".as_ref(), "--db".as_ref(), db.as_os_str()];
    args.extend(logs.iter().map(|l| l.as_os_str()));
    let o = run_limited("darshan-ingest", &args);
    ended_by_itself(&o, "ingest");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    run_limited("darshan-study", &["--json".as_ref(), "--db".as_ref(), db.as_os_str()])
}

/// Found by the mutation harness: two logs whose POSIX_BYTES_READ is the
/// largest 64-bit value made the study's sums overflow ("query
/// sharing_by_size: integer overflow"): one user's log took the whole
/// facility's study down.
#[test]
fn counters_that_overflow_a_sum_do_not_take_the_study_down() {
    let d = scratch("overflow");
    let logs: Vec<PathBuf> = (0..2)
        .map(|k| {
            crafted(&d, &format!("big-{k}.darshan"), "imbalanced_io__imbalanced-io.darshan", |u| {
                // A different job id each: two logs, not one copy.
                set(u, Region::Job, "job jobid", 0, 1000 + k);
                let read = 2 + darshan_log::counters::posix::BYTES_READ;
                set(u, Region::Module(POSIX), &format!("POSIX word {read}"), 0, i64::MAX);
            })
        })
        .collect();
    let o = ingest_and_study(&d, &logs);
    ended_by_itself(&o, "study");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mix = v["tables"].as_array().unwrap().iter().find(|t| t["name"] == "read_write_mix").unwrap();
    let read: f64 = mix["rows"].as_array().unwrap().iter().map(|r| r[3].as_f64().unwrap()).sum();
    assert!(read >= 2.0 * i64::MAX as f64 * 0.999, "{read}");
}

/// Found by the mutation harness: a job claiming to run from 1970 to
/// 2^40 seconds made the study allocate 2.3 GB of timeline intervals. It
/// is left out of the timeline now, and counted.
#[test]
fn a_job_with_impossible_times_is_left_out_of_the_timeline() {
    let d = scratch("times");
    let liar = crafted(&d, "liar.darshan", "imbalanced_io__imbalanced-io.darshan", |u| {
        set(u, Region::Job, "job start_time", 0, 0);
        set(u, Region::Job, "job end_time", 0, 1 << 40);
    });
    let o = ingest_and_study(&d, &[liar, corpus_path("release_logs__mpi-io-test-x86_64-3.4.7.darshan")]);
    ended_by_itself(&o, "study");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["timeline"]["jobs_left_out"], 1);
    assert!(v["timeline"]["intervals"].as_u64().unwrap() < 1000, "{}", v["timeline"]["intervals"]);
}

fn corpus_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs").join(name)
}

/// darshan-diff of a log whose LUSTRE region was repeated 198 times
/// (imbalanced-io's: 198,198 records of its files, each file's records
/// on many ranks) took 31 s and 139 MB against its bound of 127 MB: each
/// record was inserted in rank order into its id's list (quadratic in one
/// id's records), and LUSTRE's records were kept whole though its diff
/// only ever says it has none. The lists are sorted once now, and a
/// record whose contents are never printed keeps only its id and rank;
/// the output is what it was.
#[test]
fn darshan_diff_of_a_lustre_region_repeated_198_times_went_over_its_memory_bound() {
    let d = scratch("diff-lustre-repeated");
    let log = crafted(&d, "lustre198.darshan", "imbalanced_io__imbalanced-io.darshan", |u| {
        let b = u.region_mut(Region::Module(LUSTRE)).expect("a LUSTRE region");
        let one = b.clone();
        for _ in 1..198 {
            b.extend_from_slice(&one);
        }
    });
    let unpacked = log_mutants::unpacked::decompressed_size(&std::fs::read(&log).unwrap());
    let tool = log_mutants::tools::TOOLS.iter().find(|t| t.label == "darshan-diff").unwrap();
    let mut c = Command::new("/usr/bin/time");
    c.args(["-f", "%M"]).arg(bin("darshan-diff")).arg(&log).arg(&log).stdout(Stdio::null());
    let o = darshan_test_support::output_within(&mut c, Duration::from_secs(120));
    ended_by_itself(&o, "darshan-diff");
    let err = String::from_utf8_lossy(&o.stderr);
    // C's darshan-util's words for a LUSTRE pair.
    let warnings =
        err.lines().filter(|l| *l == "Warning: Darshan Lustre module does not support printing record diffs.").count();
    assert_eq!(warnings, 198 * 1001, "one warning per pair of LUSTRE records, as C's");
    let peak_kib: u64 = err.lines().last().unwrap().trim().parse().unwrap();
    let bound = tool.limit_kib(unpacked);
    assert!(peak_kib < bound, "peak {peak_kib} KiB, bound {bound} KiB ({unpacked} unpacked bytes)");
}
