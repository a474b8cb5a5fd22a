//! Where `darshan_log_get_record` starts, as darshan-util's: it reads every
//! region of the log through one stream, so a module's records go on from
//! where the last call left them only when that call read the same module
//! and did not end it. After the call that found no more records, or a
//! call that read the job, the names or another module, they start again
//! at the first. PyDarshan relies on it: `DarshanReport(..)` reads every
//! module, then `mod_read_all_records("POSIX")` reads POSIX again, and
//! PyDarshan's own tests (tests/pydarshan/check_suite.py) count what it
//! gets. The previous library gave nothing the second time.

mod common;

use std::ffi::{c_char, c_int, c_void};

use darshan_log::modules::{H5F, POSIX, STDIO};
use darshan_logutils::get::darshan_log_get_record;
use darshan_logutils::handle::{self as h, CJob, DarshanFd, NameRecord};
use darshan_logutils::records::record_size;

/// The next record of module `id` (its struct's bytes), or None past the
/// last.
fn next(fd: *mut DarshanFd, id: usize) -> Option<Vec<u8>> {
    let mut buf: *mut c_void = std::ptr::null_mut();
    // SAFETY: fd is live; buf a writable null pointer.
    let ret = unsafe { darshan_log_get_record(fd, id as c_int, &mut buf) };
    assert!(ret >= 0, "darshan_log_get_record failed");
    if ret == 0 {
        return None;
    }
    // SAFETY: the library handed out a block of at least the struct's size,
    // which is ours to free.
    let bytes = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), record_size(id)).to_vec() };
    // SAFETY: a block the library handed out.
    unsafe { h::darshan_free(buf) };
    Some(bytes)
}

fn read_job(fd: *mut DarshanFd) {
    let mut job = std::mem::MaybeUninit::<CJob>::uninit();
    // SAFETY: fd is live; room for a struct darshan_job.
    assert_eq!(unsafe { h::darshan_log_get_job(fd, job.as_mut_ptr()) }, 0);
}

fn read_names(fd: *mut DarshanFd) {
    let (mut recs, mut n): (*mut NameRecord, c_int) = (std::ptr::null_mut(), 0);
    // SAFETY: fd is live; both pointers writable; the names and the array
    // are ours to free.
    unsafe {
        h::darshan_log_get_name_records(fd, &mut recs, &mut n);
        for k in 0..usize::try_from(n).unwrap() {
            h::darshan_free((*recs.add(k)).name.cast());
        }
        h::darshan_free(recs.cast());
    }
}

fn read_exe(fd: *mut DarshanFd) {
    let mut exe = vec![0 as c_char; 4096];
    // SAFETY: fd is live; room for the job region's command line.
    assert_eq!(unsafe { h::darshan_log_get_exe(fd, exe.as_mut_ptr()) }, 0);
}

#[test]
fn records_read_again_after_the_last_or_another_region_start_from_the_first() {
    let fd = common::open_imbalanced_io();
    read_job(fd);
    let all: Vec<Vec<u8>> = std::iter::from_fn(|| next(fd, POSIX)).collect();
    assert!(all.len() > 3, "the log's POSIX records: {}", all.len());
    assert_ne!(all[0], all[1]);
    // The call after the one that found no more starts again.
    assert!(next(fd, POSIX).as_ref() == Some(&all[0]), "after the end");
    // Another region read in between: the first again.
    type Between = (&'static str, fn(*mut DarshanFd));
    let between: [Between; 3] =
        [("the job", read_job), ("the names", read_names), ("another module", |fd| assert!(next(fd, STDIO).is_some()))];
    for (what, read) in between {
        assert!(next(fd, POSIX).as_ref() == Some(&all[1]), "the second record");
        read(fd);
        assert!(next(fd, POSIX).as_ref() == Some(&all[0]), "after {what}");
    }
    // What reads no region leaves the records where they were: the command
    // line (kept since the job was read) and a module the log lacks.
    read_exe(fd);
    assert!(next(fd, POSIX).as_ref() == Some(&all[1]), "after the command line");
    let mut buf: *mut c_void = std::ptr::null_mut();
    // SAFETY: fd is live; buf a writable null pointer. darshan-util 3.5.0
    // returns 0 (no records: its reader looks at the module's map first;
    // run here through C's library), and C's darshan-merge.c asks every
    // module so. (Ours said "Invalid H5F module version number (got 0)"
    // and returned -1: C's darshan-merge.c then stopped.)
    assert_eq!(unsafe { darshan_log_get_record(fd, H5F as c_int, &mut buf) }, 0);
    assert!(next(fd, POSIX).as_ref() == Some(&all[2]), "after a module the log lacks");
    // SAFETY: a live handle, closed once.
    unsafe { h::darshan_log_close(fd) };
}
