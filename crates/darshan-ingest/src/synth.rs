//! A synthetic facility: many varied Darshan logs written by our own
//! writer, in Darshan's `YYYY/M/D` tree with Darshan's log names, for the
//! tests and the ingest benchmark. Deterministic for a seed.
//!
//! Variety: 24 users, 12 applications, 1 to 16,384 processes, POSIX
//! always; MPI-IO, STDIO, HDF5, PnetCDF, LUSTRE and HEATMAP records in some
//! jobs; unique, shared and partially shared files. Three kinds of job are
//! planted at known positions for the Cray XE6 metrics, with values well
//! past the thresholds, and no other job comes near them.

use std::path::{Path, PathBuf};

use crate::IngestError;

use darshan_log::autoperf;
use darshan_log::counters::{io_uring as u, mpiio as m, posix as p, posix_meta as pm, size_bucket, stdio as s};
use darshan_log::modules;
use darshan_log::writer::Region;
use darshan_log::{Compression, Extra, Job, LogWriter, LustreComponent, NameTable, Record};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planted {
    /// 2 TiB read from a 1 GiB file: > 1 TiB redundant.
    RedundantReads,
    /// 256 processes, 40 s of metadata per process, 90% of I/O time.
    MetadataHeavy,
    /// 1.5 million independent writes of < 100 B to one shared file.
    SmallSharedWrites,
}

#[derive(Debug, Clone)]
pub struct Generated {
    pub path: PathBuf,
    pub jobid: i64,
    pub planted: Option<Planted>,
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

const APPS: [&str; 12] =
    ["vasp", "lammps", "gromacs", "wrf", "e3sm", "nek5000", "qe", "cp2k", "namd", "hacc", "python3", "ior"];
const NPROCS: [i64; 10] = [1, 1, 4, 16, 32, 64, 256, 1024, 4096, 16384];
/// 2026-10-01 00:00:00 UTC.
pub const EPOCH: i64 = 1_790_812_800;

/// A record of `module` with zeroed counters.
pub fn blank(module: usize, name: &str, rank: i64) -> Record {
    Record::zeroed(module, darshan_log::record_id(name.as_bytes()), rank)
}

/// A POSIX record that read and wrote `ops` accesses of `size` bytes
/// between `t0` and `t1` seconds after the job's start.
pub fn posix_io(name: &str, rank: i64, reads: i64, writes: i64, size: i64, t0: f64, t1: f64) -> Record {
    let mut r = blank(modules::POSIX, name, rank);
    let c = &mut r.counters;
    c[p::OPENS] = 1;
    c[p::READS] = reads;
    c[p::WRITES] = writes;
    c[p::BYTES_READ] = reads * size;
    c[p::BYTES_WRITTEN] = writes * size;
    c[p::MAX_BYTE_READ] = if reads > 0 { reads * size - 1 } else { 0 };
    c[p::MAX_BYTE_WRITTEN] = if writes > 0 { writes * size - 1 } else { 0 };
    c[p::SIZE_READ_0_100 + size_bucket(size)] = reads;
    c[p::SIZE_WRITE_0_100 + size_bucket(size)] = writes;
    c[p::SEQ_READS] = reads;
    c[p::SEQ_WRITES] = writes;
    let f = &mut r.fcounters;
    f[p::F_OPEN_START_TIMESTAMP] = t0;
    f[p::F_OPEN_END_TIMESTAMP] = t0 + 0.001;
    if reads > 0 {
        f[p::F_READ_START_TIMESTAMP] = t0;
        f[p::F_READ_END_TIMESTAMP] = t1;
    }
    if writes > 0 {
        f[p::F_WRITE_START_TIMESTAMP] = t0;
        f[p::F_WRITE_END_TIMESTAMP] = t1;
    }
    f[p::F_CLOSE_START_TIMESTAMP] = t1;
    f[p::F_CLOSE_END_TIMESTAMP] = t1 + 0.001;
    let secs = (reads + writes) as f64 * (2e-5 + size as f64 * 5e-10);
    f[p::F_READ_TIME] = secs * reads as f64 / (reads + writes).max(1) as f64;
    f[p::F_WRITE_TIME] = secs - f[p::F_READ_TIME];
    f[p::F_META_TIME] = 0.002;
    r
}

/// Write one log with its records grouped by module (in id order).
pub fn write_log(path: &Path, job: &Job, names: &NameTable, records: Vec<Record>) -> Result<(), IngestError> {
    let w = begin_log(path, job, names, records)?;
    w.finish()?;
    Ok(())
}

/// A log's writer with its job, names and `records` written (module by
/// module), ready for more regions or its end.
fn begin_log(
    path: &Path,
    job: &Job,
    names: &NameTable,
    mut records: Vec<Record>,
) -> Result<LogWriter<std::io::BufWriter<std::fs::File>>, IngestError> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(IngestError::io(d))?;
    }
    records.sort_by_key(|r| r.module);
    let file = std::fs::File::create(path).map_err(IngestError::io(path))?;
    let mut w = LogWriter::new(std::io::BufWriter::new(file), Compression::Zlib)?;
    w.write_job(job)?;
    w.write_names(names)?;
    for group in records.chunk_by(|a, b| a.module == b.module) {
        w.write_module(group[0].module, group.iter())?;
    }
    Ok(w)
}

