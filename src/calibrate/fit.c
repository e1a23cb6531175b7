/* fit.c — the free numbers of one GPU type fitted to many measured runs
 * (fit.h; docs/model.md §12, "Calibration"), for `planeval calibrate
 * RUNS.csv`.
 *
 * The runs file is a CSV with the header scenario,plan,column,value[,group]:
 * a scenario file (relative to the runs file), a plan in it, the measured
 * report column (step_time_s, or tokens_per_s, mfu, hfu, tflops_per_gpu,
 * each the inverse of the step time through the model's own FLOP count, so
 * the same conversion `check --table` makes) and its value; group `fit`
 * (or empty) rows are fitted, `predict` rows only predicted.
 *
 * The numbers of F8–F11 and F18 — gemm_efficiency, elementwise_efficiency,
 * fp8_gemm_efficiency (only when a fit row runs compute: fp8),
 * gemm_half_gflop, attention_efficiency, microbatch_overhead_us: those --fit
 * names, else the first k of them in that order (a measured one held), k ≤ max(1, ⌊fit rows/2⌋)
 * and ≤ 4 chosen by the smallest leave-one-out error — minimise the sum over the fit rows of ln(predicted/measured)²,
 * by Nelder–Mead in a box (a handful of numbers, a smooth, cheap model: no
 * gradient needed). The result: the values, every row's prediction and
 * leave-one-out error, and what the catalog lines to paste need. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/fit.h"
#include "calibrate/priors.h"
#include "input/load.h"
#include "model/evaluate.h"
#include "output/csvread.h"
#include "sweep/plans.h"

#define NPAR PE_FIT_NUMBERS
#define MAX_FREE PE_FIT_MAX_FREE
/* Numbers not fitted take their neutral values (neutral_fixed: η_W 0,
 * F_half 0, e_att = e_max, e_max8 = e_max, t_mb 0); a measured F_half
 * (gemm_half_measured) or e_att (F22, F41) keeps its measurement. */
/* The last, gemm_rate_scale (F26), is a framework's number: fitted only
 * alone (framework_fit), over runs of one framework that keep their GPU
 * presets' numbers; never among the default candidates. */
enum { P_GEMM, P_ELEMENTWISE, P_HALF, P_ATTENTION, P_FP8, P_MB, P_SCALE };
static const char *const PAR_NAME[NPAR] = {"gemm_efficiency", "elementwise_efficiency",
                                           "gemm_half_gflop", "attention_efficiency",
                                           "fp8_gemm_efficiency", "microbatch_overhead_us",
                                           "gemm_rate_scale"};
static const double PAR_LO[NPAR] = {0.05, 0.02, 0.0, 0.02, 0.05, 0.0, 0.1};
static const double PAR_HI[NPAR] = {1.0, 1.0, 1000.0, 1.0, 1.0, 100000.0, 2.0};
static const double PAR_START[NPAR] = {0.7, 0.7, 1.0, 0.5, 0.5, 100.0, 1.0};
static const double PAR_STEP[NPAR] = {0.1, 0.2, 5.0, 0.2, 0.1, 200.0, 0.1};

typedef struct {
    pe_scenario s;
    pe_plan plan;
    char label[PE_FIT_LABEL_MAX];
    double measured; /* step time, s */
    bool fit;
    /* A fit row that repeats an earlier one (the same scenario file, plan
     * and measured value: the same model evaluation) is counted through
     * that row: same_as its index (−1: none), copies how many rows the
     * earlier one stands for. The sums come out the same, each evaluated
     * once (mark_repeats). */
    long same_as;
    size_t copies;
} run;

typedef struct {
    run *runs;
    size_t count;
    long skip;  /* leave-one-out: the fit row left out, −1 for none */
    int free;   /* numbers fitted: order[0..free) (fewer when leaving one out) */
    int order[NPAR]; /* which numbers, in the order they are freed */
    double fixed[NPAR]; /* the values of the numbers not fitted */
    const pe_priors *priors; /* NULL: the plain least squares */
    bool framework_fit; /* gemm_rate_scale alone: the GPUs' numbers as the presets give them */
    int threads;        /* leave-one-out refits run on this many threads (≥ 1) */
} run_set;

/* The GPU's numbers of a GPU fit, x indexed as PAR_NAME. */
static void set_gpu_numbers(pe_gpu *g, const double x[NPAR])
{
    g->has_gemm_efficiency = true, g->gemm_efficiency = x[P_GEMM];
    g->elementwise_efficiency = x[P_ELEMENTWISE];
    g->gemm_half_gflop = x[P_HALF];
    g->has_attention_efficiency = x[P_ATTENTION] > 0; /* −1: e_att = e_max */
    g->attention_efficiency = x[P_ATTENTION];
    g->has_fp8_gemm_efficiency = x[P_FP8] > 0; /* −1: e_max8 = e_max */
    g->fp8_gemm_efficiency = x[P_FP8];
    g->microbatch_overhead_us = x[P_MB];
}

