/* comm_step.h — docs/model.md §5 groups and §6 communication of one plan,
 * for every kind of layer: the EP all-to-all and expert-TP collectives of
 * MoE layers (C11, X9–X11), the expert gradients (X4′, X5′) and offload's
 * optimizer step (X12) are terms that are 0 when off. Two parts, because
 * the pipeline's time stage (pipeline_step.h) sits between them:
 *  comm_layer_step   C1, C2 groups; X1, X2, X9–X11 exposed per micro-batch
 *                    on each candidate stage (chi_st, ep/etp χ)
 *  comm_stage_step   X3, X4, X5 (X14, X12) on the time stage
 * Inline: they run for every plan. */
#ifndef PLANEVAL_MODEL_COMM_STEP_H
#define PLANEVAL_MODEL_COMM_STEP_H

#include "model/comm.h"
#include "model/compute.h"
#include "model/detail.h"
#include "model/layout.h"
#include "model/memory_lora.h"

/* An exposed time of `all` seconds of communication: X15's contention
 * (ctx->overlap_contention, 0: off), then X8's share φ of what stays hidden. */
ALWAYS_INLINE double comm_charged(const pe_eval_ctx *ctx, double exposed, double all)
{
    return comm_slowed(comm_contended(exposed, all, ctx->overlap_contention), all,
                       ctx->comm_slowdown);
}

/* X15's contention on the CP ring, or X33's c/S where the cp group spans
 * nodes and the framework gives the ring's network channels. */
ALWAYS_INLINE double comm_cp_contention(const pe_eval_ctx *ctx, const pe_detail *w)
{
    return ctx->cp_net_contention >= 0.0 && w->g_cp.n_out > 1.0 ? ctx->cp_net_contention
                                                                 : ctx->overlap_contention;
}

/* X1's backward on a stage of l layers (X13 when on), with X15 and X8 on
 * all of X1's count tp_b. */
ALWAYS_INLINE double comm_layer_tp_bwd(const pe_eval_ctx *ctx, const pe_layout *q,
                                       const pe_detail *w, double ov, double l, double tp_b)
{
    return ctx->tp_async_bwd
               ? comm_charged(ctx, comm_tp_bwd_exposed(l, w->tp_bwd_layer, ov, w->tau_lb), tp_b)
               : comm_charged(ctx, comm_tp_bwd(l, w->t_tp_pair, ov, w->tau_lb, q->full), tp_b);
}

/* X1, X2 exposed per micro-batch on a stage of l layers, each with X15's
 * contention and X8's share φ of its hidden part: chi = {tp fwd, tp bwd,
 * cp fwd, cp bwd}. */
