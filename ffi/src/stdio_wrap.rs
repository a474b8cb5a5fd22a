//! Exported STDIO wrappers (the variadic ones are in shim.c). Streams are
//! identified by their `FILE*`; bytes are what Darshan counts for each
//! call (docs/counter-rules.md §4).
#![allow(clippy::missing_safety_doc)]
// SAFETY (every wrapper in this file): the only unsafe operation in a
// wrapper's body, outside the blocks marked SAFETY, is calling the real
// function with the caller's arguments unchanged, so the caller's
// obligations are exactly those of the libc function it meant to call.

use std::ffi::CStr;

use darshan_posix::{OpenKind, POSIX};
use darshan_stdio::{Moved, STDIO};
use libc::{c_char, c_int, c_long, c_void, off64_t, off_t, size_t, FILE};

use crate::guard::{enosys, enosys_null, record, record_data, recording};
use crate::host::{stdin_ptr, stdout_ptr};
use crate::{clock, paths, real};

/// Start-up: the STDIO module learns the process's std streams.
pub(crate) fn attach_std_streams(streams: [usize; 3]) {
    STDIO.set_std_streams(streams);
}

/// A STDIO call of the program's, while recording (Stdio::begin); the
/// first one sets the module up, inside the guard: it may take STDIO's
/// lock and mark the module partial.
#[inline(always)]
fn begin() {
    if STDIO.begin() {
        first_stdio_call();
    }
}

#[cold]
#[inline(never)]
fn first_stdio_call() {
    record(|| STDIO.on_first_call());
}

/// begin() for a caller already inside the guard (fdopen's recording
/// part): record() does not nest (its end marks the thread outside), so
/// the first call is set up without one.
fn begin_inside_guard() {
    if STDIO.begin() {
        STDIO.on_first_call();
    }
}

/// The shim's printf and scanf wrappers, at a STDIO call while the flag
/// says none came before.
pub extern "C" fn stdio_begin_for_c() {
    begin();
}

fn null<T>() -> *mut T {
    std::ptr::null_mut()
}

/// # Safety
/// `path` is null or a NUL-terminated string.
unsafe fn opened(path: *const c_char, call: impl FnOnce() -> *mut FILE) -> *mut FILE {
    if !recording() {
        return call();
    }
    begin();
    let t1 = clock::now();
    let f = call();
    let t2 = clock::now();
    if !f.is_null() {
        // SAFETY: `path` as this function was given it.
        record(|| unsafe { paths::with_clean(None, path, |name| STDIO.on_open(f as usize, name, t1, t2)) });
    }
    f
}

/// Time a data call on `stream`; `bytes` says what it moved (None: not
/// recorded, e.g. EOF).
#[inline(always)]
fn io<R: Copy>(stream: usize, write: bool, call: impl FnOnce() -> R, bytes: impl FnOnce(R) -> Option<Moved>) -> R {
    if !recording() {
        return call();
    }
    begin();
    if !darshan_stdio::maybe_tracked(stream) {
        return call();
    }
    let t1 = clock::now();
    let r = call();
    let t2 = clock::now();
    if let Some(b) = bytes(r) {
        record_data(|| if write { STDIO.on_write(stream, b, false, t1, t2) } else { STDIO.on_read(stream, b, t1, t2) });
    }
    r
}

/// # Safety
/// `f` is the caller's stream.
unsafe fn seeked(f: *mut FILE, call: impl FnOnce() -> c_int) -> c_int {
    if !recording() {
        return call();
    }
    if !darshan_stdio::maybe_tracked(f as usize) {
        let r = call();
        if r >= 0 {
            begin();
        }
        return r;
    }
    let t1 = clock::now();
    let r = call();
    let t2 = clock::now();
    if r >= 0 {
        begin();
        // SAFETY: `f` is a valid stream (the seek succeeded on it).
        let pos = real::ftello64().map(|t| unsafe { t(f) }).unwrap_or(0);
        record(|| STDIO.on_seek(f as usize, pos, t1, t2));
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn fopen(path: *const c_char, mode: *const c_char) -> *mut FILE {
    let Some(r) = real::fopen() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { opened(path, || r(path, mode)) }
}

#[no_mangle]
pub unsafe extern "C" fn fopen64(path: *const c_char, mode: *const c_char) -> *mut FILE {
    let Some(r) = real::fopen64() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { opened(path, || r(path, mode)) }
}

#[no_mangle]
pub unsafe extern "C" fn freopen(path: *const c_char, mode: *const c_char, f: *mut FILE) -> *mut FILE {
    let Some(r) = real::freopen() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { opened(path, || r(path, mode, f)) }
}

#[no_mangle]
pub unsafe extern "C" fn freopen64(path: *const c_char, mode: *const c_char, f: *mut FILE) -> *mut FILE {
    let Some(r) = real::freopen64() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { opened(path, || r(path, mode, f)) }
}

#[no_mangle]
pub unsafe extern "C" fn fdopen(fd: c_int, mode: *const c_char) -> *mut FILE {
    let Some(r) = real::fdopen() else { return enosys_null() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(fd, mode) };
    }
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let f = unsafe { r(fd, mode) };
    let t2 = clock::now();
    if !f.is_null() {
        record(|| {
            let Some(id) = POSIX.id_of_fd(fd) else { return };
            begin_inside_guard();
            paths::with_record_name(id, |name| STDIO.on_fdopen(f as usize, id, name, t1, t2));
        });
    }
    f
}

#[no_mangle]
pub unsafe extern "C" fn fileno(f: *mut FILE) -> c_int {
    let Some(r) = real::fileno() else { return enosys() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(f) };
    }
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let fd = unsafe { r(f) };
    let t2 = clock::now();
    if fd >= 0 {
        record(|| {
            let Some(id) = STDIO.id_of_stream(f as usize) else { return };
            if POSIX.reopen(fd, id, OpenKind::Fileno, t1, t2) {
                return;
            }
            paths::with_record_name(id, |name| POSIX.open_id(fd, id, name, OpenKind::Fileno, 0, t1, t2));
        });
    }
    fd
}

