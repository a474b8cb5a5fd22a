//! `lustre.lov` attributes built as Lustre writes them (`lustre_user.h`,
//! host byte order), for the LUSTRE module's tests: what the FUSE file
//! system of the end-to-end tests serves, and the unit tests decode.

pub const MAGIC_V1: u32 = 0x0BD1_0BD0;
pub const MAGIC_V3: u32 = 0x0BD3_0BD0;
pub const MAGIC_COMP_V1: u32 = 0x0BD6_0BD0;
pub const LOV_PATTERN_RAID0: u32 = 0x1;
pub const LOV_PATTERN_MDT: u32 = 0x100;
pub const LOV_PATTERN_OVERSTRIPING: u32 = 0x200;
pub const LCME_FL_INIT: u32 = 0x10;
pub const LCME_FL_EXTENSION: u32 = 0x40;

/// A plain layout: V3 when `pool` is given, else V1; one 24-byte object
/// per OST index in `osts` (an uninstantiated layout has none).
pub fn plain(pattern: u32, stripe_size: u32, stripe_count: u16, pool: Option<&str>, osts: &[u32]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&(if pool.is_some() { MAGIC_V3 } else { MAGIC_V1 }).to_le_bytes());
    b.extend_from_slice(&pattern.to_le_bytes());
    b.extend_from_slice(&0x2_0000_0401u64.to_le_bytes()); // lmm_oi: object id
    b.extend_from_slice(&0x2_0000_0000u64.to_le_bytes()); // and sequence
    b.extend_from_slice(&stripe_size.to_le_bytes());
    b.extend_from_slice(&stripe_count.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes()); // layout generation
    if let Some(p) = pool {
        let mut name = [0u8; 16];
        let n = p.len().min(15);
        name[..n].copy_from_slice(&p.as_bytes()[..n]);
        b.extend_from_slice(&name);
    }
    for (k, &ost) in osts.iter().enumerate() {
        b.extend_from_slice(&(0x1000 + k as u64).to_le_bytes()); // object id
        b.extend_from_slice(&0u64.to_le_bytes()); // sequence
        b.extend_from_slice(&0u32.to_le_bytes()); // generation
        b.extend_from_slice(&ost.to_le_bytes());
    }
    b
}

/// One component of a composite layout.
pub struct Entry {
    pub id: u32,
    pub flags: u32,
    pub start: u64,
    pub end: u64,
    pub blob: Vec<u8>,
}

/// A composite layout (`lov_comp_md_v1`): header, entries, then each
/// component's plain layout.
pub fn composite(mirror_count: u16, entries: &[Entry]) -> Vec<u8> {
    let head = 32 + 48 * entries.len();
    let total = head + entries.iter().map(|e| e.blob.len()).sum::<usize>();
    let mut b = Vec::with_capacity(total);
    b.extend_from_slice(&MAGIC_COMP_V1.to_le_bytes());
    b.extend_from_slice(&(total as u32).to_le_bytes());
    b.extend_from_slice(&3u32.to_le_bytes()); // layout generation
    b.extend_from_slice(&0u16.to_le_bytes()); // flags
    b.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    b.extend_from_slice(&mirror_count.saturating_sub(1).to_le_bytes());
    b.extend_from_slice(&[0u8; 14]);
    let mut off = head;
    for e in entries {
        b.extend_from_slice(&e.id.to_le_bytes());
        b.extend_from_slice(&e.flags.to_le_bytes());
        b.extend_from_slice(&e.start.to_le_bytes());
        b.extend_from_slice(&e.end.to_le_bytes());
        b.extend_from_slice(&(off as u32).to_le_bytes());
        b.extend_from_slice(&(e.blob.len() as u32).to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes()); // layout generation
        b.extend_from_slice(&0u64.to_le_bytes()); // timestamp
        b.extend_from_slice(&0u32.to_le_bytes()); // padding
        off += e.blob.len();
    }
    for e in entries {
        b.extend_from_slice(&e.blob);
    }
    b
}

/// `lfs setstripe -E 4M -c 1 -E 64M -c 4 -E -1 -c -1`: a progressive
/// layout with its first two components instantiated (1 and 4 stripes of
/// 1 MiB on OSTs 5 and 6, 7, 0, 1), the last (all OSTs, 4 MiB) not yet.
pub fn progressive_layout() -> Vec<u8> {
    composite(
        1,
        &[
            Entry { id: 1, flags: LCME_FL_INIT, start: 0, end: 4 << 20, blob: plain(1, 1 << 20, 1, None, &[5]) },
            Entry {
                id: 2,
                flags: LCME_FL_INIT,
                start: 4 << 20,
                end: 64 << 20,
                blob: plain(1, 1 << 20, 4, None, &[6, 7, 0, 1]),
            },
            Entry { id: 3, flags: 0, start: 64 << 20, end: u64::MAX, blob: plain(1, 4 << 20, 0xffff, None, &[]) },
        ],
    )
}
