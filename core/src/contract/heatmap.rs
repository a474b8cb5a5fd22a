//! Heatmaps (docs/counter-rules.md §5): for each source module (POSIX, STDIO, ...)
//! the bytes read and written in each time bin of the run, in the record
//! layout of HEATMAP version 1. A source keeps its [`HeatBins`] under its
//! own lock and updates it with the same ticks as its counters.
//!
//! Bins are `2^shift` clock ticks wide, about 0.1 s (the C runtime's
//! initial width); when an operation ends past the last of the 200 bins,
//! neighbouring bins are merged and the width doubles. At shutdown the bins
//! are collapsed until the run's end fits, truncated to the bins up to that
//! end, and the width is written in seconds from the clock calibrated over
//! the whole run (so it is 0.1 × 2^k only up to the tick rate's rounding).

use std::sync::atomic::{AtomicU32, Ordering};

use crate::counting::common::Tick;
use crate::store::ledger::Ledger;
use crate::store::sync::Lock;

/// The heat map of each source module (POSIX, MPI-IO, STDIO) of a process,
/// one way: HEATMAP gives the keeper its record memory in its attach; a
/// source takes its bins from the keeper in its own attach (through its
/// [`Env`](crate::contract::env::Env)) and updates them under its own lock; at
/// shutdown the source leaves its finished record here, and HEATMAP writes
/// what was left. Nothing reaches up to the module list.
pub struct Heatmaps {
    st: Lock<Keeper>,
    /// The widest bins (largest shift) any heatmap of this process has
    /// had. An MPI job's ranks agree on the widest of all at shutdown:
    /// each rank picks its first width from its own estimate of the
    /// clock's rate, and two ranks of an oversubscribed job could round it
    /// to different powers of two (PyDarshan then refuses the log: "Record
    /// nbins is not consistent").
    widest: AtomicU32,
}

struct Keeper {
    /// HEATMAP's record memory not yet taken, HEAT_WORDS each.
    blocks: Vec<&'static mut [u64]>,
    ledger: Option<&'static Ledger>,
    /// Finished records by source module id, as the sources left them.
    finished: Vec<(usize, Vec<u64>)>,
}

impl Default for Heatmaps {
    fn default() -> Self {
        Heatmaps::new()
    }
}

impl Heatmaps {
    pub const fn new() -> Heatmaps {
        Heatmaps {
            st: Lock::new(Keeper { blocks: Vec::new(), ledger: None, finished: Vec::new() }),
            widest: AtomicU32::new(0),
        }
    }

    /// HEATMAP's attach: its record memory (cut into blocks of HEAT_WORDS,
    /// handed out first to last) and the ledger its records count in.
    pub fn provide(&self, mut words: &'static mut [u64], ledger: &'static Ledger) {
        let mut blocks = Vec::with_capacity(words.len() / HEAT_WORDS);
        while words.len() >= HEAT_WORDS {
            let (block, rest) = words.split_at_mut(HEAT_WORDS);
            blocks.push(block);
            words = rest;
        }
        blocks.reverse(); // `take` pops: the first source gets the first block
        let mut st = self.st.lock();
        st.blocks = blocks;
        st.ledger = Some(ledger);
    }

    /// A source's attach: bins for its record `name` (`heatmap:POSIX`) of
    /// 2^shift ticks; None when HEATMAP is off, full or out of names.
    pub fn take(&'static self, source: usize, name: &'static [u8], rank: i64, shift: u32) -> Option<HeatBins> {
        let mut st = self.st.lock();
        let ledger = st.ledger?;
        let block = st.blocks.pop()?;
        if !ledger.register_name(darshan_log::modules::HEATMAP, darshan_log::record_id(name), name) {
            return None;
        }
        HeatBins::new(block, name, rank, shift, ledger, (self, source))
    }

    /// See the field: the widest bins this process's heatmaps have had.
    pub fn widest(&self) -> u32 {
        self.widest.load(Ordering::Relaxed)
    }

    /// HEATMAP's output: every finished record, in source id order.
    pub fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let mut st = self.st.lock();
        st.finished.sort_by_key(|(source, _)| *source);
        for (_, rec) in &st.finished {
            emit(rec);
        }
    }

    fn leave(&self, source: usize, rec: Option<Vec<u64>>) {
        let mut st = self.st.lock();
        st.finished.retain(|(s, _)| *s != source);
        if let Some(rec) = rec {
            st.finished.push((source, rec));
        }
    }
}

