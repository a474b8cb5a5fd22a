//! System-level metrics over the facility's timeline (docs/facility.md):
//!
//! * JSC: burstiness ρ_c and parallel I/O intensity P_c, for activity
//!   thresholds c = 0, 128 KiB and 1 MiB per interval of Δt seconds;
//!   "servers" are OSTs where LUSTRE records name them, else the job's
//!   processes (a Darshan log has no rank-to-node map);
//! * NERSC FSU: FSU(t) = 100/Δt · Σ (N_W (w0 + w1 b) + N_R (r0 + r1 b)),
//!   and the bandwidth-only share 100/Δt · Σ (w1 b_W + r1 b_R) beside it.
//!
//! Each file record's bytes and operations are spread evenly over its
//! read (write) interval from the F_*_START/END_TIMESTAMP counters, or over
//! the job's run when a record has none (or a time outside the job's run).
//!
//! Times come from logs and can lie: jobs that start before 2000, end
//! before they start or run longer than a year are left out of the
//! timeline (and counted in `jobs_left_out`), so one log cannot stretch
//! the facility's timeline over centuries or spread a record over
//! millions of intervals.

use crate::error::StudyError;
use std::collections::HashMap;

use rusqlite::Connection;
use serde::Serialize;

/// Jobs the timeline takes: started after 2000-01-01 (before Darshan 3),
/// ended no earlier than they started, ran at most 366 days.
const PLAUSIBLE_JOB: &str =
    "j.start_time >= 946684800 AND j.end_time >= j.start_time AND j.end_time - j.start_time <= 31622400";

/// The most intervals a timeline may have (50 years of 30 s intervals).
const MAX_INTERVALS: f64 = 5e7;

/// The most (record, interval) pieces the timeline spreads bytes into:
/// each costs a few map updates. Past it, Δt is widened (and the study
/// says so): 200,000 records of a year-long job at 600 s would be 10^10.
pub const SPREAD_BUDGET: f64 = 3e7;

