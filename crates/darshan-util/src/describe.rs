//! The per-module description blocks darshan-parser prints before a
//! module's records (and again before its totals). Text is darshan-util
//! 3.5.0's, including its version warnings.

use darshan_log::modules::*;

const POSIX_DESC: &str = "
# description of POSIX counters:
#   POSIX_*: posix operation counts.
#   READS,WRITES,OPENS,SEEKS,STATS,MMAPS,SYNCS,FILENOS,DUPS are types of operations.
#   POSIX_RENAME_SOURCES/TARGETS: total count file was source or target of a rename operation
#   POSIX_RENAMED_FROM: Darshan record ID of the first rename source, if file was a rename target
#   POSIX_MODE: mode that file was opened in.
#   POSIX_BYTES_*: total bytes read and written.
#   POSIX_MAX_BYTE_*: highest offset byte read and written.
#   POSIX_CONSEC_*: number of exactly adjacent reads and writes.
#   POSIX_SEQ_*: number of reads and writes from increasing offsets.
#   POSIX_RW_SWITCHES: number of times access alternated between read and write.
#   POSIX_*_ALIGNMENT: memory and file alignment.
#   POSIX_*_NOT_ALIGNED: number of reads and writes that were not aligned.
#   POSIX_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   POSIX_SIZE_*_*: histogram of read and write access sizes.
#   POSIX_STRIDE*_STRIDE: the four most common strides detected.
#   POSIX_STRIDE*_COUNT: count of the four most common strides.
#   POSIX_ACCESS*_ACCESS: the four most common access sizes.
#   POSIX_ACCESS*_COUNT: count of the four most common access sizes.
#   POSIX_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).
#   POSIX_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).
#   POSIX_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.
#   POSIX_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.
#   POSIX_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.
#   POSIX_F_MAX_*_TIME: duration of the slowest read and write operations.
#   POSIX_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).
#   POSIX_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).
";

const POSIX_V1: &str = "
# WARNING: POSIX module log format version 1 has the following limitations:
# - Darshan version 3.1.0 and earlier had only partial instrumentation of stdio stream I/O functions.
#   File records with stdio counters present will be omitted from output.
#   Use darshan-logutils < 3.1.0 to retrieve those records.
";
const POSIX_V2: &str = "
# WARNING: POSIX module log format version <=2 has the following limitations:
# - No support for the following timers:
# \t- POSIX_F_CLOSE_START_TIMESTAMP
# \t- POSIX_F_OPEN_END_TIMESTAMP
";
const POSIX_V3: &str = "
# WARNING: POSIX module log format version <=3 has the following limitations:
# - No support for the following counters to properly instrument dup, fileno, and rename operations:
# \t- POSIX_FILENOS
# \t- POSIX_DUPS
# \t- POSIX_RENAME_SOURCES
# \t- POSIX_RENAME_TARGETS
# \t- POSIX_RENAMED_FROM
";
const POSIX_V4: &str = "
# WARNING: POSIX_OPENS counter includes both POSIX_FILENOS and POSIX_DUPS counts

# WARNING: POSIX counters related to file offsets may be incorrect if a file is simultaneously accessed by both POSIX and STDIO (e.g., using fileno())
# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}, CONSEC_{READS|WRITES}, SEQ_{READS|WRITES}, {MEM|FILE}_NOT_ALIGNED, STRIDE*_STRIDE
";

