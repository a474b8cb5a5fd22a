//! Mutants of one log: damaged bytes (bit flips, truncations, garbage),
//! a header whose region map or module versions lie, and, inside valid
//! compressed streams, counts, ranks, ids and counters set to the values
//! that break readers: 0, −1, 2^31−1, 2^40, the largest and smallest
//! 64-bit values, NaN and infinities; regions cut short, repeated or
//! pointed at one another.

use darshan_log::extension;
use darshan_log::header::HEADER_SIZE;
use darshan_log::modules::MAX_MODS;

use crate::fields::{fields, Field};
use crate::unpacked::{raw_slot, Region, Unpacked};

/// A small deterministic generator (splitmix64): the same seed makes the
/// same mutants on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// The values a lying count, offset or time takes (31,000,000 s: a job
/// that ran for a year).
pub const LIES: [i64; 13] =
    [0, -1, 1, 2, (1 << 31) - 1, 1 << 31, 1 << 40, -(1 << 40), i64::MAX, i64::MIN, 50_000_000, 31_000_000, 4096];

/// Values for floating-point counters.
pub const FLOAT_LIES: [f64; 6] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, 1e300, -0.0];

/// One mutant: its bytes and what was done to make it.
pub struct Mutant {
    pub bytes: Vec<u8>,
    pub what: String,
}

/// `n` mutants of `file`, from `seed`.
pub fn mutants(file: &[u8], n: usize, seed: u64) -> Vec<Mutant> {
    // An empty seed (a crash-safe file of a process killed as its runtime
    // made it) has no byte to damage: the tools meet it as it is.
    if file.is_empty() {
        return Vec::new();
    }
    let mut rng = Rng::new(seed);
    let unpacked = Unpacked::of(file);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        // Structural mutants where the log can be unpacked: most of what
        // a reader believes lives inside the compressed streams.
        let m = match (&unpacked, rng.below(10)) {
            (Some(u), 0..=5) => inside(u, &mut rng),
            (_, 6) => truncated(file, &mut rng),
            (_, 7) => header_lie(file, &mut rng),
            (_, 8) => garbage_span(file, &mut rng),
            (_, 9) if has_trailer(file) => trailer_lie(file, &mut rng),
            _ => bit_flips(file, &mut rng),
        };
        if let Some(m) = m {
            out.push(m);
        }
    }
    out
}

fn bit_flips(file: &[u8], rng: &mut Rng) -> Option<Mutant> {
    let mut b = file.to_vec();
    let k = 1 + rng.below(8);
    for _ in 0..k {
        let i = rng.below(b.len());
        b[i] ^= 1 << rng.below(8);
    }
    Some(Mutant { bytes: b, what: format!("{k} bit flips") })
}

fn truncated(file: &[u8], rng: &mut Rng) -> Option<Mutant> {
    let at = match rng.below(3) {
        0 => rng.below(HEADER_SIZE.min(file.len())),
        _ => rng.below(file.len()),
    };
    Some(Mutant { bytes: file[..at].to_vec(), what: format!("truncated to {at} bytes") })
}

fn garbage_span(file: &[u8], rng: &mut Rng) -> Option<Mutant> {
    let mut b = file.to_vec();
    let start = rng.below(b.len());
    let len = (1 + rng.below(64)).min(b.len() - start);
    let fill = *rng.pick(&[0u8, 0xff, 0x80]);
    b[start..start + len].fill(fill);
    Some(Mutant { bytes: b, what: format!("{len} bytes at {start} set to {fill:#04x}") })
}

