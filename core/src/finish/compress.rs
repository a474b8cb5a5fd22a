//! Shutdown compression: a region is one or more independent zlib streams
//! (a valid region, as the MPI runtime writes one stream per rank). Each
//! stream is compressed in one call straight from the record memory (the
//! words are the log's bytes in the host's order, which is the order a
//! log is written in), large regions split at record boundaries across
//! threads.
//!
//! Two encoders, each where it wins (`cargo run --release -p darshan-core
//! --example deflate_compare -- LOG...` measures both on a log):
//! - deflate.rs, classic zlib's level 6 (the C runtime's) that also tries
//!   the distances of whole records, for everything below a megabyte: a
//!   short process's log (zlib-rs's quarter-megabyte state cost 0.15 ms
//!   to clear) and a `git status`'s 1,024 records (0.42 ms against
//!   zlib-rs's 2.05 ms, both under classic zlib's size); name tables
//!   below 256 KiB.
//! - zlib-rs's level 6 for record regions of a megabyte or more: on
//!   20,000 records of new files it is 2% smaller than ours (714 against
//!   728 KB; classic zlib: 746 KB) at about the same speed, and ours
//!   left that log above the C runtime's 1 MB in one run of five; and
//!   for name tables of 256 KiB or more (see LARGE_TEXT_BYTES).

use flate2::{Compress, Compression, FlushCompress, Status};

use darshan_deflate::{self as deflate, Shape};
use std::ops::Range;

use crate::contract::module::LongRecord;

/// Record regions of this size or more go to zlib-rs, one stream per
/// worker thread (a thread costs ~50 us); smaller ones to deflate.rs on
/// the calling thread.
pub const LARGE_BYTES: usize = 1 << 20;

/// Other regions (the name table) of this size or more go to zlib-rs:
/// classic zlib's hash chains are slow on paths (20,000 names, 549 KB:
/// 9 ms against zlib-rs's 5.3 ms, on a thread that shares two cores with
/// the records' at shutdown), for 1.4% more bytes.
pub const LARGE_TEXT_BYTES: usize = 256 << 10;

/// Compresses a shutdown's regions one after another in the same working
/// memory (deflate.rs's [`deflate::Scratch`]).
#[derive(Default)]
pub struct Compressor {
    scratch: deflate::Scratch,
}

impl Compressor {
    /// One region of bytes (the job record) as one stream.
    pub fn bytes(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        self.text(bytes, Shape::Bytes)
    }

    /// A name table ((id, name, NUL) entries) as one stream.
    pub fn names(&mut self, names: &[u8]) -> Vec<Vec<u8>> {
        self.text(names, Shape::Names)
    }

    fn text(&mut self, bytes: &[u8], shape: Shape) -> Vec<Vec<u8>> {
        if bytes.is_empty() {
            return Vec::new();
        }
        if bytes.len() >= LARGE_TEXT_BYTES {
            return vec![large(bytes, shape)];
        }
        vec![deflate::zlib_with(&mut self.scratch, bytes, shape)]
    }

    /// Records (of `shape`) as one stream, or as one stream per worker
    /// thread when the region is large.
    pub fn words(&mut self, words: &[u64], shape: Shape) -> Vec<Vec<u8>> {
        if words.is_empty() {
            return Vec::new();
        }
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let stride = shape.stride();
        if bytes.len() < LARGE_BYTES || stride < 8 {
            return vec![deflate::zlib_with(&mut self.scratch, bytes, shape)];
        }
        let rec_words = stride / 8;
        let n = if crate::finish::may_start_threads() { threads() } else { 1 };
        let recs = words.len() / rec_words;
        let per = recs.div_ceil(n).max(1) * stride;
        let parts: Vec<&[u8]> = bytes.chunks(per).collect();
        std::thread::scope(|s| {
            // The first part on this thread, the others on helpers (or here,
            // when no thread is to be had or one panicked).
            let handles: Vec<_> = parts[1..]
                .iter()
                .map(|&p| std::thread::Builder::new().spawn_scoped(s, move || large(p, shape)))
                .collect();
            let mut out = vec![large(parts[0], shape)];
            for (h, &p) in handles.into_iter().zip(&parts[1..]) {
                out.push(h.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| large(p, shape)));
            }
            out
        })
    }
}

