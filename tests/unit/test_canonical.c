/* test_canonical.c — a plan's canonical text (core/canonical.h): written and
 * read back to the same text, and every text canonical_write never prints
 * refused with a message that says what is wrong and where. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/canonical.h"

static const pe_overlap OVERLAP = {0, 1, 1, 0.5, 0};

/* Every field read back; the text written again is the same text. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
        "dp2-tp8-pp4-cp2-z3-selective-mb16-interleaved-v3-sp1",
        "dp1-tp2-pp8-cp1-z1-full-mb1-zb-h1-v1-sp0",
        "dp9007199254740992-tp1-pp1-cp1-z2-none-mb1-zb-h2-v1-sp0", /* 2^53 */
        "dp8-tp2-pp4-cp1-z1-full-mb1-1f1b-v1-sp1-ep16-etp1",
        "dp16-tp1-pp16-cp1-z1-selective-mb1-1f1b-v1-sp0-ep64-fs3-ls2-off",
        "dp8-tp1-pp2-cp1-z1-none-mb1-gpipe-v1-sp0-etp2",
        "dp8-tp1-pp2-cp1-z1-none-mb1-gpipe-v1-sp0-ls10",
        "dp8-tp1-pp1-cp1-z1-none-mb1-1f1b-v1-sp0-off",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        pe_plan p;
        pe_error err = {0};
        assert_int_equal(canonical_parse(texts[i], &OVERLAP, &p, &err), PE_OK);
        char again[PE_CANON_MAX];
        canonical_write(&p, again, sizeof again);
        assert_string_equal(again, texts[i]);
        assert_string_equal(p.name, "");
        assert_true(p.overlap.pp == 0.5);
    }
    pe_plan p;
    pe_error err = {0};
    assert_int_equal(canonical_parse("dp2-tp8-pp4-cp2-z3-selective-mb16-interleaved-v3-sp1",
                                     &OVERLAP, &p, &err),
                     PE_OK);
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
    assert_int_equal(p.ep, 1);  /* no -ep: the default */
    assert_int_equal(p.etp, 8); /* no -etp: etp = tp */
    assert_int_equal(
        canonical_parse("dp16-tp1-pp16-cp1-z1-selective-mb1-1f1b-v1-sp0-ep64-fs3-ls2-off",
                        &OVERLAP, &p, &err),
        PE_OK);
    assert_int_equal(p.ep, 64);
    assert_int_equal(p.etp, 1);
    assert_int_equal(p.first_stage_layers, 3);
    assert_int_equal(p.last_stage_layers, 2);
    assert_true(p.offload_optimizer);
}

static void refused(const char *text, const char *msg)
{
    pe_plan p;
    pe_error err = {0};
    assert_int_equal(canonical_parse(text, &OVERLAP, &p, &err), PE_BAD_INPUT);
    assert_string_equal(err.msg, msg);
    assert_int_equal(err.line, 0); /* the caller knows where the text stands */
}

