//! A job's I/O pattern from its POSIX records: the application's files
//! (software loading, the MPI library's own files and the kernel's
//! pseudo files left out) in groups a benchmark can reproduce: a file
//! shared by ranks is one group; files of one rank each with the same
//! name apart from their numbers
//! (`out.0.dat` ... `out.63.dat`) are one file-per-process group. Each
//! group's bytes, operations, request sizes, sequential share and sync
//! frequency, per rank, from the counters named in `from`.

use std::collections::{BTreeMap, BTreeSet};

use darshan_log::counters::posix as p;
use darshan_log::modules::{MPIIO, POSIX, STDIO};
use darshan_log::roles::{bucket_bounds, Roles};
use darshan_log::{LogFile, Record};

/// One direction of a group's requests, per job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Side {
    /// Jobs that made these requests: every rank of a file per process
    /// group; of a shared file, at most as many ranks as requests.
    pub jobs: u64,
    pub bytes: u64,
    pub ops: u64,
    /// Request sizes and their share of the requests (percent).
    pub sizes: Vec<(u64, u32)>,
    /// Share of requests after each rank's first on each file that
    /// started past the end of the one before (Darshan's sequential).
    pub sequential: f64,
    /// Share of them that started right at the previous one's end
    /// (Darshan's consecutive).
    pub consecutive: f64,
}

impl Side {
    /// "25 B in 3 requests", "7 B in 1 request": the comment lines that
    /// head each command.
    pub fn moved(&self) -> String {
        let s = if self.ops == 1 { "" } else { "s" };
        format!("{} B in {} request{s}", self.bytes, self.ops)
    }
}

/// One group of files as a benchmark job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    /// A file's name, or the pattern of a series (digits as `#`).
    pub name: String,
    /// Shared by ranks (one file, every job on it), else one file per job.
    pub shared: bool,
    /// The ranks that used the shared file, or the series' files.
    pub jobs: u64,
    /// The file's extent (its largest offset + 1), per file.
    pub extent: u64,
    pub read: Side,
    pub write: Side,
    /// Writes per fsync/fdatasync (0: none).
    pub fsync_every: u64,
    /// Files each job uses: 1, or of a series a rank used many files of
    /// (a single process writing `f0` ... `f199999`, a data loader reading
    /// a data set's files) as many as it had.
    pub files_per_job: u64,
    /// Of STDIO streams (fio and IOR have none: replayed as unbuffered
    /// requests of each stream's mean size).
    pub stream: bool,
}

/// Files the job only made, looked at or removed (no data): a series of
/// them is a metadata job (fio's filecreate, filestat and filedelete
/// engines), per file on average.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetaGroup {
    pub name: String,
    pub files: u64,
    /// The ranks that used them.
    pub ranks: u64,
    pub opens: u64,
    pub stats: u64,
    pub unlinks: u64,
}

impl Group {
    /// What the group is, for a comment line.
    pub fn who(&self) -> String {
        let n = |k: u64, one: &str, many: &str| if k == 1 { format!("1 {one}") } else { format!("{k} {many}") };
        match (self.shared, self.files_per_job) {
            (true, _) => format!("shared by {}", n(self.jobs, "rank", "ranks")),
            (false, 1) => format!("{}, one per process", n(self.jobs, "file", "files")),
            (false, k) => format!("{} with {k} files each", n(self.jobs, "process", "processes")),
        }
    }
}

impl MetaGroup {
    /// One comment line of it (the name's control characters escaped).
    pub fn summary(&self) -> String {
        format!(
            "{}: {} files without data on {} ranks; per file {} opens, {} stats, {} unlinks",
            darshan_util::visible::visible(&self.name),
            self.files,
            self.ranks,
            self.opens,
            self.stats,
            self.unlinks
        )
    }
}

/// Paths whose I/O is the system's or the MPI library's, not the
/// application's.
fn not_application(name: &str) -> bool {
    darshan_log::software::software_loading(name).is_some()
        || darshan_log::software::mpi_internal(name).is_some()
        || ["/proc/", "/sys/", "/dev/"].iter().any(|p| name.starts_with(p))
        || name.starts_with('<')
}