impl Compressor {
    /// A long record as [`Compressor::words`] compresses its words (the
    /// same parts, one stream each), without laying it out whole: each
    /// part is written and compressed a piece at a time. A part of one
    /// piece is the same stream to the byte; a longer one can differ
    /// where the pieces meet (see [`large_in_pieces`]).
    pub fn long(&mut self, rec: &dyn LongRecord, shape: Shape) -> Vec<Vec<u8>> {
        let (len, stride) = (rec.len_words(), shape.stride());
        if len * 8 < LARGE_BYTES || stride < 8 {
            let mut words = vec![0u64; len];
            rec.words_at(0, &mut words);
            return self.words(&words, shape);
        }
        let rec_words = stride / 8;
        let n = if crate::finish::may_start_threads() { threads() } else { 1 };
        // The parts `words` makes of the same words.
        let per = (len / rec_words).div_ceil(n).max(1) * rec_words;
        let parts: Vec<Range<usize>> = (0..len).step_by(per).map(|a| a..len.min(a + per)).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = parts[1..]
                .iter()
                .map(|p| std::thread::Builder::new().spawn_scoped(s, || large_in_pieces(rec, p.clone(), shape)))
                .collect();
            let mut out = vec![large_in_pieces(rec, parts[0].clone(), shape)];
            for (h, p) in handles.into_iter().zip(&parts[1..]) {
                out.push(h.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| large_in_pieces(rec, p.clone(), shape)));
            }
            out
        })
    }
}

/// Words of a long record laid out and compressed at a time: 1 MiB.
const PIECE_WORDS: usize = 1 << 17;

/// Words `part` of `rec` as one stream, as [`large`] compresses them,
/// holding a piece of them at a time. zlib-rs's level 6 finds its matches
/// in the input it has, so the bytes can differ from one call's where
/// pieces meet (the same words inflated, the size within 0.5% at pieces
/// of 32 KiB and more: the test below); a 27 MB trace held a copy of
/// itself for one call.
fn large_in_pieces(rec: &dyn LongRecord, part: Range<usize>, shape: Shape) -> Vec<u8> {
    large_in_pieces_of(PIECE_WORDS, rec, part, shape)
}

fn large_in_pieces_of(piece_words: usize, rec: &dyn LongRecord, part: Range<usize>, shape: Shape) -> Vec<u8> {
    let bytes = part.len() * 8;
    let mut z = Compress::new(Compression::new(6), true);
    let mut out = Vec::with_capacity(bytes + (bytes >> 12) + (bytes >> 14) + 64);
    let mut piece = vec![0u64; piece_words.min(part.len())];
    let mut at = part.start;
    while at < part.end {
        let k = piece_words.min(part.end - at);
        rec.words_at(at, &mut piece[..k]);
        at += k;
        let flush = if at == part.end { FlushCompress::Finish } else { FlushCompress::None };
        let input: &[u8] = bytemuck::cast_slice(&piece[..k]);
        let before = z.total_in();
        match z.compress_vec(input, &mut out, flush) {
            // The output has room for the whole part (compressBound): every
            // piece is taken whole, and the stream ends at the last.
            Ok(Status::Ok) if z.total_in() - before == input.len() as u64 && at < part.end => {}
            Ok(Status::StreamEnd) if at == part.end => {}
            _ => {
                drop(out);
                let mut words = vec![0u64; part.len()];
                rec.words_at(part.start, &mut words);
                return deflate::zlib_with(&mut deflate::Scratch::default(), bytemuck::cast_slice(&words), shape);
            }
        }
    }
    out.shrink_to_fit();
    out
}

/// A large name table as one stream (zlib-rs), on whichever thread.
pub fn large_text(bytes: &[u8]) -> Vec<u8> {
    large(bytes, Shape::Names)
}

/// One stream of a large region: zlib-rs's level 6 (our encoder should
/// zlib-rs ever refuse).
fn large(bytes: &[u8], shape: Shape) -> Vec<u8> {
    let mut z = Compress::new(Compression::new(6), true);
    // compressBound: enough for any input at level 6.
    let mut out = Vec::with_capacity(bytes.len() + (bytes.len() >> 12) + (bytes.len() >> 14) + 64);
    match z.compress_vec(bytes, &mut out, FlushCompress::Finish) {
        Ok(Status::StreamEnd) => {
            out.shrink_to_fit();
            out
        }
        _ => deflate::zlib_with(&mut deflate::Scratch::default(), bytes, shape),
    }
}

