//! Drishti's insights (drishti-io 0.8, handlers/handle_darshan.py and
//! includes/module.py): the same codes, conditions and default thresholds,
//! each finding with its numbers and the files behind it.
//! Differences (docs/report.md): M08-M10 need the node count, which Drishti
//! asks SLURM's `sacct` for; we count DXT host names instead and stay
//! silent without DXT. Backtraces (a Darshan fork's DXT column) are not
//! read. Where a counter in the log refutes a rule (collective I/O behind
//! an imbalance, sparse reads that are not re-reads, the page-sized
//! alignment of a local file system, a volume under `min_volume`) the
//! rule is held back and the reason kept (`Ctx::withhold`); P09 and P10
//! mean data read or written beyond a file's extent, which is what
//! Drishti's wording says but not what its condition tests.

use darshan_log::modules;

use super::{counted, finding, pct, ratio, Ctx};
use crate::files::{name_of, FileAgg};
use crate::model::{Finding, Level};
use crate::units::{bytes as b, count};

/// The file alignment of a local, page-cached file system (st_blksize):
/// misaligned requests there cost a page-cache merge, not a lock or a
/// read-modify-write on a server.
const PAGE: i64 = 4096;

pub fn insights(cx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    stdio_and_mpiio(cx, &mut out);
    if let Some(p) = cx.sums(modules::POSIX) {
        posix(cx, p, &mut out);
    }
    if cx.sums(modules::MPIIO).is_some() {
        mpiio(cx, &mut out);
    }
    out
}

fn stdio_and_mpiio(cx: &Ctx, out: &mut Vec<Finding>) {
    let bytes = |m: usize, r: &str, w: &str| cx.sums(m).map_or(0, |s| s.sum(r) + s.sum(w));
    let stdio = bytes(modules::STDIO, "STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN");
    let mut posix = bytes(modules::POSIX, "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN");
    let mpiio = bytes(modules::MPIIO, "MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN");
    // MPI-IO bytes also pass through POSIX: count them once.
    if posix > 0 && posix >= mpiio {
        posix -= mpiio;
    }
    let total = stdio + posix + mpiio;
    if total > 0 && stdio as f64 / total as f64 > cx.cfg.get("interface_stdio") {
        if (stdio as f64) < cx.min_volume() {
            cx.withhold(
                "S01",
                format!(
                    "STDIO moves {} of the data, but only {}: under the {} a finding needs",
                    pct(stdio, total),
                    b(stdio as f64),
                    b(cx.min_volume())
                ),
            );
        } else if !stdio_mostly_large(cx, stdio, total) {
            out.push(finding(
                "S01",
                Level::High,
                format!(
                    "STDIO moves {} of the job's data ({} of {})",
                    pct(stdio, total),
                    b(stdio as f64),
                    b(total as f64)
                ),
                vec![],
                Some(cx.advice(
                    "Use a high-performance interface such as MPI-IO (or POSIX with large requests) for bulk data",
                    "Use POSIX reads and writes (or a library over them) with large requests for bulk data",
                )),
            ));
        }
    }
    no_mpiio(cx, out);
}

/// Held back S01 where, without the STDIO files whose requests averaged
/// 1 MiB or more, STDIO's share is under the threshold: the C library
/// hands a request larger than its buffer to read or write whole, so
/// numpy's `save`/`load` (one `fwrite`/`fread` of the array) or a whole
/// file read with `fread` is large-request I/O already. Such a file's
/// requests under 4 KiB can have carried at most 1/256 of its bytes.
fn stdio_mostly_large(cx: &Ctx, stdio: i64, total: i64) -> bool {
    let (mut large, mut files) = (0i64, 0i64);
    for e in cx.files_of(modules::STDIO) {
        let (ops, bytes) = (e.reads.saturating_add(e.writes), e.bytes_read().saturating_add(e.bytes_written()));
        if ops > 0 && bytes / ops >= 1 << 20 {
            large = large.saturating_add(bytes);
            files += 1;
        }
    }
    let rest = stdio.saturating_sub(large).max(0);
    if large == 0 || rest as f64 / total as f64 > cx.cfg.get("interface_stdio") {
        return false;
    }
    cx.withhold(
        "S01",
        format!(
            "STDIO moves {} of the data, but {} of it through {} in requests of 1 MiB or more on average, which the C \
             library passes to read and write whole: {} in smaller ones",
            pct(stdio, total),
            b(large as f64),
            counted(files, "file"),
            pct(rest, total)
        ),
    );
    true
}

