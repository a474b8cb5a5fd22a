//! The building blocks of Darshan's shared-record reduction operators
//! (docs/counter-rules.md §6.3), on records as 64-bit words: counters are `i64`,
//! fcounters `f64` bits. `a` is the incoming operand, `b` the in-out one,
//! `out` a zeroed record that becomes the result; the operand chosen when
//! both are equal is Darshan's.

use super::Reducer;

fn i(w: &[u64], k: usize) -> i64 {
    w[k] as i64
}

fn f(w: &[u64], k: usize) -> f64 {
    f64::from_bits(w[k])
}

/// Sum of the words in `r` (counters).
pub fn sum(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        out[k] = i(a, k).wrapping_add(i(b, k)) as u64;
    }
}

/// Sum, but a negative total is stored as exactly -1 (counters that hold
/// -1 for "not recorded", as POSIX_MMAPS in a preload build).
pub fn sum_or_minus_one(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        let s = i(a, k).wrapping_add(i(b, k));
        out[k] = if s < 0 { -1i64 as u64 } else { s as u64 };
    }
}

/// -1 where neither holds a count (C's preloaded library's "not
/// recorded", the runtime's "none yet"), else the sum of the counts: a
/// rank that mapped the file and one that did not make the first's count
/// (C's own logs never mix the two, and get C's sum_or_minus_one).
pub fn count_or_minus_one(a: &[u64], b: &[u64], out: &mut [u64], k: usize) {
    let (x, y) = (i(a, k), i(b, k));
    out[k] = if x < 0 && y < 0 { -1i64 as u64 } else { x.max(0).wrapping_add(y.max(0)) as u64 };
}

pub fn copy(a: &[u64], out: &mut [u64], k: usize) {
    out[k] = a[k];
}

pub fn max(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        out[k] = i(a, k).max(i(b, k)) as u64;
    }
}

pub fn sum_f(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        out[k] = (f(a, k) + f(b, k)).to_bits();
    }
}

/// Start timestamps: the smallest non-zero one.
pub fn min_nonzero_f(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        let (x, y) = (f(a, k), f(b, k));
        out[k] = if (x < y && x > 0.0) || y == 0.0 { x } else { y }.to_bits();
    }
}

/// End timestamps: the largest.
pub fn max_f(a: &[u64], b: &[u64], out: &mut [u64], words: impl IntoIterator<Item = usize>) {
    for k in words {
        let (x, y) = (f(a, k), f(b, k));
        out[k] = if x > y { x } else { y }.to_bits();
    }
}

/// The longest operation (fcounter `t`) and its size (counter `size`).
pub fn max_time_with_size(a: &[u64], b: &[u64], out: &mut [u64], t: usize, size: usize) {
    let src = if f(a, t) > f(b, t) { a } else { b };
    out[t] = src[t];
    out[size] = src[size];
}

/// Word positions of the fastest/slowest rank fields of a record.
pub struct RankFields {
    pub fastest: usize,
    pub fastest_bytes: usize,
    pub slowest: usize,
    pub slowest_bytes: usize,
    pub fastest_time: usize,
    pub slowest_time: usize,
}

/// Where a module keeps what every reduction shares: the fastest/slowest
/// fields, the three I/O times, the two byte counts and the variances.
pub struct Shape {
    pub ranks: RankFields,
    /// Start and end timestamps of open, read, write and close.
    pub starts: [usize; 4],
    pub ends: [usize; 4],
    pub times: [usize; 3],
    pub bytes: [usize; 2],
    pub var_time: usize,
    pub var_bytes: usize,
}

impl Shape {
    fn time(&self, r: &[u64]) -> f64 {
        self.times.iter().map(|&k| f(r, k)).sum()
    }

    fn moved(&self, r: &[u64]) -> i64 {
        i(r, self.bytes[0]).wrapping_add(i(r, self.bytes[1]))
    }
}

