/* rank.c — comparator and sort of report rows (docs/model.md §9). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/rank.h"

double rank_round12(double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.11e", x);
    return strtod(buf, NULL);
}

void rank_order_of(const pe_scenario *s, pe_rank_order *o)
{
    o->count = s->rank_by_count ? s->rank_by_count : 1;
    if (!s->rank_by_count)
        o->by[0] = s->rank_by;
    for (size_t i = 0; i < s->rank_by_count && i < PE_RANK_BY_MAX; i++)
        o->by[i] = s->rank_by_list[i];
}

int rank_order_format(const pe_rank_order *o, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < o->count && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", pe_rank_by_name(o->by[i]));
    return (int)n;
}

bool rank_order_parse(const char *text, pe_rank_order *o)
{
    o->count = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k <= PE_RANK_INTERVENTIONS; k++)
            if (strlen(pe_rank_by_name((pe_rank_by)k)) == len &&
                strncmp(p, pe_rank_by_name((pe_rank_by)k), len) == 0)
                found = k;
        for (size_t i = 0; found >= 0 && i < o->count; i++)
            if (o->by[i] == (pe_rank_by)found)
                found = -1; /* a key at most once */
        if (found < 0 || o->count == PE_RANK_BY_MAX)
            return false;
        o->by[o->count++] = (pe_rank_by)found;
        if (!p[len])
            return true;
        p += len + 1;
    }
}

/* The figures of one key into k->key[at...]; how many (docs/model.md §9). */
static inline size_t put_key(pe_rank_by by, const pe_result *r, double *key)
{
    switch (by) {
    case PE_RANK_STEP_TIME: key[0] = r->step_time_s; return 1;
    case PE_RANK_MFU: key[0] = -r->mfu; return 1; /* descending */
    case PE_RANK_MEMORY: key[0] = r->mem_total_gib; return 1;
    case PE_RANK_TRAIN_DAYS: key[0] = r->train_days; return 1;
    case PE_RANK_INTERVENTIONS: /* fewest knobs moved, then fastest */
        key[0] = r->interventions;
        key[1] = r->step_time_s;
        return 2;
    }
    return 0;
}

void rank_key_of(pe_rank_by by, const pe_result *r, pe_rank_key *k)
{
    pe_rank_order one = {.by = {by}, .count = 1};
    rank_keys_of(&one, r, k);
}

void rank_keys_of(const pe_rank_order *o, const pe_result *r, pe_rank_key *k)
{
    /* on the sweep's hot path (top-K): no memset, no call per key */
    k->status = r->status;
    size_t n = 0;
    if (r->status != PE_STATUS_INVALID) /* invalid plans: by canonical text alone */
        for (size_t i = 0; i < o->count; i++) /* at most PE_RANK_KEY_MAX: keys are distinct */
            n += put_key(o->by[i], r, &k->key[n]);
    for (; n < PE_RANK_KEY_MAX; n++)
        k->key[n] = 0;
}

double rank_pareto_value(const pe_rank_order *o, const pe_result *r)
{
    double key[2] = {0, 0};
    if (o->by[0] == PE_RANK_MEMORY) /* memory against memory is no trade-off */
        return r->step_time_s;
    put_key(o->by[0], r, key);
    return key[0];
}

void rank_make_row(const pe_rank_order *o, uint64_t index, const pe_plan *p, const char *name,
                   const pe_result *r, pe_row *row)
{
    row->index = index;
    row->result = *r;
    row->name = name && name[0] ? name : NULL;
    plans_canonical(p, row->canon, sizeof row->canon);
    rank_keys_of(o, r, &row->key);
}

static int cmp_double(double a, double b) { return (a > b) - (a < b); }

/* docs/model.md §9: keys compare rounded to 12 significant digits. Rounding is
 * monotone, so two keys further apart than any rounding step (relative
 * 1e-11 at most; 1e-10 leaves a margin) keep their order and need no
 * rounding; only near-ties pay for the exact printf/strtod round trip. */
static int cmp_key(double a, double b)
{
    if (a == b)
        return 0;
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (fabs(a - b) > 1e-10 * m)
        return a < b ? -1 : 1;
    return cmp_double(rank_round12(a), rank_round12(b));
}

