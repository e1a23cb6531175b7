/* test_dp_grad.c — docs/model.md §6 X25–X27, how the data-parallel gradient
 * collective runs (framework dp_grad_collective, dp_grad_comm_bytes,
 * dp_grad_window), against hand arithmetic; their neutrality; and their
 * direction (X25 never faster, X27 never slower, X26 monotone in bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/detail.h"

/* GPT-3 175B on 16 MI300X nodes (NIC 50 GB/s, 5 µs, no C8 efficiency:
 * neutral), 4-byte gradients, the three keys as given. */
static pe_scenario gpt3_dp(pe_dp_grad_collective coll, double comm_bytes, pe_dp_grad_window win)
{
    pe_scenario s = fx_gpt3(16);
    s.precision.grad_bytes = 4;
    s.framework = (pe_framework){.present = true, .dp_grad_collective = coll,
                                 .dp_grad_comm_bytes = comm_bytes, .dp_grad_window = win};
    return s;
}

/* dp 16, tp 8, pp 1: the dp group is 16 ranks 8 apart, one a node: n_in 1,
 * n_out 16, so C4 is T_rs(S) = 15/16·S/B_out + 15·α_out with B_out = 50e9,
 * α_out = 5e-6 (75e-6 s in all). */
static pe_plan plan_dp16(int64_t zero, double overlap_dp)
{
    pe_plan p = fx_plan(16, 8, 1, 1);
    p.zero = zero;
    p.overlap.dp = overlap_dp;
    return p;
}

static double t_rs_by_hand(double bytes) { return 15.0 / 16.0 * bytes / 50e9 + 15.0 * 5e-6; }

/* X26 by hand (z 1, overlap.dp 0, so X4 = T_rs(S_g′) + T_rs(S_w)): with
 * grad_bytes 4 and dp_grad_comm_bytes 2, S_g′ = 2·N_gpu, not 4·N_gpu;
 * T_rs(S_g′) = 15/16·2·N_gpu/50e9 + 75e-6; dp_comm_s is that plus
 * T_rs(S_w) = 15/16·2·N_gpu/50e9 + 75e-6 (β_w 2), so 2·T_rs(2·N_gpu). */
static void test_x26_hand(void **state)
{
    (void)state;
    const pe_scenario on = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 2, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_plan p = plan_dp16(1, 0);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&on, &p, &r, &d);
    assert_true(d.valid && d.g_dp.n_in == 1.0 && d.g_dp.n_out == 16.0);
    const double n = d.n_gpu[d.time_stage];
    assert_rel(d.s_g, 4.0 * n, 1e-15);  /* X4's S_g keeps grad_bytes (memory, X18) */
    assert_rel(d.s_gc, 2.0 * n, 1e-15); /* X26 */
    assert_rel(d.t_rs_g, t_rs_by_hand(2.0 * n), 1e-12);
    assert_rel(r.dp_comm_s, 2.0 * t_rs_by_hand(2.0 * n), 1e-12);
}

/* X25 by hand (z 1, overlap.dp 0): all_reduce makes the gradient term
 * T_ar = 2·T_rs(S_g′). With 2 bytes on the wire (X26) it equals the
 * textbook reduce-scatter of the 4-byte gradient but for the latency the
 * second half adds: 2·(15/16·2N/B + 75e-6) − (15/16·4N/B + 75e-6) = 75e-6 s
 * (BLOOM's case, docs/model.md §6). With 4 bytes on the wire it is
 * T_rs(4N) more: 15/16·4N/50e9 + 75e-6. */