ALWAYS_INLINE void comm_layer_chi(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                  const pe_detail *w, double l, double chi[4])
{
    const pe_overlap *ov = &pl->overlap;
    const int rc = pl->recompute != PE_RECOMPUTE_NONE;
    const double cp_hops = (q->c - 1.0) * w->t_p2p_cp * l;
    const double tp_b = l * (q->full ? 4.0 : 2.0) * w->t_tp_pair;
    if (w->tp_mp_layer >= 0.0) { /* X16: X15 is inside; X8 on all of X1's count (X22's bytes) */
        chi[0] = comm_slowed(l * w->tp_mp_layer, l * 2.0 * w->t_tp_pair, ctx->comm_slowdown);
        chi[1] = comm_slowed((q->full ? l * w->tp_mp_layer : 0.0) + l * w->tp_mp_bwd_layer,
                             tp_b, ctx->comm_slowdown);
    } else {
        chi[0] = comm_charged(ctx, comm_tp_fwd(l, w->t_tp_pair, ov->tp, w->tau_lf),
                              l * 2.0 * w->t_tp_pair); /* X22: float8 all-gathers */
        chi[1] = comm_layer_tp_bwd(ctx, q, w, ov->tp, l, tp_b);
    }
    if (w->tp_rec_layer > 0.0) /* X21: X15 is inside; X8 on the re-run all-gathers' 2·T_ag */
        chi[1] += comm_slowed(l * w->tp_rec_layer, l * 2.0 * w->t_ag_tp, ctx->comm_slowdown);
    chi[0] += l * (w->tp_copy_layer + w->tp_reduce_f + w->tp_stage_f); /* X28, F34, X32 */
    chi[1] += l * ((q->full ? 2.0 : 1.0) * w->tp_copy_layer + w->tp_copy_rec +
                   w->tp_copy_unfused + (q->full ? w->tp_reduce_f + w->tp_stage_f : 0.0) +
                   w->tp_reduce_b + w->tp_stage_b); /* X29, F34, X32: 0 when off */
    if (ctx->cp_allgather && q->c > 1.0) { /* X19: exposed, all of it */
        const double f = comm_cp_allgather_fwd(l, w->t_ag_cp);
        const double b = comm_cp_allgather_bwd(l, w->t_ag_cp, rc);
        chi[2] = comm_charged(ctx, f, f);
        chi[3] = comm_charged(ctx, b, b);
        return;
    }
    const double cp_f = ctx->cp_ring_per_step /* X23, or X2's ring-wide window */
                            ? comm_cp_fwd_steps(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att)
                            : comm_cp_fwd(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att);
    const double cp_b = ctx->cp_ring_per_step
                            ? comm_cp_bwd_steps(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att, rc)
                            : comm_cp_bwd(l, q->c, w->t_p2p_cp, ov->cp, w->tau_att, rc);
    const double ctn = comm_cp_contention(ctx, w); /* X15, or X33 across nodes */
    chi[2] = comm_slowed(comm_contended(cp_f, cp_hops, ctn), cp_hops, ctx->comm_slowdown);
    chi[3] = comm_slowed(comm_contended(cp_b, (rc ? 3.0 : 2.0) * cp_hops,
                                        ctn), (rc ? 3.0 : 2.0) * cp_hops, ctx->comm_slowdown);
}

/* max(0, before − overlap·window) with X15 and X8 on `all`: before = all,
 * or X13's E_b (what is left before the window). */
ALWAYS_INLINE double comm_exposed_of(const pe_eval_ctx *ctx, double before, double all,
                                     double overlap, double window)
{
    return comm_charged(ctx, comm_pos(before - overlap * window), all);
}

/* max(0, T − overlap·window) with X15 and X8. */
ALWAYS_INLINE double comm_exposed(const pe_eval_ctx *ctx, double T, double overlap, double window)
{
    return comm_exposed_of(ctx, T, T, overlap, window);
}

/* X28 DTensor's Shard(1) copies beside the TP collectives async TP does
 * not fuse (X16 off, or overlap.tp 0): per layer one pass's four and X21's
 * two re-run all-gathers; 0 when off. */
ALWAYS_INLINE void comm_tp_seq_copies(const pe_eval_ctx *ctx, const pe_plan *pl,
                                      const pe_layout *q, pe_detail *w, bool x16, bool x21)
{
    const bool on = ctx->tp_seq_copy && q->sp && pl->tp > 1 && !q->moe &&
                    !(x16 && pl->overlap.tp > 0.0);
    const double ag_bytes = ctx->tp_fp8_gather ? 0.5 * w->s_tp : w->s_tp; /* X22 */
    w->tp_copy_ag_bytes = ag_bytes;
    w->tp_copy_ag = on ? comm_tp_seq_copy(ag_bytes, ctx->ew_bps) : 0.0;
    w->tp_copy_rs = on ? comm_tp_seq_copy(w->s_tp, ctx->ew_bps) : 0.0;
    w->tp_copy_layer = 2.0 * w->tp_copy_ag + 2.0 * w->tp_copy_rs;
    w->tp_copy_rec = x21 ? 2.0 * w->tp_copy_ag : 0.0;
    const bool x29 = ctx->tp_seq_copy && x16 && pl->overlap.tp > 0.0; /* X29: X24's unfused */
    const double n_unfused = (ctx->tp_unfused_qkv ? 1.0 : 0.0) + (ctx->tp_unfused_in ? 1.0 : 0.0);
    w->tp_copy_unfused = x29 && n_unfused > 0.0 ? n_unfused * comm_tp_seq_copy(w->s_tp, ctx->ew_bps)
                                                : 0.0;
}

