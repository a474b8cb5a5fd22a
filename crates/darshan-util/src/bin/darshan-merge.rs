//! darshan-merge: one log from the crash-safe files of a job that did not
//! finish (see darshan_util::merge).
#![forbid(unsafe_code)]

use std::path::PathBuf;

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

fn main() {
    darshan_util::cli::one_line_panics("darshan-merge");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = None;
    let mut opt = Options { shared_redux: false, job_end_time: None };
    let (mut dir, mut jobid) = (None, None);
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| usage());
        match args[i].as_str() {
            "--output" => (out, i) = (Some(val(i)), i + 1),
            "--shared-redux" => opt.shared_redux = true,
            "--job-end-time" => {
                let v = val(i);
                opt.job_end_time = Some(v.parse().unwrap_or_else(|_| {
                    darshan_util::say!("darshan-merge: --job-end-time expects seconds since the epoch, got {v:?}");
                    std::process::exit(1)
                }));
                i += 1;
            }
            "--dir" => (dir, i) = (Some(val(i)), i + 1),
            "--jobid" => (jobid, i) = (Some(val(i)), i + 1),
            a if a.starts_with("--") => usage(),
            a => files.push(PathBuf::from(a)),
        }
        i += 1;
    }
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
