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
    if !matches!((&rec.extra, rec.module), (Extra::Dxt { .. }, DXT_POSIX | DXT_MPIIO | DXT_IO_URING)) {
        return Err(LogError::Write(format!("record {} of module {} is not a DXT record", rec.id, rec.module)));
    }
    put(b, rec.id);
    put(b, rec.rank as u64);
    put_dxt(rec, b, tids);
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

/// As [`encode_record`], with DXT segments of 40 bytes (thread id, 0 when
/// unknown) if `tids`, else of 32.
pub fn encode_record_dxt(rec: &Record, b: &mut Vec<u8>, tids: bool) -> Result<()> {
    put(b, rec.id);
    put(b, rec.rank as u64);
    match (&rec.extra, rec.module) {
        (Extra::Lustre { components, ost_ids }, LUSTRE) => {
            put(b, components.len() as u64);
            put(b, ost_ids.len() as u64);
            for c in components {
                for v in c.counters {
                    put(b, v as u64);
                }
                b.extend_from_slice(&c.pool_name);
            }
            for &o in ost_ids {
                put(b, o as u64);
            }
        }
        (Extra::Dxt { .. }, DXT_POSIX | DXT_MPIIO | DXT_IO_URING) => put_dxt(rec, b, tids),
        (Extra::Heatmap { bin_width, write_bins, read_bins }, HEATMAP) => {
            if write_bins.len() != read_bins.len() {
                return Err(LogError::Write("heatmap read and write bin counts differ".into()));
            }
            put(b, bin_width.to_bits());
            put(b, write_bins.len() as u64);
            put(b, 0); // in-memory pointers of the C struct: zero on disk
            put(b, 0);
            for &v in write_bins.iter().chain(read_bins.iter()) {
                put(b, v as u64);
            }
        }
        (Extra::Mdhim { server_histogram }, MDHIM) => {
            expect_len(rec, 5, 4)?;
            for &v in &rec.counters {
                put(b, v as u64);
            }
            for &v in &rec.fcounters {
                put(b, v.to_bits());
            }
            for &v in server_histogram {
                put(b, v as u64);
            }
        }
        (extra, m) if is_known(m) && !counter_names(m).0.is_empty() => {
            let (cn, fnames) = counter_names(m);
            expect_len(rec, cn.len(), fnames.len())?;
            if m == H5D || m == PNETCDF_VAR {
                let fid = match extra {
                    Extra::FileRecId(f) => *f,
                    _ => 0,
                };
                put(b, fid);
            }
            for &v in &rec.counters {
                put(b, v as u64);
            }
            for &v in &rec.fcounters {
                put(b, v.to_bits());
            }
            match extra {
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
        }
        (_, m) => {
            return Err(LogError::Write(format!("cannot encode records of module {}", module_name(m))));
        }
    }
    Ok(())
}
