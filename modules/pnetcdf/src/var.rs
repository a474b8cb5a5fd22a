//! The PNETCDF_VAR module: one record per variable, as darshan-pnetcdf.c
//! and its generated API wrappers count them. The wrappers hand over what
//! they asked the library (the record name, the variable's shape) and,
//! for each put or get, measure its size from their own arguments against
//! the shape kept here (`shape`, then `Access`); this file only counts.
//!
//! Variables are found by their varid alone, as in Darshan (its
//! `varid_hash` is keyed by the varid, never by the ncid): with two files
//! open, an access to varid 3 of the one counts for whichever file's
//! varid 3 Darshan's hash table finds, mostly the one defined or looked up
//! last (varid_chains.rs says when not). Matching Darshan's logs wins over
//! attributing that rare case better.

use darshan_core::access_tuples::{AccessTuples, TUPLE};
use darshan_core::common::{add, stamp, timer_inc_no_overlap, NoOverlap, Tick};
use darshan_core::dataset_io::{self, IoLayout, IoState};
use darshan_core::handles::HandleRecords;
use darshan_core::records::Records;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{LockedState, ModuleState};
use darshan_core::{Module, ModuleSpec};
use darshan_log::counters::pnetcdf_var::typed as c;
use darshan_log::modules::PNETCDF_VAR as ID;

use crate::varid_chains::VaridChains;

/// Variable ids tracked at once.
const HANDLE_SLOTS: usize = 4096;
/// Dimensions Darshan keeps (PNETCDF_VAR_MAX_NDIMS).
pub const MAX_NDIMS: usize = c::MAX_NDIMS;

/// The family of a put or get call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Put,
    Get,
    Iput,
    Iget,
    Bput,
}

/// The access kind: `ncmpi_<op>_var<kind>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Var,
    Var1,
    Vara,
    Vars,
    Varm,
    Varn,
    /// put/get only.
    Vard,
}

/// One wrapped put/get entry point (any of its 13 type variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Api {
    pub op: Op,
    pub kind: Kind,
    /// The `_all` form (blocking put/get only).
    pub collective: bool,
}

impl Api {
    fn reads(&self) -> bool {
        matches!(self.op, Op::Get | Op::Iget)
    }

    /// The per-API counter, PNETCDF_VAR_<OP>_VAR<KIND>.
    fn counter(&self) -> c::Counter {
        let base = match self.op {
            Op::Put => c::PUT_VAR,
            Op::Get => c::GET_VAR,
            Op::Iput => c::IPUT_VAR,
            Op::Iget => c::IGET_VAR,
            Op::Bput => c::BPUT_VAR,
        };
        base.plus(self.kind as usize)
    }
}

/// What a variable's definition or lookup tells its record.
#[derive(Clone, Copy, Debug, Default)]
pub struct VarInfo {
    pub ndims: i64,
    /// The product of the dimension lengths, the record dimension left out.
    pub npoints: i64,
    /// 1, 2, 4 or 8 bytes, from the external type.
    pub type_size: i64,
    /// The first dimension is the file's unlimited one.
    pub is_record: bool,
    /// The file's unlimited dimension at that time, -1 if none.
    pub unlimdimid: i32,
    /// Record id of the file's record (its cleaned path).
    pub file_rec_id: u64,
}

/// What an access is measured against: the variable as last opened.
#[derive(Clone, Copy, Debug)]
pub struct VarShape {
    pub ndims: i64,
    pub npoints: i64,
    pub type_size: i64,
    pub unlimdimid: i32,
}

/// One put or get as Darshan measures it: its size in bytes, and the
/// common-access tuple (size, the last 5 counts and strides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub bytes: i64,
    pub tuple: [i64; TUPLE],
}

/// Where PNETCDF_VAR keeps what every read and write updates (as H5D).
const IO: IoLayout = darshan_core::dataset_io_layout!(c);

#[derive(Default)]
pub struct Rt {
    io: IoState,
    unlimdimid: i32,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        self.io.timers(&IO, f);
    }
}

pub struct State {
    recs: HandleRecords<Rt>,
    tuples: AccessTuples,
    chains: VaridChains,
}

