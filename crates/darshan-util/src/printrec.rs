//! Printing one record the way darshan-util's `log_print_record` does:
//! one tab-separated line per counter.

use darshan_log::modules::*;
use darshan_log::{Extra, LustreComponent, Record};

use crate::cfmt::{push_f6, push_i64, push_u64};

/// Per-record constant parts of every line.
pub struct LineCtx<'a> {
    pub module_label: &'a str,
    pub name: &'a [u8],
    pub mnt: &'a [u8],
    pub fs: &'a [u8],
}

/// The constant prefix (`module, rank, id`) and suffix (`name, mount,
/// fs`) of a record's lines, formatted once per record.
pub(crate) struct Lines {
    pfx: Vec<u8>,
    sfx: Vec<u8>,
}

impl Lines {
    fn new(label: &str, rec: &Record, name: &[u8], mnt: &[u8], fs: &[u8]) -> Self {
        Lines::of(label, (rec.rank, rec.id), name, mnt, fs)
    }

    /// The parts of the lines of the record `(rank, id)`.
    pub(crate) fn of(label: &str, (rank, id): (i64, u64), name: &[u8], mnt: &[u8], fs: &[u8]) -> Self {
        let mut pfx = Vec::with_capacity(48);
        pfx.extend_from_slice(label.as_bytes());
        pfx.push(b'\t');
        push_i64(&mut pfx, rank);
        pfx.push(b'\t');
        push_u64(&mut pfx, id);
        pfx.push(b'\t');
        let mut sfx = Vec::with_capacity(name.len() + mnt.len() + fs.len() + 4);
        for part in [name, mnt, fs] {
            sfx.push(b'\t');
            sfx.extend_from_slice(part);
        }
        sfx.push(b'\n');
        Lines { pfx, sfx }
    }

    #[inline]
    fn put(&self, buf: &mut Vec<u8>, cname: &str, value: impl FnOnce(&mut Vec<u8>)) {
        buf.extend_from_slice(&self.pfx);
        buf.extend_from_slice(cname.as_bytes());
        buf.push(b'\t');
        value(buf);
        buf.extend_from_slice(&self.sfx);
    }
    pub(crate) fn i(&self, buf: &mut Vec<u8>, cname: &str, v: i64) {
        self.put(buf, cname, |b| push_i64(b, v))
    }
    pub(crate) fn u(&self, buf: &mut Vec<u8>, cname: &str, v: u64) {
        self.put(buf, cname, |b| push_u64(b, v))
    }
    pub(crate) fn f(&self, buf: &mut Vec<u8>, cname: &str, v: f64) {
        self.put(buf, cname, |b| push_f6(b, v))
    }
    pub(crate) fn s(&self, buf: &mut Vec<u8>, cname: &str, v: &[u8]) {
        self.put(buf, cname, |b| b.extend_from_slice(v))
    }
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
        "stale",
        "prefrd",
        "prefwr",
        "offline",
        "init",
        "nosync",
        "extension",
        "parity",
        "compress",
        "partial",
        "nocompr",
        "neg",
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
    let (name, mnt) = own_names(&rec.extra);
    let fs: &[u8] = if mnt.is_some() { b"N/A" } else { ctx.fs };
    let l = Lines::new(
        ctx.module_label,
        rec,
        name.as_ref().map_or(ctx.name, |n| n.as_bytes()),
        mnt.as_ref().map_or(ctx.mnt, |m| m.as_bytes()),
        fs,
    );
    match &rec.extra {
        Extra::Lustre { components, ost_ids } => print_lustre(&l, buf, components, ost_ids),
        Extra::Heatmap { bin_width, write_bins, read_bins } => {
            l.f(buf, "HEATMAP_F_BIN_WIDTH_SECONDS", *bin_width);
            print_series(&l, buf, "HEATMAP_READ_BIN_", read_bins);
            print_series(&l, buf, "HEATMAP_WRITE_BIN_", write_bins);
        }
        extra => {
            print_counters(&l, buf, rec);
            match extra {
                Extra::FileRecId(fid) if rec.module == H5D => l.u(buf, "H5D_FILE_REC_ID", *fid),
                Extra::FileRecId(fid) if rec.module == PNETCDF_VAR => l.u(buf, "PNETCDF_VAR_FILE_REC_ID", *fid),
                Extra::Mdhim { server_histogram } => print_series(&l, buf, "MDHIM_SERVER_", server_histogram),
                _ => {}
            }
        }
    }
}

