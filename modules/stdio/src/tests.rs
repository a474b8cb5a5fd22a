//! STDIO's counting rules driven through the module's entry points, each
//! test with a module of its own. The oracle is C Darshan 3.5.0's record
//! for the reference program `stdio_mix` (one fopen, 1,000,000 fprintf of
//! "line <i>\n", fseek to the end, rewind, fgets of every line, fclose)
//! and docs/counter-rules.md §4.

use darshan_core::arena::RecordArena;
use darshan_core::common::{getf, Tick};
use darshan_core::records::Reducer;
use darshan_core::{Env, FinalizeCtx, Module};
use darshan_log::counters::stdio::typed as c;

use crate::Stdio;

/// A STDIO module of the test's own with room for `records` files besides
/// the standard streams' three records, and its own ledger and
/// configuration: no process-wide runtime.
fn stdio(records: usize) -> Stdio {
    stdio_with_std(records, [0; 3])
}

/// The same, its standard streams at the `FILE*` values `std`.
fn stdio_with_std(records: usize, std: [usize; 3]) -> Stdio {
    let records = records + 3;
    let s = Stdio::new();
    s.set_std_streams(std);
    let arena = Box::leak(Box::new(RecordArena::new(records * c::RECORD_WORDS * 8).expect("record memory")));
    s.attach(arena.reserve(c::RECORD_WORDS, records), &Env::for_tests());
    s
}

fn records(s: &Stdio) -> Vec<Vec<u64>> {
    darshan_core::module::finalized_records(s, &FinalizeCtx::one_process(1.0, 1 << 40))
}

fn counter(w: &[u64], k: c::Counter) -> i64 {
    w[c::word(k)] as i64
}

/// C Darshan 3.5.0's record of the reference program
/// (shared/reference/stdio_mix.txt).
const STDIO_MIX: [(c::Counter, i64); 10] = [
    (c::OPENS, 1),
    (c::FDOPENS, 0),
    (c::READS, 1_000_000),
    (c::WRITES, 1_000_000),
    (c::SEEKS, 2),
    (c::FLUSHES, 0),
    (c::BYTES_WRITTEN, 11_888_890),
    (c::BYTES_READ, 11_888_890),
    (c::MAX_BYTE_READ, 11_888_889),
    (c::MAX_BYTE_WRITTEN, 11_888_889),
];

/// The reference program's calls on stream `f` of `s`, each one tick
/// long, one tick apart.
fn run_stdio_mix(s: &Stdio, f: usize, name: &[u8]) {
    let mut t: Tick = 100;
    let mut tick = |d: Tick| {
        t += d;
        t
    };
    s.on_open(f, name, tick(1), tick(1));
    let line = |i: i64| format!("line {i}\n").len() as i64;
    let mut size = 0;
    for i in 0..1_000_000 {
        let t1 = tick(1);
        s.on_write(f, line(i), false, t1, tick(1));
        size += line(i);
    }
    s.on_seek(f, size, tick(1), tick(1));
    s.on_seek(f, 0, tick(1), tick(1));
    for i in 0..1_000_000 {
        let t1 = tick(1);
        s.on_read(f, line(i), t1, tick(1));
    }
    s.on_close(f, tick(1), tick(1));
}

#[test]
fn the_reference_stdio_program_gives_c_darshans_counters() {
    let s = stdio(4);
    let name = b"/mnt/oracle-tmpfs/stdio_mix.txt";
    run_stdio_mix(&s, 0x5000, name);
    let recs = records(&s);
    let w = recs.iter().find(|w| w[0] == darshan_log::record_id(name)).expect("the file's record");
    for (k, want) in STDIO_MIX {
        assert_eq!(counter(w, k), want, "{k:?}");
    }
    // Writes before reads, every time within the run, the open first.
    assert!(getf(w, c::fword(c::F_OPEN_START_TIMESTAMP)) < getf(w, c::fword(c::F_WRITE_START_TIMESTAMP)));
    assert!(getf(w, c::fword(c::F_WRITE_END_TIMESTAMP)) < getf(w, c::fword(c::F_READ_START_TIMESTAMP)));
    assert_eq!(getf(w, c::fword(c::F_WRITE_TIME)), 1_000_000.0, "a million calls of one tick");
}

