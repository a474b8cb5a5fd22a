//! darshan-analyzer against C Darshan 3.5.0's, byte for byte: the trees of
//! files in tests/c-darshan/analyzer/trees.txt (corpus logs, nested
//! directories, a file that is not a log, logs cut short, an empty tree,
//! one log as the tree) and a path that does not exist, whose C output
//! (stdout and exit status) record.sh there recorded.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn recorded() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/c-darshan/analyzer")
}

/// Makes one entry of trees.txt under `top` (as record.sh does).
fn make(top: &Path, tree: &str, kind: &str, src: &str, path: &str) {
    let dest = if path == "." { top.join(tree) } else { top.join(tree).join(path) };
    let parent = |p: &Path| std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    match kind {
        "log" => {
            parent(&dest);
            std::fs::copy(corpus().join(src), &dest).unwrap();
        }
        "all" => {
            std::fs::create_dir_all(&dest).unwrap();
            for e in std::fs::read_dir(corpus()).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "darshan") {
                    std::fs::copy(&p, dest.join(p.file_name().unwrap())).unwrap();
                }
            }
        }
        "skip" => std::fs::remove_file(top.join(tree).join(src)).unwrap(),
        "text" => {
            parent(&dest);
            std::fs::write(&dest, "hello\n").unwrap();
        }
        "cut" => {
            let (log, bytes) = src.split_once(':').unwrap();
            let all = std::fs::read(corpus().join(log)).unwrap();
            parent(&dest);
            std::fs::write(&dest, &all[..bytes.parse::<usize>().unwrap()]).unwrap();
        }
        "dir" => std::fs::create_dir_all(&dest).unwrap(),
        _ => panic!("trees.txt: no kind {kind}"),
    }
}

#[test]
fn every_recorded_tree_of_logs_is_analyzed_as_c_darshan_analyzes_it() {
    let top = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-analyzer-trees-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    std::fs::create_dir_all(&top).unwrap();
    let spec = std::fs::read_to_string(recorded().join("trees.txt")).unwrap();
    let mut trees = vec!["missing".to_string()];
    for line in spec.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        make(&top, f[0], f[1], f[2], f[3]);
        if !trees.iter().any(|t| t == f[0]) {
            trees.push(f[0].to_string());
        }
    }
    let mut failures = Vec::new();
    for tree in &trees {
        let o = darshan_test_support::output(
            Command::new(env!("CARGO_BIN_EXE_darshan-analyzer")).arg(tree).current_dir(&top),
        );
        let out = std::fs::read(recorded().join(format!("{tree}.out"))).unwrap();
        let status: i32 =
            std::fs::read_to_string(recorded().join(format!("{tree}.status"))).unwrap().trim().parse().unwrap();
        if o.stdout != out || o.status.code() != Some(status) {
            failures.push(format!(
                "{tree}: status {:?} (C {status}), stdout:\n{}C's:\n{}",
                o.status.code(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&out)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&top);
    assert!(trees.len() >= 5, "trees.txt names {} trees", trees.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_fifo_in_the_tree_counts_as_a_file_that_is_not_a_log_and_is_never_opened() {
    // C's ftw hands a FIFO to darshan_log_open, which waits for a writer
    // forever; ours refuses it at once (safe_fs) and counts it as C counts
    // a file it cannot read.
    let top = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("darshan-analyzer-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    std::fs::create_dir_all(&top).unwrap();
    let made = darshan_test_support::status(Command::new("mkfifo").arg(top.join("pipe.darshan")));
    assert!(made.success(), "mkfifo");
    let o = darshan_test_support::output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-analyzer")).arg(&top),
        std::time::Duration::from_secs(60),
    );
    let _ = std::fs::remove_dir_all(&top);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("total logs: 1\n") && text.contains("0.00-0.20: 1\n"), "{text}");
}
