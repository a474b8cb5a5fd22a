//! POSIX_META under the tools that storm a file system's metadata —
//! `rm -rf`, `find`, `mv`, `tar x`, Python's `os.scandir` and
//! `shutil.rmtree` — each run under strace and the library together, so
//! the oracle is the kernel's own count of the same run's successful
//! calls (directory listings, which are not one system call per entry,
//! against the known tree instead).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use darshan_log::counters::posix_meta as c;
use darshan_log::modules::POSIX_META;

/// A known tree under `root`: 5 files at the top, and 4 directories of 25
/// files each (110 entries; every directory lists its children + 2).
fn make_tree(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    for i in 0..5 {
        std::fs::write(root.join(format!("top{i}")), b"x").unwrap();
    }
    for d in 0..4 {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir(&dir).unwrap();
        for i in 0..25 {
            std::fs::write(dir.join(format!("f{i}")), b"y").unwrap();
        }
    }
}
const TREE_FILES: i64 = 5 + 4 * 25;
const TREE_DIRS: i64 = 5;
/// readdir entries of listing every directory once (. and .. included).
const TREE_ENTRIES: i64 = (5 + 4 + 2) + 4 * (25 + 2);

/// One successful system call from strace -y: its name and the paths it
/// named (directory descriptors resolved).
#[derive(Debug)]
struct Call {
    name: String,
    paths: Vec<String>,
    /// The arguments as strace printed them (flags by name).
    args: String,
    /// The result as printed (`5</path>` for a descriptor with -y).
    ret: String,
}

/// Run `argv` under strace (the calls `trace`, successful ones, -y) with
/// the library preloaded into the traced program only.
fn traced(d: &Path, argv: &[&std::ffi::OsStr], trace: &str) -> Vec<Call> {
    let st = d.join("strace.txt");
    let mut cmd = Command::new("strace");
    cmd.args(["-f", "-z", "-y", "-qq", "-e"])
        .arg(format!("trace={trace}"))
        .arg("-o")
        .arg(&st)
        .arg("-E")
        .arg(format!("LD_PRELOAD={}", lib().display()))
        .args(["-E", "DARSHAN_ENABLE_NONMPI=1", "-E", "DARSHAN_MOD_ENABLE=POSIX_META", "-E"])
        .arg(format!("DARSHAN_LOGPATH={}", d.join("logs").display()))
        .arg("-E")
        .arg(format!("DARSHAN_MMAP_LOGPATH={}", d.join("mmap").display()))
        .args(argv);
    let out = output(&mut cmd);
    assert!(out.status.success(), "{:?}: {}", argv, String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&st).unwrap();
    let mut calls: Vec<Call> = text.lines().filter_map(parse).collect();
    // glibc makes fchmodat(AT_SYMLINK_NOFOLLOW) an O_PATH open and a chmod
    // of /proc/self/fd/N: that chmod is the call on the opened path.
    let mut opened: BTreeMap<String, String> = BTreeMap::new();
    for c in &mut calls {
        if let Some(p) = c.paths.first_mut() {
            if let Some(fd) = p.strip_prefix("/proc/self/fd/") {
                if let Some(real) = opened.get(fd) {
                    *p = real.clone();
                }
            }
        }
        if let Some((fd, path)) = c.ret.split_once('<') {
            opened.insert(fd.trim().to_string(), path.trim_end_matches('>').to_string());
        }
    }
    calls
}

/// `PID name(args) = ret` with -y: `N</dir>, "rel"` pairs and `"path"`s.
fn parse(line: &str) -> Option<Call> {
    let rest = line.split_once(' ')?.1.trim_start();
    let (name, args) = rest.split_once('(')?;
    // `name(args)<padding> = ret`: strace pads short calls to a column.
    let (args, ret) = args.rsplit_once(" = ")?;
    let args = args.trim_end().strip_suffix(')')?;
    let ret = ret.trim().to_string();
    let mut paths = Vec::new();
    let mut dir: Option<String> = None;
    for a in split_args(args) {
        if let Some(p) =
            a.split_once('<').and_then(|(fd, p)| fd.chars().all(|c| c.is_ascii_digit() || c == '-').then_some(p))
        {
            dir = p.strip_suffix('>').map(str::to_string);
        } else if let Some(s) = a.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            let full = match (&dir, s.starts_with('/')) {
                (Some(dd), false) => format!("{dd}/{s}"),
                _ => s.to_string(),
            };
            paths.push(full);
            dir = None;
        } else if a == "AT_FDCWD" {
            dir = None;
        } else if a == "NULL" {
            // utimensat(fd, NULL, ...): the descriptor itself.
            if let Some(dd) = dir.take() {
                paths.push(dd);
            }
        }
    }
    // A call on a descriptor (fchown, fchmod): the descriptor's path.
    if paths.is_empty() {
        paths.extend(dir);
    }
    Some(Call { name: name.to_string(), paths, args: args.to_string(), ret })
}

