/* test_framework.c — the loader's side of docs/model.md §12: `fidelity:`,
 * `framework:` (a catalog name or {preset, keys}) with the built-in
 * frameworks.yaml, the order of overlap defaults (v1 defaults, then the
 * framework's, then the scenario's own overlap:), the GPU and link keys of
 * the refinements, and fidelity: textbook dropping all of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog_fixture.h"
#include "input/load.h"

#define HEAD                                                                       \
    "schema: planeval/v1\n"                                                        \
    "model: { layers: 96, hidden: 12288, heads: 96, vocab: 51200, seq_len: 2048 }\n" \
    "cluster: { preset: a100-node, nodes: 8 }\n"                                   \
    "training: { global_batch: 1536 }\n"                                           \
    "plans:\n  - { name: baseline, dp: 64 }\n"

static pe_scenario load(const char *extra)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", HEAD, extra);
    pe_scenario s;
    pe_error err = {0};
    const pe_status st = load_scenario_buffer("t.yaml", text, strlen(text), catalog, &s, &err);
    if (st != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

/* No fidelity: and nothing that names a refinement (no framework:, no
 * refinement key in the file's own cluster): the textbook model, exactly —
 * the a100-80gb preset's fitted numbers stay unused; the v1 overlap
 * defaults {0, 1, 1, 0}. fidelity: refined takes the preset's numbers. */
static void test_defaults(void **state)
{
    (void)state;
    pe_scenario s = load("");
    assert_int_equal(s.fidelity, PE_FIDELITY_TEXTBOOK);
    assert_true(s.refinements_unused); /* a100-node carries fitted and measured numbers */
    assert_false(s.framework.present);
    assert_true(s.overlap.tp == 0 && s.overlap.cp == 1 && s.overlap.dp == 1 && s.overlap.pp == 0);
    assert_false(s.cluster.gpu.has_gemm_efficiency);
    assert_true(s.cluster.gpu.elementwise_efficiency == 0);
    assert_true(s.cluster.intra_node.bus_efficiency == 1 && s.cluster.inter_node.bus_efficiency == 1);
    scenario_free(&s);
    s = load("fidelity: refined\n");
    assert_int_equal(s.fidelity, PE_FIDELITY_REFINED);
    assert_false(s.refinements_unused);
    assert_false(s.framework.present);
    assert_true(s.cluster.gpu.has_gemm_efficiency && s.cluster.gpu.gemm_efficiency == 0.7088);
    /* the a100-node preset's measured link efficiencies (clusters.yaml), no S_half */
    assert_true(s.cluster.intra_node.bus_efficiency == 0.78);
    assert_true(s.cluster.inter_node.bus_efficiency == 0.96);
    assert_true(s.cluster.inter_node.half_message_mb == 0);
    scenario_free(&s);
}

/* What names a refinement without fidelity:: a framework:, or a refinement
 * key in the file's own cluster.gpu, intra_node or inter_node. */
static void test_named_refinement(void **state)
{
    (void)state;
    pe_scenario s = load("framework: megatron-core\n");
    assert_int_equal(s.fidelity, PE_FIDELITY_REFINED);
    assert_true(s.cluster.gpu.has_gemm_efficiency && s.cluster.gpu.gemm_efficiency == 0.7088);
    scenario_free(&s);
    const char *const named[] = {
        "cluster: { preset: a100-node, nodes: 8, gpu: { elementwise_efficiency: 0.5 } }\n",
        "cluster: { preset: a100-node, nodes: 8, intra_node: { bus_efficiency: 0.8 } }\n",
        "cluster: { preset: a100-node, nodes: 8, inter_node: { half_message_mb: 2 } }\n"};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "schema: planeval/v1\n"
                 "model: { layers: 96, hidden: 12288, heads: 96, vocab: 51200, seq_len: 2048 }\n"
                 "%straining: { global_batch: 1536 }\nplans:\n  - { name: baseline, dp: 64 }\n",
                 named[i]);
        pe_error err = {0};
        assert_int_equal(load_scenario_buffer("t.yaml", text, strlen(text), catalog, &s, &err),
                         PE_OK);
        assert_int_equal(s.fidelity, PE_FIDELITY_REFINED);
        assert_true(s.cluster.gpu.has_gemm_efficiency); /* the preset's numbers apply */
        scenario_free(&s);
    }
}

/* framework: megatron-core (frameworks.yaml): overlap {tp 0, dp 0, pp 0},
 * cp keeps its default 1; scatter/gather on, NCCL's flat ring, 80 MB. The
 * scenario's overlap: {dp: 0.5} then overrides dp only. */
