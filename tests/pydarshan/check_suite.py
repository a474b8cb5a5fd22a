"""PyDarshan's own test suite passes through our libdarshan-util wherever
it passes through C's.

PyDarshan 3.5.0's tests (the wheel ships them, as `darshan.tests`) hold
what darshan-util's C library gives on their logs: counters, record
counts, accumulated figures, report tables and pages, written down by
C Darshan's developers. The suite runs twice, side by side:

* with the wheel's own C library (darshan-util 3.5.0);
* through a copy of the package without it, the installed tree's bin/
  first on the PATH, so that it loads PREFIX/lib/libdarshan-util.so
  (util_libs.py); the plugin util_libs checks which library each run
  loaded.

With darshan-logs (the repository of logs the suite draws most of its
cases from; a git mirror of darshan-hpc/darshan-logs at
$DARSHAN_LOGS_MIRROR, default the tool library's mirror beside the
project) its logs are added; files the mirror lacks are left out, and
the tests that want them fail in both runs alike. Without it the suite
runs on the logs the wheel ships.

Every test that passes with C's library must pass with ours; those that
fail with C's are listed, not counted.

Usage: check_suite.py PREFIX WORK_DIR
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import darshan
from util_libs import env_for_ours

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MIRROR = os.environ.get("DARSHAN_LOGS_MIRROR",
                        os.path.join(ROOT, "..", ".mirror", "darshan-hpc+darshan-logs", "repo"))


def git(*args, **kw):
    return subprocess.run(["git", "--git-dir", MIRROR] + list(args), capture_output=True, timeout=300, **kw)


def log_repo(dest):
    """The darshan_logs package of the mirror's newest commit under dest
    (None when there is no mirror), and the files it lacks."""
    if git("rev-parse", "-q", "--verify", "HEAD").returncode != 0:
        return None, []
    listing = git("ls-tree", "-r", "HEAD", "darshan_logs", text=True).stdout.splitlines()
    present, missing = [], []
    for line in listing:
        meta, path = line.split("\t", 1)
        blob = meta.split()[2]
        (present if git("cat-file", "-e", blob).returncode == 0 else missing).append(path)
    os.makedirs(dest, exist_ok=True)
    tar = git("archive", "HEAD", *present)
    subprocess.run(["tar", "-x", "-C", dest], input=tar.stdout, check=True, timeout=300)
    return dest, missing


def start(who, env, work):
    """PyDarshan's suite, started in its own directory."""
    d = os.path.join(work, who)
    os.makedirs(d, exist_ok=True)
    env = dict(env, UTIL_LIBS_OUT=os.path.join(d, "libs.json"), MPLBACKEND="Agg")
    # Its temporary files under the work directory, not /tmp.
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "util_libs", "-q",
           "--basetemp", os.path.join(d, "tmp"),
           "-W", "ignore::DeprecationWarning", "--junitxml", os.path.join(d, "junit.xml"), "--pyargs", "darshan.tests"]
    out = open(os.path.join(d, "pytest.log"), "w")
    return d, subprocess.Popen(cmd, env=env, cwd=d, stdout=out, stderr=subprocess.STDOUT)


def outcomes(d, package):
    """Each test's outcome, by its name (the package's directory, which
    some names hold, made the same for both runs)."""
    found = {}
    for case in ET.parse(os.path.join(d, "junit.xml")).iter("testcase"):
        name = case.get("classname", "") + "::" + case.get("name", "").replace(package, "<darshan>")
        kinds = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
    return found


def loaded(d):
    with open(os.path.join(d, "libs.json")) as f:
        return [os.path.realpath(p) for p in json.load(f)]


def main():
    prefix, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    logs, missing = log_repo(os.path.join(work, "logs"))
    print(f"darshan-logs: {'none' if logs is None else logs} ({len(missing)} files absent from the mirror)")
    extra = [HERE] + ([logs] if logs else [])
    c_env = dict(os.environ, PYTHONPATH=os.pathsep.join(extra))
    ours_env = env_for_ours(prefix, work)
    ours_env["PYTHONPATH"] = os.pathsep.join([ours_env["PYTHONPATH"]] + extra)
    runs = [start("c", c_env, work), start("ours", ours_env, work)]
    for d, p in runs:
        p.wait(timeout=1800)
    (cd, _), (od, _) = runs
    problems = []
    lib = os.path.realpath(os.path.join(prefix, "lib", "libdarshan-util.so"))
    if loaded(od) != [lib]:
        problems.append(f"the suite through ours loaded {loaded(od)}, not {lib}")
    if lib in loaded(cd) or not loaded(cd):
        problems.append(f"the suite through C's loaded {loaded(cd)}")
    c = outcomes(cd, os.path.dirname(darshan.__file__))
    ours = outcomes(od, os.path.join(work, "py", "darshan"))
    passed_c = [t for t, o in c.items() if o == "passed"]
    for t in sorted(passed_c):
        if ours.get(t) != "passed":
            problems.append(f"{t}: passed with C's library, {ours.get(t, 'not run')} with ours")
    for t in sorted(t for t, o in c.items() if o in ("failure", "error")):
        print(f"fails with C's library too: {t}")
    if len(passed_c) < 100:
        problems.append(f"only {len(passed_c)} tests passed with C's library: the suite did not run")
    for p in problems:
        print("DIFFERS: " + p)
    print(f"PyDarshan's suite: {len(passed_c)} tests pass with C's libdarshan-util, "
          f"{len(passed_c) - sum(ours.get(t) == 'passed' for t in passed_c)} of them fail with ours; "
          f"{len(c)} run, {sum(o == 'skipped' for o in c.values())} skipped")
    sys.exit(1 if problems else 0)


main()
