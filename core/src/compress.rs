//! Shutdown compression: a region is one or more independent zlib streams
//! (a valid region, as the MPI runtime writes one stream per rank). Each
//! stream is compressed in one call straight from the record memory (the
//! words are the log's bytes in the host's order, which is the order a
//! log is written in), large regions split at record boundaries across
//! threads.
//!
//! The encoder is deflate.rs: classic zlib's level 6 (the C runtime's),
//! which also tries the distances of whole records. It replaced zlib-rs,
//! whose quarter-megabyte state cost a short process 0.15 ms to clear and
//! whose level 6 took 2 ms on the 1,024 records of a `git status` (0.7 ms
//! here), with logs no larger than the C runtime's (deflate/tests.rs
//! checks that against every region of the corpus).

use crate::deflate;

/// Regions smaller than this are compressed on the calling thread (about
/// 1 ms per megabyte of records here; a thread costs ~50 us).
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// One region of bytes (the job record, the name table) as one stream.
pub fn bytes(bytes: &[u8]) -> Vec<Vec<u8>> {
    if bytes.is_empty() {
        return Vec::new();
    }
    vec![deflate::zlib(bytes, 0)]
}

/// Records (`rec_words` words each) as one stream, or as one stream per
/// worker thread when the region is large.
pub fn words(words: &[u64], rec_words: usize) -> Vec<Vec<u8>> {
    if words.is_empty() {
        return Vec::new();
    }
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let stride = rec_words * 8;
    if bytes.len() < PARALLEL_MIN_BYTES || rec_words == 0 || threads() < 2 {
        return vec![deflate::zlib(bytes, stride)];
    }
    let n = threads();
    let recs = words.len() / rec_words;
    let per = recs.div_ceil(n).max(1) * stride;
    let parts: Vec<&[u8]> = bytes.chunks(per).collect();
    std::thread::scope(|s| {
        // The first part on this thread, the others on helpers (or here,
        // when no thread is to be had or one panicked).
        let handles: Vec<_> = parts[1..]
            .iter()
            .map(|&p| std::thread::Builder::new().spawn_scoped(s, move || deflate::zlib(p, stride)))
            .collect();
        let mut out = vec![deflate::zlib(parts[0], stride)];
        for (h, &p) in handles.into_iter().zip(&parts[1..]) {
            out.push(h.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| deflate::zlib(p, stride)));
        }
        out
    })
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
        let streams = super::words(&words, 88);
        let back: Vec<u64> = inflate(&streams).chunks(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, words);
    }

    #[test]
    fn small_and_empty_regions() {
        assert!(bytes(b"").is_empty());
        assert!(words(&[], 3).is_empty());
        assert_eq!(inflate(&bytes(b"first region")), b"first region");
        let out = inflate(&words(&[1, 2, 3], 3));
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
}