const MPIIO_DESC: &str = "
# description of MPIIO counters:
#   MPIIO_INDEP_*: MPI independent operation counts.
#   MPIIO_COLL_*: MPI collective operation counts.
#   MPIIO_SPLIT_*: MPI split collective operation counts.
#   MPIIO_NB_*: MPI non blocking operation counts.
#   READS,WRITES,and OPENS are types of operations.
#   MPIIO_SYNCS: MPI file sync operation counts.
#   MPIIO_HINTS: number of times MPI hints were used.
#   MPIIO_VIEWS: number of times MPI file views were used.
#   MPIIO_MODE: MPI-IO access mode that file was opened with.
#   MPIIO_BYTES_*: total bytes read and written at MPI-IO layer.
#   MPIIO_RW_SWITCHES: number of times access alternated between read and write.
#   MPIIO_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   MPIIO_SIZE_*_AGG_*: histogram of MPI datatype total sizes for read and write operations.
#   MPIIO_ACCESS*_ACCESS: the four most common total access sizes.
#   MPIIO_ACCESS*_COUNT: count of the four most common total access sizes.
#   MPIIO_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).
#   MPIIO_*_RANK_BYTES: total bytes transferred at MPI-IO layer by the fastest and slowest ranks (for shared files).
#   MPIIO_F_*_START_TIMESTAMP: timestamp of first MPI-IO open/read/write/close.
#   MPIIO_F_*_END_TIMESTAMP: timestamp of last MPI-IO open/read/write/close.
#   MPIIO_F_READ/WRITE/META_TIME: cumulative time spent in MPI-IO read, write, or metadata operations.
#   MPIIO_F_MAX_*_TIME: duration of the slowest MPI-IO read and write operations.
#   MPIIO_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).
#   MPIIO_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).
";
const MPIIO_V1: &str = "
# WARNING: MPIIO module log format version 1 has the following limitations:
# - MPIIO_F_WRITE_START_TIMESTAMP may not be accurate.
";
const MPIIO_V2: &str = "
# WARNING: MPIIO module log format version <=2 does not support the following counters:
# - MPIIO_F_CLOSE_START_TIMESTAMP
# - MPIIO_F_OPEN_END_TIMESTAMP
";

const STDIO_DESC: &str = "
# description of STDIO counters:
#   STDIO_{OPENS|FDOPENS|WRITES|READS|SEEKS|FLUSHES} are types of operations.
#   STDIO_BYTES_*: total bytes read and written.
#   STDIO_MAX_BYTE_*: highest offset byte read and written.
#   STDIO_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).
#   STDIO_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).
#   STDIO_F_*_START_TIMESTAMP: timestamp of the first call to that type of function.
#   STDIO_F_*_END_TIMESTAMP: timestamp of the completion of the last call to that type of function.
#   STDIO_F_*_TIME: cumulative time spent in different types of functions.
#   STDIO_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).
#   STDIO_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).
";
const STDIO_V1: &str = "
# WARNING: STDIO module log format version 1 has the following limitations:
# - No support for properly instrumenting fdopen operations (STDIO_FDOPENS)
";
const STDIO_V2: &str = "
# WARNING: STDIO_OPENS counter includes STDIO_FDOPENS count

# WARNING: STDIO counters related to file offsets may be incorrect if a file is simultaneously accessed by both STDIO and POSIX (e.g., using fdopen())
# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}
";

const H5F_DESC: &str = "
# description of HDF5 counters:
#   H5F_OPENS: HDF5 file open/create operation counts.
#   H5F_FLUSHES: HDF5 file flush operation counts.
#   H5F_USE_MPIIO: flag indicating whether MPI-IO was used to access this file.
#   H5F_F_*_START_TIMESTAMP: timestamp of first HDF5 file open/close.
#   H5F_F_*_END_TIMESTAMP: timestamp of last HDF5 file open/close.
#   H5F_F_META_TIME: cumulative time spent in HDF5 metadata operations.
";

const H5D_DESC: &str = "
# description of HDF5 counters:
#   H5D_OPENS: HDF5 dataset open/create operation counts.
#   H5D_READS: HDF5 dataset read operation counts.
#   H5D_WRITES: HDF5 dataset write operation counts.
#   H5D_FLUSHES: HDF5 dataset flush operation counts.
#   H5D_BYTES_*: total bytes read and written at HDF5 dataset layer.
#   H5D_RW_SWITCHES: number of times access alternated between read and write.
#   H5D_*_SELECTS: number of different access selections (regular/irregular hyperslab or points).
#   H5D_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   H5D_SIZE_*_AGG_*: histogram of H5D total access sizes for read and write operations.
#   H5D_ACCESS*_*: the four most common total accesses, in terms of size and length/stride (in last 5 dimensions).
#   H5D_ACCESS*_COUNT: count of the four most common total access sizes.
#   H5D_DATASPACE_NDIMS: number of dimensions in dataset's dataspace.
#   H5D_DATASPACE_NPOINTS: number of points in dataset's dataspace.
#   H5D_DATATYPE_SIZE: size of each dataset element.
#   H5D_CHUNK_SIZE_D*: chunk size in last 5 dimensions of dataset.
#   H5D_USE_MPIIO_COLLECTIVE: flag indicating whether MPI-IO collectives were used to access this dataset.
#   H5D_USE_DEPRECATED: flag indicating whether deprecated H5D calls were used.
#   H5D_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared datasets).
#   H5D_*_RANK_BYTES: total bytes transferred at H5D layer by the fastest and slowest ranks (for shared datasets).
#   H5D_F_*_START_TIMESTAMP: timestamp of first HDF5 dataset open/read/write/close.
#   H5D_F_*_END_TIMESTAMP: timestamp of last HDF5 datset open/read/write/close.
#   H5D_F_READ/WRITE/META_TIME: cumulative time spent in H5D read, write, or metadata operations.
#   H5D_F_MAX_*_TIME: duration of the slowest H5D read and write operations.
#   H5D_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared datasets).
#   H5D_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared datasets).
#   H5D_FILE_REC_ID: Darshan file record ID of the file the dataset belongs to.
";

