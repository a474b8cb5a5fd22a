//! Shutdown compression: a region is one or more independent zlib streams
//! (a valid region, as the MPI runtime writes one stream per rank). Each
//! stream is compressed in one call straight from the record memory (the
//! words are the log's bytes in the host's order, which is the order a
//! log is written in), large regions split at record boundaries across
//! threads.
//!
//! Level 6, zlib's default and the C runtime's: with times at the C
//! resolution, a 20,000-record log is then the C runtime's size (level 1
//! gave 1.5 MB against C's 1 MB).
//!
//! A deflate state is a quarter of a megabyte that zlib-rs clears when it
//! is made (window, chains and a 128 KiB hash table): 79 fresh pages, over
//! 0.1 ms of page faults here. A process that writes five regions (job,
//! names, three modules) paid that five times, which was most of a short
//! process's shutdown. The [`Compressor`] keeps one state, with a window
//! no bigger than the largest input so far (a 1 KiB job record needs 2
//! KiB, not 32), and resets it between streams. Streams of up to 32 KiB
//! (all of a short process's log) do not need it at all: deflate_small.rs
//! encodes them as classic zlib's level 6 would, with a state of a few
//! kilobytes.

use flate2::{Compress, Compression, FlushCompress, Status};

use crate::deflate_small;

/// Regions smaller than this are compressed on the calling thread (level
/// 6 takes about 1 ms per 300 KiB of records here; a thread costs ~50 us).
const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// Worst-case zlib output for `n` input bytes (zlib's compressBound, with
/// room for the header and trailer).
fn bound(n: usize) -> usize {
    n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 6
}

/// Compresses the regions of one log at one level, one zlib stream at a
/// time, on one deflate state.
pub struct Compressor {
    level: u32,
    /// The deflate state and its window size (log2).
    state: Option<(u8, Compress)>,
}

/// The smallest window (log2, zlib's 9..=15) that holds `len` bytes.
fn window_bits(len: usize) -> u8 {
    (len.max(1).next_power_of_two().trailing_zeros() as u8).clamp(9, 15)
}

impl Compressor {
    pub fn new(level: u32) -> Compressor {
        Compressor { level, state: None }
    }

    /// One zlib stream of `bytes`.
    fn stream(&mut self, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
        if bytes.len() <= deflate_small::MAX_INPUT && self.level == 6 {
            return Ok(deflate_small::zlib(bytes));
        }
        let bits = window_bits(bytes.len());
        let z = match &mut self.state {
            Some((b, z)) if *b >= bits => {
                z.reset();
                z
            }
            state => {
                &mut state.insert((bits, Compress::new_with_window_bits(Compression::new(self.level), true, bits))).1
            }
        };
        // zlib's bound holds at level 6; should the encoder ever need more
        // (another level, another zlib), the buffer grows and it goes on.
        let mut out = Vec::with_capacity(bound(bytes.len()));
        loop {
            let rest = &bytes[z.total_in() as usize..];
            match z.compress_vec(rest, &mut out, FlushCompress::Finish).map_err(std::io::Error::other)? {
                Status::StreamEnd => break,
                _ => out.reserve(out.capacity().max(4096)),
            }
        }
        out.shrink_to_fit();
        Ok(out)
    }

    /// One region of bytes (the job record, the name table) as one stream.
    pub fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<Vec<Vec<u8>>> {
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![self.stream(bytes)?])
    }

    /// Records (`rec_words` words each) as one stream, or as one stream
    /// per worker thread when the region is large.
    pub fn words(&mut self, words: &[u64], rec_words: usize) -> std::io::Result<Vec<Vec<u8>>> {
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let bytes: &[u8] = bytemuck::cast_slice(words);
        if bytes.len() < PARALLEL_MIN_BYTES || rec_words == 0 || threads() < 2 {
            return Ok(vec![self.stream(bytes)?]);
        }
        let n = threads();
        let recs = words.len() / rec_words;
        let per = recs.div_ceil(n).max(1) * rec_words * 8;
        let parts: Vec<&[u8]> = bytes.chunks(per).collect();
        let level = self.level;
        let mut out = Vec::with_capacity(parts.len());
        std::thread::scope(|s| {
            // The first part on this thread's state, the others on helpers'.
            let handles: Vec<_> = parts[1..]
                .iter()
                .map(|p| std::thread::Builder::new().spawn_scoped(s, move || Compressor::new(level).stream(p)))
                .collect();
            out.push(self.stream(parts[0])?);
            for (h, p) in handles.into_iter().zip(&parts[1..]) {
                out.push(match h {
                    Ok(h) => h.join().unwrap_or_else(|_| self.stream(p))?,
                    // No thread to be had (limits): compress here.
                    Err(_) => self.stream(p)?,
                });
            }
            Ok::<(), std::io::Error>(())
        })?;
        Ok(out)
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

    #[test]
    fn parallel_streams_decompress_to_the_original_words() {
        let words: Vec<u64> = (0..300_000u64).map(|i| i * 7 % 1000).collect();
        let streams = Compressor::new(6).words(&words, 88).unwrap();
        let back: Vec<u64> = inflate(&streams).chunks(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, words);
    }

    #[test]
    fn small_and_empty_regions() {
        let mut c = Compressor::new(6);
        assert!(c.bytes(b"").unwrap().is_empty());
        let a = c.bytes(b"first region").unwrap();
        assert_eq!(inflate(&a), b"first region");
        let b = c.words(&[1, 2, 3], 3).unwrap();
        let out = inflate(&b);
        assert_eq!(out.len(), 24);
        assert_eq!(u64::from_ne_bytes(out[8..16].try_into().unwrap()), 2);
        // Every window size from the smallest up decodes with the default
        // (15-bit) inflater, as darshan-util's does.
        for n in [1usize, 100, 511, 512, 513, 4000, 40_000, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
            assert_eq!(inflate(&c.bytes(&data).unwrap()), data, "{n} bytes");
        }
        // Incompressible bytes (random names) come out whole, a little
        // larger than they went in.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let s = c.bytes(&noise).unwrap();
        assert!(s[0].len() > noise.len() && s[0].len() <= bound(noise.len()));
        assert_eq!(inflate(&s), noise);
    }
}
