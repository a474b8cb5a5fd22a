//! Reading module records from a region: one record at a time, any
//! supported version, either byte order, up-converted to the newest layout.

use crate::error::{LogError, Result};
use crate::modules::*;
use crate::record::{DxtSegment, Extra, LustreComponent, Record};
use crate::region::RegionReader;

/// How the fixed-size part of a record is laid out on disk.
struct Layout {
    size: usize,
    counters: usize,
    fcounters: usize,
    /// uint64 file_rec_id right after the base record (H5D v2, PNETCDF_VAR).
    file_rec_id: bool,
    /// Bytes to skip after the base record (BG/Q v1 padding).
    skip: usize,
}

const fn lay(size: usize, counters: usize, fcounters: usize) -> Layout {
    Layout { size, counters, fcounters, file_rec_id: false, skip: 0 }
}

fn fixed_layout(module: usize, ver: u32) -> Option<Layout> {
    Some(match (module, ver) {
        (NULL, 1) => lay(48, 2, 2),
        (POSIX, 4) => lay(704, 69, 17),
        (POSIX, 3) => lay(664, 64, 17),
        (POSIX, 2) => lay(648, 64, 15),
        (POSIX, 1) => lay(680, 68, 15),
        (MPIIO, 3) => lay(560, 51, 17),
        (MPIIO, 1 | 2) => lay(544, 51, 15),
        (STDIO, 2) => lay(248, 14, 15),
        (STDIO, 1) => lay(240, 13, 15),
        (H5F, 3) => lay(80, 3, 5),
        (H5F, 2) => lay(56, 1, 4),
        (H5F, 1) => lay(40, 1, 2),
        (H5D, 2) => Layout { file_rec_id: true, ..lay(912, 94, 17) },
        (H5D, 1) => lay(904, 94, 17),
        (PNETCDF_FILE, 3) => lay(152, 9, 8),
        (PNETCDF_FILE, 2) => lay(64, 2, 4),
        (PNETCDF_FILE, 1) => lay(48, 2, 2),
        (PNETCDF_VAR, 1) => Layout { file_rec_id: true, ..lay(1120, 120, 17) },
        (BGQ, 2) => lay(112, 11, 1),
        (BGQ, 1) => Layout { skip: 8, ..lay(120, 11, 1) },
        (DFS, 1) => lay(584, 52, 15),  // + pool and container uuids
        (DAOS, 1) => lay(696, 64, 15), // + uuids and object id
        (POSIX_META, 1) => lay(16 + 8 * 24 + 8 * 4, 24, 4),
        (IO_URING, 2) => lay(16 + 8 * 56 + 8 * 6, 56, 6),
        (IO_URING, 1) => lay(16 + 8 * 48 + 8 * 6, 48, 6),
        (PROCESSES, 1) => lay(16 + 8 * 43 + 8 * 8, 43, 8),
        _ => return None,
    })
}

/// Bytes of one record of a fixed-layout module at format version `ver`
/// (None for variable-length modules and unknown versions); for tools that
/// walk a region's records without decoding them.
pub fn fixed_record_size(module: usize, ver: u32) -> Option<usize> {
    if module == POSIX && (1..4).contains(&ver) {
        return Some([680, 648, 664][ver as usize - 1]);
    }
    fixed_layout(module, ver).map(|l| l.size)
}

/// The 8 bytes `b` as a word of a log written little-endian, or of one
/// written on a big-endian machine (`swapped`).
fn word(b: &[u8], swapped: bool) -> u64 {
    let v = u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    if swapped {
        v.swap_bytes()
    } else {
        v
    }
}

/// Cursor over little- or big-endian fields of one record's bytes.
struct Cur<'b> {
    b: &'b [u8],
    pos: usize,
    swapped: bool,
}

impl Cur<'_> {
    fn u64(&mut self) -> u64 {
        let v = word(&self.b[self.pos..self.pos + 8], self.swapped);
        self.pos += 8;
        v
    }
    fn i64(&mut self) -> i64 {
        self.u64() as i64
    }
    fn f64(&mut self) -> f64 {
        f64::from_bits(self.u64())
    }
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&self.b[self.pos..self.pos + N]);
        self.pos += N;
        a
    }
}

