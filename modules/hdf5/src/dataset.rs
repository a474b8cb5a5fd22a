//! The H5D module: one record per dataset, as darshan-hdf5.c counts
//! them. The wrappers hand over what they asked the HDF5 library (the
//! record name, dataspace, datatype size, chunking, the file selection of
//! each access); this file only counts.

use darshan_core::common::{add, stamp, timer_inc_no_overlap, NoOverlap, Tick};
use darshan_core::dataset_io::{self, IoLayout, IoState};
use darshan_core::handles::HandleRecords;
use darshan_core::records::Records;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{LockedState, ModuleState};
use darshan_core::{Module, ModuleSpec};
use darshan_log::counters::h5d::typed as c;
use darshan_log::modules::H5D as ID;

use darshan_core::access_tuples::{AccessTuples, TUPLE};

/// Open datasets (hid_t) tracked at once.
const HANDLE_SLOTS: usize = 4096;
/// Dimensions Darshan keeps (H5D_MAX_NDIMS).
pub const MAX_NDIMS: usize = c::MAX_NDIMS;

/// What a dataset open tells the record.
pub struct OpenInfo {
    /// H5Dcreate1 / H5Dopen1.
    pub deprecated: bool,
    pub ndims: i64,
    pub npoints: i64,
    pub layout: Layout,
    /// Record id of the file's H5F record (0 if the name was too long).
    pub file_rec_id: u64,
    /// Where the layout may be kept for the next open of the same
    /// dataset: the wrappers' epoch and the dataset's own file and path
    /// (hashed) when it was asked for; None: not kept.
    pub keep: Option<LayoutKey>,
}

/// What a dataset keeps for as long as it exists: its datatype's size
/// and its chunk sizes (when chunked).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Layout {
    pub type_size: i64,
    pub chunk: Option<Chunk>,
}

/// A chunked layout's chunk sizes, D1 the fastest-varying dimension, as
/// many as the chunk has dimensions (at most MAX_NDIMS). Darshan writes
/// only those: the record's other CHUNK_SIZE_D* keep what an earlier
/// dataset of the same name gave them (a file made again with a 3-D
/// dataset of that name before a 2-D one keeps its D3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Chunk {
    pub dims: [i64; MAX_NDIMS],
    pub rank: usize,
}

impl Chunk {
    /// The chunk sizes given.
    pub fn given(&self) -> &[i64] {
        &self.dims[..self.rank.min(MAX_NDIMS)]
    }
}

/// Which dataset a kept layout is of, and until when it holds: two
/// datasets can share a record (Darshan names `/g` + `d` and `/` + `gd`
/// alike), so the dataset's own file and path are part of it; the epoch
/// is moved by anything that could put another dataset at that path
/// (ffi/src/hdf5_layout.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutKey {
    pub epoch: u64,
    pub object: u64,
}

/// The file selection of one H5Dread / H5Dwrite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    /// H5S_ALL: the whole dataspace.
    All,
    /// Points (H5S_SEL_POINTS) of this many elements.
    Points(i64),
    /// A regular hyperslab: npoints, then count × block and stride per
    /// dimension (D1 the fastest-varying).
    Regular { npoints: i64, lengths: [i64; MAX_NDIMS], strides: [i64; MAX_NDIMS] },
    /// An irregular hyperslab of this many elements.
    Irregular(i64),
    /// Any other selection (none, all via a dataspace id) of this many.
    Other(i64),
    /// Direct chunk I/O (H5Dread_chunk / H5Dwrite_chunk, beyond Darshan):
    /// this many bytes as stored, after filters; no selection.
    Chunk(i64),
}

impl Selection {
    /// A regular hyperslab of `npoints` points, from HDF5's stride, count
    /// and block arrays (at least MAX_NDIMS values each, zeros past the
    /// rank) as Darshan reads them: dimensions 5..1 of 5-element arrays,
    /// so D1 is the fifth dimension (0 for a 2-D dataset), kept as it is.
    pub fn regular(npoints: i64, stride: &[u64], count: &[u64], block: &[u64]) -> Selection {
        let dim = |i: usize| MAX_NDIMS - i - 1;
        Selection::Regular {
            npoints,
            lengths: std::array::from_fn(|i| count[dim(i)].wrapping_mul(block[dim(i)]) as i64),
            strides: std::array::from_fn(|i| stride[dim(i)] as i64),
        }
    }
}

/// Where H5D keeps what every read and write updates.
const IO: IoLayout = darshan_core::dataset_io_layout!(c);

#[derive(Default)]
pub struct Rt {
    io: IoState,
    /// The layout its last open found, and of which dataset.
    layout: Option<(LayoutKey, Layout)>,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        self.io.timers(&IO, f);
    }
}

pub struct State {
    recs: HandleRecords<Rt>,
    tuples: AccessTuples,
}

pub struct H5d {
    st: Lock<State>,
}

pub static H5D: H5d = H5d::new();

impl Default for H5d {
    fn default() -> Self {
        H5d::new()
    }
}

