//! The PnetCDF modules on Debian's real PnetCDF (libpnetcdf-dev, built for
//! Open MPI): a 4-rank job with a known pattern of collective,
//! independent, nonblocking and buffered puts and gets, a record
//! variable and a reopen (tests/programs/pnetcdf_pattern.c), every
//! counter checked, also with the job built as a library a program
//! dlopens RTLD_LOCAL (libpnetcdf outside the global scope); the module
//! switches; the wrapper list against the
//! library's own functions; and the same job linked statically with
//! Debian's libpnetcdf.a (`--wrap`). PyDarshan's reading of these logs is
//! checked with every other test log by tests/pydarshan/
//! check_runtime_logs.py (`just test`).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::mpi::{c, mpicc_with, mpirun, the_log, OpenMpi, NP};
use common::*;
use darshan_log::counters::{pnetcdf_file as f, pnetcdf_var as v};
use darshan_log::modules::{MPIIO, PNETCDF_FILE, PNETCDF_VAR, POSIX};
use darshan_log::record::Extra;

fn build(dir: &Path) -> std::path::PathBuf {
    mpicc_with(OpenMpi, "pnetcdf_pattern", dir, &["-lpnetcdf"])
}

/// The bytes the program's ranks saw PnetCDF report just before each
/// close, summed (what PNETCDF_FILE_BYTES_* add up to).
fn reported_sizes(path: &Path) -> (i64, i64) {
    let s = std::fs::read_to_string(path).expect("the program's size report");
    let num = |key: &str| -> i64 {
        let v = s.split_whitespace().find_map(|w| w.strip_prefix(key)).expect(key);
        v.parse().expect(key)
    };
    (num("put="), num("get="))
}

/// Each `(counter, value)` of `want` in record `r` of `module`.
fn expect(r: &darshan_log::Record, module: usize, what: &str, want: &[(usize, i64)]) {
    let names = darshan_log::modules::counter_names(module).0;
    for &(k, n) in want {
        assert_eq!(c(r, k), n, "{what} {}", names[k]);
    }
}

#[test]
fn a_4_rank_pnetcdf_job_has_every_counter_of_its_known_pattern() {
    let dir = scratch("pnetcdf-pattern");
    let exe = build(&dir);
    let (nc, sizes) = (dir.join("f.nc"), dir.join("sizes.txt"));
    let logs = mpirun(OpenMpi, &exe, &[nc.to_str().unwrap(), sizes.to_str().unwrap()], &dir, &[]);
    check_known_pattern(&dir, &logs);
}

