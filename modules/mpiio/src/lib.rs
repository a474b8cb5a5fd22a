//! The MPI-IO module (record version 3, docs/counter-rules.md §4): one record per
//! file name given to MPI_File_open, found again from the MPI_File handle
//! by the I/O calls. Access sizes are `count × MPI_Type_size(datatype)`,
//! as Darshan counts them (not the bytes actually moved); the POSIX
//! records of the same files come from the MPI library's own POSIX calls.
//!
//! The wrappers (ffi) take the clock and call one `on_*` method; each
//! takes this module's lock once. Handles are opaque `usize`s (a pointer
//! in Open MPI, an int in MPICH).
#![forbid(unsafe_code)]

pub mod reduce;
#[cfg(test)]
mod tests;

use darshan_core::common::{
    add, size_bucket, stamp, timer_inc_no_overlap, CommonPool, CommonVals, IoTimers, LastIo, NoOverlap, Tick,
};
use darshan_core::handles::HandleTable;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{LockedState, ModuleState};
use darshan_core::{Module, ModuleSpec};
use darshan_log::counters::mpiio::typed as c;
use darshan_log::modules::MPIIO as ID;

/// Open MPI_File handles tracked at once (open-addressing table).
const HANDLE_SLOTS: usize = 4096;

/// Which counter a read or write call increments.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Access {
    /// read, read_at, read_shared / write, write_at, write_shared
    Indep,
    /// *_all, *_at_all, *_ordered
    Coll,
    /// split collectives: *_begin
    Split,
    /// non-blocking: MPI_File_i*
    Nb,
}

#[derive(Default)]
pub struct Rt {
    last_io: LastIo,
    t: IoTimers,
    access: CommonVals,
    /// The file's DXT_MPIIO trace (darshan_dxt::Handle).
    dxt: darshan_dxt::Handle,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        self.t.each(f, c::fword(c::F_READ_TIME), c::fword(c::F_WRITE_TIME), c::fword(c::F_META_TIME));
    }
}

pub struct State {
    set: RecordSet<Rt>,
    /// MPI_File handle -> record index.
    handles: HandleTable,
    pool: CommonPool,
}

pub struct Mpiio {
    st: Lock<State>,
}

pub static MPIIO: Mpiio = Mpiio::new();

impl Default for Mpiio {
    fn default() -> Mpiio {
        Mpiio::new()
    }
}

