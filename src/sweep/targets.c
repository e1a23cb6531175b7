/* targets.c — T1: the smallest cluster that meets the targets (targets.h). */
#include <stdio.h>

#include "sweep/targets.h"

/* The budgets that stand for targets (docs/sweeps.md "Targets"). */
#define TARGET_BITS (PE_FAIL_TRAIN_DAYS | PE_FAIL_GPU_HOURS | PE_FAIL_COST)

/* A row that would be ok but for the targets: valid, within memory and every
 * other budget. */
static bool misses_only_targets(const pe_row *r)
{
    return r->result.status != PE_STATUS_INVALID && !(r->result.failed & ~(uint32_t)TARGET_BITS);
}

static double target_figure(const pe_result *r, pe_target k)
{
    return k == PE_TARGET_DAYS ? r->train_days : k == PE_TARGET_GPU_HOURS ? r->gpu_hours : r->cost;
}

static bool target_given(const pe_budgets *b, pe_target k, double *limit)
{
    *limit = k == PE_TARGET_DAYS ? b->train_days : k == PE_TARGET_GPU_HOURS ? b->gpu_hours : b->cost;
    return k == PE_TARGET_DAYS ? b->has_train_days : k == PE_TARGET_GPU_HOURS ? b->has_gpu_hours
                                                                               : b->has_cost;
}

static const char *row_text(const pe_row *r) { return r->name ? r->name : r->canon; }

/* No row is ok: the message at the first target no row reaches alone. */
static pe_status unmet(const pe_scenario *s, const pe_row *rows, size_t n, pe_error *err)
{
    static const char *const keys[PE_TARGET_COUNT] = {"days", "gpu_hours", "cost"};
    static const char *const units[PE_TARGET_COUNT] = {" days", " GPU-hours", ""};
    const pe_targets *t = &s->targets;
    const pe_row *fastest = NULL;
    for (int k = 0; k < PE_TARGET_COUNT; k++) {
        double limit;
        if (!target_given(&s->budgets, (pe_target)k, &limit))
            continue;
        const pe_row *low = NULL;
        for (size_t i = 0; i < n; i++)
            if (misses_only_targets(&rows[i]) &&
                (!low || target_figure(&rows[i].result, (pe_target)k) <
                             target_figure(&low->result, (pe_target)k)))
                low = &rows[i];
        if (!low)
            return pe_fail(err, PE_BAD_INPUT, s->file, t->line, t->col,
                           "targets: no design meets them: no plan fits memory, the rules and "
                           "the other budgets (see the run without targets:)");
        if (k == PE_TARGET_DAYS || !fastest)
            fastest = low;
        if (target_figure(&low->result, (pe_target)k) > limit)
            return pe_fail(err, PE_BAD_INPUT, s->file, t->key_line[k], t->key_col[k],
                           "targets.%s = %.6g: no design meets it; the best reached is %.6g%s "
                           "(%s on %lld GPUs)",
                           keys[k], limit, target_figure(&low->result, (pe_target)k), units[k],
                           row_text(low), (long long)low->result.gpus);
    }
    return pe_fail(err, PE_BAD_INPUT, s->file, t->line, t->col,
                   "targets: each is met by some design, none meets them all; the fastest, %s "
                   "on %lld GPUs, takes %.6g days, %.6g GPU-hours",
                   row_text(fastest), (long long)fastest->result.gpus, fastest->result.train_days,
                   fastest->result.gpu_hours);
}

pe_status targets_answer(const pe_scenario *s, const pe_row *rows, size_t n, const pe_row **best,
                         pe_error *err)
{
    *best = NULL;
    if (!s->targets.present)
        return PE_OK;
    for (size_t i = 0; i < n; i++) /* ranked: the first ok row of a size is its best */
        if (rows[i].result.status == PE_STATUS_OK &&
            (!*best || rows[i].result.gpus < (*best)->result.gpus))
            *best = &rows[i];
    return *best ? PE_OK : unmet(s, rows, n, err);
}
