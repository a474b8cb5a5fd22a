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
        inputs.push((0..n).map(|i| if r().is_multiple_of(3) { r() as u8 } else { (i / 3) as u8 }).collect());
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

/// What a module's region holds: records of one size where the module's
/// are (else bytes, as the job record's).
fn shape_of(module: usize) -> Shape {
    use darshan_log::modules::{counter_names, MPIIO, POSIX, STDIO};
    if [POSIX, MPIIO, STDIO].contains(&module) {
        let (ints, floats) = counter_names(module);
        Shape::Records(16 + 8 * (ints.len() + floats.len()))
    } else {
        Shape::Bytes
    }
}

/// The regions of the corpus logs that the C runtime compressed as one
/// zlib stream: (what it holds, C's compressed size, bytes).
fn corpus_regions() -> Vec<(Shape, usize, Vec<u8>)> {
    use darshan_log::header::Header;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("the corpus") {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        let Ok(h) = Header::parse(&bytes, bytes.len() as u64) else { continue };
        if h.compression != darshan_log::Compression::Zlib {
            continue;
        }
        let regions = [(Shape::Bytes, h.job_map), (Shape::Names, h.name_map)].into_iter();
        for (shape, m) in regions.chain(h.mod_map.iter().enumerate().map(|(k, m)| (shape_of(k), *m))) {
            let (off, len) = (m.off as usize, m.len as usize);
            if len == 0 || off + len > bytes.len() {
                continue;
            }
            let mut d = flate2::read::ZlibDecoder::new(&bytes[off..off + len]);
            let mut raw = Vec::new();
            // One stream that is the whole region (MPI logs hold one per rank).
            if d.read_to_end(&mut raw).is_ok() && d.total_in() as usize == len {
                out.push((shape, len, raw));
            }
        }
    }
    out
}

