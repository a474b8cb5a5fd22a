use darshan_core::arena::Slice;
use darshan_core::Env;
use darshan_log::counters::io_uring::typed as c;

use super::*;

fn attached(records: usize) -> IoUring {
    let m = IoUring::new();
    let words: &'static mut [u64] = Box::leak(vec![0u64; records * c::RECORD_WORDS].into_boxed_slice());
    m.attach(Slice::new(words, c::RECORD_WORDS, records), &Env::for_tests());
    m
}

fn params(entries: u32) -> Params {
    Params {
        sq_entries: entries,
        cq_entries: 2 * entries,
        flags: 0,
        features: ring::FEAT_SINGLE_MMAP,
        sq_off: [0, 4, 8, 12, 16, 20, 64],
        cq_off: [0, 4, 8, 12, 16, 64],
    }
}

fn record(m: &IoUring, name: &[u8]) -> Vec<u64> {
    let st = m.lock();
    let i = st.set.find(darshan_log::record_id(name)).expect("a record");
    st.set.record(i).to_vec()
}

fn n(w: &[u64], k: c::Counter) -> i64 {
    w[c::word(k)] as i64
}

fn write(fd: i32, off: u64, bytes: u64, user_data: u64) -> Sqe {
    Sqe { opcode: ops::OP_WRITE, flags: 0, fd, off, bytes, op_flags: 0, user_data, ..Sqe::default() }
}

fn region(addr: usize, len: usize) -> Region {
    Region { addr, len }
}

#[test]
fn a_ring_is_read_once_its_regions_are_mapped() {
    let m = attached(4);
    m.on_setup(7, params(8));
    assert!(m.view(7).is_none(), "not mapped yet");
    assert!(m.on_mmap(7, ring::OFF_SQ_RING, region(0x1000, 4096)));
    assert!(m.on_mmap(7, ring::OFF_SQES, region(0x9000, 8 * 64)));
    let (v, cursor) = m.view(7).expect("one mapping serves both queues (SINGLE_MMAP)");
    assert_eq!((v.sq_head, v.sq_tail, v.sq_mask, v.sq_array, v.sqes), (0x1000, 0x1004, 7, 0x1040, 0x9000));
    assert_eq!((v.cq_head, v.cq_mask, v.cq_entries, v.cqes, v.cqe_size), (0x1000, 15, 16, 0x1040, 16));
    assert_eq!(cursor, 0, "a new ring's cursors start at 0");
    assert!(!m.on_mmap(8, ring::OFF_SQ_RING, region(0x1000, 4096)), "not a ring");
    m.on_munmap(0x9000);
    assert!(m.view(7).is_none(), "unmapped: never read again");
}

/// A mapping shorter than the fields the runtime would read (here the
/// SQ ring mapped without room for the 16 completion entries the single
/// mapping would hold) is never read: reading past it would fault in the
/// program.
#[test]
fn a_ring_mapped_too_short_for_its_fields_is_not_read() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.on_mmap(7, ring::OFF_SQ_RING, region(0x1000, 96));
    m.on_mmap(7, ring::OFF_SQES, region(0x9000, 8 * 64));
    assert!(m.view(7).is_none(), "the completion entries lie past the SQ mapping");
    m.on_mmap(7, ring::OFF_CQ_RING, region(0x5000, 64 + 16 * 16));
    assert!(m.view(7).is_some(), "once the CQ ring is mapped whole");
    m.on_mmap(7, ring::OFF_SQES, region(0x9000, 8 * 64 - 1));
    assert!(m.view(7).is_none(), "an SQE array one byte short");
}

/// An SQPOLL ring's thread took two entries before a call of ours read
/// the ring: they are counted as unobserved, the rest as usual.
#[test]
fn entries_the_kernel_took_before_we_read_them_are_counted_as_unobserved() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    m.on_submit(7, 2, &[write(3, 0, 10, 1)], 3, 1);
    assert_eq!(n(&record(&m, b"<io_uring>"), c::UNOBSERVED_OPS), 2);
    assert_eq!(n(&record(&m, b"/data/f"), c::WRITES), 1);
}

