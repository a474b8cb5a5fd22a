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
