/* The HDF5 calls `ior -a HDF5` makes with IOR's defaults (block 1 MiB,
 * transfer 256 KiB, one segment, a file shared by every rank), in IOR's
 * order (src/aiori-HDF5.c, which builds with H5_USE_16_API, so H5Dcreate
 * and H5Dopen are the 1.6 forms): a write phase, then a read phase, each
 * opening the file with the MPI-IO driver and dataset
 * "Dataset-0000.0000", moving every transfer through a regular
 * hyperslab of the file dataspace (start, stride = block = transfer
 * elements, count 1). The corpus has the C runtime's log of that IOR run
 * (ior_pnetcdf_hdf5/..._ior-HDF5_...): ffi/tests/hdf5.rs compares.
 * usage: h5_ior <file>; prints "ok" when every value read back is right. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK (1 << 20)
#define XFER (256 << 10)
#define N (XFER / 8) /* elements per transfer (IOR_size_t: 8 bytes) */

static hid_t open_file(const char *path, int create)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_sizes(fcpl, sizeof(hsize_t), sizeof(hsize_t));
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_alignment(fapl, 1, 1);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl) : H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    return f;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
    long long *buf = malloc(XFER);
    for (int phase = 0; phase < 2; phase++) {
        int write = phase == 0;
        hid_t f = open_file(argv[1], write);
        hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
        hsize_t mdims = XFER, mstart = 0, mcount = 1, mstride = N, mblock = N;
        hid_t mem = H5Screate_simple(1, &mdims, NULL);
        H5Sselect_hyperslab(mem, H5S_SELECT_SET, &mstart, &mstride, &mcount, &mblock);
        hsize_t dims = (hsize_t)(BLOCK / 8) * np;
        hid_t space = H5Screate_simple(1, &dims, NULL);
        hid_t d;
        if (write) {
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            d = H5Dcreate1(f, "Dataset-0000.0000", H5T_NATIVE_LLONG, space, dcpl);
        } else {
            d = H5Dopen1(f, "Dataset-0000.0000");
        }
        hid_t fspace = H5Dget_space(d);
        for (long long off = (long long)rank * BLOCK; off < (long long)(rank + 1) * BLOCK; off += XFER) {
            hsize_t start = off / 8, count = 1, stride = N, block = N;
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, &stride, &count, &block);
            if (write) {
                for (int i = 0; i < N; i++) buf[i] = off / 8 + i;
                bad |= H5Dwrite(d, H5T_NATIVE_LLONG, mem, fspace, xfer, buf) < 0;
            } else {
                bad |= H5Dread(d, H5T_NATIVE_LLONG, mem, fspace, xfer, buf) < 0;
                for (int i = 0; i < N; i++) bad |= buf[i] != off / 8 + i;
            }
        }
        H5Dclose(d);
        H5Sclose(space);
        H5Sclose(fspace);
        H5Sclose(mem);
        H5Pclose(xfer);
        H5Fclose(f);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buf);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) puts(any ? "bad" : "ok");
    MPI_Finalize();
    return any;
}
