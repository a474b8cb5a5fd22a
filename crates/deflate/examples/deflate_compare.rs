//! Compares the runtime's encoder with zlib-rs's level 6 on every region
//! of the logs named on the command line: size and time of each.
//! `cargo run --release -p darshan-deflate --example deflate_compare -- LOG...`
use std::io::Read;
use std::time::Instant;

use darshan_deflate::{Scratch, Shape};
use darshan_log::header::Header;
use flate2::{Compress, Compression, FlushCompress};

/// The record size that best predicts the bytes (0 if none does).
fn stride(d: &[u8]) -> usize {
    let n = d.len().min(64 * 1024);
    let mut best = (0, 0usize);
    for s in (16..=2048).step_by(8) {
        if s * 4 > n {
            break;
        }
        let eq = (s..n).filter(|&i| d[i] == d[i - s]).count() * 1000 / (n - s);
        if eq > best.0 + 5 {
            best = (eq, s);
        }
    }
    if best.0 > 500 {
        best.1
    } else {
        0
    }
}

fn zlib_rs(d: &[u8]) -> Vec<u8> {
    let mut c = Compress::new(Compression::new(6), true);
    let mut out = Vec::with_capacity(d.len() + 1024);
    c.compress_vec(d, &mut out, FlushCompress::Finish).unwrap();
    out
}

/// A region's zlib streams, one after another, decompressed; None if the
/// region is not zlib.
fn inflate_region(region: &[u8]) -> Option<Vec<u8>> {
    let mut raw = Vec::new();
    let mut at = 0;
    while at < region.len() {
        let mut d = flate2::bufread::ZlibDecoder::new(&region[at..]);
        if d.read_to_end(&mut raw).is_err() {
            break;
        }
        at += d.total_in() as usize;
    }
    (at == region.len()).then_some(raw)
}

/// `f` run enough times to time it: its last result and seconds per run.
fn timed(raw: &[u8], mut f: impl FnMut() -> Vec<u8>) -> (Vec<u8>, f64) {
    let reps = (2_000_000 / raw.len().max(1)).clamp(1, 50);
    let t = Instant::now();
    let mut out = Vec::new();
    for _ in 0..reps {
        out = f();
    }
    (out, t.elapsed().as_secs_f64() / reps as f64)
}

/// One region: (ours, its time, zlib-rs, its time), ours checked by a
/// round trip.
fn compare(path: &str, off: u64, raw: &[u8], names: bool) -> (Vec<u8>, f64, Vec<u8>, f64, usize) {
    let s = if std::env::var_os("NOSTRIDE").is_some() || names { 0 } else { stride(raw) };
    // A guessed stride: candidates only (the runtime knows its records,
    // and skips their ids: Shape::Records).
    let shape = if names {
        Shape::Names
    } else if s == 0 {
        Shape::Bytes
    } else {
        Shape::VarRecords(s)
    };
    if let Some(dir) = std::env::var_os("DUMP") {
        let name = format!("{}-{}-{}.raw", path.rsplit('/').next().unwrap_or("log"), off, s);
        std::fs::write(std::path::Path::new(&dir).join(name), raw).unwrap();
    }
    let (ours, to) = timed(raw, || darshan_deflate::zlib_with(&mut Scratch::default(), raw, shape));
    let (rs, tr) = timed(raw, || zlib_rs(raw));
    let mut back = Vec::new();
    flate2::read::ZlibDecoder::new(&ours[..]).read_to_end(&mut back).unwrap();
    assert_eq!(back, raw, "round trip");
    (ours, to, rs, tr, s)
}

fn main() {
    let (mut t_ours, mut t_rs, mut s_ours, mut s_rs, mut s_c) = (0.0, 0.0, 0, 0, 0);
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        let h = Header::parse(&bytes, bytes.len() as u64).unwrap();
        for m in [h.job_map, h.name_map].iter().chain(&h.mod_map) {
            let (off, len) = (m.off as usize, m.len as usize);
            let Some(raw) = (len > 0).then(|| inflate_region(&bytes[off..off + len])).flatten() else { continue };
            let (ours, to, rs, tr, s) = compare(&path, m.off, &raw, m.off == h.name_map.off);
            if std::env::var_os("QUIET").is_none() {
                println!(
                    "{:>9} bytes stride {:>4}: in log {:>8}  ours {:>8} {:>8.3} ms  zlib-rs {:>8} {:>8.3} ms",
                    raw.len(),
                    s,
                    len,
                    ours.len(),
                    to * 1e3,
                    rs.len(),
                    tr * 1e3
                );
            }
            t_ours += to;
            t_rs += tr;
            s_ours += ours.len();
            s_rs += rs.len();
            s_c += len;
        }
    }
    println!("total: in logs {s_c}, ours {s_ours} in {:.3} ms, zlib-rs {s_rs} in {:.3} ms", t_ours * 1e3, t_rs * 1e3);
}
