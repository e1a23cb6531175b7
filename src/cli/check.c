/* check.c — `planeval check`: a scenario's `expect:` assertions
 * (docs/scenarios.md "expect:", checked by check/expect.h), and with
 * --golden DIR whole reports compared plan by plan against committed CSVs
 * (check/golden.h; with --top K, the K best rows, as `run --top K` writes
 * them). One line per failed assertion on stdout, then "N passed, N
 * failed"; exit status 1 on any failure.
 *
 * With --table, every numeric assertion of every file also becomes one row
 * of a Markdown table (scenario, plan, column, expected, predicted, error
 * in percent, tolerance), printed once all files are checked, followed by
 * the mean absolute percent error and the worst case, the step-time
 * assertions per source and group, the same per framework preset and
 * group, and the memory assertions per source
 * and group (check/memory_table.h); the lines of failed
 * assertions and the closing "N passed, N failed" come after it. This is
 * how README's comparison with published runs is generated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/columns.h"
#include "check/expect.h"
#include "check/golden.h"
#include "check/memory_table.h"
#include "check/results.h"
#include "cli/commands.h"
#include "input/load.h"
#include "model/memory.h"
#include "output/report.h"
#include "sweep/runner.h"

/* One numeric assertion, for --table. */
typedef struct {
    char *scenario, *plan, *column;
    double expected;
    char tol[48];      /* "±3.5%", "±0.01", "exact" */
    bool has_got;      /* the cell was a number */
    double got;
    bool ok;
    char group[16];    /* the file's "# group: fit|predict" line, "" without one */
    char framework[PE_NAME_MAX]; /* the scenario's framework preset, "" without one */
    bool has_interval; /* S6: the plan's step_time_lo_s and _hi_s were numbers */
    double lo, hi;
} table_row;

typedef struct {
    pe_check_tally count;
    FILE *out; /* where miss lines go: stdout, or a buffer printed after the table */
    table_row *rows; /* --table only */
    size_t nrows, caprows;
    bool table;
    char group[16]; /* of the scenario being checked (table_add copies it) */
    char framework[PE_NAME_MAX]; /* of the scenario being checked (table_add copies it) */
    bool has_interval; /* the S6 cells of the assertion being seen (table_add copies them) */
    double lo, hi;
    pe_memory_interval mem_interval; /* the M23 cells of the assertion being seen */
    pe_memory_file file;   /* the comment lines of the scenario being checked */
    pe_memory_table memory; /* --table: the memory assertions */
    pe_check_format format;
    pe_check_results results; /* every outcome, for --format junit|json */
    bool unrecorded;          /* an outcome could not be recorded (out of memory) */
    unsigned long long missing; /* golden reports not there, of count.failed */
} tally;

static char *dup_text(const char *t)
{
    size_t n = strlen(t) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, t, n);
    return d;
}

/* Record one numeric assertion for --table (text columns are not tabled).
 * `cell` is the report's cell, "" when the plan or the figure is missing. */
static void table_add(tally *t, const char *scenario, const char *plan,
                      const pe_expect_check *c, const char *cell)
{
    int kind = pe_columns[columns_find(c->column)].kind;
    if (!t->table || kind == PE_COL_TEXT || kind == PE_COL_BOOL)
        return;
    if (t->nrows == t->caprows) {
        size_t cap = t->caprows ? 2 * t->caprows : 64;
        table_row *r = realloc(t->rows, cap * sizeof *r);
        if (!r)
            return; /* the table loses a row; the check itself is unaffected */
        t->rows = r;
        t->caprows = cap;
    }
    table_row *r = &t->rows[t->nrows];
    memset(r, 0, sizeof *r);
    r->scenario = dup_text(scenario);
    r->plan = dup_text(plan);
    r->column = dup_text(c->column);
    if (!r->scenario || !r->plan || !r->column) {
        free(r->scenario);
        free(r->plan);
        free(r->column);
        return;
    }
    r->expected = c->value;
    memcpy(r->group, t->group, sizeof r->group);
    memcpy(r->framework, t->framework, sizeof r->framework);
    r->has_interval = t->has_interval, r->lo = t->lo, r->hi = t->hi;
    char *end;
    r->got = strtod(cell, &end);
    r->has_got = cell[0] && !*end;
    char buf[2400];
    r->ok = cell[0] && expect_cell_matches(c, cell, buf, sizeof buf);
    if (c->tol_kind == PE_TOL_REL)
        snprintf(r->tol, sizeof r->tol, "±%.6g%%", 100.0 * c->tol);
    else if (c->tol_kind == PE_TOL_ABS)
        snprintf(r->tol, sizeof r->tol, "±%.6g", c->tol);
    else
        snprintf(r->tol, sizeof r->tol, "exact");
    t->nrows++;
}

