//! The PnetCDF put/get wrappers (PNETCDF_VAR), generated from one table:
//! every `ncmpi_{put,get}_var{,1,a,s,m,n}[_<type>][_all]`, the vard
//! calls, and every nonblocking `ncmpi_{iput,iget,bput}_var{,1,a,s,m,n}
//! [_<type>]`, the 550 entry points darshan-pnetcdf-api.m4 wraps. A
//! table row is one family: its API (op, kind, collective), its name
//! stem and mode suffix, the parameters its kind adds after
//! `(ncid, varid)`, and the function that measures an access from them;
//! the row makes the flexible entry point (buffer, count, MPI datatype)
//! and the 12 typed ones.
//!
//! Each wrapper finds its real function with `dlsym(RTLD_NEXT)` once,
//! passes through unless recording, times the real call, and on success,
//! under the guard (pnetcdf_wrap.rs's `timed`), measures the access
//! against the variable's shape (asking PnetCDF outside the module's
//! lock where Darshan's sizing needs it) and counts it.

use std::ffi::{c_int, c_void};
use std::sync::atomic::AtomicPtr;

use darshan_pnetcdf::{Api, Kind::*, Op::*, PNETCDF_VAR};

use crate::mpi_abi::H;
use crate::pnetcdf_lib::{Offset, NC_NOERR};
use crate::pnetcdf_wrap::{enabled, timed};

type Offsets = *const Offset;
type OffsetLists = *const *const Offset;
type Buf = *mut c_void;
type Req = *mut c_int;

const fn api(op: darshan_pnetcdf::Op, kind: darshan_pnetcdf::Kind, collective: bool) -> Api {
    Api { op, kind, collective }
}