/// Activity thresholds c, bytes per interval and server.
pub const THRESHOLDS: [f64; 3] = [0.0, 131072.0, 1048576.0];

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Fsu {
    pub a0_read: f64,
    pub a1_read: f64,
    pub a0_write: f64,
    pub a1_write: f64,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Point {
    /// Interval start, Unix seconds.
    pub t: i64,
    pub read_bytes: f64,
    pub write_bytes: f64,
    /// Servers moving more than c bytes, for each threshold.
    pub active_servers: [u64; 3],
    pub fsu_percent: f64,
    pub bandwidth_percent: f64,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Timeline {
    pub interval_seconds: f64,
    pub start_time: i64,
    /// Intervals from the first job's start to the last job's end.
    pub intervals: u64,
    pub thresholds: [f64; 3],
    pub burstiness: [Option<f64>; 3],
    pub parallel_intensity: [Option<f64>; 3],
    pub fsu_mean_percent: f64,
    pub fsu_max_percent: f64,
    pub bandwidth_mean_percent: f64,
    /// Servers behind P: "OSTs", "processes" or both.
    pub servers: String,
    /// Jobs whose times are impossible (before 2000, ending before they
    /// start, longer than a year), left out of the timeline.
    pub jobs_left_out: i64,
    /// The Δt asked for, when the records spread over more pieces than
    /// `SPREAD_BUDGET` at it and `interval_seconds` was widened.
    pub requested_interval_seconds: Option<f64>,
    /// Intervals with I/O, in time order.
    pub points: Vec<Point>,
}

/// ρ_c: the largest interval volume over the mean volume per interval,
/// counting intervals at or under c as idle. `n` is the number of
/// intervals in the timeline (idle ones included); None without I/O above c.
pub fn burstiness(volumes: &[f64], n: u64, c: f64) -> Option<f64> {
    let kept = volumes.iter().copied().filter(|v| *v > c);
    let (sum, max) = kept.fold((0.0, 0.0f64), |(s, m), v| (s + v, m.max(v)));
    (sum > 0.0 && n > 0).then(|| max / (sum / n as f64))
}

/// P_c: the mean number of active servers over the intervals that have any.
pub fn parallel_intensity(active: &[u64]) -> Option<f64> {
    let busy: Vec<f64> = active.iter().filter(|a| **a > 0).map(|a| *a as f64).collect();
    (!busy.is_empty()).then(|| busy.iter().sum::<f64>() / busy.len() as f64)
}

/// Bytes and operations, read and written.
#[derive(Default, Clone, Copy)]
struct Flow {
    read_bytes: f64,
    write_bytes: f64,
    read_ops: f64,
    write_ops: f64,
}

impl Flow {
    fn scaled(self, k: f64) -> Flow {
        Flow {
            read_bytes: self.read_bytes * k,
            write_bytes: self.write_bytes * k,
            read_ops: self.read_ops * k,
            write_ops: self.write_ops * k,
        }
    }
}

impl std::ops::AddAssign for Flow {
    fn add_assign(&mut self, o: Flow) {
        self.read_bytes += o.read_bytes;
        self.write_bytes += o.write_bytes;
        self.read_ops += o.read_ops;
        self.write_ops += o.write_ops;
    }
}

/// Where one interval's bytes went: per OST, and per job (per rank plus
/// shared records, which are spread over all the job's processes).
#[derive(Default)]
struct Slot {
    flow: Flow,
    osts: HashMap<i64, f64>,
    jobs: HashMap<i64, JobSlot>,
}

#[derive(Default)]
struct JobSlot {
    nprocs: i64,
    shared: f64,
    ranks: HashMap<i64, f64>,
}

impl JobSlot {
    /// Processes moving more than c bytes: those with their own records
    /// (plus their share of the shared ones), then the rest by the share.
    fn active(&self, c: f64) -> u64 {
        let share = if self.nprocs > 0 { self.shared / self.nprocs as f64 } else { 0.0 };
        let own = self.ranks.values().filter(|b| **b + share > c).count() as u64;
        let rest = (self.nprocs - self.ranks.len() as i64).max(0) as u64;
        own + if share > c { rest } else { 0 }
    }
}

struct Acc {
    dt: f64,
    origin: f64,
    slots: HashMap<i64, Slot>,
}

impl Acc {
    /// Spread `f` evenly over [a, b] (Unix seconds), to `server`.
    fn spread(&mut self, a: f64, b: f64, f: Flow, server: Server, nprocs: i64) {
        if !(a.is_finite() && b.is_finite()) {
            return;
        }
        let k0 = ((a - self.origin) / self.dt).floor() as i64;
        let k1 = ((b - self.origin) / self.dt).floor().max(k0 as f64) as i64;
        let len = b - a;
        for k in k0..=k1 {
            let frac = if k0 == k1 || len <= 0.0 {
                1.0
            } else {
                let lo = a.max(self.origin + k as f64 * self.dt);
                let hi = b.min(self.origin + (k + 1) as f64 * self.dt);
                ((hi - lo) / len).max(0.0)
            };
            if frac == 0.0 {
                continue;
            }
            let slot = self.slots.entry(k).or_default();
            let part = f.scaled(frac);
            slot.flow += part;
            let bytes = part.read_bytes + part.write_bytes;
            match &server {
                Server::Osts(osts) => {
                    for o in osts.iter() {
                        *slot.osts.entry(*o).or_default() += bytes / osts.len() as f64;
                    }
                }
                Server::Rank { log_id, rank } => {
                    let j = slot.jobs.entry(*log_id).or_default();
                    j.nprocs = nprocs;
                    if *rank < 0 {
                        j.shared += bytes;
                    } else {
                        *j.ranks.entry(*rank).or_default() += bytes;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Server<'a> {
    Osts(&'a [i64]),
    Rank { log_id: i64, rank: i64 },
}

/// One record's read or write flow, to be spread over [a, b].
struct Piece {
    a: f64,
    b: f64,
    flow: Flow,
    /// (log_id, record_id) of its OSTs, else the rank it counts for.
    log_id: i64,
    record_id: i64,
    rank: i64,
    nprocs: i64,
}

/// The POSIX and STDIO records with data, with their job's times.
const FLOWS_SQL: &str = "
SELECT r.log_id, r.record_id, r.rank, j.start_time, j.end_time, j.nprocs,
  r.POSIX_BYTES_READ, r.POSIX_BYTES_WRITTEN,
  r.POSIX_SIZE_READ_0_100 + r.POSIX_SIZE_READ_100_1K + r.POSIX_SIZE_READ_1K_10K + r.POSIX_SIZE_READ_10K_100K
   + r.POSIX_SIZE_READ_100K_1M + r.POSIX_SIZE_READ_1M_4M + r.POSIX_SIZE_READ_4M_10M + r.POSIX_SIZE_READ_10M_100M
   + r.POSIX_SIZE_READ_100M_1G + r.POSIX_SIZE_READ_1G_PLUS,
  r.POSIX_SIZE_WRITE_0_100 + r.POSIX_SIZE_WRITE_100_1K + r.POSIX_SIZE_WRITE_1K_10K + r.POSIX_SIZE_WRITE_10K_100K
   + r.POSIX_SIZE_WRITE_100K_1M + r.POSIX_SIZE_WRITE_1M_4M + r.POSIX_SIZE_WRITE_4M_10M + r.POSIX_SIZE_WRITE_10M_100M
   + r.POSIX_SIZE_WRITE_100M_1G + r.POSIX_SIZE_WRITE_1G_PLUS,
  r.POSIX_F_READ_START_TIMESTAMP, r.POSIX_F_READ_END_TIMESTAMP,
  r.POSIX_F_WRITE_START_TIMESTAMP, r.POSIX_F_WRITE_END_TIMESTAMP
FROM posix_records r JOIN jobs j ON j.log_id = r.log_id
WHERE (r.POSIX_BYTES_READ > 0 OR r.POSIX_BYTES_WRITTEN > 0) AND PLAUSIBLE_JOB
UNION ALL
SELECT r.log_id, r.record_id, r.rank, j.start_time, j.end_time, j.nprocs,
  r.STDIO_BYTES_READ, r.STDIO_BYTES_WRITTEN, r.STDIO_READS, r.STDIO_WRITES,
  r.STDIO_F_READ_START_TIMESTAMP, r.STDIO_F_READ_END_TIMESTAMP,
  r.STDIO_F_WRITE_START_TIMESTAMP, r.STDIO_F_WRITE_END_TIMESTAMP
FROM stdio_records r JOIN jobs j ON j.log_id = r.log_id
WHERE (r.STDIO_BYTES_READ > 0 OR r.STDIO_BYTES_WRITTEN > 0) AND PLAUSIBLE_JOB";

pub fn compute(conn: &Connection, dt: f64, fsu: Fsu) -> Result<Timeline, StudyError> {
    let (t0, t1, left_out) = job_span(conn)?;
    let mut tl =
        Timeline { interval_seconds: dt, thresholds: THRESHOLDS, jobs_left_out: left_out, ..Default::default() };
    let (Some(t0), Some(t1)) = (t0, t1) else { return Ok(tl) };
    tl.start_time = t0;
    let intervals = (t1 - t0).max(0) as f64 / dt;
    if intervals > MAX_INTERVALS {
        return Err(StudyError::TooManyIntervals { intervals, dt, span: t1 - t0 });
    }
    let osts = ost_lists(conn)?;
    // Read every flow first: what spreading them costs decides Δt.
    let pieces = read_pieces(conn)?;
    let dt = fit_interval(&mut tl, &pieces, dt);
    tl.intervals = ((t1 - t0).max(0) as f64 / dt).floor() as u64 + 1;
    let mut acc = Acc { dt, origin: t0 as f64, slots: HashMap::new() };
    let (mut by_ost, mut by_rank) = (false, false);
    for p in &pieces {
        let server = match osts.get(&(p.log_id, p.record_id)) {
            Some(o) if !o.is_empty() => {
                by_ost = true;
                Server::Osts(o)
            }
            _ => {
                by_rank = true;
                Server::Rank { log_id: p.log_id, rank: p.rank }
            }
        };
        acc.spread(p.a, p.b, p.flow, server, p.nprocs);
    }
    tl.servers = match (by_ost, by_rank) {
        (true, true) => "OSTs (files with LUSTRE records) and processes (the rest)",
        (true, false) => "OSTs",
        _ => "processes",
    }
    .into();
    finish(&mut tl, acc, fsu);
    Ok(tl)
}

/// The first start and last end of the plausible jobs, and how many jobs
/// were left out as implausible.
fn job_span(conn: &Connection) -> Result<(Option<i64>, Option<i64>, i64), StudyError> {
    conn.query_row(
        &format!(
            "SELECT MIN(CASE WHEN {PLAUSIBLE_JOB} THEN j.start_time END), MAX(CASE WHEN {PLAUSIBLE_JOB} THEN j.end_time END),
                    SUM(CASE WHEN {PLAUSIBLE_JOB} THEN 0 ELSE 1 END) FROM jobs j"
        ),
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<i64>>(2)?.unwrap_or(0))),
    )
    .map_err(StudyError::sql("timeline"))
}

/// Each LUSTRE record's OSTs, by (log_id, record_id).
fn ost_lists(conn: &Connection) -> Result<HashMap<(i64, i64), Vec<i64>>, StudyError> {
    let e = StudyError::sql("timeline");
    let mut osts: HashMap<(i64, i64), Vec<i64>> = HashMap::new();
    let mut st =
        conn.prepare("SELECT DISTINCT log_id, record_id, ost_id FROM lustre_osts ORDER BY 1, 2, 3").map_err(&e)?;
    let mut rows = st.query([]).map_err(&e)?;
    while let Some(r) = rows.next().map_err(&e)? {
        osts.entry((r.get(0).map_err(&e)?, r.get(1).map_err(&e)?)).or_default().push(r.get(2).map_err(&e)?);
    }
    Ok(osts)
}

/// Every POSIX and STDIO record's read and write flows, each over the
/// record's own times when they lie within its job's run, else the run.
fn read_pieces(conn: &Connection) -> Result<Vec<Piece>, StudyError> {
    let e = StudyError::sql("timeline");
    let mut pieces: Vec<Piece> = Vec::new();
    let mut st = conn.prepare(&FLOWS_SQL.replace("PLAUSIBLE_JOB", PLAUSIBLE_JOB)).map_err(&e)?;
    let mut rows = st.query([]).map_err(&e)?;
    while let Some(r) = rows.next().map_err(&e)? {
        let g = |i: usize| r.get::<_, Option<f64>>(i).map(|v| v.unwrap_or(0.0));
        let (log_id, record_id, rank): (i64, i64, i64) =
            (r.get(0).map_err(&e)?, r.get(1).map_err(&e)?, r.get(2).map_err(&e)?);
        let (start, end, nprocs): (i64, i64, i64) =
            (r.get(3).map_err(&e)?, r.get(4).map_err(&e)?, r.get(5).map_err(&e)?);
        let v: Vec<f64> = (6..14).map(g).collect::<Result<_, _>>().map_err(&e)?;
        // A record's own times (seconds from the job's start) when they lie
        // within the job's run, else the whole run.
        let run = (end - start) as f64 + 1.0;
        let span = |a: f64, b: f64| {
            if b > 0.0 && b >= a && a >= 0.0 && b <= run {
                (start as f64 + a, start as f64 + b)
            } else {
                (start as f64, end.max(start) as f64)
            }
        };
        let (ra, rb) = span(v[4], v[5]);
        let (wa, wb) = span(v[6], v[7]);
        let piece = |a, b, flow| Piece { a, b, flow, log_id, record_id, rank, nprocs };
        if v[0] > 0.0 {
            pieces.push(piece(ra, rb, Flow { read_bytes: v[0], read_ops: v[2], ..Default::default() }));
        }
        if v[1] > 0.0 {
            pieces.push(piece(wa, wb, Flow { write_bytes: v[1], write_ops: v[3], ..Default::default() }));
        }
    }
    Ok(pieces)
}

/// The interval to use: `dt` as asked, unless spreading the pieces over
/// it costs more than SPREAD_BUDGET slots; then the smallest multiple
/// (doubled until it fits) that does not, and `tl` says what was asked.
fn fit_interval(tl: &mut Timeline, pieces: &[Piece], dt: f64) -> f64 {
    let cost = |dt: f64| pieces.iter().map(|p| ((p.b - p.a).max(0.0) / dt).floor() + 2.0).sum::<f64>();
    let mut dt = dt;
    let at_asked = cost(dt);
    if at_asked > SPREAD_BUDGET {
        tl.requested_interval_seconds = Some(dt);
        dt *= (at_asked / SPREAD_BUDGET).ceil();
        while cost(dt) > SPREAD_BUDGET {
            dt *= 2.0;
        }
        tl.interval_seconds = dt;
    }
    dt
}

fn finish(tl: &mut Timeline, acc: Acc, fsu: Fsu) {
    let dt = tl.interval_seconds;
    let mut keys: Vec<i64> = acc.slots.keys().copied().collect();
    keys.sort();
    for k in keys {
        let s = &acc.slots[&k];
        let f = s.flow;
        let mut p = Point {
            t: tl.start_time + (k as f64 * dt) as i64,
            read_bytes: f.read_bytes,
            write_bytes: f.write_bytes,
            ..Default::default()
        };
        for (i, c) in THRESHOLDS.iter().enumerate() {
            let osts = s.osts.values().filter(|b| **b > *c).count() as u64;
            p.active_servers[i] = osts + s.jobs.values().map(|j| j.active(*c)).sum::<u64>();
        }
        let bw = fsu.a1_read * f.read_bytes + fsu.a1_write * f.write_bytes;
        p.bandwidth_percent = 100.0 / dt * bw;
        p.fsu_percent = 100.0 / dt * (bw + fsu.a0_read * f.read_ops + fsu.a0_write * f.write_ops);
        tl.points.push(p);
    }
    let volumes: Vec<f64> = tl.points.iter().map(|p| p.read_bytes + p.write_bytes).collect();
    for (i, c) in THRESHOLDS.iter().enumerate() {
        tl.burstiness[i] = burstiness(&volumes, tl.intervals, *c);
        let active: Vec<u64> = tl.points.iter().map(|p| p.active_servers[i]).collect();
        tl.parallel_intensity[i] = parallel_intensity(&active);
    }
    let n = tl.intervals.max(1) as f64;
    tl.fsu_mean_percent = tl.points.iter().map(|p| p.fsu_percent).sum::<f64>() / n;
    tl.fsu_max_percent = tl.points.iter().map(|p| p.fsu_percent).fold(0.0, f64::max);
    tl.bandwidth_mean_percent = tl.points.iter().map(|p| p.bandwidth_percent).sum::<f64>() / n;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsc_metrics_on_a_hand_made_interval_series() {
        // Ten intervals; I/O in three of them: 1 MiB, 64 KiB, 3 MiB.
        let v = [1048576.0, 65536.0, 3.0 * 1048576.0];
        // c = 0: mean over all ten intervals = (4 MiB + 64 KiB) / 10.
        let mean = (4.0 * 1048576.0 + 65536.0) / 10.0;
        assert_eq!(burstiness(&v, 10, 0.0), Some(3.0 * 1048576.0 / mean));
        // c = 128 KiB: the 64 KiB interval counts as idle.
        assert_eq!(burstiness(&v, 10, 131072.0), Some(3.0 * 1048576.0 / (4.0 * 1048576.0 / 10.0)));
        // c = 1 MiB: only the 3 MiB interval is above it.
        assert_eq!(burstiness(&v, 10, 1048576.0), Some(10.0));
        assert_eq!(burstiness(&[], 10, 0.0), None);
        // Servers active per interval: idle intervals are left out of P.
        assert_eq!(parallel_intensity(&[0, 4, 0, 2, 0]), Some(3.0));
        assert_eq!(parallel_intensity(&[0, 0]), None);
    }

    #[test]
    fn a_shared_record_makes_every_process_active_by_its_share() {
        let j = JobSlot { nprocs: 4, shared: 400.0, ranks: [(0, 50.0)].into_iter().collect() };
        assert_eq!(j.active(0.0), 4);
        assert_eq!(j.active(120.0), 1, "rank 0 has 150; the others 100 each");
        assert_eq!(j.active(200.0), 0);
    }

    #[test]
    fn a_flow_is_spread_over_the_intervals_it_spans_by_time() {
        let mut acc = Acc { dt: 10.0, origin: 0.0, slots: HashMap::new() };
        let f = Flow { write_bytes: 100.0, write_ops: 4.0, ..Default::default() };
        acc.spread(5.0, 25.0, f, Server::Rank { log_id: 1, rank: 0 }, 1);
        let w = |k: i64| acc.slots[&k].flow.write_bytes;
        assert_eq!((w(0), w(1), w(2)), (25.0, 50.0, 25.0));
        assert_eq!(acc.slots[&1].flow.write_ops, 2.0);
    }
}