pub use darshan_util::series::pattern;

#[derive(Default)]
struct Acc {
    /// The group's file names (a set: a series of 200,000 files searched
    /// as a list took a minute).
    names: BTreeSet<String>,
    ranks: u64,
    /// The ranks of its records of one rank each.
    rank_set: BTreeSet<i64>,
    shared: bool,
    extent: u64,
    c: Vec<f64>,
    /// Common access sizes (POSIX_ACCESS1..4 of each record) and counts.
    access: BTreeMap<u64, f64>,
}

/// Each record of `modules` in `log` with its file's name ("" without
/// one): the one loop the groups and --check's totals read logs with.
pub fn each_named(
    log: &LogFile,
    modules: &[usize],
    mut f: impl FnMut(usize, &str, &Record),
) -> Result<(), darshan_log::LogError> {
    let names = log.names()?;
    for &m in modules {
        if log.header.mod_map[m].len == 0 {
            continue;
        }
        let mut rd = log.module_reader(m)?;
        let mut rec = Record::new(m);
        while rd.next_into(&mut rec)? {
            let name = names.get(rec.id).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_default();
            f(m, &name, &rec);
        }
    }
    Ok(())
}

/// The metadata groups: POSIX records without data, with the POSIX_META
/// unlinks of the same paths.
pub fn meta_groups(log: &LogFile) -> Result<Vec<MetaGroup>, darshan_log::LogError> {
    // pattern → (names, opens, stats, unlinks, ranks)
    type Series = (BTreeSet<String>, u64, u64, u64, BTreeSet<i64>);
    let mut acc: BTreeMap<String, Series> = BTreeMap::new();
    let nprocs = log.job.nprocs.max(1) as u64;
    each_named(log, &[POSIX, darshan_log::modules::POSIX_META], |m, name, rec| {
        if name.is_empty() || not_application(name) {
            return;
        }
        let c = |k: usize| rec.counters.get(k).copied().unwrap_or(0).max(0) as u64;
        if m == POSIX {
            if c(p::BYTES_READ) + c(p::BYTES_WRITTEN) > 0 || c(p::OPENS) + c(p::STATS) == 0 {
                return;
            }
            let e = acc.entry(pattern(name)).or_default();
            e.0.insert(name.to_string());
            e.1 = e.1.saturating_add(c(p::OPENS));
            e.2 = e.2.saturating_add(c(p::STATS));
            e.4.insert(rec.rank);
        } else if let Some(e) = acc.get_mut(&pattern(name)) {
            e.3 = e.3.saturating_add(c(darshan_log::counters::posix_meta::UNLINKS));
        }
    })?;
    Ok(acc
        .into_iter()
        .filter(|(_, v)| v.0.len() > 1)
        .map(|(name, (files, opens, stats, unlinks, ranks))| {
            let n = files.len() as u64;
            let per = |x: u64| (x as f64 / n as f64).round() as u64;
            // A shared record (rank -1) stands for every rank.
            let ranks = if ranks.contains(&-1) { nprocs } else { ranks.len() as u64 };
            MetaGroup { name, files: n, ranks, opens: per(opens), stats: per(stats), unlinks: per(unlinks) }
        })
        .collect())
}

