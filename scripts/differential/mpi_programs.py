#!/usr/bin/env python3
"""Random MPI-IO programs (C source) for scripts/differential/run.py --mpi:
seeded, the same call sequence on every rank (so collectives match), the
offsets and sizes of independent calls depending on the rank. Up to 3
files: shared ones opened on MPI_COMM_WORLD, per-rank ones on
MPI_COMM_SELF (argv[1]/m<k> and argv[1]/m<k>.<rank>). Run them with
Open MPI's ROMIO (`--mca io romio321`): its OMPIO hangs in split and
non-blocking calls here (4.1.4), with or without a Darshan, and its
ROMIO has no MPI_File_iwrite_at_all (a call through a null pointer).
With MPICH (run.py's DIFFERENTIAL_MPI=mpich) the programs also make the
calls Open MPI 4.1 lacks: the large-count forms (`_c`, MPI 4), the
non-blocking collectives, and the shared file pointer's calls."""
import random
import sys

COUNTS = [0, 1, 8, 100, 1000, 4096, 65536, 300000]


def large(r, h, off, count, dtype, coll):
    """A large-count call (MPI_Count counts: MPI 4's `_c` forms)."""
    calls = ["write_at", "read_at", "write", "read"] + (["write_at_all", "read_at_all", "write_all", "read_all"] if coll else [])
    c = r.choice(calls)
    at = f"{off}, " if "_at" in c else ""
    return f"{{ MPI_Count n = {count}; MPI_File_{c}_c({h}, {at}buf, n, {dtype}, &st); }}"


def nonblocking(kind):
    def call(r, h, off, count, dtype, coll):
        c = r.choice({"iwrite": ["iwrite", "iwrite_at"], "iread": ["iread", "iread_at"],
                      "icoll": ["iwrite_all", "iread_all", "iwrite_at_all", "iread_at_all"]}[kind])
        at = f"{off}, " if "_at" in c else ""
        large = r.random() < 0.3
        n = f"(MPI_Count){count}" if large else str(count)
        return f"{{ MPI_Request q = MPI_REQUEST_NULL; MPI_File_{c}{'_c' if large else ''}({h}, {at}buf, {n}, {dtype}, &q); MPI_Wait(&q, &st); }}"
    return call


def shared(r, h, off, count, dtype, coll):
    """The shared file pointer: a seek (collective), or a read or write by
    every rank in turn on a shared file (so the offsets each finds do not
    race), by the rank alone on its own file."""
    c = r.choice(["write_shared", "read_shared", "seek_shared"])
    if c == "seek_shared":
        return f"MPI_File_seek_shared({h}, {r.choice([0, 100])}, MPI_SEEK_SET)"
    call = f"MPI_File_{c}({h}, buf, {count}, {dtype}, &st)"
    return f"for (int t = 0; t < nprocs; t++) {{ if (t == rank) {call}; MPI_Barrier(MPI_COMM_WORLD); }}" if coll else call


def ordered(r, h, off, count, dtype, coll):
    c = r.choice(["read_ordered", "write_ordered_begin", "read_ordered_begin"])
    if c == "read_ordered":
        return f"MPI_File_read_ordered({h}, buf, {count}, {dtype}, &st)"
    return f"MPI_File_{c}({h}, buf, {count}, {dtype}); MPI_File_{c[:-6]}_end({h}, buf, &st)"


# MPICH's calls (Program.mpich): name -> a function of (random, handle,
# offset, count, datatype, whether the file is shared) giving the C.
MPICH_CALLS = {"large": large, "iwrite": nonblocking("iwrite"), "iread": nonblocking("iread"),
               "icoll": nonblocking("icoll"), "shared": shared, "ordered": ordered}


