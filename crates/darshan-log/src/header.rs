//! The uncompressed header at offset 0: version, magic, compression,
//! partial flags, region map and module versions; old (360-byte) headers are
//! widened to the 64-slot form with the module-id remapping of docs/log-format.md §1.

use crate::error::{LogError, Result};
use crate::modules::MAX_MODS;

pub const MAGIC: u64 = 6567223;
pub const HEADER_SIZE: usize = 1328;
pub const OLD_HEADER_SIZE: usize = 360;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogVersion {
    V300,
    V310,
    V320,
    V321,
    V341,
}

impl LogVersion {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "3.00" => LogVersion::V300,
            "3.10" => LogVersion::V310,
            "3.20" => LogVersion::V320,
            "3.21" => LogVersion::V321,
            "3.41" => LogVersion::V341,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            LogVersion::V300 => "3.00",
            LogVersion::V310 => "3.10",
            LogVersion::V320 => "3.20",
            LogVersion::V321 => "3.21",
            LogVersion::V341 => "3.41",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Zlib,
    Bzip2,
    None,
}

impl Compression {
    pub fn code(self) -> u8 {
        match self {
            Compression::Zlib => 0,
            Compression::Bzip2 => 1,
            Compression::None => 2,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Compression::Zlib => "ZLIB",
            Compression::Bzip2 => "BZIP2",
            Compression::None => "NONE",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionMap {
    pub off: u64,
    pub len: u64,
}

#[derive(Clone, Debug)]
pub struct Header {
    pub version: LogVersion,
    /// True when the log was written in the other byte order.
    pub swapped: bool,
    pub compression: Compression,
    /// Bit i set: module i ran out of memory (3.41 numbering).
    pub partial_flag: u64,
    pub job_map: RegionMap,
    pub name_map: RegionMap,
    pub mod_map: [RegionMap; MAX_MODS],
    pub mod_ver: [u32; MAX_MODS],
}

struct Fields<'a> {
    b: &'a [u8],
    swapped: bool,
}

impl Fields<'_> {
    fn u64(&self, off: usize) -> u64 {
        let v = u64::from_le_bytes(self.b[off..off + 8].try_into().unwrap_or([0; 8]));
        if self.swapped {
            v.swap_bytes()
        } else {
            v
        }
    }
    fn u32(&self, off: usize) -> u32 {
        let v = u32::from_le_bytes(self.b[off..off + 4].try_into().unwrap_or([0; 4]));
        if self.swapped {
            v.swap_bytes()
        } else {
            v
        }
    }
}

/// The log's version string and byte order (from its magic number).
fn identify(bytes: &[u8], file_size: u64) -> Result<(LogVersion, bool)> {
    if file_size == 0 || bytes.len() >= 16 && bytes[..16].iter().all(|&b| b == 0) {
        return Err(LogError::NoHeader { size: file_size });
    }
    if bytes.len() < 16 {
        return Err(LogError::TooShort { size: file_size, need: OLD_HEADER_SIZE as u64 });
    }
    let vend = bytes[..8].iter().position(|&c| c == 0).unwrap_or(8);
    let vstr = String::from_utf8_lossy(&bytes[..vend]).into_owned();
    let raw_magic = u64::from_le_bytes(bytes[8..16].try_into().unwrap_or([0; 8]));
    let swapped = if raw_magic == MAGIC {
        false
    } else if raw_magic.swap_bytes() == MAGIC {
        true
    } else {
        return Err(LogError::BadMagic(raw_magic));
    };
    let version = LogVersion::parse(&vstr).ok_or(LogError::UnknownVersion(vstr))?;
    Ok((version, swapped))
}

/// The partial flags, the name region's map and every module's map and
/// version, renumbered to 3.41's module ids (older logs lack slot 4,
/// before 3.20, and slot 6).
fn read_maps(f: &Fields<'_>, version: LogVersion) -> (u64, RegionMap, [RegionMap; MAX_MODS], [u32; MAX_MODS]) {
    let mut mod_map = [RegionMap::default(); MAX_MODS];
    let mut mod_ver = [0u32; MAX_MODS];
    let (mut partial_flag, name_map) = if version == LogVersion::V341 {
        for (i, m) in mod_map.iter_mut().enumerate() {
            *m = RegionMap { off: f.u64(48 + 16 * i), len: f.u64(56 + 16 * i) };
        }
        for (i, v) in mod_ver.iter_mut().enumerate() {
            *v = f.u32(1072 + 4 * i);
        }
        (f.u64(24), RegionMap { off: f.u64(32), len: f.u64(40) })
    } else {
        for i in 0..16 {
            mod_map[i] = RegionMap { off: f.u64(40 + 16 * i), len: f.u64(48 + 16 * i) };
            mod_ver[i] = f.u32(296 + 4 * i);
        }
        (f.u32(20) as u64, RegionMap { off: f.u64(24), len: f.u64(32) })
    };
    if version < LogVersion::V320 {
        insert_slot(&mut mod_map, 4);
        insert_slot(&mut mod_ver, 4);
        partial_flag = insert_bit(partial_flag, 4);
    }
    if version < LogVersion::V341 {
        insert_slot(&mut mod_map, 6);
        insert_slot(&mut mod_ver, 6);
        partial_flag = insert_bit(partial_flag, 6);
    }
    (partial_flag, name_map, mod_map, mod_ver)
}

/// Insert an empty slot at `at`, shifting later slots up by one.
fn insert_slot<T: Copy + Default>(arr: &mut [T; MAX_MODS], at: usize) {
    for i in (at + 1..MAX_MODS).rev() {
        arr[i] = arr[i - 1];
    }
    arr[at] = T::default();
}

fn insert_bit(flag: u64, at: usize) -> u64 {
    let low = flag & ((1u64 << at) - 1);
    let high = flag & !((1u64 << at) - 1);
    low | (high << 1)
}

impl Header {
    /// A current-version header that maps no region yet.
    pub fn empty(compression: Compression) -> Header {
        Header {
            version: LogVersion::V341,
            swapped: false,
            compression,
            partial_flag: 0,
            job_map: RegionMap::default(),
            name_map: RegionMap::default(),
            mod_map: [RegionMap::default(); MAX_MODS],
            mod_ver: [0; MAX_MODS],
        }
    }

