//! What DARSHAN_DUMP_CONFIG prints on stderr (rank 0, at start-up): C
//! Darshan 3.5.0's block (darshan_dump_config), line for line, so that a
//! check of a configuration reads the same under either library. Our own
//! settings (DARSHAN_LOGFILE, DARSHAN_MMAP_LOGS=0) get lines of the same
//! form only when set; our modules follow Darshan's.

use super::{default_records, Config, ExcludeDirs};
use darshan_log::defaults::JOBID_ENVS;
use darshan_log::modules;
use std::fmt::Write;

const BANNER: &str = "##########################\n";

/// Darshan's modules this library does not have (C builds them only where
/// their systems are): switched on or not, they record nothing.
const NOT_HERE: [usize; 5] = [modules::MDHIM, modules::APXC, modules::APMPI, modules::DFS, modules::DAOS];

impl Config {
    /// The block, banners included.
    pub fn dump(&self) -> String {
        let mut s = format!("{BANNER}##### DARSHAN CONFIG #####\n{BANNER}");
        self.dump_settings(&mut s);
        for m in modules::known_ids().filter(|&m| m != modules::NULL) {
            self.dump_module(&mut s, m);
        }
        s + BANNER + "### END DARSHAN CONFIG ###\n" + BANNER
    }

    fn dump_settings(&self, s: &mut String) {
        let or_none = |v: Option<&str>| v.filter(|v| !v.is_empty()).unwrap_or("NONE").to_string();
        let _ = writeln!(s, "# MODMEM = {} MiB", self.mod_mem >> 20);
        let _ = writeln!(s, "# NAMEMEM = {} KiB", self.name_mem >> 10);
        let _ = writeln!(s, "# MEM_ALIGNMENT = {} bytes", self.mem_align);
        // Unset, we try the usual batch systems' variables in turn.
        let _ = writeln!(s, "# JOBID = {}", self.jobid_env.clone().unwrap_or_else(|| JOBID_ENVS.join(",")));
        let _ = writeln!(s, "# LOGHINTS = {}", or_none(Some(&self.log_hints)));
        let _ =
            writeln!(s, "# LOGPATH = {}", or_none(self.log_path_flat.as_deref().or(self.log_path_dated.as_deref())));
        let _ = writeln!(s, "# LOGPATH_BYENV = {}", or_none(self.log_path_flat.as_deref()));
        if let Some(f) = &self.log_file {
            let _ = writeln!(s, "# LOGFILE = {f}");
        }
        let _ = writeln!(s, "# MMAP_LOGPATH = {}", self.mmap_log_path);
        if !self.mmap_logs {
            s.push_str("# MMAP_LOGS = 0\n");
        }
        let _ = writeln!(s, "# EXCLUDE_DIRS = {}", self.exclude_dirs_text());
        let patterns =
            |l: &[(String, _)]| or_none(Some(&l.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>().join(",")));
        let _ = writeln!(s, "# APP_EXCLUDE = {}", patterns(&self.app_exclude));
        let _ = writeln!(s, "# APP_INCLUDE = {}", patterns(&self.app_include));
        let _ = writeln!(s, "# RANK_EXCLUDE = {}", or_none(Some(&ranks_text(&self.rank_exclude))));
        let _ = writeln!(s, "# RANK_INCLUDE = {}", or_none(Some(&ranks_text(&self.rank_include))));
        if let Some(t) = self.dxt_small_io_trigger {
            let _ = writeln!(s, "# DXT_SMALL_IO_TRIGGER = {t:.2}");
        }
        if let Some(t) = self.dxt_unaligned_io_trigger {
            let _ = writeln!(s, "# DXT_UNALIGNED_IO_TRIGGER = {t:.2}");
        }
    }

    /// The path prefixes left out: Darshan's, the user's, or none.
    fn exclude_dirs_text(&self) -> String {
        match &self.exclude_dirs {
            ExcludeDirs::Default => crate::counting::paths::EXCLUDED_PREFIXES
                .iter()
                .map(|p| String::from_utf8_lossy(p))
                .collect::<Vec<_>>()
                .join(","),
            ExcludeDirs::Nothing => String::new(),
            ExcludeDirs::Listed(dirs) => dirs.iter().map(|d| String::from_utf8_lossy(d)).collect::<Vec<_>>().join(","),
        }
    }

    fn dump_module(&self, s: &mut String, m: usize) {
        let _ = writeln!(s, "# {} MODULE CONFIG:", modules::module_name(m));
        if !self.mod_enabled[m] || NOT_HERE.contains(&m) {
            s.push_str("#      - DISABLED\n");
            return;
        }
        s.push_str("#      - ENABLED\n");
        if self.max_records[m] != default_records()[m] {
            let _ = writeln!(s, "#      - MAX_RECORDS = {}", self.max_records[m]);
        }
        for (what, rules) in [("NAME_EXCLUDE", &self.name_exclude), ("NAME_INCLUDE", &self.name_include)] {
            let mine: Vec<&str> =
                rules.iter().filter(|r| r.modules & (1 << m) != 0).map(|r| r.pattern.as_str()).collect();
            if !mine.is_empty() {
                let _ = writeln!(s, "#      - {what} = {}", mine.join(","));
            }
        }
    }
}

/// Rank ranges as they are written: `3`, `1:2`, `4:` (to the last rank).
fn ranks_text(ranges: &[(i64, i64)]) -> String {
    let one = |&(lo, hi): &(i64, i64)| match (lo, hi) {
        (lo, hi) if lo == hi => lo.to_string(),
        (lo, i64::MAX) => format!("{lo}:"),
        (lo, hi) => format!("{lo}:{hi}"),
    };
    ranges.iter().map(one).collect::<Vec<_>>().join(",")
}
