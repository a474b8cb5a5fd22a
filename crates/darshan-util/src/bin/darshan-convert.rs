//! darshan-convert: re-encode a Darshan log as a 3.41 log (zlib or
//! bzip2), optionally obfuscating names and job identity, or keeping only
//! one record id.
#![forbid(unsafe_code)]

use std::fs::File;
use std::io::BufWriter;

use darshan_log::hash::hash_with_level;
use darshan_log::modules::*;
use darshan_log::{Compression, LogFile, LogWriter, NameTable, Record};

fn usage() -> ! {
    darshan_util::say!("Usage: darshan-convert [options] <infile> <outfile>");
    darshan_util::say!("       Converts darshan log from infile to outfile.");
    darshan_util::say!("       rewrites the log file into the newest format.");
    darshan_util::say!("       --bzip2 Use bzip2 compression instead of zlib.");
    darshan_util::say!("       --obfuscate Obfuscate items in the log.");
    darshan_util::say!("       --key <key> Key to use when obfuscating.");
    darshan_util::say!("       --file <hash> Limit output to specified (hashed) file only.");
    std::process::exit(1);
}

fn obfuscate(v: &[u8], key: u64) -> u64 {
    hash_with_level(v, key) & 0xffff_ffff
}

fn main() {
    darshan_util::cli::one_line_panics("darshan-convert");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut bzip2 = false;
    let mut obf = false;
    let mut key = 0u64;
    let mut only: Option<u64> = None;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--bzip2" => bzip2 = true,
            "--obfuscate" => obf = true,
            "--key" | "--file" => {
                let v = args.get(i + 1).unwrap_or_else(|| usage());
                let n: u64 = v.parse().unwrap_or_else(|_| {
                    darshan_util::say!("darshan-convert: {} expects an unsigned integer, got {v:?}", args[i]);
                    std::process::exit(1)
                });
                if args[i] == "--key" {
                    key = n
                } else {
                    only = Some(n)
                }
                i += 1;
            }
            a if a.starts_with("--") => usage(),
            a => files.push(a.to_string()),
        }
        i += 1;
    }
    if files.len() != 2 {
        usage();
    }
    if let Err(e) = convert(&files[0], &files[1], bzip2, obf, key, only) {
        darshan_util::say!("darshan-convert: {e}");
        let _ = std::fs::remove_file(&files[1]);
        std::process::exit(255);
    }
}

fn convert(inp: &str, outp: &str, bzip2: bool, obf: bool, key: u64, only: Option<u64>) -> Result<(), String> {
    let log = LogFile::open(inp).map_err(|e| format!("{inp}: {e}"))?;
    let mut job = log.job.clone();
    let mut names = log.names().map_err(|e| format!("{inp}: {e}"))?;
    if let Some(id) = only {
        names.retain(|n| n == id);
    }
    if obf {
        job.uid = obfuscate(&job.uid.to_le_bytes(), key) as i64;
        job.jobid = obfuscate(&job.jobid.to_le_bytes(), key) as i64;
        // Keep the mount table (it says nothing about the user) but hide
        // the command line.
        let exe_len = job.exe_mnt.iter().position(|&c| c == b'\n').unwrap_or(job.exe_mnt.len());
        let mut e = obfuscate(&job.exe_mnt[..exe_len], key).to_string().into_bytes();
        e.extend_from_slice(&job.exe_mnt[exe_len..]);
        job.exe_mnt = e;
        let mounts = job.mounts().unwrap_or_default();
        let mut t = NameTable::new();
        for (id, n) in names.iter() {
            let prefix = darshan_log::job::mount_of(&mounts, n).map(|m| m.path.clone()).unwrap_or_default();
            let mut s = prefix;
            s.push(b'/');
            s.extend_from_slice(obfuscate(n, key).to_string().as_bytes());
            t.insert(id, &s);
        }
        names = t;
    }
    let file = File::create(outp).map_err(|e| format!("cannot create {outp}: {e}"))?;
    let comp = if bzip2 { Compression::Bzip2 } else { Compression::Zlib };
    let mut w = LogWriter::new(BufWriter::new(file), comp).map_err(|e| e.to_string())?;
    w.write_job(&job).map_err(|e| e.to_string())?;
    w.write_names(&names).map_err(|e| e.to_string())?;
    let mut partial = log.header.partial_flag;
    for m in log.modules_present() {
        if m >= KNOWN_MODULE_COUNT || WRITE_VERSIONS[m] == 0 {
            darshan_util::say!("Warning: no log utility handlers defined for module {}, SKIPPING.", module_name(m));
            partial &= !(1u64 << m);
            continue;
        }
        // Records are written as they are read: memory stays one record,
        // whatever the region's size. A record that cannot be read ends
        // the conversion (after the iterator stops).
        let mut rd = log.module_reader(m).map_err(|e| e.to_string())?;
        let mut failed = None;
        let records = std::iter::from_fn(|| loop {
            let mut r = Record::new(m);
            match rd.next_into(&mut r) {
                Ok(true) if only.is_none_or(|id| r.id == id) => return Some(r),
                Ok(true) => continue,
                Ok(false) => return None,
                Err(e) => {
                    failed = Some(e.to_string());
                    return None;
                }
            }
        });
        w.write_module(m, records).map_err(|e| e.to_string())?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    w.set_partial_flag(partial);
    w.finish().map_err(|e| e.to_string())?;
    Ok(())
}
