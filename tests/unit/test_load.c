/* test_load.c — the scenario loader: defaults (docs/model.md §0), presets merged
 * key by key (docs/scenarios.md "Presets and the catalog"), plans, sweep and expect parsing, and
 * the exact text of several refusals (docs/scenarios.md "Loading rules"). More
 * refusals, one file each, are in tests/bad/ (tests/test_bad_inputs.sh).
 * Runs from the source directory (CTest's WORKING_DIRECTORY). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "input/catalog.h"
#include "core/fields.h"
#include "input/load.h"
#include "input/yamlutil.h"

#define FIXTURE "tests/unit/catalog_fixture"

static pe_catalog *catalog;

static int setup(void **state)
{
    (void)state;
    pe_error err = {0};
    if (catalog_open(FIXTURE, &catalog, &err) != PE_OK) {
        char buf[2048];
        pe_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    catalog_free(catalog);
    return 0;
}

/* A valid scenario; tests append to it or replace parts of it. */
#define HEAD "schema: planeval/v1\n"
#define MODEL                                                                                  \
    "model:\n"                                                                                 \
    "  layers: 96\n"                                                                           \
    "  hidden: 12288\n"                                                                        \
    "  heads: 96\n"                                                                            \
    "  vocab: 51200\n"                                                                         \
    "  seq_len: 2048\n"
#define CLUSTER                                                                                \
    "cluster:\n"                                                                               \
    "  nodes: 8\n"                                                                             \
    "  gpus_per_node: 8\n"                                                                     \
    "  gpu: {hbm_gib: 192, peak_tflops: 1307.4, hbm_tb_s: 5.3}\n"                              \
    "  intra_node: {topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2}\n"            \
    "  inter_node: {nic_gb_s: 50, latency_us: 5}\n"
#define TRAINING "training:\n  global_batch: 1536\n"
#define PLANS "plans:\n  - name: baseline\n    dp: 64\n"
#define BASE HEAD MODEL CLUSTER TRAINING

static pe_status load_text(const char *text, pe_scenario *s, pe_error *err)
{
    memset(err, 0, sizeof *err);
    return load_scenario_buffer("dir/t.yaml", text, strlen(text), catalog, s, err);
}

static void assert_loads(const char *text, pe_scenario *s)
{
    pe_error err;
    pe_status st = load_text(text, s, &err);
    if (st != PE_OK) {
        char buf[2048];
        pe_error_format(&err, buf, sizeof buf);
        fail_msg("unexpected error: %s", buf);
    }
}

static void assert_refused(const char *text, const char *expected)
{
    pe_scenario s;
    pe_error err;
    pe_status st = load_text(text, &s, &err);
    assert_int_equal(st, PE_BAD_INPUT);
    char buf[2048];
    pe_error_format(&err, buf, sizeof buf);
    assert_string_equal(buf, expected);
    assert_string_equal(err.more, ""); /* one mistake, one error: no follow-on errors */
    /* a refused file leaves the output zeroed */
    assert_null(s.plans);
    assert_int_equal(s.plan_count, 0);
    assert_null(s.description);
}

/* ------------------------------------------------------------ defaults */

static void test_defaults(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE PLANS
                 "  - {dp: 8, tp: 8}\n"
                 "  - {dp: 64, tp: 1, sequence_parallel: true}\n"
                 "  - {dp: 8, tp: 8, sequence_parallel: false}\n",
                 &s);
    assert_string_equal(s.name, "t"); /* the file stem */
    assert_string_equal(s.file, "dir/t.yaml");
    assert_null(s.description);
    /* docs/model.md §0 */
    assert_int_equal(s.model.kv_heads, 96);
    assert_int_equal(s.model.ffn_hidden, 4 * 12288);
    assert_int_equal(s.model.mlp, PE_MLP_GELU);
    assert_int_equal(s.model.norm, PE_NORM_LAYERNORM);
    assert_true(s.model.bias);
    assert_true(s.model.dropout);
    assert_false(s.model.tied_embeddings);
    assert_int_equal(s.model.position, PE_POSITION_LEARNED);
    assert_int_equal(s.model.attention, PE_ATTENTION_STANDARD);
    assert_false(s.model.causal_flops);
    assert_false(s.model.has_params);
    assert_true(s.precision.param_bytes == 2);
    assert_true(s.precision.grad_bytes == 2);
    assert_true(s.precision.optimizer_bytes == 12);
    assert_true(s.cluster.gpu.flops_efficiency == 0.5);
    assert_true(s.cluster.reserve_gib == 10);
    assert_false(s.cluster.allow_cross_node_tp);
    assert_true(s.cluster.intra_node.present);
    assert_int_equal(s.cluster.intra_node.topology, PE_TOPOLOGY_FULL_MESH);
    assert_int_equal(s.cluster.intra_node.links, 7);
    assert_true(s.cluster.inter_node.present);
    assert_true(s.cluster.inter_node.nic_gb_s == 50);
    assert_false(s.training.has_tokens);
    assert_false(s.budgets.has_memory_gib || s.budgets.has_step_time_s ||
                 s.budgets.has_train_days || s.budgets.has_min_mfu);
    assert_true(s.overlap.tp == 0 && s.overlap.cp == 1 && s.overlap.dp == 1 && s.overlap.pp == 0);
    assert_int_equal(s.rank_by, PE_RANK_STEP_TIME);
    assert_false(s.sweep.present);
    assert_int_equal(s.expect_count, 0);
    /* plans: docs/scenarios.md "Plans" */
    assert_int_equal(s.plan_count, 4);
    const pe_plan *p = &s.plans[0];
    assert_string_equal(p->name, "baseline");
    assert_int_equal(p->dp, 64);
    assert_int_equal(p->tp, 1);
    assert_int_equal(p->pp, 1);
    assert_int_equal(p->cp, 1);
    assert_int_equal(p->zero, 0);
    assert_int_equal(p->recompute, PE_RECOMPUTE_NONE);
    assert_int_equal(p->micro_batch, 1);
    assert_int_equal(p->schedule, PE_SCHEDULE_1F1B);
    assert_int_equal(p->virtual_stages, 1);
    assert_false(p->sequence_parallel);
    assert_true(p->overlap.cp == 1 && p->overlap.dp == 1);
    assert_int_equal(p->line, 17);
    assert_int_equal(p->col, 5);
    assert_string_equal(s.plans[1].name, ""); /* unnamed */
    assert_true(s.plans[1].sequence_parallel);  /* default tp > 1 */
    assert_false(s.plans[2].sequence_parallel); /* forced false when tp = 1 */
    assert_false(s.plans[3].sequence_parallel); /* given */
    scenario_free(&s);
    assert_null(s.plans);
}