/// A log of an MPI job with AutoPerf's APMPI records after its `records`:
/// the region's header, then each rank's record, as C's writer lays them.
pub fn write_apmpi_log(
    path: &Path,
    job: &Job,
    records: Vec<Record>,
    header: &autoperf::Header,
    ranks: &[autoperf::Perf],
) -> Result<(), IngestError> {
    let mut w = begin_log(path, job, &NameTable::new(), records)?;
    w.set_module_version(modules::APMPI, darshan_log::counters::apmpi::VERSION);
    w.put(Region::Module(modules::APMPI), &autoperf::header_bytes(header))?;
    for r in ranks {
        w.put(Region::Module(modules::APMPI), &autoperf::perf_bytes(r))?;
    }
    w.finish()?;
    Ok(())
}

/// Generate `n` logs under `dir`. Job `i` is planted when `i % 1000` is
/// 7, 11 or 13.
pub fn generate(dir: &Path, n: usize, seed: u64) -> Result<Vec<Generated>, IngestError> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let planted = match i % 1000 {
            7 => Some(Planted::RedundantReads),
            11 => Some(Planted::MetadataHeavy),
            13 => Some(Planted::SmallSharedWrites),
            _ => None,
        };
        let g = one(dir, i, planted, &mut rng)?;
        out.push(g);
    }
    Ok(out)
}

/// One job being made: what every part of it draws on, its names and
/// records so far. The parts are added in a fixed order (the generator's
/// stream, and so every test's facility, depends on it).
struct Draft {
    user: String,
    app: &'static str,
    nprocs: i64,
    run: i64,
    jobid: i64,
    scratch: &'static str,
    size: i64,
    names: NameTable,
    recs: Vec<Record>,
}

impl Draft {
    /// `s` named in the job's name table.
    fn name(&mut self, s: String) -> String {
        self.names.insert(darshan_log::record_id(s.as_bytes()), s.as_bytes());
        s
    }

    /// A start between 0 and half the run, and the run's end.
    fn span(&self, rng: &mut Rng) -> (f64, f64) {
        (rng.below(self.run as u64 / 2) as f64, self.run as f64)
    }

    fn dir(&self) -> String {
        format!("{}/{}/{}", self.scratch, self.user, self.app)
    }
}

