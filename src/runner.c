/* runner.c — the sweep loop: index → plan → evaluate → row, in parallel. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "runner.h"

typedef struct {
    const pe_plan_space *space;
    const pe_eval_ctx *ctx;
    uint64_t first, last; /* [first, last) */
    uint64_t top_k;
    pe_rank_by rank_by;
    /* results */
    pe_row *rows;
    size_t count, cap;
    uint64_t evaluated;
    uint64_t skipped[PE_SKIP_COUNT];
    uint64_t by_status[4];
    uint64_t by_rule[8];
    bool oom;
} worker;

/* Bounded max-heap on rank order: rows[0] is the worst kept row. */
static void heap_sift_down(pe_row *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < n && rank_compare(&h[l], &h[worst]) > 0)
            worst = l;
        if (r < n && rank_compare(&h[r], &h[worst]) > 0)
            worst = r;
        if (worst == i)
            return;
        pe_row t = h[i];
        h[i] = h[worst];
        h[worst] = t;
        i = worst;
    }
}

static void heap_sift_up(pe_row *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (rank_compare(&h[i], &h[parent]) <= 0)
            return;
        pe_row t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

static bool keep_row(worker *w, const pe_row *row)
{
    if (w->top_k && w->count == w->top_k) {
        if (rank_compare(row, &w->rows[0]) >= 0)
            return true; /* not better than the worst kept */
        w->rows[0] = *row;
        heap_sift_down(w->rows, w->count, 0);
        return true;
    }
    if (w->count == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 1024;
        if (w->top_k && cap > w->top_k)
            cap = (size_t)w->top_k;
        pe_row *rows = realloc(w->rows, cap * sizeof *rows);
        if (!rows)
            return false;
        w->rows = rows;
        w->cap = cap;
    }
    w->rows[w->count++] = *row;
    if (w->top_k)
        heap_sift_up(w->rows, w->count - 1);
    return true;
}

static void *work(void *arg)
{
    worker *w = arg;
    pe_plan plan;
    pe_result result;
    pe_row row;
    for (uint64_t i = w->first; i < w->last; i++) {
        pe_skip skip = plans_at(w->space, i, &plan);
        if (skip != PE_SKIP_NONE) {
            w->skipped[skip]++;
            continue;
        }
        evaluate_plan(w->ctx, &plan, &result);
        w->evaluated++;
        w->by_status[result.status]++;
        if (result.status == PE_STATUS_INVALID)
            for (int v = 0; v < 8; v++)
                w->by_rule[v] += (result.failed >> v) & 1u;
        /* the name must outlive `plan`: point into the scenario's own plans */
        const char *name = i < w->space->explicit_count ? w->space->scenario->plans[i].name : NULL;
        rank_make_row(w->rank_by, i, &plan, name, &result, &row);
        if (!keep_row(w, &row)) {
            w->oom = true;
            break;
        }
    }
    return NULL;
}

pe_status runner_run(const pe_plan_space *space, const pe_eval_ctx *ctx,
                     const pe_run_options *opt, pe_run_result *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = plans_total(space);
    int threads = opt->threads < 1 ? 1 : opt->threads;
    if ((uint64_t)threads > total)
        threads = total ? (int)total : 1;
    worker *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (!ws || !tids) {
        free(ws);
        free(tids);
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    for (int t = 0; t < threads; t++) {
        ws[t] = (worker){.space = space,
                         .ctx = ctx,
                         .first = total / (uint64_t)threads * (uint64_t)t,
                         .last = t == threads - 1 ? total : total / (uint64_t)threads * (uint64_t)(t + 1),
                         .top_k = opt->top_k,
                         .rank_by = space->scenario->rank_by};
    }
    int started = 0;
    for (int t = 1; t < threads; t++, started++)
        if (pthread_create(&tids[t], NULL, work, &ws[t]) != 0)
            break;
    work(&ws[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
    for (int t = 1 + started; t < threads; t++) /* a thread that could not start */
        work(&ws[t]);

    pe_status st = PE_OK;
    size_t n = 0;
    for (int t = 0; t < threads; t++) {
        n += ws[t].count;
        if (ws[t].oom)
            st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory keeping report rows");
    }
    pe_row *rows = st == PE_OK ? malloc((n ? n : 1) * sizeof *rows) : NULL;
    if (st == PE_OK && !rows)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory merging report rows");
    size_t k = 0;
    for (int t = 0; t < threads; t++) {
        if (rows && ws[t].count)
            memcpy(rows + k, ws[t].rows, ws[t].count * sizeof *rows);
        k += ws[t].count;
        out->evaluated += ws[t].evaluated;
        for (int i = 0; i < PE_SKIP_COUNT; i++)
            out->skipped[i] += ws[t].skipped[i];
        for (int i = 0; i < 4; i++)
            out->by_status[i] += ws[t].by_status[i];
        for (int i = 0; i < 8; i++)
            out->by_rule[i] += ws[t].by_rule[i];
        free(ws[t].rows);
    }
    free(ws);
    free(tids);
    if (st != PE_OK) {
        free(rows);
        return st;
    }
    rank_sort(rows, n);
    if (opt->top_k && n > opt->top_k)
        n = (size_t)opt->top_k;
    out->rows = rows;
    out->row_count = n;
    out->total = total;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return PE_OK;
}

void runner_free(pe_run_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

pe_status runner_write_report(const char *path, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr, pe_error *err)
{
    pe_report *w = NULL;
    pe_status st = report_open(path, &w, err);
    for (size_t i = 0; st == PE_OK && i < rr->row_count; i++) {
        pe_plan plan;
        plans_at(space, rr->rows[i].index, &plan);
        st = report_write_row(w, ctx, space->scenario->name, (long long)i + 1, &plan,
                              &rr->rows[i], err);
    }
    if (st == PE_OK)
        return report_commit(w, err);
    report_abort(w);
    return st;
}
