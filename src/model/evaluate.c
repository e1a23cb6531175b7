/* evaluate.c — scenario + plan → every figure of one report row
 * (docs/model.md §1 validity, §2–§8 through src/model/, §9 budgets and status).
 *
 * evaluate_prepare() flattens everything scenario-level into pe_eval_ctx
 * once (P1–P6, F1–F4, A1–A3 per token, the interconnect in SI units).
 * evaluate_plan() is the hot path: no allocation, no I/O, no globals, no
 * formatting. It checks V1–V8 with integer arithmetic (returning early for
 * an invalid plan), then evaluates stage 0 and stage p−1 with the inline
 * equation functions of src/model/ and picks the memory-worst and time
 * stages (docs/model.md intro). evaluate_format_reason() builds the `reason`
 * text on demand from result->failed. */
#include "model/evaluate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/detail.h"
#include "model/comm.h"
#include "model/compute.h"
#include "model/memory.h"
#include "model/moe.h"
#include "model/params.h"
#include "model/pipeline.h"
#include "model/step.h"

#define NAME_OF(table, v) \
    (((size_t)(v) < sizeof table / sizeof table[0]) ? table[(size_t)(v)] : "?")

const char *pe_plan_status_name(pe_plan_status v)
{
    static const char *const t[] = {"ok", "over_time", "over_memory", "invalid"};
    return NAME_OF(t, v);
}

const char *pe_bound_name(pe_bound v)
{
    static const char *const t[] = {"compute", "communication", "bubble"};
    return NAME_OF(t, v);
}

const char *pe_tier_name(pe_tier v)
{
    static const char *const t[] = {"none", "intra", "inter"};
    return NAME_OF(t, v);
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* a·b saturated at INT64_MAX (inputs are ≥ 1 and ≤ 2^53; products of four
 * degrees can overflow only for plans V1 rejects anyway). */
static inline int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* §12 F8–F10 as coefficients of M and 1/t (the hot path only multiplies). */
static void prepare_coefficients(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    for (int i = 0; i < PE_LAYER_GEMMS; i++)
        ctx->gemm_coef[i] = compute_gemm_coef(&ctx->gemms[i], ctx->gemm_rate, ctx->hbm_bps);
    const pe_gemm_shape out = {ctx->h, ctx->V, 0}; /* the output layer, column-parallel */
    ctx->out_coef = compute_gemm_coef(&out, ctx->gemm_rate, ctx->hbm_bps);
    ctx->core_s = ctx->F_att / ctx->att_rate;
    const double inv_bw = ctx->ew_bps > 0.0 ? 1.0 / ctx->ew_bps : 0.0; /* η_W = 0: untimed */
    ctx->ew_rep_s = ctx->ew_rep * inv_bw, ctx->ew_par_s = ctx->ew_par * inv_bw;
    ctx->ew_att_s = ctx->ew_att * inv_bw, ctx->ew_out_s = ctx->ew_out * inv_bw;
    (void)sc;
}

/* §12: what the refinements need, once per scenario. The loader has
 * already set every field neutral under fidelity: textbook. */
static void prepare_refinements(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_gpu *g = &sc->cluster.gpu;
    ctx->refined_compute = g->has_gemm_efficiency;
    if (ctx->refined_compute) {
        compute_layer_gemms(&sc->model, ctx->gemms);                          /* F7 */
        ctx->gemm_rate = ctx->peak * g->gemm_efficiency;                      /* F8 */
        ctx->t_half = g->gemm_half_gflop * 1e9 / ctx->gemm_rate;
        ctx->t_half_layer = ctx->t_half;
        ctx->att_rate = ctx->peak * (g->has_attention_efficiency ? g->attention_efficiency
                                                                 : g->gemm_efficiency); /* F9 */
        ctx->ew_bps = ctx->hbm_bps * g->elementwise_efficiency;               /* F10 */
        compute_elementwise_bytes(&sc->model, &ctx->ew_rep, &ctx->ew_par, &ctx->ew_att,
                                  &ctx->ew_out);
        ctx->t_mb = g->microbatch_overhead_us / 1e6;                          /* F11 */
        prepare_coefficients(sc, ctx);
    }
    const pe_framework *fw = &sc->framework;
    ctx->pp_scatter_gather = fw->present && fw->pp_scatter_gather;           /* X6 */
    ctx->dp_flat = fw->present && fw->dp_algorithm == PE_DP_FLAT;             /* C9 */
    ctx->allreduce_auto = fw->present && fw->allreduce == PE_ALLREDUCE_AUTO;  /* C10 */
    ctx->dp_bucket_bytes = fw->present ? fw->dp_bucket_mb * 1e6 : 0.0;        /* X7 */
    ctx->comm_slowdown = fw->present ? fw->comm_slowdown : 0.0;               /* X8 */
    ctx->tp_async_bwd = fw->present && fw->tp_async_backward;                 /* X13 */
    ctx->bubble_by_stage = fw->present && fw->bubble_by_stage;                /* B5 */
    if (ctx->tp_async_bwd && !ctx->refined_compute)
        compute_layer_gemms(&sc->model, ctx->gemms); /* X13 windows at F6's rate */
    /* F21, X14: memory-bound passes at W·η_W (W when η_W is not given) */
    const double eta_w = sc->cluster.gpu.elementwise_efficiency; /* also without F7–F11 */
    const double pass_bps = eta_w > 0.0 ? ctx->hbm_bps * eta_w : ctx->hbm_bps;
    ctx->accum_s_per_param = fw->present ? fw->grad_accum_bytes / pass_bps : 0.0;
    ctx->opt_s_per_param = fw->present ? fw->optimizer_pass_bytes / pass_bps : 0.0;
}

/* Issue 11 FP8 (docs/design/moe.md §6): the linear layers run at the FP8
 * peak (F16), TE keeps their inputs in FP8 (A13: QKV and MLP inputs 2h → h
 * each, attention-output input a·d_v, fc2 input f) and caches FP8 weights. */
static void fp8_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    ctx->fp8 = sc->precision.compute == PE_COMPUTE_FP8;
    if (!ctx->fp8)
        return;
    ctx->rate8 = sc->cluster.gpu.peak_fp8_tflops * 1e12 * sc->cluster.gpu.flops_efficiency;
    ctx->N8_layer = params_matmul(m);
    ctx->F8_layer = 2.0 * ctx->N8_layer;
    ctx->beta_8 = sc->precision.fp8_weight_bytes;
    ctx->act_rep -= 2.0 * ctx->h;                                      /* A13 */
    ctx->act_par -= act_fp8_saving_attention(m) + (double)m->ffn_hidden; /* A13 */
}

/* Issue 11 at scenario level: X2's head dimensions with head_dim or MLA,
 * the MoE constants, FP8, which steps a plan needs, act_total_gib of an MoE
 * model, the host link and CPU Adam rate of offload. */
static void prepare_issue11(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_cluster *cl = &sc->cluster;
    if (m->has_head_dim) /* X2 carries K and V of g heads of head_dim */
        ctx->d = (double)m->head_dim;
    if (m->attention == PE_ATTENTION_MLA) { /* X2: expanded K, V of a heads: a·(d_qk + d_v) */
        ctx->g = (double)m->heads;
        ctx->d = ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                  (double)m->v_head_dim) / 2.0;
    }
    moe_prepare(sc, ctx); /* issue 11; nothing for a dense model */
    fp8_prepare(sc, ctx);
    ctx->ext = ctx->moe.on || ctx->fp8;
    if (ctx->moe.on) { /* act_total_gib of one sequence: (L − n)·A4 + n·A4' at t = c = 1 */
        const pe_moe_ctx *e = &ctx->moe;
        const double dense = act_layer(ctx->s, 1.0, 1.0, 0, ctx->act_rep, ctx->act_par,
                                       ctx->act_att);
        const double moe = moe_act_layer(
            ctx->s, 1.0, 1.0, 0, ctx->act_rep, e->act_par_att, e->act_router, e->act_par_sh,
            ctx->act_att,
            moe_act_routed(1.0, ctx->s, e->k, e->rho, 1.0, 1.0, ctx->fp8 ? 1.0 : 2.0, ctx->h,
                           e->act_expert_inner));
        const double n = (double)params_moe_layers(m, 0, m->layers);
        ctx->moe.act_total_per_seq = (ctx->L - n) * dense + n * moe;
    }
    ctx->host_bps = cl->gpu.has_host_link_gb_s ? cl->gpu.host_link_gb_s * 1e9 : 0.0;
    ctx->cpu_adam_rate = cl->cpu_adam_gparams_s * 1e9;
    ctx->host_mem_bytes = cl->has_host_memory_gib ? cl->host_memory_gib * PE_GIB : 0.0;
}

/* F19 the shared experts' first GEMM (fc1, gate and up together with
 * swiglu): h × k_μ·n_s·f_e, column-parallel (also X13's window). */
static inline pe_gemm_shape shared_fc1(const pe_eval_ctx *ctx)
{
    const double k_in = ctx->scenario->model.mlp == PE_MLP_SWIGLU ? 2.0 : 1.0;
    return (pe_gemm_shape){ctx->h, k_in * (double)ctx->moe.sh_f, 0};
}

/* §12 with issue 11's models: F18 the layer GEMMs at the FP8 peak (same
 * e_max and F_half, FP8 roofline) with compute: fp8; F19 an MoE layer's
 * shared-expert, router and routed-expert GEMMs and its element-wise bytes.
 * The router and the output layer stay bf16. */
static void prepare_refined_issue11(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_gpu *g = &sc->cluster.gpu;
    const pe_model *m = &sc->model;
    const double e8 = g->has_fp8_gemm_efficiency ? g->fp8_gemm_efficiency : g->gemm_efficiency;
    const double rate8 = g->peak_fp8_tflops * 1e12 * e8; /* F18 */
    const double rate = ctx->fp8 ? rate8 : ctx->gemm_rate;
    ctx->gemm_rate8 = rate8;
    if (ctx->fp8) { /* F18 */
        ctx->t_half_layer = g->gemm_half_gflop * 1e9 / rate8;
        for (int i = 0; i < PE_LAYER_GEMMS; i++)
            ctx->gemm_coef[i] = compute_gemm_coef_fp8(&ctx->gemms[i], rate8, ctx->hbm_bps);
    }
    if (!ctx->moe.on)
        return;
    const pe_moe_ctx *e = &ctx->moe;
    const double h = ctx->h, k_in = m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0, fe = e->f_e_d;
    const double nsf = (double)e->sh_f; /* n_s·f_e */
    const pe_gemm_shape shapes[5] = {shared_fc1(ctx), {nsf, h, 1}, {h, e->E, 0},
                                     {h, k_in * fe, 0}, {fe, h, 1}};
    for (int i = 0; i < 5; i++)
        ctx->moe_coef[i] = i == 2 || !ctx->fp8
                               ? compute_gemm_coef(&shapes[i], i == 2 ? ctx->gemm_rate : rate,
                                                   ctx->hbm_bps)
                               : compute_gemm_coef_fp8(&shapes[i], rate, ctx->hbm_bps);
    const double act = m->mlp == PE_MLP_SWIGLU ? 6.0 : 4.0; /* F10's activation bytes */
    const double ew_par_m = ctx->ew_par + act * ((e->rho * e->k + (double)m->shared_experts) * fe -
                                                 (double)m->ffn_hidden);
    ctx->ew_par_m_s = ctx->ew_bps > 0.0 ? ew_par_m / ctx->ew_bps : 0.0;
}

