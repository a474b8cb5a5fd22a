/* glibc's getopt_long as the oracle for darshan-util's getopt.rs: reads
 * a table "name:hasarg,name:hasarg,..." and arguments, and prints what
 * getopt_long(argc, argv, "", table) returns, one line each:
 * "opt NAME VALUE" ("-" for none) or "bad", then "operand X" for each
 * operand after permutation. glibc's complaints go to stderr.
 * usage: getopt_probe TABLE [ARG...] (argv[0] seen by getopt is "prog") */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct option opts[32];
    int n = 0;
    char *table = strdup(argv[1]);
    for (char *tok = strtok(table, ","); tok && n < 31; tok = strtok(NULL, ",")) {
        char *colon = strchr(tok, ':');
        *colon = 0;
        opts[n] = (struct option){tok, atoi(colon + 1) ? required_argument : no_argument, NULL, 1000 + n};
        n++;
    }
    opts[n] = (struct option){0, 0, 0, 0};
    argv[1] = "prog";
    argc -= 1;
    argv += 1;
    opterr = 1;
    int index;
    for (;;) {
        int c = getopt_long(argc, argv, "", opts, &index);
        if (c == -1)
            break;
        if (c >= 1000)
            printf("opt %s %s\n", opts[c - 1000].name, optarg ? optarg : "-");
        else
            printf("bad\n");
        fflush(stdout);
    }
    for (int i = optind; i < argc; i++)
        printf("operand %s\n", argv[i]);
    return 0;
}
