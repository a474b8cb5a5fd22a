//! darshan-diff: the differences between two Darshan logs, record by
//! record, as Darshan 3.5.0's darshan-diff prints them (darshan_util::diff).
#![forbid(unsafe_code)]

fn main() {
    darshan_util::cli::one_line_panics("darshan-diff");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "--version" {
        darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
        std::process::exit(0);
    }
    if args.len() != 2 {
        darshan_util::say!("Usage: darshan-diff [--version | <logfile1> <logfile2>]");
        std::process::exit(255);
    }
    let mut out = darshan_util::out::Out::new();
    let code = darshan_util::diff::run(&args[0], &args[1], &mut out);
    out.flush();
    std::process::exit(code);
}
