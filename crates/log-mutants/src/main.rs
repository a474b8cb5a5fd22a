//! log-mutants: make mutants of real logs and run every tool that reads
//! logs on each, under an address-space limit and a timeout; print what
//! failed and the worst memory each tool took. Exit 0 when nothing failed.
//!
//! usage: log-mutants [--bin DIR] [--work DIR] [--per-log N] [--seed S]
//!                    [--timeout SECS] [--address-space BYTES] [--batch N]
//!                    [--max-seed-size BYTES] [--json FILE] LOG-OR-DIR...
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use log_mutants::mutate::mutants;
use log_mutants::runner::{run, verdict, Limits, Outcome};
use log_mutants::tools::{Input, Tool, TOOLS};
use log_mutants::unpacked::{decompressed_size, Unpacked};
use serde::Serialize;

struct Args {
    bin: PathBuf,
    work: PathBuf,
    per_log: usize,
    seed: u64,
    limits: Limits,
    batch: usize,
    max_seed_size: u64,
    json: Option<PathBuf>,
    inputs: Vec<PathBuf>,
}

const USAGE: &str = "usage: log-mutants [--bin DIR] [--work DIR] [--per-log N] [--seed S] [--timeout SECS] \
[--address-space BYTES] [--batch N] [--max-seed-size BYTES] [--json FILE] LOG-OR-DIR...";

fn parse() -> Result<Args, String> {
    let mut a = Args {
        bin: PathBuf::from("target/release"),
        work: PathBuf::from("target/log-mutants"),
        per_log: 40,
        seed: 1,
        limits: Limits { address_space: 4 << 30, timeout: Duration::from_secs(30) },
        batch: 100,
        max_seed_size: 4 << 20,
        json: None,
        inputs: Vec::new(),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let flag = argv[i].as_str();
        let val = || argv.get(i + 1).cloned().ok_or(format!("{flag} needs a value"));
        let num = |v: String| v.parse::<u64>().map_err(|_| format!("{flag}: not a number: {v}"));
        match flag {
            "--bin" => a.bin = val()?.into(),
            "--work" => a.work = val()?.into(),
            "--per-log" => a.per_log = num(val()?)? as usize,
            "--seed" => a.seed = num(val()?)?,
            "--timeout" => a.limits.timeout = Duration::from_secs(num(val()?)?),
            "--address-space" => a.limits.address_space = num(val()?)?,
            "--batch" => a.batch = num(val()?)?.max(1) as usize,
            "--max-seed-size" => a.max_seed_size = num(val()?)?,
            "--json" => a.json = Some(val()?.into()),
            "-h" | "--help" => return Err(String::new()),
            f if f.starts_with('-') => return Err(format!("unknown option {f}")),
            _ => {
                a.inputs.push(argv[i].clone().into());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if a.inputs.is_empty() {
        return Err("no logs given".into());
    }
    Ok(a)
}

/// Every `.darshan` file under the inputs, sorted, with its bytes: the
/// file itself up to `max` bytes; a larger crash-safe (uncompressed) file
/// packed tight (its regions sit far apart in a sparse file of megabytes:
/// the same log in a few kilobytes).
fn seed_logs(inputs: &[PathBuf], max: u64) -> Vec<(PathBuf, Vec<u8>)> {
    let mut paths = Vec::new();
    let mut stack = inputs.to_vec();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).into_iter().flatten().flatten().map(|e| e.path()));
        } else if p.extension().is_some_and(|e| e == "darshan")
            && std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_file())
        {
            // Regular files only: the privileged-use tests leave FIFOs and
            // links named like logs among the runtime's logs.
            paths.push(p);
        }
    }
    paths.sort();
    let uncompressed = |b: &[u8]| b.get(16) == Some(&darshan_log::Compression::None.code());
    paths
        .into_iter()
        .filter_map(|p| {
            let size = p.metadata().ok()?.len();
            if size <= max {
                return Some((p.clone(), std::fs::read(&p).ok()?));
            }
            // Crash-safe files only: a compressed log over the limit is skipped.
            let mut head = [0u8; 17];
            std::io::Read::read_exact(&mut std::fs::File::open(&p).ok()?, &mut head).ok()?;
            if !uncompressed(&head) || size > 64 << 20 {
                return None;
            }
            let packed = Unpacked::of(&std::fs::read(&p).ok()?)?.pack();
            (packed.len() as u64 <= max).then_some((p, packed))
        })
        .collect()
}

