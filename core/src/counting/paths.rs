//! Record names: path cleaning (as Darshan hashes them) and the path
//! exclusion rules of docs/counter-rules.md §10, without allocating.

use crate::config::{Config, ExcludeDirs};
use crate::store::ledger::Ledger;

pub const PATH_MAX: usize = 4096;

/// Capacity of the small path buffer wrappers try first (zeroing a
/// 4 KiB buffer on every open would cost more than the rest of the work).
pub const SHORT_PATH: usize = 512;

/// A cleaned path in a fixed buffer of `N` bytes (no allocation in a
/// wrapper's path).
pub struct CleanPath<const N: usize = PATH_MAX> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Default for CleanPath<N> {
    fn default() -> Self {
        CleanPath { buf: [0; N], len: 0 }
    }
}

impl<const N: usize> CleanPath<N> {
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Clean `path` as Darshan does: names starting with `<` verbatim;
    /// otherwise every `//` becomes `/` and every `/./` becomes `/`. No
    /// `..` or symlink resolution. A relative path gets its directory in
    /// front with [`CleanPath::set_under`]. False if the result does not
    /// fit.
    pub fn set(&mut self, path: &[u8]) -> bool {
        self.len = 0;
        if path.first() == Some(&b'<') {
            return self.push_raw(path);
        }
        self.push_clean(path)
    }

    /// Clean the relative `path` under a directory that `dir` writes at the
    /// start of the buffer (returning its length, None if it cannot). The
    /// directory is taken as written: it must be a name the kernel gave
    /// (getcwd, a `/proc/self/fd` link) or one already cleaned (a record's
    /// name), which have nothing to clean. So a relative call's name costs
    /// no second buffer, copy or scan of the directory (`git status`
    /// names its 2,000 files that way).
    pub fn set_under(&mut self, dir: impl FnOnce(&mut [u8]) -> Option<usize>, path: &[u8]) -> bool {
        self.len = 0;
        let room = N.min(PATH_MAX);
        match dir(&mut self.buf[..room]) {
            Some(n) if n < room => self.len = n,
            _ => return false,
        }
        // A record's name may end in `/.` (the name of `open(".")`): joined
        // to the path, that is a `/./`, which C Darshan's cleaning of the
        // joined name removes (`openat(dirfd, "f")` is `<dir>/f`, not
        // `<dir>/./f`).
        if self.buf[..self.len].ends_with(b"/.") {
            self.len -= 1;
        }
        let slash = self.len == 0 || self.buf[self.len - 1] != b'/';
        (!slash || self.push_raw(b"/")) && self.push_clean(path)
    }

    fn push_raw(&mut self, b: &[u8]) -> bool {
        if self.len + b.len() > N.min(PATH_MAX) - 1 {
            return false;
        }
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
        true
    }

    fn push_clean(&mut self, b: &[u8]) -> bool {
        // Most paths have nothing to clean: one scan, one copy.
        let joins_slash = self.len > 0 && self.buf[self.len - 1] == b'/' && matches!(b.first(), Some(b'/' | b'.'));
        if !joins_slash && !needs_cleaning(b) {
            return self.push_raw(b);
        }
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let after_slash = self.len > 0 && self.buf[self.len - 1] == b'/';
            if after_slash && c == b'/' {
                i += 1;
                continue;
            }
            if after_slash && c == b'.' && b.get(i + 1) == Some(&b'/') {
                i += 2;
                continue;
            }
            if self.len >= N.min(PATH_MAX) - 1 {
                return false;
            }
            self.buf[self.len] = c;
            self.len += 1;
            i += 1;
        }
        true
    }
}

/// Whether `b` contains `//` or `/.` (cleaning might change it).
#[inline]
fn needs_cleaning(b: &[u8]) -> bool {
    b.windows(2).any(|w| w[0] == b'/' && (w[1] == b'/' || w[1] == b'.'))
}

/// An absolute path that cleaning would leave as it is (the common case:
/// it can be hashed and matched without copying).
#[inline]
pub fn already_clean(path: &[u8]) -> bool {
    path.first() == Some(&b'/') && path.len() < PATH_MAX && !needs_cleaning(path)
}

