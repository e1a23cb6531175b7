/* test_moe_permute.c — docs/model.md §12 F23, the MoE token permutation and
 * unpermutation timed as memory-bound bytes, against hand arithmetic; its
 * neutrality; and that moving fewer bytes never slows a plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* Mixtral 8x7B on 8 MI300X nodes (W 5.3 TB/s), the refined compute with
 * η_W 0.5 (pass rate 2.65e12 B/s), a framework with moe_permute_bytes 10. */
static pe_scenario mixtral(double permute_bytes)
{
    pe_scenario s = fx_gpt3(8);
    s.model = fx_mixtral_8x7b();
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5, g->elementwise_efficiency = 0.5;
    s.framework = (pe_framework){.present = true, .moe_permute_bytes = permute_bytes};
    return s;
}

/* F23 by hand: tp 1, b 1, s' = 4096 tokens, k 2, ρ 1, h 4096:
 * 4096·2·1·10·4096 = 335,544,320 bytes / 2.65e12 = 1.266205...e-4 s, added
 * once to the MoE layer's forward and once to its backward (twice with
 * full recompute), nothing else changed. */
static void test_f23_hand(void **state)
{
    (void)state;
    const double perm = 335544320.0 / 2.65e12;
    const pe_scenario on = mixtral(10), off = mixtral(0);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
        const pe_plan p = fx_plan_ep8((pe_recompute)rc);
        pe_result r_on, r_off;
        pe_detail d_on, d_off;
        fx_eval_detail(&on, &p, &r_on, &d_on);
        fx_eval_detail(&off, &p, &r_off, &d_off);
        assert_true(d_on.valid && d_off.valid);
        assert_rel(d_on.moe.t_perm, perm, 1e-12);
        assert_true(d_off.moe.t_perm == 0.0);
        assert_rel(d_on.moe.tau_mlf - d_off.moe.tau_mlf, perm, 1e-9);
        assert_rel(d_on.moe.tau_mlb - d_off.moe.tau_mlb,
                   (rc == PE_RECOMPUTE_FULL ? 2.0 : 1.0) * perm, 1e-9);
        assert_true(r_on.step_time_s > r_off.step_time_s);
    }
}

/* Neutral: moe_permute_bytes 0 gives the F19 layer of before bit for bit;
 * fewer bytes never slow a plan. */
static void test_f23_neutral_monotone(void **state)
{
    (void)state;
    const pe_scenario off = mixtral(0);
    pe_scenario none = mixtral(0);
    none.framework.present = false; /* no framework at all */
    const pe_plan p = fx_plan_ep8(PE_RECOMPUTE_NONE);
    assert_true(fx_eval(&off, &p).step_time_s == fx_eval(&none, &p).step_time_s);
    double last = 0.0;
    for (double bytes = 0; bytes <= 40; bytes += 5) {
        const pe_scenario s = mixtral(bytes);
        const double t = fx_eval(&s, &p).step_time_s;
        assert_true(t >= last);
        last = t;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f23_hand),
        cmocka_unit_test(test_f23_neutral_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
