//! Jobs without MPI as one job (docs/runtime.md "Jobs without MPI"): each
//! process's log says its rank, the job's size and key (from the
//! launcher's environment), and `darshan-merge --job` makes the job's log,
//! whose records equal, counter for counter, those of the same accesses
//! run as an MPI job under the runtime (tests/programs/job_tasks.c).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::mpi::*;
use common::*;
use darshan_log::counters::posix as px;
use darshan_log::modules::POSIX;

/// What a non-MPI log's metadata says: key -> value.
fn metadata(log: &Path) -> std::collections::BTreeMap<String, String> {
    let l = darshan_log::LogFile::open(log).unwrap();
    l.job
        .metadata_pairs()
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned()))
        .collect()
}

fn merge_job(inputs: &[&Path], out: &Path, extra: &[&str]) -> String {
    let o = output(Command::new(built("darshan-merge")).arg("--job").arg("--output").arg(out).args(extra).args(inputs));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "darshan-merge --job: {err}");
    err
}

/// Four tasks started as srun starts them: a launcher script gives each
/// SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_ID and SLURM_STEP_ID (and the
/// library, which srun itself would not run under).
fn srun_like(d: &Path, exe: &Path, data: &Path) {
    let script = format!(
        "for r in 0 1 2 3; do env LD_PRELOAD='{lib}' DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH='{logs}' \
         DARSHAN_MMAP_LOGPATH='{mmap}' SLURM_PROCID=$r SLURM_NTASKS=4 SLURM_JOB_ID=4242 SLURM_STEP_ID=0 \
         '{exe}' '{data}' & done; wait",
        lib = lib().display(),
        logs = d.join("logs").display(),
        mmap = d.join("mmap").display(),
        exe = exe.display(),
        data = data.display()
    );
    let st = status(Command::new("sh").arg("-c").arg(script));
    assert!(st.success());
}

/// Every POSIX counter of the record named `name` at `rank`, less the
/// two whose value depends on which rank happened to be faster.
fn posix_counters(log: &Log, name: &Path, rank: i64) -> Vec<(&'static str, i64)> {
    let recs = log.all(POSIX, name);
    let r =
        recs.iter().find(|r| r.rank == rank).unwrap_or_else(|| panic!("{} at rank {rank}: {recs:?}", name.display()));
    let (names, _) = darshan_log::modules::counter_names(POSIX);
    names
        .iter()
        .zip(&r.counters)
        .enumerate()
        .filter(|(k, _)| *k != px::FASTEST_RANK && *k != px::SLOWEST_RANK)
        .map(|(_, (n, v))| (*n, *v))
        .collect()
}

#[test]
fn srun_tasks_merge_into_the_log_an_mpi_job_writes() {
    let d = scratch("job-srun");
    let exe = compile("job_tasks", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    srun_like(&d, &exe, &data);
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 4, "{logs:?}");
    // Each process's own log: a valid one-process log that says where
    // the process stands.
    let mut ranks: Vec<String> = logs.iter().map(|l| metadata(l)["job_rank"].clone()).collect();
    ranks.sort();
    assert_eq!(ranks, ["0", "1", "2", "3"]);
    for l in &logs {
        let m = metadata(l);
        assert_eq!(
            (m["job_size"].as_str(), m["job_key"].as_str(), m["rank_env"].as_str()),
            ("4", "slurm-4242.0", "SLURM_PROCID")
        );
        assert_eq!(darshan_log::LogFile::open(l).unwrap().job.nprocs, 1);
    }
    let job = d.join("job.darshan");
    merge_job(&[&d.join("logs")], &job, &[]);
    let merged = read(&job);
    assert_eq!(merged.file.job.nprocs, 4);
    // darshan-summary sees a 4-rank job: 4 files of one rank each, 1 every rank shares.
    let json = d.join("job.json");
    let o = output(Command::new(built("darshan-summary")).arg("--json").arg(&job).arg("-o").arg(&json));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["job"]["nprocs"], 4);
    let sharing = &report["files"]["sharing"];
    assert_eq!((sharing["unique"].as_i64(), sharing["shared"].as_i64()), (Some(4), Some(1)), "{sharing}");

    // The oracle: the same accesses as a 4-rank MPI job under the runtime.
    let m = scratch("job-srun-mpi");
    let mexe = mpicc_with(OpenMpi, "job_tasks", &m, &["-DUSE_MPI"]);
    let mdata = m.join("data").canonicalize().unwrap();
    let mpi_log = the_log(&mpirun(OpenMpi, &mexe, &[mdata.to_str().unwrap()], &m, &[]));
    assert_eq!(
        posix_counters(&merged, &data.join("shared"), -1),
        posix_counters(&mpi_log, &mdata.join("shared"), -1),
        "the shared file's rank -1 record"
    );
    assert_eq!(merged.all(POSIX, &data.join("shared")).len(), 1, "only the reduced record of the shared file");
    for r in 0..4 {
        let own = format!("own{r}");
        assert_eq!(
            posix_counters(&merged, &data.join(&own), r),
            posix_counters(&mpi_log, &mdata.join(&own), r),
            "{own} at rank {r}"
        );
    }
}

