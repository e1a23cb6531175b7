/* test_interval.c — docs/model.md §8 S6 and §12 "Prediction intervals":
 * the interval of a step time, and its numbers from leave-one-out
 * residuals, against hand arithmetic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "calibrate/interval.h"
#include "model/memory.h"
#include "model/step.h"

/* S6: lo = step·(1 − δ−), hi = step·(1 + δ+). */
static void test_s6(void **state)
{
    (void)state;
    /* 10·(1 − 0.25) = 7.5; 10·(1 + 0.5) = 15 */
    assert_true(step_interval_lo(10.0, 0.25) == 7.5);
    assert_true(step_interval_hi(10.0, 0.5) == 15.0);
    /* the default: 12·(1 − 1/3) = 8, 12·(1 + 0.5) = 18 */
    assert_true(fabs(step_interval_lo(12.0, PE_INTERVAL_DEFAULT_BELOW) - 8.0) < 1e-12);
    assert_true(step_interval_hi(12.0, PE_INTERVAL_DEFAULT_ABOVE) == 18.0);
    /* δ = 0: the point itself */
    assert_true(step_interval_lo(3.0, 0.0) == 3.0 && step_interval_hi(3.0, 0.0) == 3.0);
}

/* Type-7 quantiles: h = (n − 1)·p. */
static void test_quantile(void **state)
{
    (void)state;
    const double x[5] = {1, 2, 3, 4, 5};
    /* p 0.1: h = 0.4 → 1 + 0.4·(2 − 1) = 1.4; p 0.9: h = 3.6 → 4 + 0.6·1 = 4.6 */
    assert_true(fabs(interval_quantile(x, 5, 0.1) - 1.4) < 1e-12);
    assert_true(fabs(interval_quantile(x, 5, 0.9) - 4.6) < 1e-12);
    assert_true(interval_quantile(x, 5, 1.0) == 5.0);
    /* t(0.90, 3) / z(0.90) = 1.638 / 1.2816 = 1.278090; beyond the table: 1 */
    assert_true(fabs(interval_t_ratio(3) - 1.638 / 1.2816) < 1e-12);
    assert_true(interval_t_ratio(31) == 1.0);
}

/* Residuals u = ln(measured/predicted) → δ±. */
static void test_from_residuals(void **state)
{
    (void)state;
    /* four residuals −0.10, −0.02, 0.04, 0.08 (given unsorted):
     * q10: h = 0.3 → −0.10 + 0.3·0.08 = −0.076; q90: h = 2.7 → 0.04 + 0.7·0.04 = 0.068;
     * w = t(0.90, 3)/z(0.90)·√(1 + 1/4) = 1.278090·1.118034 = 1.428948;
     * δ− = 1 − e^(−0.076·1.428951) = 1 − e^−0.108600 = 0.102911;
     * δ+ = e^(0.068·1.428951) − 1 = e^0.097169 − 1 = 0.102046 */
    double u[4] = {0.04, -0.10, 0.08, -0.02};
    pe_interval_fit f;
    assert_true(interval_from_residuals(u, 4, &f));
    assert_int_equal(f.runs, 4);
    assert_true(fabs(f.q_lo + 0.076) < 1e-12 && fabs(f.q_hi - 0.068) < 1e-12);
    assert_true(fabs(f.widen - 1.428948) < 1e-6);
    assert_true(fabs(f.below - 0.102911) < 1e-6);
    assert_true(fabs(f.above - 0.102046) < 1e-6);
    /* all residuals inside ±1%: the 2% floor either side, ln(0.98) and ln(1.02) */
    double v[3] = {0.001, -0.002, 0.003};
    assert_true(interval_from_residuals(v, 3, &f));
    assert_true(fabs(f.below - 0.02) < 1e-12 && fabs(f.above - 0.02) < 1e-12);
    /* every residual on one side: the other side keeps the floor, so lo ≤ point ≤ hi */
    double w[3] = {0.05, 0.06, 0.07};
    assert_true(interval_from_residuals(w, 3, &f));
    assert_true(fabs(f.below - 0.02) < 1e-12 && f.above > 0.05);
    /* one residual: no interval */
    double one[1] = {0.1};
    assert_false(interval_from_residuals(one, 1, &f));
}

/* interval_residuals reads calibrate's leave-one-out errors of the fit rows:
 * +10% → u = −ln 1.1; predict rows are skipped. */
static void test_residuals_of_fit(void **state)
{
    (void)state;
    pe_fit_run runs[3] = {{.fit = true, .loo_error_pct = 10.0},
                          {.fit = false, .loo_error_pct = 50.0},
                          {.fit = true, .loo_error_pct = -20.0}};
    pe_fit f = {.runs = runs, .count = 3};
    double u[3];
    assert_int_equal(interval_residuals(&f, u), 2);
    assert_true(fabs(u[0] + log(1.1)) < 1e-12 && fabs(u[1] + log(0.8)) < 1e-12);
}

/* M23: the memory peak's interval, lo = peak·(1 − δ−), hi = peak·(1 + δ+),
 * and megatron-core's numbers from its two residuals by hand. */
static void test_m23(void **state)
{
    (void)state;
    /* 80·(1 − 0.05) = 76; 80·(1 + 0.1) = 88 */
    assert_true(fabs(mem_interval_lo(80.0, 0.05) - 76.0) < 1e-12);
    assert_true(fabs(mem_interval_hi(80.0, 0.1) - 88.0) < 1e-12);
    assert_true(mem_interval_lo(5.0, 0.0) == 5.0 && mem_interval_hi(5.0, 0.0) == 5.0);
    /* megatron-pr482's fit files: published 49.8 and 69.1 GiB, predicted
     * 48.053 and 68.132: u = ln(49.8/48.053) = 0.035711, ln(69.1/68.132) =
     * 0.014108; q10: h = 0.1 → 0.014108 + 0.1·0.021603 = 0.016268, q90: h =
     * 0.9 → 0.014108 + 0.9·0.021603 = 0.033551; w = 3.078/1.2816·√1.5 =
     * 2.941452; below: min(w·q10 = 0.047852, ln 0.98) = ln 0.98 → δ− = 0.02;
     * above: w·q90 = 0.098686 → δ+ = e^0.098686 − 1 = 0.103720 */
    double u[2] = {log(49.8 / 48.053), log(69.1 / 68.132)};
    pe_interval_fit f;
    assert_true(interval_from_residuals(u, 2, &f));
    assert_true(fabs(f.widen - 2.941452) < 1e-6);
    assert_true(fabs(f.below - 0.02) < 1e-12);
    assert_true(fabs(f.above - 0.103720) < 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s6),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_from_residuals),
        cmocka_unit_test(test_residuals_of_fit),
        cmocka_unit_test(test_m23),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
