//! DXT traces as they lie in a crash-safe file while the program runs.
//!
//! A DXT record grows with every read and write, so it cannot sit in the
//! log's layout (header, then all writes, then all reads) in memory that
//! is never moved. The runtime keeps each DXT module's traces as chunks
//! appended to its reservation instead, and marks the module's region in
//! the crash-safe header with [`VERSION`] (no released version number):
//! readers that do not know it refuse the region; this crate rebuilds
//! the records ([`parse`]).
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

use crate::record::{DxtSegment, Extra, Record};

/// Module version written in the crash-safe header for this layout.
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

/// The records of a module region in this layout, in the order they were
/// made, each segment's times turned into seconds by `time` (from ticks).
/// Records without segments are left out, as Darshan writes none.
pub fn parse(module: usize, words: &[u64], time: &dyn Fn(u64) -> f64) -> Vec<Record> {
    let mut recs: Vec<Record> = Vec::new();
    let mut at: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for (p, t) in chunks(words) {
        let id = words[p];
        let (kind, sw, _, count) = untag(t);
        if kind == KIND_RECORD {
            let mut hostname = [0u8; 64];
            for (k, w) in words[p + REC_HOST..p + REC_HOST + 8].iter().enumerate() {
                hostname[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
            }
            at.insert(id, recs.len());
            recs.push(Record {
                module,
                id,
                rank: words[p + REC_RANK] as i64,
                extra: Extra::Dxt { shared_record: 0, hostname, writes: Vec::new(), reads: Vec::new() },
                ..Record::default()
            });
        } else if let Some(Extra::Dxt { writes, reads, .. }) = at.get(&id).map(|&i| &mut recs[i].extra) {
            let segs = if kind == KIND_WRITES { writes } else { reads };
            for s in words[p + 2..p + 2 + count * sw].chunks_exact(sw) {
                segs.push(DxtSegment {
                    offset: s[0] as i64,
                    length: s[1] as i64,
                    start_time: time(s[2]),
                    end_time: time(s[3]),
                    pthread_id: s.get(4).copied(),
                });
            }
        }
    }
    recs.retain(|r| matches!(&r.extra, Extra::Dxt { writes, reads, .. } if !writes.is_empty() || !reads.is_empty()));
    recs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_make_records_in_the_order_they_were_made_and_a_cut_chunk_ends_the_walk() {
        let mut w = vec![0u64; 0];
        let rec = |w: &mut Vec<u64>, id: u64, rank: u64| {
            let mut c = vec![0u64; RECORD_WORDS];
            c[0] = id;
            c[1] = tag(KIND_RECORD, 0, 0, 0);
            c[REC_RANK] = rank;
            c[REC_HOST] = u64::from_le_bytes(*b"node1\0\0\0");
            w.extend(c);
        };
        rec(&mut w, 7, 3);
        rec(&mut w, 9, 3);
        // Writes of 9 (cap 2, 1 filled), reads of 7 (cap 1, full), writes of 7.
        w.extend([9, tag(KIND_WRITES, 4, 2, 1), 100, 10, 4, 6, 0xdead, 0xdead, 0xdead, 0xdead]);
        w.extend([7, tag(KIND_READS, 4, 1, 1), 0, 5, 2, 3]);
        w.extend([7, tag(KIND_WRITES, 4, 1, 1), 50, 1, 8, 9]);
        w.extend([11, tag(KIND_WRITES, 4, 64, 1)]); // cut: no room for its slots
        let r = parse(10, &w, &|t| t as f64 * 0.5);
        assert_eq!(r.iter().map(|r| r.id).collect::<Vec<_>>(), vec![7, 9]);
        let Extra::Dxt { writes, reads, hostname, .. } = &r[0].extra else { panic!() };
        assert_eq!(&hostname[..6], b"node1\0");
        assert_eq!(r[0].rank, 3);
        assert_eq!(
            writes,
            &vec![DxtSegment { offset: 50, length: 1, start_time: 4.0, end_time: 4.5, pthread_id: None }]
        );
        assert_eq!(reads[0].length, 5);
        let Extra::Dxt { writes, .. } = &r[1].extra else { panic!() };
        assert_eq!(writes.len(), 1, "only the filled slot counts");
        assert_eq!((writes[0].offset, writes[0].start_time), (100, 2.0));
    }

    #[test]
    fn tags_round_trip() {
        assert_eq!(untag(tag(KIND_READS, 5, 1 << 20, 12345)), (KIND_READS, 5, 1 << 20, 12345));
        assert_eq!(chunk_words(tag(KIND_WRITES, 5, 64, 3)), Some(2 + 320));
        assert_eq!(chunk_words(tag(KIND_WRITES, 5, 2, 3)), None);
        assert_eq!(chunk_words(0), None);
    }
}
