//! The groups as a fio job file: one job section per group, its files in
//! the replay's directory, with comments that say where each figure came
//! from and what the benchmark cannot reproduce.

use std::fmt::Write;

use crate::pattern::{Group, MetaGroup, Side};

#[derive(Clone, Debug)]
pub struct Scale {
    /// Jobs per group: the log's, or this many ranks' worth.
    pub ranks: Option<u64>,
    /// Bytes and file sizes times this.
    pub bytes: f64,
    /// Where the files go.
    pub dir: String,
}

/// What the header says of the job the log came from.
pub struct Source<'a> {
    pub log: &'a str,
    pub jobid: i64,
    pub nprocs: i64,
    pub command: &'a str,
    /// Modules the benchmark does not reproduce, with why.
    pub left_out: Vec<String>,
}

/// `s` safe on one comment line: control characters (a newline or a
/// carriage return in a file name) escaped.
pub fn comment(s: &str) -> String {
    darshan_util::visible::visible(s).into_owned()
}

/// `bssplit` terms: `4096/99:1048576/1`.
fn split(sizes: &[(u64, u32)]) -> String {
    sizes.iter().map(|(s, p)| format!("{}/{p}", s.max(&1))).collect::<Vec<_>>().join(":")
}

/// A name fio can make a file of: the group's base name, its `#`s as
/// fio's job number.
fn file_name(i: usize, g: &Group) -> String {
    let base = g.name.rsplit('/').next().unwrap_or("file");
    let clean: String =
        base.chars().map(|c| if c.is_ascii_alphanumeric() || "._-#".contains(c) { c } else { '_' }).collect();
    let numbered = if g.shared {
        clean.replace('#', "0")
    } else if clean.contains('#') {
        clean.replacen('#', "$jobnum", 1).replace('#', "0")
    } else {
        format!("{clean}.$jobnum")
    };
    format!("g{i}-{numbered}")
}

pub fn job_file(groups: &[Group], metas: &[MetaGroup], src: &Source, scale: &Scale) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "; darshan-replay of {}", comment(src.log));
    let _ = writeln!(o, "; job {}, {} processes: {}", src.jobid, src.nprocs, comment(src.command));
    let _ = writeln!(o, "; Each section is one group of the job's files: a file shared by ranks (one fio job per rank");
    let _ = writeln!(o, "; on it), or a file per process (one fio job per file). Taken from the POSIX counters:");
    let _ = writeln!(o, "; BYTES_READ/BYTES_WRITTEN and READS/WRITES (io_size, rwmixread), SIZE_READ_*/SIZE_WRITE_*");
    let _ = writeln!(o, "; with ACCESS1-4 for the sizes in each bucket (bssplit), SEQ_READS/SEQ_WRITES (sequential or");
    let _ = writeln!(o, "; percentage_random), FSYNCS/FDSYNCS (fsync), MAX_BYTE_READ/MAX_BYTE_WRITTEN (size).");
    let _ = writeln!(o, "; Not reproduced: the time between requests (fio issues them back to back), what the");
    let _ = writeln!(o, "; data depended on, the order across files, the software the job loaded and the MPI");
    let _ = writeln!(o, "; library's own files (shared file pointers, lock tests, shared memory).");
    for l in &src.left_out {
        let _ = writeln!(o, "; Not reproduced: {}", comment(l));
    }
    // One process per job, as ranks are: Darshan counts sequential
    // requests per process and file.
    let _ = writeln!(o, "\n[global]\nioengine=psync\ngroup_reporting=1\ndirectory={}", scale.dir);
    for (i, g) in groups.iter().enumerate() {
        section(&mut o, i + 1, g, scale);
    }
    for (i, m) in metas.iter().enumerate() {
        meta_section(&mut o, i + 1, m, scale);
    }
    o
}

