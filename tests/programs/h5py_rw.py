"""h5py (from PyPI, with the HDF5 2.0 its wheel bundles) under the
library, with a known pattern (ffi/tests/hdf5.rs): create <dir>/py.h5 with
dataset "a" (100 x 10 float64, written whole) and "g/b" (7 int32), rewrite
rows 10..20, then reopen and read "a" whole, row 5, then row i % 100 for
i < N through a fresh f["a"] each time (an H5Oopen and, when the Python
object dies, the H5Idec_ref that closes it), and "g/b" whole. Every value
read is checked; prints "ok"."""
import sys

import h5py
import numpy as np

path = sys.argv[1] + "/py.h5"
n = int(sys.argv[2])
a = np.arange(1000, dtype="f8").reshape(100, 10)
with h5py.File(path, "w") as f:
    d = f.create_dataset("a", data=a)
    d[10:20, :] = -a[10:20, :]
    f.create_dataset("g/b", data=np.arange(7, dtype="i4"))
a[10:20, :] *= -1
with h5py.File(path, "r") as f:
    assert (f["a"][...] == a).all()
    assert (f["a"][5] == a[5]).all()
    for i in range(n):
        assert (f["a"][i % 100] == a[i % 100]).all()
    assert (f["g/b"][()] == np.arange(7)).all()
print("ok")