void evaluate_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_cluster *cl = &sc->cluster;
    memset(ctx, 0, sizeof *ctx);
    ctx->scenario = sc;

    /* §2 */
    ctx->N_mm = params_matmul(m);                                /* P1 */
    ctx->N_layer = params_layer(m);                              /* P2 or P6 */
    ctx->N_embed = params_embed(m);                              /* P3 */
    ctx->N_out_untied = (double)m->vocab * (double)m->hidden;    /* P4 */
    ctx->N_out_p1 = params_out(m, 1);                            /* P4 at p = 1 */
    ctx->norm_h = params_norm(m);

    /* §4 */
    ctx->F_layer = compute_layer(m);                             /* F1 */
    ctx->F_out = compute_out(m);                                 /* F2 */
    ctx->F_model = compute_model(m, (double)sc->training.global_batch); /* F3 */
    ctx->F_att = compute_attention(m);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
        ctx->x[rc] = compute_recompute(m, (pe_recompute)rc);       /* F4 */
        ctx->F_hw[rc] = compute_hardware(m, (double)sc->training.global_batch, (pe_recompute)rc);
    }

    /* §3: M6 budget = min(HBM, budgets.memory_gib) GiB */
    double budget_gib = cl->gpu.hbm_gib;
    if (sc->budgets.has_memory_gib && sc->budgets.memory_gib < budget_gib)
        budget_gib = sc->budgets.memory_gib;
    ctx->budget_bytes = budget_gib * PE_GIB;
    ctx->reserve_bytes = cl->reserve_gib * PE_GIB;
    ctx->beta_w = sc->precision.param_bytes;
    ctx->beta_g = sc->precision.grad_bytes;
    ctx->beta_o = sc->precision.optimizer_bytes;
    ctx->state_total_gib = (ctx->beta_w + ctx->beta_g + ctx->beta_o) *
                           params_total(m, ctx->N_layer, 1) / PE_GIB; /* §3 diagnostics */
    ctx->act_rep = act_rep(m);                      /* A1 */
    ctx->act_par = act_par(m);                      /* A2 */
    ctx->act_att = act_att(m, PE_RECOMPUTE_NONE);   /* A3 (0 with flash) */

    /* flat copies for the hot path */
    ctx->gpus_per_node = cl->gpus_per_node;
    ctx->gpus = mul_sat(cl->nodes, cl->gpus_per_node);
    ctx->layers = m->layers;
    ctx->seq_len = m->seq_len;
    ctx->global_batch = sc->training.global_batch;
    ctx->heads = m->heads;
    ctx->kv_heads = m->kv_heads;
    ctx->ffn_hidden = m->ffn_hidden;
    ctx->agf_gcd = gcd64(gcd64(m->heads, m->kv_heads), m->ffn_hidden);
    ctx->allow_cross_node_tp = cl->allow_cross_node_tp;
    ctx->tied = m->tied_embeddings;
    ctx->attention = m->attention;
    ctx->L = (double)m->layers;
    ctx->h = (double)m->hidden;
    ctx->g = (double)m->kv_heads;
    ctx->d = params_head_dim(m);
    ctx->V = (double)m->vocab;
    ctx->s = (double)m->seq_len;
    ctx->B = (double)sc->training.global_batch;
    ctx->N = (double)ctx->gpus;
    ctx->Vh = ctx->N_out_untied;
    ctx->delta = m->dropout ? 1.0 : 0.0;
    ctx->peak = cl->gpu.peak_tflops * 1e12;
    ctx->rate = ctx->peak * cl->gpu.flops_efficiency; /* peak·e */
    ctx->hbm_bps = cl->gpu.hbm_tb_s * 1e12;            /* W */
    ctx->tokens_per_step = ctx->B * ctx->s;            /* B·s */
    ctx->net = comm_net(cl);
    prepare_refinements(sc, ctx);
    prepare_issue11(sc, ctx);
    if (ctx->refined_compute && ctx->ext)
        prepare_refined_issue11(sc, ctx);
}

static inline int interventions_of(const pe_plan *pl)
{
    return (pl->zero > 0) + (pl->recompute != PE_RECOMPUTE_NONE) + (pl->tp > 1) + (pl->pp > 1) +
           (pl->cp > 1);
}

/* act_total_gib: A_layer(t = c = 1, no sp, recompute none, the plan's b, the
 * model's attention)·L / 2^30 */
static inline double act_total_gib(const pe_eval_ctx *ctx, double b)
{
    if (ctx->moe.on) /* issue 11: dense and MoE layers (A4, A4' at t = c = 1) */
        return b * ctx->moe.act_total_per_seq / PE_GIB;
    return act_layer(ctx->s, b, 1.0, 0, ctx->act_rep, ctx->act_par, ctx->act_att) * ctx->L /
           PE_GIB;
}

/* The worst of the nst candidate stages (memory totals or t_f + t_b): the
 * index of the largest of v[0] (stage 0), v[2] (the middle one, nst = 3)
 * and v[1] (stage p−1); ties go to the lower stage. */
static inline int worst_stage(const double v[3], int nst)
{
    const int best = nst == 3 && v[2] > v[0] ? 2 : 0;
    return v[1] > v[best] ? 1 : best;
}

/* Layers of the first, last and middle stages (issue 11); 1 when they add
 * up (V3'), else 0. An absent first/last value takes the middle share. */
static int uneven_layers(int64_t L, const pe_plan *pl, int64_t *L0, int64_t *Ll, int64_t *Lmid)
{
    const int64_t p = pl->pp, v = pl->virtual_stages;
    const int64_t f = pl->first_stage_layers, l = pl->last_stage_layers;
    *L0 = *Ll = *Lmid = 0;
    if (p == 1) {
        *L0 = *Ll = *Lmid = L;
        return (!f || f == L) && (!l || l == L);
    }
    const int64_t q = p - (f > 0) - (l > 0), R = L - f - l;
    if (R < 0 || (q == 0) != (R == 0) || (q > 0 && R % q != 0))
        return 0;
    *Lmid = q > 0 ? R / q : 0;
    *L0 = f ? f : *Lmid;
    *Ll = l ? l : *Lmid;
    return *L0 % v == 0 && *Ll % v == 0 && *Lmid % v == 0;
}

/* The per-plan numbers every step below shares (docs/model.md §0 notation). */
typedef struct {
    int64_t m;                               /* micro-batches; 0 when V5 fails */
    double t, p, c, dp, v, m_d, b;           /* degrees as doubles */
    double lps, sl, D;                       /* L/p, s' = s/c, D = dp·c */
    int one, full, sp;                       /* p = 1; full recompute; sequence parallel */
    /* issue 11: candidate stages [0] = 0, [1] = p−1 and, for p ≥ 3 with
     * first/last_stage_layers or MoE layers, [2] = a middle stage (its index
     * is pe_detail's mid_stage); their layers */
    int uneven, nst;
    double ls[3];
} plan_dims;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* V3' (issue 11, replaces V3 with first/last_stage_layers): with q middle
 * stages and R = L − L_0 − L_last layers left: R ≥ 0, q = 0 ⇔ R = 0, q | R,
 * and v divides L_0, L_last and R/q; p = 1: a given value equals L. An
 * absent value is the middle share. (Megatron transformer_config.py.) */
static int stages_add_up(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    int64_t L0, Ll, Lmid;
    return uneven_layers(ctx->layers, pl, &L0, &Ll, &Lmid);
}

/* §1 V1–V8 with integer arithmetic; returns the PE_FAIL_V* bits and m. */
ALWAYS_INLINE uint32_t check_rules(const pe_eval_ctx *ctx, const pe_plan *pl, int64_t *m_out)
{
    const int64_t dp = pl->dp, t = pl->tp, p = pl->pp, c = pl->cp;
    const int64_t b = pl->micro_batch, v = pl->virtual_stages;
    const int64_t G = ctx->gpus_per_node;
    const pe_schedule sched = pl->schedule;
    const int sp = pl->sequence_parallel;
    const int64_t bdp = mul_sat(b, dp);
    const int ok5 = ctx->global_batch % bdp == 0;
    const int64_t m = ok5 ? ctx->global_batch / bdp : 0;
    const int64_t tc = mul_sat(t, c), tcd = mul_sat(tc, dp);
    const int ok1 = mul_sat(tcd, p) == ctx->gpus;                               /* V1 */
    const int ok2 = ctx->agf_gcd % t == 0;                                      /* V2 */
    const int ok3 = pl->first_stage_layers || pl->last_stage_layers
                        ? stages_add_up(ctx, pl)                                /* V3' */
                        : ctx->layers % mul_sat(p, v) == 0;                     /* V3 */
    const int ok4 = ctx->seq_len % c == 0 &&
                    !(sp && t > 1 && (ctx->seq_len / c) % t != 0);              /* V4 */
    const int ok6 = sched == PE_SCHEDULE_INTERLEAVED
                        ? p >= 2 && v >= 2 && (!ok5 || m % p == 0)
                        : v == 1;                                               /* V6 */
    const int ok7 = G % t == 0 || (ctx->allow_cross_node_tp && t > G && t % G == 0); /* V7 */
    const int ok8 = (G % tc == 0 || tc % G == 0) && (G % tcd == 0 || tcd % G == 0);  /* V8 */
    *m_out = m;
    return (uint32_t)!ok1 * PE_FAIL_V1 | (uint32_t)!ok2 * PE_FAIL_V2 |
           (uint32_t)!ok3 * PE_FAIL_V3 | (uint32_t)!ok4 * PE_FAIL_V4 |
           (uint32_t)!ok5 * PE_FAIL_V5 | (uint32_t)!ok6 * PE_FAIL_V6 |
           (uint32_t)!ok7 * PE_FAIL_V7 | (uint32_t)!ok8 * PE_FAIL_V8;
}

