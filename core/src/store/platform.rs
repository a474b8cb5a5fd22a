//! What the core needs from the operating system, behind one small trait
//! so that the core stays free of `unsafe` and can be tested with a fake.

/// One line of text in a fixed buffer on the stack (longer text is cut,
/// the line still ends), for messages that must not allocate.
pub struct Line {
    buf: [u8; Line::CAP],
    len: usize,
}

impl Line {
    const CAP: usize = 4096;

    /// The text with its newline.
    pub fn ended(&mut self) -> &[u8] {
        let n = self.len.min(Line::CAP - 1);
        self.buf[n] = b'\n';
        &self.buf[..=n]
    }
}

impl Default for Line {
    fn default() -> Self {
        Line { buf: [0; Line::CAP], len: 0 }
    }
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = (Line::CAP - 1).saturating_sub(self.len);
        let n = s.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

pub trait Platform: Sync {
    /// `statfs(path)`: (block size, file system magic), or None on failure.
    fn statfs(&self, path: &std::ffi::CStr) -> Option<(i64, i64)>;
    /// Write one diagnostic line to stderr, unbuffered, without std I/O.
    fn stderr(&self, msg: &[u8]);
    /// The runtime's one-line message, `darshan: <msg>`.
    fn say(&self, msg: &str) {
        self.say_fmt(format_args!("{msg}"));
    }
    /// The same, formatted on the stack: a message that the memory ran
    /// out must not need memory (a failed allocation aborts the program).
    fn say_fmt(&self, msg: std::fmt::Arguments) {
        let mut line = Line::default();
        let _ = std::fmt::Write::write_fmt(&mut line, format_args!("darshan: {msg}"));
        self.stderr(line.ended());
    }
    /// Wall clock (seconds, nanoseconds since the epoch).
    fn realtime(&self) -> (i64, i64);
    fn pid(&self) -> i64;
    fn euid(&self) -> i64;
    fn hostname(&self) -> String;
    /// Why `dir` cannot take a log (it does not exist, is not a
    /// directory, or this user cannot create files in it), in words a
    /// user can act on; None when it can.
    fn dir_unusable(&self, _dir: &str) -> Option<String> {
        None
    }
    /// The mount table's text (/proc/self/mounts); empty if unreadable.
    fn mount_table(&self) -> Vec<u8> {
        Vec::new()
    }
    /// The clock's origin: tick 0 is now (start-up, a forked child).
    fn start_clock(&self) {}
    /// What one read of the wrappers' clock costs, in nanoseconds,
    /// measured on this machine at start-up (the runtime's cost estimate
    /// starts from it, cost.rs).
    fn clock_read_ns(&self) -> f64 {
        0.0
    }
    /// Seconds per clock tick: `provisional`, as well as it is known now
    /// (calibrated again at shutdown), or calibrated now.
    fn secs_per_tick(&self, _provisional: bool) -> f64 {
        1e-9
    }
    /// Recording starts in this process with ticks of `secs_per_tick`
    /// (start-up, a forked child): the platform's own caches start.
    fn recording_starts(&self, _secs_per_tick: f64) {}
    /// Start-up, just before the modules register (STDIO's standard
    /// streams are known).
    fn before_modules(&self) {}
    /// Start-up, after the modules registered, on every rank (BG/Q's job
    /// record).
    fn after_modules(&self, _rank: i64) {}
    /// The random part of crash-safe file names: a hash of the host name
    /// and the time.
    fn new_logmod(&self) -> u64 {
        0
    }
    /// Clock ticks per second as well as they are known now (heat-map
    /// bins are the power of two of ticks nearest 0.1 s at this rate).
    fn ticks_per_sec_now(&self) -> f64 {
        1e9
    }
    /// The calling thread's id (pthread_self), for DXT segments.
    fn thread_id(&self) -> u64 {
        0
    }
    /// The runtime's own I/O follows (making the crash-safe file, growing
    /// it): the wrappers it passes through must not count it as calls they
    /// missed. Returns what [`Platform::own_io_end`] restores.
    fn own_io_begin(&self) -> i32 {
        0
    }
    fn own_io_end(&self, _saved: i32) {}
    /// An unnamed file in `dir` (O_TMPFILE, `mode`: the log's final one,
    /// whatever the umask; nobody else can open it before it has a name)
    /// that will become
    /// the log without its ever having another name: opened before the
    /// log's last region is made, so that the runtime's stated shutdown
    /// cost includes making the file. None where the file system cannot
    /// do it: the caller then writes a named temporary file and renames
    /// it.
    fn open_unnamed(&self, _dir: &str, _mode: u32) -> Option<Box<dyn UnnamedLog>> {
        None
    }
}

/// A log file not yet in any directory ([`Platform::open_unnamed`]).
/// Dropped unpublished, it is gone with its descriptor.
pub trait UnnamedLog {
    /// Write `bytes` (and sync them with `durable`), then give the file
    /// its name `to` (linkat): no other user can rename or replace a
    /// half-written log, whatever the directory's permissions. Ok(false)
    /// where the name cannot be given this way (the caller falls back as
    /// for [`Platform::open_unnamed`]); an error if `to` exists or a write
    /// failed.
    fn publish(self: Box<Self>, bytes: &[u8], durable: bool, to: &str) -> std::io::Result<bool>;
}

/// A platform for unit tests and tools: fixed answers, stderr collected.
#[derive(Default)]
pub struct FakePlatform {
    pub messages: std::sync::Mutex<Vec<String>>,
    /// How many times statfs was asked.
    pub statfs_calls: std::sync::atomic::AtomicUsize,
}

impl Platform for FakePlatform {
    fn statfs(&self, _path: &std::ffi::CStr) -> Option<(i64, i64)> {
        self.statfs_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some((4096, 0xEF53))
    }
    fn stderr(&self, msg: &[u8]) {
        if let Ok(mut m) = self.messages.lock() {
            m.push(String::from_utf8_lossy(msg).into_owned());
        }
    }
    fn realtime(&self) -> (i64, i64) {
        (1_795_304_959, 0)
    }
    fn pid(&self) -> i64 {
        4242
    }
    fn euid(&self) -> i64 {
        0
    }
    fn hostname(&self) -> String {
        "testhost".into()
    }
}
