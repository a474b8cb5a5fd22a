//! The PNETCDF_FILE module: creates, opens, redefs, syncs, waits and the
//! bytes PnetCDF says it moved, per file, as darshan-pnetcdf.c counts them.

use darshan_core::common::{add, stamp, timer_inc_no_overlap, NoOverlap, Tick};
use darshan_core::handles::HandleRecords;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::LockedState;
use darshan_core::{Module, ModuleSpec};
use darshan_log::counters::pnetcdf_file::typed as c;
use darshan_log::modules::PNETCDF_FILE as ID;

/// Open files (ncids) tracked at once.
const HANDLE_SLOTS: usize = 1024;

/// A metadata call on an open file: all add to the metadata time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meta {
    Enddef,
    Redef,
    Sync,
}

#[derive(Default)]
pub struct Rt {
    meta: NoOverlap,
    wait: NoOverlap,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        f(c::fword(c::F_META_TIME), &self.meta);
        f(c::fword(c::F_WAIT_TIME), &self.wait);
    }
}

/// The files' records and their open handles (ncid).
pub type State = HandleRecords<Rt>;

pub struct PnetcdfFile {
    st: Lock<State>,
}

pub static PNETCDF_FILE: PnetcdfFile = PnetcdfFile::new();

impl Default for PnetcdfFile {
    fn default() -> Self {
        PnetcdfFile::new()
    }
}

impl PnetcdfFile {
    /// An empty, unattached instance: the process's is [`PNETCDF_FILE`]; a test
    /// builds its own.
    pub const fn new() -> PnetcdfFile {
        PnetcdfFile { st: Lock::new(HandleRecords::new(ID, HANDLE_SLOTS)) }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// `ncmpi_create` (`create`) or `ncmpi_open` of `name` (a `prefix:`
    /// removed, cleaned) returned `ncid`.
    pub fn on_open(&self, ncid: i32, name: &[u8], create: bool, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.set.find_or_create(id, name) else { return };
        let (w, rt) = st.set.both(i);
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        add(w, c::word(if create { c::CREATES } else { c::OPENS }), 1);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.meta);
        st.open(ncid as u64, i);
    }

    /// A successful `ncmpi_enddef`, `ncmpi_redef` or `ncmpi_sync`.
    pub fn on_meta(&self, ncid: i32, call: Meta, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(ncid as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        match call {
            Meta::Enddef => {}
            Meta::Redef => add(w, c::word(c::REDEFS), 1),
            Meta::Sync => add(w, c::word(c::SYNCS), 1),
        }
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.meta);
    }

    /// `ncmpi_wait` (independent) or `ncmpi_wait_all` (`collective`),
    /// successful (`ok`) or not: Darshan counts the failures too.
    pub fn on_wait(&self, ncid: i32, collective: bool, ok: bool, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(ncid as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        let k = match (ok, collective) {
            (false, _) => c::WAIT_FAILURES,
            (true, false) => c::INDEP_WAITS,
            (true, true) => c::COLL_WAITS,
        };
        add(w, c::word(k), 1);
        stamp(w, c::fword(c::F_WAIT_START_TIMESTAMP), c::fword(c::F_WAIT_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_WAIT_TIME), tm1, tm2, &mut rt.wait);
    }

    /// A successful `ncmpi_close`; `put_size`/`get_size`: what
    /// `ncmpi_inq_put_size`/`ncmpi_inq_get_size` said just before it (the
    /// bytes written and read since the open), -1 where they failed, which
    /// makes the counter -1 for good, as in Darshan.
    pub fn on_close(&self, ncid: i32, put_size: i64, get_size: i64, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.handles.close(ncid as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        for (k, size) in [(c::BYTES_WRITTEN, put_size), (c::BYTES_READ, get_size)] {
            if size >= 0 && w[c::word(k)] as i64 >= 0 {
                add(w, c::word(k), size);
            } else {
                w[c::word(k)] = -1i64 as u64;
            }
        }
        stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.meta);
    }
}

/// All eight fcounters are times; shared records combine by FILE_RULES.
const SPEC: ModuleSpec =
    ModuleSpec::new(ID, c::RECORD_WORDS).ticks(c::FCOUNTERS_AT..c::RECORD_WORDS).reduced_by(&crate::reduce::FILE_RULES);

/// Attach, finalize, reduce and fork through `HandleRecords` and the spec.
impl Module for PnetcdfFile {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
}
