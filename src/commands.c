/* commands.c — run and validate over a list of scenario files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "evaluate.h"
#include "explain.h"
#include "load.h"
#include "plans.h"
#include "rank.h"
#include "runner.h"

pe_status file_list_add(pe_file_list *l, const char *path, const char *name)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p)
            return PE_INTERNAL;
        l->paths = p;
        l->cap = cap;
    }
    size_t n = strlen(path) + (name ? strlen(name) + 2 : 1);
    char *s = malloc(n);
    if (!s)
        return PE_INTERNAL;
    if (name)
        snprintf(s, n, "%s/%s", path, name);
    else
        snprintf(s, n, "%s", path);
    l->paths[l->count++] = s;
    return PE_OK;
}

void file_list_free(pe_file_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

static int worst(int a, int b) { return a > b ? a : b; }

int command_validate(const pe_catalog *catalog, const pe_file_list *files,
                     const pe_command_options *opt)
{
    int status = PE_OK;
    for (size_t i = 0; i < files->count; i++) {
        pe_scenario s;
        pe_error err = {0};
        pe_status st = load_scenario(files->paths[i], catalog, &s, &err);
        if (st != PE_OK) {
            opt->on_error(&err);
            status = worst(status, st);
            continue;
        }
        if (!opt->quiet)
            fprintf(stderr, "%s: ok (%s: %zu explicit plans%s)\n", files->paths[i], s.name,
                    s.plan_count, s.sweep.present ? " and a sweep" : "");
        scenario_free(&s);
    }
    return status;
}

static void print_summary(const pe_scenario *s, const pe_run_result *r, const char *path)
{
    uint64_t skipped = 0;
    for (int i = 1; i < PE_SKIP_COUNT; i++)
        skipped += r->skipped[i];
    fprintf(stderr,
            "%s: %llu plans (ok %llu, over_time %llu, over_memory %llu, invalid %llu), "
            "%llu skipped, %.3g s -> %s\n",
            s->name, (unsigned long long)r->evaluated,
            (unsigned long long)r->by_status[PE_STATUS_OK],
            (unsigned long long)r->by_status[PE_STATUS_OVER_TIME],
            (unsigned long long)r->by_status[PE_STATUS_OVER_MEMORY],
            (unsigned long long)r->by_status[PE_STATUS_INVALID], (unsigned long long)skipped,
            r->wall_s, path);
    if (r->row_count) {
        const pe_row *best = &r->rows[0];
        fprintf(stderr, "%s: best: %s (%s)\n", s->name, best->name ? best->name : best->canon,
                pe_plan_status_name(best->result.status));
    }
}

/* Evaluate, rank and write one loaded scenario. */
static pe_status run_one(const pe_scenario *s, const pe_command_options *opt, pe_error *err)
{
    pe_plan_space space;
    pe_status st = plans_init(s, &space, err);
    if (st != PE_OK)
        return st;
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    pe_run_options ro = {.threads = opt->threads, .top_k = opt->top_k};
    pe_run_result rr;
    st = runner_run(&space, &ctx, &ro, &rr, err);
    if (st == PE_OK) {
        char path[PE_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.csv", opt->output_dir, s->name);
        st = runner_write_report(path, &space, &ctx, &rr, err);
        if (st == PE_OK && !opt->quiet)
            print_summary(s, &rr, path);
        runner_free(&rr);
    }
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
    for (size_t i = 0; i < files->count; i++) {
        pe_scenario s;
        pe_error err = {0};
        pe_status st = load_scenario(files->paths[i], catalog, &s, &err);
        if (st == PE_OK) {
            /* interface.md: two scenarios with one name in a run is an error
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
        if (st != PE_OK) {
            opt->on_error(&err);
            status = worst(status, st);
        }
    }
    free(names);
    return status;
}

int command_explain(const pe_catalog *catalog, const pe_file_list *files,
                    const pe_command_options *opt)
{
    pe_error err = {0};
    pe_status st = PE_OK;
    if (files->count != 1)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "explain takes exactly one scenario");
    else if (!opt->plan)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "explain needs --plan NAME|CANONICAL");
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    pe_scenario s;
    st = load_scenario(files->paths[0], catalog, &s, &err);
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    pe_plan_space space;
    st = plans_init(&s, &space, &err);
    if (st == PE_OK) {
        pe_plan plan;
        if (plans_find(&space, opt->plan, &plan)) {
            pe_eval_ctx ctx;
            evaluate_prepare(&s, &ctx);
            explain_plan(stdout, &ctx, &plan, EXPLAIN_ALL);
        } else {
            st = pe_fail(&err, PE_BAD_INPUT, s.file, 0, 0,
                         "no plan named '%s' (a plan name, or a canonical text such as "
                         "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0)",
                         opt->plan);
        }
        plans_free(&space);
    }
    if (st != PE_OK)
        opt->on_error(&err);
    scenario_free(&s);
    return st;
}
