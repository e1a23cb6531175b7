/* merge.c — join the reports of the shards of one sweep into exactly the
 * report one run gives, after proving that they are all of it (merge.h).
 *
 * Every row carries what ranks it (status, the rank_by figures, the plan's
 * columns for its canonical text, its name and plan_index), so rows are
 * re-ranked with the run's own comparator (rank.h) and renumbered; the
 * numbers are parsed back from shortest round-trip text, hence bit-exact.
 *
 * Completeness comes from the summary `run` writes beside each report
 * (DIR/NAME[.shard-I-of-N].summary.csv, found from the report's path): the
 * scenario's name and CRC-32, the shard's index range [index_first,
 * index_last) of index_total, top_k, rows_written and the report's CRC-32.
 * The ranges must tile [0, index_total) exactly once, each report must have
 * its rows_written rows and its checksum. --allow-partial merges what is
 * there and names on stderr what is missing; an overlap is always refused. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/columns.h"
#include "merge/merge.h"
#include "output/csvread.h"
#include "output/report_read.h"
#include "output/summary.h"
#include "output/digest.h"
#include "sweep/pareto.h"
#include "sweep/rank.h"
#include "output/report.h"
#include "sweep/runner.h"

typedef struct {
    pe_row row;         /* what rank_compare reads: key, canon, name, index */
    const char *const *cells;
    const char *path;   /* where the row came from, for messages */
    int line;
} merged_row;

/* One report given to merge, and what its summary says about it. */
typedef struct {
    const char *path;
    pe_csv_table table;
    char summary[PE_PATH_MAX + 32]; /* "" when the path does not end in .csv */
    bool has_summary, sharded;
    char scenario[PE_NAME_MAX];
    uint64_t shard_i, shard_n, first, last, total, top_k, rows_written;
    uint32_t scenario_crc, report_crc;
    /* what the merged summary is made of: counts added up, facts that
     * must agree, the machine's figures */
    pe_run_counts counts;
    pe_html_fact facts[PE_HTML_FACTS_MAX];
    size_t fact_count;
    char threads[16];
    double wall_s;
} shard_file;

/* Completeness problems are errors, or warnings with --allow-partial. */
typedef struct {
    bool allow_partial;
    FILE *out; /* where warnings go */
    size_t warnings;
    pe_status st;
    pe_error *err;
} verdict;

