/* html.c — the HTML page of a report (html.h): facts and counts, the
 * scatter with budgets and Pareto front, the Pareto table, stacked bars. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/html.h"
#include "output/atomic_file.h"
#include "sweep/pareto.h"

/* ------------------------------------------------------------ text */

/* s with &, <, >, " escaped. */
static void put_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp); break;
        }
    }
}

/* A figure for people: 4 significant digits; whole below 10^9 from 10^4
 * (71220 tokens/s, not 7.122e+04). */
static const char *fig(double x, char buf[32])
{
    if (fabs(x) >= 1e4 && fabs(x) < 1e9)
        snprintf(buf, 32, "%.0f", x);
    else
        snprintf(buf, 32, "%.4g", x);
    return buf;
}

/* Whether the page writes "name = canonical text": the plan has a name and
 * its canonical text is known (html.h). */
static bool shows_canon(const pe_html_point *q)
{
    return q->canon[0] && strcmp(q->plan, q->canon) != 0;
}

static const char *const STATUS_CLASS[] = {"ok", "ot", "om", "iv"};
/* by pe_bound: circle, square, triangle, and a diamond for the optimizer
 * step whether on the GPU or the host */
static const char *const BOUND_MARK[] = {"mc", "mm", "mb", "md", "md"};
/* docs/model.md S1′: step_time_s is these columns' sum, so each is a segment of
 * a time bar and the bar's length is the step time. */
static const char *const TIME_NAMES[PE_HTML_TIME_PARTS] = {
    "compute_s", "tp_comm_s", "cp_comm_s", "bubble_s",
    "pp_comm_s", "dp_comm_s", "optimizer_s", "ep_comm_s"};
static const char *const MEM_NAMES[] = {"mem_weights_gib", "mem_grads_gib",
                                        "mem_optimizer_gib", "mem_activations_gib",
                                        "mem_other_gib", "mem_reserve_gib"};
static const char *const SEGMENT_COLOURS[PE_HTML_TIME_PARTS] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

void html_point_of_row(const pe_row *row, uint64_t rank, pe_html_point *out)
{
    const pe_result *r = &row->result;
    memset(out, 0, sizeof *out);
    out->plan = row->name ? row->name : row->canon;
    memcpy(out->canon, row->canon, sizeof out->canon);
    out->rank = rank;
    out->status = r->status;
    out->bound = r->bound;
    const double mem[6] = {r->mem_weights_gib,     r->mem_grads_gib, r->mem_optimizer_gib,
                           r->mem_activations_gib, r->mem_other_gib, r->mem_reserve_gib};
    const double time[PE_HTML_TIME_PARTS] = {r->compute_s, r->tp_comm_s, r->cp_comm_s,
                                             r->bubble_s,  r->pp_comm_s, r->dp_comm_s,
                                             r->optimizer_s, r->ep_comm_s};
    memcpy(out->mem, mem, sizeof mem);
    memcpy(out->time, time, sizeof time);
    out->mem_total = r->mem_total_gib;
    out->step_time = r->step_time_s;
    out->tokens_per_s = r->tokens_per_s;
    out->mfu = r->mfu;
    out->has_interval = r->has_interval; /* S6 */
    out->step_time_lo = r->step_time_lo_s;
    out->step_time_hi = r->step_time_hi_s;
    /* M23: the peak's ratios carried to the total the memory bar shows */
    out->has_mem_interval = r->has_mem_interval && r->mem_peak_gib > 0;
    out->mem_total_lo = out->has_mem_interval
                            ? r->mem_total_gib * (r->mem_peak_lo_gib / r->mem_peak_gib) : 0.0;
    out->mem_total_hi = out->has_mem_interval
                            ? r->mem_total_gib * (r->mem_peak_hi_gib / r->mem_peak_gib) : 0.0;
}

/* ------------------------------------------------------------ scales */

typedef struct {
    double lo, hi; /* data range shown */
    bool log;
    double a, b; /* pixels of lo and hi */
} scale;

/* A range with room around the data; logarithmic when it spans more than
 * a factor of 20. */
static void scale_fit(scale *s, double lo, double hi, double a, double b)
{
    s->a = a;
    s->b = b;
    s->log = lo > 0 && hi / lo > 20;
    if (s->log) {
        s->lo = lo / 1.25;
        s->hi = hi * 1.25;
        return;
    }
    double pad = (hi - lo) * 0.06;
    if (pad <= 0)
        pad = fabs(hi) * 0.1 + (hi == 0);
    s->lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
    s->hi = hi + pad;
}

static double scale_px(const scale *s, double v)
{
    double t = s->log ? (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo))
                      : (v - s->lo) / (s->hi - s->lo);
    return s->a + t * (s->b - s->a);
}

