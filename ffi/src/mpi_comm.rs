//! The core's [`Comm`] over the real PMPI functions on MPI_COMM_WORLD,
//! used only by the MPI shutdown (in MPI_Finalize, before PMPI_Finalize).

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, Ordering};

use darshan_core::collective::{Combine, Comm, CommError, Op};
use libc::{c_char, c_int};

use crate::mpi_abi::{self as m, Abi, H, MPI_SUCCESS};

pub struct MpiComm {
    abi: &'static Abi,
    rank: i64,
    size: i64,
    file: Cell<H>,
}

/// The combine function of the reduction in progress, for the C callback
/// (MPI user operators take no context). Only the shutdown thread sets it.
struct OpCtx<'a> {
    words: usize,
    combine: Combine<'a>,
}
static OP_CTX: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn user_op(input: *mut c_void, inout: *mut c_void, len: *mut c_int, _dt: *mut H) {
    let ctx = OP_CTX.load(Ordering::Acquire) as *const OpCtx;
    if ctx.is_null() || input.is_null() || inout.is_null() || len.is_null() {
        return;
    }
    // SAFETY: OP_CTX points at the OpCtx on the stack of `reduce_elems`,
    // which is inside the PMPI_Reduce call that invokes us; `len` is MPI's.
    let (ctx, n) = unsafe { (&*ctx, (*len).max(0) as usize * (*ctx).words) };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // MPI's buffers hold whole elements of `words` u64s; copy if MPI
        // handed us an address that is not 8-byte aligned.
        if (input as usize).is_multiple_of(8) && (inout as usize).is_multiple_of(8) {
            // SAFETY: both buffers hold `*len` elements of `words` u64s.
            let a = unsafe { std::slice::from_raw_parts(input as *const u64, n) };
            // SAFETY: as above; `inout` is MPI's writable accumulator.
            let b = unsafe { std::slice::from_raw_parts_mut(inout as *mut u64, n) };
            combine_all(ctx, a, b);
        } else {
            let mut a = vec![0u64; n];
            let mut b = vec![0u64; n];
            // SAFETY: both buffers hold n * 8 bytes; the copies are aligned.
            unsafe {
                std::ptr::copy_nonoverlapping(input as *const u8, a.as_mut_ptr().cast(), n * 8);
                std::ptr::copy_nonoverlapping(inout as *const u8, b.as_mut_ptr().cast(), n * 8);
            }
            combine_all(ctx, &a, &mut b);
            // SAFETY: writes back n * 8 bytes into MPI's accumulator.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr().cast(), inout as *mut u8, n * 8) };
        }
    }));
}

fn combine_all(ctx: &OpCtx, a: &[u64], b: &mut [u64]) {
    (ctx.combine)(a, b);
}

impl MpiComm {
    pub fn new(abi: &'static Abi) -> Option<MpiComm> {
        let (mut r, mut s) = (0, 0);
        let (fr, fs) = (m::PMPI_Comm_rank()?, m::PMPI_Comm_size()?);
        // SAFETY: writable ints; the world communicator exists after MPI_Init.
        let good = unsafe { fr(abi.comm_world, &mut r) == MPI_SUCCESS && fs(abi.comm_world, &mut s) == MPI_SUCCESS };
        good.then_some(MpiComm { abi, rank: r as i64, size: s as i64, file: Cell::new(0) })
    }

    fn op(&self, op: Op) -> H {
        match op {
            Op::Sum => self.abi.sum,
            Op::Min => self.abi.min,
            Op::Max => self.abi.max,
            Op::Band => self.abi.band,
            Op::Bor => self.abi.bor,
        }
    }

    /// Reduce 8-byte elements of `dt` (their bits in `v`) in place.
    fn allreduce(&self, v: &mut [u64], dt: H, op: Op) {
        let Some(f) = m::PMPI_Allreduce() else { return };
        let mut tmp = vec![0u64; v.len()];
        let n = v.len() as c_int;
        // SAFETY: `v` and `tmp` each hold n 8-byte elements of `dt`.
        let r = unsafe { f(v.as_mut_ptr().cast(), tmp.as_mut_ptr().cast(), n, dt, self.op(op), self.abi.comm_world) };
        if r == MPI_SUCCESS {
            v.copy_from_slice(&tmp);
        }
    }

