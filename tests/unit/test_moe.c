/* test_moe.c — the MoE equations (docs/design/moe.md) against hand
 * arithmetic: P8–P14 parameter counts of MoE, head_dim and MLA models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/params.h"

/* Mixtral 8x7B (design §8.1): attention 4096·4096 (q) + 2·4096·1024 (k, v)
 * + 4096·4096 (o) = 41,943,040; one expert 3·4096·14336 = 176,160,768, ×8 =
 * 1,409,286,144; router 4096·8 = 32,768; norms 2·4096 = 8,192 → layer
 * 1,451,270,144, ×32 = 46,440,644,608; embedding + output 2·32000·4096 =
 * 262,144,000; final norm 4,096 → total 46,702,792,704 ("46.7B").
 * Active: 2 experts 352,321,536 → layer 394,305,536, ×32 = 12,617,777,152
 * + 262,148,096 = 12,879,925,248 ("12.9B"). */
static void test_mixtral_8x7b(void **state)
{
    (void)state;
    const pe_model m = fx_mixtral_8x7b();
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 41943040.0);
    assert_true(mp.expert_one == 176160768.0);
    assert_true(mp.moe_expert == 1409286144.0);
    assert_true(mp.moe_dense_part == 41943040.0 + 32768.0 + 8192.0);
    assert_true(mp.n_moe == 32.0);
    assert_true(mp.total == 46702792704.0);
    assert_true(mp.active == 12879925248.0);
}

/* DeepSeek-V3 (design §8.3). MLA per layer: q_a 7168·1536 = 11,010,048;
 * q_b 1536·128·192 = 37,748,736; kv_a 7168·(512+64) = 4,128,768; kv_b
 * 512·128·(128+128) = 16,777,216; o 128·128·7168 = 117,440,512; latent norms
 * 1536 + 512 = 2,048 → 187,107,328. Replicated (down-projections + latent
 * norms): 11,010,048 + 4,128,768 + 2,048 = 15,140,864.
 * Dense layer + 3·7168·18432 = 396,361,728 + norms 14,336 → 583,483,392.
 * MoE layer: experts 256·3·7168·2048 = 256·44,040,192 = 11,274,289,152;
 * dense part 187,107,328 + shared 44,040,192 + router 256·7168 = 1,835,008
 * + norms 14,336 = 232,996,864.
 * Total 3·583,483,392 + 58·(232,996,864 + 11,274,289,152) + 2·129280·7168
 * + 7168 = 1,750,450,176 + 667,422,588,928 + 1,853,358,080 + 7,168 =
 * 671,026,404,352 — the published 671,026,419,200 ("671B") less the
 * 58·256 = 14,848 expert score-correction biases planeval does not model.
 * Active: 58·(232,996,864 + 8·44,040,192) = 58·585,318,400 = 33,948,467,200
 * + 1,750,450,176 + 1,853,365,248 = 37,552,282,624 (published "37B"; 36.6B
 * without the 926,679,040 input embedding, as DeepSeek counts it). */
static void test_deepseek_v3(void **state)
{
    (void)state;
    const pe_model m = fx_deepseek_v3();
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 187107328.0);
    assert_true(mp.att_rep == 15140864.0);
    assert_true(mp.layer_dense == 583483392.0);
    assert_true(mp.moe_expert == 11274289152.0);
    assert_true(mp.moe_dense_part == 232996864.0);
    assert_true(mp.n_moe == 58.0);
    assert_true(mp.total == 671026404352.0);
    assert_true(mp.active == 37552282624.0);
    assert_true(mp.active - 129280.0 * 7168.0 == 36625603584.0); /* "36.6B" */
}

/* P9 (design §10 g): DeepSeek-V3 L_d = 3, ν = 1: [0,3) → 0; [3,7) → 6 − 2 = 4;
 * [59,61) → 60 − 58 = 2. ν = 2, L_d = 0, [0,8): ⌊7/2⌋ − ⌊−1/2⌋ = 3 − (−1) = 4
 * (layers 0, 2, 4, 6); [1,8): 3 − 0 = 3; dense model: 0. */
