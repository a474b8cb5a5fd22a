-- The facility study, as SQL that runs unchanged on the SQLite database of
-- darshan-ingest, on DuckDB and on Spark SQL over its Parquet dataset
-- (docs/facility.md shows both). Portable on purpose: CASE instead of
-- scalar MAX/GREATEST, CAST(... AS DOUBLE) before dividing, WITH instead
-- of correlated subqueries, every ORDER BY total.
--
-- Counters are added up as doubles (CAST(... AS DOUBLE)): a log's counters
-- are as hostile as its names, and one lying log must not make an integer
-- sum overflow (an error in SQLite and DuckDB) and take the whole study
-- down. Doubles are exact to 2^53 (8 PiB) and within 1e-16 beyond.
--
-- Blocks start with "-- view: NAME" (a temporary view the queries use) or
-- "-- query: NAME | TITLE".

-- view: job_size
CREATE TEMPORARY VIEW job_size AS
SELECT log_id, nprocs,
  CASE WHEN nprocs <= 1 THEN 1 WHEN nprocs <= 16 THEN 2 WHEN nprocs <= 128 THEN 3
       WHEN nprocs <= 1024 THEN 4 WHEN nprocs <= 8192 THEN 5 ELSE 6 END AS size_order,
  CASE WHEN nprocs <= 1 THEN '1' WHEN nprocs <= 16 THEN '2-16' WHEN nprocs <= 128 THEN '17-128'
       WHEN nprocs <= 1024 THEN '129-1024' WHEN nprocs <= 8192 THEN '1025-8192' ELSE '>8192' END AS size_class
FROM jobs

-- view: posix_files
-- small_writes: the writes under 1 MiB. The 100K_1M bucket holds those of
-- exactly 1 MiB too; the common access count of 1 MiB less the reads of
-- that bucket is at least how many of its writes were of 1 MiB
-- (darshan_log::roles::exactly_1mib, docs/report.md).
CREATE TEMPORARY VIEW posix_files AS
WITH r AS (
  SELECT *,
    CAST(CASE WHEN POSIX_ACCESS1_ACCESS = 1048576 THEN POSIX_ACCESS1_COUNT
              WHEN POSIX_ACCESS2_ACCESS = 1048576 THEN POSIX_ACCESS2_COUNT
              WHEN POSIX_ACCESS3_ACCESS = 1048576 THEN POSIX_ACCESS3_COUNT
              WHEN POSIX_ACCESS4_ACCESS = 1048576 THEN POSIX_ACCESS4_COUNT ELSE 0 END AS DOUBLE)
      - CAST(POSIX_SIZE_READ_100K_1M AS DOUBLE) AS mib_writes_at_least
  FROM posix_records)
SELECT log_id, record_id,
  MAX(CASE WHEN rank = -1 THEN 1 ELSE 0 END) AS all_ranks,
  COUNT(DISTINCT rank) AS ranks,
  SUM(CAST(POSIX_BYTES_READ AS DOUBLE)) AS bytes_read,
  SUM(CAST(POSIX_BYTES_WRITTEN AS DOUBLE)) AS bytes_written,
  MAX(CAST(POSIX_MAX_BYTE_READ AS DOUBLE)) AS max_byte_read,
  SUM(CAST(POSIX_SIZE_WRITE_0_100 AS DOUBLE) + CAST(POSIX_SIZE_WRITE_100_1K AS DOUBLE)
      + CAST(POSIX_SIZE_WRITE_1K_10K AS DOUBLE) + CAST(POSIX_SIZE_WRITE_10K_100K AS DOUBLE)
      + CAST(POSIX_SIZE_WRITE_100K_1M AS DOUBLE)
      - CASE WHEN mib_writes_at_least > CAST(POSIX_SIZE_WRITE_100K_1M AS DOUBLE) THEN CAST(POSIX_SIZE_WRITE_100K_1M AS DOUBLE)
             WHEN mib_writes_at_least > 0 THEN mib_writes_at_least ELSE 0 END) AS small_writes
