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
    /// Every rank's `v` on rank 0, in rank order (empty on the others,
    /// and on rank 0 if MPI refused).
    fn gather_u64(&self, v: u64) -> Vec<u64>;
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

/// One (n, T, S) triple of the pairwise variance algorithm, as 3 words.
pub fn variance_elem(x: f64) -> [u64; 3] {
    [1f64.to_bits(), x.to_bits(), 0f64.to_bits()]
}

/// Combine two (n, T, S) triples (count, sum, sum of squared deviations);
/// population variance = S / n.
pub fn variance_combine(input: &[u64], inout: &mut [u64]) {
    let f = |w: &[u64], i: usize| f64::from_bits(w[i]);
    for (a, b) in input.chunks_exact(3).zip(inout.chunks_exact_mut(3)) {
        let (n1, t1, s1) = (f(a, 0), f(a, 1), f(a, 2));
        let (n2, t2, s2) = (f(b, 0), f(b, 1), f(b, 2));
        let n = n1 + n2;
        let s = if n1 > 0.0 && n2 > 0.0 {
            let d = (n2 / n1) * t1 - t2;
            s1 + s2 + (n1 / (n2 * n)) * d * d
        } else {
            s1 + s2
        };
        b[0] = n.to_bits();
        b[1] = (t1 + t2).to_bits();
        b[2] = s.to_bits();
    }
}

/// Population variance of a reduced triple.
pub fn variance_of(w: &[u64]) -> f64 {
    let n = f64::from_bits(w[0]);
    if n > 0.0 {
        f64::from_bits(w[2]) / n
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_variance_equals_the_population_variance() {
        let xs = [3.0, 7.0, 7.0, 19.0, 0.5];
        let mut acc = variance_elem(xs[0]).to_vec();
        for &x in &xs[1..] {
            variance_combine(&variance_elem(x), &mut acc);
        }
        let mean = xs.iter().sum::<f64>() / 5.0;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 5.0;
        assert!((variance_of(&acc) - var).abs() < 1e-9, "{} vs {var}", variance_of(&acc));
        // Tree order: (a+b) + (c+d+e) gives the same.
        let mut l = variance_elem(3.0).to_vec();
        variance_combine(&variance_elem(7.0), &mut l);
        let mut r = variance_elem(7.0).to_vec();
        variance_combine(&variance_elem(19.0), &mut r);
        variance_combine(&variance_elem(0.5), &mut r);
        variance_combine(&l, &mut r);
        assert!((variance_of(&r) - var).abs() < 1e-9);
    }
}
