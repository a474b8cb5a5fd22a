//! The STDIO module: one record per stream path (plus `<STDIN>`,
//! `<STDOUT>`, `<STDERR>`), STDIO record version 2, with Darshan 3.5.0's
//! rules (docs/counter-rules.md §4): the offset is tracked per record, fflush is a
//! 0-byte write counted in FLUSHES, unused standard streams are dropped at
//! shutdown. Streams are keyed by their `FILE*` address.
#![forbid(unsafe_code)]

pub mod filter;
pub mod reduce;
mod streams;
#[cfg(test)]
mod tests;

pub use filter::{FILTER_MUL, FILTER_SHIFT, FILTER_WORDS};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use darshan_core::arena::Slice;
use darshan_core::common::{add, get, stamp, timer_inc_no_overlap, IoTimers, NoOverlap, Tick};
use darshan_core::paths::NameFilter;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, FinalizeCtx, Module, ModuleSpec};
use darshan_core::{LockedState, ModuleState};
use darshan_log::counters::stdio::typed as c;
use darshan_log::modules::STDIO as ID;

use streams::StreamMap;

/// A 1024-bit filter of the `FILE*` values that may be tracked: a bit is
/// set when a stream gets a record and cleared only in a forked child.
/// Wrappers test it (without the lock) before timing a call, so I/O on
/// streams we do not record (excluded paths, fmemopen, pipes from popen)
/// costs one load. A stale bit only costs a lookup.
pub static MAYBE_TRACKED: [AtomicU64; FILTER_WORDS] = [const { AtomicU64::new(0) }; FILTER_WORDS];

/// The filter bit of a stream (shim.c computes it from the same facts,
/// filter.rs).
#[inline]
pub fn filter_bit(stream: usize) -> (usize, u64) {
    let h = (stream as u64).wrapping_mul(FILTER_MUL) >> FILTER_SHIFT;
    ((h >> 6) as usize, 1 << (h & 63))
}

/// Whether `stream` may be tracked (false: certainly not).
#[inline]
pub fn maybe_tracked(stream: usize) -> bool {
    let (w, b) = filter_bit(stream);
    MAYBE_TRACKED[w].load(Ordering::Relaxed) & b != 0
}

const STD_NAMES: [&[u8]; 3] = darshan_log::names::STD_STREAMS;

/// The bytes a call moved, typed as C Darshan's call site types them.
/// Where it passes a `size_t` (fread/fwrite's `size * n`, fgets/fputs's
/// `strlen`, getw/putw's `sizeof(int)`), C compares MAX_BYTE_* with the
/// call's last byte as unsigned numbers: a 0-byte fgets or fputs at
/// offset 0 sets it to -1, and a -1 there is raised again only by a call
/// that passes a signed count (fgetc/fputc's 1, fprintf's and fscanf's
/// counts, fflush's 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    Int(i64),
    SizeT(u64),
}

impl From<i64> for Moved {
    fn from(n: i64) -> Self {
        Moved::Int(n)
    }
}

impl Moved {
    /// The count, and whether C compares with it as an unsigned number.
    fn parts(self) -> (i64, bool) {
        match self {
            Moved::Int(n) => (n, false),
            Moved::SizeT(n) => (n as i64, true),
        }
    }
}

/// Whether C's `if (max < offset + bytes - 1)` raises `max` (see [`Moved`]).
fn raises(max: i64, last: i64, unsigned: bool) -> bool {
    if unsigned {
        (max as u64) < last as u64
    } else {
        max < last
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    Flush,
}

#[derive(Default)]
pub struct Rt {
    offset: i64,
    t: IoTimers,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        self.t.each(f, c::fword(c::F_READ_TIME), c::fword(c::F_WRITE_TIME), c::fword(c::F_META_TIME));
    }
}

pub struct State {
    set: RecordSet<Rt>,
    streams: StreamMap,
    std_streams: [usize; 3],
    /// The standard streams that have a place and whose record is still to
    /// be made, at the program's first STDIO call (Darshan's set-up): made
    /// at start-up, their three records, names and index entries were a
    /// third of a short process's page faults in the constructor (16 of
    /// 57), in processes that mostly make no STDIO call at all.
    pending_std: [bool; 3],
    /// A standard stream found no place: Darshan's set-up then marks the
    /// module partial (at the first STDIO call, [`Stdio::on_first_call`]).
    std_unplaced: bool,
}

