//! The runtime's documented defaults that tools print as well as the
//! runtime uses (`darshan-config --mod-mem`, `--jobid-env`, ...): kept in
//! the format crate, below both, so that a tool reads them without
//! depending on the runtime's core.

/// DARSHAN_MODMEM and DARSHAN_NAMEMEM when not set (bytes).
pub const DEF_MOD_MEM: usize = 4 << 20;
pub const DEF_NAME_MEM: usize = 1 << 20;
/// DARSHAN_MEMALIGN when not set.
pub const DEF_MEM_ALIGN: i64 = 8;
/// DARSHAN_LOGHINTS when not set.
pub const DEF_LOG_HINTS: &str = "cb_nodes=1";
/// Variables holding the job id, tried in order when DARSHAN_JOBID (or
/// the config's JOBID) names none: Slurm, PBS, Cobalt, LSF, Flux.
pub const JOBID_ENVS: [&str; 5] = ["SLURM_JOB_ID", "PBS_JOBID", "COBALT_JOBID", "LSB_JOBID", "FLUX_JOB_ID"];
