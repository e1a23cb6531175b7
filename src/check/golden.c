/* golden.c — a fresh report against a golden one, plan by plan (golden.h).
 *
 * Each row gets a key: its `plan` cell (an explicit plan's name, else its
 * full canonical text, tail included: -ep, -etp, -fs, -ls, -off) and the
 * canonical text of its plan rebuilt from the plan's columns (docs/scenarios.md:
 * dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-{schedule}-v{v}-sp{0|1},
 * which every row fills, invalid ones included). `plan_index` is not part of
 * the key and not compared: it is the plan's place in the enumeration, so
 * removing one plan renumbers every later one without changing any of them.
 * The fresh rows are sorted by key; each golden row, in golden order, takes
 * the first unused fresh row with its key. Columns are matched by header
 * name. The `rank` cell is not compared as a cell: a plan moved in rank is
 * one "moved" line, and a move is measured among the plans both reports
 * hold (a plan added or removed above does not move the ones below it). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/golden.h"
#include "core/columns.h"
#include "output/csvread.h"
#include "output/report_rows.h"
#include "sweep/rank.h"

#define NO_COLUMN SIZE_MAX

typedef struct {
    char *key;
    size_t row;
} keyed_row;

/* One report read back, with the columns the key is built from. */
typedef struct {
    pe_csv_table t;
    size_t plan, rank, plan_index;
    size_t canon[10]; /* dp tp pp cp zero recompute micro_batch schedule virtual_stages sp */
    size_t status;
    size_t rank_col[PE_RANK_KEY_MAX]; /* the rank_by figures, as rank.h compares them */
    size_t nrank;                     /* 0: no rank_by column, so no ties */
    keyed_row *keys;  /* rows 1.., sorted by key (fresh) or in row order (golden) */
    size_t nkeys;
} side;

static const char *const CANON_COLUMNS[10] = {
    "dp",          "tp",       "pp",             "cp",               "zero",
    "recompute",   "micro_batch", "schedule",    "virtual_stages",   "sequence_parallel"};

static size_t header_index(const pe_csv_table *t, const char *name)
{
    if (t->rows == 0)
        return NO_COLUMN;
    for (size_t c = 0; c < t->cols[0]; c++)
        if (strcmp(t->cells[0][c], name) == 0)
            return c;
    return NO_COLUMN;
}

static const char *cell(const side *s, size_t row, size_t col)
{
    return col == NO_COLUMN ? "" : csv_table_cell(&s->t, row, col);
}

/* The plan label used in messages: the `plan` cell. */
static const char *plan_of(const side *s, size_t row) { return cell(s, row, s->plan); }

/* "plan|canonical": the plan's name or text, and its degrees. */
static char *row_key(const side *s, size_t row)
{
    const char *v[10];
    for (int i = 0; i < 10; i++)
        v[i] = cell(s, row, s->canon[i]);
    const char *plan = plan_of(s, row);
    size_t n = strlen(plan) + 64;
    for (int i = 0; i < 10; i++)
        n += strlen(v[i]);
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s|dp%s-tp%s-pp%s-cp%s-z%s-%s-mb%s-%s-v%s-sp%d", plan, v[0], v[1], v[2],
                 v[3], v[4], v[5], v[6], v[7], v[8], strcmp(v[9], "true") == 0);
    return key;
}

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The column of a rank_by key's figure (docs/scenarios.md "The report"). */
static const char *rank_key_column(pe_rank_by by)
{
    switch (by) {
    case PE_RANK_MFU: return "mfu";
    case PE_RANK_MEMORY: return "mem_total_gib";
    case PE_RANK_TRAIN_DAYS: return "train_days";
    case PE_RANK_INTERVENTIONS: return "interventions";
    case PE_RANK_STEP_TIME: break;
    }
    return "step_time_s";
}

/* The figures the rows are ranked by, from the report's rank_by cells (an
 * invalid row leaves its cell empty: the first filled one). */
