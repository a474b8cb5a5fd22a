//! Deflate's entropy coding (RFC 1951): length-limited Huffman codes
//! and one block of tokens in whichever of the stored, fixed and dynamic
//! forms is smallest.

use super::matcher::Token;

pub(super) const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
pub(super) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/// The order code-length code lengths are sent in (RFC 1951 3.2.7).
const CL_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// Length code (0..29) of every match length 0..=258 (below 3: unused).
const LEN_CODE: [u8; 259] = {
    let mut t = [0u8; 259];
    let mut c = 0;
    let mut len = 3;
    while len <= 258 {
        while c + 1 < 29 && LEN_BASE[c + 1] as usize <= len {
            c += 1;
        }
        t[len] = c as u8;
        len += 1;
    }
    t
};

/// Distance code of distances 1..=256 at `d - 1`, and of the longer ones
/// at `256 + ((d - 1) >> 7)` (zlib's `_dist_code`).
const DIST_CODE: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut c = 0;
    let mut d = 1;
    while d <= 32768 {
        while c + 1 < 30 && DIST_BASE[c + 1] as usize <= d {
            c += 1;
        }
        if d <= 256 {
            t[d - 1] = c as u8;
        } else {
            t[256 + ((d - 1) >> 7)] = c as u8;
        }
        d += 1;
    }
    t
};

#[inline]
pub(super) fn len_code(len: u16) -> usize {
    LEN_CODE[len as usize] as usize
}

#[inline]
pub(super) fn dist_code(dist: u16) -> usize {
    let d = dist as usize - 1;
    DIST_CODE[if d < 256 { d } else { 256 + (d >> 7) }] as usize
}

/// Huffman code lengths for `freq`, none longer than `limit`.
pub(super) fn code_lengths(freq: &[u32], limit: usize) -> Vec<u8> {
    let mut lens = vec![0u8; freq.len()];
    code_lengths_into(freq, limit, &mut lens);
    lens
}

/// Most symbols of any deflate alphabet (literal/length: 286 used).
const MAX_SYMS: usize = 288;

/// Huffman code lengths for `freq` into `lens` (as long as `freq`), none
/// longer than `limit` (miniz's way of bringing an over-long code back
/// within the limit: lengthen the shortest codes that can be lengthened
/// until the Kraft sum is one). Works on the stack: a short process's
/// log is a few tiny blocks, where allocating cost more than coding.
fn code_lengths_into(freq: &[u32], limit: usize, lens: &mut [u8]) {
    lens.iter_mut().for_each(|l| *l = 0);
    let mut syms = [(0u32, 0u16); MAX_SYMS];
    let mut n = 0;
    for (s, &f) in freq.iter().enumerate().take(MAX_SYMS) {
        if f > 0 {
            syms[n] = (f, s as u16);
            n += 1;
        }
    }
    if n < 2 {
        return two_codes(&syms[..n], freq.len(), lens);
    }
    let syms = &mut syms[..n];
    syms.sort_unstable();
    let count = length_counts(&tree_depths(syms), n, limit);
    // The longest codes to the rarest symbols.
    let mut rarest = syms.iter();
    for l in (1..=limit).rev() {
        for _ in 0..count[l] {
            if let Some(&(_, s)) = rarest.next() {
                lens[s as usize] = l as u8;
            }
        }
    }
}

/// The lengths of an alphabet with fewer than two symbols used: as zlib,
/// two codes of one bit, so that the code is complete.
fn two_codes(used: &[(u32, u16)], alphabet: usize, lens: &mut [u8]) {
    let other = usize::from(used.len() == 1 && used[0].1 == 0);
    lens[other] = 1;
    if let [(_, s)] = used {
        lens[*s as usize] = 1;
    } else if alphabet > 1 {
        lens[1 - other] = 1;
    }
}

