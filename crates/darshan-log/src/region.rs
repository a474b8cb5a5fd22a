//! Streaming decompression of one region. A region is a concatenation of
//! complete compressed streams (one per rank in runtime-written logs); the
//! reader restarts the decoder at each stream end and keeps only one input
//! chunk and one output chunk in memory.

use crate::error::{LogError, Result};
use crate::header::{Compression, RegionMap};
use crate::source::LogSource;

const IN_CHUNK: usize = 256 * 1024;
const OUT_CHUNK: usize = 256 * 1024;

/// The most a region may expand when decompressed: deflate cannot exceed
/// 1032 to 1, and bzip2 streams that expand more are refused, so the bytes
/// a reader holds are bounded by the file's size (a small file cannot
/// unpack into gigabytes). Real logs compress 5 to 100 times.
pub const MAX_EXPANSION: u64 = 1100;

enum Decoder {
    Zlib(flate2::Decompress),
    Bzip2(Box<bzip2::Decompress>),
    Raw,
}

pub struct RegionReader<'a> {
    src: &'a dyn LogSource,
    region: String,
    /// The region's place in the file.
    map: RegionMap,
    next_off: u64,
    remaining: u64,
    inbuf: Vec<u8>,
    in_pos: usize,
    in_len: usize,
    out: Vec<u8>,
    out_pos: usize,
    out_len: usize,
    dec: Decoder,
    /// A stream has started and not yet ended.
    in_stream: bool,
    /// The decoder finished a stream and must be reset before the next.
    need_reset: bool,
    /// Compressed bytes taken and bytes produced so far.
    taken: u64,
    produced: u64,
}

/// The last reader's buffers and zlib decoder, kept for the next one on
/// the same thread: a tool that opens thousands of small logs (a job
/// merge of 10,000 processes) otherwise takes and frees tens of KB per
/// region, and what it keeps of each log pinned those freed blocks apart
/// in the allocator's heap (16 KB of memory per log kept; 191 MB for
/// 10,000). The runtime never reads logs, so this is never in a host.
struct Spare {
    zlib: Option<flate2::Decompress>,
    inbuf: Vec<u8>,
    out: Vec<u8>,
}

thread_local! {
    static SPARE: std::cell::RefCell<Spare> =
        const { std::cell::RefCell::new(Spare { zlib: None, inbuf: Vec::new(), out: Vec::new() }) };
}

fn spare<T>(f: impl FnOnce(&mut Spare) -> T) -> Option<T> {
    SPARE.try_with(|s| s.try_borrow_mut().ok().map(|mut s| f(&mut s))).ok().flatten()
}

impl Drop for RegionReader<'_> {
    fn drop(&mut self) {
        let dec = std::mem::replace(&mut self.dec, Decoder::Raw);
        let (inbuf, out) = (std::mem::take(&mut self.inbuf), std::mem::take(&mut self.out));
        spare(|s| {
            if let Decoder::Zlib(d) = dec {
                s.zlib.get_or_insert(d);
            }
            if s.inbuf.capacity() < inbuf.capacity() {
                s.inbuf = inbuf;
            }
            if s.out.capacity() < out.capacity() {
                s.out = out;
            }
        });
    }
}

/// The error of a stream in `region` that cannot be one of a Darshan log's.
fn corrupt(region: &str, msg: String) -> LogError {
    LogError::Decompress { region: region.to_string(), msg }
}

impl<'a> RegionReader<'a> {
    pub fn new(src: &'a dyn LogSource, map: RegionMap, comp: Compression, region: &str) -> Self {
        let dec = match comp {
            Compression::Zlib => Decoder::Zlib(
                spare(|s| s.zlib.take())
                    .flatten()
                    .map(|mut d| {
                        d.reset(true);
                        d
                    })
                    .unwrap_or_else(|| flate2::Decompress::new(true)),
            ),
            Compression::Bzip2 => Decoder::Bzip2(Box::new(bzip2::Decompress::new(false))),
            Compression::None => Decoder::Raw,
        };
        RegionReader {
            src,
            region: region.to_string(),
            map,
            next_off: map.off,
            remaining: map.len,
            inbuf: Vec::new(),
            in_pos: 0,
            in_len: 0,
            out: Vec::new(),
            out_pos: 0,
            out_len: 0,
            dec,
            in_stream: false,
            need_reset: false,
            taken: 0,
            produced: 0,
        }
    }

    fn refill_input(&mut self) -> Result<bool> {
        if self.remaining == 0 {
            return Ok(false);
        }
        if self.inbuf.is_empty() {
            let want = IN_CHUNK.min(self.remaining as usize).max(1);
            self.inbuf = spare(|s| std::mem::take(&mut s.inbuf)).unwrap_or_default();
            self.inbuf.clear();
            self.inbuf.resize(want, 0);
        }
        let want = (self.inbuf.len() as u64).min(self.remaining) as usize;
        self.src.read_exact_at(&mut self.inbuf[..want], self.next_off).map_err(|e| self.read_error(e))?;
        self.next_off += want as u64;
        self.remaining -= want as u64;
        self.in_pos = 0;
        self.in_len = want;
        Ok(true)
    }