ALWAYS_INLINE plan_dims dims_of(const pe_eval_ctx *ctx, const pe_plan *pl, int64_t m, int ext)
{
    plan_dims q;
    q.m = m;
    q.t = (double)pl->tp, q.p = (double)pl->pp, q.c = (double)pl->cp, q.dp = (double)pl->dp;
    q.v = (double)pl->virtual_stages, q.m_d = (double)m, q.b = (double)pl->micro_batch;
    q.lps = ctx->L / q.p; /* L/p layers per stage */
    q.sl = ctx->s / q.c;  /* s' */
    q.D = q.dp * q.c;     /* ZeRO sharding group */
    q.one = pl->pp == 1;  /* stage 0 is also the last stage */
    q.full = pl->recompute == PE_RECOMPUTE_FULL;
    q.sp = pl->sequence_parallel;
    q.uneven = ext && (pl->first_stage_layers || pl->last_stage_layers);
    q.nst = 2;
    q.ls[0] = q.ls[1] = q.ls[2] = q.lps;
    if (q.uneven) { /* issue 11: the stages that can be worst (design §5) */
        int64_t L0, Ll, Lmid;
        uneven_layers(ctx->layers, pl, &L0, &Ll, &Lmid);
        q.ls[0] = (double)L0, q.ls[1] = (double)Ll, q.ls[2] = (double)Lmid;
        q.nst = pl->pp >= 3 ? 3 : 2;
    } else if (ext && ctx->moe.on && pl->pp >= 3) {
        /* issue 11: with MoE layers a middle stage can hold more of them than
         * stage 0 or p−1 (dense_layers, moe_every): a third candidate */
        q.nst = 3;
    }
    return q;
}

/* §2 P4, P7 and §3 M1–M5 of stages 0 and p−1; the memory-worst stage. */
ALWAYS_INLINE void step_memory(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                               pe_detail *w)
{
    const int64_t z = pl->zero;
    const pe_schedule sched = pl->schedule;
    const double bw = ctx->beta_w, bg = ctx->beta_g, bo = ctx->beta_o;
    w->n_out = (ctx->tied && q->one) ? 0.0 : ctx->Vh; /* P4 */
    for (int i = 0; i < q->nst; i++) {                /* P7, M1–M3 */
        const int first = i == 0 || q->one, last = i == 1 || q->one;
        w->n_gpu[i] = params_gpu(q->ls[i], ctx->N_layer, ctx->N_embed, w->n_out, ctx->norm_h,
                                 first, last, q->t);
        w->m1[i] = mem_weights(bw, w->n_gpu[i], z, q->D);
        w->m2[i] = mem_grads(bg, w->n_gpu[i], z, q->D);
        w->m3[i] = mem_optimizer(bo, w->n_gpu[i], z, q->D);
    }
    w->m4 = mem_zero3_working(z, bw, bg, ctx->N_layer, ctx->Vh, q->t);
    w->att = pl->recompute == PE_RECOMPUTE_SELECTIVE ? 0.0 : ctx->act_att;             /* A3 */
    w->a_layer = act_layer(q->sl, q->b, q->t, q->sp, ctx->act_rep, ctx->act_par, w->att); /* A4 */
    w->a_in = act_input(q->sl, q->b, ctx->h, q->t, q->sp);                             /* A5 */
    w->k_first = act_inflight_first_chunk(sched, q->p, q->m_d, q->v);
    w->k_last = act_inflight_last_chunk(sched, q->p, q->m_d, q->v);
    const double a7 = act_embed_mask(ctx->delta, q->sl, q->b, ctx->h, q->t, q->sp, w->k_first);
    const double a8 = act_output(q->sl, q->b, ctx->h, ctx->V, q->t, q->sp, w->k_last);
    w->a7[0] = a7, w->a7[1] = q->one ? a7 : 0.0; /* A7 on stage 0 */
    w->a8[0] = q->one ? a8 : 0.0, w->a8[1] = a8; /* A8 on the last stage */
    w->a7[2] = w->a8[2] = 0.0; /* a middle stage carries neither */
    for (int i = 0; i < q->nst; i++) {
        w->k[i] = i < 2 ? act_inflight(sched, q->p, q->m_d, q->v, i)
                        : act_inflight_stage(sched, q->p, q->m_d, q->v, 1.0);
        w->a6[i] = act_stage(w->a_layer, w->a_in, q->ls[i], w->k[i], q->full); /* A6 */
        w->total[i] = mem_total(w->m1[i], w->m2[i], w->m3[i], w->m4, w->a6[i], w->a7[i],
                                w->a8[i], ctx->reserve_bytes); /* M5 */
    }
    w->mem_stage = worst_stage(w->total, q->nst);
}

/* §12 F7–F11: the same times from the GEMM shapes, the attention core and
 * the element-wise bytes, plus a fixed time per micro-batch. */
ALWAYS_INLINE void step_compute_refined(const pe_eval_ctx *ctx, const pe_plan *pl,
                                        const plan_dims *q, pe_detail *w)
{
    const double M = q->b * q->sl, inv_t = 1.0 / q->t; /* M: tokens of a micro-batch on a GPU */
    double gemm = 0.0;
    for (int i = 0; i < PE_LAYER_GEMMS; i++) {
        w->gemm_t[i] = compute_gemm_time_coef(&ctx->gemm_coef[i], M, inv_t,
                                              ctx->t_half_layer); /* F8, F18 */
        gemm += w->gemm_t[i];
    }
    const double core = M * inv_t * ctx->core_s;                                       /* F9 */
    const double ew_att = M * inv_t * ctx->ew_att_s;                                   /* F10 */
    const double ew = M * (ctx->ew_rep_s * (q->sp ? inv_t : 1.0) + ctx->ew_par_s * inv_t) + ew_att;
    const double out = compute_gemm_time_coef(&ctx->out_coef, M, inv_t, ctx->t_half) +
                       M * inv_t * ctx->ew_out_s;
    const double lf = gemm + core + ew; /* backward: twice the forward, plus recompute */
    const double rec = q->full ? lf : pl->recompute == PE_RECOMPUTE_SELECTIVE ? core + ew_att : 0.0;
    w->tau_lf = lf;
    w->tau_lb = 2.0 * lf + rec;
    w->tau_att = core;
    for (int i = 0; i < q->nst; i++) { /* F20: each candidate stage with its own layers */
        const int last = i == 1 || q->one;
        w->tau_f[i] = q->ls[i] * lf + (last ? out : 0.0) + ctx->t_mb / 3.0;          /* F11 */
        w->tau_b[i] = q->ls[i] * w->tau_lb + (last ? 2.0 * out : 0.0) + 2.0 * ctx->t_mb / 3.0;
    }
    w->tau_gemm = gemm, w->tau_core = core, w->tau_ew = ew, w->tau_ew_att = ew_att;
    w->tau_out = out;
}

/* §4 F4–F6: FLOPs and times per micro-batch of both stages, per layer. */
ALWAYS_INLINE void step_compute(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                pe_detail *w)
{
    const double x = w->x = ctx->x[pl->recompute]; /* F4 */
    for (int i = 0; i < q->nst; i++) {
        const int last = i == 1 || q->one;
        w->f_fwd[i] = compute_fwd(q->b, q->sl, q->ls[i], ctx->F_layer, ctx->F_out, last, q->t); /* F5 */
        w->f_bwd[i] = compute_bwd(w->f_fwd[i], q->b, q->sl, q->ls[i], x, q->t);
    }
    if (ctx->refined_compute) {
        step_compute_refined(ctx, pl, q, w);
        return;
    }
    for (int i = 0; i < q->nst; i++) {
        w->tau_f[i] = compute_time(w->f_fwd[i], ctx->rate); /* F6 */
        w->tau_b[i] = compute_time(w->f_bwd[i], ctx->rate);
    }
    if (ctx->tp_async_bwd) /* X13's windows: each GEMM's FLOPs at F6's rate (F16: FP8's) */
        for (int i = 0; i < PE_LAYER_GEMMS; i++)
            w->gemm_t[i] = compute_gemm_flops(q->b * q->sl, &ctx->gemms[i], q->t) /
                           (ctx->fp8 ? ctx->rate8 : ctx->rate);
    w->tau_lf = compute_layer_fwd_time(q->b, q->sl, ctx->F_layer, q->t, ctx->rate);
    w->tau_lb = compute_layer_bwd_time(q->b, q->sl, ctx->F_layer, x, q->t, ctx->rate);
    w->tau_att = compute_attention_time(q->b, q->sl, ctx->F_att, q->t, ctx->rate);
}

/* X1, X2 exposed per micro-batch on a stage of l layers, each with X8's
 * share φ of its hidden part: chi = {tp fwd, tp bwd, cp fwd, cp bwd}. */
ALWAYS_INLINE void layer_chi(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                             const pe_detail *w, double l, double chi[4])
{
    const pe_overlap *ov = &pl->overlap;
    const int rc = pl->recompute != PE_RECOMPUTE_NONE;
    const double phi = ctx->comm_slowdown; /* X8 */
    const double cp_hops = (q->c - 1.0) * w->t_p2p_cp * l;
    chi[0] = comm_slowed(comm_tp_fwd(l, w->t_ar_tp, ov->tp, w->tau_lf), l * 2.0 * w->t_ar_tp, phi);
    chi[1] = ctx->tp_async_bwd /* X13; X8 charges φ of all X1 counts that is hidden */
                 ? comm_slowed(comm_tp_bwd_exposed(l, w->tp_bwd_layer, ov->tp, w->tau_lb),
                               l * (q->full ? 4.0 : 2.0) * w->t_ar_tp, phi)
                 : comm_slowed(comm_tp_bwd(l, w->t_ar_tp, ov->tp, w->tau_lb, q->full),
                               l * (q->full ? 4.0 : 2.0) * w->t_ar_tp, phi);
    chi[2] = comm_slowed(comm_cp_fwd(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att), cp_hops, phi);
    chi[3] = comm_slowed(comm_cp_bwd(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att, rc),
                         (rc ? 3.0 : 2.0) * cp_hops, phi);
}

/* Issue 11 uneven stages: X1, X2 scale with each candidate stage's layers;
 * t_f, t_b per stage; the slowest stage (ties → the lower stage); the
 * χ columns then describe it. */
ALWAYS_INLINE void uneven_layer_comm(const pe_eval_ctx *ctx, const pe_plan *pl,
                                     const plan_dims *q, pe_detail *w)
{
    double sum[3] = {0.0, 0.0, 0.0}, chi[3][4];
    for (int i = 0; i < q->nst; i++) {
        layer_chi(ctx, pl, q, w, q->ls[i], chi[i]);
        w->t_f[i] = pipe_stage_time(w->tau_f[i], chi[i][0], chi[i][2]);
        w->t_b[i] = pipe_stage_time(w->tau_b[i], chi[i][1], chi[i][3]);
        sum[i] = w->t_f[i] + w->t_b[i];
        for (int k = 0; k < 4; k++)
            w->chi_st[i][k] = chi[i][k];
    }
    const int ts = w->time_stage = worst_stage(sum, q->nst);
    w->chi_per_stage = true;
    w->chi_tp_f = chi[ts][0], w->chi_tp_b = chi[ts][1];
    w->chi_cp_f = chi[ts][2], w->chi_cp_b = chi[ts][3];
}

/* F21 (framework grad_accum_bytes): every micro-batch's backward adds its
 * weight gradients into the accumulation buffer, a memory-bound pass over
 * the stage's parameters on this GPU (dense and expert; their shard with
 * z ≥ 2, where gradients are reduced every micro-batch). */