/// M01: no MPI-IO, said only where MPI-IO was at hand and could help.
fn no_mpiio(cx: &Ctx, out: &mut Vec<Finding>) {
    if !cx.module_present("MPI-IO") {
        if cx.nprocs <= 1 {
            cx.withhold("M01", "no MPI-IO, but a single process: a parallel I/O interface would not help it".into());
        } else if !cx.mpi {
            cx.withhold(
                "M01",
                format!(
                    "{} processes without MPI (a job merge of their logs): MPI-IO is not at hand for them",
                    cx.nprocs
                ),
            );
        } else {
            out.push(finding(
                "M01",
                Level::Info,
                format!("The application does not use MPI-IO ({} processes)", cx.nprocs),
                vec![],
                Some("For shared files, a parallel interface (MPI-IO, or HDF5/PnetCDF over it) can aggregate requests"),
            ));
        }
    }
}

/// POSIX's findings (P01-P17), in Drishti's order.
fn posix(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    imbalance(cx, p, out);
    super::small::requests(cx, p, out);
    let ops = p.sum("POSIX_READS") + p.sum("POSIX_WRITES");
    let moved = p.sum("POSIX_BYTES_READ") + p.sum("POSIX_BYTES_WRITTEN");
    let spent = p.times[0] + p.times[1];
    misaligned_in_memory(cx, p, out);
    misaligned_in_file(cx, ops, moved, spent, out);
    redundant(cx, p, out);
    random_or_sequential(cx, p, out);
    shared_posix(cx, out);
    long_metadata(cx, t("metadata_time_rank"), out);
    per_rank_imbalance(cx, out);
}

/// P17: records with more metadata time than `limit` seconds (Drishti
/// counts them and calls them ranks). The evidence names the worst; a
/// shared file's time is summed over every rank, so its line says so,
/// with the mean a rank and the slowest rank's whole I/O time on it.
fn long_metadata(cx: &Ctx, limit: f64, out: &mut Vec<Finding>) {
    let mut hits: Vec<&super::LongMetadata> = cx.long_metadata.iter().filter(|r| cx.application_file(r.id)).collect();
    if hits.is_empty() {
        return;
    }
    hits.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.id.cmp(&b.id)).then(a.rank.cmp(&b.rank)));
    let mut ev: Vec<String> = hits.iter().take(super::WORST).map(|r| long_metadata_line(cx, r)).collect();
    if hits.len() > super::WORST {
        ev.push(format!("and {} more", counted((hits.len() - super::WORST) as i64, "record")));
    }
    let title = match hits.len() {
        1 => format!("1 record spends over {limit} s in metadata operations"),
        n => format!("{} spend over {limit} s in metadata operations (each)", counted(n as i64, "record")),
    };
    out.push(finding(
        "P17",
        Level::High,
        title,
        ev,
        Some("Combine files, or reduce or cache metadata operations (opens, stats, seeks)"),
    ));
}

fn long_metadata_line(cx: &Ctx, r: &super::LongMetadata) -> String {
    let name = name_of(cx.names, r.id);
    if r.rank >= 0 {
        return format!("{name}, rank {}: {:.2} s", r.rank, r.seconds);
    }
    format!(
        "{name}, shared by all {} ranks: {:.2} s summed over them ({:.2} s a rank on average; the slowest rank's whole I/O time on it {:.2} s)",
        count(cx.nprocs),
        r.seconds,
        r.seconds / cx.nprocs.max(1) as f64,
        r.slowest_rank_time
    )
}

