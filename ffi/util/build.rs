// The library's soname, as darshan-util's libtool build names it: a
// program linked with -ldarshan-util records libdarshan-util.so.0.
//
// With uthash's header on the machine (Debian's uthash-dev), the table of
// names darshan-util hands out (darshan_log_get_namehash) is built by
// src/namehash.c with it; without it the library has no such call, and
// its header does not declare one (`cfg(uthash)`).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdarshan-util.so.0");
    println!("cargo:rustc-check-cfg=cfg(uthash)");
    println!("cargo:rerun-if-changed=src/namehash.c");
    // Compiled only where uthash's header is found.
    let built = cc::Build::new().file("src/namehash.c").warnings(true).try_compile("darshan_util_namehash");
    if built.is_ok() {
        println!("cargo:rustc-cfg=uthash");
    } else {
        println!("cargo:warning=no <uthash.h> (uthash-dev): libdarshan-util is built without darshan_log_get_namehash");
    }
}
