#!/usr/bin/env bash
# Records what darshan main's darshan-dxt-parser prints for make_logs.c's
# lustre-dxt log (written, as util_twins.sh writes it, through C's
# libdarshan-util 3.5.0): lustre-dxt.main.txt, without compressed sizes,
# in UTC, which util_twins.sh compares our darshan-dxt-parser with (ours
# prints main's layout: thread counts, the Pthread-ID column).
# lustre-dxt.main.source says which commit of main.
#
# darshan main is built from the tool library's git mirror of
# darshan-hpc/darshan (branch main; $DARSHAN_C_MIRROR to use another).
#
# usage: tests/c-darshan/twins/record.sh   (needs autotools, a C compiler, zlib)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../source.sh"
. "$here/common.sh"
mirror=${DARSHAN_C_MIRROR:-$root/../.mirror/darshan-hpc+darshan/repo}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
twins_c_tree "$w"
twins_logs "$w"
commit=$(git --git-dir="$mirror" rev-parse main)
mkdir -p "$w/main/src" "$w/main/build"
git --git-dir="$mirror" archive "$commit" | tar -x -C "$w/main/src"
(cd "$w/main/src" && ./prepare.sh > /dev/null)
(cd "$w/main/build" && "$w/main/src/darshan-util/configure" --prefix="$w/main/inst" > /dev/null &&
    make -j"$(nproc)" > /dev/null && make install > /dev/null)
TZ=UTC "$w/main/inst/bin/darshan-dxt-parser" "$w/gen/lustre-dxt.darshan" | without_sizes > "$here/lustre-dxt.main.txt"
echo "darshan-hpc/darshan main at $commit" > "$here/lustre-dxt.main.source"
echo "recorded $here/lustre-dxt.main.txt (main at $commit)"
