//! AutoPerf's APXC records printed as darshan-util built with
//! `--enable-apxc-mod` prints them (autoperf's
//! `darshan-apxc-logutils.c`): the header's blades, chassis, groups, the
//! memory and cluster modes and whether the nodes agreed on them, the
//! application id; then each router's place and its 392 port counters;
//! empty name, mount and file system columns. Used by darshan-parser,
//! darshan-diff and libdarshan-util.
//!
//! A mode past C's table of names (a damaged or hostile log: C reads
//! past its array) is printed as its number.

use darshan_log::apxc::{Apxc, Header, Perf};
use darshan_log::counters::apxc as c;

use crate::printrec::Lines;

/// darshan-util's description of the module's counters.
pub const DESCRIPTION: &str = "\n# description of APXC counters:\n\
#   global summary stats for the APXC module:\n\
#     APXC_GROUPS: total number of groups\n\
#     APXC_CHASSIS: total number of chassis\n\
#     APXC_BLADES: total number of blades\n\
#     APXC_MEMORY_MODE: Intel Xeon memory mode\n\
#     APXC_CLUSTER_MODE: Intel Xeon NUMA configuration\n\
#     APXC_MEMORY_MODE_CONSISTENT: Intel Xeon memory mode consistent across all nodes\n\
#     APXC_CLUSTER_MODE_CONSISTENT: Intel Xeon cluster mode consistent across all nodes\n\
#   per-router statistics for the APXC module:\n\
#     APXC_GROUP:   group this router is on\n\
#     APXC_CHASSIS: chassis this router is on\n\
#     APXC_BLADE:   blade this router is on\n\
#     APXC_NODE:    node connected to this router\n\
#     APXC_AR_RTR_* port counters for the 40 router-router ports\n\
#     APXC_AR_RTR_x_y_INQ_PRF_INCOMING_FLIT_VC[0-7]: flits on VCs of x y tile\n\
#     APXC_AR_RTR_x_y_INQ_PRF_ROWBUS_STALL_CNT: stalls on x y tile\n\
#     APXC_AR_RTR_PT_* port counters for the 8 router-nic ports\n\
#     APXC_AR_RTR_PT_x_y_INQ_PRF_INCOMING_FLIT_VC[0,4]: flits on VCs of x y tile\n\
#     APXC_AR_RTR_PT_x_y_INQ_PRF_REQ_ROWBUS_STALL_CNT: stalls on x y tile\n";

/// A field's value as C prints it (`%PRId64`/`%d`, `%PRIu64`, `%s`).
#[derive(PartialEq)]
pub enum Val {
    I(i64),
    U(u64),
    S(String),
}

/// A mode's name from `table`, or its number past the table's end.
fn mode_name(table: &[&str], v: i64) -> Val {
    let k = c::mode_index(v);
    Val::S(table.get(k as usize).map_or_else(|| k.to_string(), |s| s.to_string()))
}

/// The header's fields, in C's order. The mode fields compare as C
/// compares them: the name by its index, agreement by the flag.
pub fn header_fields(h: &Header) -> Vec<(&'static str, Val)> {
    vec![
        ("APXC_GROUPS", Val::I(h.ngroups)),
        ("APXC_CHASSIS", Val::I(h.nchassis)),
        ("APXC_BLADES", Val::I(h.nblades)),
        ("APXC_MEMORY_MODE", mode_name(&c::MEMORY_MODES, h.memory_mode)),
        ("APXC_MEMORY_MODE_CONSISTENT", Val::I(c::mode_consistent(h.memory_mode) as i64)),
        ("APXC_CLUSTER_MODE", mode_name(&c::CLUSTER_MODES, h.cluster_mode)),
        ("APXC_CLUSTER_MODE_CONSISTENT", Val::I(c::mode_consistent(h.cluster_mode) as i64)),
        ("APXC_APPLICATION_ID", Val::U(h.appid)),
    ]
}

