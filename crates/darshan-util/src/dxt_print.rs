//! One DXT record printed as darshan-util prints it, in one of two
//! layouts: darshan-util 3.5.0's (`dxt_log_print_posix_file` and
//! `dxt_log_print_mpiio_file`, which libdarshan-util exports to programs
//! built on its 3.5.0 headers) or darshan main's (our darshan-dxt-parser:
//! a thread count and a Pthread-ID column). Both print, for a POSIX trace
//! of a file with a LUSTRE record, the file's stripe components and, after
//! each segment, the OSTs its bytes lie on, by darshan-util's own walk of
//! the components (kept as it is, odd turns included: see `ost_walk`).

use std::io::Write;

use darshan_log::counters::lustre_comp as lc;
use darshan_log::modules::{DXT_MPIIO, DXT_POSIX};
use darshan_log::{DxtSegment, Extra, LustreComponent, Record};

use crate::cfmt::push_fixed;

/// Which darshan-util's lines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout {
    /// darshan-util 3.5.0, the release whose headers we install.
    Release,
    /// darshan main (DXT_POSIX 2 / DXT_MPIIO 3): what darshan-dxt-parser
    /// prints.
    Main,
}

/// A DXT record and what it is printed with.
pub struct Trace<'a> {
    pub rec: &'a Record,
    /// The record's file name (C prints "(null)" for a name it lacks).
    pub name: &'a [u8],
    pub mnt: &'a [u8],
    pub fs: &'a [u8],
    /// The file's LUSTRE record, for a DXT_POSIX record that has one.
    pub lustre: Option<&'a Record>,
}

/// A LUSTRE record's layout, as the OST columns read it.
struct Striping<'a> {
    components: &'a [LustreComponent],
    ost_ids: &'a [i64],
}

fn striping(lustre: Option<&Record>) -> Option<Striping<'_>> {
    match &lustre?.extra {
        Extra::Lustre { components, ost_ids } => Some(Striping { components, ost_ids }),
        _ => None,
    }
}

/// `t`'s block: its file, rank, host and counts, then one line per
/// segment, writes first.
pub fn print_trace(b: &mut Vec<u8>, t: &Trace, layout: Layout) {
    let Extra::Dxt { hostname, writes, reads, .. } = &t.rec.extra else { return };
    let label = match t.rec.module {
        DXT_POSIX => "X_POSIX",
        DXT_MPIIO => "X_MPIIO",
        _ => "X_IO_URING",
    };
    // Only POSIX traces are matched with a LUSTRE record, as C does.
    let lustre = if t.rec.module == DXT_POSIX { striping(t.lustre) } else { None };
    let host_end = hostname.iter().position(|&c| c == 0).unwrap_or(hostname.len());
    let _ = write!(b, "\n# DXT, file_id: {}, file_name: ", t.rec.id);
    b.extend_from_slice(t.name);
    let _ = write!(b, "\n# DXT, rank: {}, hostname: ", t.rec.rank);
    b.extend_from_slice(&hostname[..host_end]);
    if layout == Layout::Main {
        let _ = write!(b, "\n# DXT, number of threads: {}", thread_count(writes, reads));
    }
    let _ = write!(b, "\n# DXT, write_count: {}, read_count: {}\n# DXT, mnt_pt: ", writes.len(), reads.len());
    b.extend_from_slice(t.mnt);
    b.extend_from_slice(b", fs_type: ");
    b.extend_from_slice(t.fs);
    b.push(b'\n');
    if let Some(s) = &lustre {
        print_components(b, s);
    }
    print_columns(b, layout, lustre.is_some());
    for (op, segs) in [("write", writes), ("read", reads)] {
        for (i, s) in segs.iter().enumerate() {
            seg_line(b, (layout, t.rec.module), (label, t.rec.rank, op, i), s, lustre.as_ref());
        }
    }
}

