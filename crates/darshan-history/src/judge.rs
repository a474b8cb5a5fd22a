//! Run-to-run noise, robustly: a figure has moved when it lies outside
//! its earlier runs' median by more than 3.5 scaled median absolute
//! deviations (Iglewicz and Hoaglin's cut for the modified z-score), and
//! by more than a tenth of the median and a floor of its kind, so that
//! earlier runs that happened to agree exactly do not make every small
//! difference a finding. Files are the exception to the tenth: one file
//! more than runs that always had the same files is a change, and the
//! file is named.

use serde::Serialize;

/// What a figure counts, for its floor and its units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Bytes,
    Ops,
    Files,
    /// Seconds in I/O.
    Time,
    /// The job's run time.
    RunTime,
}

impl Kind {
    pub fn of(fact: &str) -> Kind {
        match fact {
            "run_time" => Kind::RunTime,
            "files" | "shared_files" | "unique_files" => Kind::Files,
            f if f.ends_with("_time") => Kind::Time,
            f if f.starts_with("bytes_") || f.ends_with("_bytes") => Kind::Bytes,
            _ => Kind::Ops,
        }
    }

    /// The share of the median under which a change is no finding.
    fn relative(self) -> f64 {
        match self {
            Kind::Files => 0.0,
            _ => RELATIVE,
        }
    }

    /// The smallest change that can be a finding: 64 KiB, 5 operations,
    /// 1 file, 50 ms in I/O per rank the figure sums (or 1 % of the
    /// runs' median run time, if more), 100 ms of run time (logs before
    /// format 3.41 keep whole seconds: there the tenth of the median
    /// decides).
    fn floor(self, scale: Scale) -> f64 {
        match self {
            Kind::Bytes => 65536.0,
            Kind::Ops => 4.0,
            Kind::Files => 0.5,
            Kind::Time => (0.01 * scale.run_time).max(0.05) * scale.ranks.max(1.0),
            Kind::RunTime => 0.1,
        }
    }
}

/// What sets the floor of a time: the earlier runs' median run time, and
/// how many ranks' time the figure sums. A sum over the ranks is held to
/// the floor once per rank: one rank late to a collective call keeps
/// every rank waiting in it, so a 4-rank job's 15 ms hiccup is 60 ms of
/// metadata time, and is no more a finding than one rank's 15 ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub run_time: f64,
    pub ranks: f64,
}

impl Scale {
    /// The scale of figures summed over the ranks of runs like these.
    pub fn of_runs(run_times: &[f64], nprocs: &[f64]) -> Scale {
        Scale { run_time: median(run_times), ranks: median(nprocs) }
    }

    /// The scale of a figure of one rank (the slowest rank's time, a file
    /// only one rank used).
    pub fn one_rank(self) -> Scale {
        Scale { ranks: 1.0, ..self }
    }

    /// The scale of a job or module fact: every time is a sum over the
    /// ranks but the slowest rank's (in I/O, or in MPI communication).
    pub fn of_fact(self, fact: &str) -> Scale {
        if fact.starts_with("slowest_rank_") {
            self.one_rank()
        } else {
            self
        }
    }
}

/// Modified z-score cut.
const Z: f64 = 3.5;
/// MAD to standard deviation, for normal noise.
const MAD_SCALE: f64 = 1.4826;
/// Changes under this share of the median are never findings.
const RELATIVE: f64 = 0.10;

/// The earlier runs' middle and spread, and the range a run's value can
/// take without having moved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Band {
    pub median: f64,
    pub mad: f64,
    pub low: f64,
    pub high: f64,
}

impl Band {
    pub fn of(history: &[f64], kind: Kind, scale: Scale) -> Band {
        let median = median(history);
        let deviations: Vec<f64> = history.iter().map(|v| (v - median).abs()).collect();
        let mad = self::median(&deviations);
        let half = (Z * MAD_SCALE * mad).max(kind.relative() * median.abs()).max(kind.floor(scale));
        Band { median, mad, low: (median - half).max(0.0), high: median + half }
    }

