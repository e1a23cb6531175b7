/* pareto.c — the Pareto front of (memory, rank_by figure) by one sort and
 * one sweep: in order of x, a point is optimal when no earlier point (x no
 * greater) has a y no greater, with one of the two strictly smaller. */
#include <stdlib.h>

#include "sweep/pareto.h"

typedef struct {
    double x, y;
    size_t i;
} point;

static int cmp_point(const void *a, const void *b)
{
    const point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

pe_status pareto_mark(const double *x, const double *y, const bool *eligible, size_t n,
                      bool *optimal, size_t *count, pe_error *err)
{
    *count = 0;
    point *pts = malloc((n ? n : 1) * sizeof *pts);
    if (!pts)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory finding the Pareto front");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        optimal[i] = false;
        if (eligible[i])
            pts[m++] = (point){x[i], y[i], i};
    }
    qsort(pts, m, sizeof *pts, cmp_point);
    /* Groups of equal x: the group's least y (its first point) and the
     * points equal to it are optimal unless an earlier group (smaller x)
     * reached a y no greater; the rest of the group is dominated by the
     * group's first point. */
    double best_y = 0;
    bool any = false;
    for (size_t g = 0; g < m;) {
        size_t end = g;
        while (end < m && pts[end].x == pts[g].x)
            end++;
        double y0 = pts[g].y;
        if (!any || y0 < best_y)
            for (size_t k = g; k < end && pts[k].y == y0; k++) {
                optimal[pts[k].i] = true;
                (*count)++;
            }
        if (!any || y0 < best_y)
            best_y = y0;
        any = true;
        g = end;
    }
    free(pts);
    return PE_OK;
}

pe_status pareto_rows(const pe_row *rows, size_t n, const pe_rank_order *order, bool *optimal,
                      size_t *count, pe_error *err)
{
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    bool *ok = malloc(n ? n : 1);
    pe_status st = PE_OK;
    if (!x || !y || !ok) {
        *count = 0;
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory finding the Pareto front");
    }
    for (size_t i = 0; st == PE_OK && i < n; i++) {
        ok[i] = rows[i].result.status == PE_STATUS_OK;
        x[i] = rows[i].result.mem_total_gib;
        y[i] = ok[i] ? rank_pareto_value(order, &rows[i].result) : 0;
    }
    if (st == PE_OK)
        st = pareto_mark(x, y, ok, n, optimal, count, err);
    free(x);
    free(y);
    free(ok);
    return st;
}
