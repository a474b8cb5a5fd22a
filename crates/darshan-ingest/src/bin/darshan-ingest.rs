//! darshan-ingest LOGDIR... --db FILE [--parquet DIR] [--json]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use darshan_ingest::{parquet_out, run, store::Store};

#[derive(Parser)]
#[command(
    name = "darshan-ingest",
    version,
    about = "Ingest a tree of Darshan logs into one SQLite database (and a Parquet dataset)",
    after_help = "Re-running on the same tree adds only new logs; a log is keyed by its content. Logs that cannot be \
                  read are recorded with their error (table logs, status 'error') and never stop the batch."
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
    /// No progress bar
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match go(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("darshan-ingest: {e}");
            ExitCode::from(2)
        }
    }
}

fn go(cli: &Cli) -> Result<ExitCode, String> {
    let mut store = Store::open(&cli.db)?;
    let jobs = cli.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let opts = run::Options { jobs, progress: !cli.quiet && !cli.json, commit_every: cli.commit_every };
    let mut sum = run::ingest(&cli.logdirs, &mut store, &opts)?;
    sum.database = cli.db.display().to_string();
    let export = match &cli.parquet {
        Some(dir) => Some(parquet_out::export(&store, dir)?),
        None => None,
    };
    if cli.json {
        let v = serde_json::json!({ "ingest": sum, "parquet": export });
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
    } else {
        println!(
            "{}: {} logs found, {} ingested ({} partial), {} unreadable, {} duplicates, {} unchanged; {:.1} s, {:.0} logs/s",
            sum.database,
            sum.files_found,
            sum.ingested,
            sum.partial,
            sum.failed,
            sum.duplicates,
            sum.unchanged,
            sum.seconds,
            sum.logs_per_second
        );
        // A tree of thousands of bad logs must not flood the terminal; the
        // database (table logs) and --json have them all.
        const SHOWN: usize = 20;
        for e in sum.errors.iter().take(SHOWN) {
            println!(
                "  {} ({}): {}",
                e.path,
                serde_json::to_string(&e.status).unwrap_or_default().trim_matches('"'),
                e.error
            );
        }
        if sum.errors.len() > SHOWN {
            println!(
                "  ... and {} more: SELECT path, status, error FROM logs WHERE status != 'ok' (or --json)",
                sum.errors.len() - SHOWN
            );
        }
        if let Some(x) = &export {
            println!("{}: {} logs exported in {} files", x.directory, x.logs, x.files_written);
        }
    }
    Ok(ExitCode::SUCCESS)
}
