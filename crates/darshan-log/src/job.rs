//! The job region: job record, command line and mount table.

use crate::error::{LogError, Result};
use crate::header::LogVersion;

pub const JOB_SIZE: usize = 1080;
pub const OLD_JOB_SIZE: usize = 1064;
pub const METADATA_LEN: usize = 1024;
/// The runtime keeps job record + exe/mount string within 4096 bytes.
pub const JOB_RECORD_SIZE: usize = 4096;
/// `DARSHAN_EXE_LEN`: the room after the job struct (and a NUL) for the
/// command line and mount table, 3,015 bytes: the runtime's budget for
/// the whole string, darshan-util's for the mount table's text and for
/// each field of a mount entry.
pub const EXE_LEN: usize = JOB_RECORD_SIZE - JOB_SIZE - 1;
/// Bytes of the command line [`fit`] keeps before mount
/// entries (as the runtime's full string keeps 1,024).
pub const MIN_EXE_KEPT: usize = 512;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Job {
    pub uid: i64,
    pub start_time_sec: i64,
    pub start_time_nsec: i64,
    pub end_time_sec: i64,
    pub end_time_nsec: i64,
    pub nprocs: i64,
    pub jobid: i64,
    /// Raw metadata bytes up to the first NUL (`key=value` lines).
    pub metadata: Vec<u8>,
    /// Command line and mount table, as stored (without trailing NUL).
    pub exe_mnt: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub fs_type: Vec<u8>,
    pub path: Vec<u8>,
}

fn field(b: &[u8], off: usize, swapped: bool) -> i64 {
    let v = i64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]));
    if swapped {
        v.swap_bytes()
    } else {
        v
    }
}

fn until_nul(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

/// A mount table entry, as the rule below reads it: the runtime's (its
/// `MountEntry`) and the log's ([`Mount`]).
pub trait MountPath {
    fn mount_path(&self) -> &[u8];
}

impl MountPath for Mount {
    fn mount_path(&self) -> &[u8] {
        &self.path
    }
}

/// The mount a record name lives on: the first entry (mounts come longest
/// path first) whose path is a byte prefix of the name, as darshan-util
/// matches them (no "/" boundary check). The runtime takes a record's
/// FILE_ALIGNMENT from the same mount.
pub fn mount_of<'m, M: MountPath>(mounts: &'m [M], name: &[u8]) -> Option<&'m M> {
    mounts.iter().find(|m| name.starts_with(m.mount_path()))
}

impl Job {
    pub fn parse(bytes: &[u8], version: LogVersion, swapped: bool) -> Result<Job> {
        let new = version == LogVersion::V341;
        let size = if new { JOB_SIZE } else { OLD_JOB_SIZE };
        if bytes.len() < size {
            return Err(LogError::BadRecord {
                module: "job".into(),
                msg: format!("job region holds {} bytes, the job record needs {size}", bytes.len()),
            });
        }
        let f = |i: usize| field(bytes, 8 * i, swapped);
        let (job, meta_off) = if new {
            (
                Job {
                    uid: f(0),
                    start_time_sec: f(1),
                    start_time_nsec: f(2),
                    end_time_sec: f(3),
                    end_time_nsec: f(4),
                    nprocs: f(5),
                    jobid: f(6),
                    metadata: Vec::new(),
                    exe_mnt: Vec::new(),
                },
                56,
            )
        } else {
            (
                Job {
                    uid: f(0),
                    start_time_sec: f(1),
                    start_time_nsec: 0,
                    end_time_sec: f(2),
                    end_time_nsec: 0,
                    nprocs: f(3),
                    jobid: f(4),
                    metadata: Vec::new(),
                    exe_mnt: Vec::new(),
                },
                40,
            )
        };
        let mut job = job;
        job.metadata = until_nul(&bytes[meta_off..meta_off + METADATA_LEN]).to_vec();
        let rest = &bytes[size..bytes.len().min(JOB_RECORD_SIZE)];
        job.exe_mnt = until_nul(rest).to_vec();
        Ok(job)
    }

    /// Encode the 3.41 job struct followed by exe/mount string and a NUL.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(JOB_SIZE + self.exe_mnt.len() + 1);
        for v in [
            self.uid,
            self.start_time_sec,
            self.start_time_nsec,
            self.end_time_sec,
            self.end_time_nsec,
            self.nprocs,
            self.jobid,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let mut meta = [0u8; METADATA_LEN];
        let n = self.metadata.len().min(METADATA_LEN - 1);
        meta[..n].copy_from_slice(&self.metadata[..n]);
        b.extend_from_slice(&meta);
        let exe_max = JOB_RECORD_SIZE - JOB_SIZE - 1;
        b.extend_from_slice(&self.exe_mnt[..self.exe_mnt.len().min(exe_max)]);
        b.push(0);
        b
    }

    /// Whether the process's end was written: a crash-safe file read as
    /// it is (its process killed, or still running) has none (0), and
    /// its run time would come out as minus its start.
    pub fn ended(&self) -> bool {
        self.end_time_sec != 0 || self.end_time_nsec != 0
    }

    /// Run time as darshan-util reports it: fractional for 3.41 logs,
    /// whole seconds + 1 for older ones.
    pub fn run_time(&self, version: LogVersion) -> f64 {
        if version == LogVersion::V341 {
            (self.end_time_sec as f64 + self.end_time_nsec as f64 / 1e9)
                - (self.start_time_sec as f64 + self.start_time_nsec as f64 / 1e9)
        } else {
            (self.end_time_sec.wrapping_sub(self.start_time_sec).wrapping_add(1)) as f64
        }
    }

