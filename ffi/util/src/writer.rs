//! darshan-util's writer's calls: `darshan_log_create`,
//! `darshan_log_put_job`, `_put_exe`, `_put_mounts`, `_put_namehash`,
//! `_put_mod` and each module's `log_put_record` (tables.rs);
//! `darshan_log_close` (handle.rs) finishes the log. C Darshan's own
//! darshan-convert.c and darshan-merge.c, and a site's C tools that
//! filter or anonymize logs, write through these. The C structs are
//! turned into the log's bytes here; crate::writing writes them.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;

use darshan_log::modules::KNOWN_MODULE_COUNT;
use darshan_log::writer::Region;
use darshan_log::Compression;

use crate::fd::{writing, CJob, DarshanFd, Inner, MntInfo};
use crate::guarded;
use crate::writing::Writing;

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
    let w = Writing::create(path, comp)?;
    // As darshan-util's: the int converted to the field's type.
    Some(DarshanFd::new(
        darshan_log::LogVersion::V341,
        i64::from(partial_flag) as u64,
        comp_type,
        Inner::Write(Box::new(w)),
    ))
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

/// The mount table's text as darshan-util writes it (darshan-merge's
/// rule, which our darshan-merge follows too), then a NUL.
fn mounts_text(mounts: &[MntInfo]) -> Vec<u8> {
    let mut text =
        darshan_util::merge::mount_table_text(mounts.iter().map(|m| (field(&m.mnt_type), field(&m.mnt_path))));
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
        return w.fail("invalid Darshan module id");
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
    use darshan_log::job::EXE_LEN;

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
