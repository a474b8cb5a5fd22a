"""mpi4py's own MPI-IO: every rank writes 4,096 bytes of its rank number at
offset rank * 4096 with one collective write, reads them back with one
collective read and checks them; rank 0 prints "ok" when all agree.
usage: mpi4py_io.py DIR"""
import sys

from mpi4py import MPI

N = 4096
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
path = f"{sys.argv[1]}/m4p.dat"
f = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
f.Write_at_all(rank * N, bytearray([rank % 256]) * N)
back = bytearray(N)
f.Read_at_all(rank * N, back)
f.Close()
good = comm.allreduce(back == bytearray([rank % 256]) * N, op=MPI.LAND)
if rank == 0:
    print("ok" if good else "read back differs")
sys.exit(0 if good else 1)
