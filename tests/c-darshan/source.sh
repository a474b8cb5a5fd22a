# Sourced by the scripts here: sets `root`, the project's root, and
# defines the functions below.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# `c_darshan_workdir NAME`: target/NAME, made empty, for a run's files.
c_darshan_workdir() {
    rm -rf "$root/target/$1" && mkdir -p "$root/target/$1" && echo "$root/target/$1"
}

# `c_darshan_source DEST PATH...` puts the
# given paths of C Darshan 3.5.0's source tree under DEST, as they lie in
# the tree. They come from a C Darshan source tree already on this
# machine, never from the network: $DARSHAN_C_SOURCE (a checkout of tag
# 3.5.0), else the tag 3.5.0 of a git mirror of darshan-hpc/darshan at
# $DARSHAN_C_MIRROR (default: the tool library's mirror beside the
# project). Without either it says so and exits 77 (automake's
# "skipped"); scripts/test.sh then counts nothing.
c_darshan_source() {
    local dest=$1; shift
    local mirror=${DARSHAN_C_MIRROR:-$root/../.mirror/darshan-hpc+darshan/repo}
    mkdir -p "$dest"
    if [ -n "${DARSHAN_C_SOURCE:-}" ] && [ -d "$DARSHAN_C_SOURCE/darshan-test" ]; then
        (cd "$DARSHAN_C_SOURCE" && cp -r --parents "$@" "$dest/")
    elif git --git-dir="$mirror" rev-parse -q --verify 3.5.0 >/dev/null 2>&1; then
        git --git-dir="$mirror" archive 3.5.0 "$@" | tar -x -C "$dest"
    else
        echo "$(basename "$0"): skipped: no C Darshan 3.5.0 source on this machine (set DARSHAN_C_SOURCE)"
        exit 77
    fi
}

# `c_darshan_util_build DIR [PATCH]`: C Darshan 3.5.0's whole source
# under DIR/src (PATCH applied, when given), its darshan-util built and
# installed in DIR/inst (autotools, a C compiler and zlib). For the
# scripts that record C's outputs.
c_darshan_util_build() {
    local dir=$1 patch=${2:-}
    c_darshan_source "$dir/src" .
    if [ -n "$patch" ]; then
        (cd "$dir/src" && patch -p1 < "$patch" >/dev/null)
    fi
    (cd "$dir/src" && ./prepare.sh >/dev/null)
    mkdir -p "$dir/build"
    (cd "$dir/build" && "$dir/src/darshan-util/configure" --prefix="$dir/inst" >/dev/null &&
        make -j"$(nproc)" >/dev/null && make install >/dev/null)
}

# `c_darshan_later DEST COMMIT PATH...`: as c_darshan_source, the given
# paths as they are at COMMIT, a commit of darshan main after 3.5.0 (its
# tests of behaviour 3.5.0 already has), from the mirror only; without
# that commit it says so and exits 77.
c_darshan_later() {
    local dest=$1 commit=$2; shift 2
    local mirror=${DARSHAN_C_MIRROR:-$root/../.mirror/darshan-hpc+darshan/repo}
    mkdir -p "$dest"
    if git --git-dir="$mirror" cat-file -e "$commit^{commit}" 2>/dev/null; then
        git --git-dir="$mirror" archive "$commit" "$@" | tar -x -C "$dest"
    else
        echo "$(basename "$0"): skipped: no darshan commit $commit on this machine (a mirror of darshan-hpc/darshan at DARSHAN_C_MIRROR)"
        exit 77
    fi
}

# `c_darshan_mpi NAME` (mpich or openmpi): that MPI's compiler, launcher
# and the HAVE_OPEN_MPI C's `make check` gives, in `cc`, `run` and `ompi`.
c_darshan_mpi() {
    if [ "$1" = mpich ]; then
        cc=mpicc.mpich; run=mpiexec.mpich; ompi=
    else
        cc=mpicc.openmpi; run=mpiexec.openmpi; ompi=1
    fi
}