/// fflush is a write of 0 bytes counted in FLUSHES, not WRITES, with
/// write time; fdopen is an open too; reads and writes move one offset.
#[test]
fn a_flush_is_a_zero_byte_write_counted_apart_and_fdopen_is_an_open() {
    let s = stdio(2);
    let (f, g) = (0x6000_usize, 0x7000_usize);
    let name = b"/data/log.txt";
    s.on_open(f, name, 1, 2);
    s.on_write(f, 10, false, 3, 4);
    s.on_write(f, 0, true, 5, 8);
    s.on_close(f, 9, 10);
    s.on_fdopen(g, darshan_log::record_id(name), name, 11, 12);
    s.on_write(g, 5, false, 13, 14); // fdopen continues at the record's offset
    let recs = records(&s);
    let w = &recs[0];
    assert_eq!((counter(w, c::OPENS), counter(w, c::FDOPENS)), (2, 1));
    assert_eq!((counter(w, c::WRITES), counter(w, c::FLUSHES)), (2, 1));
    assert_eq!(counter(w, c::BYTES_WRITTEN), 15);
    assert_eq!(counter(w, c::MAX_BYTE_WRITTEN), 14);
    assert_eq!(getf(w, c::fword(c::F_WRITE_TIME)), 1.0 + 3.0 + 1.0);
}

#[test]
fn every_counter_has_a_reduction_rule() {
    assert_eq!(
        darshan_log::reduce::ops::words_no_rules_take(&crate::reduce::RULES, c::RECORD_WORDS),
        Vec::<usize>::new()
    );
}

/// One rank's record of `/data/shared.txt` (fopen, one fwrite of `bytes`
/// at `rank * 1000` taking `(rank + 1) * 10` ticks), finalized as rank
/// `rank` of 2 and prepared for the reduction.
fn rank_record(rank: i64, bytes: i64, t: Tick) -> Vec<u64> {
    let s = stdio(1);
    let f = 0x7000_usize;
    let name = b"/data/shared.txt";
    s.on_open(f, name, t, t + 1);
    s.on_seek(f, rank * 1000, t + 1, t + 2);
    s.on_write(f, bytes, false, t + 2, t + 2 + (rank + 1) * 10);
    let ctx = FinalizeCtx { rank, nprocs: 2, ..FinalizeCtx::one_process(1.0, 1 << 40) };
    let mut w = darshan_core::module::finalized_records(&s, &ctx)
        .into_iter()
        .find(|w| w[0] == darshan_log::record_id(name))
        .expect("the file's record");
    crate::reduce::RULES.prepare(&mut w);
    w
}

/// The MPI reduction's operator on two ranks' records of one stream's
/// file: sums, maxima, the earliest start and latest end, the slowest and
/// fastest rank with their bytes (semantics of darshan-stdio.c's).
#[test]
fn two_ranks_records_reduce_as_darshans_operator_does() {
    let (a, mut b) = (rank_record(1, 500, 100), rank_record(0, 200, 50));
    crate::reduce::RULES.combine(&a, &mut b);
    assert_eq!(b[1] as i64, -1, "a shared record");
    assert_eq!((counter(&b, c::OPENS), counter(&b, c::WRITES), counter(&b, c::SEEKS)), (2, 2, 2));
    assert_eq!(counter(&b, c::BYTES_WRITTEN), 700);
    assert_eq!(counter(&b, c::MAX_BYTE_WRITTEN), 1499);
    assert_eq!(getf(&b, c::fword(c::F_OPEN_START_TIMESTAMP)), 50.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_END_TIMESTAMP)), 122.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_TIME)), 30.0, "times add up across ranks");
    assert_eq!((counter(&b, c::SLOWEST_RANK), counter(&b, c::SLOWEST_RANK_BYTES)), (1, 500));
    assert_eq!((counter(&b, c::FASTEST_RANK), counter(&b, c::FASTEST_RANK_BYTES)), (0, 200));
}

const STD: [usize; 3] = [0x10, 0x20, 0x30];

fn names_of(recs: &[Vec<u64>]) -> Vec<&'static [u8]> {
    let named = |id| darshan_log::names::STD_STREAMS.into_iter().find(|n| darshan_log::record_id(n) == id);
    recs.iter().map(|w| named(w[0]).unwrap_or(b"file")).collect()
}

/// The standard streams' records are made at their first use (a third of
/// a short process's page faults at start-up went into making all three
/// there), but they keep the place they had: first, in fd order, opened
/// once at time 0.
#[test]
fn a_standard_streams_record_is_made_at_its_first_use_and_written_first() {
    let s = stdio_with_std(2, STD);
    assert_eq!(s.lock().set.len(), 0, "no record made at start-up");
    s.on_open(0x5000, b"/data/a.txt", 1, 2);
    s.on_write(0x5000, 10, false, 3, 4);
    s.on_write(STD[2], 7, false, 5, 6);
    s.on_read(STD[0], 3, 7, 8);
    let recs = records(&s);
    assert_eq!(names_of(&recs), [&b"<STDIN>"[..], b"<STDERR>", b"file"]);
    assert_eq!(
        (counter(&recs[1], c::OPENS), counter(&recs[1], c::WRITES), counter(&recs[1], c::BYTES_WRITTEN)),
        (1, 1, 7)
    );
    assert_eq!(getf(&recs[1], c::fword(c::F_OPEN_START_TIMESTAMP)), 0.0);
}

