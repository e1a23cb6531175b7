/* test_lora.c — docs/model.md §3 "Parameter-efficient fine-tuning"
 * (training.finetune: lora): M15–M17 and A27 against hand arithmetic, one
 * Llama 2 7B QLoRA plan end to end from YAML through the loader and the
 * built-in catalog, and the properties over a grid of plans:
 *
 *   1. with lora_dropout 0, LoRA never needs more memory than the full
 *      fine-tune of the same plan (on one node: D ≤ 8; see the note at
 *      test_lora_below_full for why not at every D);
 *   2. a larger rank never lowers memory;
 *   3. base_quant nf4 (or int8) never raises memory over none;
 *   4. finetune: full is the scenario without the keys, bit for bit.
 *
 * Each property runs over tp, pp, zero, recompute, micro-batch, and both
 * the textbook model and the refined memory by phase (megatron-core). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "lora_fixtures.h"
#include "model/memory_lora.h"

/* The terms one by one. */
static void test_lora_terms(void **state)
{
    (void)state;
    /* M15 nf4: (4 + 8/64 + 32/(64·256))/8 = (4 + 0.125 + 0.001953125)/8
     *   = 4.126953125/8 = 0.515869140625 bytes (QLoRA §3: "0.127 bits") */
    assert_true(PE_LORA_NF4_BYTES == 0.515869140625);
    assert_true(PE_LORA_INT8_BYTES == 1.0);
    /* M15: 100 linear weights at 0.5, 20 others at 2, no ZeRO-3: 50 + 40 = 90;
     * z = 3 over D = 4: 22.5; z = 2 does not shard weights: 90 */
    assert_true(mem_lora_base(2.0, 0.5, 120.0, 100.0, 0, 4.0) == 90.0);
    assert_true(mem_lora_base(2.0, 0.5, 120.0, 100.0, 3, 4.0) == 22.5);
    assert_true(mem_lora_base(2.0, 0.5, 120.0, 100.0, 2, 4.0) == 90.0);
    /* base_quant none (β_q = β_w): M1 of the base, 2·120 = 240 */
    assert_true(mem_lora_base(2.0, 2.0, 120.0, 100.0, 0, 1.0) == 240.0);
    /* M16 Llama 2 7B all-linear, r = 64, t = 1: whole dims (A of q, k, v,
     * gate, up: 5·4096; B of o, down: 2·4096) 28,672; split dims (B of q, k,
     * v: 3·4096, of gate, up: 2·11,008; A of o: 4096, of down: 11,008)
     * 34,304 + 15,104 = 49,408: 64·78,080 = 4,997,120 = 64·Σ(in + out) */
    assert_true(params_lora_layer(64.0, 28672.0, 49408.0, 1.0) == 4997120.0);
    /* t = 8: 64·(28,672 + 6,176) = 64·34,848 = 2,230,272 */
    assert_true(params_lora_layer(64.0, 28672.0, 49408.0, 8.0) == 2230272.0);
    /* M17 z = 0, nf4: the bf16 copy of the largest linear (4096·11,008 =
     * 45,088,768 weights): 2·45,088,768 = 90,177,536 bytes; t = 2: half */
    assert_true(mem_lora_working(0, 2.0, 2.0, 1e8, 5e6, 1.3e8, 45088768.0, 1.0) == 90177536.0);
    assert_true(mem_lora_working(1, 2.0, 2.0, 1e8, 5e6, 1.3e8, 45088768.0, 2.0) == 45088768.0);
    /* not quantised, z < 3: nothing */
    assert_true(mem_lora_working(2, 2.0, 2.0, 1e8, 5e6, 1.3e8, 0.0, 1.0) == 0.0);
    /* z = 3: max(2·1e8 + 2·5e6 + 2·1000, 2·2·1.3e8) = max(210,002,000, 520,000,000) */
    assert_true(mem_lora_working(3, 2.0, 2.0, 1e8, 5e6, 1.3e8, 1000.0, 1.0) == 520000000.0);
    /* z = 3, output layer smaller: 2·1e8 + 2·5e6 + 2000 = 210,002,000 */
    assert_true(mem_lora_working(3, 2.0, 2.0, 1e8, 5e6, 1e7, 1000.0, 1.0) == 210002000.0);
    /* A27 r = 64, 7 targets: 2·64·7 = 896; with dropout + 3·35,584 = 107,648 */
    assert_true(act_lora(64.0, 7.0, 35584.0, 0) == 896.0);
    assert_true(act_lora(64.0, 7.0, 35584.0, 1) == 107648.0);
}

