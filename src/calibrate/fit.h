/* fit.h — the refined model's free numbers of one GPU type fitted to many
 * measured runs (docs/model.md §12, "Calibration across runs"): the runs
 * file (header scenario,plan,column,value[,group]) read and its scenarios
 * loaded, then a least-squares fit on the log error with leave-one-out
 * errors. What `planeval calibrate RUNS.csv` prints is all in pe_fit. */
#ifndef PLANEVAL_FIT_H
#define PLANEVAL_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "calibrate/priors.h"
#include "core/error.h"
#include "core/scenario.h"
#include "input/catalog.h"

#define PE_FIT_NUMBERS 7  /* the numbers a fit may free (fit_number_name) */
#define PE_FIT_MAX_FREE 4 /* at most this many fitted per GPU type */
#define PE_FIT_LABEL_MAX (2 * PE_NAME_MAX + 4)

typedef struct {
    char label[PE_FIT_LABEL_MAX]; /* scenario/plan */
    bool fit;                     /* a fit row; else predicted only */
    double measured, predicted;   /* step time, s */
    double loo_error_pct;         /* fit rows: the error when refitted without it */
    char framework[PE_NAME_MAX];  /* the scenario's framework preset, "" when none */
} pe_fit_run;

typedef struct {
    pe_fit_run *runs; /* in the file's order; owned */
    size_t count;
    int free;                            /* numbers fitted: order[0..free) */
    int order[PE_FIT_NUMBERS];           /* indices of fit_number_name */
    double value[PE_FIT_NUMBERS];        /* every number's value in the fit */
    int counts_tried;                    /* > 0: free chosen by leave-one-out */
    double loo_by_count[PE_FIT_MAX_FREE]; /* mean |error| % fitting 1, 2, ... numbers */
    bool gemm_held;                      /* gemm_efficiency not fitted nor in the preset */
    double gemm_held_value;              /* the value the fit held it at */
    bool remove[PE_FIT_NUMBERS];         /* in the preset, held neutral: to be removed */
    /* with priors (fit_runs_file_priors; docs/model.md §12 "With priors") */
    bool with_priors;
    pe_priors priors;                    /* as read */
    double curvature[PE_FIT_NUMBERS];    /* the runs' χ² rise for a move of one prior width */
    bool held[PE_FIT_NUMBERS];           /* a prior's number the runs do not constrain: at μ */
    /* a framework's number (gemm_rate_scale, F26) fitted alone: every run
     * keeps its GPU preset's numbers, the runs may be of several GPU types
     * but are of one framework, whose preset the lines go under */
    bool framework_fit;
    char framework[PE_NAME_MAX];
} pe_fit;

/* "gemm_efficiency", "elementwise_efficiency", ..., "gemm_rate_scale"
 * (the last: a framework's, F26); "" out of range. */
const char *fit_number_name(int i);

/* Fit the runs file at path (scenario paths relative to it); numbers: the
 * comma-separated names to fit (calibrate --fit), NULL for the default. */
pe_status fit_runs_file(const pe_catalog *catalog, const char *path, const char *numbers,
                        pe_fit *out, pe_error *err);
/* The same, regularised toward the priors of the file at priors_path
 * (priors.h): without --fit the numbers fitted are the priors' ones; each
 * the runs do not constrain is held at its measured value and the rest
 * refitted. priors_path NULL: fit_runs_file. The leave-one-out refits run
 * on `threads` threads (the result is the same for any count). */
pe_status fit_runs_file_priors(const pe_catalog *catalog, const char *path, const char *numbers,
                               const char *priors_path, int threads, pe_fit *out,
                               pe_error *err);
void fit_free(pe_fit *f);

#endif
