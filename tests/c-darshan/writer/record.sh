#!/usr/bin/env bash
# Records what C Darshan 3.5.0's darshan-convert and darshan-merge write
# for each case of cases.txt: <case>.txt.gz (the log as our darshan-parser
# --all prints it, without compressed sizes) and <case>.status, which
# tests/c-darshan/util_programs.sh compares with the logs the same C
# programs write through our libdarshan-util. The tools are built from
# tag 3.5.0, unpatched (a checkout at $DARSHAN_C_SOURCE, or the tool
# library's git mirror), or taken from C_DARSHAN_UTIL (an installed
# darshan-util 3.5.0).
#
# The logs are printed with our darshan-parser (target/release, built
# first), as the test prints its own: the two are then compared as logs,
# not as two parsers' readings. (C's darshan-parser prints a HEATMAP
# record one bin short of its log's first one with its read bins shifted
# by one, the first 0 and the last lost: darshan-heatmap-logutils.c
# moves them without moving their pointer. Ours pads the record with a
# zero bin; merging the DLIO processes' logs makes such records.)
#
# usage: tests/c-darshan/writer/record.sh   (needs autotools, a C compiler, zlib, bzip2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../source.sh"
. "$here/cases.sh"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
inst=${C_DARSHAN_UTIL:-}
if [ -z "$inst" ]; then
    c_darshan_util_build "$w"
    inst=$w/inst
fi
writer_cases "$inst/bin" "$root/target/release/darshan-parser" "$w/out"
for t in "$w"/out/*.txt; do
    name=$(basename "$t" .txt)
    gzip -9n < "$t" > "$here/$name.txt.gz"
    cp "$w/out/$name.status" "$here/$name.status"
done
