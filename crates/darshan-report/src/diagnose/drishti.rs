//! Drishti's insights (drishti-io 0.8, handlers/handle_darshan.py and
//! includes/module.py): the same codes, conditions and default thresholds,
//! each finding with its numbers and the files behind it.
//! Differences (docs/report.md): M08-M10 need the node count, which Drishti
//! asks SLURM's `sacct` for; we count DXT host names instead and stay
//! silent without DXT. Backtraces (a Darshan fork's DXT column) are not
//! read.

use darshan_log::modules;

use super::{finding, pct, Ctx};
use crate::files::{name_of, FileAgg};
use crate::model::{Finding, Level};

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
        out.push(finding(
            "S01",
            Level::High,
            format!("STDIO moves {} of the job's data ({} of {} bytes)", pct(stdio, total), stdio, total),
            vec![],
            Some("Use a high-performance interface such as MPI-IO (or POSIX with large requests) for bulk data"),
        ));
    }
    if !cx.module_present("MPI-IO") {
        out.push(finding(
            "M01",
            Level::Warn,
            "The application does not use MPI-IO".into(),
            vec![],
            Some("Consider a high-performance parallel interface (MPI-IO, or HDF5/PnetCDF over it)"),
        ));
    }
}

fn posix(cx: &Ctx, p: &crate::modstats::ModuleSums, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let reads = p.sum("POSIX_READS");
    let writes = p.sum("POSIX_WRITES");
    let ops = reads + writes;
    let ratio = |a: i64, b: i64| if b == 0 { f64::INFINITY } else { a as f64 / b as f64 };
    // Thresholds are never negative, so passing one means reads ≠ writes.
    if ops > 0 && (writes - reads).abs() as f64 / ops as f64 > t("imbalance_operations") {
        let (code, what) = if writes > reads { ("P01", "write") } else { ("P02", "read") };
        out.push(finding(
            code,
            Level::Info,
            format!(
                "Operation-intensive: {} {what}s ({} of {ops} operations)",
                writes.max(reads),
                pct(writes.max(reads), ops)
            ),
            vec![format!("{reads} reads, {writes} writes")],
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
            vec![format!("{br} bytes read, {bw} bytes written")],
            None,
        ));
    }
    let (small_r, small_w) = p.small();
    for (code, n, total, what, key) in [
        ("P05", small_r, reads, "read", (|e: &FileAgg| e.small().0) as fn(&FileAgg) -> i64),
        ("P06", small_w, writes, "write", |e: &FileAgg| e.small().1),
    ] {
        if n > 0 && ratio(n, total) > t("small_requests") && n as f64 > t("small_requests_absolute") {
            // Drishti names the files with over half the ratio's share.
            let floor = total as f64 * t("small_requests") / 2.0;
            let files = cx.files_of(modules::POSIX).map(|e| (key(e) as f64, e)).filter(|(k, _)| *k > floor).collect();
            let mut ev = vec![format!("{n} of {total} {what} requests are under 1 MiB ({})", pct(n, total))];
            ev.extend(cx.worst(files, |name, _, k| format!("{k} small {what}s to {name}")));
            let rec = if cx.module_present("MPI-IO") {
                "Use collective MPI-IO operations (MPI_File_read_all, MPI_File_write_all) or aggregate requests into larger ones"
            } else {
                "Aggregate small requests into larger ones, or use MPI-IO collective I/O"
            };
            out.push(finding(
                code,
                Level::High,
                format!("High number ({n}) of small {what} requests (< 1 MiB)"),
                ev,
                Some(rec),
            ));
        }
    }
    let mem = p.sum("POSIX_MEM_NOT_ALIGNED");
    let file = p.sum("POSIX_FILE_NOT_ALIGNED");
    if ops > 0 && mem as f64 / ops as f64 > t("misaligned_requests") {
        out.push(finding(
            "P07",
            Level::High,
            format!("High number of requests misaligned in memory ({})", pct(mem, ops)),
            vec![format!("{mem} of {ops} requests")],
            Some("Align I/O buffers to the memory alignment (e.g. posix_memalign)"),
        ));
    }
    if ops > 0 && file as f64 / ops as f64 > t("misaligned_requests") {
        let mut ev = vec![format!("{file} of {ops} requests are not aligned to the file alignment")];
        if let Some(s) = cx.lustre_stripe_sizes().first() {
            ev.push(format!("Lustre stripe size {s} bytes"));
        }
        out.push(finding(
            "P08",
            Level::High,
            format!("High number of requests misaligned in the file ({})", pct(file, ops)),
            ev,
            Some("Make request offsets and sizes multiples of the file system block or stripe size"),
        ));
    }
    let max_read = cx.files_of(modules::POSIX).map(|e| e.max_byte_read).max().unwrap_or(-1);
    let max_write = cx.files_of(modules::POSIX).map(|e| e.max_byte_written).max().unwrap_or(-1);
    if max_read > br {
        out.push(finding(
            "P09",
            Level::Warn,
            "Possible redundant read traffic (the highest offset read exceeds the data read)".into(),
            vec![format!("max read offset {max_read}, bytes read {br}")],
            None,
        ));
    }
    if max_write > bw {
        out.push(finding(
            "P10",
            Level::Warn,
            "Possible redundant write traffic (the highest offset written exceeds the data written)".into(),
            vec![format!("max write offset {max_write}, bytes written {bw}")],
            None,
        ));
    }
    for (total, seq, consec, what, random_code, seq_code) in [
        (reads, p.sum("POSIX_SEQ_READS"), p.sum("POSIX_CONSEC_READS"), "read", "P11", "P12"),
        (writes, p.sum("POSIX_SEQ_WRITES"), p.sum("POSIX_CONSEC_WRITES"), "write", "P13", "P14"),
    ] {
        if total == 0 {
            continue;
        }
        let random = total - seq;
        if random > 0
            && ratio(random, total) > t("random_operations")
            && random as f64 > t("random_operations_absolute")
        {
            out.push(finding(
                random_code,
                Level::High,
                format!("High number ({random}) of random {what} operations ({})", pct(random, total)),
                vec![format!("{consec} consecutive, {} sequential, {random} random of {total}", seq - consec)],
                Some("Access files sequentially in large requests, or use collective I/O to reorder requests"),
            ));
        } else {
            out.push(finding(
                seq_code,
                Level::Ok,
                format!(
                    "Mostly consecutive ({}) and sequential ({}) {what} requests",
                    pct(consec, total),
                    pct(seq - consec, total)
                ),
                vec![],
                None,
            ));
        }
    }
    shared_posix(cx, out);
    if cx.long_metadata_records > 0 {
        out.push(finding(
            "P17",
            Level::High,
            format!(
                "{} records spend over {} s in metadata operations",
                cx.long_metadata_records,
                t("metadata_time_rank")
            ),
            vec![],
            Some("Combine files, or reduce or cache metadata operations (opens, stats, seeks)"),
        ));
    }
    per_rank_imbalance(cx, out);
}

