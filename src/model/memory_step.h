/* memory_step.h — docs/model.md §2 P4, P7 and §3 M1–M6 of one plan's
 * candidate stages, for every kind of layer and precision: the MoE terms
 * (P15, P16, M1′–M4′, A4′, A6′, A11, A12), FP8's weight copies (M7) and
 * optimizer offload (M3″, M8) are terms that are 0 when off. Fills the
 * memory part of the detail record (detail.h) and picks the memory-worst
 * stage, once. Inline: it runs for every plan. */
#ifndef PLANEVAL_MODEL_MEMORY_STEP_H
#define PLANEVAL_MODEL_MEMORY_STEP_H

#include "model/detail.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/memory_lora.h"
#include "model/memory_deepspeed.h"
#include "model/memory_native.h"
#include "model/memory_megatron.h"
#include "model/params.h"

ALWAYS_INLINE double mem_max2(double a, double b) { return a > b ? a : b; }

/* Model state of one candidate stage: P7 (dense) or P15 + P16 (experts),
 * M1–M3 or M1′–M3′, and M7, before offload. */
typedef struct {
    double n_gpu, n_exp;   /* P7 or P15; P16 */
    double m1, m2, m3;     /* M1–M3 (M1′–M3′) */
    double experts;        /* the expert part of m1 + m2 + m3 */
    double m7, m7e;        /* M7 FP8 weight copies, of which the experts' */
    double n_train;        /* the trained parameters: N_gpu, or M16's adapters (lora) */
    double m15;            /* M15 the frozen base weights (lora; 0 else), part of m1 */
} mem_state;

/* M15, M16 (training.finetune: lora): the frozen base at its storage bytes,
 * the adapters with their gradients and optimizer state. */
ALWAYS_INLINE void mem_lora_state(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                  mem_state *s, int i)
{
    const pe_lora_ctx *lo = &ctx->lora;
    const int64_t z = pl->zero;
    const double n_lin = q->ls[i] * ctx->N_mm / q->t;
    s->n_train = q->ls[i] * params_lora_layer(lo->r, lo->rep, lo->sh, q->t);  /* M16 */
    s->m15 = mem_lora_base(ctx->beta_w, lo->beta_q, s->n_gpu, n_lin, z, q->D); /* M15 */
    s->m1 = s->m15 + mem_weights(ctx->beta_w, s->n_train, z, q->D);
    s->m2 = mem_grads(ctx->beta_g, s->n_train, z, q->D);
    s->m3 = mem_optimizer(ctx->beta_o, s->n_train, z, q->D);
}

/* The model state of candidate stage i; M1′–M3′'s expert part is sharded
 * over edp. */
#define PE_TEXT_M_EXPERTS \
    {"M'", "expert weights + grads + optimizer", "β·N_exp/(ZeRO ? edp : 1)", "bytes", "design §2"}
