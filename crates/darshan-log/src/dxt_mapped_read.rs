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
        match self.advance() {
            Some((r, chunks)) => self.read(module, r, chunks, words, time).map(Some),
            None => Ok(None),
        }
    }

    /// The ids of the records [`Traces::next`] would give, in its order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        let mut c = self.chunks.iter().map(|c| c.record).peekable();
        self.records.iter().enumerate().filter_map(move |(i, r)| {
            let mut any = false;
            while c.next_if(|&k| k <= i).is_some() {
                any = true;
            }
            any.then_some(r.id)
        })
    }

    /// As [`Traces::next`] for a record whose id `keep` accepts, written
    /// straight into `out` in the log's layout (that of
    /// [`crate::encode::encode_dxt`]) as `how` says; its id, None after
    /// the last. The segments are copied once: through a [`Record`] a
    /// runtime's shutdown held them three times over (48-byte segments,
    /// their bytes, the words), 136 MB of peak memory for a 27 MB trace.
    pub fn next_in_log_layout(
        &mut self,
        words: &mut dyn Words,
        how: &Layout,
        keep: &dyn Fn(u64) -> bool,
        out: &mut Vec<u64>,
    ) -> Result<Option<u64>> {
        let Some(laid) = self.next_laid(keep, how) else { return Ok(None) };
        out.clear();
        out.resize(laid.len(), 0);
        self.laid_words(&laid, 0, out, words, how)?;
        Ok(Some(laid.id()))
    }

    /// The next record whose id `keep` accepts, as where its words in the
    /// log's layout come from ([`Traces::laid_words`]), without writing
    /// them: a record can then be written a range at a time, from several
    /// threads, never whole beside the trace that holds it.
    pub fn next_laid(&mut self, keep: &dyn Fn(u64) -> bool, how: &Layout) -> Option<Laid> {
        while let Some((r, chunks)) = self.advance() {
            if keep(r.id) {
                let mine = &self.chunks[chunks.clone()];
                let (writes, reads) = (counted(mine, true), counted(mine, false));
                let seg_words = if how.thread_ids { 5 } else { 4 };
                return Some(Laid { r, chunks, writes, reads, seg_words });
            }
        }
        None
    }

    /// The next record that has chunks, and its chunks.
    fn advance(&mut self) -> Option<(Traced, std::ops::Range<usize>)> {
        while let Some(&r) = self.records.get(self.next_record) {
            let first = self.next_chunk;
            while self.chunks.get(self.next_chunk).is_some_and(|c| c.record == self.next_record) {
                self.next_chunk += 1;
            }
            self.next_record += 1;
            if first < self.next_chunk {
                return Some((r, first..self.next_chunk));
            }
        }
        None
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
        let (mut writes, mut reads) =
            (Vec::with_capacity(counted(mine, true)), Vec::with_capacity(counted(mine, false)));
        for (w, segs) in [(true, &mut writes), (false, &mut reads)] {
            segments(mine, w, words, &mut |s| {
                segs.push(DxtSegment {
                    offset: s[0] as i64,
                    length: s[1] as i64,
                    start_time: time(s[2]),
                    end_time: time(s[3]),
                    pthread_id: s.get(4).copied(),
                })
            })?;
        }
        Ok(Record {
            module,
            id: r.id,
            rank: r.rank,
            extra: Extra::Dxt { shared_record: 0, hostname, writes, reads },
            ..Record::default()
        })
    }

    /// Words `from..from + out.len()` of `laid`'s record in the log's
    /// layout: id, rank, shared flag (0), host, the counts, every write,
    /// then every read (each segment's times in seconds as `how` says).
    pub fn laid_words(
        &self,
        laid: &Laid,
        from: usize,
        out: &mut [u64],
        words: &mut dyn Words,
        how: &Layout,
    ) -> Result<()> {
        let to = from + out.len();
        if to > laid.len() {
            return Err(crate::error::LogError::TruncatedStream { region: "DXT".into() });
        }
        if from < HEAD_WORDS {
            let mut head = [0u64; HEAD_WORDS];
            head[..3].copy_from_slice(&[laid.r.id, how.rank as u64, 0]);
            words.words_at(laid.r.at + REC_HOST as u64, &mut head[3..11])?;
            head[11..].copy_from_slice(&[laid.writes as u64, laid.reads as u64]);
            let n = to.min(HEAD_WORDS) - from;
            out[..n].copy_from_slice(&head[from..from + n]);
        }
        let mine = &self.chunks[laid.chunks.clone()];
        let sw = laid.seg_words;
        // Segment k (writes, then reads) lies at HEAD_WORDS + k * sw: only
        // those that reach into the range are read.
        let (first, past) = (from.saturating_sub(HEAD_WORDS) / sw, to.saturating_sub(HEAD_WORDS).div_ceil(sw));
        let mut pos = HEAD_WORDS + first * sw;
        for (w, before, n) in [(true, 0, laid.writes), (false, laid.writes, laid.reads)] {
            let (start, end) = (first.max(before), past.min(before + n));
            if start >= end {
                continue;
            }
            segments_from(mine, w, start - before, end - start, words, &mut |s| {
                let seg =
                    [s[0], s[1], (how.time)(s[2]).to_bits(), (how.time)(s[3]).to_bits(), s.get(4).map_or(0, |&t| t)];
                // The part of this segment inside the range.
                let (lo, hi) = (pos.max(from), (pos + sw).min(to));
                out[lo - from..hi - from].copy_from_slice(&seg[lo - pos..hi - pos]);
                pos += sw;
            })?;
        }
        Ok(())
    }
}