/* The model's step time of r with the numbers x (indexed as PAR_NAME): a
 * framework fit sets F26's σ only, each run keeping its GPU preset's
 * numbers; a GPU fit the GPU's numbers, each run's framework as it is. */
static double step_with(const run_set *rs, const run *r, const double x[NPAR])
{
    pe_scenario copy = r->s;
    if (rs->framework_fit)
        copy.framework.gemm_rate_scale = x[P_SCALE];
    else
        set_gpu_numbers(&copy.cluster.gpu, x);
    pe_eval_ctx ctx;
    evaluate_prepare(&copy, &ctx);
    pe_result res;
    evaluate_plan(&ctx, &r->plan, &res);
    return res.step_time_s;
}

/* How many fit rows row i stands for in a sum: its copies, less the one a
 * leave-one-out refit leaves out; 0 for a predict row, a repeat (counted
 * through its first), or the row left out when it is alone. */
static double fit_weight(const run_set *rs, size_t i)
{
    const run *r = &rs->runs[i];
    if (!r->fit || r->same_as >= 0)
        return 0.0;
    return (double)r->copies - ((long)i == rs->skip ? 1.0 : 0.0);
}

/* The runs' part of the regularised loss (priors.h), every number at x:
 * Σ over the fit rows (but the one left out) of (ln(predicted/measured)/σ_run)². */
static double runs_chi2(const run_set *rs, const double x[NPAR])
{
    double sum = 0.0;
    for (size_t i = 0; i < rs->count; i++) {
        const double w = fit_weight(rs, i);
        if (w <= 0.0)
            continue;
        const double e = log(step_with(rs, &rs->runs[i], x) / rs->runs[i].measured);
        sum += w * prior_loss(&e, 1, NULL, NULL, NULL, NULL, 0);
    }
    return sum;
}

/* The regularised loss (priors.h): the runs' χ² plus each free number's
 * prior term. */
static double loss_with_priors(const run_set *rs, const double x[NPAR])
{
    bool has[NPAR] = {false};
    for (int k = 0; k < rs->free; k++)
        has[rs->order[k]] = rs->priors->has[rs->order[k]];
    return runs_chi2(rs, x) +
           prior_loss(NULL, 0, x, rs->priors->value, rs->priors->width, has, NPAR);
}

static double loss(const run_set *rs, const double xf[NPAR])
{
    double x[NPAR];
    memcpy(x, rs->fixed, sizeof x);
    for (int k = 0; k < rs->free; k++) {
        const int i = rs->order[k];
        x[i] = xf[k];
        if (!(x[i] >= PAR_LO[i] && x[i] <= PAR_HI[i]))
            return HUGE_VAL;
    }
    if (rs->priors)
        return loss_with_priors(rs, x);
    double sum = 0.0;
    for (size_t i = 0; i < rs->count; i++) {
        const double w = fit_weight(rs, i);
        if (w <= 0.0)
            continue;
        const double e = log(step_with(rs, &rs->runs[i], x) / rs->runs[i].measured);
        sum += w * (e * e);
    }
    return sum;
}

static void simplex(const run_set *rs, double best[NPAR]);

/* Nelder–Mead (reflection 1, expansion 2, contraction ½, shrink ½) from
 * PAR_START, over the numbers order[0..free) (the others held at
 * rs->fixed); deterministic, 400 iterations are plenty for four numbers.
 * best: every number, indexed as PAR_NAME. */
static void minimise(const run_set *rs, double best[NPAR])
{
    double xf[NPAR] = {0};
    memcpy(best, rs->fixed, sizeof(double) * NPAR);
    if (rs->free > 0)
        simplex(rs, xf);
    for (int k = 0; k < rs->free; k++)
        best[rs->order[k]] = xf[k];
}

static double loss_cb(const double *xf, const void *arg) { return loss(arg, xf); }

/* From PAR_START by PAR_STEP; a number with a prior from its measured
 * value by its width (toward the inside of its box). */