#[test]
fn a_killed_task_joins_the_job_log_from_its_crash_safe_file() {
    let d = scratch("job-kill");
    let exe = compile("job_tasks", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let task = |r: i64| {
        let mut c = instrumented(&exe, &d);
        c.arg(&data).arg("3").env("SLURM_PROCID", r.to_string()).env("SLURM_NTASKS", "4").env("SLURM_JOB_ID", "77");
        c
    };
    for r in 0..3 {
        assert!(output(&mut task(r)).status.success());
    }
    let (mut killed, _) = start_ready(&mut task(3));
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(files(&d.join("logs")).len(), 3);
    let mm = files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "the killed task's crash-safe file");
    let job = d.join("job.darshan");
    let said = merge_job(&[&d.join("logs"), &d.join("mmap")], &job, &["--remove-inputs"]);
    assert!(said.contains("4 logs, nprocs 4"), "{said}");
    let merged = read(&job);
    assert_eq!(merged.file.job.nprocs, 4);
    let own3 = merged.one(POSIX, &data.join("own3"));
    assert_eq!((own3.rank, own3.counters[px::BYTES_WRITTEN]), (3, 3000));
    let shared = merged.one(POSIX, &data.join("shared"));
    assert_eq!(shared.rank, -1, "the killed task had the shared file too: it is every rank's");
    assert_eq!((shared.counters[px::WRITES], shared.counters[px::BYTES_READ]), (16, 4 * 16384));
    assert!(files(&d.join("logs")).is_empty() && files(&d.join("mmap")).is_empty(), "--remove-inputs");
}

/// torchrun's way: 4 workers with RANK, WORLD_SIZE and TORCHELASTIC_RUN_ID,
/// each forking 2 data-loader processes; one job log of 4 ranks, the
/// loaders' I/O under their worker's rank.
#[test]
fn torchrun_workers_and_their_forked_loaders_make_one_job_of_four_ranks() {
    let d = scratch("job-torch");
    let data = d.join("data").canonicalize().unwrap();
    let worker = r#"
import os, sys
rank, data = int(os.environ["RANK"]), sys.argv[1]
for k in range(2):
    if os.fork() == 0:
        with open(f"{data}/loader{rank}-{k}", "wb") as f:
            f.write(b"x" * (100 * (k + 1)))
        sys.exit(0)
with open(f"{data}/worker{rank}", "wb") as f:
    f.write(b"w" * 1000)
for k in range(2):
    os.wait()
"#;
    let launcher = format!(
        r#"
import os, subprocess, sys
env = dict(os.environ, LD_PRELOAD="{lib}", DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH="{logs}",
           DARSHAN_MMAP_LOGPATH="{mmap}", WORLD_SIZE="4", TORCHELASTIC_RUN_ID="run7", LOCAL_RANK="0")
ps = [subprocess.Popen([sys.executable, "-c", {worker:?}, "{data}"], env=dict(env, RANK=str(r))) for r in range(4)]
sys.exit(max(p.wait() for p in ps))
"#,
        lib = lib().display(),
        logs = d.join("logs").display(),
        mmap = d.join("mmap").display(),
        data = data.display(),
    );
    assert!(status(Command::new(python()).arg("-c").arg(launcher)).success());
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 12, "4 workers and 8 loaders: {logs:?}");
    let forked = logs.iter().filter(|l| metadata(l).contains_key("fork_parent")).count();
    assert_eq!(forked, 8);
    let job = d.join("job.darshan");
    merge_job(&[&d.join("logs")], &job, &[]);
    let merged = read(&job);
    assert_eq!(merged.file.job.nprocs, 4);
    for r in 0..4 {
        assert_eq!(merged.one(POSIX, &data.join(format!("worker{r}"))).rank, r);
        for k in 0..2 {
            let l = merged.one(POSIX, &data.join(format!("loader{r}-{k}")));
            assert_eq!((l.rank, l.counters[px::BYTES_WRITTEN]), (r, 100 * (k + 1)), "loader {k} of worker {r}");
        }
    }
    let meta = metadata(&job);
    assert_eq!((meta["job_key"].as_str(), meta["job_processes"].as_str()), ("torch-run7", "12"));
    report_puts_each_ranks_loaders_under_it(&job);
}

