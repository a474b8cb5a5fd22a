//! LZ77 matching as classic zlib's level 6 does it (the C runtime's):
//! hash chains over 3-byte prefixes and lazy evaluation with zlib's
//! parameters (but a shorter chain), over a sliding 32 KiB window.
//!
//! Records add one thing zlib does not know: their size. A counter of one
//! record is most often equal to the same counter one, two or three
//! records back, so those distances are tried first, and a match there of
//! `NICE_LENGTH` or more is taken without walking a chain. That is what
//! makes a thousand 700-byte records cost a fraction of what zlib-rs's
//! level 6 costs, with output no larger (tests.rs measures both). Other
//! data (name tables) tries the distance of the last match first: the
//! next path most often shares its prefix with the one before.
//!
//! Records and name tables start each entry with an 8-byte record id, a
//! hash: it is emitted as literals with no search and kept out of the
//! hash chains (`Shape::Records`, `Shape::Names`).

pub const MIN_MATCH: usize = 3;
pub const MAX_MATCH: usize = 258;
/// Matches reach at most this far back (deflate's window).
pub const WINDOW: usize = 32 * 1024;
// zlib's level 6.
const GOOD_LENGTH: usize = 8;
const MAX_LAZY: usize = 16;
const NICE_LENGTH: usize = 128;
/// zlib's level 6 walks 128. On name tables (paths: long common prefixes
/// everywhere) the distance of the last match, tried first, finds most of
/// what a long walk would: with it, 16 and 13 hash bits take 0.38 ms on a
/// `git status`'s 31,848 bytes of names (32 and 12 bits without it: 0.49
/// ms), for 12,929 bytes against 12,898 (classic zlib: 12,855), and the
/// corpus's small regions come out 0.7% smaller than before.
const MAX_CHAIN: usize = 16;
/// Name tables, whose ids are kept out of the chains: 8 finds what 16
/// does (11,574 against 11,577 bytes of a `git status`'s names; the
/// corpus's 0.05% larger, still under classic zlib's) in three quarters
/// of the time.
const NAME_CHAIN: usize = 8;
/// How far back records and names look (see Matcher::new).
const NEAR_RING: usize = 8 * 1024;
/// A 3-byte match farther than this costs more than three literals.
const TOO_FAR: usize = 4096;
/// With records, the chain is walked this far at most: the stride
/// candidates already found what a longer walk would. Measured on the
/// records of a 1,024-file `git status` and of 20,000 new files (chain /
/// insert limit 8/8 to 128/258): 16/16 is about as fast as any, and
/// smaller than classic zlib's level 6 (16,552 against 16,956 bytes;
/// 722,209 against 741,045), which 128/258 beats by 3% more at 2.3 times
/// the time.
const RECORD_CHAIN: usize = 16;
/// With records, positions inside a match longer than this are not put
/// into the hash chains (the stride candidates find them again).
const RECORD_INSERT: usize = 16;

/// One LZ77 token: a literal byte, or a match of `len` bytes `dist` back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Literal(u8),
    Match { len: u16, dist: u16 },
}

impl Token {
    /// Input bytes the token stands for.
    pub fn span(self) -> usize {
        match self {
            Token::Literal(_) => 1,
            Token::Match { len, .. } => len as usize,
        }
    }
}

/// Bytes `a` and `b` (`a < b`) have in common, up to `max`. Sixteen bytes
/// a step (records' matches run the 258 bytes deflate allows), over two
/// slices cut once, so that the loads need no bounds checks of their own
/// (with a check per load this was 30 instructions a step, most of a
/// `git status`'s record compression).
fn common(d: &[u8], a: usize, b: usize, max: usize) -> usize {
    let (x, y) = (&d[a..a + max], &d[b..b + max]);
    let mut n = 0;
    for (p, q) in x.chunks_exact(16).zip(y.chunks_exact(16)) {
        let diff = u128::from_le_bytes(p.try_into().unwrap_or_default())
            ^ u128::from_le_bytes(q.try_into().unwrap_or_default());
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 16;
    }
    n + x[n..].iter().zip(&y[n..]).take_while(|(p, q)| p == q).count()
}

