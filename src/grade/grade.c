/* grade.c — grading (see grade.h): every submission graded against the
 * key, answer by answer, into rows of the grades file. The key's answers are grade_key.c, reading a submission
 * grade_read.c, the mistake matcher grade_mistakes.c, the grades file
 * grade_write.c; grade_internal.h is what they share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_internal.h"
#include "input/load.h"
#include "output/atomic_file.h"

/* ================================================================ one answer */

typedef struct {
    char submitted[CELL_MAX + 16];
    char error[TEXT_MAX];
    char feedback[TEXT_MAX];
    double awarded;
    bool right; /* full points */
} verdict;


static void pct_text(double x, double ref, char *buf, size_t size)
{
    const double pct = ref != 0 ? 100.0 * (x / fabs(ref) - ref / fabs(ref)) : 0;
    if (ref == 0)
        snprintf(buf, size, "%+.4g", x - ref);
    else if (isfinite(pct) && fabs(pct) < 1e6)
        snprintf(buf, size, "%+.3g%%", pct);
    else
        snprintf(buf, size, "a factor of %.3g", x / ref);
}

static void tol_text(const pe_question *q, char *buf, size_t size)
{
    char t[32];
    if (q->tol_kind == PE_TOL_ABS) {
        grade_fmt_num(q->tol, t, sizeof t);
        snprintf(buf, size, "within %s", t);
    } else if (q->tol > 0) {
        grade_fmt_num(100 * q->tol, t, sizeof t);
        snprintf(buf, size, "within %s%%", t);
    } else {
        snprintf(buf, size, "exactly");
    }
}

/* Append to a feedback buffer. */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t size, const char *fmt,
                                                      ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - n, fmt, ap);
    va_end(ap);
}

#define EXPLAIN_CMD_MAX (TEXT_MAX / 2 + PE_NAME_MAX + PE_CANON_MAX + 64)

/* text as one shell word: as it is when it is made of characters no shell
 * treats specially, else in single quotes (a ' inside written '\''). */
static void shell_word(const char *text, char *buf, size_t size)
{
    if (text[0] && strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_./:=@%+,-") == strlen(text)) {
        snprintf(buf, size, "%s", text);
        return;
    }
    size_t o = 0;
    if (size < 3) {
        if (size)
            buf[0] = '\0';
        return;
    }
    buf[o++] = '\'';
    for (const char *c = text; *c && o + 6 < size; c++) {
        if (*c == '\'') {
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *c;
        }
    }
    buf[o++] = '\'';
    buf[o] = '\0';
}

/* The command that explains the key's plan, runnable as printed from where
 * grade ran: the key's path as given, and the plan's name or canonical text. */
static void explain_command(const grader *g, const key_answer *k, char *buf, size_t size)
{
    char ref[PE_NAME_MAX + PE_CANON_MAX], key[TEXT_MAX / 2], plan[PE_NAME_MAX + PE_CANON_MAX + 8];
    snprintf(ref, sizeof ref, "%s", k->plan.name);
    if (!ref[0])
        plans_canonical(&k->plan, ref, sizeof ref);
    shell_word(g->s->file, key, sizeof key);
    shell_word(ref, plan, sizeof plan);
    snprintf(buf, size, "planeval explain %s --plan %s", key, plan);
}

/* A number of the opposite sign to the expected one: the sign is what is
 * wrong ("off by -200%" would not say so), and whether the size is right. */
static bool wrong_sign(double x, double ref, const pe_question *q, const char *tol, verdict *v)
{
    if (!(x < 0 && ref > 0) && !(x > 0 && ref < 0))
        return false;
    char want[32], got[32];
    grade_fmt_num(ref, want, sizeof want);
    grade_fmt_num(x, got, sizeof got);
    snprintf(v->feedback, sizeof v->feedback, "wrong sign: expected %s%s, got %s (needs %s)",
             ref > 0 ? "+" : "", want, got, tol);
    if (grade_within(-x, ref, q->tol_kind, q->tol)) {
        add(v->feedback, sizeof v->feedback, "; the size is right, only the sign is wrong");
    } else {
        char off[64];
        pct_text(-x, ref, off, sizeof off);
        add(v->feedback, sizeof v->feedback, "; the size is off by %s too", off);
    }
    return true;
}

