/* test_pipeline.c — docs/model.md §7, bubble B1–B4 and bubble_fraction, plus
 * X3 on the pipeline axis, against hand arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/pipeline.h"

/* B1–B4 with t_f = 1, t_b = 2, p = 8, v = 2. */
static void test_bubble_equations(void **state)
{
    (void)state;
    /* B1 (p−1)·(t_f + t_b) = 7·3 = 21 */
    assert_true(pipe_bubble(PE_SCHEDULE_1F1B, 8, 1, 1.0, 2.0) == 21.0);
    assert_true(pipe_bubble(PE_SCHEDULE_GPIPE, 8, 1, 1.0, 2.0) == 21.0);
    /* B2 (p−1)·(t_f + t_b)/v = 21/2 = 10.5 */
    assert_true(pipe_bubble(PE_SCHEDULE_INTERLEAVED, 8, 2, 1.0, 2.0) == 10.5);
    /* B3 (p−1)·t_f = 7 */
    assert_true(pipe_bubble(PE_SCHEDULE_ZB_H1, 8, 1, 1.0, 2.0) == 7.0);
    /* B4 0 */
    assert_true(pipe_bubble(PE_SCHEDULE_ZB_H2, 8, 1, 1.0, 2.0) == 0.0);
    /* p = 1 → 0 for every schedule */
    assert_true(pipe_bubble(PE_SCHEDULE_1F1B, 1, 1, 1.0, 2.0) == 0.0);
    assert_true(pipe_bubble(PE_SCHEDULE_GPIPE, 1, 1, 1.0, 2.0) == 0.0);
    /* bubble_fraction = bubble/(m·(t_f + t_b)) = 21/(64·3) = 7/64 */
    assert_true(pipe_bubble_fraction(21.0, 64, 1.0, 2.0) == 7.0 / 64.0);
    /* stage time τ + χ_tp + χ_cp */
    assert_true(pipe_stage_time(1.0, 0.5, 0.25) == 1.75);
}

/* Through the evaluator: t = c = 1 so t_f = τ_f, t_b = 2τ_f (no recompute);
 * 64 GPUs = dp 8 · pp 8, B = 512 → m = 64. */
static pe_result eval_pipe(pe_schedule sched, int64_t v)
{
    pe_scenario s = fx_gpt3(8);
    s.training.global_batch = 512;
    pe_plan p = fx_plan(8, 1, 8, 1);
    p.schedule = sched;
    p.virtual_stages = v;
    return fx_eval(&s, &p);
}

static void test_bubble_fractions(void **state)
{
    (void)state;
    pe_result r = eval_pipe(PE_SCHEDULE_1F1B, 1);
    assert_int_equal(r.microbatches, 64);
    /* 1f1b: (p−1)/m = 7/64 */
    assert_rel(r.bubble_fraction, 7.0 / 64.0, 1e-12);
    /* gpipe: the same bubble */
    r = eval_pipe(PE_SCHEDULE_GPIPE, 1);
    assert_rel(r.bubble_fraction, 7.0 / 64.0, 1e-12);
    /* interleaved v = 2 (p·v = 16 | 96; m mod p = 0): (p−1)/(v·m) = 7/128 */
    r = eval_pipe(PE_SCHEDULE_INTERLEAVED, 2);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    assert_rel(r.bubble_fraction, 7.0 / 128.0, 1e-12);
    /* zb-h1: (p−1)·t_f/(m·(t_f + t_b)) = 7·τ_f/(64·3τ_f) = 7/192 */
    r = eval_pipe(PE_SCHEDULE_ZB_H1, 1);
    assert_rel(r.bubble_fraction, 7.0 / 192.0, 1e-12);
    /* zb-h2: 0 */
    r = eval_pipe(PE_SCHEDULE_ZB_H2, 1);
    assert_true(r.bubble_fraction == 0.0 && r.bubble_s == 0.0);
    /* p = 1: 0 */
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    r = fx_eval(&s, &p);
    assert_true(r.bubble_s == 0.0 && r.bubble_fraction == 0.0);
}

/* The bubble uses t_f + t_b including exposed TP time: with t = 8 and
 * overlap.tp = 0, bubble_s = (p−1)/m·(compute_s + tp_comm_s + cp_comm_s). */
static void test_bubble_includes_tp(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.training.global_batch = 64;
    pe_plan p = fx_plan(1, 8, 8, 1);
    const pe_result r = fx_eval(&s, &p);
    assert_true(r.tp_comm_s > 0.0);
    assert_rel(r.bubble_s, 7.0 / 64.0 * (r.compute_s + r.tp_comm_s + r.cp_comm_s), 1e-12);
    /* X3: pp 8 at stride t·c·dp = 8 → one stage per node → inter-node hops:
     * S_pp = 2·1·2048·12288/8 = 6,291,456 B; T = 5e-6 + 6,291,456/50e9 = 1.3082912e-4 s;
     * overlap.pp = 0: χ_pp = m·v·2T = 64·1·2·1.3082912e-4 = 0.01674612736 s */
    assert_int_equal(r.tier_pp, PE_TIER_INTER);
    assert_rel(r.pp_comm_s, 0.01674612736, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bubble_equations),
        cmocka_unit_test(test_bubble_fractions),
        cmocka_unit_test(test_bubble_includes_tp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
