/* test_refinements_moe.c — the refined model (docs/model.md §12) for MoE,
 * head_dim/MLA, FP8 and uneven-stage models: F17 attention GEMM shapes with head_dim and
 * MLA, F18 FP8 GEMMs, F19 an MoE layer from its per-expert GEMMs, F20 each
 * candidate stage with its own layers; all against hand arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* A one-node cluster of a made-up GPU with round numbers: peak 1000 TFLOP/s
 * (FP8 2000), gemm_efficiency 0.5 (rate 5e14, FP8 1e15), F_half 0, HBM
 * 2 TB/s, element-wise work untimed (η_W 0), 8 GPUs on a 450 GB/s switch. */
static pe_scenario fx_refined(pe_model m, int64_t global_batch)
{
    pe_scenario s = fx_gpt3(1);
    s.model = m;
    s.cluster.gpu = (pe_gpu){.hbm_gib = 1000, .peak_tflops = 1000, .hbm_tb_s = 2,
                             .flops_efficiency = 0.5, .has_gemm_efficiency = true,
                             .gemm_efficiency = 0.5, .has_peak_fp8_tflops = true,
                             .peak_fp8_tflops = 2000};
    s.cluster.intra_node = (pe_intra_node){.present = true, .topology = PE_TOPOLOGY_SWITCH,
                                           .bandwidth_gb_s = 450, .latency_us = 2};
    s.precision.dispatch_bytes = 2;
    s.precision.fp8_weight_bytes = 2;
    s.training.global_batch = global_batch;
    return s;
}

/* fx_refined with GPT-3's layers on one node computing in FP8 (the F24,
 * F35, F36 and F42 plans): no parameter memory, element-wise work (the
 * casts) at η_W 0.5, i.e. W·η_W = 1e12 B/s. */
static pe_scenario fx_gpt3_fp8(void)
{
    pe_scenario s = fx_refined(fx_gpt3(1).model, 8);
    s.model.has_params = false;
    s.cluster.gpu.elementwise_efficiency = 0.5;
    s.precision.compute = PE_COMPUTE_FP8;
    return s;
}

/* F17 head_dim (Qwen3-30B-A3B's attention: h 2048, a 32, g 4, d 128):
 * projection a·d × h = 4096 × 2048; the rest 2·h·a·d + 2·h·g·d − a·d·h =
 * 16,777,216 + 2,097,152 − 8,388,608 = 10,485,760 = h × 5120 (a·d + 2gd).
 * MLA (DeepSeek-V3): q_a 7168·1536 = 11,010,048 + q_b 1536·128·192 =
 * 37,748,736 + kv_a 7168·576 = 4,128,768 + kv_b 512·128·256 = 16,777,216
 * → 69,664,768 = h × 9718.857…; projection a·d_v × h = 16384 × 7168.
 * F10 with MLA (fused attention, like flash): no softmax bytes. */
static void test_f17_shapes(void **state)
{
    (void)state;
    pe_model m = fx_mixtral_8x7b();
    m.hidden = 2048, m.heads = 32, m.kv_heads = 4, m.has_head_dim = true, m.head_dim = 128;
    pe_gemm_shape g[PE_LAYER_GEMMS];
    compute_layer_gemms(&m, g);
    assert_true(g[0].K == 2048 && g[0].N == 5120 && !g[0].k_sharded);
    assert_true(g[1].K == 4096 && g[1].N == 2048 && g[1].k_sharded);
    const pe_model ds = fx_deepseek_v3();
    compute_layer_gemms(&ds, g);
    assert_rel(g[0].K * g[0].N, 69664768.0, 1e-15);
    assert_true(g[0].K == 7168 && g[1].K == 16384 && g[1].N == 7168);
    assert_true(g[2].K == 7168 && g[2].N == 2 * 18432); /* the dense layers' MLP as F7 */
    /* MLA runs fused attention: no softmax bytes in F10 (standard attention
     * would add (4 + 5δ)·a·s = 4·128·4096 = 2,097,152 bytes per token) */
    double rep, par, att, out;
    compute_elementwise_bytes(&ds, &rep, &par, &att, &out);
    assert_true(att == 0.0);
    pe_model std = ds;
    std.attention = PE_ATTENTION_STANDARD;
    compute_elementwise_bytes(&std, &rep, &par, &att, &out);
    assert_true(att == 2097152.0);
}

