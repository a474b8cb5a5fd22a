"""A change to one crate's code moved ThinLTO's `.llvm.<hash>` suffixes
and left the text order's functions out of order (72 of its 677 names
after a change to the format crate): scripts/text_order.py --resolve
must find each listed function in the built library by the rest of its
name, as scripts/build.sh asks it to before linking again.

The oracle is the library itself: its list (ffi/text-order.txt, which the
library was linked by) with every suffix replaced by one no module has
must resolve to names the library defines, among them every name the
real list gives; resolved again, nothing changes (no second link).

usage: check_text_order.py <libdarshan.so> <text-order.txt> <workdir>
"""
import os
import re
import subprocess
import sys

lib, listing, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "text_order.py")
suffix = re.compile(r"\.llvm\.\d+$")
with open(listing) as f:
    lines = f.read().splitlines(keepends=True)
real = [x.strip() for x in lines if x.strip() and not x.startswith("#")]
moved = [x for x in real if suffix.search(x)]
if not moved:
    sys.exit(f"{listing} has no name with a .llvm. suffix: nothing here could fail")
stale = os.path.join(work, "stale.txt")
with open(stale, "w") as f:
    f.writelines(x if x.startswith("#") else suffix.sub(".llvm.1", x.strip()) + "\n" for x in lines if x.strip())
out = os.path.join(work, "resolved.txt")
if os.path.exists(out):
    os.remove(out)


def resolve():
    return subprocess.run([sys.executable, script, "--resolve", lib, stale, out], capture_output=True, text=True,
                          timeout=120)


first = resolve()
if first.returncode != 0:
    sys.exit(f"--resolve did not write a new list (status {first.returncode}): {first.stderr.strip()}")
nm = subprocess.run(["nm", "--defined-only", lib], capture_output=True, text=True, check=True, timeout=120).stdout
defined = {p[-1] for p in (line.split() for line in nm.splitlines()) if p}
with open(out) as f:
    resolved = [x.strip() for x in f if x.strip() and not x.startswith("#")]
unknown = [x for x in resolved if x not in defined]
if unknown:
    sys.exit(f"{len(unknown)} resolved names the library does not define, first {unknown[0]}")
lost = [x for x in real if x in defined and x not in resolved]
if lost:
    sys.exit(f"{len(lost)} of the list's functions lost by the moved suffixes, first {lost[0]}")
again = resolve()
if again.returncode != 1:
    sys.exit(f"resolving an up-to-date list rewrote it (status {again.returncode}): the library would be linked again")
print(f"{len(moved)} names with moved suffixes resolved; {len(resolved)} names, all in {lib}")
