//! Which file a descriptor or a registered slot is: the descriptors a
//! batch acts on and the files a program registers, named by the ffi crate
//! (a POSIX record's name, /proc/self/fd, a direct open's path) before
//! their requests are counted.

use darshan_core::common::add;
use darshan_core::handles::HandleTable;

use crate::fixed::{self, FixedFiles};
use crate::{c, ops, IoUring, Sqe, NOT_RECORDED};

impl IoUring {
    /// Descriptors among `sqes` (submitted on ring `fd`) whose file is not
    /// known yet, into `out`; how many.
    pub fn unknown_fds(&self, fd: i32, sqes: &[Sqe], out: &mut [i32]) -> usize {
        let st = self.lock();
        if st.ring(fd).is_none() {
            return 0;
        }
        // A registered file's request: its file was named at registration.
        let plain = |s: &&Sqe| ops::class(s.opcode, s.op_flags).is_some() && s.slot().is_none();
        unknown_in(&st.fds, sqes.iter().filter(plain).map(|s| s.fd), out)
    }

    /// Descriptors among `fds` (about to be registered on a ring) whose
    /// file is not known yet, into `out`; how many.
    pub fn unknown_among(&self, fds: &[i32], out: &mut [i32]) -> usize {
        unknown_in(&self.lock().fds, fds.iter().copied(), out)
    }

    /// The file open as `fd` is `name` (cleaned, absolute; None: not a
    /// file, whose requests are not counted).
    pub fn bind_fd(&self, fd: i32, name: Option<&[u8]>) {
        let mut st = self.lock();
        let i = match name {
            Some(n) => st.set.find_or_create(darshan_log::record_id(n), n),
            None => None,
        };
        if !st.fds.insert(fd as u64, i.unwrap_or(NOT_RECORDED)) {
            st.set.mark_partial();
        }
    }

    /// The slot value of file `name` (cleaned, absolute), opened straight
    /// into a registered slot ([`Sqe::opened`]): its record + 1, or
    /// NOT_A_FILE for a path not recorded (excluded, or no room).
    pub fn slot_value_of(&self, name: &[u8]) -> u32 {
        let mut st = self.lock();
        match st.set.find_or_create(darshan_log::record_id(name), name) {
            Some(i) => u32::try_from(i + 1).ok().filter(|&v| v != fixed::NOT_A_FILE).unwrap_or(0),
            None => fixed::NOT_A_FILE,
        }
    }

    /// Whether the entry at SQ position `pos` of ring `fd` is not counted
    /// yet (a wrapper inside another reads it again).
    pub fn not_counted(&self, fd: i32, pos: u32) -> bool {
        let st = self.lock();
        st.ring(fd).is_some_and(|k| (pos.wrapping_sub(st.rings[k].sq_seen) as i32) >= 0)
    }

    /// Registered files of ring `fd` from index `first` (`registered`
    /// of them named a file), their descriptors already named.
    pub fn on_register_files(&self, fd: i32, first: usize, fds: &[i32], registered: u32) {
        let mut guard = self.lock();
        let Some(mut k) = guard.ring(fd) else { return };
        // Room for the files named: taken outside the lock, as the table of
        // requests in flight is; the words it leaves go after.
        let mut spare = None;
        if let Some(slots) = guard.rings[k].fixed.wants(first, fds) {
            drop(guard);
            let bigger = FixedFiles::words_for(slots);
            guard = self.lock();
            let Some(again) = guard.ring(fd) else { return };
            k = again;
            spare = bigger.map(|b| guard.rings[k].fixed.grow(b));
        }
        let st = &mut *guard;
        let table = &st.fds;
        if !st.rings[k].fixed.register(first, fds, |fd| slot_value(table, fd)) {
            st.set.mark_partial();
        }
        if let Some(w) = st.process() {
            add(w, c::word(c::REGISTERED_FILES), i64::from(registered));
        }
        drop(guard);
        drop(spare);
    }

    /// `n` buffers registered on ring `fd` (for READ_FIXED/WRITE_FIXED).
    pub fn on_register_buffers(&self, fd: i32, n: u32) {
        let mut st = self.lock();
        if st.ring(fd).is_some() {
            if let Some(w) = st.process() {
                add(w, c::word(c::REGISTERED_BUFFERS), i64::from(n));
            }
        }
    }

    pub fn on_unregister_files(&self, fd: i32) {
        let mut st = self.lock();
        let Some(k) = st.ring(fd) else { return };
        let old = st.rings[k].fixed.unregister();
        drop(st);
        drop(old);
    }
}

/// The descriptors of `fds` that `table` does not know, each once, into
/// `out` (as many as fit); how many.
fn unknown_in(table: &HandleTable, fds: impl Iterator<Item = i32>, out: &mut [i32]) -> usize {
    let mut n = 0;
    for fd in fds.filter(|&fd| fd >= 0 && table.get(fd as u64).is_none()) {
        if !out[..n].contains(&fd) && n < out.len() {
            out[n] = fd;
            n += 1;
        }
    }
    n
}

/// A registered-file slot's value for `fd`: its record + 1, NOT_A_FILE,
/// or 0 if it was not named.
fn slot_value(fds: &HandleTable, fd: i32) -> u32 {
    match fds.get(fd as u64) {
        Some(NOT_RECORDED) => fixed::NOT_A_FILE,
        Some(i) => u32::try_from(i + 1).ok().filter(|&v| v != fixed::NOT_A_FILE).unwrap_or(0),
        None => 0,
    }
}
