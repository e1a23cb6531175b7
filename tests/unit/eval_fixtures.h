/* eval_fixtures.h — scenarios and plans built directly in C for the
 * evaluator's unit tests (no YAML): GPT-3 175B on MI300X nodes. */
#ifndef PLANEVAL_TEST_EVAL_FIXTURES_H
#define PLANEVAL_TEST_EVAL_FIXTURES_H

#include <math.h>
#include <string.h>

#include "model/detail.h"
#include "model/evaluate.h"
#include "core/scenario.h"

#define GIB 1073741824.0

/* GPT-3 175B (Brown et al. 2020): L 96, h 12288, a 96, V 51200, s 2048,
 * gelu, layernorm, bias, dropout, learned positions, standard attention,
 * params 175e9; on `nodes` MI300X nodes: 8 GPUs/node, full mesh of 7 links at
 * 64 GB/s, 2 µs; 192 GiB, 1307.4 TFLOP/s, 5.3 TB/s, e 0.5; NIC 50 GB/s, 5 µs;
 * reserve 10 GiB; global batch 1536; overlap defaults {0, 1, 1, 0}. */
static inline pe_scenario fx_gpt3(int64_t nodes)
{
    pe_scenario s;
    memset(&s, 0, sizeof s);
    strcpy(s.name, "gpt3-175b-mi300x");
    s.model = (pe_model){.layers = 96,
                         .hidden = 12288,
                         .heads = 96,
                         .kv_heads = 96,
                         .ffn_hidden = 4 * 12288,
                         .vocab = 51200,
                         .seq_len = 2048,
                         .mlp = PE_MLP_GELU,
                         .norm = PE_NORM_LAYERNORM,
                         .bias = true,
                         .dropout = true,
                         .tied_embeddings = false,
                         .position = PE_POSITION_LEARNED,
                         .attention = PE_ATTENTION_STANDARD,
                         .causal_flops = false,
                         .has_params = true,
                         .params = 175e9};
    s.precision = (pe_precision){.param_bytes = 2, .grad_bytes = 2, .optimizer_bytes = 12};
    s.cluster = (pe_cluster){
        .nodes = nodes,
        .gpus_per_node = 8,
        .allow_cross_node_tp = false,
        .reserve_gib = 10,
        .gpu = {.hbm_gib = 192, .peak_tflops = 1307.4, .hbm_tb_s = 5.3, .flops_efficiency = 0.5},
        .intra_node = {.present = true,
                       .topology = PE_TOPOLOGY_FULL_MESH,
                       .links = 7,
                       .link_gb_s = 64,
                       .latency_us = 2},
        .inter_node = {.present = nodes > 1, .nic_gb_s = 50, .latency_us = 5},
    };
    s.training = (pe_training){.global_batch = 1536};
    s.overlap = (pe_overlap){.tp = 0, .cp = 1, .dp = 1, .pp = 0};
    s.rank_by = PE_RANK_STEP_TIME;
    return s;
}

/* fx_gpt3 with F22's shape numbers (docs/model.md §12) set to round values
 * not tied to any GPU: e 0.6 for GEMMs and element-wise, e_att 0.4, s_half
 * 400 tokens, d_half 60, causal tile 128, flash attention. */
static inline pe_scenario fx_gpt3_attention_shape(int64_t nodes)
{
    pe_scenario s = fx_gpt3(nodes);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.6, g->elementwise_efficiency = 0.6;
    g->has_attention_efficiency = true, g->attention_efficiency = 0.4;
    g->attention_half_seq = 400, g->attention_half_head_dim = 60, g->attention_causal_tile = 128;
    s.model.attention = PE_ATTENTION_FLASH;
    return s;
}

/* GPT-3 on n MI300X nodes with the refined compute on: e_max 0.5, e_att
 * 0.25 (rate 326.85e12), element-wise at 0.5 of the HBM bandwidth
 * (test_attention.c's F22 and F30 plan tests add their shape numbers). */
static inline pe_scenario fx_gpt3_shaped(int64_t nodes)
{
    pe_scenario s = fx_gpt3(nodes);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5;
    g->has_attention_efficiency = true, g->attention_efficiency = 0.25;
    g->elementwise_efficiency = 0.5;
    return s;
}

/* fx_gpt3_shaped on 8 nodes with F22's causal kernel: s_half 207, causal
 * tile B_c 128 (test_attention.c's test_f22_plan; F33's and X31's plans). */
static inline pe_scenario fx_gpt3_causal_tile(void)
{
    pe_scenario s = fx_gpt3_shaped(8);
    s.cluster.gpu.attention_half_seq = 207, s.cluster.gpu.attention_causal_tile = 128;
    return s;
}

/* A plan with the interface defaults: zero 0, recompute none, micro_batch 1,
 * 1f1b, v 1, sp = tp > 1, overlap {0, 1, 1, 0}. */