pub const HEAT_BINS: usize = 200;
/// id, rank, width (f64 bits), nbins, two pointer slots, write bins, read bins.
pub const HEAT_WORDS: usize = 6 + 2 * HEAT_BINS;
const W: usize = 6;
const R: usize = 6 + HEAT_BINS;

pub struct HeatBins {
    words: &'static mut [u64; HEAT_WORDS],
    /// Tick length, record count and the name table (HEATMAP's ledger).
    ledger: &'static Ledger,
    /// Where the finished record is left, and for which source module.
    keeper: (&'static Heatmaps, usize),
    name: &'static [u8],
    shift: u32,
    initial_shift: u32,
    used: bool,
    /// A finished record was left with the keeper (at shutdown).
    left: bool,
}

impl HeatBins {
    /// A heatmap in `words` (HEAT_WORDS long) for the record `name`
    /// (`heatmap:<MODULE>`), with bins of `2^shift` ticks, counted in
    /// `ledger`, finished into `keeper`. None if `words` is not HEAT_WORDS
    /// long.
    fn new(
        words: &'static mut [u64],
        name: &'static [u8],
        rank: i64,
        shift: u32,
        ledger: &'static Ledger,
        keeper: (&'static Heatmaps, usize),
    ) -> Option<HeatBins> {
        let words: &'static mut [u64; HEAT_WORDS] = words.try_into().ok()?;
        // Record memory is backed zeroed and this block was never handed
        // out before: its bins are zero, as `used: false` says.
        let mut h = HeatBins { words, ledger, keeper, name, shift, initial_shift: shift, used: false, left: false };
        h.reset(rank, shift);
        Some(h)
    }

    /// The record anew. Bins are written only once `used` (add sets it;
    /// fold leaves unused bins alone), so unused ones are zero already
    /// and their pages untouched: writing zeros over every process's
    /// three unused heat maps was 3 page faults at start-up and more at
    /// exit.
    fn reset(&mut self, rank: i64, shift: u32) {
        if self.used {
            self.words.iter_mut().for_each(|w| *w = 0);
        }
        self.words[0] = darshan_log::record_id(self.name);
        self.words[1] = rank as u64;
        // Width and bin count as a reader of the crash-safe file needs
        // them while the program runs (rewritten at shutdown).
        self.words[2] = ((1u64 << shift) as f64 * self.ledger.tick_secs()).to_bits();
        self.words[3] = HEAT_BINS as u64;
        self.shift = shift;
        self.keeper.0.widest.fetch_max(shift, Ordering::Relaxed);
        self.used = false;
        self.ledger.record_added(darshan_log::modules::HEATMAP, HEAT_WORDS * 8);
    }

    pub fn set_rank(&mut self, rank: i64) {
        self.words[1] = rank as u64;
    }

    /// Forget everything (forked child); the name is registered again.
    pub fn clear(&mut self, rank: i64) {
        self.reset(rank, self.initial_shift);
        // Only after a shutdown left a record: a forked child must not
        // take the keeper's lock, which no fork holds (a thread of its
        // parent may have held it at that moment).
        if self.left {
            self.left = false;
            self.keeper.0.leave(self.keeper.1, None);
        }
        self.ledger.register_name(darshan_log::modules::HEATMAP, self.words[0], self.name);
    }

    /// Merge pairs of bins: the width doubles.
    fn fold(&mut self) {
        for base in [W, R].into_iter().filter(|_| self.used) {
            for i in 0..HEAT_BINS / 2 {
                let v = (self.words[base + 2 * i] as i64) + (self.words[base + 2 * i + 1] as i64);
                self.words[base + i] = v as u64;
            }
            for i in HEAT_BINS / 2..HEAT_BINS {
                self.words[base + i] = 0;
            }
        }
        self.shift += 1;
        self.keeper.0.widest.fetch_max(self.shift, Ordering::Relaxed);
        self.words[2] = (f64::from_bits(self.words[2]) * 2.0).to_bits();
    }

    /// `bytes` moved from tick `tm1` to `tm2`, spread over the bins it
    /// overlaps in proportion to the overlap (the total is kept exact).
    #[inline]
    pub fn add(&mut self, write: bool, bytes: i64, tm1: Tick, tm2: Tick) {
        if bytes <= 0 || tm1 < 0 || tm2 < tm1 {
            return;
        }
        let mut b2 = (tm2 >> self.shift) as usize;
        if b2 >= HEAT_BINS {
            b2 = self.fold_until(tm2);
        }
        self.used = true;
        let base = if write { W } else { R };
        let b1 = (tm1 >> self.shift) as usize;
        if b1 == b2 {
            // The common case: the call fits in one bin.
            let i = base + b2.min(HEAT_BINS - 1);
            self.words[i] = self.words[i].wrapping_add(bytes as u64);
            return;
        }
        self.spread(base, bytes, tm1, tm2, b1, b2);
    }

    #[cold]
    fn fold_until(&mut self, tm2: Tick) -> usize {
        while (tm2 >> self.shift) as usize >= HEAT_BINS {
            self.fold();
        }
        (tm2 >> self.shift) as usize
    }

    fn spread(&mut self, base: usize, bytes: i64, tm1: Tick, tm2: Tick, b1: usize, b2: usize) {
        let total = (tm2 - tm1) as i128;
        let mut left = bytes;
        for b in b1..=b2 {
            let lo = tm1.max((b as i64) << self.shift);
            let hi = tm2.min(((b as i64) + 1) << self.shift);
            let share = if b == b2 { left } else { ((bytes as i128 * (hi - lo) as i128 + total / 2) / total) as i64 };
            let share = share.min(left);
            left -= share;
            self.words[base + b] = (self.words[base + b] as i64 + share) as u64;
        }
    }

    /// Shutdown: fit the bins to the run (`end` ticks) with bins of at
    /// least `2^at_least` ticks (the job's widest), write the width in
    /// seconds and the bin count, and move the read bins next to the write
    /// bins; the record (fitted to the run; the 200-bin one in `words`
    /// stays valid in the crash-safe file) is left with the keeper if the
    /// heatmap saw data.
    pub fn finish(&mut self, end: Tick, secs_per_tick: f64, rank: i64, at_least: u32) {
        // A process that started recording before MPI_Init learns its rank late.
        self.words[1] = rank as u64;
        while (end.max(0) >> self.shift) as usize >= HEAT_BINS || self.shift < at_least.min(62) {
            self.fold();
        }
        let width = 1i64 << self.shift;
        let nbins = ((end.max(0) + width - 1) / width).clamp(1, HEAT_BINS as i64) as usize;
        self.words[2] = ((width as f64) * secs_per_tick).to_bits();
        let mut out = Vec::with_capacity(W + 2 * nbins);
        out.extend_from_slice(&self.words[..W]);
        out[3] = nbins as u64;
        out[4] = 0;
        out[5] = 0;
        out.extend_from_slice(&self.words[W..W + nbins]);
        out.extend_from_slice(&self.words[R..R + nbins]);
        self.keeper.0.leave(self.keeper.1, self.used.then_some(out));
        self.left = true;
    }
}

/// The shift that makes 2^shift ticks closest to 0.1 s at `ticks_per_sec`.
pub fn shift_for(ticks_per_sec: f64) -> u32 {
    // round(log2(t)) without libm (which the library then need not load):
    // the integer part from the bits, one more if t >= 2^k * sqrt(2).
    let t = (ticks_per_sec * 0.1).clamp(1.0, 2f64.powi(62));
    let k = (t as u64).ilog2();
    let k = if t >= (1u64 << k) as f64 * std::f64::consts::SQRT_2 { k + 1 } else { k };
    k.clamp(1, 62)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_rounds_log2_of_a_tenth_of_the_rate() {
        for rate in [1e9, 2.1e9, 3.0e9, 1.0, 10.0, 12.3e6, 7.7e12] {
            let want = (rate * 0.1f64).max(1.0).log2().round().clamp(1.0, 62.0) as u32;
            assert_eq!(shift_for(rate), want, "rate {rate}");
        }
    }

    /// A keeper of its own with room for `n` heatmaps.
    fn keeper(n: usize) -> &'static Heatmaps {
        let keeper: &'static Heatmaps = Box::leak(Box::default());
        let mut on = [false; 64];
        on[darshan_log::modules::HEATMAP] = true;
        keeper.provide(vec![0u64; n * HEAT_WORDS].leak(), Ledger::for_tests(1 << 10, &on));
        keeper
    }