fn insert_at<T: Copy>(v: &mut Vec<T>, at: usize, vals: &[T]) {
    let tail = v.split_off(at.min(v.len()));
    v.extend_from_slice(vals);
    v.extend_from_slice(&tail);
}

/// Bring counters of an old module version to the newest layout (POSIX is
/// converted byte-wise in `next_old_posix`).
fn upconvert(module: usize, ver: u32, c: &mut Vec<i64>, f: &mut Vec<f64>) {
    match module {
        MPIIO if ver <= 2 => insert_at(f, 3, &[-1.0, -1.0]),
        STDIO if ver == 1 => insert_at(c, 1, &[-1]),
        // Version 1 did not record the process's rings.
        IO_URING if ver == 1 => c.extend_from_slice(&[-1; 8]),
        H5F => {
            if ver == 1 {
                let (open, close) = (f[0], f[1]);
                *f = vec![open, -1.0, -1.0, close];
            }
            if ver <= 2 {
                c.extend_from_slice(&[-1, -1]);
                f.push(-1.0);
            }
        }
        PNETCDF_FILE => {
            if ver == 1 {
                let (open, close) = (f[0], f[1]);
                *f = vec![open, -1.0, -1.0, close];
            }
            if ver <= 2 {
                let opens = c[0].wrapping_add(c[1]);
                *c = vec![-1, opens, -1, -1, -1, -1, -1, -1, -1];
                *f = vec![f[0], f[1], -1.0, f[2], f[3], -1.0, -1.0, -1.0];
            }
        }
        _ => {}
    }
}

/// A time word of a crash-safe file whose job says `ticks=`: clock ticks
/// (an integer of magnitude under 2^61, over seven years at 10 GHz), or
/// already seconds. The runtime turns a module's ticks into seconds at
/// its exit before it drops the `ticks=` line, so a process killed in
/// between leaves modules in seconds under a job still saying ticks:
/// read as ticks, their f64 bits (2^61 and more for any magnitude over
/// 1e-154) made times of 1.7e9 s. A word that cannot be a tick count is
/// the seconds it holds.
pub fn tick_word_secs(bits: u64, secs_per_tick: f64) -> f64 {
    let t = bits as i64;
    if t.unsigned_abs() < 1 << 61 {
        return t as f64 * secs_per_tick;
    }
    let f = f64::from_bits(bits);
    if f.is_finite() {
        f
    } else {
        0.0
    }
}

pub struct ModuleReader<'a> {
    region: RegionReader<'a>,
    module: usize,
    version: u32,
    swapped: bool,
    buf: Vec<u8>,
    /// (bin width, nbins) of the first heatmap record, for the #941 fix.
    heatmap_first: Option<(f64, i64)>,
    /// Reproduce darshan-util's byte-swap slip on POSIX < v4 fcounters
    /// 10-12 (so output matches the C parser byte for byte).
    c_swap_quirk: bool,
    /// Seconds per tick of a crash-safe log of ours whose time counters
    /// still hold clock ticks (job metadata `ticks=`).
    tick_secs: Option<f64>,
    /// DXT traces of a crash-safe file ([`crate::dxt_mapped`]): where its
    /// records lie, found at the first record, then read one by one.
    mapped: Option<MappedDxt>,
}

/// A crash-safe file's DXT region being read: the index of its records,
/// and for a compressed one (never the runtime's, but a log may say so)
/// the region read whole.
struct MappedDxt {
    traces: crate::dxt_mapped_read::Traces,
    whole: Option<Vec<u64>>,
}

/// A raw region's words, straight from the file.
struct RawWords<'r, 'a> {
    region: &'r mut RegionReader<'a>,
    swapped: bool,
}

