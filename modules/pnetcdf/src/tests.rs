//! The counting rules, driven without PnetCDF (the wrappers' part is
//! tested with real PnetCDF programs in ffi/tests/pnetcdf.rs).

use darshan_core::arena::RecordArena;
use darshan_core::common::getf;
use darshan_core::{FinalizeCtx, Module};
use darshan_log::counters::{pnetcdf_file::typed as f, pnetcdf_var::typed as v};

use crate::{Access, Api, Kind, Meta, Op, VarInfo, PNETCDF_FILE, PNETCDF_VAR};

fn finalize_and_output(m: &dyn Module) -> Vec<u64> {
    m.finalize(&FinalizeCtx::one_process(1.0, 1000));
    let mut words = Vec::new();
    m.output(&mut |run: &[u64]| words.extend_from_slice(run));
    words
}

fn access(bytes: i64, lengths: &[i64]) -> Access {
    let mut tuple = [0; 11];
    tuple[0] = bytes;
    tuple[1..1 + lengths.len()].copy_from_slice(lengths);
    Access { bytes, tuple }
}

/// A file created, redefined once, synced, waited on twice (one wait
/// failed) and closed; then opened again and closed with a failed size
/// query.
fn drive_file_calls() {
    PNETCDF_FILE.on_open(5, b"/data/f.nc", true, 10, 12);
    PNETCDF_FILE.on_meta(5, Meta::Enddef, 13, 14);
    PNETCDF_FILE.on_meta(5, Meta::Redef, 15, 16);
    PNETCDF_FILE.on_meta(5, Meta::Sync, 17, 18);
    PNETCDF_FILE.on_wait(5, true, true, 20, 23);
    PNETCDF_FILE.on_wait(5, false, false, 24, 25);
    PNETCDF_FILE.on_close(5, 800, 40, 30, 33);
    PNETCDF_FILE.on_meta(5, Meta::Sync, 34, 35); // closed: not counted
    PNETCDF_FILE.on_open(6, b"/data/f.nc", false, 40, 41);
    PNETCDF_FILE.on_close(6, -1, 8, 50, 52);
}

/// Variable 3 of that file written, read and put in five ways; variable
/// 9, never defined, read.
fn drive_var_calls(file_id: u64) {
    let info = VarInfo { ndims: 2, npoints: 10, type_size: 4, is_record: true, unlimdimid: 0, file_rec_id: file_id };
    PNETCDF_VAR.on_open(3, b"/data/f.nc:T", &info, 12, 13);
    let put = Api { op: Op::Put, kind: Kind::Vara, collective: true };
    let s = PNETCDF_VAR.shape(3).expect("varid 3 defined");
    assert_eq!((s.ndims, s.npoints, s.type_size, s.unlimdimid), (2, 10, 4, 0));
    PNETCDF_VAR.on_access(3, put, &access(40, &[1, 10]), 14, 16);
    PNETCDF_VAR.on_access(3, put, &access(40, &[1, 10]), 16, 17);
    let iput = Api { op: Op::Iput, kind: Kind::Vara, collective: false };
    PNETCDF_VAR.on_access(3, iput, &access(80, &[2, 10]), 18, 19);
    let get = Api { op: Op::Get, kind: Kind::Var, collective: false };
    PNETCDF_VAR.on_access(3, get, &access(120, &[]), 20, 23);
    let bput = Api { op: Op::Bput, kind: Kind::Var1, collective: false };
    PNETCDF_VAR.on_access(3, bput, &access(4, &[]), 24, 25);
    assert!(PNETCDF_VAR.shape(9).is_none(), "varid 9 was never defined");
    PNETCDF_VAR.on_access(9, get, &access(8, &[]), 26, 27); // not counted
}

