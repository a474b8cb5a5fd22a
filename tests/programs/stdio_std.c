/* Standard streams: reads 3 lines from stdin with fgets and one number
 * with scanf, writes with printf/puts/putchar/fprintf(stderr), then uses
 * fscanf/vfprintf on a file. usage: stdio_std <file> < input */
#include <stdarg.h>
#include <stdio.h>

static int logf_(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(f, fmt, ap);
    va_end(ap);
    return r;
}

int main(int argc, char **argv)
{
    char line[256];
    int n = 0, v;
    while (n < 3 && fgets(line, sizeof line, stdin)) n++;
    if (scanf("%d", &v) != 1) return 1;
    printf("read %d lines and %d\n", n, v);   /* 21 bytes */
    puts("done");                               /* 5 bytes */
    putchar('!');                               /* 1 byte */
    fprintf(stderr, "to stderr\n");             /* 10 bytes */
    FILE *f = fopen(argv[1], "w+");
    if (!f) return 2;
    logf_(f, "%d %d\n", 12, 345);                /* 7 bytes */
    rewind(f);
    int a, b;
    if (fscanf(f, "%d %d", &a, &b) != 2 || a != 12 || b != 345) return 3;
    fclose(f);
    return 0;
}