/* F18 an FP8 GEMM 1024 × 4096 × 8192 (column-parallel, t = 1) at 1e15
 * FLOP/s and W = 4e12: compute 2·1024·4096·8192/1e15 = 6.8719476736e-5 s;
 * bytes MK + KN + 2MN = 4,194,304 + 33,554,432 + 16,777,216 = 54,525,952
 * → 1.3631488e-5 s: compute bound. At M = 64: compute 4.294967296e-6 s,
 * bytes 262,144 + 33,554,432 + 1,048,576 = 34,865,152 → 8.716288e-6 s:
 * memory bound. (BF16 bytes at M = 64 would be twice the operands.) */
static void test_f18_fp8_gemm(void **state)
{
    (void)state;
    const pe_gemm_shape col = {4096, 8192, 0};
    const pe_gemm_coef c = compute_gemm_coef_fp8(&col, 1e15, 4e12);
    assert_rel(compute_gemm_time_coef(&c, 1024, 1.0, 0.0), 6.8719476736e-5, 1e-14);
    assert_rel(compute_gemm_time_coef(&c, 64, 1.0, 0.0), 8.716288e-6, 1e-14);
    /* in the evaluator: GPT-3 175B QKV 2048 × 12288 × 36864 at t = 1, fp8:
     * 2·2048·12288·36864/1e15 = 1.855425871872e-3 s (bytes 25,165,824 +
     * 452,984,832 + 150,994,944 over 2e12 = 3.145728e-4 s: compute) */
    pe_scenario s = fx_refined(fx_gpt3(1).model, 8);
    s.model.has_params = false;
    s.precision.compute = PE_COMPUTE_FP8;
    pe_plan p = fx_plan(8, 1, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 1.855425871872e-3, 1e-13);
    s.precision.compute = PE_COMPUTE_BF16; /* bf16: half the rate, twice the time */
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 2.0 * 1.855425871872e-3, 1e-13);
    /* fp8_gemm_efficiency (F18's e_max8) at a quarter of gemm_efficiency:
     * the fp8 rate is a quarter, 4 · 1.855425871872e-3 s (still compute
     * bound); bf16 GEMMs do not use it */
    s.cluster.gpu.has_fp8_gemm_efficiency = true;
    s.cluster.gpu.fp8_gemm_efficiency = s.cluster.gpu.gemm_efficiency / 4.0;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 2.0 * 1.855425871872e-3, 1e-13);
    s.precision.compute = PE_COMPUTE_FP8;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 4.0 * 1.855425871872e-3, 1e-13);
}

/* F24 the FP8 scaling recipe on test_f18_fp8_gemm's GPT-3 plan (t = 1,
 * M = 2048), with η_W = 0.5: W·η_W = 2e12·0.5 = 1e12 bytes/s.
 * rowwise: the GEMM rate 1e15·0.7961 = 7.961e14, QKV 1.855425871872e-3 /
 * 0.7961 = 2.330644230...e-3 s (still compute bound); casts 5 bytes an
 * element of each GEMM input: QKV and fc1 inputs h = 12288 each (replicated),
 * projection h and fc2 4h = 49152 (sharded): 5·(12288 + 12288 + 12288 +
 * 49152) = 5·86016 = 430080 bytes/token, 2048·430080/1e12 = 8.8080384e-4 s
 * more element-wise time per layer forward, twice that backward.
 * delayed: the tensorwise GEMM rate, 3 bytes: 2048·3·86016/1e12 =
 * 5.28482304e-4 s. none, and any recipe with compute: bf16: unchanged. */
