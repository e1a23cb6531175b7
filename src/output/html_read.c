/* html_read.c — a report CSV (and its summary) into html.h's page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/canonical.h"
#include "core/columns.h"
#include "model/evaluate.h"
#include "output/html_read.h"
#include "output/report_read.h"
#include "output/summary.h"

/* The columns the page reads, by name: reports of this version have them
 * at fixed places, but reading by name costs nothing. */
enum {
    R_RANK, R_SCENARIO, R_PLAN, R_STATUS, R_REASON, R_DP, R_TP, R_PP, R_CP, R_ZERO,
    R_RECOMPUTE, R_SCHEDULE, R_V, R_SP, R_MB, R_MEM0, R_MEM_TOTAL = R_MEM0 + 6, R_MEM_BUDGET,
    R_TIME0, R_STEP = R_TIME0 + 7, R_BOUND, R_TOKENS, R_MFU, R_EP_COMM, R_COUNT,
    /* optional: S6's and M23's intervals, absent from reports written before them */
    R_LO = R_COUNT, R_HI, R_MEM_PEAK, R_MEM_LO, R_MEM_HI, R_ALL
};
static const char *const OPTIONAL[R_ALL - R_COUNT] = {
    "step_time_lo_s", "step_time_hi_s", "mem_peak_gib", "mem_peak_lo_gib", "mem_peak_hi_gib"};
static const char *const NEEDED[R_COUNT] = {
    "rank", "scenario", "plan", "status", "reason", "dp", "tp", "pp", "cp", "zero",
    "recompute", "schedule", "virtual_stages", "sequence_parallel", "micro_batch",
    "mem_weights_gib", "mem_grads_gib", "mem_optimizer_gib", "mem_activations_gib",
    "mem_other_gib", "mem_reserve_gib", "mem_total_gib", "mem_budget_gib", "compute_s",
    "tp_comm_s", "cp_comm_s", "bubble_s", "pp_comm_s", "dp_comm_s", "optimizer_s",
    "step_time_s", "bound", "tokens_per_s", "mfu", "ep_comm_s"};

static int enum_index(const char *text, const char *(*name)(int), int count)
{
    for (int k = 0; k < count; k++)
        if (strcmp(text, name(k)) == 0)
            return k;
    return -1;
}
static const char *status_name(int v) { return pe_plan_status_name((pe_plan_status)v); }
static const char *bound_name(int v) { return pe_bound_name((pe_bound)v); }
static const char *recompute_name(int v) { return pe_recompute_name((pe_recompute)v); }
static const char *schedule_name(int v) { return pe_schedule_name((pe_schedule)v); }

/* The plan's canonical text, which a report holds only in the plan cell of
 * a plan without a name: the columns have no -ep, -etp, -fs, -ls or -off, so
 * a text rebuilt from them would name another plan. The cell is taken when
 * it is a canonical text (canonical.h, whose reader takes only what its
 * writer prints) that agrees with the row's columns; else (a name) the
 * canonical text is not known: "". */
static void canon_of_cell(const char *cell, const pe_plan *columns, char *canon, size_t size)
{
    static const pe_overlap no_overlap;
    pe_plan p;
    pe_error err;
    canon[0] = '\0';
    if (canonical_parse(cell, &no_overlap, &p, &err) != PE_OK)
        return;
    const pe_plan *c = columns;
    if (p.dp == c->dp && p.tp == c->tp && p.pp == c->pp && p.cp == c->cp && p.zero == c->zero &&
        p.recompute == c->recompute && p.micro_batch == c->micro_batch &&
        p.schedule == c->schedule && p.virtual_stages == c->virtual_stages &&
        p.sequence_parallel == c->sequence_parallel)
        canonical_write(&p, canon, size);
}

/* M23's interval of a row's memory peak, carried to mem_total at the same
 * ratios; NULL or what is wrong with it (*bad: the column). */
