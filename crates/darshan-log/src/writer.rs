//! Writing "3.41" logs: header placeholder, job region, name region, then
//! module regions in id order, each one compressed stream; the header is
//! written last, as the C writer does.

use std::io::{Seek, SeekFrom, Write};

use crate::encode::encode_record_dxt;
use crate::error::{LogError, Result};
use crate::header::{Compression, Header, RegionMap, HEADER_SIZE};
use crate::job::Job;
use crate::modules::{write_version, MAX_MODS};
use crate::names::NameTable;
use crate::record::Record;

/// Counts bytes passed through to the underlying writer.
struct Counting<'w, W: Write> {
    inner: &'w mut W,
    n: u64,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.n += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

enum Encoder<'w, W: Write> {
    Zlib(flate2::write::ZlibEncoder<Counting<'w, W>>),
    Bzip2(bzip2::write::BzEncoder<Counting<'w, W>>),
}

impl<'w, W: Write> Encoder<'w, W> {
    fn new(comp: Compression, out: &'w mut W) -> Result<Self> {
        let c = Counting { inner: out, n: 0 };
        Ok(match comp {
            Compression::Zlib => Encoder::Zlib(flate2::write::ZlibEncoder::new(c, flate2::Compression::new(6))),
            Compression::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(c, bzip2::Compression::new(9))),
            Compression::None => return Err(LogError::Write("uncompressed logs are not written".into())),
        })
    }
    fn write_all(&mut self, b: &[u8]) -> Result<()> {
        match self {
            Encoder::Zlib(e) => e.write_all(b)?,
            Encoder::Bzip2(e) => e.write_all(b)?,
        }
        Ok(())
    }
    fn finish(self) -> Result<u64> {
        Ok(match self {
            Encoder::Zlib(e) => e.finish()?.n,
            Encoder::Bzip2(e) => e.finish()?.n,
        })
    }
}

pub struct LogWriter<W: Write + Seek> {
    out: W,
    comp: Compression,
    pos: u64,
    header: Header,
    next_module: usize,
    stage: Vec<u8>,
}

impl<W: Write + Seek> LogWriter<W> {
    /// Start a log; `comp` is Zlib (the runtime's choice) or Bzip2.
    pub fn new(mut out: W, comp: Compression) -> Result<Self> {
        out.seek(SeekFrom::Start(0))?;
        out.write_all(&[0u8; HEADER_SIZE])?;
        Ok(LogWriter {
            out,
            comp,
            pos: HEADER_SIZE as u64,
            header: Header::empty(comp),
            next_module: 0,
            // Only write_module stages records (the runtime writes
            // precompressed streams): allocated on first use.
            stage: Vec::new(),
        })
    }

    fn region(&mut self, bytes: &[u8]) -> Result<RegionMap> {
        let off = self.pos;
        let mut enc = Encoder::new(self.comp, &mut self.out)?;
        enc.write_all(bytes)?;
        let len = enc.finish()?;
        self.pos += len;
        Ok(RegionMap { off, len })
    }

    pub fn write_job(&mut self, job: &Job) -> Result<()> {
        let b = job.encode();
        self.header.job_map = self.region(&b)?;
        Ok(())
    }

    pub fn write_names(&mut self, names: &NameTable) -> Result<()> {
        let b = names.encode();
        if b.is_empty() {
            // As the runtime does: an empty region at the current offset.
            self.header.name_map = RegionMap { off: self.pos, len: 0 };
            return Ok(());
        }
        self.header.name_map = self.region(&b)?;
        Ok(())
    }

    /// Write one module's records as one stream. Modules must come in
    /// ascending id order; modules without records are skipped.
    /// One module's records (borrowed or owned: a reader's records can be
    /// written as they are read, without holding them all).
    pub fn write_module<R: std::borrow::Borrow<Record>>(
        &mut self,
        module: usize,
        records: impl IntoIterator<Item = R>,
    ) -> Result<()> {
        if module >= MAX_MODS || module < self.next_module {
            return Err(LogError::Write(format!("module {module} written out of order")));
        }
        self.next_module = module + 1;
        let mut records = records.into_iter().peekable();
        if records.peek().is_none() {
            // No region at all (an empty encoder would still emit a stream).
            return Ok(());
        }
        let off = self.pos;
        // DXT: 40-byte segments (DXT_POSIX v2 / DXT_MPIIO v3) when the
        // first record has thread ids, else the 32-byte ones every
        // released reader takes.
        let tids = records.peek().is_some_and(|r| crate::encode::dxt_thread_ids(r.borrow()));
        let mut enc = Encoder::new(self.comp, &mut self.out)?;
        self.stage.clear();
        for r in records {
            let r = r.borrow();
            if r.module != module {
                return Err(LogError::Write(format!("record of module {} given for module {module}", r.module)));
            }
            encode_record_dxt(r, &mut self.stage, tids)?;
            if self.stage.len() >= 1 << 20 {
                enc.write_all(&self.stage)?;
                self.stage.clear();
            }
        }
        enc.write_all(&self.stage)?;
        self.stage.clear();
        let len = enc.finish()?;
        self.pos += len;
        self.header.mod_map[module] = RegionMap { off, len };
        self.header.mod_ver[module] = write_version(module) + u32::from(tids);
        Ok(())
    }

    pub fn set_partial_flag(&mut self, flag: u64) {
        self.header.partial_flag = flag;
    }

    /// Write the extension trailer (modules Darshan does not know, see
    /// crate::extension) and the header; return the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        let trailer = crate::extension::encode_trailer(&self.header);
        self.out.seek(SeekFrom::Start(self.pos))?;
        self.out.write_all(&trailer)?;
        self.pos += trailer.len() as u64;
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&self.header.encode())?;
        self.out.seek(SeekFrom::Start(self.pos))?;
        self.out.flush()?;
        Ok(self.out)
    }
}
