//! The counting rules, driven without HDF5 (the wrappers' part is tested
//! with real HDF5 programs in ffi/tests/hdf5.rs).

use darshan_core::arena::RecordArena;
use darshan_core::common::getf;
use darshan_core::{FinalizeCtx, Module};
use darshan_log::counters::{h5d::typed as d, h5f::typed as f};

use crate::dataset::{Chunk, Layout, OpenInfo};
use crate::{Selection, H5D, H5F};

fn finalize_and_output(m: &dyn Module) -> Vec<u64> {
    m.finalize(&FinalizeCtx::one_process(1.0, 1000));
    let mut words = Vec::new();
    m.output(&mut |run: &[u64]| words.extend_from_slice(run));
    words
}

#[test]
fn files_and_datasets_are_counted_as_darshan_counts_them() {
    let env = darshan_core::Env::for_tests();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    H5F.attach(arena.reserve(f::RECORD_WORDS, 16), &env);
    H5D.attach(arena.reserve(d::RECORD_WORDS, 16), &env);
    let file_id = darshan_log::record_id(b"/data/f.h5");
    use_the_file();
    use_a_dataset(file_id);
    check_the_file(&finalize_and_output(&H5F), file_id);
    check_the_dataset(&finalize_and_output(&H5D), file_id);
}

/// A file opened twice (the second time with MPI-IO), flushed once.
fn use_the_file() {
    H5F.on_open(7, b"/data/f.h5", false, 10, 12);
    H5F.on_flush(7, 20, 21);
    H5F.on_close(7, 30, 33);
    H5F.on_open(8, b"/data/f.h5", true, 40, 41);
    H5F.on_close(8, 50, 52);
    H5F.on_flush(8, 60, 61); // closed: not counted
}

/// One open; two row writes (one collective), reads of all, 3 points and
/// an irregular hyperslab of 4; a write after the close.
fn use_a_dataset(file_id: u64) {
    let info = OpenInfo {
        deprecated: false,
        ndims: 2,
        npoints: 100,
        layout: Layout { type_size: 8, chunk: Some(Chunk { dims: [10, 5, 0, 0, 0], rank: 2 }) },
        file_rec_id: file_id,
        keep: None,
    };
    H5D.on_open(9, b"/data/f.h5:/x", &info, 13, 14);
    let row = Selection::Regular { npoints: 10, lengths: [10, 1, 0, 0, 0], strides: [1, 1, 0, 0, 0] };
    H5D.on_io(9, true, row, false, 15, 16);
    H5D.on_io(9, true, row, true, 16, 18);
    H5D.on_io(9, false, Selection::All, false, 19, 20);
    H5D.on_io(9, false, Selection::Points(3), false, 21, 22);
    H5D.on_io(9, false, Selection::Irregular(4), false, 22, 23);
    H5D.on_close(9, false, 24, 25);
    H5D.on_io(9, true, row, false, 26, 27); // closed: not counted
}

fn check_the_file(w: &[u64], file_id: u64) {
    assert_eq!(w.len(), f::RECORD_WORDS);
    assert_eq!(w[0], file_id);
    assert_eq!((w[f::word(f::OPENS)], w[f::word(f::FLUSHES)], w[f::word(f::USE_MPIIO)]), (2, 1, 1));
    assert_eq!(getf(w, f::fword(f::F_OPEN_START_TIMESTAMP)), 10.0);
    assert_eq!(getf(w, f::fword(f::F_OPEN_END_TIMESTAMP)), 41.0);
    assert_eq!(getf(w, f::fword(f::F_CLOSE_START_TIMESTAMP)), 30.0);
    assert_eq!(getf(w, f::fword(f::F_CLOSE_END_TIMESTAMP)), 52.0);
    assert_eq!(getf(w, f::fword(f::F_META_TIME)), 2.0 + 1.0 + 3.0 + 1.0 + 2.0);
}

fn check_the_dataset(w: &[u64], file_id: u64) {
    assert_eq!(w.len(), d::RECORD_WORDS);
    assert_eq!((w[0], w[2]), (darshan_log::record_id(b"/data/f.h5:/x"), file_id));
    let k = |i: d::Counter| w[d::word(i)] as i64;
    assert_eq!((k(d::OPENS), k(d::WRITES), k(d::READS)), (1, 2, 3));
    assert_eq!((k(d::BYTES_WRITTEN), k(d::BYTES_READ)), (160, 800 + 24 + 32));
    assert_eq!(k(d::RW_SWITCHES), 1);
    assert_eq!((k(d::REGULAR_HYPERSLAB_SELECTS), k(d::IRREGULAR_HYPERSLAB_SELECTS), k(d::POINT_SELECTS)), (2, 1, 1));
    assert_eq!((k(d::SIZE_WRITE_AGG_0_100), k(d::SIZE_READ_AGG_0_100), k(d::SIZE_READ_AGG_100_1K)), (2, 2, 1));
    // The most common access: 80 bytes as a 10 x 1 row of stride 1, twice.
    assert_eq!(
        (k(d::ACCESS1_ACCESS), k(d::ACCESS1_LENGTH_D1), k(d::ACCESS1_STRIDE_D1), k(d::ACCESS1_COUNT)),
        (80, 10, 1, 2)
    );
    // Then the single reads, larger size first: 800 (all), 32, 24.
    assert_eq!((k(d::ACCESS2_ACCESS), k(d::ACCESS3_ACCESS), k(d::ACCESS4_ACCESS)), (800, 32, 24));
    assert_eq!((k(d::ACCESS2_LENGTH_D1), k(d::ACCESS2_COUNT)), (0, 1));
    assert_eq!((k(d::DATASPACE_NDIMS), k(d::DATASPACE_NPOINTS), k(d::DATATYPE_SIZE)), (2, 100, 8));
    assert_eq!((k(d::CHUNK_SIZE_D1), k(d::CHUNK_SIZE_D2), k(d::CHUNK_SIZE_D3)), (10, 5, 0));
    assert_eq!((k(d::USE_MPIIO_COLLECTIVE), k(d::USE_DEPRECATED)), (1, 0));
    assert_eq!((k(d::MAX_WRITE_TIME_SIZE), getf(w, d::fword(d::F_MAX_WRITE_TIME))), (80, 2.0));
    assert_eq!(getf(w, d::fword(d::F_WRITE_START_TIMESTAMP)), 15.0);
    assert_eq!(getf(w, d::fword(d::F_READ_END_TIMESTAMP)), 23.0);
    assert_eq!(getf(w, d::fword(d::F_WRITE_TIME)), 3.0);
    assert_eq!(getf(w, d::fword(d::F_READ_TIME)), 3.0);
    assert_eq!(getf(w, d::fword(d::F_META_TIME)), 2.0);
}