static const char *read_mem_interval(char **c, const int *at, pe_html_point *p, int *bad)
{
    p->has_mem_interval = at[R_MEM_PEAK] >= 0 && at[R_MEM_LO] >= 0 && at[R_MEM_HI] >= 0 &&
                          c[at[R_MEM_LO]][0] && c[at[R_MEM_HI]][0];
    if (!p->has_mem_interval)
        return NULL;
    double peak, lo, hi;
    *bad = R_MEM_TOTAL; /* optional columns: named by the one the bar shows */
    if (!report_cell_number(c[at[R_MEM_PEAK]], false, &peak) ||
        !report_cell_number(c[at[R_MEM_LO]], false, &lo) ||
        !report_cell_number(c[at[R_MEM_HI]], false, &hi) || lo < 0 || hi < lo || peak < lo ||
        peak > hi)
        return "its memory interval is not two figures, low to high, around mem_peak_gib";
    p->has_mem_interval = peak > 0;
    p->mem_total_lo = p->has_mem_interval ? p->mem_total * (lo / peak) : 0.0;
    p->mem_total_hi = p->has_mem_interval ? p->mem_total * (hi / peak) : 0.0;
    return NULL;
}

/* One row's point; NULL or what is wrong with it (*bad: the column). */
static const char *read_point(char **c, const int *at, pe_html_point *p, int *bad)
{
    memset(p, 0, sizeof *p);
    int st = enum_index(c[at[R_STATUS]], status_name, 4);
    int rc = enum_index(c[at[R_RECOMPUTE]], recompute_name, 3);
    int sc = enum_index(c[at[R_SCHEDULE]], schedule_name, 5);
    *bad = st < 0 ? R_STATUS : rc < 0 ? R_RECOMPUTE : R_SCHEDULE;
    if (st < 0 || rc < 0 || sc < 0)
        return "unknown value";
    pe_plan plan = {.recompute = (pe_recompute)rc, .schedule = (pe_schedule)sc};
    int64_t *ints[] = {&plan.dp, &plan.tp, &plan.pp, &plan.cp, &plan.zero, &plan.virtual_stages,
                       &plan.micro_batch};
    const int int_cols[] = {R_DP, R_TP, R_PP, R_CP, R_ZERO, R_V, R_MB};
    for (int i = 0; i < 7; i++) {
        char *end;
        *ints[i] = strtoll(c[at[int_cols[i]]], &end, 10);
        *bad = int_cols[i];
        if (*end || end == c[at[int_cols[i]]])
            return "not a whole number";
    }
    plan.sequence_parallel = strcmp(c[at[R_SP]], "true") == 0;
    p->plan = c[at[R_PLAN]];
    canon_of_cell(p->plan, &plan, p->canon, sizeof p->canon);
    p->rank = strtoull(c[at[R_RANK]], NULL, 10);
    p->status = (pe_plan_status)st;
    if (p->status == PE_STATUS_INVALID)
        return NULL; /* its figures are empty */
    int b = enum_index(c[at[R_BOUND]], bound_name, PE_BOUND_VALUE_COUNT);
    *bad = R_BOUND;
    if (b < 0)
        return "unknown value";
    p->bound = (pe_bound)b;
    /* every figure as the writer writes it (report_read.h): text, "nan",
     * "inf" or a negative size would be drawn as a bar of no length, or of
     * none the page can hold */
    struct { int k; double *into; } figures[] = {
        {R_MEM0, &p->mem[0]}, {R_MEM0 + 1, &p->mem[1]}, {R_MEM0 + 2, &p->mem[2]},
        {R_MEM0 + 3, &p->mem[3]}, {R_MEM0 + 4, &p->mem[4]}, {R_MEM0 + 5, &p->mem[5]},
        {R_TIME0, &p->time[0]}, {R_TIME0 + 1, &p->time[1]}, {R_TIME0 + 2, &p->time[2]},
        {R_TIME0 + 3, &p->time[3]}, {R_TIME0 + 4, &p->time[4]}, {R_TIME0 + 5, &p->time[5]},
        {R_TIME0 + 6, &p->time[6]}, {R_EP_COMM, &p->time[7]}, /* S1′'s last addend */
        {R_MEM_TOTAL, &p->mem_total}, {R_STEP, &p->step_time}, {R_TOKENS, &p->tokens_per_s},
        {R_MFU, &p->mfu}};
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        *bad = figures[i].k;
        if (!report_cell_number(c[at[figures[i].k]], false, figures[i].into) ||
            *figures[i].into < 0)
            return "not a figure (a finite decimal number >= 0)";
    }
    p->has_interval = at[R_LO] >= 0 && at[R_HI] >= 0 && c[at[R_LO]][0] && c[at[R_HI]][0];
    if (p->has_interval) {
        *bad = R_STEP; /* the interval's columns are optional: named by the one they bound */
        if (!report_cell_number(c[at[R_LO]], false, &p->step_time_lo) ||
            !report_cell_number(c[at[R_HI]], false, &p->step_time_hi) || p->step_time_lo < 0 ||
            p->step_time_hi < p->step_time_lo)
            return "its step time interval is not two figures, low to high";
    }
    return read_mem_interval(c, at, p, bad);
}

