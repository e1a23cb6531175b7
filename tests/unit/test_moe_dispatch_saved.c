/* test_moe_dispatch_saved.c — docs/model.md §3 A25, what Megatron-Core's
 * all-to-all token dispatcher saves for backward per MoE layer (framework
 * moe_dispatch_saved), against hand arithmetic; its neutrality; and that a
 * larger capacity factor never lowers the memory (a property). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"

/* Mixtral 8x7B (32 MoE layers, top-2, h 4096, s 4096) with a framework
 * that sets or leaves moe_dispatch_saved; capacity_factor c > 0 pads (ρ = c),
 * 0 is dropless (ρ = ι = 1). */
static pe_scenario mixtral(bool saved, double capacity)
{
    pe_scenario s = fx_gpt3(8);
    s.model = fx_mixtral_8x7b();
    if (capacity > 0.0)
        s.model.has_capacity_factor = true, s.model.capacity_factor = capacity;
    s.framework = (pe_framework){.present = true, .moe_dispatch_saved = saved};
    return s;
}

/* A25 by hand: tp 1, b 1, s' 4096, k 2, ρ 1, β_25 = 8 + 8 + 4 = 20:
 * 1·4096·2·1/1·20 = 163,840 bytes per MoE layer and micro-batch; ρ 1.25
 * (capacity_factor): 204,800. On one stage (pp 1, one micro-batch in
 * flight) of 32 MoE layers A6 grows by 32·163,840 = 5,242,880 bytes, and
 * M5's total by the same; nothing else moves. */
static void test_a25_hand(void **state)
{
    (void)state;
    assert_rel(act_moe_dispatch_saved(1, 4096, 2, 1, 1, PE_A25_BYTES_PER_COPY), 163840.0, 1e-15);
    assert_rel(act_moe_dispatch_saved(1, 4096, 2, 1.25, 1, PE_A25_BYTES_PER_COPY), 204800.0,
               1e-15);
    const pe_scenario on = mixtral(true, 0), off = mixtral(false, 0);
    const pe_plan p = fx_plan_ep8(PE_RECOMPUTE_NONE);
    pe_result r_on, r_off;
    pe_detail d_on, d_off;
    fx_eval_detail(&on, &p, &r_on, &d_on);
    fx_eval_detail(&off, &p, &r_off, &d_off);
    assert_true(d_on.valid && d_off.valid);
    assert_rel(d_on.moe.a25, 163840.0, 1e-12);
    assert_true(d_off.moe.a25 == 0.0);
    assert_rel(d_on.moe.a_layer_m - d_off.moe.a_layer_m, 163840.0, 1e-9);
    assert_true(d_on.k[0] == 1.0);
    assert_rel(d_on.a6[0] - d_off.a6[0], 5242880.0, 1e-9);
    assert_rel(d_on.total[0] - d_off.total[0], 5242880.0, 1e-6);
    assert_true(r_on.step_time_s == r_off.step_time_s);
}

/* Neutral: moe_dispatch_saved false gives the memory of no framework bit for
 * bit; a larger capacity factor never lowers the memory, with A25 on or off,
 * under each recompute. */
static void test_a25_neutral_capacity_monotone(void **state)
{
    (void)state;
    pe_scenario none = mixtral(false, 0);
    none.framework.present = false;
    const pe_scenario off = mixtral(false, 0);
    const pe_plan p0 = fx_plan_ep8(PE_RECOMPUTE_NONE);
    assert_true(fx_eval(&off, &p0).mem_total_gib == fx_eval(&none, &p0).mem_total_gib);
    for (int saved = 0; saved <= 1; saved++)
        for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++) {
            const pe_plan p = fx_plan_ep8((pe_recompute)rc);
            double last = 0.0, last_a25 = 0.0;
            for (double c = 1.0; c <= 4.0; c += 0.25) {
                const pe_scenario s = mixtral(saved, c);
                pe_result r;
                pe_detail d;
                fx_eval_detail(&s, &p, &r, &d);
                assert_true(r.mem_total_gib >= last);
                if (saved) /* A25 itself grows with ρ */
                    assert_true(d.moe.a25 > last_a25);
                last = r.mem_total_gib, last_a25 = d.moe.a25;
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a25_hand),
        cmocka_unit_test(test_a25_neutral_capacity_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
