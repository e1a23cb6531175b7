/* compute_step.h — docs/model.md §4 F4–F6 and §12 F7–F11, F21 of one plan,
 * for every kind of layer and precision: MoE layers (F15, F19), FP8 (F16,
 * F18) and uneven stages (F20) are terms of the same per-stage sums, 0 when
 * off. Fills the compute part of the detail record: the FLOPs and times per
 * micro-batch of each candidate stage and of one layer. Inline: it runs for
 * every plan. */
#ifndef PLANEVAL_MODEL_COMPUTE_STEP_H
#define PLANEVAL_MODEL_COMPUTE_STEP_H

#include "model/compute.h"
#include "model/detail.h"
#include "model/layout.h"
#include "model/memory_lora.h"

/* F4 x of an MoE layer: its whole hardware forward (full), the attention
 * core (selective), 0 */
ALWAYS_INLINE double compute_moe_recompute(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return pl->recompute == PE_RECOMPUTE_FULL        ? ctx->moe.F_layer_m
           : pl->recompute == PE_RECOMPUTE_SELECTIVE ? ctx->moe.F_att
                                                     : 0.0;
}

/* F27 full recompute by layer (A18's recompute_method, N): the layers each
 * candidate stage recomputes, and F_hw with the model's recomputed layers
 * R = Σ over the p stages (stage 0, p−1 and p − 2 middle ones as the middle
 * candidate): F_hw(none) + (F_hw(full) − F_hw(none))·R/L. Only with
 * rc_by_layer and recompute: full; otherwise every layer recomputes x. */
ALWAYS_INLINE void compute_by_layer(const pe_eval_ctx *ctx, const pe_layout *q, pe_detail *w)
{
    for (int i = 0; i < q->nst; i++)
        w->rec_layers[i] = compute_recomputed_layers(ctx->rc_method, ctx->rc_layers, q->v,
                                                     q->ls[i]); /* F27 */
    const double mid = q->nst == 3 ? w->rec_layers[2]
                                   : compute_recomputed_layers(ctx->rc_method, ctx->rc_layers,
                                                               q->v, q->ls[2]);
    const double R = q->one ? w->rec_layers[0]
                            : w->rec_layers[0] + w->rec_layers[1] + (q->p - 2.0) * mid;
    const double none = ctx->F_hw[PE_RECOMPUTE_NONE];
    w->f_hw = none + (ctx->F_hw[PE_RECOMPUTE_FULL] - none) * R / ctx->L;
}

/* F4, F5 (F15 with MoE layers): FLOPs per micro-batch of each stage; with
 * F27 the backward recomputes x on rec_layers of the stage's layers only
 * (MoE stages: that share of each kind). */
ALWAYS_INLINE void compute_flops(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                 pe_detail *w)
{
    const double x = w->x = ctx->x[pl->recompute]; /* F4 */
    const pe_moe_ctx *e = &ctx->moe;
    const double bs_t = q->b * q->sl / q->t, x_m = q->moe ? compute_moe_recompute(ctx, pl) : 0.0;
    const int by_layer = q->full && ctx->rc_by_layer;
    w->f_hw = ctx->F_hw[pl->recompute];
    if (by_layer)
        compute_by_layer(ctx, q, w); /* F27 */
    for (int i = 0; i < q->nst; i++) {
        const int last = i == 1 || q->one;
        if (!by_layer)
            w->rec_layers[i] = q->ls[i];
        if (!q->moe) {
            w->f_fwd[i] = compute_fwd(q->b, q->sl, q->ls[i], ctx->F_layer, ctx->F_out, last, q->t);
            w->f_bwd[i] = compute_bwd(w->f_fwd[i], q->b, q->sl, w->rec_layers[i], x, q->t); /* F5 */
            continue;
        }
        const double n = q->n_moe[i], nd = q->ls[i] - n;
        const double fsum = nd * e->F_layer_d + n * e->F_layer_m;
        const double xsum = by_layer && q->ls[i] > 0.0
                                ? (nd * x + n * x_m) * w->rec_layers[i] / q->ls[i] /* F27 */
                                : nd * x + n * x_m;
        w->f_fwd[i] = bs_t * (fsum + (last ? ctx->F_out : 0.0)); /* F15 */
        w->f_bwd[i] = 2.0 * w->f_fwd[i] + bs_t * xsum;
    }
}