static void test_moe_layer_counts(void **state)
{
    (void)state;
    pe_model m = fx_deepseek_v3();
    assert_int_equal(params_moe_layers(&m, 0, 3), 0);
    assert_int_equal(params_moe_layers(&m, 3, 7), 4);
    assert_int_equal(params_moe_layers(&m, 59, 61), 2);
    assert_int_equal(params_moe_layers(&m, 0, 61), 58);
    m.dense_layers = 0;
    m.moe_every = 2;
    assert_int_equal(params_moe_layers(&m, 0, 8), 4);
    assert_int_equal(params_moe_layers(&m, 1, 8), 3);
    m.experts = 0;
    assert_int_equal(params_moe_layers(&m, 0, 8), 0);
}

/* head_dim and biases, gpt-oss-120b (design §8.6): attention 2880·4096 +
 * 2·2880·512 + 4096·2880 = 26,542,080, biases 4096 + 1024 + 2880 = 8,000;
 * expert 3·2880·2880 = 24,883,200 + biases 2·2880 + 2880 = 8,640 →
 * 24,891,840, ×128 = 3,186,155,520; router 368,640 + 128 bias; norms 5,760 →
 * layer 26,550,080 + 3,186,155,520 + 368,768 + 5,760 = 3,213,080,128, ×36 =
 * 115,670,884,608; embeddings 2·201088·2880 = 1,158,266,880; + 2,880 →
 * 116,829,154,368 = the card's 116.83B less the 2,304 attention sinks.
 * Active: 26,550,080 + 4·24,891,840 + 368,768 + 5,760 = 126,491,968, ×36 =
 * 4,553,710,848 + 1,158,269,760 = 5,711,980,608 (5.13B without the
 * 579,133,440 input embedding: 5,132,847,168). */
static void test_gpt_oss_120b(void **state)
{
    (void)state;
    const pe_model m = {.layers = 36, .hidden = 2880, .heads = 64, .kv_heads = 8,
                        .has_head_dim = true, .head_dim = 64, .ffn_hidden = 2880,
                        .vocab = 201088, .seq_len = 4096, .mlp = PE_MLP_SWIGLU,
                        .norm = PE_NORM_RMSNORM, .bias = true, .position = PE_POSITION_ROTARY,
                        .attention = PE_ATTENTION_FLASH, .experts = 128, .top_k = 4,
                        .moe_ffn_hidden = 2880, .moe_every = 1, .moe_imbalance = 1};
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 26542080.0);
    assert_true(mp.moe_expert == 3186155520.0);
    assert_true(mp.total == 116829154368.0);
    assert_true(mp.active == 5711980608.0);
}

/* A dense model keeps P2 and P5 bit for bit: Llama-2 70B layer 855,654,400. */
static void test_dense_unchanged(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.has_params = false;
    pe_moe_params mp;
    params_moe(&s.model, &mp);
    assert_true(mp.layer_dense == params_layer_dims(&s.model));
    assert_true(mp.n_moe == 0.0);
    assert_true(mp.total == params_total(&s.model, params_layer(&s.model), 1));
    assert_true(mp.active == mp.total);
}

/* A DGX H100 cluster (catalog h100-node): switch 450 GB/s, 2 µs; NIC 50 GB/s,
 * 5 µs; 80 GiB, 989.4 TFLOP/s, 3.35 TB/s, e 0.5; reserve 10 GiB; bf16 2/2/12. */
static pe_scenario fx_h100(pe_model m, int64_t nodes, int64_t global_batch)
{
    pe_scenario s = fx_gpt3(nodes);
    s.model = m;
    s.cluster.gpu = (pe_gpu){.hbm_gib = 80, .peak_tflops = 989.4, .hbm_tb_s = 3.35,
                             .flops_efficiency = 0.5};
    s.cluster.intra_node = (pe_intra_node){.present = true, .topology = PE_TOPOLOGY_SWITCH,
                                           .bandwidth_gb_s = 450, .latency_us = 2};
    s.cluster.inter_node = (pe_inter_node){.present = nodes > 1, .nic_gb_s = 50, .latency_us = 5};
    s.precision.dispatch_bytes = 2;
    s.training.global_batch = global_batch;
    return s;
}

