/* compare.c — `planeval compare` (compare.h): reports read back, the best
 * plan of each, the Pareto front of price, days and memory headroom. */
#include "output/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/columns.h"
#include "output/atomic_file.h"
#include "output/report_read.h"

/* A number cell of row r; false when empty or not a number. */
static bool cell_number(const pe_csv_table *t, size_t r, int col, double *v)
{
    const char *c = csv_table_cell(t, r, (size_t)col);
    return c[0] && report_cell_number(c, false, v);
}

/* The figures of report row r (an ok row) into row. */
static pe_status read_plan(const pe_csv_table *t, size_t r, const char *path,
                           pe_compare_row *row, pe_error *err)
{
    snprintf(row->plan, sizeof row->plan, "%s", csv_table_cell(t, r, COL_PLAN));
    row->has_plan = true;
    double td = 0;
    const bool ok = cell_number(t, r, COL_GPUS, &row->gpus) &&
                    cell_number(t, r, COL_STEP_TIME_S, &row->step_time_s) &&
                    cell_number(t, r, COL_MEM_HEADROOM_GIB, &row->headroom_gib) &&
                    cell_number(t, r, COL_GOODPUT, &row->goodput);
    if (!ok)
        return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], 0,
                       "not a number in the best plan's figures");
    if (!cell_number(t, r, COL_TRAIN_DAYS, &td) || !cell_number(t, r, COL_GPU_HOURS, &row->gpu_hours))
        return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], 0,
                       "no train_days: compare needs the run's length (training.tokens)");
    row->days_effective = cell_number(t, r, COL_EFFECTIVE_TRAIN_DAYS, &row->days);
    if (!row->days_effective)
        row->days = td;
    row->has_cost = cell_number(t, r, COL_COST, &row->cost);
    row->has_energy = cell_number(t, r, COL_ENERGY_MWH, &row->energy_mwh);
    return PE_OK;
}

/* The rank-1 row's figures into row (it is ok: ok plans rank first). */
static pe_status read_best(const pe_csv_table *t, const char *path, pe_compare_row *row,
                           pe_error *err)
{
    snprintf(row->scenario, sizeof row->scenario, "%s", csv_table_cell(t, 1, COL_SCENARIO));
    if (t->rows < 2 || strcmp(csv_table_cell(t, 1, COL_STATUS), "ok") != 0)
        return PE_OK; /* no plan fits: listed, never on the front */
    return read_plan(t, 1, path, row, err);
}

pe_status compare_read(const char *path, pe_compare_row *row, pe_error *err)
{
    memset(row, 0, sizeof *row);
    snprintf(row->report, sizeof row->report, "%s", path);
    pe_csv_table t;
    pe_status st = report_read(path, &t, err);
    if (st != PE_OK)
        return st;
    st = t.rows < 2 ? pe_fail(err, PE_BAD_INPUT, path, 1, 0, "a report with no plans")
                    : read_best(&t, path, row, err);
    csv_table_free(&t);
    return st;
}

/* The design-axis columns (docs/reports.md "The design and price of each
 * row"): those that vary within a report split it into designs. */
static const pe_column DESIGN_COLUMNS[] = {
    COL_CLUSTER, COL_NODES, COL_GLOBAL_BATCH, COL_SEQ_LEN, COL_FRAMEWORK,
    COL_INTRA_BANDWIDTH_GB_S, COL_INTRA_LINK_GB_S, COL_INTRA_LATENCY_US, COL_INTER_NIC_GB_S,
    COL_INTER_LATENCY_US, COL_OVERLAP_TP, COL_OVERLAP_CP, COL_OVERLAP_DP, COL_OVERLAP_PP,
    COL_OVERLAP_EP,
};
enum { DESIGN_COLUMN_COUNT = sizeof DESIGN_COLUMNS / sizeof DESIGN_COLUMNS[0] };

/* An invalid plan's design cells are empty (docs/reports.md): no design. */
static bool has_design(const pe_csv_table *t, size_t r)
{
    return strcmp(csv_table_cell(t, r, COL_STATUS), "invalid") != 0;
}