static void side_rank_columns(side *s)
{
    s->status = header_index(&s->t, "status");
    size_t by = header_index(&s->t, "rank_by");
    size_t r = 1;
    while (by != NO_COLUMN && r < s->t.rows && !cell(s, r, by)[0])
        r++;
    pe_rank_order o;
    if (by == NO_COLUMN || r >= s->t.rows || !rank_order_parse(cell(s, r, by), &o))
        return;
    for (size_t i = 0; i < o.count && s->nrank < PE_RANK_KEY_MAX; i++) {
        s->rank_col[s->nrank++] = header_index(&s->t, rank_key_column(o.by[i]));
        if (o.by[i] == PE_RANK_INTERVENTIONS && s->nrank < PE_RANK_KEY_MAX)
            s->rank_col[s->nrank++] = header_index(&s->t, "step_time_s"); /* then fastest */
    }
}

static void side_free(side *s)
{
    for (size_t i = 0; i < s->nkeys; i++)
        free(s->keys[i].key);
    free(s->keys);
    csv_table_free(&s->t);
}

/* Read a report and find the columns a key is built from. */
static pe_status side_read(const char *path, side *s, pe_error *err)
{
    memset(s, 0, sizeof *s);
    pe_status st = csv_table_read(path, &s->t, err);
    if (st != PE_OK)
        return st;
    s->plan = header_index(&s->t, "plan");
    s->rank = header_index(&s->t, "rank");
    s->plan_index = header_index(&s->t, "plan_index");
    for (int i = 0; i < 10; i++)
        s->canon[i] = header_index(&s->t, CANON_COLUMNS[i]);
    side_rank_columns(s);
    return PE_OK;
}