static void grade_number(const grader *g, const pe_question *q, const key_answer *k,
                         const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    double x;
    if (y_get_number(d, n, path, PE_RANGE_NONE, &x, &e) != PE_OK) {
        grade_error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "answer with a number (no units): %s of %s",
                 q->column, k->shown);
        return;
    }
    char tol[64], off[64], cmd[EXPLAIN_CMD_MAX];
    tol_text(q, tol, sizeof tol);
    if (grade_within(x, k->value, q->tol_kind, q->tol)) {
        v->awarded = q->points;
        v->right = true;
        snprintf(v->feedback, sizeof v->feedback, "correct (%s)", tol);
        return;
    }
    if (wrong_sign(x, k->value, q, tol, v))
        return;
    pct_text(x, k->value, off, sizeof off);
    snprintf(v->feedback, sizeof v->feedback, "wrong: off by %s (needs %s)", off, tol);
    pe_mistake_match mm;
    int col = columns_find(q->column);
    if (grade_match_mistake(g->s, &k->plan, (pe_column)col, k->value, x, q->tol_kind, q->tol,
                            &mm)) {
        char why[TEXT_MAX / 2];
        grade_mistake_explain(g->s, &k->plan, mm.mistake, why, sizeof why);
        add(v->feedback, sizeof v->feedback, "; %s", why);
        if (mm.also != PE_MISTAKE_NONE) {
            grade_mistake_explain(g->s, &k->plan, mm.also, why, sizeof why);
            add(v->feedback, sizeof v->feedback, "; and %s", why);
        }
        return;
    }
    explain_command(g, k, cmd, sizeof cmd);
    add(v->feedback, sizeof v->feedback,
        "; no usual mistake gives this number: compare your working with %s", cmd);
}

static void memory_text(const pe_result *r, char *buf, size_t size)
{
    char a[24], b[24]; /* "%.6g" of a double is at most 13 bytes */
    grade_fmt_num(r->mem_total_gib, a, sizeof a);
    grade_fmt_num(r->mem_budget_gib, b, sizeof b);
    snprintf(buf, size, "mem_total_gib %s %s budget %s GiB", a, fits_of(r) ? "<=" : ">", b);
}

static void bound_text(const pe_result *r, char *buf, size_t size)
{
    char a[24], b[24], c[24]; /* "%.6g" of a double is at most 13 bytes */
    grade_fmt_num(r->compute_s, a, sizeof a);
    grade_fmt_num(r->tp_comm_s + r->cp_comm_s + r->pp_comm_s + r->dp_comm_s + r->ep_comm_s, b,
                  sizeof b);
    grade_fmt_num(r->bubble_s, c, sizeof c);
    snprintf(buf, size, "bound is %s: compute %s s, communication %s s, bubble %s s (docs/model.md S3)",
             pe_bound_name(r->bound), a, b, c);
}

static void grade_bool(const grader *g, const pe_question *q, const key_answer *k,
                       const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    bool x;
    if (y_get_bool(d, n, path, &x, &e) != PE_OK) {
        grade_error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "answer true or false");
        return;
    }
    bool right = q->ask == PE_ASK_FITS ? fits_of(&k->result) : comm_bound_of(&k->result);
    char why[TEXT_MAX / 2];
    if (q->ask == PE_ASK_FITS)
        memory_text(&k->result, why, sizeof why);
    else
        bound_text(&k->result, why, sizeof why);
    if (x == right) {
        v->awarded = q->points;
        v->right = true;
        snprintf(v->feedback, sizeof v->feedback, "correct: %s", why);
        return;
    }
    snprintf(v->feedback, sizeof v->feedback, "wrong: %s", why);
    pe_mistake m = grade_flip_mistake(g->s, &k->plan, q->ask, x);
    if (m != PE_MISTAKE_NONE) {
        char ex[TEXT_MAX / 2];
        grade_mistake_explain(g->s, &k->plan, m, ex, sizeof ex);
        add(v->feedback, sizeof v->feedback, "; that answer is what a usual mistake gives: %s",
            ex);
    }
}

