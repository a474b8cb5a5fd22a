//! What a report holds: every figure and finding, in the form `--json`
//! prints (schema `darshan-summary/2`, documented in docs/report.md).
//! The HTML and text renderers read only this.

use serde::Serialize;

pub const SCHEMA: &str = "darshan-summary/2";

#[derive(Serialize, Debug, Default)]
pub struct Report {
    pub schema: &'static str,
    pub log: LogInfo,
    pub job: JobInfo,
    /// The log table: one row per module region in the log.
    pub modules: Vec<ModuleInfo>,
    /// What is missing or incomplete (partial modules, unreadable regions).
    pub warnings: Vec<String>,
    /// Average seconds per process in read, write, metadata and wait, per
    /// interface (PyDarshan's "I/O Cost").
    pub io_cost: Vec<IoCost>,
    pub module_stats: Vec<ModuleStats>,
    pub heatmaps: Vec<Heatmap>,
    /// DXT segments over time, when the log has DXT data.
    pub timeline: Option<Timeline>,
    /// When the processes read and wrote their files, first access to
    /// last (POSIX and STDIO), when any record read or wrote.
    pub timespans: Option<Timespans>,
    pub categories: Categories,
    pub files: FileTables,
    /// Namespace, attribute and mapping operations (the POSIX_META
    /// module, ours), when the log has them.
    pub namespace: Option<Namespace>,
    /// Requests submitted through io_uring rings (the IO_URING module,
    /// ours), when the log has them.
    pub io_uring: Option<IoUring>,
    /// Time in MPI communication and the operations that took it
    /// (AutoPerf's APMPI records, from C Darshan built with them).
    pub mpi_comm: Option<MpiComm>,
    /// The job's processes and their roles (the PROCESSES region a job
    /// merge writes), with the loader view: what each worker read, how
    /// long, and how long it waited for its first data.
    pub processes: Option<Processes>,
    pub metrics: Metrics,
    pub findings: Vec<Finding>,
    /// Drishti's rules that would have fired here but that a counter in
    /// the log refutes (or whose volume is under the threshold): each with
    /// why, so a Drishti user sees what was left out and can check it.
    pub withheld: Vec<Withheld>,
    /// This run against the application's earlier runs in a darshan-ingest
    /// database (`--history DB`): what moved beyond their noise, and the
    /// files and ranks that carry it.
    pub history: Option<darshan_history::Section>,
}

#[derive(Serialize, Debug, Default)]
pub struct LogInfo {
    pub path: String,
    pub file_name: String,
    pub size_bytes: u64,
    pub format_version: String,
    /// `lib_ver` from the job metadata, when the runtime wrote one.
    pub runtime_version: Option<String>,
    pub compression: String,
    /// Written on a machine of the other byte order.
    pub byte_swapped: bool,
    pub partial: bool,
}

#[derive(Serialize, Debug, Default)]
pub struct JobInfo {
    pub jobid: i64,
    pub uid: i64,
    pub nprocs: i64,
    /// The processes as the header says them: `nprocs`, or a job merge's
    /// processes in their ranks (collect::processes_said).
    pub processes: String,
    pub start_time: i64,
    pub end_time: i64,
    /// UTC, ISO 8601.
    pub start: String,
    pub end: String,
    /// Seconds, as darshan-parser's `run time`; 0 when the log has no end
    /// (`ended`).
    pub run_time: f64,
    /// The end was written: not so in a crash-safe file read as it is
    /// (its process killed or still running); then `end` is empty.
    pub ended: bool,
    pub command_line: String,
    pub metadata: Vec<(String, String)>,
    pub mounts: Vec<(String, String)>,
    /// What the runtime said it cost (its `darshan_cost_*` lines); None
    /// for a log without them (C Darshan's).
    pub darshan_cost: Option<DarshanCost>,
}

