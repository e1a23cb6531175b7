/* test_memory_schedule.c — docs/model.md §3 A6″, the micro-batches in
 * flight of an interleaved schedule that runs N micro-batches contiguously in
 * each model chunk (framework pp_microbatch_group; Llama 3, arXiv:2407.21783
 * §3.3.2 Fig. 6): against hand arithmetic, its neutrality (0 and N = p are
 * A6's interleaved row bit for bit), and the property that fewer contiguous
 * micro-batches never raise the memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"

/* By hand, k = min(p + (p − 1 − 2j + (v − 1)·(N − p))/v, m), N in [p, m]:
 *   p 16, v 8, m 32 (Llama 3 405B at 8K, DP 64):
 *     N 24, j 0:  16 + (15 + 7·8)/8 = 16 + 71/8 = 24.875
 *     N 24, j 1:  16 + (13 + 56)/8 = 16 + 69/8 = 24.625
 *     N 24, j 15: 16 + (−15 + 56)/8 = 16 + 41/8 = 21.125
 *     N 16 (= p), j 0: 16 + 15/8 = 17.875 (A6's row: Megatron's 2·15 + 7·16 + 1
 *       = 143 chunks of one layer, over v = 8)
 *     N 40 > m: N = 32 (breadth-first), j 0: 16 + (15 + 7·16)/8 = 31.875
 *     N 4 < p: N = 16, j 0: 17.875
 *   p 16, v 8, m 8 (fewer micro-batches than stages): min(17.875, 8) = 8
 *   p 1: 1 */
static void test_a6_group_hand(void **state)
{
    (void)state;
    assert_rel(act_inflight_grouped(16, 32, 8, 24, 0), 24.875, 1e-15);
    assert_rel(act_inflight_grouped(16, 32, 8, 24, 1), 24.625, 1e-15);
    assert_rel(act_inflight_grouped(16, 32, 8, 24, 15), 21.125, 1e-15);
    assert_rel(act_inflight_grouped(16, 32, 8, 16, 0), 17.875, 1e-15);
    assert_rel(act_inflight_grouped(16, 32, 8, 40, 0), 31.875, 1e-15);
    assert_rel(act_inflight_grouped(16, 32, 8, 4, 0), 17.875, 1e-15);
    assert_rel(act_inflight_grouped(16, 8, 8, 24, 0), 8.0, 1e-15);
    assert_rel(act_inflight_grouped(1, 32, 8, 24, 0), 1.0, 1e-15);
}

/* N = p is A6's interleaved row exactly, for every rank. */
static void test_a6_group_is_a6_at_p(void **state)
{
    (void)state;
    for (int p = 2; p <= 32; p *= 2)
        for (int v = 2; v <= 8; v++)
            for (int j = 0; j < p; j++) {
                const double m = 4.0 * p;
                assert_true(act_inflight_grouped(p, m, v, p, j) ==
                            act_inflight_stage(PE_SCHEDULE_INTERLEAVED, p, m, v, j));
            }
}

/* GPT-3 175B on 8 MI300X nodes, dp 1, tp 8 (sp), pp 8, interleaved v 2:
 * L/p = 12 layers a stage, m = 1536. A_layer (recompute none, standard
 * attention) = 2048·(10h + 24h + 5·a·s)/8 = 2048·1,400,832/8 = 358,612,992.
 *   N 0 (neutral, p = 8): k(0) = 8 + 7/2 = 11.5,
 *     A6 = 358,612,992·12·11.5 = 49,488,592,896
 *   N 12: k(0) = 8 + (7 + 1·4)/2 = 13.5, A6 = 358,612,992·12·13.5 = 58,095,304,704 */
static pe_scenario gpt3_group(int64_t n, int framework)
{
    pe_scenario s = fx_gpt3(8);
    if (framework)
        s.framework = (pe_framework){.present = true, .recompute_num_layers = 1,
                                     .pp_microbatch_group = n};
    return s;
}

static pe_plan interleaved_plan(int64_t v)
{
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    p.virtual_stages = v;
    return p;
}

static void eval_group(int64_t n, int framework, const pe_plan *p, pe_result *r, pe_detail *d)
{
    const pe_scenario s = gpt3_group(n, framework);
    fx_eval_detail(&s, p, r, d);
    assert_true(d->valid);
}

static void test_a6_group_plan_hand(void **state)
{
    (void)state;
    const pe_plan p = interleaved_plan(2);
    pe_result r;
    pe_detail d;
    eval_group(0, 1, &p, &r, &d);
    assert_rel(d.k[0], 11.5, 1e-15);
    assert_rel(d.a6[0], 49488592896.0, 1e-12);
    eval_group(12, 1, &p, &r, &d);
    assert_rel(d.k[0], 13.5, 1e-15);
    assert_rel(d.a6[0], 58095304704.0, 1e-12);
}

/* Neutral: no framework, pp_microbatch_group 0 and N = p give the same
 * memory bit for bit. */
static void test_a6_group_neutral(void **state)
{
    (void)state;
    const pe_plan p = interleaved_plan(2);
    pe_result r0, r1, r2;
    pe_detail d;
    eval_group(0, 0, &p, &r0, &d);
    eval_group(0, 1, &p, &r1, &d);
    eval_group(8, 1, &p, &r2, &d);
    assert_true(r0.mem_total_gib == r1.mem_total_gib);
    assert_true(r0.mem_total_gib == r2.mem_total_gib);
    assert_true(r0.mem_activations_gib == r2.mem_activations_gib);
}

/* Property: fewer contiguous micro-batches never raise the memory — of the
 * in-flight count on any rank, and of a whole plan (v 2, 3, 4, 6). */
static void test_a6_group_fewer_never_more(void **state)
{
    (void)state;
    for (int p = 2; p <= 16; p++)
        for (int v = 2; v <= 8; v++)
            for (int m = 1; m <= 40; m += 3)
                for (int j = 0; j < p; j++)
                    for (int n = 0; n < 44; n++)
                        assert_true(act_inflight_grouped(p, m, v, n, j) <=
                                    act_inflight_grouped(p, m, v, n + 1, j));
    const int64_t vs[] = {2, 3, 4, 6};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        const pe_plan p = interleaved_plan(vs[i]);
        double before = 0.0;
        for (int64_t n = 0; n <= 64; n += 4) {
            pe_result r;
            pe_detail d;
            eval_group(n, 1, &p, &r, &d);
            assert_true(r.mem_total_gib >= before);
            before = r.mem_total_gib;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a6_group_hand),
        cmocka_unit_test(test_a6_group_is_a6_at_p),
        cmocka_unit_test(test_a6_group_plan_hand),
        cmocka_unit_test(test_a6_group_neutral),
        cmocka_unit_test(test_a6_group_fewer_never_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
