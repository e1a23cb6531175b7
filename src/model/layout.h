/* layout.h — the plan laid out on the pipeline, the first thing every
 * section reads: the degrees as doubles, the micro-batches m, s' and D
 * (docs/model.md §0), the candidate stages and the layers each holds (V3′,
 * F20 of §14), the MoE layers of each (P9), the expert data-parallel group
 * edp, and which kinds of layer and precision are on. With first/last
 * stage layers or MoE layers and p ≥ 3 a middle stage is a third candidate
 * (docs/model.md intro); otherwise stage 0 and p−1 are the only two. */
#ifndef PLANEVAL_MODEL_LAYOUT_H
#define PLANEVAL_MODEL_LAYOUT_H

#include <stdint.h>

#include "model/detail.h"
#include "model/evaluate.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* a·b saturated at INT64_MAX (inputs are ≥ 1 and ≤ 2^53; products of four
 * degrees can overflow only for plans V1 rejects anyway). */
static inline int64_t pe_mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* The worst of the nst candidate stages (memory totals or t_f + t_b): the
 * index of the largest of v[0] (stage 0), v[2] (the middle one, nst = 3)
 * and v[1] (stage p−1); ties go to the lower stage. */
ALWAYS_INLINE int pe_worst_stage(const double v[3], int nst)
{
    const int best = nst == 3 && v[2] > v[0] ? 2 : 0;
    return v[1] > v[best] ? 1 : best;
}

/* Layers of the first, last and middle stages; 1 when they add up (V3′),
 * else 0. An absent first/last value takes the middle share. */
int layout_stage_layers(int64_t L, const pe_plan *pl, int64_t *L0, int64_t *Ll, int64_t *Lmid);

/* P9 MoE layers on pipeline stage j holding Lj layers in v model chunks,
 * the first stage L0 layers and the middle ones Lmid (even split: both
 * L/p): chunk r starts at r·L/v + [j>0]·L0/v + max(0, j−1)·Lmid/v. */
double layout_moe_layers(const pe_model *m, int64_t v, int64_t L0, int64_t Lmid, int64_t j,
                         int64_t Lj);

/* V3″: the plan's pipeline_layout fits L layers, p and v (1), else 0. */
int layout_given_holds(int64_t L, const pe_plan *pl);

typedef struct pe_layout pe_layout;
/* The candidate stages of a given pipeline_layout (V3″): stage 0, p−1 and,
 * for p ≥ 3, the middle stage with the most MoE layers, then the most
 * layers (the lowest such); each one's layers, MoE layers (P9 chunk by
 * chunk) and bubble v (B2′). */
void layout_given_stages(const pe_eval_ctx *ctx, const pe_plan *pl, pe_layout *q);

struct pe_layout {
    int64_t m;                     /* micro-batches */
    double t, p, c, dp, v, m_d, b; /* degrees as doubles */
    double lps, sl, D;             /* L/p, s' = s/c, D = dp·c */
    int one, full, sp;             /* p = 1; full recompute; sequence parallel */
    /* the kinds of layer and precision in use: all 0 on the dense bf16 path */
    int moe, fp8, off;             /* experts; compute: fp8; offload_optimizer */
    int uneven, nst;               /* first/last_stage_layers; candidate stages (2 or 3) */
    double ls[3];                  /* layers of [0] stage 0, [1] stage p−1, [2] the middle one */
    double n_moe[3];               /* P9 MoE layers of each candidate (0 without experts) */
    int64_t mid_stage;             /* the middle candidate's stage: 1, or for MoE the lowest
                                      middle stage with the most MoE layers */
    double D_e;                    /* edp = t·c·dp/(ep·etp) (MoE only) */
    int given;                     /* a pipeline_layout (V3″) sets ls, n_moe and vb */
    double vb[3];                  /* B2′ each candidate's v for the bubble: L_j/c_j */
};

/* P9 MoE layers on candidate stage i: stage 0, p−1, or the middle stage
 * with the most MoE layers (the lowest such: it holds the most micro-batches
 * in flight). */