class Program:
    # Whether the programs run with OMPIO (run.py): no split or
    # non-blocking calls, which hang in it (4.1.4).
    ompio = False
    mpich = False  # whether MPICH's calls are drawn too (run.py)
    # Whether DXT's offsets are compared (DXT with MPICH; Open MPI's are
    # -1): no ordered calls then, whose offset is the shared file pointer
    # as each rank finds it before the collective call, which the ranks
    # that entered it first may have moved (C's own runs differ).
    dxt_offsets = False

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.open = {}  # slot -> 'world' or 'self'
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def access(self, slot, i):
        r, h = self.r, f"fh[{slot}]"
        count = r.choice(COUNTS)
        dtype = r.choice(["MPI_BYTE", "MPI_INT", "MPI_DOUBLE"])
        base = r.choice([0, 1, 4096, 1 << 20])
        rank_off = f"({base} + rank * {r.choice([0, 1, 100, 4096, 1 << 20])})"
        coll = self.open[slot] == "world"
        ops = ["write_at", "read_at", "write", "read", "iwrite_at", "iread_at", "seek", "sync", "get_size",
               "write_rank0", "read_every_other"]
        if coll:
            ops += ["write_at_all", "read_at_all", "write_all", "read_all", "write_all_begin", "read_at_all_begin",
                    "set_view", "set_size", "write_ordered", "set_atomicity"]
        if self.mpich:
            ops += ["large", "iwrite", "iread", "shared"] + (["icoll", "ordered"] if coll else [])
        if self.ompio:
            ops = [o for o in ops if not o.startswith("i") and "begin" not in o]
        if self.dxt_offsets:
            ops = [o for o in ops if "ordered" not in o]
        op = r.choice(ops)
        st = "&st"
        calls = {
            "write_at": f"MPI_File_write_at({h}, {rank_off}, buf, {count}, {dtype}, {st})",
            "read_at": f"MPI_File_read_at({h}, {rank_off}, buf, {count}, {dtype}, {st})",
            "write": f"MPI_File_write({h}, buf, {count}, {dtype}, {st})",
            "read": f"MPI_File_read({h}, buf, {count}, {dtype}, {st})",
            "write_at_all": f"MPI_File_write_at_all({h}, {rank_off}, buf, {count}, {dtype}, {st})",
            "read_at_all": f"MPI_File_read_at_all({h}, {rank_off}, buf, {count}, {dtype}, {st})",
            "write_all": f"MPI_File_write_all({h}, buf, {count}, {dtype}, {st})",
            "read_all": f"MPI_File_read_all({h}, buf, {count}, {dtype}, {st})",
            "write_ordered": f"MPI_File_write_ordered({h}, buf, {count}, {dtype}, {st})",
            "sync": f"MPI_File_sync({h})",
            "get_size": f"{{ MPI_Offset s; MPI_File_get_size({h}, &s); }}",
            "set_size": f"MPI_File_set_size({h}, {r.choice([0, 100, 1 << 20])})",
            "set_atomicity": f"MPI_File_set_atomicity({h}, {r.choice([0, 1])})",
            "seek": f"MPI_File_seek({h}, {rank_off}, MPI_SEEK_SET)",
            "iwrite_at": f"{{ MPI_Request q = MPI_REQUEST_NULL; MPI_File_iwrite_at({h}, {rank_off}, buf, {count}, {dtype}, &q); MPI_Wait(&q, {st}); }}",
            "iread_at": f"{{ MPI_Request q = MPI_REQUEST_NULL; MPI_File_iread_at({h}, {rank_off}, buf, {count}, {dtype}, &q); MPI_Wait(&q, {st}); }}",
            "iwrite_at_all": f"{{ MPI_Request q = MPI_REQUEST_NULL; MPI_File_iwrite_at_all({h}, {rank_off}, buf, {count}, {dtype}, &q); MPI_Wait(&q, {st}); }}",
            "write_all_begin": f"MPI_File_write_all_begin({h}, buf, {count}, {dtype}); MPI_File_write_all_end({h}, buf, {st})",
            "read_at_all_begin": f"MPI_File_read_at_all_begin({h}, {rank_off}, buf, {count}, {dtype}); MPI_File_read_at_all_end({h}, buf, {st})",
            "write_rank0": f"if (rank == 0) MPI_File_write_at({h}, {base}, buf, {count}, {dtype}, {st})",
            "read_every_other": f"if (rank % 2) MPI_File_read_at({h}, {rank_off}, buf, {count}, {dtype}, {st})",
        }
        if op in MPICH_CALLS:
            self.emit(MPICH_CALLS[op](r, h, rank_off, count, dtype, coll) + ";")
        elif op == "set_view":
            blk = r.choice([1, 8, 100])
            self.emit(f"{{ MPI_Datatype v; MPI_Type_vector(4, {blk}, {blk} * nprocs, MPI_INT, &v); MPI_Type_commit(&v); "
                      f"MPI_File_set_view({h}, {base} + rank * {blk} * 4, MPI_INT, v, \"native\", MPI_INFO_NULL); MPI_Type_free(&v); }}")
        else:
            self.emit(calls[op] + ";")

    def body(self, nops):
        r = self.r
        for i in range(nops):
            slot = r.randrange(3)
            if slot not in self.open:
                world = r.random() < 0.6
                amode = r.choice(["MPI_MODE_CREATE | MPI_MODE_RDWR", "MPI_MODE_CREATE | MPI_MODE_WRONLY", "MPI_MODE_RDWR",
                                  "MPI_MODE_RDONLY"])
                name = f"name(argv[1], {slot}, {'-1' if world else 'rank'})"
                info = r.choice(["MPI_INFO_NULL", "info"])
                comm = "MPI_COMM_WORLD" if world else "MPI_COMM_SELF"
                self.emit(f"if (MPI_File_open({comm}, {name}, {amode}, {info}, &fh[{slot}]) != MPI_SUCCESS) fh[{slot}] = MPI_FILE_NULL;")
                self.open[slot] = "world" if world else "self"
            elif r.random() < 0.1:
                self.emit(f"if (fh[{slot}] != MPI_FILE_NULL) MPI_File_close(&fh[{slot}]);")
                del self.open[slot]
            else:
                self.emit(f"if (fh[{slot}] != MPI_FILE_NULL) {{")
                self.access(slot, i)
                self.emit("}")
            # Every rank's call done before the next: a read racing another
            # rank's write would make the bytes read a matter of timing.
            self.emit("MPI_Barrier(MPI_COMM_WORLD);")
            if r.random() < 0.15:
                self.emit(f"if (rank == {r.randrange(4)}) {{ FILE *f = fopen(name(argv[1], 9, rank), \"a\"); if (f) {{ fprintf(f, \"%d\\n\", rank); fclose(f); }} }}")
        for slot in self.open:
            self.emit(f"if (fh[{slot}] != MPI_FILE_NULL) MPI_File_close(&fh[{slot}]);")
        return "\n    ".join(self.lines)


PROLOGUE = """#include <mpi.h>
#include <stdio.h>
#include <string.h>
static char buf[300000 * 8];
static char names[10][4200];
static const char *name(const char *dir, int k, int rank) {
    if (rank < 0) snprintf(names[k], sizeof names[k], "%s/m%d", dir, k);
    else snprintf(names[k], sizeof names[k], "%s/m%d.%d", dir, k, rank);
    return names[k];
}
int main(int argc, char **argv) {
    int rank, nprocs;
    MPI_File fh[3];
    MPI_Status st;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    memset(buf, 'q', sizeof buf);
"""


def gen(seed, nops=40):
    return PROLOGUE + "    " + Program(seed).body(nops) + "\n    MPI_Info_free(&info);\n    MPI_Finalize();\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
