/* step.c — docs/model.md §8, step time and derived figures S1–S5. */
#include "model/step.h"

extern inline double step_time(double compute_s, double tp_comm_s, double cp_comm_s,
                               double bubble_s, double pp_comm_s, double dp_comm_s,
                               double optimizer_s);
extern inline double step_comm(double tp_comm_s, double cp_comm_s, double pp_comm_s,
                               double dp_comm_s);
extern inline pe_bound step_bound(double compute_s, double comm_s, double bubble_s,
                                  double optimizer_s, double critical, bool host,
                                  bool critical_path);
extern inline double step_tokens_per_s(double tokens_per_step, double step_s);
extern inline double step_utilisation(double flops, double step_s, double gpus, double peak);
extern inline double step_tflops_per_gpu(double f_model, double step_s, double gpus);
extern inline double step_train_days(double tokens, double tokens_per_s);
extern inline double step_gpu_hours(double gpus, double train_days);
extern inline double step_interval_lo(double step_s, double below);
extern inline double step_interval_hi(double step_s, double above);

/* An interval's δ−, δ+: the preset's own when it has them (own), the
 * stated default otherwise; none in textbook mode. */
static void interval_pick(const pe_scenario *sc, bool own, pe_interval_source own_source,
                          double own_below, double own_above, pe_interval_source *source,
                          double *below, double *above)
{
    if (sc->fidelity != PE_FIDELITY_REFINED) {
        *source = PE_INTERVAL_NONE;
    } else if (own) {
        *source = own_source, *below = own_below, *above = own_above;
    } else {
        *source = PE_INTERVAL_DEFAULT;
        *below = PE_INTERVAL_DEFAULT_BELOW, *above = PE_INTERVAL_DEFAULT_ABOVE;
    }
}

/* S6: the step time's δ−, δ+ once per scenario, the GPU's own when it has
 * them and the framework is one its runs used (no framework: the refined
 * model's defaults, which the calibration runs without a framework ran
 * under). M23: the memory peak's, the framework preset's when it has them
 * (a framework allocates the memory, whatever the GPU). */
void step_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_gpu *g = &sc->cluster.gpu;
    const pe_framework *fw = &sc->framework;
    const bool framework_ok = !fw->present || fw->calibrated;
    interval_pick(sc, g->has_step_time_interval && framework_ok, PE_INTERVAL_GPU,
                  g->step_time_below, g->step_time_above, &ctx->interval_source,
                  &ctx->interval_below, &ctx->interval_above);
    interval_pick(sc, fw->present && fw->has_mem_peak_interval, PE_INTERVAL_FRAMEWORK,
                  fw->mem_peak_below, fw->mem_peak_above, &ctx->mem_interval_source,
                  &ctx->mem_interval_below, &ctx->mem_interval_above);
}
extern inline double step_cost(double gpu_hours, double cost_per_gpu_hour);
extern inline bool step_over_target(double figure, double target);
