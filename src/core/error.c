/* error.c — filling, formatting and collecting pe_error values. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

pe_status pe_fail(pe_error *err, pe_status status, const char *file, int line, int col,
                  const char *fmt, ...)
{
    if (!err)
        return status;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->more[0] = '\0';
    return status;
}

void pe_error_format(const pe_error *err, char *buf, size_t size)
{
    if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%d:%d: error: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0])
        snprintf(buf, size, "%s: error: %s", err->file, err->msg);
    else
        snprintf(buf, size, "error: %s", err->msg);
}

pe_status pe_errors_add(pe_error_list *list, const pe_error *e)
{
    list->total++;
    if (list->count == PE_ERRORS_MAX)
        return PE_OK;
    if (!list->items) {
        /* only the small head of each item is copied, but the items are
         * whole pe_errors so they can be formatted by pe_error_format */
        list->items = malloc(PE_ERRORS_MAX * sizeof *list->items);
        if (!list->items)
            return PE_INTERNAL;
    }
    pe_error *it = &list->items[list->count++];
    /* e->more (several errors packed into one) stays with e: the callers add
     * errors one at a time */
    memcpy(it->file, e->file, sizeof it->file);
    it->line = e->line;
    it->col = e->col;
    memcpy(it->msg, e->msg, sizeof it->msg);
    it->more[0] = '\0';
    return PE_OK;
}

/* Is x before y: errors without a line first, the first error's file before
 * other files, then line and column. */
static int position_cmp(const pe_error *x, const pe_error *y, const char *first_file)
{
    int fx = strcmp(x->file, first_file) != 0, fy = strcmp(y->file, first_file) != 0;
    if (fx != fy)
        return fx - fy;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

/* Append one formatted line to err->more (dropped when full). */
static void add_line(pe_error *err, const pe_error *e)
{
    char line[PE_PATH_MAX + PE_MSG_MAX + 32];
    pe_error_format(e, line, sizeof line);
    size_t used = strlen(err->more), n = strlen(line);
    if (used + n + 2 <= sizeof err->more) {
        memcpy(err->more + used, line, n);
        err->more[used + n] = '\n';
        err->more[used + n + 1] = '\0';
    }
}

pe_status pe_errors_pack(pe_error_list *list, pe_error *err)
{
    if (list->count == 0) {
        pe_errors_free(list);
        return PE_OK;
    }
    pe_error *order[PE_ERRORS_MAX];
    for (size_t i = 0; i < list->count; i++)
        order[i] = &list->items[i];
    const char *first_file = list->items[0].file;
    for (size_t i = 1; i < list->count; i++) /* insertion sort: stable, n <= 20 */
        for (size_t j = i; j > 0 && position_cmp(order[j], order[j - 1], first_file) < 0; j--) {
            pe_error *t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    pe_fail(err, PE_BAD_INPUT, order[0]->file, order[0]->line, order[0]->col, "%s",
            order[0]->msg);
    for (size_t i = 1; i < list->count; i++)
        add_line(err, order[i]);
    if (list->total > list->count) {
        pe_error tail;
        pe_fail(&tail, PE_BAD_INPUT, first_file, 0, 0, "... and %zu more error%s",
                list->total - list->count, list->total - list->count == 1 ? "" : "s");
        add_line(err, &tail);
    }
    pe_errors_free(list);
    return PE_BAD_INPUT;
}

void pe_errors_free(pe_error_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->total = 0;
}
