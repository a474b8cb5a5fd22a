//! Shutdown compression: a region is one or more independent zlib streams
//! (a valid region, as the MPI runtime writes one stream per rank). Each
//! stream is compressed in one call straight from the record memory (the
//! words are the log's bytes in the host's order, which is the order a
//! log is written in), large regions split at record boundaries across
//! threads.
//!
//! Two encoders, each where it wins (`cargo run --release -p darshan-deflate
//! --example deflate_compare -- LOG...` measures both on a log):
//! - deflate.rs, classic zlib's level 6 (the C runtime's) that also tries
//!   the distances of whole records, for everything below a megabyte: a
//!   short process's log (zlib-rs's quarter-megabyte state cost 0.15 ms
//!   to clear) and a `git status`'s 1,024 records (0.42 ms against
//!   zlib-rs's 2.05 ms, both under classic zlib's size); name tables
//!   below 256 KiB.
//! - zlib-rs's level 6 for regions of fixed-size records of a megabyte
//!   or more: on 20,000 records of new files it is 2% smaller than ours
//!   (714 against 728 KB; classic zlib: 746 KB) at about the same speed,
//!   and ours left that log above the C runtime's 1 MB in one run of
//!   five; and for name tables of 256 KiB or more (see LARGE_TEXT_BYTES).
//! - deflate.rs again for large regions of variable-length records (DXT's
//!   traces), a stream per megabyte (PIECE_WORDS): on trace segments
//!   zlib-rs's level 6 was a fifth larger than classic zlib's.

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

    /// Records (of `shape`) as one stream, or as several when the region
    /// is large: one per worker thread for fixed-size records, one per
    /// piece for variable-length ones ([`Compressor::long`]).
    pub fn words(&mut self, words: &[u64], shape: Shape) -> Vec<Vec<u8>> {
        if words.is_empty() {
            return Vec::new();
        }
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let stride = shape.stride();
        if bytes.len() < LARGE_BYTES || stride < 8 {
            return vec![deflate::zlib_with(&mut self.scratch, bytes, shape)];
        }
        if let Shape::VarRecords(_) = shape {
            let piece = |r: Range<usize>, _: &mut Vec<u64>, s: &mut deflate::Scratch| {
                deflate::zlib_with(s, bytemuck::cast_slice(&words[r]), shape)
            };
            return in_pieces(words.len(), &piece);
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

    /// A long record as [`Compressor::words`] compresses its words, never
    /// laid out whole when its records vary in length (DXT's): each piece
    /// is written, then compressed, by the thread that takes it.
    pub fn long(&mut self, rec: &dyn LongRecord, shape: Shape) -> Vec<Vec<u8>> {
        let len = rec.len_words();
        if len * 8 < LARGE_BYTES || !matches!(shape, Shape::VarRecords(_)) {
            let mut words = vec![0u64; len];
            rec.words_at(0, &mut words);
            return self.words(&words, shape);
        }
        let piece = |r: Range<usize>, buf: &mut Vec<u64>, s: &mut deflate::Scratch| {
            buf.resize(r.len(), 0);
            rec.words_at(r.start, buf);
            deflate::zlib_with(s, bytemuck::cast_slice(&buf[..]), shape)
        };
        in_pieces(len, &piece)
    }
}

/// Words of a large region of variable-length records compressed as one
/// stream: 1 MiB. On traces zlib-rs's level 6 made streams a fifth larger
/// than classic zlib's level 6 (C's) and ours (3.2 MB of segments: 693
/// against 564 and 560 KB), whose pieces of 1 MiB lose nothing to one
/// stream (559.6 KB); pieces at fixed places make the same bytes on any
/// number of cores.
const PIECE_WORDS: usize = 1 << 17;

/// How a piece is compressed: its words' range, a buffer for them, the
/// thread's encoder memory.
type Piece<'a> = dyn Fn(Range<usize>, &mut Vec<u64>, &mut deflate::Scratch) -> Vec<u8> + Sync + 'a;

/// `len` words as one stream per piece of [`PIECE_WORDS`], in order; the
/// pieces shared round-robin by this thread and the helpers it may start
/// (each a piece's words and its encoder memory at a time).
fn in_pieces(len: usize, piece: &Piece) -> Vec<Vec<u8>> {
    let pieces = len.div_ceil(PIECE_WORDS);
    let n = if crate::finish::may_start_threads() { threads().min(pieces) } else { 1 };
    let share = |k: usize| {
        let (mut buf, mut scratch) = (Vec::new(), deflate::Scratch::default());
        (k..pieces)
            .step_by(n)
            .map(|i| piece(i * PIECE_WORDS..len.min((i + 1) * PIECE_WORDS), &mut buf, &mut scratch))
            .collect::<Vec<_>>()
    };
    let shares: Vec<Vec<Vec<u8>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (1..n).map(|k| std::thread::Builder::new().spawn_scoped(s, move || share(k))).collect();
        let mut out = vec![share(0)];
        for (k, h) in (1..n).zip(handles) {
            out.push(h.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| share(k)));
        }
        out
    });
    // Piece i is share i % n's (i / n)th.
    let mut iters: Vec<_> = shares.into_iter().map(|s| s.into_iter()).collect();
    (0..pieces).filter_map(|i| iters[i % n].next()).collect()
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

    /// A long record's streams are those of its words laid out whole, to
    /// the byte: small (one stream by our encoder) and large (a stream per
    /// piece of 1 MiB, the last one short), and they inflate to its words.
    #[test]
    fn a_long_record_compresses_to_the_streams_of_its_words() {
        for (n, streams) in [(1_000, 1), (LARGE_BYTES / 8 + 1_000, 2), (3 * PIECE_WORDS, 3)] {
            let rec = InVec(trace_like(n));
            let shape = Shape::VarRecords(1024);
            let want = Compressor::default().words(&rec.0, shape);
            assert_eq!(want.len(), streams, "{n} words");
            assert!(Compressor::default().long(&rec, shape) == want, "{n} words");
            assert_eq!(inflate(&want), bytemuck::cast_slice::<u64, u8>(&rec.0));
        }
    }

    /// A DXT record's words as the runtime writes them: 8-byte writes one
    /// after another, each about 0.7 us long and starting where the last
    /// ended, its times in seconds at C's resolution (2^-22 s), early in
    /// the run (as `tests/programs/dxt_pattern.c`'s).
    fn dxt_like(n: usize) -> Vec<u64> {
        let unit = 1.0 / (1u64 << 22) as f64;
        let segs = (n as u64 - 13) / 4;
        let mut w = vec![7u64, 0, 0, 0x6e6f_6465, 0, 0, 0, 0, 0, 0, 0, segs, 0];
        let (mut t, mut x) = (0.0014 / unit, 0x9E37_79B9_7F4A_7C15u64);
        for i in 0..segs {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let start = t + (x % 2) as f64;
            t = start + (3 + x % 3 / 2) as f64;
            w.extend([i * 8, 8, (start * unit).to_bits(), (t * unit).to_bits()]);
        }
        w
    }

    /// A large region of traces went to zlib-rs's level 6, whose streams
    /// of trace segments were a fifth larger than classic zlib's level 6
    /// (C Darshan's): 693 against 564 KB for 3.2 MB of segments. In pieces
    /// of 1 MiB by our encoder they are as small as one stream of it, and
    /// smaller than zlib-rs's; the pieces are the same streams whichever
    /// thread compressed them.
    #[test]
    fn a_large_region_of_traces_was_compressed_a_fifth_larger_than_by_zlib() {
        let words = dxt_like(4 * PIECE_WORDS + 12_345);
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let shape = Shape::VarRecords(1024);
        let pieces = Compressor::default().words(&words, shape);
        let size: usize = pieces.iter().map(Vec::len).sum();
        let one = deflate::zlib_with(&mut deflate::Scratch::default(), bytes, shape).len();
        let zlib_rs = large(bytes, shape).len();
        assert!(size * 1000 <= one * 1002, "{size} bytes in pieces against {one} in one stream");
        assert!(size * 5 < zlib_rs * 4, "{size} bytes in pieces against zlib-rs's {zlib_rs}");
        assert_eq!(inflate(&pieces), bytes);
        let alone: Vec<Vec<u8>> = bytes
            .chunks(PIECE_WORDS * 8)
            .map(|p| deflate::zlib_with(&mut deflate::Scratch::default(), p, shape))
            .collect();
        assert!(pieces == alone, "each piece is the stream of its words alone");
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
