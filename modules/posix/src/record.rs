//! How each call changes a POSIX record: the counter rules of
//! docs/counter-rules.md §3, on the record's 64-bit words and its runtime state.

use darshan_core::common::{
    add, get, size_bucket, stamp, timer_inc_no_overlap, CommonPool, CommonVals, IoTimers, LastIo, NoOverlap, Tick,
};
use darshan_core::records::RecordSet;
use darshan_log::counters::posix::typed as c;

use crate::OpenKind;

/// Per-record state that is not written to the log.
pub struct Rt {
    pub offset: i64,
    last_byte_read: i64,
    last_byte_written: i64,
    last_io: LastIo,
    pub t: IoTimers,
    access: CommonVals,
    stride: CommonVals,
    /// The file's DXT_POSIX trace (darshan_dxt::Handle).
    pub dxt: darshan_dxt::Handle,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        self.t.each(f, c::fword(c::F_READ_TIME), c::fword(c::F_WRITE_TIME), c::fword(c::F_META_TIME));
    }
}

impl Default for Rt {
    fn default() -> Self {
        Rt {
            offset: 0,
            last_byte_read: 0,
            last_byte_written: 0,
            last_io: LastIo::None,
            t: IoTimers::default(),
            access: CommonVals::default(),
            stride: CommonVals::default(),
            dxt: 0,
        }
    }
}

/// Fields set once when a record is created. MMAPS starts at -1, what C
/// Darshan's shared library (the one a preload or a dynamic link brings)
/// writes in every record, as it cannot wrap mmap: a file never mapped
/// has C's record. (C's static library, libdarshan.a, wraps mmap and
/// starts at 0; ours writes -1 there too.)
pub fn init_new(set: &mut RecordSet<Rt>, i: usize, mem_align: i64, file_align: i64) {
    let w = set.words(i);
    w[c::word(c::MEM_ALIGNMENT)] = mem_align as u64;
    w[c::word(c::FILE_ALIGNMENT)] = file_align as u64;
    w[c::word(c::MMAPS)] = -1i64 as u64;
}

/// A mapping of the file: MMAPS counts them from 1 at the first (as C's
/// static library has it), also where C's shared library records none.
pub fn mmap(w: &mut [u64]) {
    let k = c::word(c::MMAPS);
    w[k] = (w[k] as i64).max(0) as u64 + 1;
}

pub fn meta_time(w: &mut [u64], rt: &mut Rt, tm1: Tick, tm2: Tick) {
    timer_inc_no_overlap(w, c::fword(c::F_META_TIME), tm1, tm2, &mut rt.t.meta);
}

pub fn open(w: &mut [u64], rt: &mut Rt, kind: OpenKind, mode: i64, tm1: Tick, tm2: Tick) {
    if mode != 0 {
        w[c::word(c::MODE)] = mode as u64;
    }
    if kind == OpenKind::Open {
        rt.offset = 0;
        rt.last_byte_read = 0;
        rt.last_byte_written = 0;
    }
    add(w, c::word(c::OPENS), 1);
    match kind {
        OpenKind::Dup => add(w, c::word(c::DUPS), 1),
        OpenKind::Fileno => add(w, c::word(c::FILENOS), 1),
        OpenKind::Open => {}
    }
    stamp(w, c::fword(c::F_OPEN_START_TIMESTAMP), c::fword(c::F_OPEN_END_TIMESTAMP), tm1, tm2);
    meta_time(w, rt, tm1, tm2);
}

pub fn close(w: &mut [u64], rt: &mut Rt, tm1: Tick, tm2: Tick) {
    rt.last_byte_read = 0;
    rt.last_byte_written = 0;
    stamp(w, c::fword(c::F_CLOSE_START_TIMESTAMP), c::fword(c::F_CLOSE_END_TIMESTAMP), tm1, tm2);
    meta_time(w, rt, tm1, tm2);
}

pub fn stat(w: &mut [u64], rt: &mut Rt, tm1: Tick, tm2: Tick) {
    add(w, c::word(c::STATS), 1);
    meta_time(w, rt, tm1, tm2);
}

