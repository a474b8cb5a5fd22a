//! How every tool opens a file another user may have made, and makes a
//! file another user may be waiting for. Centres run the tools as root
//! over every user's logs, in 1777 directories (docs/robustness.md,
//! "Privileged use"):
//!
//! - an input is opened without following a symbolic link someone else
//!   owns, without waiting (a FIFO in a log's place), and only when it is
//!   a regular file; its size and the bytes it really holds come from the
//!   kernel, so a reader bounds what it reads and allocates by them;
//! - an output is made new: a private temporary file created exclusively
//!   in its directory (opened once), its mode set on the descriptor, then
//!   linked to its name, which must not exist (nothing is written through
//!   a planted link, nothing already there is replaced).

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};

/// An input file, opened as [`open_input`] opens it.
#[derive(Debug)]
pub struct Input {
    pub file: File,
    /// Its size (`st_size`).
    pub size: u64,
    /// The bytes the file system holds for it (`st_blocks` × 512): a
    /// sparse file claims more than it holds, and costs its maker nothing.
    pub allocated: u64,
    /// Its owner, from the kernel (not from anything the file says).
    pub uid: u32,
}

/// Why an input was refused (callers name the path).
fn refused(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why.to_string())
}

/// A path as one line can show it (control bytes escaped).
pub fn shown(path: &Path) -> String {
    path.as_os_str().as_bytes().escape_ascii().to_string()
}

/// Whether the link at `path` may be followed: its owner is the user the
/// tool runs as (the kernel's `fs.protected_symlinks` rule, kept even
/// where the file system does not apply it).
fn link_is_ours(path: &Path) -> io::Result<bool> {
    let st = rustix::fs::lstat(path)?;
    Ok(st.st_uid == rustix::process::geteuid().as_raw())
}

/// Opens `path` to read: never through a symbolic link another user owns,
/// never waiting on a FIFO or device, and only a regular file.
pub fn open_input(path: &Path) -> io::Result<Input> {
    let base = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd: OwnedFd = match rustix::fs::open(path, base | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP) if link_is_ours(path)? => rustix::fs::open(path, base, Mode::empty())?,
        Err(rustix::io::Errno::LOOP) => {
            return Err(refused("a symbolic link owned by another user: not followed"));
        }
        Err(e) => return Err(e.into()),
    };
    let st = rustix::fs::fstat(&fd)?;
    if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile {
        return Err(refused("not a regular file: not read"));
    }
    Ok(Input {
        file: File::from(fd),
        size: st.st_size.max(0) as u64,
        allocated: (st.st_blocks.max(0) as u64).saturating_mul(512),
        uid: st.st_uid,
    })
}

/// A file being made at a name that must be new: written under a private
/// temporary name in the same directory, then [`NewFile::publish`]ed.
/// Dropped unpublished, the temporary file is removed.
#[derive(Debug)]
pub struct NewFile {
    dir: OwnedFd,
    tmp: OsString,
    name: OsString,
    path: PathBuf,
    published: bool,
}

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// The directory of `path`, opened once: a link to it is followed only
/// when the tool's user owns the link.
fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let base = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    match rustix::fs::open(dir, base | OFlags::NOFOLLOW, Mode::empty()) {
        Err(rustix::io::Errno::LOOP) | Err(rustix::io::Errno::NOTDIR) if link_is_ours(dir)? => {
            Ok(rustix::fs::open(dir, base, Mode::empty())?)
        }
        Err(rustix::io::Errno::LOOP) | Err(rustix::io::Errno::NOTDIR) if is_link(dir) => {
            Err(refused("its directory is a symbolic link owned by another user: not followed"))
        }
        r => Ok(r?),
    }
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

impl NewFile {
    /// Starts the file that will be `path`; the file to write is returned
    /// beside it. Fails when `path` already exists (a link included).
    pub fn create(path: &Path) -> io::Result<(NewFile, File)> {
        let name = path.file_name().ok_or_else(|| refused("not a file name"))?.to_os_string();
        let parent = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = open_dir(parent)?;
        if rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{}: already exists; not replaced", shown(path)),
            ));
        }
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..64 {
            let mut tmp = OsString::from(".");
            tmp.push(&name);
            tmp.push(format!(".{}-{}.tmp", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
            match rustix::fs::openat(&dir, tmp.as_os_str(), flags, Mode::from_raw_mode(0o600)) {
                Ok(fd) => {
                    let f = File::from(fd);
                    return Ok((NewFile { dir, tmp, name, path: path.to_path_buf(), published: false }, f));
                }
                Err(rustix::io::Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::other(format!("{}: no free temporary name", shown(path))))
    }

    /// The temporary file's path (for messages).
    pub fn temp_path(&self) -> PathBuf {
        self.path.with_file_name(&self.tmp)
    }

    /// Makes the written `file` durable, gives it `mode` (on the
    /// descriptor) and links it to its name, which must still be free;
    /// then the directory entry is made durable too.
    pub fn publish(mut self, file: File, mode: u32) -> io::Result<()> {
        file.sync_all()?;
        rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
        drop(file);
        match rustix::fs::linkat(&self.dir, self.tmp.as_os_str(), &self.dir, self.name.as_os_str(), AtFlags::empty()) {
            Ok(()) => {}
            Err(rustix::io::Errno::EXIST) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{}: made by someone else while this was written; not replaced", shown(&self.path)),
                ));
            }
            Err(e) => return Err(e.into()),
        }
        self.published = true;
        let _ = rustix::fs::unlinkat(&self.dir, self.tmp.as_os_str(), AtFlags::empty());
        let _ = rustix::fs::fsync(&self.dir);
        Ok(())
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.published {
            let _ = rustix::fs::unlinkat(&self.dir, self.tmp.as_os_str(), AtFlags::empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("darshan-safe-fs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_fifo_in_a_logs_place_is_refused_without_waiting() {
        let d = scratch("fifo");
        let p = d.join("a.darshan");
        let st = std::process::Command::new("mkfifo").arg(&p).status().unwrap();
        assert!(st.success());
        let e = open_input(&p).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_link_to_a_device_is_not_read() {
        let d = scratch("dev");
        let p = d.join("z.darshan");
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        // Our own link is followed, and what it reaches is not a file.
        assert!(open_input(&p).unwrap_err().to_string().contains("not a regular file"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_output_is_made_new_never_through_a_planted_link() {
        let d = scratch("out");
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let out = d.join("job.darshan");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        let e = NewFile::create(&out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        std::fs::remove_file(&out).unwrap();
        let (nf, mut f) = NewFile::create(&out).unwrap();
        f.write_all(b"log").unwrap();
        // A link planted at the name while the file is written.
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        assert!(nf.publish(f, 0o400).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        std::fs::remove_file(&out).unwrap();
        let (nf, mut f) = NewFile::create(&out).unwrap();
        f.write_all(b"log").unwrap();
        nf.publish(f, 0o400).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"log");
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o400);
        // No temporary file is left.
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 2);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
