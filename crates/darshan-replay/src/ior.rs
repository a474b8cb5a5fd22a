//! The groups as IOR and mdtest commands (`--ior`): a shell script, one
//! `ior` run per group and direction, one `mdtest` run per metadata
//! group, with comments that say where each figure came from and what IOR
//! cannot reproduce.
//!
//! IOR's layout (src/ior.c): each of `-np` tasks moves `-s` segments of
//! `-b` bytes in `-t` byte transfers; in a shared file a segment holds one
//! block per task in rank order, with `-F` each task has its own file.
//! IOR insists that block and transfer sizes are multiples of 8 bytes and
//! that a block is a whole number of transfers; with `-z` (random offsets)
//! a block must hold more than one transfer; HDF5 and NCMPI have no `-z`,
//! NCMPI no `-F`.

use std::collections::BTreeMap;
use std::fmt::Write;

use darshan_log::counters::mpiio as mp;
use darshan_log::modules::{H5F, MPIIO, PNETCDF_FILE};
use darshan_log::LogFile;

use crate::fio::{comment, Scale};
use crate::pattern::{self, Group, MetaGroup, Side};

/// The interface a file was used through, for IOR's `-a`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iface {
    pub api: &'static str,
    /// More collective than independent MPI-IO operations on it.
    pub collective: bool,
}

const POSIX_API: Iface = Iface { api: "POSIX", collective: false };

/// Per file name, and per numbered series (`out.#.dat`), the highest
/// interface above POSIX that used it: HDF5, PnetCDF (NCMPI) or MPI-IO.
pub fn interfaces(log: &LogFile) -> Result<BTreeMap<String, Iface>, darshan_log::LogError> {
    let mut ops: BTreeMap<String, (u8, i64, i64)> = BTreeMap::new();
    pattern::each_named(log, &[MPIIO, H5F, PNETCDF_FILE], |m, name, rec| {
        if name.is_empty() {
            return;
        }
        let level = match m {
            H5F => 3,
            PNETCDF_FILE => 2,
            _ => 1,
        };
        let c = |k: usize| rec.counters.get(k).copied().unwrap_or(0).max(0);
        for key in [name.to_string(), pattern::pattern(name)] {
            let e = ops.entry(key).or_default();
            e.0 = e.0.max(level);
            if m == MPIIO {
                e.1 = e.1.saturating_add(c(mp::COLL_READS)).saturating_add(c(mp::COLL_WRITES));
                e.2 = e.2.saturating_add(c(mp::INDEP_READS)).saturating_add(c(mp::INDEP_WRITES));
            }
        }
    })?;
    Ok(ops
        .into_iter()
        .map(|(k, (level, coll, indep))| {
            let api = ["POSIX", "MPIIO", "NCMPI", "HDF5"][level as usize];
            (k, Iface { api, collective: coll > indep })
        })
        .collect())
}

/// One `ior` run: what its options say.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub np: u64,
    pub iface: Iface,
    pub file_per_process: bool,
    pub write: bool,
    pub transfer: u64,
    pub block: u64,
    pub segments: u64,
    pub random: bool,
    /// `-Y` (after every write) or `-e` (at the end of the phase).
    pub fsync_each: bool,
    pub fsync_end: bool,
}

impl Run {
    /// Bytes the run's file holds when it is done (per file with `-F`).
    fn extent(&self) -> u64 {
        let tasks = if self.file_per_process { 1 } else { self.np };
        self.block.saturating_mul(self.segments).saturating_mul(tasks)
    }

    fn options(&self) -> String {
        let mut o = format!("-a {}", self.iface.api);
        for (on, flag) in [
            (self.iface.collective, " -c"),
            (self.file_per_process, " -F"),
            (self.random, " -z"),
            (self.fsync_each, " -Y"),
            (self.fsync_end, " -e"),
        ] {
            if on {
                o.push_str(flag);
            }
        }
        let phase = if self.write { "-w" } else { "-r" };
        format!("{o} {phase} -k -t {} -b {} -s {}", self.transfer, self.block, self.segments)
    }
}