ALWAYS_INLINE void step_grad_accum(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                   int moe, pe_detail *w)
{
    const int shard = pl->zero >= 2;
    for (int i = 0; i < q->nst; i++) {
        const double n = w->n_gpu[i] / (shard ? q->D : 1.0) +
                         (moe ? w->moe.n_exp[i] / (shard ? w->moe.D_e : 1.0) : 0.0);
        w->t_accum[i] = n * ctx->accum_s_per_param;
        w->tau_b[i] += w->t_accum[i];
    }
}

/* §5 groups; §6 X1, X2 (the same on every stage); §7 t_f, t_b; the time stage. */
ALWAYS_INLINE void step_layer_comm(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                   pe_detail *w)
{
    const pe_net *net = &ctx->net;
    const int64_t t = pl->tp, c = pl->cp;
    w->g_tp = comm_group(net, t, 1); /* tp (t, 1), cp (c, t), dp (dp·c, t), pp (p, t·c·dp) */
    w->g_cp = comm_group(net, c, t);
    w->g_dp = comm_group(net, pl->dp * c, t);
    w->g_pp = comm_group(net, pl->pp, mul_sat(mul_sat(t, c), pl->dp));
    w->s_tp = comm_tp_bytes(q->b, q->sl, ctx->h); /* X1 */
    w->t_ar_tp = comm_all_reduce(net, &w->g_tp, w->s_tp);
    if (ctx->allreduce_auto && w->g_tp.n_out > 1.0) { /* C10: the faster of ring and tree */
        w->t_ar_tp_tree = comm_all_reduce_tree(net, &w->g_tp, w->s_tp);
        w->t_ar_tp = w->t_ar_tp_tree < w->t_ar_tp ? w->t_ar_tp_tree : w->t_ar_tp;
    }
    if (ctx->tp_async_bwd) /* X13: QKV's and MLP in's weight-gradient GEMMs as windows */
        w->tp_bwd_layer = comm_tp_bwd_async(w->t_ar_tp, q->sp, q->full, w->gemm_t[0], w->gemm_t[2]);
    w->s_kv = comm_cp_bytes(q->b, q->sl, ctx->g, ctx->d, q->t); /* X2 */
    w->t_p2p_cp = comm_p2p(net, &w->g_cp, w->s_kv);
    if (q->uneven || q->nst == 3) {
        uneven_layer_comm(ctx, pl, q, w);
        return;
    }
    double chi[4];
    layer_chi(ctx, pl, q, w, q->lps, chi);
    w->chi_tp_f = chi[0], w->chi_tp_b = chi[1], w->chi_cp_f = chi[2], w->chi_cp_b = chi[3];
    for (int i = 0; i < 2; i++) {
        w->t_f[i] = pipe_stage_time(w->tau_f[i], w->chi_tp_f, w->chi_cp_f);
        w->t_b[i] = pipe_stage_time(w->tau_b[i], w->chi_tp_b, w->chi_cp_b);
    }
    w->time_stage = w->t_f[1] + w->t_b[1] > w->t_f[0] + w->t_b[0]; /* ties → stage 0 */
}

/* §6 X3 one pipeline hop; §12 X6: with Megatron's scatter/gather and
 * without sp, a hop that crosses nodes carries 1/t of the activation, then
 * an all-gather over the tp group inside the node restores it. */
ALWAYS_INLINE double pipeline_hop(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                  pe_detail *w)
{
    w->s_pp = comm_pp_bytes(q->b, q->sl, ctx->h, q->t, q->sp);
    w->pp_hop_bytes = w->s_pp;
    if (ctx->pp_scatter_gather && pl->tp > 1 && !q->sp && w->g_pp.n_out > 1.0) {
        w->pp_hop_bytes = w->s_pp / q->t;
        return comm_p2p(&ctx->net, &w->g_pp, w->pp_hop_bytes) +
               comm_reduce_scatter(&ctx->net, &w->g_tp, w->s_pp);
    }
    return comm_p2p(&ctx->net, &w->g_pp, w->s_pp);
}

/* One gradient/weight group of X4: the reduce-scatter of S_g and of S_w
 * (C4, or C9 flat across nodes) and, with C10 at z = 0, the gradient
 * all-reduce as the faster of ring and tree (returned as half of it). */
ALWAYS_INLINE void dp_group(const pe_eval_ctx *ctx, int64_t z, const pe_group *grp, double s_g,
                            double s_w, double *rs_g, double *rs_w, double *g, double *tree)
{
    const pe_net *net = &ctx->net;
    const int flat = ctx->dp_flat && grp->n_out > 1.0;
    *rs_g = flat ? comm_reduce_scatter_flat(net, grp, s_g) : comm_reduce_scatter(net, grp, s_g);
    *rs_w = flat ? comm_reduce_scatter_flat(net, grp, s_w) : comm_reduce_scatter(net, grp, s_w);
    *g = *rs_g;
    if (ctx->allreduce_auto && z == 0 && grp->n_out > 1.0) { /* C10, as T_ar = 2·g */
        *tree = comm_all_reduce_tree(net, grp, s_g);
        *g = 0.5 * *tree < *g ? 0.5 * *tree : *g;
    }
}

/* §6 X4 (C4, or C9 flat), X7 and X8 of the DP/ZeRO communication; with
 * experts (X4', issue 11) the expert gradients and weights go over the
 * expert-data-parallel group ge in the same window (ge NULL: dense). */
ALWAYS_INLINE void dp_comm(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                           pe_detail *w, const pe_group *ge, double se_g, double se_w)
{
    const int ts = w->time_stage;
    const int64_t z = pl->zero;
    const double ov = pl->overlap.dp;
    double g, unused = 0.0, s_g = w->s_g;
    dp_group(ctx, z, &w->g_dp, w->s_g, w->s_w, &w->t_rs_g, &w->t_rs_w, &g, &w->t_ar_dp_tree);
    if (ge) {
        double rs_g, rs_w, ge_g;
        dp_group(ctx, z, ge, se_g, se_w, &rs_g, &rs_w, &ge_g, &unused);
        w->t_rs_g += rs_g, w->t_rs_w += rs_w, g += ge_g, s_g += se_g;
    }
    const double wt = w->t_rs_w;
    w->chi_dp = comm_dp(z, q->m_d, g, wt, ov, w->tau_f[ts], w->tau_b[ts]); /* X4 */
    const double frac = ctx->dp_bucket_bytes < s_g ? ctx->dp_bucket_bytes / s_g : 1.0;
    w->dp_last_bucket = comm_dp_last_bucket(z, g, ov, w->tau_b[ts], frac); /* X7 */
    w->chi_dp += w->dp_last_bucket;
    const double all = z == 0 ? 2.0 * g : z == 1 ? g + wt : z == 2 ? q->m_d * g + wt
                                                                   : q->m_d * (2.0 * wt + g);
    w->chi_dp = comm_slowed(w->chi_dp, all, ctx->comm_slowdown); /* X8 */
}

/* §6 X3–X5 and §7 B1–B4 on the time stage. */
ALWAYS_INLINE void step_stage_comm(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                   pe_detail *w)
{
    const int ts = w->time_stage;
    const double ngpu = w->n_gpu[ts];
    w->t_p2p_pp = pipeline_hop(ctx, pl, q, w);
    w->chi_pp = comm_pp(q->p, q->m_d, q->v, w->t_p2p_pp, pl->overlap.pp, w->tau_f[ts],
                        w->tau_b[ts]); /* X3 */
    w->chi_pp = comm_slowed(w->chi_pp, q->p == 1.0 ? 0.0 : q->m_d * q->v * 2.0 * w->t_p2p_pp,
                            ctx->comm_slowdown); /* X8 */
    w->s_g = ctx->beta_g * ngpu;
    w->s_w = ctx->beta_w * ngpu;
    dp_comm(ctx, pl, q, w, NULL, 0.0, 0.0);
    w->optimizer = ctx->opt_s_per_param > 0.0
                       ? comm_optimizer_passes(ngpu, pl->zero, q->D, ctx->opt_s_per_param) /* X14 */
                       : comm_optimizer(ngpu, pl->zero, q->D, ctx->beta_w, ctx->beta_g,
                                        ctx->beta_o, ctx->hbm_bps); /* X5 */
    w->bubble = pipe_bubble(pl->schedule, q->p, q->v, w->t_f[ts], w->t_b[ts]); /* B1–B4 */
    w->bubble_uniform = w->bubble;
    if (ctx->bubble_by_stage && q->p > 1.0) { /* B5: the p−2 middle stages run at t(mid) */
        const int mid = q->nst == 3 ? 2 : 0;
        w->others_f = w->t_f[0] + w->t_f[1] + (q->p - 2.0) * w->t_f[mid] - w->t_f[ts];
        w->others_b = w->t_b[0] + w->t_b[1] + (q->p - 2.0) * w->t_b[mid] - w->t_b[ts];
        const double b5 = pipe_bubble_by_stage(pl->schedule, q->v, w->others_f, w->others_b);
        w->bubble = b5 < w->bubble ? b5 : w->bubble;
    }
}

