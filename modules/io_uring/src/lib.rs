//! The IO_URING module (ours, id 61): the requests a process submits
//! through io_uring rings, one record per file (record id = Darshan's hash
//! of the path, so it joins the file's POSIX record). Counted from each
//! submission entry when it is submitted (operation, size, offset,
//! sequence) and from each completion entry the runtime reads (result,
//! latency); a request whose completion it never read counts as a full
//! transfer and in COMPLETIONS_UNSEEN, never silently. docs/io-uring.md
//! has the counters, what is seen exactly and what only approximately.
//!
//! The ffi crate reads the rings' shared memory (this crate holds only
//! their addresses) and hands plain [`Sqe`]s and [`Cqe`]s in.
#![forbid(unsafe_code)]

mod direct;
pub mod fixed;
pub mod inflight;
mod names;
pub mod ops;
pub mod reduce;
pub mod ring;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use darshan_core::common::{add, stamp, Tick};
use darshan_core::handles::HandleTable;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, FinalizeCtx, LockedState, Module, ModuleSpec, ModuleState};
use darshan_log::counters::io_uring::typed as c;
use darshan_log::counters::size_bucket;
use darshan_log::modules::IO_URING as ID;

use inflight::{Inflight, Kind, Pending};
use ops::Class;
pub use ring::{Params, Region, Ring, RingView, MAX_RINGS};

use fixed::Slot;

/// The record of the requests no file can be named for: those submitted
/// where the runtime could not read them.
pub const UNOBSERVED: &[u8] = b"<io_uring>";

/// Descriptors whose file is known at once (fd -> record).
const FD_SLOTS: usize = 1024;
/// The value of a descriptor that names no recorded file (a socket, a
/// pipe, an excluded path): its requests are not counted.
const NOT_RECORDED: usize = 1 << 40;

/// One submission queue entry, as read from the ring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sqe {
    pub opcode: u8,
    pub flags: u8,
    pub fd: i32,
    pub off: u64,
    /// Bytes asked for: `len`, or for a vectored request the sum of its
    /// iovecs' lengths.
    pub bytes: u64,
    /// The operation's flags word (fsync: IORING_FSYNC_DATASYNC).
    pub op_flags: u32,
    pub user_data: u64,
    /// The registered-file slot + 1 a request installs into or closes
    /// (openat and close "direct"); 0: none.
    pub file_index: u32,
    /// The operation's address: an openat's path, a files update's array
    /// (read by the ffi crate, which alone reads the program's memory).
    pub addr: u64,
    /// For an open into a registered slot ([`Sqe::opens_file`]): its
    /// file's slot value, named by the ffi crate before the entry is
    /// counted (the record + 1, [`fixed::NOT_A_FILE`], 0 if unnamed).
    pub opened: u32,
}

/// Where a request that makes a descriptor puts it in the ring's
/// registered files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Slot(i32),
    /// A free slot the kernel picks (IORING_FILE_INDEX_ALLOC): the
    /// completion's result.
    Alloc,
}

impl Sqe {
    /// The registered-file slot the request acts on: a close's
    /// `file_index` (liburing's `io_uring_prep_close_direct` leaves fd 0:
    /// that close is not one of descriptor 0; the kernel refuses a close
    /// with IOSQE_FIXED_FILE), or its fd with IOSQE_FIXED_FILE.
    pub fn slot(&self) -> Option<i32> {
        if self.opcode == ops::OP_CLOSE {
            (self.file_index != 0).then(|| self.file_index.wrapping_sub(1) as i32)
        } else {
            (self.flags & ops::SQE_FIXED_FILE != 0).then_some(self.fd)
        }
    }

    /// Where the descriptor a request makes goes, if into the registered
    /// files ("direct": an openat, openat2, accept or socket with a
    /// `file_index`).
    pub fn installs(&self) -> Option<Target> {
        let makes = matches!(self.opcode, ops::OP_OPENAT | ops::OP_OPENAT2 | ops::OP_ACCEPT | ops::OP_SOCKET);
        match self.file_index {
            _ if !makes => None,
            0 => None,
            ops::FILE_INDEX_ALLOC => Some(Target::Alloc),
            i => Some(Target::Slot((i - 1) as i32)),
        }
    }