static void simplex(const run_set *rs, double best[NPAR])
{
    double start[NPAR], step[NPAR];
    for (int k = 0; k < rs->free; k++) {
        const int i = rs->order[k];
        const bool prior = rs->priors && rs->priors->has[i];
        start[k] = prior ? rs->priors->value[i] : PAR_START[i];
        step[k] = prior ? rs->priors->width[i] : PAR_STEP[i];
        if (prior && start[k] + step[k] > PAR_HI[i])
            step[k] = -step[k];
    }
    prior_simplex(rs->free, loss_cb, rs, start, step, best);
}

/* Measured step time of a row: the column's value, through the model's own
 * FLOP and token counts when it is not step_time_s. */
static pe_status measured_step(run *r, const char *column, double value, pe_error *err)
{
    pe_eval_ctx ctx;
    evaluate_prepare(&r->s, &ctx);
    pe_result res;
    evaluate_plan(&ctx, &r->plan, &res);
    if (res.status == PE_STATUS_INVALID)
        return pe_fail(err, PE_BAD_INPUT, r->s.file, r->plan.line, r->plan.col,
                       "plan '%s' is invalid: nothing to calibrate", r->label);
    const double step = res.step_time_s;
    double pred;
    if (strcmp(column, "step_time_s") == 0) {
        r->measured = value;
        return PE_OK;
    } else if (strcmp(column, "tokens_per_s") == 0) {
        pred = res.tokens_per_s;
    } else if (strcmp(column, "mfu") == 0) {
        pred = res.mfu;
    } else if (strcmp(column, "hfu") == 0) {
        pred = res.hfu;
    } else if (strcmp(column, "tflops_per_gpu") == 0) {
        pred = res.tflops_per_gpu;
    } else {
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "runs file: column '%s' is not step_time_s, tokens_per_s, mfu, hfu or "
                       "tflops_per_gpu", column);
    }
    r->measured = step * pred / value; /* the column is ∝ 1/step_time */
    return PE_OK;
}

/* The runs file's directory joined with a relative scenario path. */
static void beside(char *out, size_t size, const char *runs_path, const char *rel)
{
    const char *slash = strrchr(runs_path, '/');
    if (rel[0] == '/' || !slash)
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - runs_path), runs_path, rel);
}

static const char *const RUN_COLUMNS[] = {"step_time_s", "tokens_per_s", "mfu", "hfu",
                                           "tflops_per_gpu"};

/* The cells of a row that need no scenario: how many, the column, the
 * value (a finite decimal number > 0, as a report writes it: strtod alone
 * would take spaces, hexadecimal, "inf" and overflow to infinity). */
static pe_status check_row(const pe_csv_table *t, size_t row, const char *runs_path,
                           double *value, pe_error *err)
{
    if (t->cols[row] > 5)
        return pe_fail(err, PE_BAD_INPUT, runs_path, t->lines[row], 6,
                       "a run has at most 5 cells (scenario,plan,column,value,group), got %zu",
                       t->cols[row]);
    const char *column = csv_table_cell(t, row, 2);
    bool known = false;
    for (size_t i = 0; i < sizeof RUN_COLUMNS / sizeof RUN_COLUMNS[0]; i++)
        known |= strcmp(column, RUN_COLUMNS[i]) == 0;
    if (!known)
        return pe_fail(err, PE_BAD_INPUT, runs_path, t->lines[row], 3,
                       "column must be step_time_s, tokens_per_s, mfu, hfu or tflops_per_gpu, "
                       "got '%s'", column);
    const char *cell = csv_table_cell(t, row, 3);
    char *end;
    *value = strtod(cell, &end);
    const bool decimal = (cell[0] >= '0' && cell[0] <= '9') || cell[0] == '.';
    if (!decimal || *end || !(*value > 0) || !isfinite(*value) || strpbrk(cell, "xX"))
        return pe_fail(err, PE_BAD_INPUT, runs_path, t->lines[row], 4,
                       "value must be a number > 0, got '%s'", cell);
    return PE_OK;
}

static pe_status load_run(const pe_catalog *cat, const pe_csv_table *t, size_t row,
                          const char *runs_path, run *r, pe_error *err)
{
    double value = 0;
    pe_status st = check_row(t, row, runs_path, &value, err);
    if (st)
        return st;
    char path[PE_PATH_MAX];
    beside(path, sizeof path, runs_path, csv_table_cell(t, row, 0));
    if ((st = load_scenario(path, cat, &r->s, err)))
        return st;
    if (r->s.fidelity == PE_FIDELITY_TEXTBOOK)
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "this scenario is the textbook model (fidelity: textbook, or no fidelity: "
                       "key and no refinement named): nothing to fit; write fidelity: refined");
    const char *plan = csv_table_cell(t, row, 1);
    snprintf(r->label, sizeof r->label, "%s/%s", r->s.name, plan);
    pe_plan_space space;
    if ((st = plans_init(&r->s, &space, err)))
        return st;
    const bool found = plans_find(&space, plan, &r->plan);
    plans_free(&space);
    if (!found)
        return pe_fail(err, PE_BAD_INPUT, runs_path, t->lines[row], 2,
                       "no plan named '%s' in %s: give an explicit plan's name or a canonical "
                       "text", plan, csv_table_cell(t, row, 0));
    const char *group = csv_table_cell(t, row, 4);
    r->fit = group[0] == '\0' || strcmp(group, "fit") == 0;
    if (!r->fit && strcmp(group, "predict") != 0)
        return pe_fail(err, PE_BAD_INPUT, runs_path, t->lines[row], 5,
                       "group must be fit, predict or empty, got '%s'", group);
    return measured_step(r, csv_table_cell(t, row, 2), value, err);
}