/* Tick values: 1-2-5 in each decade (log), or a 1-2-5 step (linear). */
static size_t scale_ticks(const scale *s, double *out, size_t max)
{
    size_t n = 0;
    if (s->log) {
        static const double mult[] = {1, 2, 5};
        double span = log10(s->hi) - log10(s->lo);
        for (int e = (int)floor(log10(s->lo)); e <= (int)ceil(log10(s->hi)); e++)
            for (int k = 0; k < 3; k++) {
                double v = mult[k] * pow(10, e);
                if (v >= s->lo && v <= s->hi && n < max && (k == 0 || span < 4))
                    out[n++] = v;
            }
        return n;
    }
    double raw = (s->hi - s->lo) / 6, p = pow(10, floor(log10(raw))), step = p;
    if (raw / p > 5)
        step = 10 * p;
    else if (raw / p > 2)
        step = 5 * p;
    else if (raw / p > 1)
        step = 2 * p;
    for (double v = ceil(s->lo / step) * step; v <= s->hi && n < max; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* ------------------------------------------------------------ the scatter */

enum { W = 960, H = 600, ML = 78, MR = 24, MT = 56, MB = 52 };

typedef struct {
    scale x1, x2, y; /* x: step time, tokens/s (the other view); y: memory */
    double tokens_per_step; /* B·s: step-time budget in tokens/s */
} axes;

static bool drawable(const pe_html_point *p)
{
    return p->status != PE_STATUS_INVALID && p->step_time > 0 && p->tokens_per_s > 0 &&
           p->mem_total > 0 && isfinite(p->step_time) && isfinite(p->mem_total);
}

static bool fit_axes(const pe_html_page *page, const pe_html_point *p, size_t n, axes *ax)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {0, 0, 0};
    ax->tokens_per_step = 0;
    for (size_t i = 0; i < n; i++) {
        if (!drawable(&p[i]))
            continue;
        const double v[3] = {p[i].step_time, p[i].tokens_per_s, p[i].mem_total};
        for (int k = 0; k < 3; k++) {
            lo[k] = v[k] < lo[k] ? v[k] : lo[k];
            hi[k] = v[k] > hi[k] ? v[k] : hi[k];
        }
        ax->tokens_per_step = p[i].tokens_per_s * p[i].step_time;
    }
    if (hi[0] == 0)
        return false; /* nothing to draw */
    if (page->mem_budget_gib > 0) { /* keep the budget line in view */
        lo[2] = page->mem_budget_gib < lo[2] ? page->mem_budget_gib : lo[2];
        hi[2] = page->mem_budget_gib > hi[2] ? page->mem_budget_gib : hi[2];
    }
    if (page->step_budget_s > 0) {
        double t = ax->tokens_per_step / page->step_budget_s;
        lo[0] = page->step_budget_s < lo[0] ? page->step_budget_s : lo[0];
        hi[0] = page->step_budget_s > hi[0] ? page->step_budget_s : hi[0];
        lo[1] = t < lo[1] ? t : lo[1];
        hi[1] = t > hi[1] ? t : hi[1];
    }
    scale_fit(&ax->x1, lo[0], hi[0], ML, W - MR);
    scale_fit(&ax->x2, lo[1], hi[1], ML, W - MR);
    scale_fit(&ax->y, lo[2], hi[2], H - MB, MT);
    return true;
}

/* Ticks and grid of one x view (class ax1 or ax2) or of the y axis. */
static void write_ticks(FILE *fp, const scale *s, bool vertical_axis, const char *cls,
                        const char *label)
{
    double t[64];
    size_t n = scale_ticks(s, t, 64);
    char b[32];
    fprintf(fp, "<g class=\"%s\">", cls);
    for (size_t i = 0; i < n; i++) {
        double px = scale_px(s, t[i]);
        if (vertical_axis)
            fprintf(fp, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                    ML, W - MR, px, px, ML - 6, px + 4, fig(t[i], b));
        else
            fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    px, px, MT, H - MB, px, H - MB + 16, fig(t[i], b));
    }
    if (vertical_axis)
        fprintf(fp, "<text class=\"lab\" transform=\"translate(16,%d) rotate(-90)\" "
                    "text-anchor=\"middle\">%s</text>", (MT + H - MB) / 2, label);
    else
        fprintf(fp, "<text class=\"lab\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                (ML + W - MR) / 2, H - 10, label);
    fputs("</g>\n", fp);
}

static void write_budget_lines(FILE *fp, const pe_html_page *page, const axes *ax)
{
    char b[32];
    if (page->mem_budget_gib > 0) {
        double y = scale_px(&ax->y, page->mem_budget_gib);
        fprintf(fp, "<g class=\"budget\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">memory budget %s GiB</text></g>\n",
                ML, W - MR, y, y, W - MR - 4, y - 5, fig(page->mem_budget_gib, b));
    }
    if (page->step_budget_s > 0) {
        const double x[2] = {scale_px(&ax->x1, page->step_budget_s),
                             scale_px(&ax->x2, ax->tokens_per_step / page->step_budget_s)};
        fig(page->step_budget_s, b);
        for (int k = 0; k < 2; k++) {
            /* right of the line, or left of it where the text (about 6 px a
             * character) would run past the plot */
            const bool left = x[k] + 4 + 6.0 * (double)(strlen(b) + 19) > W - MR;
            fprintf(fp, "<g class=\"budget ax%d\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
                        "y2=\"%d\"/><text x=\"%.1f\" y=\"%d\"%s>step-time budget %s s</text></g>\n",
                    k + 1, x[k], x[k], MT, H - MB, left ? x[k] - 4 : x[k] + 4, MT + 12,
                    left ? " text-anchor=\"end\"" : "", b);
        }
    }
}

/* The front as a staircase through the Pareto points in order of step
 * time (least memory, least step time), in both x views. */
static void write_front(FILE *fp, const pe_html_point *p, const size_t *front, size_t nf,
                        const axes *ax)
{
    for (int view = 0; view < 2 && nf; view++) {
        const scale *sx = view ? &ax->x2 : &ax->x1;
        fprintf(fp, "<path class=\"front ax%d\" d=\"", view + 1);
        for (size_t k = 0; k < nf; k++) {
            const pe_html_point *q = &p[front[k]];
            double x = scale_px(sx, view ? q->tokens_per_s : q->step_time);
            double y = scale_px(&ax->y, q->mem_total);
            if (k == 0)
                fprintf(fp, "M%.1f,%.1f", x, y);
            else
                fprintf(fp, "H%.1fV%.1f", x, y);
        }
        fputs("\"/>\n", fp);
    }
}

/* A point; its hover text is tips[index] (write_tips), shown by the
 * script: a <title> per point doubled the page's elements and its time to
 * render. */
static void write_point(FILE *fp, const pe_html_point *q, bool pareto, size_t index,
                        const axes *ax)
{
    fprintf(fp, "<use href=\"#%s\" class=\"%s%s\" x=\"%.1f\" y=\"%.1f\" data-x2=\"%.1f\" "
                "data-i=\"%zu\"/>\n",
            BOUND_MARK[q->bound], STATUS_CLASS[q->status], pareto ? " pf" : "",
            scale_px(&ax->x1, q->step_time), scale_px(&ax->y, q->mem_total),
            scale_px(&ax->x2, q->tokens_per_s), index);
}

/* s as the inside of a JSON string in a <script> element: quotes,
 * backslashes and control characters escaped, and '<' (no "</script>"). */
static void put_json_text(FILE *fp, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c < 0x20 || c == '<' || c == 0x7f)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
}