/* X16 forward all-gathers feed QKV, MLP in; backward out, MLP out. X24:
 * under async TP the backward reduce-scatters of QKV's and (SwiGLU) MLP
 * in's summed input gradients are not fused, all of T_ar/2 exposed. */
ALWAYS_INLINE void comm_tp_micro_step(const pe_eval_ctx *ctx, const pe_plan *pl,
                                      const pe_layout *q, pe_detail *w, double t_ar)
{
    const double rs = 0.5 * t_ar, ag = w->t_ag_tp;
    const double ag_bytes = ctx->tp_fp8_gather ? 0.5 * w->s_tp : w->s_tp; /* X22 */
    const double fwd[4] = {ag, rs, ag, rs}, bwd[4] = {rs, ag, rs, ag};
    const bool async = pl->overlap.tp > 0.0;
    const bool unfused[4] = {async && ctx->tp_unfused_qkv, false, async && ctx->tp_unfused_in,
                             false}; /* X24 */
    w->tp_mp_layer = comm_tp_micro_pipeline_parts(fwd, q->t, w->gemm_chunks_t, pl->overlap.tp,
                                                  ctx->overlap_contention);
    w->tp_mp_bwd_layer = comm_tp_micro_pipeline_unfused(bwd, q->t, w->gemm_chunks_t,
                                                        pl->overlap.tp, ctx->overlap_contention,
                                                        unfused);
    w->tp_unfused_layer = (unfused[0] ? rs : 0.0) + (unfused[2] ? rs : 0.0);
    w->tp_reduce = async && ctx->tp_rs_reduce ? compute_fused_rs_reduce(w->s_tp, q->t, ctx->ew_bps)
                                              : 0.0; /* F34 */
    w->tp_reduce_f = 2.0 * w->tp_reduce; /* after wo and w2 */
    w->tp_reduce_b = ((unfused[0] ? 0.0 : 1.0) + (unfused[2] ? 0.0 : 1.0)) * w->tp_reduce;
    w->tp_stage = async && ctx->tp_ag_stage ? compute_ag_shard_stage(ag_bytes, q->t, ctx->ew_bps)
                                            : 0.0; /* X32 */
    w->tp_stage_f = 2.0 * w->tp_stage; /* before QKV and MLP in */
    w->tp_stage_b = 2.0 * w->tp_stage; /* before out's and MLP out's input-gradient GEMMs */
}

/* C1, C2 the tp, cp, dp, pp groups (ranks tp innermost, then cp, dp, pp);
 * X1's all-reduce (C10: the faster of ring and tree), X13's backward
 * exposure before overlap, X2's K/V hop. */