/* expect_check's observer of the plan's S6 cells, before table_seen. */
static void interval_seen(void *user, const char *lo_cell, const char *hi_cell)
{
    tally *t = user;
    char *end_lo, *end_hi;
    t->lo = strtod(lo_cell, &end_lo);
    t->hi = strtod(hi_cell, &end_hi);
    t->has_interval = lo_cell[0] && !*end_lo && hi_cell[0] && !*end_hi;
}

/* expect_check's observer of the plan's M23 cells, before table_seen. */
static void mem_interval_seen(void *user, const char *peak_cell, const char *lo_cell,
                              const char *hi_cell)
{
    tally *t = user;
    char *end_peak, *end_lo, *end_hi;
    const double peak = strtod(peak_cell, &end_peak);
    const double lo = strtod(lo_cell, &end_lo), hi = strtod(hi_cell, &end_hi);
    t->mem_interval.has = peak_cell[0] && !*end_peak && peak > 0 && lo_cell[0] && !*end_lo &&
                          hi_cell[0] && !*end_hi;
    t->mem_interval.ratio_lo = t->mem_interval.has ? lo / peak : 0.0;
    t->mem_interval.ratio_hi = t->mem_interval.has ? hi / peak : 0.0;
}

/* expect_check's observer: every assertion, for the table. */
static void table_seen(void *user, const char *scenario, const char *plan,
                       const pe_expect_check *c, const char *cell)
{
    tally *t = user;
    table_add(t, scenario, plan, c, cell);
    if (t->table && !memory_table_add(&t->memory, &t->file, c, cell, &t->mem_interval))
        return; /* the memory table loses a row; the check itself is unaffected */
}

/* The signed error of a row in percent of the expected value; false when
 * it has none (no predicted number, or an expected value of 0). */
static bool row_error(const table_row *r, double *pct)
{
    if (!r->has_got || r->expected == 0)
        return false;
    *pct = 100.0 * (r->got - r->expected) / fabs(r->expected);
    return true;
}

/* A published-run file's group (docs/model.md §13):
 * its "# group: fit" or "# group: predict" comment line, else "". */
static void file_group(const char *path, char out[16])
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "# group: %15[a-z]", out) == 1)
            break;
    if (f)
        fclose(f);
}

/* The time columns: each the step time or its inverse. */
static bool time_column(const char *c)
{
    return !strcmp(c, "step_time_s") || !strcmp(c, "tokens_per_s") || !strcmp(c, "mfu") ||
           !strcmp(c, "hfu") || !strcmp(c, "tflops_per_gpu");
}

/* Row r's signed error as the error of the step time it implies: a
 * throughput column (tokens_per_s, mfu, hfu, tflops_per_gpu: the step
 * time's inverse) predicted 10% high is a step time 9.1% short, so
 * published / predicted - 1. Negative: the model is too fast. */
static double step_signed_pct(const table_row *r, double pct)
{
    if (!strcmp(r->column, "step_time_s") || r->got == 0)
        return pct;
    return 100.0 * (r->expected / r->got - 1.0);
}

/* Average ranks (ties share the mean rank) of v[0..n). */
static void ranks(const double *v, size_t n, double *rank)
{
    for (size_t i = 0; i < n; i++) {
        size_t below = 0, equal = 0;
        for (size_t j = 0; j < n; j++)
            below += v[j] < v[i], equal += v[j] == v[i];
        rank[i] = (double)below + (double)(equal + 1) / 2.0;
    }
}

