//! darshan-parser: print a Darshan log as text (drop-in for the C tool).
#![forbid(unsafe_code)]

use darshan_util::getopt::{getopt_long, Found, LongOpt};
use darshan_util::out::Out;
use darshan_util::parser::*;

/// darshan-parser 3.5.0's usage, word for word.
fn usage(exe: &str) -> ! {
    darshan_util::say!("Usage: {exe} [options] <filename>");
    darshan_util::say!("    --help    : prints this help message and exits");
    darshan_util::say!("    --version : prints Darshan version number and exits");
    darshan_util::say!("    --all     : all sub-options are enabled");
    darshan_util::say!("    --base    : Darshan log field data [default]");
    darshan_util::say!("    --file    : total file counts");
    darshan_util::say!("    --perf    : derived perf data");
    darshan_util::say!("    --total   : aggregated Darshan field data");
    darshan_util::say!("    --show-incomplete : display results even if log is incomplete");
    std::process::exit(1);
}

/// darshan-parser 3.5.0's options (getopt_long, no short options).
const OPTS: &[LongOpt] = &[
    LongOpt { name: "all", takes_value: false },
    LongOpt { name: "base", takes_value: false },
    LongOpt { name: "file", takes_value: false },
    LongOpt { name: "perf", takes_value: false },
    LongOpt { name: "total", takes_value: false },
    LongOpt { name: "show-incomplete", takes_value: false },
    LongOpt { name: "help", takes_value: false },
    LongOpt { name: "version", takes_value: false },
];

fn main() {
    darshan_util::cli::one_line_panics("darshan-parser");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-parser".into());
    let mut mask = 0u32;
    let parsed = getopt_long(&exe, args.get(1..).unwrap_or_default(), OPTS);
    for f in parsed.found {
        match f {
            Found::Opt("all", _) => mask |= OPT_ALL,
            Found::Opt("base", _) => mask |= OPT_BASE,
            Found::Opt("file", _) => mask |= OPT_FILE,
            Found::Opt("perf", _) => mask |= OPT_PERF,
            Found::Opt("total", _) => mask |= OPT_TOTAL,
            Found::Opt("show-incomplete", _) => mask |= OPT_SHOW_INCOMPLETE,
            Found::Opt("version", _) => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                return;
            }
            Found::Bad(msg) => {
                darshan_util::say!("{msg}");
                usage(&exe)
            }
            _ => usage(&exe),
        }
    }
    let file = parsed.operands.first().cloned().unwrap_or_else(|| usage(&exe));
    if mask == 0 || mask == OPT_SHOW_INCOMPLETE {
        mask |= OPT_BASE;
    }
    let mut out = Out::new();
    let code = run(&file, mask, &mut out);
    out.flush();
    std::process::exit(code);
}
