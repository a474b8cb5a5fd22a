//! Reads one log through libdarshan-util's C API as a C program would:
//! the job, command line, mounts, modules, names, every record of every
//! module (following LUSTRE's and HEATMAP's pointers, DXT's segments), and
//! the accumulator over the records of the modules that have one. Each
//! record is also printed as darshan-diff prints it against the one
//! before (`log_print_diff`) and, for DXT, as darshan-dxt-parser does
//! (with the last LUSTRE record read); then each module's bytes are read
//! again, raw (`darshan_log_get_mod`). Prints what it read in one line
//! last; exits 0, or 255 when the log does not open.
//! For the mutation harness (crates/log-mutants): the library must not
//! crash, hang or grow beyond its bound on any file.
//!
//! usage: darshan-util-read LOG

use std::ffi::{c_int, c_void, CString};
use std::process::ExitCode;

use darshan_log::modules::{DXT_MPIIO, DXT_POSIX, HEATMAP, KNOWN_MODULE_COUNT, LUSTRE, MPIIO, POSIX, STDIO};
use darshan_logutils::accum::{self, DerivedMetrics};
use darshan_logutils::get::{darshan_log_get_mod, darshan_log_get_record};
use darshan_logutils::handle::{self as h, CJob, DarshanFd, MntInfo, ModInfo, NameRecord};
use darshan_logutils::printing::{dxt_log_print_mpiio_file, dxt_log_print_posix_file, LustreRecordRef};
use darshan_logutils::records::record_size;
use darshan_logutils::tables::mod_logutils;

/// What was read, summed so that every word read is used.
#[derive(Default)]
struct Read {
    records: u64,
    words: u64,
    /// Calls that returned an error.
    errors: u64,
}

/// A record's words past its struct, through the pointers it holds.
///
/// # Safety
/// `rec` is a record of module `id` the library handed out.
unsafe fn follow(id: usize, rec: *const u8, got: &mut Read) {
    let word = |at: usize| {
        // SAFETY: the caller's: within the record's struct.
        unsafe { rec.add(at).cast::<i64>().read_unaligned() }
    };
    let (count, at) = match id {
        // num_stripes OSTs at ost_ids; 7 words of each of num_comps
        LUSTRE => (word(16).max(0) as usize * 9 + word(24).max(0) as usize, word(32) as usize),
        // 2 × nbins bins from write_bins
        HEATMAP => (2 * word(24).max(0) as usize, word(32) as usize),
        _ => return,
    };
    for k in 0..count {
        // SAFETY: the library's layout: the arrays follow the struct in the
        // same block, as long as the counts say (pool names read as words).
        got.words = got.words.wrapping_add(unsafe { (at as *const u64).add(k).read_unaligned() });
    }
}

/// Every record of module `id`; those of a module with an accumulator
/// kept (raw) for it.
///
/// # Safety
/// `fd` is live.
unsafe fn records(fd: *mut DarshanFd, id: usize, got: &mut Read, raw: &mut Vec<u8>, lustre: &mut LustreRecordRef) {
    let size = record_size(id);
    let mut prev: *mut c_void = std::ptr::null_mut();
    loop {
        let mut buf: *mut c_void = std::ptr::null_mut();
        // SAFETY: fd live; buf a writable null pointer.
        let r = unsafe { darshan_log_get_record(fd, id as c_int, &mut buf) };
        if r < 1 {
            got.errors += u64::from(r < 0);
            // SAFETY: null, or blocks the library made, each freed once.
            unsafe {
                h::darshan_free(buf);
                h::darshan_free(prev);
            }
            return;
        }
        // SAFETY: records of module id the library made (prev: null or
        // the one before); lustre null or the last LUSTRE record read.
        unsafe { print(id, buf, prev, lustre) };
        got.records += 1;
        // SAFETY: the block holds a record of module id.
        unsafe { follow(id, buf.cast(), got) };
        if matches!(id, POSIX | MPIIO | STDIO) {
            // SAFETY: a record of those modules is record_size(id) bytes.
            raw.extend_from_slice(unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), size) });
        }
        if id == LUSTRE {
            // Kept for the DXT records after it, the one before freed.
            // SAFETY: the library's block, freed once.
            unsafe { h::darshan_free(lustre.rec) };
            lustre.rec = buf;
            continue;
        }
        // SAFETY: the library's block, freed once.
        unsafe { h::darshan_free(prev) };
        prev = buf;
    }
}

/// `rec` as darshan-diff prints it against `prev` (and alone), and DXT's
/// as darshan-dxt-parser does. (Not LUSTRE's diff: it only says, on
/// stderr, that there is none.)
///
/// # Safety
/// `rec` is a record of module `id` the library made, `prev` null or
/// another; `lustre`'s record null or a LUSTRE record it made.
unsafe fn print(id: usize, rec: *mut c_void, prev: *mut c_void, lustre: &LustreRecordRef) {
    let (no_name, no_rec) = (std::ptr::null_mut(), std::ptr::null_mut());
    let lustre: *const LustreRecordRef = if lustre.rec.is_null() { std::ptr::null() } else { lustre };
    // SAFETY: the caller's: records of the module, names null (printed as
    // "(null)").
    unsafe {
        match id {
            DXT_POSIX => dxt_log_print_posix_file(rec, no_name, no_name, no_name, lustre),
            DXT_MPIIO => dxt_log_print_mpiio_file(rec, no_name, no_name, no_name),
            LUSTRE => {}
            _ => {
                if let Some(diff) = mod_logutils.get(id).as_ref().and_then(|t| t.log_print_diff) {
                    diff(prev, no_name, rec, no_name);
                    diff(rec, no_name, no_rec, no_name);
                }
            }
        }
    }
}

