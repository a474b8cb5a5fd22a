//! io_uring findings, from the IO_URING module (ours): the codes U01-U03.
//!
//! * U01: the rings never had more than one request in flight, over at
//!   least `small_requests_absolute` reads and writes that waited at least
//!   `min_time` in all: io_uring used as synchronous I/O. Said only where
//!   every request and completion was read (none unobserved or unseen),
//!   since the depth is then exact; with one request at a time the
//!   latencies do not overlap, so their sum is the time the program
//!   waited.
//! * U02: at least half of the reads and writes are of 100 KiB or less
//!   (the bucket above, 100K_1M, holds the requests of exactly 1 MiB
//!   too, which are not small), more than
//!   `small_requests_absolute`, and at least half of all start where the
//!   one before ended: requests that could be fewer and larger. Random
//!   small requests are what a ring is for and are not a finding.
//! * U03: one request took at least `uring_stall` seconds from submission
//!   to completion: a stall worth knowing of (information).
//!
//! Each needs at least `min_volume` bytes moved, as every volume finding.

use crate::diagnose::{counted, finding, pct, Config, WORST};
use crate::model::{Finding, IoUring, Level};
use crate::units::{bytes, count, secs};

pub fn findings(u: &IoUring, cfg: &Config) -> Vec<Finding> {
    let moved = (u.bytes_read.saturating_add(u.bytes_written)) as f64;
    if moved < cfg.get("min_volume") {
        return Vec::new();
    }
    [one_at_a_time(u, cfg), small_in_order(u, cfg), stall(u, cfg)].into_iter().flatten().collect()
}

fn one_at_a_time(u: &IoUring, cfg: &Config) -> Option<Finding> {
    let r = u.rings.as_ref()?;
    let requests = u.reads + u.writes;
    let exact = u.unobserved == 0 && u.completions_unseen == 0;
    let enough = requests as f64 >= cfg.get("small_requests_absolute") && u.latency_sum >= cfg.get("min_time");
    if !(exact && enough && r.max_inflight == 1) {
        return None;
    }
    let mut ev = vec![
        format!(
            "{} reads and writes through {}, never more than one in flight",
            count(requests),
            counted(r.rings, "ring")
        ),
        format!("they waited {} in all, one after the other", secs(u.latency_sum)),
    ];
    if r.submit_calls > 0 {
        ev.push(format!("{} submitted them: {:.1} requests per call", counted(r.submit_calls, "call"), r.per_call));
    }
    Some(finding(
        "U01",
        Level::Warn,
        "io_uring used one request at a time".to_string(),
        ev,
        Some(
            "Keep several requests in flight: queue a batch of entries before submitting, and reap completions as \
             they arrive (io_uring_peek_batch_cqe) instead of waiting for each; one request at a time gets no more \
             from the disk than pread/pwrite",
        ),
    ))
}

fn small_in_order(u: &IoUring, cfg: &Config) -> Option<Finding> {
    let requests = u.reads + u.writes;
    let many = u.small as f64 > cfg.get("small_requests_absolute") && 2 * u.small >= requests;
    if !(many && 2 * u.consecutive >= requests) {
        return None;
    }
    let mut ev = vec![
        format!(
            "{} of {} reads and writes are of 100 KiB or less ({})",
            count(u.small),
            count(requests),
            pct(u.small, requests)
        ),
        format!("{} start where the one before ended ({})", count(u.consecutive), pct(u.consecutive, requests)),
    ];
    ev.extend(
        u.by_small
            .iter()
            .take(WORST)
            .map(|f| format!("{} small requests to {} ({} consecutive)", count(f.small), f.path, count(f.consecutive))),
    );
    if u.by_small.len() > WORST {
        ev.push("and more files".to_string());
    }
    Some(finding(
        "U02",
        Level::Warn,
        format!("{} small io_uring requests, mostly in file order", count(u.small)),
        ev,
        Some(
            "Ask for more per request: consecutive small reads or writes of one file can be one larger request \
             (or one readv/writev of the buffers), which the ring completes with less work per byte",
        ),
    ))
}

fn stall(u: &IoUring, cfg: &Config) -> Option<Finding> {
    if u.max_latency < cfg.get("uring_stall") {
        return None;
    }
    Some(finding(
        "U03",
        Level::Info,
        format!("An io_uring request took {} from submission to completion", secs(u.max_latency)),
        vec![
            format!(
                "mean {} per read, {} per write, over {} and {}",
                secs(u.read_latency),
                secs(u.write_latency),
                counted(u.reads, "read"),
                counted(u.writes, "write")
            ),
            format!("{} moved through rings in {}", bytes((u.bytes_read + u.bytes_written) as f64), secs(u.span)),
        ],
        None,
    ))
}
