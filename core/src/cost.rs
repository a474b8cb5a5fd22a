//! What the runtime costs the process it runs in, as it measures itself
//! (docs/cost.md): start-up and shutdown timed, the wrappers' time
//! estimated from the calls the records count and a per-call cost
//! measured once at start-up, so that no wrapper does any more work.
//! Written into the job's metadata by the rules of `darshan_log::cost`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use darshan_log::cost::Cost;

/// The process's cost so far.
pub struct CostMeter {
    startup_ns: AtomicU64,
    /// The per-call cost, in hundredths of a nanosecond.
    call_cns: AtomicU64,
}

impl Default for CostMeter {
    fn default() -> Self {
        CostMeter::new()
    }
}

impl CostMeter {
    pub const fn new() -> CostMeter {
        CostMeter { startup_ns: AtomicU64::new(0), call_cns: AtomicU64::new(0) }
    }

    /// Start-up time spent (the constructor's, MPI_Init's part).
    pub fn add_startup(&self, d: Duration) {
        self.startup_ns.fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// What one recorded call costs, as measured on this machine.
    pub fn set_call_ns(&self, ns: f64) {
        let cns = if ns.is_finite() && ns > 0.0 { darshan_log::cost::round_u64(ns * 100.0) } else { 0 };
        self.call_cns.store(cns, Ordering::Relaxed);
    }

    pub fn call_ns(&self) -> f64 {
        self.call_cns.load(Ordering::Relaxed) as f64 / 100.0
    }

    /// The cost so far of a start-up that began at `began` and whose
    /// frame has not yet added it (the crash-safe file's job record).
    pub fn so_far(&self, began: std::time::Instant) -> Cost {
        let mut c = self.cost(0, Duration::ZERO);
        c.startup_us = c.startup_us.saturating_add(began.elapsed().as_micros() as u64);
        c
    }

    /// A forked child's cost is its own: it inherited its parent's start-up.
    pub fn forked_child(&self) {
        self.startup_ns.store(0, Ordering::Relaxed);
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
}
