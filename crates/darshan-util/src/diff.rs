//! darshan-diff: two logs compared record by record, as Darshan 3.5.0's
//! darshan-util/darshan-diff.c prints them: the job fields that differ,
//! then, for every record id of the first log (in the order the log
//! first names it), an empty line and each module's records rank by rank,
//! every counter that differs as a `-` line (first log) and a `+` line
//! (second); a record only one log has prints all its counters with its
//! sign; then the second log's records the first does not have (no empty
//! line before them). No judgement, exit status 0.
//!
//! Where C's tool does something no user wants, this one does what C's
//! code says it means to:
//! * HEATMAP records: C calls a diff function HEATMAP does not have and
//!   dies (SIGSEGV) on every log with heat maps (every 3.4+ default log);
//!   they are skipped, as DXT's are ("we won't be diff'ing traces").
//! * DXT records only the second log has: C calls the same missing
//!   function and dies; skipped too.
//! * A record without a name (BG/Q's in some 3.1 logs): C aborts on an
//!   assertion; it is named as darshan-parser names it
//!   (`darshan-bgq-record` for BG/Q, else `(null)`).
//! * Two records of one module with the same id and rank in one log: C
//!   aborts on an assertion; both are compared, in log order.
//!
//! Our own modules with counters (IO_URING, PROCESSES, POSIX_META), which
//! C's tools do not see, are compared after C's, in the same form; a log
//! without them gets C's output. AutoPerf's APMPI records are compared
//! where the tree was installed to read them ([`crate::diff_apmpi`]).

use std::collections::{HashMap, VecDeque};

use darshan_log::apxc::Apxc;
use darshan_log::modules::*;
use darshan_log::source::FileSource;
use darshan_log::{LogFile, NameTable, Record};

use crate::cfmt::{push_f6, push_i64, push_u64};
use crate::diff_apmpi::{self, ApmpiSide};
use crate::installed::reads_autoperf;
use crate::out::Out;

/// C's `darshan_module_names` count: the modules darshan-diff reads.
const C_MODULES: usize = KNOWN_MODULE_COUNT;

/// One log's records: per record id, per module, its records by rank.
struct Side {
    log: LogFile<FileSource>,
    names: NameTable,
    /// Record ids in the order the log first gives them (uthash's order).
    order: Vec<u64>,
    /// Per record id, its records of each module of [`modules_read`] it
    /// has (by position in that list).
    recs: HashMap<u64, Lists>,
    /// APMPI's and APXC's records, which are not [`Record`]s.
    apmpi: ApmpiSide,
    apxc: HashMap<u64, VecDeque<Apxc>>,
}

/// One record id's records: (module slot, its records by rank). Sparse:
/// an id is in one or two modules of twenty, and a list per module for
/// every id took 1.5 KB per 240-byte record (a mutant of 130 copies of a
/// POSIX_META region made darshan-diff take 15 bytes per unpacked byte).
type Lists = Vec<(usize, VecDeque<Record>)>;

/// The records of `slot` in `lists`, taken out (none: empty).
fn take(lists: &mut Lists, slot: usize) -> VecDeque<Record> {
    match lists.iter().position(|l| l.0 == slot) {
        Some(i) => lists.swap_remove(i).1,
        None => VecDeque::new(),
    }
}

/// The modules read, in id order: C's with darshan-util handlers, then
/// ours with counters.
fn modules_read() -> Vec<usize> {
    let ours = EXTENSION_MODULES.iter().map(|e| e.0).filter(|&m| !counter_names(m).0.is_empty());
    (0..C_MODULES).filter(|&m| read_by_c(m) || reads_autoperf(m)).chain(ours).collect()
}

/// Modules with darshan-util handlers in a default C build (NULL, APXC
/// and APMPI have none: their records are read only when install said so).
fn read_by_c(m: usize) -> bool {
    m < C_MODULES && !matches!(m, NULL | APXC | APMPI)
}

/// Modules whose records are compared (see the module comment).
fn compared(m: usize) -> bool {
    !matches!(m, DXT_POSIX | DXT_MPIIO | HEATMAP)
}

