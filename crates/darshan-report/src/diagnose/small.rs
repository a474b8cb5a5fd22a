//! Drishti's small-request insights: P05/P06 over all POSIX requests,
//! P15/P16 over the files every rank shares. Drishti counts as small the
//! access-size buckets up to 1 MiB, whose top bucket (`100K_1M`) holds
//! the requests of exactly 1 MiB too: a job that reads and writes a
//! stripe at a time in 1 MiB blocks, as IOR's and dd's users are told to,
//! would be told its requests are small. The requests the common access
//! sizes show to be of exactly 1 MiB are not counted
//! (`Roles::exactly_1mib`); where that leaves too few for Drishti's
//! thresholds, the rule is held back and says why.

use darshan_log::modules;

use super::{finding, pct, ratio, Ctx};
use crate::files::FileAgg;
use crate::model::{Finding, Level};
use crate::modstats::ModuleSums;
use crate::units::{bytes as b, count};

const MIB: i64 = 1 << 20;

/// Requests of one direction in the buckets up to 1 MiB, and of those
/// the ones known to be of exactly 1 MiB.
#[derive(Clone, Copy)]
struct Small {
    bucketed: i64,
    mib: i64,
}

impl Small {
    /// The requests under 1 MiB.
    fn under(self) -> i64 {
        self.bucketed.saturating_sub(self.mib)
    }
}

/// Drishti's thresholds: `n` small of `total` requests are many.
fn many(cx: &Ctx, n: i64, total: i64) -> bool {
    n > 0 && ratio(n, total) > cx.cfg.get("small_requests") && n as f64 > cx.cfg.get("small_requests_absolute")
}

/// P05/P06: many small requests, where they move enough data and take
/// enough time to matter.
pub fn requests(cx: &Ctx, p: &ModuleSums, out: &mut Vec<Finding>) {
    let (small_r, small_w) = p.small();
    // Over the files the module's sums are over.
    let (mib_r, mib_w) = cx.files_of(modules::POSIX).fold((0i64, 0i64), |(r, w), e| {
        let (a, b) = e.exactly_1mib();
        (r.saturating_add(a), w.saturating_add(b))
    });
    let directions = [
        ("P05", Small { bucketed: small_r, mib: mib_r }, p.sum("POSIX_READS"), "read"),
        ("P06", Small { bucketed: small_w, mib: mib_w }, p.sum("POSIX_WRITES"), "write"),
    ];
    for (code, s, total, what) in directions {
        let (moved, spent) = if what == "read" {
            (p.sum("POSIX_BYTES_READ"), p.times[0])
        } else {
            (p.sum("POSIX_BYTES_WRITTEN"), p.times[1])
        };
        // The requests of 1 MiB first: the other reasons count the rest.
        if !many(cx, s.bucketed, total)
            || withheld_as_1mib(cx, code, s, total, what, "")
            || withheld(cx, code, (s.under(), total, what), moved, spent)
        {
            continue;
        }
        out.push(requests_finding(cx, p, code, (s, total, what), moved));
    }
}

/// The P05/P06 finding over `s`'s requests under 1 MiB, naming the files
/// with over half the threshold's share (as Drishti does).
fn requests_finding(cx: &Ctx, p: &ModuleSums, code: &str, (s, total, what): (Small, i64, &str), moved: i64) -> Finding {
    let n = s.under();
    let key: fn(&FileAgg) -> i64 = if what == "read" { |e| e.small().0 } else { |e| e.small().1 };
    let floor = total as f64 * cx.cfg.get("small_requests") / 2.0;
    let files = cx.files_of(modules::POSIX).map(|e| (key(e) as f64, e)).filter(|(k, _)| *k > floor).collect();
    let mut ev = vec![format!("{} of {} {what} requests are under 1 MiB ({})", count(n), count(total), pct(n, total))];
    ev.extend(cx.worst(files, |name, _, k| format!("{} small {what}s to {name}", count(k as i64))));
    // What the small requests can have carried at most (each at its size
    // bucket's top): under 1 % of the bytes, they are information, not
    // the job's problem.
    let small_bytes = bucket_tops(p, what).saturating_sub(s.mib.saturating_mul(MIB)).max(0);
    let minor = moved > 0 && (small_bytes as f64) < moved as f64 * 0.01;
    if minor {
        ev.push(format!("at most {} in them ({} of the bytes {what})", b(small_bytes as f64), pct(small_bytes, moved)));
    }
    finding(
        code,
        if minor { Level::Info } else { Level::High },
        format!("High number ({}) of small {what} requests (< 1 MiB)", count(n)),
        ev,
        Some(advice(cx)),
    )
}

