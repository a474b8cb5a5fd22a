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
    assert!(find_files(&[d.clone()], 0).is_empty(), "listed");
    assert!(matches!(take_within(&p), Err(LiveError::NotAFile { .. })));
}

#[test]
fn a_link_named_like_a_crash_safe_file_is_not_followed() {
    let d = scratch("link");
    let target = d.join("target.darshan");
    sparse_claiming(&target, 4096);
    let p = d.join("u_prog_id1_mmap-log-1-0.darshan");
    std::os::unix::fs::symlink(&target, &p).unwrap();
    assert!(find_files(&[d.clone()], 0).is_empty(), "listed");
    assert!(matches!(take_within(&p), Err(LiveError::Io { .. })), "opened through the link");
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