    /// An open straight into a registered slot: its path names a file.
    pub fn opens_file(&self) -> bool {
        matches!(self.opcode, ops::OP_OPENAT | ops::OP_OPENAT2) && self.file_index != 0
    }
}

/// One completion queue entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cqe {
    pub user_data: u64,
    pub res: i32,
    pub flags: u32,
}

/// IORING_CQE_F_MORE: more completions of this request will follow.
const CQE_F_MORE: u32 = 1 << 1;

#[derive(Default)]
pub struct Rt {
    /// The position a request at offset -1 (the file's own) starts at.
    offset: u64,
    last_byte_read: i64,
    last_byte_written: i64,
    last: Option<Kind>,
    inflight: u64,
    /// The file's DXT_IO_URING trace (darshan_dxt::Handle).
    dxt: darshan_dxt::Handle,
}

impl darshan_core::records::RecordRt for Rt {}

pub struct State {
    set: RecordSet<Rt>,
    rings: [Ring; MAX_RINGS],
    /// One past the last ring slot in use: the slots scanned (a new ring
    /// takes the first free one).
    hi: usize,
    inflight: Inflight,
    /// Descriptor -> record (or NOT_RECORDED).
    fds: HandleTable,
}

pub struct IoUring {
    /// Whether the module records (attached with room).
    on: AtomicBool,
    /// Rings followed: the close, mmap and munmap wrappers skip the lock
    /// while there are none.
    rings: AtomicUsize,
    st: Lock<State>,
}

pub static IO_URING: IoUring = IoUring::new();

impl Default for IoUring {
    fn default() -> IoUring {
        IoUring::new()
    }
}

impl IoUring {
    /// A module with no records, not yet attached: the runtime's static,
    /// or a test's own.
    pub const fn new() -> IoUring {
        IoUring {
            on: AtomicBool::new(false),
            rings: AtomicUsize::new(0),
            st: Lock::new(State {
                set: RecordSet::new(ID),
                rings: [Ring::FREE; MAX_RINGS],
                hi: 0,
                inflight: Inflight::new(),
                fds: HandleTable::new(),
            }),
        }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// Whether the module records at all (the wrappers' first test).
    #[inline]
    pub fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Whether any ring is followed.
    #[inline]
    pub fn rings_live(&self) -> bool {
        self.rings.load(Ordering::Relaxed) > 0
    }
}

impl State {
    /// [`IoUring::on_submit`]'s batch, counted under the lock.
    fn submitted(&mut self, fd: i32, first: u32, sqes: &[Sqe], consumed: u32, t: Tick) -> u32 {
        let st = self;
        let Some(k) = st.ring(fd) else { return 0 };
        let seen = st.rings[k].sq_seen;
        // Taken by the kernel before any call of ours read them (an SQPOLL
        // ring's thread, or an enter we do not see).
        st.unobserved(first.wrapping_sub(seen));
        let mut counted = 0;
        for (n, s) in sqes.iter().enumerate() {
            let pos = first.wrapping_add(n as u32);
            if (pos.wrapping_sub(seen) as i32) < 0 || (pos.wrapping_sub(consumed) as i32) >= 0 {
                continue;
            }
            counted += 1;
            if let Some(target) = s.installs() {
                st.install(k, s, target, t);
                continue;
            }
            if st.unnamed_fixed_file(k, s) {
                // A slot no file was named for: filled by the ring where
                // the path could not be read, by an accept into a slot the
                // kernel picked, or never registered.
                st.unobserved(1);
                continue;
            }
            let p = st.submit_one(k, s, t);
            if s.opcode == ops::OP_CLOSE {
                // Closed by the ring: the number (or the slot) may name
                // another file next.
                match s.slot() {
                    None => {
                        st.fds.remove(s.fd as u64);
                    }
                    Some(slot) => st.rings[k].fixed.empty(slot),
                }
            }
            track(st, k, s, p);
        }
        // The cursor passes these entries only: the call's next batch
        // starts where this one ends.
        let end = first.wrapping_add(sqes.len() as u32);
        let upto = if (end.wrapping_sub(consumed) as i32) > 0 { consumed } else { end };
        let r = &mut st.rings[k];
        if (upto.wrapping_sub(r.sq_seen) as i32) > 0 {
            r.sq_seen = upto;
        }
        counted
    }

