//! Reading a crash-safe file's DXT region ([`crate::dxt_mapped`]) one
//! record at a time. A record's segments lie in chunks spread over the
//! whole region, so a first pass walks it and keeps only where each
//! record and each filled chunk lies ([`Traces::index`]); each record is
//! then read from those places when it is asked for. Reading the region
//! whole and rebuilding every record at once held the region and all its
//! segments together: 2.3 times the region's bytes (238 MB for a 102 MB
//! region), past every tool's memory bound; now a tool that prints or
//! converts record by record holds the index (at most half the region's
//! bytes, a few KB for a real trace) and one record.

use crate::dxt_mapped::{chunk_words, untag, KIND_RECORD, KIND_WRITES, RECORD_WORDS, REC_HOST, REC_RANK};
use crate::error::Result;
use crate::record::{DxtSegment, Extra, Record};

/// A region's 64-bit words, read in order (the first pass) or at a word
/// offset (each record's).
pub trait Words {
    /// The next words into `out`: how many there were (fewer than
    /// `out.len()` only at the region's end).
    fn next_words(&mut self, out: &mut [u64]) -> Result<usize>;
    /// The words at word offset `at` into `out`, all of them (the first
    /// pass saw them).
    fn words_at(&mut self, at: u64, out: &mut [u64]) -> Result<()>;
}

/// A record chunk: its id, rank and word offset.
#[derive(Clone, Copy)]
struct Traced {
    id: u64,
    rank: i64,
    at: u64,
}

/// A chunk of segments with some filled: whose (an index into the
/// records), writes or reads, words per segment, how many, where the
/// first starts.
#[derive(Clone, Copy)]
struct Chunk {
    record: usize,
    writes: bool,
    seg_words: usize,
    count: usize,
    at: u64,
}

/// Where a region's records and filled chunks lie, and which record is
/// next.
pub struct Traces {
    records: Vec<Traced>,
    /// By record, in the region's order within each.
    chunks: Vec<Chunk>,
    next_record: usize,
    next_chunk: usize,
}

/// Words skipped or read at a time.
const BLOCK: usize = 4096;

impl Traces {
    /// The first pass: every chunk in order up to the first that does
    /// not hold together (a crash may cut the region), as
    /// [`crate::dxt_mapped::chunks`] walks them. A segment chunk belongs
    /// to the latest record chunk of its id before it; one of an id not
    /// seen yet, or with nothing filled, is left out.
    pub fn index(words: &mut dyn Words) -> Result<Traces> {
        let (mut records, mut chunks) = (Vec::new(), Vec::new());
        let mut latest = std::collections::HashMap::new();
        let (mut head, mut body) = ([0u64; 2], [0u64; RECORD_WORDS - 2]);
        let mut at = 0u64;
        while words.next_words(&mut head)? == 2 {
            let Some(n) = chunk_words(head[1]) else { break };
            let (kind, seg_words, _, count) = untag(head[1]);
            if kind == KIND_RECORD {
                if words.next_words(&mut body)? < body.len() {
                    break;
                }
                latest.insert(head[0], records.len());
                records.push(Traced { id: head[0], rank: body[REC_RANK - 2] as i64, at });
            } else {
                if skip(words, n - 2)? < n - 2 {
                    break;
                }
                if let (Some(&record), true) = (latest.get(&head[0]), count > 0) {
                    chunks.push(Chunk { record, writes: kind == KIND_WRITES, seg_words, count, at: at + 2 });
                }
            }
            at += n as u64;
        }
        // Stable: each record's chunks stay in the region's order.
        chunks.sort_by_key(|c| c.record);
        Ok(Traces { records, chunks, next_record: 0, next_chunk: 0 })
    }

    /// The next record with segments (Darshan writes none without), in
    /// the order the records were made, each segment's times turned into
    /// seconds by `time` (from ticks); None after the last.
    pub fn next(&mut self, module: usize, words: &mut dyn Words, time: &dyn Fn(u64) -> f64) -> Result<Option<Record>> {
        while let Some(&r) = self.records.get(self.next_record) {
            let first = self.next_chunk;
            while self.chunks.get(self.next_chunk).is_some_and(|c| c.record == self.next_record) {
                self.next_chunk += 1;
            }
            self.next_record += 1;
            if first < self.next_chunk {
                return self.read(module, r, first..self.next_chunk, words, time).map(Some);
            }
        }
        Ok(None)
    }

