//! The first-to-last access spans (C Darshan's timespan graphs) against
//! C Darshan 3.5.0's `darshan-parser --all` output for every corpus log
//! it is kept for: every POSIX and STDIO record C prints with a read or
//! write end time is counted, lies inside a drawn span of its row, and
//! every drawn span starts at one of C's starts and ends at one of C's
//! ends; spans of a row left apart are further apart than the resolution.

use std::collections::BTreeMap;
use std::process::Command;

use darshan_log::software::{mpi_internal, software_loading};
use darshan_test_support::corpus::{self, c_parser_all, header_fact};
use darshan_test_support::output;
use serde_json::Value;

/// A span as C's parser printed it: rank, start, end, and whether writes.
#[derive(Debug, Clone, Copy)]
struct CSpan {
    rank: i64,
    start: f64,
    end: f64,
    write: bool,
}

/// A record's reads or writes in C's output: module, rank, record id,
/// whether writes. Its value: start, end, the file's name.
type RecordDirection = (String, i64, String, bool);

/// C's POSIX and STDIO spans with an end time (C's job summary's rule),
/// and how many of them are software loading or the MPI library's files.
fn c_spans(text: &str) -> (Vec<CSpan>, u64) {
    let mut at: BTreeMap<RecordDirection, (f64, f64, String)> = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("POSIX\t") || l.starts_with("STDIO\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let Some(kind) = f[3].split_once("_F_").map(|(_, k)| k) else { continue };
        let (write, is_start) = match kind {
            "READ_START_TIMESTAMP" => (false, true),
            "READ_END_TIMESTAMP" => (false, false),
            "WRITE_START_TIMESTAMP" => (true, true),
            "WRITE_END_TIMESTAMP" => (true, false),
            _ => continue,
        };
        let key = (f[0].to_string(), f[1].parse().unwrap(), f[2].to_string(), write);
        let e = at.entry(key).or_insert((0.0, 0.0, f[5].to_string()));
        let v: f64 = f[4].parse().unwrap();
        if is_start {
            e.0 = v;
        } else {
            e.1 = v;
        }
    }
    let mut left_out = 0;
    let mut spans = Vec::new();
    for ((_, rank, _, write), (start, end, name)) in at {
        if end == 0.0 {
            continue;
        }
        if software_loading(&name).is_some() || mpi_internal(&name).is_some() {
            left_out += 1;
        } else {
            spans.push(CSpan { rank, start, end, write });
        }
    }
    (spans, left_out)
}

fn our_timespans(name: &str) -> Value {
    let o = output(
        Command::new(env!("CARGO_BIN_EXE_darshan-summary")).args(["--json", "--output", "-"]).arg(corpus::log(name)),
    );
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice::<Value>(&o.stdout).unwrap()["timespans"].clone()
}

/// Drawn spans as (row, start, end, write): the shared ones in row -1.
fn drawn(t: &Value) -> Vec<(i64, f64, f64, bool)> {
    let f = |v: &Value| v.as_f64().unwrap();
    let mut out: Vec<_> = t["independent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s[0].as_i64().unwrap(), f(&s[1]), f(&s[2]), s[3].as_bool().unwrap()))
        .collect();
    out.extend(t["shared"].as_array().unwrap().iter().map(|s| (-1, f(&s[0]), f(&s[1]), s[2].as_bool().unwrap())));
    out
}

/// C prints six decimals.
fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 2e-6 + 1e-12 * a.abs()
}

/// Drawn span `d` is C's spans of its row inside it, chained: it starts
/// at the first one's start, each next starts within `res` of the end
/// reached so far, and it ends at the last end reached.
fn check_chain<'a>(name: &str, d: &(i64, f64, f64, bool), row: impl Iterator<Item = &'a CSpan>, res: f64) {
    let mut inside: Vec<&CSpan> = row.filter(|s| s.start >= d.1 - 2e-6 && s.end <= d.2 + 2e-6).collect();
    inside.sort_by(|a, b| a.start.total_cmp(&b.start));
    let first = inside.first().unwrap_or_else(|| panic!("{name}: drawn {d:?} holds none of C's spans"));
    assert!(near(first.start, d.1), "{name}: drawn {d:?} starts before C's first start in it");
    let mut reached = first.end;
    for s in &inside[1..] {
        assert!(
            s.start <= reached + res + 2e-6,
            "{name}: drawn {d:?} joins {s:?} from {reached} across more than {res} s"
        );
        reached = reached.max(s.end);
    }
    assert!(near(reached, d.2), "{name}: drawn {d:?} ends at {reached} by C's spans");
}

fn check_log(name: &str) -> usize {
    let c = c_parser_all(name);
    let (spans, left_out) = c_spans(&c);
    let t = our_timespans(name);
    if spans.is_empty() && left_out == 0 {
        assert!(t.is_null(), "{name}: timespans where C has none");
        return 0;
    }
    assert_eq!(t["spans"].as_u64(), Some(spans.len() as u64), "{name}: spans counted");
    assert_eq!(t["left_out"].as_u64(), Some(left_out), "{name}: spans left out");
    let per_row = t["ranks_per_row"].as_i64().unwrap();
    let row_of = |s: &CSpan| if s.rank == -1 { -1 } else { s.rank / per_row };
    let shown = drawn(&t);
    let run_time: f64 = header_fact(&c, "run time").unwrap().parse().unwrap();
    let end_time = t["end_time"].as_f64().unwrap();
    assert!(end_time >= run_time - 1e-6 && spans.iter().all(|s| end_time >= s.end - 1e-6), "{name}: the axis");
    for s in &spans {
        let inside =
            shown.iter().any(|d| d.0 == row_of(s) && d.3 == s.write && d.1 <= s.start + 2e-6 && d.2 >= s.end - 2e-6);
        assert!(inside, "{name}: C's {s:?} is in no drawn span");
    }
    let res = t["resolution"].as_f64().unwrap();
    for d in &shown {
        check_chain(name, d, spans.iter().filter(|s| row_of(s) == d.0 && s.write == d.3), res);
    }
    for pair in shown.windows(2).filter(|p| p[0].0 == p[1].0 && p[0].3 == p[1].3) {
        assert!(pair[1].1 > pair[0].2 + res - 2e-6, "{name}: {pair:?} closer than {res} s, not joined");
    }
    spans.len()
}

#[test]
fn the_timespans_cover_every_span_c_darshans_parser_prints_and_no_more() {
    let names = corpus::with_c_parser_output();
    assert!(names.len() >= 30, "{} logs with C's output", names.len());
    let checked: usize = names.iter().map(|n| check_log(n)).sum();
    assert!(checked > 1_000, "only {checked} of C's spans checked");
}