/// P01-P04: operations or bytes mostly one way.
fn imbalance(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let reads = p.sum("POSIX_READS");
    let writes = p.sum("POSIX_WRITES");
    let ops = reads + writes;
    // Thresholds are never negative, so passing one means reads ≠ writes.
    if ops > 0 && (writes - reads).abs() as f64 / ops as f64 > t("imbalance_operations") {
        let (code, what) = if writes > reads { ("P01", "write") } else { ("P02", "read") };
        out.push(finding(
            code,
            Level::Info,
            format!(
                "Operation-intensive: {} {what}s ({} of {} operations)",
                count(writes.max(reads)),
                pct(writes.max(reads), ops),
                count(ops)
            ),
            vec![format!("{}, {}", counted(reads, "read"), counted(writes, "write"))],
            None,
        ));
    }
    let br = p.sum("POSIX_BYTES_READ");
    let bw = p.sum("POSIX_BYTES_WRITTEN");
    let bytes = br + bw;
    if bytes > 0 && (bw - br).abs() as f64 / bytes as f64 > t("imbalance_operations") {
        let (code, what) = if bw > br { ("P03", "write") } else { ("P04", "read") };
        out.push(finding(
            code,
            Level::Info,
            format!("Size-intensive: {} of the bytes are {what}s", pct(bw.max(br), bytes)),
            vec![format!("{} read, {} written", b(br as f64), b(bw as f64))],
            None,
        ));
    }
}

/// P07: requests misaligned in memory.
fn misaligned_in_memory(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let ops = p.sum("POSIX_READS") + p.sum("POSIX_WRITES");
    let (br, bw) = (p.sum("POSIX_BYTES_READ"), p.sum("POSIX_BYTES_WRITTEN"));
    let mem = p.sum("POSIX_MEM_NOT_ALIGNED");
    let spent = p.times[0] + p.times[1];
    if ops > 0 && mem as f64 / ops as f64 > t("misaligned_requests") {
        if spent < cx.min_time() {
            cx.withhold(
                "P07",
                format!(
                    "{} of {} requests misaligned in memory, but all reads and writes took {} (every process together)",
                    count(mem),
                    count(ops),
                    crate::units::secs(spent)
                ),
            );
        } else if ((br + bw) as f64) < cx.min_volume() {
            cx.withhold(
                "P07",
                format!("{} requests misaligned in memory, but {} moved in all", count(mem), b((br + bw) as f64)),
            );
        } else {
            out.push(finding(
                "P07",
                Level::High,
                format!("High number of requests misaligned in memory ({})", pct(mem, ops)),
                vec![format!("{} of {} requests", count(mem), count(ops))],
                Some("Align I/O buffers to the memory alignment (e.g. posix_memalign)"),
            ));
        }
    }
}

/// P11-P14: random reads or writes, or how sequential they were. P11
/// and P13 are held back, as P05-P08 are, when that direction's requests
/// took under `min_time` in all (an image loader whose decoder reads each
/// file's header, then the file from its start: 2,942 "random" reads in
/// 38 ms).
fn random_or_sequential(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let (reads, writes) = (p.sum("POSIX_READS"), p.sum("POSIX_WRITES"));
    for (total, seq, consec, what, codes, spent) in [
        (reads, p.sum("POSIX_SEQ_READS"), p.sum("POSIX_CONSEC_READS"), "read", ("P11", "P12"), p.times[0]),
        (writes, p.sum("POSIX_SEQ_WRITES"), p.sum("POSIX_CONSEC_WRITES"), "write", ("P13", "P14"), p.times[1]),
    ] {
        if total == 0 {
            continue;
        }
        let random = total - seq;
        let many = random > 0
            && ratio(random, total) > t("random_operations")
            && random as f64 > t("random_operations_absolute");
        if many {
            if !random_withheld(cx, codes.0, (random, total, what), spent) {
                out.push(random_finding(cx, codes.0, what, (consec, seq, random, total)));
            }
            continue;
        }
        // Drishti says "mostly consecutive and sequential" here even
        // when most requests are random but too few to matter; say
        // what the shares are instead.
        let shares = format!(
            "{} consecutive, {} sequential with gaps, {} random",
            pct(consec, total),
            pct(seq - consec, total),
            pct(random, total)
        );
        let title = if ratio(random, total) > t("random_operations") {
            format!(
                "{what} requests: {shares} ({} random, under the {} that would matter)",
                count(random),
                count(t("random_operations_absolute") as i64)
            )
        } else {
            format!("Sequential {what} requests: {shares}")
        };
        out.push(finding(codes.1, Level::Ok, capitalized(&title), vec![], None));
    }
}

