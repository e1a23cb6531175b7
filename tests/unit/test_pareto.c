/* test_pareto.c — the Pareto front of (memory, step time): a hand example,
 * ties, and a property over random points: every optimal point is
 * dominated by no eligible point, every other eligible point is dominated
 * by some eligible point (brute force, O(n²)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/pareto.h"

static bool dominates(double xa, double ya, double xb, double yb)
{
    return xa <= xb && ya <= yb && (xa < xb || ya < yb);
}

/* Five plans (memory GiB, step s):
 *   0 (10, 9)  least memory                     → optimal
 *   1 (20, 5)  nothing with ≤ 20 GiB is faster  → optimal
 *   2 (20, 6)  same memory as 1, slower         → dominated by 1
 *   3 (30, 5)  as fast as 1 with more memory    → dominated by 1
 *   4 (40, 1)  fastest                          → optimal
 *   5 (5, 1)   not eligible (not ok): ignored, though it would dominate all */
static void test_hand_example(void **state)
{
    (void)state;
    const double x[] = {10, 20, 20, 30, 40, 5}, y[] = {9, 5, 6, 5, 1, 1};
    const bool eligible[] = {true, true, true, true, true, false};
    bool opt[6];
    size_t count;
    pe_error err;
    assert_int_equal(pareto_mark(x, y, eligible, 6, opt, &count, &err), PE_OK);
    assert_int_equal(count, 3);
    assert_true(opt[0] && opt[1] && !opt[2] && !opt[3] && opt[4] && !opt[5]);
}

/* Equal points do not dominate each other: both are optimal. */
static void test_equal_points(void **state)
{
    (void)state;
    const double x[] = {10, 10, 12}, y[] = {3, 3, 3};
    const bool eligible[] = {true, true, true};
    bool opt[3];
    size_t count;
    pe_error err;
    assert_int_equal(pareto_mark(x, y, eligible, 3, opt, &count, &err), PE_OK);
    assert_int_equal(count, 2);
    assert_true(opt[0] && opt[1] && !opt[2]);
    assert_int_equal(pareto_mark(x, y, eligible, 0, opt, &count, &err), PE_OK);
    assert_int_equal(count, 0);
}

/* Random points on a coarse grid (many ties), a quarter not eligible. */
static void test_property(void **state)
{
    (void)state;
    enum { N = 600 };
    static double x[N], y[N];
    static bool eligible[N], opt[N];
    srand(12345);
    for (int round = 0; round < 20; round++) {
        size_t n = (size_t)(rand() % N) + 1;
        for (size_t i = 0; i < n; i++) {
            x[i] = rand() % 40;
            y[i] = rand() % (round % 2 ? 40 : 400) / 7.0;
            eligible[i] = rand() % 4 != 0;
        }
        size_t count, seen = 0;
        pe_error err;
        assert_int_equal(pareto_mark(x, y, eligible, n, opt, &count, &err), PE_OK);
        for (size_t i = 0; i < n; i++) {
            if (!eligible[i]) {
                assert_false(opt[i]);
                continue;
            }
            bool dominated = false;
            for (size_t j = 0; j < n && !dominated; j++)
                dominated = eligible[j] && dominates(x[j], y[j], x[i], y[i]);
            assert_true(opt[i] == !dominated);
            seen += opt[i];
        }
        assert_int_equal(seen, count);
    }
}

/* Over report rows: only ok rows take part; y is the rank_by figure. */
static void test_rows(void **state)
{
    (void)state;
    pe_row rows[3];
    memset(rows, 0, sizeof rows);
    rows[0].result = (pe_result){.status = PE_STATUS_OK, .mem_total_gib = 50, .step_time_s = 2};
    rows[1].result = (pe_result){.status = PE_STATUS_OK, .mem_total_gib = 40, .step_time_s = 3};
    rows[2].result = (pe_result){.status = PE_STATUS_OVER_TIME, .mem_total_gib = 10, .step_time_s = 1};
    rows[0].result.mfu = 0.3; /* by mfu, row 1 has both less memory and more mfu */
    rows[1].result.mfu = 0.4;
    const pe_rank_order step = {{PE_RANK_STEP_TIME}, 1}, mfu = {{PE_RANK_MFU}, 1};
    bool opt[3];
    size_t count;
    pe_error err;
    assert_int_equal(pareto_rows(rows, 3, &step, opt, &count, &err), PE_OK);
    assert_int_equal(count, 2); /* a trade-off: 50 GiB 2 s against 40 GiB 3 s */
    assert_true(opt[0] && opt[1] && !opt[2]);
    assert_int_equal(pareto_rows(rows, 3, &mfu, opt, &count, &err), PE_OK);
    assert_int_equal(count, 1); /* row 1: less memory and higher mfu */
    assert_true(!opt[0] && opt[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_example),
        cmocka_unit_test(test_equal_points),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
