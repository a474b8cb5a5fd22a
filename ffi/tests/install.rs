//! The installed tree (`just install PREFIX`, scripts/install.sh): its
//! layout, darshan-config, and programs instrumented by linking instead
//! of LD_PRELOAD (`darshan-config --dyn-ld-flags`, the static archive
//! with `--pre-ld-flags`/`--post-ld-flags`, fully static `-static`, the
//! compiler wrappers), each checked against the test program's known access
//! pattern and, for every other counter, against the same program run
//! under LD_PRELOAD. Every program runs with a time limit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::installed::{assert_as_preloaded, bin, config, counters, linked, only_log, prefix, stdout, Counters};

/// Every file the tree holds (scripts/install.sh).
const INSTALLED: [&str; 45] = [
    "bin/darshan-parser",
    "bin/dxt_analyzer.py",
    "bin/darshan-job-summary.pl",
    "bin/darshan-summary-per-file.sh",
    "bin/darshan-analyzer",
    "bin/darshan-dxt-parser",
    "bin/darshan-convert",
    "bin/darshan-merge",
    "bin/darshan-run",
    "bin/darshan-top",
    "bin/darshan-stream",
    "bin/darshan-config",
    "libexec/darshan-config",
    "bin/darshan-mk-log-dirs",
    "bin/darshan-mk-log-dirs.pl",
    "share/darshan-mmap-epilog.sh",
    "bin/darshan-mmap-epilog",
    "bin/darshan-job-epilog",
    "bin/darshan-cc",
    "bin/darshan-cxx",
    "bin/darshan-mpicc",
    "bin/darshan-mpicxx",
    "bin/darshan-mpifort",
    "bin/darshan-fc",
    "lib/libdarshan.so",
    "lib/libdarshan.so.0",
    "lib/libdarshan.so.0.0.0",
    "lib/libdarshan.a",
    "lib/pkgconfig/darshan-runtime.pc",
    "lib/libdarshan-util.so",
    "lib/libdarshan-util.so.0",
    "lib/libdarshan-util.so.0.0.0",
    "lib/pkgconfig/darshan-util.pc",
    "include/darshan-logutils.h",
    "include/darshan-posix-log-format.h",
    "include/uthash-1.9.2/src/uthash.h",
    "share/mpi-profile/darshan-cc.conf",
    "share/mpi-profile/darshan-cxx.conf",
    "share/mpi-profile/darshan-f.conf",
    "share/mpi-profile/darshan-cc-static.conf",
    "share/mpi-profile/darshan-cxx-static.conf",
    "share/mpi-profile/darshan-f-static.conf",
    "share/modulefiles/darshan",
    "share/craype-1.x/modulefiles/darshan/3.5.0",
    "share/craype-2.x/modulefiles/darshan/3.5.0",
];

