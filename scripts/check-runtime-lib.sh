#!/usr/bin/env bash
# scripts/check-runtime-lib.sh LIB: fails when LIB was linked with
# features the runtime does not ask for (a workspace build's: regex's
# Unicode tables, pulled in by the tools' async-nats; see
# scripts/build.sh). The runtime built alone defines at most the three
# stubs regex-syntax keeps without its `unicode` features. It also fails
# when the runtime links the tools' every-module encoder: its counter-name
# tables are 817 pointers the loader relocates in every process (the DXT
# module writes its records with darshan_log::encode::encode_dxt).
set -euo pipefail
lib=${1:?usage: check-runtime-lib.sh LIB}
n=$(nm -C --defined-only "$lib" | grep -c 'regex_syntax::unicode::' || true)
rel=$(readelf -r "$lib" | grep -c R_X86_64_RELATIVE || true)
echo "$lib: $n regex_syntax::unicode symbols, $rel relative relocations"
if [ "$n" -gt 5 ]; then
    echo "$lib carries regex's Unicode tables: built with the workspace's features, not the runtime's own (scripts/build.sh)" >&2
    exit 1
fi
names=$(nm -C --defined-only "$lib" | grep -c 'darshan_log::modules::counter_names' || true)
if [ "$names" -gt 0 ]; then
    echo "$lib links darshan_log::modules::counter_names: every module's counter names, relocated at every load" >&2
    exit 1
fi
# Our own functions are called directly, and the link is fully RELRO
# (.cargo/config.toml): with full RELRO alone rustc called every function
# it could not prove local through a GOT slot, which the loader relocates
# (a RELATIVE entry in .got per function of ours so called: 799, three
# pages copied at every load, and 18,280 indirect calls). What remains
# (about 300) are addresses taken as values: function pointers, statics.
# Whole outputs first: `grep -q` leaving a pipe early would fail it
# under pipefail.
dynamic=$(readelf -d "$lib")
segments=$(readelf -lW "$lib")
if [[ $dynamic != *BIND_NOW* || $segments != *GNU_RELRO* ]]; then
    echo "$lib is not fully RELRO (BIND_NOW and GNU_RELRO): .cargo/config.toml's -z now is lost" >&2
    exit 1
fi
own=$(python3 - "$lib" <<'PY'
import re, subprocess, sys
lib = sys.argv[1]
secs = subprocess.run(["readelf", "-SW", lib], capture_output=True, text=True).stdout
got = re.search(r"\]\s+\.got\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", secs)
start, size = (int(got.group(1), 16), int(got.group(2), 16)) if got else (0, 0)
rels = subprocess.run(["readelf", "-rW", lib], capture_output=True, text=True).stdout.splitlines()
print(sum(1 for l in rels if "R_X86_64_RELATIVE" in l and start <= int(l.split()[0], 16) < start + size))
PY
)
echo "$lib: $own GOT slots of its own (relative)"
if [ "$own" -gt 400 ]; then
    echo "$lib calls its own functions through $own GOT slots: built without .cargo/config.toml's relro-level=partial" >&2
    exit 1
fi
