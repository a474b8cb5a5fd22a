//! Every tool that reads logs, how the harness runs it on a mutant, and
//! what it may do: its documented exit statuses, whether an error must be
//! one line, and how much memory it may take.
//!
//! The memory bound of every tool is `base + per_byte × R`, where R is the
//! number of bytes the file's regions decompress to (at least the file's
//! size S; for the database tools, the largest file of the batch). The
//! reader refuses a region that expands more than `MAX_EXPANSION` (1100)
//! times, so R ≤ 1100 × S: every bound is a formula in the file's size.
//! The bases are what the tools take on a tiny log (the page renderer's
//! templates, SQLite's cache, threads); `per_byte` is what may grow with a
//! log: names, per-file tables, and for darshan-merge every record.
//! docs/robustness.md has the measured figures.

use std::ffi::OsString;
use std::path::Path;

/// What a tool runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// One log file.
    Log,
    /// A directory of mutants, into one database.
    Batch,
    /// The database a batch made.
    Database,
    /// A directory holding one mutant, named as job 1's crash-safe file
    /// (what the live reader and `darshan-merge --dir` look for).
    CrashSafeDir,
    /// A directory holding a lying thresholds file (`config.json`) and a
    /// seed log (`seed.darshan`).
    Config,
}

pub struct Tool {
    /// How the report names it.
    pub label: &'static str,
    pub exe: &'static str,
    pub input: Input,
    /// Arguments around the input (`{in}`) and a scratch file (`{out}`).
    pub args: &'static [&'static str],
    /// Documented exit statuses (a closed pipe's 141 never happens here:
    /// output goes to /dev/null).
    pub ok_codes: &'static [i32],
    /// A failure is said in one line of standard error (our own tools;
    /// the drop-in tools print what C's print).
    pub one_line_errors: bool,
    pub base_mib: u64,
    pub per_byte: u64,
}

impl Tool {
    pub fn argv(&self, input: &Path, scratch: &Path) -> Vec<OsString> {
        self.args
            .iter()
            .map(|a| match *a {
                "{in}" => input.as_os_str().to_owned(),
                "{out}" => scratch.as_os_str().to_owned(),
                a => match a.strip_prefix("{in}/") {
                    Some(inside) => input.join(inside).into_os_string(),
                    None => OsString::from(a),
                },
            })
            .collect()
    }

    /// The most memory (KiB of peak resident set) it may take for a file
    /// whose regions decompress to `unpacked` bytes.
    pub fn limit_kib(&self, unpacked: u64) -> u64 {
        self.base_mib * 1024 + self.per_byte * unpacked / 1024
    }
}

