//! Where log bytes come from: a file (positional reads, nothing mapped or
//! slurped) or a byte slice (tests, fuzzing).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

pub trait LogSource {
    fn size(&self) -> u64;
    /// Read up to `buf.len()` bytes at `off`; short only at end of data.
    fn read_at(&self, buf: &mut [u8], off: u64) -> io::Result<usize>;

    fn read_exact_at(&self, buf: &mut [u8], off: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let n = self.read_at(&mut buf[done..], off + done as u64)?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "unexpected end of log file"));
            }
            done += n;
        }
        Ok(())
    }
}

pub struct FileSource {
    file: File,
    size: u64,
}

impl FileSource {
    /// Opens a log as every tool must (crate::safe_fs::open_input): no
    /// link another user owns followed, no FIFO or device waited on or
    /// read; reads end at the file's real size.
    pub fn open(path: &std::path::Path) -> io::Result<Self> {
        let input = crate::safe_fs::open_input(path)?;
        Ok(FileSource { size: input.size, file: input.file })
    }
}

impl LogSource for FileSource {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&self, buf: &mut [u8], off: u64) -> io::Result<usize> {
        loop {
            match self.file.read_at(buf, off) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }
}

impl LogSource for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read_at(&self, buf: &mut [u8], off: u64) -> io::Result<usize> {
        self.as_slice().read_at(buf, off)
    }
}

impl LogSource for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read_at(&self, buf: &mut [u8], off: u64) -> io::Result<usize> {
        if off >= self.len() as u64 {
            return Ok(0);
        }
        let start = off as usize;
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}