ALWAYS_INLINE void comm_dense_collectives(const pe_eval_ctx *ctx, const pe_plan *pl,
                                          const pe_layout *q, pe_detail *w)
{
    const pe_net *net = &ctx->net;
    const int64_t t = pl->tp, c = pl->cp;
    w->g_tp = comm_group(net, t, 1); /* tp (t, 1), cp (c, t), dp (dp·c, t), pp (p, t·c·dp) */
    w->g_cp = comm_group(net, c, t);
    w->g_dp = comm_group(net, pl->dp * c, t);
    w->g_pp = comm_group(net, pl->pp, pe_mul_sat(pe_mul_sat(t, c), pl->dp));
    w->s_tp = comm_tp_bytes(q->b, q->sl, ctx->h); /* X1 */
    const double ring = comm_all_reduce(net, &w->g_tp, w->s_tp);
    double t_ar = ring;
    if (ctx->allreduce_auto && w->g_tp.n_out > 1.0) { /* C10: the faster of ring and tree */
        w->t_ar_tp_tree = comm_all_reduce_tree(net, &w->g_tp, w->s_tp);
        t_ar = w->t_ar_tp_tree < ring ? w->t_ar_tp_tree : ring;
    }
    w->t_ar_tp = t_ar;
    if (ctx->tp_async_bwd) /* X13: QKV's and MLP in's weight-gradient GEMMs as windows */
        w->tp_bwd_layer = comm_tp_bwd_async(t_ar, q->sp, q->full, w->gemm_t[0], w->gemm_t[2],
                                            ctx->overlap_contention); /* X15 on each */
    const bool x16 = ctx->tp_micro_pipeline && q->sp && t > 1 && !q->moe;
    /* X22: torchao's float8 TP casts before every all-gather, async TP (X16) or not */
    const bool x22 = ctx->tp_fp8_gather && q->sp && t > 1 && !q->moe;
    w->t_ag_tp = x22 ? comm_reduce_scatter(net, &w->g_tp, 0.5 * w->s_tp) : 0.5 * t_ar;
    w->t_tp_pair = x22 ? w->t_ag_tp + 0.5 * t_ar : t_ar; /* X1's T_ar, X22's float8 pair */
    if (x16)
        comm_tp_micro_step(ctx, pl, q, w, t_ar);
    else
        w->tp_mp_layer = w->tp_mp_bwd_layer = -1.0, w->tp_unfused_layer = 0.0,
        w->tp_reduce = w->tp_reduce_f = w->tp_reduce_b = 0.0,
        w->tp_stage = w->tp_stage_f = w->tp_stage_b = 0.0;
    const bool x21 = ctx->op_sac && pl->recompute == PE_RECOMPUTE_SELECTIVE && q->sp && t > 1 &&
                     !q->moe; /* X21: F25's windows, X16's chunks (its g_i) when on */
    const double *g_x21 = w->tp_mp_layer >= 0.0 ? w->gemm_chunks_t : w->gemm_t;
    w->tp_rec_layer = x21 ? comm_tp_op_recompute(w->t_ag_tp,
                                                 w->tp_mp_layer >= 0.0
                                                     ? pl->overlap.tp * (q->t - 1.0) / q->t
                                                     : 0.0,
                                                 ctx->op_rec_share[0], g_x21[0],
                                                 ctx->op_rec_share[2], g_x21[2],
                                                 ctx->overlap_contention)
                          : 0.0;
    if (x21) /* X32: X21's re-run all-gathers are fused ones too under async TP */
        w->tp_stage_b += 2.0 * w->tp_stage;
    comm_tp_seq_copies(ctx, pl, q, w, x16, x21);
    w->s_kv = comm_cp_bytes(q->b, q->sl, ctx->g, ctx->d, q->t); /* X2 */
    w->t_p2p_cp = comm_p2p(net, &w->g_cp, w->s_kv);
    w->t_ag_cp = ctx->cp_allgather && c > 1 ? comm_reduce_scatter(net, &w->g_cp, (double)c * w->s_kv)
                                            : 0.0; /* X19 */
}

/* C11 the ep, etp, edp groups; X9 EP all-to-all (dispatch, combine) and
 * X11 expert-TP all-gather/reduce-scatter per MoE layer, with their
 * overlap, and X1's count on MoE layers: ep[0..3] = χ_ep,f, χ_ep,b,
 * χ_etp,f, χ_etp,b of one MoE layer. */
#define PE_TEXT_X9 \
    {"X9", "T_ep", \
     "T_a2a(S_dispatch) + T_a2a(S_combine)   (C6 on the ep group)", \
     "s", "design §4"}
#define PE_TEXT_X10 \
    {"X10", "χ_ep,f, χ_ep,b", \
     "n_moe·max(0, (1 + [full])·T_ep − overlap.ep·τ_ml)", \
     "s", "design §4"}
