#!/usr/bin/env python3
"""Random POSIX and STDIO programs run by every rank of an MPI job (C
source) for scripts/differential/run.py mpiposix: programs.py's calls,
each made by the ranks in turn with a barrier after each rank's turn, so
what a call finds in the file never depends on timing. Most calls are made
by every rank, some by a few, so ranks differ in how many accesses of each
size they make; offsets move with the rank. Files are named alike on every
rank (shared: C reduces a record every rank has to one of rank -1) or
each rank its own, chosen per file."""
import sys

import programs


class Program(programs.Program):
    def __init__(self, seed):
        super().__init__(seed)
        self.shift = self.r.choice([0, 1, 4096, 1 << 20])  # how far apart the ranks' offsets lie
        self.shared = [int(self.r.random() < 0.6) for _ in range(4)]

    def offset(self):
        return f"({super().offset()} + rank * {self.shift})"

    def emit(self, line):
        who = "1" if self.r.random() < 0.7 else self.r.choice(["rank == 0", "rank % 2", "rank != 1", "rank == 2"])
        self.lines.append(f"for (int r = 0; r < nprocs; r++) {{ if (rank == r && ({who})) {{ {line} }} "
                          "MPI_Barrier(MPI_COMM_WORLD); }")


PROLOGUE = programs.PROLOGUE.replace("#include <fcntl.h>", "#include <mpi.h>\n#include <fcntl.h>").replace(
    "    for (int i = 0; i < 4; i++) snprintf(pbuf[i], sizeof pbuf[i], \"%s/f%d\", argv[1], i);\n",
    "    int rank, nprocs;\n"
    "    MPI_Init(&argc, &argv);\n"
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);\n"
    "    for (int i = 0; i < 4; i++) {\n"
    "        if (shared[i]) snprintf(pbuf[i], sizeof pbuf[i], \"%s/f%d\", argv[1], i);\n"
    "        else snprintf(pbuf[i], sizeof pbuf[i], \"%s/f%d.%d\", argv[1], i, rank);\n"
    "    }\n")


def gen(seed, nops=100):
    p = Program(seed)
    body = p.body(nops)
    shared = "static const int shared[4] = {" + ", ".join(map(str, p.shared)) + "};\n"
    # MPI_Finalize in the return line: the reducer keeps what follows the body.
    return (PROLOGUE.replace("static long sink;\n", "static long sink;\n" + shared) + "    " + body
            + "\n    return MPI_Finalize() + (int)(sink & 0);\n}\n")


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100))