#[test]
fn the_installed_tree_has_its_layout_and_moves_with_its_directory() {
    let p = prefix();
    for f in INSTALLED {
        assert!(p.join(f).exists(), "{f} not installed");
    }
    // Nothing installed points back into the build tree.
    let root = common::root().canonicalize().unwrap();
    let out = common::output(Command::new("grep").arg("-rlI").arg(root.to_str().unwrap()).arg(p));
    assert!(out.stdout.is_empty(), "files naming the build tree: {}", stdout(&out));
    // Moved as a whole, it answers for its new place.
    let moved = p.parent().unwrap().join("moved");
    let _ = std::fs::remove_dir_all(&moved);
    assert!(common::status(Command::new("cp").arg("-a").arg(p).arg(&moved)).success());
    let o = common::output(Command::new(moved.join("bin/darshan-config")).arg("--libdir"));
    assert_eq!(stdout(&o).trim(), moved.join("lib").canonicalize().unwrap().to_str().unwrap());
    let o = common::output(
        Command::new("pkg-config")
            .args(["--libs", "darshan-runtime"])
            .env("PKG_CONFIG_PATH", moved.join("lib/pkgconfig")),
    );
    assert!(o.status.success(), "pkg-config (scripts/setup.sh installs it)");
    let libs = stdout(&o);
    assert!(libs.contains(&format!("-L{}/lib/pkgconfig/../../lib", moved.display())), "{libs}");
    assert!(libs.contains("-ldarshan"), "{libs}");
    // The moved tree's modulefile, loaded by environment-modules, puts the
    // moved tree's tools on PATH and its .pc file where Cray's compiler
    // wrappers and pkg-config look.
    let script = format!(
        "source /usr/share/modules/init/bash && module use {}/share/modulefiles && module load darshan && \
         command -v darshan-parser && echo \"$PE_PKGCONFIG_LIBS\" && pkg-config --variable=libdir darshan-runtime",
        moved.display()
    );
    let o = common::output(Command::new("bash").arg("-c").arg(&script).env_remove("PKG_CONFIG_PATH"));
    assert!(
        o.status.success(),
        "module load (environment-modules: scripts/setup.sh): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(Path::new(&lines[0]).canonicalize().unwrap(), moved.join("bin/darshan-parser").canonicalize().unwrap());
    assert_eq!(lines[1], "darshan-runtime");
    assert_eq!(Path::new(&lines[2]).canonicalize().unwrap(), moved.join("lib").canonicalize().unwrap(), "{lines:?}");
}

/// Every tool the README names (`darshan-xyz` in its list of what is
/// here) is installed, and the installed one starts: `darshan-run` tells
/// its user to run `darshan-summary`, which was once "command not found"
/// because install.sh left the report and facility tools out.
#[test]
fn every_tool_the_readme_names_is_installed_and_starts() {
    let p = prefix();
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let mut named = std::collections::BTreeSet::new();
    for line in readme.lines().filter(|l| l.starts_with("* `darshan-") || l.starts_with("  `darshan-")) {
        for part in line.split('`').skip(1).step_by(2) {
            let tool = part.split_whitespace().next().unwrap_or("");
            if tool.starts_with("darshan-") && tool.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                named.insert(tool.to_string());
            }
        }
    }
    for t in ["darshan-summary", "darshan-ingest", "darshan-study", "darshan-run", "darshan-parser"] {
        assert!(named.contains(t), "README's tool list names {t}: {named:?}");
    }
    for t in &named {
        let exe = p.join("bin").join(t);
        assert!(exe.exists(), "{t} is named in the README but not installed");
        // The C-compatible tools answer --help as C's do (usage, exit 1;
        // darshan-diff's and darshan-analyzer's C mains return -1: 255);
        // every tool must start and print its usage.
        let o = common::output_within(Command::new(&exe).arg("--help"), common::LIMIT);
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let usage_status = if matches!(t.as_str(), "darshan-diff" | "darshan-analyzer") { 255 } else { 1 };
        assert!(
            matches!(o.status.code(), Some(s) if s == 0 || s == usage_status),
            "installed {t} --help: {:?} {text}",
            o.status
        );
        assert!(text.to_lowercase().contains("usage"), "installed {t} --help prints its usage: {text}");
    }
}

/// C Darshan's darshan-config is a shell script, and scripts run it with
/// `sh darshan-config ...` (Darshan's own `make check`, tst_runs.sh, does
/// so under `set -e`; a compiled darshan-config made sh stop with
/// `Syntax error: ")" unexpected` before its first run). Every option the
/// usage lists answers under `sh`, in a `set -e` script, as the engine
/// does, with the same exit status; and through a symbolic link.
#[test]
fn darshan_config_runs_under_sh_for_every_option() {
    let p = prefix();
    let script = p.join("bin/darshan-config");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"), "a POSIX shell script: {text}");
    let engine = p.join("libexec/darshan-config");
    let usage = stdout(&common::output(Command::new(&engine).arg("--help")));
    let options: Vec<&str> = usage
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--").map(|o| o.split_whitespace().next().unwrap_or("")))
        .filter(|o| !o.is_empty())
        .collect();
    assert!(options.len() >= 20, "the usage lists the options: {usage}");
    for o in &options {
        let opt = format!("--{o}");
        // As tst_runs.sh runs it: `sh darshan-config OPT` in a set -e script.
        let sh = common::output_within(
            Command::new("sh").arg("-ec").arg("out=$(sh \"$0\" \"$1\"); printf '%s\n' \"$out\"").arg(&script).arg(&opt),
            common::LIMIT,
        );
        let direct = common::output_within(Command::new(&engine).arg(&opt), common::LIMIT);
        assert_eq!(
            sh.status.code(),
            direct.status.code(),
            "{opt}: status under sh {}",
            String::from_utf8_lossy(&sh.stderr)
        );
        if direct.status.success() {
            assert_eq!(stdout(&sh).trim_end(), stdout(&direct).trim_end(), "{opt} under sh");
        }
        assert!(!String::from_utf8_lossy(&sh.stderr).contains("Syntax error"), "{opt}");
    }
    // Linked into another directory (a site's /usr/local/bin), it still
    // answers for its own tree.
    let link = p.parent().unwrap().join("linked-darshan-config");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&script, &link).unwrap();
    let o = common::output(Command::new("sh").arg(&link).arg("--libdir"));
    assert_eq!(stdout(&o).trim(), p.join("lib").canonicalize().unwrap().to_str().unwrap());
}

