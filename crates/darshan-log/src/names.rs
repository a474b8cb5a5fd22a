//! The name region: record id -> name. Names are kept in one byte arena so
//! a 200,000-record log costs a few megabytes, not 200,000 allocations.

use std::collections::HashMap;

use crate::error::{LogError, Result};
use crate::header::LogVersion;
use crate::region::RegionReader;

/// The names Darshan gives the standard streams' records, in fd order.
pub const STD_STREAMS: [&[u8]; 3] = [b"<STDIN>", b"<STDOUT>", b"<STDERR>"];

/// Whether `name` is a standard stream's record name.
pub fn is_std_stream(name: &[u8]) -> bool {
    STD_STREAMS.contains(&name)
}

/// The standard streams' record ids, in fd order.
pub fn std_stream_ids() -> [u64; 3] {
    STD_STREAMS.map(crate::record_id)
}

/// Whether `id` is a standard stream's record id (hashed once).
pub fn is_std_stream_id(id: u64) -> bool {
    static IDS: std::sync::OnceLock<[u64; 3]> = std::sync::OnceLock::new();
    IDS.get_or_init(std_stream_ids).contains(&id)
}

/// A STDIO region holds the standard streams' records first, in fd order:
/// C Darshan makes them when the module starts, before any file's, and
/// this runtime, which makes each at the stream's first use, writes them
/// in that place. Puts `recs` (one STDIO region's records, with `id` of
/// each) in that order, the others keeping theirs (a crash-safe file holds
/// them in the order they were made).
pub fn std_streams_first<T>(recs: &mut [T], id: impl Fn(&T) -> u64) {
    let std = std_stream_ids();
    recs.sort_by_key(|r| std.iter().position(|&s| s == id(r)).unwrap_or(std.len()));
}

#[derive(Default, Clone)]
pub struct NameTable {
    arena: Vec<u8>,
    /// id -> (start, len) in `arena`
    index: HashMap<u64, (usize, usize)>,
    /// ids in first-seen order (for writers that keep the log's order)
    order: Vec<u64>,
}

impl NameTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub fn get(&self, id: u64) -> Option<&[u8]> {
        self.index.get(&id).map(|&(s, l)| &self.arena[s..s + l])
    }

    /// darshan-util's rule: keep the first entry for an id, but replace an
    /// empty name by a later non-empty one.
    pub fn insert(&mut self, id: u64, name: &[u8]) {
        match self.index.get_mut(&id) {
            Some(slot) => {
                if slot.1 == 0 && !name.is_empty() {
                    let s = self.arena.len();
                    self.arena.extend_from_slice(name);
                    *slot = (s, name.len());
                }
            }
            None => {
                let s = self.arena.len();
                self.arena.extend_from_slice(name);
                self.index.insert(id, (s, name.len()));
                self.order.push(id);
            }
        }
    }

    /// (id, name) in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u8])> {
        self.order.iter().map(move |&id| (id, self.get(id).unwrap_or(&[])))
    }

    pub fn retain(&mut self, keep: impl Fn(u64) -> bool) {
        let mut t = NameTable::new();
        for (id, n) in self.iter() {
            if keep(id) {
                t.insert(id, n);
            }
        }
        *self = t;
    }

    pub fn read(reader: &mut RegionReader<'_>, version: LogVersion, swapped: bool) -> Result<NameTable> {
        let mut t = NameTable::new();
        let mut idb = [0u8; 8];
        let mut name = Vec::with_capacity(256);
        loop {
            let n = reader.read_full(&mut idb)?;
            if n == 0 {
                break;
            }
            if n < 8 {
                return Err(LogError::BadNameRecord("name region ends inside a record id".into()));
            }
            let raw = u64::from_le_bytes(idb);
            let id = if swapped { raw.swap_bytes() } else { raw };
            name.clear();
            if version == LogVersion::V300 {
                let mut lb = [0u8; 4];
                if reader.read_full(&mut lb)? < 4 {
                    return Err(LogError::BadNameRecord("name region ends inside a name length".into()));
                }
                let raw = u32::from_le_bytes(lb);
                let len = if swapped { raw.swap_bytes() } else { raw } as usize;
                // Read in bounded pieces so a lying length cannot allocate.
                let mut left = len;
                let mut chunk = [0u8; 4096];
                while left > 0 {
                    let want = left.min(chunk.len());
                    let got = reader.read_full(&mut chunk[..want])?;
                    name.extend_from_slice(&chunk[..got]);
                    if got < want {
                        return Err(LogError::BadNameRecord(format!(
                            "name of record {id} is cut short ({} of {len} bytes)",
                            name.len()
                        )));
                    }
                    left -= got;
                }
            } else if !reader.read_cstr_into(&mut name)? {
                return Err(LogError::BadNameRecord(format!("name of record {id} has no terminating NUL")));
            }
            t.insert(id, &name);
        }
        Ok(t)
    }

    /// Walk the name region checking its structure, storing nothing.
    pub fn validate(reader: &mut RegionReader<'_>, version: LogVersion) -> Result<()> {
        let mut idb = [0u8; 8];
        let mut scratch = Vec::with_capacity(256);
        loop {
            let n = reader.read_full(&mut idb)?;
            if n == 0 {
                return Ok(());
            }
            if n < 8 {
                return Err(LogError::BadNameRecord("name region ends inside a record id".into()));
            }
            debug_assert!(version != LogVersion::V300, "3.00 tables go through read()");
            scratch.clear();
            if !reader.read_cstr_into(&mut scratch)? {
                return Err(LogError::BadNameRecord("a name has no terminating NUL".into()));
            }
        }
    }

    /// Encode as a 3.10+ name region body: (u64 id, name, NUL) entries.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.arena.len() + 9 * self.order.len());
        for (id, n) in self.iter() {
            b.extend_from_slice(&id.to_le_bytes());
            b.extend_from_slice(n);
            b.push(0);
        }
        b
    }
}

#[cfg(test)]
mod std_stream_tests {
    use super::*;

    #[test]
    fn standard_streams_come_first_in_fd_order_and_the_rest_keep_theirs() {
        let [stdin, stdout, stderr] = std_stream_ids();
        let mut recs = vec![(1, "a"), (stderr, "err"), (2, "b"), (stdin, "in"), (3, "c")];
        std_streams_first(&mut recs, |r| r.0);
        assert_eq!(recs.iter().map(|r| r.1).collect::<Vec<_>>(), ["in", "err", "a", "b", "c"]);
        assert_ne!(stdout, stdin, "three ids");
    }
}
