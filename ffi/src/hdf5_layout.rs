//! A dataset's layout (datatype size, chunk sizes) known from an earlier
//! open. Darshan asks for it at every open: the chunk sizes through a copy
//! of the dataset's creation property list, 2.2 us inside HDF5 1.10 and
//! 5.1 us inside 2.0 (of an H5Dopen2 + H5Dclose that costs 1.6-1.8 us
//! without Darshan). Neither can change while the dataset exists, so an
//! open of the same dataset takes them from the last open's record
//! instead, and asks HDF5 only for the dataspace (its extent can change).
//!
//! "The same dataset": in the same open file (the file's id, which HDF5
//! never hands out again once freed: a file closed and rewritten by
//! another process, a file replaced under its name, an external link's
//! or a mount's file opened anew all get another), at the same path as
//! HDF5 names it (two datasets can share a Darshan record name: `/g` +
//! `d` and `/` + `gd`), and nothing since could have put another dataset
//! at that path in that file. The epoch below moves before every call
//! that can: a link's deletion or move, an object's count of links
//! lowered, any kind of id freed wholesale, the library shut down.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use darshan_core::paths::PATH_MAX;
use darshan_hdf5::dataset::LayoutKey;

use crate::hdf5_lib::{Hdf5, Hid};

static EPOCH: AtomicU64 = AtomicU64::new(1);

/// Before a call that can put another dataset where one was.
pub fn changed() {
    EPOCH.fetch_add(1, SeqCst);
}

/// Which dataset `dset` (just opened) is, for keeping its layout: None
/// where HDF5 gives no file or path for it, or the library is linked in
/// statically (whose 1.6-API link deletions are not wrapped).
pub fn key(lib: &Hdf5, dset: Hid) -> Option<LayoutKey> {
    if lib.linked_in {
        return None;
    }
    // Read first: a change while the layout is asked makes it stale.
    let epoch = EPOCH.load(SeqCst);
    let file = lib.file_id_of(dset)?;
    let mut path = [0u8; PATH_MAX];
    let p = name_len(lib.object_name(dset, &mut path), path.len())?;
    let object = (lib.key(file) as u64).rotate_left(29) ^ darshan_log::record_id(&path[..p]);
    Some(LayoutKey { epoch, object })
}

/// The length of a name HDF5 wrote whole into a buffer of `room` bytes
/// (its result: the full length, or < 0 on an error).
fn name_len(r: isize, room: usize) -> Option<usize> {
    (r > 0 && (r as usize) < room).then_some(r as usize)
}
