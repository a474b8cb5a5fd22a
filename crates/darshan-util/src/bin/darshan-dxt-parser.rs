//! darshan-dxt-parser: print the DXT traces of a Darshan log.
#![forbid(unsafe_code)]

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = match args.iter().skip(1).find(|a| !a.starts_with("--")) {
        Some(f) if args.len() == 2 => f.clone(),
        _ => {
            eprintln!("Usage: darshan-dxt-parser <filename>");
            std::process::exit(1);
        }
    };
    let mut out = darshan_util::out::Out::new();
    let code = darshan_util::dxt::run(&file, &mut out);
    out.flush();
    std::process::exit(code);
}