    /// Record `r` with the segments of `chunks`.
    fn read(
        &self,
        module: usize,
        r: Traced,
        chunks: std::ops::Range<usize>,
        words: &mut dyn Words,
        time: &dyn Fn(u64) -> f64,
    ) -> Result<Record> {
        let mine = &self.chunks[chunks];
        let mut host = [0u64; 8];
        words.words_at(r.at + REC_HOST as u64, &mut host)?;
        let mut hostname = [0u8; 64];
        for (k, w) in host.iter().enumerate() {
            hostname[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        let counted = |w: bool| mine.iter().filter(|c| c.writes == w).map(|c| c.count).sum::<usize>();
        let (mut writes, mut reads) = (Vec::with_capacity(counted(true)), Vec::with_capacity(counted(false)));
        let mut block = vec![0u64; BLOCK];
        for c in mine {
            let segs = if c.writes { &mut writes } else { &mut reads };
            let per = BLOCK / c.seg_words;
            let mut done = 0;
            while done < c.count {
                let k = per.min(c.count - done);
                let got = &mut block[..k * c.seg_words];
                words.words_at(c.at + (done * c.seg_words) as u64, got)?;
                segs.extend(got.chunks_exact(c.seg_words).map(|s| DxtSegment {
                    offset: s[0] as i64,
                    length: s[1] as i64,
                    start_time: time(s[2]),
                    end_time: time(s[3]),
                    pthread_id: s.get(4).copied(),
                }));
                done += k;
            }
        }
        Ok(Record {
            module,
            id: r.id,
            rank: r.rank,
            extra: Extra::Dxt { shared_record: 0, hostname, writes, reads },
            ..Record::default()
        })
    }
}

/// Skip `n` words: how many there were.
fn skip(words: &mut dyn Words, n: usize) -> Result<usize> {
    let mut scratch = [0u64; 512];
    let mut done = 0;
    while done < n {
        let k = scratch.len().min(n - done);
        let got = words.next_words(&mut scratch[..k])?;
        done += got;
        if got < k {
            break;
        }
    }
    Ok(done)
}

/// Words from memory (a region read whole, or a test's).
pub struct InMemory<'w> {
    pub words: &'w [u64],
    pub pos: usize,
}

impl Words for InMemory<'_> {
    fn next_words(&mut self, out: &mut [u64]) -> Result<usize> {
        let n = out.len().min(self.words.len().saturating_sub(self.pos));
        out[..n].copy_from_slice(&self.words[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
    fn words_at(&mut self, at: u64, out: &mut [u64]) -> Result<()> {
        let at = at as usize;
        match self.words.get(at..at + out.len()) {
            Some(w) => {
                out.copy_from_slice(w);
                Ok(())
            }
            None => Err(crate::error::LogError::TruncatedStream { region: "DXT".into() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxt_mapped::{tag, KIND_READS};

    fn all(w: &[u64]) -> Vec<Record> {
        let mut t = Traces::index(&mut InMemory { words: w, pos: 0 }).unwrap();
        let mut out = Vec::new();
        while let Some(r) = t.next(10, &mut InMemory { words: w, pos: 0 }, &|t| t as f64 * 0.5).unwrap() {
            out.push(r);
        }
        out
    }

    fn rec(w: &mut Vec<u64>, id: u64, rank: u64) {
        let mut c = vec![0u64; RECORD_WORDS];
        c[0] = id;
        c[1] = tag(KIND_RECORD, 0, 0, 0);
        c[REC_RANK] = rank;
        c[REC_HOST] = u64::from_le_bytes(*b"node1\0\0\0");
        w.extend(c);
    }

    #[test]
    fn chunks_make_records_in_the_order_they_were_made_and_a_cut_chunk_ends_the_walk() {
        let mut w = vec![0u64; 0];
        rec(&mut w, 7, 3);
        rec(&mut w, 9, 3);
        // Writes of 9 (cap 2, 1 filled), reads of 7 (cap 1, full), writes of 7.
        w.extend([9, tag(KIND_WRITES, 4, 2, 1), 100, 10, 4, 6, 0xdead, 0xdead, 0xdead, 0xdead]);
        w.extend([7, tag(KIND_READS, 4, 1, 1), 0, 5, 2, 3]);
        w.extend([7, tag(KIND_WRITES, 4, 1, 1), 50, 1, 8, 9]);
        w.extend([11, tag(KIND_WRITES, 4, 64, 1)]); // cut: no room for its slots
        let r = all(&w);
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

    /// A record's segments over more chunks than one block of reading,
    /// in order; an id made again starts a new record, and an empty
    /// record is left out.
    #[test]
    fn a_record_made_again_takes_the_chunks_after_it_and_long_chunks_read_whole() {
        let mut w = vec![0u64; 0];
        rec(&mut w, 5, 0);
        let n = BLOCK; // 4096 segments of 5 words: five blocks' worth
        w.extend([5, tag(KIND_WRITES, 5, n, n)]);
        w.extend((0..n as u64).flat_map(|i| [i, 1, 2 * i, 2 * i + 1, 77]));
        rec(&mut w, 6, 1); // empty: never written
        rec(&mut w, 5, 2);
        w.extend([5, tag(KIND_READS, 4, 1, 1), 9, 9, 0, 2]);
        let r = all(&w);
        assert_eq!(r.iter().map(|r| (r.id, r.rank)).collect::<Vec<_>>(), vec![(5, 0), (5, 2)]);
        let Extra::Dxt { writes, .. } = &r[0].extra else { panic!() };
        assert_eq!(writes.len(), n);
        assert!(writes.iter().enumerate().all(|(i, s)| s.offset == i as i64 && s.pthread_id == Some(77)));
        assert_eq!(writes[n - 1].end_time, (2 * n - 1) as f64 * 0.5);
        let Extra::Dxt { reads, writes, .. } = &r[1].extra else { panic!() };
        assert_eq!((reads.len(), writes.len()), (1, 0));
    }
}
