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
    let mut f = Found { b, out };
    let mut at = 0usize;
    for _ in 0..256 {
        if at + 16 > b.len() {
            return;
        }
        let name = module_name(m);
        f.push(at, format!("{name} record id"), false);
        f.push(at + 8, format!("{name} rank"), true);
        let next = match fixed_record_size(m, ver) {
            Some(size) => f.fixed(m, at, size),
            None => match f.variable(m, ver, at) {
                Some(next) => next,
                None => return,
            },
        };
        if next <= at {
            return;
        }
        at = next;
    }
}

/// The fields found so far in a region's bytes `b`.
struct Found<'a> {
    b: &'a [u8],
    out: &'a mut Vec<Field>,
}

impl Found<'_> {
    fn push(&mut self, offset: usize, what: String, is_count: bool) {
        if offset + 8 <= self.b.len() {
            self.out.push(Field { offset, what, is_count });
        }
    }

    fn word(&self, at: usize) -> Option<i64> {
        word(self.b, at)
    }

    /// Every counter of a record of fixed size at `at`; the process count
    /// of BG/Q and MDHIM's server count size tables. The next record's
    /// offset.
    fn fixed(&mut self, m: usize, at: usize, size: usize) -> usize {
        let name = module_name(m);
        for k in (16..size).step_by(8) {
            self.push(at + k, format!("{name} word {}", k / 8), m == MDHIM && k == 16 + 8 * 4);
        }
        let size =
            if m == MDHIM { size + 8 * self.word(at + 48).unwrap_or(1).clamp(1, 1 << 16) as usize } else { size };
        at + size
    }

    /// The counts that size a record of variable size at `at`, and the
    /// next record's offset (None: the walk stops).
    fn variable(&mut self, m: usize, ver: u32, at: usize) -> Option<usize> {
        let name = module_name(m);
        Some(match m {
            LUSTRE if ver >= 2 => self.lustre(at),
            LUSTRE => {
                self.push(at + 48, "LUSTRE v1 stripe width".into(), true);
                at + 56 + 8 * self.word(at + 48).unwrap_or(0).clamp(0, 1 << 20) as usize
            }
            DXT_POSIX | DXT_MPIIO | DXT_IO_URING if ver == dxt_mapped::VERSION => self.dxt_chunk(m, at)?,
            DXT_POSIX | DXT_MPIIO | DXT_IO_URING => {
                self.push(at + 88, format!("{name} write_count"), true);
                self.push(at + 96, format!("{name} read_count"), true);
                let per = if dxt_thread_ids_at(m, ver) { 40 } else { 32 };
                let n = self.word(at + 88).unwrap_or(0).clamp(0, 1 << 24)
                    + self.word(at + 96).unwrap_or(0).clamp(0, 1 << 24);
                // The first segment's offset and length.
                self.push(at + 104, format!("{name} segment offset"), false);
                self.push(at + 112, format!("{name} segment length"), false);
                at + 104 + per * n as usize
            }
            HEATMAP => {
                self.push(at + 16, "HEATMAP bin width".into(), false);
                self.push(at + 24, "HEATMAP nbins".into(), true);
                at + 48 + 16 * self.word(at + 24).unwrap_or(0).clamp(0, 1 << 24) as usize
            }
            _ => return None,
        })
    }

    /// A LUSTRE record (version 2 on): its counts and each component's
    /// stripe count and size.
    fn lustre(&mut self, at: usize) -> usize {
        self.push(at + 16, "LUSTRE num_comps".into(), true);
        self.push(at + 24, "LUSTRE num_stripes".into(), true);
        let comps = self.word(at + 16).unwrap_or(0).clamp(0, 1 << 12) as usize;
        for c in 0..comps {
            self.push(at + 32 + 72 * c + 8, format!("LUSTRE COMP{} STRIPE_COUNT", c + 1), true);
            self.push(at + 32 + 72 * c, format!("LUSTRE COMP{} STRIPE_SIZE", c + 1), false);
        }
        let stripes = self.word(at + 24).unwrap_or(0).clamp(0, 1 << 20) as usize;
        at + 32 + 72 * comps + 8 * stripes
    }

    /// A chunk of a crash-safe file's DXT region: id, tag (kind, words per
    /// segment, capacity and count packed), then the body. None at a
    /// chunk of kind 0 (the region's end).
    fn dxt_chunk(&mut self, m: usize, at: usize) -> Option<usize> {
        let name = module_name(m);
        self.push(at + 8, format!("{name} chunk tag"), true);
        let tag = self.word(at + 8).unwrap_or(0) as u64;
        let words = match tag >> 60 {
            dxt_mapped::KIND_RECORD => {
                for k in [dxt_mapped::REC_CURRENT, dxt_mapped::REC_CAPACITY] {
                    self.push(at + 8 * k, format!("{name} chunk bookkeeping"), true);
                    self.push(at + 8 * k + 8, format!("{name} chunk bookkeeping"), true);
                }
                dxt_mapped::RECORD_WORDS
            }
            0 => return None,
            _ => 2 + ((tag >> 28) & ((1 << 28) - 1)) as usize * ((tag >> 56) & 15) as usize,
        };
        Some(at + 8 * words.min(1 << 24))
    }
}
