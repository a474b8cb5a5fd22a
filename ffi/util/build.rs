// The library's soname, as darshan-util's libtool build names it: a
// program linked with -ldarshan-util records libdarshan-util.so.0.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdarshan-util.so.0");
}
