//! Records back out of a database: a module's rows of some logs rebuilt
//! as [`Record`]s, so the rules that read records (crate::facts) read a
//! database's logs as they read a log file. Read-only; a database of an
//! older schema, whose tables lack later columns, reads those counters as
//! not recorded.

use std::collections::HashMap;

use darshan_log::counters::apmpi;
use darshan_log::modules::{self, counter_names};
use darshan_log::Record;
use darshan_util::mpi_comm::{CommTotals, OpTotal};
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

/// The record tables of one database, read for the facts: each
/// module's query made at its first use (a history reads 20 runs'
/// records; an upgrade every log's).
pub struct RecordTables<'c> {
    conn: &'c Connection,
    /// Per module: its query (log_id, limit) and the counters and
    /// fcounters it selects; None where this database has no such table.
    queries: std::cell::RefCell<HashMap<usize, Option<Query>>>,
}

struct Query {
    sql: String,
    counters: Vec<usize>,
    fcounters: Vec<usize>,
}

impl<'c> RecordTables<'c> {
    pub fn of(conn: &'c Connection) -> rusqlite::Result<RecordTables<'c>> {
        conn.set_prepared_statement_cache_capacity(64);
        Ok(RecordTables { conn, queries: Default::default() })
    }

    /// Each record the database holds for `log_id`, with its file name;
    /// at most `limit` per module, the busiest first when there are more.
    /// Returns whether the limit cut some.
    pub fn each(
        &self,
        log_id: i64,
        limit: usize,
        mut each: impl FnMut(Option<&str>, &Record),
    ) -> rusqlite::Result<bool> {
        let present: Vec<String> = {
            let mut st = self.conn.prepare_cached("SELECT module FROM modules WHERE log_id = ?1 AND records > 0")?;
            let rows = st.query_map([log_id], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        let mut cut = false;
        for module in present.iter().filter_map(|n| modules::module_id(n)).filter(|m| FactsBuilder::takes(*m)) {
            if !self.queries.borrow().contains_key(&module) {
                let q = query(self.conn, module)?;
                self.queries.borrow_mut().insert(module, q);
            }
            if let Some(q) = self.queries.borrow().get(&module).and_then(Option::as_ref) {
                cut |= self.one(module, q, log_id, limit, &mut each)?;
            }
        }
        Ok(cut)
    }

    fn one(
        &self,
        module: usize,
        q: &Query,
        log_id: i64,
        limit: usize,
        each: &mut impl FnMut(Option<&str>, &Record),
    ) -> rusqlite::Result<bool> {
        let mut st = self.conn.prepare_cached(&q.sql)?;
        let mut rows =
            st.query(rusqlite::params![log_id, i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX)])?;
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
            for (i, k) in q.counters.iter().enumerate() {
                rec.counters[*k] = match row.get_ref(3 + i)? {
                    ValueRef::Integer(v) => v,
                    ValueRef::Real(v) => v as i64,
                    _ => -1,
                };
            }
            for (i, k) in q.fcounters.iter().enumerate() {
                rec.fcounters[*k] = match row.get_ref(3 + q.counters.len() + i)? {
                    ValueRef::Real(v) => v,
                    ValueRef::Integer(v) => v as f64,
                    _ => 0.0,
                };
            }
            each(name.as_deref(), &rec);
        }
        Ok(false)
    }

    /// The log's MPI communication as `mpi_comm` and `mpi_ops` hold it
    /// (what the facts read of it: the ranks' time, the slowest rank's,
    /// each operation's calls, bytes and time); None without a row, or in
    /// a database of a schema before those tables.
    pub fn comm(&self, log_id: i64) -> rusqlite::Result<Option<CommTotals>> {
        if columns_of(self.conn, "mpi_comm")?.is_empty() {
            return Ok(None);
        }
        let mut st =
            self.conn.prepare_cached("SELECT comm_seconds, most_seconds, most_rank FROM mpi_comm WHERE log_id = ?1")?;
        let mut rows = st.query([log_id])?;
        let Some(r) = rows.next()? else { return Ok(None) };
        let mut t = CommTotals { seconds: r.get(0)?, ..Default::default() };
        t.most.seconds = r.get(1)?;
        t.most.rank = r.get(2)?;
        let mut st =
            self.conn.prepare_cached("SELECT operation, calls, bytes, seconds FROM mpi_ops WHERE log_id = ?1")?;
        let mut rows = st.query([log_id])?;
        while let Some(r) = rows.next()? {
            let name: String = r.get(0)?;
            // Names the format does not have are no operation of it.
            let Some(op) = apmpi::OPS.iter().find(|o| o.name == name) else { continue };
            let count = |v: Option<i64>| v.map(|v| v.max(0) as u64);
            t.ops.push(OpTotal {
                name: op.name,
                calls: count(r.get(1)?).unwrap_or(0),
                bytes: count(r.get(2)?),
                seconds: r.get(3)?,
                max_call_seconds: 0.0,
            });
        }
        Ok(Some(t))
    }
}

/// The query of a module's records of one log: the columns the facts
/// read (a column this database lacks, of an older schema, reads as not
/// recorded); None when the database has no table for the module.
fn query(conn: &Connection, module: usize) -> rusqlite::Result<Option<Query>> {
    let table = format!("{}_records", schema::stem(module));
    let have = columns_of(conn, &table)?;
    if have.is_empty() {
        return Ok(None);
    }
    let (names, fnames) = counter_names(module);
    let (counters, fcounters) = crate::facts::read_counters(module);
    let col = |n: &str| if have.iter().any(|h| h == n) { format!("\"{n}\"") } else { "NULL".to_string() };
    let list: Vec<String> =
        counters.iter().map(|k| col(names[*k])).chain(fcounters.iter().map(|k| col(fnames[*k]))).collect();
    let busy = ["BYTES_READ", "BYTES_WRITTEN"]
        .iter()
        .filter_map(|s| names.iter().find(|n| n.ends_with(&format!("_{s}"))))
        .map(|n| format!("COALESCE({}, 0)", col(n)))
        .collect::<Vec<_>>();
    let order = if busy.is_empty() { "rowid".to_string() } else { format!("{} DESC", busy.join(" + ")) };
    let sql = format!(
        "SELECT record_id, rank, file_name, {} FROM {table} WHERE log_id = ?1 ORDER BY {order} LIMIT ?2",
        list.join(", ")
    );
    Ok(Some(Query { sql, counters, fcounters }))
}

/// A stored log's facts made again from its records (a database of an
/// older schema, or a log whose facts are not stored), with its files'
/// figures (at most `file_limit` records per module, the busiest).
/// Returns the facts, the files and whether the limit cut some.
pub fn facts_from_records(
    tables: &RecordTables,
    log_id: i64,
    run_time: f64,
    file_limit: usize,
) -> rusqlite::Result<(Vec<Fact>, Vec<FileFacts>, bool)> {
    let mut b = FactsBuilder::with_files();
    let cut = tables.each(log_id, file_limit, |name, rec| b.inject(rec, name.map(str::as_bytes)))?;
    if let Some(t) = tables.comm(log_id)? {
        b.comm(&t);
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
