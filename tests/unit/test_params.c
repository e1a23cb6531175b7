/* test_params.c — docs/model.md §2, P1–P7, against hand arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/params.h"

/* P1–P5 from the GPT-3 175B dimensions (no params key). */
static void test_gpt3_dimensions(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.has_params = false;
    const pe_model *m = &s.model;

    /* d = h/a = 12288/96 = 128 */
    assert_true(params_head_dim(m) == 128.0);
    /* layernorm: norm(h) = 2h = 24576 */
    assert_true(params_norm(m) == 24576.0);
    /* P1 h(h + 2gd) + h² + 2hf with g·d = h, f = 4h: 3h² + h² + 8h² = 12h²
     *    = 12 · 12288² = 12 · 150,994,944 = 1,811,939,328 */
    assert_true(params_matmul(m) == 1811939328.0);
    /* P2 biases (h + 2gd) + h + (f + h) = 3h + h + 5h = 9h = 110,592;
     *    norms 2·norm(h) = 4h = 49,152 → 1,811,939,328 + 110,592 + 49,152 = 1,812,099,072 */
    assert_true(params_layer_dims(m) == 1812099072.0);
    assert_true(params_layer(m) == 1812099072.0); /* no params key → P2 */
    /* P3 V·h + s·h = 51200·12288 + 2048·12288 = 629,145,600 + 25,165,824 = 654,311,424 */
    assert_true(params_embed(m) == 654311424.0);
    /* P4 untied: V·h = 629,145,600 at any p */
    assert_true(params_out(m, 1) == 629145600.0);
    assert_true(params_out(m, 8) == 629145600.0);
    /* P5 96 · 1,812,099,072 + 654,311,424 + 629,145,600 + 24,576
     *    = 173,961,510,912 + 1,283,481,600 = 175,244,992,512 (the "175B") */
    assert_true(params_total(m, params_layer(m), 1) == 175244992512.0);
}

/* P1–P5 for a swiglu / rmsnorm / GQA / rotary / no-bias model: Llama-2 70B
 * (h 8192, a 64, g 8, f 28672, V 32000, L 80). */
static void test_llama2_70b(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_model *m = &s.model;
    *m = (pe_model){.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn_hidden = 28672,
                    .vocab = 32000, .seq_len = 4096, .mlp = PE_MLP_SWIGLU, .norm = PE_NORM_RMSNORM,
                    .bias = false, .dropout = false, .position = PE_POSITION_ROTARY,
                    .attention = PE_ATTENTION_FLASH};
    /* rmsnorm: norm(h) = h = 8192 */
    assert_true(params_norm(m) == 8192.0);
    /* P1 d = 128: h(h + 2·8·128) + h² + 3hf = 8192·10240 + 67,108,864 + 3·8192·28672
     *    = 83,886,080 + 67,108,864 + 704,643,072 = 855,638,016 */
    assert_true(params_matmul(m) == 855638016.0);
    /* P2 no bias; + 2·norm(h) = 16,384 → 855,654,400 */
    assert_true(params_layer(m) == 855654400.0);
    /* P3 rotary: V·h = 32000·8192 = 262,144,000 */
    assert_true(params_embed(m) == 262144000.0);
    /* P5 80·855,654,400 + 262,144,000 + 262,144,000 + 8192 = 68,976,648,192 (the "70B") */
    assert_true(params_total(m, params_layer(m), 1) == 68976648192.0);
    /* with bias on, swiglu biases: (h + 2gd) + h + (2f + h) = 10240 + 8192 + 65536 = 83,968 */
    m->bias = true;
    assert_true(params_layer_dims(m) == 855654400.0 + 83968.0);
}

/* P4 tied embeddings: 0 at p = 1, V·h (the last stage's copy) at p > 1. */
static void test_tied_output(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.tied_embeddings = true;
    assert_true(params_out(&s.model, 1) == 0.0);
    assert_true(params_out(&s.model, 2) == 629145600.0);
    /* P6 with tied: N_layer = (175e9 − 654,311,424 − 0 − 24,576)/96
     *             = 174,345,664,000/96 = 1,816,100,666.67 */
    assert_rel(params_layer_from_params(&s.model), 174345664000.0 / 96.0, 1e-15);
    /* P5 at p = 2 adds the tied copy: 175e9 + 629,145,600 */
    assert_rel(params_total(&s.model, params_layer(&s.model), 2), 175e9 + 629145600.0, 1e-15);
}

/* P6: params fixes N_layer; P5 at p = 1 gives params back. */
static void test_params_key(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    /* N_layer = (175e9 − 654,311,424 − 629,145,600 − 24,576)/96
     *         = 173,716,518,400/96 = 1,809,547,066.666… */
    assert_rel(params_layer(&s.model), 173716518400.0 / 96.0, 1e-15);
    assert_rel(params_total(&s.model, params_layer(&s.model), 1), 175e9, 1e-15);
    /* ≠ the dimension count 1,812,099,072: params wins */
    assert_true(params_layer(&s.model) < 1812099072.0);
}

/* P7 per GPU on a stage. */
static void test_params_per_gpu(void **state)
{
    (void)state;
    const double nl = 173716518400.0 / 96.0, ne = 654311424.0, no = 629145600.0, nh = 24576.0;
    /* p = 8, t = 8: L/p = 12.
     * stage 0:   (12·1,809,547,066.67 + 654,311,424)/8 = (21,714,564,800 + 654,311,424)/8
     *          = 22,368,876,224/8 = 2,796,109,528 */
    assert_rel(params_gpu(12.0, nl, ne, no, nh, 1, 0, 8.0), 2796109528.0, 1e-15);
    /* stage 7:   (21,714,564,800 + 629,145,600 + 24,576)/8 = 22,343,734,976/8 = 2,792,966,872 */
    assert_rel(params_gpu(12.0, nl, ne, no, nh, 0, 1, 8.0), 2792966872.0, 1e-15);
    /* middle stage: 21,714,564,800/8 = 2,714,320,600 */
    assert_rel(params_gpu(12.0, nl, ne, no, nh, 0, 0, 8.0), 2714320600.0, 1e-15);
    /* p = 1, t = 1: both ends → the whole model, 175e9 */
    assert_rel(params_gpu(96.0, nl, ne, no, nh, 1, 1, 1.0), 175e9, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_dimensions), cmocka_unit_test(test_llama2_70b),
        cmocka_unit_test(test_tied_output),     cmocka_unit_test(test_params_key),
        cmocka_unit_test(test_params_per_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
