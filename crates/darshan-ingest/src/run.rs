//! The ingest pipeline, in phases: find (walk the trees, drop files seen
//! unchanged), read (workers hash and extract logs in parallel), write
//! (one thread owns the database). Workers talk to the writer through a
//! bounded channel of record chunks, so memory stays bounded whatever the
//! logs' sizes; the writer commits every few seconds.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::extract::{self, Begin, End, Row, Sink, Status, TableIndex};
use crate::store::Store;

pub struct Options {
    pub jobs: usize,
    pub progress: bool,
    /// Seconds between commits (default: `store::COMMIT_EVERY`).
    pub commit_every: Option<f64>,
}

/// What a run did (printed as JSON with `--json`).
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub database: String,
    pub files_found: usize,
    /// Paths ingested before with the same size and mtime: not read.
    pub unchanged: usize,
    /// Files whose content is already in the database under another path.
    pub duplicates: usize,
    pub ingested: usize,
    pub partial: usize,
    pub failed: usize,
    pub errors: Vec<LogError>,
    pub rows: HashMap<String, u64>,
    pub seconds: f64,
    pub logs_per_second: f64,
}

#[derive(Debug, Serialize)]
pub struct LogError {
    pub path: String,
    pub status: Status,
    pub error: String,
}

enum Msg {
    Begin {
        token: usize,
        file: FileInfo,
        key: String,
        job: Row,
    },
    Rows {
        token: usize,
        table: usize,
        rows: Vec<Row>,
    },
    End {
        token: usize,
        end: End,
    },
    /// Could not be opened as a log: recorded with its error.
    Failed {
        file: FileInfo,
        key: String,
        error: String,
    },
    Duplicate {
        file: FileInfo,
        key: String,
    },
    /// The file could not even be read (vanished, unreadable).
    Unreadable {
        file: FileInfo,
        error: String,
    },
}

#[derive(Clone)]
struct FileInfo {
    path: String,
    size: i64,
    mtime_ns: i64,
}

/// Phase 1: every log file under `roots`, sorted. Darshan's `YYYY/M/D`
/// layout or any other; `.darshan_partial` files are logs still being
/// written and are left for a later run. Symbolic links to directories are
/// not followed (no cycles).
pub fn find_logs(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(p) = stack.pop() {
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) => {
                problems.push(format!("{}: {e}", p.display()));
                continue;
            }
        };
        if meta.is_dir() {
            match std::fs::read_dir(&p) {
                Ok(rd) => stack.extend(rd.filter_map(|e| e.ok()).map(|e| e.path())),
                Err(e) => problems.push(format!("{}: {e}", p.display())),
            }
        } else if roots.contains(&p) || p.extension().is_some_and(|e| e == "darshan") {
            out.push(p);
        }
    }
    out.sort();
    (out, problems)
}

fn file_info(p: &Path) -> std::io::Result<FileInfo> {
    let m = std::fs::metadata(p)?;
    Ok(FileInfo {
        path: p.to_string_lossy().into_owned(),
        size: m.len() as i64,
        mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
    })
}

/// The content key: BLAKE3 of the file's bytes (128 bits, hex).
pub fn content_key(p: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(p)?;
    let mut h = blake3::Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().to_hex()[..32].to_string())
}

struct ChannelSink<'a> {
    tx: &'a SyncSender<Msg>,
    token: usize,
    file: FileInfo,
    key: String,
}

impl Sink for ChannelSink<'_> {
    fn begin(&mut self, b: Begin) {
        let _ =
            self.tx.send(Msg::Begin { token: self.token, file: self.file.clone(), key: self.key.clone(), job: b.job });
    }
    fn rows(&mut self, table: usize, rows: Vec<Row>) {
        let _ = self.tx.send(Msg::Rows { token: self.token, table, rows });
    }
}

/// Phase 2, one worker: take paths until none are left.
fn worker(queue: Arc<Mutex<Vec<FileInfo>>>, keys: Arc<Mutex<HashSet<String>>>, ix: &TableIndex, tx: SyncSender<Msg>) {
    static TOKENS: AtomicUsize = AtomicUsize::new(0);
    loop {
        let Some(file) = queue.lock().ok().and_then(|mut q| q.pop()) else { return };
        let path = PathBuf::from(&file.path);
        let key = match content_key(&path) {
            Ok(k) => k,
            Err(e) => {
                let _ = tx.send(Msg::Unreadable { file, error: e.to_string() });
                continue;
            }
        };
        let fresh = keys.lock().map(|mut k| k.insert(key.clone())).unwrap_or(false);
        if !fresh {
            let _ = tx.send(Msg::Duplicate { file, key });
            continue;
        }
        let token = TOKENS.fetch_add(1, Ordering::Relaxed);
        let mut sink = ChannelSink { tx: &tx, token, file: file.clone(), key: key.clone() };
        let msg = match extract::extract(&path, ix, &mut sink) {
            Ok(end) => Msg::End { token, end },
            Err(error) => Msg::Failed { file, key, error },
        };
        let _ = tx.send(msg);
    }
}

