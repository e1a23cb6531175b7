/* test_moe.c — issue 11 equations (docs/design/moe.md) against hand
 * arithmetic: P8–P14 parameter counts of MoE, head_dim and MLA models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/params.h"

/* Mixtral 8x7B (design §8.1): attention 4096·4096 (q) + 2·4096·1024 (k, v)
 * + 4096·4096 (o) = 41,943,040; one expert 3·4096·14336 = 176,160,768, ×8 =
 * 1,409,286,144; router 4096·8 = 32,768; norms 2·4096 = 8,192 → layer
 * 1,451,270,144, ×32 = 46,440,644,608; embedding + output 2·32000·4096 =
 * 262,144,000; final norm 4,096 → total 46,702,792,704 ("46.7B").
 * Active: 2 experts 352,321,536 → layer 394,305,536, ×32 = 12,617,777,152
 * + 262,148,096 = 12,879,925,248 ("12.9B"). */
static void test_mixtral_8x7b(void **state)
{
    (void)state;
    const pe_model m = fx_mixtral_8x7b();
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 41943040.0);
    assert_true(mp.expert_one == 176160768.0);
    assert_true(mp.moe_expert == 1409286144.0);
    assert_true(mp.moe_dense_part == 41943040.0 + 32768.0 + 8192.0);
    assert_true(mp.n_moe == 32.0);
    assert_true(mp.total == 46702792704.0);
    assert_true(mp.active == 12879925248.0);
}

/* DeepSeek-V3 (design §8.3). MLA per layer: q_a 7168·1536 = 11,010,048;
 * q_b 1536·128·192 = 37,748,736; kv_a 7168·(512+64) = 4,128,768; kv_b
 * 512·128·(128+128) = 16,777,216; o 128·128·7168 = 117,440,512; latent norms
 * 1536 + 512 = 2,048 → 187,107,328. Replicated (down-projections + latent
 * norms): 11,010,048 + 4,128,768 + 2,048 = 15,140,864.
 * Dense layer + 3·7168·18432 = 396,361,728 + norms 14,336 → 583,483,392.
 * MoE layer: experts 256·3·7168·2048 = 256·44,040,192 = 11,274,289,152;
 * dense part 187,107,328 + shared 44,040,192 + router 256·7168 = 1,835,008
 * + norms 14,336 = 232,996,864.
 * Total 3·583,483,392 + 58·(232,996,864 + 11,274,289,152) + 2·129280·7168
 * + 7168 = 1,750,450,176 + 667,422,588,928 + 1,853,358,080 + 7,168 =
 * 671,026,404,352 — the published 671,026,419,200 ("671B") less the
 * 58·256 = 14,848 expert score-correction biases planeval does not model.
 * Active: 58·(232,996,864 + 8·44,040,192) = 58·585,318,400 = 33,948,467,200
 * + 1,750,450,176 + 1,853,365,248 = 37,552,282,624 (published "37B"; 36.6B
 * without the 926,679,040 input embedding, as DeepSeek counts it). */
static void test_deepseek_v3(void **state)
{
    (void)state;
    const pe_model m = fx_deepseek_v3();
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 187107328.0);
    assert_true(mp.att_rep == 15140864.0);
    assert_true(mp.layer_dense == 583483392.0);
    assert_true(mp.moe_expert == 11274289152.0);
    assert_true(mp.moe_dense_part == 232996864.0);
    assert_true(mp.n_moe == 58.0);
    assert_true(mp.total == 671026404352.0);
    assert_true(mp.active == 37552282624.0);
    assert_true(mp.active - 129280.0 * 7168.0 == 36625603584.0); /* "36.6B" */
}

/* P9 (design §10 g): DeepSeek-V3 L_d = 3, ν = 1: [0,3) → 0; [3,7) → 6 − 2 = 4;
 * [59,61) → 60 − 58 = 2. ν = 2, L_d = 0, [0,8): ⌊7/2⌋ − ⌊−1/2⌋ = 3 − (−1) = 4
 * (layers 0, 2, 4, 6); [1,8): 3 − 0 = 3; dense model: 0. */
static void test_moe_layer_counts(void **state)
{
    (void)state;
    pe_model m = fx_deepseek_v3();
    assert_int_equal(params_moe_layers(&m, 0, 3), 0);
    assert_int_equal(params_moe_layers(&m, 3, 7), 4);
    assert_int_equal(params_moe_layers(&m, 59, 61), 2);
    assert_int_equal(params_moe_layers(&m, 0, 61), 58);
    m.dense_layers = 0;
    m.moe_every = 2;
    assert_int_equal(params_moe_layers(&m, 0, 8), 4);
    assert_int_equal(params_moe_layers(&m, 1, 8), 3);
    m.experts = 0;
    assert_int_equal(params_moe_layers(&m, 0, 8), 0);
}

/* head_dim and biases, gpt-oss-120b (design §8.6): attention 2880·4096 +
 * 2·2880·512 + 4096·2880 = 26,542,080, biases 4096 + 1024 + 2880 = 8,000;
 * expert 3·2880·2880 = 24,883,200 + biases 2·2880 + 2880 = 8,640 →
 * 24,891,840, ×128 = 3,186,155,520; router 368,640 + 128 bias; norms 5,760 →
 * layer 26,550,080 + 3,186,155,520 + 368,768 + 5,760 = 3,213,080,128, ×36 =
 * 115,670,884,608; embeddings 2·201088·2880 = 1,158,266,880; + 2,880 →
 * 116,829,154,368 = the card's 116.83B less the 2,304 attention sinks.
 * Active: 26,550,080 + 4·24,891,840 + 368,768 + 5,760 = 126,491,968, ×36 =
 * 4,553,710,848 + 1,158,269,760 = 5,711,980,608 (5.13B without the
 * 579,133,440 input embedding: 5,132,847,168). */
static void test_gpt_oss_120b(void **state)
{
    (void)state;
    const pe_model m = {.layers = 36, .hidden = 2880, .heads = 64, .kv_heads = 8,
                        .has_head_dim = true, .head_dim = 64, .ffn_hidden = 2880,
                        .vocab = 201088, .seq_len = 4096, .mlp = PE_MLP_SWIGLU,
                        .norm = PE_NORM_RMSNORM, .bias = true, .position = PE_POSITION_ROTARY,
                        .attention = PE_ATTENTION_FLASH, .experts = 128, .top_k = 4,
                        .moe_ffn_hidden = 2880, .moe_every = 1, .moe_imbalance = 1};
    pe_moe_params mp;
    params_moe(&m, &mp);
    assert_true(mp.att == 26542080.0);
    assert_true(mp.moe_expert == 3186155520.0);
    assert_true(mp.total == 116829154368.0);
    assert_true(mp.active == 5711980608.0);
}

/* A dense model keeps P2 and P5 bit for bit: Llama-2 70B layer 855,654,400. */
static void test_dense_unchanged(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.has_params = false;
    pe_moe_params mp;
    params_moe(&s.model, &mp);
    assert_true(mp.layer_dense == params_layer_dims(&s.model));
    assert_true(mp.n_moe == 0.0);
    assert_true(mp.total == params_total(&s.model, params_layer(&s.model), 1));
    assert_true(mp.active == mp.total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixtral_8x7b),     cmocka_unit_test(test_deepseek_v3),
        cmocka_unit_test(test_moe_layer_counts), cmocka_unit_test(test_gpt_oss_120b),
        cmocka_unit_test(test_dense_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