static void not_ok_text(const grader *g, const pe_plan *p, const pe_result *r, char *buf,
                        size_t size)
{
    char reason[TEXT_MAX / 2];
    evaluate_format_reason(&g->ctx, p, r, reason, sizeof reason);
    snprintf(buf, size, "%s: %s",
             r->status == PE_STATUS_INVALID ? "invalid plan" : "does not meet the budgets",
             reason);
    if (r->status == PE_STATUS_OVER_MEMORY) {
        pe_mistake m = grade_flip_mistake(g->s, p, PE_ASK_FITS, true);
        if (m != PE_MISTAKE_NONE)
            add(buf, size, "; it would fit only under a usual mistake: %s",
                grade_mistake_name(m));
    }
}

/* Which knobs a plan moves (docs/model.md §9). */
static void knobs_text(const pe_plan *p, char *buf, size_t size)
{
    buf[0] = '\0';
    const char *sep = "";
    if (p->zero > 0) {
        add(buf, size, "%szero", sep);
        sep = ", ";
    }
    if (p->recompute != PE_RECOMPUTE_NONE) {
        add(buf, size, "%srecompute", sep);
        sep = ", ";
    }
    if (p->tp > 1) {
        add(buf, size, "%stp", sep);
        sep = ", ";
    }
    if (p->pp > 1) {
        add(buf, size, "%spp", sep);
        sep = ", ";
    }
    if (p->cp > 1)
        add(buf, size, "%scp", sep);
}

/* min_intervention: a plan that fits, with no more knobs moved than the
 * key's (half marks for more). */
static void grade_min_intervention(const grader *g, const pe_question *q, const key_answer *k,
                                   const pe_plan *p, const pe_result *r, verdict *v)
{
    char knobs[64];
    if (!fits_of(r)) {
        not_ok_text(g, p, r, v->feedback, sizeof v->feedback);
        return;
    }
    char mem[160];
    memory_text(r, mem, sizeof mem);
    knobs_text(p, knobs, sizeof knobs);
    if (r->interventions <= k->interventions) {
        v->awarded = q->points;
        v->right = true;
        snprintf(v->feedback, sizeof v->feedback, "correct: fits (%s) with %d intervention%s%s%s%s",
                 mem, r->interventions, r->interventions == 1 ? "" : "s", knobs[0] ? " (" : "",
                 knobs, knobs[0] ? ")" : "");
        if (r->interventions < k->interventions)
            add(v->feedback, sizeof v->feedback, "; fewer than the key's %d", k->interventions);
        return;
    }
    v->awarded = q->points / 2; /* it fits, but moves more knobs than needed */
    snprintf(v->feedback, sizeof v->feedback,
             "half marks: fits (%s) but moves %d knobs (%s); %d suffice, e.g. %s", mem,
             r->interventions, knobs, k->interventions, k->shown);
}

/* best_plan: rank 1, or a plan whose rank keys tie with it (within the
 * question's tolerance when it has one). */
static void grade_best_plan(const grader *g, const pe_question *q, const key_answer *k,
                            const pe_plan *p, const pe_result *r, verdict *v)
{
    char a[64], b[64], off[64];
    if (r->status != PE_STATUS_OK) {
        not_ok_text(g, p, r, v->feedback, sizeof v->feedback);
        return;
    }
    pe_rank_key key;
    pe_rank_order order; /* every rank_by key, as the report ranks */
    rank_order_of(g->s, &order);
    rank_keys_of(&order, r, &key);
    bool tie = rank_compare_keys(&key, &k->key) == 0;
    if (q->tol > 0) {
        tie = key.status == k->key.status;
        for (int i = 0; i < PE_RANK_KEY_MAX; i++)
            tie = tie && grade_within(key.key[i], k->key.key[i], PE_TOL_REL, q->tol);
    }
    if (tie) {
        v->awarded = q->points;
        v->right = true;
        char canon[PE_CANON_MAX], kc[PE_CANON_MAX];
        plans_canonical(p, canon, sizeof canon);
        plans_canonical(&k->plan, kc, sizeof kc);
        if (strcmp(canon, kc) == 0)
            snprintf(v->feedback, sizeof v->feedback, "correct: rank 1 by %s",
                     pe_rank_by_name(g->s->rank_by));
        else
            snprintf(v->feedback, sizeof v->feedback, "correct: ties with rank 1 (%s) by %s",
                     k->shown, pe_rank_by_name(g->s->rank_by));
        return;
    }
    grade_fmt_num(r->step_time_s, a, sizeof a);
    grade_fmt_num(k->result.step_time_s, b, sizeof b);
    pct_text(r->step_time_s, k->result.step_time_s, off, sizeof off);
    snprintf(v->feedback, sizeof v->feedback,
             "wrong: meets the budgets but is not the best by %s: step_time %s s vs %s s "
             "(%s)",
             pe_rank_by_name(g->s->rank_by), a, b, off);
    if (g->s->rank_by == PE_RANK_INTERVENTIONS)
        add(v->feedback, sizeof v->feedback, ", %d interventions vs %d", r->interventions,
            k->result.interventions);
}

