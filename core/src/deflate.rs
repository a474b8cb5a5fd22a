//! The runtime's zlib encoder, for every region of a log below a megabyte
//! (compress.rs: larger record regions go to zlib-rs).
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
//! lazy 16, nice 128, no 3-byte match farther than 4 KiB; chains of 32,
//! not 128),
//! blocks of at most 16,383 tokens (zlib's at its default memory level),
//! each in whichever of stored, fixed or dynamic Huffman codes is
//! smallest. For records it also tries the distances of one, two and
//! three records first (matcher.rs).

mod huffman;
mod matcher;

use huffman::BitWriter;
use matcher::Matcher;

/// Tokens per block (zlib's `lit_bufsize - 1` at memory level 8).
const BLOCK_TOKENS: usize = 16_383;

/// `input` as one zlib stream; `stride` is the size of the records it
/// holds (0 for other data: the job record, the name table).
pub fn zlib(input: &[u8], stride: usize) -> Vec<u8> {
    let mut w = BitWriter::new(input.len() / 8 + 64);
    // CMF: deflate with a 32 KiB window; FLG: default level, check bits.
    w.out.extend_from_slice(&[0x78, 0x9c]);
    let mut m = Matcher::new(input, stride);
    let mut tokens = Vec::with_capacity(BLOCK_TOKENS.min(input.len() + 1));
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
    w.align();
    w.out.extend_from_slice(&adler32(input).to_be_bytes());
    w.out
}

/// zlib's checksum, 32 bytes at a time (the weighted sums vectorise).
fn adler32(d: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    // The most bytes, a multiple of 32, that can be summed before b may
    // overflow (zlib's NMAX is 5552).
    const CHUNK: usize = 5536;
    const WEIGHTS: [u32; 32] = {
        let mut w = [0u32; 32];
        let mut k = 0;
        while k < 32 {
            w[k] = 32 - k as u32;
            k += 1;
        }
        w
    };
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in d.chunks(CHUNK) {
        let mut blocks = chunk.chunks_exact(32);
        for blk in &mut blocks {
            let (mut s, mut ws) = (0u32, 0u32);
            for k in 0..32 {
                s += u32::from(blk[k]);
                ws += WEIGHTS[k] * u32::from(blk[k]);
            }
            b += 32 * a + ws;
            a += s;
        }
        for &x in blocks.remainder() {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    b << 16 | a
}

#[cfg(test)]
mod tests;
