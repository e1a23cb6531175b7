/* run.c — `planeval run`: every plan of each scenario evaluated, ranked and
 * written to DIR/<name>.csv with its summary (commands.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/atomic_file.h"
#include "output/checkpoint.h"
#include "output/digest.h"
#include "cli/commands.h"
#include "output/report.h"
#include "output/report_rows.h"
#include "output/summary.h"
#include "model/evaluate.h"
#include "model/memory.h"
#include "input/load.h"
#include "sweep/plans.h"
#include "sweep/rank.h"
#include "sweep/runner.h"
#include "sweep/targets.h"
#include "cli/run_views.h"
#include "output/html.h"
#include "output/html_facts.h"

static int worst(int a, int b) { return a > b ? a : b; }

static void print_summary(const pe_scenario *s, const pe_run_result *r, size_t pareto,
                          const char *path)
{
    const pe_run_counts *c = &r->counts;
    fprintf(stderr,
            "%s: %llu plans (ok %llu, over_time %llu, over_memory %llu, invalid %llu), "
            "%llu skipped, %.3g s, %.3g plans/s -> %s\n",
            s->name, (unsigned long long)c->evaluated,
            (unsigned long long)c->by_status[PE_STATUS_OK],
            (unsigned long long)c->by_status[PE_STATUS_OVER_TIME],
            (unsigned long long)c->by_status[PE_STATUS_OVER_MEMORY],
            (unsigned long long)c->by_status[PE_STATUS_INVALID],
            (unsigned long long)summary_skipped_total(c), r->wall_s,
            r->wall_s > 0 ? (double)r->evaluated_here / r->wall_s : 0.0, path);
    if (c->by_status[PE_STATUS_INVALID]) {
        fprintf(stderr, "%s: invalid by rule:", s->name);
        for (int v = 0; v < PE_RULE_COUNT; v++)
            if (c->by_rule[v])
                fprintf(stderr, " V%d %llu", v + 1, (unsigned long long)c->by_rule[v]);
        fputc('\n', stderr);
    }
    for (int k = 1; k < PE_SKIP_COUNT; k++)
        if (c->skipped[k])
            fprintf(stderr, "%s: skipped %llu: %s\n", s->name, (unsigned long long)c->skipped[k],
                    plans_skip_name((pe_skip)k));
    const pe_row *best = summary_best_row(r);
    if (best)
        fprintf(stderr, "%s: best: %s (%s)\n", s->name, best->name ? best->name : best->canon,
                pe_plan_status_name(best->result.status));
    else if (r->row_count)
        fprintf(stderr, "%s: no valid plan: every plan breaks a rule (invalid by rule above)\n",
                s->name);
    fprintf(stderr, "%s: %zu Pareto-optimal plans (memory against %s)%s\n", s->name, pareto,
            s->rank_by == PE_RANK_MEMORY ? "step time" : pe_rank_by_name(s->rank_by),
            r->row_count < r->counts.evaluated ? " among the rows kept" : "");
    /* the framework, what it stands for and the overlap in force: the same
     * plan's step moves with them (the report's facts say the same) */
    pe_html_fact facts[PE_HTML_FACTS_MAX];
    const size_t nf = html_scenario_facts(s, facts, PE_HTML_FACTS_MAX);
    for (size_t i = 0; i < nf; i++)
        if (!strcmp(facts[i].key, "framework") || !strcmp(facts[i].key, "framework_flags") ||
            !strcmp(facts[i].key, "overlap"))
            fprintf(stderr, "%s: %s: %s\n", s->name, facts[i].key, facts[i].value);
    if (s->refinements_unused)
        fprintf(stderr, "%s: note: the textbook model (the scenario names no refinement); its "
                        "presets carry fitted and measured numbers that `fidelity: refined` "
                        "uses to predict real runs (docs/model.md §12)\n",
                s->name);
}

/* T1: the answer to targets: on stdout, one line a script reads, a line a
 * type of sweep.cluster (docs/sweeps.md "Targets"). */
