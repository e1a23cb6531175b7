/* merge.c — `planeval merge REPORT.csv... -o FILE [--top K]`: join the
 * reports of the shards of one sweep into exactly the report one run gives.
 *
 * Every row carries what ranks it (status, the rank_by figures, the plan's
 * columns for its canonical text, its name and plan_index), so rows are
 * re-ranked with the run's own comparator (rank.h) and renumbered; the
 * numbers are parsed back from shortest round-trip text, hence bit-exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/columns.h"
#include "cli/commands.h"
#include "output/csvread.h"
#include "sweep/rank.h"
#include "output/report.h"

typedef struct {
    pe_row row;         /* what rank_compare reads: key, canon, name, index */
    const char *const *cells;
} merged_row;

/* A cell quoted for a message: control characters escaped, long text cut. */
static const char *shown(const char *cell, char buf[96])
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)cell; *c && n < 80; c++) {
        if (*c >= 0x20 && *c != 0x7f) {
            buf[n++] = (char)*c;
        } else {
            n += (size_t)snprintf(buf + n, 96 - n, "\\x%02x", *c);
        }
    }
    if (strlen(cell) > 80 && n < 92)
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    buf[n < 96 ? n : 95] = '\0';
    return buf;
}

static int cmp_merged(const void *a, const void *b)
{
    return rank_compare(&((const merged_row *)a)->row, &((const merged_row *)b)->row);
}

static int status_of(const char *s)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(s, pe_plan_status_name((pe_plan_status)k)) == 0)
            return k;
    return -1;
}

static int enum_of(const char *s, const char *(*name)(int), int count)
{
    for (int k = 0; k < count; k++)
        if (strcmp(s, name(k)) == 0)
            return k;
    return -1;
}
static const char *recompute_name(int v) { return pe_recompute_name((pe_recompute)v); }
static const char *schedule_name(int v) { return pe_schedule_name((pe_schedule)v); }

/* Fill m->row from one report row; NULL, or a message and the column. */
static const char *parse_row(const char *const *c, const pe_rank_order *order, merged_row *m,
                             int *col)
{
    memset(&m->row, 0, sizeof m->row);
    m->cells = c;
    int st = status_of(c[COL_STATUS]);
    *col = COL_STATUS;
    if (st < 0)
        return "unknown status";
    pe_plan p = {0};
    char *end;
    const int int_cols[] = {COL_DP, COL_TP, COL_PP, COL_CP, COL_ZERO, COL_MICRO_BATCH,
                            COL_VIRTUAL_STAGES};
    int64_t *int_fields[] = {&p.dp, &p.tp, &p.pp, &p.cp, &p.zero, &p.micro_batch,
                             &p.virtual_stages};
    for (size_t i = 0; i < sizeof int_cols / sizeof int_cols[0]; i++) {
        *col = int_cols[i];
        *int_fields[i] = strtoll(c[int_cols[i]], &end, 10);
        if (*end || !c[int_cols[i]][0])
            return "a plan column is not a whole number";
    }
    int rc = enum_of(c[COL_RECOMPUTE], recompute_name, 3);
    int sc = enum_of(c[COL_SCHEDULE], schedule_name, 5);
    *col = rc < 0 ? COL_RECOMPUTE : COL_SCHEDULE;
    if (rc < 0 || sc < 0)
        return "unknown recompute or schedule";
    p.recompute = (pe_recompute)rc;
    p.schedule = (pe_schedule)sc;
    p.sequence_parallel = strcmp(c[COL_SEQUENCE_PARALLEL], "true") == 0;
    plans_canonical(&p, m->row.canon, sizeof m->row.canon);
    m->row.name = strcmp(c[COL_PLAN], m->row.canon) == 0 ? NULL : c[COL_PLAN];
    m->row.key.status = (pe_plan_status)st;
    *col = COL_PLAN_INDEX;
    if (c[COL_PLAN_INDEX][0]) {
        m->row.index = strtoull(c[COL_PLAN_INDEX], &end, 10);
        if (*end || c[COL_PLAN_INDEX][0] == '-')
            return "plan_index is not a whole number";
    } else if (st != PE_STATUS_INVALID) {
        return "plan_index is empty (only invalid plans leave it empty)";
    }
    if (st == PE_STATUS_INVALID)
        return NULL; /* ordered by canonical text alone */
    /* the same keys rank_key_of takes from a result */
    pe_result r = {.status = (pe_plan_status)st};
    r.step_time_s = strtod(c[COL_STEP_TIME_S], NULL);
    r.mfu = strtod(c[COL_MFU], NULL);
    r.mem_total_gib = strtod(c[COL_MEM_TOTAL_GIB], NULL);
    r.train_days = strtod(c[COL_TRAIN_DAYS], NULL);
    r.interventions = atoi(c[COL_INTERVENTIONS]);
    rank_keys_of(order, &r, &m->row.key);
    return NULL;
}

