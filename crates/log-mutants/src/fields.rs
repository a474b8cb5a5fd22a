//! Where the words worth lying about are in a region's decompressed
//! bytes: counts that size what follows (stripes, components, segments,
//! bins, servers), ranks and process counts that size per-rank tables,
//! record ids that join records to names, and counters. Walks records as
//! the format lays them out (docs/log-format.md §4, §8), without decoding
//! them: a mutant must be able to lie to the decoder.

use darshan_log::decode::fixed_record_size;
use darshan_log::dxt_mapped;
use darshan_log::modules::*;
use darshan_log::LogVersion;

use crate::unpacked::Region;

/// One 8-byte word and what it is.
#[derive(Clone, Debug)]
pub struct Field {
    pub offset: usize,
    pub what: String,
    /// It sizes something (a count): the likeliest to drive memory or time.
    pub is_count: bool,
}

fn word(b: &[u8], off: usize) -> Option<i64> {
    Some(i64::from_le_bytes(b.get(off..off + 8)?.try_into().ok()?))
}

/// The fields of one region of a log of `log` version; `ver` is the
/// module's format version.
pub fn fields(log: LogVersion, region: Region, ver: u32, b: &[u8]) -> Vec<Field> {
    let mut out = Vec::new();
    let mut push = |offset: usize, what: &str, is_count: bool| {
        if offset + 8 <= b.len() {
            out.push(Field { offset, what: what.to_string(), is_count });
        }
    };
    match region {
        Region::Job if log == LogVersion::V341 => {
            for (i, n) in ["uid", "start_time", "start_nsec", "end_time", "end_nsec"].iter().enumerate() {
                push(8 * i, &format!("job {n}"), false);
            }
            push(40, "job nprocs", true);
            push(48, "job jobid", false);
        }
        Region::Job => {
            for (i, n) in ["uid", "start_time", "end_time"].iter().enumerate() {
                push(8 * i, &format!("job {n}"), false);
            }
            push(24, "job nprocs", true);
            push(32, "job jobid", false);
        }
        // 3.00 names carry a 32-bit length instead of a NUL: only random
        // words are changed there.
        Region::Names if log == LogVersion::V300 => {}
        Region::Names => {
            // id (8 bytes) then a NUL-terminated name, one after another.
            let mut at = 0;
            while at + 8 <= b.len() && out.len() < 64 {
                out.push(Field { offset: at, what: "name record id".into(), is_count: false });
                match b[at + 8..].iter().position(|&c| c == 0) {
                    Some(p) => at += 8 + p + 1,
                    None => break,
                }
            }
        }
        Region::Module(m) => walk_records(m, ver, b, &mut out),
    }
    out
}

/// Records of one module region, at most a few hundred of them.
fn walk_records(m: usize, ver: u32, b: &[u8], out: &mut Vec<Field>) {
    let name = module_name(m);
    let mut at = 0usize;
    let mut push = |offset: usize, what: String, is_count: bool| {
        if offset + 8 <= b.len() {
            out.push(Field { offset, what, is_count });
        }
    };
    for _ in 0..256 {
        if at + 16 > b.len() {
            return;
        }
        push(at, format!("{name} record id"), false);
        push(at + 8, format!("{name} rank"), true);
        let next = if let Some(size) = fixed_record_size(m, ver) {
            // Every counter of the first records; the process count of BG/Q
            // and MDHIM's server count size tables.
            for k in (16..size).step_by(8) {
                let what = format!("{name} word {}", k / 8);
                push(at + k, what, m == MDHIM && k == 16 + 8 * 4);
            }
            let size =
                if m == MDHIM { size + 8 * word(b, at + 48).unwrap_or(1).clamp(1, 1 << 16) as usize } else { size };
            at + size
        } else {
            match m {
                LUSTRE if ver >= 2 => {
                    push(at + 16, "LUSTRE num_comps".into(), true);
                    push(at + 24, "LUSTRE num_stripes".into(), true);
                    let comps = word(b, at + 16).unwrap_or(0).clamp(0, 1 << 12) as usize;
                    for c in 0..comps {
                        push(at + 32 + 72 * c + 8, format!("LUSTRE COMP{} STRIPE_COUNT", c + 1), true);
                        push(at + 32 + 72 * c, format!("LUSTRE COMP{} STRIPE_SIZE", c + 1), false);
                    }
                    let stripes = word(b, at + 24).unwrap_or(0).clamp(0, 1 << 20) as usize;
                    at + 32 + 72 * comps + 8 * stripes
                }
                LUSTRE => {
                    push(at + 48, "LUSTRE v1 stripe width".into(), true);
                    at + 56 + 8 * word(b, at + 48).unwrap_or(0).clamp(0, 1 << 20) as usize
                }
                DXT_POSIX | DXT_MPIIO | DXT_IO_URING if ver == dxt_mapped::VERSION => {
                    // Chunks of a crash-safe file: id, tag (kind, words per
                    // segment, capacity and count packed), then the body.
                    push(at + 8, format!("{name} chunk tag"), true);
                    let tag = word(b, at + 8).unwrap_or(0) as u64;
                    let words = match tag >> 60 {
                        dxt_mapped::KIND_RECORD => {
                            for k in [dxt_mapped::REC_CURRENT, dxt_mapped::REC_CAPACITY] {
                                push(at + 8 * k, format!("{name} chunk bookkeeping"), true);
                                push(at + 8 * k + 8, format!("{name} chunk bookkeeping"), true);
                            }
                            dxt_mapped::RECORD_WORDS
                        }
                        0 => return,
                        _ => 2 + ((tag >> 28) & ((1 << 28) - 1)) as usize * ((tag >> 56) & 15) as usize,
                    };
                    at + 8 * words.min(1 << 24)
                }
                DXT_POSIX | DXT_MPIIO | DXT_IO_URING => {
                    push(at + 88, format!("{name} write_count"), true);
                    push(at + 96, format!("{name} read_count"), true);
                    let with_tid = dxt_thread_ids_at(m, ver);
                    let per = if with_tid { 40 } else { 32 };
                    let n = word(b, at + 88).unwrap_or(0).clamp(0, 1 << 24)
                        + word(b, at + 96).unwrap_or(0).clamp(0, 1 << 24);
                    // The first segment's offset and length.
                    push(at + 104, format!("{name} segment offset"), false);
                    push(at + 112, format!("{name} segment length"), false);
                    at + 104 + per * n as usize
                }
                HEATMAP => {
                    push(at + 16, "HEATMAP bin width".into(), false);
                    push(at + 24, "HEATMAP nbins".into(), true);
                    at + 48 + 16 * word(b, at + 24).unwrap_or(0).clamp(0, 1 << 24) as usize
                }
                _ => return,
            }
        };
        if next <= at {
            return;
        }
        at = next;
    }
}