#define PE_TEXT_X11 \
    {"X11", "expert-TP all-gather/reduce-scatter, in tp_comm_s", \
     "n_moe·2·T_rs(etp·S_combine)", \
     "s", "design §4"}
ALWAYS_INLINE void comm_moe_collectives(const pe_eval_ctx *ctx, const pe_plan *pl,
                                        const pe_layout *q, pe_detail *w, double ep_chi[4])
{
    const pe_moe_ctx *e = &ctx->moe;
    const pe_net *net = &ctx->net;
    const pe_overlap *ov = &pl->overlap;
    const int64_t ep = pl->ep, etp = pl->etp;
    w->moe.g_ep = comm_group(net, ep, etp); /* ep (ep, etp), etp (etp, 1), edp (edp, etp·ep) */
    w->moe.g_etp = comm_group(net, etp, 1);
    w->moe.g_edp = comm_group(net, (int64_t)q->D_e, ep * etp);
    w->moe.s_disp = comm_a2a_bytes(q->b, q->sl, e->k, e->rho, ctx->h, e->beta_d, q->t);
    w->moe.s_comb = comm_a2a_bytes(q->b, q->sl, e->k, e->rho, ctx->h, 2.0, q->t);
    w->moe.t_ep = comm_all_to_all(net, &w->moe.g_ep, w->moe.s_disp) +
                  comm_all_to_all(net, &w->moe.g_ep, w->moe.s_comb); /* X9 */
    w->moe.s_etp = (double)etp * w->moe.s_comb;                     /* X11 gathered buffer */
    w->moe.t_rs_etp = comm_reduce_scatter(net, &w->moe.g_etp, w->moe.s_etp);
    const double full = q->full ? 1.0 : 0.0;
    /* X1 on an MoE layer: one TP all-reduce pair for attention and one more
     * only with shared experts (the routed experts' TP traffic is X11's); the
     * dense count charged two per layer, so the difference is added here. */
    const double sh = e->act_par_sh > 0.0 ? 2.0 : 1.0;
    /* F32 on: the dedicated SMs are the slowdown (in τ_ml), X15's is not
     * charged on the all-to-all again (docs/model.md F32) */
    const double ctn = ctx->comm_sms_stretch > 0.0 ? 0.0 : ctx->overlap_contention;
    const double a2a_b = (1.0 + full) * w->moe.t_ep;
    ep_chi[0] = comm_slowed(comm_contended(comm_pos(w->moe.t_ep - ov->ep * w->moe.tau_mlf),
                                           w->moe.t_ep, ctn),
                            w->moe.t_ep, ctx->comm_slowdown);
    ep_chi[1] = comm_slowed(comm_contended(comm_pos(a2a_b - ov->ep * w->moe.tau_mlb), a2a_b, ctn),
                            a2a_b, ctx->comm_slowdown);
    ep_chi[2] = comm_exposed(ctx, 2.0 * w->moe.t_rs_etp, ov->tp, w->moe.tau_mlf) +
                comm_exposed(ctx, sh * w->t_ar_tp, ov->tp, w->moe.tau_mlf) -
                comm_exposed(ctx, 2.0 * w->t_ar_tp, ov->tp, w->tau_lf);
    /* backward: X1's count of the MoE layer's own blocks and of the dense
     * layer, each before the window as X13 leaves it (its E_b) when on */
    const double all_moe = sh * (1.0 + full) * w->t_ar_tp, all_d = (2.0 + 2.0 * full) * w->t_ar_tp;
    const double e_b_moe =
        !ctx->tp_async_bwd ? all_moe /* X13: attention's QKV, the shared experts' fc1 */
        : comm_tp_bwd_async_one(w->t_ar_tp, q->sp, q->full, w->gemm_t[0], ctx->overlap_contention) +
              (sh > 1.0 ? comm_tp_bwd_async_one(w->t_ar_tp, q->sp, q->full, w->moe.t_sh_in,
                                                ctx->overlap_contention)
                        : 0.0);
    const double e_b_d = ctx->tp_async_bwd ? w->tp_bwd_layer : all_d; /* as comm_layer_chi */
    ep_chi[3] = comm_exposed(ctx, (2.0 + 2.0 * full) * w->moe.t_rs_etp, ov->tp, w->moe.tau_mlb) +
                comm_exposed_of(ctx, e_b_moe, all_moe, ov->tp, w->moe.tau_mlb) -
                comm_exposed_of(ctx, e_b_d, all_d, ov->tp, w->tau_lb);
}