/// Module `id`'s bytes, raw, in chunks to the region's end (at most 64
/// MiB: the harness's decompression bombs).
///
/// # Safety
/// `fd` is live.
unsafe fn raw_bytes(fd: *mut DarshanFd, id: usize, got: &mut Read) {
    let mut chunk = [0u8; 4096];
    for k in 0..(64 << 20) / chunk.len() {
        let n = [4096, 7, 1000][k % 3];
        // SAFETY: fd live; chunk holds n bytes.
        let r = unsafe { darshan_log_get_mod(fd, id as c_int, chunk.as_mut_ptr().cast(), n as c_int) };
        got.errors += u64::from(r < 0);
        got.words =
            got.words.wrapping_add(chunk[..r.clamp(0, n as c_int) as usize].iter().map(|&b| u64::from(b)).sum());
        if r != n as c_int {
            return;
        }
    }
}

/// The accumulator over `raw`'s records of module `id`.
///
/// # Safety
/// `raw` holds whole records of module `id`.
unsafe fn accumulate(id: usize, nprocs: i64, raw: &[u8], got: &mut Read) {
    let mut acc = std::ptr::null_mut();
    // SAFETY: acc writable.
    if unsafe { accum::darshan_accumulator_create(id as c_int, nprocs, &mut acc) } != 0 {
        return;
    }
    let n = (raw.len() / record_size(id)) as c_int;
    let mut metrics = DerivedMetrics::default();
    let mut total = vec![0u8; record_size(id)];
    // SAFETY: acc live; raw holds n records; metrics and total have room.
    unsafe {
        let injected = accum::darshan_accumulator_inject(acc, raw.as_ptr().cast(), n);
        let emitted = accum::darshan_accumulator_emit(acc, &mut metrics, total.as_mut_ptr().cast());
        accum::darshan_accumulator_destroy(acc);
        got.errors += u64::from(injected != 0) + u64::from(emitted != 0);
    }
    got.words = got.words.wrapping_add(metrics.total_bytes as u64);
}

/// The job, command line, mounts and names.
///
/// # Safety
/// `fd` is live.
unsafe fn job_and_names(fd: *mut DarshanFd, got: &mut Read) -> i64 {
    // SAFETY: all-zero is a valid struct darshan_job.
    let mut job: CJob = unsafe { std::mem::zeroed() };
    let mut exe = vec![0u8; 8192];
    let (mut mnts, mut nm): (*mut MntInfo, c_int) = (std::ptr::null_mut(), 0);
    let (mut names, mut nn): (*mut NameRecord, c_int) = (std::ptr::null_mut(), 0);
    // SAFETY: fd live; every out-pointer writable; exe holds more than a
    // job region's 4,096 bytes; what the library made is freed once.
    unsafe {
        got.errors += u64::from(h::darshan_log_get_job(fd, &mut job) != 0);
        got.errors += u64::from(h::darshan_log_get_exe(fd, exe.as_mut_ptr().cast()) != 0);
        match h::darshan_log_get_mounts(fd, &mut mnts, &mut nm) {
            0 if nm > 0 => h::darshan_free(mnts.cast()),
            0 => {}
            _ => got.errors += 1,
        }
        h::darshan_log_get_name_records(fd, &mut names, &mut nn);
        for k in 0..nn.max(0) as usize {
            got.words = got.words.wrapping_add((*names.add(k)).id);
            h::darshan_free((*names.add(k)).name.cast());
        }
        h::darshan_free(names.cast());
    }
    job.nprocs
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: darshan-util-read LOG");
        return ExitCode::from(2);
    };
    let Ok(path) = CString::new(std::os::unix::ffi::OsStringExt::into_vec(path)) else { return ExitCode::from(2) };
    let mut got = Read::default();
    // SAFETY: path is a C string; fd is used while live and closed once.
    unsafe {
        let fd = h::darshan_log_open(path.as_ptr());
        if fd.is_null() {
            return ExitCode::from(255);
        }
        let nprocs = job_and_names(fd, &mut got);
        let (mut mods, mut n): (*mut ModInfo, c_int) = (std::ptr::null_mut(), 0);
        h::darshan_log_get_modules(fd, &mut mods, &mut n);
        let ids: Vec<usize> = (0..n.max(0) as usize).map(|k| (*mods.add(k)).idx as usize).collect();
        h::darshan_free(mods.cast());
        let mut lustre = LustreRecordRef { rec: std::ptr::null_mut() };
        for id in ids.into_iter().filter(|&id| id < KNOWN_MODULE_COUNT) {
            let mut raw = Vec::new();
            records(fd, id, &mut got, &mut raw, &mut lustre);
            if !raw.is_empty() {
                accumulate(id, nprocs, &raw, &mut got);
            }
            raw_bytes(fd, id, &mut got);
        }
        h::darshan_free(lustre.rec);
        h::darshan_log_close(fd);
    }
    // What the library printed through C's stdout goes first.
    // SAFETY: fflush(NULL) flushes every C stream; no precondition.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    println!("{} records ({:x}), {} calls failed", got.records, got.words, got.errors);
    if got.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
