/* test_step.c — docs/model.md §8, step time and derived figures S1–S5, the
 * sanity identity, the column-sum property, and S7's cost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/step.h"

/* S1 left to right; S3 ties go to the earlier name. */
static void test_step_equations(void **state)
{
    (void)state;
    /* 1 + 2 + 3 + 4 + 5 + 6 + 7 = 28 */
    assert_true(step_time(1, 2, 3, 4, 5, 6, 7) == 28.0);
    /* left to right: ((1e16 + 1) + 1) + … keeps nothing of the ones; a different
     * association (1 + 1 + … first) would give 1e16 + 6 */
    assert_true(step_time(1e16, 1, 1, 1, 1, 1, 1) == 1e16);
    assert_true(step_comm(1, 2, 3, 4) == 10.0);
    /* S3′ (compute, comm, bubble, optimizer, critical, host, critical path) */
    assert_int_equal(step_bound(1, 1, 1, 1, 0, false, true), PE_BOUND_COMPUTE); /* all tie → compute */
    assert_int_equal(step_bound(1, 2, 2, 0, 0, false, true), PE_BOUND_COMMUNICATION); /* comm = bubble */
    assert_int_equal(step_bound(1, 1, 2, 0, 0, false, true), PE_BOUND_BUBBLE);
    assert_int_equal(step_bound(2, 1, 2, 0, 0, false, true), PE_BOUND_COMPUTE); /* compute = bubble */
    assert_int_equal(step_bound(0, 1, 0.5, 0, 0, false, true), PE_BOUND_COMMUNICATION);
    /* the optimizer step, or offload's host step, when it is the largest part */
    assert_int_equal(step_bound(1, 1, 0, 3, 0, false, true), PE_BOUND_OPTIMIZER);
    assert_int_equal(step_bound(1, 1, 0, 3, 0, true, true), PE_BOUND_HOST);
    assert_int_equal(step_bound(3, 1, 0, 3, 0, true, true), PE_BOUND_COMPUTE); /* tie → compute */
    /* an overlapped collective longer than its window: compute 5 of which 4
     * run under it, 1 exposed: the step is the collective's (1 + 4 > 5 − 4) */
    assert_int_equal(step_bound(5, 1, 0, 0, 0, false, true), PE_BOUND_COMPUTE);
    assert_int_equal(step_bound(5, 1, 0, 0, 4, false, true), PE_BOUND_COMMUNICATION);
    /* S3 of the textbook: the exposed columns only, three values; the same
     * figures as above give compute where S3′ gives optimizer, host or
     * communication */
    assert_int_equal(step_bound(1, 1, 0, 3, 0, false, false), PE_BOUND_COMPUTE);
    assert_int_equal(step_bound(1, 1, 0, 3, 0, true, false), PE_BOUND_COMPUTE);
    assert_int_equal(step_bound(5, 1, 0, 0, 4, false, false), PE_BOUND_COMPUTE);
    assert_int_equal(step_bound(1, 2, 2, 9, 0, false, false), PE_BOUND_COMMUNICATION);
    assert_int_equal(step_bound(1, 1, 2, 9, 0, false, false), PE_BOUND_BUBBLE);
    assert_string_equal(pe_bound_name(PE_BOUND_OPTIMIZER), "optimizer");
    assert_string_equal(pe_bound_name(PE_BOUND_HOST), "host");
    assert_string_equal(pe_bound_name(PE_BOUND_COMMUNICATION), "communication");
    /* S4, S5 */
    assert_true(step_tokens_per_s(3000, 1.5) == 2000.0);
    assert_true(step_utilisation(100, 2, 5, 20) == 0.5);    /* 100/(2·5·20) */
    assert_true(step_tflops_per_gpu(4e12, 2, 1) == 2.0);    /* 4e12/(2·1)/1e12 */
    assert_true(step_train_days(86400.0 * 10, 5) == 2.0);   /* 864000/5/86400 */
    assert_true(step_gpu_hours(8, 2) == 384.0);             /* 8·2·24 */
    assert_true(step_cost(384, 2.5) == 960.0);              /* S7: 384·2.5 */
    assert_false(step_over_target(960.0, 960.0));          /* T2: met at equality */
    assert_true(step_over_target(960.5, 960.0));           /* T2: 960.5 > 960 */
}