/* §8 S1–S5 and §9 budgets and status: the report row of a valid plan. */
ALWAYS_INLINE void step_result(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                               const pe_detail *w, int moe, pe_result *r)
{
    const int ts = w->time_stage, ms = w->mem_stage;
    const int64_t stage_at[3] = {0, pl->pp - 1, w->mid_stage}; /* candidate → pipeline stage */
    const double md = q->m_d;
    const double compute_s = md * (w->tau_f[ts] + w->tau_b[ts]);
    /* issue 11 (0.0 for a dense model, and x + 0.0 == x): expert-TP time
     * joins tp_comm_s (X11), the EP all-to-all is S1's eighth term (X10) */
    const double etp_comm_s = moe ? md * (w->moe.chi_etp_f[ts] + w->moe.chi_etp_b[ts]) : 0.0;
    const double ep_comm_s = moe ? md * (w->moe.chi_ep_f[ts] + w->moe.chi_ep_b[ts]) : 0.0;
    const double a12 = moe && w->moe.n_moe[ms] > 0 ? w->moe.a12 : 0.0;
    const double tp_comm_s = md * (w->chi_tp_f + w->chi_tp_b) + etp_comm_s;
    const double cp_comm_s = md * (w->chi_cp_f + w->chi_cp_b);
    const double step = step_time(compute_s, tp_comm_s, cp_comm_s, w->bubble, w->chi_pp,
                                  w->chi_dp, w->optimizer) +
                        ep_comm_s; /* S1' */
    const double comm = step_comm(tp_comm_s, cp_comm_s, w->chi_pp, w->chi_dp) + ep_comm_s;
    const double tokens_per_s = step_tokens_per_s(ctx->tokens_per_step, step); /* S4 */
    const double mfu = step_utilisation(ctx->F_model, step, ctx->N, ctx->peak);
    const pe_scenario *sc = ctx->scenario;
    const bool has_days = sc->training.has_tokens;
    const double days = has_days ? step_train_days(sc->training.tokens, tokens_per_s) : 0.0; /* S5 */
    const double mem_tot = w->total[ms];
    const pe_budgets *bu = &sc->budgets; /* §9 */
    const int host_over = pl->offload_optimizer && ctx->host_mem_bytes > 0.0 &&
                          w->off.host > ctx->host_mem_bytes; /* M8 (issue 11) */
    const uint32_t failed =
        (uint32_t)host_over * PE_FAIL_HOST_MEMORY |
        (uint32_t)!mem_fits(mem_tot, ctx->budget_bytes) * PE_FAIL_MEMORY | /* M6 */
        (uint32_t)(bu->has_step_time_s && step > bu->step_time_s) * PE_FAIL_STEP_TIME |
        (uint32_t)(bu->has_train_days && has_days && days > bu->train_days) * PE_FAIL_TRAIN_DAYS |
        (uint32_t)(bu->has_min_mfu && mfu < bu->min_mfu) * PE_FAIL_MIN_MFU;
    const double budget_gib = ctx->budget_bytes / PE_GIB;
    const double mem_gib = mem_tot / PE_GIB;
    *r = (pe_result){
        .status = (failed & (PE_FAIL_MEMORY | PE_FAIL_HOST_MEMORY)) ? PE_STATUS_OVER_MEMORY
                  : failed                  ? PE_STATUS_OVER_TIME
                                            : PE_STATUS_OK,
        .failed = failed, .gpus = ctx->gpus, .microbatches = q->m,
        .worst_stage = (int)stage_at[ms],
        .mem_weights_gib = w->m1[ms] / PE_GIB, .mem_grads_gib = w->m2[ms] / PE_GIB,
        .mem_optimizer_gib = w->m3[ms] / PE_GIB, .mem_activations_gib = w->a6[ms] / PE_GIB,
        .mem_other_gib = (w->m4 + w->a7[ms] + w->a8[ms] + a12) / PE_GIB,
        .mem_reserve_gib = ctx->reserve_bytes / PE_GIB, .mem_total_gib = mem_gib,
        .mem_budget_gib = budget_gib, .mem_headroom_gib = budget_gib - mem_gib,
        .time_stage = (int)stage_at[ts],
        .compute_s = compute_s, .tp_comm_s = tp_comm_s, .cp_comm_s = cp_comm_s,
        .bubble_s = w->bubble, .pp_comm_s = w->chi_pp, .dp_comm_s = w->chi_dp,
        .optimizer_s = w->optimizer, .step_time_s = step,
        .comm_fraction = comm / step,                                              /* S2 */
        .bubble_fraction = pipe_bubble_fraction(w->bubble, md, w->t_f[ts], w->t_b[ts]), /* §7 */
        .bound = step_bound(compute_s, comm, w->bubble),                           /* S3 */
        .tokens_per_s = tokens_per_s, .mfu = mfu,
        .hfu = step_utilisation(ctx->F_hw[pl->recompute], step, ctx->N, ctx->peak),
        .tflops_per_gpu = step_tflops_per_gpu(ctx->F_model, step, ctx->N),
        .has_train_days = has_days, .train_days = days,
        .gpu_hours = has_days ? step_gpu_hours(ctx->N, days) : 0.0,
        .interventions = interventions_of(pl), .state_total_gib = ctx->state_total_gib,
        .act_total_gib = act_total_gib(ctx, q->b),
        .tier_tp = comm_tier(&w->g_tp), .tier_cp = comm_tier(&w->g_cp),
        .tier_dp = comm_tier(&w->g_dp), .tier_pp = comm_tier(&w->g_pp),
        .ep_comm_s = ep_comm_s,
        .host_mem_gib = pl->offload_optimizer ? w->off.host / PE_GIB : 0.0,
        .mem_experts_gib = moe ? w->moe.mem_experts[ms] / PE_GIB : 0.0,
        .tier_ep = moe ? comm_tier(&w->moe.g_ep) : PE_TIER_NONE,
    };
}

/* ---- issue 11: the MoE steps (docs/design/moe.md §2, §4). eval_core
 * calls each only for an MoE model, after the dense step it refines; they
 * replace that step's per-stage figures, so a dense plan never runs them. */

ALWAYS_INLINE double max2(double a, double b) { return a > b ? a : b; }

/* A4', A6', A11, A12 of both stages; dispatch buffers once per stage. */
ALWAYS_INLINE void moe_stage_activations(const pe_eval_ctx *ctx, const pe_plan *pl,
                                         const plan_dims *q, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const double etp = (double)pl->etp;
    const double beta_in = ctx->fp8 ? 1.0 : 2.0; /* fp8: inputs kept in FP8 (A13) */
    w->moe.a_routed = moe_act_routed(q->b, q->sl, e->k, e->rho, q->t, etp, beta_in, ctx->h,
                                     e->act_expert_inner); /* A11 */
    w->moe.a_layer_m = moe_act_layer(q->sl, q->b, q->t, q->sp, ctx->act_rep, e->act_par_att,
                                     e->act_router, e->act_par_sh, w->att, w->moe.a_routed);
    w->moe.a12 = moe_act_dispatch(q->b, q->sl, e->k, e->rho, ctx->h, e->beta_d, etp, q->t);
    for (int i = 0; i < q->nst; i++) {
        const double n = w->moe.n_moe[i], nd = q->ls[i] - n;
        const double widest = max2(nd > 0 ? w->a_layer : 0.0, n > 0 ? w->moe.a_layer_m : 0.0);
        w->a6[i] = q->full ? w->a_in * q->ls[i] * w->k[i] + widest
                           : w->k[i] * (nd * w->a_layer + n * w->moe.a_layer_m); /* A6' */
        w->total[i] = mem_total(w->m1[i], w->m2[i], w->m3[i], w->m4, w->a6[i], w->a7[i],
                                w->a8[i], ctx->reserve_bytes) +
                      (n > 0 ? w->moe.a12 : 0.0); /* M5 + A12 */
    }
    w->mem_stage = worst_stage(w->total, q->nst);
}

/* P9 MoE layers on candidate stage i: stage 0, p−1, or (uneven) the middle
 * stage with the most MoE layers (the lowest such: it holds the most
 * micro-batches). Chunk r of stage j starts at r·L/v + [j>0]·L_0/v +
 * max(0, j−1)·L_mid/v and holds L_j/v layers (design §0.1). */
ALWAYS_INLINE double moe_candidate_layers(const pe_eval_ctx *ctx, const pe_plan *pl,
                                          const plan_dims *q, int i, int64_t *stage)
{
    const pe_model *m = &ctx->scenario->model;
    const int64_t L0 = (int64_t)q->ls[0], Lmid = (int64_t)q->ls[2], p = pl->pp;
    if (i < 2)
        return moe_stage_layers(m, pl->virtual_stages, L0, Lmid, i == 0 ? 0 : p - 1,
                                (int64_t)q->ls[i]);
    double best = -1.0;
    for (int64_t j = 1; j + 1 < p; j++) {
        const double n = moe_stage_layers(m, pl->virtual_stages, L0, Lmid, j, Lmid);
        if (n > best)
            best = n, *stage = j; /* the lowest such stage: the most micro-batches */
    }
    return best;
}

/* P15, P16 and M1'–M4': dense state sharded over D = dp·c, expert state
 * over edp = t·c·dp/(ep·etp) (Megatron's expert-data-parallel group). */
ALWAYS_INLINE void moe_step_memory(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                   pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const int64_t z = pl->zero;
    const double bw = ctx->beta_w, bg = ctx->beta_g, bo = ctx->beta_o;
    const double eg = (double)pl->ep * (double)pl->etp;
    const double D_e = w->moe.D_e = q->t * q->c * q->dp / eg;
    for (int i = 0; i < q->nst; i++) {
        const int first = i == 0 || q->one, last = i == 1 || q->one;
        const double n = moe_candidate_layers(ctx, pl, q, i, &w->mid_stage); /* P9 */
        const double dense = ((q->ls[i] - n) * e->N_layer_d + n * e->N_dense_part +
                              (first ? ctx->N_embed : 0.0) +
                              (last ? w->n_out + ctx->norm_h : 0.0)) / q->t +
                             q->ls[i] * e->N_att_rep * (1.0 - 1.0 / q->t); /* P15 */
        const double ex = moe_expert_params(n, e->N_expert, (double)pl->ep, (double)pl->etp);
        const double e1 = mem_weights(bw, ex, z, D_e), e2 = mem_grads(bg, ex, z, D_e);
        const double e3 = mem_optimizer(bo, ex, z, D_e);
        w->moe.n_moe[i] = n, w->moe.n_exp[i] = ex, w->n_gpu[i] = dense;
        w->m1[i] = mem_weights(bw, dense, z, q->D) + e1; /* M1' */
        w->m2[i] = mem_grads(bg, dense, z, q->D) + e2;   /* M2' */
        w->m3[i] = mem_optimizer(bo, dense, z, q->D) + e3; /* M3' */
        w->moe.mem_experts[i] = e1 + e2 + e3;
    }
    const double layer_max = max2(e->N_layer_d / q->t, e->N_dense_part / q->t + e->N_expert / eg);
    w->m4 = z == 3 ? (2.0 * bw + bg) * max2(layer_max, ctx->Vh / q->t) : 0.0; /* M4' */
    if (q->nst == 3) /* A6 of the middle candidate: its own micro-batches in flight */
        w->k[2] = act_inflight_stage(pl->schedule, q->p, q->m_d, q->v, (double)w->mid_stage);
    moe_stage_activations(ctx, pl, q, w);
}

/* F19 one MoE layer from its GEMM shapes: the attention GEMMs of F7, the
 * shared experts (TP-split like a dense MLP), the router on the rank's
 * sequence shard (bf16, replicated weights), and each of the E/ep local
 * experts as its own multiply of M_e = b·s'·k·ρ·ep·etp/(t·E) rows by
 * h × k_μ'·f_e/etp and f_e/etp × h (the rows routed to one expert after the
 * EP all-to-all and the etp all-gather); core and element-wise work as F9,
 * F10 with the routed and shared activations. F20: τ_f(j) = (L_j − n_j)·τ_lf
 * + n_j·τ_mlf + output layer + t_mb/3, τ_b likewise. */
