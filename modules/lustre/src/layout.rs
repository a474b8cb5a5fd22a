//! The `lustre.lov` extended attribute, decoded without liblustreapi.
//!
//! The attribute is a `lov_user_md` in the host's byte order (Lustre's
//! `lustre_user.h`): a plain layout (V1, or V3 with a pool name) or a
//! composite one (a `lov_comp_md_v1` header, 48-byte entries, and a plain
//! layout blob per component: progressive file layouts, mirrors). Each
//! component is described as liblustreapi's `llapi_layout_*` getters
//! describe it, because those are what the C module records: the same
//! special values (LLAPI_LAYOUT_DEFAULT for a stripe size or count of 0,
//! LLAPI_LAYOUT_WIDE for "all OSTs"), the same pattern mapping, a mirror
//! id of `id >> 16`, and a plain layout's extent of [0, EOF).
//!
//! Nothing here allocates: the close wrapper decodes straight into the
//! record memory. A blob that does not hold together (unknown magic, a
//! header or entry past the end, no component) is `None`: no record.

/// liblustreapi's "not set" and "all OSTs" values (`lustreapi.h`).
pub const LAYOUT_DEFAULT: u64 = 0x1000_0000_0000_0002;
pub const LAYOUT_WIDE: u64 = 0x1000_0000_0000_0003;
/// llapi patterns (what the record's STRIPE_PATTERN holds).
pub const PATTERN_RAID0: u64 = 0;
pub const PATTERN_MDT: u64 = 2;
pub const PATTERN_OVERSTRIPING: u64 = 4;
pub const PATTERN_FOREIGN: u64 = 8;
/// Component flags (`lcme_flags`).
pub const FL_INIT: u32 = 0x10;
pub const FL_EXTENSION: u32 = 0x40;

pub const MAGIC_V1: u32 = 0x0BD1_0BD0;
pub const MAGIC_V3: u32 = 0x0BD3_0BD0;
pub const MAGIC_SPECIFIC: u32 = 0x0BD5_0BD0;
pub const MAGIC_COMP_V1: u32 = 0x0BD6_0BD0;
pub const MAGIC_FOREIGN: u32 = 0x0BD7_0BD0;

const V1_HEADER: usize = 32;
const V3_HEADER: usize = 48;
const OST_DATA: usize = 24;
const COMP_HEADER: usize = 32;
const COMP_ENTRY: usize = 48;
/// The end of file in an extent (`LUSTRE_EOF`).
const EOF: u64 = u64::MAX;
/// lov pattern bits (`lmm_pattern`).
const LOV_RAID0: u32 = 0x1;
const LOV_MDT: u32 = 0x100;
const LOV_OVERSTRIPING: u32 = 0x200;

/// One component as the llapi getters give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Component<'a> {
    /// Stripe size; None where `llapi_layout_stripe_size_get` fails (an
    /// extension or foreign component), which the C module skips.
    pub stripe_size: Option<u64>,
    pub stripe_count: u64,
    pub pattern: u64,
    pub flags: u32,
    pub ext_start: u64,
    pub ext_end: u64,
    pub mirror_id: u32,
    /// Up to the first NUL, at most 15 bytes.
    pub pool: &'a [u8],
    /// The `lov_user_ost_data_v1` entries present (24 bytes each).
    objects: &'a [u8],
    swapped: bool,
}

impl Component<'_> {
    /// Stripe `i`'s OST index as `llapi_layout_ost_index_get` gives it:
    /// None past the stripe count or the objects present.
    pub fn ost(&self, i: u64) -> Option<u64> {
        if i >= self.stripe_count || i >= (self.objects.len() / OST_DATA) as u64 {
            return None;
        }
        let at = i as usize * OST_DATA + 20;
        u32_at(self.objects, at, self.swapped).map(u64::from)
    }
}

/// A decoded attribute: whether it is composite, and its components.
#[derive(Clone, Copy)]
pub struct Layout<'a> {
    blob: &'a [u8],
    pub composite: bool,
    /// Components (1 for a plain layout).
    pub count: usize,
    swapped: bool,
}

fn u16_at(b: &[u8], at: usize, swapped: bool) -> Option<u16> {
    let v = u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?);
    Some(if swapped { v.swap_bytes() } else { v })
}

fn u32_at(b: &[u8], at: usize, swapped: bool) -> Option<u32> {
    let v = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?);
    Some(if swapped { v.swap_bytes() } else { v })
}

fn u64_at(b: &[u8], at: usize, swapped: bool) -> Option<u64> {
    let v = u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?);
    Some(if swapped { v.swap_bytes() } else { v })
}

/// The magic, and whether the blob is in the other byte order (liblustreapi
/// accepts both).
fn magic(b: &[u8]) -> Option<(u32, bool)> {
    let m = u32_at(b, 0, false)?;
    let known = |m: u32| matches!(m, MAGIC_V1 | MAGIC_V3 | MAGIC_SPECIFIC | MAGIC_COMP_V1 | MAGIC_FOREIGN);
    if known(m) {
        Some((m, false))
    } else if known(m.swap_bytes()) {
        Some((m.swap_bytes(), true))
    } else {
        None
    }
}

