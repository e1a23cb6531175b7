/* test_pipeline_layout.c — any pipeline layout (docs/model.md §1 V3″, §7
 * B2′; core/pipeline_layout.h): each stage's memory and time follow the
 * layout, against arithmetic done by hand; Megatron-Core's string and the
 * list are the same plan; a layout with v = 1 is the plan that
 * first/last_stage_layers write; the canonical text round-trips; V3″
 * refuses a canonical text whose layout does not add up. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/canonical.h"
#include "core/pipeline_layout.h"
#include "input/catalog.h"
#include "input/load.h"
#include "model/detail.h"
#include "model/evaluate.h"

/* A 6-layer GPT (h 1024, a 16, f 4096, V 32000, s 1024, gelu, layernorm,
 * biases, dropout, standard attention) on 2 or 3 GPUs at 1000 TFLOP/s,
 * e 0.5, textbook. */
#define MODEL "model: { layers: 6, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024 }\n"
#define CLUSTER(G)                                                                            \
    "cluster:\n  nodes: 1\n  gpus_per_node: " G "\n"                                         \
    "  gpu: { hbm_gib: 80, peak_tflops: 1000, hbm_tb_s: 3 }\n"                               \
    "  intra_node: { bandwidth_gb_s: 450, latency_us: 3, topology: switch }\n"

static const char TWO_STAGES[] =
    "schema: planeval/v1\nname: lay\nfidelity: textbook\n" MODEL CLUSTER("2")
    "training: { global_batch: 4 }\n"
    "plans:\n"
    "  - { name: list, dp: 1, pp: 2, schedule: interleaved, pipeline_layout: [1, 2, 2, 1] }\n"
    "  - { name: text, dp: 1, pp: 2, schedule: interleaved, pipeline_layout: \"Et|tt|tt|tL\" }\n"
    "  - { name: fs, dp: 1, pp: 2, first_stage_layers: 2 }\n"
    "  - { name: fs-layout, dp: 1, pp: 2, pipeline_layout: [2, 4] }\n";

static const char THREE_STAGES[] =
    "schema: planeval/v1\nname: lay3\nfidelity: textbook\n" MODEL CLUSTER("3")
    "training: { global_batch: 4 }\n"
    "plans:\n  - { name: p, dp: 1, pp: 3, pipeline_layout: [1, 3, 2] }\n";

static pe_scenario load_text(pe_catalog *catalog, const char *text)
{
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("lay.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("%s", err.msg);
    return s;
}

/* Two rows bit for bit: every figure a report prints (memcmp would read
 * the struct's padding). */
static void same_row(const pe_result *a, const pe_result *b)
{
    const double x[] = {a->mem_weights_gib, a->mem_grads_gib, a->mem_optimizer_gib,
                        a->mem_activations_gib, a->mem_other_gib, a->mem_total_gib,
                        a->compute_s, a->tp_comm_s, a->cp_comm_s, a->bubble_s, a->pp_comm_s,
                        a->dp_comm_s, a->optimizer_s, a->step_time_s, a->comm_fraction,
                        a->bubble_fraction, a->tokens_per_s, a->mfu, a->hfu, a->ep_comm_s};
    const double y[] = {b->mem_weights_gib, b->mem_grads_gib, b->mem_optimizer_gib,
                        b->mem_activations_gib, b->mem_other_gib, b->mem_total_gib,
                        b->compute_s, b->tp_comm_s, b->cp_comm_s, b->bubble_s, b->pp_comm_s,
                        b->dp_comm_s, b->optimizer_s, b->step_time_s, b->comm_fraction,
                        b->bubble_fraction, b->tokens_per_s, b->mfu, b->hfu, b->ep_comm_s};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (memcmp(&x[i], &y[i], sizeof x[i]) != 0)
            fail_msg("figure %zu: %.17g != %.17g", i, x[i], y[i]);
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->worst_stage, b->worst_stage);
    assert_int_equal(a->time_stage, b->time_stage);
    assert_int_equal(a->bound, b->bound);
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fabs(want)))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* pp 2, v 2, layout [1, 2, 2, 1]: virtual stage k is chunk k/2 of stage
 * k mod 2, so stage 0 holds 1 + 2 = 3 layers and stage 1 2 + 1 = 3; v = 2
 * divides neither, which V3 and V3′ refuse (6 mod 4 ≠ 0).
 *   A_layer = s·b·h·(34 + 5as/h) = 1024·1·1024·(34 + 80) = 119,537,664 B
 *   A6 stage 0: A_layer·L_0·k(0), k(0) = min(p + (p−1)/v, m) = min(2.5, 4)
 *     = 2.5 → 119,537,664·3·2.5 = 896,532,480 B
 *   A6 stage 1: k(1) = min(p − (p−1)/v, m) = 1.5 → 119,537,664·3·1.5
 *     = 537,919,488 B
 *   N_mm = h(h + 2gd) + h² + 2hf = 1024·3072 + 1024² + 2·1024·4096
 *     = 12,582,912; F_layer = 2·N_mm + 4sh = 25,165,824 + 4,194,304
 *     = 29,360,128 FLOPs per token; F_out = 2hV = 65,536,000
 *   τ_f stage 0 = b·s·L_0·F_layer/(peak·e) = 1024·3·29,360,128/5e14
 *     = 1.80388626432e-4 s
 *   τ_f stage 1 = 1024·(3·29,360,128 + 65,536,000)/5e14 = 3.14606354432e-4 s
 *   the time stage is 1; its chunks hold 2 and 1 layers: c_w = 2, v_w = 3/2
 *   B2′ = (p−1)·(τ_f + 2τ_f)/v_w = 9.43819063296e-4/1.5 = 6.29212708864e-4 s */
