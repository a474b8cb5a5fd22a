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
//!   a planted link, nothing already there is replaced); or, for a tool
//!   whose user reruns it over its last output (a report), renamed over
//!   the name: what the name held, a file or a link, is replaced, never
//!   written through.

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

/// `mode` as the process's umask lets a new file have it, as `open(2)`
/// would give it: for an output published with [`NewFile::publish`]
/// (whose temporary file is private while it is written). The umask is
/// read from `/proc/self/status`, which sets nothing (a `umask(2)` call
/// would set it, for every thread, while it asks); 022 if unreadable.
pub fn umasked(mode: u32) -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .unwrap_or(0o022);
    mode & !mask & 0o7777
}

/// Whether what `uid` owns may be followed or written through: it is the
/// user the tool runs as, or root (the system's own links and devices:
/// `/dev/stdout`, `/dev/fd`, `/dev/null`; root is not who the rule keeps
/// out). The kernel's `fs.protected_symlinks` rule, kept even where the
/// file system does not apply it.
pub fn trusted(uid: u32) -> bool {
    uid == rustix::process::geteuid().as_raw() || uid == 0
}

/// Whether a file that another library opens by its name (SQLite, its
/// database and the files beside it) may be opened: absent, or a regular
/// file reached through no link another user owns. Err: why not, in
/// words ("… : not followed", "… : not opened").
pub fn plain_or_absent(path: &Path) -> Result<(), &'static str> {
    let Ok(mut st) = rustix::fs::lstat(path) else { return Ok(()) };
    use rustix::fs::FileType as T;
    if T::from_raw_mode(st.st_mode) == T::Symlink {
        if !trusted(st.st_uid) {
            return Err("a symbolic link owned by another user: not followed");
        }
        // One's own link is followed, as open(2) would.
        let Ok(target) = rustix::fs::stat(path) else { return Ok(()) };
        st = target;
    }
    match T::from_raw_mode(st.st_mode) {
        T::RegularFile => Ok(()),
        _ => Err("not a regular file: not opened"),
    }
}

/// [`plain_or_absent`] for an SQLite database and the files SQLite keeps
/// beside it (`-wal`, `-shm`, `-journal`), all opened by name. Err: which
/// of them, and why ("the database is …", "its file -wal is …").
pub fn sqlite_files_plain(db: &Path) -> Result<(), String> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.as_os_str().to_os_string();
        p.push(suffix);
        if let Err(why) = plain_or_absent(Path::new(&p)) {
            let what = if suffix.is_empty() { "the database".to_string() } else { format!("its file {suffix}") };
            return Err(format!("{what} is {why}"));
        }
    }
    Ok(())
}

/// Whether the link at `path` may be followed ([`trusted`]).
fn link_is_trusted(path: &Path) -> io::Result<bool> {
    Ok(trusted(rustix::fs::lstat(path)?.st_uid))
}

/// Opens `path` to read: never through a symbolic link another user owns,
/// never waiting on a FIFO or device, and only a regular file.
pub fn open_input(path: &Path) -> io::Result<Input> {
    let base = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd: OwnedFd = match rustix::fs::open(path, base | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP) if link_is_trusted(path)? => rustix::fs::open(path, base, Mode::empty())?,
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
    /// Whether [`NewFile::publish`] may take the place of what the name
    /// holds ([`NewFile::replacing`]).
    replace: bool,
}

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// The directory of `path`, opened once: a link to it is followed only
/// when the tool's user or root owns the link.
fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let base = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    match rustix::fs::open(dir, base | OFlags::NOFOLLOW, Mode::empty()) {
        Err(rustix::io::Errno::LOOP) | Err(rustix::io::Errno::NOTDIR) if link_is_trusted(dir)? => {
            Ok(rustix::fs::open(dir, base, Mode::empty())?)
        }
        Err(rustix::io::Errno::LOOP) | Err(rustix::io::Errno::NOTDIR) if is_link(dir) => {
            Err(refused("its directory is a symbolic link owned by another user: not followed"))
        }
        r => Ok(r?),
    }
}

