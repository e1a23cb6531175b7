/* csvread.c — libcsv's streaming parser into a table of strings. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <csv.h>

#include "core/regular_file.h"
#include "output/csvread.h"

typedef struct {
    pe_csv_table *t;
    char **row;      /* cells of the row being read */
    size_t n, cap;
    size_t rows_cap;
    int line;       /* the physical line being parsed */
    int row_line;   /* where the row being read started */
    bool oom;
} reader;

static void on_field(void *data, size_t len, void *ctx)
{
    reader *r = ctx;
    if (r->oom)
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        char **p = realloc(r->row, cap * sizeof *p);
        if (!p) {
            r->oom = true;
            return;
        }
        r->row = p;
        r->cap = cap;
    }
    char *s = malloc(len + 1);
    if (!s) {
        r->oom = true;
        return;
    }
    if (len)
        memcpy(s, data, len);
    s[len] = '\0';
    r->row[r->n++] = s;
}

static void on_row(int c, void *ctx)
{
    (void)c;
    reader *r = ctx;
    pe_csv_table *t = r->t;
    if (r->oom)
        return;
    if (t->rows == r->rows_cap) {
        size_t cap = r->rows_cap ? 2 * r->rows_cap : 64;
        char ***cells = realloc(t->cells, cap * sizeof *cells);
        if (cells)
            t->cells = cells;
        size_t *cols = cells ? realloc(t->cols, cap * sizeof *cols) : NULL;
        if (cols)
            t->cols = cols;
        int *lines = cols ? realloc(t->lines, cap * sizeof *lines) : NULL;
        if (lines)
            t->lines = lines;
        if (!cells || !cols || !lines) {
            r->oom = true;
            return;
        }
        r->rows_cap = cap;
    }
    t->cells[t->rows] = r->row;
    t->cols[t->rows] = r->n;
    t->lines[t->rows] = r->row_line;
    r->row_line = r->line + 1; /* this row ended on the current line */
    if (r->n > t->cols_max)
        t->cols_max = r->n;
    t->rows++;
    r->row = NULL;
    r->n = r->cap = 0;
}

pe_status csv_table_read(const char *path, pe_csv_table *t, pe_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *fp;
    pe_status opened = regular_file_open(path, &fp, NULL, err);
    if (opened != PE_OK)
        return opened;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI) != 0) {
        fclose(fp);
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    }
    reader r = {.t = t, .line = 0, .row_line = 1};
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    pe_status st = PE_OK;
    /* one physical line at a time, so every row knows where it starts */
    while (st == PE_OK && (n = getline(&buf, &cap, fp)) > 0) {
        r.line++;
        if (csv_parse(&p, buf, (size_t)n, on_field, on_row, &r) != (size_t)n)
            st = pe_fail(err, PE_BAD_INPUT, path, r.line, 1, "not valid CSV: %s",
                         csv_strerror(csv_error(&p)));
    }
    free(buf);
    if (st == PE_OK && ferror(fp))
        st = pe_fail(err, PE_INTERNAL, path, 0, 0, "read failed: %s", strerror(errno));
    if (st == PE_OK && csv_fini(&p, on_field, on_row, &r) != 0)
        st = pe_fail(err, PE_BAD_INPUT, path, r.row_line ? r.row_line : r.line, 1,
                     "not valid CSV (a quoted cell is not closed): %s",
                     csv_strerror(csv_error(&p)));
    if (st == PE_OK && r.oom)
        st = pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    for (size_t i = 0; i < r.n; i++)
        free(r.row[i]);
    free(r.row);
    csv_free(&p);
    fclose(fp);
    if (st != PE_OK)
        csv_table_free(t);
    return st;
}

void csv_table_free(pe_csv_table *t)
{
    for (size_t i = 0; i < t->rows; i++) {
        for (size_t j = 0; j < t->cols[i]; j++)
            free(t->cells[i][j]);
        free(t->cells[i]);
    }
    free(t->cells);
    free(t->cols);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

const char *csv_table_cell(const pe_csv_table *t, size_t row, size_t col)
{
    return row < t->rows && col < t->cols[row] ? t->cells[row][col] : "";
}
