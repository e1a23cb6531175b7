/* report_read.h — a report's columns, one place: the figure a column shows
 * of an evaluated plan (what the writer formats and the grader expects),
 * and a report of this version read back (csvread.h) with its cells read
 * strictly, as the writer writes them (merge joins shards from them). */
#ifndef PLANEVAL_REPORT_READ_H
#define PLANEVAL_REPORT_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/columns.h"
#include "core/error.h"
#include "core/scenario.h"
#include "model/evaluate.h"
#include "output/csvread.h"

/* The figure of column col of plan p with result r (whole-number columns
 * as doubles); false for text and boolean columns, rank, and a figure that
 * does not apply (an invalid plan's, train_days without training.tokens). */
bool report_column_value(const pe_result *r, const pe_plan *p, pe_column col, double *out);

/* The report at path: a header of this version's columns (core/columns.h)
 * and COL_COUNT cells in every row; else a bad-input error at the cell, and
 * nothing kept in t (no csv_table_free owed). */
pe_status report_read(const char *path, pe_csv_table *t, pe_error *err);

/* A status cell's pe_plan_status, or -1. */
int report_cell_status(const char *cell);
/* A whole cell as a number, as the writer writes one: a finite decimal
 * ([-]digits[.digits][e[+-]digits]), no spaces, nothing after it ("=1+1",
 * "inf", "nan", "0x10" and "1e999" are not numbers). An empty cell is 0
 * when allowed. */
bool report_cell_number(const char *cell, bool may_be_empty, double *out);
/* A whole cell as a whole number (digits only). */
bool report_cell_uint(const char *cell, uint64_t *out);
/* The plan's columns of a row's cells into p: NULL, or why not and at
 * which column (*col). */
const char *report_cell_plan(const char *const *cells, pe_plan *p, int *col);

/* A cell quoted for a message: control characters escaped, long text cut. */
const char *report_quote_cell(const char *cell, char buf[96]);

#endif
