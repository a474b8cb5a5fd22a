//! darshan-replay LOG --fio [-o OUT] [--ranks N] [--scale-bytes F] [--dir PATH]
//! darshan-replay LOG --ior [-o OUT] [--ranks N] [--scale-bytes F] [--dir PATH]
//! darshan-replay --check LOG [--fio-bin FIO] [--lib LIBDARSHAN] [--tolerance T]
//!
//! A job's I/O as a fio benchmark (pattern.rs: the groups of its files;
//! fio.rs: the job file) or IOR and mdtest commands (ior.rs), and the check that the benchmark, run under
//! the runtime, reproduces the log's figures (check.rs). docs/replay.md.
#![forbid(unsafe_code)]

mod check;
mod exact;
mod fio;
mod ior;
mod pattern;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use darshan_log::modules;
use darshan_log::LogFile;
use darshan_util::cli;
use darshan_util::visible::visible;

#[derive(Parser)]
#[command(
    name = "darshan-replay",
    version,
    about = "A Darshan log's I/O as a fio benchmark, and the check that the benchmark reproduces it",
    after_help = "Exit status: 0 when the job file was written (with --check: when the replay is within the \
                  tolerance); 1 when the log cannot be read or fio failed; 2 for a usage error; 3 when --check \
                  finds the replay off by more than the tolerance."
)]
struct Args {
    /// The Darshan log.
    log: PathBuf,
    /// Write a fio job file (the default).
    #[arg(long)]
    fio: bool,
    /// Replay the log's DXT_POSIX segments exactly: a job file and one
    /// fio iolog per rank, written into the new directory -o names.
    #[arg(long, conflicts_with = "fio")]
    exact: bool,
    /// Write IOR and mdtest commands instead: a shell script, one ior run
    /// per group of files and direction, one mdtest run per series of
    /// files without data.
    #[arg(long, conflicts_with_all = ["fio", "exact", "check"])]
    ior: bool,
    /// Where to write it (default: standard output; never replaced).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Jobs per group: this many ranks instead of the log's.
    #[arg(long, value_name = "N")]
    ranks: Option<u64>,
    /// Bytes and file sizes times F.
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    scale_bytes: f64,
    /// The directory the benchmark's files go in.
    #[arg(long, value_name = "PATH", default_value = "./darshan-replay-files")]
    dir: String,
    /// Run the benchmark under the runtime and compare its log with this one.
    #[arg(long)]
    check: bool,
    /// fio to run.
    #[arg(long, value_name = "FIO", default_value = "fio")]
    fio_bin: PathBuf,
    /// The runtime library for --check (default: $DARSHAN_RS_LIB, else
    /// libdarshan.so beside this program or in ../lib).
    #[arg(long, value_name = "PATH")]
    lib: Option<PathBuf>,
    /// The largest relative difference --check accepts per figure.
    #[arg(long, value_name = "T", default_value_t = 0.05)]
    tolerance: f64,
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-replay");
    let args = Args::parse();
    if !(args.scale_bytes.is_finite() && args.scale_bytes > 0.0) || args.ranks == Some(0) {
        cli::say("darshan-replay: --scale-bytes must be above 0 and --ranks at least 1");
        return ExitCode::from(2);
    }
    let r = match (args.check, args.exact) {
        (true, _) => check(&args),
        (false, true) => write_exact(&args).map(|_| ExitCode::SUCCESS),
        (false, false) => write_job(&args).map(|_| ExitCode::SUCCESS),
    };
    r.unwrap_or_else(|e| {
        cli::say(&format!("darshan-replay: {}", visible(&cli::error_line(e.as_ref()))));
        ExitCode::FAILURE
    })
}

/// What the benchmark leaves out of this log, said in its header: fio
/// has only POSIX requests; IOR has MPI-IO, HDF5 and PnetCDF of its own
/// making (one dataset or variable, its own layout).
fn left_out(log: &LogFile, ior: bool) -> Vec<String> {
    let mut out = Vec::new();
    for m in log.modules_present() {
        let why = match (m, ior) {
            (modules::MPIIO, false) => "MPI-IO (fio has no MPI-IO; the POSIX requests it made are replayed)",
            (modules::H5F | modules::H5D, false) => "HDF5 (its POSIX requests are replayed)",
            (modules::PNETCDF_FILE | modules::PNETCDF_VAR, false) => "PnetCDF (its POSIX requests are replayed)",
            (modules::H5F | modules::H5D, true) => "HDF5's datasets (IOR writes one of its own making)",
            (modules::PNETCDF_FILE | modules::PNETCDF_VAR, true) => {
                "PnetCDF's variables (IOR writes one of its own making)"
            }
            (modules::STDIO, false) => {
                "STDIO's buffering (fio has no fwrite/fread: each stream is replayed as unbuffered requests of its mean size)"
            }
            (modules::STDIO, true) => "STDIO (buffered streams: IOR has no fwrite/fread)",
            (modules::POSIX_META, _) => "POSIX_META's namespace operations",
            _ => continue,
        };
        if !out.iter().any(|o: &String| o == why) {
            out.push(why.to_string());
        }
    }
    out
}

