/* test_gemm_rate_scale.c — docs/model.md §12 F26, the framework's GEMM rate
 * σ (gemm_rate_scale) on F8 and F18, against hand arithmetic; its
 * neutrality (σ = 1, or no framework, is the model of before bit for bit);
 * and the property that a larger rate never slows a plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* GPT-3 175B on 8 MI300X nodes (1307.4 TFLOP/s, 5.3 TB/s), the refined
 * compute with e_max 0.5, F_half 0 and η_W 0 (element-wise untimed), under
 * a framework whose GEMMs run at σ. */
static pe_scenario gpt3(double sigma)
{
    pe_scenario s = fx_gpt3(8);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5;
    s.framework = (pe_framework){.present = true, .gemm_rate_scale = sigma};
    return s;
}

static pe_plan tp8pp8(pe_recompute rc)
{
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = rc;
    return p;
}

/* F26 by hand, tp 8, b 1, s' = 2048: one layer's four GEMMs (F7) have
 * K·N = 12288·(36864 + 12288 + 49152 + 49152) = 1,811,939,328, /8 per GPU,
 * F = 2·2048·1,811,939,328/8 = 9.27712935936e11 FLOP; every one is
 * compute-bound here (QKV: 4.4e-4 s of FLOPs against 3.4e-5 s of bytes).
 * σ 1: at 1307.4e12·0.5 = 6.537e14 FLOP/s, 1.419172305e-3 s;
 * σ 0.8: at 5.2296e14 FLOP/s, 1.773965381e-3 s = the σ 1 time / 0.8. */
static void test_f26_hand(void **state)
{
    (void)state;
    const pe_plan p = tp8pp8(PE_RECOMPUTE_NONE);
    const pe_scenario one = gpt3(1.0), slow = gpt3(0.8);
    pe_result r1, r8;
    pe_detail d1, d8;
    fx_eval_detail(&one, &p, &r1, &d1);
    fx_eval_detail(&slow, &p, &r8, &d8);
    assert_true(d1.valid && d8.valid);
    assert_rel(d1.tau_gemm, 9.27712935936e11 / 6.537e14, 1e-9);
    assert_rel(d8.tau_gemm, 9.27712935936e11 / 5.2296e14, 1e-9);
    assert_true(r8.step_time_s > r1.step_time_s);
    pe_eval_ctx ctx;
    evaluate_prepare(&slow, &ctx);
    assert_rel(ctx.gemm_rate, 5.2296e14, 1e-12);
}

/* F18 too: with compute fp8 (peak_fp8 2614.9 TFLOP/s, e_max8 = e_max
 * 0.5) the FP8 rate is 2614.9e12·0.5·0.8 = 1.04596e15 FLOP/s. */
static void test_f26_fp8(void **state)
{
    (void)state;
    pe_scenario s = gpt3(0.8);
    s.cluster.gpu.peak_fp8_tflops = 2614.9;
    s.precision.compute = PE_COMPUTE_FP8;
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    assert_rel(ctx.gemm_rate8, 1.04596e15, 1e-12);
}

/* Neutral: σ 1 and no framework's σ (absent: 0 in the struct, or no
 * framework at all) give the same step bit for bit; and the textbook
 * compute (no gemm_efficiency) ignores σ. */
static void test_f26_neutral(void **state)
{
    (void)state;
    const pe_plan p = tp8pp8(PE_RECOMPUTE_SELECTIVE);
    const pe_scenario one = gpt3(1.0);
    pe_scenario unset = gpt3(0.0), none = gpt3(0.5);
    none.framework.present = false;
    const double t = fx_eval(&one, &p).step_time_s;
    assert_true(fx_eval(&unset, &p).step_time_s == t);
    assert_true(fx_eval(&none, &p).step_time_s == t);
    pe_scenario tb1 = gpt3(1.0), tb5 = gpt3(0.5);
    tb1.cluster.gpu.has_gemm_efficiency = tb5.cluster.gpu.has_gemm_efficiency = false;
    assert_true(fx_eval(&tb1, &p).step_time_s == fx_eval(&tb5, &p).step_time_s);
}

/* Property: a larger σ never slows a plan — over σ from 0.1 to 2, plans
 * with and without TP, pipeline, recompute and overlapped communication,
 * bf16 and fp8 (each plan valid, and strictly faster at σ 2 than at 0.1). */
static void test_f26_monotone(void **state)
{
    (void)state;
    const pe_plan plans[] = {tp8pp8(PE_RECOMPUTE_NONE), tp8pp8(PE_RECOMPUTE_FULL),
                             fx_plan(8, 8, 1, 1), fx_plan(2, 4, 8, 1), fx_plan(64, 1, 1, 1)};
    for (int fp8 = 0; fp8 <= 1; fp8++)
        for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
            double last = HUGE_VAL, first = 0.0;
            for (double sigma = 0.1; sigma <= 2.0; sigma += 0.05) {
                pe_scenario s = gpt3(sigma);
                s.cluster.gpu.elementwise_efficiency = 0.7, s.cluster.gpu.gemm_half_gflop = 5;
                s.framework.overlap_slowdown = 0.189, s.framework.tp_micro_pipeline = true;
                s.overlap.tp = 1;
                if (fp8)
                    s.cluster.gpu.peak_fp8_tflops = 2614.9, s.precision.compute = PE_COMPUTE_FP8;
                pe_plan p = plans[i];
                p.overlap.tp = 1;
                const pe_result r = fx_eval(&s, &p);
                if (r.status == PE_STATUS_INVALID)
                    continue;
                assert_true(r.step_time_s <= last * (1 + 1e-12));
                first = first > 0.0 ? first : r.step_time_s;
                last = r.step_time_s;
            }
            assert_true(last < first); /* not vacuous: the plan was valid, σ moved it */
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f26_hand),
        cmocka_unit_test(test_f26_fp8),
        cmocka_unit_test(test_f26_neutral),
        cmocka_unit_test(test_f26_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
