//! One consistent copy of a running process's crash-safe file.
//!
//! Read: the header, the sequence words, the used bytes of the name table
//! and of every module's records, the sequence words and the header again.
//! A module's records are taken when its word read the same even value
//! both times and its region did not grow meanwhile (no writer held its
//! lock in between: its records are whole). A module without a word of
//! its own (HEATMAP, whose bins move under their source module's lock) is
//! taken when no word of the file moved across its copy and two copies
//! of its bytes are equal. A module that stays busy over the retries
//! keeps the previous snapshot's records (it is listed in `stale`): never
//! a torn record.
//!
//! A module whose word and region are what the previous snapshot took
//! them at has not been updated since (every update takes its lock, and
//! each lock moves the word): its records are the previous snapshot's,
//! shared, not copied again. An idle process costs a reader one read of
//! the file's first 5.6 KB; a busy one, a copy of the modules that moved.
//! A reader that sums a few modules takes only theirs ([`take_of`]).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use darshan_log::crash_safe::{EXT_MAP_OFF, LIVE_OFF, NAMES_OFF};
use darshan_log::header::{Header, RegionMap, HEADER_SIZE};
use darshan_log::modules::MAX_MODS;
use darshan_log::{Job, LogFile, Record};

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a crash-safe Darshan file: {source}", path.display())]
    Log { path: PathBuf, source: darshan_log::LogError },
    #[error("{}: not a regular file, or a link another user owns", path.display())]
    NotAFile { path: PathBuf },
    #[error("{}: says it is uid {says}'s, but uid {owner} owns it: refused", path.display())]
    ForeignUid { path: PathBuf, says: i64, owner: u32 },
    #[error("{}: claims {bytes} bytes of records at offset {off} that it does not hold (a hole): refused", path.display())]
    Sparse { path: PathBuf, off: u64, bytes: u64 },
    #[error("{}: its records take {bytes} bytes, more than the {MAX_FILE_BYTES} a snapshot reads", path.display())]
    TooLarge { path: PathBuf, bytes: u64 },
}

/// The most a snapshot reads of one file. A root daemon reads every
/// user's files: a file claiming terabytes of records (a sparse file
/// costs its maker nothing) must not make it allocate them. A process
/// with more than 256 MiB of records (64 times the runtime's default
/// room per module) is not watched live; its log is not affected.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Opens a crash-safe file to read as every tool opens a log
/// (darshan_log::safe_fs): never through a link another user owns, never
/// waiting (a FIFO put in its place between listing and opening), only a
/// regular file. Its owner, from the kernel, comes with it.
fn open(path: &Path) -> Result<(File, u64, u32), LiveError> {
    match darshan_log::safe_fs::open_input(path) {
        Ok(i) => Ok((i.file, i.size, i.uid)),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Err(LiveError::NotAFile { path: path.to_path_buf() }),
        Err(e) => Err(LiveError::Io { path: path.to_path_buf(), source: e }),
    }
}

/// Tries per snapshot for a module whose lock was held while it was read.
const TRIES: usize = 25;

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub path: PathBuf,
    /// Who owns the file (the kernel's word, not the file's): its
    /// process is reported under this uid.
    pub owner: u32,
    /// When it was read (seconds since the epoch).
    pub at: f64,
    pub job: Job,
    /// Each module's records (times in seconds); shared with the
    /// previous snapshot for a module that did not move.
    pub modules: BTreeMap<usize, Arc<Vec<Record>>>,
    /// Names of the records' ids (shared while the name table is unchanged).
    pub names: Arc<HashMap<u64, String>>,
    /// Modules whose records were busy at every try: the previous
    /// snapshot's are kept for them.
    pub stale: Vec<usize>,
    /// Modules copied from the file this time (the others' records are
    /// the previous snapshot's, or stale).
    pub copied: Vec<usize>,
    /// Re-reads it took.
    pub retries: usize,
    /// Per module: the sequence word and region its records were taken
    /// at (zero and empty for a module not taken).
    words: [u64; MAX_MODS],
    maps: [RegionMap; MAX_MODS],
    /// HEATMAP, when it was copied with every word quiet: those words.
    quiet: BTreeMap<usize, [u64; MAX_MODS]>,
    /// The job area as read (to its last byte not zero, the words left out).
    job_area: Arc<[u8]>,
    name_map: RegionMap,
}

