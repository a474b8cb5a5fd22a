//! The judgement: each fact against its earlier runs' band, the files
//! and ranks that carry each change, and the section's one line.

use std::collections::{BTreeSet, HashMap};

use darshan_ingest::facts::{is_label, Fact, JOB, MEASURED_ONLY};
use darshan_ingest::stored;
use darshan_util::units::counted;
use rusqlite::Connection;

use crate::files;
use crate::judge::{Band, Kind, Scale};
use crate::model::{Change, FileNote, RankNote, Run, Section, Status, Values};
use crate::{words, Now, FILE_LIMIT, MIN_RUNS};

/// Facts shown for each run when there are too few to judge.
const SHOWN: [&str; 6] = ["run_time", "bytes_read", "bytes_written", "files", "io_time", "slowest_rank_time"];

type FactMap = HashMap<(String, String), f64>;

fn map(facts: &[Fact]) -> FactMap {
    facts.iter().map(|(m, f, v)| ((m.clone(), f.clone()), *v)).collect()
}

/// The section for this run and its earlier runs.
pub fn judged(conn: &Connection, now: Now, earlier: Vec<Run>, db: String, key: String) -> rusqlite::Result<Section> {
    let ids: Vec<i64> = earlier.iter().map(|r| r.log_id).collect();
    let stored = stored::stored_facts(conn, &ids)?;
    let mut facts = Vec::new();
    let mut run_files = Vec::new();
    let mut notes = Vec::new();
    let tables = stored::RecordTables::of(conn)?;
    for r in &earlier {
        let (made, files, cut) = stored::facts_from_records(&tables, r.log_id, r.run_time, FILE_LIMIT)?;
        if cut && notes.is_empty() {
            notes.push(format!("files are compared over each earlier run's {FILE_LIMIT} busiest records per module"));
        }
        facts.push(map(stored.get(&r.log_id).unwrap_or(&made)));
        run_files.push(files::by_pattern(&files));
    }
    if stored.len() < earlier.len() && !earlier.is_empty() {
        notes.push(format!(
            "{} of the earlier runs' facts were made from their records: the database predates them (darshan-ingest \
             adds them when it next runs)",
            earlier.len() - stored.len()
        ));
    }
    let other_nprocs = earlier.iter().filter(|r| r.nprocs != now.this.nprocs).count();
    let mut s = Section::said_only(db, key, Status::TooFew, String::new());
    s.other_nprocs = other_nprocs;
    s.notes = notes;
    let this = map(&now.facts);
    if earlier.len() < MIN_RUNS {
        s.values = values(&this, &facts);
        s.said = too_few(&s, earlier.len());
        s.runs = earlier;
        return Ok(s);
    }
    let scale = files::scale(&earlier);
    let file_notes = files::notes(&files::by_pattern(&now.files), &run_files, scale);
    s.changes = changes(&this, &facts, scale);
    s.ranks = rank_notes(&s.changes, &this, &facts);
    for c in &mut s.changes {
        c.carriers = carriers(c, &file_notes, &s.ranks);
    }
    s.files = file_notes;
    s.runs = earlier;
    s.status = if s.changes.is_empty() { Status::Consistent } else { Status::Changed };
    s.said = judged_line(&s);
    Ok(s)
}

pub fn moved(this: &[Fact], earlier: &[&[Fact]], scale: Scale) -> Vec<Change> {
    let earlier: Vec<FactMap> = earlier.iter().map(|f| map(f)).collect();
    changes(&map(this), &earlier, scale)
}

/// Whether `facts` hold anything of `scope`.
fn has_scope(facts: &FactMap, scope: &str) -> bool {
    facts.keys().any(|k| k.0 == scope)
}

/// The earlier runs a fact of `scope` is judged against: all of them, but
/// for a scope only measured in some runs (MEASURED_ONLY), the runs that
/// have it, and none when this run does not.
fn judged_against<'a>(this: &FactMap, earlier: &'a [FactMap], scope: &str) -> Vec<&'a FactMap> {
    if !MEASURED_ONLY.contains(&scope) {
        return earlier.iter().collect();
    }
    if !has_scope(this, scope) {
        return Vec::new();
    }
    earlier.iter().filter(|f| has_scope(f, scope)).collect()
}

fn changes(this: &FactMap, earlier: &[FactMap], scale: Scale) -> Vec<Change> {
    let keys: BTreeSet<&(String, String)> = this.keys().chain(earlier.iter().flat_map(|f| f.keys())).collect();
    let mut out: Vec<(f64, Change)> = Vec::new();
    for k in keys.into_iter().filter(|k| !is_label(&k.1)) {
        let against = judged_against(this, earlier, &k.0);
        if against.len() < MIN_RUNS {
            continue;
        }
        let kind = Kind::of(&k.1);
        let history: Vec<f64> = against.iter().map(|f| f.get(k).copied().unwrap_or(0.0)).collect();
        let now = this.get(k).copied().unwrap_or(0.0);
        let band = Band::of(&history, kind, scale.of_fact(&k.1));
        if !band.moved(now) {
            continue;
        }
        let beyond = (now - band.median).abs() / (band.high - band.median).max(f64::MIN_POSITIVE);
        out.push((
            beyond,
            Change {
                scope: k.0.clone(),
                fact: k.1.clone(),
                label: words::label(&k.1),
                kind,
                now,
                band,
                direction: if now > band.median { "up" } else { "down" }.into(),
                now_text: words::value(kind, now),
                usual_text: words::value(kind, band.median),
                range_text: format!("{} to {}", words::value(kind, band.low), words::value(kind, band.high)),
                carriers: Vec::new(),
            },
        ));
    }
    // The job's figures first, then each module's; the farthest out first.
    out.sort_by(|a, b| (a.1.scope != JOB, &a.1.scope).cmp(&(b.1.scope != JOB, &b.1.scope)).then(b.0.total_cmp(&a.0)));
    out.into_iter().map(|x| x.1).collect()
}