fn one(dir: &Path, i: usize, planted: Option<Planted>, rng: &mut Rng) -> Result<Generated, IngestError> {
    let user = format!("user{:02}", rng.below(24));
    let app = *rng.pick(&APPS);
    let mut nprocs = *rng.pick(&NPROCS);
    if planted == Some(Planted::MetadataHeavy) {
        nprocs = 256;
    }
    let start = EPOCH + rng.below(30 * 86400) as i64;
    let run = 60 + rng.below(7200) as i64;
    let jobid = 100_000 + i as i64;
    let scratch = if rng.below(3) == 0 { "/lustre/scratch" } else { "/gpfs/projects" };
    let size = *rng.pick(&[512i64, 4096, 65536, 1 << 20, 4 << 20, 16 << 20]);
    let mut d = Draft { user, app, nprocs, run, jobid, scratch, size, names: NameTable::new(), recs: Vec::new() };
    per_rank_and_shared(&mut d, rng);
    streams_and_hdf5(&mut d, rng);
    if scratch.starts_with("/lustre") {
        lustre_layouts(&mut d, i);
    }
    // Every fourth job removes the scratch files it made (POSIX_META,
    // ours): from values already drawn, so the generator's stream is
    // unchanged.
    if jobid % 4 == 0 {
        scratch_removal(&mut d);
    }
    if jobid % 7 == 3 {
        let f = d.name(format!("{}/samples.{jobid}", d.dir()));
        d.recs.push(ring_reads(&f, nprocs, run as f64));
    }
    plant(&mut d, planted);
    let secs = start - EPOCH;
    let (mo, day) = (10 + secs / (31 * 86400), 1 + (secs % (31 * 86400)) / 86400);
    let path = dir.join(format!(
        "2026/{mo}/{day}/{}_{app}_id{jobid}-{}_{mo}-{day}-{}-{}_1.darshan",
        d.user,
        1000 + i,
        secs % 86400,
        rng.next_u64()
    ));
    let job = Job {
        uid: 1000 + d.user[4..].parse::<i64>().unwrap_or(0),
        start_time_sec: start,
        start_time_nsec: 0,
        end_time_sec: start + run,
        end_time_nsec: 0,
        nprocs,
        jobid,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
        exe_mnt: format!("/apps/bin/{app} -i input.{jobid}\nlustre /lustre\ngpfs /gpfs\nnfs /home").into_bytes(),
    };
    write_log(&path, &job, &d.names, d.recs)?;
    Ok(Generated { path, jobid, planted })
}

/// Per-rank files (up to 8 ranks get one each), then for MPI jobs a shared
/// checkpoint (half of them written through MPI-IO) and, in a third of
/// the jobs of 4 processes or more, an input two ranks share.
fn per_rank_and_shared(d: &mut Draft, rng: &mut Rng) {
    let (nprocs, jobid, size) = (d.nprocs, d.jobid, d.size);
    for r in 0..nprocs.min(8) {
        let f = d.name(format!("{}/out.{jobid}.{r}", d.dir()));
        let (t0, t1) = d.span(rng);
        let (t0, t1) = (t0, t0 + (t1 - t0) / 2.0);
        d.recs.push(posix_io(&f, r, rng.below(50) as i64, 1 + rng.below(200) as i64, size, t0, t1));
    }
    if nprocs <= 1 {
        return;
    }
    let f = d.name(format!("{}/checkpoint.{jobid}", d.dir()));
    let (t0, t1) = d.span(rng);
    d.recs.push(posix_io(&f, -1, 0, nprocs * (1 + rng.below(8) as i64), size, t0, t1));
    if rng.below(2) == 0 {
        let mut mr = blank(modules::MPIIO, &f, -1);
        mr.counters[m::COLL_OPENS] = nprocs;
        mr.counters[m::COLL_WRITES] = nprocs;
        mr.counters[m::BYTES_WRITTEN] = d.recs.last().map_or(0, |r: &Record| r.counters[p::BYTES_WRITTEN]);
        mr.fcounters[m::F_WRITE_TIME] = 1.0;
        d.recs.push(mr);
    }
    if nprocs >= 4 && rng.below(3) == 0 {
        // Partially shared: two ranks each open the same input.
        let f = d.name(format!("{}/input.dat", d.dir()));
        for r in 0..2 {
            d.recs.push(posix_io(&f, r, 10, 0, 1 << 20, 0.0, 10.0));
        }
    }
}

