//! A log taken apart into its regions' decompressed bytes, to be damaged
//! inside and packed again: a count that lies is only interesting when the
//! compressed stream around it is valid, so that the reader believes it.
//!
//! Logs of every version in this machine's byte order are unpacked (the
//! header is patched in place: the region map moves, everything else
//! stays); big-endian logs are mutated as raw bytes only.

use std::io::{Read, Write};

use darshan_log::extension;
use darshan_log::header::{LogVersion, RegionMap, HEADER_SIZE, OLD_HEADER_SIZE};
use darshan_log::modules::MAX_MODS;
use darshan_log::region::RegionReader;
use darshan_log::{Compression, Header};

/// Which region of a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Job,
    Names,
    Module(usize),
}

#[derive(Clone)]
pub struct Unpacked {
    pub version: LogVersion,
    /// The original header bytes; `pack` rewrites only the region map.
    pub header: Vec<u8>,
    pub compression: Compression,
    pub mod_ver: [u32; MAX_MODS],
    /// The partial bits, the extension modules' included.
    pub partial_flag: u64,
    pub job: Vec<u8>,
    pub names: Vec<u8>,
    /// (module id, decompressed bytes), in the order of the file.
    pub modules: Vec<(usize, Vec<u8>)>,
}

/// Decompressed regions larger than this are left alone (the harness
/// makes its mutants from logs of a few megabytes at most).
const REGION_LIMIT: usize = 256 << 20;

fn region_bytes(file: &[u8], map: RegionMap, comp: Compression, name: &str) -> Option<Vec<u8>> {
    let mut r = RegionReader::new(&file, map, comp, name);
    let v = r.read_to_end(REGION_LIMIT).ok()?;
    (v.len() < REGION_LIMIT).then_some(v)
}

impl Unpacked {
    /// None when the log's header cannot be read or is big-endian.
    pub fn of(file: &[u8]) -> Option<Unpacked> {
        let mut h = Header::parse(&file[..HEADER_SIZE.min(file.len())], file.len() as u64).ok()?;
        if h.swapped {
            return None;
        }
        // Modules Darshan does not know (POSIX_META) are named by the
        // extension trailer (or a crash-safe file's map): taken apart like
        // the others, and written back with a trailer of their own by `pack`.
        darshan_log::crash_safe::apply_all_maps(&mut h, file).ok()?;
        let header_size = if h.version == LogVersion::V341 { HEADER_SIZE } else { OLD_HEADER_SIZE };
        let job = region_bytes(file, h.job_map, h.compression, "job")?;
        let names = region_bytes(file, h.name_map, h.compression, "name")?;
        let mut present: Vec<usize> = (0..MAX_MODS).filter(|&m| h.mod_map[m].len > 0).collect();
        present.sort_by_key(|&m| h.mod_map[m].off);
        let mut modules = Vec::new();
        for m in present {
            modules.push((m, region_bytes(file, h.mod_map[m], h.compression, "module")?));
        }
        Some(Unpacked {
            version: h.version,
            header: file[..header_size].to_vec(),
            compression: h.compression,
            mod_ver: h.mod_ver,
            partial_flag: h.partial_flag,
            job,
            names,
            modules,
        })
    }

    pub fn region_mut(&mut self, r: Region) -> Option<&mut Vec<u8>> {
        match r {
            Region::Job => Some(&mut self.job),
            Region::Names => Some(&mut self.names),
            Region::Module(m) => self.modules.iter_mut().find(|(id, _)| *id == m).map(|(_, b)| b),
        }
    }

    /// Every region with its bytes.
    pub fn regions(&self) -> Vec<(Region, &[u8])> {
        let mut v = vec![(Region::Job, self.job.as_slice()), (Region::Names, self.names.as_slice())];
        v.extend(self.modules.iter().map(|(m, b)| (Region::Module(*m), b.as_slice())));
        v
    }