/* The hover text of each drawn point, in selection order, as JSON. */
static void write_tips(FILE *fp, const pe_html_point *p, const bool *pareto, const size_t *drawn,
                       const uint64_t *others, size_t count)
{
    fputs("<script type=\"application/json\" id=\"tips\">[", fp);
    for (size_t k = 0; k < count; k++) {
        const pe_html_point *q = &p[drawn[k]];
        char b1[32], b2[32], b3[32], line[256];
        fprintf(fp, "%s\"#%llu ", k ? ",\n" : "", (unsigned long long)q->rank);
        put_json_text(fp, q->plan);
        if (shows_canon(q)) {
            fputs(" = ", fp);
            put_json_text(fp, q->canon);
        }
        snprintf(line, sizeof line, "\n%s GiB, %s s, %s tok/s, %s, %s%s", fig(q->mem_total, b1),
                 fig(q->step_time, b2), fig(q->tokens_per_s, b3), pe_plan_status_name(q->status),
                 pe_bound_name(q->bound), pareto[drawn[k]] ? ", Pareto" : "");
        put_json_text(fp, line);
        if (others[k]) {
            snprintf(line, sizeof line, "\n+%llu more nearby", (unsigned long long)others[k]);
            put_json_text(fp, line);
        }
        fputc('"', fp);
    }
    fputs("]</script>\n", fp);
}

static const char SCATTER_DEFS[] =
    "<defs><circle id=\"mc\" r=\"3.6\"/><rect id=\"mm\" x=\"-3.2\" y=\"-3.2\" width=\"6.4\" "
    "height=\"6.4\"/><path id=\"mb\" d=\"M0,-4.4L3.9,2.6H-3.9Z\"/>"
    "<path id=\"md\" d=\"M0,-4.4L4.4,0L0,4.4L-4.4,0Z\"/></defs>\n";

/* ------------------------------------------------------------ choosing points */

typedef struct {
    size_t *drawn; /* indices of the points drawn, in rank order */
    uint64_t *others; /* per drawn point: plans of its grid cell not drawn */
    size_t count;
    size_t drawable;
    int grid_x, grid_y; /* 0: every point drawn */
} selection;

/* One pass: the Pareto points, the plans of the bars and the best-ranked
 * point of each cell of a gx × gy grid per status of the step-time view
 * (owner: 3·gx·gy cells). */
