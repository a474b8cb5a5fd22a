#!/usr/bin/env bash
# Makes ranks/rank<r>.darshan, the writer cases' killed job: four Open
# MPI ranks of tests/programs/h5_pnc_killed.c (HDF5 and PnetCDF I/O that
# differs from rank to rank) under our runtime, killed by mpirun's time
# limit after their I/O; each rank's crash-safe file becomes one log
# (our darshan-merge of that file alone), as a site's epilog leaves them;
# and unreduced.darshan, the same job run to its end with its ranks'
# records kept apart (DARSHAN_DISABLE_SHARED_REDUCTION).
# POSIX_META, which darshan-util does not know, is switched off. Run
# once, then record.sh; the logs are inputs, kept in the repository.
#
# usage: tests/c-darshan/writer/make-ranks.sh   (after scripts/build.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
h5=/usr/lib/x86_64-linux-gnu/hdf5/openmpi
mpicc -O1 -I/usr/include/hdf5/openmpi -o "$w/h5_pnc_killed" "$root/tests/programs/h5_pnc_killed.c" \
    -L"$h5" -lhdf5 -Wl,-rpath,"$h5" -lpnetcdf
mkdir -p "$w/logs" "$w/mmap" "$w/data"
export LD_PRELOAD=$root/target/release/libdarshan.so DARSHAN_LOGPATH=$w/logs \
    DARSHAN_MMAP_LOGPATH=$w/mmap DARSHAN_MOD_DISABLE=POSIX_META
out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4 --timeout 10 \
    -x LD_PRELOAD -x DARSHAN_LOGPATH -x DARSHAN_MMAP_LOGPATH -x DARSHAN_MOD_DISABLE \
    "$w/h5_pnc_killed" "$w/data" 2>&1) || true
unset LD_PRELOAD
case $out in *ready*) ;; *) echo "make-ranks: the job did not get through its I/O: $out"; exit 1 ;; esac
n=0
for f in "$w"/mmap/*.darshan; do
    r=${f##*-}
    r=${r%.darshan}
    rm -f "$here/ranks/rank$r.darshan"
    "$root/target/release/darshan-merge" --output "$here/ranks/rank$r.darshan" "$f" 2>/dev/null
    chmod 0644 "$here/ranks/rank$r.darshan"
    n=$((n + 1))
done
[ $n = 4 ] || { echo "make-ranks: $n crash-safe files, not 4"; exit 1; }
# The same job run to its end with DARSHAN_DISABLE_SHARED_REDUCTION: one
# log holding every rank's records.
rm -rf "$w/logs" "$w/data" && mkdir -p "$w/logs" "$w/data"
export LD_PRELOAD=$root/target/release/libdarshan.so DARSHAN_DISABLE_SHARED_REDUCTION=1
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4 \
    -x LD_PRELOAD -x DARSHAN_LOGPATH -x DARSHAN_MMAP_LOGPATH -x DARSHAN_MOD_DISABLE -x DARSHAN_DISABLE_SHARED_REDUCTION \
    "$w/h5_pnc_killed" "$w/data" finish > /dev/null
unset LD_PRELOAD
cp "$w"/logs/*.darshan "$here/ranks/unreduced.darshan"
chmod 0644 "$here/ranks/unreduced.darshan"
echo "make-ranks: $here/ranks: rank0..3.darshan, unreduced.darshan"