/// On a cache line of its own start: which lines a call's lock and counts
/// fall on must not depend on the size of the statics the linker puts
/// before it (an unrelated static moved this one by 24 bytes and pwrite
/// cost 4.6 ns more).
#[repr(align(64))]
pub struct Stdio {
    state: Lock<State>,
    /// The exclusion rules, tested before the lock is taken.
    names: NameFilter,
    /// Set at the program's first STDIO call. Darshan sets its STDIO module
    /// up then, and only from then are the standard streams its streams:
    /// a `fileno(stdout)` before it is not counted (Python calls fileno on
    /// the three streams before its first `fopen`). Outside the lock, as
    /// every STDIO wrapper sets it.
    begun: AtomicBool,
}

pub static STDIO: Stdio = Stdio::new();

impl Default for Stdio {
    fn default() -> Stdio {
        Stdio::new()
    }
}

impl Stdio {
    /// A module with no records, not yet attached: the runtime's static,
    /// or a test's own.
    pub const fn new() -> Stdio {
        Stdio {
            state: Lock::new(State {
                set: RecordSet::new(ID),
                streams: StreamMap::new(),
                std_streams: [0; 3],
                pending_std: [false; 3],
                std_unplaced: false,
            }),
            names: NameFilter::new(ID),
            begun: AtomicBool::new(false),
        }
    }
}

impl State {
    /// fopen/freopen/fdopen and the standard streams at start-up.
    fn open(&mut self, stream: usize, id: u64, name: &[u8], fdopen: bool, tm1: Tick, tm2: Tick) {
        self.settle_std(stream);
        let Some(i) = self.set.find_or_create(id, name) else { return };
        let (w, rt) = self.set.both(i);
        // fdopen continues at the record's offset; fopen starts at 0.
        if !fdopen {
            rt.offset = 0;
        }
        add(w, c::word(c::OPENS), 1);
        if fdopen {
            add(w, c::word(c::FDOPENS), 1);
        }
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
        self.streams.insert(stream, i as u32);
        let (word, bit) = filter_bit(stream);
        MAYBE_TRACKED[word].fetch_or(bit, Ordering::Relaxed);
    }

    /// The standard streams get their records at the program's first STDIO
    /// call (Darshan's set-up), as if made now: their names are registered
    /// now, so that the name table keeps its order, and the filter lets
    /// their calls through. Each takes a place now, in turn (stdin, stdout,
    /// stderr), as Darshan's records made at set-up do, unless its name is
    /// left out or MAX_RECORDS left no place for it.
    fn register_std(&mut self, env: &Env) {
        let mut places = self.set.capacity();
        self.std_unplaced = false;
        for (k, name) in STD_NAMES.iter().enumerate() {
            let stream = self.std_streams[k];
            let wanted = stream != 0 && !self.set.excluded(name);
            self.std_unplaced |= wanted && places == 0;
            self.pending_std[k] =
                wanted && places > 0 && env.ledger.register_name(ID, darshan_log::record_id(name), name);
            places -= usize::from(self.pending_std[k]);
            if self.pending_std[k] {
                let (word, bit) = filter_bit(stream);
                MAYBE_TRACKED[word].fetch_or(bit, Ordering::Relaxed);
            }
        }
        let early = self.pending_std.iter().filter(|&&p| p).count();
        if early > 0 {
            self.set.expect_early_records(early);
        }
    }

    /// The record index of `stream`, making a standard stream's record if
    /// it is still to be made (opened at time 0, as at Darshan's set-up).
    fn stream_record(&mut self, stream: usize) -> Option<u32> {
        if let Some(i) = self.streams.get(stream) {
            return Some(i);
        }
        let k = self.pending(stream)?;
        self.open(stream, darshan_log::names::std_stream_ids()[k], STD_NAMES[k], false, 0, 0);
        self.streams.get(stream)
    }

    /// Which standard stream `stream` is, if its record is still to be made.
    fn pending(&self, stream: usize) -> Option<usize> {
        (0..3).find(|&k| self.pending_std[k] && self.std_streams[k] == stream)
    }

