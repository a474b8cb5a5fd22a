/* fopen and fclose one existing file, nothing else: its STDIO record is
 * the first record of the run (the one that makes the crash-safe file).
 * usage: fopen_once <file> */
#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror("fopen"); return 1; }
    return fclose(f) != 0;
}
