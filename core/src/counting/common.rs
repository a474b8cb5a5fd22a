//! Counter arithmetic shared by the modules, with Darshan's exact rules
//! (docs/counter-rules.md §3): non-overlapping cumulative time, start/end
//! timestamps, the access-size histogram, and the common-value counters.
//!
//! Records are 64-bit words; floating-point counters are stored as f64 bits.

use crate::store::fixed_vec::FixedVec;

/// Clock ticks since start-up. Time counters hold ticks while the program
/// runs (integer arithmetic, no conversion per call) and are turned into
/// seconds once, at shutdown ([`ticks_to_secs`]).
pub type Tick = i64;

#[inline]
pub fn getf(w: &[u64], i: usize) -> f64 {
    f64::from_bits(w[i])
}

#[inline]
pub fn setf(w: &mut [u64], i: usize, v: f64) {
    w[i] = v.to_bits();
}

#[inline]
pub fn add(w: &mut [u64], i: usize, v: i64) {
    w[i] = (w[i] as i64).wrapping_add(v) as u64;
}

#[inline]
pub fn get(w: &[u64], i: usize) -> i64 {
    w[i] as i64
}

/// The state of one cumulative time counter kept without double counting
/// overlapping calls: the end of the latest call so far, Darshan's total,
/// and the time counted without negative parts (see
/// [`timer_inc_no_overlap`]).
#[derive(Clone, Copy, Default, Debug)]
pub struct NoOverlap {
    pub last_end: Tick,
    pub kept: Tick,
    pub total: Tick,
}

/// Cumulative time without double counting overlapping calls of the same
/// category, as Darshan's macro computes it: the whole call if it started
/// after the previous end, else `tm2 - last_end`. That is negative for a
/// call that also ended before the last end (threads sharing a
/// descriptor: -0.6 s of write time was seen with 16 threads), so the
/// sum without those negative parts is kept beside it, and the record's
/// word holds Darshan's total while it is not negative and that sum while
/// it is: Darshan's result wherever it is not negative, never a negative
/// time, never more than the span of the calls. The word is right at
/// every moment, not only at shutdown: a killed process's crash-safe file
/// (and so darshan-merge's log) once held -0.4 to -1.5 s.
#[inline]
pub fn timer_inc_no_overlap(w: &mut [u64], i: usize, tm1: Tick, tm2: Tick, t: &mut NoOverlap) {
    let add = if tm1 > t.last_end { tm2 - tm1 } else { tm2 - t.last_end };
    t.total += add;
    t.kept += add.max(0);
    w[i] = (if t.total < 0 { t.kept } else { t.total }) as u64;
    if tm2 > t.last_end {
        t.last_end = tm2;
    }
}

/// A record's three non-overlap timers: read, write and metadata time.
#[derive(Default)]
pub struct IoTimers {
    pub read: NoOverlap,
    pub write: NoOverlap,
    pub meta: NoOverlap,
}

impl IoTimers {
    /// Each timer with the record word of the fcounter it adds to (what
    /// `RecordRt::timers` hands to `RecordSet::finalize`).
    pub fn each(&self, f: &mut dyn FnMut(usize, &NoOverlap), read: usize, write: usize, meta: usize) {
        f(read, &self.read);
        f(write, &self.write);
        f(meta, &self.meta);
    }
}

/// The direction of a record's last read or write, for Darshan's
/// RW_SWITCHES: the first access never counts, and it survives close and
/// reopen.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub enum LastIo {
    #[default]
    None,
    Read,
    Write,
}

impl LastIo {
    /// Note a read or a write; true when it turns the other way.
    #[inline]
    pub fn switches(&mut self, write: bool) -> bool {
        let now = if write { LastIo::Write } else { LastIo::Read };
        let switched = *self != LastIo::None && *self != now;
        *self = now;
        switched
    }
}

/// Shutdown, before ticks become seconds: a negative total is replaced by
/// the total without negative parts.
#[inline]
pub fn fix_negative_time(w: &mut [u64], i: usize, t: &NoOverlap) {
    if (w[i] as i64) < 0 {
        w[i] = t.kept as u64;
    }
}