#[test]
fn darshan_config_answers_as_the_c_tool_does() {
    let o = config(&["--version"]);
    assert_eq!(stdout(&o).split_whitespace().nth(2), Some("3.5.0"), "{}", stdout(&o));
    // One answer per option, in the order asked.
    let o = config(&["--posix-mod", "--dxt-mod", "--pnetcdf-mod", "--daos-mod", "--mod-mem", "--log-path-by-env"]);
    assert_eq!(stdout(&o), "yes\nyes\nyes\nno\n4\nDARSHAN_LOGPATH\n");
    let dyn_flags = stdout(&config(&["--dyn-ld-flags"]));
    let lib = prefix().join("lib").canonicalize().unwrap();
    assert_eq!(dyn_flags.trim(), format!("-L{0} -Wl,-rpath={0} -Wl,-no-as-needed -ldarshan", lib.display()));
    let all = stdout(&config(&["--all"]));
    for line in [
        "  --posix-mod             -> yes",
        "  --lustre-mod            -> yes",
        "  --bgq-mod               -> no",
        "  --dyn-ld-flags    -> -L",
    ] {
        assert!(all.contains(line), "--all lacks {line:?}:\n{all}");
    }
    // No option, or an unknown one: the usage and exit 1.
    assert_eq!(config(&[]).status.code(), Some(1));
    let o = config(&["--no-such-option"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("unknown option: --no-such-option"));
    // Static linking: the archive by file name (-ldarshan would take the
    // .so), the installed ld-opts file, the archive again after the
    // program's objects.
    let share = prefix().join("share").canonicalize().unwrap();
    assert_eq!(
        stdout(&config(&["--pre-ld-flags"])).trim(),
        format!("-L{} -l:libdarshan.a -Wl,@{}/ld-opts/darshan-ld-opts", lib.display(), share.display())
    );
    assert_eq!(
        stdout(&config(&["--post-ld-flags"])).trim(),
        format!("-L{} -l:libdarshan.a -lpthread -lrt -lm -ldl", lib.display())
    );
    // HDF5's part apart (ffi/tests/static_hdf5.rs).
    assert_eq!(
        stdout(&config(&["--hdf5-ld-flags"])).trim(),
        format!("-Wl,@{}/ld-opts/darshan-hdf5-ld-opts", share.display())
    );
    assert_eq!(
        stdout(&config(&["--pnetcdf-ld-flags"])).trim(),
        format!("-Wl,@{}/ld-opts/darshan-pnetcdf-ld-opts", share.display())
    );
}

/// C 3.5.0's darshan-config answers `--apxc-mod` (and lists it in `--all`
/// after `--apmpi-coll-sync`); ours printed "unknown option" and its
/// usage, and exited 1, to a script asking it.
#[test]
fn darshan_config_did_not_know_apxc_mod() {
    let o = config(&["--apxc-mod"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "no\n"));
    let all = stdout(&config(&["--all"]));
    let order =
        ["  --apmpi-coll-sync       -> no\n  --apxc-mod              -> no\n  --hdf5-mod              -> yes\n"];
    assert!(all.contains(order[0]), "--all lacks C's order around --apxc-mod:\n{all}");
    let usage = stdout(&config(&["--help"]));
    assert!(usage.contains("  --apxc-mod             Whether AUTOPERF XC module is enabled\n"), "{usage}");
}

/// Every function libdarshan.so interposes is wrapped by the static
/// flags, and no other: the HDF5 and PnetCDF functions in their own files
/// only.
#[test]
fn the_static_flags_wrap_every_function_the_library_interposes_and_no_other() {
    let share = prefix().join("share").canonicalize().unwrap();
    let opts = std::fs::read_to_string(share.join("ld-opts/darshan-ld-opts")).unwrap();
    let h5_opts = std::fs::read_to_string(share.join("ld-opts/darshan-hdf5-ld-opts")).unwrap();
    let nc_opts = std::fs::read_to_string(share.join("ld-opts/darshan-pnetcdf-ld-opts")).unwrap();
    let wraps =
        |o: &str| -> Vec<String> { o.lines().filter_map(|l| l.strip_prefix("--wrap=")).map(String::from).collect() };
    assert!(wraps(&opts).iter().all(|f| !f.starts_with("H5")), "HDF5 wrapped by --pre-ld-flags");
    assert!(wraps(&opts).iter().all(|f| !f.starts_with("ncmpi_")), "PnetCDF wrapped by --pre-ld-flags");
    assert!(!wraps(&h5_opts).is_empty() && wraps(&h5_opts).iter().all(|f| f.starts_with("H5")));
    assert!(wraps(&nc_opts).len() == 560 && wraps(&nc_opts).iter().all(|f| f.starts_with("ncmpi_")));
    let mut wrapped = [wraps(&opts), wraps(&h5_opts), wraps(&nc_opts)].concat();
    wrapped.sort();
    let nm = common::output(Command::new("nm").args(["-D", "--defined-only"]).arg(prefix().join("lib/libdarshan.so")));
    let mut exported: Vec<String> = stdout(&nm)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|n| !n.starts_with("darshan_"))
        // Left to a static HDF5 (scripts/install.sh: nothing would pull
        // their real functions out of libhdf5.a under --wrap).
        .filter(|n| !["H5Gunlink", "H5Gmove", "H5Gmove2"].contains(n))
        .map(String::from)
        .collect();
    exported.sort();
    assert_eq!(wrapped, exported);
    assert!(
        wrapped.len() > 200 && wrapped.iter().any(|f| f == "MPI_File_open") && wrapped.iter().any(|f| f == "pwrite64")
    );
}

