//! What the two shutdowns (one process: `shutdown::write_log`; an MPI
//! job: `shutdown_mpi::write_log_mpi`) share, as named phases: finalize
//! the modules, compress this process's share of every region, lay the
//! regions out after the header, and the errors they can end in.
//!
//! A log is the header, then the job region, the name region and the
//! module regions in id order, back to back; a region is one or more zlib
//! streams (one per rank in an MPI job, one per core for a big region).

use darshan_log::header::{Header, LogVersion, RegionMap, HEADER_SIZE};
use darshan_log::modules::MAX_MODS;
use darshan_log::Compression;
use std::collections::HashSet;

use crate::contract::module::{FinalizeCtx, Module, Run};
use crate::finish::compress;
use crate::finish::timing::{timed, ModuleClock};
use darshan_deflate::Shape;

/// A name table this big is compressed (by zlib-rs) on a thread of its
/// own while the records are. Smaller ones are compressed after the
/// records on this thread, in the same working memory: for a `git
/// status`'s 2,000 names (60 KiB) a thread made the shutdown's
/// compression slower, not faster (1.38 against 1.25-1.29 ms on two free
/// cores, 1.36 against 1.14 ms on one; its stack, its malloc arena and
/// fresh tables cost more page faults than the 0.45 ms it overlapped).
const NAMES_THREAD_MIN: usize = compress::LARGE_TEXT_BYTES;