FROM r
GROUP BY log_id, record_id

-- view: job_io
CREATE TEMPORARY VIEW job_io AS
WITH p AS (
  SELECT log_id, SUM(CAST(POSIX_BYTES_READ AS DOUBLE)) AS pr, SUM(CAST(POSIX_BYTES_WRITTEN AS DOUBLE)) AS pw,
    SUM(CAST(POSIX_F_READ_TIME AS DOUBLE)) AS rt, SUM(CAST(POSIX_F_WRITE_TIME AS DOUBLE)) AS wt, SUM(CAST(POSIX_F_META_TIME AS DOUBLE)) AS mt
  FROM posix_records GROUP BY log_id),
s AS (
  SELECT log_id, SUM(CAST(STDIO_BYTES_READ AS DOUBLE)) AS sr, SUM(CAST(STDIO_BYTES_WRITTEN AS DOUBLE)) AS sw,
    SUM(CAST(STDIO_F_READ_TIME AS DOUBLE)) AS rt, SUM(CAST(STDIO_F_WRITE_TIME AS DOUBLE)) AS wt, SUM(CAST(STDIO_F_META_TIME AS DOUBLE)) AS mt
  FROM stdio_records GROUP BY log_id),
-- io_uring's bytes are nowhere else (its requests are not POSIX calls);
-- its times are submit-to-completion latencies that overlap, not time
-- spent, and are left out of the times.
u AS (
  SELECT log_id, SUM(CAST(IO_URING_BYTES_READ AS DOUBLE)) AS ur, SUM(CAST(IO_URING_BYTES_WRITTEN AS DOUBLE)) AS uw
  FROM io_uring_records GROUP BY log_id)
SELECT j.log_id, j.username, j.app, j.nprocs, j.run_time, j.core_hours,
  COALESCE(p.pr, 0) + COALESCE(s.sr, 0) + COALESCE(u.ur, 0) AS bytes_read,
  COALESCE(p.pw, 0) + COALESCE(s.sw, 0) + COALESCE(u.uw, 0) AS bytes_written,
  COALESCE(p.rt, 0) + COALESCE(s.rt, 0) AS read_time,
  COALESCE(p.wt, 0) + COALESCE(s.wt, 0) AS write_time,
  COALESCE(p.mt, 0) + COALESCE(s.mt, 0) AS meta_time,
  COALESCE(p.mt, 0) AS posix_meta_time,
  COALESCE(p.rt, 0) + COALESCE(p.wt, 0) + COALESCE(p.mt, 0) AS posix_time
FROM jobs j LEFT JOIN p ON p.log_id = j.log_id LEFT JOIN s ON s.log_id = j.log_id
  LEFT JOIN u ON u.log_id = j.log_id

-- view: user_app_io
CREATE TEMPORARY VIEW user_app_io AS
SELECT username, app, COUNT(*) AS jobs, SUM(bytes_written) AS bytes_written, SUM(bytes_read) AS bytes_read,
  SUM(core_hours) AS core_hours
FROM job_io
GROUP BY username, app

-- query: jobs_by_size | Jobs and core-hours by job size (processes)
SELECT s.size_order, s.size_class, COUNT(*) AS jobs, SUM(j.core_hours) AS core_hours,
  COUNT(DISTINCT j.username) AS users, COUNT(DISTINCT j.app) AS apps
FROM jobs j JOIN job_size s ON s.log_id = j.log_id
GROUP BY s.size_order, s.size_class
ORDER BY s.size_order