fn check_file_record(w: &[u64], file_id: u64) {
    assert_eq!((w.len(), w[0]), (f::RECORD_WORDS, file_id));
    let k = |i: f::Counter| w[f::word(i)] as i64;
    assert_eq!((k(f::CREATES), k(f::OPENS), k(f::REDEFS), k(f::SYNCS)), (1, 1, 1, 1));
    assert_eq!((k(f::COLL_WAITS), k(f::INDEP_WAITS), k(f::WAIT_FAILURES)), (1, 0, 1));
    assert_eq!((k(f::BYTES_WRITTEN), k(f::BYTES_READ)), (-1, 48), "a failed size query is -1 for good");
    assert_eq!(
        (getf(w, f::fword(f::F_OPEN_START_TIMESTAMP)), getf(w, f::fword(f::F_OPEN_END_TIMESTAMP))),
        (10.0, 41.0)
    );
    assert_eq!(
        (getf(w, f::fword(f::F_WAIT_START_TIMESTAMP)), getf(w, f::fword(f::F_WAIT_END_TIMESTAMP))),
        (20.0, 25.0)
    );
    assert_eq!(
        (getf(w, f::fword(f::F_CLOSE_START_TIMESTAMP)), getf(w, f::fword(f::F_CLOSE_END_TIMESTAMP))),
        (30.0, 52.0)
    );
    assert_eq!(getf(w, f::fword(f::F_META_TIME)), 2.0 + 1.0 + 1.0 + 1.0 + 3.0 + 1.0 + 2.0);
    assert_eq!(getf(w, f::fword(f::F_WAIT_TIME)), 4.0);
}

fn check_var_record(w: &[u64], file_id: u64) {
    assert_eq!(w.len(), v::RECORD_WORDS);
    assert_eq!((w[0], w[2]), (darshan_log::record_id(b"/data/f.nc:T"), file_id));
    let k = |i: v::Counter| w[v::word(i)] as i64;
    assert_eq!((k(v::OPENS), k(v::COLL_WRITES), k(v::INDEP_READS), k(v::NB_WRITES)), (1, 2, 1, 2));
    assert_eq!((k(v::PUT_VARA), k(v::IPUT_VARA), k(v::GET_VAR), k(v::BPUT_VAR1)), (2, 1, 1, 1));
    assert_eq!((k(v::BYTES_WRITTEN), k(v::BYTES_READ), k(v::RW_SWITCHES)), (164, 120, 2));
    assert_eq!((k(v::SIZE_WRITE_AGG_0_100), k(v::SIZE_READ_AGG_100_1K)), (4, 1));
    // Most common: 40 bytes as 1 x 10, twice; then larger sizes first.
    assert_eq!((k(v::ACCESS1_ACCESS), k(v::ACCESS1_LENGTH_D2), k(v::ACCESS1_COUNT)), (40, 10, 2));
    assert_eq!((k(v::ACCESS2_ACCESS), k(v::ACCESS3_ACCESS), k(v::ACCESS4_ACCESS)), (120, 80, 4));
    assert_eq!((k(v::NDIMS), k(v::NPOINTS), k(v::DATATYPE_SIZE), k(v::IS_RECORD_VAR)), (2, 10, 4, 1));
    assert_eq!((k(v::MAX_WRITE_TIME_SIZE), getf(w, v::fword(v::F_MAX_WRITE_TIME))), (40, 2.0));
    assert_eq!((k(v::MAX_READ_TIME_SIZE), getf(w, v::fword(v::F_MAX_READ_TIME))), (120, 3.0));
    assert_eq!(getf(w, v::fword(v::F_WRITE_START_TIMESTAMP)), 14.0);
    assert_eq!(getf(w, v::fword(v::F_WRITE_END_TIMESTAMP)), 25.0);
    assert_eq!(getf(w, v::fword(v::F_WRITE_TIME)), 2.0 + 1.0 + 1.0 + 1.0);
    assert_eq!(getf(w, v::fword(v::F_READ_TIME)), 3.0);
    assert_eq!(getf(w, v::fword(v::F_META_TIME)), 1.0);
}

#[test]
fn files_and_variables_are_counted_as_darshan_counts_them() {
    let env = darshan_core::Env::for_tests();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    PNETCDF_FILE.attach(arena.reserve(f::RECORD_WORDS, 16), &env);
    PNETCDF_VAR.attach(arena.reserve(v::RECORD_WORDS, 16), &env);
    let file_id = darshan_log::record_id(b"/data/f.nc");
    drive_file_calls();
    drive_var_calls(file_id);
    check_file_record(&finalize_and_output(&PNETCDF_FILE), file_id);
    check_var_record(&finalize_and_output(&PNETCDF_VAR), file_id);
}

#[test]
fn every_counter_has_a_reduction_rule() {
    use darshan_core::records::Reducer;
    fn file(a: &[u64], b: &mut [u64]) {
        crate::reduce::FILE_RULES.combine(a, b)
    }
    assert_eq!(darshan_log::reduce::ops::words_no_rule_takes(file, f::RECORD_WORDS), Vec::<usize>::new());
    let vars = &crate::reduce::VAR_RULES;
    assert_eq!(darshan_log::reduce::ops::words_no_rules_take(vars, v::RECORD_WORDS), Vec::<usize>::new());
}