    /// The standard streams' records Darshan makes when it sets its STDIO
    /// module up, at the program's first STDIO call: opened once, at time
    /// 0. From then on a crash-safe file holds them, used or not, as
    /// Darshan's does (a killed process's file had none for a stream it
    /// had not used yet); the log leaves the unused out ([`Stdio::output`]),
    /// and an MPI job's ranks agree on them first (`held_ids`). They wait
    /// for the crash-safe file as the streams' records made at first use
    /// did.
    fn make_std_records(&mut self) {
        for k in 0..3 {
            if self.pending_std[k] {
                self.stream_record(self.std_streams[k]);
            }
        }
    }

    /// A standard stream closed or reopened before its first use gets no
    /// record of its own from now on (made at set-up, it would have had
    /// neither reads nor writes, and been left out).
    fn settle_std(&mut self, stream: usize) {
        for k in 0..3 {
            if self.std_streams[k] == stream {
                self.pending_std[k] = false;
            }
        }
    }
}

impl Stdio {
    fn lock(&self) -> LockGuard<'_, State> {
        self.state.lock()
    }

    /// A STDIO call of the program's (where Darshan's wrapper of that call
    /// sets its module up: every one, fdopen of a tracked descriptor and a
    /// successful seek): the standard streams are tracked from now on.
    /// True for the program's first one, which the caller follows with
    /// [`Stdio::on_first_call`] (inside the runtime's guard).
    #[inline]
    pub fn begin(&self) -> bool {
        !self.begun.load(Ordering::Relaxed) && !self.begun.swap(true, Ordering::Relaxed)
    }

    /// The program's first STDIO call: Darshan's set-up, run then, makes
    /// the standard streams' records and marks the module partial when one
    /// found no place, in the crash-safe file's header too, so a process
    /// killed after it says both (they were made at first use and marked
    /// at shutdown only, and a killed process's file had no record of an
    /// unused stream and said the module was whole).
    pub fn on_first_call(&self) {
        let mut st = self.lock();
        st.make_std_records();
        if st.std_unplaced {
            st.set.mark_partial();
        }
    }

    /// The flag [`Stdio::begin`] sets, for the C shim's printf and scanf
    /// wrappers, which read it and call back for the first call.
    pub fn begun_flag(&self) -> &AtomicBool {
        &self.begun
    }

    /// The `FILE*` values of stdin, stdout and stderr, given at start-up
    /// before `attach`.
    pub fn set_std_streams(&self, s: [usize; 3]) {
        self.lock().std_streams = s;
    }

    /// fopen/fopen64/freopen succeeded; `name` is the cleaned path.
    pub fn on_open(&self, stream: usize, name: &[u8], tm1: Tick, tm2: Tick) {
        if self.names.refuses(name) {
            return;
        }
        let id = darshan_log::record_id(name);
        self.lock().open(stream, id, name, false, tm1, tm2);
    }

    /// fdopen succeeded on a descriptor whose record is `id` / `name`.
    pub fn on_fdopen(&self, stream: usize, id: u64, name: &[u8], tm1: Tick, tm2: Tick) {
        self.lock().open(stream, id, name, true, tm1, tm2);
    }

    pub fn on_close(&self, stream: usize, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        st.settle_std(stream);
        let Some(i) = st.streams.remove(stream) else { return };
        if !st.set.live(i as usize) {
            return;
        }
        let (w, rt) = st.set.both(i as usize);
        stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
    }

    pub fn on_read(&self, stream: usize, bytes: impl Into<Moved>, tm1: Tick, tm2: Tick) {
        self.data(stream, Access::Read, bytes.into(), tm1, tm2);
    }

    /// A write of `bytes`; `flush` for fflush (a 0-byte write counted in
    /// FLUSHES instead of WRITES).
    pub fn on_write(&self, stream: usize, bytes: impl Into<Moved>, flush: bool, tm1: Tick, tm2: Tick) {
        self.data(stream, if flush { Access::Flush } else { Access::Write }, bytes.into(), tm1, tm2);
    }

    /// A read or write at the record's tracked offset (docs/counter-rules.md §4).
    #[inline]
    fn data(&self, stream: usize, kind: Access, moved: Moved, tm1: Tick, tm2: Tick) {
        let (bytes, unsigned) = moved.parts();
        let mut st = self.lock();
        let Some(i) = st.stream_record(stream) else { return };
        if !st.set.live(i as usize) {
            return;
        }
        let (w, rt) = st.set.both(i as usize);
        let (max_byte, total, count, start, end, time, last_end) = match kind {
            Access::Read => (
                c::MAX_BYTE_READ,
                c::BYTES_READ,
                c::READS,
                c::F_READ_START_TIMESTAMP,
                c::F_READ_END_TIMESTAMP,
                c::F_READ_TIME,
                &mut rt.t.read,
            ),
            Access::Write | Access::Flush => (
                c::MAX_BYTE_WRITTEN,
                c::BYTES_WRITTEN,
                if kind == Access::Flush { c::FLUSHES } else { c::WRITES },
                c::F_WRITE_START_TIMESTAMP,
                c::F_WRITE_END_TIMESTAMP,
                c::F_WRITE_TIME,
                &mut rt.t.write,
            ),
        };
        let this = rt.offset;
        rt.offset = this + bytes;
        if raises(get(w, c::word(max_byte)), this + bytes - 1, unsigned) {
            w[c::word(max_byte)] = (this + bytes - 1) as u64;
        }
        add(w, c::word(total), bytes);
        add(w, c::word(count), 1);
        stamp(w, c::fword(start), c::fword(end), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(time), tm1, tm2, last_end);
        st.set.heat_add(kind != Access::Read, bytes, tm1, tm2);
    }

    /// fseek/fseeko/fsetpos/rewind succeeded; `pos` is the new position
    /// (ftell after the call; 0 for rewind).
    pub fn on_seek(&self, stream: usize, pos: i64, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.stream_record(stream) else { return };
        if !st.set.live(i as usize) {
            return;
        }
        let (w, rt) = st.set.both(i as usize);
        rt.offset = pos;
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
        add(w, c::word(c::SEEKS), 1);
    }

    /// ungetc: the tracked offset moves back one byte.
    pub fn on_unget(&self, stream: usize) {
        let mut st = self.lock();
        let Some(i) = st.stream_record(stream) else { return };
        if st.set.live(i as usize) {
            let (_, rt) = st.set.both(i as usize);
            rt.offset = (rt.offset - 1).max(0);
        }
    }

    /// The record id of a tracked stream (fileno).
    pub fn id_of_stream(&self, stream: usize) -> Option<u64> {
        let mut st = self.lock();
        if let Some(i) = st.streams.get(stream) {
            return Some(st.set.record(i as usize)[0]);
        }
        // A standard stream not used yet: its id, without making its record
        // (fileno(stdin) alone leaves none in the log); none before the
        // program's first STDIO call.
        if !self.begun.load(Ordering::Relaxed) {
            return None;
        }
        st.pending(stream).map(|k| darshan_log::names::std_stream_ids()[k])
    }
}

