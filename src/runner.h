/* runner.h — evaluate every plan of a scenario and rank them.
 *
 * Plans are taken by index from a pe_plan_space and split into contiguous
 * blocks over a pthreads pool; each thread keeps its own rows (all of them,
 * or a bounded heap of the best K), so the hot path takes no lock. The
 * merged rows are sorted by rank_compare, a total order, so the result is
 * the same for any number of threads. */
#ifndef PLANEVAL_RUNNER_H
#define PLANEVAL_RUNNER_H

#include <stdint.h>

#include "error.h"
#include "evaluate.h"
#include "plans.h"
#include "rank.h"

typedef struct {
    int threads;          /* ≥ 1 */
    uint64_t top_k;       /* 0: keep every row */
} pe_run_options;

typedef struct {
    uint64_t total;                   /* indices visited: plans + skipped */
    uint64_t evaluated;               /* plans */
    uint64_t skipped[PE_SKIP_COUNT];  /* by reason ([0] unused) */
    uint64_t by_status[4];            /* pe_plan_status */
    uint64_t by_rule[8];              /* invalid plans breaking V1..V8 */
    pe_row *rows;                     /* ranked; owned */
    size_t row_count;
    double wall_s;
} pe_run_result;

pe_status runner_run(const pe_plan_space *space, const pe_eval_ctx *ctx,
                     const pe_run_options *opt, pe_run_result *out, pe_error *err);
void runner_free(pe_run_result *r);

/* Write the ranked rows as a report at path (atomically, report.h). */
pe_status runner_write_report(const char *path, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr, pe_error *err);

#endif
