/* test_plans.c — canonical text, enumeration order, auto axes and skips
 * (docs/scenarios.md "Sweeps", docs/model.md §1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/plans.h"

static int64_t tp_vals[4], pp_vals[4], dp_vals[4], zero_vals[4], rc_vals[4], mb_vals[4],
    sched_vals[4], v_vals[4], sp_vals[4], ep_vals[4], etp_vals[4];

static void set_axis(pe_axis *a, int64_t *store, const int64_t *v, size_t n)
{
    memcpy(store, v, n * sizeof *v);
    a->present = true;
    a->is_auto = false;
    a->count = n;
    a->values = store;
}

static pe_scenario base(void)
{
    pe_scenario s;
    memset(&s, 0, sizeof s);
    strcpy(s.name, "t");
    s.model = (pe_model){.layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96,
                         .ffn_hidden = 49152, .vocab = 51200, .seq_len = 2048};
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8; /* N = 64 */
    s.training.global_batch = 1536;
    s.overlap = (pe_overlap){0, 1, 1, 0, 0};
    return s;
}

static void test_canonical(void **state)
{
    (void)state;
    pe_plan p = {.dp = 64, .tp = 1, .pp = 1, .cp = 1, .zero = 3,
                 .recompute = PE_RECOMPUTE_SELECTIVE, .micro_batch = 1,
                 .schedule = PE_SCHEDULE_1F1B, .virtual_stages = 1};
    char buf[PE_CANON_MAX];
    plans_canonical(&p, buf, sizeof buf);
    /* docs/scenarios.md's own example */
    assert_string_equal(buf, "dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp0");
    p = (pe_plan){.dp = 16, .tp = 1, .pp = 4, .cp = 1, .zero = 3,
                  .recompute = PE_RECOMPUTE_SELECTIVE, .micro_batch = 1,
                  .schedule = PE_SCHEDULE_INTERLEAVED, .virtual_stages = 4};
    plans_canonical(&p, buf, sizeof buf);
    assert_string_equal(buf, "dp16-tp1-pp4-cp1-z3-selective-mb1-interleaved-v4-sp0");
    /* the display name is the name when there is one */
    strcpy(p.name, "mine");
    assert_string_equal(plans_display_name(&p, buf), "mine");
}

/* tp [1, 2] × pp [1, 3] × dp auto: 2·2 = 4 slots; N = 64 so pp = 3 gives a
 * non-whole dp (64/3, 64/6) and is skipped; order: tp outer, pp inner. */
static void test_order_and_dp_auto(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    set_axis(&s.sweep.tp, tp_vals, (int64_t[]){1, 2}, 2);
    set_axis(&s.sweep.pp, pp_vals, (int64_t[]){1, 3}, 2);
    s.sweep.dp.present = s.sweep.dp.is_auto = true;
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 4);
    pe_plan p;
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_NONE);
    assert_int_equal(p.tp, 1);
    assert_int_equal(p.pp, 1);
    assert_int_equal(p.dp, 64);
    assert_false(p.sequence_parallel); /* default: tp > 1 */
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_DP_NOT_WHOLE); /* 64/3 */
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_NONE);
    assert_int_equal(p.tp, 2);
    assert_int_equal(p.dp, 32);
    assert_true(p.sequence_parallel);
    assert_int_equal(plans_at(&sp, 3, &p), PE_SKIP_DP_NOT_WHOLE); /* 64/6 */
    plans_free(&sp);
}

/* Explicit plans come first, then the sweep. */
static void test_explicit_first(void **state)
{
    (void)state;
    pe_scenario s = base();
    pe_plan explicit_plans[2] = {{.name = "a", .dp = 64, .tp = 1, .pp = 1, .cp = 1},
                                 {.name = "b", .dp = 32, .tp = 2, .pp = 1, .cp = 1}};
    s.plans = explicit_plans;
    s.plan_count = 2;
    s.sweep.present = true;
    set_axis(&s.sweep.dp, dp_vals, (int64_t[]){64}, 1);
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 3);
    pe_plan p;
    plans_at(&sp, 1, &p);
    assert_string_equal(p.name, "b");
    plans_at(&sp, 2, &p);
    assert_string_equal(p.name, "");
    assert_int_equal(p.dp, 64);
    plans_free(&sp);
}

