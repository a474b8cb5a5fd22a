//! The decoder and the record builder on layouts made as Lustre writes
//! them (`darshan_test_support::lustre_blobs`).

use super::*;
use darshan_core::arena::RecordArena;
use darshan_test_support::lustre_blobs::*;

const EOF_I: u64 = u64::MAX;

/// A fresh record set with room for 64 nominal records.
fn fresh_set() -> VarRecordSet {
    let mut set = VarRecordSet::new(ID, record_len, HEAD + COMP_WORDS);
    let mut arena = RecordArena::new(1 << 20).unwrap();
    set.attach(arena.reserve(NOMINAL_WORDS, 64), &darshan_core::Env::for_tests());
    set
}

/// The record `attr` makes in a fresh set, as it would be written.
fn record_of(attr: &[u8]) -> Option<Vec<u64>> {
    let mut set = fresh_set();
    let off = record_layout(&mut set, 7, &layout::parse(attr)?)?;
    Some(truncated(set.record(off)))
}

fn comp(r: &[u64], k: usize) -> &[u64] {
    &r[HEAD + k * COMP_WORDS..HEAD + (k + 1) * COMP_WORDS]
}

fn pool(c: &[u64]) -> String {
    let b: Vec<u8> = c[7].to_le_bytes().into_iter().chain(c[8].to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8(b).unwrap()
}

#[test]
fn a_v1_layout_gives_one_component_over_the_whole_file() {
    let r = record_of(&plain(LOV_PATTERN_RAID0, 1 << 20, 4, None, &[3, 0, 1, 2])).unwrap();
    assert_eq!(&r[2..4], &[1, 4]);
    let c = comp(&r, 0);
    assert_eq!(&c[..7], &[1 << 20, 4, layout::PATTERN_RAID0, 0, 0, EOF_I, 0]);
    assert_eq!(pool(c), "");
    assert_eq!(&r[HEAD + COMP_WORDS..], &[3, 0, 1, 2]);
    assert_eq!(r.len(), record_len(&r));
}

#[test]
fn a_v3_layout_keeps_its_pool_name_as_darshan_does_at_most_14_bytes() {
    let r = record_of(&plain(LOV_PATTERN_RAID0, 4 << 20, 2, Some("flash"), &[8, 9])).unwrap();
    assert_eq!(pool(comp(&r, 0)), "flash");
    let r = record_of(&plain(LOV_PATTERN_RAID0, 4 << 20, 1, Some("fifteen-chars-x"), &[8])).unwrap();
    assert_eq!(pool(comp(&r, 0)), "fifteen-chars-");
}

#[test]
fn a_progressive_layout_keeps_only_its_instantiated_components() {
    // lfs setstripe -E 4M -c 1 -E 64M -c 4 -E -1 -c -1: the first two
    // instantiated, the last (all OSTs) not yet.
    let attr = progressive_layout();
    let l = layout::parse(&attr).unwrap();
    // Sized as C does: 3 components; 1 + 4 + (LLAPI_LAYOUT_WIDE as an int: 3).
    assert_eq!(sizes(&l), Some((3, 8)));
    let r = record_of(&attr).unwrap();
    assert_eq!(&r[2..4], &[2, 5]);
    assert_eq!(&comp(&r, 0)[..7], &[1 << 20, 1, 0, u64::from(LCME_FL_INIT), 0, 4 << 20, 0]);
    assert_eq!(&comp(&r, 1)[..7], &[1 << 20, 4, 0, u64::from(LCME_FL_INIT), 4 << 20, 64 << 20, 0]);
    assert_eq!(&r[HEAD + 2 * COMP_WORDS..], &[5, 6, 7, 0, 1]);
}

#[test]
fn mirrors_carry_their_mirror_id_and_an_mdt_component_has_no_stripes() {
    // Data on MDT for the first MiB, then two mirrors (ids 0x1000x, 0x2000x).
    let attr = composite(
        2,
        &[
            Entry {
                id: 0x10001,
                flags: LCME_FL_INIT,
                start: 0,
                end: 1 << 20,
                blob: plain(LOV_PATTERN_MDT, 1 << 20, 0, None, &[]),
            },
            Entry {
                id: 0x10002,
                flags: LCME_FL_INIT,
                start: 1 << 20,
                end: EOF_I,
                blob: plain(1, 1 << 20, 2, Some("p1"), &[1, 2]),
            },
            Entry {
                id: 0x20003,
                flags: LCME_FL_INIT | 0x4,
                start: 0,
                end: EOF_I,
                blob: plain(0x201, 65536, 3, None, &[4, 4, 5]),
            },
        ],
    );
    let r = record_of(&attr).unwrap();
    assert_eq!(&r[2..4], &[3, 5]);
    assert_eq!(&comp(&r, 0)[..3], &[1 << 20, 0, layout::PATTERN_MDT]);
    assert_eq!(comp(&r, 1)[MIRROR_ID], 1);
    assert_eq!(pool(comp(&r, 1)), "p1");
    assert_eq!(&comp(&r, 2)[..4], &[65536, 3, layout::PATTERN_OVERSTRIPING, u64::from(LCME_FL_INIT | 0x4)]);
    assert_eq!(comp(&r, 2)[MIRROR_ID], 2);
    assert_eq!(&r[HEAD + 3 * COMP_WORDS..], &[1, 2, 4, 4, 5]);
}

#[test]
fn a_layout_that_grew_after_the_record_was_sized_fills_what_fits() {
    let one = composite(
        1,
        &[Entry { id: 1, flags: LCME_FL_INIT, start: 0, end: EOF_I, blob: plain(1, 1 << 20, 2, None, &[0, 1]) }],
    );
    let two = composite(
        1,
        &[
            Entry { id: 1, flags: LCME_FL_INIT, start: 0, end: 8 << 20, blob: plain(1, 1 << 20, 2, None, &[0, 1]) },
            Entry { id: 2, flags: LCME_FL_INIT, start: 8 << 20, end: EOF_I, blob: plain(1, 1 << 20, 2, None, &[2, 3]) },
        ],
    );
    let mut set = fresh_set();
    record_layout(&mut set, 9, &layout::parse(&one).unwrap()).unwrap();
    let off = record_layout(&mut set, 9, &layout::parse(&two).unwrap()).unwrap();
    let r = truncated(set.record(off));
    assert_eq!(&r[2..4], &[1, 2], "one component and two OSTs fit");
    assert_eq!(&comp(&r, 0)[EXT_START..=EXT_END], &[0, 8 << 20]);
}

#[test]
fn extension_components_and_default_counts_are_never_recorded() {
    // A self-extending layout's extension component has no stripe size
    // for llapi_layout_stripe_size_get; a plain layout of count 0 is
    // "default" (2^60 + 2), more than the record has room for.
    let attr = composite(
        1,
        &[
            Entry { id: 1, flags: LCME_FL_INIT, start: 0, end: 64 << 20, blob: plain(1, 1 << 20, 1, None, &[3]) },
            Entry { id: 2, flags: LCME_FL_EXTENSION, start: 64 << 20, end: EOF_I, blob: plain(1, 256, 1, None, &[]) },
        ],
    );
    let r = record_of(&attr).unwrap();
    assert_eq!(&r[2..4], &[1, 1]);
    let r = record_of(&plain(1, 0, 0, None, &[])).unwrap();
    assert_eq!(&r[2..4], &[0, 0], "the one component is unused and dropped");
}

#[test]
fn malformed_and_truncated_blobs_decode_to_nothing() {
    let good = plain(1, 1 << 20, 2, None, &[0, 1]);
    assert!(layout::parse(&good).is_some());
    assert!(layout::parse(&good[..31]).is_none(), "shorter than a V1 header");
    assert!(layout::parse(&[]).is_none());
    assert!(layout::parse(b"not a layout at all, just some bytes").is_none());
    let comp = composite(1, &[Entry { id: 1, flags: LCME_FL_INIT, start: 0, end: EOF_I, blob: good.clone() }]);
    assert!(layout::parse(&comp).is_some());
    for cut in [0, 4, 31, 32, 79, 80, 100, comp.len() - 1] {
        assert!(layout::parse(&comp[..cut]).is_none(), "composite cut at {cut}");
    }
    let mut no_entries = comp.clone();
    no_entries[14] = 0;
    assert!(layout::parse(&no_entries).is_none());
    let mut far = comp.clone();
    far[32 + 24..32 + 28].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(layout::parse(&far).is_none(), "a component blob past the end");
    // Every prefix and a byte flipped anywhere: never a panic.
    for cut in 0..comp.len() {
        let _ = record_of(&comp[..cut]);
    }
    for i in 0..comp.len() {
        let mut b = comp.clone();
        b[i] ^= 0xff;
        let _ = record_of(&b);
    }
}

#[test]
fn a_blob_in_the_other_byte_order_decodes_the_same() {
    let le = plain(1, 1 << 20, 2, None, &[6, 7]);
    let mut be = le.clone();
    for (at, n) in [(0, 4), (4, 4), (24, 4), (28, 2), (30, 2), (32 + 20, 4), (56 + 20, 4)] {
        be[at..at + n].reverse();
    }
    assert_eq!(record_of(&be), record_of(&le));
}

#[test]
fn the_module_counts_bad_layouts_and_makes_one_record_per_file() {
    let env = darshan_core::Env::for_tests();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    LUSTRE.attach(arena.reserve(NOMINAL_WORDS, 16), &env);
    LUSTRE.on_layout(1, b"garbage");
    LUSTRE.on_layout(2, &plain(1, 1 << 20, 1, None, &[4]));
    LUSTRE.on_layout(2, &plain(1, 1 << 20, 1, None, &[5]));
    assert_eq!(LUSTRE.bad_layouts(), 1);
    LUSTRE.finalize(&FinalizeCtx::one_process(1.0, 1));
    let mut out = Vec::new();
    LUSTRE.output(&mut |r: &[u64]| out.push(r.to_vec()));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0][HEAD + COMP_WORDS], 5, "refreshed at the second close");
}

