/* memory.c — docs/model.md §3, memory per GPU (M1–M6, A1–A8; with MoE,
 * FP8 and offload A9–A13, M7, M8 of §14), and its preparation. */
#include "model/memory.h"
#include "model/memory_megatron.h"
#include "model/memory_deepspeed.h"
#include "model/memory_native.h"

#include "model/params.h"
#include "model/prepare.h"

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
extern inline double act_inflight_dualpipe(double p, double m);
extern inline double act_group_size(double p, double m, double n_group);
extern inline double act_inflight_grouped(double p, double m, double v, double n_group,
                                          double j);
extern inline double act_inflight_first_chunk(pe_schedule schedule, double p, double m, double v);
extern inline double act_inflight_last_chunk(pe_schedule schedule, double p, double m, double v);
extern inline double act_stage(double a_layer, double a_in, double layers_per_stage, double k,
                               int full);
extern inline double act_embed_mask(double delta, double s_local, double b, double h, double t,
                                    int sp, double k_first);
extern inline double act_output(double s_local, double b, double h, double V, double t, int sp,
                                double k_last);
extern inline double act_moe_routed(double b, double s_local, double k, double rho, double t,
                                    double etp, double beta_in, double h, double inner);
extern inline double act_moe_dispatch(double b, double s_local, double k, double rho, double h,
                                      double beta_d, double etp, double t);
extern inline double act_moe_layer(double s_local, double b, double t, int sp, double rep,
                                   double par_att, double router, double par_sh, double att,
                                   double routed);
extern inline double mem_total(double m1, double m2, double m3, double m4, double a6, double a7,
                               double a8, double reserve);
extern inline int mem_fits(double total, double budget);
extern inline double act_layer_op(double s_local, double b, double t, int sp, double seq,
                                  double rep, double par);
extern inline double mem_loss(double beta_loss, double s_local, double b, double V, double t);
extern inline double mem_weights_refined(double m1, int master_only, int64_t zero);
extern inline double mem_optimizer_temp(double beta_ot, double n_gpu, int64_t zero, double D);
extern inline double mem_ddp_buckets(int on, int64_t zero, double D, double beta_g, double n_train);
extern inline double mem_backward_working(double m4, double beta_w, double beta_g,
                                          double beta_ug);
extern inline double mem_pp_unsharded(int on, int64_t zero, double p, double beta, double n_gpu,
                                      int sharded_copy, double D);
extern inline int mem_peak_phase(const double *phase, int last);
extern inline double act_modules_expert_inner(double beta_c, double f_e);
extern inline double mem_reserved(double peak, double fragmentation);
extern inline double mem_interval_lo(double peak, double below);
extern inline double mem_interval_hi(double peak, double above);
extern inline double mem_nccl_sets(double n);
extern inline double mem_nccl_pp_peers(double p, bool wraps, bool middle);
extern inline double mem_nccl_buffers(double channel_bytes, double t, double c, double d,
                                      double ep, double pp_peers);
extern inline double act_moe_dispatch_saved(double b, double s_local, double k, double rho, double t,
                                     double bytes_per_copy);

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

/* A19 the replicated part: the two RMSNorm inputs (the layer input and the
 * residual after attention, BF16) and, with MLA, the latents c_q, c_kv and
 * k_pe that the recomputed norms and up-projections start from. */
double act_modules_rep(const pe_model *m)
{
    const double h = (double)m->hidden;
    const double latents = m->attention == PE_ATTENTION_MLA
                               ? 2.0 * (double)m->q_lora_rank +
                                     2.0 * ((double)m->kv_lora_rank + (double)m->qk_rope_head_dim)
                               : 0.0;
    return 4.0 * h + latents;
}

/* A19 the attention's TP-sharded part: the attention output (the input of
 * the linear after attention, E5M6 in DeepSeek-V3) and flash attention's
 * fp32 logsumexp; Q, K and V come again from the recomputed up-projections. */
double act_modules_par_attention(const pe_model *m, double beta_ao)
{
    const double a = (double)m->heads;
    const double dv = m->attention == PE_ATTENTION_MLA ? (double)m->v_head_dim
                      : m->has_head_dim              ? (double)m->head_dim
                                                     : params_head_dim(m);
    return beta_ao * a * dv + 4.0 * a;
}

/* A19 a dense MLP: its input is the recomputed norm's output; the activation's
 * input (fc1's output: 2f elements for SwiGLU, f for GeLU, BF16) and fc2's
 * input, cached at β_c. */