static void test_two_stages_by_hand(void **state)
{
    (void)state;
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, TWO_STAGES);
    assert_int_equal(s.plans[0].virtual_stages, 2); /* 4 virtual stages over pp 2 */
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &s.plans[0], &r, &d);
    assert_int_equal(r.status, PE_STATUS_OK);
    near(d.stage_layers[0], 3.0);
    near(d.stage_layers[1], 3.0);
    near(d.a_layer, 119537664.0);
    near(d.k[0], 2.5);
    near(d.k[1], 1.5);
    near(d.a6[0], 896532480.0);
    near(d.a6[1], 537919488.0);
    near(d.tau_f[0], 1.80388626432e-4);
    near(d.tau_f[1], 3.14606354432e-4);
    near(d.tau_b[1], 6.29212708864e-4);
    assert_int_equal(d.time_stage, 1);
    near(r.bubble_s, 6.29212708864e-4);
    /* the string form is the same plan, row for row */
    pe_result r2;
    evaluate_plan(&ctx, &s.plans[1], &r2);
    same_row(&r, &r2);
    scenario_free(&s);
    catalog_free(catalog);
}

/* With v = 1 a layout [2, 4] is the split first_stage_layers: 2 writes: the
 * same figures, bit for bit. */
static void test_same_as_first_stage_layers(void **state)
{
    (void)state;
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, TWO_STAGES);
    pe_eval_ctx ctx;
    pe_result a, b;
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &s.plans[2], &a);
    evaluate_plan(&ctx, &s.plans[3], &b);
    assert_int_equal(a.status, PE_STATUS_OK);
    same_row(&a, &b);
    scenario_free(&s);
    catalog_free(catalog);
}

/* pp 3, layout [1, 3, 2]: the middle candidate is stage 1, with 3 layers
 * the most of all:
 *   τ_f stage 1 = 1024·3·29,360,128/5e14 = 1.80388626432e-4 s
 *   τ_f stage 2 = 1024·(2·29,360,128 + 65,536,000)/5e14 = 2.54476812288e-4 s
 * stage 2 (the last, with the output layer) is slower: the time stage is
 * candidate 1 (stage p−1).
 * 1F1B: k(1) = min(p − 1, m) = 2 micro-batches in flight on stage 1, so
 *   A6 stage 1 = 119,537,664·3·2 = 717,225,984 B. */
static void test_middle_candidate(void **state)
{
    (void)state;
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, THREE_STAGES);
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &s.plans[0], &r, &d);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_int_equal(d.stages, 3);
    assert_int_equal(d.mid_stage, 1);
    near(d.stage_layers[0], 1.0);
    near(d.stage_layers[1], 2.0);
    near(d.stage_layers[2], 3.0);
    near(d.tau_f[2], 1.80388626432e-4);
    near(d.tau_f[1], 2.54476812288e-4);
    assert_int_equal(d.time_stage, 1);
    near(d.k[2], 2.0);
    near(d.a6[2], 717225984.0);
    scenario_free(&s);
    catalog_free(catalog);
}

/* The canonical text: -pl with runs, read back to the same layout; and a
 * text whose layout does not add up is invalid under V3″. */
static void test_canonical_and_v3(void **state)
{
    (void)state;
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, TWO_STAGES);
    char text[PE_CANON_MAX];
    canonical_write(&s.plans[0], text, sizeof text);
    assert_string_equal(text, "dp1-tp1-pp2-cp1-z0-none-mb1-interleaved-v2-sp0-pl1.2*2.1");
    pe_plan q;
    assert_int_equal(canonical_parse(text, &s.overlap, &q, &err), PE_OK);
    assert_int_equal(q.layout.count, 4);
    assert_memory_equal(q.layout.layers, s.plans[0].layout.layers, 4 * sizeof(int32_t));
    assert_int_equal(canonical_parse("dp1-tp1-pp2-cp1-z0-none-mb1-interleaved-v2-sp0-pl1.1.2.2",
                                     &s.overlap, &q, &err),
                     PE_BAD_INPUT);
    assert_string_equal(err.msg, "-pl{layout} at byte 47: a run of 1 is written once, as 1*n");
    assert_int_equal(canonical_parse("dp1-tp1-pp2-cp1-z0-none-mb1-interleaved-v2-sp0-pl1.2*2",
                                     &s.overlap, &q, &err),
                     PE_OK);
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &q, &r); /* 3 virtual stages for pp 2 x v 2 */
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_true(r.failed & PE_FAIL_V3);
    char reason[512];
    evaluate_format_reason(&ctx, &q, &r, reason, sizeof reason);
    assert_string_equal(reason, "V3: pipeline_layout: 3 virtual stages, not a multiple of pp=2");
    scenario_free(&s);
    catalog_free(catalog);
}

