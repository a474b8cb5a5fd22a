#!/usr/bin/env bash
# Records C Darshan 3.5.0's darshan-diff output for every pair in
# pairs.txt: <n>.out.gz (stdout), <n>.err (stderr) and <n>.status, which
# crates/darshan-util/tests/diff.rs compares ours with byte for byte.
#
# The C tool is built from tag 3.5.0 (a checkout at $DARSHAN_C_SOURCE, or
# the tool library's git mirror) with darshan-diff-3.5.0-fixes.patch,
# which changes only what makes 3.5.0 crash or print memory it never
# wrote, as its own comments mean it:
#   * HEATMAP records are skipped as DXT's are: HEATMAP has no diff
#     function, and 3.5.0 calls it anyway (SIGSEGV on every log with heat
#     maps, i.e. every 3.4+ default log);
#   * DXT and HEATMAP records only the second log has are skipped too
#     (the same missing function);
#   * the exe buffers start zeroed: darshan_log_get_exe copies the exe
#     without its terminating NUL, so 3.5.0 prints whatever the stack
#     held after it ("...tmp.datD" here), and calls one log's exe
#     different from itself.
# Everything else, output and exit status, is 3.5.0's.
#
# usage: tests/c-darshan/diff/record.sh   (needs autotools, a C compiler, zlib)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../source.sh"
corpus=$root/../shared/corpus/logs
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
c_darshan_util_build "$w" "$here/darshan-diff-3.5.0-fixes.patch"
diff=$w/inst/bin/darshan-diff
n=0
cd "$corpus"
a=release_logs__mpi-io-test-x86_64-3.5.0.darshan
grep -v '^#' "$here/pairs.txt" | while read -r a b _; do
    n=$((n + 1))
    set +e
    "$diff" "$a" "$b" > "$w/out" 2> "$here/$n.err"
    echo $? > "$here/$n.status"
    gzip -9 -n < "$w/out" > "$here/$n.out.gz"
    set -e
done
# The command line's own cases: no logs, a log that does not exist.
set +e
"$diff" 2> "$here/usage.err" | gzip -9 -n > "$here/usage.out.gz"; echo "${PIPESTATUS[0]}" > "$here/usage.status"
"$diff" no-such.darshan "$a" 2> "$here/missing.err" | gzip -9 -n > "$here/missing.out.gz"
echo "${PIPESTATUS[0]}" > "$here/missing.status"
set -e
echo "recorded $(grep -vc '^#' "$here/pairs.txt") pairs in $here"
