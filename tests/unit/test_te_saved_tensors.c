/* test_te_saved_tensors.c — docs/model.md §12 A30, A31: what Megatron-Core's
 * Transformer Engine layers save for backward beyond Korthikanti's A1–A3,
 * against hand arithmetic: the two norms' fp32 statistics (A30, replicated
 * like A1, split by t under sequence parallelism), the fused attention's
 * fp32 softmax statistics and, under FP8, its bf16 output beside the
 * projection's FP8 input (A31, over t, none under selective recompute). The
 * key is neutral off, and never lowers a layer's activations on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory_megatron.h"

/* One GPT-3 175B layer (h 12288, a = g = 96, d 128, f 49152, gelu,
 * LayerNorm, dropout) on tp 8 with sp, pp 8, s' 2048, b 1 (stage 0). */
static double layer_bytes(bool te, pe_attention att, pe_norm norm, pe_compute compute,
                          pe_recompute rc)
{
    pe_scenario s = fx_gpt3(8);
    s.model.attention = att, s.model.norm = norm;
    s.precision.compute = compute;
    s.framework = (pe_framework){.present = true, .recompute_num_layers = 1,
                                 .te_saved_tensors = te};
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = rc;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(d.valid);
    return d.a_layer;
}

/* The two counts by hand:
 *   A30 LayerNorm 2·(mu 4 + rsigma 4) = 16; RMSNorm 2·rsigma 4 = 8
 *   A31 fused, bf16: 4·a = 4·96 = 384; fused, fp8: 384 + 2·a·d = 384 +
 *       2·12,288 = 24,960; unfused (scores in A3): 0 */
static void test_counts_hand(void **state)
{
    (void)state;
    assert_rel(act_te_norm_stats(1), 16.0, 0.0);
    assert_rel(act_te_norm_stats(0), 8.0, 0.0);
    assert_rel(act_te_attention_saved(1, 0, 96, 12288), 384.0, 0.0);
    assert_rel(act_te_attention_saved(1, 1, 96, 12288), 24960.0, 0.0);
    assert_true(act_te_attention_saved(0, 1, 96, 12288) == 0.0);
}

/* bf16, flash, no recompute. A1 = 10h = 122,880, A2 = 4h + 4gd + 4f =
 * 49,152 + 49,152 + 196,608 = 294,912, A3 = 0:
 *   off: 2048·(122,880 + 294,912)/8 = 2048·52,224 = 106,954,752
 *   on:  2048·[(122,896 + 294,912)/8 + 384/8] = 2048·(52,226 + 48)
 *        = 2048·52,274 = 107,057,152
 *   RMSNorm on: 2048·[(122,888 + 294,912)/8 + 48] = 2048·52,273
 *        = 107,055,104 */
static void test_bf16_layer_hand(void **state)
{
    (void)state;
    const pe_attention fl = PE_ATTENTION_FLASH;
    const pe_recompute no = PE_RECOMPUTE_NONE;
    assert_rel(layer_bytes(false, fl, PE_NORM_LAYERNORM, PE_COMPUTE_BF16, no), 106954752.0,
               1e-12);
    assert_rel(layer_bytes(true, fl, PE_NORM_LAYERNORM, PE_COMPUTE_BF16, no), 107057152.0,
               1e-12);
    assert_rel(layer_bytes(true, fl, PE_NORM_RMSNORM, PE_COMPUTE_BF16, no), 107055104.0, 1e-12);
}

/* FP8, flash. A13: A1 = 122,880 − 2h = 98,304, A2 = 294,912 − a·d − f =
 * 233,472:
 *   off: 2048·(98,304 + 233,472)/8 = 2048·41,472 = 84,934,656
 *   on, none: 2048·[(98,320 + 233,472)/8 + 24,960/8] = 2048·(41,474 +
 *        3,120) = 2048·44,594 = 91,328,512 (the bf16 attention output
 *        2048·24,576/8 = 6,291,456 of it)
 *   on, selective (core attention rebuilt: A31 0): 2048·41,474
 *        = 84,938,752 */
static void test_fp8_layer_hand(void **state)
{
    (void)state;
    const pe_attention fl = PE_ATTENTION_FLASH;
    const pe_norm ln = PE_NORM_LAYERNORM;
    assert_rel(layer_bytes(false, fl, ln, PE_COMPUTE_FP8, PE_RECOMPUTE_NONE), 84934656.0, 1e-12);
    assert_rel(layer_bytes(true, fl, ln, PE_COMPUTE_FP8, PE_RECOMPUTE_NONE), 91328512.0, 1e-12);
    assert_rel(layer_bytes(true, fl, ln, PE_COMPUTE_FP8, PE_RECOMPUTE_SELECTIVE), 84938752.0,
               1e-12);
}

/* Standard attention, bf16, no recompute: A3 = (2 + 3δ)·a·s = 5·96·2048 =
 * 983,040 and A31 0, so on adds A30 alone:
 *   2048·[(122,896 + 294,912)/8 + 983,040/8] = 2048·(52,226 + 122,880)
 *   = 2048·175,106 = 358,617,088 */
static void test_standard_attention_hand(void **state)
{
    (void)state;
    assert_rel(layer_bytes(true, PE_ATTENTION_STANDARD, PE_NORM_LAYERNORM, PE_COMPUTE_BF16,
                           PE_RECOMPUTE_NONE),
               358617088.0, 1e-12);
}

/* On never lowers a layer's bytes, whatever the attention, norm, precision
 * and recompute. */
static void test_never_lower(void **state)
{
    (void)state;
    const pe_attention atts[] = {PE_ATTENTION_STANDARD, PE_ATTENTION_FLASH};
    const pe_norm norms[] = {PE_NORM_LAYERNORM, PE_NORM_RMSNORM};
    const pe_compute cs[] = {PE_COMPUTE_BF16, PE_COMPUTE_FP8};
    const pe_recompute rcs[] = {PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE, PE_RECOMPUTE_FULL};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++)
                for (int l = 0; l < 3; l++)
                    assert_true(layer_bytes(true, atts[i], norms[j], cs[k], rcs[l]) >=
                                layer_bytes(false, atts[i], norms[j], cs[k], rcs[l]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_hand),
        cmocka_unit_test(test_bf16_layer_hand),
        cmocka_unit_test(test_fp8_layer_hand),
        cmocka_unit_test(test_standard_attention_hand),
        cmocka_unit_test(test_never_lower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