impl Mpiio {
    /// A module with no records, not yet attached: the runtime's static,
    /// or a test's own.
    pub const fn new() -> Mpiio {
        Mpiio { st: Lock::new(State { set: RecordSet::new(ID), handles: HandleTable::new(), pool: CommonPool::new() }) }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// A successful MPI_File_open of `name` (prefix such as `ufs:` already
    /// stripped, path cleaned) by a communicator of `comm_size` ranks.
    #[allow(clippy::too_many_arguments)]
    pub fn on_open(&self, fh: usize, name: &[u8], amode: i64, comm_size: i64, info: bool, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.set.find_or_create(id, name) else { return };
        st.handles.open(fh as u64, i, &st.set);
        let (w, rt) = st.set.both(i);
        w[c::word(c::MODE)] = amode as u64;
        add(w, c::word(if comm_size == 1 { c::INDEP_OPENS } else { c::COLL_OPENS }), 1);
        if info {
            add(w, c::word(c::HINTS), 1);
        }
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
    }

    /// A successful read or write of `bytes` (count × type size) at byte
    /// `offset` of the file (-1 when not known: Open MPI, as in Darshan),
    /// which only DXT records.
    #[allow(clippy::too_many_arguments)]
    pub fn on_io(&self, fh: usize, write: bool, how: Access, bytes: i64, offset: i64, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.handles.record(fh as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        if rt.last_io.switches(write) {
            add(w, c::word(c::RW_SWITCHES), 1);
        }
        let (hist, total, max_time, max_size, start, end, last_end) = if write {
            let n = match how {
                Access::Indep => c::INDEP_WRITES,
                Access::Coll => c::COLL_WRITES,
                Access::Split => c::SPLIT_WRITES,
                Access::Nb => c::NB_WRITES,
            };
            add(w, c::word(n), 1);
            (
                c::SIZE_WRITE_AGG_0_100,
                c::BYTES_WRITTEN,
                c::F_MAX_WRITE_TIME,
                c::MAX_WRITE_TIME_SIZE,
                c::F_WRITE_START_TIMESTAMP,
                c::F_WRITE_END_TIMESTAMP,
                &mut rt.t.write,
            )
        } else {
            let n = match how {
                Access::Indep => c::INDEP_READS,
                Access::Coll => c::COLL_READS,
                Access::Split => c::SPLIT_READS,
                Access::Nb => c::NB_READS,
            };
            add(w, c::word(n), 1);
            (
                c::SIZE_READ_AGG_0_100,
                c::BYTES_READ,
                c::F_MAX_READ_TIME,
                c::MAX_READ_TIME_SIZE,
                c::F_READ_START_TIMESTAMP,
                c::F_READ_END_TIMESTAMP,
                &mut rt.t.read,
            )
        };
        add(w, c::word(hist.plus(size_bucket(bytes))), 1);
        add(w, c::word(total), bytes);
        rt.access.count(&mut st.pool, w, c::word(c::ACCESS1_ACCESS), c::word(c::ACCESS1_COUNT), bytes);
        stamp(w, c::fword(start), c::fword(end), tm1, tm2);
        // Times are ticks until finalize; the longest call keeps its size.
        if (tm2 - tm1) as u64 > w[c::fword(max_time)] {
            w[c::fword(max_time)] = (tm2 - tm1) as u64;
            w[c::word(max_size)] = bytes as u64;
        }
        timer_inc_no_overlap(w, c::fword(if write { c::F_WRITE_TIME } else { c::F_READ_TIME }), tm1, tm2, last_end);
        darshan_dxt::DXT_MPIIO.trace(&mut rt.dxt, w[0], write, offset, bytes, tm1, tm2);
        st.set.heat_add(write, bytes, tm1, tm2);
    }

    /// MPI_File_sync: counted, its time is write time.
    pub fn on_sync(&self, fh: usize, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(fh as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        add(w, c::word(c::SYNCS), 1);
        timer_inc_no_overlap(w, c::fword(c::F_WRITE_TIME), tm1, tm2, &mut rt.t.write);
    }

    /// MPI_File_set_view: VIEWS; with an info object also HINTS and (as
    /// in Darshan) only then META_TIME.
    pub fn on_set_view(&self, fh: usize, info: bool, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(fh as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        add(w, c::word(c::VIEWS), 1);
        if info {
            add(w, c::word(c::HINTS), 1);
            timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
        }
    }

    /// MPI_File_set_size, MPI_File_set_info: metadata time only (Darshan
    /// does not wrap them; their time belongs to the file nonetheless).
    pub fn on_meta(&self, fh: usize, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(fh as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
    }

    pub fn on_close(&self, fh: usize, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.handles.close(fh as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
    }
}

/// Every fcounter but the byte variance holds clock ticks until shutdown.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS)
    .mpi_only()
    .ticks(c::FCOUNTERS_AT..c::fword(c::F_VARIANCE_RANK_BYTES))
    .reduced_by(&reduce::RULES);

/// The records, and the file handles and common-access pool beside
/// them: sized for the records at attach, emptied in a forked child.
impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
    fn attach_own(&mut self, capacity: usize) {
        self.pool = CommonPool::with_capacity(2 * capacity);
        self.handles = HandleTable::for_records(capacity, HANDLE_SLOTS);
    }
    fn fork_own(&mut self) {
        self.pool.clear();
        self.handles.clear();
    }
}

impl Module for Mpiio {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
}
