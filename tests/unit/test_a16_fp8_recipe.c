/* test_a16_fp8_recipe.c — docs/model.md §12 A16 under FP8: the TP-gathered
 * QKV and MLP inputs are kept in float8 (2h bytes a token) only where the
 * all-gather carries float8. torchtitan applies Float8ColwiseParallel for
 * every float8 recipe but rowwise (parallelize_llama.py @820504e, the rule
 * X22 times), so under rowwise they are bf16 (4h), as without FP8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"
#include "model/memory_native.h"

static pe_detail a16_detail(pe_compute compute, pe_fp8_recipe recipe)
{
    pe_scenario s = fx_gpt3(8);
    s.precision.compute = compute;
    s.precision.fp8_recipe = recipe;
    s.framework = (pe_framework){.present = true, .memory_by_phase = true, .loss_bytes = 4,
                                 .tp_gathered_inputs = true};
    const pe_plan p = fx_plan(8, 8, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    return d;
}

/* GPT-3 175B, tp 8 with sp, s' 2048, b 1, h 12288: A16 adds
 * 2048·1·G·(1 − 1/8) to A4, G = 4h = 49,152 bf16 and 2h = 24,576 float8, so
 * rowwise keeps 2048·24,576·7/8 = 44,040,192 bytes a layer more than
 * tensorwise (and the same as recipe none's halving under tensorwise). */
static void test_a16_rowwise_gathers_bf16(void **state)
{
    (void)state;
    const pe_detail tw = a16_detail(PE_COMPUTE_FP8, PE_FP8_RECIPE_TENSORWISE);
    const pe_detail rw = a16_detail(PE_COMPUTE_FP8, PE_FP8_RECIPE_ROWWISE);
    const pe_detail none = a16_detail(PE_COMPUTE_FP8, PE_FP8_RECIPE_NONE);
    assert_rel(rw.a_layer - tw.a_layer, 44040192.0, 1e-9);
    assert_true(none.a_layer == tw.a_layer);
    assert_rel(act_gathered_inputs(2048, 1, 8, true, 4.0 * 12288) -
                   act_gathered_inputs(2048, 1, 8, true, 2.0 * 12288),
               44040192.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a16_rowwise_gathers_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
