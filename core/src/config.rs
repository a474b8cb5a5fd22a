//! Run-time configuration with Darshan's environment variables and
//! config-file keywords (docs/runtime.md): the config file is read first,
//! the environment second and wins. A bad value is reported in one line on
//! stderr and the default is kept; it never stops the program.

use darshan_log::modules::{self, MAX_MODS};
use regex_automata::dfa::regex::Regex;

mod dump;
mod installed;

pub use darshan_log::defaults::{DEF_LOG_HINTS, DEF_MEM_ALIGN, DEF_MOD_MEM, DEF_NAME_MEM};
pub const DEF_MOD_REC_COUNT: usize = 1024;
/// DXT modules reserve trace memory as records of this size (Darshan's
/// DXT_DEF_RECORD_SIZE), 2,048 of them (2 MiB) unless MAX_RECORDS says.
pub const DXT_RECORD_BYTES: usize = 1024;
pub const DEF_DXT_REC_COUNT: usize = 2048;

/// A name regex and the set of modules (bit per module id) it applies to.
pub struct NameRule {
    pub pattern: String,
    pub regex: Regex,
    pub modules: u64,
}

/// Which path prefixes leave a file unrecorded (DARSHAN_EXCLUDE_DIRS).
#[derive(Debug, PartialEq)]
pub enum ExcludeDirs {
    /// Darshan's own (/etc/, /usr/, ...; counting::paths), with its one
    /// prefix taken back (/var/opt/cray/dws/mounts/).
    Default,
    /// DARSHAN_EXCLUDE_DIRS=none: no prefix; the prefix taken back still
    /// saves a name a NAME_EXCLUDE rule matched, as in Darshan.
    Nothing,
    /// The user's comma-separated prefixes in place of Darshan's, matched
    /// as plain prefixes (`/scratch/tmp` leaves out `/scratch/tmpfile`),
    /// none taken back.
    Listed(Vec<Vec<u8>>),
}

impl ExcludeDirs {
    /// DARSHAN_EXCLUDE_DIRS's value read as C Darshan 3.5.0 reads it: it
    /// means none when `strncmp(value, "none", strlen(value)) >= 0` (so
    /// also when empty or after "none" in byte order), else a list whose
    /// empty items are skipped (strtok).
    pub fn parse(v: &str) -> ExcludeDirs {
        let none = b"none";
        let cmp = v.bytes().enumerate().map(|(i, b)| b.cmp(none.get(i).unwrap_or(&0))).find(|o| o.is_ne());
        if cmp.is_none_or(|o| o.is_gt()) {
            return ExcludeDirs::Nothing;
        }
        ExcludeDirs::Listed(v.split(',').filter(|d| !d.is_empty()).map(|d| d.as_bytes().to_vec()).collect())
    }
}

pub struct Config {
    pub disable: bool,
    pub enable_nonmpi: bool,
    pub dump_config: bool,
    pub internal_timing: bool,
    pub disable_shared_reduction: bool,
    /// DARSHAN_LOGPATH: a flat directory (the reference build's by-env path).
    pub log_path_flat: Option<String>,
    /// config LOGPATH: a directory with YYYY/M/D subdirectories.
    pub log_path_dated: Option<String>,
    /// config LOGPATH_BYENV (given at install, as C's
    /// `--with-log-path-by-env`): the variables, comma-separated, whose
    /// first set one names the flat directory; none: DARSHAN_LOGPATH.
    pub log_path_envs: Option<String>,
    pub log_file: Option<String>,
    pub mmap_log_path: String,
    /// Crash-safe mode (on by default, as in Darshan 3.5.0); our own
    /// switch DARSHAN_MMAP_LOGS=0 turns it off (Darshan: configure time).
    pub mmap_logs: bool,
    /// DARSHAN_LOG_FSYNC=1 (ours): fsync the log and its directory before
    /// the crash-safe file is removed. Off by default: a killed process
    /// cannot lose a log that is written and renamed, only a node crash
    /// can (which takes a /tmp crash-safe file with it too), and two
    /// fsyncs cost every short process milliseconds.
    pub log_fsync: bool,
    /// config GROUP_READABLE_LOGS (given at install, as C's
    /// `--enable-group-readable-logs`): logs are published 0440, so that
    /// the owner's group (a centre's analysis group) can read them; 0400
    /// without.
    pub group_readable_logs: bool,
    /// config USERNAME_ENV (given at install, as C's
    /// `--with-username-env`): the variable that names the user in log
    /// names, before LOGNAME (where LOGNAME is not the job's user, as in
    /// some batch systems' environments).
    pub username_env: Option<String>,
    pub jobid_env: Option<String>,
    /// A non-MPI process's rank, job size and job key from its launcher's
    /// environment (crate::launcher); read here, once, with the rest.
    pub launch: crate::launcher::Launch,
    pub log_hints: String,
    /// An MPI job's log up to this many bytes is gathered onto rank 0 and
    /// written there (DARSHAN_LOG_GATHER_MAX, MiB; 0: always MPI-IO).
    pub log_gather_max: u64,
    pub mod_mem: usize,
    pub name_mem: usize,
    pub mem_align: i64,
    pub mod_enabled: [bool; MAX_MODS],
    pub max_records: [usize; MAX_MODS],
    pub name_exclude: Vec<NameRule>,
    pub name_include: Vec<NameRule>,
    pub exclude_dirs: ExcludeDirs,
    pub app_exclude: Vec<(String, Regex)>,
    pub app_include: Vec<(String, Regex)>,
    pub rank_exclude: Vec<(i64, i64)>,
    pub rank_include: Vec<(i64, i64)>,
    pub dxt_small_io_trigger: Option<f64>,
    pub dxt_unaligned_io_trigger: Option<f64>,
    /// DARSHAN_DXT_THREAD_ID=1 / DXT_THREAD_ID (ours): DXT segments carry
    /// the calling thread's id, written as DXT_POSIX v2 / DXT_MPIIO v3
    /// (Darshan after 3.5.0), which released readers refuse.
    pub dxt_thread_ids: bool,
    /// APMPI_COLL_SYNC / DARSHAN_APMPI_COLL_SYNC=1 (ours; C's build option
    /// --enable-apmpi-coll-sync): APMPI times each blocking collective
    /// after a barrier on its communicator, whose time is its sync time.
    pub apmpi_coll_sync: bool,
}