/// Modules whose records' contents darshan-diff prints: not those it does
/// not compare, nor LUSTRE's, whose diff only says it has none.
fn contents_printed(m: usize) -> bool {
    compared(m) && m != LUSTRE
}

pub fn run(path1: &str, path2: &str, out: &mut Out) -> i32 {
    let Some(log1) = open(path1) else { return 255 };
    let Some(log2) = open(path2) else { return 255 };
    job_diff(out.buf(), &log1, &log2);
    let mut sides = Vec::with_capacity(2);
    for (log, path) in [(log1, path1), (log2, path2)] {
        let Ok(names) = log.names() else {
            out.flush();
            crate::say!("Error: unable to read record hash for darshan log file {path}.");
            return 255;
        };
        sides.push((log, names, path));
    }
    let mut built = Vec::with_capacity(2);
    for (log, names, path) in sides {
        match Side::build(log, names) {
            Ok(s) => built.push(s),
            Err(module) => {
                out.flush();
                crate::say!("Error: unable to read module {module} data from log file.");
                crate::say!("Error: unable to build record hash for darshan log file {path}.");
                return 255;
            }
        }
    }
    let second = built.pop().expect("two sides");
    let first = built.pop().expect("two sides");
    records_diff(out, first, second);
    0
}

fn open(path: &str) -> Option<LogFile<FileSource>> {
    match LogFile::open(path) {
        Ok(l) => Some(l),
        Err(e) => {
            crate::say!("Error: darshan_log_open failed to open darshan log file {path}: {}.", open_error(&e));
            crate::say!("Error: unable to open darshan log file {path}.");
            None
        }
    }
}

/// What C's darshan_log_open says: strerror for a file that cannot be
/// opened, our reason otherwise.
fn open_error(e: &darshan_log::LogError) -> String {
    match e {
        darshan_log::LogError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            "No such file or directory".to_string()
        }
        darshan_log::LogError::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            "Permission denied".to_string()
        }
        other => other.to_string(),
    }
}

/// The job fields that differ (exe, uid, start and end time, processes,
/// run time as C counts it: end - start + 1).
fn job_diff(b: &mut Vec<u8>, a: &LogFile<FileSource>, z: &LogFile<FileSource>) {
    let (j1, j2) = (&a.job, &z.job);
    let c_str = |s: &[u8]| s.split(|&c| c == 0).next().unwrap_or(&[]).to_vec();
    let (e1, e2) = (c_str(j1.exe()), c_str(j2.exe()));
    if e1 != e2 {
        for (sign, e) in [("-", &e1), ("+", &e2)] {
            b.extend_from_slice(sign.as_bytes());
            b.extend_from_slice(b" # exe:  ");
            b.extend_from_slice(e);
            b.push(b'\n');
        }
    }
    let mut int = |label: &str, x: i64, y: i64| {
        if x != y {
            for (sign, v) in [("-", x), ("+", y)] {
                b.extend_from_slice(format!("{sign} {label} ").as_bytes());
                push_i64(b, v);
                b.push(b'\n');
            }
        }
    };
    int("# uid:", j1.uid, j2.uid);
    int("# start_time:", j1.start_time_sec, j2.start_time_sec);
    int("# end_time:", j1.end_time_sec, j2.end_time_sec);
    int("# nprocs:", j1.nprocs, j2.nprocs);
    let (r1, r2) = (j1.end_time_sec.wrapping_sub(j1.start_time_sec), j2.end_time_sec.wrapping_sub(j2.start_time_sec));
    if r1 != r2 {
        int("# run time:", r1.wrapping_add(1), r2.wrapping_add(1));
    }
}

