//! The MPI shutdown's shared-record reduction, computed in one process
//! over records already gathered: `darshan-merge --job` reduces the
//! records every rank of a job without MPI has, so that its job log equals
//! what an MPI job with the same per-rank accesses writes
//! ([`crate::records::RecordSet::reduce_shared`] does the same over MPI,
//! from the same [`prepare_shared`] and the module's [`Reducer`]).

use crate::collective::{variance_combine, variance_elem, variance_of};
use crate::records::{prepare_shared, Reducer};

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