static void test_all_keys(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(HEAD "name: my.scenario-1_b\n"
                      "description: |\n  two\n  lines\n"
                      "model:\n"
                      "  layers: 80\n  hidden: 8192\n  heads: 64\n  kv_heads: 8\n"
                      "  ffn_hidden: 28672\n  vocab: 32000\n  seq_len: 4096\n  mlp: swiglu\n"
                      "  norm: rmsnorm\n  bias: false\n  dropout: False\n"
                      "  tied_embeddings: TRUE\n  position: rotary\n  attention: flash\n"
                      "  causal_flops: true\n  params: 70e9\n"
                      "precision: {param_bytes: 2, grad_bytes: 4, optimizer_bytes: 0}\n"
                      "cluster:\n  nodes: 1\n  gpus_per_node: 1\n  allow_cross_node_tp: true\n"
                      "  reserve_gib: 0\n"
                      "  gpu: {hbm_gib: 80, peak_tflops: 989, hbm_tb_s: 3.35, "
                      "flops_efficiency: 1}\n"
                      "training: {global_batch: 1, tokens: 1.5e12}\n"
                      "budgets: {memory_gib: 70, step_time_s: 1.5, train_days: 30, "
                      "min_mfu: 0.4}\n"
                      "overlap: {tp: 0.5, cp: 0, dp: 0.25, pp: 1}\n"
                      "rank_by: train_days\n"
                      "plans:\n  - name: \"quoted name with spaces\"\n    dp: 1\n"
                      "    overlap: {dp: 0.75}\n"
                      "    zero: 3\n    recompute: full\n    micro_batch: 4\n"
                      "    schedule: zb-h2\n    virtual_stages: 2\n",
                 &s);
    assert_string_equal(s.name, "my.scenario-1_b");
    assert_string_equal(s.description, "two\nlines\n");
    assert_int_equal(s.model.kv_heads, 8);
    assert_int_equal(s.model.ffn_hidden, 28672);
    assert_int_equal(s.model.mlp, PE_MLP_SWIGLU);
    assert_int_equal(s.model.norm, PE_NORM_RMSNORM);
    assert_false(s.model.bias);
    assert_false(s.model.dropout);
    assert_true(s.model.tied_embeddings);
    assert_int_equal(s.model.position, PE_POSITION_ROTARY);
    assert_int_equal(s.model.attention, PE_ATTENTION_FLASH);
    assert_true(s.model.causal_flops);
    assert_true(s.model.has_params && s.model.params == 70e9);
    assert_true(s.precision.grad_bytes == 4 && s.precision.optimizer_bytes == 0);
    assert_true(s.cluster.allow_cross_node_tp);
    assert_true(s.cluster.reserve_gib == 0);
    assert_true(s.cluster.gpu.flops_efficiency == 1);
    /* one GPU: neither intra_node nor inter_node is needed */
    assert_false(s.cluster.intra_node.present);
    assert_false(s.cluster.inter_node.present);
    assert_true(s.training.has_tokens && s.training.tokens == 1.5e12);
    assert_true(s.budgets.has_memory_gib && s.budgets.memory_gib == 70);
    assert_true(s.budgets.has_step_time_s && s.budgets.step_time_s == 1.5);
    assert_true(s.budgets.has_train_days && s.budgets.train_days == 30);
    assert_true(s.budgets.has_min_mfu && s.budgets.min_mfu == 0.4);
    assert_int_equal(s.rank_by, PE_RANK_TRAIN_DAYS);
    const pe_plan *p = &s.plans[0];
    assert_string_equal(p->name, "quoted name with spaces");
    /* per-plan overlap merged key by key over the scenario's */
    assert_true(p->overlap.tp == 0.5 && p->overlap.cp == 0 && p->overlap.dp == 0.75 &&
                p->overlap.pp == 1);
    assert_int_equal(p->zero, 3);
    assert_int_equal(p->recompute, PE_RECOMPUTE_FULL);
    assert_int_equal(p->micro_batch, 4);
    assert_int_equal(p->schedule, PE_SCHEDULE_ZB_H2);
    assert_int_equal(p->virtual_stages, 2);
    scenario_free(&s);
}

