//! A crash-safe file's extension map written in place (docs/log-format.md
//! §10, crate::crash_safe::EXT_MAP_OFF): the runtime names there, as
//! modules register and grow, the regions Darshan's readers must not see
//! in the header (ids they do not know, DXT's traces in the file's own
//! layout: crate::crash_safe::in_map). It has the extension trailer's
//! layout (crate::extension), read back by `crash_safe::apply_ext_map`.
//!
//! Entries are taken from the footer backwards as modules register, each
//! written before the count that shows it, so that a reader of the file
//! never sees a count beyond its entries; the magic comes with the first
//! entry, so a file none of those modules registered in has no map. No
//! allocation, no panic: it runs under the crash-safe file's lock, in the
//! call that makes a record.

use crate::extension::{
    u32_at, u64_at, ENTRY_FLAGS, ENTRY_ID, ENTRY_LEN, ENTRY_OFF, ENTRY_SIZE, ENTRY_VERSION, FOOTER_SIZE, MAGIC,
    TRAILER_VERSION,
};

/// The map's bytes: read through `&[u8]`, written through `&mut [u8]`.
pub struct ExtMap<B>(pub B);

/// Where entry `k` (0: the first registered) starts in a map of `len`
/// bytes, if there is room for it.
fn entry_at(len: usize, k: usize) -> Option<usize> {
    len.checked_sub(FOOTER_SIZE + (k + 1) * ENTRY_SIZE)
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    if let Some(dst) = b.get_mut(at..at + v.len()) {
        dst.copy_from_slice(v);
    }
}

impl<B: AsRef<[u8]>> ExtMap<B> {
    /// The entries the footer shows, never more than the block holds.
    fn count(&self) -> usize {
        let b = self.0.as_ref();
        match b.len().checked_sub(FOOTER_SIZE) {
            Some(f) if &b[b.len() - 8..] == MAGIC => (u32_at(b, f) as usize).min(f / ENTRY_SIZE),
            _ => 0,
        }
    }

    fn entry(&self, k: usize) -> Option<usize> {
        entry_at(self.0.as_ref().len(), k)
    }

