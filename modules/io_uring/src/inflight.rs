//! Requests submitted and not yet seen completing: (ring, user_data) ->
//! (record, kind, length, offset, submit tick), in an open-addressing table of
//! fixed size (linear probing, deletion by backward shift: no tombstones to
//! fill it up over a long run). The table (160 KiB) is taken at the first
//! request, not at attach: every process had it, io_uring or not.

use darshan_core::lazy_words::LazyWords;
use darshan_core::shift;

/// Requests followed at once. Past this, the oldest in its probe run is
/// let go as a completion not seen.
pub const SLOTS: usize = 4096;
const WORDS: usize = 5;
const VALID: u64 = 1 << 63;

/// What a request is, for its completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Other,
}

/// One request in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub record: usize,
    pub kind: Kind,
    pub len: u64,
    /// Where the request reads or writes (its DXT segment's offset).
    pub offset: u64,
    pub submitted: i64,
}

fn pack(ring: usize, p: &Pending) -> u64 {
    let kind = match p.kind {
        Kind::Read => 0,
        Kind::Write => 1,
        Kind::Other => 2,
    };
    VALID | (ring as u64 & 0xff) << 48 | kind << 40 | (p.record as u64 & 0xff_ffff_ffff)
}

fn unpack(meta: u64) -> (usize, Kind, usize) {
    let kind = match (meta >> 40) & 0xff {
        0 => Kind::Read,
        1 => Kind::Write,
        _ => Kind::Other,
    };
    (((meta >> 48) & 0xff) as usize, kind, (meta & 0xff_ffff_ffff) as usize)
}

/// The slot a request of `ring` with `user_data` hashes to in a table of
/// `slots`.
fn home_in(ring: usize, user_data: u64, slots: usize) -> usize {
    let h = (user_data ^ ((ring as u64) << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 40) as usize & (slots - 1)
}

#[derive(Default)]
pub struct Inflight {
    w: LazyWords,
    live: usize,
}

impl Inflight {
    pub const fn new() -> Inflight {
        Inflight { w: LazyWords::none(), live: 0 }
    }

    /// A table of `n` requests (rounded up to a power of two), taken at
    /// the first; none (every request then counts as a completion not
    /// seen) if the memory cannot be had then.
    pub fn with_slots(n: usize) -> Inflight {
        Inflight { w: LazyWords::of(n.next_power_of_two() * WORDS), live: 0 }
    }

    /// Address space the table has taken, in bytes.
    pub fn taken(&self) -> usize {
        self.w.bytes()
    }

    fn slots(&self) -> usize {
        self.w.taken().map_or(0, |w| w.len() / WORDS)
    }

    fn home(&self, ring: usize, user_data: u64) -> usize {
        home_in(ring, user_data, self.slots())
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Follow a request; returns a request it had to let go (the table
    /// full). Requests with the same user_data on one ring are all kept
    /// (programs leave it 0, or reuse it once they reaped a completion
    /// we read later): each lies after the earlier ones in its probe run,
    /// so `take` matches completions to them first in, first out.
    pub fn insert(&mut self, ring: usize, user_data: u64, p: Pending) -> Option<Pending> {
        self.w.get_or_take();
        let n = self.slots();
        if n == 0 {
            return Some(p);
        }
        let mut s = self.home(ring, user_data);
        let mut dropped = None;
        let Some(w) = self.w.taken_mut() else { return Some(p) };
        for _ in 0..n {
            let b = s * WORDS;
            if w[b + 1] & VALID == 0 {
                self.live += 1;
                break;
            }
            s = (s + 1) & (n - 1);
        }
        let b = s * WORDS;
        if w[b + 1] & VALID != 0 && dropped.is_none() {
            // Full: let the slot's request go.
            dropped = Some(read(w, b));
        }
        w[b] = user_data;
        w[b + 1] = pack(ring, &p);
        w[b + 2] = p.len;
        w[b + 3] = p.submitted as u64;
        w[b + 4] = p.offset;
        dropped
    }

    /// The request `user_data` of `ring` (the earliest still followed),
    /// no longer followed.
    pub fn take(&mut self, ring: usize, user_data: u64) -> Option<Pending> {
        let n = self.slots();
        if n == 0 || self.live == 0 {
            return None;
        }
        let mut s = self.home(ring, user_data);
        let w = self.w.taken_mut()?;
        for _ in 0..n {
            let b = s * WORDS;
            if w[b + 1] & VALID == 0 {
                return None;
            }
            if w[b] == user_data && unpack(w[b + 1]).0 == ring {
                let p = read(w, b);
                self.remove_at(s);
                return Some(p);
            }
            s = (s + 1) & (n - 1);
        }
        None
    }

    /// Backward-shift deletion (`darshan_core::shift`): no tombstones.
    /// Requests of one key keep their order (they share a home).
    fn remove_at(&mut self, s: usize) {
        let n = self.slots();
        let Some(w) = self.w.taken_mut() else { return };
        shift::remove(w, WORDS, s, |e| (e[1] & VALID != 0).then(|| home_in(unpack(e[1]).0, e[0], n)));
        self.live -= 1;
    }

    /// Every request still followed, let go (shutdown, a ring closed:
    /// `ring` Some, only that ring's).
    pub fn drain(&mut self, ring: Option<usize>, mut f: impl FnMut(Pending)) {
        // Nothing in flight (every process that used no ring): the table's
        // 160 KiB are not read, so its untouched pages stay unmapped (the
        // scan cost every process's exit 40 page faults).
        if self.live == 0 {
            return;
        }
        let n = self.slots();
        let mut s = 0;
        while s < n {
            let (valid, r, user_data) = match self.w.taken() {
                Some(w) => (w[s * WORDS + 1] & VALID != 0, unpack(w[s * WORDS + 1]).0, w[s * WORDS]),
                None => return,
            };
            if valid && ring.is_none_or(|x| x == r) {
                if let Some(p) = self.take(r, user_data) {
                    f(p);
                }
                // The shift may have moved another entry into slot s.
                continue;
            }
            s += 1;
        }
    }

    /// Nothing followed; the table's pages given back, not written.
    pub fn clear(&mut self) {
        if let Some(w) = self.w.taken_mut() {
            w.zero();
        }
        self.live = 0;
    }
}

fn read(w: &[u64], b: usize) -> Pending {
    let (_, kind, record) = unpack(w[b + 1]);
    Pending { record, kind, len: w[b + 2], offset: w[b + 4], submitted: w[b + 3] as i64 }
}
