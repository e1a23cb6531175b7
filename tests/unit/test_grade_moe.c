/* test_grade_moe.c — the in-flight mistake of `planeval grade` (one
 * micro-batch on stage 0, grade.h PE_MISTAKE_INFLIGHT) on MoE plans: the
 * wrong figure is the evaluator's own detail record (A6' with the MoE
 * layers' activations, A12 in the other memory, the expert memory) taken
 * at k(0) = 1, not the dense A6 rewritten; and with uneven stages the wrong
 * model's worst stage may be a middle one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "grade/grade.h"
#include "input/catalog.h"
#include "input/load.h"
#include "model/detail.h"

/* The scenario of `text` over the built-in catalog (*catalog: to free). */
static pe_scenario load_text(pe_catalog **catalog, const char *text)
{
    pe_scenario s;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, catalog, &err), PE_OK);
    assert_int_equal(load_scenario_buffer("m.yaml", text, strlen(text), *catalog, &s, &err), PE_OK);
    return s;
}

static bool near(double a, double b) { return fx_rel(a, b, 1e-9); }

/* Mixtral 8x7B, every layer MoE, on 2 stages: stage 0's figures under the
 * mistake are its detail record's with one micro-batch in flight. */
static void test_moe_stage_zero(void **state)
{
    (void)state;
    static const char text[] =
        "schema: planeval/v1\nfidelity: refined\n"
        "model: { preset: mixtral-8x7b, seq_len: 4096 }\n"
        "cluster: { preset: h100-node, nodes: 4 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: a, dp: 16, pp: 2, ep: 8, etp: 1, zero: 1 }\n";
    pe_catalog *catalog = NULL;
    pe_scenario s = load_text(&catalog, text);
    const pe_plan *p = &s.plans[0];
    pe_result r, w;
    pe_detail d;
    fx_eval_detail(&s, p, &r, &d);
    assert_true(d.valid && d.k[0] > 1 && d.moe.n_moe[0] > 0 && d.moe.a12 > 0);
    /* the dense A6 per micro-batch is not the MoE stage's, so the test can tell */
    assert_false(near(d.a_layer * d.lps, d.a6[0] / d.k[0]));
    assert_true(grade_mistake_result(&s, p, PE_MISTAKE_INFLIGHT, 0, &w));
    assert_int_equal(w.worst_stage, 0);
    assert_true(near(w.mem_activations_gib, d.a6[0] / d.k[0] / GIB));
    const double a7 = d.a7[0] / d.k_first;
    assert_true(near(w.mem_other_gib, (d.m4 + a7 + d.a8[0] + d.moe.a12) / GIB));
    assert_true(near(w.mem_experts_gib, d.moe.mem_experts[0] / GIB));
    assert_true(near(w.mem_total_gib, (d.total[0] - d.a6[0] - d.a7[0] + d.a6[0] / d.k[0] + a7) / GIB));
    scenario_free(&s);
    catalog_free(catalog);
}

/* Mixtral 8x7B with 12 leading dense layers on stages of 2, 14, 14, 2
 * layers: the right model's worst stage is the middle stage 2, and the
 * mistake's second variant describes it (not the last stage). */
static void test_middle_stage(void **state)
{
    (void)state;
    static const char text[] =
        "schema: planeval/v1\nfidelity: refined\n"
        "model: { preset: mixtral-8x7b, seq_len: 4096, dense_layers: 12 }\n"
        "cluster: { preset: h100-node, nodes: 4 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: a, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1, "
        "first_stage_layers: 2, last_stage_layers: 2 }\n";
    pe_catalog *catalog = NULL;
    pe_scenario s = load_text(&catalog, text);
    const pe_plan *p = &s.plans[0];
    pe_result r, w;
    pe_detail d;
    fx_eval_detail(&s, p, &r, &d);
    assert_int_equal(d.stages, 3);
    assert_int_equal(r.worst_stage, 2);
    assert_true(grade_mistake_result(&s, p, PE_MISTAKE_INFLIGHT, 1, &w));
    assert_int_equal(w.worst_stage, 2);
    assert_true(near(w.mem_total_gib, d.total[2] / GIB));
    assert_true(near(w.mem_activations_gib, d.a6[2] / GIB));
    scenario_free(&s);
    catalog_free(catalog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_moe_stage_zero),
                                       cmocka_unit_test(test_middle_stage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
