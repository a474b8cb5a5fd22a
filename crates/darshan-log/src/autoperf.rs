//! AutoPerf's APMPI records ([`crate::counters::apmpi`]), read as
//! darshan-util built with `--enable-apmpi-mod` reads them: a region of
//! raw structs, the first the header, every other a rank's record. Its
//! own reader, apart from [`crate::decode::ModuleReader`]: the records
//! are not counters and fcounters of one layout, and no tool that reads
//! [`crate::Record`]s (merges, reports, the facility database) is told
//! of them.
//!
//! darshan-util tells the header from a rank's record by a flag static to
//! the process, so that the second log a process reads has its header
//! taken for a rank's record; this reader's flag is the region's.

use crate::counters::apmpi as c;
use crate::error::Result;
use crate::log::LogFile;
use crate::modules::{APMPI, APXC};
use crate::region::RegionReader;
use crate::source::LogSource;

/// `struct darshan_apmpi_header_record`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    pub id: u64,
    pub rank: i64,
    pub magic: i64,
    pub sync_flag: u32,
    pub variance_total_mpitime: f64,
    pub variance_total_mpisynctime: f64,
}

/// `struct darshan_apmpi_perf_record`: one rank's.
#[derive(Clone, Debug, PartialEq)]
pub struct Perf {
    pub id: u64,
    pub rank: i64,
    pub counters: Vec<u64>,
    pub time: Vec<f64>,
    pub sync: Vec<f64>,
    pub global: [f64; c::F_GLOBAL_NUM_INDICES],
    /// The processor's name as the record holds it (128 bytes, a C string
    /// when the writer ended it).
    pub node_name: [u8; c::NAME_MAX],
}

impl Perf {
    /// The processor's name up to its first NUL (all 128 bytes without
    /// one).
    pub fn node_name(&self) -> &[u8] {
        let end = self.node_name.iter().position(|&b| b == 0).unwrap_or(c::NAME_MAX);
        &self.node_name[..end]
    }
}

/// One record of the region.
#[derive(Clone, Debug, PartialEq)]
pub enum Apmpi {
    Header(Header),
    Perf(Box<Perf>),
}

/// The 8-byte words of `b`, in the log's byte order made native.
pub(crate) fn words(b: &[u8], swapped: bool) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8).map(move |w| {
        let v = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        if swapped {
            v.swap_bytes()
        } else {
            v
        }
    })
}

/// The header in `b` (HEADER_SIZE bytes, as the log holds it).
pub fn header_from(b: &[u8; c::HEADER_SIZE], swapped: bool) -> Header {
    let w: Vec<u64> = words(b, swapped).collect();
    let flag = u32::from_le_bytes([b[24], b[25], b[26], b[27]]);
    Header {
        id: w[0],
        rank: w[1] as i64,
        magic: w[2] as i64,
        sync_flag: if swapped { flag.swap_bytes() } else { flag },
        variance_total_mpitime: f64::from_bits(w[4]),
        variance_total_mpisynctime: f64::from_bits(w[5]),
    }
}

/// A rank's record in `b` (PERF_SIZE bytes, as the log holds it).
pub fn perf_from(b: &[u8], swapped: bool) -> Perf {
    let names_at = c::PERF_SIZE - c::NAME_MAX;
    let w: Vec<u64> = words(&b[..names_at], swapped).collect();
    let (counters, rest) = w[2..].split_at(c::NUM_INDICES);
    let (time, rest) = rest.split_at(c::F_TIME_NUM_INDICES);
    let (sync, global) = rest.split_at(c::F_SYNC_NUM_INDICES);
    let mut node_name = [0u8; c::NAME_MAX];
    node_name.copy_from_slice(&b[names_at..c::PERF_SIZE]);
    Perf {
        id: w[0],
        rank: w[1] as i64,
        counters: counters.to_vec(),
        time: time.iter().map(|&v| f64::from_bits(v)).collect(),
        sync: sync.iter().map(|&v| f64::from_bits(v)).collect(),
        global: [f64::from_bits(global[0]), f64::from_bits(global[1])],
        node_name,
    }
}

