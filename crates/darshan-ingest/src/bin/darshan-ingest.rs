//! darshan-ingest LOGDIR... --db FILE [--parquet DIR] [--json]

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use darshan_ingest::store::{OpenError, Store};
use darshan_ingest::{parquet_out, run};
use darshan_util::cli;
use darshan_util::visible::{visible, visible_bytes};

/// Exit statuses (also in `--help`).
const SOME_UNREADABLE: u8 = 1;
const USAGE: u8 = 2;
const IN_USE: u8 = 3;

#[derive(Parser)]
#[command(
    name = "darshan-ingest",
    version,
    about = "Ingest a tree of Darshan logs into one SQLite database (and a Parquet dataset)",
    after_help = "Re-running on the same tree adds only new logs; a log is keyed by its content, and written \
                  whole or not at all, so a run can be killed at any moment and run again. Logs that cannot be \
                  read are recorded with their error (table logs, status 'error'), named on standard error, and \
                  never stop the batch.\n\n\
                  Exit status: 0 when every log found was ingested or was already in the database (incomplete \
                  logs count as ingested, and are flagged); 1 when some inputs could not be read or are not \
                  Darshan logs (each is named on standard error with why); 2 for a usage error, a path that \
                  does not exist, or a database that cannot be opened or written; 3 when another darshan-ingest \
                  is using the database; 141 when the output's reader went away."
)]
struct Cli {
    /// Log files or directories (walked recursively; Darshan's YYYY/M/D layout or any)
    #[arg(required = true)]
    logdirs: Vec<PathBuf>,
    /// The SQLite database to create or add to
    #[arg(long)]
    db: PathBuf,
    /// Also write the tables as a partitioned Parquet dataset under DIR (new logs only)
    #[arg(long, value_name = "DIR")]
    parquet: Option<PathBuf>,
    /// Worker threads reading logs (default: the machine's cores)
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Seconds between commits: an interruption loses at most this much work (default 2)
    #[arg(long, value_name = "SECONDS")]
    commit_every: Option<f64>,
    /// Print the run's summary as JSON on stdout
    #[arg(long)]
    json: bool,
    /// Print nothing but errors (no progress bar, no summary)
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-ingest");
    let cli = Cli::parse();
    match go(&cli) {
        Ok(code) => ExitCode::from(code),
        Err((code, e)) => {
            cli::say(&format!("darshan-ingest: {}", visible(&e)));
            ExitCode::from(code)
        }
    }
}

fn shown(p: &std::path::Path) -> String {
    visible_bytes(p.as_os_str().as_encoded_bytes()).into_owned()
}

fn go(cli: &Cli) -> Result<u8, (u8, String)> {
    // Before the database is opened (tens of milliseconds on a busy
    // machine): a SIGTERM then ended the ingest with no word (CI48).
    let stop = stop_flag();
    if let Some(msg) = missing(&cli.logdirs) {
        cli::stderr(&msg);
        return Ok(USAGE);
    }
    let mut store = Store::open_locked(&cli.db).map_err(|e| match e {
        OpenError::InUse(_) => (IN_USE, e.to_string()),
        OpenError::Failed { .. } => (USAGE, e.to_string()),
    })?;
    if let (Some(note), false) = (&store.upgraded, cli.quiet) {
        cli::stderr(&format!("darshan-ingest: {}: {note}\n", cli.db.display()));
    }
    let jobs = cli.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let opts =
        run::Options { jobs, progress: !cli.quiet && !cli.json, commit_every: cli.commit_every, stop: Some(stop) };
    let db = cli.db.display().to_string();
    let mut sum =
        run::ingest(&cli.logdirs, &mut store, &opts).map_err(|e| (USAGE, format!("{}: {e}", visible(&db))))?;
    sum.database = cli.db.display().to_string();
    let export = match &cli.parquet {
        Some(dir) => Some(parquet_out::export(&store, dir).map_err(|e| {
            (USAGE, format!("the logs are ingested; the Parquet export stopped (the next run finishes it): {e}"))
        })?),
        None => None,
    };
    // Errors, each on one line, on standard error whatever else is asked.
    let mut errs = String::new();
    for e in &sum.errors {
        let _ = writeln!(errs, "darshan-ingest: {}: {}", visible(&e.path), visible(&e.error));
    }
    cli::stderr(&errs);
    if cli.json {
        let v = serde_json::json!({ "ingest": sum, "parquet": export });
        let text = serde_json::to_string_pretty(&v).map_err(|e| (USAGE, e.to_string()))?;
        cli::stdout(format!("{text}\n").as_bytes()).map_err(|e| (USAGE, e.to_string()))?;
    } else if !cli.quiet {
        cli::stdout(summary(&sum, export.as_ref()).as_bytes()).map_err(|e| (USAGE, e.to_string()))?;
    }
    Ok(if sum.errors.is_empty() { 0 } else { SOME_UNREADABLE })
}

/// A mistyped path is a usage error, found before anything is written:
/// one line for each path that does not exist.
fn missing(paths: &[PathBuf]) -> Option<String> {
    let missing: Vec<&PathBuf> = paths.iter().filter(|p| std::fs::symlink_metadata(p).is_err()).collect();
    if missing.is_empty() {
        return None;
    }
    let mut msg = String::new();
    for p in &missing {
        let _ = writeln!(msg, "darshan-ingest: {}: no such file or directory", shown(p));
    }
    Some(msg)
}

/// SIGTERM or SIGINT: the run stops at its next log and cleans up (a
/// second one ends it at once).
fn stop_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone());
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    stop
}

/// The run's summary for a terminal.
fn summary(sum: &run::Summary, export: Option<&parquet_out::ExportSummary>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} logs found, {} ingested ({} partial), {} unreadable, {} duplicates, {} unchanged; {:.1} s, {:.0} logs/s",
        visible(&sum.database),
        sum.files_found,
        sum.ingested,
        sum.partial,
        sum.failed,
        sum.duplicates,
        sum.unchanged,
        sum.seconds,
        sum.logs_per_second
    );
    if sum.process_logs_grouped > 0 {
        let _ = writeln!(
            o,
            "  {} per-process logs of jobs without MPI ingested as their jobs ({} job logs made here)",
            sum.process_logs_grouped, sum.job_logs_made
        );
    }
    // A tree of thousands of partial logs must not flood the terminal;
    // the database (table logs) and --json have them all.
    const SHOWN: usize = 20;
    for e in sum.partial_logs.iter().take(SHOWN) {
        let _ = writeln!(o, "  {} (partial): {}", visible(&e.path), visible(&e.error));
    }
    if sum.partial_logs.len() > SHOWN {
        let _ = writeln!(
            o,
            "  ... and {} more partial: SELECT path, error FROM logs WHERE status = 'partial' (or --json)",
            sum.partial_logs.len() - SHOWN
        );
    }
    if let Some(x) = export {
        let _ = writeln!(o, "{}: {} logs exported in {} files", visible(&x.directory), x.logs, x.files_written);
    }
    o
}