impl Side {
    /// Every record of every module C reads; Err(module name) if one
    /// cannot be read.
    fn build(log: LogFile<FileSource>, names: NameTable) -> Result<Side, &'static str> {
        let mut side = Side {
            log,
            names,
            order: Vec::new(),
            recs: HashMap::new(),
            apmpi: ApmpiSide::default(),
            apxc: HashMap::new(),
        };
        let modules = modules_read();
        for (slot, &m) in modules.iter().enumerate() {
            if side.log.header.mod_map[m].len == 0 {
                continue;
            }
            if m == APMPI {
                let order = &mut side.order;
                diff_apmpi::read(&side.log, &mut side.apmpi, |id| order.push(id)).map_err(|_| module_name(m))?;
                continue;
            }
            if m == APXC {
                let (order, recs, apmpi) = (&mut side.order, &side.recs, &side.apmpi.recs);
                let new = |id| !recs.contains_key(&id) && !apmpi.contains_key(&id);
                diff_apmpi::read_apxc(&side.log, &mut side.apxc, |id| {
                    if new(id) {
                        order.push(id)
                    }
                })
                .map_err(|_| module_name(m))?;
                continue;
            }
            let mut reader = side.log.module_reader(m).map_err(|_| module_name(m))?;
            // C's reader swaps POSIX < v4's fcounters 10-12 wrongly on a
            // log of the other byte order; so does darshan-parser's.
            reader.set_c_swap_quirk(true);
            loop {
                let mut r = Record::default();
                match reader.next_into(&mut r) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(_) => return Err(module_name(m)),
                }
                if !side.recs.contains_key(&r.id)
                    && !side.apmpi.recs.contains_key(&r.id)
                    && !side.apxc.contains_key(&r.id)
                {
                    side.order.push(r.id);
                }
                if !contents_printed(m) {
                    // Only its id and rank are needed: no copy of what is
                    // never printed (a log repeating a LUSTRE region 198
                    // times took 9.9 bytes per unpacked byte).
                    r = Record { module: r.module, id: r.id, rank: r.rank, ..Default::default() };
                }
                add(&mut side.recs, slot, r);
            }
        }
        side.sort_by_rank();
        Ok(side)
    }

    /// Every list sorted by rank, equal ranks in log order (one stable
    /// sort: inserting each record in rank order was quadratic in one
    /// id's records, 31 s for a log repeating a LUSTRE region 198 times).
    fn sort_by_rank(&mut self) {
        for lists in self.recs.values_mut() {
            for (_, q) in lists.iter_mut() {
                q.make_contiguous().sort_by_key(|r| r.rank);
            }
        }
    }

    /// The record's name, or darshan-parser's for a record without one.
    fn name(&self, r: &Record) -> &[u8] {
        match self.names.get(r.id) {
            Some(n) => n,
            None if r.module == BGQ => b"darshan-bgq-record",
            None => b"(null)",
        }
    }
}

fn records_diff(out: &mut Out, mut a: Side, mut z: Side) {
    let modules = modules_read();
    let compared: Vec<(usize, usize)> = modules.iter().copied().enumerate().filter(|&(_, m)| compared(m)).collect();
    for id in std::mem::take(&mut a.order) {
        out.buf().push(b'\n');
        let mut l1 = a.recs.remove(&id).unwrap_or_default();
        let mut l2 = z.recs.remove(&id).unwrap_or_default();
        for &(slot, m) in &compared {
            if m == APMPI {
                apmpi_pair(out, id, &mut a, &mut z);
                continue;
            }
            if m == APXC {
                apxc_pair(out, id, &mut a, &mut z);
                continue;
            }
            let (mut q1, mut q2) = (take(&mut l1, slot), take(&mut l2, slot));
            if versions_differ(out, m, &a, &z, !q1.is_empty() && !q2.is_empty()) {
                continue;
            }
            pair_by_rank(out, m, &mut q1, &mut q2, &a, &z);
        }
    }
    for id in std::mem::take(&mut z.order) {
        let mut lists = z.recs.remove(&id).unwrap_or_default();
        let mut apmpi = z.apmpi.recs.remove(&id).unwrap_or_default();
        let apxc = z.apxc.remove(&id).unwrap_or_default();
        for &(slot, m) in &compared {
            let mut q = take(&mut lists, slot);
            while let Some(r) = q.pop_front() {
                module_diff(out, m, None, Some((&r, z.name(&r))));
            }
            if m == APXC {
                for r in &apxc {
                    crate::apxc::diff_records(out.buf(), None, Some(r));
                    out.maybe_flush();
                }
            }
            if m != APMPI {
                continue;
            }
            while let Some(r) = apmpi.pop_front() {
                diff_apmpi::only_second(out.buf(), &r, &z.apmpi);
                out.maybe_flush();
            }
        }
    }
}