ALWAYS_INLINE void moe_compute_refined(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const plan_dims *q, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const pe_gemm_coef *c = ctx->moe_coef;
    const double M = q->b * q->sl, inv_t = 1.0 / q->t, th = ctx->t_half_layer;
    const double ep = (double)pl->ep, etp = (double)pl->etp, inv_etp = 1.0 / etp;
    const double M_e = w->moe.M_e = M * e->k * e->rho * ep * etp / (q->t * e->E);
    w->moe.t_sh_in = e->sh_f > 0 ? compute_gemm_time_coef(&c[0], M, inv_t, th) : 0.0;
    w->moe.t_sh = e->sh_f > 0 ? w->moe.t_sh_in + compute_gemm_time_coef(&c[1], M, inv_t, th)
                              : 0.0;
    w->moe.t_router = compute_gemm_time_coef(&c[2], M * inv_t, 1.0, ctx->t_half);
    w->moe.t_exp = e->E / ep * (compute_gemm_time_coef(&c[3], M_e, inv_etp, th) +
                                compute_gemm_time_coef(&c[4], M_e, inv_etp, th));
    const double ew = M * (ctx->ew_rep_s * (q->sp ? inv_t : 1.0) + ctx->ew_par_m_s * inv_t) +
                      w->tau_ew_att;
    const double lf = w->gemm_t[0] + w->gemm_t[1] + w->moe.t_sh + w->moe.t_router +
                      w->moe.t_exp + w->tau_core + ew;
    const double rec = q->full ? lf
                       : pl->recompute == PE_RECOMPUTE_SELECTIVE ? w->tau_core + w->tau_ew_att
                                                                 : 0.0;
    w->moe.tau_mlf = lf;
    w->moe.tau_mlb = 2.0 * lf + rec;
    for (int i = 0; i < q->nst; i++) {
        const int last = i == 1 || q->one;
        const double n = w->moe.n_moe[i], nd = q->ls[i] - n;
        w->tau_f[i] = nd * w->tau_lf + n * lf + (last ? w->tau_out : 0.0) + ctx->t_mb / 3.0;
        w->tau_b[i] = nd * w->tau_lb + n * w->moe.tau_mlb + (last ? 2.0 * w->tau_out : 0.0) +
                      2.0 * ctx->t_mb / 3.0;
    }
}

/* F15 per stage: dense and MoE layers, router, (ρ−1) extra rows; F4 recompute. */
ALWAYS_INLINE void moe_step_compute(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                    pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const double bs_t = q->b * q->sl / q->t;
    const double x_m = pl->recompute == PE_RECOMPUTE_FULL        ? e->F_layer_m
                       : pl->recompute == PE_RECOMPUTE_SELECTIVE ? e->F_att
                                                                 : 0.0;
    for (int i = 0; i < q->nst; i++) {
        const int last = i == 1 || q->one;
        const double n = w->moe.n_moe[i], nd = q->ls[i] - n;
        const double fsum = nd * e->F_layer_d + n * e->F_layer_m;
        const double xsum = nd * w->x + n * x_m;
        w->f_fwd[i] = bs_t * (fsum + (last ? ctx->F_out : 0.0));
        w->f_bwd[i] = 2.0 * w->f_fwd[i] + bs_t * xsum;
        if (ctx->refined_compute)
            continue;
        w->tau_f[i] = compute_time(w->f_fwd[i], ctx->rate);
        w->tau_b[i] = compute_time(w->f_bwd[i], ctx->rate);
    }
    if (ctx->refined_compute) {
        moe_compute_refined(ctx, pl, q, w);
        return;
    }
    w->moe.tau_mlf = bs_t * e->F_layer_m / ctx->rate;
    w->moe.tau_mlb = bs_t * (2.0 * e->F_layer_m + x_m) / ctx->rate;
    if (ctx->tp_async_bwd && e->sh_f > 0) { /* X13's window: the shared experts' fc1 */
        const pe_gemm_shape fc1 = shared_fc1(ctx);
        w->moe.t_sh_in = compute_gemm_flops(q->b * q->sl, &fc1, q->t) /
                         (ctx->fp8 ? ctx->rate8 : ctx->rate);
    }
}

/* max(0, before − overlap·window) plus X8's share φ of the hidden rest of
 * `all`: before = all, or X13's E_b (what is left before the window). */
ALWAYS_INLINE double exposed_of(double before, double all, double overlap, double window,
                                double phi)
{
    return comm_slowed(comm_pos(before - overlap * window), all, phi);
}

/* max(0, T − overlap·window) plus X8's share φ of the hidden rest. */
ALWAYS_INLINE double exposed(double T, double overlap, double window, double phi)
{
    return exposed_of(T, T, overlap, window, phi);
}

/* C11 groups; X9 EP all-to-all (dispatch, combine) and X11 expert-TP
 * all-gather/reduce-scatter per MoE layer, with their overlap, and X1's
 * count on MoE layers; §7 t_f, t_b. */
ALWAYS_INLINE void moe_step_layer_comm(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const plan_dims *q, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const pe_net *net = &ctx->net;
    const pe_overlap *ov = &pl->overlap;
    const int64_t ep = pl->ep, etp = pl->etp;
    w->moe.g_ep = comm_group(net, ep, etp); /* ep (ep, etp), etp (etp, 1), edp (edp, etp·ep) */
    w->moe.g_etp = comm_group(net, etp, 1);
    w->moe.g_edp = comm_group(net, (int64_t)w->moe.D_e, ep * etp);
    w->moe.s_disp = moe_a2a_bytes(q->b, q->sl, e->k, e->rho, ctx->h, e->beta_d, q->t);
    w->moe.s_comb = moe_a2a_bytes(q->b, q->sl, e->k, e->rho, ctx->h, 2.0, q->t);
    w->moe.t_ep = comm_all_to_all(net, &w->moe.g_ep, w->moe.s_disp) +
                  comm_all_to_all(net, &w->moe.g_ep, w->moe.s_comb); /* X9 */
    w->moe.s_etp = (double)etp * w->moe.s_comb;                     /* X11 gathered buffer */
    w->moe.t_rs_etp = comm_reduce_scatter(net, &w->moe.g_etp, w->moe.s_etp);
    const double full = q->full ? 1.0 : 0.0, phi = ctx->comm_slowdown; /* X8 */
    /* X1 on an MoE layer: one TP all-reduce pair for attention and one more
     * only with shared experts (the routed experts' TP traffic is X11's); the
     * dense step charged two per layer, so the difference is added here. */
    const double sh = e->act_par_sh > 0.0 ? 2.0 : 1.0;
    const double f_ep = exposed(w->moe.t_ep, ov->ep, w->moe.tau_mlf, phi);
    const double b_ep = exposed((1.0 + full) * w->moe.t_ep, ov->ep, w->moe.tau_mlb, phi);
    const double f_etp = exposed(2.0 * w->moe.t_rs_etp, ov->tp, w->moe.tau_mlf, phi) +
                         exposed(sh * w->t_ar_tp, ov->tp, w->moe.tau_mlf, phi) -
                         exposed(2.0 * w->t_ar_tp, ov->tp, w->tau_lf, phi);
    /* backward: X1's count of the MoE layer's own blocks and of the dense
     * layer, each before the window as X13 leaves it (its E_b) when on */
    const double all_moe = sh * (1.0 + full) * w->t_ar_tp, all_d = (2.0 + 2.0 * full) * w->t_ar_tp;
    const double e_b_moe =
        !ctx->tp_async_bwd ? all_moe /* X13: attention's QKV, the shared experts' fc1 */
        : comm_tp_bwd_async_one(w->t_ar_tp, q->sp, q->full, w->gemm_t[0]) +
              (sh > 1.0 ? comm_tp_bwd_async_one(w->t_ar_tp, q->sp, q->full, w->moe.t_sh_in)
                        : 0.0);
    const double e_b_d = ctx->tp_async_bwd ? w->tp_bwd_layer : all_d; /* as layer_chi */
    const double b_etp =
        exposed((2.0 + 2.0 * full) * w->moe.t_rs_etp, ov->tp, w->moe.tau_mlb, phi) +
        exposed_of(e_b_moe, all_moe, ov->tp, w->moe.tau_mlb, phi) -
        exposed_of(e_b_d, all_d, ov->tp, w->tau_lb, phi);
    for (int i = 0; i < q->nst; i++) {
        const double n = w->moe.n_moe[i];
        w->moe.chi_ep_f[i] = n * f_ep; /* X10 */
        w->moe.chi_ep_b[i] = n * b_ep;
        w->moe.chi_etp_f[i] = n * f_etp;
        w->moe.chi_etp_b[i] = n * b_etp;
        w->t_f[i] += w->moe.chi_ep_f[i] + w->moe.chi_etp_f[i];
        w->t_b[i] += w->moe.chi_ep_b[i] + w->moe.chi_etp_b[i];
    }
    const double sum[3] = {w->t_f[0] + w->t_b[0], w->t_f[1] + w->t_b[1],
                           q->nst == 3 ? w->t_f[2] + w->t_b[2] : 0.0};
    w->time_stage = worst_stage(sum, q->nst);
    if (q->uneven || q->nst == 3) { /* the time stage may have moved: its own χ (§7) */
        const int ts = w->time_stage;
        w->chi_tp_f = w->chi_st[ts][0], w->chi_tp_b = w->chi_st[ts][1];
        w->chi_cp_f = w->chi_st[ts][2], w->chi_cp_b = w->chi_st[ts][3];
    }
}

/* X4' dense gradients over the dp group, expert gradients over edp, in one
 * overlap window; X5' the optimizer step of both shards. */
ALWAYS_INLINE void moe_step_stage_comm(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const plan_dims *q, pe_detail *w)
{
    const int ts = w->time_stage;
    const double dense = w->n_gpu[ts], ex = w->moe.n_exp[ts];
    w->s_g = ctx->beta_g * dense;
    w->s_w = ctx->beta_w * dense;
    dp_comm(ctx, pl, q, w, &w->moe.g_edp, ctx->beta_g * ex, ctx->beta_w * ex); /* X4' */
    if (ctx->opt_s_per_param > 0.0) /* X14 on both shards */
        w->optimizer = comm_optimizer_passes(dense, pl->zero, q->D, ctx->opt_s_per_param) +
                       comm_optimizer_passes(ex, pl->zero, w->moe.D_e, ctx->opt_s_per_param);
    else
        w->optimizer = comm_optimizer(dense, pl->zero, q->D, ctx->beta_w, ctx->beta_g,
                                      ctx->beta_o, ctx->hbm_bps) +
                       comm_optimizer(ex, pl->zero, w->moe.D_e, ctx->beta_w, ctx->beta_g,
                                      ctx->beta_o, ctx->hbm_bps); /* X5' */
}

/* ---- issue 11 FP8 steps (docs/design/moe.md §6), only with compute: fp8 ---- */

/* M7 the FP8 copies TE caches of every FP8-GEMM weight (rowwise and
 * transposed, β_8 bytes per parameter), sharded like the weights (ZeRO-3:
 * dense part over D, experts over edp); joins mem_weights (and
 * mem_experts for the expert part). */
ALWAYS_INLINE void fp8_step_memory(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                   pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    for (int i = 0; i < q->nst; i++) {
        const double n = e->on ? w->moe.n_moe[i] : 0.0, nd = q->ls[i] - n;
        const double dense = (nd * ctx->N8_layer + n * e->N8_layer_m_dense) / q->t;
        const double ex = e->on ? moe_expert_params(n, e->N8_layer_m_expert, (double)pl->ep,
                                                    (double)pl->etp)
                                : 0.0;
        const double m7d = mem_weights(ctx->beta_8, dense, pl->zero, q->D);
        const double m7e = e->on ? mem_weights(ctx->beta_8, ex, pl->zero, w->moe.D_e) : 0.0;
        w->m1[i] += m7d + m7e;
        w->total[i] += m7d + m7e;
        if (e->on)
            w->moe.mem_experts[i] += m7e;
    }
    w->mem_stage = worst_stage(w->total, q->nst);
}

