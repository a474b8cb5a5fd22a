//! The report's timespans (C Darshan's "Timespan from first to last
//! access" graphs) on programs with a known timing, run under the
//! runtime: an MPI job whose ranks write files of their own one after
//! another and then a shared file, on Open MPI and MPICH, and a Python
//! script that waits, writes and waits again before reading, whose
//! start-up imports are left out.

mod common;

use std::path::Path;

use common::mpi::{self, Mpi};
use common::*;
use darshan_report::model::Timespans;
use darshan_report::{analyze, Options};

fn timespans_of(log: &Path) -> Timespans {
    analyze(log, &Options::default()).unwrap().timespans.expect("timespans")
}

/// Rank r starts writing its own file 150 ms after rank r−1 (each its own
/// row, in rank order); the shared file's write starts 200 ms after the
/// last own file was written, its read after its write.
fn ranks_write_their_files_in_turn_then_a_shared_one(m: Mpi) {
    let d = scratch(&format!("timespans-{}", m.tag()));
    let exe = mpi::mpicc(m, "timespan_phases", &d);
    let logs = mpi::mpirun(m, &exe, &[d.join("data").to_str().unwrap()], &d, &[]);
    assert_eq!(logs.len(), 1, "{logs:?}");
    let t = timespans_of(&logs[0]);
    assert_eq!((t.rows, t.ranks_per_row), (4, 1));
    let own: Vec<_> = t.independent.iter().filter(|s| s.3).collect();
    assert_eq!(own.iter().map(|s| s.0).collect::<Vec<_>>(), vec![0, 1, 2, 3], "{t:#?}");
    for pair in own.windows(2) {
        let gap = pair[1].1 - pair[0].1;
        assert!((0.1..0.6).contains(&gap), "rank {} started writing {gap} s after rank {}", pair[1].0, pair[0].0);
    }
    let last_own = own.iter().map(|s| s.2).fold(0.0, f64::max);
    let write = t.shared.iter().find(|s| s.2).expect("the shared file's write");
    let read = t.shared.iter().find(|s| !s.2).expect("the shared file's read");
    assert!(write.0 - last_own >= 0.15, "shared write at {} s, last own file at {last_own} s", write.0);
    assert!(read.0 >= write.0, "{t:#?}");
    assert!(t.independent.iter().all(|s| s.3), "no process read a file of its own: {t:#?}");
}

on_both_mpis!(ranks_write_their_files_in_turn_then_a_shared_one);

/// A script that waits 0.4 s, writes a file, waits 0.4 s and reads it:
/// its data file's write and read are drawn, 0.4 s apart, its output's
/// write after them, and none of the interpreter's start-up reads.
#[test]
fn a_python_scripts_imports_are_left_out_and_its_phases_drawn() {
    let d = scratch("timespans-python");
    let script = d.join("phases.py");
    std::fs::write(
        &script,
        "import json, sys, time\ntime.sleep(0.4)\nwith open(sys.argv[1], 'w') as f:\n    json.dump(list(range(100000)), f)\n\
         time.sleep(0.4)\nwith open(sys.argv[1]) as f:\n    print(len(json.load(f)))\n",
    )
    .unwrap();
    let mut c = instrumented(&python(), &d);
    c.arg(&script).arg(d.join("data/out.json"));
    let out = output_within(&mut c, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = timespans_of(&only_log(&d));
    assert!(t.left_out >= 10, "the interpreter's start-up reads are left out: {t:#?}");
    assert!(t.independent.iter().all(|s| s.1 >= 0.35), "a span drawn before the script's first write: {t:#?}");
    let write = t.independent.iter().find(|s| s.3).expect("the data file's write");
    let read = t.independent.iter().find(|s| !s.3).expect("the data file's read");
    assert!(write.1 >= 0.38 && read.1 - write.2 >= 0.38, "{t:#?}");
}
