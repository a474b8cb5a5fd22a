//! The study's SQL (queries/study.sql), split into its views and named
//! queries, and run on the SQLite database. The same text runs on DuckDB
//! and Spark over the Parquet dataset (tests/facility/).

use crate::error::StudyError;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde::Serialize;

pub const STUDY_SQL: &str = include_str!("../queries/study.sql");

#[derive(Debug, Clone)]
pub struct Block {
    pub name: String,
    pub title: String,
    pub sql: String,
    pub is_view: bool,
}

/// A query's result: column names and rows of JSON values.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Table {
    pub name: String,
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

impl Table {
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// A numeric cell (0 for NULL or text).
    pub fn num(&self, row: usize, name: &str) -> f64 {
        self.col(name).and_then(|c| self.rows.get(row)?.get(c)?.as_f64()).unwrap_or(0.0)
    }

    pub fn text(&self, row: usize, name: &str) -> String {
        match self.col(name).and_then(|c| self.rows.get(row)?.get(c)) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        }
    }
}

/// The blocks of a study file, in order: `-- view: NAME` and
/// `-- query: NAME | TITLE` headers, SQL until the next header.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for line in text.lines() {
        let header = line
            .strip_prefix("-- view:")
            .map(|r| (r, true))
            .or_else(|| line.strip_prefix("-- query:").map(|r| (r, false)));
        if let Some((rest, is_view)) = header {
            let (name, title) = rest.split_once('|').unwrap_or((rest, rest));
            out.push(Block { name: name.trim().into(), title: title.trim().into(), sql: String::new(), is_view });
        } else if let Some(b) = out.last_mut() {
            if !line.trim_start().starts_with("--") {
                b.sql.push_str(line);
                b.sql.push('\n');
            }
        }
    }
    for b in &mut out {
        b.sql = b.sql.trim().to_string();
    }
    out
}

/// Create the views, then run every query.
pub fn run_all(conn: &Connection) -> Result<Vec<Table>, StudyError> {
    let mut out = Vec::new();
    for b in blocks(STUDY_SQL) {
        if b.is_view {
            let e = StudyError::sql(format!("view {}", b.name));
            conn.execute(&format!("DROP VIEW IF EXISTS temp.{}", b.name), []).map_err(&e)?;
            conn.execute(&b.sql, []).map_err(&e)?;
        } else {
            out.push(run(conn, &b)?);
        }
    }
    Ok(out)
}

pub fn run(conn: &Connection, b: &Block) -> Result<Table, StudyError> {
    let e = StudyError::sql(format!("query {}", b.name));
    let mut st = conn.prepare(&b.sql).map_err(&e)?;
    let columns: Vec<String> = st.column_names().into_iter().map(str::to_string).collect();
    let n = columns.len();
    let mut rows = st.query([]).map_err(&e)?;
    let mut t = Table { name: b.name.clone(), title: b.title.clone(), columns, rows: Vec::new() };
    while let Some(r) = rows.next().map_err(&e)? {
        let mut row = Vec::with_capacity(n);
        for i in 0..n {
            row.push(match r.get_ref(i).map_err(&e)? {
                ValueRef::Null => serde_json::Value::Null,
                ValueRef::Integer(v) => v.into(),
                ValueRef::Real(v) => serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into),
                ValueRef::Text(s) | ValueRef::Blob(s) => String::from_utf8_lossy(s).into_owned().into(),
            });
        }
        t.rows.push(row);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_file_has_its_views_and_queries_in_order() {
        let b = blocks(STUDY_SQL);
        let views: Vec<&str> = b.iter().filter(|b| b.is_view).map(|b| b.name.as_str()).collect();
        assert_eq!(views, ["job_size", "posix_files", "job_io", "user_app_io"]);
        let queries: Vec<&str> = b.iter().filter(|b| !b.is_view).map(|b| b.name.as_str()).collect();
        assert!(queries.contains(&"redundant_reads") && queries.contains(&"small_shared_writes"), "{queries:?}");
        for q in &b {
            assert!(!q.sql.is_empty() && !q.sql.contains("-- "), "{}", q.name);
        }
        let t = b.iter().find(|b| b.name == "jobs_by_size").unwrap();
        assert_eq!(t.title, "Jobs and core-hours by job size (processes)");
    }
}