/* chosen_plan: any plan that meets the budgets; full points within the
 * tolerance of the fastest, else in proportion to speed. */
static void grade_chosen_plan(const grader *g, const pe_question *q, const key_answer *k,
                              const pe_plan *p, const pe_result *r, verdict *v)
{
    char a[64], b[64], off[64];
    if (r->status != PE_STATUS_OK) {
        not_ok_text(g, p, r, v->feedback, sizeof v->feedback);
        return;
    }
    grade_fmt_num(r->step_time_s, a, sizeof a);
    grade_fmt_num(k->step, b, sizeof b);
    if (r->step_time_s <= k->step * (1 + q->tol)) {
        v->awarded = q->points;
        v->right = true;
        pct_text(r->step_time_s, k->step, off, sizeof off);
        snprintf(v->feedback, sizeof v->feedback,
                 "correct: meets the budgets; step_time %s s vs the fastest plan's %s s (%s)", a,
                 b, off);
        return;
    }
    /* Partial credit in proportion to speed: best / yours. */
    const double score = k->step / r->step_time_s;
    v->awarded = q->points * score;
    char sc[32], slower[32];
    grade_fmt_num(round(score * 1000) / 10, sc, sizeof sc);
    snprintf(slower, sizeof slower, "%.3g", 100 * (r->step_time_s / k->step - 1));
    snprintf(v->feedback, sizeof v->feedback,
             "meets the budgets, but step_time %s s is %s%% slower than the fastest plan "
             "(%s, %s s): %s%% of the points",
             a, slower, k->shown, b, sc);
}

/* A plan answer: read, evaluated, then judged by the question's kind. */
static void grade_plan(const grader *g, const pe_question *q, const key_answer *k,
                       const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    pe_plan p;
    char shown[PE_NAME_MAX + PE_CANON_MAX + 8];
    if (grade_read_plan(g->s, d, n, path, &p, shown, sizeof shown, &e) != PE_OK) {
        grade_error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "answer with a plan");
        return;
    }
    grade_safe_cell(shown, strlen(shown), CELL_MAX, v->submitted, sizeof v->submitted);
    pe_result r;
    evaluate_plan(&g->ctx, &p, &r);
    switch (q->ask) {
    case PE_ASK_MIN_INTERVENTION: grade_min_intervention(g, q, k, &p, &r, v); return;
    case PE_ASK_BEST_PLAN: grade_best_plan(g, q, k, &p, &r, v); return;
    case PE_ASK_CHOSEN_PLAN: grade_chosen_plan(g, q, k, &p, &r, v); return;
    default: return;
    }
}

static void grade_answer(const grader *g, size_t qi, const pe_ydoc *d, const yaml_node_t *n,
                         verdict *v)
{
    const pe_question *q = &g->s->questions[qi];
    const key_answer *k = &g->ans[qi];
    char path[PE_YPATH_MAX], raw[CELL_MAX + 1];
    y_path(path, "answers", q->id);
    grade_answer_text(n, raw, sizeof raw);
    grade_safe_cell(raw, strlen(raw), CELL_MAX, v->submitted, sizeof v->submitted);
    if (n->type == YAML_SCALAR_NODE && y_len(n) > CELL_MAX) {
        /* the cut text above; the length is part of the story */
        char t[64];
        snprintf(t, sizeof t, " (%zu bytes)", y_len(n));
        add(v->submitted, sizeof v->submitted, "%s", t);
    }
    pe_error e = {0};
    if (y_check_values(d, n, path, &e) != PE_OK) { /* a YAML 1.1 look-alike: this answer only */
        grade_error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "not graded: fix this answer's YAML");
        return;
    }
    switch (q->ask) {
    case PE_ASK_COLUMN: grade_number(g, q, k, d, n, path, v); break;
    case PE_ASK_FITS:
    case PE_ASK_COMM_BOUND: grade_bool(g, q, k, d, n, path, v); break;
    default: grade_plan(g, q, k, d, n, path, v); break;
    }
}