/// The name and mount a record carries itself: DFS and DAOS print their
/// pool/container instead of a mount point, and DAOS its object id
/// instead of a name. (None, None) for every other module.
fn own_names(extra: &Extra) -> (Option<String>, Option<String>) {
    let uuids = |p: &[u8; 16], c: &[u8; 16]| format!("{}:{}", uuid_str(p), uuid_str(c));
    match extra {
        Extra::Dfs { pool_uuid, cont_uuid } => {
            let unknown = pool_uuid.iter().all(|&b| b == 0) || cont_uuid.iter().all(|&b| b == 0);
            (None, Some(if unknown { "UNKNOWN".into() } else { uuids(pool_uuid, cont_uuid) }))
        }
        Extra::Daos { pool_uuid, cont_uuid, oid_hi, oid_lo } => {
            (Some(format!("{oid_hi}.{oid_lo}")), Some(uuids(pool_uuid, cont_uuid)))
        }
        _ => (None, None),
    }
}

/// `PREFIX0`, `PREFIX1`, ... one line per value.
fn print_series(l: &Lines, buf: &mut Vec<u8>, prefix: &str, values: &[i64]) {
    for (i, &v) in values.iter().enumerate() {
        l.i(buf, &format!("{prefix}{i}"), v);
    }
}

/// The module's counters and fcounters under their names (UNKNOWN past
/// the table). POSIX_RENAMED_FROM holds a record id: unsigned, as C
/// prints it.
fn print_counters(l: &Lines, buf: &mut Vec<u8>, rec: &Record) {
    let (cn, fnames) = counter_names(rec.module);
    for (i, &v) in rec.counters.iter().enumerate() {
        let n = cn.get(i).copied().unwrap_or("UNKNOWN");
        if rec.module == POSIX && i == darshan_log::counters::posix::RENAMED_FROM {
            l.u(buf, n, v as u64);
        } else {
            l.i(buf, n, v);
        }
    }
    for (i, &v) in rec.fcounters.iter().enumerate() {
        l.f(buf, fnames.get(i).copied().unwrap_or("UNKNOWN"), v);
    }
}

/// A LUSTRE record: its components, each with its striping, pool and the
/// OST ids it owns (taken in order from the record's list; -1 past it).
fn print_lustre(l: &Lines, buf: &mut Vec<u8>, components: &[LustreComponent], ost_ids: &[i64]) {
    l.i(buf, "LUSTRE_NUM_COMPONENTS", components.len() as i64);
    let nstripes: i64 = components.iter().map(|c| c.counters[1].max(0)).sum();
    l.i(buf, "LUSTRE_NUM_STRIPES", nstripes);
    const N: [&str; 7] =
        ["STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS", "EXT_START", "EXT_END", "MIRROR_ID"];
    let mut ost = 0usize;
    for (k, c) in components.iter().enumerate() {
        let k = k + 1;
        for (ci, n) in N.iter().enumerate() {
            let cname = format!("LUSTRE_COMP{k}_{n}");
            match ci {
                2 => l.s(buf, &cname, lustre_pattern(c.counters[2]).as_bytes()),
                3 => l.s(buf, &cname, lustre_flags(c.counters[3]).as_bytes()),
                _ => l.i(buf, &cname, c.counters[ci]),
            }
        }
        let pool_end = c.pool_name.iter().position(|&b| b == 0).unwrap_or(16);
        let pool = if pool_end == 0 { &b"N/A"[..] } else { &c.pool_name[..pool_end] };
        l.s(buf, &format!("LUSTRE_COMP{k}_POOL_NAME"), pool);
        for j in 0..c.counters[1].max(0) as usize {
            l.i(buf, &format!("LUSTRE_COMP{k}_OST_ID_{j}"), ost_ids.get(ost).copied().unwrap_or(-1));
            ost += 1;
        }
    }
}
