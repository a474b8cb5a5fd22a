//! The name table: record id -> name, packed exactly as the log's name
//! region ((u64 id, name, NUL)*) in a buffer bounded by DARSHAN_NAMEMEM,
//! with an open-addressing index. Memory is reserved at start-up; an
//! insert never allocates.

use crate::store::arena::ZeroedWords;

/// Slots of the index before any module says how many records it keeps.
const MIN_SLOTS: usize = 64;

pub struct NameArena {
    packed: Packed,
    limit: usize,
    /// The index, open addressing over u32 slots: the offset + 1 of a name
    /// in `packed` (0 = empty), whose first 8 bytes are its record id. A
    /// fresh mapping, touched only where names land; 4 bytes a slot, so
    /// a thousand names touch a third of the pages that ids beside the
    /// offsets did.
    index: ZeroedWords,
    count: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Insert {
    Added,
    Present,
    Full,
}

/// The packed names: on the heap, or in the crash-safe mapping.
enum Packed {
    Heap(Vec<u8>),
    Mapped { buf: &'static mut [u8], len: usize },
}

impl Packed {
    fn len(&self) -> usize {
        match self {
            Packed::Heap(v) => v.len(),
            Packed::Mapped { len, .. } => *len,
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Packed::Heap(v) => v,
            Packed::Mapped { buf, len } => &buf[..*len],
        }
    }

    /// Append; the caller has checked the room.
    fn push(&mut self, parts: [&[u8]; 3]) {
        match self {
            Packed::Heap(v) => parts.iter().for_each(|p| v.extend_from_slice(p)),
            Packed::Mapped { buf, len } => {
                for p in parts {
                    buf[*len..*len + p.len()].copy_from_slice(p);
                    *len += p.len();
                }
            }
        }
    }

    fn clear(&mut self) {
        match self {
            Packed::Heap(v) => v.clear(),
            Packed::Mapped { buf, len } => {
                buf[..*len].iter_mut().for_each(|b| *b = 0);
                *len = 0;
            }
        }
    }
}

impl NameArena {
    /// A table of at most `limit` bytes; the index starts small and is
    /// sized by [`NameArena::expect`] as modules register.
    /// None if `limit` bytes cannot be reserved.
    pub fn new(limit: usize) -> Option<NameArena> {
        let mut packed = Vec::new();
        packed.try_reserve_exact(limit).ok()?;
        let index = ZeroedWords::new(MIN_SLOTS / 2)?;
        Some(NameArena { packed: Packed::Heap(packed), limit, index, count: 0 })
    }

    /// A table whose packed names live in `buf` (the crash-safe mapping).
    /// None if the small starting index cannot be had.
    pub fn in_place(buf: &'static mut [u8]) -> Option<NameArena> {
        let limit = buf.len();
        let index = ZeroedWords::new(MIN_SLOTS / 2)?;
        Some(NameArena { packed: Packed::Mapped { buf, len: 0 }, limit, index, count: 0 })
    }

    fn slots(&self) -> usize {
        self.index.len() * 2
    }

    fn entry(&self, i: usize) -> u32 {
        bytemuck::cast_slice::<u64, u32>(&self.index)[i]
    }

    /// The record id of the name at `off` in `packed`.
    fn id_at(&self, off: usize) -> u64 {
        let p = self.packed.bytes();
        u64::from_le_bytes(p[off..off + 8].try_into().unwrap_or_default())
    }

    /// Size the index for `records` names (the record capacity of every
    /// registered module): at most 2/3 full, so inserts never fail for
    /// lack of slots. Called when a module registers, never from a
    /// wrapper; a compact index also means few page faults per new name.
    pub fn expect(&mut self, records: usize) {
        // No more names than fit in `limit` (8-byte id + 1 char + NUL).
        let names = records.min(self.limit / 10);
        let slots = (names * 3 / 2 + 1).max(MIN_SLOTS).next_power_of_two();
        if slots <= self.slots() {
            return;
        }
        // Keep the old index if the new one cannot be had: it stays
        // correct, and inserts are refused (Full) once it is 2/3 full.
        let Some(index) = ZeroedWords::new(slots / 2) else { return };
        let old = std::mem::replace(&mut self.index, index);
        for &e in bytemuck::cast_slice::<u64, u32>(&old).iter().filter(|&&e| e != 0) {
            let (i, _) = self.slot(self.id_at(e as usize - 1));
            bytemuck::cast_slice_mut::<u64, u32>(&mut self.index)[i] = e;
        }
    }

    fn slot(&self, id: u64) -> (usize, bool) {
        let mask = self.slots() - 1;
        // The id is already a good hash.
        let mut i = (id as usize ^ (id >> 32) as usize) & mask;
        loop {
            match self.entry(i) {
                0 => return (i, false),
                e if self.id_at(e as usize - 1) == id => return (i, true),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub fn insert(&mut self, id: u64, name: &[u8]) -> Insert {
        let (i, found) = self.slot(id);
        if found {
            return Insert::Present;
        }
        let need = 8 + name.len() + 1;
        // At most 2/3 full, so that probing stays short.
        if self.packed.len() + need > self.limit || (self.count + 1) * 3 > self.slots() * 2 {
            return Insert::Full;
        }
        let Ok(entry) = u32::try_from(self.packed.len() + 1) else { return Insert::Full };
        bytemuck::cast_slice_mut::<u64, u32>(&mut self.index)[i] = entry;
        self.packed.push([&id.to_le_bytes(), name, &[0]]);
        self.count += 1;
        Insert::Added
    }

    pub fn contains(&self, id: u64) -> bool {
        self.slot(id).1
    }

    pub fn get(&self, id: u64) -> Option<&[u8]> {
        let (i, found) = self.slot(id);
        if !found {
            return None;
        }
        let p = self.packed.bytes();
        let start = self.entry(i) as usize - 1 + 8;
        let end = start + p[start..].iter().position(|&c| c == 0)?;
        Some(&p[start..end])
    }

    /// The packed bytes, ready for the name region.
    pub fn packed(&self) -> &[u8] {
        self.packed.bytes()
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn clear(&mut self) {
        self.packed.clear();
        self.index.zero();
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_packed_as_the_log_region_and_bounded() {
        assert!(std::hint::black_box(NameArena::new(1 << 60)).is_none());
        let mut n = NameArena::new(40).unwrap();
        n.expect(3);
        assert_eq!(n.insert(7, b"/tmp/a"), Insert::Added);
        assert_eq!(n.insert(7, b"/tmp/a"), Insert::Present);
        assert_eq!(n.insert(0, b"<X>"), Insert::Added);
        assert_eq!(n.get(7), Some(&b"/tmp/a"[..]));
        assert_eq!(n.get(0), Some(&b"<X>"[..]));
        n.expect(1000); // rehash keeps every name
        assert_eq!(n.get(7), Some(&b"/tmp/a"[..]));
        assert_eq!(n.insert(9, b"/a/much/longer/name/than/fits"), Insert::Full);
        assert_eq!(&n.packed()[..8], &7u64.to_le_bytes());
        let src: Vec<u8> = n.packed().to_vec();
        let map = darshan_log::RegionMap { off: 0, len: src.len() as u64 };
        let mut r = darshan_log::region::RegionReader::new(&src, map, darshan_log::Compression::None, "names");
        let t = darshan_log::NameTable::read(&mut r, darshan_log::LogVersion::V341, false).unwrap();
        assert_eq!(t.get(0), Some(&b"<X>"[..]));
    }
}
