//! The rings a process has set up, as the runtime learns of them: from
//! `io_uring_setup` and the `mmap`s of the ring descriptor (programs that
//! drive the kernel interface themselves, as fio does), or from a
//! liburing `struct io_uring` (which makes its own system calls). Here
//! only addresses and cursors, as integers: the ffi crate reads the
//! shared memory they point to.

use crate::fixed::FixedFiles;

/// Rings followed at once; a process's further rings are not seen (the
/// module is marked partial). Sixteen until 2026-12-05: fio with
/// `--thread --numjobs=32` has 32 rings in one process.
pub const MAX_RINGS: usize = 128;

pub const SETUP_IOPOLL: u32 = 1 << 0;
pub const SETUP_SQPOLL: u32 = 1 << 1;
pub const SETUP_SQE128: u32 = 1 << 10;
pub const SETUP_CQE32: u32 = 1 << 11;
pub const SETUP_NO_SQARRAY: u32 = 1 << 16;
pub const FEAT_SINGLE_MMAP: u32 = 1 << 0;

/// The offsets `mmap` takes for a ring's three regions.
pub const OFF_SQ_RING: u64 = 0;
pub const OFF_CQ_RING: u64 = 0x800_0000;
pub const OFF_SQES: u64 = 0x1000_0000;

/// What `io_uring_setup` returned in `struct io_uring_params`: sizes,
/// flags, and where each ring field lies in its mapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    pub sq_entries: u32,
    pub cq_entries: u32,
    pub flags: u32,
    pub features: u32,
    /// `io_sqring_offsets`: head, tail, ring_mask, ring_entries, flags,
    /// dropped, array.
    pub sq_off: [u32; 7],
    /// `io_cqring_offsets`: head, tail, ring_mask, ring_entries,
    /// overflow, cqes.
    pub cq_off: [u32; 6],
}

/// Where a ring's shared memory is: the kernel's and the program's
/// cursors, the index array and the entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingView {
    pub sq_head: usize,
    pub sq_tail: usize,
    pub sq_mask: u32,
    /// The SQ index array; 0 without one (IORING_SETUP_NO_SQARRAY).
    pub sq_array: usize,
    pub sqes: usize,
    pub sqe_size: usize,
    pub cq_head: usize,
    pub cq_tail: usize,
    pub cq_mask: u32,
    pub cq_entries: u32,
    pub cqes: usize,
    pub cqe_size: usize,
}

impl RingView {
    /// The view of a ring set up with `p` and mapped in these regions, or
    /// None unless every field the runtime reads lies inside the mapping
    /// the program made (reading past a short mapping would fault in the
    /// program).
    pub fn from_params(p: &Params, sq_ring: Region, cq_ring: Region, sqes: Region) -> Option<RingView> {
        if !p.sq_entries.is_power_of_two() || !p.cq_entries.is_power_of_two() {
            return None;
        }
        let (sqe_size, cqe_size) =
            (if p.flags & SETUP_SQE128 != 0 { 128 } else { 64 }, if p.flags & SETUP_CQE32 != 0 { 32 } else { 16 });
        let sq_end = if p.flags & SETUP_NO_SQARRAY != 0 { 0 } else { p.sq_off[6] as usize + 4 * p.sq_entries as usize };
        let sq_fits = sq_ring.holds(p.sq_off[0], 4) && sq_ring.holds(p.sq_off[1], 4) && sq_end <= sq_ring.len;
        let cq_fits = cq_ring.holds(p.cq_off[0], 4)
            && cq_ring.holds(p.cq_off[1], 4)
            && cq_ring.holds(p.cq_off[5], cqe_size * p.cq_entries as usize);
        if !sq_fits || !cq_fits || !sqes.holds(0, sqe_size * p.sq_entries as usize) {
            return None;
        }
        let (sq_ring, cq_ring, sqes) = (sq_ring.addr, cq_ring.addr, sqes.addr);
        let at = |base: usize, off: u32| base.checked_add(off as usize);
        Some(RingView {
            sq_head: at(sq_ring, p.sq_off[0])?,
            sq_tail: at(sq_ring, p.sq_off[1])?,
            sq_mask: p.sq_entries - 1,
            sq_array: if p.flags & SETUP_NO_SQARRAY != 0 { 0 } else { at(sq_ring, p.sq_off[6])? },
            sqes,
            sqe_size,
            cq_head: at(cq_ring, p.cq_off[0])?,
            cq_tail: at(cq_ring, p.cq_off[1])?,
            cq_mask: p.cq_entries - 1,
            cq_entries: p.cq_entries,
            cqes: at(cq_ring, p.cq_off[5])?,
            cqe_size,
        })
    }
}

