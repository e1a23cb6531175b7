/* test_cp_ring.c — docs/model.md §12 X23, the CP ring step by step
 * (framework cp_ring_per_step; Transformer Engine's AttnFuncWithCPAndKVP2P):
 * its two functions against hand arithmetic, its neutrality, and its
 * properties against X2's ring-wide window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/detail.h"

/* X23 by hand, l = 12 layers, c = 4, overlap.cp 1:
 *  forward, T = 0.5, τ_att = 1: one step's window τ_att/c = 0.25;
 *    12·(4 − 1)·max(0, 0.5 − 0.25) = 12·3·0.25 = 9   (X2: 12·max(0, 3·0.5 − 1) = 6)
 *  forward, T = 0.3, τ_att = 1: 12·3·(0.3 − 0.25) = 1.8  (X2: 12·max(0, 0.9 − 1) = 0)
 *  forward, T = 0.2: 0.2 < 0.25, hidden: 0
 *  backward, T = 0.5, τ_att = 1: w = 2·τ_att/c = 0.5;
 *    12·[2·max(0, 0.5 − 0.5) + (4 − 2)·max(0, 2·0.5 − 0.5)] = 12·[0 + 2·0.5] = 12
 *    with recompute the forward ring again: + 12·3·0.25 = 9 → 21
 *    (X2 with recompute: 12·max(0, 3·3·0.5 − 2) = 30: its window leaves out
 *    the recomputed attention)
 *  backward, c = 2, T = 0.5, τ_att = 0.25: w = 2·0.25/2 = 0.25, no middle
 *    step: 12·2·max(0, 0.5 − 0.25) = 6
 *  c = 1: nothing to send: 0. */
static void test_x23_hand(void **state)
{
    (void)state;
    assert_true(comm_cp_fwd_steps(12, 4, 0.5, 1.0, 1.0) == 9.0);
    assert_true(comm_cp_fwd(12, 4, 0.5, 1.0, 1.0) == 6.0);
    assert_rel(comm_cp_fwd_steps(12, 4, 0.3, 1.0, 1.0), 1.8, 1e-12);
    assert_true(comm_cp_fwd(12, 4, 0.3, 1.0, 1.0) == 0.0);
    assert_true(comm_cp_fwd_steps(12, 4, 0.2, 1.0, 1.0) == 0.0);
    assert_true(comm_cp_bwd_steps(12, 4, 0.5, 1.0, 1.0, 0) == 12.0);
    assert_true(comm_cp_bwd_steps(12, 4, 0.5, 1.0, 1.0, 1) == 21.0);
    assert_true(comm_cp_bwd(12, 4, 0.5, 1.0, 1.0, 1) == 30.0);
    assert_true(comm_cp_bwd_steps(12, 2, 0.5, 1.0, 0.25, 0) == 6.0);
    assert_true(comm_cp_fwd_steps(12, 1, 0.5, 1.0, 1.0) == 0.0);
    assert_true(comm_cp_bwd_steps(12, 1, 0.5, 1.0, 1.0, 1) == 0.0);
    /* overlap.cp 0: every transfer exposed: fwd 12·3·0.5 = 18, bwd 12·(2·0.5 + 2·1) = 36 */
    assert_true(comm_cp_fwd_steps(12, 4, 0.5, 0.0, 1.0) == 18.0);
    assert_true(comm_cp_bwd_steps(12, 4, 0.5, 0.0, 1.0, 0) == 36.0);
}

/* Properties over c, T and τ_att without recompute: X23 is at least X2
 * (forward (c−1)(T − τ/c) = (c−1)T − τ + τ/c; backward
 * 2(T − w) + (c−2)(2T − w) = 2(c−1)T − 2τ), at most the ring's whole
 * transfer time ((c−1)·T forward, 2(c−1)·T backward), 0 when a transfer
 * fits in its step, and never smaller for a longer transfer. */
static void test_x23_properties(void **state)
{
    (void)state;
    const double cs[5] = {2, 3, 4, 8, 16};
    const double taus[4] = {1e-4, 1e-3, 4e-3, 2e-2};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k <= 40; k++) {
                const double c = cs[i], tau = taus[j], T = tau * k / 40.0;
                const double f = comm_cp_fwd_steps(14, c, T, 1.0, tau);
                const double b = comm_cp_bwd_steps(14, c, T, 1.0, tau, 0);
                assert_true(f >= comm_cp_fwd(14, c, T, 1.0, tau) - 1e-15);
                assert_true(b >= comm_cp_bwd(14, c, T, 1.0, tau, 0) - 1e-15);
                assert_true(f <= 14 * (c - 1) * T + 1e-15 && f >= 0.0);
                assert_true(b <= 14 * 2 * (c - 1) * T + 1e-15 && b >= 0.0);
                if (T <= tau / c)
                    assert_true(f == 0.0 && b == 0.0);
                const double T2 = T * 1.1 + 1e-6;
                assert_true(comm_cp_fwd_steps(14, c, T2, 1.0, tau) >= f);
                assert_true(comm_cp_bwd_steps(14, c, T2, 1.0, tau, 0) >= b);
            }
}

/* GPT-3 175B at cp 8 across two MI300X nodes (tp 8 · cp 8 = 64 GPUs: the cp
 * group at stride 8, one rank a node, n_out 8: every hop on the 50 GB/s NIC)
 * and the evaluator: the key off is the step without a framework bit for
 * bit; on, the time stage's χ_cp,f is X23 of the work record's own T_p2p
 * and τ_att (no X15, no X8: overlap_slowdown and comm_slowdown 0), and the
 * step is never shorter than X2's. */
static pe_scenario gpt3_cp(bool per_step)
{
    pe_scenario s = fx_gpt3(8);
    s.framework = (pe_framework){.present = true, .cp_ring_per_step = per_step};
    return s;
}

static void test_x23_evaluator(void **state)
{
    (void)state;
    const pe_scenario on = gpt3_cp(true), off = gpt3_cp(false);
    for (int64_t cp = 1; cp <= 8; cp *= 2) {
        const pe_plan p = fx_plan(8 / cp, 8, 1, cp);
        pe_result r[2];
        pe_detail d[2];
        assert_true(fx_eval_key(&on, &off, &p, r, d));
        const pe_result r_on = r[0], r_off = r[1];
        const pe_detail *const on_d = &d[0], *const off_d = &d[1];
        assert_true(r_on.step_time_s >= r_off.step_time_s);
        const double l = on_d->stage_layers[on_d->time_stage], c = (double)cp;
        const double want = cp > 1 ? l * (c - 1.0) * comm_pos(on_d->t_p2p_cp - on_d->tau_att / c)
                                   : 0.0;
        assert_rel(on_d->chi_cp_f + 1e-30, want + 1e-30, 1e-12);
        if (cp == 1)
            assert_true(r_on.step_time_s == r_off.step_time_s);
        /* cp 8: S_kv = 2·1·256·2·96·128/8 = 1,572,864 bytes, T_p2p = 5e-6 +
         * S/5e10 = 3.6457e-5 s against τ_att/c ≈ 6e-7 s: every transfer
         * longer than its step, so X23 exceeds X2 by (L/p)·τ_att/c forward */
        if (cp == 8) {
            assert_rel(on_d->t_p2p_cp, 5e-6 + 1572864.0 / 5e10, 1e-12);
            assert_rel(on_d->chi_cp_f - off_d->chi_cp_f, l * on_d->tau_att / c, 1e-9);
            assert_true(r_on.step_time_s > r_off.step_time_s);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x23_hand),
        cmocka_unit_test(test_x23_properties),
        cmocka_unit_test(test_x23_evaluator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
