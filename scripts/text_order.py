"""The runtime library's functions that callgrind saw run, in the order of
the runs given (each run adds the functions it is the first to run), for
the linker's --symbol-ordering-file. Used by scripts/text-order.sh.

usage: text_order.py <libdarshan.so> <callgrind.out>...
       text_order.py --check <libdarshan.so> <text-order.txt>
       text_order.py --resolve <libdarshan.so> <text-order.txt> <resolved list>

With --check (scripts/test.sh), fails when the listed functions do not lie
together in the library (the linker did not order them: ffi/build.rs), or
when too few of them are left in it (the list is stale: the code's
functions renamed, or another toolchain or lock file; run
scripts/text-order.sh again). A listed name whose `.llvm.<hash>` suffix
moved is found by the rest of it. With --resolve (scripts/build.sh),
writes the list with the names the library has, for the next link.
"""
import re
import subprocess
import sys

LINE = re.compile(r"^(ob|fn|cfn|cob)=\((\d+)\)(?: (.*))?$")


def events(path):
    """A callgrind run, its compressed names resolved: ("fn", function,
    its object) where a function's costs begin, and ("call", callee, its
    object, caller, the caller's object, count) for each call edge (a
    callee's object is its `cob=`, else the caller's)."""
    objects, functions = {}, {}
    current, caller, callee_ob, callee = "", None, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("calls="):
                if callee:
                    ob = callee_ob if callee_ob is not None else current
                    yield ("call", callee, ob, caller, current, int(line[6:].split()[0]))
                callee_ob, callee = None, None
                continue
            m = LINE.match(line)
            if not m:
                continue
            kind, ident, name = m.groups()
            table = objects if kind in ("ob", "cob") else functions
            if name:
                table[ident] = name
            if kind == "ob":
                current = objects.get(ident, "")
            elif kind == "cob":
                callee_ob = objects.get(ident, "")
            elif kind == "cfn":
                callee = functions.get(ident)
            else:
                caller = functions.get(ident)
                yield ("fn", caller, current)


def executed(path, lib_name):
    """Mangled names of the functions of `lib_name` that ran, in the order
    callgrind first lists them."""
    seen = {}
    for e in events(path):
        if e[0] == "fn" and e[2].endswith(lib_name):
            seen.setdefault(e[1], None)
    return list(seen)


def calls_into(path, lib_name):
    """For the functions of `lib_name` in a callgrind run: how many times
    each was called, and the calls made to each from within the library,
    by caller (None: from outside it)."""
    counts, callers = {}, {}
    for e in events(path):
        if e[0] == "call" and e[2].endswith(lib_name):
            _, callee, _, caller, caller_ob, n = e
            counts[callee] = counts.get(callee, 0) + n
            callers.setdefault(callee, {}).setdefault(caller if caller_ob.endswith(lib_name) else None, None)
    return counts, callers


def per_call_path(hot, callers, order):
    """The hot functions, each wrapper (called from outside the library)
    followed by the hot functions it calls, depth first, in the runs'
    order: what one call runs lies together."""
    calls = {}
    for fn in order:
        for caller in callers.get(fn, ()):
            calls.setdefault(caller, []).append(fn)
    placed = {}

    def visit(fn):
        if fn in hot and fn not in placed:
            placed[fn] = None
            for callee in calls.get(fn, ()):
                visit(callee)

    for fn in order:
        if None in callers.get(fn, ()):
            visit(fn)
    for fn in order:
        visit(fn)
    return list(placed)


# A function called this many times in a run that repeats a call (named
# `-calls-`: the reference programs' 100 pwrites, preads, fprintfs,
# fgets), and fewer in the first run (/bin/true, which does nothing: what
# it calls often is the start-up's and the log's work, such as the
# deflate's matcher), is on the wrappers' per-call path.
HOT_CALLS = 90

# The first of the per-call path, aligned to a page in shim.c: the path
# starts at the same place in a page in every build, so its functions lie
# the same way against each other and against the page's bits whatever
# else changed in the library. Linked in profile order among 640 others,
# the same per-call code measured up to 16 ns apart from one build to the
# next (docs/performance.md, "the layout lottery").
ANCHOR = "darshan_guard_get"


def defined(lib):
    """The library's defined text symbols: name -> (address, size)."""
    out = subprocess.run(["nm", "--defined-only", "-S", lib], capture_output=True, text=True, check=True).stdout
    return {p[3]: (int(p[0], 16), int(p[1], 16)) for p in (line.split() for line in out.splitlines())
            if len(p) == 4 and p[2] in "tT"}


