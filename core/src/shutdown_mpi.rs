//! The shutdown pipeline of an MPI job, run in the MPI_Finalize wrapper
//! on every rank before the real PMPI_Finalize (docs/counter-rules.md §6, docs/
//! log-format.md §5): agree on the end of the run, finalize the modules, find the
//! records every rank has, reduce them onto rank 0, compress each rank's
//! regions locally, then write one log with MPI-IO (opened collectively
//! with DARSHAN_LOGHINTS), each region being the ranks' zlib streams in
//! rank order, each rank writing its own.
//!
//! The shutdown is a sequence of collective calls with local work between
//! them. Each piece of local work is a named step ([`step`]): a failure in
//! it, a panic included, is caught on its rank and followed by an
//! agreement (`all_ok`) among all ranks, so that every rank leaves the
//! sequence at the same point and none is left waiting in a collective
//! call (a job that hangs at MPI_Finalize loses its allocation and every
//! rank's log). The crash-safe files stay when a step fails: the line rank
//! 0 prints says how to merge them. The modules' reductions are
//! collectives of their own and are not steps.

use darshan_log::header::HEADER_SIZE;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::collective::{all_ok, bcast_vec, Comm, Op};
use crate::module::{FinalizeCtx, Module};
use crate::pipeline::{self, ShutdownError};
use crate::runtime;
use crate::shutdown::{job_record, log_paths, metadata_counts, Outcome};

