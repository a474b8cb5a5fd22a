//! darshan-dxt-parser: print the DXT traces of a Darshan log.
#![forbid(unsafe_code)]

use darshan_util::getopt::{getopt_long, Found, LongOpt};

fn usage(exe: &str) -> ! {
    darshan_util::say!("Usage: {exe} [options] <filename>");
    darshan_util::say!("    --help prints this help message and exits");
    darshan_util::say!("    --version prints Darshan version number and exits");
    darshan_util::say!("    --show-incomplete : display results even if log is incomplete");
    darshan_util::say!("    --perfetto OUT.json : write the traces as Chrome Trace Event JSON (Perfetto, about:tracing) to a new file (- : standard output) instead");
    darshan_util::say!(
        "    --max-events N : with --perfetto, write at most N events (default 5000000) and say what was cut"
    );
    std::process::exit(1);
}

/// darshan-dxt-parser 3.5.0's options (getopt_long, no short options).
const OPTS: &[LongOpt] = &[
    LongOpt { name: "show-incomplete", takes_value: false },
    LongOpt { name: "version", takes_value: false },
    LongOpt { name: "help", takes_value: false },
    // Ours: the trace for Perfetto.
    LongOpt { name: "perfetto", takes_value: true },
    LongOpt { name: "max-events", takes_value: true },
];

fn main() {
    darshan_util::cli::one_line_panics("darshan-dxt-parser");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-dxt-parser".into());
    let mut show_incomplete = false;
    let mut perfetto: Option<String> = None;
    let mut max_events = darshan_util::trace_json::DEFAULT_MAX_EVENTS;
    let parsed = getopt_long(&exe, args.get(1..).unwrap_or_default(), OPTS);
    for f in parsed.found {
        match f {
            Found::Opt("show-incomplete", _) => show_incomplete = true,
            Found::Opt("perfetto", v) => perfetto = v,
            Found::Opt("max-events", v) => match v.as_deref().and_then(|v| v.parse::<u64>().ok()) {
                Some(n) => max_events = n,
                None => {
                    darshan_util::say!("{exe}: --max-events takes a number of events");
                    usage(&exe)
                }
            },
            Found::Opt("version", _) => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                std::process::exit(0);
            }
            Found::Bad(msg) => {
                darshan_util::say!("{msg}");
                usage(&exe)
            }
            _ => usage(&exe),
        }
    }
    let Some(file) = parsed.operands.first().cloned() else { usage(&exe) };
    if let Some(out) = perfetto {
        let opts = darshan_util::trace_json::Options { max_events, show_incomplete };
        std::process::exit(darshan_util::trace_json::cli(&file, &out, opts));
    }
    let mut out = darshan_util::out::Out::new();
    let code = darshan_util::dxt::run(&file, show_incomplete, &mut out);
    out.flush();
    std::process::exit(code);
}
