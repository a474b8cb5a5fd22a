//! darshan-convert: re-encode a Darshan log as a 3.41 log (zlib or
//! bzip2), optionally obfuscating names and job identity, or keeping only
//! one record id.
#![forbid(unsafe_code)]

use std::io::BufWriter;
use std::path::Path;

use darshan_log::modules::*;
use darshan_log::safe_fs::Output;
use darshan_log::{Compression, LogFile, LogWriter, NameTable, Record};
use darshan_util::getopt::{getopt_long, Found, LongOpt};

fn usage(exe: &str) -> ! {
    darshan_util::say!("Usage: {exe} [options] <infile> <outfile>");
    darshan_util::say!("       Converts darshan log from infile to outfile.");
    darshan_util::say!("       rewrites the log file into the newest format.");
    darshan_util::say!("       --help prints this help message and exits");
    darshan_util::say!("       --version prints Darshan version number and exits");
    darshan_util::say!("       --bzip2 Use bzip2 compression instead of zlib.");
    darshan_util::say!("       --obfuscate Obfuscate all items in the log.");
    darshan_util::say!("       --obfuscate_jobid Obfuscate job ID in the log.");
    darshan_util::say!("       --obfuscate_uid Obfuscate uid in the log.");
    darshan_util::say!("       --obfuscate_exe Obfuscate executable in the log.");
    darshan_util::say!("       --obfuscate_names Obfuscate name records in the log.");
    darshan_util::say!("       --key <key> Key to use when obfuscating.");
    darshan_util::say!("       --annotate <string> Additional metadata to add.");
    darshan_util::say!("       --file <hash> Limit output to specified (hashed) file only.");
    darshan_util::say!("       --reset-md Reset old metadata during conversion.");
    std::process::exit(1);
}

/// C's obfuscation: lookup3's `hashlittle` with the key as its initial
/// value (`darshan_hashlittle`), printed or stored as an unsigned 32-bit
/// number.
fn obfuscate(v: &[u8], key: u64) -> u64 {
    u64::from(darshan_log::hash::hashlittle(v, key as u32))
}

/// darshan-convert 3.5.0's options (getopt_long, no short options).
const OPTS: &[LongOpt] = &[
    LongOpt { name: "bzip2", takes_value: false },
    LongOpt { name: "annotate", takes_value: true },
    LongOpt { name: "obfuscate", takes_value: false },
    LongOpt { name: "obfuscate_jobid", takes_value: false },
    LongOpt { name: "obfuscate_uid", takes_value: false },
    LongOpt { name: "obfuscate_exe", takes_value: false },
    LongOpt { name: "obfuscate_names", takes_value: false },
    LongOpt { name: "reset-md", takes_value: false },
    LongOpt { name: "key", takes_value: true },
    LongOpt { name: "file", takes_value: true },
    LongOpt { name: "version", takes_value: false },
    LongOpt { name: "help", takes_value: false },
];

/// What to change while converting.
#[derive(Default)]
struct Changes {
    bzip2: bool,
    jobid: bool,
    uid: bool,
    exe: bool,
    names: bool,
    reset_md: bool,
    key: u64,
    annotation: Option<String>,
    only: Option<u64>,
}

/// C's atoi: optional sign and leading digits, 0 when there are none.
fn atoi(s: &str) -> i32 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n: i64 = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |a, d| (a * 10 + i64::from(d - b'0')).min(i64::from(i32::MAX) + 1));
    (if neg { -n } else { n }) as i32
}

fn main() {
    darshan_util::cli::one_line_panics("darshan-convert");
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-convert".into());
    let mut c = Changes::default();
    let parsed = getopt_long(&exe, args.get(1..).unwrap_or_default(), OPTS);
    for f in parsed.found {
        match f {
            Found::Opt("bzip2", _) => c.bzip2 = true,
            Found::Opt("annotate", v) => c.annotation = v,
            Found::Opt("obfuscate", _) => (c.jobid, c.uid, c.exe, c.names) = (true, true, true, true),
            Found::Opt("obfuscate_jobid", _) => c.jobid = true,
            Found::Opt("obfuscate_uid", _) => c.uid = true,
            Found::Opt("obfuscate_exe", _) => c.exe = true,
            Found::Opt("obfuscate_names", _) => c.names = true,
            Found::Opt("reset-md", _) => c.reset_md = true,
            // As C: atoi, taken as the hash's 32-bit initial value.
            Found::Opt("key", Some(v)) => c.key = u64::from(atoi(&v) as u32),
            Found::Opt("file", Some(v)) => match v.trim_start().parse::<u64>() {
                Ok(0) => c.only = None,
                Ok(h) => c.only = Some(h),
                Err(_) => usage(&exe),
            },
            Found::Opt("version", _) => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                std::process::exit(0);
            }
            Found::Bad(msg) => {
                darshan_util::say!("{msg}");
                usage(&exe)
            }
            _ => usage(&exe),
        }
    }
    let files = parsed.operands;
    if files.len() != 2 {
        usage(&exe);
    }
    // A failed conversion leaves the output's name as it was: its new file
    // is removed unpublished. (It used to remove the name itself, whatever
    // the failure: a missing input deleted the file the user named.)
    if let Err(e) = convert(&files[0], &files[1], &c) {
        darshan_util::say!("darshan-convert: {e}");
        std::process::exit(255);
    }
}

