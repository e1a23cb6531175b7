/* test_plans_parse.c — plans_parse_canonical, the inverse of
 * plans_canonical (docs/scenarios.md, canonical text), and plans_find naming
 * a plan that the scenario's sweep does not enumerate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/plans.h"

static const pe_overlap OVERLAP = {0, 1, 1, 0.5, 0};

/* Every field read back; the text printed again is the same text. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
        "dp2-tp8-pp4-cp2-z3-selective-mb16-interleaved-v3-sp1",
        "dp1-tp2-pp8-cp1-z1-full-mb1-zb-h1-v1-sp0",
        "dp9007199254740992-tp1-pp1-cp1-z2-none-mb1-zb-h2-v1-sp0",
        /* the ep, etp, fs, ls and off tails */
        "dp8-tp2-pp4-cp1-z1-full-mb1-1f1b-v1-sp1-ep16-etp1",
        "dp16-tp1-pp16-cp1-z1-selective-mb1-1f1b-v1-sp0-ep64-fs3-ls2-off",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        pe_plan p;
        assert_true(plans_parse_canonical(texts[i], &OVERLAP, &p));
        char again[PE_CANON_MAX];
        plans_canonical(&p, again, sizeof again);
        assert_string_equal(again, texts[i]);
        assert_string_equal(p.name, "");
        assert_true(p.overlap.pp == 0.5);
    }
    pe_plan p;
    assert_true(plans_parse_canonical("dp2-tp8-pp4-cp2-z3-selective-mb16-interleaved-v3-sp1",
                                      &OVERLAP, &p));
    assert_int_equal(p.dp, 2);
    assert_int_equal(p.tp, 8);
    assert_int_equal(p.pp, 4);
    assert_int_equal(p.cp, 2);
    assert_int_equal(p.zero, 3);
    assert_int_equal(p.recompute, PE_RECOMPUTE_SELECTIVE);
    assert_int_equal(p.micro_batch, 16);
    assert_int_equal(p.schedule, PE_SCHEDULE_INTERLEAVED);
    assert_int_equal(p.virtual_stages, 3);
    assert_true(p.sequence_parallel);
}

/* Texts no plan prints are refused. */
static void test_refused(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        "dp0-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",   /* a degree of 0 */
        "dp064-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0", /* a leading zero */
        "dp64-tp1-pp1-cp1-z4-none-mb1-1f1b-v1-sp0",  /* ZeRO stage 4 */
        "dp64-tp1-pp1-cp1-z0-some-mb1-1f1b-v1-sp0",  /* unknown recompute */
        "dp64-tp1-pp1-cp1-z0-none-mb1-2f2b-v1-sp0",  /* unknown schedule */
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp2",
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp1",  /* sp with tp = 1 (docs/model.md §0) */
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0 ", /* trailing text */
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1",
        "dp9007199254740993-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0", /* 2^53 + 1 */
        "dp12345678901234567-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
        "tp8-zero1",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        pe_plan p;
        assert_false(plans_parse_canonical(texts[i], &OVERLAP, &p));
    }
}

/* plans_find: a name, an explicit plan's canonical text (with its own
 * overlap), and a canonical text the scenario does not enumerate. */
static void test_find(void **state)
{
    (void)state;
    pe_scenario s;
    memset(&s, 0, sizeof s);
    s.model = (pe_model){.layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96,
                         .ffn_hidden = 49152, .vocab = 51200, .seq_len = 2048};
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8;
    s.training.global_batch = 1536;
    s.overlap = OVERLAP;
    pe_plan explicit = {.dp = 8, .tp = 8, .pp = 1, .cp = 1, .zero = 1, .micro_batch = 1,
                        .virtual_stages = 1, .sequence_parallel = true,
                        .overlap = {0.25, 1, 1, 0}};
    strcpy(explicit.name, "tp8-zero1");
    s.plans = &explicit;
    s.plan_count = 1;
    pe_plan_space space;
    pe_error err = {0};
    assert_int_equal(plans_init(&s, &space, &err), PE_OK);
    pe_plan p;
    assert_true(plans_find(&space, "tp8-zero1", &p));
    assert_string_equal(p.name, "tp8-zero1");
    assert_true(plans_find(&space, "dp8-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1", &p));
    assert_string_equal(p.name, "tp8-zero1");
    assert_true(p.overlap.tp == 0.25);
    assert_true(plans_find(&space, "dp16-tp4-pp1-cp1-z2-full-mb2-1f1b-v1-sp1", &p));
    assert_string_equal(p.name, "");
    assert_int_equal(p.dp, 16);
    assert_true(p.overlap.pp == 0.5);
    assert_false(plans_find(&space, "no-such-plan", &p));
    plans_free(&space);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
