/* test_priors.c — calibration with priors (calibrate/priors.h; docs/model.md
 * §12 "With priors") against hand arithmetic: the regularised loss, the
 * regularised optimum of a tiny problem whose answer has a closed form,
 * the curvature test that says whether the runs constrain a number, and a
 * priors file read back (and refused where it is wrong). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calibrate/priors.h"

/* Two runs' log errors 0.05 and −0.1 at σ_run 0.05 give (1)² + (−2)² = 5;
 * a number at 0.7 with prior 0.8 ± 0.05 adds ((0.7 − 0.8)/0.05)² = 4;
 * a number without a prior adds nothing: 9. */
static void test_loss_by_hand(void **state)
{
    (void)state;
    const double e[] = {0.05, -0.1}, x[] = {0.7, 123.0}, mu[] = {0.8, 0.0},
                 sigma[] = {0.05, 1.0};
    const bool has[] = {true, false};
    assert_float_equal(prior_loss(e, 2, x, mu, sigma, has, 2), 9.0, 1e-12);
    assert_float_equal(prior_loss(e, 2, NULL, NULL, NULL, NULL, 0), 5.0, 1e-12);
}

/* A tiny problem: runs whose log errors are e_i = w·(x − a_i), one number x
 * with prior μ ± σ. The loss Σ (w(x − a_i)/0.05)² + ((x − μ)/σ)² is a
 * parabola; its minimum is x* = (W·Σa_i + μ/σ²)/(W·n + 1/σ²), W = (w/0.05)². */
typedef struct {
    double w, a[2], mu, sigma;
    int n;
} tiny;

static double runs_part(const tiny *t, double x)
{
    double e[2];
    for (int i = 0; i < t->n; i++)
        e[i] = t->w * (x - t->a[i]);
    return prior_loss(e, (size_t)t->n, NULL, NULL, NULL, NULL, 0);
}

static double tiny_loss(const double *x, const void *arg)
{
    const tiny *t = arg;
    const bool has = true;
    return runs_part(t, x[0]) + prior_loss(NULL, 0, x, &t->mu, &t->sigma, &has, 1);
}

/* w = 1, a = {0.6, 0.7}, μ = 0.9 ± 0.1: W = 1/0.05² = 400, so
 * x* = (400·1.3 + 0.9/0.01)/(400·2 + 1/0.01) = (520 + 90)/(800 + 100)
 *    = 610/900 = 0.677778 — the runs pull it from 0.9 toward their 0.65.
 * The runs' χ² rise for a move of σ = 0.1: D(x) = 400·Σ(x − a_i)², so
 * (D(x+σ) + D(x−σ) − 2D(x))/2 = 400·2·σ² = 8 ≥ 1: constrained. */
static void test_regularised_optimum(void **state)
{
    (void)state;
    const tiny t = {1.0, {0.6, 0.7}, 0.9, 0.1, 2};
    double best;
    prior_simplex(1, tiny_loss, &t, &t.mu, &t.sigma, &best);
    assert_float_equal(best, 610.0 / 900.0, 1e-6);
    const double c = prior_curvature(runs_part(&t, best - 0.1), runs_part(&t, best),
                                     runs_part(&t, best + 0.1));
    assert_float_equal(c, 8.0, 1e-6);
    assert_true(prior_constrained(c));
}

/* A number the runs barely see: one run, w = 0.01, a = 0.5, μ = 0.9 ± 0.1:
 * W = (0.01/0.05)² = 0.04, x* = (0.04·0.5 + 90)/(0.04 + 100) = 90.02/100.04
 * = 0.8998401; the rise for a move of σ is 0.04·σ² = 0.0004 < 1: not
 * constrained, so calibrate holds it at μ (test_calibrate_priors.sh shows
 * the number printed at exactly its prior). */
static void test_unconstrained(void **state)
{
    (void)state;
    const tiny t = {0.01, {0.5, 0.0}, 0.9, 0.1, 1};
    double best;
    prior_simplex(1, tiny_loss, &t, &t.mu, &t.sigma, &best);
    assert_float_equal(best, 90.02 / 100.04, 1e-6);
    const double c = prior_curvature(runs_part(&t, best - 0.1), runs_part(&t, best),
                                     runs_part(&t, best + 0.1));
    assert_float_equal(c, 0.0004, 1e-9);
    assert_false(prior_constrained(c));
    assert_true(prior_constrained(1.0) && !prior_constrained(0.999));
}

static const char *const NAMES[PE_PRIOR_NUMBERS] = {"gemm_efficiency", "elementwise_efficiency",
                                                    "gemm_half_gflop", "attention_efficiency",
                                                    "fp8_gemm_efficiency",
                                                    "microbatch_overhead_us", "gemm_rate_scale"};
static const double LO[PE_PRIOR_NUMBERS] = {0.05, 0.02, 0.0, 0.02, 0.05, 0.0, 0.1};
static const double HI[PE_PRIOR_NUMBERS] = {1.0, 1.0, 1000.0, 1.0, 1.0, 100000.0, 2.0};

static pe_status read_text(const char *text, pe_priors *p, pe_error *err)
{
    char path[] = "/tmp/planeval-test-priors-XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    const pe_status st = priors_read(path, NAMES, LO, HI, p, err);
    remove(path);
    return st;
}

static void test_read(void **state)
{
    (void)state;
    pe_priors p;
    pe_error err = {0};
    assert_int_equal(read_text("number,value,width,basis\n"
                               "attention_efficiency,0.5,0.1,\"attention.csv, causal rows\"\n",
                               &p, &err),
                     PE_OK);
    assert_true(p.has[3] && !p.has[0]);
    assert_float_equal(p.value[3], 0.5, 0);
    assert_float_equal(p.width[3], 0.1, 0);
    assert_string_equal(p.basis[3], "attention.csv, causal rows");
    const char *bad[] = {
        "number,value,width\nattention_efficiency,0.5,0.1\n",        /* header */
        "number,value,width,basis\nflops,0.5,0.1,x\n",               /* name */
        "number,value,width,basis\ngemm_efficiency,1.5,0.1,x\n",     /* range */
        "number,value,width,basis\ngemm_efficiency,0.5,0,x\n",       /* width */
        "number,value,width,basis\ngemm_efficiency,0.5,0.1,\n",      /* basis */
        "number,value,width,basis\ngemm_efficiency,0x1,0.1,x\n",     /* number */
        "number,value,width,basis\ngemm_efficiency,0.5,0.1,x\ngemm_efficiency,0.6,0.1,y\n",
        "number,value,width,basis\n",                                /* no prior */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(read_text(bad[i], &p, &err), PE_BAD_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loss_by_hand),
        cmocka_unit_test(test_regularised_optimum),
        cmocka_unit_test(test_unconstrained),
        cmocka_unit_test(test_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
