/* Heft: adaptive regularization (adaptive_regularization.h; [Ho 2022] Alg. 9). */
#include "adaptive_regularization.h"

#include <limits.h>
#include <string.h>

#include "workspace.h"

int heft_adaptive_reg_begin(heft_adaptive_reg *r, int n, int initial_limit) {
    const size_t un = (size_t)n;
    if (!HEFT_RESERVE(r->pivots, r->pivots_cap, un) || !HEFT_RESERVE(r->limit, r->limit_cap, un) ||
        !HEFT_RESERVE(r->shift, r->shift_cap, un))
        return -1;
    r->n = n;
    for (int i = 0; i < n; ++i) {
        r->pivots[i] = 0;
        r->limit[i] = initial_limit > 0 ? initial_limit : 1;
        r->shift[i] = 0.0;
    }
    return 0;
}

int heft_adaptive_reg_update(heft_adaptive_reg *r, const heft_mlcp *p, const uint8_t *set,
                             const uint8_t *next, double epsilon) {
    int shifted = 0;
    for (int i = 0; i < r->n; ++i) {
        if (p->findex == NULL || p->findex[i] < 0)
            continue; /* §5.4: only friction rows are softened */
        if ((set[i] == 0) != (next[i] == 0))
            r->pivots[i]++;
        if (next[i] == 0 && r->pivots[i] > r->limit[i]) {      /* Alg. 9 lines 2-3 */
            r->shift[i] += epsilon * heft_mlcp_diagonal(p, i); /* line 4, relative */
            /* line 5, saturating: the limit may start anywhere up to INT_MAX */
            r->limit[i] = r->limit[i] > INT_MAX / 2 ? INT_MAX : 2 * r->limit[i];
            ++shifted;
        }
    }
    return shifted;
}

void heft_adaptive_reg_release(heft_adaptive_reg *r) {
    heft_free(r->pivots);
    heft_free(r->limit);
    heft_free(r->shift);
    memset(r, 0, sizeof *r);
}
