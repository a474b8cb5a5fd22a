//! The ingest pipeline, in phases: find (walk the trees, drop files seen
//! unchanged), read (workers hash and extract logs in parallel), write
//! (one thread owns the database).
//!
//! Each worker sends its logs' rows, in bounded chunks, down a lane of its
//! own, and takes a turn for each log on a shared queue with its first
//! message. The writer takes the turns in order and writes one log at a
//! time, whole, from that worker's lane, while the other workers go on
//! reading into theirs (and wait when their lane is full). So a log's rows
//! are written together and transactions are committed only between logs
//! (`store`), and memory stays bounded whatever the logs' sizes.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::error::IngestError;
use crate::extract::{self, End, Status, TableIndex};
use crate::rows::{Begin, Row, Sink};
use crate::store::Store;

pub struct Options {
    pub jobs: usize,
    pub progress: bool,
    /// Seconds between commits (default: `store::COMMIT_EVERY`).
    pub commit_every: Option<f64>,
    /// Set when the run is asked to stop (SIGTERM, SIGINT): it stops at
    /// the next log, keeps what it committed, and leaves nothing behind.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl Options {
    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }
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
    /// Logs written to the database (complete or partial).
    pub ingested: usize,
    /// Of those, logs the runtime marked incomplete or that could be read
    /// only in part (listed in `partial_logs`).
    pub partial: usize,
    /// Inputs that could not be ingested (listed in `errors`): files that
    /// are not Darshan logs or cannot be read, directories that cannot be
    /// listed.
    pub failed: usize,
    pub errors: Vec<LogProblem>,
    pub partial_logs: Vec<LogProblem>,
    /// Per-process logs of jobs without MPI ingested as their job's log
    /// (one row in `jobs` per job; crate::job_groups).
    pub process_logs_grouped: usize,
    /// Job logs made from such per-process logs during this run.
    pub job_logs_made: usize,
    pub rows: HashMap<String, u64>,
    pub seconds: f64,
    pub logs_per_second: f64,
}

/// A log that could not be ingested, or only in part, and why (the
/// summary's `errors` and `partial_logs`).
#[derive(Debug, Serialize)]
pub struct LogProblem {
    pub path: String,
    pub status: Status,
    pub error: String,
}

/// A worker's messages about one log, in order: `Begin`, `Rows`..., `End`
/// for a log that opened; one of the others alone for the rest.
enum Msg {
    Begin {
        file: FileInfo,
        key: String,
        job: Row,
    },
    Rows {
        table: usize,
        rows: Vec<Row>,
    },
    End {
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
    /// The path as the file system has it (any bytes).
    path: PathBuf,
    size: i64,
    mtime_ns: i64,
}

impl FileInfo {
    /// The path as the `logs` table and messages show it: itself when it
    /// is UTF-8, else with each byte that is not shown as `\xNN`.
    fn shown(&self) -> String {
        shown(&self.path)
    }
}

/// `p` as text: itself when UTF-8, else escaped (never lossy, so two
/// non-UTF-8 names never show alike).
pub fn shown(p: &Path) -> String {
    match p.to_str() {
        Some(s) => s.to_string(),
        None => darshan_util::visible::visible_bytes(p.as_os_str().as_bytes()).into_owned(),
    }
}

/// A path that could not be looked at while walking the trees.
pub struct Problem {
    pub path: String,
    pub error: String,
}

/// Phase 1: every log file under `roots`, sorted. Darshan's `YYYY/M/D`
/// layout or any other; `.darshan_partial` files are logs still being
/// written and are left for a later run. Symbolic links to directories
/// below a root are not followed (no cycles); a root given as a file is
/// taken whatever its name.
pub fn find_logs(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<Problem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for root in roots {
        for entry in walkdir::WalkDir::new(root).follow_links(false) {
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) if e.depth() == 0 || e.path().extension().is_some_and(|x| x == "darshan") => {
                    out.push(e.into_path())
                }
                Ok(_) => {}
                Err(e) => {
                    let path = e.path().unwrap_or(root);
                    let error = e.io_error().map_or_else(|| e.to_string(), |io| io.to_string());
                    problems.push(Problem { path: shown(path), error });
                }
            }
        }
    }
    out.sort();
    (out, problems)
}

fn file_info(p: &Path) -> std::io::Result<FileInfo> {
    // Opened as every tool opens a log (no link another user owns, no
    // FIFO or device: a `*.darshan` link to /dev/zero once spun forever).
    let m = darshan_log::safe_fs::open_input(p)?.file.metadata()?;
    Ok(FileInfo { path: p.to_path_buf(), size: m.len() as i64, mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec() })
}

