//! Filters written as libseccomp and hand-made sandboxes write them
//! (<linux/filter.h>'s BPF_STMT / BPF_JUMP), run by `run` and judged.

use super::*;

const LD_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const JSET_K: u16 = 0x45;
const RET_K: u16 = 0x06;
const RET_A: u16 = 0x16;
const KILL_PROCESS: u32 = 0x8000_0000;
const TRAP: u32 = 0x0003_0000;

fn stmt(code: u16, k: u32) -> Insn {
    Insn { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

fn call(nr: i64, args: [u64; 6]) -> Data {
    Data { nr: nr as i32, arch: AUDIT_ARCH, ip: 0, args }
}

/// Check the architecture, then allow `allowed`, else `otherwise`.
fn allowlist(allowed: &[i64], otherwise: u32) -> Vec<Insn> {
    let mut f = vec![stmt(LD_ABS, 4), jump(JEQ_K, AUDIT_ARCH, 1, 0), stmt(RET_K, KILL_PROCESS), stmt(LD_ABS, 0)];
    for &nr in allowed {
        f.push(jump(JEQ_K, nr as u32, 0, 1));
        f.push(stmt(RET_K, RET_ALLOW));
    }
    f.push(stmt(RET_K, otherwise));
    f
}

/// Call `nr` with its first argument one of `values` gets `listed`, with
/// another `other`; every other call is allowed.
fn on_first_argument(nr: i64, values: &[u32], listed: u32, other: u32) -> Vec<Insn> {
    let k = values.len() as u8;
    let mut f = vec![stmt(LD_ABS, 0), jump(JEQ_K, nr as u32, 0, k + 3), stmt(LD_ABS, 16)];
    f.extend(values.iter().enumerate().map(|(j, &v)| jump(JEQ_K, v, k - j as u8, 0)));
    f.extend([stmt(RET_K, other), stmt(RET_K, listed), stmt(RET_K, RET_ALLOW)]);
    f
}

/// Allow everything but `denied`, which gets `action`.
fn denylist(denied: &[i64], action: u32) -> Vec<Insn> {
    let mut f = vec![stmt(LD_ABS, 0)];
    for &nr in denied {
        f.push(jump(JEQ_K, nr as u32, 0, 1));
        f.push(stmt(RET_K, action));
    }
    f.push(stmt(RET_K, RET_ALLOW));
    f
}

#[test]
fn a_sandbox_that_kills_what_it_does_not_list_stops_the_runtime_and_its_line() {
    let f = allowlist(&[libc::SYS_read, libc::SYS_write, libc::SYS_exit_group], KILL_PROCESS);
    assert_eq!(run(&f, &call(libc::SYS_write, [1, 0, 0, 0, 0, 0])), RET_ALLOW);
    assert_eq!(run(&f, &call(libc::SYS_openat, [0; 6])), KILL_PROCESS);
    assert_eq!(judge(&f), Verdict { keeps_recording: false, may_say: false, may_spawn: false });
}

#[test]
fn a_filter_that_denies_with_an_errno_leaves_the_runtime_free() {
    let f = allowlist(&[libc::SYS_read], RET_ERRNO | libc::EPERM as u32);
    assert_eq!(judge(&f), Verdict { keeps_recording: true, may_say: true, may_spawn: true });
}

#[test]
fn a_denylist_of_calls_the_runtime_never_makes_leaves_it_free() {
    let f = denylist(&[libc::SYS_ptrace, libc::SYS_kexec_load, libc::SYS_mount], KILL_PROCESS);
    assert_eq!(judge(&f), Verdict { keeps_recording: true, may_say: true, may_spawn: true });
    // One of its calls denied the same way stops it.
    let f = denylist(&[libc::SYS_ptrace, libc::SYS_linkat], TRAP);
    assert!(!judge(&f).keeps_recording);
    assert!(judge(&f).may_say);
}

#[test]
fn a_filter_on_an_argument_is_tried_with_the_runtimes_arguments() {
    // write(2) only to descriptors 1 and 2, the rest allowed.
    let f = on_first_argument(libc::SYS_write, &[1, 2], RET_ALLOW, KILL_PROCESS);
    assert_eq!(run(&f, &call(libc::SYS_write, [2, 0, 0, 0, 0, 0])), RET_ALLOW);
    assert_eq!(run(&f, &call(libc::SYS_write, [3, 0, 0, 0, 0, 0])), KILL_PROCESS);
    assert_eq!(judge(&f), Verdict { keeps_recording: false, may_say: true, may_spawn: true });
    // openat only without O_CREAT (a "read-only" sandbox).
    let f = vec![
        stmt(LD_ABS, 0),
        jump(JEQ_K, libc::SYS_openat as u32, 0, 3),
        stmt(LD_ABS, 32),
        jump(JSET_K, libc::O_CREAT as u32, 0, 1),
        stmt(RET_K, KILL_PROCESS),
        stmt(RET_K, RET_ALLOW),
    ];
    assert_eq!(run(&f, &call(libc::SYS_openat, [0, 0, libc::O_RDONLY as u64, 0, 0, 0])), RET_ALLOW);
    assert!(!judge(&f).keeps_recording);
}

#[test]
fn the_high_half_of_an_argument_is_its_own_word() {
    // Kill when args[0]'s high word is set (a negative descriptor, AT_FDCWD).
    let f = vec![stmt(LD_ABS, 20), jump(JEQ_K, 0, 1, 0), stmt(RET_K, KILL_PROCESS), stmt(RET_K, RET_ALLOW)];
    assert_eq!(run(&f, &call(0, [3, 0, 0, 0, 0, 0])), RET_ALLOW);
    assert_eq!(run(&f, &call(0, [libc::AT_FDCWD as i64 as u64, 0, 0, 0, 0, 0])), KILL_PROCESS);
}

#[test]
fn arithmetic_scratch_memory_and_the_returned_accumulator() {
    // A = nr; M[3] = A; A = A * 2 + 1; X = A; A = M[3]; A = A | X; return A.
    let f = vec![
        stmt(LD_ABS, 0),
        stmt(0x02, 3),
        stmt(0x24, 2),
        stmt(0x04, 1),
        stmt(0x07, 0),
        stmt(0x60, 3),
        stmt(0x4c, 0),
        stmt(RET_A, 0),
    ];
    assert_eq!(run(&f, &call(5, [0; 6])), 5 | 11);
}

#[test]
fn what_the_kernel_would_refuse_or_end_is_taken_as_a_kill() {
    // Off the end, a load past the data, a division by a zero X, memory past 16.
    assert_eq!(run(&[stmt(LD_ABS, 0)], &call(1, [0; 6])), RET_KILL);
    assert_eq!(run(&[stmt(LD_ABS, 64), stmt(RET_K, RET_ALLOW)], &call(1, [0; 6])), RET_KILL);
    assert_eq!(run(&[stmt(LD_ABS, 2), stmt(RET_K, RET_ALLOW)], &call(1, [0; 6])), RET_KILL);
    assert_eq!(run(&[stmt(0x01, 0), stmt(0x3c, 0), stmt(RET_K, RET_ALLOW)], &call(1, [0; 6])), RET_KILL);
    assert_eq!(run(&[stmt(0x02, 16), stmt(RET_K, RET_ALLOW)], &call(1, [0; 6])), RET_KILL);
    // A jump past the end.
    assert_eq!(run(&[jump(JGE_K, 0, 200, 200), stmt(RET_K, RET_ALLOW)], &call(1, [0; 6])), RET_KILL);
    assert_eq!(run(&[], &call(1, [0; 6])), RET_KILL);
}

#[test]
fn log_and_errno_are_harmless_and_trace_and_notification_are_not() {
    assert!(harmless(RET_ALLOW) && harmless(RET_LOG) && harmless(RET_ERRNO | 38));
    assert!(!harmless(0x7ff0_0000) && !harmless(0x7fc0_0000) && !harmless(TRAP) && !harmless(0));
    assert!(!harmless(KILL_PROCESS));
}

/// The two verdicts stand apart: a filter that kills only `fstat` of
/// descriptor 2 leaves the runtime's work free but not its line (whose
/// first call that is), and seccomp_wrap.rs silences the line alone.
#[test]
fn a_filter_may_leave_the_work_free_and_stop_the_line() {
    let f = on_first_argument(libc::SYS_fstat, &[2], KILL_PROCESS, RET_ALLOW);
    assert_eq!(run(&f, &call(libc::SYS_fstat, [2, 0, 0, 0, 0, 0])), KILL_PROCESS);
    assert_eq!(run(&f, &call(libc::SYS_fstat, [3, 0, 0, 0, 0, 0])), RET_ALLOW);
    assert_eq!(judge(&f), Verdict { keeps_recording: true, may_say: false, may_spawn: true });
}

/// A sandbox that forbids new tasks (clone, clone3, fork, vfork killed)
/// leaves the runtime's work and its line free, but no helper thread.
#[test]
fn a_filter_that_forbids_new_tasks_leaves_the_work_free_but_no_thread() {
    let f = denylist(&[libc::SYS_clone, libc::SYS_clone3, libc::SYS_fork, libc::SYS_vfork], KILL_PROCESS);
    assert_eq!(judge(&f), Verdict { keeps_recording: true, may_say: true, may_spawn: false });
    // A thread's stack mapped PROT_NONE, as glibc maps it, refused alone.
    let f = vec![
        stmt(LD_ABS, 0),
        jump(JEQ_K, libc::SYS_mmap as u32, 0, 3),
        stmt(LD_ABS, 32),
        jump(JEQ_K, libc::PROT_NONE as u32, 0, 1),
        stmt(RET_K, KILL_PROCESS),
        stmt(RET_K, RET_ALLOW),
    ];
    assert_eq!(judge(&f), Verdict { keeps_recording: true, may_say: true, may_spawn: false });
}
