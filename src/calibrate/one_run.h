/* one_run.h — calibration against one measured run of one plan: the
 * efficiency (flops_efficiency, or gemm_efficiency when the GPU times
 * matrix multiplies by shape, docs/model.md F8) that makes the model's
 * step time the measured one, and the reserve_gib that makes its peak
 * memory the measured one. Step time never increases with the efficiency
 * (compute time ∝ 1/e; exposed communication max(0, comm − overlap·window)
 * grows by at most what the window shrinks, since overlap ≤ 1), so
 * bisection on (0, 1] finds it; the reserve follows from M5 directly (the
 * predicted parts plus R). */
#ifndef PLANEVAL_ONE_RUN_H
#define PLANEVAL_ONE_RUN_H

#include <stdbool.h>

#include "core/error.h"
#include "core/scenario.h"

typedef struct {
    double step_s;   /* the measured step time; 0: not given */
    double peak_gib; /* the measured peak memory per GPU; 0: not given */
} pe_measured_run;

typedef struct {
    const char *key;                   /* the efficiency solved for */
    double e_now, step_now, mem_now;   /* the model as the scenario has it */
    bool has_e;                        /* the step time was given */
    double e, step_at_e, mfu_at_e;     /* the efficiency, and the model with it */
    bool has_reserve;                  /* the peak memory was given */
    double reserve, parts;             /* reserve_gib; the predicted parts, GiB */
} pe_one_run_fit;

/* Calibrate plan p of s (plan_ref: how the user named it, for messages)
 * to the measured run m. */
pe_status calibrate_one_run(const pe_scenario *s, const pe_plan *p, const char *plan_ref,
                            const pe_measured_run *m, pe_one_run_fit *out, pe_error *err);

#endif