-- query: interfaces_by_size | Jobs using each interface, by job size
WITH m AS (
  SELECT log_id,
    MAX(CASE WHEN module = 'POSIX' THEN 1 ELSE 0 END) AS posix,
    MAX(CASE WHEN module = 'MPI-IO' THEN 1 ELSE 0 END) AS mpiio,
    MAX(CASE WHEN module IN ('H5F', 'H5D') THEN 1 ELSE 0 END) AS hdf5,
    MAX(CASE WHEN module IN ('PNETCDF_FILE', 'PNETCDF_VAR') THEN 1 ELSE 0 END) AS pnetcdf,
    MAX(CASE WHEN module = 'STDIO' THEN 1 ELSE 0 END) AS stdio,
    MAX(CASE WHEN module = 'IO_URING' THEN 1 ELSE 0 END) AS io_uring
  FROM modules WHERE records > 0 GROUP BY log_id)
SELECT s.size_order, s.size_class, COUNT(*) AS jobs,
  SUM(COALESCE(m.posix, 0)) AS posix, SUM(COALESCE(m.mpiio, 0)) AS mpiio,
  SUM(COALESCE(m.hdf5, 0)) AS hdf5, SUM(COALESCE(m.pnetcdf, 0)) AS pnetcdf,
  SUM(COALESCE(m.stdio, 0)) AS stdio, SUM(COALESCE(m.io_uring, 0)) AS io_uring
FROM job_size s LEFT JOIN m ON m.log_id = s.log_id
GROUP BY s.size_order, s.size_class
ORDER BY s.size_order

-- query: sharing_by_size | POSIX files by sharing pattern and job size
WITH f AS (
  SELECT s.size_order, s.size_class, pf.bytes_read + pf.bytes_written AS bytes,
    CASE WHEN s.nprocs <= 1 THEN 'unique' WHEN pf.all_ranks = 1 THEN 'shared'
         WHEN pf.ranks > 1 THEN 'partially shared' ELSE 'unique' END AS pattern
  FROM posix_files pf JOIN job_size s ON s.log_id = pf.log_id)
SELECT size_order, size_class,
  SUM(CASE WHEN pattern = 'unique' THEN 1 ELSE 0 END) AS unique_files,
  SUM(CASE WHEN pattern = 'shared' THEN 1 ELSE 0 END) AS shared_files,
  SUM(CASE WHEN pattern = 'partially shared' THEN 1 ELSE 0 END) AS partially_shared_files,
  SUM(CASE WHEN pattern = 'unique' THEN bytes ELSE 0 END) AS unique_bytes,
  SUM(CASE WHEN pattern = 'shared' THEN bytes ELSE 0 END) AS shared_bytes,
  SUM(CASE WHEN pattern = 'partially shared' THEN bytes ELSE 0 END) AS partially_shared_bytes
FROM f
GROUP BY size_order, size_class
ORDER BY size_order

-- query: access_sizes | Accesses by size (POSIX, MPI-IO and io_uring, all jobs)
SELECT 'POSIX' AS interface,
  SUM(CAST(POSIX_SIZE_READ_0_100 AS DOUBLE)) AS read_0_100, SUM(CAST(POSIX_SIZE_READ_100_1K AS DOUBLE)) AS read_100_1k,
  SUM(CAST(POSIX_SIZE_READ_1K_10K AS DOUBLE)) AS read_1k_10k, SUM(CAST(POSIX_SIZE_READ_10K_100K AS DOUBLE)) AS read_10k_100k,
  SUM(CAST(POSIX_SIZE_READ_100K_1M AS DOUBLE)) AS read_100k_1m, SUM(CAST(POSIX_SIZE_READ_1M_4M AS DOUBLE)) AS read_1m_4m,
  SUM(CAST(POSIX_SIZE_READ_4M_10M AS DOUBLE)) AS read_4m_10m, SUM(CAST(POSIX_SIZE_READ_10M_100M AS DOUBLE)) AS read_10m_100m,
  SUM(CAST(POSIX_SIZE_READ_100M_1G AS DOUBLE)) AS read_100m_1g, SUM(CAST(POSIX_SIZE_READ_1G_PLUS AS DOUBLE)) AS read_1g_plus,
  SUM(CAST(POSIX_SIZE_WRITE_0_100 AS DOUBLE)) AS write_0_100, SUM(CAST(POSIX_SIZE_WRITE_100_1K AS DOUBLE)) AS write_100_1k,
  SUM(CAST(POSIX_SIZE_WRITE_1K_10K AS DOUBLE)) AS write_1k_10k, SUM(CAST(POSIX_SIZE_WRITE_10K_100K AS DOUBLE)) AS write_10k_100k,
  SUM(CAST(POSIX_SIZE_WRITE_100K_1M AS DOUBLE)) AS write_100k_1m, SUM(CAST(POSIX_SIZE_WRITE_1M_4M AS DOUBLE)) AS write_1m_4m,
  SUM(CAST(POSIX_SIZE_WRITE_4M_10M AS DOUBLE)) AS write_4m_10m, SUM(CAST(POSIX_SIZE_WRITE_10M_100M AS DOUBLE)) AS write_10m_100m,
  SUM(CAST(POSIX_SIZE_WRITE_100M_1G AS DOUBLE)) AS write_100m_1g, SUM(CAST(POSIX_SIZE_WRITE_1G_PLUS AS DOUBLE)) AS write_1g_plus
