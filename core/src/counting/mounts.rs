//! The mount table: which mounts go into the log, each one's block size
//! for POSIX_FILE_ALIGNMENT, and the exe + mounts string of the job region.

use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicI64, Ordering};

use darshan_log::job::{mount_of, MountPath};

use crate::store::platform::Platform;

pub const MAX_MNTS: usize = 64;
/// Job record + exe/mount string + NUL fit in 4096 bytes.
pub use darshan_log::job::EXE_LEN;
const LUSTRE_MAGIC: i64 = 0x0BD0_0BD0;
const SKIPPED_TYPES: [&str; 13] = [
    "tmpfs",
    "proc",
    "sysfs",
    "devpts",
    "binfmt_misc",
    "fusectl",
    "debugfs",
    "securityfs",
    "nfsd",
    "none",
    "rpc_pipefs",
    "hugetlbfs",
    "cgroup",
];

#[derive(Debug)]
pub struct MountEntry {
    pub path: String,
    pub fs_type: String,
    /// `path` for statfs, made with the entry: asked at a record's
    /// creation, the block size must cost no allocation there.
    c_path: CString,
    block_size: BlockSize,
}

/// A mount's block size, asked of its file system (statfs) the first time
/// a record on the mount needs it, not for every mount at start-up: that
/// cost every process 4-5 us per mount (20 us for this machine's four, in
/// a /bin/true that adds 0.45 ms), and a statfs on a dead NFS server's
/// mount hangs, which must not stop a process that never touches it.
/// 0: not asked yet (no file system has a zero block size: statfs's
/// answer of 0 is taken as 4096, as before).
#[derive(Debug, Default)]
struct BlockSize(AtomicI64);

impl MountEntry {
    /// An entry whose block size is asked of `path`'s file system when
    /// first needed. None for a path with a NUL byte (which no mount has).
    pub fn new(path: String, fs_type: String) -> Option<MountEntry> {
        let c_path = CString::new(path.as_bytes()).ok()?;
        Some(MountEntry { path, fs_type, c_path, block_size: BlockSize::default() })
    }

    /// An entry with its block size already known (tests, tools).
    pub fn with_block_size(path: &str, fs_type: &str, block_size: i64) -> MountEntry {
        let e = MountEntry::new(path.into(), fs_type.into()).expect("a path without NUL");
        e.block_size.0.store(block_size.max(1), Ordering::Relaxed);
        e
    }

    /// The block size if it was asked already.
    pub fn known_block_size(&self) -> Option<i64> {
        Some(self.block_size.0.load(Ordering::Relaxed)).filter(|&b| b != 0)
    }

    /// The mount's block size: Lustre's 1 MiB, else the file system's
    /// block size (4096 if statfs fails or says 0), asked once.
    pub fn block_size(&self, platform: &dyn Platform) -> i64 {
        if let Some(known) = self.known_block_size() {
            return known;
        }
        let b = block_size_of(&self.c_path, platform);
        // Two threads that both ask store the same answer.
        self.block_size.0.store(b, Ordering::Relaxed);
        b
    }
}

impl MountPath for MountEntry {
    fn mount_path(&self) -> &[u8] {
        self.path.as_bytes()
    }
}

fn block_size_of(path: &CStr, platform: &dyn Platform) -> i64 {
    match platform.statfs(path) {
        Some((_, magic)) if magic == LUSTRE_MAGIC => 1 << 20,
        Some((bsize, _)) if bsize > 0 => bsize,
        _ => 4096,
    }
}

/// Undo the octal escapes of /proc/self/mounts (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Mounts that Darshan records, from the text of /proc/self/mounts: all
/// but the pseudo file systems, nfs ones last, no duplicate (path, type),
/// at most 64; sorted longest path first for prefix lookups.
pub fn parse(text: &str) -> Vec<MountEntry> {
    let mut list: Vec<(String, String)> = Vec::new();
    let fields: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let _dev = it.next()?;
            let path = unescape(it.next()?);
            let ty = it.next()?.to_string();
            Some((path, ty))
        })
        .collect();
    for pass_nfs in [false, true] {
        for (path, ty) in &fields {
            let is_nfs = ty.starts_with("nfs");
            if is_nfs != pass_nfs || SKIPPED_TYPES.contains(&ty.as_str()) {
                continue;
            }
            if list.len() >= MAX_MNTS || list.iter().any(|(p, t)| p == path && t == ty) {
                continue;
            }
            list.push((path.clone(), ty.clone()));
        }
    }
    let mut out: Vec<MountEntry> =
        list.into_iter().filter_map(|(path, fs_type)| MountEntry::new(path, fs_type)).collect();
    out.sort_by_key(|m| std::cmp::Reverse(m.path.len()));
    out
}

/// The block size of the mount holding `name`, or -1 (on no mount).
pub fn alignment_of(mounts: &[MountEntry], name: &[u8], platform: &dyn Platform) -> i64 {
    mount_of(mounts, name).map_or(-1, |m| m.block_size(platform))
}