    fn ring(&self, fd: i32) -> Option<usize> {
        self.rings[..self.hi].iter().position(|r| r.fd == fd && fd >= 0)
    }

    /// The rings followed.
    fn live(&self) -> impl Iterator<Item = &Ring> {
        self.rings[..self.hi].iter().filter(|r| r.fd >= 0)
    }

    /// Slot `k` freed: the ring it held, to be dropped outside the lock
    /// (its registered files' pages).
    fn free_ring(&mut self, k: usize) -> Ring {
        let old = std::mem::replace(&mut self.rings[k], Ring::FREE);
        while self.hi > 0 && self.rings[self.hi - 1].fd < 0 {
            self.hi -= 1;
        }
        old
    }

    fn add_ring(&mut self, ring: Ring, count: &AtomicUsize) -> Option<usize> {
        self.ring_learnt(&ring);
        if let Some(k) = self.ring(ring.fd) {
            // A ring under a number we still held: the old one's
            // descriptor was closed unseen, and it ends here. Rings were
            // followed all along, and so were the descriptors' closes.
            self.end_ring(k);
            self.rings[k] = ring;
            return Some(k);
        }
        let Some(k) = self.rings.iter().position(|r| r.fd < 0) else {
            self.set.mark_partial();
            return None;
        };
        self.rings[k] = ring;
        self.hi = self.hi.max(k + 1);
        count.fetch_add(1, Ordering::Relaxed);
        Some(k)
    }

    /// Ring `k` ends: its requests still in flight count as completions
    /// not seen.
    fn end_ring(&mut self, k: usize) {
        let mut table = std::mem::take(&mut self.inflight);
        table.drain(Some(k), |p| self.unseen(p));
        self.inflight = table;
    }

    /// The process's record, `<io_uring>`: its rings and the requests no
    /// file can be named for (None without room).
    fn process(&mut self) -> Option<&mut [u64]> {
        let i = self.set.find_or_create(darshan_log::record_id(UNOBSERVED), UNOBSERVED)?;
        Some(self.set.words(i))
    }

    /// A ring set up (or first seen through liburing): the process's
    /// ring facts.
    fn ring_learnt(&mut self, ring: &Ring) {
        let Some(w) = self.process() else { return };
        add(w, c::word(c::RINGS), 1);
        add(w, c::word(c::SQPOLL_RINGS), i64::from(ring.sqpoll()));
        add(w, c::word(c::IOPOLL_RINGS), i64::from(ring.iopoll()));
        let entries = &mut w[c::word(c::RING_ENTRIES_MAX)];
        *entries = (*entries).max(u64::from(ring.entries()));
    }

    /// One more request in flight on ring `k`: the deepest queue of any
    /// ring, in the process's record when it deepens.
    fn ring_deepened(&mut self, k: usize) {
        let r = &mut self.rings[k];
        r.inflight += 1;
        if r.inflight > r.max_inflight {
            r.max_inflight = r.inflight;
            let depth = u64::from(r.inflight);
            if let Some(w) = self.process() {
                let m = &mut w[c::word(c::RING_MAX_INFLIGHT)];
                *m = (*m).max(depth);
            }
        }
    }

    /// The record of the file open as `fd`, if known.
    fn record_of_fd(&self, fd: i32) -> Option<usize> {
        self.fds.get(fd as u64).filter(|&i| i != NOT_RECORDED && self.set.live(i))
    }

    /// A file-class request on a registered-file slot we were never told
    /// of.
    fn unnamed_fixed_file(&self, ring: usize, sqe: &Sqe) -> bool {
        let empty = |slot| self.rings[ring].fixed.get(slot) == Slot::Empty;
        ops::class(sqe.opcode, sqe.op_flags).is_some() && sqe.slot().is_some_and(empty)
    }

