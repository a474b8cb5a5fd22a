//! A log's DXT traces as Chrome Trace Event JSON, which Perfetto
//! (ui.perfetto.dev) and Chrome's about:tracing open as they are: one
//! process per rank, one track per thread (DXT_POSIX v2, DXT_MPIIO v3 and
//! DXT_IO_URING keep thread ids) or, in older logs, per file, each
//! module on tracks of its own (MPI-IO calls contain the POSIX calls they
//! make, which would not nest on one track at DXT's time resolution);
//! each read or write a complete event ("X") with its file, offset and
//! length; the job's start is time zero. A log without DXT gives its heat
//! maps as counter tracks ("C"). Written as it is read, so a trace of any
//! size takes no more memory than its tracks' names; `max_events` bounds
//! what is written, and the trace says what was cut.

use std::collections::HashMap;
use std::io::{self, Write};

use darshan_log::modules::{self, is_dxt, module_name};
use darshan_log::{Extra, LogFile, NameTable, Record};

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Events written at most (segments and counter samples; the
    /// process and track names are always written).
    pub max_events: u64,
    /// Write the records of a module the runtime marked incomplete.
    pub show_incomplete: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_events: DEFAULT_MAX_EVENTS, show_incomplete: false }
    }
}

/// Perfetto's UI loads a few million events in a browser tab's memory.
pub const DEFAULT_MAX_EVENTS: u64 = 5_000_000;

/// What a trace holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// DXT segments in the log, and how many were written.
    pub segments: u64,
    pub segment_events: u64,
    /// Heat map samples written (a log without DXT).
    pub counter_events: u64,
    /// Events left out by `max_events`.
    pub cut: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{0}")]
    Log(#[from] darshan_log::LogError),
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error(
        "the log's {0} data is incomplete (the runtime ran out of memory for it); --show-incomplete writes what it has"
    )]
    Incomplete(&'static str),
}

/// A JSON string of possibly non-UTF-8 bytes (lossy, as every tool of
/// ours shows names).
fn json_str(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A time in seconds as the format's microseconds (to the nanosecond).
fn micros(s: f64) -> String {
    if s.is_finite() {
        format!("{:.3}", (s * 1e6).max(0.0))
    } else {
        "0".to_string()
    }
}

struct Emitter<'w, W: Write> {
    out: &'w mut W,
    first: bool,
    opts: Options,
    written: Written,
    /// (rank) → named; (rank, module, key) → track id.
    ranks: HashMap<i64, ()>,
    tracks: HashMap<(i64, usize, u64), u64>,
}

impl<W: Write> Emitter<'_, W> {
    fn raw(&mut self, event: &str) -> io::Result<()> {
        self.out.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        self.out.write_all(event.as_bytes())
    }

    /// Room for one more segment or sample; counts what is cut.
    fn room(&mut self) -> bool {
        let n = self.written.segment_events + self.written.counter_events;
        if n < self.opts.max_events {
            return true;
        }
        self.written.cut += 1;
        false
    }

    fn process(&mut self, rank: i64, host: &[u8]) -> io::Result<()> {
        if self.ranks.insert(rank, ()).is_none() {
            let name = if host.is_empty() {
                format!("rank {rank}")
            } else {
                format!("rank {rank} on {}", String::from_utf8_lossy(host))
            };
            self.raw(&format!(
                "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":0,\"args\":{{\"name\":{}}}}}",
                json_str(name.as_bytes())
            ))?;
            self.raw(&format!("{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{rank},\"tid\":0,\"args\":{{\"sort_index\":{rank}}}}}"))?;
        }
        Ok(())
    }

    /// The track of (rank, module, thread or file), named at first use.
    fn track(&mut self, rank: i64, module: usize, key: u64, name: impl FnOnce() -> String) -> io::Result<u64> {
        if let Some(t) = self.tracks.get(&(rank, module, key)) {
            return Ok(*t);
        }
        let tid = self.tracks.len() as u64 + 1;
        self.tracks.insert((rank, module, key), tid);
        self.raw(&format!(
            "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
            json_str(name().as_bytes())
        ))?;
        Ok(tid)
    }
}

/// The module's label in darshan-dxt-parser's output.
pub fn dxt_label(module: usize) -> &'static str {
    match module {
        modules::DXT_POSIX => "X_POSIX",
        modules::DXT_MPIIO => "X_MPIIO",
        _ => "X_IO_URING",
    }
}

/// Writes the trace of `log` to `out`.
pub fn write(log: &LogFile, log_name: &str, out: &mut impl Write, opts: Options) -> Result<Written, TraceError> {
    let names = log.names()?;
    out.write_all(b"{\"traceEvents\":[")?;
    let mut e =
        Emitter { out, first: true, opts, written: Written::default(), ranks: HashMap::new(), tracks: HashMap::new() };
    let dxt: Vec<usize> = log.modules_present().into_iter().filter(|m| is_dxt(*m)).collect();
    let from = if dxt.is_empty() { vec![modules::HEATMAP] } else { dxt };
    for module in from.into_iter().filter(|m| log.header.mod_map[*m].len > 0) {
        if log.header.is_partial(module) && !opts.show_incomplete {
            return Err(TraceError::Incomplete(module_name(module)));
        }
        let mut rd = log.module_reader(module)?;
        let mut rec = Record::new(module);
        while rd.next_into(&mut rec)? {
            match &rec.extra {
                Extra::Dxt { .. } => segments(&mut e, &rec, &names)?,
                Extra::Heatmap { .. } => samples(&mut e, &rec, &names)?,
                _ => {}
            }
        }
    }
    let w = e.written;
    let note = if w.cut > 0 {
        format!("{} of the log's events were left out: at most {} are written (--max-events)", w.cut, opts.max_events)
    } else {
        String::new()
    };
    write!(
        out,
        "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{{\"log\":{},\"time_zero\":\"the job's start\",\"dxt_segments\":{},\"segment_events\":{},\"counter_events\":{},\"cut_events\":{},\"note\":{}}}}}\n",
        json_str(log_name.as_bytes()),
        w.segments,
        w.segment_events,
        w.counter_events,
        w.cut,
        json_str(note.as_bytes())
    )?;
    Ok(w)
}