    /// `key = value` pairs of the metadata (split on the first `=`, lines
    /// without `=` ignored), as darshan-parser prints them.
    pub fn metadata_pairs(&self) -> Vec<(&[u8], &[u8])> {
        self.metadata
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .filter_map(|l| l.iter().position(|&c| c == b'=').map(|p| (&l[..p], &l[p + 1..])))
            .collect()
    }

    /// The command line: text before the first newline. Like darshan-util,
    /// a string without any newline (no mount table) yields an empty exe.
    pub fn exe(&self) -> &[u8] {
        match self.exe_mnt.iter().position(|&c| c == b'\n') {
            Some(p) => &self.exe_mnt[..p],
            None => &[],
        }
    }

    /// Mount entries in darshan-util's order: table order, stably sorted
    /// by path length, longest first (checked against the C parser).
    pub fn mounts(&self) -> Result<Vec<Mount>> {
        let lines: Vec<&[u8]> = self.exe_mnt.split(|&c| c == b'\n').skip(1).collect();
        let mut out = Vec::with_capacity(lines.len());
        for line in lines.iter() {
            let mut toks = line.split(|c| c.is_ascii_whitespace()).filter(|t| !t.is_empty());
            match (toks.next(), toks.next()) {
                (Some(t), Some(p)) => out.push(Mount { fs_type: t.to_vec(), path: p.to_vec() }),
                _ => {
                    return Err(LogError::BadRecord {
                        module: "job".into(),
                        msg: "poorly formatted mount table in darshan log file".into(),
                    })
                }
            }
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.path.len()));
        Ok(out)
    }
}

/// An encoded job record ([`Job::encode`]) within `len` bytes (a
/// crash-safe file's job area, which ends in the runtime's own words):
/// one that does not fit keeps its mount table's whole entries, as many as
/// leave the command line [`MIN_EXE_KEPT`] bytes, and the command line the
/// rest, ending in `<TRUNCATED>`. A cut mount entry would be a mount point
/// that claims the files under a prefix of a path, or a line readers
/// refuse the whole log for.
pub fn fit(encoded: &[u8], len: usize) -> std::borrow::Cow<'_, [u8]> {
    const TRUNC: &[u8] = b"<TRUNCATED>";
    if encoded.len() <= len || encoded.len() <= JOB_SIZE {
        return encoded.into();
    }
    let room = len.saturating_sub(JOB_SIZE + 1);
    let text = until_nul(&encoded[JOB_SIZE..]);
    let (cmd, mounts) = text.split_at(text.iter().position(|&b| b == b'\n').unwrap_or(text.len()));
    let for_mounts = room.saturating_sub(MIN_EXE_KEPT.min(cmd.len()));
    // Entries are "\n<type>\t<path>": each ends where a newline or the
    // string does.
    let ends = mounts.iter().enumerate().filter(|&(_, &b)| b == b'\n').map(|(i, _)| i).chain([mounts.len()]);
    let mounts = &mounts[..ends.take_while(|&end| end <= for_mounts).last().unwrap_or(0)];
    let cmd_room = room - mounts.len();
    let mut out = encoded[..JOB_SIZE.min(len)].to_vec();
    if cmd.len() > cmd_room {
        out.extend_from_slice(&cmd[..cmd_room.saturating_sub(TRUNC.len())]);
        out.extend_from_slice(&TRUNC[..TRUNC.len().min(cmd_room)]);
    } else {
        out.extend_from_slice(cmd);
    }
    out.extend_from_slice(mounts);
    out.push(0);
    out.truncate(len);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_cut_to_fit_keeps_whole_mount_entries_and_marks_the_command_line() {
        let mounts: String = (0..40).map(|k| format!("\next4\t/scratch/project{k:03}/data")).collect();
        let job = |cmd: &str| Job {
            exe_mnt: format!("{cmd}{mounts}").into_bytes(),
            metadata: b"k=v\n".to_vec(),
            ..Default::default()
        };
        for (cmd, len) in [("./a.out", 4096), ("./a.out", 2000), ("x".repeat(1700).as_str(), 3000), ("./a.out", 1300)] {
            let j = job(cmd);
            let full = j.encode();
            let b = fit(&full, len);
            assert!(b.len() <= len, "{} bytes for {len}", b.len());
            let back = Job::parse(&b, LogVersion::V341, false).unwrap();
            assert_eq!(back.metadata, j.metadata);
            let kept =
                back.mounts().unwrap_or_else(|e| panic!("{len} {:?}: {e}", String::from_utf8_lossy(&back.exe_mnt)));
            let all = j.mounts().unwrap();
            assert!(kept.iter().all(|m| all.contains(m)), "only whole entries: {len}");
            if b.len() == full.len() {
                assert_eq!(back.exe_mnt, j.exe_mnt);
            } else {
                assert!(!kept.is_empty() || len < JOB_SIZE + MIN_EXE_KEPT, "mounts kept within {len}");
                let exe = back.exe();
                assert!(exe == cmd.as_bytes() || exe.ends_with(b"<TRUNCATED>"), "{}", String::from_utf8_lossy(exe));
                assert!(exe.len() >= MIN_EXE_KEPT.min(cmd.len()).min(len - JOB_SIZE - 1) || exe == cmd.as_bytes());
            }
        }
    }
}
