/* one_run.c — the efficiency and reserve of one measured run (one_run.h). */
#include <math.h>
#include <string.h>

#include "calibrate/one_run.h"
#include "model/evaluate.h"

/* The efficiency solved for: flops_efficiency (F6), or gemm_efficiency
 * when the GPU times matrix multiplies by shape (docs/model.md F8). */
static const char *efficiency_key(const pe_scenario *s)
{
    return s->cluster.gpu.has_gemm_efficiency ? "gemm_efficiency" : "flops_efficiency";
}

/* Step time with that efficiency = e (a shallow copy of the scenario). */
static double step_at(const pe_scenario *s, const pe_plan *p, double e, pe_result *r)
{
    pe_scenario copy = *s;
    if (copy.cluster.gpu.has_gemm_efficiency)
        copy.cluster.gpu.gemm_efficiency = e;
    else
        copy.cluster.gpu.flops_efficiency = e;
    pe_eval_ctx ctx;
    evaluate_prepare(&copy, &ctx);
    evaluate_plan(&ctx, p, r);
    return r->step_time_s;
}

/* The efficiency with which the model's step time is the measured one. */
static pe_status solve_efficiency(const pe_scenario *s, const pe_plan *p, const char *plan_ref,
                                  double measured, pe_one_run_fit *out, pe_result *r,
                                  pe_error *err)
{
    double at_one = step_at(s, p, 1.0, r);
    if (at_one > measured)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "even at %s 1 the model predicts %.6g s for plan '%s', "
                       "more than the measured %.6g s: its communication, bubble or "
                       "optimizer terms (%.6g s of it is not compute) over-estimate this "
                       "run; check the interconnect figures and overlap",
                       out->key, at_one, plan_ref, measured, at_one - r->compute_s);
    double lo = 1e-9, hi = 1.0; /* step(lo) ≥ measured ≥ step(hi) */
    const double at_lo = step_at(s, p, lo, r);
    if (at_lo < measured)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "even at %s %g the model predicts only %.6g s for plan '%s', less "
                       "than the measured %.6g s: no efficiency reproduces it (is "
                       "--step-time the seconds of one step?)",
                       out->key, lo, at_lo, plan_ref, measured);
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (step_at(s, p, mid, r) > measured)
            lo = mid;
        else
            hi = mid;
    }
    out->has_e = true;
    out->e = hi;
    step_at(s, p, out->e, r);
    out->step_at_e = r->step_time_s;
    out->mfu_at_e = r->mfu;
    return PE_OK;
}

pe_status calibrate_one_run(const pe_scenario *s, const pe_plan *p, const char *plan_ref,
                            const pe_measured_run *m, pe_one_run_fit *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    pe_result r;
    out->key = efficiency_key(s);
    out->e_now = s->cluster.gpu.has_gemm_efficiency ? s->cluster.gpu.gemm_efficiency
                                                    : s->cluster.gpu.flops_efficiency;
    out->step_now = step_at(s, p, out->e_now, &r);
    out->mem_now = r.mem_total_gib;
    if (r.status == PE_STATUS_INVALID) {
        pe_eval_ctx ctx;
        evaluate_prepare(s, &ctx);
        char reason[1024];
        evaluate_format_reason(&ctx, p, &r, reason, sizeof reason);
        return pe_fail(err, PE_BAD_INPUT, s->file, p->line, p->col,
                       "plan '%s' is invalid (%s): nothing to calibrate", plan_ref, reason);
    }
    if (m->step_s > 0) {
        pe_status st = solve_efficiency(s, p, plan_ref, m->step_s, out, &r, err);
        if (st != PE_OK)
            return st;
    }
    if (m->peak_gib > 0) {
        out->parts = r.mem_total_gib - r.mem_reserve_gib;
        out->reserve = m->peak_gib - out->parts;
        if (out->reserve < 0)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "the model's memory for plan '%s' without the reserve is already "
                           "%.6g GiB, more than the measured peak %.6g GiB: no reserve_gib "
                           "reproduces it (is the measurement the peak of the worst stage?)",
                           plan_ref, out->parts, m->peak_gib);
        out->has_reserve = true;
    }
    return PE_OK;
}
