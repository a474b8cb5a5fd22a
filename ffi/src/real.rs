//! The real functions behind our exports: the next definition after ours
//! (or, linked statically with `--wrap`, the linker's `__real_` name),
//! cached in one `AtomicPtr` per symbol (docs/interposition.md rules 1-3).
//! Each is found at its wrapper's first call, in the symbol tables of the
//! objects loaded with the program (next_symbol.rs: no lock, no
//! allocation), else with `dlsym(RTLD_NEXT)`, and also outside the global
//! scope (loaded.rs). Where those tables cannot stand for `dlsym` (checked
//! in the constructor), every symbol is resolved eagerly there instead. A
//! missing symbol gives `None`, and the wrapper fails that call with
//! ENOSYS; the host is never aborted.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::loaded;

use libc::{c_char, c_int, c_long, c_uint, c_ulong, iovec, mode_t, off64_t, off_t, size_t, ssize_t, FILE};

extern "C" {
    /// shim.c: the real function `name` (NUL-terminated): the linker's
    /// `__real_` symbol when linked statically with `--wrap`, else the
    /// next definition after ours (dlsym(RTLD_NEXT)).
    fn darshan_real_symbol(name: *const c_char) -> *mut c_void;
    /// shim.c: the static link's `__real_` symbol only, else null.
    fn darshan_static_real(name: *const c_char) -> *mut c_void;
}

/// The real function `name` (NUL-terminated) for a wrapper's call, cached
/// in `slot`: the next definition after ours, else one outside the global
/// scope (loaded.rs: a library a dlopen'ed object brought in, such as
/// mpi4py's libmpi), looked for in every loaded object. Null if none.
pub(crate) fn lookup(slot: &AtomicPtr<c_void>, name: &'static [u8]) -> *mut c_void {
    let p = slot.load(Ordering::Relaxed);
    // One comparison, as a null check would be: found, or found absent.
    if p as usize > ABSENT as usize {
        return p;
    }
    if p == ABSENT {
        return std::ptr::null_mut();
    }
    let found = next_definition(name).or_else(|| loaded::anywhere(name));
    slot.store(found.unwrap_or(ABSENT), Ordering::Relaxed);
    found.unwrap_or(std::ptr::null_mut())
}

/// A slot's value once a wrapper's call found its function nowhere: later
/// calls fail at once instead of searching every loaded object again
/// (mpi4py writes through MPI_File_write_at_all_c, which Open MPI 4 does
/// not have, at every write). A caller reaches our export only once the
/// libraries it links are loaded, so its own library cannot appear later;
/// only a second copy, dlopen'ed after, could (not seen: two libmpis in
/// one process cannot work anyway). No function lives at address 1.
const ABSENT: *mut c_void = std::ptr::without_provenance_mut(1);

/// [`lookup`] ahead of any call (the constructor; MPI_Init for the MPI
/// functions): outside the global scope only in the objects already found
/// to define a name (at start-up there are none, as every object then
/// loaded is in the global scope), so that a name nothing defines costs
/// one `dlsym`, not a search of every object. Never inlined: the eager
/// resolutions call it for each of about 800 names, and inlined into them
/// it made 315 KB of the library's text (a build that inlined it: 2.19
/// MB of text against 1.85).
#[inline(never)]
pub(crate) fn resolve(slot: &AtomicPtr<c_void>, name: &'static [u8]) {
    if !slot.load(Ordering::Relaxed).is_null() {
        return;
    }
    if let Some(p) = next_definition(name).or_else(|| loaded::in_known_objects(name)) {
        slot.store(p, Ordering::Relaxed);
    }
}

/// The next definition after ours (or the static link's), if any: from
/// the loaded objects' tables where they answer, else from `dlsym`.
fn next_definition(name: &'static [u8]) -> Option<*mut c_void> {
    // SAFETY: `name` is a NUL-terminated literal; the shim only reads the
    // static link's tables.
    let p = unsafe { darshan_static_real(name.as_ptr().cast()) };
    if !p.is_null() {
        return Some(p);
    }
    let name = CStr::from_bytes_with_nul(name).ok()?;
    crate::next_symbol::find(name).or_else(|| {
        // SAFETY: a NUL-terminated name. Reached only where the tables
        // do not answer: before the constructor, for a name no object
        // loaded with the program defines, or where the constructor found
        // the tables unfit (then it resolved every name itself).
        let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    })
}

