//! The counter names (made by each module's `layout!` in counters/ from
//! its index constants, so index and name cannot disagree: a constant
//! out of place does not compile) agree with
//! ../shared/spec/log-format.md §9: every table there is one of ours,
//! name for name in on-disk order, and the record sizes follow from them.

use darshan_log::counters;
use darshan_log::modules::{self, counter_names};

/// Every `| 0 | NAME | 1 | NAME |` table of the spec, as its names in
/// index order.
fn spec_tables() -> Vec<Vec<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec/log-format.md");
    let text = std::fs::read_to_string(path).expect("the log-format spec beside the project");
    let mut tables = Vec::new();
    let mut cur: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).filter(|c| !c.is_empty()).collect();
        let pairs: Vec<(usize, String)> = cells
            .chunks(2)
            .filter_map(|p| match p {
                [i, n] => i
                    .parse::<usize>()
                    .ok()
                    .filter(|_| n.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                    .map(|i| (i, n.to_string())),
                _ => None,
            })
            .collect();
        if pairs.is_empty() || pairs.len() * 2 != cells.len() {
            if !cur.is_empty() {
                cur.sort();
                tables.push(cur.drain(..).map(|(_, n)| n).collect());
            }
            continue;
        }
        if pairs[0].0 == 0 && !cur.is_empty() {
            cur.sort();
            tables.push(cur.drain(..).map(|(_, n)| n).collect());
        }
        cur.extend(pairs);
    }
    tables
}

#[test]
fn counter_names_agree_with_the_spec_tables() {
    let tables = spec_tables();
    assert!(tables.len() >= 20, "found {} tables", tables.len());
    let mut ours: Vec<(usize, bool, &[&str])> = (0..modules::KNOWN_MODULE_COUNT)
        .flat_map(|m| {
            let (c, f) = counter_names(m);
            [(m, false, c), (m, true, f)]
        })
        .filter(|(_, _, n)| !n.is_empty())
        .collect();
    // LUSTRE's per-component counters (its records are variable-length).
    ours.push((modules::LUSTRE, false, &darshan_log::counters::lustre_comp::NAMES));
    for t in &tables {
        let hit = ours.iter().find(|(_, _, n)| n.len() == t.len() && n.iter().zip(t).all(|(a, b)| *a == b));
        assert!(hit.is_some(), "spec table starting {} ({} names) matches none of ours", t[0], t.len());
    }
    // Every table of ours that the spec lists is the spec's (NULL and
    // MDHIM have none there).
    for (m, f, n) in &ours {
        if [modules::NULL, modules::MDHIM].contains(m) {
            continue;
        }
        assert!(
            tables.iter().any(|t| t.len() == n.len() && t.iter().zip(n.iter()).all(|(a, b)| a == b)),
            "module {m} {} names are not a spec table",
            if *f { "fcounter" } else { "counter" }
        );
    }
}

#[test]
fn counter_indices_are_the_positions_of_their_names() {
    let (c, f) = counter_names(modules::POSIX);
    assert_eq!(c[counters::posix::WRITES], "POSIX_WRITES");
    assert_eq!(c[counters::posix::MAX_BYTE_WRITTEN], "POSIX_MAX_BYTE_WRITTEN");
    assert_eq!(f[counters::posix::F_WRITE_TIME], "POSIX_F_WRITE_TIME");
    assert_eq!(f[counters::posix::F_VARIANCE_RANK_BYTES], "POSIX_F_VARIANCE_RANK_BYTES");
    let (c, f) = counter_names(modules::STDIO);
    assert_eq!(c[counters::stdio::WRITES], "STDIO_WRITES");
    assert_eq!(f[counters::stdio::F_META_TIME], "STDIO_F_META_TIME");
    let (c, f) = counter_names(modules::MPIIO);
    assert_eq!(c[counters::mpiio::COLL_WRITES], "MPIIO_COLL_WRITES");
    assert_eq!(f[counters::mpiio::F_READ_TIME], "MPIIO_F_READ_TIME");
    let (c, f) = counter_names(modules::H5F);
    assert_eq!((c.len(), f.len()), (counters::h5f::NUM_INDICES, counters::h5f::F_NUM_INDICES));
    assert_eq!(c[counters::h5f::USE_MPIIO], "H5F_USE_MPIIO");
    assert_eq!(f[counters::h5f::F_META_TIME], "H5F_F_META_TIME");
    let (c, f) = counter_names(modules::H5D);
    assert_eq!((c.len(), f.len()), (counters::h5d::NUM_INDICES, counters::h5d::F_NUM_INDICES));
    assert_eq!(c[counters::h5d::ACCESS2_STRIDE_D5], "H5D_ACCESS2_STRIDE_D5");
    assert_eq!(c[counters::h5d::ACCESS4_COUNT], "H5D_ACCESS4_COUNT");
    assert_eq!(c[counters::h5d::SLOWEST_RANK_BYTES], "H5D_SLOWEST_RANK_BYTES");
    assert_eq!(f[counters::h5d::F_VARIANCE_RANK_BYTES], "H5D_F_VARIANCE_RANK_BYTES");
    // 912 bytes: id, rank, file_rec_id, 94 counters, 17 fcounters.
    assert_eq!(counters::h5d::RECORD_WORDS * 8, 912);
    assert_eq!(counters::h5f::RECORD_WORDS * 8, 80);
    assert_eq!(counters::bgq::RECORD_WORDS * 8, 112);
    assert_eq!(counters::pnetcdf_file::RECORD_WORDS * 8, 152);
    // id, rank, file_rec_id, 120 counters, 17 fcounters.
    assert_eq!(counters::pnetcdf_var::RECORD_WORDS * 8, 1120);
}
