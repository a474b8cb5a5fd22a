//! darshan-summary LOG [-o report.html] [--text] [--pdf] [--json]: one
//! job's I/O report with a diagnosis.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use darshan_report::diagnose::Config;
use darshan_report::{analyze, render, Options};
use darshan_util::cli;
use darshan_util::visible::visible;

#[derive(Parser)]
#[command(
    name = "darshan-summary",
    version,
    about = "Summarize a Darshan log: what the job's I/O did and what to change",
    after_help = "Exit status: 0 when the report was written; 1 when the log cannot be read or the report \
                  cannot be written (one line says why); 2 for a usage error; 141 when the output's reader \
                  went away."
)]
struct Args {
    /// The Darshan log (one: a report is about one job).
    #[arg(required = true, num_args = 1.., value_name = "LOG")]
    logs: Vec<PathBuf>,
    /// Where to write the HTML report (default: <log name>_report.html in
    /// the current directory). With --text or --json, write that instead;
    /// with --pdf, the PDF (default: <log name>_report.pdf); `-` is
    /// standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Plain text for a terminal.
    #[arg(long, conflicts_with_all = ["json", "pdf"])]
    text: bool,
    /// The plain-text report as a PDF, landscape pages, then each
    /// module's operation counts and access sizes as bar charts (what
    /// darshan-job-summary.pl, installed beside this tool, writes).
    #[arg(long, conflicts_with = "json")]
    pdf: bool,
    /// Every figure and finding as JSON.
    #[arg(long)]
    json: bool,
    /// Thresholds and FSU coefficients (JSON; Drishti's --config files work).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Rows in each per-file table.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Also write the log's DXT traces (or, without DXT, its heat maps) as
    /// Chrome Trace Event JSON for Perfetto to this new file (as
    /// darshan-dxt-parser --perfetto).
    #[arg(long, value_name = "OUT.json")]
    trace: Option<PathBuf>,
    /// Compare the job with the application's earlier runs in this
    /// darshan-ingest database (a section: what moved beyond their noise).
    #[arg(long, value_name = "DB")]
    history: Option<PathBuf>,
    /// What makes an earlier run the same application's: exe (the
    /// executable's name), command (the whole command line) or meta:NAME
    /// (NAME= in the job's metadata, e.g. a project or job name).
    #[arg(long, value_name = "KEY", default_value = "exe", requires = "history")]
    history_key: darshan_history::Key,
    /// Compare with at most the last N comparable runs (at least 5 are
    /// needed to judge).
    #[arg(long, value_name = "N", default_value_t = darshan_history::DEFAULT_RUNS, requires = "history")]
    history_runs: usize,
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-summary");
    let args = Args::parse();
    if args.logs.len() > 1 {
        cli::say(&format!(
            "darshan-summary: {} logs given, but a report is about one job's log. For one report per log: \
             for f in LOGS; do darshan-summary \"$f\"; done. For one job that left several logs (one per \
             process, or a killed job's crash-safe files): darshan-merge --shared-redux --output job.darshan \
             LOGS, then darshan-summary job.darshan.",
            args.logs.len()
        ));
        return ExitCode::from(2);
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the context, then each cause (`a: b: c`).
            cli::say(&format!("darshan-summary: {}", visible(&cli::error_line(e.as_ref()))));
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    let config = match &args.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    let mut report = analyze(&args.logs[0], &Options { config, top: args.top.max(1) })?;
    if let Some(out) = &args.trace {
        let log = darshan_log::LogFile::open(&args.logs[0]).with_context(|| args.logs[0].display().to_string())?;
        let shown = args.logs[0].display().to_string();
        let w = darshan_util::trace_json::to_new_file(&log, &shown, out, Default::default())
            .with_context(|| format!("trace {}", out.display()))?;
        let cut = if w.cut > 0 { format!("; {} events left out", w.cut) } else { String::new() };
        cli::say(&format!(
            "darshan-summary: trace {}: {} DXT segments, {} heat map samples{cut}",
            visible(&out.display().to_string()),
            w.segment_events,
            w.counter_events
        ));
    }
    if let Some(db) = &args.history {
        let opts = darshan_history::Options { db: db.clone(), key: args.history_key.clone(), runs: args.history_runs };
        let h = darshan_history::compare(&args.logs[0], &opts).map_err(anyhow::Error::msg)?;
        // Said where the user looks, whatever the output: a missing
        // database or too few runs is a message, not an error.
        cli::say(&format!("darshan-summary: history: {}", visible(&h.said)));
        report.history = Some(h);
    }
    let stem = args.logs[0].file_name().map(|f| f.to_string_lossy().trim_end_matches(".darshan").to_string());
    let named = |ext: &str| Some(PathBuf::from(format!("{}_report.{ext}", stem.clone().unwrap_or_default())));
    let (body, default_out) = if args.text {
        (render::text::render(&report).into_bytes(), None)
    } else if args.json {
        (render::json(&report).into_bytes(), None)
    } else if args.pdf {
        (render::pdf::report(&report), named("pdf"))
    } else {
        (render::html::render(&report).context("rendering the report")?.into_bytes(), named("html"))
    };
    let out = args.output.clone().or(default_out);
    match out {
        Some(p) if p.as_os_str() != "-" => {
            darshan_log::safe_fs::write_replacing(&p, &body).with_context(|| p.display().to_string())?;
            if !args.text && !args.json {
                cli::say(&format!("darshan-summary: wrote {}", visible(&p.display().to_string())));
            }
            Ok(())
        }
        // A closed pipe (| head) ends the tool quietly.
        _ => Ok(cli::stdout(&body)?),
    }
}