static void test_dp_auto(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE "plans:\n  - {dp: auto, tp: 8, pp: 2}\n  - {dp: auto}\n", &s);
    assert_int_equal(s.plans[0].dp, 4);
    assert_int_equal(s.plans[1].dp, 64);
    scenario_free(&s);
    assert_refused(BASE "plans:\n  - {dp: auto, tp: 128}\n",
                   "dir/t.yaml:17:10: error: plans[0].dp: auto needs N/(tp*pp*cp) to be whole, "
                   "but N = 64 GPUs and tp*pp*cp = 128*1*1");
}

/* V1–V8 are not load errors: such plans are reported as invalid later. */
static void test_rule_violations_load(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE "plans:\n  - {dp: 3, tp: 5, pp: 7, cp: 3, micro_batch: 1000, "
                      "schedule: interleaved, virtual_stages: 1}\n",
                 &s);
    assert_int_equal(s.plans[0].tp, 5);
    scenario_free(&s);
}

/* ------------------------------------------------------------ presets */

static void test_presets(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(HEAD "model:\n  preset: tiny\n  hidden: 128\n"
                      "cluster:\n  preset: tinynode\n  nodes: 2\n"
                      "  gpu: {hbm_tb_s: 1.5}\n"
                      "  intra_node: {latency_us: 3}\n" TRAINING PLANS,
                 &s);
    /* model: the preset's keys, the file's override */
    assert_int_equal(s.model.layers, 4);
    assert_int_equal(s.model.hidden, 128);
    assert_int_equal(s.model.ffn_hidden, 512); /* 4h of the merged h */
    assert_int_equal(s.model.mlp, PE_MLP_SWIGLU);
    assert_int_equal(s.model.norm, PE_NORM_RMSNORM);
    assert_true(s.model.bias); /* default, not in the preset */
    /* cluster preset → gpu preset (overridden by b-override.yaml) → the
     * cluster preset's gpu keys → the file's gpu keys */
    assert_int_equal(s.cluster.nodes, 2);
    assert_int_equal(s.cluster.gpus_per_node, 4);
    assert_true(s.cluster.reserve_gib == 2);
    assert_true(s.cluster.gpu.hbm_gib == 32);
    assert_true(s.cluster.gpu.peak_tflops == 100);
    assert_true(s.cluster.gpu.hbm_tb_s == 1.5);
    assert_true(s.cluster.gpu.flops_efficiency == 0.4);
    /* nested mappings merge key by key */
    assert_int_equal(s.cluster.intra_node.topology, PE_TOPOLOGY_FULL_MESH);
    assert_int_equal(s.cluster.intra_node.links, 3);
    assert_true(s.cluster.intra_node.latency_us == 3);
    assert_true(s.cluster.inter_node.nic_gb_s == 25);
    scenario_free(&s);

    /* the file names another gpu preset; changing the topology drops the
     * preset's full_mesh keys */
    assert_loads(HEAD "model: {preset: tiny-tied}\n"
                      "cluster:\n  preset: tinynode\n  nodes: 1\n"
                      "  gpu: {preset: othergpu}\n"
                      "  intra_node: {topology: switch, bandwidth_gb_s: 100}\n" TRAINING PLANS,
                 &s);
    assert_true(s.model.tied_embeddings);
    assert_true(s.cluster.gpu.hbm_gib == 64);
    assert_true(s.cluster.gpu.flops_efficiency == 0.4); /* cluster preset's gpu key */
    assert_int_equal(s.cluster.intra_node.topology, PE_TOPOLOGY_SWITCH);
    assert_true(s.cluster.intra_node.bandwidth_gb_s == 100);
    assert_true(s.cluster.intra_node.latency_us == 1);
    assert_int_equal(s.cluster.intra_node.links, 0);
    scenario_free(&s);

    assert_refused(HEAD "model:\n  preset: tiy\n" CLUSTER TRAINING PLANS,
                   "dir/t.yaml:3:11: error: model.preset: unknown model preset 'tiy' (did you "
                   "mean 'tiny'?)");
    assert_refused(HEAD MODEL "cluster:\n  preset: tinynode\n  gpus_per_node: 1\n" TRAINING PLANS,
                   "dir/t.yaml:9:3: error: missing required key 'nodes' in cluster");
    assert_refused(HEAD MODEL
                   "cluster:\n  preset: tinynode\n  nodes: 1\n  intra_node: {topology: switch}\n"
                   TRAINING PLANS,
                   "dir/t.yaml:11:15: error: missing required key 'bandwidth_gb_s' in "
                   "cluster.intra_node (topology switch needs bandwidth_gb_s)");
    assert_refused(HEAD MODEL
                   "cluster:\n  preset: tinynode\n  nodes: 1\n"
                   "  intra_node: {bandwidth_gb_s: 4}\n" TRAINING PLANS,
                   "dir/t.yaml:11:16: error: 'bandwidth_gb_s' is a key of topology switch, but "
                   "cluster.intra_node.topology is full_mesh");
}