const PNETCDF_FILE_DESC: &str = "
# description of PnetCDF counters:
#   PNETCDF_FILE_CREATES: PnetCDF file create operation counts.
#   PNETCDF_FILE_OPENS: PnetCDF file open operation counts.
#   PNETCDF_FILE_REDEFS: PnetCDF file re-define operation counts.
#   PNETCDF_FILE_INDEP_WAITS: PnetCDF independent file wait operation counts.
#   PNETCDF_FILE_COLL_WAITS: PnetCDF collective file wait operation counts.
#   PNETCDF_FILE_SYNCS: PnetCDF file sync operation counts.
#   PNETCDF_FILE_BYTES_READ: PnetCDF total bytes read for all file variables.
#   PNETCDF_FILE_BYTES_WRITTEN: PnetCDF total bytes written for all file variables.
#   PNETCDF_FILE_WAIT_FAILURES: PnetCDF file wait operation failure counts.
#   PNETCDF_FILE_F_*_START_TIMESTAMP: timestamp of first PnetCDF file open/close/wait operation.
#   PNETCDF_FILE_F_*_END_TIMESTAMP: timestamp of last PnetCDF file open/close/wait operation.
#   PNETCDF_FILE_F_META_TIME: Cumulative time spent in file metadata operations.
#   PNETCDF_FILE_F_WAIT_TIME: Cumulative time spent in file wait operations.
";
const PNETCDF_FILE_V2: &str = "
# WARNING: PnetCDF file module log format version <=2 does not support the following counters:
# - PNETCDF_FILE_CREATES
# - PNETCDF_FILE_REDEFS
# - PNETCDF_FILE_INDEP_WAITS
# - PNETCDF_FILE_COLL_WAITS
# - PNETCDF_FILE_SYNCS
# - PNETCDF_FILE_BYTES_READ
# - PNETCDF_FILE_BYTES_WRITTEN
# - PNETCDF_FILE_WAIT_FAILURES
# - PNETCDF_FILE_F_WAIT_START_TIMESTAMP
# - PNETCDF_FILE_F_WAIT_END_TIMESTAMP
# - PNETCDF_FILE_F_META_TIME
# - PNETCDF_FILE_F_WAIT_TIME
";

const BGQ_DESC: &str = "
# description of BGQ counters:
#   BGQ_CSJOBID: BGQ control system job ID.
#   BGQ_NNODES: number of BGQ compute nodes for this job.
#   BGQ_RANKSPERNODE: number of MPI ranks per compute node.
#   BGQ_DDRPERNODE: size in MB of DDR3 per compute node.
#   BGQ_INODES: number of BGQ I/O nodes for this job.
#   BGQ_*NODES: dimension of A, B, C, D, & E dimensions of torus.
#   BGQ_TORUSENABLED: which dimensions of the torus are enabled.
#   BGQ_F_TIMESTAMP: timestamp when the BGQ data was collected.
";

