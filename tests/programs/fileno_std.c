/* fileno on the standard streams before and after the program's first
 * STDIO call: Darshan sets its STDIO module up at that call, and only from
 * then are the standard streams its streams (Python calls fileno on all
 * three before its first fopen). usage: fileno_std fopen|fprintf <missing file> */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) return 1;
    if (fileno(stdout) != 1 || fileno(stderr) != 2) return 2; /* not counted */
    if (strcmp(argv[1], "fopen") == 0) {
        if (fopen(argv[2], "r")) return 3; /* fails, and still the first STDIO call */
    } else {
        fprintf(stdout, "%d\n", argc); /* through the C shim */
    }
    if (fileno(stdout) != 1 || fileno(stdin) != 0) return 4; /* counted */
    return 0;
}