/// What a group is made of that [`Roles`] does not name, per direction
/// ([read, write]): the operations (MPI-IO's are of four kinds), the
/// sequential and consecutive requests, the syncs.
struct Fields {
    ops: [&'static [usize]; 2],
    seq: Option<[usize; 2]>,
    consec: Option<[usize; 2]>,
    syncs: &'static [usize],
}

fn fields(module: usize) -> Option<Fields> {
    use darshan_log::counters::{mpiio as m, stdio as s};
    Some(match module {
        POSIX => Fields {
            ops: [&[p::READS], &[p::WRITES]],
            seq: Some([p::SEQ_READS, p::SEQ_WRITES]),
            consec: Some([p::CONSEC_READS, p::CONSEC_WRITES]),
            syncs: &[p::FSYNCS, p::FDSYNCS],
        },
        // The application's own requests; its POSIX ones are the MPI
        // library's, after aggregation.
        MPIIO => Fields {
            ops: [
                &[m::INDEP_READS, m::COLL_READS, m::SPLIT_READS, m::NB_READS],
                &[m::INDEP_WRITES, m::COLL_WRITES, m::SPLIT_WRITES, m::NB_WRITES],
            ],
            seq: None,
            consec: None,
            syncs: &[],
        },
        // Streams: written and read in order (STDIO has no sequential
        // counters or size buckets: each request is the mean).
        STDIO => Fields { ops: [&[s::READS], &[s::WRITES]], seq: None, consec: None, syncs: &[] },
        _ => return None,
    })
}

/// The groups of the log's POSIX records.
pub fn groups(log: &LogFile) -> Result<Vec<Group>, darshan_log::LogError> {
    groups_in(log, POSIX)
}

/// The groups of one module's records (POSIX, MPIIO or STDIO).
pub fn groups_in(log: &LogFile, module: usize) -> Result<Vec<Group>, darshan_log::LogError> {
    let (Some(roles), Some(f)) = (Roles::of(module), fields(module)) else { return Ok(Vec::new()) };
    let mut accs: BTreeMap<(bool, String), Acc> = BTreeMap::new();
    let nprocs = log.job.nprocs.max(1) as u64;
    each_named(log, &[module], |_, name, rec| {
        if name.is_empty() || not_application(name) {
            return;
        }
        let shared = rec.rank < 0;
        let key = if shared { (true, name.to_string()) } else { (false, pattern(name)) };
        let a = accs.entry(key).or_default();
        a.shared |= shared;
        if !a.names.contains(name) {
            a.names.insert(name.to_string());
        }
        a.ranks = if shared { nprocs } else { a.ranks + 1 };
        if !shared {
            a.rank_set.insert(rec.rank);
        }
        let c = |k: usize| rec.counters.get(k).copied().unwrap_or(0).max(0) as u64;
        if let (Some(r), Some(w)) = (roles.max_byte_read, roles.max_byte_written) {
            a.extent = a.extent.max(c(r).max(c(w)) + 1);
        }
        if a.c.is_empty() {
            a.c = vec![0.0; rec.counters.len()];
        }
        for (k, v) in rec.counters.iter().enumerate() {
            a.c[k] += (*v).max(0) as f64;
        }
        for (size, count) in &roles.access {
            if c(*size) > 0 && c(*count) > 0 {
                *a.access.entry(c(*size)).or_default() += c(*count) as f64;
            }
        }
    })?;
    let mut out: Vec<Group> = accs.into_iter().map(|((_, key), a)| group(&roles, &f, key, a)).collect();
    out.retain(|g| g.read.bytes + g.write.bytes > 0);
    Ok(out)
}

fn group(roles: &Roles, f: &Fields, key: String, a: Acc) -> Group {
    // One name used by several ranks, each with its own record (a file
    // not every rank opened): shared by those ranks.
    let shared = a.shared || (a.names.len() == 1 && a.ranks > 1);
    // A series is a file per process only where its ranks are as many as
    // its files: a rank that used many of them is one job over its files.
    let files = a.names.len().max(1) as u64;
    let jobs = if shared { a.ranks } else { (a.rank_set.len() as u64).min(files) }.max(1);
    let bytes = [roles.bytes_read, roles.bytes_written].map(|k| k.map_or(0.0, |k| a.c[k]));
    let side = |read: bool| -> Side {
        let d = usize::from(!read);
        let ops: f64 = f.ops[d].iter().map(|k| a.c[*k]).sum();
        // A shared file's requests of one kind may come from fewer ranks
        // than used it (one rank wrote what all read).
        let jobs = if shared { jobs.min(ops as u64).max(1) } else { jobs };
        let mut counts: Vec<(u64, f64)> = roles
            .size_buckets
            .iter()
            .map(|(label, r, w)| (typical(label, &a.access), a.c[if read { *r } else { *w }]))
            .filter(|x| x.1 > 0.0)
            .collect();
        if roles.size_buckets.is_empty() && ops > 0.0 {
            counts.push(((bytes[d] / ops).round().max(1.0) as u64, ops));
        }
        // Darshan counts a request sequential when it starts past the end
        // of the one before on that file and rank: the first never is (one
        // per job on a shared file, one per record of a series).
        let firsts = if shared { jobs } else { a.ranks };
        let after_first = ops - firsts as f64;
        let share = |k: Option<[usize; 2]>| match k {
            Some(k) if after_first > 0.0 => (a.c[k[d]] / after_first).clamp(0.0, 1.0),
            _ => 1.0,
        };
        Side {
            jobs,
            bytes: (bytes[d] / jobs as f64).round() as u64,
            ops: (ops / jobs as f64).round() as u64,
            sizes: percents(&counts),
            sequential: share(f.seq),
            consecutive: share(f.consec),
        }
    };
    let syncs: f64 = f.syncs.iter().map(|k| a.c[*k]).sum();
    let writes: f64 = f.ops[1].iter().map(|k| a.c[*k]).sum();
    Group {
        name: match (a.names.len(), a.names.first()) {
            (1, Some(only)) => only.clone(),
            _ => key,
        },
        shared,
        jobs,
        extent: a.extent,
        read: side(true),
        write: side(false),
        fsync_every: if syncs > 0.0 { (writes / syncs).round().max(1.0) as u64 } else { 0 },
        files_per_job: if shared { 1 } else { files.div_ceil(jobs) },
        stream: roles.module == STDIO,
    }
}

/// The request size that stands for a bucket: the most common access
/// size that falls in it (POSIX_ACCESS1..4), else the bucket's middle.
fn typical(label: &str, access: &BTreeMap<u64, f64>) -> u64 {
    let (lo, hi) = bucket_bounds(label);
    // Darshan's buckets end at their upper bound: 100 B is in 0_100.
    let inside = |s: f64| (lo == 0.0 || s > lo) && hi.is_none_or(|h| s <= h);
    let best = access.iter().filter(|(s, _)| inside(**s as f64)).max_by(|a, b| a.1.total_cmp(b.1));
    if let Some((s, _)) = best {
        return *s;
    }
    match hi {
        Some(h) => ((lo.max(1.0) + h) / 2.0) as u64,
        None => (lo * 2.0) as u64,
    }
}

/// Counts as whole percents that add up to 100 (none under 1).
fn percents(counts: &[(u64, f64)]) -> Vec<(u64, u32)> {
    let total: f64 = counts.iter().map(|c| c.1).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    let mut out: Vec<(u64, u32)> =
        counts.iter().map(|(s, n)| (*s, ((n / total * 100.0).round() as u32).max(1))).collect();
    let sum: i64 = out.iter().map(|x| x.1 as i64).sum();
    if let Some(big) = out.iter_mut().max_by_key(|x| x.1) {
        big.1 = (big.1 as i64 + 100 - sum).max(1) as u32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percents_add_up_to_a_hundred() {
        let p = percents(&[(4096, 999.0), (1 << 20, 1.0)]);
        assert_eq!(p.iter().map(|x| x.1).sum::<u32>(), 100);
        assert_eq!(p, vec![(4096, 99), (1 << 20, 1)]);
    }

    /// The demo's MPI job said "writes per task: 7 B in 1 requests".
    #[test]
    fn a_single_request_was_said_as_1_requests() {
        let side = |bytes, ops| Side { bytes, ops, ..Side::default() };
        assert_eq!(side(7, 1).moved(), "7 B in 1 request");
        assert_eq!(side(25, 3).moved(), "25 B in 3 requests");
        assert_eq!(side(0, 0).moved(), "0 B in 0 requests");
    }
}
