/* test_candidate_stages.c — uneven pipeline stages with MoE layers (docs/model.md
 * §7, §12 F20, §6 X10): the time stage is chosen after the expert all-to-all
 * and expert-TP terms are added, and the row's tp_comm_s and cp_comm_s are
 * that stage's own χ, not those of the stage that was slowest before them.
 * Here stage 0 holds 17 layers (6 dense) and stage 1 15 (all MoE): stage 0
 * is slower before the expert terms, stage 1 after; the row's tp_comm_s is
 * stage 1's own 0.0461 s, not stage 0's 0.0584 s. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "input/catalog.h"
#include "input/load.h"
#include "model/detail.h"
#include "model/evaluate.h"
#include "sweep/plans.h"

static const char SCENARIO[] =
    "schema: planeval/v1\n"
    "name: u3\n"
    "fidelity: refined\n"
    "model: { preset: mixtral-8x7b, seq_len: 4096, dense_layers: 6, experts: 64, top_k: 8, "
    "moe_ffn_hidden: 2048 }\n"
    "cluster: { preset: h100-node, nodes: 16 }\n"
    "training: { global_batch: 512 }\n"
    "plans:\n"
    "  - { name: p, dp: 32, tp: 2, pp: 2, ep: 16, etp: 1, zero: 1, micro_batch: 1, "
    "sequence_parallel: true, first_stage_layers: 17, overlap: { ep: 0 } }\n";

static void test_time_stage_chi(void **state)
{
    (void)state;
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s;
    assert_int_equal(load_scenario_buffer("u3.yaml", SCENARIO, strlen(SCENARIO), catalog, &s,
                                          &err),
                     PE_OK);
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &s.plans[0], &r, &d);
    assert_int_equal(r.status, PE_STATUS_OK);
    /* the two stages' TP χ differ (17 vs 15 layers), so the test can tell */
    assert_true(fabs(d.chi_st[0][0] - d.chi_st[1][0]) > 1e-6);
    const int ts = d.time_stage;
    /* tp_comm_s = m·(χ_tp,f + χ_tp,b + χ_etp,f + χ_etp,b) of the time stage
     * (S1 columns, §8; the expert-TP term X11 joins tp_comm_s) */
    const double want = d.m * (d.chi_st[ts][0] + d.chi_st[ts][1] + d.moe.chi_etp_f[ts] +
                               d.moe.chi_etp_b[ts]);
    assert_true(fabs(r.tp_comm_s - want) <= 1e-12 * want);
    assert_true(fabs(r.cp_comm_s - d.m * (d.chi_st[ts][2] + d.chi_st[ts][3])) <= 1e-15);
    scenario_free(&s);
    catalog_free(catalog);
}

/* V9 and V15 for plans that reach the evaluator without the loader's
 * checks (canonical texts of explain and calibrate): an etp other than tp
 * on a dense model, and offload on a GPU without host_link_gb_s. */
static void test_rules_without_loader(void **state)
{
    (void)state;
    static const char dense[] =
        "schema: planeval/v1\nmodel: { preset: llama3-8b }\n"
        "cluster: { preset: h100-node, nodes: 1 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: a, dp: 8, tp: 1, etp: 2, zero: 1 }\n"
        "  - { name: b, dp: 8, tp: 1, zero: 1 }\n";
    static const char moe[] =
        "schema: planeval/v1\nmodel: { preset: mixtral-8x7b, seq_len: 4096 }\n"
        "cluster:\n  nodes: 1\n  gpus_per_node: 8\n"
        "  gpu: { peak_tflops: 900, hbm_gib: 80, hbm_tb_s: 3 }\n"
        "  intra_node: { bandwidth_gb_s: 450, latency_us: 3, topology: switch }\n"
        "training: { global_batch: 64 }\n"
        "plans:\n  - { name: a, dp: 8, ep: 8, etp: 1, zero: 1 }\n";
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s;
    assert_int_equal(load_scenario_buffer("d.yaml", dense, strlen(dense), catalog, &s, &err),
                     PE_OK);
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &s.plans[0], &r);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_true(r.failed & PE_FAIL_V9);
    evaluate_plan(&ctx, &s.plans[1], &r); /* etp defaults to tp: fine */
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
    scenario_free(&s);
    assert_int_equal(load_scenario_buffer("m.yaml", moe, strlen(moe), catalog, &s, &err), PE_OK);
    pe_plan p = s.plans[0];
    p.offload_optimizer = true; /* what `--plan …-off` gives, past the loader */
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &p, &r);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_true(r.failed & PE_FAIL_V15);
    scenario_free(&s);
    catalog_free(catalog);
}

/* The middle candidate stage with MoE layers (docs/model.md §12 F20,
 * §3 A6'): Mixtral 8x7B with 12 leading dense layers on 4 stages of 2, 14, 14,
 * 2 layers. Stage 1 holds layers 2–15 (4 MoE), stage 2 layers 16–29 (14
 * MoE): the middle candidate is stage 2, with 1F1B's p − j = 2 micro-batches
 * in flight, not stage 1's 3. And with 8 dense layers on 4 even stages of 8,
 * the middle stages (8 MoE layers each) count as they do when the same split
 * is written as first/last_stage_layers 8. */
static pe_scenario load_text(pe_catalog *catalog, const char *text)
{
    pe_scenario s;
    pe_error err = {0};
    assert_int_equal(load_scenario_buffer("m.yaml", text, strlen(text), catalog, &s, &err), PE_OK);
    return s;
}

static void test_middle_stage(void **state)
{
    (void)state;
    static const char mid[] =
        "schema: planeval/v1\nfidelity: refined\n"
        "model: { preset: mixtral-8x7b, seq_len: 4096, dense_layers: 12 }\n"
        "cluster: { preset: h100-node, nodes: 4 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: a, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1, "
        "first_stage_layers: 2, last_stage_layers: 2 }\n";
    static const char even[] =
        "schema: planeval/v1\nfidelity: refined\n"
        "model: { preset: mixtral-8x7b, seq_len: 4096, dense_layers: 8 }\n"
        "cluster: { preset: h100-node, nodes: 4 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: even, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1 }\n"
        "  - { name: written, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1, first_stage_layers: 8, "
        "last_stage_layers: 8 }\n";
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, mid);
    pe_eval_ctx ctx;
    pe_result r, r2;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &s.plans[0], &r, &d);
    assert_int_equal(d.mid_stage, 2);
    assert_true(d.moe.n_moe[2] == 14.0);
    assert_true(d.k[2] == 2.0); /* 1F1B: min(p − j, m) = 4 − 2 */
    assert_int_equal(r.worst_stage, 2);
    scenario_free(&s);
    s = load_text(catalog, even);
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &s.plans[0], &r);
    evaluate_plan(&ctx, &s.plans[1], &r2);
    assert_true(r.mem_total_gib == r2.mem_total_gib && r.step_time_s == r2.step_time_s);
    assert_int_equal(r.worst_stage, r2.worst_stage);
    scenario_free(&s);
    catalog_free(catalog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_time_stage_chi),
                                       cmocka_unit_test(test_rules_without_loader),
                                       cmocka_unit_test(test_middle_stage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
