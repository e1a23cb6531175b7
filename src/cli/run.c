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
#include "model/evaluate.h"
#include "model/memory.h"
#include "input/load.h"
#include "sweep/plans.h"
#include "sweep/rank.h"
#include "sweep/runner.h"
#include "cli/run_views.h"
#include "output/html.h"

static int worst(int a, int b) { return a > b ? a : b; }

static uint64_t skipped_total(const pe_run_counts *c)
{
    uint64_t n = 0;
    for (int i = 1; i < PE_SKIP_COUNT; i++)
        n += c->skipped[i];
    return n;
}

/* Rank 1, or NULL when there is none or it is invalid: invalid plans rank
 * last (docs/model.md §9), so then every plan is invalid and none is "best". */
static const pe_row *best_row(const pe_run_result *r)
{
    if (!r->row_count || r->rows[0].result.status == PE_STATUS_INVALID)
        return NULL;
    return &r->rows[0];
}

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
            (unsigned long long)skipped_total(c), r->wall_s,
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
    const pe_row *best = best_row(r);
    if (best)
        fprintf(stderr, "%s: best: %s (%s)\n", s->name, best->name ? best->name : best->canon,
                pe_plan_status_name(best->result.status));
    else if (r->row_count)
        fprintf(stderr, "%s: no valid plan: every plan breaks a rule (invalid by rule above)\n",
                s->name);
    fprintf(stderr, "%s: %zu Pareto-optimal plans (memory against %s)%s\n", s->name, pareto,
            s->rank_by == PE_RANK_MEMORY ? "step time" : pe_rank_by_name(s->rank_by),
            r->row_count < r->counts.evaluated ? " among the rows kept" : "");
    if (s->refinements_unused)
        fprintf(stderr, "%s: note: the textbook model (the scenario names no refinement); its "
                        "presets carry fitted and measured numbers that `fidelity: refined` "
                        "uses to predict real runs (docs/model.md §12)\n",
                s->name);
}

/* What the summary records besides the counts: enough for `merge` to
 * prove that shard reports tile their scenario exactly once. */
typedef struct {
    uint64_t index_total;  /* the whole scenario's plan indices */
    uint32_t scenario_crc; /* of the scenario file's bytes */
    uint32_t report_crc;   /* of the report file's bytes */
} summary_ids;

/* The summary beside the report: one `key,value` row per figure. Left
 * unpublished in *out (report_commit_pair). */
static pe_status write_summary(const char *path, const pe_scenario *s, const pe_run_result *r,
                               size_t written, size_t pareto, const pe_command_options *opt,
                               const summary_ids *ids, pe_report **out, pe_error *err)
{
    static const char *const header[] = {"key", "value"};
    pe_report *w = NULL;
    pe_status st = report_open_cells(path, header, 2, &w, err);
    const pe_run_counts *c = &r->counts;
    char key[96], value[PE_NAME_MAX + PE_CANON_MAX];
#define ROW(k, ...)                                                   \
    do {                                                              \
        snprintf(key, sizeof key, "%s", k);                           \
        snprintf(value, sizeof value, __VA_ARGS__);                   \
        const char *cells[] = {key, value};                           \
        if (st == PE_OK)                                              \
            st = report_write_cells(w, cells, 2, err);                \
    } while (0)
    ROW("scenario", "%s", s->name);
    ROW("scenario_crc32", "%08lx", (unsigned long)ids->scenario_crc);
    if (opt->shard_count)
        ROW("shard", "%llu/%llu", (unsigned long long)opt->shard_index,
            (unsigned long long)opt->shard_count);
    ROW("index_first", "%llu", (unsigned long long)r->first);
    ROW("index_last", "%llu", (unsigned long long)r->last);
    ROW("index_total", "%llu", (unsigned long long)ids->index_total);
    ROW("top_k", "%llu", (unsigned long long)opt->top_k);
    ROW("plans_evaluated", "%llu", (unsigned long long)c->evaluated);
    ROW("plans_skipped", "%llu", (unsigned long long)skipped_total(c));
    for (int k = 1; k < PE_SKIP_COUNT; k++) {
        char name[80];
        snprintf(name, sizeof name, "skipped: %s", plans_skip_name((pe_skip)k));
        ROW(name, "%llu", (unsigned long long)c->skipped[k]);
    }
    for (int k = 0; k < 4; k++) {
        char name[40];
        snprintf(name, sizeof name, "status: %s", pe_plan_status_name((pe_plan_status)k));
        ROW(name, "%llu", (unsigned long long)c->by_status[k]);
    }
    for (int v = 0; v < PE_RULE_COUNT; v++) {
        char name[40];
        snprintf(name, sizeof name, "invalid: V%d", v + 1);
        ROW(name, "%llu", (unsigned long long)c->by_rule[v]);
    }
    const pe_row *best = best_row(r); /* none: both cells empty */
    ROW("best_plan", "%s", best ? (best->name ? best->name : best->canon) : "");
    ROW("best_status", "%s", best ? pe_plan_status_name(best->result.status) : "");
    ROW("rows_written", "%zu", written);
    ROW("pareto_optimal", "%zu", pareto); /* of the rows kept: all of them without --top */
    pe_html_fact facts[PE_HTML_FACTS_MAX]; /* for planeval html */
    size_t nf = html_scenario_facts(s, facts, PE_HTML_FACTS_MAX);
    for (size_t i = 0; i < nf; i++) {
        char name[96];
        snprintf(name, sizeof name, "fact: %.63s", facts[i].key);
        ROW(name, "%s", facts[i].value);
    }
    ROW("report_crc32", "%08lx", (unsigned long)ids->report_crc);
    ROW("threads", "%d", opt->threads);
    ROW("wall_s", "%.6g", r->wall_s);
    ROW("plans_per_s", "%.6g", r->wall_s > 0 ? (double)r->evaluated_here / r->wall_s : 0.0);
#undef ROW
    if (st == PE_OK)
        *out = w;
    else
        report_abort(w);
    return st;
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
                             const char *ckpt_path, pe_checkpoint *ckpt, pe_run_options *ro,
                             bool *resumed, pe_error *err)
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
    *resumed = true;
    if (!opt->quiet)
        fprintf(stderr, "%s: resuming at plan index %llu of [%llu, %llu)\n", s->name,
                (unsigned long long)old.next, (unsigned long long)ro->first,
                (unsigned long long)ro->last);
    return PE_OK;
}

