//! The log handle (`darshan_fd`) and the calls on it that are not
//! records: open, close, the job, the command line, the mounts, the
//! modules, the names and the run time.

use std::ffi::{c_char, c_int, c_void, CStr};

use darshan_log::decode::ModuleReader;
use darshan_log::modules::{self, KNOWN_MODULE_COUNT, MAX_MODS, MODULE_C_NAMES};
use darshan_log::LogFile;

use crate::guarded;
use crate::mem::{c_string, copy_out};

/// darshan-util's `struct darshan_log_map`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct LogMap {
    pub off: u64,
    pub len: u64,
}

/// darshan-util's `struct darshan_fd_s`, field for field: C programs read
/// its public part (the version, maps, module versions), and PyDarshan
/// reads the version string at the handle's address.
#[repr(C)]
pub struct DarshanFd {
    pub version: [c_char; 8],
    pub swap_flag: c_int,
    pub partial_flag: u64,
    pub comp_type: c_int,
    pub job_map: LogMap,
    pub name_map: LogMap,
    pub mod_map: [LogMap; MAX_MODS],
    pub mod_ver: [u32; MAX_MODS],
    pub state: *mut Inner,
    pub first_heatmap_record_nbins: i64,
    pub first_heatmap_record_bin_width_seconds: f64,
}

/// What a handle holds: a log being read (`darshan_log_open`) or written
/// (`darshan_log_create`, crate::writer).
pub enum Inner {
    Read(State),
    Write(Box<crate::writer::Writing>),
}

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
    log: Box<LogFile>,
    last: Region,
    // The job region was read (darshan-util keeps the command line and
    // the mounts it holds from then on).
    job_read: bool,
}

impl State {
    fn new(log: LogFile) -> State {
        let readers = (0..MAX_MODS).map(|_| None).collect();
        State { readers, log: Box::new(log), last: Region::Nothing, job_read: false }
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

    /// Module `id`'s last call found no more records: the next starts at
    /// the first.
    pub fn ended(&mut self, id: usize) {
        self.readers[id] = None;
    }
}

/// darshan-util's `struct darshan_mnt_info`.
#[repr(C)]
pub struct MntInfo {
    pub mnt_type: [c_char; 3015],
    pub mnt_path: [c_char; 3015],
}

/// darshan-util's `struct darshan_mod_info`.
#[repr(C)]
pub struct ModInfo {
    pub name: *const c_char,
    pub len: c_int,
    pub ver: c_int,
    pub idx: c_int,
    pub partial_flag: c_int,
}

/// darshan-util's `struct darshan_name_record` (the name is the caller's
/// to free).
#[repr(C)]
pub struct NameRecord {
    pub id: u64,
    pub name: *mut c_char,
}

/// darshan-util's `struct darshan_job`.
#[repr(C)]
pub struct CJob {
    pub uid: i64,
    pub start_time_sec: i64,
    pub start_time_nsec: i64,
    pub end_time_sec: i64,
    pub end_time_nsec: i64,
    pub nprocs: i64,
    pub jobid: i64,
    pub metadata: [c_char; 1024],
}

/// The handle's reading state, if the handle is one of ours, opened to
/// read.
///
/// # Safety
/// `fd` is null or a handle `darshan_log_open` or `darshan_log_create`
/// returned and not yet closed.
pub unsafe fn state<'a>(fd: *mut DarshanFd) -> Option<&'a mut State> {
    // SAFETY: the caller's: a live handle, whose state is a live Box.
    match unsafe { inner(fd) } {
        Some(Inner::Read(st)) => Some(st),
        Some(Inner::Write(_)) => {
            eprintln!("Error: the Darshan log file handle was created for writing.");
            None
        }
        None => None,
    }
}

/// What the handle holds (one line on stderr for a null handle).
///
/// # Safety
/// As [`state`].
pub unsafe fn inner<'a>(fd: *mut DarshanFd) -> Option<&'a mut Inner> {
    if fd.is_null() {
        eprintln!("Error: invalid Darshan log file handle.");
        return None;
    }
    // SAFETY: the caller's: a live handle, whose state is a live Box.
    unsafe { (*fd).state.as_mut() }
}

/// The handle of a log, as C's reader fills it: the modules C Darshan
/// does not know of (ours, named by the extension trailer) are not in
/// its maps, since darshan-util never sees them.
fn handle_of(log: LogFile) -> DarshanFd {
    let h = &log.header;
    let mut version = [0 as c_char; 8];
    for (d, s) in version.iter_mut().zip(h.version.as_str().bytes().take(7)) {
        *d = s as c_char;
    }
    let map = |m: darshan_log::RegionMap| LogMap { off: m.off, len: m.len };
    let mut fd = DarshanFd {
        version,
        swap_flag: c_int::from(h.swapped),
        partial_flag: h.partial_flag,
        comp_type: c_int::from(h.compression.code()),
        job_map: map(h.job_map),
        name_map: map(h.name_map),
        mod_map: [LogMap::default(); MAX_MODS],
        mod_ver: [0; MAX_MODS],
        state: std::ptr::null_mut(),
        first_heatmap_record_nbins: 0,
        first_heatmap_record_bin_width_seconds: 0.0,
    };
    for id in (0..MAX_MODS).filter(|&id| modules::extension(id).is_none()) {
        fd.mod_map[id] = map(h.mod_map[id]);
        fd.mod_ver[id] = h.mod_ver[id];
    }
    fd.state = Box::into_raw(Box::new(Inner::Read(State::new(log))));
    fd
}

/// Open the log at `name`; null (and one line on stderr) when it cannot
/// be read.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_open(name: *const c_char) -> *mut DarshanFd {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller's: a C string.
    let path = unsafe { CStr::from_ptr(name) };
    let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()));
    guarded(std::ptr::null_mut(), || match LogFile::open(path) {
        Ok(log) => Box::into_raw(Box::new(handle_of(log))),
        Err(e) => {
            eprintln!("Error: darshan_log_open failed to open darshan log file {}: {e}.", path.display());
            std::ptr::null_mut()
        }
    })
}