impl Default for Config {
    fn default() -> Self {
        let mut mod_enabled = [true; MAX_MODS];
        mod_enabled[modules::DXT_POSIX] = false;
        mod_enabled[modules::DXT_MPIIO] = false;
        mod_enabled[modules::DXT_IO_URING] = false;
        // The NULL module is the template: built in, on only when asked
        // for (DARSHAN_MOD_ENABLE=NULL).
        mod_enabled[modules::NULL] = false;
        // AutoPerf's MPI profile is a build option of C Darshan's
        // (--enable-apmpi-mod): on where the site installed it so
        // (scripts/install.sh --enable-apmpi-mod) or asked for.
        mod_enabled[modules::APMPI] = false;
        // POSIX_META (ours, id 63) is on: its region is named by the
        // extension trailer, not the header's map, so PyDarshan 3.5.0 and
        // C's tools read such a log as one without it
        // (darshan_log::extension).
        Config {
            disable: false,
            enable_nonmpi: false,
            dump_config: false,
            internal_timing: false,
            disable_shared_reduction: false,
            log_path_flat: None,
            log_path_dated: None,
            log_path_envs: None,
            log_file: None,
            mmap_log_path: "/tmp".into(),
            mmap_logs: true,
            log_fsync: false,
            group_readable_logs: false,
            username_env: None,
            jobid_env: None,
            launch: Default::default(),
            log_hints: DEF_LOG_HINTS.into(),
            log_gather_max: 16 << 20,
            mod_mem: DEF_MOD_MEM,
            name_mem: DEF_NAME_MEM,
            mem_align: DEF_MEM_ALIGN,
            mod_enabled,
            max_records: default_records(),
            name_exclude: Vec::new(),
            name_include: Vec::new(),
            exclude_dirs: ExcludeDirs::Default,
            app_exclude: Vec::new(),
            app_include: Vec::new(),
            rank_exclude: Vec::new(),
            rank_include: Vec::new(),
            dxt_small_io_trigger: None,
            dxt_unaligned_io_trigger: None,
            dxt_thread_ids: false,
            apmpi_coll_sync: false,
        }
    }
}

fn default_records() -> [usize; MAX_MODS] {
    let mut r = [DEF_MOD_REC_COUNT; MAX_MODS];
    r[modules::DXT_POSIX] = DEF_DXT_REC_COUNT;
    r[modules::DXT_MPIIO] = DEF_DXT_REC_COUNT;
    r[modules::DXT_IO_URING] = DEF_DXT_REC_COUNT;
    r
}

/// Where configuration comes from: a variable lookup and a file reader, so
/// tests can supply both.
pub trait Source {
    fn var(&self, name: &str) -> Option<String>;
    fn read_file(&self, path: &str) -> std::io::Result<String>;
    /// The configuration lines given at install (config/installed.rs),
    /// which a config file and the environment override.
    fn installed_config(&self) -> Option<&str> {
        None
    }
}

pub struct ProcessEnv;

impl Source for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }
    fn read_file(&self, path: &str) -> std::io::Result<String> {
        read_regular_file(path, MAX_CONFIG_FILE)
    }
    fn installed_config(&self) -> Option<&str> {
        installed::lines()
    }
}

/// A configuration file larger than this is not one.
const MAX_CONFIG_FILE: u64 = 1 << 20;

/// The text of the regular file at `path`, at most `max` bytes of it. A
/// variable names the file, and its value may name a FIFO (whose open and
/// read wait for a writer: the program held before its main, for ever) or
/// a device (/dev/zero, read without end): opened without waiting
/// (O_NONBLOCK, which a regular file's reads ignore), refused unless it
/// is a regular file.
pub fn read_regular_file(path: impl AsRef<std::path::Path>, max: u64) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC).open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut text = String::new();
    f.take(max).read_to_string(&mut text)?;
    Ok(text)
}

fn module_mask(list: &str, warn: &mut Vec<String>, what: &str) -> u64 {
    let mut mask = 0u64;
    for m in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if m == "*" {
            return u64::MAX;
        }
        // "HDF5": both of its modules (Darshan knows only H5F and H5D; a
        // user thinks of the library).
        if m.eq_ignore_ascii_case("HDF5") {
            mask |= 1 << modules::H5F | 1 << modules::H5D;
            continue;
        }
        match modules::module_id(m) {
            Some(i) => mask |= 1 << i,
            None => warn.push(format!("unknown module '{}' in {what}; ignored", quote(m))),
        }
    }
    mask
}