/// Each module's record ids, with a bit per module that has the id.
fn local_ids(modules: &[&'static dyn Module]) -> (Vec<u64>, HashMap<u64, u64>) {
    let mut order = Vec::new();
    let mut mask: HashMap<u64, u64> = HashMap::new();
    for m in modules {
        let id = m.id();
        m.record_ids(&mut |rec_id| {
            let e = mask.entry(rec_id).or_insert_with(|| {
                order.push(rec_id);
                0
            });
            *e |= 1 << id;
        });
    }
    (order, mask)
}

/// The ids every rank has, with the modules in which all of them have it
/// (rank 0 proposes its ids; a bitwise AND of the module masks decides).
fn shared_records(comm: &dyn Comm, modules: &[&'static dyn Module]) -> Vec<(u64, u64)> {
    let (order, mask) = local_ids(modules);
    let mut bytes: Vec<u8> =
        if comm.rank() == 0 { order.iter().flat_map(|id| id.to_le_bytes()).collect() } else { Vec::new() };
    bcast_vec(comm, &mut bytes);
    let ids: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
    let mut masks: Vec<u64> = ids.iter().map(|id| mask.get(id).copied().unwrap_or(0)).collect();
    comm.allreduce_u64(&mut masks, Op::Band);
    ids.into_iter().zip(masks).filter(|(_, m)| *m != 0).collect()
}

/// A piece of this rank's local work between two collective calls, then
/// the job's agreement on it: Ok on every rank only when it succeeded on
/// every rank. Rank 0 carries the job's error (the step's name when it
/// failed elsewhere); the others `OtherRank`.
fn step<T>(
    comm: &dyn Comm,
    name: &'static str,
    f: impl FnOnce() -> Result<T, ShutdownError>,
) -> Result<T, ShutdownError> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        failure_injected(name, comm.rank());
        f()
    }))
    .unwrap_or(Err(ShutdownError::Step(name)));
    if all_ok(comm, r.is_ok()) {
        return r;
    }
    Err(match r {
        _ if comm.rank() != 0 => ShutdownError::OtherRank,
        Err(e) => e,
        Ok(_) => ShutdownError::Step(name),
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

/// Finalize, reduce and write the job's log. `end_tick` is this rank's
/// clock at shutdown. Rank 0's outcome names the log.
pub fn write_log_mpi(
    comm: &dyn Comm,
    secs_per_tick: f64,
    end: (i64, i64),
    end_tick: i64,
) -> Result<Outcome, ShutdownError> {
    let sh = runtime::shared().ok_or(ShutdownError::NotInitialised)?;
    let (rank, nprocs) = (comm.rank(), comm.size());
    // Rank 0 says what went wrong, once for the job.
    let said = |e: ShutdownError| if rank == 0 { e } else { ShutdownError::OtherRank };
    comm.barrier();
    let t_start = Instant::now();

    // Every rank's heatmaps end at the latest end of any rank (in each
    // rank's own relative time, as Darshan agrees on it), with bins of
    // the same width: ticks count with rank 0's rate for heatmaps, and
    // bins are as many ticks wide as the widest any rank has.
    let mut heat = secs_per_tick.to_le_bytes();
    comm.bcast(&mut heat);
    let heat_secs_per_tick = f64::from_le_bytes(heat);
    let mut last = [end_tick as f64 * heat_secs_per_tick];
    comm.allreduce_f64(&mut last, Op::Max);
    let end_tick = if heat_secs_per_tick > 0.0 { (last[0] / heat_secs_per_tick).ceil() as i64 } else { end_tick };
    let mut widest = [u64::from(crate::heatmap::widest())];
    comm.allreduce_u64(&mut widest, Op::Max);
    let heat_shift = u32::try_from(widest[0]).unwrap_or(u32::MAX); // finish() caps it
    let modules = runtime::modules();
    let ctx = FinalizeCtx { secs_per_tick, end_tick, heat_secs_per_tick, heat_shift, rank, nprocs };
    step(comm, "finalize", || {
        pipeline::finalize(&modules, &ctx);
        // This rank's crash-safe file now holds seconds (no `ticks=`).
        crate::shutdown::map_job(end, nprocs, None, true);
        Ok(())
    })?;
    let finalize_s = t_start.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let shared = shared_records(comm, &modules);
    if !sh.config.disable_shared_reduction {
        for m in &modules {
            let bit = 1u64 << m.id();
            let ids: Vec<u64> = shared.iter().filter(|(_, mask)| mask & bit != 0).map(|(id, _)| *id).collect();
            if !ids.is_empty() {
                m.reduce(&ids, comm);
            }
        }
    }
    let reduce_s = t1.elapsed().as_secs_f64();

    // Job times: the earliest start and the latest end of any rank.
    let t = runtime::times();
    let mut times = [t.start.0 * 1_000_000_000 + t.start.1, -(end.0 * 1_000_000_000 + end.1)];
    comm.allreduce_i64(&mut times, Op::Min);
    let start = (times[0].div_euclid(1_000_000_000), times[0].rem_euclid(1_000_000_000));
    let end = ((-times[1]).div_euclid(1_000_000_000), (-times[1]).rem_euclid(1_000_000_000));
    let jobid = crate::shutdown::job_id(&sh.config, t.first_pid);

    // Compress this rank's share of every region: [job, names, modules..].
    let t2 = Instant::now();
    let mut counts = step(comm, "count", || Ok(metadata_counts(&modules)))?;
    let mut sums: Vec<u64> = counts.iter().map(|(_, n)| *n).collect();
    comm.allreduce_u64(&mut sums, Op::Sum);
    counts.iter_mut().zip(sums).for_each(|(c, n)| c.1 = n);
    let regions = step(comm, "compress", || {
        let job =
            if rank == 0 { job_record(start, end, nprocs, jobid, &counts, true).map(|j| j.encode()) } else { None };
        // Rank 0 names the shared records for every rank.
        let drop: HashSet<u64> = if rank == 0 { HashSet::new() } else { shared.iter().map(|(id, _)| *id).collect() };
        let names = pipeline::names_of_records(&runtime::LEDGER.names_copy(), &modules, &drop);
        Ok(pipeline::compress_regions(job.as_deref(), &names, &modules))
    })?;
    let compress_s = t2.elapsed().as_secs_f64();
    let records = regions.records;

    // Where each rank's pieces go: an exclusive prefix sum of the sizes
    // within each region, and the regions back to back after the header.
    let t3 = Instant::now();
    let sizes = regions.sizes();
    let mut mine = sizes.clone();
    comm.exscan_u64(&mut mine);
    let mut totals = sizes.clone();
    comm.allreduce_u64(&mut totals, Op::Sum);
    let mut partial = [runtime::LEDGER.partial_flags()];
    comm.allreduce_u64(&mut partial, Op::Bor);
    let (header, starts) = pipeline::layout(&totals, &regions.module_ids(), partial[0]);
    let regions_end = starts.last().zip(totals.last()).map_or(HEADER_SIZE as u64, |(s, t)| s + t);
    let trailer = darshan_log::extension::encode_trailer(&header);

    // Rank 0 names the log; every rank learns the name (none: no log).
    let (mut path, tmp_final) = step(comm, "name", || {
        if rank != 0 {
            return Ok((Vec::new(), Err(ShutdownError::OtherRank)));
        }
        let tmp_final = log_paths(jobid, start.0);
        let path = tmp_final.as_ref().map(|(tmp, _)| tmp.clone().into_bytes()).unwrap_or_default();
        Ok((path, tmp_final))
    })?;
    bcast_vec(comm, &mut path);
    if path.is_empty() {
        return Err(tmp_final.err().unwrap_or(ShutdownError::OtherRank));
    }
    let tmp = String::from_utf8_lossy(&path).into_owned();
    let opened = comm.open_log(&tmp, &sh.config.log_hints);
    if !all_ok(comm, opened.is_ok()) {
        // Said once, by rank 0, for every rank.
        return Err(said(match opened {
            Err(e) => ShutdownError::Collective(e),
            Ok(()) => {
                comm.close_log();
                ShutdownError::Create { path: tmp, source: std::io::Error::other("not opened on every rank") }
            }
        }));
    }
    // Each rank writes its own streams where the scan put them, with
    // independent writes: Open MPI 4.1's collective buffering corrupted a
    // rank's stream now and then when the hints asked for more than one
    // aggregator (cb_nodes=2: 1 log in 8 here), and the pieces do not
    // overlap, so nothing is gained by aggregating them on one node.
    // A failed write is agreed on with the size check below; a panic here
    // would leave the others in the sync or close: caught, as a step's.
    let mut wrote = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        failure_injected("write", rank);
        let mut wrote = true;
        for (r, data) in regions.in_order().enumerate() {
            if !data.is_empty() {
                wrote &= comm.write_at(starts[r] + mine[r], data).is_ok();
            }
        }
        if rank == 0 {
            wrote &= comm.write_at(0, &header.encode()).is_ok();
            // Modules Darshan does not know: named after the last region
            // (darshan_log::extension).
            if !trailer.is_empty() {
                wrote &= comm.write_at(regions_end, &trailer).is_ok();
            }
        }
        wrote
    }))
    .unwrap_or(false);
    // With crash-safe files (on any rank: the sync is collective), the
    // log must be durable before they go.
    if !all_ok(comm, !(sh.config.log_fsync && crate::logmap::has_file())) {
        wrote &= comm.sync_log().is_ok();
    }
    comm.close_log();
    // MPI-IO libraries do not always say a write failed: Open MPI's OMPIO
    // prints "No space left on device" and returns MPI_SUCCESS, and a
    // full disk then left an empty log under its final name and every
    // crash-safe file removed. Rank 0 checks the file has every byte.
    if rank == 0 {
        let expected = regions_end + trailer.len() as u64;
        wrote &= std::fs::metadata(&tmp).is_ok_and(|m| m.len() == expected);
    }
    let wrote = all_ok(comm, wrote);
    let write_s = t3.elapsed().as_secs_f64();
    let mut out =
        Outcome { path: String::new(), finalize_s, reduce_s, compress_s, write_s, records, shared: shared.len() };
    // Rank 0 makes the log durable and gives it its name; only then may
    // every rank remove its crash-safe file.
    let mut named = true;
    if let Ok((tmp, base)) = tmp_final {
        if !wrote {
            let _ = std::fs::remove_file(&tmp);
            return Err(ShutdownError::Write { path: tmp, source: std::io::Error::other("an MPI-IO write failed") });
        }
        out.path = if sh.config.log_file.is_some() {
            base
        } else {
            format!("{base}_{}.darshan", t_start.elapsed().as_secs() as i64 + 1)
        };
        named &= std::fs::rename(&tmp, &out.path).is_ok();
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&out.path, std::fs::Permissions::from_mode(0o400));
        if sh.config.log_fsync {
            crate::shutdown::sync_dir(&out.path);
        }
    } else if !wrote {
        return Err(ShutdownError::OtherRank);
    }
    if !all_ok(comm, named) {
        return Err(said(ShutdownError::Rename { to: out.path, source: std::io::Error::other("rename failed") }));
    }
    crate::logmap::remove();
    Ok(out)
}