static void add_count(pe_html_page *page, const char *label, uint64_t n)
{
    if (page->count_count < PE_HTML_COUNTS_MAX && n) {
        pe_html_count *c = &page->counts[page->count_count++];
        snprintf(c->label, sizeof c->label, "%s", label);
        c->n = n;
    }
}

/* Counts from the rows alone: by status, invalid by rule (the reasons'
 * "Vn:" items). */
static void counts_of_rows(pe_html_page *page, char **const *rows, size_t n, const int *at)
{
    uint64_t by_status[4] = {0}, by_rule[PE_RULE_COUNT] = {0};
    for (size_t r = 0; r < n; r++) {
        int st = enum_index(rows[r][at[R_STATUS]], status_name, 4);
        if (st < 0)
            continue;
        by_status[st]++;
        for (const char *s = rows[r][at[R_REASON]]; st == PE_STATUS_INVALID && *s;) {
            if (s[0] == 'V' && s[1] >= '1' && s[1] <= '9') { /* "Vn:" or "Vnn:" */
                char *end;
                const long v = strtol(s + 1, &end, 10);
                if (*end == ':' && v >= 1 && v <= PE_RULE_COUNT)
                    by_rule[v - 1]++;
            }
            const char *next = strstr(s, "; ");
            s = next ? next + 2 : s + strlen(s);
        }
    }
    char label[64];
    for (int k = 0; k < 4; k++) {
        snprintf(label, sizeof label, "status: %s", pe_plan_status_name((pe_plan_status)k));
        add_count(page, label, by_status[k]);
    }
    for (int v = 0; v < PE_RULE_COUNT; v++) {
        snprintf(label, sizeof label, "invalid: V%d", v + 1);
        add_count(page, label, by_rule[v]);
    }
}

/* The summary's facts ("fact: KEY"), counts and budgets; false when
 * there is no summary beside the report. */
