/* evaluate.c — scenario + plan → every figure of one report row
 * (model.md §1 validity, §2–§8 through src/model/, §9 budgets and status).
 *
 * evaluate_prepare() flattens everything scenario-level into pe_eval_ctx
 * once (P1–P6, F1–F4, A1–A3 per token, the interconnect in SI units).
 * evaluate_plan() is the hot path: no allocation, no I/O, no globals, no
 * formatting. It checks V1–V8 with integer arithmetic (returning early for
 * an invalid plan), then evaluates stage 0 and stage p−1 with the inline
 * equation functions of src/model/ and picks the memory-worst and time
 * stages (model.md intro). evaluate_format_reason() builds the `reason`
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
    return act_layer(ctx->s, b, 1.0, 0, ctx->act_rep, ctx->act_par, ctx->act_att) * ctx->L /
           PE_GIB;
}

/* The one code path of evaluate_plan() and evaluate_plan_detail(). Always
 * inlined: with d = NULL (the hot path) every detail store is dropped. */
#define DETAIL(...)   \
    do {              \
        if (d) {      \
            __VA_ARGS__; \
        }             \
    } while (0)

static inline __attribute__((always_inline)) void
eval_core(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d)
{
    const int64_t dp = pl->dp, t = pl->tp, p = pl->pp, c = pl->cp;
    const int64_t b = pl->micro_batch, v = pl->virtual_stages, z = pl->zero;
    const int64_t G = ctx->gpus_per_node;
    const pe_schedule sched = pl->schedule;
    const pe_recompute rc = pl->recompute;
    const int sp = pl->sequence_parallel;

    /* ---- §1 validity: every rule, integer arithmetic ---- */
    const int64_t bdp = mul_sat(b, dp);
    const int ok5 = ctx->global_batch % bdp == 0;
    const int64_t m = ok5 ? ctx->global_batch / bdp : 0;
    const int64_t tc = mul_sat(t, c), tcd = mul_sat(tc, dp);
    const int ok1 = mul_sat(tcd, p) == ctx->gpus;                               /* V1 */
    const int ok2 = ctx->agf_gcd % t == 0;                                      /* V2 */
    const int ok3 = ctx->layers % mul_sat(p, v) == 0;                           /* V3 */
    const int ok4 = ctx->seq_len % c == 0 &&
                    !(sp && t > 1 && (ctx->seq_len / c) % t != 0);              /* V4 */
    const int ok6 = sched == PE_SCHEDULE_INTERLEAVED
                        ? p >= 2 && v >= 2 && (!ok5 || m % p == 0)
                        : v == 1;                                               /* V6 */
    const int ok7 = G % t == 0 || (ctx->allow_cross_node_tp && t > G && t % G == 0); /* V7 */
    const int ok8 = (G % tc == 0 || tc % G == 0) && (G % tcd == 0 || tcd % G == 0);  /* V8 */
    uint32_t failed = (uint32_t)!ok1 * PE_FAIL_V1 | (uint32_t)!ok2 * PE_FAIL_V2 |
                      (uint32_t)!ok3 * PE_FAIL_V3 | (uint32_t)!ok4 * PE_FAIL_V4 |
                      (uint32_t)!ok5 * PE_FAIL_V5 | (uint32_t)!ok6 * PE_FAIL_V6 |
                      (uint32_t)!ok7 * PE_FAIL_V7 | (uint32_t)!ok8 * PE_FAIL_V8;
    const int interventions = interventions_of(pl); /* §9 */
    const double bd = (double)b;

    if (failed) {
        *r = (pe_result){.status = PE_STATUS_INVALID,
                         .failed = failed,
                         .gpus = ctx->gpus,
                         .microbatches = m,
                         .interventions = interventions,
                         .state_total_gib = ctx->state_total_gib,
                         .act_total_gib = act_total_gib(ctx, bd)};
        DETAIL(memset(d, 0, sizeof *d); d->valid = false);
        return;
    }

    const pe_overlap *ov = &pl->overlap;
    const double td = (double)t, pd = (double)p, cd = (double)c, dpd = (double)dp;
    const double vd = (double)v, md = (double)m;
    const double lps = ctx->L / pd; /* L/p layers per stage */
    const double sl = ctx->s / cd;  /* s' */
    const double D = dpd * cd;      /* ZeRO sharding group */
    const int one = p == 1;         /* stage 0 is also the last stage */
    const int full = rc == PE_RECOMPUTE_FULL;
    const double bw = ctx->beta_w, bg = ctx->beta_g, bo = ctx->beta_o;

    /* ---- §2 P4, P7 per stage ---- */
    const double n_out = (ctx->tied && one) ? 0.0 : ctx->Vh; /* P4 */
    const double ngpu0 = params_gpu(lps, ctx->N_layer, ctx->N_embed, n_out, ctx->norm_h, 1, one, td);
    const double ngpuL = params_gpu(lps, ctx->N_layer, ctx->N_embed, n_out, ctx->norm_h, one, 1, td);

    /* ---- §3 memory of stages 0 and p−1 ---- */
    const double m1_0 = mem_weights(bw, ngpu0, z, D), m1_L = mem_weights(bw, ngpuL, z, D);
    const double m2_0 = mem_grads(bg, ngpu0, z, D), m2_L = mem_grads(bg, ngpuL, z, D);
    const double m3_0 = mem_optimizer(bo, ngpu0, z, D), m3_L = mem_optimizer(bo, ngpuL, z, D);
    const double m4 = mem_zero3_working(z, bw, bg, ctx->N_layer, ctx->Vh, td);
    const double att = rc == PE_RECOMPUTE_SELECTIVE ? 0.0 : ctx->act_att; /* A3 */
    const double a_layer = act_layer(sl, bd, td, sp, ctx->act_rep, ctx->act_par, att); /* A4 */
    const double a_in = act_input(sl, bd, ctx->h, td, sp);                             /* A5 */
    const double k0 = act_inflight(sched, pd, md, vd, 0);
    const double kL = act_inflight(sched, pd, md, vd, 1);
    const double a6_0 = act_stage(a_layer, a_in, lps, k0, full); /* A6 */
    const double a6_L = act_stage(a_layer, a_in, lps, kL, full);
    const double a7 = act_embed_mask(ctx->delta, sl, bd, ctx->h, td, sp,
                                     act_inflight_first_chunk(sched, pd, md, vd)); /* A7 */
    const double a8 = act_output(sl, bd, ctx->h, ctx->V, td, sp,
                                 act_inflight_last_chunk(sched, pd, md, vd)); /* A8 */
    const double a8_0 = one ? a8 : 0.0, a7_L = one ? a7 : 0.0;
    const double R = ctx->reserve_bytes;
    const double tot0 = mem_total(m1_0, m2_0, m3_0, m4, a6_0, a7, a8_0, R); /* M5 */
    const double totL = mem_total(m1_L, m2_L, m3_L, m4, a6_L, a7_L, a8, R);
    const int mem_last = totL > tot0; /* ties → stage 0 */
    const double mem_tot = mem_last ? totL : tot0;

    /* ---- §4 compute ---- */
    const double x = ctx->x[rc];
    const double ff0 = compute_fwd(bd, sl, lps, ctx->F_layer, ctx->F_out, one, td); /* F5 */
    const double ffL = compute_fwd(bd, sl, lps, ctx->F_layer, ctx->F_out, 1, td);
    const double fb0 = compute_bwd(ff0, bd, sl, lps, x, td);
    const double fbL = compute_bwd(ffL, bd, sl, lps, x, td);
    const double tauf0 = compute_time(ff0, ctx->rate), taub0 = compute_time(fb0, ctx->rate); /* F6 */
    const double taufL = compute_time(ffL, ctx->rate), taubL = compute_time(fbL, ctx->rate);
    const double tau_lf = compute_layer_fwd_time(bd, sl, ctx->F_layer, td, ctx->rate);
    const double tau_lb = compute_layer_bwd_time(bd, sl, ctx->F_layer, x, td, ctx->rate);
    const double tau_att = compute_attention_time(bd, sl, ctx->F_att, td, ctx->rate);

    /* ---- §5 groups: tp (t, 1), cp (c, t), dp (dp·c, t), pp (p, t·c·dp) ---- */
    const pe_net *net = &ctx->net;
    const pe_group g_tp = comm_group(net, t, 1);
    const pe_group g_cp = comm_group(net, c, t);
    const pe_group g_dp = comm_group(net, dp * c, t);
    const pe_group g_pp = comm_group(net, p, tcd);

    /* ---- §6 X1, X2 (same on every stage) ---- */
    const double t_ar_tp = comm_all_reduce(net, &g_tp, comm_tp_bytes(bd, sl, ctx->h));
    const double chi_tpf = comm_tp_fwd(lps, t_ar_tp, ov->tp, tau_lf);
    const double chi_tpb = comm_tp_bwd(lps, t_ar_tp, ov->tp, tau_lb, full);
    const double t_kv = comm_p2p(net, &g_cp, comm_cp_bytes(bd, sl, ctx->g, ctx->d, td));
    const double chi_cpf = comm_cp_fwd(lps, cd, t_kv, ov->cp, tau_att);
    const double chi_cpb = comm_cp_bwd(lps, cd, t_kv, ov->cp, tau_att, rc != PE_RECOMPUTE_NONE);

    /* ---- §7 stage times; the time stage has the larger t_f + t_b ---- */
    const double tf0 = pipe_stage_time(tauf0, chi_tpf, chi_cpf);
    const double tb0 = pipe_stage_time(taub0, chi_tpb, chi_cpb);
    const double tfL = pipe_stage_time(taufL, chi_tpf, chi_cpf);
    const double tbL = pipe_stage_time(taubL, chi_tpb, chi_cpb);
    const int time_last = tfL + tbL > tf0 + tb0; /* ties → stage 0 */
    const double tau_f = time_last ? taufL : tauf0, tau_b = time_last ? taubL : taub0;
    const double t_f = time_last ? tfL : tf0, t_b = time_last ? tbL : tb0;
    const double ngpu = time_last ? ngpuL : ngpu0;

    /* ---- §6 X3–X5 on the time stage ---- */
    const double t_pp = comm_p2p(net, &g_pp, comm_pp_bytes(bd, sl, ctx->h, td, sp));
    const double pp_comm = comm_pp(pd, md, vd, t_pp, ov->pp, tau_f, tau_b); /* X3 */
    const double rs_g = comm_reduce_scatter(net, &g_dp, bg * ngpu);
    const double rs_w = comm_reduce_scatter(net, &g_dp, bw * ngpu);
    const double dp_comm = comm_dp(z, md, rs_g, rs_w, ov->dp, tau_f, tau_b); /* X4 */
    const double opt = comm_optimizer(ngpu, z, D, bw, bg, bo, ctx->hbm_bps); /* X5 */
    const double bubble = pipe_bubble(sched, pd, vd, t_f, t_b);              /* B1–B4 */

    /* ---- §8 ---- */
    const double compute_s = md * (tau_f + tau_b);
    const double tp_comm_s = md * (chi_tpf + chi_tpb);
    const double cp_comm_s = md * (chi_cpf + chi_cpb);
    const double step = step_time(compute_s, tp_comm_s, cp_comm_s, bubble, pp_comm, dp_comm, opt); /* S1 */
    const double comm = step_comm(tp_comm_s, cp_comm_s, pp_comm, dp_comm);
    const double tokens_per_s = step_tokens_per_s(ctx->tokens_per_step, step); /* S4 */
    const double mfu = step_utilisation(ctx->F_model, step, ctx->N, ctx->peak);
    const pe_scenario *sc = ctx->scenario;
    const bool has_days = sc->training.has_tokens;
    const double days = has_days ? step_train_days(sc->training.tokens, tokens_per_s) : 0.0; /* S5 */

    /* ---- §9 budgets ---- */
    const pe_budgets *bu = &sc->budgets;
    failed = (uint32_t)!mem_fits(mem_tot, ctx->budget_bytes) * PE_FAIL_MEMORY |              /* M6 */
             (uint32_t)(bu->has_step_time_s && step > bu->step_time_s) * PE_FAIL_STEP_TIME |
             (uint32_t)(bu->has_train_days && has_days && days > bu->train_days) * PE_FAIL_TRAIN_DAYS |
             (uint32_t)(bu->has_min_mfu && mfu < bu->min_mfu) * PE_FAIL_MIN_MFU;
    const pe_plan_status status = (failed & PE_FAIL_MEMORY) ? PE_STATUS_OVER_MEMORY
                                  : failed                  ? PE_STATUS_OVER_TIME
                                                            : PE_STATUS_OK;

    DETAIL(*d = (pe_detail){
               .valid = true, .lps = lps, .s_local = sl, .D = D, .m = md, .n_out = n_out,
               .n_gpu = {ngpu0, ngpuL}, .m1 = {m1_0, m1_L}, .m2 = {m2_0, m2_L},
               .m3 = {m3_0, m3_L}, .m4 = m4, .att = att, .a_layer = a_layer, .a_in = a_in,
               .k = {k0, kL}, .k_first = act_inflight_first_chunk(sched, pd, md, vd),
               .k_last = act_inflight_last_chunk(sched, pd, md, vd), .a6 = {a6_0, a6_L},
               .a7 = {a7, a7_L}, .a8 = {a8_0, a8}, .total = {tot0, totL},
               .mem_stage = mem_last, .time_stage = time_last, .x = x, .f_fwd = {ff0, ffL},
               .f_bwd = {fb0, fbL}, .tau_f = {tauf0, taufL}, .tau_b = {taub0, taubL},
               .tau_lf = tau_lf, .tau_lb = tau_lb, .tau_att = tau_att, .g_tp = g_tp,
               .g_cp = g_cp, .g_dp = g_dp, .g_pp = g_pp,
               .s_tp = comm_tp_bytes(bd, sl, ctx->h), .t_ar_tp = t_ar_tp, .chi_tp_f = chi_tpf,
               .chi_tp_b = chi_tpb, .s_kv = comm_cp_bytes(bd, sl, ctx->g, ctx->d, td),
               .t_p2p_cp = t_kv, .chi_cp_f = chi_cpf, .chi_cp_b = chi_cpb, .t_f = {tf0, tfL},
               .t_b = {tb0, tbL}, .s_pp = comm_pp_bytes(bd, sl, ctx->h, td, sp),
               .t_p2p_pp = t_pp, .chi_pp = pp_comm, .s_g = bg * ngpu, .s_w = bw * ngpu,
               .t_rs_g = rs_g, .t_rs_w = rs_w, .chi_dp = dp_comm, .optimizer = opt,
               .bubble = bubble});

    const double budget_gib = ctx->budget_bytes / PE_GIB;
    const double mem_gib = mem_tot / PE_GIB;
    *r = (pe_result){
        .status = status,
        .failed = failed,
        .gpus = ctx->gpus,
        .microbatches = m,
        .worst_stage = mem_last ? (int)(p - 1) : 0,
        .mem_weights_gib = (mem_last ? m1_L : m1_0) / PE_GIB,
        .mem_grads_gib = (mem_last ? m2_L : m2_0) / PE_GIB,
        .mem_optimizer_gib = (mem_last ? m3_L : m3_0) / PE_GIB,
        .mem_activations_gib = (mem_last ? a6_L : a6_0) / PE_GIB,
        .mem_other_gib = (mem_last ? m4 + a7_L + a8 : m4 + a7 + a8_0) / PE_GIB,
        .mem_reserve_gib = R / PE_GIB,
        .mem_total_gib = mem_gib,
        .mem_budget_gib = budget_gib,
        .mem_headroom_gib = budget_gib - mem_gib,
        .time_stage = time_last ? (int)(p - 1) : 0,
        .compute_s = compute_s,
        .tp_comm_s = tp_comm_s,
        .cp_comm_s = cp_comm_s,
        .bubble_s = bubble,
        .pp_comm_s = pp_comm,
        .dp_comm_s = dp_comm,
        .optimizer_s = opt,
        .step_time_s = step,
        .comm_fraction = comm / step,                                  /* S2 */
        .bubble_fraction = pipe_bubble_fraction(bubble, md, t_f, t_b), /* §7 */
        .bound = step_bound(compute_s, comm, bubble),                  /* S3 */
        .tokens_per_s = tokens_per_s,
        .mfu = mfu,
        .hfu = step_utilisation(ctx->F_hw[rc], step, ctx->N, ctx->peak),
        .tflops_per_gpu = step_tflops_per_gpu(ctx->F_model, step, ctx->N),
        .has_train_days = has_days,
        .train_days = days,
        .gpu_hours = has_days ? step_gpu_hours(ctx->N, days) : 0.0,
        .interventions = interventions,
        .state_total_gib = ctx->state_total_gib,
        .act_total_gib = act_total_gib(ctx, bd),
        .tier_tp = comm_tier(&g_tp),
        .tier_cp = comm_tier(&g_cp),
        .tier_dp = comm_tier(&g_dp),
        .tier_pp = comm_tier(&g_pp),
    };
}

