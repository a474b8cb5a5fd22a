//! The crash-safe file's extension map (docs/log-format.md §10,
//! `darshan_log::crash_safe::EXT_MAP_OFF`): where the regions of modules
//! with ids Darshan does not know (POSIX_META), and DXT's traces in the
//! layout the file keeps them in, are named while the process runs, in
//! place of the header's module map, which Darshan's readers would choke
//! on (PyDarshan 3.5.0 cannot open a file whose header maps such an id;
//! darshan-merge 3.5.0 gives up a file whose DXT region it cannot read).
//!
//! The block has the extension trailer's layout: entries, then a footer
//! (count, version, magic). Entries are taken from the footer backwards
//! as modules register, each written before the count that shows it, so
//! a reader of the file never sees a count beyond its entries; the magic
//! is written with the first entry, so a file whose extension modules
//! never registered has no map at all.

use darshan_log::extension::{ENTRY_SIZE, FOOTER_SIZE, MAGIC, TRAILER_VERSION};

fn get32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}

fn get64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

fn count(b: &[u8]) -> usize {
    if &b[b.len() - 8..] == MAGIC {
        get32(b, b.len() - FOOTER_SIZE) as usize
    } else {
        0
    }
}

/// Where entry `k` (0: the first registered) starts.
fn entry(b: &[u8], k: usize) -> usize {
    b.len() - FOOTER_SIZE - (k + 1) * ENTRY_SIZE
}

/// The entry of module `id`, if it registered.
fn find(b: &[u8], id: usize) -> Option<usize> {
    (0..count(b)).map(|k| entry(b, k)).find(|&e| get32(b, e) as usize == id)
}

/// Whether module `id`, its records laid out as `version`, is named here
/// rather than in the header.
pub fn holds(id: usize, version: u32) -> bool {
    darshan_log::crash_safe::in_map(id, version)
}

/// Whether module `id` registered here.
pub fn has(b: &[u8], id: usize) -> bool {
    find(b, id).is_some()
}

/// Module `id` registered its region at file offset `off` with records
/// of `version`. False when the map is full (the module then records
/// in a region no reader of the file finds).
pub fn register(b: &mut [u8], id: usize, off: u64, version: u32) -> bool {
    let e = match find(b, id) {
        Some(e) => e,
        None => {
            let n = count(b);
            if b.len() < FOOTER_SIZE + (n + 1) * ENTRY_SIZE {
                return false;
            }
            entry(b, n)
        }
    };
    b[e..e + 4].copy_from_slice(&(id as u32).to_le_bytes());
    b[e + 4..e + 8].copy_from_slice(&version.to_le_bytes());
    b[e + 8..e + 16].copy_from_slice(&off.to_le_bytes());
    b[e + 16..e + ENTRY_SIZE].iter_mut().for_each(|x| *x = 0);
    let n = count(b).max((b.len() - FOOTER_SIZE - e) / ENTRY_SIZE);
    let f = b.len() - FOOTER_SIZE;
    b[f..f + 4].copy_from_slice(&(n as u32).to_le_bytes());
    b[f + 4..f + 8].copy_from_slice(&TRAILER_VERSION.to_le_bytes());
    b[f + 8..].copy_from_slice(MAGIC);
    true
}

/// The bytes of module `id`'s records (0 if it has no entry).
pub fn len(b: &[u8], id: usize) -> u64 {
    find(b, id).map_or(0, |e| get64(b, e + 16))
}

/// Module `id`'s records now take `bytes`.
pub fn set_len(b: &mut [u8], id: usize, bytes: u64) {
    if let Some(e) = find(b, id) {
        b[e + 16..e + 24].copy_from_slice(&bytes.to_le_bytes());
    }
}

/// Every entry's partial bit from the header's flags (`flags`, a bit per
/// module id).
pub fn set_partial(b: &mut [u8], flags: u64) {
    for k in 0..count(b) {
        let e = entry(b, k);
        let id = get32(b, e);
        let bit = u32::from(id < 64 && flags >> id & 1 == 1);
        b[e + 24..e + 28].copy_from_slice(&bit.to_le_bytes());
    }
}