static void test_f24_fp8_recipe(void **state)
{
    (void)state;
    const pe_fp8_recipe_cost none = compute_fp8_recipe(PE_FP8_RECIPE_NONE);
    assert_true(none.rate_ratio == 1.0 && none.cast_bytes == 0.0);
    pe_scenario s = fx_gpt3_fp8();
    pe_plan p = fx_plan(8, 1, 1, 1);
    pe_result r0, r;
    pe_detail d0, d;
    fx_eval_detail(&s, &p, &r0, &d0);
    assert_rel(d0.gemm_t[0], 1.855425871872e-3, 1e-13);
    s.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 1.855425871872e-3 / 0.7961, 1e-13);
    assert_rel(d.tau_ew - d0.tau_ew, 8.8080384e-4, 1e-9);
    assert_rel(d.tau_lb - d0.tau_lb, 2.0 * (d.tau_lf - d0.tau_lf), 1e-9);
    assert_true(r.step_time_s > r0.step_time_s);
    s.precision.fp8_recipe = PE_FP8_RECIPE_DELAYED;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 1.855425871872e-3, 1e-13);
    assert_rel(d.tau_ew - d0.tau_ew, 5.28482304e-4, 1e-9);
    s.precision.compute = PE_COMPUTE_BF16; /* a recipe without fp8 GEMMs: no effect */
    fx_eval_detail(&s, &p, &r, &d);
    s.precision.fp8_recipe = PE_FP8_RECIPE_NONE;
    fx_eval_detail(&s, &p, &r0, &d0);
    assert_true(r.step_time_s == r0.step_time_s && d.tau_ew == d0.tau_ew);
}

/* F42 the rowwise kernel measured on the GPU (fp8_rowwise_gemm_efficiency
 * e_row), on test_f24_fp8_recipe's GPT-3 plan (t = 1, M = 2048): QKV
 * F = 2·2048·12288·36864 = 1.855425871872e12 FLOP; e_max8 = e_max = 0.5 on
 * a 2000 TFLOP/s FP8 peak, 1e15 FLOP/s, 1.855425871872e-3 s (tensorwise).
 * rowwise with e_row = 0.4: peak_fp8·e_row = 8e14 FLOP/s, 1.855425871872e12
 * / 8e14 = 2.31928233984e-3 s (ratio e_row/e_max8 = 0.8, F24's 0.7961 not
 * applied); e_row = 0: F24's 1.855425871872e-3/0.7961; tensorwise with
 * e_row set: unchanged (F42 is rowwise's only). Roofline (MK + KN + 2MN)/W
 * = 6.29e8/2e12 = 3.1e-4 s, not binding. */
static void test_f42_fp8_rowwise_measured(void **state)
{
    (void)state;
    assert_rel(compute_fp8_measured_rate_ratio(PE_FP8_RECIPE_ROWWISE, 0.7961, 0.5, 0.4), 0.8,
               1e-15);
    assert_true(compute_fp8_measured_rate_ratio(PE_FP8_RECIPE_ROWWISE, 0.7961, 0.5, 0.0) ==
                0.7961);
    assert_true(compute_fp8_measured_rate_ratio(PE_FP8_RECIPE_TENSORWISE, 1.0, 0.5, 0.4) == 1.0);
    /* whether F42 applies is a predicate, not a sentinel ratio: rowwise with
     * e_row > 0 and e_max8 > 0 only (e_max8 0: no ratio to take) */
    assert_true(compute_fp8_measured_rate_on(PE_FP8_RECIPE_ROWWISE, 0.5, 0.4));
    assert_false(compute_fp8_measured_rate_on(PE_FP8_RECIPE_ROWWISE, 0.5, 0.0));
    assert_false(compute_fp8_measured_rate_on(PE_FP8_RECIPE_ROWWISE, 0.0, 0.4));
    assert_false(compute_fp8_measured_rate_on(PE_FP8_RECIPE_TENSORWISE, 0.5, 0.4));
    pe_scenario s = fx_gpt3_fp8();
    pe_plan p = fx_plan(8, 1, 1, 1);
    pe_result r;
    pe_detail d;
    s.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 1.855425871872e-3 / 0.7961, 1e-13); /* e_row 0: F24 */
    s.cluster.gpu.fp8_rowwise_gemm_efficiency = 0.4;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 2.31928233984e-3, 1e-13);
    s.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.gemm_t[0], 1.855425871872e-3, 1e-13);
}

/* F42 fp8_kernel_rate: e_max8 from the GPU's measured tensorwise kernel
 * e_k8 only where the framework says its casts are counted apart and the
 * GPU gives e_k8. test_f24_fp8_recipe's plan: QKV 1.855425871872e12 FLOP;
 * fp8_gemm_efficiency 0.25 → 2000e12·0.25 = 5e14 FLOP/s, 3.710851743744e-3
 * s; e_k8 = 0.4 with fp8_kernel_rate → 8e14 FLOP/s, 2.31928233984e-3 s;
 * without the framework flag, or e_k8 = 0: 3.710851743744e-3 s. */
