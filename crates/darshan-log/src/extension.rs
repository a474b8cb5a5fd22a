//! The extension map: where a log keeps the regions of modules whose ids
//! Darshan 3.5.0 does not know (ids 18–63, ours: POSIX_META = 63).
//!
//! Why not the header's module map: darshan-util 3.5.0's
//! `darshan_log_get_modules` lists every mapped id, naming ids ≥ 18 with a
//! NULL pointer, and PyDarshan 3.5.0 calls `ffi.string` on that name — it
//! cannot open a log that maps such an id at all (nor can Drishti, which
//! reads through it). So those regions are written after the last module
//! region and named by a trailer at the very end of the file, which C's
//! tools and PyDarshan never look at (they read regions by the header's
//! offsets only): to them the log is an ordinary log of Darshan's modules.
//! Our reader folds the trailer back into [`Header::mod_map`], so every
//! tool sees the module like any other. docs/log-format.md §11.
//!
//! Trailer (little-endian), at the end of the file:
//!
//! ```text
//! entry × n (32 B each): u32 module id | u32 module version |
//!                        u64 offset | u64 length | u32 flags (bit 0: partial) | u32 0
//! footer (16 B):         u32 n | u32 trailer version (1) | 8 B magic "DRSHNEXT"
//! ```

use crate::error::{LogError, Result};
use crate::header::{Header, RegionMap, HEADER_SIZE};
use crate::modules::{KNOWN_MODULE_COUNT, MAX_MODS};

pub const MAGIC: &[u8; 8] = b"DRSHNEXT";
pub const TRAILER_VERSION: u32 = 1;
pub const FOOTER_SIZE: usize = 16;
pub const ENTRY_SIZE: usize = 32;
/// Where each field lies in an entry (as [`encode_trailer`] writes them).
pub const ENTRY_ID: usize = 0;
pub const ENTRY_VERSION: usize = 4;
pub const ENTRY_OFF: usize = 8;
pub const ENTRY_LEN: usize = 16;
pub const ENTRY_FLAGS: usize = 24;
/// The most entries a trailer can hold: one per id Darshan does not know.
pub const MAX_ENTRIES: usize = MAX_MODS - KNOWN_MODULE_COUNT;
/// The most bytes a trailer can take (what a reader fetches from the end).
pub const MAX_TRAILER_SIZE: usize = FOOTER_SIZE + MAX_ENTRIES * ENTRY_SIZE;

/// True for ids that go in the extension map rather than the header's.
pub fn is_extension(module: usize) -> bool {
    (KNOWN_MODULE_COUNT..MAX_MODS).contains(&module)
}

