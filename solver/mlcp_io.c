/* Heft: reading and writing .mlcp files (mlcp-format.md).
 *
 * The reader is strict and bounded. Before anything is allocated, one pass
 * counts the file's tokens; every count the file declares (dim, the nonzeros
 * of a coo A, the bodies) is checked against the tokens that are left, so a
 * huge or negative count is an error, never an allocation. Every error names
 * the line of the token where the reader found it.
 *
 * The writer prints every double with 17 significant digits, which strtod
 * turns back into the same double, and refuses a problem the reader would
 * refuse, so what is written can always be read. */
#include "mlcp.h"
#include "row_math.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens -------------------------------------------------------------- */

typedef struct reader {
    const char *text; /* NUL-terminated */
    size_t pos;       /* where the next token search starts */
    int line;         /* line of pos */
    const char *tok;  /* the current token, NULL at the end of the text */
    size_t toklen;
    int tokline;
    int last_line;      /* line of the last token read, for "the file ends here" */
    size_t tokens_left; /* tokens after the current one */
    char *err;
    size_t errlen;
} reader;

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Finds the token at or after *pos (skipping white space and comments);
 * returns its length (0 at the end) and sets *start and *line. */
static size_t scan_token(const char *text, size_t *pos, int *line, size_t *start) {
    size_t i = *pos;
    for (;;) {
        while (is_space(text[i])) {
            if (text[i] == '\n')
                ++*line;
            ++i;
        }
        if (text[i] != '#')
            break;
        while (text[i] != '\0' && text[i] != '\n')
            ++i;
    }
    *start = i;
    while (text[i] != '\0' && !is_space(text[i]) && text[i] != '#')
        ++i;
    *pos = i;
    return i - *start;
}

static void advance(reader *r) {
    size_t start;
    if (r->tok != NULL)
        r->last_line = r->tokline;
    r->toklen = scan_token(r->text, &r->pos, &r->line, &start);
    r->tok = r->toklen > 0 ? r->text + start : NULL;
    r->tokline = r->line;
    if (r->tok != NULL && r->tokens_left > 0)
        r->tokens_left--;
}

static int token_is(const reader *r, const char *word) {
    return r->tok != NULL && r->toklen == strlen(word) && memcmp(r->tok, word, r->toklen) == 0;
}