# ThinLTO renames a local function it exports from its module
# `name.llvm.<hash of the module>`; the hash moves with any change to that
# module's code, the rest of the name does not.
LLVM_SUFFIX = re.compile(r"\.llvm\.\d+$")


def stem(name):
    return LLVM_SUFFIX.sub("", name)


def listed(listing):
    with open(listing) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def resolve(wanted, symbols):
    """For each listed name, the names `symbols` has for that function:
    the name itself, else every name with its stem (a function exported
    from two modules has two copies). Returns (names in the list's order,
    how many listed functions were found)."""
    by_stem = {}
    for n in symbols:
        by_stem.setdefault(stem(n), []).append(n)
    names, found = [], 0
    for w in wanted:
        matches = [w] if w in symbols else sorted(by_stem.get(stem(w), []))
        found += bool(matches)
        names.extend(matches)
    return list(dict.fromkeys(names)), found


def write_resolved(lib, listing, out):
    """scripts/build.sh: the list with the names `lib` has for its
    functions, written to `out` when it differs from what `out` holds.
    Exit status 0 when `out` changed (the library must be linked again),
    1 when it did not."""
    names, found = resolve(listed(listing), defined(lib))
    with open(listing) as f:
        header = [line for line in f if line.startswith("#")]
    text = "".join(header) + "".join(n + "\n" for n in names)
    try:
        with open(out) as f:
            if f.read() == text:
                sys.exit(1)
    except FileNotFoundError:
        pass
    with open(out, "w") as f:
        f.write(text)
    print(f"{out}: {found} of the {len(listed(listing))} functions of {listing}, as {lib} names them")


def check(lib, listing):
    """Exit status 1, with one line saying why, unless at least 90% of the
    listed functions are in `lib` and they span no more than their own
    size plus alignment (64 bytes each: .cargo/config.toml) and a page."""
    wanted = listed(listing)
    symbols = defined(lib)
    names, found = resolve(wanted, symbols)
    present = [symbols[n] for n in names]
    print(f"{lib}: {found} of the {len(wanted)} functions of {listing}")
    if found * 10 < len(wanted) * 9:
        sys.exit(f"{listing} is stale (another toolchain, lock file or the functions renamed): "
                 "run scripts/text-order.sh")
    if wanted and wanted[0] == ANCHOR and symbols.get(ANCHOR, (1, 0))[0] % 4096:
        sys.exit(f"{ANCHOR}, the first of the per-call path, does not start a page (shim.c's alignment lost)")
    span = max(a + n for a, n in present) - min(a for a, _ in present)
    size = sum(n for _, n in present)
    print(f"they span {span} bytes for {size} bytes of code")
    if span > size + 64 * len(present) + 4096:
        sys.exit(f"the functions of {listing} are spread over the text: the linker did not order them (ffi/build.rs)")


def main():
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "--resolve":
        write_resolved(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    lib, runs = sys.argv[1], sys.argv[2:]
    names = defined(lib)
    order, hot, callers = {}, {}, {}
    lib_name = "/" + lib.rsplit("/", 1)[-1]
    baseline, _ = calls_into(sorted(runs)[0], lib_name)
    for path in sorted(p for p in runs if "-calls-" in p.rsplit("/", 1)[-1]):
        counts, by = calls_into(path, lib_name)
        for fn, n in counts.items():
            if n >= HOT_CALLS > baseline.get(fn, 0) and fn in names:
                hot.setdefault(fn, None)
        for fn, c in by.items():
            callers.setdefault(fn, {}).update(c)
    for path in sorted(runs):
        for fn in executed(path, "/" + lib.rsplit("/", 1)[-1]):
            # callgrind marks a function's later copies `'2`; addresses
            # without a symbol have no name to order.
            if fn in names:
                order.setdefault(fn, None)
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    print("# Written by scripts/text-order.sh (do not edit): the functions a short process runs in")
    print("# libdarshan.so, placed first in its text by the linker (ffi/build.rs). The names hold")
    print(f"# for this toolchain ({rustc}), Cargo.lock and the runtime's features.")
    # The per-call path first, from its page-aligned anchor; then the rest
    # in the order the runs first ran them.
    first = [ANCHOR] + [fn for fn in per_call_path(hot, callers, order) if fn != ANCHOR]
    print(f"# The first {len(first)}: the wrappers' per-call path, from {ANCHOR} (aligned to a page).")
    for fn in first + [fn for fn in order if fn not in first]:
        print(fn)


if __name__ == "__main__":
    main()
