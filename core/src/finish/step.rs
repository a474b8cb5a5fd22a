//! The shutdown's unit of local work in an MPI job: catch, then agree,
//! so that every rank leaves the sequence at the same point.

use crate::counting::collective::{Comm, Op};
use crate::finish::pipeline::ShutdownError;

/// A piece of this rank's local work between two collective calls, then
/// the job's agreement on it: Ok on every rank only when it succeeded on
/// every rank. Rank 0 carries the job's error: its own, else the gravest
/// reason another rank had ([`ShutdownError::elsewhere`]); the others
/// `OtherRank`.
pub(crate) fn step<T>(
    comm: &dyn Comm,
    name: &'static str,
    f: impl FnOnce() -> Result<T, ShutdownError>,
) -> Result<T, ShutdownError> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        failure_injected(name, comm.rank());
        f()
    }))
    .unwrap_or(Err(ShutdownError::Step(name)));
    let mut worst = [r.as_ref().err().map_or(0, ShutdownError::gravity)];
    comm.allreduce_u64(&mut worst, Op::Max);
    if worst[0] == 0 {
        return r;
    }
    Err(match r {
        _ if comm.rank() != 0 => ShutdownError::OtherRank,
        Err(e) => e,
        Ok(_) => ShutdownError::elsewhere(worst[0], name),
    })
}

/// The tests' way of failing one step on one rank:
/// `DARSHAN_RS_TEST_FAIL=<step>@<rank>` (read at shutdown only).
fn failure_injected(name: &str, rank: i64) {
    if let Ok(v) = std::env::var("DARSHAN_RS_TEST_FAIL") {
        if v.split_once('@').is_some_and(|(s, r)| s == name && r.parse() == Ok(rank)) {
            panic!("DARSHAN_RS_TEST_FAIL={v}");
        }
    }
}
