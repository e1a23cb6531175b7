/* error.c — filling, formatting and collecting pe_error values. */
#include <stdarg.h>
#include <stdbool.h>
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
    /* the same error twice (a node reached through several aliases) is one */
    for (size_t i = 0; i < list->count; i++) {
        const pe_error_item *it = &list->items[i];
        if (it->line == e->line && it->col == e->col && strcmp(it->msg, e->msg) == 0 &&
            strcmp(it->file, e->file) == 0)
            return PE_OK;
    }
    list->total++;
    if (list->count == PE_ERRORS_KEPT)
        return PE_OK;
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 8;
        pe_error_item *items = realloc(list->items, cap * sizeof *items);
        if (!items)
            return PE_INTERNAL;
        list->items = items;
        list->cap = cap;
    }
    pe_error_item *it = &list->items[list->count++];
    memcpy(it->file, e->file, sizeof it->file);
    it->line = e->line;
    it->col = e->col;
    memcpy(it->msg, e->msg, sizeof it->msg);
    return PE_OK;
}

/* Order of two errors: without a line first, the first error's file before
 * other files, then line, column and the order found (a stable sort). */
static int position_cmp(const void *a, const void *b, const char *first_file)
{
    const pe_error_item *x = *(pe_error_item *const *)a, *y = *(pe_error_item *const *)b;
    int fx = strcmp(x->file, first_file) != 0, fy = strcmp(y->file, first_file) != 0;
    if (fx != fy)
        return fx - fy;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Merge sort of item pointers by position_cmp (qsort has no context
 * argument, and the loader may run in several threads). */
static void sort_items(pe_error_item **v, pe_error_item **tmp, size_t n, const char *first_file)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_items(v, tmp, h, first_file);
    sort_items(v + h, tmp, n - h, first_file);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = position_cmp(&v[j], &v[i], first_file) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* Append one formatted line to err->more, leaving `reserve` bytes free;
 * false when it does not fit. */
static bool add_line(pe_error *err, const pe_error *e, size_t reserve)
{
    char line[PE_PATH_MAX + PE_MSG_MAX + 32];
    pe_error_format(e, line, sizeof line);
    size_t used = strlen(err->more), n = strlen(line);
    if (used + n + 2 + reserve <= sizeof err->more) {
        memcpy(err->more + used, line, n);
        err->more[used + n] = '\n';
        err->more[used + n + 1] = '\0';
        return true;
    }
    return false;
}

pe_status pe_errors_pack(pe_error_list *list, pe_error *err)
{
    if (list->count == 0) {
        pe_errors_free(list);
        return PE_OK;
    }
    pe_error_item **order = malloc(2 * list->count * sizeof *order);
    if (!order) {
        pe_errors_free(list);
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < list->count; i++)
        order[i] = &list->items[i];
    const char *first_file = list->items[0].file;
    sort_items(order, order + list->count, list->count, first_file);
    size_t shown = list->count < PE_ERRORS_MAX ? list->count : PE_ERRORS_MAX;
    pe_fail(err, PE_BAD_INPUT, order[0]->file, order[0]->line, order[0]->col, "%s",
            order[0]->msg);
    size_t listed = 1;
    for (size_t i = 1; i < shown && listed == i; i++) {
        pe_error e;
        pe_fail(&e, PE_BAD_INPUT, order[i]->file, order[i]->line, order[i]->col, "%s",
                order[i]->msg);
        /* very long messages may not all fit: room is kept for the tail */
        listed += add_line(err, &e, PE_PATH_MAX + 64);
    }
    if (list->total > listed) {
        pe_error tail;
        size_t rest = list->total - listed;
        pe_fail(&tail, PE_BAD_INPUT, first_file, 0, 0, "... and %zu more error%s", rest,
                rest == 1 ? "" : "s");
        add_line(err, &tail, 0);
    }
    free(order);
    pe_errors_free(list);
    return PE_BAD_INPUT;
}

void pe_errors_free(pe_error_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->cap = list->total = 0;
}
