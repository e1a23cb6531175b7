/* layout.c — the layers of each pipeline stage (layout.h): V3′'s uneven
 * split and P9's MoE layers per stage. */
#include "model/layout.h"

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