    /// The record `h` left with its keeper at shutdown, if any.
    fn left(h: &HeatBins) -> Option<Vec<u64>> {
        let st = h.keeper.0.st.lock();
        st.finished.iter().find(|(s, _)| *s == h.keeper.1).map(|(_, r)| r.clone())
    }

    fn bins() -> HeatBins {
        keeper(1).take(1, b"heatmap:POSIX", 0, 4).unwrap() // 16 ticks per bin
    }

    #[test]
    fn bytes_are_spread_by_overlap_and_bins_fold_when_time_runs_out() {
        let mut h = bins();
        h.add(true, 100, 0, 3); // bin 0
        h.add(true, 100, 12, 28); // 4 ticks in bin 0, 12 in bin 1 -> 25 / 75
        h.add(false, 10, 40, 40); // zero duration: bin 2
        assert_eq!((h.words[W] as i64, h.words[W + 1] as i64), (125, 75));
        assert_eq!(h.words[R + 2], 10);
        h.add(true, 7, 16 * 250, 16 * 250 + 1); // past 200 bins: fold once
        assert_eq!(h.shift, 5);
        assert_eq!(h.words[W] as i64, 200, "bins 0 and 1 merged");
        assert_eq!(h.words[W + 125] as i64, 7);
        h.finish(32 * 130, 0.5, 0, 0);
        // The 200-bin record (the crash-safe file's) stays whole.
        assert_eq!(h.words[3], 200);
        let rec = left(&h).unwrap();
        assert_eq!(rec[3], 130);
        assert_eq!(f64::from_bits(rec[2]), 16.0);
        assert_eq!(rec.len(), 6 + 260);
        assert_eq!(rec[6 + 130 + 1], 10, "read bins follow the write bins");
    }

