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

/* S6: the interval's δ−, δ+ once per scenario. The GPU's own when it has them
 * and the framework is one its runs used (no framework: the refined model's
 * defaults, which the calibration runs without a framework ran under); the
 * stated default otherwise; none in textbook mode. */
void step_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_gpu *g = &sc->cluster.gpu;
    const bool framework_ok = !sc->framework.present || sc->framework.calibrated;
    if (sc->fidelity != PE_FIDELITY_REFINED) {
        ctx->interval_source = PE_INTERVAL_NONE;
    } else if (g->has_step_time_interval && framework_ok) {
        ctx->interval_source = PE_INTERVAL_GPU;
        ctx->interval_below = g->step_time_below;
        ctx->interval_above = g->step_time_above;
    } else {
        ctx->interval_source = PE_INTERVAL_DEFAULT;
        ctx->interval_below = PE_INTERVAL_DEFAULT_BELOW;
        ctx->interval_above = PE_INTERVAL_DEFAULT_ABOVE;
    }
    /* M23: the memory peak's δ−, δ+ are the framework preset's when it has
     * them (a framework allocates the memory, whatever the GPU), else S6's
     * stated default; none in textbook mode. */
    const pe_framework *fw = &sc->framework;
    if (sc->fidelity != PE_FIDELITY_REFINED) {
        ctx->mem_interval_source = PE_INTERVAL_NONE;
    } else if (fw->present && fw->has_mem_peak_interval) {
        ctx->mem_interval_source = PE_INTERVAL_FRAMEWORK;
        ctx->mem_interval_below = fw->mem_peak_below;
        ctx->mem_interval_above = fw->mem_peak_above;
    } else {
        ctx->mem_interval_source = PE_INTERVAL_DEFAULT;
        ctx->mem_interval_below = PE_INTERVAL_DEFAULT_BELOW;
        ctx->mem_interval_above = PE_INTERVAL_DEFAULT_ABOVE;
    }
}
extern inline double step_cost(double gpu_hours, double cost_per_gpu_hour);
extern inline bool step_over_target(double figure, double target);
