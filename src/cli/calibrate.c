/* calibrate.c — `planeval calibrate SCENARIO --plan P --step-time SECONDS
 * [--peak-memory GIB]`: calibrate against one real run (calibrate/one_run.h);
 * the answer is printed as YAML to paste.
 *
 * `planeval calibrate RUNS.csv [--fit NUMBERS]`: the fit of many runs
 * (calibrate/fit.h), printed as a table and the lines to paste. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/fit.h"
#include "calibrate/interval.h"
#include "calibrate/one_run.h"
#include "cli/commands.h"
#include "model/evaluate.h"
#include "input/load.h"
#include "sweep/plans.h"

/* Calibrate to one measured run (calibrate/one_run.h) and print the
 * YAML lines to paste: nothing unless every part succeeds. */
static pe_status calibrate(const pe_scenario *s, const pe_plan *p, const pe_command_options *opt,
                           pe_error *err)
{
    const pe_measured_run m = {opt->measured_step_s, opt->measured_peak_gib};
    pe_one_run_fit f;
    pe_status st = calibrate_one_run(s, p, opt->plan, &m, &f, err);
    if (st != PE_OK)
        return st;
    printf("# planeval calibrate: scenario %s, plan %s\n"
           "# model with %s %g: step_time_s %.6g, mem_total_gib %.6g\n%s",
           s->name, opt->plan, f.key, f.e_now, f.step_now, f.mem_now,
           s->refinements_unused
               ? "# note: the textbook model (the scenario names no refinement); its presets "
                 "carry fitted and measured numbers that fidelity: refined uses "
                 "(docs/model.md §12)\n"
               : "");
    if (f.has_e)
        printf("# measured step_time_s %.6g -> %s %.6g (model then gives %.6g s, "
               "mfu %.4g)\n", opt->measured_step_s, f.key, f.e, f.step_at_e, f.mfu_at_e);
    if (f.has_reserve)
        printf("# measured peak %.6g GiB = predicted parts %.6g GiB + reserve -> reserve_gib "
               "%.6g\n", opt->measured_peak_gib, f.parts, f.reserve);
    printf("cluster:\n");
    if (f.has_reserve)
        printf("  reserve_gib: %.6g\n", f.reserve);
    if (f.has_e)
        printf("  gpu:\n    %s: %.6g\n", f.key, f.e);
    return PE_OK;
}

/* ------------------------------------------------------------ many runs */

/* The fit's table: every run's error, the in-sample and leave-one-out
 * means, the predict rows' error. */
static void print_fit_table(const pe_fit *f)
{
    double in_sum = 0, loo_sum = 0, pr_sum = 0, in_max = 0, pr_max = 0;
    size_t n_fit = 0, n_pred = 0;
    printf("| run | group | measured s | predicted s | error %% | leave-one-out error %% |\n"
           "|---|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < f->count; i++) {
        const pe_fit_run *r = &f->runs[i];
        const double e = 100.0 * (r->predicted / r->measured - 1.0);
        printf("| %s | %s | %.6g | %.6g | %+.2f |", r->label, r->fit ? "fit" : "predict",
               r->measured, r->predicted, e);
        if (r->fit) {
            printf(" %+.2f |\n", r->loo_error_pct);
            in_sum += fabs(e), loo_sum += fabs(r->loo_error_pct), n_fit++;
            in_max = fabs(e) > in_max ? fabs(e) : in_max;
        } else {
            printf(" |\n");
            pr_sum += fabs(e), n_pred++;
            pr_max = fabs(e) > pr_max ? fabs(e) : pr_max;
        }
    }
    printf("\nfit: %zu runs, in-sample mean |error| %.2f%% (max %.2f%%), leave-one-out mean "
           "|error| %.2f%%\n", n_fit, in_sum / (double)n_fit, in_max,
           loo_sum / (double)n_fit);
    if (n_pred)
        printf("predict: %zu runs, mean |error| %.2f%% (max %.2f%%)\n", n_pred,
               pr_sum / (double)n_pred, pr_max);
}

/* With priors: each number's prior, its fit and whether the runs
 * constrain it (docs/model.md §12, "With priors"). */
static void print_priors(const pe_fit *f)
{
    if (!f->with_priors)
        return;
    printf("\npriors (docs/model.md §12, \"With priors\"): each run's log error weighed at "
           "%g, a number constrained when the runs' χ² rises by >= %g for a move of one "
           "prior width\n", PE_PRIOR_RUN_SIGMA, PE_PRIOR_CONSTRAINED);
    for (int i = 0; i < PE_FIT_NUMBERS; i++) {
        if (!f->priors.has[i])
            continue;
        bool free_now = false;
        for (int k = 0; k < f->free; k++)
            free_now |= f->order[k] == i;
        printf("  %s: prior %.4g ± %.4g (%s) -> %.4g", fit_number_name(i), f->priors.value[i],
               f->priors.width[i], f->priors.basis[i], f->value[i]);
        if (f->held[i])
            printf("; runs' χ² rise %.3g: not constrained by the runs, left at its measured "
                   "value\n", f->curvature[i]);
        else if (free_now)
            printf("; runs' χ² rise %.4g: constrained, %+.2f prior widths from the "
                   "measurement\n", f->curvature[i],
                   (f->value[i] - f->priors.value[i]) / f->priors.width[i]);
        else
            printf(" (not fitted: --fit leaves it out)\n");
    }
}

/* The lines to paste under the GPU preset; of a framework fit (F26),
 * under the framework preset. */