/// Constructor: the wrappers find their functions at their first calls,
/// or, where the loaded objects' tables cannot be read for it, every one
/// is resolved now with `dlsym`.
pub fn prepare() {
    if !crate::next_symbol::prepare() {
        resolve_all();
        uring::resolve_if_loaded();
    }
}

/// Declares, for each wrapped function, its cache slot and a typed
/// accessor `real::name() -> Option<fn>`.
macro_rules! reals {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        mod slots {
            use super::*;
            $(#[allow(non_upper_case_globals)]
              pub static $name: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());)*
        }
        /// The names, NUL-terminated (next_symbol's tests use the C
        /// library's list; the others' go unused).
        #[cfg(test)]
        #[allow(dead_code)]
        pub const NAMES: &[&[u8]] = &[$(concat!(stringify!($name), "\0").as_bytes()),*];
        /// Resolve every symbol now (constructor).
        #[allow(dead_code)]
        pub fn resolve_all() {
            $($crate::real::resolve(&slots::$name, concat!(stringify!($name), "\0").as_bytes());)*
        }
        $(
            #[inline]
            #[allow(dead_code, non_snake_case)]
            pub fn $name() -> Option<unsafe extern "C" fn($($arg),*) -> $ret> {
                let p = lookup(&slots::$name, concat!(stringify!($name), "\0").as_bytes());
                if p.is_null() {
                    return None;
                }
                // SAFETY: `p` is the address of the next definition of this
                // libc symbol, whose C prototype is the one declared here.
                Some(unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> $ret>(p) })
            }
        )*
    };
}

type Stat = libc::stat;
type Stat64 = libc::stat64;

