/* eval_fixtures.h — scenarios and plans built directly in C for the
 * evaluator's unit tests (no YAML): GPT-3 175B on MI300X nodes. */
#ifndef PLANEVAL_TEST_EVAL_FIXTURES_H
#define PLANEVAL_TEST_EVAL_FIXTURES_H

#include <math.h>
#include <string.h>

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
    s.precision = (pe_precision){2, 2, 12};
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
    return p;
}

static inline pe_result fx_eval(const pe_scenario *s, const pe_plan *p)
{
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(s, &ctx);
    evaluate_plan(&ctx, p, &r);
    return r;
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
