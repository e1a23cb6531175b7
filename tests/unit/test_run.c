/* test_run.c — docs/model.md §15, the whole run: energy R1–R3 and goodput
 * R4–R9 against hand arithmetic, neutral without their keys, and the
 * properties of the checkpoint interval and the goodput. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/run.h"

/* Each equation by hand. */
static void test_run_equations(void **state)
{
    (void)state;
    /* R1: 100 + (700 − 100)·3/4 = 100 + 450 = 550 W */
    assert_true(run_gpu_power(100, 700, 3, 4) == 550.0);
    /* R1 with P_idle = P_TDP: the board at 700 W whatever it does */
    assert_true(run_gpu_power(700, 700, 1, 4) == 700.0);
    /* R2: 8·550 + 1000 = 5400 W */
    assert_true(run_node_power(8, 550, 1000) == 5400.0);
    /* R3: 4 nodes·5400 W·1.25·10 days·24 h = 6,480,000 Wh = 6.48 MWh */
    assert_rel(run_energy_mwh(4, 5400, 1.25, 10), 6.48, 1e-15);
    /* R6: 86400/(0.001·1000) = 86400 s, one interruption a day */
    assert_true(run_mtbi_s(0.001, 1000) == 86400.0);
    /* R7 Daly, δ = 2 s, M = 10^4 s: x = δ/2M = 10^-4, √(2δM) = 200,
     * 200·(1 + 0.01/3 + 10^-4/9) − 2 = 198.668888… s */
    assert_rel(run_daly_interval(2, 1e4), 198.66888888888889, 1e-14);
    /* δ ≥ 2M: τ = M */
    assert_true(run_daly_interval(3e4, 1e4) == 1e4);
    /* R8: τ 100, δ 10, M 1000, R 50:
     * 1000·e^0.05·(e^0.11 − 1) = 1000·1.0512711·0.1162781 = 122.23977 s,
     * goodput = 100/122.23977 = 0.81806434 */
    assert_rel(run_goodput(100, 10, 1000, 50), 0.8180643355594495, 1e-13);
    /* R9: 90 days at goodput 0.9 = 100 days */
    assert_rel(run_effective_days(90, 0.9), 100.0, 1e-15);
}

/* GPT-3 175B on 8 MI300X nodes with the whole run's keys. */
static pe_scenario whole_run_scenario(void)
{
    pe_scenario s = fx_gpt3(8);
    s.training.has_tokens = true;
    s.training.tokens = 300e9;
    s.cluster.gpu.has_tdp_w = true;
    s.cluster.gpu.tdp_w = 750;
    s.cluster.gpu.has_idle_w = true;
    s.cluster.gpu.idle_w = 150;
    s.cluster.node_overhead_w = 2000;
    s.cluster.pue = 1.2;
    s.failures = (pe_failures){.present = true, .interruptions_per_gpu_day = 1e-3,
                               .restart_minutes = 15};
    s.checkpointing = (pe_checkpointing){.present = true, .write_gb_s = 10, .save = PE_SAVE_SYNC};
    return s;
}