/// One mapping the program made of a ring region: where and how long.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Region {
    pub addr: usize,
    pub len: usize,
}

impl Region {
    /// Whether `bytes` at offset `off` lie inside the mapping.
    fn holds(&self, off: u32, bytes: usize) -> bool {
        self.addr != 0 && (off as usize).checked_add(bytes).is_some_and(|end| end <= self.len)
    }
}

/// One ring followed.
pub struct Ring {
    /// The ring's descriptor; -1: a free slot.
    pub fd: i32,
    pub flags: u32,
    pub params: Params,
    sq_ring: Region,
    cq_ring: Region,
    sqes: Region,
    pub view: Option<RingView>,
    /// Our cursor in the completion queue: the next completion to read.
    pub cq_seen: u32,
    /// Our cursor in the submission queue (SQPOLL rings: the kernel's
    /// thread takes entries without a call of the program's).
    pub sq_seen: u32,
    /// Requests submitted on this ring whose completion is not read yet,
    /// and the most there were at once.
    pub inflight: u32,
    pub max_inflight: u32,
    /// Registered files.
    pub fixed: FixedFiles,
}

impl Ring {
    pub const FREE: Ring = Ring {
        fd: -1,
        flags: 0,
        params: Params { sq_entries: 0, cq_entries: 0, flags: 0, features: 0, sq_off: [0; 7], cq_off: [0; 6] },
        sq_ring: Region { addr: 0, len: 0 },
        cq_ring: Region { addr: 0, len: 0 },
        sqes: Region { addr: 0, len: 0 },
        view: None,
        cq_seen: 0,
        sq_seen: 0,
        inflight: 0,
        max_inflight: 0,
        fixed: FixedFiles::NONE,
    };

    /// A ring set up through `io_uring_setup`, not mapped yet (the
    /// kernel's cursors start at 0, and so do ours).
    pub fn from_setup(fd: i32, params: Params) -> Ring {
        Ring { fd, flags: params.flags, params, ..Ring::FREE }
    }

    /// A ring whose addresses liburing's `struct io_uring` gave, learnt
    /// with the kernel's SQ head and CQ head at `sq` and `cq`: what came
    /// before is not ours to count.
    pub fn from_view(fd: i32, flags: u32, view: RingView, (sq, cq): (u32, u32)) -> Ring {
        Ring { fd, flags, view: Some(view), sq_seen: sq, cq_seen: cq, ..Ring::FREE }
    }

    /// The program mapped region `offset` of the ring at `addr`: the view
    /// is known once the three regions are (or two, with one mapping for
    /// both queues).
    pub fn mapped(&mut self, offset: u64, region: Region) {
        match offset {
            OFF_SQ_RING => self.sq_ring = region,
            OFF_CQ_RING => self.cq_ring = region,
            OFF_SQES => self.sqes = region,
            _ => return,
        }
        let single = self.params.features & FEAT_SINGLE_MMAP != 0;
        let cq = if self.cq_ring.addr == 0 && single { self.sq_ring } else { self.cq_ring };
        self.view = RingView::from_params(&self.params, self.sq_ring, cq, self.sqes);
    }

    /// Whether one of the ring's regions is mapped at `addr`.
    pub fn maps(&self, addr: usize) -> bool {
        addr != 0
            && ([self.sq_ring.addr, self.cq_ring.addr, self.sqes.addr].contains(&addr)
                || self.view.is_some_and(|v| v.sqes == addr))
    }

    /// The ring's mapping at `addr` went away (munmap).
    pub fn unmapped(&mut self, addr: usize) -> bool {
        let hit = self.maps(addr);
        if hit {
            self.view = None;
        }
        hit
    }

    pub fn sqpoll(&self) -> bool {
        self.flags & SETUP_SQPOLL != 0
    }

    pub fn iopoll(&self) -> bool {
        self.flags & SETUP_IOPOLL != 0
    }

    /// Submission queue entries: from the setup's answer, or liburing's
    /// view of a ring set up before we saw it.
    pub fn entries(&self) -> u32 {
        match self.view {
            _ if self.params.sq_entries > 0 => self.params.sq_entries,
            Some(v) => v.sq_mask.wrapping_add(1),
            None => 0,
        }
    }
}