#[test]
fn every_counter_has_a_reduction_rule() {
    use darshan_core::records::Reducer;
    use darshan_log::counters::{h5d, h5f};
    fn file(a: &[u64], b: &mut [u64]) {
        crate::reduce::FILE_RULES.combine(a, b)
    }
    assert_eq!(darshan_log::reduce::ops::words_no_rule_takes(file, h5f::RECORD_WORDS), Vec::<usize>::new());
    let datasets = &crate::reduce::DATASET_RULES;
    assert_eq!(darshan_log::reduce::ops::words_no_rules_take(datasets, h5d::RECORD_WORDS), Vec::<usize>::new());
}

/// Darshan writes as many CHUNK_SIZE_D* as the dataset's chunk has
/// dimensions and leaves the others: a 2-D dataset opened under a name a
/// 3-D one had keeps that one's D3 (C Darshan 3.5.0's log of
/// tests/programs/h5_chunk_again.c: 100, 25, 10, 0, 0); ours wrote 0.
#[test]
fn a_dataset_with_fewer_chunk_dimensions_zeroed_the_chunk_sizes_darshan_keeps() {
    let h5d = crate::dataset::H5d::new();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    h5d.attach(arena.reserve(d::RECORD_WORDS, 4), &darshan_core::Env::for_tests());
    let open = |hid, rank, dims: [i64; 5]| {
        let layout = Layout { type_size: 8, chunk: Some(Chunk { dims, rank }) };
        let info = OpenInfo { deprecated: false, ndims: rank as i64, npoints: 300, layout, file_rec_id: 1, keep: None };
        h5d.on_open(hid, b"/data/again.h5:/d", &info, 1, 2);
        h5d.on_close(hid, false, 3, 4);
    };
    open(5, 3, [1, 10, 10, 0, 0]);
    open(6, 2, [100, 25, 0, 0, 0]);
    let w = finalize_and_output(&h5d);
    let chunk = [d::CHUNK_SIZE_D1, d::CHUNK_SIZE_D2, d::CHUNK_SIZE_D3, d::CHUNK_SIZE_D4, d::CHUNK_SIZE_D5];
    assert_eq!(chunk.map(|k| w[d::word(k)] as i64), [100, 25, 10, 0, 0]);
}

/// libnetcdf opens each dataset of a file with H5Oopen, takes a second
/// reference (H5Iinc_ref) and H5Oclose's the first: the id stays open,
/// but we forgot it there, as Darshan does, and every read and write of a
/// NetCDF-4 file opened again went uncounted. A close that leaves the id
/// open stamps the close and keeps the id; the last one forgets it.
#[test]
fn a_dataset_id_another_reference_kept_open_lost_its_reads_at_h5oclose() {
    let h5d = crate::dataset::H5d::new();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    h5d.attach(arena.reserve(d::RECORD_WORDS, 4), &darshan_core::Env::for_tests());
    let layout = Layout { type_size: 8, chunk: None };
    let info = OpenInfo { deprecated: false, ndims: 1, npoints: 100, layout, file_rec_id: 1, keep: None };
    h5d.on_open(7, b"/data/t.nc:/temp", &info, 1, 2);
    h5d.on_close(7, true, 3, 4);
    let all = Selection::Regular { npoints: 100, lengths: [100, 0, 0, 0, 0], strides: [1, 0, 0, 0, 0] };
    h5d.on_io(7, false, all, false, 5, 6);
    h5d.on_close(7, false, 7, 8);
    h5d.on_io(7, false, all, false, 9, 10);
    let w = finalize_and_output(&h5d);
    assert_eq!([d::OPENS, d::READS, d::BYTES_READ].map(|k| w[d::word(k)] as i64), [1, 1, 800]);
    assert_eq!(getf(&w, d::fword(d::F_CLOSE_START_TIMESTAMP)), 3.0, "stamped at the first close, as Darshan");
    assert_eq!(getf(&w, d::fword(d::F_CLOSE_END_TIMESTAMP)), 8.0);
}