/* §5 groups, §6 X1, X2 and X9–X11 exposed per micro-batch on every
 * candidate stage: with uneven stages or a middle candidate X1, X2 scale
 * with each stage's own layers (chi_per_stage), else one count serves
 * both; MoE terms scale with each stage's MoE layers. */
ALWAYS_INLINE void comm_layer_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                   pe_detail *w)
{
    comm_dense_collectives(ctx, pl, q, w);
    const int per_stage = q->uneven || q->nst == 3;
    if (per_stage)
        for (int i = 0; i < q->nst; i++)
            comm_layer_chi(ctx, pl, q, w, q->ls[i], w->chi_st[i]);
    else { /* both stages hold L/p layers: one count, copied */
        comm_layer_chi(ctx, pl, q, w, q->lps, w->chi_st[0]);
        for (int k = 0; k < 4; k++)
            w->chi_st[1][k] = w->chi_st[0][k];
    }
    w->chi_per_stage = per_stage;
    if (!q->moe)
        return;
    double ep_chi[4];
    comm_moe_collectives(ctx, pl, q, w, ep_chi);
    for (int i = 0; i < q->nst; i++) {
        const double n = q->n_moe[i];
        w->moe.chi_ep_f[i] = n * ep_chi[0]; /* X10 */
        w->moe.chi_ep_b[i] = n * ep_chi[1];
        w->moe.chi_etp_f[i] = n * ep_chi[2];
        w->moe.chi_etp_b[i] = n * ep_chi[3];
    }
}

/* §6 X3 one pipeline hop; §12 X6: with Megatron's scatter/gather and
 * without sp, a hop that crosses nodes carries 1/t of the activation, then
 * an all-gather over the tp group inside the node restores it. */
#define PE_TEXT_X6 \
    {"X6", "T_p2p with scatter/gather (no sp, spans nodes)", \
     "T_p2p(S_pp/t) inter-node + T_rs(S_pp) all-gather over tp inside the node", \
     "s", "Narayanan §4.1"}
ALWAYS_INLINE double comm_pipeline_hop(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const pe_layout *q, pe_detail *w)
{
    w->s_pp = comm_pp_bytes(q->b, q->sl, ctx->h, q->t, q->sp);
    const int scatter = ctx->pp_scatter_gather && pl->tp > 1 && !q->sp && w->g_pp.n_out > 1.0;
    w->pp_hop_bytes = scatter ? w->s_pp / q->t : w->s_pp;
    if (scatter)
        return comm_p2p(&ctx->net, &w->g_pp, w->pp_hop_bytes) +
               comm_reduce_scatter(&ctx->net, &w->g_tp, w->s_pp);
    return comm_p2p(&ctx->net, &w->g_pp, w->s_pp);
}

/* One gradient/weight group of X4: the reduce-scatter of S_g and of S_w
 * (C4, or C9 flat across nodes) and, with C10 at z = 0, the gradient
 * all-reduce as the faster of ring and tree (returned as half of it). */
ALWAYS_INLINE void comm_dp_group(const pe_eval_ctx *ctx, int64_t z, const pe_group *grp,
                                 double s_g, double s_w, double *rs_g, double *rs_w, double *g,
                                 double *tree)
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

