#!/usr/bin/env bash
# C Darshan 3.5.0's own `make check` (darshan-runtime/test/tst_runs.sh),
# unmodified, against our install tree: tst_mpi_init and tst_mpi_io (every
# MPI-IO API mix the script makes, large-count ones under MPICH 4) at 2 and
# 4 ranks, under MPICH and Open MPI; the script checks MPIIO_BYTES_WRITTEN
# and MPIIO_BYTES_READ in each run's log with our darshan-parser and runs
# our darshan-config with `sh`.
#
# The script and its two programs come from a C Darshan source tree
# already on this machine, never from the network: $DARSHAN_C_SOURCE (a
# checkout of tag 3.5.0), else the tag 3.5.0 of a git mirror of
# darshan-hpc/darshan at $DARSHAN_C_MIRROR (default: the tool library's
# mirror beside the project). Without either it says so and exits 77
# (automake's "skipped"); scripts/test.sh then counts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
w=$root/target/tst-runs
rm -rf "$w" && mkdir -p "$w/src"
mirror=${DARSHAN_C_MIRROR:-$root/../.mirror/darshan-hpc+darshan/repo}
if [ -n "${DARSHAN_C_SOURCE:-}" ] && [ -f "$DARSHAN_C_SOURCE/darshan-runtime/test/tst_runs.sh" ]; then
    cp "$DARSHAN_C_SOURCE"/darshan-runtime/test/{tst_runs.sh,tst_mpi_init.c,tst_mpi_io.c} "$w/src/"
elif git --git-dir="$mirror" rev-parse -q --verify 3.5.0 >/dev/null 2>&1; then
    git --git-dir="$mirror" archive 3.5.0 darshan-runtime/test | tar -x -C "$w/src" --strip-components=2
else
    echo "tst_runs.sh: skipped: no C Darshan 3.5.0 source on this machine (set DARSHAN_C_SOURCE)"
    exit 77
fi
scripts/install.sh target/release "$w/prefix" >/dev/null
user=$(id -un)
fails=0
# name, compiler, launcher, extra environment, large count
for mpi in mpich openmpi; do
    d=$w/$mpi
    mkdir -p "$d/logs"
    cp "$w/src/tst_runs.sh" "$d/"
    if [ $mpi = mpich ]; then
        cc=mpicc.mpich; run=mpiexec.mpich; ompi=; large=1
    else
        cc=mpicc.openmpi; run=mpiexec.openmpi; ompi=1; large=0
    fi
    # What C's configure defines for the programs (HAVE_MPI_LARGE_COUNT
    # when the MPI library has MPI_File_write_c: MPICH 4 here).
    flags=()
    [ $large = 1 ] && flags+=(-DHAVE_MPI_LARGE_COUNT=1)
    (cd "$d" && $cc "${flags[@]}" -o tst_mpi_init "$w/src/tst_mpi_init.c" && $cc "${flags[@]}" -o tst_mpi_io "$w/src/tst_mpi_io.c")
    for np in 2 4; do
        rm -rf "$d/logs"/*
        # As `make check` runs it (AM_TESTS_ENVIRONMENT), in a login
        # session's environment (LOGNAME names the logs, as in C).
        if (cd "$d" && env USER="$user" LOGNAME="$user" USERNAME_ENV=no \
                OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                TESTMPIRUN=$run HAVE_OPEN_MPI=$ompi HAVE_MPI_LARGE_COUNT=$large \
                check_PROGRAMS="tst_mpi_init tst_mpi_io" NP=$np \
                DARSHAN_INSTALL_DIR="$w/prefix" DARSHAN_LOGPATH="$d/logs" TST_DARSHAN_LOG_PATH="$d/logs" \
                timeout 1200 bash tst_runs.sh > "$d/run$np.log" 2>&1); then
            echo "tst_runs.sh $mpi np=$np: passed, $(grep -c '^CMD=' "$d/run$np.log") runs"
        else
            echo "tst_runs.sh $mpi np=$np: FAILED ($d/run$np.log):"
            tail -5 "$d/run$np.log"
            fails=$((fails + 1))
        fi
    done
done
[ $fails = 0 ]
