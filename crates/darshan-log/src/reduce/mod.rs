//! Darshan's shared-record reduction (docs/counter-rules.md §6): how the
//! records of one file that every rank has combine into one rank -1
//! record. Facts of the log format, so they live here: the runtime's MPI
//! shutdown (over MPI) and `darshan-merge --job` (in one process, through
//! [`reduce_ranks`]) use the same rules, module by module.

pub mod ops;

pub mod hdf5;
pub mod io_uring;
pub mod mpiio;
pub mod pnetcdf;
pub mod posix;
pub mod posix_meta;
pub mod stdio;

pub use ops::*;

/// A module's rules for combining the records every rank has (docs/
/// counter-rules.md §6): `prepare` runs on each rank's copy (fastest/slowest start as this
/// rank), `combine` merges two copies (`inout = input op inout`), and the
/// variances of time and bytes across ranks are computed from `spread`.
pub trait Reducer: Sync {
    fn prepare(&self, rec: &mut [u64]);
    fn combine(&self, input: &[u64], inout: &mut [u64]);
    /// (I/O time, bytes) of one rank's record, for the variances; None if
    /// the module keeps no variances.
    fn spread(&self, _rec: &[u64]) -> Option<(f64, f64)> {
        None
    }
    fn set_variance(&self, _rec: &mut [u64], _time: f64, _bytes: f64) {}
    /// Two processes' records of one rank (a worker and the children it
    /// forked, in a job without MPI): combined by `combine`, but the
    /// fields that describe the spread across ranks (fastest, slowest,
    /// variances) stay as one process leaves them. By default, `combine`.
    fn combine_same_rank(&self, input: &[u64], inout: &mut [u64]) {
        self.combine(input, inout)
    }
}

const SHARED_RANK: u64 = -1i64 as u64;

/// One rank's copy of a shared record made ready for the reduction: its
/// rank fields set (the fastest and the slowest is itself), the rank made
/// -1; returns its (time, bytes) for the variances. The MPI reduction
/// (the runtime's `RecordSet::reduce_shared`) and the job log's
/// ([`reduce_ranks`]) both start here.
pub fn prepare_shared(rec: &mut [u64], rules: &dyn Reducer) -> Option<(f64, f64)> {
    rules.prepare(rec);
    rec[1] = SHARED_RANK;
    rules.spread(rec)
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

/// Every rank's copy of one record (its words: id, rank, counters,
/// fcounters), in rank order: the rank -1 record. None for no copies.
pub fn reduce_ranks(copies: &[&[u64]], rules: &dyn Reducer) -> Option<Vec<u64>> {
    let (first, rest) = copies.split_first()?;
    let mut acc = first.to_vec();
    let mut spreads = vec![prepare_shared(&mut acc, rules)];
    let mut var = [
        spreads[0].map(|s| variance_elem(s.0).to_vec()).unwrap_or_default(),
        spreads[0].map(|s| variance_elem(s.1).to_vec()).unwrap_or_default(),
    ];
    let mut copy = Vec::with_capacity(acc.len());
    for r in rest {
        copy.clear();
        copy.extend_from_slice(r);
        let s = prepare_shared(&mut copy, rules);
        if let (Some((t, b)), Some(_)) = (s, spreads[0]) {
            variance_combine(&variance_elem(t), &mut var[0]);
            variance_combine(&variance_elem(b), &mut var[1]);
        }
        spreads.push(s);
        // MPI_Reduce's user function: inout = input op inout, the lower
        // ranks' result as the input.
        let mut out = copy.clone();
        rules.combine(&acc, &mut out);
        acc = out;
    }
    if spreads.iter().all(|s| s.is_some()) {
        rules.set_variance(&mut acc, variance_of(&var[0]), variance_of(&var[1]));
    }
    Some(acc)
}

/// The records of one rank's several processes as one record of that
/// rank (a worker and the children it forked).
pub fn combine_processes(copies: &[&[u64]], rules: &dyn Reducer) -> Option<Vec<u64>> {
    let (first, rest) = copies.split_first()?;
    let mut acc = first.to_vec();
    for r in rest {
        let mut out = r.to_vec();
        rules.combine_same_rank(&acc, &mut out);
        // The rank and id are the first copy's.
        out[..2].copy_from_slice(&first[..2]);
        acc = out;
    }
    Some(acc)
}

/// The rules of module `module`, for the modules whose records are
/// reduced with them.
pub fn rules_of(module: usize) -> Option<&'static dyn Reducer> {
    use crate::modules::*;
    Some(match module {
        POSIX => &posix::RULES,
        MPIIO => &mpiio::RULES,
        STDIO => &stdio::RULES,
        H5F => &hdf5::FILE_RULES,
        H5D => &hdf5::DATASET_RULES,
        PNETCDF_FILE => &pnetcdf::FILE_RULES,
        PNETCDF_VAR => &pnetcdf::VAR_RULES,
        POSIX_META => &posix_meta::RULES,
        IO_URING => &io_uring::RULES,
        _ => return None,
    })
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
