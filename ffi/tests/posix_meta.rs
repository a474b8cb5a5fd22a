//! POSIX_META end to end: a C program compiled at test time makes a known
//! number of each call the module counts — by path, by descriptor, through
//! a directory descriptor (with AT_EMPTY_PATH), relative to the working
//! directory after a chdir — and every counter of every record is checked
//! exactly against that pattern (tests/programs/meta_mix.c).

mod common;

use std::collections::BTreeMap;

use common::*;
use darshan_log::counters::posix_meta as c;
use darshan_log::modules::{counter_names, POSIX_META};

/// name (relative to the data directory) -> counters by name.
fn meta_records(dir: &std::path::Path, data: &std::path::Path) -> BTreeMap<String, darshan_log::Record> {
    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert!(log.modules_present().contains(&POSIX_META), "no POSIX_META region");
    let names = log.names().unwrap();
    let prefix = format!("{}/", data.display());
    log.records(POSIX_META)
        .unwrap()
        .into_iter()
        .map(|r| {
            let n = String::from_utf8_lossy(names.get(r.id).expect("a name")).into_owned();
            (n.strip_prefix(&prefix).map(str::to_string).unwrap_or(n), r)
        })
        .collect()
}

/// meta_mix run under the library in a fresh scratch directory `tag`
/// (POSIX_META asked for by name when `on`, else the default):
/// (scratch, data directory, stdout).
fn run_meta_mix(tag: &str, on: bool) -> (std::path::PathBuf, std::path::PathBuf, String) {
    run_meta_mix_env(tag, if on { &[("DARSHAN_MOD_ENABLE", "POSIX_META")] } else { &[] })
}

