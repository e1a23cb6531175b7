/* report_rows.c — a whole ranked run written as a report (report.h's
 * atomic file), its rows formatted on several threads. */
#include "output/report_rows.h"

#include "output/report.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Report writing: rows are formatted in parallel, a block per thread per
 * round, and written in order by this thread; formatting (number to text)
 * is most of the cost of a full report. */
#define WRITE_BLOCK 4096u

typedef struct {
    const pe_plan_space *space;
    const pe_eval_ctx *ctx;
    const pe_run_result *rr;
    size_t lo, hi;
    volatile sig_atomic_t *stop;
    int digits; /* --digits, 0: exact */
    char *text; /* owned, grows */
    size_t len, cap;
    bool failed, stopped;
    bool nonfinite;          /* a row had a figure that is not finite: */
    size_t nonfinite_row;    /* the first one's rank - 1 */
    int nonfinite_column;
} format_job;

static void *format_rows(void *arg)
{
    format_job *j = arg;
    j->len = 0;
    for (size_t i = j->lo; i < j->hi && !j->failed; i++) {
        if (j->stop && *j->stop && (i & 255u) == 0) {
            j->stopped = true;
            break;
        }
        if (j->cap - j->len < PE_REPORT_LINE_MAX) {
            size_t cap = j->cap ? 2 * j->cap : (size_t)WRITE_BLOCK * 512;
            char *t = realloc(j->text, cap);
            if (!t) {
                j->failed = true;
                break;
            }
            j->text = t;
            j->cap = cap;
        }
        pe_plan plan;
        plans_at(j->space, j->rr->rows[i].index, &plan);
        pe_line line = {j->text + j->len, j->cap - j->len, 0, false, j->digits, false, 0};
        if (!report_format_row(plans_ctx(j->space, j->rr->rows[i].index, j->ctx),
                               j->space->scenario->name, (long long)i + 1, &plan,
                               &j->rr->rows[i], &line))
            j->failed = true;
        if (line.nonfinite && !j->nonfinite) {
            j->nonfinite = true;
            j->nonfinite_row = i;
            j->nonfinite_column = line.nonfinite_column;
        }
        j->len += line.len;
    }
    return NULL;
}

/* No report shows inf or NaN: a plan with such a figure (an input the key
 * ranges of core/fields.c let through, or a model fault) fails the write. */
static pe_status nonfinite_error(const format_job *j, pe_error *err)
{
    const pe_row *row = &j->rr->rows[j->nonfinite_row];
    return pe_fail(err, PE_INTERNAL, NULL, 0, 0,
                   "plan %s (rank %zu): %s is not a finite number; no report is written "
                   "(an input the key ranges let through, or a fault of the model)",
                   row->name ? row->name : row->canon, j->nonfinite_row + 1,
                   pe_columns[j->nonfinite_column].name);
}

/* One round: up to `threads` blocks from *start, formatted in parallel. */
static size_t format_round(format_job *jobs, size_t threads, size_t *start,
                           const pe_run_result *rr)
{
    pthread_t tids[64];
    size_t used = 0;
    for (; used < threads && *start < rr->row_count; used++) {
        size_t hi = *start + WRITE_BLOCK < rr->row_count ? *start + WRITE_BLOCK : rr->row_count;
        jobs[used].lo = *start;
        jobs[used].hi = hi;
        *start = hi;
    }
    size_t started = 0;
    for (size_t t = 1; t < used; t++, started++)
        if (pthread_create(&tids[t], NULL, format_rows, &jobs[t]) != 0)
            break;
    format_rows(&jobs[0]);
    for (size_t t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
    for (size_t t = 1 + started; t < used; t++) /* a thread that could not start */
        format_rows(&jobs[t]);
    return used;
}

pe_status report_write_ranked_rows(pe_report *w, const pe_plan_space *space,
                                   const pe_eval_ctx *ctx, const pe_run_result *rr,
                                   int thread_count, volatile sig_atomic_t *stop, pe_error *err)
{
    return report_write_ranked_rows_digits(w, space, ctx, rr, thread_count, 0, stop, err);
}

pe_status report_write_ranked_rows_digits(pe_report *w, const pe_plan_space *space,
                                          const pe_eval_ctx *ctx, const pe_run_result *rr,
                                          int thread_count, int digits,
                                          volatile sig_atomic_t *stop, pe_error *err)
{
    size_t threads = thread_count > 1 ? (size_t)thread_count : 1;
    if (threads > 64)
        threads = 64;
    format_job jobs[64];
    memset(jobs, 0, sizeof jobs);
    for (size_t t = 0; t < threads; t++)
        jobs[t] = (format_job){.space = space, .ctx = ctx, .rr = rr, .stop = stop,
                               .digits = digits};
    pe_status st = PE_OK;
    for (size_t start = 0; st == PE_OK && start < rr->row_count;) {
        size_t used = format_round(jobs, threads, &start, rr);
        for (size_t t = 0; t < used && st == PE_OK; t++)
            st = jobs[t].stopped     ? PE_INTERRUPTED
                 : jobs[t].failed    ? pe_fail(err, PE_INTERNAL, NULL, 0, 0,
                                               "out of memory formatting report rows")
                 : jobs[t].nonfinite ? nonfinite_error(&jobs[t], err)
                                     : report_write_lines(w, jobs[t].text, jobs[t].len, err);
    }
    for (size_t t = 0; t < threads; t++)
        free(jobs[t].text);
    return st;
}

pe_status report_write_ranked(const char *path, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr, int thread_count,
                              pe_error *err)
{
    pe_report *w = NULL;
    pe_status st = report_open(path, &w, err);
    if (st == PE_OK)
        st = report_write_ranked_rows(w, space, ctx, rr, thread_count, NULL, err);
    if (st == PE_OK)
        return report_commit(w, err);
    report_abort(w);
    return st;
}
