/* summary.h — the summary `run` writes beside a report (DIR/NAME.summary.csv
 * beside DIR/NAME.csv): one key,value row per figure of the run — the
 * scenario and its CRC-32, the shard and its plan-index range, the counts
 * by status, rule and skip reason, the best plan, the rows written, the
 * HTML page's facts, the report's CRC-32 and the timing. `merge` proves
 * from it that shard reports tile their scenario exactly once, and writes
 * the merged report's from theirs (summary_open_values); `html` takes its
 * facts and counts. */
#ifndef PLANEVAL_SUMMARY_H
#define PLANEVAL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scenario.h"
#include "output/html.h"
#include "output/report.h"
#include "sweep/runner.h"
#include "sweep/targets.h"

typedef struct {
    const pe_scenario *scenario;
    const pe_run_result *run;          /* the counts, range and timing */
    uint32_t scenario_crc;             /* of the scenario file's bytes */
    uint32_t report_crc;               /* of the report file's bytes */
    uint64_t shard_index, shard_count; /* count 0: not a shard */
    uint64_t index_total;              /* the whole scenario's plan indices */
    uint64_t top_k;                    /* 0: every row */
    size_t rows_written, pareto_optimal;
    int threads;
    /* T1, the answer to targets: per cluster type (target_types entries,
     * run's judge); NULL: no targets, or a shard (not judged there) */
    const pe_target_answer *targets;
    uint64_t target_types;
} pe_summary_facts;

/* Every value a summary states, as text or numbers: what summary_open
 * takes from a run, and what merge derives from its shards' summaries, so
 * that both write the one format. */
typedef struct {
    const char *scenario;              /* its name */
    uint32_t scenario_crc, report_crc;
    uint64_t shard_index, shard_count; /* count 0: not a shard */
    uint64_t first, last, index_total, top_k;
    const pe_run_counts *counts;
    const char *best_plan, *best_status; /* "" when there is no best plan */
    size_t rows_written, pareto_optimal;
    const pe_html_fact *facts;
    size_t fact_count;
    const char *threads; /* as written: "" when not one number */
    double wall_s, plans_per_s;
    /* T1 per cluster type, rows after plans_per_s (docs/reports.md); NULL
     * without (merge's: shards are not judged): of target_scenario's types,
     * the best row's rank its place in ranked_rows */
    const pe_target_answer *targets;
    uint64_t target_types;
    const pe_scenario *target_scenario;
    const pe_row *ranked_rows;
    bool among_rows_kept; /* --top: the rows kept are not every plan */
} pe_summary_values;

/* The summary's path beside a report's (NAME.csv → NAME.summary.csv);
 * false when the report's name does not end in .csv or the path does not
 * fit size bytes. */
bool summary_path_of(const char *report, char *buf, size_t size);

/* Open the summary at path and write every row; left unpublished in *out
 * (report_commit_pair publishes it with its report). */
pe_status summary_open(const char *path, const pe_summary_facts *f, pe_report **out,
                       pe_error *err);

/* The same from the values themselves (merge). */
pe_status summary_open_values(const char *path, const pe_summary_values *v, pe_report **out,
                              pe_error *err);

/* Plans skipped for any reason. */
uint64_t summary_skipped_total(const pe_run_counts *c);

/* Rank 1, or NULL when there is none or it is invalid: invalid plans rank
 * last (docs/model.md §9), so then every plan is invalid and none is "best". */
const pe_row *summary_best_row(const pe_run_result *r);

#endif