/// START = earliest call start (0 means unset), END = end of the latest call.
#[inline]
pub fn stamp(w: &mut [u64], start: usize, end: usize, tm1: Tick, tm2: Tick) {
    let s = w[start] as i64;
    if s == 0 || s > tm1 {
        w[start] = tm1 as u64;
    }
    w[end] = tm2 as u64;
}

/// The resolution of the C runtime's times: it subtracts two wall-clock
/// readings held as doubles near 1.8e9 s, whose unit in the last place is
/// 2^-22 s (until 2038), so every time it records is a multiple of that.
pub const C_TIME_RESOLUTION: f64 = 1.0 / (1u64 << 22) as f64;

/// A time in seconds at the C runtime's resolution. Full-precision
/// doubles have 30 more bits of noise each, which made a 20,000-record
/// log 2.3 MB against C's 1 MB: the records are mostly these bits.
#[inline]
pub fn at_c_resolution(secs: f64) -> f64 {
    // Times 2^22: the same bits as dividing by the resolution (a power of
    // two scales exactly), without a division per counter at shutdown.
    let units = secs * (1u64 << 22) as f64;
    // Rounded to the nearest unit without libm (f64::round calls it on
    // baseline x86-64, and a library that loads libm costs every process).
    let r = if units >= 0.0 { (units + 0.5) as i64 } else { (units - 0.5) as i64 };
    r as f64 * C_TIME_RESOLUTION
}

/// Shutdown: the time counters `w[range]` from ticks to seconds, at the C
/// runtime's resolution.
pub fn ticks_to_secs(w: &mut [u64], range: std::ops::Range<usize>, secs_per_tick: f64) {
    // Zero stays zero (0.0 has the same bits): most of a record's times
    // are never set.
    for x in w[range].iter_mut().filter(|x| **x != 0) {
        *x = at_c_resolution((*x as i64) as f64 * secs_per_tick).to_bits();
    }
}

/// Index (0..10) of the access-size bucket: 0-100, 101-1K, ... >1G (the
/// format crate's rule; `#[inline]` there, so the wrappers inline it).
pub use darshan_log::counters::size_bucket;

/// Darshan tracks at most this many distinct values per record.
pub const COMMON_MAX: usize = 32;
/// Distinct values kept in the record's own state; most files see a few
/// access sizes and strides. The rest (up to 32) go to a spill block from
/// the module's [`CommonPool`], so a new record touches ~100 bytes of
/// state instead of ~800 (fewer page faults per new file).
const INLINE: usize = 4;
const SPILL: usize = COMMON_MAX - INLINE;

/// Frequencies of up to 32 distinct values (Darshan's per-record search
/// tree); values first seen after 32 distinct ones are ignored.
#[derive(Clone, Copy, Default)]
pub struct CommonVals {
    vals: [i64; INLINE],
    freq: [u32; INLINE],
    n: u8,
    /// Slot of the last value seen: runs of equal sizes/strides hit it.
    last: u8,
    /// Spill block in the pool + 1 (0: none yet).
    spill: u32,
}

/// Overflow blocks for [`CommonVals`], reserved once (two per record) and
/// touched only when a record sees more than 4 distinct values.
pub struct CommonPool {
    blocks: FixedVec<([i64; SPILL], [u32; SPILL])>,
}

impl Default for CommonPool {
    fn default() -> CommonPool {
        CommonPool::new()
    }
}

impl CommonPool {
    pub const fn new() -> CommonPool {
        CommonPool { blocks: FixedVec::empty() }
    }

    /// Room for `tables` spill blocks; allocated now (not per call). If
    /// that fails, no block is ever handed out (a record then tracks only
    /// its first 4 distinct values).
    pub fn with_capacity(tables: usize) -> CommonPool {
        CommonPool { blocks: FixedVec::with_capacity(tables).unwrap_or(FixedVec::empty()) }
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
    }
}