impl crate::dxt_mapped_read::Words for RawWords<'_, '_> {
    fn next_words(&mut self, out: &mut [u64]) -> Result<usize> {
        let mut bytes = [0u8; 8 * 512];
        let mut n = 0;
        for part in out.chunks_mut(512) {
            let got = self.region.read_full(&mut bytes[..8 * part.len()])? / 8;
            for (w, b) in part.iter_mut().zip(bytes.chunks_exact(8)).take(got) {
                *w = word(b, self.swapped);
            }
            n += got;
            if got < part.len() {
                break;
            }
        }
        Ok(n)
    }
    fn words_at(&mut self, at: u64, out: &mut [u64]) -> Result<()> {
        let mut bytes = [0u8; 8 * 512];
        for (k, part) in out.chunks_mut(512).enumerate() {
            let off = at.saturating_add(512 * k as u64).saturating_mul(8);
            self.region.raw_at(off, &mut bytes[..8 * part.len()])?;
            for (w, b) in part.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = word(b, self.swapped);
            }
        }
        Ok(())
    }
}

/// Every word of a region, in order (a compressed mapped DXT region).
fn read_words(w: &mut dyn crate::dxt_mapped_read::Words) -> Result<Vec<u64>> {
    let (mut out, mut block) = (Vec::new(), [0u64; 512]);
    loop {
        let got = w.next_words(&mut block)?;
        out.extend_from_slice(&block[..got]);
        if got < block.len() {
            return Ok(out);
        }
    }
}

/// How many of a module's `n` fcounters (the first ones) our runtime
/// keeps in clock ticks until shutdown: all but the last
/// (VARIANCE_RANK_BYTES) for POSIX, STDIO and MPI-IO, all for POSIX_META.
fn tick_fcounters(module: usize, n: usize) -> usize {
    match module {
        POSIX | STDIO | MPIIO => n.saturating_sub(1),
        POSIX_META | IO_URING => n,
        _ => 0,
    }
}

impl<'a> ModuleReader<'a> {
    pub fn new(region: RegionReader<'a>, module: usize, version: u32, swapped: bool) -> Result<Self> {
        let mapped_dxt = is_dxt(module) && version == crate::dxt_mapped::VERSION;
        let known = (1..=read_version(module)).contains(&version) || mapped_dxt;
        if !known {
            return Err(LogError::BadModuleVersion { module: legacy_name(module).to_string(), version });
        }
        Ok(ModuleReader {
            region,
            module,
            version,
            swapped,
            buf: Vec::new(),
            heatmap_first: None,
            c_swap_quirk: false,
            tick_secs: None,
            mapped: None,
        })
    }

    /// Up to `buf.len()` bytes of the region as they lie, from where the
    /// last record read ended: darshan-util's `darshan_log_get_mod`, which
    /// its module readers read their records with, so that a caller may
    /// mix the two. Fewer bytes than asked: the region ended.
    pub fn read_raw(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.region.read_full(buf)
    }

    pub fn set_tick_secs(&mut self, s: Option<f64>) {
        self.tick_secs = s;
    }

    pub fn set_c_swap_quirk(&mut self, on: bool) {
        self.c_swap_quirk = on;
    }

    fn bad(&self, msg: String) -> LogError {
        LogError::BadRecord { module: module_name(self.module).to_string(), msg }
    }

    /// Read exactly n bytes into self.buf; Ok(false) if the region ended
    /// first (a short trailing fragment means "no more records").
    fn fill(&mut self, n: usize) -> Result<bool> {
        self.buf.resize(n, 0);
        Ok(self.region.read_full(&mut self.buf[..n])? == n)
    }

