/* What the C heap holds when main() starts: bytes in use in the heap
 * (uordblks) and in blocks of their own (hblkhd), as mallinfo2 says.
 * Run under the runtime, the difference from a run without it is what
 * the runtime's constructor left on the program's heap.
 * usage: heap_at_main */
#include <malloc.h>
#include <stdio.h>

int main(void) {
    struct mallinfo2 m = mallinfo2();
    printf("%zu %zu\n", m.uordblks, m.hblkhd);
    return 0;
}
