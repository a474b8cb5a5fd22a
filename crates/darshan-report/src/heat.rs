//! I/O over time: rank × time-bin heat maps from the HEATMAP module's bins
//! or from DXT segments, and a capped list of DXT segments for the
//! timeline. Everything is summed as records stream past; the drawing grid
//! is downsampled while summing, so memory does not grow with ranks × bins.

use crate::model::Heatmap;

const GRID_RANKS: usize = 64;
/// Ranks the per-rank totals cover (0..2^20, more than the largest MPI
/// jobs run): a rank number from a log cannot make a table larger.
pub const PER_RANK_MAX: usize = 1 << 20;
const GRID_BINS: usize = 128;
/// DXT segments are binned into this many bins over the job's run time.
pub const DXT_BINS: usize = 200;
/// Segments kept for the timeline drawing.
pub const TIMELINE_CAP: usize = 20_000;

pub struct HeatAcc {
    pub name: String,
    pub source: String,
    pub bin_width: f64,
    nranks: usize,
    read: Vec<f64>,
    write: Vec<f64>,
    /// Bytes by rank, for ranks below the job's process count.
    per_rank: std::collections::BTreeMap<usize, f64>,
    active: Vec<u32>,
    grid: Vec<Vec<f64>>,
    rank_step: usize,
    bin_step: usize,
    /// Per-bin "this rank already counted active" scratch, reset per record.
    seen: Vec<bool>,
}

impl HeatAcc {
    pub fn new(name: &str, source: &str, nranks: usize, nbins: usize, bin_width: f64) -> HeatAcc {
        let nranks = nranks.max(1);
        let rank_step = nranks.div_ceil(GRID_RANKS).max(1);
        let bin_step = nbins.div_ceil(GRID_BINS).max(1);
        HeatAcc {
            name: name.to_string(),
            source: source.to_string(),
            bin_width,
            nranks,
            read: vec![0.0; nbins],
            write: vec![0.0; nbins],
            per_rank: std::collections::BTreeMap::new(),
            active: vec![0; nbins],
            grid: vec![vec![0.0; nbins.div_ceil(bin_step)]; nranks.div_ceil(rank_step)],
            rank_step,
            bin_step,
            seen: vec![false; nbins],
        }
    }

    pub fn nbins(&self) -> usize {
        self.read.len()
    }

    /// One rank's bins (HEATMAP record): bytes read and written per bin.
    pub fn add_rank_bins(&mut self, rank: i64, read: &[i64], write: &[i64]) {
        let n = self.nbins().min(read.len()).min(write.len());
        let mut any = false;
        let mut total = 0.0;
        for b in 0..n {
            let (r, w) = (read[b] as f64, write[b] as f64);
            if r == 0.0 && w == 0.0 {
                continue;
            }
            any = true;
            total += r + w;
            self.read[b] += r;
            self.write[b] += w;
            self.active[b] += 1;
            self.put_grid(rank, b, r + w);
        }
        if any {
            self.add_rank_total(rank, total);
        }
    }

    /// One rank's DXT segments, each split over the bins it spans in
    /// proportion to the time it spent in each.
    pub fn add_segments(&mut self, rank: i64, segs: impl Iterator<Item = (f64, f64, f64, bool)>) {
        self.seen.iter_mut().for_each(|s| *s = false);
        let nb = self.nbins();
        let mut total = 0.0;
        for (start, end, bytes, is_write) in segs {
            if bytes <= 0.0 || self.bin_width <= 0.0 {
                continue;
            }
            total += bytes;
            let b0 = ((start / self.bin_width).floor().max(0.0) as usize).min(nb - 1);
            let b1 = ((end / self.bin_width).floor().max(0.0) as usize).min(nb - 1);
            let span = end - start;
            for b in b0..=b1 {
                let share = if b0 == b1 || span <= 0.0 {
                    1.0
                } else {
                    let lo = start.max(b as f64 * self.bin_width);
                    let hi = end.min((b + 1) as f64 * self.bin_width);
                    ((hi - lo) / span).max(0.0)
                };
                let v = bytes * share;
                if is_write {
                    self.write[b] += v;
                } else {
                    self.read[b] += v;
                }
                if !self.seen[b] {
                    self.seen[b] = true;
                    self.active[b] += 1;
                }
                self.put_grid(rank, b, v);
            }
        }
        if total > 0.0 {
            self.add_rank_total(rank, total);
        }
    }