    /// Read `count` 8-byte values in bounded chunks, so a corrupt count
    /// runs into the end of the region instead of a giant allocation.
    fn read_u64s(&mut self, count: u64, what: &str) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(count.min(4096) as usize);
        let mut chunk = [0u8; 8 * 512];
        let mut left = count;
        while left > 0 {
            let n = left.min(512) as usize;
            let got = self.region.read_full(&mut chunk[..8 * n])?;
            if got < 8 * n {
                return Err(self.bad(format!("record ends inside its {what} ({count} expected)")));
            }
            for i in 0..n {
                let v = u64::from_le_bytes(chunk[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
                out.push(if self.swapped { v.swap_bytes() } else { v });
            }
            left -= n as u64;
        }
        Ok(out)
    }

    /// Decode the next record into `rec`; Ok(false) when the module's
    /// records are exhausted.
    pub fn next_into(&mut self, rec: &mut Record) -> Result<bool> {
        rec.module = self.module;
        match self.module {
            LUSTRE => self.next_lustre(rec),
            DXT_POSIX | DXT_MPIIO | DXT_IO_URING => self.next_dxt(rec),
            HEATMAP => self.next_heatmap(rec),
            MDHIM => self.next_mdhim(rec),
            POSIX if self.version < 4 => self.next_old_posix(rec),
            _ => {
                if !self.next_fixed(rec)? {
                    return Ok(false);
                }
                upconvert(self.module, self.version, &mut rec.counters, &mut rec.fcounters);
                if let Some(s) = self.tick_secs {
                    let n = tick_fcounters(self.module, rec.fcounters.len());
                    for f in &mut rec.fcounters[..n] {
                        *f = tick_word_secs(f.to_bits(), s);
                    }
                }
                Ok(true)
            }
        }
    }

    fn next_fixed(&mut self, rec: &mut Record) -> Result<bool> {
        let l = match fixed_layout(self.module, self.version) {
            Some(l) => l,
            None => return Err(self.bad(format!("no layout for version {}", self.version))),
        };
        if !self.fill(l.size)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        rec.extra = Extra::None;
        if l.file_rec_id {
            rec.extra = Extra::FileRecId(c.u64());
        } else if self.module == H5D {
            rec.extra = Extra::FileRecId(0);
        }
        c.pos += l.skip;
        rec.counters.clear();
        rec.fcounters.clear();
        for _ in 0..l.counters {
            rec.counters.push(c.i64());
        }
        for _ in 0..l.fcounters {
            rec.fcounters.push(c.f64());
        }
        if self.module == DFS {
            rec.extra = Extra::Dfs { pool_uuid: c.bytes::<16>(), cont_uuid: c.bytes::<16>() };
        } else if self.module == DAOS {
            let pool_uuid = c.bytes::<16>();
            let cont_uuid = c.bytes::<16>();
            rec.extra = Extra::Daos { pool_uuid, cont_uuid, oid_hi: c.u64(), oid_lo: c.u64() };
        }
        Ok(true)
    }

    /// Old POSIX records are up-converted with exactly the byte moves
    /// darshan-util makes, so the result (including what those moves lose:
    /// the two VARIANCE fcounters of v2/v3 records come out as 0) is what
    /// darshan-parser and PyDarshan show for the same log.
    fn next_old_posix(&mut self, rec: &mut Record) -> Result<bool> {
        let rec_len = match self.version {
            1 => 680,
            2 => 648,
            _ => 664,
        };
        let mut s = [0u8; 1024];
        loop {
            if !self.fill(rec_len)? {
                return Ok(false);
            }
            s[..rec_len].copy_from_slice(&self.buf[..rec_len]);
            // v1 records carrying stdio counters cannot be converted; the C
            // reader tests the raw (unswapped) FOPENS value.
            if self.version == 1 && i64::from_le_bytes(s[64..72].try_into().unwrap_or([0; 8])) > 0 {
                continue;
            }
            break;
        }
        upconvert_old_posix(self.version, &mut s, rec_len);
        let mut c = Cur { b: &s, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        rec.extra = Extra::None;
        rec.counters.clear();
        rec.fcounters.clear();
        for _ in 0..69 {
            rec.counters.push(c.i64());
        }
        for i in 0..17 {
            let raw = u64::from_le_bytes(s[568 + 8 * i..576 + 8 * i].try_into().unwrap_or([0; 8]));
            // -1.0 inserted by the conversion is already in host order; the
            // C reader also (by a slip) leaves fcounters 10-12 unswapped.
            let keep = (self.version < 3 && (i == 3 || i == 4)) || (self.c_swap_quirk && (10..13).contains(&i));
            let v = if self.swapped && !keep { raw.swap_bytes() } else { raw };
            rec.fcounters.push(f64::from_bits(v));
        }
        Ok(true)
    }

    fn next_lustre(&mut self, rec: &mut Record) -> Result<bool> {
        rec.counters.clear();
        rec.fcounters.clear();
        if self.version == 1 {
            return self.next_lustre_v1(rec);
        }
        if !self.fill(32)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        let ncomps = c.i64();
        let nstripes = c.i64();
        if ncomps < 0 || nstripes < 0 {
            return Err(self.bad(format!("negative component ({ncomps}) or stripe ({nstripes}) count")));
        }
        let mut components = self.lustre_components(ncomps)?;
        let mut ost_ids: Vec<i64> =
            self.read_u64s(nstripes as u64, "OST list")?.into_iter().map(|v| v as i64).collect();
        // darshan-util drops components from the first unused one (stripe
        // size -1) and keeps as many OST ids as the kept components use.
        if let Some(p) = components.iter().position(|c| c.counters[0] == -1) {
            components.truncate(p);
        }
        // Each kept component lists STRIPE_COUNT OST ids: components that
        // claim more than the record holds lie (darshan-parser would print
        // an id for every claimed stripe, reading past the list).
        let used = components.iter().fold(0u64, |a, c| a.saturating_add(c.counters[1].max(0) as u64));
        if used > ost_ids.len() as u64 {
            return Err(self.bad(format!(
                "record {} (rank {}): its components claim {used} stripes, but it lists {} OST ids",
                rec.id,
                rec.rank,
                ost_ids.len()
            )));
        }
        if components.len() < ncomps as usize {
            ost_ids.truncate(used as usize);
        }
        rec.extra = Extra::Lustre { components, ost_ids };
        Ok(true)
    }

    /// `ncomps` components of a LUSTRE record (version 2 on), each read
    /// only when its bytes are there: the count never sizes memory beyond
    /// 1,024 components ahead of them.
    fn lustre_components(&mut self, ncomps: i64) -> Result<Vec<LustreComponent>> {
        let mut components = Vec::with_capacity(ncomps.min(1024) as usize);
        for _ in 0..ncomps {
            if !self.fill(72)? {
                return Err(self.bad("record ends inside its components".into()));
            }
            let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
            let mut counters = [0i64; 7];
            for v in counters.iter_mut() {
                *v = c.i64();
            }
            components.push(LustreComponent { counters, pool_name: c.bytes::<16>() });
        }
        Ok(components)
    }

    /// A version 1 LUSTRE record: one layout, shown as one component.
    fn next_lustre_v1(&mut self, rec: &mut Record) -> Result<bool> {
        if !self.fill(56)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        let _osts = c.i64();
        let _mdts = c.i64();
        let _offset = c.i64();
        let stripe_size = c.i64();
        let width = c.i64();
        if width < 0 {
            return Err(self.bad(format!("negative stripe width {width}")));
        }
        let ost_ids = self.read_u64s(width as u64, "OST list")?.into_iter().map(|v| v as i64).collect();
        let comp = LustreComponent { counters: [stripe_size, width, -1, -1, 0, -1, -1], pool_name: [0; 16] };
        rec.extra = Extra::Lustre { components: vec![comp], ost_ids };
        Ok(true)
    }

    /// The next record of a crash-safe file's DXT region.
    fn next_mapped_dxt(&mut self, rec: &mut Record) -> Result<bool> {
        use crate::dxt_mapped_read::{InMemory, Traces};
        let swapped = self.swapped;
        if self.mapped.is_none() {
            let mut raw = RawWords { region: &mut self.region, swapped };
            self.mapped = Some(if raw.region.is_raw() {
                MappedDxt { traces: Traces::index(&mut raw)?, whole: None }
            } else {
                let whole = read_words(&mut raw)?;
                MappedDxt { traces: Traces::index(&mut InMemory { words: &whole, pos: 0 })?, whole: Some(whole) }
            });
        }
        let s = self.tick_secs;
        let time = |t: u64| s.map_or(t as f64, |s| tick_word_secs(t, s));
        let Some(m) = self.mapped.as_mut() else { return Ok(false) };
        let next = match &m.whole {
            Some(w) => m.traces.next(self.module, &mut InMemory { words: w, pos: 0 }, &time)?,
            None => m.traces.next(self.module, &mut RawWords { region: &mut self.region, swapped }, &time)?,
        };
        match next {
            Some(r) => {
                *rec = r;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn next_dxt(&mut self, rec: &mut Record) -> Result<bool> {
        if self.version == crate::dxt_mapped::VERSION {
            return self.next_mapped_dxt(rec);
        }
        rec.counters.clear();
        rec.fcounters.clear();
        if !self.fill(104)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        let shared_record = c.i64();
        let hostname = c.bytes::<64>();
        let nw = c.i64();
        let nr = c.i64();
        if nw < 0 || nr < 0 {
            return Err(self.bad(format!("negative segment counts ({nw} writes, {nr} reads)")));
        }
        let with_tid = dxt_thread_ids_at(self.module, self.version);
        let no_offsets = self.module == DXT_MPIIO && self.version == 1;
        let per = if with_tid { 5 } else { 4 };
        let mut segs = |n: i64, what: &str| -> Result<Vec<DxtSegment>> {
            let mut v = Vec::with_capacity(n.min(4096) as usize);
            let mut left = n as u64;
            while left > 0 {
                let k = left.min(256);
                let vals = self.read_u64s(k * per, what)?;
                for s in vals.chunks(per as usize) {
                    v.push(DxtSegment {
                        offset: if no_offsets { -1 } else { s[0] as i64 },
                        length: s[1] as i64,
                        start_time: f64::from_bits(s[2]),
                        end_time: f64::from_bits(s[3]),
                        pthread_id: if with_tid { Some(s[4]) } else { None },
                    });
                }
                left -= k;
            }
            Ok(v)
        };
        let writes = segs(nw, "write segments")?;
        let reads = segs(nr, "read segments")?;
        rec.extra = Extra::Dxt { shared_record, hostname, writes, reads };
        Ok(true)
    }

    fn next_heatmap(&mut self, rec: &mut Record) -> Result<bool> {
        rec.counters.clear();
        rec.fcounters.clear();
        if !self.fill(48)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        let bin_width = c.f64();
        let nbins = c.i64();
        if nbins < 0 {
            return Err(self.bad(format!("negative bin count {nbins}")));
        }
        let mut write_bins: Vec<i64> =
            self.read_u64s(nbins as u64, "write bins")?.into_iter().map(|v| v as i64).collect();
        let mut read_bins: Vec<i64> =
            self.read_u64s(nbins as u64, "read bins")?.into_iter().map(|v| v as i64).collect();
        // Workaround for logs of 3.4.0-3.4.3 without shared reduction
        // (darshan issue #941): records of the same width may differ by one
        // bin; normalise to the first record's bin count.
        match self.heatmap_first {
            None => self.heatmap_first = Some((bin_width, nbins)),
            Some((w, n)) if w == bin_width && (nbins - n).abs() == 1 => {
                let n = n as usize;
                write_bins.resize(n, 0);
                read_bins.resize(n, 0);
            }
            _ => {}
        }
        rec.extra = Extra::Heatmap { bin_width, write_bins, read_bins };
        Ok(true)
    }

    fn next_mdhim(&mut self, rec: &mut Record) -> Result<bool> {
        if !self.fill(88)? {
            return Ok(false);
        }
        let mut c = Cur { b: &self.buf, pos: 0, swapped: self.swapped };
        rec.id = c.u64();
        rec.rank = c.i64();
        rec.counters.clear();
        rec.fcounters.clear();
        for _ in 0..5 {
            rec.counters.push(c.i64());
        }
        for _ in 0..4 {
            rec.fcounters.push(c.f64());
        }
        let nservers = rec.counters[4].max(1) as u64;
        let hist = self.read_u64s(nservers, "server histogram")?;
        rec.extra = Extra::Mdhim { server_histogram: hist.into_iter().map(|v| v as i64).collect() };
        Ok(true)
    }
}

/// Module names as darshan-util's per-module error messages spell them.
pub fn legacy_name(module: usize) -> &'static str {
    match module {
        MPIIO => "MPIIO",
        H5F => "HDF5",
        BGQ => "BGQ",
        _ => module_name(module),
    }
}

/// darshan-util's byte moves that turn an old POSIX record (`version` 1
/// to 3, `rec_len` bytes at the start of `s`) into the current layout,
/// with the -1 (and -1.0) values it puts in the counters the old one
/// lacks.
fn upconvert_old_posix(version: u32, s: &mut [u8; 1024], rec_len: usize) {
    let base = 16;
    let minus1 = (-1i64).to_le_bytes();
    if version == 1 {
        let dest = base + 6 * 8;
        let src = dest + 4 * 8;
        s.copy_within(src..rec_len, dest);
    }
    if version <= 2 {
        let dest = base + 64 * 8 + 5 * 8;
        let src = dest - 16;
        s.copy_within(src..src + 12 * 8, dest);
        s[src..src + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
        s[src + 8..src + 16].copy_from_slice(&(-1.0f64).to_le_bytes());
    }
    let dest = base + 3 * 8;
    let src = dest - 16;
    s.copy_within(src..rec_len, dest);
    s[src..src + 8].copy_from_slice(&minus1);
    s[src + 8..src + 16].copy_from_slice(&minus1);
    let dest = base + 13 * 8;
    let src = dest - 24;
    s.copy_within(src..rec_len, dest);
    s[src..src + 8].copy_from_slice(&minus1);
    s[src + 8..src + 16].copy_from_slice(&minus1);
    s[src + 16..src + 24].copy_from_slice(&0u64.to_le_bytes());
}

#[cfg(test)]
mod tick_word_tests {
    use super::tick_word_secs;

    /// A module the runtime had turned into seconds when the process was
    /// killed, under a job still saying `ticks=`: its f64 bits were read
    /// as ticks (0.0002 s became 1.75e9 s). Ticks and seconds are told
    /// apart word by word.
    #[test]
    fn a_time_already_in_seconds_is_not_taken_for_ticks() {
        let tick = 3.85e-10;
        assert_eq!(tick_word_secs(0.0002f64.to_bits(), tick), 0.0002);
        assert_eq!(tick_word_secs(123.5f64.to_bits(), tick), 123.5);
        assert_eq!(tick_word_secs(0, tick), 0.0);
        assert!((tick_word_secs(2_600_000_000, tick) - 1.001).abs() < 1e-9);
        // A week of ticks at 5 GHz, and a small negative tick count.
        assert!((tick_word_secs(3_024_000_000_000_000, 2e-10) - 604_800.0).abs() < 1e-3);
        assert!((tick_word_secs((-26i64) as u64, tick) + 26.0 * tick).abs() < 1e-18);
        assert_eq!(tick_word_secs(f64::NAN.to_bits(), tick), 0.0);
    }
}

#[cfg(test)]
mod io_uring_versions {
    use super::*;
    use crate::counters::io_uring as c;

    /// A version 1 record (48 counters, written before the process's
    /// rings were recorded) reads as the newest layout with them −1 (not
    /// recorded), every counter it had in its place.
    #[test]
    fn a_version_1_io_uring_record_reads_with_its_ring_facts_not_recorded() {
        let old = fixed_layout(IO_URING, 1).unwrap();
        let new = fixed_layout(IO_URING, read_version(IO_URING)).unwrap();
        assert_eq!((old.counters, new.counters, new.fcounters), (48, c::NUM_INDICES, c::F_NUM_INDICES));
        assert_eq!(new.size, 16 + 8 * (c::NUM_INDICES + c::F_NUM_INDICES));
        let mut counters: Vec<i64> = (0..48).collect();
        let mut f = vec![0.5; 6];
        upconvert(IO_URING, 1, &mut counters, &mut f);
        assert_eq!(counters.len(), c::NUM_INDICES);
        assert_eq!(counters[c::UNOBSERVED_OPS], 47);
        assert!(counters[c::RINGS..].iter().all(|&v| v == -1));
        assert_eq!(f, vec![0.5; 6]);
    }
}