fn mib(v: &str, what: &str, warn: &mut Vec<String>) -> Option<usize> {
    // Darshan reads whole MiB; a fractional value is truncated.
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 1.0 && x <= (1u64 << 20) as f64 => Some((x as usize) << 20),
        Ok(x) if x > (1u64 << 20) as f64 => {
            warn.push(format!(
                "{what} {} MiB is more than the 1048576 MiB (1 TiB) a process can set aside; using the default",
                quote(v)
            ));
            None
        }
        _ => {
            warn.push(format!(
                "bad value '{}' for {what} (a whole number of MiB >= 1 expected); using the default",
                quote(v)
            ));
            None
        }
    }
}

fn regexes(list: &str, what: &str, warn: &mut Vec<String>) -> Vec<(String, Regex)> {
    let mut out = Vec::new();
    for p in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name_pattern(p) {
            Ok(r) => out.push((p.to_string(), r)),
            Err(e) => warn.push(format!("bad regex '{}' in {what} ({e}); ignored", quote(p))),
        }
    }
    out
}

/// A configuration pattern as C Darshan reads it: a POSIX extended
/// regular expression, byte-wise (glibc's `regcomp(REG_EXTENDED)` in the
/// C locale; see [`crate::ere`]), matched anywhere in the name.
pub fn name_pattern(ere: &str) -> Result<Regex, String> {
    let dfa = crate::ere::to_dfa_syntax(ere)?;
    // No Unicode: a name's bytes match whatever they encode, and the
    // runtime needs none of regex's Unicode tables (scripts/build.sh).
    let syntax = regex_automata::util::syntax::Config::new().unicode(false).utf8(false);
    // Every process builds these at start: a pattern whose automaton is
    // huge (`a{32767}` took about 30 s) is refused, not built.
    let nfa = regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(PATTERN_BYTES));
    let dense = regex_automata::dfa::dense::Config::new()
        .dfa_size_limit(Some(PATTERN_BYTES))
        .determinize_size_limit(Some(PATTERN_BYTES));
    Regex::builder().syntax(syntax).thompson(nfa).dense(dense).build(&dfa).map_err(|e| e.to_string())
}

/// The most memory one pattern's automata may take.
const PATTERN_BYTES: usize = 1 << 20;

fn ranks(list: &str, what: &str, warn: &mut Vec<String>) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for p in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if p == "*" {
            out.push((0, i64::MAX));
            continue;
        }
        let parsed = match p.split_once(':') {
            Some((a, b)) => {
                let lo = if a.is_empty() { Ok(0) } else { a.parse::<i64>() };
                let hi = if b.is_empty() { Ok(i64::MAX) } else { b.parse::<i64>() };
                lo.and_then(|l| hi.map(|h| (l, h)))
            }
            None => p.parse::<i64>().map(|r| (r, r)),
        };
        match parsed {
            Ok(r) if r.0 >= 0 && r.0 <= r.1 => out.push(r),
            _ => warn.push(format!("bad rank range '{}' in {what}; ignored", quote(p))),
        }
    }
    out
}

fn fraction(v: &str, what: &str, warn: &mut Vec<String>) -> Option<f64> {
    match v.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Some(x),
        _ => {
            warn.push(format!("bad value '{}' for {what} (a fraction 0..1 expected); ignored", quote(v)));
            None
        }
    }
}

/// A 0/1 switch of ours (DARSHAN_MMAP_LOGS, DARSHAN_LOG_FSYNC): another
/// value keeps the current one, with a warning.
fn switch(src: &dyn Source, name: &str, flag: &mut bool, warn: &mut Vec<String>) {
    match src.var(name).as_deref() {
        None => {}
        Some("0") => *flag = false,
        Some("1") => *flag = true,
        Some(v) => warn.push(format!("{name}={}: expected 0 or 1; keeping {}", quote(v), *flag as u8)),
    }
}

/// MOD_DISABLE and MOD_ENABLE lines' modules, applied after the file.
#[derive(Default)]
struct ModMasks {
    disable: u64,
    enable: u64,
}

/// How many arguments a configuration file's keyword needs; None for a
/// keyword Darshan does not know.
fn arity(key: &str) -> Option<usize> {
    Some(match key {
        "MODMEM"
        | "NAMEMEM"
        | "MEM_ALIGNMENT"
        | "JOBID"
        | "LOGHINTS"
        | "LOGPATH"
        | "LOGPATH_BYENV"
        | "USERNAME_ENV"
        | "MMAP_LOGPATH"
        | "APP_EXCLUDE"
        | "APP_INCLUDE"
        | "RANK_EXCLUDE"
        | "RANK_INCLUDE"
        | "MOD_DISABLE"
        | "MOD_ENABLE"
        | "DXT_SMALL_IO_TRIGGER"
        | "DXT_UNALIGNED_IO_TRIGGER" => 1,
        "MAX_RECORDS" | "NAME_EXCLUDE" | "NAME_INCLUDE" => 2,
        "DXT_THREAD_ID"
        | "APMPI_COLL_SYNC"
        | "GROUP_READABLE_LOGS"
        | "DUMP_CONFIG"
        | "INTERNAL_TIMING"
        | "DISABLE_SHARED_REDUCTION" => 0,
        _ => return None,
    })
}

/// A value quoted in a warning: at most a short prefix (a 5 MB config
/// line once gave a 5 MB warning).
fn quote(v: &str) -> String {
    const MAX: usize = 64;
    if v.len() <= MAX {
        return v.to_string();
    }
    let mut end = MAX;
    while !v.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &v[..end], v.len())
}

