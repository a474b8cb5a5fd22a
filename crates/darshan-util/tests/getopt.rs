//! darshan-util's getopt_long against glibc's own, compiled here
//! (tests/programs/getopt_probe.c): for each tool's option table and many
//! argument lists (prefixes, ambiguous prefixes, `=value` and separate
//! values, missing values, values given to flags, unknown options, short
//! options, `--`, options after operands), the options found, their
//! values, the operands and glibc's complaints must be the same.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_util::getopt::{getopt_long, Found, LongOpt};

fn probe() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("getopt_probe");
    let st = darshan_test_support::status(
        Command::new("cc").args(["-O1", "-o"]).arg(&out).arg(root.join("tests/programs/getopt_probe.c")),
    );
    assert!(st.success(), "compiling getopt_probe.c");
    out
}

fn table(opts: &[LongOpt]) -> String {
    opts.iter().map(|o| format!("{}:{}", o.name, u8::from(o.takes_value))).collect::<Vec<_>>().join(",")
}

const fn o(name: &'static str, takes_value: bool) -> LongOpt {
    LongOpt { name, takes_value }
}

/// The option tables of darshan-util 3.5.0's tools.
const PARSER: &[LongOpt] = &[
    o("all", false),
    o("base", false),
    o("file", false),
    o("perf", false),
    o("total", false),
    o("show-incomplete", false),
    o("help", false),
    o("version", false),
];
const MERGE: &[LongOpt] =
    &[o("output", true), o("shared-redux", false), o("job-end-time", true), o("version", false), o("help", false)];
const CONVERT: &[LongOpt] = &[
    o("bzip2", false),
    o("annotate", true),
    o("obfuscate", false),
    o("obfuscate_jobid", false),
    o("obfuscate_uid", false),
    o("obfuscate_exe", false),
    o("obfuscate_names", false),
    o("reset-md", false),
    o("key", true),
    o("file", true),
    o("version", false),
    o("help", false),
];

#[test]
fn options_are_read_as_glibc_reads_them() {
    let exe = probe();
    let cases: &[(&[LongOpt], &[&str])] = &[
        (PARSER, &["--tot", "log"]),
        (PARSER, &["log", "--perf", "--fi"]),
        (PARSER, &["--a", "--b", "--p", "--s", "--v"]),
        (PARSER, &["--", "--all", "log"]),
        (PARSER, &["--file=3", "log"]),
        (PARSER, &["--zz", "-q", "-", "log"]),
        (PARSER, &["--", "--"]),
        (PARSER, &["--=x", "--all=", "log"]),
        (PARSER, &["-xy", "--show-incomplete", "a", "b"]),
        (MERGE, &["--out", "m.darshan", "--shared", "a", "b"]),
        (MERGE, &["--output=m.darshan", "--job=12", "a"]),
        (MERGE, &["--j", "12", "--o", "x", "a"]),
        (MERGE, &["a", "b", "--output"]),
        (MERGE, &["--shared-redux=1", "--help", "--ver"]),
        (MERGE, &["--o=", "a"]),
        (CONVERT, &["--bz", "--obf", "--k", "7", "in", "out"]),
        (CONVERT, &["--key=9", "--file", "--bzip2", "in", "out"]),
        (CONVERT, &["--b", "in", "out"]),
        (CONVERT, &["--fi=1", "--ke"]),
        (CONVERT, &["--obfuscate_u", "--obfuscate", "--an", "a=b\tc=d", "--res", "in", "out"]),
    ];
    for (opts, args) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let c = darshan_test_support::output_within(
            Command::new(&exe).arg(table(opts)).args(&args),
            std::time::Duration::from_secs(60),
        );
        assert!(c.status.success(), "probe failed on {args:?}");
        let glibc_out = String::from_utf8_lossy(&c.stdout).into_owned();
        let glibc_err = String::from_utf8_lossy(&c.stderr).into_owned();
        let ours = getopt_long("prog", &args, opts);
        let mut out = String::new();
        let mut err = String::new();
        for f in &ours.found {
            match f {
                Found::Opt(n, v) => out += &format!("opt {n} {}\n", v.as_deref().unwrap_or("-")),
                Found::Bad(msg) => {
                    out += "bad\n";
                    err += &format!("{msg}\n");
                }
            }
        }
        for op in &ours.operands {
            out += &format!("operand {op}\n");
        }
        assert_eq!(out, glibc_out, "options and operands of {args:?}");
        assert_eq!(err, glibc_err, "complaints about {args:?}");
    }
}