/// P11/P13: many random requests of one direction.
fn random_finding(cx: &Ctx, code: &str, what: &str, (consec, seq, random, total): (i64, i64, i64, i64)) -> Finding {
    finding(
        code,
        Level::High,
        format!("High number ({}) of random {what} operations ({})", count(random), pct(random, total)),
        vec![format!(
            "{} consecutive, {} sequential with gaps, {} random of {}",
            count(consec),
            count(seq - consec),
            count(random),
            count(total)
        )],
        Some(cx.advice(
            "Access files sequentially in large requests, or use collective I/O to reorder requests",
            "Access files sequentially in large requests (read whole samples or records, in order)",
        )),
    )
}

/// A P11/P13 held back, and why: all the requests of that direction took
/// too little time to be the job's problem. Not by volume: a random
/// request costs a seek or a server round trip whatever its size.
fn random_withheld(cx: &Ctx, code: &str, (random, total, what): (i64, i64, &str), spent: f64) -> bool {
    if spent >= cx.min_time() {
        return false;
    }
    cx.withhold(
        code,
        format!(
            "{} random {what}s ({}), but all {} {what}s took {} (every process together): under the {} a finding \
             about time needs",
            count(random),
            pct(random, total),
            count(total),
            crate::units::secs(spent),
            crate::units::secs(cx.min_time())
        ),
    );
    true
}

/// P08: requests misaligned in the file, counted only on files whose
/// alignment is larger than a page (a parallel file system's block or
/// stripe): on a local file system the page cache absorbs misalignment.
fn misaligned_in_file(cx: &Ctx, ops: i64, moved: i64, spent: f64, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let (mut wide, mut paged) = (0i64, 0i64);
    for e in cx.files_of(modules::POSIX) {
        let (n, align) = e.file_alignment();
        if align > PAGE {
            wide += n;
        } else {
            paged += n;
        }
    }
    let all = wide + paged;
    if ops == 0 || all as f64 / ops as f64 <= t("misaligned_requests") {
        return;
    }
    if (moved as f64) < cx.min_volume() {
        cx.withhold(
            "P08",
            format!("{} requests misaligned in the file, but {} moved in all", count(all), b(moved as f64)),
        );
        return;
    }
    if spent < cx.min_time() {
        cx.withhold(
            "P08",
            format!(
                "{} of {} requests misaligned in the file, but all reads and writes took {} (every process together)",
                count(all),
                count(ops),
                crate::units::secs(spent)
            ),
        );
        return;
    }
    if wide as f64 / ops as f64 <= t("misaligned_requests") {
        cx.withhold(
            "P08",
            format!(
                "{} of {} requests are misaligned, {} of them on files aligned to the {} page of a local file system, where the page cache absorbs it",
                count(all),
                count(ops),
                count(paged),
                b(PAGE as f64)
            ),
        );
        return;
    }
    let mut ev = vec![format!("{} of {} requests are not aligned to their file's alignment", count(wide), count(ops))];
    if let Some(s) = cx.lustre_stripe_sizes().first() {
        ev.push(format!("Lustre stripe size {}", b(*s as f64)));
    }
    out.push(finding(
        "P08",
        Level::High,
        format!("High number of requests misaligned in the file ({})", pct(wide, ops)),
        ev,
        Some("Make request offsets and sizes multiples of the file system block or stripe size"),
    ));
}