/* F6 at peak·e, or F16 with fp8: the linear layers' FLOPs at peak_fp8·e,
 * the rest (attention scores, router, output layer) at peak·e. The times of
 * each stage (before F21) go to tau_f, tau_b; one layer's to the detail. */
#define PE_TEXT_F16 \
    {"F16", "τ_f, τ_b", "fp8 FLOPs/(peak_fp8·e) + the other FLOPs/(peak·e)", "s", "design §6"}
#define PE_TEXT_F16_ACCUM \
    {"F16:accum", "τ_f, τ_b", "fp8 FLOPs/(peak_fp8·e) + the other FLOPs/(peak·e); τ_b + F21", \
     "s", "design §6"}
ALWAYS_INLINE void compute_textbook(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                    pe_detail *w, double tau_f[3], double tau_b[3])
{
    const pe_moe_ctx *e = &ctx->moe;
    const double bs_t = q->b * q->sl / q->t, r16 = ctx->rate, r8 = ctx->rate8;
    const double again = q->full ? 1.0 : 0.0; /* full recompute re-runs the forward GEMMs */
    for (int i = 0; i < q->nst; i++) {
        if (!q->fp8) {
            tau_f[i] = compute_time(w->f_fwd[i], ctx->rate); /* F6 */
            tau_b[i] = compute_time(w->f_bwd[i], ctx->rate);
            continue;
        }
        const double n = q->n_moe[i], nd = q->ls[i] - n;
        const double f8f = bs_t * (nd * ctx->F8_layer + n * e->F8_layer_m);
        const double share = q->full && ctx->rc_by_layer && q->ls[i] > 0.0
                                 ? w->rec_layers[i] / q->ls[i] /* F27: the recomputed share */
                                 : again;
        const double f8b = (2.0 + share) * f8f;
        tau_f[i] = (w->f_fwd[i] - f8f) / r16 + f8f / r8; /* F16 */
        tau_b[i] = (w->f_bwd[i] - f8b) / r16 + f8b / r8;
    }
    if (ctx->tp_async_bwd || ctx->tp_micro_pipeline) /* X13's, X16's windows: each GEMM's
                                                        FLOPs at F6's rate (F16: FP8's) */
        for (int i = 0; i < PE_LAYER_GEMMS; i++)
            w->gemm_chunks_t[i] = w->gemm_t[i] = /* F29: t chunks at one rate, the same time */
                compute_gemm_flops(q->b * q->sl, &ctx->gemms[i], q->t) /
                (q->fp8 ? ctx->rate8 : ctx->rate);
    w->tau_chunks = 0.0;
    if (q->fp8) {
        const double f8l = bs_t * ctx->F8_layer, fl = bs_t * ctx->F_layer, xl = bs_t * w->x;
        w->tau_lf = (fl - f8l) / r16 + f8l / r8;
        w->tau_lb = (2.0 * fl + xl - (2.0 + again) * f8l) / r16 + (2.0 + again) * f8l / r8;
    } else {
        w->tau_lf = compute_layer_fwd_time(q->b, q->sl, ctx->F_layer, q->t, ctx->rate);
        w->tau_lb = compute_layer_bwd_time(q->b, q->sl, ctx->F_layer, w->x, q->t, ctx->rate);
    }
    w->tau_att = compute_attention_time(q->b, q->sl, ctx->F_att, q->t, ctx->rate);
    if (!q->moe)
        return;
    /* one MoE layer: F15 at peak·e; F16 splits it, from the bf16 backward
     * time's FLOPs (τ_mlb·peak·e, kept so for the same rounding) */
    const double x_m = compute_moe_recompute(ctx, pl);
    const double mlf = bs_t * e->F_layer_m / ctx->rate;
    const double mlb = bs_t * (2.0 * e->F_layer_m + x_m) / ctx->rate;
    if (q->fp8) {
        const double f8m = bs_t * e->F8_layer_m, fm = bs_t * e->F_layer_m, fmb = mlb * r16;
        w->moe.tau_mlf = (fm - f8m) / r16 + f8m / r8;
        w->moe.tau_mlb = (fmb - (2.0 + again) * f8m) / r16 + (2.0 + again) * f8m / r8;
    } else {
        w->moe.tau_mlf = mlf;
        w->moe.tau_mlb = mlb;
    }
    if (ctx->tp_async_bwd && e->sh_f > 0) /* X13's window: the shared experts' fc1 */
        w->moe.t_sh_in = compute_gemm_flops(q->b * q->sl, &ctx->moe_sh_fc1, q->t) /
                         (q->fp8 ? ctx->rate8 : ctx->rate);
}