ALWAYS_INLINE mem_state mem_stage_state(const pe_eval_ctx *ctx, const pe_plan *pl,
                                        const pe_layout *q, double n_out, int i)
{
    const int64_t z = pl->zero;
    const double bw = ctx->beta_w, bg = ctx->beta_g, bo = ctx->beta_o;
    const int first = i == 0 || q->one, last = i == 1 || q->one;
    const double n = q->n_moe[i], nd = q->ls[i] - n;
    mem_state s = {0};
    if (q->moe) {
        const pe_moe_ctx *e = &ctx->moe;
        s.n_gpu = ((nd * e->N_layer_d + n * e->N_dense_part + (first ? ctx->N_embed : 0.0) +
                    (last ? n_out + ctx->norm_h : 0.0)) / q->t +
                   q->ls[i] * e->N_att_rep * (1.0 - 1.0 / q->t)); /* P15 */
        s.n_exp = params_expert_gpu(n, e->N_expert, (double)pl->ep, (double)pl->etp); /* P16 */
        const double e1 = mem_weights(bw, s.n_exp, z, q->D_e), e2 = mem_grads(bg, s.n_exp, z, q->D_e);
        const double e3 = mem_optimizer(bo, s.n_exp, z, q->D_e);
        s.m1 = mem_weights(bw, s.n_gpu, z, q->D) + e1;   /* M1′ */
        s.m2 = mem_grads(bg, s.n_gpu, z, q->D) + e2;     /* M2′ */
        s.m3 = mem_optimizer(bo, s.n_gpu, z, q->D) + e3; /* M3′ */
        s.experts = e1 + e2 + e3;
    } else {
        s.n_gpu = params_gpu(q->ls[i], ctx->N_layer, ctx->N_embed, n_out, ctx->norm_h, first,
                             last, q->t); /* P7 */
        s.m1 = mem_weights(bw, s.n_gpu, z, q->D); /* M1 */
        s.m2 = mem_grads(bg, s.n_gpu, z, q->D);   /* M2 */
        s.m3 = mem_optimizer(bo, s.n_gpu, z, q->D); /* M3 */
    }
    s.n_train = s.n_gpu;
    if (ctx->lora.on)
        mem_lora_state(ctx, pl, q, &s, i); /* M15, M16 */
    if (q->fp8) { /* M7 TE's FP8 copies of every FP8-GEMM weight, sharded like the weights */
        const pe_moe_ctx *e = &ctx->moe;
        const double dense8 = (nd * ctx->N8_layer + n * e->N8_layer_m_dense) / q->t;
        s.m7 = mem_weights(ctx->beta_8, dense8, z, q->D);
        if (q->moe) {
            const double ex8 = params_expert_gpu(n, e->N8_layer_m_expert, (double)pl->ep,
                                                 (double)pl->etp);
            s.m7e = mem_weights(ctx->beta_8, ex8, z, q->D_e);
        }
    }
    return s;
}

