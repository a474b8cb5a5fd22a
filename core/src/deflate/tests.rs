use super::huffman::code_lengths;
use super::matcher::Token;
use super::*;

/// The inputs the encoder once took alone (one block, no sliding).
const MAX_INPUT: usize = 32 * 1024;
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
        let z = zlib(input, 0);
        assert_eq!(inflate(&z), *input, "input {k} ({} bytes)", input.len());
        // Incompressible data costs a stored block's 5 bytes per 16,383.
        let bound = input.len() + 5 * input.len().div_ceil(BLOCK_TOKENS).max(1) + 6;
        assert!(z.len() <= bound, "input {k}: {} bytes for {}", z.len(), input.len());
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

/// The record size of a module's region in a log, where records are of one
/// size (0: not known, or not records).
fn stride_of(module: Option<usize>) -> usize {
    use darshan_log::modules::{counter_names, MPIIO, POSIX, STDIO};
    match module {
        Some(m) if [POSIX, MPIIO, STDIO].contains(&m) => {
            let (ints, floats) = counter_names(m);
            16 + 8 * (ints.len() + floats.len())
        }
        _ => 0,
    }
}

/// The regions of the corpus logs that the C runtime compressed as one
/// zlib stream: (module, C's compressed size, bytes). The job record and
/// name table have no module.
fn corpus_regions() -> Vec<(Option<usize>, usize, Vec<u8>)> {
    use darshan_log::header::Header;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/logs");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("the corpus") {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        let Ok(h) = Header::parse(&bytes, bytes.len() as u64) else { continue };
        if h.compression != darshan_log::Compression::Zlib {
            continue;
        }
        let regions = [(None, h.job_map), (None, h.name_map)].into_iter();
        for (module, m) in regions.chain(h.mod_map.iter().enumerate().map(|(k, m)| (Some(k), *m))) {
            let (off, len) = (m.off as usize, m.len as usize);
            if len == 0 || off + len > bytes.len() {
                continue;
            }
            let mut d = flate2::read::ZlibDecoder::new(&bytes[off..off + len]);
            let mut raw = Vec::new();
            // One stream that is the whole region (MPI logs hold one per rank).
            if d.read_to_end(&mut raw).is_ok() && d.total_in() as usize == len {
                out.push((module, len, raw));
            }
        }
    }
    out
}

/// Our encoding of `regions` decodes to them and is, in all, no larger
/// than the C runtime's.
fn no_larger_than_the_c_runtimes(regions: &[(Option<usize>, usize, Vec<u8>)]) {
    let (mut c_total, mut ours_total) = (0, 0);
    for (module, c_len, raw) in regions {
        let z = zlib(raw, stride_of(*module));
        assert_eq!(inflate(&z), *raw);
        c_total += c_len;
        ours_total += z.len();
    }
    eprintln!("{} regions: C {c_total} bytes, ours {ours_total}", regions.len());
    assert!(ours_total <= c_total, "C {c_total} bytes, ours {ours_total}");
}

#[test]
fn small_regions_are_no_larger_than_the_c_runtimes() {
    let regions: Vec<_> = corpus_regions().into_iter().filter(|r| r.2.len() <= MAX_INPUT).collect();
    assert!(regions.len() > 100, "only {} corpus regions", regions.len());
    no_larger_than_the_c_runtimes(&regions);
}

#[test]
fn large_regions_are_no_larger_than_the_c_runtimes() {
    // Name tables, DXT traces and records of up to 2 MiB (C wrote these
    // as one stream: non-MPI logs).
    let regions: Vec<_> = corpus_regions().into_iter().filter(|r| r.2.len() > MAX_INPUT).collect();
    assert!(regions.len() >= 9, "only {} large corpus regions", regions.len());
    no_larger_than_the_c_runtimes(&regions);
}

#[test]
fn records_of_every_stride_decompress_to_themselves() {
    let mut r = xorshift(0x2545_F491_4F6C_DD1D);
    // Record-like input: per record an id, a few changing words, and a
    // run of counters equal to the record before's.
    // Stride 0: the same records, not said to be records.
    for stride in [0usize, 16, 24, 248, 704, 11_000, 20_000, 40_000] {
        let layout = if stride == 0 { 704 } else { stride };
        let words = layout / 8;
        let recs = (1_500_000 / layout).clamp(3, 4000);
        let mut input = Vec::with_capacity(recs * words * 8);
        for k in 0..recs {
            for w in 0..words {
                let v = match w {
                    0 => r(),
                    1..=3 => k as u64 * 1000 + w as u64,
                    _ if w % 17 == 0 => r() % 7,
                    _ => w as u64,
                };
                input.extend_from_slice(&v.to_le_bytes());
            }
        }
        let z = zlib(&input, stride);
        assert_eq!(inflate(&z), input, "stride {stride}");
        // Records of a few hundred bytes are mostly counters equal to the
        // record before's (tiny ones are mostly their random id).
        if layout >= 248 {
            assert!(z.len() < input.len() / 4, "stride {stride}: {} bytes for {}", z.len(), input.len());
        }
    }
}

#[test]
fn a_stored_block_longer_than_65535_bytes_is_split() {
    let mut r = xorshift(7);
    let input: Vec<u8> = (0..150_000).map(|_| r() as u8).collect();
    let tokens: Vec<Token> = input.iter().map(|&b| Token::Literal(b)).collect();
    let mut w = huffman::BitWriter::new(input.len() + 64);
    w.out.extend_from_slice(&[0x78, 0x9c]);
    huffman::block(&mut w, &input, &tokens, true);
    w.align();
    w.out.extend_from_slice(&adler32(&input).to_be_bytes());
    assert_eq!(inflate(&w.out), input);
    // Three stored blocks: 5 bytes of header each.
    assert_eq!(w.out.len(), 2 + input.len() + 3 * 5 + 4);
}

#[test]
fn adler32_matches_zlibs() {
    let mut r = xorshift(11);
    for n in [0usize, 1, 15, 16, 17, 255, 256, 257, 5375, 5376, 5377, 5552, 10_769, 100_000] {
        let d: Vec<u8> = (0..n).map(|_| r() as u8).collect();
        let (mut a, mut b) = (1u32, 0u32);
        for &x in &d {
            a = (a + u32::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&d), b << 16 | a, "{n} bytes");
    }
    assert_eq!(adler32(&[255; 100_000]), {
        let (mut a, mut b) = (1u64, 0u64);
        for _ in 0..100_000 {
            a = (a + 255) % 65521;
            b = (b + a) % 65521;
        }
        (b << 16 | a) as u32
    });
}

#[test]
fn length_and_distance_code_tables_follow_rfc_1951() {
    use super::huffman::{dist_code, len_code, DIST_BASE, LEN_BASE};
    for len in 3..=258u16 {
        assert_eq!(len_code(len), LEN_BASE.partition_point(|&b| b <= len) - 1, "length {len}");
    }
    for dist in 1..=32768u32 {
        let d = dist as u16;
        assert_eq!(dist_code(d), DIST_BASE.partition_point(|&b| b <= d) - 1, "distance {dist}");
    }
}
