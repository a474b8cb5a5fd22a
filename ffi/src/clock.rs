//! The clock of every wrapper. Two timestamps per call are most of the
//! added cost (docs/interposition.md rule 18), so on x86-64 with an invariant TSC
//! we read `rdtsc` (about 20 ns here, against 33 ns for CLOCK_MONOTONIC)
//! and convert ticks to seconds once, at shutdown, from the TSC and
//! CLOCK_MONOTONIC readings taken at start-up and at shutdown. Elsewhere
//! the ticks are CLOCK_MONOTONIC nanoseconds.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

// Handed to the C printf/scanf shim (c_api.rs), which reads the same
// clock without a call into Rust.
pub(crate) static USE_TSC: AtomicBool = AtomicBool::new(false);
/// Tick and CLOCK_MONOTONIC (ns) at start-up.
pub(crate) static T0: AtomicU64 = AtomicU64::new(0);
static MONO0: AtomicU64 = AtomicU64::new(0);

fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    invariant_tsc_from_glibc().unwrap_or_else(invariant_tsc_from_cpuid)
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc_from_cpuid() -> bool {
    use std::arch::x86_64::__cpuid;
    // cpuid exists on every x86-64 CPU; leaf 0x80000007 is only read when
    // the CPU reports it.
    let max_ext = __cpuid(0x8000_0000).eax;
    max_ext >= 0x8000_0007 && (__cpuid(0x8000_0007).edx >> 8) & 1 == 1
}

/// What glibc (2.33 and later) read with cpuid when the process started
/// (sys/platform/x86.h): asking it spares two cpuid instructions, which
/// exit to the hypervisor in a VM (about 7 us each here).
#[cfg(target_arch = "x86_64")]
fn invariant_tsc_from_glibc() -> Option<bool> {
    #[repr(C)]
    struct CpuidFeature {
        cpuid_array: [u32; 4],
        active_array: [u32; 4],
    }
    /// glibc's CPUID_INDEX_80000007; the bit is cpuid_array[edx] bit 8.
    const CPUID_INDEX_80000007: u32 = 4;
    // SAFETY: dlsym with a NUL-terminated name.
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__x86_get_cpuid_feature_leaf".as_ptr()) };
    if f.is_null() {
        return None;
    }
    // SAFETY: glibc's function of this name has this prototype
    // (`const struct cpuid_feature *(unsigned int)`).
    let leaf: unsafe extern "C" fn(u32) -> *const CpuidFeature = unsafe { std::mem::transmute(f) };
    // SAFETY: any index is accepted (an unknown one gives a zeroed leaf);
    // the result points into glibc's read-only CPU feature data.
    let p = unsafe { leaf(CPUID_INDEX_80000007) };
    // SAFETY: non-null pointers from glibc point to a valid structure.
    (!p.is_null()).then(|| unsafe { (*p).cpuid_array[3] } >> 8 & 1 == 1)
}

#[inline(always)]
fn raw() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        // SAFETY: rdtsc has no preconditions; invariant TSC was checked.
        return unsafe { std::arch::x86_64::_rdtsc() };
    }
    mono_ns()
}

/// Whether the TSC was asked about: once per process image.
#[cfg(target_arch = "x86_64")]
static PROBED: AtomicBool = AtomicBool::new(false);

/// Start-up (and again in a forked child): tick zero is now. The TSC is
/// asked about once: a forked child runs on the same CPUs, and asking
/// again cost it a `dlsym` over every loaded object, cold in the child
/// (8 page faults, about 20 us of a child that only exits).
pub fn start() {
    #[cfg(target_arch = "x86_64")]
    if !PROBED.swap(true, Ordering::Relaxed) {
        USE_TSC.store(invariant_tsc() && std::env::var_os("DARSHAN_RS_NO_TSC").is_none(), Ordering::Relaxed);
    }
    MONO0.store(mono_ns(), Ordering::Relaxed);
    T0.store(raw(), Ordering::Relaxed);
}