double act_modules_mlp_dense(const pe_model *m, double beta_c)
{
    const double f = (double)m->ffn_hidden;
    return (m->mlp == PE_MLP_GELU ? 2.0 : 4.0) * f + beta_c * f;
}

/* A19 once per scenario: the per-token counts that replace A1, A2, A10 and
 * A11's under recompute: selective. */
static void prepare_modules(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_framework *fw = &sc->framework;
    ctx->a19 = true;
    ctx->a19_beta_c = fw->cached_input_bytes;
    ctx->a19_beta_ao = fw->attention_output_bytes;
    ctx->a19_rep = act_modules_rep(m);
    ctx->a19_par_att = act_modules_par_attention(m, fw->attention_output_bytes);
    ctx->a19_par = ctx->a19_par_att + act_modules_mlp_dense(m, fw->cached_input_bytes);
    if (ctx->moe.on) {
        ctx->a19_inner = act_modules_expert_inner(fw->cached_input_bytes, ctx->moe.f_e_d);
        ctx->a19_par_sh = (double)m->shared_experts * ctx->a19_inner;
    }
}

/* A9–A11 per token of an MoE layer (A13: FP8 keeps the fc2 inputs and the
 * attention-output input in FP8), A12's dispatch bytes, and act_total_gib's
 * bytes for one sequence: (L − n)·A4 + n·A4′ at t = c = 1. */
static void prepare_experts(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    pe_moe_ctx *e = &ctx->moe;
    const double inner = m->mlp == PE_MLP_GELU ? 4.0 : 6.0;
    e->act_par_att = act_par_attention(m);
    e->act_par_sh = inner * (double)m->shared_experts * e->f_e_d; /* A10 */
    e->act_router = 8.0 * e->E;                                   /* A9 fp32 logits + probs */
    e->act_expert_inner = inner * e->f_e_d;
    if (ctx->fp8) { /* A13: fc2 inputs kept in FP8 */
        e->act_expert_inner -= e->f_e_d;
        e->act_par_sh -= (double)m->shared_experts * e->f_e_d;
        e->act_par_att -= act_fp8_saving_attention(m);
    }
    e->beta_d = sc->precision.dispatch_bytes;
    const double dense = act_layer(ctx->s, 1.0, 1.0, 0, ctx->act_rep, ctx->act_par, ctx->act_att);
    const double moe = act_moe_layer(
        ctx->s, 1.0, 1.0, 0, ctx->act_rep, e->act_par_att, e->act_router, e->act_par_sh,
        ctx->act_att,
        act_moe_routed(1.0, ctx->s, e->k, e->rho, 1.0, 1.0, ctx->fp8 ? 1.0 : 2.0, ctx->h,
                       e->act_expert_inner));
    const double n = (double)params_moe_layers(m, 0, m->layers);
    e->act_total_per_seq = (ctx->L - n) * dense + n * moe;
}

/* A17 Megatron-LM's legacy model: what it keeps beyond A2 (TP-sharded), on
 * the dense layers and the attention of MoE layers. */
static void prepare_legacy(const pe_model *m, pe_eval_ctx *ctx)
{
    const double a = (double)m->heads, g = (double)m->kv_heads;
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    const int flash = m->attention == PE_ATTENTION_FLASH;
    ctx->act_legacy = act_legacy_extra(m->mlp == PE_MLP_SWIGLU, flash, (double)m->ffn_hidden,
                                       a, g, d);
    ctx->act_par += ctx->act_legacy;
    if (ctx->moe.on)
        ctx->moe.act_par_att += act_legacy_extra(0, flash, 0.0, a, g, d);
}

/* A30, A31 (framework te_saved_tensors): Transformer Engine's norm
 * statistics join A1's replicated bytes (the dense layers and the attention
 * of MoE layers share them), its fused attention's softmax statistics (and
 * FP8's bf16 output) A3's, which recompute: selective drops. */
static void prepare_te_saved(const pe_model *m, pe_eval_ctx *ctx)
{
    ctx->a30_rep = act_te_norm_stats(m->norm == PE_NORM_LAYERNORM); /* A30 */
    ctx->a31_att = act_te_attention_saved(m->attention != PE_ATTENTION_STANDARD, ctx->fp8,
                                          (double)m->heads, act_fp8_saving_attention(m)); /* A31 */
    ctx->act_rep += ctx->a30_rep;
    ctx->act_att += ctx->a31_att;
}

/* Whose layers keep the activations beyond A1–A3: Megatron-LM's legacy
 * model (A17) or Transformer Engine's (A30, A31); the loader refuses both. */