fn run(tool: &str, args: &[&str]) -> std::process::Output {
    let exe = match tool {
        "darshan-parser" => env!("CARGO_BIN_EXE_darshan-parser"),
        "darshan-dxt-parser" => env!("CARGO_BIN_EXE_darshan-dxt-parser"),
        "darshan-convert" => env!("CARGO_BIN_EXE_darshan-convert"),
        _ => env!("CARGO_BIN_EXE_darshan-merge"),
    };
    darshan_test_support::output_within(Command::new(exe).args(args), std::time::Duration::from_secs(60))
}

/// `darshan-parser --tot LOG` works in C (getopt_long takes any unique
/// prefix) and printed our usage; now every drop-in tool takes prefixes
/// and `--opt=value`, and gives the same output as with the full name.
#[test]
fn the_tools_take_prefixes_and_equals_values_as_c_does() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let log = corpus.join("mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan");
    let l = log.to_str().unwrap();
    let same = |tool: &str, short: &[&str], full: &[&str]| {
        let (a, b) = (run(tool, short), run(tool, full));
        assert_eq!(a.status.code(), Some(0), "{tool} {short:?}: {}", String::from_utf8_lossy(&a.stderr));
        assert_eq!(a.stdout, b.stdout, "{tool} {short:?} against {full:?}");
    };
    same("darshan-parser", &["--tot", l], &["--total", l]);
    same("darshan-parser", &["--pe", "--fi", l], &["--perf", "--file", l]);
    same("darshan-parser", &[l, "--show"], &["--show-incomplete", l]);
    same("darshan-dxt-parser", &["--show", l], &["--show-incomplete", l]);
    same("darshan-parser", &["--vers"], &["--version"]);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("getopt-tools");
    std::fs::create_dir_all(&out).unwrap();
    let (c1, c2) = (out.join("a.darshan"), out.join("b.darshan"));
    let _ = (std::fs::remove_file(&c1), std::fs::remove_file(&c2));
    same("darshan-convert", &["--bz", l, c1.to_str().unwrap()], &["--bzip2", l, c2.to_str().unwrap()]);
    let (p1, p2) = (run("darshan-parser", &[c1.to_str().unwrap()]), run("darshan-parser", &[c2.to_str().unwrap()]));
    assert_eq!(p1.stdout, p2.stdout, "the two converted logs read the same");
    let m = out.join("m.darshan");
    let _ = std::fs::remove_file(&m);
    let o = run("darshan-merge", &[&format!("--out={}", m.display()), "--shared", c1.to_str().unwrap()]);
    assert!(!o.stderr.starts_with(b"Usage"), "{}", String::from_utf8_lossy(&o.stderr));
    // An ambiguous prefix: glibc's complaint, then the usage, exit 1.
    let o = run("darshan-convert", &["--obf", l, c1.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("option '--obf' is ambiguous; possibilities: '--obfuscate' '--obfuscate_jobid'"), "{err}");
    assert!(err.contains("Usage: "), "{err}");
}

/// darshan-parser's usage was an older darshan-util's (no --help line,
/// --version last, "darshan log field data"); darshan-util 3.5.0's
/// darshan-parser.c prints these lines, in this order, and exits 1.
#[test]
fn darshan_parser_printed_an_older_usage_than_darshan_util_3_5_0s() {
    let out = run("darshan-parser", &["--help"]);
    assert_eq!(out.status.code(), Some(1));
    let exe = env!("CARGO_BIN_EXE_darshan-parser");
    let want = [
        format!("Usage: {exe} [options] <filename>"),
        "    --help    : prints this help message and exits".into(),
        "    --version : prints Darshan version number and exits".into(),
        "    --all     : all sub-options are enabled".into(),
        "    --base    : Darshan log field data [default]".into(),
        "    --file    : total file counts".into(),
        "    --perf    : derived perf data".into(),
        "    --total   : aggregated Darshan field data".into(),
        "    --show-incomplete : display results even if log is incomplete".into(),
    ];
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().collect::<Vec<_>>(), want);
}
