/* run_views.h — what `run` makes of its ranked rows besides the plain
 * report: the rows people asked for (--pareto keeps the Pareto-optimal
 * ones), and the HTML page (--html). Both work on the rows the runner
 * kept — every row of a full run, the K best of a top-K run — so nothing
 * is evaluated twice and the sweep loop does no extra work. */
#ifndef PLANEVAL_RUN_VIEWS_H
#define PLANEVAL_RUN_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/commands.h"
#include "core/error.h"
#include "core/scenario.h"
#include "sweep/runner.h"

/* The Pareto-optimal rows of rr (sweep/pareto.h: ok plans, memory against
 * the rank_by figure): *count of them; with keep, *view becomes rr with
 * only those rows (in rank order; view->rows owned: free with
 * run_view_free), else *view is rr itself (rows not owned). */
pe_status run_pareto_view(const pe_scenario *s, const pe_run_result *rr, bool keep,
                          pe_run_result *view, size_t *count, pe_error *err);
void run_view_free(const pe_run_result *rr, pe_run_result *view);

/* How the rows were chosen (--top, --status, --pareto), for the page. */
void run_view_note(const pe_command_options *opt, const pe_run_result *rr, char *buf,
                   size_t size);

/* The HTML page of the rows of view (html.h) at path: the scenario's
 * facts, the run's counts (rr), a note on how the rows were chosen. */
pe_status run_write_html(const char *path, const pe_scenario *s, const pe_run_result *rr,
                         const pe_run_result *view, size_t pareto_count, const char *note,
                         pe_error *err);

#endif
