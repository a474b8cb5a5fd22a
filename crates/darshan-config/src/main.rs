//! `darshan-config`: what this runtime was built with and how to link it,
//! with the options and output of the C tool (darshan-runtime's
//! darshan-config.in), so that site scripts written for Darshan keep
//! working. Options are answered one line each, in the order given.
//!
//! The install prefix is found from this program's own path
//! (`<prefix>/bin/darshan-config`), so an installed tree can be moved.
//!
//! Why not clap, as the other tools: the C tool is a shell loop over its
//! arguments (`while test $# -gt 0; case $1 ...`), and scripts rely on
//! what that does: each option answered as it comes (a repeated one
//! twice), the answers before an unknown option printed, then
//! `unknown option: X`, the usage on stdout and exit 1. A parser that
//! validates the whole command line first cannot do that; the options are
//! one table here (`answer`), which `--all` and the tests walk.
#![forbid(unsafe_code)]

mod facts;

use std::io::Write;

use facts::Facts;

const USAGE: &str = include_str!("usage.txt");

use darshan_log::defaults;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let facts = match Facts::of_this_install() {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "darshan-config: {e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::stdout().lock();
    if args.is_empty() {
        // As the C tool: no option is an error (it prints an empty line).
        let _ = write!(std::io::stderr(), "{USAGE}");
        std::process::exit(1);
    }
    for a in &args {
        match answer(&facts, a) {
            Answer::Line(s) => {
                let _ = writeln!(out, "{s}");
            }
            Answer::Text(s) => {
                let _ = write!(out, "{s}");
            }
            Answer::Usage(code) => {
                let _ = out.flush();
                if code == 0 {
                    let _ = write!(out, "{USAGE}");
                } else {
                    let _ = writeln!(out, "unknown option: {a}\n");
                    let _ = write!(out, "{USAGE}");
                }
                let _ = out.flush();
                std::process::exit(code);
            }
            Answer::Fail(msg) => {
                let _ = out.flush();
                let _ = writeln!(std::io::stderr(), "darshan-config: {msg}");
                std::process::exit(1);
            }
        }
    }
}

enum Answer {
    Line(String),
    Text(String),
    Usage(i32),
    Fail(facts::FactsError),
}

fn answer(f: &Facts, opt: &str) -> Answer {
    use Answer::*;
    let yes_no = |b: bool| Line(if b { "yes" } else { "no" }.into());
    match opt {
        "--help" => Usage(0),
        "--all" => Text(all(f)),
        "--version" => Line(f.version()),
        "--cc" => Line(facts::CC.into()),
        "--cflags" | "--cppflags" | "--ldflags" | "--libs" => Line(String::new()),
        "--libdir" => Line(f.lib_dir()),
        "--pre-ld-flags" => f.pre_ld_flags().map(Line).unwrap_or_else(Fail),
        "--post-ld-flags" => f.post_ld_flags().map(Line).unwrap_or_else(Fail),
        "--dyn-ld-flags" => Line(f.dyn_ld_flags()),
        "--hdf5-ld-flags" => f.hdf5_ld_flags().map(Line).unwrap_or_else(Fail),
        "--pnetcdf-ld-flags" => f.pnetcdf_ld_flags().map(Line).unwrap_or_else(Fail),
        "--log-path" => Line(installed_or(f, "LOGPATH", String::new)),
        "--log-path-by-env" => Line(installed_or(f, "LOGPATH_BYENV", || defaults::LOG_PATH_ENVS.into())),
        "--zlib-path" => Line(String::new()),
        "--mem-align" => Line(installed_or(f, "MEM_ALIGNMENT", || defaults::DEF_MEM_ALIGN.to_string())),
        "--log-hints" => Line(installed_or(f, "LOGHINTS", || defaults::DEF_LOG_HINTS.into())),
        "--jobid-env" => Line(installed_or(f, "JOBID", || facts::JOBID_ENVS.join(","))),
        "--username-env" => Line(installed_or(f, "USERNAME_ENV", String::new)),
        "--mod-mem" => Line(installed_or(f, "MODMEM", || (defaults::DEF_MOD_MEM >> 20).to_string())),
        // The C tool answers --with-name-mem (its own typo); both work here.
        "--name-mem" | "--with-name-mem" => {
            Line(installed_or(f, "NAMEMEM", || (defaults::DEF_NAME_MEM >> 20).to_string()))
        }
        "--hdf5-path" | "--pnetcdf-path" | "--daos-path" | "--ldms-path" => Line(String::new()),
        "--rdtscp" => Line(String::new()),
        "--exit-wrapper" => yes_no(facts::EXIT_WRAPPER),
        other => match facts::FEATURES.iter().find(|(name, _)| *name == other.trim_start_matches("--")) {
            Some(&(name, on)) => yes_no(f.feature(name, on)),
            None => Usage(1),
        },
    }
}

/// The value given at install for `key` (what the runtime then takes by
/// default), or the runtime's own default.
fn installed_or(f: &Facts, key: &str, default: impl FnOnce() -> String) -> String {
    f.installed(key).map_or_else(default, String::from)
}

/// `--all`, in the C tool's layout: the features, then each option with
/// the value that option itself answers.
fn all(f: &Facts) -> String {
    let v = f.version();
    let mut s = format!("\nThis {v} was built with the following features:\n\n");
    for (name, on) in facts::FEATURES {
        s += &format!("  {:<24}-> {}\n", format!("--{name}"), if f.feature(name, on) { "yes" } else { "no" });
        if name == "ldms-mod" {
            s += &format!("  {:<24}-> no\n", "--rdtscp");
            s += &format!("  {:<24}-> {}\n", "--exit-wrapper", if facts::EXIT_WRAPPER { "yes" } else { "no" });
        }
    }
    s += &format!("\nThis {v} was built using the following compilers and flags:\n\n");
    const SECTIONS: [&[&str]; 3] = [
        &["--cc", "--cppflags", "--cflags", "--ldflags", "--libs"],
        &["--pre-ld-flags", "--post-ld-flags", "--dyn-ld-flags", "--log-path", "--log-path-by-env"],
        &[
            "--zlib-path",
            "--mem-align",
            "--log-hints",
            "--jobid-env",
            "--username-env",
            "--mod-mem",
            "--name-mem",
            "--hdf5-path",
            "--pnetcdf-path",
            "--daos-path",
            "--ldms-path",
        ],
    ];
    let rows: Vec<String> = SECTIONS
        .iter()
        .map(|keys| {
            keys.iter()
                .map(|k| {
                    let value = match answer(f, k) {
                        Answer::Line(v) => v,
                        _ => "(not built)".into(),
                    };
                    format!("  {k:<18}-> {value}\n")
                })
                .collect()
        })
        .collect();
    s + &rows.join("\n")
}