/// The request size IOR uses for a side: the one that moved most of its
/// bytes (IOR measures bandwidth; small requests that carried little, a
/// library's metadata, are left out and said so), a multiple of 8 bytes
/// (IOR's rule).
fn transfer_size(s: &Side, notes: &mut Vec<String>) -> u64 {
    let moved = |x: &&(u64, u32)| x.0 as u128 * x.1 as u128;
    let main = s.sizes.iter().max_by_key(moved).copied();
    let common = main.map(|x| x.0).unwrap_or(s.bytes / s.ops.max(1)).max(1);
    // IOR's sizes are signed 64-bit (IOR_offset_t): a log's request size
    // beyond that (a corrupt one) is held to the largest multiple of 8.
    let t = common.div_ceil(8).saturating_mul(8).clamp(8, i64::MAX as u64 & !7);
    if let Some((_, share)) = main.filter(|_| s.sizes.len() > 1) {
        // Several sizes: they are Darshan's size bins, each standing for
        // its requests by the commonest access size in it (pattern.rs).
        let bin = size_bin(common);
        notes.push(format!(
            "{share} % of the requests were {bin} (IOR's {common} B stands for them) and moved most bytes; \
             IOR has one transfer size"
        ));
    }
    if t != common {
        notes.push(format!("{common} B requests rounded to {t} B (IOR moves multiples of 8 bytes)"));
    }
    t
}

/// The size bin of Darshan's request histograms (SIZE_*_0_100 to
/// SIZE_*_1G_PLUS; a bin ends at its upper bound) that `size` falls in.
fn size_bin(size: u64) -> &'static str {
    const K: u64 = 1024;
    const BINS: [(u64, &str); 9] = [
        (100, "0-100 B"),
        (K, "101 B-1 KiB"),
        (10 * K, "1-10 KiB"),
        (100 * K, "10-100 KiB"),
        (K * K, "100 KiB-1 MiB"),
        (4 * K * K, "1-4 MiB"),
        (10 * K * K, "4-10 MiB"),
        (100 * K * K, "10-100 MiB"),
        (K * K * K, "100 MiB-1 GiB"),
    ];
    BINS.iter().find(|(top, _)| size <= *top).map_or("over 1 GiB", |b| b.1)
}

/// The `ior` run that reproduces one side of a group.
pub fn run_for(g: &Group, s: &Side, write: bool, iface: Iface, scale: &Scale, notes: &mut Vec<String>) -> Run {
    let mut iface = iface;
    let file_per_process = !g.shared;
    if file_per_process && iface.api == "NCMPI" {
        notes.push("PnetCDF files, one per process: IOR's NCMPI has no -F, MPI-IO is used".into());
        iface.api = "MPIIO";
    }
    let np = if g.shared { scale.ranks.unwrap_or(s.jobs) } else { scale.ranks.unwrap_or(g.jobs) }.max(1);
    let t = transfer_size(s, notes);
    let bytes = (s.bytes as f64 * scale.bytes).round().max(1.0);
    // IOR's sizes are signed 64-bit (IOR_offset_t): a block stays a whole
    // number of transfers below that.
    let n = ((bytes / t as f64).round() as u64).clamp(1, i64::MAX as u64 / t);
    // Uniformly random offsets start past the previous request's end
    // half the time (Darshan's sequential share 0.5); in order, 1.
    let mut random = s.sequential < 0.75 && n > 1;
    if random && (iface.api == "HDF5" || iface.api == "NCMPI") {
        notes.push(format!("random offsets: IOR's {} has none; replayed in order", iface.api));
        random = false;
    }
    // Ranks taking turns through a shared file (each request sequential
    // but not adjacent to the rank's last) are IOR's segments.
    let strided = g.shared && !random && s.consecutive < 0.5 && n > 1;
    let (block, segments) = if strided { (t, n) } else { (n.saturating_mul(t), 1) };
    Run {
        np,
        iface,
        file_per_process,
        write,
        transfer: t,
        block,
        segments,
        random,
        fsync_each: write && g.fsync_every == 1,
        fsync_end: write && g.fsync_every > 1,
    }
}

/// A name IOR can make: the group's base name, its numbers as `N`
/// (with `-F`, IOR adds each task's number itself).
fn file_name(i: usize, g: &Group) -> String {
    let base = g.name.rsplit('/').next().unwrap_or("file");
    let clean: String =
        base.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { 'N' }).collect();
    format!("g{i}-{clean}")
}