static void test_f42_fp8_kernel_rate(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_fp8();
    s.cluster.gpu.has_fp8_gemm_efficiency = true, s.cluster.gpu.fp8_gemm_efficiency = 0.25;
    s.framework.present = true;
    pe_plan p = fx_plan(8, 1, 1, 1);
    pe_result r;
    pe_detail d;
    const double t_fit = 3.710851743744e-3, t_kernel = 2.31928233984e-3;
    const struct { bool flag; double e_k8, t; } cases[] = {
        {false, 0.0, t_fit}, {true, 0.0, t_fit}, {false, 0.4, t_fit}, {true, 0.4, t_kernel}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        s.framework.fp8_kernel_rate = cases[i].flag;
        s.cluster.gpu.fp8_kernel_gemm_efficiency = cases[i].e_k8;
        assert_rel(compute_fp8_gemm_efficiency(&s.cluster.gpu, &s.framework),
                   cases[i].t == t_kernel ? 0.4 : 0.25, 1e-15);
        fx_eval_detail(&s, &p, &r, &d);
        assert_rel(d.gemm_t[0], cases[i].t, 1e-13);
    }
}

/* F35 torchao's casts role by role on GPT-3's layer GEMMs (h = 12288,
 * gelu f = 49152; QKV 12288 × 36864 and fc1 12288 × 49152 column-parallel,
 * projection 12288 × 12288 and fc2 49152 × 12288 row-parallel), c = 5:
 * forward c·X: gathered (the column-parallel X) 5·(12288 + 12288) = 122880,
 * sharded (the row-parallel X) 5·(12288 + 49152) = 307200 bytes/token.
 * Backward, tensorwise (G at c + 2 = 7, X at c + 2 = 7): gathered X of the
 * column-parallel 7·24576 = 172032 + G of the row-parallel (N = 12288 each)
 * 7·24576 = 172032 → 344064; sharded X 7·61440 = 430080 + G of the
 * column-parallel 7·(36864 + 49152) = 602112 → 1032192. Rowwise (G at 2c +
 * 2 = 12): gathered 172032 + 12·24576 = 466944, sharded 430080 + 12·86016 =
 * 1462272.
 * Whole plan (test_f24_fp8_recipe's: t = 1, M = 2048, W·η_W = 1e12),
 * tensorwise with fp8_cast_by_role: forward 2048·(122880 + 307200)/1e12 =
 * 8.8080384e-4 s, F24's forward exactly; backward 2048·(344064 +
 * 1032192)/1e12 = 2.818572288e-3 s against F24's 2·8.8080384e-4 =
 * 1.76160768e-3 s: τ_lb 1.056964608e-3 s longer, τ_lf the same. */
static void test_f35_role_casts(void **state)
{
    (void)state;
    pe_gemm_shape g[PE_LAYER_GEMMS];
    const pe_model gpt3 = fx_gpt3(1).model;
    compute_layer_gemms(&gpt3, g);
    const pe_fp8_role_casts tw = compute_fp8_role_casts(PE_FP8_RECIPE_TENSORWISE, 5.0, g);
    assert_rel(tw.fwd_gathered, 122880.0, 1e-15);
    assert_rel(tw.fwd_sharded, 307200.0, 1e-15);
    assert_rel(tw.bwd_gathered, 344064.0, 1e-15);
    assert_rel(tw.bwd_sharded, 1032192.0, 1e-15);
    const pe_fp8_role_casts rw = compute_fp8_role_casts(PE_FP8_RECIPE_ROWWISE, 5.0, g);
    assert_rel(rw.fwd_gathered, 122880.0, 1e-15);
    assert_rel(rw.bwd_gathered, 466944.0, 1e-15);
    assert_rel(rw.bwd_sharded, 1462272.0, 1e-15);
    pe_scenario s = fx_gpt3_fp8();
    s.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    s.framework.present = true;
    pe_plan p = fx_plan(8, 1, 1, 1);
    pe_result r0, r;
    pe_detail d0, d;
    fx_eval_detail(&s, &p, &r0, &d0);
    s.framework.fp8_cast_by_role = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_cast_f, 8.8080384e-4, 1e-12);
    assert_rel(d.tau_cast_b, 2.818572288e-3, 1e-12);
    assert_rel(d.tau_lf, d0.tau_lf, 1e-12);
    assert_rel(d.tau_lb - d0.tau_lb, 1.056964608e-3, 1e-9);
    s.precision.fp8_recipe = PE_FP8_RECIPE_DELAYED; /* not a torchao recipe: F24 as before */
    fx_eval_detail(&s, &p, &r, &d);
    s.framework.fp8_cast_by_role = false;
    fx_eval_detail(&s, &p, &r0, &d0);
    assert_true(r.step_time_s == r0.step_time_s && d.tau_cast_b == 0.0);
}

