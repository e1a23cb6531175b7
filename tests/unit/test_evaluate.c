/* test_evaluate.c — docs/model.md §1 validity V1–V8 (each failing alone, with its
 * reason text), §9 budgets, status precedence, reason formatting,
 * interventions, and the result of an invalid plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "model/detail.h"
#include "model/formula.h"
#include "model/rules.h"
#include "eval_fixtures.h"

/* Evaluate and format the reason. */
static pe_result run(const pe_scenario *s, const pe_plan *p, char *reason, size_t size)
{
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(s, &ctx);
    evaluate_plan(&ctx, p, &r);
    const int n = evaluate_format_reason(&ctx, p, &r, reason, size);
    assert_int_equal((size_t)n, strlen(reason));
    return r;
}

/* Assert the plan is invalid for exactly `bits` with this reason. */
static void expect_invalid(const pe_scenario *s, const pe_plan *p, uint32_t bits, const char *text)
{
    char reason[1024];
    const pe_result r = run(s, p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_int_equal(r.failed, bits);
    assert_string_equal(reason, text);
}

static void expect_valid(const pe_scenario *s, const pe_plan *p)
{
    char reason[1024];
    const pe_result r = run(s, p, reason, sizeof reason);
    assert_int_equal(r.failed & PE_FAIL_RULES, 0);
    assert_int_not_equal(r.status, PE_STATUS_INVALID);
}

static void test_v1(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8); /* 64 GPUs */
    pe_plan p = fx_plan(6, 8, 1, 1); /* 6·8·1·1 = 48 */
    expect_invalid(&s, &p, PE_FAIL_V1, "V1: dp*tp*pp*cp=48 != gpus=64");
    p.dp = 8;
    expect_valid(&s, &p);
}

static void test_v2(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.heads = 12; /* d = 1024; 8 ∤ 12 */
    s.model.kv_heads = 12;
    pe_plan p = fx_plan(8, 8, 1, 1);
    expect_invalid(&s, &p, PE_FAIL_V2, "V2: tp=8 does not divide heads=12, kv_heads=12");
    s.model.heads = 96; /* only g fails */
    s.model.kv_heads = 12;
    expect_invalid(&s, &p, PE_FAIL_V2, "V2: tp=8 does not divide kv_heads=12");
    s.model.kv_heads = 96;
    s.model.ffn_hidden = 49156; /* only f fails: 49156 = 8·6144 + 4 */
    expect_invalid(&s, &p, PE_FAIL_V2, "V2: tp=8 does not divide ffn_hidden=49156");
    p = fx_plan(16, 4, 1, 1); /* 4 | 49156 */
    expect_valid(&s, &p);
}

static void test_v3(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(5); /* 40 GPUs */
    pe_plan p = fx_plan(8, 1, 5, 1);
    expect_invalid(&s, &p, PE_FAIL_V3, "V3: pp=5 does not divide layers=96");
    s = fx_gpt3(8);
    p = fx_plan(8, 1, 8, 1); /* m = 1536/8 = 192, a multiple of 8 */
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    p.virtual_stages = 5; /* 8·5 = 40 ∤ 96 */
    expect_invalid(&s, &p, PE_FAIL_V3, "V3: pp*virtual_stages=40 does not divide layers=96");
    p.virtual_stages = 4; /* 32 | 96 */
    expect_valid(&s, &p);
}

static void test_v4(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.seq_len = 2047;
    pe_plan p = fx_plan(32, 1, 1, 2);
    expect_invalid(&s, &p, PE_FAIL_V4, "V4: cp=2 does not divide seq_len=2047");
    s.model.seq_len = 2052; /* s' = 1026 = 4·256 + 2 */
    p = fx_plan(8, 4, 1, 2);
    expect_invalid(&s, &p, PE_FAIL_V4,
                   "V4: tp=4 does not divide seq_len/cp=1026 (sequence parallel)");
    p.sequence_parallel = false; /* the t | s' part applies only with sp */
    expect_valid(&s, &p);
}

