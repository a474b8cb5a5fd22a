//! Filters the runtime never saw installed: a launcher, a container
//! runtime or a service manager may put a process under a filter before
//! it executes the program, and the filter stays in force across execve.
//! The runtime cannot read such a filter (that takes CAP_SYS_ADMIN and a
//! tracer), so what it would do is unknown. For the work the log needs
//! (open, write, rename) nothing can be done: the runtime makes the calls
//! any program writing a file makes, as C Darshan does. A helper thread is
//! another matter: C Darshan starts none, and a filter that forbids new
//! tasks killed the program at exit, with SIGSYS, when the runtime
//! started one to compress a large log. So the shutdown starts helper
//! threads only when every filter on its thread is one it judged.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// Filters installed through the runtime's wrappers and judged harmless to
/// a helper thread's calls (one that was not already forbade threads).
static JUDGED: AtomicU32 = AtomicU32::new(0);

/// [`unjudged_filter`]'s answer once found: 0 not yet, 1 no, 2 yes. The
/// shutdown asks once per region it would compress on helper threads; the
/// status file is read at the first question only.
static ANSWER: AtomicU8 = AtomicU8::new(0);

/// A filter the program installed was judged and leaves threads free.
pub fn count_judged() {
    JUDGED.fetch_add(1, Ordering::AcqRel);
    ANSWER.store(0, Ordering::Release);
}

/// Whether a filter the runtime did not judge is in force on the calling
/// thread (the one that would start helper threads, which inherit its
/// filters). Reads /proc/thread-self/status; when that cannot be read,
/// answers yes: a thread not started costs time, one killed costs the job.
pub fn unjudged_filter() -> bool {
    match ANSWER.load(Ordering::Acquire) {
        1 => return false,
        2 => return true,
        _ => {}
    }
    let mut buf = [0u8; 4096];
    let yes = match read_status(&mut buf) {
        Some(n) => filters_beyond(&buf[..n], JUDGED.load(Ordering::Acquire)),
        None => true,
    };
    ANSWER.store(if yes { 2 } else { 1 }, Ordering::Release);
    yes
}

/// The status file into `buf` (about 1.5 KB; its Seccomp lines come well
/// before 4 KiB), without allocating: the shutdown may run with the
/// program's memory used up.
fn read_status(buf: &mut [u8]) -> Option<usize> {
    use std::io::Read;
    let mut f = crate::store::nofile::with_descriptor(|| std::fs::File::open("/proc/thread-self/status")).ok()?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(n)
}

/// From a status file's text: whether more filters are in force than the
/// `judged` ones. Mode 0 is no filter; mode 1 (strict) or a filter count
/// the kernel does not give (before Linux 5.9) is taken as unjudged.
fn filters_beyond(status: &[u8], judged: u32) -> bool {
    let field = |name: &str| {
        status.split(|&b| b == b'\n').find_map(|l| {
            let v = l.strip_prefix(name.as_bytes())?.strip_prefix(b":")?;
            std::str::from_utf8(v).ok()?.trim().parse::<u32>().ok()
        })
    };
    match field("Seccomp") {
        None | Some(0) => false,
        Some(2) => field("Seccomp_filters").is_none_or(|n| n > judged),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::filters_beyond;

    const HEAD: &str = "Name:\tsb\nUmask:\t0022\nState:\tR (running)\nNoNewPrivs:\t1\n";

    #[test]
    fn a_filter_inherited_across_exec_is_seen_and_a_judged_one_is_not_counted_twice() {
        let with = |mode: &str, filters: Option<&str>| {
            let mut s = format!("{HEAD}Seccomp:\t{mode}\n");
            if let Some(n) = filters {
                s += &format!("Seccomp_filters:\t{n}\n");
            }
            s + "Speculation_Store_Bypass:\tthread vulnerable\n"
        };
        assert!(!filters_beyond(with("0", Some("0")).as_bytes(), 0), "no filter");
        assert!(filters_beyond(with("2", Some("1")).as_bytes(), 0), "one nobody judged");
        assert!(!filters_beyond(with("2", Some("1")).as_bytes(), 1), "the one judged");
        assert!(filters_beyond(with("2", Some("2")).as_bytes(), 1), "one judged on top of an inherited one");
        assert!(filters_beyond(with("2", None).as_bytes(), 1), "an old kernel gives no count");
        assert!(filters_beyond(with("1", Some("0")).as_bytes(), 0), "strict mode");
        assert!(!filters_beyond(HEAD.as_bytes(), 0), "a kernel without seccomp");
    }

    #[test]
    fn this_test_process_reads_its_own_status() {
        // The test runner installs no filter (a sandboxed CI would).
        let mut buf = [0u8; 4096];
        let n = super::read_status(&mut buf).expect("readable");
        assert!(buf[..n].windows(8).any(|w| w == b"Seccomp:"), "the field is within the first 4 KiB");
    }
}
