//! darshan-analyzer: over a tree of logs, how many jobs used shared files,
//! file-per-process files, MPI-IO, PnetCDF and HDF5, and how many spent
//! what share of their run time in POSIX I/O (read, write and metadata
//! time over all POSIX records, divided by the job's run time), printed as
//! darshan-util 3.5.0's darshan-analyzer prints them.
//!
//! As C's, it counts every file of the tree, logs or not: a file that is
//! not a log (one line on stderr) counts as a job with no I/O; a log whose
//! POSIX records break off keeps what it read before. Unlike C's, it does
//! not follow symbolic links to directories (C's `ftw` does, into trees
//! another user may own)
//! and opens a file as every tool does (`safe_fs`: no link another user
//! owns, no FIFO or device, which C's would wait on forever; such a file
//! counts as one that is not a log).
//!
//! usage: darshan-analyzer --version | <directory>   (`--help`: the usage,
//! which C's prints only for a wrong number of arguments)
#![forbid(unsafe_code)]

use std::path::Path;
use std::process::ExitCode;

use darshan_log::counters::posix;
use darshan_log::modules::{H5D, H5F, MPIIO, PNETCDF_FILE, PNETCDF_VAR, POSIX};
use darshan_log::safe_fs::shown;
use darshan_log::{LogFile, Record};

/// The upper edges of the I/O-share buckets (the last is open).
const BUCKETS: [f64; 4] = [0.20, 0.40, 0.60, 0.80];

/// What one log used, as C's `process_log` fills it.
#[derive(Default)]
struct Usage {
    io_ratio: f64,
    mpio: bool,
    pnet: bool,
    hdf5: bool,
    shared: bool,
    fpp: bool,
}

/// The tree's totals.
#[derive(Default)]
struct Totals {
    count: u64,
    shared: u64,
    fpp: u64,
    mpio: u64,
    pnet: u64,
    hdf5: u64,
    buckets: [u64; 5],
}

impl Totals {
    fn add(&mut self, u: &Usage) {
        self.count += 1;
        for (used, total) in [
            (u.mpio, &mut self.mpio),
            (u.pnet, &mut self.pnet),
            (u.hdf5, &mut self.hdf5),
            (u.shared, &mut self.shared),
            (u.fpp, &mut self.fpp),
        ] {
            *total += u64::from(used);
        }
        // As C's chain of comparisons: a ratio that is not a number (a job
        // of no run time and no I/O time) falls in no bucket.
        let r = u.io_ratio;
        let bucket = if r <= BUCKETS[0] {
            Some(0)
        } else if r > BUCKETS[3] {
            Some(4)
        } else {
            (1..4).find(|&k| r > BUCKETS[k - 1] && r <= BUCKETS[k])
        };
        if let Some(k) = bucket {
            self.buckets[k] += 1;
        }
    }
}

/// C's `process_log`: what the log at `path` used; an error line when it
/// cannot be read (what was found before stays).
fn process_log(path: &Path, u: &mut Usage) {
    let Ok(log) = LogFile::open(path) else {
        return darshan_util::say!("darshan_log_open() failed to open {}.", shown(path));
    };
    let Ok((files, io_time)) = posix_io(&log, u) else {
        return darshan_util::say!("Error: unable to read posix file record in log file {}.", shown(path));
    };
    let has = |ids: &[usize]| ids.iter().any(|&m| log.header.mod_map[m].len > 0);
    u.mpio = has(&[MPIIO]);
    u.hdf5 = has(&[H5F, H5D]);
    u.pnet = has(&[PNETCDF_FILE, PNETCDF_VAR]);
    u.io_ratio = if files > 0 { io_time / log.job.run_time(log.header.version) } else { 0.0 };
}

/// The log's POSIX records and their read, write and metadata time, each
/// record marking the job as using shared or file-per-process files as it
/// is read (C keeps those marks when a later record cannot be read).
fn posix_io(log: &LogFile, u: &mut Usage) -> darshan_log::Result<(u64, f64)> {
    let (mut files, mut io_time) = (0u64, 0.0f64);
    if log.header.mod_map[POSIX].len == 0 {
        return Ok((files, io_time));
    }
    let mut reader = log.module_reader(POSIX)?;
    let mut rec = Record::new(POSIX);
    while reader.next_into(&mut rec)? {
        files += 1;
        if rec.rank == -1 {
            u.shared = true;
        } else {
            u.fpp = true;
        }
        let f = &rec.fcounters;
        io_time += f[posix::F_READ_TIME] + f[posix::F_WRITE_TIME] + f[posix::F_META_TIME];
    }
    Ok((files, io_time))
}

/// `n` of `total` as C prints the share (`%lf`; 0/0 is glibc's "-nan").
fn share(n: u64, total: u64) -> String {
    if total == 0 {
        return "-nan".into();
    }
    format!("{:.6}", n as f64 / total as f64)
}

fn report(base: &str, t: &Totals) -> String {
    let mut out = format!("log dir: {base}\ntotal logs: {}\n", t.count);
    for (label, n) in [
        ("      shared file access", t.shared),
        ("file-per-proccess access", t.fpp),
        ("             mpio access", t.mpio),
        ("          pnetcdf access", t.pnet),
        ("             hdf5 access", t.hdf5),
    ] {
        out += &format!("{label}: {} [{n}]\n", share(n, t.count));
    }
    out += "\nI/O percentage of runtime:\n";
    let edges = [0.0, BUCKETS[0], BUCKETS[1], BUCKETS[2], BUCKETS[3], 1.0];
    for (k, n) in t.buckets.iter().enumerate() {
        out += &format!("{:.2}-{:.2}: {n}\n", edges[k], edges[k + 1]);
    }
    out
}

/// Every file of the tree at `base` (a file given as the base is one
/// file), directories and links to them left out; Err when the base
/// cannot be walked. Unreadable directories below it are said and
/// skipped, as C's `ftw` skips them.
fn walk(base: &Path, totals: &mut Totals) -> Result<(), ()> {
    for entry in walkdir::WalkDir::new(base).follow_links(false) {
        let e = match entry {
            Ok(e) => e,
            Err(e) if e.depth() == 0 => return Err(()),
            Err(e) => {
                darshan_util::say!("darshan-analyzer: {}: {}", shown(e.path().unwrap_or(base)), e);
                continue;
            }
        };
        let is_dir =
            e.file_type().is_dir() || (e.path_is_symlink() && std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir()));
        if is_dir {
            continue;
        }
        let mut u = Usage::default();
        process_log(e.path(), &mut u);
        totals.add(&u);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    // C's takes `--help` for a directory to walk (and fails to); ours
    // prints its usage, with C's status for it.
    if args.len() != 2 || args[1] == "--help" {
        darshan_util::say!("Usage: darshan-analyzer --version | <directory>");
        darshan_util::say!("       '--version' or directory of Darshan logs required as argument.");
        return ExitCode::from(255);
    }
    let base = &args[1];
    if base == "--version" {
        darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
        return ExitCode::SUCCESS;
    }
    let mut totals = Totals::default();
    if walk(Path::new(base), &mut totals).is_err() {
        darshan_util::say!("Error: failed to walk path: {}", shown(Path::new(base)));
        return ExitCode::from(255);
    }
    let _ = darshan_util::cli::stdout(report(&shown(Path::new(base)), &totals).as_bytes());
    ExitCode::SUCCESS
}
