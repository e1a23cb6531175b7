/* moe.c — issue 11's mixture-of-experts constants and rules (moe.h;
 * equations and sources: docs/design/moe.md §0–§4). */
#include "model/moe.h"

#include "model/compute.h"
#include "model/memory.h"
#include "model/params.h"

extern inline double moe_expert_params(double n_moe, double n_expert, double ep, double etp);
extern inline double moe_a2a_bytes(double b, double s_local, double k, double rho, double h,
                                   double beta, double t);
extern inline double moe_act_routed(double b, double s_local, double k, double rho, double t,
                                    double etp, double beta_in, double h, double inner);
extern inline double moe_act_dispatch(double b, double s_local, double k, double rho, double h,
                                      double beta_d, double etp, double t);
extern inline double moe_act_layer(double s_local, double b, double t, int sp, double rep,
                                   double par_att, double router, double par_sh, double att,
                                   double routed);

/* F3' and F4 of an MoE model: model FLOPs count the active experts with
 * ideal routing and no router (Megatron's num_floating_point_operations);
 * hardware FLOPs add the router GEMM, the (ρ−1) extra rows and recompute. */
static void moe_flops(const pe_scenario *s, const pe_moe_params *mp, pe_eval_ctx *ctx)
{
    const pe_model *m = &s->model;
    pe_moe_ctx *e = &ctx->moe;
    const double h = (double)m->hidden, k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    const double routed = e->k * k_mu * h * e->f_e_d; /* k experts' weights per token */
    const double shared = (double)m->shared_experts * k_mu * h * e->f_e_d;
    const double f_model_m = 2.0 * (mp->att_matmul + shared + routed) + e->F_att; /* F14 */
    e->F_layer_d = compute_layer(m);                                               /* F13 */
    e->F_layer_m = f_model_m + 2.0 * h * e->E + 2.0 * (e->rho - 1.0) * routed;     /* F15 */
    const double Bs = (double)s->training.global_batch * (double)m->seq_len;
    const double n = mp->n_moe, nd = (double)m->layers - mp->n_moe;
    ctx->F_model = 3.0 * Bs * (nd * e->F_layer_d + n * f_model_m + ctx->F_out); /* F3' */
    e->F8_layer_m = 2.0 * (mp->att_matmul + shared + e->rho * routed); /* F16 */
    e->N8_layer_m_dense = mp->att_matmul + shared;
    e->N8_layer_m_expert = e->E * k_mu * h * e->f_e_d;
    const double f_hw = 3.0 * Bs * (nd * e->F_layer_d + n * e->F_layer_m + ctx->F_out);
    ctx->F_hw[PE_RECOMPUTE_NONE] = f_hw;
    ctx->F_hw[PE_RECOMPUTE_SELECTIVE] = f_hw + Bs * (double)m->layers * e->F_att;
    ctx->F_hw[PE_RECOMPUTE_FULL] = f_hw + Bs * (nd * e->F_layer_d + n * e->F_layer_m);
}

void moe_prepare(const pe_scenario *s, pe_eval_ctx *ctx)
{
    const pe_model *m = &s->model;
    pe_moe_ctx *e = &ctx->moe;
    *e = (pe_moe_ctx){0};
    if (m->experts <= 0)
        return;
    pe_moe_params mp;
    params_moe(m, &mp);
    e->on = 1;
    e->bias = m->bias;
    e->experts = m->experts;
    e->f_e = m->moe_ffn_hidden;
    e->sh_f = m->shared_experts * m->moe_ffn_hidden;
    e->E = (double)m->experts;
    e->k = (double)m->top_k;
    e->f_e_d = (double)m->moe_ffn_hidden;
    /* ρ: capacity-padded buffers (C), else the dropless imbalance ι (design §0) */
    e->rho = m->has_capacity_factor ? m->capacity_factor : m->moe_imbalance;
    e->N_layer_d = mp.layer_dense;
    e->N_dense_part = mp.moe_dense_part;
    e->N_expert = mp.moe_expert;
    e->N_att_rep = mp.att_rep;
    e->F_att = compute_attention(m);
    const double inner = m->mlp == PE_MLP_GELU ? 4.0 : 6.0;
    e->act_par_att = act_par_attention(m);
    e->act_par_sh = inner * (double)m->shared_experts * e->f_e_d; /* A10 */
    e->act_router = 8.0 * e->E;                                   /* A9 fp32 logits + probs */
    e->act_expert_inner = inner * e->f_e_d;
    if (s->precision.compute == PE_COMPUTE_FP8) { /* A13: fc2 inputs kept in FP8 */
        e->act_expert_inner -= e->f_e_d;
        e->act_par_sh -= (double)m->shared_experts * e->f_e_d;
        e->act_par_att -= act_fp8_saving_attention(m);
    }
    e->beta_d = s->precision.dispatch_bytes;
    e->N_total = mp.total;
    e->N_active = mp.active;
    moe_flops(s, &mp, ctx);
    ctx->state_total_gib = (ctx->beta_w + ctx->beta_g + ctx->beta_o) * mp.total / PE_GIB;
}

double moe_stage_layers(const pe_model *m, int64_t v, int64_t L0, int64_t Lmid, int64_t j,
                        int64_t Lj)
{
    int64_t n = 0;
    for (int64_t r = 0; r < v; r++) {
        const int64_t a = r * (m->layers / v) + (j > 0 ? L0 / v : 0) +
                          (j > 1 ? (j - 1) * (Lmid / v) : 0);
        n += params_moe_layers(m, a, a + Lj / v); /* P9 per chunk (V3/V3': whole) */
    }
    return (double)n;
}

static int divides(int64_t a, int64_t b) { return a > 0 && b % a == 0; }

uint32_t moe_check_rules(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const pe_moe_ctx *e = &ctx->moe;
    const int64_t ep = pl->ep, etp = pl->etp, t = pl->tp, G = ctx->gpus_per_node;
    /* V15: offload needs ZeRO ≥ 1 and a GPU↔host link to time (X12; a
     * canonical text reaches here without the loader's host_link check) */
    uint32_t f = pl->offload_optimizer && (pl->zero < 1 || !(ctx->host_bps > 0.0))
                     ? PE_FAIL_V15
                     : 0;
    if (!e->on) /* ep > 1, or an etp other than tp, needs experts */
        return f | (ep != 1 || etp != t ? PE_FAIL_V9 : 0);
    const int64_t grid = t * pl->cp * pl->dp, eg = ep * etp;
    f |= divides(ep, e->experts) ? 0 : PE_FAIL_V9;
    f |= divides(eg, grid) ? 0 : PE_FAIL_V10;
    f |= divides(etp, e->f_e) && (e->sh_f == 0 || divides(t, e->sh_f)) ? 0 : PE_FAIL_V11;
    f |= t > 1 && !pl->sequence_parallel ? PE_FAIL_V12 : 0;
    f |= e->bias && etp != 1 ? PE_FAIL_V13 : 0;
    const int etp_ok = divides(etp, G) || (ctx->allow_cross_node_tp && etp % G == 0);
    f |= etp_ok && (divides(eg, G) || eg % G == 0) ? 0 : PE_FAIL_V14;
    return f;
}
