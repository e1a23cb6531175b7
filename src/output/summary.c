/* summary.c — the summary beside a report (summary.h). */
#include <stdio.h>
#include <string.h>

#include "output/html.h"
#include "output/summary.h"
#include "sweep/plans.h"

bool summary_path_of(const char *report, char *buf, size_t size)
{
    const size_t n = strlen(report);
    if (n < 4 || strcmp(report + n - 4, ".csv") != 0 || n - 4 + sizeof ".summary.csv" > size)
        return false;
    snprintf(buf, size, "%.*s.summary.csv", (int)(n - 4), report);
    return true;
}

uint64_t summary_skipped_total(const pe_run_counts *c)
{
    uint64_t n = 0;
    for (int i = 1; i < PE_SKIP_COUNT; i++)
        n += c->skipped[i];
    return n;
}

const pe_row *summary_best_row(const pe_run_result *r)
{
    if (!r->row_count || r->rows[0].result.status == PE_STATUS_INVALID)
        return NULL;
    return &r->rows[0];
}

/* T1's answer on type k as summary rows "targets: TYPE: WHAT" (the type:
 * its preset, "cluster" without one): met (yes/no); when met the smallest
 * nodes and gpus and its best plan's name, rank, train_days, gpu_hours and
 * cost (empty without a price); when not, why (unmet). */
static pe_status write_target_rows(pe_report *w, const pe_summary_values *v, uint64_t k,
                                   pe_error *err)
{
    const pe_scenario *s = v->target_scenario;
    const pe_cluster *c = v->target_types > 1 ? &s->sweep.clusters[k] : &s->cluster;
    const char *type = c->preset[0] ? c->preset : "cluster";
    const pe_row *best = v->targets[k].best;
    char key[96 + PE_NAME_MAX], value[PE_MSG_MAX + PE_NAME_MAX];
    pe_status st = PE_OK;
#define TARGET_ROW(what, ...)                                         \
    do {                                                              \
        snprintf(key, sizeof key, "targets: %s: %s", type, what);     \
        snprintf(value, sizeof value, __VA_ARGS__);                   \
        const char *cells[] = {key, value};                           \
        if (st == PE_OK)                                              \
            st = report_write_cells(w, cells, 2, err);                \
    } while (0)
    TARGET_ROW("met", "%s", best ? "yes" : "no");
    if (!best) {
        TARGET_ROW("unmet", "%s", v->targets[k].unmet);
        return st;
    }
    const pe_result *r = &best->result;
    TARGET_ROW("smallest_nodes", "%lld", (long long)(r->gpus / c->gpus_per_node));
    TARGET_ROW("smallest_gpus", "%lld", (long long)r->gpus);
    TARGET_ROW("best_plan", "%s", best->name ? best->name : best->canon);
    TARGET_ROW("best_rank", "%zu%s", (size_t)(best - v->ranked_rows) + 1,
               v->among_rows_kept ? " (among the rows kept)" : "");
    TARGET_ROW("train_days", "%.6g", r->train_days);
    TARGET_ROW("gpu_hours", "%.6g", r->gpu_hours);
    if (r->has_cost)
        TARGET_ROW("cost", "%.6g", r->cost);
    else
        TARGET_ROW("cost", "%s", "");
#undef TARGET_ROW
    return st;
}

pe_status summary_open_values(const char *path, const pe_summary_values *v, pe_report **out,
                              pe_error *err)
{
    static const char *const header[] = {"key", "value"};
    pe_report *w = NULL;
    pe_status st = report_open_cells(path, header, 2, &w, err);
    const pe_run_counts *c = v->counts;
    char key[96], value[PE_NAME_MAX + PE_CANON_MAX + sizeof ((pe_html_fact *)0)->value];
#define ROW(k, ...)                                                   \
    do {                                                              \
        snprintf(key, sizeof key, "%s", k);                           \
        snprintf(value, sizeof value, __VA_ARGS__);                   \
        const char *cells[] = {key, value};                           \
        if (st == PE_OK)                                              \
            st = report_write_cells(w, cells, 2, err);                \
    } while (0)
    ROW("scenario", "%s", v->scenario);
    ROW("scenario_crc32", "%08lx", (unsigned long)v->scenario_crc);
    if (v->shard_count)
        ROW("shard", "%llu/%llu", (unsigned long long)v->shard_index,
            (unsigned long long)v->shard_count);
    ROW("index_first", "%llu", (unsigned long long)v->first);
    ROW("index_last", "%llu", (unsigned long long)v->last);
    ROW("index_total", "%llu", (unsigned long long)v->index_total);
    ROW("top_k", "%llu", (unsigned long long)v->top_k);
    ROW("plans_evaluated", "%llu", (unsigned long long)c->evaluated);
    ROW("plans_skipped", "%llu", (unsigned long long)summary_skipped_total(c));
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
    for (int r = 0; r < PE_RULE_COUNT; r++) {
        char name[40];
        snprintf(name, sizeof name, "invalid: V%d", r + 1);
        ROW(name, "%llu", (unsigned long long)c->by_rule[r]);
    }
    ROW("best_plan", "%s", v->best_plan); /* none: both cells empty */
    ROW("best_status", "%s", v->best_status);
    ROW("rows_written", "%zu", v->rows_written);
    /* of the rows kept: all of them without --top */
    ROW("pareto_optimal", "%zu", v->pareto_optimal);
    for (size_t i = 0; i < v->fact_count; i++) { /* for planeval html */
        char name[96];
        snprintf(name, sizeof name, "fact: %.63s", v->facts[i].key);
        ROW(name, "%s", v->facts[i].value);
    }
    ROW("report_crc32", "%08lx", (unsigned long)v->report_crc);
    ROW("threads", "%s", v->threads);
    ROW("wall_s", "%.6g", v->wall_s);
    ROW("plans_per_s", "%.6g", v->plans_per_s);
#undef ROW
    for (uint64_t k = 0; v->targets && k < v->target_types && st == PE_OK; k++)
        st = write_target_rows(w, v, k, err); /* appended: the keys above never move */
    if (st == PE_OK)
        *out = w;
    else
        report_abort(w);
    return st;
}

pe_status summary_open(const char *path, const pe_summary_facts *f, pe_report **out,
                       pe_error *err)
{
    const pe_run_result *r = f->run;
    const pe_row *best = summary_best_row(r);
    pe_html_fact facts[PE_HTML_FACTS_MAX];
    char threads[16];
    snprintf(threads, sizeof threads, "%d", f->threads);
    const pe_summary_values v = {
        .scenario = f->scenario->name, .scenario_crc = f->scenario_crc,
        .report_crc = f->report_crc, .shard_index = f->shard_index,
        .shard_count = f->shard_count, .first = r->first, .last = r->last,
        .index_total = f->index_total, .top_k = f->top_k, .counts = &r->counts,
        .best_plan = best ? (best->name ? best->name : best->canon) : "",
        .best_status = best ? pe_plan_status_name(best->result.status) : "",
        .rows_written = f->rows_written, .pareto_optimal = f->pareto_optimal,
        .facts = facts, .fact_count = html_scenario_facts(f->scenario, facts, PE_HTML_FACTS_MAX),
        .threads = threads, .wall_s = r->wall_s,
        .plans_per_s = r->wall_s > 0 ? (double)r->evaluated_here / r->wall_s : 0.0,
        .targets = f->targets, .target_types = f->target_types, .target_scenario = f->scenario,
        .ranked_rows = r->rows, .among_rows_kept = r->row_count < r->counts.evaluated};
    return summary_open_values(path, &v, out, err);
}