/// The header as the C struct lays it out, native (little-endian) order.
pub fn header_bytes(h: &Header) -> Vec<u8> {
    let mut b = Vec::with_capacity(c::HEADER_SIZE);
    b.extend(h.id.to_le_bytes());
    b.extend(h.rank.to_le_bytes());
    b.extend(h.magic.to_le_bytes());
    b.extend(h.sync_flag.to_le_bytes());
    b.extend([0; 4]);
    b.extend(h.variance_total_mpitime.to_le_bytes());
    b.extend(h.variance_total_mpisynctime.to_le_bytes());
    b
}

/// A rank's record as the C struct lays it out, little-endian.
pub fn perf_bytes(p: &Perf) -> Vec<u8> {
    let mut b = Vec::with_capacity(c::PERF_SIZE);
    b.extend(p.id.to_le_bytes());
    b.extend(p.rank.to_le_bytes());
    p.counters.iter().for_each(|v| b.extend(v.to_le_bytes()));
    p.time.iter().chain(&p.sync).chain(&p.global).for_each(|v| b.extend(v.to_le_bytes()));
    b.extend(p.node_name);
    b
}

/// AutoPerf's module `m`'s layout (APXC's, else APMPI's): its version,
/// its header's and a record's sizes.
pub fn layout(m: usize) -> (u32, usize, usize) {
    use crate::counters::apxc as x;
    match m {
        APXC => (x::VERSION, x::HEADER_SIZE, x::PERF_SIZE),
        _ => (c::VERSION, c::HEADER_SIZE, c::PERF_SIZE),
    }
}

/// An AutoPerf region's records as they lie, one at a time: the header
/// (`header` bytes) first, then records of `perf` bytes; a short
/// remainder is no record, as darshan-util's.
pub struct HeaderFirst<'a> {
    region: RegionReader<'a>,
    sizes: (usize, usize),
    header_read: bool,
    buf: Vec<u8>,
}

impl<'a> HeaderFirst<'a> {
    /// Module `m`'s region of `log`, which must be of a version up to
    /// `version` (darshan-util's error otherwise).
    pub(crate) fn new<S: LogSource>(
        log: &'a LogFile<S>,
        m: usize,
        version: u32,
        sizes: (usize, usize),
    ) -> Result<Self> {
        let ver = log.header.mod_ver[m];
        if ver == 0 || ver > version {
            return Err(crate::LogError::BadModuleVersion {
                module: crate::modules::module_name(m).into(),
                version: ver,
            });
        }
        Ok(HeaderFirst { region: log.region_reader(m), sizes, header_read: false, buf: Vec::new() })
    }

    /// AutoPerf's module `m` (APMPI or APXC) of `log`, at its layout.
    pub fn of<S: LogSource>(log: &'a LogFile<S>, m: usize) -> Result<Self> {
        let m = if m == APXC { APXC } else { APMPI };
        let (version, header, perf) = layout(m);
        Self::new(log, m, version, (header, perf))
    }

    /// Whether the next record is the header.
    pub fn at_header(&self) -> bool {
        !self.header_read
    }

    /// The next record's bytes; None at the region's end.
    pub fn next_raw(&mut self) -> Result<Option<&[u8]>> {
        let n = if self.header_read { self.sizes.1 } else { self.sizes.0 };
        self.buf.resize(n, 0);
        if self.region.read_full(&mut self.buf)? < n {
            return Ok(None);
        }
        self.header_read = true;
        Ok(Some(&self.buf))
    }

    /// Up to `buf.len()` bytes of the region as they lie, from where the
    /// last record read ended (darshan-util's `darshan_log_get_mod`).
    pub fn read_raw(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.region.read_full(buf)
    }
}

/// A record in `b` (the header when `header`) as the C struct lays it
/// out in native (little-endian) order: what darshan-util hands out and
/// writes.
pub fn native_record<R: AutoperfRecord>(header: bool, b: &[u8], swapped: bool) -> Vec<u8> {
    R::from_bytes(header, b, swapped).to_bytes()
}

