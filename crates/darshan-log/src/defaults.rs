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

/// The log directory a site gives at install (`scripts/install.sh BUILD
/// PREFIX --log-path DIR`, as C Darshan's `configure --with-log-path`):
/// the root of the dated tree (DIR/YYYY/M/D/) a process writes its log to
/// when neither DARSHAN_LOGPATH nor a config file's LOGPATH names one.
/// The runtime carries this marker followed by INSTALLED_LOG_PATH_CAPACITY
/// bytes, zero as built; install.sh writes the directory there,
/// NUL-terminated, in the installed libdarshan.so and libdarshan.a, and
/// darshan-config reads it back from the installed library.
pub const INSTALLED_LOG_PATH_MARKER: [u8; 32] = *b"darshan-rs:installed-log-path-->";
pub const INSTALLED_LOG_PATH_CAPACITY: usize = 4096;

/// The directory in the bytes that follow the marker: up to the first
/// NUL within the field; none when empty, unterminated or not UTF-8.
pub fn installed_log_path(after_marker: &[u8]) -> Option<&str> {
    let field = &after_marker[..after_marker.len().min(INSTALLED_LOG_PATH_CAPACITY)];
    let end = field.iter().position(|&b| b == 0)?;
    if end == 0 {
        return None;
    }
    std::str::from_utf8(&field[..end]).ok()
}
