/* run.h — docs/model.md §15, the whole run: energy (R1–R3) and goodput
 * under interruptions and checkpoints (R4–R9). Scenario-level numbers are
 * prepared once (run_prepare, prepare.h); the per-plan terms below are
 * inline because they run for every valid plan. Neutral by default: without
 * tdp_w there is no energy_mwh, without failures: and checkpointing: the
 * goodput is 1 and effective_train_days is train_days. */
#ifndef PLANEVAL_MODEL_RUN_H
#define PLANEVAL_MODEL_RUN_H

#include <math.h>

#include "model/evaluate.h"
#include "model/layout.h" /* ALWAYS_INLINE */

/* R1 P_gpu = P_idle + (P_TDP − P_idle)·u, u = compute_s/step_time_s: the board
 * at its rated power while it computes, at P_idle while it waits (P_idle
 * not given: P_TDP, the accounting of Luccioni et al. 2022 and Meta's
 * model cards, board power × GPU-hours). */
#define PE_TEXT_R1 {"R1", "P_gpu", "P_idle + (P_TDP − P_idle)·compute_s/step_time_s", "W", "Luccioni"}
inline double run_gpu_power(double idle_w, double tdp_w, double compute_s, double step_s)
{
    return idle_w + (tdp_w - idle_w) * (compute_s / step_s);
}

/* R2 P_node = G·P_gpu + P_other */
#define PE_TEXT_R2 {"R2", "P_node", "G·P_gpu + P_other", "W", "DGX"}
inline double run_node_power(double G, double gpu_w, double other_w) { return G * gpu_w + other_w; }

/* R3 energy_mwh = (N/G)·P_node·PUE·effective_train_days·24 / 10^6 */
#define PE_TEXT_R3 {"R3", "energy_mwh", "(N/G)·P_node·PUE·effective_train_days·24 / 10^6", "MWh", "Luccioni"}
inline double run_energy_mwh(double nodes, double node_w, double pue, double days)
{
    return nodes * node_w * pue * days * 24.0 / 1e6;
}

/* R4 C = N_total·(β_w + β_o): the state a checkpoint saves, every shard once
 * (weights and optimizer state; gradients are not saved); c_gpu = M1 + M3 of
 * the memory stage, one GPU's shard as the plan shards it */
#define PE_TEXT_R4 {"R4", "checkpoint C", "N_total·(β_w + β_o)", "bytes", "spec"}

/* R5 δ, the time training waits per checkpoint: sync C/W_s; async
 * c_gpu/B_host (the copy to host memory; the write, δ_w = C/W_s, runs behind
 * training) */
#define PE_TEXT_R5 {"R5", "save δ", "sync C/W_s; async c_gpu/B_host, δ_w = C/W_s behind", "s", "spec"}

/* R6 M = 86400/(λ·N): the job's mean time between interruptions, s */
#define PE_TEXT_R6 {"R6", "MTBI M", "86400 / (λ·N)", "s", "Llama3"}
inline double run_mtbi_s(double per_gpu_day, double gpus) { return 86400.0 / (per_gpu_day * gpus); }

/* R7 τ, Daly's optimum interval (Daly 2006, the higher-order estimate):
 * √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, else M. Young's
 * first-order √(2δM) (Young 1974) is what it refines. */
#define PE_TEXT_R7 {"R7", "interval τ", "√(2δM)·[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ (δ < 2M; else M)", "s", "Daly"}
inline double run_daly_interval(double delta, double M)
{
    if (delta >= 2.0 * M)
        return M;
    const double x = delta / (2.0 * M);
    return sqrt(2.0 * delta * M) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta;
}
#define PE_TEXT_R7_YOUNG {"R7:young", "Young's τ", "√(2δM)", "s", "Young"}

/* R8 goodput = τ / (M·e^{R'/M}·(e^{(τ+δ)/M} − 1)): work done over the
 * expected wall time of exponential interruptions with restarts (Daly 2006);
 * R' = R, or R + δ_w for an async save (an interruption during the write
 * falls back to the checkpoint before, to first order δ_w more rework) */
#define PE_TEXT_R8 {"R8", "goodput", "τ / (M·e^(R'/M)·(e^((τ+δ)/M) − 1))", "", "Daly"}
inline double run_goodput(double tau, double delta, double M, double restart_s)
{
    return tau / (M * exp(restart_s / M) * expm1((tau + delta) / M));
}
/* R8 expected lost work per interruption, first order: (τ + δ)/2 (+ δ_w async) */
#define PE_TEXT_R8_LOST {"R8:lost", "lost work", "(τ + δ)/2 (+ δ_w async) per interruption", "s", "Young"}

/* R9 effective_train_days = train_days / goodput */
#define PE_TEXT_R9 {"R9", "effective_train_days", "train_days / goodput", "days", "spec"}
inline double run_effective_days(double days, double goodput) { return days / goodput; }

/* The goodput of one plan (R5, R7, R8): the scenario's when the save is
 * synchronous (prepared once), else from the plan's shard c_gpu bytes. */
ALWAYS_INLINE double run_plan_goodput(const pe_eval_ctx *ctx, double shard_bytes)
{
    if (!ctx->run.goodput_on)
        return 1.0;
    if (!ctx->run.async)
        return ctx->run.goodput_sync;
    const double delta = shard_bytes / ctx->host_bps; /* R5 async */
    const double tau = ctx->run.interval_s > 0.0 ? ctx->run.interval_s
                                                 : run_daly_interval(delta, ctx->run.mtbi_s);
    return run_goodput(tau, delta, ctx->run.mtbi_s, ctx->run.restart_eff_s);
}

#endif