#[no_mangle]
pub unsafe extern "C" fn fclose(f: *mut FILE) -> c_int {
    let Some(r) = real::fclose() else { return enosys() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(f) };
    }
    begin();
    // fclose closes the stream's fd without calling close(): forget it
    // (marked for the aio requests submitted on it before).
    if let Some(fno) = real::fileno() {
        // SAFETY: fileno of the caller's stream, which fclose is given next.
        let fd = unsafe { fno(f) };
        crate::lustre_wrap::file_closing(fd, || STDIO.id_of_stream(f as usize));
        POSIX.closed_by_fclose(fd);
    }
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(f) };
    let t2 = clock::now();
    record(|| STDIO.on_close(f as usize, t1, t2));
    ret
}

#[no_mangle]
pub unsafe extern "C" fn fflush(f: *mut FILE) -> c_int {
    let Some(r) = real::fflush() else { return enosys() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(f) };
    }
    begin();
    if !darshan_stdio::maybe_tracked(f as usize) {
        // SAFETY: as above.
        return unsafe { r(f) };
    }
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(f) };
    let t2 = clock::now();
    if ret >= 0 {
        record(|| STDIO.on_write(f as usize, 0, true, t1, t2));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn fwrite(p: *const c_void, size: size_t, n: size_t, f: *mut FILE) -> size_t {
    let Some(r) = real::fwrite() else { return 0 };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, true, || unsafe { r(p, size, n, f) }, |k| (k > 0).then(|| Moved::SizeT((k * size) as u64)))
}

fn char_out(c: c_int) -> Option<Moved> {
    (c != libc::EOF).then_some(Moved::Int(1))
}

