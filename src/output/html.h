/* html.h — a report as one self-contained HTML page: inline SVG and CSS
 * and a little plain JavaScript (status filter, axis switch); nothing is
 * fetched, so the file opens offline. It shows
 *   - the scenario's facts and assumptions (html_facts.h), the run's counts (by status,
 *     invalid by rule, skipped by reason) and the best plan;
 *   - a scatter of the ok, over_time and over_memory plans: memory per GPU
 *     against step time (or tokens/s), coloured by status, shaped by bound,
 *     with the budgets as lines and the Pareto front (least memory, least
 *     step time) drawn, and listed in a table with canonical texts;
 *   - stacked bars of the step-time and memory columns of the best plans.
 * At most PE_HTML_MAX_POINTS points are drawn: beyond that, every Pareto
 * point and every plan of the bars, and the best-ranked plan of each cell
 * of a grid per status, as fine as the limit allows (the page says so). */
#ifndef PLANEVAL_HTML_H
#define PLANEVAL_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scenario.h"
#include "model/evaluate.h"
#include "output/html_facts.h"
#include "sweep/plans.h"
#include "sweep/rank.h"

#define PE_HTML_MAX_POINTS 20000
#define PE_HTML_BARS 10 /* plans in the stacked bars */

#define PE_HTML_TIME_PARTS 8

/* One report row, as the page needs it (in rank order). */
typedef struct {
    const char *plan; /* its name or canonical text; must outlive html_write */
    /* its canonical text; "" when not known: a named plan read back from a
     * report, whose columns do not hold the -ep, -etp, -fs, -ls, -off tail */
    char canon[PE_CANON_MAX];
    uint64_t rank;
    pe_plan_status status;
    pe_bound bound;
    double mem[6]; /* mem_weights, grads, optimizer, activations, other, reserve (GiB) */
    double mem_total;
    /* S1′'s addends, in its order: compute, tp_comm, cp_comm, bubble, pp_comm,
     * dp_comm, optimizer, ep_comm (s); they sum to step_time */
    double time[PE_HTML_TIME_PARTS];
    double step_time, tokens_per_s, mfu;
    /* S6's 80% prediction interval (refined reports), drawn as the time
     * bar's error bar; has_interval false: none */
    bool has_interval;
    double step_time_lo, step_time_hi;
    /* M23's 80% interval of the memory peak (refined reports), at the same
     * ratios on mem_total, drawn as the memory bar's error bar */
    bool has_mem_interval;
    double mem_total_lo, mem_total_hi;
} pe_html_point;

#define PE_HTML_COUNTS_MAX 32

typedef struct {
    char label[96];
    uint64_t n;
} pe_html_count;

typedef struct {
    char title[PE_NAME_MAX];   /* the scenario's name */
    char source[PE_PATH_MAX + 64]; /* what the page was made from */
    pe_html_fact facts[PE_HTML_FACTS_MAX];
    size_t fact_count;
    /* counts of the whole run: "status: ok" …, "invalid: V3" …, "skipped: …";
     * none when unknown (a report without its summary: then from the rows) */
    pe_html_count counts[PE_HTML_COUNTS_MAX];
    size_t count_count;
    uint64_t plans_evaluated; /* 0: unknown */
    double mem_budget_gib;    /* < 0: none */
    double step_budget_s;     /* < 0: none */
    char note[512];           /* how the rows were chosen (--top, --status, --pareto), or "" */
} pe_html_page;

/* The page's point of a report row (row->result and its plan). */
void html_point_of_row(const pe_row *row, uint64_t rank, pe_html_point *out);

/* Write the page to path (atomically: a temporary file renamed into place). */
pe_status html_write(const char *path, const pe_html_page *page, const pe_html_point *points,
                     size_t n, pe_error *err);

#endif