    fn add_rank_total(&mut self, rank: i64, total: f64) {
        let r = rank.max(0) as usize;
        if r < self.nranks.min(PER_RANK_MAX) {
            *self.per_rank.entry(r).or_default() += total;
        }
    }

    fn put_grid(&mut self, rank: i64, bin: usize, v: f64) {
        let gr = (rank.max(0) as usize / self.rank_step).min(self.grid.len() - 1);
        let row = &mut self.grid[gr];
        let gb = (bin / self.bin_step).min(row.len() - 1);
        row[gb] += v;
    }

    pub fn finish(self) -> Heatmap {
        // Dense, to the last rank that moved data (idle ranks after it
        // are the zeros readers assume).
        let mut per_rank = vec![0.0; self.per_rank.keys().next_back().map_or(0, |r| r + 1)];
        for (r, v) in self.per_rank {
            per_rank[r] = v;
        }
        Heatmap {
            name: self.name,
            source: self.source,
            bin_width: self.bin_width,
            nbins: self.read.len(),
            nranks: self.nranks,
            nonzero_read_bins: self.read.iter().filter(|v| **v != 0.0).count() as u64,
            nonzero_write_bins: self.write.iter().filter(|v| **v != 0.0).count() as u64,
            read_per_bin: self.read,
            write_per_bin: self.write,
            per_rank,
            active_ranks_per_bin: self.active,
            grid: self.grid,
            grid_rank_step: self.rank_step,
            grid_bin_step: self.bin_step,
        }
    }
}

/// JSC burstiness: the busiest bin's bytes over the mean bytes per bin
/// across the whole run (1 = perfectly even; higher = burstier).
pub fn burstiness(h: &Heatmap) -> Option<f64> {
    let vols: Vec<f64> = h.read_per_bin.iter().zip(&h.write_per_bin).map(|(r, w)| r + w).collect();
    let total: f64 = vols.iter().sum();
    if total <= 0.0 || vols.is_empty() {
        return None;
    }
    let mean = total / vols.len() as f64;
    Some(vols.iter().cloned().fold(0.0, f64::max) / mean)
}

/// JSC parallel I/O intensity: mean number of ranks doing I/O over the
/// bins in which any I/O happens.
pub fn parallel_intensity(h: &Heatmap) -> Option<f64> {
    let busy: Vec<u32> = h.active_ranks_per_bin.iter().copied().filter(|a| *a > 0).collect();
    if busy.is_empty() {
        return None;
    }
    Some(busy.iter().map(|a| *a as f64).sum::<f64>() / busy.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_spanning_bins_is_split_by_the_time_it_spent_in_each() {
        let mut h = HeatAcc::new("t", "DXT_POSIX", 2, 4, 1.0);
        // 100 bytes from t=0.5 to t=2.5: a quarter, a half, a quarter.
        h.add_segments(1, [(0.5, 2.5, 100.0, true)].into_iter());
        let m = h.finish();
        assert_eq!(m.write_per_bin, vec![25.0, 50.0, 25.0, 0.0]);
        assert_eq!(m.active_ranks_per_bin, vec![1, 1, 1, 0]);
        assert_eq!(m.per_rank, vec![0.0, 100.0]);
    }

    #[test]
    fn burstiness_and_intensity_have_their_known_values() {
        let mut h = HeatAcc::new("t", "HEATMAP", 4, 4, 1.0);
        // All four ranks write 10 bytes in bin 0, one rank 40 bytes in bin 2.
        for r in 0..4 {
            h.add_rank_bins(r, &[0, 0, 0, 0], &[10, 0, if r == 0 { 40 } else { 0 }, 0]);
        }
        let m = h.finish();
        // volumes 40, 0, 40, 0: mean 20, peak 40.
        assert_eq!(burstiness(&m), Some(2.0));
        // bins with I/O: 4 ranks and 1 rank.
        assert_eq!(parallel_intensity(&m), Some(2.5));
    }
}
