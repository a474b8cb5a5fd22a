//! The file selection of an H5Dread/H5Dwrite known from the SET call that
//! made it (ffi/src/hdf5_select.rs), checked against HDF5 itself: the
//! description of a SET selection must be what HDF5 answers, and every
//! access must be counted as Darshan counts from HDF5's answers after it,
//! however the selection was changed between the SET and the access.
//! Both on Debian's HDF5 1.10 and on h5py's bundled 2.0.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;
use darshan_log::counters::h5d as d;
use darshan_log::modules::H5D;

/// One case's expectation, as the program computed it from HDF5's
/// answers: bytes written and read, regular, irregular and point
/// selections, and each distinct access (bytes, lengths D1-D5, strides
/// D1-D5) with its count.
#[derive(Debug, Default, PartialEq)]
struct Case {
    totals: [i64; 5],
    accesses: BTreeMap<[i64; 11], i64>,
}

fn expected(stdout: &str) -> BTreeMap<String, Case> {
    let mut cases: BTreeMap<String, Case> = BTreeMap::new();
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str| s.parse::<i64>().unwrap_or_else(|_| panic!("{line}"));
        if w[0] == "=" {
            let key: [i64; 11] = std::array::from_fn(|i| num(w[2 + i]));
            cases.get_mut(w[1]).expect(line).accesses.insert(key, num(w[13]));
        } else {
            let totals = std::array::from_fn(|i| num(w[1 + i]));
            cases.insert(w[0].to_string(), Case { totals, ..Case::default() });
        }
    }
    cases
}

/// The same, from the H5D records of the log in `dir`.
fn counted(dir: &Path) -> BTreeMap<String, Case> {
    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    let names = log.names().unwrap();
    let file = format!("{}/sel.h5:", dir.display());
    let access = [d::ACCESS1_ACCESS, d::ACCESS2_ACCESS, d::ACCESS3_ACCESS, d::ACCESS4_ACCESS];
    let count = [d::ACCESS1_COUNT, d::ACCESS2_COUNT, d::ACCESS3_COUNT, d::ACCESS4_COUNT];
    let mut cases = BTreeMap::new();
    for r in log.records(H5D).unwrap() {
        let name = String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned();
        let c = |i: usize| r.counters[i];
        let totals = [
            c(d::BYTES_WRITTEN),
            c(d::BYTES_READ),
            c(d::REGULAR_HYPERSLAB_SELECTS),
            c(d::IRREGULAR_HYPERSLAB_SELECTS),
            c(d::POINT_SELECTS),
        ];
        let mut accesses = BTreeMap::new();
        for k in 0..4 {
            if c(count[k]) > 0 {
                // ACCESSn_ACCESS, then its ten lengths and strides.
                accesses.insert(std::array::from_fn(|i| c(access[k] + i)), c(count[k]));
            }
        }
        cases.insert(name.strip_prefix(&file).expect(&name).to_string(), Case { totals, accesses });
    }
    cases
}

fn selections_counted_as_hdf5_describes_them(wheel: bool) {
    let dir = scratch(if wheel { "h5-selections-2.0" } else { "h5-selections" });
    let exe = compile_hdf5("h5_selections", &dir, wheel);
    let out = output(instrumented(&exe, &dir).arg(&dir).env("HDF5_DISABLE_VERSION_CHECK", "2"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = expected(&String::from_utf8_lossy(&out.stdout));
    assert!(want.len() >= 15, "{want:?}");
    let got = counted(&dir);
    for (name, case) in &want {
        assert_eq!(got.get(name), Some(case), "dataset {name}");
    }
    assert_eq!(got.len(), want.len(), "{got:?}");
}

/// Every access after a SET hyperslab (alone, with the memory space
/// selected after it, with six dimensions, with a zero count) or after a
/// change to its dataspace (points, all, none, OR, another SET, an
/// offset, a new extent or rank, a copied or modified selection, an
/// adjustment, a close, another thread's SET) is counted as HDF5
/// describes it after the access (tests/programs/h5_selections.c).
#[test]
fn every_access_after_a_set_or_a_change_is_counted_as_hdf5_describes_it() {
    selections_counted_as_hdf5_describes_them(false);
}

#[test]
fn every_access_after_a_set_or_a_change_is_counted_as_hdf5_2_describes_it() {
    selections_counted_as_hdf5_describes_them(true);
}

/// What the runtime assumes of HDF5, asked of HDF5 directly on random
/// selections (no runtime loaded): a SET hyperslab's type, regularity,
/// stride, count, block and point count follow from its arguments; a zero
/// count or block selects none. Fails if an HDF5 here ever describes a
/// SET selection otherwise (tests/programs/h5_set_described.c).
#[test]
fn a_set_hyperslab_is_what_its_arguments_say_in_every_hdf5_here() {
    let dir = scratch("h5-set-described");
    for wheel in [false, true] {
        let exe = compile_hdf5("h5_set_described", &dir, wheel);
        let out = output(std::process::Command::new(&exe).env("HDF5_DISABLE_VERSION_CHECK", "2"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        let field = |k: &str| -> i64 {
            let w = text.split_whitespace().skip_while(|w| *w != k).nth(1);
            w.and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{k} in {text}"))
        };
        assert_eq!(field("differ"), 0, "{text}");
        assert!(field("same") > 10_000 && field("none") > 10_000, "{text}");
    }
}