/* F7–F10 (F18 with fp8) one dense layer from its GEMM shapes, the attention
 * core and the element-wise bytes; the output layer. */
#define PE_TEXT_F9 \
    {"F9", "attention core per layer", \
     "b·s'·4·s·h·κ/t / (peak·e_att)", \
     "s", "Narayanan §5.1"}
#define PE_TEXT_F10 \
    {"F10", "element-wise per layer", \
     "b·s'·(rep/(sp ? t : 1) + par/t + att/t) / (W·η_W)", \
     "s", "Korthikanti §4; roofline"}
#define PE_TEXT_F7_10_OUT \
    {"F7-10", "output layer (last stage)", \
     "GEMM M×h×V/t + b·s'·12·V/t/(W·η_W)", \
     "s", "spec §12"}
#define PE_TEXT_F8_10_LAYER \
    {"F8-10", "τ_lf, τ_lb, τ_att per layer", \
     "GEMMs + core + element-wise; 2·τ_lf + recompute (full τ_lf, selective core + att part)", \
     "s", "spec §12"}
/* X31 (cp_ring_load_balance, cp > 1): the core F9 gave (core, kept in
 * core_f9) becomes the load-balanced ring's causal diagonal step and its
 * c − 1 non-causal half blocks, and the ring's eager merge passes are timed
 * per layer (forward, backward) at W·η_W. Off or c = 1: core as given. */
ALWAYS_INLINE double compute_cp_ring_layer(const pe_eval_ctx *ctx, const pe_layout *q,
                                           pe_detail *w, double M, double inv_t, double core)
{
    w->core_f9 = core;
    w->cp_ring_f = w->cp_ring_b = w->cp_ring_share = 0.0;
    w->cp_ring_shape_half = 1.0;
    if (!ctx->cp_ring_lb || q->c <= 1.0)
        return core;
    const double s_h = ctx->att_by_shape /* F22 non-causal, s'/2 keys per query */
                           ? compute_attention_shape(0.5 * q->sl, ctx->att_half_seq, 0.0)
                           : 1.0;
    const double share =
        compute_cp_ring_core_share(q->c, ctx->att_work, ctx->att_kappa, w->att_shape, s_h);
    w->cp_ring_share = share, w->cp_ring_shape_half = s_h;
    const double elems = M * ctx->cp_ring_merge_w * inv_t; /* s'·b·W */
    const double inv_bw = ctx->ew_bps > 0.0 ? 1.0 / ctx->ew_bps : 0.0;
    w->cp_ring_f = elems * compute_cp_ring_fwd_bytes(q->c) * inv_bw;
    w->cp_ring_b = elems * compute_cp_ring_bwd_bytes(q->c) * inv_bw;
    return M * inv_t * ctx->core_unit_s * share;
}

