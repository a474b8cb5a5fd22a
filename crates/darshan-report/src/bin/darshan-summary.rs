//! darshan-summary LOG [-o report.html] [--text] [--json]: one job's I/O
//! report with a diagnosis.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use darshan_report::diagnose::Config;
use darshan_report::{analyze, render, Options};

#[derive(Parser)]
#[command(
    name = "darshan-summary",
    version,
    about = "Summarize a Darshan log: what the job's I/O did and what to change"
)]
struct Args {
    /// The Darshan log.
    log: PathBuf,
    /// Where to write the HTML report (default: <log name>_report.html in
    /// the current directory). With --text or --json, write that instead;
    /// `-` is standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Plain text for a terminal.
    #[arg(long, conflicts_with = "json")]
    text: bool,
    /// Every figure and finding as JSON.
    #[arg(long)]
    json: bool,
    /// Thresholds and FSU coefficients (JSON; Drishti's --config files work).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Rows in each per-file table.
    #[arg(long, default_value_t = 10)]
    top: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("darshan-summary: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let config = match &args.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    let report = analyze(&args.log, &Options { config, top: args.top.max(1) })?;
    let (body, default_out) = if args.text {
        (render::text::render(&report), None)
    } else if args.json {
        (render::json(&report), None)
    } else {
        let stem = args.log.file_name().map(|f| f.to_string_lossy().trim_end_matches(".darshan").to_string());
        (render::html::render(&report)?, Some(PathBuf::from(format!("{}_report.html", stem.unwrap_or_default()))))
    };
    let out = args.output.clone().or(default_out);
    match out {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(&p, body).map_err(|e| format!("{}: {e}", p.display()))?;
            if !args.text && !args.json {
                eprintln!("darshan-summary: wrote {}", p.display());
            }
            Ok(())
        }
        _ => {
            let mut so = std::io::stdout().lock();
            // A closed pipe (| head) is not an error worth reporting.
            let _ = so.write_all(body.as_bytes());
            Ok(())
        }
    }
}
