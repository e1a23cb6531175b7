/* test_report_finite.c — no report shows inf or NaN: a plan whose figure is
 * not finite (which the key ranges of core/fields.c keep any input from
 * causing; here set by hand, as a fault of the model would) fails the
 * report's write with the plan and the column named, and leaves no report.
 * Runs from the source directory (the drill scenario). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "input/catalog.h"
#include "input/load.h"
#include "model/evaluate.h"
#include "output/report_rows.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

#define DRILL "scenarios/drills/01-fit-the-model.yaml"

typedef struct {
    pe_catalog *cat;
    pe_scenario s;
    pe_eval_ctx ctx;
    pe_plan_space space;
    pe_run_result rr;
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pe_error err;
    if (!f || catalog_open(NULL, &f->cat, &err) || load_scenario(DRILL, f->cat, &f->s, &err) ||
        plans_init(&f->s, &f->space, &err))
        return -1;
    evaluate_prepare(&f->s, &f->ctx);
    pe_run_options opt = {.threads = 1};
    if (runner_run(&f->space, &f->ctx, &opt, &f->rr, &err))
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/planeval-finite-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/ok.csv", f->dir);
    unlink(path);
    rmdir(f->dir);
    runner_free(&f->rr);
    plans_free(&f->space);
    scenario_free(&f->s);
    catalog_free(f->cat);
    free(f);
    return 0;
}

/* The first row of an ok plan (its figures are all written). */
static pe_row *ok_row(fixture *f)
{
    for (size_t i = 0; i < f->rr.row_count; i++)
        if (f->rr.rows[i].result.status == PE_STATUS_OK)
            return &f->rr.rows[i];
    fail_msg("%s has no ok plan", DRILL);
    return NULL;
}

static void refused(fixture *f, const char *file, const char *column)
{
    char path[128], want[160], text[1024];
    snprintf(path, sizeof path, "%s/%s", f->dir, file);
    pe_error err;
    assert_int_equal(report_write_ranked(path, &f->space, &f->ctx, &f->rr, 2, &err), PE_INTERNAL);
    pe_error_format(&err, text, sizeof text);
    snprintf(want, sizeof want, ": %s is not a finite number; no report is written", column);
    if (!strstr(text, want))
        fail_msg("got \"%s\", not \"%s\"", text, want);
    assert_int_not_equal(access(path, F_OK), 0);
}

static void test_nonfinite_figure(void **state)
{
    fixture *f = *state;
    pe_error err;
    char path[128];
    snprintf(path, sizeof path, "%s/ok.csv", f->dir);
    assert_int_equal(report_write_ranked(path, &f->space, &f->ctx, &f->rr, 2, &err), PE_OK);
    pe_row *row = ok_row(f);
    const double step = row->result.step_time_s, mfu = row->result.mfu;
    row->result.step_time_s = NAN;
    refused(f, "nan.csv", "step_time_s");
    row->result.step_time_s = step;
    row->result.mfu = -INFINITY;
    refused(f, "inf.csv", "mfu");
    row->result.mfu = mfu;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nonfinite_figure, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