static pe_status merge(const pe_file_list *files, const pe_command_options *opt, pe_error *err)
{
    pe_csv_table *tables = calloc(files->count, sizeof *tables);
    if (!tables)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    pe_status st = PE_OK;
    size_t total = 0, read = 0;
    for (; read < files->count && st == PE_OK; read++) {
        st = csv_table_read(files->paths[read], &tables[read], err);
        if (st != PE_OK)
            break;
        const pe_csv_table *t = &tables[read];
        if (t->rows == 0 || t->cols[0] != COL_COUNT)
            st = pe_fail(err, PE_BAD_INPUT, files->paths[read], 1, 1,
                         "not a planeval report: expected %d columns in the header", COL_COUNT);
        char b[96];
        for (int c = 0; st == PE_OK && c < COL_COUNT; c++)
            if (strcmp(t->cells[0][c], pe_columns[c].name) != 0)
                st = pe_fail(err, PE_BAD_INPUT, files->paths[read], t->lines[0], c + 1,
                             "not a planeval report of this version: column %d is '%s', "
                             "expected '%s'", c + 1, shown(t->cells[0][c], b), pe_columns[c].name);
        for (size_t r = 1; st == PE_OK && r < t->rows; r++)
            if (t->cols[r] != COL_COUNT)
                st = pe_fail(err, PE_BAD_INPUT, files->paths[read], t->lines[r], 1,
                             "row has %zu cells, expected %d", t->cols[r], COL_COUNT);
        total += t->rows - (st == PE_OK ? 1 : 0);
    }
    merged_row *rows = st == PE_OK ? calloc(total ? total : 1, sizeof *rows) : NULL;
    if (st == PE_OK && !rows)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    /* one scenario, one ranking */
    const char *scenario = NULL;
    const char *rank_by = NULL; /* the rows' rank_by text */
    pe_rank_order order = {{PE_RANK_STEP_TIME}, 1};
    size_t n = 0;
    for (size_t f = 0; st == PE_OK && f < files->count; f++) {
        const pe_csv_table *t = &tables[f];
        for (size_t r = 1; st == PE_OK && r < t->rows; r++) {
            const char *const *c = (const char *const *)t->cells[r];
            char b1[96], b2[96];
            if (!scenario)
                scenario = c[COL_SCENARIO];
            else if (strcmp(scenario, c[COL_SCENARIO]) != 0)
                st = pe_fail(err, PE_BAD_INPUT, files->paths[f], t->lines[r], COL_SCENARIO + 1,
                             "rows of two scenarios ('%s' and '%s'): merge joins the shards of "
                             "one sweep", shown(scenario, b1), shown(c[COL_SCENARIO], b2));
            if (st == PE_OK && c[COL_RANK_BY][0]) {
                if (!rank_order_parse(c[COL_RANK_BY], &order))
                    st = pe_fail(err, PE_BAD_INPUT, files->paths[f], t->lines[r],
                                 COL_RANK_BY + 1, "unknown rank_by '%s'",
                                 shown(c[COL_RANK_BY], b1));
                else if (rank_by && strcmp(rank_by, c[COL_RANK_BY]) != 0)
                    st = pe_fail(err, PE_BAD_INPUT, files->paths[f], t->lines[r],
                                 COL_RANK_BY + 1, "rank_by '%s' differs from the other rows' '%s'",
                                 shown(c[COL_RANK_BY], b1), shown(rank_by, b2));
                rank_by = c[COL_RANK_BY];
            }
        }
    }
    for (size_t f = 0; st == PE_OK && f < files->count; f++) {
        const pe_csv_table *t = &tables[f];
        for (size_t r = 1; st == PE_OK && r < t->rows; r++) {
            int col = 0;
            const char *why = parse_row((const char *const *)t->cells[r], &order, &rows[n], &col);
            if (why)
                st = pe_fail(err, PE_BAD_INPUT, files->paths[f], t->lines[r], col + 1,
                             "%s: %s", pe_columns[col].name, why);
            n++;
        }
    }
    if (st == PE_OK) {
        qsort(rows, n, sizeof *rows, cmp_merged);
        /* the same plan twice means overlapping shards (or one file twice) */
        char b1[96];
        for (size_t i = 1; st == PE_OK && i < n; i++)
            if (rows[i].cells[COL_PLAN_INDEX][0] &&
                strcmp(rows[i].cells[COL_PLAN_INDEX], rows[i - 1].cells[COL_PLAN_INDEX]) == 0 &&
                strcmp(rows[i].row.canon, rows[i - 1].row.canon) == 0)
                st = pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                             "plan index %s appears twice: the reports overlap (the same shard "
                             "or file given twice?)", shown(rows[i].cells[COL_PLAN_INDEX], b1));
    }
    if (st == PE_OK) {
        size_t keep = opt->top_k && n > opt->top_k ? (size_t)opt->top_k : n;
        pe_report *w = NULL;
        st = report_open(opt->output_dir, &w, err);
        for (size_t i = 0; st == PE_OK && i < keep; i++) {
            const char *cells[COL_COUNT];
            char rank[32];
            snprintf(rank, sizeof rank, "%zu", i + 1);
            memcpy(cells, rows[i].cells, sizeof cells);
            cells[COL_RANK] = rank;
            st = report_write_cells(w, cells, COL_COUNT, err);
        }
        if (st == PE_OK)
            st = report_commit(w, err);
        else
            report_abort(w);
        if (st == PE_OK && !opt->quiet)
            fprintf(stderr, "merged %zu rows of %zu reports into %s\n", keep, files->count,
                    opt->output_dir);
    }
    free(rows);
    for (size_t f = 0; f < files->count; f++)
        csv_table_free(&tables[f]);
    free(tables);
    return st;
}

int command_merge(const pe_catalog *catalog, const pe_file_list *files,
                  const pe_command_options *opt)
{
    (void)catalog;
    pe_error err = {0};
    pe_status st = PE_OK;
    if (!opt->output_given)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "merge needs -o FILE");
    else
        st = merge(files, opt, &err);
    if (st != PE_OK)
        opt->on_error(&err);
    return st;
}