FROM posix_records
UNION ALL
SELECT 'MPI-IO' AS interface,
  SUM(CAST(MPIIO_SIZE_READ_AGG_0_100 AS DOUBLE)), SUM(CAST(MPIIO_SIZE_READ_AGG_100_1K AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_READ_AGG_1K_10K AS DOUBLE)), SUM(CAST(MPIIO_SIZE_READ_AGG_10K_100K AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_READ_AGG_100K_1M AS DOUBLE)), SUM(CAST(MPIIO_SIZE_READ_AGG_1M_4M AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_READ_AGG_4M_10M AS DOUBLE)), SUM(CAST(MPIIO_SIZE_READ_AGG_10M_100M AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_READ_AGG_100M_1G AS DOUBLE)), SUM(CAST(MPIIO_SIZE_READ_AGG_1G_PLUS AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_WRITE_AGG_0_100 AS DOUBLE)), SUM(CAST(MPIIO_SIZE_WRITE_AGG_100_1K AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_WRITE_AGG_1K_10K AS DOUBLE)), SUM(CAST(MPIIO_SIZE_WRITE_AGG_10K_100K AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_WRITE_AGG_100K_1M AS DOUBLE)), SUM(CAST(MPIIO_SIZE_WRITE_AGG_1M_4M AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_WRITE_AGG_4M_10M AS DOUBLE)), SUM(CAST(MPIIO_SIZE_WRITE_AGG_10M_100M AS DOUBLE)),
  SUM(CAST(MPIIO_SIZE_WRITE_AGG_100M_1G AS DOUBLE)), SUM(CAST(MPIIO_SIZE_WRITE_AGG_1G_PLUS AS DOUBLE))
FROM mpiio_records
HAVING COUNT(*) > 0
UNION ALL
-- Each row only where some job used the interface: an empty row would draw
-- an empty chart (a facility without MPI-IO had one).
SELECT 'IO_URING' AS interface,
  SUM(CAST(IO_URING_SIZE_READ_0_100 AS DOUBLE)), SUM(CAST(IO_URING_SIZE_READ_100_1K AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_READ_1K_10K AS DOUBLE)), SUM(CAST(IO_URING_SIZE_READ_10K_100K AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_READ_100K_1M AS DOUBLE)), SUM(CAST(IO_URING_SIZE_READ_1M_4M AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_READ_4M_10M AS DOUBLE)), SUM(CAST(IO_URING_SIZE_READ_10M_100M AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_READ_100M_1G AS DOUBLE)), SUM(CAST(IO_URING_SIZE_READ_1G_PLUS AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_WRITE_0_100 AS DOUBLE)), SUM(CAST(IO_URING_SIZE_WRITE_100_1K AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_WRITE_1K_10K AS DOUBLE)), SUM(CAST(IO_URING_SIZE_WRITE_10K_100K AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_WRITE_100K_1M AS DOUBLE)), SUM(CAST(IO_URING_SIZE_WRITE_1M_4M AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_WRITE_4M_10M AS DOUBLE)), SUM(CAST(IO_URING_SIZE_WRITE_10M_100M AS DOUBLE)),
  SUM(CAST(IO_URING_SIZE_WRITE_100M_1G AS DOUBLE)), SUM(CAST(IO_URING_SIZE_WRITE_1G_PLUS AS DOUBLE))