static void print_targets(const pe_plan_space *space, const pe_run_result *rr,
                          const pe_target_answer *answers)
{
    const pe_scenario *s = space->scenario;
    const uint64_t types = space->slots[PE_AXIS_CLUSTER] ? space->slots[PE_AXIS_CLUSTER] : 1;
    for (uint64_t k = 0; k < types; k++) {
        char on[PE_NAME_MAX + 8] = "", cost[64] = "";
        if (types > 1)
            snprintf(on, sizeof on, " on %s", s->sweep.clusters[k].preset);
        const pe_row *best = answers[k].best;
        if (!best) {
            printf("%s: targets not met%s: %s\n", s->name, on, answers[k].unmet);
            continue;
        }
        const pe_result *r = &best->result;
        const int64_t G = types > 1 ? s->sweep.clusters[k].gpus_per_node : s->cluster.gpus_per_node;
        if (r->has_cost)
            snprintf(cost, sizeof cost, ", cost %.6g", r->cost);
        printf("%s: targets met%s: smallest cluster %lld nodes (%lld GPUs); best plan on it: %s "
               "(rank %zu): %.6g days, %.6g GPU-hours%s%s\n",
               s->name, on, (long long)(r->gpus / G), (long long)r->gpus,
               best->name ? best->name : best->canon, (size_t)(best - rr->rows) + 1,
               r->train_days, r->gpu_hours, cost,
               rr->row_count < rr->counts.evaluated ? " (among the rows kept)" : "");
    }
}

/* T1 for each type (targets.h); *answers malloc'd, NULL without targets. */
static pe_status judge_targets(const pe_plan_space *space, const pe_run_result *rr,
                               pe_target_answer **answers, pe_error *err)
{
    *answers = NULL;
    if (!space->scenario->targets.present)
        return PE_OK;
    const uint64_t types = space->slots[PE_AXIS_CLUSTER] ? space->slots[PE_AXIS_CLUSTER] : 1;
    *answers = calloc(types, sizeof **answers);
    if (!*answers)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    return targets_answer(space, rr->rows, rr->row_count, *answers, err);
}

/* The files of one run (or one shard of it): DIR/<name>[.shard-I-of-N]
 * .csv, .summary.csv and .checkpoint. */
typedef struct {
    char report[PE_PATH_MAX + 32], summary[PE_PATH_MAX + 32], checkpoint[PE_PATH_MAX + 32];
    char page[PE_PATH_MAX + 32]; /* --html */
} run_paths;

/* The plan indices to evaluate (all, or the shard's) and the file names. */
static void run_range(const pe_scenario *s, const pe_command_options *opt,
                      const pe_plan_space *space, pe_run_options *ro, run_paths *paths)
{
    char base[PE_PATH_MAX];
    if (opt->shard_count) {
        runner_shard_range(plans_total(space), opt->shard_index, opt->shard_count, &ro->first,
                           &ro->last);
        snprintf(base, sizeof base, "%s/%s.shard-%llu-of-%llu", opt->output_dir, s->name,
                 (unsigned long long)opt->shard_index, (unsigned long long)opt->shard_count);
    } else {
        ro->last = plans_total(space);
        snprintf(base, sizeof base, "%s/%s", opt->output_dir, s->name);
    }
    snprintf(paths->report, sizeof paths->report, "%s.csv", base);
    snprintf(paths->summary, sizeof paths->summary, "%s.summary.csv", base);
    snprintf(paths->checkpoint, sizeof paths->checkpoint, "%s.checkpoint", base);
    snprintf(paths->page, sizeof paths->page, "%s.html", base);
}

/* --resume: continue from the checkpoint at ckpt_path when there is one
 * and it belongs to this scenario text and these options (*resumed). */
