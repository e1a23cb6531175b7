/* rank.h — the total order of report rows (docs/model.md §9).
 *
 * Class by status (ok, over_time, over_memory, invalid); inside a class by
 * the rank_by key(s) rounded to 12 significant digits; invalid plans by
 * canonical text; ties by canonical text (byte order), plan name, input
 * order. The order never depends on threads or on evaluation order. */
#ifndef PLANEVAL_RANK_H
#define PLANEVAL_RANK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/evaluate.h"
#include "sweep/plans.h"

/* Figures a rank_by list compares: one per key, two for interventions
 * (the count, then step time). */
#define PE_RANK_KEY_MAX (PE_RANK_BY_MAX + 1)

/* What ranks a plan before its canonical text: status class, then the
 * rank_by key(s), smaller first (raw values; compared rounded; unused 0). */
typedef struct {
    pe_plan_status status;
    double key[PE_RANK_KEY_MAX];
} pe_rank_key;

/* rank_by: one key, or a list, each key breaking the ties of the one
 * before (then canonical text, as for one key). */
typedef struct {
    pe_rank_by by[PE_RANK_BY_MAX];
    size_t count; /* 1 .. PE_RANK_BY_MAX */
} pe_rank_order;

/* The scenario's rank_by. */
void rank_order_of(const pe_scenario *s, pe_rank_order *o);

/* As the report's rank_by column writes it: "step_time", or the keys
 * joined by ',' ("step_time,memory"); and back (false: not such a text). */
int rank_order_format(const pe_rank_order *o, char *buf, size_t size);
bool rank_order_parse(const char *text, pe_rank_order *o);

/* The figure that ranks first among plans of one status, for a Pareto
 * front against memory: the first key's value (its count for
 * interventions); for rank_by memory, step time. Smaller is better. */
double rank_pareto_value(const pe_rank_order *o, const pe_result *r);

typedef struct {
    uint64_t index;   /* the plan's index in its pe_plan_space: input order */
    pe_rank_key key;
    const char *name; /* explicit plan's name, or NULL (then canon) */
    char canon[PE_CANON_MAX];
    pe_result result;
} pe_row;

/* The value printf("%.11e") of x reads back as: 12 significant digits. */
double rank_round12(double x);

/* One key (key[0], and key[1] for interventions), or a whole order. */
void rank_key_of(pe_rank_by by, const pe_result *r, pe_rank_key *k);
void rank_keys_of(const pe_rank_order *o, const pe_result *r, pe_rank_key *k);

/* Status class, then keys rounded to 12 significant digits; 0 on a tie. */
int rank_compare_keys(const pe_rank_key *a, const pe_rank_key *b);

/* Fill a row for plan p (evaluated into r) at index. name must outlive the
 * row (an explicit plan's name in its scenario), or be NULL / "" for a plan
 * known by its canonical text. */
void rank_make_row(const pe_rank_order *o, uint64_t index, const pe_plan *p, const char *name,
                   const pe_result *r, pe_row *row);

/* <0, 0, >0 as a ranks before, same as, after b. */
int rank_compare(const pe_row *a, const pe_row *b);

/* Sort rows into rank order. */
void rank_sort(pe_row *rows, size_t n);

/* The same, giving up as soon as *stop is non-zero (stop may be NULL):
 * false then, and rows are in no particular order. */
bool rank_sort_until(pe_row *rows, size_t n, volatile sig_atomic_t *stop);

#endif
