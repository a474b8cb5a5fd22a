//! darshan-dxt-parser: the job header then every DXT trace segment, in
//! darshan-util 3.5.0's layout.

use std::collections::HashSet;
use std::io::Write;

use darshan_log::job::mount_of;
use darshan_log::modules::*;
use darshan_log::{Extra, Record};

use crate::cfmt::push_fixed;
use crate::notices::{incomplete, unhandled, Tool};
use crate::out::Out;

fn seg_line(b: &mut Vec<u8>, module: &str, rank: i64, op: &str, i: usize, s: &darshan_log::DxtSegment) {
    let _ = write!(b, "{:>8}{:>8}{:>7}{:>9}{:>16}{:>16}", module, rank, op, i, s.offset, s.length);
    let mut t = Vec::new();
    push_fixed(&mut t, s.start_time, 4);
    let _ = write!(b, "{:>12}", String::from_utf8_lossy(&t));
    t.clear();
    push_fixed(&mut t, s.end_time, 4);
    let _ = write!(b, "{:>12}", String::from_utf8_lossy(&t));
    // C (darshan-util at main, for DXT_POSIX v2 / DXT_MPIIO v3): two
    // spaces after the end time, then " %4lu" or " N/A".
    match s.pthread_id {
        Some(tid) => {
            let _ = writeln!(b, "   {:>4}", tid);
        }
        None => b.extend_from_slice(b"   N/A\n"),
    }
}

pub fn run(path: &str, show_incomplete: bool, out: &mut Out) -> i32 {
    let Some(p) = crate::jobhdr::open_for_print(path, true) else { return 255 };
    crate::jobhdr::print_job_header(out.buf(), &p.log, &p.mounts);
    if (0..MAX_MODS).all(|m| !is_dxt(m) || p.log.header.mod_map[m].len == 0) {
        // As darshan-dxt-parser says it (and looks no further).
        out.buf().extend_from_slice(b"\n# no DXT module data available for this Darshan log.\n");
        return 0;
    }
    let view = View { p, show_incomplete };
    let mut rec = Record::default();
    // Every module with data, in id order, as the C tool walks them: DXT
    // modules are printed; LUSTRE is read (and its partial flag checked)
    // for the OST columns; the others are skipped.
    for module in 0..MAX_MODS {
        if let Err(status) = print_module(&view, module, &mut rec, out) {
            return status;
        }
    }
    0
}

/// What every module is printed from.
struct View {
    p: crate::jobhdr::Printable,
    show_incomplete: bool,
}

/// One module's banner and records; Err(exit status) ends the tool.
fn print_module(v: &View, module: usize, rec: &mut Record, out: &mut Out) -> Result<(), i32> {
    let h = &v.p.log.header;
    if h.mod_map[module].len == 0 {
        return Ok(());
    } else if let Some(w) = unhandled(Tool::DxtParser, module) {
        out.flush();
        crate::say!("{w}");
        return Ok(());
    }
    if is_dxt(module) {
        let _ = write!(
            out.buf(),
            "\n# ***************************************************\n# {} module data\n# ***************************************************\n",
            module_name(module)
        );
    } else if module != LUSTRE {
        return Ok(());
    }
    if h.is_partial(module) {
        if !v.show_incomplete {
            out.flush();
            crate::say_raw!("{}", incomplete(Tool::DxtParser, module_name(module), true));
            return Err(255);
        }
        out.str(&incomplete(Tool::DxtParser, module_name(module), false));
    }
    // A record that cannot be read ends the tool with status 255, as
    // C's does (LUSTRE's records too: C reads them for its OST columns).
    let failed = |out: &mut Out, e: &dyn std::fmt::Display| {
        out.flush();
        crate::say!("Error: failed to parse {} module record: {e}", module_name(module));
        Err(255)
    };
    let mut rd = match v.p.log.module_reader(module) {
        Ok(r) => r,
        Err(e) => return failed(out, &e),
    };
    loop {
        match rd.next_into(rec) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => return failed(out, &e),
        }
        if module != LUSTRE {
            print_trace(v, module, rec, out);
        }
    }
}

/// One DXT record: its file, rank, host and counts, then its segments.
fn print_trace(v: &View, module: usize, rec: &Record, out: &mut Out) {
    let Extra::Dxt { hostname, writes, reads, .. } = &rec.extra else { return };
    let label = match module {
        DXT_POSIX => "X_POSIX",
        DXT_MPIIO => "X_MPIIO",
        _ => "X_IO_URING",
    };
    let name = v.p.names.get(rec.id);
    let (mnt, fs): (&[u8], &[u8]) = match name.and_then(|n| mount_of(&v.p.mounts, n)) {
        Some(m) => (&m.path, &m.fs_type),
        None => (b"UNKNOWN", b"UNKNOWN"),
    };
    let host_end = hostname.iter().position(|&c| c == 0).unwrap_or(hostname.len());
    let threads: HashSet<u64> = writes.iter().chain(reads.iter()).filter_map(|s| s.pthread_id).collect();
    let b = out.buf();
    let _ = write!(b, "\n# DXT, file_id: {}, file_name: ", rec.id);
    b.extend_from_slice(name.unwrap_or(b"(null)"));
    let _ = write!(b, "\n# DXT, rank: {}, hostname: ", rec.rank);
    b.extend_from_slice(&hostname[..host_end]);
    let _ = write!(
        b,
        "\n# DXT, number of threads: {}\n# DXT, write_count: {}, read_count: {}\n# DXT, mnt_pt: ",
        threads.len().max(1),
        writes.len(),
        reads.len()
    );
    b.extend_from_slice(mnt);
    b.extend_from_slice(b", fs_type: ");
    b.extend_from_slice(fs);
    b.extend_from_slice(
        b"\n# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)   Pthread-ID\n",
    );
    for (i, s) in writes.iter().enumerate() {
        seg_line(b, label, rec.rank, "write", i, s);
    }
    for (i, s) in reads.iter().enumerate() {
        seg_line(b, label, rec.rank, "read", i, s);
    }
    out.maybe_flush();
}