/* schedule [1f1b, interleaved] × virtual_stages [2, 4]: 1f1b takes v = 1
 * once (slot 0), its slot 1 is skipped; interleaved takes 2 and 4. */
static void test_virtual_stages(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    set_axis(&s.sweep.dp, dp_vals, (int64_t[]){8}, 1);
    set_axis(&s.sweep.pp, pp_vals, (int64_t[]){8}, 1);
    set_axis(&s.sweep.schedule, sched_vals,
             (int64_t[]){PE_SCHEDULE_1F1B, PE_SCHEDULE_INTERLEAVED}, 2);
    set_axis(&s.sweep.virtual_stages, v_vals, (int64_t[]){2, 4}, 2);
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 4);
    pe_plan p;
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_NONE);
    assert_int_equal(p.virtual_stages, 1);
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_V_NOT_INTERLEAVED);
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_NONE);
    assert_int_equal(p.virtual_stages, 2);
    assert_int_equal(plans_at(&sp, 3, &p), PE_SKIP_NONE);
    assert_int_equal(p.virtual_stages, 4);
    plans_free(&sp);

    /* a list value v = 1 under interleaved is skipped, not reported */
    set_axis(&s.sweep.schedule, sched_vals, (int64_t[]){PE_SCHEDULE_INTERLEAVED}, 1);
    set_axis(&s.sweep.virtual_stages, v_vals, (int64_t[]){1, 3}, 2);
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_INTERLEAVED_V_LT_2);
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_NONE);
    assert_int_equal(p.virtual_stages, 3);
    plans_free(&sp);
}

/* model.md §1 (v1.1): with p = 1 the first listed schedule that is not
 * interleaved is the one plan; every other schedule is skipped, per index
 * slot. pp [1, 8] × schedule [interleaved, gpipe, 1f1b] × v [2]: 6 slots.
 * p = 1: interleaved (slot 0) and 1f1b (slot 2) skipped, gpipe kept;
 * p = 8: all three are plans (interleaved with v = 2, the others v = 1). */
static void test_schedule_pp1(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    set_axis(&s.sweep.dp, dp_vals, (int64_t[]){8}, 1);
    set_axis(&s.sweep.pp, pp_vals, (int64_t[]){1, 8}, 2);
    set_axis(&s.sweep.schedule, sched_vals,
             (int64_t[]){PE_SCHEDULE_INTERLEAVED, PE_SCHEDULE_GPIPE, PE_SCHEDULE_1F1B}, 3);
    set_axis(&s.sweep.virtual_stages, v_vals, (int64_t[]){2}, 1);
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 6);
    pe_plan p;
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_SCHEDULE_PP1);
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_NONE);
    assert_int_equal(p.schedule, PE_SCHEDULE_GPIPE);
    assert_int_equal(p.pp, 1);
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_SCHEDULE_PP1);
    for (uint64_t i = 3; i < 6; i++)
        assert_int_equal(plans_at(&sp, i, &p), PE_SKIP_NONE);
    assert_string_equal(plans_skip_name(PE_SKIP_SCHEDULE_PP1), "schedule applies to pp > 1 only");
    /* the skip covers the slots under the schedule axis: with v [2, 3],
     * p = 1 interleaved and 1f1b skip 2 indices each (v slots), and the
     * cursor's span says so */
    plans_free(&sp);
    set_axis(&s.sweep.virtual_stages, v_vals, (int64_t[]){2, 3}, 2);
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    pe_plan_cursor c;
    plans_seek(&sp, 0, &c);
    uint64_t span;
    int axis;
    assert_int_equal(plans_cursor_plan(&sp, &c, &p, &span, &axis), PE_SKIP_SCHEDULE_PP1);
    assert_int_equal(span, 2);
    plans_free(&sp);
    /* only interleaved listed: at p = 1 no schedule is kept */
    set_axis(&s.sweep.schedule, sched_vals, (int64_t[]){PE_SCHEDULE_INTERLEAVED}, 1);
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_SCHEDULE_PP1);
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_NONE); /* p = 8, v = 2 */
    plans_free(&sp);
}

/* virtual_stages: auto with pp 8 and L 96: v ∈ 2..16 with 8v | 96 → 2, 3,
 * 4, 6, 12 (96/8 = 12 has divisors 1,2,3,4,6,12). */