/// The threads a trace's segments name (1 where they name none).
fn thread_count(writes: &[DxtSegment], reads: &[DxtSegment]) -> usize {
    let mut ids: Vec<u64> = writes.iter().chain(reads).filter_map(|s| s.pthread_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len().max(1)
}

/// `# DXT, Lustre stripe components:` and a line per component, its
/// OSTs taken in turn from the record's list.
fn print_components(b: &mut Vec<u8>, s: &Striping) {
    b.extend_from_slice(b"# DXT, Lustre stripe components:\n");
    let mut osts = s.ost_ids.iter();
    for (i, c) in s.components.iter().enumerate() {
        let v = |k: usize| c.counters[k];
        let _ = write!(b, "#\t[Component {}] stripe_ext: {} - ", i + 1, v(lc::EXT_START));
        match v(lc::EXT_END) {
            -1 => b.extend_from_slice(b"EOF, "),
            end => {
                let _ = write!(b, "{end}, ");
            }
        }
        let count = v(lc::STRIPE_COUNT);
        let _ = write!(b, "stripe_size: {}, stripe_count: {count}, OSTs:", v(lc::STRIPE_SIZE));
        // The reader checked that the components' counts fit the list.
        for id in osts.by_ref().take(usize::try_from(count).unwrap_or(0)) {
            let _ = write!(b, " {id}");
        }
        b.push(b'\n');
    }
}

/// The segment table's header line.
fn print_columns(b: &mut Vec<u8>, layout: Layout, lustre: bool) {
    b.extend_from_slice(match layout {
        Layout::Release => b"# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)",
        Layout::Main => b"# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)",
    });
    if lustre {
        b.extend_from_slice(b"   [OST]");
    }
    b.extend_from_slice(if layout == Layout::Main { &b"   Pthread-ID\n"[..] } else { b"\n" });
}

/// One segment of module `module`'s trace: `(label, rank, "write"/"read",
/// index)`, its offset,
/// length and times, then (POSIX) its OSTs and (main) its thread.
fn seg_line(
    b: &mut Vec<u8>,
    how: (Layout, usize),
    at: (&str, i64, &str, usize),
    s: &DxtSegment,
    lustre: Option<&Striping>,
) {
    let ((layout, module), (label, rank, op, i)) = (how, at);
    let _ = write!(b, "{label:>8}{rank:>8}{op:>7}{i:>9}{:>16}{:>16}", s.offset, s.length);
    for t in [s.start_time, s.end_time] {
        let mut f = Vec::new();
        push_fixed(&mut f, t, 4);
        let _ = write!(b, "{:>12}", String::from_utf8_lossy(&f));
    }
    match layout {
        // 3.5.0's MPI-IO lines end at the times; its POSIX lines with three
        // spaces, then the OSTs.
        Layout::Release if module == DXT_MPIIO => b.push(b'\n'),
        Layout::Release => {
            b.extend_from_slice(b"   ");
            if let Some(st) = lustre {
                ost_walk(b, st, s.offset, s.length);
            }
            b.push(b'\n');
        }
        Layout::Main => {
            b.extend_from_slice(b"  ");
            if let Some(st) = lustre {
                ost_walk(b, st, s.offset, s.length);
                if !st.components.is_empty() {
                    b.extend_from_slice(b"  ");
                }
            }
            match s.pthread_id {
                Some(tid) => {
                    let _ = writeln!(b, " {tid:>4}");
                }
                None => b.extend_from_slice(b" N/A\n"),
            }
        }
    }
}

/// ` [OST]` for each stripe darshan-util finds `length` bytes at `offset`
/// on. Its walk, kept: a component holding the offset is followed stripe
/// by stripe until the bytes end, the component ends, or as many stripes
/// have been named in the whole walk as this component has (then the walk
/// jumps to the component's end); components without stripes are passed
/// over. Where C would divide by zero or index past the list (a record
/// that lies), this stops instead. Arithmetic is wide so that no offset
/// overflows; every loop ends within the list's length.
fn ost_walk(b: &mut Vec<u8>, s: &Striping, offset: i64, length: i64) {
    let end = i128::from(offset) + i128::from(length);
    let mut cur = i128::from(offset);
    let mut base = 0usize;
    let mut printed = 0i128;
    for c in s.components {
        let v = |k: usize| i128::from(c.counters[k]);
        let (size, count, start, ext_end) = (v(lc::STRIPE_SIZE), v(lc::STRIPE_COUNT), v(lc::EXT_START), v(lc::EXT_END));
        if count == 0 {
            continue; // data on the metadata server
        }
        if size <= 0 || count < 0 {
            return;
        }
        let within = |cur: i128| cur < ext_end || ext_end == -1;
        if cur >= start && within(cur) {
            let mut comp_off = cur - start;
            let mut idx = (comp_off / size) % count;
            while cur < end && within(cur) {
                let Some(id) = usize::try_from(idx).ok().and_then(|k| s.ost_ids.get(base + k)) else { return };
                let _ = write!(b, " [{id}]");
                idx = if idx == count - 1 { 0 } else { idx + 1 };
                comp_off = (comp_off / size + 1) * size;
                cur = start + comp_off;
                printed += 1;
                if printed >= count {
                    cur = if ext_end == -1 { end } else { ext_end };
                    break;
                }
            }
        }
        base = base.saturating_add(usize::try_from(count).unwrap_or(usize::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::modules::LUSTRE;

    fn comp(size: i64, count: i64, start: i64, end: i64) -> LustreComponent {
        LustreComponent { counters: [size, count, 0, 0, start, end, 0], pool_name: [0; 16] }
    }

    fn walk(components: Vec<LustreComponent>, ost_ids: Vec<i64>, offset: i64, length: i64) -> String {
        let mut b = Vec::new();
        ost_walk(&mut b, &Striping { components: &components, ost_ids: &ost_ids }, offset, length);
        String::from_utf8(b).unwrap()
    }

    /// Round robin over four OSTs, 64 KiB stripes: a segment's bytes lie
    /// on the stripes it covers, at most one turn round.
    #[test]
    fn a_segment_names_the_osts_of_the_stripes_it_covers() {
        let rr = || (vec![comp(65536, 4, 0, -1)], vec![3, 0, 1, 2]);
        let at = |off, len| {
            let (c, o) = rr();
            walk(c, o, off, len)
        };
        assert_eq!(at(0, 65536), " [3]");
        assert_eq!(at(32768, 65536), " [3] [0]");
        assert_eq!(at(3 * 65536 + 5, 1), " [2]");
        assert_eq!(at(0, 8 * 65536), " [3] [0] [1] [2]", "one turn at most");
        assert_eq!(at(0, 0), "");
    }

    /// A progressive layout: the walk goes on into the next component
    /// where the bytes cross into it, and past a component it has named
    /// as many stripes as it has, it jumps to its end (darshan-util's).
    #[test]
    fn a_segment_crossing_components_names_each_components_osts() {
        const M: i64 = 1 << 20;
        let pfl = || (vec![comp(M, 1, 0, 4 * M), comp(M, 4, 4 * M, 64 * M)], vec![5, 6, 7, 0, 1]);
        let at = |off, len| {
            let (c, o) = pfl();
            walk(c, o, off, len)
        };
        assert_eq!(at(3 * M + M / 2, M), " [5] [6]");
        assert_eq!(at(6 * M, 2 * M), " [0] [1]");
        assert_eq!(at(0, 5 * M), " [5] [6]");
        assert_eq!(at(64 * M, 10), "", "past the last component's end");
    }

    /// Layouts no file system makes (the log says so, not Lustre): no
    /// division by zero, no index past the list, no overflow, no endless
    /// walk, where darshan-util would crash or read past its arrays.
    #[test]
    fn a_lying_layout_stops_the_walk_instead_of_crashing_it() {
        assert_eq!(walk(vec![comp(0, 4, 0, -1)], vec![1, 2, 3, 4], 0, 100), "");
        assert_eq!(walk(vec![comp(-65536, 4, 0, -1)], vec![1, 2, 3, 4], 0, 100), "");
        assert_eq!(walk(vec![comp(65536, -2, 0, -1)], vec![1, 2], 0, 100), "");
        assert_eq!(walk(vec![comp(65536, 4, 0, -1)], vec![1], 0, 4 * 65536), " [1]");
        assert_eq!(walk(vec![comp(1, i64::MAX, i64::MIN, -1)], vec![7], i64::MAX, i64::MAX), "");
        assert_eq!(walk(vec![comp(1, 1 << 40, 0, -1)], vec![9; 3], 0, i64::MAX), " [9] [9] [9]");
    }

    fn dxt(module: usize, writes: &[(i64, i64)], thread: Option<u64>) -> Record {
        let seg = |&(offset, length): &(i64, i64)| DxtSegment {
            offset,
            length,
            start_time: 1.5,
            end_time: 2.25,
            pthread_id: thread,
        };
        let mut hostname = [0u8; 64];
        hostname[..4].copy_from_slice(b"nid7");
        let mut r = Record::new(module);
        r.id = 11;
        r.rank = 2;
        r.extra = Extra::Dxt { shared_record: 0, hostname, writes: writes.iter().map(seg).collect(), reads: vec![] };
        r
    }

    fn printed(rec: &Record, lustre: Option<&Record>, layout: Layout) -> String {
        let mut b = Vec::new();
        print_trace(&mut b, &Trace { rec, name: b"/lus/f", mnt: b"/lus", fs: b"lustre", lustre }, layout);
        String::from_utf8(b).unwrap()
    }

    /// The two layouts' lines, as darshan-util 3.5.0 and darshan main
    /// print them (darshan-dxt-logutils.c's formats).
    #[test]
    fn a_trace_prints_in_the_release_and_the_main_layout() {
        let mut lustre = Record::new(LUSTRE);
        lustre.extra = Extra::Lustre { components: vec![comp(65536, 2, 0, -1)], ost_ids: vec![4, 8] };
        let rec = dxt(DXT_POSIX, &[(65536, 10)], None);
        let release = printed(&rec, Some(&lustre), Layout::Release);
        assert!(release.contains("# DXT, Lustre stripe components:\n#\t[Component 1] stripe_ext: 0 - EOF, stripe_size: 65536, stripe_count: 2, OSTs: 4 8\n"), "{release}");
        assert!(release.contains("Offset       Length    Start(s)      End(s)   [OST]\n"), "{release}");
        assert!(
            release.ends_with(
                " X_POSIX       2  write        0           65536              10      1.5000      2.2500    [8]\n"
            ),
            "{release}"
        );
        assert!(!release.contains("threads"));
        let main = printed(&dxt(DXT_POSIX, &[(65536, 10)], Some(77)), Some(&lustre), Layout::Main);
        assert!(main.contains("# DXT, number of threads: 1\n"), "{main}");
        assert!(main.contains("End(s)   [OST]   Pthread-ID\n"), "{main}");
        assert!(main.ends_with("      2.2500   [8]     77\n"), "{main}");
        let mpi = printed(&dxt(DXT_MPIIO, &[(0, 1)], None), Some(&lustre), Layout::Release);
        assert!(!mpi.contains("OST"), "MPI-IO traces have no OST columns: {mpi}");
        assert!(mpi.ends_with("      2.2500\n"), "{mpi}");
    }
}
