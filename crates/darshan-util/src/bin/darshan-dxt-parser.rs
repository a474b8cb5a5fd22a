//! darshan-dxt-parser: print the DXT traces of a Darshan log.
#![forbid(unsafe_code)]

fn usage(exe: &str) -> ! {
    darshan_util::say!("Usage: {exe} [options] <filename>");
    darshan_util::say!("    --help prints this help message and exits");
    darshan_util::say!("    --version prints Darshan version number and exits");
    darshan_util::say!("    --show-incomplete : display results even if log is incomplete");
    std::process::exit(1);
}

fn main() {
    darshan_util::cli::one_line_panics("darshan-dxt-parser");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-dxt-parser".into());
    let mut show_incomplete = false;
    let mut file = None;
    for a in &args[1..] {
        match a.as_str() {
            "--show-incomplete" => show_incomplete = true,
            "--version" => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                std::process::exit(0);
            }
            s if s.starts_with("--") => usage(&exe),
            s => file = file.or(Some(s.to_string())),
        }
    }
    let Some(file) = file else { usage(&exe) };
    let mut out = darshan_util::out::Out::new();
    let code = darshan_util::dxt::run(&file, show_incomplete, &mut out);
    out.flush();
    std::process::exit(code);
}
