/* pipeline_step.h — docs/model.md §7 of one plan: each candidate stage's
 * per-micro-batch times t_f, t_b (τ plus the exposed TP, CP and, on MoE
 * layers, EP and expert-TP communication), the time stage (the slowest,
 * picked once; ties go to the lower stage), the χ columns of that stage,
 * and the bubble B1–B4 (B5 by stage). Inline: it runs for every plan. */
#ifndef PLANEVAL_MODEL_PIPELINE_STEP_H
#define PLANEVAL_MODEL_PIPELINE_STEP_H

#include "model/detail.h"
#include "model/layout.h"
#include "model/pipeline.h"

/* B1–B4 on the time stage; B5 (framework bubble_by_stage): the p−2 middle
 * stages run at t(mid), and the smaller of the two is kept. */
ALWAYS_INLINE void pipeline_bubble_step(const pe_eval_ctx *ctx, const pe_plan *pl,
                                        const pe_layout *q, pe_detail *w)
{
    const int ts = w->time_stage;
    /* B2′: with a given layout, interleaving's v is the time stage's L_j/c_j */
    const double v = q->given ? q->vb[ts] : q->v;
    const double uniform = pipe_bubble(pl->schedule, q->p, v, w->t_f[ts], w->t_b[ts]);
    w->bubble_uniform = uniform;
    w->bubble = uniform;
    /* B6 counts DualPipe's own fill and drain: B5 (a 1F1B pipeline's) is not taken */
    if (ctx->bubble_by_stage && q->p > 1.0 && pl->schedule != PE_SCHEDULE_DUALPIPE) {
        const int mid = q->nst == 3 ? 2 : 0;
        w->others_f = w->t_f[0] + w->t_f[1] + (q->p - 2.0) * w->t_f[mid] - w->t_f[ts];
        w->others_b = w->t_b[0] + w->t_b[1] + (q->p - 2.0) * w->t_b[mid] - w->t_b[ts];
        const double b5 = pipe_bubble_by_stage(pl->schedule, q->v, w->others_f, w->others_b);
        w->bubble = b5 < uniform ? b5 : uniform;
    }
}

/* §7 t_f, t_b of every candidate stage, the time stage and its χ; the bubble. */
ALWAYS_INLINE void pipeline_step(const pe_eval_ctx *ctx, const pe_plan *pl, const pe_layout *q,
                                 pe_detail *w)
{
    double sum[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < q->nst; i++) {
        const double *chi = w->chi_st[i];
        double t_f = pipe_stage_time(w->tau_f[i], chi[0], chi[2]);
        double t_b = pipe_stage_time(w->tau_b[i], chi[1], chi[3]);
        if (q->moe) { /* X10, X11 on the stage's MoE layers */
            t_f += w->moe.chi_ep_f[i] + w->moe.chi_etp_f[i];
            t_b += w->moe.chi_ep_b[i] + w->moe.chi_etp_b[i];
        }
        w->t_f[i] = t_f, w->t_b[i] = t_b;
        sum[i] = t_f + t_b;
    }
    const int ts = w->time_stage = pe_worst_stage(sum, q->nst);
    w->chi_tp_f = w->chi_st[ts][0], w->chi_tp_b = w->chi_st[ts][1];
    w->chi_cp_f = w->chi_st[ts][2], w->chi_cp_b = w->chi_st[ts][3];
    pipeline_bubble_step(ctx, pl, q, w);
}

#endif