static void incomplete(verdict *v, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void incomplete(verdict *v, const char *file, const char *fmt, ...)
{
    char msg[PE_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->allow_partial) {
        fprintf(v->out, "planeval: warning: partial merge: %s%s%s\n", file ? file : "",
                file ? ": " : "", msg);
        v->warnings++;
    } else if (v->st == PE_OK) {
        v->st = pe_fail(v->err, PE_BAD_INPUT, file, 0, 0,
                        "%s (merge --allow-partial merges what is there)", msg);
    }
}

static int cmp_merged(const void *a, const void *b)
{
    return rank_compare(&((const merged_row *)a)->row, &((const merged_row *)b)->row);
}

/* The figures rank_key_of ranks by, parsed strictly. */
static const char *parse_keys(const char *const *c, int st, const pe_rank_order *order,
                              merged_row *m, int *col)
{
    pe_result r = {.status = (pe_plan_status)st};
    const struct { int col; double *into; bool may_be_empty; } figures[] = {
        {COL_STEP_TIME_S, &r.step_time_s, false},
        {COL_MFU, &r.mfu, false},
        {COL_MEM_TOTAL_GIB, &r.mem_total_gib, false},
        {COL_TRAIN_DAYS, &r.train_days, true}, /* empty without training.tokens */
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        *col = figures[i].col;
        if (!report_cell_number(c[*col], figures[i].may_be_empty, figures[i].into))
            return "not a number";
    }
    uint64_t interventions;
    *col = COL_INTERVENTIONS;
    if (!report_cell_uint(c[COL_INTERVENTIONS], &interventions) || interventions > 64)
        return "not a whole number of knobs";
    r.interventions = (int)interventions;
    rank_keys_of(order, &r, &m->row.key);
    m->row.result = r; /* its figures, for the Pareto front */
    return NULL;
}

/* Fill m->row from one report row; NULL, or a message and the column. */
static const char *parse_row(const char *const *c, const pe_rank_order *order, merged_row *m,
                             int *col)
{
    memset(&m->row, 0, sizeof m->row);
    m->cells = c;
    int st = report_cell_status(c[COL_STATUS]);
    *col = COL_STATUS;
    if (st < 0)
        return "unknown status";
    pe_plan p = {0};
    const char *why = report_cell_plan(c, &p, col);
    if (why)
        return why;
    plans_canonical(&p, m->row.canon, sizeof m->row.canon);
    m->row.name = strcmp(c[COL_PLAN], m->row.canon) == 0 ? NULL : c[COL_PLAN];
    m->row.key.status = (pe_plan_status)st;
    *col = COL_PLAN_INDEX;
    if (c[COL_PLAN_INDEX][0]) {
        if (!report_cell_uint(c[COL_PLAN_INDEX], &m->row.index))
            return "plan_index is not a whole number";
    } else if (st != PE_STATUS_INVALID) {
        return "plan_index is empty (only invalid plans leave it empty)";
    }
    m->row.result.status = (pe_plan_status)st;
    if (st == PE_STATUS_INVALID)
        return NULL; /* ordered by canonical text alone */
    return parse_keys(c, st, order, m, col);
}

/* ------------------------------------------------------------ reading */

/* One `key,value` of a summary as a whole number (or hex for a CRC). */
static bool summary_uint(const pe_csv_table *t, const char *key, int base, uint64_t *out)
{
    for (size_t r = 1; r < t->rows; r++) {
        if (t->cols[r] != 2 || strcmp(t->cells[r][0], key) != 0)
            continue;
        const char *v = t->cells[r][1];
        char *end;
        errno = 0;
        *out = strtoull(v, &end, base);
        return v[0] && v[0] != '-' && v[0] != '+' && v[0] != ' ' && *end == '\0' && !errno;
    }
    return false;
}

/* One count row of a summary into its place in c; false when key is
 * none of the count rows. */
static bool count_row(const char *key, uint64_t n, pe_run_counts *c)
{
    char name[96];
    if (strcmp(key, "plans_evaluated") == 0)
        return c->evaluated = n, true;
    for (int k = 1; k < PE_SKIP_COUNT; k++)
        if (snprintf(name, sizeof name, "skipped: %s", plans_skip_name((pe_skip)k)) > 0 &&
            strcmp(key, name) == 0)
            return c->skipped[k] = n, true;
    for (int k = 0; k < 4; k++)
        if (snprintf(name, sizeof name, "status: %s", pe_plan_status_name((pe_plan_status)k)) >
                0 && strcmp(key, name) == 0)
            return c->by_status[k] = n, true;
    for (int r = 0; r < PE_RULE_COUNT; r++)
        if (snprintf(name, sizeof name, "invalid: V%d", r + 1) > 0 && strcmp(key, name) == 0)
            return c->by_rule[r] = n, true;
    return false;
}

/* The counts, facts, threads and wall time of a summary; false when a
 * count row is missing or not a whole number. */
static bool read_merged_parts(const pe_csv_table *t, shard_file *f)
{
    size_t counts = 0;
    for (size_t r = 1; r < t->rows; r++) {
        const char *key = csv_table_cell(t, r, 0), *value = csv_table_cell(t, r, 1);
        char *end;
        errno = 0;
        uint64_t n = strtoull(value, &end, 10);
        bool number = value[0] >= '0' && value[0] <= '9' && !*end && !errno;
        if (strncmp(key, "fact: ", 6) == 0 && f->fact_count < PE_HTML_FACTS_MAX) {
            pe_html_fact *fact = &f->facts[f->fact_count++];
            snprintf(fact->key, sizeof fact->key, "%s", key + 6);
            snprintf(fact->value, sizeof fact->value, "%s", value);
        } else if (strcmp(key, "threads") == 0) {
            snprintf(f->threads, sizeof f->threads, "%s", value);
        } else if (strcmp(key, "wall_s") == 0) {
            f->wall_s = strtod(value, NULL);
        } else if (count_row(key, number ? n : 0, &f->counts)) {
            counts += number;
        }
    }
    return counts == 1 + (PE_SKIP_COUNT - 1) + 4 + PE_RULE_COUNT;
}

/* The summary beside f->path, if there is one. */
static pe_status read_summary(shard_file *f, pe_error *err)
{
    if (!summary_path_of(f->path, f->summary, sizeof f->summary)) {
        f->summary[0] = '\0';
        return PE_OK;
    }
    /* a summary that is not there is none; one that is there but is not a
     * regular file (a FIFO would block the read) is refused by csv_table_read */
    struct stat sb;
    if (lstat(f->summary, &sb) != 0 && errno == ENOENT)
        return PE_OK;
    pe_csv_table t;
    pe_status st = csv_table_read(f->summary, &t, err);
    if (st != PE_OK)
        return st;
    uint64_t scrc = 0, rcrc = 0;
    bool ok = summary_uint(&t, "index_first", 10, &f->first) &&
              summary_uint(&t, "index_last", 10, &f->last) &&
              summary_uint(&t, "index_total", 10, &f->total) &&
              summary_uint(&t, "top_k", 10, &f->top_k) &&
              summary_uint(&t, "rows_written", 10, &f->rows_written) &&
              summary_uint(&t, "scenario_crc32", 16, &scrc) &&
              summary_uint(&t, "report_crc32", 16, &rcrc) && f->first <= f->last &&
              f->last <= f->total && strcmp(csv_table_cell(&t, 1, 0), "scenario") == 0 &&
              read_merged_parts(&t, f);
    snprintf(f->scenario, sizeof f->scenario, "%s", csv_table_cell(&t, 1, 1));
    for (size_t r = 1; ok && r < t.rows; r++) {
        unsigned long long i, of;
        if (strcmp(csv_table_cell(&t, r, 0), "shard") == 0 &&
            sscanf(csv_table_cell(&t, r, 1), "%llu/%llu", &i, &of) == 2) {
            f->sharded = true;
            f->shard_i = i;
            f->shard_n = of;
        }
    }
    csv_table_free(&t);
    f->scenario_crc = (uint32_t)scrc;
    f->report_crc = (uint32_t)rcrc;
    if (!ok)
        return pe_fail(err, PE_BAD_INPUT, f->summary, 0, 0,
                       "not a summary of this planeval (index_first, index_last, index_total, "
                       "top_k, rows_written, both CRC-32s and every count are needed): rerun "
                       "this shard");
    f->has_summary = true;
    return PE_OK;
}

/* This report against its own summary: its rows and its bytes. */
static pe_status check_report(const shard_file *f, verdict *v, pe_error *err)
{
    if (!f->has_summary && f->summary[0]) {
        incomplete(v, f->path, "no summary beside it (%s): cannot tell whether it is all of its "
                   "shard", f->summary);
        return PE_OK;
    }
    if (!f->has_summary) {
        incomplete(v, f->path, "no summary beside it (a report's name ends in .csv, its "
                   "summary's in .summary.csv): cannot tell whether it is all of its shard");
        return PE_OK;
    }
    size_t rows = f->table.rows - 1;
    if (rows != f->rows_written)
        incomplete(v, f->path, "has %zu rows, its summary says %llu were written (cut short?)",
                   rows, (unsigned long long)f->rows_written);
    uint32_t crc = 0;
    pe_status st = digest_file_crc32(f->path, &crc, err);
    if (st == PE_OK && crc != f->report_crc && rows == f->rows_written)
        incomplete(v, f->path, "its CRC-32 is %08lx, its summary says %08lx (changed since "
                   "it was written?)", (unsigned long)crc, (unsigned long)f->report_crc);
    return st;
}

/* ------------------------------------------------------------ tiling */

static int cmp_range(const void *a, const void *b)
{
    const shard_file *x = *(const shard_file *const *)a, *y = *(const shard_file *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->last > y->last) - (x->last < y->last);
}

/* The shards of N that lie inside the gap [lo, hi), as ": shard 1, 2 of 4
 * are missing"; "" when the reports do not agree on one N. */
static void missing_shards(shard_file *const *by, size_t n, uint64_t lo, uint64_t hi,
                           char *buf, size_t size)
{
    buf[0] = '\0';
    uint64_t of = by[0]->shard_n;
    for (size_t i = 0; i < n; i++)
        if (!by[i]->sharded || by[i]->shard_n != of)
            return;
    char list[120] = "";
    size_t len = 0, listed = 0;
    for (uint64_t i = 0; i < of && len < sizeof list; i++) {
        uint64_t a, b;
        runner_shard_range(by[0]->total, i, of, &a, &b);
        if (a >= lo && b <= hi && a < b && listed++ < 8)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%llu",
                                    listed > 1 ? ", " : "", (unsigned long long)i);
    }
    if (listed)
        snprintf(buf, size, ": shard%s %s%s of %llu %s missing", listed > 1 ? "s" : "", list,
                 listed > 8 ? ", ..." : "", (unsigned long long)of, listed > 1 ? "are" : "is");
}

