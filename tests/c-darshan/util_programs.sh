#!/usr/bin/env bash
# C Darshan 3.5.0's own C programs on darshan-util's API, unmodified,
# compiled against our install tree (`pkg-config --cflags --libs
# darshan-util`: our headers, our libdarshan-util):
#
#   * its accumulator unit test (darshan-util/tests/unit-tests, with the
#     munit it ships), which must pass;
#   * its darshan-parser.c, which must print every corpus log that has
#     C's expected output (`darshan-parser --all`) as C's darshan-parser
#     printed it. Left out: the big-endian logs older than 3.1.7, where
#     C's darshan-util misreads POSIX fcounters 10-12 and ours does not
#     (docs/deployment.md). The advice darshan-parser.c itself prints for
#     incomplete modules differs between 3.5.0's tag and the build that
#     made the corpus's outputs: those two lines are not compared. It is
#     built twice: against libdarshan-util.so, and fully static against
#     libdarshan-util.a (`cc -static ... $(pkg-config --static --libs
#     darshan-util)`), as a site links a tool that must run anywhere;
#   * its darshan-convert.c (with the lookup3.c its Makefile links in) and
#     darshan-merge.c, which write logs through darshan-util's writer:
#     for each case of writer/cases.txt, the log they write must print
#     (`darshan-parser --all`, compressed sizes left out) as the log C's
#     own tools wrote for it (writer/record.sh recorded those);
#   * and, against the same recordings, our own darshan-convert on every
#     conversion and our darshan-merge on a killed HDF5 and PnetCDF job's
#     ranks (writer/ranks/, with and without its first rank first, and
#     its one log of every rank's records), a Python job's processes and
#     two MPI jobs.
#
# The programs come from a C Darshan source tree on this machine
# (source.sh), never from the network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
cd "$root"
w=$(c_darshan_workdir c-util-programs)
c_darshan_source "$w/c" darshan-util/darshan-parser.c darshan-util/tests/unit-tests \
    darshan-util/darshan-convert.c darshan-util/darshan-merge.c darshan-util/lookup3.c
scripts/install.sh target/release "$w/prefix" >/dev/null
export PKG_CONFIG_PATH="$w/prefix/lib/pkgconfig"
if [ ! -f "$w/prefix/include/uthash-1.9.2/src/uthash.h" ]; then
    echo "util_programs: libdarshan-util was built without uthash's header (uthash-dev): no darshan_log_get_namehash for darshan-parser.c"
    exit 1
fi
# Built apart from C's own headers, which sit beside the sources.
mkdir -p "$w/build"
for f in darshan-parser.c darshan-convert.c darshan-merge.c lookup3.c; do cp "$w/c/darshan-util/$f" "$w/build/"; done
build() {
    local out=$1; shift
    cc -Wall -DPACKAGE_VERSION='"3.5.0"' $(pkg-config --cflags darshan-util) -o "$w/build/$out" "$@" \
        $(pkg-config --libs darshan-util) -Wl,-rpath,"$w/prefix/lib"
}
u=$w/c/darshan-util/tests/unit-tests
build accumulator "$u/darshan-accumulator.c" "$u/munit/munit.c"
build darshan-parser "$w/build/darshan-parser.c"
build darshan-convert "$w/build/darshan-convert.c" "$w/build/lookup3.c"
build darshan-merge "$w/build/darshan-merge.c"
fails=0
# darshan-parser.c again, linked statically against libdarshan-util.a as
# a user links it (`cc -static ... $(pkg-config --static --libs
# darshan-util)`): a program without an interpreter, printing as C's.
parsers=(darshan-parser)
if cc -Wall -static -DPACKAGE_VERSION='"3.5.0"' $(pkg-config --cflags darshan-util) \
    -o "$w/build/darshan-parser-static" "$w/build/darshan-parser.c" $(pkg-config --static --libs darshan-util) \
    2> "$w/static-link.log" && ! readelf -l "$w/build/darshan-parser-static" | grep -q INTERP; then
    parsers+=(darshan-parser-static)
else
    echo "util_programs: darshan-parser.c could not be linked statically against libdarshan-util.a:"
    grep -v 'statically linked applications requires' "$w/static-link.log" | head -n 5
    fails=$((fails + 1))
fi
if timeout 300 "$w/build/accumulator" > "$w/accumulator.log" 2>&1; then
    echo "util_programs: darshan-util's accumulator unit test: $(tail -n 1 "$w/accumulator.log")"
else
    echo "util_programs: darshan-util's accumulator unit test FAILED:"; tail -n 20 "$w/accumulator.log"
    fails=$((fails + 1))