/// Names darshan-convert never obfuscates (they say nothing about a user).
const KEEP: [&[u8]; 4] = [b"<STDIN>", b"<STDOUT>", b"<STDERR>", b"heatmap:"];

/// The exe/mount string as C's darshan_log_put_exe and _put_mounts write
/// it: the command line, then the mount table as darshan-util writes it
/// back (darshan_util::merge::mount_table_text: from the last of the
/// sorted table to the first, within DARSHAN_EXE_LEN bytes).
fn c_exe_and_mounts(exe: &[u8], mounts: &[darshan_log::job::Mount]) -> Vec<u8> {
    let mut out = exe.to_vec();
    out.extend(darshan_util::merge::mount_table_text(mounts.iter().map(|m| (&m.fs_type[..], &m.path[..]))));
    out
}

/// C's add_annotation: each tab-separated token on a line of its own,
/// after a newline ending what is there, while it fits in the 1,024-byte
/// metadata field.
fn annotate(meta: &mut Vec<u8>, annotation: &str) {
    const LEN: usize = 1024;
    let end = meta.iter().position(|&b| b == 0).unwrap_or(meta.len());
    meta.truncate(end);
    if !meta.is_empty() && meta.len() < LEN && meta.last() != Some(&b'\n') {
        meta.push(b'\n');
    }
    for token in annotation.split('\t').filter(|t| !t.is_empty()) {
        let remaining = LEN as i64 - meta.len() as i64;
        if (token.len() as i64 + 1) < remaining {
            meta.extend_from_slice(token.as_bytes());
            meta.push(b'\n');
        } else {
            darshan_util::say!(
                "not enough space left in metadata for: current={} token={token} (remain={}:need={})",
                String::from_utf8_lossy(meta),
                remaining - 1,
                token.len() + 1
            );
        }
    }
}

