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

/// Counts bytes passed through to the underlying writer, which it owns
/// while a region's stream is being written.
struct Counting<W: Write> {
    inner: W,
    n: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.n += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

enum Encoder<W: Write> {
    Zlib(flate2::write::ZlibEncoder<Counting<W>>),
    Bzip2(bzip2::write::BzEncoder<Counting<W>>),
}

impl<W: Write> Encoder<W> {
    fn new(comp: Compression, out: W) -> Result<Self> {
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
    /// The stream ended: the writer back, and the bytes it took.
    fn finish(self) -> Result<(W, u64)> {
        let c = match self {
            Encoder::Zlib(e) => e.finish()?,
            Encoder::Bzip2(e) => e.finish()?,
        };
        Ok((c.inner, c.n))
    }
}

/// A region of the log, as darshan-util's writer names where bytes go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Region {
    Job,
    Names,
    Module(usize),
}

/// The region whose stream is open ([`LogWriter::put`]): where it
/// started, and its encoder, which holds the writer meanwhile.
struct Open<W: Write> {
    region: Region,
    off: u64,
    enc: Encoder<W>,
}

pub struct LogWriter<W: Write + Seek> {
    /// The writer, unless a region's stream holds it (`open`).
    out: Option<W>,
    open: Option<Open<W>>,
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
            out: Some(out),
            open: None,
            comp,
            pos: HEADER_SIZE as u64,
            header: Header::empty(comp),
            next_module: 0,
            // Only write_module stages records (the runtime writes
            // precompressed streams): allocated on first use.
            stage: Vec::new(),
        })
    }

    /// The writer, the open region's stream ended first.
    fn idle(&mut self) -> Result<W> {
        self.close_region()?;
        self.out.take().ok_or_else(|| LogError::Write("the log's writer was lost to an earlier error".into()))
    }

    /// Ends the open region's stream, if any, and maps the region.
    fn close_region(&mut self) -> Result<()> {
        let Some(open) = self.open.take() else { return Ok(()) };
        let (out, len) = open.enc.finish()?;
        self.out = Some(out);
        self.pos += len;
        *self.map_of(open.region) = RegionMap { off: open.off, len };
        Ok(())
    }

    fn map_of(&mut self, region: Region) -> &mut RegionMap {
        match region {
            Region::Job => &mut self.header.job_map,
            Region::Names => &mut self.header.name_map,
            Region::Module(id) => &mut self.header.mod_map[id],
        }
    }

    /// `bytes` as the whole of `region`: one stream, ended.
    fn region(&mut self, region: Region, bytes: &[u8]) -> Result<()> {
        self.put(region, bytes)?;
        self.close_region()
    }

    /// Bytes of `region`, as darshan-util's writer takes them (its
    /// `darshan_log_put_*`): already in the log's layout, appended to the
    /// region's one compressed stream; bytes of another region end it.
    /// Each region is one stream: a region come back to after another is
    /// refused, as is a module id past the table.
    pub fn put(&mut self, region: Region, bytes: &[u8]) -> Result<()> {
        if matches!(region, Region::Module(id) if id >= MAX_MODS) {
            return Err(LogError::Write(format!("no module {region:?}")));
        }
        if self.open.as_ref().is_none_or(|o| o.region != region) {
            self.close_region()?;
            if self.map_of(region).len > 0 {
                return Err(LogError::Write(format!("{region:?} written again after another region")));
            }
            let off = self.pos;
            let enc = Encoder::new(self.comp, self.idle()?)?;
            self.open = Some(Open { region, off, enc });
        }
        self.open.as_mut().map_or(Ok(()), |o| o.enc.write_all(bytes))
    }

    /// The version module `id`'s records were written at (darshan-util's
    /// writer takes the caller's).
    pub fn set_module_version(&mut self, id: usize, version: u32) {
        if let Some(v) = self.header.mod_ver.get_mut(id) {
            *v = version;
        }
    }

    pub fn write_job(&mut self, job: &Job) -> Result<()> {
        self.region(Region::Job, &job.encode())
    }

    pub fn write_names(&mut self, names: &NameTable) -> Result<()> {
        let b = names.encode();
        if b.is_empty() {
            // As the runtime does: an empty region at the current offset.
            self.header.name_map = RegionMap { off: self.pos, len: 0 };
            return Ok(());
        }
        self.region(Region::Names, &b)
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
        // DXT: 40-byte segments (DXT_POSIX v2 / DXT_MPIIO v3) when the
        // first record has thread ids, else the 32-byte ones every
        // released reader takes.
        let tids = records.peek().is_some_and(|r| crate::encode::dxt_thread_ids(r.borrow()));
        // Records are encoded into `stage` and put a MiB at a time.
        let mut stage = std::mem::take(&mut self.stage);
        stage.clear();
        for r in records {
            let r = r.borrow();
            if r.module != module {
                return Err(LogError::Write(format!("record of module {} given for module {module}", r.module)));
            }
            encode_record_dxt(r, &mut stage, tids)?;
            if stage.len() >= 1 << 20 {
                self.put(Region::Module(module), &stage)?;
                stage.clear();
            }
        }
        self.put(Region::Module(module), &stage)?;
        stage.clear();
        self.stage = stage;
        self.close_region()?;
        self.header.mod_ver[module] = write_version(module) + u32::from(tids);
        Ok(())
    }

    pub fn set_partial_flag(&mut self, flag: u64) {
        self.header.partial_flag = flag;
    }

    /// Write the extension trailer (modules Darshan does not know, see
    /// crate::extension) and the header; return the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        let mut out = self.idle()?;
        let trailer = crate::extension::encode_trailer(&self.header);
        out.seek(SeekFrom::Start(self.pos))?;
        out.write_all(&trailer)?;
        self.pos += trailer.len() as u64;
        out.seek(SeekFrom::Start(0))?;
        out.write_all(&self.header.encode())?;
        out.seek(SeekFrom::Start(self.pos))?;
        out.flush()?;
        Ok(out)
    }
}
