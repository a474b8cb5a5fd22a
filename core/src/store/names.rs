//! The name table: record id -> name, packed exactly as the log's name
//! region ((u64 id, name, NUL)*) in a buffer bounded by DARSHAN_NAMEMEM,
//! with an open-addressing index. Memory is reserved at start-up; an
//! insert never allocates.

use crate::store::arena::ZeroedWords;

/// Slots of the first index, inline: the names every process has (the
/// standard streams, the heat maps, a Python's first files) fit in it.
const MIN_SLOTS: usize = 64;

pub struct NameArena {
    packed: Packed,
    limit: usize,
    /// The index, open addressing over u32 slots: the offset + 1 of a name
    /// in `packed` (0 = empty), whose first 8 bytes are its record id.
    /// `first` (inline) until it is 2/3 full, then `index`, sized for
    /// every record the modules keep: a fresh mapping, touched only where
    /// names land (4 bytes a slot). Each of a short process's few names
    /// landed on a page of its own of that mapping: 5-6 page faults in
    /// every process, for names that fit in one cache line's worth of
    /// slots.
    first: [u64; MIN_SLOTS / 2],
    index: ZeroedWords,
    /// The index sized for every record, reserved when the modules
    /// register ([`NameArena::expect`]) and put in use at the 43rd name:
    /// no mapping is made in the wrapper that inserts it.
    spare: ZeroedWords,
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
        Some(NameArena::with(Packed::Heap(packed), limit))
    }

    /// A table whose packed names live in `buf` (the crash-safe mapping).
    pub fn in_place(buf: &'static mut [u8]) -> Option<NameArena> {
        let limit = buf.len();
        Some(NameArena::with(Packed::Mapped { buf, len: 0 }, limit))
    }

    fn with(packed: Packed, limit: usize) -> NameArena {
        let (first, index, spare) = ([0; MIN_SLOTS / 2], ZeroedWords::empty(), ZeroedWords::empty());
        NameArena { packed, limit, first, index, spare, count: 0 }
    }

    /// The index in use, as words.
    fn table(&self) -> &[u64] {
        if self.index.is_empty() {
            &self.first
        } else {
            &self.index
        }
    }

    fn table_mut(&mut self) -> &mut [u64] {
        if self.index.is_empty() {
            &mut self.first
        } else {
            &mut self.index
        }
    }

    fn slots(&self) -> usize {
        self.table().len() * 2
    }

    fn entry(&self, i: usize) -> u32 {
        bytemuck::cast_slice::<u64, u32>(self.table())[i]
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
    /// The index grows then (or, while the first index holds the names,
    /// its successor is reserved: most processes never use it).
    pub fn expect(&mut self, records: usize) {
        // No more names than fit in `limit` (8-byte id + 1 char + NUL).
        let names = records.min(self.limit / 10);
        let slots = (names * 3 / 2 + 1).max(MIN_SLOTS).next_power_of_two();
        if slots <= self.slots() || slots <= self.spare.len() * 2 {
            return;
        }
        // Kept as it is if the new one cannot be had: it stays correct,
        // and inserts are refused (Full) once it is 2/3 full.
        let Some(index) = ZeroedWords::new(slots / 2) else { return };
        if self.index.is_empty() {
            self.spare = index;
        } else {
            self.move_to(index);
        }
    }

    /// `index` in use, every name moved over into it.
    fn move_to(&mut self, index: ZeroedWords) {
        let old = std::mem::replace(&mut self.index, index);
        let first = std::mem::replace(&mut self.first, [0; MIN_SLOTS / 2]);
        let from: &[u64] = if old.is_empty() { &first } else { &old };
        for &e in bytemuck::cast_slice::<u64, u32>(from).iter().filter(|&&e| e != 0) {
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
        if self.contains(id) {
            return Insert::Present;
        }
        // At most 2/3 full, so that probing stays short.
        if (self.count + 1) * 3 > self.slots() * 2 && self.index.is_empty() && !self.spare.is_empty() {
            let spare = std::mem::replace(&mut self.spare, ZeroedWords::empty());
            self.move_to(spare);
        }
        let need = 8 + name.len() + 1;
        if self.packed.len() + need > self.limit || (self.count + 1) * 3 > self.slots() * 2 {
            return Insert::Full;
        }
        let Ok(entry) = u32::try_from(self.packed.len() + 1) else { return Insert::Full };
        let (i, _) = self.slot(id);
        bytemuck::cast_slice_mut::<u64, u32>(self.table_mut())[i] = entry;
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
        self.first = [0; MIN_SLOTS / 2];
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

    /// The first index holds 42 names; the 43rd moves them all to the
    /// index sized for the modules' records, in the insert itself.
    #[test]
    fn names_past_the_first_index_move_to_the_full_one() {
        let mut n = NameArena::new(1 << 20).unwrap();
        n.expect(10_000);
        // Reserved at registration, so that the insert that moves the
        // names makes no mapping (it runs inside a wrapper).
        assert!(n.index.is_empty() && n.spare.len() * 2 >= 15_000);
        let name = |k: u64| format!("/d/{k}").into_bytes();
        let ids: Vec<u64> = (0..5000u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for (k, &id) in ids.iter().enumerate() {
            assert_eq!(n.insert(id, &name(k as u64)), Insert::Added, "name {k}");
            if k == 41 {
                assert!(n.index.is_empty(), "42 names stay in the first index");
            }
        }
        assert!(!n.index.is_empty() && n.spare.is_empty() && n.slots() >= 15_000);
        assert!(ids.iter().enumerate().all(|(k, &id)| n.get(id) == Some(&name(k as u64)[..])));
        assert_eq!(n.insert(ids[7], b"other"), Insert::Present);
        n.clear();
        assert!(n.is_empty() && ids.iter().all(|&id| !n.contains(id)));
        // Without a module's capacity, the first index is all there is.
        let mut small = NameArena::new(1 << 20).unwrap();
        let added = (0..100u64).filter(|&k| small.insert(k + 1, b"x") == Insert::Added).count();
        assert_eq!(added, 42);
    }
}