static bool read_summary(const char *report, pe_html_page *page)
{
    char path[PE_PATH_MAX + 32];
    if (!summary_path_of(report, path, sizeof path))
        return false;
    pe_csv_table t;
    pe_error err;
    if (access(path, R_OK) != 0 || csv_table_read(path, &t, &err) != PE_OK)
        return false;
    for (size_t r = 1; r < t.rows; r++) {
        const char *key = csv_table_cell(&t, r, 0), *value = csv_table_cell(&t, r, 1);
        uint64_t n = strtoull(value, NULL, 10);
        if (strcmp(key, "plans_evaluated") == 0)
            page->plans_evaluated = n;
        else if (strncmp(key, "fact: ", 6) == 0 && page->fact_count < PE_HTML_FACTS_MAX) {
            pe_html_fact *f = &page->facts[page->fact_count++];
            snprintf(f->key, sizeof f->key, "%s", key + 6);
            snprintf(f->value, sizeof f->value, "%s", value);
            double budget;
            if (strcmp(f->key, "budget: step_time_s") == 0 &&
                report_cell_number(value, false, &budget) && budget > 0)
                page->step_budget_s = budget;
        } else if (strncmp(key, "status: ", 8) == 0 || strncmp(key, "invalid: ", 9) == 0 ||
                   strncmp(key, "skipped: ", 9) == 0 || strcmp(key, "pareto_optimal") == 0 ||
                   strcmp(key, "rows_written") == 0) {
            add_count(page, key, n);
        }
    }
    csv_table_free(&t);
    return true;
}

/* Where each needed column is; NULL or the missing column's name. */
static const char *find_columns(const pe_csv_table *t, int *at)
{
    for (int k = 0; k < R_ALL; k++) {
        const char *name = k < R_COUNT ? NEEDED[k] : OPTIONAL[k - R_COUNT];
        at[k] = -1;
        for (size_t c = 0; t->rows && c < t->cols[0]; c++)
            if (strcmp(t->cells[0][c], name) == 0)
                at[k] = (int)c;
        if (at[k] < 0 && k < R_COUNT)
            return name;
    }
    return NULL;
}

static void page_defaults(const char *path, const pe_html_source *src, pe_html_page *page,
                          const int *at)
{
    memset(page, 0, sizeof *page);
    page->mem_budget_gib = page->step_budget_s = -1;
    snprintf(page->source, sizeof page->source, "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(page->title, sizeof page->title, "%s",
             src->table.rows > 1 ? src->table.cells[1][at[R_SCENARIO]] : slash ? slash + 1 : path);
    for (size_t r = 1; r < src->table.rows; r++)
        if (src->points[r - 1].status != PE_STATUS_INVALID) {
            double budget; /* no budget unless the cell is a figure */
            if (report_cell_number(src->table.cells[r][at[R_MEM_BUDGET]], false, &budget) &&
                budget > 0)
                page->mem_budget_gib = budget;
            break;
        }
}

pe_status html_read_report(const char *path, pe_html_page *page, pe_html_source *src,
                           pe_error *err)
{
    memset(src, 0, sizeof *src);
    pe_status st = csv_table_read(path, &src->table, err);
    if (st != PE_OK)
        return st;
    const pe_csv_table *t = &src->table;
    int at[R_ALL];
    const char *missing = find_columns(t, at);
    if (missing) {
        html_source_free(src);
        return pe_fail(err, PE_BAD_INPUT, path, 1, 1, "not a planeval report: no column '%s'",
                       missing);
    }
    src->points = calloc(t->rows ? t->rows : 1, sizeof *src->points);
    if (!src->points)
        st = pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    for (size_t r = 1; st == PE_OK && r < t->rows; r++, src->n++) {
        int bad = 0;
        const char *why = t->cols[r] != t->cols[0]
                              ? "the row's cells do not match the header"
                              : read_point(t->cells[r], at, &src->points[src->n], &bad);
        if (why)
            st = pe_fail(err, PE_BAD_INPUT, path, t->lines[r], at[bad] + 1, "%s: %s",
                         NEEDED[bad], why);
    }
    if (st != PE_OK) {
        html_source_free(src);
        return st;
    }
    page_defaults(path, src, page, at);
    if (!read_summary(path, page)) {
        counts_of_rows(page, t->cells + 1, t->rows - 1, at);
        snprintf(page->note, sizeof page->note,
                 "no summary beside the report: counts are of its rows");
    }
    return PE_OK;
}

void html_source_free(pe_html_source *src)
{
    csv_table_free(&src->table);
    free(src->points);
    memset(src, 0, sizeof *src);
}