    /// An MPI job's log once held rank 3's heatmap with bins half as wide
    /// as the other ranks' (its first width came from its own estimate of
    /// the clock's rate), and PyDarshan refused the log ("Record nbins is
    /// not consistent with current heatmap"). At shutdown a heatmap is
    /// folded to the job's widest bins: two ranks that started at 16 and
    /// 32 ticks end with the same width and bin count, bytes kept.
    #[test]
    fn ranks_whose_heatmaps_started_with_different_widths_end_with_one() {
        let narrow = {
            let mut h = bins(); // 16 ticks per bin
            h.add(true, 100, 0, 3);
            h.add(true, 50, 20, 21);
            h.add(false, 7, 40, 41);
            h
        };
        let keeper = keeper(1);
        let wide = {
            let mut h = keeper.take(1, b"heatmap:POSIX", 1, 5).unwrap(); // 32 ticks
            h.add(true, 10, 0, 1);
            h
        };
        assert_eq!(keeper.widest(), 5, "the keeper knows its widest bins");
        let mut recs = Vec::new();
        for mut h in [narrow, wide] {
            // The job's widest: 5, as the shutdown's all-reduce gives it.
            h.finish(100, 0.5, 0, 5);
            recs.push(left(&h).unwrap());
        }
        let (a, b) = (&recs[0], &recs[1]);
        assert_eq!(f64::from_bits(a[2]), 16.0, "32 ticks of 0.5 s");
        assert_eq!((a[2], a[3]), (b[2], b[3]), "same width and bin count");
        assert_eq!(a[3], 4, "100 ticks in bins of 32");
        // Write bins: 100 + 50 in bin 0 (ticks 0-31), reads 7 in bin 1.
        assert_eq!((a[6] as i64, a[7] as i64), (150, 0));
        assert_eq!(a[6 + 4 + 1], 7);
    }

    /// The keeper writes what the sources left at shutdown, in source id
    /// order whatever order they finished in; an unused heatmap leaves
    /// nothing, and a forked child's cleared bins take back their record.
    #[test]
    fn the_keeper_writes_the_finished_records_of_its_sources_in_id_order() {
        let keeper = keeper(3);
        let mut stdio = keeper.take(9, b"heatmap:STDIO", 0, 4).unwrap();
        let mut posix = keeper.take(1, b"heatmap:POSIX", 0, 4).unwrap();
        let mut idle = keeper.take(2, b"heatmap:MPIIO", 0, 4).unwrap();
        assert!(keeper.take(3, b"heatmap:X", 0, 4).is_none(), "room for three");
        stdio.add(true, 5, 0, 1);
        posix.add(false, 7, 0, 1);
        for h in [&mut stdio, &mut posix, &mut idle] {
            h.finish(10, 1.0, 0, 0);
        }
        let mut ids = Vec::new();
        keeper.output(&mut |rec| ids.push(rec[0]));
        assert_eq!(ids, [b"heatmap:POSIX", b"heatmap:STDIO"].map(|n| darshan_log::record_id(n)));
        stdio.clear(0);
        let mut left = 0;
        keeper.output(&mut |_| left += 1);
        assert_eq!(left, 1);
    }

    #[test]
    fn unused_heatmaps_are_not_written() {
        let mut h = bins();
        h.add(true, 0, 1, 2);
        h.finish(100, 1.0, 0, 0);
        assert!(left(&h).is_none());
        assert_eq!(shift_for(2.0e9), 28);
        assert_eq!(shift_for(1.0e9), 27);
    }
}
