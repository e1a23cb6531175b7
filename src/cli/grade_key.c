/* grade_key.c — the key's reference answers (grade.h): a column of a
 * plan is the report's figure (interface.md "Report CSV"), fits is model.md
 * M6, comm_bound is S3, the minimum intervention and the best plan follow
 * §9; the ranked rows come from the runner. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/grade_internal.h"

void grade_show_plan(const pe_plan *p, const char *name, char *buf, size_t size)
{
    char canon[PE_CANON_MAX];
    plans_canonical(p, canon, sizeof canon);
    if (name && name[0] && strcmp(name, canon) != 0)
        snprintf(buf, size, "%s (%s)", name, canon);
    else
        snprintf(buf, size, "%s", canon);
}

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

/* Reference answers of every question (rows: the scenario's ranked plans). */
pe_status grade_key_prepare(grader *g, const pe_plan_space *space, const pe_run_result *rr,
                             pe_error *err)
{
    const pe_scenario *s = g->s;
    for (size_t i = 0; i < s->question_count; i++) {
        const pe_question *q = &s->questions[i];
        key_answer *k = &g->ans[i];
        g->possible += q->points;
        char num[64], reason[TEXT_MAX];
        switch (q->ask) {
        case PE_ASK_COLUMN:
        case PE_ASK_FITS:
        case PE_ASK_COMM_BOUND: {
            if (!key_plan(s, q->plan, &k->plan))
                return key_fail(err, s, q, "no plan named '%s'", q->plan);
            evaluate_plan(&g->ctx, &k->plan, &k->result);
            grade_show_plan(&k->plan, k->plan.name, k->shown, sizeof k->shown);
            if (k->result.status == PE_STATUS_INVALID) {
                evaluate_format_reason(&g->ctx, &k->plan, &k->result, reason, sizeof reason);
                return key_fail(err, s, q, "plan '%s' is invalid (%s), so it has no answer",
                                q->plan, reason);
            }
            if (q->ask == PE_ASK_COLUMN) {
                int col = columns_find(q->column);
                if (col < 0 || !grade_column_value(&k->result, &k->plan, (pe_column)col, &k->value))
                    return key_fail(err, s, q, "%s does not apply to plan '%s'", q->column,
                                    q->plan);
                grade_fmt_num(k->value, k->expected, sizeof k->expected);
            } else {
                bool v = q->ask == PE_ASK_FITS ? fits_of(&k->result) : comm_bound_of(&k->result);
                snprintf(k->expected, sizeof k->expected, "%s", v ? "true" : "false");
            }
            break;
        }
        case PE_ASK_MIN_INTERVENTION: {
            /* model.md §9: the fewest knobs moved among plans that fit
             * (M6); the fastest of those, then canonical text, shown. */
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
                return key_fail(err, s, q, "no plan of %s fits in memory, so %s has no answer",
                                s->name, "min_intervention");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->interventions = best->result.interventions;
            grade_show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            snprintf(k->expected, sizeof k->expected, "%d interventions, e.g. %s",
                     k->interventions, k->shown);
            break;
        }
        case PE_ASK_BEST_PLAN: {
            const pe_row *best = rr->row_count ? &rr->rows[0] : NULL;
            if (!best || best->result.status != PE_STATUS_OK)
                return key_fail(err, s, q, "no plan of %s meets the budgets, so %s has no answer",
                                s->name, "best_plan");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->key = best->key;
            grade_show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            snprintf(k->expected, sizeof k->expected, "%s", k->shown);
            break;
        }
        case PE_ASK_CHOSEN_PLAN: {
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
                return key_fail(err, s, q, "no plan of %s meets the budgets, so %s has no answer",
                                s->name, "chosen_plan");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->step = best->result.step_time_s;
            grade_show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            grade_fmt_num(k->step, num, sizeof num);
            snprintf(k->expected, sizeof k->expected, "meets the budgets; fastest: %s, %s s",
                     k->shown, num);
            break;
        }
        }
    }
    return PE_OK;
}