/// The [`Shape`] of a record whose counter module `$c` (`darshan_log::
/// counters::posix`, `stdio`, `mpiio`, `h5d`, `pnetcdf_var`) names the
/// fields as POSIX does; their words come from the module's layout.
#[macro_export]
macro_rules! standard_shape {
    ($c:ident) => {
        $crate::reduce::Shape {
            ranks: $crate::reduce::RankFields {
                fastest: $c::word($c::FASTEST_RANK),
                fastest_bytes: $c::word($c::FASTEST_RANK_BYTES),
                slowest: $c::word($c::SLOWEST_RANK),
                slowest_bytes: $c::word($c::SLOWEST_RANK_BYTES),
                fastest_time: $c::fword($c::F_FASTEST_RANK_TIME),
                slowest_time: $c::fword($c::F_SLOWEST_RANK_TIME),
            },
            starts: [
                $c::fword($c::F_OPEN_START_TIMESTAMP),
                $c::fword($c::F_READ_START_TIMESTAMP),
                $c::fword($c::F_WRITE_START_TIMESTAMP),
                $c::fword($c::F_CLOSE_START_TIMESTAMP),
            ],
            ends: [
                $c::fword($c::F_OPEN_END_TIMESTAMP),
                $c::fword($c::F_READ_END_TIMESTAMP),
                $c::fword($c::F_WRITE_END_TIMESTAMP),
                $c::fword($c::F_CLOSE_END_TIMESTAMP),
            ],
            times: [$c::fword($c::F_READ_TIME), $c::fword($c::F_WRITE_TIME), $c::fword($c::F_META_TIME)],
            bytes: [$c::word($c::BYTES_READ), $c::word($c::BYTES_WRITTEN)],
            var_time: $c::fword($c::F_VARIANCE_RANK_TIME),
            var_bytes: $c::fword($c::F_VARIANCE_RANK_BYTES),
        }
    };
}

/// A module's reduction: its [`Shape`] and its combine function
/// (`inout = input op inout`, writing every word of the result).
pub struct Rules {
    pub shape: Shape,
    pub combine: fn(&[u64], &mut [u64]),
}

impl Reducer for Rules {
    fn prepare(&self, rec: &mut [u64]) {
        let (b, t) = (self.shape.moved(rec), self.shape.time(rec));
        prepare_ranks(rec, &self.shape.ranks, b, t);
    }

    fn combine(&self, input: &[u64], inout: &mut [u64]) {
        (self.combine)(input, inout)
    }

    fn spread(&self, rec: &[u64]) -> Option<(f64, f64)> {
        Some((self.shape.time(rec), self.shape.moved(rec) as f64))
    }

    fn set_variance(&self, rec: &mut [u64], time: f64, bytes: f64) {
        rec[self.shape.var_time] = time.to_bits();
        rec[self.shape.var_bytes] = bytes.to_bits();
    }

    fn combine_same_rank(&self, input: &[u64], inout: &mut [u64]) {
        let p = &self.shape.ranks;
        let kept = [p.fastest, p.fastest_bytes, p.slowest, p.slowest_bytes, p.fastest_time, p.slowest_time]
            .into_iter()
            .chain([self.shape.var_time, self.shape.var_bytes])
            .map(|k| (k, inout[k]))
            .collect::<Vec<_>>();
        (self.combine)(input, inout);
        for (k, v) in kept {
            inout[k] = v;
        }
    }
}

/// What every module of the standard shape combines alike: the earliest
/// non-zero start and the latest end of open, read, write and close, and
/// the sum of each I/O time.
pub fn standard_times(a: &[u64], b: &[u64], out: &mut [u64], s: &Shape) {
    min_nonzero_f(a, b, out, s.starts);
    max_f(a, b, out, s.ends);
    sum_f(a, b, out, s.times);
}

/// Fastest: the operand with the smaller time (zeros count); slowest: the
/// one with the larger.
pub fn fastest_slowest(a: &[u64], b: &[u64], out: &mut [u64], p: &RankFields) {
    let fa = if f(a, p.fastest_time) < f(b, p.fastest_time) { a } else { b };
    out[p.fastest] = fa[p.fastest];
    out[p.fastest_bytes] = fa[p.fastest_bytes];
    out[p.fastest_time] = fa[p.fastest_time];
    let sl = if f(a, p.slowest_time) > f(b, p.slowest_time) { a } else { b };
    out[p.slowest] = sl[p.slowest];
    out[p.slowest_bytes] = sl[p.slowest_bytes];
    out[p.slowest_time] = sl[p.slowest_time];
}

/// Before the reduction, each rank is both the fastest and the slowest
/// of its copy: its rank, its bytes and its I/O time.
pub fn prepare_ranks(rec: &mut [u64], p: &RankFields, bytes: i64, time: f64) {
    let rank = rec[1];
    rec[p.fastest] = rank;
    rec[p.slowest] = rank;
    rec[p.fastest_bytes] = bytes as u64;
    rec[p.slowest_bytes] = bytes as u64;
    rec[p.fastest_time] = time.to_bits();
    rec[p.slowest_time] = time.to_bits();
}