FROM io_uring_records
HAVING COUNT(*) > 0
ORDER BY interface DESC

-- query: read_write_mix | Bytes read and written (POSIX, STDIO and io_uring), by job size
SELECT s.size_order, s.size_class, COUNT(*) AS jobs,
  SUM(io.bytes_read) AS bytes_read, SUM(io.bytes_written) AS bytes_written,
  SUM(CASE WHEN io.bytes_read > 0 AND io.bytes_written = 0 THEN 1 ELSE 0 END) AS read_only_jobs,
  SUM(CASE WHEN io.bytes_read = 0 AND io.bytes_written > 0 THEN 1 ELSE 0 END) AS write_only_jobs,
  SUM(CASE WHEN io.bytes_read > 0 AND io.bytes_written > 0 THEN 1 ELSE 0 END) AS read_write_jobs,
  SUM(CASE WHEN io.bytes_read = 0 AND io.bytes_written = 0 THEN 1 ELSE 0 END) AS no_io_jobs
FROM job_io io JOIN job_size s ON s.log_id = io.log_id
GROUP BY s.size_order, s.size_class
ORDER BY s.size_order

-- query: io_time_by_size | Time in I/O and metadata (POSIX + STDIO, process-hours), by job size
SELECT s.size_order, s.size_class, SUM(io.core_hours) AS core_hours,
  SUM(io.read_time) / 3600.0 AS read_hours, SUM(io.write_time) / 3600.0 AS write_hours,
  SUM(io.meta_time) / 3600.0 AS meta_hours,
  CASE WHEN SUM(io.core_hours) > 0
       THEN 100.0 * (SUM(io.read_time) + SUM(io.write_time) + SUM(io.meta_time)) / 3600.0 / SUM(io.core_hours)
       ELSE 0.0 END AS io_percent_of_core_hours
FROM job_io io JOIN job_size s ON s.log_id = io.log_id
GROUP BY s.size_order, s.size_class
ORDER BY s.size_order

-- query: top_producers | Top producers: bytes written by user and application
SELECT username, app, jobs, bytes_written, bytes_read, core_hours
FROM user_app_io
WHERE bytes_written > 0
ORDER BY bytes_written DESC, username, app
LIMIT 10

-- query: top_consumers | Top consumers: bytes read by user and application
SELECT username, app, jobs, bytes_read, bytes_written, core_hours
FROM user_app_io
WHERE bytes_read > 0
ORDER BY bytes_read DESC, username, app
LIMIT 10

-- query: redundant_reads | Cray XE6 metric 1: jobs reading more than 1 TiB beyond their files' extents
WITH r AS (
  SELECT log_id, SUM(CASE WHEN bytes_read > max_byte_read + 1 THEN bytes_read - max_byte_read - 1 ELSE 0 END)
    AS redundant_bytes
  FROM posix_files GROUP BY log_id)
SELECT j.log_id, j.jobid, j.username, j.app, j.nprocs, r.redundant_bytes
FROM r JOIN jobs j ON j.log_id = r.log_id
WHERE r.redundant_bytes > 1099511627776
ORDER BY r.redundant_bytes DESC, j.log_id
LIMIT 100

-- query: metadata_heavy | Cray XE6 metric 2: metadata >= 25% of I/O time, >= 192 processes, > 30 s of metadata per process
SELECT io.log_id, j.jobid, io.username, io.app, io.nprocs,
  io.posix_meta_time / io.nprocs AS meta_seconds_per_process,
  io.posix_meta_time / io.posix_time AS metadata_ratio