/// The real function of `slot`, found by NUL-terminated `name`, as the
/// pointer type `F`; None if the process has none.
///
/// # Safety
/// `F` is an `unsafe extern "C" fn` type with the C prototype of `name`.
unsafe fn real<F: Copy>(slot: &AtomicPtr<c_void>, name: &'static [u8]) -> Option<F> {
    let p = crate::real::lookup(slot, name);
    // SAFETY: a function pointer is pointer-sized; `p` is the next
    // definition of `name`, of prototype `F` (the caller's contract).
    (!p.is_null()).then(|| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

/// One exported wrapper, `$name(ncid, varid, $p..., $q...)`: the kind's
/// parameters `$p` are handed to `measure::$measure` as well.
macro_rules! one {
    ($name:expr, $api:expr, ($($p:ident: $t:ty),*), ($($q:ident: $u:ty),*), $measure:ident) => {
        const _: () = {
            static REAL: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
            type Real = unsafe extern "C" fn(c_int, c_int, $($t,)* $($u),*) -> c_int;

            /// # Safety
            /// As PnetCDF's function of this name.
            #[export_name = $name]
            pub unsafe extern "C" fn wrapper(ncid: c_int, varid: c_int, $($p: $t,)* $($q: $u),*) -> c_int {
                // SAFETY: `Real` is this function's C prototype (pnetcdf.h).
                let real = unsafe { real::<Real>(&REAL, concat!($name, "\0").as_bytes()) };
                timed(
                    enabled(false),
                    // SAFETY: the program's arguments, passed on unchanged.
                    || real.map(|f| unsafe { f(ncid, varid, $($p,)* $($q),*) }),
                    |r, t1, t2| {
                        let Some(s) = PNETCDF_VAR.shape(varid).filter(|_| r == NC_NOERR) else { return };
                        // SAFETY: the arguments the successful call just
                        // accepted.
                        let access = unsafe { measure::$measure(&s, ncid, varid, $($p),*) };
                        PNETCDF_VAR.on_access(varid, $api, &access, t1, t2);
                    },
                )
            }
        };
    };
}

/// The typed entry points of a family, one per element type.
macro_rules! typed {
    ($api:expr, $stem:literal, $mode:literal, $params:tt, $tail:tt, $measure:ident; $($ty:literal)*) => {
        $( one!(concat!("ncmpi_", $stem, $ty, $mode), $api, $params, $tail, $measure); )*
    };
}

/// A family: the flexible entry point and the 12 typed ones; `$req`
/// names the request id a nonblocking call ends with.
macro_rules! family {
    ($api:expr, $stem:literal, $mode:literal, $params:tt, $measure:ident $(, $req:ident)?) => {
        one!(concat!("ncmpi_", $stem, $mode), $api, $params,
            (buf: Buf, bufcount: Offset, buftype: H $(, $req: Req)?), $measure);
        typed!($api, $stem, $mode, $params, (buf: Buf $(, $req: Req)?), $measure;
            "_text" "_schar" "_uchar" "_short" "_ushort" "_int" "_uint"
            "_long" "_float" "_double" "_longlong" "_ulonglong");
    };
}

// The table. Blocking puts and gets, independent and collective.
family!(api(Put, Var, false), "put_var", "", (), var);
family!(api(Put, Var, true), "put_var", "_all", (), var);
family!(api(Get, Var, false), "get_var", "", (), var);
family!(api(Get, Var, true), "get_var", "_all", (), var);
family!(api(Put, Var1, false), "put_var1", "", (start: Offsets), var1);
family!(api(Put, Var1, true), "put_var1", "_all", (start: Offsets), var1);
family!(api(Get, Var1, false), "get_var1", "", (start: Offsets), var1);
family!(api(Get, Var1, true), "get_var1", "_all", (start: Offsets), var1);
family!(api(Put, Vara, false), "put_vara", "", (start: Offsets, count: Offsets), vara);
family!(api(Put, Vara, true), "put_vara", "_all", (start: Offsets, count: Offsets), vara);
family!(api(Get, Vara, false), "get_vara", "", (start: Offsets, count: Offsets), vara);
family!(api(Get, Vara, true), "get_vara", "_all", (start: Offsets, count: Offsets), vara);
family!(api(Put, Vars, false), "put_vars", "", (start: Offsets, count: Offsets, stride: Offsets), vars);
family!(api(Put, Vars, true), "put_vars", "_all", (start: Offsets, count: Offsets, stride: Offsets), vars);
family!(api(Get, Vars, false), "get_vars", "", (start: Offsets, count: Offsets, stride: Offsets), vars);
family!(api(Get, Vars, true), "get_vars", "_all", (start: Offsets, count: Offsets, stride: Offsets), vars);
family!(api(Put, Varm, false), "put_varm", "", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm);
family!(api(Put, Varm, true), "put_varm", "_all", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm);
family!(api(Get, Varm, false), "get_varm", "", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm);
family!(api(Get, Varm, true), "get_varm", "_all", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm);
family!(api(Put, Varn, false), "put_varn", "", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn);
family!(api(Put, Varn, true), "put_varn", "_all", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn);
family!(api(Get, Varn, false), "get_varn", "", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn);
family!(api(Get, Varn, true), "get_varn", "_all", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn);

// vard: flexible only, sized by the file type.
one!("ncmpi_put_vard", api(Put, Vard, false), (filetype: H), (buf: Buf, bufcount: Offset, buftype: H), vard);
one!("ncmpi_put_vard_all", api(Put, Vard, true), (filetype: H), (buf: Buf, bufcount: Offset, buftype: H), vard);
one!("ncmpi_get_vard", api(Get, Vard, false), (filetype: H), (buf: Buf, bufcount: Offset, buftype: H), vard);
one!("ncmpi_get_vard_all", api(Get, Vard, true), (filetype: H), (buf: Buf, bufcount: Offset, buftype: H), vard);

// Nonblocking: posted now, carried out by ncmpi_wait[_all] (PNETCDF_FILE).
family!(api(Iput, Var, false), "iput_var", "", (), var, reqid);
family!(api(Iget, Var, false), "iget_var", "", (), var, reqid);
family!(api(Bput, Var, false), "bput_var", "", (), var, reqid);
family!(api(Iput, Var1, false), "iput_var1", "", (start: Offsets), var1, reqid);
family!(api(Iget, Var1, false), "iget_var1", "", (start: Offsets), var1, reqid);
family!(api(Bput, Var1, false), "bput_var1", "", (start: Offsets), var1, reqid);
family!(api(Iput, Vara, false), "iput_vara", "", (start: Offsets, count: Offsets), vara, reqid);
family!(api(Iget, Vara, false), "iget_vara", "", (start: Offsets, count: Offsets), vara, reqid);
family!(api(Bput, Vara, false), "bput_vara", "", (start: Offsets, count: Offsets), vara, reqid);
family!(api(Iput, Vars, false), "iput_vars", "", (start: Offsets, count: Offsets, stride: Offsets), vars, reqid);
family!(api(Iget, Vars, false), "iget_vars", "", (start: Offsets, count: Offsets, stride: Offsets), vars, reqid);
family!(api(Bput, Vars, false), "bput_vars", "", (start: Offsets, count: Offsets, stride: Offsets), vars, reqid);
family!(api(Iput, Varm, false), "iput_varm", "", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm, reqid);
family!(api(Iget, Varm, false), "iget_varm", "", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm, reqid);
family!(api(Bput, Varm, false), "bput_varm", "", (start: Offsets, count: Offsets, stride: Offsets, imap: Offsets), varm, reqid);
family!(api(Iput, Varn, false), "iput_varn", "", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn, reqid);
family!(api(Iget, Varn, false), "iget_varn", "", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn, reqid);
family!(api(Bput, Varn, false), "bput_varn", "", (num: c_int, starts: OffsetLists, counts: OffsetLists), varn, reqid);

/// The size of one access as Darshan measures it, from the arguments of
/// a call that succeeded and the variable's shape as last opened: bytes,
/// and the common-access tuple (bytes, then the counts and strides of the
/// last 5 dimensions, slowest first).
mod measure {
    use std::ffi::c_int;

    use darshan_pnetcdf::var::MAX_NDIMS;
    use darshan_pnetcdf::{Access, VarShape};

    use super::{OffsetLists, Offsets};
    use crate::mpi_abi::{self, H};
    use crate::pnetcdf_lib as lib;

    fn sized(bytes: i64) -> Access {
        let mut tuple = [0; 1 + 2 * MAX_NDIMS];
        tuple[0] = bytes;
        Access { bytes, tuple }
    }

    /// The whole variable: its points times the records so far, when the
    /// file has a record dimension (Darshan multiplies even for a
    /// variable that is not a record variable).
    pub unsafe fn var(s: &VarShape, ncid: c_int, _varid: c_int) -> Access {
        let mut n = s.npoints;
        if s.unlimdimid >= 0 {
            n = n.wrapping_mul(lib::dimlen(ncid, s.unlimdimid));
        }
        sized(n.wrapping_mul(s.type_size))
    }

    pub unsafe fn var1(s: &VarShape, _ncid: c_int, _varid: c_int, _start: Offsets) -> Access {
        sized(s.type_size)
    }

    /// The counts Darshan reads: as many as the variable's recorded rank,
    /// never more than the variable really has (Darshan's varid-only
    /// lookup can pair an access with another file's variable of the
    /// same id; it then reads past the program's array).
    fn rank(s: &VarShape, ncid: c_int, varid: c_int) -> usize {
        let recorded = usize::try_from(s.ndims).unwrap_or(0);
        recorded.min(lib::var_ndims(ncid, varid).unwrap_or(recorded))
    }

    /// # Safety
    /// `count` and `stride` are null or point to the variable's counts
    /// and strides, one per dimension.
    pub unsafe fn vars(
        s: &VarShape,
        ncid: c_int,
        varid: c_int,
        _start: Offsets,
        count: Offsets,
        stride: Offsets,
    ) -> Access {
        let n = rank(s, ncid, varid);
        if n == 0 || count.is_null() {
            return sized(s.type_size);
        }
        // SAFETY: the caller's contract, for n <= the variable's rank.
        let counts = unsafe { std::slice::from_raw_parts(count, n) };
        // SAFETY: as above.
        let strides = (!stride.is_null()).then(|| unsafe { std::slice::from_raw_parts(stride, n) });
        let points = counts.iter().fold(1i64, |p, &c| p.wrapping_mul(c));
        let mut a = sized(points.wrapping_mul(s.type_size));
        let first = n.saturating_sub(MAX_NDIMS);
        for (j, i) in (first..n).enumerate() {
            a.tuple[1 + j] = counts[i];
            a.tuple[1 + MAX_NDIMS + j] = strides.map_or(1, |st| st[i]);
        }
        a
    }

    /// # Safety
    /// As [`vars`] for `count`.
    pub unsafe fn vara(s: &VarShape, ncid: c_int, varid: c_int, start: Offsets, count: Offsets) -> Access {
        // SAFETY: the caller's contract.
        let mut a = unsafe { vars(s, ncid, varid, start, count, std::ptr::null()) };
        // A vara tuple has no strides.
        a.tuple[1 + MAX_NDIMS..].fill(0);
        a
    }

    /// # Safety
    /// As [`vars`]; the mapping is not looked at.
    pub unsafe fn varm(
        s: &VarShape,
        ncid: c_int,
        varid: c_int,
        start: Offsets,
        count: Offsets,
        stride: Offsets,
        _imap: Offsets,
    ) -> Access {
        // SAFETY: the caller's contract.
        unsafe { vars(s, ncid, varid, start, count, stride) }
    }

    /// `num` subarrays: the sum of their points (one point each when
    /// `counts` is null).
    ///
    /// # Safety
    /// `counts` is null or points to `num` pointers, each null or to one
    /// count per dimension.
    pub unsafe fn varn(
        s: &VarShape,
        ncid: c_int,
        varid: c_int,
        num: c_int,
        _starts: OffsetLists,
        counts: OffsetLists,
    ) -> Access {
        let num = usize::try_from(num).unwrap_or(0);
        if counts.is_null() {
            return sized((num as i64).wrapping_mul(s.type_size));
        }
        let n = rank(s, ncid, varid);
        // SAFETY: the caller's contract.
        let lists = unsafe { std::slice::from_raw_parts(counts, num) };
        let points = lists.iter().fold(0i64, |sum, &c| {
            let one = if c.is_null() {
                1
            } else {
                // SAFETY: the caller's contract.
                unsafe { std::slice::from_raw_parts(c, n) }.iter().fold(1i64, |p, &x| p.wrapping_mul(x))
            };
            sum.wrapping_add(one)
        });
        sized(points.wrapping_mul(s.type_size))
    }

    /// The size of the file type (not of the variable's elements), 0 for
    /// MPI_DATATYPE_NULL.
    pub unsafe fn vard(_s: &VarShape, _ncid: c_int, _varid: c_int, filetype: H) -> Access {
        let null = mpi_abi::abi_ready().is_none_or(|a| a.is_datatype_null(filetype));
        sized(if null { 0 } else { mpi_abi::type_bytes(filetype, 1) })
    }
}
