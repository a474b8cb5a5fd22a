//! One consistent copy of a running process's crash-safe file.
//!
//! Read: the header, the sequence words, the used bytes of the name table
//! and of every module's records, the sequence words and the header again.
//! A module's records are taken when its word read the same even value
//! both times and its region did not grow meanwhile (no writer held its
//! lock in between: its records are whole); a module never locked since
//! it was published (word 0) is taken when two copies of its bytes are
//! equal. A module that stays busy over the retries keeps the previous
//! snapshot's records (it is listed in `stale`): never a torn record.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use darshan_log::crash_safe::{LIVE_OFF, NAMES_OFF};
use darshan_log::header::{Header, RegionMap, HEADER_SIZE};
use darshan_log::modules::MAX_MODS;
use darshan_log::{Job, LogFile, Record};

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a crash-safe Darshan file: {source}", path.display())]
    Log { path: PathBuf, source: darshan_log::LogError },
}

/// Tries per snapshot for a module whose lock was held while it was read.
const TRIES: usize = 25;

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub path: PathBuf,
    /// When it was read (seconds since the epoch).
    pub at: f64,
    pub job: Job,
    /// Each module's records (times in seconds).
    pub modules: BTreeMap<usize, Vec<Record>>,
    /// Names of the records' ids.
    pub names: HashMap<u64, String>,
    /// Modules whose records were busy at every try: the previous
    /// snapshot's are kept for them.
    pub stale: Vec<usize>,
    /// Re-reads it took.
    pub retries: usize,
}

fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

struct Reader<'a> {
    file: File,
    path: &'a Path,
    size: u64,
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

    fn header(&self) -> Result<Header, LiveError> {
        let b = self.bytes(0, HEADER_SIZE)?;
        Header::parse(&b, self.size).map_err(|e| LiveError::Log { path: self.path.to_path_buf(), source: e })
    }

    fn words(&self) -> Result<[u64; MAX_MODS], LiveError> {
        let b = self.bytes(LIVE_OFF as u64, 8 * MAX_MODS)?;
        Ok(std::array::from_fn(|k| u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]))))
    }

    fn region(&self, m: RegionMap) -> Result<Vec<u8>, LiveError> {
        // A region never reaches past the file (the header was checked
        // against its size), so its length is bounded by the file's.
        self.bytes(m.off, m.len as usize)
    }
}

fn module_regions(h: &Header) -> Vec<(usize, RegionMap)> {
    (0..MAX_MODS).filter(|&m| h.mod_map[m].len > 0).map(|m| (m, h.mod_map[m])).collect()
}

/// A consistent copy of the crash-safe file at `path`; `previous`: the
/// last snapshot of the same file (its records stand in for a busy
/// module's).
pub fn take(path: &Path, previous: Option<&Snapshot>) -> Result<Snapshot, LiveError> {
    let file = File::open(path).map_err(|e| LiveError::Io { path: path.to_path_buf(), source: e })?;
    let size = file.metadata().map_err(|e| LiveError::Io { path: path.to_path_buf(), source: e })?.len();
    let r = Reader { file, path, size };
    let at = now();
    let mut retries = 0;
    // Per module: its region's bytes once read whole, and where they go.
    let mut taken: BTreeMap<usize, (RegionMap, Vec<u8>)> = BTreeMap::new();
    let mut busy: Vec<usize> = Vec::new();
    let mut header = r.header()?;
    for attempt in 0..TRIES {
        let h1 = r.header()?;
        let s1 = r.words()?;
        let want: Vec<(usize, RegionMap)> =
            module_regions(&h1).into_iter().filter(|(m, _)| !taken.contains_key(m)).collect();
        let mut copies = Vec::with_capacity(want.len());
        for &(m, map) in &want {
            copies.push((m, map, r.region(map)?));
        }
        let s2 = r.words()?;
        let h2 = r.header()?;
        busy.clear();
        for (m, map, bytes) in copies {
            let stable = s1[m] == s2[m] && s1[m] % 2 == 0 && h2.mod_map[m] == map;
            let ok = if stable && s1[m] == 0 {
                // Never locked since it was published (or a module that
                // publishes nothing): two equal copies.
                r.region(map)? == bytes
            } else {
                stable
            };
            if ok {
                taken.insert(m, (map, bytes));
            } else {
                busy.push(m);
            }
        }
        header = h2;
        if busy.is_empty() {
            break;
        }
        retries = attempt + 1;
        // At once a few times (an update holds the lock for well under a
        // microsecond), then backing off.
        if attempt >= 4 {
            std::thread::sleep(std::time::Duration::from_micros(100 << (attempt - 4).min(5)));
        }
    }
    // The file as a log: header, job area, names, the modules taken (the
    // busy ones left out), zeros elsewhere.
    let names_end = (header.name_map.off + header.name_map.len) as usize;
    let end = taken.values().map(|(m, _)| (m.off + m.len) as usize).chain([names_end, NAMES_OFF]).max().unwrap_or(0);
    let mut image = vec![0u8; end.min(size as usize)];
    let head = r.bytes(0, NAMES_OFF.min(image.len()))?;
    image[..head.len()].copy_from_slice(&head);
    if header.name_map.len > 0 && names_end <= image.len() {
        let names = r.region(header.name_map)?;
        image[header.name_map.off as usize..names_end].copy_from_slice(&names);
    }
    // The header as read last, with the busy modules' regions emptied.
    let mut h = header.clone();
    for m in 0..MAX_MODS {
        if !taken.contains_key(&m) {
            h.mod_map[m] = RegionMap::default();
        } else {
            h.mod_map[m] = taken[&m].0;
        }
    }
    let mut hb = h.encode();
    // encode() writes a compressed log's header: keep the file's own
    // compression byte and the map of every id (the crash-safe header
    // maps ids past 17 too).
    hb[16] = head.get(16).copied().unwrap_or(2);
    hb[24..32].copy_from_slice(&h.partial_flag.to_le_bytes());
    for (m, map) in h.mod_map.iter().enumerate() {
        hb[48 + 16 * m..56 + 16 * m].copy_from_slice(&map.off.to_le_bytes());
        hb[56 + 16 * m..64 + 16 * m].copy_from_slice(&map.len.to_le_bytes());
        hb[1072 + 4 * m..1076 + 4 * m].copy_from_slice(&h.mod_ver[m].to_le_bytes());
    }
    image[..HEADER_SIZE].copy_from_slice(&hb);
    for (map, bytes) in taken.values() {
        image[map.off as usize..(map.off + map.len) as usize].copy_from_slice(bytes);
    }
    let bad = |e| LiveError::Log { path: path.to_path_buf(), source: e };
    let log = LogFile::from_source(image).map_err(bad)?;
    let table = log.names().map_err(bad)?;
    let mut modules = BTreeMap::new();
    let mut names = HashMap::new();
    for &m in taken.keys() {
        let recs = log.records(m).map_err(bad)?;
        for rec in &recs {
            if let Some(n) = table.get(rec.id) {
                names.entry(rec.id).or_insert_with(|| String::from_utf8_lossy(n).into_owned());
            }
        }
        modules.insert(m, recs);
    }
    let mut stale = Vec::new();
    for m in busy {
        stale.push(m);
        if let Some(prev) = previous.and_then(|p| p.modules.get(&m)) {
            modules.insert(m, prev.clone());
            for rec in prev {
                if let Some(n) = previous.and_then(|p| p.names.get(&rec.id)) {
                    names.entry(rec.id).or_insert_with(|| n.clone());
                }
            }
        }
    }
    Ok(Snapshot { path: path.to_path_buf(), at, job: log.job, modules, names, stale, retries })
}