    fn write(&self, off: u64, data: &[u8]) -> Result<(), CommError> {
        let f = m::PMPI_File_write_at().ok_or(CommError::Missing("MPI_File_write_at"))?;
        let mut status = [0u64; 16];
        let mut done = 0usize;
        // Pieces of at most 1 GiB (counts are ints).
        loop {
            let n = (data.len() - done).min(1 << 30);
            // SAFETY: the file is open; `data[done..done+n]` is readable.
            let r = unsafe {
                f(
                    self.file.get(),
                    (off + done as u64) as i64,
                    data[done..].as_ptr() as *mut c_void,
                    n as c_int,
                    self.abi.byte,
                    status.as_mut_ptr().cast(),
                )
            };
            if r != MPI_SUCCESS {
                return Err(CommError::Failed { call: "MPI_File_write_at", code: r });
            }
            done += n;
            if done >= data.len() {
                return Ok(());
            }
        }
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> i64 {
        self.rank
    }

    fn size(&self) -> i64 {
        self.size
    }

    fn barrier(&self) {
        if let Some(f) = m::PMPI_Barrier() {
            // SAFETY: the world communicator is valid until PMPI_Finalize.
            unsafe { f(self.abi.comm_world) };
        }
    }

    fn bcast(&self, buf: &mut [u8]) {
        let Some(f) = m::PMPI_Bcast() else { return };
        for chunk in buf.chunks_mut(1 << 30) {
            // SAFETY: `chunk` is writable for its length.
            unsafe { f(chunk.as_mut_ptr().cast(), chunk.len() as c_int, self.abi.byte, 0, self.abi.comm_world) };
        }
    }

    fn allreduce_u64(&self, v: &mut [u64], op: Op) {
        self.allreduce(v, self.abi.uint64, op)
    }

    fn allreduce_i64(&self, v: &mut [i64], op: Op) {
        self.allreduce(bytemuck::cast_slice_mut(v), self.abi.int64, op)
    }

    fn allreduce_f64(&self, v: &mut [f64], op: Op) {
        self.allreduce(bytemuck::cast_slice_mut(v), self.abi.double, op)
    }

    fn exscan_u64(&self, v: &mut [u64]) {
        let Some(f) = m::PMPI_Exscan() else { return };
        let mut out = vec![0u64; v.len()];
        // SAFETY: both buffers hold v.len() u64s.
        let r = unsafe {
            f(
                v.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                v.len() as c_int,
                self.abi.uint64,
                self.abi.sum,
                self.abi.comm_world,
            )
        };
        // Exscan leaves rank 0's result undefined: it is zero by definition.
        if r == MPI_SUCCESS && self.rank != 0 {
            v.copy_from_slice(&out);
        } else {
            v.iter_mut().for_each(|x| *x = 0);
        }
    }

    fn gather_u64s(&self, v: &[u64]) -> Vec<u64> {
        let (Some(f), Ok(n)) = (m::PMPI_Gather(), c_int::try_from(v.len())) else { return Vec::new() };
        let mut all = vec![0u64; if self.rank == 0 { self.size.max(0) as usize * v.len() } else { 0 }];
        // SAFETY: `n` u64 sent; rank 0's buffer holds `n` per rank (the
        // others' is not read by MPI).
        let r = unsafe {
            f(
                v.as_ptr().cast(),
                n,
                self.abi.uint64,
                all.as_mut_ptr().cast(),
                n,
                self.abi.uint64,
                0,
                self.abi.comm_world,
            )
        };
        if r == MPI_SUCCESS {
            all
        } else {
            Vec::new()
        }
    }

    fn gather_bytes(&self, data: &[u8], counts: &[u64]) -> Option<Vec<u8>> {
        // The shutdown agrees on the sizes before calling this (all_ok), so
        // that no rank returns here while the others enter the collective.
        let f = m::PMPI_Gatherv()?;
        let n = c_int::try_from(data.len()).ok()?;
        let root = self.rank == 0;
        if root && counts.len() != self.size.max(0) as usize {
            return None;
        }
        let (mut ints, mut displs) = (Vec::new(), Vec::new());
        if root {
            let mut at: c_int = 0;
            for &c in counts {
                let c = c_int::try_from(c).ok()?;
                ints.push(c);
                displs.push(at);
                at = at.checked_add(c)?;
            }
        }
        let mut all =
            vec![0u8; if root { displs.last().zip(ints.last()).map_or(0, |(d, c)| (d + c) as usize) } else { 0 }];
        let null = std::ptr::null();
        let (cp, dp) = if root { (ints.as_ptr(), displs.as_ptr()) } else { (null, null) };
        // An empty slice's pointer is 1 for bytes, which Open MPI takes for
        // MPI_IN_PLACE (an excluded rank sends nothing): a real byte's.
        let mut spare = [0u8; 1];
        let send = if data.is_empty() { spare.as_ptr() } else { data.as_ptr() };
        let recv = if all.is_empty() { spare.as_mut_ptr() } else { all.as_mut_ptr() };
        // SAFETY: `n` bytes sent from `send` (`data`, or `spare` when `n`
        // is 0); on rank 0 `recv` holds the sum of `counts` (`spare` when
        // it is 0, nothing written), one count and displacement per rank
        // (checked against the communicator's size); MPI reads the counts
        // on the root only.
        let r = unsafe { f(send.cast(), n, self.abi.byte, recv.cast(), cp, dp, self.abi.byte, 0, self.abi.comm_world) };
        (r == MPI_SUCCESS).then_some(all)
    }

    fn reduce_elems(&self, send: &[u64], recv: &mut [u64], elem_words: usize, combine: Combine) -> bool {
        let (Some(contig), Some(commit), Some(tfree), Some(opc), Some(opf), Some(reduce)) = (
            m::PMPI_Type_contiguous(),
            m::PMPI_Type_commit(),
            m::PMPI_Type_free(),
            m::PMPI_Op_create(),
            m::PMPI_Op_free(),
            m::PMPI_Reduce(),
        ) else {
            return false;
        };
        let count = send.len() / elem_words.max(1);
        let (mut dt, mut op): (H, H) = (0, 0);
        // SAFETY: out-pointers are writable handles; MPI_BYTE is predefined.
        let made = unsafe {
            contig((elem_words * 8) as c_int, self.abi.byte, &mut dt) == MPI_SUCCESS
                && commit(&mut dt) == MPI_SUCCESS
                && opc(user_op, 1, &mut op) == MPI_SUCCESS
        };
        let ctx = OpCtx { words: elem_words, combine };
        OP_CTX.store(&ctx as *const OpCtx as *mut c_void, Ordering::Release);
        let mut dummy = [0u64; 1];
        let out: *mut c_void = if recv.is_empty() { dummy.as_mut_ptr().cast() } else { recv.as_mut_ptr().cast() };
        // SAFETY: `send` holds `count` elements; on rank 0 `recv` as many.
        let r = made
            && unsafe { reduce(send.as_ptr().cast(), out, count as c_int, dt, op, 0, self.abi.comm_world) }
                == MPI_SUCCESS;
        OP_CTX.store(std::ptr::null_mut(), Ordering::Release);
        // SAFETY: frees the handles made above (no-ops on failure paths).
        unsafe {
            if op != 0 {
                opf(&mut op);
            }
            if dt != 0 {
                tfree(&mut dt);
            }
        }
        r
    }

    fn open_log(&self, path: &str, hints: &str) -> Result<(), CommError> {
        let (open, icreate, iset, ifree) = (
            m::PMPI_File_open().ok_or(CommError::Missing("MPI_File_open"))?,
            m::PMPI_Info_create(),
            m::PMPI_Info_set(),
            m::PMPI_Info_free(),
        );
        let cpath = CString::new(path).map_err(|_| CommError::BadPath(path.into()))?;
        let mut info = self.abi.info_null;
        if let (Some(ic), Some(is)) = (icreate, iset) {
            let pairs: Vec<(CString, CString)> = hints
                .split(';')
                .filter_map(|kv| kv.split_once('='))
                .filter(|(k, _)| !k.is_empty())
                .filter_map(|(k, v)| Some((CString::new(k).ok()?, CString::new(v).ok()?)))
                .collect();
            let mut i: H = 0;
            // SAFETY: `i` is a writable handle; keys/values NUL-terminated.
            if !pairs.is_empty() && unsafe { ic(&mut i) } == MPI_SUCCESS {
                for (k, v) in &pairs {
                    // SAFETY: as above.
                    unsafe { is(i, k.as_ptr(), v.as_ptr()) };
                }
                info = i;
            }
        }
        let mut fh: H = 0;
        // SAFETY: NUL-terminated path, valid info handle, writable `fh`.
        let r = unsafe { open(self.abi.comm_world, cpath.as_ptr(), m::LOG_AMODE, info, &mut fh) };
        if info != self.abi.info_null {
            if let Some(f) = ifree {
                // SAFETY: frees the info object created above.
                unsafe { f(&mut info) };
            }
        }
        if r != MPI_SUCCESS {
            return Err(CommError::Create { path: path.into(), code: r, text: mpi_error_text(r) });
        }
        self.file.set(fh);
        Ok(())
    }

    fn write_at(&self, off: u64, data: &[u8]) -> Result<(), CommError> {
        self.write(off, data)
    }

    fn sync_log(&self) -> Result<(), CommError> {
        let f = m::PMPI_File_sync().ok_or(CommError::Missing("MPI_File_sync"))?;
        // SAFETY: the file opened by open_log.
        match unsafe { f(self.file.get()) } {
            MPI_SUCCESS => Ok(()),
            r => Err(CommError::Failed { call: "MPI_File_sync", code: r }),
        }
    }

    fn close_log(&self) {
        let mut fh = self.file.get();
        if fh == 0 {
            return;
        }
        if let Some(f) = m::PMPI_File_close() {
            // SAFETY: `fh` is the file opened by open_log.
            unsafe { f(&mut fh) };
        }
        self.file.set(0);
    }
}

/// What the MPI library says an error code means ("MPI error 42" told a
/// user nothing), with the code.
fn mpi_error_text(code: c_int) -> String {
    let Some(f) = m::PMPI_Error_string() else { return format!("MPI error {code}") };
    // MPI_MAX_ERROR_STRING is 256 in Open MPI and 1024 in MPICH.
    let mut buf = [0 as c_char; 1024];
    let mut len: c_int = 0;
    // SAFETY: a buffer of the largest MPI_MAX_ERROR_STRING and an int for
    // its length, as MPI_Error_string writes them.
    if unsafe { f(code, buf.as_mut_ptr(), &mut len) } != MPI_SUCCESS {
        return format!("MPI error {code}");
    }
    let len = (len.max(0) as usize).min(buf.len());
    let bytes: Vec<u8> = buf[..len].iter().map(|&c| c as u8).collect();
    format!("{} (MPI error {code})", String::from_utf8_lossy(&bytes).trim())
}