/// The groups a benchmark replays: POSIX's, then (for fio) the STDIO
/// streams of files POSIX did not see, as unbuffered requests.
fn replay_groups(log: &LogFile, streams: bool) -> Result<Vec<pattern::Group>, darshan_log::LogError> {
    let mut groups = pattern::groups(log)?;
    if streams {
        let stdio = pattern::groups_in(log, modules::STDIO)?;
        let fresh: Vec<_> = stdio.into_iter().filter(|s| !groups.iter().any(|g| g.name == s.name)).collect();
        groups.extend(fresh);
    }
    Ok(groups)
}

fn job_text(args: &Args, dir: &str) -> anyhow::Result<String> {
    let log = LogFile::open(&args.log).with_context(|| args.log.display().to_string())?;
    let groups = replay_groups(&log, !args.ior).with_context(|| args.log.display().to_string())?;
    let metas = pattern::meta_groups(&log).with_context(|| args.log.display().to_string())?;
    anyhow::ensure!(
        !groups.is_empty() || !metas.is_empty(),
        "{}: no POSIX reads, writes or file series of the application's to replay",
        args.log.display()
    );
    let shown = args.log.display().to_string();
    let command = String::from_utf8_lossy(log.job.exe()).into_owned();
    let src = fio::Source {
        log: &shown,
        jobid: log.job.jobid,
        nprocs: log.job.nprocs,
        command: &command,
        left_out: left_out(&log, args.ior),
    };
    let scale = fio::Scale { ranks: args.ranks, bytes: args.scale_bytes, dir: dir.to_string() };
    if args.ior {
        let ifaces = ior::interfaces(&log).with_context(|| args.log.display().to_string())?;
        let mpiio = pattern::groups_in(&log, modules::MPIIO).with_context(|| args.log.display().to_string())?;
        let parts = ior::Parts { groups: &groups, mpiio: &mpiio, metas: &metas, ifaces: &ifaces };
        return Ok(ior::script(&parts, &src, &scale));
    }
    Ok(fio::job_file(&groups, &metas, &src, &scale))
}

fn write_job(args: &Args) -> anyhow::Result<()> {
    let text = job_text(args, &args.dir)?;
    match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            let (new, mut f) = darshan_log::safe_fs::NewFile::create(p)?;
            std::io::Write::write_all(&mut f, text.as_bytes())?;
            // The IOR script is run as it is.
            new.publish(f, if args.ior { 0o755 } else { 0o644 })?;
            Ok(())
        }
        _ => Ok(cli::stdout(text.as_bytes())?),
    }
}

/// The exact replay's files into `out` (made here): job.fio and
/// rank<N>.iolog; the replayed files go in `dir`. Returns the trace.
fn exact_files(log_path: &Path, out: &Path, dir: &str) -> anyhow::Result<(exact::Trace, Vec<String>)> {
    // An iolog line is words apart: a file name cannot hold white space.
    anyhow::ensure!(!dir.chars().any(char::is_whitespace), "--exact: the directory {dir:?} holds white space");
    let log = LogFile::open(log_path).with_context(|| log_path.display().to_string())?;
    let t = exact::trace(&log)?;
    anyhow::ensure!(
        !t.ranks.is_empty(),
        "{}: no DXT_POSIX segments (DXT_ENABLE_IO_TRACE=1 records them)",
        log_path.display()
    );
    std::fs::create_dir(out).with_context(|| format!("{}: a new directory", out.display()))?;
    let names = exact::replay_names(dir, &t);
    let mut logs = std::collections::BTreeMap::new();
    for rank in t.ranks.keys() {
        let p = out.join(format!("rank{rank}.iolog"));
        std::fs::write(&p, exact::iolog(&names, &t, *rank))?;
        logs.insert(*rank, p.display().to_string());
    }
    std::fs::write(out.join("job.fio"), exact::job_file(&log_path.display().to_string(), &t, &logs))?;
    Ok((t, names))
}

fn write_exact(args: &Args) -> anyhow::Result<()> {
    let Some(out) = &args.output else { anyhow::bail!("--exact writes a directory: give it with -o DIR") };
    exact_files(&args.log, out, &args.dir)?;
    Ok(())
}

fn find_lib(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(p) = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("DARSHAN_RS_LIB").map(PathBuf::from)) {
        return p.canonicalize().with_context(|| format!("library {}", p.display()));
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    [dir.join("libdarshan.so"), dir.join("../lib/libdarshan.so")]
        .into_iter()
        .find(|c| c.exists())
        .ok_or_else(|| anyhow::anyhow!("libdarshan.so not found next to {} (use --lib)", exe.display()))
}

