/* step_result.h — docs/model.md §8 S1–S5 and §9 budgets and status: the
 * report row of a plan from its detail record (valid plans), or the
 * identity figures of an invalid one. Inline: it runs for every plan. */
#ifndef PLANEVAL_MODEL_STEP_RESULT_H
#define PLANEVAL_MODEL_STEP_RESULT_H

#include <float.h>

#include "model/comm.h"
#include "model/detail.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/pipeline.h"
#include "model/run.h"
#include "model/step.h"

/* §9 interventions: z > 0, recompute, t > 1, p > 1, c > 1 count 1 each */
ALWAYS_INLINE int step_interventions(const pe_plan *pl)
{
    return (pl->zero > 0) + (pl->recompute != PE_RECOMPUTE_NONE) + (pl->tp > 1) + (pl->pp > 1) +
           (pl->cp > 1);
}

/* act_total_gib: A_layer(t = c = 1, no sp, recompute none, the plan's b, the
 * model's attention)·L / 2^30; with MoE layers (L − n)·A4 + n·A4′ */
ALWAYS_INLINE double step_act_total_gib(const pe_eval_ctx *ctx, double b)
{
    if (ctx->moe.on)
        return b * ctx->moe.act_total_per_seq / PE_GIB;
    return act_layer(ctx->s, b, 1.0, 0, ctx->act_rep, ctx->act_par, ctx->act_att) * ctx->L /
           PE_GIB;
}

/* The row of an invalid plan: its failed rules and identity figures. */
ALWAYS_INLINE void step_invalid(const pe_eval_ctx *ctx, const pe_plan *pl, uint32_t failed,
                                int64_t m, pe_result *r)
{
    *r = (pe_result){.status = PE_STATUS_INVALID,
                     .failed = failed,
                     .gpus = ctx->gpus,
                     .microbatches = m,
                     .interventions = step_interventions(pl),
                     .state_total_gib = ctx->state_total_gib,
                     .act_total_gib = step_act_total_gib(ctx, (double)pl->micro_batch)};
}

/* T2 the whole run's targets.gpu_hours and targets.cost a valid plan breaks
 * (set only with targets, which need the tokens; cost also the price). */
ALWAYS_INLINE uint32_t step_run_budgets(const pe_eval_ctx *ctx, const pe_budgets *bu, double days)
{
    if (!bu->has_gpu_hours && !bu->has_cost)
        return 0;
    const double gpu_hours = step_gpu_hours(ctx->N, days); /* S5 */
    return (uint32_t)(bu->has_gpu_hours && step_over_target(gpu_hours, bu->gpu_hours)) *
               PE_FAIL_GPU_HOURS |
           (uint32_t)(bu->has_cost &&
                      step_over_target(step_cost(gpu_hours, ctx->scenario->cluster.cost_per_gpu_hour),
                                       bu->cost)) *
               PE_FAIL_COST;
}

/* §9 the budgets a valid plan breaks (PE_FAIL_* bits). */
ALWAYS_INLINE uint32_t step_budgets(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_detail *w,
                                    double mem_tot, double step, double mfu, double days)
{
    const pe_budgets *bu = &ctx->scenario->budgets;
    const bool has_days = ctx->scenario->training.has_tokens;
    const int host_over = pl->offload_optimizer && ctx->host_mem_bytes > 0.0 &&
                          w->off.host > ctx->host_mem_bytes; /* M8 */
    return (uint32_t)host_over * PE_FAIL_HOST_MEMORY |
           (uint32_t)!mem_fits(mem_tot, ctx->budget_bytes) * PE_FAIL_MEMORY | /* M6 */
           (uint32_t)(bu->has_step_time_s && step > bu->step_time_s) * PE_FAIL_STEP_TIME |
           (uint32_t)(bu->has_train_days && has_days && days > bu->train_days) * PE_FAIL_TRAIN_DAYS |
           (uint32_t)(bu->has_min_mfu && mfu < bu->min_mfu) * PE_FAIL_MIN_MFU |
           step_run_budgets(ctx, bu, days);
}

/* S7 and §15 R1–R9: the whole run's price, goodput, wall time and energy,
 * from the row's step, compute time and days (filled in first) and the
 * memory stage's checkpointed state (weights + optimizer bytes). */