static void report_gap(verdict *v, shard_file *const *by, size_t n, uint64_t lo, uint64_t hi)
{
    char which[160];
    missing_shards(by, n, lo, hi, which, sizeof which);
    incomplete(v, NULL, "plan indices [%llu, %llu) of %llu are in no report%s",
               (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)by[0]->total,
               which);
}

/* The same scenario text, the same total and top_k in every summary. */
static pe_status check_same_sweep(shard_file *const *by, size_t n, pe_error *err)
{
    char b1[96], b2[96];
    for (size_t i = 1; i < n; i++) {
        const shard_file *a = by[0], *f = by[i];
        if (strcmp(a->scenario, f->scenario) != 0 || a->scenario_crc != f->scenario_crc)
            return pe_fail(err, PE_BAD_INPUT, f->summary, 0, 0,
                           "a shard of scenario '%s' (scenario CRC-32 %08lx), but %s is of "
                           "'%s' (%08lx): merge joins the shards of one scenario file",
                           report_quote_cell(f->scenario, b1), (unsigned long)f->scenario_crc, a->summary,
                           report_quote_cell(a->scenario, b2), (unsigned long)a->scenario_crc);
        if (a->total != f->total || a->top_k != f->top_k)
            return pe_fail(err, PE_BAD_INPUT, f->summary, 0, 0,
                           "index_total %llu and top_k %llu differ from %s's (%llu, %llu): "
                           "the shards of one run share them",
                           (unsigned long long)f->total, (unsigned long long)f->top_k,
                           a->summary, (unsigned long long)a->total, (unsigned long long)a->top_k);
        for (size_t k = 0; k < a->fact_count || k < f->fact_count; k++) {
            const pe_html_fact *x = k < a->fact_count ? &a->facts[k] : NULL,
                               *y = k < f->fact_count ? &f->facts[k] : NULL;
            if (!x || !y || strcmp(x->key, y->key) != 0 || strcmp(x->value, y->value) != 0)
                return pe_fail(err, PE_BAD_INPUT, f->summary, 0, 0,
                               "its facts differ from %s's ('fact: %s'): the shards of one run "
                               "share them (the same scenario with another --catalog?)",
                               a->summary, report_quote_cell((y ? y : x)->key, b1));
        }
    }
    return PE_OK;
}