static pe_plan fx_moe_plan(int64_t dp, int64_t tp, int64_t ep, int64_t etp, int64_t zero)
{
    pe_plan p = fx_plan(dp, tp, 1, 1);
    p.ep = ep;
    p.etp = etp;
    p.zero = zero;
    return p;
}

/* Expert memory per GPU (design §10 a): Mixtral 8x7B, 16 H100, tp 2, dp 8,
 * ep 8, etp 1, zero 1: edp = 16/8 = 2; experts per GPU 32·8·176,160,768/8 =
 * 5,637,144,576 parameters: weights 2·5,637,144,576 B = 10.5 GiB, gradients
 * 10.5 GiB, optimizer 12·5,637,144,576/2 B = 31.5 GiB → mem_experts 52.5 GiB.
 * Dense part (41,984,000·32 + 262,144,000 + 4,096)/2 = 802,818,048 per GPU:
 * weights 2·802,818,048 B on top. With etp = tp = 2: ep·etp = 16, edp 1:
 * 2,818,572,288 per GPU → 5.25 + 5.25 + 31.5 = 42.0 GiB. V9: ep 3 ∤ 8;
 * V10: ep 8·etp 4 = 32 ∤ 16. */
static void test_expert_memory(void **state)
{
    (void)state;
    pe_model m = fx_mixtral_8x7b();
    pe_scenario s = fx_h100(m, 2, 64);
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    pe_result r = fx_eval(&s, &p);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    assert_true(r.mem_experts_gib == 52.5);
    assert_rel(r.mem_weights_gib, (2.0 * 802818048.0 + 2.0 * 5637144576.0) / GIB, 1e-15);
    assert_rel(r.mem_optimizer_gib, (12.0 * 802818048.0 / 8.0 + 31.5 * GIB) / GIB, 1e-15);
    p.etp = 2;
    r = fx_eval(&s, &p);
    assert_true(r.mem_experts_gib == 42.0);
    p = fx_moe_plan(8, 2, 3, 1, 1);
    r = fx_eval(&s, &p);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_true((r.failed & PE_FAIL_V9) != 0);
    p = fx_moe_plan(8, 2, 8, 4, 1);
    r = fx_eval(&s, &p);
    assert_true((r.failed & PE_FAIL_V10) != 0);
}

/* All-to-all (C6, design §10 b), bf16 dispatch and combine. One node:
 * Mixtral, s 4096, b 1, t = c = 1, k 2, ρ 1: S = 4096·2·4096·2 = 67,108,864 B;
 * ep 8 (n_in 8): 7/8·S/450e9 + 7·2e-6 = 1.30489458e-4 + 1.4e-5 =
 * 1.44489458e-4 s per all-to-all; T_ep = 2× = 2.88978916e-4 s. ep_comm_s with
 * m = 8/8 = 1, 32 MoE layers, no overlap: forward 32·T_ep + backward 32·T_ep. */
static void test_all_to_all_one_node(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 1, 8);
    pe_plan p = fx_moe_plan(8, 1, 8, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    const double S = 67108864.0;
    const double one = 7.0 / 8.0 * S / 450e9 + 7.0 * 2e-6;
    assert_rel(one, 1.44489458e-4, 1e-8);
    assert_rel(d.moe.t_ep, 2.0 * one, 1e-15);
    assert_rel(r.ep_comm_s, 64.0 * 2.0 * one, 1e-14);
    assert_int_equal(r.tier_ep, PE_TIER_INTRA);
    /* S1': the seven columns plus ep_comm_s */
    assert_rel(r.step_time_s,
               r.compute_s + r.tp_comm_s + r.cp_comm_s + r.bubble_s + r.pp_comm_s + r.dp_comm_s +
                   r.optimizer_s + r.ep_comm_s,
               1e-15);
}

/* Across nodes: Qwen3-30B-A3B (h 2048, k 8), s 4096: S = 4096·8·2048·2 =
 * 134,217,728 B; ep 16, etp 1 on two nodes (n_in 8, n_out 2): intra
 * 7/16·S/450e9 + 7·2e-6 = 1.44489458e-4; inter (16−8)/16·S/50e9 + 5e-6 =
 * 1.34717728e-3 → 1.49166674e-3 s per all-to-all. */
