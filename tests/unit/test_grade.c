/* test_grade.c — the pieces of `planeval grade` (grade.h) that decide a
 * student's mark: the mistake matcher (each usual mistake recognised from the
 * number it produces, nothing matched for a right or an unexplained number),
 * canonical plan texts, tolerances, and spreadsheet-safe cells. Scenarios are
 * the evaluator's fixtures (GPT-3 175B on MI300X nodes, eval_fixtures.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "input/catalog.h"
#include "eval_fixtures.h"
#include "grade/grade.h"
#include "input/load.h"

static double figure(const pe_scenario *s, const pe_plan *p, pe_column col)
{
    pe_eval_ctx ctx;
    pe_result r;
    double v = 0;
    evaluate_prepare(s, &ctx);
    evaluate_plan(&ctx, p, &r);
    assert_true(grade_column_value(&r, p, col, &v));
    return v;
}

/* The mistake that `submitted` is recognised as (NONE when none), rel_tol 1%. */
static pe_mistake match(const pe_scenario *s, const pe_plan *p, pe_column col, double submitted,
                        pe_mistake *also)
{
    pe_mistake_match m;
    double expected = figure(s, p, col);
    bool found = grade_match_mistake(s, p, col, expected, submitted, PE_TOL_REL, 0.01, &m);
    assert_int_equal(found, m.mistake != PE_MISTAKE_NONE);
    if (also)
        *also = m.also;
    return m.mistake;
}

/* dp64 ZeRO-3 with selective recompute: 137.86 GiB with the reserve. */
static pe_plan zero3_selective(void)
{
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.zero = 3;
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    return p;
}

static void test_state_bytes(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.model.seq_len = 2048;
    pe_plan p = fx_plan(64, 1, 1, 1);
    const double right = figure(&s, &p, COL_STATE_TOTAL_GIB);
    assert_true(fabs(right - 2607.703) < 0.01); /* 16 · 175e9 / 2^30 */
    assert_int_equal(match(&s, &p, COL_STATE_TOTAL_GIB, right * 1.073741824, NULL),
                     PE_MISTAKE_GB_GIB);
    assert_int_equal(match(&s, &p, COL_STATE_TOTAL_GIB, 12 * 175e9 / GIB, NULL),
                     PE_MISTAKE_BYTES_12);
    assert_int_equal(match(&s, &p, COL_STATE_TOTAL_GIB, 2 * 175e9 / GIB, NULL),
                     PE_MISTAKE_BYTES_2);
    /* right answers and unexplained ones name no mistake */
    assert_int_equal(match(&s, &p, COL_STATE_TOTAL_GIB, right, NULL), PE_MISTAKE_NONE);
    assert_int_equal(match(&s, &p, COL_STATE_TOTAL_GIB, 1234, NULL), PE_MISTAKE_NONE);
    /* the matcher needs the 16-byte recipe: with 18 bytes "12 instead of 16" does not apply */
    pe_scenario t = s;
    t.precision.optimizer_bytes = 14;
    double vals[8];
    assert_int_equal(
        grade_mistake_values(&t, &p, COL_STATE_TOTAL_GIB, PE_MISTAKE_BYTES_12, vals, 8), 0);
}

static void test_reserve_and_gb(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = zero3_selective();
    const double right = figure(&s, &p, COL_MEM_TOTAL_GIB);
    assert_int_equal(match(&s, &p, COL_MEM_TOTAL_GIB, right - 10, NULL), PE_MISTAKE_RESERVE);
    pe_mistake also = PE_MISTAKE_NONE;
    /* both at once on a pipeline plan (a value no single mistake gives) */
    pe_plan q = fx_plan(1, 8, 8, 1);
    q.recompute = PE_RECOMPUTE_SELECTIVE;
    const double r2 = figure(&s, &q, COL_MEM_TOTAL_GIB);
    assert_int_equal(match(&s, &q, COL_MEM_TOTAL_GIB, (r2 - 10) * 1.073741824, &also),
                     PE_MISTAKE_RESERVE);
    assert_int_equal(also, PE_MISTAKE_GB_GIB);
    /* no reserve in the scenario: the mistake does not exist */
    pe_scenario t = s;
    t.cluster.reserve_gib = 0;
    pe_result w;
    assert_false(grade_mistake_result(&t, &p, PE_MISTAKE_RESERVE, 0, &w));
    /* GB vs GiB applies to GiB columns only */
    double vals[8];
    assert_int_equal(grade_mistake_values(&s, &p, COL_STEP_TIME_S, PE_MISTAKE_GB_GIB, vals, 8), 0);
}