/// The match finder and its place in the input: tokens come out a block
/// at a time ([`Matcher::fill`]).
pub struct Matcher<'a> {
    d: &'a [u8],
    hash_bits: u32,
    /// Latest position + 1 of each hash (0: none).
    head: Vec<u32>,
    /// For position `i`, at `i & mask`: the previous position + 1 with the
    /// same hash. A ring as large as the window (or the input).
    prev: Vec<u32>,
    mask: usize,
    /// Distances tried before the chain: one, two and three records back.
    strides: Vec<usize>,
    chain: usize,
    insert_limit: usize,
    /// Next position to look at; the match found at `i - 1`, and whether
    /// `d[i - 1]` is still to be emitted (lazy evaluation's state).
    i: usize,
    lazy: Option<(usize, usize)>,
    pending: bool,
    /// Distance of the last match emitted (0: none yet).
    last_dist: usize,
    /// Where the next record id starts (at each record of Shape::Records,
    /// each entry of Shape::Names; past the input for other shapes).
    next_id: usize,
    shape: Shape,
}

/// What the input holds, which tells the matcher where to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Records of this many bytes each, each starting with its 8-byte id.
    Records(usize),
    /// Records of about this many bytes (LUSTRE's, DXT's vary in length).
    VarRecords(usize),
    /// A name table: (8-byte record id, name, NUL) entries.
    Names,
    /// Anything else.
    Bytes,
}

impl Shape {
    /// Records of `stride` bytes, or other bytes where it is 0.
    pub fn of_stride(stride: usize) -> Shape {
        if stride == 0 {
            Shape::Bytes
        } else {
            Shape::Records(stride)
        }
    }

    /// The record size (0: not records).
    pub fn stride(self) -> usize {
        match self {
            Shape::Records(s) | Shape::VarRecords(s) => s,
            Shape::Names | Shape::Bytes => 0,
        }
    }
}

/// Bytes of the record id at the start of each record and name entry.
const ID_BYTES: usize = 8;

/// The chain ring's length and the hash table's bits for `len` bytes of
/// `shape`.
fn table_sizes(len: usize, shape: Shape) -> (usize, u32) {
    // Records and names find their matches near: the stride candidates,
    // the names just before. A ring that reaches NEAR_RING back (or
    // four records) finds as much as the whole window's (0.03% smaller
    // on the corpus, 0.3% on a `git status`'s records), in a quarter
    // of the fresh memory: 36 fewer page faults at a short process's
    // shutdown.
    let reach = match shape {
        Shape::Records(s) | Shape::VarRecords(s) => s.saturating_mul(4).max(NEAR_RING),
        Shape::Names => NEAR_RING,
        Shape::Bytes => WINDOW,
    };
    let ring = len.clamp(1, reach.min(WINDOW)).next_power_of_two();
    // Name tables hold random 8-byte ids: fewer buckets than about
    // one per four bytes fill the chains with collisions that every
    // literal walks. A short process's few kilobytes get a table of
    // their size (a fresh 32 KiB one costs 8 page faults).
    let hash_bits = match shape {
        Shape::Records(_) | Shape::VarRecords(_) if len > ring => 12,
        Shape::Bytes if len > WINDOW => 14,
        _ => ring.trailing_zeros().saturating_sub(2).clamp(8, 13),
    };
    (ring, hash_bits)
}

