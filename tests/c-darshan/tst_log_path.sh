#!/usr/bin/env bash
# darshan main's test of the four ways to say where logs go, and their
# precedence (darshan-runtime/test/tst_log_path.sh, added after 3.5.0 in
# commit 3b9b8b37; the code it tests is 3.5.0's), unmodified, against our
# install tree: DARSHAN_LOGPATH over a configuration file's LOGPATH
# (DARSHAN_CONFIG_PATH) over the variable named at install by
# --log-path-by-env over --log-path; the dated year/month/day tree for
# all but the variable's flat directory. Each of the eight combinations
# runs C's tst_mpi_io (3.5.0's) at 2 ranks, under MPICH and Open MPI, and
# the script fails when the log is not where the setting puts it.
#
# The script and the program come from a C Darshan source tree on this
# machine (source.sh), never from the network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
cd "$root"
w=$(c_darshan_workdir tst-log-path)
c_darshan_later "$w/main" 3b9b8b3719bc8427d7728de432120b9617f90358 darshan-runtime/test/tst_log_path.sh
c_darshan_source "$w/c" darshan-runtime/test/tst_mpi_io.c
# Installed as a centre would: a dated tree, and two variables that may
# name a flat directory (the script tries the first).
scripts/install.sh target/release "$w/prefix" --log-path "$w/dated" \
    --log-path-by-env DARSHAN_TEST_LOG_DIR,DARSHAN_TEST_OTHER_DIR >/dev/null
user=$(id -un)
fails=0
for mpi in mpich openmpi; do
    d=$w/$mpi
    mkdir -p "$d"
    cp "$w/main/darshan-runtime/test/tst_log_path.sh" "$d/"
    c_darshan_mpi $mpi
    (cd "$d" && $cc -o tst_mpi_io "$w/c/darshan-runtime/test/tst_mpi_io.c")
    # As `make check` runs it, with none of the settings under test
    # inherited from this shell.
    if (cd "$d" && env -u DARSHAN_LOGPATH -u DARSHAN_LOGFILE -u DARSHAN_CONFIG_PATH \
            -u DARSHAN_TEST_LOG_DIR -u DARSHAN_TEST_OTHER_DIR \
            USER="$user" LOGNAME="$user" USERNAME_ENV=no \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            TESTMPIRUN=$run HAVE_OPEN_MPI=$ompi check_PROGRAMS=tst_mpi_io NP=2 \
            DARSHAN_INSTALL_DIR="$w/prefix" \
            timeout 600 bash tst_log_path.sh > "$d/run.log" 2>&1); then
        echo "tst_log_path.sh $mpi: passed, $(grep -c '^CMD=' "$d/run.log") runs"
    else
        echo "tst_log_path.sh $mpi: FAILED ($d/run.log):"
        tail -5 "$d/run.log"
        fails=$((fails + 1))
    fi
done
[ $fails = 0 ]