/* The first valid row of row r's cluster type among firsts[0..*n) (added
 * when new; past PE_COMPARE_TYPES_MAX types, the first of the last type). */
enum { PE_COMPARE_TYPES_MAX = 64 };
static size_t first_of_type(const pe_csv_table *t, size_t r, size_t firsts[], size_t *n)
{
    const char *type = csv_table_cell(t, r, COL_CLUSTER);
    for (size_t i = 0; i < *n; i++)
        if (strcmp(csv_table_cell(t, firsts[i], COL_CLUSTER), type) == 0)
            return firsts[i];
    if (*n < PE_COMPARE_TYPES_MAX)
        firsts[(*n)++] = r;
    return firsts[*n - 1];
}

/* Which design columns vary among the valid rows; false when none does.
 * The cluster type's own numbers (a preset's link bandwidth) are not
 * another axis: a column other than cluster varies when it differs
 * within one cluster type. */
static bool design_varies(const pe_csv_table *t, bool varies[DESIGN_COLUMN_COUNT])
{
    size_t firsts[PE_COMPARE_TYPES_MAX], types = 0, first = 0;
    bool any = false;
    for (size_t k = 0; k < DESIGN_COLUMN_COUNT; k++)
        varies[k] = false;
    for (size_t r = 1; r < t->rows; r++) {
        if (!has_design(t, r))
            continue;
        first = first ? first : r;
        const size_t same_type = first_of_type(t, r, firsts, &types);
        for (size_t k = 0; k < DESIGN_COLUMN_COUNT; k++) {
            const size_t col = (size_t)DESIGN_COLUMNS[k];
            const size_t ref = DESIGN_COLUMNS[k] == COL_CLUSTER ? first : same_type;
            if (!varies[k] && strcmp(csv_table_cell(t, r, col), csv_table_cell(t, ref, col)) != 0)
                varies[k] = any = true;
        }
    }
    return any;
}

/* Row r's design: the varying columns as "name=cell", space-separated. */
static void design_label(const pe_csv_table *t, size_t r, const bool varies[DESIGN_COLUMN_COUNT],
                         char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < DESIGN_COLUMN_COUNT && n < size; k++)
        if (varies[k])
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", n ? " " : "",
                                  pe_columns[DESIGN_COLUMNS[k]].name,
                                  csv_table_cell(t, r, (size_t)DESIGN_COLUMNS[k]));
}

static pe_compare_row *rows_append(pe_compare_rows *out)
{
    if (out->n == out->cap) {
        const size_t cap = out->cap ? 2 * out->cap : 16;
        pe_compare_row *grown = realloc(out->rows, cap * sizeof *grown);
        if (!grown)
            return NULL;
        out->rows = grown, out->cap = cap;
    }
    pe_compare_row *row = &out->rows[out->n++];
    memset(row, 0, sizeof *row);
    return row;
}

/* by cluster, then gpus, then the design's label (unique in a report) */
static int by_design(const void *pa, const void *pb)
{
    const pe_compare_row *a = pa, *b = pb;
    const int c = strcmp(a->cluster, b->cluster);
    if (c || a->gpus != b->gpus)
        return c ? c : a->gpus < b->gpus ? -1 : 1;
    return strcmp(a->design, b->design);
}

/* One row per design of t from out->rows[from] on: the design's first ok
 * row's figures (ok rows rank first), else its gpus only. */
static pe_status read_designs(const pe_csv_table *t, const char *path,
                              const bool varies[DESIGN_COLUMN_COUNT], pe_compare_rows *out,
                              size_t from, pe_error *err)
{
    char label[2 * PE_NAME_MAX];
    for (size_t r = 1; r < t->rows; r++) {
        if (!has_design(t, r))
            continue;
        design_label(t, r, varies, label, sizeof label);
        pe_compare_row *row = NULL;
        for (size_t i = from; i < out->n && !row; i++) /* designs are few */
            if (strcmp(out->rows[i].design, label) == 0)
                row = &out->rows[i];
        if (!row) {
            if (!(row = rows_append(out)))
                return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
            snprintf(row->report, sizeof row->report, "%s", path);
            snprintf(row->scenario, sizeof row->scenario, "%s", csv_table_cell(t, r, COL_SCENARIO));
            snprintf(row->design, sizeof row->design, "%s", label);
            snprintf(row->cluster, sizeof row->cluster, "%s", csv_table_cell(t, r, COL_CLUSTER));
            (void)cell_number(t, r, COL_GPUS, &row->gpus);
        }
        if (!row->has_plan && strcmp(csv_table_cell(t, r, COL_STATUS), "ok") == 0) {
            pe_status st = read_plan(t, r, path, row, err);
            if (st != PE_OK)
                return st;
        }
    }
    qsort(out->rows + from, out->n - from, sizeof *out->rows, by_design);
    return PE_OK;
}