static void bin_points(const pe_html_point *p, size_t n, const bool *pareto, const bool *in_bars,
                       const axes *ax, int gx, int gy, size_t *owner, selection *sel)
{
    size_t cells = (size_t)3 * (size_t)gx * (size_t)gy;
    for (size_t c = 0; c < cells; c++)
        owner[c] = SIZE_MAX;
    sel->count = 0;
    memset(sel->others, 0, sel->drawable * sizeof *sel->others);
    for (size_t i = 0; i < n; i++) {
        if (!drawable(&p[i]))
            continue;
        if (pareto[i] || in_bars[i]) {
            sel->drawn[sel->count++] = i;
            continue;
        }
        double fx = (scale_px(&ax->x1, p[i].step_time) - ML) / (W - MR - ML);
        double fy = (scale_px(&ax->y, p[i].mem_total) - MT) / (H - MB - MT);
        size_t cx = fx <= 0 ? 0 : fx >= 1 ? (size_t)gx - 1 : (size_t)(fx * gx);
        size_t cy = fy <= 0 ? 0 : fy >= 1 ? (size_t)gy - 1 : (size_t)(fy * gy);
        size_t c = ((size_t)p[i].status * (size_t)gy + cy) * (size_t)gx + cx;
        if (owner[c] == SIZE_MAX) { /* rank order: the first is the best */
            owner[c] = sel->count;
            sel->drawn[sel->count++] = i;
        } else {
            sel->others[owner[c]]++;
        }
    }
}

/* Every drawable point, or — past PE_HTML_MAX_POINTS — the finest grid
 * (about a pixel a cell, then coarser) whose cells keep the drawing
 * within PE_HTML_MAX_POINTS. */
static bool select_points(const pe_html_point *p, size_t n, const bool *pareto,
                          const bool *in_bars, const axes *ax, selection *sel)
{
    static const int grids[][2] = {{432, 246}, {305, 174}, {216, 123}, {108, 62}, {54, 31}};
    memset(sel, 0, sizeof *sel);
    for (size_t i = 0; i < n; i++)
        sel->drawable += drawable(&p[i]);
    size_t m = sel->drawable ? sel->drawable : 1;
    sel->drawn = malloc(m * sizeof *sel->drawn);
    sel->others = calloc(m, sizeof *sel->others);
    if (!sel->drawn || !sel->others)
        return false;
    if (sel->drawable <= PE_HTML_MAX_POINTS) {
        for (size_t i = 0; i < n; i++)
            if (drawable(&p[i]))
                sel->drawn[sel->count++] = i;
        return true;
    }
    size_t *owner = malloc((size_t)3 * grids[0][0] * grids[0][1] * sizeof *owner);
    if (!owner)
        return false;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        sel->grid_x = grids[g][0];
        sel->grid_y = grids[g][1];
        bin_points(p, n, pareto, in_bars, ax, sel->grid_x, sel->grid_y, owner, sel);
        if (sel->count <= PE_HTML_MAX_POINTS)
            break;
    }
    free(owner);
    return true;
}

static void write_legend(FILE *fp)
{
    static const char *const status_text[] = {"ok", "over_time", "over_memory"};
    static const char *const bound_text[] = {"compute-bound", "communication-bound",
                                             "bubble-bound", "optimizer- or host-bound"};
    fprintf(fp, "<g class=\"legend\" transform=\"translate(%d,16)\">", ML + 8);
    for (int k = 0; k < 3; k++)
        fprintf(fp, "<use href=\"#mc\" class=\"%s\" x=\"%d\" y=\"0\"/><text x=\"%d\" y=\"4\">%s</text>",
                STATUS_CLASS[k], k * 120, k * 120 + 8, status_text[k]);
    for (int k = 0; k < 4; k++)
        fprintf(fp, "<use href=\"#%s\" class=\"lg\" x=\"%d\" y=\"18\"/><text x=\"%d\" y=\"22\">%s</text>",
                BOUND_MARK[k], k * 160, k * 160 + 8, bound_text[k]);
    fputs("<path class=\"front\" d=\"M500,0H540\"/><text x=\"546\" y=\"4\">Pareto front</text>"
          "</g>\n", fp);
}

