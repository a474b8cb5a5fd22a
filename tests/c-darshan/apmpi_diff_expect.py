#!/usr/bin/env python3
"""darshan-diff's APMPI lines checked against C's darshan-parser.

usage: apmpi_diff_expect.py PARSE1 PARSE2 DIFF [APXC]

PARSE1 and PARSE2 are what C's AutoPerf darshan-parser.c (on C's
libdarshan-util) printed for two logs; DIFF is what our darshan-diff
printed for the same two logs. The APMPI lines darshan-diff must print
are made from C's values alone, by the rules AutoPerf's
darshan_log_print_apmpi_rec_diff means (see crates/darshan-util/src/
diff_apmpi.rs for where its code does otherwise):

* records are paired by record id and rank; ids in the first log's
  order, ranks ascending, then the ids only the second log has;
* a pair prints a "- " line (first log) and a "+ " line (second) for
  every field both print whose value differs, in the parser's order
  (so sync times only where both logs measured them);
* a record only one log has prints every line the parser printed for
  it, with its sign.

Values are compared as C's parser prints them (%.6f for times). Our
tool compares the doubles, so a pair whose two printed values are the
same text (times apart by under a microsecond) may be in DIFF and is
dropped before comparing. Exit 0 when alike, else 1 with the first
difference.

With APXC, the APXC lines instead (AutoPerf's
darshan_log_print_apxc_rec_diff, by the same rules: crates/darshan-util/
src/apxc.rs).
"""

import sys

MOD = b"APMPI"


def records(path):
    """{(id, rank): [(field, value, line)]} and ids in first-seen order."""
    recs, order = {}, []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\n")
            if not line.startswith(MOD + b"\t"):
                continue
            parts = line.split(b"\t")
            rank, rid, field, value = int(parts[1]), int(parts[2]), parts[3], parts[4]
            if rid not in order:
                order.append(rid)
            recs.setdefault((rid, rank), []).append((field, value, line))
    return recs, order


def expected(one, two):
    (r1, o1), (r2, o2) = one, two
    out = []
    for rid in o1:
        ranks = sorted({k[1] for k in r1 if k[0] == rid} | {k[1] for k in r2 if k[0] == rid})
        for rank in ranks:
            a, z = r1.get((rid, rank)), r2.get((rid, rank))
            if a is None:
                out += [b"+ " + l for _, _, l in z]
            elif z is None:
                out += [b"- " + l for _, _, l in a]
            else:
                zf = {f: (v, l) for f, v, l in z}
                for f, v, l in a:
                    if f in zf and zf[f][0] != v:
                        out += [b"- " + l, b"+ " + zf[f][1]]
    for rid in o2:
        if rid in o1:
            continue
        for rank in sorted(k[1] for k in r2 if k[0] == rid):
            out += [b"+ " + l for _, _, l in r2[(rid, rank)]]
    return out


def ours(path):
    """Our APMPI lines, without - / + pairs whose printed values are equal."""
    with open(path, "rb") as f:
        lines = [l.rstrip(b"\n") for l in f if l.startswith((b"- " + MOD + b"\t", b"+ " + MOD + b"\t"))]
    kept, i = [], 0
    while i < len(lines):
        a = lines[i]
        z = lines[i + 1] if i + 1 < len(lines) else None
        if a.startswith(b"- ") and z is not None and z.startswith(b"+ ") and a[2:] == z[2:]:
            i += 2
            continue
        kept.append(a)
        i += 1
    return kept


def main():
    global MOD
    if len(sys.argv) == 5 and sys.argv[4] == "APXC":
        MOD = b"APXC"
    elif len(sys.argv) != 4:
        sys.exit(__doc__.splitlines()[2])
    want = expected(records(sys.argv[1]), records(sys.argv[2]))
    got = ours(sys.argv[3])
    if not want and not got:
        return 0
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            print(f"line {i + 1} of the {MOD.decode()} lines: expected {w!r}, got {g!r}")
            return 1
    if len(want) != len(got):
        print(f"expected {len(want)} {MOD.decode()} lines, got {len(got)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