/* The current token for a message: printable ASCII only, at most 40 bytes. */
static const char *token_text(const reader *r, char *buf, size_t cap) {
    if (r->tok == NULL)
        return "the end of the file";
    size_t k = 0;
    buf[k++] = '\'';
    for (size_t i = 0; i < r->toklen && k + 6 < cap; ++i) {
        if (i == 40) {
            memcpy(&buf[k], "...", 3);
            k += 3;
            break;
        }
        const unsigned char c = (unsigned char)r->tok[i];
        buf[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

/* Writes "line L: message" into the caller's buffer; returns -1. */
static int fail_at(reader *r, int line, const char *fmt, ...) {
    if (r->errlen == 0)
        return -1;
    int used = snprintf(r->err, r->errlen, "line %d: ", line);
    if (used < 0 || (size_t)used >= r->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + used, r->errlen - (size_t)used, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error at the current token (or at the last line when the file ended). */
static int fail(reader *r, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->tok == NULL)
        return fail_at(r, r->last_line, "%s (the file ends here)", msg);
    return fail_at(r, r->tokline, "%s", msg);
}

static int expect_word(reader *r, const char *word, const char *context) {
    char buf[64];
    if (!token_is(r, word))
        return fail(r, "expected '%s'%s, found %s", word, context, token_text(r, buf, sizeof buf));
    advance(r);
    return 0;
}

/* An integer token: an optional '-' and decimal digits, within [min, max]. */
static int read_integer(reader *r, const char *what, long long min, long long max, long long *out) {
    char buf[64];
    if (r->tok == NULL)
        return fail(r, "expected %s", what);
    const int negative = r->tok[0] == '-';
    size_t i = negative ? 1 : 0;
    if (i == r->toklen)
        return fail(r, "%s: %s is not an integer", what, token_text(r, buf, sizeof buf));
    unsigned long long magnitude = 0;
    int huge = 0;
    for (; i < r->toklen; ++i) {
        const char c = r->tok[i];
        if (c < '0' || c > '9')
            return fail(r, "%s: %s is not an integer", what, token_text(r, buf, sizeof buf));
        if (magnitude > (1ull << 59))
            huge = 1; /* keep reading: a letter further on is still "not an integer" */
        else
            magnitude = magnitude * 10 + (unsigned long long)(c - '0');
    }
    const long long value = negative ? -(long long)magnitude : (long long)magnitude;
    if (huge || value < min || value > max)
        return fail(r, "%s: %s is out of range (%lld to %lld)", what,
                    token_text(r, buf, sizeof buf), min, max);
    *out = value;
    advance(r);
    return 0;
}

static int read_int32(reader *r, const char *what, long long min, long long max, int32_t *out) {
    long long v;
    if (read_integer(r, what, min, max, &v) != 0)
        return -1;
    *out = (int32_t)v;
    return 0;
}

enum { NUMBER_FINITE = 0, NUMBER_MINUS_INF = 1, NUMBER_PLUS_INF = 2 };

/* A number token by strtod, the whole token, never NaN; infinities only
 * where allowed says so. Underflow to a subnormal is kept, overflow is not. */
static int read_number(reader *r, const char *what, int allowed, double *out) {
    char buf[64];
    if (r->tok == NULL)
        return fail(r, "expected %s", what);
    char *end;
    errno = 0;
    const double v = strtod(r->tok, &end);
    if (end != r->tok + r->toklen)
        return fail(r, "%s: %s is not a number", what, token_text(r, buf, sizeof buf));
    if (isnan(v))
        return fail(r, "%s: NaN is not allowed", what);
    if (isinf(v)) {
        const int infinity_written =
            memchr(r->tok, 'n', r->toklen) != NULL || memchr(r->tok, 'N', r->toklen) != NULL;
        if (!infinity_written)
            return fail(r, "%s: %s is out of the range of a double", what,
                        token_text(r, buf, sizeof buf));
        if (!(allowed & (v < 0 ? NUMBER_MINUS_INF : NUMBER_PLUS_INF)))
            return fail(r, "%s: %s is not allowed here (a finite number%s is needed)", what,
                        token_text(r, buf, sizeof buf),
                        allowed == NUMBER_MINUS_INF  ? " or -inf"
                        : allowed == NUMBER_PLUS_INF ? " or inf"
                                                     : "");
    }
    *out = v;
    advance(r);
    return 0;
}

/* A token that starts like a word rather than a number (inf and nan are
 * numbers to strtod, the reader judges them itself): the next section's
 * keyword when a section is short of numbers. */
static int looks_like_keyword(const reader *r) {
    if (r->tok == NULL)
        return 1;
    const char c = r->tok[0];
    if (!(c >= 'a' && c <= 'z'))
        return 0;
    return !(r->toklen >= 3 && (memcmp(r->tok, "inf", 3) == 0 || memcmp(r->tok, "nan", 3) == 0));
}

/* A section with fewer entries than it needs, told at the section's first
 * line (where the count is set) with the line of what came instead. */
static int short_section(reader *r, int section_line, const char *section, long long needed,
                         const char *unit, long long got) {
    char buf[64];
    if (r->tok == NULL)
        return fail_at(r, section_line, "'%s' needs %lld %s, the file ends after %lld", section,
                       needed, unit, got);
    return fail_at(r, section_line, "'%s' needs %lld %s, found %s on line %d after %lld", section,
                   needed, unit, token_text(r, buf, sizeof buf), r->tokline, got);
}

/* n numbers of one section, e.g. "b <N numbers>"; the keyword was just read. */
static int read_numbers(reader *r, const char *section, int n, int allowed, double *out,
                        int *lines) {
    char what[64];
    const int section_line = r->last_line;
    for (int i = 0; i < n; ++i) {
        if (looks_like_keyword(r))
            return short_section(r, section_line, section, n, "numbers", i);
        if (lines != NULL)
            lines[i] = r->tokline;
        snprintf(what, sizeof what, "%s of row %d", section, i);
        if (read_number(r, what, allowed, &out[i]) != 0)
            return -1;
    }
    return 0;
}

/* A count declared in the file (what, its value) may ask for at most the
 * tokens that are left. */
static int check_tokens(reader *r, int line, double needed, const char *what, long long value) {
    if (needed > (double)r->tokens_left + (r->tok != NULL ? 1.0 : 0.0))
        return fail_at(r, line, "%s %lld needs at least %.0f more tokens, the file has %zu", what,
                       value, needed, r->tokens_left + (r->tok != NULL ? 1 : 0));
    return 0;
}

/* ---- the structured form ------------------------------------------------- */

/* J_i M^-1 J_j^T (+ epsilon_i on the diagonal), computed here for the
 * consistency check of the file's A. */
static double structured_entry(const heft_mlcp *p, int i, int j) {
    return heft_rows_coupling(p, i, j) + (i == j ? heft_row_epsilon(p, i) : 0.0);
}

/* A token the reader already accepted as a small non-negative integer. */
static long small_integer(const char *t, size_t len) {
    long v = 0;
    for (size_t i = 0; i < len; ++i)
        v = v * 10 + (t[i] - '0');
    return v;
}

/* The line of the file that holds A_ij, found again by scanning the A
 * section from its first entry (only on the error path). An entry a coo
 * file leaves out (a zero) is charged to the line of 'A'. */
static int line_of_entry(const reader *r, size_t pos, int line, int a_line, int dense, int lower,
                         long long nnz, int n, int i, int j) {
    size_t start;
    if (dense) {
        const size_t k = (size_t)i * (size_t)n + (size_t)j;
        for (size_t t = 0; t <= k; ++t)
            scan_token(r->text, &pos, &line, &start);
        return line;
    }
    if (lower && j > i) {
        const int t = i;
        i = j;
        j = t;
    }
    for (long long e = 0; e < nnz; ++e) {
        size_t len = scan_token(r->text, &pos, &line, &start);
        const int at = line;
        const long row = small_integer(r->text + start, len);
        len = scan_token(r->text, &pos, &line, &start);
        const long column = small_integer(r->text + start, len);
        scan_token(r->text, &pos, &line, &start);
        if (row == i && column == j)
            return at;
    }
    return a_line;
}

/* ---- symmetry ------------------------------------------------------------ */

/* The format promises a symmetric A (mlcp-format.md), and the solvers differ
 * on one that is not: the sparse copies read one triangle, the error measure
 * all of A, and a pivoting loop can then chase an error it cannot reduce.
 * The worst pair (i > j) by |A_ij - A_ji| relative to the entries' natural
 * scale max(|A_ij|, |A_ji|, sqrt|A_ii A_jj|); 0 when A is symmetric. */
static double worst_asymmetry(const double *A, int n, int *wi, int *wj) {
    double worst = 0.0;
    *wi = *wj = -1;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) {
            const double a = A[(size_t)i * n + j], b = A[(size_t)j * n + i];
            if (a == b)
                continue;
            const double scale = fmax(fmax(fabs(a), fabs(b)),
                                      sqrt(fabs(A[(size_t)i * n + i] * A[(size_t)j * n + j])));
            const double rel = fabs(a - b) / scale;
            if (!(rel <= worst)) {
                worst = rel;
                *wi = i;
                *wj = j;
            }
        }
    return worst;
}

/* ---- the reader ---------------------------------------------------------- */

/* by heft_row_kind */
static const char *const kind_words[] = {"bilateral", "normal", "friction",
                                         "limit",     "motor",  "rolling"};
#define KIND_COUNT ((int)(sizeof kind_words / sizeof kind_words[0]))

enum {
    SECTION_NONE = 0,
    SECTION_LAMBDA0,
    SECTION_SOLUTION,
    SECTION_KIND,
    SECTION_BLOCK,
    SECTION_BODIES
};
static const char *const section_names[] = {"", "lambda0", "solution", "kind", "block", "bodies"};

typedef struct parse_state {
    heft_mlcp *p;
    double *solution;
    int *lines; /* 2 n: the line of each row's hi, then of its findex */
    int *hi_lines, *findex_lines;
    unsigned char *seen; /* coo entries already given, one bit each */
} parse_state;

static int read_dense_A(reader *r, heft_mlcp *p, int a_line) {
    const int n = p->n;
    char what[64];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (looks_like_keyword(r))
                return short_section(r, a_line, "A dense", (long long)n * n, "numbers",
                                     (long long)i * n + j);
            snprintf(what, sizeof what, "A[%d][%d]", i, j);
            if (read_number(r, what, NUMBER_FINITE, &p->A[(size_t)i * n + j]) != 0)
                return -1;
        }
    return 0;
}

static int read_coo_A(reader *r, parse_state *s, int lower, long long nnz, int a_line) {
    heft_mlcp *p = s->p;
    const int n = p->n;
    const size_t cells = (size_t)n * (size_t)n;
    s->seen = heft_alloc(cells / 8 + 1);
    if (s->seen == NULL)
        return fail(r, "out of memory");
    memset(s->seen, 0, cells / 8 + 1);
    for (long long k = 0; k < nnz; ++k) {
        if (looks_like_keyword(r))
            return short_section(r, a_line, lower ? "A coo-lower" : "A coo", nnz, "entries", k);
        const int line = r->tokline;
        long long i, j;
        double v;
        if (read_integer(r, "A entry row", 0, n - 1, &i) != 0 ||
            read_integer(r, "A entry column", 0, n - 1, &j) != 0 ||
            read_number(r, "A entry value", NUMBER_FINITE, &v) != 0)
            return -1;
        if (lower && j > i)
            return fail_at(r, line, "'A coo-lower' entry (%lld, %lld) is above the diagonal", i, j);
        const size_t cell = (size_t)i * (size_t)n + (size_t)j;
        if (s->seen[cell / 8] & (1u << (cell % 8)))
            return fail_at(r, line, "A entry (%lld, %lld) is given twice", i, j);
        s->seen[cell / 8] |= (unsigned char)(1u << (cell % 8));
        p->A[cell] = v;
        if (lower)
            p->A[(size_t)j * (size_t)n + (size_t)i] = v;
    }
    return 0;
}

/* findex: -1 or another row, which must not itself be a friction row; the
 * bounds: lo <= hi for a row with constant bounds, 0 <= mu < inf (in hi) for
 * a friction row. */
static int check_bounds(reader *r, const parse_state *s) {
    const heft_mlcp *p = s->p;
    for (int i = 0; i < p->n; ++i) {
        const int32_t f = p->findex[i];
        if (f == i)
            return fail_at(r, s->findex_lines[i], "findex of row %d names the row itself", i);
        if (f >= 0 && p->findex[f] >= 0)
            return fail_at(r, s->findex_lines[i],
                           "findex of row %d names row %d, itself a friction row", i, f);
        if (f >= 0 && (!(p->hi[i] >= 0.0) || isinf(p->hi[i])))
            return fail_at(r, s->hi_lines[i],
                           "row %d is a friction row: its hi (mu) must be finite and >= 0, "
                           "not %g",
                           i, p->hi[i]);
        if (f < 0 && p->lo[i] > p->hi[i])
            return fail_at(r, s->hi_lines[i], "row %d: lo %g is above hi %g", i, p->lo[i],
                           p->hi[i]);
    }
    return 0;
}

static int read_kinds(reader *r, heft_mlcp *p) {
    char buf[64];
    for (int i = 0; i < p->n; ++i) {
        int k = -1;
        for (int w = 0; w < KIND_COUNT; ++w)
            if (token_is(r, kind_words[w]))
                k = w;
        if (k < 0)
            return fail(r,
                        "kind of row %d: %s is not one of bilateral normal friction limit "
                        "motor rolling",
                        i, token_text(r, buf, sizeof buf));
        p->kind[i] = (uint8_t)k;
        advance(r);
    }
    return 0;
}

static int read_structured(reader *r, heft_mlcp *p, int declared_bodies) {
    char what[64];
    const int line = r->tokline;
    long long nb;
    if (read_integer(r, "bodies", 0, INT32_MAX, &nb) != 0)
        return -1;
    if (check_tokens(r, line, 7.0 * (double)nb, "bodies", nb) != 0)
        return -1;
    if (nb != declared_bodies)
        return fail_at(r, line, "bodies %lld: inconsistent with the count seen first", nb);
    for (int k = 0; k < (int)nb; ++k) {
        heft_mlcp_body *body = &p->bodies[k];
        snprintf(what, sizeof what, "inverse mass of body %d", k);
        const int body_line = r->tokline;
        if (read_number(r, what, NUMBER_FINITE, &body->inv_mass) != 0)
            return -1;
        if (body->inv_mass < 0.0)
            return fail_at(r, body_line, "body %d: negative inverse mass %g", k, body->inv_mass);
        for (int c = 0; c < 6; ++c) {
            snprintf(what, sizeof what, "inverse inertia of body %d", k);
            if (read_number(r, what, NUMBER_FINITE, &body->inv_inertia[c]) != 0)
                return -1;
        }
    }
    if (expect_word(r, "rows", " after the bodies") != 0)
        return -1;
    for (int i = 0; i < p->n; ++i) {
        heft_mlcp_row *row = &p->rows[i];
        snprintf(what, sizeof what, "body a of row %d", i);
        if (read_int32(r, what, -1, nb - 1, &row->a) != 0)
            return -1;
        snprintf(what, sizeof what, "body b of row %d", i);
        if (read_int32(r, what, -1, nb - 1, &row->b) != 0)
            return -1;
        snprintf(what, sizeof what, "Jacobian of row %d", i);
        for (int c = 0; c < 6; ++c)
            if (read_number(r, what, NUMBER_FINITE, &row->ja[c]) != 0)
                return -1;
        for (int c = 0; c < 6; ++c)
            if (read_number(r, what, NUMBER_FINITE, &row->jb[c]) != 0)
                return -1;
        snprintf(what, sizeof what, "epsilon of row %d", i);
        const int eps_line = r->tokline;
        if (read_number(r, what, NUMBER_FINITE, &p->epsilon[i]) != 0)
            return -1;
        if (p->epsilon[i] < 0.0)
            return fail_at(r, eps_line, "row %d: negative compliance %g", i, p->epsilon[i]);
    }
    return 0;
}

/* A == J M^-1 J^T + diag(epsilon), entry by entry, to 1e-9 relative to the
 * entry's natural scale sqrt(S_ii S_jj) (a bound on |S_ij| for a positive
 * semidefinite S) or |S_ij| when that is larger. */
static int check_structured_A(reader *r, const heft_mlcp *p, size_t a_pos, int a_pos_line,
                              int a_line, int dense, int lower, long long nnz) {
    const int n = p->n;
    double *diag = heft_alloc(sizeof(double) * (size_t)n);
    if (diag == NULL)
        return fail_at(r, a_line, "out of memory");
    for (int i = 0; i < n; ++i)
        diag[i] = structured_entry(p, i, i);
    int bad_i = -1, bad_j = -1;
    double bad_s = 0.0;
    for (int i = 0; i < n && bad_i < 0; ++i)
        for (int j = 0; j < n; ++j) {
            const double s = i == j ? diag[i] : structured_entry(p, i, j);
            const double a = p->A[(size_t)i * n + j];
            const double scale = fmax(fabs(s), sqrt(fabs(diag[i] * diag[j])));
            if (!(fabs(a - s) <= 1e-9 * scale)) {
                bad_i = i;
                bad_j = j;
                bad_s = s;
                break;
            }
        }
    heft_free(diag);
    if (bad_i < 0)
        return 0;
    const int line =
        line_of_entry(r, a_pos, a_pos_line, a_line, dense, lower, nnz, n, bad_i, bad_j);
    return fail_at(r, line,
                   "A[%d][%d] = %.17g, but the structured form gives %.17g "
                   "(J M^-1 J^T + diag(epsilon) must equal A to 1e-9 relative)",
                   bad_i, bad_j, p->A[(size_t)bad_i * n + bad_j], bad_s);
}

/* First pass: the number of tokens, and the count after the first 'bodies'
 * token (a hint to allocate the structured form at once; the second pass
 * checks it). */
static size_t count_tokens(const char *text, long long *bodies_hint, int *has_bodies) {
    size_t pos = 0, start, count = 0, len;
    int line = 1, after_bodies = 0;
    *has_bodies = 0;
    *bodies_hint = 0;
    while ((len = scan_token(text, &pos, &line, &start)) > 0) {
        ++count;
        if (after_bodies) {
            long long v = 0;
            size_t i = 0;
            for (; i < len && i < 12 && text[start + i] >= '0' && text[start + i] <= '9'; ++i)
                v = v * 10 + (text[start + i] - '0');
            *bodies_hint = i == len ? v : 0;
            after_bodies = 0;
        }
        if (!*has_bodies && len == 6 && memcmp(text + start, "bodies", 6) == 0) {
            *has_bodies = 1;
            after_bodies = 1;
        }
    }
    return count;
}

static int parse(reader *r, parse_state *s) {
    char buf[64];
    long long bodies_hint;
    int has_bodies;
    r->tokens_left = count_tokens(r->text, &bodies_hint, &has_bodies);
    advance(r);
    if (r->tok == NULL)
        return fail(r, "empty file: expected 'MLCP 1'");
    if (expect_word(r, "MLCP", " (the first word of an .mlcp file)") != 0)
        return -1;
    long long version;
    if (read_integer(r, "MLCP version", 0, INT32_MAX, &version) != 0)
        return -1;
    if (version != 1)
        return fail_at(r, r->last_line, "MLCP version %lld: this reader knows version 1", version);
    if (expect_word(r, "dim", "") != 0)
        return -1;
    const int dim_line = r->tokline;
    long long n_ll;
    if (read_integer(r, "dim", 1, HEFT_MLCP_FILE_MAX_DIM, &n_ll) != 0)
        return -1;
    const int n = (int)n_ll;
    /* b, lo, hi and findex hold 4 n numbers: this bounds n by the file's size
     * before anything of size n is allocated. */
    if (check_tokens(r, dim_line, 4.0 * n, "dim", n) != 0)
        return -1;

    if (expect_word(r, "A", "") != 0)
        return -1;
    const int a_line = r->tokline;
    int dense = 0, lower = 0;
    long long nnz = 0;
    if (token_is(r, "dense")) {
        dense = 1;
        advance(r);
        if (check_tokens(r, a_line, (double)n * n, "'A dense' with dim", n) != 0)
            return -1;
    } else if (token_is(r, "coo") || token_is(r, "coo-lower")) {
        lower = token_is(r, "coo-lower");
        advance(r);
        const long long most = lower ? (long long)n * (n + 1) / 2 : (long long)n * n;
        if (read_integer(r, lower ? "nonzeros of 'A coo-lower'" : "nonzeros of 'A coo'", 0, most,
                         &nnz) != 0)
            return -1;
        if (check_tokens(r, a_line, 3.0 * (double)nnz, lower ? "'A coo-lower'" : "'A coo'", nnz) !=
            0)
            return -1;
    } else {
        return fail(r, "A storage %s: expected 'dense', 'coo NNZ' or 'coo-lower NNZ'",
                    token_text(r, buf, sizeof buf));
    }
    /* where the entries start, to find an entry's line again for a message */
    const size_t a_pos = r->tok != NULL ? (size_t)(r->tok - r->text) : r->pos;
    const int a_pos_line = r->tok != NULL ? r->tokline : r->line;

    const int nbodies =
        has_bodies && bodies_hint <= (long long)r->tokens_left && bodies_hint <= INT32_MAX
            ? (int)bodies_hint
            : 0;
    const unsigned parts =
        HEFT_MLCP_DENSE | HEFT_MLCP_META | (has_bodies ? HEFT_MLCP_STRUCTURED : 0u);
    s->p = heft_mlcp_create(n, nbodies, parts);
    s->lines = heft_alloc(sizeof(int) * 2 * (size_t)n);
    if (s->p == NULL || s->lines == NULL)
        return fail_at(r, dim_line, "out of memory for dim %d", n);
    s->hi_lines = s->lines;
    s->findex_lines = s->lines + n;
    heft_mlcp *p = s->p;
    if (dense ? read_dense_A(r, p, a_line) : read_coo_A(r, s, lower, nnz, a_line))
        return -1;

    if (expect_word(r, "b", " after A") != 0 ||
        read_numbers(r, "b", n, NUMBER_FINITE, p->b, NULL) != 0)
        return -1;
    if (expect_word(r, "lo", " after b") != 0 ||
        read_numbers(r, "lo", n, NUMBER_MINUS_INF, p->lo, NULL) != 0)
        return -1;
    if (expect_word(r, "hi", " after lo") != 0 ||
        read_numbers(r, "hi", n, NUMBER_PLUS_INF, p->hi, s->hi_lines) != 0)
        return -1;
    if (expect_word(r, "findex", " after hi") != 0)
        return -1;
    const int findex_line = r->last_line;
    for (int i = 0; i < n; ++i) {
        char what[64];
        snprintf(what, sizeof what, "findex of row %d", i);
        if (looks_like_keyword(r))
            return short_section(r, findex_line, "findex", n, "integers", i);
        s->findex_lines[i] = r->tokline;
        if (read_int32(r, what, -1, n - 1, &p->findex[i]) != 0)
            return -1;
    }
    if (check_bounds(r, s) != 0)
        return -1;

    /* The optional sections, each at most once, in the documented order. */
    int last = SECTION_NONE, has_lambda0 = 0, has_kind = 0, has_block = 0, structured = 0;
    int section_line = 0, bodies_line = 0;
    while (r->tok != NULL) {
        int section = SECTION_NONE;
        for (int k = SECTION_LAMBDA0; k <= SECTION_BODIES; ++k)
            if (token_is(r, section_names[k]))
                section = k;
        if (section == SECTION_NONE)
            return fail(r,
                        "unknown keyword %s (expected lambda0, solution, kind, block or "
                        "bodies, or the end of the file)",
                        token_text(r, buf, sizeof buf));
        if (section == last)
            return fail(r, "section '%s' is given twice", section_names[section]);
        if (section < last)
            return fail(r, "section '%s' must come before '%s'", section_names[section],
                        section_names[last]);
        last = section;
        section_line = r->tokline;
        advance(r);
        switch (section) {
        case SECTION_LAMBDA0:
            has_lambda0 = 1;
            if (read_numbers(r, "lambda0", n, NUMBER_FINITE, p->lambda0, NULL) != 0)
                return -1;
            break;
        case SECTION_SOLUTION:
            s->solution = heft_alloc(sizeof(double) * (size_t)n);
            if (s->solution == NULL)
                return fail(r, "out of memory");
            if (read_numbers(r, "solution", n, NUMBER_FINITE, s->solution, NULL) != 0)
                return -1;
            break;
        case SECTION_KIND:
            has_kind = 1;
            if (read_kinds(r, p) != 0)
                return -1;
            break;
        case SECTION_BLOCK:
            has_block = 1;
            for (int i = 0; i < n; ++i) {
                if (looks_like_keyword(r))
                    return short_section(r, section_line, "block", n, "integers", i);
                if (read_int32(r, "block", INT32_MIN, INT32_MAX, &p->block[i]) != 0)
                    return -1;
            }
            break;
        default: /* SECTION_BODIES */
            structured = 1;
            bodies_line = section_line;
            if (read_structured(r, p, nbodies) != 0)
                return -1;
            break;
        }
    }
    if (!has_lambda0)
        p->lambda0 = NULL;
    if (!has_kind)
        p->kind = NULL;
    if (!has_block)
        p->block = NULL;
    if (has_bodies && !structured)
        return fail_at(r, r->last_line, "internal: 'bodies' seen but not read");
    if (structured) {
        if (!has_block)
            return fail_at(r, bodies_line,
                           "a file with the structured form (bodies, rows) needs a 'block' "
                           "section");
        if (check_structured_A(r, p, a_pos, a_pos_line, a_line, dense, lower, nnz) != 0)
            return -1;
    }
    /* after the structured form, whose check names a tampered entry more
     * precisely than this one */
    if (!lower) {
        int wi, wj;
        const double rel = worst_asymmetry(p->A, n, &wi, &wj);
        if (rel > HEFT_MLCP_SYMMETRY_TOLERANCE) {
            int line = line_of_entry(r, a_pos, a_pos_line, a_line, dense, 0, nnz, n, wi, wj);
            if (line == a_line && !dense)
                line = line_of_entry(r, a_pos, a_pos_line, a_line, dense, 0, nnz, n, wj, wi);
            return fail_at(r, line,
                           "A is not symmetric: A[%d][%d] = %.17g but A[%d][%d] = %.17g "
                           "(relative difference %.3g; the format allows %g)",
                           wi, wj, p->A[(size_t)wi * n + wj], wj, wi, p->A[(size_t)wj * n + wi],
                           rel, HEFT_MLCP_SYMMETRY_TOLERANCE);
        }
    }
    return 0;
}

static void free_parse_state(parse_state *s, int keep) {
    heft_free(s->lines);
    heft_free(s->seen);
    if (!keep) {
        heft_mlcp_destroy(s->p);
        heft_free(s->solution);
        s->p = NULL;
        s->solution = NULL;
    }
}

int heft_mlcp_read_string(const char *text, heft_mlcp **out, double **solution, char *err,
                          size_t errlen) {
    if (out != NULL)
        *out = NULL;
    if (solution != NULL)
        *solution = NULL;
    if (errlen > 0)
        err[0] = '\0';
    if (text == NULL || out == NULL) {
        if (errlen > 0)
            snprintf(err, errlen, "no text or no place for the problem");
        return -1;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.text = text;
    r.line = 1;
    r.last_line = 1;
    r.err = err;
    r.errlen = errlen;
    parse_state s;
    memset(&s, 0, sizeof s);
    const int rc = parse(&r, &s);
    free_parse_state(&s, rc == 0);
    if (rc != 0)
        return -1;
    *out = s.p;
    if (solution != NULL)
        *solution = s.solution;
    else
        heft_free(s.solution);
    return 0;
}

int heft_mlcp_read_file(const char *path, heft_mlcp **out, double **solution, char *err,
                        size_t errlen) {
    if (out != NULL)
        *out = NULL;
    if (solution != NULL)
        *solution = NULL;
    if (errlen > 0)
        err[0] = '\0';
    if (path == NULL) {
        if (errlen > 0)
            snprintf(err, errlen, "no file name");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errlen > 0)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0, cap = 1 << 16;
    char *text = heft_alloc(cap);
    int ok = text != NULL;
    while (ok) {
        if (len + 1 >= cap) {
            char *bigger = cap < SIZE_MAX / 2 ? heft_realloc(text, cap * 2) : NULL;
            ok = bigger != NULL;
            if (!ok)
                break;
            text = bigger;
            cap *= 2;
        }
        errno = 0;
        const size_t got = fread(text + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    const int read_error = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
    fclose(f);
    if (!ok || read_error) {
        if (errlen > 0)
            snprintf(err, errlen, "%s: cannot read: %s", path,
                     !ok ? "out of memory" : strerror(read_error));
        heft_free(text);
        return -1;
    }
    text[len] = '\0';
    const char *nul = memchr(text, '\0', len);
    int rc;
    char msg[512];
    if (nul != NULL) {
        int line = 1;
        for (const char *c = text; c < nul; ++c)
            line += *c == '\n';
        snprintf(msg, sizeof msg, "line %d: a NUL byte (not a text file?)", line);
        rc = -1;
    } else {
        rc = heft_mlcp_read_string(text, out, solution, msg, sizeof msg);
    }
    heft_free(text);
    if (rc != 0 && errlen > 0)
        snprintf(err, errlen, "%s: %s", path, msg);
    return rc;
}

/* ---- the writer ---------------------------------------------------------- */

/* Everything the reader checks, so that what is written can be read. */
static int writable(const heft_mlcp *p, const double *A, const double *lambda0,
                    const double *solution) {
    const int n = p->n;
    if (n < 1 || n > HEFT_MLCP_FILE_MAX_DIM || p->b == NULL || p->lo == NULL || p->hi == NULL)
        return 0;
    const int structured =
        p->rows != NULL && p->nbodies >= 0 && (p->nbodies == 0 || p->bodies != NULL);
    if (A == NULL && !structured)
        return 0;
    if (A != NULL && !heft_all_finite(A, (size_t)n * (size_t)n))
        return 0;
    int wi, wj;
    if (A != NULL && worst_asymmetry(A, n, &wi, &wj) > HEFT_MLCP_SYMMETRY_TOLERANCE)
        return 0;
    if (!heft_all_finite(p->b, (size_t)n))
        return 0;
    if ((lambda0 != NULL && !heft_all_finite(lambda0, (size_t)n)) ||
        (solution != NULL && !heft_all_finite(solution, (size_t)n)))
        return 0;
    for (int i = 0; i < n; ++i) {
        const int32_t f = p->findex != NULL ? p->findex[i] : -1;
        if (f < -1 || f >= n || f == i || (f >= 0 && p->findex[f] >= 0))
            return 0;
        if (isnan(p->lo[i]) || isnan(p->hi[i]))
            return 0;
        if (f >= 0 && !(p->hi[i] >= 0.0 && isfinite(p->hi[i])))
            return 0;
        if (f < 0 && (p->lo[i] > p->hi[i] || p->lo[i] == INFINITY || p->hi[i] == -INFINITY))
            return 0;
        if (p->kind != NULL && p->kind[i] >= KIND_COUNT)
            return 0;
    }
    if (structured) {
        for (int k = 0; k < p->nbodies; ++k)
            if (!isfinite(p->bodies[k].inv_mass) || !heft_all_finite(p->bodies[k].inv_inertia, 6) ||
                p->bodies[k].inv_mass < 0.0)
                return 0;
        for (int i = 0; i < n; ++i) {
            const heft_mlcp_row *row = &p->rows[i];
            if (row->a < -1 || row->a >= p->nbodies || row->b < -1 || row->b >= p->nbodies)
                return 0;
            if (!heft_all_finite(row->ja, 6) || !heft_all_finite(row->jb, 6))
                return 0;
            const double eps = p->epsilon != NULL ? p->epsilon[i] : 0.0;
            if (!isfinite(eps) || eps < 0.0)
                return 0;
        }
    }
    return 1;
}

static void put_number(FILE *f, double x) {
    if (x == INFINITY)
        fputs("inf", f);
    else if (x == -INFINITY)
        fputs("-inf", f);
    else
        fprintf(f, "%.17g", x);
}

static void put_numbers(FILE *f, const char *keyword, const double *x, int n) {
    fputs(keyword, f);
    for (int i = 0; i < n; ++i) {
        fputc(' ', f);
        put_number(f, x[i]);
    }
    fputc('\n', f);
}

/* Dense unless A is symmetric and under a quarter of its lower triangle is
 * nonzero (the islands of a big scene), then coo-lower; a non-symmetric
 * sparse A is written as coo with both triangles. */
static void put_matrix(FILE *f, const double *A, int n) {
    size_t nz_lower = 0, nz = 0;
    int symmetric = 1;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double a = A[(size_t)i * n + j];
            if (a != 0.0) {
                nz++;
                nz_lower += j <= i;
            }
            if (j < i && memcmp(&a, &A[(size_t)j * n + i], sizeof a) != 0)
                symmetric = 0;
        }
    const size_t triangle = (size_t)n * (size_t)(n + 1) / 2;
    if (n > 32 && nz_lower * 4 < triangle) {
        fprintf(f, "A %s %zu\n", symmetric ? "coo-lower" : "coo", symmetric ? nz_lower : nz);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < (symmetric ? i + 1 : n); ++j) {
                const double a = A[(size_t)i * n + j];
                if (a != 0.0) {
                    fprintf(f, "%d %d ", i, j);
                    put_number(f, a);
                    fputc('\n', f);
                }
            }
        return;
    }
    fputs("A dense\n", f);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (j > 0)
                fputc(' ', f);
            put_number(f, A[(size_t)i * n + j]);
        }
        fputc('\n', f);
    }
}

int heft_mlcp_write(FILE *f, const heft_mlcp *p, const double *lambda0, const double *solution) {
    if (f == NULL || p == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (lambda0 == NULL)
        lambda0 = p->lambda0;
    const int n = p->n;
    const int structured = p->rows != NULL;
    if (!writable(p, p->A, lambda0, solution)) {
        errno = EINVAL;
        return -1;
    }
    const double *A = p->A;
    double *assembled = NULL;
    if (A == NULL) {
        assembled = heft_alloc(sizeof(double) * (size_t)n * (size_t)n);
        if (assembled == NULL) {
            errno = ENOMEM;
            return -1;
        }
        heft_mlcp_assemble_dense(p, assembled);
        if (!heft_all_finite(assembled, (size_t)n * (size_t)n)) {
            heft_free(assembled);
            errno = EINVAL;
            return -1;
        }
        A = assembled;
    }

    fprintf(f, "MLCP 1\ndim %d\n", n);
    put_matrix(f, A, n);
    heft_free(assembled);
    put_numbers(f, "b", p->b, n);
    fputs("lo", f);
    for (int i = 0; i < n; ++i) {
        const int friction = p->findex != NULL && p->findex[i] >= 0;
        fputc(' ', f);
        put_number(f, friction ? -p->hi[i] : p->lo[i]);
    }
    fputc('\n', f);
    put_numbers(f, "hi", p->hi, n);
    fputs("findex", f);
    for (int i = 0; i < n; ++i)
        fprintf(f, " %d", p->findex != NULL ? (int)p->findex[i] : -1);
    fputc('\n', f);
    if (lambda0 != NULL)
        put_numbers(f, "lambda0", lambda0, n);
    if (solution != NULL)
        put_numbers(f, "solution", solution, n);
    if (p->kind != NULL) {
        fputs("kind", f);
        for (int i = 0; i < n; ++i)
            fprintf(f, " %s", kind_words[p->kind[i]]);
        fputc('\n', f);
    }
    if (p->block != NULL || structured) {
        fputs("block", f);
        for (int i = 0; i < n; ++i)
            fprintf(f, " %d", p->block != NULL ? (int)p->block[i] : i);
        fputc('\n', f);
    }
    if (structured) {
        fprintf(f, "bodies %d\n", p->nbodies);
        for (int k = 0; k < p->nbodies; ++k) {
            put_number(f, p->bodies[k].inv_mass);
            for (int c = 0; c < 6; ++c) {
                fputc(' ', f);
                put_number(f, p->bodies[k].inv_inertia[c]);
            }
            fputc('\n', f);
        }
        fputs("rows\n", f);
        for (int i = 0; i < n; ++i) {
            const heft_mlcp_row *row = &p->rows[i];
            fprintf(f, "%d %d", (int)row->a, (int)row->b);
            for (int c = 0; c < 6; ++c) {
                fputc(' ', f);
                put_number(f, row->ja[c]);
            }
            for (int c = 0; c < 6; ++c) {
                fputc(' ', f);
                put_number(f, row->jb[c]);
            }
            fputc(' ', f);
            put_number(f, p->epsilon != NULL ? p->epsilon[i] : 0.0);
            fputc('\n', f);
        }
    }
    if (ferror(f)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

int heft_mlcp_write_file(const char *path, const heft_mlcp *p, const double *lambda0,
                         const double *solution) {
    if (path == NULL) {
        errno = EINVAL;
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    int rc = heft_mlcp_write(f, p, lambda0, solution);
    const int saved = errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -1;
    else
        errno = saved;
    if (rc != 0) {
        const int why = errno;
        remove(path);
        errno = why;
    }
    return rc;
}
