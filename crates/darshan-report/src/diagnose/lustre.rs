//! Lustre striping advice, from LUSTRE records joined to the POSIX view of
//! the same files: stripe count against file size and sharing, stripe size
//! against request sizes.

use darshan_log::modules;

use super::{finding, Ctx};
use crate::files::FileAgg;
use crate::model::{Finding, Level};

pub fn advice(cx: &Ctx) -> Vec<Finding> {
    // Each rule's files, keyed by how far they are from the advice.
    let mut few = Vec::new();
    let mut small_req = Vec::new();
    let mut wide_small = Vec::new();
    for (id, s) in cx.lustre {
        let Some(e) = cx.files.get(modules::POSIX, *id) else { continue };
        let size = size_of(e);
        let ops = e.reads + e.writes;
        if s.stripe_count == 1 && e.shared() && size as f64 > cx.cfg.get("lustre_large_file") {
            few.push((size as f64, e));
        }
        if e.shared() && ops > 0 && s.stripe_size > 0 {
            let avg = (e.bytes_read() + e.bytes_written()) / ops;
            if avg > 0 && avg < s.stripe_size / 4 {
                small_req.push((s.stripe_size as f64 / avg as f64, e));
            }
        }
        if s.stripe_count > 1 && size > 0 && size < s.stripe_size {
            wide_small.push((s.stripe_count as f64, e));
        }
    }
    let stripes = |e: &FileAgg| cx.lustre.get(&e.id).copied().unwrap_or_default();
    let mut out = Vec::new();
    if !few.is_empty() {
        out.push(finding(
            "L01",
            Level::Warn,
            format!("{} large shared files are striped over a single OST", few.len()),
            cx.worst(few, |name, e, size| {
                format!("{name}: {size} bytes on 1 stripe, used by {} ranks", ranks(e.ranks(), cx.nprocs))
            }),
            Some("Stripe large shared files over more OSTs (lfs setstripe -c 8 or -c -1 on the output directory)"),
        ));
    }
    if !small_req.is_empty() {
        out.push(finding(
            "L02",
            Level::Warn,
            format!("{} shared files are accessed in requests much smaller than their stripe size", small_req.len()),
            cx.worst(small_req, |name, e, _| {
                let avg = (e.bytes_read() + e.bytes_written()) / (e.reads + e.writes);
                format!("{name}: average request {avg} bytes, stripe size {}", stripes(e).stripe_size)
            }),
            Some("Make requests a multiple of the stripe size (collective buffering does this), or lower the stripe size to the request size"),
        ));
    }
    if !wide_small.is_empty() {
        out.push(finding(
            "L03",
            Level::Info,
            format!("{} files smaller than one stripe are striped over several OSTs", wide_small.len()),
            cx.worst(wide_small, |name, e, _| {
                let s = stripes(e);
                format!("{name}: {} bytes over {} stripes of {}", size_of(e), s.stripe_count, s.stripe_size)
            }),
            Some("Use a stripe count of 1 for small files (lfs setstripe -c 1) to spare OST round trips"),
        ));
    }
    out
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