static void prepare_layer_implementation(const pe_framework *fw, const pe_model *m,
                                         pe_eval_ctx *ctx)
{
    if (fw->present && fw->megatron_legacy_model)
        prepare_legacy(m, ctx);
    if (fw->present && fw->te_saved_tensors)
        prepare_te_saved(m, ctx);
}

/* A28, A29, M18 (framework deepspeed_zero): DeepSpeed's sizes, Hugging
 * Face's "auto" resolved from the hidden size as its Trainer does
 * (transformers integrations/deepspeed.py trainer_config_finalize:
 * reduce_bucket_size h², stage3_prefetch_bucket_size 0.9·h² (int() of it),
 * stage3_param_persistence_threshold 10·h), and the tensors of a layer
 * small enough to persist under ZeRO 3 (A29, at t = 1): the norms' weights
 * (and layernorm's biases), with model.bias the fused QKV bias h + 2·g·d,
 * the output projection's and fc2's h, fc1's f (two of f with swiglu). */
static void prepare_deepspeed(const pe_model *m, const pe_framework *fw, pe_eval_ctx *ctx)
{
    if (!fw->present || !fw->memory_by_phase || !fw->deepspeed_zero)
        return; /* the loader refuses deepspeed_zero without memory_by_phase */
    const double h = ctx->h, f = (double)m->ffn_hidden;
    ctx->ds_zero = true;
    ctx->ds_bucket = fw->reduce_bucket_size == PE_DS_AUTO ? h * h : fw->reduce_bucket_size;
    ctx->ds_contiguous = fw->contiguous_gradients;
    ctx->ds_overlap = fw->overlap_comm;
    ctx->ds_prefetch = fw->stage3_prefetch_bucket_size == PE_DS_AUTO
                           ? floor(0.9 * h * h)
                           : fw->stage3_prefetch_bucket_size;
    ctx->ds_max_live = fw->stage3_max_live_parameters;
    ctx->ds_reuse = fw->stage3_max_reuse_distance;
    const double T = fw->stage3_param_persistence_threshold == PE_DS_AUTO
                         ? 10.0 * h
                         : fw->stage3_param_persistence_threshold;
    ctx->ds_threshold = T;
    ctx->ds_largest = ctx->Vh > h * f ? ctx->Vh : h * f;
    const double norm_tensors = m->norm == PE_NORM_LAYERNORM ? 2.0 : 1.0;
    double layer = 2.0 * norm_tensors * mem_ds_small(h, T);
    if (m->bias) {
        const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
        layer += mem_ds_small(h + 2.0 * (double)m->kv_heads * d, T) + 2.0 * mem_ds_small(h, T) +
                 (m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0) * mem_ds_small(f, T);
    }
    ctx->ds_persist_layer = layer;
    ctx->ds_persist_final = norm_tensors * mem_ds_small(h, T);
    ctx->ds_sub_group = fw->sub_group_size;
}

/* A15 torchtitan's op-level policy: the block input and the saved matmul
 * and flash-attention outputs, bytes a token (A22: eager keeps w2's). */
static void prepare_op_sac(const pe_model *m, const pe_framework *fw, pe_eval_ctx *ctx)
{
    const double a = (double)m->heads, g = (double)m->kv_heads;
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    ctx->op_sac = true;
    ctx->act_op_seq = 2.0 * ctx->h;
    ctx->act_op_rep = act_op_eager_kept(ctx->h, fw->eager_elementwise); /* A22 */
    ctx->act_op_par = 4.0 * a * d + 2.0 * g * d + 4.0 * a + 2.0 * (double)m->ffn_hidden;
}