ALWAYS_INLINE void step_result_whole_run(const pe_eval_ctx *ctx, double state_bytes,
                                         double compute_s, pe_result *r)
{
    const bool has_days = r->has_train_days;
    const double days = r->train_days, step = r->step_time_s;
    const double goodput = run_plan_goodput(ctx, state_bytes); /* R4–R8 */
    const double eff_days = run_effective_days(days, goodput);  /* R9 */
    /* a run whose goodput underflows to 0 never ends: no days, no energy */
    const bool has_eff = has_days && eff_days <= DBL_MAX;
    const double energy_mwh = /* R1–R3 */
        ctx->run.energy_on && has_eff ? run_energy_mwh(ctx->run.nodes,
                                    run_node_power(ctx->run.G,
                                                   run_gpu_power(ctx->run.idle_w, ctx->run.tdp_w,
                                                                 compute_s, step),
                                                   ctx->run.other_w),
                                    ctx->run.pue, eff_days)
                   : 0.0;
    r->has_cost = has_days && ctx->scenario->cluster.has_cost_per_gpu_hour;
    r->cost = has_days ? step_cost(step_gpu_hours(ctx->N, days),
                                   ctx->scenario->cluster.cost_per_gpu_hour) /* S7 */
                       : 0.0;
    r->has_energy = ctx->run.energy_on && has_eff && energy_mwh <= DBL_MAX;
    r->energy_mwh = energy_mwh;
    r->goodput = goodput;
    r->has_effective_train_days = has_eff;
    r->effective_train_days = has_eff ? eff_days : 0.0;
}

/* §8 S1–S5 and §9 budgets and status: the report row of a valid plan. The
 * expert-TP time joins tp_comm_s (X11) and the EP all-to-all is S1's eighth
 * term (S1′); both are 0.0 for a dense model, and x + 0.0 == x. */
