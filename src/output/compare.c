/* compare.c — `planeval compare` (compare.h): reports read back, the best
 * plan of each, the Pareto front of price, days and memory headroom. */
#include "output/compare.h"

#include <math.h>
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

/* The rank-1 row's figures into row (it is ok: ok plans rank first). */
static pe_status read_best(const pe_csv_table *t, const char *path, pe_compare_row *row,
                           pe_error *err)
{
    snprintf(row->scenario, sizeof row->scenario, "%s", csv_table_cell(t, 1, COL_SCENARIO));
    if (t->rows < 2 || strcmp(csv_table_cell(t, 1, COL_STATUS), "ok") != 0)
        return PE_OK; /* no plan fits: listed, never on the front */
    snprintf(row->plan, sizeof row->plan, "%s", csv_table_cell(t, 1, COL_PLAN));
    row->has_plan = true;
    double td = 0;
    const bool ok = cell_number(t, 1, COL_GPUS, &row->gpus) &&
                    cell_number(t, 1, COL_STEP_TIME_S, &row->step_time_s) &&
                    cell_number(t, 1, COL_MEM_HEADROOM_GIB, &row->headroom_gib) &&
                    cell_number(t, 1, COL_GOODPUT, &row->goodput);
    if (!ok)
        return pe_fail(err, PE_BAD_INPUT, path, t->lines[1], 0,
                       "not a number in the best plan's figures");
    if (!cell_number(t, 1, COL_TRAIN_DAYS, &td) || !cell_number(t, 1, COL_GPU_HOURS, &row->gpu_hours))
        return pe_fail(err, PE_BAD_INPUT, path, t->lines[1], 0,
                       "no train_days: compare needs the run's length (training.tokens)");
    row->days_effective = cell_number(t, 1, COL_EFFECTIVE_TRAIN_DAYS, &row->days);
    if (!row->days_effective)
        row->days = td;
    row->has_cost = cell_number(t, 1, COL_COST, &row->cost);
    row->has_energy = cell_number(t, 1, COL_ENERGY_MWH, &row->energy_mwh);
    return PE_OK;
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

void compare_write_text(FILE *out, const pe_compare_row *rows, size_t n, bool by_cost)
{
    fprintf(out, "%-8s %-32s %6s %10s %12s %8s %12s %10s %9s  %s\n", "pareto", "scenario",
            "gpus", "days", by_cost ? "cost" : "gpu_hours", "goodput", "energy_mwh",
            "headroom", "step_s", "best plan");
    for (size_t i = 0; i < n; i++) {
        const pe_compare_row *r = &rows[i];
        if (!r->has_plan) {
            fprintf(out, "%-8s %-32s no plan fits its budgets (%s)\n", "-", r->scenario,
                    r->report);
            continue;
        }
        char energy[32] = "-";
        if (r->has_energy)
            snprintf(energy, sizeof energy, "%.4g", r->energy_mwh);
        fprintf(out, "%-8s %-32s %6.0f %10.4g %12.4g %8.4f %12s %10.4g %9.4g  %s\n",
                r->pareto ? "yes" : "no", r->scenario, r->gpus, r->days,
                by_cost ? r->cost : r->gpu_hours, r->goodput, energy, r->headroom_gib,
                r->step_time_s, r->plan);
    }
    fprintf(out, "days: effective_train_days where the report has it (train_days / goodput, "
                 "docs/model.md §15); price: %s; pareto: no other cluster is no worse on "
                 "price, days and memory headroom and better on one\n",
            by_cost ? "the cost column" : "gpu_hours (not every report has a cost)");
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
    fprintf(fp, "<table id=\"compare\"><tr><th class=\"t\">pareto</th><th class=\"t\">scenario"
                "</th><th>gpus</th><th>days</th><th>%s</th><th>goodput</th><th>energy_mwh</th>"
                "<th>headroom GiB</th><th>step s</th><th class=\"t\">best plan</th></tr>\n",
            by_cost ? "cost" : "gpu_hours");
    for (size_t i = 0; i < n; i++) {
        const pe_compare_row *r = &rows[i];
        fprintf(fp, "<tr class=\"%s\"><td class=\"t\">%s</td><td class=\"t\">", r->pareto ? "pf" : "np",
                r->pareto ? "yes" : r->has_plan ? "no" : "-");
        html_text(fp, r->scenario);
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

/* v in [lo, hi] onto [a, b] (the middle when lo == hi). */
static double to_px(double v, double lo, double hi, double a, double b)
{
    return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : (a + b) / 2;
}

/* Price (x) against days (y), the front joined in order of price. */
static void write_scatter(FILE *fp, const pe_compare_row *rows, size_t n, bool by_cost)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (rows[i].has_plan) {
            x0 = fmin(x0, price_of(&rows[i], by_cost)), x1 = fmax(x1, price_of(&rows[i], by_cost));
            y0 = fmin(y0, rows[i].days), y1 = fmax(y1, rows[i].days);
        }
    if (!(x0 <= x1))
        return;
    const double L = 80, R = 700, T = 20, B = 380;
    fprintf(fp, "<svg id=\"sc\" width=\"960\" height=\"430\" viewBox=\"0 0 960 430\">"
                "<rect class=\"plot\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n", L - 20,
            T - 10, R - L + 40, B - T + 20);
    fprintf(fp, "<text x=\"%g\" y=\"415\">%s (%.4g to %.4g)</text>", L, by_cost ? "cost" : "gpu_hours",
            x0, x1);
    fprintf(fp, "<text x=\"4\" y=\"%g\">days</text><text x=\"4\" y=\"%g\">%.4g</text>"
                "<text x=\"4\" y=\"%g\">%.4g</text>\n", (T + B) / 2, B, y0, T + 4, y1);
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
        fprintf(fp, "%.1f,%.1f ", to_px(last, x0, x1, L, R), to_px(rows[k].days, y0, y1, B, T));
    }
    fputs("\"/>\n", fp);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].has_plan)
            continue;
        const double x = to_px(price_of(&rows[i], by_cost), x0, x1, L, R);
        const double y = to_px(rows[i].days, y0, y1, B, T);
        fprintf(fp, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/><text x=\"%.1f\" "
                    "y=\"%.1f\">", rows[i].pareto ? " pf" : "", x, y, x + 9, y + 4);
        html_text(fp, rows[i].scenario);
        fputs("</text>\n", fp);
    }
    fputs("</svg>\n", fp);
}

pe_status compare_write_html(const char *path, const pe_compare_row *rows, size_t n,
                             bool by_cost, pe_error *err)
{
    pe_atomic_file f;
    pe_status st = atomic_file_open(&f, path, err);
    if (st != PE_OK)
        return st;
    FILE *fp = f.fp;
    fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<title>planeval compare</title><style>%s</style></head><body>\n"
                "<h1>planeval compare: %zu reports</h1>\n"
                "<p class=\"note\">The best plan of each report (one cluster type each). "
                "Pareto-optimal (bold, outlined): no other is no worse on %s, days "
                "(effective_train_days, docs/model.md §15) and memory headroom and better on "
                "one.</p>\n",
            COMPARE_CSS, n, by_cost ? "cost" : "gpu_hours");
    write_table(fp, rows, n, by_cost);
    write_scatter(fp, rows, n, by_cost);
    fputs("</body></html>\n", fp);
    return atomic_file_commit(&f, err);
}
