//! Opening a log: header, job region, names, and per-module record readers.

use std::path::Path;

use crate::decode::ModuleReader;
use crate::error::{LogError, Result};
use crate::header::{Header, HEADER_SIZE};
use crate::job::{Job, JOB_RECORD_SIZE};
use crate::modules::{module_name, MAX_MODS};
use crate::names::NameTable;
use crate::region::RegionReader;
use crate::source::{FileSource, LogSource};

pub struct LogFile<S: LogSource = FileSource> {
    src: S,
    pub header: Header,
    pub job: Job,
}

impl LogFile<FileSource> {
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let src = FileSource::open(path.as_ref())?;
        LogFile::from_source(src)
    }
}

impl<S: LogSource> LogFile<S> {
    pub fn from_source(src: S) -> Result<Self> {
        let size = src.size();
        let mut hb = vec![0u8; HEADER_SIZE.min(size as usize)];
        src.read_exact_at(&mut hb, 0)?;
        let mut header = Header::parse(&hb, size)?;
        // Modules Darshan does not know are named by a trailer (crate::extension).
        let tail_len = crate::extension::MAX_TRAILER_SIZE.min(size.saturating_sub(HEADER_SIZE as u64) as usize);
        let mut tail = vec![0u8; tail_len];
        src.read_exact_at(&mut tail, size - tail_len as u64)?;
        crate::extension::apply_trailer(&mut header, &tail, size)?;
        if crate::crash_safe::is_crash_safe(&header) && size >= crate::crash_safe::LIVE_OFF as u64 {
            let mut block = [0u8; crate::crash_safe::EXT_MAP_SIZE];
            src.read_exact_at(&mut block, crate::crash_safe::EXT_MAP_OFF as u64)?;
            crate::crash_safe::apply_ext_map(&mut header, &block, size)?;
        }
        let job = {
            let mut r = RegionReader::new(&src, header.job_map, header.compression, "job");
            let bytes = r.read_to_end(JOB_RECORD_SIZE)?;
            Job::parse(&bytes, header.version, header.swapped)?
        };
        Ok(LogFile { src, header, job })
    }

    /// The log's size in bytes, as it was when opened.
    pub fn size(&self) -> u64 {
        self.src.size()
    }

    /// Read the whole name table (bounded by the names themselves).
    pub fn names(&self) -> Result<NameTable> {
        let mut r = RegionReader::new(&self.src, self.header.name_map, self.header.compression, "name");
        NameTable::read(&mut r, self.header.version, self.header.swapped)
    }

    /// Decompress and validate the name region without keeping it.
    pub fn check_names(&self) -> Result<()> {
        if self.header.version == crate::header::LogVersion::V300 {
            return self.names().map(|_| ());
        }
        let mut r = RegionReader::new(&self.src, self.header.name_map, self.header.compression, "name");
        NameTable::validate(&mut r, self.header.version)
    }

    /// Modules that hold data, in id order.
    pub fn modules_present(&self) -> Vec<usize> {
        (0..MAX_MODS).filter(|&i| self.header.mod_map[i].len > 0).collect()
    }

    /// A record reader for one module (errors for unknown versions).
    /// Module `module`'s region as it lies, decompressed: for records the
    /// format's [`ModuleReader`] does not decode ([`crate::autoperf`]).
    pub fn region_reader(&self, module: usize) -> RegionReader<'_> {
        let map = self.header.mod_map.get(module).copied().unwrap_or(crate::RegionMap { off: 0, len: 0 });
        RegionReader::new(&self.src, map, self.header.compression, module_name(module))
    }

    pub fn module_reader(&self, module: usize) -> Result<ModuleReader<'_>> {
        if module >= MAX_MODS {
            return Err(LogError::BadModuleVersion { module: format!("id {module}"), version: 0 });
        }
        let region =
            RegionReader::new(&self.src, self.header.mod_map[module], self.header.compression, module_name(module));
        let mut rd = ModuleReader::new(region, module, self.header.mod_ver[module], self.header.swapped)?;
        rd.set_tick_secs(self.tick_secs());
        Ok(rd)
    }

    /// A crash-safe (uncompressed) log written by our runtime while the
    /// program ran holds time counters in clock ticks; its job metadata
    /// says how long a tick is (`ticks=<seconds>`). None otherwise.
    pub fn tick_secs(&self) -> Option<f64> {
        if self.header.compression != crate::Compression::None {
            return None;
        }
        let meta = String::from_utf8_lossy(&self.job.metadata);
        meta.lines()
            .find_map(|l| l.strip_prefix("ticks="))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| *s > 0.0)
    }

    /// Every record of one module, decoded (convenience for small logs and
    /// tests; tools that must stay bounded use `module_reader`).
    pub fn records(&self, module: usize) -> Result<Vec<crate::record::Record>> {
        let mut rd = self.module_reader(module)?;
        let mut out = Vec::new();
        loop {
            let mut r = crate::record::Record::new(module);
            if !rd.next_into(&mut r)? {
                return Ok(out);
            }
            out.push(r);
        }
    }
}