    /// The record a request acts on: its registered file's, or its
    /// descriptor's.
    fn record_of(&self, ring: usize, sqe: &Sqe) -> Option<usize> {
        let Some(slot) = sqe.slot() else { return self.record_of_fd(sqe.fd) };
        match self.rings[ring].fixed.get(slot) {
            Slot::Record(i) if self.set.live(i) => Some(i),
            _ => None,
        }
    }

    fn submit_one(&mut self, ring: usize, sqe: &Sqe, t: Tick) -> Option<Pending> {
        let class = ops::class(sqe.opcode, sqe.op_flags)?;
        let i = self.record_of(ring, sqe)?;
        Some(self.request(ring, i, class, sqe, t))
    }

    /// Request `sqe` of class `class` on record `i`, counted.
    fn request(&mut self, ring: usize, i: usize, class: Class, sqe: &Sqe, t: Tick) -> Pending {
        let sqpoll = self.rings[ring].sqpoll();
        // By registered index: on a slot, or into one (a direct open).
        let fixed_file = sqe.slot().is_some() || sqe.installs().is_some();
        let (w, rt) = self.set.both(i);
        let (kind, offset) = match class {
            Class::Read { vectored, fixed } => (Kind::Read, data(w, rt, Kind::Read, sqe, vectored, fixed)),
            Class::Write { vectored, fixed } => (Kind::Write, data(w, rt, Kind::Write, sqe, vectored, fixed)),
            Class::Fsync { data: true } => (other(w, c::FDATASYNCS), 0),
            Class::Fsync { data: false } => (other(w, c::FSYNCS), 0),
            Class::SyncRange => (other(w, c::SYNC_RANGES), 0),
            Class::Meta => (other(w, c::META_OPS), 0),
        };
        if fixed_file {
            add(w, c::word(c::FIXED_FILE_OPS), 1);
        }
        if sqpoll {
            add(w, c::word(c::SQPOLL_OPS), 1);
        }
        stamp(w, c::fword(c::F_START_TIMESTAMP), c::fword(c::F_END_TIMESTAMP), t, t);
        rt.inflight += 1;
        if w[c::word(c::MAX_INFLIGHT)] < rt.inflight {
            w[c::word(c::MAX_INFLIGHT)] = rt.inflight;
        }
        let len = if matches!(kind, Kind::Other) { 0 } else { sqe.bytes };
        Pending { record: i, kind, len, offset, submitted: t }
    }

    /// A request completed: its result and latency.
    fn complete(&mut self, p: Pending, res: i32, t: Tick) {
        if !self.set.live(p.record) {
            return;
        }
        let (w, rt) = self.set.both(p.record);
        rt.inflight = rt.inflight.saturating_sub(1);
        add(w, c::word(c::COMPLETIONS_SEEN), 1);
        stamp(w, c::fword(c::F_START_TIMESTAMP), c::fword(c::F_END_TIMESTAMP), t, t);
        if res < 0 {
            add(w, c::word(c::ERRORS), 1);
            return;
        }
        let (bytes, short, time, max) = match p.kind {
            Kind::Read => (c::BYTES_READ, c::SHORT_READS, c::F_READ_TIME, c::F_MAX_READ_TIME),
            Kind::Write => (c::BYTES_WRITTEN, c::SHORT_WRITES, c::F_WRITE_TIME, c::F_MAX_WRITE_TIME),
            Kind::Other | Kind::Open => return,
        };
        add(w, c::word(bytes), i64::from(res));
        if (res as u64) < p.len {
            add(w, c::word(short), 1);
        }
        let lat = (t - p.submitted).max(0);
        add(w, c::fword(time), lat);
        if (w[c::fword(max)] as i64) < lat {
            w[c::fword(max)] = lat as u64;
        }
        let write = p.kind == Kind::Write;
        darshan_dxt::DXT_IO_URING.trace(&mut rt.dxt, w[0], write, p.offset as i64, i64::from(res), p.submitted, t);
    }

