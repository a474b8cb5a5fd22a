//! What a handle opened to read hides: the log and where each module's
//! records are read from (crate::fd).

use darshan_log::autoperf::HeaderFirst;
use darshan_log::decode::ModuleReader;
use darshan_log::modules::{self, MAX_MODS};
use darshan_log::LogFile;

/// The region of the log darshan-util's one decompression stream read
/// last (nothing, at open).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Nothing,
    Job,
    Names,
    Module(usize),
}

/// What the handle hides: the log, and a reader of each module's region,
/// which decodes one record per call, as darshan-util's does: a reader of
/// the C API holds no more than a record of the log, whatever its size.
///
/// darshan-util reads every region through one stream, and where a call
/// starts is what callers rely on (PyDarshan reads a module's records
/// again after reading other regions): a module's records go on from
/// where the last call left them only when that call read the same module
/// and did not end it; otherwise they start again from the first. So the
/// call after the one that returned "no more records" returns the first
/// record again, and so does a call after one that read the job, the
/// names or another module. (darshan-util 3.5.0 does that only when the
/// region read before was read to its end: in the middle of one, its zlib
/// stream is left mid-stream, and every read after fails. Ours starts
/// the module again then too.)
pub struct State {
    // Declared before the log they read from: dropped before it.
    readers: Vec<Option<ModuleReader<'static>>>,
    // An AutoPerf module's region (APMPI, APXC), when install said it is
    // read (autoperf.rs), with the module's id.
    autoperf: Option<(usize, Box<HeaderFirst<'static>>)>,
    log: Box<LogFile>,
    last: Region,
    // The job region was read (darshan-util keeps the command line and
    // the mounts it holds from then on).
    job_read: bool,
}

impl State {
    pub(crate) fn new(log: LogFile) -> State {
        let readers = (0..MAX_MODS).map(|_| None).collect();
        State { readers, autoperf: None, log: Box::new(log), last: Region::Nothing, job_read: false }
    }

    pub fn log(&self) -> &LogFile {
        &self.log
    }

    /// The job region is read (`darshan_log_get_job`).
    pub fn read_job(&mut self) {
        self.last = Region::Job;
        self.job_read = true;
    }

    /// The command line or the mounts are asked for: darshan-util reads
    /// the job region for them once.
    pub fn read_exe_and_mounts(&mut self) {
        if !self.job_read {
            self.read_job();
        }
    }

    /// The name records are read (none, when the log has no name region).
    pub fn read_names(&mut self) {
        if self.log.header.name_map.len > 0 {
            self.last = Region::Names;
        }
    }

    /// Module `id`'s reader: where the last call left it, or at its first
    /// record (see [`State`]). A module the log has no region of reads
    /// nothing, and leaves the last region as it was.
    pub fn reader(&mut self, id: usize) -> darshan_log::Result<&mut ModuleReader<'static>> {
        if self.log.header.mod_map[id].len > 0 && modules::extension(id).is_none() {
            if self.last != Region::Module(id) {
                self.readers[id] = None;
            }
            self.last = Region::Module(id);
        }
        // SAFETY: the log is boxed, never moved out, replaced or mutated
        // while the State lives, and the readers are dropped before it
        // (field order): the reference outlives every use.
        let log: &'static LogFile = unsafe { &*std::ptr::from_ref::<LogFile>(self.log.as_ref()) };
        let slot = &mut self.readers[id];
        let reader = match slot.take() {
            Some(r) => r,
            None => log.module_reader(id)?,
        };
        Ok(slot.insert(reader))
    }

    /// AutoPerf's module `m`'s reader, as [`State::reader`]'s: where the
    /// last call left it, or at the header.
    pub fn autoperf_reader(&mut self, m: usize) -> darshan_log::Result<&mut HeaderFirst<'static>> {
        if self.log.header.mod_map[m].len > 0 {
            if self.last != Region::Module(m) {
                self.autoperf = None;
            }
            self.last = Region::Module(m);
        }
        // SAFETY: as in `reader`: the boxed log outlives the reader, which
        // is dropped before it (field order).
        let log: &'static LogFile = unsafe { &*std::ptr::from_ref::<LogFile>(self.log.as_ref()) };
        let reader = match self.autoperf.take() {
            Some((id, r)) if id == m => r,
            _ => Box::new(HeaderFirst::of(log, m)?),
        };
        Ok(&mut self.autoperf.insert((m, reader)).1)
    }

    /// The AutoPerf module's last call found no more records: the next
    /// starts at the header.
    pub fn autoperf_ended(&mut self) {
        self.autoperf = None;
    }

    /// Module `id`'s last call found no more records: the next starts at
    /// the first.
    pub fn ended(&mut self, id: usize) {
        self.readers[id] = None;
    }
}