ALWAYS_INLINE void step_result(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                               const pe_detail *w, pe_result *r)
{
    const int ts = w->time_stage, ms = w->mem_stage, moe = q->moe;
    const int64_t stage_at[3] = {0, pl->pp - 1, w->mid_stage}; /* candidate → pipeline stage */
    const double md = q->m_d;
    const double compute_s = md * (w->tau_f[ts] + w->tau_b[ts]);
    const double etp_comm_s = moe ? md * (w->moe.chi_etp_f[ts] + w->moe.chi_etp_b[ts]) : 0.0;
    const double ep_comm_s = moe ? md * (w->moe.chi_ep_f[ts] + w->moe.chi_ep_b[ts]) : 0.0;
    const double a12 = moe && w->moe.n_moe[ms] > 0 ? w->moe.a12 : 0.0;
    const double tp_comm_s = md * (w->chi_tp_f + w->chi_tp_b) + etp_comm_s;
    const double cp_comm_s = md * (w->chi_cp_f + w->chi_cp_b);
    const double step = step_time(compute_s, tp_comm_s, cp_comm_s, w->bubble, w->chi_pp,
                                  w->chi_dp, w->optimizer) +
                        ep_comm_s; /* S1′ */
    const double comm = step_comm(tp_comm_s, cp_comm_s, w->chi_pp, w->chi_dp) + ep_comm_s;
    const double tokens_per_s = step_tokens_per_s(ctx->tokens_per_step, step); /* S4 */
    const double mfu = step_utilisation(ctx->F_model, step, ctx->N, ctx->peak);
    const bool has_days = ctx->scenario->training.has_tokens;
    const double days =
        has_days ? step_train_days(ctx->scenario->training.tokens, tokens_per_s) : 0.0; /* S5 */
    const double mem_tot = w->total[ms];
    const uint32_t failed = step_budgets(ctx, pl, w, mem_tot, step, mfu, days);
    const double budget_gib = ctx->budget_bytes / PE_GIB;
    const double mem_gib = mem_tot / PE_GIB;
    /* §12 M9–M13: the other column is what the peak phase holds beyond the
     * state and the stored activations, the reserve the device total beyond
     * the peak, so the v1 columns still add up to mem_total_gib */
    const bool phases = ctx->mem_phases;
    const double peak = phases ? w->peak[ms] : mem_tot - ctx->reserve_bytes;
    const double other = phases ? peak - (w->m1[ms] + w->m2[ms] + w->m3[ms] + w->a6[ms])
                                : w->m4 + w->a7[ms] + w->a8[ms] + a12;
    const double reserve = phases ? mem_tot - peak : ctx->reserve_bytes;
    *r = (pe_result){
        .status = (failed & (PE_FAIL_MEMORY | PE_FAIL_HOST_MEMORY)) ? PE_STATUS_OVER_MEMORY
                  : failed                  ? PE_STATUS_OVER_TIME
                                            : PE_STATUS_OK,
        .failed = failed, .gpus = ctx->gpus, .microbatches = q->m,
        .worst_stage = (int)stage_at[ms],
        .mem_weights_gib = w->m1[ms] / PE_GIB, .mem_grads_gib = w->m2[ms] / PE_GIB,
        .mem_optimizer_gib = w->m3[ms] / PE_GIB, .mem_activations_gib = w->a6[ms] / PE_GIB,
        .mem_other_gib = other / PE_GIB,
        .mem_reserve_gib = reserve / PE_GIB, .mem_total_gib = mem_gib,
        .mem_budget_gib = budget_gib, .mem_headroom_gib = budget_gib - mem_gib,
        .time_stage = (int)stage_at[ts],
        .compute_s = compute_s, .tp_comm_s = tp_comm_s, .cp_comm_s = cp_comm_s,
        .bubble_s = w->bubble, .pp_comm_s = w->chi_pp, .dp_comm_s = w->chi_dp,
        .optimizer_s = w->optimizer, .step_time_s = step,
        .comm_fraction = comm / step,                                              /* S2 */
        .bubble_fraction = pipe_bubble_fraction(w->bubble, md, w->t_f[ts], w->t_b[ts]), /* §7 */
        .bound = step_bound(compute_s, comm, w->bubble, w->optimizer, w->dp_critical, q->off,
                            ctx->bound_by_critical_path), /* S3, S3′ */
        .bound_shift_s = w->dp_critical,
        .tokens_per_s = tokens_per_s, .mfu = mfu,
        .hfu = step_utilisation(w->f_hw, step, ctx->N, ctx->peak), /* F4, F27 */
        .tflops_per_gpu = step_tflops_per_gpu(ctx->F_model, step, ctx->N),
        .has_train_days = has_days, .train_days = days,
        .gpu_hours = has_days ? step_gpu_hours(ctx->N, days) : 0.0,
        .interventions = step_interventions(pl), .state_total_gib = ctx->state_total_gib,
        .act_total_gib = step_act_total_gib(ctx, q->b),
        .tier_tp = comm_tier(&w->g_tp), .tier_cp = comm_tier(&w->g_cp),
        .tier_dp = comm_tier(&w->g_dp), .tier_pp = comm_tier(&w->g_pp),
        .ep_comm_s = ep_comm_s,
        .host_mem_gib = pl->offload_optimizer ? w->off.host / PE_GIB : 0.0,
        .mem_experts_gib = moe ? w->moe.mem_experts[ms] / PE_GIB : 0.0,
        .tier_ep = moe ? comm_tier(&w->moe.g_ep) : PE_TIER_NONE,
        .has_interval = ctx->interval_source != PE_INTERVAL_NONE,
        .step_time_lo_s = step_interval_lo(step, ctx->interval_below), /* S6 */
        .step_time_hi_s = step_interval_hi(step, ctx->interval_above),
        .mem_peak_gib = peak / PE_GIB,                                  /* M9 */
        .mem_reserved_gib = phases ? w->reserved[ms] / PE_GIB : mem_gib, /* M13 */
        .mem_peak_phase = phases ? w->peak_phase[ms] : PE_PHASE_SUM,
        .has_mem_interval = ctx->mem_interval_source != PE_INTERVAL_NONE,
        .mem_peak_lo_gib = mem_interval_lo(peak / PE_GIB, ctx->mem_interval_below), /* M23 */
        .mem_peak_hi_gib = mem_interval_hi(peak / PE_GIB, ctx->mem_interval_above),
    };
    step_result_whole_run(ctx, w->m1[ms] + w->m3[ms], compute_s, r);
}

#endif