/* End to end by hand: GPT-3 175B, one node, dp 8, p = t = c = 1, z 0, B 64 → m 8.
 *  f_fwd = 2048·(96·3,724,541,952 + 1,258,291,200) = 734,851,724,476,416 FLOP
 *  τ_f = f_fwd/653.7e12 = 1.12414215156 s, τ_b = 2τ_f = 2.24828430313 s
 *  compute_s = 8·(τ_f + τ_b) = 26.9794116375 s
 *  dp: T_ar(350e9 B) over 8 in the mesh = 2·(7/8·350e9/448e9 + 7·2e-6) = 1.3672155 s
 *      < overlap.dp·τ_b = 2.248 → 0 exposed
 *  optimizer_s = 175e9·(2 + 2 + 24)/5.3e12 = 0.924528301887 s
 *  step = 27.9039399394 s; tokens/s = 64·2048/step = 4697.2578
 *  mfu = 3·64·2048·358,814,318,592/(step·8·1307.4e12) = 0.48343373
 *  tflops_per_gpu = 632.04126; with 300e9 tokens: 300e9/4697.2578/86400 = 739.20 days */
static void test_end_to_end(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(1);
    s.training.global_batch = 64;
    s.training.has_tokens = true;
    s.training.tokens = 300e9;
    s.cluster.gpu.hbm_gib = 4096; /* 2.8 TB of state per GPU: fit it, to test status ok */
    pe_plan p = fx_plan(8, 1, 1, 1);
    const pe_result r = fx_eval(&s, &p);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_int_equal(r.microbatches, 8);
    assert_int_equal(r.time_stage, 0);
    assert_rel(r.compute_s, 26.97941163750036, 1e-13);
    assert_true(r.tp_comm_s == 0.0 && r.cp_comm_s == 0.0 && r.bubble_s == 0.0);
    assert_true(r.pp_comm_s == 0.0 && r.dp_comm_s == 0.0);
    assert_rel(r.optimizer_s, 0.9245283018867925, 1e-13);
    assert_rel(r.step_time_s, 27.90393993938715, 1e-13);
    assert_true(r.comm_fraction == 0.0 && r.bubble_fraction == 0.0);
    assert_int_equal(r.bound, PE_BOUND_COMPUTE);
    assert_rel(r.tokens_per_s, 4697.257816807024, 1e-13);
    assert_rel(r.mfu, 0.4834337318691366, 1e-13);
    assert_rel(r.hfu, r.mfu, 1e-15); /* no recompute */
    assert_rel(r.tflops_per_gpu, 632.0412610457091, 1e-13);
    assert_true(r.has_train_days);
    assert_rel(r.train_days, 739.2019679648915, 1e-13);
    assert_rel(r.gpu_hours, 8 * 739.2019679648915 * 24, 1e-13);
    /* S7 without a price: no cost; at $2 a GPU-hour:
     * 8·739.2019679648915·24 = 141,926.7778 GPU-hours · 2 = 283,853.5557 */
    assert_false(r.has_cost);
    s.cluster.has_cost_per_gpu_hour = true;
    s.cluster.cost_per_gpu_hour = 2.0;
    const pe_result rc = fx_eval(&s, &p);
    assert_true(rc.has_cost);
    assert_rel(rc.cost, 283853.5556985184, 1e-12);
    /* T2 targets: 141,926.78 GPU-hours over 141,926 fails, under 141,927 meets;
     * cost 283,853.56 over 283,853 fails, under 283,854 meets (status over_time) */
    s.budgets.has_gpu_hours = true;
    s.budgets.gpu_hours = 141926.0;
    const pe_result rh = fx_eval(&s, &p);
    assert_true(rh.failed == PE_FAIL_GPU_HOURS && rh.status == PE_STATUS_OVER_TIME);
    s.budgets.gpu_hours = 141927.0;
    assert_true(fx_eval(&s, &p).status == PE_STATUS_OK);
    s.budgets.has_gpu_hours = false;
    s.budgets.has_cost = true;
    s.budgets.cost = 283853.0;
    const pe_result rk = fx_eval(&s, &p);
    assert_true(rk.failed == PE_FAIL_COST && rk.status == PE_STATUS_OVER_TIME);
    s.budgets.cost = 283854.0;
    assert_true(fx_eval(&s, &p).status == PE_STATUS_OK);
    s.budgets.has_cost = false;
    s.cluster.has_cost_per_gpu_hour = false;
    /* without training.tokens: no train_days */
    s.training.has_tokens = false;
    const pe_result r2 = fx_eval(&s, &p);
    assert_false(r2.has_train_days);
    assert_true(r2.train_days == 0.0 && r2.gpu_hours == 0.0);
    s.cluster.has_cost_per_gpu_hour = true; /* a price without tokens: still no cost */
    assert_false(fx_eval(&s, &p).has_cost);
    s.cluster.has_cost_per_gpu_hour = false;
    /* with dp overlap 0 the all-reduce is exposed: 1.3672155 s */
    p.overlap.dp = 0.0;
    const pe_result r3 = fx_eval(&s, &p);
    assert_rel(r3.dp_comm_s, 1.3672155, 1e-12);
    assert_rel(r3.comm_fraction, r3.dp_comm_s / r3.step_time_s, 1e-15);
}