    /// `n` requests submitted where we could not read them, in the
    /// `<io_uring>` record (a wrapped-around count is no count).
    fn unobserved(&mut self, n: u32) {
        if n == 0 || n > i32::MAX as u32 {
            return;
        }
        if let Some(w) = self.process() {
            add(w, c::word(c::UNOBSERVED_OPS), i64::from(n));
        }
    }

    /// A request whose completion was never read: a full transfer.
    fn unseen(&mut self, p: Pending) {
        if !self.set.live(p.record) {
            return;
        }
        let (w, rt) = self.set.both(p.record);
        rt.inflight = rt.inflight.saturating_sub(1);
        add(w, c::word(c::COMPLETIONS_UNSEEN), 1);
        let write = match p.kind {
            Kind::Read => false,
            Kind::Write => true,
            Kind::Other | Kind::Open => return,
        };
        add(w, c::word(if write { c::BYTES_WRITTEN } else { c::BYTES_READ }), p.len as i64);
        // Its end was never seen: the segment ends where it started.
        let (len, at) = (p.len as i64, p.offset as i64);
        darshan_dxt::DXT_IO_URING.trace(&mut rt.dxt, w[0], write, at, len, p.submitted, p.submitted);
    }
}

/// A read or write at its offset: counts, size, sequence (as POSIX counts
/// them, docs/counter-rules.md §4, with the size asked for); the offset
/// it acts at.
fn data(w: &mut [u64], rt: &mut Rt, kind: Kind, sqe: &Sqe, vectored: bool, fixed: bool) -> u64 {
    let read = kind == Kind::Read;
    let (count, vcount, fcount) =
        if read { (c::READS, c::READVS, c::READ_FIXEDS) } else { (c::WRITES, c::WRITEVS, c::WRITE_FIXEDS) };
    add(w, c::word(count), 1);
    if vectored {
        add(w, c::word(vcount), 1);
    }
    if fixed {
        add(w, c::word(fcount), 1);
    }
    let first = if read { c::SIZE_READ_0_100 } else { c::SIZE_WRITE_0_100 };
    add(w, c::word(first) + size_bucket(sqe.bytes as i64), 1);
    // Offset -1: the file's own position, which this request moves.
    let off = if sqe.off == u64::MAX { rt.offset } else { sqe.off };
    rt.offset = off.saturating_add(sqe.bytes);
    let at = off;
    let (last, consec, seq, max) = if read {
        (&mut rt.last_byte_read, c::CONSEC_READS, c::SEQ_READS, c::MAX_BYTE_READ)
    } else {
        (&mut rt.last_byte_written, c::CONSEC_WRITES, c::SEQ_WRITES, c::MAX_BYTE_WRITTEN)
    };
    let off = off as i64;
    if off == *last + 1 {
        add(w, c::word(consec), 1);
    }
    if off > *last {
        add(w, c::word(seq), 1);
    }
    let end = off + sqe.bytes as i64 - 1;
    *last = end;
    if (w[c::word(max)] as i64) < end {
        w[c::word(max)] = end as u64;
    }
    if rt.last.is_some_and(|k| k != kind) {
        add(w, c::word(c::RW_SWITCHES), 1);
    }
    rt.last = Some(kind);
    at
}

fn other(w: &mut [u64], k: c::Counter) -> Kind {
    add(w, c::word(k), 1);
    Kind::Other
}

impl IoUring {
    /// `io_uring_setup` returned the ring `fd` (not mapped yet).
    pub fn on_setup(&self, fd: i32, params: Params) {
        let mut st = self.lock();
        st.add_ring(Ring::from_setup(fd, params), &self.rings);
    }

    /// `mmap` of region `offset` of `fd` made `region`; false if `fd` is
    /// no ring of ours.
    pub fn on_mmap(&self, fd: i32, offset: u64, region: Region) -> bool {
        let mut st = self.lock();
        let Some(k) = st.ring(fd) else { return false };
        st.rings[k].mapped(offset, region);
        true
    }