impl H5d {
    /// An empty, unattached instance: the process's is [`H5D`]; a test
    /// builds its own.
    pub const fn new() -> H5d {
        H5d { st: Lock::new(State { recs: HandleRecords::new(ID, HANDLE_SLOTS), tuples: AccessTuples::none() }) }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// A dataset was created or opened as `hid`; `name` is its record name
    /// (`<file path>:<dataset path>`, built as Darshan builds it).
    pub fn on_open(&self, hid: i64, name: &[u8], info: &OpenInfo, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.recs.set.find_or_create(id, name) else { return };
        crate::ids::ID_BITS.kept(hid, crate::ids::Kind::Dataset);
        st.recs.open(hid as u64, i);
        let (w, rt) = st.recs.set.both(i);
        add(w, c::word(c::OPENS), 1);
        w[c::word(c::USE_DEPRECATED)] = info.deprecated as u64;
        stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.io.t.meta);
        w[c::word(c::DATASPACE_NDIMS)] = info.ndims as u64;
        w[c::word(c::DATASPACE_NPOINTS)] = info.npoints as u64;
        // As Darshan: chunk sizes only from a chunked layout (a dataset
        // made again unchunked under the name leaves the last ones).
        if let Some(chunk) = info.layout.chunk {
            for (d, &v) in chunk.given().iter().enumerate() {
                w[c::word(c::CHUNK_SIZE_D1) + d] = v as u64;
            }
        }
        w[c::word(c::DATATYPE_SIZE)] = info.layout.type_size as u64;
        w[2] = info.file_rec_id;
        rt.layout = info.keep.map(|k| (k, info.layout));
    }

    /// The layout the last open of record `name` found, if it was of the
    /// dataset `key` names and still holds.
    pub fn kept_layout(&self, name: &[u8], key: LayoutKey) -> Option<Layout> {
        let mut st = self.lock();
        let i = st.recs.set.find(darshan_log::record_id(name))?;
        let (_, rt) = st.recs.set.both(i);
        rt.layout.filter(|(k, _)| *k == key).map(|(_, l)| l)
    }

    /// A successful H5Dread or H5Dwrite on `hid`; `collective`: its transfer
    /// property list asked for collective MPI-IO.
    pub fn on_io(&self, hid: i64, write: bool, sel: Selection, collective: bool, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.recs.handles.record(hid as u64, &st.recs.set) else { return };
        let (w, rt) = st.recs.set.both(i);
        let mut tuple = [0i64; TUPLE];
        let npoints = match sel {
            Selection::All => w[c::word(c::DATASPACE_NPOINTS)] as i64,
            Selection::Points(n) => {
                add(w, c::word(c::POINT_SELECTS), 1);
                n
            }
            Selection::Regular { npoints, lengths, strides } => {
                add(w, c::word(c::REGULAR_HYPERSLAB_SELECTS), 1);
                tuple[1..=MAX_NDIMS].copy_from_slice(&lengths);
                tuple[1 + MAX_NDIMS..].copy_from_slice(&strides);
                npoints
            }
            Selection::Irregular(n) => {
                add(w, c::word(c::IRREGULAR_HYPERSLAB_SELECTS), 1);
                n
            }
            Selection::Other(n) => n,
            Selection::Chunk(_) => 0,
        };
        let bytes = match sel {
            Selection::Chunk(stored) => stored,
            _ => npoints.wrapping_mul(w[c::word(c::DATATYPE_SIZE)] as i64),
        };
        tuple[0] = bytes;
        add(w, c::word(if write { c::WRITES } else { c::READS }), 1);
        if collective {
            w[c::word(c::USE_MPIIO_COLLECTIVE)] = 1;
        }
        dataset_io::count(&IO, &mut st.tuples, i, w, &mut rt.io, write, bytes, &tuple, tm1, tm2);
    }

    pub fn on_flush(&self, hid: i64, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        let Some(i) = st.recs.handles.record(hid as u64, &st.recs.set) else { return };
        let (w, rt) = st.recs.set.both(i);
        add(w, c::word(c::FLUSHES), 1);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.io.t.meta);
    }

    /// H5Dclose, or H5Oclose of an id this module knows (any other object
    /// is not found and not counted). `still_open`: the id outlived the
    /// call, another reference holding it (libnetcdf takes one with
    /// H5Iinc_ref for every dataset of a file it opens, then H5Oclose's
    /// the one H5Oopen gave): the close is stamped as Darshan stamps it,
    /// but the id still finds its record. Darshan forgets it there, and
    /// loses every later read and write of a NetCDF-4 file opened again
    /// (docs/runtime.md).
    pub fn on_close(&self, hid: i64, still_open: bool, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let found = if still_open {
            st.recs.handles.record(hid as u64, &st.recs.set)
        } else {
            st.recs.handles.close(hid as u64, &st.recs.set)
        };
        let Some(i) = found else { return };
        let (w, rt) = st.recs.set.both(i);
        stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
        timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.io.t.meta);
    }
}

/// Every fcounter but the byte variance holds clock ticks.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS)
    .ticks(c::FCOUNTERS_AT..c::fword(c::F_VARIANCE_RANK_BYTES))
    .reduced_by(&crate::reduce::DATASET_RULES);

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
    }
}

impl Module for H5d {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
}
