/* test_scenarios.c — properties over every bundled scenario and every plan:
 * each loads; S1: the seven time columns added left to right are exactly
 * step_time_s; S2–S4 ranges; memory columns add up to mem_total_gib (M5);
 * the reason is empty exactly for ok plans. Run from the source dir.
 * (The benchmark sweeps live under tests/bench/, not scenarios/.) */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "input/catalog.h"
#include "model/evaluate.h"
#include "input/load.h"
#include "sweep/plans.h"

#define MAX_FILES 256
static char files[MAX_FILES][PE_PATH_MAX];
static size_t file_count;

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && n > 5 && strcmp(path + n - 5, ".yaml") == 0 &&
        !strstr(path, "/catalog/") && file_count < MAX_FILES)
        snprintf(files[file_count++], PE_PATH_MAX, "%s", path);
    return 0;
}

static void check_plan(const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r,
                       const char *file)
{
    char reason[2048];
    evaluate_format_reason(ctx, p, r, reason, sizeof reason);
    if (r->status == PE_STATUS_OK)
        assert_string_equal(reason, "");
    else
        assert_true(reason[0] != '\0');
    if (r->status == PE_STATUS_INVALID)
        return;
    /* S1 and S1': the columns, added left to right in report order,
     * then ep_comm_s (0 for a dense plan, and x + 0 == x). */
    double sum = r->compute_s;
    sum += r->tp_comm_s;
    sum += r->cp_comm_s;
    sum += r->bubble_s;
    sum += r->pp_comm_s;
    sum += r->dp_comm_s;
    sum += r->optimizer_s;
    sum += r->ep_comm_s;
    if (sum != r->step_time_s)
        fail_msg("%s: S1 sum %.17g != step_time_s %.17g", file, sum, r->step_time_s);
    assert_true(r->step_time_s > 0);
    assert_true(r->compute_s > 0);
    assert_true(r->comm_fraction >= 0 && r->comm_fraction <= 1);
    assert_true(r->bubble_fraction >= 0);
    assert_true(r->mfu > 0 && r->mfu <= 1);
    assert_true(r->hfu >= r->mfu);
    /* M5: the memory columns are the parts of the total. */
    double parts = r->mem_weights_gib + r->mem_grads_gib + r->mem_optimizer_gib +
                   r->mem_activations_gib + r->mem_other_gib + r->mem_reserve_gib;
    assert_true(fabs(parts - r->mem_total_gib) <= 1e-9 * r->mem_total_gib);
    assert_true(fabs(r->mem_budget_gib - r->mem_total_gib - r->mem_headroom_gib) <=
                1e-9 * r->mem_budget_gib);
    assert_true((r->status == PE_STATUS_OVER_MEMORY) == (r->mem_headroom_gib < 0));
}

static void test_every_bundled_scenario(void **state)
{
    (void)state;
    file_count = 0;
    assert_int_equal(nftw("scenarios", collect, 16, FTW_PHYS), 0);
    assert_true(file_count >= 1);
    pe_catalog *cat = NULL;
    pe_error err;
    assert_int_equal(catalog_open(NULL, &cat, &err), PE_OK);
    uint64_t plans = 0;
    for (size_t f = 0; f < file_count; f++) {
        pe_scenario s;
        pe_status st = load_scenario(files[f], cat, &s, &err);
        if (st != PE_OK)
            fail_msg("%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
        pe_plan_space space;
        assert_int_equal(plans_init(&s, &space, &err), PE_OK);
        pe_eval_ctx ctx;
        evaluate_prepare(&s, &ctx);
        uint64_t total = plans_total(&space);
        for (uint64_t i = 0; i < total; i++) { /* every plan of every scenario */
            pe_plan p;
            if (plans_at(&space, i, &p) != PE_SKIP_NONE)
                continue;
            pe_result r;
            evaluate_plan(&ctx, &p, &r);
            check_plan(&ctx, &p, &r, files[f]);
            plans++;
        }
        plans_free(&space);
        scenario_free(&s);
    }
    catalog_free(cat);
    print_message("checked %llu plans in %zu scenarios\n", (unsigned long long)plans, file_count);
    assert_true(plans > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_bundled_scenario)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
