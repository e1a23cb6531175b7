/* grade_write.c — writing grades (grade.h): cells made safe for a
 * spreadsheet, plans, numbers and points as the cells show them, the grades
 * file through the report writer, the rows of a rejected submission. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/spreadsheet.h"
#include "grade/grade_internal.h"

/* ================================================================ cells */

/* The text as it is written: cut at max_len bytes on a UTF-8 boundary
 * (then "..."), control characters as spaces. Its length. */
static size_t normalise_cell(const unsigned char *s, size_t len, size_t max_len, char *out,
                             size_t size)
{
    size_t o = 0, n = len;
    bool cut = false;
    if (n > max_len) {
        n = max_len;
        while (n > 0 && (s[n] & 0xC0) == 0x80)
            n--;
        cut = true;
    }
    for (size_t i = 0; i < n && o + 5 < size; i++)
        out[o++] = (s[i] < 0x20 || s[i] == 0x7f) ? ' ' : (char)s[i];
    if (cut && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return o;
}

void grade_safe_cell(const char *in, size_t len, size_t max_len, char *out, size_t size)
{
    if (size < 8) {
        if (size)
            out[0] = '\0';
        return;
    }
    /* Normalise first, then look for a formula start in exactly the text
     * that is written: checked before, "\v=HYPERLINK(...)" passed as
     * " =HYPERLINK(...)". out[0] is kept for the quote. */
    size_t n = normalise_cell((const unsigned char *)in, len, max_len, out + 1, size - 1);
    size_t at, width;
    if (spreadsheet_formula_start(out + 1, n, &at, &width))
        out[0] = '\'';
    else
        memmove(out, out + 1, n + 1);
}

void grade_show_plan(const pe_plan *p, const char *name, char *buf, size_t size)
{
    char canon[PE_CANON_MAX];
    plans_canonical(p, canon, sizeof canon);
    if (name && name[0] && strcmp(name, canon) != 0)
        snprintf(buf, size, "%s (%s)", name, canon);
    else
        snprintf(buf, size, "%s", canon);
}

/* %.6g: what the expected cell and the feedback show. */
void grade_fmt_num(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.6g", v);
}

/* Points rounded to hundredths, without trailing zeros: 1, 0.5, 2.67. */
void grade_fmt_points(double v, char *buf, size_t size)
{
    double r = round(v * 100) / 100;
    if (r == 0)
        r = 0; /* no -0 */
    snprintf(buf, size, "%.2f", r);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
}

static const char *const HEADER[] = {"student",        "question",        "expected",
                                     "submitted",      "error",           "points_awarded",
                                     "points_possible", "feedback",       "file"};
_Static_assert(sizeof HEADER / sizeof HEADER[0] == NCOLS, "a header per column");

void grade_put_row(out_file *o, const row *r)
{
    if (o->st == PE_OK)
        o->st = report_write_cells(o->w, r->cell, NCOLS, &o->err);
}

pe_status grade_out_open(out_file *o, const char *path, pe_error *err)
{
    memset(o, 0, sizeof *o);
    return report_open_cells(path, HEADER, NCOLS, &o->w, err);
}

pe_status grade_out_commit(out_file *o, pe_error *err)
{
    if (o->st != PE_OK) {
        report_abort(o->w);
        *err = o->err;
        return o->st;
    }
    return report_commit(o->w, err);
}

void grade_out_abort(out_file *o) { report_abort(o->w); }

/* "L:C: message" of a failed read (the file is in its own column). */
void grade_error_text(const pe_error *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "%d:%d: %.900s", e->line, e->col, e->msg);
    else
        snprintf(buf, size, "%s", e->msg);
}

/* The text of a scalar answer as written, or what the node is. */
void grade_answer_text(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_SCALAR_NODE) {
        snprintf(buf, size, "%.*s", (int)(y_len(n) < size ? y_len(n) : size - 1), y_text(n));
        return;
    }
    y_describe(n, buf, size);
}

/* Rows of a submission that could not be read: the error, then the total. */
void grade_write_rejected(out_file *o, const grader *g, const char *student, const char *file,
                           const pe_error *e)
{
    char msg[TEXT_MAX], safe_msg[TEXT_MAX + 8], total[32], possible[32];
    grade_error_text(e, msg, sizeof msg);
    grade_safe_cell(msg, strlen(msg), TEXT_MAX - 8, safe_msg, sizeof safe_msg);
    grade_fmt_points(g->possible, possible, sizeof possible);
    grade_fmt_points(0, total, sizeof total);
    row r = {{student, "", "", "", safe_msg, "0", "0", "submission rejected: nothing graded",
              file}};
    grade_put_row(o, &r);
    row t = {{student, "total", "", "", safe_msg, total, possible,
              "submission rejected: fix the error and resubmit", file}};
    grade_put_row(o, &t);
}

