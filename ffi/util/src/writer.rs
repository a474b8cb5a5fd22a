//! darshan-util's writer: `darshan_log_create`, `darshan_log_put_job`,
//! `_put_exe`, `_put_mounts`, `_put_namehash`, `_put_mod`, each module's
//! `log_put_record` (tables.rs) and `darshan_log_close`, which finishes
//! the log. C Darshan's own darshan-convert.c and darshan-merge.c, and a
//! site's C tools that filter or anonymize logs, write through these.
//!
//! As darshan-util's: every call appends bytes already in the log's
//! layout to a region (the job region takes the job struct, the command
//! line, then the mount table), each region one compressed stream, the
//! header written at close from the handle's fields (its partial flag and
//! module versions, which a caller may set). Unlike darshan-util's:
//! * the log is made new, never over a file already there nor through a
//!   link planted at its name (darshan-util's `creat` truncates an
//!   existing one), and takes its name only once complete
//!   (darshan_log::safe_fs::NewFile), read-only (0400);
//! * a region written again after another one is refused, and the log
//!   then not written (darshan-util starts the region over, losing what
//!   it held: a log with records missing).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use darshan_log::modules::{KNOWN_MODULE_COUNT, MAX_MODS};
use darshan_log::safe_fs::NewFile;
use darshan_log::writer::Region;
use darshan_log::{Compression, LogWriter};

use crate::guarded;
use crate::handle::{inner, CJob, DarshanFd, Inner, LogMap, MntInfo};

/// darshan-util's `DARSHAN_EXE_LEN`: the room for the command line and
/// the mount table after the job struct (4,096 - 1,080 - 1).
const EXE_LEN: usize = 3015;

/// A log being written.
pub struct Writing {
    log: Option<LogWriter<BufWriter<std::fs::File>>>,
    file: NewFile,
    path: PathBuf,
    /// A put failed: the log is not given its name.
    failed: bool,
}

impl Writing {
    /// `bytes` appended to `region`; 0, or -1 (and one line on stderr
    /// naming `what`) when they cannot be.
    fn put(&mut self, region: Region, bytes: &[u8], what: &str) -> c_int {
        let done = match self.log.as_mut() {
            Some(w) => w.put(region, bytes),
            None => Err(darshan_log::LogError::Write("no log".into())),
        };
        match done {
            Ok(()) => 0,
            Err(e) => {
                self.failed = true;
                eprintln!("Error: failed to write {what} to darshan log file: {e}.");
                -1
            }
        }
    }

    /// The log finished, with the header `fd` says (its partial flag and
    /// module versions), and given its name; or, after a failed put or
    /// write, left unnamed and gone, as darshan-util unlinks it.
    pub fn close(mut self, fd: &DarshanFd) {
        let finished = match self.log.take() {
            Some(mut w) if !self.failed => {
                w.set_partial_flag(fd.partial_flag);
                for (id, &v) in fd.mod_ver.iter().enumerate() {
                    w.set_module_version(id, v);
                }
                w.finish().map_err(|e| e.to_string()).and_then(|b| b.into_inner().map_err(|e| e.to_string()))
            }
            _ => Err("a write to it failed".into()),
        };
        let published = finished.and_then(|file| self.file.publish(file, 0o400).map_err(|e| e.to_string()));
        if let Err(e) = published {
            eprintln!("Error: final flush to log file failed: {e}.");
            eprintln!("Unlinking darshan log file {} ...", self.path.display());
        }
    }
}

/// The handle's writing state, if it was created for writing.
///
/// # Safety
/// `fd` is null or a live handle of this library.
unsafe fn writing<'a>(fd: *mut DarshanFd) -> Option<&'a mut Writing> {
    // SAFETY: the caller's.
    match unsafe { inner(fd) } {
        Some(Inner::Write(w)) => Some(w),
        Some(Inner::Read(_)) => {
            eprintln!("Error: the Darshan log file handle was opened for reading.");
            None
        }
        None => None,
    }
}

/// A NUL-terminated C string's bytes (null: none).
///
/// # Safety
/// `s` is null or NUL-terminated.
unsafe fn c_bytes<'a>(s: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller's.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_bytes())
}