static void write_scatter(FILE *fp, const pe_html_page *page, const pe_html_point *p,
                          const bool *pareto, const size_t *front, size_t nf,
                          const selection *sel, const axes *ax)
{
    fprintf(fp, "<svg id=\"sc\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                "role=\"img\" aria-label=\"memory per GPU against step time\">\n%s",
            W, H, W, H, SCATTER_DEFS);
    fprintf(fp, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    write_ticks(fp, &ax->y, true, "axy", "memory per GPU (GiB)");
    write_ticks(fp, &ax->x1, false, "ax1",
                ax->x1.log ? "step time (s, log scale)" : "step time (s)");
    write_ticks(fp, &ax->x2, false, "ax2",
                ax->x2.log ? "tokens/s (log scale)" : "tokens/s");
    write_budget_lines(fp, page, ax);
    fputs("<g id=\"pts\">\n", fp);
    /* worst first, so the best plans are drawn on top */
    for (size_t k = sel->count; k-- > 0;)
        write_point(fp, &p[sel->drawn[k]], pareto[sel->drawn[k]], k, ax);
    fputs("</g>\n", fp);
    write_front(fp, p, front, nf, ax);
    write_legend(fp);
    fputs("</svg>\n<div id=\"tip\" hidden></div>\n", fp);
    write_tips(fp, p, pareto, sel->drawn, sel->others, sel->count);
}

/* ------------------------------------------------------------ tables and bars */

static void write_plan_cell(FILE *fp, const pe_html_point *q)
{
    fputs("<td class=\"plan\">", fp);
    if (!q->canon[0]) { /* a name alone: its canonical text is not known */
        put_escaped(fp, q->plan);
        fputs("</td>", fp);
        return;
    }
    if (shows_canon(q)) {
        put_escaped(fp, q->plan);
        fputs("<br>", fp);
    }
    fputs("<code>", fp);
    put_escaped(fp, q->canon);
    fputs("</code></td>", fp);
}

static void write_pareto_table(FILE *fp, const pe_html_point *p, const size_t *front, size_t nf)
{
    char b[5][32];
    fprintf(fp, "<h2>Pareto front: %zu plan%s</h2>\n<p class=\"note\">ok plans that no other ok "
                "plan beats on both memory per GPU and step time, by increasing step time.</p>\n",
            nf, nf == 1 ? "" : "s");
    fputs("<table id=\"pareto\"><thead><tr><th>rank</th><th>plan (canonical text)</th>"
          "<th>memory GiB</th><th>step time s</th><th>tokens/s</th><th>MFU</th><th>bound</th>"
          "</tr></thead><tbody>\n", fp);
    for (size_t k = 0; k < nf; k++) {
        const pe_html_point *q = &p[front[k]];
        fprintf(fp, "<tr><td>%llu</td>", (unsigned long long)q->rank);
        write_plan_cell(fp, q);
        fprintf(fp, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                fig(q->mem_total, b[0]), fig(q->step_time, b[1]), fig(q->tokens_per_s, b[2]),
                fig(q->mfu, b[3]), pe_bound_name(q->bound));
    }
    fputs("</tbody></table>\n", fp);
}

/* The stacked bars: as wide as the scatter, each plan's label on a line of
 * its own above its bar, so no label is cut whatever its length; the
 * longest bar BAR_MAX wide, room to its right for its total. */
enum { BARS_W = W, BAR_MAX = W - 84, BAR_ROW = 38, BAR_TOP = 26, LABEL_CHAR_PX = 7 };

/* Characters of UTF-8 text (bytes that do not continue a character). */
static size_t text_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* "#rank name = canonical text", "#rank canonical text", or "#rank name"
 * when its canonical text is not known; a label wider than the bars (at
 * 7 px a character of the 11 px monospace font, a little more than it
 * takes) is squeezed into their width rather than cut. */
static void write_bar_label(FILE *fp, const pe_html_point *q, int y)
{
    char head[32];
    snprintf(head, sizeof head, "#%llu ", (unsigned long long)q->rank);
    const char *first = q->canon[0] && !shows_canon(q) ? q->canon : q->plan;
    size_t chars = text_chars(head) + text_chars(first) +
                   (shows_canon(q) ? 3 + text_chars(q->canon) : 0);
    fprintf(fp, "<text class=\"bl\" x=\"0\" y=\"%d\"", y);
    if (chars * LABEL_CHAR_PX > BARS_W)
        fprintf(fp, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", BARS_W);
    fprintf(fp, ">%s", head);
    put_escaped(fp, first);
    if (shows_canon(q)) {
        fputs(" = ", fp);
        put_escaped(fp, q->canon);
    }
    fputs("</text>", fp);
}

/* A plan's interval on its time bar (S6) or memory bar (M23): has, lo, hi. */
static bool bar_interval(const pe_html_point *q, bool time, double *lo, double *hi)
{
    *lo = time ? q->step_time_lo : q->mem_total_lo;
    *hi = time ? q->step_time_hi : q->mem_total_hi;
    return (time ? q->has_interval : q->has_mem_interval) && isfinite(*lo) && isfinite(*hi);
}

/* The high end of a plan's interval on the bar, 0 without one. */
static double bar_interval_end(const pe_html_point *q, bool time)
{
    double lo, hi;
    return bar_interval(q, time, &lo, &hi) ? hi : 0.0;
}

/* The 80% prediction interval (S6 on a time bar, M23 on a memory bar) as
 * an error bar across the bar at height y: a line from lo to hi with end
 * ticks, its figures in its title. Returns the x of its right end (0
 * without an interval). */
static double write_error_bar(FILE *fp, const pe_html_point *q, bool time, double max, int y)
{
    double lo_v, hi_v;
    if (!(max > 0) || !bar_interval(q, time, &lo_v, &hi_v))
        return 0.0;
    const double lo = lo_v / max * BAR_MAX, hi = hi_v / max * BAR_MAX;
    char a[32], b[32];
    fprintf(fp, "<path class=\"ci\" d=\"M%.1f %dH%.1fM%.1f %dv10M%.1f %dv10\"><title>80%% "
                "prediction interval (%s): %s to %s %s</title></path>",
            lo, y, hi, lo, y - 5, hi, y - 5, time ? "S6" : "M23, mem_total_gib", fig(lo_v, a),
            fig(hi_v, b), time ? "s" : "GiB");
    return hi;
}

/* Horizontal stacked bars, one per plan of bars[0..nb), of the step-time
 * (time = true: S1′'s addends, so a bar is as long as its step_time_s) or
 * memory columns (M's, as long as mem_total_gib). */
static void write_bars(FILE *fp, const pe_html_point *p, const size_t *bars, size_t nb, bool time)
{
    const int segs = time ? PE_HTML_TIME_PARTS : 6, gap = BARS_W / segs; /* legend spacing */
    const char *const *names = time ? TIME_NAMES : MEM_NAMES;
    double max = 0;
    for (size_t k = 0; k < nb; k++) /* an error bar's end fits too (S6, M23) */
        max = fmax(max, fmax(time ? p[bars[k]].step_time : p[bars[k]].mem_total,
                             bar_interval_end(&p[bars[k]], time)));
    int height = BAR_TOP + (int)nb * BAR_ROW;
    char b[32];
    fprintf(fp, "<svg class=\"bars\" id=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n",
            time ? "bars-time" : "bars-mem", BARS_W, height, BARS_W, height);
    for (int s = 0; s < segs; s++) /* legend */
        fprintf(fp, "<rect x=\"%d\" y=\"6\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    "<text x=\"%d\" y=\"15\">%s</text>",
                s * gap, SEGMENT_COLOURS[s], s * gap + 14, names[s]);
    fputs("\n", fp);
    for (size_t k = 0; k < nb && max > 0; k++) {
        const pe_html_point *q = &p[bars[k]];
        int y = BAR_TOP + (int)k * BAR_ROW;
        write_bar_label(fp, q, y + 11);
        double x = 0;
        for (int s = 0; s < segs; s++) {
            double v = time ? q->time[s] : q->mem[s], w = v / max * BAR_MAX;
            if (w > 0)
                fprintf(fp, "<rect class=\"seg\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" "
                            "fill=\"%s\"><title>%s = %s</title></rect>",
                        x, y + 15, w, SEGMENT_COLOURS[s], names[s], fig(v, b));
            x += w > 0 ? w : 0;
        }
        x = fmax(x, write_error_bar(fp, q, time, max, y + 23));
        fprintf(fp, "<text x=\"%.1f\" y=\"%d\">%s %s</text>\n", x + 4, y + 27,
                fig(time ? q->step_time : q->mem_total, b), time ? "s" : "GiB");
    }
    fputs("</svg>\n", fp);
}

static void write_facts(FILE *fp, const pe_html_page *page, const pe_html_point *p, size_t n)
{
    fputs("<div class=\"cols\"><div><h2>Scenario</h2><table class=\"kv\">\n", fp);
    for (size_t i = 0; i < page->fact_count; i++) {
        if (strncmp(page->facts[i].key, "budget: ", 8) == 0)
            continue; /* the figure for the lines; "budgets" says it */
        fputs("<tr><th>", fp);
        put_escaped(fp, page->facts[i].key);
        fputs("</th><td>", fp);
        put_escaped(fp, page->facts[i].value);
        fputs("</td></tr>\n", fp);
    }
    if (!page->fact_count)
        fputs("<tr><td>no facts: the report's summary (&lt;name&gt;.summary.csv) was not found "
              "beside it</td></tr>\n", fp);
    fputs("</table></div><div><h2>Counts</h2><table class=\"kv\" id=\"counts\">\n", fp);
    if (page->plans_evaluated)
        fprintf(fp, "<tr><th>plans evaluated</th><td>%llu</td></tr>\n",
                (unsigned long long)page->plans_evaluated);
    for (size_t i = 0; i < page->count_count; i++) {
        fputs("<tr><th>", fp);
        put_escaped(fp, page->counts[i].label);
        fprintf(fp, "</th><td>%llu</td></tr>\n", (unsigned long long)page->counts[i].n);
    }
    fputs("</table>\n", fp);
    if (n) {
        char b[3][32];
        fputs("<h2>Best plan</h2><p id=\"best\">", fp);
        if (!p[0].canon[0]) {
            put_escaped(fp, p[0].plan);
        } else {
            if (shows_canon(&p[0])) {
                put_escaped(fp, p[0].plan);
                fputs(" = ", fp);
            }
            fputs("<code>", fp);
            put_escaped(fp, p[0].canon);
            fputs("</code>", fp);
        }
        fprintf(fp, ": %s", pe_plan_status_name(p[0].status));
        if (p[0].status != PE_STATUS_INVALID)
            fprintf(fp, ", %s GiB, %s s, %s tokens/s", fig(p[0].mem_total, b[0]),
                    fig(p[0].step_time, b[1]), fig(p[0].tokens_per_s, b[2]));
        fputs("</p>\n", fp);
    }
    fputs("</div></div>\n", fp);
}

/* ------------------------------------------------------------ the page */

static const char CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1020px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:18px 0 6px}"
    ".note{color:#555;margin:2px 0}code{font-size:12px}"
    ".cols{display:flex;gap:32px;flex-wrap:wrap}.cols>div{flex:1;min-width:300px}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
    ".kv th{font-weight:600;color:#444}.kv td{overflow-wrap:anywhere}#counts td{text-align:right;white-space:nowrap}"
    "#pareto td{border-top:1px solid #ddd}#pareto td:not(.plan){text-align:right}"
    "svg{font:11px system-ui,sans-serif;display:block}svg text{fill:#333}"
    ".plot{fill:#fafafa;stroke:#bbb}.grid{stroke:#e4e4e4}.lab{font-size:13px}"
    ".ok{fill:#2a9d4b}.ot{fill:#e69f00}.om{fill:#d1495b}.lg{fill:#777}"
    "#pts use{fill-opacity:.75}#pts use.pf{stroke:#000;stroke-width:1.2;fill-opacity:1}"
    ".front{fill:none;stroke:#000;stroke-width:1.5}"
    ".budget line{stroke:#555;stroke-dasharray:6 4}.budget text{fill:#333;paint-order:stroke;stroke:#fff;stroke-width:3px}"
    ".ax2{display:none}#sc.alt .ax2{display:inline}#sc.alt .ax1{display:none}"
    "#sc.h-ok #pts use.ok,#sc.h-ot #pts use.ot,#sc.h-om #pts use.om{display:none}"
    "#sc.h-np #pts use:not(.pf){display:none}"
    ".bl{font:11px ui-monospace,monospace}.ci{stroke:#222;stroke-width:1.5;fill:none}.ctl label{margin-right:14px}"
    "#tip{position:fixed;background:#fff;border:1px solid #888;padding:4px 6px;"
    "font:12px system-ui,sans-serif;white-space:pre;pointer-events:none}";

/* Status filter and the axis switch: a few lines, no library. */
static const char SCRIPT[] =
    "(function(){var sc=document.getElementById('sc');if(!sc)return;"
    "document.querySelectorAll('input[data-h]').forEach(function(c){c.addEventListener("
    "'change',function(){sc.classList.toggle(c.dataset.h,c.dataset.inv?c.checked:!c.checked);});});"
    "var t=document.getElementById('tok');t.addEventListener('change',function(){"
    "sc.classList.toggle('alt',t.checked);sc.querySelectorAll('use[data-x2]').forEach("
    "function(u){var a=u.getAttribute('x');u.setAttribute('x',u.getAttribute('data-x2'));"
    "u.setAttribute('data-x2',a);});});"
    "var tips=JSON.parse(document.getElementById('tips').textContent),"
    "tip=document.getElementById('tip');"
    "sc.addEventListener('mouseover',function(e){var i=e.target.getAttribute('data-i');"
    "if(i===null)return;tip.textContent=tips[+i];tip.hidden=false;});"
    "sc.addEventListener('mousemove',function(e){tip.style.left=e.clientX+14+'px';"
    "tip.style.top=e.clientY+14+'px';});"
    "sc.addEventListener('mouseout',function(){tip.hidden=true;});})();";

static void write_controls(FILE *fp)
{
    fputs("<p class=\"ctl\"><label><input type=\"checkbox\" data-h=\"h-ok\" checked> ok</label>"
          "<label><input type=\"checkbox\" data-h=\"h-ot\" checked> over_time</label>"
          "<label><input type=\"checkbox\" data-h=\"h-om\" checked> over_memory</label>"
          "<label><input type=\"checkbox\" data-h=\"h-np\" data-inv=\"1\"> Pareto-optimal only"
          "</label><label><input type=\"checkbox\" id=\"tok\"> tokens/s on the x axis</label></p>\n",
          fp);
}

typedef struct {
    bool *pareto, *in_bars;
    size_t *front, nf; /* Pareto points by increasing step time */
    size_t bars[PE_HTML_BARS], nb;
} figures;

typedef struct {
    double step, mem;
    size_t i;
} front_point;

static int cmp_front(const void *a, const void *b)
{
    const front_point *q = a, *r = b;
    if (q->step != r->step)
        return q->step < r->step ? -1 : 1;
    if (q->mem != r->mem)
        return q->mem < r->mem ? -1 : 1;
    return (q->i > r->i) - (q->i < r->i);
}

/* Pareto points by step time, then memory, then rank: the staircase order. */
static void sort_front(const pe_html_point *p, size_t *front, size_t nf)
{
    front_point *fp = malloc((nf ? nf : 1) * sizeof *fp);
    if (!fp)
        return; /* rank order: the staircase is drawn out of order, still drawn */
    for (size_t k = 0; k < nf; k++)
        fp[k] = (front_point){p[front[k]].step_time, p[front[k]].mem_total, front[k]};
    qsort(fp, nf, sizeof *fp, cmp_front);
    for (size_t k = 0; k < nf; k++)
        front[k] = fp[k].i;
    free(fp);
}

/* The Pareto front of the page (memory, step time over ok plans) and the
 * plans of the bars (the best drawable ones). */
static pe_status find_figures(const pe_html_point *p, size_t n, figures *f, pe_error *err)
{
    memset(f, 0, sizeof *f);
    size_t m = n ? n : 1;
    double *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y);
    bool *ok = malloc(m);
    f->pareto = calloc(m, 1);
    f->in_bars = calloc(m, 1);
    pe_status st = PE_OK;
    if (!x || !y || !ok || !f->pareto || !f->in_bars)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory drawing the report");
    for (size_t i = 0; st == PE_OK && i < n; i++) {
        ok[i] = p[i].status == PE_STATUS_OK && drawable(&p[i]);
        x[i] = p[i].mem_total;
        y[i] = p[i].step_time;
        if (drawable(&p[i]) && f->nb < PE_HTML_BARS) {
            f->bars[f->nb++] = i;
            f->in_bars[i] = true;
        }
    }
    if (st == PE_OK)
        st = pareto_mark(x, y, ok, n, f->pareto, &f->nf, err);
    if (st == PE_OK && !(f->front = malloc((f->nf ? f->nf : 1) * sizeof *f->front)))
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory drawing the report");
    for (size_t i = 0, k = 0; st == PE_OK && i < n; i++)
        if (f->pareto[i])
            f->front[k++] = i;
    if (st == PE_OK)
        sort_front(p, f->front, f->nf);
    free(x);
    free(y);
    free(ok);
    return st;
}