impl Config {
    /// Read the configuration; warnings come back for the caller to print.
    pub fn load(src: &dyn Source) -> (Config, Vec<String>) {
        let mut c = Config::default();
        let mut warn = Vec::new();
        if let Some(text) = src.installed_config() {
            c.apply_file(text, "installed config", &mut warn);
        }
        if let Some(path) = src.var("DARSHAN_CONFIG_PATH") {
            match src.read_file(&path) {
                Ok(text) => c.apply_file(&text, "config", &mut warn),
                Err(e) => warn.push(format!("cannot read config file {}: {e}; ignored", quote(&path))),
            }
        }
        c.apply_env(src, &mut warn);
        (c, warn)
    }

    /// The mode a published log gets: 0400, or 0440 with
    /// GROUP_READABLE_LOGS.
    pub fn log_mode(&self) -> u32 {
        darshan_log::defaults::log_mode(self.group_readable_logs)
    }

    /// The lines of a configuration (`label`: where they come from, for
    /// the warnings).
    fn apply_file(&mut self, text: &str, label: &str, warn: &mut Vec<String>) {
        let mut masks = ModMasks::default();
        for (n, line) in text.lines().enumerate() {
            let Some((key, it)) = darshan_log::defaults::config_words(line) else { continue };
            let args: Vec<&str> = it.collect();
            match arity(key) {
                None => warn.push(format!("{label} line {}: unknown keyword '{}'; skipped", n + 1, quote(key))),
                Some(k) if args.len() < k => warn.push(format!(
                    "{label} line {} ({}): expected {k} argument(s); line ignored",
                    n + 1,
                    quote(key)
                )),
                Some(_) => {
                    let what = format!("{label} line {} ({})", n + 1, quote(key));
                    self.apply_line(key, &args, &what, warn, &mut masks);
                }
            }
        }
        self.apply_mod_masks(masks.disable, masks.enable);
    }

    /// One line of a configuration file whose keyword is known and has
    /// its arguments (`arity`).
    fn apply_line(&mut self, key: &str, args: &[&str], what: &str, warn: &mut Vec<String>, masks: &mut ModMasks) {
        match key {
            "MODMEM" => self.mod_mem = mib(args[0], what, warn).unwrap_or(self.mod_mem),
            "NAMEMEM" => self.name_mem = mib(args[0], what, warn).unwrap_or(self.name_mem),
            "MEM_ALIGNMENT" => self.set_align(args[0], what, warn),
            "JOBID" => self.jobid_env = Some(args[0].into()),
            "LOGHINTS" => self.log_hints = args[0].into(),
            "LOGPATH" => self.log_path_dated = Some(args[0].into()),
            "LOGPATH_BYENV" => self.log_path_envs = Some(args[0].into()),
            "USERNAME_ENV" => self.username_env = Some(args[0].into()),
            "GROUP_READABLE_LOGS" => self.group_readable_logs = true,
            "MMAP_LOGPATH" => self.mmap_log_path = args[0].into(),
            "APP_EXCLUDE" => self.app_exclude.extend(regexes(args[0], what, warn)),
            "APP_INCLUDE" => self.app_include.extend(regexes(args[0], what, warn)),
            "RANK_EXCLUDE" => self.rank_exclude.extend(ranks(args[0], what, warn)),
            "RANK_INCLUDE" => self.rank_include.extend(ranks(args[0], what, warn)),
            "MOD_DISABLE" => masks.disable |= module_mask(args[0], warn, what),
            "MOD_ENABLE" => masks.enable |= module_mask(args[0], warn, what),
            "MAX_RECORDS" => self.set_max_records(args[0], args[1], what, warn),
            "NAME_EXCLUDE" | "NAME_INCLUDE" => {
                let mask = module_mask(args[1], warn, what);
                let rules = regexes(args[0], what, warn).into_iter().map(|(pattern, regex)| NameRule {
                    pattern,
                    regex,
                    modules: mask,
                });
                if key == "NAME_EXCLUDE" {
                    self.name_exclude.extend(rules)
                } else {
                    self.name_include.extend(rules)
                }
            }
            "DXT_SMALL_IO_TRIGGER" => self.dxt_small_io_trigger = fraction(args[0], what, warn),
            "DXT_UNALIGNED_IO_TRIGGER" => self.dxt_unaligned_io_trigger = fraction(args[0], what, warn),
            "DXT_THREAD_ID" => self.dxt_thread_ids = true,
            "APMPI_COLL_SYNC" => self.apmpi_coll_sync = true,
            "DUMP_CONFIG" => self.dump_config = true,
            "INTERNAL_TIMING" => self.internal_timing = true,
            "DISABLE_SHARED_REDUCTION" => self.disable_shared_reduction = true,
            _ => {}
        }
    }

    /// MAX_RECORDS: a record limit for the modules named (not HEATMAP or
    /// APMPI, as in Darshan).
    fn set_max_records(&mut self, count: &str, names: &str, what: &str, warn: &mut Vec<String>) {
        // Darshan reads the count as a float and truncates it ("2.5" is 2,
        // "1e3" 1,000); 0 keeps the default.
        match count.parse::<f64>().ok().filter(|v| (1.0..1e15).contains(v)).map(|v| v as usize) {
            Some(n) => {
                let mask = module_mask(names, warn, what);
                for m in 0..MAX_MODS {
                    if mask & (1 << m) != 0 && m != modules::HEATMAP && m != modules::APMPI {
                        self.max_records[m] = n;
                    }
                }
            }
            _ => warn.push(format!("{what}: bad record count '{}'; ignored", quote(count))),
        }
    }

    fn set_align(&mut self, v: &str, what: &str, warn: &mut Vec<String>) {
        match v.trim().parse::<i64>() {
            Ok(a) => self.mem_align = a.max(1),
            Err(_) => {
                warn.push(format!("bad value '{}' for {what} (bytes expected); using {}", quote(v), self.mem_align))
            }
        }
    }