/* A3–A5, A7, A8, A4′, A11, A12: one layer's and the end stages' activations. */
ALWAYS_INLINE void mem_layer_activations(const pe_eval_ctx *ctx, const pe_plan *pl,
                                         const pe_layout *q, pe_detail *w)
{
    const pe_schedule sched = pl->schedule;
    const bool a19 = ctx->a19 && pl->recompute == PE_RECOMPUTE_SELECTIVE; /* A19's counts */
    const double rep = a19 ? ctx->a19_rep : ctx->act_rep;
    w->att = pl->recompute == PE_RECOMPUTE_SELECTIVE ? 0.0 : ctx->act_att;             /* A3 */
    w->a_layer = act_layer(q->sl, q->b, q->t, q->sp, rep, a19 ? ctx->a19_par : ctx->act_par,
                           w->att); /* A4 */
    w->a_layer += act_gathered_inputs(q->sl, q->b, q->t, q->sp, ctx->act_gathered); /* A16 */
    w->a_in = act_input(q->sl, q->b, ctx->h, q->t, q->sp);                             /* A5 */
    w->a_recompute = 0.0;
    if (ctx->op_sac && pl->recompute == PE_RECOMPUTE_SELECTIVE) { /* A15; backward recomputes
                                                                    * one layer (A4, no recompute) */
        w->a_recompute = act_layer(q->sl, q->b, q->t, q->sp, ctx->act_rep, ctx->act_par,
                                   ctx->act_att) +
                         act_gathered_inputs(q->sl, q->b, q->t, q->sp, ctx->act_gathered);
        w->a_layer = act_layer_op(q->sl, q->b, q->t, q->sp, ctx->act_op_seq, ctx->act_op_rep,
                                  ctx->act_op_par);
    }
    w->a23_layers = ctx->offload_layers > 0.0 && q->one && !q->moe &&
                            pl->recompute == PE_RECOMPUTE_NONE
                        ? ctx->offload_layers
                        : 0.0; /* A23: the plans Megatron-Core offloads */
    w->k_first = act_inflight_first_chunk(sched, q->p, q->m_d, q->v);
    w->k_last = act_inflight_last_chunk(sched, q->p, q->m_d, q->v);
    const double a7 = act_embed_mask(ctx->delta, q->sl, q->b, ctx->h, q->t, q->sp, w->k_first);
    const double a8 = act_output(q->sl, q->b, ctx->h, ctx->V, q->t, q->sp, w->k_last);
    w->a7[0] = a7, w->a7[1] = q->one ? a7 : 0.0; /* A7 on stage 0 */
    w->a8[0] = q->one ? a8 : 0.0, w->a8[1] = a8; /* A8 on the last stage */
    w->a7[2] = w->a8[2] = 0.0;                   /* a middle stage carries neither */
    if (sched == PE_SCHEDULE_DUALPIPE && !q->one) /* M14: ranks 0 and p−1 hold stages 0 and p−1 */
        w->a7[1] = a7, w->a8[0] = a8;
    if (ctx->mem_phases) { /* A8's inputs stay per micro-batch in flight; A14 once */
        w->a8_in = 4.0 * q->sl * q->b * ctx->h / (q->sp ? q->t : 1.0) * w->k_last;
        w->a14 = mem_loss(ctx->loss_bytes, q->sl, q->b, ctx->V, q->t);
        const int ag = ctx->cp_ring == PE_CP_RING_ALLGATHER; /* A20, 0 when none */
        w->a20_fwd = act_cp_ring(q->sl, q->b, ctx->cp_ring_width, q->t, q->c, ag, 0);
        w->a20_bwd = act_cp_ring(q->sl, q->b, ctx->cp_ring_width, q->t, q->c, ag, 1);
        w->a24 = ctx->pp_recv_grad && !q->one ? act_pp_recv_grad(q->sl, q->b, ctx->h, q->t, q->sp)
                                              : 0.0; /* A24 */
    }
    if (q->moe) {
        const pe_moe_ctx *e = &ctx->moe;
        const double etp = (double)pl->etp;
        const double beta_in = a19 ? ctx->a19_beta_c : q->fp8 ? 1.0 : 2.0; /* fp8: A13 */
        w->moe.a_routed = act_moe_routed(q->b, q->sl, e->k, e->rho, q->t, etp, beta_in, ctx->h,
                                         a19 ? ctx->a19_inner : e->act_expert_inner); /* A11 */
        w->moe.a_layer_m = act_moe_layer(q->sl, q->b, q->t, q->sp, rep,
                                         a19 ? ctx->a19_par_att : e->act_par_att, e->act_router,
                                         a19 ? ctx->a19_par_sh : e->act_par_sh, w->att,
                                         w->moe.a_routed); /* A4′ */
        w->moe.a25 = act_moe_dispatch_saved(q->b, q->sl, e->k, e->rho, q->t,
                                            ctx->a25_bytes); /* A25, 0 unless set */
        w->moe.a_layer_m += w->moe.a25;
        w->moe.a12 = act_moe_dispatch(q->b, q->sl, e->k, e->rho, ctx->h, e->beta_d, etp, q->t);
    }
}

/* A18 full recompute by layer on candidate stage i: a stored layer keeps
 * A4 (A4′ averaged over the stage's layers), the widest is recomputed. */
ALWAYS_INLINE double mem_stage_by_layer(const pe_eval_ctx *ctx, const pe_layout *q,
                                        const pe_detail *w, int i)
{
    double keep = w->a_layer, widest = w->a_layer;
    if (q->moe) {
        const double n = q->n_moe[i], nd = q->ls[i] - n;
        keep = (nd * w->a_layer + n * w->moe.a_layer_m) / q->ls[i];
        widest = mem_max2(nd > 0 ? w->a_layer : 0.0, n > 0 ? w->moe.a_layer_m : 0.0);
    }
    return act_stage_by_layer(ctx->rc_method, ctx->rc_layers, q->v, w->a_in, keep, widest,
                              q->ls[i], w->k[i]); /* A18 */
}