struct MutantFile {
    path: PathBuf,
    seed_log: String,
    what: String,
    /// Bytes its regions decompress to (at least the file's size): what
    /// the memory bounds are stated in.
    size: u64,
}

#[derive(Serialize, Default)]
struct ToolReport {
    runs: usize,
    failures: usize,
    worst_peak_kib: u64,
    worst_peak_input: String,
    worst_peak_input_bytes: u64,
    worst_peak_bound_kib: u64,
    slowest_seconds: f64,
    /// The most memory beyond its base per unpacked byte of an input.
    worst_bytes_per_unpacked_byte: f64,
    worst_ratio_input: String,
    exit_codes: BTreeMap<String, usize>,
    /// What the tool said (first line of standard error) the first time
    /// it exited with each status.
    exit_samples: BTreeMap<String, String>,
}

#[derive(Serialize)]
struct Failure {
    tool: String,
    input: String,
    mutation: String,
    why: String,
    repro: String,
}

#[derive(Serialize, Default)]
struct Report {
    seed_logs: usize,
    mutants: usize,
    tools: usize,
    runs: usize,
    failures: Vec<Failure>,
    per_tool: BTreeMap<String, ToolReport>,
    seconds: f64,
}

/// Phase 1: mutants of every seed log, written under `work/mutants`.
fn make_mutants(args: &Args, logs: &[(PathBuf, Vec<u8>)]) -> Vec<MutantFile> {
    let dir = args.work.join("mutants");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    let mut out = Vec::new();
    for (i, (log, bytes)) in logs.iter().enumerate() {
        let stem = log.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let short: String = stem.chars().take(40).collect();
        for (k, m) in mutants(bytes, args.per_log, args.seed.wrapping_mul(1_000_003).wrapping_add(i as u64))
            .into_iter()
            .enumerate()
        {
            let path = dir.join(format!("{i:04}-{k:03}-{short}.darshan"));
            if std::fs::write(&path, &m.bytes).is_ok() {
                let size = decompressed_size(&m.bytes);
                out.push(MutantFile { path, seed_log: log.display().to_string(), what: m.what, size });
            }
        }
    }
    out
}

/// One run to make: a tool on an input.
struct Job<'a> {
    tool: &'a Tool,
    input: PathBuf,
    size: u64,
    what: String,
}

/// Phase 2 and 3: every run, spread over the machine's cores: the log
/// readers and crash-safe readers on each mutant, the configuration
/// readers on lying thresholds files, then the database tools on batches.
fn run_all(args: &Args, mutants: &[MutantFile], report: &Mutex<Report>) {
    let mut jobs = log_jobs(mutants);
    jobs.extend(crash_safe_jobs(args, mutants));
    jobs.extend(config_jobs(args, mutants));
    let batches = batches(args, mutants);
    one_pass(args, &jobs, report);
    let of_kind = |kind: Input, what: &str, input: &dyn Fn(&Path) -> PathBuf| -> Vec<Job> {
        TOOLS
            .iter()
            .filter(|t| t.input == kind)
            .flat_map(|t| batches.iter().map(move |(d, size)| (t, d, *size)))
            .map(|(tool, d, size)| Job { tool, input: input(d), size, what: what.into() })
            .collect()
    };
    ingest(args, &of_kind(Input::Batch, "a batch of mutants", &|d| d.to_path_buf()), report);
    one_pass(args, &of_kind(Input::Database, "the database of a batch", &db_of), report);
}

/// Where the ingest of batch directory `d` keeps its database.
fn db_of(d: &Path) -> PathBuf {
    d.with_extension("db")
}

/// Every log reader on every mutant.
fn log_jobs(mutants: &[MutantFile]) -> Vec<Job<'static>> {
    let mut jobs = Vec::new();
    for t in TOOLS.iter().filter(|t| t.input == Input::Log) {
        for m in mutants {
            jobs.push(Job {
                tool: t,
                input: m.path.clone(),
                size: m.size,
                what: format!("{} ({})", m.what, m.seed_log),
            });
        }
    }
    jobs
}