impl CommonVals {
    /// Count one occurrence of `v`; the new total, or None if not tracked.
    #[inline]
    pub fn track(&mut self, v: i64, pool: &mut CommonPool) -> Option<i64> {
        let l = self.last as usize;
        if l < INLINE && l < self.n as usize && self.vals[l] == v {
            self.freq[l] += 1;
            return Some(self.freq[l] as i64);
        }
        let n = self.n as usize;
        if let Some(k) = self.vals[..n.min(INLINE)].iter().position(|&x| x == v) {
            self.freq[k] += 1;
            self.last = k as u8;
            return Some(self.freq[k] as i64);
        }
        if n < INLINE {
            self.vals[n] = v;
            self.freq[n] = 1;
            self.n += 1;
            self.last = n as u8;
            return Some(1);
        }
        self.track_spilled(v, pool)
    }

    #[cold]
    fn track_spilled(&mut self, v: i64, pool: &mut CommonPool) -> Option<i64> {
        let n = self.n as usize - INLINE;
        if self.spill == 0 {
            // Never full: two blocks are reserved per record.
            pool.blocks.push(([0; SPILL], [0; SPILL])).ok()?;
            self.spill = pool.blocks.len() as u32;
        }
        let (vals, freq) = pool.blocks.get_mut(self.spill as usize - 1)?;
        self.last = u8::MAX;
        if let Some(k) = vals[..n].iter().position(|&x| x == v) {
            freq[k] += 1;
            return Some(freq[k] as i64);
        }
        if n < SPILL {
            vals[n] = v;
            freq[n] = 1;
            self.n += 1;
            return Some(1);
        }
        None
    }

    /// Count `v` and update the 4-slot list at `w[vi..]`/`w[ci..]`.
    #[inline(always)]
    pub fn count(&mut self, pool: &mut CommonPool, w: &mut [u64], vi: usize, ci: usize, v: i64) {
        let Some(n) = self.track(v, pool) else { return };
        if v == 0 {
            return;
        }
        if w[vi] as i64 == v {
            // Already first: counts only grow, so it stays first.
            w[ci] = n as u64;
            return;
        }
        update_common(w, vi, ci, v, n, false);
    }
}

// The common-value lists' insertion is the log format's (the reduction
// merges them too): darshan_log::reduce.
pub use darshan_log::reduce::{update_common, update_common_tuple};

#[cfg(test)]
mod tests {
    use super::*;

