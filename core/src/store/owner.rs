//! Who owns the crash-safe file. It is made by the process's effective
//! user at its first record. A process that later gives up that user (a
//! daemon or a batch wrapper started as root that drops to the job's
//! user with `setuid`) could no longer remove it at exit: in a sticky
//! directory such as /tmp only the file's owner may, so 6.75 MB owned by
//! root stayed behind for every such process (C Darshan 3.5.0 leaves its
//! own, mode 0644). The file is given to the new user while the process
//! still may (logmap::changing_user).
//!
//! The path is reached without following a link and without opening the
//! file for I/O (O_PATH: a FIFO planted there cannot block), and is
//! changed only if it is still the file this process made (its device
//! and inode, one link): the directory may be one another user can write.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

/// The file a process made: its device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Made {
    pub dev: u64,
    pub ino: u64,
}

impl Made {
    /// What `f` is.
    pub fn of(f: &std::fs::File) -> Option<Made> {
        f.metadata().ok().map(|m| Made { dev: m.dev(), ino: m.ino() })
    }
}

/// Give the file at `path`, if it is still `made`, to `uid` (its group
/// unchanged). Ok(Some(owner before)) when it changed hands, Ok(None) when
/// `uid` owned it already. Err: not the same file, or no right to give
/// it (a process that is not privileged: the change of user then leaves
/// it to that process's own rights, as before).
#[allow(unsafe_code)]
pub fn give(path: &str, made: Made, uid: u32) -> std::io::Result<Option<u32>> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map(crate::store::nofile::out_of_the_way)?;
    let m = f.metadata()?;
    if !m.file_type().is_file() || m.dev() != made.dev || m.ino() != made.ino || m.nlink() != 1 {
        return Err(std::io::Error::from_raw_os_error(libc::ESTALE));
    }
    if m.uid() == uid {
        return Ok(None);
    }
    use std::os::fd::AsRawFd;
    // SAFETY: `f` is an open descriptor of ours; the empty path is a
    // NUL-terminated literal naming the descriptor itself (AT_EMPTY_PATH,
    // which an O_PATH descriptor needs: fchown refuses one).
    let r = unsafe { libc::fchownat(f.as_raw_fd(), c"".as_ptr(), uid, u32::MAX, libc::AT_EMPTY_PATH) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Some(m.uid()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own, removed when the test ends (passed or not).
    struct Scratch(std::path::PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = std::path::Path;
        fn deref(&self) -> &std::path::Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("owner-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    fn own_uid() -> u32 {
        std::fs::metadata("/proc/self").unwrap().uid()
    }

    #[test]
    fn the_owner_already_has_it() {
        let d = scratch("same");
        let p = d.join("f");
        let f = std::fs::File::create(&p).unwrap();
        let made = Made::of(&f).unwrap();
        assert_eq!(give(p.to_str().unwrap(), made, own_uid()).unwrap(), None);
    }

    /// Another file put in its place (a directory another user writes
    /// into): left alone.
    #[test]
    fn a_file_put_in_its_place_is_not_given_away() {
        let d = scratch("swapped");
        let p = d.join("f");
        let made = Made::of(&std::fs::File::create(&p).unwrap()).unwrap();
        // Moved, not removed: its inode cannot be the new file's.
        std::fs::rename(&p, d.join("moved")).unwrap();
        std::fs::File::create(&p).unwrap();
        let e = give(p.to_str().unwrap(), made, own_uid().wrapping_add(1)).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ESTALE), "{e}");
    }

    /// A link to the file (a hard link the other user could have made to
    /// one of root's files, or a symbolic one): never followed or given.
    #[test]
    fn a_link_is_not_given_away() {
        let d = scratch("links");
        let p = d.join("f");
        let made = Made::of(&std::fs::File::create(&p).unwrap()).unwrap();
        std::fs::hard_link(&p, d.join("second")).unwrap();
        let e = give(p.to_str().unwrap(), made, own_uid().wrapping_add(1)).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ESTALE), "{e}");
        let s = d.join("sym");
        std::os::unix::fs::symlink(&p, &s).unwrap();
        assert!(give(s.to_str().unwrap(), made, own_uid().wrapping_add(1)).is_err());
    }

    /// A FIFO at the path: O_PATH does not wait for a writer.
    #[test]
    #[allow(unsafe_code)]
    fn a_fifo_at_the_path_does_not_block() {
        let d = scratch("fifo");
        let p = d.join("f");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = give(p.to_str().unwrap(), Made { dev: 0, ino: 0 }, own_uid().wrapping_add(1)).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ESTALE), "{e}");
    }
}