const LUSTRE_DESC: &str = "
# description of LUSTRE counters:
#   LUSTRE_NUM_COMPONENTS: number of instrumented components in the Lustre layout.
#   LUSTRE_NUM_STRIPES: number of active stripes in the Lustre layout components.
#   LUSTRE_COMP*_STRIPE_SIZE: stripe size for this file layout component in bytes.
#   LUSTRE_COMP*_STRIPE_COUNT: number of OSTs over which the file layout component is striped.
#   LUSTRE_COMP*_STRIPE_PATTERN: pattern (e.g., raid0, mdt, overstriped) for this file layout component.
#   LUSTRE_COMP*_FLAGS: captured flags (e.g. init, prefwr, stale) for this file layout component.
#   LUSTRE_COMP*_EXT_START: starting file extent for this file layout component.
#   LUSTRE_COMP*_EXT_END: ending file extent for this file layout component (-1 means EOF).
#   LUSTRE_COMP*_MIRROR_ID: mirror ID for this file layout component, if mirrors are enabled.
#   LUSTRE_COMP*_POOL_NAME: Lustre OST pool used for this file layout component.
#   LUSTRE_COMP*_OST_ID_*: indices of OSTs over which this file layout component is striped.
";

const PNETCDF_VAR_DESC: &str = "
# description of PnetCDF counters:
#   PNETCDF_VAR_OPENS: PnetCDF variable define/inquire operation counts.
#   PNETCDF_VAR_INDEP_READS: PnetCDF variable independent read operation counts.
#   PNETCDF_VAR_INDEP_WRITES: PnetCDF variable independent write operation counts.
#   PNETCDF_VAR_COLL_READS: PnetCDF variable collective read operation counts.
#   PNETCDF_VAR_COLL_WRITES: PnetCDF variable collective write operation counts.
#   PNETCDF_VAR_NB_READS: PnetCDF variable nonblocking read operation counts.
#   PNETCDF_VAR_NB_WRITES: PnetCDF variable nonblocking write operation counts.
#   PNETCDF_VAR_BYTES_*: total bytes read and written at PnetCDF variable layer.
#   PNETCDF_VAR_RW_SWITCHES: number of times access alternated between read and write.
#   PNETCDF_VAR_PUT_VAR*: number of calls to ncmpi_put_var* APIs (var, var1, vara, vars, varm, varn, vard).
#   PNETCDF_VAR_GET_VAR*: number of calls to ncmpi_get_var* APIs (var, var1, vara, vars, varm, varn, vard).
#   PNETCDF_VAR_IPUT_VAR*: number of calls to ncmpi_iput_var* APIs (var, var1, vara, vars, varm, varn).
#   PNETCDF_VAR_IGET_VAR*: number of calls to ncmpi_iget_var* APIs (var, var1, vara, vars, varm, varn).
#   PNETCDF_VAR_BPUT_VAR*: number of calls to ncmpi_bput_var* APIs (var, var1, vara, vars, varm, varn).
#   PNETCDF_VAR_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   PNETCDF_VAR_SIZE_*_AGG_*: histogram of PnetCDf total access sizes for read and write operations.
#   PNETCDF_VAR_ACCESS*_*: the four most common total accesses, in terms of size and length/stride (in last 5 dimensions).
#   PNETCDF_VAR_ACCESS*_COUNT: count of the four most common total access sizes.
#   PNETCDF_VAR_NDIMS: number of dimensions in the variable.
#   PNETCDF_VAR_NPOINTS: number of points in the variable.
#   PNETCDF_VAR_DATATYPE_SIZE: size of each variable element.
#   PNETCDF_VAR_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared datasets).
#   PNETCDF_VAR_*_RANK_BYTES: total bytes transferred at PnetCDF layer by the fastest and slowest ranks (for shared datasets).
#   PNETCDF_VAR_F_*_START_TIMESTAMP: timestamp of first PnetCDF variable open/read/write/close.
#   PNETCDF_VAR_F_*_END_TIMESTAMP: timestamp of last PnetCDF variable open/read/write/close.
#   PNETCDF_VAR_F_READ/WRITE/META_TIME: cumulative time spent in PnetCDF read, write, or metadata operations.
#   PNETCDF_VAR_F_MAX_*_TIME: duration of the slowest PnetCDF read and write operations.
#   PNETCDF_VAR_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared datasets).
#   PNETCDF_VAR_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared datasets).
#   PNETCDF_VAR_FILE_REC_ID: Darshan file record ID of the file the variable belongs to.
";

