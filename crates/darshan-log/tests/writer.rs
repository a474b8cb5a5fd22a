//! Writer regressions, checked against the layout rules of the spec
//! (regions back to back, nothing after the last one).

use std::io::Cursor;
use std::path::Path;

use darshan_log::modules::{DXT_MPIIO, DXT_POSIX, POSIX, STDIO};
use darshan_log::{Compression, LogFile, LogWriter, Record};

fn corpus_log() -> LogFile {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan");
    LogFile::open(p).unwrap()
}

/// Bug: an empty module dropped an encoder, whose Drop wrote a zlib
/// trailer; when it was the last module those bytes stayed after the
/// last region (a following region overwrote them, hiding the bug).
#[test]
fn empty_module_leaves_no_stray_bytes() {
    let src = corpus_log();
    let stdio = src.records(STDIO).unwrap();
    let mut w = LogWriter::new(Cursor::new(Vec::new()), Compression::Zlib).unwrap();
    w.write_job(&src.job).unwrap();
    w.write_names(&src.names().unwrap()).unwrap();
    w.write_module(POSIX, std::iter::empty::<&Record>()).unwrap();
    w.write_module(STDIO, stdio.iter()).unwrap();
    w.write_module(DXT_POSIX, std::iter::empty::<&Record>()).unwrap();
    let bytes = w.finish().unwrap().into_inner();

    let back = LogFile::from_source(bytes.clone()).unwrap();
    let h = &back.header;
    assert_eq!(h.mod_map[POSIX].len, 0, "an empty module must have no region");
    assert_eq!(h.mod_map[DXT_POSIX].len, 0);
    let last = h.mod_map[STDIO];
    assert_eq!(last.off + last.len, bytes.len() as u64, "bytes after the last region");
    assert_eq!(back.records(STDIO).unwrap(), stdio);
}

/// The bytes of a module's region in a zlib log, decompressed (one or more
/// streams back to back, as C's ranks write them).
fn region_bytes(path: &Path, module: usize) -> Vec<u8> {
    use std::io::Read;
    let log = LogFile::open(path).unwrap();
    let map = log.header.mod_map[module];
    let file = std::fs::read(path).unwrap();
    let mut rest = &file[map.off as usize..(map.off + map.len) as usize];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let mut z = flate2::bufread::ZlibDecoder::new(rest);
        z.read_to_end(&mut out).unwrap();
        rest = &rest[z.total_in() as usize..];
    }
    out
}

/// The runtime's DXT module writes its records with `encode_dxt` (not the
/// every-module encoder, which linked every module's counter names into
/// the runtime): it must give C's bytes for C's records, with and without
/// thread ids, and refuse a record of another module.
#[test]
fn encode_dxt_gives_the_c_runtimes_bytes_for_its_dxt_records() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    for (name, module) in [
        ("nonmpi_dxt_anonymized__nonmpi_dxt_anonymized.darshan", DXT_POSIX),
        ("mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan", DXT_MPIIO),
    ] {
        let path = dir.join(name);
        let records = LogFile::open(&path).unwrap().records(module).unwrap();
        assert!(!records.is_empty(), "{name} has DXT records");
        let mut ours = Vec::new();
        for r in &records {
            darshan_log::encode::encode_dxt(r, &mut ours, darshan_log::encode::dxt_thread_ids(r)).unwrap();
        }
        assert!(ours == region_bytes(&path, module), "{name}: encode_dxt's bytes differ from C's region");
    }
    let posix = corpus_log().records(POSIX).unwrap();
    assert!(darshan_log::encode::encode_dxt(&posix[0], &mut Vec::new(), false).is_err());
}
