/* rank.c — comparator and sort of report rows (model.md §9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

double rank_round12(double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.11e", x);
    return strtod(buf, NULL);
}

void rank_make_row(pe_rank_by by, uint64_t index, const pe_plan *p, const char *name,
                   const pe_result *r, pe_row *row)
{
    row->index = index;
    row->result = *r;
    row->name = name && name[0] ? name : NULL;
    plans_canonical(p, row->canon, sizeof row->canon);
    row->key1 = row->key2 = 0;
    if (r->status == PE_STATUS_INVALID)
        return; /* ordered by canonical text alone */
    switch (by) {
    case PE_RANK_STEP_TIME:
        row->key1 = rank_round12(r->step_time_s);
        break;
    case PE_RANK_MFU: /* descending */
        row->key1 = -rank_round12(r->mfu);
        break;
    case PE_RANK_MEMORY:
        row->key1 = rank_round12(r->mem_total_gib);
        break;
    case PE_RANK_TRAIN_DAYS:
        row->key1 = rank_round12(r->train_days);
        break;
    case PE_RANK_INTERVENTIONS: /* fewest knobs moved, then fastest */
        row->key1 = r->interventions;
        row->key2 = rank_round12(r->step_time_s);
        break;
    }
}

static int cmp_double(double a, double b) { return (a > b) - (a < b); }

int rank_compare(const pe_row *a, const pe_row *b)
{
    if (a->result.status != b->result.status)
        return a->result.status < b->result.status ? -1 : 1;
    int c = cmp_double(a->key1, b->key1);
    if (!c)
        c = cmp_double(a->key2, b->key2);
    if (!c)
        c = strcmp(a->canon, b->canon);
    if (!c)
        c = strcmp(a->name ? a->name : a->canon, b->name ? b->name : b->canon);
    if (!c)
        c = (a->index > b->index) - (a->index < b->index);
    return c;
}

static int qsort_cmp(const void *a, const void *b) { return rank_compare(a, b); }

void rank_sort(pe_row *rows, size_t n)
{
    if (n > 1)
        qsort(rows, n, sizeof *rows, qsort_cmp);
}