static void test_in_flight(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(1, 8, 8, 1); /* 1F1B, p = 8, m = 1536: k(0) = 8 */
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    const double act = figure(&s, &p, COL_MEM_ACTIVATIONS_GIB);
    pe_result w;
    assert_true(grade_mistake_result(&s, &p, PE_MISTAKE_INFLIGHT, 0, &w));
    assert_true(fabs(w.mem_activations_gib - act / 8) < 1e-9 * act); /* A6 with k = 1 */
    assert_int_equal(match(&s, &p, COL_MEM_ACTIVATIONS_GIB, act / 8, NULL), PE_MISTAKE_INFLIGHT);
    assert_int_equal(match(&s, &p, COL_MEM_TOTAL_GIB, w.mem_total_gib, NULL), PE_MISTAKE_INFLIGHT);
    /* p = 1 has nothing in flight to forget */
    pe_plan q = zero3_selective();
    assert_false(grade_mistake_result(&s, &q, PE_MISTAKE_INFLIGHT, 0, &w));
}

static void test_bidirectional(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(8, 8, 1, 1);
    p.zero = 1;
    pe_scenario t = s; /* what the student computed: 128 GB/s links */
    t.cluster.intra_node.link_gb_s = 128;
    const double wrong = figure(&t, &p, COL_TP_COMM_S);
    assert_true(wrong < figure(&s, &p, COL_TP_COMM_S));
    assert_int_equal(match(&s, &p, COL_TP_COMM_S, wrong, NULL), PE_MISTAKE_BIDIRECTIONAL);
    /* the NIC doubled alone (variant 2) on a plan whose DP crosses nodes */
    pe_plan q = fx_plan(64, 1, 1, 1);
    q.overlap.dp = 0;
    pe_scenario u = s;
    u.cluster.inter_node.nic_gb_s = 100;
    assert_int_equal(match(&s, &q, COL_DP_COMM_S, figure(&u, &q, COL_DP_COMM_S), NULL),
                     PE_MISTAKE_BIDIRECTIONAL);
}

static void test_bubble(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.training.global_batch = 64; /* dp 1, b 1: m = 64 */
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    const double f = figure(&s, &p, COL_BUBBLE_FRACTION);
    assert_true(fabs(f - 7.0 / 64) < 1e-12); /* (p−1)/m */
    assert_int_equal(match(&s, &p, COL_BUBBLE_FRACTION, 7.0 / 71, NULL), PE_MISTAKE_BUBBLE);
    assert_int_equal(match(&s, &p, COL_BUBBLE_FRACTION, 7.0 / 64, NULL), PE_MISTAKE_NONE);
}

static void test_within(void **state)
{
    (void)state;
    assert_true(grade_within(101, 100, PE_TOL_REL, 0.01));
    assert_false(grade_within(101.5, 100, PE_TOL_REL, 0.01));
    assert_true(grade_within(-0.005, 0, PE_TOL_ABS, 0.01));
    assert_false(grade_within(1e-300, 0, PE_TOL_REL, 0.5)); /* relative to 0: exact only */
    assert_true(grade_within(3, 3, PE_TOL_EXACT, 0));
}

