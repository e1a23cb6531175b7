/* run_views.c — --pareto and --html of `run`, over the runner's rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/evaluate.h"
#include "cli/run_views.h"
#include "output/html.h"
#include "sweep/pareto.h"

pe_status run_pareto_view(const pe_scenario *s, const pe_run_result *rr, bool keep,
                          pe_run_result *view, size_t *count, pe_error *err)
{
    *view = *rr;
    pe_rank_order order;
    rank_order_of(s, &order);
    bool *optimal = malloc(rr->row_count ? rr->row_count : 1);
    if (!optimal)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory finding the Pareto front");
    pe_status st = pareto_rows(rr->rows, rr->row_count, &order, optimal, count, err);
    pe_row *rows = st == PE_OK && keep ? malloc((*count ? *count : 1) * sizeof *rows) : NULL;
    if (st == PE_OK && keep && !rows)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory finding the Pareto front");
    if (rows) {
        size_t k = 0;
        for (size_t i = 0; i < rr->row_count; i++)
            if (optimal[i])
                rows[k++] = rr->rows[i];
        view->rows = rows;
        view->row_count = k;
    }
    free(optimal);
    return st;
}

void run_view_free(const pe_run_result *rr, pe_run_result *view)
{
    if (view->rows != rr->rows)
        free(view->rows);
    view->rows = NULL;
}

static void add_count(pe_html_page *page, uint64_t n, const char *fmt, const char *arg)
{
    if (!n || page->count_count == PE_HTML_COUNTS_MAX)
        return;
    pe_html_count *c = &page->counts[page->count_count++];
    snprintf(c->label, sizeof c->label, fmt, arg);
    c->n = n;
}

/* Counts of the whole run, as the summary states them. */
static void page_counts(const pe_run_counts *c, size_t pareto_count, pe_html_page *page)
{
    page->plans_evaluated = c->evaluated;
    for (int k = 0; k < 4; k++)
        add_count(page, c->by_status[k], "status: %s", pe_plan_status_name((pe_plan_status)k));
    for (int v = 0; v < PE_RULE_COUNT; v++) {
        char rule[8];
        snprintf(rule, sizeof rule, "V%d", v + 1);
        add_count(page, c->by_rule[v], "invalid: %s", rule);
    }
    for (int k = 1; k < PE_SKIP_COUNT; k++)
        add_count(page, c->skipped[k], "skipped: %s", plans_skip_name((pe_skip)k));
    add_count(page, pareto_count, "%s", "pareto_optimal");
}

pe_status run_write_html(const char *path, const pe_scenario *s, const pe_run_result *rr,
                         const pe_run_result *view, size_t pareto_count, const char *note,
                         pe_error *err)
{
    pe_html_page *page = calloc(1, sizeof *page);
    pe_html_point *points = malloc((view->row_count ? view->row_count : 1) * sizeof *points);
    pe_status st = PE_OK;
    if (!page || !points)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory drawing the report");
    if (st == PE_OK) {
        snprintf(page->title, sizeof page->title, "%s", s->name);
        snprintf(page->source, sizeof page->source, "planeval run %s", s->file);
        snprintf(page->note, sizeof page->note, "%s", note ? note : "");
        page->fact_count = html_scenario_facts(s, page->facts, PE_HTML_FACTS_MAX);
        page_counts(&rr->counts, pareto_count, page);
        page->mem_budget_gib = page->step_budget_s = -1;
        if (s->budgets.has_step_time_s)
            page->step_budget_s = s->budgets.step_time_s;
        for (size_t i = 0; i < view->row_count; i++) {
            html_point_of_row(&view->rows[i], i + 1, &points[i]);
            if (page->mem_budget_gib < 0 && view->rows[i].result.status != PE_STATUS_INVALID)
                page->mem_budget_gib = view->rows[i].result.mem_budget_gib;
        }
        st = html_write(path, page, points, view->row_count, err);
    }
    free(page);
    free(points);
    return st;
}

void run_view_note(const pe_command_options *opt, const pe_run_result *rr, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (opt->top_k && n < size)
        n += (size_t)snprintf(buf + n, size - n, "the %llu best of %llu plans (--top)",
                              (unsigned long long)opt->top_k,
                              (unsigned long long)rr->counts.evaluated);
    if (opt->status_mask && n < size) {
        n += (size_t)snprintf(buf + n, size - n, "%sstatuses", n ? "; " : "");
        for (int k = 0; k < 4 && n < size; k++)
            if (opt->status_mask >> k & 1u)
                n += (size_t)snprintf(buf + n, size - n, " %s",
                                      pe_plan_status_name((pe_plan_status)k));
        if (n < size)
            n += (size_t)snprintf(buf + n, size - n, " (--status)");
    }
    if (opt->pareto && n < size)
        snprintf(buf + n, size - n, "%sthe Pareto-optimal plans only (--pareto)", n ? "; " : "");
}