pe_status compare_read_groups(const char *path, pe_compare_rows *out, pe_error *err)
{
    pe_csv_table t;
    pe_status st = report_read(path, &t, err);
    if (st != PE_OK)
        return st;
    bool varies[DESIGN_COLUMN_COUNT];
    if (t.rows < 2) {
        st = pe_fail(err, PE_BAD_INPUT, path, 1, 0, "a report with no plans");
    } else if (design_varies(&t, varies)) {
        st = read_designs(&t, path, varies, out, out->n, err);
    } else {
        pe_compare_row *row = rows_append(out);
        if (!row) {
            st = pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
        } else {
            snprintf(row->report, sizeof row->report, "%s", path);
            st = read_best(&t, path, row, err);
        }
    }
    csv_table_free(&t);
    return st;
}

/* a no worse than b on price, days and headroom, and better on one */
static bool dominates(const pe_compare_row *a, const pe_compare_row *b, bool by_cost)
{
    const double pa = by_cost ? a->cost : a->gpu_hours, pb = by_cost ? b->cost : b->gpu_hours;
    const bool no_worse = pa <= pb && a->days <= b->days && a->headroom_gib >= b->headroom_gib;
    return no_worse && (pa < pb || a->days < b->days || a->headroom_gib > b->headroom_gib);
}

void compare_pareto(pe_compare_row *rows, size_t n, bool *by_cost)
{
    bool cost = true, any = false;
    for (size_t i = 0; i < n; i++)
        if (rows[i].has_plan) {
            any = true;
            cost = cost && rows[i].has_cost;
        }
    *by_cost = any && cost;
    for (size_t i = 0; i < n; i++) {
        rows[i].pareto = rows[i].has_plan;
        for (size_t j = 0; j < n && rows[i].pareto; j++)
            if (j != i && rows[j].has_plan && dominates(&rows[j], &rows[i], *by_cost))
                rows[i].pareto = false;
    }
}

/* Whether any row is one design of a design sweep's report. */
static bool any_design(const pe_compare_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].design[0])
            return true;
    return false;
}

void compare_write_text(FILE *out, const pe_compare_row *rows, size_t n, bool by_cost)
{
    const bool designs = any_design(rows, n); /* else the columns of one report a cluster */
    fprintf(out, "%-8s %-32s ", "pareto", "scenario");
    if (designs)
        fprintf(out, "%-36s ", "design");
    fprintf(out, "%6s %10s %12s %8s %12s %10s %9s  %s\n", "gpus", "days",
            by_cost ? "cost" : "gpu_hours", "goodput", "energy_mwh", "headroom", "step_s",
            "best plan");
    for (size_t i = 0; i < n; i++) {
        const pe_compare_row *r = &rows[i];
        fprintf(out, "%-8s %-32s ", r->has_plan ? r->pareto ? "yes" : "no" : "-", r->scenario);
        if (designs)
            fprintf(out, "%-36s ", r->design[0] ? r->design : "-");
        if (!r->has_plan) {
            fprintf(out, "no plan fits its budgets (%s)\n", r->report);
            continue;
        }
        char energy[32] = "-";
        if (r->has_energy)
            snprintf(energy, sizeof energy, "%.4g", r->energy_mwh);
        fprintf(out, "%6.0f %10.4g %12.4g %8.4f %12s %10.4g %9.4g  %s\n", r->gpus, r->days,
                by_cost ? r->cost : r->gpu_hours, r->goodput, energy, r->headroom_gib,
                r->step_time_s, r->plan);
    }
    fprintf(out, "days: effective_train_days where the report has it (train_days / goodput, "
                 "docs/model.md §15); price: %s; pareto: no other %s is no worse on "
                 "price, days and memory headroom and better on one\n",
            by_cost ? "the cost column" : "gpu_hours (not every report has a cost)",
            designs ? "design" : "cluster");
}