/// Close a log: a log being written is finished and given its name
/// (crate::writer::Writing::close); the handle and everything it holds
/// are freed.
///
/// # Safety
/// `fd` is null or a handle `darshan_log_open` or `darshan_log_create`
/// returned and not yet closed.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_close(fd: *mut DarshanFd) {
    if fd.is_null() {
        eprintln!("Error: invalid Darshan log file handle.");
        return;
    }
    // SAFETY: the caller's: both were made by Box::into_raw in
    // darshan_log_open or darshan_log_create and are given back once.
    let (fd, inner) = unsafe {
        let fd = Box::from_raw(fd);
        let inner = (!fd.state.is_null()).then(|| Box::from_raw(fd.state));
        (fd, inner)
    };
    if let Some(Inner::Write(w)) = inner.map(|b| *b) {
        guarded((), || w.close(&fd));
    }
}

/// The job record; 0, or -1 when the handle is not one.
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `job` points to a `struct darshan_job`.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_job(fd: *mut DarshanFd, job: *mut CJob) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    if job.is_null() {
        return -1;
    }
    st.read_job();
    // The format crate's 3.41 job struct (what darshan-util's writer puts
    // in a file) is struct darshan_job; the command line follows it.
    let encoded = st.log().job.encode();
    let Some(head) = encoded.get(..std::mem::size_of::<CJob>()) else { return -1 };
    // SAFETY: the caller's: room for one struct darshan_job, apart from
    // `encoded`.
    unsafe { std::ptr::copy_nonoverlapping(head.as_ptr(), job.cast::<u8>(), head.len()) };
    0
}

/// The command line into `buf`, without a terminating NUL, as
/// darshan-util copies it (text before the first newline; nothing when
/// there is none). `buf` must hold the log's command line (at most 4,096
/// bytes: the job region's size).
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `buf` has room for the command line.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_exe(fd: *mut DarshanFd, buf: *mut c_char) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    st.read_exe_and_mounts();
    let exe = st.log().job.exe();
    if !buf.is_null() {
        // SAFETY: the caller's: room for the command line.
        unsafe { std::ptr::copy_nonoverlapping(exe.as_ptr(), buf.cast::<u8>(), exe.len()) };
    }
    0
}

/// The mount table, longest path first, in a `malloc`ed array the caller
/// frees (left as it was when there is no entry); -1 when a line is not
/// "type path".
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `out` and `count` are writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_mounts(
    fd: *mut DarshanFd,
    out: *mut *mut MntInfo,
    count: *mut c_int,
) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    st.read_exe_and_mounts();
    let mounts = match st.log().job.mounts() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("Error: {e}.");
            return -1;
        }
    };
    // SAFETY: the caller's: a writable int.
    unsafe { count.write(mounts.len() as c_int) };
    if mounts.is_empty() {
        return 0;
    }
    let mut bytes = Vec::with_capacity(mounts.len() * std::mem::size_of::<MntInfo>());
    for m in &mounts {
        for field in [&m.fs_type, &m.path] {
            let mut f = [0u8; 3015];
            let n = field.len().min(3014);
            f[..n].copy_from_slice(&field[..n]);
            bytes.extend_from_slice(&f);
        }
    }
    // SAFETY: the caller's: a writable pointer.
    unsafe { out.write(copy_out(&bytes).cast()) };
    0
}