    fn apply_mod_masks(&mut self, disable: u64, enable: u64) {
        for m in 0..MAX_MODS {
            if disable & (1 << m) != 0 {
                self.mod_enabled[m] = false;
            }
        }
        // Enable wins over disable.
        for m in 0..MAX_MODS {
            if enable & (1 << m) != 0 {
                self.mod_enabled[m] = true;
            }
        }
    }

    /// The environment's settings, over the file's: switches, where and
    /// how the log is written, memory, and what is recorded.
    fn apply_env(&mut self, src: &dyn Source, warn: &mut Vec<String>) {
        self.launch = crate::launcher::Launch::from_env(&|n: &str| src.var(n));
        self.env_switches(src);
        self.env_log(src, warn);
        self.env_memory(src, warn);
        self.env_selection(src, warn);
    }

    fn env_switches(&mut self, src: &dyn Source) {
        let set = |n: &str| src.var(n).is_some();
        self.disable |= set("DARSHAN_DISABLE");
        self.enable_nonmpi |= set("DARSHAN_ENABLE_NONMPI");
        self.dump_config |= set("DARSHAN_DUMP_CONFIG");
        self.internal_timing |= set("DARSHAN_INTERNAL_TIMING");
        self.disable_shared_reduction |= set("DARSHAN_DISABLE_SHARED_REDUCTION");
    }

    fn env_log(&mut self, src: &dyn Source, warn: &mut Vec<String>) {
        // As C Darshan: the first set of the by-env variables names a flat
        // directory; DARSHAN_LOGPATH, where it is not one of them, the
        // root of the dated tree.
        let envs = self.log_path_envs.as_deref().unwrap_or(darshan_log::defaults::LOG_PATH_ENVS);
        if let Some(v) = envs.split(',').filter(|n| !n.is_empty()).find_map(|n| src.var(n)) {
            self.log_path_flat = Some(v);
        }
        if !envs.split(',').any(|n| n == "DARSHAN_LOGPATH") {
            if let Some(v) = src.var("DARSHAN_LOGPATH") {
                self.log_path_dated = Some(v);
            }
        }
        if let Some(v) = src.var("DARSHAN_LOGFILE") {
            self.log_file = Some(v);
        }
        if let Some(v) = src.var("DARSHAN_MMAP_LOGPATH") {
            self.mmap_log_path = v;
        }
        switch(src, "DARSHAN_LOG_FSYNC", &mut self.log_fsync, warn);
        switch(src, "DARSHAN_MMAP_LOGS", &mut self.mmap_logs, warn);
        if let Some(v) = src.var("DARSHAN_JOBID") {
            self.jobid_env = Some(v);
        }
        if let Some(v) = src.var("DARSHAN_LOGHINTS") {
            self.log_hints = v;
        }
        if let Some(v) = src.var("DARSHAN_LOG_GATHER_MAX") {
            // 0: every log through MPI-IO (the tests' way to that path).
            let bytes = if v.trim() == "0" { Some(0) } else { mib(&v, "DARSHAN_LOG_GATHER_MAX", warn) };
            self.log_gather_max = bytes.map_or(self.log_gather_max, |b| b as u64);
        }
    }

    fn env_memory(&mut self, src: &dyn Source, warn: &mut Vec<String>) {
        if let Some(v) = src.var("DARSHAN_MODMEM") {
            self.mod_mem = mib(&v, "DARSHAN_MODMEM", warn).unwrap_or(self.mod_mem);
        }
        if let Some(v) = src.var("DARSHAN_NAMEMEM") {
            self.name_mem = mib(&v, "DARSHAN_NAMEMEM", warn).unwrap_or(self.name_mem);
        }
        if let Some(v) = src.var("DARSHAN_MEMALIGN") {
            self.set_align(&v, "DARSHAN_MEMALIGN", warn);
        }
    }

    fn env_selection(&mut self, src: &dyn Source, warn: &mut Vec<String>) {
        let set = |n: &str| src.var(n).is_some();
        let dis = src.var("DARSHAN_MOD_DISABLE");
        let en = src.var("DARSHAN_MOD_ENABLE");
        if dis.is_some() || en.is_some() {
            // Either variable discards the config file's MOD_* settings.
            let d = Config::default();
            self.mod_enabled = d.mod_enabled;
            let dm = dis.map(|v| module_mask(&v, warn, "DARSHAN_MOD_DISABLE")).unwrap_or(0);
            let em = en.map(|v| module_mask(&v, warn, "DARSHAN_MOD_ENABLE")).unwrap_or(0);
            self.apply_mod_masks(dm, em);
        }
        if set("DXT_ENABLE_IO_TRACE") {
            self.mod_enabled[modules::DXT_POSIX] = true;
            self.mod_enabled[modules::DXT_MPIIO] = true;
            // Ours: the io_uring requests' trace, asked for with the rest.
            self.mod_enabled[modules::DXT_IO_URING] = true;
        }
        if let Some(v) = src.var("DARSHAN_EXCLUDE_DIRS") {
            self.exclude_dirs = ExcludeDirs::parse(&v);
        }
        if let Some(v) = src.var("DARSHAN_APP_EXCLUDE") {
            self.app_exclude.extend(regexes(&v, "DARSHAN_APP_EXCLUDE", warn));
        }
        if let Some(v) = src.var("DARSHAN_APP_INCLUDE") {
            self.app_include.extend(regexes(&v, "DARSHAN_APP_INCLUDE", warn));
        }
        if let Some(v) = src.var("DARSHAN_RANK_EXCLUDE") {
            self.rank_exclude.extend(ranks(&v, "DARSHAN_RANK_EXCLUDE", warn));
        }
        if let Some(v) = src.var("DARSHAN_RANK_INCLUDE") {
            self.rank_include.extend(ranks(&v, "DARSHAN_RANK_INCLUDE", warn));
        }
        if let Some(v) = src.var("DARSHAN_DXT_SMALL_IO_TRIGGER") {
            self.dxt_small_io_trigger = fraction(&v, "DARSHAN_DXT_SMALL_IO_TRIGGER", warn);
        }
        if let Some(v) = src.var("DARSHAN_DXT_UNALIGNED_IO_TRIGGER") {
            self.dxt_unaligned_io_trigger = fraction(&v, "DARSHAN_DXT_UNALIGNED_IO_TRIGGER", warn);
        }
        if let Some(v) = src.var("DARSHAN_DXT_THREAD_ID") {
            self.dxt_thread_ids = v.trim() != "0";
        }
        if let Some(v) = src.var("DARSHAN_APMPI_COLL_SYNC") {
            self.apmpi_coll_sync = v.trim() != "0";
        }
    }