/* docs/model.md §8 sanity identity: p = 1, t = c = dp = 1, recompute none, a very
 * large hbm_tb_s → mfu = e: step = m·3·f_fwd/(peak·e) = F_model/(peak·e). */
static void test_sanity_identity(void **state)
{
    (void)state;
    const double effs[] = {0.5, 0.37, 1.0};
    for (size_t i = 0; i < 3; i++) {
        pe_scenario s = fx_gpt3(1);
        s.cluster.gpus_per_node = 1;
        s.cluster.intra_node.present = false;
        s.cluster.gpu.hbm_tb_s = 1e30;
        s.cluster.gpu.flops_efficiency = effs[i];
        s.training.global_batch = 16;
        pe_plan p = fx_plan(1, 1, 1, 1);
        p.micro_batch = 2;
        const pe_result r = fx_eval(&s, &p);
        assert_int_not_equal(r.status, PE_STATUS_INVALID);
        assert_rel(r.mfu, effs[i], 1e-12);
    }
}

/* Property: step_time_s is exactly the left-to-right sum of the seven
 * columns, and comm_fraction/bound follow, over a grid of plans on 64 GPUs. */
static void test_column_sum_grid(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.training.global_batch = 512;
    const int64_t tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4, 8}, cps[] = {1, 2};
    const pe_schedule scheds[] = {PE_SCHEDULE_1F1B, PE_SCHEDULE_INTERLEAVED, PE_SCHEDULE_GPIPE,
                                  PE_SCHEDULE_ZB_H1, PE_SCHEDULE_ZB_H2};
    const double ovs[] = {0.0, 0.5, 1.0};
    int valid = 0;
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 2; c++)
                for (int64_t z = 0; z <= 3; z++)
                    for (int rc = 0; rc < 3; rc++)
                        for (size_t q = 0; q < 5; q++)
                            for (size_t o = 0; o < 3; o++)
                                for (int64_t mb = 1; mb <= 2; mb++) {
                                    if (tps[a] * pps[b] * cps[c] > 64)
                                        continue;
                                    const int64_t dp = 64 / (tps[a] * pps[b] * cps[c]);
                                    pe_plan p = fx_plan(dp, tps[a], pps[b], cps[c]);
                                    p.zero = z;
                                    p.recompute = (pe_recompute)rc;
                                    p.schedule = scheds[q];
                                    p.virtual_stages = scheds[q] == PE_SCHEDULE_INTERLEAVED ? 2 : 1;
                                    p.micro_batch = mb;
                                    p.overlap = (pe_overlap){ovs[o], ovs[o], ovs[o], ovs[o], 0};
                                    const pe_result r = fx_eval(&s, &p);
                                    if (r.status == PE_STATUS_INVALID)
                                        continue;
                                    valid++;
                                    double sum = r.compute_s;
                                    sum += r.tp_comm_s;
                                    sum += r.cp_comm_s;
                                    sum += r.bubble_s;
                                    sum += r.pp_comm_s;
                                    sum += r.dp_comm_s;
                                    sum += r.optimizer_s;
                                    assert_true(sum == r.step_time_s);
                                    const double comm =
                                        r.tp_comm_s + r.cp_comm_s + r.pp_comm_s + r.dp_comm_s;
                                    assert_true(r.comm_fraction == comm / r.step_time_s);
                                    /* S3 on the exposed columns, or communication
                                     * when X4's collectives outlast their windows */
                                    const pe_bound exposed =
                                        step_bound(r.compute_s, comm, r.bubble_s, r.optimizer_s,
                                                   0.0, p.offload_optimizer, false);
                                    assert_true(r.bound == exposed ||
                                                r.bound == PE_BOUND_COMMUNICATION);
                                    assert_true(r.mfu > 0.0 && r.mfu <= 0.5);
                                    assert_true(r.hfu >= r.mfu);
                                }
    assert_true(valid > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_equations),
        cmocka_unit_test(test_end_to_end),
        cmocka_unit_test(test_sanity_identity),
        cmocka_unit_test(test_column_sum_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