/* ------------------------------------------------------------ the page */

static const char COMPARE_CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1020px}"
    "h1{font-size:22px;margin:0 0 4px}.note{color:#555;margin:2px 0}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
    "td.t,th.t{text-align:left}#compare td{border-top:1px solid #ddd}tr.pf td{font-weight:600}"
    "svg{font:11px system-ui,sans-serif;display:block}svg text{fill:#333}"
    ".plot{fill:#fafafa;stroke:#bbb}.pt{fill:#2a9d4b;fill-opacity:.75}"
    ".pt.pf{stroke:#000;stroke-width:1.2;fill-opacity:1}.front{fill:none;stroke:#000;stroke-width:1.5}";

/* s with &, <, >, " escaped. */
static void html_text(FILE *fp, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp); break;
        }
}

static double price_of(const pe_compare_row *r, bool by_cost) { return by_cost ? r->cost : r->gpu_hours; }

static void write_table(FILE *fp, const pe_compare_row *rows, size_t n, bool by_cost)
{
    const bool designs = any_design(rows, n); /* else the columns of one report a cluster */
    fprintf(fp, "<table id=\"compare\"><tr><th class=\"t\">pareto</th><th class=\"t\">scenario"
                "</th>%s<th>gpus</th><th>days</th><th>%s</th><th>goodput</th><th>energy_mwh</th>"
                "<th>headroom GiB</th><th>step s</th><th class=\"t\">best plan</th></tr>\n",
            designs ? "<th class=\"t\">design</th>" : "", by_cost ? "cost" : "gpu_hours");
    for (size_t i = 0; i < n; i++) {
        const pe_compare_row *r = &rows[i];
        fprintf(fp, "<tr class=\"%s\"><td class=\"t\">%s</td><td class=\"t\">", r->pareto ? "pf" : "np",
                r->pareto ? "yes" : r->has_plan ? "no" : "-");
        html_text(fp, r->scenario);
        if (designs) {
            fputs("</td><td class=\"t\">", fp);
            html_text(fp, r->design[0] ? r->design : "-");
        }
        if (!r->has_plan) {
            fputs("</td><td colspan=\"8\" class=\"t\">no plan fits its budgets</td></tr>\n", fp);
            continue;
        }
        fprintf(fp, "</td><td>%.0f</td><td>%.4g</td><td>%.4g</td><td>%.4f</td>", r->gpus, r->days,
                price_of(r, by_cost), r->goodput);
        if (r->has_energy)
            fprintf(fp, "<td>%.4g</td>", r->energy_mwh);
        else
            fputs("<td></td>", fp);
        fprintf(fp, "<td>%.4g</td><td>%.4g</td><td class=\"t\">", r->headroom_gib, r->step_time_s);
        html_text(fp, r->plan);
        fputs("</td></tr>\n", fp);
    }
    fputs("</table>\n", fp);
}

/* The series row r is drawn in: its design without the size (nodes), so
 * one line per cluster type runs through its sizes; a report of one
 * design is a series of its own, named by its scenario. */
static void series_key(const pe_compare_row *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const char *w = r->design; *w && n < size;) {
        const size_t len = strcspn(w, " ");
        if (strncmp(w, "nodes=", 6) != 0)
            n += (size_t)snprintf(buf + n, size - n, "%s%.*s", n ? " " : "", (int)len, w);
        w += len + (w[len] == ' ');
    }
    if (!buf[0])
        snprintf(buf, size, "%s", r->design[0] && r->cluster[0] ? r->cluster : r->scenario);
}

