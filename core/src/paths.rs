//! Record names: path cleaning (as Darshan hashes them) and the path
//! exclusion rules of semantics.md §10, without allocating.

use crate::config::Config;

pub const PATH_MAX: usize = 4096;

/// A cleaned path in a fixed buffer (no allocation in a wrapper's path).
pub struct CleanPath {
    buf: [u8; PATH_MAX],
    len: usize,
}

impl Default for CleanPath {
    fn default() -> Self {
        CleanPath { buf: [0; PATH_MAX], len: 0 }
    }
}

impl CleanPath {
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Clean `path` as Darshan does: names starting with `<` verbatim;
    /// a relative path gets `<cwd>/` in front (cwd from `dir`), then every
    /// `//` becomes `/` and every `/./` becomes `/`. No `..` or symlink
    /// resolution. False if the result does not fit.
    pub fn set(&mut self, dir: Option<&[u8]>, path: &[u8]) -> bool {
        self.len = 0;
        if path.first() == Some(&b'<') {
            return self.push_raw(path);
        }
        let mut src_ok = true;
        if path.first() != Some(&b'/') {
            if let Some(d) = dir {
                src_ok &= self.push_clean(d);
                if self.len == 0 || self.buf[self.len - 1] != b'/' {
                    src_ok &= self.push_clean(b"/");
                }
            }
        }
        src_ok && self.push_clean(path)
    }

    fn push_raw(&mut self, b: &[u8]) -> bool {
        if self.len + b.len() > PATH_MAX - 1 {
            return false;
        }
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
        true
    }

    fn push_clean(&mut self, b: &[u8]) -> bool {
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
            if self.len >= PATH_MAX - 1 {
                return false;
            }
            self.buf[self.len] = c;
            self.len += 1;
            i += 1;
        }
        true
    }
}

const EXCLUDED_PREFIXES: [&[u8]; 11] =
    [b"/etc/", b"/dev/", b"/usr/", b"/bin/", b"/boot/", b"/lib/", b"/opt/", b"/sbin/", b"/sys/", b"/proc/", b"/var/"];
const INCLUDED_PREFIXES: [&[u8]; 1] = [b"/var/opt/cray/dws/mounts/"];

/// Whether a record of `module` named `name` is not to be created: the
/// default prefixes or a NAME_EXCLUDE rule, unless a NAME_INCLUDE rule (or
/// Darshan's re-included prefix) matches.
pub fn excluded(cfg: &Config, module: usize, name: &[u8]) -> bool {
    let bit = 1u64 << module;
    let rule_hit =
        |rules: &[crate::config::NameRule]| rules.iter().any(|r| r.modules & bit != 0 && r.regex.is_match(name));
    let mut ex = EXCLUDED_PREFIXES.iter().any(|p| name.starts_with(p))
        && !INCLUDED_PREFIXES.iter().any(|p| name.starts_with(p));
    if !cfg.name_exclude.is_empty() && rule_hit(&cfg.name_exclude) {
        ex = true;
    }
    if ex && !cfg.name_include.is_empty() && rule_hit(&cfg.name_include) {
        ex = false;
    }
    ex
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(dir: Option<&str>, p: &str) -> String {
        let mut c = CleanPath::default();
        assert!(c.set(dir.map(str::as_bytes), p.as_bytes()));
        String::from_utf8(c.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn paths_are_cleaned_as_darshan_hashes_them() {
        assert_eq!(clean(None, "/tmp//a/./b"), "/tmp/a/b");
        assert_eq!(clean(Some("/home/u"), "x.dat"), "/home/u/x.dat");
        assert_eq!(clean(Some("/"), "./x"), "/x");
        assert_eq!(clean(Some("/a"), "../b"), "/a/../b");
        assert_eq!(clean(None, "<STDOUT>"), "<STDOUT>");
        assert_eq!(clean(None, "/a/././b//"), "/a/b/");
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
}
