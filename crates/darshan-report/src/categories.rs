//! Data access by category: bytes and files read and written per file
//! system root (PyDarshan's grouping), per mount point of the job's mount
//! table, and per directory. POSIX and STDIO only, as PyDarshan.

use std::collections::BTreeMap;

use darshan_log::job::{mount_of, Mount};
use darshan_log::{modules, NameTable};

use crate::files::Files;
use crate::model::{Categories, Category};

/// PyDarshan's `convert_file_path_to_root_path`: the first two path parts
/// joined ("/scratch1/x/y" → "/scratch1"); "//x" → "/"; digits mean an
/// anonymized standard stream.
pub fn root_of(path: &str) -> String {
    // pathlib keeps exactly two leading slashes as a root of their own.
    if path.starts_with("//") && !path.starts_with("///") {
        return "/".to_string();
    }
    let parts: Vec<&str> = if let Some(rest) = path.strip_prefix('/') {
        std::iter::once("/").chain(rest.split('/').filter(|p| !p.is_empty())).collect()
    } else {
        path.split('/').filter(|p| !p.is_empty()).collect()
    };
    let root: String = parts.iter().take(2).copied().collect();
    if !root.is_empty() && root.bytes().all(|b| b.is_ascii_digit()) {
        return format!("anonymized ({root})");
    }
    if root.starts_with("//") {
        return "/".to_string();
    }
    root
}

/// The directory category that holds every file of software loading.
pub const SOFTWARE: &str = "(software loading)";

fn dir_of(path: &str) -> String {
    match path.rfind('/') {
        Some(0) => "/".to_string(),
        Some(i) => path[..i].to_string(),
        None => path.to_string(),
    }
}

#[derive(Default)]
struct Acc {
    bytes_read: i64,
    bytes_written: i64,
    files_read: u64,
    files_written: u64,
}

fn finish(map: BTreeMap<String, Acc>) -> Vec<Category> {
    let mut v: Vec<Category> = map
        .into_iter()
        .map(|(name, a)| Category {
            name,
            bytes_read: a.bytes_read,
            bytes_written: a.bytes_written,
            files_read: a.files_read,
            files_written: a.files_written,
        })
        .collect();
    v.sort_by(|a, b| (b.bytes_read + b.bytes_written).cmp(&(a.bytes_read + a.bytes_written)).then(a.name.cmp(&b.name)));
    v
}

pub fn categorize(files: &Files, names: &NameTable, mounts: &[Mount], max_dirs: usize) -> Categories {
    let mut root: BTreeMap<String, Acc> = BTreeMap::new();
    let mut mount: BTreeMap<String, Acc> = BTreeMap::new();
    let mut dir: BTreeMap<String, Acc> = BTreeMap::new();
    for e in files.iter().filter(|e| e.module == modules::POSIX || e.module == modules::STDIO) {
        if e.bytes_read() < 1 && e.bytes_written() < 1 {
            continue;
        }
        // A file seen by both POSIX and STDIO counts once (PyDarshan
        // counts distinct paths), its bytes from both.
        let other = if e.module == modules::POSIX { modules::STDIO } else { modules::POSIX };
        let twin = files.get(other, e.id);
        let counted = |read: bool| {
            e.module == modules::STDIO
                && twin.is_some_and(|t| if read { t.bytes_read() >= 1 } else { t.bytes_written() >= 1 })
        };
        let name_bytes = names.get(e.id).unwrap_or(b"<unknown>");
        let name = String::from_utf8_lossy(name_bytes);
        let m = mount_of(mounts, name_bytes)
            .map(|m| format!("{} ({})", String::from_utf8_lossy(&m.path), String::from_utf8_lossy(&m.fs_type)))
            .unwrap_or_else(|| "(no mount point)".to_string());
        // By directory (ours): software loading is one category, not the
        // environment's many package directories.
        let directory = match darshan_log::software::software_loading(&name) {
            Some(_) => SOFTWARE.to_string(),
            None => dir_of(&name),
        };
        for (map, key) in [(&mut root, root_of(&name)), (&mut mount, m), (&mut dir, directory)] {
            let a = map.entry(key).or_default();
            if e.bytes_read() >= 1 {
                a.bytes_read += e.bytes_read();
                a.files_read += u64::from(!counted(true));
            }
            if e.bytes_written() >= 1 {
                a.bytes_written += e.bytes_written();
                a.files_written += u64::from(!counted(false));
            }
        }
    }
    let mut by_directory = finish(dir);
    by_directory.truncate(max_dirs);
    Categories { by_root: finish(root), by_mount: finish(mount), by_directory }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_follow_pydarshan() {
        assert_eq!(root_of("/scratch1/scratchdirs/glock/testFile.00000046"), "/scratch1");
        assert_eq!(root_of("<STDOUT>"), "<STDOUT>");
        assert_eq!(root_of("/file"), "/file");
        assert_eq!(root_of("12345"), "anonymized (12345)");
        assert_eq!(root_of("//2446001947"), "/");
        assert_eq!(root_of("///a/b"), "/a");
        assert_eq!(dir_of("/a/b/c"), "/a/b");
        assert_eq!(dir_of("/c"), "/");
    }
}
