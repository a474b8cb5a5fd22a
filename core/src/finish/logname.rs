//! Log file names (docs/counter-rules.md §11):
//! `<user>_<exe>_id<jobid>-<pid>_<M>-<D>-<secs>-<rand>.darshan_partial`,
//! renamed to `..._<T>.darshan` once complete.

use chrono::{DateTime, Datelike, FixedOffset, Local, TimeZone, Timelike, Utc};

/// The parts of a log name that come from the process and the clock.
pub struct NameParts<'a> {
    pub user: &'a str,
    pub exe: &'a str,
    pub jobid: i64,
    pub pid: i64,
    /// The start, in local time ([`local`]).
    pub start: Option<DateTime<FixedOffset>>,
    pub rand: u64,
}

/// The base name (without `.darshan_partial` / `_<T>.darshan`).
pub fn base_name(p: &NameParts) -> String {
    let (mon, day, secs) = match p.start {
        Some(t) => (t.month(), t.day(), t.num_seconds_from_midnight()),
        None => (1, 1, 0),
    };
    format!("{}_{}_id{}-{}_{}-{}-{}-{}", p.user, p.exe, p.jobid, p.pid, mon, day, secs, p.rand)
}

/// Directory for the log: a flat directory, or `<dir>/YYYY/M/D`.
pub fn dated_dir(dir: &str, start: Option<DateTime<FixedOffset>>) -> String {
    match start {
        Some(t) => format!("{dir}/{}/{}/{}", t.year(), t.month(), t.day()),
        None => dir.to_string(),
    }
}

/// `secs` in the local time zone, as Darshan names its logs; in UTC when
/// TZ names a file that is not a regular one (the zone's reader would
/// wait on a FIFO, or on a device, for ever: at the program's exit).
pub fn local(secs: i64) -> Option<DateTime<FixedOffset>> {
    let utc = || Utc.timestamp_opt(secs, 0).single().map(|t| t.fixed_offset());
    if crate::finish::from_a_handler() {
        return utc();
    }
    match std::env::var_os("TZ") {
        Some(tz) if !names_only_regular_files(tz.as_encoded_bytes()) => utc(),
        _ => Local.timestamp_opt(secs, 0).single().map(|t| t.fixed_offset()),
    }
}

/// The directories a relative TZ file name is looked for in (chrono's,
/// glibc's first).
const ZONE_DIRS: [&str; 4] = ["/usr/share/zoneinfo", "/share/zoneinfo", "/etc/zoneinfo", "/usr/share/lib/zoneinfo"];

/// Whether every file the TZ value `tz` could name (after an optional
/// ':', as a path or under the zone directories) is absent or regular.
/// Asked with `stat`, which does not open (and so cannot wait on) it.
fn names_only_regular_files(tz: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(tz.strip_prefix(b":").unwrap_or(tz));
    let regular = |p: &std::path::Path| std::fs::metadata(p).map_or(true, |m| m.is_file());
    if name.is_empty() {
        return true;
    }
    if name.as_bytes().starts_with(b"/") {
        return regular(std::path::Path::new(name));
    }
    ZONE_DIRS.iter().all(|d| regular(&std::path::Path::new(d).join(name)))
}

pub use darshan_log::defaults::JOBID_ENVS;

/// The job id: the integer at the start of the variable named by
/// DARSHAN_JOBID (as `%d` reads it), else of the usual batch systems'
/// variables, else the pid.
pub fn job_id(var: &dyn Fn(&str) -> Option<String>, jobid_env: Option<&str>, pid: i64) -> i64 {
    let parse = |v: String| -> Option<i64> {
        let v = v.trim_start();
        let end = v.char_indices().take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && c == '-')).count();
        v[..end].parse::<i64>().ok()
    };
    let names: Vec<&str> = match jobid_env {
        Some("NONE") => vec![],
        Some(n) => vec![n],
        None => JOBID_ENVS.to_vec(),
    };
    names.into_iter().find_map(|n| var(n).and_then(parse)).unwrap_or(pid)
}

