//! Encoding records in the layout this library writes (WRITE_VERSIONS),
//! little-endian, byte-compatible with the C structs.

use crate::error::{LogError, Result};
use crate::modules::*;
use crate::record::{Extra, Record};

fn put(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn expect_len(rec: &Record, nc: usize, nf: usize) -> Result<()> {
    if rec.counters.len() != nc || rec.fcounters.len() != nf {
        return Err(LogError::Write(format!(
            "{} record {} has {} counters / {} fcounters, expected {nc} / {nf}",
            module_name(rec.module),
            rec.id,
            rec.counters.len(),
            rec.fcounters.len()
        )));
    }
    Ok(())
}

/// Append the on-disk bytes of `rec` to `b`.
pub fn encode_record(rec: &Record, b: &mut Vec<u8>) -> Result<()> {
    encode_record_dxt(rec, b, dxt_thread_ids(rec))
}

/// Whether a DXT record carries thread ids (DXT_POSIX v2 / DXT_MPIIO v3).
pub fn dxt_thread_ids(rec: &Record) -> bool {
    match &rec.extra {
        Extra::Dxt { writes, reads, .. } => {
            writes.iter().chain(reads.iter()).next().is_some_and(|s| s.pthread_id.is_some())
        }
        _ => false,
    }
}

/// A DXT record's on-disk bytes, as [`encode_record_dxt`] writes them; an
/// error for any other record. The runtime's DXT module writes its records
/// with this: the encoder of every module would link every module's
/// counter-name tables into the runtime library (817 pointers that the
/// loader relocates in every process, docs/performance.md).
pub fn encode_dxt(rec: &Record, b: &mut Vec<u8>, tids: bool) -> Result<()> {
    if !is_dxt_record(rec) {
        return Err(LogError::Write(format!("record {} of module {} is not a DXT record", rec.id, rec.module)));
    }
    put(b, rec.id);
    put(b, rec.rank as u64);
    put_dxt(rec, b, tids);
    Ok(())
}

fn is_dxt_record(rec: &Record) -> bool {
    matches!((&rec.extra, rec.module), (Extra::Dxt { .. }, DXT_POSIX | DXT_MPIIO | DXT_IO_URING))
}

/// As [`encode_record`], with DXT segments of 40 bytes (thread id, 0 when
/// unknown) if `tids`, else of 32.
pub fn encode_record_dxt(rec: &Record, b: &mut Vec<u8>, tids: bool) -> Result<()> {
    put(b, rec.id);
    put(b, rec.rank as u64);
    match (&rec.extra, rec.module) {
        (Extra::Lustre { components, ost_ids }, LUSTRE) => put_lustre(components, ost_ids, b),
        _ if is_dxt_record(rec) => put_dxt(rec, b, tids),
        (Extra::Heatmap { bin_width, write_bins, read_bins }, HEATMAP) => {
            put_heatmap(*bin_width, write_bins, read_bins, b)?
        }
        (Extra::Mdhim { server_histogram }, MDHIM) => {
            expect_len(rec, 5, 4)?;
            put_counters(rec, b);
            server_histogram.iter().for_each(|&v| put(b, v as u64));
        }
        (_, m) if is_known(m) && !counter_names(m).0.is_empty() => put_fixed(rec, b)?,
        (_, m) => return Err(LogError::Write(format!("cannot encode records of module {}", module_name(m)))),
    }
    Ok(())
}

/// The part of a DXT record after its id and rank.
fn put_dxt(rec: &Record, b: &mut Vec<u8>, tids: bool) {
    let Extra::Dxt { shared_record, hostname, writes, reads } = &rec.extra else { return };
    put(b, *shared_record as u64);
    b.extend_from_slice(hostname);
    put(b, writes.len() as u64);
    put(b, reads.len() as u64);
    for s in writes.iter().chain(reads.iter()) {
        put(b, s.offset as u64);
        put(b, s.length as u64);
        put(b, s.start_time.to_bits());
        put(b, s.end_time.to_bits());
        if tids {
            put(b, s.pthread_id.unwrap_or(0));
        }
    }
}

fn put_lustre(components: &[crate::record::LustreComponent], ost_ids: &[i64], b: &mut Vec<u8>) {
    put(b, components.len() as u64);
    put(b, ost_ids.len() as u64);
    for c in components {
        c.counters.iter().for_each(|&v| put(b, v as u64));
        b.extend_from_slice(&c.pool_name);
    }
    ost_ids.iter().for_each(|&o| put(b, o as u64));
}

fn put_heatmap(bin_width: f64, write_bins: &[i64], read_bins: &[i64], b: &mut Vec<u8>) -> Result<()> {
    if write_bins.len() != read_bins.len() {
        return Err(LogError::Write("heatmap read and write bin counts differ".into()));
    }
    put(b, bin_width.to_bits());
    put(b, write_bins.len() as u64);
    put(b, 0); // in-memory pointers of the C struct: zero on disk
    put(b, 0);
    write_bins.iter().chain(read_bins.iter()).for_each(|&v| put(b, v as u64));
    Ok(())
}

/// The counters, then the fcounters.
fn put_counters(rec: &Record, b: &mut Vec<u8>) {
    rec.counters.iter().for_each(|&v| put(b, v as u64));
    rec.fcounters.iter().for_each(|&v| put(b, v.to_bits()));
}

/// A record of a fixed layout: the file's record id (H5D, PNETCDF_VAR),
/// the counters, then the pool and container ids (DFS, DAOS).
fn put_fixed(rec: &Record, b: &mut Vec<u8>) -> Result<()> {
    let m = rec.module;
    let (cn, fnames) = counter_names(m);
    expect_len(rec, cn.len(), fnames.len())?;
    if m == H5D || m == PNETCDF_VAR {
        put(b, if let Extra::FileRecId(f) = rec.extra { f } else { 0 });
    }
    put_counters(rec, b);
    match &rec.extra {
        Extra::Dfs { pool_uuid, cont_uuid } if m == DFS => {
            b.extend_from_slice(pool_uuid);
            b.extend_from_slice(cont_uuid);
        }
        Extra::Daos { pool_uuid, cont_uuid, oid_hi, oid_lo } if m == DAOS => {
            b.extend_from_slice(pool_uuid);
            b.extend_from_slice(cont_uuid);
            put(b, *oid_hi);
            put(b, *oid_lo);
        }
        _ if m == DFS => b.extend_from_slice(&[0u8; 32]),
        _ if m == DAOS => b.extend_from_slice(&[0u8; 48]),
        _ => {}
    }
    Ok(())
}
