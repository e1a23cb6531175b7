/* csvread.h — read a CSV file back into a table of text cells (libcsv),
 * for the report reader (report_read.h), `check --golden`, calibrate's runs
 * file and tests. */
#ifndef PLANEVAL_CSVREAD_H
#define PLANEVAL_CSVREAD_H

#include <stddef.h>

#include "core/error.h"

typedef struct {
    size_t rows, cols_max;
    size_t *cols;   /* cells in each row */
    int *lines;     /* the line each row starts on (quoted cells may span lines) */
    char ***cells;  /* cells[row][col], NUL-terminated, owned */
} pe_csv_table;

pe_status csv_table_read(const char *path, pe_csv_table *t, pe_error *err);
void csv_table_free(pe_csv_table *t);

/* Cell text, or "" when the row has no such column. */
const char *csv_table_cell(const pe_csv_table *t, size_t row, size_t col);

#endif