/* One plan end to end, each figure from the row's own step by hand. */
static void test_run_end_to_end(void **state)
{
    (void)state;
    pe_scenario s = whole_run_scenario();
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    pe_plan p = fx_plan(8, 8, 1, 1);
    p.zero = 1;
    pe_result r;
    evaluate_plan(&ctx, &p, &r);
    assert_int_equal(r.status, PE_STATUS_OK);
    /* R4: N_total is the fixture's params, 175e9 (P6), times β_w + β_o = 2 + 12:
     * 2.45e12 bytes; R5 sync: 2.45e12/(10·10^9) = 245 s */
    assert_rel(ctx.run.ckpt_bytes, 2.45e12, 1e-15);
    assert_rel(ctx.run.write_s, 245.0, 1e-15);
    const double delta = 245.0;
    /* R6: 86400/(10^-3·64) = 1,350,000 s */
    assert_rel(ctx.run.mtbi_s, 1.35e6, 1e-15);
    const double M = 1.35e6, x = delta / (2 * M);
    const double tau = sqrt(2 * delta * M) * (1 + sqrt(x) / 3 + x / 9) - delta;
    const double g = tau / (M * exp(900 / M) * (exp((tau + delta) / M) - 1)); /* R 15 min */
    assert_rel(r.goodput, g, 1e-9);
    assert_rel(r.effective_train_days, r.train_days / g, 1e-12);
    /* R1–R3: 8 nodes·(8·(150 + 600·compute/step) + 2000)·1.2·days·24/10^6 */
    const double gpu_w = 150 + 600 * r.compute_s / r.step_time_s;
    assert_true(r.has_energy);
    assert_rel(r.energy_mwh, 8 * (8 * gpu_w + 2000) * 1.2 * r.effective_train_days * 24 / 1e6,
                  1e-12);
}

/* Without the keys: goodput 1, effective_train_days is train_days bit for
 * bit, and no energy without tdp_w; the v1 figures do not move. */
static void test_run_neutral(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.training.has_tokens = true;
    s.training.tokens = 300e9;
    pe_plan p = fx_plan(8, 8, 1, 1);
    pe_result r = fx_eval(&s, &p);
    assert_true(r.goodput == 1.0);
    assert_true(r.effective_train_days == r.train_days);
    assert_false(r.has_energy);
    pe_scenario w = whole_run_scenario();
    pe_result rw = fx_eval(&w, &p);
    assert_true(rw.step_time_s == r.step_time_s && rw.train_days == r.train_days &&
                rw.mem_total_gib == r.mem_total_gib && rw.gpu_hours == r.gpu_hours);
    assert_true(rw.goodput < 1.0 && rw.effective_train_days > r.train_days);
}

/* Properties: Daly's τ is the best interval (goodput at τ above that at
 * half and twice it) and close to Young's when δ ≪ M; goodput in (0, 1],
 * falling as interruptions, restarts and saves grow; an async save of a
 * smaller shard waits less. */
static void test_run_properties(void **state)
{
    (void)state;
    const double deltas[] = {0.5, 3, 30, 300};
    const double mtbis[] = {3600, 11135, 86400, 1e6};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++) {
            const double d = deltas[i], M = mtbis[j];
            const double tau = run_daly_interval(d, M);
            const double g = run_goodput(tau, d, M, 600);
            assert_true(g > 0.0 && g <= 1.0);
            assert_true(g >= run_goodput(tau / 2, d, M, 600));
            assert_true(g >= run_goodput(tau * 2, d, M, 600));
            assert_true(g > run_goodput(tau, d, M, 1200));     /* longer restarts */
            assert_true(g > run_goodput(tau, d * 2, M, 600)); /* slower saves */
            assert_true(g > run_goodput(run_daly_interval(d, M / 2), d, M / 2, 600));
            if (d / M < 1e-3) /* Young's first order within 2% of Daly's */
                assert_rel(tau, sqrt(2 * d * M), 0.02);
        }
    pe_scenario s = whole_run_scenario();
    s.cluster.gpu.has_host_link_gb_s = true;
    s.cluster.gpu.host_link_gb_s = 64;
    s.checkpointing.save = PE_SAVE_ASYNC;
    pe_plan z0 = fx_plan(8, 8, 1, 1), z1 = z0;
    z1.zero = 1; /* the optimizer state sharded over dp: a smaller shard to copy */
    pe_result r0 = fx_eval(&s, &z0), r1 = fx_eval(&s, &z1);
    assert_true(r1.goodput > r0.goodput);
    pe_scenario sy = whole_run_scenario();
    assert_true(fx_eval(&sy, &z1).goodput < r1.goodput); /* waiting for the write costs more */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_equations),
        cmocka_unit_test(test_run_end_to_end),
        cmocka_unit_test(test_run_neutral),
        cmocka_unit_test(test_run_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