/* One GPU type: the datasheet numbers of every run agree with the first. */
static pe_status same_gpu(const run_set *rs, pe_error *err)
{
    const pe_gpu *a = &rs->runs[0].s.cluster.gpu;
    for (size_t i = 1; i < rs->count; i++) {
        const pe_gpu *b = &rs->runs[i].s.cluster.gpu;
        if (a->peak_tflops != b->peak_tflops || a->hbm_tb_s != b->hbm_tb_s)
            return pe_fail(err, PE_BAD_INPUT, rs->runs[i].s.file, 0, 0,
                           "runs of more than one GPU type (peak_tflops %g, hbm_tb_s %g vs %g, "
                           "%g): calibrate one GPU type at a time (or fit a framework's "
                           "number across them: --fit gemm_rate_scale, F26)",
                           b->peak_tflops, b->hbm_tb_s, a->peak_tflops, a->hbm_tb_s);
    }
    return PE_OK;
}

static pe_status load_runs(const pe_catalog *cat, const char *path, run_set *rs, pe_error *err)
{
    pe_csv_table t;
    pe_status st = csv_table_read(path, &t, err);
    if (st)
        return st;
    const char *want[] = {"scenario", "plan", "column", "value"};
    for (int c = 0; c < 4 && !st; c++)
        if (t.rows == 0 || strcmp(csv_table_cell(&t, 0, (size_t)c), want[c]) != 0)
            st = pe_fail(err, PE_BAD_INPUT, path, 1, 1,
                         "a runs file starts with the header scenario,plan,column,value[,group]");
    rs->runs = st || t.rows < 2 ? NULL : calloc(t.rows - 1, sizeof *rs->runs);
    if (!st && !rs->runs)
        st = pe_fail(err, PE_BAD_INPUT, path, 1, 1, "a runs file needs at least one run");
    for (size_t row = 1; !st && row < t.rows; row++) {
        st = load_run(cat, &t, row, path, &rs->runs[rs->count], err);
        rs->count++; /* loaded or half-loaded: freed either way */
    }
    csv_table_free(&t);
    return st;
}

/* A framework fit (F26): every run on the first run's framework, and on a
 * GPU whose preset times compute by shape (gemm_efficiency: F7–F11), the
 * rate σ scales; the GPU types may differ, their numbers stay the presets'. */
static pe_status same_framework(const run_set *rs, pe_error *err)
{
    const pe_framework *a = &rs->runs[0].s.framework;
    for (size_t i = 0; i < rs->count; i++) {
        const pe_scenario *s = &rs->runs[i].s;
        if (!s->framework.present || strcmp(s->framework.name, a->name) != 0 || !a->present)
            return pe_fail(err, PE_BAD_INPUT, s->file, 0, 0,
                           "gemm_rate_scale is a framework's number (F26): every run must name "
                           "the same framework preset (first run: '%s', this one: '%s')",
                           a->present ? a->name : "", s->framework.present ? s->framework.name : "");
        if (!s->cluster.gpu.has_gemm_efficiency)
            return pe_fail(err, PE_BAD_INPUT, s->file, 0, 0,
                           "gemm_rate_scale scales the GEMM rate of the refined compute (F26), "
                           "but this run's GPU gives no gemm_efficiency: nothing to scale");
    }
    return PE_OK;
}

/* gemm_rate_scale among the numbers: a framework fit, of that number alone. */
static pe_status framework_or_gpu(run_set *rs, pe_error *err)
{
    for (int k = 0; k < rs->free; k++)
        rs->framework_fit |= rs->order[k] == P_SCALE;
    if (rs->framework_fit && rs->free != 1)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "gemm_rate_scale is a framework's number (F26): fit it alone, the GPUs' "
                       "numbers as their presets give them (name no other number with it)");
    return rs->framework_fit ? same_framework(rs, err) : same_gpu(rs, err);
}