static void test_v5(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.micro_batch = 5; /* 5·64 = 320 ∤ 1536 */
    char reason[256];
    const pe_result r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.failed, PE_FAIL_V5);
    assert_int_equal(r.microbatches, 0); /* m is 0 when V5 fails */
    assert_string_equal(reason, "V5: micro_batch*dp=320 does not divide global_batch=1536");
    p.micro_batch = 4; /* 256 | 1536 → m = 6 */
    expect_valid(&s, &p);
}

static void test_v6(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    p.virtual_stages = 2;
    expect_invalid(&s, &p, PE_FAIL_V6, "V6: interleaved needs pp>=2 (pp=1)");
    p = fx_plan(8, 1, 8, 1);
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    expect_invalid(&s, &p, PE_FAIL_V6,
                   "V6: interleaved needs virtual_stages>=2 (virtual_stages=1)");
    s.training.global_batch = 96; /* m = 96/8 = 12, 12 mod 8 = 4 */
    p.virtual_stages = 2;
    expect_invalid(&s, &p, PE_FAIL_V6,
                   "V6: interleaved needs microbatches=12 to be a multiple of pp=8");
    s.training.global_batch = 1536;
    p.schedule = PE_SCHEDULE_1F1B; /* other schedules need v = 1 */
    expect_invalid(&s, &p, PE_FAIL_V6, "V6: 1f1b needs virtual_stages=1 (virtual_stages=2)");
    p.schedule = PE_SCHEDULE_ZB_H2;
    expect_invalid(&s, &p, PE_FAIL_V6, "V6: zb-h2 needs virtual_stages=1 (virtual_stages=2)");
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    expect_valid(&s, &p);
    /* the m mod p clause is checked only when V5 holds */
    p.micro_batch = 5;
    expect_invalid(&s, &p, PE_FAIL_V5,
                   "V5: micro_batch*dp=40 does not divide global_batch=1536");
}

static void test_v7(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(4, 16, 1, 1); /* tp 16 over two nodes */
    expect_invalid(&s, &p, PE_FAIL_V7,
                   "V7: tp=16 does not divide gpus_per_node=8 (allow_cross_node_tp is false)");
    s.cluster.allow_cross_node_tp = true;
    expect_valid(&s, &p);
    /* allowed across nodes only as a multiple of G: t = 12 on 3 nodes (c = 2 keeps V8) */
    s = fx_gpt3(3);
    s.cluster.allow_cross_node_tp = true;
    p = fx_plan(1, 12, 1, 2);
    p.sequence_parallel = false;
    expect_invalid(&s, &p, PE_FAIL_V7,
                   "V7: tp=12 neither divides nor is a multiple of gpus_per_node=8");
    s.cluster.allow_cross_node_tp = false;
    expect_invalid(&s, &p, PE_FAIL_V7, "V7: tp=12 does not divide gpus_per_node=8");
}

static void test_v8(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(3); /* 24 GPUs = dp 3 · pp 8 */
    pe_plan p = fx_plan(3, 1, 8, 1);
    expect_invalid(&s, &p, PE_FAIL_V8,
                   "V8: tp*cp*dp=3 neither divides nor is a multiple of gpus_per_node=8");
    /* t·c = 12 misaligned (t = 4, c = 3, seq 2046 = 3·682, s' = 682 ∤ 4 → sp off);
     * dp 2 makes t·c·dp = 24 a multiple of 8 */
    s = fx_gpt3(3);
    s.model.seq_len = 2046;
    p = fx_plan(2, 4, 1, 3);
    p.sequence_parallel = false;
    expect_invalid(&s, &p, PE_FAIL_V8,
                   "V8: tp*cp=12 neither divides nor is a multiple of gpus_per_node=8");
    /* both: dp 1, pp 2 → t·c·dp = 12 */
    p = fx_plan(1, 4, 2, 3);
    p.sequence_parallel = false;
    expect_invalid(&s, &p, PE_FAIL_V8,
                   "V8: tp*cp=12 neither divides nor is a multiple of gpus_per_node=8, "
                   "tp*cp*dp=12 neither divides nor is a multiple of gpus_per_node=8");
    p = fx_plan(3, 4, 1, 2); /* 24 GPUs: t·c = 8, t·c·dp = 24 */
    s.model.seq_len = 2048;
    expect_valid(&s, &p);
}