FROM job_io io JOIN jobs j ON j.log_id = io.log_id
WHERE io.nprocs >= 192 AND io.posix_time > 0
  AND io.posix_meta_time >= 0.25 * io.posix_time
  AND io.posix_meta_time / io.nprocs > 30
ORDER BY meta_seconds_per_process DESC, io.log_id
LIMIT 100

-- query: small_shared_writes | Cray XE6 metric 3: >= 1 million independent small (< 1 MiB) writes to shared files
WITH coll AS (
  SELECT log_id, record_id, SUM(CAST(MPIIO_COLL_WRITES AS DOUBLE)) AS coll_writes
  FROM mpiio_records GROUP BY log_id, record_id),
w AS (
  SELECT pf.log_id, SUM(pf.small_writes) AS small_writes, COUNT(*) AS files
  FROM posix_files pf LEFT JOIN coll c ON c.log_id = pf.log_id AND c.record_id = pf.record_id
  WHERE (pf.all_ranks = 1 OR pf.ranks > 1) AND pf.small_writes > 0 AND COALESCE(c.coll_writes, 0) = 0
  GROUP BY pf.log_id)
SELECT j.log_id, j.jobid, j.username, j.app, j.nprocs, w.small_writes, w.files
FROM w JOIN jobs j ON j.log_id = w.log_id
WHERE w.small_writes >= 1000000
ORDER BY w.small_writes DESC, j.log_id
LIMIT 100

-- query: namespace_jobs | Jobs with the most namespace operations (POSIX_META: unlinks, renames, mkdirs, rmdirs, directory listings, links)
SELECT j.log_id, j.jobid, j.username, j.app, j.nprocs,
  SUM(CAST(m.POSIX_META_UNLINKS AS DOUBLE) + m.POSIX_META_RENAMES_FROM + m.POSIX_META_MKDIRS + m.POSIX_META_RMDIRS
      + m.POSIX_META_OPENDIRS + m.POSIX_META_LINKS + m.POSIX_META_SYMLINKS) AS namespace_ops,
  SUM(CAST(m.POSIX_META_F_TIME AS DOUBLE)) AS seconds
FROM posix_meta_records m JOIN jobs j ON j.log_id = m.log_id
GROUP BY j.log_id, j.jobid, j.username, j.app, j.nprocs
ORDER BY namespace_ops DESC, j.log_id
LIMIT 10

-- query: namespace_users | Users with the most namespace operations (POSIX_META)
SELECT j.username, COUNT(DISTINCT j.log_id) AS jobs,
  SUM(CAST(m.POSIX_META_UNLINKS AS DOUBLE) + m.POSIX_META_RENAMES_FROM + m.POSIX_META_MKDIRS + m.POSIX_META_RMDIRS
      + m.POSIX_META_OPENDIRS + m.POSIX_META_LINKS + m.POSIX_META_SYMLINKS) AS namespace_ops
FROM posix_meta_records m JOIN jobs j ON j.log_id = m.log_id
GROUP BY j.username
ORDER BY namespace_ops DESC, j.username
LIMIT 10

-- query: darshan_cost | Darshan's own cost: jobs by its share of their processes' run time (logs that state it)
SELECT
  CASE WHEN cost_share_pct < 0.01 THEN 1 WHEN cost_share_pct < 0.1 THEN 2 WHEN cost_share_pct < 1 THEN 3
       WHEN cost_share_pct < 10 THEN 4 ELSE 5 END AS share_order,
  CASE WHEN cost_share_pct < 0.01 THEN 'under 0.01%' WHEN cost_share_pct < 0.1 THEN '0.01-0.1%'
       WHEN cost_share_pct < 1 THEN '0.1-1%' WHEN cost_share_pct < 10 THEN '1-10%' ELSE '10% or more' END AS share_class,
  COUNT(*) AS jobs,
  SUM(CAST(nprocs AS DOUBLE)) AS processes,
  SUM(CAST(cost_startup_us AS DOUBLE) + CAST(cost_shutdown_us AS DOUBLE) + CAST(cost_est_us AS DOUBLE)) / 3.6e9
    AS cost_process_hours,
  SUM(CAST(cost_startup_us AS DOUBLE)) / SUM(CAST(nprocs AS DOUBLE)) / 1000.0 AS startup_ms_per_process,
  SUM(CAST(cost_shutdown_us AS DOUBLE)) / SUM(CAST(nprocs AS DOUBLE)) / 1000.0 AS shutdown_ms_per_process,
  SUM(CAST(cost_calls AS DOUBLE)) AS calls,
  MAX(cost_share_pct) AS max_share_percent
