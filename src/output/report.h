/* report.h — the report CSV (docs/scenarios.md "The report"), written with
 * libcsv. A report is an atomic file (atomic_file.h): written to a
 * temporary file beside its destination and renamed into place on commit,
 * so a reader never sees half a report and a failed run leaves none behind. */
#ifndef PLANEVAL_REPORT_H
#define PLANEVAL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/columns.h"
#include "core/error.h"
#include "model/evaluate.h"
#include "sweep/rank.h"

typedef struct pe_report pe_report;

#define PE_REPORT_LINE_MAX 16384 /* bytes of one report row, at most */

/* A text buffer rows are formatted into (by any thread). */
typedef struct {
    char *buf;
    size_t cap, len;
    bool overflow; /* set when a row did not fit: nothing valid past len */
    int digits;    /* > 0: numbers to this many significant digits (--digits); 0: exact */
    bool nonfinite;        /* set when a figure of the row was inf or NaN */
    int nonfinite_column;  /* the first such column */
} pe_line;

/* Append one report row (with its newline) to line; false if it did not fit.
 * A figure that is not finite is written as it is but marks the line
 * (nonfinite): the writer then refuses the row, as no report shows inf or
 * NaN. */
bool report_format_row(const pe_eval_ctx *ctx, const char *scenario, long long rank,
                       const pe_plan *p, const pe_row *row, pe_line *line);

/* Write already formatted rows. */
pe_status report_write_lines(pe_report *w, const char *text, size_t n, pe_error *err);

/* Create DIR if needed; open a temporary file for `path`; write the header. */
pe_status report_open(const char *path, pe_report **out, pe_error *err);

/* A CSV file of text cells with the given header (summaries, merged
 * reports): the same temporary-file-and-rename discipline. */
pe_status report_open_cells(const char *path, const char *const *header, size_t n,
                            pe_report **out, pe_error *err);
pe_status report_write_cells(pe_report *w, const char *const *cells, size_t n, pe_error *err);

/* One ranked row. p is the row's plan; rank is 1-based. */
pe_status report_write_row(pe_report *w, const pe_eval_ctx *ctx, const char *scenario,
                           long long rank, const pe_plan *p, const pe_row *row, pe_error *err);

/* Flush, close and rename into place. Frees w. */
pe_status report_commit(pe_report *w, pe_error *err);

/* The two halves of report_commit: flush and close the temporary file
 * (w stays, for report_publish or report_abort); rename it into place and
 * free w. */
pe_status report_finish(pe_report *w, pe_error *err);
pe_status report_publish(pe_report *w, pe_error *err);

/* A report and its summary: both finished before either is renamed, so a
 * full disk or a failed write leaves neither. Frees both. */
pe_status report_commit_pair(pe_report *a, pe_report *b, pe_error *err);

/* CRC-32 of every byte written so far (digest.h). */
uint32_t report_crc32(const pe_report *w);

/* Would these cells fit one report row (PE_REPORT_LINE_MAX)? */
bool report_cells_fit(const char *const *cells, size_t n);

/* Close and remove the temporary file. Frees w. Safe with NULL. */
void report_abort(pe_report *w);

/* The text of one cell of a row ("" when it does not apply); the writer,
 * `check` and `explain` share it. Returns the length (snprintf semantics). */
int report_format_cell(const pe_eval_ctx *ctx, const char *scenario, long long rank,
                       const pe_plan *p, const pe_row *row, pe_column col, char *buf,
                       size_t size);

/* Shortest "%.{15,16,17}g" text that reads back as x. */
int report_format_double(double x, char *buf, size_t size);

#endif