/// The report's processes: 4 ranks, each with its 2 forked loaders under
/// it (their parent that rank's process), each loader's bytes.
fn report_puts_each_ranks_loaders_under_it(job: &Path) {
    let o = output(Command::new(built("darshan-summary")).arg("--json").arg(job));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["processes"]["roles"], serde_json::json!([["rank", 4], ["forked worker", 8]]));
    let rows = r["processes"]["rows"].as_array().unwrap();
    for rank in 0..4 {
        let own: Vec<&serde_json::Value> = rows.iter().filter(|x| x["rank"] == rank).collect();
        let head = own.iter().find(|x| x["role"] == "rank").expect("the rank's own process");
        assert_eq!(head["bytes_written"], 1000, "{head}");
        let mut written: Vec<i64> = own
            .iter()
            .filter(|x| x["role"] == "forked worker")
            .inspect(|x| assert_eq!(x["parent_pid"], head["pid"], "{x}"))
            .map(|x| x["bytes_written"].as_i64().unwrap())
            .collect();
        written.sort();
        assert_eq!(written, [100, 200], "rank {rank}'s loaders");
    }
}

/// Logs of two jobs in one directory: --output refuses to pick one,
/// --job-key picks, --output-dir writes one log per job.
#[test]
fn two_jobs_in_one_directory_are_told_apart() {
    let d = scratch("job-two");
    let exe = compile("job_tasks", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    for (job, r) in [("1", 0), ("1", 1), ("2", 0)] {
        let mut c = instrumented(&exe, &d);
        c.arg(&data).env("SLURM_PROCID", r.to_string()).env("SLURM_NTASKS", "2").env("SLURM_JOB_ID", job);
        assert!(output(&mut c).status.success());
    }
    let out = d.join("one.darshan");
    let o = output(Command::new(built("darshan-merge")).args(["--job", "--output"]).arg(&out).arg(d.join("logs")));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("2 jobs (slurm-1, slurm-2)"), "{err}");
    merge_job(&[&d.join("logs")], &out, &["--job-key", "slurm-2"]);
    assert_eq!(read(&out).file.job.nprocs, 2, "job 2's launcher said 2 tasks");
    let dir = d.join("jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let o = output(Command::new(built("darshan-merge")).args(["--job", "--output-dir"]).arg(&dir).arg(d.join("logs")));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let made: Vec<PathBuf> = files(&dir);
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(made.iter().all(|p| p.to_string_lossy().ends_with("_job.darshan")));
}

/// The job epilog: a job's two steps (4 tasks, one of them killed, then 2
/// tasks) leave 5 logs and a crash-safe file; after it, one log per step
/// and nothing else.
#[test]
fn the_job_epilog_leaves_one_log_per_step() {
    let d = scratch("job-epilog");
    let exe = compile("job_tasks", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let task = |step: &str, r: i64, n: i64, hang: bool| {
        let mut c = instrumented(&exe, &d);
        c.arg(&data).arg(if hang { r.to_string() } else { "-1".into() });
        c.env("SLURM_PROCID", r.to_string()).env("SLURM_NTASKS", n.to_string());
        c.env("SLURM_JOB_ID", "5151").env("SLURM_STEP_ID", step);
        c
    };
    for r in 0..3 {
        assert!(output(&mut task("0", r, 4, false)).status.success());
    }
    let (mut killed, _) = start_ready(&mut task("0", 3, 4, true));
    killed.kill().unwrap();
    killed.wait().unwrap();
    for r in 0..2 {
        assert!(output(&mut task("1", r, 2, false)).status.success());
    }
    assert_eq!((files(&d.join("logs")).len(), files(&d.join("mmap")).len()), (5, 1));
    let merge_dir = built("darshan-merge").parent().unwrap().to_path_buf();
    let out = output(
        Command::new(root().join("scripts/darshan-job-epilog"))
            .arg("5151")
            .arg(d.join("logs"))
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"))
            .env("DARSHAN_MERGE", merge_dir.join("darshan-merge")),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(files(&d.join("mmap")).is_empty(), "the killed task's file is in its job log");
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 2, "{logs:?}");
    let mut sizes: Vec<(String, i64)> = logs
        .iter()
        .map(|l| (metadata(l)["job_key"].clone(), darshan_log::LogFile::open(l).unwrap().job.nprocs))
        .collect();
    sizes.sort();
    assert_eq!(sizes, [("slurm-5151.0".to_string(), 4), ("slurm-5151.1".to_string(), 2)]);
}

/// The bytes each file's records in `log` say were written to it.
fn bytes_written_by_file(log: &Log) -> std::collections::BTreeMap<String, Vec<i64>> {
    let mut m: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    for (module, name, r) in &log.recs {
        if *module == POSIX {
            m.entry(name.clone()).or_default().push(r.counters[px::BYTES_WRITTEN]);
        }
    }
    m
}

/// One process, one count: 400 forked children killed around their exit
/// (exit_race.c: some between publishing their log and removing their
/// crash-safe file), a process whose crash-safe file was copied before it
/// exited (what such a kill leaves, made certain), and a log copied into
/// a second directory. In the job log and in the facility database each
/// file's bytes are at most what is on disk: never a process twice.
#[test]
fn children_killed_around_exit_and_copied_logs_count_each_process_once() {
    let d = scratch("crash-exit-race");
    let exe = compile("exit_race", &d, &[]);
    let data = d.join("data").canonicalize().unwrap();
    let job_env = [("SLURM_JOB_ID", "8080"), ("SLURM_STEP_ID", "0"), ("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")];
    let o =
        output_within(instrumented(&exe, &d).arg(&data).arg("400").envs(job_env), std::time::Duration::from_secs(600));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    eprintln!("exit_race: {}", String::from_utf8_lossy(&o.stdout).trim());
    // A process that waits after its I/O: its crash-safe file copied, as
    // a kill after its log was published would leave it.
    let waiter =
        "import sys\nopen(sys.argv[1], 'w').write('w' * 3000)\nprint('ready', flush=True)\nsys.stdin.readline()\n";
    let before = files(&d.join("mmap"));
    let mut c = instrumented(&python(), &d);
    c.args(["-c", waiter]).arg(data.join("waiter")).envs(job_env);
    let (mut child, _) = start_ready(&mut c);
    let kept = d.join("mmap-kept");
    std::fs::create_dir_all(&kept).unwrap();
    let mine: Vec<PathBuf> = files(&d.join("mmap")).into_iter().filter(|f| !before.contains(f)).collect();
    assert!(!mine.is_empty(), "the waiting process's crash-safe file");
    for f in &mine {
        std::fs::copy(f, kept.join(f.file_name().unwrap())).unwrap();
    }
    drop(child.stdin.take());
    assert!(wait(&mut child).success());
    // A log copied into another directory.
    let copies = d.join("copies");
    std::fs::create_dir_all(&copies).unwrap();
    let logs = files(&d.join("logs"));
    std::fs::copy(&logs[logs.len() / 2], copies.join(logs[logs.len() / 2].file_name().unwrap())).unwrap();

    let inputs = [d.join("logs"), d.join("mmap"), kept, copies];
    job_log_counts_each_process_once(&d, &inputs, &data);
    database_counts_each_process_once(&d, &inputs, &data);
}

/// The bytes on disk of the file named `name` (0 if it is gone).
fn on_disk(name: &str) -> i64 {
    std::fs::metadata(name).map(|m| m.len() as i64).unwrap_or(0)
}

/// In the job log of `inputs`, each file of `data` written by one process
/// at most its bytes on disk, the waiting process's once, and every time
/// within the run.
fn job_log_counts_each_process_once(d: &Path, inputs: &[PathBuf], data: &Path) {
    let job = d.join("job.darshan");
    let said = merge_job(&inputs.iter().map(|p| p.as_path()).collect::<Vec<_>>(), &job, &[]);
    assert!(said.matches("the same process as").count() >= 2, "{said}");
    let merged = read(&job);
    let by_file = bytes_written_by_file(&merged);
    assert_eq!(by_file[data.join("waiter").to_str().unwrap()], [3000], "the waiting process once");
    let mut children = 0;
    for (name, bytes) in &by_file {
        if name.starts_with(data.to_str().unwrap()) {
            assert_eq!(bytes.len(), 1, "{name}: {bytes:?}");
            assert!(bytes[0] <= on_disk(name), "{name}: {bytes:?} written, {} on disk", on_disk(name));
            children += 1;
        }
    }
    assert!(children > 5, "{children} files recorded");
    // Times: a child killed between turning its ticks into seconds and
    // saying so in its crash-safe file once gave 1.7e9 s (f64 bits read
    // as ticks). Every time is within the run.
    for (m, name, r) in &merged.recs {
        if *m == POSIX {
            for k in [px::F_READ_TIME, px::F_WRITE_TIME, px::F_META_TIME, px::F_OPEN_START_TIMESTAMP] {
                let t = r.fcounters[k];
                assert!((0.0..600.0).contains(&t), "{name}: fcounter {k} = {t}");
            }
        }
    }
}

/// The facility database of the same inputs: the same once.
fn database_counts_each_process_once(d: &Path, inputs: &[PathBuf], data: &Path) {
    let db = d.join("f.db");
    let o = output(Command::new(built("darshan-ingest")).arg("-q").args(inputs).arg("--db").arg(&db));
    // Status 1 says some files were not logs (the empty crash-safe files
    // of children killed as their runtime made them): named, not fatal.
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
    let q = "import sqlite3, sys, json\nc = sqlite3.connect(sys.argv[1])\nprint(json.dumps(dict(c.execute(\
             'SELECT file_name, SUM(POSIX_BYTES_WRITTEN) FROM posix_records GROUP BY file_name').fetchall())))";
    let o = output(Command::new("python3").args(["-c", q]).arg(&db));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sums: std::collections::BTreeMap<String, i64> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        sums.get(data.join("waiter").to_str().unwrap()),
        Some(&3000),
        "the waiting process once in the database"
    );
    for (name, b) in sums.iter().filter(|(n, _)| n.starts_with(data.to_str().unwrap())) {
        assert!(*b <= on_disk(name), "{name}: {b} in the database, {} on disk", on_disk(name));
    }
}

/// The pool job (below) run under the runtime in a scratch dir of its
/// own, merged and reported: the report, what the job itself printed
/// (its pid and each worker's bytes) and the job's process count.
fn pool_job(name: &str) -> (serde_json::Value, serde_json::Value, i64) {
    let d = scratch(name);
    let data = d.join("data").canonicalize().unwrap();
    let set = data.join("set");
    std::fs::create_dir_all(&set).unwrap();
    let block = vec![7u8; 2 << 20];
    for k in 0..60 {
        std::fs::write(set.join(format!("f{k:02}.bin")), &block).unwrap();
    }
    let job = r#"
import json, multiprocessing as mp, os, sys
def read(path):
    with open(path, "rb") as f:
        return os.getpid(), len(f.read())
if __name__ == "__main__":
    mp.set_start_method("fork")
    d = sys.argv[1]
    files = sorted(os.path.join(d, f) for f in os.listdir(d))
    pool = mp.Pool(4)
    split = {}
    for epoch in range(3):
        got = pool.map(read, files, chunksize=15)
        assert sum(n for _, n in got) == 60 * (2 << 20)
        for pid, n in got:
            split[pid] = split.get(pid, 0) + n
    pool.close()
    pool.join()
    print(json.dumps({"main": os.getpid(), "split": split}))
"#;
    let mut c = instrumented(&python(), &d);
    c.args(["-c", job]).arg(&set).env("SLURM_JOB_ID", "5150").env("SLURM_PROCID", "0").env("SLURM_NTASKS", "1");
    // DXT on: each worker's read timeline then comes from its own traces.
    c.env("DXT_ENABLE_IO_TRACE", "1");
    let o_job = output(&mut c);
    assert!(o_job.status.success(), "{}", String::from_utf8_lossy(&o_job.stderr));
    let log = d.join("pool.darshan");
    merge_job(&[&d.join("logs"), &d.join("mmap")], &log, &[]);
    let meta = metadata(&log);
    assert_eq!(read(&log).file.job.nprocs, 1, "one rank");
    let procs: i64 = meta["job_processes"].parse().unwrap();
    assert!(procs >= 5, "the main process and its 4 workers at least: {procs}");
    let json = d.join("pool.json");
    let o = output(Command::new(built("darshan-summary")).arg("--json").arg(&log).arg("-o").arg(&json));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let app: serde_json::Value = serde_json::from_slice(o_job.stdout.trim_ascii()).unwrap();
    (r, app, procs)
}

/// A Python job with a `multiprocessing` pool of 4 forked loaders making
/// three passes over 60 files of 2 MiB (made here, before the job: its
/// data set is only read). Its job log (darshan-merge --job over the
/// process logs) is one rank whose processes are the main one and its
/// workers; the report says three passes over the 120 MiB data set, puts
/// the interpreter's files in the software-loading line, and makes no
/// other WARN or HIGH finding (a pool job like this once got P09, P07,
/// P17, X03 and X02, flipping between runs).
#[test]
fn a_python_loader_pool_is_three_passes_over_its_data_set_and_nothing_else() {
    let (r, app, procs) = pool_job("job-pool");
    // The same job again: the same findings, at the same levels (timing
    // findings need more time than run-to-run noise moves).
    let (again, _, _) = pool_job("job-pool-again");
    let said = |r: &serde_json::Value| -> Vec<String> {
        r["findings"].as_array().unwrap().iter().map(|f| format!("{} {}", f["code"], f["level"])).collect()
    };
    assert_eq!(said(&r), said(&again));
    let said = r["job"]["processes"].as_str().unwrap();
    assert!(said.starts_with(&format!("{procs} in 1 rank ")), "{said}");
    let findings = r["findings"].as_array().unwrap();
    let e01 = findings.iter().find(|f| f["code"] == "E01").unwrap_or_else(|| panic!("no E01: {findings:?}"));
    let title = e01["title"].as_str().unwrap();
    assert!(title.starts_with("3.0 passes over a 120.00 MiB data set of 60 files"), "{title}");
    let loud: Vec<&serde_json::Value> =
        findings.iter().filter(|f| f["code"] != "E01" && (f["level"] == "high" || f["level"] == "warn")).collect();
    assert!(loud.is_empty(), "false findings: {loud:?}");
    let n02 = findings.iter().find(|f| f["code"] == "N02").expect("the interpreter's files in N02");
    assert!(n02["evidence"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains(".py")), "{n02}");
    // The loader view: the main process a rank, the pool's workers forked
    // from it, each with the bytes the job itself counted it reading.
    let main = app["main"].as_i64().unwrap();
    let rows = r["processes"]["rows"].as_array().unwrap();
    let main_row = rows.iter().find(|x| x["pid"] == main).expect("the main process's row");
    assert_eq!((main_row["role"].as_str(), main_row["bytes_read"].as_i64()), (Some("rank"), Some(0)), "{main_row}");
    let split = app["split"].as_object().unwrap();
    assert!(!split.is_empty());
    for (pid, bytes) in split {
        let w = rows
            .iter()
            .find(|x| x["pid"].as_i64().is_some_and(|p| p.to_string() == *pid))
            .unwrap_or_else(|| panic!("worker {pid}: {rows:?}"));
        assert_eq!(w["role"], "forked worker", "{w}");
        assert_eq!(w["parent_pid"], main, "{w}");
        assert_eq!(w["bytes_read"], *bytes, "worker {pid}: the job counted {bytes}");
        assert!(w["start_up_stall"].as_f64().unwrap() >= 0.0, "{w}");
        let binned: i64 = w["timeline"].as_array().unwrap().iter().map(|b| b.as_i64().unwrap()).sum();
        assert_eq!(binned, bytes.as_i64().unwrap(), "worker {pid}'s DXT timeline holds its data reads");
    }
    let workers = rows.iter().filter(|x| x["role"] == "forked worker").count();
    assert_eq!(workers, procs as usize - 1, "every other process is one of the pool's workers");
    assert_eq!(r["processes"]["readers"]["count"], split.len());
    assert_eq!(r["processes"]["timeline_source"], "DXT");
}

/// Eight tasks of a job, each tracing 60,000 writes with DXT, and a
/// ninth process of rank 0 (as a forked loader) tracing 10 more on the
/// same files: `--job` gathered every process's traces before writing
/// any, 1.7 times their decoded size at once (28-30 MB here). Now one
/// input's at a time (the parts of a rank's trace of a file wait for one
/// another): within 16 MiB. Rank 0's traces of a file are still joined,
/// in time order, and every rank's are whole (the known pattern); the
/// eight tasks alone, one process per rank, are merged in one pass.
#[test]
fn a_jobs_dxt_traces_were_all_held_at_once_to_merge() {
    const EXTRA: i64 = 60_000;
    let d = scratch("job-dxt-memory");
    let exe = compile("dxt_pattern", &d, &[]);
    for (k, extra) in (0..8).map(|k| (k, EXTRA)).chain([(8, 10)]) {
        let dir = d.join(format!("data/r{}", k % 8));
        std::fs::create_dir_all(&dir).unwrap();
        let mut c = instrumented(&exe, &d);
        c.arg(&dir).arg(extra.to_string()).env("DXT_ENABLE_IO_TRACE", "1");
        c.env("SLURM_PROCID", (k % 8).to_string()).env("SLURM_NTASKS", "8").env("SLURM_JOB_ID", "91");
        if k == 8 {
            std::fs::create_dir_all(d.join("loader")).unwrap();
            c.env("DARSHAN_LOGPATH", d.join("loader"));
        }
        assert!(output(&mut c).status.success());
    }
    let merge = built("darshan-merge");
    for (inputs, loader) in [(vec![d.join("logs")], false), (vec![d.join("logs"), d.join("loader")], true)] {
        let job = d.join(format!("job-{loader}.darshan"));
        let o = output(
            darshan_test_support::under_gnu_time(&merge, false).args(["--job", "--output"]).arg(&job).args(&inputs),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let peak = darshan_test_support::peak_kib(&o);
        assert!(peak < 16 * 1024, "darshan-merge --job: peak {peak} KiB");
        let merged = read(&job);
        for r in 0..8 {
            let data = d.join(format!("data/r{r}"));
            let twice = i64::from(r == 0 && loader);
            for (file, writes) in [("b.dat", 20 * (1 + twice)), ("c.dat", 4 + EXTRA + twice * (4 + 10))] {
                let t = merged.one(darshan_log::modules::DXT_POSIX, &data.join(file));
                let darshan_log::Extra::Dxt { writes: w, .. } = &t.extra else { panic!("{file}: no trace") };
                assert_eq!((t.rank, w.len() as i64), (r, writes), "{file}, loader {loader}");
                assert!(w.windows(2).all(|p| p[0].start_time <= p[1].start_time), "{file}: in time order");
            }
        }
    }
}