/// The content key: BLAKE3 of the file's bytes (128 bits, hex), read no
/// further than the size the file had when opened.
pub fn content_key(p: &Path) -> std::io::Result<String> {
    let input = darshan_log::safe_fs::open_input(p)?;
    let mut f = input.file.take(input.size);
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

/// A worker's end of its lane. A send fails only when the writer has
/// stopped; the worker then stops too.
struct ChannelSink<'a> {
    lane: &'a Lane,
    file: FileInfo,
    key: String,
    writer_gone: bool,
}

impl Sink for ChannelSink<'_> {
    fn begin(&mut self, b: Begin) {
        let m = Msg::Begin { file: self.file.clone(), key: self.key.clone(), job: b.job };
        self.writer_gone |= self.lane.first(m).is_err();
    }
    fn rows(&mut self, table: usize, rows: Vec<Row>) {
        if !self.writer_gone {
            self.writer_gone |= self.lane.tx.send(Msg::Rows { table, rows }).is_err();
        }
    }
}

/// A worker's lane and its place in the queue of turns.
struct Lane {
    me: usize,
    turns: Sender<usize>,
    tx: SyncSender<Msg>,
}

struct WriterGone;

impl Lane {
    /// The first message of a log: its turn is taken when its data starts
    /// to flow (not when it is picked up), so the writer does not wait on
    /// a log still being hashed while others are ready.
    fn first(&self, m: Msg) -> Result<(), WriterGone> {
        self.turns.send(self.me).map_err(|_| WriterGone)?;
        self.tx.send(m).map_err(|_| WriterGone)
    }
}

/// Phase 2, one worker: take paths until none are left; each log's
/// messages go down its lane, its turn taken with the first of them.
fn worker(queue: Arc<Mutex<Vec<FileInfo>>>, keys: Arc<Mutex<HashSet<String>>>, ix: &TableIndex, lane: Lane) {
    loop {
        let Some(file) = queue.lock().ok().and_then(|mut q| q.pop()) else { return };
        let path = file.path.clone();
        let key = match content_key(&path) {
            Ok(k) => k,
            Err(e) => {
                if lane.first(Msg::Unreadable { file, error: e.to_string() }).is_err() {
                    return;
                }
                continue;
            }
        };
        let fresh = keys.lock().map(|mut k| k.insert(key.clone())).unwrap_or(false);
        if !fresh {
            if lane.first(Msg::Duplicate { file, key }).is_err() {
                return;
            }
            continue;
        }
        let mut sink = ChannelSink { lane: &lane, file: file.clone(), key: key.clone(), writer_gone: false };
        let sent = match extract::extract(&path, ix, &mut sink) {
            Ok(end) => lane.tx.send(Msg::End { end }).map_err(|_| WriterGone),
            // Nothing was sent for a log that could not be opened.
            Err(error) => lane.first(Msg::Failed { file, key, error: error.to_string() }),
        };
        if sink.writer_gone || sent.is_err() {
            return;
        }
    }
}

pub fn ingest(roots: &[PathBuf], store: &mut Store, opts: &Options) -> Result<Summary, IngestError> {
    let t0 = Instant::now();
    let mut sum = Summary::default();
    if let Some(secs) = opts.commit_every {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(IngestError::CommitEvery(secs));
        }
        store.commit_every = std::time::Duration::from_secs_f64(secs);
    }
    let todo = changed_logs(roots, store, &mut sum)?;
    // Phase 1b: the per-process logs of a job without MPI become one job.
    let jobs_dir = ScratchDir::new("darshan-ingest-jobs").map_err(IngestError::io(&std::env::temp_dir()))?;
    let mut todo = group_jobs(todo, store, &jobs_dir.0, &mut sum, opts)?;
    // Kept only while it holds job logs to read: a run killed later (the
    // drop never comes) leaves nothing behind unless it made some.
    let jobs_dir = (sum.job_logs_made > 0).then_some(jobs_dir);
    // Workers pop from the end: reverse so logs go in path order.
    todo.reverse();
    let bar = progress_bar(todo.len() as u64, opts.progress);
    let result = read_and_write(todo, store, &mut sum, opts, &bar);
    drop(jobs_dir);
    result?;
    store.commit()?;
    bar.finish_and_clear();
    sum.failed = sum.errors.len();
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

