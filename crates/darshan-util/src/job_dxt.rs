//! DXT in `darshan-merge --job`: the traces go from the inputs to the
//! job's log one input at a time. Gathering every input's traces before
//! writing held them all at once, 1.7 times their decoded size (16
//! processes of 65,532 segments: 56 MB); a job's processes each trace up
//! to DXT's limit, and a thousand of them would need gigabytes.
//!
//! Two passes over the inputs: the first counts each (rank, file)'s
//! records (several processes of one rank, such as a launcher's forked
//! workers, trace the same file), the second writes each trace in the
//! order it was first met, as `combine_ranks` did: a rank's traces of one
//! file are joined (`concat_dxt`) when its last one is read, and what
//! comes after a trace still waiting for its other parts waits with it.

use std::collections::HashMap;

use darshan_log::Record;

use crate::job_merge::{concat_dxt, process_records, timestamp_fcounters, Plan};
use crate::merge::MergeError;

type Key = (i64, u64);

/// Write DXT module `m` of the job; how many records it has.
pub(crate) fn write(
    w: &mut crate::merge::NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    plan: &Plan,
    m: usize,
) -> Result<usize, MergeError> {
    let (order, parts) = count(plan, m)?;
    let n = order.len();
    let mut failed = None;
    let traces = InOrder {
        plan,
        m,
        stamps: timestamp_fcounters(m),
        next_input: 0,
        input: Vec::new().into_iter(),
        order,
        next: 0,
        parts,
        waiting: HashMap::new(),
        failed: &mut failed,
    };
    w.write_module(m, traces).map_err(werr)?;
    match failed {
        Some(e) => Err(e),
        None => Ok(n),
    }
}

/// The first pass: every (rank, file) in the order first met, and how many
/// inputs have a trace of it.
fn count(plan: &Plan, m: usize) -> Result<(Vec<Key>, HashMap<Key, u32>), MergeError> {
    let stamps = timestamp_fcounters(m);
    let (mut order, mut parts) = (Vec::new(), HashMap::new());
    for p in &plan.procs {
        for r in process_records(plan, p, m, &stamps)? {
            let n = parts.entry((r.rank, r.id)).or_insert(0u32);
            if *n == 0 {
                order.push((r.rank, r.id));
            }
            *n += 1;
        }
    }
    Ok((order, parts))
}

/// The second pass, as the writer pulls it: each (rank, file)'s trace,
/// whole, in the order of `order`. A read that fails ends the traces and
/// leaves its error in `failed`.
struct InOrder<'a> {
    plan: &'a Plan,
    m: usize,
    stamps: Vec<usize>,
    next_input: usize,
    input: std::vec::IntoIter<Record>,
    order: Vec<Key>,
    next: usize,
    parts: HashMap<Key, u32>,
    /// Traces read and not written yet: whole (every part read), or the
    /// parts read so far.
    waiting: HashMap<Key, Vec<Record>>,
    failed: &'a mut Option<MergeError>,
}

impl InOrder<'_> {
    /// The next trace's parts, if all are read.
    fn take_next_whole(&mut self) -> Option<Vec<Record>> {
        let key = *self.order.get(self.next)?;
        let read = self.waiting.get(&key).map_or(0, Vec::len);
        if read < self.parts.get(&key).copied().unwrap_or(0) as usize {
            return None;
        }
        self.next += 1;
        self.waiting.remove(&key)
    }

    /// The next record of the inputs, the next input read when one ends.
    fn read_one(&mut self) -> Option<Record> {
        loop {
            if let Some(r) = self.input.next() {
                return Some(r);
            }
            let p = self.plan.procs.get(self.next_input)?;
            self.next_input += 1;
            match process_records(self.plan, p, self.m, &self.stamps) {
                Ok(recs) => self.input = recs.into_iter(),
                Err(e) => {
                    *self.failed = Some(e);
                    return None;
                }
            }
        }
    }
}

impl Iterator for InOrder<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(mut g) = self.take_next_whole() {
                return match g.len() {
                    1 => g.pop(),
                    _ => Some(concat_dxt(g)),
                };
            }
            let r = self.read_one()?;
            self.waiting.entry((r.rank, r.id)).or_default().push(r);
        }
    }
}
