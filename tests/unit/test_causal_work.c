/* test_causal_work.c — docs/model.md §12 F33, the useful causal FLOPs per
 * F9 FLOP that a causal kernel (attention_causal_tile B_c > 0) computes, with
 * framework.attention_causal_work: against hand arithmetic, its neutrality
 * (off, or B_c = 0, or κ = 0.5 already counting the half), the FLOP count
 * and mfu's numerator untouched, and the property that a longer attention is
 * never faster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* ω by hand: on, B_c 128, κ = 1: 1/(2·1) = 0.5; κ = 0.5 (causal_flops):
 * 1/(2·0.5) = 1; off, or B_c = 0: 1. */
static void test_f33_factor(void **state)
{
    (void)state;
    assert_true(compute_attention_causal_work(true, 128, 1.0) == 0.5);
    assert_true(compute_attention_causal_work(true, 128, 0.5) == 1.0);
    assert_true(compute_attention_causal_work(false, 128, 1.0) == 1.0);
    assert_true(compute_attention_causal_work(true, 0, 1.0) == 1.0);
}

/* GPT-3 on 8 MI300X nodes, the refined compute of test_attention.c's
 * test_f22_plan: e_att 0.25 (rate 326.85e12), s_half 207, B_c 128, tp 8,
 * pp 8, b 1, s' = 2048. F9 counts 2048·4·2048·12288/8 = 2.5769803776e10 FLOP
 * a layer; F22 = 1024/1231 · 2048/2176 = 2097152/2678656. Off: the core is
 * 2.5769803776e10/326.85e12/(2097152/2678656) = 0.1009116... s (F9's whole
 * count at F22's rate per useful FLOP). On: the kernel computes
 * (2048² + 2048·128)/2 of F9's 2048² per head pair, (2048 + 128)/(2·2048) =
 * 0.53125 of the count, at the kernel's rate 326.85e12·1024/1231:
 * 2.5769803776e10·0.53125/(326.85e12·1024/1231) = 0.0504558... s, half the
 * off value. */
static void test_f33_plan(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    pe_result r, r_on;
    pe_detail d, d_on;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    fx_eval_detail(&s, &p, &r, &d);
    const double off = 25769803776.0 / 326.85e12 / (2097152.0 / 2678656.0);
    assert_rel(d.tau_core, off, 1e-12);
    s.framework.attention_causal_work = true;
    fx_eval_detail(&s, &p, &r_on, &d_on);
    const double kernel = 25769803776.0 * (2048.0 + 128.0) / (2.0 * 2048.0) /
                          (326.85e12 * 1024.0 / 1231.0);
    assert_rel(d_on.tau_core, kernel, 1e-12);
    assert_rel(d_on.tau_core, 0.5 * off, 1e-12);
    assert_true(r_on.step_time_s < r.step_time_s);
    /* only time changes: mfu·step (the model FLOPs per peak) stays as counted */
    assert_rel(r_on.mfu * r_on.step_time_s, r.mfu * r.step_time_s, 1e-12);
    assert_rel(r_on.hfu * r_on.step_time_s, r.hfu * r.step_time_s, 1e-12);
}

/* κ = 0.5 (model.causal_flops) already counts the causal half: F9's count
 * halves, ω = 1, and the core is the on value of κ = 1 (no double halving),
 * with the key or without it. */
static void test_f33_half_count(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    s.model.causal_flops = true;
    pe_result r;
    pe_detail d;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    fx_eval_detail(&s, &p, &r, &d);
    const double on = 0.5 * 25769803776.0 / 326.85e12 / (2097152.0 / 2678656.0);
    assert_rel(d.tau_core, on, 1e-12);
    s.framework.attention_causal_work = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_core, on, 1e-12);
}

/* Neutral: on a GPU without a causal tile (B_c = 0) the key changes nothing,
 * bit for bit. */
static void test_f33_neutral(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    s.cluster.gpu.attention_causal_tile = 0;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    const double base = fx_eval(&s, &p).step_time_s;
    s.framework.attention_causal_work = true;
    assert_true(fx_eval(&s, &p).step_time_s == base);
}

/* Longer attention is never faster: with the key on, doubling the sequence
 * (the same global batch of sequences) never lowers a layer's core time per
 * micro-batch nor the step's, over tp, cp and recompute; and the core with
 * the key is never slower than without it (ω ≤ 1). */
static void test_f33_longer_never_faster(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_attention_shape(16);
    s.framework.attention_causal_work = true;
    static const int64_t tps[] = {1, 8}, cps[] = {1, 2, 4};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++)
            for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
                pe_plan p = fx_plan(128 / (tps[i] * cps[j] * 4), tps[i], 4, cps[j]);
                p.recompute = (pe_recompute)rc;
                pe_result r, r2;
                pe_detail d, d2;
                fx_eval_detail(&s, &p, &r, &d);
                pe_scenario f = s;
                f.model.seq_len = 2 * s.model.seq_len;
                fx_eval_detail(&f, &p, &r2, &d2);
                /* twice the tokens per micro-batch, each seeing twice the keys */
                assert_true(d2.tau_core >= d.tau_core);
                assert_true(r2.step_time_s >= r.step_time_s * (1 - 1e-12));
                f = s, f.framework.attention_causal_work = false;
                fx_eval_detail(&f, &p, &r2, &d2);
                assert_true(d.tau_core <= d2.tau_core);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f33_factor),     cmocka_unit_test(test_f33_plan),
        cmocka_unit_test(test_f33_half_count), cmocka_unit_test(test_f33_neutral),
        cmocka_unit_test(test_f33_longer_never_faster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