/* A6 (A6′ with MoE layers) of candidate stage i with k micro-batches in flight. */
ALWAYS_INLINE double mem_stage_activations(const pe_eval_ctx *ctx, const pe_layout *q,
                                           const pe_detail *w, int i)
{
    if (q->full && ctx->rc_by_layer && q->ls[i] > 0.0)
        return mem_stage_by_layer(ctx, q, w, i); /* A18 */
    if (w->a23_layers > 0.0) /* A23: p = 1, recompute none, dense */
        return act_stage(w->a_layer, w->a_in, act_offload_kept_layers(q->ls[i], w->a23_layers),
                         w->k[i], 0);
    if (!q->moe)
        return act_stage(w->a_layer, w->a_in, q->ls[i], w->k[i], q->full); /* A6 */
    const double n = q->n_moe[i], nd = q->ls[i] - n;
    const double widest =
        mem_max2(nd > 0 ? w->a_layer : 0.0, n > 0 ? w->moe.a_layer_m : 0.0);
    return q->full ? w->a_in * q->ls[i] * w->k[i] + widest
                   : w->k[i] * (nd * w->a_layer + n * w->moe.a_layer_m); /* A6′ */
}

/* M14, A21 (schedule dualpipe): rank j holds stage j and stage p−1−j, so
 * candidate 0 (stage 0) pairs with candidate 1 (stage p−1) and the middle
 * candidate with its mirror, taken equal to it (the candidate is the middle
 * stage with the most MoE layers; an even split makes every middle stage equal). */
ALWAYS_INLINE int mem_dualpipe_mirror(int i) { return i == 0 ? 1 : i == 1 ? 0 : i; }

/* A12's dispatch buffers on candidate i: its stage has MoE layers, or under
 * DualPipe (dual) the mirror stage the same rank holds has. */
ALWAYS_INLINE bool mem_rank_has_moe(const pe_layout *q, bool dual, int i)
{
    return q->moe && (q->n_moe[i] > 0 || (dual && q->n_moe[mem_dualpipe_mirror(i)] > 0));
}

ALWAYS_INLINE mem_state mem_dualpipe_state(const pe_eval_ctx *ctx, const pe_plan *pl,
                                           const pe_layout *q, double n_out, int i)
{
    mem_state s = mem_stage_state(ctx, pl, q, n_out, i);
    const mem_state t = mem_stage_state(ctx, pl, q, n_out, mem_dualpipe_mirror(i)); /* M14 */
    s.n_gpu += t.n_gpu, s.n_exp += t.n_exp;
    s.m1 += t.m1, s.m2 += t.m2, s.m3 += t.m3;
    s.experts += t.experts, s.m7 += t.m7, s.m7e += t.m7e;
    s.n_train += t.n_train, s.m15 += t.m15;
    return s;
}

/* M4 (M4′ with experts) the ZeRO-3 working set. */
ALWAYS_INLINE double mem_working_set(const pe_eval_ctx *ctx, const pe_plan *pl,
                                     const pe_layout *q)
{
    const int64_t z = pl->zero;
    if (ctx->lora.on) { /* M17 in place of M4 */
        const pe_lora_ctx *lo = &ctx->lora;
        const double x = mem_lora_layer_weights(lo->beta_q, ctx->beta_w, ctx->N_mm, ctx->N_layer, q->t);
        return mem_lora_working(z, ctx->beta_w, ctx->beta_g, x,
                                params_lora_layer(lo->r, lo->rep, lo->sh, q->t), ctx->Vh,
                                lo->dequant, q->t);
    }
    if (!q->moe)
        return mem_zero3_working(z, ctx->beta_w, ctx->beta_g, ctx->N_layer, ctx->Vh, q->t);
    const pe_moe_ctx *e = &ctx->moe;
    const double eg = (double)pl->ep * (double)pl->etp;
    const double layer_max = mem_max2(e->N_layer_d / q->t, e->N_dense_part / q->t + e->N_expert / eg);
    return z == 3 ? (2.0 * ctx->beta_w + ctx->beta_g) * mem_max2(layer_max, ctx->Vh / q->t)
                  : 0.0; /* M4′ */
}

/* A26 the NCCL buffers candidate stage i's rank holds (framework
 * nccl_channels): its tp, cp, dp and ep communicators and one two-rank
 * communicator per pipeline neighbour — one at the ends of a 1f1b pipeline,
 * two in the middle, and two on every rank when chunks wrap around
 * (interleaved, DualPipe). 0 when nccl_channels is 0. */