impl<'a> Matcher<'a> {
    /// A matcher for `d`, which holds `shape`. `tables`: the hash table
    /// and chain ring's memory from an earlier matcher
    /// ([`Matcher::into_tables`]) or empty vectors; they are cleared here.
    pub fn new(d: &'a [u8], shape: Shape, tables: (Vec<u32>, Vec<u32>)) -> Self {
        let stride = shape.stride();
        let (ring, hash_bits) = table_sizes(d.len(), shape);
        let strides: Vec<usize> = if stride >= MIN_MATCH {
            (1..=3).map(|k| k * stride).filter(|&s| s < ring.min(WINDOW)).collect()
        } else {
            Vec::new()
        };
        let records = !strides.is_empty();
        let (mut head, mut prev) = tables;
        // Stale links would point anywhere: both start all zero (none).
        head.clear();
        head.resize(1 << hash_bits, 0);
        prev.clear();
        prev.resize(ring, 0);
        Matcher {
            d,
            hash_bits,
            head,
            prev,
            mask: ring - 1,
            chain: match shape {
                _ if records => RECORD_CHAIN,
                Shape::Names => NAME_CHAIN,
                _ => MAX_CHAIN,
            },
            insert_limit: if records || shape == Shape::Names { RECORD_INSERT } else { MAX_MATCH },
            strides,
            i: 0,
            lazy: None,
            pending: false,
            last_dist: 0,
            // Ids: at the start of every record, or of every name entry.
            next_id: match shape {
                Shape::Names => 0,
                Shape::Records(_) if records => 0,
                _ => usize::MAX,
            },
            shape,
        }
    }

    /// A record id, at the start of a record or a name table's entry:
    /// random bytes that no match finds, so they are emitted as literals
    /// without a search, and left out of the hash chains, which then hold
    /// only what may match (a third of a `git status`'s name table is ids;
    /// skipping them takes a third off its records' time too). Called at
    /// or inside the id (a match that began before may run into it), with
    /// the lazy match (if any) already taken.
    fn skip_id(&mut self, out: &mut Vec<Token>) {
        if self.pending {
            out.push(Token::Literal(self.d[self.i - 1]));
            self.pending = false;
        }
        let end = (self.next_id + ID_BYTES).min(self.d.len());
        if self.i < end {
            out.extend(self.d[self.i..end].iter().map(|&b| Token::Literal(b)));
            self.i = end;
        }
        self.next_id = match self.shape {
            Shape::Records(s) => self.next_id + s,
            _ => self.entry_after(end),
        };
    }

    /// The start of the entry after the one whose name starts at `name`.
    fn entry_after(&self, name: usize) -> usize {
        match self.d[name.min(self.d.len())..].iter().position(|&b| b == 0) {
            Some(k) => name + k + 1,
            None => usize::MAX,
        }
    }

    fn insert(&mut self, i: usize) {
        let d = self.d;
        if i + MIN_MATCH <= d.len() {
            let v = u32::from(d[i]) << 16 | u32::from(d[i + 1]) << 8 | u32::from(d[i + 2]);
            let h = (v.wrapping_mul(0x9E37_79B1) >> (32 - self.hash_bits)) as usize;
            self.prev[i & self.mask] = self.head[h];
            self.head[h] = (i + 1) as u32;
        }
    }

    /// The longest match at `i` that is longer than `shorter_than_this`
    /// (position `i` already inserted), as (length, distance), or None.
    fn longest(&self, i: usize, shorter_than_this: usize, mut chain: usize) -> Option<(usize, usize)> {
        let d = self.d;
        let max = MAX_MATCH.min(d.len() - i);
        if max < MIN_MATCH {
            return None;
        }
        let nice = NICE_LENGTH.min(max);
        let mut best = shorter_than_this.max(MIN_MATCH - 1);
        let mut found = None;
        // Records: one, two and three records back; anything else: the
        // last match's distance.
        let rep = [self.last_dist];
        let cands: &[usize] = if self.strides.is_empty() { &rep } else { &self.strides };
        for &s in cands {
            if s != 0 && s <= i && best < max && d[i - s + best] == d[i + best] {
                let len = common(d, i - s, i, max);
                if len > best {
                    best = len;
                    found = Some((len, s));
                    if len >= nice {
                        return found;
                    }
                }
            }
        }
        // A chain match as long as the stride's but nearer codes in fewer
        // bits (zlib, walking nearest first, would have taken it).
        let mut tie = found.map_or(0, |(_, dist)| dist);
        // Farther than this, a chain entry may have been overwritten.
        let reach = self.prev.len().min(WINDOW);
        let mut c = self.prev[i & self.mask] as usize;
        while c != 0 && chain > 0 && best < max {
            let j = c - 1;
            let dist = i - j;
            if dist >= reach {
                break;
            }
            let need = if dist < tie { best - 1 } else { best };
            if d[j + need] == d[i + need] {
                let len = common(d, j, i, max);
                if len > need {
                    best = len;
                    found = Some((len, dist));
                    tie = 0;
                    if len >= nice {
                        break;
                    }
                }
            }
            c = self.prev[j & self.mask] as usize;
            chain -= 1;
        }
        found
    }

