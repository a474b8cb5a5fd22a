//! The HDF5 modules: H5F (record version 3), one record per file an
//! HDF5 library created or opened, and H5D (version 2, `dataset.rs`), one
//! per dataset, named `<file path>:<dataset path>` and linked to its
//! file's record by `file_rec_id`.
//!
//! Everything HDF5-specific that needs the library (the ids' names,
//! dataspaces, selections, property lists) is asked by the wrappers in
//! `ffi/src/hdf5_wrap.rs`, from the very library the program called,
//! outside this module's lock; the `on_*` functions here only count.
//! Open files and datasets are found again by their `hid_t`.
#![forbid(unsafe_code)]

pub mod dataset;
pub mod ids;
pub mod reduce;

use darshan_core::common::{add, stamp, timer_inc_no_overlap, NoOverlap, Tick};
use darshan_core::handles::HandleRecords;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::LockedState;
use darshan_core::{Module, ModuleSpec};
use darshan_log::counters::h5f::typed as c;
use darshan_log::modules::H5F as ID;

pub use dataset::{Selection, H5D};

/// Open files (hid_t) tracked at once.
const HANDLE_SLOTS: usize = 1024;

#[derive(Default)]
pub struct FileRt {
    last_meta_end: NoOverlap,
}

impl darshan_core::records::RecordRt for FileRt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        f(c::fword(c::F_META_TIME), &self.last_meta_end);
    }
}

/// H5F's records and its open files' handles.
pub type FileState = HandleRecords<FileRt>;

pub struct H5f {
    st: Lock<FileState>,
}

pub static H5F: H5f = H5f::new();

impl Default for H5f {
    fn default() -> Self {
        H5f::new()
    }
}

impl H5f {
    /// An empty, unattached instance: the process's is [`H5F`]; a test
    /// builds its own.
    pub const fn new() -> H5f {
        H5f { st: Lock::new(HandleRecords::new(ID, HANDLE_SLOTS)) }
    }

    fn lock(&self) -> LockGuard<'_, FileState> {
        self.st.lock()
    }

    /// H5Fcreate or H5Fopen of `name` (path cleaned, a `prefix:` removed)
    /// returned `hid`; `use_mpio`: its access property list uses the MPI-IO
    /// driver.
    pub fn on_open(&self, hid: i64, name: &[u8], use_mpio: bool, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut st = self.lock();
        let Some(i) = st.set.find_or_create(id, name) else { return };
        ids::ID_BITS.kept(hid, ids::Kind::File);
        st.open(hid as u64, i);
        let (w, rt) = st.set.both(i);
        // As Darshan: the last open says whether MPI-IO is used.
        w[c::word(c::USE_MPIIO)] = use_mpio as u64;
        add(w, c::word(c::OPENS), 1);
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.last_meta_end);
    }

    /// H5Fflush of an object in the file `file_hid`.
    pub fn on_flush(&self, file_hid: i64, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.handles.record(file_hid as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        add(w, c::word(c::FLUSHES), 1);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.last_meta_end);
    }

    pub fn on_close(&self, hid: i64, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.handles.close(hid as u64, &st.set) else { return };
        let (w, rt) = st.set.both(i);
        stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.last_meta_end);
    }
}

/// All five fcounters are times; shared records combine by FILE_RULES.
const SPEC: ModuleSpec =
    ModuleSpec::new(ID, c::RECORD_WORDS).ticks(c::FCOUNTERS_AT..c::RECORD_WORDS).reduced_by(&reduce::FILE_RULES);

/// Attach, finalize, reduce and fork through `HandleRecords` and the spec.
impl Module for H5f {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
}

#[cfg(test)]
mod tests;