/// `path`'s directory, opened as [`open_dir`] opens it, and its name.
fn dir_and_name(path: &Path) -> io::Result<(OwnedFd, OsString)> {
    let name = path.file_name().ok_or_else(|| refused("not a file name"))?.to_os_string();
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((open_dir(parent)?, name))
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

impl NewFile {
    /// Starts the file that will be `path`; the file to write is returned
    /// beside it. Fails when `path` already exists (a link included).
    pub fn create(path: &Path) -> io::Result<(NewFile, File)> {
        Self::start(path, false)
    }

    /// Starts a new file that will take the name `path` whatever the name
    /// holds then: a file there is replaced at [`NewFile::publish`] (one
    /// rename: a reader sees the old file or the new one), a link is
    /// replaced and not followed. [`Output`] decides when this is the way
    /// (and refuses a directory).
    fn replacing(path: &Path) -> io::Result<(NewFile, File)> {
        Self::start(path, true)
    }

    fn start(path: &Path, replace: bool) -> io::Result<(NewFile, File)> {
        let (dir, name) = dir_and_name(path)?;
        // Replacing, [`Output::create`] has looked at what the name holds.
        if !replace && rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok() {
            let why = format!("{}: already exists; not replaced", shown(path));
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, why));
        }
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..64 {
            let mut tmp = OsString::from(".");
            tmp.push(&name);
            tmp.push(format!(".{}-{}.tmp", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
            match rustix::fs::openat(&dir, tmp.as_os_str(), flags, Mode::from_raw_mode(0o600)) {
                Ok(fd) => {
                    let f = File::from(fd);
                    let path = path.to_path_buf();
                    return Ok((NewFile { dir, tmp, name, path, published: false, replace }, f));
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
    /// descriptor) and links it to its name, which must still be free
    /// (renames it over the name, when [`NewFile::replacing`]); then the
    /// directory entry is made durable too.
    pub fn publish(mut self, file: File, mode: u32) -> io::Result<()> {
        file.sync_all()?;
        rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
        drop(file);
        if self.replace {
            rustix::fs::renameat(&self.dir, self.tmp.as_os_str(), &self.dir, self.name.as_os_str())?;
            self.published = true;
            let _ = rustix::fs::fsync(&self.dir);
            return Ok(());
        }
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

/// An output its user reruns over the last one (a report, a converted
/// log, a configuration), named by that user, perhaps in a directory
/// another user can write. What the name holds decides (`lstat`, not
/// following it):
///
/// - nothing, a file, or a link another user owns: a [`NewFile`] renamed
///   over the name at [`Output::publish`], so nothing is written through
///   a link or into a file someone planted, and a reader sees the old file
///   or the new one;
/// - a link, FIFO or device the tool's user or root owns (`-o
///   /dev/stdout`, `-o /dev/null`, `-o >(gzip)`): written through, as
///   `open(2)` would (the kernel's `protected_symlinks` rule: one's own
///   link is followed), never waiting to open;
/// - a directory, or a FIFO, socket or device another user owns: refused.
#[derive(Debug)]
pub enum Output {
    New(NewFile),
    Through,
}

impl Output {
    /// Opens `path` as the output; the file to write is returned beside.
    pub fn create(path: &Path) -> io::Result<(Output, File)> {
        let (dir, name) = dir_and_name(path)?;
        let holds = match rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Some(st),
            Err(rustix::io::Errno::NOENT) => None,
            Err(e) => return Err(e.into()),
        };
        use rustix::fs::FileType as T;
        match holds.map(|st| (T::from_raw_mode(st.st_mode), trusted(st.st_uid))) {
            None | Some((T::RegularFile, _)) | Some((T::Symlink, false)) => {
                let (new, file) = NewFile::replacing(path)?;
                Ok((Output::New(new), file))
            }
            Some((T::Directory, _)) => Err(refused("a directory: not replaced")),
            Some((_, true)) => Ok((Output::Through, open_through(&dir, &name)?)),
            Some(_) => Err(refused("not a regular file, and another user's: not written")),
        }
    }

    /// Ends the output written to `file`: a new file gets `mode` and its
    /// name ([`NewFile::publish`]); a file written through keeps its own.
    pub fn publish(self, file: File, mode: u32) -> io::Result<()> {
        match self {
            Output::New(new) => new.publish(file, mode),
            Output::Through => Ok(()),
        }
    }
}

/// `name` in `dir` opened to write as `open(2)` opens it, following the
/// link it is, without waiting for a FIFO's reader (then written
/// blocking, as a shell's redirection would).
fn open_through(dir: &OwnedFd, name: &OsString) -> io::Result<File> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = match rustix::fs::openat(dir, name.as_os_str(), flags | OFlags::NONBLOCK, Mode::from_raw_mode(0o666)) {
        Err(rustix::io::Errno::NXIO) => {
            return Err(refused("a FIFO with no reader, or a socket: not opened, not waited on"))
        }
        r => r?,
    };
    let now = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, now - OFlags::NONBLOCK)?;
    Ok(File::from(fd))
}

/// `bytes` as the [`Output`] `path`, a new file with the mode the umask
/// lets 0666 have.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (out, mut file) = Output::create(path)?;
    std::io::Write::write_all(&mut file, bytes)?;
    out.publish(file, umasked(0o666))
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
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

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

    /// A scratch directory with a file holding "precious" and, at `name`,
    /// a link to it: (directory, file, link).
    fn planted(tag: &str, name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let d = scratch(tag);
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let out = d.join(name);
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        (d, victim, out)
    }

    #[test]
    fn an_output_is_made_new_never_through_a_planted_link() {
        let (d, victim, out) = planted("out", "job.darshan");
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

    /// darshan-summary, darshan-study and darshan-convert wrote with
    /// `fs::write`/`File::create`: through a link at their output's name,
    /// into the file it named.
    #[test]
    fn a_replacing_output_wrote_through_a_link_planted_at_its_name() {
        let (d, victim, out) = planted("replace", "report.html");
        let (nf, mut f) = NewFile::replacing(&out).unwrap();
        f.write_all(b"report").unwrap();
        nf.publish(f, 0o640).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        let meta = std::fs::symlink_metadata(&out).unwrap();
        assert!(meta.file_type().is_file(), "the link is replaced by the file");
        assert_eq!((std::fs::read(&out).unwrap(), meta.permissions().mode() & 0o777), (b"report".to_vec(), 0o640));
        // Run again: the last output is replaced.
        let (nf, mut f) = NewFile::replacing(&out).unwrap();
        f.write_all(b"again").unwrap();
        nf.publish(f, 0o640).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"again");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 2, "no temporary file is left");
        let sub = d.join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(Output::create(&sub).unwrap_err().to_string().contains("a directory: not replaced"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// `-o FIFO` of the user's own: written through when something reads
    /// it, refused at once when nothing does (open(2) would wait).
    #[test]
    fn an_output_fifo_with_no_reader_is_not_waited_on() {
        let d = scratch("out-fifo");
        let p = d.join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
        let e = write_replacing(&p, b"report").unwrap_err();
        assert!(e.to_string().contains("a FIFO with no reader"), "{e}");
        let mut reader =
            std::process::Command::new("cat").arg(&p).stdout(std::process::Stdio::piped()).spawn().unwrap();
        // cat opens the FIFO soon; until then a write finds no reader.
        let t0 = std::time::Instant::now();
        while write_replacing(&p, b"report").is_err() {
            if t0.elapsed() > std::time::Duration::from_secs(20) {
                // Not left waiting on the FIFO after the test.
                let _ = reader.kill();
                panic!("cat never opened the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(reader.wait_with_output().unwrap().stdout, b"report");
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo(), "the FIFO is not replaced");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The kernel is the oracle: a file it makes with 0666 has the mode
    /// the umask lets it have.
    #[test]
    fn umasked_gives_what_open_gives() {
        use std::os::unix::fs::OpenOptionsExt;
        let d = scratch("umask");
        let p = d.join("made");
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o666).open(&p).unwrap();
        let kernel = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(umasked(0o666), kernel);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
