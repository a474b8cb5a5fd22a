//! Lustre striping advice, from LUSTRE records joined to the POSIX view of
//! the same files: stripe count against file size and sharing, stripe size
//! against request sizes.

use darshan_log::modules;

use super::{finding, Ctx};
use crate::files::name_of;
use crate::model::{Finding, Level};

pub fn advice(cx: &Ctx) -> Vec<Finding> {
    let mut few = Vec::new();
    let mut small_req = Vec::new();
    let mut wide_small = Vec::new();
    let mut ids: Vec<&u64> = cx.lustre.keys().collect();
    ids.sort();
    for id in ids {
        let s = cx.lustre[id];
        let Some(e) = cx.files.get(modules::POSIX, *id) else { continue };
        let size = e.max_byte_read.max(e.max_byte_written) + 1;
        let ops = e.reads + e.writes;
        let name = name_of(cx.names, *id);
        if s.stripe_count == 1 && e.shared() && size as f64 > cx.cfg.get("lustre_large_file") {
            few.push(format!("{name}: {size} bytes on 1 stripe, used by {} ranks", ranks(e.ranks(), cx.nprocs)));
        }
        if e.shared() && ops > 0 && s.stripe_size > 0 {
            let avg = (e.bytes_read() + e.bytes_written()) / ops;
            if avg > 0 && avg < s.stripe_size / 4 {
                small_req.push(format!("{name}: average request {avg} bytes, stripe size {}", s.stripe_size));
            }
        }
        if s.stripe_count > 1 && size > 0 && size < s.stripe_size {
            wide_small.push(format!("{name}: {size} bytes over {} stripes of {}", s.stripe_count, s.stripe_size));
        }
    }
    let mut out = Vec::new();
    let list = |mut v: Vec<String>| {
        let n = v.len();
        v.truncate(5);
        if n > 5 {
            v.push(format!("and {} more files", n - 5));
        }
        v
    };
    if !few.is_empty() {
        out.push(finding(
            "L01",
            Level::Warn,
            format!("{} large shared files are striped over a single OST", few.len()),
            list(few),
            Some("Stripe large shared files over more OSTs (lfs setstripe -c 8 or -c -1 on the output directory)"),
        ));
    }
    if !small_req.is_empty() {
        out.push(finding(
            "L02",
            Level::Warn,
            format!("{} shared files are accessed in requests much smaller than their stripe size", small_req.len()),
            list(small_req),
            Some("Make requests a multiple of the stripe size (collective buffering does this), or lower the stripe size to the request size"),
        ));
    }
    if !wide_small.is_empty() {
        out.push(finding(
            "L03",
            Level::Info,
            format!("{} files smaller than one stripe are striped over several OSTs", wide_small.len()),
            list(wide_small),
            Some("Use a stripe count of 1 for small files (lfs setstripe -c 1) to spare OST round trips"),
        ));
    }
    out
}

fn ranks(r: i64, nprocs: i64) -> String {
    if r == -1 {
        format!("all {nprocs}")
    } else {
        r.to_string()
    }
}
