//! A root darshan-stream reads every user's crash-safe files: a file put
//! where one is looked for is hostile until checked. Nothing in it makes
//! the reader wait, follow a link, or allocate what the file claims.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use darshan_live::snapshot::{take, MAX_FILE_BYTES};
use darshan_live::{find_files, LiveError};
use darshan_log::crash_safe::NAMES_OFF;
use darshan_log::header::{Compression, Header, LogVersion, RegionMap, HEADER_SIZE};
use darshan_log::modules::{MAX_MODS, POSIX};

/// A fresh directory under cargo's target/tmp (never /tmp).
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("live-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `take` on another thread, given 10 s: a reader that waits is a failure.
fn take_within(path: &Path) -> Result<darshan_live::Snapshot, LiveError> {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(take(&p, None));
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("the reader waited")
}

/// A crash-safe header whose POSIX region claims `len` bytes at the end
/// of a sparse file of that size.
fn sparse_claiming(path: &Path, len: u64) {
    let off = NAMES_OFF as u64;
    let mut mod_map = [RegionMap::default(); MAX_MODS];
    mod_map[POSIX] = RegionMap { off, len };
    let mut mod_ver = [0u32; MAX_MODS];
    mod_ver[POSIX] = 4;
    let h = Header {
        version: LogVersion::V341,
        swapped: false,
        compression: Compression::None,
        partial_flag: 0,
        job_map: RegionMap { off: HEADER_SIZE as u64, len: off - HEADER_SIZE as u64 },
        name_map: RegionMap::default(),
        mod_map,
        mod_ver,
    };
    let f = std::fs::File::create(path).unwrap();
    f.set_len(off + len).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&h.encode(), 0).unwrap();
}

#[test]
fn a_fifo_named_like_a_crash_safe_file_is_neither_listed_nor_waited_on() {
    let d = scratch("fifo");
    let p = d.join("u_prog_id1_mmap-log-1-0.darshan");
    let st = darshan_test_support::status(std::process::Command::new("mkfifo").arg(&p));
    assert!(st.success());
    assert!(find_files(std::slice::from_ref(&d), 0).is_empty(), "listed");
    assert!(matches!(take_within(&p), Err(LiveError::NotAFile { .. })));
}

#[test]
fn a_link_named_like_a_crash_safe_file_is_not_followed() {
    let d = scratch("link");
    let target = d.join("target.darshan");
    sparse_claiming(&target, 4096);
    let p = d.join("u_prog_id1_mmap-log-1-0.darshan");
    std::os::unix::fs::symlink(&target, &p).unwrap();
    assert!(find_files(std::slice::from_ref(&d), 0).is_empty(), "listed");
    // A link another user owns is never followed (a root daemon's own
    // links are its own to trust): made another user's where we can.
    if std::os::unix::fs::lchown(&p, Some(65534), Some(65534)).is_ok() {
        assert!(matches!(take_within(&p), Err(LiveError::NotAFile { .. })), "opened through the link");
    }
}

#[test]
fn a_file_claiming_gigabytes_of_records_is_refused_not_allocated() {
    let d = scratch("sparse");
    let p = d.join("u_prog_id1_mmap-log-1-0.darshan");
    sparse_claiming(&p, 16 << 30);
    match take_within(&p) {
        Err(LiveError::TooLarge { bytes, .. }) => assert_eq!(bytes, 16 << 30),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(&p);
    // Within the limit, the same lie is read (zeros decode to nothing
    // harmful) or refused as a bad log, never a panic.
    let small = d.join("u_prog_id2_mmap-log-1-0.darshan");
    sparse_claiming(&small, MAX_FILE_BYTES / 64);
    let _ = take_within(&small);
    let _ = std::fs::remove_dir_all(&d);
}

/// What this process is (the owner of the files it makes).
fn my_uid() -> i64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| i64::from(m.uid())).unwrap()
}

/// A crash-safe file with no records whose job says it is `uid`'s.
fn saying_uid(path: &Path, uid: i64) {
    sparse_claiming(path, 0);
    let job = darshan_log::Job {
        uid,
        start_time_sec: 1,
        start_time_nsec: 0,
        end_time_sec: 0,
        end_time_nsec: 0,
        nprocs: 1,
        jobid: 7,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
        exe_mnt: b"prog\n".to_vec(),
    };
    use std::os::unix::fs::FileExt;
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .write_all_at(&job.encode(), HEADER_SIZE as u64)
        .unwrap();
}

/// A copy of a crash-safe file with its uid patched was published under
/// that uid: a file is its owner's, and one saying otherwise is refused.
#[test]
fn a_file_saying_it_is_another_users_is_refused() {
    let d = scratch("uid");
    let p = d.join("u_prog_id7_mmap-log-1-0.darshan");
    saying_uid(&p, my_uid() + 1001);
    match take_within(&p) {
        Err(LiveError::ForeignUid { says, owner, .. }) => {
            assert_eq!((says, i64::from(owner)), (my_uid() + 1001, my_uid()))
        }
        other => panic!("{other:?}"),
    }
    // The same file saying its owner's uid is read, under that uid.
    saying_uid(&p, my_uid());
    let s = take_within(&p).unwrap();
    assert_eq!(i64::from(s.owner), my_uid());
    // The tracker counts the refusal and reports nothing under the lie.
    saying_uid(&p, my_uid() + 1001);
    let iv = darshan_live::Tracker::new(Vec::new()).interval(std::slice::from_ref(&p));
    assert!(iv.processes.is_empty() && iv.refused.len() == 1 && iv.refused[0].contains("refused"), "{:?}", iv.refused);
    let _ = std::fs::remove_dir_all(&d);
}

/// A sparse file claiming 200 MiB of records (764 KiB on disk) cost
/// darshan-top 850 MB: records claimed but not held are refused before
/// anything is allocated for them, and the tool stays small.
#[test]
fn records_a_file_claims_but_does_not_hold_are_refused_unallocated() {
    let d = scratch("hole");
    let p = d.join("u_prog_id3_mmap-log-1-0.darshan");
    sparse_claiming(&p, 200 << 20);
    match take_within(&p) {
        Err(LiveError::Sparse { bytes, .. }) => assert_eq!(bytes, 200 << 20),
        other => panic!("{other:?}"),
    }
    // darshan-top over the directory: peak memory well under the claim.
    let top = env!("CARGO_BIN_EXE_darshan-top");
    let script = "import resource, subprocess, sys\n\
                  r = subprocess.run(sys.argv[1:], capture_output=True, timeout=60)\n\
                  print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let o = darshan_test_support::output(
        std::process::Command::new("python3")
            .args(["-c", script, top, "--once", "--json", "--interval", "0.1", "--dir"])
            .arg(&d),
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut it = out.split_whitespace();
    let (rc, kib): (i32, u64) = (it.next().unwrap().parse().unwrap(), it.next().unwrap().parse().unwrap());
    assert_eq!(rc, 0, "{out}");
    assert!(kib < 64 * 1024, "darshan-top took {kib} KiB for a file claiming 200 MiB");
    let _ = std::fs::remove_dir_all(&d);
}