/// Worker threads for big regions. available_parallelism reads cgroup
/// files (a dozen system calls), so it is asked once, and only when a
/// region is big enough to split.
fn threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(4))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn inflate(streams: &[Vec<u8>]) -> Vec<u8> {
        let mut all = Vec::new();
        for s in streams {
            flate2::read::ZlibDecoder::new(&s[..]).read_to_end(&mut all).unwrap();
        }
        all
    }

    /// A trace's words: offsets that grow, lengths and times that vary.
    fn trace_like(n: usize) -> Vec<u64> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n as u64)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match i % 4 {
                    0 => i * 512,
                    1 => 512 + x % 3,
                    _ => (1.0e-6 * (i + x % 1000) as f64).to_bits(),
                }
            })
            .collect()
    }

    struct InVec(Vec<u64>);
    impl LongRecord for InVec {
        fn len_words(&self) -> usize {
            self.0.len()
        }
        fn words_at(&self, from: usize, out: &mut [u64]) {
            out.copy_from_slice(&self.0[from..from + out.len()]);
        }
    }

    /// A part compressed a piece at a time, at any piece size, is one
    /// stream of the part's bytes, about as small as the part compressed
    /// in one call (the same bytes when it is one piece). Not always the
    /// same bytes: zlib-rs's level 6 finds its matches in what input it
    /// has, so where the input is cut can move them (pieces of 1 to 777
    /// words made streams up to 3% larger here; of 4,096 words and more,
    /// at most 0.5%).
    #[test]
    fn a_part_compressed_in_pieces_is_one_stream_of_its_words() {
        let rec = InVec(trace_like(70_001));
        let shape = Shape::VarRecords(1024);
        for part in [0..70_001, 3..65_540, 13..14] {
            let want: &[u8] = bytemuck::cast_slice(&rec.0[part.clone()]);
            let whole = large(want, shape);
            for piece in [1, 2, 33, 777, 4095, 4096, 5000, 65_536, 1 << 19] {
                let pieces = large_in_pieces_of(piece, &rec, part.clone(), shape);
                assert_eq!(inflate(std::slice::from_ref(&pieces)), want, "part {part:?}, pieces of {piece}");
                // Pieces of 32 KiB and more (the window) lose next to nothing.
                if piece >= 4096 {
                    assert!(
                        pieces.len() * 1000 <= whole.len() * 1005,
                        "{} bytes against {}",
                        pieces.len(),
                        whole.len()
                    );
                }
                if piece >= part.len() {
                    assert!(pieces == whole, "one piece is the one call");
                }
            }
        }
    }

    /// A long record's streams are those of its words laid out whole, to
    /// the byte: small (one stream by our encoder) and large (split at the
    /// same records across threads).
    #[test]
    fn a_long_record_compresses_to_the_streams_of_its_words() {
        for n in [1_000, LARGE_BYTES / 8 + 1_000] {
            let rec = InVec(trace_like(n));
            let shape = Shape::VarRecords(1024);
            let want = Compressor::default().words(&rec.0, shape);
            assert!(Compressor::default().long(&rec, shape) == want, "{n} words");
            assert_eq!(inflate(&want), bytemuck::cast_slice::<u64, u8>(&rec.0));
        }
    }

    #[test]
    fn parallel_streams_decompress_to_the_original_words() {
        let words: Vec<u64> = (0..300_000u64).map(|i| i * 7 % 1000).collect();
        let streams = Compressor::default().words(&words, Shape::Records(88 * 8));
        let back: Vec<u64> = inflate(&streams).chunks(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, words);
    }

    #[test]
    fn small_and_empty_regions() {
        // One compressor for all: each region reuses the last one's tables.
        let mut c = Compressor::default();
        let mut bytes = |b: &[u8]| c.bytes(b);
        assert!(bytes(b"").is_empty());
        assert_eq!(inflate(&bytes(b"first region")), b"first region");
        let mut c = Compressor::default();
        assert!(c.words(&[], Shape::Records(24)).is_empty());
        let out = inflate(&c.words(&[1, 2, 3], Shape::Records(24)));
        assert_eq!(out.len(), 24);
        assert_eq!(u64::from_ne_bytes(out[8..16].try_into().unwrap()), 2);
        // Sizes around the window and block boundaries decode with the
        // default (15-bit) inflater, as darshan-util's does.
        for n in [1usize, 100, 511, 512, 513, 4000, 32_767, 32_768, 32_769, 40_000, 70_000, 300_000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
            assert_eq!(inflate(&bytes(&data)), data, "{n} bytes");
        }
        // Incompressible bytes (random names) come out whole, a little
        // larger than they went in (stored blocks of at most 65,535).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let s = bytes(&noise);
        assert!(s[0].len() > noise.len() && s[0].len() <= noise.len() + noise.len() / 1000 + 16);
        assert_eq!(inflate(&s), noise);
    }

    /// A reused compressor's tables hold the last region's links: they must
    /// not leak into the next region (a stale link can point past the
    /// current position). Every region, compressed after a larger and a
    /// smaller one, gives the bytes a fresh compressor gives.
    #[test]
    fn a_reused_compressor_gives_what_a_fresh_one_gives() {
        // Four letters, pseudo-random: 3-byte matches at every distance, so
        // which candidates the chains offer decides the output.
        let text = |n: usize, seed: u64| -> Vec<u8> {
            let mut x = seed;
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b"ACGT"[(x % 4) as usize]
                })
                .collect()
        };
        let regions = [text(200_000, 1), text(50_000, 2), text(4_000, 3), text(100_000, 4), text(70, 5)];
        let mut reused = Compressor::default();
        for r in regions.iter().chain(regions.iter().rev()) {
            let fresh = Compressor::default().bytes(r);
            assert_eq!(reused.bytes(r), fresh, "{} bytes", r.len());
            assert_eq!(inflate(&fresh), *r);
            assert_eq!(reused.names(r), Compressor::default().names(r), "{} bytes as names", r.len());
            let words: Vec<u64> = r.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect();
            assert_eq!(
                reused.words(&words, Shape::Records(88)),
                Compressor::default().words(&words, Shape::Records(88))
            );
        }
    }
}
