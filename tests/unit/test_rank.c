/* test_rank.c — the report order (docs/model.md §9) and number formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/rank.h"
#include "output/report.h"

static pe_row row(pe_plan_status st, double key1, const char *canon, const char *name,
                  uint64_t index)
{
    pe_row r;
    memset(&r, 0, sizeof r);
    r.result.status = st;
    r.key.status = st;
    r.key.key[0] = key1;
    strcpy(r.canon, canon);
    r.name = name;
    r.index = index;
    return r;
}

static void test_round12(void **state)
{
    (void)state;
    /* 1.23456789012345 → 12 significant digits: 1.23456789012 */
    assert_true(rank_round12(1.23456789012345) == 1.23456789012);
    /* last-bit differences vanish: 0.1 + 0.2 = 0.30000000000000004 → 0.3 */
    assert_true(rank_round12(0.1 + 0.2) == rank_round12(0.3));
}

static void test_order(void **state)
{
    (void)state;
    pe_row ok_slow = row(PE_STATUS_OK, 2.0, "b", NULL, 0);
    pe_row ok_fast = row(PE_STATUS_OK, 1.0, "c", NULL, 1);
    pe_row over_time = row(PE_STATUS_OVER_TIME, 0.5, "a", NULL, 2);
    pe_row over_mem = row(PE_STATUS_OVER_MEMORY, 0.1, "a", NULL, 3);
    pe_row invalid = row(PE_STATUS_INVALID, 0, "a", NULL, 4);
    /* class first: ok › over_time › over_memory › invalid, whatever the key */
    assert_true(rank_compare(&ok_slow, &over_time) < 0);
    assert_true(rank_compare(&over_time, &over_mem) < 0);
    assert_true(rank_compare(&over_mem, &invalid) < 0);
    /* inside a class by key */
    assert_true(rank_compare(&ok_fast, &ok_slow) < 0);
    /* equal keys: canonical text in byte order ("dp16" < "dp8") */
    pe_row a = row(PE_STATUS_OK, 1.0, "dp16-x", NULL, 9);
    pe_row b = row(PE_STATUS_OK, 1.0, "dp8-x", NULL, 0);
    assert_true(rank_compare(&a, &b) < 0);
    /* equal canonical text: plan name, then input order */
    pe_row n1 = row(PE_STATUS_OK, 1.0, "same", "alpha", 5);
    pe_row n2 = row(PE_STATUS_OK, 1.0, "same", "beta", 1);
    assert_true(rank_compare(&n1, &n2) < 0);
    /* keys equal to 12 significant digits tie: 0.1 + 0.2 vs 0.3 */
    pe_row t1 = row(PE_STATUS_OK, 0.1 + 0.2, "b", NULL, 0);
    pe_row t2 = row(PE_STATUS_OK, 0.3, "a", NULL, 1);
    assert_true(rank_compare(&t2, &t1) < 0); /* tie on key → canonical "a" first */
    /* 1 + 1e-11 vs 1: 12 digits still tell them apart (1.00000000001) */
    pe_row u1 = row(PE_STATUS_OK, 1.0 + 1e-11, "a", NULL, 0);
    pe_row u2 = row(PE_STATUS_OK, 1.0, "b", NULL, 1);
    assert_true(rank_compare(&u2, &u1) < 0);
    /* 1 + 1e-13 vs 1: equal at 12 digits → canonical decides */
    pe_row v1 = row(PE_STATUS_OK, 1.0 + 1e-13, "a", NULL, 0);
    pe_row v2 = row(PE_STATUS_OK, 1.0, "b", NULL, 1);
    assert_true(rank_compare(&v1, &v2) < 0);
    pe_row i1 = row(PE_STATUS_OK, 1.0, "same", "x", 1);
    pe_row i2 = row(PE_STATUS_OK, 1.0, "same", "x", 2);
    assert_true(rank_compare(&i1, &i2) < 0);
    assert_int_equal(rank_compare(&i1, &i1), 0);
}

static void test_sort(void **state)
{
    (void)state;
    pe_row rows[4] = {
        row(PE_STATUS_INVALID, 0, "z", NULL, 0),
        row(PE_STATUS_OK, 3.0, "y", NULL, 1),
        row(PE_STATUS_INVALID, 0, "a", NULL, 2),
        row(PE_STATUS_OK, 1.0, "x", NULL, 3),
    };
    rank_sort(rows, 4);
    assert_int_equal(rows[0].index, 3);
    assert_int_equal(rows[1].index, 1);
    assert_int_equal(rows[2].index, 2); /* invalid by canonical: "a" < "z" */
    assert_int_equal(rows[3].index, 0);
}

static void test_make_row_keys(void **state)
{
    (void)state;
    pe_plan p = {.dp = 8, .tp = 1, .pp = 1, .cp = 1, .micro_batch = 1, .virtual_stages = 1};
    pe_result r;
    memset(&r, 0, sizeof r);
    r.status = PE_STATUS_OK;
    r.step_time_s = 2.5;
    r.mfu = 0.4;
    r.interventions = 2;
    r.mem_total_gib = 100;
    pe_row w;
    const pe_rank_order mfu = {{PE_RANK_MFU}, 1}, interventions = {{PE_RANK_INTERVENTIONS}, 1},
                        memory = {{PE_RANK_MEMORY}, 1};
    rank_make_row(&mfu, 7, &p, NULL, &r, &w);
    assert_true(w.key.key[0] == -0.4); /* descending */
    rank_make_row(&interventions, 7, &p, "", &r, &w);
    assert_true(w.key.key[0] == 2 && w.key.key[1] == 2.5);
    rank_make_row(&memory, 7, &p, NULL, &r, &w);
    assert_true(w.key.key[0] == 100);
    assert_null(w.name);
    rank_make_row(&memory, 7, &p, "named", &r, &w);
    assert_string_equal(w.name, "named");
    assert_string_equal(w.canon, "dp8-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0");
    /* a list: each key's figures in turn, interventions giving two */
    const pe_rank_order list = {{PE_RANK_INTERVENTIONS, PE_RANK_MEMORY, PE_RANK_MFU}, 3};
    rank_make_row(&list, 7, &p, NULL, &r, &w);
    assert_true(w.key.key[0] == 2 && w.key.key[1] == 2.5 && w.key.key[2] == 100 &&
                w.key.key[3] == -0.4 && w.key.key[4] == 0);
}

