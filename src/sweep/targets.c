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

/* The rows of one type of sweep.cluster (type < 0: every row). */
typedef struct {
    const pe_plan_space *space;
    int64_t type;
} row_filter;

static bool of_type(const row_filter *f, const pe_row *r)
{
    return f->type < 0 || plans_design_slot(f->space, r->index, PE_AXIS_CLUSTER) == (uint64_t)f->type;
}

/* The lowest figure k among the rows of f that miss only targets, or NULL. */
static const pe_row *lowest(const row_filter *f, const pe_row *rows, size_t n, pe_target k)
{
    const pe_row *low = NULL;
    for (size_t i = 0; i < n; i++)
        if (of_type(f, &rows[i]) && misses_only_targets(&rows[i]) &&
            (!low || target_figure(&rows[i].result, k) < target_figure(&low->result, k)))
            low = &rows[i];
    return low;
}

/* No row of f is ok: the message at the first target no row reaches alone. */
static pe_status unmet(const pe_scenario *s, const row_filter *f, const pe_row *rows, size_t n,
                       pe_error *err)
{
    static const char *const keys[PE_TARGET_COUNT] = {"days", "gpu_hours", "cost"};
    static const char *const units[PE_TARGET_COUNT] = {" days", " GPU-hours", ""};
    const pe_targets *t = &s->targets;
    const pe_row *fastest = NULL;
    for (int k = 0; k < PE_TARGET_COUNT; k++) {
        double limit;
        if (!target_given(&s->budgets, (pe_target)k, &limit))
            continue;
        const pe_row *low = lowest(f, rows, n, (pe_target)k);
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

/* Every type missed: one message at the first type's place, each type's
 * reason after its name. */
static pe_status none_met(const pe_scenario *s, const pe_target_answer *per_type, uint64_t types,
                          pe_error *err)
{
    if (types == 1)
        return PE_BAD_INPUT; /* err holds the one type's message */
    char msg[PE_MSG_MAX];
    size_t o = (size_t)snprintf(msg, sizeof msg, "targets: no type of sweep.cluster meets them:");
    for (uint64_t k = 0; k < types && o < sizeof msg; k++)
        o += (size_t)snprintf(msg + o, sizeof msg - o, "%s %s: %s", k ? ";" : "",
                              s->sweep.clusters[k].preset, per_type[k].unmet);
    return pe_fail(err, PE_BAD_INPUT, s->file, s->targets.line, s->targets.col, "%s", msg);
}

pe_status targets_answer(const pe_plan_space *space, const pe_row *rows, size_t n,
                         pe_target_answer *per_type, pe_error *err)
{
    const pe_scenario *s = space->scenario;
    const uint64_t types = space->slots[PE_AXIS_CLUSTER] ? space->slots[PE_AXIS_CLUSTER] : 1;
    for (uint64_t k = 0; k < types; k++)
        per_type[k].best = NULL, per_type[k].unmet[0] = '\0';
    if (!s->targets.present)
        return PE_OK;
    for (size_t i = 0; i < n; i++) { /* ranked: the first ok row of a size is its best */
        const uint64_t k = types > 1 ? plans_design_slot(space, rows[i].index, PE_AXIS_CLUSTER) : 0;
        if (rows[i].result.status == PE_STATUS_OK &&
            (!per_type[k].best || rows[i].result.gpus < per_type[k].best->result.gpus))
            per_type[k].best = &rows[i];
    }
    bool any = false;
    for (uint64_t k = 0; k < types; k++) {
        any = any || per_type[k].best;
        if (per_type[k].best)
            continue;
        const row_filter f = {space, types > 1 ? (int64_t)k : -1};
        pe_error one;
        unmet(s, &f, rows, n, types > 1 ? &one : err);
        snprintf(per_type[k].unmet, sizeof per_type[k].unmet, "%s", (types > 1 ? &one : err)->msg);
    }
    return any ? PE_OK : none_met(s, per_type, types, err);
}