/// Where a record's words in the log's layout come from
/// ([`Traces::next_laid`]): its record chunk, its chunks of segments, how
/// many writes and reads they hold, and words per segment in the log.
#[derive(Clone)]
pub struct Laid {
    r: Traced,
    chunks: std::ops::Range<usize>,
    writes: usize,
    reads: usize,
    seg_words: usize,
}

impl Laid {
    pub fn id(&self) -> u64 {
        self.r.id
    }

    /// Its length in the log's layout, in words.
    pub fn len(&self) -> usize {
        HEAD_WORDS + (self.writes + self.reads) * self.seg_words
    }

    /// Never: a record has its header.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// How [`Traces::next_in_log_layout`] writes a record: each segment's
/// times in seconds from ticks, with thread ids or not
/// (DXT_ENABLE_THREAD_IDS), the writing rank in place of the chunk's.
pub struct Layout<'a> {
    pub time: &'a (dyn Fn(u64) -> f64 + Sync),
    pub thread_ids: bool,
    pub rank: i64,
}

/// A record's words before its segments in the log.
const HEAD_WORDS: usize = 13;

/// Segments of `chunks` that are writes (else reads).
fn counted(chunks: &[Chunk], writes: bool) -> usize {
    chunks.iter().filter(|c| c.writes == writes).map(|c| c.count).sum()
}

/// Write (else read) segments `skip..skip + n` of `chunks`, in their
/// order, each as its words, read a block at a time (on the heap: a
/// runtime's shutdown may run on a small stack).
fn segments_from(
    chunks: &[Chunk],
    writes: bool,
    mut skip: usize,
    mut n: usize,
    words: &mut dyn Words,
    f: &mut dyn FnMut(&[u64]),
) -> Result<()> {
    let mine = || chunks.iter().filter(|c| c.writes == writes);
    // At least the segment words of every chunk: each has a segment.
    let mut block = vec![0u64; mine().map(|c| (c.count * c.seg_words).min(BLOCK)).max().unwrap_or(0)];
    for c in mine() {
        if n == 0 {
            break;
        }
        if skip >= c.count {
            skip -= c.count;
            continue;
        }
        let per = block.len() / c.seg_words;
        let (mut done, end) = (skip, c.count.min(skip.saturating_add(n)));
        skip = 0;
        while done < end {
            let k = per.min(end - done);
            let got = &mut block[..k * c.seg_words];
            words.words_at(c.at + (done * c.seg_words) as u64, got)?;
            got.chunks_exact(c.seg_words).for_each(&mut *f);
            done += k;
            n -= k;
        }
    }
    Ok(())
}