/// How many bytes of a user name a log's name keeps: C Darshan copies
/// the name into a `cuserid` buffer (`L_cuserid`, 9 with glibc, the NUL
/// included), so `LOGNAME=abcdefghijk` names its logs `abcdefgh_...`.
pub const USER_NAME_MAX: usize = 8;

/// The user in a log's name, as C Darshan picks it: the value of the
/// variable given at install (`username_env`, C's `--with-username-env`),
/// else LOGNAME, else the effective uid; empty values skipped, the name
/// cut to [`USER_NAME_MAX`] bytes.
pub fn user_name(var: &dyn Fn(&str) -> Option<std::ffi::OsString>, username_env: Option<&str>, euid: i64) -> String {
    let named = |n: &str| var(n).filter(|v| !v.is_empty());
    match username_env.and_then(named).or_else(|| named("LOGNAME")) {
        Some(v) => {
            let b = v.as_encoded_bytes();
            String::from_utf8_lossy(&b[..b.len().min(USER_NAME_MAX)]).into_owned()
        }
        None => euid.to_string(),
    }
}

/// The executable's short name (argv[0] basename), as `__progname`.
pub fn exe_short(cmdline: &str) -> String {
    let first = cmdline.split(' ').next().unwrap_or("");
    let base = first.rsplit('/').next().unwrap_or(first);
    if base.is_empty() {
        "unknown".into()
    } else {
        base.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_darshans_convention() {
        std::env::set_var("TZ", "UTC");
        let start = local(1795304959);
        let p = NameParts { user: "0", exe: "w", jobid: 5932, pid: 5932, start, rand: 3442990617731590516 };
        // 2026-11-21 23:49:19 UTC = 85759 s after midnight.
        assert_eq!(base_name(&p), "0_w_id5932-5932_11-21-85759-3442990617731590516");
        assert_eq!(dated_dir("/logs", start), "/logs/2026/11/21");
        let env = |n: &str| match n {
            "PBS_JOBID" => Some("1234.server".to_string()),
            "MYJOB" => Some("x".to_string()),
            _ => None,
        };
        assert_eq!(job_id(&env, None, 7), 1234);
        assert_eq!(job_id(&env, Some("MYJOB"), 7), 7);
        assert_eq!(job_id(&env, Some("NONE"), 7), 7);
        assert_eq!(exe_short("/tmp/b/posix_small /x 10 "), "posix_small");
    }

    /// C Darshan named a run with LOGNAME=abcdefghijklmno
    /// `abcdefgh_cat_id...` (3.5.0's non-MPI build, run here); ours kept
    /// the whole name. The installed variable comes first; empty values
    /// are passed over.
    #[test]
    fn a_long_user_name_is_cut_to_eight_bytes_as_in_c() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| std::ffi::OsString::from(v))
        };
        let long = env(&[("LOGNAME", "abcdefghijklmno")]);
        assert_eq!(user_name(&long, None, 7), "abcdefgh");
        let both = env(&[("LOGNAME", "login"), ("SITE_USER", "jdoe")]);
        assert_eq!(user_name(&both, Some("SITE_USER"), 7), "jdoe");
        assert_eq!(user_name(&both, Some("UNSET"), 7), "login");
        let empty = env(&[("LOGNAME", ""), ("SITE_USER", "")]);
        assert_eq!(user_name(&empty, Some("SITE_USER"), 7), "7");
    }

    /// A FIFO named by TZ (absolute, after ':', or relative to a zone
    /// directory by way of '..') is not a zone file to read; a missing
    /// file, a zone name and a POSIX TZ string are left to chrono.
    #[test]
    fn a_tz_that_names_a_fifo_is_not_read() {
        let dir = std::env::temp_dir().join(format!("darshan-tz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let abs = fifo.to_str().unwrap();
        assert!(!names_only_regular_files(abs.as_bytes()));
        assert!(!names_only_regular_files(format!(":{abs}").as_bytes()));
        assert!(!names_only_regular_files(format!("../../..{abs}").as_bytes()));
        assert!(names_only_regular_files(b"UTC"));
        assert!(names_only_regular_files(b"EST5EDT"));
        assert!(names_only_regular_files(b"/no/such/zone"));
        assert!(names_only_regular_files(b""));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
