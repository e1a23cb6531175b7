/* test_attention.c — docs/model.md §12 F22, the attention core's efficiency
 * by shape (keys per query, head dimension, causal block skipping), against
 * hand arithmetic; its neutrality; and its properties: a longer attention or
 * a larger head dimension never has a lower efficiency, a faster kernel never
 * slows a plan. F30, the framework's attention kernel choosing F22's e_att
 * and s_half among the GPU's measured kernels (or the GPU's own). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* F22 by hand. Non-causal, s' = 2048, s_half = 207: 2048/2255 =
 * 0.908203991...; causal, B_c = 128: s_k = 1024, 1024/1231 · 2048/2176 =
 * 2097152/2678656 = 0.782910...; s_half 0, B_c 0: 1. Head dimension, d_half
 * 54.6: d 64: 64/118.6 · 182.6/128 = 11686.4/15180.8 = 0.769815...; d 128
 * and d 256: 1 (capped); d_half 0: 1. */
static void test_f22_factors(void **state)
{
    (void)state;
    assert_rel(compute_attention_shape(2048, 207, 0), 2048.0 / 2255.0, 1e-15);
    assert_rel(compute_attention_shape(2048, 207, 128), 2097152.0 / 2678656.0, 1e-15);
    assert_true(compute_attention_shape(2048, 0, 0) == 1.0);
    assert_rel(compute_attention_head_factor(64, 54.6), 11686.4 / 15180.8, 1e-14);
    assert_rel(compute_attention_head_factor(128, 54.6), 1.0, 1e-15);
    assert_true(compute_attention_head_factor(256, 54.6) == 1.0);
    assert_true(compute_attention_head_factor(64, 0) == 1.0);
    pe_model m = fx_gpt3(1).model; /* h/a = 12288/96 = 128 */
    assert_true(compute_attention_head_dim(&m) == 128.0);
    m.has_head_dim = true, m.head_dim = 64;
    assert_true(compute_attention_head_dim(&m) == 64.0);
    const pe_model v3 = fx_deepseek_v3(); /* MLA: (128 + 64 + 128)/2 = 160 */
    assert_true(compute_attention_head_dim(&v3) == 160.0);
}

/* GPT-3 on 8 MI300X nodes as in test_refinements.c's test_refined_plan:
 * e_att 0.25 (rate 326.85e12), tp 8, pp 8, b 1: F9's core is
 * 2048·4·2048·12288/8 / 326.85e12 = 2.5769803776e10/326.85e12 s. With
 * s_half 207 and B_c 128 (causal) it is divided by 0.782910... (above); at
 * cp 2 each rank's s' = 1024 tokens: M = 1024, core 1.2884901888e10/326.85e12
 * over 512/719 · 1024/1152 = 524288/828288. */
static void test_f22_plan(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    pe_result r;
    pe_detail d;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.att_shape, 2097152.0 / 2678656.0, 1e-15);
    assert_rel(d.tau_core, 25769803776.0 / 326.85e12 / (2097152.0 / 2678656.0), 1e-12);
    const pe_plan p2 = fx_plan(1, 8, 4, 2);
    fx_eval_detail(&s, &p2, &r, &d);
    assert_rel(d.tau_core, 12884901888.0 / 326.85e12 / (524288.0 / 828288.0), 1e-12);
}

/* Neutral: with s_half, d_half and B_c 0 the core is F9's exactly (the
 * hand value of test_f22_plan without the factor), whatever the fixture's
 * other refinements. */
static void test_f22_neutral(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_shaped(8);
    pe_result r;
    pe_detail d;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(d.att_shape == 1.0);
    assert_rel(d.tau_core, 25769803776.0 / 326.85e12, 1e-15);
}

/* Longer attention (more keys per query) and a larger head dimension never
 * have a lower efficiency, causal or not. */
static void test_f22_monotone(void **state)
{
    (void)state;
    for (double tile = 0; tile <= 256; tile += 128)
        for (double sh = 0; sh <= 1024; sh += 256)
            for (double sl = 16; sl <= 1 << 20; sl *= 2)
                assert_true(compute_attention_shape(2 * sl, sh, tile) >=
                            compute_attention_shape(sl, sh, tile));
    for (double dh = 0; dh <= 200; dh += 50)
        for (double d = 16; d <= 512; d *= 2)
            assert_true(compute_attention_head_factor(2 * d, dh) >=
                        compute_attention_head_factor(d, dh));
}

/* A faster attention kernel (higher e_att, smaller s_half, d_half or B_c)
 * never slows a plan without context parallelism; a longer sequence never
 * lowers the core's achieved efficiency (FLOPs per second of tau_core).
 * With cp > 1 the model is not monotone, for a reason outside F22: a faster
 * core shortens X2's window, so the CP ring's exposed time grows by what the
 * compute loses, and X4's data-parallel window (the backward compute) shrinks
 * too, exposing more of the gradient reduction (GPT-3, tp 1, cp 2, pp 4, dp 16:
 * e_att 0.4 → 0.5 gives 41.7098 s against 41.7060 s). */
