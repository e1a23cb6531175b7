/* interval.c — S6's prediction interval from leave-one-out residuals
 * (interval.h; docs/model.md §12, "Prediction intervals").
 *
 * A left-out run's residual is the model's error on a run its fit did not
 * see: the honest sample of how far a prediction of this GPU lands. The
 * interval is their empirical 10% and 90% quantiles, in log ratio, widened
 * for a small sample as a normal prediction interval would be (Student's t
 * over the normal quantile, and √(1 + 1/n) for the sample's own location),
 * and kept at least ±2% either side of the point. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "calibrate/interval.h"

size_t interval_residuals(const pe_fit *f, double *u)
{
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++)
        if (f->runs[i].fit)
            u[n++] = -log1p(f->runs[i].loo_error_pct / 100.0);
    return n;
}

double interval_quantile(const double *sorted, size_t n, double p)
{
    const double h = (double)(n - 1) * p;
    const size_t k = (size_t)floor(h);
    if (k + 1 >= n)
        return sorted[n - 1];
    return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

/* Student's t one-sided 0.90 quantiles, ν = 1 … 30 (any table of the t
 * distribution, e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2), and z(0.90). */
static const double T90[30] = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397,
                               1.383, 1.372, 1.363, 1.356, 1.350, 1.345, 1.341, 1.337,
                               1.333, 1.330, 1.328, 1.325, 1.323, 1.321, 1.319, 1.318,
                               1.316, 1.315, 1.314, 1.313, 1.311, 1.310};
#define Z90 1.2816

double interval_t_ratio(size_t nu)
{
    return nu >= 1 && nu <= 30 ? T90[nu - 1] / Z90 : 1.0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool interval_from_residuals(double *u, size_t n, pe_interval_fit *out)
{
    if (n < PE_INTERVAL_MIN_RUNS)
        return false;
    qsort(u, n, sizeof *u, by_value);
    const double tail = (1.0 - PE_INTERVAL_LEVEL) / 2.0;
    out->runs = n;
    out->q_lo = interval_quantile(u, n, tail);
    out->q_hi = interval_quantile(u, n, 1.0 - tail);
    out->widen = interval_t_ratio(n - 1) * sqrt(1.0 + 1.0 / (double)n);
    const double lo = fmin(out->widen * out->q_lo, log(1.0 - PE_INTERVAL_FLOOR));
    const double hi = fmax(out->widen * out->q_hi, log(1.0 + PE_INTERVAL_FLOOR));
    out->below = -expm1(lo);
    out->above = expm1(hi);
    return true;
}

bool interval_fit(const pe_fit *f, pe_interval_fit *out)
{
    double *u = malloc((f->count ? f->count : 1) * sizeof *u);
    if (!u)
        return false;
    const size_t n = interval_residuals(f, u);
    const bool ok = interval_from_residuals(u, n, out);
    free(u);
    return ok;
}
