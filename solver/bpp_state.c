/* Heft: the saved state of the block principal pivoting solvers (bpp.h):
 * what one solve leaves the next, so that a restored island solves its next
 * problem exactly as the original would. The kept index sets and answer
 * start the next solve ([Lefebvre 2020] Alg. 2.1 line 1); bpp-pcg also
 * starts its Woodbury solves from the last coupling's. The RCM ordering and
 * the factors are rebuilt from the problem at the next solve, the same. */
#include "bpp.h"
#include "state_bytes.h"

size_t heft_bpp_save_state(const void *state, void *buffer, size_t capacity) {
    const bpp_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s == NULL)
        return 0;
    state_put_kept(&w, s->kept_n, s->kept_set, s->kept_lambda);
    const int cur = s->wood_cur;
    const int32_t wood_n = s->wood_n > 0 && s->wood[cur] != NULL ? s->wood_n : 0;
    state_put_int(&w, wood_n);
    if (wood_n > 0) {
        const int32_t k = s->wood_k[cur];
        state_put_int(&w, k);
        state_put(&w, s->wood_rows[cur], sizeof(int) * (size_t)k);
        state_put(&w, s->wood[cur], sizeof(double) * (size_t)(k + 1) * (size_t)wood_n);
    }
    return w.size;
}

int heft_bpp_restore_state(void *state, const void *buffer, size_t size) {
    bpp_state *s = state;
    if (s == NULL || (buffer == NULL && size > 0))
        return -1;
    heft_bpp_reset(s);
    s->factored_valid = 0;
    state_reader r = {buffer, size, 0, 0};
    const int kept =
        state_get_kept(&r, &s->kept_set, &s->kept_set_cap, &s->kept_lambda, &s->kept_lambda_cap);
    const int32_t wood_n = state_get_int(&r, 0, INT32_MAX / 16);
    if (kept < -1 || r.bad)
        goto refused;
    if (wood_n > 0) {
        const int32_t k = state_get_int(&r, 0, wood_n);
        const size_t kept_wood = (size_t)(k + 1) * (size_t)wood_n;
        if (r.bad || !HEFT_RESERVE(s->wood_rows[0], s->wood_rows_cap[0], (size_t)k + 1) ||
            !HEFT_RESERVE(s->wood[0], s->wood_cap[0], kept_wood) ||
            !state_get(&r, s->wood_rows[0], sizeof(int) * (size_t)k) ||
            !state_get(&r, s->wood[0], sizeof(double) * kept_wood))
            goto refused;
        /* the other buffer at this size too, as a solve leaves it */
        if (!HEFT_RESERVE(s->wood_rows[1], s->wood_rows_cap[1], (size_t)k + 1) ||
            !HEFT_RESERVE(s->wood[1], s->wood_cap[1], kept_wood))
            goto refused;
        s->wood_cur = 0;
        s->wood_k[0] = k;
    }
    if (r.at != size)
        goto refused;
    s->kept_n = kept;
    s->wood_n = wood_n;
    return 0;
refused:
    heft_bpp_reset(s);
    return -1;
}