    /// Parse the header from the first bytes of a log of `file_size` bytes.
    pub fn parse(bytes: &[u8], file_size: u64) -> Result<Header> {
        let (version, swapped) = identify(bytes, file_size)?;
        let size = if version == LogVersion::V341 { HEADER_SIZE } else { OLD_HEADER_SIZE };
        if bytes.len() < size {
            return Err(LogError::TooShort { size: file_size, need: size as u64 });
        }
        let compression = match bytes[16] {
            0 => Compression::Zlib,
            1 => Compression::Bzip2,
            2 => Compression::None,
            c => return Err(LogError::BadCompression(c)),
        };
        let (partial_flag, name_map, mod_map, mod_ver) = read_maps(&Fields { b: bytes, swapped }, version);
        let mut h = Header {
            version,
            swapped,
            compression,
            partial_flag,
            job_map: RegionMap::default(),
            name_map,
            mod_map,
            mod_ver,
        };
        h.job_map = h.derive_job_map(size as u64, file_size);
        h.validate(file_size)?;
        Ok(h)
    }

    /// The job region has no map entry: it runs from the end of the header
    /// to the name region (or the first module region, or end of file).
    fn derive_job_map(&self, header_size: u64, file_size: u64) -> RegionMap {
        let end = if self.name_map.off != 0 {
            self.name_map.off
        } else if let Some(m) = self.mod_map.iter().find(|m| m.off != 0) {
            m.off
        } else {
            file_size
        };
        RegionMap { off: header_size, len: end.saturating_sub(header_size) }
    }

    fn validate(&self, file_size: u64) -> Result<()> {
        // The region's name is made only for an error: a header is parsed
        // for every log a tool opens, and the live view parses one per
        // process per interval.
        let check = |region: &dyn Fn() -> String, m: &RegionMap| -> Result<()> {
            if m.len == 0 {
                return Ok(());
            }
            match m.off.checked_add(m.len) {
                Some(end) if end <= file_size => Ok(()),
                _ => Err(LogError::BadRegion { region: region(), off: m.off, len: m.len, file_size }),
            }
        };
        check(&|| "job".into(), &self.job_map)?;
        if self.job_map.len == 0 {
            return Err(LogError::BadRegion { region: "job".into(), off: self.job_map.off, len: 0, file_size });
        }
        check(&|| "name".into(), &self.name_map)?;
        for (i, m) in self.mod_map.iter().enumerate() {
            check(&|| format!("module {} ({})", i, crate::modules::module_name(i)), m)?;
        }
        Ok(())
    }

    /// Encode a "3.41" header (always little-endian). Modules with ids
    /// Darshan does not know are left out of its map and partial flags:
    /// they go in the extension trailer ([`crate::extension::encode_trailer`]),
    /// which whoever writes the header must write after the last region.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_ids(crate::modules::KNOWN_MODULE_COUNT)
    }

    /// Encode a crash-safe file's header (docs/log-format.md §10): every
    /// module id in the map and the partial flags, as the runtime writes
    /// them (an uncompressed file has no extension trailer).
    pub fn encode_crash_safe(&self) -> Vec<u8> {
        self.encode_ids(MAX_MODS)
    }

    fn encode_ids(&self, ids: usize) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[..4].copy_from_slice(b"3.41");
        b[8..16].copy_from_slice(&MAGIC.to_le_bytes());
        b[16] = self.compression.code();
        let mapped = if ids >= 64 { u64::MAX } else { (1u64 << ids) - 1 };
        b[24..32].copy_from_slice(&(self.partial_flag & mapped).to_le_bytes());
        b[32..40].copy_from_slice(&self.name_map.off.to_le_bytes());
        b[40..48].copy_from_slice(&self.name_map.len.to_le_bytes());
        for i in 0..ids.min(MAX_MODS) {
            b[48 + 16 * i..56 + 16 * i].copy_from_slice(&self.mod_map[i].off.to_le_bytes());
            b[56 + 16 * i..64 + 16 * i].copy_from_slice(&self.mod_map[i].len.to_le_bytes());
            b[1072 + 4 * i..1076 + 4 * i].copy_from_slice(&self.mod_ver[i].to_le_bytes());
        }
        b
    }

    pub fn is_partial(&self, module: usize) -> bool {
        module < 64 && self.partial_flag & (1u64 << module) != 0
    }
}
