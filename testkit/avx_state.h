/* Which of the processor's register states are in use (XGETBV with
 * ECX = 1), for tests of the kernels written for AVX: a kernel that leaves
 * the upper halves of ymm0-15 in use makes every later SSE2 instruction of
 * the thread pay for them (docs/bpp.md "Solves in body space"). Header
 * only; x86-64 with gcc or clang, else avx_state_readable() is 0. */
#ifndef HEFT_TESTKIT_AVX_STATE_H
#define HEFT_TESTKIT_AVX_STATE_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

/* 1 when the processor has AVX and XGETBV can read the states in use */
static inline int avx_state_readable(void) {
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx") || !__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
        return 0;
    if (__get_cpuid_max(0, NULL) < 0xd)
        return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a >> 2) & 1u;
}

/* 1 when the upper halves of ymm0-15 are in use (state bit 2) */
static inline int avx_upper_halves_in_use(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    (void)hi;
    return (lo >> 2) & 1u;
}

/* Gives the upper halves back (vzeroupper), so that a test starts clean */
__attribute__((target("avx"))) static inline void avx_zero_upper_halves(void) {
    _mm256_zeroupper();
}
#else
static inline int avx_state_readable(void) {
    return 0;
}
static inline int avx_upper_halves_in_use(void) {
    return 0;
}
static inline void avx_zero_upper_halves(void) {}
#endif

#endif
