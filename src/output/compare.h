/* compare.h — `planeval compare`: across reports (one cluster type each,
 * or a design sweep's report split into its designs), the best plan of
 * each and the Pareto front of cost against days and memory headroom; as
 * text and as one self-contained HTML page. */
#ifndef PLANEVAL_COMPARE_H
#define PLANEVAL_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"
#include "core/scenario.h"

typedef struct {
    char report[PE_PATH_MAX];
    char scenario[PE_NAME_MAX];
    char plan[PE_NAME_MAX]; /* the best ok plan (rank 1), "" when none is ok */
    bool has_plan;
    double gpus, step_time_s, headroom_gib;
    double days;        /* effective_train_days, else train_days */
    bool days_effective; /* days are effective_train_days (the report has the column) */
    bool has_cost;
    double cost, gpu_hours;
    bool has_energy;
    double energy_mwh, goodput;
    bool pareto; /* no other row is no worse on price, days and headroom, better on one */
    /* a design sweep's group: the design-axis columns that vary within its
     * report, "cluster=h100-node nodes=16" ("" for a report of one design),
     * and its cluster cell (the series it is drawn in; "" when none) */
    char design[2 * PE_NAME_MAX];
    char cluster[PE_NAME_MAX];
} pe_compare_row;

/* Rows grown by compare_read_groups; free rows when done. */
typedef struct {
    pe_compare_row *rows;
    size_t n, cap;
} pe_compare_rows;

/* Row of report `path`: its rank-1 plan when ok. A file that is not a
 * report (this version's header, every row whole), or a report without
 * train_days (no training.tokens), is a bad-input error naming it. */
pe_status compare_read(const char *path, pe_compare_row *row, pe_error *err);

/* The rows of report `path` appended to out: one when no design-axis
 * column (cluster, nodes, global_batch, seq_len, framework, the link and
 * overlap columns: docs/reports.md) varies among its valid rows — then as
 * compare_read — else one per design (the combination of the varying
 * columns' cells), its best plan the design's first ok row in rank order,
 * the designs sorted by cluster, then gpus. Errors as compare_read's. */
pe_status compare_read_groups(const char *path, pe_compare_rows *out, pe_error *err);

/* Mark the Pareto-optimal rows: price is cost when every row with a plan
 * has one, else gpu_hours (*by_cost says which). */
void compare_pareto(pe_compare_row *rows, size_t n, bool *by_cost);

/* The table as text, one line per report, the front marked. */
void compare_write_text(FILE *out, const pe_compare_row *rows, size_t n, bool by_cost);

/* The page at path (output/atomic_file.h): the table and a scatter of price
 * against days with the front drawn. */
pe_status compare_write_html(const char *path, const pe_compare_row *rows, size_t n,
                             bool by_cost, pe_error *err);

#endif
