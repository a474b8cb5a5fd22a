//! darshan-study --db FILE [-o study.html] [--json]
//! darshan-study calibrate OBSERVATIONS.csv [-o fsu.json]

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use darshan_log::safe_fs::write_replacing;
use darshan_report::diagnose::Config;
use darshan_study::{calibrate, render, study, Options};
use darshan_util::cli;
use darshan_util::visible::visible;

#[derive(Parser)]
#[command(
    name = "darshan-study",
    version,
    about = "The facility study of a darshan-ingest database: tables, seed-paper metrics, timeline (HTML or JSON)",
    args_conflicts_with_subcommands = true,
    after_help = "Exit status: 0 when the study was written; 2 when it could not be (a missing file, a file \
                  that is not a darshan-ingest database, a database with no logs, an unwritable output: one \
                  line says which), or for a usage error; 141 when the output's reader went away."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// The database darshan-ingest wrote
    #[arg(long)]
    db: Option<PathBuf>,
    /// Write the HTML page here (default: study.html)
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print the study as JSON on stdout instead
    #[arg(long)]
    json: bool,
    /// Timeline interval Δt, seconds
    #[arg(long, default_value_t = 600.0)]
    interval: f64,
    /// FSU coefficients (and thresholds): darshan-summary's JSON config, e.g. from `calibrate`
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Fit the FSU model's a0/a1 (reads and writes) to measured observations
    Calibrate {
        /// CSV with the header op,size,count,seconds
        observations: PathBuf,
        /// Write the coefficients as a config file here (default: stdout)
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-study");
    match go(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the context, then each cause (`a: b: c`).
            cli::say(&format!("darshan-study: {}", visible(&cli::error_line(e.as_ref()))));
            ExitCode::from(2)
        }
    }
}

fn go(cli: Cli) -> anyhow::Result<()> {
    if let Some(Cmd::Calibrate { observations, output }) = cli.cmd {
        let shown = || observations.display().to_string();
        let text = std::fs::read_to_string(&observations).with_context(shown)?;
        let c = calibrate::calibrate(&text).with_context(shown)?;
        let cfg = serde_json::to_string_pretty(&c.config_json())?;
        for (op, f) in [("read", c.read), ("write", c.write)] {
            cli::say(&format!(
                "{op}: a0 = {:.4e} s per operation, a1 = {:.4e} s per byte ({:.0} MB/s); {} observations, R² = {:.4}",
                f.a0,
                f.a1,
                if f.a1 > 0.0 { 1e-6 / f.a1 } else { f64::INFINITY },
                f.observations,
                f.r2
            ));
        }
        return match output {
            Some(p) => write_replacing(&p, (cfg + "\n").as_bytes()).with_context(|| p.display().to_string()),
            None => Ok(cli::stdout(format!("{cfg}\n").as_bytes())?),
        };
    }
    let db = cli.db.context("--db FILE is required (the database darshan-ingest wrote)")?;
    let config = match &cli.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    let s = study(&db, &Options { interval: cli.interval, config })?;
    if cli.json {
        let text = serde_json::to_string_pretty(&s)?;
        return Ok(cli::stdout(format!("{text}\n").as_bytes())?);
    }
    let out = cli.output.unwrap_or_else(|| PathBuf::from("study.html"));
    let html = render::render(&s)?;
    write_replacing(&out, html.as_bytes()).with_context(|| out.display().to_string())?;
    cli::say(&format!("darshan-study: {} ({} logs)", visible(&out.display().to_string()), s.logs.total));
    Ok(())
}
