//! Printing one record the way darshan-util's `log_print_record` does:
//! one tab-separated line per counter.

use darshan_log::modules::*;
use darshan_log::{Extra, Record};

use crate::cfmt::{push_f6, push_i64, push_u64};

/// Per-record constant parts of every line.
pub struct LineCtx<'a> {
    pub module_label: &'a str,
    pub name: &'a [u8],
    pub mnt: &'a [u8],
    pub fs: &'a [u8],
}

fn prefix(buf: &mut Vec<u8>, label: &str, rank: i64, id: u64) -> usize {
    let start = buf.len();
    buf.extend_from_slice(label.as_bytes());
    buf.push(b'\t');
    push_i64(buf, rank);
    buf.push(b'\t');
    push_u64(buf, id);
    buf.push(b'\t');
    buf.len() - start
}

fn suffix(buf: &mut Vec<u8>, name: &[u8], mnt: &[u8], fs: &[u8]) {
    buf.push(b'\t');
    buf.extend_from_slice(name);
    buf.push(b'\t');
    buf.extend_from_slice(mnt);
    buf.push(b'\t');
    buf.extend_from_slice(fs);
    buf.push(b'\n');
}

pub fn uuid_str(u: &[u8; 16]) -> String {
    let h: Vec<String> = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

fn lustre_pattern(v: i64) -> String {
    match v {
        0 => "raid0".into(),
        2 => "mdt".into(),
        4 => "raid0,overstriped".into(),
        8 => "foreign".into(),
        _ => "N/A".into(),
    }
}

fn lustre_flags(v: i64) -> String {
    const NAMES: [&str; 12] = [
        "stale", "prefrd", "prefwr", "offline", "init", "nosync", "extension", "parity", "compress",
        "partial", "nocompr", "neg",
    ];
    if v == -1 {
        return "N/A".into();
    }
    if v == 0 {
        return "0".into();
    }
    let parts: Vec<&str> = (0..12).filter(|b| v & (1 << b) != 0).map(|b| NAMES[b]).collect();
    parts.join(",")
}

/// Append every line of `rec` to `buf`.
pub fn print_record(buf: &mut Vec<u8>, rec: &Record, ctx: &LineCtx<'_>) {
    // DFS and DAOS print their pool/container instead of a mount point.
    let owned_name;
    let owned_mnt;
    let (mut name, mut mnt, mut fs) = (ctx.name, ctx.mnt, ctx.fs);
    match &rec.extra {
        Extra::Dfs { pool_uuid, cont_uuid } => {
            owned_mnt = if pool_uuid.iter().all(|&b| b == 0) || cont_uuid.iter().all(|&b| b == 0) {
                "UNKNOWN".to_string()
            } else {
                format!("{}:{}", uuid_str(pool_uuid), uuid_str(cont_uuid))
            };
            mnt = owned_mnt.as_bytes();
            fs = b"N/A";
        }
        Extra::Daos { pool_uuid, cont_uuid, oid_hi, oid_lo } => {
            owned_name = format!("{oid_hi}.{oid_lo}");
            name = owned_name.as_bytes();
            owned_mnt = format!("{}:{}", uuid_str(pool_uuid), uuid_str(cont_uuid));
            mnt = owned_mnt.as_bytes();
            fs = b"N/A";
        }
        _ => {
            owned_name = String::new();
            owned_mnt = String::new();
            let _ = (&owned_name, &owned_mnt);
        }
    }
    let mut sfx = Vec::with_capacity(name.len() + mnt.len() + fs.len() + 4);
    suffix(&mut sfx, name, mnt, fs);
    let mut pfx = Vec::with_capacity(48);
    prefix(&mut pfx, ctx.module_label, rec.rank, rec.id);

    let line_i = |buf: &mut Vec<u8>, cname: &str, v: i64| {
        buf.extend_from_slice(&pfx);
        buf.extend_from_slice(cname.as_bytes());
        buf.push(b'\t');
        push_i64(buf, v);
        buf.extend_from_slice(&sfx);
    };
    let line_u = |buf: &mut Vec<u8>, cname: &str, v: u64| {
        buf.extend_from_slice(&pfx);
        buf.extend_from_slice(cname.as_bytes());
        buf.push(b'\t');
        push_u64(buf, v);
        buf.extend_from_slice(&sfx);
    };
    let line_f = |buf: &mut Vec<u8>, cname: &str, v: f64| {
        buf.extend_from_slice(&pfx);
        buf.extend_from_slice(cname.as_bytes());
        buf.push(b'\t');
        push_f6(buf, v);
        buf.extend_from_slice(&sfx);
    };
    let line_s = |buf: &mut Vec<u8>, cname: &str, v: &[u8]| {
        buf.extend_from_slice(&pfx);
        buf.extend_from_slice(cname.as_bytes());
        buf.push(b'\t');
        buf.extend_from_slice(v);
        buf.extend_from_slice(&sfx);
    };

    match (&rec.extra, rec.module) {
        (Extra::Lustre { components, ost_ids }, _) => {
            line_i(buf, "LUSTRE_NUM_COMPONENTS", components.len() as i64);
            let nstripes: i64 = components.iter().map(|c| c.counters[1].max(0)).sum();
            line_i(buf, "LUSTRE_NUM_STRIPES", nstripes);
            let mut ost = 0usize;
            for (k, c) in components.iter().enumerate() {
                let k = k + 1;
                const N: [&str; 7] = [
                    "STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS", "EXT_START", "EXT_END", "MIRROR_ID",
                ];
                for (ci, n) in N.iter().enumerate() {
                    let cname = format!("LUSTRE_COMP{k}_{n}");
                    match ci {
                        2 => line_s(buf, &cname, lustre_pattern(c.counters[2]).as_bytes()),
                        3 => line_s(buf, &cname, lustre_flags(c.counters[3]).as_bytes()),
                        _ => line_i(buf, &cname, c.counters[ci]),
                    }
                }
                let pool_end = c.pool_name.iter().position(|&b| b == 0).unwrap_or(16);
                let pool = if pool_end == 0 { &b"N/A"[..] } else { &c.pool_name[..pool_end] };
                line_s(buf, &format!("LUSTRE_COMP{k}_POOL_NAME"), pool);
                for j in 0..c.counters[1].max(0) as usize {
                    let v = ost_ids.get(ost).copied().unwrap_or(-1);
                    ost += 1;
                    line_i(buf, &format!("LUSTRE_COMP{k}_OST_ID_{j}"), v);
                }
            }
        }
        (Extra::Heatmap { bin_width, write_bins, read_bins }, _) => {
            line_f(buf, "HEATMAP_F_BIN_WIDTH_SECONDS", *bin_width);
            for (i, &v) in read_bins.iter().enumerate() {
                line_i(buf, &format!("HEATMAP_READ_BIN_{i}"), v);
            }
            for (i, &v) in write_bins.iter().enumerate() {
                line_i(buf, &format!("HEATMAP_WRITE_BIN_{i}"), v);
            }
        }
        (extra, m) => {
            let (cn, fnames) = counter_names(m);
            for (i, &v) in rec.counters.iter().enumerate() {
                let n = cn.get(i).copied().unwrap_or("UNKNOWN");
                if m == POSIX && i == 12 {
                    line_u(buf, n, v as u64);
                } else {
                    line_i(buf, n, v);
                }
            }
            for (i, &v) in rec.fcounters.iter().enumerate() {
                line_f(buf, fnames.get(i).copied().unwrap_or("UNKNOWN"), v);
            }
            match extra {
                Extra::FileRecId(fid) if m == H5D => line_u(buf, "H5D_FILE_REC_ID", *fid),
                Extra::FileRecId(fid) if m == PNETCDF_VAR => line_u(buf, "PNETCDF_VAR_FILE_REC_ID", *fid),
                Extra::Mdhim { server_histogram } => {
                    for (i, &v) in server_histogram.iter().enumerate() {
                        line_i(buf, &format!("MDHIM_SERVER_{i}"), v);
                    }
                }
                _ => {}
            }
        }
    }
}
