//! What a handle created to write hides (crate::fd): the log being
//! written, as darshan-util writes one: every put appends bytes already
//! in the log's layout to a region, each region one compressed stream
//! (darshan_log::writer::LogWriter::put), and the header is written at
//! close from the handle's fields (its partial flag and module versions,
//! which a caller may set). Unlike darshan-util's:
//! * the log is made new, never over a file already there nor through a
//!   link planted at its name (darshan-util's `creat` truncates an
//!   existing one), and takes its name only once complete
//!   (darshan_log::safe_fs::NewFile), read-only (0400);
//! * a region written again after another one is refused, and the log
//!   then not written (darshan-util starts the region over, losing what
//!   it held: a log with records missing).

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use darshan_log::safe_fs::NewFile;
use darshan_log::writer::Region;
use darshan_log::{Compression, LogWriter};

/// A log being written.
pub struct Writing {
    log: Option<LogWriter<BufWriter<std::fs::File>>>,
    file: NewFile,
    path: PathBuf,
    /// A put failed: the log is not given its name.
    failed: bool,
}

impl Writing {
    /// The log `path`, made new, compressed as `comp`; None, and one line
    /// on stderr, when it cannot be made.
    pub fn create(path: &Path, comp: Compression) -> Option<Writing> {
        let (file, out) = match NewFile::create(path) {
            Ok(made) => made,
            Err(e) => {
                eprintln!("Error: darshan_log_create failed to open darshan log file {}: {e}.", path.display());
                return None;
            }
        };
        match LogWriter::new(BufWriter::new(out), comp) {
            Ok(w) => Some(Writing { log: Some(w), file, path: path.to_path_buf(), failed: false }),
            Err(e) => {
                eprintln!("Error: unable to seek in darshan log file: {e}.");
                None
            }
        }
    }

    /// `bytes` appended to `region`; 0, or -1 (and one line on stderr
    /// naming `what`) when they cannot be: the log is then not written.
    pub fn put(&mut self, region: Region, bytes: &[u8], what: &str) -> i32 {
        let done = match self.log.as_mut() {
            Some(w) => w.put(region, bytes),
            None => Err(darshan_log::LogError::Write("no log".into())),
        };
        match done {
            Ok(()) => 0,
            Err(e) => self.fail(&format!("failed to write {what} to darshan log file: {e}")),
        }
    }

    /// A put refused before it reached the log (`why`): the log is not
    /// written. -1, darshan-util's failure.
    pub fn fail(&mut self, why: &str) -> i32 {
        self.failed = true;
        eprintln!("Error: {why}.");
        -1
    }

    /// The log finished, with the handle's partial flag and module
    /// versions in its header, and given its name; or, after a failed put
    /// or write, left unnamed and gone, as darshan-util unlinks it.
    pub fn close(mut self, partial_flag: u64, mod_ver: &[u32]) {
        let finished = match self.log.take() {
            Some(mut w) if !self.failed => {
                w.set_partial_flag(partial_flag);
                for (id, &v) in mod_ver.iter().enumerate() {
                    w.set_module_version(id, v);
                }
                w.finish().map_err(|e| e.to_string()).and_then(|b| b.into_inner().map_err(|e| e.to_string()))
            }
            _ => Err("a write to it failed".into()),
        };
        let mode = darshan_log::defaults::log_mode(false);
        let published = finished.and_then(|file| self.file.publish(file, mode).map_err(|e| e.to_string()));
        if let Err(e) = published {
            eprintln!("Error: final flush to log file failed: {e}.");
            eprintln!("Unlinking darshan log file {} ...", self.path.display());
        }
    }
}