static void print_paste_block(const pe_fit *f)
{
    if (f->framework_fit) {
        printf("\n# paste under the framework preset %s (docs/model.md §12, F26); fitted with "
               "every run's GPU numbers as its preset gives them\n", f->framework);
        for (int k = 0; k < f->free; k++)
            printf("    %s: %.4g\n", fit_number_name(f->order[k]), f->value[f->order[k]]);
        for (int i = 0; i < PE_FIT_NUMBERS; i++)
            if (f->held[i])
                printf("    %s: %.4g # not constrained by the runs: the prior's value\n",
                       fit_number_name(i), f->value[i]);
        return;
    }
    printf("\n# paste under the GPU preset (docs/model.md §12, F8-F11, F18); %d of %d numbers "
           "fitted\n", f->free, PE_FIT_MAX_FREE);
    for (int k = 0; k < f->free; k++)
        printf("    %s: %.4g\n", fit_number_name(f->order[k]), f->value[f->order[k]]);
    if (f->gemm_held)
        printf("    gemm_efficiency: %.4g # not fitted: the runs' flops_efficiency, held while "
               "fitting; it turns F7-F11 on\n", f->gemm_held_value);
    for (int i = 0; i < PE_FIT_NUMBERS; i++)
        if (f->held[i])
            printf("    %s: %.4g # not constrained by the runs: the measured value (prior)\n",
                   fit_number_name(i), f->value[i]);
    for (int i = 0; i < PE_FIT_NUMBERS; i++)
        if (f->remove[i])
            printf("# and remove %s from the preset: not fitted, the fit held it neutral\n",
                   fit_number_name(i));
}

/* S6's lines (calibrate/interval.h): the 80% interval from the fit rows'
 * leave-one-out residuals, and the frameworks those runs used, which the
 * framework presets mark `calibrated` (docs/model.md §12). */
static void print_interval_block(const pe_fit *f)
{
    pe_interval_fit iv;
    if (!interval_fit(f, &iv)) {
        printf("# S6: fewer than %d leave-one-out residuals: no interval (the stated default "
               "applies)\n", PE_INTERVAL_MIN_RUNS);
        return;
    }
    printf("# S6 80%% prediction interval from %zu leave-one-out residuals: quantiles "
           "%+.4f, %+.4f of ln(measured/predicted), widened x%.4f (t), floor %.0f%%; runs on:",
           iv.runs, iv.q_lo, iv.q_hi, iv.widen, 100.0 * PE_INTERVAL_FLOOR);
    for (size_t i = 0; i < f->count; i++) {
        bool seen = !f->runs[i].fit;
        for (size_t j = 0; j < i && !seen; j++)
            seen = f->runs[j].fit && strcmp(f->runs[j].framework, f->runs[i].framework) == 0;
        if (!seen)
            printf(" %s", f->runs[i].framework[0] ? f->runs[i].framework : "(no framework)");
    }
    printf("\n    step_time_below: %.4g\n    step_time_above: %.4g\n"
           "    step_time_interval_runs: %zu\n", iv.below, iv.above, iv.runs);
}

/* calibrate RUNS.csv: fit the refined model's numbers of one GPU type to
 * many runs (calibrate/fit.h) and print the fit. */
static int calibrate_runs(const pe_catalog *catalog, const char *path,
                          const pe_command_options *opt)
{
    pe_error err = {0};
    pe_fit f;
    pe_status st =
        fit_runs_file_priors(catalog, path, opt->fit_numbers, opt->priors_path, opt->threads,
                             &f, &err);
    if (st == PE_OK) {
        if (f.counts_tried) {
            printf("leave-one-out mean |error| by the number of numbers fitted:");
            for (int k = 0; k < f.counts_tried; k++)
                printf(" %d: %.2f%%", k + 1, f.loo_by_count[k]);
            printf(" -> %d\n\n", f.free);
        }
        print_fit_table(&f);
        print_priors(&f);
        print_paste_block(&f);
        if (f.framework_fit) /* S6's lines are a GPU preset's */
            printf("# S6: a framework fit prints no interval (the GPU presets' intervals "
                   "stand)\n");
        else
            print_interval_block(&f);
    }
    fit_free(&f);
    if (st != PE_OK)
        opt->on_error(&err);
    return st;
}

int command_calibrate(const pe_catalog *catalog, const pe_file_list *files,
                      const pe_command_options *opt)
{
    pe_error err = {0};
    pe_status st = PE_OK;
    const size_t len = files->count == 1 ? strlen(files->paths[0]) : 0;
    if (len > 4 && strcmp(files->paths[0] + len - 4, ".csv") == 0)
        return calibrate_runs(catalog, files->paths[0], opt); /* many runs, F8–F10 */
    if (files->count != 1)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "calibrate takes exactly one scenario");
    else if (opt->fit_numbers)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0,
                     "--fit applies to a runs file (RUNS.csv); one scenario fits flops_efficiency");
    else if (opt->priors_path)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0,
                     "--priors applies to a runs file (RUNS.csv); one scenario fits "
                     "flops_efficiency");
    else if (!opt->plan)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "calibrate needs --plan NAME|CANONICAL");
    else if (!(opt->measured_step_s > 0) && !(opt->measured_peak_gib > 0))
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0,
                     "calibrate needs --step-time SECONDS and/or --peak-memory GIB");
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    pe_scenario s;
    st = load_scenario(files->paths[0], catalog, &s, &err);
    if (st == PE_OK) {
        pe_plan_space space;
        st = plans_init(&s, &space, &err);
        if (st == PE_OK) {
            pe_plan plan;
            if (plans_find(&space, opt->plan, &plan))
                st = calibrate(&s, &plan, opt, &err);
            else
                st = pe_fail(&err, PE_BAD_INPUT, s.file, 0, 0, "no plan named '%s'", opt->plan);
            plans_free(&space);
        }
        scenario_free(&s);
    }
    if (st != PE_OK)
        opt->on_error(&err);
    return st;
}