/* Several rules at once: every one listed in order V1..V8, joined by "; ". */
static void test_many_rules(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(5, 16, 5, 3); /* 1200 GPUs, 5 ∤ 96, 3 ∤ 2048, 16 ∤ 8, tc 48 ok, tcd 240 ok */
    p.micro_batch = 7;                /* 35 ∤ 1536 */
    p.virtual_stages = 2;             /* 1f1b with v = 2 */
    expect_invalid(&s, &p,
                   PE_FAIL_V1 | PE_FAIL_V3 | PE_FAIL_V4 | PE_FAIL_V5 | PE_FAIL_V6 | PE_FAIL_V7,
                   "V1: dp*tp*pp*cp=1200 != gpus=64; "
                   "V3: pp*virtual_stages=10 does not divide layers=96; "
                   "V4: cp=3 does not divide seq_len=2048; "
                   "V5: micro_batch*dp=35 does not divide global_batch=1536; "
                   "V6: 1f1b needs virtual_stages=1 (virtual_stages=2); "
                   "V7: tp=16 does not divide gpus_per_node=8 (allow_cross_node_tp is false)");
}

/* The rule table (model/rules.c): row n − 1 is Vn with its bit; its checks
 * give the evaluator's rule bits; the sweep's count adds one per broken rule. */
static void test_rules_table(void **state)
{
    (void)state;
    for (int i = 0; i < PE_RULE_COUNT; i++) {
        char id[8];
        snprintf(id, sizeof id, "V%d", i + 1);
        assert_string_equal(pe_rules[i].id, id);
        assert_int_equal(pe_rules[i].bit, pe_rule_bit(i + 1));
        assert_int_equal(pe_rule_index(__builtin_ctz(pe_rules[i].bit)), i);
        assert_true(pe_rules[i].rule[0] != '\0');
        assert_true(pe_rules[i].holds && pe_rules[i].reason);
        assert_true((pe_rules[i].explain != NULL) == (i < 8)); /* explain shows V1–V8 */
    }
    pe_scenario s = fx_gpt3(8);
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    pe_plan plans[4] = {fx_plan(8, 8, 1, 1), fx_plan(5, 16, 5, 3), fx_plan(4, 8, 2, 1),
                        fx_plan(8, 8, 1, 1)};
    plans[1].micro_batch = 7, plans[1].virtual_stages = 2;
    plans[2].ep = 2;                  /* V9: a dense model */
    plans[3].offload_optimizer = true; /* V15: zero 0 */
    uint64_t by_rule[PE_RULE_COUNT] = {0};
    for (int k = 0; k < 4; k++) {
        pe_result r;
        evaluate_plan(&ctx, &plans[k], &r);
        uint32_t table = 0;
        for (int i = 0; i < PE_RULE_COUNT; i++)
            table |= pe_rules[i].holds(&ctx, &plans[k]) ? 0 : pe_rules[i].bit;
        assert_int_equal(table, r.failed & PE_FAIL_RULES);
        pe_rules_count(r.failed, by_rule);
    }
    const uint64_t want[PE_RULE_COUNT] = {1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1};
    for (int i = 0; i < PE_RULE_COUNT; i++)
        assert_int_equal(by_rule[i], want[i]);
}

/* The equation texts explain prints (model/formula.h): every key explain
 * looks up is there, with a formula, a unit and a source. */
