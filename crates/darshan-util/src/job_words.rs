//! The job merge's fixed-layout modules (POSIX, MPI-IO, STDIO, HDF5,
//! PnetCDF, POSIX_META), held as the runtime holds them: one flat run of
//! record words (id, rank, [file record id], counters, fcounters), no
//! allocation per record. 10,000 small logs gathered a record at a time
//! into separate allocations left the allocator's heap fragmented (peak
//! RSS 330 MB against a 50 MB live heap); this keeps it near the heap.

use std::collections::HashMap;

use darshan_log::record::Extra;
use darshan_log::reduce::{combine_processes, reduce_ranks, Reducer};
use darshan_log::Record;

/// A module's records as words; `like` gives the layout back.
pub struct Flat {
    pub like: Record,
    pub rw: usize,
    pub words: Vec<u64>,
}

/// A record's words: id, rank, (the owning file's id), counters, fcounters.
pub fn to_words(r: &Record, out: &mut Vec<u64>) {
    out.extend([r.id, r.rank as u64]);
    if let Extra::FileRecId(f) = r.extra {
        out.push(f);
    }
    out.extend(r.counters.iter().map(|&c| c as u64));
    out.extend(r.fcounters.iter().map(|f| f.to_bits()));
}

/// The record of `w`, laid out as `like`.
pub fn from_words(w: &[u64], like: &Record) -> Record {
    let mut r = like.clone();
    r.id = w[0];
    r.rank = w[1] as i64;
    let mut k = 2;
    if let Extra::FileRecId(f) = &mut r.extra {
        *f = w[k];
        k += 1;
    }
    for c in r.counters.iter_mut() {
        *c = w[k] as i64;
        k += 1;
    }
    for f in r.fcounters.iter_mut() {
        *f = f64::from_bits(w[k]);
        k += 1;
    }
    r
}

impl Flat {
    pub fn new(like: &Record) -> Flat {
        let mut w = Vec::new();
        to_words(like, &mut w);
        Flat { like: like.clone(), rw: w.len(), words: Vec::new() }
    }

    /// Add a record of the same layout (another is refused: false).
    pub fn push(&mut self, r: &Record) -> bool {
        let before = self.words.len();
        to_words(r, &mut self.words);
        if self.words.len() - before != self.rw {
            self.words.truncate(before);
            return false;
        }
        true
    }

    pub fn len(&self) -> usize {
        self.words.len() / self.rw.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn rec(&self, k: usize) -> &[u64] {
        &self.words[k * self.rw..(k + 1) * self.rw]
    }

    pub fn records(&self) -> impl Iterator<Item = Record> + '_ {
        self.words.chunks_exact(self.rw.max(1)).map(|w| from_words(w, &self.like))
    }
}

fn rank(w: &[u64]) -> i64 {
    w[1] as i64
}

/// Runs of equal keys in `idx` (sorted by that key).
fn runs<K: PartialEq>(idx: &[usize], key: impl Fn(usize) -> K) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && key(idx[j]) == key(idx[i]) {
            j += 1;
        }
        out.push((i, j));
        i = j;
    }
    out
}

/// One record per (rank, id) (a rank's processes combined), then the
/// records every rank 0..nprocs has reduced to rank -1 as the MPI
/// shutdown reduces them. Order: rank 0's own records, the reduced ones,
/// the other ranks' (as an MPI job's log). Returns the number reduced.
pub fn combine_and_reduce(f: Flat, rules: &dyn Reducer, nprocs: i64) -> (Flat, usize) {
    let n = f.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&k| (rank(f.rec(k)), f.rec(k)[0], k));
    let mut one = Flat { like: f.like.clone(), rw: f.rw, words: Vec::with_capacity(f.words.len()) };
    for (i, j) in runs(&idx, |k| (rank(f.rec(k)), f.rec(k)[0])) {
        if j - i == 1 {
            one.words.extend_from_slice(f.rec(idx[i]));
        } else {
            let refs: Vec<&[u64]> = idx[i..j].iter().map(|&k| f.rec(k)).collect();
            if let Some(w) = combine_processes(&refs, rules) {
                one.words.extend(w);
            }
        }
    }
    drop(f);
    let m = one.len();
    let mut ranks: HashMap<u64, i64> = HashMap::new();
    for k in 0..m {
        if rank(one.rec(k)) >= 0 {
            *ranks.entry(one.rec(k)[0]).or_default() += 1;
        }
    }
    let shared = |k: usize| rank(one.rec(k)) >= 0 && nprocs > 0 && ranks.get(&one.rec(k)[0]) == Some(&nprocs);
    let mut out = Flat { like: one.like.clone(), rw: one.rw, words: Vec::with_capacity(one.words.len()) };
    for k in (0..m).filter(|&k| rank(one.rec(k)) <= 0 && !shared(k)) {
        out.words.extend_from_slice(one.rec(k));
    }
    let mut sh: Vec<usize> = (0..m).filter(|&k| shared(k)).collect();
    sh.sort_by_key(|&k| (one.rec(k)[0], rank(one.rec(k))));
    let mut reduced = 0;
    for (i, j) in runs(&sh, |k| one.rec(k)[0]) {
        let refs: Vec<&[u64]> = sh[i..j].iter().map(|&k| one.rec(k)).collect();
        if let Some(w) = reduce_ranks(&refs, rules) {
            out.words.extend(w);
            reduced += 1;
        }
    }
    for k in (0..m).filter(|&k| rank(one.rec(k)) > 0 && !shared(k)) {
        out.words.extend_from_slice(one.rec(k));
    }
    (out, reduced)
}