/* F36 where the casts run (GPT-3, t = 8, sequence parallelism, M = 2048 as
 * above): the gathered part whole under rowwise (bf16 all-gather, then the
 * cast) and under tensorwise without X22: forward 2048·(122880 + 307200/8)/
 * 1e12 = 3.3030144e-4 s; tensorwise with tp_fp8_all_gather (X22 casts
 * before the all-gather) 2048·(122880/8 + 307200/8)/1e12 = 1.1010048e-4 s;
 * sp off: the column-parallel input replicated, whole, 3.3030144e-4 s. */
static void test_f36_cast_place(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_fp8();
    s.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    s.framework.present = true, s.framework.fp8_cast_by_role = true;
    pe_plan p = fx_plan(1, 8, 1, 1);
    p.sequence_parallel = true;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_cast_f, 3.3030144e-4, 1e-12);
    s.framework.tp_fp8_all_gather = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_cast_f, 1.1010048e-4, 1e-12);
    p.sequence_parallel = false;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_cast_f, 3.3030144e-4, 1e-12);
    s.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE; /* X22 is tensorwise only */
    p.sequence_parallel = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_cast_f, 3.3030144e-4, 1e-12);
}

/* Properties of F35, F36 on whole plans (GPT-3, η_W 0.5, t = 1, 2, 4, 8,
 * sp on and off, every recompute, tensorwise and rowwise, X22 on and off):
 * a faster kernel never slows a plan — a higher fp8_gemm_efficiency, a
 * higher elementwise_efficiency (faster casts) or a rowwise GEMM as fast as
 * tensorwise's never gives a longer step; rowwise's casts never take less
 * than tensorwise's; casting before the all-gather (X22) never more. */
static void test_f35_f36_properties(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_fp8();
    s.cluster.gpu.has_fp8_gemm_efficiency = true, s.cluster.gpu.fp8_gemm_efficiency = 0.4;
    s.framework.present = true, s.framework.fp8_cast_by_role = true;
    for (int rc = 0; rc < 3; rc++)
        for (int64_t t = 1; t <= 8; t *= 2)
            for (int sp = 0; sp <= 1; sp++)
                for (int x22 = 0; x22 <= 1; x22++) {
                    pe_plan p = fx_plan(8 / t, t, 1, 1);
                    p.recompute = (pe_recompute)rc, p.sequence_parallel = sp && t > 1;
                    pe_scenario a = s;
                    a.framework.tp_fp8_all_gather = x22;
                    pe_result rt, rr, rf;
                    pe_detail dt, dr, df;
                    a.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
                    fx_eval_detail(&a, &p, &rt, &dt);
                    a.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE;
                    fx_eval_detail(&a, &p, &rr, &dr);
                    assert_true(dr.tau_cast_f >= dt.tau_cast_f && dr.tau_cast_b > dt.tau_cast_b);
                    assert_true(rr.step_time_s > rt.step_time_s);
                    pe_scenario fast = a; /* rowwise, every kernel faster */
                    fast.cluster.gpu.fp8_gemm_efficiency = 0.6;
                    fx_eval_detail(&fast, &p, &rf, &df);
                    assert_true(rf.step_time_s <= rr.step_time_s);
                    fast.cluster.gpu.elementwise_efficiency = 0.9;
                    fx_eval_detail(&fast, &p, &rr, &dr);
                    assert_true(rr.step_time_s <= rf.step_time_s && dr.tau_cast_b < df.tau_cast_b);
                    pe_scenario no22 = a;
                    no22.framework.tp_fp8_all_gather = false;
                    no22.precision.fp8_recipe = a.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
                    fx_eval_detail(&a, &p, &rt, &dt);
                    fx_eval_detail(&no22, &p, &rf, &df);
                    assert_true(dt.tau_cast_f <= df.tau_cast_f && dt.tau_cast_b <= df.tau_cast_b);
                }
}

