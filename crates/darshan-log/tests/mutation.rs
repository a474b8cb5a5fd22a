//! Mutation test of the reader: truncations, flipped bytes and absurd
//! sizes applied to real logs must give an error or data, never a panic,
//! a hang or a giant allocation. Bounded: a fixed number of cases from a
//! fixed seed, so CI time is constant.

use std::path::Path;

use darshan_log::modules::MAX_MODS;
use darshan_log::{LogFile, Record};

fn corpus(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs").join(name);
    std::fs::read(p).unwrap()
}

/// Read everything a tool would read; errors are fine, panics are not.
fn exercise(bytes: Vec<u8>) -> usize {
    let log = match LogFile::from_source(bytes) {
        Ok(l) => l,
        Err(_) => return 0,
    };
    let _ = log.job.mounts();
    let _ = log.names();
    let mut n = 0;
    for m in 0..MAX_MODS {
        if log.header.mod_map[m].len == 0 {
            continue;
        }
        let Ok(mut rd) = log.module_reader(m) else { continue };
        let mut r = Record::default();
        // A record stream can only be as long as its decompressed bytes;
        // cap the loop anyway so a bug shows up as a failure, not a hang.
        for _ in 0..1_000_000 {
            match rd.next_into(&mut r) {
                Ok(true) => n += 1,
                _ => break,
            }
        }
    }
    n
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mutated_logs_never_panic() {
    let seeds = [
        "release_logs__mpi-io-test-x86_64-3.5.0.darshan",
        "release_logs__mpi-io-test-ppc64-3.0.0.darshan",
        "release_logs__mpi-io-test-x86_64-3.1.3.darshan",
        "mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan",
        "runtime_heatmap_inactive_ranks__treddy_runtime_heatmap_inactive_ranks.darshan",
        "empty_log__empty_log.darshan",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut cases = 0;
    for s in seeds {
        let orig = corpus(s);
        assert!(exercise(orig.clone()) > 0 || s.starts_with("empty"));
        // every truncation point in the header and a spread through the rest
        for cut in (0..orig.len().min(1400)).step_by(7).chain((1400..orig.len()).step_by(97)) {
            exercise(orig[..cut].to_vec());
            cases += 1;
        }
        for _ in 0..400 {
            let mut b = orig.clone();
            let flips = 1 + rng.next() % 8;
            for _ in 0..flips {
                let i = (rng.next() as usize) % b.len();
                b[i] ^= 1 << (rng.next() % 8);
            }
            exercise(b);
            cases += 1;
        }
        // absurd sizes in the region map
        for slot in 0..20 {
            let mut b = orig.clone();
            let off = 32 + 8 * slot;
            if off + 8 <= b.len() {
                b[off..off + 8].copy_from_slice(&u64::MAX.wrapping_sub(slot as u64).to_le_bytes());
                exercise(b);
                cases += 1;
            }
        }
    }
    assert!(cases > 2000);
}

#[test]
fn error_messages_name_the_problem() {
    let e = LogFile::from_source(b"hello world, not a log at all, definitely".to_vec()).err().unwrap();
    assert!(e.to_string().contains("not a Darshan log"), "{e}");
    let good = corpus("release_logs__mpi-io-test-x86_64-3.5.0.darshan");
    let e = LogFile::from_source(good[..100].to_vec()).err().unwrap();
    assert!(e.to_string().contains("too short"), "{e}");
    // A crash-safe file killed before its header (written last) was.
    for unmade in [Vec::new(), vec![0u8; 8192]] {
        let e = LogFile::from_source(unmade).err().unwrap();
        assert!(e.to_string().contains("killed while it made it"), "{e}");
    }
    let e = LogFile::from_source(good[..good.len() - 10].to_vec()).err().unwrap();
    assert!(e.to_string().contains("outside the file"), "{e}");
}