    /// Produce more decompressed bytes into `out`; Ok(false) at region end.
    fn refill_output(&mut self) -> Result<bool> {
        if self.out.is_empty() {
            // A small region gets a small staging buffer (the loop below
            // refills it as often as it takes).
            let hint = (self.remaining as usize).saturating_mul(8).max(16 << 10);
            self.out = spare(|s| std::mem::take(&mut s.out)).unwrap_or_default();
            self.out.clear();
            self.out.resize(OUT_CHUNK.min(hint), 0);
        }
        loop {
            if self.in_pos == self.in_len && !self.refill_input()? {
                if self.in_stream {
                    return Err(LogError::TruncatedStream { region: self.region.clone() });
                }
                return Ok(false);
            }
            let (consumed, produced, ended) = self.decode_step()?;
            self.in_pos += consumed;
            self.taken += consumed as u64;
            self.produced += produced as u64;
            if !matches!(self.dec, Decoder::Raw) && self.produced > MAX_EXPANSION * self.taken + OUT_CHUNK as u64 {
                return Err(corrupt(
                    &self.region,
                    format!(
                        "{} bytes expand to more than {} times their size: not a Darshan log's stream",
                        self.taken, MAX_EXPANSION
                    ),
                ));
            }
            self.in_stream = !ended;
            self.need_reset = ended;
            if produced > 0 {
                self.out_pos = 0;
                self.out_len = produced;
                return Ok(true);
            }
            if consumed == 0 && !ended && self.in_pos < self.in_len {
                // The decoder accepted no input and produced nothing with
                // room to spare: the stream is corrupt.
                return Err(corrupt(&self.region, "decoder made no progress".into()));
            }
        }
    }

    /// One call of the decoder on the input at hand, into `out`: (bytes
    /// consumed, bytes produced, whether a stream ended). A decoder whose
    /// stream ended is reset first (a region may hold several streams).
    fn decode_step(&mut self) -> Result<(usize, usize, bool)> {
        let input = &self.inbuf[self.in_pos..self.in_len];
        let failed = |e: &dyn std::fmt::Display| corrupt(&self.region, e.to_string());
        Ok(match &mut self.dec {
            Decoder::Raw => {
                let n = input.len().min(self.out.len());
                self.out[..n].copy_from_slice(&input[..n]);
                (n, n, true)
            }
            Decoder::Zlib(d) => {
                if std::mem::take(&mut self.need_reset) {
                    d.reset(true);
                }
                let (i0, o0) = (d.total_in(), d.total_out());
                let st = d.decompress(input, &mut self.out, flate2::FlushDecompress::None).map_err(|e| failed(&e))?;
                ((d.total_in() - i0) as usize, (d.total_out() - o0) as usize, st == flate2::Status::StreamEnd)
            }
            Decoder::Bzip2(d) => {
                if std::mem::take(&mut self.need_reset) {
                    **d = bzip2::Decompress::new(false);
                }
                let (i0, o0) = (d.total_in(), d.total_out());
                let st = d.decompress(input, &mut self.out).map_err(|e| failed(&e))?;
                ((d.total_in() - i0) as usize, (d.total_out() - o0) as usize, st == bzip2::Status::StreamEnd)
            }
        })
    }

    /// Whether the region is stored as it reads (uncompressed, as a
    /// crash-safe file's are): then [`Self::raw_at`] reads anywhere in it.
    pub fn is_raw(&self) -> bool {
        matches!(self.dec, Decoder::Raw)
    }

    /// An uncompressed region's bytes at offset `off` into `buf`, all of
    /// them, without moving the reader.
    pub fn raw_at(&self, off: u64, buf: &mut [u8]) -> Result<()> {
        let inside = off.checked_add(buf.len() as u64).is_some_and(|end| end <= self.map.len);
        if !self.is_raw() || !inside {
            return Err(corrupt(&self.region, format!("no {} bytes at offset {off} of the region", buf.len())));
        }
        self.src.read_exact_at(buf, self.map.off + off).map_err(|e| self.read_error(e))
    }

    /// A failed read of the region's bytes: the file ending inside the
    /// region is a truncated log, anything else the system's error.
    fn read_error(&self, e: std::io::Error) -> LogError {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            LogError::TruncatedStream { region: self.region.clone() }
        } else {
            LogError::Io(e)
        }
    }

    /// Fill `buf` as far as the region allows; returns the bytes copied
    /// (less than `buf.len()` only at the end of the region).
    pub fn read_full(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            if self.out_pos == self.out_len && !self.refill_output()? {
                break;
            }
            let n = (self.out_len - self.out_pos).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
            self.out_pos += n;
            done += n;
        }
        Ok(done)
    }

    /// Next byte, or None at the end of the region.
    #[inline]
    pub fn next_byte(&mut self) -> Result<Option<u8>> {
        if self.out_pos == self.out_len && !self.refill_output()? {
            return Ok(None);
        }
        let b = self.out[self.out_pos];
        self.out_pos += 1;
        Ok(Some(b))
    }

    /// Append bytes up to (not including) the next NUL to `dst`; returns
    /// false if the region ended before a NUL.
    pub fn read_cstr_into(&mut self, dst: &mut Vec<u8>) -> Result<bool> {
        loop {
            if self.out_pos == self.out_len && !self.refill_output()? {
                return Ok(false);
            }
            let avail = &self.out[self.out_pos..self.out_len];
            if let Some(p) = avail.iter().position(|&c| c == 0) {
                dst.extend_from_slice(&avail[..p]);
                self.out_pos += p + 1;
                return Ok(true);
            }
            dst.extend_from_slice(avail);
            self.out_pos = self.out_len;
        }
    }

    /// Read everything left (bounded by `limit` bytes) into a vector.
    pub fn read_to_end(&mut self, limit: usize) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        loop {
            if self.out_pos == self.out_len && !self.refill_output()? {
                return Ok(v);
            }
            let n = (self.out_len - self.out_pos).min(limit.saturating_sub(v.len()));
            v.extend_from_slice(&self.out[self.out_pos..self.out_pos + n]);
            self.out_pos += n;
            if v.len() >= limit {
                return Ok(v);
            }
        }
    }
}