reals! {
    open: fn(*const c_char, c_int, mode_t) -> c_int;
    open64: fn(*const c_char, c_int, mode_t) -> c_int;
    __open_2: fn(*const c_char, c_int) -> c_int;
    __open64_2: fn(*const c_char, c_int) -> c_int;
    openat: fn(c_int, *const c_char, c_int, mode_t) -> c_int;
    openat64: fn(c_int, *const c_char, c_int, mode_t) -> c_int;
    __openat_2: fn(c_int, *const c_char, c_int) -> c_int;
    __openat64_2: fn(c_int, *const c_char, c_int) -> c_int;
    creat: fn(*const c_char, mode_t) -> c_int;
    creat64: fn(*const c_char, mode_t) -> c_int;
    mkstemp: fn(*mut c_char) -> c_int;
    mkostemp: fn(*mut c_char, c_int) -> c_int;
    mkstemps: fn(*mut c_char, c_int) -> c_int;
    mkostemps: fn(*mut c_char, c_int, c_int) -> c_int;
    dup: fn(c_int) -> c_int;
    dup2: fn(c_int, c_int) -> c_int;
    dup3: fn(c_int, c_int, c_int) -> c_int;
    fcntl: fn(c_int, c_int, c_ulong) -> c_int;
    fcntl64: fn(c_int, c_int, c_ulong) -> c_int;
    close: fn(c_int) -> c_int;
    read: fn(c_int, *mut c_void, size_t) -> ssize_t;
    __read_chk: fn(c_int, *mut c_void, size_t, size_t) -> ssize_t;
    write: fn(c_int, *const c_void, size_t) -> ssize_t;
    pread: fn(c_int, *mut c_void, size_t, off_t) -> ssize_t;
    pread64: fn(c_int, *mut c_void, size_t, off64_t) -> ssize_t;
    __pread_chk: fn(c_int, *mut c_void, size_t, off_t, size_t) -> ssize_t;
    __pread64_chk: fn(c_int, *mut c_void, size_t, off64_t, size_t) -> ssize_t;
    pwrite: fn(c_int, *const c_void, size_t, off_t) -> ssize_t;
    pwrite64: fn(c_int, *const c_void, size_t, off64_t) -> ssize_t;
    readv: fn(c_int, *const iovec, c_int) -> ssize_t;
    writev: fn(c_int, *const iovec, c_int) -> ssize_t;
    preadv: fn(c_int, *const iovec, c_int, off_t) -> ssize_t;
    preadv64: fn(c_int, *const iovec, c_int, off64_t) -> ssize_t;
    preadv2: fn(c_int, *const iovec, c_int, off_t, c_int) -> ssize_t;
    preadv64v2: fn(c_int, *const iovec, c_int, off64_t, c_int) -> ssize_t;
    pwritev: fn(c_int, *const iovec, c_int, off_t) -> ssize_t;
    pwritev64: fn(c_int, *const iovec, c_int, off64_t) -> ssize_t;
    pwritev2: fn(c_int, *const iovec, c_int, off_t, c_int) -> ssize_t;
    pwritev64v2: fn(c_int, *const iovec, c_int, off64_t, c_int) -> ssize_t;
    lseek: fn(c_int, off_t, c_int) -> off_t;
    lseek64: fn(c_int, off64_t, c_int) -> off64_t;
    fsync: fn(c_int) -> c_int;
    fdatasync: fn(c_int) -> c_int;
    mmap: fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void;
    mmap64: fn(*mut c_void, size_t, c_int, c_int, c_int, off64_t) -> *mut c_void;
    rename: fn(*const c_char, *const c_char) -> c_int;
    // POSIX_META (meta_wrap.rs).
    unlink: fn(*const c_char) -> c_int;
    remove: fn(*const c_char) -> c_int;
    unlinkat: fn(c_int, *const c_char, c_int) -> c_int;
    renameat: fn(c_int, *const c_char, c_int, *const c_char) -> c_int;
    renameat2: fn(c_int, *const c_char, c_int, *const c_char, c_uint) -> c_int;
    mkdir: fn(*const c_char, mode_t) -> c_int;
    mkdirat: fn(c_int, *const c_char, mode_t) -> c_int;
    rmdir: fn(*const c_char) -> c_int;
    opendir: fn(*const c_char) -> *mut libc::DIR;
    fdopendir: fn(c_int) -> *mut libc::DIR;
    readdir: fn(*mut libc::DIR) -> *mut libc::dirent;
    readdir64: fn(*mut libc::DIR) -> *mut libc::dirent64;
    closedir: fn(*mut libc::DIR) -> c_int;
    truncate: fn(*const c_char, off_t) -> c_int;
    truncate64: fn(*const c_char, off64_t) -> c_int;
    ftruncate: fn(c_int, off_t) -> c_int;
    ftruncate64: fn(c_int, off64_t) -> c_int;
    fallocate: fn(c_int, c_int, off_t, off_t) -> c_int;
    fallocate64: fn(c_int, c_int, off64_t, off64_t) -> c_int;
    posix_fallocate: fn(c_int, off_t, off_t) -> c_int;
    posix_fallocate64: fn(c_int, off64_t, off64_t) -> c_int;
    chmod: fn(*const c_char, mode_t) -> c_int;
    fchmod: fn(c_int, mode_t) -> c_int;
    fchmodat: fn(c_int, *const c_char, mode_t, c_int) -> c_int;
    chown: fn(*const c_char, libc::uid_t, libc::gid_t) -> c_int;
    lchown: fn(*const c_char, libc::uid_t, libc::gid_t) -> c_int;
    fchown: fn(c_int, libc::uid_t, libc::gid_t) -> c_int;
    fchownat: fn(c_int, *const c_char, libc::uid_t, libc::gid_t, c_int) -> c_int;
    access: fn(*const c_char, c_int) -> c_int;
    euidaccess: fn(*const c_char, c_int) -> c_int;
    eaccess: fn(*const c_char, c_int) -> c_int;
    faccessat: fn(c_int, *const c_char, c_int, c_int) -> c_int;
    link: fn(*const c_char, *const c_char) -> c_int;
    linkat: fn(c_int, *const c_char, c_int, *const c_char, c_int) -> c_int;
    symlink: fn(*const c_char, *const c_char) -> c_int;
    symlinkat: fn(*const c_char, c_int, *const c_char) -> c_int;
    readlink: fn(*const c_char, *mut c_char, size_t) -> ssize_t;
    readlinkat: fn(c_int, *const c_char, *mut c_char, size_t) -> ssize_t;
    utime: fn(*const c_char, *const libc::utimbuf) -> c_int;
    utimes: fn(*const c_char, *const libc::timeval) -> c_int;
    lutimes: fn(*const c_char, *const libc::timeval) -> c_int;
    futimes: fn(c_int, *const libc::timeval) -> c_int;
    futimens: fn(c_int, *const libc::timespec) -> c_int;
    utimensat: fn(c_int, *const c_char, *const libc::timespec, c_int) -> c_int;
    getxattr: fn(*const c_char, *const c_char, *mut c_void, size_t) -> ssize_t;
    lgetxattr: fn(*const c_char, *const c_char, *mut c_void, size_t) -> ssize_t;
    fgetxattr: fn(c_int, *const c_char, *mut c_void, size_t) -> ssize_t;
    setxattr: fn(*const c_char, *const c_char, *const c_void, size_t, c_int) -> c_int;
    lsetxattr: fn(*const c_char, *const c_char, *const c_void, size_t, c_int) -> c_int;
    fsetxattr: fn(c_int, *const c_char, *const c_void, size_t, c_int) -> c_int;
    msync: fn(*mut c_void, size_t, c_int) -> c_int;
    munmap: fn(*mut c_void, size_t) -> c_int;
    syscall: fn(c_long, c_long, c_long, c_long, c_long, c_long, c_long) -> c_long;
    prctl: fn(c_int, c_ulong, c_ulong, c_ulong, c_ulong) -> c_int;
    setuid: fn(libc::uid_t) -> c_int;
    seteuid: fn(libc::uid_t) -> c_int;
    setreuid: fn(libc::uid_t, libc::uid_t) -> c_int;
    setresuid: fn(libc::uid_t, libc::uid_t, libc::uid_t) -> c_int;
    copy_file_range: fn(c_int, *mut off64_t, c_int, *mut off64_t, size_t, c_uint) -> ssize_t;
    sendfile: fn(c_int, c_int, *mut off_t, size_t) -> ssize_t;
    sendfile64: fn(c_int, c_int, *mut off64_t, size_t) -> ssize_t;
    stat: fn(*const c_char, *mut Stat) -> c_int;
    stat64: fn(*const c_char, *mut Stat64) -> c_int;
    lstat: fn(*const c_char, *mut Stat) -> c_int;
    lstat64: fn(*const c_char, *mut Stat64) -> c_int;
    fstat: fn(c_int, *mut Stat) -> c_int;
    fstat64: fn(c_int, *mut Stat64) -> c_int;
    fstatat: fn(c_int, *const c_char, *mut Stat, c_int) -> c_int;
    fstatat64: fn(c_int, *const c_char, *mut Stat64, c_int) -> c_int;
    __xstat: fn(c_int, *const c_char, *mut Stat) -> c_int;
    __xstat64: fn(c_int, *const c_char, *mut Stat64) -> c_int;
    __lxstat: fn(c_int, *const c_char, *mut Stat) -> c_int;
    __lxstat64: fn(c_int, *const c_char, *mut Stat64) -> c_int;
    __fxstat: fn(c_int, c_int, *mut Stat) -> c_int;
    __fxstat64: fn(c_int, c_int, *mut Stat64) -> c_int;
    __fxstatat: fn(c_int, c_int, *const c_char, *mut Stat, c_int) -> c_int;
    __fxstatat64: fn(c_int, c_int, *const c_char, *mut Stat64, c_int) -> c_int;
    statx: fn(c_int, *const c_char, c_int, c_uint, *mut libc::statx) -> c_int;
    aio_read: fn(*mut libc::aiocb) -> c_int;
    aio_write: fn(*mut libc::aiocb) -> c_int;
    aio_read64: fn(*mut libc::aiocb) -> c_int;
    aio_write64: fn(*mut libc::aiocb) -> c_int;
    aio_return: fn(*mut libc::aiocb) -> ssize_t;
    aio_return64: fn(*mut libc::aiocb) -> ssize_t;
    lio_listio: fn(c_int, *const *mut libc::aiocb, c_int, *mut libc::sigevent) -> c_int;
    lio_listio64: fn(c_int, *const *mut libc::aiocb, c_int, *mut libc::sigevent) -> c_int;
    fork: fn() -> libc::pid_t;
    chdir: fn(*const c_char) -> c_int;
    fchdir: fn(c_int) -> c_int;
    chroot: fn(*const c_char) -> c_int;
    setns: fn(c_int, c_int) -> c_int;
    unshare: fn(c_int) -> c_int;
    daemon: fn(c_int, c_int) -> c_int;
    nftw: fn(*const c_char, *mut c_void, c_int, c_int) -> c_int;
    nftw64: fn(*const c_char, *mut c_void, c_int, c_int) -> c_int;
    fts_open: fn(*const *mut c_char, c_int, *mut c_void) -> *mut c_void;
    fts64_open: fn(*const *mut c_char, c_int, *mut c_void) -> *mut c_void;
    fts_close: fn(*mut c_void) -> c_int;
    fts64_close: fn(*mut c_void) -> c_int;
    execve: fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int;
    execv: fn(*const c_char, *const *const c_char) -> c_int;
    execvp: fn(*const c_char, *const *const c_char) -> c_int;
    execvpe: fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int;
    fexecve: fn(c_int, *const *const c_char, *const *const c_char) -> c_int;
    _exit: fn(c_int) -> ();
    _Exit: fn(c_int) -> ();
    fopen: fn(*const c_char, *const c_char) -> *mut FILE;
    fopen64: fn(*const c_char, *const c_char) -> *mut FILE;
    fdopen: fn(c_int, *const c_char) -> *mut FILE;
    freopen: fn(*const c_char, *const c_char, *mut FILE) -> *mut FILE;
    freopen64: fn(*const c_char, *const c_char, *mut FILE) -> *mut FILE;
    fclose: fn(*mut FILE) -> c_int;
    fflush: fn(*mut FILE) -> c_int;
    fileno: fn(*mut FILE) -> c_int;
    fwrite: fn(*const c_void, size_t, size_t, *mut FILE) -> size_t;
    fputc: fn(c_int, *mut FILE) -> c_int;
    putc: fn(c_int, *mut FILE) -> c_int;
    _IO_putc: fn(c_int, *mut FILE) -> c_int;
    putchar: fn(c_int) -> c_int;
    putw: fn(c_int, *mut FILE) -> c_int;
    fputs: fn(*const c_char, *mut FILE) -> c_int;
    puts: fn(*const c_char) -> c_int;
    fread: fn(*mut c_void, size_t, size_t, *mut FILE) -> size_t;
    __fread_chk: fn(*mut c_void, size_t, size_t, size_t, *mut FILE) -> size_t;
    fgetc: fn(*mut FILE) -> c_int;
    getc: fn(*mut FILE) -> c_int;
    _IO_getc: fn(*mut FILE) -> c_int;
    getchar: fn() -> c_int;
    getw: fn(*mut FILE) -> c_int;
    fgets: fn(*mut c_char, c_int, *mut FILE) -> *mut c_char;
    __fgets_chk: fn(*mut c_char, size_t, c_int, *mut FILE) -> *mut c_char;
    fseek: fn(*mut FILE, c_long, c_int) -> c_int;
    fseeko: fn(*mut FILE, off_t, c_int) -> c_int;
    fseeko64: fn(*mut FILE, off64_t, c_int) -> c_int;
    fsetpos: fn(*mut FILE, *const libc::fpos_t) -> c_int;
    fsetpos64: fn(*mut FILE, *const libc::fpos64_t) -> c_int;
    rewind: fn(*mut FILE) -> ();
    ungetc: fn(c_int, *mut FILE) -> c_int;
    ftello64: fn(*mut FILE) -> off64_t;
}