/// Phase 1: the logs under `roots` that the database does not have as
/// they are now (same size and mtime: `unchanged`); what cannot be
/// looked at goes to the summary's errors.
fn changed_logs(roots: &[PathBuf], store: &Store, sum: &mut Summary) -> Result<Vec<FileInfo>, IngestError> {
    let (paths, problems) = find_logs(roots);
    for p in problems {
        sum.errors.push(LogProblem { path: p.path, status: Status::Error, error: p.error });
    }
    sum.files_found = paths.len();
    let seen = store.seen()?;
    let mut todo = Vec::new();
    for p in &paths {
        match file_info(p) {
            Ok(f) if seen.get(f.path.as_os_str().as_bytes()) == Some(&(f.size, f.mtime_ns)) => sum.unchanged += 1,
            Ok(f) => todo.push(f),
            Err(e) => sum.errors.push(LogProblem { path: shown(p), status: Status::Error, error: e.to_string() }),
        }
    }
    Ok(todo)
}

/// Phases 2 and 3: `opts.jobs` workers read the logs in parallel; this
/// thread writes them, in the order the workers take their turns. Every
/// worker has stopped when this returns.
fn read_and_write(
    todo: Vec<FileInfo>,
    store: &mut Store,
    sum: &mut Summary,
    opts: &Options,
    bar: &ProgressBar,
) -> Result<(), IngestError> {
    let keys = Arc::new(Mutex::new(store.known_keys()?));
    let queue = Arc::new(Mutex::new(todo));
    let ix = Arc::new(TableIndex::new(&store.tables));
    let workers = opts.jobs.max(1);
    let (turn_tx, turns) = channel::<usize>();
    let mut lanes = Vec::with_capacity(workers);
    let handles: Vec<_> = (0..workers)
        .map(|me| {
            let (tx, lane_rx) = sync_channel::<Msg>(4);
            lanes.push(lane_rx);
            let lane = Lane { me, turns: turn_tx.clone(), tx };
            let (q, k, ix) = (queue.clone(), keys.clone(), ix.clone());
            std::thread::spawn(move || worker(q, k, &ix, lane))
        })
        .collect();
    drop(turn_tx);
    let mut w = Writer { store, ix: &ix, sum, bar, waiting: HashMap::new() };
    let mut result = Ok(());
    for me in turns.iter() {
        result = w.one_log(&lanes[me]).and_then(|_| w.store.commit_if_due());
        if result.is_ok() && opts.stopped() {
            result = Err(IngestError::Interrupted);
        }
        if result.is_err() {
            break;
        }
    }
    // On an error the lanes close here, and each worker stops at its next send.
    drop(lanes);
    drop(turns);
    for h in handles {
        let _ = h.join();
    }
    result
}

/// Phase 1b (crate::job_groups): the logs to read, with the job logs
/// made in `dir` in place of their processes' logs, which are marked seen.
fn group_jobs(
    todo: Vec<FileInfo>,
    store: &mut Store,
    dir: &Path,
    sum: &mut Summary,
    opts: &Options,
) -> Result<Vec<FileInfo>, IngestError> {
    let known = store.job_log_keys()?;
    let info: HashMap<PathBuf, FileInfo> = todo.into_iter().map(|f| (f.path.clone(), f)).collect();
    let g = crate::job_groups::group(info.keys().cloned().collect(), &known, dir);
    if opts.stopped() {
        return Err(IngestError::Interrupted);
    }
    for (key, error) in g.problems {
        sum.errors.push(LogProblem { path: format!("job {key}"), status: Status::Error, error });
    }
    for p in &g.absorbed {
        if let Some(f) = info.get(p) {
            store.mark_seen(&f.path, f.size, f.mtime_ns, None)?;
        }
    }
    sum.process_logs_grouped = g.absorbed.len();
    let mut out = Vec::with_capacity(g.ingest.len());
    for p in g.ingest {
        match info.get(&p) {
            Some(f) => out.push(f.clone()),
            None => {
                sum.job_logs_made += 1;
                out.push(file_info(&p).map_err(IngestError::io(&p))?);
            }
        }
    }
    Ok(out)
}

/// Phase 3: the one thread that writes.
struct Writer<'a> {
    store: &'a mut Store,
    ix: &'a TableIndex,
    sum: &'a mut Summary,
    bar: &'a ProgressBar,
    /// Files with the content of a log another worker is still reading:
    /// marked seen, with that log's id, in the transaction that writes it.
    waiting: HashMap<String, Vec<FileInfo>>,
}

