#!/usr/bin/env python3
"""Random Python programs for scripts/differential/run.py python: what a
Python job's own code does to its files, run by /usr/bin/python3: `open`
in every mode and buffering (raw, buffered, text, line-buffered), `read`,
`read1`, `readinto`, `readline`, `readlines`, `write`, `writelines`,
`seek` (every whence), `tell`, `truncate`, `flush`; `os.open`/`read`/
`write`/`pread`/`pwrite`/`readv`/`writev`/`preadv`/`pwritev`/`lseek`/
`fsync`/`fdatasync`/`ftruncate`/`dup`/`close`, `os.fdopen`; `pickle` and
`json` dumps and loads; `os.rename`, `os.replace`, `os.unlink`; up to 4
files (argv[1]/f0..f3) and 6 slots, each a file object or a descriptor.
Every call is in a `try`: an error is the program's to ignore, the same
under either library. Not drawn: `mmap` and the stat family (known
differences, docs/runtime.md), `shutil.copyfile` (sendfile, which we
count and C does not)."""
import random
import sys

SIZES = [0, 1, 7, 100, 4096, 65536, 300000]
MODES = ["r", "w", "a", "r+", "w+", "a+", "x"]


class Program:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.slots = {}  # slot -> "file" or "fd"
        self.lines = []

    def emit(self, call, to=None):
        """One line: `call` made through do() (an error ignored), its
        result kept in slot `to`."""
        self.lines.append(f"S[{to}] = do(lambda: {call})" if to is not None else f"do(lambda: {call})")

    def open_one(self, s, f):
        r = self.r
        if r.random() < 0.35:
            flags = r.choice(["os.O_RDONLY", "os.O_WRONLY | os.O_CREAT", "os.O_RDWR | os.O_CREAT",
                              "os.O_WRONLY | os.O_CREAT | os.O_TRUNC", "os.O_RDWR | os.O_APPEND | os.O_CREAT"])
            self.emit(f"os.open(P[{f}], {flags}, 0o644)", to=s)
            self.slots[s] = "fd"
            return
        mode = r.choice(MODES) + r.choice(["", "b"])
        buffering = r.choice([-1, -1, 8192, 1 if "b" not in mode else 0] + ([0] if "b" in mode else []))
        self.emit(f"open(P[{f}], '{mode}', buffering={buffering})", to=s)
        self.slots[s] = "file"

    def file_call(self, s, n, off):
        r, x = self.r, f"S[{s}]"
        op = r.choice(["write", "write", "read", "readinto", "readline", "readlines", "seek", "tell", "truncate",
                       "flush", "writelines", "read_all", "pickle", "json", "close"])
        data = f"(B[:{n}] if 'b' in {x}.mode else T[:{n}])"
        calls = {
            "write": f"{x}.write({data})",
            "read": f"{x}.read({n})",
            "read_all": f"{x}.read()",
            "readinto": f"{x}.readinto(bytearray({n}))",
            "readline": f"{x}.readline()",
            "readlines": f"{x}.readlines({n})",
            "seek": f"{x}.seek({off}, {r.choice([0, 1, 2])} if 'b' in {x}.mode else 0)",
            "tell": f"{x}.tell()",
            "truncate": f"{x}.truncate({r.choice([0, 100, 5000])})",
            "flush": f"{x}.flush()",
            "writelines": f"{x}.writelines([{data}] * 3)",
            "pickle": f"pickle.dump(list(range({n % 5000})), {x})",
            "json": f"json.dump({{'k': list(range({n % 300}))}}, {x})",
            "close": f"{x}.close()",
        }
        self.emit(calls[op])
        if op == "close":
            del self.slots[s]

    def fd_call(self, s, n, off):
        r, d = self.r, f"S[{s}]"
        op = r.choice(["write", "read", "pread", "pwrite", "readv", "writev", "preadv", "pwritev", "lseek", "fsync",
                       "fdatasync", "ftruncate", "dup", "fdopen", "close"])
        calls = {
            "write": f"os.write({d}, B[:{n}])",
            "read": f"os.read({d}, {n})",
            "pread": f"os.pread({d}, {n}, {off})",
            "pwrite": f"os.pwrite({d}, B[:{n}], {off})",
            "readv": f"os.readv({d}, [bytearray({n}), bytearray(7)])",
            "writev": f"os.writev({d}, [B[:{n}], B[:3]])",
            "preadv": f"os.preadv({d}, [bytearray({n})], {off})",
            "pwritev": f"os.pwritev({d}, [B[:{n}], B[:5]], {off})",
            "lseek": f"os.lseek({d}, {off}, {r.choice(['os.SEEK_SET', 'os.SEEK_CUR', 'os.SEEK_END'])})",
            "fsync": f"os.fsync({d})",
            "fdatasync": f"os.fdatasync({d})",
            "ftruncate": f"os.ftruncate({d}, {r.choice([0, 100, 5000])})",
            "dup": f"os.close(os.dup({d}))",
            "fdopen": f"os.fdopen({d}, '{r.choice(['rb', 'wb', 'r+b', 'ab'])}')",
            "close": f"os.close({d})",
        }
        self.emit(calls[op], to=s if op == "fdopen" else None)
        if op == "fdopen":
            self.slots[s] = "file"
        elif op == "close":
            del self.slots[s]

    def body(self, nops):
        r = self.r
        for _ in range(nops):
            s, f = r.randrange(6), r.randrange(4)
            n, off = r.choice(SIZES), r.choice([0, 1, 100, 4096, 1 << 20])
            kind = self.slots.get(s)
            if kind is None:
                if r.random() < 0.08:
                    g = r.randrange(4)
                    self.emit(f"os.{r.choice(['rename', 'replace'])}(P[{f}], P[{g}])" if r.random() < 0.7
                              else f"os.unlink(P[{f}])")
                else:
                    self.open_one(s, f)
            elif kind == "fd":
                self.fd_call(s, n, off)
            else:
                self.file_call(s, n, off)
        return "\n".join(self.lines)


PROLOGUE = """import json
import os
import pickle
import sys

P = [os.path.join(sys.argv[1], f"f{i}") for i in range(4)]
S = [None] * 6
B = bytes((i * 7) % 251 for i in range(300000))
T = "".join(chr(97 + i % 26) if i % 37 else "\\n" for i in range(300000))


def do(call):
    try:
        return call()
    except Exception:
        return None


# calls
"""


def gen(seed, nops=80):
    return PROLOGUE + Program(seed).body(nops) + "\n# calls\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 80))
