//! The BG/Q module's platform: where the description of this process's
//! node comes from, asked once at start-up. On a BG/Q (built with
//! `--cfg darshan_bgq` and IBM's system headers: bgq_kernel.c) the kernel
//! and MPIX answer; `DARSHAN_BGQ_PERSONALITY=<file>` replays a recorded
//! one (darshan_bgq::Recorded: the tests, the hardware being retired);
//! anywhere else there is no node and the module writes nothing, at the
//! cost of one environment lookup.

use darshan_bgq::{BgqPlatform, Node, Recorded, BGQ};

use crate::clock;
use crate::host::say;

/// Start-up (rank `rank`, 0 without MPI): the job's record, if this is a
/// BG/Q or a recording says so.
pub fn capture(rank: i64) {
    // Switched off: not even the recording is read.
    if !darshan_core::runtime::core().ledger.enabled(darshan_log::modules::BGQ) {
        return;
    }
    if let Some(node) = node(rank) {
        BGQ.capture(&node, clock::now());
    }
}

fn node(rank: i64) -> Option<Node> {
    if let Some(node) = recorded(rank) {
        return Some(node);
    }
    #[cfg(darshan_bgq)]
    return kernel::Kernel.node(rank);
    #[cfg(not(darshan_bgq))]
    None
}

/// A recording larger than this is not one (a rank list of a million ids
/// is about 8 MB).
const MAX_RECORDING: u64 = 16 << 20;

fn recorded(rank: i64) -> Option<Node> {
    let path = std::env::var_os("DARSHAN_BGQ_PERSONALITY")?;
    let shown = std::path::Path::new(&path).display().to_string();
    let text = match darshan_core::config::read_regular_file(&path, MAX_RECORDING) {
        Ok(text) => text,
        Err(e) => {
            say(&format!("DARSHAN_BGQ_PERSONALITY: cannot read {shown}: {e}; no BG/Q record"));
            return None;
        }
    };
    match Recorded::parse(&text) {
        Ok(r) => r.node(rank),
        Err(e) => {
            say(&format!("DARSHAN_BGQ_PERSONALITY {shown}: {e}; no BG/Q record"));
            None
        }
    }
}

/// The hardware provider, only for BG/Q targets.
#[cfg(darshan_bgq)]
mod kernel {
    use darshan_bgq::{BgqPlatform, Node, Personality};

    extern "C" {
        /// bgq_kernel.c: the job id, processes per node and I/O node id in
        /// out[0..3]; then, if the personality could be read (returns 1),
        /// nodes, A..E, the wrap-around bits and DDR MiB in out[3..11].
        fn darshan_bgq_node(out: *mut i64) -> libc::c_int;
    }

    pub struct Kernel;

    impl BgqPlatform for Kernel {
        fn node(&self, _rank: i64) -> Option<Node> {
            let mut o = [0i64; 11];
            // SAFETY: `o` holds the 11 values the function writes.
            let full = unsafe { darshan_bgq_node(o.as_mut_ptr()) } == 1;
            let personality = full.then(|| Personality {
                nodes: o[3],
                dims: [o[4], o[5], o[6], o[7], o[8]],
                torus: std::array::from_fn(|i| o[9] >> i & 1 == 1),
                ddr_mb: o[10],
            });
            Some(Node { job_id: o[0], ranks_per_node: o[1], io_node_id: o[2], personality })
        }
    }
}
