//! Lustre striping advice, from LUSTRE records joined to the POSIX view of
//! the same files: stripe count against file size and sharing, stripe size
//! against request sizes.

use darshan_log::modules;

use super::{finding, Ctx};
use crate::files::FileAgg;
use crate::model::{Finding, Level};
use crate::units;

pub fn advice(cx: &Ctx) -> Vec<Finding> {
    let c = Candidates::of(cx);
    [single_ost(cx, c.few), small_requests(cx, c.small_req), wide_small(cx, c.wide_small)]
        .into_iter()
        .flatten()
        .collect()
}

/// Each rule's files, keyed by how far they are from the advice.
#[derive(Default)]
struct Candidates<'a> {
    /// Large shared files on one OST, by size.
    few: Vec<(f64, &'a FileAgg)>,
    /// Shared files read or written in requests under a quarter of the
    /// stripe size, by how many requests make a stripe.
    small_req: Vec<(f64, &'a FileAgg)>,
    /// Files smaller than a stripe over several OSTs, by stripe count.
    wide_small: Vec<(f64, &'a FileAgg)>,
}

impl<'a> Candidates<'a> {
    fn of(cx: &Ctx<'a>) -> Candidates<'a> {
        let mut c = Candidates::default();
        for (id, s) in cx.lustre {
            // Software loading and the MPI library's own files: not the
            // application's to stripe.
            if cx.internal.contains(id) || (cx.software.contains(id) && !cx.as_drishti.get()) {
                continue;
            }
            let Some(e) = cx.files.get(modules::POSIX, *id) else { continue };
            let size = size_of(e);
            let ops = e.reads + e.writes;
            if s.stripe_count == 1 && e.shared() && size as f64 > cx.cfg.get("lustre_large_file") {
                c.few.push((size as f64, e));
            }
            if e.shared() && ops > 0 && s.stripe_size > 0 {
                let avg = (e.bytes_read() + e.bytes_written()) / ops;
                if avg > 0 && avg < s.stripe_size / 4 {
                    c.small_req.push((s.stripe_size as f64 / avg as f64, e));
                }
            }
            if s.stripe_count > 1 && size > 0 && size < s.stripe_size {
                c.wide_small.push((s.stripe_count as f64, e));
            }
        }
        c
    }
}

/// L01: large shared files striped over a single OST.
fn single_ost(cx: &Ctx, few: Vec<(f64, &FileAgg)>) -> Option<Finding> {
    (!few.is_empty()).then(|| {
        finding(
            "L01",
            Level::Warn,
            format!("{} striped over a single OST", super::counted(few.len() as i64, "large shared file")),
            cx.worst(few, |name, e, size| {
                format!("{name}: {} on 1 stripe, used by {} ranks", units::bytes(size), ranks(e.ranks(), cx.nprocs))
            }),
            Some("Stripe large shared files over more OSTs (lfs setstripe -c 8 or -c -1 on the output directory)"),
        )
    })
}

/// L02's advice to a job with MPI-IO, and to one without.
const L02_ADVICE_MPI: &str =
    "Make requests a multiple of the stripe size (collective buffering does this), or lower the \
     stripe size to the request size";
const L02_ADVICE: &str = "Make requests a multiple of the stripe size, or lower the stripe size to the request size";

/// L02: shared files accessed in requests much smaller than a stripe.
fn small_requests(cx: &Ctx, small_req: Vec<(f64, &FileAgg)>) -> Option<Finding> {
    (!small_req.is_empty()).then(|| {
        finding(
            "L02",
            Level::Warn,
            format!(
                "{} accessed in requests much smaller than the stripe size",
                super::counted(small_req.len() as i64, "shared file")
            ),
            cx.worst(small_req, |name, e, _| {
                let avg = (e.bytes_read() + e.bytes_written()) / (e.reads + e.writes);
                format!(
                    "{name}: average request {}, stripe size {}",
                    units::bytes(avg as f64),
                    units::bytes(stripes(cx, e).stripe_size as f64)
                )
            }),
            Some(cx.advice(L02_ADVICE_MPI, L02_ADVICE)),
        )
    })
}

/// L03: files smaller than one stripe but striped over several OSTs.
fn wide_small(cx: &Ctx, wide_small: Vec<(f64, &FileAgg)>) -> Option<Finding> {
    (!wide_small.is_empty()).then(|| {
        finding(
            "L03",
            Level::Info,
            format!(
                "{} smaller than one stripe but striped over several OSTs",
                super::counted(wide_small.len() as i64, "file")
            ),
            cx.worst(wide_small, |name, e, _| {
                let s = stripes(cx, e);
                format!(
                    "{name}: {} over {} stripes of {}",
                    units::bytes(size_of(e) as f64),
                    s.stripe_count,
                    units::bytes(s.stripe_size as f64)
                )
            }),
            Some("Use a stripe count of 1 for small files (lfs setstripe -c 1) to spare OST round trips"),
        )
    })
}

/// The striping of a file the rules picked (they only pick striped ones).
fn stripes(cx: &Ctx, e: &FileAgg) -> super::Striping {
    cx.lustre.get(&e.id).copied().unwrap_or_default()
}

/// A file's size estimated from the highest offset accessed.
fn size_of(e: &FileAgg) -> i64 {
    e.max_byte_read.max(e.max_byte_written) + 1
}

fn ranks(r: i64, nprocs: i64) -> String {
    if r == -1 {
        format!("all {nprocs}")
    } else {
        r.to_string()
    }
}
