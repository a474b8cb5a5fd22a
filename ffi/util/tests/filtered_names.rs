//! darshan-util's filtered name calls keep every name when given no id
//! list (a null whitelist: `darshan_log_get_filtered_namehash` is
//! `darshan_log_get_namehash` with NULL, 0), the listed ids' names when
//! given one, and none for an empty list. The previous library gave no
//! name for a null list.

mod common;

use std::ffi::c_int;

use darshan_logutils::handle::{self as h, NameRecord};

/// The ids of the names a call hands out, the array and names freed.
fn ids(call: impl FnOnce(*mut *mut NameRecord, *mut c_int)) -> Vec<u64> {
    let (mut recs, mut n): (*mut NameRecord, c_int) = (std::ptr::null_mut(), 0);
    call(&mut recs, &mut n);
    let mut out = Vec::new();
    // SAFETY: the library handed out n records, each name and the array
    // ours to free.
    unsafe {
        for k in 0..usize::try_from(n).unwrap() {
            out.push((*recs.add(k)).id);
            h::darshan_free((*recs.add(k)).name.cast());
        }
        h::darshan_free(recs.cast());
    }
    out
}

#[test]
fn a_filtered_name_call_without_an_id_list_keeps_every_name_as_darshan_util_does() {
    let fd = common::open_imbalanced_io();
    // SAFETY: fd is live; the pointers are writable.
    let all = ids(|r, n| unsafe { h::darshan_log_get_name_records(fd, r, n) });
    assert!(all.len() > 100, "{} names", all.len());
    // SAFETY: as above; a null id list.
    let unfiltered = ids(|r, n| unsafe { h::darshan_log_get_filtered_name_records(fd, r, n, std::ptr::null(), 0) });
    assert_eq!(unfiltered.len(), all.len(), "a null id list keeps every name");
    let wanted = [all[7], all[3]];
    // SAFETY: as above; `wanted` holds 2 ids.
    let some = ids(|r, n| unsafe { h::darshan_log_get_filtered_name_records(fd, r, n, wanted.as_ptr(), 2) });
    assert_eq!(some.len(), 2);
    assert!(some.contains(&all[7]) && some.contains(&all[3]));
    // SAFETY: as above; 0 of `wanted`'s ids.
    let none = ids(|r, n| unsafe { h::darshan_log_get_filtered_name_records(fd, r, n, wanted.as_ptr(), 0) });
    assert!(none.is_empty(), "an empty id list keeps no name");
    // SAFETY: a live handle, closed once.
    unsafe { h::darshan_log_close(fd) };
}