ALWAYS_INLINE double mem_stage_nccl(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                    int i)
{
    if (ctx->nccl_channel_bytes <= 0.0)
        return 0.0;
    const bool wraps = pl->schedule == PE_SCHEDULE_INTERLEAVED ||
                       pl->schedule == PE_SCHEDULE_DUALPIPE;
    return mem_nccl_buffers(ctx->nccl_channel_bytes, q->t, q->c, q->dp, (double)pl->ep,
                            mem_nccl_pp_peers(q->p, wraps, i == 2)); /* A26 */
}

/* §12 M20, M21 (deepspeed_zero with offload_optimizer) on candidate stage
 * i: ZeRO-Offload's GPU staging buffers by phase and its host memory per
 * GPU; all 0 without offload. n_max the largest parameter tensor on a TP
 * rank (A29's X), the trained partition N_t/D with the experts' over edp. */
ALWAYS_INLINE void mem_ds_offload_phases(const pe_eval_ctx *ctx, const pe_plan *pl,
                                         const pe_layout *q, pe_detail *w, int i, int last)
{
    double *ph = w->phase[i];
    const int64_t z = pl->zero;
    w->ds_off_every[i] = w->ds_off_bwd[i] = w->ds_off_step[i] = w->ds_off_host[i] = 0.0;
    if (!q->off)
        return;
    const double n_max = ctx->ds_largest / q->t;
    const double part = w->n_train[i] / q->D + (q->moe ? w->moe.n_exp[i] / q->D_e : 0.0);
    const double every = mem_ds_offload_every(z, ctx->beta_w, n_max); /* M20 */
    w->ds_off_every[i] = every;
    w->ds_off_bwd[i] = mem_ds_offload_backward(z, ctx->beta_g, n_max, ctx->ds_bucket, part,
                                               q->D);
    w->ds_off_step[i] = mem_ds_offload_step(z, part);
    ph[1] += every, ph[2] += every + w->ds_off_bwd[i], ph[4] += every;
    ph[3] += last ? every : 0.0;
    w->ds_off_host[i] = mem_ds_offload_host(z, ctx->beta_o, ctx->beta_w, ctx->beta_g, part, n_max,
                                            q->m_d); /* M21 */
}

/* §12 A28, A29, M18 (framework deepspeed_zero) on candidate stage i's
 * phases ph, whose M4 split (w_f forward, w_b backward) A29 replaces at
 * zero 3: the reduce buckets (backward at zero 1-2, every phase at zero 3),
 * the gathered and persistent parameters, the step's fp32 gradient. With
 * pp > 1 at zero 1-2 DeepSpeed's PipelineEngine runs the backward itself
 * (pipe/engine.py, not the ZeRO optimizer's backward()), and the bucket is
 * made once, by reduce_gradients(pipeline_parallel=True) after the flush,
 * and freed before the step: the optimizer phase holds the larger of it
 * and M18. */
