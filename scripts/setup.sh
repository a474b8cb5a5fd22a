#!/usr/bin/env bash
# Idempotent set-up of everything the tests need on a fresh Debian machine:
# build tools, just, and a venv with PyDarshan 3.5.0 (the independent
# reader of our logs). Safe to run again; does nothing that is done.
set -euo pipefail
cd "$(dirname "$0")/.."
need_apt=()
command -v gzip >/dev/null || need_apt+=(gzip)
[ -x /usr/bin/time ] || need_apt+=(time)
if [ ${#need_apt[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import darshan, numpy' 2>/dev/null; then
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check darshan==3.5.0
fi
