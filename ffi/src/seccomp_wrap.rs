//! A program that sandboxes itself with seccomp: `prctl(PR_SET_SECCOMP)`
//! and the `seccomp` system call (through libc's `syscall`, as libseccomp
//! makes it). Once the kernel has taken a filter, it is judged against
//! the runtime's own system calls (darshan_core::seccomp); if it would
//! kill or trap any of them, the runtime makes none from then on: it stops
//! recording, writes no log (the records so far stay in the crash-safe
//! file, recoverable with darshan-merge) and says so on stderr only if the
//! filter lets that line through. The program's exit status and output
//! are its own again (C Darshan 3.5.0 dies with SIGSYS at exit).
//!
//! Judged after the call, because only its success proves the filter's
//! pointer valid (the runtime must not fault on a bad one; the kernel
//! returns EFAULT). Another thread inside a wrapper at that instant may
//! still make one call of the runtime's under the new filter.

use std::sync::atomic::Ordering;

use darshan_core::seccomp::{self, Insn, Verdict, STRICT};
use darshan_core::{logmap, runtime, shutdown, Platform};
use libc::{c_int, c_long, c_ulong};

use crate::guard::{self, enosys, Life};
use crate::platform::{LIBC, SILENCED};
use crate::real;

/// prctl's and seccomp(2)'s numbers for the two modes.
const PR_MODE_STRICT: c_long = 1;
const PR_MODE_FILTER: c_long = 2;
const OP_MODE_STRICT: c_long = 0;
const OP_MODE_FILTER: c_long = 1;

/// `struct sock_fprog`.
#[repr(C)]
struct Prog {
    len: u16,
    filter: *const Insn,
}

/// # Safety
/// Called by the program as prctl(2): the caller's obligations are those
/// of the real function, called with its arguments unchanged.
#[no_mangle]
pub unsafe extern "C" fn prctl(option: c_int, a2: c_ulong, a3: c_ulong, a4: c_ulong, a5: c_ulong) -> c_int {
    let Some(r) = real::prctl() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(option, a2, a3, a4, a5) };
    if option == libc::PR_SET_SECCOMP && ret == 0 {
        let a = [c_long::from(option), a2 as c_long, a3 as c_long];
        // SAFETY: `ret` is the real call's result for these arguments.
        unsafe { after_syscall(libc::SYS_prctl, a, c_long::from(ret)) };
    }
    ret
}

/// `seccomp` or `prctl` called with `a[0]`, `a[1]`, `a[2]` first (through
/// the prctl wrapper or `syscall()`, uring_wrap.rs), which returned `ret`:
/// a strict mode or a filter installed is judged.
///
/// # Safety
/// `ret` is the real call's result for these arguments.
#[cold]
pub unsafe fn after_syscall(n: c_long, a: [c_long; 3], ret: c_long) {
    // seccomp's success is 0, or a listener's descriptor; with TSYNC a
    // positive value may name a thread that kept the filter out: judged
    // all the same (at worst, records given up for a filter not there).
    let (mode, strict, filter) = match n {
        libc::SYS_seccomp if ret >= 0 => (a[0], OP_MODE_STRICT, OP_MODE_FILTER),
        libc::SYS_prctl if a[0] == c_long::from(libc::PR_SET_SECCOMP) && ret == 0 => {
            (a[1], PR_MODE_STRICT, PR_MODE_FILTER)
        }
        _ => return,
    };
    if mode == strict {
        installed(STRICT);
    } else if mode == filter {
        // SAFETY: the kernel has just read the program from `a[2]`.
        installed(unsafe { judged(a[2] as *const Prog) });
    }
}

/// The filter at `p`, judged.
///
/// # Safety
/// The kernel has just read a `sock_fprog` at `p` and its instructions.
unsafe fn judged(p: *const Prog) -> Verdict {
    // SAFETY: the caller's: both reads are of memory the kernel copied
    // from without a fault, in the program's own call.
    let insns = unsafe {
        let prog = &*p;
        std::slice::from_raw_parts(prog.filter, usize::from(prog.len))
    };
    seccomp::judge(insns)
}

/// A filter is in force now: if it is in the runtime's way, the runtime
/// steps aside for the rest of the process (and its forks).
fn installed(v: Verdict) {
    // The two verdicts stand apart: a filter may leave every call of the
    // runtime's work free and still kill one a line makes (fstat of 2).
    if !v.may_say {
        SILENCED.store(true, Ordering::Release);
    }
    if !v.may_spawn {
        seccomp::forbid_threads();
    } else {
        seccomp::count_judged();
    }
    if v.keeps_recording || !seccomp::seal() {
        return;
    }
    let was = guard::life();
    if matches!(was, Life::Running | Life::Uninit) {
        guard::set_life(Life::Disabled);
    }
    // An MPI job's rank 0 says it once, when MPI_Finalize writes no log.
    let mpi = crate::mpi_state::mpi_active();
    if v.may_say && was == Life::Running && !mpi && guard::level() == guard::OUTSIDE {
        let _ = std::panic::catch_unwind(said);
    }
}

fn said() {
    let why = "the program's seccomp filter would stop the runtime's own system calls: nothing more is recorded and no log is written";
    if logmap::has_file() && runtime::core().shared().is_some() {
        LIBC.say_fmt(format_args!("{why}; {}", shutdown::Recovery));
    } else {
        LIBC.say_fmt(format_args!("{why} (no crash-safe file holds records)"));
    }
}