#[test]
fn sequential_writes_then_completions_give_bytes_sizes_sequence_and_latency() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    let sqes: Vec<Sqe> = (0..4).map(|k| write(3, k * 4096, 4096, 100 + k)).collect();
    m.on_submit(7, 0, &sqes, 4, 10);
    let w = record(&m, b"/data/f");
    assert_eq!((n(&w, c::WRITES), n(&w, c::SIZE_WRITE_1K_10K), n(&w, c::MAX_INFLIGHT)), (4, 4, 4));
    assert_eq!((n(&w, c::CONSEC_WRITES), n(&w, c::SEQ_WRITES), n(&w, c::MAX_BYTE_WRITTEN)), (3, 3, 16383));
    let cqes: Vec<Cqe> =
        (0..4).map(|k| Cqe { user_data: 100 + k, res: if k == 3 { 100 } else { 4096 }, flags: 0 }).collect();
    m.on_complete(7, &cqes, 4, 25);
    let w = record(&m, b"/data/f");
    assert_eq!((n(&w, c::BYTES_WRITTEN), n(&w, c::SHORT_WRITES), n(&w, c::COMPLETIONS_SEEN)), (3 * 4096 + 100, 1, 4));
    assert_eq!((w[c::fword(c::F_WRITE_TIME)], w[c::fword(c::F_MAX_WRITE_TIME)]), (60, 15));
}

#[test]
fn a_completion_never_read_counts_as_a_full_transfer_and_says_so() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    m.on_submit(7, 0, &[write(3, 0, 1 << 20, 1), write(3, 1 << 20, 1 << 20, 2)], 2, 10);
    m.on_complete(7, &[Cqe { user_data: 1, res: 1 << 20, flags: 0 }], 1, 20);
    m.finalize(&FinalizeCtx::one_process(1.0, 100));
    let w = record(&m, b"/data/f");
    assert_eq!((n(&w, c::BYTES_WRITTEN), n(&w, c::COMPLETIONS_SEEN), n(&w, c::COMPLETIONS_UNSEEN)), (2 << 20, 1, 1));
}

#[test]
fn registered_files_and_offset_minus_one_are_resolved() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(5, Some(b"/data/g"));
    m.on_register_files(7, 0, &[-1, 5], 1);
    let mut r =
        Sqe { opcode: ops::OP_READ, flags: ops::SQE_FIXED_FILE, fd: 1, off: u64::MAX, bytes: 50, ..Sqe::default() };
    let mut unknown = [0; 4];
    assert_eq!(m.unknown_fds(7, &[r], &mut unknown), 0, "fd 5 is bound");
    m.on_submit(7, 0, &[r], 1, 1);
    r.user_data = 9;
    m.on_submit(7, 1, &[r], 2, 2);
    let w = record(&m, b"/data/g");
    assert_eq!((n(&w, c::READS), n(&w, c::FIXED_FILE_OPS), n(&w, c::CONSEC_READS)), (2, 2, 1));
    assert_eq!(n(&w, c::MAX_BYTE_READ), 99, "the second read starts where the first ended");
}