/// Our encoding of `regions` decodes to them and is, in all, no larger
/// than the C runtime's.
fn no_larger_than_the_c_runtimes(regions: &[(Shape, usize, Vec<u8>)]) {
    let (mut c_total, mut ours_total) = (0, 0);
    for (shape, c_len, raw) in regions {
        let z = zlib_with(&mut Scratch::default(), raw, *shape);
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

/// Name tables in every shape the encoder must survive decode to
/// themselves: sorted and random paths, empty and 300-byte names, ids that
/// repeat the names' bytes (matches run into them), a last entry cut short
/// (no NUL), and a table that is only part of an id.
#[test]
fn name_tables_of_every_shape_decompress_to_themselves() {
    let mut r = xorshift(0x5851_F42D_4C95_7F2D);
    let table = |names: &[Vec<u8>], id: &mut dyn FnMut(usize) -> u64| -> Vec<u8> {
        let mut t = Vec::new();
        for (k, n) in names.iter().enumerate() {
            t.extend_from_slice(&id(k).to_le_bytes());
            t.extend_from_slice(n);
            t.push(0);
        }
        t
    };
    let sorted: Vec<Vec<u8>> = (0..3000).map(|k| format!("/scratch/run/out/f{k:05}.dat").into_bytes()).collect();
    let mut odd: Vec<Vec<u8>> = vec![vec![], b"x".to_vec(), vec![b'a'; 300], b"/tmp/a".to_vec(), vec![]];
    odd.extend((0..500).map(|k| format!("/p/{}/{k}", r() % 97).into_bytes()));
    let mut tables = vec![
        table(&sorted, &mut |_| r()),
        table(&odd, &mut |_| r()),
        // Ids of the names' own bytes, and of zeros.
        table(&sorted, &mut |_| u64::from_le_bytes(*b"/scratch")),
        table(&odd, &mut |k| if k % 2 == 0 { 0 } else { u64::MAX }),
    ];
    let cut = tables[0][..tables[0].len() - 5].to_vec();
    tables.push(cut);
    tables.push(vec![1, 2, 3]);
    tables.push(Vec::new());
    for (k, t) in tables.iter().enumerate() {
        let z = zlib_with(&mut Scratch::default(), t, Shape::Names);
        assert_eq!(inflate(&z), *t, "table {k}");
    }
}

/// Where the matches of `t`'s tokens (as `shape`) start.
fn match_starts(t: &[u8], shape: Shape) -> Vec<usize> {
    let mut m = matcher::Matcher::new(t, shape, (Vec::new(), Vec::new()));
    let mut out = Vec::new();
    while !m.done() {
        m.fill(&mut out, BLOCK_TOKENS);
    }
    let mut p = 0;
    let mut starts = Vec::new();
    for tk in out {
        if matches!(tk, Token::Match { .. }) {
            starts.push(p);
        }
        p += tk.span();
    }
    assert_eq!(p, t.len());
    starts
}

/// In a name table, no match starts inside an id (ids are never searched):
/// with ids that copy an earlier name's first bytes, the bytes matcher
/// finds them, the names matcher leaves them literals.
#[test]
fn name_table_ids_are_emitted_as_literals_without_a_search() {
    let name = |k: usize| format!("/j{k:05}/scratch/run.out").into_bytes();
    let mut t = Vec::new();
    let mut ids = Vec::new();
    for k in 0..200usize {
        ids.push(t.len());
        t.extend_from_slice(&name(k.saturating_sub(5))[..8]);
        t.extend_from_slice(&name(k));
        t.push(0);
    }
    let in_id = |p: &usize| ids.iter().any(|&s| (s..s + 8).contains(p));
    let names = match_starts(&t, Shape::Names);
    assert_eq!(names.iter().filter(|p| in_id(p)).count(), 0, "matches at ids");
    assert!(names.len() > 150, "the names still match each other");
    assert!(
        match_starts(&t, Shape::Bytes).iter().filter(|p| in_id(p)).count() > 150,
        "the bytes matcher finds the ids"
    );
}

/// Likewise in records of one size (the id is their first word), and not
/// in records said to vary in length (where ids are not where the stride
/// says).
#[test]
fn record_ids_are_emitted_as_literals_without_a_search() {
    const WORDS: usize = 12;
    let counters = |k: usize| -> Vec<u64> { (1..WORDS as u64).map(|w| (k as u64 / 3) * 100 + w).collect() };
    let mut t = Vec::new();
    for k in 0..300usize {
        // The id copies a counter of a record five back.
        t.extend_from_slice(&counters(k.saturating_sub(5))[2].to_le_bytes());
        counters(k).iter().for_each(|c| t.extend_from_slice(&c.to_le_bytes()));
    }
    let stride = WORDS * 8;
    let in_id = |p: &usize| p % stride < 8;
    let fixed = match_starts(&t, Shape::Records(stride));
    assert_eq!(fixed.iter().filter(|p| in_id(p)).count(), 0, "matches at ids");
    assert!(fixed.len() > 250, "the records still match each other");
    let var = match_starts(&t, Shape::VarRecords(stride));
    assert!(var.iter().filter(|p| in_id(p)).count() > 50, "ids searched where records vary");
}

/// Any bytes, said to be of any shape, decode to themselves: the shape
/// only steers the search (ids where the shape says, which may be
/// wrong), never what the stream holds. Random inputs built from repeats,
/// runs, NULs and noise, 300 seeds, around the block size too.
#[test]
fn any_bytes_of_any_shape_decompress_to_themselves() {
    for seed in 1..=300u64 {
        let mut r = xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let len = match seed % 4 {
            0 => (r() % 64) as usize,
            1 => (r() % 4096) as usize,
            2 => 16_000 + (r() % 40_000) as usize,
            _ => (r() % 200_000) as usize,
        };
        let mut d: Vec<u8> = Vec::with_capacity(len);
        while d.len() < len {
            match r() % 5 {
                0 => d.push(0),
                1 => d.extend((0..r() % 12).map(|_| r() as u8)),
                2 if d.len() > 8 => {
                    let from = (r() as usize) % d.len();
                    let n = ((r() % 300) as usize).min(d.len() - from);
                    d.extend_from_within(from..from + n);
                }
                3 => d.extend(std::iter::repeat_n(r() as u8, (r() % 40) as usize)),
                _ => d.extend_from_slice(b"/scratch/run/"),
            }
        }
        d.truncate(len);
        let stride = 8 * (1 + (r() % 100) as usize);
        for shape in [Shape::Names, Shape::Records(stride), Shape::VarRecords(stride), Shape::Bytes] {
            let z = zlib_with(&mut Scratch::default(), &d, shape);
            assert_eq!(inflate(&z), d, "seed {seed}, {shape:?}, {} bytes", d.len());
        }
    }
}
