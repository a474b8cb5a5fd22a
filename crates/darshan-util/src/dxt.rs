//! darshan-dxt-parser: the job header then every DXT trace segment, in
//! the layout of the darshan-util that printed the corpus's outputs
//! (darshan main's: a thread count and a Pthread-ID column, which 3.5.0's
//! lacks; dxt_print.rs prints both), a Lustre file's OSTs included.

use std::collections::HashMap;
use std::io::Write;

use darshan_log::job::mount_of;
use darshan_log::modules::*;
use darshan_log::Record;

use crate::dxt_print::{print_trace as print_trace_as, Layout, Trace};
use crate::notices::{incomplete, unhandled, Tool};
use crate::out::Out;

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
    // LUSTRE records by file: C's table of them, which a POSIX trace looks
    // its file up in. Of two records of one file (two ranks' records, not
    // reduced) the later read is kept: uthash finds that one while its
    // table has not grown since (growing reverses a bucket's order), and
    // both hold the file's one layout.
    let mut lustre = HashMap::new();
    // Every module with data, in id order, as the C tool walks them: DXT
    // modules are printed; LUSTRE (which comes first) is read, its partial
    // flag checked, for the OST columns; the others are skipped.
    for module in 0..MAX_MODS {
        if let Err(status) = print_module(&view, module, (&mut rec, &mut lustre), out) {
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

/// The record read into, and the LUSTRE records read so far.
type Recs<'a> = (&'a mut Record, &'a mut HashMap<u64, Record>);

/// One module's banner and records; Err(exit status) ends the tool.
fn print_module(v: &View, module: usize, recs: Recs, out: &mut Out) -> Result<(), i32> {
    let (rec, lustre) = recs;
    let h = &v.p.log.header;
    if h.mod_map[module].len == 0 {
        return Ok(());
    } else if let Some(w) = unhandled(Tool::DxtParser, module).filter(|_| !crate::installed::reads_autoperf(module)) {
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
        if module == LUSTRE {
            lustre.insert(rec.id, rec.clone());
        } else {
            print_trace(v, rec, lustre, out);
        }
    }
}

/// One DXT record, in darshan main's layout, with its file's LUSTRE
/// record when the log has one.
fn print_trace(v: &View, rec: &Record, lustre: &HashMap<u64, Record>, out: &mut Out) {
    let name = v.p.names.get(rec.id);
    let (mnt, fs): (&[u8], &[u8]) = match name.and_then(|n| mount_of(&v.p.mounts, n)) {
        Some(m) => (&m.path, &m.fs_type),
        None => (b"UNKNOWN", b"UNKNOWN"),
    };
    let t = Trace { rec, name: name.unwrap_or(b"(null)"), mnt, fs, lustre: lustre.get(&rec.id) };
    print_trace_as(out.buf(), &t, Layout::Main);
    out.maybe_flush();
}
