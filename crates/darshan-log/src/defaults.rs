//! The runtime's documented defaults that tools print as well as the
//! runtime uses (`darshan-config --mod-mem`, `--jobid-env`, ...), and the
//! configuration lines both read: kept in the format crate, below both,
//! so that a tool reads them without depending on the runtime's core.

/// A finished log's mode: read-only for its owner (0400), and for its
/// owner's group too (0440) where the site asked for group-readable logs
/// (C's `--enable-group-readable-logs`; the runtime's
/// GROUP_READABLE_LOGS, darshan-merge's `--group-readable`).
pub const fn log_mode(group_readable: bool) -> u32 {
    if group_readable {
        0o440
    } else {
        0o400
    }
}

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

/// What a site gives at install (`scripts/install.sh BUILD PREFIX
/// --log-path DIR ...`, as C Darshan's configure options compile in its
/// defaults): configuration-file lines (`LOGPATH DIR`, `JOBID VAR`,
/// `MODMEM N`, ...), read by the runtime before DARSHAN_CONFIG_PATH's file
/// and the environment, which override them. The runtime carries this
/// marker followed by INSTALLED_CONFIG_CAPACITY bytes, zero as built;
/// install.sh writes the lines there, NUL-terminated, in the installed
/// libdarshan.so and libdarshan.a, and darshan-config reads them back
/// from the installed library.
/// The runtime's crates (this one among them) must hold the marker only
/// in that field: install.sh refuses a library or archive that holds it
/// twice, and a function here searching for it would put a second copy in
/// libdarshan.a (darshan-config, a tool, does the search).
pub const INSTALLED_CONFIG_MARKER: [u8; 32] = *b"darshan-rs:installed-config---->";
pub const INSTALLED_CONFIG_CAPACITY: usize = 4096;

/// One line of a configuration (a file, or the installed lines): its
/// keyword and arguments, `#` starting a comment; none for a line with
/// nothing else.
pub fn config_words(line: &str) -> Option<(&str, std::str::SplitWhitespace<'_>)> {
    let mut words = line.split('#').next().unwrap_or("").split_whitespace();
    Some((words.next()?, words))
}

/// The lines in the bytes that follow the marker: up to the first NUL
/// within the field; none when empty, unterminated or not UTF-8.
pub fn installed_config(after_marker: &[u8]) -> Option<&str> {
    let field = &after_marker[..after_marker.len().min(INSTALLED_CONFIG_CAPACITY)];
    let end = field.iter().position(|&b| b == 0)?;
    if end == 0 {
        return None;
    }
    std::str::from_utf8(&field[..end]).ok()
}

/// The variables a flat log directory is taken from, first set first, when
/// the configuration's LOGPATH_BYENV names none (C Darshan's
/// `--with-log-path-by-env`, as this runtime has always been built).
pub const LOG_PATH_ENVS: &str = "DARSHAN_LOGPATH";

#[cfg(test)]
mod tests {
    use super::*;

    /// What install.sh writes after the marker (the lines, a NUL) is what
    /// is read back; the field as built, zeros, reads as none.
    #[test]
    fn the_installed_lines_are_read_up_to_the_nul() {
        let mut field = vec![0u8; INSTALLED_CONFIG_CAPACITY + 16];
        assert_eq!(installed_config(&field), None, "as built: zeros");
        field[..14].copy_from_slice(b"LOGPATH /logs\n");
        assert_eq!(installed_config(&field), Some("LOGPATH /logs\n"));
        field[..INSTALLED_CONFIG_CAPACITY].fill(b'x');
        assert_eq!(installed_config(&field), None, "no NUL within the field");
        let words = |l| config_words(l).map(|(k, a)| (k, a.collect::<Vec<_>>()));
        assert_eq!(words("  JOBID  SLURM_JOB_ID # site"), Some(("JOBID", vec!["SLURM_JOB_ID"])));
        assert_eq!(words("# only a comment"), None);
    }
}