/// The slowest rank of each scope whose slowest-rank time (in I/O, or
/// in MPI communication) moved.
fn rank_notes(changes: &[Change], this: &FactMap, earlier: &[FactMap]) -> Vec<RankNote> {
    let mut out = Vec::new();
    for c in changes {
        let spent = match c.fact.as_str() {
            "slowest_rank_time" => "in I/O",
            "slowest_rank_comm_time" => "in MPI communication",
            _ => continue,
        };
        let rank_key = (c.scope.clone(), "slowest_rank".to_string());
        let Some(rank) = this.get(&rank_key).map(|r| *r as i64) else { continue };
        let before: Vec<i64> = earlier.iter().filter_map(|f| f.get(&rank_key)).map(|r| *r as i64).collect();
        let usual = crate::judge::mode(&before).map(|m| m.0);
        out.push(RankNote {
            scope: c.scope.clone(),
            rank,
            time: c.now,
            usual_rank: usual,
            usual_time: c.band.median,
            said: rank_said(rank, usual, spent, c),
        });
    }
    out
}

/// The slowest rank now, in words, against the usual slowest (None: the
/// earlier runs do not say which rank it was).
fn rank_said(rank: i64, usual: Option<i64>, spent: &str, c: &Change) -> String {
    let t = |v: f64| words::value(Kind::Time, v);
    let (now, median) = (t(c.now), t(c.band.median));
    match usual {
        Some(u) if u != rank => {
            format!("rank {rank} is the slowest now, {now} {spent}; the slowest was usually rank {u}, with {median}")
        }
        Some(_) => format!("rank {rank}, the usual slowest, has {now} {spent} now; usually {median}"),
        None => format!("rank {rank} is the slowest now, {now} {spent}; the slowest rank usually had {median}"),
    }
}

/// The files and ranks behind one change, in words (at most 5 files).
fn carriers(c: &Change, files: &[FileNote], ranks: &[RankNote]) -> Vec<String> {
    let kinds: &[&str] = match c.kind {
        Kind::Files => &["new", "gone"],
        Kind::Bytes | Kind::Ops => &["new", "sizes", "bytes", "gone"],
        Kind::Time | Kind::RunTime => &["slower"],
    };
    let mut out: Vec<String> =
        ranks.iter().filter(|r| r.scope == c.scope && c.kind == Kind::Time).map(|r| r.said.clone()).collect();
    let in_scope = |f: &&FileNote| c.scope == JOB || f.module == c.scope;
    for k in kinds {
        for f in files.iter().filter(in_scope).filter(|f| f.what == *k) {
            if out.len() < 6 && relevant(c, f) {
                out.push(format!("{}: {}", f.name, f.said));
            }
        }
    }
    out
}

/// Whether a file's note can carry the change: a file only read does not
/// carry a change in writes, and the other way round; a change in
/// metadata or collective operations is carried by files that came or
/// went, not by sizes.
fn relevant(c: &Change, f: &FileNote) -> bool {
    let writes = c.fact.starts_with("write") || c.fact == "bytes_written";
    let reads = c.fact.starts_with("read") || c.fact == "bytes_read";
    match f.what.as_str() {
        "sizes" | "bytes" if !writes && !reads => false,
        "sizes" => (!writes || f.said.starts_with("writes")) && (!reads || f.said.starts_with("reads")),
        "bytes" => (!writes || f.said.contains(" written ")) && (!reads || f.said.contains(" read ")),
        _ => true,
    }
}

fn others(s: &Section) -> String {
    match s.other_nprocs {
        0 => String::new(),
        k => format!(" ({k} of them with another process count)"),
    }
}

fn judged_line(s: &Section) -> String {
    let n = counted(s.runs.len() as i64, "earlier run");
    if s.changes.is_empty() {
        return format!("consistent with {n} of {}{}: nothing moved beyond their run-to-run noise", s.key, others(s));
    }
    let top: Vec<String> =
        s.changes.iter().take(3).map(|c| format!("{} {} ({})", scope_of(c), c.label, c.direction)).collect();
    format!(
        "{} moved beyond the run-to-run noise of {n} of {}{}: {}",
        counted(s.changes.len() as i64, "figure"),
        s.key,
        others(s),
        top.join(", ")
    )
}

fn scope_of(c: &Change) -> &str {
    if c.scope == JOB {
        "the job's"
    } else {
        &c.scope
    }
}

fn too_few(s: &Section, n: usize) -> String {
    if n == 0 {
        return format!("no earlier run of {} in {}: nothing to compare with yet", s.key, s.database);
    }
    format!(
        "only {} of {} in {}; {MIN_RUNS} are needed to tell a change from noise, so the values are shown, not judged",
        counted(n as i64, "earlier run"),
        s.key,
        s.database
    )
}

/// The main figures of this run and each earlier one.
fn values(this: &FactMap, earlier: &[FactMap]) -> Vec<Values> {
    let mut out = Vec::new();
    for fact in SHOWN {
        let k = (JOB.to_string(), fact.to_string());
        let kind = Kind::of(fact);
        let get = |f: &FactMap| words::value(kind, f.get(&k).copied().unwrap_or(0.0));
        out.push(Values {
            scope: JOB.into(),
            fact: fact.into(),
            label: words::label(fact),
            now_text: get(this),
            earlier_text: earlier.iter().map(get).collect(),
        });
    }
    out
}
