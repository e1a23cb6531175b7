/* memory_lora.c — the parameter-efficient fine-tuning terms (memory_lora.h)
 * and their scenario-level preparation. */
#include "model/memory_lora.h"

#include "model/memory.h"

#include "model/compute.h"

#include "model/params.h"
#include "model/prepare.h"

extern inline double mem_lora_base(double beta_w, double beta_q, double n_gpu, double n_lin,
                                   int64_t zero, double D);
extern inline double params_lora_layer(double r, double rep, double sh, double t);
extern inline double mem_lora_layer_weights(double beta_q, double beta_w, double n_mm,
                                            double n_layer, double t);
extern inline double params_lora_storage(double n, double n_lin, double beta_q, double beta_w);
extern inline double mem_lora_working(int64_t zero, double beta_w, double beta_g, double x,
                                      double n_ad, double vh, double dequant, double t);
extern inline double act_lora(double r, double targets, double in_sum, int dropout);
extern inline void act_lora_op_saved(double r, double out, bool saved_base, bool column,
                                     bool eager, double *rep, double *par);

/* One linear (in → out) of a layer, column-parallel (its output split by t)
 * or row-parallel (its input split). */
typedef struct {
    double in, out;
    bool column, attention;
} lora_linear;

/* A dense layer's linears (docs/model.md P1, P10, P11): q, k, v, o, then
 * the MLP's (gelu: up, down; swiglu: gate, up, down). */
static int lora_linears(const pe_model *m, lora_linear *out)
{
    const double h = (double)m->hidden, f = (double)m->ffn_hidden;
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    const double qd = (double)m->heads * d, kvd = (double)m->kv_heads * d;
    int n = 0;
    out[n++] = (lora_linear){h, qd, true, true};   /* q */
    out[n++] = (lora_linear){h, kvd, true, true};  /* k */
    out[n++] = (lora_linear){h, kvd, true, true};  /* v */
    out[n++] = (lora_linear){qd, h, false, true};  /* o */
    if (m->mlp == PE_MLP_SWIGLU)
        out[n++] = (lora_linear){h, f, true, false}; /* gate */
    out[n++] = (lora_linear){h, f, true, false};     /* up */
    out[n++] = (lora_linear){f, h, false, false};    /* down */
    return n;
}

static bool lora_targeted(pe_lora_targets targets, const lora_linear *l)
{
    return targets == PE_LORA_ALL_LINEAR || (targets == PE_LORA_ATTENTION) == l->attention;
}

/* F37 one target's adapter GEMMs as PEFT's LoraParallelLinear splits them
 * (M16): a column-parallel base has A (in × r) whole and B (r × out) split
 * by columns, a row-parallel one A split by rows (in/t × r) and B whole. */
static void lora_adapter_gemms(pe_lora_ctx *lo, const lora_linear *l)
{
    const int i = lo->n_gemms;
    lo->ad_K[i] = l->in, lo->ad_N[i] = lo->r, lo->ad_split[i] = l->column ? 0 : 1;
    lo->ad_K[i + 1] = lo->r, lo->ad_N[i + 1] = l->out, lo->ad_split[i + 1] = l->column ? 2 : 0;
    lo->n_gemms = i + 2;
}

void memory_lora_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_training *tr = &sc->training;
    pe_lora_ctx *lo = &ctx->lora;
    lo->on = true;
    lo->quantised = tr->base_quant != PE_BASE_QUANT_NONE;
    lo->beta_q = tr->base_quant == PE_BASE_QUANT_NF4    ? PE_LORA_NF4_BYTES
                 : tr->base_quant == PE_BASE_QUANT_INT8 ? PE_LORA_INT8_BYTES
                                                        : ctx->beta_w; /* M15 */
    lo->r = (double)tr->lora_rank;
    lora_linear lin[7];
    const int n = lora_linears(&sc->model, lin);
    for (int i = 0; i < n; i++) {
        const double size = lin[i].in * lin[i].out;
        lo->dequant = lo->quantised && size > lo->dequant ? size : lo->dequant; /* M17 */
        if (!lora_targeted(tr->lora_targets, &lin[i]))
            continue;
        lo->rep += lin[i].column ? lin[i].in : lin[i].out; /* M16: A whole, or B whole */
        lo->sh += lin[i].column ? lin[i].out : lin[i].in;
        lo->targets += 1.0;
        lo->in_sum += lin[i].in;
        lora_adapter_gemms(lo, &lin[i]); /* F37 */
        if (ctx->op_sac) /* A32: base i is the block's (i + 1)-th mm, saved when that is odd */
            act_lora_op_saved(lo->r, lin[i].out, i % 2 == 0, lin[i].column,
                              sc->framework.eager_elementwise, &lo->op_rep, &lo->op_par);
    }
    ctx->act_op_rep += lo->op_rep; /* A32 into A15 (0 without op-level SAC) */
    ctx->act_op_par += lo->op_par;
    lo->deq_bytes = lo->quantised ? (lo->beta_q + 2.0) * ctx->N_mm : 0.0; /* F37 */
    lo->deq_bps = compute_pass_bps(&sc->cluster.gpu, sc->cluster.gpu.hbm_tb_s * 1e12);
    lo->act = act_lora(lo->r, lo->targets, lo->in_sum, tr->lora_dropout > 0.0); /* A27 */
    ctx->act_rep += lo->act;
    /* §3's state total on one GPU: M15 + M16 at t = 1, unsharded */
    const double L = (double)sc->model.layers, n_lin = L * ctx->N_mm;
    const double n_total = params_total(&sc->model, ctx->N_layer, 1);
    const double n_ad = L * params_lora_layer(lo->r, lo->rep, lo->sh, 1.0);
    ctx->state_total_gib = (mem_lora_base(ctx->beta_w, lo->beta_q, n_total, n_lin, 0, 1.0) +
                            (ctx->beta_w + ctx->beta_g + ctx->beta_o) * n_ad) /
                           PE_GIB;
}