static pe_status resume_from(const pe_scenario *s, const pe_command_options *opt,
                             const pe_plan_space *space, const char *ckpt_path,
                             pe_checkpoint *ckpt, pe_run_options *ro, bool *resumed,
                             pe_error *err)
{
    if (access(ckpt_path, F_OK) != 0) {
        if (!opt->quiet)
            fprintf(stderr, "%s: no checkpoint at %s: starting from the beginning\n", s->name,
                    ckpt_path);
        return PE_OK;
    }
    pe_checkpoint old;
    pe_status st = checkpoint_read(ckpt_path, &old, err);
    if (st == PE_OK && (old.fingerprint != ckpt->fingerprint || old.first != ro->first ||
                        old.last != ro->last || old.top_k != opt->top_k)) {
        st = pe_fail(err, PE_BAD_INPUT, ckpt_path, 0, 0,
                     "this checkpoint belongs to another scenario text or other options "
                     "(--top, --shard, --status); rerun those, or remove it to start over");
        checkpoint_free(&old);
    } else if (st == PE_OK) {
        st = checkpoint_check_plans(ckpt_path, &old, space, opt->status_mask, err);
        if (st != PE_OK)
            checkpoint_free(&old);
    }
    if (st != PE_OK)
        return st;
    ckpt->rows = old.rows; /* kept until the run is done */
    ckpt->row_count = old.row_count;
    ckpt->counts = old.counts;
    ro->resume_next = old.next;
    ro->resume_counts = &ckpt->counts;
    ro->resume_rows = ckpt->rows;
    ro->resume_row_count = ckpt->row_count;
    ro->resume_path = ckpt_path;
    *resumed = true;
    if (!opt->quiet)
        fprintf(stderr, "%s: resuming at plan index %llu of [%llu, %llu)\n", s->name,
                (unsigned long long)old.next, (unsigned long long)ro->first,
                (unsigned long long)ro->last);
    return PE_OK;
}

/* A full report keeps a row per plan in memory until it is ranked: say so,
 * with what that may take, before a sweep big enough for that to matter.
 * The rows kept are the plans of the range, not its combinations (skipped
 * ones keep nothing), counted only when the combinations alone could be
 * that many; --status drops rows by a status known only once evaluated,
 * so then the figure is a bound. */
static void note_full_report_memory(const pe_scenario *s, const pe_command_options *opt,
                                    const pe_plan_space *space, const pe_run_options *ro)
{
    uint64_t combinations = ro->last - ro->first;
    if (opt->top_k || opt->quiet || combinations <= BIG_SWEEP_COMBINATIONS)
        return;
    uint64_t plans = runner_count_plans(space, ro->first, ro->last);
    if (plans <= BIG_SWEEP_COMBINATIONS)
        return;
    fprintf(stderr,
            "%s: note: %llu plans (of %llu combinations) and no --top: every plan's row%s is "
            "kept in memory to rank the full report, about %.0f bytes a row (measured), so up "
            "to %.3g GiB; --top K keeps only K\n",
            s->name, (unsigned long long)plans, (unsigned long long)combinations,
            opt->status_mask ? " of the statuses asked for (--status)" : "",
            FULL_REPORT_BYTES_PER_ROW, (double)plans * FULL_REPORT_BYTES_PER_ROW / PE_GIB);
}

/* A signal stopped the sweep, or the ranking or writing after it: the
 * checkpoint to resume from (with --top, the indices of the rows kept so
 * far); PE_INTERRUPTED once written. */
