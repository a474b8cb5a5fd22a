"""Which libdarshan-util a PyDarshan process loaded, and the environment
that makes PyDarshan load ours: a copy of the venv's package without the
wheel's bundled library (`darshan.libs`), the installed tree's bin/ first
on the PATH. That is how PyDarshan built from source (Spack's py-darshan,
conda-forge's pydarshan) finds darshan-util: next to the darshan-parser on
the PATH.

Also a pytest plugin (`-p util_libs`): at the end of a session it writes
the libraries the test process loaded to $UTIL_LIBS_OUT, so a check knows
which library PyDarshan's own tests ran against.
"""
import json
import os
import shutil


def loaded_library():
    """The libdarshan-util files mapped into this process."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "darshan-util" in line or "darshan_logutils" in line}
    return sorted(libs)


def env_for_ours(prefix, work):
    """The environment of a PyDarshan without a bundled library, whose
    darshan-parser is the installed tree's."""
    import darshan
    py = os.path.join(work, "py")
    if not os.path.isdir(os.path.join(py, "darshan")):
        shutil.copytree(os.path.dirname(darshan.__file__), os.path.join(py, "darshan"))
    env = dict(os.environ, PYTHONPATH=py, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ["PATH"])
    env.pop("LD_LIBRARY_PATH", None)
    return env


def pytest_sessionfinish(session):
    out = os.environ.get("UTIL_LIBS_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(loaded_library(), f)