impl Snapshot {
    /// The bytes of the records and names this snapshot holds, as the
    /// file had them.
    pub fn bytes(&self) -> u64 {
        self.maps.iter().chain([&self.name_map]).map(|m| m.len).sum()
    }

    /// Whether the names and every module's records are the previous
    /// snapshot's (nothing was copied, nothing is stale).
    pub fn same_as_before(&self) -> bool {
        self.copied.is_empty() && self.stale.is_empty()
    }
}

fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

struct Reader<'a> {
    file: File,
    path: &'a Path,
    size: u64,
    /// Bytes of regions this snapshot may still read.
    budget: std::cell::Cell<u64>,
}

/// Whether `len` bytes at `off` of `file` are all held by the file
/// system: a crash-safe file's used regions are written (the runtime
/// gives them storage before it records), so a hole there is a file
/// claiming records it does not hold, which would cost the reader
/// memory and its maker nothing. Where the file system cannot say
/// (no SEEK_HOLE), the file's end is the only hole and this holds.
fn held(file: &File, off: u64, len: u64) -> bool {
    match rustix::fs::seek(file, rustix::fs::SeekFrom::Hole(off)) {
        Ok(hole) => hole >= off.saturating_add(len),
        Err(_) => true,
    }
}

impl Reader<'_> {
    fn err(&self, e: std::io::Error) -> LiveError {
        LiveError::Io { path: self.path.to_path_buf(), source: e }
    }

    fn bytes(&self, off: u64, len: usize) -> Result<Vec<u8>, LiveError> {
        let mut b = vec![0u8; len];
        self.file.read_exact_at(&mut b, off).map_err(|e| self.err(e))?;
        Ok(b)
    }

    /// The header, the job area and the sequence words at its end, in
    /// one read (an idle process costs a reader two of them).
    fn head(&self) -> Result<(Header, [u64; MAX_MODS], Vec<u8>), LiveError> {
        let b = self.bytes(0, NAMES_OFF)?;
        let mut h = Header::parse(&b[..HEADER_SIZE], self.size).map_err(|e| bad(self.path, e))?;
        // POSIX_META and any module Darshan does not know: named by the
        // extension map before the words, not by the header.
        darshan_log::crash_safe::apply_ext_map(&mut h, &b[EXT_MAP_OFF..LIVE_OFF], self.size)
            .map_err(|e| bad(self.path, e))?;
        let w = &b[LIVE_OFF..LIVE_OFF + 8 * MAX_MODS];
        let words = std::array::from_fn(|k| u64::from_le_bytes(w[8 * k..8 * k + 8].try_into().unwrap_or([0; 8])));
        Ok((h, words, b))
    }

    fn region(&self, m: RegionMap) -> Result<Vec<u8>, LiveError> {
        // A region never reaches past the file (the header was checked
        // against its size), and all a snapshot reads of regions stays
        // within MAX_FILE_BYTES (the file may say anything, and change
        // between readings).
        let left = self.budget.get();
        if m.len > left {
            return Err(LiveError::TooLarge { path: self.path.to_path_buf(), bytes: m.len });
        }
        if !held(&self.file, m.off, m.len) {
            return Err(LiveError::Sparse { path: self.path.to_path_buf(), off: m.off, bytes: m.len });
        }
        self.budget.set(left - m.len);
        self.bytes(m.off, m.len as usize)
    }
}