pub struct PnetcdfVar {
    st: Lock<State>,
}

pub static PNETCDF_VAR: PnetcdfVar = PnetcdfVar::new();

impl Default for PnetcdfVar {
    fn default() -> Self {
        PnetcdfVar::new()
    }
}

impl PnetcdfVar {
    /// An empty, unattached instance: the process's is [`PNETCDF_VAR`]; a test
    /// builds its own.
    pub const fn new() -> PnetcdfVar {
        let recs = HandleRecords::new(ID, HANDLE_SLOTS);
        PnetcdfVar { st: Lock::new(State { recs, tuples: AccessTuples::none(), chains: VaridChains::new() }) }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// `ncmpi_def_var` or `ncmpi_inq_varid` returned `varid` for the
    /// variable named `name` (`<file path>:<variable name>`).
    pub fn on_open(&self, varid: i32, name: &[u8], info: &VarInfo, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.recs.set.find_or_create(id, name) else { return };
        let (w, rt) = st.recs.set.both(i);
        add(w, c::word(c::OPENS), 1);
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.io.t.meta);
        rt.unlimdimid = info.unlimdimid;
        // Set, never cleared, as in Darshan.
        if info.is_record {
            w[c::word(c::IS_RECORD_VAR)] = 1;
        }
        w[c::word(c::NPOINTS)] = info.npoints as u64;
        w[c::word(c::NDIMS)] = info.ndims as u64;
        w[c::word(c::DATATYPE_SIZE)] = info.type_size as u64;
        w[2] = info.file_rec_id;
        let recs = &mut st.recs;
        st.chains.add(varid, i, &mut |varid, i| recs.open(varid as u64, i));
    }

    /// The shape of the variable `varid` names, as last opened, to size
    /// an access against (the wrappers measure it outside this lock).
    pub fn shape(&self, varid: i32) -> Option<VarShape> {
        let st = self.lock();
        let i = st.recs.handles.record(varid as u64, &st.recs.set)?;
        let w = st.recs.set.record(i);
        Some(VarShape {
            ndims: w[c::word(c::NDIMS)] as i64,
            npoints: w[c::word(c::NPOINTS)] as i64,
            type_size: w[c::word(c::DATATYPE_SIZE)] as i64,
            unlimdimid: st.recs.set.rt[i].unlimdimid,
        })
    }

    /// A successful put or get of `api` on `varid`, measured as `access`.
    pub fn on_access(&self, varid: i32, api: Api, access: &Access, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.recs.handles.record(varid as u64, &st.recs.set) else { return };
        let (w, rt) = st.recs.set.both(i);
        add(w, c::word(api.counter()), 1);
        let write = !api.reads();
        dataset_io::count(&IO, &mut st.tuples, i, w, &mut rt.io, write, access.bytes, &access.tuple, tm1, tm2);
        let mode = match (api.op, api.collective) {
            (Op::Get, false) => c::INDEP_READS,
            (Op::Get, true) => c::COLL_READS,
            (Op::Put, false) => c::INDEP_WRITES,
            (Op::Put, true) => c::COLL_WRITES,
            (Op::Iget, _) => c::NB_READS,
            (Op::Iput | Op::Bput, _) => c::NB_WRITES,
        };
        add(w, c::word(mode), 1);
    }
}

/// Every fcounter but the byte variance holds clock ticks.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS)
    .ticks(c::FCOUNTERS_AT..c::fword(c::F_VARIANCE_RANK_BYTES))
    .reduced_by(&crate::reduce::VAR_RULES);

/// Finalize, reduce and fork through `HandleRecords` and the spec; attach
/// also sizes the access tuples.
/// The records, and the access tuples beside them, sized at attach.
impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        self.recs.records()
    }
    fn attach_own(&mut self, capacity: usize) {
        self.recs.attach_own(capacity);
        self.tuples = AccessTuples::for_records(capacity);
    }
    fn fork_own(&mut self) {
        self.recs.fork_own();
        self.chains.clear();
    }
}

impl Module for PnetcdfVar {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
}