    /// The log again, each region compressed as the original was (one
    /// stream per region) and the header's region map pointing at them.
    pub fn pack(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        let put = |out: &mut Vec<u8>, bytes: &[u8]| -> RegionMap {
            let off = out.len() as u64;
            let z = compress(bytes, self.compression);
            out.extend_from_slice(&z);
            RegionMap { off, len: z.len() as u64 }
        };
        put(&mut out, &self.job);
        let names = put(&mut out, &self.names);
        let mut maps = [RegionMap::default(); MAX_MODS];
        for (m, b) in &self.modules {
            maps[*m] = put(&mut out, b);
        }
        let mut set = |at: usize, v: u64| out[at..at + 8].copy_from_slice(&v.to_le_bytes());
        // The region map: 3.41's 64 slots after the name entry, or the old
        // header's 16, numbered as that version numbered its modules.
        let (name_at, slots_at) = if self.version == LogVersion::V341 { (32, 48) } else { (24, 40) };
        set(name_at, names.off);
        set(name_at + 8, names.len);
        for (id, map) in maps.iter().enumerate() {
            if extension::is_extension(id) {
                continue;
            }
            if let Some(slot) = raw_slot(self.version, id) {
                set(slots_at + 16 * slot, map.off);
                set(slots_at + 16 * slot + 8, map.len);
            }
        }
        // The extension modules' regions (written last, as the writer
        // does) named by a trailer at the end.
        let mut h = Header::parse(&out[..HEADER_SIZE.min(out.len())], u64::MAX).ok();
        if let Some(h) = h.as_mut().filter(|_| self.version == LogVersion::V341) {
            for id in (0..MAX_MODS).filter(|&i| extension::is_extension(i)) {
                h.mod_map[id] = maps[id];
                h.mod_ver[id] = self.mod_ver[id];
                h.partial_flag = (h.partial_flag & !(1u64 << id)) | (self.partial_flag & (1u64 << id));
            }
            out.extend_from_slice(&extension::encode_trailer(h));
        }
        out
    }

    /// Whether the log has modules named by the extension trailer.
    pub fn has_trailer(&self) -> bool {
        self.modules.iter().any(|(m, _)| extension::is_extension(*m))
    }
}

/// Where module `id` (3.41 numbering) sits in a header of `version`:
/// 3.20 and 3.21 had no PNETCDF_VAR (id 6), earlier versions no H5D
/// (id 4) either, and old headers have 16 slots.
pub fn raw_slot(version: LogVersion, id: usize) -> Option<usize> {
    let slot = match version {
        LogVersion::V341 => return (id < MAX_MODS).then_some(id),
        LogVersion::V320 | LogVersion::V321 => match id {
            6 => return None,
            i if i > 6 => i - 1,
            i => i,
        },
        _ => match id {
            4 | 6 => return None,
            5 => 4,
            i if i > 6 => i - 2,
            i => i,
        },
    };
    (slot < 16).then_some(slot)
}

/// `bytes` as one stream of the log's compression.
pub fn compress(bytes: &[u8], comp: Compression) -> Vec<u8> {
    match comp {
        Compression::None => bytes.to_vec(),
        Compression::Zlib => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = e.write_all(bytes);
            e.finish().unwrap_or_default()
        }
        Compression::Bzip2 => {
            let mut out = Vec::new();
            let _ = bzip2::read::BzEncoder::new(bytes, bzip2::Compression::default()).read_to_end(&mut out);
            out
        }
    }
}