/// A handle for writing the log `path`, made new (see the module's
/// notes), with darshan-util's compression type and partial flag.
fn create(path: &Path, comp_type: c_int, partial_flag: c_int) -> Option<DarshanFd> {
    let comp = match comp_type {
        0 => Compression::Zlib,
        1 => Compression::Bzip2,
        _ => {
            eprintln!("Error: invalid compression type.");
            return None;
        }
    };
    let (file, out) = match NewFile::create(path) {
        Ok(made) => made,
        Err(e) => {
            eprintln!("Error: darshan_log_create failed to open darshan log file {}: {e}.", path.display());
            return None;
        }
    };
    let log = match LogWriter::new(BufWriter::new(out), comp) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("Error: unable to seek in darshan log file: {e}.");
            return None;
        }
    };
    let w = Writing { log: Some(log), file, path: path.to_path_buf(), failed: false };
    let mut version = [0 as c_char; 8];
    for (d, s) in version.iter_mut().zip(darshan_log::LogVersion::V341.as_str().bytes()) {
        *d = s as c_char;
    }
    Some(DarshanFd {
        version,
        swap_flag: 0,
        // As darshan-util's: the int converted to the field's type.
        partial_flag: i64::from(partial_flag) as u64,
        comp_type,
        job_map: LogMap::default(),
        name_map: LogMap::default(),
        mod_map: [LogMap::default(); MAX_MODS],
        mod_ver: [0; MAX_MODS],
        state: Box::into_raw(Box::new(Inner::Write(Box::new(w)))),
        first_heatmap_record_nbins: 0,
        first_heatmap_record_bin_width_seconds: 0.0,
    })
}

/// A new log `name` to write (`comp_type`: 0 zlib, 1 bzip2); null, and
/// one line on stderr, when it cannot be made.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_create(
    name: *const c_char,
    comp_type: c_int,
    partial_flag: c_int,
) -> *mut DarshanFd {
    // SAFETY: the caller's.
    let Some(name) = (unsafe { c_bytes(name) }) else { return std::ptr::null_mut() };
    let path = Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
    guarded(std::ptr::null_mut(), || match create(path, comp_type, partial_flag) {
        Some(fd) => Box::into_raw(Box::new(fd)),
        None => std::ptr::null_mut(),
    })
}

/// The job struct, its metadata ended by a newline as darshan-util adds
/// one (where there is room).
fn job_bytes(job: &CJob) -> Vec<u8> {
    // SAFETY: CJob is plain data, `size_of` bytes at its address.
    let mut b =
        unsafe { std::slice::from_raw_parts(std::ptr::from_ref(job).cast::<u8>(), std::mem::size_of::<CJob>()) }
            .to_vec();
    let meta = &mut b[56..];
    let len = meta.iter().position(|&c| c == 0).unwrap_or(meta.len());
    if len > 0 && len < meta.len() && meta[len - 1] != b'\n' {
        meta[len] = b'\n';
        if let Some(end) = meta.get_mut(len + 1) {
            *end = 0;
        }
    }
    b
}

/// The job record, first in the job region.
///
/// # Safety
/// `fd` is null or a live handle; `job` points to a `struct darshan_job`.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_put_job(fd: *mut DarshanFd, job: *const CJob) -> c_int {
    // SAFETY: the caller's.
    let (Some(w), Some(job)) = (unsafe { writing(fd) }, unsafe { job.as_ref() }) else { return -1 };
    guarded(-1, || w.put(Region::Job, &job_bytes(job), "job data"))
}

/// The command line, after the job record (without its NUL, as
/// darshan-util writes it).
///
/// # Safety
/// `fd` is null or a live handle; `buf` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_put_exe(fd: *mut DarshanFd, buf: *const c_char) -> c_int {
    // SAFETY: the caller's.
    let (Some(w), Some(exe)) = (unsafe { writing(fd) }, unsafe { c_bytes(buf) }) else { return -1 };
    guarded(-1, || w.put(Region::Job, exe, "exe string"))
}

/// A fixed-size C field's text, up to its NUL.
fn field(f: &[c_char]) -> &[u8] {
    // SAFETY: c_char and u8 have one layout.
    let b = unsafe { std::slice::from_raw_parts(f.as_ptr().cast::<u8>(), f.len()) };
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

/// The mount table's text as darshan-util writes it: `\ntype\tpath` for
/// each entry, last first, while they fit in its buffer, then a NUL.
fn mounts_text(mounts: &[MntInfo]) -> Vec<u8> {
    let mut text = Vec::new();
    let mut left = EXE_LEN;
    for m in mounts.iter().rev() {
        let (ty, path) = (field(&m.mnt_type), field(&m.mnt_path));
        if ty.len() + path.len() + 2 >= left {
            break;
        }
        let line = [b"\n", ty, b"\t", path].concat();
        left -= line.len();
        text.extend_from_slice(&line);
    }
    text.push(0);
    text
}

/// The mount table, after the command line.
///
/// # Safety
/// `fd` is null or a live handle; `mounts` holds `count` entries.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_put_mounts(fd: *mut DarshanFd, mounts: *const MntInfo, count: c_int) -> c_int {
    // SAFETY: the caller's.
    let Some(w) = (unsafe { writing(fd) }) else { return -1 };
    let n = usize::try_from(count).unwrap_or(0);
    let entries: &[MntInfo] = match n {
        0 => &[],
        // SAFETY: the caller's: `count` entries at `mounts`.
        _ if !mounts.is_null() => unsafe { std::slice::from_raw_parts(mounts, n) },
        _ => return -1,
    };
    guarded(-1, || w.put(Region::Job, &mounts_text(entries), "mount data"))
}

