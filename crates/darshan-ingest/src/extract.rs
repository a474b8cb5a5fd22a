//! One log into table rows, streamed in bounded chunks: a worker never
//! holds more than one chunk of a module's records (plus the log's name
//! table), whatever the log's size.

use std::path::Path;

use darshan_log::job::mount_of;
use darshan_log::modules::{self, module_name};
use darshan_log::{Extra, LogFile, Mount, NameTable, Record};
use darshan_util::accum::Accumulator;
use darshan_util::notices;

use crate::facts::FactsBuilder;
use crate::mpi_rows::{self, MpiTables};
use crate::rows::{Begin, Row, Sink, Value};
use crate::schema::{self, Kind, Table};

/// Records per chunk sent to the writer.
pub const CHUNK: usize = 2048;

/// How a log ended.
pub struct End {
    pub status: Status,
    pub error: Option<String>,
    pub modules: Vec<Row>,
    /// (table index, row)
    pub totals: Vec<(usize, Row)>,
    /// The job's facts (crate::facts), for `job_facts`.
    pub facts: Vec<Row>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Read, but incomplete: the runtime marked a module partial, or a
    /// module's records stopped at a decoding error.
    Partial,
    /// Could not be read at all.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Partial => "partial",
            Status::Error => "error",
        }
    }
}

/// Table indices by kind, looked up once.
pub struct TableIndex {
    pub jobs: usize,
    pub modules: usize,
    records: Vec<Option<usize>>,
    totals: Vec<Option<usize>>,
    heatmap: usize,
    lustre: usize,
    pub facts: usize,
    mpi: MpiTables,
}

impl TableIndex {
    pub fn new(tables: &[Table]) -> Self {
        let n = modules::MAX_MODS;
        let mut ix = TableIndex {
            jobs: 0,
            modules: 0,
            records: vec![None; n],
            totals: vec![None; n],
            heatmap: 0,
            lustre: 0,
            facts: 0,
            mpi: MpiTables { comm: 0, ops: 0 },
        };
        for (i, t) in tables.iter().enumerate() {
            match t.kind {
                Kind::Records(m) => ix.records[m] = Some(i),
                Kind::Totals(m) => ix.totals[m] = Some(i),
                Kind::Heatmap => ix.heatmap = i,
                Kind::LustreOsts => ix.lustre = i,
                Kind::Jobs => ix.jobs = i,
                Kind::Modules => ix.modules = i,
                Kind::Facts => ix.facts = i,
                Kind::MpiComm => ix.mpi.comm = i,
                Kind::MpiOps => ix.mpi.ops = i,
                Kind::Logs => {}
            }
        }
        ix
    }
}

/// Read one log into `sink`. `Err` when the log cannot be opened at all
/// (nothing was sent).
pub fn extract(path: &Path, ix: &TableIndex, sink: &mut dyn Sink) -> Result<End, darshan_log::LogError> {
    let log = LogFile::open(path)?;
    let mut errors = Vec::new();
    let mounts = log.job.mounts().unwrap_or_else(|e| {
        errors.push(format!("mount table: {e}"));
        Vec::new()
    });
    let names = log.names().unwrap_or_else(|e| {
        errors.push(format!("name table: {e}"));
        NameTable::new()
    });
    // The log's status (table logs) says whether it is complete; the job
    // row does not repeat it.
    let mut partial = log.header.partial_flag != 0;
    sink.begin(Begin { job: job_row(path, &log) });
    let mut modules_rows = Vec::new();
    let mut totals = Vec::new();
    let mut facts = FactsBuilder::new();
    for m in log.modules_present() {
        if m == modules::APMPI {
            let r = mpi_rows::stream(&log, ix.mpi, sink);
            if let Some(t) = &r.totals {
                facts.comm(t);
            }
            partial |= log.header.is_partial(m) || r.error.is_some();
            errors.extend(r.error.iter().map(|e| format!("APMPI: {e}")));
            modules_rows.push(module_row(&log, m, r.records, r.error));
            continue;
        }
        // Modules darshan-util has no handlers for (APXC, NULL, unknown
        // ids) are listed, not decoded, and do not make a log incomplete.
        if notices::unhandled(notices::Tool::Parser, m).is_some() {
            modules_rows.push(module_row(&log, m, 0, Some("not decoded (no darshan-util handler)".into())));
            continue;
        }
        let r = stream_module(&log, m, &names, &mounts, ix, sink, &mut facts);
        let module_partial = log.header.is_partial(m);
        partial |= module_partial || r.error.is_some();
        if let Some(e) = &r.error {
            errors.push(format!("{}: {e}", module_name(m)));
        }
        modules_rows.push(module_row(&log, m, r.records, r.error));
        if let Some(t) = r.totals {
            totals.push(t);
        }
    }
    let status = if partial || !errors.is_empty() { Status::Partial } else { Status::Ok };
    let error = (!errors.is_empty()).then(|| errors.join("; "));
    let facts = facts.finish(log.job.run_time(log.header.version)).0;
    let facts = facts.into_iter().map(|(m, f, v)| vec![Value::Text(m), Value::Text(f), Value::Real(v)]).collect();
    Ok(End { status, error, modules: modules_rows, totals, facts })
}

