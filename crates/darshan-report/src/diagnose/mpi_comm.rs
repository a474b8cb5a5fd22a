//! The MPI communication finding, from AutoPerf's APMPI records (the
//! report's MPI communication section): C01.
//!
//! * C01 (information): the ranks spent, on average, at least
//!   `mpi_comm_share` of the run time in MPI calls other than I/O, and at
//!   least `min_time` seconds. Its evidence: the mean, the least and the
//!   most rank, the operations that took most of it, and the I/O time of
//!   the job's slowest rank in I/O beside it (darshan-parser `--perf`'s
//!   time by slowest, of the interface that took longest). That last line
//!   matters: a rank waiting in MPI_Barrier or a wait while another writes
//!   counts that time as communication (E3SM-IO's log in the corpus: 92 %
//!   of its run in MPI, 95 % of that in MPI_Barrier, while its slowest
//!   rank spent 96 % of the run in MPI-IO), so the finding says so when the
//!   slowest rank's I/O is a large part of the run. It gives no advice:
//!   whether the time was spent waiting for another rank's computation or
//!   I/O, on the network or on large messages, the records do not tell.

use crate::diagnose::{finding, Config};
use crate::model::{Finding, Level, MpiComm};
use crate::units::secs;

/// Operations named in the evidence, most time first.
const NAMED: usize = 3;

/// The job's slowest rank in I/O: (interface, seconds), the interface
/// whose time by slowest rank is the largest.
pub type SlowestIo = Option<(String, f64)>;

pub fn findings(m: &MpiComm, run_time: f64, slowest_io: SlowestIo, cfg: &Config) -> Vec<Finding> {
    let share = cfg.get("mpi_comm_share");
    if !(run_time > 0.0 && m.run_share >= share && m.mean_seconds >= cfg.get("min_time")) {
        return Vec::new();
    }
    let mut ev = vec![format!(
        "{} per rank on average in a {} run; the least rank {} ({}), the most rank {} ({})",
        secs(m.mean_seconds),
        secs(run_time),
        m.least.rank,
        secs(m.least.seconds),
        m.most.rank,
        secs(m.most.seconds)
    )];
    let ops: Vec<String> = m.ops.iter().take(NAMED).map(|o| format!("{} {:.1}%", o.name, o.share * 100.0)).collect();
    if !ops.is_empty() {
        ev.push(format!("of that time: {}", ops.join(", ")));
    }
    if let Some((module, t)) = slowest_io.filter(|(_, t)| *t > 0.0) {
        let mut line = format!(
            "the slowest rank in I/O spent {} in {module}, {:.1}% of the run time",
            secs(t),
            t / run_time * 100.0
        );
        if t / run_time >= share {
            line.push_str(": ranks that wait for it in MPI_Barrier or a wait count that time as communication");
        }
        ev.push(line);
    }
    vec![finding(
        "C01",
        Level::Info,
        format!("The ranks spent {:.0}% of the run time in MPI communication", m.run_share * 100.0),
        ev,
        None,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MpiOp, MpiRank};

    fn comm(mean: f64, run_time: f64) -> MpiComm {
        MpiComm {
            ranks: 4,
            mean_seconds: mean,
            run_share: mean / run_time,
            least: MpiRank { rank: 3, seconds: mean / 2.0 },
            most: MpiRank { rank: 1, seconds: mean * 1.5 },
            ops: vec![MpiOp { name: "MPI_BARRIER".into(), share: 0.84, ..Default::default() }],
            ..Default::default()
        }
    }

    #[test]
    fn a_run_mostly_in_mpi_is_said_and_one_mostly_computing_is_not() {
        let cfg = Config::default();
        let f = findings(&comm(60.0, 100.0), 100.0, Some(("POSIX".into(), 3.0)), &cfg);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].code.as_str(), &f[0].level), ("C01", &Level::Info));
        assert_eq!(f[0].title, "The ranks spent 60% of the run time in MPI communication");
        assert!(f[0].evidence[0].contains("the least rank 3") && f[0].evidence[0].contains("the most rank 1"));
        assert_eq!(f[0].evidence[1], "of that time: MPI_BARRIER 84.0%");
        assert_eq!(f[0].evidence[2], "the slowest rank in I/O spent 3.00 s in POSIX, 3.0% of the run time");
        assert!(f[0].recommendation.is_none());
        // A slowest rank in I/O for much of the run: the waiting may be
        // for it, and that is said.
        let f = findings(&comm(60.0, 100.0), 100.0, Some(("MPI-IO".into(), 90.0)), &cfg);
        assert!(f[0].evidence[2].ends_with("90.0% of the run time: ranks that wait for it in MPI_Barrier or a wait count that time as communication"), "{:?}", f[0].evidence);
        // Under a quarter of the run, or under a second: nothing.
        assert!(findings(&comm(20.0, 100.0), 100.0, None, &cfg).is_empty());
        assert!(findings(&comm(0.6, 1.0), 1.0, None, &cfg).is_empty());
    }
}
