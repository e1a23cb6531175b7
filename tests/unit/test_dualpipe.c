/* test_dualpipe.c — docs/model.md §12 "DualPipe" (B6, A21, M14, V6′):
 * DeepSeek-V3's bidirectional schedule (arXiv:2412.19437 §3.2.1 Table 2)
 * against hand arithmetic, through the evaluator, and its validity rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"
#include "model/pipeline.h"

/* B6 (p/2 − 1)·(F&B + B − 3W), F&B = t_f + t_b, B = t_b, W = t_b/2:
 *   p 8, t_f 1, t_b 2: 3·(3 + 2 − 3) = 6   (B1: 7·3 = 21)
 *   p 16, t_f 1, t_b 2: 7·2 = 14           (B1: 15·3 = 45)
 *   p 16, t_f 0.5, t_b 1.5: 7·(2 + 1.5 − 2.25) = 7·1.25 = 8.75
 *   p 2: 0·… = 0;  p 1: 0 */
static void test_b6_hand(void **state)
{
    (void)state;
    assert_rel(pipe_bubble(PE_SCHEDULE_DUALPIPE, 8, 1, 1.0, 2.0), 6.0, 1e-15);
    assert_rel(pipe_bubble(PE_SCHEDULE_DUALPIPE, 16, 1, 1.0, 2.0), 14.0, 1e-15);
    assert_rel(pipe_bubble(PE_SCHEDULE_DUALPIPE, 16, 1, 0.5, 1.5), 8.75, 1e-15);
    assert_true(pipe_bubble(PE_SCHEDULE_DUALPIPE, 2, 1, 1.0, 2.0) == 0.0);
    assert_true(pipe_bubble(PE_SCHEDULE_DUALPIPE, 1, 1, 1.0, 2.0) == 0.0);
    /* never more than 1F1B's B1 for the same stage times */
    for (int p = 2; p <= 64; p += 2)
        assert_true(pipe_bubble(PE_SCHEDULE_DUALPIPE, p, 1, 1.0, 2.0) <=
                    pipe_bubble(PE_SCHEDULE_1F1B, p, 1, 1.0, 2.0));
}

/* A21 k = min(p + 1, m): p 16, m 120 (DeepSeek-V3: 15,360/128) → 17;
 * p 8, m 6 → 6; p 1 → 1 */
static void test_a20_hand(void **state)
{
    (void)state;
    assert_true(act_inflight_dualpipe(16, 120) == 17.0);
    assert_true(act_inflight_dualpipe(8, 6) == 6.0);
    assert_true(act_inflight_dualpipe(1, 64) == 1.0);
}

/* GPT-3 175B, 64 GPUs = dp 8 · pp 8, B 512 → m = 64 (even, ≥ 2p = 16),
 * t = c = 1, recompute none: t_b = 2·t_f on every stage.
 *   B6/(m·(t_f + t_b)) = 3·(t_f + t_f)/(64·3·t_f) = 6/192 = 1/32
 *   A21: k = min(8 + 1, 64) = 9 on both end stages, 12 layers each:
 *     A_layer = s·b·h·(34 + 5·a·s/h) = 2048·(34·12288 + 5·96·2048)
 *             = 2048·1,400,832 = 2,868,903,936 B
 *     A6 = (A_layer·12·9 + A_layer·12·9)/2 = 309,841,625,088 B
 *   M14: stage 0's M1–M3 are 1F1B's stage 0 plus stage p−1's. */
static void eval_dual(pe_schedule sched, pe_result *r, pe_detail *d)
{
    pe_scenario s = fx_gpt3(8);
    s.training.global_batch = 512;
    pe_plan p = fx_plan(8, 1, 8, 1);
    p.schedule = sched;
    fx_eval_detail(&s, &p, r, d);
}

static void test_dualpipe_evaluated(void **state)
{
    (void)state;
    pe_result r, r1;
    pe_detail d, d1;
    eval_dual(PE_SCHEDULE_DUALPIPE, &r, &d);
    eval_dual(PE_SCHEDULE_1F1B, &r1, &d1);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    assert_int_equal(r.microbatches, 64);
    assert_rel(r.bubble_fraction, 1.0 / 32.0, 1e-12);
    assert_rel(r1.bubble_fraction, 7.0 / 64.0, 1e-12);
    assert_true(d.k[0] == 9.0 && d.k[1] == 9.0);
    assert_rel(d.a6[0], 309841625088.0, 1e-12);
    assert_rel(d.a6[1], 309841625088.0, 1e-12);
    for (int i = 0; i < 2; i++) {
        assert_rel(d.m1[i], d1.m1[0] + d1.m1[1], 1e-12);
        assert_rel(d.m2[i], d1.m2[0] + d1.m2[1], 1e-12);
        assert_rel(d.m3[i], d1.m3[0] + d1.m3[1], 1e-12);
    }
    /* the embedding mask (A7) and the output layer (A8) on both end ranks */
    assert_true(d.a7[1] == d.a7[0] && d.a8[0] == d.a8[1]);
    /* the time of the useful work is the schedule's: compute is unchanged */
    assert_true(r.compute_s == r1.compute_s);
    assert_true(r.step_time_s < r1.step_time_s);
}

/* V6′: an even p ≥ 2, an even m ≥ 2p, v = 1, the refined model. */
static uint32_t v6_failed(int64_t dp, int64_t pp, int64_t batch, int64_t v, pe_fidelity f)
{
    pe_scenario s = fx_gpt3(8);
    s.fidelity = f;
    s.training.global_batch = batch;
    pe_plan p = fx_plan(dp, 64 / (dp * pp), pp, 1);
    p.schedule = PE_SCHEDULE_DUALPIPE;
    p.virtual_stages = v;
    return fx_eval(&s, &p).failed & PE_FAIL_V6;
}

static void test_v6_dualpipe(void **state)
{
    (void)state;
    assert_true(v6_failed(8, 8, 512, 1, PE_FIDELITY_REFINED) == 0);  /* m 64 */
    assert_true(v6_failed(8, 8, 128, 1, PE_FIDELITY_REFINED) == 0);  /* m 16 = 2p */
    assert_true(v6_failed(8, 8, 120, 1, PE_FIDELITY_REFINED) != 0);  /* m 15: odd */
    assert_true(v6_failed(8, 8, 112, 1, PE_FIDELITY_REFINED) != 0);  /* m 14 < 2p */
    assert_true(v6_failed(16, 4, 512, 1, PE_FIDELITY_REFINED) == 0); /* p 4, m 32 */
    assert_true(v6_failed(64, 1, 512, 1, PE_FIDELITY_REFINED) != 0); /* p 1 */
    assert_true(v6_failed(8, 8, 512, 2, PE_FIDELITY_REFINED) != 0);  /* v 2 */
    assert_true(v6_failed(8, 8, 512, 1, PE_FIDELITY_TEXTBOOK) != 0); /* textbook */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b6_hand),
        cmocka_unit_test(test_a20_hand),
        cmocka_unit_test(test_dualpipe_evaluated),
        cmocka_unit_test(test_v6_dualpipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