/* The GPU's e_att is a kernel measurement: by shape (F22: attention_half_seq
 * given) or flat (F41: attention_measured). */
static bool attention_is_measured(const pe_gpu *g)
{
    return g->has_attention_efficiency && (g->attention_half_seq > 0.0 || g->attention_measured);
}

/* The numbers to fit: --fit's names in their order, else the candidates
 * gemm_efficiency, elementwise_efficiency, fp8_gemm_efficiency (with an fp8
 * fit row), gemm_half_gflop, attention_efficiency, microbatch_overhead_us,
 * but those the GPU measured (held: neutral_fixed), of which fit_all frees
 * the first k ≤ max(1, ⌊fit rows/2⌋), ≤ 4. */
static pe_status choose_numbers(const char *list, size_t n_fit, bool fp8_fit, run_set *rs,
                                pe_error *err)
{
    if (!list) {
        /* the GPU's numbers; gemm_rate_scale only when named */
        const int order[] = {P_GEMM, P_ELEMENTWISE, P_FP8, P_HALF, P_ATTENTION, P_MB};
        const size_t half = n_fit / 2 > 1 ? n_fit / 2 : 1; /* at most: two runs a number */
        const int most = half < MAX_FREE ? (int)half : MAX_FREE;
        /* a measured number (F_half: gemm_half_measured; e_att: F22, F41)
         * is held, not a candidate; it keeps its place among the first
         * `most`, so a measurement never lets a later candidate in */
        const pe_gpu *g = &rs->runs[0].s.cluster.gpu;
        int n = 0, place = 0, held = 0;
        for (int k = 0; k < (int)(sizeof order / sizeof order[0]); k++) {
            if (order[k] == P_FP8 && !fp8_fit)
                continue;
            const bool measured = (order[k] == P_HALF && g->gemm_half_measured) ||
                                  (order[k] == P_ATTENTION && attention_is_measured(g));
            held += measured && place < most;
            place++;
            if (!measured)
                rs->order[n++] = order[k];
        }
        rs->free = most - held < 1 ? 1 : most - held;
        return PE_OK;
    }
    rs->free = 0;
    for (const char *p = list;; p++) {
        const size_t len = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < NPAR; i++)
            if (len == strlen(PAR_NAME[i]) && strncmp(p, PAR_NAME[i], len) == 0)
                found = i;
        for (int k = 0; k < rs->free && found >= 0; k++)
            if (rs->order[k] == found)
                return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--fit names %s twice",
                               PAR_NAME[found]);
        if (found < 0)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "--fit takes names from gemm_efficiency, elementwise_efficiency, "
                           "gemm_half_gflop, attention_efficiency, fp8_gemm_efficiency, "
                           "microbatch_overhead_us, gemm_rate_scale, separated by commas, got "
                           "'%s'",
                           list);
        if (found == P_FP8 && !fp8_fit)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "--fit names fp8_gemm_efficiency but no fit row runs compute: fp8 "
                           "(nothing would determine it)");
        rs->order[rs->free++] = found;
        p += len;
        if (!*p)
            break;
    }
    if (rs->free > MAX_FREE)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "--fit names %d numbers: at most %d are fitted per GPU type", rs->free,
                       MAX_FREE);
    if ((size_t)rs->free > n_fit)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "--fit names %d numbers but the runs file has %zu fit row%s: fit at most "
                       "that many", rs->free, n_fit, n_fit == 1 ? "" : "s");
    return PE_OK;
}

/* The neutral values of the numbers not fitted (docs/model.md §12,
 * "Neutral values"), so a fit does not depend on what the preset held
 * before; gemm_efficiency, when --fit leaves it out, keeps the GPU's. */
static void neutral_fixed(const pe_gpu *g, double fixed[NPAR])
{
    fixed[P_GEMM] = g->has_gemm_efficiency ? g->gemm_efficiency : g->flops_efficiency;
    fixed[P_ELEMENTWISE] = 0.0; /* untimed */
    /* F_half 0, unless the GPU's is measured (gemm_half_measured: a fit of
     * F8's e(F) to matrix multiplies timed by shape), held at its value */
    fixed[P_HALF] = g->gemm_half_measured ? g->gemm_half_gflop : 0.0;
    /* e_att = e_max, unless the GPU's attention core is measured: by shape
     * (F22: attention_half_seq given) or flat (F41: attention_measured),
     * whose e_att is a kernel measurement */
    fixed[P_ATTENTION] = attention_is_measured(g) ? g->attention_efficiency : -1.0;
    fixed[P_FP8] = -1.0;       /* e_max8 = e_max */
    fixed[P_MB] = 0.0;
    fixed[P_SCALE] = 1.0; /* F26 neutral (a GPU fit does not set it) */
}

