//! The Parquet dataset: the database's tables, same columns, as a
//! Hive-partitioned tree that Spark, DuckDB and pandas read as it is:
//!
//! ```text
//! DIR/logs/part-A-B.parquet
//! DIR/<table>/year=YYYY/month=M/part-A-B.parquet
//! ```
//!
//! Partitions follow the job's start time. Each export writes the logs not
//! exported before (A..B are their first and last log_id), so a re-run
//! adds files for new logs only. A part file overlapping the logs being
//! exported can only come from an export interrupted before it was
//! recorded; it is replaced, so no row is ever written twice.
//!
//! The export may run as root in a directory other users can write: the
//! directories under DIR are made one level at a time and must be real
//! directories of this user's (or root's), never another user's link;
//! each part file is made under a private temporary name and renamed
//! into place ([`safe_fs::Output`]); the walk for an interrupted export's
//! temporaries does not follow links.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use rusqlite::types::ValueRef;
use serde::Serialize;

use darshan_log::safe_fs::{self, Output};

use crate::error::IngestError;
use crate::schema::{ColType, Table};
use crate::store::Store;

const ROW_GROUP: usize = 65_536;

#[derive(Debug, Default, Serialize)]
pub struct ExportSummary {
    pub directory: String,
    pub logs: usize,
    pub files_written: usize,
    pub rows: BTreeMap<String, u64>,
}

pub fn export(store: &Store, dir: &Path) -> Result<ExportSummary, IngestError> {
    let c = store.conn();
    let mut sum = ExportSummary { directory: dir.display().to_string(), ..Default::default() };
    c.execute_batch(
        "DROP TABLE IF EXISTS temp.export_ids;
         CREATE TEMP TABLE export_ids AS
           SELECT l.log_id AS log_id,
                  CAST(strftime('%Y', j.start_time, 'unixepoch') AS INTEGER) AS year,
                  CAST(strftime('%m', j.start_time, 'unixepoch') AS INTEGER) AS month
           FROM logs l LEFT JOIN jobs j ON j.log_id = l.log_id
           WHERE l.status != 'loading' AND l.log_id NOT IN (SELECT log_id FROM parquet_exported);",
    )?;
    let (n, lo, hi): (i64, i64, i64) =
        c.query_row("SELECT COUNT(*), COALESCE(MIN(log_id), 0), COALESCE(MAX(log_id), 0) FROM export_ids", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    std::fs::create_dir_all(dir).map_err(IngestError::io(dir))?;
    remove_overlapping(dir, lo, hi)?;
    let part = format!("part-{lo}-{hi}.parquet");
    let partitions: Vec<(i64, i64)> = {
        let mut st =
            c.prepare("SELECT DISTINCT COALESCE(year, 0), COALESCE(month, 0) FROM export_ids ORDER BY 1, 2")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for t in &store.tables {
        let tdir = own_subdir(dir, &[&t.name])?;
        if n > 0 {
            if t.name == "logs" {
                let sql = "SELECT t.* FROM logs t JOIN export_ids e ON e.log_id = t.log_id ORDER BY t.log_id";
                sum.files_written += write_query(store, t, sql, &[], &tdir.join(&part), &mut sum.rows)?;
            } else {
                let sql = format!(
                    "SELECT t.* FROM {} t JOIN export_ids e ON e.log_id = t.log_id WHERE COALESCE(e.year, 0) = ?1 AND COALESCE(e.month, 0) = ?2 ORDER BY t.log_id",
                    t.name
                );
                for (y, m) in &partitions {
                    let pdir = own_subdir(&tdir, &[&format!("year={y}"), &format!("month={m}")])?;
                    sum.files_written += write_query(store, t, &sql, &[*y, *m], &pdir.join(&part), &mut sum.rows)?;
                }
            }
        }
        keep_readable_when_empty(store, t, &tdir)?;
    }
    c.execute_batch(
        "INSERT OR IGNORE INTO parquet_exported SELECT log_id FROM export_ids; DROP TABLE temp.export_ids;",
    )?;
    sum.logs = n as usize;
    Ok(sum)
}

/// A table no log has rows in still gets one file with its columns, so
/// readers find every table; it goes once the table has data.
fn keep_readable_when_empty(store: &Store, t: &Table, tdir: &Path) -> Result<(), IngestError> {
    let empty = tdir.join("part-empty.parquet");
    let has_data = parts(tdir).iter().any(|p| p != &empty);
    if has_data {
        if empty.exists() {
            std::fs::remove_file(&empty).map_err(IngestError::io(&empty))?;
        }
    } else if !empty.exists() {
        let sql = format!("SELECT * FROM {} WHERE 0", t.name);
        write_query(store, t, &sql, &[], &empty, &mut BTreeMap::new())?;
    }
    Ok(())
}

fn parts(dir: &Path) -> Vec<PathBuf> {
    files(dir, |name| name.ends_with(".parquet") && !name.starts_with('.'))
}

/// `.part-….parquet.….tmp`: written by [`open_writer`], renamed when
/// done (`.part-….parquet.tmp` from versions that wrote one fixed name).
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    files(dir, |name| name.starts_with(".part-") && name.contains(".parquet.") && name.ends_with(".tmp"))
}

/// `dir/parts…`, each level made where missing and kept only when it is a
/// directory this user or root owns, or such a user's link to one: a link
/// or directory another user put there could lead the files written
/// below it anywhere (`create_dir_all` goes through links).
fn own_subdir(dir: &Path, parts: &[&str]) -> Result<PathBuf, IngestError> {
    use std::os::unix::fs::MetadataExt;
    let mut p = dir.to_path_buf();
    for part in parts {
        p.push(part);
        match std::fs::create_dir(&p) {
            Ok(()) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(IngestError::io(&p)(e)),
        }
        let m = std::fs::symlink_metadata(&p).map_err(IngestError::io(&p))?;
        let why = if !safe_fs::trusted(m.uid()) {
            "a link or directory another user owns: not followed"
        } else if m.is_dir() || (m.file_type().is_symlink() && p.is_dir()) {
            continue;
        } else {
            "not a directory: not replaced"
        };
        return Err(IngestError::Refused(format!("{}: {why}", safe_fs::shown(&p))));
    }
    Ok(p)
}

fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            // The entry itself, not what a link there names.
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(&keep) {
                out.push(p);
            }
        }
    }
    out
}

