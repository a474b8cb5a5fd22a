//! darshan-ingest's MPI communication tables (mpi_comm, mpi_ops): what a
//! database of an earlier schema says of the logs it holds, and a log whose
//! APMPI records break off. Their values are checked against PyDarshan's
//! reading of the same records by tests/facility/check_mpi_comm_db.py.

use std::path::{Path, PathBuf};

use darshan_ingest::{run, store::Store};
use darshan_log::modules::APMPI;
use darshan_log::LogFile;
use rusqlite::Connection;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ingest-mpi").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ingest(root: &Path, db: &Path) {
    let mut store = Store::open(db).unwrap();
    run::ingest(
        &[root.to_path_buf()],
        &mut store,
        &run::Options { jobs: 2, progress: false, commit_every: None, stop: None },
    )
    .unwrap();
}

fn count(c: &Connection, sql: &str) -> i64 {
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A database of schema 4 holds logs whose APMPI records it never stored:
/// opened by this darshan-ingest, it gets the tables and says how many
/// logs lack their rows.
#[test]
fn an_old_database_says_how_many_logs_lack_their_mpi_communication() {
    let d = out_dir("upgrade");
    let db = d.join("f.db");
    ingest(&corpus(), &db);
    {
        let c = Connection::open(&db).unwrap();
        let apmpi = count(&c, "SELECT COUNT(*) FROM modules WHERE module = 'APMPI'");
        assert_eq!(count(&c, "SELECT COUNT(*) FROM mpi_comm"), apmpi);
        assert!(apmpi >= 10, "{apmpi} corpus logs with APMPI records");
        c.execute_batch(
            "DROP TABLE mpi_comm; DROP TABLE mpi_ops; UPDATE ingest_meta SET value = '4' WHERE key = 'schema_version';",
        )
        .unwrap();
    }
    let store = Store::open(&db).unwrap();
    let said = store.upgraded.clone().unwrap_or_default();
    drop(store);
    let c = Connection::open(&db).unwrap();
    let apmpi = count(&c, "SELECT COUNT(*) FROM modules WHERE module = 'APMPI'");
    assert!(said.contains("from schema 4 to 5"), "{said}");
    assert!(said.contains(&format!("; {apmpi} logs already in it have APMPI records")), "{said}");
    assert_eq!(count(&c, "SELECT COUNT(*) FROM mpi_comm") + count(&c, "SELECT COUNT(*) FROM mpi_ops"), 0);
}

/// A log whose APMPI stream is damaged half-way: what was read is kept,
/// the log is partial, and its modules row and error say why.
#[test]
fn apmpi_records_that_break_off_make_a_partial_log_that_says_why() {
    let d = out_dir("broken");
    let src = corpus().join("apmpi__darshan-apmpi-2nodes-64mpi.darshan");
    let tree = d.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let log = tree.join("broken.darshan");
    let mut bytes = std::fs::read(&src).unwrap();
    let map = LogFile::open(&src).unwrap().header.mod_map[APMPI];
    let (off, len) = (map.off as usize, map.len as usize);
    bytes[off + len / 2..off + len].fill(0xA5);
    std::fs::write(&log, &bytes).unwrap();
    let db = d.join("f.db");
    ingest(&tree, &db);
    let c = Connection::open(&db).unwrap();
    let (status, error): (String, String) =
        c.query_row("SELECT status, error FROM logs", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!(status, "partial");
    assert!(error.starts_with("APMPI: records after the first "), "{error}");
    let (records, why): (i64, String) = c
        .query_row("SELECT records, error FROM modules WHERE module = 'APMPI'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let whole = darshan_util::mpi_comm::read(&LogFile::open(&src).unwrap()).records as i64;
    assert!(records >= 1 && records < whole && why.contains("could not be read"), "{records} of {whole}: {why}");
    let ranks = count(&c, "SELECT ranks FROM mpi_comm");
    assert_eq!(ranks, records - 1, "the ranks read before the damage are kept");
}
