/* test_nccl_buffers.c — docs/model.md §12 A26, NCCL's communicator buffers
 * (framework nccl_channels) against hand arithmetic: in the device total
 * (mem_total_gib) and never in reserved, neutral at 0, per pipeline
 * neighbour, and more channels or a larger group never lower it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"

/* GPT-3 175B on 32 nodes (256 GPUs) with memory by phase and C channels. */
static pe_scenario gpt3(int64_t channels)
{
    pe_scenario s = fx_gpt3(32);
    s.framework = (pe_framework){.present = true,
                                 .memory_by_phase = true,
                                 .loss_bytes = 4,
                                 .allocator_fragmentation = 0.1,
                                 .nccl_channels = channels};
    return s;
}

/* The buffer set by hand (NVIDIA/nccl v2.21.5-1 init.cc): LL 8·512·8·16 =
 * 524,288, LL128 120·640·8·8 = 4,915,200, Simple 4,194,304: 9,633,792 bytes,
 * rounded up to 2 MiB: 10,485,760. sets(1) 0, sets(2) 2, sets(8) 3. */
static void test_a26_sets(void **state)
{
    (void)state;
    assert_true(8.0 * 512 * 8 * 16 + 120.0 * 640 * 8 * 8 + 4194304.0 == 9633792.0);
    assert_true(PE_A26_BYTES_PER_SET == 5.0 * 2097152.0); /* ⌈9,633,792 / 2 MiB⌉ = 5 */
    assert_true(mem_nccl_sets(1) == 0.0 && mem_nccl_sets(2) == 2.0 && mem_nccl_sets(8) == 3.0);
    /* tp 8, dp 32, 32 channels: 32·10,485,760·(3 + 0 + 3 + 0 + 0) = 2,013,265,920 */
    assert_true(mem_nccl_buffers(32 * PE_A26_BYTES_PER_SET, 8, 1, 32, 1, 0) == 2013265920.0);
}

/* A whole plan, dp 32 tp 8 zero 1 (pp 1): 32 channels add 2,013,265,920 bytes
 * to the device total, the reserved bytes and the step do not move; dp 4 tp
 * 8 pp 8 (1f1b, stages of 13, 6 × 12, 11 layers, so that a middle stage is
 * a candidate): the end stages have one neighbour, 32·10 MiB·(3 + 3 + 1·2)
 * = 2,684,354,560; a middle stage two, (3 + 3 + 2·2) = 3,355,443,200. */
static void test_a26_hand(void **state)
{
    (void)state;
    const pe_scenario on = gpt3(32), off = gpt3(0);
    pe_plan p = fx_plan(32, 8, 1, 1);
    p.zero = 1;
    pe_result r_on, r_off;
    pe_detail d_on, d_off;
    fx_eval_detail(&on, &p, &r_on, &d_on);
    fx_eval_detail(&off, &p, &r_off, &d_off);
    assert_true(d_on.valid && d_off.valid);
    assert_true(d_on.a26[0] == 2013265920.0 && d_off.a26[0] == 0.0);
    assert_rel((r_on.mem_total_gib - r_off.mem_total_gib) * GIB, 2013265920.0, 1e-9);
    assert_true(r_on.mem_reserved_gib == r_off.mem_reserved_gib);
    assert_true(r_on.mem_peak_gib == r_off.mem_peak_gib);
    assert_true(r_on.step_time_s == r_off.step_time_s);

    pe_plan q = fx_plan(4, 8, 8, 1);
    q.zero = 1;
    q.first_stage_layers = 13, q.last_stage_layers = 11; /* uneven: a middle candidate */
    fx_eval_detail(&on, &q, &r_on, &d_on);
    assert_true(d_on.valid);
    assert_true(d_on.a26[0] == 2684354560.0 && d_on.a26[1] == 2684354560.0);
    assert_true(d_on.stages == 3 && d_on.a26[2] == 3355443200.0);
    q.first_stage_layers = q.last_stage_layers = 0; /* even, interleaved: chunks wrap, two peers */
    q.schedule = PE_SCHEDULE_INTERLEAVED, q.virtual_stages = 2;
    fx_eval_detail(&on, &q, &r_on, &d_on);
    assert_true(d_on.valid && d_on.a26[0] == 3355443200.0);
}

/* Neutral: nccl_channels 0 gives the totals of the key absent bit for bit
 * (textbook memory has no A26 either); more channels or a larger dp group
 * never lower the device total (a property). */
static void test_a26_neutral_monotone(void **state)
{
    (void)state;
    pe_scenario none = gpt3(0);
    none.framework.nccl_channels = 0;
    const pe_plan p = fx_plan(32, 8, 1, 1);
    pe_scenario textbook = fx_gpt3(32);
    pe_scenario textbook_c = textbook;
    textbook_c.framework = (pe_framework){.present = true, .nccl_channels = 32};
    assert_true(fx_eval(&textbook, &p).mem_total_gib == fx_eval(&textbook_c, &p).mem_total_gib);
    double last = fx_eval(&none, &p).mem_total_gib;
    for (int64_t c = 1; c <= 64; c *= 2) {
        const pe_scenario s = gpt3(c);
        const double total = fx_eval(&s, &p).mem_total_gib;
        assert_true(total > last);
        last = total;
    }
    const pe_scenario s = gpt3(16);
    double prev = 0.0;
    for (int64_t dp = 1; dp <= 32; dp *= 2) {
        pe_result r;
        pe_detail d;
        pe_plan pd = fx_plan(dp, 8, 1, 1);
        fx_eval_detail(&s, &pd, &r, &d);
        assert_true(d.a26[0] >= prev);
        prev = d.a26[0];
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a26_sets),
        cmocka_unit_test(test_a26_hand),
        cmocka_unit_test(test_a26_neutral_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