/* Texts no plan prints are refused, each with what is wrong and where. */
static void test_refused(void **state)
{
    (void)state;
    refused("", "expected dp{dp} at byte 1, found the end of the text");
    refused("tp8-zero1", "expected dp{dp} at byte 1, found 'tp8-zero1'");
    refused("=1+1", "expected dp{dp} at byte 1, found '=1+1'");
    refused("dp0-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0", "dp{dp} at byte 1: 0 is below 1");
    refused("dp064-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
            "dp{dp} at byte 1: '064' has a leading zero");
    refused("dp64-tp1-pp1-cp1-z4-none-mb1-1f1b-v1-sp0", "-z{0..3} at byte 17: 4 is above 3");
    refused("dp64-tp1-pp1-cp1-z00-none-mb1-1f1b-v1-sp0",
            "-z{0..3} at byte 17: '00' has a leading zero");
    refused("dp64-tp1-pp1-cp1-z0-some-mb1-1f1b-v1-sp0",
            "expected -{none|selective|full} at byte 20, found '-some-mb1-1f'");
    refused("dp64-tp1-pp1-cp1-z0-none-mb1-2f2b-v1-sp0",
            "expected -{1f1b|interleaved|gpipe|zb-h1|zb-h2|dualpipe} at byte 29, found '-2f2b-v1-sp0'");
    refused("dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp2", "-sp{0|1} at byte 37: 2 is above 1");
    refused("dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1",
            "expected -sp{0|1} at byte 37, found the end of the text");
    refused("dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0 ",
            "unexpected ' ' at byte 41: after -sp{0|1} only -ep{ep}, -etp{etp}, -fs{n}, -ls{n}, "
            "-pl{layout} and -off may follow, in that order");
    refused("dp9007199254740993-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
            "dp{dp} at byte 1: 9007199254740993 is above 2^53");
    refused("dp12345678901234567-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
            "dp{dp} at byte 1: more than 16 digits (at most 2^53)");
    refused("dp32-tp2", "expected -pp{pp} at byte 9, found the end of the text");
    /* what is shown of the text is one line of printable ASCII */
    refused("\rdp8", "expected dp{dp} at byte 1, found '?dp8'");
    refused("dp8-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0\n\xc3\xa9", /* \? escapes: no trigraph */
            "unexpected '\?\?\?' at byte 40: after -sp{0|1} only -ep{ep}, -etp{etp}, -fs{n}, "
            "-ls{n}, -pl{layout} and -off may follow, in that order");
    /* sequence parallelism is forced off at tp = 1: no plan has sp1 with tp1 */
    refused("dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp1",
            "sp1 with tp1: sequence parallelism needs tp > 1 (a plan with tp = 1 has it off: "
            "write sp0)");
    refused("dp2-tp1-pp4-cp2-z3-full-mb2-interleaved-v3-sp1",
            "sp1 with tp1: sequence parallelism needs tp > 1 (a plan with tp = 1 has it off: "
            "write sp0)");
    /* the tail holds only what differs from the default, in order, once */
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-ep1",
            "-ep1 at byte 40: ep 1 is the default and is written as no -ep");
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-etp2",
            "-etp2 at byte 40 equals tp: etp = tp is the default and is written as no -etp");
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-etp1-ep8",
            "unexpected '-ep8' at byte 45: after -sp{0|1} only -ep{ep}, -etp{etp}, -fs{n}, "
            "-ls{n}, -pl{layout} and -off may follow, in that order");
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-fs0",
            "-fs{first_stage_layers} at byte 40: 0 is below 1");
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-off-off",
            "unexpected '-off-off' at byte 40: after -sp{0|1} only -ep{ep}, -etp{etp}, -fs{n}, "
            "-ls{n}, -pl{layout} and -off may follow, in that order");
    refused("dp8-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-ep",
            "expected -ep{ep} at byte 40, found '-ep'");
}

/* A plan the loader resolves (sequence parallelism off at tp = 1) is always
 * read back: the writer never prints what the reader refuses. */
static void test_every_written_text_reads_back(void **state)
{
    (void)state;
    for (int tp = 1; tp <= 2; tp++)
        for (int sp = 0; sp <= 1; sp++)
            for (int ep = 1; ep <= 2; ep++)
                for (int etp = 1; etp <= 2; etp++) {
                    pe_plan p = {.dp = 4, .tp = tp, .pp = 2, .cp = 1, .zero = 1,
                                 .micro_batch = 1, .virtual_stages = 1, .ep = ep, .etp = etp,
                                 .sequence_parallel = sp && tp > 1, .overlap = OVERLAP};
                    char text[PE_CANON_MAX];
                    canonical_write(&p, text, sizeof text);
                    pe_plan q;
                    pe_error err = {0};
                    assert_int_equal(canonical_parse(text, &OVERLAP, &q, &err), PE_OK);
                    char again[PE_CANON_MAX];
                    canonical_write(&q, again, sizeof again);
                    assert_string_equal(again, text);
                    assert_int_equal(q.etp, etp);
                    assert_int_equal(q.ep, ep);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_every_written_text_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