/* One thread's share of the leave-one-out refits: the fit rows whose place
 * among the fit rows is t modulo the thread count, on a copy of the run set
 * (its skip and free are the refit's own; the runs are only read, and the
 * model is a pure function of scenario and plan), each error into loo[i]. */
typedef struct {
    run_set rs; /* a copy */
    size_t n_fit;
    int thread, threads;
    double *loo;
} loo_share;

/* The most threads one leave-one-out pass starts (each takes a share of the
 * fit rows; beyond a few dozen the refits are too few to split further). */
enum { LOO_THREADS_MAX = 64 };

static void *leave_one_out_share(void *arg)
{
    loo_share *sh = arg;
    run_set *rs = &sh->rs;
    const int free_all = rs->free;
    double xi[NPAR];
    size_t place = 0;
    for (size_t i = 0; i < rs->count; i++) {
        if (!rs->runs[i].fit || rs->runs[i].same_as >= 0) /* a repeat: its first's error */
            continue;
        if ((int)(place++ % (size_t)sh->threads) != sh->thread)
            continue;
        rs->skip = (long)i;
        rs->free = (int)sh->n_fit - 1 < free_all ? (int)sh->n_fit - 1 : free_all;
        minimise(rs, xi);
        sh->loo[i] = 100.0 * (step_with(rs, &rs->runs[i], xi) / rs->runs[i].measured - 1.0);
        rs->free = free_all;
    }
    return NULL;
}

/* Leave-one-out: refit without each fit row (rs->free numbers, fewer when
 * the rows run out), predict it; loo[i] its error in %. Returns the mean
 * absolute error. The refits are independent, so they run on rs->threads
 * threads (at most one a fit row); each error is the same whatever the
 * count, and the mean is summed in row order, so calibrate prints the same
 * bytes on any. A thread that cannot start leaves its rows to the caller. */
static double leave_one_out(run_set *rs, size_t n_fit, double *loo)
{
    size_t distinct = 0; /* fit rows to refit without: the repeats share their first's */
    for (size_t i = 0; i < rs->count; i++)
        distinct += rs->runs[i].fit && rs->runs[i].same_as < 0;
    int threads = rs->threads < 1 ? 1 : rs->threads;
    if ((size_t)threads > distinct)
        threads = distinct ? (int)distinct : 1;
    loo_share shares[LOO_THREADS_MAX];
    pthread_t tids[LOO_THREADS_MAX];
    bool started[LOO_THREADS_MAX] = {false};
    if (threads > LOO_THREADS_MAX)
        threads = LOO_THREADS_MAX;
    for (int t = 0; t < threads; t++) {
        shares[t] = (loo_share){.rs = *rs, .n_fit = n_fit, .thread = t, .threads = threads,
                                .loo = loo};
        started[t] = t > 0 && pthread_create(&tids[t], NULL, leave_one_out_share, &shares[t]) == 0;
    }
    for (int t = 0; t < threads; t++)
        if (!started[t]) /* this thread's share (t = 0, or one that did not start) */
            leave_one_out_share(&shares[t]);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tids[t], NULL);
    double sum = 0.0;
    for (size_t i = 0; i < rs->count; i++) {
        if (!rs->runs[i].fit)
            continue;
        if (rs->runs[i].same_as >= 0) /* the same refit as its first */
            loo[i] = loo[rs->runs[i].same_as];
        sum += fabs(loo[i]);
    }
    return sum / (double)n_fit;
}

/* Fit, refit leaving each fit row out. Without --fit the number of
 * numbers is the one, of 1 .. rs->free, with the smallest leave-one-out
 * error (ties to fewer): a number that does not predict left-out runs
 * better is not fitted. */
static pe_status fit_all(run_set *rs, size_t n_fit, bool chosen, double *loo, pe_fit *out,
                         pe_error *err)
{
    neutral_fixed(&rs->runs[0].s.cluster.gpu, rs->fixed);
    double *tried = calloc(rs->count, sizeof *tried);
    if (!tried)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    if (!chosen && n_fit >= 3) {
        const int most = rs->free;
        int best = 1;
        double best_loo = HUGE_VAL;
        for (int k = 1; k <= most; k++) {
            rs->free = k;
            const double e = leave_one_out(rs, n_fit, tried);
            out->loo_by_count[out->counts_tried++] = e;
            if (e < best_loo - 1e-9) { /* keep the chosen count's errors: no refit later */
                best = k, best_loo = e;
                memcpy(loo, tried, rs->count * sizeof *loo);
            }
        }
        rs->free = best;
    } else {
        leave_one_out(rs, n_fit, loo);
    }
    free(tried);
    return PE_OK;
}

