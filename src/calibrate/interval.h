/* interval.h — S6's prediction interval of one GPU type from the
 * leave-one-out residuals of its calibration (docs/model.md §12,
 * "Prediction intervals"): what `planeval calibrate RUNS.csv` prints as the
 * preset's step_time_below, step_time_above and step_time_interval_runs. */
#ifndef PLANEVAL_INTERVAL_H
#define PLANEVAL_INTERVAL_H

#include <stddef.h>

#include "calibrate/fit.h"

#define PE_INTERVAL_LEVEL 0.80     /* the interval's nominal coverage */
#define PE_INTERVAL_FLOOR 0.02     /* δ± at least 2%: a floor, not a measurement */
#define PE_INTERVAL_MIN_RUNS 2     /* fewer residuals: no interval (the default stays) */

typedef struct {
    size_t runs;        /* n: leave-one-out residuals */
    double q_lo, q_hi;  /* their 10% and 90% quantiles, u = ln(measured/predicted) */
    double widen;       /* w = t(0.90, n−1)·√(1 + 1/n) / z(0.90) */
    double below, above; /* δ− = 1 − e^min(w·q_lo, ln(1 − floor)), δ+ = e^max(w·q_hi, ln(1 + floor)) − 1 */
} pe_interval_fit;

/* The one place that reads calibrate's leave-one-out output: u_i =
 * ln(measured/predicted without run i) = −ln(1 + loo_error_pct/100) of each
 * fit row, into u (room for f->count); returns how many. */
size_t interval_residuals(const pe_fit *f, double *u);

/* The p-quantile of n sorted values, linear between order statistics
 * (h = (n − 1)·p: Hyndman and Fan's type 7, R's and NumPy's default). */
double interval_quantile(const double *sorted, size_t n, double p);

/* t(0.90, ν) / z(0.90): how much wider a one-sided 90% Student-t quantile
 * is than the normal one at ν degrees of freedom (ν ≥ 1; 1 beyond 30). */
double interval_t_ratio(size_t nu);

/* S6's numbers from residuals u[0..n) (sorted in place); false when n <
 * PE_INTERVAL_MIN_RUNS. */
bool interval_from_residuals(double *u, size_t n, pe_interval_fit *out);

/* interval_residuals, then interval_from_residuals: false when too few. */
bool interval_fit(const pe_fit *f, pe_interval_fit *out);

#endif