/// The job area of a file's first bytes, to its last byte that is not
/// zero (the extension map and the sequence words at its end left out).
fn job_area(head: &[u8]) -> &[u8] {
    let area = &head[HEADER_SIZE.min(head.len())..EXT_MAP_OFF.min(head.len())];
    let end = area.iter().rposition(|&b| b != 0).map_or(0, |k| k + 1);
    &area[..end]
}

fn module_regions(h: &Header) -> Vec<(usize, RegionMap)> {
    (0..MAX_MODS).filter(|&m| h.mod_map[m].len > 0).map(|m| (m, h.mod_map[m])).collect()
}

/// Whether module `m` (region `map`, the file's words `now`) is as
/// `prev` took it: its own word has not moved, or, for a module without
/// a word of its own (HEATMAP: its bins move under their source module's
/// lock), no word of the file has moved since it was copied.
fn unmoved(prev: Option<&Snapshot>, m: usize, map: RegionMap, now: &[u64; MAX_MODS]) -> bool {
    let Some(p) = prev else { return false };
    let word = now[m];
    let same = if word == 0 { p.quiet.get(&m) == Some(now) } else { word.is_multiple_of(2) && p.words[m] == word };
    same && p.maps[m] == map && p.modules.contains_key(&m)
}

/// Every word even and none moved between two readings: no module's lock
/// was held meanwhile.
fn quiet(s1: &[u64; MAX_MODS], s2: &[u64; MAX_MODS]) -> bool {
    s1 == s2 && s1.iter().all(|w| w % 2 == 0)
}

/// What the copy loop took.
struct Copies {
    /// Per module: its region, the word it was taken at, and its bytes
    /// once read whole (None: unmoved since the previous snapshot).
    taken: BTreeMap<usize, (RegionMap, u64, Option<Vec<u8>>)>,
    /// For a module without a word, the file's words it was copied under.
    quiet_at: BTreeMap<usize, [u64; MAX_MODS]>,
    /// The modules still busy after the last try.
    busy: Vec<usize>,
    retries: usize,
    /// The header and first bytes of the reading that closed the last try.
    header: Header,
    head: Vec<u8>,
}

/// A consistent copy of the crash-safe file at `path`; `previous`: the
/// last snapshot of the same file (its records stand in for a busy
/// module's, and are shared for one that did not move).
pub fn take(path: &Path, previous: Option<&Snapshot>) -> Result<Snapshot, LiveError> {
    take_of(path, previous, &|_| true)
}

/// As [`take`], the records of the `wanted` modules only: the others'
/// regions are never read (a live view sums a few modules; a process's
/// DXT traces, megabytes that move with every call, were copied and
/// decoded at every interval for nothing).
pub fn take_of(
    path: &Path,
    previous: Option<&Snapshot>,
    wanted: &dyn Fn(usize) -> bool,
) -> Result<Snapshot, LiveError> {
    let (file, size, owner) = open(path)?;
    // A module without a word is read twice (two equal copies), and a
    // busy one again at a retry: twice the limit in all, then the
    // snapshot gives up (the file is skipped this interval).
    let r = Reader { file, path, size, budget: std::cell::Cell::new(2 * MAX_FILE_BYTES) };
    let at = now();
    let (header, s1, head) = r.head()?;
    let regions = |h: &Header| module_regions(h).into_iter().filter(|(m, _)| wanted(*m)).collect::<Vec<_>>();
    let claimed =
        regions(&header).iter().map(|(_, m)| m).chain([&header.name_map]).fold(0u64, |a, m| a.saturating_add(m.len));
    if claimed > MAX_FILE_BYTES {
        return Err(LiveError::TooLarge { path: path.to_path_buf(), bytes: claimed });
    }
    // Records are decoded with the job area's metadata (`ticks=` while
    // they hold clock ticks; at the end the runtime turns them into
    // seconds under each module's lock, then drops the line): when the
    // job area changed, nothing of the previous snapshot is kept.
    let previous = previous.filter(|p| *p.job_area == *job_area(&head));
    // Nothing moved since the previous snapshot: it is the snapshot now.
    if let Some(p) = previous.filter(|p| nothing_moved(p, &header, &s1, owner, wanted)) {
        return Ok(Snapshot { at, copied: Vec::new(), retries: 0, ..p.clone() });
    }
    let mut copies = copy_modules(&r, previous, (header, s1, head), &regions)?;
    let names_same = previous.is_some_and(|p| p.name_map == copies.header.name_map);
    let job_area: Arc<[u8]> = job_area(&copies.head).into();
    let log = compact_log(&r, std::mem::take(&mut copies.head), &copies, names_same)?;
    // A file is its owner's: one that says it is another user's (a copy
    // with its uid patched) would publish its figures under that user.
    if log.job.uid != i64::from(owner) {
        return Err(LiveError::ForeignUid { path: path.to_path_buf(), says: log.job.uid, owner });
    }
    let names = names_of(&log, previous.filter(|_| names_same), path)?;
    let snap = Snapshot {
        path: path.to_path_buf(),
        owner,
        at,
        job: log.job.clone(),
        modules: BTreeMap::new(),
        names,
        stale: Vec::new(),
        copied: Vec::new(),
        retries: copies.retries,
        words: [0; MAX_MODS],
        maps: [RegionMap::default(); MAX_MODS],
        quiet: BTreeMap::new(),
        job_area,
        name_map: copies.header.name_map,
    };
    with_records(snap, &log, previous, copies)
}