ALWAYS_INLINE void mem_ds_phases(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                 pe_detail *w, int i, int last, double w_f, double w_b)
{
    double *ph = w->phase[i], *dw = w->ds_w[i];
    const int64_t z = pl->zero;
    const bool off = q->off; /* M20: ZeRO-Offload (offload_optimizer) */
    const bool overlap = ctx->ds_overlap == PE_DS_OVERLAP_TRUE ||
                         (ctx->ds_overlap == PE_DS_OVERLAP_AUTO && z == 3);
    const bool bf16_optimizer = mem_ds_bf16_optimizer(z, ctx->beta_g, ctx->beta_w, off);
    /* "CPU-Offload requires contiguous gradients": forced on at zero 1-2 */
    const int contiguous = ctx->ds_contiguous || (off && z <= 2);
    double a28 = bf16_optimizer ? 0.0
                                : mem_ds_reduce_buckets(z, contiguous, overlap, ctx->ds_bucket,
                                                        ctx->beta_w);
    w->ds_a28[i] = a28;
    w->ds_persist[i] = 0.0;
    dw[1] = dw[2] = dw[3] = dw[4] = 0.0;
    if (z == 3) { /* A29 in place of M4; A28's one bucket in every phase */
        /* a quantised lora base is gathered as its storage: β_q/β_w elements a weight */
        const bool quant = ctx->lora.on && ctx->lora.quantised;
        const double bq = ctx->lora.beta_q, hf = ctx->h * (double)ctx->ffn_hidden;
        const double x = quant ? fmax(ctx->Vh, params_lora_storage(hf, hf, bq, ctx->beta_w)) / q->t
                               : ctx->ds_largest / q->t;
        const double n_s = quant ? params_lora_storage(w->n_gpu[i], q->ls[i] * ctx->N_mm / q->t,
                                                           bq, ctx->beta_w)
                                 : w->n_gpu[i];
        const double g = mem_ds_gathered(x, ctx->ds_prefetch, ctx->ds_max_live);
        const double k = mem_ds_reuse_kept(ctx->ds_reuse, n_s);
        w->ds_gathered = g, w->ds_kept[i] = k, w->ds_x = x, w->ds_n_s[i] = n_s;
        w->ds_persist[i] = mem_ds_persistent(ctx->ds_persist_layer * q->ls[i] +
                                                 (last ? ctx->ds_persist_final : 0.0),
                                             ctx->beta_w, q->D); /* A29' */
        dw[1] = ctx->beta_w * g;
        /* a frozen base (lora) has no gradient for the gathered module */
        dw[2] = ctx->beta_w * (g + k) + (ctx->lora.on ? 0.0 : ctx->beta_g * x);
        dw[3] = last ? ctx->beta_w * (g + k) : 0.0;
        ph[1] += dw[1] - w_f + a28 + w->ds_persist[i];
        ph[2] += dw[2] - w_b + a28 + w->ds_persist[i];
        ph[3] += last ? dw[3] + a28 + w->ds_persist[i] : 0.0;
        ph[4] += a28 + w->ds_persist[i];
    }
    mem_ds_offload_phases(ctx, pl, q, w, i, last); /* M20, M21 (0 without offload) */
    w->ds_m18[i] = bf16_optimizer || off ? 0.0 : /* offload: the fp32 gradient is the host's */
                   /* over the trained parameters: DeepSpeed's optimizer groups hold
                    * only those that require gradients (N_gpu, or M16's adapters) */
                   mem_ds_fp32_grads(z, ctx->beta_g, w->n_train[i], q->D, ctx->ds_sub_group) +
                   (q->moe ? mem_ds_fp32_grads(z, ctx->beta_g, w->moe.n_exp[i], q->D_e,
                                               ctx->ds_sub_group)
                           : 0.0); /* M18 */
    const double step = w->ds_m18[i] + w->ds_off_step[i]; /* M18, or M20's fp32 partition */
    ph[4] += step;
    if (z <= 2 && q->p > 1.0) { /* the pipeline engine's one bucket, at the step's end */
        w->ds_a28[i] = a28 = mem_ds_reduce_buckets(z, contiguous, 0, ctx->ds_bucket,
                                                   ctx->beta_w) * !bf16_optimizer;
        ph[4] += a28 > step ? a28 - step : 0.0; /* before M18 is made */
    } else if (z <= 2) {
        ph[2] += a28; /* the buckets of each backward */
    }
}

/* §12 M9–M13 of candidate stage i (framework memory_by_phase): each phase's
 * live set, the peak, what the allocator reserves and the device total,
 * which replaces M5 (w->total) so the memory-worst stage is the one whose
 * device total is largest. state is S = M1 (M10, M7) + M2 + M3 (0 offloaded). */
