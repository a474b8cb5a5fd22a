//! Configurations read as C Darshan 3.5.0 reads them, found by running
//! random programs under random configurations with C's library and ours
//! (scripts/differential, DIFFERENTIAL_CONFIG=1). One program (but for
//! a killed process's, crash_printf.c), tests/programs/config_cases.c: a
//! file `p` written with open/write, /etc/passwd read (left out by
//! Darshan's default prefixes), then up to three files a1, a2, b written
//! with fopen/fputs, then a line on stdout and one on stderr. The
//! expected records are C's, from its logs of that program under the
//! same settings on this machine kind.

mod common;

use common::mpi::{c, read, Log};
use darshan_log::counters::stdio as sx;
use darshan_log::modules::{POSIX, STDIO};
use darshan_log::LogFile;
use darshan_test_support::SpawnWatched;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The log of config_cases writing `files` fopen'd files, with the
/// configuration file `config` and the environment `env`, and its data
/// directory.
fn log_with(tag: &str, files: u32, config: &str, env: &[(&str, &str)]) -> (Log, PathBuf) {
    let d = common::scratch(tag);
    let exe = common::compile("config_cases", &d, &["-O2"]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let cfg = d.join("darshan.conf");
    std::fs::write(&cfg, config).unwrap();
    let mut cmd = common::instrumented(&exe, &d);
    cmd.env("DARSHAN_CONFIG_PATH", &cfg).arg(&data).arg(files.to_string());
    for (k, v) in env {
        // A value naming a place in the data directory: "@/a" is `data`/a.
        cmd.env(k, v.replace('@', &data.display().to_string()));
    }
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn_watched().wait().unwrap();
    assert!(status.success(), "{tag}: {status}");
    (read(&common::only_log(&d)), data)
}

/// The names of `module`'s records, data files by their base name.
fn names(log: &Log, module: usize, data: &Path) -> Vec<String> {
    let mut v: Vec<String> = log
        .recs
        .iter()
        .filter(|(m, _, _)| *m == module)
        .map(|(_, n, _)| n.strip_prefix(&format!("{}/", data.display())).unwrap_or(n).to_string())
        .collect();
    v.sort();
    v
}

fn partial(log: &Log, module: usize) -> bool {
    log.file.header.partial_flag & (1 << module) != 0
}

/// DARSHAN_EXCLUDE_DIRS replaces Darshan's default prefixes with the
/// user's, matched as plain prefixes (`data/a` leaves out `data/a1`), and
/// `none` leaves none; we did not read the variable at all, so a1 and a2
/// were recorded and /etc/passwd was not.
#[test]
fn darshan_exclude_dirs_was_not_read() {
    let (log, data) = log_with("exclude_dirs", 3, "", &[("DARSHAN_EXCLUDE_DIRS", "/nowhere,@/a")]);
    assert_eq!(names(&log, POSIX, &data), ["/etc/passwd", "p"]);
    assert_eq!(names(&log, STDIO, &data), ["<STDERR>", "<STDOUT>", "b"]);
    let (log, data) = log_with("exclude_dirs_none", 3, "", &[("DARSHAN_EXCLUDE_DIRS", "none")]);
    assert_eq!(names(&log, POSIX, &data), ["/etc/passwd", "p"]);
    assert_eq!(names(&log, STDIO, &data), ["<STDERR>", "<STDOUT>", "a1", "a2", "b"]);
}

/// Darshan's STDIO set-up makes stdin's, stdout's and stderr's records in
/// turn: with `MAX_RECORDS 1 STDIO` only stdin's (unused, dropped) fits,
/// with 2 stdout's too, and the module is partial. We gave all three
/// their record at first use: stdout's (and with 2 stderr's) were in the
/// log.
#[test]
fn standard_streams_took_places_max_records_did_not_have() {
    let (log, data) = log_with("std_max_1", 3, "MAX_RECORDS 1 STDIO\n", &[]);
    assert_eq!(names(&log, STDIO, &data), Vec::<String>::new());
    assert!(partial(&log, STDIO));
    let (log, data) = log_with("std_max_2", 3, "MAX_RECORDS 2 STDIO\n", &[]);
    assert_eq!(names(&log, STDIO, &data), ["<STDOUT>"]);
    let out = log.one(STDIO, Path::new("<STDOUT>"));
    assert_eq!((c(out, sx::OPENS), c(out, sx::WRITES), c(out, sx::BYTES_WRITTEN)), (1, 1, 6));
    assert!(partial(&log, STDIO));
    assert!(!partial(&log, POSIX));
}

/// The same setting in a process killed after its first STDIO call:
/// Darshan's set-up marks STDIO partial at that call, in the crash-safe
/// file's header. We marked it at shutdown only, so the killed process's
/// file said the module was whole. Through the C shim's `printf` and a
/// Rust wrapper's `fputs`; a process that made no STDIO call is not
/// partial (C 3.5.0's crash-safe files of tests/programs/crash_printf.c,
/// read with darshan-parser: "The STDIO module contains incomplete data"
/// after printf, nothing after write).
#[test]
fn a_killed_process_whose_standard_streams_found_no_place_said_stdio_was_whole() {
    for (how, marked) in [("printf", true), ("fputs", true), ("write", false)] {
        let log =
            LogFile::open(killed_crash_printf(&format!("std_max_killed_{how}"), how, "MAX_RECORDS 1 STDIO\n")).unwrap();
        assert_eq!(log.header.partial_flag & (1 << STDIO) != 0, marked, "{how}");
        assert_eq!(log.header.partial_flag & (1 << POSIX), 0, "{how}");
    }
}

/// Darshan's STDIO set-up makes the three standard streams' records at
/// the program's first STDIO call, so a killed process's crash-safe file
/// holds them, used or not (only the log written at exit leaves the
/// unused out). We made each at its first use, so the file of a process
/// killed after `fputs` to stdout had no <STDIN> or <STDERR> (C 3.5.0's
/// files of crash_printf, read with darshan-parser: all three after
/// printf or fputs, opened once; none after write;
/// `random programs killed`, scripts/differential with
/// DIFFERENTIAL_KILL=1, found it).
#[test]
fn a_killed_process_had_no_record_of_the_standard_streams_it_had_not_used() {
    for how in ["printf", "fputs", "write"] {
        let log = read(&killed_crash_printf(&format!("std_unused_killed_{how}"), how, ""));
        let names = names(&log, STDIO, Path::new("/"));
        if how == "write" {
            assert!(names.is_empty(), "{how}: {names:?}");
            continue;
        }
        assert_eq!(names, ["<STDERR>", "<STDIN>", "<STDOUT>"], "{how}");
        // stdout's flush is counted after the line is out, so the kill
        // may come first: only its open is certain.
        let counts = |n: &str| {
            let r = log.one(STDIO, Path::new(n));
            (c(r, sx::OPENS), c(r, sx::READS), c(r, sx::WRITES))
        };
        assert_eq!(counts("<STDIN>"), (1, 0, 0), "{how}");
        assert_eq!(counts("<STDERR>"), (1, 0, 0), "{how}");
        assert_eq!(counts("<STDOUT>").0, 1, "{how}");
    }
}

/// The crash-safe file of tests/programs/crash_printf.c, its line on
/// stdout made `how` (printf, fputs or write), killed once it was out,
/// under configuration `config`.
fn killed_crash_printf(tag: &str, how: &str, config: &str) -> PathBuf {
    let d = common::scratch(tag);
    let exe = common::compile("crash_printf", &d, &[]);
    let cfg = d.join("darshan.conf");
    std::fs::write(&cfg, config).unwrap();
    let mut cmd = common::instrumented(&exe, &d);
    cmd.env("DARSHAN_CONFIG_PATH", &cfg).arg(d.join("data/f.dat")).arg(how);
    let (mut child, _) = common::start_ready(&mut cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    let files = common::files(&d.join("mmap"));
    assert_eq!(files.len(), 1, "{how}: {files:?}");
    files[0].clone()
}

/// A standard stream whose name a NAME_EXCLUDE rule leaves out gets no
/// record in C, so it takes no place: three files fit in `MAX_RECORDS 4
/// STDIO`. We kept three places for the standard streams all the same,
/// and recorded one file and marked the module partial.
#[test]
fn standard_streams_left_out_by_name_still_took_places() {
    let (log, data) = log_with("std_left_out", 3, "MAX_RECORDS 4 STDIO\nNAME_EXCLUDE ^< STDIO\n", &[]);
    assert_eq!(names(&log, STDIO, &data), ["a1", "a2", "b"]);
    assert!(!partial(&log, STDIO));
}

/// Darshan's register_record looks for room before it looks at the
/// exclusions: with `MAX_RECORDS 1 POSIX`, `p` takes the place and the
/// open of /etc/passwd (left out by the default prefixes) then marks
/// POSIX partial. Ours tested the exclusion first and left it unmarked.
#[test]
fn a_name_left_out_of_a_full_module_left_it_unmarked() {
    let (log, data) = log_with("full_left_out", 0, "MAX_RECORDS 1 POSIX\n", &[]);
    assert_eq!(names(&log, POSIX, &data), ["p"]);
    assert!(partial(&log, POSIX));
    assert!(!partial(&log, STDIO));
}

/// DARSHAN_DUMP_CONFIG printed our own `darshan:KEY<tab>value` lines; C
/// prints a block of `# KEY = value` lines and one paragraph per module.
/// The lines below are C 3.5.0's for this configuration (its non-MPI
/// build; the modules its build leaves out, H5F and H5D among them, are
/// not compared).
#[test]
fn dump_config_printed_lines_c_does_not() {
    let d = common::scratch("dump_as_c");
    let cfg = d.join("darshan.conf");
    let text = "MAX_RECORDS 5 POSIX,STDIO\nNAME_EXCLUDE ^/tmp,\\.so$ POSIX\nNAME_INCLUDE keep STDIO\n\
                DXT_SMALL_IO_TRIGGER 0.5\nRANK_EXCLUDE 1:2\n";
    std::fs::write(&cfg, text).unwrap();
    let out = common::output(
        common::instrumented(Path::new("/bin/true"), &d)
            .env("DARSHAN_CONFIG_PATH", &cfg)
            .env("DARSHAN_DUMP_CONFIG", "1")
            .env("DARSHAN_APP_EXCLUDE", "zzz"),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let c = [
        "##########################\n##### DARSHAN CONFIG #####\n##########################\n# MODMEM = 4 MiB\n\
         # NAMEMEM = 1024 KiB\n# MEM_ALIGNMENT = 8 bytes\n",
        "# EXCLUDE_DIRS = /etc/,/dev/,/usr/,/bin/,/boot/,/lib/,/opt/,/sbin/,/sys/,/proc/,/var/\n\
         # APP_EXCLUDE = zzz\n# APP_INCLUDE = NONE\n# RANK_EXCLUDE = 1:2\n# RANK_INCLUDE = NONE\n\
         # DXT_SMALL_IO_TRIGGER = 0.50\n# POSIX MODULE CONFIG:\n#      - ENABLED\n#      - MAX_RECORDS = 5\n\
         #      - NAME_EXCLUDE = ^/tmp,\\.so$\n# MPI-IO MODULE CONFIG:\n#      - ENABLED\n",
        "# STDIO MODULE CONFIG:\n#      - ENABLED\n#      - MAX_RECORDS = 5\n#      - NAME_INCLUDE = keep\n\
         # DXT_POSIX MODULE CONFIG:\n#      - DISABLED\n# DXT_MPIIO MODULE CONFIG:\n#      - DISABLED\n",
        "# HEATMAP MODULE CONFIG:\n#      - ENABLED\n",
        "##########################\n### END DARSHAN CONFIG ###\n##########################\n",
    ];
    for block in c {
        assert!(err.contains(block), "C's lines\n{block}\nnot in\n{err}");
    }
}

/// DARSHAN_INTERNAL_TIMING printed our own lines (`darshan: init`,
/// `darshan: shutdown ... (finalize ..., compress ..., write ...)`); C
/// prints a `#darshan:<op>` block at start-up and one at shutdown, an op
/// per line with the process count and seconds (`%f`). The ops below are
/// C 3.5.0's for config_cases writing three streams (stderr also gets the
/// program's own line); ours follow C's block as more ops of its form.
#[test]
fn internal_timing_printed_lines_c_does_not() {
    let d = common::scratch("timing_as_c");
    let exe = common::compile("config_cases", &d, &["-O2"]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut cmd = common::instrumented(&exe, &d);
    cmd.env("DARSHAN_INTERNAL_TIMING", "1").arg(&data).arg("3");
    let out = common::output(&mut cmd);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let ops: Vec<&str> =
        err.lines().filter(|l| l.contains("darshan:")).map(|l| l.split('\t').next().unwrap()).collect();
    let c = [
        "#darshan:<op>",
        "darshan:init",
        "#darshan:<op>",
        "darshan:log_open",
        "darshan:job_write",
        "darshan:hash_write",
        "darshan:header_write",
        "darshan:POSIX_shutdown",
        "darshan:STDIO_shutdown",
        "darshan:HEATMAP_shutdown",
        "darshan:core_shutdown",
    ];
    assert_eq!(&ops[..c.len().min(ops.len())], &c[..], "{err}");
    for line in err.lines().filter(|l| l.starts_with("darshan:")) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 3, "{line}");
        assert_eq!(f[1], "1", "{line}");
        let (whole, frac) = f[2].split_once('.').unwrap_or_else(|| panic!("{line}"));
        assert!(whole.parse::<u64>().is_ok() && frac.len() == 6 && frac.parse::<u64>().is_ok(), "{line}");
    }
    assert!(err.contains("#darshan:<op>\t<nprocs>\t<time>\n"), "{err}");
}
