//! A FUSE file system that serves Lustre layouts
//! (tests/programs/lustre_fuse.c): regular files, with `getxattr
//! ("lustre.lov")` answered from layouts the test records, as a Lustre
//! client would. Used by the LUSTRE module's tests and the diagnosis's
//! Lustre known answers.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use super::{output, root, status};
use darshan_test_support::SpawnWatched;

/// A mounted test file system; unmounted (and its server ended) on drop.
pub struct Fuse {
    pub mount: PathBuf,
    layouts: PathBuf,
    server: Child,
}

impl Fuse {
    /// None (and a line saying why) where FUSE cannot run here.
    pub fn start(dir: &Path) -> Option<Fuse> {
        Fuse::start_with(dir, &[])
    }

    /// `start`, with the server's settings in its environment
    /// (tests/programs/lustre_fuse.c): LUSTRE_FUSE_BSIZE makes the file
    /// system report that block size (statfs f_bsize), as a Lustre client
    /// reports its stripe size; LUSTRE_FUSE_STATFS_SLEEP delays statfs.
    pub fn start_with(dir: &Path, env: &[(&str, &str)]) -> Option<Fuse> {
        if !Path::new("/dev/fuse").exists() || fusermount(&["-V"]).is_none() {
            eprintln!("SKIPPED: no /dev/fuse or fusermount3 here; the LUSTRE end-to-end tests need FUSE");
            return None;
        }
        let exe = dir.join("lustre_fuse");
        let flags = output(Command::new("pkg-config").args(["fuse3", "--cflags", "--libs"]));
        assert!(flags.status.success(), "pkg-config fuse3 (libfuse3-dev: scripts/setup.sh)");
        let flags = String::from_utf8_lossy(&flags.stdout).into_owned();
        let src = root().join("tests/programs/lustre_fuse.c");
        let st = status(Command::new("cc").arg("-O1").arg("-o").arg(&exe).arg(&src).args(flags.split_whitespace()));
        assert!(st.success(), "compiling lustre_fuse");
        let (backing, layouts, mount) = (dir.join("backing"), dir.join("layouts"), dir.join("mnt"));
        for d in [&backing, &layouts, &mount] {
            std::fs::create_dir_all(d).unwrap();
        }
        // As /proc/mounts and the log name it.
        let mount = mount.canonicalize().unwrap();
        let server =
            Command::new(&exe).arg(&backing).arg(&layouts).arg(&mount).envs(env.iter().copied()).spawn_watched();
        let fuse = Fuse { mount, layouts, server };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !fuse.mounted() {
            assert!(Instant::now() < deadline, "the FUSE file system did not mount");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(fuse)
    }

    fn mounted(&self) -> bool {
        let m = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
        let me = self.mount.to_str().unwrap();
        m.lines().any(|l| l.split(' ').nth(1) == Some(me))
    }

    /// Serve `attr` as the `lustre.lov` of the file `name`.
    pub fn layout(&self, name: &str, attr: &[u8]) {
        std::fs::write(self.layouts.join(name), attr).unwrap();
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.mount.join(name)
    }
}

/// `fusermount3 args` under the watchdog; None if it cannot be run. It
/// never panics: the unmount runs in Drop, also while a test unwinds.
pub fn fusermount(args: &[&str]) -> Option<std::process::ExitStatus> {
    fusermount_to(args, std::process::Stdio::inherit())
}

/// `fusermount(args)` with its stderr sent to `err`.
fn fusermount_to(args: &[&str], err: std::process::Stdio) -> Option<std::process::ExitStatus> {
    let mut child =
        Command::new("fusermount3").args(args).stdout(std::process::Stdio::null()).stderr(err).spawn().ok()?;
    darshan_test_support::watchdog(&child);
    child.wait().ok()
}

impl Drop for Fuse {
    fn drop(&mut self) {
        let mount = self.mount.to_str().unwrap_or_default();
        // Lazily if something still holds it busy: killing the server
        // under a mount leaves it stale ("transport endpoint is not
        // connected"), and the next run's `rm -rf` of the test tree fails.
        // The first try's "Device or resource busy" is expected, not news:
        // only the lazy unmount's complaint would be.
        if !fusermount_to(&["-u", mount], std::process::Stdio::null()).is_some_and(|s| s.success()) {
            let _ = fusermount(&["-u", "-z", mount]);
        }
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
