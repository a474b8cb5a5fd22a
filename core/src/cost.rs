//! What the runtime costs the process it runs in, as it measures itself
//! (docs/cost.md): start-up and shutdown timed, the wrappers' time
//! estimated from the calls the records count and a per-call cost: the
//! recording part timed on a sample of the calls (about one in 64 reads
//! and writes, chosen by the low bits of the clock, so that no other call
//! does any more work), the rest calibrated; before there are samples, a
//! per-call cost calibrated at start-up. Written into the job's metadata
//! by the rules of `darshan_log::cost`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use darshan_log::cost::Cost;

/// The process's cost so far.
pub struct CostMeter {
    startup_ns: AtomicU64,
    /// The per-call cost, in hundredths of a nanosecond.
    call_cns: AtomicU64,
    /// One read of the wrappers' clock, in hundredths of a nanosecond.
    read_cns: AtomicU64,
    /// The sampled calls' recording time, in clock ticks, and their number.
    sampled_ticks: AtomicU64,
    samples: AtomicU64,
}

/// What one wrapped call adds beyond its two clock reads (the guard, the
/// record's lookup and update, the caches it takes from the program), for
/// a process with too few samples: measured outside the process on the
/// project's machine, 300,000 pwrites and preads adding 43-46 ns each
/// against two reads of 27.5 ns (2026-11; docs/cost.md).
pub const BOOKKEEPING_NS: f64 = 17.0;

/// Fewer samples than this leave the start-up calibration in place.
pub const MIN_SAMPLES: u64 = 16;

/// A sample longer than this is not a call's recording but something
/// that happened to it (the thread preempted, a page first touched): one
/// such sample among a short process's 16 would multiply its estimate
/// (a millisecond's preemption: +60 us per call), so it is left out. A
/// recording takes 60-100 ns here.
pub const MAX_SAMPLE_NS: f64 = 5_000.0;

/// What a sampled read or write costs beyond its sample (the clock read
/// after the call, the recording, the clock read that ends the sample)
/// and the clock read before the call: the wrapper's work before its
/// first clock read (the real function, the life cycle, the guard, the
/// descriptor's record). Measured on the project's machine: one-byte
/// pwrites on tmpfs added 96 ns each inside the program's loop, their
/// samples averaged 58 ns and a clock read 16 ns (docs/cost.md).
pub const BEFORE_CALL_NS: f64 = 22.0;

/// Nanoseconds as the meter keeps them, hundredths; 0 for nonsense.
fn centi_ns(ns: f64) -> u64 {
    if ns.is_finite() && ns > 0.0 {
        darshan_log::cost::round_u64(ns * 100.0)
    } else {
        0
    }
}

impl Default for CostMeter {
    fn default() -> Self {
        CostMeter::new()
    }
}

impl CostMeter {
    pub const fn new() -> CostMeter {
        CostMeter {
            startup_ns: AtomicU64::new(0),
            call_cns: AtomicU64::new(0),
            read_cns: AtomicU64::new(0),
            sampled_ticks: AtomicU64::new(0),
            samples: AtomicU64::new(0),
        }
    }