static void test_f22_properties(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_attention_shape(16);
    static const int64_t tps[] = {1, 8}, cps[] = {1, 2, 4};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++)
            for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
                pe_plan p = fx_plan(128 / (tps[i] * cps[j] * 4), tps[i], 4, cps[j]);
                p.recompute = (pe_recompute)rc;
                const double base = fx_eval(&s, &p).step_time_s;
                pe_scenario f = s;
                if (cps[j] > 1) /* see below: X2 and X4 */
                    goto efficiency;
                f.cluster.gpu.attention_efficiency = 0.5;
                assert_true(fx_eval(&f, &p).step_time_s <= base);
                f = s, f.cluster.gpu.attention_half_seq = 200;
                assert_true(fx_eval(&f, &p).step_time_s <= base);
                f = s, f.cluster.gpu.attention_half_head_dim = 30;
                assert_true(fx_eval(&f, &p).step_time_s <= base);
                f = s, f.cluster.gpu.attention_causal_tile = 64;
                assert_true(fx_eval(&f, &p).step_time_s <= base);
            efficiency:;
                pe_result r;
                pe_detail d, d2;
                fx_eval_detail(&s, &p, &r, &d);
                f = s, f.model.seq_len = 4096, f.training.global_batch = 768;
                fx_eval_detail(&f, &p, &r, &d2);
                /* F_att per token doubles with s, and so do the tokens M */
                const double e = 1.0 / d.tau_core, e2 = 4.0 / d2.tau_core;
                assert_true(e2 >= e * (1 - 1e-12));
            }
}

/* F30 by hand: a GPU with e_att 0.25, s_half 207 and FlashAttention-2
 * measured at 0.15, s_half 150, cuDNN not measured. none -> (0.25, 207,
 * own); flash-attention-2 -> (0.15, 150, measured); cudnn -> the GPU's own
 * (0.25, 207); without attention_efficiency the own e_att is e_max 0.5. */
static void test_f30_kernel(void **state)
{
    (void)state;
    pe_gpu g = {0};
    g.has_gemm_efficiency = true, g.gemm_efficiency = 0.5;
    g.has_attention_efficiency = true, g.attention_efficiency = 0.25, g.attention_half_seq = 207;
    g.attention_fa2_efficiency = 0.15, g.attention_fa2_half_seq = 150;
    pe_attention_kernel_rate r = compute_attention_kernel(&g, PE_ATTENTION_KERNEL_NONE);
    assert_true(r.efficiency == 0.25 && r.half_seq == 207 && !r.measured);
    r = compute_attention_kernel(&g, PE_ATTENTION_KERNEL_FA2);
    assert_true(r.efficiency == 0.15 && r.half_seq == 150 && r.measured);
    r = compute_attention_kernel(&g, PE_ATTENTION_KERNEL_CUDNN);
    assert_true(r.efficiency == 0.25 && r.half_seq == 207 && !r.measured);
    g.attention_cudnn_efficiency = 0.2, g.attention_cudnn_half_seq = 100;
    r = compute_attention_kernel(&g, PE_ATTENTION_KERNEL_CUDNN);
    assert_true(r.efficiency == 0.2 && r.half_seq == 100 && r.measured);
    g.has_attention_efficiency = false;
    r = compute_attention_kernel(&g, PE_ATTENTION_KERNEL_FA3);
    assert_true(r.efficiency == 0.5 && r.half_seq == 207 && !r.measured);
}

/* F30 in a plan: test_f22_plan's GPU (peak 326.85e12/0.25 = 1307.4e12, B_c
 * 128, tp 8, pp 8, s' = 2048) with FlashAttention-2 measured at e_att 0.15
 * and s_half 150: rate 1307.4e12·0.15 = 196.11e12, shape s_k = 1024,
 * 1024/1174 · 2048/2176 = 2097152/2554624, so the core is
 * 2.5769803776e10/196.11e12 over that. Neutral: the same GPU without the
 * framework's kernel (none) is test_f22_plan's value exactly. */
static void test_f30_plan(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    pe_gpu *g = &s.cluster.gpu;
    g->attention_fa2_efficiency = 0.15, g->attention_fa2_half_seq = 150;
    pe_result r;
    pe_detail d;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_core, 25769803776.0 / 326.85e12 / (2097152.0 / 2678656.0), 1e-12);
    s.framework.attention_kernel = PE_ATTENTION_KERNEL_FA2;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.att_shape, 2097152.0 / 2554624.0, 1e-15);
    assert_rel(d.tau_core, 25769803776.0 / (1307.4e12 * 0.15) / (2097152.0 / 2554624.0), 1e-12);
    s.framework.attention_kernel = PE_ATTENTION_KERNEL_CUDNN; /* not measured: the GPU's */
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_core, 25769803776.0 / 326.85e12 / (2097152.0 / 2678656.0), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f22_factors), cmocka_unit_test(test_f22_plan),
        cmocka_unit_test(test_f22_neutral), cmocka_unit_test(test_f22_monotone),
        cmocka_unit_test(test_f22_properties), cmocka_unit_test(test_f30_kernel),
        cmocka_unit_test(test_f30_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
