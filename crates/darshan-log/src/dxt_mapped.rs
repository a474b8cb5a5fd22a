//! DXT traces as they lie in a crash-safe file while the program runs.
//!
//! A DXT record grows with every read and write, so it cannot sit in the
//! log's layout (header, then all writes, then all reads) in memory that
//! is never moved. The runtime keeps each DXT module's traces as chunks
//! appended to its reservation instead, and marks the module's region in
//! the crash-safe file's extension map (crate::crash_safe) with
//! [`VERSION`] (no released version number): Darshan's readers, which
//! would refuse the region (darshan-merge the whole file), do not see
//! it; this crate rebuilds the records ([`crate::dxt_mapped_read`]).
//!
//! Chunks (64-bit words, little endian), back to back; a zero tag ends:
//! - record chunk, [`RECORD_WORDS`]: `id, tag, rank, hostname (8 words),
//!   current write chunk, current read chunk, write capacity, read
//!   capacity` (the last four are the runtime's bookkeeping);
//! - segment chunk, `2 + cap × seg_words`: `id, tag`, then `cap` slots of
//!   `offset, length, start tick, end tick[, pthread id]`, of which the
//!   first `count` are filled (a slot is filled before `count` grows, so a
//!   killed process never leaves half a segment counted).
//!
//! The tag packs `kind` (bits 60-63), `seg_words` (56-59), `cap` (28-55)
//! and `count` (0-27). Times are clock ticks since start-up; the job
//! metadata's `ticks=` says how long one is.

/// Module version written in the crash-safe extension map for this layout.
pub const VERSION: u32 = 0x00D7_0001;
pub const KIND_RECORD: u64 = 1;
pub const KIND_WRITES: u64 = 2;
pub const KIND_READS: u64 = 3;
pub const RECORD_WORDS: usize = 15;
/// Record chunk words: rank, hostname, then the bookkeeping.
pub const REC_RANK: usize = 2;
pub const REC_HOST: usize = 3;
/// Current chunk of writes (+0) or reads (+1): its word offset, 0 if none.
pub const REC_CURRENT: usize = 11;
/// Segments the writes (+0) and reads (+1) have room for in all chunks.
pub const REC_CAPACITY: usize = 13;
const FIELD: u64 = (1 << 28) - 1;

pub fn tag(kind: u64, seg_words: usize, cap: usize, count: usize) -> u64 {
    kind << 60 | (seg_words as u64 & 0xF) << 56 | (cap as u64 & FIELD) << 28 | (count as u64 & FIELD)
}

/// (kind, seg_words, cap, count) of a tag.
pub fn untag(t: u64) -> (u64, usize, usize, usize) {
    (t >> 60, (t >> 56 & 0xF) as usize, (t >> 28 & FIELD) as usize, (t & FIELD) as usize)
}

/// The largest segment count one chunk can say.
pub const MAX_CHUNK_SEGMENTS: usize = FIELD as usize;

/// Words of the chunk whose tag is `t` (None: not a chunk).
pub fn chunk_words(t: u64) -> Option<usize> {
    match untag(t) {
        (KIND_RECORD, ..) => Some(RECORD_WORDS),
        (KIND_WRITES | KIND_READS, sw @ (4 | 5), cap, count) if count <= cap => Some(2 + cap * sw),
        _ => None,
    }
}

/// Every chunk of `words`: (word offset, tag), in order, up to the first
/// that does not hold together (the region may have been cut by a crash).
pub fn chunks(words: &[u64]) -> impl Iterator<Item = (usize, u64)> + '_ {
    let mut p = 0;
    std::iter::from_fn(move || {
        let t = *words.get(p + 1)?;
        let n = chunk_words(t).filter(|&n| p + n <= words.len())?;
        let at = p;
        p += n;
        Some((at, t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        assert_eq!(untag(tag(KIND_READS, 5, 1 << 20, 12345)), (KIND_READS, 5, 1 << 20, 12345));
        assert_eq!(chunk_words(tag(KIND_WRITES, 5, 64, 3)), Some(2 + 320));
        assert_eq!(chunk_words(tag(KIND_WRITES, 5, 2, 3)), None);
        assert_eq!(chunk_words(0), None);
    }
}