/// A registered file's slot held the descriptor: once the program closed
/// it (the ring holds the file) and the number went to another file, the
/// slot's requests were counted for that file. The slot holds the file's
/// record, named at registration.
#[test]
fn a_registered_files_descriptor_closed_and_reused_moved_its_requests() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(5, Some(b"/data/registered"));
    m.on_register_files(7, 0, &[5], 1);
    m.on_close(5);
    m.bind_fd(5, Some(b"/data/other"));
    let fixed = Sqe { flags: ops::SQE_FIXED_FILE, ..write(0, 0, 4096, 1) };
    let mut unknown = [0; 4];
    assert_eq!(m.unknown_fds(7, &[fixed], &mut unknown), 0, "named at registration");
    m.on_submit(7, 0, &[fixed, write(5, 0, 10, 2)], 2, 1);
    m.on_complete(7, &[Cqe { user_data: 1, res: 4096, flags: 0 }, Cqe { user_data: 2, res: 10, flags: 0 }], 2, 2);
    let (reg, other) = (record(&m, b"/data/registered"), record(&m, b"/data/other"));
    assert_eq!([c::WRITES, c::BYTES_WRITTEN, c::FIXED_FILE_OPS].map(|k| n(&reg, k)), [1, 4096, 1]);
    assert_eq!([c::WRITES, c::BYTES_WRITTEN, c::FIXED_FILE_OPS].map(|k| n(&other, k)), [1, 10, 0]);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 0);
}

/// liburing's close "direct" (io_uring_prep_close_direct) leaves fd 0 and
/// names the slot in file_index: it was taken for a close of descriptor
/// 0, whose file (a program run with `< input`) got a META op, and whose
/// name was forgotten. It is the slot's file's close now, and empties it.
#[test]
fn a_direct_close_of_a_registered_slot_was_counted_as_descriptor_0s() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(0, Some(b"/data/input"));
    m.bind_fd(5, Some(b"/data/registered"));
    m.on_register_files(7, 0, &[-1, -1, 5], 1);
    let close = Sqe { opcode: ops::OP_CLOSE, file_index: 3, ..write(0, 0, 0, 1) };
    let mut unknown = [0; 4];
    assert_eq!(m.unknown_fds(7, &[close], &mut unknown), 0, "no descriptor to name");
    m.on_submit(7, 0, &[close], 1, 1);
    let reg = record(&m, b"/data/registered");
    assert_eq!([c::META_OPS, c::FIXED_FILE_OPS].map(|k| n(&reg, k)), [1, 1]);
    assert_eq!(n(&record(&m, b"/data/input"), c::META_OPS), 0, "fd 0's file untouched");
    assert_eq!(m.unknown_fds(7, &[write(0, 0, 1, 2)], &mut unknown), 0, "fd 0 still named");
    let after = Sqe { flags: ops::SQE_FIXED_FILE, ..write(2, 0, 4096, 3) };
    m.on_submit(7, 1, &[after], 2, 2);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 1, "the slot is empty after its close");
}

#[test]
fn requests_on_descriptors_that_are_not_files_are_not_counted() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(4, None);
    m.on_submit(7, 0, &[write(4, 0, 10, 1)], 1, 1);
    let mut unknown = [0; 4];
    assert_eq!(m.unknown_fds(7, &[write(4, 0, 10, 2), write(6, 0, 10, 3)], &mut unknown), 1);
    assert_eq!(unknown[0], 6);
    assert_eq!(m.lock().set.len(), 1, "the process's own <io_uring>, no file's");
}

/// Two rings (one SQPOLL of 64 entries, one of 8), files and buffers
/// registered, three requests in flight on one ring at once though each
/// file had at most two, two calls that submitted: the process's record.
/// A call of the program on ring 7, as the ffi crate reports it: its
/// entries, then the call if any was new.
fn submit_call(m: &IoUring, first: u32, sqes: &[Sqe], consumed: u32, t: i64) {
    if m.on_submit(7, first, sqes, consumed, t) > 0 {
        m.on_submit_call(7);
    }
}