/// The liburing functions the IO_URING module wraps, looked up at start-up
/// only in a process that has liburing loaded then: elsewhere their 14
/// failing `dlsym` calls cost every process 9-12 us. A process that loads
/// liburing later finds each at its wrapper's first call (rule 3a).
pub mod uring {
    use super::*;

    reals! {
        io_uring_submit: fn(*mut c_void) -> c_int;
        io_uring_submit_and_wait: fn(*mut c_void, c_uint) -> c_int;
        io_uring_submit_and_wait_timeout: fn(*mut c_void, *mut c_void, c_uint, *mut c_void, *mut c_void) -> c_int;
        io_uring_submit_and_get_events: fn(*mut c_void) -> c_int;
        __io_uring_get_cqe: fn(*mut c_void, *mut c_void, c_uint, c_uint, *mut c_void) -> c_int;
        io_uring_wait_cqes: fn(*mut c_void, *mut c_void, c_uint, *mut c_void, *mut c_void) -> c_int;
        io_uring_wait_cqe_timeout: fn(*mut c_void, *mut c_void, *mut c_void) -> c_int;
        io_uring_peek_batch_cqe: fn(*mut c_void, *mut c_void, c_uint) -> c_uint;
        io_uring_get_events: fn(*mut c_void) -> c_int;
        io_uring_register_files: fn(*mut c_void, *const c_int, c_uint) -> c_int;
        io_uring_register_buffers: fn(*mut c_void, *const c_void, c_uint) -> c_int;
        io_uring_register_files_update: fn(*mut c_void, c_uint, *const c_int, c_uint) -> c_int;
        io_uring_unregister_files: fn(*mut c_void) -> c_int;
        io_uring_queue_exit: fn(*mut c_void) -> ();
    }

    /// The first of them, whose presence stands for liburing's.
    const PROBE: &CStr = c"io_uring_submit";

    /// Every one of them, if liburing is loaded (constructor).
    pub fn resolve_if_loaded() {
        // SAFETY: a NUL-terminated literal; the shim looks it up in the
        // static table, else with dlsym(RTLD_NEXT).
        if !unsafe { darshan_real_symbol(PROBE.as_ptr()) }.is_null() {
            resolve_all();
        }
    }
}
