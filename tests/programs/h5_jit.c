/* HDF5 called from code that lives in no loaded object, as a JIT's does
 * (Julia's ccall, for one): an anonymous executable page holding
 *     sub rsp, 8; mov rax, H5Dwrite; call rax; add rsp, 8; ret
 * so the return address H5Dwrite sees is in that page. x86-64 only.
 * usage: h5_jit <dir> <n>  (writes <dir>/jit.h5: dataset "j" of n ints,
 * each written by its own call through the page; prints "ok") */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef herr_t (*write_fn)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/jit.h5", argv[1]);
    int n = atoi(argv[2]), bad = 0;
    unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 3;
    void *target = (void *)&H5Dwrite;
    unsigned char code[] = {0x48, 0x83, 0xEC, 0x08, 0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0,
                            0xFF, 0xD0, 0x48, 0x83, 0xC4, 0x08, 0xC3};
    memcpy(code + 6, &target, 8);
    memcpy(page, code, sizeof code);
    write_fn jit_write = (write_fn)page;

    hsize_t dims = n, one = 1;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &dims, NULL);
    hid_t d = H5Dcreate2(f, "j", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t m = H5Screate_simple(1, &one, NULL);
    for (int i = 0; i < n; i++) {
        hsize_t at = i;
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &at, NULL, &one, NULL);
        bad |= jit_write(d, H5T_NATIVE_INT, m, s, H5P_DEFAULT, &i) < 0;
    }
    int *back = calloc(n, sizeof *back);
    bad |= H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0;
    for (int i = 0; i < n; i++) bad |= back[i] != i;
    free(back);
    H5Sclose(m);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    puts(bad ? "bad" : "ok");
    return bad;
}
