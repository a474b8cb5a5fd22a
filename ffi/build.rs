// Compiles the C shim for the variadic printf/scanf wrappers.
fn main() {
    println!("cargo:rerun-if-changed=src/shim.c");
    cc::Build::new().file("src/shim.c").flag("-fvisibility=hidden").flag_if_supported("-O2").compile("darshanshim");
}