static void test_preset_without_catalog(void **state)
{
    (void)state;
    pe_scenario s;
    pe_error err = {0};
    const char *text = HEAD "model: {preset: tiny}\n" CLUSTER TRAINING PLANS;
    assert_int_equal(load_scenario_buffer("u.yaml", text, strlen(text), NULL, &s, &err),
                     PE_BAD_INPUT);
    assert_string_equal(err.msg, "model.preset: unknown model preset 'tiny' (the catalog has no "
                                 "models)");
}

/* ------------------------------------------------------------ sweep */

static void test_sweep(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE "sweep:\n"
                      "  tp: [1, 2, 4, 8]\n"
                      "  pp: auto\n"
                      "  dp: auto\n"
                      "  zero: 3\n"
                      "  recompute: [none, full]\n"
                      "  micro_batch: auto\n"
                      "  schedule: [1f1b, interleaved]\n"
                      "  virtual_stages: [1, 2]\n"
                      "  sequence_parallel: [false, true]\n",
                 &s);
    const pe_sweep *w = &s.sweep;
    assert_true(w->present);
    assert_int_equal(w->line, 17);
    assert_true(w->tp.present && !w->tp.is_auto);
    assert_int_equal(w->tp.count, 4);
    assert_int_equal(w->tp.values[3], 8);
    assert_int_equal(w->tp.line, 17);
    assert_int_equal(w->tp.col, 7);
    assert_true(w->pp.present && w->pp.is_auto && w->pp.count == 0);
    assert_true(w->dp.is_auto);
    assert_false(w->cp.present);
    assert_int_equal(w->zero.count, 1); /* a single value is a list of one */
    assert_int_equal(w->zero.values[0], 3);
    assert_int_equal(w->recompute.count, 2);
    assert_int_equal(w->recompute.values[1], PE_RECOMPUTE_FULL);
    assert_true(w->micro_batch.is_auto);
    assert_int_equal(w->schedule.values[1], PE_SCHEDULE_INTERLEAVED);
    assert_int_equal(w->virtual_stages.values[1], 2);
    assert_int_equal(w->sequence_parallel.count, 2);
    assert_int_equal(w->sequence_parallel.values[0], 0);
    assert_int_equal(w->sequence_parallel.values[1], 1);
    assert_int_equal(s.plan_count, 0); /* a sweep alone is enough */
    scenario_free(&s);

    assert_refused(BASE "sweep:\n  dp: auto\n  schedule: interleaved\n  virtual_stages: 1\n",
                   "dir/t.yaml:18:13: error: sweep.schedule lists interleaved, but "
                   "sweep.virtual_stages gives no value >= 2 (interleaved needs virtual_stages "
                   ">= 2)");
    assert_loads(BASE "sweep:\n  dp: auto\n  schedule: interleaved\n  virtual_stages: auto\n",
                 &s);
    scenario_free(&s);
    assert_refused(BASE "sweep:\n  dp: auto\n  tp: [1, 0]\n",
                   "dir/t.yaml:18:11: error: sweep.tp[1] must be a whole number >= 1, got 0");
    assert_refused(BASE "sweep:\n  dp: auto\n  recompute: [none, partial]\n",
                   "dir/t.yaml:18:21: error: sweep.recompute[1]: unknown value 'partial'; "
                   "expected one of none, selective, full");
    assert_refused(BASE "sweep:\n  dp: auto\n  tp: {a: 1}\n",
                   "dir/t.yaml:18:7: error: sweep.tp: expected a list or a single value, got a "
                   "mapping");
    assert_refused(BASE "sweep:\n  dp: auto\n  name: x\n",
                   "dir/t.yaml:18:3: error: sweep cannot vary 'name' (a sweep takes the plan "
                   "keys except name)");
    assert_refused(BASE "sweep:\n  dp: auto\n  tq: 1\n",
                   "dir/t.yaml:18:3: error: unknown key 'tq' in sweep (did you mean 'tp'?)");
}

/* ------------------------------------------------------------ expect */