impl Writer<'_> {
    /// Write the next log of one worker's lane, whole.
    fn one_log(&mut self, lane: &Receiver<Msg>) -> Result<(), IngestError> {
        // A closed lane: the worker stopped (it cannot, short of a bug);
        // nothing of its log was written.
        let Ok(first) = lane.recv() else { return Ok(()) };
        self.bar.inc(1);
        match first {
            Msg::Begin { file, key, job } => self.opened_log(lane, file, key, job),
            Msg::Failed { file, key, error } => {
                self.store.begin_log()?;
                let id = self.store.finish_log(&key, &file.shown(), file.size, Status::Error, Some(&error))?;
                self.seen(&file, &key, id)?;
                self.sum.errors.push(LogProblem { path: file.shown(), status: Status::Error, error });
                Ok(())
            }
            Msg::Duplicate { file, key } => {
                self.sum.duplicates += 1;
                match self.store.log_of_key(&key) {
                    Some(id) => self.store.mark_seen(&file.path, file.size, file.mtime_ns, Some(id)),
                    None => {
                        self.waiting.entry(key).or_default().push(file);
                        Ok(())
                    }
                }
            }
            Msg::Unreadable { file, error } => {
                self.sum.errors.push(LogProblem { path: file.shown(), status: Status::Error, error });
                Ok(())
            }
            Msg::Rows { .. } | Msg::End { .. } => Err(IngestError::Internal("a log's rows came before its beginning")),
        }
    }

    fn opened_log(&mut self, lane: &Receiver<Msg>, file: FileInfo, key: String, job: Row) -> Result<(), IngestError> {
        let id = self.store.begin_log()?;
        self.store.insert(id, self.ix.jobs, &[job])?;
        let end = loop {
            match lane.recv() {
                Ok(Msg::Rows { table, rows }) => self.store.insert(id, table, &rows)?,
                Ok(Msg::End { end }) => break end,
                Ok(_) => return Err(IngestError::Internal("a log's messages were interleaved with another's")),
                Err(_) => {
                    self.store.abandon()?;
                    return Err(IngestError::WorkerStopped(file.shown()));
                }
            }
        };
        self.store.insert(id, self.ix.modules, &end.modules)?;
        for (t, row) in &end.totals {
            self.store.insert(id, *t, std::slice::from_ref(row))?;
        }
        self.store.insert(id, self.ix.facts, &end.facts)?;
        self.store.finish_log(&key, &file.shown(), file.size, end.status, end.error.as_deref())?;
        self.seen(&file, &key, id)?;
        self.sum.ingested += 1;
        if end.status == Status::Partial {
            self.sum.partial += 1;
            self.sum.partial_logs.push(LogProblem {
                path: file.shown(),
                status: end.status,
                error: end.error.unwrap_or_else(|| "incomplete: the runtime marked a module partial".into()),
            });
        }
        Ok(())
    }

    /// `file` and every file waiting for the same content are seen.
    fn seen(&mut self, file: &FileInfo, key: &str, id: i64) -> Result<(), IngestError> {
        self.store.mark_seen(&file.path, file.size, file.mtime_ns, Some(id))?;
        for f in self.waiting.remove(key).unwrap_or_default() {
            self.store.mark_seen(&f.path, f.size, f.mtime_ns, Some(id))?;
        }
        Ok(())
    }
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

/// A directory of this run's own under the temporary directory: made new
/// (never one that was already there: another user may have put one, or a
/// link, at a name they could guess), private to the user (0700), and
/// removed when dropped, on every way out of `run`.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new(stem: &str) -> std::io::Result<ScratchDir> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let mut last = None;
        for k in 0..64u32 {
            let p = base.join(format!("{stem}-{}-{k}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&p) {
                Ok(()) => return Ok(ScratchDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod scratch_dir_tests {
    use super::ScratchDir;
    use std::os::unix::fs::PermissionsExt;

    /// The job logs made during an ingest went to
    /// /tmp/darshan-ingest-jobs-<pid>, first removed and then made with
    /// create_dir_all: a directory another user put there in between was
    /// used as it was, and an early error left the directory behind.
    #[test]
    fn the_ingests_scratch_directory_is_new_private_and_removed() {
        let taken = std::env::temp_dir().join(format!("darshan-test-scratch-{}-0", std::process::id()));
        let _ = std::fs::create_dir(&taken);
        let d = ScratchDir::new("darshan-test-scratch").unwrap();
        assert_ne!(d.0, taken, "a directory that was already there is never used");
        let mode = std::fs::metadata(&d.0).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let p = d.0.clone();
        std::fs::write(p.join("a.darshan"), b"x").unwrap();
        drop(d);
        assert!(!p.exists(), "removed when dropped");
        let _ = std::fs::remove_dir(&taken);
    }
}
