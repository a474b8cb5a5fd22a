//! What `DARSHAN_INTERNAL_TIMING` prints, in C Darshan's form
//! (darshan-core.c), so that what reads C's lines reads ours: a
//! `#darshan:<op>\t<nprocs>\t<time>` line, then `darshan:init` at start-up,
//! or at shutdown `log_open`, `job_write`, `hash_write`, `header_write`,
//! one `<MODULE>_shutdown` per module with records, in id order, and
//! `core_shutdown`; in an MPI job each the slowest rank's, printed by rank
//! 0. Our pipeline is not C's, so each op is the nearest of our steps (the
//! module's finalize, reduction and compression for `<MODULE>_shutdown`;
//! the one write of the whole log for `header_write`), and our own split
//! follows as more ops of the same form: `finalize`, `reduce` (MPI),
//! `compress`, `write`.

use std::fmt::Write;
use std::time::Instant;

use darshan_log::modules::{module_name, MAX_MODS};

use crate::counting::collective::{Comm, Op};

/// The header line of each block.
const HEADER: &str = "#darshan:<op>\t<nprocs>\t<time>\n";

/// Seconds spent on each module (by id) at shutdown, when asked for: two
/// clock reads per module and phase (about 70 in all) are a percent of a
/// short process's shutdown.
pub struct ModuleClock {
    secs: [f64; MAX_MODS],
    on: bool,
}

impl Default for ModuleClock {
    fn default() -> Self {
        ModuleClock { secs: [0.0; MAX_MODS], on: false }
    }
}

impl ModuleClock {
    /// A clock that times (DARSHAN_INTERNAL_TIMING) or only runs.
    pub fn new(on: bool) -> ModuleClock {
        ModuleClock { on, ..Default::default() }
    }

    /// Run `f` for module `id`, its time added to the module's.
    pub fn time<R>(&mut self, id: usize, f: impl FnOnce() -> R) -> R {
        if !self.on {
            return f();
        }
        let (r, secs) = timed(f);
        if let Some(s) = self.secs.get_mut(id) {
            *s += secs;
        }
        r
    }
}

/// `f`'s result and the seconds it took.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

/// The shutdown's times, in seconds.
#[derive(Default)]
pub struct Timing {
    pub log_open: f64,
    pub job: f64,
    pub names: f64,
    pub write_log: f64,
    pub modules: ModuleClock,
    /// Bit `id` (ids below 64): the module wrote records.
    pub active: u64,
    pub all: f64,
    /// Our own split: finalize, reduce, compress, write.
    pub split: [f64; 4],
}

impl Timing {
    /// Timing that measures each module's share when `per_module`.
    pub fn new(per_module: bool) -> Timing {
        Timing { modules: ModuleClock::new(per_module), ..Default::default() }
    }

    /// Every rank's slowest time of each, and the modules active on any
    /// rank (collective).
    pub fn slowest(&mut self, comm: &dyn Comm) {
        let mut t: Vec<f64> = [self.log_open, self.job, self.names, self.write_log, self.all].to_vec();
        t.extend_from_slice(&self.split);
        t.extend_from_slice(&self.modules.secs);
        comm.allreduce_f64(&mut t, Op::Max);
        [self.log_open, self.job, self.names, self.write_log, self.all] = [t[0], t[1], t[2], t[3], t[4]];
        self.split.copy_from_slice(&t[5..9]);
        self.modules.secs.copy_from_slice(&t[9..]);
        let mut active = [self.active];
        comm.allreduce_u64(&mut active, Op::Bor);
        self.active = active[0];
    }

    /// The block's lines (`nprocs` ranks; `mpi`: whether a reduction ran).
    pub fn lines(&self, nprocs: i64, mpi: bool) -> String {
        let mut s = String::from(HEADER);
        let mut op = |name: &str, secs: f64| {
            let _ = writeln!(s, "darshan:{name}\t{nprocs}\t{secs:.6}");
        };
        op("log_open", self.log_open);
        op("job_write", self.job);
        op("hash_write", self.names);
        op("header_write", self.write_log);
        for id in (0..MAX_MODS).filter(|id| self.active >> id & 1 == 1) {
            op(&format!("{}_shutdown", module_name(id)), self.modules.secs[id]);
        }
        op("core_shutdown", self.all);
        let [finalize, reduce, compress, write] = self.split;
        op("finalize", finalize);
        if mpi {
            op("reduce", reduce);
        }
        op("compress", compress);
        op("write", write);
        s
    }
}

/// The start-up block: `secs` the slowest rank's.
pub fn init_lines(nprocs: i64, secs: f64) -> String {
    format!("{HEADER}darshan:init\t{nprocs}\t{secs:.6}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module's line for each module with records, in id order, between
    /// the log's ops and `core_shutdown`; seconds as C's `%f`; no
    /// `reduce` without MPI (the whole block against C's is in
    /// ffi/tests/config_as_c.rs and ffi/tests/mpi.rs).
    #[test]
    fn modules_come_in_id_order_before_core_shutdown() {
        let mut t = Timing { all: 0.000628, active: 1 << 15 | 1 << 1 | 1 << 63, ..Default::default() };
        t.modules = ModuleClock::new(true);
        t.modules.time(1, || std::thread::sleep(std::time::Duration::from_micros(100)));
        let got = t.lines(1, false);
        let ops: Vec<&str> = got.lines().skip(5).take(4).map(|l| l.rsplit_once('\t').map_or(l, |(a, _)| a)).collect();
        assert_eq!(
            ops,
            [
                "darshan:POSIX_shutdown\t1",
                "darshan:HEATMAP_shutdown\t1",
                "darshan:POSIX_META_shutdown\t1",
                "darshan:core_shutdown\t1"
            ]
        );
        assert!(t.modules.secs[1] >= 0.0001 && got.contains("darshan:core_shutdown\t1\t0.000628\n"), "{got}");
        assert!(!got.contains("reduce"), "{got}");
        assert!(t.lines(4, true).contains("darshan:reduce\t4\t"));
    }
}
