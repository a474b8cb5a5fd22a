//! The HDF5 modules with the real (Debian, serial) HDF5 library: a C
//! program's files and datasets, counted as darshan-hdf5.c counts them,
//! and programs that must run unharmed under LD_BIND_NOW=1 (the C
//! runtime's undefined H5 symbols kill every one of them).

mod common;

use common::*;
use darshan_log::counters::{h5d as d, h5f as f};
use darshan_log::modules::{H5D, H5F};

const SERIAL: &str = "/usr/lib/x86_64-linux-gnu/hdf5/serial";

fn compile_h5(name: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let rpath = format!("-Wl,-rpath,{SERIAL}");
    compile(name, dir, &["-I/usr/include/hdf5/serial", "-L", SERIAL, "-lhdf5", &rpath])
}

fn records(dir: &std::path::Path, module: usize) -> Vec<(String, darshan_log::Record)> {
    records_of(dir, "", module)
}

/// The records of the one log whose name has `_<exe>_` in it (any log if
/// `exe` is empty): Python starts `uname` on the way, for one.
fn records_of(dir: &std::path::Path, exe: &str, module: usize) -> Vec<(String, darshan_log::Record)> {
    let pat = format!("_{exe}_");
    let logs: Vec<_> = files(&dir.join("logs"))
        .into_iter()
        .filter(|p| exe.is_empty() || p.file_name().unwrap().to_string_lossy().contains(&pat))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert_eq!(log.header.partial_flag, 0);
    let names = log.names().unwrap();
    log.records(module)
        .unwrap()
        .into_iter()
        .map(|r| (String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned(), r))
        .collect()
}