typedef struct {
    size_t submissions, rejected, superseded;
} tally;

/* The row of question q: what the key expects, the verdict on the answer. */
static void write_question_row(out_file *o, const grader *g, size_t qi, const verdict *v,
                               const char *student, const char *file)
{
    const pe_question *q = &g->s->questions[qi];
    char pts[32], possible[32], err_cell[TEXT_MAX + 8], fb_cell[TEXT_MAX + 8];
    char qid[PE_NAME_MAX + 8], exp_cell[TEXT_MAX + 8];
    grade_fmt_points(v->awarded, pts, sizeof pts);
    grade_fmt_points(q->points, possible, sizeof possible);
    grade_safe_cell(v->error, strlen(v->error), TEXT_MAX - 8, err_cell, sizeof err_cell);
    grade_safe_cell(v->feedback, strlen(v->feedback), TEXT_MAX - 8, fb_cell, sizeof fb_cell);
    grade_safe_cell(q->id, strlen(q->id), PE_NAME_MAX, qid, sizeof qid);
    grade_safe_cell(g->ans[qi].expected, strlen(g->ans[qi].expected), TEXT_MAX - 8, exp_cell,
                    sizeof exp_cell);
    row r = {{student, qid, exp_cell, v->submitted, err_cell, pts, possible, fb_cell, file}};
    grade_put_row(o, &r);
}

/* One row per question of the key, in key order; the points and the
 * questions right add to *total and *right. */
static void write_question_rows(out_file *o, const grader *g, const pe_ydoc *d,
                                const yaml_node_t *answers, const char *student,
                                const char *file, double *total, size_t *right)
{
    for (size_t i = 0; i < g->s->question_count; i++) {
        verdict v;
        memset(&v, 0, sizeof v);
        const yaml_node_t *n = y_map_get(d, answers, g->s->questions[i].id);
        if (n)
            grade_answer(g, i, d, n, &v);
        else
            snprintf(v.feedback, sizeof v.feedback, "not answered");
        v.awarded = round(v.awarded * 100) / 100;
        *total += v.awarded;
        *right += v.right;
        write_question_row(o, g, i, &v, student, file);
    }
}

/* Whether the answer id kn is a question of the key. */
static bool is_question(const pe_scenario *s, const yaml_node_t *kn)
{
    for (size_t i = 0; i < s->question_count; i++)
        if (y_len(kn) == strlen(s->questions[i].id) &&
            memcmp(y_text(kn), s->questions[i].id, y_len(kn)) == 0)
            return true;
    return false;
}

