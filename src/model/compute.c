/* compute.c — docs/model.md §4, FLOPs F1–F6. */
#include "model/compute.h"

#include "model/params.h"

extern inline double compute_fwd(double b, double s_local, double layers_per_stage,
                                 double f_layer, double f_out, int last, double t);
extern inline double compute_bwd(double f_fwd, double b, double s_local, double layers_per_stage,
                                 double x, double t);
extern inline double compute_time(double flops, double rate);
extern inline double compute_layer_fwd_time(double b, double s_local, double f_layer, double t,
                                            double rate);
extern inline double compute_layer_bwd_time(double b, double s_local, double f_layer, double x,
                                            double t, double rate);
extern inline double compute_attention_time(double b, double s_local, double f_att, double t,
                                            double rate);

double compute_kappa(const pe_model *m) { return m->causal_flops ? 0.5 : 1.0; }

double compute_attention(const pe_model *m)
{
    const double sa = (double)m->seq_len * (double)m->heads;
    if (m->attention == PE_ATTENTION_MLA) /* F7: 2·s·a·(d_qk + d_v)·κ */
        return 2.0 * sa *
               ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                (double)m->v_head_dim) *
               compute_kappa(m);
    if (m->has_head_dim) /* F7 with d_qk = d_v = d */
        return 4.0 * sa * (double)m->head_dim * compute_kappa(m);
    return 4.0 * (double)m->seq_len * (double)m->hidden * compute_kappa(m); /* F1 term */
}

double compute_layer(const pe_model *m)
{
    return 2.0 * params_matmul(m) + compute_attention(m); /* F1 */
}

double compute_out(const pe_model *m)
{
    return 2.0 * (double)m->hidden * (double)m->vocab; /* F2 */
}

double compute_model(const pe_model *m, double global_batch)
{
    return 3.0 * global_batch * (double)m->seq_len *
           ((double)m->layers * compute_layer(m) + compute_out(m)); /* F3 */
}

double compute_recompute(const pe_model *m, pe_recompute recompute)
{
    switch (recompute) { /* F4 */
    case PE_RECOMPUTE_FULL:
        return compute_layer(m);
    case PE_RECOMPUTE_SELECTIVE:
        return compute_attention(m);
    default:
        return 0.0;
    }
}

double compute_hardware(const pe_model *m, double global_batch, pe_recompute recompute)
{
    return compute_model(m, global_batch) + global_batch * (double)m->seq_len *
                                                (double)m->layers *
                                                compute_recompute(m, recompute); /* F4 */
}