    /// Where the entries shown start (an iterator that holds no borrow).
    fn entries(&self) -> impl Iterator<Item = usize> + 'static {
        let len = self.0.as_ref().len();
        (0..self.count()).filter_map(move |k| entry_at(len, k))
    }

    /// The entry of module `id`, if it registered.
    fn find(&self, id: usize) -> Option<usize> {
        self.entries().find(|&e| u32_at(self.0.as_ref(), e + ENTRY_ID) as usize == id)
    }

    /// The bytes of module `id`'s records; None if it is not named here.
    pub fn len(&self, id: usize) -> Option<u64> {
        self.find(id).map(|e| u64_at(self.0.as_ref(), e + ENTRY_LEN))
    }
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> ExtMap<B> {
    /// Module `id` registered its region at file offset `off` with records
    /// of `version` (again: the region moved, emptied). False when the map
    /// has no room left.
    pub fn register(&mut self, id: usize, off: u64, version: u32) -> bool {
        let n = self.count();
        let Some(e) = self.find(id).or_else(|| self.entry(n)) else { return false };
        let b = self.0.as_mut();
        put(b, e + ENTRY_ID, &(id as u32).to_le_bytes());
        put(b, e + ENTRY_VERSION, &version.to_le_bytes());
        put(b, e + ENTRY_OFF, &off.to_le_bytes());
        put(b, e + ENTRY_LEN, &0u64.to_le_bytes());
        put(b, e + ENTRY_FLAGS, &0u64.to_le_bytes());
        let f = b.len() - FOOTER_SIZE;
        let shown = n.max((f - e) / ENTRY_SIZE);
        put(b, f, &(shown as u32).to_le_bytes());
        put(b, f + 4, &TRAILER_VERSION.to_le_bytes());
        put(b, f + 8, MAGIC);
        true
    }

    /// Module `id`'s records now take `bytes`. False if it is not named here.
    pub fn set_len(&mut self, id: usize, bytes: u64) -> bool {
        let Some(e) = self.find(id) else { return false };
        put(self.0.as_mut(), e + ENTRY_LEN, &bytes.to_le_bytes());
        true
    }

    /// Module `id` made a record of `bytes`. False if it is not named here.
    pub fn add_len(&mut self, id: usize, bytes: u64) -> bool {
        let Some(now) = self.len(id) else { return false };
        self.set_len(id, now + bytes)
    }

    /// Every entry's partial bit from the header's flags (a bit per id).
    pub fn set_partial(&mut self, flags: u64) {
        for e in self.entries() {
            let b = self.0.as_mut();
            let id = u32_at(b, e + ENTRY_ID);
            put(b, e + ENTRY_FLAGS, &u32::from(id < 64 && flags >> id & 1 == 1).to_le_bytes());
        }
    }

    /// Every region emptied and no longer partial, where each starts kept
    /// (a forked child's file starts with none of its parent's records).
    pub fn clear(&mut self) {
        for e in self.entries() {
            put(self.0.as_mut(), e + ENTRY_LEN, &[0; 12]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crash_safe::{in_map, EXT_MAP_SIZE, NAMES_OFF};
    use crate::header::{Compression, Header, RegionMap, HEADER_SIZE};
    use crate::modules::{DXT_MPIIO, DXT_POSIX, EXTENSION_MODULES, POSIX};

    fn header() -> Header {
        Header {
            job_map: RegionMap { off: HEADER_SIZE as u64, len: (NAMES_OFF - HEADER_SIZE) as u64 },
            name_map: RegionMap { off: NAMES_OFF as u64, len: 0 },
            ..Header::empty(Compression::None)
        }
    }

    /// What a reader of the file makes of the block: the trailer's parser,
    /// which also reads the logs C's tools never see the trailer of.
    fn read(b: &[u8]) -> Header {
        let mut h = header();
        crate::crash_safe::apply_ext_map(&mut h, b, 1 << 20).expect("a map the reader takes");
        h
    }

    #[test]
    fn a_map_no_module_registered_in_is_no_map() {
        let b = [0u8; EXT_MAP_SIZE];
        assert_eq!(read(&b).mod_map, header().mod_map);
        assert_eq!(ExtMap(&b[..]).len(63), None);
    }

    #[test]
    fn registered_modules_grow_and_go_partial_as_the_reader_sees_them() {
        let mut b = [0u8; EXT_MAP_SIZE];
        let mut m = ExtMap(&mut b[..]);
        assert!(m.register(63, 9000, 1) && m.add_len(63, 48));
        assert!(!m.add_len(62, 8), "not registered");
        let h = read(&b);
        assert_eq!((h.mod_map[63], h.mod_ver[63]), (RegionMap { off: 9000, len: 48 }, 1));
        let mut m = ExtMap(&mut b[..]);
        assert!(m.register(62, 12000, 1) && m.add_len(62, 8) && m.add_len(63, 48));
        m.set_partial(1 << 63 | 1 << 1);
        let h = read(&b);
        assert_eq!(
            (h.mod_map[63], h.mod_map[62]),
            (RegionMap { off: 9000, len: 96 }, RegionMap { off: 12000, len: 8 })
        );
        assert_eq!(h.partial_flag, 1 << 63);
        // Registering again moves the region, not a second entry.
        assert!(ExtMap(&mut b[..]).register(63, 9100, 1));
        assert_eq!(read(&b).mod_map[63], RegionMap { off: 9100, len: 0 });
        ExtMap(&mut b[..]).clear();
        let h = read(&b);
        assert_eq!((h.mod_map[62].len, h.mod_map[62].off, h.partial_flag), (0, 12000, 0));
    }

    #[test]
    fn every_module_of_ours_and_dxts_traces_have_room_and_no_other() {
        let mut b = [0u8; EXT_MAP_SIZE];
        let dxt = crate::dxt_mapped::VERSION;
        let all: Vec<(usize, u32)> =
            EXTENSION_MODULES.iter().map(|&(id, _, v)| (id, v)).chain([(DXT_POSIX, dxt), (DXT_MPIIO, dxt)]).collect();
        let mut m = ExtMap(&mut b[..]);
        for (k, &(id, version)) in all.iter().enumerate() {
            assert!(in_map(id, version));
            assert!(m.register(id, 9000 + 100 * k as u64, version) && m.add_len(id, 8));
        }
        assert!(!in_map(DXT_POSIX, 1) && !in_map(POSIX, 4), "Darshan's layouts stay in the header");
        assert!(!m.register(40, 9900, 1), "a full map");
        let h = read(&b);
        for (k, &(id, version)) in all.iter().enumerate() {
            assert_eq!((h.mod_map[id], h.mod_ver[id]), (RegionMap { off: 9000 + 100 * k as u64, len: 8 }, version));
        }
        assert_eq!(h.mod_map[40], RegionMap::default());
    }

    #[test]
    fn a_block_too_small_for_any_entry_refuses_without_a_panic() {
        for size in [0, 8, FOOTER_SIZE, FOOTER_SIZE + ENTRY_SIZE - 1] {
            let mut b = vec![0u8; size];
            let mut m = ExtMap(&mut b[..]);
            assert!(!m.register(63, 9000, 1), "{size} bytes");
            assert!(!m.add_len(63, 8));
            m.set_partial(u64::MAX);
            m.clear();
        }
    }

    /// A footer's count is bytes like any other: one of 4 billion in a
    /// block of 2 entries shows 2 (no loop past the bytes behind it).
    #[test]
    fn a_footer_that_counts_past_its_block_shows_only_what_the_block_holds() {
        let mut b = [0u8; FOOTER_SIZE + 2 * ENTRY_SIZE];
        let mut m = ExtMap(&mut b[..]);
        assert!(m.register(63, 9000, 1) && m.add_len(63, 8));
        let f = b.len() - FOOTER_SIZE;
        b[f..f + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let m = ExtMap(&b[..]);
        assert_eq!((m.count(), m.len(63)), (2, Some(8)));
    }
}