pub fn ingest(roots: &[PathBuf], store: &mut Store, opts: &Options) -> Result<Summary, String> {
    let t0 = Instant::now();
    let mut sum = Summary::default();
    if let Some(secs) = opts.commit_every {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(format!("--commit-every must be a non-negative number of seconds, not {secs}"));
        }
        store.commit_every = std::time::Duration::from_secs_f64(secs);
    }
    // Phase 1: find.
    let (paths, problems) = find_logs(roots);
    for p in problems {
        sum.errors.push(LogError { path: p.clone(), status: Status::Error, error: "cannot be read".into() });
    }
    sum.files_found = paths.len();
    let seen = store.seen()?;
    let mut todo = Vec::new();
    for p in &paths {
        match file_info(p) {
            Ok(f) if seen.get(&f.path) == Some(&(f.size, f.mtime_ns)) => sum.unchanged += 1,
            Ok(f) => todo.push(f),
            Err(e) => {
                sum.errors.push(LogError { path: p.display().to_string(), status: Status::Error, error: e.to_string() })
            }
        }
    }
    // Workers pop from the end: reverse so logs go in path order.
    todo.reverse();
    let total = todo.len() as u64;
    let bar = progress_bar(total, opts.progress);
    // Phase 2 and 3: read in parallel, write here.
    let keys = Arc::new(Mutex::new(store.known_keys()?));
    let queue = Arc::new(Mutex::new(todo));
    let ix = Arc::new(TableIndex::new(&store.tables));
    let workers = opts.jobs.max(1);
    let (tx, rx) = sync_channel::<Msg>(workers * 4);
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (q, k, ix, tx) = (queue.clone(), keys.clone(), ix.clone(), tx.clone());
            std::thread::spawn(move || worker(q, k, &ix, tx))
        })
        .collect();
    drop(tx);
    let mut open: HashMap<usize, (i64, FileInfo)> = HashMap::new();
    let mut result = Ok(());
    for msg in rx {
        if result.is_err() {
            continue; // drain, so the workers finish
        }
        result = write_msg(store, &ix, msg, &mut open, &mut sum, &bar);
        if result.is_ok() {
            result = store.commit_if_due();
        }
    }
    for h in handles {
        let _ = h.join();
    }
    result?;
    store.commit()?;
    bar.finish_and_clear();
    sum.seconds = t0.elapsed().as_secs_f64();
    let read = (sum.ingested + sum.failed) as f64;
    sum.logs_per_second = if sum.seconds > 0.0 { read / sum.seconds } else { 0.0 };
    for (t, n) in store.tables.iter().zip(&store.rows_written) {
        if *n > 0 {
            sum.rows.insert(t.name.clone(), *n);
        }
    }
    Ok(sum)
}

fn write_msg(
    store: &mut Store,
    ix: &TableIndex,
    msg: Msg,
    open: &mut HashMap<usize, (i64, FileInfo)>,
    sum: &mut Summary,
    bar: &ProgressBar,
) -> Result<(), String> {
    match msg {
        Msg::Begin { token, file, key, job } => {
            let id = store.begin_log(&key, &file.path, file.size)?;
            store.insert(id, ix.jobs, &[job])?;
            open.insert(token, (id, file));
        }
        Msg::Rows { token, table, rows } => {
            if let Some((id, _)) = open.get(&token) {
                store.insert(*id, table, &rows)?;
            }
        }
        Msg::End { token, end } => {
            let Some((id, file)) = open.remove(&token) else { return Ok(()) };
            store.insert(id, ix.modules, &end.modules)?;
            for (t, row) in &end.totals {
                store.insert(id, *t, std::slice::from_ref(row))?;
            }
            store.end_log(id, end.status, end.error.as_deref())?;
            store.mark_seen(&file.path, file.size, file.mtime_ns, Some(id))?;
            sum.ingested += 1;
            if end.status == Status::Partial {
                sum.partial += 1;
                sum.errors.push(LogError {
                    path: file.path,
                    status: end.status,
                    error: end.error.unwrap_or_else(|| "incomplete: the runtime marked a module partial".into()),
                });
            }
            bar.inc(1);
        }
        Msg::Failed { file, key, error } => {
            let id = store.begin_log(&key, &file.path, file.size)?;
            store.end_log(id, Status::Error, Some(&error))?;
            store.mark_seen(&file.path, file.size, file.mtime_ns, Some(id))?;
            sum.failed += 1;
            sum.errors.push(LogError { path: file.path, status: Status::Error, error });
            bar.inc(1);
        }
        Msg::Duplicate { file, key } => {
            let id = store.log_of_key(&key);
            // Same content as a log of this run still being written: it is
            // recorded once that one ends; remember the path either way.
            store.mark_seen(&file.path, file.size, file.mtime_ns, id)?;
            sum.duplicates += 1;
            bar.inc(1);
        }
        Msg::Unreadable { file, error } => {
            sum.errors.push(LogError { path: file.path, status: Status::Error, error });
            bar.inc(1);
        }
    }
    Ok(())
}

fn progress_bar(total: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} logs  {per_sec}  {eta} left  {elapsed} spent")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