static void test_expect(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE PLANS "  - {dp: 8, tp: 8}\n"
                            "sweep: {dp: auto, tp: [1, 2]}\n"
                            "expect:\n"
                            "  - best_plan: baseline\n"
                            "  - plan: baseline\n"
                            "    status: ok\n"
                            "    sequence_parallel: false\n"
                            "    mem_total_gib: {value: 137.9, rel_tol: 0.01}\n"
                            "    step_time_s: {value: 145, abs_tol: 2}\n"
                            "    mfu: 0.5\n"
                            "    dp: {value: 64}\n"
                            "    reason: \"\"\n"
                            "  - plan: dp8-tp8-pp1-cp1-z0-none-mb1-1f1b-v1-sp1\n"
                            "  - best_plan: dp32-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1\n",
                 &s);
    assert_int_equal(s.expect_count, 4);
    const pe_expect *e = &s.expects[0];
    assert_int_equal(e->kind, PE_EXPECT_BEST_PLAN);
    assert_string_equal(e->plan, "baseline");
    assert_int_equal(e->check_count, 0);
    e = &s.expects[1];
    assert_int_equal(e->kind, PE_EXPECT_PLAN);
    assert_int_equal(e->line, 23);
    assert_int_equal(e->check_count, 7);
    assert_string_equal(e->checks[0].column, "status");
    assert_true(e->checks[0].is_text);
    assert_string_equal(e->checks[0].text, "ok");
    assert_string_equal(e->checks[1].column, "sequence_parallel");
    assert_true(e->checks[1].is_text);
    assert_string_equal(e->checks[1].text, "false");
    assert_string_equal(e->checks[2].column, "mem_total_gib");
    assert_false(e->checks[2].is_text);
    assert_true(e->checks[2].value == 137.9);
    assert_int_equal(e->checks[2].tol_kind, PE_TOL_REL);
    assert_true(e->checks[2].tol == 0.01);
    assert_int_equal(e->checks[3].tol_kind, PE_TOL_ABS);
    assert_true(e->checks[3].tol == 2 && e->checks[3].value == 145);
    assert_int_equal(e->checks[4].tol_kind, PE_TOL_EXACT);
    assert_true(e->checks[4].value == 0.5);
    assert_int_equal(e->checks[5].tol_kind, PE_TOL_EXACT);
    assert_true(e->checks[5].value == 64);
    assert_string_equal(e->checks[6].text, "");
    assert_int_equal(e->checks[6].line, 30);
    assert_int_equal(e->checks[6].col, 5);
    /* an explicit plan's canonical text; a sweep plan's canonical text */
    assert_string_equal(s.expects[2].plan, "dp8-tp8-pp1-cp1-z0-none-mb1-1f1b-v1-sp1");
    assert_string_equal(s.expects[3].plan, "dp32-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1");
    scenario_free(&s);

    /* without a sweep, a canonical text must be an explicit plan's */
    assert_refused(BASE PLANS "expect:\n  - best_plan: dp32-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1\n",
                   "dir/t.yaml:20:16: error: expect[0].best_plan: no plan named "
                   "'dp32-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1' (no explicit plan has that "
                   "canonical text, and there is no sweep)");
    /* with a sweep, a text that is not canonical is still no plan, and a
     * text that begins as one says what is wrong with it */
    assert_refused(BASE PLANS "sweep: {dp: auto}\nexpect:\n  - plan: dp32-tp2\n    mfu: 1\n",
                   "dir/t.yaml:21:11: error: expect[0].plan: no plan named 'dp32-tp2' (as a "
                   "canonical text: expected -pp{pp} at byte 9, found the end of the text)");
    /* sequence parallelism is off at tp = 1: no plan has sp1 with tp1 */
    assert_refused(BASE PLANS "sweep: {dp: auto}\nexpect:\n"
                              "  - plan: dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp1\n    mfu: 1\n",
                   "dir/t.yaml:21:11: error: expect[0].plan: no plan named "
                   "'dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp1' (as a canonical text: sp1 with "
                   "tp1: sequence parallelism needs tp > 1 (a plan with tp = 1 has it off: write "
                   "sp0))");
    assert_refused(BASE PLANS "expect:\n  - plan: baseline\n    scenario: t\n",
                   "dir/t.yaml:21:5: error: expect[0].scenario: the scenario column cannot be "
                   "checked (expect takes any report column except plan and scenario)");
    assert_refused(BASE PLANS "expect:\n  - plan: baseline\n    mfu: {value: 1, reltol: 2}\n",
                   "dir/t.yaml:21:21: error: unknown key 'reltol' in expect[0].mfu (did you mean "
                   "'rel_tol'?)");
    assert_refused(BASE PLANS "expect:\n  - plan: baseline\n    mfu: {rel_tol: 2}\n",
                   "dir/t.yaml:21:10: error: missing required key 'value' in expect[0].mfu");
    assert_refused(BASE PLANS "expect:\n  - plan: baseline\n    mfu: high\n",
                   "dir/t.yaml:21:10: error: expect[0].mfu: expected a number, got \"high\"");
    assert_refused(BASE PLANS "expect:\n  - {status: ok}\n",
                   "dir/t.yaml:20:5: error: expect[0]: needs plan: NAME (with report columns to "
                   "check) or best_plan: NAME");
    assert_refused(BASE PLANS "expect:\n  - {plan: baseline, best_plan: baseline}\n",
                   "dir/t.yaml:20:22: error: expect[0]: give plan: or best_plan:, not both");
}

/* ------------------------------------------------------------ refusals */