static pe_status write_checkpoint(const pe_scenario *s, const pe_command_options *opt,
                                  uint32_t fingerprint, const pe_run_result *rr,
                                  const char *ckpt_path, pe_error *err)
{
    pe_status st = PE_OK;
    pe_checkpoint out = {.fingerprint = fingerprint, .first = rr->first, .last = rr->last,
                         .next = rr->next, .top_k = opt->top_k, .counts = rr->counts};
    uint64_t *rows = NULL;
    if (opt->top_k && rr->row_count) {
        rows = malloc(rr->row_count * sizeof *rows);
        if (!rows)
            st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
        for (size_t i = 0; rows && i < rr->row_count; i++)
            rows[i] = rr->rows[i].index;
        out.rows = rows;
        out.row_count = rows ? rr->row_count : 0;
    }
    if (!opt->top_k) /* a full report re-evaluates the done prefix on resume */
        out.counts = rr->counts;
    if (st == PE_OK)
        st = checkpoint_write(ckpt_path, &out, err);
    free(rows);
    if (st != PE_OK)
        return st;
    if (rr->next == rr->last)
        fprintf(stderr, "%s: interrupted after the sweep, before the report was written; "
                        "checkpoint %s (continue with --resume)\n", s->name, ckpt_path);
    else
        fprintf(stderr, "%s: interrupted after %llu of %llu plan indices; checkpoint %s "
                        "(continue with --resume)\n",
                s->name, (unsigned long long)(rr->next - rr->first),
                (unsigned long long)(rr->last - rr->first), ckpt_path);
    return PE_INTERRUPTED;
}

/* The report and its summary, both written in full before either is
 * renamed into place. PE_INTERRUPTED (nothing left behind) on a signal. */
static pe_status write_report_and_summary(const pe_scenario *s, const pe_command_options *opt,
                                          const pe_plan_space *space, const pe_eval_ctx *ctx,
                                          const pe_run_result *rr, const pe_run_result *shown,
                                          size_t pareto, const pe_target_answer *answers,
                                          const run_paths *paths, pe_error *err)
{
    pe_summary_facts facts = {.scenario = s, .run = rr, .index_total = plans_total(space),
                              .shard_index = opt->shard_index, .shard_count = opt->shard_count,
                              .top_k = opt->top_k, .rows_written = shown->row_count,
                              .pareto_optimal = pareto, .threads = opt->threads,
                              .targets = answers,
                              .target_types = space->slots[PE_AXIS_CLUSTER]
                                                  ? space->slots[PE_AXIS_CLUSTER] : 1};
    pe_report *report = NULL, *summary = NULL;
    pe_status st = digest_file_crc32(s->file, &facts.scenario_crc, err);
    if (st == PE_OK)
        st = report_open(paths->report, &report, err);
    if (st == PE_OK)
        st = report_write_ranked_rows_digits(report, space, ctx, shown, opt->threads, opt->digits,
                                             opt->stop, err);
    if (st == PE_OK) {
        facts.report_crc = report_crc32(report);
        st = summary_open(paths->summary, &facts, &summary, err);
    }
    if (st != PE_OK) {
        report_abort(report);
        return st;
    }
    return report_commit_pair(report, summary, err);
}

/* The sweep is done: the ranked report (only the Pareto-optimal rows with
 * --pareto; --digits), the HTML page (--html), the summary, the spent
 * checkpoint removed, the summary on stderr. The summary carries the
 * targets' answer (answers, NULL without). */
static pe_status write_results(const pe_scenario *s, const pe_command_options *opt,
                               const pe_plan_space *space, const pe_eval_ctx *ctx,
                               const pe_run_result *rr, const pe_target_answer *answers,
                               const run_paths *paths, bool resumed, pe_error *err)
{
    pe_run_result shown;
    size_t pareto = 0;
    pe_status st = run_pareto_view(s, rr, opt->pareto, &shown, &pareto, err);
    if (st == PE_OK && opt->html) {
        char note[256];
        run_view_note(opt, rr, note, sizeof note);
        st = run_write_html(paths->page, s, rr, &shown, pareto, note, err);
    }
    if (st == PE_OK)
        st = write_report_and_summary(s, opt, space, ctx, rr, &shown, pareto, answers, paths,
                                      err);
    if (st == PE_OK && (resumed || access(paths->checkpoint, F_OK) == 0))
        remove(paths->checkpoint); /* done: the checkpoint is spent */
    if (st == PE_OK && !opt->quiet)
        print_summary(s, rr, pareto, paths->report);
    run_view_free(rr, &shown);
    return st;
}

/* Evaluate, rank and write one loaded scenario (or one shard of it);
 * on a signal, write a checkpoint instead of the report. */