pub(crate) const EXCLUDED_PREFIXES: [&[u8]; 11] =
    [b"/etc/", b"/dev/", b"/usr/", b"/bin/", b"/boot/", b"/lib/", b"/opt/", b"/sbin/", b"/sys/", b"/proc/", b"/var/"];
const INCLUDED_PREFIXES: [&[u8]; 1] = [b"/var/opt/cray/dws/mounts/"];

/// Whether a record of `module` named `name` is not to be created, as C
/// Darshan decides: a path prefix (Darshan's or DARSHAN_EXCLUDE_DIRS's, for
/// modules whose names are paths) or a NAME_EXCLUDE rule, unless Darshan's
/// prefix taken back (not with DARSHAN_EXCLUDE_DIRS's list) or a
/// NAME_INCLUDE rule matches.
pub fn excluded(cfg: &Config, module: usize, name: &[u8]) -> bool {
    let bit = 1u64 << module;
    let rule_hit =
        |rules: &[crate::config::NameRule]| rules.iter().any(|r| r.modules & bit != 0 && r.regex.is_match(name));
    // HEATMAP's records are named for their module, not a file.
    let is_path = module != darshan_log::modules::HEATMAP;
    let ex = is_path
        && match &cfg.exclude_dirs {
            ExcludeDirs::Default => starts_with_any(name, EXCLUDED_PREFIXES),
            ExcludeDirs::Nothing => false,
            ExcludeDirs::Listed(dirs) => starts_with_any(name, dirs.iter().map(|d| d.as_slice())),
        }
        || (!cfg.name_exclude.is_empty() && rule_hit(&cfg.name_exclude));
    let taken_back =
        || is_path && !matches!(cfg.exclude_dirs, ExcludeDirs::Listed(_)) && starts_with_any(name, INCLUDED_PREFIXES);
    ex && !taken_back() && (cfg.name_include.is_empty() || !rule_hit(&cfg.name_include))
}

fn starts_with_any<'a>(name: &[u8], prefixes: impl IntoIterator<Item = &'a [u8]>) -> bool {
    prefixes.into_iter().any(|p| name.starts_with(p))
}

/// A module's exclusion rules, readable without the module's lock: the
/// test a wrapper makes on a name before it locks anything (an open of a
/// system file then takes no lock). Set once, at attach; before that,
/// every name is left out (nothing is recorded before attach anyway).
pub struct NameFilter {
    module: usize,
    env: std::sync::OnceLock<(&'static Config, &'static Ledger)>,
}

impl NameFilter {
    pub const fn new(module: usize) -> NameFilter {
        NameFilter { module, env: std::sync::OnceLock::new() }
    }

    /// At attach (a second call keeps the first configuration: a
    /// process's runtime attaches a module once).
    pub fn set(&self, config: &'static Config, ledger: &'static Ledger) {
        let _ = self.env.set((config, ledger));
    }

    /// Whether the configuration leaves `name` out of this module.
    #[inline]
    pub fn excluded(&self, name: &[u8]) -> bool {
        self.env.get().is_none_or(|(c, _)| excluded(c, self.module, name))
    }

