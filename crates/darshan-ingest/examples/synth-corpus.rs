//! Write a synthetic facility's logs for the ingest benchmark:
//! `synth-corpus DIR N [SEED]` (see darshan_ingest::synth).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: synth-corpus DIR N [SEED]");
        std::process::exit(2);
    }
    let n: usize = args[2].parse().unwrap_or(0);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    match darshan_ingest::synth::generate(std::path::Path::new(&args[1]), n, seed) {
        Ok(v) => println!("{} logs under {}", v.len(), args[1]),
        Err(e) => {
            eprintln!("synth-corpus: {e}");
            std::process::exit(1);
        }
    }
}