int rank_compare_keys(const pe_rank_key *a, const pe_rank_key *b)
{
    if (a->status != b->status)
        return a->status < b->status ? -1 : 1;
    for (int i = 0; i < PE_RANK_KEY_MAX; i++) {
        int c = cmp_key(a->key[i], b->key[i]);
        if (c)
            return c;
    }
    return 0;
}

int rank_compare(const pe_row *a, const pe_row *b)
{
    int c = rank_compare_keys(&a->key, &b->key);
    if (!c)
        c = strcmp(a->canon, b->canon);
    if (!c)
        c = strcmp(a->name ? a->name : a->canon, b->name ? b->name : b->canon);
    if (!c)
        c = (a->index > b->index) - (a->index < b->index);
    return c;
}

static int cmp_row(const void *a, const void *b) { return rank_compare(a, b); }

static int cmp_row_ptr(const void *a, const void *b)
{
    return rank_compare(*(const pe_row *const *)a, *(const pe_row *const *)b);
}

#define SORT_RUN 4096u      /* rows sorted by one qsort call */
#define SORT_CHECK 0xFFFFu  /* merged rows between two looks at the stop flag */

static bool stopped(volatile sig_atomic_t *stop) { return stop && *stop; }

/* Merge the sorted runs [lo, mid) and [mid, hi) of from into to. */
static bool merge_runs(const pe_row **from, const pe_row **to, size_t lo, size_t mid, size_t hi,
                       volatile sig_atomic_t *stop)
{
    size_t i = lo, j = mid;
    for (size_t k = lo; k < hi; k++) {
        if ((k & SORT_CHECK) == 0 && stopped(stop))
            return false;
        to[k] = j >= hi || (i < mid && rank_compare(from[i], from[j]) <= 0) ? from[i++]
                                                                              : from[j++];
    }
    return true;
}

/* order[i] → the row that belongs at i: sorted runs, then bottom-up merge
 * passes. false when *stop was set (order is then no ranking). */
static bool sort_pointers(const pe_row ***order, const pe_row ***spare, size_t n,
                          volatile sig_atomic_t *stop)
{
    for (size_t lo = 0; lo < n; lo += SORT_RUN) {
        if (stopped(stop))
            return false;
        qsort(*order + lo, n - lo < SORT_RUN ? n - lo : SORT_RUN, sizeof **order, cmp_row_ptr);
    }
    for (size_t width = SORT_RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = n - lo > width ? lo + width : n;
            size_t hi = n - lo > 2 * width ? lo + 2 * width : n;
            if (!merge_runs(*order, *spare, lo, mid, hi, stop))
                return false;
        }
        const pe_row **t = *order;
        *order = *spare;
        *spare = t;
    }
    return true;
}

/* Move every row to its place, one cycle of the permutation at a time:
 * order[j] is the row that goes to j; a placed slot is marked NULL. */
static void permute_rows(pe_row *rows, const pe_row **order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!order[i])
            continue;
        pe_row held = rows[i];
        size_t j = i;
        for (;;) {
            size_t from = (size_t)(order[j] - rows);
            order[j] = NULL;
            if (from == i) {
                rows[j] = held;
                break;
            }
            rows[j] = rows[from];
            j = from;
        }
    }
}

bool rank_sort_until(pe_row *rows, size_t n, volatile sig_atomic_t *stop)
{
    if (n < 2)
        return !stopped(stop);
    /* Rows are large (the whole result): sort pointers, then move each row
     * once. A merge sort of qsort-sorted runs looks at the stop flag as it
     * goes, so a signal is honoured within milliseconds of a large sort. */
    const pe_row **order = malloc(n * sizeof *order);
    const pe_row **spare = order ? malloc(n * sizeof *spare) : NULL;
    if (!spare) { /* out of memory: sort in place, slowly */
        free(order);
        qsort(rows, n, sizeof *rows, cmp_row);
        return !stopped(stop);
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &rows[i];
    bool done = sort_pointers(&order, &spare, n, stop);
    if (done)
        permute_rows(rows, order, n);
    free(order);
    free(spare);
    return done;
}

void rank_sort(pe_row *rows, size_t n) { rank_sort_until(rows, n, NULL); }
