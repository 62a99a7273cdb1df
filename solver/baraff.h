/* Heft: the "baraff" solver's private hooks, for tests and benchmarks. */
#ifndef HEFT_BARAFF_H
#define HEFT_BARAFF_H

typedef struct heft_baraff_info {
    int primary_rows;   /* rows in the tree-structured KKT system */
    int auxiliary_rows; /* loop closures, limits, contacts, motors (k) */
    int loop_closures;  /* equality blocks left out of the spanning forest */
    int nodes;          /* body and constraint nodes of the KKT graph */
    int trees;          /* components of the forest */
    double flops;       /* multiply-adds of the last solve: factor, sparse solves, k x k matrix */
    int symbolic_count; /* symbolic phases run by this state */
} heft_baraff_info;

heft_baraff_info heft_baraff_get_info(const void *state);

/* Marks a baraff state as the last stage of a pivoting solver
 * (heft_bpp_eliminated): an unconverged solve of it ends there, without
 * handing the whole problem back to bpp. */
void heft_baraff_set_nested(void *state);

#endif