/* Llama 2 7B QLoRA, r = 64 all-linear, dropout 0.1, paged 32-bit AdamW on
 * bf16 adapters (m and v in fp32: optimizer_bytes 8), one A100, s = 512,
 * b = 1, by hand from the preset (h 4096, f 11,008, L 32, V 32,000):
 *   N_mm = 4·4096² + 3·4096·11,008 = 67,108,864 + 135,266,304 = 202,375,168
 *   N_gpu = 32·(N_mm + 2·4096) + 2·32,000·4096 + 4096 = 6,738,415,616
 *   N_lin = 32·N_mm = 6,476,005,376
 *   M15 = 0.515869140625·6,476,005,376 + 2·(6,738,415,616 − 6,476,005,376)
 *       = 3,340,771,328 + 524,820,480 = 3,865,591,808 bytes
 *   M16 N_ad = 32·4,997,120 = 159,907,840: M1 = M15 + 2·N_ad = 4,185,407,488,
 *       M2 = 2·N_ad = 319,815,680, M3 = 8·N_ad = 1,279,262,720
 *   M17 = 2·4096·11,008 = 90,177,536 (z = 0)
 *   A27 = 107,648 bytes per token and layer (test_lora_terms) */
static void test_lora_llama2_7b_qlora(void **state)
{
    (void)state;
    pe_scenario s = load_text("schema: planeval/v1\n"
                              "model: { preset: llama2-7b, seq_len: 512 }\n"
                              "precision: { optimizer_bytes: 8 }\n"
                              "cluster: { preset: a100-node, nodes: 1, gpus_per_node: 1 }\n"
                              "training: { global_batch: 16, finetune: lora, lora_rank: 64, "
                              "base_quant: nf4, lora_dropout: 0.1 }\n"
                              "plans:\n  - { name: one, dp: 1 }\n");
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &s.plans[0], &r, &d);
    assert_true(d.n_gpu[0] == 6738415616.0);
    assert_true(d.m15[0] == 3865591808.0);
    assert_true(d.n_train[0] == 159907840.0);
    assert_true(d.m1[0] == 4185407488.0);
    assert_true(d.m2[0] == 319815680.0);
    assert_true(d.m3[0] == 1279262720.0);
    assert_true(d.m4 == 90177536.0);
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    assert_true(ctx.lora.act == 107648.0);
    assert_true(ctx.act_rep == 8.0 * 4096.0 + 107648.0); /* A1 (no dropout in the base) + A27 */
    scenario_free(&s);
}

static double total(const pe_scenario *s, const pe_plan *p)
{
    const pe_result r = fx_eval(s, p);
    return r.mem_total_gib;
}

/* Property 1. With lora_dropout 0 A27 adds 2r bytes a token per targeted
 * linear to the activations the full fine-tune keeps, while M15–M17 save
 * the frozen weights' gradients and optimizer states; under ZeRO the saving
 * shrinks as 1/D and the activations do not, so at a large enough D (tens of
 * nodes, a large micro-batch) LoRA's activations can outweigh it. With
 * dropout > 0 the input copies (3·in a token per target) outweigh it sooner.
 * Both are what PEFT allocates, so the property is asserted where a fine-tune
 * runs: one node. */