/// Every fcounter but the byte variance holds clock ticks until shutdown.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS)
    .ticks(c::FCOUNTERS_AT..c::fword(c::F_VARIANCE_RANK_BYTES))
    .reduced_by(&reduce::RULES);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for Stdio {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.state)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        self.names.set(env.config, env.ledger);
        st.set.attach(slice, env);
        st.register_std(env);
    }

    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut st = self.lock();
        let (from, to) = SPEC.tick_words;
        st.set.finalize(ctx, from..to);
    }

    /// Every record, the unused standard streams' among them: Darshan's
    /// ranks agree on the records they share before its STDIO output drops
    /// those.
    fn held_ids(&self, f: &mut dyn FnMut(u64)) {
        self.lock().set.output_all(&mut |run: &[u64]| run.chunks_exact(SPEC.record_words).for_each(|rec| f(rec[0])));
    }

    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let std_ids = darshan_log::names::std_stream_ids();
        // Standard streams nobody read or wrote are left out (and their
        // names with them: the name table holds only records in the log);
        // the others come first, where they were when made at start-up.
        let unused = |w: &[u64]| std_ids.contains(&w[0]) && w[c::word(c::WRITES)] == 0 && w[c::word(c::READS)] == 0;
        self.lock().set.output_first(&std_ids, emit, |w| !unused(w));
    }

    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        st.streams.clear();
        // Darshan's child sets its modules up anew, STDIO at its first call.
        self.begun.store(false, Ordering::Relaxed);
        for w in &MAYBE_TRACKED {
            w.store(0, Ordering::Relaxed);
        }
        if let Some(env) = st.set.env().copied() {
            st.register_std(&env);
        }
    }
}
