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
//! file are joined ([`concat_dxt`]) when its last one is read, and what
//! comes after a trace still waiting for its other parts waits with it.
//! When no two processes share a rank (one process per MPI rank, or ranks
//! given in start order), no trace has parts and the order first met is
//! the order read: one pass writes the same bytes, and the inputs are
//! read once (the counting pass was 8 % of a 16-process merge's time).

use std::collections::HashMap;

use darshan_log::record::Extra;
use darshan_log::Record;

use crate::merge::{MergeError, OneInputAtATime};

type Key = (i64, u64);

/// Input `k`'s traces, under its process's rank, on the job's clock.
pub(crate) type ReadInput<'a> = dyn Fn(usize) -> Result<Vec<Record>, MergeError> + 'a;

/// Write DXT module `m` of the job, whose `inputs` traces `read` gives
/// (`ranks_shared`: two inputs may be processes of one rank); how many
/// records it has.
pub(crate) fn write(
    w: &mut crate::merge::NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    m: usize,
    (inputs, ranks_shared): (usize, bool),
    read: &ReadInput,
) -> Result<usize, MergeError> {
    if !ranks_shared {
        let (mut n, mut failed) = (0, None);
        let traces = OneInputAtATime::new(inputs, read, &mut failed).inspect(|_| n += 1);
        w.write_module(m, traces).map_err(werr)?;
        return failed.map_or(Ok(n), Err);
    }
    let (order, parts) = count(inputs, read)?;
    let n = order.len();
    let mut failed = None;
    let inputs = OneInputAtATime::new(inputs, read, &mut failed);
    let traces = InOrder::new(inputs, order, parts);
    w.write_module(m, traces).map_err(werr)?;
    failed.map_or(Ok(n), Err)
}

/// The first pass: every (rank, file) in the order first met, and how many
/// inputs have a trace of it.
fn count(inputs: usize, read: &ReadInput) -> Result<(Vec<Key>, HashMap<Key, u32>), MergeError> {
    let (mut order, mut parts) = (Vec::new(), HashMap::new());
    for k in 0..inputs {
        for r in read(k)? {
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
/// whole, in the order of `order`.
struct InOrder<I> {
    inputs: I,
    order: Vec<Key>,
    next: usize,
    parts: HashMap<Key, u32>,
    /// Traces read and not written yet: whole (every part read), or the
    /// parts read so far.
    waiting: HashMap<Key, Vec<Record>>,
    /// The inputs are read to their end: what waits is written as it is.
    drained: bool,
}

impl<I> InOrder<I> {
    fn new(inputs: I, order: Vec<Key>, parts: HashMap<Key, u32>) -> Self {
        InOrder { inputs, order, next: 0, parts, waiting: HashMap::new(), drained: false }
    }

    /// The next trace's parts, once all are read. Once the inputs are
    /// drained, whatever the second pass read, whole or not, and then
    /// what the first pass never counted (an input that changed between
    /// the passes: a crash-safe file still being written): nothing read
    /// is left out.
    fn take_next(&mut self) -> Option<Vec<Record>> {
        while let Some(&key) = self.order.get(self.next) {
            let read = self.waiting.get(&key).map_or(0, Vec::len);
            if read < self.parts.get(&key).copied().unwrap_or(0) as usize && !self.drained {
                return None;
            }
            self.next += 1;
            if let Some(g) = self.waiting.remove(&key) {
                return Some(g);
            }
        }
        let uncounted = self.waiting.keys().min().copied().filter(|_| self.drained)?;
        self.waiting.remove(&uncounted)
    }
}

impl<I: Iterator<Item = Record>> Iterator for InOrder<I> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(mut g) = self.take_next() {
                return match g.len() {
                    1 => g.pop(),
                    _ => Some(concat_dxt(g)),
                };
            }
            match self.inputs.next() {
                Some(r) => self.waiting.entry((r.rank, r.id)).or_default().push(r),
                None if !self.drained => self.drained = true,
                None => return None,
            }
        }
    }
}