fn run_meta_mix_env(tag: &str, env: &[(&str, &str)]) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let d = scratch(tag);
    let exe = compile("meta_mix", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let mut cmd = instrumented(&exe, &d);
    cmd.arg(&data).envs(env.iter().copied());
    let out = output(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (d, data, String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_counter_of_the_known_pattern_is_exact() {
    let (d, data, stdout) = run_meta_mix("meta-mix", true);
    let xattr = stdout.contains("xattr=ok");
    let recs = meta_records(&d, &data);
    // The runtime's own calls of wrapped functions (LUSTRE's fgetxattr at
    // each close, the descriptor names' readlink) went to the real ones:
    // none was taken for a call lost to a signal handler.
    let log = darshan_log::LogFile::open(&files(&d.join("logs"))[0]).unwrap();
    let meta = String::from_utf8_lossy(&log.job.metadata).into_owned();
    assert!(!meta.contains("lost_calls="), "{meta}");

    check_known_pattern(&recs, &known_pattern(xattr));
}

/// meta_mix.c's calls, by name: the counters each name's record must hold
/// (every other counter 0); the xattr calls only where the file system
/// takes them (`xattr`).
fn known_pattern(xattr: bool) -> Vec<(&'static str, Vec<(usize, i64)>)> {
    let x = |n: i64| if xattr { n } else { 0 };
    vec![
        ("sub", vec![(c::MKDIRS, 1)]),
        ("sub2", vec![(c::MKDIRS, 1), (c::RMDIRS, 1)]),
        ("sub3", vec![(c::MKDIRS, 1), (c::RMDIRS, 1)]),
        ("f1", vec![(c::UNLINKS, 1)]),
        ("f2", vec![(c::UNLINKS, 1)]),
        ("f3", vec![(c::UNLINKS, 1)]),
        ("f4", vec![(c::UNLINKS, 1)]),
        ("a", vec![(c::RENAMES_FROM, 1)]),
        ("b", vec![(c::RENAMES_TO, 1), (c::RENAMES_FROM, 1)]),
        ("c", vec![(c::RENAMES_TO, 1)]),
        ("list", vec![(c::MKDIRS, 1), (c::OPENDIRS, 2), (c::READDIRS, 16), (c::DIR_ENTRIES, 14)]),
        (
            "t",
            vec![
                (c::TRUNCATES, 3),
                (c::FALLOCATES, 2),
                (c::CHMODS, 3),
                (c::CHOWNS, 5),
                (c::ACCESSES, 3),
                (c::UTIMES, 4),
                (c::XATTR_SETS, x(2)),
                (c::XATTR_GETS, x(3)),
            ],
        ),
        ("t_hard", vec![(c::LINKS, 1)]),
        ("t_hard2", vec![(c::LINKS, 1)]),
        ("t_sym", vec![(c::SYMLINKS, 1), (c::READLINKS, 2)]),
        ("t_sym2", vec![(c::SYMLINKS, 1), (c::READLINKS, 1)]),
        (
            "m",
            vec![
                (c::TRUNCATES, 1),
                (c::MMAPS, 2),
                (c::MMAP_BYTES, 12288),
                (c::MMAP_SHARED_WRITE_BYTES, 8192),
                (c::MSYNCS, 2),
                (c::MUNMAPS, 2),
            ],
        ),
    ]
}

/// Every counter of every record in `recs` is the pattern's `want`, and
/// every record's times are ordered and positive.
fn check_known_pattern(recs: &BTreeMap<String, darshan_log::Record>, want: &[(&str, Vec<(usize, i64)>)]) {
    let got_names: Vec<&String> = recs.keys().collect();
    let mut want_names: Vec<&str> = want.iter().map(|w| w.0).collect();
    want_names.sort();
    assert_eq!(got_names, want_names, "records (failed calls and system paths make none)");
    let names = counter_names(POSIX_META).0;
    let mut wrong = Vec::new();
    for (name, counts) in want {
        let r = &recs[*name];
        for (k, counter) in names.iter().enumerate() {
            let expect = counts.iter().find(|(i, _)| *i == k).map_or(0, |(_, v)| *v);
            if r.counters[k] != expect {
                wrong.push(format!("{name} {counter}: {} (want {expect})", r.counters[k]));
            }
        }
        let f = &r.fcounters;
        let (start, end, time, max) = (f[c::F_START_TIMESTAMP], f[c::F_END_TIMESTAMP], f[c::F_TIME], f[c::F_MAX_TIME]);
        if !(start > 0.0 && start <= end && time > 0.0 && max > 0.0 && max <= time) {
            wrong.push(format!("{name} times: start {start} end {end} time {time} max {max}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// On by default, and off with Darshan's module variable. By default the
/// region is named by the extension trailer, not the header's module map
/// (whose id-63 slot C's darshan-util would hand PyDarshan with a NULL
/// name): the raw header bytes map no id ≥ 18 and set no such partial bit.
#[test]
fn the_module_is_on_by_default_outside_the_header_map() {
    let (d, data, _) = run_meta_mix("meta-default", false);
    let recs = meta_records(&d, &data);
    assert!(recs.values().any(|r| r.counters[c::UNLINKS] > 0), "default run recorded no unlink");
    let logs = files(&d.join("logs"));
    let raw = std::fs::read(&logs[0]).unwrap();
    // docs/log-format.md: mod_map[i] at 48 + 16 i (offset, length), mod_ver[i] at 1072 + 4 i.
    let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().unwrap());
    for id in darshan_log::modules::KNOWN_MODULE_COUNT..64 {
        assert_eq!((word(48 + 16 * id), word(56 + 16 * id)), (0, 0), "module {id} in the header's map");
        assert_eq!(raw[1072 + 4 * id..1076 + 4 * id], [0; 4], "module {id} has a version in the header");
    }
    assert_eq!(word(24) >> darshan_log::modules::KNOWN_MODULE_COUNT, 0, "a partial bit of an unknown id");
    assert_eq!(&raw[raw.len() - 8..], darshan_log::extension::MAGIC, "no extension trailer");

    let (d, _, _) = run_meta_mix_env("meta-disabled", &[("DARSHAN_MOD_DISABLE", "POSIX_META")]);
    let logs = files(&d.join("logs"));
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert!(!log.modules_present().contains(&POSIX_META));
    assert_eq!(log.header.partial_flag & (1 << POSIX_META), 0);
    assert!(log.modules_present().contains(&darshan_log::modules::POSIX), "POSIX still records");
    let raw = std::fs::read(&logs[0]).unwrap();
    assert_ne!(&raw[raw.len() - 8..], darshan_log::extension::MAGIC, "a trailer with nothing to name");
}

/// Killed with SIGKILL after a known number of calls: the crash-safe file
/// holds every one, read directly and after darshan-merge.
#[test]
fn a_killed_process_keeps_every_completed_call() {
    let d = scratch("meta-kill");
    let exe = compile("meta_crash", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let (mut child, _) =
        start_ready(instrumented(&exe, &d).arg(&data).arg("300").env("DARSHAN_MOD_ENABLE", "POSIX_META"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(files(&d.join("logs")).is_empty(), "a killed process writes no log");
    let mm = files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    let merged = d.join("logs/merged.darshan");
    let o = output(std::process::Command::new(built("darshan-merge")).arg("--output").arg(&merged).args(&mm));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for log in [&mm[0], &merged] {
        let l = darshan_log::LogFile::open(log).unwrap();
        let names = l.names().unwrap();
        let recs = l.records(POSIX_META).unwrap();
        let name = |r: &darshan_log::Record| String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned();
        let unlinks: i64 = recs.iter().map(|r| r.counters[c::UNLINKS]).sum();
        assert_eq!(unlinks, 300, "{}", log.display());
        let dir = recs.iter().find(|r| name(r) == data.display().to_string()).expect("the directory's record");
        assert_eq!((dir.counters[c::OPENDIRS], dir.counters[c::READDIRS], dir.counters[c::DIR_ENTRIES]), (1, 3, 2));
        let t = dir.fcounters[c::F_TIME];
        assert!(t > 0.0 && t < 5.0, "seconds, not ticks: {t}");
    }
}

/// PyDarshan 3.5.0 could not open a killed process's crash-safe file once
/// POSIX_META held a record in it: the file's header mapped module id 63,
/// which darshan-util lists with a NULL name, and PyDarshan raised on it
/// (so did Drishti, through it; darshan-parser 3.5.0 warned). The header
/// now maps only the ids Darshan knows, and the file's extension map (in
/// the job area, where Darshan's readers do not look) names POSIX_META's
/// region for ours. PyDarshan is the oracle for the counts.
#[test]
fn pydarshan_could_not_open_a_killed_processs_file_holding_posix_meta_records() {
    let d = scratch("meta-kill-pydarshan");
    let exe = compile("meta_crash", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let (mut child, _) = start_ready(instrumented(&exe, &d).arg(&data).arg("40"));
    child.kill().unwrap();
    child.wait().unwrap();
    let mm = files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    check_killed_file_with_meta(&mm[0], 40);
}

/// A forked child's crash-safe file mapped POSIX_META in its header, at
/// offset 0 and version 0 (darshan-parser: "Invalid POSIX_META module
/// version number"; PyDarshan could not open it): the child let go of its
/// parent's file, and the extension map with it, keeping only the
/// header's offsets. A Python child makes and unlinks 40 files, then is
/// killed; its file must read as a killed process's does.
#[test]
fn a_forked_childs_file_mapped_posix_meta_in_its_header_at_offset_0() {
    let d = scratch("meta-fork-kill");
    let data = d.join("data").canonicalize().unwrap();
    // The parent writes a file first, so that its own crash-safe file is
    // made (and mapped) before the fork: the child then lets go of it.
    let script = "import os, sys, time\n\
                  open(sys.argv[1] + '/parent', 'w').close()\n\
                  made = len(os.listdir(os.environ['DARSHAN_MMAP_LOGPATH']))\n\
                  pid = os.fork()\n\
                  if pid == 0:\n    \
                      for k in range(40):\n        \
                          p = sys.argv[1] + '/f%d' % k\n        \
                          open(p, 'w').close()\n        \
                          os.unlink(p)\n    \
                      print('ready', flush=True)\n    \
                      print(os.getpid(), made, flush=True)\n    \
                      time.sleep(120)\n    \
                      os._exit(0)\n\
                  os.waitpid(pid, 0)\n";
    let mut c = instrumented(std::path::Path::new("/usr/bin/python3"), &d);
    let (mut parent, mut lines) = start_ready(c.arg("-c").arg(script).arg(&data));
    let said = lines.next().and_then(Result::ok).unwrap_or_default();
    let (pid, made) = said.split_once(' ').expect("the child's pid and the parent's file count");
    let pid: i32 = pid.parse().expect("the child's pid");
    // Killed before any check, so that a failed one leaves no sleeper.
    // SAFETY: a plain signal to the forked child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    assert_eq!(made, "1", "the parent's crash-safe file was made before the fork");
    assert!(wait(&mut parent).success());
    let mm = files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "the child's file alone (the parent's removed at its exit): {mm:?}");
    check_killed_file_with_meta(&mm[0], 40);
}

/// A killed process's crash-safe file `f` whose process opened and
/// unlinked `n` files: the header maps only Darshan's ids, our reader
/// finds the `n` unlinks through the extension map, and PyDarshan opens
/// the file and counts the `n` opens.
fn check_killed_file_with_meta(f: &std::path::Path, n: i64) {
    let raw = std::fs::read(f).unwrap();
    let as_c_reads = darshan_log::header::Header::parse(&raw[..darshan_log::header::HEADER_SIZE], raw.len() as u64)
        .expect("a header");
    for id in darshan_log::modules::KNOWN_MODULE_COUNT..darshan_log::modules::MAX_MODS {
        assert_eq!((as_c_reads.mod_map[id].len, as_c_reads.mod_ver[id]), (0, 0), "the header maps module id {id}");
    }
    assert_eq!(as_c_reads.partial_flag >> darshan_log::modules::KNOWN_MODULE_COUNT, 0);
    let ours = darshan_log::LogFile::open(f).unwrap();
    let unlinks: i64 = ours.records(POSIX_META).unwrap().iter().map(|r| r.counters[c::UNLINKS]).sum();
    assert_eq!(unlinks, n, "POSIX_META's records, read through the extension map");
    let python = root().join(".venv/bin/python");
    assert!(python.exists(), "PyDarshan's venv (scripts/setup.sh)");
    let script = "import darshan, sys\n\
                  r = darshan.DarshanReport(sys.argv[1], read_all=True)\n\
                  print(' '.join(sorted(r.modules)))\n\
                  print(int(r.records['POSIX'].to_df()['counters']['POSIX_OPENS'].sum()))\n";
    let o = output(std::process::Command::new(python).arg("-c").arg(script).arg(f));
    assert!(o.status.success(), "PyDarshan could not open it: {}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(!lines[0].contains("POSIX_META") && lines[0].contains("POSIX"), "PyDarshan's modules: {}", lines[0]);
    assert_eq!(lines[1], n.to_string(), "POSIX_OPENS as PyDarshan reads them");
}

/// darshan-convert carries the module like any other: every POSIX_META
/// record of the known pattern's log, and its name, comes out unchanged
/// (bzip2 and back to zlib, as the C tool's users convert).
#[test]
fn darshan_convert_keeps_every_record() {
    let (d, _, _) = run_meta_mix("meta-convert", true);
    let log = files(&d.join("logs")).remove(0);
    // The bzip2 step is not named *.darshan: the PyDarshan check reads
    // every such log under target/preload-tests, and PyDarshan's bundled
    // darshan-util has no bzip2.
    let (bz, back) = (d.join("meta.bzip2"), d.join("meta.back.darshan"));
    for (args, to) in [(vec!["--bzip2"], &bz), (vec![], &back)] {
        let from = if to == &bz { &log } else { &bz };
        let o = output(std::process::Command::new(built("darshan-convert")).args(&args).arg(from).arg(to));
        assert!(o.status.success(), "darshan-convert: {}", String::from_utf8_lossy(&o.stderr));
    }
    let read = |p: &std::path::Path| {
        let l = darshan_log::LogFile::open(p).unwrap();
        let names = l.names().unwrap();
        let mut v: Vec<(String, Vec<i64>, Vec<f64>)> = l
            .records(POSIX_META)
            .unwrap()
            .into_iter()
            .map(|r| (String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned(), r.counters, r.fcounters))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let (a, b) = (read(&log), read(&back));
    assert_eq!(a.len(), 17);
    assert_eq!(a, b);
}

/// A directory stream opened before fork and read in the child was
/// counted nowhere, silently (the child forgot its parent's streams). The
/// child's reads are its own: its log's record of the directory has one
/// readdir per entry and one for the end, and no opendir (the parent's).
#[test]
fn a_directory_stream_read_by_a_forked_child_is_counted_in_the_childs_log() {
    let d = scratch("meta-dir-fork");
    let exe = compile("dir_fork", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let out = output(instrumented(&exe, &d).arg(&data).arg("5"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("child read 7 entries"));
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 2, "the parent's and the child's: {logs:?}");
    let mut seen = Vec::new();
    for l in &logs {
        let log = darshan_log::LogFile::open(l).unwrap();
        let names = log.names().unwrap();
        let child = log.job.metadata_pairs().iter().any(|(k, _)| *k == b"fork_parent");
        let dir = log
            .records(POSIX_META)
            .unwrap()
            .into_iter()
            .find(|r| names.get(r.id) == Some(data.to_str().unwrap().as_bytes()))
            .expect("the directory's record");
        seen.push((child, dir.counters[c::OPENDIRS], dir.counters[c::READDIRS], dir.counters[c::DIR_ENTRIES]));
    }
    seen.sort();
    assert_eq!(seen, [(false, 1, 0, 0), (true, 0, 8, 7)]);
}