static void test_lora_below_full(void **state)
{
    (void)state;
    grid_plan g[128];
    const size_t n = grid(g, 128);
    for (size_t m = 0; m < 3; m++)
        for (size_t f = 0; f < 2; f++) {
            pe_scenario full = load_node(MODELS[m], "", FRAMEWORKS[f]);
            pe_scenario lora = load_node(MODELS[m], "finetune: lora, lora_rank: 64", FRAMEWORKS[f]);
            pe_scenario qlora = load_node(MODELS[m], "finetune: lora, lora_rank: 64, base_quant: nf4",
                                          FRAMEWORKS[f]);
            for (size_t i = 0; i < n; i++) {
                const pe_plan p = grid_to_plan(&full, &g[i]);
                const double tf = total(&full, &p), tl = total(&lora, &p), tq = total(&qlora, &p);
                if (!(tl <= tf) || !(tq <= tf))
                    fail_msg("%s%s tp%lld pp%lld z%lld b%lld rc%d: full %.6g, lora %.6g, "
                             "qlora %.6g GiB",
                             MODELS[m], f ? " refined" : "", (long long)p.tp, (long long)p.pp,
                             (long long)p.zero, (long long)p.micro_batch, (int)p.recompute, tf,
                             tl, tq);
            }
            scenario_free(&full), scenario_free(&lora), scenario_free(&qlora);
        }
}

/* Properties 2 and 3, dropout on and off. */
static void test_lora_rank_and_quant(void **state)
{
    (void)state;
    grid_plan g[128];
    const size_t n = grid(g, 128);
    static const int ranks[] = {8, 16, 64, 256};
    static const char *const quants[] = {"none", "int8", "nf4"}; /* bytes falling */
    char keys[160];
    for (size_t m = 0; m < 3; m++)
        for (size_t f = 0; f < 2; f++)
            for (int dropout = 0; dropout <= 1; dropout++) {
                pe_scenario s[4][3];
                for (size_t k = 0; k < 4; k++)
                    for (size_t q = 0; q < 3; q++) {
                        snprintf(keys, sizeof keys,
                                 "finetune: lora, lora_rank: %d, base_quant: %s, lora_dropout: %s",
                                 ranks[k], quants[q], dropout ? "0.05" : "0");
                        s[k][q] = load_node(MODELS[m], keys, FRAMEWORKS[f]);
                    }
                for (size_t i = 0; i < n; i++) {
                    const pe_plan p = grid_to_plan(&s[0][0], &g[i]);
                    for (size_t k = 0; k < 4; k++)
                        for (size_t q = 0; q < 3; q++) {
                            const double here = total(&s[k][q], &p);
                            if (k > 0 && !(here >= total(&s[k - 1][q], &p)))
                                fail_msg("%s: rank %d below rank %d (%s, plan %zu)", MODELS[m],
                                         ranks[k], ranks[k - 1], quants[q], i);
                            if (q > 0 && !(here <= total(&s[k][q - 1], &p)))
                                fail_msg("%s: base_quant %s above %s (rank %d, plan %zu)",
                                         MODELS[m], quants[q], quants[q - 1], ranks[k], i);
                        }
                }
                for (size_t k = 0; k < 4; k++)
                    for (size_t q = 0; q < 3; q++)
                        scenario_free(&s[k][q]);
            }
}

/* Property 4: finetune: full written out is the scenario without it. */
static void test_full_is_default(void **state)
{
    (void)state;
    grid_plan g[128];
    const size_t n = grid(g, 128);
    for (size_t f = 0; f < 2; f++) {
        pe_scenario a = load_node("llama3-8b", "", FRAMEWORKS[f]);
        pe_scenario b = load_node("llama3-8b", "finetune: full", FRAMEWORKS[f]);
        for (size_t i = 0; i < n; i++) {
            const pe_plan p = grid_to_plan(&a, &g[i]);
            const pe_result ra = fx_eval(&a, &p), rb = fx_eval(&b, &p);
            assert_true(ra.mem_total_gib == rb.mem_total_gib);
            assert_true(ra.step_time_s == rb.step_time_s);
        }
        scenario_free(&a), scenario_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lora_terms),
        cmocka_unit_test(test_lora_llama2_7b_qlora),
        cmocka_unit_test(test_lora_below_full),
        cmocka_unit_test(test_lora_rank_and_quant),
        cmocka_unit_test(test_full_is_default),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
