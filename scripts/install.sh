#!/usr/bin/env bash
# scripts/install.sh BUILD_DIR PREFIX: install the runtime and the tools
# from a cargo release build directory (target/release) into PREFIX.
#   PREFIX/bin    darshan-parser, -dxt-parser, -convert, -merge, -run,
#                 darshan-config, darshan-mk-log-dirs, darshan-mmap-epilog,
#                 darshan-cc (and -cxx, -mpicc, -mpicxx, -mpifort, -fc)
#   PREFIX/lib    libdarshan.so, libdarshan.a, pkgconfig/darshan-runtime.pc
#   PREFIX/share  mpi-profile/darshan-{cc,cxx,f}.conf (MPICH's -profile=),
#                 modulefiles/darshan (environment-modules and Lmod)
# Nothing installed names the build tree: darshan-config, the compiler
# wrappers and the pkg-config file find PREFIX from where they are, so the
# tree can be copied or moved as a whole.
set -euo pipefail
build=${1:?usage: install.sh BUILD_DIR PREFIX}
prefix=${2:?usage: install.sh BUILD_DIR PREFIX}
src=$(cd "$(dirname "$0")/.." && pwd)
for f in libdarshan.so libdarshan.a darshan-parser darshan-dxt-parser darshan-convert darshan-merge darshan-run darshan-config; do
    [ -f "$build/$f" ] || { echo "install.sh: $build/$f missing (cargo build --release)" >&2; exit 1; }
done
mkdir -p "$prefix/bin" "$prefix/lib/pkgconfig"
for f in darshan-parser darshan-dxt-parser darshan-convert darshan-merge darshan-run darshan-config; do
    install -m 0755 "$build/$f" "$prefix/bin/$f"
done
install -m 0755 "$src/scripts/darshan-mk-log-dirs" "$src/scripts/darshan-mmap-epilog" "$prefix/bin/"
install -m 0755 "$src/scripts/compiler-wrapper" "$prefix/bin/darshan-cc"
for w in darshan-cxx darshan-mpicc darshan-mpicxx darshan-mpifort darshan-fc; do
    ln -sf darshan-cc "$prefix/bin/$w"
done
install -m 0755 "$build/libdarshan.so" "$prefix/lib/libdarshan.so"
mkdir -p "$prefix/share/mpi-profile" "$prefix/share/modulefiles"
install -m 0644 "$src"/scripts/share/mpi-profile/*.conf "$prefix/share/mpi-profile/"
install -m 0644 "$src/scripts/share/modulefiles/darshan" "$prefix/share/modulefiles/darshan"
install -m 0644 "$build/libdarshan.a" "$prefix/lib/libdarshan.a"
version=$("$prefix/bin/darshan-config" --version | awk '{print $3}')
# pkg-config replaces ${pcfiledir} with this file's directory: the
# prefix follows the tree wherever it is.
cat > "$prefix/lib/pkgconfig/darshan-runtime.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib

Name: darshan-runtime
Description: Darshan I/O characterization runtime (darshan-rs)
Version: $version
Libs: -L\${libdir} -Wl,-rpath=\${libdir} -Wl,-no-as-needed -ldarshan
PC
echo "installed in $prefix"