/// A read or write of `bytes` at `offset` (positional calls) or at the
/// tracked offset.
#[allow(clippy::too_many_arguments)]
/// Returns the offset the access was at (DXT's segment offset).
pub fn access(
    w: &mut [u64],
    rt: &mut Rt,
    pool: &mut CommonPool,
    write: bool,
    bytes: i64,
    offset: Option<i64>,
    aligned: bool,
    tm1: Tick,
    tm2: Tick,
) -> i64 {
    // A fixed-size view lets the compiler drop the bounds checks.
    let Ok(w) = <&mut [u64; c::RECORD_WORDS]>::try_from(w) else { return offset.unwrap_or(rt.offset) };
    let w = &mut w[..];
    let this = offset.unwrap_or(rt.offset);
    let (seq, consec, max_byte, total, count, hist, last_byte) = if write {
        (
            c::SEQ_WRITES,
            c::CONSEC_WRITES,
            c::MAX_BYTE_WRITTEN,
            c::BYTES_WRITTEN,
            c::WRITES,
            c::SIZE_WRITE_0_100,
            &mut rt.last_byte_written,
        )
    } else {
        (
            c::SEQ_READS,
            c::CONSEC_READS,
            c::MAX_BYTE_READ,
            c::BYTES_READ,
            c::READS,
            c::SIZE_READ_0_100,
            &mut rt.last_byte_read,
        )
    };
    let stride = position(w, (seq, consec), last_byte, this, bytes);
    rt.offset = this + bytes;
    if get(w, c::word(max_byte)) < this + bytes - 1 {
        w[c::word(max_byte)] = (this + bytes - 1) as u64;
    }
    add(w, c::word(total), bytes);
    add(w, c::word(count), 1);
    add(w, c::word(hist.plus(size_bucket(bytes))), 1);
    rt.access.count(pool, w, c::word(c::ACCESS1_ACCESS), c::word(c::ACCESS1_COUNT), bytes);
    rt.stride.count(pool, w, c::word(c::STRIDE1_STRIDE), c::word(c::STRIDE1_COUNT), stride);
    alignment(w, this, aligned);
    if rt.last_io.switches(write) {
        add(w, c::word(c::RW_SWITCHES), 1);
    }
    timing(w, write, bytes, (tm1, tm2), &mut rt.t);
    this
}

/// Sequential and consecutive accesses against the last byte this
/// direction touched, which moves past this access; returns the stride
/// from it.
#[inline(always)]
fn position(w: &mut [u64], (seq, consec): (c::Counter, c::Counter), last_byte: &mut i64, this: i64, bytes: i64) -> i64 {
    if this > *last_byte {
        add(w, c::word(seq), 1);
    }
    if this == *last_byte + 1 {
        add(w, c::word(consec), 1);
    }
    let stride = if this > 0 && this > *last_byte && *last_byte != 0 { this - *last_byte - 1 } else { 0 };
    *last_byte = this + bytes - 1;
    stride
}

/// The memory and file alignment counters (the file's alignment is the
/// block size recorded at open; a power of two takes a mask).
#[inline(always)]
fn alignment(w: &mut [u64], this: i64, aligned: bool) {
    if !aligned {
        add(w, c::word(c::MEM_NOT_ALIGNED), 1);
    }
    let falign = get(w, c::word(c::FILE_ALIGNMENT));
    let off_in_block = if falign > 0 && falign & (falign - 1) == 0 {
        this & (falign - 1)
    } else if falign > 0 {
        this % falign
    } else {
        0
    };
    if off_in_block != 0 {
        add(w, c::word(c::FILE_NOT_ALIGNED), 1);
    }
}

/// The direction's first and last timestamps, its slowest access and that
/// access's size, and its time without overlap.
#[inline(always)]
fn timing(w: &mut [u64], write: bool, bytes: i64, (tm1, tm2): (Tick, Tick), t: &mut IoTimers) {
    let elapsed = tm2 - tm1;
    let (start, end, maxt, maxsz, time, last_end) = if write {
        (
            c::F_WRITE_START_TIMESTAMP,
            c::F_WRITE_END_TIMESTAMP,
            c::F_MAX_WRITE_TIME,
            c::MAX_WRITE_TIME_SIZE,
            c::F_WRITE_TIME,
            &mut t.write,
        )
    } else {
        (
            c::F_READ_START_TIMESTAMP,
            c::F_READ_END_TIMESTAMP,
            c::F_MAX_READ_TIME,
            c::MAX_READ_TIME_SIZE,
            c::F_READ_TIME,
            &mut t.read,
        )
    };
    stamp(w, c::fword(start), c::fword(end), tm1, tm2);
    if (w[c::fword(maxt)] as i64) < elapsed {
        w[c::fword(maxt)] = elapsed as u64;
        w[c::word(maxsz)] = bytes as u64;
    }
    timer_inc_no_overlap(w, c::fword(time), tm1, tm2, last_end);
}