/// Arguments split at top-level commas (strings may hold commas).
fn split_args(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut q, mut depth) = (Vec::new(), String::new(), false, 0);
    let mut esc = false;
    for ch in s.chars() {
        match ch {
            _ if esc => esc = false,
            '\\' if q => esc = true,
            '"' => q = !q,
            '{' | '[' if !q => depth += 1,
            '}' | ']' if !q => depth -= 1,
            ',' if !q && depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The path a call is counted on: the new name for the link calls, the
/// first otherwise (the descriptor's own path for utimensat(fd, NULL)).
fn counted_path(c: &Call) -> Option<&String> {
    if c.name.starts_with("link") || c.name.starts_with("symlink") {
        c.paths.last()
    } else {
        c.paths.first()
    }
}

/// Sum of each POSIX_META counter over the records under `under`.
fn sums(d: &Path, under: &Path) -> (BTreeMap<String, Vec<i64>>, Vec<i64>) {
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    let names = log.names().unwrap();
    let mut per = BTreeMap::new();
    let mut total = vec![0i64; c::NUM_INDICES];
    if !log.modules_present().contains(&POSIX_META) {
        return (per, total);
    }
    let prefix = under.display().to_string();
    for r in log.records(POSIX_META).unwrap() {
        let n = String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned();
        if n == prefix || n.starts_with(&format!("{prefix}/")) {
            for (t, v) in total.iter_mut().zip(&r.counters) {
                *t += v;
            }
            per.insert(n, r.counters);
        }
    }
    (per, total)
}

fn count(calls: &[Call], under: &Path, pred: impl Fn(&Call) -> bool) -> i64 {
    let prefix = under.display().to_string();
    calls.iter().filter(|c| pred(c) && counted_path(c).is_some_and(|p| p.starts_with(&prefix))).count() as i64
}

fn data(d: &Path) -> PathBuf {
    d.join("data").canonicalize().unwrap()
}

#[test]
fn rm_rf_of_a_known_tree_counts_what_strace_counts() {
    let d = scratch("meta-rm");
    let tree = data(&d).join("tree");
    make_tree(&tree);
    let calls = traced(&d, &["rm".as_ref(), "-rf".as_ref(), tree.as_os_str()], "unlink,unlinkat,rmdir,openat");
    let (_, t) = sums(&d, &tree);
    let unlinks = count(&calls, &tree, |c| c.name == "unlink" || (c.name == "unlinkat" && !c_flag(c)));
    let rmdirs = count(&calls, &tree, |c| c.name == "rmdir" || (c.name == "unlinkat" && c_flag(c)));
    assert_eq!((unlinks, rmdirs), (TREE_FILES, TREE_DIRS), "strace saw the tree removed");
    assert_eq!((t[c::UNLINKS], t[c::RMDIRS]), (unlinks, rmdirs));
    // rm opens each directory as a descriptor and lists it through
    // fdopendir (and opens it again to see that it is empty).
    let dir_opens = count(&calls, &tree, |c| c.name == "openat" && c.args.contains("O_DIRECTORY"));
    assert!(dir_opens >= TREE_DIRS, "{dir_opens}");
    assert_eq!(t[c::OPENDIRS], dir_opens);
    assert!(t[c::DIR_ENTRIES] >= TREE_ENTRIES, "every directory listed: {}", t[c::DIR_ENTRIES]);
}

/// Whether an unlinkat removed a directory (strace prints the flag).
fn c_flag(c: &Call) -> bool {
    c.name == "unlinkat" && c.args.contains("AT_REMOVEDIR")
}

#[test]
fn find_lists_every_directory_of_the_tree_once() {
    let d = scratch("meta-find");
    let tree = data(&d).join("tree");
    make_tree(&tree);
    let out = output(instrumented("find".as_ref(), &d).arg(&tree).env("DARSHAN_MOD_ENABLE", "POSIX_META"));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count() as i64, TREE_FILES + TREE_DIRS);
    let (per, t) = sums(&d, &tree);
    assert_eq!(t[c::DIR_ENTRIES], TREE_ENTRIES);
    assert_eq!(t[c::OPENDIRS], TREE_DIRS);
    assert_eq!(per[&tree.join("d0").display().to_string()][c::DIR_ENTRIES], 27);
}

#[test]
fn mv_counts_the_rename_on_both_names() {
    let d = scratch("meta-mv");
    let tree = data(&d).join("tree");
    make_tree(&tree);
    let (from, to) = (tree.join("d0"), tree.join("e0"));
    let calls = traced(&d, &["mv".as_ref(), from.as_os_str(), to.as_os_str()], "rename,renameat,renameat2");
    let renames = count(&calls, &tree, |c| c.name.starts_with("rename"));
    assert_eq!(renames, 1, "{calls:?}");
    let (per, t) = sums(&d, &tree);
    assert_eq!((t[c::RENAMES_FROM], t[c::RENAMES_TO]), (renames, renames));
    assert_eq!(per[&from.display().to_string()][c::RENAMES_FROM], 1);
    assert_eq!(per[&to.display().to_string()][c::RENAMES_TO], 1);
}

/// tar x makes the tree's directories, sets every member's times, and
/// (as root) owner and mode; each through the *at forms or descriptors.
#[test]
fn tar_x_counts_what_strace_counts() {
    let d = scratch("meta-tar");
    let src = data(&d).join("src");
    make_tree(&src.join("tree"));
    std::os::unix::fs::symlink("top0", src.join("tree/lnk")).unwrap();
    let archive = d.join("a.tar");
    assert!(status(Command::new("tar").arg("cf").arg(&archive).arg("-C").arg(&src).arg("tree")).success());
    let dest = data(&d).join("dest");
    std::fs::create_dir(&dest).unwrap();
    let trace = "mkdir,mkdirat,utimensat,utimes,futimesat,fchmod,fchmodat,chmod,fchown,fchownat,chown,lchown,symlink,\
                 symlinkat,link,linkat,openat";
    let calls =
        traced(&d, &["tar".as_ref(), "xf".as_ref(), archive.as_os_str(), "-C".as_ref(), dest.as_os_str()], trace);
    let (_, t) = sums(&d, &dest);
    let n = |names: &[&str]| count(&calls, &dest, |c| names.contains(&c.name.as_str()));
    let mkdirs = n(&["mkdir", "mkdirat"]);
    assert_eq!(mkdirs, 5, "the tree's directories: {calls:?}");
    assert_eq!(t[c::MKDIRS], mkdirs);
    assert_eq!(t[c::UTIMES], n(&["utimensat", "utimes", "futimesat"]));
    assert!(t[c::UTIMES] >= TREE_FILES + TREE_DIRS);
    assert_eq!(t[c::CHMODS], n(&["fchmod", "fchmodat", "chmod"]));
    assert_eq!(t[c::CHOWNS], n(&["fchown", "fchownat", "chown", "lchown"]));
    assert_eq!(t[c::SYMLINKS], n(&["symlink", "symlinkat"]));
    assert_eq!(t[c::SYMLINKS], 1);
}

/// Python's os.scandir lists a directory (its entries, without . and
/// ..), shutil.rmtree removes the tree through directory descriptors.
#[test]
fn python_scandir_and_rmtree_count_what_strace_counts() {
    let d = scratch("meta-py");
    let tree = data(&d).join("tree");
    make_tree(&tree);
    let script = "import os, shutil, sys\nt = sys.argv[1]\nprint(sum(1 for _ in os.scandir(t)))\nshutil.rmtree(t)\n";
    let py = python();
    let calls =
        traced(&d, &[py.as_os_str(), "-c".as_ref(), script.as_ref(), tree.as_os_str()], "unlink,unlinkat,rmdir,openat");
    let (per, t) = sums(&d, &tree);
    let unlinks = count(&calls, &tree, |c| c.name == "unlink" || (c.name == "unlinkat" && !c_flag(c)));
    let rmdirs = count(&calls, &tree, |c| c.name == "rmdir" || (c.name == "unlinkat" && c_flag(c)));
    assert_eq!((unlinks, rmdirs), (TREE_FILES, TREE_DIRS));
    assert_eq!((t[c::UNLINKS], t[c::RMDIRS]), (unlinks, rmdirs));
    // scandir of the top (9 entries + . and ..), then rmtree lists every
    // directory once more.
    let top = &per[&tree.display().to_string()];
    assert_eq!(top[c::OPENDIRS], 2);
    assert_eq!(top[c::DIR_ENTRIES], 2 * (5 + 4 + 2));
    assert_eq!(t[c::DIR_ENTRIES], TREE_ENTRIES + (5 + 4 + 2));
}
