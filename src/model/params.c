/* params.c — docs/model.md §2, parameter counts P1–P7. */
#include "model/params.h"

#include "model/prepare.h"

extern inline double params_gpu(double layers_per_stage, double n_layer, double n_embed,
                                double n_out, double norm_h, int first, int last, double t);
extern inline double params_expert_gpu(double n_moe, double n_expert, double ep, double etp);

double params_head_dim(const pe_model *m)
{
    return (double)m->hidden / (double)m->heads; /* d = h / a */
}

double params_norm(const pe_model *m)
{
    return m->norm == PE_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

static double att_matmul(const pe_model *m);
static double att_bias(const pe_model *m);
static double mlp_params(const pe_model *m, double f);

/* head_dim or MLA: the attention is not P1's h·(h + 2gd) + h² (P10) */
static int general_attention(const pe_model *m)
{
    return m->has_head_dim || m->attention == PE_ATTENTION_MLA;
}

double params_matmul(const pe_model *m)
{
    if (general_attention(m))
        return att_matmul(m) + (m->mlp == PE_MLP_GELU ? 2.0 : 3.0) * (double)m->hidden *
                                   (double)m->ffn_hidden; /* P10 + P11 */
    const double h = (double)m->hidden, g = (double)m->kv_heads, f = (double)m->ffn_hidden;
    const double d = params_head_dim(m);
    const double k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    return h * (h + 2.0 * g * d) + h * h + k_mu * h * f; /* P1 */
}

double params_layer_dims(const pe_model *m)
{
    if (general_attention(m)) { /* P12 N_layer^d (MLA: + latent norms) */
        const double latent = m->attention == PE_ATTENTION_MLA
                                  ? (double)m->q_lora_rank + (double)m->kv_lora_rank
                                  : 0.0;
        return att_matmul(m) + latent + att_bias(m) + mlp_params(m, (double)m->ffn_hidden) +
               2.0 * params_norm(m);
    }
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

/* ---- MoE, head_dim, MLA (docs/design/moe.md §0.1–§0.2) ---- */

static int64_t floor_div(int64_t x, int64_t y) /* y > 0 */
{
    return x >= 0 ? x / y : -((-x + y - 1) / y);
}

int64_t params_moe_layers(const pe_model *m, int64_t a, int64_t b)
{
    if (m->experts <= 0)
        return 0;
    const int64_t nu = m->moe_every > 0 ? m->moe_every : 1;
    const int64_t a1 = a > m->dense_layers ? a : m->dense_layers;
    if (b <= a1)
        return 0;
    return floor_div(b - 1, nu) - floor_div(a1 - 1, nu); /* P9 */
}

/* P10 attention matmul weights: standard/GQA with head_dim d:
 * 2·h·a·d + 2·h·g·d; MLA (DeepSeek-V2 §2.1.2–2.1.3): q (compressed or not),
 * kv down-projection with the rope key, kv up-projection, output. */
static double att_matmul(const pe_model *m)
{
    const double h = (double)m->hidden, a = (double)m->heads, g = (double)m->kv_heads;
    if (m->attention == PE_ATTENTION_MLA) {
        const double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        const double dr = (double)m->qk_rope_head_dim, dn = (double)m->qk_nope_head_dim;
        const double dv = (double)m->v_head_dim, dqk = dn + dr;
        const double q = rq > 0 ? h * rq + rq * a * dqk : h * a * dqk;
        return q + h * (rkv + dr) + rkv * a * (dn + dv) + a * dv * h;
    }
    if (!m->has_head_dim) {
        const double d = params_head_dim(m);
        return h * (h + 2.0 * g * d) + h * h; /* P1's attention part, same order */
    }
    const double d = (double)m->head_dim;
    return 2.0 * h * a * d + 2.0 * h * g * d;
}

/* attention biases: QKV a·d + 2·g·d, output h (MLA: none) */
static double att_bias(const pe_model *m)
{
    if (!m->bias || m->attention == PE_ATTENTION_MLA)
        return 0.0;
    const double h = (double)m->hidden, a = (double)m->heads, g = (double)m->kv_heads;
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    return a * d + 2.0 * g * d + h;
}

/* one MLP of hidden size f: k_μ·h·f weights + [bias]·(gelu ? f + h : 2f + h) */
static double mlp_params(const pe_model *m, double f)
{
    const double h = (double)m->hidden;
    const double k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    return k_mu * h * f + (m->bias ? (m->mlp == PE_MLP_GELU ? f + h : 2.0 * f + h) : 0.0);
}

void params_moe(const pe_model *m, pe_moe_params *o)
{
    const double h = (double)m->hidden, E = (double)m->experts;
    const double fe = (double)m->moe_ffn_hidden, k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    const int mla = m->attention == PE_ATTENTION_MLA;
    const double latent_norms = mla ? (double)m->q_lora_rank + (double)m->kv_lora_rank : 0.0;
    o->att_matmul = att_matmul(m);
    o->att = o->att_matmul + latent_norms;
    o->att_rep = mla ? h * (double)m->q_lora_rank +
                           h * ((double)m->kv_lora_rank + (double)m->qk_rope_head_dim) +
                           latent_norms
                     : 0.0;
    const double norms = 2.0 * params_norm(m);
    o->layer_dense = params_layer_dims(m); /* P2, or P12 with head_dim / MLA */
    const double router = h * E + (m->bias ? E : 0.0); /* P11 N_r (+ bias) */
    o->moe_dense_part = o->att + att_bias(m) + (double)m->shared_experts * mlp_params(m, fe) +
                        router + norms;
    o->expert_one = k_mu * h * fe;
    o->moe_expert = E * mlp_params(m, fe);
    o->n_moe = (double)params_moe_layers(m, 0, m->layers);
    const double rest = params_embed(m) + params_out(m, 1) + params_norm(m);
    const double n_dense = (double)m->layers - o->n_moe;
    o->total = n_dense * o->layer_dense + o->n_moe * (o->moe_dense_part + o->moe_expert) + rest;
    const double k_over_E = E > 0 ? (double)m->top_k / E : 0.0;
    o->active = n_dense * o->layer_dense +
                o->n_moe * (o->moe_dense_part + k_over_E * o->moe_expert) + rest; /* P14 */
}

/* ---- preparation (prepare.h) ---- */

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* §0 the dimensions the hot path reads, flat and as doubles. */
static void prepare_dimensions(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_cluster *cl = &sc->cluster;
    ctx->gpus_per_node = cl->gpus_per_node;
    ctx->gpus = mul_sat(cl->nodes, cl->gpus_per_node);
    ctx->layers = m->layers;
    ctx->seq_len = m->seq_len;
    ctx->global_batch = sc->training.global_batch;
    ctx->heads = m->heads;
    ctx->kv_heads = m->kv_heads;
    ctx->ffn_hidden = m->ffn_hidden;
    ctx->agf_gcd = gcd64(gcd64(m->heads, m->kv_heads), m->ffn_hidden);
    ctx->allow_cross_node_tp = cl->allow_cross_node_tp;
    ctx->tied = m->tied_embeddings;
    ctx->attention = m->attention;
    ctx->L = (double)m->layers;
    ctx->h = (double)m->hidden;
    ctx->V = (double)m->vocab;
    ctx->s = (double)m->seq_len;
    ctx->B = (double)sc->training.global_batch;
    ctx->N = (double)ctx->gpus;
    ctx->delta = m->dropout ? 1.0 : 0.0;
    ctx->tokens_per_step = ctx->B * ctx->s; /* B·s */
}

/* P8–P14 of an MoE model, and the FP8-GEMM weights of its layers (M7's and
 * F16's counts); nothing for a dense model (moe.on = 0). */
static void prepare_experts(const pe_model *m, pe_moe_ctx *e)
{
    if (m->experts <= 0)
        return;
    pe_moe_params mp;
    params_moe(m, &mp);
    e->on = 1;
    e->bias = m->bias;
    e->experts = m->experts;
    e->f_e = m->moe_ffn_hidden;
    e->sh_f = m->shared_experts * m->moe_ffn_hidden;
    e->E = (double)m->experts;
    e->k = (double)m->top_k;
    e->f_e_d = (double)m->moe_ffn_hidden;
    /* ρ: capacity-padded buffers (C), else the dropless imbalance ι (design §0) */
    e->rho = m->has_capacity_factor ? m->capacity_factor : m->moe_imbalance;
    e->N_layer_d = mp.layer_dense;
    e->N_dense_part = mp.moe_dense_part;
    e->N_expert = mp.moe_expert;
    e->N_att_rep = mp.att_rep;
    e->N_total = mp.total;
    e->N_active = mp.active;
    const double h = (double)m->hidden, k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    const double shared = (double)m->shared_experts * k_mu * h * e->f_e_d;
    e->N8_layer_m_dense = mp.att_matmul + shared; /* attention + shared experts */
    e->N8_layer_m_expert = e->E * k_mu * h * e->f_e_d; /* the E routed experts */
}

void params_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    ctx->N_mm = params_matmul(m);                             /* P1 */
    ctx->N_layer = params_layer(m);                           /* P2 or P6 */
    ctx->N_embed = params_embed(m);                           /* P3 */
    ctx->N_out_untied = (double)m->vocab * (double)m->hidden; /* P4 */
    ctx->Vh = ctx->N_out_untied;
    ctx->N_out_p1 = params_out(m, 1);                         /* P4 at p = 1 */
    ctx->norm_h = params_norm(m);
    prepare_dimensions(sc, ctx);
    prepare_experts(m, &ctx->moe);
    ctx->fp8 = sc->precision.compute == PE_COMPUTE_FP8;
    if (ctx->fp8)
        ctx->N8_layer = params_matmul(m); /* FP8-GEMM weights of a dense layer */
    ctx->ext = ctx->moe.on || ctx->fp8; /* the MoE and FP8 terms are needed */
}
