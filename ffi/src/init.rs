//! Start-up in the library constructor (non-MPI programs with
//! DARSHAN_ENABLE_NONMPI), shutdown in the destructor or in `_exit`, and
//! fork. No std I/O here (docs/interposition.md rule 8): messages go through
//! `Platform::stderr`.

use crate::guard::Life;
use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::Ordering;

use darshan_core::config::{Config, ProcessEnv};
use darshan_core::protocols::{Placement, Started};
use darshan_core::runtime;
use darshan_core::Platform;

use crate::host::{say, MEM_ALIGN};
use crate::host_platform::{new_logmod, HOST};
use crate::platform::LIBC;
use crate::{clock, guard, real};

/// The command line as glibc handed it to the constructor, saved there:
/// reading /proc/self/cmdline instead took six system calls (about 30 us
/// of a short process's start-up here).
static ARGV_CMDLINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Saves the command line from the constructor's arguments (glibc passes
/// every `.init_array` function `argc`, `argv` and `envp`).
///
/// # Safety
/// `argv` is null or points to `argc` pointers, each null or to a
/// NUL-terminated string, as glibc's are.
unsafe fn save_cmdline(argc: c_int, argv: *const *const c_char) {
    if argv.is_null() || argc <= 0 {
        return;
    }
    let mut s = String::new();
    for i in 0..argc as usize {
        // SAFETY: i < argc, within the array (the caller's contract).
        let p = unsafe { *argv.add(i) };
        if p.is_null() {
            break;
        }
        // SAFETY: a NUL-terminated argument string (the caller's contract).
        s.push_str(&String::from_utf8_lossy(unsafe { CStr::from_ptr(p) }.to_bytes()));
        s.push(' ');
    }
    let _ = ARGV_CMDLINE.set(s);
}

/// The command line MPI_Init was given (argv after the MPI library has
/// taken its own arguments out), joined by single spaces with none after
/// the last, as C Darshan records it for a C or C++ MPI program.
static MPI_ARGV_CMDLINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Saves the command line from MPI_Init's arguments, when it has them
/// (Fortran's MPI_INIT and mpi4py pass none: the command line is then
/// read as without MPI, with its trailing space, as C does).
///
/// # Safety
/// `argc` and `argv` are null or as MPI_Init's caller passed them: `*argv`
/// null or pointing to `*argc` pointers to NUL-terminated strings.
pub unsafe fn save_mpi_argv(argc: *const c_int, argv: *const *const *const c_char) {
    if argc.is_null() || argv.is_null() {
        return;
    }
    // SAFETY: non-null pointers from the caller of MPI_Init (contract).
    let (n, v) = unsafe { (*argc, *argv) };
    if v.is_null() || n <= 0 {
        return;
    }
    let mut parts = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        // SAFETY: i < argc, within the array (the contract).
        let p = unsafe { *v.add(i) };
        if p.is_null() {
            break;
        }
        // SAFETY: a NUL-terminated argument string (the contract).
        parts.push(String::from_utf8_lossy(unsafe { CStr::from_ptr(p) }.to_bytes()).into_owned());
    }
    let _ = MPI_ARGV_CMDLINE.set(parts.join(" "));
}

/// The command line: MPI_Init's argv when it had one; otherwise as
/// Darshan reads it without argv, the arguments with a space after each
/// (/proc/self/cmdline with NULs turned into spaces, where the
/// constructor was not given them).
fn cmdline() -> String {
    if let Some(s) = MPI_ARGV_CMDLINE.get() {
        return s.clone();
    }
    if let Some(s) = ARGV_CMDLINE.get() {
        return s.clone();
    }
    match crate::host_platform::read_proc("/proc/self/cmdline") {
        Ok(b) => String::from_utf8_lossy(&b).replace('\0', " "),
        Err(_) => String::new(),
    }
}

#[used]
#[link_section = ".init_array"]
static CONSTRUCTOR: extern "C" fn(c_int, *const *const c_char, *const *const c_char) = constructor;

#[used]
#[link_section = ".fini_array"]
static DESTRUCTOR: extern "C" fn() = destructor;

