/* Many datasets in one file: <dir>/many.h5 with datasets d0 .. d<n-1>,
 * one int written to each. With "hold", prints "ready" before closing
 * anything and waits on stdin (the crash tests kill it there).
 * usage: h5_many <dir> <n> [hold] */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    char path[4096], name[32];
    snprintf(path, sizeof path, "%s/many.h5", argv[1]);
    int n = atoi(argv[2]), bad = 0;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL);
    hid_t *d = calloc(n, sizeof *d);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "d%d", i);
        d[i] = H5Dcreate2(f, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad |= d[i] < 0 || H5Dwrite(d[i], H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &i) < 0;
    }
    if (argc > 3 && strcmp(argv[3], "hold") == 0) {
        printf("ready\n");
        fflush(stdout);
        char line[8];
        if (!fgets(line, sizeof line, stdin)) return 3;
    }
    for (int i = 0; i < n; i++) H5Dclose(d[i]);
    H5Sclose(s);
    H5Fclose(f);
    free(d);
    puts(bad ? "bad" : "ok");
    return bad;
}
