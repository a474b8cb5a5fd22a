//! What an HDF5 id's own bits say of its kind, used only where they are
//! proven: HDF5 since 1.10 puts the id's type (`H5I_type_t`) in the top
//! bits of its 64-bit `hid_t` (bits 56-62), a file's 1 and a dataset's 5,
//! in 1.10, 1.12, 1.14 and 2.0 alike. Every id that H5F or H5D keeps was
//! checked against that when it was kept ([`IdBits::kept`]); one that did not
//! match (another encoding, another library) turns the shortcut off for
//! the process. So while it is on, an id whose bits are neither a file's
//! nor a dataset's is in neither table, and its close need not be timed
//! or looked for: h5py releases seven dataspaces, types and property
//! lists through `H5Idec_ref` for each sample it reads.

use std::sync::atomic::{AtomicBool, Ordering};

/// The kinds of id the HDF5 modules keep.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    File = 1,
    Dataset = 5,
}

/// Whether every id kept so far had the bits of its kind.
pub struct IdBits {
    unproven: AtomicBool,
}

/// The process's: the HDF5 modules note each id they keep here.
pub static ID_BITS: IdBits = IdBits::new();

fn type_bits(hid: i64) -> i64 {
    (hid >> 56) & 0x7f
}

impl IdBits {
    pub const fn new() -> IdBits {
        IdBits { unproven: AtomicBool::new(false) }
    }

    /// `hid`, of kind `kind`, is about to be kept in a handle table.
    pub fn kept(&self, hid: i64, kind: Kind) {
        if type_bits(hid) != kind as i64 {
            // Relaxed is enough: the program can only release this id
            // after the open returned it, which is after this store.
            self.unproven.store(true, Ordering::Relaxed);
        }
    }

    /// False only if `hid` cannot be an id H5F or H5D keeps.
    pub fn may_be_kept(&self, hid: i64) -> bool {
        self.unproven.load(Ordering::Relaxed) || matches!(type_bits(hid), 1 | 5)
    }
}

impl Default for IdBits {
    fn default() -> IdBits {
        IdBits::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids as h5py's HDF5 2.0 and the system's 1.10 hand them out, then
    /// one of HDF5 1.8's 32-bit ids: from then on every id may be kept.
    #[test]
    fn an_id_kept_with_bits_that_did_not_say_its_kind_turned_the_shortcut_off() {
        let bits = IdBits::new();
        let (file, dataset, space, plist) = (1i64 << 56, (5i64 << 56) | 7, (4i64 << 56) | 3, (11i64 << 56) | 26);
        bits.kept(file, Kind::File);
        bits.kept(dataset, Kind::Dataset);
        assert!(bits.may_be_kept(file) && bits.may_be_kept(dataset));
        assert!(!bits.may_be_kept(space) && !bits.may_be_kept(plist));
        bits.kept(0x0500_0001, Kind::Dataset);
        assert!(bits.may_be_kept(space) && bits.may_be_kept(plist), "an id whose bits lied once: no id is passed over");
    }
}