/// How many bytes a log's regions decompress to, as far as each can be
/// read (the file's own size when its header cannot be read): what a tool
/// can legitimately hold, and at most `MAX_EXPANSION` times the file.
pub fn decompressed_size(file: &[u8]) -> u64 {
    let Ok(mut h) = Header::parse(&file[..HEADER_SIZE.min(file.len())], file.len() as u64) else {
        return file.len() as u64;
    };
    let _ = darshan_log::crash_safe::apply_all_maps(&mut h, file);
    let mut maps = vec![h.job_map, h.name_map];
    maps.extend(h.mod_map.iter().copied().filter(|m| m.len > 0));
    let mut total = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    for map in maps {
        let mut r = RegionReader::new(&file, map, h.compression, "region");
        while let Ok(n) = r.read_full(&mut buf) {
            total += n as u64;
            if n < buf.len() {
                break;
            }
        }
    }
    total.max(file.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every little-endian corpus log (versions 3.00 to 3.41), unpacked
    /// and packed unchanged, reads as the original: job, names, records.
    #[test]
    fn an_unchanged_log_packs_to_one_that_reads_the_same() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
        let mut versions = std::collections::BTreeSet::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let file = std::fs::read(e.unwrap().path()).unwrap();
            let Some(u) = Unpacked::of(&file) else { continue };
            versions.insert(u.version);
            let (a, b) = (
                darshan_log::LogFile::from_source(file).unwrap(),
                darshan_log::LogFile::from_source(u.pack()).unwrap(),
            );
            assert_eq!(a.job, b.job);
            assert_eq!(a.names().unwrap().iter().collect::<Vec<_>>(), b.names().unwrap().iter().collect::<Vec<_>>());
            assert_eq!(a.modules_present(), b.modules_present());
            for m in a.modules_present() {
                if let Ok(recs) = a.records(m) {
                    assert_eq!(recs, b.records(m).unwrap(), "module {m}");
                }
            }
        }
        assert_eq!(versions.len(), 5, "{versions:?}");
    }

    /// A log with POSIX_META (named by the extension trailer) written as
    /// the runtime writes one.
    fn log_with_trailer() -> Vec<u8> {
        use darshan_log::modules::{POSIX, POSIX_META};
        use darshan_log::{Job, LogWriter, NameTable, Record};
        let mut names = NameTable::new();
        names.insert(darshan_log::record_id(b"/d/f"), b"/d/f");
        let id = darshan_log::record_id(b"/d/f");
        let mut m = Record::zeroed(POSIX_META, id, 0);
        m.counters[darshan_log::counters::posix_meta::UNLINKS] = 3;
        let job = Job {
            uid: 1,
            start_time_sec: 10,
            start_time_nsec: 0,
            end_time_sec: 20,
            end_time_nsec: 0,
            nprocs: 1,
            jobid: 1,
            metadata: b"lib_ver=test\n".to_vec(),
            exe_mnt: b"./t\n".to_vec(),
        };
        let mut w = LogWriter::new(std::io::Cursor::new(Vec::new()), Compression::Zlib).unwrap();
        w.write_job(&job).unwrap();
        w.write_names(&names).unwrap();
        w.write_module(POSIX, [Record::zeroed(POSIX, id, 0)].iter()).unwrap();
        w.write_module(POSIX_META, [m].iter()).unwrap();
        w.finish().unwrap().into_inner()
    }

    /// 150 of 200 mutants of a POSIX_META log once dropped its trailer
    /// (packing forgot it), so no lie ever reached the module or the map
    /// that names it: unpacked and packed, the module is there, and the
    /// mutants lie in the trailer itself and inside POSIX_META's records.
    #[test]
    fn a_logs_extension_trailer_survives_packing_and_is_lied_in() {
        let file = log_with_trailer();
        let u = Unpacked::of(&file).expect("unpacked");
        assert!(u.has_trailer());
        let packed = darshan_log::LogFile::from_source(u.pack()).unwrap();
        let meta = packed.records(darshan_log::modules::POSIX_META).unwrap();
        assert_eq!(meta[0].counters[darshan_log::counters::posix_meta::UNLINKS], 3);
        let ms = crate::mutate::mutants(&file, 200, 5);
        let kept = ms.iter().filter(|m| m.bytes.ends_with(extension::MAGIC)).count();
        let trailer_lies = ms.iter().filter(|m| m.what.starts_with("trailer:")).count();
        let inside_meta = ms.iter().filter(|m| m.what.contains("POSIX_META")).count();
        assert!(kept >= 150, "{kept} of 200 keep a trailer");
        assert!(trailer_lies >= 5 && inside_meta >= 5, "{trailer_lies} trailer lies, {inside_meta} inside POSIX_META");
    }

    /// The short pass died on an empty seed (a crash-safe file of a child
    /// killed as its runtime made it): indexing its zero bytes panicked.
    #[test]
    fn an_empty_seed_gives_no_mutant_and_no_panic() {
        assert!(crate::mutate::mutants(&[], 50, 3).is_empty());
    }
}