/// How a program gets the runtime without LD_PRELOAD: (how, compiler,
/// arguments before the program's, after them).
type LinkCell = (&'static str, PathBuf, Vec<String>, Vec<String>);

fn words(o: &std::process::Output) -> Vec<String> {
    stdout(o).split_whitespace().map(String::from).collect()
}

fn link_cells() -> Vec<LinkCell> {
    let flags = |opt: &str| words(&config(&[opt]));
    let pc = |pc_path: &str, args: &[&str]| {
        words(&common::output(Command::new("pkg-config").args(args).env("PKG_CONFIG_PATH", pc_path)))
    };
    let (cc, darshan_cc) = (PathBuf::from("cc"), bin("darshan-cc"));
    let none = Vec::new;
    let static_ = || vec!["-static".to_string()];
    let own_pc = prefix().join("lib/pkgconfig").display().to_string();
    // Linked against C Darshan's tree (-L there, its rpath naming this
    // tree, which took its place): the loader looks for libdarshan.so.0.
    let c_tree = common::installed::c_darshan_link_dir(&common::scratch("c-darshan-standin"));
    let as_c_linked = vec![
        format!("-L{}", c_tree.display()),
        format!("-Wl,-rpath={}", prefix().join("lib").display()),
        "-Wl,-no-as-needed".into(),
        "-ldarshan".into(),
    ];
    // Cray's PE through C Darshan's module paths: 2.x's wrappers add the
    // .pc file's flags, 1.x's DARSHAN_POST_LINK_OPTS.
    let cray2 = common::installed::module_loaded("share/craype-2.x/modulefiles", &["PKG_CONFIG_PATH"]);
    let cray1 = common::installed::module_loaded("share/craype-1.x/modulefiles", &["DARSHAN_POST_LINK_OPTS"]);
    vec![
        ("LD_PRELOAD", cc.clone(), none(), none()),
        ("--dyn-ld-flags", cc.clone(), none(), flags("--dyn-ld-flags")),
        ("darshan-cc", darshan_cc.clone(), none(), none()),
        ("--pre/--post-ld-flags", cc.clone(), flags("--pre-ld-flags"), flags("--post-ld-flags")),
        (
            "-static --pre/--post-ld-flags",
            cc.clone(),
            [static_(), flags("--pre-ld-flags")].concat(),
            flags("--post-ld-flags"),
        ),
        ("darshan-cc -static", darshan_cc, static_(), none()),
        (
            "-static $(pkg-config --static --libs)",
            cc.clone(),
            static_(),
            pc(&own_pc, &["--static", "--libs", "darshan-runtime"]),
        ),
        ("linked against C Darshan's tree", cc.clone(), none(), as_c_linked),
        ("craype-2.x module, pkg-config --libs", cc.clone(), none(), pc(&cray2[0], &["--libs", "darshan-runtime"])),
        (
            "craype-2.x module, -static pkg-config --static --libs",
            cc.clone(),
            static_(),
            pc(&cray2[0], &["--static", "--libs", "darshan-runtime"]),
        ),
        (
            "craype-1.x module, DARSHAN_POST_LINK_OPTS",
            cc,
            none(),
            cray1[0].split_whitespace().map(String::from).collect(),
        ),
    ]
}

/// api_mix built and run as `cell` says; its log checked against the
/// program's known pattern; its comparable counters.
fn run_linked((how, compiler, before, after): &LinkCell) -> Counters {
    let src = common::root().join("tests/programs/api_mix.c");
    let d = common::scratch(&format!("linked-{}", how.replace(|c: char| !c.is_ascii_alphanumeric(), "")));
    let exe = d.join("api_mix");
    let built = common::output(
        Command::new(compiler).args(before).arg("-O2").arg("-o").arg(&exe).arg(&src).arg("-lrt").args(after),
    );
    assert!(built.status.success(), "{how}: build: {}", String::from_utf8_lossy(&built.stderr));
    if before.iter().any(|a| a == "-static") {
        // Fully static: no program interpreter, nothing to preload.
        let headers = common::output(Command::new("readelf").arg("-l").arg(&exe));
        assert!(headers.status.success() && !stdout(&headers).contains("INTERP"), "{how}: not fully static");
    }
    let data = d.join("data");
    let out = if *how == "LD_PRELOAD" {
        common::output(common::instrumented(&exe, &d).arg(&data))
    } else {
        linked(Command::new(&exe).arg(&data), &d)
    };
    assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
    // The program's known pattern, then every other counter as the
    // LD_PRELOAD run has it.
    let log = common::mpi::read(&only_log(&d));
    common::api_mix::check(&log, &data, how);
    // b.dat is never mapped: POSIX_MMAPS -1, as C's shared library
    // writes it in every record (a.dat's one mapping counts 1).
    let b_mmaps =
        log.one(darshan_log::modules::POSIX, &data.join("b.dat")).counters[darshan_log::counters::posix::MMAPS];
    assert_eq!(b_mmaps, -1, "{how}: POSIX_MMAPS of a file never mapped");
    counters(&only_log(&d), &data)
}

/// Every way of linking the runtime in, C Darshan's own among them: a
/// program linked against C Darshan's tree, run with this tree in its
/// place, once failed to start ("libdarshan.so.0: cannot open shared
/// object file"), and the Cray modulefiles were not at C's paths.
#[test]
fn a_c_program_linked_dynamically_statically_or_fully_static_is_instrumented_without_ld_preload() {
    let results: Vec<(&str, Counters)> = link_cells().iter().map(|cell| (cell.0, run_linked(cell))).collect();
    assert_as_preloaded(&results, |_| false);
}

/// A program linked against this tree records C Darshan's soname, so
/// either tree can take the other's place under it.
#[test]
fn a_program_linked_against_this_tree_records_c_darshans_soname() {
    let d = common::scratch("linked-soname");
    let exe = d.join("api_mix");
    let src = common::root().join("tests/programs/api_mix.c");
    let flags = words(&config(&["--dyn-ld-flags"]));
    let built = common::output(Command::new("cc").arg("-o").arg(&exe).arg(&src).arg("-lrt").args(&flags));
    assert!(built.status.success(), "build: {}", String::from_utf8_lossy(&built.stderr));
    let dynamic = stdout(&common::output(Command::new("readelf").arg("-d").arg(&exe)));
    assert!(dynamic.contains("Shared library: [libdarshan.so.0]"), "{dynamic}");
}

#[test]
fn a_program_built_with_the_wrappers_runs_normally_and_writes_nothing_with_darshan_disable() {
    let d = common::scratch("linked-disabled");
    let exe = d.join("api_mix");
    let src = common::root().join("tests/programs/api_mix.c");
    assert!(common::status(Command::new(bin("darshan-cc")).arg("-o").arg(&exe).arg(&src).arg("-lrt")).success());
    let out = linked(Command::new(&exe).arg(d.join("data")).env("DARSHAN_DISABLE", "1"), &d);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "api_mix done\n");
    assert!(common::files(&d.join("logs")).is_empty(), "a log was written");
    assert!(common::files(&d.join("mmap")).is_empty(), "a crash-safe file was left");
}

