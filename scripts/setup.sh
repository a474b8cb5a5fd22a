#!/usr/bin/env bash
# Idempotent set-up of everything the tests and benchmarks need on a fresh
# Debian machine: a C compiler (the runtime tests compile C programs at
# test time), tar, coreutils' cp and python3 (programs the tests run under
# the runtime), gzip, GNU time and taskset (benchmarks), and a venv with
# PyDarshan 3.5.0 (the independent reader of our logs) and h5py 3.16.0
# from PyPI (its wheel bundles HDF5 2.0), mpi4py 4.1.2 (its wheel loads
# the system's libmpi RTLD_LOCAL, as Python loads every extension), and Debian's Open
# MPI (mpicc, mpirun) and Debian's MPICH beside it (mpicc.mpich,
# mpirun.mpich: every MPI test runs on both) with gfortran, for the MPI
# tests and the shutdown benchmark; nm, mount and git, HDF5 1.10
# (serial, Open MPI and MPICH builds) for the HDF5 module's tests,
# PnetCDF for the PnetCDF modules', and libfuse3 with fusermount3 for the
# LUSTRE module's (below); Debian's Chromium (darshan-summary's pages are
# rendered headless), and in the venv drishti-io 0.8 (Drishti, compared
# with our diagnosis) and websocket-client (drives Chromium's DevTools);
# Debian's Java with pyspark and duckdb in the venv (they read the Parquet
# dataset darshan-ingest writes).
# Safe to run again; skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."
# The lint gate in `just test` needs clippy and rustfmt beside cargo.
if command -v rustup >/dev/null; then
    for c in clippy rustfmt; do
        rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
    done