/// The crash-safe readers on each crash-safe mutant alone in a directory
/// under a crash-safe file's name.
fn crash_safe_jobs(args: &Args, mutants: &[MutantFile]) -> Vec<Job<'static>> {
    let mut jobs = Vec::new();
    let mut k = 0;
    for m in mutants {
        let bytes = std::fs::read(&m.path).unwrap_or_default();
        if !log_mutants::inputs::is_crash_safe(&bytes) {
            continue;
        }
        let Some(dir) = log_mutants::inputs::crash_safe_dir(&args.work, k, &m.path) else { continue };
        k += 1;
        for t in TOOLS.iter().filter(|t| t.input == Input::CrashSafeDir) {
            jobs.push(Job { tool: t, input: dir.clone(), size: m.size, what: format!("{} ({})", m.what, m.seed_log) });
        }
    }
    jobs
}

/// Lying thresholds files, each with one of the first four seed logs.
fn config_jobs(args: &Args, mutants: &[MutantFile]) -> Vec<Job<'static>> {
    let seeds: Vec<PathBuf> = mutants
        .iter()
        .map(|m| PathBuf::from(&m.seed_log))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .take(4)
        .collect();
    let mut jobs = Vec::new();
    for (dir, size, what) in log_mutants::inputs::config_dirs(&args.work, &seeds, 4 * args.per_log, args.seed) {
        for t in TOOLS.iter().filter(|t| t.input == Input::Config) {
            jobs.push(Job { tool: t, input: dir.clone(), size: size.max(4 << 20), what: what.clone() });
        }
    }
    jobs
}

/// The mutants in batches (linked into a directory each), with the
/// largest mutant's size of each.
fn batches(args: &Args, mutants: &[MutantFile]) -> Vec<(PathBuf, u64)> {
    mutants
        .chunks(args.batch)
        .enumerate()
        .filter_map(|(b, chunk)| {
            let d = args.work.join(format!("batch-{b:04}"));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).ok()?;
            for m in chunk {
                let _ = std::fs::hard_link(&m.path, d.join(m.path.file_name()?));
            }
            Some((d, chunk.iter().map(|m| m.size).max().unwrap_or(0)))
        })
        .collect()
}

/// `jobs` on as many threads as cores, each run's scratch output removed.
fn one_pass(args: &Args, jobs: &[Job], report: &Mutex<Report>) {
    let scratch_dir = args.work.join("scratch");
    let _ = std::fs::create_dir_all(&scratch_dir);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for w in 0..threads {
            let (next, scratch_dir) = (&next, &scratch_dir);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(j) = jobs.get(i) else { return };
                let scratch = scratch_dir.join(format!("w{w}-{i}.out"));
                let o = run(&args.bin, j.tool, &j.input, &scratch, args.limits);
                // A file, or the directory a tool made (darshan-replay --exact).
                let _ = std::fs::remove_file(&scratch).or_else(|_| std::fs::remove_dir_all(&scratch));
                let repro = format!(
                    "{} {}",
                    args.bin.join(j.tool.exe).display(),
                    j.tool.args.join(" ").replace("{in}", &j.input.display().to_string())
                );
                let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
                account(&mut r, j.tool, &j.input, j.size, &j.what, &o, repro);
            });
        }
    });
}

/// The ingest runs, one after another: its database is its scratch
/// output, kept (beside the batch) for the study to read.
fn ingest(args: &Args, jobs: &[Job], report: &Mutex<Report>) {
    for j in jobs {
        let db = db_of(&j.input);
        let _ = std::fs::remove_file(&db);
        let o = run(&args.bin, j.tool, &j.input, &db, args.limits);
        let repro =
            format!("{} -q -j 2 --db {} {}", args.bin.join(j.tool.exe).display(), db.display(), j.input.display());
        let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
        account(&mut r, j.tool, &j.input, j.size, &j.what, &o, repro);
    }
}

