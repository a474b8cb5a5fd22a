//! HDF5 linked statically, as h5cc and h5pcc do by default (libhdf5.a
//! named on the link line): its calls are inside the executable, out of
//! any preload library's reach, so only the static library with `--wrap`
//! sees them. Each program is built against the installed tree (`just
//! install` into a scratch prefix) and checked against the LD_PRELOAD run
//! of the same program linked with the shared HDF5:
//!
//! * the static flags alone (`--pre-ld-flags` ... `--post-ld-flags`)
//!   leave HDF5's calls alone and working (they used to fail: H5Fcreate
//!   returned -1), POSIX beneath them recorded;
//! * with `--hdf5-ld-flags` too, or through the compiler wrappers as
//!   h5cc's / h5pcc's linker (HDF5_CLINKER), every H5F and H5D counter is
//!   the LD_PRELOAD run's; serial, and 4 ranks on both MPIs (with the
//!   MPI-IO records; POSIX without the shared MPI library's calls).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::installed::{assert_as_preloaded, bin, config, counters, linked, only_log, stdout, Counters};
use common::mpi::{read, Mpi, NP};
use darshan_log::counters::{h5d as d, h5f as f, posix as px};
use darshan_log::modules::{H5D, H5F, MPIIO, POSIX};

fn flags(opt: &str) -> Vec<String> {
    let o = config(&[opt]);
    assert!(o.status.success(), "darshan-config {opt}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o).split_whitespace().map(String::from).collect()
}

/// How a cell links the program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    /// The shared HDF5 (`-lhdf5`), run with LD_PRELOAD.
    Preload,
    /// h5cc / h5pcc (static libhdf5.a) with `--pre-ld-flags` and
    /// `--post-ld-flags` only.
    StaticFlags,
    /// ... and `--hdf5-ld-flags`.
    StaticHdf5Flags,
    /// h5cc / h5pcc with the compiler wrapper as its compiler and linker.
    Wrapper,
}
use How::*;

/// Debian's HDF5 build for `mpi` (None: serial): its h5cc/h5pcc, its
/// library directory and include flag, and the wrapper and the variable
/// that names the real compiler under it.
struct Flavour {
    h5cc: &'static str,
    dir: &'static str,
    wrapper: &'static str,
    real_var: &'static str,
    real: &'static str,
}

fn flavour(mpi: Option<Mpi>) -> Flavour {
    match mpi {
        None => Flavour { h5cc: "h5cc", dir: "serial", wrapper: "darshan-cc", real_var: "DARSHAN_CC", real: "cc" },
        Some(m) => Flavour {
            h5cc: if m == Mpi::OpenMpi { "h5pcc.openmpi" } else { "h5pcc.mpich" },
            dir: if m == Mpi::OpenMpi { "openmpi" } else { "mpich" },
            wrapper: "darshan-mpicc",
            real_var: "DARSHAN_MPICC",
            real: m.cc(),
        },
    }
}