fi
need_apt=()
command -v cc >/dev/null || need_apt+=(gcc libc6-dev)
# The C library's archives (libc.a, libm.a, ...): util_programs.sh links
# C's darshan-parser.c fully static against libdarshan-util.a.
[ "$(cc -print-file-name=libc.a 2>/dev/null)" != libc.a ] || need_apt+=(libc6-dev)
command -v tar >/dev/null || need_apt+=(tar)
command -v cp >/dev/null || need_apt+=(coreutils)
command -v python3 >/dev/null || need_apt+=(python3)
command -v taskset >/dev/null || need_apt+=(util-linux)
command -v gzip >/dev/null || need_apt+=(gzip)
# The POSIX_META tools test counts the same run with strace.
command -v strace >/dev/null || need_apt+=(strace)
command -v find >/dev/null || need_apt+=(findutils)
[ -x /usr/bin/time ] || need_apt+=(time)
command -v mpicc >/dev/null || need_apt+=(libopenmpi-dev)
# setpriv and unshare: the privileged-use tests (a planting user, a
# private mount namespace).
command -v setpriv >/dev/null && command -v unshare >/dev/null || need_apt+=(util-linux)
command -v mpirun >/dev/null || need_apt+=(openmpi-bin)
# MPICH 4.0 beside Open MPI: Debian's alternatives keep Open MPI as plain
# mpicc/mpirun (priority 50 against 40); MPICH is called by its .mpich names.
command -v mpicc.mpich >/dev/null || need_apt+=(mpich libmpich-dev)
command -v gfortran >/dev/null || need_apt+=(gfortran)
command -v pkill >/dev/null || need_apt+=(procps)
# nm: the exported-symbol test; mount: the full-tmpfs test; git: the
# short-process benchmark (git status in a 2,000-file repository).
command -v nm >/dev/null || need_apt+=(binutils)
command -v mount >/dev/null || need_apt+=(mount)
command -v git >/dev/null || need_apt+=(git)
# sqlite3: a correct program the diagnosis must stay quiet on.
command -v sqlite3 >/dev/null || need_apt+=(sqlite3)
# uthash's header: libdarshan-util builds darshan-util's table of names
# with it (ffi/util/src/namehash.c), and C programs that use the table
# include it.
[ -f /usr/include/uthash.h ] || need_apt+=(uthash-dev)
# zlib's header: C Darshan's darshan-convert.c, built against our tree in
# tests/c-darshan/util_programs.sh, includes it.
[ -f /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
# bzip2 and patch: tests/c-darshan/util_twins.sh unpacks the uthash
# tarball darshan-util ships and applies darshan-diff's fixes.
command -v bzip2 >/dev/null || need_apt+=(bzip2)
command -v patch >/dev/null || need_apt+=(patch)
# pkg-config: the installed tree's darshan-runtime.pc is read by it;
# environment-modules: its modulefile is loaded by it.
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
[ -f /usr/share/modules/init/bash ] || need_apt+=(environment-modules)
# HDF5 1.10 (Debian 12): the serial library for the HDF5 module tests, the
# Open MPI and MPICH builds for the parallel ones.
[ -f /usr/include/hdf5/serial/hdf5.h ] || need_apt+=(libhdf5-dev)
[ -f /usr/include/hdf5/openmpi/hdf5.h ] || need_apt+=(libhdf5-openmpi-dev)
[ -f /usr/include/hdf5/mpich/hdf5.h ] || need_apt+=(libhdf5-mpich-dev)
# PnetCDF 1.12 (Debian 12, built for Open MPI) for the PnetCDF modules.
[ -f /usr/include/pnetcdf.h ] || need_apt+=(libpnetcdf-dev)
# NetCDF-4 (libnetcdf 4.9 on Debian's serial HDF5): a NetCDF-4 program's
# HDF5 calls, made by libnetcdf, in the HDF5 tests and the differential.
[ -f /usr/include/netcdf.h ] || need_apt+=(libnetcdf-dev)
# The LUSTRE module's end-to-end tests serve recorded layouts from a FUSE
# file system (skipped where /dev/fuse is missing).
[ -f /usr/include/fuse3/fuse.h ] || need_apt+=(libfuse3-dev)
command -v fusermount3 >/dev/null || need_apt+=(fuse3)
# IO_URING's tests: Debian's fio (its io_uring engine) and liburing.
command -v fio >/dev/null || need_apt+=(fio)
[ -f /usr/include/liburing.h ] || need_apt+=(liburing-dev)
# The seccomp tests' sandboxes, made with libseccomp as programs make them.
[ -f /usr/include/seccomp.h ] || need_apt+=(libseccomp-dev)
# darshan-summary's HTML pages are rendered in it by the tests.
command -v chromium >/dev/null || need_apt+=(chromium)
# darshan-summary's PDF (what darshan-job-summary.pl wrote) is read back
# by poppler's pdftotext, a reader of its own, in the tests.
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)
# Spark (pyspark, local mode) reads darshan-ingest's Parquet dataset in the
# tests; it runs on Debian's Java 17.
command -v java >/dev/null || need_apt+=(openjdk-17-jre-headless)
# The live view's daemon publishes to a real NATS server and is scraped by
# a real Prometheus in the tests (ffi/tests/stream.rs); darshan-top's
# screen is drawn in tmux.
command -v nats-server >/dev/null || need_apt+=(nats-server)
command -v prometheus >/dev/null || need_apt+=(prometheus)
command -v tmux >/dev/null || need_apt+=(tmux)
# One status line per step; what apt-get and pip print goes to a log
# that is named when a step fails.
mkdir -p target
LOG=$PWD/target/setup.log
: > "$LOG"
step() {
    local what=$1; shift
    printf 'set-up: %s ... ' "$what"
    if "$@" >> "$LOG" 2>&1; then
        echo ok
    else
        echo "FAILED (what it printed: $LOG)"
        tail -5 "$LOG" | sed 's/^/  | /'
        exit 1
    fi
}
apt_install() {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}
if [ ${#need_apt[@]} -gt 0 ]; then
    step "Debian packages (${#need_apt[@]}: ${need_apt[*]})" apt_install "${need_apt[@]}"
else
    echo "set-up: Debian packages ... already installed"
fi
venv() {
    if ! python3 -m venv .venv 2>/dev/null; then
        # Debian's own python3 needs the venv package for ensurepip
        apt_install python3-venv
        rm -rf .venv && python3 -m venv .venv
    fi
    # h5py's wheel bundles its own HDF5 (2.0), loaded RTLD_LOCAL: the
    # HDF5 tests run it under the library.
    # duckdb and pyspark read darshan-ingest's Parquet dataset (and DuckDB
    # runs the study's SQL over it) in the facility tests.
    # mpi4py's wheel, built for every MPI, loads the system's libmpi
    # RTLD_LOCAL: the MPI tests run it under the library.
    # pytest runs PyDarshan's own test suite, which its wheel ships,
    # through our libdarshan-util (tests/pydarshan/check_suite.py).
    .venv/bin/pip install -q --disable-pip-version-check darshan==3.5.0 h5py==3.16.0 drishti-io==0.8 websocket-client==1.9.2 pillow \
        duckdb==2.0.0 pyspark==3.5.3 mpi4py==4.1.2 pytest==9.2.0
}
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import darshan, numpy, h5py, drishti, websocket, PIL, duckdb, pyspark, mpi4py, pytest' 2>/dev/null; then
    step "Python venv (PyDarshan, h5py, Drishti, DuckDB, pyspark, mpi4py, pytest)" venv
else
    echo "set-up: Python venv ... already installed"
fi