/// Every region emptied (a forked child's file starts with none of its
/// parent's records), where they start kept.
pub fn clear(b: &mut [u8]) {
    for k in 0..count(b) {
        let e = entry(b, k);
        b[e + 16..e + 28].iter_mut().for_each(|x| *x = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::crash_safe::{EXT_MAP_SIZE, NAMES_OFF};
    use darshan_log::header::{Compression, Header, RegionMap, HEADER_SIZE};
    use darshan_log::modules::MAX_MODS;

    fn header() -> Header {
        Header {
            version: darshan_log::header::LogVersion::V341,
            swapped: false,
            compression: Compression::None,
            partial_flag: 0,
            job_map: RegionMap { off: HEADER_SIZE as u64, len: (NAMES_OFF - HEADER_SIZE) as u64 },
            name_map: RegionMap { off: NAMES_OFF as u64, len: 0 },
            mod_map: [RegionMap::default(); MAX_MODS],
            mod_ver: [0; MAX_MODS],
        }
    }

    /// What the tools' reader makes of the block: the oracle is
    /// darshan_log's own parser of the trailer layout, not this writer.
    fn read(b: &[u8]) -> Header {
        let mut h = header();
        darshan_log::crash_safe::apply_ext_map(&mut h, b, 1 << 20).expect("a map the reader takes");
        h
    }

    #[test]
    fn a_map_no_module_registered_in_is_no_map() {
        let b = [0u8; EXT_MAP_SIZE];
        assert_eq!(read(&b).mod_map, header().mod_map);
    }

    #[test]
    fn registered_modules_grow_and_go_partial_as_the_reader_sees_them() {
        let mut b = [0u8; EXT_MAP_SIZE];
        assert!(register(&mut b, 63, 9000, 1));
        set_len(&mut b, 63, 48);
        let h = read(&b);
        assert_eq!(h.mod_map[63], RegionMap { off: 9000, len: 48 });
        assert_eq!(h.mod_ver[63], 1);
        assert!(register(&mut b, 62, 12000, 1));
        set_len(&mut b, 62, 8);
        set_len(&mut b, 63, 96);
        set_partial(&mut b, 1 << 63 | 1 << 1);
        let h = read(&b);
        assert_eq!(
            (h.mod_map[63], h.mod_map[62]),
            (RegionMap { off: 9000, len: 96 }, RegionMap { off: 12000, len: 8 })
        );
        assert_eq!(h.partial_flag, 1 << 63);
        assert_eq!(len(&b, 63), 96);
        // Registering again moves the region, not a second entry.
        assert!(register(&mut b, 63, 9100, 1));
        assert_eq!(read(&b).mod_map[63], RegionMap { off: 9100, len: 0 });
        clear(&mut b);
        let h = read(&b);
        assert_eq!((h.mod_map[62].len, h.mod_map[62].off, h.partial_flag), (0, 12000, 0));
    }

    #[test]
    fn every_module_of_ours_and_dxts_traces_have_room_and_no_other() {
        use darshan_log::modules::{DXT_MPIIO, DXT_POSIX, EXTENSION_MODULES};
        let mut b = [0u8; EXT_MAP_SIZE];
        let dxt = darshan_log::dxt_mapped::VERSION;
        let all: Vec<(usize, u32)> =
            EXTENSION_MODULES.iter().map(|&(id, _, v)| (id, v)).chain([(DXT_POSIX, dxt), (DXT_MPIIO, dxt)]).collect();
        for (k, &(id, version)) in all.iter().enumerate() {
            assert!(holds(id, version));
            assert!(register(&mut b, id, 9000 + 100 * k as u64, version));
            set_len(&mut b, id, 8);
        }
        assert!(!holds(DXT_POSIX, 1) && !holds(darshan_log::modules::POSIX, 4), "Darshan's layouts stay in the header");
        assert!(!register(&mut b, 40, 9900, 1), "a full map");
        let h = read(&b);
        for (k, &(id, version)) in all.iter().enumerate() {
            assert_eq!((h.mod_map[id], h.mod_ver[id]), (RegionMap { off: 9000 + 100 * k as u64, len: 8 }, version));
        }
        assert_eq!(h.mod_map[40], RegionMap::default());
    }
}
