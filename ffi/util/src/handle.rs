//! The log handle (`darshan_fd`) and the calls on it that are not
//! records: open, close, the job, the command line, the mounts, the
//! modules, the names and the run time.

use std::ffi::{c_char, c_int, c_void, CStr};

use darshan_log::modules::{self, KNOWN_MODULE_COUNT, MAX_MODS, MODULE_C_NAMES};
use darshan_log::LogFile;

use crate::fd::Inner;
pub use crate::fd::{state, CJob, DarshanFd, LogMap, MntInfo};
use crate::guarded;
use crate::mem::{c_string, copy_out};
pub use crate::reading::State;

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

/// The handle of a log, as C's reader fills it: the modules C Darshan
/// does not know of (ours, named by the extension trailer) are not in
/// its maps, since darshan-util never sees them.
fn handle_of(log: LogFile) -> DarshanFd {
    let h = &log.header;
    let map = |m: darshan_log::RegionMap| LogMap { off: m.off, len: m.len };
    let (version, partial, comp) = (h.version, h.partial_flag, c_int::from(h.compression.code()));
    let (swapped, job_map, name_map, mod_map, mod_ver) = (h.swapped, h.job_map, h.name_map, h.mod_map, h.mod_ver);
    let mut fd = DarshanFd::new(version, partial, comp, Inner::Read(State::new(log)));
    (fd.swap_flag, fd.job_map, fd.name_map) = (c_int::from(swapped), map(job_map), map(name_map));
    for id in (0..MAX_MODS).filter(|&id| modules::extension(id).is_none()) {
        fd.mod_map[id] = map(mod_map[id]);
        fd.mod_ver[id] = mod_ver[id];
    }
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
/// (crate::writing::Writing::close); the handle and everything it holds
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
        guarded((), || w.close(fd.partial_flag, &fd.mod_ver));
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
            let mut f = [0u8; darshan_log::job::EXE_LEN];
            let n = field.len().min(f.len() - 1);
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
