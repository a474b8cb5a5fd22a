#!/usr/bin/env python3
"""Random POSIX and STDIO programs whose calls three threads make (C
source) for scripts/differential/run.py threads: programs.py's calls, each
given to one of the threads (the main one among them, a thread keeping a
run of calls or handing over at random). The threads take turns in the
program's order (a mutex and a condition variable), so every call finds
what it would in one thread and the files are the same from run to run,
while each call comes from the thread it was given to: what a runtime
keeps per thread (its guard, its caches) and what it must share between
them (descriptors, streams, records) is what is tested."""
import random
import sys

import programs

THREADS = 3

# programs.py's declarations (its includes and statics), then main's
# locals as statics the threads share.
HEAD = programs.PROLOGUE[:programs.PROLOGUE.index("int main(")].replace(
    "#include <sys/syscall.h>", "#include <sys/syscall.h>\n#include <pthread.h>")
assert "pthread.h" in HEAD
SHARED = """static int fd[8]; static FILE *fp[8];
static const char *empty;
static char **argv;
"""
TURNS = """static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t moved = PTHREAD_COND_INITIALIZER;
static int turn;
/* Each thread makes its own calls, when the program's order reaches them. */
static void *worker(void *arg) {
    int me = (int)(long)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (turn < STEPS && owner[turn] != me) pthread_cond_wait(&moved, &lock);
        int s = turn;
        pthread_mutex_unlock(&lock);
        if (s >= STEPS) return NULL;
        step(s);
        pthread_mutex_lock(&lock);
        turn++;
        pthread_cond_broadcast(&moved);
        pthread_mutex_unlock(&lock);
    }
}
int main(int argc, char **av) {
    pthread_t t[THREADS];
    argv = av;
    empty = argv[0] + strlen(argv[0]);
    for (int i = 0; i < 8; i++) { fd[i] = -1; fp[i] = NULL; }
    for (int i = 0; i < 4; i++) snprintf(pbuf[i], sizeof pbuf[i], "%s/f%d", argv[1], i);
    memset(buf, 'a', sizeof buf);
    for (int i = 0; i < (int)sizeof buf; i += 37) buf[i] = '\\n';
    for (long i = 1; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    worker(0);
    for (int i = 1; i < THREADS; i++) pthread_join(t[i], NULL);
    return (int)(sink & 0);
}
"""


def gen(seed, nops=100):
    lines = programs.Program(seed).body(nops).split("\n    ")
    r, owner, me = random.Random(seed * 7919 + 1), [], 0
    for _ in lines:
        if r.random() < 0.5:
            me = r.randrange(THREADS)
        owner.append(me)
    cases = "\n".join(f"    case {i}: {{ {line} }} break;" for i, line in enumerate(lines))
    return (HEAD + SHARED + f"#define STEPS {len(lines)}\n#define THREADS {THREADS}\n"
            + f"static const unsigned char owner[STEPS] = {{{', '.join(map(str, owner))}}};\n"
            + "static void step(int s) {\n    switch (s) {\n    /* calls */\n" + cases + "\n    /* calls */\n    }\n}\n" + TURNS)


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100))
