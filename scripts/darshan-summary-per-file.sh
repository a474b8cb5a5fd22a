#!/bin/bash
#
# darshan-summary-per-file.sh LOG DIR: C Darshan's script of that name, for
# the scripts that call it: a log and a PDF summary per file the job opened
# (every record with an OPENS counter), made in DIR, which must not exist.
# Each file's log is darshan-convert --file's, its summary
# darshan-job-summary.pl's (darshan-summary --pdf); all three are the ones
# beside this script.
#
# Names come from other users' logs: a file's outputs are named after the
# last part of its path with anything but letters, digits, '.', '_', '+'
# and '-' made '_' (a name used twice gets its record id as well), and are
# always inside DIR.

set -o pipefail

if [ $# -ne 2 ]; then
    echo "Usage: darshan-summary-per-file.sh <input_file.darshan> <output_directory>"
    exit 1
fi
log=$1
out=$2
here=$(dirname "$(readlink -f "$0")")

# The files: record id and name of every record with an OPENS counter
# (darshan-parser's fields 3 and 6; module, rank, id, counter, value,
# name, mount point, file system).
list=$("$here/darshan-parser" --show-incomplete "$log" | awk -F '\t' '$1 !~ /^#/ && $4 ~ /_OPENS$/ { print $3 "\t" $6 }' | sort -u) || exit $?
filecount=$(printf '%s' "$list" | grep -c .)

mkdir -- "$out" || exit $?

counter=0
while IFS=$'\t' read -r hash filepath; do
    [ -n "$hash" ] || continue
    counter=$((counter + 1))
    file=$(basename -- "$filepath" | LC_ALL=C sed 's/[^A-Za-z0-9._+-]/_/g')
    case $file in
        "" | . | ..) file=_ ;;
    esac
    if [ -e "$out/$file.darshan" ]; then
        file=$file.$hash
    fi

    echo "Status: Generating summary for file $counter of $filecount: $file"
    echo =======================================================
    "$here/darshan-convert" --file "$hash" "$log" "$out/$file.darshan" || exit $?
    "$here/darshan-job-summary.pl" --output "$out/$file.pdf" "$out/$file.darshan" || exit $?
done <<< "$list"

echo =======================================================
echo "darshan-summary-per-file.sh done.  Results can be found in $out/*.pdf."