/// Ticks since start-up, as the records hold them until shutdown.
#[inline(always)]
pub fn now() -> i64 {
    raw().wrapping_sub(T0.load(Ordering::Relaxed)) as i64
}

/// Ticks per second estimated over the start-up so far (waiting only if
/// that was under 20 us): what heat-map bins are sized by (a power of two
/// of ticks near 0.1 s); the exact width in seconds is written at
/// shutdown from the whole run's calibration.
pub fn ticks_per_sec_now() -> f64 {
    if !USE_TSC.load(Ordering::Relaxed) {
        return 1e9;
    }
    let (m0, t0) = (MONO0.load(Ordering::Relaxed), T0.load(Ordering::Relaxed));
    let mut m1 = mono_ns();
    while m1.saturating_sub(m0) < 20_000 {
        m1 = mono_ns();
    }
    raw().wrapping_sub(t0) as f64 / ((m1 - m0) as f64 * 1e-9)
}

/// Seconds per tick estimated over the start-up so far (waiting only if
/// that was under 20 us, where a clock read's jitter would be more than
/// 0.3% of it): what the crash-safe file says a tick is until shutdown
/// measures it over the whole run. A fixed 100 us wait here was a
/// sixth of a short process's added cost.
pub fn provisional_secs_per_tick() -> f64 {
    if !USE_TSC.load(Ordering::Relaxed) {
        return 1e-9;
    }
    let m0 = MONO0.load(Ordering::Relaxed);
    while mono_ns().saturating_sub(m0) < 20_000 {
        std::hint::spin_loop();
    }
    secs_per_tick()
}

/// Whether the call that read `tick` after its real function times its
/// recording for the cost estimate (core's cost.rs): about one in 64,
/// by bits of the tick that vary from call to call (its lowest may not,
/// on a clock of coarse steps), so that no other call does more than
/// this test.
#[inline(always)]
pub fn sampled(tick: i64) -> bool {
    (tick >> 4) & 63 == 0
}

/// What one read of the wrappers' clock costs, in nanoseconds, timed
/// here over 32 reads (about a microsecond, once per process): the
/// runtime's per-call cost estimate starts from it (core's cost.rs). A
/// machine whose clock is slow to read (a VM without a usable TSC) shows
/// it here.
pub fn read_cost_ns() -> f64 {
    const READS: u32 = 32;
    let t0 = mono_ns();
    for _ in 0..READS {
        std::hint::black_box(raw());
    }
    mono_ns().saturating_sub(t0) as f64 / f64::from(READS)
}

/// The clock for C code that cannot read the TSC itself.
pub extern "C" fn now_for_c() -> i64 {
    now()
}

/// Seconds per tick, measured over the whole run.
pub fn secs_per_tick() -> f64 {
    if !USE_TSC.load(Ordering::Relaxed) {
        return 1e-9;
    }
    let ticks = raw().wrapping_sub(T0.load(Ordering::Relaxed)) as f64;
    let ns = mono_ns().saturating_sub(MONO0.load(Ordering::Relaxed)) as f64;
    if ticks <= 0.0 || ns <= 0.0 {
        return 1e-9;
    }
    ns * 1e-9 / ticks
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn glibcs_invariant_tsc_bit_is_the_one_cpuid_reports() {
        let glibc = invariant_tsc_from_glibc().expect("glibc 2.33 or later here");
        assert_eq!(glibc, invariant_tsc_from_cpuid());
    }
}

/// The clock at the end of the run: the tick length calibrated over the
/// whole run, then the tick and the wall clock.
pub fn end() -> darshan_core::protocols::End {
    let secs_per_tick = secs_per_tick();
    let tick = now();
    darshan_core::protocols::End { secs_per_tick, tick, time: darshan_core::Platform::realtime(&crate::platform::LIBC) }
}
