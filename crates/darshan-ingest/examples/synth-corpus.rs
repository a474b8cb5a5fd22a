//! Write a synthetic facility's logs for the ingest benchmark:
//! `synth-corpus DIR N [SEED]` (see darshan_ingest::synth).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: synth-corpus DIR N [SEED]");
        std::process::exit(2);
    }
    let (Ok(n), Ok(seed)) = (args[2].parse::<usize>(), args.get(3).map_or(Ok(1), |s| s.parse::<u64>())) else {
        eprintln!("synth-corpus: N and SEED must be non-negative integers");
        std::process::exit(2);
    };
    match darshan_ingest::synth::generate(std::path::Path::new(&args[1]), n, seed) {
        Ok(v) => println!("{} logs under {}", v.len(), args[1]),
        Err(e) => {
            eprintln!("synth-corpus: {e}");
            std::process::exit(1);
        }
    }
}
