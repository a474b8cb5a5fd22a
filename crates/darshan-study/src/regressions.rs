//! Runs that moved beyond their own history: per application, each run
//! judged against the application's earlier runs at the same process
//! count (the last [`WINDOW`], at least darshan_history::MIN_RUNS), on
//! the facts darshan-ingest stores (`job_facts`), by the rules of
//! darshan-summary's history section.

use std::collections::HashMap;

use darshan_ingest::facts::Fact;
use rusqlite::Connection;
use serde::Serialize;

/// Earlier runs a run is judged against, at most.
pub const WINDOW: usize = 20;
/// Runs listed, the newest first.
pub const LISTED: usize = 100;

#[derive(Debug, Serialize, Default)]
pub struct Regressions {
    /// Whether the database has the facts (schema 4; an older one gets
    /// them when darshan-ingest next opens it).
    pub available: bool,
    /// Runs with enough earlier runs to be judged, and those that moved.
    pub judged: usize,
    pub moved: usize,
    pub apps: Vec<AppCount>,
    /// Over the facility's timeline: per week (from Monday 00:00 UTC),
    /// the runs judged and those that moved.
    pub weeks: Vec<Week>,
    /// The newest [`LISTED`] runs that moved.
    pub runs: Vec<MovedRun>,
}

#[derive(Debug, Serialize)]
pub struct AppCount {
    pub app: String,
    pub judged: usize,
    pub moved: usize,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Week {
    /// Monday 00:00 UTC, seconds since the epoch.
    pub start: i64,
    pub judged: usize,
    pub moved: usize,
}

/// Monday 00:00 UTC of the week `t` falls in (1970-01-01 was a Thursday).
pub fn week_of(t: i64) -> i64 {
    const WEEK: i64 = 7 * 86_400;
    const MONDAY: i64 = 4 * 86_400;
    (t - MONDAY).div_euclid(WEEK) * WEEK + MONDAY
}

#[derive(Debug, Serialize)]
pub struct MovedRun {
    pub app: String,
    pub jobid: i64,
    pub log_id: i64,
    pub start_time: i64,
    pub nprocs: i64,
    pub earlier: usize,
    pub figures: Vec<Figure>,
}

#[derive(Debug, Serialize)]
pub struct Figure {
    pub scope: String,
    pub fact: String,
    pub label: String,
    pub direction: String,
    pub now_text: String,
    pub usual_text: String,
}

struct Job {
    log_id: i64,
    app: String,
    jobid: i64,
    nprocs: i64,
    start_time: i64,
    run_time: f64,
}

fn jobs(conn: &Connection) -> rusqlite::Result<Vec<Job>> {
    let mut st = conn.prepare(
        "SELECT j.log_id, COALESCE(j.app, ''), j.jobid, j.nprocs, j.start_time, COALESCE(j.run_time, 0) FROM jobs j \
         JOIN logs l ON l.log_id = j.log_id WHERE l.status != 'error' ORDER BY 2, 4, 5, 1",
    )?;
    let rows = st.query_map([], |r| {
        Ok(Job {
            log_id: r.get(0)?,
            app: r.get(1)?,
            jobid: r.get(2)?,
            nprocs: r.get(3)?,
            start_time: r.get(4)?,
            run_time: r.get(5)?,
        })
    })?;
    rows.collect()
}

fn facts(conn: &Connection) -> rusqlite::Result<HashMap<i64, Vec<Fact>>> {
    let mut out: HashMap<i64, Vec<Fact>> = HashMap::new();
    let mut st = conn.prepare("SELECT log_id, module, fact, value FROM job_facts")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        out.entry(r.get(0)?).or_default().push((r.get(1)?, r.get(2)?, r.get(3)?));
    }
    Ok(out)
}

/// A run that moved, with what moved.
fn moved_run(job: &Job, earlier: usize, changes: Vec<darshan_history::model::Change>) -> MovedRun {
    let figures = changes
        .into_iter()
        .map(|c| Figure {
            scope: c.scope,
            fact: c.fact,
            label: c.label,
            direction: c.direction,
            now_text: c.now_text,
            usual_text: c.usual_text,
        })
        .collect();
    MovedRun {
        app: job.app.clone(),
        jobid: job.jobid,
        log_id: job.log_id,
        start_time: job.start_time,
        nprocs: job.nprocs,
        earlier,
        figures,
    }
}

pub fn compute(conn: &Connection) -> rusqlite::Result<Regressions> {
    if darshan_ingest::stored::columns_of(conn, "job_facts")?.is_empty() {
        return Ok(Regressions::default());
    }
    let jobs = jobs(conn)?;
    let facts = facts(conn)?;
    let none = Vec::new();
    let mut r = Regressions { available: true, ..Default::default() };
    let mut moved_runs = Vec::new();
    let mut weeks: std::collections::BTreeMap<i64, (usize, usize)> = Default::default();
    for group in jobs.chunk_by(|a, b| a.app == b.app && a.nprocs == b.nprocs) {
        let mut app = AppCount { app: group[0].app.clone(), judged: 0, moved: 0 };
        for (i, job) in group.iter().enumerate().skip(darshan_history::MIN_RUNS) {
            let earlier = &group[i.saturating_sub(WINDOW)..i];
            let history: Vec<&[Fact]> =
                earlier.iter().map(|e| facts.get(&e.log_id).unwrap_or(&none).as_slice()).collect();
            let times: Vec<f64> = earlier.iter().map(|e| e.run_time).collect();
            let scale = darshan_history::judge::Scale::of_runs(&times, &[job.nprocs as f64]);
            let this = facts.get(&job.log_id).unwrap_or(&none);
            let changes = darshan_history::moved(this, &history, scale);
            app.judged += 1;
            let week = weeks.entry(week_of(job.start_time)).or_default();
            week.0 += 1;
            if changes.is_empty() {
                continue;
            }
            week.1 += 1;
            app.moved += 1;
            moved_runs.push(moved_run(job, earlier.len(), changes));
        }
        match r.apps.iter_mut().find(|a| a.app == app.app) {
            Some(a) => {
                a.judged += app.judged;
                a.moved += app.moved;
            }
            None => r.apps.push(app),
        }
    }
    r.apps.retain(|a| a.judged > 0);
    r.judged = r.apps.iter().map(|a| a.judged).sum();
    r.moved = moved_runs.len();
    r.weeks = weeks.into_iter().map(|(start, (judged, moved))| Week { start, judged, moved }).collect();
    moved_runs.sort_by_key(|m| (-m.start_time, -m.log_id));
    moved_runs.truncate(LISTED);
    r.runs = moved_runs;
    Ok(r)
}

#[cfg(test)]
mod tests {
    #[test]
    fn weeks_start_on_monday_utc() {
        // 2026-11-29 was a Sunday; its week began on Monday 2026-11-23.
        assert_eq!(super::week_of(1_795_910_400 + 86_399), 1_795_392_000);
        assert_eq!(super::week_of(1_795_996_800), 1_795_996_800);
        assert_eq!(super::week_of(0), -3 * 86_400);
    }
}