static void test_x25_hand(void **state)
{
    (void)state;
    const pe_plan p = plan_dp16(1, 0);
    const pe_scenario rs4 = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario ar2 = gpt3_dp(PE_DP_GRAD_ALL_REDUCE, 2, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario ar4 = gpt3_dp(PE_DP_GRAD_ALL_REDUCE, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    pe_result r_rs4, r_ar2, r_ar4;
    pe_detail d_rs4, d_ar2, d_ar4;
    fx_eval_detail(&rs4, &p, &r_rs4, &d_rs4);
    fx_eval_detail(&ar2, &p, &r_ar2, &d_ar2);
    fx_eval_detail(&ar4, &p, &r_ar4, &d_ar4);
    const double n = d_rs4.n_gpu[d_rs4.time_stage];
    assert_rel(d_ar2.t_g, 2.0 * t_rs_by_hand(2.0 * n), 1e-12);
    assert_rel(r_ar2.dp_comm_s - r_rs4.dp_comm_s, 75e-6, 1e-6);
    assert_rel(d_ar4.t_g, 2.0 * t_rs_by_hand(4.0 * n), 1e-12);
    assert_rel(r_ar4.dp_comm_s - r_rs4.dp_comm_s, t_rs_by_hand(4.0 * n), 1e-9);
}

/* X27 by hand (z 2, overlap.dp 1, m = 1536/16 = 96 micro-batches): X4 is
 * m·max(0, T_rs(S_g) − τ_g) + max(0, T_rs(S_w) − τ_f), τ_g = τ_f + τ_b with
 * microbatch, τ_b without; T_rs(S_g) = 15/16·4N/50e9 + 75e-6 (about 1.6 s)
 * outlasts both windows here, so the two differ by exactly m·τ_f. */
static void test_x27_hand(void **state)
{
    (void)state;
    const pe_plan p = plan_dp16(2, 1);
    const pe_scenario bwd = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario mb = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_MICROBATCH);
    pe_result r_b, r_m;
    pe_detail d_b, d_m;
    fx_eval_detail(&bwd, &p, &r_b, &d_b);
    fx_eval_detail(&mb, &p, &r_m, &d_m);
    const int ts = d_m.time_stage;
    const double n = d_m.n_gpu[ts], tf = d_m.tau_f[ts], tb = d_m.tau_b[ts];
    const double rs_g = t_rs_by_hand(4.0 * n), rs_w = t_rs_by_hand(2.0 * n);
    assert_true(rs_g > tf + tb && rs_w > tf);
    assert_rel(d_m.tau_g, tf + tb, 1e-15);
    assert_rel(d_b.tau_g, tb, 1e-15);
    assert_rel(r_m.dp_comm_s, 96.0 * (rs_g - (tf + tb)) + (rs_w - tf), 1e-9);
    assert_rel(r_b.dp_comm_s, 96.0 * (rs_g - tb) + (rs_w - tf), 1e-9);
    assert_rel(r_b.dp_comm_s - r_m.dp_comm_s, 96.0 * tf, 1e-9);
}

/* Neutral: the three defaults are the step without them bit for bit (and
 * no framework at all); dp_grad_comm_bytes equal to grad_bytes changes
 * nothing; X25 leaves z 0, 2, 3 alone, X27 leaves z 0, 1, 3 alone. */
static void test_dp_grad_neutral(void **state)
{
    (void)state;
    const pe_scenario def = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario same = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 4, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario ar = gpt3_dp(PE_DP_GRAD_ALL_REDUCE, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario mb = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_MICROBATCH);
    pe_scenario none = def;
    none.framework.present = false;
    for (int64_t z = 0; z <= 3; z++)
        for (int o = 0; o <= 1; o++) {
            const pe_plan p = plan_dp16(z, o);
            const double t = fx_eval(&def, &p).step_time_s;
            assert_true(t == fx_eval(&none, &p).step_time_s);
            assert_true(t == fx_eval(&same, &p).step_time_s);
            if (z != 1)
                assert_true(t == fx_eval(&ar, &p).step_time_s);
            if (z != 2)
                assert_true(t == fx_eval(&mb, &p).step_time_s);
        }
}

/* Properties over ZeRO stages, overlap and pipeline depths: the all-reduce
 * never shortens a step, the wider window never lengthens one, and fewer
 * bytes on the wire never lengthen one. */
static void test_dp_grad_direction(void **state)
{
    (void)state;
    const pe_scenario def = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario ar = gpt3_dp(PE_DP_GRAD_ALL_REDUCE, 0, PE_DP_GRAD_WINDOW_BACKWARD);
    const pe_scenario mb = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 0, PE_DP_GRAD_WINDOW_MICROBATCH);
    const pe_scenario b2 = gpt3_dp(PE_DP_GRAD_REDUCE_SCATTER, 2, PE_DP_GRAD_WINDOW_BACKWARD);
    const int64_t pps[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++)
        for (int64_t z = 0; z <= 3; z++)
            for (int o = 0; o <= 1; o++) {
                pe_plan p = fx_plan(16 / pps[i], 8, pps[i], 1);
                p.zero = z;
                p.overlap.dp = o;
                const double t = fx_eval(&def, &p).step_time_s;
                assert_true(fx_eval(&ar, &p).step_time_s >= t);
                assert_true(fx_eval(&mb, &p).step_time_s <= t);
                assert_true(fx_eval(&b2, &p).step_time_s <= t);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x26_hand),       cmocka_unit_test(test_x25_hand),
        cmocka_unit_test(test_x27_hand),       cmocka_unit_test(test_dp_grad_neutral),
        cmocka_unit_test(test_dp_grad_direction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
