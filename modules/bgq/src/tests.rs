use super::*;
use darshan_core::arena::RecordArena;
use darshan_core::collective::{Combine, Op};

const RECORDING: &str = "\
# Mira, a 128-node block
job_id = 3288074
ranks_per_node = 16
io_node_id = 12 12 13 13   # ranks 0..3, then again
nodes = 128
dims = 2 2 4 4 2
torus = 1 1 1 1 0
ddr_mb = 16384
";

#[test]
fn a_recording_gives_each_rank_its_node() {
    let r = Recorded::parse(RECORDING).unwrap();
    let n0 = r.node(0).unwrap();
    assert_eq!((n0.job_id, n0.ranks_per_node, n0.io_node_id), (3288074, 16, 12));
    assert_eq!(r.node(2).unwrap().io_node_id, 13);
    assert_eq!(r.node(5).unwrap().io_node_id, 12, "rank 5: the list again from its start");
    let p = n0.personality.unwrap();
    assert_eq!((p.nodes, p.dims, p.torus, p.ddr_mb), (128, [2, 2, 4, 4, 2], [true, true, true, true, false], 16384));
}

#[test]
fn counters_are_set_as_darshan_bgq_c_sets_them() {
    let k = counters(&Recorded::parse(RECORDING).unwrap().node(3).unwrap());
    assert_eq!(
        k,
        [
            3288074, // CSJOBID
            128,     // NNODES
            16,      // RANKSPERNODE
            16384,   // DDRPERNODE
            13,      // INODES: this rank's I/O node until the reduction
            2, 2, 4, 4, 2,       // A..E
            0b01111, // TORUSENABLED: A..D wrap around, E does not
        ]
    );
}

#[test]
fn without_a_personality_only_the_kernel_counters_are_set() {
    let r = Recorded::parse("job_id = 7\nranks_per_node = 64\nio_node_id = 3\n").unwrap();
    let k = counters(&r.node(0).unwrap());
    assert_eq!((k[c::CSJOBID.index()], k[c::RANKSPERNODE.index()], k[c::INODES.index()]), (7, 64, 3));
    assert!(c::Counter::all().zip(k).all(|(i, v)| v == 0 || [c::CSJOBID, c::RANKSPERNODE, c::INODES].contains(&i)));
}

#[test]
fn a_bad_recording_is_refused_with_its_line() {
    let cases = [
        ("job_id = 1\nranks_per_node = 1\n", "io_node_id missing"),
        ("job_id = x\n", "line 1: `x` is not an integer"),
        ("job_id = 1 2\n", "line 1: one number expected"),
        ("job_id 1\n", "line 1: not `key = value`"),
        ("\n\nfoo = 1\n", "line 3: unknown key `foo`"),
        ("job_id = 1\nranks_per_node = 1\nio_node_id = 1\nnodes = 2\n", "all or none"),
        ("dims = 1 2 3\n", "five numbers expected"),
        ("io_node_id =\n", "no value"),
    ];
    for (text, want) in cases {
        let e = Recorded::parse(text).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
    }
    // A huge bad word is quoted short.
    let e = Recorded::parse(&format!("job_id = {}\n", "9".repeat(100_000))).unwrap_err().to_string();
    assert!(e.len() < 100, "{} bytes", e.len());
}

#[test]
fn distinct_io_nodes_counts_each_id_once() {
    assert_eq!(distinct_io_nodes(&[12, 13, 12, 13, 40]), 3);
    assert_eq!(distinct_io_nodes(&[5]), 1);
}

/// A job of `ids.len()` ranks seen from `rank`: gather hands rank 0 every
/// rank's I/O node id.
struct Job {
    rank: i64,
    ids: Vec<u64>,
    sent: std::cell::Cell<u64>,
}

