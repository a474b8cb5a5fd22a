//! The printf/scanf family is variadic, which stable Rust cannot define:
//! `shim.c` implements those wrappers, and naked Rust functions export
//! them under the libc names (a cdylib does not export a linked C
//! library's symbols; docs/interposition.md rule 12). The C code calls back into
//! the functions below, handed to it at start-up (c_api.rs), to record.

use libc::{c_int, c_long, FILE};

use darshan_stdio::STDIO;

use crate::c_api::RsApi;
use crate::{clock, guard};

#[allow(unused_imports)]
use clock as _;

extern "C" {
    fn darshan_shim_init(api: *const RsApi);
}

pub fn init() {
    let api = RsApi {
        stream_filter: darshan_stdio::MAYBE_TRACKED.as_ptr().cast(),
        stdio_begun: STDIO.begun_flag(),
        stdio_begin: crate::stdio_wrap::stdio_begin_for_c,
        life: &guard::LIFE,
        use_tsc: &clock::USE_TSC,
        t0: &clock::T0,
        now: clock::now_for_c,
        lost_call: guard::lost_call_for_c,
        stdio_write,
        stdio_read,
    };
    // SAFETY: the shim copies `api` (it keeps no pointer to it) and
    // resolves its real functions; every pointer in it is to a static
    // that lives as long as the process (the first-call flag an
    // AtomicBool: one byte, which the shim only reads atomically).
    unsafe { darshan_shim_init(&api) };
}

/// A formatted write of `bytes` on `stream` ran from tick `tm1` to `tm2`
/// (the C caller has set the thread's guard and keeps errno).
pub extern "C" fn stdio_write(stream: *mut FILE, bytes: c_long, tm1: i64, tm2: i64) {
    guard::record_unguarded(|| STDIO.on_write(stream as usize, bytes, false, tm1, tm2));
}

/// A formatted read of `bytes` (ftell difference) on `stream` ended.
pub extern "C" fn stdio_read(stream: *mut FILE, bytes: c_long, tm1: i64) {
    let tm2 = clock::now();
    let s = if stream.is_null() { crate::host::stdin_ptr() } else { stream as usize };
    guard::record(|| STDIO.on_read(s, bytes, tm1, tm2));
}

macro_rules! export_shim {
    ($($name:ident => $target:ident),* $(,)?) => {
        extern "C" { $(fn $target();)* }
        $(
            /// Exported variadic entry point; its body is in shim.c.
            #[unsafe(naked)]
            #[no_mangle]
            pub extern "C" fn $name() {
                #[cfg(target_arch = "x86_64")]
                core::arch::naked_asm!("jmp {}", sym $target);
                #[cfg(target_arch = "aarch64")]
                core::arch::naked_asm!("b {}", sym $target);
            }
        )*
    };
}

export_shim! {
    fprintf => darshan_shim_fprintf,
    printf => darshan_shim_printf,
    __fprintf_chk => darshan_shim___fprintf_chk,
    __printf_chk => darshan_shim___printf_chk,
    fscanf => darshan_shim_fscanf,
    __isoc99_fscanf => darshan_shim___isoc99_fscanf,
    __isoc23_fscanf => darshan_shim___isoc23_fscanf,
    scanf => darshan_shim_scanf,
    __isoc99_scanf => darshan_shim___isoc99_scanf,
    __isoc23_scanf => darshan_shim___isoc23_scanf,
    execl => darshan_shim_execl,
    execlp => darshan_shim_execlp,
    execle => darshan_shim_execle,
}

// The va_list forms are fixed-arity, but live in C next to their variadic
// siblings; exported the same way.
export_shim! {
    vfprintf => darshan_shim_vfprintf,
    vprintf => darshan_shim_vprintf,
    __vfprintf_chk => darshan_shim___vfprintf_chk,
    __vprintf_chk => darshan_shim___vprintf_chk,
    vfscanf => darshan_shim_vfscanf,
    __isoc99_vfscanf => darshan_shim___isoc99_vfscanf,
    __isoc23_vfscanf => darshan_shim___isoc23_vfscanf,
}

#[allow(dead_code)]
fn _types(_: c_int) {}