/* X30 in force: dp_chunk_sync, the interleaved schedule with v > 1, z ≤ 1 */
ALWAYS_INLINE int comm_dp_is_chunked(const pe_eval_ctx *ctx, const pe_plan *pl,
                                     const pe_layout *q)
{
    return ctx->dp_chunk_sync && pl->schedule == PE_SCHEDULE_INTERLEAVED && q->v > 1.0 &&
           pl->zero <= 1;
}

/* §6 X4 (C4, or C9 flat), X7 and X8 of the DP/ZeRO communication on the
 * time stage ts; with experts (X4′) the expert gradients and weights go
 * over the expert-data-parallel group in the same window. */
ALWAYS_INLINE void comm_dp_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                int ts, pe_detail *w)
{
    const int64_t z = pl->zero;
    const double ov = pl->overlap.dp;
    w->s_g = ctx->beta_g * w->n_train[ts]; /* gradients of the trained parameters (M16) */
    /* z ≤ 2 gathers the updated (trained) weights after the step, z = 3 every
     * weight per micro-batch; a quantised lora base as its storage (A29's N_s:
     * ZeRO-3 and FSDP gather the packed quantised parameters, not bf16) */
    const bool quant = ctx->lora.on && ctx->lora.quantised;
    w->n_w = z != 3 ? w->n_train[ts]
             : quant ? params_lora_storage(w->n_gpu[ts], q->ls[ts] * ctx->N_mm / q->t,
                                           ctx->lora.beta_q, ctx->beta_w)
                     : w->n_gpu[ts];
    w->s_w = ctx->beta_w * w->n_w;
    w->s_gc = comm_dp_grad_bytes(ctx->dp_grad_comm_bytes, ctx->beta_g, w->n_train[ts]); /* X26 */
    double rs_g, rs_w, g, s_g = w->s_gc;
    comm_dp_group(ctx, z, &w->g_dp, w->s_gc, w->s_w, &rs_g, &rs_w, &g, &w->t_ar_dp_tree);
    if (q->moe) {
        const double ex = w->moe.n_exp[ts];
        const double se_g = comm_dp_grad_bytes(ctx->dp_grad_comm_bytes, ctx->beta_g, ex);
        double erg, erw, eg, unused = 0.0;
        comm_dp_group(ctx, z, &w->moe.g_edp, se_g, ctx->beta_w * ex, &erg, &erw, &eg, &unused);
        rs_g += erg, rs_w += erw, g += eg, s_g += se_g;
    }
    w->s_gc_exp = s_g - w->s_gc; /* X26: the experts' share of T_rs(S_g′), for explain */
    w->t_rs_g = rs_g, w->t_rs_w = rs_w;
    g = w->t_g = comm_dp_grad_time(z, ctx->dp_grad_allreduce, g); /* X25 */
    const double tf = w->tau_f[ts];
    const double tb = w->tau_g = comm_dp_grad_tau(z, ctx->dp_grad_window_mb, tf, w->tau_b[ts]);
    const double x4 = comm_dp_is_chunked(ctx, pl, q)
                          ? comm_dp_chunked(z, g, rs_w, ov, tf, tb, q->v, q->p) /* X30 */
                          : comm_dp(z, q->m_d, g, rs_w, ov, tf, tb);           /* X4 */
    w->dp_critical = comm_dp_critical_window(z, q->m_d, g, rs_w, ov, tf, tb); /* S3 */
    const double frac = ctx->dp_bucket_bytes < s_g ? ctx->dp_bucket_bytes / s_g : 1.0;
    w->dp_last_bucket = comm_dp_last_bucket(z, g, ov, tb, frac); /* X7 */
    const double all = z == 0 ? 2.0 * g : z == 1 ? g + rs_w : z == 2 ? q->m_d * g + rs_w
                                                                     : q->m_d * (2.0 * rs_w + g);
    w->dp_comm_all = all, w->dp_exposed = x4 + w->dp_last_bucket;
    w->chi_dp = comm_charged(ctx, x4 + w->dp_last_bucket, all); /* X15, X8 */
}