/// A header whose region map (offset or length of the name region or of
/// a module present), module version or partial flag lies, at the offsets
/// of the file's own header version.
fn header_lie(file: &[u8], rng: &mut Rng) -> Option<Mutant> {
    use darshan_log::LogVersion;
    let h = darshan_log::Header::parse(file.get(..HEADER_SIZE.min(file.len()))?, file.len() as u64).ok()?;
    let new = h.version == LogVersion::V341;
    // name map, module map, module versions, partial flag (and its width)
    let (name_at, slots_at, vers_at, flag_at, flag_len) =
        if new { (32, 48, 1072, 24, 8) } else { (24, 40, 296, 20, 4) };
    let mut b = file.to_vec();
    let present: Vec<(usize, usize)> =
        (0..MAX_MODS).filter(|&m| h.mod_map[m].len > 0).filter_map(|m| Some((m, raw_slot(h.version, m)?))).collect();
    let m = *rng.pick(&present.iter().map(|&m| Some(m)).chain([None]).collect::<Vec<_>>());
    let swap8 = |v: u64| if h.swapped { v.swap_bytes() } else { v };
    let what = match rng.below(4) {
        0 | 1 => {
            // Map entry: offset or length, a lie or another region's value.
            let (base, label) = match m {
                Some((id, slot)) => (slots_at + 16 * slot, darshan_log::modules::module_name(id).to_string()),
                None => (name_at, "name".to_string()),
            };
            let field = base + 8 * rng.below(2);
            let v = if rng.below(3) == 0 && !present.is_empty() {
                let (_, other) = *rng.pick(&present);
                let src = slots_at + 16 * other + (field - base);
                u64::from_le_bytes(b[src..src + 8].try_into().ok()?)
            } else {
                let lies =
                    [0, 1, (1 << 31) - 1, 1 << 40, u64::MAX, file.len() as u64, file.len() as u64 + 1, u64::MAX - 7];
                swap8(*rng.pick(&lies))
            };
            b[field..field + 8].copy_from_slice(&v.to_le_bytes());
            format!("header: {label} region {} = {:#x}", if field == base { "offset" } else { "length" }, swap8(v))
        }
        2 => {
            let (id, slot) = m.unwrap_or((1, 1));
            let v = *rng.pick(&[0u32, 1, 2, 3, 5, 99, u32::MAX, darshan_log::dxt_mapped::VERSION]);
            let at = vers_at + 4 * slot;
            b[at..at + 4].copy_from_slice(&(if h.swapped { v.swap_bytes() } else { v }).to_le_bytes());
            format!("header: {} version = {v}", darshan_log::modules::module_name(id))
        }
        _ => {
            let v = rng.next_u64().to_le_bytes();
            b[flag_at..flag_at + flag_len].copy_from_slice(&v[..flag_len]);
            "header: partial flag set to random bits".to_string()
        }
    };
    Some(Mutant { bytes: b, what })
}

fn has_trailer(file: &[u8]) -> bool {
    file.len() >= extension::FOOTER_SIZE && &file[file.len() - 8..] == extension::MAGIC
}

/// The extension trailer (which names POSIX_META's region) lying: an
/// entry's module id, version, offset, length or flags, or the footer's
/// entry count or version.
fn trailer_lie(file: &[u8], rng: &mut Rng) -> Option<Mutant> {
    let footer = file.len() - extension::FOOTER_SIZE;
    let n = u32::from_le_bytes(file[footer..footer + 4].try_into().ok()?) as usize;
    let mut b = file.to_vec();
    let put32 = |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let what = match rng.below(5) {
        0 => {
            let v = *rng.pick(&[0u32, 2, 46, 47, u32::MAX, n as u32 + 1, 1 << 27]);
            put32(&mut b, footer, v);
            format!("trailer: entry count = {v}")
        }
        1 => {
            let v = *rng.pick(&[0u32, 2, u32::MAX]);
            put32(&mut b, footer + 4, v);
            format!("trailer: version = {v}")
        }
        _ if n >= 1 && n * extension::ENTRY_SIZE <= footer => {
            let e = footer - (1 + rng.below(n)) * extension::ENTRY_SIZE;
            match rng.below(5) {
                0 => {
                    let v = *rng.pick(&[0u32, 1, 17, 18, 62, 64, u32::MAX]);
                    put32(&mut b, e, v);
                    format!("trailer: module id = {v}")
                }
                1 => {
                    let v = *rng.pick(&[0u32, 2, 99, u32::MAX]);
                    put32(&mut b, e + 4, v);
                    format!("trailer: module version = {v}")
                }
                k @ (2 | 3) => {
                    let v = *rng.pick(&LIES) as u64;
                    let at = e + 8 * (k - 1);
                    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
                    format!("trailer: region {} = {v:#x}", if k == 2 { "offset" } else { "length" })
                }
                _ => {
                    let v = rng.next_u64() as u32;
                    put32(&mut b, e + 24, v);
                    format!("trailer: flags = {v:#x}")
                }
            }
        }
        _ => return None,
    };
    Some(Mutant { bytes: b, what })
}