static void test_all_to_all_two_nodes(void **state)
{
    (void)state;
    pe_model m = {.layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4,
                  .has_head_dim = true, .head_dim = 128, .ffn_hidden = 6144, .vocab = 151936,
                  .seq_len = 4096, .mlp = PE_MLP_SWIGLU, .norm = PE_NORM_RMSNORM,
                  .position = PE_POSITION_ROTARY, .attention = PE_ATTENTION_FLASH,
                  .experts = 128, .top_k = 8, .moe_ffn_hidden = 768, .moe_every = 1,
                  .moe_imbalance = 1};
    pe_scenario s = fx_h100(m, 2, 16);
    pe_plan p = fx_moe_plan(16, 1, 16, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    const double S = 134217728.0;
    const double one = 7.0 / 16.0 * S / 450e9 + 7.0 * 2e-6 + 8.0 / 16.0 * S / 50e9 + 5e-6;
    assert_rel(one, 1.49166674e-3, 1e-8);
    assert_rel(d.moe.t_ep, 2.0 * one, 1e-15);
    assert_int_equal(r.tier_ep, PE_TIER_INTER);
}

/* Model FLOPs count active parameters only (design §10 c): Mixtral, s 4096,
 * κ 1: per MoE layer 2·(41,943,040 + 2·176,160,768) + 4·4096·4096 =
 * 788,529,152 + 67,108,864 = 855,638,016; ×32 = 27,380,416,512 + F_out
 * 2·4096·32000 = 262,144,000 → 27,642,560,512 forward FLOPs per token;
 * F_model = 3·B·s·27,642,560,512 (82,927,681,536 per token). */
static void test_moe_model_flops(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 1, 8);
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    assert_true(ctx.F_model == 3.0 * 8.0 * 4096.0 * 27642560512.0);
}

/* Uneven stages (design §10 e): Llama 3 405B (126 layers) on p = 16 with
 * first/last_stage_layers 7/7: R = 126 − 14 = 112 over 14 middle stages = 8
 * each (V3' holds; 8/8 leaves 110, not divisible by 14: V3). 1F1B with m ≥ 16:
 * stage 0 holds 16 micro-batches × 7 layers = 112 layer activations, stage 1
 * 15 × 8 = 120: the middle stage is the memory-worst of the three candidates
 * (no recompute: the embedding adds little). */
static void test_uneven_stages(void **state)
{
    (void)state;
    pe_model m = {.layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8,
                  .ffn_hidden = 53248, .vocab = 128256, .seq_len = 8192, .mlp = PE_MLP_SWIGLU,
                  .norm = PE_NORM_RMSNORM, .position = PE_POSITION_ROTARY,
                  .attention = PE_ATTENTION_FLASH, .moe_every = 1, .moe_imbalance = 1};
    pe_scenario s = fx_h100(m, 1024, 2048);
    pe_plan p = fx_plan(64, 8, 16, 1);
    p.zero = 1;
    p.first_stage_layers = p.last_stage_layers = 7;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    assert_true(d.k[0] == 16.0 && d.k[2] == 15.0 && d.k[1] == 1.0);
    assert_true(d.a6[0] == d.a_layer * 7.0 * 16.0);
    assert_true(d.a6[2] == d.a_layer * 8.0 * 15.0);
    assert_int_equal(r.worst_stage, 1);
    p.first_stage_layers = p.last_stage_layers = 8;
    r = fx_eval(&s, &p);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_true((r.failed & PE_FAIL_V3) != 0);
}

/* FP8 weight copies (design §10 f): Mixtral plan of test_expert_memory with
 * compute fp8: FP8-GEMM parameters per GPU = experts 5,637,144,576 +
 * attention 41,943,040·32/2 = 671,088,640 → 6,308,233,216 × β_8 2 =
 * 12,616,466,432 B = 11.75 GiB more weights, of which the experts' 10.5 GiB
 * join mem_experts_gib (52.5 → 63.0). Compute time falls (linear layers at
 * the FP8 peak 1978.9 TFLOP/s); MFU stays relative to the BF16 peak. */