/// The modules in the log (as darshan-util lists them: those it knows by
/// name, then any other id of its header, unnamed), in a `malloc`ed array
/// the caller frees; the names are the library's.
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `out` and `count` are writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_modules(fd: *mut DarshanFd, out: *mut *mut ModInfo, count: *mut c_int) {
    if fd.is_null() {
        eprintln!("Error: invalid Darshan log file handle.");
        // SAFETY: the caller's: a writable int.
        unsafe { count.write(0) };
        return;
    }
    // SAFETY: the caller's: a live handle.
    let fd = unsafe { &*fd };
    let mut mods = Vec::with_capacity(MAX_MODS);
    for id in (0..MAX_MODS).filter(|&id| fd.mod_map[id].len > 0) {
        let name = MODULE_C_NAMES.get(id).map_or(std::ptr::null(), |n| n.as_ptr());
        let known = id < KNOWN_MODULE_COUNT;
        let partial = if known { (fd.partial_flag & (1u64 << id)) as c_int } else { 0 };
        let ver = fd.mod_ver[id] as c_int;
        mods.push(ModInfo { name, len: fd.mod_map[id].len as c_int, ver, idx: id as c_int, partial_flag: partial });
    }
    // SAFETY: a fresh block for MAX_MODS entries, as darshan-util's; the
    // caller's pointers are writable.
    unsafe {
        let block = libc::malloc(MAX_MODS * std::mem::size_of::<ModInfo>()).cast::<ModInfo>();
        if !block.is_null() {
            std::ptr::copy_nonoverlapping(mods.as_ptr(), block, mods.len());
        }
        out.write(block);
        count.write(if block.is_null() { 0 } else { mods.len() as c_int });
    }
}

/// The run time as darshan-util computes it for the log's version.
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `runtime` is writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_job_runtime(fd: *mut DarshanFd, job: CJob, runtime: *mut f64) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    let j = darshan_log::Job {
        start_time_sec: job.start_time_sec,
        start_time_nsec: job.start_time_nsec,
        end_time_sec: job.end_time_sec,
        end_time_nsec: job.end_time_nsec,
        ..Default::default()
    };
    // SAFETY: the caller's: a writable double.
    unsafe { runtime.write(j.run_time(st.log().header.version)) };
    0
}

/// The name records (all, or those whose ids are in `keep`), each name a
/// `malloc`ed C string, in a `malloc`ed array: the caller frees both.
fn name_records(
    st: &mut State,
    keep: Option<std::collections::HashSet<u64>>,
    out: *mut *mut NameRecord,
    count: *mut c_int,
) {
    // A table that cannot be read gives none (darshan-util closed the
    // caller's handle then, and left the count unset).
    st.read_names();
    let names = st.log().names().unwrap_or_else(|e| {
        eprintln!("Error: failed to read name records: {e}.");
        darshan_log::NameTable::new()
    });
    let wanted = |id: u64| keep.as_ref().is_none_or(|k| k.contains(&id));
    let recs: Vec<NameRecord> =
        names.iter().filter(|&(id, _)| wanted(id)).map(|(id, n)| NameRecord { id, name: c_string(n) }).collect();
    // SAFETY: a fresh block for the records; the caller's pointers are
    // writable.
    unsafe {
        let block = libc::malloc(recs.len().max(1) * std::mem::size_of::<NameRecord>()).cast::<NameRecord>();
        if !block.is_null() {
            std::ptr::copy_nonoverlapping(recs.as_ptr(), block, recs.len());
        }
        out.write(block);
        count.write(if block.is_null() { 0 } else { recs.len() as c_int });
    }
}

/// Every name record of the log.
///
/// # Safety
/// `fd` as for [`darshan_log_close`]; `out` and `count` are writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_name_records(
    fd: *mut DarshanFd,
    out: *mut *mut NameRecord,
    count: *mut c_int,
) {
    // SAFETY: the caller's.
    if let Some(st) = unsafe { state(fd) } {
        guarded((), || name_records(st, None, out, count));
    }
}

/// The ids a filtered call keeps, as darshan-util's filter: every id when
/// `ids` is null, else the `n` ids there (none when `n` is not positive).
///
/// # Safety
/// `ids` is null or holds `n` ids.
pub unsafe fn wanted_ids(ids: *const u64, n: c_int) -> Option<std::collections::HashSet<u64>> {
    if ids.is_null() {
        return None;
    }
    let n = usize::try_from(n).unwrap_or(0);
    // SAFETY: the caller's: n ids at `ids`.
    Some(unsafe { std::slice::from_raw_parts(ids, n) }.iter().copied().collect())
}

/// The name records of the `n` ids at `ids` (every one when `ids` is
/// null, as darshan-util's).
///
/// # Safety
/// As [`darshan_log_get_name_records`]; `ids` holds `n` ids.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_filtered_name_records(
    fd: *mut DarshanFd,
    out: *mut *mut NameRecord,
    count: *mut c_int,
    ids: *const u64,
    n: c_int,
) {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return };
    // SAFETY: the caller's: `n` ids at `ids`, or null.
    let keep = unsafe { wanted_ids(ids, n) };
    guarded((), || name_records(st, keep, out, count));
}

/// Memory this library handed out, given back.
///
/// # Safety
/// `p` is null or a block this library returned, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn darshan_free(p: *mut c_void) {
    // SAFETY: the caller's: a malloc block or null.
    unsafe { libc::free(p) };
}
