//! The known access pattern of tests/programs/api_mix.c, checked on a log
//! of it however the program was instrumented (LD_PRELOAD, linked).

use std::path::Path;

use darshan_log::counters::{posix as px, stdio as sx};
use darshan_log::modules::{POSIX, STDIO};

use super::mpi::{c, Log};

/// Every counter of api_mix's files that its source fixes.
pub fn check(log: &Log, data: &Path, tag: &str) {
    let a = log.one(POSIX, &data.join("a.dat"));
    assert_eq!(
        [
            px::OPENS,
            px::DUPS,
            px::WRITES,
            px::READS,
            px::SEEKS,
            px::STATS,
            px::MMAPS,
            px::FSYNCS,
            px::FDSYNCS,
            px::MODE
        ]
        .map(|k| c(a, k)),
        [3, 2, 4, 2, 1, 1, 1, 1, 1, 0o640],
        "{tag}"
    );
    assert_eq!((c(a, px::BYTES_WRITTEN), c(a, px::MAX_BYTE_WRITTEN), c(a, px::RW_SWITCHES)), (3010, 2999, 2), "{tag}");
    let b = log.one(POSIX, &data.join("b.dat"));
    assert_eq!([px::OPENS, px::WRITES, px::READS, px::RENAME_SOURCES].map(|k| c(b, k)), [2, 3, 1, 1], "{tag}");
    assert_eq!(
        (c(b, px::BYTES_WRITTEN), c(b, px::MAX_BYTE_WRITTEN), c(b, px::STRIDE1_STRIDE)),
        (314, 4159, 800),
        "{tag}"
    );
    let cc = log.one(POSIX, &data.join("c.dat"));
    assert_eq!([px::STATS, px::RENAME_TARGETS].map(|k| c(cc, k)), [2, 1], "{tag}: stat() counted");
    let b_path = data.join("b.dat");
    assert_eq!(
        cc.counters[px::RENAMED_FROM] as u64,
        darshan_log::record_id(b_path.to_str().unwrap().as_bytes()),
        "{tag}"
    );
    assert_eq!(c(log.one(POSIX, &data.join("d.dat")), px::BYTES_WRITTEN), 7, "{tag}: openat relative to a dirfd");
    let ep = log.one(POSIX, &data.join("e.dat"));
    assert_eq!((c(ep, px::FILENOS), c(ep, px::OPENS)), (2, 3), "{tag}: two filenos and the open for fdopen");
    let e = log.one(STDIO, &data.join("e.dat"));
    assert_eq!(
        [sx::OPENS, sx::FDOPENS, sx::WRITES, sx::READS, sx::SEEKS, sx::FLUSHES, sx::BYTES_WRITTEN, sx::BYTES_READ]
            .map(|k| c(e, k)),
        [2, 1, 3, 4, 1, 1, 307, 151],
        "{tag}"
    );
    // fdopen keeps the record's offset (101: fread 100, fgetc, ungetc,
    // fgetc), so fgets' 49 bytes end at byte 149; without the ungetc
    // step back it would be 150, and 48 if fdopen reset the offset.
    assert_eq!(c(e, sx::MAX_BYTE_READ), 149, "{tag}");
}
