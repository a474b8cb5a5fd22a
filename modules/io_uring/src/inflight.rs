//! Requests submitted and not yet seen completing: (ring, user_data) ->
//! (record, kind, length, offset, submit tick), in an open-addressing table
//! (linear probing, deletion by backward shift: no tombstones to fill it up
//! over a long run). A ring may have tens of thousands of requests in
//! flight (32,768 entries, 16 rings), so the table has no fixed size: in
//! pages of its own (never the heap), doubled when more would fill it past
//! half, its pages taken and given back outside the module's lock
//! ([`Inflight::wants`], [`Inflight::grow`]). Nothing is taken before the
//! first request: a process without io_uring has no table.
//!
//! It held 4,096 requests: past them each new one was let go as a
//! completion not seen, after a scan of the whole full table.

use darshan_core::arena::ZeroedWords;
use darshan_core::shift;

/// Slots at first, and at most (40 MiB of address space: half a million
/// requests in flight; past that a request counts as a completion not
/// seen).
const FIRST_SLOTS: usize = 256;
const MOST_SLOTS: usize = 1 << 20;
/// A request whose free slot lies farther than this from its home is let
/// go (a completion not seen): only requests sharing one user_data make
/// runs this long (they share a home), and each costs a scan of the run
/// at its submission and its completion (the most the fixed table of
/// 4,096 scanned).
const MOST_PROBES: usize = 4096;
const WORDS: usize = 5;
const VALID: u64 = 1 << 63;

/// What a request is, for its completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Other,
    /// An open into a registered slot ([`crate::direct`]): `len` is the
    /// slot (u64::MAX: the kernel picks it), `offset` what it held before.
    /// Of record [`NO_RECORD`]: an accept or socket into a slot the kernel
    /// picks, followed only to learn the slot.
    Open,
}

/// The record of a request that is no file's (40 bits, as packed).
pub const NO_RECORD: usize = 0xff_ffff_ffff;

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
        Kind::Open => 3,
    };
    VALID | (ring as u64 & 0xff) << 48 | kind << 40 | (p.record as u64 & 0xff_ffff_ffff)
}

