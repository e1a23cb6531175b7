/* expect.h — a scenario's `expect:` assertions (docs/scenarios.md
 * "expect:") checked against its ranked run: each assertion's cell as the
 * report writes it, compared within the assertion's tolerance. A failed
 * assertion is one "FILE:LINE:COL: scenario: plan: ..." line on the sink's
 * stream; every assertion is also handed to the sink's observers, if any
 * (check --table collects the numeric ones, --format every outcome). */
#ifndef PLANEVAL_EXPECT_H
#define PLANEVAL_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/scenario.h"
#include "model/evaluate.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

typedef struct {
    unsigned long long passed, failed;
} pe_check_tally;

/* One assertion's outcome (check --format junit|json records each). */
typedef struct {
    const char *scenario, *file;
    int line, col;
    const char *plan;    /* as the assertion names it */
    const char *column;  /* "best_plan" for a best_plan assertion */
    bool ok;
    const char *message; /* the line of a failed assertion, no newline; "" when ok */
} pe_expect_outcome;

typedef struct {
    FILE *out; /* where the lines of failed assertions go; NULL: nowhere */
    /* Each assertion of a plan and the report's cell for it ("" when the
     * plan or the figure is missing); NULL: none. */
    void (*seen)(void *user, const char *scenario, const char *plan, const pe_expect_check *c,
                 const char *cell);
    /* Every assertion's outcome; NULL: none. */
    void (*outcome)(void *user, const pe_expect_outcome *o);
    /* Before `seen`, for an assertion whose plan was evaluated: the plan's
     * step_time_lo_s and step_time_hi_s cells (S6; "" in textbook mode);
     * NULL: none. */
    void (*interval)(void *user, const char *lo_cell, const char *hi_cell);
    /* Likewise the plan's mem_peak_gib, mem_peak_lo_gib and mem_peak_hi_gib
     * cells (M23; the interval cells "" in textbook mode); NULL: none. */
    void (*mem_interval)(void *user, const char *peak_cell, const char *lo_cell,
                         const char *hi_cell);
    void *user;
} pe_expect_sink;

/* Check every assertion of s against rr (the ranked rows of space),
 * counting into t. */
void expect_check(const pe_scenario *s, const pe_plan_space *space, const pe_eval_ctx *ctx,
                  const pe_run_result *rr, const pe_expect_sink *sink, pe_check_tally *t);

/* Whether a report cell meets one assertion; if not, why (into why). */
bool expect_cell_matches(const pe_expect_check *c, const char *cell, char *why, size_t size);

#endif
