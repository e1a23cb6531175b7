/* moe.h — issue 11's mixture-of-experts equations (docs/design/moe.md):
 * scenario-level constants (moe_prepare), the layers of a stage that are
 * MoE layers (P9), validity rules V9–V15, and the per-plan inline pieces of
 * expert memory (P16, A9–A12) and time (X9–X11). A dense model never calls
 * the per-plan functions: evaluate.c branches on ctx->moe.on once. */
#ifndef PLANEVAL_MODEL_MOE_H
#define PLANEVAL_MODEL_MOE_H

#include <stdint.h>

#include "core/scenario.h"
#include "model/evaluate.h"

/* Fill ctx->moe from the scenario; for an MoE model also replace F_model
 * (F3', active parameters only), F_hw and state_total_gib (P13). */
void moe_prepare(const pe_scenario *s, pe_eval_ctx *ctx);

/* P9 MoE layers on pipeline stage j holding Lj layers in v model chunks,
 * the first stage L0 layers and the middle ones Lmid (even split: both
 * L/p): chunk r starts at r·L/v + [j>0]·L0/v + max(0, j−1)·Lmid/v. */
double moe_stage_layers(const pe_model *m, int64_t v, int64_t L0, int64_t Lmid, int64_t j,
                        int64_t Lj);

/* V9–V15 bits (PE_FAIL_V9…) for plan pl; 0 for a dense plan with ep = 1. */
uint32_t moe_check_rules(const pe_eval_ctx *ctx, const pe_plan *pl);

/* P16 expert parameters per GPU on a stage: n_moe·N_expert/(ep·etp) */
inline double moe_expert_params(double n_moe, double n_expert, double ep, double etp)
{
    return n_moe * n_expert / (ep * etp);
}

/* X9 bytes per GPU of one all-to-all: b·s'·k·ρ·h·β/t (β = β_d dispatch, 2 combine) */
inline double moe_a2a_bytes(double b, double s_local, double k, double rho, double h, double beta,
                            double t)
{
    return b * s_local * k * rho * h * beta / t;
}

/* A11 routed token copies per GPU and micro-batch:
 * b·s'·k·ρ/t·(etp·β_in·h + (gelu ? 4 : 6)·f_e) */
inline double moe_act_routed(double b, double s_local, double k, double rho, double t,
                             double etp, double beta_in, double h, double inner)
{
    return b * s_local * k * rho / t * (etp * beta_in * h + inner);
}

/* A12 dispatch/permutation buffers of one layer: b·s'·k·ρ·h·(β_d + 2·etp)/t */
inline double moe_act_dispatch(double b, double s_local, double k, double rho, double h,
                               double beta_d, double etp, double t)
{
    return b * s_local * k * rho * h * (beta_d + 2.0 * etp) / t;
}

/* A4' one MoE layer: s'·b·[(sp ? (rep + par_att + 8E + par_sh)/t
 *                          : rep + (par_att + par_sh)/t + 8E) + att/t] + A_routed */
inline double moe_act_layer(double s_local, double b, double t, int sp, double rep,
                            double par_att, double router, double par_sh, double att,
                            double routed)
{
    return s_local * b *
               ((sp ? (rep + par_att + router + par_sh) / t
                    : rep + (par_att + par_sh) / t + router) +
                att / t) +
           routed;
}

#endif