/// Each node's depth in the Huffman tree of `syms` (sorted by weight),
/// built with two queues: leaves in weight order, internal nodes made in
/// weight order after them; a node's parent always has a larger index.
/// The leaves' depths come first, in `syms`' order.
fn tree_depths(syms: &[(u32, u16)]) -> [u16; 2 * MAX_SYMS] {
    let n = syms.len();
    let mut weight = [0u64; 2 * MAX_SYMS];
    let mut parent = [0u16; 2 * MAX_SYMS];
    for (w, s) in weight.iter_mut().zip(syms.iter()) {
        *w = u64::from(s.0);
    }
    let (mut leaf, mut inner) = (0, n);
    for node in n..2 * n - 1 {
        let mut pick = |weight: &[u64]| {
            let take_leaf = leaf < n && (inner >= node || weight[leaf] <= weight[inner]);
            let k = if take_leaf { &mut leaf } else { &mut inner };
            *k += 1;
            *k - 1
        };
        let a = pick(&weight);
        let b = pick(&weight);
        weight[node] = weight[a] + weight[b];
        parent[a] = node as u16;
        parent[b] = node as u16;
    }
    let mut depth = [0u16; 2 * MAX_SYMS];
    for k in (0..2 * n - 2).rev() {
        depth[k] = depth[parent[k] as usize] + 1;
    }
    depth
}

/// How many of the `n` leaves get each code length, none over `limit`:
/// deeper leaves are cut to the limit, then the shortest codes that can
/// be lengthened are, until the Kraft sum is one (miniz's way).
fn length_counts(depth: &[u16], n: usize, limit: usize) -> [usize; 16] {
    let mut count = [0usize; 16];
    for &dp in &depth[..n] {
        count[(dp as usize).min(limit)] += 1;
    }
    let kraft = |count: &[usize]| -> usize { (1..=limit).map(|l| count[l] << (limit - l)).sum() };
    let mut total = kraft(&count);
    while total > 1 << limit {
        count[limit] -= 1;
        if let Some(l) = (1..limit).rev().find(|&l| count[l] > 0) {
            count[l] -= 1;
            count[l + 1] += 2;
        }
        total -= 1;
    }
    count
}