/// Two 4-slot common-value lists (values at `vi`, counts at `ci`): values
/// in both lists have their counts merged, then both lists go into an
/// empty one in order — an approximation of the global top four.
pub fn common(a: &[u64], b: &[u64], out: &mut [u64], vi: usize, ci: usize) {
    let av: [i64; 4] = std::array::from_fn(|k| i(a, vi + k));
    let mut ac: [i64; 4] = std::array::from_fn(|k| i(a, ci + k));
    let mut bv: [i64; 4] = std::array::from_fn(|k| i(b, vi + k));
    let mut bc: [i64; 4] = std::array::from_fn(|k| i(b, ci + k));
    for j in 0..4 {
        for k in 0..4 {
            if av[j] == bv[k] {
                ac[j] += bc[k];
                bv[k] = 0;
                bc[k] = 0;
            }
        }
    }
    for k in 0..4 {
        out[vi + k] = 0;
        out[ci + k] = 0;
    }
    for j in 0..4 {
        update_common(out, vi, ci, av[j], ac[j], true);
    }
    for j in 0..4 {
        update_common(out, vi, ci, bv[j], bc[j], true);
    }
}

/// [`common`] for 4 tuples of `n` values (H5D, PNETCDF_VAR), as Darshan
/// reduces them: tuples in both lists have their counts merged into the
/// first's, then both lists go into an empty one, without adding.
pub fn common_tuples(a: &[u64], b: &[u64], out: &mut [u64], vi: usize, ci: usize, n: usize) {
    let tuple = |w: &[u64], k: usize| -> Vec<i64> { (0..n).map(|j| w[vi + k * n + j] as i64).collect() };
    let mut at: Vec<Vec<i64>> = (0..4).map(|k| tuple(a, k)).collect();
    let mut ac: [i64; 4] = std::array::from_fn(|k| i(a, ci + k));
    let mut bt: Vec<Vec<i64>> = (0..4).map(|k| tuple(b, k)).collect();
    let mut bc: [i64; 4] = std::array::from_fn(|k| i(b, ci + k));
    for j in 0..4 {
        for k in 0..4 {
            if at[j] == bt[k] {
                bt[k].iter_mut().for_each(|x| *x = 0);
                ac[j] += bc[k];
                bc[k] = 0;
            }
        }
    }
    out[vi..vi + 4 * n].iter_mut().for_each(|x| *x = 0);
    out[ci..ci + 4].iter_mut().for_each(|x| *x = 0);
    for (t, c) in at.iter_mut().zip(ac).chain(bt.iter_mut().zip(bc)) {
        update_common_tuple(out, vi, ci, t, c, false);
    }
}

/// The words of a record that `combine` leaves zero both when the
/// operands hold distinct non-zero values and when they hold 1s (flags):
/// counters no rule takes. A module's tests assert there are none past
/// the id (a counter added to the table, or a table reordered, without
/// its rule shows up here).
pub fn words_no_rule_takes(combine: fn(&[u64], &mut [u64]), record_words: usize) -> Vec<usize> {
    words_no_rule_takes_but(combine, record_words, &[])
}

/// As [`words_no_rule_takes`] for a [`Rules`]: the variances are set
/// after the combining (`Reducer::set_variance`).
pub fn words_no_rules_take(rules: &Rules, record_words: usize) -> Vec<usize> {
    words_no_rule_takes_but(rules.combine, record_words, &[rules.shape.var_time, rules.shape.var_bytes])
}

fn words_no_rule_takes_but(combine: fn(&[u64], &mut [u64]), record_words: usize, elsewhere: &[usize]) -> Vec<usize> {
    let run = |a: &dyn Fn(u64) -> u64, b: &dyn Fn(u64) -> u64| {
        let x: Vec<u64> = (0..record_words as u64).map(a).collect();
        let mut y: Vec<u64> = (0..record_words as u64).map(b).collect();
        combine(&x, &mut y);
        y
    };
    let distinct = run(&|k| 3 + k, &|k| 1000 + k);
    let ones = run(&|_| 1, &|_| 1);
    (2..record_words).filter(|&k| distinct[k] == 0 && ones[k] == 0 && !elsewhere.contains(&k)).collect()
}

/// Insert `v` with total count `count` into the 4-slot list (vals at
/// `w[vi..vi+4]`, counts at `w[ci..ci+4]`), ordered by count descending,
/// then by value descending; 0 is never inserted. With `add`, a count
/// already in the list for `v` is added (the reduction's use).
#[inline]
pub fn update_common(w: &mut [u64], vi: usize, ci: usize, v: i64, count: i64, add: bool) {
    if v == 0 {
        return;
    }
    if !add {
        // Fast path: `v` is listed and still ranks below its predecessor
        // with its new count: only its count changes (counts only grow).
        for k in 0..4 {
            if w[vi + k] as i64 == v {
                let above = k == 0 || {
                    let (pc, pv) = (w[ci + k - 1] as i64, w[vi + k - 1] as i64);
                    pc > count || (pc == count && pv > v)
                };
                if above {
                    w[ci + k] = count as u64;
                    return;
                }
                break;
            }
        }
    }
    update_common_tuple(w, vi, ci, &[v], count, add);
}