/* The row of an answer to a question the key does not have. */
static void write_unknown_row(out_file *o, const pe_ydoc *d, const yaml_node_pair_t *pr,
                              const char *const *ids, size_t nid, const char *student,
                              const char *file)
{
    const yaml_node_t *kn = ydoc_node(d, pr->key), *vn = ydoc_node(d, pr->value);
    char q[96], msg[TEXT_MAX], raw[CELL_MAX + 1], sub[CELL_MAX + 16];
    char err_cell[TEXT_MAX + 8], qid[PE_NAME_MAX + 8];
    y_quote(y_text(kn), y_len(kn), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    const char *sug = y_suggest(y_text(kn), y_len(kn), ids, nid);
    snprintf(msg, sizeof msg, "%d:%d: unknown question id %s%s%s%s", y_line(kn), y_col(kn), q,
             sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
    grade_safe_cell(msg, strlen(msg), TEXT_MAX - 8, err_cell, sizeof err_cell);
    grade_safe_cell(y_text(kn), y_len(kn), CELL_MAX, qid, sizeof qid);
    grade_answer_text(vn, raw, sizeof raw);
    grade_safe_cell(raw, strlen(raw), CELL_MAX, sub, sizeof sub);
    row r = {{student, qid, "", sub, err_cell, "0", "0",
              "not graded: the drill has no such question", file}};
    grade_put_row(o, &r);
}

/* Answers to questions the key does not have, in file order; a row each
 * for the first UNKNOWN_ROWS, then one row counting the rest (a hostile
 * file may hold 50,000 of them). */
static void write_unknown_rows(out_file *o, const pe_scenario *s, const pe_ydoc *d,
                               const yaml_node_t *answers, const char *student,
                               const char *file)
{
    enum { UNKNOWN_ROWS = 20 };
    size_t unknown = 0;
    const char *ids[256];
    size_t nid = 0;
    for (size_t i = 0; i < s->question_count && nid < 256; i++)
        ids[nid++] = s->questions[i].id;
    for (const yaml_node_pair_t *pr = answers->data.mapping.pairs.start;
         pr < answers->data.mapping.pairs.top; pr++) {
        if (is_question(s, ydoc_node(d, pr->key)) || ++unknown > UNKNOWN_ROWS)
            continue;
        write_unknown_row(o, d, pr, ids, nid, student, file);
    }
    if (unknown > UNKNOWN_ROWS) {
        char err_cell[TEXT_MAX + 8];
        snprintf(err_cell, sizeof err_cell, "%zu more unknown question ids",
                 unknown - UNKNOWN_ROWS);
        row r = {{student, "", "", "", err_cell, "0", "0",
                  "not graded: the drill has no such questions", file}};
        grade_put_row(o, &r);
    }
}

/* The row of a file superseded by another of the same student. */
static void write_superseded(out_file *o, const char *student, const char *file,
                             const char *by)
{
    char fb[PE_PATH_MAX + 96], fb_cell[PE_PATH_MAX + 104];
    snprintf(fb, sizeof fb, "superseded by %s (the last file by name counts)", by);
    grade_safe_cell(fb, strlen(fb), sizeof fb_cell - 8, fb_cell, sizeof fb_cell);
    row r = {{student, "", "", "", "", "0", "0", fb_cell, file}};
    grade_put_row(o, &r);
}

/* A read submission's rows: one per question, unknown ids, the total. */
static double write_graded(out_file *o, const grader *g, const pe_ydoc *d,
                           const yaml_node_t *answers, const char *student, const char *file)
{
    double total = 0;
    size_t right = 0;
    write_question_rows(o, g, d, answers, student, file, &total, &right);
    write_unknown_rows(o, g->s, d, answers, student, file);
    char pts[32], possible[32], fb_cell[TEXT_MAX + 8];
    grade_fmt_points(total, pts, sizeof pts);
    grade_fmt_points(g->possible, possible, sizeof possible);
    snprintf(fb_cell, sizeof fb_cell, "%zu of %zu questions right", right,
             g->s->question_count);
    row tr = {{student, "total", "", "", "", pts, possible, fb_cell, file}};
    grade_put_row(o, &tr);
    return total;
}

/* Rows of submission i. Whatever is wrong with it (unreadable, not YAML,
 * hostile, another drill) is its row, never an error of the run; a file
 * another of the same student supersedes is one row saying so. */
static pe_status grade_submission(out_file *o, const grader *g, grade_class *class,
                                  const pe_grade_files *subs, size_t i, tally *t, pe_error *err)
{
    const char *path = subs->paths[i];
    char file[PE_PATH_MAX + 16], student[PE_NAME_MAX], safe_student[PE_NAME_MAX + 16];
    grade_safe_cell(path, strlen(path), PE_PATH_MAX, file, sizeof file);
    t->submissions++;
    pe_error e = {0};
    pe_ydoc d;
    const yaml_node_t *answers = NULL;
    pe_status st = grade_read_submission(g->s, path, &d, student, sizeof student, &answers, &e);
    grade_safe_cell(student, strlen(student), PE_NAME_MAX, safe_student, sizeof safe_student);
    size_t by = grade_class_superseded_by(class, i);
    double total = 0;
    if (by != SIZE_MAX) {
        t->superseded++;
        write_superseded(o, safe_student, file, subs->paths[by]);
        ydoc_free(&d);
        return PE_OK;
    }
    char why[TEXT_MAX] = "";
    if (st != PE_OK) {
        t->rejected++;
        grade_write_rejected(o, g, safe_student, file, &e);
        grade_error_text(&e, why, sizeof why);
    } else {
        total = write_graded(o, g, &d, answers, safe_student, file);
    }
    ydoc_free(&d);
    return grade_class_record(class, i, safe_student, total, file, st != PE_OK ? why : NULL,
                              err);
}

/* ================================================================ the command */

/* The grades file, and the gradebook when asked for: every submission in
 * order, then both committed (the gradebook once the grades are in place). */
static pe_status write_grades(const grader *g, const pe_grade_files *subs,
                              const pe_grade_options *opt, const char *out_path, tally *t,
                              pe_error *err)
{
    atomic_file_clean_stale_beside(out_path); /* left by a killed grade */
    if (opt->gradebook)
        atomic_file_clean_stale_beside(opt->gradebook);
    grade_class class;
    pe_status st = grade_class_init(&class, subs, err);
    out_file o;
    bool open = false;
    if (st == PE_OK) {
        st = grade_out_open(&o, out_path, err);
        open = st == PE_OK;
    }
    for (size_t i = 0; st == PE_OK && i < subs->count; i++)
        st = grade_submission(&o, g, &class, subs, i, t, err);
    pe_report *book = NULL;
    if (st == PE_OK && opt->gradebook)
        st = grade_class_write_book(&class, opt->gradebook, g->possible, &book, err);
    if (open) {
        if (st == PE_OK)
            st = grade_out_commit(&o, err);
        else
            grade_out_abort(&o);
    }
    if (book) {
        if (st == PE_OK)
            st = report_commit(book, err);
        else
            report_abort(book);
    }
    grade_class_free(&class);
    return st;
}

static pe_status grade_all(const pe_scenario *s, const pe_grade_files *subs,
                           const pe_grade_options *opt, const char *out_path, tally *t,
                           pe_error *err)
{
    grader g;
    memset(&g, 0, sizeof g);
    g.s = s;
    evaluate_prepare(s, &g.ctx);
    g.ans = calloc(s->question_count, sizeof *g.ans);
    if (!g.ans)
        return pe_fail(err, PE_INTERNAL, s->file, 0, 0, "out of memory");
    pe_plan_space space;
    pe_status st = plans_init(s, &space, err);
    if (st != PE_OK) {
        free(g.ans);
        return st;
    }
    pe_run_options ro = {.threads = opt->threads > 0 ? opt->threads : 1};
    pe_run_result rr;
    memset(&rr, 0, sizeof rr);
    st = runner_run(&space, &g.ctx, &ro, &rr, err);
    if (st == PE_OK)
        st = grade_key_prepare(&g, &space, &rr, err);
    if (st == PE_OK)
        st = write_grades(&g, subs, opt, out_path, t, err);
    runner_free(&rr);
    plans_free(&space);
    free(g.ans);
    return st;
}

pe_status grade_submissions(const pe_catalog *catalog, const char *key_path,
                            const pe_grade_files *subs, const pe_grade_options *opt,
                            pe_grade_summary *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    pe_scenario s;
    pe_status st = load_scenario(key_path, catalog, &s, err);
    if (st != PE_OK)
        return st;
    snprintf(out->key_name, sizeof out->key_name, "%s", s.name);
    if (s.question_count == 0) {
        scenario_free(&s);
        return pe_fail(err, PE_BAD_INPUT, key_path, 0, 0,
                       "the key has no questions: block; grade needs a drill scenario with a "
                       "grading key");
    }
    if (opt->output)
        snprintf(out->output, sizeof out->output, "%s", opt->output);
    else
        snprintf(out->output, sizeof out->output, "out/%s-grades.csv", s.name);
    tally t = {0, 0, 0};
    st = grade_all(&s, subs, opt, out->output, &t, err);
    out->graded = t.submissions - t.rejected - t.superseded;
    out->rejected = t.rejected;
    out->superseded = t.superseded;
    scenario_free(&s);
    return st;
}