impl Comm for Job {
    fn rank(&self) -> i64 {
        self.rank
    }
    fn size(&self) -> i64 {
        self.ids.len() as i64
    }
    fn barrier(&self) {}
    fn bcast(&self, _buf: &mut [u8]) {}
    fn allreduce_u64(&self, _v: &mut [u64], _op: Op) {}
    fn allreduce_i64(&self, _v: &mut [i64], _op: Op) {}
    fn allreduce_f64(&self, _v: &mut [f64], _op: Op) {}
    fn exscan_u64(&self, _v: &mut [u64]) {}
    fn reduce_elems(&self, _s: &[u64], _r: &mut [u64], _w: usize, _c: Combine) -> bool {
        false
    }
    fn gather_bytes(&self, _d: &[u8], _c: &[u64]) -> Option<Vec<u8>> {
        None
    }
    fn gather_u64s(&self, v: &[u64]) -> Vec<u64> {
        self.sent.set(v[0]);
        if self.rank == 0 {
            self.ids.clone()
        } else {
            Vec::new()
        }
    }
    fn open_log(&self, _p: &str, _h: &str) -> Result<(), darshan_core::collective::CommError> {
        Ok(())
    }
    fn write_at(&self, _o: u64, _d: &[u8]) -> Result<(), darshan_core::collective::CommError> {
        Ok(())
    }
    fn sync_log(&self) -> Result<(), darshan_core::collective::CommError> {
        Ok(())
    }
    fn close_log(&self) {}
}

/// Rank `rank` of four's shutdown, at half a second a tick.
fn ctx(rank: i64) -> FinalizeCtx {
    FinalizeCtx { secs_per_tick: 0.5, end_tick: 100, heat_secs_per_tick: 0.5, heat_shift: 0, rank, nprocs: 4 }
}

/// What the module writes now.
fn output() -> Vec<u64> {
    let mut words = Vec::new();
    BGQ.output(&mut |run: &[u64]| words.extend_from_slice(run));
    words
}

/// The module's static, driven as the runtime drives it: capture at
/// start-up, finalize, the MPI reduction, output. One test, as the module
/// is one static.
#[test]
fn the_record_is_made_reduced_to_rank_0_and_written_by_rank_0_only() {
    let env = darshan_core::Env::for_tests();
    let node = Recorded::parse(RECORDING).unwrap().node(0).unwrap();
    let id = darshan_log::record_id(RECORD_NAME);
    // Rank 0 of four: the job's record, INODES the distinct I/O nodes.
    let mut arena = RecordArena::new(2 * c::RECORD_WORDS * 8).unwrap();
    BGQ.attach(arena.reserve(c::RECORD_WORDS, 1), &env);
    assert!(BGQ.capture(&node, 8));
    // Registered with an empty name, as the C module registers it.
    let mut name = [0u8; 8];
    assert_eq!(env.ledger.name_of(id, &mut name), Some(0));
    BGQ.finalize(&ctx(0));
    let job = Job { rank: 0, ids: vec![12, 12, 13, 13], sent: 0.into() };
    BGQ.reduce(&[id], &job);
    assert_eq!(job.sent.get(), 12, "rank 0 sent its own I/O node id");
    let w = output();
    assert_eq!(w.len(), c::RECORD_WORDS);
    assert_eq!((w[0], w[1] as i64), (id, -1));
    assert_eq!(w[c::word(c::INODES)], 2);
    assert_eq!(w[c::word(c::CSJOBID)], 3288074);
    assert_eq!(f64::from_bits(w[c::fword(c::F_TIMESTAMP)]), 4.0, "8 ticks of 0.5 s");

    // Rank 2: takes part in the gather, writes nothing.
    BGQ.fork_child();
    BGQ.attach(arena.reserve(c::RECORD_WORDS, 1), &env.with_rank(2));
    assert!(BGQ.capture(&Recorded::parse(RECORDING).unwrap().node(2).unwrap(), 8));
    BGQ.finalize(&ctx(2));
    let job = Job { rank: 2, ids: vec![12, 12, 13, 13], sent: 0.into() };
    BGQ.reduce(&[id], &job);
    assert_eq!(job.sent.get(), 13);
    assert!(output().is_empty());

    // Without MPI: rank 0's record as captured.
    BGQ.fork_child();
    let mut arena = RecordArena::new(c::RECORD_WORDS * 8).unwrap();
    BGQ.attach(arena.reserve(c::RECORD_WORDS, 1), &env);
    assert!(BGQ.capture(&node, 2));
    BGQ.finalize(&ctx(0));
    let w = output();
    assert_eq!((w[1], w[c::word(c::INODES)]), (0, 12));

    // No room (the module switched off): no record.
    BGQ.fork_child();
    BGQ.attach(Slice::empty(c::RECORD_WORDS), &env);
    assert!(!BGQ.capture(&node, 2));
    assert!(output().is_empty());
}
