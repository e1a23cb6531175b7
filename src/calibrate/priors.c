/* priors.c — calibration with priors (priors.h; docs/model.md §12,
 * "Calibration across runs", "With priors"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/priors.h"
#include "output/csvread.h"

#define N PE_PRIOR_NUMBERS

/* One row of a priors file into out, checked. */
static pe_status prior_row(const pe_csv_table *t, size_t row, const char *path,
                           const char *const *names, const double *lo, const double *hi,
                           pe_priors *out, pe_error *err)
{
    const int line = t->lines[row];
    if (t->cols[row] != 4)
        return pe_fail(err, PE_BAD_INPUT, path, line, 1,
                       "a prior has 4 cells (number,value,width,basis), got %zu", t->cols[row]);
    const char *name = csv_table_cell(t, row, 0);
    int k = -1;
    for (int i = 0; i < N; i++)
        k = strcmp(name, names[i]) == 0 ? i : k;
    if (k < 0)
        return pe_fail(err, PE_BAD_INPUT, path, line, 1,
                       "number must be one of gemm_efficiency, elementwise_efficiency, "
                       "gemm_half_gflop, attention_efficiency, fp8_gemm_efficiency, "
                       "microbatch_overhead_us, got '%s'", name);
    if (out->has[k])
        return pe_fail(err, PE_BAD_INPUT, path, line, 1, "%s has a prior already (line %d)",
                       name, out->line[k]);
    double v[2];
    for (int c = 0; c < 2; c++) {
        const char *cell = csv_table_cell(t, row, (size_t)c + 1);
        char *end;
        v[c] = strtod(cell, &end);
        const char *d = cell + (cell[0] == '-'); /* a sign, then a decimal number */
        const bool decimal = (d[0] >= '0' && d[0] <= '9') || d[0] == '.';
        if (!decimal || *end || !isfinite(v[c]) || strpbrk(cell, "xX"))
            return pe_fail(err, PE_BAD_INPUT, path, line, c + 2, "%s must be a number, got '%s'",
                           c ? "width" : "value", cell);
    }
    if (!(v[0] >= lo[k] && v[0] <= hi[k]))
        return pe_fail(err, PE_BAD_INPUT, path, line, 2, "%s's value must be in [%g, %g], got %g",
                       name, lo[k], hi[k], v[0]);
    if (!(v[1] > 0))
        return pe_fail(err, PE_BAD_INPUT, path, line, 3, "width must be > 0, got %g", v[1]);
    const char *basis = csv_table_cell(t, row, 3);
    if (!basis[0])
        return pe_fail(err, PE_BAD_INPUT, path, line, 4,
                       "basis must say where the value and width come from");
    out->has[k] = true, out->value[k] = v[0], out->width[k] = v[1], out->line[k] = line;
    snprintf(out->basis[k], sizeof out->basis[k], "%s", basis);
    return PE_OK;
}

pe_status priors_read(const char *path, const char *const *names, const double *lo,
                      const double *hi, pe_priors *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    pe_csv_table t;
    pe_status st = csv_table_read(path, &t, err);
    if (st)
        return st;
    const char *want[] = {"number", "value", "width", "basis"};
    for (int c = 0; c < 4 && !st; c++)
        if (t.rows == 0 || strcmp(csv_table_cell(&t, 0, (size_t)c), want[c]) != 0)
            st = pe_fail(err, PE_BAD_INPUT, path, 1, 1,
                         "a priors file starts with the header number,value,width,basis");
    if (!st && t.rows < 2)
        st = pe_fail(err, PE_BAD_INPUT, path, 1, 1, "a priors file needs at least one prior");
    for (size_t row = 1; !st && row < t.rows; row++)
        st = prior_row(&t, row, path, names, lo, hi, out, err);
    csv_table_free(&t);
    return st;
}

double prior_loss(const double *log_err, size_t n, const double *x, const double *mu,
                  const double *sigma, const bool *has, int n_x)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double z = log_err[i] / PE_PRIOR_RUN_SIGMA;
        sum += z * z;
    }
    for (int k = 0; k < n_x; k++)
        if (has[k]) {
            const double z = (x[k] - mu[k]) / sigma[k];
            sum += z * z;
        }
    return sum;
}

double prior_curvature(double d_minus, double d_zero, double d_plus)
{
    return 0.5 * (d_minus + d_plus - 2.0 * d_zero);
}

bool prior_constrained(double curvature) { return curvature >= PE_PRIOR_CONSTRAINED; }

void prior_simplex(int n, double (*f)(const double *x, const void *arg), const void *arg,
                   const double *start, const double *step, double *best)
{
    double p[N + 1][N], fv[N + 1];
    for (int k = 0; k <= n; k++) {
        for (int j = 0; j < N; j++)
            p[k][j] = j < n ? start[j] + (k == j + 1 ? step[j] : 0.0) : 0.0;
        fv[k] = f(p[k], arg);
    }
    for (int it = 0; it < 400; it++) {
        for (int a = 0; a <= n; a++) /* insertion sort by f */
            for (int b = a; b > 0 && fv[b] < fv[b - 1]; b--) {
                double tmp[N], tf = fv[b];
                memcpy(tmp, p[b], sizeof tmp);
                memcpy(p[b], p[b - 1], sizeof tmp);
                memcpy(p[b - 1], tmp, sizeof tmp);
                fv[b] = fv[b - 1], fv[b - 1] = tf;
            }
        double c[N] = {0}, xr[N], xe[N], xc[N];
        for (int k = 0; k < n; k++)
            for (int j = 0; j < N; j++)
                c[j] += p[k][j] / n;
        for (int j = 0; j < N; j++)
            xr[j] = 2 * c[j] - p[n][j], xe[j] = 3 * c[j] - 2 * p[n][j],
            xc[j] = 0.5 * (c[j] + p[n][j]);
        const double fr = f(xr, arg);
        if (fr < fv[0]) {
            const double fe = f(xe, arg);
            memcpy(p[n], fe < fr ? xe : xr, sizeof xr), fv[n] = fe < fr ? fe : fr;
        } else if (fr < fv[n - 1]) {
            memcpy(p[n], xr, sizeof xr), fv[n] = fr;
        } else {
            const double fc = f(xc, arg);
            if (fc < fv[n]) {
                memcpy(p[n], xc, sizeof xc), fv[n] = fc;
            } else {
                for (int k = 1; k <= n; k++) {
                    for (int j = 0; j < N; j++)
                        p[k][j] = 0.5 * (p[0][j] + p[k][j]);
                    fv[k] = f(p[k], arg);
                }
            }
        }
    }
    int b = 0;
    for (int k = 1; k <= n; k++)
        b = fv[k] < fv[b] ? k : b;
    for (int j = 0; j < n; j++)
        best[j] = p[b][j];
}