ALWAYS_INLINE void compute_refined_layer(const pe_eval_ctx *ctx, const pe_plan *pl,
                                         const pe_layout *q, pe_detail *w)
{
    const double M = q->b * q->sl, inv_t = 1.0 / q->t; /* M: tokens of a micro-batch on a GPU */
    double gemm = 0.0;
    for (int i = 0; i < PE_LAYER_GEMMS; i++) {
        w->gemm_t[i] = compute_gemm_time_coef(&ctx->gemm_coef[i], M, inv_t,
                                              ctx->t_half_layer); /* F8, F18 */
        gemm += w->gemm_t[i];
    }
    w->att_shape = ctx->att_by_shape
                       ? compute_attention_shape(q->sl, ctx->att_half_seq, ctx->att_tile) /* F22 */
                       : 1.0;
    const double core = compute_cp_ring_layer( /* X31, else F9 as is */
        ctx, q, w, M, inv_t,
        ctx->att_by_shape ? M * inv_t * ctx->core_s / w->att_shape : M * inv_t * ctx->core_s);
    const double ring_f = w->cp_ring_f; /* X31's merge passes (0: off) */
    const double ew_att = M * inv_t * ctx->ew_att_s;                                   /* F10 */
    const double ew = M * (ctx->ew_rep_s * (q->sp ? inv_t : 1.0) + ctx->ew_par_s * inv_t) + ew_att;
    const double out = compute_gemm_time_coef(&ctx->out_coef, M, inv_t, ctx->t_half) +
                       M * inv_t * ctx->ew_out_s;
    double chunks = 0.0; /* F29: async TP's GEMMs as t chunks of M/t rows (X16's condition; */
    const bool x16 = ctx->tp_micro_pipeline && q->sp && q->t > 1 && !q->moe; /* overlap.tp 0: */
    const bool mp = x16 && pl->overlap.tp > 0.0; /* plain TP, nothing chunked) */
    for (int i = 0; x16 && i < PE_LAYER_GEMMS; i++) {
        w->gemm_chunks_t[i] = mp ? compute_gemm_chunks_time_coef(&ctx->gemm_coef[i], M, q->t,
                                                                 inv_t, ctx->t_half_layer)
                                 : w->gemm_t[i];
        chunks += w->gemm_chunks_t[i] - w->gemm_t[i];
    }
    w->tau_chunks = chunks;
    const double gs = compute_fp8_cast_gathered_share(q->sp, ctx->cast_before_gather, inv_t);
    const pe_fp8_role_casts *cr = &ctx->cast_roles_s; /* F35, F36; all 0 when off */
    const double cast_f = M * (cr->fwd_gathered * gs + cr->fwd_sharded * inv_t);
    const double cast_b = M * (cr->bwd_gathered * gs + cr->bwd_sharded * inv_t);
    w->tau_cast_f = cast_f, w->tau_cast_b = cast_b;
    const double lf = gemm + core + ew + chunks + cast_f + ring_f; /* backward: 2 × fwd, + rec */
    const double op = ctx->op_rec_share[0] * w->gemm_t[0] + ctx->op_rec_share[1] * w->gemm_t[1] +
                      ctx->op_rec_share[2] * w->gemm_t[2] + ctx->op_rec_share[3] * w->gemm_t[3];
    const bool f39 = ctx->op_sac_ew && !q->moe && !q->full && pl->recompute == PE_RECOMPUTE_SELECTIVE;
    w->tau_rec_ew = f39 /* F39: the forward's element-wise and casts, re-run */
                        ? compute_op_sac_elementwise(ew, ew_att, cast_f, ctx->fp8_cost.cast_bytes,
                                                     ctx->op_sac_amax_saved)
                        : 0.0;
    const double sel = ctx->op_sac && !q->moe ? op + w->tau_rec_ew : core + ew_att + ring_f; /* F25, or core */
    const double rec = q->full ? lf : pl->recompute == PE_RECOMPUTE_SELECTIVE ? sel : 0.0;
    w->tau_lf = lf;
    /* F29: input-gradient GEMMs chunked, weight-gradient not; F35: the casts role by role */
    w->tau_lb = 2.0 * lf + rec - chunks - 2.0 * cast_f + cast_b - 2.0 * ring_f + w->cp_ring_b;
    w->tau_att = core;
    w->tau_gemm = gemm, w->tau_core = core, w->tau_ew = ew, w->tau_ew_att = ew_att;
    w->tau_out = out;
}

/* F19 one MoE layer from its GEMM shapes: the attention GEMMs of F7, the
 * shared experts (TP-split like a dense MLP), the router on the rank's
 * sequence shard (bf16, replicated weights), and each of the E/ep local
 * experts as its own multiply of M_e = b·s'·k·ρ·ep·etp/(t·E) rows by
 * h × k_μ'·f_e/etp and f_e/etp × h (the rows routed to one expert after the
 * EP all-to-all and the etp all-gather); core and element-wise work as F9,
 * F10 with the routed and shared activations. */
/* F23 the MoE token permutation (Megatron-Core moe_utils.permute: the rank's
 * b·s'/t tokens copied into k·ρ expert-sorted rows) and unpermutation
 * (moe_utils.unpermute: each weighted copy scatter-added back into its
 * token's row): moe_permute_bytes per hidden element of each copy, at
 * W·η_W; its backward moves the same bytes once (the gradient of a gather
 * is a scatter-add and of the scatter-add a gather), not twice as the GEMMs. */
#define PE_TEXT_F23 \
    {"F23", "MoE token permutation and unpermutation (refined)", \
     "b·s'/t · k·ρ · moe_permute_bytes·h / (W·η_W); backward the same, full recompute twice", \
     "s", "Megatron-Core moe_utils permute/unpermute"}