static void test_preset_and_override(void **state)
{
    (void)state;
    pe_scenario s = load("framework: megatron-core\n");
    assert_true(s.framework.present);
    assert_string_equal(s.framework.name, "megatron-core");
    assert_true(s.framework.pp_scatter_gather);
    assert_int_equal(s.framework.dp_algorithm, PE_DP_FLAT);
    assert_true(s.framework.dp_bucket_mb == 80);
    assert_true(s.overlap.tp == 0 && s.overlap.cp == 1 && s.overlap.dp == 0 && s.overlap.pp == 0);
    /* X13 on, F21 fused (0), X14 50 bytes (frameworks.yaml) */
    assert_true(s.framework.tp_async_backward);
    assert_true(s.framework.grad_accum_bytes == 0 && s.framework.optimizer_pass_bytes == 50);
    assert_true(s.framework.bubble_by_stage); /* B5 */
    scenario_free(&s);
    /* Megatron-LM of 2021: no X13, fp16 accumulation 6 bytes, fp16 step 58 */
    s = load("framework: megatron-lm-2021\n");
    assert_false(s.framework.tp_async_backward);
    assert_true(s.framework.grad_accum_bytes == 6 && s.framework.optimizer_pass_bytes == 58);
    assert_true(s.framework.pp_scatter_gather && s.overlap.dp == 0);
    assert_true(s.framework.bubble_by_stage);
    scenario_free(&s);
    s = load("framework: fsdp\n"); /* no pipeline schedule: B5 stays off */
    assert_false(s.framework.bubble_by_stage);
    scenario_free(&s);
    s = load("framework: { preset: megatron-core, tp_async_backward: false, grad_accum_bytes: 10 }\n");
    assert_false(s.framework.tp_async_backward); /* the file's keys win */
    assert_true(s.framework.grad_accum_bytes == 10 && s.framework.optimizer_pass_bytes == 50);
    scenario_free(&s);
    s = load("framework: { preset: deepspeed, dp_bucket_mb: 200, overlap: { tp: 0.25 } }\n"
             "overlap: { dp: 0.5 }\n");
    assert_int_equal(s.framework.dp_algorithm, PE_DP_FLAT); /* from the preset */
    assert_true(s.framework.dp_bucket_mb == 200);           /* the file's key wins */
    assert_true(s.overlap.tp == 0.25 && s.overlap.dp == 0.5 && s.overlap.pp == 0);
    scenario_free(&s);
    s = load("framework: { comm_slowdown: 0.1 }\n"); /* keys without a preset */
    assert_true(s.framework.present && s.framework.name[0] == '\0');
    assert_true(s.framework.comm_slowdown == 0.1 && !s.framework.pp_scatter_gather);
    scenario_free(&s);
}

/* fidelity: textbook: the framework (and its overlap) is read but has no
 * effect; the GPU's and links' refinement keys go back to neutral, even
 * the ones the file itself gives; the scenario's own overlap: stays. */
static void test_textbook(void **state)
{
    (void)state;
    pe_scenario s = load("fidelity: textbook\nframework: nemo\noverlap: { cp: 0.5 }\n");
    assert_int_equal(s.fidelity, PE_FIDELITY_TEXTBOOK);
    assert_false(s.framework.present);
    assert_true(s.overlap.tp == 0 && s.overlap.cp == 0.5 && s.overlap.dp == 1 && s.overlap.pp == 0);
    assert_false(s.cluster.gpu.has_gemm_efficiency);
    assert_true(s.cluster.gpu.elementwise_efficiency == 0 && s.cluster.gpu.gemm_half_gflop == 0);
    assert_true(s.cluster.intra_node.bus_efficiency == 1 && s.cluster.inter_node.bus_efficiency == 1);
    scenario_free(&s);
    s = load("fidelity: textbook\n");
    assert_true(s.cluster.gpu.flops_efficiency == 0.5); /* v1's default e stays */
    assert_false(s.refinements_unused); /* asked for: no note */
    scenario_free(&s);
}

/* The link keys load into both tiers (C8). */
static void test_link_keys(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "model: { layers: 96, hidden: 12288, heads: 96, vocab: 51200, seq_len: 2048 }\n"
             "cluster:\n  nodes: 8\n  gpus_per_node: 8\n"
             "  gpu: { hbm_gib: 80, peak_tflops: 312, hbm_tb_s: 2, gemm_efficiency: 0.7, "
             "gemm_half_gflop: 2, attention_efficiency: 0.5, elementwise_efficiency: 0.6, "
             "microbatch_overhead_us: 30 }\n"
             "  intra_node: { topology: switch, bandwidth_gb_s: 300, latency_us: 2, "
             "bus_efficiency: 0.8, half_message_mb: 1 }\n"
             "  inter_node: { nic_gb_s: 25, latency_us: 5, bus_efficiency: 0.9, half_message_mb: 4 }\n"
             "training: { global_batch: 1536 }\nplans:\n  - { name: baseline, dp: 64 }\n");
    pe_scenario s;
    pe_error err = {0};
    assert_int_equal(load_scenario_buffer("t.yaml", text, strlen(text), catalog, &s, &err), PE_OK);
    const pe_gpu *g = &s.cluster.gpu;
    assert_true(g->gemm_efficiency == 0.7 && g->gemm_half_gflop == 2 && g->attention_efficiency == 0.5);
    assert_true(g->elementwise_efficiency == 0.6 && g->microbatch_overhead_us == 30);
    assert_true(s.cluster.intra_node.bus_efficiency == 0.8 && s.cluster.intra_node.half_message_mb == 1);
    assert_true(s.cluster.inter_node.bus_efficiency == 0.9 && s.cluster.inter_node.half_message_mb == 4);
    assert_false(s.refinements_unused); /* refined: the file names them */
    scenario_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_named_refinement),
        cmocka_unit_test(test_preset_and_override),
        cmocka_unit_test(test_textbook),
        cmocka_unit_test(test_link_keys),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