/* rank_by [step_time, memory]: equal step times (to 12 significant
 * digits) are ordered by memory before canonical text; a single key
 * [step_time] leaves them in canonical-text order, as rank_by: step_time
 * does. */
static void test_rank_by_list(void **state)
{
    (void)state;
    pe_plan pa = {.dp = 8, .tp = 1, .pp = 1, .cp = 1, .micro_batch = 1, .virtual_stages = 1};
    pe_plan pb = pa;
    pb.dp = 16; /* "dp16-…" sorts before "dp8-…" */
    pe_result ra, rb;
    memset(&ra, 0, sizeof ra);
    ra.status = PE_STATUS_OK;
    ra.step_time_s = 2.0;
    ra.mem_total_gib = 50;
    rb = ra;
    rb.step_time_s = 2.0 * (1 + 1e-14); /* a tie after rounding to 12 digits */
    rb.mem_total_gib = 60;
    const pe_rank_order one = {{PE_RANK_STEP_TIME}, 1};
    const pe_rank_order two = {{PE_RANK_STEP_TIME, PE_RANK_MEMORY}, 2};
    pe_row a, b;
    rank_make_row(&one, 0, &pa, NULL, &ra, &a);
    rank_make_row(&one, 1, &pb, NULL, &rb, &b);
    assert_true(rank_compare(&b, &a) < 0); /* tie: canonical text, dp16 first */
    rank_make_row(&two, 0, &pa, NULL, &ra, &a);
    rank_make_row(&two, 1, &pb, NULL, &rb, &b);
    assert_true(rank_compare(&a, &b) < 0); /* memory 50 < 60 breaks the tie */
    /* the column text and back */
    char buf[96];
    rank_order_format(&two, buf, sizeof buf);
    assert_string_equal(buf, "step_time,memory");
    pe_rank_order o;
    assert_true(rank_order_parse("step_time,memory", &o));
    assert_int_equal(o.count, 2);
    assert_int_equal(o.by[1], PE_RANK_MEMORY);
    assert_true(rank_order_parse("interventions", &o) && o.count == 1);
    assert_false(rank_order_parse("step_time,step_time", &o));
    assert_false(rank_order_parse("step_time,", &o));
    assert_false(rank_order_parse("speed", &o));
    /* Pareto value: the first key; step time when that key is memory */
    assert_true(rank_pareto_value(&two, &rb) == rb.step_time_s);
    const pe_rank_order mem_first = {{PE_RANK_MEMORY, PE_RANK_MFU}, 2};
    assert_true(rank_pareto_value(&mem_first, &ra) == 2.0);
}

static void test_format_double(void **state)
{
    (void)state;
    char b[40];
    report_format_double(0.1, b, sizeof b);
    assert_string_equal(b, "0.1");
    report_format_double(1.0 / 3.0, b, sizeof b); /* 16 digits read back */
    assert_string_equal(b, "0.3333333333333333");
    report_format_double(0.1 + 0.2, b, sizeof b); /* needs 17 */
    assert_string_equal(b, "0.30000000000000004");
    report_format_double(2607.6550769805908, b, sizeof b);
    assert_true(strtod(b, NULL) == 2607.6550769805908);
    report_format_double(175e9, b, sizeof b);
    assert_string_equal(b, "175000000000");
}

/* Property: for doubles of every magnitude, the text reads back as the
 * same double and is exactly the first of %.15g/%.16g/%.17g that does
 * (whole numbers below 2^53 print as plain integers). */
static void test_format_double_round_trip(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    char got[64], ref[64];
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        if (i % 3 == 0) {
            memcpy(&v, &x, sizeof v);
            if (!isfinite(v))
                continue;
        } else if (i % 3 == 1) {
            v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (int)(x % 40) - 20);
        } else {
            v = (double)(x % 1000000) / 1000.0;
        }
        report_format_double(v, got, sizeof got);
        if (strtod(got, NULL) != v)
            fail_msg("%s does not read back as %.17g", got, v);
        int n = 0;
        for (int p = 15; p <= 17; p++) {
            n = snprintf(ref, sizeof ref, "%.*g", p, v);
            if (strtod(ref, NULL) == v)
                break;
        }
        (void)n;
        bool whole = v == (double)(long long)v && fabs(v) < 9007199254740992.0;
        if (!whole && strcmp(got, ref) != 0)
            fail_msg("%s is not printf's %s", got, ref);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round12), cmocka_unit_test(test_order),
        cmocka_unit_test(test_sort), cmocka_unit_test(test_make_row_keys),
        cmocka_unit_test(test_rank_by_list),
        cmocka_unit_test(test_format_double), cmocka_unit_test(test_format_double_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