#define PE_TEXT_F19 \
    {"F19", "one MoE layer from its GEMMs (refined)", \
     "attention GEMMs + shared + router + (E/ep)·expert(M_e) + core + element-wise", \
     "s", "docs/model.md §12"}
ALWAYS_INLINE void compute_refined_moe_layer(const pe_eval_ctx *ctx, const pe_plan *pl,
                                             const pe_layout *q, pe_detail *w)
{
    const pe_moe_ctx *e = &ctx->moe;
    const pe_gemm_coef *c = ctx->moe_coef;
    const double M = q->b * q->sl, inv_t = 1.0 / q->t, th = ctx->t_half_layer;
    const double ep = (double)pl->ep, etp = (double)pl->etp, inv_etp = 1.0 / etp;
    const double M_e = w->moe.M_e = M * e->k * e->rho * ep * etp / (q->t * e->E);
    const double sh_in = e->sh_f > 0 ? compute_gemm_time_coef(&c[0], M, inv_t, th) : 0.0;
    w->moe.t_sh_in = sh_in;
    w->moe.t_sh = e->sh_f > 0 ? sh_in + compute_gemm_time_coef(&c[1], M, inv_t, th) : 0.0;
    w->moe.t_router = compute_gemm_time_coef(&c[2], M * inv_t, 1.0, ctx->t_half);
    const double hr = ctx->moe_half_rows; /* F38 M_half; 0: F8 as is */
    w->moe.t_exp = e->E / ep * (compute_expert_gemm_time_coef(&c[3], M_e, inv_etp, th, hr) +
                                compute_expert_gemm_time_coef(&c[4], M_e, inv_etp, th, hr));
    const double ew = M * (ctx->ew_rep_s * (q->sp ? inv_t : 1.0) + ctx->ew_par_m_s * inv_t) +
                      w->tau_ew_att;
    const double lf = w->gemm_t[0] + w->gemm_t[1] + w->moe.t_sh + w->moe.t_router +
                      w->moe.t_exp + w->tau_core + ew + w->tau_cast_f + w->cp_ring_f; /* F35, X31 */
    const double rec = q->full ? lf
                       : pl->recompute == PE_RECOMPUTE_SELECTIVE
                           ? w->tau_core + w->tau_ew_att + w->cp_ring_f
                           : 0.0;
    const double ring_b = w->cp_ring_b - 2.0 * w->cp_ring_f; /* X31 (0: off) */
    if (ctx->moe_permute_s > 0.0) { /* F23: once forward, once backward (+ full recompute) */
        const double perm = w->moe.t_perm = M * inv_t * e->k * e->rho * ctx->moe_permute_s;
        w->moe.tau_mlf = lf + perm;
        w->moe.tau_mlb = 2.0 * lf + rec + (q->full ? 2.0 : 1.0) * perm - 2.0 * w->tau_cast_f +
                         w->tau_cast_b + ring_b;
        return;
    }
    w->moe.tau_mlf = lf;
    w->moe.tau_mlb = 2.0 * lf + rec - 2.0 * w->tau_cast_f + w->tau_cast_b + ring_b;
}

/* F11, F20: each candidate stage from its layers' times, the output layer
 * and t_mb (dense layers only: L_j·τ_lf; with MoE layers (L_j − n_j)·τ_lf +
 * n_j·τ_mlf). */
#define PE_TEXT_F11_F20 \
    {"F11/F20", "τ_f, τ_b of a stage", \
     "L_j·τ_lf (MoE: (L_j − n_j)·τ_lf + n_j·τ_mlf) + (last ? out : 0) + t_mb/3; " \
     "τ_b likewise with τ_lb, τ_mlb, 2·out, 2·t_mb/3", \
     "s", "spec §12"}
#define PE_TEXT_F11_F20_ACCUM \
    {"F11/F20:accum", "τ_f, τ_b of a stage", \
     "L_j·τ_lf (MoE: (L_j − n_j)·τ_lf + n_j·τ_mlf) + (last ? out : 0) + t_mb/3; " \
     "τ_b likewise with τ_lb, τ_mlb, 2·out, 2·t_mb/3, + F21 below", \
     "s", "spec §12"}
