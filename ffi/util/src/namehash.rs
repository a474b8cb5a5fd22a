//! darshan-util's table of names (`darshan_log_get_namehash`,
//! `darshan_log_get_filtered_namehash`): a uthash table of
//! `struct darshan_name_record_ref`, which the caller searches and frees
//! with uthash's macros (C's darshan-parser does). Each entry is made by
//! src/namehash.c, with uthash's own macros, from the format crate's
//! names in the log's order.

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void};

use crate::fd::{state, DarshanFd};
use crate::guarded;
use crate::reading::State;

extern "C" {
    fn darshan_util_namehash_add(hash: *mut *mut c_void, id: u64, name: *const c_char, len: usize) -> c_int;
}

/// The log's names (those in `keep`, when given) added to the table at
/// `*hash`: 0, or -1 when they cannot be read or there is no memory.
///
/// # Safety
/// `hash` is writable; `*hash` is null or a table this library made.
unsafe fn add_names(st: &mut State, hash: *mut *mut c_void, keep: Option<HashSet<u64>>) -> c_int {
    if st.log().header.name_map.len == 0 {
        // darshan-util's: no name region, no table.
        // SAFETY: the caller's: writable.
        unsafe { hash.write(std::ptr::null_mut()) };
        return 0;
    }
    st.read_names();
    let names = match st.log().names() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("Error: failed to read name hash from darshan log file: {e}.");
            return -1;
        }
    };
    for (id, name) in names.iter().filter(|&(id, _)| keep.as_ref().is_none_or(|k| k.contains(&id))) {
        // SAFETY: the caller's table, and `name.len()` bytes at `name`.
        if unsafe { darshan_util_namehash_add(hash, id, name.as_ptr().cast(), name.len()) } != 0 {
            return -1;
        }
    }
    0
}

/// Every name of the log, into the uthash table at `*hash`.
///
/// # Safety
/// `fd` is null or a live handle; `hash` is writable, `*hash` null or a
/// table this library made.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_namehash(fd: *mut DarshanFd, hash: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    if hash.is_null() {
        return -1;
    }
    // SAFETY: the caller's.
    guarded(-1, || unsafe { add_names(st, hash, None) })
}

/// The names of the `count` ids at `ids` (every name when `ids` is null,
/// as darshan-util's), into the uthash table at `*hash`.
///
/// # Safety
/// As [`darshan_log_get_namehash`]; `ids` holds `count` ids.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_filtered_namehash(
    fd: *mut DarshanFd,
    hash: *mut *mut c_void,
    ids: *const u64,
    count: c_int,
) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    if hash.is_null() {
        return -1;
    }
    // SAFETY: the caller's: `count` ids at `ids`, or null.
    let keep = unsafe { crate::handle::wanted_ids(ids, count) };
    // SAFETY: the caller's.
    guarded(-1, || unsafe { add_names(st, hash, keep) })
}