/// Canonical codes for `lens`, bit-reversed for deflate's LSB-first order.
fn codes(lens: &[u8]) -> [u16; MAX_SYMS] {
    let mut count = [0u16; 16];
    for &l in lens {
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for l in 1..16 {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    let mut out = [0u16; MAX_SYMS];
    for (c, &l) in out.iter_mut().zip(lens) {
        if l > 0 {
            *c = next[l as usize].reverse_bits() >> (16 - l);
            next[l as usize] += 1;
        }
    }
    out
}

pub struct BitWriter {
    pub out: Vec<u8>,
    /// Bits not yet in `out` (fewer than 32 between calls).
    acc: u64,
    n: u32,
}

impl BitWriter {
    pub fn new(capacity: usize) -> BitWriter {
        BitWriter { out: Vec::with_capacity(capacity), acc: 0, n: 0 }
    }

    /// Appends the low `count` bits of `bits` (`count` at most 32).
    #[inline]
    fn put(&mut self, bits: u32, count: u32) {
        self.acc |= u64::from(bits) << self.n;
        self.n += count;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// Pads to a byte boundary and moves every pending bit into `out`.
    pub fn align(&mut self) {
        let pad = (8 - self.n % 8) % 8;
        self.n += pad;
        while self.n > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
}

/// A dynamic block's code-length sequence, run-length coded: (symbol,
/// extra bits value, extra bit count).
fn run_lengths(lens: &[u8]) -> Vec<(u8, u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lens.len() {
        let cur = lens[i];
        let mut run = lens[i..].iter().take_while(|&&l| l == cur).count();
        i += run;
        if cur == 0 {
            while run >= 11 {
                let r = run.min(138);
                out.push((18, (r - 11) as u8, 7));
                run -= r;
            }
            if run >= 3 {
                out.push((17, (run - 3) as u8, 3));
                run = 0;
            }
        } else {
            out.push((cur, 0, 0));
            run -= 1;
            while run >= 3 {
                let r = run.min(6);
                out.push((16, (r - 3) as u8, 2));
                run -= r;
            }
        }
        out.extend(std::iter::repeat_n((cur, 0, 0), run));
    }
    out
}

/// The codes of one block and what the block costs in bits.
struct Codes {
    lit: [u8; 288],
    dist: [u8; 30],
}

impl Codes {
    const FIXED: Codes = {
        let mut lit = [8u8; 288];
        let mut s = 144;
        while s < 280 {
            lit[s] = if s < 256 { 9 } else { 7 };
            s += 1;
        }
        Codes { lit, dist: [5; 30] }
    };

    /// Bits for the tokens (and end of block) with these codes.
    fn data_bits(&self, lit_freq: &[u32], dist_freq: &[u32]) -> usize {
        let lits: usize = lit_freq.iter().zip(&self.lit).map(|(&f, &l)| f as usize * l as usize).sum();
        let lens: usize = (0..29).map(|c| lit_freq[257 + c] as usize * LEN_EXTRA[c] as usize).sum();
        let dists: usize = dist_freq
            .iter()
            .enumerate()
            .map(|(c, &f)| f as usize * (self.dist[c] as usize + DIST_EXTRA[c] as usize))
            .sum();
        lits + lens + dists
    }
}

/// The dynamic block's header: its size in bits and how to write it.
struct DynamicHeader {
    hlit: usize,
    hdist: usize,
    cl_lens: Vec<u8>,
    hclen: usize,
    runs: Vec<(u8, u8, u8)>,
}

impl DynamicHeader {
    fn new(c: &Codes) -> DynamicHeader {
        let hlit = 257.max(c.lit.iter().rposition(|&l| l > 0).map_or(0, |p| p + 1));
        let hdist = 1.max(c.dist.iter().rposition(|&l| l > 0).map_or(0, |p| p + 1));
        let all: Vec<u8> = c.lit[..hlit].iter().chain(&c.dist[..hdist]).copied().collect();
        let runs = run_lengths(&all);
        let mut cl_freq = [0u32; 19];
        for r in &runs {
            cl_freq[r.0 as usize] += 1;
        }
        let cl_lens = code_lengths(&cl_freq, 7);
        let hclen = 4.max(CL_ORDER.iter().rposition(|&s| cl_lens[s] > 0).map_or(0, |p| p + 1));
        DynamicHeader { hlit, hdist, cl_lens, hclen, runs }
    }

    fn bits(&self) -> usize {
        14 + 3 * self.hclen
            + self.runs.iter().map(|r| self.cl_lens[r.0 as usize] as usize + r.2 as usize).sum::<usize>()
    }

    fn write(&self, w: &mut BitWriter) {
        w.put((self.hlit - 257) as u32, 5);
        w.put((self.hdist - 1) as u32, 5);
        w.put((self.hclen - 4) as u32, 4);
        for &s in &CL_ORDER[..self.hclen] {
            w.put(u32::from(self.cl_lens[s]), 3);
        }
        let cl_codes = codes(&self.cl_lens);
        for &(s, extra, nbits) in &self.runs {
            w.put(u32::from(cl_codes[s as usize]), u32::from(self.cl_lens[s as usize]));
            w.put(u32::from(extra), u32::from(nbits));
        }
    }
}

/// One block of `tokens` (which stand for `input`): stored, fixed or
/// dynamic, whichever is smallest; `last` sets BFINAL.
pub fn block(w: &mut BitWriter, input: &[u8], tokens: &[Token], last: bool) {
    let last = u32::from(last);
    let (lit_freq, dist_freq) = frequencies(tokens);
    let fixed = Codes::FIXED;
    let fixed_bits = 3 + fixed.data_bits(&lit_freq, &dist_freq);
    // deflate wants at least one distance code even in a block without
    // matches (as zlib, give it one).
    let mut dist_for_tree = dist_freq;
    if dist_for_tree.iter().all(|&f| f == 0) {
        dist_for_tree[0] = 1;
    }
    let mut dynamic = Codes { lit: [0; 288], dist: [0; 30] };
    code_lengths_into(&lit_freq, 15, &mut dynamic.lit[..286]);
    code_lengths_into(&dist_for_tree, 15, &mut dynamic.dist);
    let header = DynamicHeader::new(&dynamic);
    let dynamic_bits = 3 + header.bits() + dynamic.data_bits(&lit_freq, &dist_freq);
    // Stored: the 3 header bits, padding to a byte, LEN and NLEN, the data.
    // A stored block holds at most 65,535 bytes: more take several.
    let pieces = input.len().div_ceil(STORED_MAX).max(1);
    let stored_bits = (3 + w.n as usize).div_ceil(8) * 8 - w.n as usize + 32 + (pieces - 1) * 40 + 8 * input.len();
    if stored_bits <= fixed_bits.min(dynamic_bits) {
        return stored_blocks(w, input, last);
    }
    let codes_used = if dynamic_bits < fixed_bits {
        w.put(last | 2 << 1, 3);
        header.write(w);
        dynamic
    } else {
        w.put(last | 1 << 1, 3);
        fixed
    };
    coded(w, tokens, &codes_used);
}

/// How often each literal/length and each distance code occurs in
/// `tokens`, the end of block counted once.
fn frequencies(tokens: &[Token]) -> ([u32; 286], [u32; 30]) {
    let mut lit_freq = [0u32; 286];
    let mut dist_freq = [0u32; 30];
    for t in tokens {
        match *t {
            Token::Literal(b) => lit_freq[b as usize] += 1,
            Token::Match { len, dist } => {
                lit_freq[257 + len_code(len)] += 1;
                dist_freq[dist_code(dist)] += 1;
            }
        }
    }
    lit_freq[256] = 1;
    (lit_freq, dist_freq)
}

/// `input` as stored blocks of at most 65,535 bytes (one, empty, for no
/// input); the last one's BFINAL is `last`.
fn stored_blocks(w: &mut BitWriter, input: &[u8], last: u32) {
    let mut chunks = input.chunks(STORED_MAX).peekable();
    if input.is_empty() {
        stored(w, &[], last);
    }
    while let Some(c) = chunks.next() {
        stored(w, c, if chunks.peek().is_none() { last } else { 0 });
    }
}

/// `tokens` and the end of block in `codes_used` (after the block's
/// header).
fn coded(w: &mut BitWriter, tokens: &[Token], codes_used: &Codes) {
    let lit_codes = codes(&codes_used.lit);
    let dist_codes = codes(&codes_used.dist);
    let lit = |w: &mut BitWriter, s: usize| w.put(u32::from(lit_codes[s]), u32::from(codes_used.lit[s]));
    for t in tokens {
        match *t {
            Token::Literal(b) => lit(w, b as usize),
            Token::Match { len, dist } => {
                let lc = len_code(len);
                lit(w, 257 + lc);
                w.put(u32::from(len - LEN_BASE[lc]), u32::from(LEN_EXTRA[lc]));
                let dc = dist_code(dist);
                w.put(u32::from(dist_codes[dc]), u32::from(codes_used.dist[dc]));
                w.put(u32::from(dist - DIST_BASE[dc]), u32::from(DIST_EXTRA[dc]));
            }
        }
    }
    lit(w, 256);
}

const STORED_MAX: usize = 65_535;

/// A stored block of `data` (at most 65,535 bytes).
fn stored(w: &mut BitWriter, data: &[u8], last: u32) {
    w.put(last, 3);
    w.align();
    let len = data.len() as u16;
    w.put(u32::from(len), 16);
    w.put(u32::from(!len), 16);
    w.align();
    w.out.extend_from_slice(data);
}