static void test_virtual_stages_auto(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    set_axis(&s.sweep.dp, dp_vals, (int64_t[]){8}, 1);
    set_axis(&s.sweep.pp, pp_vals, (int64_t[]){8}, 1);
    set_axis(&s.sweep.schedule, sched_vals, (int64_t[]){PE_SCHEDULE_INTERLEAVED}, 1);
    s.sweep.virtual_stages.present = s.sweep.virtual_stages.is_auto = true;
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    int64_t got[16];
    size_t n = 0;
    for (uint64_t i = 0; i < plans_total(&sp); i++) {
        pe_plan p;
        if (plans_at(&sp, i, &p) == PE_SKIP_NONE)
            got[n++] = p.virtual_stages;
    }
    assert_int_equal(n, 5);
    int64_t want[] = {2, 3, 4, 6, 12};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    plans_free(&sp);
}

/* tp auto on G = 8, a = 96 → 1, 2, 4, 8; pp auto: divisors of 96 ≤ 64 →
 * 1,2,3,4,6,8,12,16,24,32,48 (96 > 64) = 11; cp auto: powers of two ≤ 64
 * dividing 2048 → 7; micro_batch auto with dp 64, B 1536: b·64 | 1536 →
 * b | 24 → 1, 2, 4, 8 of the 7 candidates. */
static void test_auto_axes(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    s.sweep.tp.present = s.sweep.tp.is_auto = true;
    s.sweep.pp.present = s.sweep.pp.is_auto = true;
    s.sweep.cp.present = s.sweep.cp.is_auto = true;
    s.sweep.dp.present = s.sweep.dp.is_auto = true;
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(sp.slots[PE_AXIS_TP], 4);
    assert_int_equal(sp.slots[PE_AXIS_PP], 11);
    assert_int_equal(sp.slots[PE_AXIS_CP], 7);
    assert_int_equal(plans_total(&sp), 4 * 11 * 7);
    plans_free(&sp);

    pe_scenario m = base();
    m.sweep.present = true;
    set_axis(&m.sweep.dp, dp_vals, (int64_t[]){64}, 1);
    m.sweep.micro_batch.present = m.sweep.micro_batch.is_auto = true;
    assert_int_equal(plans_init(&m, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 7);
    size_t plans = 0;
    for (uint64_t i = 0; i < 7; i++) {
        pe_plan p;
        pe_skip k = plans_at(&sp, i, &p);
        if (k == PE_SKIP_NONE)
            plans++;
        else
            assert_int_equal(k, PE_SKIP_MICRO_BATCH);
    }
    assert_int_equal(plans, 4);
    plans_free(&sp);
}

/* sequence_parallel [false, true]: t = 1 takes false once, t = 2 both. */
static void test_sequence_parallel(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    set_axis(&s.sweep.tp, tp_vals, (int64_t[]){1, 2}, 2);
    s.sweep.dp.present = s.sweep.dp.is_auto = true;
    set_axis(&s.sweep.sequence_parallel, sp_vals, (int64_t[]){0, 1}, 2);
    set_axis(&s.sweep.zero, zero_vals, (int64_t[]){1}, 1);
    set_axis(&s.sweep.recompute, rc_vals, (int64_t[]){PE_RECOMPUTE_FULL}, 1);
    set_axis(&s.sweep.micro_batch, mb_vals, (int64_t[]){2}, 1);
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    pe_plan p;
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_NONE);
    assert_false(p.sequence_parallel);
    assert_int_equal(p.zero, 1);
    assert_int_equal(p.recompute, PE_RECOMPUTE_FULL);
    assert_int_equal(p.micro_batch, 2);
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_SP_TP1);
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_NONE);
    assert_false(p.sequence_parallel);
    assert_int_equal(plans_at(&sp, 3, &p), PE_SKIP_NONE);
    assert_true(p.sequence_parallel);
    plans_free(&sp);
}

/* ep auto on an MoE model (E = 8) over N = 4 GPUs: tp [1, 2] ×
 * ep auto {1, 2, 4, 8} × etp [1] = 8 slots; ep·etp must divide tp·cp·dp = 4,
 * so ep 8 is skipped for both tp. The canonical text carries the tail
 * (-ep4; -etp1 where etp ≠ tp). A dense model takes only ep 1 and etp = tp,
 * as V9 allows an explicit plan, wherever they stand in the list: ep
 * [2, 1] skips slot 0 and takes slot 1; etp [1] with tp [1, 2] takes tp 1
 * and skips tp 2 (etp 1 differs from that tp: a dense model takes etp = tp only). */
