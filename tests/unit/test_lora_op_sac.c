/* test_lora_op_sac.c — docs/model.md §12 A32: LoRA under op-level selective
 * checkpointing (selective_recompute: op, A15). torchtitan's policy saves
 * every aten.mm output but every second one, counted per block; each
 * targeted linear runs three mms (base, lora_A, lora_B), so a saved base is
 * followed by a saved B and a recomputed base by a saved A. Hand arithmetic
 * on Llama 3 8B through the loader (the torchtitan preset), the eager and
 * compiled counts, the targets, TP, and the memory properties (more
 * recompute never raises a LoRA plan's stored activations, more GPUs under
 * ZeRO-3 never raise its total, the peak never below a phase) over tp, pp,
 * dp and b. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "eval_fixtures.h"
#include "catalog_fixture.h"
#include "input/load.h"
#include "model/memory_lora.h"

/* Llama 3 8B LoRA r 8 on one H100 node under the torchtitan preset
 * (op-level SAC, compiled unless eager), s 8192. */
static pe_scenario load_lora_sac(const char *targets, int eager)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "fidelity: refined\n"
             "model: { preset: llama3-8b, seq_len: 8192 }\n"
             "precision: { grad_bytes: 4 }\n"
             "cluster: { preset: h100-node, nodes: 1 }\n"
             "framework: { preset: torchtitan, eager_elementwise: %s }\n"
             "training: { global_batch: 1024, finetune: lora, lora_rank: 8, lora_targets: %s }\n"
             "plans:\n  - { name: one, dp: 8, zero: 3, recompute: selective }\n",
             eager ? "true" : "false", targets);
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("lora-sac.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

/* The A15 layer of one plan (tp t with sp when t > 1, b 1). */
static double sac_layer(pe_scenario *s, int64_t dp, int64_t tp, pe_recompute rc, pe_detail *d)
{
    s->cluster.nodes = dp * tp / 8;
    pe_plan p = fx_plan(dp, tp, 1, 1);
    p.zero = 3, p.micro_batch = 1, p.recompute = rc, p.sequence_parallel = tp > 1;
    pe_result r;
    fx_eval_detail(s, &p, &r, d);
    assert_true(d->valid);
    return d->a_layer;
}

/* One function by hand: a saved base adds B's output (split or, row-parallel,
 * eager only), a recomputed base A's 2r. */
static void test_a32_terms(void **state)
{
    (void)state;
    double rep = 0.0, par = 0.0;
    act_lora_op_saved(8, 4096, true, true, false, &rep, &par); /* q: B's 2·4096 split */
    assert_true(par == 8192.0 && rep == 0.0);
    act_lora_op_saved(8, 1024, false, true, false, &rep, &par); /* k: A's 2·8 */
    assert_true(rep == 16.0);
    act_lora_op_saved(8, 4096, true, false, false, &rep, &par); /* down compiled: nothing */
    assert_true(rep == 16.0 && par == 8192.0);
    act_lora_op_saved(8, 4096, true, false, true, &rep, &par); /* down eager: 2·4096 whole */
    assert_true(rep == 8208.0);
}

/* Llama 3 8B (h 4096, a 32, g 8, d 128, f 14336), r 8, s' 8192, b 1, t 1.
 * The block's mms with all-linear: wq Aq Bq wk Ak Bk wv Av Bv wo Ao Bo w1 A1
 * B1 w3 A3 B3 w2 A2 B2; the odd ones are saved: wq, Bq (2·4096), Ak (2·8),
 * wv, Bv (2·1024), Ao (2·8), w1, B1 (2·14336), A3 (2·8), w2, B2 (2·4096).
 * A15 without LoRA: 2h + (4·a·d + 2·g·d + 4a + 2f) = 8192 + 16384 + 2048 +
 * 128 + 28672 = 8192 + 47232 bytes a token (compiled: no w2 output, A22 0).
 * A32 compiled: split 8192 + 2048 + 28672 = 38,912, whole 3·16 = 48:
 *   layer 8192·(8192 + 48 + 47232 + 38912) = 8192·94,384 = 773,193,728
 *   (without A32 8192·55,424 = 454,033,408: 319,160,320 more)
 * eager: w2's output (A22) and B2's, 2·4096 each, whole:
 *   8192·(8192 + 8192 + 8192 + 48 + 86144) = 8192·110,768 = 907,411,456
 * attention targets (wq Aq Bq wk Ak Bk wv Av Bv wo Ao Bo w1 w3 w2): Bq, Ak,
 *   Bv, Ao: split 10,240, whole 32: 8192·65,696 = 538,181,632
 * mlp targets (wq wk wv wo w1 A1 B1 w3 A3 B3 w2 A2 B2): B1, A3, B2
 *   (compiled: not kept): split 28,672, whole 16: 8192·84,112 = 689,045,504
 * tp 8 with sp, all-linear compiled: 8192·(8192/8 + 48 + 86144/8) =
 *   8192·11,840 = 96,993,280. */
static void test_a32_hand(void **state)
{
    (void)state;
    pe_detail d;
    pe_scenario s = load_lora_sac("all-linear", 0);
    assert_true(sac_layer(&s, 8, 1, PE_RECOMPUTE_SELECTIVE, &d) == 773193728.0);
    assert_true(sac_layer(&s, 1, 8, PE_RECOMPUTE_SELECTIVE, &d) == 96993280.0);
    s.training.finetune = PE_FINETUNE_FULL; /* A15 without adapters */
    assert_true(sac_layer(&s, 8, 1, PE_RECOMPUTE_SELECTIVE, &d) == 454033408.0);
    scenario_free(&s);
    s = load_lora_sac("all-linear", 1);
    assert_true(sac_layer(&s, 8, 1, PE_RECOMPUTE_SELECTIVE, &d) == 907411456.0);
    scenario_free(&s);
    s = load_lora_sac("attention", 0);
    assert_true(sac_layer(&s, 8, 1, PE_RECOMPUTE_SELECTIVE, &d) == 538181632.0);
    scenario_free(&s);
    s = load_lora_sac("mlp", 0);
    assert_true(sac_layer(&s, 8, 1, PE_RECOMPUTE_SELECTIVE, &d) == 689045504.0);
    scenario_free(&s);
}

/* One LoRA plan under op-level SAC on dp ranks; false when a rule refuses
 * it (or the GPUs do not fill whole nodes). The peak is never below a
 * phase. */
static bool eval_lora(pe_scenario *s, int64_t dp, int64_t tp, int64_t pp, int64_t b, int rc,
                      pe_result *r, pe_detail *d)
{
    if ((dp * tp * pp) % 8 != 0)
        return false;
    s->cluster.nodes = dp * tp * pp / 8;
    pe_plan p = fx_plan(dp, tp, pp, 1);
    p.zero = 3, p.micro_batch = b, p.recompute = (pe_recompute)rc;
    p.sequence_parallel = tp > 1;
    fx_eval_detail(s, &p, r, d);
    if (!d->valid)
        return false;
    for (int i = 0; i < d->stages; i++)
        for (int k = 1; k < PE_PHASE_COUNT; k++)
            assert_true(d->peak[i] >= d->phase[i][k]);
    return true;
}

/* Property 2: none ≥ selective ≥ full on every candidate stage's stored
 * activations. Returns 1 when all three plans are valid. */
static int check_recompute(pe_scenario *s, const char *what, int64_t dp, int64_t tp, int64_t pp,
                           int64_t b)
{
    pe_result r;
    pe_detail d[3];
    for (int rc = 0; rc < 3; rc++)
        if (!eval_lora(s, dp, tp, pp, b, rc, &r, &d[rc]))
            return 0;
    for (int rc = 1; rc < 3; rc++)
        for (int i = 0; i < d[rc].stages; i++)
            if (!(d[rc].a6[i] <= d[rc - 1].a6[i] * (1 + 1e-12)))
                fail_msg("%s tp %lld pp %lld dp %lld b %lld: recompute %d keeps %.17g > %.17g",
                         what, (long long)tp, (long long)pp, (long long)dp, (long long)b, rc,
                         d[rc].a6[i], d[rc - 1].a6[i]);
    return 1;
}

/* Under op-level SAC a LoRA plan keeps the properties of
 * test_memory_props_native.c: more recompute never raises the stored
 * activations, more GPUs under ZeRO-3 (dp doubled) never raise the device
 * total, the peak is never below a phase — eager and compiled, every target
 * set, over tp, pp, dp and b. */
static void test_a32_properties(void **state)
{
    (void)state;
    static const char *const targets[] = {"all-linear", "attention", "mlp"};
    int checked = 0;
    for (int t = 0; t < 3; t++)
        for (int eager = 0; eager < 2; eager++) {
            pe_scenario s = load_lora_sac(targets[t], eager);
            for (int64_t tp = 1; tp <= 8; tp *= 2)
                for (int64_t pp = 1; pp <= 4; pp *= 2)
                    for (int64_t b = 1; b <= 2; b++) {
                        double last = INFINITY;
                        for (int64_t dp = 1; dp <= 16; dp *= 2) {
                            checked += check_recompute(&s, targets[t], dp, tp, pp, b);
                            pe_result r;
                            pe_detail d;
                            if (!eval_lora(&s, dp, tp, pp, b, PE_RECOMPUTE_SELECTIVE, &r, &d))
                                continue;
                            if (!(r.mem_total_gib <= last * (1 + 1e-12)))
                                fail_msg("%s tp %lld pp %lld b %lld: dp %lld total %.6f > %.6f",
                                         targets[t], (long long)tp, (long long)pp,
                                         (long long)b, (long long)dp, r.mem_total_gib, last);
                            last = r.mem_total_gib;
                        }
                    }
            scenario_free(&s);
        }
    print_message("LoRA op-SAC properties: %d plans checked\n", checked);
    assert_true(checked > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a32_terms),
        cmocka_unit_test(test_a32_hand),
        cmocka_unit_test(test_a32_properties),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