    /// Trace memory of a DXT module (Darshan's accounting: 104 bytes per
    /// file, 32 or 40 per segment): its own, outside DARSHAN_MODMEM, as
    /// in Darshan; 0 when the module is off.
    pub fn dxt_budget(&self, module: usize) -> usize {
        let on = modules::is_dxt(module) && self.mod_enabled[module];
        if on {
            self.max_records[module].saturating_mul(DXT_RECORD_BYTES)
        } else {
            0
        }
    }

    /// Memory reserved for a DXT module's budget: the chunks' own headers
    /// (dxt_mapped) take at most a sixteenth more, plus a page.
    pub fn dxt_reserve(&self, module: usize) -> usize {
        let b = self.dxt_budget(module);
        if b == 0 {
            0
        } else {
            b.saturating_add(b / 16).saturating_add(4096).next_multiple_of(8)
        }
    }

    /// Whether the program (first token of the command line) is excluded
    /// by APP_EXCLUDE and not re-included by APP_INCLUDE.
    pub fn app_excluded(&self, exe: &str) -> bool {
        let hit = |l: &[(String, Regex)]| l.iter().any(|(_, r)| r.is_match(exe.as_bytes()));
        hit(&self.app_exclude) && !hit(&self.app_include)
    }

    pub fn rank_excluded(&self, rank: i64) -> bool {
        let hit = |l: &[(i64, i64)]| l.iter().any(|&(a, b)| rank >= a && rank <= b);
        hit(&self.rank_exclude) && !hit(&self.rank_include)
    }
}

#[cfg(test)]
mod tests {
    /// DARSHAN_MODMEM=99999999999 said "a whole number of MiB >= 1
    /// expected": the value is too large, and the line now says so.
    #[test]
    fn a_modmem_too_large_is_called_too_large() {
        let mut warn = Vec::new();
        assert_eq!(mib("99999999999", "DARSHAN_MODMEM", &mut warn), None);
        assert!(warn[0].contains("more than the 1048576 MiB"), "{warn:?}");
        warn.clear();
        assert_eq!(mib("0.5", "DARSHAN_MODMEM", &mut warn), None);
        assert!(warn[0].contains("a whole number of MiB >= 1 expected"), "{warn:?}");
    }

    use super::*;
    use std::collections::HashMap;