#[no_mangle]
pub unsafe extern "C" fn fputc(c: c_int, f: *mut FILE) -> c_int {
    let Some(r) = real::fputc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, true, || unsafe { r(c, f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn putc(c: c_int, f: *mut FILE) -> c_int {
    let Some(r) = real::putc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, true, || unsafe { r(c, f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn _IO_putc(c: c_int, f: *mut FILE) -> c_int {
    let Some(r) = real::_IO_putc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, true, || unsafe { r(c, f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn putchar(c: c_int) -> c_int {
    let Some(r) = real::putchar() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { io(stdout_ptr(), true, || r(c), char_out) }
}

#[no_mangle]
pub unsafe extern "C" fn putw(w: c_int, f: *mut FILE) -> c_int {
    let Some(r) = real::putw() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, true, || unsafe { r(w, f) }, |k| (k != libc::EOF).then_some(Moved::SizeT(4)))
}

/// # Safety
/// `s` is a NUL-terminated string.
unsafe fn len(s: *const c_char) -> i64 {
    // SAFETY: the caller passed a C string (the real call used it).
    unsafe { CStr::from_ptr(s) }.to_bytes().len() as i64
}

/// C Darshan's count for fgets and fputs: `strlen`, a `size_t`.
///
/// # Safety
/// `s` is a NUL-terminated string.
unsafe fn strlen(s: *const c_char) -> Moved {
    // SAFETY: as the caller's.
    Moved::SizeT(unsafe { len(s) } as u64)
}

#[no_mangle]
pub unsafe extern "C" fn fputs(s: *const c_char, f: *mut FILE) -> c_int {
    let Some(r) = real::fputs() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { io(f as usize, true, || r(s, f), |k| (k != libc::EOF && k > 0).then(|| strlen(s))) }
}

/// What compilers turn `printf("...\n")` into: the string and a newline.
#[no_mangle]
pub unsafe extern "C" fn puts(s: *const c_char) -> c_int {
    let Some(r) = real::puts() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { io(stdout_ptr(), true, || r(s), |k| (k != libc::EOF && k >= 0).then(|| Moved::Int(len(s) + 1))) }
}

#[no_mangle]
pub unsafe extern "C" fn fread(p: *mut c_void, size: size_t, n: size_t, f: *mut FILE) -> size_t {
    let Some(r) = real::fread() else { return 0 };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(p, size, n, f) }, |k| (k > 0).then(|| Moved::SizeT((k * size) as u64)))
}

#[no_mangle]
pub unsafe extern "C" fn __fread_chk(p: *mut c_void, len: size_t, size: size_t, n: size_t, f: *mut FILE) -> size_t {
    let Some(r) = real::__fread_chk() else { return 0 };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(p, len, size, n, f) }, |k| (k > 0).then(|| Moved::SizeT((k * size) as u64)))
}

#[no_mangle]
pub unsafe extern "C" fn fgetc(f: *mut FILE) -> c_int {
    let Some(r) = real::fgetc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn getc(f: *mut FILE) -> c_int {
    let Some(r) = real::getc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn _IO_getc(f: *mut FILE) -> c_int {
    let Some(r) = real::_IO_getc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(f) }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn getchar() -> c_int {
    let Some(r) = real::getchar() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(stdin_ptr(), false, || unsafe { r() }, char_out)
}

#[no_mangle]
pub unsafe extern "C" fn getw(f: *mut FILE) -> c_int {
    let Some(r) = real::getw() else { return enosys() };
    // As Darshan: recorded unless EOF together with an error.
    // SAFETY: `f` is the caller's stream, valid for the getw call.
    let err = |f: *mut FILE| unsafe { libc::ferror(f) };
    // SAFETY: the real function, with the caller's arguments unchanged.
    io(f as usize, false, || unsafe { r(f) }, |k| (k != libc::EOF || err(f) == 0).then_some(Moved::SizeT(4)))
}

#[no_mangle]
pub unsafe extern "C" fn fgets(s: *mut c_char, n: c_int, f: *mut FILE) -> *mut c_char {
    let Some(r) = real::fgets() else { return null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { io(f as usize, false, || r(s, n, f), |p| (!p.is_null()).then(|| strlen(p))) }
}

#[no_mangle]
pub unsafe extern "C" fn __fgets_chk(s: *mut c_char, len: size_t, n: c_int, f: *mut FILE) -> *mut c_char {
    let Some(r) = real::__fgets_chk() else { return null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, NUL-terminated (read after success).
    unsafe { io(f as usize, false, || r(s, len, n, f), |p| (!p.is_null()).then(|| strlen(p))) }
}

#[no_mangle]
pub unsafe extern "C" fn fseek(f: *mut FILE, off: c_long, whence: c_int) -> c_int {
    let Some(r) = real::fseek() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's stream, valid while the call runs.
    unsafe { seeked(f, || r(f, off, whence)) }
}

#[no_mangle]
pub unsafe extern "C" fn fseeko(f: *mut FILE, off: off_t, whence: c_int) -> c_int {
    let Some(r) = real::fseeko() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's stream, valid while the call runs.
    unsafe { seeked(f, || r(f, off, whence)) }
}

#[no_mangle]
pub unsafe extern "C" fn fseeko64(f: *mut FILE, off: off64_t, whence: c_int) -> c_int {
    let Some(r) = real::fseeko64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's stream, valid while the call runs.
    unsafe { seeked(f, || r(f, off, whence)) }
}

#[no_mangle]
pub unsafe extern "C" fn fsetpos(f: *mut FILE, p: *const libc::fpos_t) -> c_int {
    let Some(r) = real::fsetpos() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's stream, valid while the call runs.
    unsafe { seeked(f, || r(f, p)) }
}

#[no_mangle]
pub unsafe extern "C" fn fsetpos64(f: *mut FILE, p: *const libc::fpos64_t) -> c_int {
    let Some(r) = real::fsetpos64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's stream, valid while the call runs.
    unsafe { seeked(f, || r(f, p)) }
}

#[no_mangle]
pub unsafe extern "C" fn rewind(f: *mut FILE) {
    let Some(r) = real::rewind() else { return };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(f) };
    }
    begin();
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(f) };
    let t2 = clock::now();
    record(|| STDIO.on_seek(f as usize, 0, t1, t2));
}

/// ungetc pushes a byte back: the next read starts one byte earlier. Not
/// an operation of its own in Darshan's counters; only the tracked offset
/// moves (Darshan does not wrap it, and its offsets drift).
#[no_mangle]
pub unsafe extern "C" fn ungetc(c: c_int, f: *mut FILE) -> c_int {
    let Some(r) = real::ungetc() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(c, f) };
    if ret != libc::EOF && recording() {
        record(|| STDIO.on_unget(f as usize));
    }
    ret
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fdopen's recording part called begin(), whose first call ran its
    /// own record(): that record's end marked the thread outside the
    /// runtime while fdopen went on to take STDIO's lock, so a signal
    /// handler's fprintf there would have waited on that lock for ever.
    #[test]
    fn fdopen_as_the_first_stdio_call_left_the_rest_of_its_recording_unguarded() {
        let mut still_inside = false;
        record(|| {
            begin_inside_guard();
            still_inside = crate::guard::inside_runtime();
        });
        assert!(still_inside);
        assert!(!crate::guard::inside_runtime());
    }
}