    /// Start-up time spent (the constructor's, MPI_Init's part).
    pub fn add_startup(&self, d: Duration) {
        self.startup_ns.fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// What one recorded call costs, as measured on this machine.
    pub fn set_call_ns(&self, ns: f64) {
        self.call_cns.store(centi_ns(ns), Ordering::Relaxed);
    }

    pub fn call_ns(&self) -> f64 {
        self.call_cns.load(Ordering::Relaxed) as f64 / 100.0
    }

    /// Start-up: one read of the wrappers' clock costs `read_ns` here; the
    /// per-call cost until samples replace it is two reads and the
    /// bookkeeping.
    pub fn calibrate(&self, read_ns: f64) {
        let cns = centi_ns(read_ns);
        self.read_cns.store(cns, Ordering::Relaxed);
        self.set_call_ns(2.0 * (cns as f64 / 100.0) + BOOKKEEPING_NS);
    }

    /// A sampled call's recording took `ticks` of the wrappers' clock
    /// (`secs_per_tick` as well as it is known now). A sample longer than
    /// [`MAX_SAMPLE_NS`] is left out.
    #[inline]
    pub fn sample(&self, ticks: u64, secs_per_tick: f64) {
        if ticks as f64 * secs_per_tick * 1e9 > MAX_SAMPLE_NS {
            return;
        }
        self.sampled_ticks.fetch_add(ticks, Ordering::Relaxed);
        self.samples.fetch_add(1, Ordering::Relaxed);
    }

    /// Shutdown: with enough samples, the per-call cost becomes the one
    /// they measured (`secs_per_tick` converts their ticks).
    pub fn settle(&self, secs_per_tick: f64) {
        let n = self.samples.load(Ordering::Relaxed);
        if n < MIN_SAMPLES || secs_per_tick.is_nan() || secs_per_tick <= 0.0 {
            return;
        }
        let mean_ns = self.sampled_ticks.load(Ordering::Relaxed) as f64 / n as f64 * secs_per_tick * 1e9;
        let read_ns = self.read_cns.load(Ordering::Relaxed) as f64 / 100.0;
        self.set_call_ns(read_ns + BEFORE_CALL_NS + mean_ns);
    }

    /// The cost so far of a start-up that began at `began` and whose
    /// frame has not yet added it (the crash-safe file's job record).
    pub fn so_far(&self, began: std::time::Instant) -> Cost {
        let mut c = self.cost(0, Duration::ZERO);
        c.startup_us = c.startup_us.saturating_add(began.elapsed().as_micros() as u64);
        c
    }

    /// A forked child's cost is its own: it inherited its parent's
    /// start-up and samples.
    pub fn forked_child(&self) {
        self.startup_ns.store(0, Ordering::Relaxed);
        self.sampled_ticks.store(0, Ordering::Relaxed);
        self.samples.store(0, Ordering::Relaxed);
    }

    /// This process's cost: `calls` recorded, `shutdown` spent so far.
    pub fn cost(&self, calls: u64, shutdown: Duration) -> Cost {
        let call_ns = self.call_ns();
        Cost {
            startup_us: self.startup_ns.load(Ordering::Relaxed) / 1000,
            shutdown_us: shutdown.as_micros().min(u64::MAX as u128) as u64,
            calls,
            est_us: darshan_log::cost::round_u64(calls as f64 * call_ns / 1000.0),
            call_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_calls_times_the_measured_call_cost() {
        let m = CostMeter::new();
        m.add_startup(Duration::from_micros(150));
        m.add_startup(Duration::from_micros(50));
        m.set_call_ns(42.5);
        let c = m.cost(10_000, Duration::from_micros(70));
        assert_eq!((c.startup_us, c.shutdown_us, c.calls, c.est_us), (200, 70, 10_000, 425));
        m.forked_child();
        assert_eq!(m.cost(0, Duration::ZERO).startup_us, 0);
    }

    #[test]
    fn enough_samples_replace_the_calibration_and_too_few_do_not() {
        let m = CostMeter::new();
        m.calibrate(16.0);
        assert_eq!(m.call_ns(), 32.0 + BOOKKEEPING_NS, "two reads and the bookkeeping");
        for _ in 0..MIN_SAMPLES - 1 {
            m.sample(120, 0.5e-9);
        }
        m.settle(0.5e-9);
        assert_eq!(m.call_ns(), 32.0 + BOOKKEEPING_NS, "too few samples");
        m.sample(120, 0.5e-9);
        // A preempted sample (2 ms) is left out, not averaged in.
        m.sample(4_000_000, 0.5e-9);
        m.settle(0.5e-9);
        // 120 ticks of 0.5 ns: 60 ns, after a 16 ns read and the part before.
        assert!((m.call_ns() - (16.0 + BEFORE_CALL_NS + 60.0)).abs() < 0.01, "{}", m.call_ns());
        m.forked_child();
        m.set_call_ns(50.0);
        m.settle(0.5e-9);
        assert_eq!(m.call_ns(), 50.0, "a forked child starts without its parent's samples");
    }
}