    struct Fake(HashMap<&'static str, &'static str>, &'static str);
    impl Source for Fake {
        fn var(&self, n: &str) -> Option<String> {
            self.0.get(n).map(|s| s.to_string())
        }
        fn read_file(&self, _p: &str) -> std::io::Result<String> {
            Ok(self.1.to_string())
        }
    }

    #[test]
    fn environment_overrides_config_file_and_bad_values_keep_defaults() {
        let env = Fake(
            [("DARSHAN_CONFIG_PATH", "/x"), ("DARSHAN_MODMEM", "8"), ("DARSHAN_NAMEMEM", "lots")].into(),
            "MODMEM 2\nNAMEMEM 3 # comment\nMAX_RECORDS 5000 POSIX,STDIO\nBOGUS 1\nMEM_ALIGNMENT 16\n",
        );
        let (c, warn) = Config::load(&env);
        assert_eq!(c.mod_mem, 8 << 20);
        assert_eq!(c.name_mem, 3 << 20);
        assert_eq!(c.max_records[modules::POSIX], 5000);
        assert_eq!(c.max_records[modules::MPIIO], DEF_MOD_REC_COUNT);
        assert_eq!(c.mem_align, 16);
        assert_eq!(warn.len(), 2, "{warn:?}");
        assert!(warn.iter().any(|w| w.contains("BOGUS")));
        assert!(warn.iter().any(|w| w.contains("lots")));
    }

    /// C Darshan's order: what was compiled in (ours: written at
    /// install), then the config file, then the environment; the by-env
    /// variables name a flat directory, DARSHAN_LOGPATH otherwise the
    /// dated tree's root.
    #[test]
    fn the_installed_config_is_the_default_a_config_file_or_the_environment_overrides() {
        struct Installed(Fake, &'static str);
        impl Source for Installed {
            fn var(&self, n: &str) -> Option<String> {
                self.0.var(n)
            }
            fn read_file(&self, p: &str) -> std::io::Result<String> {
                self.0.read_file(p)
            }
            fn installed_config(&self) -> Option<&str> {
                Some(self.1)
            }
        }
        let site = "LOGPATH /site/logs\nMODMEM 9\nLOGPATH_BYENV SITE_LOG_DIR,OTHER\n";
        let load = |env: &[(&'static str, &'static str)], file| {
            Config::load(&Installed(Fake(env.iter().copied().collect(), file), site))
        };
        let (only, warn) = load(&[], "");
        assert_eq!(
            (only.log_path_dated.as_deref(), only.log_path_flat, only.mod_mem),
            (Some("/site/logs"), None, 9 << 20)
        );
        assert!(warn.is_empty(), "{warn:?}");
        let (file, _) = load(&[("DARSHAN_CONFIG_PATH", "/c")], "LOGPATH /other\nMODMEM 3\n");
        assert_eq!((file.log_path_dated.as_deref(), file.mod_mem), (Some("/other"), 3 << 20));
        let (env, _) = load(&[("OTHER", "/flat"), ("DARSHAN_LOGPATH", "/dated")], "");
        assert_eq!((env.log_path_flat.as_deref(), env.log_path_dated.as_deref()), (Some("/flat"), Some("/dated")));
        let (bad, warn) = Config::load(&Installed(Fake(HashMap::new(), ""), "MODMEM\n"));
        assert_eq!((bad.mod_mem, warn.len()), (Config::default().mod_mem, 1));
        assert!(warn[0].starts_with("installed config line 1 (MODMEM)"), "{warn:?}");
        // Nothing installed: DARSHAN_LOGPATH is the flat directory, as before.
        let (plain, _) = Config::load(&Fake([("DARSHAN_LOGPATH", "/flat")].into(), ""));
        assert_eq!((plain.log_path_flat.as_deref(), plain.log_path_dated), (Some("/flat"), None));
    }

    #[test]
    fn our_switches_take_0_or_1_and_warn_otherwise() {
        let (c, w) = Config::load(&Fake([("DARSHAN_LOG_FSYNC", "1"), ("DARSHAN_MMAP_LOGS", "yes")].into(), ""));
        assert!(c.log_fsync);
        assert!(c.mmap_logs, "a bad value keeps the default");
        assert_eq!(w, vec!["DARSHAN_MMAP_LOGS=yes: expected 0 or 1; keeping 1".to_string()]);
        assert!(!Config::default().log_fsync, "no fsync unless asked for");
    }

    #[test]
    fn the_gather_limit_is_whole_mib_or_0_for_none() {
        let gather = |v: &'static str| Config::load(&Fake([("DARSHAN_LOG_GATHER_MAX", v)].into(), ""));
        assert_eq!(Config::default().log_gather_max, 16 << 20);
        assert_eq!(gather("4").0.log_gather_max, 4 << 20);
        assert_eq!(gather("0").0.log_gather_max, 0, "every log through MPI-IO");
        let (c, w) = gather("-3");
        assert_eq!((c.log_gather_max, w.len()), (16 << 20, 1), "a bad value keeps the default, said once");
    }

    #[test]
    fn a_keyword_without_its_arguments_is_ignored_with_one_warning() {
        let text = "MODMEM\nMAX_RECORDS 5\nDUMP_CONFIG\nNAME_EXCLUDE ^/tmp\nNAMEMEM 3\n";
        let (c, warn) = Config::load(&Fake([("DARSHAN_CONFIG_PATH", "/x")].into(), text));
        assert_eq!(c.mod_mem, Config::default().mod_mem);
        assert_eq!(c.max_records[modules::POSIX], DEF_MOD_REC_COUNT);
        assert!(c.name_exclude.is_empty());
        assert!(c.dump_config, "a keyword of no arguments needs none");
        assert_eq!(c.name_mem, 3 << 20, "the lines after a bad one still count");
        let said =
            |n: usize, key: &str, k: usize| format!("config line {n} ({key}): expected {k} argument(s); line ignored");
        assert_eq!(warn, vec![said(1, "MODMEM", 1), said(2, "MAX_RECORDS", 2), said(4, "NAME_EXCLUDE", 2)]);
    }

    /// A config file line of 5 MB gave a 5 MB warning.
    #[test]
    fn a_huge_bad_config_line_gives_a_short_warning() {
        let line: &'static str = Box::leak(
            format!(
                "{} 1\nMAX_RECORDS {} POSIX\nNAME_EXCLUDE {} POSIX\n",
                "K".repeat(5 << 20),
                "9".repeat(1 << 20),
                "(".repeat(1 << 20)
            )
            .into_boxed_str(),
        );
        let (_, warn) = Config::load(&Fake([("DARSHAN_CONFIG_PATH", "/x")].into(), line));
        assert_eq!(warn.len(), 3, "{:?}", warn.iter().map(|w| &w[..w.len().min(80)]).collect::<Vec<_>>());
        for w in &warn {
            assert!(w.len() < 400, "a warning of {} bytes: {}...", w.len(), &w[..120]);
        }
        assert!(warn[0].contains("KKKK") && warn[0].contains("(5242880 bytes)"), "{}", warn[0]);
    }

    #[test]
    fn mod_env_discards_file_settings_and_enable_wins() {
        let env = Fake(
            [("DARSHAN_CONFIG_PATH", "/x"), ("DARSHAN_MOD_DISABLE", "POSIX,STDIO"), ("DARSHAN_MOD_ENABLE", "STDIO")]
                .into(),
            "MOD_DISABLE MPI-IO\n",
        );
        let (c, _) = Config::load(&env);
        assert!(!c.mod_enabled[modules::POSIX]);
        assert!(c.mod_enabled[modules::STDIO]);
        assert!(c.mod_enabled[modules::MPIIO]);
        assert!(!c.mod_enabled[modules::DXT_POSIX]);
    }

    #[test]
    fn hdf5_in_a_module_list_means_h5f_and_h5d() {
        let (c, warn) = Config::load(&Fake([("DARSHAN_MOD_DISABLE", "HDF5")].into(), ""));
        assert!(warn.is_empty(), "{warn:?}");
        assert!(!c.mod_enabled[modules::H5F] && !c.mod_enabled[modules::H5D]);
        assert!(c.mod_enabled[modules::POSIX]);
        let (c, _) = Config::load(&Fake([("DARSHAN_CONFIG_PATH", "/x")].into(), "MOD_DISABLE H5D\n"));
        assert!(c.mod_enabled[modules::H5F] && !c.mod_enabled[modules::H5D]);
    }

    #[test]
    fn rank_ranges_and_app_regexes() {
        let env = Fake(
            [
                ("DARSHAN_RANK_EXCLUDE", "0,4:,bad"),
                ("DARSHAN_RANK_INCLUDE", "7"),
                ("DARSHAN_APP_EXCLUDE", "^/usr/bin/"),
            ]
            .into(),
            "",
        );
        let (c, warn) = Config::load(&env);
        assert!(c.rank_excluded(0) && !c.rank_excluded(1) && c.rank_excluded(5) && !c.rank_excluded(7));
        assert!(c.app_excluded("/usr/bin/ls") && !c.app_excluded("/home/a.out"));
        assert_eq!(warn.len(), 1);
    }

    /// Patterns meant what Rust's regex syntax makes of them, not what C
    /// Darshan's `regcomp(REG_EXTENDED)` does: `\d` was a digit (glibc:
    /// the letter d), `(?i)` a flag (glibc: an error), `[\.]` only a dot
    /// (glibc: a backslash or a dot). ffi/tests/name_patterns.rs checks
    /// thousands of patterns against glibc itself.
    #[test]
    fn exclusion_patterns_mean_what_glibc_makes_of_them() {
        let mut warn = Vec::new();
        let rs = regexes(r"\d{4}\.h5$,(?i)/SCRATCH/,[\.]x$,^/usr/bin/\w+$", "test", &mut warn);
        assert_eq!(warn.len(), 1, "{warn:?}");
        assert!(warn[0].contains("(?i)/SCRATCH/"), "{warn:?}");
        let hit = |s: &[u8]| rs.iter().filter(|(_, r)| r.is_match(s)).count();
        assert_eq!(hit(b"/data/out_2026.h5"), 0);
        assert_eq!(hit(b"/data/out_dddd.h5"), 1);
        assert_eq!(hit(b"/lus/scratch/a"), 0);
        assert_eq!(hit(b"/tmp/a\\x"), 1);
        assert_eq!(hit(b"/tmp/a.x"), 1);
        assert_eq!(hit(b"/usr/bin/python3"), 1);
        assert_eq!(hit(b"/usr/bin/py-thon"), 0);
        // Bytes that are no UTF-8 still match byte-wise.
        let any = regexes("^/tmp/.x", "test", &mut warn);
        assert!(any[0].1.is_match(b"/tmp/\xffx"));
    }

    /// Every process builds the configured patterns at start-up: one
    /// repetition of 32,767 took about 30 s to build.
    #[test]
    fn a_pattern_with_a_huge_repetition_is_refused_not_built_at_every_start() {
        let mut warn = Vec::new();
        assert!(regexes("a{30000},b{3}", "test", &mut warn).len() == 1);
        assert!(warn.len() == 1 && warn[0].contains("a{30000}"), "{warn:?}");
    }

    /// C Darshan 3.5.0 reads DARSHAN_EXCLUDE_DIRS as none when
    /// `strncmp(value, "none", strlen(value)) >= 0`, else as a list split
    /// by strtok (empty items skipped); we did not read it.
    #[test]
    fn darshan_exclude_dirs_is_none_where_c_compares_it_so() {
        let listed = |v: &[&str]| ExcludeDirs::Listed(v.iter().map(|d| d.as_bytes().to_vec()).collect());
        for none in ["", "none", "no", "nonexistent", "zzz", "o"] {
            assert_eq!(ExcludeDirs::parse(none), ExcludeDirs::Nothing, "{none:?}");
        }
        assert_eq!(ExcludeDirs::parse("/a,,/b/"), listed(&["/a", "/b/"]));
        assert_eq!(ExcludeDirs::parse("a"), listed(&["a"]));
        assert_eq!(ExcludeDirs::parse(",,"), listed(&[]));
    }

    /// MAX_RECORDS's count is read with strtof and cast, as in C: "2.5"
    /// is 2 and "1e3" 1,000 (ours refused both); 0 keeps the default.
    #[test]
    fn max_records_counts_are_read_as_c_reads_them() {
        let (c, warn) = Config::load(&Fake(
            HashMap::from([("DARSHAN_CONFIG_PATH", "f")]),
            "MAX_RECORDS 2.5 POSIX\nMAX_RECORDS 1e3 STDIO\nMAX_RECORDS 0 H5F\n",
        ));
        assert_eq!((c.max_records[modules::POSIX], c.max_records[modules::STDIO]), (2, 1000));
        assert_eq!(c.max_records[modules::H5F], DEF_MOD_REC_COUNT);
        assert_eq!(warn.len(), 1, "{warn:?}");
    }
}