    /// The ring (descriptor and view) one of whose regions is mapped at
    /// `addr`.
    pub fn ring_at(&self, addr: usize) -> Option<(i32, RingView)> {
        let st = self.lock();
        let found = st.live().find(|r| r.maps(addr)).and_then(|r| Some((r.fd, r.view?)));
        found
    }

    /// `munmap(addr)`: a ring mapped there is no longer read.
    pub fn on_munmap(&self, addr: usize) {
        let mut st = self.lock();
        let hi = st.hi;
        for r in st.rings[..hi].iter_mut().filter(|r| r.fd >= 0) {
            r.unmapped(addr);
        }
    }

    /// A liburing ring (`struct io_uring`): followed from now on, its
    /// view refreshed (liburing may remap on resize). `heads` are the
    /// kernel's SQ and CQ heads now: what came before we knew the ring is
    /// not ours to count.
    ///
    /// A view that moved with the kernel's SQ head behind our cursor is
    /// another ring under the same number (the old one's descriptor closed
    /// where we could not see it, by a raw `close` system call): the old
    /// ring ends there, the new one is learnt. The same ring's head never
    /// goes back, resized (its heads are carried over) or not.
    pub fn on_liburing(&self, fd: i32, flags: u32, view: RingView, heads: (u32, u32)) {
        let mut st = self.lock();
        match st.ring(fd) {
            Some(k) if st.rings[k].view == Some(view) => {}
            Some(k) if (heads.0.wrapping_sub(st.rings[k].sq_seen) as i32) >= 0 => {
                st.rings[k].view = Some(view);
                st.rings[k].flags = flags;
            }
            _ => {
                st.add_ring(Ring::from_view(fd, flags, view, heads), &self.rings);
            }
        }
    }

    /// The ring `fd` is going away (its mapping or descriptor) with the
    /// kernel's SQ head at `head`: the requests submitted since our
    /// cursor were never read (the program entered the kernel without a
    /// call we see) and are counted as unobserved.
    pub fn on_ring_end(&self, fd: i32, head: u32) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(k) = st.ring(fd) else { return };
        let r = &mut st.rings[k];
        let missed = head.wrapping_sub(r.sq_seen);
        r.sq_seen = head;
        st.unobserved(missed);
    }

    /// The rings with a view (mapped as far as we know), into `out`; how
    /// many.
    pub fn mapped_rings(&self, out: &mut [(i32, RingView); MAX_RINGS]) -> usize {
        let st = self.lock();
        let mut n = 0;
        for r in st.live() {
            if let Some(v) = r.view {
                out[n] = (r.fd, v);
                n += 1;
            }
        }
        n
    }

    /// The ring `fd`'s memory and our completion cursor, for the ffi crate
    /// to read it.
    pub fn view(&self, fd: i32) -> Option<(RingView, u32)> {
        let st = self.lock();
        let r = &st.rings[st.ring(fd)?];
        Some((r.view?, r.cq_seen))
    }

    /// `close(fd)`: a ring closed is forgotten (its requests still in
    /// flight count as completions not seen), a file's descriptor no
    /// longer names it.
    pub fn on_close(&self, fd: i32) {
        let mut guard = self.lock();
        let st = &mut *guard;
        st.fds.remove(fd as u64);
        let Some(k) = st.ring(fd) else { return };
        st.end_ring(k);
        let old = st.free_ring(k);
        if self.rings.fetch_sub(1, Ordering::Relaxed) == 1 {
            // No ring left: no close is followed until the next one,
            // so no descriptor's name can be trusted then.
            st.fds.clear();
        }
        drop(guard);
        drop(old);
    }

