#!/usr/bin/env python3
"""Random fio jobs for scripts/differential/run.py fio: a job file of one
to three jobs run one after another (`stonewall`, fio's threads, not
processes: one log), each with an I/O engine that makes plain POSIX calls
(sync, psync, vsync, pvsync, pvsync2, posixaio), a kernel interface
Darshan's POSIX module does not see (libaio, io_uring, splice) or a file
engine (ftruncate, filecreate, filestat, filedelete, falloc), a
pattern, block sizes, file counts, syncs, verification, O_DIRECT. The
random offsets come from the seed (randrepeat, randseed), so a seed names
a job's calls. mmap is not drawn: C Darshan's shared library writes -1 in
every record's POSIX_MMAPS (docs/runtime.md). Nor more than one posixaio
request in flight (below)."""
import random
import sys

POSIX_ENGINES = ["sync", "psync", "vsync", "pvsync", "pvsync2", "posixaio"]
OTHER_ENGINES = ["libaio", "io_uring", "splice"]
FILE_ENGINES = ["ftruncate", "filecreate", "filestat", "filedelete", "falloc"]
PATTERNS = ["read", "write", "randread", "randwrite", "rw", "randrw"]


def job(r, k, seed):
    engine = r.choice(POSIX_ENGINES * 4 + OTHER_ENGINES + FILE_ENGINES)
    lines = [f"[j{k}]", "stonewall", f"ioengine={engine}", f"randseed={seed * 10 + k}"]
    pattern = r.choice(PATTERNS)
    lines.append(f"rw={pattern}")
    big = r.random() < 0.4
    if r.random() < 0.3:
        lines.append(f"bsrange={r.choice(['512', '1k'])}-{r.choice(['8k', '64k'])}")
        big = False
    else:
        lines.append(f"bs={r.choice(['4k', '8k', '64k', '1m'] if big else ['512', '1k', '4k', '3000'])}")
    lines.append(f"size={r.choice(['256k', '1m', '4m'])}")
    if r.random() < 0.4:
        lines.append(f"nrfiles={r.choice([2, 3])}")
        lines.append(f"file_service_type={r.choice(['roundrobin', 'sequential', 'random'])}")
    else:
        lines.append(f"filename={r.choice(['a.dat', 'b.dat'])}")
    if "rw" in pattern:
        lines.append(f"rwmixread={r.choice([30, 50, 70])}")
    if engine in ("libaio", "io_uring"):
        lines.append(f"iodepth={r.choice([1, 4, 8])}")
    # posixaio keeps one request in flight: with more, Darshan counts them
    # in the order fio reaps them (aio_return), which is the kernel's
    # timing (C Darshan's own runs of one job differ from each other).
    for opt, values in (("fsync", [1, 4]), ("fdatasync", [3]), ("end_fsync", [1]), ("fsync_on_close", [1]),
                        ("offset", ["4k", "64k"]), ("number_ios", [10, 100]), ("invalidate", [0]),
                        ("unlink", [1]), ("fallocate", ["none", "posix", "keep"]), ("io_size", ["512k"])):
        if r.random() < 0.15:
            lines.append(f"{opt}={r.choice(values)}")
    if big and engine in POSIX_ENGINES[:5] and r.random() < 0.2:
        lines.append("direct=1")
    if "write" in pattern and pattern != "randrw" and r.random() < 0.2:
        lines.append(f"verify={r.choice(['crc32c', 'md5'])}")
    return lines


def gen(seed, jobs=0):
    r = random.Random(seed)
    # verify_state_save=0: no state file in the working directory.
    head = ["[global]", "thread", "randrepeat=1", "group_reporting", "verify_state_save=0"]
    body = [line for k in range(jobs or r.choice([1, 2, 3])) for line in job(r, k, seed)]
    return "\n".join(head + body) + "\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0), end="")