static void test_ep_axis(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.model.experts = 8;
    s.model.top_k = 2;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 4;
    s.sweep.present = true;
    set_axis(&s.sweep.tp, tp_vals, (int64_t[]){1, 2}, 2);
    s.sweep.dp.present = s.sweep.dp.is_auto = true;
    s.sweep.ep.present = s.sweep.ep.is_auto = true;
    set_axis(&s.sweep.etp, etp_vals, (int64_t[]){1}, 1);
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(sp.sweep_count, 8);
    pe_plan p;
    char buf[PE_CANON_MAX];
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_NONE);
    assert_int_equal(p.ep, 1);
    assert_int_equal(plans_at(&sp, 2, &p), PE_SKIP_NONE);
    assert_int_equal(p.ep, 4);
    plans_canonical(&p, buf, sizeof buf);
    assert_string_equal(buf, "dp4-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0-ep4");
    assert_int_equal(plans_at(&sp, 3, &p), PE_SKIP_EP_AUTO);
    assert_int_equal(plans_at(&sp, 6, &p), PE_SKIP_NONE);
    plans_canonical(&p, buf, sizeof buf);
    assert_string_equal(buf, "dp2-tp2-pp1-cp1-z0-none-mb1-1f1b-v1-sp1-ep4-etp1");
    assert_int_equal(plans_at(&sp, 7, &p), PE_SKIP_EP_AUTO);
    plans_free(&sp);

    s.model.experts = 0; /* dense: ep [1, 2] → ep 1 once */
    s.sweep.ep.is_auto = false;
    set_axis(&s.sweep.ep, ep_vals, (int64_t[]){1, 2}, 2);
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_NONE);
    assert_int_equal(p.ep, 1);
    assert_int_equal(p.etp, 1); /* etp = tp for a dense model */
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_EP_DENSE);
    plans_free(&sp);
    set_axis(&s.sweep.ep, ep_vals, (int64_t[]){2, 1}, 2);
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_at(&sp, 0, &p), PE_SKIP_EP_DENSE);
    assert_int_equal(plans_at(&sp, 1, &p), PE_SKIP_NONE);
    assert_int_equal(p.ep, 1);
    /* indices: tp 1 (ep 2, ep 1), tp 2 (ep 2, ep 1); etp [1] */
    assert_int_equal(plans_at(&sp, 3, &p), PE_SKIP_EP_DENSE); /* tp 2, etp 1 ≠ tp */
    plans_free(&sp);

    /* ep auto lists the divisors of E ascending in O(√E): 16 → 1, 2, 4, 8,
     * 16; a prime just under 2^53 (a hostile input that took minutes when
     * every e ≤ E was tried) → 1 and itself */
    s.model.experts = 16;
    s.sweep.ep.is_auto = true;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(sp.slots[PE_AXIS_EP], 5);
    static const int64_t divisors16[] = {1, 2, 4, 8, 16};
    for (int i = 0; i < 5; i++)
        assert_int_equal(sp.values[PE_AXIS_EP][i], divisors16[i]);
    plans_free(&sp);
    s.model.experts = 9007199254740881;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(sp.slots[PE_AXIS_EP], 2);
    assert_int_equal(sp.values[PE_AXIS_EP][1], 9007199254740881);
    plans_free(&sp);
}

/* The cursor walk (odometer, whole skipped sub-trees at once) visits
 * exactly what plans_at gives index by index: same plans, same skips. */
