//! darshan-merge of AutoPerf's APMPI records, where the install reads
//! them (`--enable-apmpi-mod`): one header, then every input's ranks'
//! records, in the inputs' order. The header is rank 0's (else the first
//! input's).
//!
//! A killed job's crash-safe files hold the ranks' records as the calls
//! left them: the shutdown that adds each rank's totals and the header's
//! variances never ran. The merge adds them by the runtime's rules
//! (`counters::apmpi::rank_totals`, `reduce::variance_*`), so a killed
//! job's profile reads as a finished one's. C's AutoPerf darshan-merge
//! reads the second input's header as a rank's record (its reader's
//! "first record" flag is static).

use darshan_log::autoperf::{header_bytes, perf_bytes, Apmpi, ApmpiReader, Header, Perf};
use darshan_log::counters::apmpi as c;
use darshan_log::crash_safe::is_crash_safe;
use darshan_log::modules::APMPI;
use darshan_log::reduce::{variance_combine, variance_elem, variance_of};
use darshan_log::writer::Region;
use darshan_log::{LogFile, LogWriter};

/// The merged region's records.
pub(crate) struct Merged {
    header: Header,
    ranks: Vec<Perf>,
}

/// Each input's APMPI records, read as the inputs come: the ranks' with
/// whether they come from a crash-safe file (their totals never added).
#[derive(Default)]
pub(crate) struct Gathered {
    headers: Vec<Header>,
    ranks: Vec<(Perf, bool)>,
}

impl Gathered {
    /// `log`'s records, if it has any; a region that cannot be read stops
    /// the merge, as any other module's.
    pub(crate) fn add(&mut self, log: &LogFile) -> darshan_log::Result<()> {
        if log.header.mod_map[APMPI].len == 0 {
            return Ok(());
        }
        let killed = is_crash_safe(&log.header);
        let mut r = ApmpiReader::new(log)?;
        while let Some(rec) = r.next_record()? {
            match rec {
                Apmpi::Header(h) => self.headers.push(h),
                Apmpi::Perf(p) => self.ranks.push((*p, killed)),
            }
        }
        Ok(())
    }

    /// The merged records (None when no input had any).
    pub(crate) fn merged(self) -> Option<Merged> {
        let first = self.headers.first().cloned()?;
        let mut header = self.headers.into_iter().find(|h| h.rank == 0).unwrap_or(first);
        let killed = self.ranks.iter().any(|r| r.1);
        let mut ranks = self.ranks;
        if killed {
            finish(&mut header, &mut ranks);
        }
        Some(Merged { header, ranks: ranks.into_iter().map(|r| r.0).collect() })
    }
}

/// The calls a log's APMPI records count (its ranks' operations); 0 for a
/// region that cannot be read (the cost is an estimate: a merge that
/// leaves the module out must not fail on it).
pub(crate) fn calls_of(log: &LogFile) -> u64 {
    let Ok(mut r) = ApmpiReader::new(log) else { return 0 };
    let mut calls = 0u64;
    while let Ok(Some(rec)) = r.next_record() {
        if let Apmpi::Perf(p) = rec {
            let counters: Vec<i64> = p.counters.iter().map(|&v| v as i64).collect();
            calls = calls.saturating_add(darshan_log::cost::counters_calls(APMPI, &counters));
        }
    }
    calls
}

/// What the shutdown would have added: the totals of the ranks from
/// crash-safe files (a finished log's ranks have theirs), and the
/// variances over every rank onto the header.
fn finish(header: &mut Header, ranks: &mut [(Perf, bool)]) {
    let mut var = [[0u64; 3]; 2];
    for (k, (p, killed)) in ranks.iter_mut().enumerate() {
        if *killed {
            p.global = c::rank_totals(p.global[0], |i| p.time[i], |i| p.sync[i]).into();
        }
        for (v, x) in var.iter_mut().zip(p.global) {
            if k == 0 {
                *v = variance_elem(x);
            } else {
                variance_combine(&variance_elem(x), v);
            }
        }
    }
    if !ranks.is_empty() {
        header.variance_total_mpitime = variance_of(&var[0]);
        header.variance_total_mpisynctime = variance_of(&var[1]);
    }
}

impl Merged {
    pub(crate) fn len(&self) -> usize {
        1 + self.ranks.len()
    }

    /// The region, in the log's layout, at AutoPerf's version.
    pub(crate) fn write<W: std::io::Write + std::io::Seek>(&self, w: &mut LogWriter<W>) -> darshan_log::Result<()> {
        w.put(Region::Module(APMPI), &header_bytes(&self.header))?;
        for p in &self.ranks {
            w.put(Region::Module(APMPI), &perf_bytes(p))?;
        }
        w.set_module_version(APMPI, c::VERSION);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::autoperf::perf_from;

    fn rank(r: i64, op_secs: &[(usize, f64)], sync: &[(usize, f64)]) -> Perf {
        let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
        p.rank = r;
        for &(k, t) in op_secs {
            p.time[3 * k] = t;
        }
        for &(i, t) in sync {
            p.sync[i] = t;
        }
        p
    }

    #[test]
    fn a_killed_jobs_ranks_get_the_totals_and_the_header_the_variances_of_a_shutdown() {
        // Ranks of 1, 2, 3 and 4 s in MPI (two operations and a sync time
        // on the last): variance 1.25; sync 0, 0, 0, 0.5: variance 0.046875.
        // Rank 2 comes from a finished log: its totals stand as written.
        let mut finished = rank(2, &[(5, 3.0)], &[]);
        finished.global = [3.0, 0.0];
        let mut ranks = vec![
            (rank(0, &[(0, 1.0)], &[]), true),
            (rank(1, &[(0, 0.5), (30, 1.5)], &[]), true),
            (finished, false),
            (rank(3, &[(24, 3.5)], &[(0, 0.5)]), true),
        ];
        let mut h = Header { rank: 0, magic: c::MAGIC, ..Default::default() };
        finish(&mut h, &mut ranks);
        let totals: Vec<[f64; 2]> = ranks.iter().map(|p| p.0.global).collect();
        assert_eq!(totals, [[1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.5]]);
        assert!((h.variance_total_mpitime - 1.25).abs() < 1e-12, "{h:?}");
        assert!((h.variance_total_mpisynctime - 0.046875).abs() < 1e-12, "{h:?}");
    }

    #[test]
    fn logs_without_apmpi_records_merge_into_none() {
        assert!(Gathered::default().merged().is_none());
    }
}