/// One call submitting 64 entries, read in two batches of 32 (the ffi
/// crate's buffer): every entry is counted. The first batch used to move
/// the cursor to the kernel's head after the call, and the second was
/// skipped as already counted (liburing's io_uring-cp lost 65 of its 161
/// reads).
#[test]
fn a_call_whose_entries_come_in_two_batches_counts_them_all() {
    let m = attached(4);
    m.on_setup(7, params(64));
    m.bind_fd(3, Some(b"/data/big"));
    let sqes: Vec<Sqe> = (0..64).map(|k| write(3, k * 10, 10, k)).collect();
    let first = m.on_submit(7, 0, &sqes[..32], 64, 1);
    let second = m.on_submit(7, 32, &sqes[32..], 64, 1);
    assert_eq!((first, second), (32, 32));
    let w = record(&m, b"/data/big");
    assert_eq!((n(&w, c::WRITES), n(&w, c::MAX_BYTE_WRITTEN), n(&w, c::CONSEC_WRITES)), (64, 639, 63));
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 0);
    assert_eq!(m.on_submit(7, 0, &sqes[..32], 64, 2), 0, "a nested wrapper's second look counts nothing");
}

#[test]
fn the_process_record_holds_its_rings() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.on_setup(9, Params { flags: ring::SETUP_SQPOLL, ..params(64) });
    m.bind_fd(4, Some(b"/data/a"));
    m.bind_fd(5, Some(b"/data/b"));
    m.on_register_files(7, 0, &[4, -1, 5], 2);
    m.on_register_buffers(7, 16);
    submit_call(&m, 0, &[write(4, 0, 10, 1), write(5, 0, 10, 2), write(4, 10, 10, 3)], 3, 1);
    m.on_complete(7, &[Cqe { user_data: 1, res: 10, flags: 0 }], 1, 2);
    submit_call(&m, 3, &[write(5, 10, 10, 4)], 4, 3);
    submit_call(&m, 3, &[write(5, 10, 10, 4)], 4, 3);
    let p = record(&m, UNOBSERVED);
    let got = [c::RINGS, c::SQPOLL_RINGS, c::IOPOLL_RINGS, c::RING_ENTRIES_MAX, c::REGISTERED_FILES].map(|k| n(&p, k));
    assert_eq!(got, [2, 1, 0, 64, 2]);
    assert_eq!([c::REGISTERED_BUFFERS, c::RING_MAX_INFLIGHT, c::SUBMIT_CALLS].map(|k| n(&p, k)), [16, 3, 2]);
    assert_eq!(n(&record(&m, b"/data/a"), c::MAX_INFLIGHT), 2);
    assert_eq!(n(&record(&m, b"/data/a"), c::RINGS), 0, "a file's record holds no ring facts");
}

#[test]
fn a_closed_ring_is_forgotten_and_its_requests_count_as_unseen() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    m.on_submit(7, 0, &[write(3, 0, 10, 1)], 1, 1);
    assert!(m.rings_live());
    m.on_close(7);
    assert!(!m.rings_live());
    assert!(m.view(7).is_none());
    assert_eq!(n(&record(&m, b"/data/f"), c::COMPLETIONS_UNSEEN), 1);
}

/// A liburing ring's view that moved: resized (the kernel carried its SQ
/// head over, at or past our cursor) it is the same ring with its cursors;
/// with the SQ head behind our cursor it is a new ring that took the
/// number of one closed unseen: the old ring's request in flight counts as
/// unseen, the new ring's cursors start at its heads.
#[test]
fn a_view_that_moved_is_the_same_ring_unless_its_head_went_back() {
    let m = attached(4);
    let view = |base: usize| {
        RingView::from_params(&params(8), region(base, 4096), region(base, 4096), region(base + 0x8000, 8 * 64))
    };
    let (a, b, c2) = (view(0x1000).unwrap(), view(0x20000).unwrap(), view(0x40000).unwrap());
    m.bind_fd(3, Some(b"/data/f"));
    m.on_liburing(7, 0, a, (0, 0));
    submit_call(&m, 0, &[write(3, 0, 10, 1), write(3, 10, 10, 2)], 2, 1);
    m.on_complete(7, &[Cqe { user_data: 1, res: 10, flags: 0 }], 1, 2);
    m.on_liburing(7, 0, b, (2, 1));
    assert_eq!(m.view(7), Some((b, 1)), "resized: the same ring, its cursors kept");
    m.on_liburing(7, 0, c2, (0, 0));
    assert_eq!(m.view(7), Some((c2, 0)), "a new ring under the old number");
    let p = record(&m, UNOBSERVED);
    assert_eq!([c::RINGS, c::UNOBSERVED_OPS].map(|k| n(&p, k)), [2, 0]);
    let w = record(&m, b"/data/f");
    assert_eq!([c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN].map(|k| n(&w, k)), [1, 1]);
    submit_call(&m, 0, &[write(3, 20, 10, 3)], 1, 3);
    assert_eq!(n(&record(&m, b"/data/f"), c::WRITES), 3, "the new ring's first request counts");
}