/* What the fit found, for printing: the values, each run's prediction,
 * and which preset lines the paste block must mention. */
static pe_status fill_result(const run_set *rs, const double *loo, pe_fit *out, pe_error *err)
{
    double x[NPAR];
    minimise(rs, x);
    out->runs = calloc(rs->count, sizeof *out->runs);
    if (!out->runs)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    out->count = rs->count;
    for (size_t i = 0; i < rs->count; i++) {
        const run *r = &rs->runs[i];
        pe_fit_run *o = &out->runs[i];
        memcpy(o->label, r->label, sizeof o->label);
        o->fit = r->fit;
        o->measured = r->measured;
        o->predicted = step_with(rs, r, x);
        o->loo_error_pct = loo[i];
        memcpy(o->framework, r->s.framework.name, sizeof o->framework);
    }
    out->free = rs->free;
    memcpy(out->order, rs->order, sizeof out->order);
    memcpy(out->value, x, sizeof out->value);
    bool fitted[NPAR] = {false};
    for (int k = 0; k < rs->free; k++)
        fitted[rs->order[k]] = true;
    /* the lines hold only with the rest as the fit held them: e_max at its
     * value (without it F6 would time the runs), the others neutral */
    const pe_gpu *g = &rs->runs[0].s.cluster.gpu;
    out->gemm_held = !fitted[P_GEMM] && !g->has_gemm_efficiency;
    out->gemm_held_value = rs->fixed[P_GEMM];
    const bool carried[NPAR] = {false, g->elementwise_efficiency > 0.0,
                                g->gemm_half_gflop > 0.0 && !g->gemm_half_measured,
                                g->has_attention_efficiency && !attention_is_measured(g),
                                g->has_fp8_gemm_efficiency, /* F22's e_att: held, measured */
                                g->microbatch_overhead_us > 0.0, false};
    for (int i = 0; i < NPAR; i++)
        out->remove[i] = carried[i] && !fitted[i] && !rs->framework_fit;
    out->gemm_held &= !rs->framework_fit; /* a framework fit leaves the GPUs' lines alone */
    out->framework_fit = rs->framework_fit;
    memcpy(out->framework, rs->runs[0].s.framework.name, sizeof out->framework);
    return PE_OK;
}

const char *fit_number_name(int i) { return i >= 0 && i < NPAR ? PAR_NAME[i] : ""; }

/* How many fit rows, and whether one of them computes in fp8. */
static size_t count_fit_rows(const run_set *rs, bool *fp8_fit)
{
    size_t n_fit = 0;
    *fp8_fit = false;
    for (size_t i = 0; i < rs->count; i++) {
        n_fit += rs->runs[i].fit;
        *fp8_fit |= rs->runs[i].fit && rs->runs[i].s.precision.compute == PE_COMPUTE_FP8;
    }
    return n_fit;
}

/* With priors and no --fit: the priors' numbers, in PAR_NAME's order. */
static pe_status choose_prior_numbers(const pe_priors *p, bool fp8_fit, run_set *rs, pe_error *err)
{
    rs->free = 0;
    for (int i = 0; i < NPAR; i++) {
        if (!p->has[i])
            continue;
        if (i == P_FP8 && !fp8_fit)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "the priors file names fp8_gemm_efficiency but no fit row runs "
                           "compute: fp8 (nothing would determine it)");
        if (rs->free == MAX_FREE)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "the priors file names more than %d numbers: at most %d are fitted "
                           "per GPU type", MAX_FREE, MAX_FREE);
        rs->order[rs->free++] = i;
    }
    return PE_OK;
}

/* The runs' χ² rise when a free number with a prior moves by its width
 * from the fit (priors.h; a bound in the way: the reachable side twice);
 * each under PE_PRIOR_CONSTRAINED is held at its measured value and
 * dropped from the numbers fitted. */
