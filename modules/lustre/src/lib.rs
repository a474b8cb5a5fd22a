//! The LUSTRE module (LUSTRE version 2): the striping of every file the
//! program closed, read from the file's `lustre.lov` extended attribute
//! at `close`/`fclose` (an MPI-IO file's at the POSIX close beneath
//! `MPI_File_close`, as in C) and decoded here ([`layout`]) — no
//! liblustreapi.
//! As in Darshan 3.5.0 the attribute is asked of every file, whatever the
//! file system its path names, since a symlink can lead into Lustre; but
//! only in a process whose mount table holds a mount that can answer
//! ([`lustre_possible`]): elsewhere no file can be on Lustre, and the
//! failed `fgetxattr` was 0.9 us of every recorded close on this machine
//! (a quarter of what a new file's open, write and close adds).
//!
//! A record is sized from the first layout seen: the number of components
//! and the sum of their stripe counts (uninstantiated components
//! included), 32 + 72 per component + 8 per OST bytes. Each later close
//! refills it from the current layout: only instantiated components (all
//! of a plain layout) are kept, in order, with their OST lists; the rest
//! are marked unused (stripe size -1) and left out of the log. Records
//! share their POSIX/STDIO record's id and name. The memory is what
//! MAX_RECORDS records of 1 KiB would take (1 MiB by default), used for
//! records of any size until full (then the module is partial).
#![forbid(unsafe_code)]

pub mod layout;

use std::sync::atomic::{AtomicBool, Ordering};

use darshan_core::arena::Slice;
use darshan_core::collective::Comm;
use darshan_core::mounts::{MountEntry, MAX_MNTS};
use darshan_core::records::Records;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::var_records::VarRecordSet;
use darshan_core::{Env, FinalizeCtx, Module, ModuleSpec};
use darshan_core::{LockedState, ModuleState};
use darshan_log::modules::LUSTRE as ID;

use layout::{Layout, FL_INIT};

/// Darshan's nominal record size for the reservation: 1 KiB.
pub const NOMINAL_WORDS: usize = 128;
/// id, rank, num_comps, num_stripes.
const HEAD: usize = 4;
/// Seven counters and a 16-byte pool name.
const COMP_WORDS: usize = 9;
const STRIPE_SIZE: usize = 0;
const STRIPE_COUNT: usize = 1;
const STRIPE_PATTERN: usize = 2;
const FLAGS: usize = 3;
const EXT_START: usize = 4;
const EXT_END: usize = 5;
const MIRROR_ID: usize = 6;
/// The pool name: Darshan copies it with `n` = 15, so 14 bytes at most.
const POOL_MAX: usize = 14;

/// Words of the record that starts `w`.
pub fn record_len(w: &[u64]) -> usize {
    let comps = w.get(2).copied().unwrap_or(0) as usize;
    let stripes = w.get(3).copied().unwrap_or(0) as usize;
    HEAD.saturating_add(comps.saturating_mul(COMP_WORDS)).saturating_add(stripes)
}

struct State {
    set: VarRecordSet,
    /// Attributes that were not a layout, or did not hold together.
    bad_layouts: u64,
    /// After an MPI reduction: the ids every rank has (rank -1 on rank 0,
    /// left out on the others), sorted.
    shared: Vec<u64>,
}

pub struct Lustre {
    state: Lock<State>,
    /// Whether a file of this process can be on Lustre (set at attach):
    /// read without the lock at every recorded close.
    possible: AtomicBool,
}

/// Whether a file this process opens can be on Lustre, from its mount
/// table: a Lustre mount is in it, or one that may pass Lustre's
/// attributes through from beneath (a FUSE file system, overlayfs); or
/// the table says nothing (it could not be read) or was cut at its
/// [`MAX_MNTS`] entries and one may be missing. A symlink can lead
/// anywhere, but only into a mounted file system.
pub fn lustre_possible(mounts: &[MountEntry]) -> bool {
    mounts.is_empty()
        || mounts.len() >= MAX_MNTS
        || mounts.iter().any(|m| matches!(m.fs_type.as_str(), "lustre" | "overlay") || m.fs_type.starts_with("fuse"))
}