static void test_formula_table(void **state)
{
    (void)state;
    static const char *const keys[] = {"P1", "P2", "P3", "P4", "P6", "P7", "P16", "M1", "M2",
                                       "M3", "M4", "A1", "A2", "A3", "A4", "A5", "A6", "A6:full",
                                       "A7", "A8", "M5", "M6", "A11", "A4'", "A12", "F1", "F2",
                                       "F3", "F4", "F5", "F5:bwd", "F9", "F10", "C4", "C5",
                                       "C6", "C7", "X1:S", "X1:f", "X1:b", "X2:S", "X3", "X5",
                                       "X9", "X10", "X11", "S1", "S5", "edp", "M'"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const pe_formula *f = pe_formula_find(keys[i]);
        assert_non_null(f);
        assert_string_equal(f->key, keys[i]);
        assert_true(f->what[0] && f->formula[0] && f->unit[0] && f->source[0]);
        assert_true(strchr(f->formula, '%') == NULL); /* printed as text, never a format */
    }
    assert_string_equal(pe_formula_find("M1")->formula, "β_w·N_gpu / (z ≥ 3 ? D : 1)");
    assert_null(pe_formula_find("M99"));
}

/* An invalid plan gets identity fields only. */
static void test_invalid_result(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.budgets.has_step_time_s = true; /* budgets are not checked for invalid plans */
    s.budgets.step_time_s = 1e-9;
    pe_plan p = fx_plan(6, 8, 1, 1);
    p.zero = 1;
    p.recompute = PE_RECOMPUTE_FULL;
    char reason[256];
    const pe_result r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_int_equal(r.failed, PE_FAIL_V1);
    assert_int_equal(r.gpus, 64);
    assert_int_equal(r.microbatches, 256); /* V5 holds: 1536/(1·6) */
    assert_int_equal(r.interventions, 3);  /* z, recompute, t */
    assert_true(r.mem_total_gib == 0.0 && r.step_time_s == 0.0 && r.mfu == 0.0);
    assert_int_equal(r.tier_tp, PE_TIER_NONE);
    assert_string_equal(reason, "V1: dp*tp*pp*cp=48 != gpus=64");
}

/* interventions: z > 0, recompute ≠ none, t > 1, p > 1, c > 1 each 1. */
static void test_interventions(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    assert_int_equal(fx_eval(&s, &p).interventions, 0);
    p = fx_plan(4, 2, 4, 2);
    p.zero = 2;
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    assert_int_equal(fx_eval(&s, &p).interventions, 5);
    p.zero = 0;
    assert_int_equal(fx_eval(&s, &p).interventions, 4);
}

/* Budgets and status precedence: invalid › over_memory › over_time › ok.
 * Plan: GPT-3, one node, dp 8, B 64 (test_step.c's hand example):
 * M5 = 2.8e12 + 275,414,777,856 + 25,165,824 + 520,093,696 + 10 GiB
 *    = 3,086,697,455,616 B = 2874.71 GiB; step 27.904 s; mfu 0.4834;
 *    train_days (300e9 tokens) 739.2. */
static pe_scenario budget_scenario(void)
{
    pe_scenario s = fx_gpt3(1);
    s.training.global_batch = 64;
    s.training.has_tokens = true;
    s.training.tokens = 300e9;
    return s;
}

