#!/usr/bin/env bash
# C Darshan 3.5.0's end-to-end tests of its runtime under Python
# (darshan-test/python_runtime_tests.py, what its CI runs with pytest),
# unmodified, against our install tree: h5py's HDF5 round trip under
# mpirun (H5F/H5D counters), DARSHAN_MOD_DISABLE/ENABLE set together, a
# forked Python process with and without MPI (a log each, with the
# records made before and after the fork), numpy's os.dup (POSIX plus
# STDIO bytes). PyDarshan reads the logs.
#
# Its settings, as its CI sets them: DARSHAN_INSTALL_PATH and
# DARSHAN_NONMPI_INSTALL_PATH are both our tree (one library serves jobs
# with and without MPI); HDF5_LIB, which the tests preload after the
# runtime, is the HDF5 that h5py uses (its wheel's own; C's CI builds
# h5py against the system's HDF5 and preloads that); `mpirun` is Open
# MPI's (the tests pass it --allow-run-as-root and -x) and `python` the
# venv's.
#
# Left out: test_runtime_heatmap_div_by_zero, which builds C Darshan's
# runtime again from its source with a coarser clock and runs that: it
# never loads the tree under test.
#
# The tests come from a C Darshan source tree on this machine
# (source.sh), never from the network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
cd "$root"
w=$(c_darshan_workdir c-python-runtime)
c_darshan_source "$w/c" darshan-test/python_runtime_tests.py darshan-test/python_mpi_scripts
scripts/install.sh target/release "$w/prefix" >/dev/null
mkdir -p "$w/bin"
ln -sf "$(command -v mpirun.openmpi)" "$w/bin/mpirun"
h5=$(.venv/bin/python -c 'import glob, os, h5py; print(glob.glob(os.path.join(os.path.dirname(h5py.__file__) + ".libs", "libhdf5-*.so*"))[0])')
cd "$w"
env PATH="$w/bin:$root/.venv/bin:$PATH" DARSHAN_ROOT_PATH="$w/c" \
    DARSHAN_INSTALL_PATH="$w/prefix" DARSHAN_NONMPI_INSTALL_PATH="$w/prefix" HDF5_LIB="$h5" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout 900 "$root/.venv/bin/python" -m pytest -p no:cacheprovider -q --basetemp="$w/tmp" \
    "$w/c/darshan-test/python_runtime_tests.py" -k "not test_runtime_heatmap_div_by_zero" > "$w/pytest.log" 2>&1 && rc=0 || rc=$?
tail -n 1 "$w/pytest.log" | sed 's/^/python_runtime_tests.py: /'
if [ $rc != 0 ]; then
    grep -E '^(FAILED|E  )' "$w/pytest.log" | head -n 10
fi
exit $rc