/// tests/programs/`name`.c built `how` into `dir`.
fn build(name: &str, mpi: Option<Mpi>, how: How, dir: &Path) -> PathBuf {
    let fl = flavour(mpi);
    let exe = dir.join(name);
    let src = common::root().join("tests/programs").join(format!("{name}.c"));
    let lib = format!("/usr/lib/x86_64-linux-gnu/hdf5/{}", fl.dir);
    let mut cmd = match how {
        Preload => {
            let mut c = Command::new(mpi.map_or("cc", |m| m.cc()));
            c.arg(format!("-I/usr/include/hdf5/{}", fl.dir));
            c
        }
        StaticFlags | StaticHdf5Flags => {
            let mut c = Command::new(fl.h5cc);
            c.args(flags("--pre-ld-flags"));
            if how == StaticHdf5Flags {
                c.args(flags("--hdf5-ld-flags"));
            }
            c
        }
        Wrapper => {
            let mut c = Command::new(fl.h5cc);
            let w = bin(fl.wrapper);
            c.env("HDF5_CC", &w).env("HDF5_CLINKER", &w).env(fl.real_var, fl.real);
            c
        }
    };
    // In `dir`: h5cc compiles to <name>.o in its working directory first.
    cmd.current_dir(dir).arg("-O2").arg("-o").arg(&exe).arg(&src);
    match how {
        Preload => _ = cmd.arg("-L").arg(&lib).arg("-lhdf5").arg(format!("-Wl,-rpath,{lib}")),
        StaticFlags | StaticHdf5Flags => _ = cmd.args(flags("--post-ld-flags")),
        Wrapper => {}
    }
    let out = common::output(&mut cmd);
    assert!(out.status.success(), "{how:?}: build: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// Run `exe` (LD_PRELOAD only for the Preload cell) on `dir`'s data
/// directory; the log's comparable counters and the log.
fn run(exe: &Path, mpi: Option<Mpi>, how: How, dir: &Path) -> (Counters, PathBuf) {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let out = match mpi {
        None if how == Preload => common::output(common::instrumented(exe, dir).arg(&data)),
        None => linked(Command::new(exe).arg(&data), dir),
        Some(m) => {
            let mut env = vec![
                ("DARSHAN_LOGPATH", dir.join("logs").display().to_string()),
                ("DARSHAN_MMAP_LOGPATH", dir.join("mmap").display().to_string()),
            ];
            if how == Preload {
                env.push(("LD_PRELOAD", common::lib().display().to_string()));
            }
            common::output(m.launcher(&env).env_remove("LD_PRELOAD").arg(exe).arg(&data))
        }
    };
    assert!(out.status.success(), "{how:?}: {}", String::from_utf8_lossy(&out.stderr));
    let log = only_log(dir);
    (counters(&log, &data), log)
}

fn modules(c: &Counters) -> Vec<usize> {
    let mut m: Vec<usize> = c.keys().map(|k| k.0).collect();
    m.dedup();
    m
}

/// Regression: under the static flags the program's references to
/// H5Fcreate ... became `__wrap_H5Fcreate`, nothing pulled the real
/// function out of libhdf5.a, and every wrapped HDF5 call failed (the
/// program's H5Fcreate returned -1 and it wrote no file). Without the
/// HDF5 options HDF5 is now left alone: the file is written exactly as
/// under LD_PRELOAD (its POSIX record and size), with no HDF5 record.
#[test]
fn a_static_hdf5_programs_calls_keep_working_under_the_static_flags_alone() {
    let mut results = Vec::new();
    let mut sizes = Vec::new();
    for how in [Preload, StaticFlags] {
        let dir = common::scratch(&format!("static-h5-alone-{how:?}"));
        let exe = build("h5_serial", None, how, &dir);
        let (c, _) = run(&exe, None, how, &dir);
        sizes.push(std::fs::metadata(dir.join("data/s.h5")).expect("the program's HDF5 file").len());
        let posix_only: Counters = c.into_iter().filter(|k| k.0 .0 == POSIX).collect();
        results.push((how, posix_only));
    }
    assert_eq!(sizes[0], sizes[1], "the HDF5 file differs from the LD_PRELOAD run's");
    let h5 = results[1].1.get(&(POSIX, "/s.h5".to_string(), 0)).expect("POSIX record of s.h5");
    assert!(h5[px::BYTES_WRITTEN] > 0);
    assert_as_preloaded(&results, |_| false);
}

/// The serial program's every H5F, H5D, POSIX and STDIO counter equals
/// the LD_PRELOAD run's, linked with the HDF5 options and through
/// darshan-cc as h5cc's compiler.
#[test]
fn a_static_serial_hdf5_program_is_counted_as_under_ld_preload() {
    let mut results = Vec::new();
    for how in [Preload, StaticHdf5Flags, Wrapper] {
        let dir = common::scratch(&format!("static-h5-serial-{how:?}"));
        let exe = build("h5_serial", None, how, &dir);
        let (c, log) = run(&exe, None, how, &dir);
        let m = modules(&c);
        assert!(m.contains(&POSIX) && m.contains(&H5F) && m.contains(&H5D), "{how:?}: modules {m:?}");
        let log = read(&log);
        // h5_serial.c's known pattern (as ffi/tests/hdf5.rs checks it).
        let file = log.one(H5F, &dir.join("data/s.h5"));
        assert_eq!((file.counters[f::OPENS], file.counters[f::FLUSHES]), (2, 1), "{how:?}");
        let x = log.one(H5D, &PathBuf::from(format!("{}:/x", dir.join("data/s.h5").display())));
        let k = |i: usize| x.counters[i];
        assert_eq!((k(d::OPENS), k(d::WRITES), k(d::READS)), (2, 3, 3), "{how:?}");
        assert_eq!((k(d::BYTES_WRITTEN), k(d::BYTES_READ)), (768, 712), "{how:?}");
        results.push((how, c));
    }
    assert_as_preloaded(&results, |_| false);
}

/// h5_parallel.c on NP ranks, HDF5 linked statically by h5pcc with the
/// wrapper as its linker: shared H5F and H5D records (rank -1) equal to
/// the LD_PRELOAD run's, and so are the MPI-IO records of HDF5's MPI-IO
/// calls. Static `--wrap` does not see the POSIX calls the shared MPI
/// library makes: of p.h5's POSIX calls only rank 0's own are seen.
fn a_static_parallel_hdf5_job_is_counted_as_under_ld_preload(mpi: Mpi) {
    let mut results = Vec::new();
    for how in [Preload, Wrapper] {
        let dir = common::scratch(&format!("static-h5-parallel-{}-{how:?}", mpi.tag()));
        let exe = build("h5_parallel", Some(mpi), how, &dir);
        let (c, log) = run(&exe, Some(mpi), how, &dir);
        let log = read(&log);
        let data = dir.join("data");
        let file = log.one(H5F, &data.join("p.h5"));
        assert_eq!((file.rank, file.counters[f::OPENS], file.counters[f::USE_MPIIO]), (-1, NP + 1, 1), "{how:?}");
        let set = log.one(H5D, &PathBuf::from(format!("{}:/rows", data.join("p.h5").display())));
        assert_eq!((set.rank, set.counters[d::WRITES], set.counters[d::USE_MPIIO_COLLECTIVE]), (-1, NP, 1), "{how:?}");
        // Each rank's 4 rows of 16 doubles.
        assert_eq!(set.counters[d::BYTES_WRITTEN], NP * 512, "{how:?}");
        results.push((how, c));
    }
    // HDF5's own MPI-IO calls are the static program's too.
    for m in [H5F, H5D, MPIIO] {
        let of =
            |c: &Counters| c.iter().filter(|k| k.0 .0 == m).map(|(k, v)| (k.clone(), v.clone())).collect::<Counters>();
        assert!(!of(&results[1].1).is_empty(), "no module {m} records");
        assert_eq!(of(&results[1].1), of(&results[0].1), "module {m} differs from the LD_PRELOAD run's");
    }
    // Of POSIX, only rank 0's reopen with HDF5's default driver: the
    // MPI-IO driver's opens and writes are the shared MPI library's.
    let p = results[1].1.get(&(POSIX, "/p.h5".to_string(), 0)).expect("rank 0's POSIX record of p.h5");
    assert_eq!((p[px::OPENS], p[px::WRITES]), (1, 0));
    assert!(!results[1].1.contains_key(&(POSIX, "/p.h5".to_string(), -1)));
}

on_both_mpis!(a_static_parallel_hdf5_job_is_counted_as_under_ld_preload);