pub const TOOLS: &[Tool] = &[
    Tool {
        label: "darshan-parser --all",
        exe: "darshan-parser",
        input: Input::Log,
        args: &["--all", "--show-incomplete", "{in}"],
        ok_codes: &[0, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        label: "darshan-parser",
        exe: "darshan-parser",
        input: Input::Log,
        args: &["{in}"],
        ok_codes: &[0, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        // libdarshan-util's C API (ffi/util), every call, as a C program
        // or PyDarshan makes them: one record decoded at a time.
        label: "libdarshan-util (darshan-util-read)",
        exe: "darshan-util-read",
        input: Input::Log,
        args: &["{in}"],
        ok_codes: &[0, 1, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 2,
    },
    Tool {
        // A log given as the tree: counted, or said not to be one.
        label: "darshan-analyzer",
        exe: "darshan-analyzer",
        input: Input::Log,
        args: &["{in}"],
        ok_codes: &[0],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        label: "darshan-dxt-parser",
        exe: "darshan-dxt-parser",
        input: Input::Log,
        args: &["--show-incomplete", "{in}"],
        ok_codes: &[0, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        // The trace for Perfetto: written as it is read.
        label: "darshan-dxt-parser --perfetto",
        exe: "darshan-dxt-parser",
        input: Input::Log,
        args: &["--show-incomplete", "--perfetto", "{out}", "{in}"],
        ok_codes: &[0, 255],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        // The job as a fio benchmark: 1 when there is nothing to replay.
        label: "darshan-replay (fio job)",
        exe: "darshan-replay",
        input: Input::Log,
        args: &["{in}", "-o", "{out}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 2,
    },
    Tool {
        label: "darshan-replay --ior",
        exe: "darshan-replay",
        input: Input::Log,
        args: &["--ior", "{in}", "-o", "{out}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 2,
    },
    Tool {
        // Every DXT_POSIX segment as a fio iolog line, into a new
        // directory.
        label: "darshan-replay --exact",
        exe: "darshan-replay",
        input: Input::Log,
        args: &["--exact", "{in}", "-o", "{out}", "--dir", "/replayed"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 4,
    },
    Tool {
        // A damaged log against itself: both sides are read whole.
        label: "darshan-diff",
        exe: "darshan-diff",
        input: Input::Log,
        args: &["{in}", "{in}"],
        ok_codes: &[0, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 8,
    },
    Tool {
        label: "darshan-convert",
        exe: "darshan-convert",
        input: Input::Log,
        args: &["{in}", "{out}"],
        ok_codes: &[0, 255],
        one_line_errors: false,
        base_mib: 16,
        per_byte: 1,
    },
    Tool {
        label: "darshan-merge --shared-redux",
        exe: "darshan-merge",
        input: Input::Log,
        args: &["--shared-redux", "--output", "{out}", "{in}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 8,
    },
    Tool {
        label: "darshan-merge --job",
        exe: "darshan-merge",
        input: Input::Log,
        args: &["--job", "--output", "{out}", "{in}"],
        ok_codes: &[0, 1],
        // A line per input skipped, then what became of the job.
        one_line_errors: false,
        base_mib: 16,
        per_byte: 8,
    },
    Tool {
        label: "darshan-merge --dir --jobid",
        exe: "darshan-merge",
        input: Input::CrashSafeDir,
        args: &["--shared-redux", "--dir", "{in}", "--jobid", "1", "--output", "{out}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 16,
        per_byte: 8,
    },
    Tool {
        label: "darshan-top --once --json (live reader)",
        exe: "darshan-top",
        input: Input::CrashSafeDir,
        args: &["--once", "--json", "--interval", "0.01", "--dir", "{in}"],
        ok_codes: &[0],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 4,
    },
    Tool {
        label: "darshan-summary --config",
        exe: "darshan-summary",
        input: Input::Config,
        args: &["--json", "-o", "-", "--config", "{in}/config.json", "{in}/seed.darshan"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-summary (HTML)",
        exe: "darshan-summary",
        input: Input::Log,
        args: &["{in}", "-o", "{out}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-summary --text",
        exe: "darshan-summary",
        input: Input::Log,
        args: &["--text", "-o", "-", "{in}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-summary --pdf",
        exe: "darshan-summary",
        input: Input::Log,
        args: &["--pdf", "-o", "{out}", "{in}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-summary --json",
        exe: "darshan-summary",
        input: Input::Log,
        args: &["--json", "-o", "-", "{in}"],
        ok_codes: &[0, 1],
        one_line_errors: true,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-run --summary",
        exe: "darshan-run",
        input: Input::Log,
        args: &["--summary", "{in}"],
        ok_codes: &[0, 1],
        // Its summary is its output, on standard error.
        one_line_errors: false,
        base_mib: 32,
        per_byte: 2,
    },
    Tool {
        label: "darshan-ingest",
        exe: "darshan-ingest",
        input: Input::Batch,
        args: &["-q", "-j", "2", "--db", "{out}", "{in}"],
        ok_codes: &[0, 1],
        // One line per log that cannot be read.
        one_line_errors: false,
        base_mib: 64,
        per_byte: 2,
    },
    Tool {
        label: "darshan-study --json",
        exe: "darshan-study",
        input: Input::Database,
        args: &["--json", "--db", "{in}"],
        ok_codes: &[0, 2],
        one_line_errors: true,
        base_mib: 64,
        per_byte: 2,
    },
    Tool {
        label: "darshan-study (HTML)",
        exe: "darshan-study",
        input: Input::Database,
        args: &["--db", "{in}", "-o", "{out}"],
        ok_codes: &[0, 2],
        one_line_errors: true,
        base_mib: 64,
        per_byte: 2,
    },
];