ALWAYS_INLINE void compute_refined_stages(const pe_eval_ctx *ctx, const pe_layout *q,
                                          const pe_detail *w, double tau_f[3], double tau_b[3])
{
    for (int i = 0; i < q->nst; i++) {
        const int last = i == 1 || q->one;
        if (!q->moe) {
            tau_f[i] = q->ls[i] * w->tau_lf + (last ? w->tau_out : 0.0) + ctx->t_mb / 3.0; /* F11 */
            tau_b[i] = q->ls[i] * w->tau_lb + (last ? 2.0 * w->tau_out : 0.0) +
                       2.0 * ctx->t_mb / 3.0;
        } else {
            const double n = q->n_moe[i], nd = q->ls[i] - n;
            tau_f[i] = nd * w->tau_lf + n * w->moe.tau_mlf + (last ? w->tau_out : 0.0) +
                       ctx->t_mb / 3.0; /* F20 */
            tau_b[i] = nd * w->tau_lb + n * w->moe.tau_mlb + (last ? 2.0 * w->tau_out : 0.0) +
                       2.0 * ctx->t_mb / 3.0;
        }
        if (q->full && ctx->rc_by_layer && q->ls[i] > 0.0) /* F27: the stored layers' share of
                                                              the recomputed forward, τ_lf each */
            tau_b[i] -= (q->ls[i] - w->rec_layers[i]) / q->ls[i] *
                        (tau_f[i] - (last ? w->tau_out : 0.0) - ctx->t_mb / 3.0);
    }
}

/* §4 and §12 compute of every candidate stage; F21 (framework
 * grad_accum_bytes): every micro-batch's backward adds its weight gradients
 * into the accumulation buffer, a memory-bound pass over the stage's
 * parameters on this GPU (dense and expert; their shard with z ≥ 2, where
 * gradients are reduced every micro-batch). Reads the memory part (N_gpu,
 * the expert parameters). */
#define PE_TEXT_F21 \
    {"F21", "gradient accumulation per micro-batch", \
     "(N_gpu/(z ≥ 2 ? D : 1) + N_experts/(z ≥ 2 ? D_e : 1))·grad_accum_bytes/(W·η_W)", "s", \
     "Megatron-LM DDP hook"}
/* F32 (compute.h): the MoE layer's overlapped share on the S − c SMs the
 * EP all-to-all kernels leave; only where there is an all-to-all (ep > 1)
 * and overlap.ep hides it (without overlap the kernels run alone). */
ALWAYS_INLINE void compute_comm_sms(const pe_eval_ctx *ctx, const pe_plan *pl, pe_detail *w)
{
    w->moe.tau_mlf_all_sms = w->moe.tau_mlf;
    w->moe.tau_mlb_all_sms = w->moe.tau_mlb;
    if (pl->ep > 1 && pl->overlap.ep > 0.0) {
        w->moe.tau_mlf = compute_comm_sms_time(w->moe.tau_mlf, pl->overlap.ep, ctx->comm_sms_stretch);
        w->moe.tau_mlb = compute_comm_sms_time(w->moe.tau_mlb, pl->overlap.ep, ctx->comm_sms_stretch);
    }
}

/* F37 (training.finetune: lora, docs/model.md §4): a frozen base linear's
 * backward computes the input gradient only (PEFT sets requires_grad False
 * on it, so autograd runs no weight-gradient GEMM: 2·M·K·N of F5's 4·M·K·N,
 * the wgrad term removed is 2·M·N_mm/t a layer); the adapters add x·A and
 * (x·A)·B per target, forward once, backward twice (input and weight
 * gradient), again with full recompute; with a quantised base bitsandbytes'
 * dequantize kernel writes each linear's bf16 weight once per forward and
 * per backward (and per recomputed forward): (β_q + 2)·N_mm/t bytes at
 * W·η_W, counted as memory traffic (no measurement). Textbook: FLOPs at
 * peak·e; refined: each adapter GEMM at F8 by its shape. The output layer
 * is frozen too: its backward loses the weight-gradient multiply, M·F_out/t
 * (refined: its F8 GEMM time once). */