fn module_row(log: &LogFile, m: usize, records: u64, error: Option<String>) -> Row {
    vec![
        Value::Text(module_name(m).to_string()),
        Value::Int(log.header.mod_ver[m] as i64),
        Value::Int(records as i64),
        Value::Int(log.header.mod_map[m].len as i64),
        Value::Int(log.header.is_partial(m) as i64),
        error.map_or(Value::Null, Value::Text),
    ]
}

/// The log file's user, from Darshan's log name
/// (`<user>_<exe>_id<jobid>..._<n>.darshan`); the log itself keeps only
/// the uid.
pub fn user_from_log_name(file_name: &str) -> Option<String> {
    let at = file_name.rfind("_id")?;
    let rest = &file_name[at + 3..];
    if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let prefix = &file_name[..at];
    let user = prefix.split('_').next()?;
    (!user.is_empty() && prefix.contains('_')).then(|| user.to_string())
}

/// The application: the program's base name, without its arguments.
pub fn app_of(command_line: &str) -> String {
    let first = command_line.split_whitespace().next().unwrap_or("");
    first.rsplit('/').next().unwrap_or(first).to_string()
}

fn job_row(path: &Path, log: &LogFile) -> Row {
    let j = &log.job;
    let exe = String::from_utf8_lossy(j.exe()).into_owned();
    let meta = String::from_utf8_lossy(&j.metadata).into_owned();
    let file_name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let user = user_from_log_name(&file_name).unwrap_or_else(|| format!("uid {}", j.uid));
    let run_time = j.run_time(log.header.version);
    let lib_ver = meta.lines().find_map(|l| l.strip_prefix("lib_ver=")).map(|s| Value::Text(s.to_string()));
    vec![
        Value::Int(j.jobid),
        Value::Int(j.uid),
        Value::Text(user),
        Value::Text(exe.clone()),
        Value::Text(app_of(&exe)),
        Value::Int(j.nprocs),
        Value::Int(j.start_time_sec),
        Value::Int(j.end_time_sec),
        Value::Real(run_time),
        Value::Real(j.nprocs.max(0) as f64 * run_time / 3600.0),
        Value::Text(log.header.version.as_str().to_string()),
        lib_ver.unwrap_or(Value::Null),
        Value::Text(meta),
    ]
    .into_iter()
    .chain(cost_values(j))
    .collect()
}

/// The jobs row's cost columns: what the log's metadata says, else NULLs.
fn cost_values(j: &darshan_log::Job) -> [Value; 5] {
    let Some(c) = darshan_log::cost::Cost::of_job(j) else { return std::array::from_fn(|_| Value::Null) };
    let share = darshan_log::cost::stated_share(j);
    let int = |v: u64| Value::Int(i64::try_from(v).unwrap_or(i64::MAX));
    [int(c.startup_us), int(c.shutdown_us), int(c.calls), int(c.est_us), share.map_or(Value::Null, Value::Real)]
}

struct ModuleResult {
    records: u64,
    error: Option<String>,
    totals: Option<(usize, Row)>,
}

fn stream_module(
    log: &LogFile,
    m: usize,
    names: &NameTable,
    mounts: &[Mount],
    ix: &TableIndex,
    sink: &mut dyn Sink,
    facts: &mut FactsBuilder,
) -> ModuleResult {
    let mut out = ModuleResult { records: 0, error: None, totals: None };
    let mut rd = match log.module_reader(m) {
        Ok(rd) => rd,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    let table = ix.records.get(m).copied().flatten();
    let mut acc = ix.totals.get(m).copied().flatten().and_then(|_| Accumulator::without_files(m, log.job.nprocs));
    let mut chunk: Vec<Row> = Vec::new();
    let (mut heat, mut lustre): (Vec<Row>, Vec<Row>) = (Vec::new(), Vec::new());
    let mut rec = Record::new(m);
    loop {
        match rd.next_into(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                out.error = Some(format!("records after the first {} could not be read: {e}", out.records));
                break;
            }
        }
        out.records += 1;
        if let Some(a) = acc.as_mut() {
            a.inject(&rec);
        }
        facts.inject(&rec, names.get(rec.id));
        if table.is_some() {
            chunk.push(record_row(&rec, names, mounts));
        }
        match &rec.extra {
            Extra::Heatmap { .. } => heat.extend(heatmap_rows(&rec, names)),
            Extra::Lustre { .. } => lustre.extend(lustre_rows(&rec)),
            _ => {}
        }
        send(sink, [(table, &mut chunk), (Some(ix.heatmap), &mut heat), (Some(ix.lustre), &mut lustre)], CHUNK);
    }
    send(sink, [(table, &mut chunk), (Some(ix.heatmap), &mut heat), (Some(ix.lustre), &mut lustre)], 1);
    // darshan-parser prints no totals for a module it could not read to
    // the end; neither do we.
    if out.error.is_none() {
        if let (Some(a), Some(t)) = (acc, ix.totals.get(m).copied().flatten()) {
            out.totals = Some((t, counter_values(a.total())));
        }
    }
    out
}

