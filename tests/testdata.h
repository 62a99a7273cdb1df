/* Heft tests: the island problems exported by heft-run into tests/data. */
#ifndef HEFT_TESTS_TESTDATA_H
#define HEFT_TESTS_TESTDATA_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "heft/mlcp.h"

/* Reads tests/data/NAME (the test fails when it cannot). */
static inline heft_mlcp *read_testdata(const char *name) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s", HEFT_TESTDATA_DIR, name);
    heft_mlcp *p = NULL;
    cr_assert_eq(heft_mlcp_read_file(path, &p, NULL, err, sizeof err), 0, "%s", err);
    return p;
}

#endif