const MDHIM_DESC: &str = "
# description of MDHIM counters:
#   MDHIM_PUTS: number of 'mdhim_put' function calls.
#   MDHIM_GETS: number of 'mdhim_get' function calls.
#   MDHIM_SERVERS: how many mdhim servers 
#   MDHIM_F_PUT_TIMESTAMP: timestamp of the first call to function 'mdhim_put'.
#   MDHIM_F_GET_TIMESTAMP: timestamp of the first call to function 'mdhim_get'.
#   MDHIM_SERVER_N: how many operations sent to this server
";

const HEATMAP_DESC: &str = "
# description of heatmap counters:
#   HEATMAP_F_BIN_WIDTH_SECONDS: time duration of each heatmap bin
#   HEATMAP_{READ|WRITE}_BIN_{*}: number of bytes read or written within specified heatmap bin
";

const DFS_DESC: &str = "
# description of DFS counters:
#   DFS_*: DFS operation counts.
#   OPENS,GLOBAL_OPENS,LOOKUPS,DUPS,READS,READXS,WRITES,WRITEXS,GET_SIZES,PUNCHES,REMOVES,STATS are types of operations.
#   DFS_BYTES_*: total bytes read and written.
#   DFS_RW_SWITCHES: number of times access alternated between read and write.
#   DFS_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   DFS_SIZE_*_*: histogram of read and write access sizes.
#   DFS_ACCESS*_ACCESS: the four most common access sizes.
#   DFS_ACCESS*_COUNT: count of the four most common access sizes.
#   DFS_CHUNK_SIZE: DFS file chunk size.
#   DFS_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).
#   DFS_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).
#   DFS_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.
#   DFS_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.
#   DFS_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.
#   DFS_F_MAX_*_TIME: duration of the slowest read and write operations.
#   DFS_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).
";

const DAOS_DESC: &str = "
# description of DAOS counters:
#   DAOS_*: DAOS operation counts.
#   OBJ_OPENS,OBJ_FETCHES,OBJ_UPDATES,OBJ_PUNCHES,OBJ_DKEY_PUNCHES,OBJ_AKEY_PUNCHES,OBJ_DKEY_LISTS,OBJ_AKEY_LISTS,OBJ_RECX_LISTS are types of DAOS object operations.
#   ARRAY_OPENS,ARRAY_READS,ARRAY_WRITES,ARRAY_GET_SIZES,ARRAY_SET_SIZES,ARRAY_STATS,ARRAY_PUNCHES,ARRAY_DESTROYS are types of DAOS array operations
#   KV_OPENS,KV_GETS,KV_PUTS,KV_REMOVES,KV_LISTS,KV_DESTROYS are types of DAOS kv operations
#   DAOS_BYTES_*: total bytes read and written using all DAOS object APIs.
#   DAOS_RW_SWITCHES: number of times access alternated between read and write.
#   DAOS_MAX_*_TIME_SIZE: size of the slowest read and write operations.
#   DAOS_SIZE_*_*: histogram of read and write access sizes.
#   DAOS_ACCESS*_ACCESS: the four most common access sizes.
#   DAOS_ACCESS*_COUNT: count of the four most common access sizes.
#   DAOS_OBJ_OTYPE: DAOS otype value for the object.
#   DAOS_ARRAY_CELL_SIZE: the cell size for DAOS array objects
#   DAOS_ARRAY_CHUNK_SIZE: the chunk size for DAOS array objects
#   DAOS_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared objects).
#   DAOS_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared objects).
#   DAOS_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.
#   DAOS_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.
#   DAOS_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.
#   DAOS_F_MAX_*_TIME: duration of the slowest read and write operations.
#   DAOS_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared objects).
";