/// `s` in single quotes for sh.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What the script is made of: the POSIX groups, the same files' MPI-IO
/// groups (the application's own requests, where it used MPI-IO), the
/// metadata groups and each file's interface.
pub struct Parts<'a> {
    pub groups: &'a [Group],
    pub mpiio: &'a [Group],
    pub metas: &'a [MetaGroup],
    pub ifaces: &'a BTreeMap<String, Iface>,
}

pub fn script(parts: &Parts, src: &crate::fio::Source, scale: &Scale) -> String {
    let mut o = String::from("#!/bin/sh\n");
    let _ = writeln!(o, "# darshan-replay --ior of {}", comment(src.log));
    let _ = writeln!(o, "# job {}, {} processes: {}", src.jobid, src.nprocs, comment(src.command));
    for l in [
        "One ior run per group of the job's files and direction (its writes, then its reads): a file",
        "shared by ranks (one task per rank on it), or a file per process (-F). Taken from the POSIX",
        "counters, or for files the job used through MPI-IO from MPIIO's (the application's requests,",
        "not the MPI library's): BYTES_READ/BYTES_WRITTEN (-b x -s), the size buckets with ACCESS1-4",
        "(-t: the size that moved most bytes), POSIX's SEQ_*/CONSEC_* (-z when about half the requests",
        "were sequential, as random offsets give; segments when ranks took turns), FSYNCS/FDSYNCS (-Y,",
        "-e); the interface from the MPIIO, H5F and PNETCDF_FILE records (-a; -c when most MPI-IO",
        "operations were collective). Files without data are mdtest runs (-C create, -T stat, -r remove).",
        "Not reproduced: the time between requests, what the data depended on, the order across files,",
        "the software the job loaded, the MPI library's own files, request sizes other than the one that",
        "moved most bytes.",
    ] {
        let _ = writeln!(o, "# {l}");
    }
    for l in &src.left_out {
        let _ = writeln!(o, "# Not reproduced: {}", comment(l));
    }
    let _ = writeln!(o, "set -e\nMPIRUN=${{MPIRUN:-mpirun}}\nIOR=${{IOR:-ior}}\nMDTEST=${{MDTEST:-mdtest}}");
    let _ = writeln!(o, "DIR=${{DIR:-{}}}\nmkdir -p \"$DIR\"", quoted(&scale.dir));
    let mpiio: BTreeMap<&str, &Group> = parts.mpiio.iter().map(|m| (m.name.as_str(), m)).collect();
    for (i, g) in parts.groups.iter().enumerate() {
        let iface = parts.ifaces.get(&g.name).copied().unwrap_or(POSIX_API);
        match mpiio.get(g.name.as_str()).filter(|_| iface.api != "POSIX") {
            // MPI-IO's requests, in the POSIX group's file: MPI-IO's
            // counters do not say where in the file each rank's were.
            Some(m) => {
                let g = Group { read: m.read.clone(), write: m.write.clone(), ..g.clone() };
                group_runs(&mut o, i + 1, &g, iface, scale);
            }
            None => group_runs(&mut o, i + 1, g, iface, scale),
        }
    }
    for (i, m) in parts.metas.iter().enumerate() {
        mdtest(&mut o, i + 1, m, scale);
    }
    o
}

fn group_runs(o: &mut String, i: usize, g: &Group, iface: Iface, scale: &Scale) {
    let _ = writeln!(o, "\n# {}: {}, {}", comment(&g.name), g.who(), iface.api);
    if !g.shared && g.files_per_job > 1 {
        let _ = writeln!(o, "# IOR has one file per task: each process's {} files are one file here", g.files_per_job);
    }
    if iface.api != "POSIX" {
        let _ = writeln!(o, "# the application's MPI-IO requests (MPI-IO does not count where each rank's were)");
    }
    let file = format!("\"$DIR\"/{}", file_name(i, g));
    let mut written = 0;
    for (s, write) in [(&g.write, true), (&g.read, false)] {
        if s.bytes == 0 {
            continue;
        }
        let mut notes = Vec::new();
        let run = run_for(g, s, write, iface, scale, &mut notes);
        let verb = if write { "writes" } else { "reads" };
        let _ = write!(o, "# {verb} per task: {}", s.moved());
        let _ = match iface.api {
            // MPI-IO does not count sequential requests.
            "POSIX" => writeln!(
                o,
                "; {:.0} % sequential, {:.0} % consecutive after the first",
                s.sequential * 100.0,
                s.consecutive * 100.0
            ),
            _ => writeln!(o),
        };
        for n in &notes {
            let _ = writeln!(o, "# {}", comment(n));
        }
        if !write && written < run.extent() {
            // A file the job read but did not write (enough of): laid out
            // first, with the read's own layout.
            let setup = Run { write: true, random: false, fsync_each: false, fsync_end: false, ..run.clone() };
            let _ = writeln!(o, "# lays the file out first (not part of the job's I/O):");
            let _ = writeln!(o, "$MPIRUN -np {} $IOR {} -o {file}", setup.np, setup.options());
        }
        if write {
            written = run.extent();
        }
        let _ = writeln!(o, "$MPIRUN -np {} $IOR {} -o {file}", run.np, run.options());
    }
}