FROM jobs
WHERE cost_share_pct IS NOT NULL AND nprocs > 0
GROUP BY
  CASE WHEN cost_share_pct < 0.01 THEN 1 WHEN cost_share_pct < 0.1 THEN 2 WHEN cost_share_pct < 1 THEN 3
       WHEN cost_share_pct < 10 THEN 4 ELSE 5 END,
  CASE WHEN cost_share_pct < 0.01 THEN 'under 0.01%' WHEN cost_share_pct < 0.1 THEN '0.01-0.1%'
       WHEN cost_share_pct < 1 THEN '0.1-1%' WHEN cost_share_pct < 10 THEN '1-10%' ELSE '10% or more' END
ORDER BY share_order

-- AutoPerf's APMPI records (darshan-ingest's mpi_comm and mpi_ops; docs/
-- facility.md): the jobs' time in MPI calls other than I/O, beside their
-- I/O. A rank's share is its communication seconds against the job's run
-- time; a job's is its ranks' mean.
-- query: mpi_comm_share | MPI communication (AutoPerf's APMPI records): jobs by the share of their run time their ranks spent in MPI calls
WITH s AS (
  SELECT j.nprocs, j.core_hours, c.comm_seconds, c.most_seconds, 100.0 * c.mean_seconds / j.run_time AS pct
  FROM mpi_comm c JOIN jobs j ON j.log_id = c.log_id
  WHERE j.run_time > 0),
k AS (
  SELECT nprocs, core_hours, comm_seconds, most_seconds, pct,
    CASE WHEN pct < 1 THEN 1 WHEN pct < 10 THEN 2 WHEN pct < 25 THEN 3 WHEN pct < 50 THEN 4 ELSE 5 END AS share_order,
    CASE WHEN pct < 1 THEN 'under 1%' WHEN pct < 10 THEN '1-10%' WHEN pct < 25 THEN '10-25%'
         WHEN pct < 50 THEN '25-50%' ELSE '50% or more' END AS share_class
  FROM s)
SELECT share_order, share_class,
  COUNT(*) AS jobs,
  SUM(CAST(nprocs AS DOUBLE)) AS processes,
  SUM(core_hours) AS core_hours,
  SUM(comm_seconds) / 3600.0 AS comm_process_hours,
  MAX(most_seconds) AS slowest_rank_seconds
FROM k
GROUP BY share_order, share_class
ORDER BY share_order

-- query: mpi_operations | MPI operations by time over every job with APMPI records
WITH total AS (SELECT SUM(comm_seconds) AS seconds FROM mpi_comm)
SELECT o.operation,
  COUNT(*) AS jobs,
  SUM(CAST(o.calls AS DOUBLE)) AS calls,
  SUM(CAST(o.bytes AS DOUBLE)) AS bytes,
  SUM(o.seconds) / 3600.0 AS process_hours,
  CASE WHEN MAX(t.seconds) > 0 THEN 100.0 * SUM(o.seconds) / MAX(t.seconds) END AS percent_of_comm_time,
  MAX(o.max_call_seconds) AS longest_call_seconds
FROM mpi_ops o CROSS JOIN total t
GROUP BY o.operation
ORDER BY process_hours DESC, o.operation
LIMIT 15
