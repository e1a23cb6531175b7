/* expect.c — a scenario's expect: assertions against its ranked run
 * (expect.h): each assertion's cell is formatted as the report writes it
 * and compared within the assertion's tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/expect.h"
#include "core/columns.h"
#include "output/report.h"

/* The row of a plan reference: a name is matched first, then canonical text. */
static const pe_row *find_row(const pe_run_result *rr, const char *ref, size_t *rank)
{
    for (size_t i = 0; i < rr->row_count; i++)
        if (rr->rows[i].name && strcmp(rr->rows[i].name, ref) == 0) {
            *rank = i + 1;
            return &rr->rows[i];
        }
    for (size_t i = 0; i < rr->row_count; i++)
        if (strcmp(rr->rows[i].canon, ref) == 0) {
            *rank = i + 1;
            return &rr->rows[i];
        }
    return NULL;
}

static bool is_plan_name(const pe_run_result *rr, const char *ref)
{
    for (size_t i = 0; i < rr->row_count; i++)
        if (rr->rows[i].name && strcmp(rr->rows[i].name, ref) == 0)
            return true;
    return false;
}

static void expect_text(const pe_expect_check *c, char *buf, size_t size)
{
    int kind = pe_columns[columns_find(c->column)].kind;
    if (kind == PE_COL_TEXT || kind == PE_COL_BOOL) {
        snprintf(buf, size, "'%s'", c->text ? c->text : "");
        return;
    }
    char v[40], t[40];
    report_format_double(c->value, v, sizeof v);
    report_format_double(c->tol, t, sizeof t);
    if (c->tol_kind == PE_TOL_REL)
        snprintf(buf, size, "%s (rel_tol %s)", v, t);
    else if (c->tol_kind == PE_TOL_ABS)
        snprintf(buf, size, "%s (abs_tol %s)", v, t);
    else
        snprintf(buf, size, "%s", v);
}

/* Compare one cell with one assertion; on failure write why into `why`. */
bool expect_cell_matches(const pe_expect_check *c, const char *cell, char *why, size_t size)
{
    int kind = pe_columns[columns_find(c->column)].kind;
    if (kind == PE_COL_TEXT || kind == PE_COL_BOOL) {
        if (strcmp(cell, c->text ? c->text : "") == 0)
            return true;
        snprintf(why, size, "got '%s'", cell);
        return false;
    }
    if (!cell[0]) {
        snprintf(why, size, "got an empty cell (the figure does not apply to this plan)");
        return false;
    }
    double got = strtod(cell, NULL);
    double diff = got - c->value;
    bool ok;
    switch (c->tol_kind) {
    case PE_TOL_REL:
        ok = fabs(diff) <= c->tol * fabs(c->value);
        break;
    case PE_TOL_ABS:
        ok = fabs(diff) <= c->tol;
        break;
    default:
        ok = got == c->value;
        break;
    }
    if (ok)
        return true;
    if (c->value != 0)
        snprintf(why, size, "got %s (error %+.4g, %+.3g%%)", cell, diff, 100.0 * diff / fabs(c->value));
    else
        snprintf(why, size, "got %s (error %+.4g)", cell, diff);
    return false;
}

/* One assertion's outcome: its line on the sink's stream when it failed,
 * and the outcome to the sink's observer. */
static void report_outcome(const pe_expect_sink *sink, pe_check_tally *t,
                           const pe_expect_outcome *o)
{
    if (o->ok)
        t->passed++;
    else
        t->failed++;
    if (!o->ok && sink->out)
        fprintf(sink->out, "%s\n", o->message);
    if (sink->outcome)
        sink->outcome(sink->user, o);
}

