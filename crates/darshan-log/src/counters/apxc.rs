//! AutoPerf's Cray XC module (APXC, module id 13, version 1): what a C
//! Darshan built with `--enable-apxc-mod` records of a job's Aries
//! routers (argonne-lcf/autoperf's `apxc/darshan-apxc-log-format.h`, the
//! submodule commit 8623a06 that Darshan 3.5.0 pins). The region holds
//! one header record (id, rank, magic, the job's blades, chassis and
//! groups, the KNL memory and cluster modes, the application id), then
//! one record per router: where it is (group, chassis, blade, node) and
//! its 392 port counters, read through PAPI.
//!
//! The counters are every router tile's (rows 0-4, columns 0-7: flits
//! on the eight virtual channels and row-bus stalls), then the
//! processor tiles' (row 5: flits on virtual channels 0 and 4, request
//! and response row-bus stalls), in C's order.

use super::{c_names, flatten};

/// The module version this layout is.
pub const VERSION: u32 = 1;
/// The header record's magic: "AUTOPERF" as C builds it.
pub const MAGIC: i64 = i64::from_be_bytes(*b"AUTOPERF");

pub const NUM_INDICES: usize = 392;

/// `struct darshan_apxc_header_record`: id, rank, then seven 8-byte
/// fields.
pub const HEADER_SIZE: usize = 16 + 7 * 8;
/// `struct darshan_apxc_perf_record`: id, rank, group, chassis, blade,
/// node, the counters.
pub const PERF_SIZE: usize = 16 + 4 * 8 + 8 * NUM_INDICES;

/// The memory modes' names (`apxc_mmodes`, the header's `memory_mode`
/// without its top flag indexes them; the last is the enum's count).
pub const MEMORY_MODES: [&str; 6] = ["MM_UNKNOWN", "MM_FLAT", "MM_EQUAL", "MM_SPLIT", "MM_CACHE", "MM_NUM_INDICES"];
/// The cluster modes' names (`apxc_cmodes`, as C spells its count).
pub const CLUSTER_MODES: [&str; 7] =
    ["CM_UNKNOWN", "CM_ALL2ALL", "CM_QUAD", "CM_HEMI", "CM_SNC4", "CM_SNC2", "CM_NUM_INDICIES"];

/// The mode a header's `memory_mode` or `cluster_mode` names, as C
/// computes its index: the value with bit 31 cleared (`& ~(1<<31)`, an
/// int mask, so only bits 0-30 are kept).
pub fn mode_index(v: i64) -> u64 {
    (v & 0x7fff_ffff) as u64
}

/// Whether the ranks agreed on the mode: C's `(v & (1<<31)) == 0`, whose
/// int mask is sign-extended, so any of bits 31-63 set says they did not.
pub fn mode_consistent(v: i64) -> bool {
    v as u64 & 0xffff_ffff_8000_0000 == 0
}

/// One router tile's counter names (`$end` after each: "" or "\0").
macro_rules! router_tile {
    ($x:literal $y:literal $end:literal) => {
        &[
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC0", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC1", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC2", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC3", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC4", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC5", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC6", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_INCOMING_FLIT_VC7", $end),
            concat!("APXC_AR_RTR_", $x, "_", $y, "_INQ_PRF_ROWBUS_STALL_CNT", $end),
        ]
    };
}

/// One processor tile's counter names.
macro_rules! processor_tile {
    ($y:literal $end:literal) => {
        &[
            concat!("APXC_AR_RTR_PT_5_", $y, "_INQ_PRF_INCOMING_FLIT_VC0", $end),
            concat!("APXC_AR_RTR_PT_5_", $y, "_INQ_PRF_INCOMING_FLIT_VC4", $end),
            concat!("APXC_AR_RTR_PT_5_", $y, "_INQ_PRF_REQ_ROWBUS_STALL_CNT", $end),
            concat!("APXC_AR_RTR_PT_5_", $y, "_INQ_PRF_RSP_ROWBUS_STALL_CNT", $end),
        ]
    };
}

/// Every tile's names, one part per tile, in C's order: rows 0-4 of
/// router tiles, then row 5's processor tiles, columns 0-7 in each row.
macro_rules! tiles {
    ($end:literal) => {
        tiles!(@ $end; [0: 0 1 2 3 4 5 6 7] [1: 0 1 2 3 4 5 6 7] [2: 0 1 2 3 4 5 6 7]
            [3: 0 1 2 3 4 5 6 7] [4: 0 1 2 3 4 5 6 7]; 0 1 2 3 4 5 6 7)
    };
    (@ $end:literal; $([$x:literal: $($y:literal)*])*; $($p:literal)*) => {
        [$($(router_tile!($x $y $end),)*)* $(processor_tile!($p $end),)*]
    };
}

/// The counters' names, as darshan-parser prints them.
pub const NAMES: [&str; NUM_INDICES] = flatten(&tiles!(""), "");

/// darshan-util's `apxc_counter_names`: the names as C strings, then
/// the enum's count (where PyDarshan stops reading).
pub const C_NAMES: [&core::ffi::CStr; NUM_INDICES + 1] = c_names(C_TEXT);
const C_TEXT: [&str; NUM_INDICES + 1] = {
    let tiles: [&[&str]; 48] = tiles!("\0");
    let mut parts: [&[&str]; 49] = [&[]; 49];
    let mut k = 0;
    while k < tiles.len() {
        parts[k] = tiles[k];
        k += 1;
    }
    parts[48] = &["APXC_NUM_INDICES\0"];
    flatten(&parts, "")
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_are_the_sizes_the_c_structs_are() {
        // PyDarshan's cdef: counters[392] after six 8-byte fields.
        assert_eq!(PERF_SIZE, 3184);
        assert_eq!(HEADER_SIZE, 72);
        // The magic of the corpus's APXC header, as its bytes lie.
        assert_eq!(MAGIC, 0x4155_544f_5045_5246);
    }

    #[test]
    fn names_follow_the_tiles_in_order() {
        assert_eq!(NAMES[0], "APXC_AR_RTR_0_0_INQ_PRF_INCOMING_FLIT_VC0");
        assert_eq!(NAMES[8], "APXC_AR_RTR_0_0_INQ_PRF_ROWBUS_STALL_CNT");
        assert_eq!(NAMES[9], "APXC_AR_RTR_0_1_INQ_PRF_INCOMING_FLIT_VC0");
        assert_eq!(NAMES[359], "APXC_AR_RTR_4_7_INQ_PRF_ROWBUS_STALL_CNT");
        assert_eq!(NAMES[360], "APXC_AR_RTR_PT_5_0_INQ_PRF_INCOMING_FLIT_VC0");
        assert_eq!(NAMES[NUM_INDICES - 1], "APXC_AR_RTR_PT_5_7_INQ_PRF_RSP_ROWBUS_STALL_CNT");
        assert_eq!(C_NAMES[NUM_INDICES].to_bytes(), b"APXC_NUM_INDICES");
        assert!(NAMES.iter().zip(&C_NAMES).all(|(n, c)| n.as_bytes() == c.to_bytes()));
    }

    #[test]
    fn modes_are_read_with_c_int_masks() {
        assert_eq!(mode_index(2), 2);
        assert!(mode_consistent(2));
        assert_eq!(mode_index(1 << 31 | 3), 3);
        assert!(!mode_consistent(1 << 31 | 3));
        // Bits above 31 are not in the index, and say "not consistent".
        assert_eq!(mode_index(1 << 40 | 4), 4);
        assert!(!mode_consistent(1 << 40));
    }
}
