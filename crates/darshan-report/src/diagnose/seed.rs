//! The seed papers' metrics, as defined in docs/report.md:
//! * Cray XE6 study: redundant read traffic, metadata ratio and metadata
//!   time per process, small independent writes to shared files;
//! * JSC: burstiness ρ and parallel I/O intensity P from the heat map;
//! * NERSC FSU model: file-system seconds t = a0 + a1·b per operation.

use darshan_log::modules;

use super::{finding, Ctx};
use crate::files::FileAgg;
use crate::heat;
use crate::model::{Finding, Fsu, Heatmap, Level, Metrics};
use crate::units;

/// Per-process metadata time: single-rank records by rank, shared
/// records spread evenly over all ranks (their time is the ranks' sum);
/// each the application's and the software loading's.
#[derive(Clone, Copy)]
pub struct RankMeta<'a> {
    pub per_rank: &'a [(f64, f64)],
    pub shared: (f64, f64),
}

impl RankMeta<'_> {
    /// The most metadata time of one process, with the software loading's
    /// or without.
    fn busiest(&self, nprocs: i64, with_software: bool) -> f64 {
        let of = |(app, software): (f64, f64)| if with_software { app + software } else { app };
        let shared = of(self.shared);
        let spread = if nprocs > 0 { shared / nprocs as f64 } else { shared };
        let busiest = self.per_rank.iter().map(|t| of(*t)).fold(0.0, f64::max);
        if shared > 0.0 {
            busiest + spread
        } else {
            busiest
        }
    }
}

pub fn metrics(cx: &Ctx, heatmaps: &[Heatmap]) -> Metrics {
    let mut m = Metrics::default();
    for e in cx.files_of(modules::POSIX) {
        if e.bytes_read() > e.max_byte_read + 1 {
            m.redundant_read_bytes += e.bytes_read() - e.max_byte_read - 1;
            m.redundant_read_files += 1;
        }
    }
    if let Some(p) = cx.sums(modules::POSIX) {
        m.metadata_time = p.times[2];
        m.io_time = p.times[0] + p.times[1];
        let all = m.metadata_time + m.io_time;
        m.metadata_ratio = (all > 0.0).then(|| m.metadata_time / all);
    }
    m.max_metadata_time_per_process = cx.rank_meta.busiest(cx.nprocs, cx.as_drishti.get());
    // The standard streams are left out: processes sharing a terminal or
    // a job's output file write lines there, which is not file I/O to
    // advise on.
    let stream = |id: u64| cx.names.get(id).is_some_and(darshan_log::names::is_std_stream);
    let (mut one_writer, mut one_writer_files) = (0, 0);
    for e in cx.files_of(modules::POSIX).filter(|e| e.shared() && e.small().1 > 0 && !stream(e.id)) {
        let collective = cx.files.get(modules::MPIIO, e.id).is_some_and(|x| x.mpiio_ops().3 > 0);
        if collective {
            continue;
        }
        if may_have_one_writer(e) {
            one_writer += e.small().1;
            one_writer_files += 1;
            continue;
        }
        m.small_shared_independent_writes += e.small().1;
        m.small_shared_independent_write_files += 1;
    }
    if one_writer > 0 {
        cx.withhold(
            "X04",
            format!(
                "{} small writes to {} opened by several processes, but one process may have made them all \
                 (a process the file's record names moved as many bytes as were written to it)",
                units::count(one_writer),
                super::counted(one_writer_files, "file")
            ),
        );
    }
    let pick = ["HEATMAP POSIX", "DXT_POSIX", "HEATMAP MPIIO", "DXT_MPIIO", "HEATMAP STDIO"]
        .iter()
        .find_map(|n| heatmaps.iter().find(|h| h.name == *n && h.per_rank.iter().any(|v| *v > 0.0)));
    if let Some(h) = pick {
        m.burstiness = heat::burstiness(h);
        m.parallel_intensity = heat::parallel_intensity(h);
        m.parallel_intensity_fraction = m.parallel_intensity.map(|p| p / cx.nprocs.max(1) as f64);
        m.heatmap_source = Some(h.name.clone());
    }
    m.fsu = fsu(cx);
    m
}

/// Whether one process may have written every byte of a shared file: a
/// file one process writes and others read (a pipeline's `dd` then
/// `cat`) is shared, but its writes are not. A record names two of the
/// processes (the fastest and the slowest), with their bytes read and
/// written; when either moved as many bytes as the file was written, the
/// log does not show several writers. With two processes it names both.
fn may_have_one_writer(e: &FileAgg) -> bool {
    e.fastest.2.max(e.slowest.2) >= e.bytes_written()
}

/// The share of POSIX bytes on files accessed only through collective
/// MPI-IO (0 without POSIX bytes).
fn collective_share(cx: &Ctx) -> f64 {
    let (mut all, mut coll) = (0i64, 0i64);
    for e in cx.files_of(modules::POSIX) {
        let moved = e.bytes_read() + e.bytes_written();
        all += moved;
        if cx.collective_only(e.id) {
            coll += moved;
        }
    }
    if all == 0 {
        0.0
    } else {
        coll as f64 / all as f64
    }
}