/// A STDIO log file in half the jobs, an HDF5 file in a fifth.
fn streams_and_hdf5(d: &mut Draft, rng: &mut Rng) {
    if rng.below(2) == 0 {
        let f = d.name(format!("/home/{}/{}.log", d.user, d.app));
        let mut sr = blank(modules::STDIO, &f, 0);
        sr.counters[s::OPENS] = 1;
        sr.counters[s::WRITES] = 100;
        sr.counters[s::BYTES_WRITTEN] = 8000;
        sr.fcounters[s::F_WRITE_START_TIMESTAMP] = 1.0;
        sr.fcounters[s::F_WRITE_END_TIMESTAMP] = d.run as f64 - 1.0;
        sr.fcounters[s::F_WRITE_TIME] = 0.01;
        d.recs.push(sr);
    }
    if rng.below(5) == 0 {
        let f = d.name(format!("{}/fields.h5", d.dir()));
        let mut hf = blank(modules::H5F, &f, -1);
        hf.counters[0] = d.nprocs;
        d.recs.push(hf);
    }
}

/// A LUSTRE record for every POSIX one: 4 OSTs of 96, by job number.
fn lustre_layouts(d: &mut Draft, i: usize) {
    let osts: Vec<i64> = (0..4).map(|k| ((i as i64) * 4 + k) % 96).collect();
    let posix: Vec<(u64, i64)> = d.recs.iter().filter(|r| r.module == modules::POSIX).map(|r| (r.id, r.rank)).collect();
    for (id, rank) in posix {
        // LUSTRE has no fixed counters: the zeroed record is empty.
        let mut lr = Record::zeroed(modules::LUSTRE, id, rank);
        lr.extra = Extra::Lustre {
            components: vec![LustreComponent { counters: [1 << 20, 4, 0, 0, 0, -1, 0], pool_name: [0; 16] }],
            ost_ids: osts.clone(),
        };
        d.recs.push(lr);
    }
}

/// 10 scratch files per process removed from one directory, listed once
/// per process (POSIX_META).
fn scratch_removal(d: &mut Draft) {
    let (nprocs, run) = (d.nprocs, d.run as f64);
    let dir = d.name(format!("{}/tmp.{}", d.dir(), d.jobid));
    let mut r = blank(modules::POSIX_META, &dir, -1);
    r.counters[pm::UNLINKS] = 0;
    r.counters[pm::MKDIRS] = 1;
    r.counters[pm::RMDIRS] = 1;
    r.counters[pm::OPENDIRS] = nprocs;
    r.counters[pm::READDIRS] = nprocs * (nprocs * 10 + 3);
    r.counters[pm::DIR_ENTRIES] = nprocs * (nprocs * 10 + 2);
    r.fcounters[pm::F_START_TIMESTAMP] = 1.0;
    r.fcounters[pm::F_END_TIMESTAMP] = run - 1.0;
    r.fcounters[pm::F_TIME] = 0.001 * nprocs as f64;
    r.fcounters[pm::F_MAX_TIME] = 0.001;
    d.recs.push(r);
    let f = d.name(format!("{dir}/scratch"));
    let mut u = blank(modules::POSIX_META, &f, -1);
    u.counters[pm::UNLINKS] = nprocs * 10;
    u.fcounters[pm::F_START_TIMESTAMP] = 1.0;
    u.fcounters[pm::F_END_TIMESTAMP] = run - 1.0;
    u.fcounters[pm::F_TIME] = 0.01 * nprocs as f64;
    u.fcounters[pm::F_MAX_TIME] = 0.001;
    d.recs.push(u);
}