#[test]
fn darshan_cc_adds_no_link_flags_to_a_compile() {
    let d = common::scratch("linked-modes");
    let src = common::root().join("tests/programs/api_mix.c");
    let obj = d.join("api_mix.o");
    let o = common::output(Command::new(bin("darshan-cc")).arg("-c").arg("-o").arg(&obj).arg(&src));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // With link flags on a compile, gcc warns that the linker inputs are
    // unused.
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = common::output(Command::new(bin("darshan-cc")).arg("-c").arg("-static").arg("-o").arg(&obj).arg(&src));
    assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The first five fields (module, rank, id, counter, value) of C
/// darshan-parser's POSIX and MPI-IO lines for corpus log `name` (Darshan
/// 3.5.0's output, `../shared/corpus/expected`).
fn c_parser_counters(name: &str) -> Vec<String> {
    use std::io::Read;
    let gz = common::root().join(format!("../shared/corpus/expected/{name}.all.txt.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()).read_to_string(&mut text).unwrap();
    let lines = text.lines().filter(|l| l.starts_with("POSIX\t") || l.starts_with("MPI-IO\t"));
    lines.map(|l| l.split('\t').take(5).collect::<Vec<_>>().join("\t")).collect()
}

/// A C program linked with libdarshan-util as darshan-util's users link
/// it (`pkg-config --libs darshan-util`; the soname it records is
/// darshan-util's) reads every POSIX and MPI-IO record of a log through the
/// C API, each counter named from the library's own name arrays: what it
/// prints is what C's darshan-parser prints for those logs (a big-endian
/// 3.1.8 log and an old 3.0.1 one among them, up-converted).
#[test]
fn a_c_program_linked_with_darshan_util_reads_every_counter_as_c_darshan_parser_prints_it() {
    let d = common::scratch("util-linked");
    let pc = prefix().join("lib/pkgconfig");
    let libs = common::output(Command::new("pkg-config").args(["--libs", "darshan-util"]).env("PKG_CONFIG_PATH", &pc));
    assert!(libs.status.success(), "pkg-config: {}", String::from_utf8_lossy(&libs.stderr));
    let mut flags: Vec<String> = stdout(&libs).split_whitespace().map(String::from).collect();
    flags.push(format!("-Wl,-rpath,{}", prefix().join("lib").display()));
    let exe = common::compile("util_read", &d, &flags.iter().map(String::as_str).collect::<Vec<_>>());
    let ldd = stdout(&common::output(Command::new("ldd").arg(&exe)));
    assert!(ldd.contains("libdarshan-util.so.0 => "), "{ldd}");
    for name in [
        "release_logs__mpi-io-test-x86_64-3.4.7",
        "release_logs__mpi-io-test-ppc64-3.1.8",
        "release_logs__mpi-io-test-x86_64-3.0.1",
    ] {
        let log = common::root().join(format!("../shared/corpus/logs/{name}.darshan"));
        let out = common::output(Command::new(&exe).arg(&log));
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let ours: Vec<String> = stdout(&out).lines().map(String::from).collect();
        let c = c_parser_counters(name);
        assert!(c.len() > 100, "{name}: {} lines of C's", c.len());
        assert_eq!(ours, c, "{name}");
    }
}
