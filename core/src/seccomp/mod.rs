//! A seccomp filter that the program installs on itself (a sandbox), judged
//! against the runtime's own system calls before the runtime makes another
//! one. Under a filter, a call it refuses may kill the whole process
//! (`SECCOMP_RET_KILL_PROCESS`) or raise SIGSYS: a program that confines
//! itself to the calls *it* needs would die of the runtime's first call
//! outside them (a crash-safe file grown, the log written at exit), with
//! its exit status and its unflushed output lost. C Darshan 3.5.0 dies so.
//!
//! The filter is classic BPF over `struct seccomp_data`; [`run`] runs it
//! as the kernel does, and [`judge`] runs it on every call the runtime may
//! still make (calls.rs), with the arguments it makes them with. A call
//! the filter allows, logs or fails with an errno is harmless (the runtime
//! copes with a failed call); anything else (kill, trap, trace, a user
//! notification) means the runtime must make no system call of its own
//! from then on.

mod calls;
mod inherited;

pub use inherited::{count_judged, unjudged_filter};

use std::sync::atomic::{AtomicBool, Ordering};

use calls::{Call, RUNTIME, SAY, THREAD};

/// Set once a filter in the runtime's way is in force (ffi's
/// seccomp_wrap.rs): from then on the runtime makes no system call of its
/// own, in this process and its forks.
static SEALED: AtomicBool = AtomicBool::new(false);

/// Put the runtime aside for good; false if it already was.
pub fn seal() -> bool {
    !SEALED.swap(true, Ordering::AcqRel)
}

/// Whether the runtime has been put aside: the shutdown writes nothing,
/// exec leaves the crash-safe file where it is.
pub fn sealed() -> bool {
    SEALED.load(Ordering::Acquire)
}

/// Set once a filter would kill a helper thread's calls (calls::THREAD):
/// the shutdown then compresses on its own thread.
static NO_THREADS: AtomicBool = AtomicBool::new(false);

/// The runtime may start no thread from now on.
pub fn forbid_threads() {
    NO_THREADS.store(true, Ordering::Release);
}

/// Whether the runtime may start a helper thread.
pub fn threads_allowed() -> bool {
    !NO_THREADS.load(Ordering::Acquire)
}

/// Whether the runtime may make system call `nr` after start-up (in its
/// work, a helper thread or a line): the lists the filters are judged
/// against, by number alone (ffi's tests trace the shutdown against it).
pub fn listed(nr: libc::c_long) -> bool {
    RUNTIME.iter().chain(THREAD).chain(SAY).any(|c| c.nr == nr)
}

/// One instruction: `struct sock_filter`, as the program hands it over.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

/// What the filter sees of a call: `struct seccomp_data`.
#[derive(Clone, Copy, Debug)]
pub struct Data {
    pub nr: i32,
    pub arch: u32,
    pub ip: u64,
    pub args: [u64; 6],
}

/// The bytes of `struct seccomp_data`: what `BPF_LEN` loads.
const DATA_LEN: u32 = 64;

/// The action part of a filter's return value, and the harmless ones.
const RET_ACTION_FULL: u32 = 0xffff_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_LOG: u32 = 0x7ffc_0000;
const RET_ERRNO: u32 = 0x0005_0000;
/// SECCOMP_RET_KILL_THREAD: what a filter the kernel would have refused
/// (or one that divides by zero) is taken to return.
const RET_KILL: u32 = 0;

/// The audit architecture the kernel puts in `arch` for this build's calls.
#[cfg(target_arch = "x86_64")]
pub const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
pub const AUDIT_ARCH: u32 = 0xc000_00b7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const AUDIT_ARCH: u32 = 0;

/// An MPI job's shutdown's first question (a serial one never starts: the
/// sealed process is Disabled): a sealed runtime writes nothing.
pub fn check() -> Result<(), crate::finish::pipeline::ShutdownError> {
    if sealed() {
        return Err(crate::finish::pipeline::ShutdownError::Sealed);
    }
    Ok(())
}

/// What a filter leaves the runtime free to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Every system call the runtime may make from now on is harmless.
    pub keeps_recording: bool,
    /// A line can still be written to stderr (platform.rs's `stderr`).
    pub may_say: bool,
    /// A helper thread can still be started.
    pub may_spawn: bool,
}

/// `prog` judged against the runtime's calls and its stderr line's.
pub fn judge(prog: &[Insn]) -> Verdict {
    Verdict {
        keeps_recording: harmless_to_all(prog, RUNTIME),
        may_say: harmless_to_all(prog, SAY),
        may_spawn: harmless_to_all(prog, THREAD),
    }
}

/// Strict mode (SECCOMP_MODE_STRICT) leaves read, write, _exit and
/// sigreturn: nothing the runtime's work or its line needs all of.
pub const STRICT: Verdict = Verdict { keeps_recording: false, may_say: false, may_spawn: false };