/// The planted job's records, well past its metric's threshold.
fn plant(d: &mut Draft, planted: Option<Planted>) {
    let run = d.run as f64;
    match planted {
        Some(Planted::RedundantReads) => {
            let f = d.name(format!("{}/mesh.bin", d.dir()));
            let mut r = posix_io(&f, -1, 2 << 10, 0, 1 << 30, 0.0, run);
            r.counters[p::MAX_BYTE_READ] = (1 << 30) - 1;
            d.recs.push(r);
        }
        Some(Planted::MetadataHeavy) => {
            for rank in 0..d.nprocs {
                let f = d.name(format!("{}/tiny.{}.{rank}", d.dir(), d.jobid));
                let mut r = posix_io(&f, rank, 0, 1, 4096, 0.0, 1.0);
                r.fcounters[p::F_META_TIME] = 40.0;
                r.fcounters[p::F_WRITE_TIME] = 4.0;
                d.recs.push(r);
            }
        }
        Some(Planted::SmallSharedWrites) => {
            let f = d.name(format!("{}/particles.log", d.dir()));
            d.recs.push(posix_io(&f, -1, 0, 1_500_000, 64, 0.0, run));
        }
        None => {}
    }
}

/// The per-process logs of a job without MPI, as the runtime writes them
/// (each a one-process log whose metadata says its rank, the job's size
/// and key): `n` tasks of job `jobid`, each reading its own input file and
/// writing `writes` accesses of 4 KiB to its slice of one shared output,
/// task `r` starting `r` ms after the first. Returns their paths.
pub fn process_logs(dir: &Path, jobid: i64, n: usize, writes: i64) -> Result<Vec<PathBuf>, IngestError> {
    let mut out = Vec::with_capacity(n);
    for r in 0..n as i64 {
        let own = format!("/lustre/proj/in/part{r:05}.dat");
        let shared = "/lustre/proj/out/result.dat";
        let mut names = NameTable::new();
        names.insert(darshan_log::record_id(own.as_bytes()), own.as_bytes());
        names.insert(darshan_log::record_id(shared.as_bytes()), shared.as_bytes());
        let recs = vec![posix_io(&own, 0, 4, 0, 1 << 20, 0.01, 0.2), posix_io(shared, 0, 0, writes, 4096, 0.2, 0.5)];
        let start_ns = r * 1_000_000;
        let job = Job {
            uid: 1000,
            start_time_sec: EPOCH + start_ns / 1_000_000_000,
            start_time_nsec: start_ns % 1_000_000_000,
            end_time_sec: EPOCH + 60,
            end_time_nsec: 0,
            nprocs: 1,
            jobid,
            metadata: format!(
                "lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=4\njob_rank={r}\nrank_env=SLURM_PROCID\njob_size={n}\njob_key=slurm-{jobid}.0\nppid={}\n",
                1000 + r
            )
            .into_bytes(),
            exe_mnt: b"/apps/bin/serial_tool -i input\nlustre /lustre".to_vec(),
        };
        let path = dir.join(format!("user1_serial_tool_id{jobid}-{}_10-1-0-{r}_1.darshan", 5000 + r));
        write_log(&path, &job, &names, recs)?;
        out.push(path);
    }
    Ok(out)
}

/// Every seventh job reads its samples through io_uring (IO_URING, ours):
/// 4 KiB requests, 32 in flight, 256 per process. From values already
/// drawn, so the generator's stream is unchanged.
fn ring_reads(file: &str, nprocs: i64, run: f64) -> Record {
    let reads = 256 * nprocs;
    let mut r = blank(modules::IO_URING, file, -1);
    r.counters[u::READS] = reads;
    r.counters[u::BYTES_READ] = reads * 4096;
    r.counters[u::SIZE_READ_1K_10K] = reads;
    r.counters[u::MAX_BYTE_READ] = 256 * 4096 - 1;
    r.counters[u::MAX_INFLIGHT] = 32;
    r.counters[u::COMPLETIONS_SEEN] = reads;
    r.fcounters[u::F_START_TIMESTAMP] = 1.0;
    r.fcounters[u::F_END_TIMESTAMP] = run - 1.0;
    r.fcounters[u::F_READ_TIME] = 0.0001 * reads as f64;
    r.fcounters[u::F_MAX_READ_TIME] = 0.001;
    r
}
