//! A dataset's layout (datatype size, chunk sizes) taken from its last
//! open instead of asked again (ffi/src/hdf5_layout.rs), checked against
//! HDF5's own answers after each open: whatever put another dataset at
//! the path in between (a link deleted or moved, the file closed and
//! rewritten by another process, an external file rewritten), another
//! dataset under the same record name, a grown extent. Both on Debian's
//! HDF5 1.10 and on h5py's bundled 2.0 (tests/programs/h5_reopen.c).

mod common;

use common::*;
use darshan_log::counters::h5d as d;
use darshan_log::modules::H5D;

fn reopened_datasets_are_described_as_hdf5_describes_them(wheel: bool) {
    let dir = scratch(if wheel { "h5-reopen-2.0" } else { "h5-reopen" });
    let exe = compile_hdf5("h5_reopen", &dir, wheel);
    let out = output(instrumented(&exe, &dir).arg(&dir).env("HDF5_DISABLE_VERSION_CHECK", "2"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);

    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    let names = log.names().unwrap();
    let records = log.records(H5D).unwrap();
    let fields = [
        d::DATASPACE_NDIMS,
        d::DATASPACE_NPOINTS,
        d::DATATYPE_SIZE,
        d::CHUNK_SIZE_D1,
        d::CHUNK_SIZE_D2,
        d::CHUNK_SIZE_D3,
        d::CHUNK_SIZE_D4,
        d::CHUNK_SIZE_D5,
    ];
    let mut checked = 0;
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        // Name, opens (the program's alone: creates count too), then
        // what the last open sets.
        let want: Vec<i64> = w[2..].iter().map(|v| v.parse().unwrap()).collect();
        let r = records
            .iter()
            .find(|r| names.get(r.id) == Some(w[0].as_bytes()))
            .unwrap_or_else(|| panic!("no H5D record {}", w[0]));
        let got: Vec<i64> = fields.iter().map(|&f| r.counters[f]).collect();
        assert_eq!(got, want, "{} (ndims, npoints, type size, chunk D1-D5)", w[0]);
        assert!(r.counters[d::OPENS] >= w[1].parse::<i64>().unwrap(), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 7, "{stdout}");
}

#[test]
fn reopened_datasets_are_described_as_hdf5_describes_them_after_any_change() {
    reopened_datasets_are_described_as_hdf5_describes_them(false);
}

#[test]
fn reopened_datasets_are_described_as_hdf5_2_describes_them_after_any_change() {
    reopened_datasets_are_described_as_hdf5_describes_them(true);
}
