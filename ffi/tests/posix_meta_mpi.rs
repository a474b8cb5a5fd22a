//! POSIX_META in MPI jobs (Open MPI and MPICH): a directory every rank
//! lists reduces to one rank -1 record whose counts are the ranks' sum;
//! each rank's own files keep their rank (tests/programs/meta_mpi.c).

mod common;

use common::mpi::*;
use common::*;
use darshan_log::counters::posix_meta as c;
use darshan_log::modules::POSIX_META;

fn a_directory_every_rank_lists_reduces_to_one_record(mpi: Mpi) {
    let d = scratch(&format!("meta-mpi-{}", mpi.tag()));
    let exe = mpicc(mpi, "meta_mpi", &d);
    let data = d.join("data").canonicalize().unwrap();
    let logs = mpirun(mpi, &exe, &[data.to_str().unwrap()], &d, &[("DARSHAN_MOD_ENABLE", "POSIX_META")]);
    let log = the_log(&logs);
    let dir = log.all(POSIX_META, &data.join("shared"));
    assert_eq!(dir.len(), 1, "one record for the shared directory");
    let r = dir[0];
    assert_eq!(r.rank, -1);
    assert_eq!((r.counters[c::OPENDIRS], r.counters[c::READDIRS], r.counters[c::DIR_ENTRIES]), (NP, 7 * NP, 6 * NP));
    for rank in 0..NP {
        let own = log.one(POSIX_META, &data.join(format!("own{rank}")));
        assert_eq!((own.rank, own.counters[c::UNLINKS]), (rank, 1));
    }
}

on_both_mpis!(a_directory_every_rank_lists_reduces_to_one_record);