/// `part-A-B.parquet` → (A, B).
fn part_range(p: &Path) -> Option<(i64, i64)> {
    let stem = p.file_stem()?.to_str()?.strip_prefix("part-")?;
    let (a, b) = stem.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Part files that overlap the logs about to be exported, and the hidden
/// temporaries an interrupted export left (see [`open_writer`]).
fn remove_overlapping(dir: &Path, lo: i64, hi: i64) -> Result<(), IngestError> {
    for p in temporaries(dir) {
        std::fs::remove_file(&p).map_err(IngestError::io(&p))?;
    }
    for p in parts(dir) {
        if let Some((a, b)) = part_range(&p) {
            if a <= hi && lo <= b {
                std::fs::remove_file(&p).map_err(IngestError::io(&p))?;
            }
        }
    }
    Ok(())
}

enum Buf {
    Int(Vec<i64>),
    Real(Vec<f64>),
    Text(Vec<ByteArray>),
}

struct ColBuf {
    values: Buf,
    defs: Vec<i16>,
}

fn message_type(t: &Table) -> String {
    let fields: Vec<String> = t
        .columns
        .iter()
        .map(|c| match c.ty {
            ColType::Int => format!("OPTIONAL INT64 {};", c.name),
            ColType::Real => format!("OPTIONAL DOUBLE {};", c.name),
            ColType::Text => format!("OPTIONAL BYTE_ARRAY {} (UTF8);", c.name),
        })
        .collect();
    format!("message {} {{ {} }}", t.name, fields.join(" "))
}

/// Write the rows of `sql` to `path` (through a hidden temporary file, so
/// readers never see half a file). Returns 1 when a file was written, 0
/// when the query had no rows (except for the `part-empty` placeholder).
fn write_query(
    store: &Store,
    t: &Table,
    sql: &str,
    args: &[i64],
    path: &Path,
    rows_out: &mut BTreeMap<String, u64>,
) -> Result<usize, IngestError> {
    let c = store.conn();
    let mut st = c.prepare(sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let placeholder = path.file_name().is_some_and(|f| f == "part-empty.parquet");
    let mut writer: Option<(SerializedFileWriter<File>, Output)> = None;
    let mut bufs = new_bufs(t);
    let mut pending = 0usize;
    let mut total = 0u64;
    loop {
        let row = rows.next()?;
        if let Some(row) = row {
            for (i, b) in bufs.iter_mut().enumerate() {
                push_value(b, row.get_ref(i)?);
            }
            pending += 1;
            total += 1;
        }
        let done = row.is_none();
        if done && pending == 0 && placeholder && writer.is_none() {
            // No row group at all: a valid file that only carries the schema.
            writer = Some(open_writer(t, path)?);
        }
        if pending >= ROW_GROUP || (done && pending > 0) {
            if writer.is_none() {
                writer = Some(open_writer(t, path)?);
            }
            if let Some((w, _)) = writer.as_mut() {
                write_group(w, &mut bufs)?;
            }
            pending = 0;
        }
        if done {
            break;
        }
    }
    let Some((w, out)) = writer else { return Ok(0) };
    let file = w.into_inner()?;
    out.publish(file, safe_fs::umasked(0o666)).map_err(IngestError::io(path))?;
    *rows_out.entry(t.name.clone()).or_default() += total;
    Ok(1)
}

fn new_bufs(t: &Table) -> Vec<ColBuf> {
    t.columns
        .iter()
        .map(|c| ColBuf {
            values: match c.ty {
                ColType::Int => Buf::Int(Vec::new()),
                ColType::Real => Buf::Real(Vec::new()),
                ColType::Text => Buf::Text(Vec::new()),
            },
            defs: Vec::new(),
        })
        .collect()
}

fn push_value(b: &mut ColBuf, v: ValueRef<'_>) {
    let present = match (&mut b.values, v) {
        (_, ValueRef::Null) => false,
        (Buf::Int(x), ValueRef::Integer(i)) => {
            x.push(i);
            true
        }
        (Buf::Int(x), ValueRef::Real(f)) => {
            x.push(f as i64);
            true
        }
        (Buf::Real(x), ValueRef::Real(f)) => {
            x.push(f);
            true
        }
        (Buf::Real(x), ValueRef::Integer(i)) => {
            x.push(i as f64);
            true
        }
        (Buf::Text(x), ValueRef::Text(s)) | (Buf::Text(x), ValueRef::Blob(s)) => {
            x.push(ByteArray::from(s.to_vec()));
            true
        }
        _ => false,
    };
    b.defs.push(present as i16);
}

/// The part file `path` begun: written under a hidden private name
/// (Spark, DuckDB and pyarrow skip names with a leading dot), renamed to
/// `path` by [`Output::publish`].
fn open_writer(t: &Table, path: &Path) -> Result<(SerializedFileWriter<File>, Output), IngestError> {
    let schema = Arc::new(parse_message_type(&message_type(t))?);
    let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
    let (out, file) = Output::create(path).map_err(IngestError::io(path))?;
    Ok((SerializedFileWriter::new(file, schema, props)?, out))
}

fn write_group(w: &mut SerializedFileWriter<File>, bufs: &mut [ColBuf]) -> Result<(), IngestError> {
    let mut rg = w.next_row_group()?;
    let mut i = 0;
    while let Some(mut col) = rg.next_column()? {
        let b = &mut bufs[i];
        // Each column's values are written, then emptied for the next group.
        match &mut b.values {
            Buf::Int(v) => {
                col.typed::<Int64Type>().write_batch(v, Some(&b.defs), None)?;
                v.clear();
            }
            Buf::Real(v) => {
                col.typed::<DoubleType>().write_batch(v, Some(&b.defs), None)?;
                v.clear();
            }
            Buf::Text(v) => {
                col.typed::<ByteArrayType>().write_batch(v, Some(&b.defs), None)?;
                v.clear();
            }
        }
        col.close()?;
        b.defs.clear();
        i += 1;
    }
    rg.close()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_give_their_log_range() {
        assert_eq!(part_range(Path::new("x/part-3-17.parquet")), Some((3, 17)));
        assert_eq!(part_range(Path::new("x/part-empty.parquet")), None);
    }
}