/// `io_uring_setup` returned the number of a ring whose descriptor was
/// closed unseen: that ring ends (its request in flight counts as a
/// completion not seen), and a completion of the new ring with the same
/// user_data is not taken for it (it was: the old request stayed in flight
/// and was matched, seen, with the new ring's result).
#[test]
fn a_ring_set_up_under_the_number_of_one_closed_unseen_ends_it() {
    let m = attached(4);
    m.bind_fd(3, Some(b"/data/f"));
    m.on_setup(7, params(8));
    submit_call(&m, 0, &[write(3, 0, 10, 1)], 1, 1);
    m.on_setup(7, params(8));
    m.on_complete(7, &[Cqe { user_data: 1, res: 10, flags: 0 }], 1, 2);
    let w = record(&m, b"/data/f");
    assert_eq!([c::WRITES, c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN].map(|k| n(&w, k)), [1, 0, 1]);
    assert_eq!(n(&record(&m, UNOBSERVED), c::RINGS), 2);
}

/// A table of requests in flight, grown for `n` requests.
fn inflight_for(n: usize) -> Inflight {
    let mut t = Inflight::new();
    drop(t.grow(Inflight::words_for(t.wants(n).unwrap()).unwrap()));
    t
}

#[test]
fn a_process_without_io_uring_had_its_inflight_table_of_160_kib() {
    let mut t = Inflight::new();
    assert_eq!(t.taken(), 0, "nothing before the first request");
    assert_eq!(t.take(0, 1), None);
    let p = Pending { record: 3, kind: Kind::Read, len: 8, offset: 0, submitted: 0 };
    assert_eq!(t.insert(0, 1, p), Some(p), "no table: not followed");
    drop(t.grow(Inflight::words_for(t.wants(1).unwrap()).unwrap()));
    assert_eq!(t.insert(0, 1, p), None);
    assert_eq!(t.taken(), 256 * 5 * 8, "10 KiB at the first request");
    assert_eq!(t.take(0, 1).map(|x| x.record), Some(3));
}

#[test]
fn the_inflight_table_finds_every_request_after_removals() {
    let mut t = inflight_for(12);
    let p = |r| Pending { record: r, kind: Kind::Write, len: 1, offset: 0, submitted: 0 };
    for u in 0..12u64 {
        assert_eq!(t.insert(0, u * 16, p(u as usize)), None);
    }
    for u in (0..12u64).step_by(3) {
        assert_eq!(t.take(0, u * 16).map(|x| x.record), Some(u as usize));
    }
    for u in 0..12u64 {
        let found = t.take(0, u * 16).map(|x| x.record);
        assert_eq!(found, (u % 3 != 0).then_some(u as usize), "{u}");
    }
    assert!(t.is_empty());
    assert_eq!(t.insert(1, 5, p(1)), None);
    assert_eq!(t.take(0, 5), None, "another ring's request");
}

