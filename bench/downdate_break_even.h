/* Heft: the downdate break-even measurement (bench.md item 5; [Lefebvre 2020]
 * §2.2.2 and Figure 2.4), for the benchmark programs.
 *
 * bpp-downdate and bpp-skyline get L_FF from a copy of L0 = chol(A) by one
 * rank-1 downdate per tight variable; bpp-skyline factors A_FF afresh instead
 * when the tight fraction passes options.skyline_refactor_fraction. This
 * measures both ways on one random SPD matrix and one random tight set, in
 * the storage and with the kernels the solvers use, so the threshold can be
 * read off a sweep of sizes and fractions on the machine at hand. */
#ifndef HEFT_BENCH_DOWNDATE_BREAK_EVEN_H
#define HEFT_BENCH_DOWNDATE_BREAK_EVEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct heft_downdate_timing {
    int m;                 /* size of A */
    int tight;             /* tight variables (round(fraction * m), at least 1) */
    int half_bandwidth;    /* of A; -1: dense storage */
    size_t stored;         /* doubles in one factor's storage */
    double downdate_ms;    /* median: L = L0 (the columns that change) + the downdates */
    double refactor_ms;    /* median: A_FF gathered or copied, then factored */
    double max_difference; /* max |L_downdated - L_fresh| / max |L_fresh| over F x F */
} heft_downdate_timing;

/* Times downdating against refactoring for an m x m SPD matrix (random,
 * diagonally dominant, entries within half_bandwidth of the diagonal) with
 * round(tight_fraction * m) tight variables chosen at random from seed.
 * half_bandwidth < 0 (or >= m - 1) measures the dense kernels (bpp-downdate's
 * Alg. 2.3 against bpp's factorization of the gathered A_FF); otherwise the
 * skyline kernels (bpp-skyline's Alg. 2.5 against its refactoring of A_FF in
 * skyline storage). Both are run repetitions times, interleaved, and the
 * medians kept. Returns 0, or -1 on bad arguments or allocation failure. */
int heft_bench_downdate_vs_refactor(int m, double tight_fraction, int half_bandwidth,
                                    int repetitions, uint64_t seed, heft_downdate_timing *out);

#ifdef __cplusplus
}
#endif

#endif
