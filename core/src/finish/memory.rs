//! Whether the shutdown's memory can be had, asked before any of it is
//! taken. Rust ends a process whose allocation fails with `abort`: at the
//! program's exit that turned its success into SIGABRT and a core dump
//! under an address space limit (`ulimit -v`; Grid Engine's h_vmem sets
//! it) or strict overcommit (vm.overcommit_memory=2), once the program
//! had used most of what it may. The shutdown's memory follows from what
//! the records hold, so it is asked for once, in one piece that is given
//! back at once (address space only: no page is touched); when it cannot
//! be had the log is not written, one line says why, and the records stay
//! in the crash-safe file for darshan-merge.

use crate::finish::pipeline::ShutdownError;

/// Beyond the records: the encoder's tables and tokens (at most 320 KiB,
/// crates/deflate), the log's name and the small vectors on the way.
const FIXED: usize = 512 << 10;

/// Ok when the shutdown of this process's records can have its memory.
pub fn enough() -> Result<(), ShutdownError> {
    let bytes = need();
    let mut probe = Vec::<u8>::new();
    probe.try_reserve_exact(bytes).map_err(|_| ShutdownError::Memory { bytes })
}

/// The shutdown's peak in bytes, from above: every record and name copied twice
/// (the compressed streams, then the log they are assembled into; a
/// region compressed where it lies needs no copy of its own), and so are
/// the traces a module holds outside DARSHAN_MODMEM (DXT's), whose words
/// in the log's layout are written a piece at a time (`PIECES`).
pub fn need() -> usize {
    let core = crate::runtime::core();
    let Some(cfg) = core.config() else { return FIXED };
    let records = cfg.mod_mem.saturating_sub(core.ledger.budget_left());
    let names = core.ledger.with_names(|n| n.packed().len()).unwrap_or(0);
    let mut traces = 0usize;
    core.each_module(&mut |m| traces = traces.saturating_add(m.own_bytes()));
    shutdown_bytes(records, names, traces)
}

/// A long trace's words in the log's layout while they are compressed:
/// a piece and the encoder's memory per compressing thread (at most 4 of
/// 1 MiB and 320 KiB, compress.rs), and the records waiting to be
/// compressed together (a megabyte) and the one being laid out (under a
/// megabyte).
const PIECES: usize = 8 << 20;

fn shutdown_bytes(records: usize, names: usize, traces: usize) -> usize {
    let traces = if traces > 0 { traces.saturating_mul(2).saturating_add(PIECES) } else { 0 };
    records.saturating_add(names).saturating_mul(2).saturating_add(traces).saturating_add(FIXED)
}

#[cfg(test)]
mod tests {
    use super::{shutdown_bytes, FIXED, PIECES};

    /// The estimate grows with what is recorded, never wraps, and a
    /// process with nothing recorded asks for the fixed part only.
    #[test]
    fn the_shutdowns_memory_follows_the_records_and_never_wraps() {
        assert_eq!(shutdown_bytes(0, 0, 0), FIXED);
        assert_eq!(shutdown_bytes(1000, 24, 10), 2 * 1024 + 20 + PIECES + FIXED);
        assert_eq!(shutdown_bytes(1000, 24, 0), 2 * 1024 + FIXED);
        assert_eq!(shutdown_bytes(usize::MAX, 1, 1), usize::MAX);
    }
}