/* Two reports of one range: the same shard, unless empty shards of
 * different numbers (more shards than plans). */
static bool same_range(const shard_file *a, const shard_file *b)
{
    return a->first == b->first && a->last == b->last &&
           (a->first < a->last || (a->shard_i == b->shard_i && a->shard_n == b->shard_n));
}

/* The summaries' ranges tile [0, index_total) exactly once: an overlap or
 * a shard given twice is an error; a gap is incomplete. */
static pe_status check_tiling(shard_file *files, size_t count, uint64_t top_k, verdict *v,
                              pe_error *err)
{
    shard_file **by = malloc((count ? count : 1) * sizeof *by);
    if (!by)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (files[i].has_summary)
            by[n++] = &files[i];
    pe_status st = n ? check_same_sweep(by, n, err) : PE_OK;
    qsort(by, n, sizeof *by, cmp_range);
    uint64_t reached = 0;
    for (size_t i = 0; st == PE_OK && i < n; i++) {
        if (i && same_range(by[i], by[i - 1]))
            st = pe_fail(err, PE_BAD_INPUT, by[i]->path, 0, 0,
                         "the shard of plan indices [%llu, %llu) appears twice (here and in "
                         "%s): give each shard once", (unsigned long long)by[i]->first,
                         (unsigned long long)by[i]->last, by[i - 1]->path);
        else if (by[i]->first < reached)
            st = pe_fail(err, PE_BAD_INPUT, by[i]->path, 0, 0,
                         "plan indices [%llu, %llu) overlap %s's [%llu, %llu): the shards of "
                         "one run (one N) tile the plans once",
                         (unsigned long long)by[i]->first, (unsigned long long)by[i]->last,
                         by[i - 1]->path, (unsigned long long)by[i - 1]->first,
                         (unsigned long long)by[i - 1]->last);
        else if (by[i]->first > reached)
            report_gap(v, by, n, reached, by[i]->first);
        if (by[i]->last > reached)
            reached = by[i]->last;
    }
    if (st == PE_OK && n && reached < by[0]->total)
        report_gap(v, by, n, reached, by[0]->total);
    if (st == PE_OK && n && by[0]->top_k && (!top_k || top_k > by[0]->top_k))
        incomplete(v, NULL, "the shards kept only their best %llu rows (run --top %llu): "
                   "merge --top %llu (or less) gives the report one run gives",
                   (unsigned long long)by[0]->top_k, (unsigned long long)by[0]->top_k,
                   (unsigned long long)by[0]->top_k);
    free(by);
    return st;
}