/// Decode the attribute's header; None if it cannot be a layout.
pub fn parse(blob: &[u8]) -> Option<Layout<'_>> {
    let (m, swapped) = magic(blob)?;
    let l = match m {
        MAGIC_V1 | MAGIC_V3 | MAGIC_SPECIFIC => Layout { blob, composite: false, count: 1, swapped },
        MAGIC_COMP_V1 => {
            if blob.len() < COMP_HEADER {
                return None;
            }
            let count = usize::from(u16_at(blob, 14, swapped)?);
            if count == 0 || COMP_HEADER + count * COMP_ENTRY > blob.len() {
                return None;
            }
            Layout { blob, composite: true, count, swapped }
        }
        // A foreign (HSM) layout has no striping (llapi refuses it here).
        _ => return None,
    };
    // Every component must decode: a layout is taken whole or not at all.
    (0..l.count).all(|i| l.component(i).is_some()).then_some(l)
}

/// A component's place in the layout: its own bytes and, in a composite
/// layout, its entry's flags, extent and mirror.
struct Entry<'a> {
    plain: &'a [u8],
    flags: u32,
    ext_start: u64,
    ext_end: u64,
    mirror_id: u32,
}

impl<'a> Entry<'a> {
    /// The component this entry places, without striping: what a foreign
    /// (HSM) component inside a composite layout is (no stripes, and no
    /// stripe size, so never recorded), and the base of a striped one.
    fn unstriped(&self, swapped: bool) -> Component<'a> {
        Component {
            stripe_size: None,
            stripe_count: 0,
            pattern: PATTERN_FOREIGN,
            flags: self.flags,
            ext_start: self.ext_start,
            ext_end: self.ext_end,
            mirror_id: self.mirror_id,
            pool: &[],
            objects: &[],
            swapped,
        }
    }
}

impl<'a> Layout<'a> {
    /// Component `i` (0-based, in the attribute's order).
    pub fn component(&self, i: usize) -> Option<Component<'a>> {
        let s = self.swapped;
        let e = self.entry(i)?;
        let plain = e.plain;
        let header = match magic(plain)?.0 {
            MAGIC_V1 => V1_HEADER,
            MAGIC_V3 | MAGIC_SPECIFIC => V3_HEADER,
            MAGIC_FOREIGN if self.composite => return Some(e.unstriped(s)),
            _ => return None,
        };
        if plain.len() < header {
            return None;
        }
        let size = u32_at(plain, 24, s)?;
        let pool: &[u8] = if header == V3_HEADER {
            let p = &plain[32..48];
            &p[..p.iter().position(|&b| b == 0).unwrap_or(16).min(15)]
        } else {
            &[]
        };
        let n = (plain.len() - header) / OST_DATA;
        Some(Component {
            stripe_size: (e.flags & FL_EXTENSION == 0).then_some(if size == 0 {
                LAYOUT_DEFAULT
            } else {
                u64::from(size)
            }),
            stripe_count: stripe_count(u16_at(plain, 28, s)?),
            pattern: pattern(u32_at(plain, 4, s)?),
            pool,
            objects: &plain[header..header + n * OST_DATA],
            ..e.unstriped(s)
        })
    }

    /// Component `i`'s entry: of a composite layout's table, or the whole
    /// attribute as the one component of a plain layout.
    fn entry(&self, i: usize) -> Option<Entry<'a>> {
        let s = self.swapped;
        if !self.composite {
            return (i == 0).then_some(Entry { plain: self.blob, flags: 0, ext_start: 0, ext_end: EOF, mirror_id: 0 });
        }
        let e = COMP_HEADER + i * COMP_ENTRY;
        let (off, size) = (u32_at(self.blob, e + 24, s)? as usize, u32_at(self.blob, e + 28, s)? as usize);
        Some(Entry {
            plain: self.blob.get(off..off.checked_add(size)?)?,
            flags: u32_at(self.blob, e + 4, s)?,
            ext_start: u64_at(self.blob, e + 8, s)?,
            ext_end: u64_at(self.blob, e + 16, s)?,
            mirror_id: u32_at(self.blob, e, s)? >> 16,
        })
    }
}

/// The pattern as `llapi_layout_pattern_get` gives it.
fn pattern(lov_pattern: u32) -> u64 {
    if lov_pattern == LOV_RAID0 {
        PATTERN_RAID0
    } else if lov_pattern == LOV_RAID0 | LOV_OVERSTRIPING {
        PATTERN_OVERSTRIPING
    } else if lov_pattern & LOV_MDT != 0 {
        PATTERN_MDT
    } else {
        u64::from(lov_pattern)
    }
}

/// The stripe count as `llapi_layout_stripe_count_get` gives it: the
/// default, "wide" (overstriping's -1 - n), or the count.
fn stripe_count(count: u16) -> u64 {
    match count {
        0 => LAYOUT_DEFAULT,
        c if c >= 0xffe0 => LAYOUT_WIDE + u64::from(0xffff - c),
        c => u64::from(c),
    }
}
