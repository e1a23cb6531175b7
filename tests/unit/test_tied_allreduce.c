/* test_tied_allreduce.c — docs/model.md §6 X18, the first and last stage's
 * all-reduce of the tied embedding's gradient (framework
 * tied_embedding_allreduce; DeepSpeed's pipeline ReduceTiedGrads), against
 * hand arithmetic; its neutrality; and that it never shortens a step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/detail.h"

/* GPT-3 175B with tied embeddings on 16 MI300X nodes (NIC 50 GB/s, 5 µs). */
static pe_scenario gpt3_tied(bool allreduce, bool tied)
{
    pe_scenario s = fx_gpt3(16);
    s.model.tied_embeddings = tied;
    s.framework = (pe_framework){.present = true, .tied_embedding_allreduce = allreduce};
    return s;
}

/* X18 by hand: dp 8, tp 8, pp 2 on 128 GPUs: the pair (stage 0, stage 1)
 * is tp·cp·dp·(p − 1) = 64 ranks apart, on two nodes: n_in 1, n_out 2.
 * S_tied = β_g·V·h/t = 2·51200·12288/8 = 157,286,400 bytes; C4 over the
 * pair: T_rs = (2 − 1)/2·S/B_out + (2 − 1)·α_out = 0.5·157286400/5e10 +
 * 5e-6 = 1.572864e-3 + 5e-6 = 1.577864e-3 s; C5: T_ar = 2·T_rs =
 * 3.155728e-3 s, all of it added to dp_comm_s (nothing overlaps it). */
static void test_x18_hand(void **state)
{
    (void)state;
    const pe_scenario on = gpt3_tied(true, true), off = gpt3_tied(false, true);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
        pe_plan p = fx_plan(8, 8, 2, 1);
        p.recompute = (pe_recompute)rc;
        pe_result r_on, r_off;
        pe_detail d_on, d_off;
        fx_eval_detail(&on, &p, &r_on, &d_on);
        fx_eval_detail(&off, &p, &r_off, &d_off);
        assert_true(d_on.valid && d_off.valid);
        assert_true(d_on.g_tied.n_in == 1.0 && d_on.g_tied.n_out == 2.0);
        assert_rel(d_on.s_tied, 157286400.0, 1e-15);
        assert_rel(d_on.t_tied, 3.155728e-3, 1e-12);
        assert_rel(r_on.dp_comm_s - r_off.dp_comm_s, 3.155728e-3, 1e-9);
        assert_rel(r_on.step_time_s - r_off.step_time_s, 3.155728e-3, 1e-9);
    }
}

/* Neutral: the key off, untied embeddings, or one stage (pp 1: the same GPU
 * holds both ends) give the step of before bit for bit; no framework at all
 * is the same as the key off. */
static void test_x18_neutral(void **state)
{
    (void)state;
    const pe_scenario off = gpt3_tied(false, true), untied = gpt3_tied(true, false);
    const pe_scenario on = gpt3_tied(true, true);
    pe_scenario none = gpt3_tied(false, true);
    none.framework.present = false;
    const pe_plan p2 = fx_plan(8, 8, 2, 1), p1 = fx_plan(16, 8, 1, 1);
    assert_true(fx_eval(&off, &p2).step_time_s == fx_eval(&none, &p2).step_time_s);
    pe_scenario untied_off = untied;
    untied_off.framework.tied_embedding_allreduce = false;
    assert_true(fx_eval(&untied, &p2).step_time_s == fx_eval(&untied_off, &p2).step_time_s);
    assert_true(fx_eval(&on, &p1).step_time_s == fx_eval(&off, &p1).step_time_s);
}

/* Property: the all-reduce never shortens a step, over pipeline depths,
 * ZeRO stages and gradient bytes. */
static void test_x18_never_faster(void **state)
{
    (void)state;
    const int64_t pps[3] = {2, 4, 8};
    const double grad_bytes[2] = {2, 4};
    for (int i = 0; i < 3; i++)
        for (int z = 0; z <= 1; z++)
            for (int k = 0; k < 2; k++) {
                pe_scenario on = gpt3_tied(true, true), off = gpt3_tied(false, true);
                on.precision.grad_bytes = off.precision.grad_bytes = grad_bytes[k];
                pe_plan p = fx_plan(16 / pps[i], 8, pps[i], 1);
                p.zero = z;
                const pe_result a = fx_eval(&on, &p), b = fx_eval(&off, &p);
                assert_true(a.step_time_s > b.step_time_s);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x18_hand),
        cmocka_unit_test(test_x18_neutral),
        cmocka_unit_test(test_x18_never_faster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
