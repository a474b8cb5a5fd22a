//! The counter-name tables (names_table.rs, written from the spec's
//! tables) agree with ../shared/spec/log-format.md §9: every table there
//! is one of ours, name for name in on-disk order, and the record sizes
//! follow from them. counters.rs (the indices) is checked against the
//! same names.

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
    ours.push((modules::LUSTRE, false, &darshan_log::names_table::LUSTRE_COMP_NAMES));
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

/// Every index constant of counters.rs (440 of them) is the
/// position of its name in the names table: read from the source, so no
/// constant goes unchecked (a slip in one of H5D's 94 would put a
/// counter in its neighbour's place).
#[test]
fn every_counter_index_constant_names_its_own_counter() {
    let src = include_str!("../src/counters.rs");
    let mut module: Option<(&str, usize)> = None;
    let mut checked = 0;
    for line in src.lines().map(str::trim) {
        if let Some(m) = line.strip_prefix("pub mod ").and_then(|l| l.strip_suffix(" {")) {
            let id = match m {
                "posix" => modules::POSIX,
                "stdio" => modules::STDIO,
                "mpiio" => modules::MPIIO,
                "h5f" => modules::H5F,
                "h5d" => modules::H5D,
                "bgq" => modules::BGQ,
                "pnetcdf_file" => modules::PNETCDF_FILE,
                "pnetcdf_var" => modules::PNETCDF_VAR,
                "null" => modules::NULL,
                "posix_meta" => modules::POSIX_META,
                // The typed namespace inside the `layout!` macro.
                "typed" => continue,
                other => panic!("counters.rs module {other} not known to this test"),
            };
            // The counters of "BG/Q" are BGQ_...
            let prefix = darshan_log::modules::module_name(id).replace(['-', '/'], "");
            module = Some((Box::leak(prefix.into_boxed_str()), id));
            continue;
        }
        // Constants are `pub const NAME: usize = N;` or, in a module's
        // `layout!` lists, `NAME = N,`.
        let entry = match line.strip_prefix("pub const ").filter(|r| !r.starts_with("fn ")) {
            Some(rest) => rest.split_once(": usize = "),
            None => line.strip_suffix(',').and_then(|l| l.split_once(" = ")),
        };
        let Some((name, value)) =
            entry.filter(|(n, _)| n.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
        else {
            continue;
        };
        if name.ends_with("NUM_INDICES") || ["RECORD_WORDS", "COUNTERS_AT", "FCOUNTERS_AT", "MAX_NDIMS"].contains(&name)
        {
            continue;
        }
        let index: usize = value.trim_end_matches(';').parse().expect(line);
        let (prefix, id) = module.expect("a constant outside a module");
        let (c, f) = counter_names(id);
        let table = if name.starts_with("F_") { f } else { c };
        assert_eq!(table.get(index).copied(), Some(format!("{prefix}_{name}").as_str()), "{prefix}::{name}");
        checked += 1;
    }
    assert!(checked > 440, "only {checked} constants checked");
}

/// A counter's word is its index past the record's header (id, rank and,
/// for H5D and PnetCDF variables, the file's record id); an fcounter's
/// is past the counters; the last fcounter is the record's last word.
#[test]
fn word_positions_follow_each_modules_header() {
    use darshan_log::counters::{h5d, pnetcdf_var, posix, stdio};
    assert_eq!(posix::word(posix::OPENS), 2);
    assert_eq!(h5d::word(h5d::OPENS), 3, "after the file's record id");
    assert_eq!(pnetcdf_var::word(pnetcdf_var::OPENS), 3);
    assert_eq!(posix::fword(posix::F_OPEN_START_TIMESTAMP), 2 + posix::NUM_INDICES);
    assert_eq!(stdio::fword(stdio::F_VARIANCE_RANK_BYTES), stdio::RECORD_WORDS - 1);
    assert_eq!(posix::words(posix::SIZE_READ_0_100, posix::SIZE_READ_1G_PLUS).count(), 10);
    let reversed = std::panic::catch_unwind(|| posix::words(posix::READS, posix::OPENS));
    assert!(reversed.is_err(), "a family named last-first is refused");
}