/// P09/P10: data read (written) beyond a file's extent, that is more than
/// once. Drishti's condition (the highest offset exceeds the bytes moved)
/// fires on sparse access instead; when only it holds, the rule is held
/// back with why.
/// One direction of P09/P10: code, direction, bytes moved, the file's
/// bytes of that direction, (highest offset, size), and the advice.
type RedundantKind = (&'static str, &'static str, i64, fn(&FileAgg) -> i64, fn(&FileAgg) -> (i64, i64), &'static str);

fn redundant(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let kinds: [RedundantKind; 2] = [
        (
            "P09",
            "read",
            p.sum("POSIX_BYTES_READ"),
            FileAgg::reread_bytes,
            |e| (e.bytes_read(), e.max_byte_read),
            cx.advice(
                "Read each part of a file once and keep it in memory, or read it on one rank and distribute it (MPI_Bcast)",
                "Keep data read more than once in memory, or copy it to node-local storage (or memory) once and read it from there",
            ),
        ),
        (
            "P10",
            "written",
            p.sum("POSIX_BYTES_WRITTEN"),
            FileAgg::rewritten_bytes,
            |e| (e.bytes_written(), e.max_byte_written),
            "Write each part of a file once: buffer updates in memory and write them when final",
        ),
    ];
    for (code, what, moved, extra, of, rec) in kinds {
        let files: Vec<(f64, &FileAgg)> =
            cx.files_of(modules::POSIX).map(|e| (extra(e) as f64, e)).filter(|(x, _)| *x > 0.0).collect();
        let total: f64 = files.iter().map(|(x, _)| x).sum();
        let highest = cx.files_of(modules::POSIX).map(|e| of(e).1).max().unwrap_or(-1);
        if total >= cx.min_volume() {
            let mut ev =
                vec![format!("{} {what} beyond the extent of {}", b(total), counted(files.len() as i64, "file"))];
            ev.extend(cx.worst(files, |name, e, _| {
                let (moved, max) = of(e);
                format!("{name}: {} {what}, extent {}", b(moved as f64), b((max + 1) as f64))
            }));
            out.push(finding(
                code,
                Level::Warn,
                format!("Redundant traffic: {} {what} more than once", b(total)),
                ev,
                Some(rec),
            ));
        } else if total > 0.0 {
            cx.withhold(
                code,
                format!("{} {what} beyond files' extents: under the {} a finding needs", b(total), b(cx.min_volume())),
            );
        } else if highest > moved {
            sparse_withheld(cx, code, what, highest, moved);
        }
    }
}

/// Drishti's P09/P10 condition (the highest offset past the bytes moved)
/// held back: true of sparse access, which moves nothing twice.
fn sparse_withheld(cx: &Ctx, code: &str, what: &str, highest: i64, moved: i64) {
    // Exact bytes where the rounded sizes read alike ("800.00 MiB exceeds
    // 800.00 MiB": gfortran's record markers).
    let (h, m) = (b(highest as f64), b(moved as f64));
    let (h, m) = if h == m { (format!("{} B", count(highest)), format!("{} B", count(moved))) } else { (h, m) };
    cx.withhold(
        code,
        format!(
            "the highest offset {what} ({h}) exceeds the bytes {what} ({m}) because accesses skip parts of files (sparse), which is not redundant traffic; no file is {what} beyond its extent"
        ),
    );
}

/// "the" → "The".
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// P15-P19: the files every rank shares.
fn shared_posix(cx: &Ctx, out: &mut Vec<Finding>) {
    let shared: Vec<&FileAgg> = cx.files_of(modules::POSIX).filter(|e| e.ranks() == -1).collect();
    if shared.is_empty() {
        return;
    }
    super::small::shared(cx, &shared, out);
    let aggregated = stragglers(cx, &shared, out);
    aggregation(cx, aggregated, out);
}

/// P18/P19, stragglers: how far apart the fastest and slowest rank are,
/// in bytes and in time, against the file's total. The files accessed
/// only through collective MPI-IO are given back (see `aggregation`).
fn stragglers<'a>(cx: &Ctx<'a>, shared: &[&'a FileAgg], out: &mut Vec<Finding>) -> Vec<(f64, &'a FileAgg)> {
    let t = |k: &str| cx.cfg.get(k);
    type Straggler = (&'static str, &'static str, &'static str, &'static str, fn(&FileAgg) -> Option<f64>);
    let stragglers: [Straggler; 2] = [
        (
            "P18",
            "Data transfer",
            "bytes",
            "Balance the data each rank moves to shared files, or use collective I/O",
            |e| {
                let total = e.bytes_read() + e.bytes_written();
                (total != 0).then(|| (e.slowest.2 - e.fastest.2).abs() as f64 / total as f64)
            },
        ),
        ("P19", "Time", "time", "Balance the work on shared files across ranks, or use collective I/O", |e| {
            (e.io_time != 0.0).then(|| (e.slowest.1 - e.fastest.1).abs() / e.io_time)
        }),
    ];
    let mut aggregated: Vec<(f64, &FileAgg)> = Vec::new();
    for (code, kind, what, rec, ratio) in stragglers {
        let all: Vec<(f64, &FileAgg)> = shared
            .iter()
            .filter_map(|e| ratio(e).filter(|d| *d > t("imbalance_stragglers")).map(|d| (d, *e)))
            .collect();
        let hits = refute_imbalance(cx, code, all, &mut aggregated);
        if !hits.is_empty() {
            out.push(finding(
                code,
                Level::High,
                format!("{kind} imbalance between ranks on {} (stragglers)", counted(hits.len() as i64, "shared file")),
                pct_lines(cx, hits, &format!("{what} difference between the fastest and slowest rank")),
                Some(rec),
            ));
        }
    }
    aggregated
}

/// The files of an imbalance rule that stand: files accessed only through
/// collective MPI-IO go to `aggregated` (the library's aggregators do
/// their file I/O, unevenly by design) and files under `min_volume` are
/// dropped; the rule is held back, with why, when nothing stands.
fn refute_imbalance<'a>(
    cx: &Ctx,
    code: &str,
    all: Vec<(f64, &'a FileAgg)>,
    aggregated: &mut Vec<(f64, &'a FileAgg)>,
) -> Vec<(f64, &'a FileAgg)> {
    let n = all.len();
    let (mut collective, mut small, mut brief) = (0, 0, 0);
    let mut hits = Vec::new();
    for (d, e) in all {
        // How far apart the slowest and fastest rank are in time: an
        // imbalance of milliseconds costs the job nothing.
        let fastest = if e.fastest.1.is_finite() { e.fastest.1 } else { 0.0 };
        let gap = (e.slowest.1 - fastest).abs();
        if cx.collective_only(e.id) {
            collective += 1;
            if !aggregated.iter().any(|(_, a)| a.id == e.id) {
                aggregated.push((d, e));
            }
        } else if ((e.bytes_read() + e.bytes_written()) as f64) < cx.min_volume() {
            small += 1;
        } else if code == "P19" && gap < cx.min_time() {
            brief += 1;
        } else {
            hits.push((d, e));
        }
    }
    if hits.is_empty() && n > 0 {
        let mut why = Vec::new();
        if collective > 0 {
            why.push(format!(
                "{collective} accessed only through collective MPI-IO, whose aggregators do the file I/O (M11)"
            ));
        }
        if small > 0 {
            why.push(format!("{small} moving under {}", b(cx.min_volume())));
        }
        if brief > 0 {
            why.push(format!(
                "{brief} where the slowest rank is under {} behind the fastest",
                crate::units::secs(cx.min_time())
            ));
        }
        cx.withhold(code, format!("imbalance on {}: {}", counted(n as i64, "file"), why.join("; ")));
    }
    hits
}

/// M11: shared files whose uneven split between ranks is collective
/// buffering at work. The aggregator count comes from the MPI-IO hints
/// (cb_nodes) when the log has them; the split from the POSIX record's
/// fastest and slowest rank.
fn aggregation(cx: &Ctx, files: Vec<(f64, &FileAgg)>, out: &mut Vec<Finding>) {
    if files.is_empty() {
        return;
    }
    let n = files.len();
    let mut ev = Vec::new();
    if let Some(cb) = cx.cb_nodes() {
        ev.push(format!(
            "the MPI-IO hints set cb_nodes={cb}: at most {} when the library buffers collectively (it may instead let each rank write its own contiguous part)",
            counted(cb, "aggregator")
        ));
    }
    ev.extend(cx.worst(files, |name, e, _| {
        let moved = e.bytes_read() + e.bytes_written();
        if e.slowest.0 >= 0 && e.slowest.2 > 0 {
            format!(
                "{name}: rank {} moved {} of the file's {} through POSIX ({}), rank {} moved {}",
                e.slowest.0,
                b(e.slowest.2 as f64),
                b(moved as f64),
                pct(e.slowest.2, moved),
                e.fastest.0,
                b(e.fastest.2 as f64)
            )
        } else {
            format!("{name}: {} through POSIX", b(moved as f64))
        }
    }));
    out.push(finding(
        "M11",
        Level::Info,
        format!(
            "Collective I/O: the MPI library's aggregators do the file I/O of {}, so ranks' shares differ by design",
            counted(n as i64, "shared file")
        ),
        ev,
        None,
    ));
}

fn per_rank_imbalance(cx: &Ctx, out: &mut Vec<Finding>) {
    let t = cx.cfg.get("imbalance_size");
    let diff = |mm: Option<(i64, i64)>| mm.and_then(|(lo, hi)| (hi != 0).then(|| (hi - lo).abs() as f64 / hi as f64));
    for (code, what, get) in [
        ("P21", "write", (|e: &FileAgg| e.rank_extremes().0) as fn(&FileAgg) -> Option<(i64, i64)>),
        ("P22", "read", |e: &FileAgg| e.rank_extremes().1),
    ] {
        let all: Vec<(f64, &FileAgg)> =
            cx.files_of(modules::POSIX).filter_map(|e| diff(get(e)).filter(|d| *d > t).map(|d| (d, e))).collect();
        let hits = refute_imbalance(cx, code, all, &mut Vec::new());
        // A data loader's processes take samples from every file as they
        // come, pass after pass: how one file's bytes fall among them says
        // nothing of the work's balance (the processes view shows that).
        if !hits.is_empty() && code == "P22" && !cx.mpi && super::epochs::passes(cx).is_some() {
            cx.withhold(code, "the job reads its data set pass after pass without MPI (E01): a loader's processes share every file by sample, so per-file read shares are not a balance of work; per-process totals are in the Processes section".into());
            continue;
        }
        if !hits.is_empty() {
            out.push(finding(
                code,
                Level::High,
                format!("Size imbalance of individual {what}s between ranks on {}", counted(hits.len() as i64, "file")),
                pct_lines(cx, hits, &format!("difference between the smallest and largest rank's bytes {what}")),
                Some("Give each rank a similar share of the data"),
            ));
        }
    }
}

/// MPI-IO's findings (M02-M10).
fn mpiio(cx: &Ctx, out: &mut Vec<Finding>) {
    let m = cx.sums(modules::MPIIO).expect("checked");
    collective(cx, m, out);
    non_blocking(cx, m, out);
    aggregators(cx, out);
}

/// M02-M05: collective reads and writes, or none.
fn collective(cx: &Ctx, m: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    for (code_no, code_yes, indep, coll, what) in [
        ("M02", "M04", m.sum("MPIIO_INDEP_READS"), m.sum("MPIIO_COLL_READS"), "read"),
        ("M03", "M05", m.sum("MPIIO_INDEP_WRITES"), m.sum("MPIIO_COLL_WRITES"), "write"),
    ] {
        let total = indep + coll;
        if coll == 0 {
            if total > 0 && total as f64 > t("collective_operations_absolute") {
                let pick = |e: &FileAgg| if what == "read" { e.mpiio_ops().0 } else { e.mpiio_ops().1 };
                let files: Vec<(f64, &FileAgg)> = cx
                    .files_of(modules::MPIIO)
                    .filter_map(|e| {
                        let all = e.mpiio_ops().0 + e.mpiio_ops().1;
                        let share = pick(e) as f64 / all as f64;
                        (all > 0
                            && share > t("collective_operations")
                            && all as f64 > t("collective_operations_absolute"))
                        .then_some((share, e))
                    })
                    .collect();
                let mut ev = vec![format!("{indep} independent {what} calls, no collective ones")];
                ev.extend(pct_lines(cx, files, &format!("share of independent {what}s")));
                out.push(finding(
                    code_no,
                    Level::High,
                    format!("MPI-IO without collective {what}s ({indep} independent calls)"),
                    ev,
                    Some(if what == "read" {
                        "Use collective reads (MPI_File_read_all, MPI_File_read_at_all)"
                    } else {
                        "Use collective writes (MPI_File_write_all, MPI_File_write_at_all)"
                    }),
                ));
            }
        } else {
            out.push(finding(
                code_yes,
                Level::Ok,
                format!("MPI-IO collective {what}s: {} ({} of {what}s)", count(coll), pct(coll, total)),
                vec![],
                None,
            ));
        }
    }
}

/// M06/M07: no non-blocking MPI-IO (a suggestion, where enough moved).
fn non_blocking(cx: &Ctx, m: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let hdf5 = cx.module_present("H5F")
        || cx.files_of(modules::MPIIO).any(|e| {
            let n = name_of(cx.names, e.id);
            n.ends_with(".h5") || n.ends_with(".hdf5")
        });
    for (code, nb, what, moved) in [
        ("M06", m.sum("MPIIO_NB_READS"), "read", m.sum("MPIIO_BYTES_READ")),
        ("M07", m.sum("MPIIO_NB_WRITES"), "written", m.sum("MPIIO_BYTES_WRITTEN")),
    ] {
        if nb == 0 && (moved as f64) < cx.min_volume() {
            cx.withhold(code, format!("no non-blocking MPI-IO, but only {} {what} through MPI-IO", b(moved as f64)));
        } else if nb == 0 {
            let rec = if hdf5 {
                "Consider HDF5's asynchronous I/O VOL connector, or non-blocking MPI-IO"
            } else {
                "Consider non-blocking MPI-IO (MPI_File_i* or split collectives) to overlap I/O and computation"
            };
            out.push(finding(
                code,
                // A suggestion, not a fault: blocking I/O is correct.
                Level::Info,
                format!(
                    "No non-blocking MPI-IO {} ({} {what}, all blocking)",
                    if what == "read" { "reads" } else { "writes" },
                    b(moved as f64)
                ),
                vec![],
                Some(rec),
            ));
        }
    }
}

/// M08-M10: MPI-IO aggregators against compute nodes.
fn aggregators(cx: &Ctx, out: &mut Vec<Finding>) {
    if let (Some(cb), Some(nodes)) = (cx.cb_nodes(), cx.nodes()) {
        let (code, level, title) = if cb > nodes {
            (
                "M09",
                Level::High,
                format!("More MPI-IO aggregators ({cb}) than compute nodes ({nodes}): several per node"),
            )
        } else if cb < nodes {
            ("M08", Level::Ok, format!("Fewer MPI-IO aggregators ({cb}) than compute nodes ({nodes})"))
        } else {
            ("M10", Level::Ok, format!("One MPI-IO aggregator per compute node ({nodes})"))
        };
        out.push(finding(code, level, title, vec!["nodes counted from DXT host names".into()], None));
    }
}

/// Evidence lines "file: what N%" for the files with the largest ratios.
fn pct_lines(cx: &Ctx, v: Vec<(f64, &FileAgg)>, what: &str) -> Vec<String> {
    cx.worst(v, |name, _, d| format!("{name}: {what} {:.1}%", d * 100.0))
}