/// The names of the copy `log`, or `unchanged`'s when its name table is
/// the one the copy holds.
fn names_of(
    log: &LogFile<Vec<u8>>,
    unchanged: Option<&Snapshot>,
    path: &Path,
) -> Result<Arc<HashMap<u64, String>>, LiveError> {
    if let Some(p) = unchanged {
        return Ok(p.names.clone());
    }
    let table = log.names().map_err(|e| bad(path, e))?;
    Ok(Arc::new(table.iter().map(|(id, n)| (id, String::from_utf8_lossy(n).into_owned())).collect()))
}

fn bad(path: &Path, source: darshan_log::LogError) -> LiveError {
    LiveError::Log { path: path.to_path_buf(), source }
}

/// Whether nothing moved since `p` was taken (every module's word and
/// region, the names, the owner). One reading is enough: records unmoved
/// at this reading are the ones copied before.
fn nothing_moved(
    p: &Snapshot,
    header: &Header,
    s1: &[u64; MAX_MODS],
    owner: u32,
    wanted: &dyn Fn(usize) -> bool,
) -> bool {
    let all_unmoved = (0..MAX_MODS).filter(|&m| wanted(m)).all(|m| match header.mod_map[m] {
        map if map.len == 0 => !p.modules.contains_key(&m),
        map => unmoved(Some(p), m, map, s1),
    });
    all_unmoved && p.stale.is_empty() && p.name_map == header.name_map && p.owner == owner
}