fn harmless_to_all(prog: &[Insn], calls: &[Call]) -> bool {
    calls
        .iter()
        .all(|c| c.args().all(|args| harmless(run(prog, &Data { nr: c.nr as i32, arch: AUDIT_ARCH, ip: 0, args }))))
}

/// Whether a filter's return value lets the call through or fails it
/// with an errno, which the runtime copes with.
pub fn harmless(ret: u32) -> bool {
    matches!(ret & RET_ACTION_FULL, RET_ALLOW | RET_LOG | RET_ERRNO)
}

/// The 32-bit word of `d` at byte `off` (little-endian halves of the
/// 64-bit fields, as the kernel lays the structure out on this machine).
fn word(d: &Data, off: u32) -> Option<u32> {
    if !off.is_multiple_of(4) || off >= DATA_LEN {
        return None;
    }
    let half = |v: u64| if off.is_multiple_of(8) { v as u32 } else { (v >> 32) as u32 };
    Some(match off {
        0 => d.nr as u32,
        4 => d.arch,
        8 | 12 => half(d.ip),
        _ => half(d.args[(off as usize - 16) / 8]),
    })
}

/// The machine's registers: accumulator, index and scratch memory.
#[derive(Default)]
struct Machine {
    a: u32,
    x: u32,
    mem: [u32; 16],
}

/// What one instruction does: go on at a (forward) distance, or return.
enum Step {
    Skip(usize),
    Return(u32),
}

/// Run `prog` on `d` as the kernel does: jumps only go forward, so it ends
/// within `prog.len()` instructions; running off the end, an instruction
/// the kernel's checker would have refused, and a division by a zero X
/// return `RET_KILL`.
pub fn run(prog: &[Insn], d: &Data) -> u32 {
    let mut m = Machine::default();
    let mut pc = 0usize;
    while let Some(i) = prog.get(pc) {
        match step(&mut m, i, d) {
            Some(Step::Skip(n)) => pc = pc.saturating_add(1).saturating_add(n),
            Some(Step::Return(v)) => return v,
            None => return RET_KILL,
        }
    }
    RET_KILL
}

fn step(m: &mut Machine, i: &Insn, d: &Data) -> Option<Step> {
    const LD: u16 = 0x00;
    const LDX: u16 = 0x01;
    const ST: u16 = 0x02;
    const STX: u16 = 0x03;
    const ALU: u16 = 0x04;
    const JMP: u16 = 0x05;
    const RET: u16 = 0x06;
    const MISC: u16 = 0x07;
    let k = i.k;
    match i.code & 0x07 {
        LD => m.a = load(m, i, d)?,
        LDX => m.x = load(m, i, d)?,
        ST => *m.mem.get_mut(k as usize)? = m.a,
        STX => *m.mem.get_mut(k as usize)? = m.x,
        ALU => m.a = alu(i.code, m.a, if i.code & 0x08 != 0 { m.x } else { k })?,
        JMP => return jump(i, m.a, if i.code & 0x08 != 0 { m.x } else { k }),
        RET => return Some(Step::Return(if i.code & 0x18 == 0x10 { m.a } else { k })),
        MISC if i.code == MISC => m.x = m.a,
        MISC if i.code == MISC | 0x80 => m.a = m.x,
        _ => return None,
    }
    Some(Step::Skip(0))
}

/// A load's value: seccomp allows 32-bit words of the data, its length,
/// an immediate and scratch memory.
fn load(m: &Machine, i: &Insn, d: &Data) -> Option<u32> {
    const W: u16 = 0x00;
    let size = i.code & 0x18;
    match i.code & 0xe0 {
        0x00 => Some(i.k),                        // IMM
        0x20 if size == W => word(d, i.k),        // ABS
        0x60 => m.mem.get(i.k as usize).copied(), // MEM
        0x80 if size == W => Some(DATA_LEN),      // LEN
        _ => None,
    }
}

fn alu(code: u16, a: u32, v: u32) -> Option<u32> {
    Some(match code & 0xf0 {
        0x00 => a.wrapping_add(v),
        0x10 => a.wrapping_sub(v),
        0x20 => a.wrapping_mul(v),
        0x30 => a.checked_div(v)?,
        0x40 => a | v,
        0x50 => a & v,
        0x60 => a.checked_shl(v).unwrap_or(0),
        0x70 => a.checked_shr(v).unwrap_or(0),
        0x80 => a.wrapping_neg(),
        0x90 => a.checked_rem(v)?,
        0xa0 => a ^ v,
        _ => return None,
    })
}

fn jump(i: &Insn, a: u32, v: u32) -> Option<Step> {
    let taken = match i.code & 0xf0 {
        0x00 => return Some(Step::Skip(i.k as usize)), // JA
        0x10 => a == v,
        0x20 => a > v,
        0x30 => a >= v,
        0x40 => a & v != 0,
        _ => return None,
    };
    Some(Step::Skip(usize::from(if taken { i.jt } else { i.jf })))
}

#[cfg(test)]
mod tests;