/// `len` bytes of module `mod_id`'s records at `buf`, as the file lays
/// them out, written at version `ver`; 0, or -1 (one line on stderr).
///
/// # Safety
/// `fd` is null or a live handle; `buf` holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_put_mod(
    fd: *mut DarshanFd,
    mod_id: c_int,
    buf: *const c_void,
    len: c_int,
    ver: c_int,
) -> c_int {
    // SAFETY: the caller's.
    let Some(w) = (unsafe { writing(fd) }) else { return -1 };
    let Some(id) = usize::try_from(mod_id).ok().filter(|&i| i < KNOWN_MODULE_COUNT) else {
        w.failed = true;
        eprintln!("Error: invalid Darshan module id.");
        return -1;
    };
    let n = usize::try_from(len).unwrap_or(0);
    if buf.is_null() && n > 0 {
        return -1;
    }
    // SAFETY: the caller's: `len` bytes at `buf`.
    let bytes = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), n) } };
    let name = darshan_log::modules::module_name(id);
    let done = guarded(-1, || w.put(Region::Module(id), bytes, &format!("module {name} data")));
    if done == 0 {
        // SAFETY: the caller's: a live handle (writing() found it).
        unsafe { (*fd).mod_ver[id] = ver as u32 };
    }
    done
}

/// One record of module `id` in darshan-util's layout at `rec`, written
/// at the module's version (each module's `log_put_record`).
///
/// # Safety
/// `fd` is null or a live handle; `rec` a record of module `id` in
/// darshan-util's layout, its arrays as long as its counts say.
pub unsafe fn put_record(id: usize, fd: *mut DarshanFd, rec: *const c_void) -> c_int {
    // SAFETY: the caller's.
    let Some(bytes) = (unsafe { crate::records::file_bytes(id, rec.cast()) }) else {
        eprintln!("Error: not a {} record.", darshan_log::modules::module_name(id));
        return -1;
    };
    let ver = darshan_log::modules::WRITE_VERSIONS[id] as c_int;
    // SAFETY: the caller's; `bytes` holds its length.
    unsafe { darshan_log_put_mod(fd, id as c_int, bytes.as_ptr().cast(), bytes.len() as c_int, ver) }
}

#[cfg(uthash)]
extern "C" {
    fn darshan_util_namehash_each(
        hash: *mut c_void,
        each: unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int,
        ctx: *mut c_void,
    ) -> c_int;
}

/// One name record of the table (uthash's iteration), appended.
#[cfg(uthash)]
unsafe extern "C" fn put_name(ctx: *mut c_void, rec: *const c_void, len: usize) -> c_int {
    // SAFETY: `ctx` is the Writing darshan_log_put_namehash passes; `rec`
    // holds `len` bytes (namehash.c).
    let (w, bytes) = unsafe { (&mut *ctx.cast::<Writing>(), std::slice::from_raw_parts(rec.cast::<u8>(), len)) };
    guarded(-1, || w.put(Region::Names, bytes, "name hash"))
}

/// The names of a uthash table of `struct darshan_name_record_ref`, in
/// its order, after the job region.
///
/// # Safety
/// `fd` is null or a live handle; `hash` null (no names) or such a table.
#[cfg(uthash)]
#[no_mangle]
pub unsafe extern "C" fn darshan_log_put_namehash(fd: *mut DarshanFd, hash: *mut c_void) -> c_int {
    // SAFETY: the caller's.
    let Some(w) = (unsafe { writing(fd) }) else { return -1 };
    // SAFETY: the caller's table; put_name is handed `w` back.
    unsafe { darshan_util_namehash_each(hash, put_name, std::ptr::from_mut(w).cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mount(ty: &str, path: &str) -> MntInfo {
        let mut m = MntInfo { mnt_type: [0; EXE_LEN], mnt_path: [0; EXE_LEN] };
        for (d, s) in m.mnt_type.iter_mut().zip(ty.bytes()) {
            *d = s as c_char;
        }
        for (d, s) in m.mnt_path.iter_mut().zip(path.bytes()) {
            *d = s as c_char;
        }
        m
    }

    /// darshan-util writes the table last entry first (get_mounts sorts
    /// it longest path first, so the file has the shortest first), with
    /// its NUL, and stops at the first entry that does not fit.
    #[test]
    fn the_mount_table_is_written_last_entry_first_as_darshan_util_does() {
        let t = mounts_text(&[mount("lustre", "/lus/grand"), mount("ext4", "/")]);
        assert_eq!(t, b"\next4\t/\nlustre\t/lus/grand\0");
        let long = "x".repeat(EXE_LEN - 5);
        assert_eq!(mounts_text(&[mount("nfs", "/home"), mount("ext4", &long)]), b"\0");
    }
}
