/* memory.c — docs/model.md §3, memory per GPU (M1–M6, A1–A8). */
#include "model/memory.h"

#include "model/params.h"

extern inline double mem_weights(double beta_w, double n_gpu, int64_t zero, double D);
extern inline double mem_grads(double beta_g, double n_gpu, int64_t zero, double D);
extern inline double mem_optimizer(double beta_o, double n_gpu, int64_t zero, double D);
extern inline double mem_zero3_working(int64_t zero, double beta_w, double beta_g,
                                       double n_layer, double vh, double t);
extern inline double act_layer(double s_local, double b, double t, int sp, double rep,
                               double par, double att);
extern inline double act_input(double s_local, double b, double h, double t, int sp);
extern inline double act_inflight(pe_schedule schedule, double p, double m, double v, int last);
extern inline double act_inflight_stage(pe_schedule schedule, double p, double m, double v,
                                       double j);
extern inline double act_inflight_first_chunk(pe_schedule schedule, double p, double m, double v);
extern inline double act_inflight_last_chunk(pe_schedule schedule, double p, double m, double v);
extern inline double act_stage(double a_layer, double a_in, double layers_per_stage, double k,
                               int full);
extern inline double act_embed_mask(double delta, double s_local, double b, double h, double t,
                                    int sp, double k_first);
extern inline double act_output(double s_local, double b, double h, double V, double t, int sp,
                                double k_last);
extern inline double mem_total(double m1, double m2, double m3, double m4, double a6, double a7,
                               double a8, double reserve);
extern inline int mem_fits(double total, double budget);

double act_rep(const pe_model *m)
{
    const double h = (double)m->hidden, delta = m->dropout ? 1.0 : 0.0;
    if (m->attention == PE_ATTENTION_MLA) /* + MLA latents, TP-replicated (design §3) */
        return 8.0 * h + 2.0 * delta * h +
               ((m->q_lora_rank > 0 ? 4.0 * (double)m->q_lora_rank : 0.0) +
                2.0 * ((double)m->kv_lora_rank + (double)m->qk_rope_head_dim) +
                2.0 * (double)m->kv_lora_rank);
    return 8.0 * h + 2.0 * delta * h; /* A1 */
}

double act_par(const pe_model *m)
{
    const double f = (double)m->ffn_hidden;
    return act_par_attention(m) + (m->mlp == PE_MLP_GELU ? 4.0 * f : 6.0 * f); /* A2 */
}

double act_par_attention(const pe_model *m)
{
    const double a = (double)m->heads, g = (double)m->kv_heads;
    if (m->attention == PE_ATTENTION_MLA) /* Q, K, V, attention output: 4·a·(d_qk + d_v) */
        return 4.0 * a *
               ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                (double)m->v_head_dim);
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    if (m->has_head_dim)
        return 4.0 * a * d + 4.0 * g * d;
    return 4.0 * (double)m->hidden + 4.0 * g * d; /* A2's attention part */
}

double act_att(const pe_model *m, pe_recompute recompute)
{
    if (m->attention != PE_ATTENTION_STANDARD || recompute == PE_RECOMPUTE_SELECTIVE)
        return 0.0; /* A3: no score matrix stored */
    const double delta = m->dropout ? 1.0 : 0.0;
    return (2.0 + 3.0 * delta) * (double)m->heads * (double)m->seq_len; /* A3 */
}

double act_fp8_saving_attention(const pe_model *m)
{
    if (m->attention == PE_ATTENTION_MLA)
        return (double)m->heads * (double)m->v_head_dim;
    if (m->has_head_dim)
        return (double)m->heads * (double)m->head_dim;
    return (double)m->hidden;
}