static void test_fp8(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 2, 64);
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    const pe_result bf16 = fx_eval(&s, &p);
    s.precision.compute = PE_COMPUTE_FP8;
    s.precision.fp8_weight_bytes = 2;
    s.cluster.gpu.has_peak_fp8_tflops = true;
    s.cluster.gpu.peak_fp8_tflops = 1978.9;
    const pe_result fp8 = fx_eval(&s, &p);
    assert_rel(fp8.mem_weights_gib - bf16.mem_weights_gib, 11.75, 1e-12);
    assert_true(fp8.mem_experts_gib == 63.0);
    assert_true(fp8.compute_s < bf16.compute_s);
    assert_true(fp8.compute_s > bf16.compute_s / 2.0);
}

/* Optimizer offload (design §10 h): Mixtral plan of test_expert_memory
 * with offload_optimizer, host link 64 GB/s, CPU Adam 4e9 parameters/s per
 * node, G 8: N_sh = 802,818,048/8 + 5,637,144,576/2 = 100,352,256 +
 * 2,818,572,288 = 2,918,924,544; T_d2h = 2·N_sh/64e9 = 0.0912164 s (hidden
 * behind backward with overlap.dp 1); T_h2d = 0.0912164 s; T_cpu =
 * 8·N_sh/4e9 = 5.8378491 s → optimizer_s = T_cpu + T_h2d; the optimizer
 * states leave the GPU (mem_optimizer 0, experts 52.5 − 31.5 = 21 GiB);
 * host memory 8·14·N_sh = 326,919,548,928 B = 304.47 GiB per node. */
/* test_offload's cluster: Mixtral 8x7B on 2 H100 nodes, a 64 GB/s host
 * link and CPU Adam at 4e9 parameters/s a node. */
static pe_scenario offload_scenario(void)
{
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 2, 64);
    s.cluster.gpu.has_host_link_gb_s = true;
    s.cluster.gpu.host_link_gb_s = 64;
    s.cluster.cpu_adam_gparams_s = 4;
    return s;
}

static void test_offload(void **state)
{
    (void)state;
    pe_scenario s = offload_scenario();
    s.cluster.has_host_memory_gib = true;
    s.cluster.host_memory_gib = 2048;
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    p.offload_optimizer = true;
    const double n_sh = 2918924544.0;
    const pe_result r = fx_eval(&s, &p);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    assert_true(r.mem_optimizer_gib == 0.0);
    assert_true(r.mem_experts_gib == 21.0);
    assert_rel(r.optimizer_s, 8.0 * n_sh / 4e9 + 2.0 * n_sh / 64e9, 1e-14);
    assert_rel(r.host_mem_gib, 326919548928.0 / GIB, 1e-14); /* 304.47 GiB */
    s.cluster.host_memory_gib = 256; /* M8 fails: over_memory */
    assert_int_equal(fx_eval(&s, &p).status, PE_STATUS_OVER_MEMORY);
    p.zero = 0; /* V15 */
    assert_true((fx_eval(&s, &p).failed & PE_FAIL_V15) != 0);
}

/* X35 (docs/model.md §12): the plan of test_offload under a framework whose
 * host copies move offload_copy_bytes = 4 a parameter (DeepSpeed's fp32
 * copies): T_d2h = 4·N_sh/64e9 = 0.1824328 s, T_h2d = 4·N_sh/64e9 =
 * 0.1824328 s, T_cpu = 5.8378491 s; the last backward's window W (the
 * detail's, about 0.109 s) hid the neutral 0.0912164 s copy down whole, and
 * now hides W of it: optimizer_s = (0.1824328 − W) + 5.8378491 + 0.1824328;
 * 0 keeps X12's β_g = β_w = 2; memory does not move. */
