#!/usr/bin/env bash
# C Darshan 3.5.0's own regression suite (darshan-test/regression/run-all.sh),
# unmodified, against our install tree: its eight test cases (mpi-io-test
# with and without DXT, cxxpi in C++, fperf in Fortran 77 and 90, stdio,
# fprintf/fscanf, access sizes) are compiled, run at 4 ranks with
# DARSHAN_LOGFILE and checked with our darshan-parser and
# darshan-dxt-parser, on the workstation platforms this machine can be:
#
#   * workstation-ld-preload under MPICH and under Open MPI;
#   * workstation-profile-conf-dynamic under MPICH (MPICC_PROFILE and the
#     other MPICH profile variables naming our share/mpi-profile/*.conf).
#
# Not run: workstation-profile-conf-static (a fully static MPICH program
# does not link on this machine with or without Darshan: Debian's
# libucs.a wants symbols of UCX's shared libraries) and
# workstation-cc-wrapper (it calls darshan-gen-cc.pl, which C Darshan
# 3.5.0 no longer installs either).
#
# The suite comes from a C Darshan source tree on this machine (source.sh),
# never from the network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
cd "$root"
w=$(c_darshan_workdir c-regression)
c_darshan_source "$w/c" darshan-test/regression
scripts/install.sh target/release "$w/prefix" >/dev/null
# The suite calls mpicc, mpicxx, mpif77, mpif90 and mpiexec by those
# names, and preloads $(dirname mpicc)/../lib/libfmpich.so (MPICH's
# Fortran bindings) with the runtime: each MPI gets a directory of links.
for mpi in mpich openmpi; do
    mkdir -p "$w/$mpi/bin" "$w/$mpi/lib"
    for t in mpicc mpicxx mpif77 mpif90 mpiexec; do
        ln -sf "$(command -v $t.$mpi)" "$w/$mpi/bin/$t"
    done
done
# MPICH's mpiexec starts the hydra proxy found beside it.
ln -sf "$(command -v hydra_pmi_proxy)" "$w/mpich/bin/"
ln -sf "$(ldconfig -p | awk '/libmpichfort\.so / {print $NF; exit}')" "$w/mpich/lib/libfmpich.so"
fails=0
# MPI, platform
for run in "mpich workstation-ld-preload" "openmpi workstation-ld-preload" "mpich workstation-profile-conf-dynamic"; do
    set -- $run
    log=$w/$1-$2.log
    if env PATH="$w/$1/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OMPI_MCA_rmaps_base_oversubscribe=1 \
            timeout 1200 "$w/c/darshan-test/regression/run-all.sh" "$w/prefix" "$w/tmp-$1-$2" "$2" > "$log" 2>&1; then
        echo "regression $2 under $1: passed, $(grep -c '^Running ' "$log") test cases"
    else
        echo "regression $2 under $1: FAILED ($log):"
        grep -E '^(Error|Running)|tests failed' "$log" | tail -8
        fails=$((fails + 1))
    fi
done
[ $fails = 0 ]