/* best_plan: NAME, against the rank-1 row. */
static void check_best_plan(const pe_scenario *s, const pe_expect *x, const pe_run_result *rr,
                            const pe_expect_sink *sink, pe_check_tally *t)
{
    char line[2400] = "";
    /* invalid plans rank last: an invalid first row means no valid plan */
    const pe_row *best =
        rr->row_count && rr->rows[0].result.status != PE_STATUS_INVALID ? &rr->rows[0] : NULL;
    bool ok = best && ((best->name && strcmp(best->name, x->plan) == 0) ||
                       (!is_plan_name(rr, x->plan) && strcmp(best->canon, x->plan) == 0));
    if (!ok)
        snprintf(line, sizeof line, "%s:%d:%d: %s: best_plan: expected '%s', got '%s'", s->file,
                 x->line, x->col, s->name, x->plan,
                 best ? (best->name ? best->name : best->canon) : "no valid plan");
    pe_expect_outcome o = {s->name, s->file, x->line, x->col, x->plan, "best_plan", ok, line};
    report_outcome(sink, t, &o);
}

/* The plan's S6 cells, to sink->interval. */
static void report_interval(const pe_eval_ctx *ctx, const char *name, long long rank,
                            const pe_plan *plan, const pe_row *row, const pe_expect_sink *sink)
{
    char lo[64], hi[64];
    report_format_cell(ctx, name, rank, plan, row, COL_STEP_TIME_LO_S, lo, sizeof lo);
    report_format_cell(ctx, name, rank, plan, row, COL_STEP_TIME_HI_S, hi, sizeof hi);
    sink->interval(sink->user, lo, hi);
}

/* The plan's memory peak and its M23 cells, to sink->mem_interval. */
static void report_mem_interval(const pe_eval_ctx *ctx, const char *name, long long rank,
                                const pe_plan *plan, const pe_row *row,
                                const pe_expect_sink *sink)
{
    char peak[64], lo[64], hi[64];
    report_format_cell(ctx, name, rank, plan, row, COL_MEM_PEAK_GIB, peak, sizeof peak);
    report_format_cell(ctx, name, rank, plan, row, COL_MEM_PEAK_LO_GIB, lo, sizeof lo);
    report_format_cell(ctx, name, rank, plan, row, COL_MEM_PEAK_HI_GIB, hi, sizeof hi);
    sink->mem_interval(sink->user, peak, lo, hi);
}

void expect_check(const pe_scenario *s, const pe_plan_space *space, const pe_eval_ctx *ctx,
                  const pe_run_result *rr, const pe_expect_sink *sink, pe_check_tally *t)
{
    char cell[2048], want[128], why[2400], line[4800];
    for (size_t e = 0; e < s->expect_count; e++) {
        const pe_expect *x = &s->expects[e];
        if (x->kind == PE_EXPECT_BEST_PLAN) {
            check_best_plan(s, x, rr, sink, t);
            continue;
        }
        size_t rank = 0;
        const pe_row *row = find_row(rr, x->plan, &rank);
        for (size_t k = 0; k < x->check_count; k++) {
            const pe_expect_check *c = &x->checks[k];
            pe_expect_outcome o = {s->name, s->file, c->line, c->col, x->plan, c->column, false,
                                   line};
            if (!row) { /* a canonical text that names no plan of the sweep */
                snprintf(line, sizeof line, "%s:%d:%d: %s: plan '%s': no such plan was evaluated",
                         s->file, c->line, c->col, s->name, x->plan);
                if (sink->seen)
                    sink->seen(sink->user, s->name, x->plan, c, "");
                report_outcome(sink, t, &o);
                continue;
            }
            pe_plan plan;
            plans_at(space, row->index, &plan);
            report_format_cell(plans_ctx(space, row->index, ctx), s->name, (long long)rank, &plan,
                               row,
                               (pe_column)columns_find(c->column), cell, sizeof cell);
            o.ok = expect_cell_matches(c, cell, why, sizeof why);
            if (sink->interval)
                report_interval(ctx, s->name, (long long)rank, &plan, row, sink);
            if (sink->mem_interval)
                report_mem_interval(plans_ctx(space, row->index, ctx), s->name,
                                    (long long)rank, &plan, row, sink);
            if (sink->seen)
                sink->seen(sink->user, s->name, x->plan, c, cell);
            line[0] = '\0';
            if (!o.ok) {
                expect_text(c, want, sizeof want);
                snprintf(line, sizeof line, "%s:%d:%d: %s: plan '%s': %s: expected %s, %s",
                         s->file, c->line, c->col, s->name, x->plan, c->column, want, why);
            }
            report_outcome(sink, t, &o);
        }
    }
}