    /// Times are rounded to the C runtime's 2^-22 s exactly as by dividing
    /// by the resolution (the multiplication that replaced the division
    /// must give the same bits), and zero ticks stay 0.0.
    #[test]
    fn times_round_to_c_resolution_as_by_division() {
        let by_division = |secs: f64| {
            let units = secs / C_TIME_RESOLUTION;
            let r = if units >= 0.0 { (units + 0.5) as i64 } else { (units - 0.5) as i64 };
            r as f64 * C_TIME_RESOLUTION
        };
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for k in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let ticks = (x >> (k % 40)) as i64 * if k % 3 == 0 { -1 } else { 1 };
            let secs = ticks as f64 * 3.7e-10;
            assert_eq!(at_c_resolution(secs).to_bits(), by_division(secs).to_bits(), "{secs}");
        }
        let mut w = [0u64, 5_000_000_000, 0, (-7i64) as u64];
        ticks_to_secs(&mut w, 0..4, 1e-9);
        assert_eq!(w[0], 0);
        assert_eq!(w[2], 0);
        assert_eq!(f64::from_bits(w[1]), by_division(5.0));
        assert_eq!(f64::from_bits(w[3]), by_division(-7e-9));
    }

    #[test]
    fn a_switch_is_a_change_of_direction_and_the_first_access_is_none() {
        let mut l = LastIo::default();
        let seen: Vec<bool> = [false, false, true, true, false].iter().map(|&w| l.switches(w)).collect();
        assert_eq!(seen, [false, false, true, false, true]);
    }

    /// 16 threads on one shared fd gave a negative POSIX_F_WRITE_TIME: a
    /// call that started and ended before the last end subtracted time.
    #[test]
    fn overlapping_calls_never_make_the_time_negative() {
        let mut w = [0u64; 1];
        let mut t = NoOverlap::default();
        timer_inc_no_overlap(&mut w, 0, 10, 50, &mut t); // +40
        timer_inc_no_overlap(&mut w, 0, 20, 30, &mut t); // C: 30-50 = -20
        timer_inc_no_overlap(&mut w, 0, 21, 29, &mut t); // C: -21
        timer_inc_no_overlap(&mut w, 0, 22, 28, &mut t); // C: -22
                                                         // Darshan's formula gives -23: the word holds the sum of the
                                                         // non-negative parts instead, at once (a crash-safe file read now
                                                         // must not see a negative time), and Darshan's total is kept.
        assert_eq!((w[0] as i64, t.total), (40, -23));
        fix_negative_time(&mut w, 0, &t);
        assert_eq!(w[0] as i64, 40, "negative: the sum of the non-negative parts");
        // Once Darshan's total is positive again, the word follows it.
        timer_inc_no_overlap(&mut w, 0, 100, 160, &mut t); // +60: total 37
        assert_eq!(w[0] as i64, 37);
        // Where Darshan's total is not negative it stays as it is.
        let mut w = [0u64; 1];
        let mut t = NoOverlap::default();
        timer_inc_no_overlap(&mut w, 0, 10, 50, &mut t);
        timer_inc_no_overlap(&mut w, 0, 20, 30, &mut t);
        fix_negative_time(&mut w, 0, &t);
        assert_eq!(w[0] as i64, 20);
        assert_eq!(t.last_end, 50);
    }

    fn list(w: &[u64]) -> Vec<(i64, i64)> {
        (0..4).map(|k| (w[k] as i64, w[4 + k] as i64)).collect()
    }

    #[test]
    fn common_values_match_the_verified_darshan_example() {
        // docs/counter-rules.md §3: 10 x 1000, 3 x 100, 1 x 4096, 1 x 10 -> in that order.
        let mut w = vec![0u64; 8];
        let mut t = CommonVals::default();
        let mut pool = CommonPool::with_capacity(2);
        for v in std::iter::repeat_n(1000, 10).chain([100, 100, 100, 4096, 10]) {
            t.count(&mut pool, &mut w, 0, 4, v);
        }
        assert_eq!(list(&w), vec![(1000, 10), (100, 3), (4096, 1), (10, 1)]);
    }

    #[test]
    fn zero_is_tracked_but_never_listed_and_the_33rd_value_is_ignored() {
        let mut t = CommonVals::default();
        let mut pool = CommonPool::with_capacity(2);
        let mut w = vec![0u64; 8];
        for v in 0..32 {
            t.count(&mut pool, &mut w, 0, 4, v);
        }
        assert_eq!(t.track(99, &mut pool), None);
        assert!(list(&w).iter().all(|&(v, _)| v != 0));
        assert_eq!(list(&w)[0], (31, 1));
        // Spilled values keep counting: 7 is the 8th value, 20 the 21st.
        for _ in 0..5 {
            t.count(&mut pool, &mut w, 0, 4, 20);
        }
        t.count(&mut pool, &mut w, 0, 4, 7);
        assert_eq!(list(&w)[0], (20, 6));
        assert_eq!(list(&w)[1], (7, 2));
        assert_eq!(pool.blocks.len(), 1);
    }

    #[test]
    fn overlapping_calls_add_only_their_tail() {
        let mut w = vec![0u64; 1];
        let mut last = NoOverlap::default();
        timer_inc_no_overlap(&mut w, 0, 10, 30, &mut last);
        timer_inc_no_overlap(&mut w, 0, 20, 40, &mut last);
        timer_inc_no_overlap(&mut w, 0, 25, 35, &mut last); // contained: adds -5
        assert_eq!(w[0] as i64, 20 + 10 - 5);
        assert_eq!(last.last_end, 40);
        ticks_to_secs(&mut w, 0..1, 0.5);
        assert_eq!(getf(&w, 0), 12.5);
    }

    #[test]
    fn size_buckets_have_inclusive_upper_bounds() {
        assert_eq!(size_bucket(0), 0);
        assert_eq!(size_bucket(100), 0);
        assert_eq!(size_bucket(101), 1);
        assert_eq!(size_bucket(1024), 1);
        assert_eq!(size_bucket(1073741824), 8);
        assert_eq!(size_bucket(1073741825), 9);
    }
}
