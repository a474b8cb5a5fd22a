#!/usr/bin/env bash
# C Darshan 3.5.0's own `make check` (darshan-runtime/test/tst_runs.sh),
# unmodified, against our install tree: tst_mpi_init and tst_mpi_io (every
# MPI-IO API mix the script makes, large-count ones under MPICH 4) at 2 and
# 4 ranks, under MPICH and Open MPI; the script checks MPIIO_BYTES_WRITTEN
# and MPIIO_BYTES_READ in each run's log with our darshan-parser and runs
# our darshan-config with `sh`.
#
# The script and its two programs come from a C Darshan source tree on this
# machine (source.sh), never from the network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
cd "$root"
w=$(c_darshan_workdir tst-runs)
c_darshan_source "$w/c" darshan-runtime/test
t=$w/c/darshan-runtime/test
scripts/install.sh target/release "$w/prefix" >/dev/null
user=$(id -un)
fails=0
# name, compiler, launcher, extra environment, large count
for mpi in mpich openmpi; do
    d=$w/$mpi
    mkdir -p "$d/logs"
    cp "$t/tst_runs.sh" "$d/"
    c_darshan_mpi $mpi
    large=0
    [ $mpi = mpich ] && large=1
    # What C's configure defines for the programs (HAVE_MPI_LARGE_COUNT
    # when the MPI library has MPI_File_write_c: MPICH 4 here).
    flags=()
    [ $large = 1 ] && flags+=(-DHAVE_MPI_LARGE_COUNT=1)
    (cd "$d" && $cc "${flags[@]}" -o tst_mpi_init "$t/tst_mpi_init.c" && $cc "${flags[@]}" -o tst_mpi_io "$t/tst_mpi_io.c")
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