void memory_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_cluster *cl = &sc->cluster;
    double budget_gib = cl->gpu.hbm_gib; /* M6 budget = min(HBM, budgets.memory_gib) GiB */
    if (sc->budgets.has_memory_gib && sc->budgets.memory_gib < budget_gib)
        budget_gib = sc->budgets.memory_gib;
    ctx->budget_bytes = budget_gib * PE_GIB;
    ctx->reserve_bytes = cl->reserve_gib * PE_GIB;
    ctx->beta_w = sc->precision.param_bytes;
    ctx->beta_g = sc->precision.grad_bytes;
    ctx->beta_o = sc->precision.optimizer_bytes;
    const double n_total = ctx->moe.on ? ctx->moe.N_total : params_total(m, ctx->N_layer, 1);
    ctx->state_total_gib = (ctx->beta_w + ctx->beta_g + ctx->beta_o) * n_total / PE_GIB; /* P5, P13 */
    ctx->act_rep = act_rep(m);                    /* A1 */
    ctx->act_par = act_par(m);                    /* A2 */
    ctx->act_att = act_att(m, PE_RECOMPUTE_NONE); /* A3 (0 with flash) */
    if (ctx->fp8) { /* A13: TE keeps the QKV and MLP inputs (2h → h each), the
                     * attention-output input a·d_v and the fc2 input f in FP8 */
        ctx->act_rep -= 2.0 * ctx->h;
        ctx->act_par -= act_fp8_saving_attention(m) + (double)m->ffn_hidden;
        ctx->beta_8 = sc->precision.fp8_weight_bytes; /* M7 */
    }
    if (ctx->moe.on)
        prepare_experts(sc, ctx);
    prepare_layer_implementation(&sc->framework, m, ctx); /* A17 or A30, A31 */
    if (sc->framework.present &&
        sc->framework.recompute_modules == PE_RECOMPUTE_MODULES_NORM_MLA_MOE_ACT)
        prepare_modules(sc, ctx); /* A19 */
    ctx->host_mem_bytes = cl->has_host_memory_gib ? cl->host_memory_gib * PE_GIB : 0.0; /* M8 */
    const pe_framework *fw = &sc->framework;
    if (fw->present && (fw->recompute_method != PE_RECOMPUTE_UNIFORM ||
                        fw->recompute_num_layers > 1)) { /* A18 (the loader keeps N ≥ 1) */
        ctx->rc_by_layer = true;
        ctx->rc_method = fw->recompute_method;
        ctx->rc_layers = fw->recompute_num_layers > 1 ? (double)fw->recompute_num_layers : 1.0;
    }
    if (fw->present && fw->cpu_offloading && fw->cpu_offloading_num_layers > 0) /* A23 */
        ctx->offload_layers = (double)fw->cpu_offloading_num_layers;
    if (fw->present && fw->moe_dispatch_saved) /* A25 */
        ctx->a25_bytes = PE_A25_BYTES_PER_COPY;
    if (fw->present && fw->pp_recv_grad) /* A24 */
        ctx->pp_recv_grad = true;
    if (fw->present && fw->pp_microbatch_group > 0) /* A6″ */
        ctx->pp_group = (double)fw->pp_microbatch_group;
    prepare_deepspeed(m, fw, ctx); /* A28, A29, M18 (framework deepspeed_zero) */
    if (fw->present && fw->memory_by_phase) { /* §12 M9–M13 */
        ctx->mem_phases = true;
        ctx->loss_bytes = fw->loss_bytes;                   /* A14 */
        ctx->master_only = fw->master_weights_only;         /* M10 */
        ctx->opt_temp_bytes = fw->optimizer_temp_bytes;     /* M11 */
        ctx->ddp_buckets = fw->ddp_grad_buckets;            /* M19 */
        ctx->unsharded_grad_bytes = fw->unsharded_grad_bytes > 0.0 /* M22; 0: β_g, neutral */
                                        ? fw->unsharded_grad_bytes
                                        : ctx->beta_g;
        ctx->pp_unsharded = fw->pp_unsharded_params;        /* M12 */
        ctx->workspace_bytes = fw->workspace_mib * 1048576.0; /* M13 */
        ctx->fragmentation = fw->allocator_fragmentation;
        ctx->context_bytes = fw->cuda_context_gib * PE_GIB;
        ctx->nccl_channel_bytes = (double)fw->nccl_channels * PE_A26_BYTES_PER_SET; /* A26 */
        if (fw->selective_recompute == PE_SELECTIVE_OP)
            prepare_op_sac(m, fw, ctx); /* A15, A22 */
        if (fw->tp_gathered_inputs) /* A16: the QKV and MLP inputs; FP8 (A13) only where the
                                     * TP all-gather carries float8: torchtitan @820504e applies
                                     * Float8ColwiseParallel for every recipe but rowwise, whose
                                     * all-gather (and so the saved input) stays bf16 (X22) */
            ctx->act_gathered = (ctx->fp8 && sc->precision.fp8_recipe != PE_FP8_RECIPE_ROWWISE
                                     ? 2.0
                                     : 4.0) *
                                ctx->h;
        if (fw->cp_ring_buffers != PE_CP_RING_NONE) { /* A20: K and V repeated to a heads */
            const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
            ctx->cp_ring = fw->cp_ring_buffers;
            ctx->cp_ring_width = (double)m->heads * d;
        }
    }
}
