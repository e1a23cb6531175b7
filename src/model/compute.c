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

extern inline double compute_gemm_flops(double M, const pe_gemm_shape *g, double t);
extern inline double compute_gemm_time(double M, double K, double N, double gemm_rate,
                                       double t_half, double hbm_bps);
extern inline pe_gemm_coef compute_gemm_coef(const pe_gemm_shape *g, double gemm_rate,
                                             double hbm_bps);
extern inline double compute_gemm_time_coef(const pe_gemm_coef *c, double M, double inv_t,
                                            double t_half);
extern inline double compute_elementwise_time(double bytes, double ew_bps);
extern inline pe_gemm_coef compute_gemm_coef_fp8(const pe_gemm_shape *g, double gemm_rate,
                                                 double hbm_bps);

void compute_layer_gemms(const pe_model *m, pe_gemm_shape out[PE_LAYER_GEMMS])
{
    const double h = (double)m->hidden, g = (double)m->kv_heads, d = params_head_dim(m);
    const double f = (double)m->ffn_hidden, k_in = m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0;
    out[0] = (pe_gemm_shape){h, h + 2.0 * g * d, 0}; /* QKV, column-parallel */
    out[1] = (pe_gemm_shape){h, h, 1};               /* attention projection, row-parallel */
    if (m->has_head_dim || m->attention == PE_ATTENTION_MLA) {
        /* F17 (issue 11): heads of head_dim (a·d ≠ h) or MLA. The projection
         * takes the a·d (MLA: a·d_v) attention outputs; every other
         * attention weight (MLA: the q and kv down- and up-projections) is
         * one column-parallel multiply of the same FLOPs and weight bytes. */
        pe_moe_params mp;
        params_moe(m, &mp);
        const double a = (double)m->heads;
        const double ad = m->attention == PE_ATTENTION_MLA ? a * (double)m->v_head_dim
                                                           : a * (double)m->head_dim;
        out[0] = (pe_gemm_shape){h, (mp.att_matmul - ad * h) / h, 0};
        out[1] = (pe_gemm_shape){ad, h, 1};
    }
    out[2] = (pe_gemm_shape){h, k_in * f, 0};        /* MLP in */
    out[3] = (pe_gemm_shape){f, h, 1};               /* MLP out */
}

void compute_elementwise_bytes(const pe_model *m, double *rep, double *par, double *att,
                               double *out)
{
    const double h = (double)m->hidden, f = (double)m->ffn_hidden, a = (double)m->heads;
    const double g = (double)m->kv_heads, d = params_head_dim(m), s = (double)m->seq_len;
    const double delta = m->dropout ? 1.0 : 0.0;
    *rep = 2.0 * 4.0 * h + 2.0 * (6.0 + delta) * h; /* F10 */
    *par = (m->mlp == PE_MLP_SWIGLU ? 6.0 : 4.0) * f +
           (m->position == PE_POSITION_ROTARY ? 4.0 * (h + g * d) : 0.0);
    /* standard attention only: flash, and MLA (fused attention, issue 11),
     * keep the softmax inside F9 */
    *att = m->attention != PE_ATTENTION_STANDARD ? 0.0 : (4.0 + 5.0 * delta) * a * s;
    *out = 12.0 * (double)m->vocab;
}

double compute_kappa(const pe_model *m) { return m->causal_flops ? 0.5 : 1.0; }

double compute_attention(const pe_model *m)
{
    const double sa = (double)m->seq_len * (double)m->heads;
    if (m->attention == PE_ATTENTION_MLA) /* F12: 2·s·a·(d_qk + d_v)·κ */
        return 2.0 * sa *
               ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                (double)m->v_head_dim) *
               compute_kappa(m);
    if (m->has_head_dim) /* F12 with d_qk = d_v = d */
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