#define PE_TEXT_F37 \
    {"F37", "LoRA compute per layer (finetune: lora)", \
     "τ_lf + ad + dq; τ_lb − wg + 2·ad + dq (+ ad + dq full recompute); ad = adapters' GEMMs " \
     "2·M·r·(Σwhole + Σsplit/t) (refined: F8 each), wg = 2·M·N_mm/t (refined: the layer GEMMs), " \
     "dq = (β_q + 2)·N_mm/t/(W·η_W); last stage τ_b − the output layer's wgrad M·2hV/t", \
     "s", "Hu et al. arXiv:2106.09685; Dettmers et al. arXiv:2305.14314; PEFT tuners/lora"}
ALWAYS_INLINE void compute_lora(const pe_eval_ctx *ctx, const pe_layout *q, pe_detail *w,
                                double tau_f[3], double tau_b[3])
{
    const pe_lora_ctx *lo = &ctx->lora;
    const double M = q->b * q->sl, inv_t = 1.0 / q->t, again = q->full ? 1.0 : 0.0;
    const double ad_flop = 2.0 * M * params_lora_layer(lo->r, lo->rep, lo->sh, q->t);
    const double wg_flop = 2.0 * M * ctx->N_mm * inv_t;
    double ad = ad_flop / ctx->rate, wg = wg_flop / ctx->rate;
    if (ctx->refined_compute) {
        ad = 0.0;
        for (int j = 0; j < lo->n_gemms; j++)
            ad += compute_gemm_time(M, lo->ad_split[j] == 1 ? lo->ad_K[j] * inv_t : lo->ad_K[j],
                                    lo->ad_split[j] == 2 ? lo->ad_N[j] * inv_t : lo->ad_N[j],
                                    ctx->gemm_rate, ctx->t_half_layer, ctx->hbm_bps); /* F8 */
        wg = w->tau_gemm;
    }
    const double dq = lo->deq_bytes * inv_t / lo->deq_bps;
    w->lora_ad_flop = ad_flop, w->lora_wg_flop = wg_flop;
    w->lora_ad_t = ad, w->lora_wg_t = wg, w->lora_dq_t = dq;
    w->tau_lf += ad + dq;
    w->tau_lb += (2.0 + again) * ad - wg + (1.0 + again) * dq;
    /* the frozen output layer: no weight gradient either, M·F_out/t (F2) */
    const double out_flop = M * ctx->F_out * inv_t;
    const double out_t = ctx->refined_compute
                             ? compute_gemm_time_coef(&ctx->out_coef, M, inv_t, ctx->t_half)
                             : out_flop / ctx->rate;
    w->lora_out_t = out_t;
    for (int i = 0; i < q->nst; i++) {
        const double ls = q->ls[i], rec = q->full ? w->rec_layers[i] : 0.0; /* F27 */
        const int last = i == 1 || q->one;
        w->f_fwd[i] += ls * ad_flop;
        w->f_bwd[i] += ls * (2.0 * ad_flop - wg_flop) + rec * ad_flop - (last ? out_flop : 0.0);
        tau_f[i] += ls * (ad + dq);
        tau_b[i] += ls * (2.0 * ad - wg + dq) + rec * (ad + dq) - (last ? out_t : 0.0);
    }
}

ALWAYS_INLINE void compute_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                pe_detail *w)
{
    double tau_f[3], tau_b[3];
    compute_flops(ctx, pl, q, w);
    if (ctx->refined_compute) {
        compute_refined_layer(ctx, pl, q, w);
        if (q->moe)
            compute_refined_moe_layer(ctx, pl, q, w);
        if (q->moe && ctx->comm_sms_stretch > 0.0)
            compute_comm_sms(ctx, pl, w); /* F32 */
        compute_refined_stages(ctx, q, w, tau_f, tau_b);
    } else {
        compute_textbook(ctx, pl, q, w, tau_f, tau_b);
    }
    if (ctx->lora.on)
        compute_lora(ctx, q, w, tau_f, tau_b); /* F37 */
    const int accum = ctx->accum_s_per_param > 0.0, shard = pl->zero >= 2;
    for (int i = 0; i < q->nst; i++) {
        w->tau_f[i] = tau_f[i];
        if (accum) {
            const double n = w->n_train[i] / (shard ? q->D : 1.0) +
                             (q->moe ? w->moe.n_exp[i] / (shard ? q->D_e : 1.0) : 0.0);
            w->t_accum[i] = n * ctx->accum_s_per_param; /* F21 */
        }
        w->tau_b[i] = accum ? tau_b[i] + w->t_accum[i] : tau_b[i];
    }
}

#endif