static pe_status run_one(const pe_scenario *s, const pe_command_options *opt, pe_error *err)
{
    pe_plan_space space;
    pe_status st = plans_init(s, &space, err);
    if (st != PE_OK)
        return st;
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    /* a terminal redraws the progress; a log (a batch job's) gets a plain
     * line every --progress seconds */
    const bool terminal = isatty(STDERR_FILENO), shown = !opt->quiet && opt->progress_s != 0;
    pe_run_options ro = {.threads = opt->threads,
                         .top_k = opt->top_k,
                         .status_mask = opt->status_mask,
                         .stop = opt->stop,
                         .progress = shown && terminal,
                         .progress_every_s = !shown || terminal ? 0
                                             : opt->progress_s < 0 ? RUN_PROGRESS_DEFAULT_S
                                                                   : opt->progress_s,
                         .progress_label = s->name};
    run_paths paths;
    run_range(s, opt, &space, &ro, &paths);
    pe_checkpoint ckpt = {0};
    st = checkpoint_fingerprint(s->file, opt->top_k, ro.first, ro.last, &ckpt.fingerprint, err);
    ckpt.fingerprint ^= opt->status_mask * 0x9e3779b97f4a7c15ull; /* --status: other rows kept */
    bool resumed = false;
    if (st == PE_OK && opt->resume)
        st = resume_from(s, opt, &space, paths.checkpoint, &ckpt, &ro, &resumed, err);
    if (st == PE_OK)
        note_full_report_memory(s, opt, &space, &ro);
    pe_run_result rr = {0};
    if (st == PE_OK)
        st = runner_run(&space, &ctx, &ro, &rr, err);
    pe_target_answer *answers = NULL; /* T1; a shard sees only some designs: not judged there */
    if (st == PE_OK && !rr.interrupted && !opt->shard_count)
        st = judge_targets(&space, &rr, &answers, err);
    if (st == PE_OK && !rr.interrupted)
        st = write_results(s, opt, &space, &ctx, &rr, answers, &paths, resumed, err);
    if (st == PE_OK && !rr.interrupted && answers && !opt->quiet)
        print_targets(&space, &rr, answers);
    free(answers);
    if ((st == PE_OK && rr.interrupted) || st == PE_INTERRUPTED)
        st = write_checkpoint(s, opt, ckpt.fingerprint, &rr, paths.checkpoint, err);
    runner_free(&rr);
    checkpoint_free(&ckpt);
    plans_free(&space);
    return st;
}

int command_run(const pe_catalog *catalog, const pe_file_list *files,
                const pe_command_options *opt)
{
    int status = PE_OK;
    char (*names)[PE_NAME_MAX] = calloc(files->count ? files->count : 1, sizeof *names);
    if (!names)
        return PE_INTERNAL;
    size_t name_count = 0;
    atomic_file_clean_stale(opt->output_dir); /* left by a killed run */
    for (size_t i = 0; i < files->count; i++) {
        pe_scenario s;
        pe_error err = {0};
        pe_status st = load_scenario(files->paths[i], catalog, &s, &err);
        if (st == PE_OK) {
            /* docs/scenarios.md: two scenarios with one name in a run is an error
             * for the second (they would write the same report). */
            for (size_t j = 0; j < name_count && st == PE_OK; j++)
                if (strcmp(names[j], s.name) == 0)
                    st = pe_fail(&err, PE_BAD_INPUT, files->paths[i], 0, 0,
                                 "scenario name '%s' is already used by another file of this "
                                 "run (reports would overwrite each other)",
                                 s.name);
            if (st == PE_OK) {
                snprintf(names[name_count++], PE_NAME_MAX, "%s", s.name);
                st = run_one(&s, opt, &err);
            }
            scenario_free(&s);
        }
        if (st == PE_INTERRUPTED) { /* the remaining files are not started */
            status = PE_INTERRUPTED;
            break;
        }
        if (st != PE_OK) {
            opt->on_error(&err);
            status = worst(status, st);
        }
    }
    free(names);
    return status;
}