/// One rank's traces of a file from several processes, as one trace in
/// time order. Each part's segments move into a vector of the joined
/// length, and each part is dropped as it is moved: the parts and the
/// whole are never all held twice.
fn concat_dxt(g: Vec<Record>) -> Record {
    let lens = |r: &Record| match &r.extra {
        Extra::Dxt { writes, reads, .. } => (writes.len(), reads.len()),
        _ => (0, 0),
    };
    let (nw, nr) = g.iter().map(lens).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let (mut all_w, mut all_r) = (Vec::with_capacity(nw), Vec::with_capacity(nr));
    let mut it = g.into_iter();
    let mut first = it.next().expect("a group is never empty");
    if let Extra::Dxt { writes, reads, .. } = &mut first.extra {
        all_w.append(writes);
        all_r.append(reads);
        *writes = Vec::new();
        *reads = Vec::new();
    }
    for mut r in it {
        if let Extra::Dxt { writes, reads, .. } = &mut r.extra {
            all_w.append(writes);
            all_r.append(reads);
        }
    }
    all_w.sort_by(|a, b| a.start_time.total_cmp(&b.start_time));
    all_r.sort_by(|a, b| a.start_time.total_cmp(&b.start_time));
    if let Extra::Dxt { writes, reads, .. } = &mut first.extra {
        (*writes, *reads) = (all_w, all_r);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::modules::DXT_POSIX;

    fn trace(rank: i64, id: u64, starts: &[f64]) -> Record {
        let seg = |&t: &f64| darshan_log::record::DxtSegment {
            offset: 0,
            length: 1,
            start_time: t,
            end_time: t,
            pthread_id: None,
        };
        let mut r = Record { rank, id, ..Record::new(DXT_POSIX) };
        r.extra = Extra::Dxt {
            shared_record: 0,
            hostname: [0; 64],
            writes: starts.iter().map(seg).collect(),
            reads: Vec::new(),
        };
        r
    }

    fn starts(r: &Record) -> (i64, u64, Vec<f64>) {
        let Extra::Dxt { writes, .. } = &r.extra else { panic!("not a trace") };
        (r.rank, r.id, writes.iter().map(|s| s.start_time).collect())
    }

    /// Traces in the order first met, a rank's parts of one file joined in
    /// time order, and what comes after a trace waiting for its parts
    /// waits with it.
    #[test]
    fn a_ranks_parts_of_a_file_are_joined_where_the_first_was_met() {
        let read = vec![trace(0, 7, &[2.0]), trace(0, 8, &[1.0]), trace(1, 7, &[3.0]), trace(0, 7, &[1.0, 4.0])];
        let parts = HashMap::from([((0, 7), 2), ((0, 8), 1), ((1, 7), 1)]);
        let got: Vec<_> =
            InOrder::new(read.into_iter(), vec![(0, 7), (0, 8), (1, 7)], parts).map(|r| starts(&r)).collect();
        assert_eq!(got, [(0, 7, vec![1.0, 2.0, 4.0]), (0, 8, vec![1.0]), (1, 7, vec![3.0])]);
    }

    /// An input that changed between the passes: a trace counted twice
    /// but read once, and one never counted, are written all the same
    /// (they were held back for ever, and lost).
    #[test]
    fn traces_the_two_passes_disagree_on_are_written_all_the_same() {
        let read = vec![trace(0, 7, &[1.0]), trace(0, 9, &[5.0]), trace(1, 7, &[2.0])];
        let parts = HashMap::from([((0, 7), 2), ((1, 7), 1)]);
        let got: Vec<_> = InOrder::new(read.into_iter(), vec![(0, 7), (1, 7)], parts).map(|r| starts(&r)).collect();
        assert_eq!(got, [(0, 7, vec![1.0]), (1, 7, vec![2.0]), (0, 9, vec![5.0])]);
    }
}