/// `alignment_of` without asking: None while the mount's block size has
/// not been asked.
pub fn known_alignment_of(mounts: &[MountEntry], name: &[u8]) -> Option<i64> {
    mount_of(mounts, name).map_or(Some(-1), MountEntry::known_block_size)
}

/// `<cmdline>(\n<type>\t<path>)*`, within DARSHAN_EXE_LEN bytes; a command
/// line that does not fit ends in `<TRUNCATED>`.
pub fn exe_mnt_string(cmdline: &str, mounts: &[MountEntry]) -> Vec<u8> {
    const TRUNC: &str = "<TRUNCATED>";
    // A newline in an argument (`python -c "..."` with a multi-line script)
    // would start a line that readers parse as a mount entry, and
    // darshan-parser then rejects the whole log: it becomes a space.
    let mut s: Vec<u8> = cmdline.bytes().map(|c| if c == b'\n' { b' ' } else { c }).collect();
    // The mount table first: readers take the command line to be what comes
    // before the first newline, so without one (a command line that fills
    // the whole string, as C Darshan writes it) they show an empty exe and
    // no mounts. The command line keeps at least MIN_CMDLINE bytes.
    const MIN_CMDLINE: usize = 1024;
    let mut mnt = Vec::new();
    for m in mounts {
        let entry = format!("\n{}\t{}", m.fs_type, m.path);
        if entry.len() <= 256 && mnt.len() + entry.len() <= EXE_LEN - MIN_CMDLINE {
            mnt.extend_from_slice(entry.as_bytes());
        }
    }
    let room = EXE_LEN - mnt.len();
    if s.len() > room {
        s.truncate(room - TRUNC.len());
        s.extend_from_slice(TRUNC.as_bytes());
    }
    s.extend_from_slice(&mnt);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::platform::FakePlatform;

    #[test]
    fn pseudo_file_systems_are_left_out_and_lookup_takes_the_longest_prefix() {
        let text = "proc /proc proc rw 0 0\n/dev/vda / ext4 rw 0 0\ntmpfs /dev/shm tmpfs rw 0 0\n\
                    none /sys/fs/cgroup/unified cgroup2 rw 0 0\nsrv:/x /home nfs4 rw 0 0\n/dev/vda / ext4 rw 0 0\n\
                    d /my\\040disk xfs rw 0 0\n";
        let m = parse(text);
        let fake = FakePlatform::default();
        let paths: Vec<&str> = m.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, vec!["/sys/fs/cgroup/unified", "/my disk", "/home", "/"]);
        assert_eq!(alignment_of(&m, b"/home/u/f", &fake), 4096);
        assert_eq!(alignment_of(&m, b"relative", &fake), -1);
        let s = exe_mnt_string("./a.out x ", &m);
        assert!(s.starts_with(b"./a.out x \ncgroup2\t/sys/fs/cgroup/unified\n"));
        let s = exe_mnt_string("python3 -c import os\nprint(1) ", &m);
        assert!(s.starts_with(b"python3 -c import os print(1) \ncgroup2\t"), "newlines in arguments become spaces");
    }

    /// Every process asked every mount's block size at start-up (4-5 us a
    /// mount, and a hang on a dead server's); now the first record on a
    /// mount asks, once.
    #[test]
    fn a_mounts_block_size_is_asked_once_and_only_when_a_record_needs_it() {
        use std::sync::atomic::Ordering::Relaxed;
        let m = parse("/dev/vda / ext4 rw 0 0\nsrv:/x /home nfs4 rw 0 0\nd /scratch xfs rw 0 0\n");
        let fake = FakePlatform::default();
        assert_eq!(fake.statfs_calls.load(Relaxed), 0, "nothing asked at start-up");
        assert_eq!(alignment_of(&m, b"/home/u/a", &fake), 4096);
        assert_eq!(alignment_of(&m, b"/home/u/b", &fake), 4096);
        assert_eq!(fake.statfs_calls.load(Relaxed), 1, "asked once for /home");
        assert_eq!(alignment_of(&m, b"/etc/x", &fake), 4096);
        assert_eq!(fake.statfs_calls.load(Relaxed), 2, "then once for /");
    }

    /// A command line of 3,000 characters or more left the log with an
    /// empty exe and no mount table.
    #[test]
    fn a_long_command_line_is_truncated_and_the_mount_table_kept() {
        let m = parse("/dev/vda / ext4 rw 0 0\nsrv:/x /home nfs4 rw 0 0\n");
        let long = format!("./a.out {} ", "x".repeat(5000));
        let s = exe_mnt_string(&long, &m);
        assert!(s.len() <= EXE_LEN);
        let text = String::from_utf8(s).unwrap();
        let (exe, rest) = text.split_once('\n').expect("a newline after the command line");
        assert!(exe.starts_with("./a.out xxx") && exe.ends_with("<TRUNCATED>"), "{exe}");
        assert_eq!(rest, "nfs4\t/home\next4\t/");
        // A short command line is left whole.
        assert_eq!(exe_mnt_string("./a.out ", &m), b"./a.out \nnfs4\t/home\next4\t/");
    }
}