/// A lie inside a decompressed region, packed again.
fn inside(u: &Unpacked, rng: &mut Rng) -> Option<Mutant> {
    let mut u = u.clone();
    let regions: Vec<Region> = u.regions().iter().map(|(r, _)| *r).collect();
    let region = *rng.pick(&regions);
    let ver = match region {
        Region::Module(m) => u.mod_ver[m],
        _ => 0,
    };
    let version = u.version;
    let what = {
        let bytes = u.region_mut(region)?;
        let fs: Vec<Field> = fields(version, region, ver, bytes);
        let counts: Vec<&Field> = fs.iter().filter(|f| f.is_count).collect();
        match rng.below(8) {
            // A count: the likeliest to drive allocation and loops.
            0..=2 if !counts.is_empty() => {
                let f: &Field = counts[rng.below(counts.len())];
                set_word(bytes, f, *rng.pick(&LIES))
            }
            3 if !fs.is_empty() => set_word(bytes, rng.pick(&fs), *rng.pick(&LIES)),
            4 if !fs.is_empty() => {
                let f = rng.pick(&fs);
                set_word(bytes, f, rng.pick(&FLOAT_LIES).to_bits() as i64)
            }
            5 if bytes.len() >= 8 => {
                let at = rng.below(bytes.len() / 8) * 8;
                let f = Field { offset: at, what: format!("word at {at}"), is_count: false };
                set_word(bytes, &f, *rng.pick(&LIES))
            }
            6 if !bytes.is_empty() => {
                let at = rng.below(bytes.len());
                bytes.truncate(at);
                format!("cut to {at} bytes")
            }
            _ if !bytes.is_empty() && bytes.len() < 1 << 20 => {
                let size = match region {
                    Region::Module(m) => darshan_log::decode::fixed_record_size(m, ver),
                    _ => None,
                };
                repeated(bytes, size, rng)
            }
            _ => return None,
        }
    };
    Some(Mutant { bytes: u.pack(), what: format!("{region:?}: {what}") })
}

/// The region's bytes repeated: many records (or names) from a few
/// compressed bytes; for records of `record_size`, half the time each
/// copy's records get ids of their own (so many files, not one).
fn repeated(bytes: &mut Vec<u8>, record_size: Option<usize>, rng: &mut Rng) -> String {
    let k = 2 + rng.below(200);
    let one = bytes.clone();
    let fresh = record_size.filter(|s| one.len().is_multiple_of(*s) && rng.below(2) == 0);
    for copy in 1..k {
        let at = bytes.len();
        bytes.extend_from_slice(&one);
        if let Some(s) = fresh {
            for r in (at..bytes.len()).step_by(s) {
                let id = u64::from_le_bytes(bytes[r..r + 8].try_into().unwrap_or([0; 8])) ^ (copy as u64) << 40;
                bytes[r..r + 8].copy_from_slice(&id.to_le_bytes());
            }
        }
    }
    format!("repeated {k} times{}", if fresh.is_some() { ", each copy with ids of its own" } else { "" })
}

fn set_word(b: &mut [u8], f: &Field, v: i64) -> String {
    b[f.offset..f.offset + 8].copy_from_slice(&v.to_le_bytes());
    format!("{} = {v}", f.what)
}
