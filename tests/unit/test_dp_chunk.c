/* test_dp_chunk.c — docs/model.md §12 X30, X4 under Megatron-Core's
 * interleaved schedule (framework dp_chunk_sync: each model chunk's
 * gradient collective after its last micro-batch backward, its weight
 * all-gather before its first forward): the functions against hand
 * arithmetic, the properties that tie X30 to X4, and the evaluator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/detail.h"

/* f(T, w) = max(0, (T − w)/v, T − ((v − 1)·p + 1)·w/v), by hand:
 *  T 1.2, w 0.3, v 4, p 2: (0.9)/4 = 0.225; 1.2 − 7·0.3/4 = 1.2 − 0.525 = 0.675 → 0.675
 *  T 0.5, w 0.3, v 4, p 2: 0.2/4 = 0.05; 0.5 − 0.525 = −0.025 → 0.05 (the last chunk's)
 *  T 0.2, w 0.3: both negative → 0
 *  v 1 is X4's max(0, T − w): T 1.2, w 0.3 → 0.9
 * z = 1, rs_g 1.2 behind τ_b 0.3, rs_w 0.5 behind τ_f 0.15 (overlap 1, v 4, p 2):
 *  0.675 + max(0.35/4 = 0.0875, 0.5 − 7·0.15/4 = 0.2375) = 0.9125
 * z = 0, the all-reduce 2·1.2 = 2.4 behind 0.3: max(2.1/4 = 0.525, 2.4 − 0.525 = 1.875) = 1.875 */
static void test_x30_hand(void **state)
{
    (void)state;
    assert_rel(comm_dp_chunk_exposed(1.2, 0.3, 4, 2), 0.675, 1e-12);
    assert_rel(comm_dp_chunk_exposed(0.5, 0.3, 4, 2), 0.05, 1e-12);
    assert_true(comm_dp_chunk_exposed(0.2, 0.3, 4, 2) == 0.0);
    assert_rel(comm_dp_chunk_exposed(1.2, 0.3, 1, 2), 0.9, 1e-12);
    assert_rel(comm_dp_chunked(1, 1.2, 0.5, 1.0, 0.15, 0.3, 4, 2), 0.9125, 1e-12);
    assert_rel(comm_dp_chunked(0, 1.2, 0.5, 1.0, 0.15, 0.3, 4, 2), 1.875, 1e-12);
    /* overlap.dp 0: nothing hidden, X4's T + T_w: 1.2 + 0.5 */
    assert_rel(comm_dp_chunked(1, 1.2, 0.5, 0.0, 0.15, 0.3, 4, 2), 1.7, 1e-12);
}

/* Properties over T, w, v and p: 0 ≤ X30 ≤ X4 ((T − w)/v ≤ T − w for
 * T ≥ w, and ((v − 1)·p + 1)/v ≥ 1 for p ≥ 1); X30 = X4 at v = 1; never
 * smaller for a longer collective; and at least the last chunk's
 * (T − w)/v, which no later backward can hide. */
static void test_x30_properties(void **state)
{
    (void)state;
    const double vs[5] = {1, 2, 5, 12, 14}, ps[4] = {1, 2, 4, 8};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k <= 60; k++) {
                const double v = vs[i], p = ps[j], w = 0.1, T = 0.02 * k;
                const double f = comm_dp_chunk_exposed(T, w, v, p);
                const double x4 = comm_dp(1, 8, T, T, 1.0, w, w) / 2.0; /* one term */
                assert_true(f >= 0.0 && f <= x4 + 1e-15);
                assert_true(f >= (T - w) / v - 1e-15);
                if (v == 1.0)
                    assert_true(fabs(f - x4) <= 1e-15);
                assert_true(comm_dp_chunk_exposed(T + 0.01, w, v, p) >= f);
            }
}

/* The evaluator: GPT-3 175B, dp 4, tp 8, pp 4 on 16 MI300X nodes, the
 * interleaved schedule with v 2: the key off is the step without a
 * framework bit for bit; on, χ_dp (no X15, X8 or X7 here: no slowdown, no
 * bucket) is X30 of the work record's own collectives and windows, never
 * more than X4's, and the 1F1B plan and z = 2 are untouched. */
static pe_scenario gpt3_chunk(bool on)
{
    pe_scenario s = fx_gpt3(16);
    s.framework = (pe_framework){.present = true, .dp_chunk_sync = on};
    return s;
}

static void test_x30_evaluator(void **state)
{
    (void)state;
    const pe_scenario on = gpt3_chunk(true), off = gpt3_chunk(false);
    for (int z = 0; z <= 2; z++) {
        pe_plan p = fx_plan(4, 8, 4, 1);
        p.zero = z, p.schedule = PE_SCHEDULE_INTERLEAVED, p.virtual_stages = 2;
        pe_result r[2];
        pe_detail d[2];
        assert_true(fx_eval_key(&on, &off, &p, r, d));
        const pe_result r_on = r[0], r_off = r[1];
        const pe_detail *const on_d = &d[0];
        assert_true(r_on.dp_comm_s <= r_off.dp_comm_s);
        const double want = comm_dp_chunked(z, on_d->t_g, on_d->t_rs_w, 1.0,
                                            on_d->tau_f[on_d->time_stage], on_d->tau_g, 2, 4);
        if (z <= 1) {
            assert_rel(on_d->chi_dp + 1e-30, want + 1e-30, 1e-12);
            assert_true(r_on.dp_comm_s < r_off.dp_comm_s); /* every collective here longer than its window's share */
        } else {
            assert_true(r_on.step_time_s == r_off.step_time_s);
        }
        p.schedule = PE_SCHEDULE_1F1B, p.virtual_stages = 1;
        assert_true(fx_eval(&on, &p).step_time_s == fx_eval(&off, &p).step_time_s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x30_hand),
        cmocka_unit_test(test_x30_properties),
        cmocka_unit_test(test_x30_evaluator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
