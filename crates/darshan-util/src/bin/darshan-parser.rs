//! darshan-parser: print a Darshan log as text (drop-in for the C tool).
#![forbid(unsafe_code)]

use darshan_util::out::Out;
use darshan_util::parser::*;

fn usage(exe: &str) -> ! {
    darshan_util::say!("Usage: {exe} [options] <filename>");
    darshan_util::say!("    --all   : all sub-options are enabled");
    darshan_util::say!("    --base  : darshan log field data [default]");
    darshan_util::say!("    --file  : total file counts");
    darshan_util::say!("    --perf  : derived perf data");
    darshan_util::say!("    --total : aggregated darshan field data");
    darshan_util::say!("    --show-incomplete : display results even if log is incomplete");
    darshan_util::say!("    --version : print the darshan-util version this parser matches");
    std::process::exit(1);
}

fn main() {
    darshan_util::cli::one_line_panics("darshan-parser");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-parser".into());
    let mut mask = 0u32;
    let mut file = None;
    let mut only_files = false;
    for a in &args[1..] {
        if only_files || !a.starts_with("--") || a == "-" {
            if file.is_none() {
                file = Some(a.clone());
            }
            continue;
        }
        match a.as_str() {
            "--" => only_files = true,
            "--all" => mask |= OPT_ALL,
            "--base" => mask |= OPT_BASE,
            "--file" => mask |= OPT_FILE,
            "--perf" => mask |= OPT_PERF,
            "--total" => mask |= OPT_TOTAL,
            "--show-incomplete" => mask |= OPT_SHOW_INCOMPLETE,
            "--version" => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                return;
            }
            _ => usage(&exe),
        }
    }
    let file = file.unwrap_or_else(|| usage(&exe));
    if mask == 0 || mask == OPT_SHOW_INCOMPLETE {
        mask |= OPT_BASE;
    }
    let mut out = Out::new();
    let code = run(&file, mask, &mut out);
    out.flush();
    std::process::exit(code);
}
