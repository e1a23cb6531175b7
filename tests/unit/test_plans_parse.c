/* test_plans_parse.c — plans_find: a plan named by its name, by an explicit
 * plan's canonical text, or by a canonical text the scenario's sweep does not
 * enumerate (the text itself is read by core/canonical.c: test_canonical.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/plans.h"

static const pe_overlap OVERLAP = {0, 1, 1, 0.5, 0};

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
    /* the form of a canonical text, but no plan has it */
    assert_false(plans_find(&space, "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp1", &p));
    plans_free(&space);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
