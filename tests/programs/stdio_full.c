/* STDIO's record limit: 1,030 files opened with fopen, a byte written to
 * each, then one line on stdout. C Darshan 3.5.0 makes the three standard
 * streams' records when its STDIO module is set up (at the first fopen),
 * so they hold 3 of its 1,024 records and files get 1,021.
 *   argv[1]: data directory */
#include <stdio.h>

int main(int argc, char **argv)
{
    char p[4200];
    if (argc < 2)
        return 2;
    for (int i = 0; i < 1030; i++) {
        snprintf(p, sizeof p, "%s/s%d", argv[1], i);
        FILE *f = fopen(p, "w");
        if (f) {
            fputc('a', f);
            fclose(f);
        }
    }
    printf("done %d\n", argc);
    return 0;
}