    pub fn moved(&self, value: f64) -> bool {
        value < self.low || value > self.high
    }
}

/// The most common value and how often it occurs (the first seen on a
/// tie).
pub fn mode<T: PartialEq + Copy>(values: &[T]) -> Option<(T, usize)> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for x in values {
        match counts.iter_mut().find(|c| c.0 == *x) {
            Some(c) => c.1 += 1,
            None => counts.push((*x, 1)),
        }
    }
    counts.into_iter().fold(None, |best, c| match best {
        Some((_, n)) if n >= c.1 => best,
        _ => Some(c),
    })
}

/// The median (0 for no values).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(run_time: f64) -> Scale {
        Scale { run_time, ranks: 1.0 }
    }

    /// CI's history test judged a 4-rank job's MPI-IO metadata time "up"
    /// in a run identical to its 8 earlier ones: 100.5 ms against their
    /// 44.8 ms, 14 ms per rank, one collective open's wait on a busy
    /// machine.
    #[test]
    fn an_identical_run_was_judged_slower_for_one_collective_wait_in_four_ranks() {
        let meta = [0.041, 0.043, 0.044, 0.0445, 0.0451, 0.046, 0.047, 0.049];
        let runs = Scale::of_runs(&[0.032, 0.027, 0.044, 0.027, 0.032, 0.038, 0.041, 0.043], &[4.0; 8]);
        assert_eq!(runs.ranks, 4.0);
        let b = Band::of(&meta, Kind::Time, runs.of_fact("meta_time"));
        assert!(!b.moved(0.1005), "{b:?}");
        assert!(b.moved(0.0448 + 4.0 * 0.1), "every rank 100 ms slower is a finding: {b:?}");
        let one_rank = Band::of(&meta, Kind::Time, runs.of_fact("slowest_rank_time"));
        assert!(one_rank.moved(0.1005), "one rank's 56 ms more is: {one_rank:?}");
    }

    #[test]
    fn noise_within_its_spread_has_not_moved_and_a_tenfold_change_has() {
        let times = [1.0, 1.1, 0.9, 1.05, 0.95, 1.2, 0.8, 1.0];
        let b = Band::of(&times, Kind::Time, one(10.0));
        assert_eq!(b.median, 1.0);
        assert!((b.mad - 0.075).abs() < 1e-12, "{b:?}");
        assert!(!b.moved(1.3) && !b.moved(0.7), "{b:?}");
        assert!(b.moved(10.0) && b.moved(0.1), "{b:?}");
    }

    #[test]
    fn runs_that_agreed_exactly_still_allow_a_tenth_and_the_floor() {
        let bytes = [8.0 * 1048576.0; 8];
        let b = Band::of(&bytes, Kind::Bytes, one(1.0));
        assert!(!b.moved(8.5 * 1048576.0) && b.moved(9.0 * 1048576.0), "{b:?}");
        let files = Band::of(&[4.0; 8], Kind::Files, one(1.0));
        assert!(files.moved(5.0) && !files.moved(4.0), "one more file is a change: {files:?}");
        let many = Band::of(&[60.0; 8], Kind::Files, one(1.0));
        assert!(many.moved(61.0), "among many too: {many:?}");
        let ops = Band::of(&[0.0; 8], Kind::Ops, one(1.0));
        assert!(!ops.moved(4.0) && ops.moved(5.0), "{ops:?}");
        let t = Band::of(&[0.001; 8], Kind::Time, one(0.3));
        assert!(!t.moved(0.04), "milliseconds of I/O time are not a finding: {t:?}");
    }

    #[test]
    fn the_kind_of_a_fact_comes_from_its_name() {
        assert_eq!(Kind::of("bytes_written"), Kind::Bytes);
        assert_eq!(Kind::of("slowest_rank_time"), Kind::Time);
        assert_eq!(Kind::of("run_time"), Kind::RunTime);
        assert_eq!(Kind::of("write_1M_4M"), Kind::Ops);
        assert_eq!(Kind::of("shared_files"), Kind::Files);
    }
}