/// The record in `b`: the header when `header` (the region's first).
pub fn record_from(header: bool, b: &[u8], swapped: bool) -> Apmpi {
    match <&[u8; c::HEADER_SIZE]>::try_from(b) {
        Ok(h) if header => Apmpi::Header(header_from(h, swapped)),
        _ => Apmpi::Perf(Box::new(perf_from(b, swapped))),
    }
}

/// A record of one of AutoPerf's modules: its module, and how it is read
/// from the bytes of the region.
pub trait AutoperfRecord: Sized {
    const MODULE: usize;
    /// The record in `b` (the header when `header`), in the log's byte
    /// order (`swapped`) made native.
    fn from_bytes(header: bool, b: &[u8], swapped: bool) -> Self;
    /// The record as the C struct lays it out, little-endian.
    fn to_bytes(&self) -> Vec<u8>;
}

impl AutoperfRecord for Apmpi {
    const MODULE: usize = APMPI;
    fn from_bytes(header: bool, b: &[u8], swapped: bool) -> Self {
        record_from(header, b, swapped)
    }
    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Apmpi::Header(h) => header_bytes(h),
            Apmpi::Perf(p) => perf_bytes(p),
        }
    }
}

/// An AutoPerf region's records, one at a time: the header first
/// ([`ApmpiReader`], and APXC's reader beside its records).
pub struct AutoperfReader<'a, R> {
    records: HeaderFirst<'a>,
    swapped: bool,
    kind: std::marker::PhantomData<R>,
}

/// The APMPI region's records, one at a time: the header first.
pub type ApmpiReader<'a> = AutoperfReader<'a, Apmpi>;

impl<'a, R: AutoperfRecord> AutoperfReader<'a, R> {
    /// The region of `log`, which must be of a version this layout is
    /// (darshan-util's error otherwise).
    pub fn new<S: LogSource>(log: &'a LogFile<S>) -> Result<Self> {
        let records = HeaderFirst::of(log, R::MODULE)?;
        Ok(AutoperfReader { records, swapped: log.header.swapped, kind: std::marker::PhantomData })
    }

    /// The next record's bytes as the log holds them; None at the region's
    /// end (a short remainder is no record, as darshan-util's).
    pub fn next_raw(&mut self) -> Result<Option<&[u8]>> {
        self.records.next_raw()
    }

    /// The next record; None at the region's end.
    pub fn next_record(&mut self) -> Result<Option<R>> {
        let swapped = self.swapped;
        let header = self.records.at_header();
        Ok(self.records.next_raw()?.map(|b| R::from_bytes(header, b, swapped)))
    }

    /// Up to `buf.len()` bytes of the region as they lie, from where the
    /// last record read ended (darshan-util's `darshan_log_get_mod`).
    pub fn read_raw(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.records.read_raw(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_laid_out() {
        let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
        p.id = 7;
        p.rank = 3;
        p.counters[395] = 9;
        p.time[0] = 1.5;
        p.sync[15] = 2.5;
        p.global = [3.5, 4.5];
        p.node_name[..4].copy_from_slice(b"nid1");
        let b = perf_bytes(&p);
        assert_eq!(b.len(), c::PERF_SIZE);
        assert_eq!(perf_from(&b, false), p);
        assert_eq!(p.node_name(), b"nid1");
        let h = Header {
            id: 1,
            rank: 0,
            magic: c::MAGIC,
            sync_flag: 1,
            variance_total_mpitime: 0.25,
            variance_total_mpisynctime: 0.5,
        };
        let hb: [u8; c::HEADER_SIZE] = header_bytes(&h).try_into().unwrap();
        assert_eq!(header_from(&hb, false), h);
        let swapped: Vec<u8> = hb.chunks(8).flat_map(|w| w.iter().rev().copied().collect::<Vec<_>>()).collect();
        // The flag is 4 bytes at 24: swapped within its word, it moves to 28.
        let mut s: [u8; c::HEADER_SIZE] = swapped.try_into().unwrap();
        s.copy_within(28..32, 24);
        assert_eq!(header_from(&s, true), h);
    }
}
