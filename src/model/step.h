/* step.h — docs/model.md §8, step time and derived figures S1–S5. */
#ifndef PLANEVAL_MODEL_STEP_H
#define PLANEVAL_MODEL_STEP_H

#include "model/evaluate.h"

/* S1 step_time_s: the seven columns added left to right in report order. */
#define PE_TEXT_S1 {"S1", "step_time_s", "the seven columns added left to right", "s", "spec"}
inline double step_time(double compute_s, double tp_comm_s, double cp_comm_s, double bubble_s,
                        double pp_comm_s, double dp_comm_s, double optimizer_s)
{
    return compute_s + tp_comm_s + cp_comm_s + bubble_s + pp_comm_s + dp_comm_s + optimizer_s;
}

/* S2 and S3: the four communication columns summed */
#define PE_TEXT_S2 {"S2", "comm_fraction", "(tp + cp + pp + dp comm) / step", "", "spec"}
inline double step_comm(double tp_comm_s, double cp_comm_s, double pp_comm_s, double dp_comm_s)
{
    return tp_comm_s + cp_comm_s + pp_comm_s + dp_comm_s;
}

/* S3 bound (textbook, the spec's): the largest of compute_s, the exposed
 * communication columns and bubble_s, a tie to the earlier.
 * S3′ (critical_path, the refined model): the largest of the step's parts on
 * its critical path, a tie to the earlier: compute (compute_s less
 * `critical`, X4's windows that run under a longer collective),
 * communication (the exposed columns plus `critical`), bubble, and the
 * optimizer step, named host when it is offload's (X12) */
inline pe_bound step_bound(double compute_s, double comm_s, double bubble_s, double optimizer_s,
                           double critical, bool host, bool critical_path)
{
    const double shift = critical_path ? critical : 0.0;
    const double part[4] = {compute_s - shift, comm_s + shift, bubble_s, optimizer_s};
    const int parts = critical_path ? 4 : 3;
    int k = 0;
    for (int i = 1; i < parts; i++)
        k = part[i] > part[k] ? i : k;
    return k == 3 && host ? PE_BOUND_HOST : (pe_bound)k;
}

/* S4 tokens_per_s = B·s / step_time */
#define PE_TEXT_S4_TOKENS {"S4:tokens", "tokens_per_s", "B·s / step", "tokens/s", "spec"}
inline double step_tokens_per_s(double tokens_per_step, double step_s)
{
    return tokens_per_step / step_s;
}

/* S4 mfu = F_model/(step·N·peak); hfu the same with F_hw */
#define PE_TEXT_S4_MFU {"S4:mfu", "mfu", "F_model / (step·N·peak)", "", "Narayanan §5.1"}
inline double step_utilisation(double flops, double step_s, double gpus, double peak)
{
    return flops / (step_s * gpus * peak);
}

/* S4 tflops_per_gpu = F_model/(step·N)/10^12 */
inline double step_tflops_per_gpu(double f_model, double step_s, double gpus)
{
    return f_model / (step_s * gpus) / 1e12;
}

/* S5 train_days = tokens / tokens_per_s / 86400 */
#define PE_TEXT_S5 {"S5", "train_days", "tokens / tokens_per_s / 86400", "days", "spec"}
inline double step_train_days(double tokens, double tokens_per_s)
{
    return tokens / tokens_per_s / 86400.0;
}

/* S5 gpu_hours = N·train_days·24 */
inline double step_gpu_hours(double gpus, double train_days) { return gpus * train_days * 24.0; }

/* S6 the 80% prediction interval of step_time_s (refined model): lo =
 * step·(1 − δ−), hi = step·(1 + δ+), δ± ≥ 0, so lo ≤ step ≤ hi. δ± are the GPU
 * preset's (calibrate: leave-one-out residuals of its runs) when the scenario's
 * framework is one they were measured on, else the stated default below. */
#define PE_TEXT_S6                                                                                 \
    {"S6", "step_time_lo_s, step_time_hi_s", "step·(1 − δ−), step·(1 + δ+)", "s",                 \
     "calibrate's leave-one-out residuals (docs/model.md §12)"}
inline double step_interval_lo(double step_s, double below) { return step_s * (1.0 - below); }
inline double step_interval_hi(double step_s, double above) { return step_s * (1.0 + above); }

/* S6's default where no run measured the GPU and framework: a ratio of 1.5
 * either way (δ− = 1/3, δ+ = 1/2). Not a measurement: a stated width, wider
 * than the 17% mean error of the refined model on published runs it was
 * never fitted to (docs/validation.md). */
#define PE_INTERVAL_DEFAULT_BELOW (1.0 / 3.0)
#define PE_INTERVAL_DEFAULT_ABOVE 0.5
/* S7 cost = gpu_hours · cost_per_gpu_hour: the run's rental price (a GPU-hour's list
 * price, cluster.cost_per_gpu_hour), only with training.tokens and a price */
#define PE_TEXT_S7 \
    {"S7", "cost", "gpu_hours · cost_per_gpu_hour", "currency", "gpu_hours (S5) at a list price"}
inline double step_cost(double gpu_hours, double cost_per_gpu_hour)
{
    return gpu_hours * cost_per_gpu_hour;
}

/* T2 over = figure > target: a run-level target (targets.gpu_hours, targets.cost,
 * and targets.days as budgets.train_days) is met at equality, as every §9 budget */
#define PE_TEXT_T2                                                                                \
    {"T2", "over_target", "figure > target (gpu_hours, cost)", "bool",                            \
     "§9 budgets applied to S5 gpu_hours and S7 cost"}
inline bool step_over_target(double figure, double target) { return figure > target; }

#endif
