/* params.c — docs/model.md §2, parameter counts P1–P7. */
#include "model/params.h"

extern inline double params_gpu(double layers_per_stage, double n_layer, double n_embed,
                                double n_out, double norm_h, int first, int last, double t);

double params_head_dim(const pe_model *m)
{
    return (double)m->hidden / (double)m->heads; /* d = h / a */
}

double params_norm(const pe_model *m)
{
    return m->norm == PE_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

double params_matmul(const pe_model *m)
{
    const double h = (double)m->hidden, g = (double)m->kv_heads, f = (double)m->ffn_hidden;
    const double d = params_head_dim(m);
    const double k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    return h * (h + 2.0 * g * d) + h * h + k_mu * h * f; /* P1 */
}

double params_layer_dims(const pe_model *m)
{
    const double h = (double)m->hidden, g = (double)m->kv_heads, f = (double)m->ffn_hidden;
    const double d = params_head_dim(m);
    const double biases = (h + 2.0 * g * d) + h + (m->mlp == PE_MLP_GELU ? f + h : 2.0 * f + h);
    return params_matmul(m) + (m->bias ? biases : 0.0) + 2.0 * params_norm(m); /* P2 */
}

double params_embed(const pe_model *m)
{
    const double h = (double)m->hidden;
    return (double)m->vocab * h +
           (m->position == PE_POSITION_LEARNED ? (double)m->seq_len * h : 0.0); /* P3 */
}

double params_out(const pe_model *m, int64_t p)
{
    if (m->tied_embeddings && p == 1)
        return 0.0;                               /* P4 tied, one stage: shared with the input */
    return (double)m->vocab * (double)m->hidden; /* P4 */
}

double params_total(const pe_model *m, double n_layer, int64_t p)
{
    return (double)m->layers * n_layer + params_embed(m) + params_out(m, p) +
           params_norm(m); /* P5 */
}

double params_layer_from_params(const pe_model *m)
{
    return (m->params - params_embed(m) - params_out(m, 1) - params_norm(m)) /
           (double)m->layers; /* P6 */
}

double params_layer(const pe_model *m)
{
    return m->has_params ? params_layer_from_params(m) : params_layer_dims(m);
}