extern "C" fn constructor(argc: c_int, argv: *const *const c_char, _envp: *const *const c_char) {
    guard::set_inside(true);
    // A panic must not unwind into the loader (that aborts the program):
    // the runtime is disabled instead and the program runs on.
    let started = || {
        // SAFETY: glibc calls `.init_array` functions with the process's
        // argc and argv (NUL-terminated strings), or null when another
        // loader does not pass them.
        unsafe { save_cmdline(argc, argv) };
        std::panic::catch_unwind(init)
    };
    if crate::own_stack::on_own_stack(started).is_err() {
        start_failed();
    }
    guard::set_inside(false);
}

/// Out of the constructor's frame: the line's buffer would take 4 KiB of
/// the program's stack at every start.
#[cold]
#[inline(never)]
fn start_failed() {
    guard::set_life(Life::Disabled);
    say("internal error at start-up; this run is not instrumented");
}

fn init() {
    let t_init = std::time::Instant::now();
    real::prepare();
    crate::platform::note_stderr();
    darshan_core::protocols::test_panic("start");
    crate::shim::init();
    // A set-user-ID, set-group-ID or capability-raising program (the
    // kernel's AT_SECURE) runs with more privilege than the user whose
    // environment it inherited: DARSHAN_CONFIG_PATH=/etc/shadow would
    // have its lines echoed as unknown keywords, and a crash-safe file
    // would belong to the privileged owner, not the user. Such a program
    // is the system's, not the job's: it is not instrumented, and nothing
    // of the environment is read or said (docs/robustness.md).
    if secure_execution() {
        guard::set_life(Life::Disabled);
        return;
    }
    let (cfg, warnings) = Config::load(&ProcessEnv);
    // Under an MPI launcher every rank reads the same settings: rank 0
    // alone says what is wrong with them (N identical lines at N ranks
    // said it N times).
    if crate::mpi_state::launcher_rank().is_none_or(|r| r == 0) {
        for w in &warnings {
            say(w);
        }
    }
    if cfg.disable {
        guard::set_life(Life::Disabled);
    } else if cfg.enable_nonmpi {
        let at = Placement { rank: 0, nprocs: 1, mpi: false, logmod: new_logmod(), job_pid: LIBC.pid(), began: t_init };
        if start(cfg, t_init, at) == Started::Excluded {
            guard::set_life(Life::Disabled);
        }
    } else {
        // An MPI program starts the runtime in MPI_Init.
        *PENDING.lock().unwrap_or_else(|e| e.into_inner()) = Some(cfg);
    }
    // The constructor's cost, an MPI program's included (its start-up
    // goes on in MPI_Init).
    runtime::core().cost.add_startup(t_init.elapsed());
}

