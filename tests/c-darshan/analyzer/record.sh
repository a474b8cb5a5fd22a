#!/usr/bin/env bash
# Records C Darshan 3.5.0's darshan-analyzer over every tree of trees.txt
# (and a path that does not exist): <tree>.out (stdout) and <tree>.status,
# which crates/darshan-util/tests/analyzer.rs compares ours with byte for
# byte. The tool is built from tag 3.5.0, unpatched (a checkout at
# $DARSHAN_C_SOURCE, or the tool library's git mirror).
#
# usage: tests/c-darshan/analyzer/record.sh   (needs autotools, a C compiler, zlib)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../source.sh"
corpus=$root/../shared/corpus/logs
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
c_darshan_util_build "$w"
mkdir -p "$w/trees" && cd "$w/trees"
grep -v '^#' "$here/trees.txt" | while read -r tree kind src path; do
    dest=$tree/$path
    [ "$path" = . ] && dest=$tree
    case $kind in
        log) mkdir -p "$(dirname "$dest")" && cp "$corpus/$src" "$dest" ;;
        all) mkdir -p "$dest" && cp "$corpus"/*.darshan "$dest/" ;;
        skip) rm -f "$tree/$src" ;;
        text) mkdir -p "$(dirname "$dest")" && echo hello > "$dest" ;;
        cut) mkdir -p "$(dirname "$dest")" && head -c "${src#*:}" "$corpus/${src%%:*}" > "$dest" ;;
        dir) mkdir -p "$dest" ;;
    esac
done
for tree in $(grep -v '^#' "$here/trees.txt" | cut -d' ' -f1 | sort -u) missing; do
    set +e
    "$w/inst/bin/darshan-analyzer" "$tree" > "$here/$tree.out" 2>/dev/null
    echo $? > "$here/$tree.status"
    set -e
done