/* F19 Mixtral 8x7B, 8 GPUs, dp 8, tp 1, ep 8, etp 1, b 1, s 4096: M = 4096;
 * rows per local expert M_e = M·k·ρ·ep·etp/(t·E) = 4096·2·8/8 = 8192, one
 * local expert (E/ep = 1): in 8192 × 4096 × 28672 = 1.924145348608e12 FLOP
 * → 3.848290697216e-3 s, out 8192 × 14336 × 4096 → 1.924145348608e-3 s:
 * t_exp = 5.772436045824e-3 s (= 2·4096·2·3·4096·14336/5e14, compute bound).
 * Router 4096 × 4096 × 8 (bf16): 5.36870912e-7 s of FLOPs but
 * 2·(16,777,216 + 32,768 + 32,768)/2e12 = 1.6842752e-5 s of bytes. QKV
 * 4096 × 4096 × 6144: 4.12316860416e-4 s; projection 2.74877906944e-4 s;
 * core 4096·4·4096·4096/5e14 = 5.49755813888e-4 s; τ_mlf = 7.026229379072e-3 s.
 * F20 (p = 1, the last stage): τ_f = 32·τ_mlf + output layer
 * 4096 × 4096 × 32000 (2.147483648e-3 s) = 0.226986823778304 s. */
static void test_f19_moe_layer(void **state)
{
    (void)state;
    pe_scenario s = fx_refined(fx_mixtral_8x7b(), 8);
    pe_plan p = fx_plan(8, 1, 1, 1);
    p.ep = 8, p.etp = 1;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_rel(d.moe.M_e, 8192.0, 1e-15);
    assert_rel(d.moe.t_exp, 5.772436045824e-3, 1e-13);
    assert_rel(d.moe.t_router, 1.6842752e-5, 1e-13);
    assert_true(d.moe.t_sh == 0.0);
    assert_rel(d.moe.tau_mlf, 7.026229379072e-3, 1e-12);
    assert_rel(d.moe.tau_mlb, 2.0 * 7.026229379072e-3, 1e-12);
    assert_rel(d.tau_f[0], 0.226986823778304, 1e-12);
    /* ep 2: M_e = 4096·2·2/8 = 2048 rows on each of 4 local experts; the
     * same FLOPs, still compute bound (in: 9.62e-4 s of FLOPs vs 1.85e-4 s
     * of bytes), so t_exp is unchanged */
    p.ep = 2;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.moe.M_e, 2048.0, 1e-15);
    assert_rel(d.moe.t_exp, 5.772436045824e-3, 1e-12);
}

/* F20 uneven stages in the refined model: GPT-3 175B shapes, 96 layers on
 * p = 4 as 21 + 2·27 + 21 (first/last_stage_layers 21): stage 0 has 21 layers,
 * the middle candidate 27; τ_f(j) = L_j·τ_lf (+ output layer on the last). */
static void test_f20_uneven(void **state)
{
    (void)state;
    pe_scenario s = fx_refined(fx_gpt3(1).model, 8);
    s.model.has_params = false;
    pe_plan p = fx_plan(2, 1, 4, 1);
    p.first_stage_layers = 21, p.last_stage_layers = 21;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_rel(d.tau_f[0], 21.0 * d.tau_lf, 1e-14);
    assert_rel(d.tau_f[2], 27.0 * d.tau_lf, 1e-14);
    assert_rel(d.tau_b[2], 27.0 * d.tau_lb, 1e-14);
    assert_rel(d.tau_f[1], 21.0 * d.tau_lf + d.tau_out, 1e-14);
    assert_int_equal(r.time_stage, 1); /* a middle stage (27 layers) is the slowest */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f17_shapes),
        cmocka_unit_test(test_f18_fp8_gemm),
        cmocka_unit_test(test_f24_fp8_recipe),
        cmocka_unit_test(test_f42_fp8_rowwise_measured),
        cmocka_unit_test(test_f42_fp8_kernel_rate),
        cmocka_unit_test(test_f35_role_casts),
        cmocka_unit_test(test_f36_cast_place),
        cmocka_unit_test(test_f35_f36_properties),
        cmocka_unit_test(test_f19_moe_layer),
        cmocka_unit_test(test_f20_uneven),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
