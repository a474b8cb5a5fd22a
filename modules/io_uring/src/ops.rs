//! What an io_uring request is, from its opcode (`enum io_uring_op` of
//! the kernel's uapi `linux/io_uring.h`; the numbers are the ABI).

/// The class of one request, for its record's counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A read: plain, vectored (`readv`), into registered buffers (`fixed`).
    Read {
        vectored: bool,
        fixed: bool,
    },
    Write {
        vectored: bool,
        fixed: bool,
    },
    /// fsync; `data`: with IORING_FSYNC_DATASYNC (fdatasync).
    Fsync {
        data: bool,
    },
    SyncRange,
    /// An operation on the file that moves no data (fallocate, close,
    /// fadvise, xattr, ftruncate).
    Meta,
}

pub const OP_READV: u8 = 1;
pub const OP_WRITEV: u8 = 2;
pub const OP_FSYNC: u8 = 3;
pub const OP_READ_FIXED: u8 = 4;
pub const OP_WRITE_FIXED: u8 = 5;
pub const OP_SYNC_FILE_RANGE: u8 = 8;
pub const OP_ACCEPT: u8 = 13;
pub const OP_FALLOCATE: u8 = 17;
pub const OP_OPENAT: u8 = 18;
pub const OP_CLOSE: u8 = 19;
pub const OP_FILES_UPDATE: u8 = 20;
pub const OP_READ: u8 = 22;
pub const OP_WRITE: u8 = 23;
pub const OP_FADVISE: u8 = 24;
pub const OP_OPENAT2: u8 = 28;
pub const OP_FSETXATTR: u8 = 41;
pub const OP_FGETXATTR: u8 = 43;
pub const OP_SOCKET: u8 = 45;
pub const OP_FTRUNCATE: u8 = 55;
pub const OP_READV_FIXED: u8 = 60;
pub const OP_WRITEV_FIXED: u8 = 61;

/// IORING_FSYNC_DATASYNC in an fsync request's flags.
pub const FSYNC_DATASYNC: u32 = 1;
/// IORING_FILE_INDEX_ALLOC as a request's `file_index`: the kernel puts
/// the descriptor it makes in a free registered slot, and the completion's
/// result is that slot.
pub const FILE_INDEX_ALLOC: u32 = u32::MAX;
/// IOSQE_FIXED_FILE: the request's fd is an index into the ring's
/// registered files.
pub const SQE_FIXED_FILE: u8 = 1;
/// IOSQE_CQE_SKIP_SUCCESS: no completion is posted if the request succeeds.
pub const SQE_CQE_SKIP_SUCCESS: u8 = 1 << 6;

/// The class of a request on a file descriptor, or None for a request
/// this module does not count (network, poll, timeouts, path-based
/// operations, no-ops).
pub fn class(opcode: u8, op_flags: u32) -> Option<Class> {
    Some(match opcode {
        OP_READ => Class::Read { vectored: false, fixed: false },
        OP_READV => Class::Read { vectored: true, fixed: false },
        OP_READ_FIXED => Class::Read { vectored: false, fixed: true },
        OP_READV_FIXED => Class::Read { vectored: true, fixed: true },
        OP_WRITE => Class::Write { vectored: false, fixed: false },
        OP_WRITEV => Class::Write { vectored: true, fixed: false },
        OP_WRITE_FIXED => Class::Write { vectored: false, fixed: true },
        OP_WRITEV_FIXED => Class::Write { vectored: true, fixed: true },
        OP_FSYNC => Class::Fsync { data: op_flags & FSYNC_DATASYNC != 0 },
        OP_SYNC_FILE_RANGE => Class::SyncRange,
        OP_FALLOCATE | OP_CLOSE | OP_FADVISE | OP_FSETXATTR | OP_FGETXATTR | OP_FTRUNCATE => Class::Meta,
        _ => return None,
    })
}

/// Whether a request of this opcode carries an iovec array (its `len` is
/// the number of iovecs, its bytes their sum).
pub fn vectored(opcode: u8) -> bool {
    matches!(opcode, OP_READV | OP_WRITEV | OP_READV_FIXED | OP_WRITEV_FIXED)
}
