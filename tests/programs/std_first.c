/* The standard streams first, then a file while threads keep writing to
 * the streams (the crash-safe file is made at the first record that is
 * not a standard stream's, while the streams' records are in use):
 *
 * 1. fputs("e\n", stderr) 2 times (STDIO's <STDERR>; stderr is
 *    unbuffered: one write each), fileno(stdout) and fileno(stderr)
 *    (POSIX's <STDOUT> and <STDERR>, as Python's start makes them),
 *    write(1, "q", 1) 3 times, then "quiet\n" through write(1), and wait
 *    for a line on stdin (the test looks for a crash-safe file);
 * 2. THREADS threads start; each, once all are running, makes N calls on
 *    a standard stream: with MODE "posix", fputs("t", stderr) (STDIO's
 *    <STDERR>) while the main thread opens, writes 10 bytes to and
 *    closes FILE (a POSIX record); with MODE "stdio", write(2, "t", 1)
 *    (POSIX's <STDERR>) while the main thread fopens FILE, fputs 10
 *    bytes and fcloses it (a STDIO record);
 * 3. the threads joined, "ready\n" through write(1), then a long sleep
 *    (the test kills the process).
 *
 * usage: std_first MODE FILE THREADS N */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int stdio_mode, n_calls, running, threads;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_running = PTHREAD_COND_INITIALIZER;

/* Returns once the writers and the main thread are all running. */
static void all_start(void)
{
    pthread_mutex_lock(&mu);
    if (++running == threads + 1)
        pthread_cond_broadcast(&all_running);
    while (running < threads + 1)
        pthread_cond_wait(&all_running, &mu);
    pthread_mutex_unlock(&mu);
}

static void *writer(void *arg)
{
    (void)arg;
    all_start();
    for (int i = 0; i < n_calls; i++) {
        if (stdio_mode)
            (void)!write(2, "t", 1);
        else
            fputs("t", stderr);
    }
    return NULL;
}

/* The main thread's one file, made while the writers run. */
static void the_file(const char *path)
{
    if (stdio_mode) {
        FILE *f = fopen(path, "w");
        if (!f || fputs("0123456789", f) < 0 || fclose(f) != 0)
            perror(path), exit(1);
    } else {
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || write(fd, "0123456789", 10) != 10 || close(fd) != 0)
            perror(path), exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return fprintf(stderr, "usage: std_first posix|stdio FILE THREADS N\n"), 2;
    stdio_mode = strcmp(argv[1], "stdio") == 0;
    threads = atoi(argv[3]);
    n_calls = atoi(argv[4]);
    for (int i = 0; i < 2; i++)
        fputs("e\n", stderr);
    if (fileno(stdout) != 1 || fileno(stderr) != 2)
        return 3;
    for (int i = 0; i < 3; i++)
        (void)!write(1, "q", 1);
    (void)!write(1, "quiet\n", 6);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return 1;
    pthread_t t[64];
    if (threads > 64)
        return 2;
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, writer, NULL);
    all_start();
    the_file(argv[2]);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    (void)!write(1, "ready\n", 6);
    sleep(100);
    return 0;
}
