#!/usr/bin/env python3
"""Random POSIX and STDIO programs (C source) for scripts/differential/run.py:
seeded, so a seed names a program. Up to 4 files (argv[1]/f0..f3) and 8
slots, each holding a descriptor or a stream; every call is guarded so a
failed open leaves later calls harmless."""
import random
import sys

SIZES = [0, 1, 7, 8, 100, 101, 512, 1000, 1024, 4096, 5000, 65536, 100000, 1048576, 1048577, 4194304]
OPEN_FLAGS = ["O_RDONLY", "O_WRONLY|O_CREAT", "O_RDWR|O_CREAT", "O_WRONLY|O_CREAT|O_TRUNC",
              "O_RDWR|O_CREAT|O_APPEND", "O_WRONLY|O_CREAT|O_APPEND", "O_RDWR"]
WHENCE = ["SEEK_SET", "SEEK_CUR", "SEEK_END"]


class Program:
    hold_closed_fds = False  # set by run.py under random configurations

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.nfiles = self.r.randint(1, 4)
        self.slots = {}  # slot -> 'fd' or 'fp'
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def free_slot(self):
        t = self.r.randrange(8)
        return None if t in self.slots else t

    def offset(self):
        return self.r.choice([0, 1, 8, 100, 4096, 10000, 1048576, self.r.randrange(0, 2_000_000)])

    def open_one(self, slot, f):
        r, k = self.r, self.r.random()
        if k < 0.55:
            flags, fn = r.choice(OPEN_FLAGS), r.choice(["open", "open64", "openat", "creat"])
            call = {"creat": f"creat(path({f}), 0644)",
                    "openat": f"openat(AT_FDCWD, path({f}), {flags}, 0644)"}.get(fn, f"{fn}(path({f}), {flags}, 0644)")
            self.emit(f"fd[{slot}] = {call};")
            self.slots[slot] = "fd"
        elif k < 0.9:
            mode = r.choice(["r", "w", "a", "r+", "w+", "a+", "rb", "wb"])
            self.emit(f"fp[{slot}] = {r.choice(['fopen', 'fopen64'])}(path({f}), \"{mode}\");")
            self.slots[slot] = "fp"
        else:
            self.path_call(slot, f)

    def path_call(self, slot, f):
        m = self.r.choice(["access", "unlink", "truncate", "mkdir_rm", "rename", "mkstemp"])
        if m == "rename":
            self.emit(f"rename(path({f}), path({self.r.randrange(self.nfiles)}));")
        elif m == "mkstemp":
            self.emit(f"{{ char t[4200]; snprintf(t, sizeof t, \"%s/tmpXXXXXX\", argv[1]); fd[{slot}] = mkstemp(t); "
                      f"if (fd[{slot}] >= 0) {{ write(fd[{slot}], buf, 100); rename(t, path({f})); }} }}")
            self.slots[slot] = "fd"
        elif m == "access":
            self.emit(f"access(path({f}), R_OK);")
        elif m == "unlink":
            self.emit(f"unlink(path({f}));")
        elif m == "truncate":
            self.emit(f"truncate(path({f}), {self.offset()});")
        else:
            self.emit(f"{{ char d[4200]; snprintf(d, sizeof d, \"%s.d\", path({f})); mkdir(d, 0755); rmdir(d); }}")

    def fd_call(self, slot, i, size, off):
        r, g = self.r, f"fd[{slot}]"
        buf = r.choice(["buf", "buf", "buf + 1", "buf + 4", "buf + 8"])  # MEM_NOT_ALIGNED
        op = r.choice(["read", "write", "pread", "pwrite", "lseek", "readv", "writev", "preadv", "pwritev",
                       "fsync", "fdatasync", "close", "dup", "pread64", "pwrite64", "lseek64", "ftruncate",
                       "fdopen", "dup2", "dup3", "fcntl_dup", "read0", "write0", "preadv2", "pwritev2", "lseek_far"]
                      + self.more_fd_ops())
        if op in self.more_fd_ops():
            return self.more_fd_call(g, op, size, off)
        simple = {
            "read": f"read({g}, {buf}, {size})", "write": f"write({g}, {buf}, {size})",
            "pread": f"pread({g}, {buf}, {size}, {off})", "pwrite": f"pwrite({g}, {buf}, {size}, {off})",
            "pread64": f"pread64({g}, {buf}, {size}, {off})", "pwrite64": f"pwrite64({g}, {buf}, {size}, {off})",
            "fsync": f"fsync({g})", "fdatasync": f"fdatasync({g})", "ftruncate": f"ftruncate({g}, {off})",
            "read0": f"read({g}, buf, 0)", "write0": f"write({g}, buf, 0)",
            "lseek_far": f"lseek({g}, {r.choice([3000000, 1 << 33])}, SEEK_SET)",
        }
        if op in simple:
            self.emit(f"if ({g} >= 0) {simple[op]};")
        elif op in ("lseek", "lseek64"):
            wh = r.choice(WHENCE)
            self.emit(f"if ({g} >= 0) {op}({g}, {off if wh == 'SEEK_SET' else r.choice([0, 10, -1, 4096])}, {wh});")
        elif op in ("readv", "writev", "preadv", "pwritev"):
            sizes = [r.choice(SIZES[:12]) for _ in range(r.randint(1, 3))]
            iov = ", ".join(f"{{{buf} + {k * 70000 + r.choice([0, 0, 3])}, {s}}}" for k, s in enumerate(sizes))
            extra = f", {off}" if op.startswith("p") else ""
            self.emit(f"if ({g} >= 0) {{ struct iovec v[] = {{{iov}}}; {op}({g}, v, {len(sizes)}{extra}); }}")
        elif op in ("preadv2", "pwritev2"):
            self.emit(f"if ({g} >= 0) {{ struct iovec v[] = {{{{buf, {size if size < 200000 else 4096}}}}}; "
                      f"{op}({g}, v, 1, {off}, 0); }}")
        elif op == "close":
            self.emit(f"if ({g} >= 0) close({g}); {g} = -1;")
            del self.slots[slot]
        elif op in ("dup", "dup2", "dup3", "fcntl_dup"):
            self.dup(g, op)
        else:
            mode = r.choice(["r", "w", "a", "r+"])
            self.emit(f"if ({g} >= 0) {{ fp[{slot}] = fdopen({g}, \"{mode}\"); if (!fp[{slot}]) {{ close({g}); }} }} "
                      f"else fp[{slot}] = NULL; {g} = -1;")
            self.slots[slot] = "fp"

    def more_fd_ops(self):
        """Calls a subclass adds to the descriptor calls (aio_programs)."""
        return []

    def more_fd_call(self, g, op, size, off):
        raise NotImplementedError(op)

    def dup(self, g, op):
        t = self.free_slot()
        if t is None:
            return
        call = {"dup": f"dup({g})", "dup2": f"dup2({g}, 100 + {t})", "dup3": f"dup3({g}, 100 + {t}, O_CLOEXEC)",
                "fcntl_dup": f"fcntl({g}, {self.r.choice(['F_DUPFD', 'F_DUPFD_CLOEXEC'])}, 50)"}[op]
        self.emit(f"fd[{t}] = {g} >= 0 ? {call} : -1;")
        self.slots[t] = "fd"

    def fp_call(self, slot, i, size, off, f):
        r, g = self.r, f"fp[{slot}]"
        op = r.choice(["fwrite", "fread", "fprintf", "fputs", "fgets", "fputc", "fgetc", "fseek", "rewind", "fflush",
                       "fclose", "fscanf", "ftell", "fseeko", "fileno_write", "vfprintf", "fputs_empty", "fwrite0",
                       "getw", "putw", "fsetpos", "freopen", "fgets_nul", "fread_big", "fseeko64", "fileno_dup",
                       "printf_out", "stderr_out"])
        s2 = min(size, 200000)
        simple = {
            "fwrite": f"fwrite(buf, 1, {s2}, {g})",
            "fread": f"fread(buf, {r.choice([1, 4, 100])}, {max(1, s2 // 100)}, {g})",
            "fprintf": f"fprintf({g}, \"%d %s\\n\", {i}, \"abcdefghij\")",
            "vfprintf": f"vfp({g}, \"%d %s\\n\", {i}, \"xyz\")",
            "fputs": f"fputs(\"hello world line\\n\", {g})", "fputs_empty": f"fputs(empty, {g})",
            "fgets": f"fgets(buf, {r.choice([2, 10, 100, 5000])}, {g})",
            "fputc": f"fputc('x', {g})", "fgetc": f"fgetc({g})", "rewind": f"rewind({g})", "fflush": f"fflush({g})",
            "ftell": f"sink += ftell({g})", "fwrite0": f"fwrite(buf, {r.choice([0, 1])}, 0, {g})",
            "getw": f"sink += getw({g})", "putw": f"putw(0x41424344, {g})",
            "fread_big": f"fread(buf, 4096, 300, {g})", "fseeko64": f"fseeko64({g}, {off}, SEEK_SET)",
        }
        if op in simple:
            self.emit(f"if ({g}) {simple[op]};")
        elif op in ("fseek", "fseeko"):
            wh = r.choice(WHENCE)
            self.emit(f"if ({g}) {op}({g}, {off if wh == 'SEEK_SET' else r.choice([0, 10, -1])}, {wh});")
        else:
            self.fp_other(op, slot, g, i, size, f)

    def fp_other(self, op, slot, g, i, size, f):
        if op == "fscanf":
            self.emit(f"if ({g}) {{ int x; sink += fscanf({g}, \"%d\", &x); }}")
        elif op == "fileno_write":
            self.emit(f"if ({g}) {{ int d = fileno({g}); if (d >= 0) write(d, buf, {min(size, 4096)}); }}")
        elif op == "fsetpos":
            self.emit(f"if ({g}) {{ fpos_t p; if (fgetpos({g}, &p) == 0) fsetpos({g}, &p); }}")
        elif op == "freopen" and self.hold_closed_fds:
            # C keeps the stream's first record tied to its address after
            # freopen and fclose, and counts a later stream at that address
            # that it does not record on it (docs/runtime.md).
            self.emit(f"if ({g}) fflush({g});")
        elif op == "freopen":
            self.emit(f"if ({g}) {g} = freopen(path({f}), \"{self.r.choice(['r', 'w', 'a', 'r+'])}\", {g});")
        elif op == "fgets_nul":
            self.emit(f"if ({g}) {{ memset(buf, 0, 64); fwrite(buf, 1, 3, {g}); fseek({g}, 0, SEEK_SET); "
                      f"fgets(buf, 10, {g}); memset(buf, 'a', 64); }}")
        elif op == "fileno_dup":
            t = self.free_slot()
            if t is not None:
                self.emit(f"fd[{t}] = {g} ? dup(fileno({g})) : -1;")
                self.slots[t] = "fd"
        elif op == "printf_out":
            self.emit(f"printf(\"%d line %s\\n\", {i}, \"out\");")
        elif op == "stderr_out":
            self.emit(f"fprintf(stderr, \"%d err\\n\", {i});")
        else:
            self.emit(self.fclose(g) + f" {g} = NULL;")
            del self.slots[slot]

    def fclose(self, g):
        """fclose of stream `g`. With `hold_closed_fds`, the descriptor it
        frees is then held on /dev/null by system calls no Darshan sees:
        C Darshan keeps a descriptor that fileno or fdopen tied to a record
        tied to it after fclose, and counts the calls on a later descriptor
        of that number whose open it did not record (a name left out, no
        room left) on the old file; we do not (docs/runtime.md). Without a
        configuration that refuses records, no open goes unrecorded."""
        if not self.hold_closed_fds:
            return f"if ({g}) fclose({g});"
        return (f"if ({g}) {{ static long z = -1; int n = {g}->_fileno; fclose({g}); "
                f"if (z < 0) z = syscall(SYS_openat, AT_FDCWD, \"/dev/null\", O_RDONLY); "
                f"if (n > 2 && n != z) syscall(SYS_dup3, z, n, 0); }}")

    def body(self, nops):
        r = self.r
        for i in range(nops):
            slot, f = r.randrange(8), r.randrange(self.nfiles)
            size, off = r.choice(SIZES), self.offset()
            kind = self.slots.get(slot)
            if kind is None:
                self.open_one(slot, f)
            elif kind == "fd":
                self.fd_call(slot, i, size, off)
            else:
                self.fp_call(slot, i, size, off, f)
        if r.random() < 0.5:  # else left open at exit
            for slot, kind in list(self.slots.items()):
                self.emit(f"if (fd[{slot}] >= 0) close(fd[{slot}]);" if kind == "fd" else self.fclose(f"fp[{slot}]"))
        return "\n    ".join(self.lines)


PROLOGUE = """#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
static char pbuf[4][4200];
static const char *path(int i) { return pbuf[i]; }
static char buf[4194304 + 300000];
static long sink;
static int vfp(FILE *f, const char *fmt, ...) { va_list a; va_start(a, fmt); int r = vfprintf(f, fmt, a); va_end(a); return r; }
int main(int argc, char **argv) {
    int fd[8]; FILE *fp[8];
    const char *empty = argv[0] + strlen(argv[0]);
    for (int i = 0; i < 8; i++) { fd[i] = -1; fp[i] = NULL; }
    for (int i = 0; i < 4; i++) snprintf(pbuf[i], sizeof pbuf[i], "%s/f%d", argv[1], i);
    memset(buf, 'a', sizeof buf);
    for (int i = 0; i < (int)sizeof buf; i += 37) buf[i] = '\\n';
"""


def gen(seed, nops=100):
    return PROLOGUE + "    " + Program(seed).body(nops) + "\n    return (int)(sink & 0);\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100))
