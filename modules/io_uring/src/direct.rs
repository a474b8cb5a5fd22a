//! Descriptors a ring makes itself, straight into its registered files
//! ("direct": an `openat`/`openat2`, `accept` or `socket` with a
//! `file_index`). An open names its file before it is counted (the ffi
//! crate reads its path: [`Sqe::opened`]), counts as a META op of that
//! file, and the slot holds the file:
//!
//! * into a slot the program chose, from the submission on, so that a
//!   request linked to the open in the same call (open, read, close
//!   "direct" in one submission: what direct descriptors are for) acts on
//!   it; a failed open gives the slot back what it held, as the kernel
//!   leaves it;
//! * into a slot the kernel picks (IORING_FILE_INDEX_ALLOC), from the
//!   completion, whose result is the slot (no request can name it before).
//!
//! An accept or socket into a registered slot makes it no file's: its
//! requests are not counted. Into a slot the program chose, from the
//! submission; into one the kernel picks, from each completion (a
//! multishot accept's every connection has one), the request followed
//! under [`NO_RECORD`] only for that.
//!
//! Until 2026-12-05 these slots kept what they held: requests on a file
//! opened direct counted as unobserved, or for the file registered at that
//! slot before. Requests on a socket accepted or made into a slot the
//! kernel picked counted as unobserved until 2026-12-05 too.

use darshan_core::common::Tick;

use crate::fixed::{FixedFiles, Slot, NOT_A_FILE};
use crate::inflight::{Kind, Pending, NO_RECORD};
use crate::ops::Class;
use crate::{track, Sqe, State, Target};

/// A pending open's `len` when the kernel picks the slot.
const PICKED: u64 = u64::MAX;

/// The record a slot value names.
fn record_in(value: u32) -> Option<usize> {
    (value != 0 && value != NOT_A_FILE).then(|| value as usize - 1)
}

impl State {
    /// Request `s` of ring `k` makes a descriptor into `target`.
    pub(crate) fn install(&mut self, k: usize, s: &Sqe, target: Target, t: Tick) {
        let value = if s.opens_file() { s.opened } else { NOT_A_FILE };
        let before = match target {
            Target::Slot(slot) => self.set_slot(k, slot, value),
            Target::Alloc if value == NOT_A_FILE => return self.follow_pick(k, s, t),
            Target::Alloc => 0,
        };
        let Some(i) = record_in(value).filter(|&i| self.set.live(i)) else { return };
        let mut p = self.request(k, i, Class::Meta, s, t);
        p.kind = Kind::Open;
        p.len = match target {
            Target::Slot(slot) => slot as u64,
            Target::Alloc => PICKED,
        };
        p.offset = u64::from(before);
        track(self, k, s, Some(p));
    }

    /// An accept or socket into a slot the kernel picks: followed to its
    /// completions, apart from the file requests (neither a ring's depth
    /// nor any record counts it).
    fn follow_pick(&mut self, k: usize, s: &Sqe, t: Tick) {
        if s.flags & crate::ops::SQE_CQE_SKIP_SUCCESS != 0 {
            return;
        }
        let p = Pending { record: NO_RECORD, kind: Kind::Open, len: PICKED, offset: 0, submitted: t };
        // No room: its slots stay unnamed (their requests unobserved).
        let _ = self.inflight.insert(k, s.user_data, p);
    }

    /// A completion of request `p`, of which more may follow (a multishot
    /// accept's): the slot the kernel picked for a socket holds no file.
    pub(crate) fn picked(&mut self, k: usize, p: &Pending, res: i32) {
        if p.record == NO_RECORD && res >= 0 {
            self.set_slot(k, res, NOT_A_FILE);
        }
    }

    /// An open into a slot completed with `res`: the slot the kernel
    /// picked holds the file, or a failed open's slot what it held.
    pub(crate) fn open_done(&mut self, k: usize, p: &Pending, res: i32) {
        if p.record == NO_RECORD {
            return self.picked(k, p, res);
        }
        let file = p.record as u32 + 1;
        if p.len == PICKED {
            if res >= 0 {
                self.set_slot(k, res, file);
            }
            return;
        }
        let slot = p.len as i32;
        if res < 0 && self.rings[k].fixed.get(slot) == Slot::Record(p.record) {
            self.set_slot(k, slot, p.offset as u32);
        }
    }

    /// Slot `slot` of ring `k` holds `value`; what it held. The table
    /// grows here, under the module's lock (registrations grow it outside):
    /// only a direct open past every slot held, a few times in a ring's
    /// life if ever.
    fn set_slot(&mut self, k: usize, slot: i32, value: u32) -> u32 {
        let Ok(idx) = usize::try_from(slot) else { return 0 };
        let fixed = &mut self.rings[k].fixed;
        if let Some(bigger) = fixed.wants_upto(idx).filter(|_| value != 0).and_then(FixedFiles::words_for) {
            drop(fixed.grow(bigger));
        }
        let before = fixed.value(slot);
        if !fixed.put(idx, value) && value != 0 {
            self.set.mark_partial();
        }
        before
    }
}