static void test_typing(void **state)
{
    (void)state;
    pe_scenario s;
    /* YAML 1.2 core: 175e9 is a number; -0 and +5 are integers */
    assert_loads(HEAD "model:\n  layers: +96\n  hidden: 12288\n  heads: 96\n  vocab: 51200\n"
                      "  seq_len: 2048\n  params: 175e9\n" CLUSTER TRAINING
                      "overlap: {tp: -0, cp: .5, dp: 1., pp: 0.0e0}\n" PLANS,
                 &s);
    assert_int_equal(s.model.layers, 96);
    assert_true(s.model.params == 175e9);
    assert_true(s.overlap.cp == 0.5 && s.overlap.dp == 1);
    scenario_free(&s);
    /* anchors and aliases of whole values are fine */
    assert_loads(HEAD MODEL CLUSTER TRAINING "overlap: &o {tp: 0.5}\n"
                                             "plans:\n  - {dp: 64, overlap: *o}\n",
                 &s);
    assert_true(s.plans[0].overlap.tp == 0.5);
    scenario_free(&s);

    assert_refused(BASE "plans:\n  - {dp: 64, tp: 1.0}\n",
                   "dir/t.yaml:17:18: error: plans[0].tp: expected an integer, got \"1.0\"");
    assert_refused(BASE "plans:\n  - {dp: 64, sequence_parallel: \"true\"}\n",
                   "dir/t.yaml:17:33: error: plans[0].sequence_parallel: expected true or false, "
                   "got the string \"true\"");
    assert_refused(BASE "plans:\n  - {dp: 64, sequence_parallel: 1}\n",
                   "dir/t.yaml:17:33: error: plans[0].sequence_parallel: expected true or false, "
                   "got \"1\"");
    assert_refused(BASE "plans:\n  - {dp: 64, recompute: null}\n",
                   "dir/t.yaml:17:25: error: plans[0].recompute: expected one of none, "
                   "selective, full, got null");
    /* YAML 1.1's y/n/yes/no/on/off are strings in YAML 1.2: wrong where a
     * number is expected, refused with a hint where a boolean is */
    assert_refused(BASE "plans:\n  - {dp: 64, tp: n}\n",
                   "dir/t.yaml:17:18: error: plans[0].tp: expected an integer, got \"n\"");
    assert_refused(BASE "plans:\n  - {dp: 64, tp: 2, sequence_parallel: on}\n",
                   "dir/t.yaml:17:40: error: plans[0].sequence_parallel: \"on\" is not a boolean "
                   "in YAML 1.2: write true");
    assert_refused(BASE "plans:\n  - {dp: 64, tp: 2, sequence_parallel: N}\n",
                   "dir/t.yaml:17:40: error: plans[0].sequence_parallel: \"N\" is not a boolean "
                   "in YAML 1.2: write false");
    assert_refused(BASE "description: 12:30\n" PLANS,
                   "dir/t.yaml:16:14: error: description: \"12:30\" is a YAML 1.1 base-60 "
                   "number: quote it if you mean the text");
    assert_refused(BASE "description: 3\n" PLANS,
                   "dir/t.yaml:16:14: error: description: expected a string, got \"3\"");
    assert_refused(BASE "overlap: {tp: 1e999}\n" PLANS,
                   "dir/t.yaml:16:15: error: overlap.tp: 1e999 is too large for a number");
    assert_refused(BASE "plans:\n  - {dp: 64, zero: -1}\n",
                   "dir/t.yaml:17:20: error: plans[0].zero must be a whole number from 0 to 3, "
                   "got -1");
    assert_refused(BASE "budgets: {min_mfu: 0}\n" PLANS,
                   "dir/t.yaml:16:20: error: budgets.min_mfu must be a number from 0.001 to 1, got 0");
    assert_refused(HEAD MODEL CLUSTER "training:\n  global_batch: 1536\n  tokens: 0\n" PLANS,
                   "dir/t.yaml:16:11: error: training.tokens must be a number from 1 to 1e18, got 0");
}

static void test_structure(void **state)
{
    (void)state;
    assert_refused(BASE PLANS "plans: []\n",
                   "dir/t.yaml:19:1: error: duplicate key 'plans' (first given at line 16)");
    assert_refused(BASE PLANS "! x: 1\n",
                   "dir/t.yaml:19:1: error: explicit tags such as '!' are not allowed; write the "
                   "value plainly (quote it to make it a string)");
    assert_refused(BASE "plans:\n  - name: a\n    dp: 1\n  - name: b\n    dp: 1\n  - name: a\n"
                        "    dp: 2\n",
                   "dir/t.yaml:21:11: error: plans[2]: duplicate plan name 'a' (plans[0] has it "
                   "too)");
    /* a named plan may not take another plan's canonical text either */
    assert_refused(BASE "plans:\n  - dp: 64\n  - name: dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0\n"
                        "    dp: 1\n",
                   "dir/t.yaml:18:11: error: plans[1]: duplicate plan name "
                   "'dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0' (plans[0] has it too)");
    assert_refused(BASE "plans:\n  - {name: \"\", dp: 1}\n",
                   "dir/t.yaml:17:12: error: plans[0].name must not be empty");
    assert_refused(BASE "plans:\n  - 64\n",
                   "dir/t.yaml:17:5: error: plans[0]: expected a mapping, got \"64\"");
    assert_refused(BASE "plans:\n  - {tp: 2}\n",
                   "dir/t.yaml:17:5: error: missing required key 'dp' in plans[0]");
    assert_refused(BASE "plans: {dp: 1}\n",
                   "dir/t.yaml:16:8: error: plans: expected a list, got a mapping");
    assert_refused(HEAD MODEL CLUSTER PLANS,
                   "dir/t.yaml:1:1: error: missing required key 'training'");
    assert_refused(HEAD MODEL "cluster:\n  nodes: 1\n  gpus_per_node: 1\n" TRAINING PLANS,
                   "dir/t.yaml:9:3: error: missing required key 'gpu' in cluster");
    assert_refused(HEAD MODEL
                   "cluster:\n  nodes: 4503599627370496\n  gpus_per_node: 4\n"
                   "  gpu: {hbm_gib: 1, peak_tflops: 1, hbm_tb_s: 1}\n" TRAINING PLANS,
                   "dir/t.yaml:9:3: error: cluster.nodes * cluster.gpus_per_node must be at most "
                   "2^53, got 4503599627370496 * 4");
}

