//! darshan-merge: one log from the crash-safe files of a job that did not
//! finish (see darshan_util::merge).
#![forbid(unsafe_code)]

use std::path::PathBuf;

use darshan_util::getopt::{getopt_long, Found, LongOpt};
use darshan_util::merge::{find_job_files, merge, Options};

fn usage() -> ! {
    darshan_util::say!("Usage: darshan-merge [options] <infile1> <infile2> ...");
    darshan_util::say!("       darshan-merge [options] --dir <directory> --jobid <id>");
    darshan_util::say!("       Merges the crash-safe (mmap) logs of one job into a single log.");
    darshan_util::say!("       --output <file>         Output log (required).");
    darshan_util::say!("       --shared-redux          Reduce the records every rank has into one record.");
    darshan_util::say!("       --job-end-time <secs>   Job end time (seconds since the epoch) to record.");
    darshan_util::say!("       --dir <d> --jobid <id>  Take every crash-safe log of job <id> found in <d>.");
    std::process::exit(1);
}

/// darshan-merge 3.5.0's options, and ours (--dir, --jobid).
const OPTS: &[LongOpt] = &[
    LongOpt { name: "output", takes_value: true },
    LongOpt { name: "shared-redux", takes_value: false },
    LongOpt { name: "job-end-time", takes_value: true },
    LongOpt { name: "version", takes_value: false },
    LongOpt { name: "help", takes_value: false },
    LongOpt { name: "dir", takes_value: true },
    LongOpt { name: "jobid", takes_value: true },
];

fn main() {
    darshan_util::cli::one_line_panics("darshan-merge");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-merge".into());
    let mut out = None;
    let mut opt = Options { shared_redux: false, job_end_time: None };
    let (mut dir, mut jobid) = (None, None);
    let parsed = getopt_long(&exe, args.get(1..).unwrap_or_default(), OPTS);
    for f in parsed.found {
        match f {
            Found::Opt("output", v) => out = v,
            Found::Opt("shared-redux", _) => opt.shared_redux = true,
            Found::Opt("job-end-time", Some(v)) => {
                opt.job_end_time = Some(v.parse().unwrap_or_else(|_| {
                    darshan_util::say!("darshan-merge: --job-end-time expects seconds since the epoch, got {v:?}");
                    std::process::exit(1)
                }));
            }
            Found::Opt("dir", v) => dir = v,
            Found::Opt("jobid", v) => jobid = v,
            Found::Opt("version", _) => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                std::process::exit(0);
            }
            Found::Bad(msg) => {
                darshan_util::say!("{msg}");
                usage()
            }
            _ => usage(),
        }
    }
    let mut files: Vec<PathBuf> = parsed.operands.iter().map(PathBuf::from).collect();
    let Some(out) = out else { usage() };
    match (dir, jobid) {
        (Some(d), Some(j)) => match find_job_files(d.as_ref(), &j) {
            Ok(v) => files.extend(v),
            Err(e) => {
                darshan_util::say!("darshan-merge: {e}");
                std::process::exit(1);
            }
        },
        (None, None) => {}
        _ => usage(),
    }
    if files.is_empty() {
        usage();
    }
    match merge(&files, out.as_ref(), &opt) {
        Ok(n) => darshan_util::say!("darshan-merge: {} logs, {n} records -> {out}", files.len()),
        Err(e) => {
            darshan_util::say!("darshan-merge: {e}");
            std::process::exit(1);
        }
    }
}