pub static LUSTRE: Lustre = Lustre::new();

/// The size of a new record for `l`, as the C module computes it: every
/// component, and the stripe counts of those whose pattern is not MDT,
/// summed in a C `int` (liblustreapi's "default" and "wide" counts are
/// huge and wrap there). None if that sum is negative: Darshan then asks
/// for more memory than there is, and gets none.
fn sizes(l: &Layout) -> Option<(usize, usize)> {
    let mut stripes: i32 = 0;
    for c in (0..l.count).filter_map(|i| l.component(i)) {
        if c.pattern & layout::PATTERN_MDT == 0 {
            stripes = (stripes as u64).wrapping_add(c.stripe_count) as u32 as i32;
        }
    }
    (stripes >= 0).then_some((l.count, stripes as usize))
}

/// Fill the record `w` (sized by [`sizes`], maybe from an earlier layout)
/// from `l`, as the C module's component walk does.
fn fill(w: &mut [u64], l: &Layout) {
    let (ncomps, nstripes) = (w[2] as usize, w[3]);
    let (comps, osts) = w[HEAD..].split_at_mut(ncomps * COMP_WORDS);
    let (mut kept, mut ost_at) = (0usize, 0u64);
    for i in 0..l.count {
        if kept >= ncomps {
            break;
        }
        let Some(c) = l.component(i) else { break };
        let Some(size) = c.stripe_size else { continue };
        let count = if c.pattern & layout::PATTERN_MDT != 0 { 0 } else { c.stripe_count };
        if l.composite && c.flags & FL_INIT == 0 || ost_at.checked_add(count).is_none_or(|end| end > nstripes) {
            continue;
        }
        let k = &mut comps[kept * COMP_WORDS..(kept + 1) * COMP_WORDS];
        k[STRIPE_SIZE] = size;
        k[STRIPE_COUNT] = count;
        k[STRIPE_PATTERN] = c.pattern;
        k[FLAGS] = u64::from(c.flags);
        k[EXT_START] = c.ext_start;
        k[EXT_END] = c.ext_end;
        k[MIRROR_ID] = u64::from(c.mirror_id);
        let mut pool = [0u8; 16];
        let n = c.pool.len().min(POOL_MAX);
        pool[..n].copy_from_slice(&c.pool[..n]);
        k[7] = u64::from_le_bytes(pool[..8].try_into().unwrap_or_default());
        k[8] = u64::from_le_bytes(pool[8..].try_into().unwrap_or_default());
        for s in 0..count {
            osts[(ost_at + s) as usize] = c.ost(s).unwrap_or(u64::MAX);
        }
        ost_at += count;
        kept += 1;
    }
    for k in kept..ncomps {
        comps[k * COMP_WORDS + STRIPE_SIZE] = u64::MAX;
    }
}

/// `id`'s record in `set`, made (sized from `l`) if new, filled from `l`;
/// its word offset, or None when there is no room.
fn record_layout(set: &mut VarRecordSet, id: u64, l: &Layout) -> Option<usize> {
    let off = match set.find(id) {
        Some(off) => off,
        None => {
            // A negative size asks for more than there is: refused, and
            // the module partial, as in C.
            let (comps, stripes) = sizes(l).unwrap_or((usize::MAX, 0));
            let len = comps.saturating_mul(COMP_WORDS).saturating_add(HEAD + stripes);
            set.create(id, len, &[comps as u64, stripes as u64])?
        }
    };
    fill(set.record_mut(off), l);
    Some(off)
}

