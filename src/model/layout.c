/* layout.c — the layers of each pipeline stage (layout.h): V3′'s uneven
 * split, V3″'s given pipeline_layout, and P9's MoE layers per stage. */
#include "model/layout.h"

#include "core/pipeline_layout.h"
#include "model/params.h"

int layout_stage_layers(int64_t L, const pe_plan *pl, int64_t *L0, int64_t *Ll, int64_t *Lmid)
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

double layout_moe_layers(const pe_model *m, int64_t v, int64_t L0, int64_t Lmid, int64_t j,
                         int64_t Lj)
{
    int64_t n = 0;
    for (int64_t r = 0; r < v; r++) {
        const int64_t a = r * (m->layers / v) + (j > 0 ? L0 / v : 0) +
                          (j > 1 ? (j - 1) * (Lmid / v) : 0);
        n += params_moe_layers(m, a, a + Lj / v); /* P9 per chunk (V3/V3′: whole) */
    }
    return (double)n;
}

int layout_given_holds(int64_t L, const pe_plan *pl)
{
    char why[200];
    return !pipeline_layout_fault(&pl->layout, L, pl->pp, pl->virtual_stages, why, sizeof why);
}

/* P9 over stage j's chunks of a given layout: chunk r is virtual stage
 * k = r·p + j and starts after the layers of virtual stages 0 … k−1. */
static double given_moe_layers(const pe_model *m, const pe_pipeline_layout *lay, int64_t p,
                               int64_t j)
{
    int64_t n = 0, start = 0;
    for (int64_t k = 0; k < lay->count; k++) {
        if (k % p == j)
            n += params_moe_layers(m, start, start + lay->layers[k]); /* P9 per chunk */
        start += lay->layers[k];
    }
    return (double)n;
}

/* One candidate of a given layout: its layers L_j, its bubble's v_j =
 * L_j/c_j (c_j its largest chunk, B2′; v when it holds no layer) and its MoE
 * layers. */
static void given_candidate(const pe_eval_ctx *ctx, const pe_plan *pl, pe_layout *q, int i,
                            int64_t j)
{
    const int64_t Lj = pipeline_layout_stage(&pl->layout, pl->pp, j);
    const int64_t cj = pipeline_layout_chunk_max(&pl->layout, pl->pp, j);
    q->ls[i] = (double)Lj;
    q->vb[i] = cj > 0 ? (double)Lj / (double)cj : q->v;
    if (q->moe)
        q->n_moe[i] = given_moe_layers(&ctx->scenario->model, &pl->layout, pl->pp, j);
}

void layout_given_stages(const pe_eval_ctx *ctx, const pe_plan *pl, pe_layout *q)
{
    const int64_t p = pl->pp;
    q->nst = p >= 3 ? 3 : 2;
    given_candidate(ctx, pl, q, 0, 0);
    given_candidate(ctx, pl, q, 1, p - 1);
    if (q->nst < 3)
        return;
    /* the middle candidate: the most MoE layers, then the most layers, the
     * lowest such (it holds the most micro-batches in flight, A6′) */
    double best_moe = -1.0, best_layers = -1.0;
    for (int64_t j = 1; j + 1 < p; j++) {
        const double n = q->moe ? given_moe_layers(&ctx->scenario->model, &pl->layout, p, j)
                                : 0.0;
        const double Lj = (double)pipeline_layout_stage(&pl->layout, p, j);
        if (n > best_moe || (n == best_moe && Lj > best_layers))
            best_moe = n, best_layers = Lj, q->mid_stage = j;
    }
    given_candidate(ctx, pl, q, 2, q->mid_stage);
}