/* MoE layers follow the layout chunk by chunk (P9 with V3″): Mixtral 8x7B
 * (32 layers) with 12 leading dense layers.
 * (a) pp 4, v 1, [2, 14, 14, 2] is first/last_stage_layers 2: the same row,
 *     the middle candidate stage 2 with 14 MoE layers (layers 16–29).
 * (b) pp 2, v 2, [4, 12, 12, 4]: virtual stage 0 holds layers [0, 4) and
 *     2 holds [16, 28), so stage 0 has 0 + 12 = 12 MoE layers; virtual
 *     stages 1 [4, 16) and 3 [28, 32) give stage 1 4 + 4 = 8 (layers
 *     12–15 and 28–31); each stage holds 16 layers. */
static void test_moe_layers_by_chunk(void **state)
{
    (void)state;
    static const char text[] =
        "schema: planeval/v1\nfidelity: refined\n"
        "model: { preset: mixtral-8x7b, seq_len: 4096, dense_layers: 12 }\n"
        "cluster: { preset: h100-node, nodes: 4 }\ntraining: { global_batch: 64 }\n"
        "plans:\n  - { name: fs, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1, "
        "first_stage_layers: 2, last_stage_layers: 2 }\n"
        "  - { name: lay, dp: 8, pp: 4, ep: 8, etp: 1, zero: 1, pipeline_layout: [2, 14, 14, 2] }\n"
        "  - { name: v2, dp: 16, pp: 2, ep: 8, etp: 1, zero: 1, schedule: interleaved, "
        "pipeline_layout: [4, 12, 12, 4] }\n";
    pe_catalog *catalog = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &catalog, &err), PE_OK);
    pe_scenario s = load_text(catalog, text);
    pe_eval_ctx ctx;
    pe_result a, b;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &s.plans[0], &a);
    evaluate_plan_detail(&ctx, &s.plans[1], &b, &d);
    same_row(&a, &b);
    assert_int_equal(d.mid_stage, 2);
    near(d.moe.n_moe[2], 14.0);
    evaluate_plan_detail(&ctx, &s.plans[2], &b, &d);
    assert_int_not_equal(b.status, PE_STATUS_INVALID);
    near(d.stage_layers[0], 16.0);
    near(d.stage_layers[1], 16.0);
    near(d.moe.n_moe[0], 12.0);
    near(d.moe.n_moe[1], 8.0);
    scenario_free(&s);
    catalog_free(catalog);
}

/* Megatron-Core's string: groups and repeats unrolled, commas cosmetic. */
static void test_megatron_string(void **state)
{
    (void)state;
    pe_pipeline_layout lay;
    char why[200];
    assert_true(pipeline_layout_from_text("E|(t|)*126,L", &lay, why, sizeof why));
    assert_int_equal(lay.count, 128);
    assert_int_equal(lay.layers[0], 0);
    assert_int_equal(lay.layers[1], 1);
    assert_int_equal(lay.layers[126], 1);
    assert_int_equal(lay.layers[127], 0);
    assert_int_equal(pipeline_layout_stage(&lay, 16, 0), 7);
    assert_int_equal(pipeline_layout_stage(&lay, 16, 1), 8);
    assert_int_equal(pipeline_layout_stage(&lay, 16, 15), 7);
    assert_int_equal(pipeline_layout_fault(&lay, 126, 16, 8, why, sizeof why), 0);
    assert_true(pipeline_layout_from_text("Et*3|(tt|)*29,t|L", &lay, why, sizeof why));
    assert_int_equal(lay.count, 32);
    assert_int_equal(lay.layers[0], 3);
    assert_int_equal(lay.layers[30], 1);
    assert_false(pipeline_layout_from_text("Et*3|(tt|)*29,m|L", &lay, why, sizeof why));
    assert_string_equal(why, "'m' (a multi-token-prediction layer) is not modelled");
    assert_false(pipeline_layout_from_text("Et|Lt", &lay, why, sizeof why));
    assert_string_equal(why, "'L' (the loss) must close the last virtual stage, once");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_stages_by_hand),
        cmocka_unit_test(test_same_as_first_stage_layers),
        cmocka_unit_test(test_middle_candidate),
        cmocka_unit_test(test_canonical_and_v3),
        cmocka_unit_test(test_megatron_string),
        cmocka_unit_test(test_moe_layers_by_chunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
