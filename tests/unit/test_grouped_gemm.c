/* test_grouped_gemm.c — docs/model.md §12 F38, the MoE expert GEMMs'
 * efficiency at the rows one expert receives, g(M_e) = M_e/(M_e + M_half),
 * against hand arithmetic; its neutrality (M_half = 0 is F8 bit for bit);
 * and the properties: a larger per-expert token count never has a lower
 * efficiency, nor a lower-or-equal M_half a slower plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* Mixtral 8x7B on 8 MI300X-like nodes (peak 1307.4 TFLOP/s, W 5.3 TB/s),
 * the refined compute with e_max 0.5 (653.7e12 FLOP/s), F38's M_half given. */
static pe_scenario mixtral(double half_rows)
{
    pe_scenario s = fx_gpt3(8);
    s.model = fx_mixtral_8x7b();
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5;
    g->grouped_gemm_half_rows = half_rows;
    return s;
}

/* F38 by hand, plan dp 64, ep 8, etp 1, tp 1, b 1, s 4096, k 2, ρ 1, E 8:
 * M_e = 1·4096·2·1·8·1/(1·8) = 8192 rows, one local expert (E/ep = 1).
 * Its GEMMs: fc1 8192×4096×(2·14336) and fc2 8192×14336×4096, together
 * 2·8192·4096·(28672 + 14336) = 2,886,218,022,912 FLOP, compute-bound
 * (fc1 moves 2·(8192·4096 + 4096·28672 + 8192·28672) B = 771.8 MB, 1.46e-4 s
 * at 5.3 TB/s, against 2.94e-3 s of compute). At 653.7e12 FLOP/s:
 * M_half 0: 4.415202...e-3 s; M_half 123: g = 8192/8315 = 0.98520746...,
 * the time 2886218022912·8315/8192/653.7e12 = 4.481497...e-3 s. */
static void test_f38_hand(void **state)
{
    (void)state;
    const double flop = 2886218022912.0, rate = 653.7e12;
    const pe_plan p = fx_plan_ep8(PE_RECOMPUTE_NONE);
    pe_result r0, r1;
    pe_detail d0, d1;
    const pe_scenario off = mixtral(0), on = mixtral(123);
    fx_eval_detail(&off, &p, &r0, &d0);
    fx_eval_detail(&on, &p, &r1, &d1);
    assert_true(d0.valid && d1.valid);
    assert_true(d0.moe.M_e == 8192.0 && d1.moe.M_e == 8192.0);
    assert_rel(d0.moe.t_exp, flop / rate, 1e-12);
    assert_rel(d1.moe.t_exp, flop * 8315.0 / 8192.0 / rate, 1e-12);
    assert_rel(compute_grouped_gemm_efficiency(8192, 123), 8192.0 / 8315.0, 1e-15);
    /* only the experts move: the layer's forward grows by the experts' growth */
    assert_rel(d1.moe.tau_mlf - d0.moe.tau_mlf, d1.moe.t_exp - d0.moe.t_exp, 1e-9);
    assert_true(r1.step_time_s > r0.step_time_s);
}

/* Neutral: M_half 0 is F8's time bit for bit, for compute- and memory-bound
 * shapes alike, and g = 1. */
static void test_f38_neutral(void **state)
{
    (void)state;
    const pe_gemm_shape shapes[2] = {{4096, 28672, 0}, {14336, 4096, 1}};
    for (int i = 0; i < 2; i++) {
        const pe_gemm_coef c = compute_gemm_coef(&shapes[i], 653.7e12, 5.3e12);
        for (double M = 1; M <= 65536; M *= 4)
            for (double etp = 1; etp <= 4; etp *= 2) {
                assert_true(compute_expert_gemm_time_coef(&c, M, 1.0 / etp, 1e-6, 0.0) ==
                            compute_gemm_time_coef(&c, M, 1.0 / etp, 1e-6));
                assert_true(compute_grouped_gemm_efficiency(M, 0.0) == 1.0);
            }
    }
}

/* Properties: g never falls as M_e grows, and stays in (0, 1]; per routed
 * row the experts never take longer at a larger micro-batch (more rows per
 * expert); a larger M_half never makes a plan faster. */
static void test_f38_monotone(void **state)
{
    (void)state;
    for (double half = 0; half <= 1024; half += 41) {
        double last = 0.0;
        for (double M = 1; M <= 1 << 20; M *= 1.5) {
            const double g = compute_grouped_gemm_efficiency(M, half);
            assert_true(g >= last && g > 0.0 && g <= 1.0);
            last = g;
        }
    }
    const pe_scenario on = mixtral(123);
    double per_row = 1e300;
    for (int64_t b = 1; b <= 8; b++) {
        pe_plan p = fx_plan_ep8(PE_RECOMPUTE_NONE);
        p.micro_batch = b;
        pe_result r;
        pe_detail d;
        fx_eval_detail(&on, &p, &r, &d);
        if (!d.valid)
            continue;
        assert_true(d.moe.t_exp / d.moe.M_e <= per_row);
        per_row = d.moe.t_exp / d.moe.M_e;
    }
    const pe_plan p = fx_plan_ep8(PE_RECOMPUTE_SELECTIVE);
    double last = 0.0;
    for (double half = 0; half <= 2000; half += 250) {
        const pe_scenario s = mixtral(half);
        const double t = fx_eval(&s, &p).step_time_s;
        assert_true(t >= last);
        last = t;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f38_hand),
        cmocka_unit_test(test_f38_neutral),
        cmocka_unit_test(test_f38_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