/* Key every row; `sorted` for the side that is searched (the fresh one). */
static pe_status side_key(side *s, bool sorted, pe_error *err)
{
    size_t n = s->t.rows ? s->t.rows - 1 : 0;
    s->keys = calloc(n ? n : 1, sizeof *s->keys);
    if (!s->keys)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    for (size_t r = 0; r < n; r++) {
        s->keys[r].row = r + 1;
        s->keys[r].key = row_key(s, r + 1);
        s->nkeys = r + 1;
        if (!s->keys[r].key)
            return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    if (sorted)
        qsort(s->keys, n, sizeof *s->keys, cmp_keyed);
    return PE_OK;
}

/* The first unused fresh row with this key, or 0 (row 0 is the header). */
static size_t take_match(const side *f, bool *used, const char *key)
{
    size_t lo = 0, hi = f->nkeys;
    while (lo < hi) { /* lower bound of key */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(f->keys[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < f->nkeys && strcmp(f->keys[lo].key, key) == 0; lo++)
        if (!used[lo]) {
            used[lo] = true;
            return f->keys[lo].row;
        }
    return 0;
}

static bool is_numeric(const char *name)
{
    int c = columns_find(name);
    return c >= 0 && (pe_columns[c].kind == PE_COL_NUMBER || pe_columns[c].kind == PE_COL_INT);
}

static bool cells_match(const char *a, const char *b, bool numeric, const pe_golden_options *o)
{
    if (strcmp(a, b) == 0)
        return true;
    if (!numeric || !a[0] || !b[0])
        return false;
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*ea || *eb)
        return false;
    return fabs(x - y) <= fmax(o->abs_tol, o->rel_tol * fmax(fabs(x), fabs(y)));
}

/* A row's place among the plans both reports hold, and the places of its
 * tie band (the run of rows it is tied with), by row. */
typedef struct {
    size_t *pos, *lo, *hi;
} places;

typedef struct {
    const char *golden;
    const pe_golden_options *opt;
    const side *g, *f;
    size_t *fresh_col; /* golden column → fresh column, or NO_COLUMN */
    size_t *fresh_of;  /* golden row → its fresh row, 0: removed */
    size_t *golden_of; /* fresh row → its golden row, 0: added */
    places gp, fp;     /* by golden row, by fresh row */
    uint64_t printed;  /* difference lines printed so far */
    pe_golden_diff *d;
} comparison;

/* One difference line, unless max_lines are printed already: then it is
 * counted by kind for the line that says what was left out. */
__attribute__((format(printf, 3, 4))) static void emit(comparison *c, pe_golden_kind kind,
                                                       const char *fmt, ...)
{
    if (c->opt->max_lines && c->printed >= c->opt->max_lines) {
        c->d->not_printed[kind]++;
        return;
    }
    c->printed++;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->opt->out, fmt, ap);
    va_end(ap);
}

/* Columns by name: one line for each only in one header, one if reordered. */
static void compare_headers(comparison *c)
{
    const pe_csv_table *g = &c->g->t, *f = &c->f->t;
    size_t gn = g->rows ? g->cols[0] : 0, fn = f->rows ? f->cols[0] : 0;
    bool reordered = false;
    for (size_t i = 0; i < gn; i++) {
        c->fresh_col[i] = header_index(f, g->cells[0][i]);
        if (c->fresh_col[i] == NO_COLUMN) {
            emit(c, PE_GOLDEN_COLUMN, "%s: column %s: in the golden report, not in the fresh one\n",
                 c->golden, g->cells[0][i]);
            c->d->columns++;
        } else if (c->fresh_col[i] != i) {
            reordered = true;
        }
    }
    for (size_t j = 0; j < fn; j++)
        if (header_index(g, f->cells[0][j]) == NO_COLUMN) {
            emit(c, PE_GOLDEN_COLUMN, "%s: column %s: in the fresh report, not in the golden one\n",
                 c->golden, f->cells[0][j]);
            c->d->columns++;
        }
    if (reordered && gn == fn && c->d->columns == 0) {
        emit(c, PE_GOLDEN_COLUMN, "%s: the columns are in another order\n", c->golden);
        c->d->columns++;
    }
}

/* How far a plan in both reports moved: the gap between its tie band's
 * places in the golden report and in the fresh one (0 when they overlap). */
static uint64_t move_of(const comparison *c, size_t gr, size_t fr)
{
    const places *g = &c->gp, *f = &c->fp;
    if (f->lo[fr] > g->hi[gr])
        return f->lo[fr] - g->hi[gr];
    if (g->lo[gr] > f->hi[fr])
        return g->lo[gr] - f->hi[fr];
    return 0;
}

/* One plan present in both: its rank, then every shared column but rank
 * and plan_index. */
static void compare_rows(comparison *c, size_t gr, size_t fr)
{
    const side *g = c->g, *f = c->f;
    const char *plan = plan_of(g, gr);
    if (move_of(c, gr, fr) > c->opt->rank_tol) {
        emit(c, PE_GOLDEN_MOVED, "%s: plan '%s': rank %s in the golden report, %s now\n",
             c->golden, plan, cell(g, gr, g->rank), cell(f, fr, f->rank));
        c->d->moved++;
    }
    size_t gn = g->t.cols[0];
    unsigned long long before = c->d->cells;
    for (size_t col = 0; col < gn; col++) {
        if (col == g->rank || col == g->plan_index || c->fresh_col[col] == NO_COLUMN)
            continue;
        const char *name = g->t.cells[0][col];
        const char *a = cell(g, gr, col), *b = cell(f, fr, c->fresh_col[col]);
        if (cells_match(a, b, is_numeric(name), c->opt))
            continue;
        c->d->cells++;
        emit(c, PE_GOLDEN_CELL, "%s: row %zu (plan '%s'), column %s: expected '%s', got '%s'\n",
             c->golden, gr, plan, name, a, b);
    }
    if (c->d->cells > before)
        c->d->plans++;
}

/* Two rows of one report tie: the same status and every rank_by figure
 * within the cell tolerance (empty cells, an invalid plan's, are equal). */
static bool tied(const side *s, size_t a, size_t b, const pe_golden_options *o)
{
    if (s->nrank == 0 || strcmp(cell(s, a, s->status), cell(s, b, s->status)) != 0)
        return false;
    for (size_t k = 0; k < s->nrank; k++)
        if (!cells_match(cell(s, a, s->rank_col[k]), cell(s, b, s->rank_col[k]), true, o))
            return false;
    return true;
}

/* The places of the rows with a partner, in row order (rank order), and
 * their tie bands: a band is a run of rows each tied with its first. */
static void place_rows(const side *s, const size_t *partner, const pe_golden_options *o,
                       places *p)
{
    size_t n = 0, first = 0, start = 0;
    for (size_t r = 1; r <= s->nkeys; r++) {
        if (!partner[r])
            continue;
        if (!first || !tied(s, first, r, o))
            first = r, start = n;
        p->pos[r] = n++;
        p->lo[r] = start;
    }
    size_t band = SIZE_MAX, end = 0;
    for (size_t r = s->nkeys; r >= 1; r--) {
        if (!partner[r])
            continue;
        if (p->lo[r] != band)
            band = p->lo[r], end = p->pos[r];
        p->hi[r] = end;
    }
}

/* Pair the rows (each golden row, in order, takes the first unused fresh
 * row with its key), then place the pairs in each report's row order. */
static void match_rows(comparison *c, bool *used)
{
    for (size_t i = 0; i < c->g->nkeys; i++) {
        size_t gr = c->g->keys[i].row;
        size_t fr = take_match(c->f, used, c->g->keys[i].key);
        c->fresh_of[gr] = fr;
        if (fr)
            c->golden_of[fr] = gr;
    }
    place_rows(c->g, c->fresh_of, c->opt, &c->gp);
    place_rows(c->f, c->golden_of, c->opt, &c->fp);
}

/* Every golden row in order, matched or removed; then the fresh rows left,
 * in the fresh report's order. */
static void compare_plans(comparison *c)
{
    for (size_t gr = 1; gr <= c->g->nkeys; gr++) {
        size_t fr = c->fresh_of[gr];
        if (fr) {
            compare_rows(c, gr, fr);
            continue;
        }
        emit(c, PE_GOLDEN_REMOVED, "%s: plan '%s' (golden row %zu): not in the fresh report\n",
             c->golden, plan_of(c->g, gr), gr);
        c->d->removed++;
    }
    for (size_t fr = 1; fr <= c->f->nkeys; fr++)
        if (!c->golden_of[fr]) {
            emit(c, PE_GOLDEN_ADDED, "%s: plan '%s' (row %zu): not in the golden report\n",
                 c->golden, plan_of(c->f, fr), fr);
            c->d->added++;
        }
}

bool golden_differs(const pe_golden_diff *d)
{
    return d->cells || d->moved || d->added || d->removed || d->columns;
}

/* What --max-lines left out, by kind. */
static void print_not_printed(const comparison *c)
{
    static const char *const what[PE_GOLDEN_KINDS] = {"differing cells", "rank moves",
                                                      "plans added", "plans removed", "columns"};
    const unsigned long long *n = c->d->not_printed;
    unsigned long long total = 0;
    for (int k = 0; k < PE_GOLDEN_KINDS; k++)
        total += n[k];
    if (!total)
        return;
    fprintf(c->opt->out, "%s: %llu more lines not printed (--max-lines %llu):", c->golden, total,
            (unsigned long long)c->opt->max_lines);
    const char *sep = " ";
    for (int k = 0; k < PE_GOLDEN_KINDS; k++)
        if (n[k]) {
            fprintf(c->opt->out, "%s%llu %s", sep, n[k], what[k]);
            sep = ", ";
        }
    fprintf(c->opt->out, "; --max-lines 0 prints every line\n");
}

/* Whether the first n rows of s all have a partner in the other report. */
static bool prefix_matched(const side *s, const size_t *partner, size_t n)
{
    for (size_t r = 1; r <= n && r <= s->nkeys; r++)
        if (!partner[r])
            return false;
    return true;
}

/* A golden report of the K best rows compared with more rows (no --top, or
 * a larger K), or one of more rows compared with --top K: the other plans
 * are not regressions, the --top is wrong. */
static void print_top_hint(const comparison *c)
{
    size_t ng = c->g->nkeys, nf = c->f->nkeys;
    unsigned long long k = c->opt->top_k;
    char now[48] = "without --top";
    if (k)
        snprintf(now, sizeof now, "with --top %llu", k);
    if (ng < nf && !c->d->removed && prefix_matched(c->f, c->golden_of, ng))
        fprintf(c->opt->out,
                "%s: hint: the golden report holds the %zu best plans of the %zu compared %s: "
                "if it was written with --top %zu, compare with --top %zu\n",
                c->golden, ng, nf, now, ng, ng);
    else if (k && ng > nf && !c->d->added && prefix_matched(c->g, c->fresh_of, nf))
        fprintf(c->opt->out,
                "%s: hint: the golden report has %zu rows, --top %llu compares %zu: if it was "
                "written without --top or with another K, compare with that --top\n",
                c->golden, ng, k, nf);
}

static void print_summary(const comparison *c)
{
    const pe_golden_diff *d = c->d;
    if (!golden_differs(d))
        return;
    print_not_printed(c);
    fprintf(c->opt->out,
            "%s: %llu cells differ in %llu plans; %llu plans moved in rank; %llu plans added, "
            "%llu removed; %llu columns differ (%zu golden rows; rel_tol %g, abs_tol %g, "
            "rank_tol %llu)\n",
            c->golden, d->cells, d->plans, d->moved, d->added, d->removed, d->columns,
            c->g->nkeys, c->opt->rel_tol, c->opt->abs_tol, (unsigned long long)c->opt->rank_tol);
    print_top_hint(c);
}

/* The comparison's arrays, one per row (and column) of each report. */
static size_t *new_array(size_t n) { return calloc(n + 1, sizeof(size_t)); }

static bool places_new(places *p, size_t n)
{
    p->pos = new_array(n), p->lo = new_array(n), p->hi = new_array(n);
    return p->pos && p->lo && p->hi;
}

static void places_free(places *p)
{
    free(p->pos);
    free(p->lo);
    free(p->hi);
}

static pe_status compare_sides(const char *golden, const side *g, const side *f,
                               const pe_golden_options *opt, pe_golden_diff *diff, pe_error *err)
{
    size_t gn = g->t.rows ? g->t.cols[0] : 0;
    comparison c = {.golden = golden, .opt = opt, .g = g, .f = f, .d = diff,
                    .fresh_col = new_array(gn), .fresh_of = new_array(g->nkeys),
                    .golden_of = new_array(f->nkeys)};
    bool *used = calloc(f->nkeys + 1, sizeof *used);
    bool placed = places_new(&c.gp, g->nkeys) & places_new(&c.fp, f->nkeys);
    pe_status st = PE_OK;
    if (!c.fresh_col || !c.fresh_of || !c.golden_of || !placed || !used) {
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    } else {
        compare_headers(&c);
        match_rows(&c, used);
        compare_plans(&c);
        print_summary(&c);
    }
    free(used);
    free(c.fresh_col);
    free(c.fresh_of);
    free(c.golden_of);
    places_free(&c.gp);
    places_free(&c.fp);
    return st;
}

pe_status golden_compare(const char *golden, const char *fresh, const pe_golden_options *opt,
                         pe_golden_diff *diff, pe_error *err)
{
    memset(diff, 0, sizeof *diff);
    side g, f;
    pe_status st = side_read(golden, &g, err);
    if (st != PE_OK)
        return st;
    st = side_read(fresh, &f, err);
    if (st != PE_OK) {
        side_free(&g);
        return st;
    }
    st = side_key(&g, false, err);
    if (st == PE_OK)
        st = side_key(&f, true, err);
    diff->golden_rows = g.nkeys;
    diff->fresh_rows = f.nkeys;
    if (st == PE_OK)
        st = compare_sides(golden, &g, &f, opt, diff, err);
    side_free(&g);
    side_free(&f);
    return st;
}

/* The run's first K rows (all with K 0): the rows are ranked, so these are
 * the rows `run --top K` writes. The copy shares the rows. */
static pe_run_result best_rows(const pe_run_result *rr, uint64_t top_k)
{
    pe_run_result top = *rr;
    if (top_k && top_k < top.row_count)
        top.row_count = (size_t)top_k;
    return top;
}

pe_status golden_write_run(const char *golden, const pe_plan_space *space, const pe_eval_ctx *ctx,
                           const pe_run_result *rr, uint64_t top_k, int threads, pe_error *err)
{
    pe_run_result top = best_rows(rr, top_k);
    return report_write_ranked(golden, space, ctx, &top, threads, err);
}

pe_status golden_compare_run(const char *golden, const char *name, const pe_plan_space *space,
                             const pe_eval_ctx *ctx, const pe_run_result *rr, int threads,
                             const pe_golden_options *opt, pe_golden_diff *diff, pe_error *err)
{
    memset(diff, 0, sizeof *diff);
    char dir[] = "/tmp/planeval-check-XXXXXX";
    if (!mkdtemp(dir))
        return pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot create a temporary directory");
    char fresh[PE_PATH_MAX];
    snprintf(fresh, sizeof fresh, "%s/%s.csv", dir, name);
    pe_status st = golden_write_run(fresh, space, ctx, rr, opt->top_k, threads, err);
    if (st == PE_OK)
        st = golden_compare(golden, fresh, opt, diff, err);
    remove(fresh);
    rmdir(dir);
    return st;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether entry is NAME.csv for one of names (a golden report checked). */
static bool written_by(const char *entry, const char *const *names, size_t n)
{
    size_t len = strlen(entry);
    for (size_t i = 0; i < n; i++)
        if (len == strlen(names[i]) + 4 && strncmp(entry, names[i], len - 4) == 0)
            return true;
    return false;
}

/* dir/entry when it is a golden report (a regular *.csv file, not a
 * temporary ".x.tmp" one) no name writes; NULL when not, or out of memory
 * (*oom set). */
static char *stale_path(const char *dir, const char *entry, const char *const *names, size_t n,
                        bool *oom)
{
    size_t len = strlen(entry);
    if (entry[0] == '.' || len < 5 || strcmp(entry + len - 4, ".csv") != 0 ||
        written_by(entry, names, n))
        return NULL;
    size_t size = strlen(dir) + len + 2;
    char *path = malloc(size);
    struct stat st;
    if (!path)
        *oom = true;
    else if (snprintf(path, size, "%s/%s", dir, entry) < 0 || stat(path, &st) != 0 ||
             !S_ISREG(st.st_mode)) {
        free(path);
        path = NULL;
    }
    return path;
}

pe_status golden_stale(const char *dir, const char *const *names, size_t n, char ***stale,
                       size_t *count, pe_error *err)
{
    *stale = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? PE_OK
                               : pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot read the golden "
                                         "directory: %s", strerror(errno));
    size_t cap = 0;
    bool oom = false;
    for (struct dirent *e; !oom && (e = readdir(d)) != NULL;) {
        char *path = stale_path(dir, e->d_name, names, n, &oom);
        if (!path)
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 8;
            char **grown = realloc(*stale, cap * sizeof *grown);
            if (!grown) {
                free(path);
                oom = true;
                break;
            }
            *stale = grown;
        }
        (*stale)[(*count)++] = path;
    }
    closedir(d);
    if (oom)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    if (*count)
        qsort(*stale, *count, sizeof **stale, cmp_text);
    return PE_OK;
}
