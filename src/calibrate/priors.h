/* priors.h — calibration with priors (docs/model.md §12, "Calibration
 * across runs", "With priors"): the measured value and width of each
 * number a fit may free, read from a priors file; the regularised loss
 * (the runs' log errors in units of PE_PRIOR_RUN_SIGMA, plus each number's
 * distance from its measured value in prior widths, squared); whether the
 * runs constrain a number (the rise of the runs' part of the loss when the
 * number moves by its prior width, against PE_PRIOR_CONSTRAINED); and the
 * Nelder–Mead simplex the fits minimise with. */
#ifndef PLANEVAL_PRIORS_H
#define PLANEVAL_PRIORS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

#define PE_PRIOR_NUMBERS 7 /* = PE_FIT_NUMBERS, in fit_number_name's order */
#define PE_PRIOR_BASIS_MAX 160
/* The spread of one run's log step-time error the prior is weighed
 * against: 5%, about what the refined model reaches on the runs it was
 * fitted to (docs/model.md §13: in-sample 1.6-3.2%, leave-one-out 3-4%). */
#define PE_PRIOR_RUN_SIGMA 0.05
/* The runs constrain a number when moving it by one prior width raises
 * their part of the loss (χ² in units of PE_PRIOR_RUN_SIGMA) by at least
 * this much — as much as the prior's own term rises for the same move. */
#define PE_PRIOR_CONSTRAINED 1.0

typedef struct {
    bool has[PE_PRIOR_NUMBERS];
    double value[PE_PRIOR_NUMBERS]; /* μ: the measurement-derived value */
    double width[PE_PRIOR_NUMBERS]; /* σ > 0: from the measurements' spread */
    char basis[PE_PRIOR_NUMBERS][PE_PRIOR_BASIS_MAX]; /* where μ and σ come from */
    int line[PE_PRIOR_NUMBERS];     /* the priors file's line, for messages */
} pe_priors;

/* Read a priors file: CSV, header number,value,width,basis; number one of
 * names[0..PE_PRIOR_NUMBERS) (each at most once), value inside [lo, hi] of
 * that number, width > 0, basis not empty. */
pe_status priors_read(const char *path, const char *const *names, const double *lo,
                      const double *hi, pe_priors *out, pe_error *err);

/* Σ_i (log_err[i]/PE_PRIOR_RUN_SIGMA)² over n runs + Σ_k ((x[k] − μ_k)/σ_k)²
 * over the k < n_x with has[k] (x, mu, sigma, has indexed alike). */
double prior_loss(const double *log_err, size_t n, const double *x, const double *mu,
                  const double *sigma, const bool *has, int n_x);

/* The runs' part of the loss a prior width σ either side of the optimum:
 * (d_minus + d_plus − 2·d_zero)/2, the quadratic rise for a move of σ;
 * one-sided 2·... forms are the caller's (a bound in the way): pass the
 * reachable side twice. */
double prior_curvature(double d_minus, double d_zero, double d_plus);
bool prior_constrained(double curvature);

/* Nelder–Mead (reflection 1, expansion 2, contraction ½, shrink ½; 400
 * iterations) over n ≤ PE_PRIOR_NUMBERS values from start with the first
 * simplex's steps; f(x, arg) returns the loss (HUGE_VAL outside its box).
 * best: the best vertex. Deterministic. */
void prior_simplex(int n, double (*f)(const double *x, const void *arg), const void *arg,
                   const double *start, const double *step, double *best);

#endif