/// A series of files without data: mdtest's create, stat and remove
/// phases over as many files per task.
fn mdtest(o: &mut String, i: usize, m: &MetaGroup, scale: &Scale) {
    let np = scale.ranks.unwrap_or(m.ranks).max(1);
    let files = scale.ranks.map_or(m.files, |r| m.files.div_ceil(m.ranks.max(1)).saturating_mul(r));
    let per_task = files.div_ceil(np).max(1);
    let _ = writeln!(o, "\n# {}", m.summary());
    if m.opens > 1 || m.stats > 1 || m.unlinks > 1 {
        let _ = writeln!(o, "# mdtest makes, stats and removes each file once");
    }
    let base = format!("$MPIRUN -np {np} $MDTEST -a POSIX -F -u -n {per_task} -d \"$DIR\"/m{i}");
    let mut phases = String::new();
    for (on, flag) in [(m.opens > 0, " -C"), (m.stats > 0, " -T"), (m.unlinks > 0, " -r")] {
        if on {
            phases.push_str(flag);
        }
    }
    if m.opens == 0 {
        let _ = writeln!(o, "# makes the files first (the job found them made):\n{base} -C");
    }
    let _ = writeln!(o, "{base}{phases}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (the mutation harness): a request size of 2^63 - 1 (a
    /// corrupt counter) made the transfer size 2^63, and the number of
    /// transfers was clamped to [1, 0]: a panic, not a script.
    #[test]
    fn a_request_size_beyond_iors_range_does_not_panic() {
        let side = Side { jobs: 1, bytes: u64::MAX, ops: 1, sizes: vec![(i64::MAX as u64, 100)], ..Default::default() };
        let scale = Scale { ranks: None, bytes: 1.0, dir: "/tmp".into() };
        let run = run_for(&Group::default(), &side, true, POSIX_API, &scale, &mut Vec::new());
        assert!(run.transfer <= i64::MAX as u64 && run.transfer.is_multiple_of(8), "transfer {}", run.transfer);
        assert!(run.block.saturating_mul(run.segments) <= i64::MAX as u64, "block {} x {}", run.block, run.segments);
    }

    /// The demo's MPI job (tests/programs/mpi_mix.c: four ranks write 100,
    /// 200, 300 and 400 bytes of var.dat) said "75 % of the requests were
    /// 400 B": 75 % is the share of the 101 B-1 KiB bin, and one request
    /// in four was 400 B.
    #[test]
    fn a_size_bins_share_was_said_as_the_share_of_one_size() {
        let side = Side { jobs: 4, bytes: 250, ops: 1, sizes: vec![(400, 75), (100, 25)], ..Default::default() };
        let mut notes = Vec::new();
        assert_eq!(transfer_size(&side, &mut notes), 400);
        assert_eq!(
            notes,
            ["75 % of the requests were 101 B-1 KiB (IOR's 400 B stands for them) and moved most bytes; \
              IOR has one transfer size"]
        );
        let bins = [0, 100, 101, 1024, 1025, 262_144, 1 << 20, (1 << 20) + 1, 1 << 30, (1 << 30) + 1].map(size_bin);
        let want = ["0-100 B", "0-100 B", "101 B-1 KiB", "101 B-1 KiB", "1-10 KiB", "100 KiB-1 MiB", "100 KiB-1 MiB"];
        assert_eq!(bins[..7], want);
        assert_eq!(bins[7..], ["1-4 MiB", "100 MiB-1 GiB", "over 1 GiB"]);
    }
}