/// Our module (not in C's darshan-util, which skips it with a warning).
const PROCESSES_DESC: &str = "
# description of PROCESSES counters (darshan-rs; not in C Darshan; written by darshan-merge --job):
#   one record per process of the job: <rank> its rank in the job, <record id> its index in the job.
#   PROCESSES_PID, _PARENT_PID: its process id and the process it was forked or started from (-1: unknown).
#   PROCESSES_ROLE: 0 a rank, 1 a worker forked by its parent, 2 a worker its parent started, 3 a launcher.
#   PROCESSES_RANKED_BY_START: 1 when its log said nothing of its rank (C Darshan's): ranks in start order.
#   PROCESSES_READS, _WRITES, _BYTES_READ, _BYTES_WRITTEN: POSIX and STDIO operations and bytes on the
#     application's files; PROCESSES_SOFTWARE_FILES, _SOFTWARE_BYTES_READ: files and bytes of software loading.
#   PROCESSES_TIMELINE_SOURCE: 0 no timeline, 1 from its heat map (all POSIX reads), 2 from DXT (data reads).
#   PROCESSES_READ_BIN_<k>: bytes read in the k-th of 32 equal parts of the job's run time.
#   PROCESSES_F_START, _F_END: its start and end; _F_FIRST_READ, _F_LAST_READ_END: its first data read and the
#     end of its last (-1: none); seconds since the job's start.
#   PROCESSES_F_READ_TIME, _F_WRITE_TIME, _F_META_TIME: seconds in those operations on the application's files.
#   PROCESSES_F_BIN_WIDTH: seconds per timeline bin.
";

const POSIX_META_DESC: &str = "
# description of POSIX_META counters (darshan-rs; not in C Darshan):
#   POSIX_META_UNLINKS, _RMDIRS, _MKDIRS: files and directories removed and made under this path.
#   POSIX_META_RENAMES_FROM/TO: renames of which this path was the source / the target.
#   POSIX_META_OPENDIRS, _READDIRS: directory streams opened, readdir calls; _DIR_ENTRIES: entries they returned.
#   POSIX_META_TRUNCATES, _FALLOCATES, _CHMODS, _CHOWNS, _ACCESSES, _LINKS, _SYMLINKS, _READLINKS, _UTIMES,
#   POSIX_META_XATTR_GETS/SETS: calls of each kind on this path (by name, at-form or descriptor).
#   POSIX_META_MMAPS, _MMAP_BYTES: file-backed mappings and their length; _MMAP_SHARED_WRITE_BYTES: length of
#     shared writable mappings (what can reach the file); _MSYNCS, _MUNMAPS: calls on those mappings.
#   POSIX_META_F_START/END_TIMESTAMP: start of the first and end of the last of these calls.
#   POSIX_META_F_TIME: cumulative time in them; POSIX_META_F_MAX_TIME: the slowest one.
";

/// Description block for `module` at format version `ver`, or None for
/// modules whose darshan-util prints no description.
pub fn description(module: usize, ver: u32) -> Option<String> {
    versioned(module, ver).or_else(|| fixed(module).map(str::to_string))
}

/// The modules whose description grows with their format's versions.
fn versioned(module: usize, ver: u32) -> Option<String> {
    let parts: &[(&str, bool)] = match module {
        POSIX => &[
            (POSIX_DESC, true),
            (POSIX_V1, ver == 1),
            (POSIX_V2, ver <= 2),
            (POSIX_V3, ver <= 3),
            (POSIX_V4, ver >= 4),
        ],
        MPIIO => &[(MPIIO_DESC, true), (MPIIO_V1, ver == 1), (MPIIO_V2, ver <= 2)],
        STDIO => &[(STDIO_DESC, true), (STDIO_V1, ver == 1), (STDIO_V2, ver >= 2)],
        PNETCDF_FILE => &[(PNETCDF_FILE_DESC, true), (PNETCDF_FILE_V2, ver <= 2)],
        _ => return None,
    };
    Some(parts.iter().filter(|p| p.1).map(|p| p.0).collect())
}

/// The modules with one description whatever their version.
fn fixed(module: usize) -> Option<&'static str> {
    Some(match module {
        H5F => H5F_DESC,
        H5D => H5D_DESC,
        PNETCDF_VAR => PNETCDF_VAR_DESC,
        MDHIM => MDHIM_DESC,
        BGQ => BGQ_DESC,
        LUSTRE => LUSTRE_DESC,
        HEATMAP => HEATMAP_DESC,
        DFS => DFS_DESC,
        DAOS => DAOS_DESC,
        POSIX_META => POSIX_META_DESC,
        PROCESSES => PROCESSES_DESC,
        // Asked for only where install said AutoPerf's records are read.
        APMPI => crate::apmpi::DESCRIPTION,
        APXC => crate::apxc::DESCRIPTION,
        _ => return None,
    })
}