/// [`update_common`] for tuples of `n` values (1 for POSIX, MPI-IO and
/// STDIO; 11 for H5D and PNETCDF_VAR: the access size, 5 lengths and 5
/// strides): 4 tuples at `w[vi..vi + 4n]`,
/// counts at `w[ci..ci + 4]`, ordered by count descending and then by the
/// tuple's first value descending, as Darshan's macro with `__val_size`
/// n; a tuple whose first value is 0 is never inserted.
#[inline]
pub fn update_common_tuple(w: &mut [u64], vi: usize, ci: usize, v: &[i64], count: i64, add: bool) {
    let n = v.len();
    debug_assert!((1..=16).contains(&n), "tuples of 1 to 16 values");
    if v[0] == 0 {
        return;
    }
    let same = |w: &[u64], k: usize| (0..n).all(|j| w[vi + k * n + j] as i64 == v[j]);
    let mut total = count;
    if add {
        if let Some(k) = (0..4).find(|&k| same(w, k)) {
            total += w[ci + k] as i64;
        }
    }
    // The tuples ranked above the new one keep their places.
    let above = |k: usize| {
        let c = w[ci + k] as i64;
        c > total || (c == total && w[vi + k * n] as i64 > v[0])
    };
    let Some(i) = (0..4).find(|&k| !above(k)) else { return };
    // From slot i on: the new tuple, then the old ones without it.
    let mut out_v = [0u64; 4 * 16];
    let mut out_c = [0u64; 4];
    for (o, &x) in out_v.iter_mut().zip(v) {
        *o = x as u64;
    }
    out_c[0] = total as u64;
    for (m, k) in (1..).zip((i..4).filter(|&k| !same(w, k)).take(3 - i)) {
        out_v[m * n..(m + 1) * n].copy_from_slice(&w[vi + k * n..vi + (k + 1) * n]);
        out_c[m] = w[ci + k];
    }
    w[vi + i * n..vi + 4 * n].copy_from_slice(&out_v[..(4 - i) * n]);
    w[ci + i..ci + 4].copy_from_slice(&out_c[..4 - i]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: [(i64, i64); 4]) -> Vec<u64> {
        let mut w = vec![0u64; 8];
        for (k, (val, cnt)) in v.iter().enumerate() {
            w[k] = *val as u64;
            w[4 + k] = *cnt as u64;
        }
        w
    }

    #[test]
    fn common_values_merge_duplicates_then_rank_by_count_then_value() {
        let a = list([(1000, 10), (100, 3), (4096, 1), (0, 0)]);
        let b = list([(100, 8), (8, 2), (4096, 1), (16, 1)]);
        let mut out = vec![0u64; 8];
        common(&a, &b, &mut out, 0, 4);
        let got: Vec<(i64, i64)> = (0..4).map(|k| (out[k] as i64, out[4 + k] as i64)).collect();
        assert_eq!(got, vec![(100, 11), (1000, 10), (4096, 2), (8, 2)]);
    }

    #[test]
    fn start_times_take_the_smallest_non_zero() {
        let a = [0f64.to_bits(), 2.5f64.to_bits(), 1.0f64.to_bits()];
        let b = [3f64.to_bits(), 0f64.to_bits(), 0.5f64.to_bits()];
        let mut out = [0u64; 3];
        min_nonzero_f(&a, &b, &mut out, 0..=2);
        assert_eq!(out.map(f64::from_bits), [3.0, 2.5, 0.5]);
    }

    #[test]
    fn negative_sums_become_minus_one() {
        let a = [-1i64 as u64, 2];
        let b = [-1i64 as u64, 3];
        let mut out = [0u64; 2];
        sum_or_minus_one(&a, &b, &mut out, 0..=1);
        assert_eq!(out.map(|x| x as i64), [-1, 5]);
    }

    #[test]
    fn a_count_beside_a_not_recorded_minus_one_is_the_count() {
        let m = -1i64 as u64;
        let mut out = [0u64; 1];
        for (a, b, want) in [(m, m, -1), (m, 3, 3), (2, m, 2), (2, 3, 5), (0, m, 0)] {
            count_or_minus_one(&[a], &[b], &mut out, 0);
            assert_eq!(out[0] as i64, want, "{} and {}", a as i64, b as i64);
        }
    }
}