static void test_huge_values(void **state)
{
    (void)state;
    /* a 1 MB description is fine; a 1 MB plan name is refused */
    size_t n = 1u << 20;
    const char *head = BASE PLANS "description: ";
    char *text = malloc(strlen(head) + n + 2);
    assert_non_null(text);
    strcpy(text, head);
    memset(text + strlen(head), 'x', n);
    strcpy(text + strlen(head) + n, "\n");
    pe_scenario s;
    assert_loads(text, &s);
    assert_int_equal(strlen(s.description), n);
    scenario_free(&s);
    free(text);

    const char *h2 = BASE "plans:\n  - dp: 1\n    name: ";
    text = malloc(strlen(h2) + n + 2);
    assert_non_null(text);
    strcpy(text, h2);
    memset(text + strlen(h2), 'y', n);
    strcpy(text + strlen(h2) + n, "\n");
    pe_error err;
    assert_int_equal(load_text(text, &s, &err), PE_BAD_INPUT);
    assert_string_equal(err.msg, "plans[0].name is too long (1048576 bytes; at most 255)");
    free(text);
}

static void test_files(void **state)
{
    (void)state;
    pe_scenario s;
    pe_error err = {0};
    assert_int_equal(load_scenario("tests/unit/no-such-file.yaml", catalog, &s, &err),
                     PE_BAD_INPUT);
    assert_string_equal(err.file, "tests/unit/no-such-file.yaml");
    assert_int_equal(load_scenario("tests/unit", catalog, &s, &err), PE_BAD_INPUT);
    assert_string_equal(err.msg, "not a regular file");
}

/* The value a field's offset holds in the struct at base, as an integer
 * (INT, BOOL, enums) or a number. */
static void stored(const void *base, const pe_field *f, int64_t *iv, double *dv)
{
    const char *p = (const char *)base + f->offset;
    *iv = 0, *dv = 0;
    if (f->type == PE_FT_INT)
        memcpy(iv, p, sizeof *iv);
    else if (f->type == PE_FT_NUMBER)
        memcpy(dv, p, sizeof *dv);
    else if (f->type == PE_FT_BOOL) {
        bool b;
        memcpy(&b, p, sizeof b);
        *iv = b;
    } else {
        int e;
        memcpy(&e, p, sizeof e);
        *iv = e;
    }
}

/* The descriptors are the one source of the defaults: every key with a
 * literal default that a file does not give loads as that default. */
static void test_defaults_from_descriptors(void **state)
{
    (void)state;
    pe_scenario s;
    assert_loads(BASE PLANS, &s);
    const struct {
        const pe_fieldset *set;
        const void *base;
    } maps[] = {
        {&pe_fields_scenario, &s},
        {&pe_fields_model, &s.model},
        {&pe_fields_precision, &s.precision},
        {&pe_fields_cluster, &s.cluster},
        {&pe_fields_gpu, &s.cluster.gpu},
        {&pe_fields_intra_node, &s.cluster.intra_node},
        {&pe_fields_inter_node, &s.cluster.inter_node},
        {&pe_fields_overlap, &s.overlap},
        {&pe_fields_plan, &s.plans[0]},
    };
    size_t checked = 0;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++)
        for (size_t i = 0; i < maps[m].set->count; i++) {
            const pe_field *f = &maps[m].set->fields[i];
            int64_t want_i = 0, got_i;
            double want_d = 0, got_d;
            if (f->offset == PE_NO_OFFSET || !fields_default_value(f, &want_i, &want_d))
                continue;
            stored(maps[m].base, f, &got_i, &got_d);
            if (got_i != want_i || got_d != want_d)
                fail_msg("%s.%s: loaded %lld / %g, its descriptor's default is '%s'",
                         maps[m].set->path, f->key, (long long)got_i, got_d, f->default_text);
            checked++;
        }
    assert_int_equal(checked, 68); /* every literal default of these maps, not none */
    scenario_free(&s);

    /* a default in words is computed from other keys, not read as a value */