    /// Whether a record for `name`, which the module is about to make, is
    /// not to be made: as [`NameFilter::excluded`], and a name left out
    /// marks a module that has no room partial, as in Darshan.
    #[inline]
    pub fn refuses(&self, name: &[u8]) -> bool {
        let Some((c, ledger)) = self.env.get() else { return true };
        let out = excluded(c, self.module, name);
        if out {
            ledger.name_left_out(self.module);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `p` cleaned, under the directory `dir` if it is relative.
    fn clean(dir: Option<&'static str>, p: &str) -> String {
        let mut c: CleanPath = CleanPath::default();
        let ok = match dir {
            Some(d) => c.set_under(dir_writer(d), p.as_bytes()),
            None => c.set(p.as_bytes()),
        };
        assert!(ok, "{dir:?} {p}");
        String::from_utf8(c.as_bytes().to_vec()).unwrap()
    }

    /// Writes `d` at the start of the buffer, as getcwd does.
    fn dir_writer(d: &'static str) -> impl FnOnce(&mut [u8]) -> Option<usize> {
        move |buf: &mut [u8]| {
            let b = d.as_bytes();
            buf.get_mut(..b.len())?.copy_from_slice(b);
            Some(b.len())
        }
    }

    #[test]
    fn paths_are_cleaned_as_darshan_hashes_them() {
        assert_eq!(clean(None, "/tmp//a/./b"), "/tmp/a/b");
        assert_eq!(clean(Some("/home/u"), "x.dat"), "/home/u/x.dat");
        assert_eq!(clean(Some("/"), "./x"), "/x");
        assert_eq!(clean(Some("/a"), "../b"), "/a/../b");
        assert_eq!(clean(Some("/w/r"), "f//./g/"), "/w/r/f/g/");
        assert_eq!(clean(Some("/w/"), "./a/./b"), "/w/a/b");
        // The name of open(".") ends in "/."; C cleans the joined name.
        assert_eq!(clean(Some("/w/."), "f"), "/w/f");
        assert_eq!(clean(Some("/w/."), "./f"), "/w/f");
        assert_eq!(clean(Some("/."), "f"), "/f");
        assert_eq!(clean(Some("/w/.."), "f"), "/w/../f", "C does not resolve ..");
        assert_eq!(clean(None, "<STDOUT>"), "<STDOUT>");
        assert_eq!(clean(None, "/a/././b//"), "/a/b/");
        assert!(already_clean(b"/tmp/x.dat") && !already_clean(b"/tmp//x") && !already_clean(b"/a/./b"));
        assert!(!already_clean(b"rel/x") && !already_clean(b"/a/.hidden"), "conservative on /.");
        let mut short: CleanPath<8> = CleanPath::default();
        assert!(short.set(b"/a/b/c"));
        assert!(!short.set(b"/a/b/c/d/e"), "too long for 8 bytes (NUL kept free)");
    }

    /// A relative name whose directory does not fit, or which does not fit
    /// after its directory, is refused, never cut; no directory, no name.
    #[test]
    fn relative_names_too_long_for_the_buffer_are_refused() {
        let mut short: CleanPath<8> = CleanPath::default();
        assert!(short.set_under(dir_writer("/a"), b"bc"));
        assert_eq!(short.as_bytes(), b"/a/bc");
        assert!(!short.set_under(dir_writer("/a"), b"bcdef"), "7 bytes and the NUL do not fit in 8");
        assert!(!short.set_under(dir_writer("/abcdefg"), b"x"), "the directory fills the buffer");
        assert!(!short.set_under(|_| None, b"x"), "no directory: no name");
    }

    #[test]
    fn default_exclusions_and_reinclusion() {
        let c = Config::default();
        assert!(excluded(&c, 1, b"/etc/passwd"));
        assert!(excluded(&c, 1, b"/usr/lib/x.so"));
        assert!(!excluded(&c, 1, b"/usrdata/x"));
        assert!(!excluded(&c, 1, b"/var/opt/cray/dws/mounts/job/f"));
        assert!(!excluded(&c, 1, b"/tmp/x"));
    }

    /// C Darshan takes `/var/opt/cray/dws/mounts/` back after every
    /// exclusion but DARSHAN_EXCLUDE_DIRS's list, a NAME_EXCLUDE rule's
    /// too (ours took it back only from the default prefixes); the list
    /// is of plain prefixes and takes nothing back; HEATMAP's names are
    /// not paths.
    #[test]
    fn the_prefix_taken_back_and_darshan_exclude_dirs_as_c_decides() {
        let rule = |p: &str| crate::config::NameRule {
            pattern: p.into(),
            regex: crate::config::name_pattern(p).unwrap(),
            modules: u64::MAX,
        };
        let mut c = Config { name_exclude: vec![rule("cray")], ..Config::default() };
        assert!(!excluded(&c, 1, b"/var/opt/cray/dws/mounts/job/f"));
        assert!(excluded(&c, 1, b"/scratch/cray/f"));
        c.exclude_dirs = ExcludeDirs::parse("/scratch/a,/var/");
        assert!(excluded(&c, 1, b"/var/opt/cray/dws/mounts/job/f"));
        assert!(excluded(&c, 1, b"/scratch/a1") && !excluded(&c, 1, b"/etc/passwd"));
        assert!(!excluded(&c, darshan_log::modules::HEATMAP, b"/var/x"));
        c.exclude_dirs = ExcludeDirs::parse("none");
        assert!(!excluded(&c, 1, b"/etc/passwd") && excluded(&c, 1, b"/etc/cray"));
    }
}
