/* test_fsdp_unsharded_grad.c — docs/model.md §12 M22: the unsharded
 * gradient of FSDP's backward working set at unsharded_grad_bytes β_ug
 * instead of grad_bytes β_g. FSDP1 with MixedPrecision(param_dtype=bf16)
 * computes it in bf16 and upcasts only the reduce-scattered shard
 * (pytorch@00ae0bc9 _runtime_utils.py _post_backward_hook), so the `fsdp`
 * preset says 2. Hand arithmetic through the loader, neutrality (0 or β_g:
 * M4 bit for bit; zero below 3: nothing), and the peak against every
 * phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "catalog_fixture.h"
#include "input/load.h"
#include "model/memory.h"

/* Llama 3 8B full fine-tune on 8 A100-80GB, s 2048, b 2, full recompute,
 * fp32 gradients (FSDP1's upcast shard), the fsdp preset with its
 * unsharded_grad_bytes replaced by ug ("" keeps the preset's). */
static pe_scenario load_fsdp(const char *ug, int zero)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "fidelity: refined\n"
             "model: { preset: llama3-8b, seq_len: 2048 }\n"
             "precision: { grad_bytes: 4 }\n"
             "cluster: { preset: a100-node, nodes: 1 }\n"
             "framework: { preset: fsdp%s%s }\n"
             "training: { global_batch: 16 }\n"
             "plans:\n  - { name: one, dp: 8, zero: %d, micro_batch: 2, recompute: full }\n",
             ug[0] ? ", unsharded_grad_bytes: " : "", ug, zero);
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("fsdp.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

static void eval_one(pe_scenario *s, pe_result *r, pe_detail *d)
{
    fx_eval_detail(s, &s->plans[0], r, d);
    assert_int_equal(r->status, PE_STATUS_OK);
    for (int k = 1; k < PE_PHASE_COUNT; k++)
        assert_true(d->peak[0] >= d->phase[0][k]);
}

/* X = max(N_layer 218,112,000, V·h = 128,256·4096 = 525,336,576) = V·h
 * (t = 1). M4 = (2·2 + 4)·X = 4,202,692,608; with β_ug = 2 (the preset)
 * W_b = (2·2 + 2)·X = 3,152,019,456: the backward phase 2X = 1,050,673,152
 * lower, the forward (W_f = 2·2·X = 2,101,346,304) unchanged. The peak is
 * the loss (A14, 12 bytes a token and entry), which M22 does not touch. */
static void test_m22_hand(void **state)
{
    (void)state;
    assert_true(mem_backward_working(4202692608.0, 2, 4, 2) == 3152019456.0);
    assert_true(mem_backward_working(4202692608.0, 2, 4, 4) == 4202692608.0);
    pe_scenario pre = load_fsdp("", 3), g4 = load_fsdp("4", 3);
    assert_true(pre.framework.unsharded_grad_bytes == 2.0);
    pe_result r2, r4;
    pe_detail d2, d4;
    eval_one(&pre, &r2, &d2);
    eval_one(&g4, &r4, &d4);
    assert_true(d4.m4 == 4202692608.0 && d4.w_bwd == 4202692608.0);
    assert_true(d2.w_bwd == 3152019456.0);
    assert_true(d2.w_fwd == 2101346304.0 && d4.w_fwd == d2.w_fwd);
    assert_abs(d4.phase[0][2] - d2.phase[0][2], 1050673152.0, 1.0);
    assert_true(d2.phase[0][1] == d4.phase[0][1] && d2.phase[0][3] == d4.phase[0][3]);
    assert_int_equal(d2.peak_phase[0], PE_PHASE_LOSS);
    assert_true(r2.mem_peak_gib == r4.mem_peak_gib);
    scenario_free(&pre);
    scenario_free(&g4);
}

/* Neutral: 0 (the default) is β_g, so 0 and 4 give the same memory bit for
 * bit; below zero 3 there is no gathered working set (M4 = 0) to change. */
static void test_m22_neutral(void **state)
{
    (void)state;
    pe_scenario z0 = load_fsdp("0", 3), z4 = load_fsdp("4", 3);
    pe_result a, b;
    pe_detail da, db;
    eval_one(&z0, &a, &da);
    eval_one(&z4, &b, &db);
    for (int k = 1; k < PE_PHASE_COUNT; k++)
        assert_true(da.phase[0][k] == db.phase[0][k]);
    scenario_free(&z0);
    scenario_free(&z4);
    pe_scenario p2 = load_fsdp("", 2), q2 = load_fsdp("4", 2);
    eval_one(&p2, &a, &da);
    eval_one(&q2, &b, &db);
    for (int k = 1; k < PE_PHASE_COUNT; k++)
        assert_true(da.phase[0][k] == db.phase[0][k]);
    scenario_free(&p2);
    scenario_free(&q2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_m22_hand),
        cmocka_unit_test(test_m22_neutral),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
