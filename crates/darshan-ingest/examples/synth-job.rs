//! The per-process logs of one job without MPI, for the job-merge
//! benchmark (scripts/bench-job-merge.sh): `synth-job <dir> <tasks> [writes]`.
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: synth-job <dir> <tasks> [writes per task]");
        std::process::exit(2);
    };
    let writes = args.get(3).and_then(|w| w.parse().ok()).unwrap_or(16);
    match darshan_ingest::synth::process_logs(&PathBuf::from(dir), 77, n, writes) {
        Ok(v) => println!("{} logs in {dir}", v.len()),
        Err(e) => {
            eprintln!("synth-job: {e}");
            std::process::exit(1);
        }
    }
}