/// Whether module `m`'s records, which both logs have, are of different
/// versions; C's warning (its words, its missing space) says so.
fn versions_differ(out: &mut Out, m: usize, a: &Side, z: &Side, both: bool) -> bool {
    let (v1, v2) = (a.log.header.mod_ver[m], z.log.header.mod_ver[m]);
    if !both || v1 == v2 {
        return false;
    }
    out.flush();
    crate::say_raw!(
        "Warning: skipping {} module data due to incompatibleversion numbers (file1={v1}, file2={v2}).\n",
        module_name(m)
    );
    true
}

/// The APMPI records of `id` in both logs, rank by rank.
fn apmpi_pair(out: &mut Out, id: u64, a: &mut Side, z: &mut Side) {
    let mut q1 = a.apmpi.recs.remove(&id).unwrap_or_default();
    let mut q2 = z.apmpi.recs.remove(&id).unwrap_or_default();
    if versions_differ(out, APMPI, a, z, !q1.is_empty() && !q2.is_empty()) {
        return;
    }
    while diff_apmpi::next_pair(out.buf(), &mut q1, &mut q2, &a.apmpi, &z.apmpi) {
        out.maybe_flush();
    }
}

/// The APXC records of `id` in both logs, rank by rank.
fn apxc_pair(out: &mut Out, id: u64, a: &mut Side, z: &mut Side) {
    let mut q1 = a.apxc.remove(&id).unwrap_or_default();
    let mut q2 = z.apxc.remove(&id).unwrap_or_default();
    if versions_differ(out, APXC, a, z, !q1.is_empty() && !q2.is_empty()) {
        return;
    }
    while let Some((r1, r2)) = diff_apmpi::next_by_rank(&mut q1, &mut q2, |r| crate::apxc::rank_id(r).0) {
        crate::apxc::diff_records(out.buf(), r1.as_ref(), r2.as_ref());
        out.maybe_flush();
    }
}

/// `r` at the end of its id's list of module slot `slot`.
fn add(recs: &mut HashMap<u64, Lists>, slot: usize, r: Record) {
    let lists = recs.entry(r.id).or_default();
    match lists.iter().position(|l| l.0 == slot) {
        Some(i) => lists[i].1.push_back(r),
        None => lists.push((slot, VecDeque::from([r]))),
    }
}

/// One module's records of one id in both logs, rank by rank: the same
/// rank compared, a rank only one log has printed whole.
fn pair_by_rank(out: &mut Out, m: usize, q1: &mut VecDeque<Record>, q2: &mut VecDeque<Record>, a: &Side, z: &Side) {
    loop {
        let (r1, r2) = match (q1.front(), q2.front()) {
            (None, None) => return,
            (Some(x), Some(y)) if x.rank < y.rank => (q1.pop_front(), None),
            (Some(x), Some(y)) if x.rank > y.rank => (None, q2.pop_front()),
            _ => (q1.pop_front(), q2.pop_front()),
        };
        let one = r1.as_ref().map(|r| (r, a.name(r)));
        let two = r2.as_ref().map(|r| (r, z.name(r)));
        module_diff(out, m, one, two);
        out.maybe_flush();
    }
}

/// One pair (or one lone record) of module `m`; LUSTRE's has no diff in
/// C, which says so on stderr.
fn module_diff(out: &mut Out, m: usize, one: Side1, two: Side1) {
    if m == LUSTRE {
        out.flush();
        crate::say!("{LUSTRE_NO_DIFF}");
        return;
    }
    print_diff(out.buf(), m, one, two);
}

/// What darshan-util's LUSTRE `log_print_diff` prints on stderr instead.
pub const LUSTRE_NO_DIFF: &str = "Warning: Darshan Lustre module does not support printing record diffs.";

/// A record and its name, or nothing (the other log has no such record).
pub type Side1<'a> = Option<(&'a Record, &'a [u8])>;

