/* pareto.h — the Pareto-optimal plans of a report: the ok plans that no
 * other ok plan beats on both memory per GPU (mem_total_gib) and the
 * rank_by figure (rank_pareto_value: step time by default), smaller being
 * better on both. A point is dominated when another is ≤ on both and < on
 * one; equal points do not dominate each other. Computed over rows already
 * kept (every row of a full run, the K of a top-K run), never in the sweep
 * loop. */
#ifndef PLANEVAL_PARETO_H
#define PLANEVAL_PARETO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "sweep/rank.h"

/* optimal[i] = point i is eligible and not dominated by an eligible point
 * (x, y: smaller is better); *count of them. O(n log n). */
pe_status pareto_mark(const double *x, const double *y, const bool *eligible, size_t n,
                      bool *optimal, size_t *count, pe_error *err);

/* The same over report rows: eligible = status ok, x = mem_total_gib,
 * y = rank_pareto_value(order, result). */
pe_status pareto_rows(const pe_row *rows, size_t n, const pe_rank_order *order, bool *optimal,
                      size_t *count, pe_error *err);

#endif