/// One run's outcome into the report.
fn account(r: &mut Report, tool: &Tool, input: &Path, size: u64, what: &str, o: &Outcome, repro: String) {
    r.runs += 1;
    let t = r.per_tool.entry(tool.label.to_string()).or_default();
    t.runs += 1;
    let code = o.code.map_or("signal".into(), |c| c.to_string());
    *t.exit_codes.entry(code.clone()).or_default() += 1;
    t.exit_samples.entry(code).or_insert_with(|| o.stderr.lines().next().unwrap_or("").chars().take(200).collect());
    t.slowest_seconds = t.slowest_seconds.max(o.seconds);
    let ratio = (o.peak_kib * 1024).saturating_sub(tool.base_mib << 20) as f64 / size.max(1) as f64;
    if ratio > t.worst_bytes_per_unpacked_byte {
        t.worst_bytes_per_unpacked_byte = ratio;
        t.worst_ratio_input = input.display().to_string();
    }
    if o.peak_kib > t.worst_peak_kib {
        t.worst_peak_kib = o.peak_kib;
        t.worst_peak_input = input.display().to_string();
        t.worst_peak_input_bytes = size;
        t.worst_peak_bound_kib = tool.limit_kib(size);
    }
    if let Some(why) = verdict(tool, o, size) {
        t.failures += 1;
        r.failures.push(Failure {
            tool: tool.label.into(),
            input: input.display().to_string(),
            mutation: what.to_string(),
            why,
            repro,
        });
    }
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("log-mutants: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let t0 = Instant::now();
    let logs = seed_logs(&args.inputs, args.max_seed_size);
    let mutants = make_mutants(&args, &logs);
    let report =
        Mutex::new(Report { seed_logs: logs.len(), mutants: mutants.len(), tools: TOOLS.len(), ..Default::default() });
    run_all(&args, &mutants, &report);
    let mut r = report.into_inner().unwrap_or_else(|e| e.into_inner());
    r.seconds = t0.elapsed().as_secs_f64();
    // Keep the failing mutants; the rest go.
    let keep = args.work.join("failures");
    let _ = std::fs::remove_dir_all(&keep);
    for f in &r.failures {
        let p = Path::new(&f.input);
        if p.is_file() {
            let _ = std::fs::create_dir_all(&keep);
            if let Some(n) = p.file_name() {
                let _ = std::fs::copy(p, keep.join(n));
            }
        }
    }
    print_report(&r);
    if let Some(j) = &args.json {
        let _ = std::fs::write(j, serde_json::to_string_pretty(&r).unwrap_or_default());
    }
    let _ = std::fs::remove_dir_all(args.work.join("mutants"));
    let _ = std::fs::remove_dir_all(args.work.join("scratch"));
    for e in std::fs::read_dir(&args.work).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with("batch-") {
            let p = e.path();
            let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        }
    }
    if r.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_report(r: &Report) {
    println!(
        "log-mutants: {} mutants of {} logs, {} tools, {} runs in {:.0} s: {} failures",
        r.mutants,
        r.seed_logs,
        r.tools,
        r.runs,
        r.seconds,
        r.failures.len()
    );
    println!(
        "  {:<30} {:>6} {:>5} {:>10} {:>10} {:>10} {:>7} {:>7}  exit statuses",
        "tool", "runs", "fail", "peak KiB", "bound KiB", "unpacked B", "B/B", "max s"
    );
    for (name, t) in &r.per_tool {
        let codes: Vec<String> = t.exit_codes.iter().map(|(c, n)| format!("{c}:{n}")).collect();
        println!(
            "  {:<30} {:>6} {:>5} {:>10} {:>10} {:>10} {:>7.2} {:>7.2}  {}",
            name,
            t.runs,
            t.failures,
            t.worst_peak_kib,
            t.worst_peak_bound_kib,
            t.worst_peak_input_bytes,
            t.worst_bytes_per_unpacked_byte,
            t.slowest_seconds,
            codes.join(" ")
        );
    }
    for f in r.failures.iter().take(40) {
        println!("FAIL {}: {}\n     mutation: {}\n     repro: {}", f.tool, f.why, f.mutation, f.repro);
    }
    if r.failures.len() > 40 {
        println!("... and {} more failures (--json FILE has them all)", r.failures.len() - 40);
    }
}