/// Each batch of rows that has `at_least` rows, to its table (None: a
/// table not kept).
fn send(sink: &mut dyn Sink, batches: [(Option<usize>, &mut Vec<Row>); 3], at_least: usize) {
    for (t, rows) in batches {
        if let Some(t) = t.filter(|_| !rows.is_empty() && rows.len() >= at_least) {
            sink.rows(t, std::mem::take(rows));
        }
    }
}

/// A HEATMAP record's non-empty bins, each a row of the heatmap table
/// under its source (the record's name without "heatmap:").
fn heatmap_rows(rec: &Record, names: &NameTable) -> Vec<Row> {
    let Extra::Heatmap { bin_width, write_bins, read_bins } = &rec.extra else { return Vec::new() };
    let source = names
        .get(rec.id)
        .map(|n| String::from_utf8_lossy(n).trim_start_matches("heatmap:").to_string())
        .unwrap_or_else(|| format!("{:x}", rec.id));
    let bins = read_bins.iter().zip(write_bins).enumerate().filter(|(_, (r, w))| **r != 0 || **w != 0);
    bins.map(|(bin, (r, w))| {
        vec![
            Value::Text(source.clone()),
            Value::Int(rec.rank),
            Value::Int(bin as i64),
            Value::Real(*bin_width),
            Value::Int(*r),
            Value::Int(*w),
        ]
    })
    .collect()
}

/// A LUSTRE record's OSTs, each a row with the first component's stripe
/// size and count.
fn lustre_rows(rec: &Record) -> Vec<Row> {
    let Extra::Lustre { components, ost_ids } = &rec.extra else { return Vec::new() };
    let first = components.first().map(|c| c.counters).unwrap_or_default();
    let row = |ost: i64| {
        vec![
            Value::Int(rec.id as i64),
            Value::Int(rec.rank),
            Value::Int(first[0]),
            Value::Int(first[1]),
            Value::Int(ost),
        ]
    };
    ost_ids.iter().map(|&ost| row(ost)).collect()
}

/// A record's counters as columns; a counter Darshan did not record
/// (darshan_log::roles::not_recorded: C's −1) is NULL, not a number.
fn counter_values(rec: &Record) -> Row {
    let ints = rec.counters.iter().enumerate().map(|(k, v)| {
        if darshan_log::roles::not_recorded(rec.module, k, *v) {
            Value::Null
        } else {
            Value::Int(*v)
        }
    });
    ints.chain(rec.fcounters.iter().map(|v| Value::Real(*v))).collect()
}

fn record_row(rec: &Record, names: &NameTable, mounts: &[Mount]) -> Row {
    let name = names.get(rec.id);
    let mount = name.and_then(|n| mount_of(mounts, n));
    let text = |b: Option<&[u8]>| b.map_or(Value::Null, |b| Value::Text(String::from_utf8_lossy(b).into_owned()));
    let mut row = Vec::with_capacity(6 + rec.counters.len() + rec.fcounters.len());
    // Record ids are unsigned 64-bit hashes, stored bit for bit in the
    // signed 64-bit integers SQLite and Parquet have.
    row.push(Value::Int(rec.id as i64));
    row.push(Value::Int(rec.rank));
    row.push(text(name));
    row.push(text(mount.map(|m| m.path.as_slice())));
    row.push(text(mount.map(|m| m.fs_type.as_slice())));
    if schema::has_file_rec_id(rec.module) {
        row.push(match rec.extra {
            Extra::FileRecId(id) => Value::Int(id as i64),
            _ => Value::Null,
        });
    }
    row.extend(counter_values(rec));
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_comes_from_darshans_log_name_and_the_app_from_the_command() {
        assert_eq!(
            user_from_log_name("snyder_ior-POSIX_id1057716-202103_11-8-64415-6936117869459351096_1.darshan").as_deref(),
            Some("snyder")
        );
        assert_eq!(user_from_log_name("imbalanced-io.darshan"), None);
        assert_eq!(user_from_log_name("x_idle.darshan"), None, "_id must be followed by the job id");
        assert_eq!(app_of("/opt/ior/bin/ior -a POSIX -b 1m"), "ior");
        assert_eq!(app_of(""), "");
    }
}