/// The trailer for `header`'s extension modules (empty when it has none).
pub fn encode_trailer(header: &Header) -> Vec<u8> {
    let ids: Vec<usize> =
        (KNOWN_MODULE_COUNT..MAX_MODS).filter(|&i| header.mod_map[i].len > 0 || header.is_partial(i)).collect();
    if ids.is_empty() {
        return Vec::new();
    }
    let mut b = Vec::with_capacity(FOOTER_SIZE + ids.len() * ENTRY_SIZE);
    for &i in &ids {
        b.extend_from_slice(&(i as u32).to_le_bytes());
        b.extend_from_slice(&header.mod_ver[i].to_le_bytes());
        b.extend_from_slice(&header.mod_map[i].off.to_le_bytes());
        b.extend_from_slice(&header.mod_map[i].len.to_le_bytes());
        b.extend_from_slice(&u32::from(header.is_partial(i)).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    b.extend_from_slice(&(ids.len() as u32).to_le_bytes());
    b.extend_from_slice(&TRAILER_VERSION.to_le_bytes());
    b.extend_from_slice(MAGIC);
    b
}

fn bad(msg: String) -> LogError {
    LogError::BadExtensionMap(msg)
}

pub(crate) fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}

pub(crate) fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// Fold a trailer into `header`. `tail` is the file's last bytes (up to
/// [`MAX_TRAILER_SIZE`]) of a file of `file_size` bytes. A file without
/// the magic has no trailer (every C log): Ok, nothing changes. A trailer
/// whose entries are impossible (ids Darshan knows, regions outside the
/// bytes before the trailer, an id also in the header's map) is an error:
/// the log was damaged after it was written.
pub fn apply_trailer(header: &mut Header, tail: &[u8], file_size: u64) -> Result<()> {
    let Some(n) = entries(tail)? else { return Ok(()) };
    let trailer_size = (FOOTER_SIZE + n * ENTRY_SIZE) as u64;
    // Regions must lie between the header and the trailer.
    let limit = file_size
        .checked_sub(trailer_size)
        .filter(|&l| l >= HEADER_SIZE as u64)
        .ok_or_else(|| bad(format!("extension map of {n} entries in a file of {file_size} bytes")))?;
    fold(header, tail, n, limit, &|id, _| is_extension(id))
}

/// Fold a map laid out as a trailer that ends `block` but is not at the
/// file's end (a crash-safe file's, crate::crash_safe): its regions may
/// lie anywhere after the header in the file's `file_size` bytes, and
/// `may_hold(id, version)` says which modules it may name.
pub fn apply_map(
    header: &mut Header,
    block: &[u8],
    file_size: u64,
    may_hold: &dyn Fn(usize, u32) -> bool,
) -> Result<()> {
    let Some(n) = entries(block)? else { return Ok(()) };
    fold(header, block, n, file_size, may_hold)
}

/// The number of entries before the footer that ends `b`: None without
/// the magic (no map).
fn entries(b: &[u8]) -> Result<Option<usize>> {
    if b.len() < FOOTER_SIZE || &b[b.len() - 8..] != MAGIC {
        return Ok(None);
    }
    let footer = b.len() - FOOTER_SIZE;
    let n = u32_at(b, footer) as usize;
    let version = u32_at(b, footer + 4);
    if version != TRAILER_VERSION {
        return Err(bad(format!("extension map version {version} (this reader knows {TRAILER_VERSION})")));
    }
    if n == 0 || n > MAX_ENTRIES || n * ENTRY_SIZE > footer {
        return Err(bad(format!("extension map claims {n} entries")));
    }
    Ok(Some(n))
}

/// Fold the `n` entries before the footer that ends `b` into `header`,
/// every region between the header and `limit`, every module one
/// `may_hold` allows.
fn fold(header: &mut Header, b: &[u8], n: usize, limit: u64, may_hold: &dyn Fn(usize, u32) -> bool) -> Result<()> {
    let first = b.len() - FOOTER_SIZE - n * ENTRY_SIZE;
    for k in 0..n {
        let e = &b[first + k * ENTRY_SIZE..first + (k + 1) * ENTRY_SIZE];
        let id = u32_at(e, ENTRY_ID) as usize;
        let ver = u32_at(e, ENTRY_VERSION);
        let map = RegionMap { off: u64_at(e, ENTRY_OFF), len: u64_at(e, ENTRY_LEN) };
        let flags = u32_at(e, ENTRY_FLAGS);
        if id >= MAX_MODS || !may_hold(id, ver) {
            return Err(bad(format!(
                "extension map names module id {id} (only ids {KNOWN_MODULE_COUNT}-{} go there, and in a \
                 crash-safe file DXT's traces as it keeps them)",
                MAX_MODS - 1
            )));
        }
        if header.mod_map[id].len > 0 || header.mod_ver[id] != 0 {
            return Err(bad(format!("module id {id} is in both the header's map and the extension map")));
        }
        let inside = map.len == 0
            || (map.off >= HEADER_SIZE as u64 && map.off.checked_add(map.len).is_some_and(|end| end <= limit));
        if !inside {
            return Err(LogError::BadRegion {
                region: format!("module {id} ({})", crate::modules::module_name(id)),
                off: map.off,
                len: map.len,
                file_size: limit,
            });
        }
        header.mod_map[id] = map;
        header.mod_ver[id] = ver;
        if flags & 1 != 0 {
            header.partial_flag |= 1u64 << id;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::Compression;

    fn header() -> Header {
        Header {
            job_map: RegionMap { off: HEADER_SIZE as u64, len: 10 },
            name_map: RegionMap { off: HEADER_SIZE as u64 + 10, len: 0 },
            ..Header::empty(Compression::Zlib)
        }
    }

    /// A file image: encoded header, `body` bytes of regions, trailer.
    fn file(h: &Header, body: usize) -> Vec<u8> {
        let mut f = h.encode();
        f.resize(HEADER_SIZE + body, 7);
        f.extend_from_slice(&encode_trailer(h));
        f
    }

    fn reread(f: &[u8]) -> Result<Header> {
        let mut h = Header::parse(&f[..HEADER_SIZE], f.len() as u64)?;
        let tail = &f[f.len().saturating_sub(MAX_TRAILER_SIZE)..];
        apply_trailer(&mut h, tail, f.len() as u64)?;
        Ok(h)
    }

    #[test]
    fn extension_modules_leave_the_header_and_come_back() {
        let mut h = header();
        h.mod_map[1] = RegionMap { off: HEADER_SIZE as u64 + 10, len: 20 };
        h.mod_ver[1] = 4;
        h.mod_map[63] = RegionMap { off: HEADER_SIZE as u64 + 30, len: 15 };
        h.mod_ver[63] = 1;
        h.partial_flag = (1 << 63) | (1 << 1);
        let f = file(&h, 45);
        // What C's tools and PyDarshan read: POSIX only, its partial bit only.
        let seen_by_c = Header::parse(&f[..HEADER_SIZE], f.len() as u64).unwrap();
        assert_eq!(seen_by_c.mod_map[63], RegionMap::default());
        assert_eq!(seen_by_c.mod_ver[63], 0);
        assert_eq!(seen_by_c.partial_flag, 1 << 1);
        assert_eq!(seen_by_c.mod_map[1], h.mod_map[1]);
        let back = reread(&f).unwrap();
        assert_eq!(back.mod_map, h.mod_map);
        assert_eq!(back.mod_ver, h.mod_ver);
        assert_eq!(back.partial_flag, h.partial_flag);
    }

    #[test]
    fn a_log_without_extension_modules_has_no_trailer() {
        let h = header();
        assert!(encode_trailer(&h).is_empty());
        let f = file(&h, 10);
        assert_eq!(f.len(), HEADER_SIZE + 10);
        assert_eq!(reread(&f).unwrap().mod_map, h.mod_map);
    }

    #[test]
    fn hostile_trailers_are_errors_not_panics() {
        let mut h = header();
        h.mod_map[63] = RegionMap { off: HEADER_SIZE as u64 + 10, len: 15 };
        h.mod_ver[63] = 1;
        let good = file(&h, 25);
        let n_at = good.len() - FOOTER_SIZE;
        let entry = n_at - ENTRY_SIZE;
        type Lie = Box<dyn Fn(&mut Vec<u8>)>;
        let cases: Vec<(&str, Lie)> = vec![
            ("count beyond the file", Box::new(move |f| f[n_at..n_at + 4].copy_from_slice(&u32::MAX.to_le_bytes()))),
            ("count zero", Box::new(move |f| f[n_at..n_at + 4].copy_from_slice(&0u32.to_le_bytes()))),
            ("a known id", Box::new(move |f| f[entry..entry + 4].copy_from_slice(&1u32.to_le_bytes()))),
            ("id past 63", Box::new(move |f| f[entry..entry + 4].copy_from_slice(&64u32.to_le_bytes()))),
            (
                "region into the trailer",
                Box::new(move |f| f[entry + 16..entry + 24].copy_from_slice(&26u64.to_le_bytes())),
            ),
            ("offset overflow", Box::new(move |f| f[entry + 8..entry + 16].copy_from_slice(&u64::MAX.to_le_bytes()))),
            (
                "region inside the header",
                Box::new(move |f| f[entry + 8..entry + 16].copy_from_slice(&8u64.to_le_bytes())),
            ),
            ("unknown trailer version", Box::new(move |f| f[n_at + 4..n_at + 8].copy_from_slice(&2u32.to_le_bytes()))),
        ];
        for (what, damage) in cases {
            let mut f = good.clone();
            damage(&mut f);
            assert!(matches!(reread(&f), Err(LogError::BadExtensionMap(_) | LogError::BadRegion { .. })), "{what}");
        }
        assert!(reread(&good).is_ok());
        // A footer whose entries were cut away: the count reaches into
        // the header.
        let mut cut = good[..HEADER_SIZE + 10].to_vec();
        cut.extend_from_slice(&good[n_at..]);
        assert!(matches!(reread(&cut), Err(LogError::BadExtensionMap(_))));
    }
}
