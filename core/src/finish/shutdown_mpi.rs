//! The shutdown pipeline of an MPI job, run in the MPI_Finalize wrapper
//! on every rank before the real PMPI_Finalize (docs/counter-rules.md §6, docs/
//! log-format.md §5): agree on the end of the run, finalize the modules, find the
//! records every rank has, reduce them onto rank 0, compress each rank's
//! regions locally, then write one log with MPI-IO (opened collectively
//! with DARSHAN_LOGHINTS), each region being the ranks' zlib streams in
//! rank order, each rank writing its own.
//!
//! The shutdown is a sequence of phases, [`write_log_mpi`] reading as the
//! protocol. Each phase is collective calls around local work; each piece
//! of local work is a named step ([`step`]): a failure in it, a panic
//! included, is caught on its rank and followed by an agreement
//! (`all_ok`) among all ranks, so that every rank leaves the sequence at
//! the same point and none is left waiting in a collective call (a job
//! that hangs at MPI_Finalize loses its allocation and every rank's log).
//! Rank 0's own work happens only inside a step. The crash-safe files
//! stay when a step fails: the line rank 0 prints says how to merge them.
//! The modules' reductions are collectives of their own and are not steps.

use darshan_log::cost::Cost;
use darshan_log::header::{Header, HEADER_SIZE};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::contract::module::{FinalizeCtx, Module};
use crate::counting::collective::{all_ok, bcast_vec, Comm, Op};
use crate::finish::gathered::Layout;
use crate::finish::pipeline::{self, Regions, ShutdownError};
use crate::finish::shutdown::{job_record, log_paths, metadata_counts, Outcome};
use crate::finish::step::step;
use crate::finish::timing::{timed, ModuleClock, Timing};
use crate::runtime::{self, Shared};