/// darshan-util's `log_print_diff` of module `m` (LUSTRE's aside):
/// counters, then fcounters, then (MDHIM) the servers' histogram, each
/// printed for a record only one side has, or where the two differ.
pub fn print_diff(b: &mut Vec<u8>, m: usize, one: Side1, two: Side1) {
    let (cnames, fnames) = counter_names(m);
    for (k, cname) in cnames.iter().enumerate() {
        let get = |s: Side1| s.map(|(r, _)| r.counters.get(k).copied().unwrap_or(0));
        let (x, y) = (get(one), get(two));
        if one.is_some() && two.is_some() && x == y {
            continue;
        }
        let unsigned = m == POSIX && k == darshan_log::counters::posix::RENAMED_FROM;
        for (sign, side, v) in [("- ", one, x), ("+ ", two, y)] {
            if let (Some(s), Some(v)) = (side, v) {
                diff_line(b, sign, m, s, cname, &|b| if unsigned { push_u64(b, v as u64) } else { push_i64(b, v) });
            }
        }
    }
    for (k, fname) in fnames.iter().enumerate() {
        let get = |s: Side1| s.map(|(r, _)| r.fcounters.get(k).copied().unwrap_or(0.0));
        let (x, y) = (get(one), get(two));
        // C compares doubles with `!=`: NaN differs from itself.
        #[allow(clippy::float_cmp)]
        if one.is_some() && two.is_some() && x == y {
            continue;
        }
        for (sign, side, v) in [("- ", one, x), ("+ ", two, y)] {
            if let (Some(s), Some(v)) = (side, v) {
                diff_line(b, sign, m, s, fname, &|b| push_f6(b, v));
            }
        }
    }
    if m == MDHIM {
        servers_diff(b, one, two);
    }
}

/// `sign`, then a counter's line as darshan-util's `DARSHAN_*_COUNTER_PRINT`
/// prints it: module, rank, id, counter, value, name, and two empty
/// fields (mount and file system).
fn diff_line(
    b: &mut Vec<u8>,
    sign: &str,
    m: usize,
    (r, name): (&Record, &[u8]),
    cname: &str,
    v: &dyn Fn(&mut Vec<u8>),
) {
    b.extend_from_slice(sign.as_bytes());
    b.extend_from_slice(module_name(m).as_bytes());
    b.push(b'\t');
    push_i64(b, r.rank);
    b.push(b'\t');
    push_u64(b, r.id);
    b.push(b'\t');
    b.extend_from_slice(cname.as_bytes());
    b.push(b'\t');
    v(b);
    b.push(b'\t');
    b.extend_from_slice(name);
    b.extend_from_slice(b"\t\t\n");
}

/// MDHIM's server histogram, darshan-util's way: entry 0 always (even of
/// two records with no servers), then on while either record has servers
/// left; an entry only one record has is printed with its sign. (Where C
/// would read a record that is not there, this prints nothing.)
fn servers_diff(b: &mut Vec<u8>, one: Side1, two: Side1) {
    fn hist<'a>(s: Side1<'a>) -> &'a [i64] {
        match s.map(|(r, _)| &r.extra) {
            Some(darshan_log::Extra::Mdhim { server_histogram }) => server_histogram,
            _ => &[],
        }
    }
    let servers =
        |s: Side1| s.map(|(r, _)| r.counters.get(darshan_log::counters::mdhim::SERVERS).copied().unwrap_or(0));
    let (h1, h2, n1, n2) = (hist(one), hist(two), servers(one), servers(two));
    let past = |n: Option<i64>, i: usize| n.is_none_or(|n| i as i64 >= n);
    for i in 0..h1.len().max(h2.len()) {
        let name = format!("MDHIM_SERVER_{i}");
        let (x, y) = (h1.get(i).copied().unwrap_or(0), h2.get(i).copied().unwrap_or(0));
        let mut put = |sign, side: Side1, v: i64| {
            if let Some(s) = side {
                diff_line(b, sign, MDHIM, s, &name, &|b| push_i64(b, v));
            }
        };
        if past(n2, i) {
            put("- ", one, x);
        } else if past(n1, i) {
            put("+ ", two, y);
        } else if x != y {
            put("- ", one, x);
            put("+ ", two, y);
        }
        if past(n1, i + 1) && past(n2, i + 1) {
            break;
        }
    }
}