/// Copies the modules' regions (`regions` of a header: the wanted ones)
/// between two readings of the words, until each was taken unmoved or the
/// tries run out; `first`: the reading before the first try (a retry reads
/// afresh, after its back-off).
fn copy_modules(
    r: &Reader,
    previous: Option<&Snapshot>,
    first: (Header, [u64; MAX_MODS], Vec<u8>),
    regions: &dyn Fn(&Header) -> Vec<(usize, RegionMap)>,
) -> Result<Copies, LiveError> {
    let (header, mut s1, head) = first;
    let mut c =
        Copies { taken: BTreeMap::new(), quiet_at: BTreeMap::new(), busy: Vec::new(), retries: 0, header, head };
    for attempt in 0..TRIES {
        if attempt > 0 {
            (c.header, s1, _) = r.head()?;
        }
        let want: Vec<(usize, RegionMap)> =
            regions(&c.header).into_iter().filter(|(m, _)| !c.taken.contains_key(m)).collect();
        let mut copies = Vec::with_capacity(want.len());
        for &(m, map) in &want {
            let bytes = if unmoved(previous, m, map, &s1) { None } else { Some(r.region(map)?) };
            copies.push((m, map, bytes));
        }
        let (h2, s2, head2) = r.head()?;
        c.busy.clear();
        for (m, map, bytes) in copies {
            let stable = s1[m] == s2[m] && s1[m] % 2 == 0 && h2.mod_map[m] == map;
            let ok = match &bytes {
                // Without a word of its own: copied while no lock of the
                // file was held (its writers hold other modules' locks),
                // and two copies equal.
                Some(b) if stable && s1[m] == 0 => quiet(&s1, &s2) && r.region(map)? == *b,
                _ => stable,
            };
            if !ok {
                c.busy.push(m);
                continue;
            }
            if s1[m] == 0 {
                c.quiet_at.insert(m, s1);
            }
            c.taken.insert(m, (map, s1[m], bytes));
        }
        (c.header, c.head) = (h2, head2);
        if c.busy.is_empty() {
            break;
        }
        c.retries = attempt + 1;
        // At once a few times (an update holds the lock for well under a
        // microsecond), then backing off.
        if attempt >= 4 {
            std::thread::sleep(std::time::Duration::from_micros(100 << (attempt - 4).min(5)));
        }
    }
    Ok(c)
}

/// The copied parts as a compact log: `head` (header and job area), the
/// names unless unchanged, the modules copied one after another (a
/// crash-safe file is mostly room to grow: its regions sit megabytes
/// apart).
fn compact_log(r: &Reader, head: Vec<u8>, c: &Copies, names_same: bool) -> Result<LogFile<Vec<u8>>, LiveError> {
    let mut image = head;
    let mut h = c.header.clone();
    h.name_map = if names_same || c.header.name_map.len == 0 {
        RegionMap::default()
    } else {
        let names = r.region(c.header.name_map)?;
        let m = RegionMap { off: image.len() as u64, len: names.len() as u64 };
        image.extend_from_slice(&names);
        m
    };
    for m in 0..MAX_MODS {
        h.mod_map[m] = match c.taken.get(&m) {
            Some((_, _, Some(bytes))) => {
                let map = RegionMap { off: image.len() as u64, len: bytes.len() as u64 };
                image.extend_from_slice(bytes);
                map
            }
            _ => RegionMap::default(),
        };
    }
    // The copy's header maps every module, those of the extension map too.
    image.get_mut(EXT_MAP_OFF..LIVE_OFF).into_iter().for_each(|b| b.fill(0));
    let hb = h.encode_crash_safe();
    let n = HEADER_SIZE.min(image.len());
    image[..n].copy_from_slice(&hb[..n]);
    LogFile::from_source(image).map_err(|e| bad(r.path, e))
}

/// `snap` with every module's records: decoded from the copy, or the
/// previous snapshot's for a module that did not move, and for one that
/// stayed busy (marked stale).
fn with_records(
    mut snap: Snapshot,
    log: &LogFile<Vec<u8>>,
    previous: Option<&Snapshot>,
    c: Copies,
) -> Result<Snapshot, LiveError> {
    for (&m, (map, word, bytes)) in &c.taken {
        let recs = match (bytes, previous.and_then(|p| p.modules.get(&m))) {
            (None, Some(prev)) => prev.clone(),
            _ => {
                snap.copied.push(m);
                Arc::new(log.records(m).map_err(|e| bad(&snap.path, e))?)
            }
        };
        snap.modules.insert(m, recs);
        snap.words[m] = *word;
        snap.maps[m] = *map;
    }
    snap.quiet = c.quiet_at;
    for m in c.busy {
        snap.stale.push(m);
        if let Some(prev) = previous.and_then(|p| p.modules.get(&m)) {
            snap.modules.insert(m, prev.clone());
        }
    }
    Ok(snap)
}
