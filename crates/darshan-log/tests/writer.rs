//! Writer regressions, checked against the layout rules of the spec
//! (regions back to back, nothing after the last one).

use std::io::Cursor;
use std::path::Path;

use darshan_log::modules::{DXT_POSIX, POSIX, STDIO};
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