/* F16 per stage: the linear layers' FLOPs at peak_fp8·e, the rest
 * (attention scores, router, output layer) at peak·e. */
ALWAYS_INLINE void fp8_step_compute(const pe_eval_ctx *ctx, const pe_plan *pl, const plan_dims *q,
                                    pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const double bs_t = q->b * q->sl / q->t, r16 = ctx->rate, r8 = ctx->rate8;
    const double again = q->full ? 1.0 : 0.0; /* full recompute re-runs the forward GEMMs */
    for (int i = 0; i < q->nst; i++) {
        const double n = e->on ? w->moe.n_moe[i] : 0.0, nd = q->ls[i] - n;
        const double f8f = bs_t * (nd * ctx->F8_layer + n * e->F8_layer_m);
        const double f8b = (2.0 + again) * f8f;
        w->tau_f[i] = (w->f_fwd[i] - f8f) / r16 + f8f / r8;
        w->tau_b[i] = (w->f_bwd[i] - f8b) / r16 + f8b / r8;
    }
    const double f8l = bs_t * ctx->F8_layer, fl = bs_t * ctx->F_layer, xl = bs_t * w->x;
    w->tau_lf = (fl - f8l) / r16 + f8l / r8;
    w->tau_lb = (2.0 * fl + xl - (2.0 + again) * f8l) / r16 + (2.0 + again) * f8l / r8;
    if (e->on) {
        const double f8m = bs_t * e->F8_layer_m, fm = bs_t * e->F_layer_m;
        const double fmb = w->moe.tau_mlb * r16; /* its backward FLOPs */
        w->moe.tau_mlf = (fm - f8m) / r16 + f8m / r8;
        w->moe.tau_mlb = (fmb - (2.0 + again) * f8m) / r16 + (2.0 + again) * f8m / r8;
    }
    (void)pl;
}

/* ---- issue 11 optimizer offload (docs/design/moe.md §7, ZeRO-Offload) ---- */

/* M3'' optimizer states (fp32 master, Adam m and v) leave the GPU; M8 the
 * node's host memory holds G shards of optimizer state and gradient copy. */
ALWAYS_INLINE void offload_step_memory(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const plan_dims *q, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    double host = 0.0;
    for (int i = 0; i < q->nst; i++) {
        const double n_sh = w->n_gpu[i] / q->D + (e->on ? w->moe.n_exp[i] / w->moe.D_e : 0.0);
        const double h = (double)ctx->gpus_per_node * (ctx->beta_o + ctx->beta_g) * n_sh;
        host = h > host ? h : host;
        if (e->on)
            w->moe.mem_experts[i] -= mem_optimizer(ctx->beta_o, w->moe.n_exp[i], pl->zero,
                                                   w->moe.D_e);
        w->total[i] -= w->m3[i];
        w->m3[i] = 0.0;
    }
    w->off.host = host;
    w->mem_stage = worst_stage(w->total, q->nst);
}

/* X12 gradients to the host (hidden behind backward like the DP reduce),
 * Adam on the node's CPU for its G GPUs, parameters back: optimizer_s. */
ALWAYS_INLINE void offload_step_time(const pe_eval_ctx *ctx, const pe_plan *pl, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const int ts = w->time_stage;
    const double D = (double)pl->dp * (double)pl->cp;
    const double n_sh = w->off.n_sh =
        w->n_gpu[ts] / D + (e->on ? w->moe.n_exp[ts] / w->moe.D_e : 0.0);
    w->off.t_d2h = ctx->beta_g * n_sh / ctx->host_bps;
    w->off.t_h2d = ctx->beta_w * n_sh / ctx->host_bps;
    w->off.t_cpu = n_sh * (double)ctx->gpus_per_node / ctx->cpu_adam_rate;
    /* the last backward's window, less what X4 already hides in it (the
     * gradient reduction, z ≤ 2; z = 3's per-micro-batch collectives fill the
     * forward window first): a window is not counted twice */
    const double ov = pl->overlap.dp, tb = w->tau_b[ts], tf = w->tau_f[ts];
    const double g = w->t_rs_g, wt = w->t_rs_w;
    const double used = pl->zero == 3
                            ? comm_pos(fmin(2.0 * wt + g, ov * (tf + tb)) - ov * tf)
                            : fmin(g, ov * tb);
    w->off.window = comm_pos(ov * tb - used);
    w->optimizer = comm_pos(w->off.t_d2h - w->off.window) + w->off.t_cpu + w->off.t_h2d;
}

/* The one code path of evaluate_plan() and evaluate_plan_detail(): the
 * spec's sections in order, each step filling the work record w (a
 * pe_detail). Always inlined: with d = NULL (the hot path) the record stays
 * local and the compiler keeps only what the report needs. */
ALWAYS_INLINE void eval_core(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d,
                             const int ext)
{
    int64_t m;
    uint32_t failed = check_rules(ctx, pl, &m); /* §1 */
    if (ext && (ctx->moe.on || pl->ep != 1 || pl->etp != pl->tp || pl->offload_optimizer))
        failed |= moe_check_rules(ctx, pl); /* issue 11: V9–V15 */
    if (failed) {
        *r = (pe_result){.status = PE_STATUS_INVALID,
                         .failed = failed,
                         .gpus = ctx->gpus,
                         .microbatches = m,
                         .interventions = interventions_of(pl),
                         .state_total_gib = ctx->state_total_gib,
                         .act_total_gib = act_total_gib(ctx, (double)pl->micro_batch)};
        if (d) {
            memset(d, 0, sizeof *d);
            d->valid = false;
        }
        return;
    }
    const plan_dims q = dims_of(ctx, pl, m, ext);
    /* issue 11: with ext = 0 (a dense bf16 scenario, a v1 plan) the compiler
     * drops every step below that does not apply */
    const int moe = ext && ctx->moe.on, fp8 = ext && ctx->fp8;
    const int off = ext && pl->offload_optimizer;
    pe_detail w;
    if (d)
        memset(&w, 0, sizeof w); /* for explain: fields of refinements that are off read 0 */
    else if (moe)
        memset(&w.moe, 0, sizeof w.moe);
    w.valid = true;
    w.lps = q.lps, w.s_local = q.sl, w.D = q.D, w.m = q.m_d;
    w.stage_layers[0] = q.ls[0], w.stage_layers[1] = q.ls[1], w.stage_layers[2] = q.ls[2];
    w.mid_stage = 1, w.stages = q.nst;
    step_memory(ctx, pl, &q, &w); /* §2–§3 */
    if (moe)
        moe_step_memory(ctx, pl, &q, &w); /* issue 11: P15, P16, M1'–M4', A9–A12 */
    if (fp8)
        fp8_step_memory(ctx, pl, &q, &w); /* M7 */
    if (off)
        offload_step_memory(ctx, pl, &q, &w); /* M3 on the host, M8 */
    step_compute(ctx, pl, &q, &w); /* §4 */
    if (moe)
        moe_step_compute(ctx, pl, &q, &w); /* F13–F15 */
    if (fp8 && !ctx->refined_compute)
        fp8_step_compute(ctx, pl, &q, &w); /* F16 (refined: F18 in the GEMM times) */
    if (ctx->accum_s_per_param > 0.0)
        step_grad_accum(ctx, pl, &q, moe, &w); /* F21 */
    step_layer_comm(ctx, pl, &q, &w); /* §5–§7 */
    if (moe)
        moe_step_layer_comm(ctx, pl, &q, &w); /* X9–X11 */
    step_stage_comm(ctx, pl, &q, &w); /* §6 X3–X5, §7 */
    if (moe)
        moe_step_stage_comm(ctx, pl, &q, &w); /* X4', X5' */
    if (off)
        offload_step_time(ctx, pl, &w); /* X12 replaces X5 */
    step_result(ctx, pl, &q, &w, moe, r); /* §8–§9 */
    if (d)
        *d = w;
}

/* Issue 11's keys in use: the scenario's (MoE, FP8) or the plan's. */
static inline int plan_ext(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return ctx->ext | (pl->ep != 1) | (pl->etp != pl->tp) | pl->offload_optimizer |
           (pl->first_stage_layers != 0) | (pl->last_stage_layers != 0);
}

void evaluate_plan(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r)
{
    if (plan_ext(ctx, pl))
        eval_core(ctx, pl, r, NULL, 1);
    else
        eval_core(ctx, pl, r, NULL, 0); /* the v1 path, as fast as before issue 11 */
}

void evaluate_plan_detail(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d)
{
    eval_core(ctx, pl, r, d, 1);
}

/* ------------------------------------------------------------- reason text */

typedef struct {
    char *buf;
    size_t size, len;
    int items; /* entries written so far, for the "; " separator */
} text;

