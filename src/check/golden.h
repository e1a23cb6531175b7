/* golden.h — `check --golden`: a fresh report compared with a committed
 * one plan by plan. Rows are matched by their plan (the `plan` cell and the
 * canonical text built from the plan's columns; never `plan_index` or the
 * position), so a tie that swaps two plans is two rank moves, not two rows
 * of differing cells, and removing a plan is one removed plan, not every
 * later plan renumbered. Every difference is one line on `out`; a closing
 * line counts them. */
#ifndef PLANEVAL_GOLDEN_H
#define PLANEVAL_GOLDEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "model/evaluate.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

typedef struct {
    double rel_tol, abs_tol; /* numeric cells match within max(abs, rel·max(|a|,|b|)) */
    /* A plan moved when its place among the plans both reports hold changed
     * by more than rank_tol; plans of one status whose rank_by figures all
     * match within the cell tolerance are tied and share their places. */
    uint64_t rank_tol;
    uint64_t max_lines; /* difference lines printed, then one line counting the rest; 0: all */
    uint64_t top_k;     /* the --top K compared (0: every row), for the hint on a mismatch */
    FILE *out;          /* where the difference lines go */
} pe_golden_options;

/* The kinds of difference line, for the count of those not printed. */
typedef enum {
    PE_GOLDEN_CELL, PE_GOLDEN_MOVED, PE_GOLDEN_ADDED, PE_GOLDEN_REMOVED, PE_GOLDEN_COLUMN,
    PE_GOLDEN_KINDS
} pe_golden_kind;

typedef struct {
    unsigned long long cells;   /* differing cells of plans in both reports */
    unsigned long long plans;   /* plans with at least one differing cell */
    unsigned long long moved;   /* plans whose rank changed (beyond rank_tol, not a tie) */
    unsigned long long added, removed; /* plans only in the fresh / golden report */
    unsigned long long columns; /* columns only in one of the two headers, or reordered */
    unsigned long long not_printed[PE_GOLDEN_KINDS]; /* lines over max_lines, by kind */
    size_t golden_rows, fresh_rows;
} pe_golden_diff;

/* Compare the report at `fresh` with the one at `golden`; print each
 * difference and, when there is any, one summary line. */
pe_status golden_compare(const char *golden, const char *fresh, const pe_golden_options *opt,
                         pe_golden_diff *diff, pe_error *err);

/* True when the two reports differ in anything golden_compare counts. */
bool golden_differs(const pe_golden_diff *diff);

/* The report of a ranked run (its best top_k rows, 0: every row, as `run
 * --top K` writes them) written at golden (check --update-golden). */
pe_status golden_write_run(const char *golden, const pe_plan_space *space, const pe_eval_ctx *ctx,
                           const pe_run_result *rr, uint64_t top_k, int threads, pe_error *err);

/* That report (its best opt->top_k rows) written into a temporary
 * directory as NAME.csv and compared with the one at golden. */
pe_status golden_compare_run(const char *golden, const char *name, const pe_plan_space *space,
                             const pe_eval_ctx *ctx, const pe_run_result *rr, int threads,
                             const pe_golden_options *opt, pe_golden_diff *diff, pe_error *err);

/* The golden reports in dir — its *.csv files, in byte order of their
 * names — that none of names[0..n) writes (as NAME.csv): each a malloc'd
 * path in *stale (free each, then the array). A dir that does not exist
 * holds none. */
pe_status golden_stale(const char *dir, const char *const *names, size_t n, char ***stale,
                       size_t *count, pe_error *err);

#endif