/// What to do about small requests, for the job's interfaces.
fn advice(cx: &Ctx) -> &'static str {
    if cx.module_present("MPI-IO") {
        return "Use collective MPI-IO operations (MPI_File_read_all, MPI_File_write_all) or aggregate requests into larger ones";
    }
    cx.advice_for(
        "Aggregate small requests into larger ones, or use MPI-IO collective I/O",
        "Make requests larger: buffer them, put many small samples into fewer larger files or records \
         (shards, TFRecord, WebDataset), and read with parallel workers in the data loader",
        "Make requests larger: read and write in bigger blocks (a larger buffer, block or transfer size), \
         and buffer or gather small writes (a larger stdio buffer with setvbuf, or writev)",
    )
}

/// The most bytes the requests of the buckets up to 1 MiB can have
/// moved: each bucket's count at the bucket's top.
fn bucket_tops(p: &ModuleSums, what: &str) -> i64 {
    let dir = if what == "read" { "READ" } else { "WRITE" };
    [("0_100", 100i64), ("100_1K", 1 << 10), ("1K_10K", 10 << 10), ("10K_100K", 100 << 10), ("100K_1M", MIB)]
        .iter()
        .map(|(bucket, top)| p.sum(&format!("POSIX_SIZE_{dir}_{bucket}")).max(0).saturating_mul(*top))
        .fold(0i64, i64::saturating_add)
}

/// Where Drishti's rule fires on the buckets but the requests under
/// 1 MiB are too few: held back, saying so.
fn withheld_as_1mib(cx: &Ctx, code: &str, s: Small, total: i64, what: &str, scope: &str) -> bool {
    if many(cx, s.under(), total) {
        return false;
    }
    cx.withhold(
        code,
        format!(
            "{} {what}s{scope} in the access-size buckets up to 1 MiB, but {} of them of exactly 1 MiB (the log's \
             common access sizes): {} of {} under 1 MiB ({})",
            count(s.bucketed),
            count(s.mib),
            count(s.under()),
            count(total),
            pct(s.under(), total)
        ),
    );
    true
}

/// A P05/P06 that is withheld, and why: the small requests (`n` of
/// `total` `what`s) moved too little data, or all the requests of that
/// direction took too little time, to be the job's problem.
fn withheld(cx: &Ctx, code: &str, (n, total, what): (i64, i64, &str), moved: i64, spent: f64) -> bool {
    if (moved as f64) < cx.min_volume() {
        cx.withhold(
            code,
            format!(
                "{} small {what}s, but {} {what} in all: under the {} a finding needs",
                count(n),
                b(moved as f64),
                b(cx.min_volume())
            ),
        );
        return true;
    }
    // Many small requests cost the job only the time they take;
    // consecutive ones are merged by the kernel's read-ahead and
    // write-back before they reach a disk or a server.
    if spent < cx.min_time() {
        cx.withhold(
            code,
            format!(
                "{} small {what}s, but all {} {what}s took {} (every process together): under the {} a finding about time needs",
                count(n),
                count(total),
                crate::units::secs(spent),
                crate::units::secs(cx.min_time())
            ),
        );
        return true;
    }
    false
}

/// P15/P16: many small requests to shared files.
pub fn shared(cx: &Ctx, shared: &[&FileAgg], out: &mut Vec<Finding>) {
    let sum = |f: &dyn Fn(&FileAgg) -> i64| shared.iter().map(|e| f(e)).fold(0i64, i64::saturating_add);
    // A shared file's time, split by its bytes: the record keeps one I/O
    // time, not read and write apart.
    let time = |f: fn(&FileAgg) -> i64| -> f64 {
        shared.iter().map(|e| e.io_time * f(e) as f64 / (e.bytes_read() + e.bytes_written()).max(1) as f64).sum()
    };
    let directions = [
        ("P15", "read", sum(&|e| e.reads), sum(&|e| e.small_bucketed().0), sum(&|e| e.exactly_1mib().0)),
        ("P16", "write", sum(&|e| e.writes), sum(&|e| e.small_bucketed().1), sum(&|e| e.exactly_1mib().1)),
    ];
    for (code, what, total, bucketed, mib) in directions {
        let s = Small { bucketed, mib };
        if !many(cx, s.bucketed, total) {
            continue;
        }
        if withheld_as_1mib(cx, code, s, total, what, " to shared files") {
            continue;
        }
        let spent = if what == "read" { time(FileAgg::bytes_read) } else { time(FileAgg::bytes_written) };
        if spent < cx.min_time() {
            cx.withhold(
                code,
                format!(
                    "{} small {what}s to shared files, but they took about {} (every process together)",
                    count(s.under()),
                    crate::units::secs(spent)
                ),
            );
            continue;
        }
        out.push(finding(
            code,
            Level::High,
            format!("High number ({}) of small {what} requests to shared files ({})", count(s.under()), pct(s.under(), total)),
            vec![],
            Some(cx.advice(
                "Use MPI-IO collective operations so aggregators issue large requests to shared files",
                if what == "read" {
                    "Read each shared file in large requests, each process its own part, or give each process a file of its own"
                } else {
                    "Have one process write each shared file in large requests, or give each process a file of its own"
                },
            )),
        ));
    }
}