/// Four requests with the same user_data (liburing's io_uring-test leaves
/// it 0) are all in flight at once and their completions are matched to
/// them in order: every completion seen, none counted as missed. The
/// table let the older one go as a completion not seen (3 of 4).
#[test]
fn requests_sharing_a_user_data_are_matched_first_in_first_out() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    let sqes: Vec<Sqe> = (0..4).map(|k| write(3, k * 4096, 4096, 0)).collect();
    m.on_submit(7, 0, &sqes, 4, 10);
    let done: Vec<Cqe> = (0..4).map(|k| Cqe { user_data: 0, res: 4096 - k, flags: 0 }).collect();
    m.on_complete(7, &done, 4, 20);
    let w = record(&m, b"/data/f");
    let got = [c::MAX_INFLIGHT, c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN, c::BYTES_WRITTEN, c::SHORT_WRITES];
    assert_eq!(got.map(|k| n(&w, k)), [4, 4, 0, 4 * 4096 - 6, 3]);
    assert_eq!(n(&record(&m, UNOBSERVED), c::RING_MAX_INFLIGHT), 4);
}

/// A request with IOSQE_CQE_SKIP_SUCCESS posts no completion when it
/// succeeds: it counts at once as a full transfer not seen, and does not
/// wait in the table for a completion that will not come.
#[test]
fn a_request_that_skips_its_completion_counts_at_once() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    let skip = Sqe { flags: ops::SQE_CQE_SKIP_SUCCESS, ..write(3, 0, 4096, 9) };
    m.on_submit(7, 0, &[skip, write(3, 4096, 4096, 9)], 2, 10);
    m.on_complete(7, &[Cqe { user_data: 9, res: 4096, flags: 0 }], 1, 20);
    let w = record(&m, b"/data/f");
    let got = [c::WRITES, c::BYTES_WRITTEN, c::COMPLETIONS_SEEN, c::COMPLETIONS_UNSEEN];
    assert_eq!(got.map(|k| n(&w, k)), [2, 8192, 1, 1]);
    assert_eq!(w[c::fword(c::F_WRITE_TIME)], 10, "the completion is the second request's");
}

/// A request on a registered-file slot nobody registered through a call
/// we see (a direct descriptor the ring opened itself) cannot be given to
/// a file: it is counted as unobserved, not dropped.
#[test]
fn a_request_on_a_slot_the_ring_filled_itself_is_counted_as_unobserved() {
    let m = attached(4);
    m.on_setup(7, params(8));
    let direct = Sqe { flags: ops::SQE_FIXED_FILE, ..write(5, 0, 4096, 1) };
    m.on_submit(7, 0, &[direct], 1, 10);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 1);
}

/// liburing calls its own exports (io_uring_wait_cqes submits through
/// __io_uring_get_cqe): the inner wrapper counts the entries, the outer
/// one, which read the same positions before the call, does not again.
#[test]
fn entries_read_twice_by_nested_wrappers_are_counted_once() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(3, Some(b"/data/f"));
    let sqes = [write(3, 0, 10, 1), write(3, 10, 10, 2), write(3, 20, 10, 3)];
    m.on_submit(7, 0, &sqes, 3, 1); // inner
    m.on_submit(7, 0, &sqes, 3, 2); // outer, same snapshot
    assert_eq!(n(&record(&m, b"/data/f"), c::WRITES), 3);
    // Only the entries below the kernel's head were submitted.
    m.on_submit(7, 3, &[write(3, 30, 10, 4), write(3, 40, 10, 5)], 4, 3);
    assert_eq!(n(&record(&m, b"/data/f"), c::WRITES), 4);
    m.on_submit(7, 4, &[write(3, 40, 10, 5)], 5, 4);
    assert_eq!(n(&record(&m, b"/data/f"), c::WRITES), 5);
}

/// This thread's minor page faults so far (/proc/thread-self/stat).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("/proc/thread-self/stat");
    let after_name = &stat[stat.rfind(')').expect("a name") + 2..];
    after_name.split(' ').nth(7).and_then(|f| f.parse().ok()).expect("minflt")
}