static void test_status_precedence(void **state)
{
    (void)state;
    pe_scenario s = budget_scenario();
    pe_plan p = fx_plan(8, 1, 1, 1);
    char reason[1024];

    /* over memory only (HBM 192): "memory: 2874.71 GiB > budget 192 GiB" */
    pe_result r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_MEMORY);
    assert_int_equal(r.failed, PE_FAIL_MEMORY);
    assert_rel(r.mem_total_gib, 3086697455616.0 / GIB, 1e-14);
    assert_string_equal(reason, "memory: 2874.71 GiB > budget 192 GiB");

    /* + every time budget: still over_memory, all listed, memory first */
    s.budgets = (pe_budgets){.has_memory_gib = true, .memory_gib = 100,
                             .has_step_time_s = true, .step_time_s = 20,
                             .has_train_days = true, .train_days = 365,
                             .has_min_mfu = true, .min_mfu = 0.5};
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_MEMORY);
    assert_int_equal(r.failed, PE_FAIL_MEMORY | PE_FAIL_STEP_TIME | PE_FAIL_TRAIN_DAYS |
                                   PE_FAIL_MIN_MFU);
    assert_true(r.mem_budget_gib == 100.0); /* min(HBM 192, budget 100) */
    assert_string_equal(reason, "memory: 2874.71 GiB > budget 100 GiB; "
                                "step_time: 27.9 s > budget 20 s; "
                                "train_days: 739.2 > budget 365; "
                                "mfu: 0.48 < min_mfu 0.5");
    /* the time figures are there for an over_memory plan */
    assert_rel(r.step_time_s, 27.90393993938715, 1e-13);

    /* memory fits (HBM raised, budget 4096 GiB) → over_time */
    s.cluster.gpu.hbm_gib = 8192;
    s.budgets.memory_gib = 4096;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_TIME);
    assert_true(r.mem_budget_gib == 4096.0);
    assert_rel(r.mem_headroom_gib, 4096.0 - 3086697455616.0 / GIB, 1e-14);
    assert_string_equal(reason, "step_time: 27.9 s > budget 20 s; "
                                "train_days: 739.2 > budget 365; "
                                "mfu: 0.48 < min_mfu 0.5");
    /* each time budget alone makes over_time */
    s.budgets.has_step_time_s = s.budgets.has_train_days = false;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_TIME);
    assert_string_equal(reason, "mfu: 0.48 < min_mfu 0.5");
    s.budgets.has_min_mfu = false;
    s.budgets.has_train_days = true;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_TIME);
    assert_string_equal(reason, "train_days: 739.2 > budget 365");
    /* none failing → ok, empty reason */
    s.budgets.has_train_days = false;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_int_equal(r.failed, 0);
    assert_string_equal(reason, "");

    /* invalid beats all of them */
    s.budgets.has_step_time_s = true;
    s.budgets.memory_gib = 1;
    p.dp = 7;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_INVALID);
    assert_string_equal(reason, "V1: dp*tp*pp*cp=7 != gpus=8; "
                                "V5: micro_batch*dp=7 does not divide global_batch=64; "
                                "V8: tp*cp*dp=7 neither divides nor is a multiple of "
                                "gpus_per_node=8");
    assert_string_equal(pe_plan_status_name(PE_STATUS_OVER_MEMORY), "over_memory");
    assert_string_equal(pe_plan_status_name(PE_STATUS_OVER_TIME), "over_time");
    assert_string_equal(pe_plan_status_name(PE_STATUS_INVALID), "invalid");
    assert_string_equal(pe_plan_status_name(PE_STATUS_OK), "ok");
}

/* Comparison edges: memory fits on ≤ (bytes), time fails on >, MFU on <. */
static void test_budget_edges(void **state)
{
    (void)state;
    pe_scenario s = budget_scenario();
    s.cluster.gpu.hbm_gib = 8192;
    pe_plan p = fx_plan(8, 1, 1, 1);
    const pe_result base = fx_eval(&s, &p);
    char reason[512];

    /* budget exactly the total (GiB·2^30 is exact) → fits */
    s.budgets = (pe_budgets){.has_memory_gib = true, .memory_gib = base.mem_total_gib,
                             .has_step_time_s = true, .step_time_s = base.step_time_s,
                             .has_min_mfu = true, .min_mfu = base.mfu,
                             .has_train_days = true, .train_days = base.train_days};
    pe_result r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OK);
    assert_true(r.mem_headroom_gib == 0.0);

    /* one ulp below on memory → over_memory */
    s.budgets.memory_gib = nextafter(base.mem_total_gib, 0.0);
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_MEMORY);
    assert_int_equal(r.failed, PE_FAIL_MEMORY);

    /* close calls print enough digits to show the failure:
     * step 27.9039 vs 27.9: "27.9" and "27.90" would not show it → "27.904";
     * mfu 0.48343 vs 0.4835: "0.48" already does */
    s.budgets.memory_gib = 4096;
    s.budgets.step_time_s = 27.9;
    s.budgets.min_mfu = 0.4835;
    r = run(&s, &p, reason, sizeof reason);
    assert_int_equal(r.status, PE_STATUS_OVER_TIME);
    assert_string_equal(reason, "step_time: 27.904 s > budget 27.9 s; mfu: 0.48 < min_mfu 0.4835");
}