__attribute__((format(printf, 2, 3))) static void put(text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    const int n = vsnprintf(dst, dst ? o->size - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* Start a new "; "-separated entry. */
static void entry(text *o)
{
    if (o->items++)
        put(o, "; ");
}

/* Shortest text that reads back as v: fixed-point in the everyday range
 * (192, 0.5, 27.9), else %g. */
static void fmt_shortest(char *out, size_t size, double v)
{
    if (fabs(v) >= 1e-4 && fabs(v) < 1e15)
        for (int decimals = 0; decimals <= 17; decimals++) {
            snprintf(out, size, "%.*f", decimals, v);
            if (strtod(out, NULL) == v)
                return;
        }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* v with at least `decimals` decimals (%.Nf) or, with sig > 0, `sig`
 * significant digits (%.Ng), adding digits until the text still shows the
 * failed comparison against limit (v > limit when greater, else v < limit)
 * and is not a rounded-away 0. */
static void fmt_vs(char *out, size_t size, double v, int decimals, int sig, double limit,
                   int greater)
{
    for (int k = 0; k <= 17; k++) {
        if (sig > 0)
            snprintf(out, size, "%.*g", sig + k, v);
        else
            snprintf(out, size, "%.*f", decimals + k, v);
        const double back = strtod(out, NULL);
        if ((greater ? back > limit : back < limit) && (back != 0.0 || v == 0.0))
            return;
    }
}

int pe_product_text(char *buf, size_t size, const int64_t *factors, int n)
{
    int64_t product = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++)
        overflow |= __builtin_mul_overflow(product, factors[i], &product);
    if (!overflow)
        return snprintf(buf, size, "%lld", (long long)product);
    int len = 0;
    for (int i = 0; i < n && (size_t)len < size; i++)
        len += snprintf(buf + len, size - (size_t)len, "%s%lld", i ? "*" : "",
                        (long long)factors[i]);
    return len;
}

/* V3' (issue 11): why the first/last stage layers do not add up. */
static void reason_uneven(text *o, const pe_eval_ctx *ctx, const pe_plan *p)
{
    const long long L = ctx->layers, f = p->first_stage_layers, l = p->last_stage_layers;
    const long long q = p->pp - (f > 0) - (l > 0), R = L - f - l, v = p->virtual_stages;
    char given[96];
    snprintf(given, sizeof given, "%s%.0lld%s%s%.0lld", f ? "first_stage_layers=" : "", f,
             f && l ? " + " : "", l ? "last_stage_layers=" : "", l);
    if (p->pp == 1)
        put(o, "V3: with pp=1 the one stage holds all layers=%lld (%s)", L, given);
    else if (R < 0)
        put(o, "V3: %s exceed layers=%lld", given, L);
    else if (q == 0 || R == 0)
        put(o, "V3: %s leave %lld layers for %lld middle stages", given, R, q);
    else if (R % q)
        put(o, "V3: %s leave %lld layers, not divisible by %lld middle stages", given, R, q);
    else
        put(o, "V3: virtual_stages=%lld must divide the layers of every stage (%s, %lld per "
               "middle stage)", v, given, R / q);
}

/* V1–V5: the degrees against the cluster, the model and the batch. */
static void reason_shape(text *o, const pe_eval_ctx *ctx, const pe_plan *p, uint32_t f)
{
    const long long dp = p->dp, t = p->tp, pp = p->pp, c = p->cp, b = p->micro_batch,
                    v = p->virtual_stages;
    char prod[128];
    if (f & PE_FAIL_V1) {
        entry(o);
        pe_product_text(prod, sizeof prod, (const int64_t[]){p->dp, p->tp, p->pp, p->cp}, 4);
        put(o, "V1: dp*tp*pp*cp=%s != gpus=%lld", prod, (long long)ctx->gpus);
    }
    if (f & PE_FAIL_V2) {
        entry(o);
        put(o, "V2: tp=%lld does not divide", t);
        const char *sep = " ";
        if (ctx->heads % t) {
            put(o, "%sheads=%lld", sep, (long long)ctx->heads);
            sep = ", ";
        }
        if (ctx->kv_heads % t) {
            put(o, "%skv_heads=%lld", sep, (long long)ctx->kv_heads);
            sep = ", ";
        }
        if (ctx->ffn_hidden % t)
            put(o, "%sffn_hidden=%lld", sep, (long long)ctx->ffn_hidden);
    }
    if (f & PE_FAIL_V3) {
        entry(o);
        if (p->first_stage_layers || p->last_stage_layers)
            reason_uneven(o, ctx, p); /* V3' (issue 11) */
        else if (v == 1)
            put(o, "V3: pp=%lld does not divide layers=%lld", pp, (long long)ctx->layers);
        else {
            pe_product_text(prod, sizeof prod, (const int64_t[]){pp, v}, 2);
            put(o, "V3: pp*virtual_stages=%s does not divide layers=%lld", prod,
                (long long)ctx->layers);
        }
    }
    if (f & PE_FAIL_V4) {
        entry(o);
        if (ctx->seq_len % c)
            put(o, "V4: cp=%lld does not divide seq_len=%lld", c, (long long)ctx->seq_len);
        else
            put(o, "V4: tp=%lld does not divide seq_len/cp=%lld (sequence parallel)", t,
                (long long)(ctx->seq_len / c));
    }
    if (f & PE_FAIL_V5) {
        entry(o);
        pe_product_text(prod, sizeof prod, (const int64_t[]){b, dp}, 2);
        put(o, "V5: micro_batch*dp=%s does not divide global_batch=%lld", prod,
            (long long)ctx->global_batch);
    }
}

/* V6: the schedule's needs. */
static void reason_schedule(text *o, const pe_plan *p, const pe_result *r, uint32_t f)
{
    const long long pp = p->pp, v = p->virtual_stages;
    if (!(f & PE_FAIL_V6))
        return;
    entry(o);
    if (p->schedule != PE_SCHEDULE_INTERLEAVED) {
        put(o, "V6: %s needs virtual_stages=1 (virtual_stages=%lld)",
            pe_schedule_name(p->schedule), v);
        return;
    }
    put(o, "V6: interleaved needs");
    const char *sep = " ";
    if (pp < 2) {
        put(o, "%spp>=2 (pp=%lld)", sep, pp);
        sep = ", ";
    }
    if (v < 2) {
        put(o, "%svirtual_stages>=2 (virtual_stages=%lld)", sep, v);
        sep = ", ";
    }
    if (!(f & PE_FAIL_V5) && r->microbatches % pp)
        put(o, "%smicrobatches=%lld to be a multiple of pp=%lld", sep,
            (long long)r->microbatches, pp);
}

/* V7, V8: groups against node boundaries. */
static void reason_nodes(text *o, const pe_eval_ctx *ctx, const pe_plan *p, uint32_t f)
{
    const long long t = p->tp, G = ctx->gpus_per_node;
    char prod[128];
    if (f & PE_FAIL_V7) {
        entry(o);
        if (ctx->allow_cross_node_tp)
            put(o, "V7: tp=%lld neither divides nor is a multiple of gpus_per_node=%lld", t, G);
        else if (t > G && t % G == 0)
            put(o, "V7: tp=%lld does not divide gpus_per_node=%lld (allow_cross_node_tp is false)",
                t, G);
        else
            put(o, "V7: tp=%lld does not divide gpus_per_node=%lld", t, G);
    }
    if (f & PE_FAIL_V8) {
        entry(o);
        const long long tc = mul_sat(p->tp, p->cp), tcd = mul_sat(tc, p->dp);
        put(o, "V8:");
        const char *sep = " ";
        if (G % tc && tc % G) {
            pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp}, 2);
            put(o, "%stp*cp=%s neither divides nor is a multiple of gpus_per_node=%lld", sep,
                prod, G);
            sep = ", ";
        }
        if (G % tcd && tcd % G) {
            pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
            put(o, "%stp*cp*dp=%s neither divides nor is a multiple of gpus_per_node=%lld",
                sep, prod, G);
        }
    }
}

/* §9 budgets: memory, step time, train days, MFU, each with both numbers. */
static void reason_budgets(text *o, const pe_eval_ctx *ctx, const pe_result *r, uint32_t f)
{
    char a[512], lim[64];
    if (f & PE_FAIL_MEMORY) {
        entry(o);
        fmt_vs(a, sizeof a, r->mem_total_gib, 2, 0, r->mem_budget_gib, 1);
        fmt_shortest(lim, sizeof lim, r->mem_budget_gib);
        put(o, "memory: %s GiB > budget %s GiB", a, lim);
    }
    if (f & PE_FAIL_HOST_MEMORY) { /* M8 (issue 11) */
        entry(o);
        const double host_gib = ctx->host_mem_bytes / PE_GIB;
        fmt_vs(a, sizeof a, r->host_mem_gib, 2, 0, host_gib, 1);
        fmt_shortest(lim, sizeof lim, host_gib);
        put(o, "host memory: %s GiB > host_memory_gib %s GiB (offload_optimizer)", a, lim);
    }
    const pe_budgets *bu = &ctx->scenario->budgets;
    if (f & PE_FAIL_STEP_TIME) {
        entry(o);
        fmt_vs(a, sizeof a, r->step_time_s, 1, 0, bu->step_time_s, 1);
        fmt_shortest(lim, sizeof lim, bu->step_time_s);
        put(o, "step_time: %s s > budget %s s", a, lim);
    }
    if (f & PE_FAIL_TRAIN_DAYS) {
        entry(o);
        fmt_vs(a, sizeof a, r->train_days, 1, 0, bu->train_days, 1);
        fmt_shortest(lim, sizeof lim, bu->train_days);
        put(o, "train_days: %s > budget %s", a, lim);
    }
    if (f & PE_FAIL_MIN_MFU) {
        entry(o);
        fmt_vs(a, sizeof a, r->mfu, 0, 2, bu->min_mfu, 0);
        fmt_shortest(lim, sizeof lim, bu->min_mfu);
        put(o, "mfu: %s < min_mfu %s", a, lim);
    }
}

/* V9–V15 (issue 11, docs/design/moe.md §1): expert parallelism against
 * Megatron-Core's rules, and offload. */
static void reason_moe(text *o, const pe_eval_ctx *ctx, const pe_plan *p, uint32_t f)
{
    const pe_moe_ctx *e = &ctx->moe;
    const long long ep = p->ep, etp = p->etp, t = p->tp, G = ctx->gpus_per_node;
    char prod[128], grid[128];
    if ((f & PE_FAIL_V9) && !e->on) {
        entry(o);
        if (ep != 1)
            put(o, "V9: ep=%lld needs an MoE model (model.experts is 0)", ep);
        else
            put(o, "V9: etp=%lld needs an MoE model (model.experts is 0; a dense model's "
                   "etp is tp=%lld)", etp, t);
    } else if (f & PE_FAIL_V9) {
        entry(o);
        put(o, "V9: ep=%lld does not divide experts=%lld", ep, (long long)e->experts);
    }
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->ep, p->etp}, 2);
    pe_product_text(grid, sizeof grid, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
    if (f & PE_FAIL_V10) {
        entry(o);
        put(o, "V10: ep*etp=%s does not divide tp*cp*dp=%s (expert and dense grids fold the "
               "same GPUs)", prod, grid);
    }
    if (f & PE_FAIL_V11) {
        entry(o);
        if (e->f_e % p->etp)
            put(o, "V11: etp=%lld does not divide moe_ffn_hidden=%lld", etp, (long long)e->f_e);
        else
            put(o, "V11: tp=%lld does not divide shared_experts*moe_ffn_hidden=%lld", t,
                (long long)e->sh_f);
    }
    if (f & PE_FAIL_V12) {
        entry(o);
        put(o, "V12: MoE with tp=%lld needs sequence_parallel (Megatron-Core)", t);
    }
    if (f & PE_FAIL_V13) {
        entry(o);
        put(o, "V13: experts with biases need etp=1 (etp=%lld)", etp);
    }
    if (f & PE_FAIL_V14) {
        entry(o);
        put(o, "V14: etp=%lld and ep*etp=%s must each divide or be a multiple of "
               "gpus_per_node=%lld", etp, prod, G);
    }
    if (f & PE_FAIL_V15) {
        entry(o);
        if (p->zero < 1)
            put(o, "V15: offload_optimizer needs zero>=1 (zero=%lld)", (long long)p->zero);
        else
            put(o, "V15: offload_optimizer needs the GPU's host_link_gb_s");
    }
}

int evaluate_format_reason(const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r,
                           char *buf, size_t size)
{
    text o = {buf, size, 0, 0};
    if (buf && size)
        buf[0] = '\0';
    reason_shape(&o, ctx, p, r->failed);    /* V1–V5 */
    reason_schedule(&o, p, r, r->failed);   /* V6 */
    reason_nodes(&o, ctx, p, r->failed);    /* V7, V8 */
    reason_moe(&o, ctx, p, r->failed);      /* V9–V15 (issue 11) */
    reason_budgets(&o, ctx, r, r->failed);  /* §9 */
    return (int)o.len;
}