static void test_canonical(void **state)
{
    (void)state;
    pe_overlap ov = {0, 1, 1, 0, 0};
    pe_plan p;
    assert_true(grade_parse_canonical("dp8-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1", &ov, &p));
    assert_int_equal(p.dp, 8);
    assert_int_equal(p.tp, 8);
    assert_int_equal(p.zero, 1);
    assert_true(p.sequence_parallel);
    assert_true(grade_parse_canonical("dp2-tp1-pp4-cp2-z3-full-mb2-interleaved-v3-sp0", &ov, &p));
    assert_int_equal(p.schedule, PE_SCHEDULE_INTERLEAVED);
    assert_int_equal(p.recompute, PE_RECOMPUTE_FULL);
    assert_false(p.sequence_parallel);
    /* no plan has sp1 with tp1 (sequence parallelism is off at tp = 1) */
    assert_false(grade_parse_canonical("dp2-tp1-pp4-cp2-z3-full-mb2-interleaved-v3-sp1", &ov, &p));
    assert_true(grade_parse_canonical("dp1-tp1-pp2-cp1-z0-selective-mb1-zb-h1-v1-sp0", &ov, &p));
    assert_int_equal(p.schedule, PE_SCHEDULE_ZB_H1);
    const char *bad[] = {"",
                         "dp08-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                         "dp0-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                         "dp8-tp1-pp1-cp1-z4-none-mb1-1f1b-v1-sp0",
                         "dp8-tp1-pp1-cp1-z0-some-mb1-1f1b-v1-sp0",
                         "dp8-tp1-pp1-cp1-z0-none-mb1-1fb1-v1-sp0",
                         "dp8-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp2",
                         "dp8-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0 ",
                         "dp9007199254740993-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                         "dp12345678901234567-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                         "=1+1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(grade_parse_canonical(bad[i], &ov, &p));
    assert_true(grade_parse_canonical("dp9007199254740992-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                                      &ov, &p)); /* 2^53 */
}

static void safe(const char *in, const char *want)
{
    char out[128];
    grade_safe_cell(in, strlen(in), 40, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_safe_cell(void **state)
{
    (void)state;
    safe("alice", "alice");
    safe("2607.7", "2607.7");
    safe("=1+1", "'=1+1");
    safe("+1", "'+1");
    safe("-1", "'-1");
    safe("@SUM(A1)", "'@SUM(A1)");
    safe("\t=1", "' =1");
    safe("\r=1", "' =1");
    safe("  =1", "'  =1");
    safe("\xef\xbc\x9d" "1+1", "'\xef\xbc\x9d" "1+1"); /* full-width = */
    safe("\xef\xbc\x8b" "1", "'\xef\xbc\x8b" "1");       /* full-width + */
    safe("\xef\xbc\x8d" "1", "'\xef\xbc\x8d" "1");       /* full-width - */
    safe("\xef\xbc\xa0" "x", "'\xef\xbc\xa0" "x");       /* full-width @ */
    safe("\xef\xbc\x9e" "1", "\xef\xbc\x9e" "1");        /* full-width > is text */
    /* a formula start after Unicode spaces and format characters */
    safe("\xc2\xa0=1", "'\xc2\xa0=1");                    /* U+00A0 no-break space */
    safe("\xe3\x80\x80=1", "'\xe3\x80\x80=1");           /* U+3000 ideographic space */
    safe("\xe2\x80\x8b=1", "'\xe2\x80\x8b=1");           /* U+200B zero-width space */
    safe("\xef\xbb\xbf=1", "'\xef\xbb\xbf=1");           /* U+FEFF byte-order mark */
    safe("\xc2\xad+1", "'\xc2\xad+1");                    /* U+00AD soft hyphen (Cf) */
    safe("\xe2\x80\x83-1", "'\xe2\x80\x83-1");           /* U+2003 em space */
    safe("\xe2\x80\xa8@x", "'\xe2\x80\xa8@x");           /* U+2028 line separator */
    safe("\xe2\x81\xa0=1", "'\xe2\x81\xa0=1");           /* U+2060 word joiner */
    safe("\xf3\xa0\x80\x81=1", "'\xf3\xa0\x80\x81=1");  /* U+E0001 language tag */
    safe("\xc2\x85=1", "'\xc2\x85=1");                    /* U+0085 next line (Cc) */
    /* mixed: tab, U+00A0, space, U+200B, then a full-width = */
    safe("\t\xc2\xa0 \xe2\x80\x8b\xef\xbc\x9d" "1", "' \xc2\xa0 \xe2\x80\x8b\xef\xbc\x9d" "1");
    safe("\xc2\xa0" "alice", "\xc2\xa0" "alice");          /* a space before text: kept */
    safe("\xc3\xa9=1", "\xc3\xa9=1");                     /* é is not a space */
    safe("\xe2\x80=1", "\xe2\x80=1");                     /* a cut sequence is not a space */
    safe("a\nb\x7f" "c", "a b c");
    safe("0123456789012345678901234567890123456789X",
         "0123456789012345678901234567890123456789...");
    /* cut at a UTF-8 boundary: é is two bytes at 39..40 */
    safe("012345678901234567890123456789012345678\xc3\xa9",
         "012345678901234567890123456789012345678...");
    /* every control character (they become spaces), alone or after spaces
     * and other control characters, before each formula start: the quote
     * is decided on the text as written */
    const char starts[] = "=+-@";
    int seen = 0;
    for (int c = 0; c <= 0x7f; c++) {
        if (c >= 0x20 && c != 0x7f)
            continue;
        for (const char *f = starts; *f; f++) {
            const char forms[][8] = {{(char)c, *f, '1'}, {' ', (char)c, *f, '1'},
                                     {(char)c, '\v', ' ', *f, '1'}};
            const size_t lens[] = {3, 4, 5};
            for (size_t k = 0; k < 3; k++) {
                char out[64];
                grade_safe_cell(forms[k], lens[k], 40, out, sizeof out);
                if (out[0] != '\'' || strlen(out) != lens[k] + 1 || out[lens[k] - 1] != *f)
                    fail_msg("0x%02x then '%c' (form %zu) gave \"%s\"", c, *f, k, out);
                for (size_t b = 0; out[b]; b++)
                    assert_true((unsigned char)out[b] >= 0x20 && out[b] != 0x7f);
                seen++;
            }
        }
    }
    assert_int_equal(seen, 33 * 4 * 3); /* 0x00-0x1f and 0x7f */
    safe("\v=HYPERLINK(\"http://x\")", "' =HYPERLINK(\"http://x\")");
    safe("\x1f@cmd", "' @cmd");
    safe("\n-2", "' -2");
    safe("\f+1", "' +1");
    assert_string_equal(grade_mistake_name(PE_MISTAKE_RESERVE), "forgot the framework reserve");
    assert_string_equal(grade_mistake_name(PE_MISTAKE_BUBBLE),
                        "counted (p-1)/(m+p-1) instead of (p-1)/m");
}

/* The drill's questions: block as the loader reads it (run from the source
 * directory, CTest's WORKING_DIRECTORY): kinds, plans, columns, defaults. */
static void test_questions_loaded(void **state)
{
    (void)state;
    pe_catalog *cat = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(NULL, &cat, &err), PE_OK);
    pe_scenario s;
    assert_int_equal(load_scenario("scenarios/drills/01-fit-the-model.yaml", cat, &s, &err),
                     PE_OK);
    assert_int_equal(s.question_count, 8);
    const pe_question *q = &s.questions[0];
    assert_string_equal(q->id, "state");
    assert_int_equal(q->ask, PE_ASK_COLUMN);
    assert_string_equal(q->plan, "baseline");
    assert_string_equal(q->column, "state_total_gib");
    assert_true(q->points == 2);
    assert_int_equal(q->tol_kind, PE_TOL_REL);
    assert_true(q->tol == 0.01); /* the default for numbers */
    q = &s.questions[2];
    assert_int_equal(q->ask, PE_ASK_FITS);
    assert_true(q->points == 1);
    q = &s.questions[5];
    assert_string_equal(q->id, "pipeline-bubble");
    assert_true(q->tol == 0.001);
    q = &s.questions[7];
    assert_int_equal(q->ask, PE_ASK_MIN_INTERVENTION);
    assert_string_equal(q->plan, "");
    assert_string_equal(pe_ask_name(q->ask), "min_intervention");
    scenario_free(&s);
    assert_null(s.questions);
    catalog_free(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_bytes),   cmocka_unit_test(test_reserve_and_gb),
        cmocka_unit_test(test_in_flight),     cmocka_unit_test(test_bidirectional),
        cmocka_unit_test(test_bubble),        cmocka_unit_test(test_within),
        cmocka_unit_test(test_canonical),     cmocka_unit_test(test_safe_cell),
        cmocka_unit_test(test_questions_loaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