/// A standard stream closed, or reopened onto a file, before its first
/// use has no record of its own later (made at start-up, it would have
/// had no reads or writes and been left out).
#[test]
fn a_standard_stream_closed_or_reopened_before_use_gets_no_record() {
    let s = stdio_with_std(2, STD);
    s.on_close(STD[2], 1, 2);
    s.on_write(STD[2], 5, false, 3, 4); // on a closed stream: not counted
    s.on_open(STD[1], b"/data/out.txt", 5, 6); // freopen(stdout)
    s.on_write(STD[1], 9, false, 7, 8);
    let recs = records(&s);
    assert_eq!(names_of(&recs), [&b"file"[..]]);
    assert_eq!(counter(&recs[0], c::BYTES_WRITTEN), 9);
}

/// fileno(stdin) (Python calls it on every standard stream at start-up)
/// asks for the stream's record id: none before the program's first STDIO
/// call (Darshan's module does not exist yet), and after it the id is
/// known without making the record, which would cost the process nine
/// page faults for nothing.
#[test]
fn fileno_of_an_unused_standard_stream_gives_its_id_without_making_its_record() {
    let s = stdio_with_std(1, STD);
    assert_eq!(s.id_of_stream(STD[0]), None, "before the first STDIO call");
    s.begin();
    assert_eq!(s.id_of_stream(STD[0]), Some(darshan_log::record_id(b"<STDIN>")));
    assert_eq!(s.lock().set.len(), 0);
    assert_eq!(s.id_of_stream(0x999), None, "not a stream we know");
}

/// C Darshan passes fgets's and fputs's `strlen`, fread's and fwrite's
/// `size * n` and getw's `sizeof(int)` as a `size_t`, so its check
/// `max < offset + bytes - 1` is unsigned there: a 0-byte fgets at offset
/// 0 (a line that starts with a NUL byte) left MAX_BYTE_READ at -1 in C's
/// log and 0 in ours, and after it C's -1 stays through every later
/// `size_t` call until a signed one (fgetc's 1, fflush's 0) raises it.
/// The oracle is C Darshan 3.5.0's log of the same calls
/// (tests/programs/stdio_size_t.c, ffi/tests/as_c_darshan.rs).
#[test]
fn a_zero_byte_fgets_at_offset_zero_left_max_byte_read_at_zero_where_c_writes_minus_one() {
    use crate::Moved;
    let s = stdio(5);
    let stream = |k: usize| 0x5000 + k * 0x100;
    for (k, name) in [b"/d/nul", b"/d/get", b"/d/emp", b"/d/flu", b"/d/int"].into_iter().enumerate() {
        s.on_open(stream(k), name, 1, 2);
    }
    for k in [0, 1] {
        s.on_read(stream(k), Moved::SizeT(0), 3, 4);
        s.on_read(stream(k), Moved::SizeT(298), 5, 6);
    }
    s.on_read(stream(1), Moved::Int(1), 7, 8);
    for k in [2, 3] {
        s.on_write(stream(k), Moved::SizeT(0), false, 3, 4);
        s.on_write(stream(k), Moved::SizeT(50), false, 5, 6);
    }
    s.on_write(stream(3), Moved::Int(0), true, 7, 8);
    s.on_write(stream(4), Moved::Int(0), false, 3, 4);
    let recs = records(&s);
    let max = |name: &[u8]| {
        let w = recs.iter().find(|w| w[0] == darshan_log::record_id(name)).unwrap();
        (counter(w, c::MAX_BYTE_READ), counter(w, c::MAX_BYTE_WRITTEN))
    };
    assert_eq!(max(b"/d/nul"), (-1, 0), "a 0-byte fgets at 0, then fread");
    assert_eq!(max(b"/d/get"), (298, 0), "the same, then fgetc's int 1 at 298");
    assert_eq!(max(b"/d/emp"), (0, -1), "fputs(\"\") at 0, then fwrite");
    assert_eq!(max(b"/d/flu"), (0, 49), "the same, then fflush's int 0 at 50");
    assert_eq!(max(b"/d/int"), (0, 0), "a signed 0 bytes at 0 leaves it");
}
