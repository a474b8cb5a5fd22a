//! darshan-study --db FILE [-o study.html] [--json]
//! darshan-study calibrate OBSERVATIONS.csv [-o fsu.json]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use darshan_report::diagnose::Config;
use darshan_study::{calibrate, render, study, Options};

#[derive(Parser)]
#[command(
    name = "darshan-study",
    version,
    about = "The facility study of a darshan-ingest database: tables, seed-paper metrics, timeline (HTML or JSON)",
    args_conflicts_with_subcommands = true
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
    match go(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("darshan-study: {e}");
            ExitCode::from(2)
        }
    }
}

fn go(cli: Cli) -> Result<(), String> {
    if let Some(Cmd::Calibrate { observations, output }) = cli.cmd {
        let text = std::fs::read_to_string(&observations).map_err(|e| format!("{}: {e}", observations.display()))?;
        let c = calibrate::calibrate(&text).map_err(|e| format!("{}: {e}", observations.display()))?;
        let cfg = serde_json::to_string_pretty(&c.config_json()).map_err(|e| e.to_string())?;
        for (op, f) in [("read", c.read), ("write", c.write)] {
            eprintln!(
                "{op}: a0 = {:.4e} s per operation, a1 = {:.4e} s per byte ({:.0} MB/s); {} observations, R² = {:.4}",
                f.a0,
                f.a1,
                if f.a1 > 0.0 { 1e-6 / f.a1 } else { f64::INFINITY },
                f.observations,
                f.r2
            );
        }
        return match output {
            Some(p) => std::fs::write(&p, cfg + "\n").map_err(|e| format!("{}: {e}", p.display())),
            None => {
                println!("{cfg}");
                Ok(())
            }
        };
    }
    let db = cli.db.ok_or("--db FILE is required (the database darshan-ingest wrote)")?;
    let config = match &cli.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    let s = study(&db, &Options { interval: cli.interval, config })?;
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?);
        return Ok(());
    }
    let out = cli.output.unwrap_or_else(|| PathBuf::from("study.html"));
    let html = render::render(&s)?;
    std::fs::write(&out, html).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("darshan-study: {} ({} logs)", out.display(), s.logs.total);
    Ok(())
}
