/* grade_key.c — the key's reference answers (grade.h): a column of a
 * plan is the report's figure (docs/scenarios.md "The report"), fits is docs/model.md
 * M6, comm_bound is S3, the minimum intervention and the best plan follow
 * §9; the ranked rows come from the runner. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "grade/grade_internal.h"

/* The key's plan reference: an explicit plan's name or canonical text (as
 * `expect` resolves it), else any canonical text with the scenario's overlap. */
static bool key_plan(const pe_scenario *s, const char *ref, pe_plan *out)
{
    for (size_t i = 0; i < s->plan_count; i++)
        if (strcmp(s->plans[i].name, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    char canon[PE_CANON_MAX];
    for (size_t i = 0; i < s->plan_count; i++) {
        plans_canonical(&s->plans[i], canon, sizeof canon);
        if (strcmp(canon, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    }
    return grade_parse_canonical(ref, &s->overlap, out);
}

__attribute__((format(printf, 4, 5))) static pe_status
key_fail(pe_error *err, const pe_scenario *s, const pe_question *q, const char *fmt, ...)
{
    char msg[PE_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pe_fail(err, PE_BAD_INPUT, s->file, q->line, q->col, "question %s: %.900s", q->id,
                   msg);
}

/* column, fits, comm_bound: the figure of the plan asked about. */
static pe_status key_plan_answer(grader *g, const pe_question *q, key_answer *k, pe_error *err)
{
    const pe_scenario *s = g->s;
    char reason[TEXT_MAX];
    if (!key_plan(s, q->plan, &k->plan))
        return key_fail(err, s, q, "no plan named '%s'", q->plan);
    evaluate_plan(&g->ctx, &k->plan, &k->result);
    grade_show_plan(&k->plan, k->plan.name, k->shown, sizeof k->shown);
    if (k->result.status == PE_STATUS_INVALID) {
        evaluate_format_reason(&g->ctx, &k->plan, &k->result, reason, sizeof reason);
        return key_fail(err, s, q, "plan '%s' is invalid (%s), so it has no answer", q->plan,
                        reason);
    }
    if (q->ask == PE_ASK_COLUMN) {
        int col = columns_find(q->column);
        if (col < 0 || !grade_column_value(&k->result, &k->plan, (pe_column)col, &k->value))
            return key_fail(err, s, q, "%s does not apply to plan '%s'", q->column, q->plan);
        grade_fmt_num(k->value, k->expected, sizeof k->expected);
    } else {
        bool v = q->ask == PE_ASK_FITS ? fits_of(&k->result) : comm_bound_of(&k->result);
        snprintf(k->expected, sizeof k->expected, "%s", v ? "true" : "false");
    }
    return PE_OK;
}

/* Row w of the ranked rows as the key's plan. */
static void key_take_row(key_answer *k, const pe_plan_space *space, const pe_row *w)
{
    plans_at(space, w->index, &k->plan);
    k->result = w->result;
    grade_show_plan(&k->plan, w->name, k->shown, sizeof k->shown);
}

/* docs/model.md §9: the fewest knobs moved among plans that fit (M6); the
 * fastest of those, then canonical text, shown. */
static pe_status key_min_intervention(grader *g, const pe_question *q, key_answer *k,
                                      const pe_plan_space *space, const pe_run_result *rr,
                                      pe_error *err)
{
    const pe_row *best = NULL;
    for (size_t r = 0; r < rr->row_count; r++) {
        const pe_row *w = &rr->rows[r];
        if (!fits_of(&w->result))
            continue;
        if (!best || w->result.interventions < best->result.interventions ||
            (w->result.interventions == best->result.interventions &&
             (w->result.step_time_s < best->result.step_time_s ||
              (w->result.step_time_s == best->result.step_time_s &&
               strcmp(w->canon, best->canon) < 0))))
            best = w;
    }
    if (!best)
        return key_fail(err, g->s, q, "no plan of %s fits in memory, so %s has no answer",
                        g->s->name, "min_intervention");
    key_take_row(k, space, best);
    k->interventions = best->result.interventions;
    snprintf(k->expected, sizeof k->expected, "%d interventions, e.g. %s", k->interventions,
             k->shown);
    return PE_OK;
}

/* Rank 1 of the report, when it meets the budgets. */
static pe_status key_best_plan(grader *g, const pe_question *q, key_answer *k,
                               const pe_plan_space *space, const pe_run_result *rr, pe_error *err)
{
    const pe_row *best = rr->row_count ? &rr->rows[0] : NULL;
    if (!best || best->result.status != PE_STATUS_OK)
        return key_fail(err, g->s, q, "no plan of %s meets the budgets, so %s has no answer",
                        g->s->name, "best_plan");
    key_take_row(k, space, best);
    k->key = best->key;
    snprintf(k->expected, sizeof k->expected, "%s", k->shown);
    return PE_OK;
}

/* The fastest plan that meets the budgets (ties: canonical text). */
static pe_status key_chosen_plan(grader *g, const pe_question *q, key_answer *k,
                                 const pe_plan_space *space, const pe_run_result *rr,
                                 pe_error *err)
{
    const pe_row *best = NULL;
    for (size_t r = 0; r < rr->row_count; r++) {
        const pe_row *w = &rr->rows[r];
        if (w->result.status != PE_STATUS_OK)
            continue;
        if (!best || w->result.step_time_s < best->result.step_time_s ||
            (w->result.step_time_s == best->result.step_time_s &&
             strcmp(w->canon, best->canon) < 0))
            best = w;
    }
    if (!best)
        return key_fail(err, g->s, q, "no plan of %s meets the budgets, so %s has no answer",
                        g->s->name, "chosen_plan");
    key_take_row(k, space, best);
    k->step = best->result.step_time_s;
    char num[64];
    grade_fmt_num(k->step, num, sizeof num);
    snprintf(k->expected, sizeof k->expected, "meets the budgets; fastest: %s, %s s", k->shown,
             num);
    return PE_OK;
}

/* Reference answers of every question (rows: the scenario's ranked plans). */
pe_status grade_key_prepare(grader *g, const pe_plan_space *space, const pe_run_result *rr,
                            pe_error *err)
{
    for (size_t i = 0; i < g->s->question_count; i++) {
        const pe_question *q = &g->s->questions[i];
        key_answer *k = &g->ans[i];
        g->possible += q->points;
        pe_status st = PE_OK;
        switch (q->ask) {
        case PE_ASK_COLUMN:
        case PE_ASK_FITS:
        case PE_ASK_COMM_BOUND: st = key_plan_answer(g, q, k, err); break;
        case PE_ASK_MIN_INTERVENTION: st = key_min_intervention(g, q, k, space, rr, err); break;
        case PE_ASK_BEST_PLAN: st = key_best_plan(g, q, k, space, rr, err); break;
        case PE_ASK_CHOSEN_PLAN: st = key_chosen_plan(g, q, k, space, rr, err); break;
        }
        if (st != PE_OK)
            return st;
    }
    return PE_OK;
}
