//! Shutdown compression: a region's records are compressed as one or more
//! independent zlib streams (a valid region, as the MPI runtime writes one
//! stream per rank). Large regions are split at record boundaries and the
//! parts compressed on parallel threads; words are turned into bytes 64 KiB
//! at a time, so no copy of the whole region is ever made.

use std::io::Write;

/// Regions smaller than this are compressed on the calling thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;
const CHUNK_WORDS: usize = 8192;

fn compress_one(words: &[u64], level: u32) -> std::io::Result<Vec<u8>> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
    let mut buf = Vec::with_capacity(CHUNK_WORDS * 8);
    for chunk in words.chunks(CHUNK_WORDS) {
        buf.clear();
        for w in chunk {
            buf.extend_from_slice(&w.to_le_bytes());
        }
        enc.write_all(&buf)?;
    }
    enc.finish()
}

/// Worker threads for big regions. available_parallelism reads cgroup
/// files (a dozen system calls), so it is asked once, and only when a
/// region is big enough to split.
fn threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(4))
}

/// Compresses the regions of one log. Small regions all go through one
/// encoder, reset between streams: setting up a zlib encoder (and faulting
/// in its tables) costs more than compressing a few records.
pub struct Compressor {
    level: u32,
    enc: flate2::write::ZlibEncoder<Vec<u8>>,
    buf: Vec<u8>,
}

impl Compressor {
    pub fn new(level: u32) -> Compressor {
        Compressor {
            level,
            enc: flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level)),
            buf: Vec::with_capacity(CHUNK_WORDS * 8),
        }
    }

    fn finish_stream(&mut self) -> std::io::Result<Vec<u8>> {
        self.enc.try_finish()?;
        self.enc.reset(Vec::new())
    }

    /// One region of bytes (the name table) as one stream.
    pub fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<Vec<Vec<u8>>> {
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        self.enc.write_all(bytes)?;
        Ok(vec![self.finish_stream()?])
    }

    /// Records (`rec_words` words each) as one stream, or as one stream
    /// per worker thread when the region is large.
    pub fn words(&mut self, words: &[u64], rec_words: usize) -> std::io::Result<Vec<Vec<u8>>> {
        if words.is_empty() {
            return Ok(Vec::new());
        }
        if words.len() * 8 >= PARALLEL_MIN_BYTES && rec_words > 0 && threads() >= 2 {
            return compress_words(words, rec_words, self.level);
        }
        for chunk in words.chunks(CHUNK_WORDS) {
            self.buf.clear();
            for w in chunk {
                self.buf.extend_from_slice(&w.to_le_bytes());
            }
            self.enc.write_all(&self.buf)?;
        }
        Ok(vec![self.finish_stream()?])
    }
}

/// Compress `words` (records of `rec_words` words) into zlib streams.
pub fn compress_words(words: &[u64], rec_words: usize, level: u32) -> std::io::Result<Vec<Vec<u8>>> {
    if words.is_empty() {
        return Ok(Vec::new());
    }
    if words.len() * 8 < PARALLEL_MIN_BYTES || rec_words == 0 || threads() < 2 {
        return Ok(vec![compress_one(words, level)?]);
    }
    let n = threads();
    let recs = words.len() / rec_words;
    let per = recs.div_ceil(n) * rec_words;
    let parts: Vec<&[u64]> = words.chunks(per.max(rec_words)).collect();
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

    #[test]
    fn parallel_streams_decompress_to_the_original_words() {
        let words: Vec<u64> = (0..300_000u64).map(|i| i * 7 % 1000).collect();
        let streams = compress_words(&words, 88, 1).unwrap();
        let mut all = Vec::new();
        for s in &streams {
            let mut d = flate2::read::ZlibDecoder::new(&s[..]);
            d.read_to_end(&mut all).unwrap();
        }
        let back: Vec<u64> = all.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, words);
    }

    #[test]
    fn one_reused_encoder_gives_independent_streams() {
        let mut c = Compressor::new(1);
        let a = c.bytes(b"first region").unwrap();
        let b = c.words(&[1, 2, 3], 3).unwrap();
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&a[0][..]).read_to_end(&mut out).unwrap();
        assert_eq!(out, b"first region");
        out.clear();
        flate2::read::ZlibDecoder::new(&b[0][..]).read_to_end(&mut out).unwrap();
        assert_eq!(out.len(), 24);
        assert_eq!(out[8], 2);
    }
}
