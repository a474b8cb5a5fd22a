//! What the MPI shutdown needs from MPI, as a small safe trait. The `ffi`
//! crate implements it over the real `PMPI_*` functions (found with dlsym,
//! so the library never links libmpi); the core and the modules only see
//! this trait. Every method is collective over all ranks of the job
//! unless it says otherwise, and must be called by every rank in the same
//! order.

/// Element-wise reduction operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Sum,
    Min,
    Max,
    Band,
    Bor,
}

/// How two records (or any fixed-size element of `u64` words) combine:
/// `inout = input (op) inout`, as an MPI user operator does.
pub type Combine<'a> = &'a (dyn Fn(&[u64], &mut [u64]) + Sync);

/// Why one of the log's collective file operations failed: what the MPI
/// library said, kept by kind (a missing function, a failed call with its
/// code and MPI_Error_string text), not as a sentence.
#[derive(Debug, thiserror::Error)]
pub enum CommError {
    /// The MPI library lacks the function (an MPI without MPI-IO).
    #[error("{0} not found")]
    Missing(&'static str),
    /// The log's path cannot be given to MPI (it holds a NUL byte).
    #[error("bad log path {0}")]
    BadPath(String),
    /// MPI_File_open refused to create the log.
    #[error("cannot create log file {path}: {text}")]
    Create { path: String, code: i32, text: String },
    /// A call on the open log returned `code`.
    #[error("{call} failed ({code})")]
    Failed { call: &'static str, code: i32 },
}

pub trait Comm {
    fn rank(&self) -> i64;
    fn size(&self) -> i64;
    fn barrier(&self);
    /// Broadcast `buf` from rank 0 (same length everywhere).
    fn bcast(&self, buf: &mut [u8]);
    fn allreduce_u64(&self, v: &mut [u64], op: Op);
    fn allreduce_i64(&self, v: &mut [i64], op: Op);
    fn allreduce_f64(&self, v: &mut [f64], op: Op);
    /// Exclusive prefix sum of each element over ranks (rank 0 gets 0).
    fn exscan_u64(&self, v: &mut [u64]);
    /// Reduce `send` (elements of `elem_words` words) onto rank 0's `recv`
    /// with `combine`. False if MPI refused.
    fn reduce_elems(&self, send: &[u64], recv: &mut [u64], elem_words: usize, combine: Combine) -> bool;
    /// Every rank's `v` (as long on every rank) on rank 0, rank after
    /// rank (empty on the others, and on rank 0 if MPI refused).
    fn gather_u64s(&self, v: &[u64]) -> Vec<u64>;
    /// Every rank's `data` on rank 0, rank after rank, `counts` (read on
    /// rank 0 only) being their lengths: None on rank 0 if MPI refused,
    /// or if the counts do not fit its int counts; empty on the others.
    fn gather_bytes(&self, data: &[u8], counts: &[u64]) -> Option<Vec<u8>>;
    /// Open the log file collectively (create, exclusive, write only) with
    /// the `key=value;...` hints.
    fn open_log(&self, path: &str, hints: &str) -> Result<(), CommError>;
    /// Independent write (only the calling rank).
    fn write_at(&self, off: u64, data: &[u8]) -> Result<(), CommError>;
    /// Collective: every rank's writes reach the storage.
    fn sync_log(&self) -> Result<(), CommError>;
    fn close_log(&self);
}

/// Broadcast a byte string of any length from rank 0.
pub fn bcast_vec(comm: &dyn Comm, v: &mut Vec<u8>) {
    let mut len = (v.len() as u64).to_le_bytes();
    comm.bcast(&mut len);
    v.resize(u64::from_le_bytes(len) as usize, 0);
    comm.bcast(v);
}

/// Whether every rank says `ok`.
pub fn all_ok(comm: &dyn Comm, ok: bool) -> bool {
    let mut v = [ok as u64];
    comm.allreduce_u64(&mut v, Op::Min);
    v[0] == 1
}

pub use darshan_log::reduce::{variance_combine, variance_elem, variance_of};
