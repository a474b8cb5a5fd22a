//! An MPI job's log gathered onto rank 0 and written there with plain
//! writes, when it is small (`DARSHAN_LOG_GATHER_MAX`, 16 MiB by default):
//! opening and closing a file collectively with MPI-IO took 4-5 ms of the
//! shutdown at 4 ranks and 17 ms at 16 here, for logs of a few KB that
//! one `MPI_Gatherv` brings to rank 0 in a fraction of that. Larger logs
//! are written with MPI-IO, each rank its own pieces, as Darshan does.
//! The log's bytes are the same either way: each region is every rank's
//! stream for it, rank after rank, where the scan placed them.

use std::os::unix::fs::{FileExt, OpenOptionsExt};

use darshan_log::header::Header;

use crate::counting::collective::{all_ok, Comm};
use crate::finish::pipeline::{Regions, ShutdownError};
use crate::finish::step::step;
use crate::runtime::Shared;

/// Where the scan placed the log's parts: the header, each region's start,
/// the trailer (at the end) and the whole size.
pub(crate) struct Layout<'a> {
    pub header: &'a Header,
    pub starts: &'a [u64],
    pub trailer: &'a [u8],
    pub end: u64,
}

/// Gather every rank's pieces onto rank 0, which writes the log under
/// `tmp` (made durable when crash-safe files are to go) and checks its
/// size; the job agrees on the outcome.
pub(crate) fn write(
    comm: &dyn Comm,
    sh: &Shared,
    regions: &Regions,
    placed: &Layout,
    tmp: &str,
) -> Result<(), ShutdownError> {
    let pieces: Vec<&[u8]> = regions.in_order().collect();
    let lens: Vec<u64> = pieces.iter().map(|p| p.len() as u64).collect();
    let every_len = comm.gather_u64s(&lens);
    // Every rank learns whether rank 0 has the lengths before the bytes
    // are gathered: no rank may leave a collective the others enter.
    let per_rank: Vec<u64> = every_len.chunks(lens.len().max(1)).map(|c| c.iter().sum()).collect();
    let known = comm.rank() != 0 || (per_rank.len() == comm.size() as usize && !lens.is_empty());
    if !all_ok(comm, known) {
        return Err(failed(comm, tmp, "MPI_Gather of the pieces' lengths failed"));
    }
    let bytes = comm.gather_bytes(&pieces.concat(), &per_rank);
    // With crash-safe files on any rank, the log must be durable before
    // they go.
    let fsync = !all_ok(comm, !(sh.config.log_fsync && crate::store::logmap::has_file()));
    let wrote = step(comm, "write", || match (comm.rank(), bytes) {
        (0, Some(b)) => write_file(tmp, placed, &every_len, lens.len(), &b, fsync),
        (0, None) => Err(write_error(tmp, std::io::Error::other("MPI_Gatherv of the log's pieces failed"))),
        _ => Ok(()),
    });
    if wrote.is_err() && comm.rank() == 0 {
        // Failed elsewhere: no log, whole or partial, is left.
        let _ = std::fs::remove_file(tmp);
    }
    wrote
}

/// Rank 0 writes the header, each region's pieces rank after rank where
/// the scan placed the region, and the trailer, into a new file.
fn write_file(
    tmp: &str,
    placed: &Layout,
    every_len: &[u64],
    regions: usize,
    bytes: &[u8],
    fsync: bool,
) -> Result<(), ShutdownError> {
    let f = crate::store::nofile::with_descriptor(|| {
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_CLOEXEC).open(tmp)
    })
    .map_err(|source| ShutdownError::Create { path: tmp.into(), source })?;
    let mut at = placed.starts.to_vec();
    let mut from = 0usize;
    let wrote = (|| {
        f.write_all_at(&placed.header.encode(), 0)?;
        for (k, &len) in every_len.iter().enumerate() {
            let (r, len) = (k % regions, len as usize);
            let piece = bytes.get(from..from + len).ok_or_else(|| std::io::Error::other("short gather"))?;
            f.write_all_at(piece, at[r])?;
            (at[r], from) = (at[r] + len as u64, from + len);
        }
        if !placed.trailer.is_empty() {
            f.write_all_at(placed.trailer, placed.end - placed.trailer.len() as u64)?;
        }
        if fsync {
            f.sync_all()?;
        }
        match f.metadata()?.len() == placed.end {
            true => Ok(()),
            false => Err(std::io::Error::other("the log is not as long as its regions")),
        }
    })();
    wrote.map_err(|e| {
        let _ = std::fs::remove_file(tmp);
        write_error(tmp, e)
    })
}

fn write_error(path: &str, source: std::io::Error) -> ShutdownError {
    ShutdownError::Write { path: path.into(), source }
}

/// Rank 0 carries the job's error; the others `OtherRank`.
fn failed(comm: &dyn Comm, tmp: &str, why: &str) -> ShutdownError {
    match comm.rank() {
        0 => write_error(tmp, std::io::Error::other(why.to_string())),
        _ => ShutdownError::OtherRank,
    }
}
