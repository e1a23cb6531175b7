/* test_pp_overlap.c — docs/model.md §12 X34 (framework
 * pp_overlap_interleaved_only): overlap.pp hides the pipeline sends only
 * with the interleaved schedule, v > 1 (Megatron-Core's 1F1B schedule
 * refuses overlap_p2p_comm; Megatron-Bridge sets it only when vp > 1): the
 * function against hand arithmetic and the evaluator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/detail.h"

/* X34 by hand: overlap.pp 1 in force only when interleaved with v > 1:
 *  key on, interleaved, v 2: 1;  key on, interleaved, v 1: 0;  key on, 1F1B, v 1: 0
 *  key off: the plan's overlap.pp whatever the schedule (1, 0.5)
 * X3 with it, p 4, m 8, v 1, T_p2p 0.002, τ_f 0.01, τ_b 0.02:
 *  overlap 1: 8·1·[max(0, 0.002 − 0.01) + max(0, 0.002 − 0.02)] = 0
 *  overlap 0 (X34 on 1F1B): 8·1·[0.002 + 0.002] = 0.032 */
static void test_x34_hand(void **state)
{
    (void)state;
    assert_true(comm_pp_overlap(1.0, 1, 1, 2.0) == 1.0);
    assert_true(comm_pp_overlap(1.0, 1, 1, 1.0) == 0.0);
    assert_true(comm_pp_overlap(1.0, 1, 0, 1.0) == 0.0);
    assert_true(comm_pp_overlap(1.0, 0, 0, 1.0) == 1.0);
    assert_true(comm_pp_overlap(0.5, 0, 1, 1.0) == 0.5);
    assert_true(comm_pp(4, 8, 1, 0.002, comm_pp_overlap(1.0, 0, 0, 1.0), 0.01, 0.02) == 0.0);
    assert_rel(comm_pp(4, 8, 1, 0.002, comm_pp_overlap(1.0, 1, 0, 1.0), 0.01, 0.02), 0.032,
               1e-12);
}

/* The evaluator: GPT-3 175B, dp 4, tp 8, pp 4 on 16 MI300X nodes,
 * overlap.pp 1. The key off is the step without a framework bit for bit;
 * on, the 1F1B plan's pipeline sends are exposed whole, χ_pp = m·v·2·T_p2p
 * of the work record's own hop, and longer than with the key off; the
 * interleaved plan with v 2 is untouched. */
static pe_scenario gpt3_pp(bool on)
{
    pe_scenario s = fx_gpt3(16);
    s.framework = (pe_framework){.present = true, .pp_overlap_interleaved_only = on};
    return s;
}

static void test_x34_evaluator(void **state)
{
    (void)state;
    const pe_scenario on = gpt3_pp(true), off = gpt3_pp(false);
    pe_plan p = fx_plan(4, 8, 4, 1);
    p.overlap.pp = 1.0;
    pe_result r[2];
    pe_detail d[2];
    assert_true(fx_eval_key(&on, &off, &p, r, d));
    const double want = d[0].m * 1.0 * 2.0 * d[0].t_p2p_pp;
    assert_true(d[0].t_p2p_pp > 0.0);
    assert_rel(r[0].pp_comm_s, want, 1e-12);
    assert_true(r[0].pp_comm_s > r[1].pp_comm_s);
    assert_true(r[0].step_time_s > r[1].step_time_s);
    p.schedule = PE_SCHEDULE_INTERLEAVED, p.virtual_stages = 2;
    assert_true(fx_eval(&on, &p).step_time_s == fx_eval(&off, &p).step_time_s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x34_hand),
        cmocka_unit_test(test_x34_evaluator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