/// The record as written: components from the first unused one dropped,
/// with the OST ids they used (C's `lustre_serialize_records`).
fn truncated(w: &[u64]) -> Vec<u64> {
    let ncomps = w[2] as usize;
    let comps = &w[HEAD..HEAD + ncomps * COMP_WORDS];
    let kept = (0..ncomps).position(|k| comps[k * COMP_WORDS + STRIPE_SIZE] == u64::MAX).unwrap_or(ncomps);
    let stripes: u64 = (0..kept).map(|k| comps[k * COMP_WORDS + STRIPE_COUNT]).fold(0, u64::wrapping_add);
    let osts = &w[HEAD + ncomps * COMP_WORDS..];
    let used = (stripes as usize).min(osts.len());
    let mut out = Vec::with_capacity(HEAD + kept * COMP_WORDS + used);
    out.extend_from_slice(&[w[0], w[1], kept as u64, used as u64]);
    out.extend_from_slice(&comps[..kept * COMP_WORDS]);
    out.extend_from_slice(&osts[..used]);
    out
}

impl Default for Lustre {
    fn default() -> Self {
        Lustre::new()
    }
}

impl Lustre {
    /// An empty, unattached instance: the process's is [`LUSTRE`]; a test
    /// builds its own.
    pub const fn new() -> Lustre {
        Lustre {
            state: Lock::new(State {
                set: VarRecordSet::new(ID, record_len, HEAD + COMP_WORDS),
                bad_layouts: 0,
                shared: Vec::new(),
            }),
            possible: AtomicBool::new(false),
        }
    }

    /// Whether a closing file's `lustre.lov` is worth asking for: false
    /// before attach, and where no file can be on Lustre.
    #[inline]
    pub fn possible(&self) -> bool {
        self.possible.load(Ordering::Relaxed)
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.state.lock()
    }

    /// A file whose record is `id` is being closed and its `lustre.lov`
    /// attribute read `attr`: make or refresh its LUSTRE record. A blob
    /// that is not a layout counts as a bad layout and makes no record.
    pub fn on_layout(&self, id: u64, attr: &[u8]) {
        // Decoded before the lock is taken: it only reads `attr`.
        let parsed = layout::parse(attr);
        let mut st = self.lock();
        if st.set.frozen() {
            return;
        }
        let Some(l) = parsed else {
            st.bad_layouts += 1;
            return;
        };
        record_layout(&mut st.set, id, &l);
    }

    /// Layouts that could not be decoded so far.
    pub fn bad_layouts(&self) -> u64 {
        self.lock().bad_layouts
    }
}

const SPEC: ModuleSpec = ModuleSpec::new(ID, NOMINAL_WORDS);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for Lustre {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.state)
    }

    fn attach(&self, slice: Slice, env: &Env) {
        self.possible.store(lustre_possible(env.mounts), Ordering::Relaxed);
        self.lock().set.attach(slice, env);
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn record_len(&self, rec: &[u64]) -> usize {
        record_len(rec)
    }
    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut st = self.lock();
        st.set.freeze();
        if st.set.rank() != ctx.rank {
            st.set.set_rank(ctx.rank);
        }
    }
    /// Shared records just get rank -1 (rank 0 keeps its own layout).
    fn reduce(&self, shared: &[u64], _comm: &dyn Comm) {
        let mut ids = shared.to_vec();
        ids.sort_unstable();
        self.lock().shared = ids;
    }
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let st = self.lock();
        for r in st.set.iter() {
            let shared = st.shared.binary_search(&r[0]).is_ok();
            if shared && st.set.rank() > 0 {
                continue;
            }
            let mut out = truncated(r);
            if shared {
                out[1] = u64::MAX;
            }
            emit(&out);
        }
    }
    fn metadata_counts(&self) -> Vec<(&'static str, u64)> {
        vec![("lustre_bad_layouts", self.bad_layouts())]
    }
    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        st.bad_layouts = 0;
        st.shared = Vec::new();
    }
}

#[cfg(test)]
mod tests;