/// Regression of the same class as mpi4py's (interposition rule 3a): a
/// library that a program dlopens RTLD_LOCAL, as Python imports an
/// extension module, brings libpnetcdf and libmpi in outside the global
/// scope, where `dlsym(RTLD_NEXT)` does not see them. The job built as
/// such a library must give the log of its known pattern, as when it is
/// the program.
#[test]
fn a_pnetcdf_job_failed_when_libpnetcdf_was_loaded_by_a_dlopened_library() {
    let dir = scratch("pnetcdf-local");
    let (loader, mut args) = common::compile_loaded_locally("pnetcdf_pattern", OpenMpi.cc(), &dir, &["-lpnetcdf"]);
    args.extend([dir.join("f.nc"), dir.join("sizes.txt")].map(|p| p.display().to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let logs = mpirun(OpenMpi, &loader, &a, &dir, &[]);
    check_known_pattern(&dir, &logs);
}

/// Every counter of pnetcdf_pattern.c's known pattern, run in `dir`, in
/// its log (`logs`: the job's one).
fn check_known_pattern(dir: &Path, logs: &[std::path::PathBuf]) {
    let log = the_log(logs);
    assert_eq!(log.file.header.partial_flag, 0);
    let nc = dir.join("f.nc");
    let file_id = check_file(&log, &nc, &dir.join("sizes.txt"));
    check_temp(&log, dir, file_id);
    check_grid(&log, dir);

    // Beneath it, the MPI-IO and POSIX records of the same file.
    assert_eq!(log.one(MPIIO, &nc).rank, -1);
    assert!(!log.all(POSIX, &nc).is_empty());

    // darshan-parser prints the records, with the variable's file id.
    let out = output(Command::new(built("darshan-parser")).arg(&logs[0]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let var_name = dir.join("f.nc:grid").display().to_string();
    let want = format!(
        "PNETCDF_VAR\t-1\t{}\tPNETCDF_VAR_FILE_REC_ID\t{file_id}\t{var_name}",
        darshan_log::record_id(var_name.as_bytes())
    );
    assert!(text.lines().any(|l| l.starts_with(&want)), "no line starting {want:?}");
}

/// The file `nc`: shared by all ranks, one reduced record; its id.
fn check_file(log: &common::mpi::Log, nc: &Path, sizes: &Path) -> u64 {
    let file = log.one(PNETCDF_FILE, nc);
    assert_eq!(file.rank, -1);
    let want = [
        (f::CREATES, NP),
        (f::OPENS, NP),
        (f::REDEFS, NP),
        (f::SYNCS, NP),
        (f::COLL_WAITS, 2 * NP),
        (f::INDEP_WAITS, NP),
        (f::WAIT_FAILURES, 0),
    ];
    expect(file, PNETCDF_FILE, "file", &want);
    let (put, get) = reported_sizes(sizes);
    assert!(put > 0 && get > 0, "put={put} get={get}");
    assert_eq!((c(file, f::BYTES_WRITTEN), c(file, f::BYTES_READ)), (put, get));
    let t = &file.fcounters;
    assert!(t[f::F_OPEN_START_TIMESTAMP] > 0.0 && t[f::F_OPEN_START_TIMESTAMP] <= t[f::F_WAIT_START_TIMESTAMP]);
    assert!(t[f::F_WAIT_START_TIMESTAMP] <= t[f::F_WAIT_END_TIMESTAMP]);
    assert!(t[f::F_CLOSE_START_TIMESTAMP] <= t[f::F_CLOSE_END_TIMESTAMP]);
    assert!(t[f::F_OPEN_END_TIMESTAMP] <= t[f::F_CLOSE_END_TIMESTAMP], "the reopen ends before the last close");
    assert!(t[f::F_META_TIME] > 0.0 && t[f::F_WAIT_TIME] > 0.0);
    let file_id = darshan_log::record_id(nc.to_str().unwrap().as_bytes());
    assert_eq!(file.id, file_id);
    file_id
}

/// temp(time, y, x), float: a record variable of 4 x 10 points a record.
fn check_temp(log: &common::mpi::Log, dir: &Path, file_id: u64) {
    let temp = log.one(PNETCDF_VAR, &dir.join("f.nc:temp"));
    assert_eq!((temp.rank, &temp.extra), (-1, &Extra::FileRecId(file_id)));
    let want = [
        (v::OPENS, 2 * NP), // def_var, then inq_varid after the reopen
        (v::INDEP_WRITES, NP),
        (v::COLL_WRITES, 0),
        (v::NB_WRITES, 3 * NP),
        (v::INDEP_READS, 0),
        (v::COLL_READS, 2 * NP),
        (v::NB_READS, NP),
        (v::PUT_VARA, NP),
        (v::IPUT_VARA, 2 * NP),
        (v::BPUT_VAR1, NP),
        (v::IGET_VARA, NP),
        (v::GET_VARA, NP),
        (v::GET_VARN, NP),
        (v::BYTES_WRITTEN, (40 + 80 + 4) * NP),
        (v::BYTES_READ, (40 + 40 + 20) * NP),
        (v::RW_SWITCHES, NP),
        (v::SIZE_WRITE_AGG_0_100, 4 * NP),
        (v::SIZE_READ_AGG_0_100, 3 * NP),
        (v::ACCESS1_ACCESS, 40),
        (v::ACCESS1_LENGTH_D1, 1),
        (v::ACCESS1_LENGTH_D2, 1),
        (v::ACCESS1_LENGTH_D3, 10),
        (v::ACCESS1_STRIDE_D1, 0),
        (v::ACCESS1_COUNT, 5 * NP),
        // The varn read (3 + 2 values), then the one buffered value.
        (v::ACCESS2_ACCESS, 20),
        (v::ACCESS2_COUNT, NP),
        (v::ACCESS3_ACCESS, 4),
        (v::ACCESS3_COUNT, NP),
        (v::ACCESS4_COUNT, 0),
        (v::NDIMS, 3),
        (v::NPOINTS, 40),
        (v::DATATYPE_SIZE, 4),
        (v::IS_RECORD_VAR, 1),
    ];
    expect(temp, PNETCDF_VAR, "temp", &want);
    // The size of the slowest write: temp is written 40 bytes at a time
    // and once 4 bytes (bput_var1), and which took longest depends on the
    // machine's load (a full run here once saw the 4-byte one slowest).
    let slowest = c(temp, v::MAX_WRITE_TIME_SIZE);
    assert!(slowest == 40 || slowest == 4, "temp PNETCDF_VAR_MAX_WRITE_TIME_SIZE {slowest}: no write of that size");
    assert!((0..NP).contains(&c(temp, v::FASTEST_RANK)) && (0..NP).contains(&c(temp, v::SLOWEST_RANK)));
    // Every rank moved the same bytes.
    assert_eq!((c(temp, v::FASTEST_RANK_BYTES), c(temp, v::SLOWEST_RANK_BYTES)), (224, 224));
    assert_eq!(temp.fcounters[v::F_VARIANCE_RANK_BYTES], 0.0);
}

/// grid(y, x), int: not a record variable, but its file has records, so
/// the whole-variable read counts its 40 points 3 times, as Darshan sizes
/// it (480 bytes).
fn check_grid(log: &common::mpi::Log, dir: &Path) {
    let grid = log.one(PNETCDF_VAR, &dir.join("f.nc:grid"));
    let want = [
        (v::OPENS, NP),
        (v::COLL_WRITES, 2 * NP),
        (v::COLL_READS, 2 * NP),
        (v::PUT_VARA, NP),
        (v::PUT_VARS, NP),
        (v::GET_VARA, NP),
        (v::GET_VAR, NP),
        (v::BYTES_WRITTEN, (40 + 20) * NP),
        (v::BYTES_READ, (40 + 480) * NP),
        (v::RW_SWITCHES, NP),
        (v::SIZE_WRITE_AGG_0_100, 2 * NP),
        (v::SIZE_READ_AGG_0_100, NP),
        (v::SIZE_READ_AGG_100_1K, NP),
        (v::ACCESS1_ACCESS, 40),
        (v::ACCESS1_LENGTH_D1, 1),
        (v::ACCESS1_LENGTH_D2, 10),
        (v::ACCESS1_COUNT, 2 * NP),
        (v::ACCESS2_ACCESS, 480),
        (v::ACCESS2_LENGTH_D1, 0),
        (v::ACCESS2_COUNT, NP),
        // The strided write: 5 values of every other one.
        (v::ACCESS3_ACCESS, 20),
        (v::ACCESS3_LENGTH_D2, 5),
        (v::ACCESS3_STRIDE_D1, 1),
        (v::ACCESS3_STRIDE_D2, 2),
        (v::ACCESS3_COUNT, NP),
        (v::NDIMS, 2),
        (v::NPOINTS, 40),
        (v::IS_RECORD_VAR, 0),
    ];
    expect(grid, PNETCDF_VAR, "grid", &want);
    let g = &grid.fcounters;
    assert!(g[v::F_WRITE_START_TIMESTAMP] <= g[v::F_WRITE_END_TIMESTAMP]);
    assert!(g[v::F_WRITE_TIME] > 0.0 && g[v::F_READ_TIME] > 0.0);
}

/// `DARSHAN_MOD_DISABLE=PNETCDF_FILE,PNETCDF_VAR`: no PnetCDF records and
/// no inquiry calls, the program's results unchanged (it checks every
/// call's return value itself), the MPI-IO records still there.
#[test]
fn disabled_pnetcdf_modules_record_nothing_and_change_nothing() {
    let dir = scratch("pnetcdf-disabled");
    let exe = build(&dir);
    let nc = dir.join("f.nc");
    let sizes = dir.join("sizes.txt");
    let args = [nc.to_str().unwrap(), sizes.to_str().unwrap()];
    let env = [("DARSHAN_MOD_DISABLE", "PNETCDF_FILE,PNETCDF_VAR")];
    let log = the_log(&mpirun(OpenMpi, &exe, &args, &dir, &env));
    let present = log.file.modules_present();
    assert!(!present.contains(&PNETCDF_FILE) && !present.contains(&PNETCDF_VAR), "{present:?}");
    assert_eq!(log.one(MPIIO, &nc).rank, -1);
    assert!(reported_sizes(&sizes).0 > 0);
}

/// The put/get names Darshan 3.5.0 wraps, built from its rule (not from
/// our table): blocking var/var1/vara/vars/varm/varn, flexible and 12
/// types, independent and _all, plus vard; nonblocking iput/iget/bput of
/// var..varn, flexible and typed; and the 10 file and variable calls.
fn darshans_pnetcdf_list() -> BTreeSet<String> {
    let types = [
        "",
        "_text",
        "_schar",
        "_uchar",
        "_short",
        "_ushort",
        "_int",
        "_uint",
        "_long",
        "_float",
        "_double",
        "_longlong",
        "_ulonglong",
    ];
    let mut names: BTreeSet<String> =
        ["create", "open", "close", "enddef", "redef", "def_var", "inq_varid", "wait", "wait_all", "sync"]
            .iter()
            .map(|n| format!("ncmpi_{n}"))
            .collect();
    for kind in ["", "1", "a", "s", "m", "n"] {
        for op in ["put", "get"] {
            for mode in ["", "_all"] {
                names.extend(types.iter().map(|t| format!("ncmpi_{op}_var{kind}{t}{mode}")));
            }
        }
        for op in ["iput", "iget", "bput"] {
            names.extend(types.iter().map(|t| format!("ncmpi_{op}_var{kind}{t}")));
        }
    }
    for op in ["put", "get"] {
        for mode in ["", "_all"] {
            names.insert(format!("ncmpi_{op}_vard{mode}"));
        }
    }
    names
}

#[test]
fn every_pnetcdf_function_darshan_wraps_is_wrapped_and_is_pnetcdfs() {
    let want = darshans_pnetcdf_list();
    assert_eq!(want.len(), 560);
    let syms =
        |p: &Path| -> BTreeSet<String> { dynamic_symbols(p).into_iter().filter(|s| s.starts_with("ncmpi_")).collect() };
    let ours = syms(&lib());
    assert_eq!(ours, want, "our ncmpi_ exports against Darshan's list");
    let theirs = syms(Path::new("/usr/lib/x86_64-linux-gnu/libpnetcdf.so"));
    let unknown: Vec<_> = ours.difference(&theirs).collect();
    assert!(unknown.is_empty(), "wrapped names libpnetcdf does not define: {unknown:?}");
}

/// The PNETCDF_FILE / PNETCDF_VAR counters of a log that do not depend on
/// timing (common::installed::counters, names relative to `dir`).
fn pnetcdf_counters(log: &Path, dir: &Path) -> common::installed::Counters {
    let mut c = common::installed::counters(log, dir);
    c.retain(|(m, _, _), _| *m == PNETCDF_FILE || *m == PNETCDF_VAR);
    c
}

/// PnetCDF linked statically (libpnetcdf.a, as a static HDF5 is): its
/// calls are inside the executable, out of the preload library's reach.
/// Built with the installed compiler wrapper, which sees the archive and
/// links the runtime statically with --pnetcdf-ld-flags, every counter
/// equals the LD_PRELOAD run's; with the static flags alone the PnetCDF
/// calls are left alone and work (no --wrap, which would leave nothing
/// pulling the real functions out of the archive).
#[test]
fn a_static_libpnetcdf_job_is_recorded_as_the_preloaded_one() {
    use common::installed::{bin, config, linked, stdout};
    let archive = "/usr/lib/x86_64-linux-gnu/libpnetcdf.a";
    let src = root().join("tests/programs/pnetcdf_pattern.c");
    let run = |tag: &str, exe: &Path, preload: bool| -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
        let dir = scratch(&format!("pnetcdf-{tag}"));
        let args = [dir.join("f.nc").display().to_string(), dir.join("sizes.txt").display().to_string()];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let logs = if preload {
            mpirun(OpenMpi, exe, &args, &dir, &[])
        } else {
            let mut cmd = OpenMpi.launcher(&[
                ("DARSHAN_LOGPATH", dir.join("logs").display().to_string()),
                ("DARSHAN_MMAP_LOGPATH", dir.join("mmap").display().to_string()),
            ]);
            let out = linked(cmd.arg(exe).args(&args), &dir);
            assert!(out.status.success(), "{tag}: {}", String::from_utf8_lossy(&out.stderr));
            files(&dir.join("logs"))
        };
        assert_eq!(logs.len(), 1, "{tag}: one log");
        (dir, logs)
    };

    let build = scratch("pnetcdf-static-build");
    let shared = build.join("shared");
    assert!(status(Command::new("mpicc").arg("-o").arg(&shared).arg(&src).arg("-lpnetcdf")).success());
    let wrapped = build.join("wrapped");
    let st = status(Command::new(bin("darshan-mpicc")).arg("-o").arg(&wrapped).arg(&src).arg(archive));
    assert!(st.success(), "darshan-mpicc with libpnetcdf.a");
    let flags = |opt: &str| -> Vec<String> { stdout(&config(&[opt])).split_whitespace().map(String::from).collect() };
    let plain = build.join("plain");
    let st = status(
        Command::new("mpicc")
            .arg("-o")
            .arg(&plain)
            .args(flags("--pre-ld-flags"))
            .arg(&src)
            .arg(archive)
            .args(flags("--post-ld-flags")),
    );
    assert!(st.success(), "mpicc with the static flags");

    let (pdir, plogs) = run("static-preload", &shared, true);
    let want = pnetcdf_counters(&plogs[0], &pdir);
    assert_eq!(want.len(), 3, "the preloaded run's file and two variables: {want:?}");
    let (wdir, wlogs) = run("static-wrapped", &wrapped, false);
    assert_eq!(pnetcdf_counters(&wlogs[0], &wdir), want, "static PnetCDF through darshan-mpicc");
    let (ndir, nlogs) = run("static-plain", &plain, false);
    assert!(pnetcdf_counters(&nlogs[0], &ndir).is_empty(), "PnetCDF left alone without --pnetcdf-ld-flags");
    assert!(reported_sizes(&ndir.join("sizes.txt")).0 > 0, "and working");
    assert!(!common::mpi::read(&nlogs[0]).all(MPIIO, &ndir.join("f.nc")).is_empty(), "MPI-IO beneath recorded");
}

/// Regression: with the PnetCDF modules added, the record memory laid out
/// at start-up (every module's MAX_RECORDS, in list order, out of
/// DARSHAN_MODMEM) was gone by the time a process that started recording
/// in its constructor (DARSHAN_ENABLE_NONMPI) called MPI_Init and added
/// MPI-IO: its MPI-IO records were lost and the module marked partial.
/// DARSHAN_MODMEM is now granted to a module at its first record, as
/// Darshan grants it when a module is first used.
#[test]
fn mpiio_records_were_lost_when_recording_started_before_mpi_init() {
    let dir = scratch("pnetcdf-nonmpi");
    let exe = build(&dir);
    let nc = dir.join("f.nc");
    let sizes = dir.join("sizes.txt");
    let args = [nc.to_str().unwrap(), sizes.to_str().unwrap()];
    let log = the_log(&mpirun(OpenMpi, &exe, &args, &dir, &[("DARSHAN_ENABLE_NONMPI", "1")]));
    assert_eq!(log.file.header.partial_flag, 0, "no module ran out of memory");
    let m = log.one(MPIIO, &nc);
    assert_eq!((m.rank, c(m, darshan_log::counters::mpiio::COLL_OPENS)), (-1, 2 * NP));
    assert_eq!(c(log.one(PNETCDF_FILE, &nc), f::CREATES), NP);
}

/// A file per step with the same variable (varid 0 in each): C Darshan
/// 3.5.0 finds a variable by its varid in a uthash table that keeps every
/// definition, and its 10th definition of varid 0 doubled the table,
/// reversing the chains, so step 9's writes counted for step 0's record.
/// Ours found the last definition (step 9's own). The expected values are
/// C's log of this program at 4 ranks: step 0 has its own and step 9's
/// puts, step 9 none, every other step its own (k + 1 ints per rank).
#[test]
fn the_tenth_file_defining_a_varid_had_its_writes_counted_where_c_darshan_counts_none() {
    let dir = scratch("pnetcdf-files");
    let exe = mpicc_with(OpenMpi, "pnetcdf_files", &dir, &["-lpnetcdf"]);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let log = the_log(&mpirun(OpenMpi, &exe, &[data.to_str().unwrap(), "12", "1"], &dir, &[]));
    let step = |k: i64| {
        let r = log.one(PNETCDF_VAR, &data.join(format!("step{k:03}.nc:v0")));
        (c(r, v::PUT_VARA), c(r, v::BYTES_WRITTEN))
    };
    let bytes = |k: i64| (k + 1) * 4 * NP;
    assert_eq!(step(0), (2 * NP, bytes(0) + bytes(9)), "step 0: its puts and step 9's");
    assert_eq!(step(9), (0, 0), "step 9: none");
    for k in (1..12).filter(|&k| k != 9) {
        assert_eq!(step(k), (NP, bytes(k)), "step {k}");
    }
}
