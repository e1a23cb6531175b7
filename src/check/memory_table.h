/* memory_table.h — check --table's memory table (docs/validation.md): the
 * assertions on memory, per source and group, beside the step-time table.
 * A memory assertion is a numeric one on a column whose name starts with
 * `mem_`, or an outcome: a `status` assertion that expects over_memory (a
 * run published as out of memory), or any `status` assertion of a file
 * whose `# metric: outcome` line says the source gives only whether the
 * run fit. Per source and group: how many numeric memory assertions, their
 * mean and max |error| %, and how many outcomes the model gets right (the
 * plan is over_memory exactly when the run was published as OOM). */
#ifndef PLANEVAL_MEMORY_TABLE_H
#define PLANEVAL_MEMORY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/scenario.h"

/* What a scenario file's comment lines say of it. */
typedef struct {
    char source[PE_NAME_MAX]; /* "# source: NAME", else the scenario name before its first '-' */
    char group[16];           /* "# group: fit|predict", else "" */
    bool outcome_metric;      /* "# metric: outcome" */
} pe_memory_file;

typedef struct {
    char source[PE_NAME_MAX];
    char group[16];
    bool outcome;    /* an outcome row (status), else a numeric one */
    bool has_error;  /* numeric: a predicted number and a non-zero published one */
    double error_pct;
    bool right;      /* outcome: the model's fits / OOM agrees with the published one */
    bool peak_like;    /* numeric, on mem_peak_gib, mem_reserved_gib or mem_total_gib */
    bool has_interval; /* M23: peak_like, and its plan carried the memory interval */
    bool inside;       /* the published value within the interval's ratios of the cell */
} pe_memory_row;

/* M23's interval of the plan an assertion is on, as the ratios lo/peak and
 * hi/peak of its mem_peak_lo_gib and mem_peak_hi_gib cells (has: both
 * cells were numbers and the peak above 0). */
typedef struct {
    bool has;
    double ratio_lo, ratio_hi;
} pe_memory_interval;

typedef struct {
    pe_memory_row *rows;
    size_t count, cap;
} pe_memory_table;

/* Read the comment lines of `path` (scenario `name`) into f. */
void memory_file_read(const char *path, const char *name, pe_memory_file *f);

/* Record one assertion with the report's cell for it ("" when missing), if
 * it is a memory assertion. False when out of memory (the row is lost). */
bool memory_table_add(pe_memory_table *t, const pe_memory_file *f, const pe_expect_check *c,
                      const char *cell, const pe_memory_interval *iv);

/* The table (a blank line, header and one row per source and group, sources
 * in the order first seen, groups fit, predict, none); nothing when no
 * memory assertion was recorded. */
void memory_table_print(const pe_memory_table *t, FILE *out);

/* M23's coverage (a blank line, header and one row per source and group of
 * the peak-like assertions with an interval, then the line "memory
 * intervals (M23, 80%): …"); nothing when no assertion on a peak was
 * recorded. */
void memory_table_print_coverage(const pe_memory_table *t, FILE *out);

void memory_table_free(pe_memory_table *t);

#endif