static void free_figures(figures *f)
{
    free(f->pareto);
    free(f->in_bars);
    free(f->front);
}

static void write_body(FILE *fp, const pe_html_page *page, const pe_html_point *p, size_t n,
                       const figures *f, const selection *sel, const axes *ax)
{
    fprintf(fp, "<h1>");
    put_escaped(fp, page->title);
    fprintf(fp, "</h1>\n<p class=\"note\">planeval %s report, from ", PLANEVAL_VERSION);
    put_escaped(fp, page->source);
    fprintf(fp, ": %zu rows", n);
    if (page->note[0]) {
        fputs(" (", fp);
        put_escaped(fp, page->note);
        fputs(")", fp);
    }
    fputs(".</p>\n", fp);
    size_t named = 0;
    for (size_t i = 0; i < n; i++)
        named += !p[i].canon[0];
    if (named) /* read back from a report (html_read.h) */
        fprintf(fp, "<p class=\"note\" id=\"names\">%zu named plan%s shown by name alone: a "
                    "report's columns do not hold a plan's -ep, -etp, -fs, -ls and -off, so its "
                    "canonical text is not known here (the page run --html writes has it).</p>\n",
                named, named == 1 ? " is" : "s are");
    write_facts(fp, page, p, n);
    fputs("<h2>Memory per GPU against step time</h2>\n", fp);
    if (!sel->drawable) {
        fputs("<p class=\"note\">No ok, over_time or over_memory plan to draw.</p>\n", fp);
        return;
    }
    if (sel->grid_x)
        fprintf(fp, "<p class=\"note\" id=\"sampled\">%zu of %zu plans drawn: every "
                    "Pareto-optimal plan, the %zu best, and the best-ranked plan of each cell "
                    "of a %dx%d grid per status (hovering a point says how many more it stands for).</p>\n",
                sel->count, sel->drawable, f->nb, sel->grid_x, sel->grid_y);
    else
        fprintf(fp, "<p class=\"note\">All %zu plans drawn (invalid plans are not).</p>\n",
                sel->count);
    write_controls(fp);
    write_scatter(fp, page, p, f->pareto, f->front, f->nf, sel, ax);
    write_pareto_table(fp, p, f->front, f->nf);
    fprintf(fp, "<h2>Where the time goes: the %zu best plans</h2>\n", f->nb);
    write_bars(fp, p, f->bars, f->nb, true);
    fprintf(fp, "<h2>Where the memory goes: the %zu best plans</h2>\n", f->nb);
    write_bars(fp, p, f->bars, f->nb, false);
}