/* ------------------------------------------------------------ rows */

/* Every row of every report into rows (*n of them): one scenario, one
 * rank_by, each plan_index inside its report's range. */
static pe_status collect_rows(const shard_file *files, size_t count, merged_row *rows, size_t *n,
                              pe_rank_order *order_out, pe_error *err)
{
    const char *scenario = NULL;
    const char *rank_by = NULL; /* the rows' rank_by text: a key, or keys joined by ',' */
    pe_rank_order order = {{PE_RANK_STEP_TIME}, 1};
    char b1[96], b2[96];
    for (size_t f = 0; f < count; f++) {
        const pe_csv_table *t = &files[f].table;
        for (size_t r = 1; r < t->rows; r++) {
            const char *const *c = (const char *const *)t->cells[r];
            const char *path = files[f].path;
            if (!scenario)
                scenario = c[COL_SCENARIO];
            if (strcmp(scenario, c[COL_SCENARIO]) != 0)
                return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], COL_SCENARIO + 1,
                               "rows of two scenarios ('%s' and '%s'): merge joins the shards "
                               "of one sweep", report_quote_cell(scenario, b1), report_quote_cell(c[COL_SCENARIO], b2));
            if (!c[COL_RANK_BY][0])
                continue;
            if (!rank_order_parse(c[COL_RANK_BY], &order))
                return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], COL_RANK_BY + 1,
                               "unknown rank_by '%s'", report_quote_cell(c[COL_RANK_BY], b1));
            if (rank_by && strcmp(rank_by, c[COL_RANK_BY]) != 0)
                return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], COL_RANK_BY + 1,
                               "rank_by '%s' differs from the other rows' '%s'",
                               report_quote_cell(c[COL_RANK_BY], b1), report_quote_cell(rank_by, b2));
            rank_by = c[COL_RANK_BY];
        }
    }
    *n = 0;
    for (size_t f = 0; f < count; f++) {
        const shard_file *sf = &files[f];
        for (size_t r = 1; r < sf->table.rows; r++, (*n)++) {
            int col = 0;
            merged_row *m = &rows[*n];
            const char *why = parse_row((const char *const *)sf->table.cells[r], &order, m, &col);
            m->path = sf->path;
            m->line = sf->table.lines[r];
            if (!why && sf->has_summary && m->cells[COL_PLAN_INDEX][0] &&
                (m->row.index < sf->first || m->row.index >= sf->last))
                why = "outside the index range its summary gives";
            if (why)
                return pe_fail(err, PE_BAD_INPUT, sf->path, m->line, col + 1, "%s: %s",
                               pe_columns[col].name, why);
        }
    }
    *order_out = order;
    return PE_OK;
}

/* Rank and refuse a plan seen twice (overlapping shards, or one file
 * twice); *keep: the rows kept (--top). */