fn shared_posix(cx: &Ctx, out: &mut Vec<Finding>) {
    let t = |k: &str| cx.cfg.get(k);
    let shared: Vec<&FileAgg> = cx.files_of(modules::POSIX).filter(|e| e.ranks() == -1).collect();
    if shared.is_empty() {
        return;
    }
    let (mut reads, mut small_r, mut writes, mut small_w) = (0, 0, 0, 0);
    for e in &shared {
        reads += e.reads;
        small_r += e.small().0;
        writes += e.writes;
        small_w += e.small().1;
    }
    for (code, total, small, what) in [("P15", reads, small_r, "read"), ("P16", writes, small_w, "write")] {
        if total > 0 && small as f64 / total as f64 > t("small_requests") && small as f64 > t("small_requests_absolute")
        {
            out.push(finding(
                code,
                Level::High,
                format!("High number ({small}) of small {what} requests to shared files ({})", pct(small, total)),
                vec![],
                Some("Use MPI-IO collective operations so aggregators issue large requests to shared files"),
            ));
        }
    }
    // Stragglers: how far apart the fastest and slowest rank are, in
    // bytes (P18) and in time (P19), against the file's total.
    let stragglers: [(&str, &str, &str, &str, fn(&FileAgg) -> Option<f64>); 2] = [
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
    for (code, kind, what, rec, ratio) in stragglers {
        let hits: Vec<(f64, &FileAgg)> = shared
            .iter()
            .filter_map(|e| ratio(e).filter(|d| *d > t("imbalance_stragglers")).map(|d| (d, *e)))
            .collect();
        if !hits.is_empty() {
            out.push(finding(
                code,
                Level::High,
                format!("{kind} imbalance between ranks on {} shared files (stragglers)", hits.len()),
                pct_lines(cx, hits, &format!("{what} difference between the fastest and slowest rank")),
                Some(rec),
            ));
        }
    }
}

fn per_rank_imbalance(cx: &Ctx, out: &mut Vec<Finding>) {
    let t = cx.cfg.get("imbalance_size");
    let diff = |mm: Option<(i64, i64)>| mm.and_then(|(lo, hi)| (hi != 0).then(|| (hi - lo).abs() as f64 / hi as f64));
    for (code, what, get) in [
        ("P21", "write", (|e: &FileAgg| e.rank_extremes().0) as fn(&FileAgg) -> Option<(i64, i64)>),
        ("P22", "read", |e: &FileAgg| e.rank_extremes().1),
    ] {
        let hits: Vec<(f64, &FileAgg)> =
            cx.files_of(modules::POSIX).filter_map(|e| diff(get(e)).filter(|d| *d > t).map(|d| (d, e))).collect();
        if !hits.is_empty() {
            out.push(finding(
                code,
                Level::High,
                format!("Size imbalance of individual {what}s between ranks on {} files", hits.len()),
                pct_lines(cx, hits, &format!("difference between the smallest and largest rank's bytes {what}")),
                Some("Give each rank a similar share of the data"),
            ));
        }
    }
}

fn mpiio(cx: &Ctx, out: &mut Vec<Finding>) {
    let m = cx.sums(modules::MPIIO).expect("checked");
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
                format!("MPI-IO collective {what}s: {coll} ({} of {what}s)", pct(coll, total)),
                vec![],
                None,
            ));
        }
    }
    let hdf5 = cx.module_present("H5F")
        || cx.files_of(modules::MPIIO).any(|e| {
            let n = name_of(cx.names, e.id);
            n.ends_with(".h5") || n.ends_with(".hdf5")
        });
    for (code, nb, what) in [("M06", m.sum("MPIIO_NB_READS"), "read"), ("M07", m.sum("MPIIO_NB_WRITES"), "write")] {
        if nb == 0 {
            let rec = if hdf5 {
                "Consider HDF5's asynchronous I/O VOL connector, or non-blocking MPI-IO"
            } else {
                "Consider non-blocking MPI-IO (MPI_File_i* or split collectives) to overlap I/O and computation"
            };
            out.push(finding(
                code,
                Level::Warn,
                format!("The application could benefit from non-blocking {what}s"),
                vec![],
                Some(rec),
            ));
        }
    }
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