/// Each write (else read) segment of `chunks`, in their order.
fn segments(chunks: &[Chunk], writes: bool, words: &mut dyn Words, f: &mut dyn FnMut(&[u64])) -> Result<()> {
    segments_from(chunks, writes, 0, usize::MAX, words, f)
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

    /// A region of three records over interleaved chunks of four- and
    /// five-word segments, one record with none.
    fn mixed_region() -> Vec<u64> {
        let mut w = vec![0u64; 0];
        rec(&mut w, 7, 3);
        rec(&mut w, 9, 3);
        rec(&mut w, 8, 3); // never written: no record in the log
        w.extend([9, tag(KIND_WRITES, 4, 2, 1), 100, 10, 4, 6, 0xdead, 0xdead, 0xdead, 0xdead]);
        w.extend([7, tag(KIND_READS, 5, 2, 2), 0, 5, 2, 3, 41, 5, 5, 6, 7, 42]);
        w.extend([7, tag(KIND_WRITES, 4, 1, 1), 50, 1, 8, 9]);
        w.extend([9, tag(KIND_READS, 4, 1, 1), 1, 2, 3, 4]);
        w.extend([7, tag(KIND_WRITES, 5, 1, 1), 60, 1, 10, 11, 43]);
        w
    }

    /// The words the log holds for `r` as the format's encoder writes it.
    fn encoded(r: &Record, thread_ids: bool) -> Vec<u64> {
        let mut b = Vec::new();
        crate::encode::encode_dxt(r, &mut b, thread_ids).unwrap();
        b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    }

    /// The runtime's shutdown writes records straight from the chunks; a
    /// tool rebuilds them and encodes: the same words, with or without
    /// thread ids (a four-word segment's thread id written as 0, as the
    /// encoder does for one it does not know), the writing rank in place
    /// of the chunk's, and the records `keep` refuses left out.
    #[test]
    fn records_written_straight_from_the_chunks_are_the_words_the_encoder_writes() {
        let w = mixed_region();
        for thread_ids in [false, true] {
            let mut want: Vec<Vec<u64>> = all(&w)
                .iter_mut()
                .map(|r| {
                    r.rank = 12;
                    encoded(r, thread_ids)
                })
                .collect();
            let mut t = Traces::index(&mut InMemory { words: &w, pos: 0 }).unwrap();
            assert_eq!(t.ids().collect::<Vec<_>>(), vec![7, 9]);
            // The times as all() reads them.
            let how = Layout { time: &|x| x as f64 * 0.5, thread_ids, rank: 12 };
            let (mut got, mut out) = (Vec::new(), Vec::new());
            while let Some(id) =
                t.next_in_log_layout(&mut InMemory { words: &w, pos: 0 }, &how, &|_| true, &mut out).unwrap()
            {
                assert_eq!(out[0], id);
                got.push(out.clone());
            }
            assert_eq!(got, want, "thread ids {thread_ids}");
            let mut t = Traces::index(&mut InMemory { words: &w, pos: 0 }).unwrap();
            let kept = t.next_in_log_layout(&mut InMemory { words: &w, pos: 0 }, &how, &|id| id != 7, &mut out);
            assert_eq!(kept.unwrap(), Some(9));
            assert_eq!(out, want.remove(1));
            assert_eq!(
                t.next_in_log_layout(&mut InMemory { words: &w, pos: 0 }, &how, &|_| true, &mut out).unwrap(),
                None
            );
        }
    }

    /// A record written a range at a time (as the runtime's shutdown
    /// compresses a long trace on several threads) gives, range by range,
    /// the words the format's encoder writes for it: ranges that start or
    /// end inside the header, inside a segment, at the writes' end, across
    /// chunks and across the blocks segments are read in.
    #[test]
    fn any_range_of_a_record_is_that_range_of_the_words_the_encoder_writes() {
        let mut w = vec![0u64; 0];
        rec(&mut w, 7, 3);
        rec(&mut w, 9, 3);
        let segs = |w: &mut Vec<u64>, id: u64, kind, seg_words: u64, n: u64, base: u64| {
            w.extend([id, tag(kind, seg_words as usize, n as usize, n as usize)]);
            w.extend((0..n * seg_words).map(|k| base + k));
        };
        segs(&mut w, 7, KIND_WRITES, 4, 3000, 1_000_000);
        segs(&mut w, 9, KIND_READS, 4, 5, 5_000_000);
        segs(&mut w, 7, KIND_READS, 4, 7, 2_000_000);
        segs(&mut w, 7, KIND_WRITES, 4, 1500, 3_000_000);
        segs(&mut w, 7, KIND_READS, 4, 2, 4_000_000);
        for thread_ids in [false, true] {
            let want: Vec<Vec<u64>> = all(&w)
                .iter_mut()
                .map(|r| {
                    r.rank = 12;
                    encoded(r, thread_ids)
                })
                .collect();
            let how = Layout { time: &|x| x as f64 * 0.5, thread_ids, rank: 12 };
            let mut t = Traces::index(&mut InMemory { words: &w, pos: 0 }).unwrap();
            let laid = t.next_laid(&|_| true, &how).unwrap();
            let whole = &want[0];
            assert_eq!((laid.id(), laid.len()), (7, whole.len()));
            let sw = if thread_ids { 5 } else { 4 };
            let writes_end = HEAD_WORDS + 4500 * sw;
            let mut ranges =
                vec![(0, whole.len()), (0, 1), (5, 13), (12, 3), (13, 4096), (14, 9000), (writes_end - 3, 7)];
            ranges.extend([(writes_end, 9 * sw), (3000 * sw + 11, 2 * sw + 3), (whole.len() - 2, 2), (whole.len(), 0)]);
            ranges.extend((0..whole.len()).step_by(4093).map(|f| (f, 4093.min(whole.len() - f))));
            for (from, n) in ranges {
                let mut out = vec![0u64; n];
                t.laid_words(&laid, from, &mut out, &mut InMemory { words: &w, pos: 0 }, &how).unwrap();
                assert_eq!(out, whole[from..from + n], "words {from}..{} with thread ids {thread_ids}", from + n);
            }
            let mut past = vec![0u64; 2];
            assert!(t
                .laid_words(&laid, whole.len() - 1, &mut past, &mut InMemory { words: &w, pos: 0 }, &how)
                .is_err());
        }
    }
}
