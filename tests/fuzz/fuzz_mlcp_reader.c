/* libFuzzer target for the .mlcp reader (tests/fuzz/README.md).
 * Every input must give either a clean error naming a line, or a problem
 * that the writer writes and the reader reads back to the same text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *written(const heft_mlcp *p, const double *solution) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        abort();
    if (heft_mlcp_write(f, p, NULL, solution) != 0)
        abort(); /* the reader took it, so the writer must */
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    heft_mlcp *p = NULL;
    double *solution = NULL;
    char err[512];
    if (heft_mlcp_read_string(text, &p, &solution, err, sizeof err) != 0) {
        int line = 0;
        if (p != NULL || solution != NULL || sscanf(err, "line %d: ", &line) != 1 || line < 1)
            abort();
        free(text);
        return 0;
    }
    char *once = written(p, solution);
    heft_mlcp *q = NULL;
    double *again_solution = NULL;
    if (heft_mlcp_read_string(once, &q, &again_solution, err, sizeof err) != 0)
        abort();
    char *twice = written(q, again_solution);
    if (strcmp(once, twice) != 0)
        abort();
    free(once);
    free(twice);
    heft_mlcp_destroy(p);
    heft_mlcp_destroy(q);
    heft_free(solution);
    heft_free(again_solution);
    free(text);
    return 0;
}