#define DEFAULT_OF(set, key) fields_default_value(fields_find(&(set), key, strlen(key)), &iv, &dv)
    int64_t iv;
    double dv;
    assert_false(DEFAULT_OF(pe_fields_model, "ffn_hidden"));
    assert_false(DEFAULT_OF(pe_fields_gpu, "gemm_efficiency"));
    assert_false(DEFAULT_OF(pe_fields_plan, "sequence_parallel"));
    assert_true(DEFAULT_OF(pe_fields_gpu, "flops_efficiency"));
    assert_true(dv == 0.5);
    assert_true(DEFAULT_OF(pe_fields_plan, "schedule"));
    assert_int_equal(iv, PE_SCHEDULE_1F1B);
#undef DEFAULT_OF

    /* back to "not given": the value, its has_ flag, then its default */
    pe_model m = {.capacity_factor = 1.25, .has_capacity_factor = true, .moe_every = 4};
    fields_reset(&pe_fields_model, "capacity_factor", &m);
    fields_reset(&pe_fields_model, "moe_every", &m);
    assert_false(m.has_capacity_factor);
    assert_true(m.capacity_factor == 0);
    assert_int_equal(m.moe_every, 1);
}

/* The key tables are exposed for --help and the schemas. */
static void test_fields_table(void **state)
{
    (void)state;
    const pe_field *f = fields_find(&pe_fields_model, "kv_heads", 8);
    assert_non_null(f);
    assert_int_equal(f->type, PE_FT_INT);
    assert_int_equal(f->range, PE_RANGE_WHOLE);
    assert_string_equal(f->default_text, "heads");
    assert_null(fields_find(&pe_fields_model, "kv_head", 7));
    f = fields_find(&pe_fields_gpu, "flops_efficiency", 16);
    assert_string_equal(fields_range_text(f->range), "a number from 0.001 to 1");
    size_t n = 0;
    for (const pe_fieldset *const *set = pe_fieldsets; *set; set++, n++) {
        /* y_apply refuses a table longer than PE_MAX_FIELDS ("table too large") at
         * load time, so a key added past it would break every scenario naming it */
        assert_true((*set)->count <= PE_MAX_FIELDS);
        for (size_t i = 0; i < (*set)->count; i++) {
            assert_non_null((*set)->fields[i].help);
            if ((*set)->fields[i].type == PE_FT_ENUM)
                assert_non_null((*set)->fields[i].enum_values);
        }
    }
    assert_int_equal(n, 21); /* 16 of scenarios and catalogs (framework: docs/model.md §12), question, submission, failures and checkpointing (§15), targets */
}

/* Every mistake of a file in one pass, in file order (the first in the
 * error's fields, the others in err.more), one mistake one error. */
static void test_several_mistakes(void **state)
{
    (void)state;
    pe_scenario s;
    pe_error err;
    const char *text = HEAD
        "model:\n  layers: 96\n  hidden: 12288\n  heads: 96\n  vocab: 51200\n"
        "  seq_len: 2048\n  nodes: 8\n" CLUSTER TRAINING
        "plans:\n  - {name: off, dp: 64, tp: 0}\n  - {name: yes, dp: 64, sequence_parallel: no}\n"
        "expect:\n  - {plan: off, mem_total: 1}\n";
    assert_int_equal(load_text(text, &s, &err), PE_BAD_INPUT);
    char buf[2048];
    pe_error_format(&err, buf, sizeof buf);
    assert_string_equal(buf, "dir/t.yaml:8:3: error: unknown key 'nodes' in model ('nodes' belongs "
                             "under cluster or sweep)");
    assert_string_equal(err.more,
                        "dir/t.yaml:18:29: error: plans[0].tp must be a whole number >= 1, got 0\n"
                        "dir/t.yaml:19:44: error: plans[1].sequence_parallel: \"no\" is not a "
                        "boolean in YAML 1.2: write false\n"
                        "dir/t.yaml:21:17: error: unknown key 'mem_total' in expect[0] (not a "
                        "report column; did you mean 'mem_total_gib'?)\n");
    assert_null(s.plans);
    /* the same file without those mistakes loads, plans named off and yes */
    const char *fixed = BASE "plans:\n  - {name: off, dp: 64}\n  - {name: yes, dp: 64}\n"
                             "expect:\n  - {plan: off, mem_total_gib: 1}\n";
    assert_loads(fixed, &s);
    assert_string_equal(s.plans[0].name, "off");
    assert_string_equal(s.plans[1].name, "yes");
    scenario_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_defaults_from_descriptors),
        cmocka_unit_test(test_all_keys),
        cmocka_unit_test(test_dp_auto),        cmocka_unit_test(test_rule_violations_load),
        cmocka_unit_test(test_presets),        cmocka_unit_test(test_preset_without_catalog),
        cmocka_unit_test(test_sweep),          cmocka_unit_test(test_expect),
        cmocka_unit_test(test_typing),         cmocka_unit_test(test_structure),
        cmocka_unit_test(test_huge_values),    cmocka_unit_test(test_files),
        cmocka_unit_test(test_fields_table),   cmocka_unit_test(test_several_mistakes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