/// Regression: the shutdown drained the request table by scanning all of
/// it (4,096 slots, 160 KiB) in every process, rings or not, and a forked
/// child cleared it by filling it: 40 page faults each time, about 90 us
/// of a /bin/true's added time. Nothing in flight: not a page of it read.
#[test]
fn an_empty_request_table_is_not_scanned_at_shutdown_or_fork() {
    let mut t = inflight_for(1);
    let before = minor_faults();
    t.drain(None, |p| panic!("nothing was in flight: {p:?}"));
    t.clear();
    let faults = minor_faults() - before;
    assert!(faults < 4, "{faults} page faults draining and clearing an empty table");
    // With a request in flight the table is still drained.
    let p = inflight::Pending { record: 3, kind: inflight::Kind::Write, len: 4096, offset: 0, submitted: 7 };
    assert_eq!(t.insert(0, 42, p), None);
    let mut seen = Vec::new();
    t.drain(None, |q| seen.push(q));
    assert_eq!((seen, t.len()), (vec![p], 0));
}

/// A file opened straight into a registered slot, as the ffi crate hands
/// it in: named (`opened`), into `slot` (None: one the kernel picks).
fn open_direct(m: &IoUring, name: &[u8], slot: Option<u32>, user_data: u64) -> Sqe {
    let file_index = slot.map_or(ops::FILE_INDEX_ALLOC, |s| s + 1);
    let opened = m.slot_value_of(name);
    Sqe { opcode: ops::OP_OPENAT, fd: AT_FDCWD, file_index, opened, user_data, ..Sqe::default() }
}

const AT_FDCWD: i32 = -100;

fn on_slot(slot: i32, sqe: Sqe) -> Sqe {
    Sqe { flags: ops::SQE_FIXED_FILE, fd: slot, ..sqe }
}

/// Open, write and close "direct" in one submission (what direct
/// descriptors are for): the write was counted as unobserved, no file
/// named; it is the opened file's now, the open and the close its META
/// ops.
#[test]
fn a_file_opened_direct_had_its_requests_counted_as_unobserved() {
    let m = attached(4);
    m.on_setup(7, params(8));
    let open = open_direct(&m, b"/data/direct", Some(4), 1);
    let close = Sqe { opcode: ops::OP_CLOSE, file_index: 5, ..write(0, 0, 0, 3) };
    m.on_submit(7, 0, &[open, on_slot(4, write(0, 0, 4096, 2)), close], 3, 1);
    let cqes = [1, 2, 3].map(|u| Cqe { user_data: u, res: if u == 2 { 4096 } else { 0 }, flags: 0 });
    m.on_complete(7, &cqes, 3, 2);
    let w = record(&m, b"/data/direct");
    let got = [c::WRITES, c::BYTES_WRITTEN, c::META_OPS, c::FIXED_FILE_OPS, c::COMPLETIONS_SEEN, c::ERRORS];
    assert_eq!(got.map(|k| n(&w, k)), [1, 4096, 2, 3, 3, 0]);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 0);
}

/// A file opened direct into a slot that held a registered file: the
/// requests that followed were counted for the registered file. A failed
/// open leaves the slot to the registered file, as the kernel does.
#[test]
fn requests_on_a_file_opened_direct_went_to_the_file_registered_there_before() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.bind_fd(5, Some(b"/data/registered"));
    m.on_register_files(7, 0, &[-1, 5], 1);
    let failed = open_direct(&m, b"/data/missing", Some(1), 1);
    m.on_submit(7, 0, &[failed], 1, 1);
    m.on_complete(7, &[Cqe { user_data: 1, res: -2, flags: 0 }], 1, 2);
    m.on_submit(7, 1, &[on_slot(1, write(0, 0, 10, 2))], 2, 3);
    let opened = open_direct(&m, b"/data/direct", Some(1), 3);
    m.on_submit(7, 2, &[opened, on_slot(1, write(0, 0, 20, 4))], 4, 4);
    let (reg, direct, missing) =
        (record(&m, b"/data/registered"), record(&m, b"/data/direct"), record(&m, b"/data/missing"));
    assert_eq!([c::WRITES, c::META_OPS].map(|k| n(&reg, k)), [1, 0], "the write after the failed open");
    assert_eq!([c::WRITES, c::META_OPS].map(|k| n(&direct, k)), [1, 1]);
    assert_eq!([c::WRITES, c::META_OPS, c::ERRORS].map(|k| n(&missing, k)), [0, 1, 1]);
}