void evaluate_plan(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r)
{
    eval_core(ctx, pl, r, NULL);
}

void evaluate_plan_detail(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d)
{
    eval_core(ctx, pl, r, d);
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

int evaluate_format_reason(const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r,
                           char *buf, size_t size)
{
    text o = {buf, size, 0, 0};
    if (buf && size)
        buf[0] = '\0';
    const uint32_t f = r->failed;
    const long long dp = p->dp, t = p->tp, pp = p->pp, c = p->cp, b = p->micro_batch,
                    v = p->virtual_stages;
    const long long G = ctx->gpus_per_node;

    char prod[128];
    if (f & PE_FAIL_V1) {
        entry(&o);
        pe_product_text(prod, sizeof prod, (const int64_t[]){p->dp, p->tp, p->pp, p->cp}, 4);
        put(&o, "V1: dp*tp*pp*cp=%s != gpus=%lld", prod, (long long)ctx->gpus);
    }
    if (f & PE_FAIL_V2) {
        entry(&o);
        put(&o, "V2: tp=%lld does not divide", t);
        const char *sep = " ";
        if (ctx->heads % t) {
            put(&o, "%sheads=%lld", sep, (long long)ctx->heads);
            sep = ", ";
        }
        if (ctx->kv_heads % t) {
            put(&o, "%skv_heads=%lld", sep, (long long)ctx->kv_heads);
            sep = ", ";
        }
        if (ctx->ffn_hidden % t)
            put(&o, "%sffn_hidden=%lld", sep, (long long)ctx->ffn_hidden);
    }
    if (f & PE_FAIL_V3) {
        entry(&o);
        if (v == 1)
            put(&o, "V3: pp=%lld does not divide layers=%lld", pp, (long long)ctx->layers);
        else {
            pe_product_text(prod, sizeof prod, (const int64_t[]){pp, v}, 2);
            put(&o, "V3: pp*virtual_stages=%s does not divide layers=%lld", prod,
                (long long)ctx->layers);
        }
    }
    if (f & PE_FAIL_V4) {
        entry(&o);
        if (ctx->seq_len % c)
            put(&o, "V4: cp=%lld does not divide seq_len=%lld", c, (long long)ctx->seq_len);
        else
            put(&o, "V4: tp=%lld does not divide seq_len/cp=%lld (sequence parallel)", t,
                (long long)(ctx->seq_len / c));
    }
    if (f & PE_FAIL_V5) {
        entry(&o);
        pe_product_text(prod, sizeof prod, (const int64_t[]){b, dp}, 2);
        put(&o, "V5: micro_batch*dp=%s does not divide global_batch=%lld", prod,
            (long long)ctx->global_batch);
    }
    if (f & PE_FAIL_V6) {
        entry(&o);
        if (p->schedule == PE_SCHEDULE_INTERLEAVED) {
            put(&o, "V6: interleaved needs");
            const char *sep = " ";
            if (pp < 2) {
                put(&o, "%spp>=2 (pp=%lld)", sep, pp);
                sep = ", ";
            }
            if (v < 2) {
                put(&o, "%svirtual_stages>=2 (virtual_stages=%lld)", sep, v);
                sep = ", ";
            }
            if (!(f & PE_FAIL_V5) && r->microbatches % pp)
                put(&o, "%smicrobatches=%lld to be a multiple of pp=%lld", sep,
                    (long long)r->microbatches, pp);
        } else {
            put(&o, "V6: %s needs virtual_stages=1 (virtual_stages=%lld)",
                pe_schedule_name(p->schedule), v);
        }
    }
    if (f & PE_FAIL_V7) {
        entry(&o);
        if (ctx->allow_cross_node_tp)
            put(&o, "V7: tp=%lld neither divides nor is a multiple of gpus_per_node=%lld", t, G);
        else if (t > G && t % G == 0)
            put(&o, "V7: tp=%lld does not divide gpus_per_node=%lld (allow_cross_node_tp is false)",
                t, G);
        else
            put(&o, "V7: tp=%lld does not divide gpus_per_node=%lld", t, G);
    }
    if (f & PE_FAIL_V8) {
        entry(&o);
        const long long tc = mul_sat(p->tp, p->cp), tcd = mul_sat(tc, p->dp);
        put(&o, "V8:");
        const char *sep = " ";
        if (G % tc && tc % G) {
            pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp}, 2);
            put(&o, "%stp*cp=%s neither divides nor is a multiple of gpus_per_node=%lld", sep,
                prod, G);
            sep = ", ";
        }
        if (G % tcd && tcd % G) {
            pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
            put(&o, "%stp*cp*dp=%s neither divides nor is a multiple of gpus_per_node=%lld",
                sep, prod, G);
        }
    }

    char a[512], lim[64];
    if (f & PE_FAIL_MEMORY) {
        entry(&o);
        fmt_vs(a, sizeof a, r->mem_total_gib, 2, 0, r->mem_budget_gib, 1);
        fmt_shortest(lim, sizeof lim, r->mem_budget_gib);
        put(&o, "memory: %s GiB > budget %s GiB", a, lim);
    }
    const pe_budgets *bu = &ctx->scenario->budgets;
    if (f & PE_FAIL_STEP_TIME) {
        entry(&o);
        fmt_vs(a, sizeof a, r->step_time_s, 1, 0, bu->step_time_s, 1);
        fmt_shortest(lim, sizeof lim, bu->step_time_s);
        put(&o, "step_time: %s s > budget %s s", a, lim);
    }
    if (f & PE_FAIL_TRAIN_DAYS) {
        entry(&o);
        fmt_vs(a, sizeof a, r->train_days, 1, 0, bu->train_days, 1);
        fmt_shortest(lim, sizeof lim, bu->train_days);
        put(&o, "train_days: %s > budget %s", a, lim);
    }
    if (f & PE_FAIL_MIN_MFU) {
        entry(&o);
        fmt_vs(a, sizeof a, r->mfu, 0, 2, bu->min_mfu, 0);
        fmt_shortest(lim, sizeof lim, bu->min_mfu);
        put(&o, "mfu: %s < min_mfu %s", a, lim);
    }
    return (int)o.len;
}
