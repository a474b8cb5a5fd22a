//! The module sums the rules read. The report's tables sum every record,
//! as PyDarshan does; the rules judge the application's I/O, so the
//! records of software loading (N02) and of the MPI library's own files
//! (N01) are summed apart as they stream past and taken out. A Spark job
//! whose JVM read its 250 jars in 26,791 small reads at scattered offsets
//! was told "High number (6,519) of random read operations", with advice
//! to read its samples in order, though it read 15 KiB of data.

use std::collections::HashSet;

use darshan_log::Record;

use crate::modstats::ModuleSums;

/// Record ids that are not the application's, by name.
#[derive(Default)]
pub struct NotApplication {
    /// Software loading (diagnose::software).
    pub software: HashSet<u64>,
    /// The MPI library's own files (diagnose::internals).
    pub internal: HashSet<u64>,
}

impl NotApplication {
    /// Not software loading, nor a file of the MPI library's.
    pub fn application(&self, id: u64) -> bool {
        !self.software.contains(&id) && !self.internal.contains(&id)
    }
}

/// One module's records that are not the application's, summed apart.
pub struct LeftOut(ModuleSums);

impl LeftOut {
    pub fn new(module: usize) -> Option<LeftOut> {
        ModuleSums::bare(module).map(LeftOut)
    }

    /// `r` into the sums, if it is not the application's.
    pub fn add(&mut self, r: &Record, not: &NotApplication) {
        if !not.application(r.id) {
            self.0.add(r);
        }
    }
}

/// The application's sums of each module, and every record's, as Drishti
/// counts them (to tell which rules fire only on what is not the
/// application's: diagnose::as_drishti).
pub struct RuleSums<'a> {
    application: Vec<ModuleSums>,
    every_record: &'a [ModuleSums],
}

impl<'a> RuleSums<'a> {
    /// From every record's sums and the parts summed apart, module by
    /// module.
    pub fn new(every_record: &'a [ModuleSums], left_out: &[LeftOut]) -> RuleSums<'a> {
        let application = every_record
            .iter()
            .filter_map(|s| left_out.iter().find(|l| l.0.layout.module == s.layout.module).map(|l| s.minus(&l.0)))
            .collect();
        RuleSums { application, every_record }
    }

    /// A module's sums, the application's or (as Drishti counts) every
    /// record's, if it has records of that kind.
    pub fn get(&self, module: usize, as_drishti: bool) -> Option<&ModuleSums> {
        let of = if as_drishti { self.every_record } else { &self.application };
        of.iter().find(|s| s.layout.module == module && s.records > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::posix as px;
    use darshan_log::modules;

    fn record(id: u64, reads: i64, seq: i64, read_time: f64) -> Record {
        let mut r = Record::zeroed(modules::POSIX, id, 0);
        (r.counters[px::READS], r.counters[px::SEQ_READS]) = (reads, seq);
        r.fcounters[px::F_READ_TIME] = read_time;
        r
    }

    /// Two jars read at scattered offsets (software), an MPI library's
    /// segment, and a data file read in order: the rules see the data
    /// file alone, or every record as Drishti counts.
    #[test]
    fn the_rules_sums_leave_out_software_and_the_mpi_librarys_files() {
        let not = NotApplication { software: [1, 2].into(), internal: [3].into() };
        let mut all = ModuleSums::new(modules::POSIX, 1).unwrap();
        let mut left = LeftOut::new(modules::POSIX).unwrap();
        for r in [record(1, 5000, 100, 0.25), record(2, 3000, 0, 0.5), record(3, 7, 7, 0.125), record(4, 40, 40, 2.0)] {
            all.add(&r);
            left.add(&r, &not);
        }
        let sums = RuleSums::new(std::slice::from_ref(&all), std::slice::from_ref(&left));
        let app = sums.get(modules::POSIX, false).unwrap();
        assert_eq!((app.records, app.sum("POSIX_READS"), app.sum("POSIX_SEQ_READS")), (1, 40, 40));
        assert_eq!(app.times[0], 2.0);
        let counted = sums.get(modules::POSIX, true).unwrap();
        assert_eq!((counted.records, counted.sum("POSIX_READS"), counted.sum("POSIX_SEQ_READS")), (4, 8047, 147));
        assert_eq!(counted.times[0], 2.875);
        assert!(sums.get(modules::STDIO, false).is_none());
    }

    /// A log of software loading alone: the application has no POSIX
    /// records, so no POSIX rule runs on it.
    #[test]
    fn a_log_of_software_loading_alone_has_no_application_records() {
        let not = NotApplication { software: [1].into(), internal: HashSet::new() };
        let mut all = ModuleSums::new(modules::POSIX, 1).unwrap();
        let mut left = LeftOut::new(modules::POSIX).unwrap();
        let r = record(1, 10, 0, 1.0);
        all.add(&r);
        left.add(&r, &not);
        let all = [all];
        let sums = RuleSums::new(&all, &[left]);
        assert!(sums.get(modules::POSIX, false).is_none());
        assert_eq!(sums.get(modules::POSIX, true).map(|s| s.sum("POSIX_READS")), Some(10));
    }
}
