#!/usr/bin/env bash
# Regenerate ffi/text-order.txt: the runtime library's functions that a
# short process runs, which the linker places together at the start of
# the library's text (ffi/build.rs). Usage: scripts/text-order.sh
#
# Why: the kernel maps a library's text 64 KiB at a time on a page fault.
# Linked in the compiler's order, the 415 functions /bin/true runs in the
# library lay in 19 of the text's 28 windows (15 text faults per process);
# together they take 4 (docs/performance.md, issue 51, sixth step).
#
# The list is of symbol names, which stay the same from build to build of
# the same toolchain, lock file and features, but for the `.llvm.<hash>`
# suffix ThinLTO gives a local function it exports from its module: the
# hash moves with any change to that module's code. scripts/build.sh looks
# such names up again in the library it built and links it once more
# (scripts/text_order.py --resolve, ffi/build.rs), so a code change does
# not call for this script; a name that no longer exists is skipped by the
# linker. `just test` checks the list against the built library
# (scripts/text_order.py --check) and fails when too few of its functions
# are left (renamed, another toolchain, lock file or set of features): run
# this script again then, or when the workloads' functions change.
#
# Needs valgrind (callgrind lists every function a run executes). The
# workloads: /bin/true, `/usr/bin/python3 -c pass`, the reference POSIX and
# STDIO programs on a few calls, and a forked child that only exits (a
# shell's subshell: the child maps the library's text again, 64 KiB at a
# fault), each with the runtime enabled and its log on a scratch
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "text-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
scripts/build.sh -q
lib="${CARGO_TARGET_DIR:-$PWD/target}/release/libdarshan.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/logs" "$work/data"
cc -O2 -o "$work/posix_small" ../shared/reference/posix_small.c
cc -O2 -o "$work/stdio_mix" ../shared/reference/stdio_mix.c
run() {
    local tag=$1
    shift
    DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH="$work/logs" DARSHAN_MMAP_LOGPATH="$work/logs" LD_PRELOAD="$lib" \
        timeout 300 valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/$tag.%p.out" "$@" >/dev/null
}
# First (the runs are read in their names' order): the process that does
# nothing, against which text_order.py tells the per-call path (what the
# `-calls-` runs, which repeat a call, call a hundred times) from
# start-up and shutdown.
run 1-true /bin/true
# The interpreter itself, as the benchmark times it (bench_runtime.py):
# `python3` on PATH may be a shell script (a pyenv shim), and callgrind
# follows no child, so the list held the shell's functions, not Python's.
py=/usr/bin/python3
[ -x "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)')
run 2-python "$py" -c pass
run 3-calls-posix "$work/posix_small" "$work/data/p.dat" 100
run 4-calls-stdio "$work/stdio_mix" "$work/data/s.txt" 100
cc -O2 -o "$work/fork_exit" tests/programs/fork_exit.c
run 5-fork "$work/fork_exit" 1
python3 scripts/text_order.py "$lib" "$work"/*.out >ffi/text-order.txt
echo "ffi/text-order.txt: $(grep -vc '^#' ffi/text-order.txt) functions"