static pe_status write_page(FILE *fp, const pe_html_page *page, const pe_html_point *p, size_t n,
                            pe_error *err)
{
    figures f;
    pe_status st = find_figures(p, n, &f, err);
    axes ax;
    selection sel;
    memset(&sel, 0, sizeof sel);
    bool any = st == PE_OK && fit_axes(page, p, n, &ax);
    if (st == PE_OK && any && !select_points(p, n, f.pareto, f.in_bars, &ax, &sel))
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory drawing the report");
    if (st == PE_OK) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<meta name=\"viewport\" content=\"width=device-width\"><title>", fp);
        put_escaped(fp, page->title);
        fprintf(fp, " — planeval</title><style>%s</style></head><body>\n", CSS);
        write_body(fp, page, p, n, &f, &sel, &ax);
        fprintf(fp, "<script>%s</script>\n</body></html>\n", SCRIPT);
    }
    free(sel.drawn);
    free(sel.others);
    free_figures(&f);
    return st;
}

pe_status html_write(const char *path, const pe_html_page *page, const pe_html_point *points,
                     size_t n, pe_error *err)
{
    pe_atomic_file f;
    pe_status st = atomic_file_open(&f, path, err);
    if (st != PE_OK)
        return st;
    st = write_page(f.fp, page, points, n, err);
    if (st == PE_OK)
        return atomic_file_commit(&f, err);
    atomic_file_abort(&f);
    return st;
}
