/* test_comm_sms.c — docs/model.md §12 F32, an MoE layer's compute on the
 * SMs an overlapped EP all-to-all leaves (framework comm_sms c of the GPU's
 * sm_count S, DeepSeek-V3 arXiv:2412.19437 §3.2.2), against hand
 * arithmetic; its neutrality; that X15 is not charged on the all-to-all
 * beside it; and the property that more communication SMs never speed a
 * step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* Mixtral 8x7B, the refined compute (e_max 0.5, η_W 0.5) on a GPU of
 * S = 132 SMs, a framework holding c of them for the all-to-all. */
static pe_scenario mixtral(int64_t comm_sms, double overlap_slowdown)
{
    pe_scenario s = fx_gpt3(8);
    s.model = fx_mixtral_8x7b();
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5, g->elementwise_efficiency = 0.5;
    g->sm_count = 132;
    s.framework = (pe_framework){.present = true, .comm_sms = comm_sms,
                                 .overlap_slowdown = overlap_slowdown};
    return s;
}

static pe_plan ep_plan(int64_t ep, double overlap_ep, pe_recompute rc)
{
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.ep = ep, p.etp = 1, p.recompute = rc, p.overlap.ep = overlap_ep;
    return p;
}

/* F32 by hand: c/(S − c) = 20/(132 − 20) = 20/112 = 0.178571428...;
 * overlap.ep 1: τ_ml·(1 + 20/112) = τ_ml·132/112 = τ_ml·1.178571428...,
 * forward and backward alike; overlap.ep 0.5: τ_ml·(1 + 0.5·20/112) =
 * τ_ml·122/112 = τ_ml·1.089285714...; X10 then hides T_ep behind the
 * longer window: χ_ep,f per layer = max(0, T_ep − overlap.ep·τ_mlf'). */
static void test_f32_hand(void **state)
{
    (void)state;
    assert_rel(compute_comm_sms_stretch(20, 132), 20.0 / 112.0, 1e-15);
    const pe_scenario on = mixtral(20, 0), off = mixtral(0, 0);
    const double ovs[2] = {1.0, 0.5}, factor[2] = {132.0 / 112.0, 122.0 / 112.0};
    for (int k = 0; k < 2; k++)
        for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
            const pe_plan p = ep_plan(8, ovs[k], (pe_recompute)rc);
            pe_result r_on, r_off;
            pe_detail d_on, d_off;
            fx_eval_detail(&on, &p, &r_on, &d_on);
            fx_eval_detail(&off, &p, &r_off, &d_off);
            assert_true(d_on.valid && d_off.valid);
            assert_rel(d_on.moe.tau_mlf, d_off.moe.tau_mlf * factor[k], 1e-12);
            assert_rel(d_on.moe.tau_mlb, d_off.moe.tau_mlb * factor[k], 1e-12);
            assert_rel(d_on.moe.tau_mlf_all_sms, d_off.moe.tau_mlf, 1e-15);
            const double chi_f = d_on.moe.t_ep - ovs[k] * d_on.moe.tau_mlf;
            assert_rel(d_on.moe.chi_ep_f[0] + 1.0, 1.0 + d_on.moe.n_moe[0] * (chi_f > 0 ? chi_f : 0),
                       1e-12);
            assert_true(r_on.step_time_s > r_off.step_time_s);
        }
}

/* Neutral: comm_sms 0, no framework, ep = 1 (no all-to-all) or overlap.ep 0
 * (the kernels run alone) give F19's times bit for bit; an sm_count of 0
 * (not given) turns it off too. */
static void test_f32_neutral(void **state)
{
    (void)state;
    const pe_scenario off = mixtral(0, 0), on = mixtral(20, 0);
    pe_scenario none = mixtral(0, 0), no_s = mixtral(20, 0);
    none.framework.present = false;
    no_s.cluster.gpu.sm_count = 0;
    const pe_plan p = ep_plan(8, 1.0, PE_RECOMPUTE_NONE);
    assert_true(fx_eval(&off, &p).step_time_s == fx_eval(&none, &p).step_time_s);
    assert_true(fx_eval(&no_s, &p).step_time_s == fx_eval(&off, &p).step_time_s);
    const pe_plan ep1 = ep_plan(1, 1.0, PE_RECOMPUTE_NONE), ov0 = ep_plan(8, 0.0, PE_RECOMPUTE_NONE);
    assert_true(fx_eval(&on, &ep1).step_time_s == fx_eval(&off, &ep1).step_time_s);
    assert_true(fx_eval(&on, &ov0).step_time_s == fx_eval(&off, &ov0).step_time_s);
}

/* No double count: with comm_sms in force X15's overlap_slowdown is not
 * charged on the EP all-to-all (the dedicated SMs are that slowdown), so
 * the exposure is X10's max(0, T − overlap.ep·τ') with or without s; the
 * dense layers' collectives still take X15. */
static void test_f32_no_x15_on_a2a(void **state)
{
    (void)state;
    const pe_scenario plain = mixtral(20, 0), contended = mixtral(20, 0.189);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
        const pe_plan p = ep_plan(8, 1.0, (pe_recompute)rc);
        pe_result r0, r1;
        pe_detail d0, d1;
        fx_eval_detail(&plain, &p, &r0, &d0);
        fx_eval_detail(&contended, &p, &r1, &d1);
        assert_true(d0.moe.chi_ep_f[0] == d1.moe.chi_ep_f[0]);
        assert_true(d0.moe.chi_ep_b[0] == d1.moe.chi_ep_b[0]);
    }
}

/* Property: more communication SMs never speed a step, over plans of every
 * recompute, ep and overlap.ep. */
static void test_f32_monotone(void **state)
{
    (void)state;
    const int64_t eps[3] = {2, 4, 8};
    const double ovs[3] = {0.25, 0.5, 1.0};
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) {
                const pe_plan p = ep_plan(eps[i], ovs[k], (pe_recompute)rc);
                double last = 0.0;
                for (int64_t c = 0; c < 132; c += 8) {
                    const pe_scenario s = mixtral(c, 0.189);
                    const pe_result r = fx_eval(&s, &p);
                    assert_true(r.step_time_s >= last);
                    last = r.step_time_s;
                }
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_hand),
        cmocka_unit_test(test_f32_neutral),
        cmocka_unit_test(test_f32_no_x15_on_a2a),
        cmocka_unit_test(test_f32_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
