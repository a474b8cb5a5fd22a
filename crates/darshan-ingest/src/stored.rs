//! Records back out of a database: a module's rows of some logs rebuilt
//! as [`Record`]s, so the rules that read records (crate::facts) read a
//! database's logs as they read a log file. Read-only; a database of an
//! older schema, whose tables lack later columns, reads those counters as
//! not recorded.

use std::collections::HashMap;

use darshan_log::modules::counter_names;
use darshan_log::Record;
use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::facts::{Fact, FactsBuilder, FileFacts};
use crate::schema;

/// The columns `table` has in this database (none: no such table).
pub fn columns_of(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached("SELECT name FROM pragma_table_info(?1)")?;
    let rows = st.query_map([table], |r| r.get(0))?;
    rows.collect()
}

/// Each record of `module` the database holds for `log_id`, with its
/// file name; at most `limit` of them, the busiest first when there are
/// more. Returns whether the limit cut some.
pub fn each_record(
    conn: &Connection,
    module: usize,
    log_id: i64,
    limit: usize,
    mut each: impl FnMut(Option<&str>, &Record),
) -> rusqlite::Result<bool> {
    let table = format!("{}_records", schema::stem(module));
    let have = columns_of(conn, &table)?;
    if have.is_empty() {
        return Ok(false);
    }
    let (names, fnames) = counter_names(module);
    let col = |n: &str| if have.iter().any(|h| h == n) { format!("\"{n}\"") } else { "NULL".to_string() };
    let list: Vec<String> = names.iter().chain(fnames.iter()).map(|n| col(n)).collect();
    let busy = ["BYTES_READ", "BYTES_WRITTEN"]
        .iter()
        .filter_map(|s| names.iter().find(|n| n.ends_with(&format!("_{s}"))))
        .map(|n| format!("COALESCE({}, 0)", col(n)))
        .collect::<Vec<_>>();
    let order = if busy.is_empty() { "rowid".to_string() } else { format!("{} DESC", busy.join(" + ")) };
    let sql = format!(
        "SELECT record_id, rank, file_name, {} FROM {table} WHERE log_id = ?1 ORDER BY {order} LIMIT {}",
        list.join(", "),
        limit.saturating_add(1).min(i64::MAX as usize)
    );
    // One statement per module, kept: a history reads 20 runs' records.
    conn.set_prepared_statement_cache_capacity(128);
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query([log_id])?;
    let mut rec = Record::zeroed(module, 0, 0);
    let mut n = 0usize;
    while let Some(row) = rows.next()? {
        if n == limit {
            return Ok(true);
        }
        n += 1;
        rec.id = row.get::<_, i64>(0)? as u64;
        rec.rank = row.get(1)?;
        let name: Option<String> = row.get(2)?;
        for k in 0..names.len() {
            rec.counters[k] = match row.get_ref(3 + k)? {
                ValueRef::Integer(v) => v,
                ValueRef::Real(v) => v as i64,
                _ => -1,
            };
        }
        for k in 0..fnames.len() {
            rec.fcounters[k] = match row.get_ref(3 + names.len() + k)? {
                ValueRef::Real(v) => v,
                ValueRef::Integer(v) => v as f64,
                _ => 0.0,
            };
        }
        each(name.as_deref(), &rec);
    }
    Ok(false)
}

/// A stored log's facts made again from its records (a database of an
/// older schema, or a log whose facts are not stored), with its files'
/// figures (at most `file_limit` records per module, the busiest).
/// Returns the facts, the files and whether the limit cut some.
pub fn facts_from_records(
    conn: &Connection,
    log_id: i64,
    run_time: f64,
    file_limit: usize,
) -> rusqlite::Result<(Vec<Fact>, Vec<FileFacts>, bool)> {
    let mut b = FactsBuilder::with_files();
    let mut cut = false;
    for m in schema::record_modules().into_iter().filter(|m| FactsBuilder::takes(*m)) {
        cut |= each_record(conn, m, log_id, file_limit, |name, rec| b.inject(rec, name.map(str::as_bytes)))?;
    }
    let (facts, files) = b.finish(run_time);
    Ok((facts, files, cut))
}

/// The stored facts of some logs (`job_facts`), by log.
pub fn stored_facts(conn: &Connection, log_ids: &[i64]) -> rusqlite::Result<HashMap<i64, Vec<Fact>>> {
    let mut out: HashMap<i64, Vec<Fact>> = HashMap::new();
    if columns_of(conn, "job_facts")?.is_empty() {
        return Ok(out);
    }
    let mut st = conn.prepare_cached("SELECT module, fact, value FROM job_facts WHERE log_id = ?1")?;
    for id in log_ids {
        let rows = st.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        let facts = rows.collect::<Result<Vec<Fact>, _>>()?;
        if !facts.is_empty() {
            out.insert(*id, facts);
        }
    }
    Ok(out)
}