/* Spearman's rank correlation of published and predicted values. */
static double spearman(const double *a, const double *b, size_t n)
{
    double *ra = malloc(2 * n * sizeof *ra);
    if (!ra)
        return NAN;
    double *rb = ra + n, sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
    ranks(a, n, ra);
    ranks(b, n, rb);
    for (size_t i = 0; i < n; i++)
        sa += ra[i], sb += rb[i];
    for (size_t i = 0; i < n; i++) {
        const double x = ra[i] - sa / (double)n, y = rb[i] - sb / (double)n;
        sab += x * y, saa += x * x, sbb += y * y;
    }
    free(ra);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/* Whether row r is of source `key` (its scenario name starts "key-"). */
static bool of_source(const table_row *r, const char *key)
{
    const size_t len = strlen(key);
    return !strncmp(r->scenario, key, len) && r->scenario[len] == '-';
}

/* Whether row r's scenario names framework preset `key` ("" for none). */
static bool of_framework(const table_row *r, const char *key)
{
    return !strcmp(r->framework, key);
}

/* One line of a group table: the time rows of `key` (of_source: a source,
 * the scenario names starting "key-"; of_framework: a framework preset) in
 * `group`. */
static void group_line(const tally *t, const char *key, const char *group,
                       bool (*of)(const table_row *, const char *))
{
    double *pub = malloc(2 * t->nrows * sizeof *pub), sum = 0, max = 0, signed_sum = 0;
    if (!pub)
        return;
    double *pred = pub + t->nrows;
    size_t n = 0, nr = 0;
    const char *rc_col = NULL; /* ranks compare like with like: step_time_s if any */
    for (size_t i = 0; i < t->nrows; i++) {
        const table_row *r = &t->rows[i];
        double pct;
        if (!of(r, key) || strcmp(r->group, group) || !time_column(r->column) ||
            !row_error(r, &pct))
            continue;
        n++;
        sum += fabs(pct), max = fabs(pct) > max ? fabs(pct) : max;
        signed_sum += step_signed_pct(r, pct);
        if (!rc_col || (strcmp(rc_col, "step_time_s") && !strcmp(r->column, "step_time_s")))
            rc_col = r->column, nr = 0;
        if (!strcmp(r->column, rc_col))
            pub[nr] = r->expected, pred[nr] = r->got, nr++;
    }
    if (n) {
        const double rho = nr >= 3 ? spearman(pub, pred, nr) : NAN;
        char rc[64] = "—";
        if (!isnan(rho))
            snprintf(rc, sizeof rc, "%.3f (%s, %zu)", rho, rc_col, nr);
        printf("| %s | %s | %zu | %.2f | %.2f | %s | %+.2f |\n", key[0] ? key : "(none)",
               group[0] ? group : "(none)", n, sum / (double)n, max, rc,
               signed_sum / (double)n);
    }
    free(pub);
}

/* Per source (the scenario name before its first '-') and group: mean and
 * max |error| of the time assertions, the rank correlation of published
 * against predicted values, and the mean signed error of the step times
 * (step_signed_pct: a source predicted too fast on average is negative). */
static void groups_print(const tally *t)
{
    printf("\n| source | group | time assertions | mean error %% | max error %% | rank "
           "correlation (column, runs) | mean signed step-time error %% |\n"
           "|---|---|---:|---:|---:|---:|---:|\n");
    static const char *const groups[] = {"fit", "predict", ""};
    for (size_t i = 0; i < t->nrows; i++) {
        const char *name = t->rows[i].scenario, *dash = strchr(name, '-');
        char source[PE_NAME_MAX];
        snprintf(source, sizeof source, "%.*s", dash ? (int)(dash - name) : (int)strlen(name), name);
        bool seen = false; /* printed already, at an earlier row of the same source */
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strncmp(t->rows[j].scenario, source, strlen(source)) &&
                   t->rows[j].scenario[strlen(source)] == (dash ? '-' : '\0');
        for (size_t g = 0; !seen && g < 3; g++)
            group_line(t, source, groups[g], of_source);
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Per framework preset the files name (docs/validation.md; "(none)" for a
 * file naming none, last), in name order, and group: the same figures as
 * the source table. */
static void frameworks_print(const tally *t)
{
    printf("\n| framework | group | time assertions | mean error %% | max error %% | rank "
           "correlation (column, runs) | mean signed step-time error %% |\n"
           "|---|---|---:|---:|---:|---:|---:|\n");
    const char **names = malloc((t->nrows ? t->nrows : 1) * sizeof *names);
    if (!names)
        return;
    size_t n = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = !strcmp(names[j], t->rows[i].framework);
        if (!seen)
            names[n++] = t->rows[i].framework;
    }
    qsort(names, n, sizeof *names, compare_names);
    static const char *const groups[] = {"fit", "predict", ""};
    bool none = false; /* a file naming no preset: its line comes last */
    for (size_t i = 0; i < n; i++) {
        none |= !names[i][0];
        for (size_t g = 0; names[i][0] && g < 3; g++)
            group_line(t, names[i], groups[g], of_framework);
    }
    for (size_t g = 0; none && g < 3; g++)
        group_line(t, "", groups[g], of_framework);
    free(names);
}

/* S6's coverage of one source and group: of its step_time_s rows with an
 * interval, how many published values lie inside it. */
static void coverage_line(const tally *t, const char *source, const char *group, size_t *in_all,
                          size_t *n_all)
{
    size_t n = 0, in = 0, len = strlen(source);
    for (size_t i = 0; i < t->nrows; i++) {
        const table_row *r = &t->rows[i];
        if (strncmp(r->scenario, source, len) || r->scenario[len] != '-' ||
            strcmp(r->group, group) || strcmp(r->column, "step_time_s") || !r->has_interval)
            continue;
        n++;
        in += r->expected >= r->lo && r->expected <= r->hi;
    }
    if (n)
        printf("| %s | %s | %zu | %zu | %.1f |\n", source, group[0] ? group : "(none)", n, in,
               100.0 * (double)in / (double)n);
    *in_all += in, *n_all += n;
}

/* S6 (docs/model.md §12): per source and group, how many published step
 * times fall inside their 80% prediction interval, then all of them. */
static void coverage_print(const tally *t)
{
    printf("\n| source | group | step times with an interval | inside | coverage %% |\n"
           "|---|---|---:|---:|---:|\n");
    static const char *const groups[] = {"fit", "predict", ""};
    size_t in = 0, n = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        const char *name = t->rows[i].scenario, *dash = strchr(name, '-');
        char source[PE_NAME_MAX];
        snprintf(source, sizeof source, "%.*s", dash ? (int)(dash - name) : (int)strlen(name), name);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strncmp(t->rows[j].scenario, source, strlen(source)) &&
                   t->rows[j].scenario[strlen(source)] == (dash ? '-' : '\0');
        for (size_t g = 0; !seen && g < 3; g++)
            coverage_line(t, source, groups[g], &in, &n);
    }
    if (n)
        printf("\nprediction intervals (S6, 80%%): %zu of %zu published step times inside "
               "(%.1f%%)\n", in, n, 100.0 * (double)in / (double)n);
    else
        printf("\nprediction intervals (S6, 80%%): no step time with an interval\n");
}

/* The Markdown table, then the mean absolute and the worst percent error. */
static void table_print(const tally *t)
{
    printf("| scenario | plan | column | published | predicted | error %% | tolerance |\n");
    printf("|---|---|---|---:|---:|---:|---:|\n");
    double sum = 0;
    size_t n = 0;
    const table_row *worst = NULL;
    double worst_pct = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        const table_row *r = &t->rows[i];
        char want[40], got[40] = "—", err[40] = "—";
        report_format_double(r->expected, want, sizeof want);
        if (r->has_got)
            snprintf(got, sizeof got, "%.5g", r->got);
        double pct;
        if (row_error(r, &pct)) {
            snprintf(err, sizeof err, "%+.2f", pct);
            sum += fabs(pct);
            n++;
            if (!worst || fabs(pct) > fabs(worst_pct)) {
                worst = r;
                worst_pct = pct;
            }
        }
        printf("| %s | %s | %s | %s | %s | %s | %s%s |\n", r->scenario, r->plan, r->column, want,
               got, err, r->tol, r->ok ? "" : " MISS");
    }
    printf("\n");
    if (n)
        printf("mean absolute error: %.2f%% over %zu assertions\n", sum / (double)n, n);
    else
        printf("mean absolute error: none (no numeric assertion with a predicted value)\n");
    if (worst) {
        char want[40];
        report_format_double(worst->expected, want, sizeof want);
        printf("worst case: %+.2f%% (%s, plan %s, %s: published %s, predicted %.5g)\n", worst_pct,
               worst->scenario, worst->plan, worst->column, want, worst->got);
    } else {
        printf("worst case: none\n");
    }
    groups_print(t);
    frameworks_print(t);
    coverage_print(t);
    memory_table_print(&t->memory, stdout);
    memory_table_print_coverage(&t->memory, stdout);
}

