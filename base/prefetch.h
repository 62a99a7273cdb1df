/* A hint to fetch memory ahead of its use, where the step reads records in
 * an order the processor cannot guess (an island's rows in the world's
 * buffer, a contact's bodies and shapes). Private to the library. */
#ifndef HEFT_PREFETCH_H
#define HEFT_PREFETCH_H

/* the cache lines of 64 bytes from p on, read soon; nothing where the
 * compiler has no such hint */
static inline void prefetch_lines(const void *p, int lines) {
#if defined(__GNUC__) || defined(__clang__)
    for (int k = 0; k < lines; ++k)
        __builtin_prefetch((const char *)p + 64 * k, 0, 3);
#else
    (void)p;
    (void)lines;
#endif
}

#endif