/* X12 gradients to the host (hidden behind backward like the DP reduce),
 * Adam on the node's CPU for its G GPUs, parameters back. */
ALWAYS_INLINE double comm_offload_step(const pe_eval_ctx *ctx, const pe_plan *pl,
                                       const pe_layout *q, int ts, pe_detail *w)
{
    const double D = (double)pl->dp * (double)pl->cp;
    const double n_sh = w->off.n_sh =
        w->n_gpu[ts] / D + (q->moe ? w->moe.n_exp[ts] / q->D_e : 0.0);
    w->off.t_d2h = ctx->offload_d2h_bytes * n_sh / ctx->host_bps; /* X12, X35 */
    w->off.t_h2d = ctx->offload_h2d_bytes * n_sh / ctx->host_bps;
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
    return comm_pos(w->off.t_d2h - w->off.window) + w->off.t_cpu + w->off.t_h2d;
}

/* X5 the optimizer step (X14 with the framework's passes; X5′ adds the
 * expert shard over edp; X12 with offload). */
ALWAYS_INLINE double comm_optimizer_step(const pe_eval_ctx *ctx, const pe_plan *pl,
                                         const pe_layout *q, int ts, pe_detail *w)
{
    if (q->off)
        return comm_offload_step(ctx, pl, q, ts, w); /* X12 */
    const double dense = w->n_train[ts]; /* the optimizer steps the trained parameters (M16) */
    const int64_t z = pl->zero;
    if (ctx->opt_s_per_param > 0.0) { /* X14 */
        const double opt = comm_optimizer_passes(dense, z, q->D, ctx->opt_s_per_param);
        return q->moe ? opt + comm_optimizer_passes(w->moe.n_exp[ts], z, q->D_e,
                                                    ctx->opt_s_per_param)
                      : opt;
    }
    const double opt = comm_optimizer(dense, z, q->D, ctx->beta_w, ctx->beta_g, ctx->beta_o,
                                      ctx->hbm_bps); /* X5 */
    return q->moe ? opt + comm_optimizer(w->moe.n_exp[ts], z, q->D_e, ctx->beta_w, ctx->beta_g,
                                         ctx->beta_o, ctx->hbm_bps) /* X5′ */
                  : opt;
}

/* §6 X3–X5 (X12) on the time stage w->time_stage (pipeline_step.h). */
ALWAYS_INLINE void comm_stage_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                   pe_detail *w)
{
    const int ts = w->time_stage;
    w->t_p2p_pp = comm_pipeline_hop(ctx, pl, q, w);
    const double ov_pp = comm_pp_overlap(pl->overlap.pp, ctx->pp_overlap_interleaved_only,
                                         pl->schedule == PE_SCHEDULE_INTERLEAVED, q->v); /* X34 */
    const double x3 = comm_pp(q->p, q->m_d, q->v, w->t_p2p_pp, ov_pp, w->tau_f[ts],
                              w->tau_b[ts]); /* X3 */
    w->chi_pp = comm_slowed(x3, q->p == 1.0 ? 0.0 : q->m_d * q->v * 2.0 * w->t_p2p_pp,
                            ctx->comm_slowdown); /* X8 */
    comm_dp_step(ctx, pl, q, ts, w);
    if (ctx->tied_allreduce && pl->pp > 1) { /* X18: stage 0 and stage p − 1, after the flush */
        const int64_t tcd = pe_mul_sat(pe_mul_sat(pl->tp, pl->cp), pl->dp);
        w->g_tied = comm_group(&ctx->net, 2, pe_mul_sat(tcd, pl->pp - 1));
        w->s_tied = comm_tied_bytes(ctx->beta_g, ctx->V, ctx->h, q->t);
        w->t_tied = comm_all_reduce(&ctx->net, &w->g_tied, w->s_tied);
        w->chi_dp += w->t_tied;
    }
    w->optimizer = comm_optimizer_step(ctx, pl, q, ts, w);
}

#endif