    /// Submission entries of ring `fd` read at positions `first..` (the
    /// kernel's SQ positions; a call's entries come in several batches
    /// when there are many); those below `consumed` (the kernel's head
    /// after the call) were submitted at tick `t`. Entries already counted
    /// (a wrapper inside another: liburing calls its own exports) are
    /// skipped by the ring's cursor. Entries the kernel took before any
    /// call of ours could read them (`first` past the cursor: an SQPOLL
    /// ring's thread) are counted as unobserved. Returns how many entries
    /// were counted now.
    pub fn on_submit(&self, fd: i32, first: u32, sqes: &[Sqe], consumed: u32, t: Tick) -> u32 {
        let mut guard = self.lock();
        // Room for the batch's requests: the table grows outside the lock
        // (its pages are a system call); the words it leaves go after.
        let spare = match guard.ring(fd).and(guard.inflight.wants(sqes.len())) {
            Some(slots) => {
                drop(guard);
                let bigger = Inflight::words_for(slots);
                guard = self.lock();
                bigger.and_then(|b| guard.inflight.grow(b))
            }
            None => None,
        };
        let counted = guard.submitted(fd, first, sqes, consumed, t);
        drop(guard);
        drop(spare);
        counted
    }

    /// A call of the program submitted entries we counted (once per call,
    /// however many batches they came in).
    pub fn on_submit_call(&self, fd: i32) {
        let mut st = self.lock();
        if st.ring(fd).is_some() {
            if let Some(w) = st.process() {
                add(w, c::word(c::SUBMIT_CALLS), 1);
            }
        }
    }

    /// Completions read from ring `fd` at tick `t`; `cq_seen` is the
    /// cursor after them.
    pub fn on_complete(&self, fd: i32, cqes: &[Cqe], cq_seen: u32, t: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(k) = st.ring(fd) else { return };
        st.rings[k].cq_seen = cq_seen;
        for e in cqes {
            if e.flags & CQE_F_MORE != 0 {
                if let Some(p) = st.inflight.peek(k, e.user_data).filter(|p| p.kind == Kind::Open) {
                    st.picked(k, &p, e.res);
                }
                continue;
            }
            if let Some(p) = st.inflight.take(k, e.user_data) {
                if p.record != inflight::NO_RECORD {
                    st.rings[k].inflight = st.rings[k].inflight.saturating_sub(1);
                }
                if p.kind == Kind::Open {
                    st.open_done(k, &p, e.res);
                }
                st.complete(p, e.res, t);
            }
        }
    }
}

/// Follow a submitted request to its completion (one let go counts as
/// not seen).
fn track(st: &mut State, ring: usize, sqe: &Sqe, p: Option<Pending>) {
    let Some(p) = p else { return };
    if sqe.flags & ops::SQE_CQE_SKIP_SUCCESS != 0 {
        // No completion is posted when it succeeds: it counts as a full
        // transfer not seen, now, instead of waiting for nothing.
        return st.unseen(p);
    }
    match st.inflight.insert(ring, sqe.user_data, p) {
        // The table was full: the request let go counts as not seen, the
        // ring's depth is unchanged.
        Some(old) => st.unseen(old),
        None => st.ring_deepened(ring),
    }
}

/// Every fcounter holds ticks until shutdown; shared records combine by
/// `reduce::RULES`.
const SPEC: ModuleSpec =
    ModuleSpec::new(ID, c::RECORD_WORDS).ticks(c::FCOUNTERS_AT..c::RECORD_WORDS).reduced_by(&reduce::RULES);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for IoUring {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: darshan_core::arena::Slice, env: &Env) {
        let mut st = self.lock();
        let room = slice.capacity > 0;
        st.fds = HandleTable::for_records(slice.capacity, FD_SLOTS);
        st.inflight = Inflight::new();
        st.set.attach(slice, env);
        self.on.store(room, Ordering::Relaxed);
    }

    /// Requests still in flight at shutdown count as completions not
    /// seen (full transfers), then the default finalize.
    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let mut left = std::mem::take(&mut st.inflight);
        left.drain(None, |p| st.unseen(p));
        let (from, to) = SPEC.tick_words;
        st.set.finalize(ctx, from..to);
    }

    /// A forked child: none of its parent's records, rings or requests.
    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        st.inflight.clear();
        st.fds.clear();
        // Every slot is free while no ring is followed (on_close frees
        // it whole): rewriting the table's 16 KiB anyway cost a child of
        // a program without io_uring four page faults.
        if self.rings.swap(0, Ordering::Relaxed) > 0 {
            let hi = std::mem::take(&mut st.hi);
            st.rings[..hi].fill_with(|| Ring::FREE);
        }
    }
}