ALWAYS_INLINE double layout_candidate_moe(const pe_eval_ctx *ctx, const pe_plan *pl,
                                          const pe_layout *q, int i, int64_t *stage)
{
    const pe_model *m = &ctx->scenario->model;
    const int64_t L0 = (int64_t)q->ls[0], Lmid = (int64_t)q->ls[2], p = pl->pp;
    if (i < 2)
        return layout_moe_layers(m, pl->virtual_stages, L0, Lmid, i == 0 ? 0 : p - 1,
                                 (int64_t)q->ls[i]);
    double best = -1.0;
    for (int64_t j = 1; j + 1 < p; j++) {
        const double n = layout_moe_layers(m, pl->virtual_stages, L0, Lmid, j, Lmid);
        if (n > best)
            best = n, *stage = j;
    }
    return best;
}

/* The layout of a valid plan with m micro-batches. ext = 0 is the dense
 * bf16 path of a v1 plan: the compiler then drops every other kind. */
#define PE_TEXT_EDP \
    {"edp", "expert data-parallel group", \
     "t·c·dp/(ep·etp)", \
     "GPUs", "Megatron parallel_state.py"}
ALWAYS_INLINE pe_layout layout_of(const pe_eval_ctx *ctx, const pe_plan *pl, int64_t m, int ext)
{
    pe_layout q;
    q.m = m;
    q.t = (double)pl->tp, q.p = (double)pl->pp, q.c = (double)pl->cp, q.dp = (double)pl->dp;
    q.v = (double)pl->virtual_stages, q.m_d = (double)m, q.b = (double)pl->micro_batch;
    q.lps = ctx->L / q.p; /* L/p layers per stage */
    q.sl = ctx->s / q.c;  /* s' */
    q.D = q.dp * q.c;     /* ZeRO sharding group */
    q.one = pl->pp == 1;  /* stage 0 is also the last stage */
    q.full = pl->recompute == PE_RECOMPUTE_FULL;
    q.sp = pl->sequence_parallel;
    q.moe = ext && ctx->moe.on;
    q.fp8 = ext && ctx->fp8;
    q.off = ext && pl->offload_optimizer;
    q.given = ext && pl->layout.count > 0;
    q.uneven = ext && (pl->first_stage_layers || pl->last_stage_layers || q.given);
    q.nst = 2;
    q.ls[0] = q.ls[1] = q.ls[2] = q.lps;
    q.n_moe[0] = q.n_moe[1] = q.n_moe[2] = 0.0;
    q.mid_stage = 1;
    q.D_e = 0.0;
    if (q.given) { /* V3″: the layout's stages that can be worst */
        layout_given_stages(ctx, pl, &q);
    } else if (q.uneven) { /* V3′: the stages that can be worst */
        int64_t L0, Ll, Lmid;
        layout_stage_layers(ctx->layers, pl, &L0, &Ll, &Lmid);
        q.ls[0] = (double)L0, q.ls[1] = (double)Ll, q.ls[2] = (double)Lmid;
        q.nst = pl->pp >= 3 ? 3 : 2;
    } else if (q.moe && pl->pp >= 3) {
        /* a middle stage can hold more MoE layers than stage 0 or p−1
         * (dense_layers, moe_every): a third candidate */
        q.nst = 3;
    }
    if (q.moe) {
        for (int i = 0; i < q.nst && !q.given; i++)
            q.n_moe[i] = layout_candidate_moe(ctx, pl, &q, i, &q.mid_stage); /* P9 */
        q.D_e = q.t * q.c * q.dp / ((double)pl->ep * (double)pl->etp); /* edp */
    }
    return q;
}

/* The layout's part of the detail record. */
ALWAYS_INLINE void layout_detail(const pe_layout *q, pe_detail *w)
{
    w->valid = true;
    w->lps = q->lps, w->s_local = q->sl, w->D = q->D, w->m = q->m_d;
    w->stage_layers[0] = q->ls[0], w->stage_layers[1] = q->ls[1], w->stage_layers[2] = q->ls[2];
    w->mid_stage = q->mid_stage, w->stages = q->nst;
    if (q->moe) {
        for (int i = 0; i < q->nst; i++)
            w->moe.n_moe[i] = q->n_moe[i];
        w->moe.D_e = q->D_e;
    }
}

#endif