static const char *const SERIES_COLORS[] = {"#1f77b4", "#d62728", "#2a9d4b", "#9467bd",
                                            "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
enum { SERIES_COLOR_COUNT = sizeof SERIES_COLORS / sizeof SERIES_COLORS[0] };

/* Each row's series (0, 1, ... in order of first appearance; -1 without a
 * plan) into ids; the number of series. */
static int series_ids(const pe_compare_row *rows, size_t n, int *ids)
{
    int count = 0;
    char key[2 * PE_NAME_MAX], other[2 * PE_NAME_MAX];
    for (size_t i = 0; i < n; i++) {
        ids[i] = -1;
        if (!rows[i].has_plan)
            continue;
        series_key(&rows[i], key, sizeof key);
        for (size_t j = 0; j < i && ids[i] < 0; j++)
            if (ids[j] >= 0 && (series_key(&rows[j], other, sizeof other), strcmp(key, other) == 0))
                ids[i] = ids[j];
        if (ids[i] < 0)
            ids[i] = count++;
    }
    return count;
}

/* v in [lo, hi] onto [a, b] (the middle when lo == hi). */
static double to_px(double v, double lo, double hi, double a, double b)
{
    return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : (a + b) / 2;
}

/* The plot's box in pixels and the ranges it spans. */
typedef struct {
    double x0, x1, y0, y1;
} pe_compare_ranges;
static const double PLOT_L = 80, PLOT_R = 700, PLOT_T = 20, PLOT_B = 380;

static double x_px(const pe_compare_ranges *g, double price) { return to_px(price, g->x0, g->x1, PLOT_L, PLOT_R); }
static double y_px(const pe_compare_ranges *g, double days) { return to_px(days, g->y0, g->y1, PLOT_B, PLOT_T); }

enum { LEGEND_PER_ROW = 4 };

/* One polyline per series through its points in order of gpus (ties in
 * row order), and the legend naming each series in its colour. */
static void write_series(FILE *fp, const pe_compare_row *rows, size_t n, const int *ids,
                         int series, bool by_cost, const pe_compare_ranges *g)
{
    for (int s = 0; s < series; s++) {
        const char *color = SERIES_COLORS[s % SERIES_COLOR_COUNT];
        fprintf(fp, "<polyline class=\"series\" data-series=\"%d\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"1.5\" points=\"", s, color);
        for (size_t last = n, k;; last = k) { /* next after `last` in (gpus, row) order */
            k = n;
            for (size_t i = 0; i < n; i++) {
                if (ids[i] != s)
                    continue;
                const bool after = last == n || rows[i].gpus > rows[last].gpus ||
                                   (rows[i].gpus == rows[last].gpus && i > last);
                const bool before = k == n || rows[i].gpus < rows[k].gpus ||
                                    (rows[i].gpus == rows[k].gpus && i < k);
                if (after && before)
                    k = i;
            }
            if (k == n)
                break;
            fprintf(fp, "%.1f,%.1f ", x_px(g, price_of(&rows[k], by_cost)), y_px(g, rows[k].days));
        }
        fputs("\"/>\n", fp);
    }
    fputs("<g id=\"legend\">", fp);
    char key[2 * PE_NAME_MAX];
    for (int s = 0; s < series; s++) { /* below the plot, LEGEND_PER_ROW a row */
        size_t i = 0;
        while (ids[i] != s)
            i++;
        series_key(&rows[i], key, sizeof key);
        const int x = 80 + 220 * (s % LEGEND_PER_ROW), y = 430 + 18 * (s / LEGEND_PER_ROW);
        fprintf(fp, "<rect class=\"lg\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    "<text class=\"lg\" x=\"%d\" y=\"%d\">", x, y,
                SERIES_COLORS[s % SERIES_COLOR_COUNT], x + 18, y + 10);
        html_text(fp, key);
        fputs("</text>", fp);
    }
    fputs("</g>\n", fp);
}

/* Price (x) against days (y), the front joined in order of price; with
 * ids (a design sweep's rows), a line per series and a legend. */
static void write_scatter(FILE *fp, const pe_compare_row *rows, size_t n, bool by_cost,
                          const int *ids, int series)
{
    pe_compare_ranges g = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        if (rows[i].has_plan) {
            g.x0 = fmin(g.x0, price_of(&rows[i], by_cost)), g.x1 = fmax(g.x1, price_of(&rows[i], by_cost));
            g.y0 = fmin(g.y0, rows[i].days), g.y1 = fmax(g.y1, rows[i].days);
        }
    if (!(g.x0 <= g.x1))
        return;
    const double L = PLOT_L, R = PLOT_R, T = PLOT_T, B = PLOT_B;
    const int height = 430 + (ids ? 18 * ((series + LEGEND_PER_ROW - 1) / LEGEND_PER_ROW) : 0);
    fprintf(fp, "<svg id=\"sc\" width=\"960\" height=\"%d\" viewBox=\"0 0 960 %d\">"
                "<rect class=\"plot\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n", height,
            height, L - 20, T - 10, R - L + 40, B - T + 20);
    fprintf(fp, "<text x=\"%g\" y=\"415\">%s (%.4g to %.4g)</text>", L, by_cost ? "cost" : "gpu_hours",
            g.x0, g.x1);
    fprintf(fp, "<text x=\"4\" y=\"%g\">days</text><text x=\"4\" y=\"%g\">%.4g</text>"
                "<text x=\"4\" y=\"%g\">%.4g</text>\n", (T + B) / 2, B, g.y0, T + 4, g.y1);
    fputs("<polyline class=\"front\" points=\"", fp);
    /* the front in order of price: the rows are few, chosen one by one */
    for (double last = -INFINITY;;) {
        size_t k = n;
        for (size_t i = 0; i < n; i++)
            if (rows[i].pareto && price_of(&rows[i], by_cost) > last &&
                (k == n || price_of(&rows[i], by_cost) < price_of(&rows[k], by_cost)))
                k = i;
        if (k == n)
            break;
        last = price_of(&rows[k], by_cost);
        fprintf(fp, "%.1f,%.1f ", x_px(&g, last), y_px(&g, rows[k].days));
    }
    fputs("\"/>\n", fp);
    if (ids)
        write_series(fp, rows, n, ids, series, by_cost, &g);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].has_plan)
            continue;
        const double x = x_px(&g, price_of(&rows[i], by_cost)), y = y_px(&g, rows[i].days);
        fprintf(fp, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"", rows[i].pareto ? " pf" : "", x, y);
        if (ids)
            fprintf(fp, " data-series=\"%d\" style=\"fill:%s\"", ids[i], SERIES_COLORS[ids[i] % SERIES_COLOR_COUNT]);
        fprintf(fp, "/><text x=\"%.1f\" y=\"%.1f\">", x + 9, y + 4);
        html_text(fp, rows[i].design[0] ? rows[i].design : rows[i].scenario);
        fputs("</text>\n", fp);
    }
    fputs("</svg>\n", fp);
}