/// Why a log was not written. The I/O failures keep their `io::Error`
/// (its kind, and `source()` for whoever reports the chain); failures of
/// the MPI-IO layer, which has no `io::Error`, carry `ErrorKind::Other`
/// with what failed.
#[derive(Debug, thiserror::Error)]
pub enum ShutdownError {
    /// The runtime never started (nothing to write).
    #[error("runtime not initialised")]
    NotInitialised,
    /// No DARSHAN_LOGPATH / DARSHAN_LOGFILE and no built-in directory.
    #[error("unable to determine log file path (set DARSHAN_LOGPATH or DARSHAN_LOGFILE)")]
    NoLogPath,
    /// The log file could not be made (`path`), e.g. a missing directory.
    #[error("cannot create log file {path}: {source}")]
    Create { path: String, source: std::io::Error },
    /// Writing, syncing or closing the log failed part way.
    #[error("writing log file {path}: {source}")]
    Write { path: String, source: std::io::Error },
    /// The complete log could not be given its final name.
    #[error("cannot rename the log to {to}: {source}")]
    Rename { to: String, source: std::io::Error },
    /// The shutdown's memory could not be had (an address space limit or
    /// strict overcommit): asked before any of it was taken, since a
    /// failed allocation would abort the program.
    #[error("not enough memory to write the log: {bytes} bytes could not be had (ulimit -v?)")]
    Memory { bytes: usize },
    /// [`Memory`](Self::Memory) on another rank of an MPI job (rank 0
    /// says it for the job).
    #[error("not enough memory to write the log on a rank of the job (ulimit -v?)")]
    MemoryOnARank,
    /// A seccomp filter the program installed would kill the calls that
    /// write the log (seccomp.rs): none is made.
    #[error("the program's seccomp filter would stop the calls that write the log")]
    Sealed,
    /// A failure of the MPI-IO layer.
    #[error("{0}")]
    Collective(#[from] crate::counting::collective::CommError),
    /// A step of the MPI shutdown failed (a panic caught) on some rank;
    /// every rank stopped after it, together.
    #[error("the log was not written: its {0} step failed on a rank (an internal error)")]
    Step(&'static str),
    /// An MPI rank other than 0: rank 0 reports the job's failure, once.
    #[error("")]
    OtherRank,
}

impl ShutdownError {
    /// How a rank's failure of a step is told to the others (0: none),
    /// the gravest winning: a seccomp filter, then memory, then the rest.
    pub(crate) fn gravity(&self) -> u64 {
        match self {
            ShutdownError::Sealed => 3,
            ShutdownError::Memory { .. } => 2,
            _ => 1,
        }
    }

    /// Rank 0's error for step `name` when another rank failed it with
    /// `gravity`.
    pub(crate) fn elsewhere(gravity: u64, name: &'static str) -> ShutdownError {
        match gravity {
            3 => ShutdownError::Sealed,
            2 => ShutdownError::MemoryOnARank,
            _ => ShutdownError::Step(name),
        }
    }
}

/// Phase 1: every module freezes its records (times into seconds).
pub fn finalize(modules: &[&'static dyn Module], ctx: &FinalizeCtx, clock: &mut ModuleClock) {
    for m in modules {
        clock.time(m.spec().id, || m.finalize(ctx));
    }
}

/// This process's share of every region, compressed: each a sequence of
/// zlib streams back to back (empty: nothing of this process there).
pub struct Regions {
    pub job: Vec<u8>,
    pub names: Vec<u8>,
    /// (module id, its streams), in registry (id) order.
    pub modules: Vec<(usize, Vec<u8>)>,
    /// Records this process wrote.
    pub records: usize,
    /// The calls those records count (`darshan_log::cost::record_calls`),
    /// counted as they are compressed: the runtime's cost estimate.
    pub calls: u64,
    /// Seconds compressing the name table.
    pub names_s: f64,
}

impl Regions {
    /// Compressed sizes: job, names, then each module, in order.
    pub fn sizes(&self) -> Vec<u64> {
        [self.job.len(), self.names.len()]
            .into_iter()
            .chain(self.modules.iter().map(|(_, b)| b.len()))
            .map(|n| n as u64)
            .collect()
    }

    pub fn module_ids(&self) -> Vec<usize> {
        self.modules.iter().map(|(id, _)| *id).collect()
    }

    /// Bit `id`: module `id` has records here.
    pub fn active(&self) -> u64 {
        self.modules.iter().filter(|(id, b)| !b.is_empty() && *id < 64).fold(0, |a, (id, _)| a | 1 << id)
    }

    /// The region bytes in log order.
    pub fn in_order(&self) -> impl Iterator<Item = &[u8]> {
        [&self.job[..], &self.names[..]].into_iter().chain(self.modules.iter().map(|(_, b)| &b[..]))
    }
}

impl Regions {
    /// The job record compressed (if this process writes it), last: it
    /// states the shutdown's cost, which includes compressing the rest.
    pub fn set_job(&mut self, job: Option<&[u8]>) {
        self.job = compress::Compressor::default().bytes(job.unwrap_or_default()).concat();
    }
}

/// Phase 2: compress the name table and every module's records (a big
/// name table on a helper thread meanwhile, where the runtime may start
/// one: `finish::may_start_threads`); the job record follows ([`Regions::set_job`]).
pub fn compress_regions(names: &[u8], modules: &[&'static dyn Module], clock: &mut ModuleClock) -> Regions {
    let mut c = compress::Compressor::default();
    let (mut records, mut calls) = (0, 0u64);
    let helped = names.len() >= NAMES_THREAD_MIN && crate::finish::may_start_threads();
    let ((names, names_s), modules) = if helped {
        std::thread::scope(|s| {
            let helper = std::thread::Builder::new().spawn_scoped(s, || timed(|| compress::large_text(names))).ok();
            let per_module = compress_modules(&mut c, modules, &mut records, &mut calls, clock);
            let names = match helper.map(|h| h.join()) {
                Some(Ok(r)) => r,
                _ => timed(|| c.names(names).concat()),
            };
            (names, per_module)
        })
    } else {
        let per_module = compress_modules(&mut c, modules, &mut records, &mut calls, clock);
        (timed(|| c.names(names).concat()), per_module)
    };
    Regions { job: Vec::new(), names, modules, records, calls, names_s }
}

/// Every module's records, compressed: (module id, its streams).
fn compress_modules(
    c: &mut compress::Compressor,
    modules: &[&'static dyn Module],
    records: &mut usize,
    calls: &mut u64,
    clock: &mut ModuleClock,
) -> Vec<(usize, Vec<u8>)> {
    let mut per_module = Vec::with_capacity(modules.len());
    for m in modules {
        let bytes = clock.time(m.spec().id, || compress_module(c, *m, records, calls));
        per_module.push((m.spec().id, bytes));
    }
    per_module
}

/// One module's records, compressed.
fn compress_module(c: &mut compress::Compressor, m: &dyn Module, records: &mut usize, calls: &mut u64) -> Vec<u8> {
    let rw = m.spec().record_words.max(1);
    let mut bytes = Vec::new();
    // Runs (split around the records an MPI reduction took) are
    // gathered into one stream: a stream per run cost a zlib header,
    // trailer and code table each, and the matches across records
    // (at 32 ranks, 8,367 against C's 7,844 bytes of POSIX).
    // (A single run, the usual case, is compressed where it lies.)
    let runs = m.output_runs();
    let mut pending = Pending::default();
    let mut laid = Vec::new();
    m.output_parts(&mut |part| {
        // A long record is compressed as its words would be, a piece at
        // a time (one record, no calls: LongRecord).
        if let Run::Long(rec) = part {
            if rec.len_words() * 8 >= compress::LARGE_BYTES {
                debug_assert!(!darshan_log::cost::counts_calls(m.spec().id));
                *records += 1;
                pending.flush(c, rw, &mut bytes);
                let shape = if rec.len_words() == rw { Shape::Records(rw * 8) } else { Shape::VarRecords(rw * 8) };
                c.long(rec, shape).iter().for_each(|s| bytes.extend_from_slice(s));
                return;
            }
        }
        let run = part.words(&mut laid);
        // Whether every record is of the module's size (the encoder
        // then knows where each id is).
        let (mut n, mut fixed) = (0, true);
        for r in crate::contract::var_records::split(run, |r| m.record_len(r)) {
            n += 1;
            *calls = calls.saturating_add(darshan_log::cost::record_calls(m.spec().id, r));
            fixed &= r.len() == rw;
        }
        *records += n;
        if runs == 1 || run.len() * 8 >= compress::LARGE_BYTES {
            pending.flush(c, rw, &mut bytes);
            let shape = if fixed { Shape::Records(rw * 8) } else { Shape::VarRecords(rw * 8) };
            c.words(run, shape).iter().for_each(|s| bytes.extend_from_slice(s));
            return;
        }
        pending.words.extend_from_slice(run);
        pending.fixed &= fixed;
        if pending.words.len() * 8 >= compress::LARGE_BYTES {
            pending.flush(c, rw, &mut bytes);
        }
    });
    pending.flush(c, rw, &mut bytes);
    bytes
}

/// Runs of a module's records waiting to be compressed as one stream
/// (at most a megabyte: larger runs are compressed where they lie).
struct Pending {
    words: Vec<u64>,
    fixed: bool,
}

impl Default for Pending {
    fn default() -> Self {
        Pending { words: Vec::new(), fixed: true }
    }
}

impl Pending {
    fn flush(&mut self, c: &mut compress::Compressor, rw: usize, out: &mut Vec<u8>) {
        if !self.words.is_empty() {
            let shape = if self.fixed { Shape::Records(rw * 8) } else { Shape::VarRecords(rw * 8) };
            c.words(&self.words, shape).iter().for_each(|s| out.extend_from_slice(s));
        }
        self.words.clear();
        self.fixed = true;
    }
}

/// Phase 3: where the regions go. `totals`: each region's whole size
/// (job, names, modules in `ids` order; summed over ranks in an MPI job).
/// Returns the header and each region's offset.
pub fn layout(totals: &[u64], ids: &[usize], partial_flag: u64) -> (Header, Vec<u64>) {
    let mut starts = Vec::with_capacity(totals.len());
    let mut pos = HEADER_SIZE as u64;
    for t in totals {
        starts.push(pos);
        pos += t;
    }
    let mut header = Header {
        version: LogVersion::V341,
        swapped: false,
        compression: Compression::Zlib,
        partial_flag,
        job_map: RegionMap { off: starts[0], len: totals[0] },
        name_map: RegionMap { off: starts[1], len: totals[1] },
        mod_map: [RegionMap::default(); MAX_MODS],
        mod_ver: [0; MAX_MODS],
    };
    for (k, &id) in ids.iter().enumerate() {
        let len = totals[2 + k];
        if len > 0 && id < MAX_MODS {
            header.mod_map[id] = RegionMap { off: starts[2 + k], len };
            header.mod_ver[id] = crate::runtime::core().module_version(id);
        }
    }
    (header, starts)
}

/// The name table entries a log needs: those of the records some module
/// holds, less `drop` (on an MPI rank other than 0, the shared records,
/// which rank 0 names). Names registered for records that were never
/// written (the standard streams' and an unused heatmap's, registered at
/// start-up on every rank) are left out: at 32 ranks they were half the
/// name table (4,408 against C's 2,213 compressed bytes).
pub fn names_of_records(packed: &[u8], modules: &[&'static dyn Module], drop: &HashSet<u64>) -> Vec<u8> {
    let mut held = HashSet::new();
    for m in modules {
        m.record_ids(&mut |id| {
            held.insert(id);
        });
    }
    names_kept(packed, |id| held.contains(&id) && !drop.contains(&id))
}

/// The packed (id, name, NUL) entries of `packed` whose id `keep` keeps.
fn names_kept(packed: &[u8], keep: impl Fn(u64) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(packed.len());
    let mut rest = packed;
    while rest.len() >= 9 {
        let id = u64::from_le_bytes(rest[..8].try_into().unwrap_or([0; 8]));
        let end = rest[8..].iter().position(|&b| b == 0).map(|p| 8 + p + 1).unwrap_or(rest.len());
        if keep(id) {
            out.extend_from_slice(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_laid_out_back_to_back_after_the_header() {
        let (h, starts) = layout(&[10, 0, 5, 0, 7], &[1, 3, 7], 2);
        let base = HEADER_SIZE as u64;
        assert_eq!(starts, vec![base, base + 10, base + 10, base + 15, base + 15]);
        assert_eq!((h.job_map.off, h.job_map.len), (base, 10));
        assert_eq!((h.name_map.off, h.name_map.len), (base + 10, 0));
        assert_eq!((h.mod_map[1].off, h.mod_map[1].len), (base + 10, 5));
        assert_eq!(h.mod_map[3].len, 0, "a module without bytes has no region");
        assert_eq!(h.mod_ver[3], 0);
        assert_eq!((h.mod_map[7].off, h.mod_map[7].len), (base + 15, 7));
        assert_eq!(h.partial_flag, 2);
        // The encoded header parses back to the same map.
        let back = Header::parse(&h.encode(), base + 22).unwrap();
        assert_eq!(back.mod_map[7].off, base + 15);
    }

    #[test]
    fn names_without_a_record_or_shared_are_left_out_of_the_name_table() {
        let mut packed = Vec::new();
        for (id, n) in [(7u64, "/a"), (9, "/bb"), (11, ""), (13, "<STDIN>")] {
            packed.extend_from_slice(&id.to_le_bytes());
            packed.extend_from_slice(n.as_bytes());
            packed.push(0);
        }
        let kept = names_kept(&packed, |id| id != 9 && id != 13);
        let mut want = Vec::new();
        want.extend_from_slice(&7u64.to_le_bytes());
        want.extend_from_slice(b"/a\0");
        want.extend_from_slice(&11u64.to_le_bytes());
        want.push(0);
        assert_eq!(kept, want);
    }
}
