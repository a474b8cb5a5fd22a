#!/usr/bin/env python3
"""Random POSIX and STDIO programs that fork (C source) for
scripts/differential/run.py fork: programs.py's calls with up to two
fork()s among them. The parent waits for the child, which goes on with the
rest of the program, so every process makes its calls in turn and the
files are the same from run to run. Each process writes its own log
(Darshan's fork handler starts the child afresh), named by its pid: it
ends by writing its place in the tree ("" the first process, "1" its
first child, "01" the child of its second fork...) to argv[1]/../who.<pid>
with system calls no Darshan sees, so that the file takes none of the
records a configuration allows."""
import sys

import programs


class Program(programs.Program):
    def __init__(self, seed):
        super().__init__(seed)
        self.forks = 0

    def body(self, nops):
        r, lines = self.r, []
        text = super().body(nops).split("\n    ")
        for line in text:
            if self.forks < 2 and r.random() < 0.03:
                self.forks += 1
                lines.append("{ pid_t c = fork(); if (c == 0) strcat(who, \"1\"); "
                             "else { strcat(who, \"0\"); if (c > 0) waitpid(c, NULL, 0); } }")
            lines.append(line)
        lines.append("{ char m[4300]; snprintf(m, sizeof m, \"%s/../who.%d\", argv[1], (int)getpid()); "
                     "long d = syscall(SYS_openat, AT_FDCWD, m, O_WRONLY | O_CREAT | O_TRUNC, 0644); "
                     "if (d >= 0) { sink += syscall(SYS_write, d, who, strlen(who)); syscall(SYS_close, d); } }")
        return "\n    ".join(lines)


PROLOGUE = programs.PROLOGUE.replace("#include <sys/uio.h>", "#include <sys/uio.h>\n#include <sys/wait.h>").replace(
    "int fd[8]; FILE *fp[8];", "int fd[8]; FILE *fp[8]; char who[64] = \"\";")
assert "sys/wait.h" in PROLOGUE and "who[64]" in PROLOGUE


def gen(seed, nops=100):
    return PROLOGUE + "    " + Program(seed).body(nops) + "\n    return (int)(sink & 0);\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100))