/// A series of files the job only made, looked at and removed: fio's
/// filecreate, filestat and filedelete jobs in turn, over the same files.
fn meta_section(o: &mut String, i: usize, m: &MetaGroup, scale: &Scale) {
    let files = scale.ranks.map_or(m.files, |r| m.files.div_ceil(m.ranks.max(1)).saturating_mul(r)).max(1);
    let _ = writeln!(o, "\n; {}", m.summary());
    let steps = [("create", "filecreate", m.opens), ("stat", "filestat", m.stats), ("delete", "filedelete", m.unlinks)];
    let mut first = true;
    for (step, engine, per_file) in steps {
        for round in 0..per_file.min(8) {
            let _ = writeln!(o, "[m{i}-{step}{}]", if round > 0 { format!("-{round}") } else { String::new() });
            if !first {
                let _ = writeln!(o, "stonewall");
            }
            first = false;
            let _ = writeln!(
                o,
                "ioengine={engine}\nfilename_format=m{i}-f.$filenum\nnrfiles={files}\nfilesize=4k\nopenfiles=1"
            );
        }
    }
}

/// A group's sections: its writes, then (after them: `stonewall`) its
/// reads, as programs write what they read back.
fn section(o: &mut String, i: usize, g: &Group, scale: &Scale) {
    let who = g.who();
    let stream = if g.stream { ", STDIO streams replayed as unbuffered requests" } else { "" };
    let _ = writeln!(o, "\n; {}: {who}{stream}", comment(&g.name));
    let name = file_name(i, g);
    let mut first = true;
    for (side, verb) in [(&g.write, "write"), (&g.read, "read")] {
        if side.bytes == 0 {
            continue;
        }
        side_section(o, &format!("g{i}-{verb}"), &name, g, side, verb, scale, !first);
        first = false;
    }
}

#[allow(clippy::too_many_arguments)]
fn side_section(o: &mut String, job: &str, name: &str, g: &Group, s: &Side, verb: &str, scale: &Scale, after: bool) {
    let jobs = scale.ranks.unwrap_or(s.jobs).max(1);
    let f = |b: u64| ((b as f64) * scale.bytes).round().max(1.0) as u64;
    // Uniformly random offsets start past the previous request's end half
    // the time: Darshan calls those sequential.
    let random = ((1.0 - s.sequential) * 200.0).round().clamp(0.0, 100.0) as u32;
    let rw = match (verb, random > 0) {
        ("read", false) => "read",
        ("read", true) => "randread",
        (_, false) => "write",
        (_, true) => "randwrite",
    };
    let _ = writeln!(o, "; {verb}s per job: {}; {:.0} % sequential after the first", s.moved(), s.sequential * 100.0);
    let _ = writeln!(o, "[{job}]");
    if after {
        let _ = writeln!(o, "stonewall");
    }
    let many = !g.shared && g.files_per_job > 1;
    match (g.shared, many) {
        (true, _) => writeln!(o, "filename={name}"),
        // A job's files one after another, as the program went through
        // its series.
        (false, true) => {
            writeln!(o, "filename_format={name}.$filenum\nnrfiles={}\nfile_service_type=sequential", g.files_per_job)
        }
        (false, false) => writeln!(o, "filename_format={name}"),
    }
    .ok();
    let _ = writeln!(o, "numjobs={jobs}\nrw={rw}");
    // fio's size is the job's, over all its files.
    let extent = f(g.extent).saturating_mul(if many { g.files_per_job } else { 1 });
    if g.shared && random == 0 {
        // Each rank its own slice of the shared file, in order.
        let slice = (extent / jobs).max(1);
        let _ = writeln!(o, "size={slice}\noffset_increment={slice}");
    } else {
        let _ = writeln!(o, "size={extent}");
    }
    let _ = writeln!(o, "io_size={}", f(s.bytes));
    if random > 0 && random < 100 {
        let _ = writeln!(o, "percentage_random={random}");
    }
    if !s.sizes.is_empty() {
        let sp = split(&s.sizes);
        let _ = writeln!(o, "bssplit={sp},{sp}");
    }
    if verb == "write" && g.fsync_every > 0 {
        let _ = writeln!(o, "fsync={}", g.fsync_every);
    }
}