static void test_cursor_matches_plans_at(void **state)
{
    (void)state;
    pe_scenario s = base();
    s.sweep.present = true;
    s.sweep.tp.present = s.sweep.tp.is_auto = true;
    s.sweep.pp.present = s.sweep.pp.is_auto = true;
    s.sweep.cp.present = s.sweep.cp.is_auto = true;
    s.sweep.dp.present = s.sweep.dp.is_auto = true;
    s.sweep.micro_batch.present = s.sweep.micro_batch.is_auto = true;
    s.sweep.virtual_stages.present = s.sweep.virtual_stages.is_auto = true;
    set_axis(&s.sweep.schedule, sched_vals,
             (int64_t[]){PE_SCHEDULE_1F1B, PE_SCHEDULE_INTERLEAVED}, 2);
    set_axis(&s.sweep.sequence_parallel, sp_vals, (int64_t[]){0, 1}, 2);
    pe_plan explicit_plans[1] = {{.name = "x", .dp = 64, .tp = 1, .pp = 1, .cp = 1}};
    s.plans = explicit_plans;
    s.plan_count = 1;
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    uint64_t total = plans_total(&sp), plans = 0, skipped = 0;
    pe_plan_cursor c;
    plans_seek(&sp, 0, &c);
    while (c.index < total) {
        pe_plan a, b;
        uint64_t span;
        int axis;
        pe_skip k = plans_cursor_plan(&sp, &c, &a, &span, &axis);
        for (uint64_t i = 0; i < span; i++) /* every index of the span skips alike */
            assert_int_equal(plans_at(&sp, c.index + i, &b), k);
        if (k == PE_SKIP_NONE) {
            plans_at(&sp, c.index, &b);
            char ca[PE_CANON_MAX], cb[PE_CANON_MAX];
            plans_canonical(&a, ca, sizeof ca);
            plans_canonical(&b, cb, sizeof cb);
            assert_string_equal(ca, cb);
            plans++;
            plans_advance(&sp, &c, 1);
        } else {
            skipped += span;
            if (c.index < sp.explicit_count)
                plans_advance(&sp, &c, span);
            else
                plans_next_at_axis(&sp, &c, axis);
        }
    }
    assert_int_equal(c.index, total);
    uint64_t plans_by_index = 0;
    for (uint64_t i = 0; i < total; i++) {
        pe_plan b;
        plans_by_index += plans_at(&sp, i, &b) == PE_SKIP_NONE;
    }
    assert_int_equal(plans, plans_by_index);
    assert_int_equal(plans + skipped, total);
    /* plans_count walks the same way: plans, and skips by reason adding up */
    uint64_t by_reason[PE_SKIP_COUNT], skipped_sum = 0;
    assert_int_equal(plans_count(&sp, by_reason), plans);
    for (int k = 0; k < PE_SKIP_COUNT; k++)
        skipped_sum += by_reason[k];
    assert_int_equal(skipped_sum, skipped);
    assert_int_equal(by_reason[PE_SKIP_NONE], 0);
    plans_free(&sp);
}

/* Explicit plans only (no sweep): the cursor walks them and stops at the
 * end without touching the (absent) sweep axes. */
static void test_cursor_explicit_only(void **state)
{
    (void)state;
    pe_scenario s = base();
    pe_plan explicit_plans[3] = {{.name = "a", .dp = 64, .tp = 1, .pp = 1, .cp = 1},
                                 {.name = "b", .dp = 32, .tp = 2, .pp = 1, .cp = 1},
                                 {.name = "c", .dp = 16, .tp = 4, .pp = 1, .cp = 1}};
    s.plans = explicit_plans;
    s.plan_count = 3;
    pe_plan_space sp;
    pe_error err;
    assert_int_equal(plans_init(&s, &sp, &err), PE_OK);
    assert_int_equal(plans_total(&sp), 3);
    pe_plan_cursor c;
    plans_seek(&sp, 0, &c);
    int n = 0;
    while (c.index < 3) {
        pe_plan p;
        uint64_t span;
        int axis;
        assert_int_equal(plans_cursor_plan(&sp, &c, &p, &span, &axis), PE_SKIP_NONE);
        assert_string_equal(p.name, explicit_plans[n].name);
        n++;
        plans_advance(&sp, &c, 1);
    }
    assert_int_equal(n, 3);
    plans_free(&sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical),         cmocka_unit_test(test_order_and_dp_auto),
        cmocka_unit_test(test_explicit_first),    cmocka_unit_test(test_virtual_stages),
        cmocka_unit_test(test_virtual_stages_auto), cmocka_unit_test(test_auto_axes),
        cmocka_unit_test(test_sequence_parallel), cmocka_unit_test(test_cursor_matches_plans_at),
        cmocka_unit_test(test_cursor_explicit_only), cmocka_unit_test(test_schedule_pp1),
        cmocka_unit_test(test_ep_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