/// The runtime's own cost as its log states it (docs/cost.md).
#[derive(Serialize, Debug, Default, Clone)]
pub struct DarshanCost {
    /// Start-up, shutdown, and the wrappers' estimated time, summed over
    /// the processes, in milliseconds.
    pub total_ms: f64,
    pub startup_ms: f64,
    pub shutdown_ms: f64,
    pub wrappers_ms: f64,
    pub calls: u64,
    pub call_ns: f64,
    /// Percent of the processes' run time; None for a run of no length.
    pub share_pct: Option<f64>,
    /// The header's one line: "Darshan's own cost: 0.8 ms, 0.02 % of the run".
    pub said: String,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct ModuleInfo {
    pub name: String,
    pub version: u32,
    pub compressed_bytes: u64,
    pub records: u64,
    pub partial: bool,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct IoCost {
    /// POSIX, MPIIO, STDIO, HDF5, PNETCDF, DFS or DAOS.
    pub interface: String,
    /// Seconds per process; none where the log's runtime did not record
    /// the time (C's −1 in every record: PNETCDF_FILE before version 3).
    pub read: Option<f64>,
    pub write: Option<f64>,
    pub meta: Option<f64>,
    pub wait: Option<f64>,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct ModuleStats {
    /// Module name as darshan-parser prints it.
    pub module: String,
    /// The report section it belongs to (HDF5 and PNETCDF join two modules).
    pub section: String,
    pub records: u64,
    pub overview: Option<Overview>,
    pub access_pattern: Option<AccessPattern>,
    /// Access-size histogram: bucket label, reads, writes.
    pub access_sizes: Vec<(String, i64, i64)>,
    /// The four most frequent access sizes: (size, count).
    pub common_access: Vec<(i64, i64)>,
    /// Operation counts as PyDarshan labels them.
    pub op_counts: Vec<(String, i64)>,
    /// Operations the runtime that wrote the log did not record (−1 in
    /// every record: C Darshan's POSIX_MMAPS): named, never summed.
    pub not_recorded: Vec<String>,
}

/// darshan-util's accumulator (darshan-parser `--perf --file`, PyDarshan's
/// `accumulate_records`), for POSIX, MPI-IO, STDIO, DFS and DAOS.
#[derive(Serialize, Debug, Default, Clone)]
pub struct Overview {
    pub files: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub total_bytes: i64,
    /// MiB/s, by the slowest rank.
    pub agg_perf_by_slowest: f64,
    pub agg_time_by_slowest: f64,
    pub unique_io_total_time_by_slowest: f64,
    pub unique_rw_only_time_by_slowest: f64,
    pub unique_md_only_time_by_slowest: f64,
    pub unique_io_slowest_rank: i64,
    pub shared_io_total_time_by_slowest: f64,
    /// total, read-only, write-only, read/write, unique, shared, partially shared.
    pub categories: Vec<FileCategory>,
    /// The module records offsets (POSIX, STDIO): its file sizes can be
    /// estimated. MPI-IO, HDF5 and PnetCDF records keep none, and their
    /// categories' sizes (0, as darshan-util's) mean "not recorded".
    pub sizes_recorded: bool,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct FileCategory {
    pub kind: String,
    pub count: i64,
    pub total_read: i64,
    pub total_write: i64,
    pub max_read: i64,
    pub max_write: i64,
    pub total_max_offset: i64,
    pub max_offset: i64,
    /// PyDarshan's estimate: (Σ max offsets + n) / n bytes.
    pub avg_size: f64,
    /// max offset + 1 bytes.
    pub max_size: i64,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct AccessPattern {
    pub reads: i64,
    pub seq_reads: i64,
    pub consec_reads: i64,
    pub writes: i64,
    pub seq_writes: i64,
    pub consec_writes: i64,
}

/// Bytes moved per rank and time bin, from HEATMAP or DXT records.
#[derive(Serialize, Debug, Default, Clone)]
pub struct Heatmap {
    /// e.g. "HEATMAP POSIX" or "DXT_MPIIO".
    pub name: String,
    pub source: String,
    pub bin_width: f64,
    pub nbins: usize,
    pub nranks: usize,
    /// Σ over ranks, per bin: bytes read, written.
    pub read_per_bin: Vec<f64>,
    pub write_per_bin: Vec<f64>,
    /// Σ over bins, per rank: bytes read + written.
    pub per_rank: Vec<f64>,
    /// Ranks with any I/O, per bin.
    pub active_ranks_per_bin: Vec<u32>,
    pub nonzero_read_bins: u64,
    pub nonzero_write_bins: u64,
    /// A downsampled rank × bin grid of read + write bytes for drawing
    /// (at most 64 × 128 cells): rows of ranks.
    pub grid: Vec<Vec<f64>>,
    pub grid_rank_step: usize,
    pub grid_bin_step: usize,
}

/// The processes of a job merge (processes.rs).
#[derive(Serialize, Debug, Default, Clone)]
pub struct Processes {
    /// How many of each role: ("rank", 4), ("forked worker", 8), ...
    pub roles: Vec<(String, usize)>,
    /// Ranks given by start order (the logs named none).
    pub ranked_by_start: bool,
    /// The processes, in the job's order (rank, then start): the first
    /// 4,096, and how many more there were.
    pub rows: Vec<ProcessRow>,
    pub rows_left_out: usize,
    /// The processes that read the application's data, side by side.
    pub readers: Option<ReaderSpread>,
    /// Seconds per timeline bin, and where the bins came from
    /// ("DXT", "heat map" or "none").
    pub bin_width: f64,
    pub timeline_source: String,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct ProcessRow {
    pub index: u64,
    pub rank: i64,
    pub role: String,
    /// None: not known.
    pub pid: Option<i64>,
    pub parent_pid: Option<i64>,
    /// Seconds since the job's start.
    pub start: f64,
    pub end: f64,
    pub reads: i64,
    pub writes: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub read_time: f64,
    pub write_time: f64,
    pub meta_time: f64,
    /// Its first read of the application's data (seconds since the job's
    /// start), and the wait for it since the process started.
    pub first_read: Option<f64>,
    pub start_up_stall: Option<f64>,
    pub software_files: i64,
    pub software_bytes_read: i64,
    /// Bytes read per bin of the job's run time.
    pub timeline: Vec<i64>,
}

/// Readers of the application's data compared: bytes and read time
/// (min, mean, max), the start-up stall (min, median, max).
#[derive(Serialize, Debug, Default, Clone)]
pub struct ReaderSpread {
    pub count: usize,
    pub bytes: Spread,
    pub read_time: Spread,
    pub stall: Spread,
}

#[derive(Serialize, Debug, Default, Clone, Copy)]
pub struct Spread {
    pub min: f64,
    /// The mean (bytes, read time) or the median (stall).
    pub mid: f64,
    pub max: f64,
}

/// DXT segments for the timeline drawing (capped; `truncated` says so).
#[derive(Serialize, Debug, Default, Clone)]
pub struct Timeline {
    pub source: String,
    pub nranks: usize,
    pub end_time: f64,
    /// (rank, start, end, bytes, is_write)
    pub segments: Vec<(i64, f64, f64, i64, bool)>,
    pub total_segments: u64,
    pub truncated: bool,
}

/// C Darshan's "Timespan from first to last access" graphs: each POSIX
/// and STDIO record's first read to its last read, and its first write
/// to its last write (a span says a file was in use, not busy: the log
/// keeps no accesses in between), joined per row where closer than
/// `resolution` (timespans.rs).
#[derive(Serialize, Debug, Default, Clone, PartialEq)]
pub struct Timespans {
    /// The time axis, from the job's start: its run time, or the last
    /// access where that is later.
    pub end_time: f64,
    /// Rows of `independent`: one per process up to 256 processes, then
    /// this many consecutive ranks to a row.
    pub ranks_per_row: i64,
    pub rows: usize,
    /// [row, start, end, is_write]: files of one process's records.
    pub independent: Vec<(usize, f64, f64, bool)>,
    /// [start, end, is_write]: files shared by all processes (their
    /// records of rank -1).
    pub shared: Vec<(f64, f64, bool)>,
    /// Seconds: spans of a row closer than this are drawn as one.
    pub resolution: f64,
    /// Records' spans drawn; left out as software loading or the MPI
    /// library's own files; left out as impossible (a start after its
    /// end, a time not finite, a rank outside the job).
    pub spans: u64,
    pub left_out: u64,
    pub unreadable: u64,
}

impl Timespans {
    /// The shared files' spans in the independent ones' shape, a row per
    /// direction (0 reads, 1 writes): what the charts draw.
    pub fn shared_rows(&self) -> impl Iterator<Item = (usize, f64, f64, bool)> + '_ {
        self.shared.iter().map(|&(start, end, write)| (usize::from(write), start, end, write))
    }
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct Category {
    pub name: String,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub files_read: u64,
    pub files_written: u64,
}

#[derive(Serialize, Debug, Default)]
pub struct Categories {
    /// PyDarshan's grouping: the first path component (POSIX and STDIO).
    pub by_root: Vec<Category>,
    /// Grouped by the job's mount table (longest matching mount point).
    pub by_mount: Vec<Category>,
    /// Grouped by directory.
    pub by_directory: Vec<Category>,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct FileRow {
    pub name: String,
    pub module: String,
    pub record_id: u64,
    /// Ranks that opened it (the job's size when every rank did).
    pub ranks: i64,
    /// Every rank shared it (a record of rank -1 in the log).
    pub all_ranks: bool,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub io_time: f64,
    /// None when the log does not say.
    pub slowest_rank: Option<i64>,
    pub slowest_rank_time: f64,
    pub slowest_rank_bytes: i64,
    pub fastest_rank: Option<i64>,
    pub fastest_rank_time: f64,
    pub fastest_rank_bytes: i64,
    /// (slowest − fastest) / slowest rank time, for shared files.
    pub time_imbalance: Option<f64>,
}

#[derive(Serialize, Debug, Default)]
pub struct FileTables {
    /// Top files per table (the top-N limit applied).
    pub by_bytes: Vec<FileRow>,
    pub by_time: Vec<FileRow>,
    pub by_slowest_rank: Vec<FileRow>,
    /// Shared files (rank −1 records) with their rank imbalance, most
    /// imbalanced first.
    pub imbalance: Vec<FileRow>,
    pub sharing: Sharing,
}

/// Files by how many processes used them, per module that has records.
#[derive(Serialize, Debug, Default)]
pub struct Sharing {
    pub module: String,
    pub unique: i64,
    pub shared: i64,
    pub partially_shared: i64,
    pub unique_bytes: i64,
    pub shared_bytes: i64,
    pub partially_shared_bytes: i64,
}

/// The seed papers' metrics.
#[derive(Serialize, Debug, Default)]
pub struct Metrics {
    /// Σ (bytes read − max offset read − 1) over POSIX files that read more
    /// than their extent (Cray XE6 study).
    pub redundant_read_bytes: i64,
    pub redundant_read_files: u64,
    /// Metadata time / (metadata + read + write time), POSIX.
    pub metadata_ratio: Option<f64>,
    pub metadata_time: f64,
    pub io_time: f64,
    /// Largest per-process metadata time (shared records count as their
    /// slowest rank's).
    pub max_metadata_time_per_process: f64,
    /// Writes under 1 MiB to shared files through POSIX with no collective
    /// MPI-IO writes to those files.
    pub small_shared_independent_writes: i64,
    pub small_shared_independent_write_files: u64,
    /// JSC metrics from the heat map (None without HEATMAP or DXT data).
    pub burstiness: Option<f64>,
    pub parallel_intensity: Option<f64>,
    pub parallel_intensity_fraction: Option<f64>,
    pub heatmap_source: Option<String>,
    /// NERSC file-system utilization model.
    pub fsu: Fsu,
}

#[derive(Serialize, Debug, Default)]
pub struct Fsu {
    pub a0_read: f64,
    pub a1_read: f64,
    pub a0_write: f64,
    pub a1_write: f64,
    pub read_ops: i64,
    pub write_ops: i64,
    /// Σ over histogram buckets of count · (a0 + a1 · bucket's mean size).
    pub read_seconds: f64,
    pub write_seconds: f64,
    /// (read + write seconds) / job run time.
    pub load: Option<f64>,
    /// Where the coefficients came from.
    pub calibration: String,
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    High,
    Warn,
    Info,
    Ok,
}

/// A rule that would fire on its own thresholds, held back by evidence.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Withheld {
    pub code: String,
    pub reason: String,
}

#[derive(Serialize, Debug, Clone)]
pub struct Finding {
    /// Drishti's code (S01, P01-P22, M01-M10) or ours (M11, N01, X.., J..,
    /// F.., L..).
    pub code: String,
    pub level: Level,
    pub title: String,
    /// Numbers, files and ranks behind it.
    pub evidence: Vec<String>,
    pub recommendation: Option<String>,
}

/// The metadata section (namespace.rs makes it from POSIX_META records).
#[derive(Serialize, Debug, Default, Clone)]
pub struct Namespace {
    /// (counter, total) of every counter, in the format's order.
    pub operations: Vec<(String, i64)>,
    /// Unlinks, renames, mkdirs, rmdirs, directory opens, links, symlinks.
    pub namespace_ops: i64,
    /// Every counted call but the readdir calls (which are not system
    /// calls one for one) and the byte counts.
    pub attribute_ops: i64,
    pub mapping_ops: i64,
    /// Seconds in these calls (summed over processes).
    pub time: f64,
    /// First start and last end of any of them (seconds since the start).
    pub start: f64,
    pub end: f64,
    /// Namespace operations per second between `start` and `end`.
    pub rate: f64,
    /// The estimate's peak: the busiest bin's operations per second.
    pub peak_rate: f64,
    /// (bin start seconds, namespace operations) of the estimate.
    pub rate_bins: Vec<(f64, f64)>,
    pub bin_seconds: f64,
    pub busiest_dirs: Vec<DirOps>,
    /// Files removed within the run that the job also opened (POSIX).
    pub temporary_files: u64,
    pub temporary_bytes_written: i64,
    pub temporary_examples: Vec<String>,
    /// Directories opened for listing more than once, most first.
    pub relisted_dirs: Vec<DirOps>,
    pub records: u64,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct DirOps {
    pub path: String,
    /// Entries made and removed in it, and its listings.
    pub ops: i64,
    pub listings: i64,
    pub entries_read: i64,
}

/// The io_uring section (uring.rs makes it from IO_URING records).
#[derive(Serialize, Debug, Default, Clone)]
pub struct IoUring {
    pub records: u64,
    /// Files with reads or writes through a ring.
    pub file_count: usize,
    pub reads: i64,
    pub writes: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub syncs: i64,
    pub meta_ops: i64,
    pub errors: i64,
    pub short_transfers: i64,
    /// The most requests on one file in flight at once.
    pub max_inflight: i64,
    pub completions_seen: i64,
    /// Requests whose completion was never read (counted as full).
    pub completions_unseen: i64,
    /// Requests the runtime could not read at all (docs/io-uring.md).
    pub unobserved: i64,
    /// Mean seconds from submission to the completion being read.
    pub read_latency: f64,
    pub write_latency: f64,
    /// Seconds from the first io_uring read or write to the last.
    pub span: f64,
    /// The longest one request took from submission to completion.
    pub max_latency: f64,
    /// Σ submit-to-completion seconds of reads and writes (they overlap
    /// when several are in flight: not time spent).
    pub latency_sum: f64,
    /// Reads and writes of 100 KiB or less, and those that started where
    /// the one before ended.
    pub small: i64,
    pub consecutive: i64,
    /// (bucket, reads, writes) of the request sizes.
    pub sizes: Vec<(String, i64, i64)>,
    /// The processes' rings (None for a log of IO_URING version 1, which
    /// did not record them).
    pub rings: Option<UringRings>,
    /// The files with the most bytes, most first.
    pub files: Vec<UringFile>,
    /// The files with the most small requests, most first (the findings'
    /// evidence).
    #[serde(skip)]
    pub by_small: Vec<UringFile>,
}

/// What the processes' `<io_uring>` records say of their rings.
#[derive(Serialize, Debug, Default, Clone, PartialEq)]
pub struct UringRings {
    pub rings: i64,
    pub sqpoll: i64,
    pub iopoll: i64,
    /// Submission entries of the largest ring.
    pub entries_max: i64,
    pub registered_files: i64,
    pub registered_buffers: i64,
    /// The most requests in flight on one ring at once (all its files).
    pub max_inflight: i64,
    /// Calls that submitted requests the runtime read, and the requests
    /// (reads, writes, syncs, others) per call.
    pub submit_calls: i64,
    pub per_call: f64,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct UringFile {
    pub path: String,
    pub rank: i64,
    pub reads: i64,
    pub writes: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub max_inflight: i64,
    pub small: i64,
    pub consecutive: i64,
}

/// The MPI communication section (mpi_comm.rs makes it from APMPI
/// records).
#[derive(Serialize, Debug, Default, Clone)]
pub struct MpiComm {
    /// Ranks with a record.
    pub ranks: u64,
    /// Distinct processor names among them.
    pub nodes: usize,
    /// Seconds a rank spent in MPI communication, on average.
    pub mean_seconds: f64,
    /// That average against the job's run time.
    pub run_share: f64,
    pub least: MpiRank,
    pub most: MpiRank,
    /// The ranks' variance of their communication seconds (the header's).
    pub variance: f64,
    /// Whether the collectives' sync time was measured (the runtime's
    /// `--enable-apmpi-coll-sync`), and its sum over the ranks.
    pub sync_measured: bool,
    pub sync_seconds: f64,
    /// Operations called at all; `ops` holds the ones with most time.
    pub operations_called: usize,
    pub ops: Vec<MpiOp>,
}

/// A rank and its communication seconds.
#[derive(Serialize, Debug, Default, Clone)]
pub struct MpiRank {
    pub rank: i64,
    pub seconds: f64,
}

/// One MPI operation over all ranks.
#[derive(Serialize, Debug, Default, Clone)]
pub struct MpiOp {
    pub name: String,
    pub calls: u64,
    /// Bytes moved (none for an operation that moves no data).
    pub bytes: Option<u64>,
    pub seconds: f64,
    /// Its part of all ranks' communication seconds.
    pub share: f64,
    /// The longest one call took.
    pub max_call_seconds: f64,
}