static void table_free(tally *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        free(t->rows[i].scenario);
        free(t->rows[i].plan);
        free(t->rows[i].column);
    }
    free(t->rows);
    memory_table_free(&t->memory);
    t->rows = NULL;
    t->nrows = t->caprows = 0;
}

/* expect_check's other observer: every outcome, for --format. */
static void outcome_seen(void *user, const pe_expect_outcome *o)
{
    tally *t = user;
    pe_error err = {0};
    if (results_add_assertion(&t->results, o, &err) != PE_OK)
        t->unrecorded = true;
}

/* --golden without --update-golden: compare, the difference lines on
 * t->out (text) or kept for the document (--format junit|json). */
static pe_status compare_golden(const char *golden, const pe_scenario *s,
                                const pe_plan_space *space, const pe_eval_ctx *ctx,
                                const pe_run_result *rr, const pe_command_options *opt, tally *t,
                                pe_error *err)
{
    char *lines = NULL;
    size_t len = 0;
    FILE *out = t->format == PE_CHECK_TEXT ? t->out : open_memstream(&lines, &len);
    if (!out)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    pe_golden_options go = {.rel_tol = opt->golden_rel_tol, .abs_tol = opt->golden_abs_tol,
                            .rank_tol = opt->golden_rank_tol, .max_lines = opt->golden_max_lines,
                            .top_k = opt->top_k, .out = out};
    pe_golden_diff diff;
    pe_status st = golden_compare_run(golden, s->name, space, ctx, rr, opt->threads, &go, &diff,
                                      err);
    if (out != t->out)
        fclose(out);
    if (st == PE_OK) {
        const bool differs = golden_differs(&diff);
        if (differs)
            t->count.failed++;
        else
            t->count.passed++;
        st = results_add_golden(&t->results, golden, differs ? PE_GOLDEN_FAIL : PE_GOLDEN_PASS,
                                &diff, lines ? lines : "", err);
    }
    free(lines);
    return st;
}