static pe_status rank_merged(merged_row *rows, size_t n, const pe_merge_options *opt,
                             size_t *keep, pe_error *err)
{
    qsort(rows, n, sizeof *rows, cmp_merged);
    char b1[96];
    for (size_t i = 1; i < n; i++)
        if (rows[i].cells[COL_PLAN_INDEX][0] &&
            strcmp(rows[i].cells[COL_PLAN_INDEX], rows[i - 1].cells[COL_PLAN_INDEX]) == 0 &&
            strcmp(rows[i].row.canon, rows[i - 1].row.canon) == 0)
            return pe_fail(err, PE_BAD_INPUT, rows[i].path, rows[i].line, COL_PLAN_INDEX + 1,
                           "plan index %s appears twice: the reports overlap (the same shard "
                           "or file given twice?)", report_quote_cell(rows[i].cells[COL_PLAN_INDEX], b1));
    *keep = opt->top_k && n > opt->top_k ? (size_t)opt->top_k : n;
    return PE_OK;
}

/* The Pareto-optimal rows among the n kept (pareto.h, as run marks
 * them): optimal[i], *count of them. */
static pe_status mark_pareto(const merged_row *rows, size_t n, const pe_rank_order *order,
                             bool *optimal, size_t *count, pe_error *err)
{
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    bool *eligible = malloc(n ? n : 1);
    pe_status st = x && y && eligible
                       ? PE_OK
                       : pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory finding the "
                                 "Pareto front");
    for (size_t i = 0; st == PE_OK && i < n; i++) {
        eligible[i] = rows[i].row.result.status == PE_STATUS_OK;
        x[i] = rows[i].row.result.mem_total_gib;
        y[i] = rank_pareto_value(order, &rows[i].row.result);
    }
    if (st == PE_OK)
        st = pareto_mark(x, y, eligible, n, optimal, count, err);
    free(x);
    free(y);
    free(eligible);
    return st;
}

/* The kept rows (only the optimal ones when only is given), renumbered,
 * into w; *written of them. */
static pe_status write_rows(pe_report *w, const merged_row *rows, size_t keep, const bool *only,
                            size_t *written, pe_error *err)
{
    pe_status st = PE_OK;
    *written = 0;
    for (size_t i = 0; st == PE_OK && i < keep; i++) {
        if (only && !only[i])
            continue;
        const char *cells[COL_COUNT];
        char rank[32];
        snprintf(rank, sizeof rank, "%zu", ++*written);
        memcpy(cells, rows[i].cells, sizeof cells);
        cells[COL_RANK] = rank;
        if (!report_cells_fit(cells, COL_COUNT))
            st = pe_fail(err, PE_BAD_INPUT, rows[i].path, rows[i].line, 1,
                         "row longer than a report row may be (%d bytes)", PE_REPORT_LINE_MAX);
        else
            st = report_write_cells(w, cells, COL_COUNT, err);
    }
    return st;
}

/* What the merged report's summary states (summary.h), as one run over
 * the whole sweep would: the shards' counts added up, their facts, the
 * best plan, rows and Pareto front of the merged rows. threads is theirs
 * when they agree (else empty); wall_s their wall times added up. */
static void merged_values(const shard_file *files, size_t count, const merged_row *rows,
                          size_t keep, pe_run_counts *counts, char threads[16],
                          pe_summary_values *v)
{
    const shard_file *a = &files[0];
    memset(counts, 0, sizeof *counts);
    *v = (pe_summary_values){.scenario = a->scenario, .scenario_crc = a->scenario_crc,
                             .last = a->total, .index_total = a->total, .counts = counts,
                             .facts = a->facts, .fact_count = a->fact_count,
                             .threads = threads, .best_plan = "", .best_status = ""};
    snprintf(threads, 16, "%s", a->threads);
    for (size_t f = 0; f < count; f++) {
        const pe_run_counts *c = &files[f].counts;
        counts->evaluated += c->evaluated;
        for (int k = 0; k < PE_SKIP_COUNT; k++)
            counts->skipped[k] += c->skipped[k];
        for (int k = 0; k < 4; k++)
            counts->by_status[k] += c->by_status[k];
        for (int r = 0; r < PE_RULE_COUNT; r++)
            counts->by_rule[r] += c->by_rule[r];
        if (strcmp(threads, files[f].threads) != 0)
            threads[0] = '\0';
        v->wall_s += files[f].wall_s;
    }
    v->plans_per_s = v->wall_s > 0 ? (double)counts->evaluated / v->wall_s : 0.0;
    if (keep && rows[0].row.key.status != PE_STATUS_INVALID) { /* as summary_best_row */
        v->best_plan = rows[0].cells[COL_PLAN];
        v->best_status = rows[0].cells[COL_STATUS];
    }
}

