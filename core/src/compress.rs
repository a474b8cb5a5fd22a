//! Shutdown compression: a region is one or more independent zlib streams
//! (a valid region, as the MPI runtime writes one stream per rank). Each
//! stream is compressed in one call straight from the record memory (the
//! words are the log's bytes in the host's order, which is the order a
//! log is written in), large regions split at record boundaries across
//! threads.
//!
//! Level 6, zlib's default and the C runtime's: with times at the C
//! resolution, a 20,000-record log is then the C runtime's size (level 1
//! gave 1.5 MB against C's 1 MB). Small inputs get a window and hash table
//! no bigger than themselves: zlib's default state is a quarter of a
//! megabyte to allocate and clear, which was most of the shutdown of a
//! process with a handful of records.

use zlib_rs::{compress_bound, compress_slice, DeflateConfig, Method, ReturnCode, Strategy};

/// Regions smaller than this are compressed on the calling thread (level
/// 6 takes about 1 ms per 300 KiB of records here; a thread costs ~50 us).
const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// zlib parameters for `len` bytes at `level`: a window of the smallest
/// power of two that holds the input (2^9..2^15), a hash table of about
/// as many entries (2^(mem_level+7)).
fn config(len: usize, level: u32) -> DeflateConfig {
    let window_bits = (len.max(1).next_power_of_two().trailing_zeros() as i32).clamp(9, 15);
    DeflateConfig {
        level: level as i32,
        method: Method::Deflated,
        window_bits,
        mem_level: (window_bits - 7).clamp(1, 8),
        strategy: Strategy::Default,
    }
}

/// One zlib stream of `bytes`.
fn compress_one(bytes: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    // Zeroed by the allocator's fresh pages: only what is written is touched.
    let mut out = vec![0u8; compress_bound(bytes.len())];
    let (done, rc) = compress_slice(&mut out, bytes, config(bytes.len(), level));
    if rc != ReturnCode::Ok {
        return Err(std::io::Error::other(format!("zlib: {rc:?}")));
    }
    let n = done.len();
    out.truncate(n);
    out.shrink_to_fit();
    Ok(out)
}

/// Worker threads for big regions. available_parallelism reads cgroup
/// files (a dozen system calls), so it is asked once, and only when a
/// region is big enough to split.
fn threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(4))
}

/// Compresses the regions of one log at one level.
pub struct Compressor {
    level: u32,
}

impl Compressor {
    pub fn new(level: u32) -> Compressor {
        Compressor { level }
    }

    /// One region of bytes (the job record, the name table) as one stream.
    pub fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<Vec<Vec<u8>>> {
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![compress_one(bytes, self.level)?])
    }

    /// Records (`rec_words` words each) as one stream, or as one stream
    /// per worker thread when the region is large.
    pub fn words(&mut self, words: &[u64], rec_words: usize) -> std::io::Result<Vec<Vec<u8>>> {
        compress_words(words, rec_words, self.level)
    }
}

/// Compress `words` (records of `rec_words` words) into zlib streams.
pub fn compress_words(words: &[u64], rec_words: usize, level: u32) -> std::io::Result<Vec<Vec<u8>>> {
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let bytes: &[u8] = bytemuck::cast_slice(words);
    if bytes.len() < PARALLEL_MIN_BYTES || rec_words == 0 || threads() < 2 {
        return Ok(vec![compress_one(bytes, level)?]);
    }
    let n = threads();
    let recs = words.len() / rec_words;
    let per = recs.div_ceil(n).max(1) * rec_words * 8;
    let parts: Vec<&[u8]> = bytes.chunks(per).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> =
            parts.iter().map(|p| std::thread::Builder::new().spawn_scoped(s, move || compress_one(p, level))).collect();
        let mut out = Vec::with_capacity(parts.len());
        for (h, p) in handles.into_iter().zip(&parts) {
            out.push(match h {
                Ok(h) => h.join().unwrap_or_else(|_| compress_one(p, level))?,
                // No thread to be had (limits): compress here.
                Err(_) => compress_one(p, level)?,
            });
        }
        Ok(out)
    })
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
        let streams = compress_words(&words, 88, 6).unwrap();
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
    }
}
