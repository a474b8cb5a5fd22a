//! AutoPerf's APXC records ([`crate::counters::apxc`]), read as
//! darshan-util built with `--enable-apxc-mod` reads them: a region of
//! raw structs, the first the header, every other a router's record
//! ([`crate::autoperf::AutoperfReader`], as APMPI's). No tool that reads
//! [`crate::Record`]s is told of them.

use crate::autoperf::{native_record, words, AutoperfReader, AutoperfRecord};
use crate::counters::apxc as c;
use crate::modules::APXC;

/// `struct darshan_apxc_header_record`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    pub id: u64,
    pub rank: i64,
    pub magic: i64,
    pub nblades: i64,
    pub nchassis: i64,
    pub ngroups: i64,
    /// The mode's index, bit 31 set when the nodes did not agree
    /// ([`c::mode_index`], [`c::mode_consistent`]).
    pub memory_mode: i64,
    pub cluster_mode: i64,
    pub appid: u64,
}

/// `struct darshan_apxc_perf_record`: one router's.
#[derive(Clone, Debug, PartialEq)]
pub struct Perf {
    pub id: u64,
    pub rank: i64,
    pub group: i64,
    pub chassis: i64,
    pub blade: i64,
    pub node: i64,
    pub counters: Vec<u64>,
}

/// One record of the region.
#[derive(Clone, Debug, PartialEq)]
pub enum Apxc {
    Header(Header),
    Perf(Perf),
}

/// The record in `b`: the header when `header` (the region's first).
pub fn record_from(header: bool, b: &[u8], swapped: bool) -> Apxc {
    match header {
        true => Apxc::Header(header_from(b, swapped)),
        false => Apxc::Perf(perf_from(b, swapped)),
    }
}

/// The header in `b` (HEADER_SIZE bytes, as the log holds it).
pub fn header_from(b: &[u8], swapped: bool) -> Header {
    let w: Vec<u64> = words(&b[..c::HEADER_SIZE], swapped).collect();
    Header {
        id: w[0],
        rank: w[1] as i64,
        magic: w[2] as i64,
        nblades: w[3] as i64,
        nchassis: w[4] as i64,
        ngroups: w[5] as i64,
        memory_mode: w[6] as i64,
        cluster_mode: w[7] as i64,
        appid: w[8],
    }
}

/// A router's record in `b` (PERF_SIZE bytes, as the log holds it).
pub fn perf_from(b: &[u8], swapped: bool) -> Perf {
    let w: Vec<u64> = words(&b[..c::PERF_SIZE], swapped).collect();
    Perf {
        id: w[0],
        rank: w[1] as i64,
        group: w[2] as i64,
        chassis: w[3] as i64,
        blade: w[4] as i64,
        node: w[5] as i64,
        counters: w[6..].to_vec(),
    }
}

/// The header as the C struct lays it out, little-endian.
pub fn header_bytes(h: &Header) -> Vec<u8> {
    let fields = [h.id, h.rank as u64, h.magic as u64, h.nblades as u64, h.nchassis as u64, h.ngroups as u64];
    let modes = [h.memory_mode as u64, h.cluster_mode as u64, h.appid];
    fields.iter().chain(&modes).flat_map(|v| v.to_le_bytes()).collect()
}

/// A router's record as the C struct lays it out, little-endian.
pub fn perf_bytes(p: &Perf) -> Vec<u8> {
    let place = [p.id, p.rank as u64, p.group as u64, p.chassis as u64, p.blade as u64, p.node as u64];
    place.iter().chain(&p.counters).flat_map(|v| v.to_le_bytes()).collect()
}

impl AutoperfRecord for Apxc {
    const MODULE: usize = APXC;
    fn from_bytes(header: bool, b: &[u8], swapped: bool) -> Self {
        record_from(header, b, swapped)
    }
    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Apxc::Header(h) => header_bytes(h),
            Apxc::Perf(p) => perf_bytes(p),
        }
    }
}

/// The APXC region's records, one at a time: the header first.
pub type ApxcReader<'a> = AutoperfReader<'a, Apxc>;

/// A record of AutoPerf's module `m` (APXC, else APMPI) in `b` (the
/// header when `header`) as the C struct lays it out, little-endian: what
/// darshan-util hands out and writes, for either module.
pub fn native_autoperf_record(m: usize, header: bool, b: &[u8], swapped: bool) -> Vec<u8> {
    match m {
        APXC => native_record::<Apxc>(header, b, swapped),
        _ => native_record::<crate::autoperf::Apmpi>(header, b, swapped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_laid_out() {
        let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
        (p.id, p.rank, p.group, p.chassis, p.blade, p.node) = (7, 3, 1, 2, 5, 9);
        p.counters[c::NUM_INDICES - 1] = 11;
        let b = perf_bytes(&p);
        assert_eq!(b.len(), c::PERF_SIZE);
        assert_eq!(perf_from(&b, false), p);
        let h = Header { id: 1, magic: c::MAGIC, nblades: 4, memory_mode: 1 << 31 | 2, appid: 77, ..Header::default() };
        let hb = header_bytes(&h);
        assert_eq!(hb.len(), c::HEADER_SIZE);
        assert_eq!(header_from(&hb, false), h);
        let swapped: Vec<u8> = hb.chunks(8).flat_map(|w| w.iter().rev().copied().collect::<Vec<_>>()).collect();
        assert_eq!(header_from(&swapped, true), h);
    }

    #[test]
    fn the_corpus_log_holds_a_header_and_one_router() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/logs/apmpi_apxc__mpi-io-test.darshan");
        let log = crate::LogFile::open(path).unwrap();
        let mut rd = ApxcReader::new(&log).unwrap();
        let Some(Apxc::Header(h)) = rd.next_record().unwrap() else { panic!("no header first") };
        assert_eq!(h.magic, c::MAGIC);
        assert!(matches!(rd.next_record().unwrap(), Some(Apxc::Perf(_))));
        assert_eq!(rd.next_record().unwrap(), None);
    }
}