pe_status compare_write_html(const char *path, const pe_compare_row *rows, size_t n,
                             bool by_cost, pe_error *err)
{
    const bool designs = any_design(rows, n);
    int *ids = designs ? malloc((n ? n : 1) * sizeof *ids) : NULL;
    if (designs && !ids)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    pe_atomic_file f;
    pe_status st = atomic_file_open(&f, path, err);
    if (st != PE_OK) {
        free(ids);
        return st;
    }
    FILE *fp = f.fp;
    fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<title>planeval compare</title><style>%s</style></head><body>\n"
                "<h1>planeval compare: %zu %s</h1>\n"
                "<p class=\"note\">The best plan of each %s. "
                "Pareto-optimal (bold, outlined): no other is no worse on %s, days "
                "(effective_train_days, docs/model.md §15) and memory headroom and better on "
                "one.</p>\n",
            COMPARE_CSS, n, designs ? "designs" : "reports",
            designs ? "design (a design sweep's report split by the axes that vary in it; "
                      "a line per cluster type through its sizes)"
                    : "report (one cluster type each)",
            by_cost ? "cost" : "gpu_hours");
    write_table(fp, rows, n, by_cost);
    write_scatter(fp, rows, n, by_cost, ids, ids ? series_ids(rows, n, ids) : 0);
    free(ids);
    fputs("</body></html>\n", fp);
    return atomic_file_commit(&f, err);
}