/// Whether the kernel started this program in secure-execution mode
/// (`AT_SECURE` in its auxiliary vector: set-user-ID, set-group-ID or
/// file capabilities), as the dynamic loader itself decides.
fn secure_execution() -> bool {
    // SAFETY: getauxval only reads the auxiliary vector the kernel gave
    // the process; it has no preconditions and returns 0 for a type it
    // does not find.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

/// The configuration read in the constructor, for MPI_Init.
static PENDING: std::sync::Mutex<Option<Config>> = std::sync::Mutex::new(None);

pub fn take_pending_config() -> Option<Config> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The start frame: claims the start in the life cycle, runs the core's
/// start-up protocol (`Core::start`) and records from then on if it says
/// so. With `at.mpi` an excluded rank stays set up, not recording, for
/// the collective shutdown.
pub fn start(cfg: Config, t_init: std::time::Instant, at: Placement) -> Started {
    if !guard::transition(Life::Uninit, Life::ShuttingDown) {
        return Started::No;
    }
    let timing = cfg.internal_timing;
    MEM_ALIGN.store(cfg.mem_align.max(1), Ordering::Relaxed);
    let started = runtime::core().start(cfg, cmdline(), crate::modules::MODULES, at, &HOST);
    match started {
        Started::Yes => guard::set_life(Life::Running),
        Started::Excluded => {}
        Started::No => guard::set_life(Life::Disabled),
    }
    if started == Started::Yes && timing && !at.mpi {
        LIBC.stderr(darshan_core::finish::timing::init_lines(1, t_init.elapsed().as_secs_f64()).as_bytes());
    }
    started
}

extern "C" fn destructor() {
    if std::panic::catch_unwind(shutdown).is_err() {
        guard::set_life(Life::Finalized);
    }
}

/// Write the log, once. Called from the destructor and from `_exit`. In
/// an MPI job MPI_Finalize writes it; ending without it leaves the
/// crash-safe files, and one line per node says how to merge them.
pub fn shutdown() {
    let mpi = crate::mpi_state::mpi_active();
    if !mpi && guard::life() != Life::Running {
        return;
    }
    if guard::level() != guard::OUTSIDE {
        // _exit (or exit) from a signal handler that interrupted this
        // thread while it recorded: the interrupted frame may hold the
        // locks the shutdown needs, so waiting would hang the program. No
        // log; the crash-safe file (if any) keeps every completed call.
        // Only async-signal-safe work here: a fixed message, no allocation.
        if !mpi {
            LIBC.stderr(b"darshan: exit from a signal handler that interrupted the runtime: no log written; the crash-safe file, if any, is kept for darshan-merge\n");
            guard::set_life(Life::Finalized);
        }
        return;
    }
    // A child of vfork() or clone() (posix_spawn, CPython's subprocess)
    // shares our memory: if it calls _exit, it must not finalize the
    // parent's records, nor end its MPI job. Only the process the records
    // belong to acts on them.
    if LIBC.pid() != runtime::core().times().pid {
        return;
    }
    allocate_safely();
    if mpi {
        crate::own_stack::on_own_stack(crate::mpi_state::ended_without_finalize);
    } else {
        crate::own_stack::on_own_stack(write_log);
    }
}

/// From a signal handler (by `_exit`, the way out POSIX allows one, or by
/// `exit`, which programs call there as often), the log's memory comes
/// from a mapping of its own, never from the heap the handler may have
/// interrupted on this thread: address space for eight times what the
/// shutdown may need (what it frees is not reused, but for the last
/// block), else twice. Only the process the records
/// belong to comes here: a vfork child shares the parent's allocator.
/// Asked on the caller's stack: the unwinder does not follow a switch to
/// the phase's.
fn allocate_safely() {
    if crate::signal_frame::in_a_signal_handler() {
        let need = darshan_core::finish::memory::need();
        let ample = need.saturating_mul(8).saturating_add(64 << 20);
        if !crate::alloc::from_a_mapping_from_now_on(ample) {
            crate::alloc::from_a_mapping_from_now_on(need.saturating_mul(2).saturating_add(4 << 20));
        }
        darshan_core::finish::written_from_a_signal_handler();
    }
}

/// The process's log, from the thread that ends it (see [`shutdown`]).
fn write_log() {
    crate::uring_wrap::rings_at_exit();
    if !guard::transition(Life::Running, Life::ShuttingDown) {
        return;
    }
    guard::set_inside(true);
    runtime::core().finish(clock::end());
    guard::set_life(Life::Finalized);
    guard::set_inside(false);
}

/// fork(): the runtime's locks are held across the call (modules first,
/// then the core), so the child never inherits a lock taken by another
/// thread; the child then starts its own record set (rule 10).
pub fn fork() -> libc::pid_t {
    let Some(real_fork) = real::fork() else { return guard::enosys() };
    if guard::life() != Life::Running {
        // SAFETY: plain fork.
        return unsafe { real_fork() };
    }
    if guard::level() != guard::OUTSIDE {
        // fork() from a signal handler that interrupted this thread while
        // it recorded: the locks may be held by the interrupted frame, so
        // none is taken. The child does not record (its records may be
        // mid-update) and lets go of its parent's crash-safe file at once.
        // SAFETY: plain fork.
        let pid = unsafe { real_fork() };
        if pid == 0 {
            guard::set_life(Life::Disabled);
            darshan_core::logmap::detach_without_lock();
        }
        return pid;
    }
    // SAFETY: plain fork; Core::fork calls it with every runtime lock
    // held by this thread.
    let pid = runtime::core().fork(&mut || unsafe { real_fork() });
    if pid == 0 {
        guard::set_inside(true);
        let started = || std::panic::catch_unwind(|| runtime::core().start_forked_child(&HOST));
        match crate::own_stack::on_own_stack(started) {
            Ok(Ok(())) => {}
            Ok(Err(w)) => {
                say(&w);
                guard::set_life(Life::Disabled);
            }
            Err(_) => guard::set_life(Life::Disabled),
        }
        guard::set_inside(false);
    }
    pid
}