fn fsu(cx: &Ctx) -> Fsu {
    let c = |k: &str| cx.cfg.get(k);
    let mut f = Fsu {
        a0_read: c("fsu_a0_read"),
        a1_read: c("fsu_a1_read"),
        a0_write: c("fsu_a0_write"),
        a1_write: c("fsu_a1_write"),
        calibration: cx.cfg.source.clone(),
        ..Default::default()
    };
    let Some(p) = cx.sums(modules::POSIX) else { return f };
    // Operations from the access-size histogram; bytes exact (Σ over a
    // bucket of a1·b is a1 × the bucket's bytes, and the buckets' bytes
    // add up to the module's).
    for (_, r, w) in &p.layout.size_buckets {
        f.read_ops += p.counters[*r];
        f.write_ops += p.counters[*w];
    }
    f.read_seconds = f.a0_read * f.read_ops as f64 + f.a1_read * p.sum("POSIX_BYTES_READ") as f64;
    f.write_seconds = f.a0_write * f.write_ops as f64 + f.a1_write * p.sum("POSIX_BYTES_WRITTEN") as f64;
    f.load = (cx.run_time > 0.0).then(|| (f.read_seconds + f.write_seconds) / cx.run_time);
    f
}

pub fn findings(cx: &Ctx, m: &Metrics) -> Vec<Finding> {
    // The XE6 study's redundant read traffic is a metric (Metrics) and
    // the finding is P09's: one fact, one finding.
    [
        metadata_share(cx, m),
        metadata_per_process(cx, m),
        small_shared_writes(cx, m),
        bursty(cx, m),
        serialized(cx, m),
        fsu_load(cx, m),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// X03: one process's time in metadata operations.
fn metadata_per_process(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    let limit = cx.cfg.get("metadata_time_rank");
    (m.max_metadata_time_per_process > limit).then(|| {
        finding(
            "X03",
            Level::High,
            format!("A process spends {:.1} s in metadata operations", m.max_metadata_time_per_process),
            vec![format!("threshold {limit} s per process")],
            Some("Reduce file creations and opens per process; use fewer, shared files"),
        )
    })
}

/// X04: small writes to shared files, independent ones under MPI.
fn small_shared_writes(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    if m.small_shared_independent_writes == 0 {
        return None;
    }
    let level = if m.small_shared_independent_writes as f64 > cx.cfg.get("small_requests_absolute") {
        Level::Warn
    } else {
        Level::Info
    };
    Some(finding(
        "X04",
        level,
        format!(
            "{} small (< 1 MiB) {} to {}{}",
            units::count(m.small_shared_independent_writes),
            if cx.mpi { "independent writes" } else { "writes" },
            super::counted(m.small_shared_independent_write_files as i64, "shared file"),
            if cx.mpi { ", without collective I/O" } else { " by several processes" }
        ),
        vec![],
        Some(cx.advice(
            "Write shared files with MPI-IO collective writes (MPI_File_write_all) so aggregators issue large requests",
            "Have one process write each shared file in large requests, or give each process a file of its own",
        )),
    ))
}

/// J01: the busiest time bin against the average (from a heat map).
fn bursty(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    let (rho, src) = (m.burstiness?, m.heatmap_source.as_ref()?);
    if rho <= cx.cfg.get("burstiness") {
        return None;
    }
    if let Some(why) = heat_of_software(cx, src) {
        return withheld(cx, "J01", format!("the busiest time bin moves {rho:.1}× the average, but {why}"));
    }
    Some({
        finding(
            "J01",
            Level::Info,
            format!("Bursty I/O: the busiest time bin moves {rho:.1}× the average"),
            vec![format!("from {src}")],
            Some("Bursts compete for the file system with other jobs; staging (burst buffer) or spreading I/O helps"),
        )
    })
}

/// Why a heat map says little of the application's I/O: most of the
/// bytes of its module are software loading's (a JVM reading its jars,
/// an interpreter its packages), which a heat map bins with the rest.
/// None while the rules count software loading, or for MPI-IO's.
fn heat_of_software(cx: &Ctx, src: &str) -> Option<String> {
    if cx.as_drishti.get() || src.contains("MPIIO") {
        return None;
    }
    let module = if src.contains("STDIO") { modules::STDIO } else { modules::POSIX };
    let (mut software, mut all) = (0i64, 0i64);
    for e in cx.files.of(module) {
        let moved = e.bytes_read().saturating_add(e.bytes_written());
        all = all.saturating_add(moved);
        if cx.software.contains(&e.id) {
            software = software.saturating_add(moved);
        }
    }
    (all > 0 && software >= all - software).then(|| {
        format!(
            "{} of the bytes in {src} are software loading's ({}, N02), which the heat map bins with the application's",
            super::pct(software, all),
            units::bytes(software as f64)
        )
    })
}

/// J02: ranks doing I/O one at a time; withheld when collective MPI-IO
/// moved the bytes (its aggregators are few by design).
fn serialized(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    let (p, src) = (m.parallel_intensity?, m.heatmap_source.as_ref()?);
    if cx.nprocs < 4 || p > 1.5 {
        return None;
    }
    if let Some(why) = heat_of_software(cx, src) {
        return withheld(cx, "J02", format!("on average {p:.2} of {} ranks do I/O at a time, but {why}", cx.nprocs));
    }
    let collective = collective_share(cx);
    if collective >= 0.9 {
        cx.withhold(
            "J02",
            format!(
                "on average {p:.2} of {} ranks do file I/O at a time, but {:.0}% of the POSIX bytes are collective MPI-IO's, which the library's aggregators move (M11)",
                cx.nprocs,
                collective * 100.0
            ),
        );
        return None;
    }
    Some(finding(
        "J02",
        Level::Info,
        format!("I/O is serialized: on average {p:.2} of {} ranks do I/O at a time", cx.nprocs),
        vec![format!("from {src}")],
        Some(cx.advice_for(
            "If one rank does all I/O, parallel I/O (MPI-IO collective, or per-rank files) can use more bandwidth",
            "If one process does all I/O, parallel readers (data-loader workers) or per-process files can use more bandwidth",
            "If one process does all I/O, several processes or threads each reading or writing its own part (or its own file) can use more bandwidth",
        )),
    ))
}

/// F01: the FSU model's file-system seconds per second of run time.
fn fsu_load(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    // Under a second of run time the ratio says more about start-up than load.
    let load = m.fsu.load.filter(|l| *l > cx.cfg.get("fsu_load") && cx.run_time >= 1.0)?;
    Some(finding(
        "F01",
        Level::Info,
        format!("File-system load: {load:.2} file-system seconds per second of run time (FSU model)"),
        vec![format!(
            "{} and {} over the whole run cost the file system {} + {} in {} of run time",
            units::counted(m.fsu.read_ops, "read"),
            units::counted(m.fsu.write_ops, "write"),
            units::secs(m.fsu.read_seconds),
            units::secs(m.fsu.write_seconds),
            units::secs(cx.run_time)
        )],
        Some("Fewer, larger requests cost the file system less per byte"),
    ))
}

/// X02, the XE6 study's metadata share of POSIX I/O time: held back under
/// `min_time`, and when the job's reads and writes went through io_uring
/// (its data time is there, not in POSIX's records).
fn metadata_share(cx: &Ctx, m: &Metrics) -> Option<Finding> {
    let limit = cx.cfg.get("metadata_ratio");
    let r = m.metadata_ratio.filter(|r| *r > limit)?;
    // A job that reads and writes through io_uring has its data time
    // there, not in POSIX's records: its opens are not the whole story.
    let with_uring = m.metadata_time / (m.metadata_time + m.io_time + cx.uring_time);
    if cx.uring_time > 0.0 && with_uring <= limit {
        return withheld(
            cx,
            "X02",
            format!(
                "metadata is {:.1}% of POSIX I/O time, but the reads and writes went through io_uring ({} of \
                 request time): {:.1}% with them",
                r * 100.0,
                units::secs(cx.uring_time),
                with_uring * 100.0
            ),
        );
    }
    if m.metadata_time < cx.min_time() {
        return withheld(
            cx,
            "X02",
            format!(
                "metadata is {:.1}% of POSIX I/O time, but {} in all: under the {} a finding about time needs",
                r * 100.0,
                units::secs(m.metadata_time),
                units::secs(cx.min_time())
            ),
        );
    }
    Some(finding(
        "X02",
        Level::Warn,
        format!("Metadata takes {:.1}% of POSIX I/O time", r * 100.0),
        vec![format!("{} metadata, {} reading and writing", units::secs(m.metadata_time), units::secs(m.io_time))],
        Some("Open, stat and seek less: reuse open files, fewer files, no per-access stat"),
    ))
}

/// X02 held back, saying why.
fn withheld(cx: &Ctx, code: &str, reason: String) -> Option<Finding> {
    cx.withhold(code, reason);
    None
}

#[cfg(test)]
mod tests {
    use super::RankMeta;

    /// A Python process whose imports took 40 s of metadata time (an
    /// import storm on a shared file system) and 2 s on its data: X03
    /// judges the 2 s, and counts the 40 s only as Drishti would.
    #[test]
    fn a_processs_metadata_time_leaves_its_software_loading_out() {
        let per_rank = [(2.0, 40.0), (1.0, 0.0)];
        let meta = RankMeta { per_rank: &per_rank, shared: (4.0, 0.0) };
        assert_eq!(meta.busiest(2, false), 4.0, "2 s of its own and half the shared 4 s");
        assert_eq!(meta.busiest(2, true), 44.0);
    }
}