static void test_offload_copy_bytes(void **state)
{
    (void)state;
    pe_scenario s = offload_scenario();
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    p.offload_optimizer = true;
    const double n_sh = 2918924544.0;
    s.framework.present = true;
    const pe_result neutral = fx_eval(&s, &p);
    assert_rel(neutral.optimizer_s, 8.0 * n_sh / 4e9 + 2.0 * n_sh / 64e9, 1e-14);
    s.framework.offload_copy_bytes = 4;
    pe_result fp32;
    pe_detail d;
    fx_eval_detail(&s, &p, &fp32, &d);
    assert_rel(d.off.t_d2h, 4.0 * n_sh / 64e9, 1e-14);
    assert_rel(d.off.t_h2d, 4.0 * n_sh / 64e9, 1e-14);
    assert_true(d.off.window > 2.0 * n_sh / 64e9 && d.off.window < 4.0 * n_sh / 64e9);
    assert_rel(fp32.optimizer_s, (4.0 * n_sh / 64e9 - d.off.window) + 8.0 * n_sh / 4e9 +
                                     4.0 * n_sh / 64e9, 1e-14);
    assert_true(fp32.mem_total_gib == neutral.mem_total_gib);
    /* more bytes a copy never makes the step faster */
    assert_true(fp32.step_time_s >= neutral.step_time_s);
}

/* X14 and F21 on MoE (docs/model.md §12): the plan of test_offload without
 * offload, η_W not given, so both passes run at W = 3.35e12 B/s. X14 with
 * 50 bytes on both shards, z = 1: N_sh = 802,818,048/8 + 5,637,144,576/2 =
 * 2,918,924,544 → 50·N_sh/3.35e12 = 0.0435660 s. F21 with 6 bytes, z = 1
 * (no sharding of the gradients): (802,818,048 + 5,637,144,576)·6/3.35e12
 * = 0.0115342 s per micro-batch; z = 2: N_sh·6/3.35e12 = 0.00522793 s.
 * With offload_optimizer X12 replaces X14: the same optimizer_s as without
 * the framework. */
static void test_framework_passes_moe(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 2, 64);
    s.cluster.gpu.has_host_link_gb_s = true;
    s.cluster.gpu.host_link_gb_s = 64;
    s.cluster.cpu_adam_gparams_s = 4;
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    const double n_sh = 2918924544.0, n_all = 802818048.0 + 5637144576.0;
    const pe_result plain = fx_eval(&s, &p);
    p.offload_optimizer = true;
    const pe_result off = fx_eval(&s, &p);
    p.offload_optimizer = false;
    s.framework = (pe_framework){.present = true, .optimizer_pass_bytes = 50,
                                 .grad_accum_bytes = 6};
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(r.optimizer_s, 50.0 * n_sh / 3.35e12, 1e-14);
    assert_rel(d.t_accum[0], 6.0 * n_all / 3.35e12, 1e-14);
    assert_rel(r.compute_s - plain.compute_s, d.m * d.t_accum[d.time_stage], 1e-9);
    p.zero = 2;
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(d.t_accum[0], 6.0 * n_sh / 3.35e12, 1e-14);
    p.zero = 1, p.offload_optimizer = true;
    assert_rel(fx_eval(&s, &p).optimizer_s, off.optimizer_s, 1e-15);
    /* X13 on the MoE plan (no shared experts, sp on, tp 2): each MoE layer's
     * attention block keeps the all-gather of the output gradient, T_ar/2,
     * and hides the reduce-scatter behind QKV's weight gradient (longer
     * here): the backward TP time falls by m·32·T_ar/2 (overlap.tp 0, φ 0) */
    p.offload_optimizer = false;
    const pe_result sync = fx_eval(&s, &p);
    s.framework.tp_async_backward = true;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_true(d.gemm_t[0] > d.t_ar_tp / 2);
    assert_rel(sync.tp_comm_s - r.tp_comm_s, d.m * 32 * d.t_ar_tp / 2, 1e-9);
}

/* X12's window is shared with X4 (design §7): GPT-3 175B on one H800-like
 * node, dp 1, tp 4, cp 2, ZeRO-3, offload; ZeRO-3's collectives are exposed
 * past the window, so a longer backward (here F21's accumulation pass)
 * hides as much more of them as it adds and must not also hide more of
 * T_d2h: the step never gets shorter when backward gets longer. */