/* The merged report, and with a complete merge its summary beside it
 * (both renamed into place together); a partial merge's summary would
 * state counts that are not the sweep's, so none is written and a stale
 * one beside the output is removed. */
static pe_status write_merged(const shard_file *files, size_t count, const merged_row *rows,
                              size_t keep, const bool *optimal, size_t pareto, bool complete,
                              const pe_merge_options *opt, pe_merge_result *out, pe_error *err)
{
    pe_report *w = NULL, *summary = NULL;
    pe_status st = report_open(opt->output, &w, err);
    if (st == PE_OK)
        st = write_rows(w, rows, keep, opt->pareto ? optimal : NULL, &out->rows, err);
    const bool beside = summary_path_of(opt->output, out->summary, sizeof out->summary);
    if (st == PE_OK && complete && beside) {
        pe_run_counts counts;
        char threads[16];
        pe_summary_values v;
        merged_values(files, count, rows, keep, &counts, threads, &v);
        v.top_k = opt->top_k;
        v.rows_written = out->rows;
        v.pareto_optimal = pareto;
        v.report_crc = report_crc32(w);
        st = summary_open_values(out->summary, &v, &summary, err);
    }
    if (st != PE_OK) {
        report_abort(w);
        return st;
    }
    out->pareto_optimal = pareto;
    out->summary_written = summary != NULL;
    if (summary)
        return report_commit_pair(w, summary, err);
    st = report_commit(w, err);
    if (st == PE_OK && beside)
        remove(out->summary); /* stale: it would describe another report */
    if (!beside)
        out->summary[0] = '\0';
    return st;
}

/* Read, prove complete (or warn), rank, write. */
static pe_status merge(shard_file *files, size_t count, char *const *paths,
                       const pe_merge_options *opt, pe_merge_result *out, pe_error *err)
{
    verdict v = {.allow_partial = opt->allow_partial, .out = opt->warnings, .err = err};
    pe_status st = PE_OK;
    size_t total = 0;
    for (size_t f = 0; f < count && st == PE_OK; f++) {
        files[f].path = paths[f];
        st = report_read(files[f].path, &files[f].table, err);
        if (st == PE_OK)
            st = read_summary(&files[f], err);
        if (st == PE_OK)
            st = check_report(&files[f], &v, err);
        total += files[f].table.rows ? files[f].table.rows - 1 : 0;
    }
    if (st == PE_OK)
        st = check_tiling(files, count, opt->top_k, &v, err);
    if (st == PE_OK)
        st = v.st;
    merged_row *rows = st == PE_OK ? calloc(total ? total : 1, sizeof *rows) : NULL;
    bool *optimal = st == PE_OK ? malloc(total ? total : 1) : NULL;
    if (st == PE_OK && (!rows || !optimal))
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    size_t n = 0, keep = 0, pareto = 0;
    pe_rank_order order;
    if (st == PE_OK)
        st = collect_rows(files, count, rows, &n, &order, err);
    if (st == PE_OK)
        st = rank_merged(rows, n, opt, &keep, err);
    if (st == PE_OK)
        st = mark_pareto(rows, keep, &order, optimal, &pareto, err);
    if (st == PE_OK)
        st = write_merged(files, count, rows, keep, optimal, pareto, v.warnings == 0 && count,
                          opt, out, err);
    out->warnings = v.warnings;
    free(rows);
    free(optimal);
    return st;
}

pe_status merge_reports(char *const *paths, size_t count, const pe_merge_options *opt,
                        pe_merge_result *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    shard_file *sf = calloc(count ? count : 1, sizeof *sf);
    if (!sf)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    pe_status st = merge(sf, count, paths, opt, out, err);
    for (size_t f = 0; f < count; f++)
        csv_table_free(&sf[f].table);
    free(sf);
    return st;
}