/// Each module's record ids, with a bit per module that has the id: the
/// ids it holds when the shared records are to be reduced (`held_ids`),
/// else those it writes (the agreement then only decides which ranks
/// leave a shared record's name to rank 0, which must write that record
/// itself: a rank 0 holding an unused `<STDOUT>` would leave the other
/// ranks' `<STDOUT>` records without a name).
fn local_ids(modules: &[&'static dyn Module], reducing: bool) -> (Vec<u64>, HashMap<u64, u64>) {
    let mut order = Vec::new();
    let mut mask: HashMap<u64, u64> = HashMap::new();
    for m in modules {
        let id = m.spec().id;
        let mut add = |rec_id| {
            let e = mask.entry(rec_id).or_insert_with(|| {
                order.push(rec_id);
                0
            });
            *e |= 1 << id;
        };
        if reducing {
            m.held_ids(&mut add)
        } else {
            m.record_ids(&mut add)
        }
    }
    (order, mask)
}

/// The ids every rank has, with the modules in which all of them have it
/// (rank 0 proposes its ids; a bitwise AND of the module masks decides).
fn shared_records(comm: &dyn Comm, modules: &[&'static dyn Module], reducing: bool) -> Vec<(u64, u64)> {
    let (order, mask) = local_ids(modules, reducing);
    let mut bytes: Vec<u8> =
        if comm.rank() == 0 { order.iter().flat_map(|id| id.to_le_bytes()).collect() } else { Vec::new() };
    bcast_vec(comm, &mut bytes);
    let ids: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
    let mut masks: Vec<u64> = ids.iter().map(|id| mask.get(id).copied().unwrap_or(0)).collect();
    comm.allreduce_u64(&mut masks, Op::Band);
    ids.into_iter().zip(masks).filter(|(_, m)| *m != 0).collect()
}

/// The steps, in the order the shutdown runs them (the failure test
/// fails each in turn).
pub const STEPS: [&str; 6] = ["finalize", "compress", "count", "job", "name", "write"];

/// Finalize, reduce and write the job's log. `end_tick` is this rank's
/// clock at shutdown. Rank 0's outcome names the log.
pub fn write_log_mpi(
    comm: &dyn Comm,
    secs_per_tick: f64,
    end: (i64, i64),
    end_tick: i64,
) -> Result<Outcome, ShutdownError> {
    let sh = runtime::core().shared().ok_or(ShutdownError::NotInitialised)?;
    comm.barrier();
    let t_start = Instant::now();
    runtime::core().cost.settle(secs_per_tick);
    // Asked before anything is allocated; the finalize step stops every
    // rank when one lacks it (no module list is made there: an empty
    // vector takes no memory).
    let memory = crate::seccomp::check().and_then(|_| crate::finish::memory::enough());
    let modules = if memory.is_ok() { runtime::core().modules() } else { Vec::new() };
    let ctx = agree_on_the_clock(comm, secs_per_tick, end_tick);
    let mut t = Timing::new(sh.config.internal_timing);
    finalize(comm, &modules, &ctx, end, t_start, memory, &mut t.modules)?;
    let finalize_s = t_start.elapsed().as_secs_f64();
    let (shared, reduce_s) = timed(|| reduce_shared_records(comm, &modules, sh, &mut t.modules));
    let job = agree_on_the_job(comm, end, sh);
    let t2 = Instant::now();
    let mut regions = compress(comm, &modules, &shared, &mut t.modules)?;
    let (counts, cost) = agree_on_counts(comm, &modules, regions.calls, t_start)?;
    let (added, job_s) = timed(|| add_job_record(comm, &mut regions, &job, &counts, &cost));
    added?;
    t.job = job_s;
    let compress_s = t2.elapsed().as_secs_f64();
    let t3 = Instant::now();
    let placed = place_regions(comm, &regions);
    let (name, open_s) = timed(|| agree_on_the_name(comm, &job));
    let name = name?;
    let (written, write_log_s) = timed(|| write(comm, sh, &regions, &placed, &name));
    written?;
    t.write_log = write_log_s;
    let write_s = t3.elapsed().as_secs_f64();
    let path = publish(comm, sh, name, t_start)?;
    crate::store::logmap::remove();
    (t.log_open, t.names, t.active, t.all) =
        (open_s, regions.names_s, regions.active(), t_start.elapsed().as_secs_f64());
    t.split = [finalize_s, reduce_s, compress_s, write_s];
    Ok(Outcome { path, timing: t, records: regions.records, shared: shared.len() })
}

/// Every rank's heatmaps end at the latest end of any rank (in each
/// rank's own relative time, as Darshan agrees on it), with bins of the
/// same width: ticks count with rank 0's rate for heatmaps, and bins are
/// as many ticks wide as the widest any rank has.
fn agree_on_the_clock(comm: &dyn Comm, secs_per_tick: f64, end_tick: i64) -> FinalizeCtx {
    let mut heat = secs_per_tick.to_le_bytes();
    comm.bcast(&mut heat);
    let heat_secs_per_tick = f64::from_le_bytes(heat);
    let mut last = [end_tick as f64 * heat_secs_per_tick];
    comm.allreduce_f64(&mut last, Op::Max);
    let end_tick = if heat_secs_per_tick > 0.0 { (last[0] / heat_secs_per_tick).ceil() as i64 } else { end_tick };
    let mut widest = [u64::from(crate::runtime::core().heat.widest())];
    comm.allreduce_u64(&mut widest, Op::Max);
    let heat_shift = u32::try_from(widest[0]).unwrap_or(u32::MAX); // finish() caps it
    FinalizeCtx { secs_per_tick, end_tick, heat_secs_per_tick, heat_shift, rank: comm.rank(), nprocs: comm.size() }
}

/// Every module stops recording and turns ticks into seconds; this rank's
/// crash-safe file then holds seconds (no `ticks=`; its calls are counted
/// from its records if it is ever merged).
fn finalize(
    comm: &dyn Comm,
    modules: &[&'static dyn Module],
    ctx: &FinalizeCtx,
    end: (i64, i64),
    t_start: Instant,
    memory: Result<(), ShutdownError>,
    clock: &mut ModuleClock,
) -> Result<(), ShutdownError> {
    step(comm, "finalize", || {
        // Before the records turn into seconds (the crash-safe file then
        // still says ticks).
        memory?;
        pipeline::finalize(modules, ctx, clock);
        let cost = runtime::core().cost.cost(0, t_start.elapsed());
        crate::finish::shutdown::map_job(end, ctx.nprocs, None, true, &cost);
        Ok(())
    })
}

/// The records every rank has, each module's reduced onto rank 0 as
/// rank -1 records (unless DARSHAN_DISABLE_SHARED_REDUCTION).
fn reduce_shared_records(
    comm: &dyn Comm,
    modules: &[&'static dyn Module],
    sh: &Shared,
    clock: &mut ModuleClock,
) -> Vec<(u64, u64)> {
    let reducing = !sh.config.disable_shared_reduction;
    let shared = shared_records(comm, modules, reducing);
    if reducing {
        for m in modules {
            let bit = 1u64 << m.spec().id;
            let ids: Vec<u64> = shared.iter().filter(|(_, mask)| mask & bit != 0).map(|(id, _)| *id).collect();
            if !ids.is_empty() {
                clock.time(m.spec().id, || m.reduce(&ids, comm));
            }
        }
    }
    shared
}

/// The job's start and end (the earliest start and the latest end of any
/// rank) and its id.
struct JobFacts {
    start: (i64, i64),
    end: (i64, i64),
    jobid: i64,
}

fn agree_on_the_job(comm: &dyn Comm, end: (i64, i64), sh: &Shared) -> JobFacts {
    let t = runtime::core().times();
    let mut times = [t.start.0 * 1_000_000_000 + t.start.1, -(end.0 * 1_000_000_000 + end.1)];
    comm.allreduce_i64(&mut times, Op::Min);
    JobFacts {
        start: (times[0].div_euclid(1_000_000_000), times[0].rem_euclid(1_000_000_000)),
        end: ((-times[1]).div_euclid(1_000_000_000), (-times[1]).rem_euclid(1_000_000_000)),
        jobid: crate::finish::shutdown::job_id(&sh.config, t.first_pid),
    }
}

/// The job metadata's counts, by key.
type Counts = Vec<(&'static str, u64)>;

/// What the modules could not record, and the runtime's cost (the calls
/// this rank's share of the log counts, its shutdown since `t_start`),
/// summed over the ranks
/// (the job metadata's counts and cost lines).
fn agree_on_counts(
    comm: &dyn Comm,
    modules: &[&'static dyn Module],
    calls: u64,
    t_start: Instant,
) -> Result<(Counts, Cost), ShutdownError> {
    let mut counts = step(comm, "count", || Ok(metadata_counts(modules)))?;
    let mine = runtime::core().cost.cost(calls, t_start.elapsed());
    // The per-call cost is summed as nanoseconds x calls: the job's is the
    // calls' weighted mean.
    let weighted = darshan_log::cost::round_u64(mine.call_ns * calls as f64);
    let mut sums: Vec<u64> = counts.iter().map(|(_, n)| *n).collect();
    sums.extend([mine.startup_us, mine.shutdown_us, mine.calls, mine.est_us, weighted]);
    comm.allreduce_u64(&mut sums, Op::Sum);
    let n = counts.len();
    counts.iter_mut().zip(&sums).for_each(|(c, s)| c.1 = *s);
    let [startup_us, shutdown_us, calls, est_us, weighted] = sums[n..] else {
        return Err(ShutdownError::Step("count"));
    };
    let call_ns = if calls > 0 { weighted as f64 / calls as f64 } else { mine.call_ns };
    Ok((counts, Cost { startup_us, shutdown_us, calls, est_us, call_ns }))
}

/// This rank's share of the name table and of every module's records,
/// compressed. Rank 0 names the shared records for every rank.
fn compress(
    comm: &dyn Comm,
    modules: &[&'static dyn Module],
    shared: &[(u64, u64)],
    clock: &mut ModuleClock,
) -> Result<Regions, ShutdownError> {
    let rank = comm.rank();
    step(comm, "compress", || {
        let drop: HashSet<u64> = if rank == 0 { HashSet::new() } else { shared.iter().map(|(id, _)| *id).collect() };
        let names = pipeline::names_of_records(&runtime::core().ledger.names_copy(), modules, &drop);
        Ok(pipeline::compress_regions(&names, modules, clock))
    })
}

/// Rank 0 adds the job record, last: it says what the shutdown cost.
fn add_job_record(
    comm: &dyn Comm,
    regions: &mut Regions,
    job: &JobFacts,
    counts: &[(&'static str, u64)],
    cost: &Cost,
) -> Result<(), ShutdownError> {
    let (rank, nprocs) = (comm.rank(), comm.size());
    step(comm, "job", || {
        let record = if rank == 0 {
            job_record(job.start, job.end, nprocs, job.jobid, counts, true, cost).map(|j| j.encode())
        } else {
            None
        };
        regions.set_job(record.as_deref());
        Ok(())
    })
}

/// Where each rank's pieces go: an exclusive prefix sum of the sizes
/// within each region, the regions back to back after the header, and
/// the trailer naming the modules Darshan does not know after the last.
struct Placed {
    header: Header,
    /// Where each region starts in the log.
    starts: Vec<u64>,
    /// Where this rank's piece starts in each region.
    mine: Vec<u64>,
    trailer: Vec<u8>,
    /// The log's whole size.
    end: u64,
}

fn place_regions(comm: &dyn Comm, regions: &Regions) -> Placed {
    let sizes = regions.sizes();
    let mut mine = sizes.clone();
    comm.exscan_u64(&mut mine);
    let mut totals = sizes;
    comm.allreduce_u64(&mut totals, Op::Sum);
    let mut partial = [runtime::core().ledger.partial_flags()];
    comm.allreduce_u64(&mut partial, Op::Bor);
    let (header, starts) = pipeline::layout(&totals, &regions.module_ids(), partial[0]);
    let regions_end = starts.last().zip(totals.last()).map_or(HEADER_SIZE as u64, |(s, t)| s + t);
    let trailer = darshan_log::extension::encode_trailer(&header);
    let end = regions_end + trailer.len() as u64;
    Placed { header, starts, mine, trailer, end }
}

/// The log's temporary name (every rank) and final base name (rank 0).
struct LogName {
    tmp: String,
    base: Option<String>,
}

/// Rank 0 names the log; every rank learns the name. No name (no log
/// directory): every rank stops, rank 0 with why.
fn agree_on_the_name(comm: &dyn Comm, job: &JobFacts) -> Result<LogName, ShutdownError> {
    let rank = comm.rank();
    let named = step(comm, "name", || if rank == 0 { log_paths(job.jobid, job.start.0).map(Some) } else { Ok(None) })?;
    let mut path = named.as_ref().map(|(tmp, _)| tmp.clone().into_bytes()).unwrap_or_default();
    bcast_vec(comm, &mut path);
    Ok(LogName { tmp: String::from_utf8_lossy(&path).into_owned(), base: named.map(|(_, base)| base) })
}

/// The log written: gathered onto rank 0 when it is small (most are),
/// else with MPI-IO, opened collectively, each rank's streams written
/// where the scan put them (rank 0 also the header and trailer), made
/// durable when crash-safe files are to go, closed, and its size checked
/// by rank 0.
fn write(
    comm: &dyn Comm,
    sh: &Shared,
    regions: &Regions,
    placed: &Placed,
    name: &LogName,
) -> Result<(), ShutdownError> {
    fits_everywhere(comm, placed.end, &name.tmp)?;
    if placed.end <= sh.config.log_gather_max {
        let layout =
            Layout { header: &placed.header, starts: &placed.starts, trailer: &placed.trailer, end: placed.end };
        return crate::finish::gathered::write(comm, sh, regions, &layout, &name.tmp);
    }
    open(comm, sh, &name.tmp)?;
    let wrote = step(comm, "write", || write_pieces(comm, regions, placed, &name.tmp));
    // With crash-safe files (on any rank: the sync is collective), the
    // log must be durable before they go.
    let mut synced = true;
    if wrote.is_ok() && !all_ok(comm, !(sh.config.log_fsync && crate::store::logmap::has_file())) {
        synced = comm.sync_log().is_ok();
    }
    comm.close_log();
    // MPI-IO libraries do not always say a write failed: Open MPI's OMPIO
    // prints "No space left on device" and returns MPI_SUCCESS, and a
    // full disk then left an empty log under its final name and every
    // crash-safe file removed. Rank 0 checks the file has every byte.
    let complete =
        wrote.is_ok() && (comm.rank() != 0 || std::fs::metadata(&name.tmp).is_ok_and(|m| m.len() == placed.end));
    if all_ok(comm, synced && complete) {
        return Ok(());
    }
    if comm.rank() != 0 {
        return Err(ShutdownError::OtherRank);
    }
    let _ = std::fs::remove_file(&name.tmp);
    Err(wrote.err().unwrap_or(ShutdownError::Write {
        path: name.tmp.clone(),
        source: std::io::Error::other("an MPI-IO write failed"),
    }))
}

/// Whether a file of `end` bytes is within every rank's `ulimit -f`,
/// agreed before either way of writing the log: past it the kernel's
/// SIGXFSZ would kill the ranks that write (rank 0 alone when the log is
/// gathered, each rank its pieces with MPI-IO).
fn fits_everywhere(comm: &dyn Comm, end: u64, tmp: &str) -> Result<(), ShutdownError> {
    let fits = crate::store::fsize::fits(end);
    if all_ok(comm, fits.is_ok()) {
        return Ok(());
    }
    let elsewhere = || std::io::Error::other("the log would pass another rank's file size limit (ulimit -f)");
    match (comm.rank(), fits) {
        (0, r) => Err(ShutdownError::Write { path: tmp.into(), source: r.err().unwrap_or_else(elsewhere) }),
        _ => Err(ShutdownError::OtherRank),
    }
}

/// The collective open (said once, by rank 0, for every rank).
fn open(comm: &dyn Comm, sh: &Shared, tmp: &str) -> Result<(), ShutdownError> {
    let opened = comm.open_log(tmp, &sh.config.log_hints);
    if all_ok(comm, opened.is_ok()) {
        return Ok(());
    }
    if comm.rank() != 0 {
        return Err(ShutdownError::OtherRank);
    }
    Err(match opened {
        Err(e) => ShutdownError::Collective(e),
        Ok(()) => {
            comm.close_log();
            ShutdownError::Create { path: tmp.into(), source: std::io::Error::other("not opened on every rank") }
        }
    })
}

/// This rank's streams, with independent writes: Open MPI 4.1's
/// collective buffering corrupted a rank's stream now and then when the
/// hints asked for more than one aggregator (cb_nodes=2: 1 log in 8
/// here), and the pieces do not overlap, so nothing is gained by
/// aggregating them on one node. Modules Darshan does not know are named
/// by the trailer after the last region (darshan_log::extension).
fn write_pieces(comm: &dyn Comm, regions: &Regions, placed: &Placed, tmp: &str) -> Result<(), ShutdownError> {
    let mut wrote = true;
    for (r, data) in regions.in_order().enumerate() {
        if !data.is_empty() {
            wrote &= comm.write_at(placed.starts[r] + placed.mine[r], data).is_ok();
        }
    }
    if comm.rank() == 0 {
        wrote &= comm.write_at(0, &placed.header.encode()).is_ok();
        if !placed.trailer.is_empty() {
            wrote &= comm.write_at(placed.end - placed.trailer.len() as u64, &placed.trailer).is_ok();
        }
    }
    wrote.then_some(()).ok_or_else(|| ShutdownError::Write {
        path: tmp.into(),
        source: std::io::Error::other("an MPI-IO write failed"),
    })
}

/// Rank 0 gives the log its final name (mode 0400 or 0440, durable with
/// DARSHAN_LOG_FSYNC); only when that is done on every rank's word may
/// the ranks remove their crash-safe files.
fn publish(comm: &dyn Comm, sh: &Shared, name: LogName, t_start: Instant) -> Result<String, ShutdownError> {
    let path =
        name.base.map(|base| crate::finish::shutdown::final_name(&sh.config, &base, t_start.elapsed().as_secs_f64()));
    let published = match &path {
        Some(p) => crate::finish::shutdown::publish(&name.tmp, p, sh.config.log_mode(), sh.config.log_fsync).is_ok(),
        None => true,
    };
    if all_ok(comm, published) {
        return Ok(path.unwrap_or_default());
    }
    Err(match path {
        Some(to) => ShutdownError::Rename { to, source: std::io::Error::other("rename failed") },
        None => ShutdownError::OtherRank,
    })
}