static void hold_unconstrained(run_set *rs, pe_fit *out)
{
    double x[NPAR];
    minimise(rs, x);
    const double d0 = runs_chi2(rs, x);
    int kept = 0;
    for (int k = 0; k < rs->free; k++) {
        const int i = rs->order[k];
        if (!rs->priors->has[i]) {
            rs->order[kept++] = i;
            continue;
        }
        double lo[NPAR], hi[NPAR];
        memcpy(lo, x, sizeof lo), memcpy(hi, x, sizeof hi);
        lo[i] -= rs->priors->width[i], hi[i] += rs->priors->width[i];
        const bool lo_in = lo[i] >= PAR_LO[i], hi_in = hi[i] <= PAR_HI[i];
        const double dm = lo_in ? runs_chi2(rs, lo) : 0.0, dp = hi_in ? runs_chi2(rs, hi) : 0.0;
        const double c = lo_in || hi_in ? prior_curvature(lo_in ? dm : dp, d0, hi_in ? dp : dm)
                                        : 0.0;
        out->curvature[i] = c;
        if (prior_constrained(c)) {
            rs->order[kept++] = i;
        } else {
            out->held[i] = true;
            rs->fixed[i] = rs->priors->value[i];
        }
    }
    rs->free = kept;
}

/* The fit rows that repeat an earlier fit row: the same scenario file, the
 * same plan and the same measured step time, so the same model evaluation
 * and the same leave-one-out refit (a runs file may list a run twice, or a
 * hostile one fifty times: its fit then costs what the distinct rows do). */
static void mark_repeats(run_set *rs)
{
    for (size_t i = 0; i < rs->count; i++)
        rs->runs[i].same_as = -1, rs->runs[i].copies = 1;
    for (size_t i = 0; i < rs->count; i++) {
        run *r = &rs->runs[i];
        for (size_t j = 0; r->fit && j < i; j++) {
            run *q = &rs->runs[j];
            if (q->fit && q->same_as < 0 && q->measured == r->measured &&
                !strcmp(q->label, r->label) && !strcmp(q->s.file, r->s.file)) {
                r->same_as = (long)j, r->copies = 0;
                q->copies++;
                break;
            }
        }
    }
}

/* Load, choose the numbers, fit (with priors: hold what the runs do not
 * constrain, then leave-one-out), fill the result. */
static pe_status fit_runs(const pe_catalog *catalog, const char *path, const char *numbers,
                          run_set *rs, pe_fit *out, pe_error *err)
{
    pe_status st = load_runs(catalog, path, rs, err);
    if (!st)
        mark_repeats(rs);
    bool fp8_fit = false;
    const size_t n_fit = st ? 0 : count_fit_rows(rs, &fp8_fit);
    if (!st && n_fit == 0)
        st = pe_fail(err, PE_BAD_INPUT, path, 0, 0, "no fit runs: every row is predict");
    if (!st)
        st = rs->priors && !numbers ? choose_prior_numbers(rs->priors, fp8_fit, rs, err)
                                    : choose_numbers(numbers, n_fit, fp8_fit, rs, err);
    if (!st)
        st = framework_or_gpu(rs, err);
    double *loo = st ? NULL : calloc(rs->count, sizeof *loo);
    if (!st && !loo)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    if (!st && rs->priors) {
        neutral_fixed(&rs->runs[0].s.cluster.gpu, rs->fixed);
        hold_unconstrained(rs, out);
        leave_one_out(rs, n_fit, loo);
    } else if (!st) {
        st = fit_all(rs, n_fit, numbers != NULL, loo, out, err);
    }
    if (!st)
        st = fill_result(rs, loo, out, err);
    free(loo);
    return st;
}

pe_status fit_runs_file_priors(const pe_catalog *catalog, const char *path, const char *numbers,
                               const char *priors_path, int threads, pe_fit *out,
                               pe_error *err)
{
    memset(out, 0, sizeof *out);
    run_set rs = {.runs = NULL, .count = 0, .skip = -1, .free = 0, .order = {0}, .fixed = {0},
                  .priors = NULL, .framework_fit = false, .threads = threads};
    pe_status st = PE_OK;
    if (priors_path) {
        st = priors_read(priors_path, PAR_NAME, PAR_LO, PAR_HI, &out->priors, err);
        out->with_priors = true;
        rs.priors = &out->priors;
    }
    if (!st)
        st = fit_runs(catalog, path, numbers, &rs, out, err);
    for (int i = 0; i < NPAR && !st; i++)
        if (out->held[i]) /* in the preset at its measured value */
            out->remove[i] = false, out->gemm_held &= i != P_GEMM;
    for (size_t i = 0; i < rs.count; i++)
        scenario_free(&rs.runs[i].s);
    free(rs.runs);
    return st;
}

pe_status fit_runs_file(const pe_catalog *catalog, const char *path, const char *numbers,
                        pe_fit *out, pe_error *err)
{
    return fit_runs_file_priors(catalog, path, numbers, NULL, 1, out, err);
}

void fit_free(pe_fit *f)
{
    free(f->runs);
    f->runs = NULL;
    f->count = 0;
}