fn unpack(meta: u64) -> (usize, Kind, usize) {
    let kind = match (meta >> 40) & 0xff {
        0 => Kind::Read,
        1 => Kind::Write,
        3 => Kind::Open,
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
    words: Option<ZeroedWords>,
    live: usize,
}

impl Inflight {
    pub const fn new() -> Inflight {
        Inflight { words: None, live: 0 }
    }

    /// Address space the table has taken, in bytes.
    pub fn taken(&self) -> usize {
        self.words.as_ref().map_or(0, |w| w.len() * 8)
    }

    fn slots(&self) -> usize {
        self.words.as_ref().map_or(0, |w| w.len() / WORDS)
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

    /// Slots the table must have for `more` requests beyond those it
    /// follows, if it has fewer (None: it has them, or may not grow).
    pub fn wants(&self, more: usize) -> Option<usize> {
        let (n, need) = (self.slots(), 2 * (self.live + more));
        if need <= n || n >= MOST_SLOTS {
            return None;
        }
        Some(need.next_power_of_two().clamp(FIRST_SLOTS.max(2 * n), MOST_SLOTS))
    }

    /// Words for a table of `slots`, taken in pages: outside the lock.
    pub fn words_for(slots: usize) -> Option<ZeroedWords> {
        ZeroedWords::in_pages(slots * WORDS)
    }

    /// Move the requests into `bigger` if it has more slots than this
    /// table; the words no longer used (to be dropped outside the lock).
    /// Requests sharing a key keep their order: the old table is read from
    /// the end of a run, so no run is read from its middle.
    pub fn grow(&mut self, bigger: ZeroedWords) -> Option<ZeroedWords> {
        if bigger.len() / WORDS <= self.slots() {
            return Some(bigger);
        }
        let old = self.words.replace(bigger);
        self.live = 0;
        let Some(w) = &old else { return old };
        let n = w.len() / WORDS;
        let start = (0..n).find(|&s| w[s * WORDS + 1] & VALID == 0).unwrap_or(0);
        for s in (start..start + n).map(|s| s % n) {
            let e = &w[s * WORDS..s * WORDS + WORDS];
            if e[1] & VALID != 0 {
                let (ring, _, _) = unpack(e[1]);
                self.place(ring, e[0], &read(w, s * WORDS), usize::MAX);
            }
        }
        old
    }

    /// Follow a request; the request back if it is not followed (no room:
    /// the caller counts it as a completion not seen). Requests with the
    /// same user_data on one ring are all kept (programs leave it 0, or
    /// reuse it once they reaped a completion we read later): each lies
    /// after the earlier ones in its probe run, so `take` matches
    /// completions to them first in, first out.
    pub fn insert(&mut self, ring: usize, user_data: u64, p: Pending) -> Option<Pending> {
        // Three quarters full: the table could not grow.
        if 4 * (self.live + 1) > 3 * self.slots() {
            return Some(p);
        }
        (!self.place(ring, user_data, &p, MOST_PROBES)).then_some(p)
    }

    /// `p` in the first free slot from its home, if within `most` probes.
    fn place(&mut self, ring: usize, user_data: u64, p: &Pending, most: usize) -> bool {
        let (n, mut s) = (self.slots(), self.home(ring, user_data));
        let Some(w) = self.words.as_mut() else { return false };
        let mut probes = 0;
        while w[s * WORDS + 1] & VALID != 0 {
            probes += 1;
            if probes > most {
                return false;
            }
            s = (s + 1) & (n - 1);
        }
        let b = s * WORDS;
        w[b..b + WORDS].copy_from_slice(&[user_data, pack(ring, p), p.len, p.submitted as u64, p.offset]);
        self.live += 1;
        true
    }

    /// The request `user_data` of `ring` (the earliest still followed),
    /// no longer followed.
    pub fn take(&mut self, ring: usize, user_data: u64) -> Option<Pending> {
        let (s, p) = self.find(ring, user_data)?;
        self.remove_at(s);
        Some(p)
    }

    /// The request `user_data` of `ring` (the earliest still followed),
    /// still followed: one of several completions (IORING_CQE_F_MORE).
    pub fn peek(&self, ring: usize, user_data: u64) -> Option<Pending> {
        self.find(ring, user_data).map(|(_, p)| p)
    }

    /// Where the earliest request `user_data` of `ring` lies, and what it is.
    fn find(&self, ring: usize, user_data: u64) -> Option<(usize, Pending)> {
        let n = self.slots();
        if n == 0 || self.live == 0 {
            return None;
        }
        let mut s = self.home(ring, user_data);
        let w = self.words.as_ref()?;
        while w[s * WORDS + 1] & VALID != 0 {
            let b = s * WORDS;
            if w[b] == user_data && unpack(w[b + 1]).0 == ring {
                return Some((s, read(w, b)));
            }
            s = (s + 1) & (n - 1);
        }
        None
    }

    /// Backward-shift deletion (`darshan_core::shift`): no tombstones.
    /// Requests of one key keep their order (they share a home).
    fn remove_at(&mut self, s: usize) {
        let n = self.slots();
        let Some(w) = self.words.as_mut() else { return };
        shift::remove(w, WORDS, s, |e| (e[1] & VALID != 0).then(|| home_in(unpack(e[1]).0, e[0], n)));
        self.live -= 1;
    }

    /// Every request still followed, let go (shutdown, a ring closed:
    /// `ring` Some, only that ring's).
    pub fn drain(&mut self, ring: Option<usize>, mut f: impl FnMut(Pending)) {
        // Nothing in flight (every process that used no ring): the table
        // is not read, so its untouched pages stay unmapped.
        if self.live == 0 {
            return;
        }
        let n = self.slots();
        let mut s = 0;
        while s < n {
            let (valid, r, user_data) = match self.words.as_ref() {
                Some(w) => (w[s * WORDS + 1] & VALID != 0, unpack(w[s * WORDS + 1]).0, w[s * WORDS]),
                None => return,
            };
            // Taken, the shift may move another entry into slot s: look
            // at it again. One its lookup cannot reach is passed over, so
            // that the walk ends whatever the table holds.
            match (valid && ring.is_none_or(|x| x == r)).then(|| self.take(r, user_data)).flatten() {
                Some(p) => f(p),
                None => s += 1,
            }
        }
    }

    /// Nothing followed; the table's pages given back, not written.
    pub fn clear(&mut self) {
        if std::mem::take(&mut self.live) > 0 {
            if let Some(w) = self.words.as_mut() {
                w.zero();
            }
        }
    }
}

fn read(w: &[u64], b: usize) -> Pending {
    let (_, kind, record) = unpack(w[b + 1]);
    Pending { record, kind, len: w[b + 2], offset: w[b + 4], submitted: w[b + 3] as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(record: usize) -> Pending {
        Pending { record, kind: Kind::Read, len: 4096, offset: record as u64 * 4096, submitted: record as i64 }
    }

    /// Insert, growing the table as the module does.
    fn add(t: &mut Inflight, ring: usize, user_data: u64, p: Pending) -> Option<Pending> {
        if let Some(slots) = t.wants(1) {
            drop(t.grow(Inflight::words_for(slots).unwrap()));
        }
        t.insert(ring, user_data, p)
    }

    /// The table held 4,096 requests: each one past them was let go as a
    /// completion not seen (its time and result lost), after a scan of
    /// the whole table.
    #[test]
    fn requests_past_the_4096th_in_flight_were_let_go_unseen() {
        let mut t = Inflight::new();
        for k in 0..20_000u64 {
            assert_eq!(add(&mut t, (k % 3) as usize, k * 8, req(k as usize)), None, "request {k}");
        }
        assert_eq!(t.len(), 20_000);
        for k in (0..20_000u64).rev() {
            assert_eq!(t.take((k % 3) as usize, k * 8), Some(req(k as usize)), "request {k}");
        }
        assert!(t.is_empty());
    }

    /// Requests sharing a user_data are matched first in, first out, also
    /// when their run wraps around the table's end and the table grows
    /// under them (a grow reading the old table from slot 0 put a wrapped
    /// run's tail first).
    #[test]
    fn requests_sharing_a_user_data_keep_their_order_when_the_table_grows() {
        let mut t = Inflight::new();
        drop(t.grow(Inflight::words_for(FIRST_SLOTS).unwrap()));
        // A user_data whose home is the table's last slots: its run wraps.
        let u = (0..u64::MAX).find(|&u| home_in(1, u, FIRST_SLOTS) == FIRST_SLOTS - 2).unwrap();
        for k in 0..100 {
            assert_eq!(add(&mut t, 1, u, req(k)), None);
        }
        assert_eq!(t.slots(), FIRST_SLOTS, "no growth yet");
        for k in 100..1000 {
            assert_eq!(add(&mut t, 1, u, req(k)), None);
        }
        assert!(t.slots() >= 2048, "{}", t.slots());
        for k in 0..1000 {
            assert_eq!(t.take(1, u).map(|p| p.record), Some(k));
        }
        assert_eq!(t.take(1, u), None);
    }

    /// Past the probe limit, one more request of a shared user_data is let
    /// go (counted by the caller as not seen), not scanned for ever.
    #[test]
    fn a_run_of_one_user_data_stops_at_the_probe_limit() {
        let mut t = Inflight::new();
        for k in 0..=MOST_PROBES {
            assert_eq!(add(&mut t, 0, 0, req(k)), None, "request {k}");
        }
        assert_eq!(add(&mut t, 0, 0, req(9)), Some(req(9)));
        assert_eq!(add(&mut t, 0, 1, req(10)), None, "another user_data has its own home");
    }

    /// A table that may not grow (at its most, or no memory) lets
    /// requests go past three quarters, never probing a full table.
    #[test]
    fn a_table_that_cannot_grow_lets_requests_go_past_three_quarters() {
        let mut t = Inflight::new();
        assert_eq!(t.insert(0, 1, req(1)), Some(req(1)), "no table: not followed");
        drop(t.grow(Inflight::words_for(FIRST_SLOTS).unwrap()));
        let most = FIRST_SLOTS * 3 / 4;
        for k in 0..most as u64 {
            assert_eq!(t.insert(0, k, req(k as usize)), None);
        }
        assert_eq!(t.insert(0, 9999, req(7)), Some(req(7)));
        assert_eq!(t.len(), most);
    }
}