/// Why a conversion failed: the input's or the writer's error, kept.
#[derive(Debug, thiserror::Error)]
enum ConvertError {
    #[error("{path}: {source}")]
    Input { path: String, source: darshan_log::LogError },
    #[error("cannot create {path}: {source}")]
    Create { path: String, source: std::io::Error },
    #[error("{0}")]
    Log(#[from] darshan_log::LogError),
}

fn convert(inp: &str, outp: &str, c: &Changes) -> Result<(), ConvertError> {
    let input = |e| ConvertError::Input { path: inp.into(), source: e };
    let log = LogFile::open(inp).map_err(input)?;
    let mut job = log.job.clone();
    changed_job(&mut job, c);
    // C's darshan-convert reads the mount table sorted (longest path
    // first, a stable sort) and writes it back in the reverse order: mounts
    // of equal length then come out swapped, which every reader of the
    // converted log sees.
    let mounts = job.mounts().map_err(input)?;
    let exe_len = job.exe_mnt.iter().position(|&c| c == b'\n').unwrap_or(job.exe_mnt.len());
    job.exe_mnt = c_exe_and_mounts(&job.exe_mnt[..exe_len], &mounts);
    let mut names = log.names().map_err(input)?;
    if c.names {
        names = hidden_names(&names, &mounts, c.key);
    }
    if let Some(id) = c.only {
        names.retain(|n| n == id);
    }
    // C makes the log with creat(name, 0400); ours is made new and put in
    // the name's place, never written through what another user planted
    // there (darshan_log::safe_fs::Output).
    let create = |e| ConvertError::Create { path: outp.into(), source: e };
    let (out, file) = Output::create(Path::new(outp)).map_err(create)?;
    let comp = if c.bzip2 { Compression::Bzip2 } else { Compression::Zlib };
    let mut w = LogWriter::new(BufWriter::new(file), comp)?;
    w.write_job(&job)?;
    w.write_names(&names)?;
    let mut partial = log.header.partial_flag;
    for m in log.modules_present() {
        if is_autoperf(m) && darshan_util::installed::reads_autoperf(m) {
            copy_autoperf(&log, m, c.only, &mut w)?;
            continue;
        }
        if write_version(m) == 0 {
            darshan_util::say!("Warning: no log utility handlers defined for module {}, SKIPPING.", module_name(m));
            partial &= !(1u64 << m);
            continue;
        }
        copy_module(&log, m, c.only, &mut w)?;
    }
    w.set_partial_flag(partial);
    let file = w.finish()?.into_inner().map_err(|e| create(e.into_error()))?;
    out.publish(file, 0o400).map_err(create)
}

/// The job record's fields the options change (metadata, job id, uid,
/// annotation, command line).
fn changed_job(job: &mut darshan_log::Job, c: &Changes) {
    if c.reset_md {
        job.metadata.clear();
    }
    if c.jobid && job.jobid != 0 {
        job.jobid = obfuscate(&job.jobid.to_le_bytes(), c.key) as i64;
    }
    if c.uid {
        job.uid = obfuscate(&job.uid.to_le_bytes(), c.key) as i64;
    }
    if let Some(a) = &c.annotation {
        annotate(&mut job.metadata, a);
    }
    if c.exe {
        // The command line is hidden; the mount table (which says nothing
        // about the user) is kept.
        let exe_len = job.exe_mnt.iter().position(|&c| c == b'\n').unwrap_or(job.exe_mnt.len());
        let mut e = obfuscate(&job.exe_mnt[..exe_len], c.key).to_string().into_bytes();
        e.extend_from_slice(&job.exe_mnt[exe_len..]);
        job.exe_mnt = e;
    }
}

/// Every name hidden as "<mount point>/<hash>" (or "<hash>" off every
/// mount), but the runtime's own (KEEP).
fn hidden_names(names: &NameTable, mounts: &[darshan_log::Mount], key: u64) -> NameTable {
    let mut t = NameTable::new();
    for (id, n) in names.iter() {
        if KEEP.iter().any(|k| n.starts_with(k)) {
            t.insert(id, n);
            continue;
        }
        let mut s = match darshan_log::job::mount_of(mounts, n) {
            Some(m) => {
                let mut p = m.path.clone();
                p.push(b'/');
                p
            }
            None => Vec::new(),
        };
        s.extend_from_slice(obfuscate(n, key).to_string().as_bytes());
        t.insert(id, &s);
    }
    t
}

/// Module `m`'s records (only record `only`, if given), written as they
/// are read: memory stays one record, whatever the region's size. A
/// record that cannot be read ends the conversion (after the iterator
/// stops).
fn copy_module<W: std::io::Write + std::io::Seek>(
    log: &LogFile<darshan_log::source::FileSource>,
    m: usize,
    only: Option<u64>,
    w: &mut LogWriter<W>,
) -> Result<(), ConvertError> {
    let mut rd = log.module_reader(m)?;
    // Not C's reader quirk on byte-swapped POSIX records older than
    // version 3 (three time counters left unswapped; darshan-parser
    // prints 0 or -0 for them, and C's darshan-convert writes those):
    // the converted log keeps the values the original holds, as
    // PyDarshan reads them.
    let mut failed = None;
    let records = std::iter::from_fn(|| loop {
        let mut r = Record::new(m);
        match rd.next_into(&mut r) {
            Ok(true) if only.is_none_or(|id| r.id == id) => return Some(r),
            Ok(true) => continue,
            Ok(false) => return None,
            Err(e) => {
                failed = Some(e);
                return None;
            }
        }
    });
    w.write_module(m, records)?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// AutoPerf's module `m`'s records (APMPI, APXC: read where install said
/// so, as darshan-util built with its option copies them), the header
/// first, in the C structs' native layout. With `only`, the records of
/// that id, and none when the header is not of it: darshan-util's writer
/// would write the first record kept at the header's size, which no
/// reader can read.
fn copy_autoperf<W: std::io::Write + std::io::Seek>(
    log: &LogFile<darshan_log::source::FileSource>,
    m: usize,
    only: Option<u64>,
    w: &mut LogWriter<W>,
) -> Result<(), ConvertError> {
    let mut rd = darshan_log::autoperf::HeaderFirst::of(log, m)?;
    let mut kept_header = false;
    loop {
        let header = rd.at_header();
        let Some(b) = rd.next_raw()? else { break };
        let bytes = darshan_log::apxc::native_autoperf_record(m, header, b, log.header.swapped);
        let id = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
        if only.is_some_and(|k| k != id) || (!header && !kept_header) {
            continue;
        }
        kept_header |= header;
        w.put(darshan_log::writer::Region::Module(m), &bytes)?;
    }
    if kept_header {
        w.set_module_version(m, darshan_log::autoperf::layout(m).0);
    }
    Ok(())
}