static inline pe_plan fx_plan(int64_t dp, int64_t tp, int64_t pp, int64_t cp)
{
    pe_plan p;
    memset(&p, 0, sizeof p);
    p.dp = dp;
    p.tp = tp;
    p.pp = pp;
    p.cp = cp;
    p.zero = 0;
    p.recompute = PE_RECOMPUTE_NONE;
    p.micro_batch = 1;
    p.schedule = PE_SCHEDULE_1F1B;
    p.virtual_stages = 1;
    p.sequence_parallel = tp > 1;
    p.overlap = (pe_overlap){.tp = 0, .cp = 1, .dp = 1, .pp = 0};
    p.ep = 1;
    p.etp = tp;
    return p;
}

/* Mixtral 8x7B (HF mistralai/Mixtral-8x7B-v0.1 config.json): L 32, h 4096,
 * a 32, g 8, f 14336, V 32000, 8 experts top-2, swiglu, rmsnorm, no bias,
 * rotary, flash, untied; s 4096 (docs/design/moe.md §8.1, §10). */
static inline pe_model fx_mixtral_8x7b(void)
{
    return (pe_model){.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
                      .ffn_hidden = 14336, .vocab = 32000, .seq_len = 4096,
                      .mlp = PE_MLP_SWIGLU, .norm = PE_NORM_RMSNORM, .bias = false,
                      .dropout = false, .position = PE_POSITION_ROTARY,
                      .attention = PE_ATTENTION_FLASH, .experts = 8, .top_k = 2,
                      .moe_ffn_hidden = 14336, .moe_every = 1, .moe_imbalance = 1};
}

/* Mixtral's MoE plan of the F23 and A25 tests: dp 64 on 8 nodes, ep 8,
 * etp 1, the given recompute. */
static inline pe_plan fx_plan_ep8(pe_recompute rc)
{
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.ep = 8, p.etp = 1, p.recompute = rc;
    return p;
}

/* DeepSeek-V3 (HF deepseek-ai/DeepSeek-V3 config.json, MTP excluded): L 61,
 * h 7168, a 128, f 18432, V 129280, 3 dense layers, 256 experts top-8 of
 * 2048, 1 shared, MLA q 1536 kv 512 rope 64 nope 128 v 128 (design §8.3). */
static inline pe_model fx_deepseek_v3(void)
{
    return (pe_model){.layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128,
                      .ffn_hidden = 18432, .vocab = 129280, .seq_len = 4096,
                      .mlp = PE_MLP_SWIGLU, .norm = PE_NORM_RMSNORM, .bias = false,
                      .dropout = false, .position = PE_POSITION_ROTARY,
                      .attention = PE_ATTENTION_MLA, .experts = 256, .top_k = 8,
                      .moe_ffn_hidden = 2048, .shared_experts = 1, .dense_layers = 3,
                      .moe_every = 1, .moe_imbalance = 1, .q_lora_rank = 1536,
                      .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128,
                      .v_head_dim = 128};
}

static inline pe_result fx_eval(const pe_scenario *s, const pe_plan *p)
{
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(s, &ctx);
    evaluate_plan(&ctx, p, &r);
    return r;
}

/* The result and the detail record (explain's numbers) of plan p. */
static inline void fx_eval_detail(const pe_scenario *s, const pe_plan *p, pe_result *r,
                                  pe_detail *d)
{
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    evaluate_plan_detail(&ctx, p, r, d);
}

/* A framework key's evaluator test: plan p under the scenario with the key
 * on (r[0], d[0]) and off (r[1], d[1]). 1 when both are valid and the key
 * off is the step without a framework bit for bit (the key is neutral). */
static inline int fx_eval_key(const pe_scenario *on, const pe_scenario *off, const pe_plan *p,
                              pe_result r[2], pe_detail d[2])
{
    pe_scenario none = *off;
    none.framework.present = false;
    fx_eval_detail(on, p, &r[0], &d[0]);
    fx_eval_detail(off, p, &r[1], &d[1]);
    return d[0].valid && d[1].valid && r[1].step_time_s == fx_eval(&none, p).step_time_s;
}

/* |a − b| ≤ rel·|b| */
static inline int fx_rel(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

#define assert_rel(a, b, rel)                                                             \
    do {                                                                                  \
        const double a_ = (a), b_ = (b);                                                  \
        if (!fx_rel(a_, b_, (rel)))                                                       \
            fail_msg("%s = %.17g, expected %.17g (rel %g)", #a, a_, b_, (double)(rel));   \
    } while (0)

#define assert_abs(a, b, tol)                                                             \
    do {                                                                                  \
        const double a_ = (a), b_ = (b);                                                  \
        if (!(fabs(a_ - b_) <= (tol)))                                                    \
            fail_msg("%s = %.17g, expected %.17g (abs %g)", #a, a_, b_, (double)(tol));   \
    } while (0)

#endif