/* A full report keeps a row per plan in memory until it is ranked: say so,
 * with what that may take, before a sweep big enough for that to matter. */
static void note_full_report_memory(const pe_scenario *s, const pe_command_options *opt,
                                    const pe_run_options *ro)
{
    uint64_t combinations = ro->last - ro->first;
    if (opt->top_k || opt->quiet || combinations <= BIG_SWEEP_COMBINATIONS)
        return;
    fprintf(stderr,
            "%s: note: %llu combinations and no --top: every plan's row is kept in memory to "
            "rank the full report, about %.0f bytes a row (measured), so up to %.3g GiB; "
            "--top K keeps only K\n",
            s->name, (unsigned long long)combinations, FULL_REPORT_BYTES_PER_ROW,
            (double)combinations * FULL_REPORT_BYTES_PER_ROW / PE_GIB);
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
                                          size_t pareto, const run_paths *paths, pe_error *err)
{
    summary_ids ids = {.index_total = plans_total(space)};
    pe_report *report = NULL, *summary = NULL;
    pe_status st = digest_file_crc32(s->file, &ids.scenario_crc, err);
    if (st == PE_OK)
        st = report_open(paths->report, &report, err);
    if (st == PE_OK)
        st = report_write_ranked_rows_digits(report, space, ctx, shown, opt->threads, opt->digits,
                                             opt->stop, err);
    if (st == PE_OK) {
        ids.report_crc = report_crc32(report);
        st = write_summary(paths->summary, s, rr, shown->row_count, pareto, opt, &ids, &summary,
                           err);
    }
    if (st != PE_OK) {
        report_abort(report);
        return st;
    }
    return report_commit_pair(report, summary, err);
}

/* The sweep is done: the ranked report (only the Pareto-optimal rows with
 * --pareto; --digits), the HTML page (--html), the summary, the spent
 * checkpoint removed, the summary on stderr. */
static pe_status write_results(const pe_scenario *s, const pe_command_options *opt,
                               const pe_plan_space *space, const pe_eval_ctx *ctx,
                               const pe_run_result *rr, const run_paths *paths, bool resumed,
                               pe_error *err)
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
        st = write_report_and_summary(s, opt, space, ctx, rr, &shown, pareto, paths, err);
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
    pe_run_options ro = {.threads = opt->threads,
                         .top_k = opt->top_k,
                         .status_mask = opt->status_mask,
                         .stop = opt->stop,
                         .progress = !opt->quiet && isatty(STDERR_FILENO)};
    run_paths paths;
    run_range(s, opt, &space, &ro, &paths);
    pe_checkpoint ckpt = {0};
    st = checkpoint_fingerprint(s->file, opt->top_k, ro.first, ro.last, &ckpt.fingerprint, err);
    ckpt.fingerprint ^= opt->status_mask * 0x9e3779b97f4a7c15ull; /* --status: other rows kept */
    bool resumed = false;
    if (st == PE_OK && opt->resume)
        st = resume_from(s, opt, paths.checkpoint, &ckpt, &ro, &resumed, err);
    if (st == PE_OK)
        note_full_report_memory(s, opt, &ro);
    pe_run_result rr = {0};
    if (st == PE_OK)
        st = runner_run(&space, &ctx, &ro, &rr, err);
    if (st == PE_OK && !rr.interrupted)
        st = write_results(s, opt, &space, &ctx, &rr, &paths, resumed, err);
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