fn mounts(types: &[(&str, &str)]) -> Vec<MountEntry> {
    types.iter().map(|(path, ty)| MountEntry::with_block_size(path, ty, 4096)).collect()
}

/// The mount tables of machines without Lustre (a workstation, a GPFS or
/// NFS site, this VM) ask no file for its striping; one with a Lustre
/// mount, a FUSE file system or an overlay over which a symlink or the
/// file system itself may reach Lustre asks every file.
#[test]
fn only_a_mount_table_that_can_reach_lustre_asks_files_for_their_striping() {
    assert!(lustre_possible(&[]), "a mount table that could not be read says nothing: ask");
    assert!(!lustre_possible(&mounts(&[("/", "ext4"), ("/home", "nfs4"), ("/gpfs", "gpfs"), ("/boot", "xfs")])));
    for ty in ["lustre", "fuse", "fuse.sshfs", "fuseblk", "overlay"] {
        assert!(lustre_possible(&mounts(&[("/", "ext4"), ("/scratch", ty)])), "{ty}");
    }
    let many: Vec<(String, String)> = (0..MAX_MNTS).map(|k| (format!("/m{k}"), "ext4".to_string())).collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    assert!(lustre_possible(&mounts(&many)), "a table cut at 64 mounts may have left Lustre out");
    assert!(!lustre_possible(&mounts(&many[..MAX_MNTS - 1])));
}

#[test]
fn attach_says_whether_files_can_be_on_lustre() {
    let env = |types: &[(&str, &str)]| darshan_core::Env::for_tests().with_mounts(mounts(types));
    for (types, possible) in [(&[("/", "ext4")][..], false), (&[("/", "ext4"), ("/lus", "lustre")][..], true)] {
        let l = Lustre::new();
        assert!(!l.possible(), "nothing asked before attach");
        let mut arena = RecordArena::new(1 << 20).unwrap();
        l.attach(arena.reserve(NOMINAL_WORDS, 4), &env(types));
        assert_eq!(l.possible(), possible, "{types:?}");
        l.on_layout(7, &plain(LOV_PATTERN_RAID0, 1 << 20, 1, None, &[3]));
        assert_eq!(l.lock().set.len(), 1, "the records were attached too");
    }
}
