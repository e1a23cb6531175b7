/* test_cp_ring_balance.c — docs/model.md §12 X31, the attention core of
 * PyTorch's load-balanced context-parallel ring (framework
 * cp_ring_load_balance): its share of F9's count and its merge bytes against
 * hand arithmetic, a plan against the numbers by hand, the property that with
 * F33 on the ring computes exactly the causal half, and its neutrality (off,
 * or c = 1: bit for bit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* The share of F_att/(peak·F22-rate) by hand, shapes at 1: c = 2, ω = 1,
 * κ = 1: 1/2 (the causal diagonal, charged F9's whole count under F33 off)
 * + 1/(2·2) (one non-causal half block) = 0.75; c = 8: 1/8 + 7/16 = 0.5625;
 * c = 8 with F33 on (ω = 0.5): 0.5/8 + 7/16 = 0.5, the causal half of F9's
 * κ = 1 count — the load-balanced ring wastes no block; κ = 0.5 (F9 counts the
 * half already, ω = 1): 1/8 + 7/(2·0.5·8) = 1. Shapes divide their step:
 * c = 2, S_d 0.8, S_h 0.5: 1/(2·0.8) + 1/(4·0.5) = 0.625 + 0.5 = 1.125.
 * Bytes per element of s'×W: forward 14 + 40(c − 1) + 6c = 66 (c 2), 342
 * (c 8); backward 58 + 34(c − 1) + 26c = 144, 504. */
static void test_x31_share_and_bytes(void **state)
{
    (void)state;
    assert_true(compute_cp_ring_core_share(2, 1.0, 1.0, 1.0, 1.0) == 0.75);
    assert_true(compute_cp_ring_core_share(8, 1.0, 1.0, 1.0, 1.0) == 0.5625);
    assert_true(compute_cp_ring_core_share(8, 0.5, 1.0, 1.0, 1.0) == 0.5);
    assert_true(compute_cp_ring_core_share(8, 1.0, 0.5, 1.0, 1.0) == 1.0);
    assert_true(compute_cp_ring_core_share(2, 1.0, 1.0, 0.8, 0.5) == 1.125);
    assert_true(compute_cp_ring_fwd_bytes(2) == 66.0 && compute_cp_ring_fwd_bytes(8) == 342.0);
    assert_true(compute_cp_ring_bwd_bytes(2) == 144.0 && compute_cp_ring_bwd_bytes(8) == 504.0);
}

/* GPT-3 on 8 MI300X nodes with test_causal_work.c's numbers: e_att 0.25
 * (rate 1307.4e12·0.25 = 326.85e12), s_half 207, B_c 128, η_W 0.5 (W·η_W =
 * 2.65e12 B/s); plan dp 2, tp 8, pp 2, cp 2: s' = 1024, M = 1024. F9 counts
 * 1024·4·2048·12288/8 = 12884901888 FLOP a layer. F22 causal at s' 1024:
 * S_d = 512/719 · 1024/1152; the half blocks: S_h = 512/719 (s'/2 keys, no
 * mask). Off: core = 12884901888/326.85e12/S_d. On (F33 off, ω = 1):
 * 12884901888/326.85e12·(1/(2·S_d) + 1/(4·S_h)). Merge passes: s'·W/t =
 * 1024·12288/8 = 1572864 elements, forward 66 bytes each, backward 144:
 * 1572864·66/2.65e12 and 1572864·144/2.65e12 s. τ_lb (recompute none) moves
 * by 2·(core_on − core_off) + the backward passes (the forward's, in τ_lf,
 * are not doubled). */
static void test_x31_plan(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    pe_result r, r_on;
    pe_detail d, d_on;
    const pe_plan p = fx_plan(2, 8, 2, 2);
    fx_eval_detail(&s, &p, &r, &d);
    const double f9 = 12884901888.0 / 326.85e12;
    const double S_d = 512.0 / 719.0 * (1024.0 / 1152.0), S_h = 512.0 / 719.0;
    assert_rel(d.tau_core, f9 / S_d, 1e-12);
    s.framework.cp_ring_load_balance = true;
    fx_eval_detail(&s, &p, &r_on, &d_on);
    assert_rel(d_on.core_f9, f9 / S_d, 1e-12);
    assert_rel(d_on.tau_core, f9 * (1.0 / (2.0 * S_d) + 1.0 / (4.0 * S_h)), 1e-12);
    assert_rel(d_on.cp_ring_f, 1572864.0 * 66.0 / 2.65e12, 1e-12);
    assert_rel(d_on.cp_ring_b, 1572864.0 * 144.0 / 2.65e12, 1e-12);
    assert_rel(d_on.tau_lf - d.tau_lf, d_on.tau_core - d.tau_core + d_on.cp_ring_f, 1e-9);
    assert_rel(d_on.tau_lb - d.tau_lb, 2.0 * (d_on.tau_core - d.tau_core) + d_on.cp_ring_b,
               1e-9);
    /* only time changes: the FLOP count (mfu·step) stays as counted */
    assert_rel(r_on.mfu * r_on.step_time_s, r.mfu * r.step_time_s, 1e-12);
}

/* With F33 on and s_half 0 (S_h = 1, S_d = s'/(s' + B_c) = 1024/1152): F33
 * alone charges the whole rank's work as one causal kernel, F9·0.5/S_d;
 * X31 charges the causal diagonal tile penalty on step 0 only and the
 * non-causal half block at S_h = 1: F9·(0.5/(2·S_d) + 1/(2·2)), less. */
static void test_x31_with_causal_work(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    s.cluster.gpu.attention_half_seq = 0;
    s.framework.attention_causal_work = true;
    const pe_plan p = fx_plan(2, 8, 2, 2);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    const double f9 = 12884901888.0 / 326.85e12, S_d = 1024.0 / 1152.0;
    assert_rel(d.tau_core, f9 * 0.5 / S_d, 1e-12);
    s.framework.cp_ring_load_balance = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.tau_core, f9 * (0.5 / (2.0 * S_d) + 0.25), 1e-12);
    assert_true(d.tau_core < f9 * 0.5 / S_d);
}

/* Neutral: without context parallelism (c = 1) the key changes nothing, bit
 * for bit, and off it is the model as before. */
static void test_x31_neutral(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3_causal_tile();
    const pe_plan p = fx_plan(4, 8, 2, 1);
    const double base = fx_eval(&s, &p).step_time_s;
    s.framework.cp_ring_load_balance = true;
    assert_true(fx_eval(&s, &p).step_time_s == base);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(d.cp_ring_f == 0.0 && d.cp_ring_b == 0.0 && d.core_f9 == d.tau_core);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x31_share_and_bytes),
        cmocka_unit_test(test_x31_plan),
        cmocka_unit_test(test_x31_with_causal_work),
        cmocka_unit_test(test_x31_neutral),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