/* evaluate_format_reason has snprintf semantics. */
static void test_reason_buffer(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(6, 8, 1, 1);
    pe_eval_ctx ctx;
    pe_result r;
    evaluate_prepare(&s, &ctx);
    evaluate_plan(&ctx, &p, &r);
    const char *full = "V1: dp*tp*pp*cp=48 != gpus=64";
    assert_int_equal(evaluate_format_reason(&ctx, &p, &r, NULL, 0), (int)strlen(full));
    char small[8];
    assert_int_equal(evaluate_format_reason(&ctx, &p, &r, small, sizeof small), (int)strlen(full));
    assert_string_equal(small, "V1: dp*");
}

/* evaluate_plan_detail: the same result, and intermediates that agree with it. */
static void test_detail(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    pe_plan p = fx_plan(2, 4, 4, 2);
    p.zero = 3;
    p.recompute = PE_RECOMPUTE_FULL;
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    p.virtual_stages = 2;
    pe_result r, rd;
    pe_detail d;
    evaluate_plan(&ctx, &p, &r);
    evaluate_plan_detail(&ctx, &p, &rd, &d);
    assert_int_equal(r.status, rd.status);
    assert_true(r.step_time_s == rd.step_time_s && r.mem_total_gib == rd.mem_total_gib);
    assert_true(d.valid);
    /* L/p = 24, s' = 1024, D = dp·c = 4, m = 1536/2 = 768 */
    assert_true(d.lps == 24.0 && d.s_local == 1024.0 && d.D == 4.0 && d.m == 768.0);
    assert_true(d.total[d.mem_stage] / GIB == r.mem_total_gib);
    assert_true(d.a6[d.mem_stage] / GIB == r.mem_activations_gib);
    assert_true(d.chi_dp == r.dp_comm_s && d.optimizer == r.optimizer_s);
    assert_true(d.bubble == r.bubble_s && d.chi_pp == r.pp_comm_s);
    /* interleaved p 4, v 2: k(0) = 4 + 3/2 = 5.5, k(3) = 4 − 3/2 = 2.5; k_first = 2p = 8; k_last 1 */
    assert_true(d.k[0] == 5.5 && d.k[1] == 2.5 && d.k_first == 8.0 && d.k_last == 1.0);
    /* A7 only on stage 0, A8 only on the last */
    assert_true(d.a7[1] == 0.0 && d.a8[0] == 0.0 && d.a7[0] > 0.0 && d.a8[1] > 0.0);
    /* invalid plan: valid = false */
    p.dp = 3;
    evaluate_plan_detail(&ctx, &p, &rd, &d);
    assert_false(d.valid);
    assert_int_equal(rd.status, PE_STATUS_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v1),
        cmocka_unit_test(test_v2),
        cmocka_unit_test(test_v3),
        cmocka_unit_test(test_v4),
        cmocka_unit_test(test_v5),
        cmocka_unit_test(test_v6),
        cmocka_unit_test(test_v7),
        cmocka_unit_test(test_v8),
        cmocka_unit_test(test_many_rules),
        cmocka_unit_test(test_rules_table),
        cmocka_unit_test(test_formula_table),
        cmocka_unit_test(test_invalid_result),
        cmocka_unit_test(test_interventions),
        cmocka_unit_test(test_status_precedence),
        cmocka_unit_test(test_budget_edges),
        cmocka_unit_test(test_reason_buffer),
        cmocka_unit_test(test_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
