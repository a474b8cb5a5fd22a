//! The job summary, region sizes and mount table that darshan-parser and
//! darshan-dxt-parser both print first.

use std::io::Write;

use darshan_log::modules::*;
use darshan_log::source::{FileSource, LogSource};
use darshan_log::{LogFile, Mount, NameTable};

use crate::cfmt::{ctime, push_fixed};

/// A log opened to be printed: its mount table and its record names.
pub struct Printable {
    pub log: LogFile<FileSource>,
    pub mounts: Vec<Mount>,
    pub names: NameTable,
}

/// Open a log, its mount table and its name table (with `keep_names`
/// false the table is only checked, as the C parser's views without
/// names do: reading it is most of their work on large logs), printing
/// the C tools' kind of error (and returning None, for exit status 255)
/// when any fails.
pub fn open_for_print(path: &str, keep_names: bool) -> Option<Printable> {
    let log =
        LogFile::open(path).map_err(|e| crate::say!("Error: failed to open darshan log file {path}: {e}")).ok()?;
    let mounts = log.job.mounts().map_err(|e| crate::say!("Error: {e}")).ok()?;
    let names = if keep_names { log.names() } else { log.check_names().map(|_| NameTable::default()) };
    let names = names.map_err(|e| crate::say!("Error: failed to read the record name table of {path}: {e}")).ok()?;
    Some(Printable { log, mounts, names })
}

pub fn print_job_header<S: LogSource>(b: &mut Vec<u8>, log: &LogFile<S>, mounts: &[Mount]) {
    let (job, h) = (&log.job, &log.header);
    let _ = writeln!(b, "# darshan log version: {}", h.version.as_str());
    let _ = writeln!(b, "# compression method: {}", h.compression.label());
    b.extend_from_slice(b"# exe: ");
    b.extend_from_slice(job.exe());
    b.push(b'\n');
    let _ = writeln!(b, "# uid: {}", job.uid);
    let _ = writeln!(b, "# jobid: {}", job.jobid);
    let _ = writeln!(b, "# start_time: {}", job.start_time_sec);
    let _ = write!(b, "# start_time_asci: {}", ctime(job.start_time_sec));
    let _ = writeln!(b, "# end_time: {}", job.end_time_sec);
    let _ = write!(b, "# end_time_asci: {}", ctime(job.end_time_sec));
    let _ = writeln!(b, "# nprocs: {}", job.nprocs);
    b.extend_from_slice(b"# run time: ");
    push_fixed(b, job.run_time(h.version), 4);
    b.push(b'\n');
    for (k, v) in job.metadata_pairs() {
        b.extend_from_slice(b"# metadata: ");
        b.extend_from_slice(k);
        b.extend_from_slice(b" = ");
        b.extend_from_slice(v);
        b.push(b'\n');
    }
    b.extend_from_slice(b"\n# log file regions\n# -------------------------------------------------------\n");
    let _ = writeln!(b, "# header: 1328 bytes (uncompressed)");
    let _ = writeln!(b, "# job data: {} bytes (compressed)", h.job_map.len);
    let _ = writeln!(b, "# record table: {} bytes (compressed)", h.name_map.len);
    for i in 0..MAX_MODS {
        if h.mod_map[i].len > 0 || h.is_partial(i) {
            if darshan_log::modules::is_known(i) {
                let _ = writeln!(
                    b,
                    "# {} module: {} bytes (compressed), ver={}",
                    module_name(i),
                    h.mod_map[i].len,
                    h.mod_ver[i]
                );
            } else {
                let _ = writeln!(
                    b,
                    "# <UNKNOWN> module (id {i}): {} bytes (compressed), ver={}",
                    h.mod_map[i].len, h.mod_ver[i]
                );
            }
        }
    }
    b.extend_from_slice(b"\n# mounted file systems (mount point and fs type)\n# -------------------------------------------------------\n");
    for m in mounts {
        b.extend_from_slice(b"# mount entry:\t");
        b.extend_from_slice(&m.path);
        b.push(b'\t');
        b.extend_from_slice(&m.fs_type);
        b.push(b'\n');
    }
}