ALWAYS_INLINE void mem_stage_phases(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                    pe_detail *w, double state, int i)
{
    const bool dual = pl->schedule == PE_SCHEDULE_DUALPIPE && !q->one; /* M14: ranks 0, p−1 */
    const int last = i == 1 || q->one || (dual && i == 0);
    const double zw = 2.0 * ctx->beta_w + ctx->beta_g; /* M4 = zw·X */
    const double u = mem_pp_unsharded(ctx->pp_unsharded, pl->zero, q->p, ctx->beta_w,
                                      w->n_gpu[i], !ctx->master_only, q->D); /* M12 U_w */
    const double ug = mem_pp_unsharded(ctx->pp_unsharded, pl->zero, q->p, ctx->beta_g,
                                       w->n_train[i], 1, q->D); /* M12 U_g */
    /* M17 (lora) is the same working set in forward and backward */
    const double w_f = ctx->lora.on ? w->m4 : u > 0.0 ? 0.0 : w->m4 * 2.0 * ctx->beta_w / zw;
    const double w_b = ctx->lora.on ? w->m4
                       : u > 0.0   ? w->m4 * ctx->beta_g / zw
                                   : mem_backward_working(w->m4, ctx->beta_w, ctx->beta_g,
                                                          ctx->unsharded_grad_bytes); /* M22 */
    const double a12 = mem_rank_has_moe(q, dual, i) ? w->moe.a12 : 0.0;
    /* M19: DDP's buckets, allocated with the wrapper, live in every phase */
    w->m19[i] = mem_ddp_buckets(ctx->ddp_buckets, pl->zero, q->D, ctx->beta_g,
                                w->n_train[i] + (q->moe ? w->moe.n_exp[i] : 0.0));
    state += w->m19[i];
    const double kept = state + w->a6[i] + w->a7[i] + (last ? w->a8_in : 0.0) + u + a12 +
                        ctx->workspace_bytes;
    double *ph = w->phase[i];
    ph[0] = 0.0;
    ph[1] = kept + w_f;                                       /* forward */
    ph[2] = kept + w_b + w->a_recompute + ug;                 /* backward */
    if (ctx->cp_ring != PE_CP_RING_NONE) /* A20: one layer's ring attention buffers */
        ph[1] += w->a20_fwd, ph[2] += w->a20_bwd;
    w->a24_stage[i] = i == 1 && !dual && pl->schedule != PE_SCHEDULE_INTERLEAVED ? 0.0 : w->a24;
    ph[2] += w->a24_stage[i]; /* A24: the last stage of 1f1b receives no gradient */
    ph[3] = last ? kept - a12 + w->a14 + ug : 0.0;            /* loss (A14) */
    ph[4] = state + ctx->workspace_bytes +
            mem_optimizer_temp(ctx->opt_temp_bytes, w->n_train[i], pl->zero, q->D) +
            (q->moe ? mem_optimizer_temp(ctx->opt_temp_bytes, w->moe.n_exp[i], pl->zero, q->D_e)
                    : 0.0); /* optimizer (M11; the expert shard over edp) */
    if (ctx->ds_zero)
        mem_ds_phases(ctx, pl, q, w, i, last, w_f, w_b); /* A28, A29, M18 */
    const int k = mem_peak_phase(ph, last);                   /* M9 */
    w->unsharded[i] = u, w->unsharded_grads[i] = ug;
    w->peak_phase[i] = k;
    w->peak[i] = ph[k];
    w->reserved[i] = mem_reserved(ph[k], ctx->fragmentation); /* M13 */
    w->a26[i] = mem_stage_nccl(ctx, pl, q, i);
    w->total[i] = w->reserved[i] + ctx->context_bytes + w->a26[i]; /* A26 outside the allocator */
    if (i == 0)
        w->w_fwd = w_f, w->w_bwd = w_b;
}