fi
# The advice of darshan-parser.c's incomplete-module warning, both forms.
advice='^# (documentation and consider setting the( NAME_EXCLUDE)?|DARSHAN_EXCLUDE_DIRS environment variable to prevent|variable in a run-time configuration file to prevent)$'
differ_all=0
for parser in "${parsers[@]}"; do
    n=0
    differ=0
    for gz in ../shared/corpus/expected/*.all.txt.gz; do
        name=$(basename "$gz" .all.txt.gz)
        case $name in *ppc64-3.0.*|*ppc64-3.1.[0-6]) continue ;; esac
        n=$((n + 1))
        timeout 300 "$w/build/$parser" --all "../shared/corpus/logs/$name.darshan" 2>/dev/null \
            | grep -Ev "$advice" > "$w/$name.txt" || true
        if ! gzip -dc "$gz" | grep -Ev "$advice" | cmp -s - "$w/$name.txt"; then
            echo "util_programs: $parser (darshan-parser.c) on $name differs from C's output:"
            gzip -dc "$gz" | grep -Ev "$advice" | diff - "$w/$name.txt" | head -n 6 || true
            differ=$((differ + 1))
        fi
    done
    echo "util_programs: C's darshan-parser.c through our library ($parser): $((n - differ)) of $n corpus logs as C printed them"
    differ_all=$((differ_all + differ))
done
# The writer: C's darshan-convert.c and darshan-merge.c through our
# library, each case's log against the one C's tools wrote, both printed
# by our darshan-parser (record.sh says why).
. tests/c-darshan/writer/cases.sh
writer_cases "$w/build" target/release/darshan-parser "$w/writer"
cases=0
wrong=0
for gz in tests/c-darshan/writer/*.txt.gz; do
    name=$(basename "$gz" .txt.gz)
    cases=$((cases + 1))
    if ! cmp -s "tests/c-darshan/writer/$name.status" "$w/writer/$name.status" ||
        ! gzip -dc "$gz" | cmp -s - "$w/writer/$name.txt"; then
        echo "util_programs: writer case $name differs from C's (exit $(cat "$w/writer/$name.status")):"
        head -n 3 "$w/writer/$name.err"
        gzip -dc "$gz" | diff - "$w/writer/$name.txt" | head -n 6 || true
        wrong=$((wrong + 1))
    fi
done
echo "util_programs: C's darshan-convert.c and darshan-merge.c through our library: $((cases - wrong)) of $cases logs as C's tools wrote them"
# Our own darshan-convert, on every conversion, and darshan-merge, on the
# killed job's ranks and its one log of every rank's records, a Python
# job's processes and two MPI jobs (logs with AutoPerf's APMPI records,
# which ours does not read and leaves out, as darshan-util without
# AutoPerf does), against the same recordings. Three things of a
# merged log are ours by design and left out of both sides: the
# darshan_cost_* metadata (the whole job's cost; C copies the first
# rank's), the NULL module's incomplete-data warning (darshan-util's
# writer marks NULL partial in every log it creates) and heat-map bin
# widths (one per source, which PyDarshan requires; C keeps each rank's).
# (Our darshan-merge's other differences from C's are in
# docs/differential.md.)
shared_by_design() {
    python3 -c '
import re, sys
t = re.sub(r"# \*+\n# NULL module data\n(?:.*\n)*?# Darshan from instrumenting unnecessary files\.\n\n", "", sys.stdin.read())
ours = re.compile(r"# metadata: darshan_cost_|HEATMAP\t.*\tHEATMAP_F_BIN_WIDTH_SECONDS\t")
sys.stdout.write("".join(l for l in t.splitlines(True) if not ours.match(l)))'
}
writer_cases target/release target/release/darshan-parser "$w/ours"
ours=0
ours_wrong=0
# The merges of one process's logs with --shared-redux are left out: for
# a job of one process darshan-util's darshan-merge makes every record a
# shared one (rank -1), files only the process opened too; ours keeps
# them as the runtime wrote them.
for gz in tests/c-darshan/writer/convert-*.txt.gz tests/c-darshan/writer/merge-hdf5-pnetcdf-*.txt.gz \
    tests/c-darshan/writer/merge-python-processes.txt.gz tests/c-darshan/writer/merge-mpi-jobs-shared.txt.gz; do
    name=$(basename "$gz" .txt.gz)
    ours=$((ours + 1))
    if ! cmp -s "tests/c-darshan/writer/$name.status" "$w/ours/$name.status" ||
        ! cmp -s <(gzip -dc "$gz" | shared_by_design) <(shared_by_design < "$w/ours/$name.txt"); then
        echo "util_programs: our $name differs from C's (exit $(cat "$w/ours/$name.status")):"
        head -n 3 "$w/ours/$name.err"
        diff <(gzip -dc "$gz" | shared_by_design) <(shared_by_design < "$w/ours/$name.txt") | head -n 6 || true
        ours_wrong=$((ours_wrong + 1))
    fi
done
echo "util_programs: our darshan-convert and darshan-merge: $((ours - ours_wrong)) of $ours logs as C's tools wrote them"
[ $fails = 0 ] && [ $differ_all = 0 ] && [ $n -gt 20 ] && [ $wrong = 0 ] && [ $cases -ge 10 ] && [ $ours_wrong = 0 ] && [ $ours -ge 10 ]