/// An open into a slot the kernel picks: the slot is known at its
/// completion (its result); an accept into a slot makes it no file's.
#[test]
fn a_slot_the_kernel_picked_names_its_file_from_the_completion() {
    let m = attached(4);
    m.on_setup(7, params(8));
    m.on_submit(7, 0, &[open_direct(&m, b"/data/picked", None, 1)], 1, 1);
    m.on_complete(7, &[Cqe { user_data: 1, res: 2000, flags: 0 }], 1, 2);
    m.on_submit(7, 1, &[on_slot(2000, write(0, 0, 30, 2))], 2, 3);
    assert_eq!([c::WRITES, c::META_OPS].map(|k| n(&record(&m, b"/data/picked"), k)), [1, 1]);
    let accept = Sqe { opcode: ops::OP_ACCEPT, file_index: 2001, ..write(3, 0, 0, 3) };
    m.on_submit(7, 2, &[accept, on_slot(2000, write(0, 0, 30, 4))], 4, 4);
    assert_eq!(n(&record(&m, b"/data/picked"), c::WRITES), 1, "a socket's request is not the file's");
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 0, "nor unobserved");
}

/// A multishot accept into slots the kernel picks: each connection's
/// completion (IORING_CQE_F_MORE) gives its slot, and a socket made into
/// a picked slot gives it at its completion. Their requests counted as
/// unobserved; they are no file's. The accept is in no ring's depth.
#[test]
fn requests_on_sockets_in_slots_the_kernel_picked_counted_as_unobserved() {
    let m = attached(4);
    m.on_setup(7, params(8));
    let alloc = ops::FILE_INDEX_ALLOC;
    let accept = Sqe { opcode: ops::OP_ACCEPT, file_index: alloc, ..write(3, 0, 0, 1) };
    m.on_submit(7, 0, &[accept], 1, 1);
    let more = 1 << 1;
    m.on_complete(7, &[Cqe { user_data: 1, res: 0, flags: more }, Cqe { user_data: 1, res: 1, flags: more }], 2, 2);
    let socket = Sqe { opcode: ops::OP_SOCKET, file_index: alloc, ..write(0, 0, 0, 2) };
    m.on_submit(7, 1, &[socket], 2, 3);
    m.on_complete(7, &[Cqe { user_data: 2, res: 2, flags: 0 }], 3, 4);
    m.bind_fd(5, Some(b"/data/file"));
    let sends = [0, 1, 2].map(|slot| on_slot(slot, write(0, 0, 10, 10 + slot as u64)));
    m.on_submit(7, 2, &[sends[0], sends[1], sends[2], write(5, 0, 10, 13)], 6, 5);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 0, "the sockets' writes");
    assert_eq!(n(&record(&m, UNOBSERVED), c::RING_MAX_INFLIGHT), 1, "the file's write, not the accept");
    assert_eq!(n(&record(&m, b"/data/file"), c::WRITES), 1);
    // The accept ends (cancelled): a slot it never gave stays unnamed.
    m.on_complete(7, &[Cqe { user_data: 1, res: -125, flags: 0 }], 6, 6);
    m.on_submit(7, 6, &[on_slot(3, write(0, 0, 10, 20))], 7, 7);
    assert_eq!(n(&record(&m, UNOBSERVED), c::UNOBSERVED_OPS), 1, "slot 3 was never named");
}