    /// The hash table and chain ring, for the next matcher.
    pub fn into_tables(self) -> (Vec<u32>, Vec<u32>) {
        (self.head, self.prev)
    }

    /// Whether the whole input has been turned into tokens.
    pub fn done(&self) -> bool {
        self.i >= self.d.len() && !self.pending
    }

    /// Appends tokens (zlib's lazy evaluation: a match is taken only if
    /// the next position does not start a longer one) until `out` holds
    /// `limit` of them or the input ends.
    pub fn fill(&mut self, out: &mut Vec<Token>, limit: usize) {
        let n = self.d.len();
        // Room for an id's literals, where there are ids.
        let room = if self.next_id == usize::MAX { 0 } else { ID_BYTES + 1 };
        while self.i < n && out.len() + room < limit {
            if self.i >= self.next_id {
                match self.lazy {
                    // The match found just before the id is taken as it
                    // is: the id will not start a longer one.
                    Some((len, dist)) if self.i == self.next_id => self.take_match(out, self.i - 1, len, dist),
                    _ => self.skip_id(out),
                }
                continue;
            }
            let i = self.i;
            self.insert(i);
            let prev_len = self.lazy.map_or(0, |p| p.0);
            let mut cur = None;
            if prev_len < MAX_LAZY {
                let chain = if prev_len >= GOOD_LENGTH { self.chain >> 2 } else { self.chain };
                cur = self.longest(i, prev_len, chain).filter(|&(len, dist)| len > MIN_MATCH || dist <= TOO_FAR);
            }
            match (self.lazy, cur) {
                (Some((len, dist)), c) if c.is_none_or(|c| c.0 <= len) => self.take_match(out, i - 1, len, dist),
                _ => {
                    if self.pending {
                        out.push(Token::Literal(self.d[i - 1]));
                    }
                    self.pending = true;
                    self.lazy = cur;
                    self.i += 1;
                }
            }
        }
        if self.i >= n && self.pending && out.len() < limit {
            out.push(Token::Literal(self.d[n - 1]));
            self.pending = false;
        }
    }

    /// Emits the match of `len` bytes at `at` (position `at + 1` already
    /// inserted) and moves past it.
    fn take_match(&mut self, out: &mut Vec<Token>, at: usize, len: usize, dist: usize) {
        out.push(Token::Match { len: len as u16, dist: dist as u16 });
        self.last_dist = dist;
        let end = at + len;
        if len <= self.insert_limit {
            for k in at + 2..end {
                self.insert(k);
            }
        }
        self.i = end;
        self.lazy = None;
        self.pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::common;

    /// `common` equals a byte-by-byte count for every first difference
    /// around the 16-byte steps and in the tail, and for every `max`.
    #[test]
    fn common_equals_a_byte_by_byte_count() {
        let base: Vec<u8> = (0..600u32).map(|i| (i * 7 % 251) as u8).collect();
        for diff_at in [0usize, 1, 7, 8, 15, 16, 17, 31, 32, 100, 255, 256, 257, 258, 299] {
            let mut d = base.clone();
            d.extend_from_slice(&base[..300]);
            d[600 + diff_at] ^= 0x5a;
            for max in [0usize, 1, 15, 16, 17, 33, 200, 257, 258, 300] {
                let naive = (0..max).take_while(|&k| d[k] == d[600 + k]).count();
                assert_eq!(common(&d, 0, 600, max), naive, "difference at {diff_at}, max {max}");
            }
        }
    }
}