fn segments<W: Write>(e: &mut Emitter<W>, rec: &Record, names: &NameTable) -> io::Result<()> {
    let Extra::Dxt { hostname, writes, reads, .. } = &rec.extra else { return Ok(()) };
    let host = &hostname[..hostname.iter().position(|&c| c == 0).unwrap_or(hostname.len())];
    e.process(rec.rank, host)?;
    let name = names.get(rec.id).unwrap_or(b"(null)");
    let file = json_str(name);
    let label = dxt_label(rec.module);
    let layer = module_name(rec.module).trim_start_matches("DXT_");
    for (op, segs) in [("write", writes), ("read", reads)] {
        for (i, s) in segs.iter().enumerate() {
            e.written.segments += 1;
            if !e.room() {
                continue;
            }
            let (key, what) = match s.pthread_id {
                Some(t) => (t, format!("{layer} thread {t}")),
                None => (rec.id, format!("{layer} {}", String::from_utf8_lossy(name))),
            };
            let tid = e.track(rec.rank, rec.module, key, || what)?;
            let dur = if s.end_time > s.start_time { s.end_time - s.start_time } else { 0.0 };
            e.raw(&format!(
                "{{\"name\":\"{op}\",\"cat\":\"{label}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\"tid\":{tid},\"args\":{{\"file\":{file},\"offset\":{},\"length\":{},\"segment\":{i}}}}}",
                micros(s.start_time),
                micros(dur),
                rec.rank,
                s.offset,
                s.length
            ))?;
            e.written.segment_events += 1;
        }
    }
    Ok(())
}

/// A heat map's bins as one counter track per (rank, source): bytes read
/// and written per second of each bin.
fn samples<W: Write>(e: &mut Emitter<W>, rec: &Record, names: &NameTable) -> io::Result<()> {
    let Extra::Heatmap { bin_width, write_bins, read_bins } = &rec.extra else { return Ok(()) };
    if !(bin_width.is_finite() && *bin_width > 0.0) {
        return Ok(());
    }
    e.process(rec.rank, b"")?;
    let source = names.get(rec.id).map_or_else(|| "heatmap".to_string(), |n| String::from_utf8_lossy(n).into_owned());
    let counter = json_str(format!("{} bytes/s", source.trim_start_matches("heatmap:")).as_bytes());
    for (bin, (r, w)) in read_bins.iter().zip(write_bins).enumerate() {
        if !e.room() {
            continue;
        }
        e.raw(&format!(
            "{{\"name\":{counter},\"ph\":\"C\",\"ts\":{},\"pid\":{},\"args\":{{\"read\":{},\"write\":{}}}}}",
            micros(bin as f64 * bin_width),
            rec.rank,
            *r as f64 / bin_width,
            *w as f64 / bin_width
        ))?;
        e.written.counter_events += 1;
    }
    Ok(())
}

/// `--perfetto OUT`: the trace of the log at `path` to a new file (or
/// standard output for `-`); one line on standard error says what was
/// written, or why not. The exit status: 0, or 255 as darshan-dxt-parser
/// for a log it cannot read.
pub fn cli(path: &str, out: &str, opts: Options) -> i32 {
    let say = |m: String| crate::say!("darshan-dxt-parser: {}", crate::visible::visible(&m));
    let log = match LogFile::open(std::path::Path::new(path)) {
        Ok(l) => l,
        Err(e) => {
            say(format!("{path}: {e}"));
            return 255;
        }
    };
    let done = if out == "-" {
        let mut w = io::BufWriter::new(io::stdout().lock());
        write(&log, path, &mut w, opts).and_then(|w0| w.flush().map(|_| w0).map_err(TraceError::from))
    } else {
        to_new_file(&log, path, std::path::Path::new(out), opts)
    };
    match done {
        Ok(w) => {
            let cut = if w.cut > 0 {
                format!("; {} left out (--max-events {})", w.cut, opts.max_events)
            } else {
                String::new()
            };
            if out != "-" {
                say(format!("{out}: {} DXT segments, {} heat map samples{cut}", w.segment_events, w.counter_events));
            } else if w.cut > 0 {
                say(format!("{} events left out (--max-events {})", w.cut, opts.max_events));
            }
            0
        }
        // A closed pipe ends the tool quietly.
        Err(TraceError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => 141,
        Err(e) => {
            say(format!("{path}: {e}"));
            255
        }
    }
}

/// The trace of `log` (named `path` in it) as the new file `out`, whole or
/// not at all; an existing file is never replaced.
pub fn to_new_file(log: &LogFile, path: &str, out: &std::path::Path, opts: Options) -> Result<Written, TraceError> {
    let (new, file) = darshan_log::safe_fs::NewFile::create(out)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    let written = write(log, path, &mut w, opts)?;
    let file = w.into_inner().map_err(|e| e.into_error())?;
    new.publish(file, 0o644)?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_json_whatever_their_bytes() {
        assert_eq!(json_str(b"a\"b\\c\n\x1b"), "\"a\\\"b\\\\c\\u000a\\u001b\"");
        assert_eq!(json_str(b"\xff/x"), "\"\u{fffd}/x\"");
        assert_eq!(micros(1.5e-6), "1.500");
        assert_eq!(micros(f64::NAN), "0");
    }
}