/// `--check`: the job file in a new scratch directory, fio under the
/// runtime, the figures side by side.
fn check(args: &Args) -> anyhow::Result<ExitCode> {
    let lib = find_lib(args.lib.as_deref())?;
    let work = std::env::temp_dir().join(format!("darshan-replay-{}", std::process::id()));
    // Private to the user, new (an existing path is not followed).
    std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
        .create(&work)
        .with_context(|| work.display().to_string())?;
    let result = check_in(args, &lib, &work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn check_in(args: &Args, lib: &Path, work: &Path) -> anyhow::Result<ExitCode> {
    let data = work.join("files");
    std::fs::create_dir(&data)?;
    if args.exact {
        return check_exact(args, lib, work, &data);
    }
    let job = work.join("replay.fio");
    std::fs::write(&job, job_text(args, &data.display().to_string())?)?;
    let logs = check::run_fio(&args.fio_bin, lib, &job, &work.join("logs"), false)?;
    let log = LogFile::open(&args.log)?;
    let groups = replay_groups(&log, true)?;
    let metas = pattern::meta_groups(&log)?;
    drop(log);
    let mut lines = Vec::new();
    // POSIX's groups, then STDIO's streams (replayed as POSIX requests in
    // the files of their own groups: g<N>-…).
    for (module, stream) in [(modules::POSIX, false), (modules::STDIO, true)] {
        let mine: Vec<usize> = (0..groups.len()).filter(|i| groups[*i].stream == stream).collect();
        if mine.is_empty() && stream {
            continue;
        }
        let names: Vec<&str> = mine.iter().map(|i| groups[*i].name.as_str()).collect();
        let original = check::totals(std::slice::from_ref(&args.log), module, &|n| {
            let series = pattern::pattern(n);
            names.iter().any(|g| *g == n || *g == series)
        })?;
        let prefixes: Vec<String> = mine.iter().map(|i| format!("{}/g{}-", data.display(), i + 1)).collect();
        let replay = check::totals(&logs, modules::POSIX, &|n| prefixes.iter().any(|p| n.starts_with(p.as_str())))?;
        lines.extend(check::compare(&original, &replay, !stream));
    }
    let prefix = format!("{}/", data.display());
    let in_replay = |n: &str| n.starts_with(&prefix);
    if !metas.is_empty() {
        let series: Vec<String> = metas.iter().map(|m| m.name.clone()).collect();
        let o = check::meta_totals(std::slice::from_ref(&args.log), &|n| series.contains(&pattern::pattern(n)))?;
        lines.extend(check::compare_meta(&o, &check::meta_totals(&logs, &in_replay)?));
    }
    let mut worst: f64 = 0.0;
    let mut out = format!("{:<28} {:>16} {:>16} {:>8}\n", "POSIX", "original", "replay", "ratio");
    for l in &lines {
        let off = (l.ratio() - 1.0).abs();
        worst = worst.max(off);
        let mark = if off > args.tolerance { "  <- off" } else { "" };
        out.push_str(&format!("{:<28} {:>16.3} {:>16.3} {:>8.3}{mark}\n", l.what, l.original, l.replay, l.ratio()));
    }
    let score = 1.0 - lines.iter().map(|l| (l.ratio() - 1.0).abs().min(1.0)).sum::<f64>() / lines.len().max(1) as f64;
    out.push_str(&format!(
        "score {score:.3} (1: every figure equal); worst figure off by {:.1} %, tolerance {:.1} %\n",
        worst * 100.0,
        args.tolerance * 100.0
    ));
    cli::stdout(out.as_bytes())?;
    Ok(if worst > args.tolerance { ExitCode::from(3) } else { ExitCode::SUCCESS })
}

/// `--check --exact`: every DXT_POSIX segment of the replay against the
/// original's, by file, operation, offset and length.
fn check_exact(args: &Args, lib: &Path, work: &Path, data: &Path) -> anyhow::Result<ExitCode> {
    let dir = data.display().to_string();
    let (t, names) = exact_files(&args.log, &work.join("job"), &dir)?;
    // The files exist before the replay (sparse, made without the
    // runtime): a trace may read what an earlier job wrote.
    for (name, extent) in names.iter().zip(&t.extents) {
        std::fs::File::create(name)?.set_len(*extent)?;
    }
    let index: std::collections::HashMap<&str, usize> =
        names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let logs = check::run_fio(&args.fio_bin, lib, &work.join("job/job.fio"), &work.join("logs"), true)?;
    let mut want: std::collections::BTreeMap<(usize, bool, i64, i64), i64> = Default::default();
    for segs in t.ranks.values() {
        for (_, f, w, off, len) in segs {
            *want.entry((*f, *w, *off, *len)).or_default() += 1;
        }
    }
    let total: i64 = want.values().sum();
    let mut got = std::collections::BTreeMap::new();
    for l in &logs {
        let r = exact::trace(&LogFile::open(l)?)?;
        for segs in r.ranks.values() {
            for (_, f, w, off, len) in segs {
                if let Some(&i) = index.get(r.files[*f].as_str()) {
                    *got.entry((i, *w, *off, *len)).or_insert(0i64) += 1;
                }
            }
        }
    }
    let same: i64 = want.iter().map(|(k, n)| (*n).min(got.get(k).copied().unwrap_or(0))).sum();
    let replayed: i64 = got.values().sum();
    let text = format!(
        "DXT_POSIX segments: {total} in the log, {replayed} in the replay, {same} with the same file, operation, offset and length\n"
    );
    cli::stdout(text.as_bytes())?;
    Ok(if same == total && replayed == total { ExitCode::SUCCESS } else { ExitCode::from(3) })
}