/* --golden: write the golden report (--update-golden) or compare with it.
 * A golden report not there is a failure of its own class: not written
 * yet, not a regression. */
static pe_status check_golden(const pe_scenario *s, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr,
                              const pe_command_options *opt, tally *t, pe_error *err)
{
    char golden[PE_PATH_MAX];
    snprintf(golden, sizeof golden, "%s/%s.csv", opt->golden_dir, s->name);
    if (opt->update_golden) {
        pe_status st = golden_write_run(golden, space, ctx, rr, opt->top_k, opt->threads, err);
        if (st == PE_OK && !opt->quiet)
            fprintf(stderr, "%s: golden report written\n", golden);
        if (st == PE_OK)
            st = results_add_golden(&t->results, golden, PE_GOLDEN_WRITTEN, NULL, "", err);
        return st;
    }
    if (access(golden, F_OK) != 0) {
        t->count.failed++;
        t->missing++;
        if (t->format == PE_CHECK_TEXT)
            fprintf(t->out, "%s: missing golden report: no such file (run with --update-golden "
                    "to write it)\n", golden);
        return results_add_golden(&t->results, golden, PE_GOLDEN_MISSING, NULL, "", err);
    }
    return compare_golden(golden, s, space, ctx, rr, opt, t, err);
}

static pe_status check_one(const pe_scenario *s, const pe_command_options *opt, tally *t,
                           pe_error *err)
{
    pe_plan_space space;
    pe_status st = plans_init(s, &space, err);
    if (st != PE_OK)
        return st;
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    /* expect: and --golden see every plan: a sweep too big to hold says so
     * (as run does) and shows its progress, instead of a silent hang */
    const uint64_t total = plans_total(&space);
    const bool big = total > BIG_SWEEP_COMBINATIONS && !opt->quiet;
    if (big)
        fprintf(stderr, "%s: note: %llu combinations: check evaluates every plan and keeps each "
                "row in memory, about %.0f bytes a row, so up to %.3g GiB\n", s->name,
                (unsigned long long)total, FULL_REPORT_BYTES_PER_ROW,
                (double)total * FULL_REPORT_BYTES_PER_ROW / PE_GIB);
    pe_run_options ro = {.threads = opt->threads, .progress = big};
    pe_run_result rr;
    st = runner_run(&space, &ctx, &ro, &rr, err);
    if (st != PE_OK) {
        plans_free(&space);
        return st;
    }
    file_group(s->file, t->group);
    snprintf(t->framework, sizeof t->framework, "%s", s->framework.name);
    memory_file_read(s->file, s->name, &t->file);
    pe_expect_sink sink = {.out = t->format == PE_CHECK_TEXT ? t->out : NULL,
                           .seen = table_seen, .outcome = outcome_seen,
                           .interval = interval_seen, .mem_interval = mem_interval_seen,
                           .user = t};
    expect_check(s, &space, &ctx, &rr, &sink, &t->count);
    if (opt->golden_dir)
        st = check_golden(s, &space, &ctx, &rr, opt, t, err);
    runner_free(&rr);
    plans_free(&space);
    return st;
}

/* One scenario file: recorded, loaded, checked; an error is handed to
 * on_error (stderr) and recorded with the file. */