/* §2–§3 of every candidate stage; the memory-worst stage. */
ALWAYS_INLINE void memory_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                               pe_detail *w)
{
    const pe_schedule sched = pl->schedule;
    w->n_out = (ctx->tied && q->one) ? 0.0 : ctx->Vh; /* P4 */
    w->m4 = mem_working_set(ctx, pl, q);
    mem_layer_activations(ctx, pl, q, w);
    double host = 0.0; /* M8 the largest stage's host share */
    const bool dual = sched == PE_SCHEDULE_DUALPIPE && !q->one; /* M14, A21 */
    for (int i = 0; dual && i < q->nst; i++)
        w->k[i] = act_inflight_dualpipe(q->p, q->m_d); /* A21 */
    for (int i = 0; i < q->nst; i++) {
        const mem_state s = dual ? mem_dualpipe_state(ctx, pl, q, w->n_out, i)
                                 : mem_stage_state(ctx, pl, q, w->n_out, i);
        w->n_gpu[i] = s.n_gpu;
        w->n_train[i] = s.n_train, w->m15[i] = s.m15;
        if (!dual)
            w->k[i] = i < 2 ? act_inflight(sched, q->p, q->m_d, q->v, i)
                            : act_inflight_stage(sched, q->p, q->m_d, q->v, (double)q->mid_stage);
        if (ctx->pp_group > 0.0 && sched == PE_SCHEDULE_INTERLEAVED) /* A6″ */
            w->k[i] = act_inflight_grouped(q->p, q->m_d, q->v, ctx->pp_group,
                                           i == 0 ? 0.0 : i == 1 ? q->p - 1.0
                                                                 : (double)q->mid_stage);
        w->a6[i] = dual ? 0.5 * (mem_stage_activations(ctx, q, w, i) +
                                 mem_stage_activations(ctx, q, w, mem_dualpipe_mirror(i)))
                        : mem_stage_activations(ctx, q, w, i); /* A21 or A6 */
        /* M5, in the order the terms were introduced: the v1 sum, then A12,
         * then M7, then offload's M3 taken out again. Written as one sum the
         * rounding would differ, so the totals are built term by term. */
        double total = mem_total(s.m1, s.m2, s.m3, w->m4, w->a6[i], w->a7[i], w->a8[i],
                                 ctx->reserve_bytes); /* M5 */
        if (q->moe)
            total += mem_rank_has_moe(q, dual, i) ? w->moe.a12 : 0.0; /* A12 */
        if (q->fp8)
            total += s.m7 + s.m7e; /* M7 */
        if (q->off)
            total -= s.m3; /* M3″: the optimizer state lives on the host */
        w->total[i] = total;
        /* M20: ZeRO-Offload keeps no gradient partition on the GPU at zero 2-3 */
        const bool grads_off = ctx->ds_zero && q->off && pl->zero >= 2;
        const double m2 = grads_off ? 0.0 : s.m2;
        w->m1[i] = q->fp8 ? s.m1 + (s.m7 + s.m7e) : s.m1;
        w->m7[i] = q->fp8 ? s.m7 + s.m7e : 0.0;
        if (ctx->mem_phases) { /* §12 M9–M13 replace M5 */
            w->m1[i] = ctx->lora.on /* M10: a frozen base has no master copy (M15) */
                           ? s.m15 + mem_weights_refined(s.m1 - s.m15, ctx->master_only, pl->zero)
                           : mem_weights_refined(s.m1, ctx->master_only, pl->zero) +
                                 (q->fp8 ? s.m7 + s.m7e : 0.0); /* M10 */
            w->moe.n_exp[i] = s.n_exp;
            mem_stage_phases(ctx, pl, q, w, w->m1[i] + m2 + (q->off ? 0.0 : s.m3), i);
        }
        w->m2[i] = m2;
        w->m3[i] = q->off ? 0.0 : s.m3;
        if (q->moe) {
            double experts = s.experts;
            if (q->fp8)
                experts += s.m7e;
            if (q->off) /* the same e3 as in s.experts, taken out after M7 (order kept) */
                experts -= mem_optimizer(ctx->beta_o, s.n_exp, pl->zero, q->D_e);
            if (grads_off) /* M20: the expert gradient partition is the host's too */
                experts -= mem_grads(ctx->beta_g, s.n_exp, pl->zero, q->D_e);
            w->moe.n_exp[i] = s.n_exp;
            w->moe.mem_experts[i] = experts;
        }
        if (q->off) { /* M8 G GPUs' optimizer state and gradient copy per node */
            const double n_sh = s.n_gpu / q->D + (q->moe ? s.n_exp / q->D_e : 0.0);
            const double h = (double)ctx->gpus_per_node *
                             (ctx->ds_zero ? w->ds_off_host[i] /* M21 */
                                           : (ctx->beta_o + ctx->beta_g) * n_sh);
            host = h > host ? h : host;
        }
    }
    if (q->off)
        w->off.host = host;
    w->mem_stage = pe_worst_stage(w->total, q->nst);
}

#endif