static void test_offload_window_shared(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_gpt3(1).model, 1, 512);
    s.cluster.intra_node.bandwidth_gb_s = 200;
    s.cluster.gpu.has_host_link_gb_s = true;
    s.cluster.gpu.host_link_gb_s = 64;
    s.cluster.cpu_adam_gparams_s = 4;
    pe_plan p = fx_plan(1, 4, 1, 2);
    p.zero = 3, p.offload_optimizer = true, p.sequence_parallel = false;
    p.overlap.dp = 1;
    s.framework = (pe_framework){.present = true, .grad_accum_bytes = 6};
    pe_eval_ctx ctx;
    pe_result r6, r10;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r6, &d);
    assert_true(r6.dp_comm_s > 0.0); /* X4 exposed: the window is full */
    assert_true(d.off.window < p.overlap.dp * d.tau_b[d.time_stage]);
    s.framework.grad_accum_bytes = 10;
    r10 = fx_eval(&s, &p);
    assert_true(r10.step_time_s >= r6.step_time_s);
}

/* V10–V14 (design §1) on Mixtral over 16 H100 (G 8): V12 tp 2 without
 * sequence parallel; etp 3 with tp 1, dp 16: 3 ∤ f_e 14336 = 2^11·7 (V11),
 * 3 ∤ G 8 and 8 ∤ 3 (V14), ep·etp 3 ∤ tp·cp·dp 16 (V10); biased experts
 * with etp 2 (V13), valid again with etp 1. */
static void test_moe_rules(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 2, 64);
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    p.sequence_parallel = false;
    assert_true((fx_eval(&s, &p).failed & PE_FAIL_V12) != 0);
    p = fx_moe_plan(16, 1, 1, 3, 1); /* etp 3: 3 ∤ 14336 (V11), 3 ∤ 8 (V14), 3 ∤ 16 (V10) */
    const uint32_t f = fx_eval(&s, &p).failed;
    assert_true((f & PE_FAIL_V11) && (f & PE_FAIL_V14) && (f & PE_FAIL_V10));
    s.model.bias = true; /* biased experts with etp 2 */
    p = fx_moe_plan(8, 2, 8, 2, 1);
    assert_true((fx_eval(&s, &p).failed & PE_FAIL_V13) != 0);
    p.etp = 1;
    assert_int_not_equal(fx_eval(&s, &p).status, PE_STATUS_INVALID);
}

/* X1 on MoE layers (design §4): Mixtral (no shared experts), tp 2, etp 1,
 * ep 8, dp 8, b 1, s 4096, m = 64/8 = 8, no overlap: each MoE layer charges
 * one TP all-reduce forward and one backward (attention only; the routed
 * experts' TP traffic is X11, 0 with etp 1): tp_comm_s = m·32·2·T_ar.
 * T_ar = 2·T_rs of S = 2·1·4096·4096 = 33,554,432 B over 2 GPUs at 450 GB/s:
 * 2·(1/2·S/450e9 + 2e-6) = 2·(3.7282702e-5 + 2e-6) = 7.8565404e-5 s. */
static void test_moe_tp_comm(void **state)
{
    (void)state;
    pe_scenario s = fx_h100(fx_mixtral_8x7b(), 2, 64);
    pe_plan p = fx_moe_plan(8, 2, 8, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    const double t_ar = 2.0 * (0.5 * 33554432.0 / 450e9 + 2e-6);
    assert_rel(d.t_ar_tp, t_ar, 1e-15);
    assert_rel(r.tp_comm_s, 8.0 * 32.0 * 2.0 * t_ar, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixtral_8x7b),     cmocka_unit_test(test_deepseek_v3),
        cmocka_unit_test(test_moe_layer_counts), cmocka_unit_test(test_gpt_oss_120b),
        cmocka_unit_test(test_dense_unchanged), cmocka_unit_test(test_expert_memory),
        cmocka_unit_test(test_all_to_all_one_node), cmocka_unit_test(test_all_to_all_two_nodes),
        cmocka_unit_test(test_moe_model_flops),  cmocka_unit_test(test_uneven_stages),
        cmocka_unit_test(test_fp8),              cmocka_unit_test(test_offload),
        cmocka_unit_test(test_framework_passes_moe),
        cmocka_unit_test(test_offload_window_shared),
        cmocka_unit_test(test_offload_copy_bytes),
        cmocka_unit_test(test_moe_rules),        cmocka_unit_test(test_moe_tp_comm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
