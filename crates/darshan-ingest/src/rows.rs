//! What one log becomes on its way to the database: rows of values, and
//! where a worker sends them. Below every part that makes rows (extract.rs,
//! mpi_rows.rs) and the writer that stores them.

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Real(f64),
    Text(String),
    Null,
}

/// A row without its leading `log_id` (the writer knows it).
pub type Row = Vec<Value>;

/// What a worker learned about one log, sent before its records.
pub struct Begin {
    pub job: Row,
}

/// Where a worker puts what it extracts (the channel to the writer).
pub trait Sink {
    fn begin(&mut self, b: Begin);
    fn rows(&mut self, table: usize, rows: Vec<Row>);
}
