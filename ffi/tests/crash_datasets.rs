//! A killed parallel HDF5 and PnetCDF job: its ranks' crash-safe files
//! merged with `darshan-merge --shared-redux`, as a site's epilog merges
//! them. The merge left every rank's H5F, H5D and PnetCDF records apart
//! (it had no combiner for them), where C's darshan-merge combines each
//! file's and dataset's into one. tests/c-darshan/util_programs.sh checks
//! the combined records against C's; here the known pattern of
//! tests/programs/h5_pnc_killed.c checks them.

mod common;

use std::path::{Path, PathBuf};

use darshan_log::counters::{h5d, h5f, pnetcdf_file as pf, pnetcdf_var as pv};
use darshan_log::modules::{H5D, H5F, PNETCDF_FILE, PNETCDF_VAR};
use darshan_log::{LogFile, Record};

use common::mpi::{OpenMpi, NP};

/// h5_pnc_killed on NP Open MPI ranks under the library, killed by
/// mpirun's time limit after its I/O: the ranks' crash-safe files.
fn killed_job(d: &Path) -> Vec<PathBuf> {
    let h5 = "/usr/lib/x86_64-linux-gnu/hdf5/openmpi";
    let flags = ["-I/usr/include/hdf5/openmpi", "-L", h5, "-lhdf5", &format!("-Wl,-rpath,{h5}"), "-lpnetcdf"];
    let exe = common::mpi::mpicc_with(OpenMpi, "h5_pnc_killed", d, &flags);
    let env = [
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ];
    for dir in ["logs", "mmap", "data"] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
    }
    let mut cmd = OpenMpi.launcher(&env);
    let out = darshan_test_support::output(cmd.args(["--timeout", "10"]).arg(&exe).arg(d.join("data")));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ready"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "the job was to be killed");
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), NP as usize, "{mm:?}");
    mm
}

/// Module `m`'s records of `name` in the log at `path`.
fn records_of(path: &Path, m: usize, name: &str) -> Vec<Record> {
    let log = LogFile::open(path).unwrap();
    let names = log.names().unwrap();
    log.records(m).unwrap().into_iter().filter(|r| names.get(r.id) == Some(name.as_bytes())).collect()
}

fn the_shared_one(path: &Path, m: usize, name: &str) -> Record {
    let v = records_of(path, m, name);
    assert_eq!(v.len(), 1, "{name}: one record of module {m}, not {}", v.len());
    assert_eq!(v[0].rank, -1, "{name}");
    v.into_iter().next().unwrap()
}

#[test]
fn a_killed_hdf5_jobs_recovered_log_kept_every_ranks_dataset_records_apart() {
    let d = common::scratch("crash-datasets");
    let mm = killed_job(&d);
    let merged = d.join("logs/merged.darshan");
    let o = darshan_test_support::output(
        std::process::Command::new(common::built("darshan-merge"))
            .args(["--shared-redux", "--output"])
            .arg(&merged)
            .args(&mm),
    );
    assert!(o.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&o.stderr));
    let data = d.join("data");
    let at = |f: &str| data.join(f).display().to_string();
    // Rank r writes row slab r (512 bytes) r+1 times and reads it r times.
    let rows = the_shared_one(&merged, H5D, &format!("{}:/rows", at("shared.h5")));
    let sum = |f: &dyn Fn(i64) -> i64| (0..NP).map(f).sum::<i64>();
    assert_eq!(rows.counters[h5d::BYTES_WRITTEN], sum(&|r| (r + 1) * 512));
    assert_eq!(rows.counters[h5d::BYTES_READ], sum(&|r| r * 512));
    assert_eq!(rows.counters[h5d::READS], sum(&|r| r));
    assert_eq!(rows.counters[h5d::USE_MPIIO_COLLECTIVE], 1);
    // Rank r writes (r+1)*8 ints of "tail" once, reads 8 back.
    let tail = the_shared_one(&merged, H5D, &format!("{}:/tail", at("shared.h5")));
    assert_eq!(tail.counters[h5d::BYTES_WRITTEN], sum(&|r| (r + 1) * 32));
    assert_eq!(tail.counters[h5d::BYTES_READ], 32 * NP);
    let file = the_shared_one(&merged, H5F, &at("shared.h5"));
    assert_eq!((file.counters[h5f::OPENS], file.counters[h5f::USE_MPIIO]), (NP, 1));
    // Only rank 0 had solo.h5's dataset: its own record, rank 0.
    let solo = records_of(&merged, H5D, &format!("{}:/one", at("solo.h5")));
    assert_eq!(solo.iter().map(|r| r.rank).collect::<Vec<_>>(), [0]);
    // PnetCDF: grid row r put r+1 times (40 bytes each), temp r+1 records.
    let grid = the_shared_one(&merged, PNETCDF_VAR, &format!("{}:grid", at("shared.nc")));
    assert_eq!(grid.counters[pv::BYTES_WRITTEN], sum(&|r| (r + 1) * 40));
    assert_eq!(grid.counters[pv::NB_WRITES], -1, "darshan-util has no rule for it");
    let temp = the_shared_one(&merged, PNETCDF_VAR, &format!("{}:temp", at("shared.nc")));
    assert_eq!(temp.counters[pv::INDEP_WRITES], sum(&|r| r + 1));
    let nc = the_shared_one(&merged, PNETCDF_FILE, &at("shared.nc"));
    assert_eq!(nc.counters[pf::CREATES], NP);
}