static pe_status check_file(const char *path, const pe_catalog *catalog,
                            const pe_command_options *opt, tally *t)
{
    pe_scenario s;
    pe_error err = {0};
    pe_status st = results_add_scenario(&t->results, path, &err);
    if (st == PE_OK)
        st = load_scenario(path, catalog, &s, &err);
    if (st == PE_OK) {
        st = results_name_scenario(&t->results, s.name, &err);
        if (st == PE_OK)
            st = check_one(&s, opt, t, &err);
        scenario_free(&s);
    }
    if (st != PE_OK) {
        opt->on_error(&err);
        pe_error unrecorded = {0};
        if (results_fail_scenario(&t->results, &err, &unrecorded) != PE_OK)
            t->unrecorded = true;
    }
    return st;
}

/* --golden: the reports in DIR no checked scenario writes (a scenario that
 * did not load writes none). A note, not a failure: a check of some
 * scenarios only sees the others' reports as stale too. */
static pe_status find_stale(const pe_command_options *opt, tally *t, pe_error *err)
{
    const pe_check_results *r = &t->results;
    const char **names = malloc((r->nscenarios ? r->nscenarios : 1) * sizeof *names);
    if (!names)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < r->nscenarios; i++)
        if (r->scenarios[i].name[0])
            names[n++] = r->scenarios[i].name;
    char **stale = NULL;
    size_t count = 0;
    pe_status st = golden_stale(opt->golden_dir, names, n, &stale, &count, err);
    for (size_t i = 0; i < count; i++) {
        if (st == PE_OK)
            st = results_add_stale(&t->results, stale[i], err);
        if (t->format == PE_CHECK_TEXT)
            fprintf(t->out, "%s: stale golden report: no scenario checked writes it\n", stale[i]);
        free(stale[i]);
    }
    free(stale);
    free(names);
    return st;
}

/* The closing line: "N passed, N failed", what kind some failures were,
 * the stale reports. */
static void print_closing(const tally *t)
{
    printf("%llu passed, %llu failed", t->count.passed, t->count.failed);
    if (t->missing)
        printf(", %llu of them %s", t->missing,
               t->missing == 1 ? "a missing golden report" : "missing golden reports");
    if (t->results.nstale)
        printf("; %zu stale golden report%s", t->results.nstale,
               t->results.nstale == 1 ? "" : "s");
    printf("\n");
}

/* --table: the table, then the miss lines kept back for it (the stream's
 * buffer and length are set when it is closed). */
static void print_table(tally *t, char **misses, size_t *misses_len)
{
    table_print(t);
    table_free(t);
    if (t->out != stdout) {
        fclose(t->out);
        if (*misses_len)
            printf("\n%s", *misses);
    }
    free(*misses);
}

int command_check(const pe_catalog *catalog, const pe_file_list *files,
                  const pe_command_options *opt)
{
    pe_error err = {0};
    if (opt->top_k && !opt->golden_dir) {
        pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0,
                "check: --top K applies to the --golden reports only (the expect: assertions "
                "see every plan)");
        opt->on_error(&err);
        return PE_BAD_INPUT;
    }
    int status = PE_OK;
    tally t = {.out = stdout, .table = opt->table, .format = opt->format};
    char *misses = NULL;
    size_t misses_len = 0;
    if (opt->table) { /* miss lines wait until the table is printed */
        t.out = open_memstream(&misses, &misses_len);
        if (!t.out)
            t.out = stdout;
    }
    for (size_t i = 0; i < files->count; i++) {
        pe_status st = check_file(files->paths[i], catalog, opt, &t);
        status = status > (int)st ? status : (int)st;
    }
    pe_status st = opt->golden_dir ? find_stale(opt, &t, &err) : PE_OK;
    if (st == PE_OK && t.unrecorded)
        st = pe_fail(&err, PE_INTERNAL, NULL, 0, 0, "out of memory: the results are incomplete");
    if (st != PE_OK) {
        opt->on_error(&err);
        status = status > (int)st ? status : (int)st;
    }
    if (opt->table)
        print_table(&t, &misses, &misses_len);
    if (opt->format == PE_CHECK_JSON)
        results_write_json(&t.results, stdout);
    else if (opt->format == PE_CHECK_JUNIT)
        results_write_junit(&t.results, stdout);
    else
        print_closing(&t);
    results_free(&t.results);
    if (t.count.failed && status < PE_CHECK_FAILED)
        status = PE_CHECK_FAILED;
    return status;
}
