/* runner.h — evaluate every plan of a scenario (or of one shard of it) and
 * rank them.
 *
 * The index range is cut into chunks that worker threads take in order
 * from one atomic counter; each thread keeps its own rows (all of them, or
 * a bounded heap of the best K), so the hot path takes no lock. The merged
 * rows are sorted by rank_compare, a total order, so the result is the same
 * for any number of threads. A stop request (a signal) is honoured between
 * chunks: every chunk handed out is finished, so what is done is always the
 * prefix [first, next) — a checkpoint is that position plus the kept rows.
 * The ranking of a full report honours it too (interrupted, next == last,
 * no rows: resuming re-evaluates the rows without counting them again).
 * Progress on stderr reads the shared counters only: when a line is
 * written never changes what is evaluated, kept or ranked. */
#ifndef PLANEVAL_RUNNER_H
#define PLANEVAL_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "model/evaluate.h"
#include "sweep/plans.h"
#include "sweep/rank.h"

#define PE_RUN_CHUNK 65536u /* indices a thread takes at a time */

/* What a run has counted; a checkpoint carries it across a restart. */
typedef struct {
    uint64_t evaluated;              /* plans */
    uint64_t skipped[PE_SKIP_COUNT]; /* by reason ([0] unused) */
    uint64_t by_status[4];           /* pe_plan_status */
    uint64_t by_rule[PE_RULE_COUNT]; /* invalid plans breaking V1..V15 */
} pe_run_counts;

typedef struct {
    int threads;    /* ≥ 1 */
    uint64_t top_k; /* 0: keep every row */
    unsigned status_mask; /* rows kept: bit 1 << pe_plan_status each; 0: every status */
    uint64_t first, last; /* index range [first, last): the shard; last 0 = all */
    volatile sig_atomic_t *stop; /* non-zero: finish the chunks in hand and stop */
    bool progress;  /* plans done, plans/s, ETA on stderr a few times a second */
    /* off a terminal: one plain line (no carriage return, no escape code)
     * every this many seconds, naming progress_label; 0: none */
    double progress_every_s;
    const char *progress_label;
    /* resume: [first, resume_next) is done; its counts and (top-K) kept rows */
    uint64_t resume_next;
    const pe_run_counts *resume_counts;
    const uint64_t *resume_rows; /* indices of the kept rows (top-K mode) */
    size_t resume_row_count;
    const char *resume_path; /* the checkpoint, for a message on a row it should not hold */
} pe_run_options;

typedef struct {
    uint64_t first, last; /* the range asked for */
    uint64_t next;        /* [first, next) is done */
    bool interrupted;     /* stopped before the rows were ranked */
    pe_run_counts counts;   /* everything, including what a resumed run had counted */
    uint64_t evaluated_here; /* plans this process evaluated (for plans/s) */
    pe_row *rows; /* ranked; owned */
    size_t row_count;
    double wall_s;
} pe_run_result;

/* [first, last) of shard i of n over total indices: contiguous, sizes
 * differing by at most one. */
void runner_shard_range(uint64_t total, uint64_t i, uint64_t n, uint64_t *first, uint64_t *last);

/* The plans among plan indices [first, last): the combinations that are
 * not skipped (whole skipped sub-trees are stepped over at once). */
uint64_t runner_count_plans(const pe_plan_space *space, uint64_t first, uint64_t last);

pe_status runner_run(const pe_plan_space *space, const pe_eval_ctx *ctx,
                     const pe_run_options *opt, pe_run_result *out, pe_error *err);
void runner_free(pe_run_result *r);

#endif
