use super::*;
use std::io::Read;

fn inflate(z: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(z).read_to_end(&mut out).expect("a valid zlib stream");
    out
}

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[test]
fn every_kind_of_small_input_decompresses_to_itself() {
    let mut r = xorshift(0x9E37_79B9_7F4A_7C15);
    let mut inputs: Vec<Vec<u8>> = vec![vec![], vec![0], vec![7; 2], b"abc".to_vec(), vec![0; MAX_INPUT]];
    inputs.push((0..MAX_INPUT).map(|_| r() as u8).collect());
    inputs.push((0..MAX_INPUT).map(|i| (i % 251) as u8).collect());
    inputs.push(b"/lustre/scratch/user/run42/output.h5 ".repeat(900)[..MAX_INPUT].to_vec());
    // Record-like words: mostly zero counters, a few small and random ones.
    let words: Vec<u64> = (0..4096)
        .map(|i| {
            if i % 88 == 0 {
                r()
            } else if i % 7 == 0 {
                i as u64 % 5
            } else {
                0
            }
        })
        .collect();
    inputs.push(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    for n in [1usize, 2, 3, 4, 5, 257, 258, 259, 4095, 4096, 4097, 30_000] {
        inputs.push((0..n).map(|i| if r() % 3 == 0 { r() as u8 } else { (i / 3) as u8 }).collect());
    }
    for (k, input) in inputs.iter().enumerate() {
        let z = zlib(input);
        assert_eq!(inflate(&z), *input, "input {k} ({} bytes)", input.len());
        assert!(z.len() <= input.len() + 11, "input {k}: {} bytes for {}", z.len(), input.len());
    }
}

#[test]
fn huffman_codes_never_exceed_the_length_limit_and_are_complete() {
    // Fibonacci frequencies give a tree as deep as there are symbols.
    let mut fib = vec![1u32, 1];
    while fib.len() < 40 {
        let n = fib.len();
        fib.push(fib[n - 1] + fib[n - 2]);
    }
    for limit in [7usize, 15] {
        let lens = code_lengths(&fib, limit);
        assert!(lens.iter().all(|&l| (1..=limit as u8).contains(&l)), "{lens:?}");
        let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
        assert!((kraft - 1.0).abs() < 1e-12, "Kraft sum {kraft}");
        // A more frequent symbol never gets a longer code.
        assert!(lens.windows(2).all(|w| w[0] >= w[1]), "{lens:?}");
    }
    // One used symbol still gets a complete code of two.
    let lens = code_lengths(&[0, 0, 5, 0], 15);
    assert_eq!(lens.iter().filter(|&&l| l == 1).count(), 2);
}

/// The regions of the corpus logs that the C runtime compressed as one
/// zlib stream of at most MAX_INPUT bytes: (C's compressed size, bytes).
fn corpus_regions() -> Vec<(usize, Vec<u8>)> {
    use darshan_log::header::Header;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/logs");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("the corpus") {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        let Ok(h) = Header::parse(&bytes, bytes.len() as u64) else { continue };
        if h.compression != darshan_log::Compression::Zlib {
            continue;
        }
        for m in [h.job_map, h.name_map].iter().chain(&h.mod_map) {
            let (off, len) = (m.off as usize, m.len as usize);
            if len == 0 || off + len > bytes.len() {
                continue;
            }
            let mut d = flate2::read::ZlibDecoder::new(&bytes[off..off + len]);
            let mut raw = Vec::new();
            // One stream that is the whole region (MPI logs hold one per rank).
            if d.read_to_end(&mut raw).is_ok() && d.total_in() as usize == len && raw.len() <= MAX_INPUT {
                out.push((len, raw));
            }
        }
    }
    out
}

#[test]
fn small_regions_are_no_larger_than_the_c_runtimes() {
    let regions = corpus_regions();
    assert!(regions.len() > 100, "only {} corpus regions", regions.len());
    let (mut c_total, mut ours_total) = (0, 0);
    for (c_len, raw) in &regions {
        let z = zlib(raw);
        assert_eq!(inflate(&z), *raw);
        c_total += c_len;
        ours_total += z.len();
    }
    eprintln!("{} regions: C {c_total} bytes, ours {ours_total}", regions.len());
    assert!(ours_total <= c_total, "C {c_total} bytes, ours {ours_total}");
}
