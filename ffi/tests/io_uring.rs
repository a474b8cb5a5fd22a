//! IO_URING end to end (docs/io-uring.md): programs compiled at test time
//! drive rings through liburing, through syscall(), and with their own
//! syscall instruction (as fio does), and Debian's fio runs its io_uring
//! engine; each log is checked against the known pattern or fio's own
//! JSON totals.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use darshan_log::counters::io_uring as c;
use darshan_log::counters::posix as px;
use darshan_log::modules::{IO_URING, POSIX};

/// name -> (module, record) of the one log in `dir`/logs.
fn records(dir: &Path) -> BTreeMap<(usize, String), darshan_log::Record> {
    let log = darshan_log::LogFile::open(only_log(dir)).unwrap();
    let names = log.names().unwrap();
    let mut out = BTreeMap::new();
    for m in log.modules_present() {
        for r in log.records(m).unwrap() {
            let n = String::from_utf8_lossy(names.get(r.id).unwrap_or(b"?")).into_owned();
            out.insert((m, n), r);
        }
    }
    out
}

fn uring(recs: &BTreeMap<(usize, String), darshan_log::Record>, name: &str) -> Vec<i64> {
    recs.get(&(IO_URING, name.to_string()))
        .unwrap_or_else(|| panic!("no IO_URING record for {name}: {:?}", recs.keys()))
        .counters
        .clone()
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

fn run(exe: &Path, args: &[&str], dir: &Path) -> String {
    let out = output(instrumented(exe, dir).args(args));
    assert!(out.status.success(), "{exe:?}: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn with_liburing(name: &str, dir: &Path) -> PathBuf {
    compile(name, dir, &["-luring", "-pthread"])
}

/// A liburing copy of 16 blocks of 64 KiB and one of 1,000 bytes, four in
/// flight, completions consumed with the inline io_uring_cqe_seen: every
/// request and byte, the size buckets and the sequence, each completion
/// read; the POSIX records of the same files (open, fstat) beside them.
/// With "fixed", the files are registered and used by index.
#[test]
fn a_liburing_copy_is_counted_exactly_with_and_without_registered_files() {
    for mode in ["plain", "fixed"] {
        let d = scratch("uring-copy");
        let exe = with_liburing("uring_copy", &d);
        let (src, dst) = copy_files(&d);
        run(&exe, &[&s(&src), &s(&dst), "65536", "4", mode], &d);
        check_copy(&d, &src, &dst, mode);
    }
}

/// Regression (io_uring_submit failed under the library when liburing was
/// loaded RTLD_LOCAL): a program that reaches liburing through a library
/// it dlopens, as a Python extension module does, had every call of
/// liburing's reach our exported wrapper, which looked for the real one
/// only in the global scope, found none and failed the call. The same
/// copy through the same code must succeed and be counted exactly.
#[test]
fn a_liburing_copy_failed_when_liburing_was_loaded_by_a_dlopened_library() {
    let d = scratch("uring-local");
    let (loader, mut args) = compile_loaded_locally("uring_copy", "cc", &d, &["-luring", "-pthread"]);
    let (src, dst) = copy_files(&d);
    args.extend([s(&src), s(&dst), "65536".into(), "4".into(), "fixed".into()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&loader, &a, &d);
    check_copy(&d, &src, &dst, "fixed");
}

/// A source of 16 blocks of 64 KiB and 1,000 bytes, and the copy's path.
fn copy_files(d: &Path) -> (PathBuf, PathBuf) {
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    std::fs::write(&src, vec![7u8; 16 * 65536 + 1000]).unwrap();
    (src, dst)
}

/// uring_copy's known pattern in the log in `d`, in `mode`.
fn check_copy(d: &Path, src: &Path, dst: &Path, mode: &str) {
    assert_eq!(std::fs::read(dst).unwrap().len(), 16 * 65536 + 1000);
    let recs = records(d);
    for (name, ops, bytes, big, small) in [
        (src, c::READS, c::BYTES_READ, c::SIZE_READ_10K_100K, c::SIZE_READ_100_1K),
        (dst, c::WRITES, c::BYTES_WRITTEN, c::SIZE_WRITE_10K_100K, c::SIZE_WRITE_100_1K),
    ] {
        let w = uring(&recs, &s(name));
        let got = [ops, bytes, big, small, c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN, c::MAX_INFLIGHT].map(|k| w[k]);
        assert_eq!(got, [17, 16 * 65536 + 1000, 16, 1, 17, 0, 4], "{mode} {name:?}");
        assert_eq!(w[c::FIXED_FILE_OPS], if mode == "fixed" { 17 } else { 0 });
        assert_eq!(recs[&(POSIX, s(name))].counters[px::OPENS], 1, "the POSIX record beside it");
    }
    // The process's ring: 4 entries, 4 in flight at most, files
    // registered with "fixed", five rounds of two submitting calls.
    let p = uring(&recs, "<io_uring>");
    let facts = [c::RINGS, c::RING_ENTRIES_MAX, c::RING_MAX_INFLIGHT, c::REGISTERED_FILES, c::SUBMIT_CALLS];
    let registered = if mode == "fixed" { 2 } else { 0 };
    assert_eq!(facts.map(|k| p[k]), [1, 4, 4, registered, 10], "{mode}");
    assert_eq!([c::SQPOLL_RINGS, c::REGISTERED_BUFFERS, c::UNOBSERVED_OPS].map(|k| p[k]), [0, 0, 0]);
}

/// 200 blocks of 4 KiB copied 64 at a time: each io_uring_submit hands
/// the kernel 64 entries, more than the runtime reads in one batch (32).
/// Every request is counted (the second batch of each call was skipped
/// before: liburing's own io_uring-cp lost 65 of its 161 reads).
#[test]
fn a_liburing_copy_submitting_64_at_once_is_counted_exactly() {
    let d = scratch("uring-copy64");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    std::fs::write(&src, vec![2u8; 200 * 4096]).unwrap();
    run(&exe, &[&s(&src), &s(&dst), "4096", "64"], &d);
    let recs = records(&d);
    let (r, w) = (uring(&recs, &s(&src)), uring(&recs, &s(&dst)));
    assert_eq!(
        [r[c::READS], r[c::BYTES_READ], r[c::COMPLETIONS_SEEN], r[c::CONSEC_READS]],
        [200, 200 * 4096, 200, 199]
    );
    assert_eq!([w[c::WRITES], w[c::BYTES_WRITTEN], w[c::COMPLETIONS_SEEN]], [200, 200 * 4096, 200]);
    let p = uring(&recs, "<io_uring>");
    // Four rounds (64, 64, 64, 8), each one read submit and one write submit.
    assert_eq!([p[c::SUBMIT_CALLS], p[c::RING_MAX_INFLIGHT], p[c::UNOBSERVED_OPS]], [8, 64, 0]);
}

/// 6,000 requests in flight on one ring (a copy of 12,000 blocks of 512
/// bytes, 6,000 at a time): the table of requests in flight held 4,096,
/// and each one past them was let go as a completion not seen (1,904 of
/// every round's 6,000: their times and results lost, each counted as a
/// full transfer ending as it began). Every completion is seen now.
#[test]
fn requests_past_the_4096th_in_flight_lost_their_completions() {
    let d = scratch("uring-copy6000");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    std::fs::write(&src, vec![5u8; 12_000 * 512]).unwrap();
    let out = output(instrumented(&exe, &d).args([&s(&src), &s(&dst), "512", "6000"]));
    assert!(out.status.success(), "{:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&dst).unwrap().len(), 12_000 * 512);
    let recs = records(&d);
    let (r, w) = (uring(&recs, &s(&src)), uring(&recs, &s(&dst)));
    let seen = |x: &[i64]| [c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN, c::MAX_INFLIGHT].map(|k| x[k]);
    assert_eq!([r[c::READS], r[c::BYTES_READ]], [12_000, 12_000 * 512]);
    assert_eq!(seen(&r), [12_000, 0, 6_000], "reads");
    assert_eq!([w[c::WRITES], w[c::BYTES_WRITTEN]], [12_000, 12_000 * 512]);
    assert_eq!(seen(&w), [12_000, 0, 6_000], "writes");
    let p = uring(&recs, "<io_uring>");
    assert_eq!([p[c::RING_MAX_INFLIGHT], p[c::UNOBSERVED_OPS]], [6_000, 0]);
}

/// The copy made twice, through a second ring that got the first one's
/// descriptor number after the program closed it with a raw `close` system
/// call (the runtime does not see it). The second ring's requests were all
/// lost: the old ring's cursors (34 entries on) were kept for it, so none
/// of its entries lay past them. Every request of both copies counts, and
/// the process had two rings.
#[test]
fn a_ring_closed_unseen_whose_number_a_new_ring_took_lost_the_new_rings_requests() {
    let d = scratch("uring-twice");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = copy_files(&d);
    run(&exe, &[&s(&src), &s(&dst), "65536", "4", "plain", "twice"], &d);
    let recs = records(&d);
    let (r, w) = (uring(&recs, &s(&src)), uring(&recs, &s(&dst)));
    let bytes = 2 * (16 * 65536 + 1000);
    let seen = [c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN];
    assert_eq!([c::READS, c::BYTES_READ].map(|k| r[k]), [34, bytes]);
    assert_eq!([c::WRITES, c::BYTES_WRITTEN].map(|k| w[k]), [34, bytes]);
    assert_eq!([seen.map(|k| r[k]), seen.map(|k| w[k])], [[34, 0], [34, 0]]);
    // Each copy reads from offset 0 again: 16 consecutive reads per copy.
    assert_eq!([r[c::CONSEC_READS], w[c::CONSEC_WRITES]], [32, 32]);
    let p = uring(&recs, "<io_uring>");
    assert_eq!([c::RINGS, c::SUBMIT_CALLS, c::UNOBSERVED_OPS].map(|k| p[k]), [2, 20, 0]);
}

/// POSIX and io_uring on the same files (the copy, then a pread of 1,000
/// bytes of the source and a pwrite of 4,096 after the copied bytes):
/// each file has both records, each with its own calls only.
#[test]
fn posix_and_io_uring_on_one_file_each_get_their_record() {
    let d = scratch("uring-mix");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    const SIZE: i64 = 16 * 65536 + 1000;
    std::fs::write(&src, vec![8u8; SIZE as usize]).unwrap();
    run(&exe, &[&s(&src), &s(&dst), "65536", "4", "plain", "mix"], &d);
    assert_eq!(std::fs::metadata(&dst).unwrap().len() as i64, SIZE + 4096);
    let recs = records(&d);
    let (u_src, u_dst) = (uring(&recs, &s(&src)), uring(&recs, &s(&dst)));
    assert_eq!([u_src[c::READS], u_src[c::BYTES_READ], u_src[c::WRITES]], [17, SIZE, 0]);
    assert_eq!([u_dst[c::WRITES], u_dst[c::BYTES_WRITTEN], u_dst[c::READS]], [17, SIZE, 0]);
    let (p_src, p_dst) = (&recs[&(POSIX, s(&src))].counters, &recs[&(POSIX, s(&dst))].counters);
    assert_eq!([p_src[px::READS], p_src[px::BYTES_READ], p_src[px::WRITES]], [1, 1000, 0]);
    assert_eq!([p_dst[px::WRITES], p_dst[px::BYTES_WRITTEN], p_dst[px::READS]], [1, 4096, 0]);
    assert_eq!(p_dst[px::MAX_BYTE_WRITTEN], SIZE + 4095, "POSIX's own extent, not the ring's");
}

/// A ring driven with syscall() alone (no liburing): three 8 KiB writes.
#[test]
fn a_ring_driven_through_syscall_is_counted_exactly() {
    let d = scratch("uring-raw");
    let exe = compile("uring_raw", &d, &[]);
    let f = d.join("data/raw.dat");
    run(&exe, &[&s(&f), "3"], &d);
    let w = uring(&records(&d), &s(&f));
    let got = [c::WRITES, c::BYTES_WRITTEN, c::SIZE_WRITE_1K_10K, c::CONSEC_WRITES, c::COMPLETIONS_SEEN].map(|k| w[k]);
    assert_eq!(got, [3, 3 * 8192, 3, 2, 3]);
}

/// A program that enters the kernel with its own syscall instruction:
/// the runtime never reads its submissions, and the log says how many
/// there were (the kernel's submission cursor when the ring ends).
#[cfg(target_arch = "x86_64")]
#[test]
fn submissions_the_runtime_cannot_see_are_counted_as_unobserved() {
    let d = scratch("uring-inline");
    let exe = compile("uring_raw", &d, &[]);
    let f = d.join("data/inline.dat");
    run(&exe, &[&s(&f), "7", "inline"], &d);
    let recs = records(&d);
    assert_eq!(uring(&recs, "<io_uring>")[c::UNOBSERVED_OPS], 7);
    assert!(!recs.contains_key(&(IO_URING, s(&f))), "nothing was seen of the file's requests");
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 7 * 8192);
}

/// A ring left mapped and open when the program ends is read a last time
/// at shutdown: submissions made with the program's own syscall
/// instruction are counted as unobserved (they were lost before); one
/// driven through syscall() is counted once, not again.
#[test]
fn a_ring_left_open_at_exit_is_read_a_last_time() {
    let d = scratch("uring-keep");
    let exe = compile("uring_raw", &d, &[]);
    let f = d.join("data/kept.dat");
    run(&exe, &[&s(&f), "3", "keep"], &d);
    let recs = records(&d);
    let w = uring(&recs, &s(&f));
    assert_eq!([c::WRITES, c::BYTES_WRITTEN, c::COMPLETIONS_SEEN].map(|k| w[k]), [3, 3 * 8192, 3]);
    assert_eq!(uring(&recs, "<io_uring>")[c::UNOBSERVED_OPS], 0, "nothing counted twice");
    #[cfg(target_arch = "x86_64")]
    {
        let d = scratch("uring-keep-inline");
        let f = d.join("data/kept.dat");
        run(&exe, &[&s(&f), "5", "inline", "keep"], &d);
        assert_eq!(uring(&records(&d), "<io_uring>")[c::UNOBSERVED_OPS], 5);
    }
}

/// One ring per thread, four threads: each file its own eight writes.
#[test]
fn rings_of_several_threads_are_counted_apart() {
    let d = scratch("uring-threads");
    let exe = with_liburing("uring_threads", &d);
    let out = run(&exe, &[&s(&d.join("data"))], &d);
    assert_eq!(out.trim(), "done");
    let recs = records(&d);
    for t in 0..4 {
        let w = uring(&recs, &s(&d.join(format!("data/t{t}.dat"))));
        assert_eq!([c::WRITES, c::BYTES_WRITTEN, c::COMPLETIONS_SEEN].map(|k| w[k]), [8, 32768, 8], "thread {t}");
    }
    assert_eq!(uring(&recs, "<io_uring>")[c::RINGS], 4, "the process's rings, one per thread");
}

/// Regression (one run in twenty of the test above lost a thread's
/// writes): liburing's `io_uring_queue_exit` closes the ring with its own
/// system call, and the ring was forgotten after it, by descriptor number;
/// another thread's new ring, set up in between with the same number, was
/// the one forgotten, and its writes went uncounted. Four threads, each
/// with 100 rings in turn: every write and every ring counted.
#[test]
fn a_ring_torn_down_by_one_thread_took_another_threads_new_ring_with_it() {
    const ROUNDS: i64 = 100;
    let d = scratch("uring-churn");
    let exe = with_liburing("uring_threads", &d);
    let out = run(&exe, &[&s(&d.join("data")), &ROUNDS.to_string()], &d);
    assert_eq!(out.trim(), "done");
    let recs = records(&d);
    for t in 0..4 {
        let w = uring(&recs, &s(&d.join(format!("data/t{t}.dat"))));
        let want = [8 * ROUNDS, 32768 * ROUNDS, 8 * ROUNDS];
        assert_eq!([c::WRITES, c::BYTES_WRITTEN, c::COMPLETIONS_SEEN].map(|k| w[k]), want, "thread {t}");
    }
    assert_eq!(uring(&recs, "<io_uring>")[c::RINGS], 4 * ROUNDS, "every ring");
}

/// 40 rings at once in one process (as fio --thread --numjobs=40), each
/// writing its own file through a file registered at index 300 + ring,
/// whose descriptor the program closed once it was registered: rings past
/// the 16th were not followed (the module was marked partial), files
/// registered past a ring's 256th slot were unnamed, and a registered
/// file's descriptor closed before its requests left them nameless (no
/// file had a record). Every write counts now.
#[test]
fn rings_past_the_16th_and_files_past_the_256th_slot_were_not_followed() {
    const RINGS: i64 = 40;
    let d = scratch("uring-many-rings");
    let exe = with_liburing("uring_many_rings", &d);
    let out = run(&exe, &[&s(&d.join("data")), &RINGS.to_string(), "300"], &d);
    assert_eq!(out.trim(), "done");
    let recs = records(&d);
    for r in 0..RINGS {
        let w = uring(&recs, &s(&d.join(format!("data/r{r}.dat"))));
        let got = [c::WRITES, c::BYTES_WRITTEN, c::COMPLETIONS_SEEN, c::FIXED_FILE_OPS].map(|k| w[k]);
        assert_eq!(got, [8, 32768, 8, 8], "ring {r}");
    }
    let p = uring(&recs, "<io_uring>");
    let facts = [c::RINGS, c::REGISTERED_FILES, c::UNOBSERVED_OPS].map(|k| p[k]);
    assert_eq!(facts, [RINGS, RINGS, 0]);
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    assert!(!log.header.is_partial(IO_URING), "IO_URING marked partial");
}

/// Files a ring put in its registered slots itself (tests/programs/
/// uring_direct.c): opened "direct" into a chosen slot (its path relative
/// to a directory descriptor; write and close linked in one submission),
/// into a slot the kernel picked, and put there by the ring's own files
/// update. Their requests counted as unobserved (the slot was never
/// named), or for the file registered at that slot before (the write to
/// e.dat after a failed open into its slot is e.dat's, as the kernel
/// leaves the slot). Each file's writes and bytes are the program's.
#[test]
fn requests_on_files_a_ring_opened_into_its_slots_were_not_counted_for_them() {
    let d = scratch("uring-direct");
    let exe = with_liburing("uring_direct", &d);
    let data = d.join("data");
    let out = run(&exe, &[&s(&data)], &d);
    assert!(out.starts_with("done"), "{out}");
    let recs = records(&d);
    let want = [("a.dat", 1, 100, 0), ("e.dat", 1, 300, 0), ("b.dat", 1, 8192, 2), ("c.dat", 3, 12288, 2)];
    for (name, writes, bytes, opens_and_closes) in want.into_iter().chain([("d.dat", 1, 1000, 0)]) {
        let path = s(&data.join(name));
        assert_eq!(std::fs::metadata(&path).unwrap().len() as i64, bytes, "{name} on disk");
        let w = uring(&recs, &path);
        assert_eq!(
            [c::WRITES, c::BYTES_WRITTEN, c::META_OPS].map(|k| w[k]),
            [writes, bytes, opens_and_closes],
            "{name}"
        );
        assert_eq!(w[c::ERRORS], 0, "{name}");
    }
    let missing = uring(&recs, &s(&data.join("missing/x.dat")));
    assert_eq!([c::META_OPS, c::ERRORS, c::WRITES].map(|k| missing[k]), [1, 1, 0], "the failed open");
    let p = uring(&recs, "<io_uring>");
    assert_eq!([c::UNOBSERVED_OPS, c::REGISTERED_FILES].map(|k| p[k]), [0, 3], "a.dat, e.dat, d.dat registered");
}

/// Sockets a ring accepted (multishot) or made into registered slots the
/// kernel picked: each slot is a completion's result. Their writes
/// counted as unobserved requests (no file named at the slot); they are
/// no file's, and every request of the program was read, so none is
/// unobserved. The file written through the same ring is counted as
/// written.
#[test]
fn writes_on_sockets_in_slots_the_kernel_picked_counted_as_unobserved() {
    let d = scratch("uring-accept");
    let exe = with_liburing("uring_accept", &d);
    let data = d.join("data");
    let out = run(&exe, &[&s(&data)], &d);
    assert!(out.starts_with("done"), "{out}");
    let recs = records(&d);
    let f = uring(&recs, &s(&data.join("f.dat")));
    assert_eq!([c::WRITES, c::BYTES_WRITTEN].map(|k| f[k]), [1, 4096], "f.dat");
    let p = uring(&recs, "<io_uring>");
    assert_eq!([c::UNOBSERVED_OPS, c::RINGS].map(|k| p[k]), [0, 1], "two accepted sockets' writes and a datagram's");
}

/// syscall() with every other number behaves exactly as without the
/// runtime: getpid, gettid, futex waits (value mismatch, timeout), an
/// invalid number (ENOSYS).
#[test]
fn syscall_passes_every_other_number_through_unchanged() {
    let d = scratch("syscall-pass");
    let exe = compile("syscall_pass", &d, &[]);
    let plain = output(&mut std::process::Command::new(&exe));
    let under = run(&exe, &[], &d);
    assert!(plain.status.success());
    assert_eq!(under, String::from_utf8_lossy(&plain.stdout));
    assert_eq!(under.matches(" 1\n").count(), 5, "every check held: {under}");
}

/// fio's (3.33, Debian's) json totals of one job: (ios, bytes) read and
/// written.
fn fio_totals(json: &str) -> [(i64, i64); 2] {
    let v: serde_json::Value = serde_json::from_str(json).expect("fio's JSON");
    let job = &v["jobs"][0];
    ["read", "write"].map(|d| (job[d]["total_ios"].as_i64().unwrap(), job[d]["io_bytes"].as_i64().unwrap()))
}

/// fio's io_uring engine enters the kernel with its own syscall
/// instruction on x86-64 (FIO_ARCH_HAS_SYSCALL): none of its requests can
/// be read, and every one is accounted for as unobserved, its count equal
/// to fio's own total. fio's results under the runtime are those asked for.
#[test]
fn fio_io_uring_requests_are_all_accounted_for() {
    if !Path::new("/usr/bin/fio").exists() {
        panic!("fio is not installed (scripts/setup.sh installs it)");
    }
    for args in [
        &["--rw=write", "--bs=4k", "--size=2m", "--iodepth=32"][..],
        &["--rw=randread", "--bs=16k", "--size=2m", "--iodepth=8", "--registerfiles", "--fixedbufs"][..],
        &["--rw=readwrite", "--bs=8k", "--size=1m", "--iodepth=4", "--thread"][..],
        &["--rw=write", "--bs=4k", "--size=2m", "--iodepth=16", "--sqthread_poll=1"][..],
    ] {
        let d = scratch("fio-uring");
        let f = d.join("data/fio.dat");
        let mut cmd = instrumented(Path::new("/usr/bin/fio"), &d);
        cmd.args(["--name=t", "--ioengine=io_uring", "--output-format=json"])
            .args(args)
            .arg(format!("--filename={}", s(&f)));
        let out = output(&mut cmd);
        assert!(out.status.success(), "fio {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let [(r, rb), (w, wb)] = fio_totals(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(rb + wb, if args.contains(&"--size=1m") { 1 << 20 } else { 2 << 20 }, "fio moved what was asked");
        // One log per fio process; the job's holds the ring.
        let unobserved: i64 = process_records(&d).iter().map(|r| r[c::UNOBSERVED_OPS]).sum();
        assert_eq!(unobserved, r + w, "fio {args:?}");
        // Its ring, set up and registered through syscall(): as asked.
        let depth = args.iter().find_map(|a| a.strip_prefix("--iodepth=")).unwrap().parse::<i64>().unwrap();
        let has = |a: &str| i64::from(args.contains(&a));
        // fio registers its files for an SQPOLL ring whether asked or not
        // (engines/io_uring.c: sqpoll_thread sets registerfiles).
        let rings = process_records(&d);
        let sum = |k: usize| rings.iter().map(|r| r[k]).sum::<i64>();
        let got = [c::RINGS, c::RING_ENTRIES_MAX, c::SQPOLL_RINGS, c::REGISTERED_FILES, c::REGISTERED_BUFFERS].map(sum);
        let want = [
            1,
            (depth as u64).next_power_of_two() as i64,
            has("--sqthread_poll=1"),
            has("--registerfiles").max(has("--sqthread_poll=1")),
            has("--fixedbufs") * depth,
        ];
        assert_eq!(got, want, "fio {args:?}");
    }
}

/// fio with 32 threads in one process, each with its ring and its own
/// registered file: the runtime followed 16 rings, so half of fio's
/// requests went unaccounted for and IO_URING was marked partial. Now
/// every ring is followed and the unobserved count is fio's own total.
#[test]
fn fio_with_32_threads_had_half_its_rings_not_followed() {
    let d = scratch("fio-uring-threads");
    let mut cmd = instrumented(Path::new("/usr/bin/fio"), &d);
    cmd.args(["--name=t", "--ioengine=io_uring", "--output-format=json", "--thread", "--numjobs=32"])
        .args(["--rw=randread", "--bs=4k", "--size=256k", "--iodepth=8", "--registerfiles"])
        .arg(format!("--directory={}", s(&d.join("data"))))
        .arg("--filename_format=f.$jobnum");
    let out = output(&mut cmd);
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fio's JSON");
    let jobs = v["jobs"].as_array().unwrap();
    let ios: i64 = jobs.iter().map(|j| j["read"]["total_ios"].as_i64().unwrap()).sum();
    assert_eq!((jobs.len(), ios), (32, 32 * 64), "fio did what was asked");
    let p = process_records(&d);
    assert_eq!(p.len(), 1, "one process");
    assert_eq!([c::RINGS, c::REGISTERED_FILES, c::UNOBSERVED_OPS].map(|k| p[0][k]), [32, 32, ios]);
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    assert!(!log.header.is_partial(IO_URING), "IO_URING marked partial");
}

/// The `<io_uring>` records (the processes' rings) of every log in `dir`/logs.
fn process_records(dir: &Path) -> Vec<Vec<i64>> {
    files(&dir.join("logs"))
        .iter()
        .filter_map(|l| {
            let log = darshan_log::LogFile::open(l).ok()?;
            let names = log.names().ok()?;
            let recs = log.records(IO_URING).ok()?;
            recs.iter().find(|r| names.get(r.id) == Some(&b"<io_uring>"[..])).map(|r| r.counters.clone())
        })
        .collect()
}

/// The facility tools on a liburing copy (16 blocks of 64 KiB and one of
/// 1,000 bytes each way): darshan-ingest keeps its IO_URING records, and
/// darshan-study counts the job among the io_uring users, draws its
/// request sizes and adds its bytes (they are no other module's) to the
/// job's bytes read and written.
#[test]
fn the_facility_study_counts_a_ring_copy() {
    let d = scratch("uring-study");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    const SIZE: f64 = (16 * 65536 + 1000) as f64;
    std::fs::write(&src, vec![5u8; SIZE as usize]).unwrap();
    run(&exe, &[&s(&src), &s(&dst), "65536", "4"], &d);
    let db = d.join("facility.sqlite");
    let ingest =
        output(std::process::Command::new(built("darshan-ingest")).arg("-q").arg("--db").arg(&db).arg(d.join("logs")));
    assert!(ingest.status.success(), "{}", String::from_utf8_lossy(&ingest.stderr));
    let study = output(std::process::Command::new(built("darshan-study")).arg("--json").arg("--db").arg(&db));
    assert!(study.status.success(), "{}", String::from_utf8_lossy(&study.stderr));
    let v: serde_json::Value = serde_json::from_slice(&study.stdout).unwrap();
    let table = |name: &str| -> BTreeMap<String, serde_json::Value> {
        let t = v["tables"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
        let cols = t["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string());
        cols.zip(t["rows"][t["rows"].as_array().unwrap().len() - 1].as_array().unwrap().iter().cloned()).collect()
    };
    assert_eq!(table("interfaces_by_size")["io_uring"], 1);
    // A job without MPI-IO: no MPI-IO row (it drew an empty chart).
    let sizes_table = v["tables"].as_array().unwrap().iter().find(|t| t["name"] == "access_sizes").unwrap();
    let interfaces: Vec<&str> =
        sizes_table["rows"].as_array().unwrap().iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(interfaces, ["POSIX", "IO_URING"]);
    let sizes = table("access_sizes");
    assert_eq!(sizes["interface"], "IO_URING");
    let got =
        ["read_10k_100k", "read_100_1k", "write_10k_100k", "write_100_1k", "read_1m_4m"].map(|k| sizes[k].as_f64());
    assert_eq!(got, [16.0, 1.0, 16.0, 1.0, 0.0].map(Some));
    let mix = table("read_write_mix");
    assert_eq!(mix["bytes_read"].as_f64(), Some(SIZE), "POSIX read nothing: every byte is the ring's");
    let line = format!("copied {} bytes\n", SIZE as i64);
    assert_eq!(
        mix["bytes_written"].as_f64(),
        Some(SIZE + line.len() as f64),
        "the ring's bytes and the line on stdout"
    );
}

/// darshan-summary's io_uring findings on copies of known shape (times
/// gated at 1 ms, so the rules, not this machine's speed, decide):
/// * 8 MiB in 4 KiB blocks, one at a time: U01 (one request at a time)
///   and U02 (small requests in file order); the opens' share of POSIX
///   time (X02) is not said, the data time being the ring's;
/// * the same four at a time: U02 only;
/// * 16 blocks of 64 KiB and one of 1,000 bytes, four at a time: nothing
///   about io_uring (17 requests each way are no pattern); with the stall
///   threshold at 0 s, its slowest request is said (U03); with 10
///   requests enough for a pattern, U02;
/// * 24 blocks of 1 MiB, four at a time, with 10 requests enough: nothing
///   (U02 called a stripe-sized request small: the 100K_1M bucket holds
///   requests of exactly 1 MiB too).
#[test]
fn io_uring_findings_fit_the_copies_known_shapes() {
    let d = scratch("uring-findings");
    let exe = with_liburing("uring_copy", &d);
    let (config, stall, few) = (d.join("thresholds.json"), d.join("stall.json"), d.join("few.json"));
    std::fs::write(&config, r#"{"min_time": 0.001}"#).unwrap();
    std::fs::write(&stall, r#"{"min_time": 0.001, "uring_stall": 0}"#).unwrap();
    std::fs::write(&few, r#"{"min_time": 0.001, "small_requests_absolute": 10}"#).unwrap();
    for (size, block, depth, want, cfg) in [
        (8 << 20, "4096", "1", &["U01", "U02"][..], &config),
        (8 << 20, "4096", "4", &["U02"][..], &config),
        (16 * 65536 + 1000, "65536", "4", &[][..], &config),
        (16 * 65536 + 1000, "65536", "4", &["U03"][..], &stall),
        (16 * 65536 + 1000, "65536", "4", &["U02"][..], &few),
        (24 << 20, "1048576", "4", &[][..], &few),
    ] {
        let run_dir = scratch("uring-findings-run");
        let (src, dst) = (run_dir.join("data/src.dat"), run_dir.join("data/dst.dat"));
        std::fs::write(&src, vec![9u8; size]).unwrap();
        run(&exe, &[&s(&src), &s(&dst), block, depth], &run_dir);
        let out = output(
            std::process::Command::new(built("darshan-summary"))
                .args(["--json", "-o", "-", "--config"])
                .arg(cfg)
                .arg(only_log(&run_dir)),
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let codes: Vec<&str> = r["findings"].as_array().unwrap().iter().filter_map(|f| f["code"].as_str()).collect();
        let ours: Vec<&str> = codes.iter().copied().filter(|c| c.starts_with('U')).collect();
        assert_eq!(ours, want, "{block} B blocks, {depth} in flight: {codes:?}");
        assert!(!codes.contains(&"X02"), "metadata's share of POSIX time is not the job's: {codes:?}");
        let rings = &r["io_uring"]["rings"];
        assert_eq!(rings["max_inflight"].as_i64(), Some(depth.parse().unwrap()), "{rings}");
    }
}

/// With DXT on, every io_uring read and write of the liburing copy is a
/// DXT_IO_URING segment: the source's 17 reads and the destination's 17
/// writes at the blocks' offsets and lengths, each ending no earlier than
/// it started; darshan-dxt-parser prints them as X_IO_URING, and the
/// POSIX trace holds none of them.
#[test]
fn dxt_traces_every_io_uring_request_of_a_copy() {
    let d = scratch("uring-dxt");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    std::fs::write(&src, vec![4u8; 16 * 65536 + 1000]).unwrap();
    let out = output(instrumented(&exe, &d).args([&s(&src), &s(&dst), "65536", "4"]).env("DXT_ENABLE_IO_TRACE", "1"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log_path = only_log(&d);
    let log = darshan_log::LogFile::open(&log_path).unwrap();
    let names = log.names().unwrap();
    let mut want: Vec<(i64, i64)> = (0..16).map(|k| (k * 65536, 65536)).collect();
    want.push((16 * 65536, 1000));
    let traces = log.records(darshan_log::modules::DXT_IO_URING).unwrap();
    for (file, is_write) in [(&src, false), (&dst, true)] {
        let r = traces.iter().find(|r| names.get(r.id) == Some(s(file).as_bytes())).expect("a trace of the file");
        let darshan_log::Extra::Dxt { writes, reads, .. } = &r.extra else { panic!("not a trace") };
        let (segs, none) = if is_write { (writes, reads) } else { (reads, writes) };
        assert!(none.is_empty(), "{file:?}");
        let mut got: Vec<(i64, i64)> = segs.iter().map(|g| (g.offset, g.length)).collect();
        got.sort();
        assert_eq!(got, want, "{file:?}");
        assert!(segs.iter().all(|g| g.start_time <= g.end_time && g.start_time >= 0.0), "{segs:?}");
    }
    let posix_segments: usize = log
        .records(darshan_log::modules::DXT_POSIX)
        .map(|v| {
            v.iter()
                .map(|r| match &r.extra {
                    darshan_log::Extra::Dxt { writes, reads, .. } => writes.len() + reads.len(),
                    _ => 0,
                })
                .sum()
        })
        .unwrap_or(0);
    assert_eq!(posix_segments, 0, "the ring's requests are not POSIX's");
    let printed = output(std::process::Command::new(built("darshan-dxt-parser")).arg(&log_path));
    assert!(printed.status.success());
    let text = String::from_utf8_lossy(&printed.stdout);
    assert_eq!(text.lines().filter(|l| l.starts_with("X_IO_URING")).count(), 34, "{text}");
    assert!(text.contains("# DXT_IO_URING module data"), "{text}");
}

/// Two tasks of one job (as srun starts them, without MPI) copy the same
/// source through liburing, each to its own file; `darshan-merge --job`
/// makes the job's log as for POSIX: the source read by every task is one
/// shared record (rank -1) with both tasks' requests, each destination
/// stays its task's, and the processes' `<io_uring>` records become one
/// (two rings, the largest four entries, four in flight at most, twenty
/// submitting calls).
#[test]
fn a_job_of_ring_copies_merges_as_posix_does() {
    let d = scratch("uring-job");
    let exe = with_liburing("uring_copy", &d);
    let src = d.join("data/src.dat");
    const SIZE: i64 = 16 * 65536 + 1000;
    std::fs::write(&src, vec![6u8; SIZE as usize]).unwrap();
    for rank in ["0", "1"] {
        let dst = d.join(format!("data/dst.{rank}"));
        let mut cmd = instrumented(&exe, &d);
        cmd.args([&s(&src), &s(&dst), "65536", "4"]);
        cmd.env("SLURM_PROCID", rank).env("SLURM_NTASKS", "2").env("SLURM_JOB_ID", "5252").env("SLURM_STEP_ID", "0");
        let out = output(&mut cmd);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let job = d.join("job.darshan");
    let o = output(
        std::process::Command::new(built("darshan-merge")).arg("--job").arg("--output").arg(&job).arg(d.join("logs")),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let log = darshan_log::LogFile::open(&job).unwrap();
    let names = log.names().unwrap();
    let recs = log.records(IO_URING).unwrap();
    let find = |name: &str| -> Vec<&darshan_log::Record> {
        recs.iter().filter(|r| names.get(r.id) == Some(name.as_bytes())).collect()
    };
    let shared = find(&s(&src));
    assert_eq!(shared.len(), 1, "one record for the shared source");
    assert_eq!(shared[0].rank, -1);
    assert_eq!([c::READS, c::BYTES_READ].map(|k| shared[0].counters[k]), [34, 2 * SIZE]);
    for rank in [0, 1] {
        let own = find(&s(&d.join(format!("data/dst.{rank}"))));
        assert_eq!(own.len(), 1);
        assert_eq!((own[0].rank, own[0].counters[c::WRITES], own[0].counters[c::BYTES_WRITTEN]), (rank, 17, SIZE));
    }
    let p = find("<io_uring>");
    assert_eq!(p.len(), 1, "the processes' records are one");
    let facts = [c::RINGS, c::RING_ENTRIES_MAX, c::RING_MAX_INFLIGHT, c::SUBMIT_CALLS].map(|k| p[0].counters[k]);
    assert_eq!(facts, [2, 4, 4, 20]);
}

/// darshan-diff compares our modules too (C's tools do not see them): the
/// same liburing copy in 64 KiB and in 4 KiB blocks differs in its
/// io_uring reads (17 against 257) and its processes' submitting calls,
/// not in its bytes.
#[test]
fn darshan_diff_shows_the_io_uring_counters_that_moved() {
    let d = scratch("uring-diff");
    let exe = with_liburing("uring_copy", &d);
    let src = d.join("data/src.dat");
    std::fs::write(&src, vec![1u8; 16 * 65536 + 1000]).unwrap();
    let mut logs = Vec::new();
    for block in ["65536", "4096"] {
        // Each run's log in its own directory; the same files in both.
        let run_dir = scratch("uring-diff-run");
        run(&exe, &[&s(&src), &s(&d.join("data/dst.dat")), block, "4"], &run_dir);
        logs.push(only_log(&run_dir));
    }
    let o = output(std::process::Command::new(built("darshan-diff")).args(&logs));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let value = |sign: &str, counter: &str| -> Option<i64> {
        text.lines()
            .find(|l| l.starts_with(sign) && l.contains(&format!("\t{counter}\t")) && l.contains(&s(&src)))
            .and_then(|l| l.split('\t').nth(4)?.parse().ok())
    };
    assert_eq!((value("- IO_URING", "IO_URING_READS"), value("+ IO_URING", "IO_URING_READS")), (Some(17), Some(257)));
    assert_eq!(value("- IO_URING", "IO_URING_BYTES_READ"), None, "the bytes did not move: {text}");
    assert!(text.lines().any(|l| l.starts_with("- IO_URING") && l.contains("\tIO_URING_SUBMIT_CALLS\t")), "{text}");
}

/// A process without liburing looked up its 14 functions at start-up,
/// each a failing `dlsym` (9-12 us of every process's start); then every
/// process still looked up the other 180 wrapped names (45-70 us). Now a
/// wrapper finds its function at its first call in the loaded objects'
/// tables, without the loader: the loader's trace (LD_DEBUG=symbols) of
/// `/bin/true` shows only the names the constructor checks against
/// `dlsym` (`open`), none of liburing's or the others' (`pread64`); a
/// program linked with liburing (whose own references make the loader
/// look up liburing's names) still has its ring's requests counted, its
/// functions found in liburing's tables.
#[test]
fn a_process_without_liburing_looked_up_each_of_its_functions_at_start() {
    let looked_up = |exe: &Path, args: &[&str], tag: &str| {
        let d = scratch(tag);
        let trace = d.join("trace");
        std::fs::create_dir_all(&trace).unwrap();
        let out = output(
            instrumented(exe, &d).args(args).env("LD_DEBUG", "symbols").env("LD_DEBUG_OUTPUT", trace.join("ld")),
        );
        assert!(out.status.success(), "{exe:?}: {:?}", out.status);
        let text: String = files(&trace).iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        let asked = ["symbol=open;", "symbol=io_uring_submit;", "symbol=io_uring_wait_cqes;", "symbol=pread64;"]
            .map(|s| text.contains(s));
        (asked, d)
    };
    assert_eq!(looked_up(Path::new("/bin/true"), &[], "uring-absent").0, [true, false, false, false]);
    let d = scratch("uring-present");
    let exe = with_liburing("uring_copy", &d);
    let (src, dst) = copy_files(&d);
    let (asked, run_dir) = looked_up(&exe, &[&s(&src), &s(&dst), "65536", "4"], "uring-present");
    assert!(!asked[3], "pread64 looked up by the loader");
    let recs = records(&run_dir);
    assert_eq!(uring(&recs, &s(&src))[c::READS], 17, "the ring's reads counted");
}
