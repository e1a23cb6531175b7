/* explain.h — every quantity of one plan as: equation id, the formula, the
 * numbers substituted, the result with its unit, and the source, so a
 * student can redo the arithmetic by hand and find where they differ.
 *
 * The numbers are the evaluator's own (evaluate_plan_detail), never a
 * second implementation: explain only formats them. */
#ifndef PLANEVAL_EXPLAIN_H
#define PLANEVAL_EXPLAIN_H

#include <stdio.h>

#include "model/evaluate.h"
#include "core/scenario.h"

enum {
    EXPLAIN_VALIDITY = 1u << 0,
    EXPLAIN_PARAMS = 1u << 1,
    EXPLAIN_MEMORY = 1u << 2 | EXPLAIN_PARAMS,
    EXPLAIN_TIME = 1u << 3,
    EXPLAIN_ALL = 0xffu
};

/* The whole trace of plan p (sections: EXPLAIN_* bits). */
void explain_plan(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, unsigned sections);

/* A short memory table: per-stage parts, total, budget, fits or not. */
void explain_memory_summary(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_result *r);

/* B1–B4 and k(stage) with the numbers substituted. */
void explain_bubble(FILE *out, pe_schedule schedule, double p, double m, double v, double t_f,
                    double t_b);

/* C1, C2, C4–C7 for one collective: op 0 all-reduce, 1 reduce-scatter,
 * 2 all-gather, 3 all-to-all, 4 p2p. */
void explain_collective(FILE *out, const pe_cluster *cluster, int op, double bytes, long long n,
                        long long k);

/* The sources the equation ids cite (docs/model.md §10), one per line. */
void explain_sources(FILE *out);

#endif
