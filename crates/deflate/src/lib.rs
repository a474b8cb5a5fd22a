//! The runtime's zlib encoder, for record regions below a megabyte and
//! name tables below 256 KiB (compress.rs: larger ones go to zlib-rs).
//!
//! Why by hand: zlib-rs's deflate state is a quarter of a megabyte that is
//! cleared when it is made (a 128 KiB hash table whatever the window), so
//! compressing the three or four kilobytes of `/bin/true`'s log cost 47
//! page faults and about 0.15 ms, most of what the library added to a
//! short process; and its level 6 spends 2.5 ms on the 1,024 records of a
//! `git status`, a third of what that command takes without us. This
//! encoder's state is a hash table and a ring of chain links no larger
//! than the input or the 32 KiB window.
//!
//! What it does is classic zlib's level 6 (the C runtime's): hash chains
//! over 3-byte prefixes, lazy matching with zlib's parameters (good 8,
//! lazy 16, nice 128, no 3-byte match farther than 4 KiB), but chains of
//! 16, not 128; blocks of at most 16,383 tokens (zlib's at its default
//! memory level), each in whichever of stored, fixed or dynamic Huffman
//! codes is smallest. Before the chain it tries the distances of one, two
//! and three records (records) or of the last match (other data:
//! matcher.rs); in a name table it does not search at the record ids.

#![forbid(unsafe_code)]

mod huffman;
mod matcher;

use huffman::BitWriter;
use matcher::Matcher;
pub use matcher::Shape;

/// Tokens per block (zlib's `lit_bufsize - 1` at memory level 8).
const BLOCK_TOKENS: usize = 16_383;

/// The encoder's working memory, kept from one region to the next: a
/// short process's shutdown compresses four or five regions in a row, and
/// fresh tables cost a page fault per page touched (1.6-1.9 us here): the
/// hash table, the chain ring and the token buffer are 290 KiB for a
/// `git status`'s records, and as much again for its names.
#[derive(Default)]
pub struct Scratch {
    head: Vec<u32>,
    prev: Vec<u32>,
    tokens: Vec<matcher::Token>,
}

/// `input` as one zlib stream; `stride` is the size of the records it
/// holds (0 for other data: the job record).
pub fn zlib(input: &[u8], stride: usize) -> Vec<u8> {
    zlib_with(&mut Scratch::default(), input, Shape::of_stride(stride))
}

/// `input`, of the given shape, as one zlib stream in `scratch`'s memory.
pub fn zlib_with(scratch: &mut Scratch, input: &[u8], shape: Shape) -> Vec<u8> {
    let mut w = BitWriter::new(input.len() / 8 + 64);
    // CMF: deflate with a 32 KiB window; FLG: default level, check bits.
    w.out.extend_from_slice(&[0x78, 0x9c]);
    let mut m = Matcher::new(input, shape, (std::mem::take(&mut scratch.head), std::mem::take(&mut scratch.prev)));
    let mut tokens = std::mem::take(&mut scratch.tokens);
    // Empty first: reserve counts from the length, which still holds the
    // last region's final block.
    tokens.clear();
    tokens.reserve(BLOCK_TOKENS.min(input.len() + 1));
    let mut start = 0;
    loop {
        tokens.clear();
        m.fill(&mut tokens, BLOCK_TOKENS);
        let end = start + tokens.iter().map(|t| t.span()).sum::<usize>();
        let last = m.done();
        huffman::block(&mut w, &input[start..end], &tokens, last);
        start = end;
        if last {
            break;
        }
    }
    (scratch.head, scratch.prev) = m.into_tables();
    scratch.tokens = tokens;
    w.align();
    w.out.extend_from_slice(&adler32(input).to_be_bytes());
    w.out
}

/// zlib's checksum. Bytes are summed in 16 lanes (lane `l` holds the
/// bytes at positions `l` mod 16), with only additions, which the
/// compiler turns into SSE2 on any x86-64: 7 times faster than weighting
/// each byte (0.03 against 0.24 ms on `git status`'s 720 KB of records,
/// where it was a third of the compression).
///
/// For bytes `x_p` of a block of `n` (whole rows of 16), b grows by
/// `n*a + sum (n - p) x_p`; with `p = 16 r + l` over `R` rows that is
/// `16 * sum_l P_l + sum_l (16 - l) S_l`, where `S_l` is lane `l`'s sum
/// and `P_l` the sum, over rows, of `S_l` before the row.
fn adler32(d: &[u8]) -> u32 {
    const MOD: u64 = 65521;
    const L: usize = 16;
    // Rows summed in u16 lanes before they are added to u32 ones: the
    // prefix sum stays below 255 * (0 + 1 + ... + 15) = 30,600.
    const ROWS: usize = 16;
    // A multiple of 256 below zlib's NMAX (5552): no u32 sum overflows.
    const BLOCK: usize = 5376;
    let (mut a, mut b) = (1u64, 0u64);
    for block in d.chunks(BLOCK) {
        let (mut sums, mut prefix) = ([0u32; L], [0u32; L]);
        let mut groups = block.chunks_exact(L * ROWS);
        for group in &mut groups {
            let (mut s16, mut p16) = ([0u16; L], [0u16; L]);
            for row in group.chunks_exact(L) {
                for l in 0..L {
                    p16[l] += s16[l];
                }
                for l in 0..L {
                    s16[l] += u16::from(row[l]);
                }
            }
            for l in 0..L {
                prefix[l] += sums[l] * ROWS as u32 + u32::from(p16[l]);
                sums[l] += u32::from(s16[l]);
            }
        }
        let mut rows = groups.remainder().chunks_exact(L);
        for row in &mut rows {
            for l in 0..L {
                prefix[l] += sums[l];
                sums[l] += u32::from(row[l]);
            }
        }
        let n = (block.len() / L * L) as u64;
        let (mut s, mut w) = (0u64, 0u64);
        for l in 0..L {
            s += u64::from(sums[l]);
            w += L as u64 * u64::from(prefix[l]) + (L - l) as u64 * u64::from(sums[l]);
        }
        b = (b + n * a + w) % MOD;
        a = (a + s) % MOD;
        for &x in rows.remainder() {
            a += u64::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16 | a) as u32
}

#[cfg(test)]
mod tests;