/// A router's fields: its place, then its counters.
pub fn perf_fields(p: &Perf) -> Vec<(&'static str, Val)> {
    let place = [("APXC_GROUP", p.group), ("APXC_CHASSIS", p.chassis), ("APXC_BLADE", p.blade), ("APXC_NODE", p.node)];
    let mut v: Vec<(&'static str, Val)> = place.into_iter().map(|(n, x)| (n, Val::I(x))).collect();
    v.extend(c::NAMES.iter().zip(&p.counters).map(|(n, &x)| (*n, Val::U(x))));
    v
}

/// A record's fields.
pub fn fields(r: &Apxc) -> Vec<(&'static str, Val)> {
    match r {
        Apxc::Header(h) => header_fields(h),
        Apxc::Perf(p) => perf_fields(p),
    }
}

/// A record's rank and id.
pub fn rank_id(r: &Apxc) -> (i64, u64) {
    match r {
        Apxc::Header(h) => (h.rank, h.id),
        Apxc::Perf(p) => (p.rank, p.id),
    }
}

/// One field's line of `r`, as darshan-parser prints it.
pub fn line(buf: &mut Vec<u8>, r: &Apxc, (name, v): &(&str, Val)) {
    let l = Lines::of("APXC", rank_id(r), b"", b"", b"");
    match v {
        Val::I(x) => l.i(buf, name, *x),
        Val::U(x) => l.u(buf, name, *x),
        Val::S(x) => l.s(buf, name, x.as_bytes()),
    }
}

/// `rec`'s lines into `buf`.
pub fn print(buf: &mut Vec<u8>, rec: &Apxc) {
    for f in fields(rec) {
        line(buf, rec, &f);
    }
}

/// Two records of one id and rank (either missing: a record only one log
/// has), compared as AutoPerf's `darshan_log_print_apxc_rec_diff` means
/// to: a `-` and a `+` line for each field that differs, every field of a
/// lone record (also of a header paired with a router's record, which
/// only a crafted log gives one id). Where AutoPerf's function does
/// something else, this one does what its code says it means to: it
/// reads the first record's magic when only the second log has one
/// (SIGSEGV), prints a lone header's cluster-mode agreement without its
/// sign, and compares the agreements by every bit its int mask keeps,
/// not by the agreement it prints.
pub fn diff_records(b: &mut Vec<u8>, r1: Option<&Apxc>, r2: Option<&Apxc>) {
    match (r1, r2) {
        (Some(x @ Apxc::Header(_)), Some(y @ Apxc::Header(_))) | (Some(x @ Apxc::Perf(_)), Some(y @ Apxc::Perf(_))) => {
            for (f1, f2) in fields(x).iter().zip(&fields(y)) {
                if f1.1 != f2.1 {
                    signed(b, "- ", x, f1);
                    signed(b, "+ ", y, f2);
                }
            }
        }
        _ => {
            for (sign, r) in [("- ", r1), ("+ ", r2)] {
                let Some(r) = r else { continue };
                for f in fields(r) {
                    signed(b, sign, r, &f);
                }
            }
        }
    }
}

fn signed(b: &mut Vec<u8>, sign: &str, r: &Apxc, f: &(&str, Val)) {
    b.extend_from_slice(sign.as_bytes());
    line(b, r, f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::apxc::MAGIC;

    fn text(b: &[u8]) -> Vec<String> {
        String::from_utf8_lossy(b).lines().map(str::to_string).collect()
    }

    #[test]
    fn a_mode_past_cs_table_prints_as_its_number() {
        let h = Header { magic: MAGIC, memory_mode: 9, cluster_mode: 1 << 31 | 2, ..Header::default() };
        let mut b = Vec::new();
        print(&mut b, &Apxc::Header(h));
        let lines = text(&b);
        assert_eq!(lines.len(), 8);
        assert_eq!(lines[3], "APXC\t0\t0\tAPXC_MEMORY_MODE\t9\t\t\t");
        assert_eq!(lines[5], "APXC\t0\t0\tAPXC_CLUSTER_MODE\tCM_QUAD\t\t\t");
        assert_eq!(lines[6], "APXC\t0\t0\tAPXC_CLUSTER_MODE_CONSISTENT\t0\t\t\t");
    }

    #[test]
    fn a_diff_names_each_field_that_differs_and_every_field_of_a_lone_record() {
        let p = Perf { id: 5, rank: 0, group: 1, chassis: 2, blade: 3, node: 4, counters: vec![0; c::NUM_INDICES] };
        let mut q = p.clone();
        q.node = 6;
        q.counters[c::NUM_INDICES - 1] = 7;
        let (p, q) = (Apxc::Perf(p), Apxc::Perf(q));
        let mut b = Vec::new();
        diff_records(&mut b, Some(&p), Some(&q));
        assert_eq!(
            text(&b),
            [
                "- APXC\t0\t5\tAPXC_NODE\t4\t\t\t",
                "+ APXC\t0\t5\tAPXC_NODE\t6\t\t\t",
                "- APXC\t0\t5\tAPXC_AR_RTR_PT_5_7_INQ_PRF_RSP_ROWBUS_STALL_CNT\t0\t\t\t",
                "+ APXC\t0\t5\tAPXC_AR_RTR_PT_5_7_INQ_PRF_RSP_ROWBUS_STALL_CNT\t7\t\t\t",
            ]
        );
        b.clear();
        diff_records(&mut b, None, Some(&q));
        assert_eq!(text(&b).len(), 4 + c::NUM_INDICES);
        assert!(text(&b).iter().all(|l| l.starts_with("+ APXC\t")));
    }
}