#[test]
fn a_serial_hdf5_programs_files_and_datasets_are_counted_as_darshan_counts_them() {
    let dir = scratch("h5-serial");
    let exe = compile_h5("h5_serial", &dir);
    let out = output(instrumented(&exe, &dir).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = format!("{}/s.h5", dir.display());

    let files = records(&dir, H5F);
    assert_eq!(files.len(), 1);
    let (name, r) = &files[0];
    assert_eq!(*name, file);
    assert_eq!((r.counters[f::OPENS], r.counters[f::FLUSHES], r.counters[f::USE_MPIIO]), (2, 1, 0));
    assert!(r.fcounters[f::F_CLOSE_END_TIMESTAMP] >= r.fcounters[f::F_OPEN_START_TIMESTAMP]);

    let sets = records(&dir, H5D);
    let x = &sets.iter().find(|s| s.0 == format!("{file}:/x")).expect("dataset x").1;
    let c = |i: usize| x.counters[i];
    assert!(
        matches!(x.extra, darshan_log::record::Extra::FileRecId(id) if id == r.id),
        "file_rec_id links to the H5F record"
    );
    // create + H5Oopen; writes: all (640 B), two rows (64 B); reads: 3
    // points (24 B), an irregular hyperslab of 6 (48 B), all (640 B).
    assert_eq!((c(d::OPENS), c(d::WRITES), c(d::READS)), (2, 3, 3));
    assert_eq!((c(d::BYTES_WRITTEN), c(d::BYTES_READ)), (768, 712));
    assert_eq!((c(d::REGULAR_HYPERSLAB_SELECTS), c(d::IRREGULAR_HYPERSLAB_SELECTS), c(d::POINT_SELECTS)), (2, 1, 1));
    assert_eq!(c(d::RW_SWITCHES), 1);
    assert_eq!((c(d::ACCESS1_ACCESS), c(d::ACCESS1_COUNT)), (640, 2));
    // A row of 8 in a 2-D dataset: Darshan puts it in D4/D5.
    assert_eq!(
        (c(d::ACCESS2_ACCESS), c(d::ACCESS2_LENGTH_D4), c(d::ACCESS2_LENGTH_D5), c(d::ACCESS2_COUNT)),
        (64, 8, 1, 2)
    );
    assert_eq!((c(d::ACCESS3_ACCESS), c(d::ACCESS4_ACCESS)), (48, 24));
    assert_eq!((c(d::DATASPACE_NDIMS), c(d::DATASPACE_NPOINTS), c(d::DATATYPE_SIZE)), (2, 80, 8));
    assert_eq!((c(d::CHUNK_SIZE_D1), c(d::CHUNK_SIZE_D2)), (4, 5));
    assert_eq!(c(d::USE_DEPRECATED), 0);
    // H5Dcreate1/H5Dopen1 in group g: Darshan's name has no '/' between
    // the group and the dataset.
    let old = &sets.iter().find(|s| s.0 == format!("{file}:/gold")).expect("dataset g/old").1;
    assert_eq!((old.counters[d::OPENS], old.counters[d::USE_DEPRECATED], old.counters[d::BYTES_READ]), (2, 1, 16));
    assert_eq!(sets.len(), 2);
}

/// The C runtime's undefined H5 symbols make every program fail under
/// eager binding ("undefined symbol: H5Eset_auto2", darshan#989).
#[test]
fn programs_with_and_without_hdf5_run_under_ld_bind_now() {
    let dir = scratch("h5-bind-now");
    let out = output(instrumented(std::path::Path::new("/bin/true"), &dir).env("LD_BIND_NOW", "1"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let exe = compile_h5("h5_serial", &dir);
    let out = output(instrumented(&exe, &dir).env("LD_BIND_NOW", "1").arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
}

/// tests/programs/`name`.c built with `mpi`'s mpicc against Debian's
/// HDF5 built for that MPI, shared (h5pcc would link it statically, out
/// of any preload library's reach).
fn mpicc_parallel_hdf5(mpi: common::mpi::Mpi, name: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let flavour = match mpi {
        common::mpi::OpenMpi => "openmpi",
        common::mpi::Mpich => "mpich",
    };
    let lib = format!("/usr/lib/x86_64-linux-gnu/hdf5/{flavour}");
    let inc = format!("-I/usr/include/hdf5/{flavour}");
    let rpath = format!("-Wl,-rpath,{lib}");
    common::mpi::mpicc_with(mpi, name, dir, &[&inc, "-L", &lib, "-lhdf5", &rpath])
}

on_both_mpis!(a_parallel_hdf5_job_has_reduced_h5f_and_h5d_records_over_mpiio_and_posix);

/// Four ranks on Debian's parallel HDF5, for Open MPI and for MPICH
/// (mpicc ... -lhdf5; h5pcc would link HDF5 statically, out of any preload library's reach): collective
/// row-slab writes, independent reads back, then rank 0 alone reopens the
/// file with the default driver and reads it all (tests/programs/
/// h5_parallel.c). The shared file and dataset become rank -1 records by
/// Darshan's rules, and the MPI-IO and POSIX records beneath stay right.
fn a_parallel_hdf5_job_has_reduced_h5f_and_h5d_records_over_mpiio_and_posix(mpi: common::mpi::Mpi) {
    use common::mpi::{c, mpirun, the_log, NP};

    let dir = scratch(&format!("h5-parallel-{}", mpi.tag()));
    let exe = mpicc_parallel_hdf5(mpi, "h5_parallel", &dir);
    let data = dir.join("data");
    let log = the_log(&mpirun(mpi, &exe, &[data.to_str().unwrap()], &dir, &[]));
    assert_eq!(log.file.header.partial_flag, 0);
    let file = data.join("p.h5");
    let slab = 4 * 16 * 8; // one rank's rows, bytes

    // Every rank opened it with the MPI-IO driver, rank 0 once more
    // without.
    let h5f = log.one(H5F, &file);
    assert_eq!((h5f.rank, c(h5f, f::OPENS), c(h5f, f::FLUSHES), c(h5f, f::USE_MPIIO)), (-1, NP + 1, 0, 1));
    assert!(h5f.fcounters[f::F_META_TIME] > 0.0);

    let set = log.one(H5D, &std::path::PathBuf::from(format!("{}:/rows", file.display())));
    assert!(matches!(set.extra, darshan_log::record::Extra::FileRecId(id) if id == h5f.id));
    check_parallel_rows(set, slab);
    check_beneath_parallel_hdf5(&log, &file, mpi, slab);
}

/// The shared dataset's record: every rank's collective row slab written
/// and read, rank 0's whole read, the selections, the ranks' bytes.
fn check_parallel_rows(set: &darshan_log::Record, slab: i64) {
    use common::mpi::{c, NP};
    let want = [
        (d::OPENS, NP + 1),
        (d::WRITES, NP),
        (d::READS, NP + 1),
        (d::BYTES_WRITTEN, NP * slab),
        (d::BYTES_READ, NP * slab + NP * slab),
        (d::RW_SWITCHES, NP),
        (d::REGULAR_HYPERSLAB_SELECTS, 2 * NP),
        (d::IRREGULAR_HYPERSLAB_SELECTS, 0),
        (d::POINT_SELECTS, 0),
        (d::SIZE_WRITE_AGG_100_1K, NP),
        (d::SIZE_READ_AGG_100_1K, NP),
        (d::SIZE_READ_AGG_1K_10K, 1),
        (d::MAX_WRITE_TIME_SIZE, slab),
        // Each rank's slab: 4 rows of 16 (Darshan's D4/D5 for 2-D),
        // written and read; the whole dataset once.
        (d::ACCESS1_ACCESS, slab),
        (d::ACCESS1_LENGTH_D4, 16),
        (d::ACCESS1_LENGTH_D5, 4),
        (d::ACCESS1_STRIDE_D4, 1),
        (d::ACCESS1_STRIDE_D5, 1),
        (d::ACCESS1_COUNT, 2 * NP),
        (d::ACCESS2_ACCESS, NP * slab),
        (d::ACCESS2_COUNT, 1),
        (d::DATASPACE_NDIMS, 2),
        (d::DATASPACE_NPOINTS, NP * 4 * 16),
        (d::DATATYPE_SIZE, 8),
        (d::USE_MPIIO_COLLECTIVE, 1),
        (d::USE_DEPRECATED, 0),
    ];
    for (k, v) in want {
        assert_eq!(c(set, k), v, "{}", darshan_log::modules::counter_names(H5D).0[k]);
    }
    assert_eq!(set.rank, -1);
    // Rank 0 moved 3 slabs' worth, the others 2 each.
    let bytes_of = |rank: i64| if rank == 0 { (NP + 2) * slab } else { 2 * slab };
    assert_eq!(c(set, d::FASTEST_RANK_BYTES), bytes_of(c(set, d::FASTEST_RANK)));
    assert_eq!(c(set, d::SLOWEST_RANK_BYTES), bytes_of(c(set, d::SLOWEST_RANK)));
    assert!(set.fcounters[d::F_SLOWEST_RANK_TIME] >= set.fcounters[d::F_FASTEST_RANK_TIME]);
}

/// Beneath: HDF5's collective open and writes and independent reads
/// through MPI-IO; rank 0's reopen straight to POSIX.
fn check_beneath_parallel_hdf5(log: &common::mpi::Log, file: &std::path::Path, mpi: common::mpi::Mpi, slab: i64) {
    use common::mpi::{c, NP};
    use darshan_log::counters::{mpiio as mx, posix as px};
    use darshan_log::modules::{MPIIO, POSIX};
    let m = log.one(MPIIO, file);
    assert_eq!((m.rank, c(m, mx::COLL_OPENS), c(m, mx::INDEP_OPENS)), (-1, NP, 0));
    assert!(c(m, mx::COLL_WRITES) >= NP && c(m, mx::INDEP_READS) >= NP, "{:?}", &m.counters[..12]);
    assert!(c(m, mx::BYTES_WRITTEN) >= NP * slab && c(m, mx::BYTES_READ) >= NP * slab);
    let p = log.one(POSIX, file);
    // Every rank's open and rank 0's reopen; MPICH's ROMIO also has its
    // first aggregator create the file alone before the collective open.
    let romio_create = if mpi == common::mpi::Mpich { 1 } else { 0 };
    assert_eq!((p.rank, c(p, px::OPENS)), (-1, NP + 1 + romio_create));
    assert_eq!(c(p, px::BYTES_WRITTEN), c(m, mx::BYTES_WRITTEN), "every byte MPI-IO wrote reached POSIX once");
    assert!(c(p, px::BYTES_READ) >= c(m, mx::BYTES_READ) + NP * slab);
    let size = std::fs::metadata(file).unwrap().len() as i64;
    assert_eq!(c(p, px::MAX_BYTE_WRITTEN) + 1, size);
}

/// h5py from PyPI: its wheel's own HDF5 2.0 is loaded RTLD_LOCAL, out of
/// `dlsym(RTLD_NEXT)`'s sight (the C runtime's preload library kills
/// it with "undefined symbol: H5get_libversion"). Every dataset access is
/// counted with exact bytes, and h5py's closes (H5Idec_ref, never
/// H5Dclose) are seen: 5000 reopens of one dataset, more than the open
/// dataset table holds, leave the log complete.
#[test]
fn h5py_from_pypi_is_counted_and_its_closes_free_the_dataset_table() {
    const N: i64 = 5000;
    let dir = scratch("h5py");
    let python = root().join(".venv/bin/python");
    assert!(python.exists(), "the venv (scripts/setup.sh)");
    let script = root().join("tests/programs/h5py_rw.py");
    let out = output(instrumented(&python, &dir).arg(&script).arg(dir.join("data")).arg(N.to_string()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let file = format!("{}/data/py.h5", dir.display());

    let files = records_of(&dir, "python", H5F);
    assert_eq!(files.len(), 1);
    let (name, fr) = &files[0];
    assert_eq!(*name, file);
    assert_eq!((fr.counters[f::OPENS], fr.counters[f::USE_MPIIO]), (2, 0));
    assert!(fr.fcounters[f::F_CLOSE_END_TIMESTAMP] > fr.fcounters[f::F_OPEN_END_TIMESTAMP], "h5py's close seen");

    let sets = records_of(&dir, "python", H5D);
    let get = |n: &str| &sets.iter().find(|s| s.0 == format!("{file}:{n}")).unwrap_or_else(|| panic!("{n}")).1;
    let a = get("/a");
    let c = |k: usize| a.counters[k];
    // Written whole (8000 B) then rows 10..20 (800 B); read whole, row 5,
    // then N rows of 80 B, each through a fresh H5Oopen.
    assert_eq!((c(d::OPENS), c(d::WRITES), c(d::READS)), (3 + N, 2, 2 + N));
    assert_eq!((c(d::BYTES_WRITTEN), c(d::BYTES_READ)), (8800, 8000 + 80 + 80 * N));
    assert_eq!((c(d::REGULAR_HYPERSLAB_SELECTS), c(d::RW_SWITCHES)), (2 + N, 1));
    assert_eq!(
        (c(d::ACCESS1_ACCESS), c(d::ACCESS1_LENGTH_D4), c(d::ACCESS1_LENGTH_D5), c(d::ACCESS1_COUNT)),
        (80, 10, 1, 1 + N)
    );
    assert_eq!((c(d::ACCESS2_ACCESS), c(d::ACCESS2_COUNT)), (8000, 2));
    assert_eq!((c(d::DATASPACE_NDIMS), c(d::DATASPACE_NPOINTS), c(d::DATATYPE_SIZE)), (2, 1000, 8));
    assert!(a.fcounters[d::F_CLOSE_END_TIMESTAMP] > 0.0);
    // "g/b": created in group g (Darshan's name joins them without '/'),
    // read by its path.
    let made = get("/gb");
    assert_eq!((made.counters[d::OPENS], made.counters[d::WRITES], made.counters[d::BYTES_WRITTEN]), (1, 1, 28));
    let read = get("/g/b");
    assert_eq!((read.counters[d::OPENS], read.counters[d::READS], read.counters[d::BYTES_READ]), (1, 1, 28));
    assert_eq!(sets.len(), 3);
}

/// What Darshan's H5Oopen_by_idx/_by_addr record (the name HDF5 gives the
/// object, after the location's: `<file>://c`), and what it does not see
/// at all, counted here: direct chunk I/O (stored bytes, no selection),
/// an anonymous dataset, H5Freopen, and H5Idec_ref dropping the last
/// reference as a close (tests/programs/h5_more.c).
#[test]
fn direct_chunk_io_anonymous_datasets_reopens_and_opens_by_index_or_address_are_counted() {
    let dir = scratch("h5-more");
    let exe = compile_h5("h5_more", &dir);
    let out = output(instrumented(&exe, &dir).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let file = format!("{}/m.h5", dir.display());

    let files = records(&dir, H5F);
    assert_eq!((files.len(), files[0].1.counters[f::OPENS]), (1, 2), "H5Fcreate + H5Freopen");
    let file_id = files[0].1.id;

    let sets = records(&dir, H5D);
    let get = |n: &str| {
        &sets
            .iter()
            .find(|s| s.0 == format!("{file}:{n}"))
            .unwrap_or_else(|| panic!("{n}: {:?}", sets.iter().map(|s| &s.0).collect::<Vec<_>>()))
            .1
    };
    let chunked = get("/c");
    let c = |k: usize| chunked.counters[k];
    assert_eq!((c(d::OPENS), c(d::WRITES), c(d::READS)), (1, 2, 1));
    assert_eq!((c(d::BYTES_WRITTEN), c(d::BYTES_READ), c(d::RW_SWITCHES)), (64, 32, 1));
    assert_eq!((c(d::REGULAR_HYPERSLAB_SELECTS), c(d::IRREGULAR_HYPERSLAB_SELECTS), c(d::POINT_SELECTS)), (0, 0, 0));
    assert_eq!((c(d::ACCESS1_ACCESS), c(d::ACCESS1_COUNT), c(d::CHUNK_SIZE_D1)), (32, 3, 8));

    let anon = get("/(anonymous)");
    assert_eq!((anon.counters[d::OPENS], anon.counters[d::WRITES], anon.counters[d::BYTES_WRITTEN]), (1, 1, 16));
    let by_idx = get("//c");
    assert_eq!((by_idx.counters[d::OPENS], by_idx.counters[d::READS], by_idx.counters[d::BYTES_READ]), (1, 1, 64));
    assert!(by_idx.fcounters[d::F_CLOSE_END_TIMESTAMP] > 0.0, "H5Idec_ref closed it");
    let by_addr = get("//linked");
    assert_eq!((by_addr.counters[d::OPENS], by_addr.counters[d::READS], by_addr.counters[d::BYTES_READ]), (1, 1, 16));
    assert_eq!(sets.len(), 4, "the group opened by index is not a dataset");
    for (name, r) in &sets {
        assert!(matches!(r.extra, darshan_log::record::Extra::FileRecId(id) if id == file_id), "{name}");
    }
}

/// A C program on HDF5 2.0 (h5py's bundled library, the only 2.0 here):
/// the calls Darshan does not wrap are counted: H5Dwrite_multi and
/// H5Dread_multi as one access per dataset with its own selection (the
/// call's time shared out in order), H5Dread_chunk2 as the chunk's
/// stored bytes, H5Oopen_by_token as an open named like Darshan's
/// H5Oopen_by_addr (tests/programs/h5_v2.c).
#[test]
fn hdf5_2_multi_dataset_io_direct_chunk_reads_and_opens_by_token_are_counted() {
    let dir = scratch("h5-v2");
    let wheel = h5py_libhdf5().expect("h5py's bundled libhdf5 in .venv (scripts/setup.sh)");
    let libdir = wheel.parent().unwrap().to_str().unwrap().to_string();
    let link = format!("-l:{}", wheel.file_name().unwrap().to_str().unwrap());
    let exe = compile("h5_v2", &dir, &["-L", &libdir, &link, &format!("-Wl,-rpath,{libdir}")]);
    let out = output(instrumented(&exe, &dir).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let file = format!("{}/v2.h5", dir.display());
    assert_eq!(records(&dir, H5F).len(), 1);

    let sets = records(&dir, H5D);
    let get = |n: &str| &sets.iter().find(|s| s.0 == format!("{file}:{n}")).unwrap_or_else(|| panic!("{n}")).1;
    let p = get("/p");
    assert_eq!((p.counters[d::WRITES], p.counters[d::READS]), (1, 1));
    assert_eq!((p.counters[d::BYTES_WRITTEN], p.counters[d::BYTES_READ]), (64, 64));
    let q = get("/q");
    let c = |k: usize| q.counters[k];
    assert_eq!((c(d::WRITES), c(d::READS), c(d::BYTES_WRITTEN), c(d::BYTES_READ)), (2, 2, 32, 32 + 16));
    assert_eq!((c(d::REGULAR_HYPERSLAB_SELECTS), c(d::CHUNK_SIZE_D1)), (2, 4));
    // In one H5Dread_multi, p's share of the time comes before q's.
    assert!(p.fcounters[d::F_READ_END_TIMESTAMP] <= q.fcounters[d::F_READ_START_TIMESTAMP]);
    let by_token = get("//p");
    assert_eq!(
        (by_token.counters[d::OPENS], by_token.counters[d::READS], by_token.counters[d::BYTES_READ]),
        (1, 1, 64)
    );
    assert_eq!(sets.len(), 3);
}

fn one_log(dir: &std::path::Path) -> darshan_log::LogFile {
    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    darshan_log::LogFile::open(&logs[0]).unwrap()
}

/// More datasets than the module's record limit (1024): the rest go
/// uncounted, H5D is marked partial, and the program runs on unharmed.
#[test]
fn more_datasets_than_max_records_mark_h5d_partial_and_the_program_runs_on() {
    let dir = scratch("h5-many");
    let exe = compile_h5("h5_many", &dir);
    let out = output(instrumented(&exe, &dir).arg(&dir).arg("1100"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let log = one_log(&dir);
    assert_ne!(log.header.partial_flag & (1 << H5D), 0, "H5D marked partial");
    assert_eq!(log.header.partial_flag & (1 << H5F), 0, "H5F complete");
    assert_eq!(log.records(H5D).unwrap().len(), 1024);
    let files = log.records(H5F).unwrap();
    assert_eq!((files.len(), files[0].counters[f::OPENS]), (1, 1));
}

/// The H5D module found its records by a table of 4,096 open dataset
/// handles: with 5,000 datasets open at once (room for 6,000 records) the
/// last 904 went unrecorded and H5D was marked incomplete, where C 3.5.0
/// records all 5,000 (its log of this program: every H5D and H5F counter
/// that is not a time the same as ours now).
#[test]
fn datasets_open_past_the_4096th_handle_went_unrecorded() {
    let dir = scratch("h5-open-many");
    let exe = compile_h5("h5_many", &dir);
    let conf = dir.join("darshan.conf");
    std::fs::write(&conf, "MAX_RECORDS 6000 H5D\n").unwrap();
    let mut cmd = instrumented(&exe, &dir);
    cmd.arg(&dir).arg("5000").env("DARSHAN_CONFIG_PATH", &conf).env("DARSHAN_MODMEM", "64");
    let out = output(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = one_log(&dir);
    assert_eq!(log.header.partial_flag, 0, "no module incomplete");
    let sets = log.records(H5D).unwrap();
    assert_eq!(sets.len(), 5000);
    let counted = |k: usize| sets.iter().filter(|r| r.counters[k] == 1).count();
    assert_eq!((counted(d::OPENS), counted(d::WRITES)), (5000, 5000), "each dataset opened and written once");
}

/// `DARSHAN_MOD_DISABLE=HDF5` (or Darshan's own names, H5F,H5D): no
/// H5F/H5D records, the POSIX record of the same file still there.
#[test]
fn mod_disable_hdf5_leaves_the_posix_record_of_the_file() {
    let dir = scratch("h5-disabled");
    let exe = compile_h5("h5_serial", &dir);
    let out = output(instrumented(&exe, &dir).env("DARSHAN_MOD_DISABLE", "HDF5").arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = one_log(&dir);
    let present = log.modules_present();
    assert!(!present.contains(&H5F) && !present.contains(&H5D), "{present:?}");
    let names = log.names().unwrap();
    let file = format!("{}/s.h5", dir.display());
    let posix = log.records(darshan_log::modules::POSIX).unwrap();
    assert!(posix.iter().any(|r| names.get(r.id) == Some(file.as_bytes())), "POSIX record of {file}");
}

/// A NAME_EXCLUDE rule for H5D left a dataset's record in the log (only
/// H5F asked whether a name was excluded). Darshan's register_record asks
/// for every module whose names are paths, so the datasets of a file under
/// an excluded directory (/dev/shm/x.h5:/d) had records C does not make.
/// The rule for H5D alone: no H5D record, the file's H5F record kept.
#[test]
fn a_dataset_name_exclude_rule_left_h5d_records_in_the_log() {
    let dir = scratch("h5-name-exclude");
    let exe = compile_h5("h5_serial", &dir);
    let cfg = dir.join("darshan.conf");
    std::fs::write(&cfg, format!("NAME_EXCLUDE ^{}/s\\.h5: H5D\n", dir.display())).unwrap();
    let out = output(instrumented(&exe, &dir).env("DARSHAN_CONFIG_PATH", &cfg).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = format!("{}/s.h5", dir.display());
    let files = records(&dir, H5F);
    assert_eq!(files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), [file.as_str()]);
    assert_eq!(files[0].1.counters[f::OPENS], 2);
    assert!(!one_log(&dir).modules_present().contains(&H5D), "H5D records in the log");
}

/// A file made again with a 2-D dataset where a 3-D one of the same name
/// was: our record's CHUNK_SIZE_D3 went to 0, where C Darshan 3.5.0 writes
/// only the chunk sizes the dataset has and keeps the earlier D3 (its log
/// of this program: 100, 25, 10, 0, 0). Found by scripts/differential.
#[test]
fn a_dataset_made_again_with_fewer_chunk_dimensions_zeroed_the_chunk_sizes_c_keeps() {
    let dir = scratch("h5-chunk-again");
    let exe = compile_h5("h5_chunk_again", &dir);
    let file = dir.join("again.h5");
    let out = output(instrumented(&exe, &dir).arg(&file));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dsets = records(&dir, H5D);
    assert_eq!(dsets.len(), 1, "one record for both datasets: {:?}", dsets.iter().map(|r| &r.0).collect::<Vec<_>>());
    let r = &dsets[0].1;
    let chunk = [d::CHUNK_SIZE_D1, d::CHUNK_SIZE_D2, d::CHUNK_SIZE_D3, d::CHUNK_SIZE_D4, d::CHUNK_SIZE_D5];
    assert_eq!(chunk.map(|k| r.counters[k]), [100, 25, 10, 0, 0]);
    assert_eq!((r.counters[d::OPENS], r.counters[d::DATASPACE_NDIMS]), (2, 2));
}

/// Killed with datasets open: the crash-safe file holds the H5F and H5D
/// records (file_rec_id included), and darshan-merge makes a log of it.
#[test]
fn a_killed_hdf5_program_leaves_h5_records_that_darshan_merge_recovers() {
    let dir = scratch("h5-crash");
    let exe = compile_h5("h5_many", &dir);
    let (mut child, _lines) = start_ready(instrumented(&exe, &dir).arg(&dir).arg("3").arg("hold"));
    child.kill().unwrap();
    child.wait().unwrap();
    let mm = files(&dir.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    let merged = dir.join("logs/merged.darshan");
    let m = output(std::process::Command::new(built("darshan-merge")).arg("--output").arg(&merged).args(&mm));
    assert!(m.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&m.stderr));
    let log = darshan_log::LogFile::open(&merged).unwrap();
    let names = log.names().unwrap();
    let files = log.records(H5F).unwrap();
    assert_eq!((files.len(), files[0].counters[f::OPENS]), (1, 1));
    let file = format!("{}/many.h5", dir.display());
    assert_eq!(names.get(files[0].id), Some(file.as_bytes()));
    let sets = log.records(H5D).unwrap();
    assert_eq!(sets.len(), 3);
    for r in &sets {
        let name = String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned();
        assert!(name.starts_with(&format!("{file}:/d")), "{name}");
        assert_eq!((r.counters[d::OPENS], r.counters[d::WRITES], r.counters[d::BYTES_WRITTEN]), (1, 1, 4), "{name}");
        assert!(matches!(r.extra, darshan_log::record::Extra::FileRecId(id) if id == files[0].id), "{name}");
    }
}

/// Two HDF5 libraries in one process (h5py's and netCDF4's wheels each
/// bring one, loaded RTLD_LOCAL): every call went to the first library
/// found, so the second plug-in's calls reached a library that did not
/// know its ids ("H5Dclose(): not a dataset ID", its data not written).
/// Each call goes to its caller's library now, and the two libraries'
/// equal id numbers, open at once, stay apart in the records.
#[test]
fn two_hdf5_libraries_in_one_process_each_get_their_own_calls() {
    let dir = scratch("h5-two-libs");
    let wheel = h5py_libhdf5().expect("h5py's bundled libhdf5 in .venv (scripts/setup.sh)");
    let wheel_dir = wheel.parent().unwrap().to_str().unwrap().to_string();
    let a =
        compile_plugin("h5_other_lib", "libh5a.so", &dir, &["-L", SERIAL, "-lhdf5", &format!("-Wl,-rpath,{SERIAL}")]);
    let wheel_lib = format!("-l:{}", wheel.file_name().unwrap().to_str().unwrap());
    let b = compile_plugin(
        "h5_other_lib",
        "libh5b.so",
        &dir,
        &["-L", &wheel_dir, &wheel_lib, &format!("-Wl,-rpath,{wheel_dir}")],
    );
    let exe = compile("h5_two_libs", &dir, &["-ldl"]);
    let out = output(instrumented(&exe, &dir).arg(&dir).arg(&a).arg(&b));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");

    let files = records(&dir, H5F);
    assert_eq!(files.len(), 3);
    for (name, r) in &files {
        assert_eq!(r.counters[f::OPENS], 1, "{name}");
        assert!(r.fcounters[f::F_CLOSE_END_TIMESTAMP] > 0.0, "{name}");
    }
    let sets = records(&dir, H5D);
    assert_eq!(sets.len(), 3);
    for (name, r) in &sets {
        let c = |k: usize| r.counters[k];
        assert_eq!(
            (c(d::OPENS), c(d::WRITES), c(d::READS), c(d::BYTES_WRITTEN), c(d::BYTES_READ)),
            (1, 1, 1, 32, 32),
            "{name}"
        );
        assert!(r.fcounters[d::F_CLOSE_END_TIMESTAMP] > 0.0, "{name}");
    }
}

/// tests/programs/<src>.c as shared object `out` in `dir`.
fn compile_plugin(src: &str, out: &str, dir: &std::path::Path, flags: &[&str]) -> std::path::PathBuf {
    let so = dir.join(out);
    let c = root().join("tests/programs").join(format!("{src}.c"));
    let st =
        status(std::process::Command::new("cc").args(["-O2", "-shared", "-fPIC", "-o"]).arg(&so).arg(&c).args(flags));
    assert!(st.success(), "compiling {src} as {out}");
    so
}

/// HDF5 called from code in no loaded object (a JIT's, as Julia's ccall
/// makes): the caller's library is the global one, and every call is
/// counted (tests/programs/h5_jit.c).
#[cfg(target_arch = "x86_64")]
#[test]
fn hdf5_calls_from_jit_code_outside_any_object_are_counted() {
    const N: i64 = 500;
    let dir = scratch("h5-jit");
    let exe = compile_h5("h5_jit", &dir);
    let out = output(instrumented(&exe, &dir).arg(&dir).arg(N.to_string()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let sets = records(&dir, H5D);
    assert_eq!(sets.len(), 1);
    let r = &sets[0].1;
    assert_eq!((r.counters[d::WRITES], r.counters[d::BYTES_WRITTEN], r.counters[d::READS]), (N, 4 * N, 1));
    assert_eq!(r.counters[d::REGULAR_HYPERSLAB_SELECTS], N);
}

on_both_mpis!(ior_hdf5_counters_equal_the_c_runtimes_log_of_ior);

/// The C runtime's log of `ior -a HDF5` (4 ranks, IOR's defaults; in the
/// corpus) against ours of a program making IOR's HDF5 calls in IOR's
/// order (tests/programs/h5_ior.c): every H5F and H5D counter of the
/// shared records is the C runtime's, but the fastest and slowest ranks'
/// numbers, which follow the clock (their bytes are compared). On both
/// MPIs: the HDF5 counters do not depend on the MPI beneath.
fn ior_hdf5_counters_equal_the_c_runtimes_log_of_ior(mpi: common::mpi::Mpi) {
    use common::mpi::{mpirun, the_log};
    let dir = scratch(&format!("h5-ior-{}", mpi.tag()));
    let exe = mpicc_parallel_hdf5(mpi, "h5_ior", &dir);
    let file = dir.join("data/testFile");
    let log = the_log(&mpirun(mpi, &exe, &[file.to_str().unwrap()], &dir, &[]));

    // The C log, as darshan-parser printed it: "<module> <rank> <id>
    // <counter> <value> <file> ..." lines.
    let expected = root()
        .join("../shared/corpus/expected")
        .join("ior_pnetcdf_hdf5__shane_ior-HDF5_id438090-438090_11-9-41522-17417065676046418211_1.all.txt.gz");
    let text = output(std::process::Command::new("gzip").arg("-dc").arg(&expected));
    assert!(text.status.success(), "reading {}", expected.display());
    let mut c_values = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&text.stdout).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        // (H5D_FILE_REC_ID, the hash of the C run's path, is no counter.)
        if f.len() > 4 && (f[0] == "H5F" || f[0] == "H5D") && !f[3].contains("_F_") && f[3] != "H5D_FILE_REC_ID" {
            assert_eq!(f[1], "-1", "the C log's H5 records are shared ones");
            c_values.insert(f[3].to_string(), f[4].parse::<i64>().unwrap());
        }
    }
    assert_eq!(c_values.len(), f::NUM_INDICES + d::NUM_INDICES, "every H5F and H5D counter of the C log");

    let mut compared = 0;
    for (module, name) in [(H5F, file.display().to_string()), (H5D, format!("{}:/Dataset-0000.0000", file.display()))] {
        let r = log.one(module, std::path::Path::new(&name));
        assert_eq!(r.rank, -1);
        for (k, counter) in darshan_log::modules::counter_names(module).0.iter().enumerate() {
            if counter.ends_with("FASTEST_RANK") || counter.ends_with("SLOWEST_RANK") {
                continue;
            }
            assert_eq!(Some(&r.counters[k]), c_values.get(*counter), "{counter}");
            compared += 1;
        }
    }
    assert_eq!(compared, f::NUM_INDICES + d::NUM_INDICES - 2);
}

/// A NetCDF-4 program (libnetcdf brings HDF5 in: the program links no
/// HDF5 itself, as climate codes do not; tests/programs/netcdf4_pattern.c):
/// its file is an H5F record and its variable an H5D one, every put and
/// get one dataset write or read of the bytes the pattern moves; the
/// dimension's own dataset moves nothing. The two reads, made after the
/// file was opened again, were lost, as C Darshan 3.5.0 loses them (its
/// log of this program: 10 writes, 0 reads): libnetcdf keeps each dataset
/// of a file it opens by a second reference (H5Iinc_ref) and H5Oclose's
/// the first, where the id was forgotten.
#[test]
fn a_netcdf4_files_reads_after_nc_open_were_lost_at_h5oclose() {
    let dir = scratch("netcdf4");
    let exe = compile("netcdf4_pattern", &dir, &["-lnetcdf"]);
    let out = output(instrumented(&exe, &dir).arg(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = format!("{}/t.nc", dir.display());
    let files = records(&dir, H5F);
    assert_eq!(files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), [file.as_str()]);
    assert_eq!(files[0].1.counters[f::OPENS], 2, "created, then opened read-only");
    let sets = records(&dir, H5D);
    let temp = &sets.iter().find(|s| s.0 == format!("{file}:/temp")).expect("the variable's dataset").1;
    let c = |i: usize| temp.counters[i];
    assert_eq!((c(d::OPENS), c(d::WRITES), c(d::BYTES_WRITTEN)), (2, 10, 8000));
    assert_eq!((c(d::READS), c(d::BYTES_READ)), (2, 2408));
    assert_eq!((c(d::DATASPACE_NDIMS), c(d::DATATYPE_SIZE)), (2, 8));
    // Darshan's D1 is the fastest dimension (C's log: 100, 1).
    assert_eq!((c(d::CHUNK_SIZE_D1), c(d::CHUNK_SIZE_D2)), (100, 1));
    for (name, r) in sets.iter().filter(|s| s.0 != format!("{file}:/temp")) {
        assert_eq!([d::WRITES, d::READS].map(|k| r.counters[k]), [0, 0], "{name}");
    }
}
