/* runner.c — the sweep loop: index → plan → evaluate → row, in parallel. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep/runner.h"

#include "model/rules.h"

typedef struct shared shared;

typedef struct {
    shared *sh;
    pe_row *rows; /* all rows, or a max-heap of the best top_k (rows[0] worst) */
    size_t count, cap;
    pe_run_counts counts;
    bool oom;
} worker;

struct shared {
    const pe_plan_space *space;
    const pe_eval_ctx *ctx;
    pe_rank_order order; /* rank_by */
    unsigned status_mask; /* statuses kept (bit per pe_plan_status); 0: all */
    uint64_t top_k;
    uint64_t start, last;   /* indices to hand out: [start, last) */
    uint64_t count_from;    /* indices below this were counted before (resume) */
    volatile sig_atomic_t *stop;
    _Atomic uint64_t next_chunk; /* chunks handed out, from `start` */
    _Atomic uint64_t done;       /* indices finished, for progress */
    _Atomic uint64_t evaluated;  /* plans counted in finished chunks, for progress */
    _Atomic int running;         /* workers still running */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void runner_shard_range(uint64_t total, uint64_t i, uint64_t n, uint64_t *first, uint64_t *last)
{
    uint64_t base = total / n, extra = total % n;
    *first = i * base + (i < extra ? i : extra);
    *last = *first + base + (i < extra ? 1 : 0);
}

uint64_t runner_count_plans(const pe_plan_space *space, uint64_t first, uint64_t last)
{
    uint64_t plans = 0;
    pe_plan_cursor cur;
    plans_seek(space, first, &cur);
    while (cur.index < last) {
        pe_plan plan;
        uint64_t span;
        int axis;
        if (plans_cursor_plan(space, &cur, &plan, &span, &axis) == PE_SKIP_NONE) {
            plans++;
            plans_advance(space, &cur, 1);
        } else if (span < last - cur.index) {
            plans_next_at_axis(space, &cur, axis);
        } else {
            break; /* the rest of the range is skipped */
        }
    }
    return plans;
}

/* ---------------------------------------------------------- kept rows */

static void swap_rows(pe_row *a, pe_row *b)
{
    pe_row t = *a;
    *a = *b;
    *b = t;
}

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
        swap_rows(&h[i], &h[worst]);
        i = worst;
    }
}

static void heap_sift_up(pe_row *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (rank_compare(&h[i], &h[parent]) <= 0)
            return;
        swap_rows(&h[i], &h[parent]);
        i = parent;
    }
}

static bool keep_row(worker *w, const pe_row *row)
{
    uint64_t k = w->sh->top_k;
    if (k && w->count == k) {
        if (rank_compare(row, &w->rows[0]) >= 0)
            return true; /* not better than the worst kept */
        w->rows[0] = *row;
        heap_sift_down(w->rows, w->count, 0);
        return true;
    }
    if (w->count == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 1024;
        if (k && cap > k)
            cap = (size_t)k;
        pe_row *rows = realloc(w->rows, cap * sizeof *rows);
        if (!rows)
            return false;
        w->rows = rows;
        w->cap = cap;
    }
    w->rows[w->count++] = *row;
    if (k)
        heap_sift_up(w->rows, w->count - 1);
    return true;
}

/* Evaluate `plan` (at index) into a row and keep it if it ranks; count it
 * unless it was counted before a restart. */
static bool visit_plan(worker *w, const pe_eval_ctx *ctx, uint64_t index, const pe_plan *plan,
                       bool count)
{
    shared *sh = w->sh;
    pe_result result;
    evaluate_plan(ctx, plan, &result); /* the ctx of the plan's design (plans_ctx) */
    if (count) {
        w->counts.evaluated++;
        w->counts.by_status[result.status]++;
        pe_rules_count(result.failed, w->counts.by_rule); /* by rule (model/rules.h) */
    }
    if (sh->status_mask && !(sh->status_mask >> result.status & 1u))
        return true; /* counted, not written (--status) */
    if (sh->top_k && w->count == sh->top_k) {
        /* the common case in a big sweep: clearly worse than the worst kept
         * row, decided on status and keys alone, before any text is built */
        pe_rank_key key;
        rank_keys_of(&sh->order, &result, &key);
        if (rank_compare_keys(&key, &w->rows[0].key) > 0)
            return true;
    }
    /* the name must outlive `plan`: point into the scenario's own plans */
    const char *name = index < sh->space->explicit_count ? sh->space->scenario->plans[index].name
                                                         : NULL;
    pe_row row;
    rank_make_row(&sh->order, index, plan, name, &result, &row);
    return keep_row(w, &row);
}

/* The same for an index (resumed rows). */
static bool visit(worker *w, uint64_t index, bool count)
{
    pe_plan plan;
    pe_skip skip = plans_at(w->sh->space, index, &plan);
    if (skip != PE_SKIP_NONE) {
        w->counts.skipped[skip] += count;
        return true;
    }
    return visit_plan(w, plans_ctx(w->sh->space, index, w->sh->ctx), index, &plan, count);
}

/* Whether the kept rows' statuses are the best top_k of the done prefix's
 * counts: ranked ok, over_time, over_memory, invalid (of the statuses kept),
 * the best K are as many of each as fill K in that order. A checkpoint this
 * run wrote always agrees; one edited and re-signed whose row swaps a plan
 * of a better class for one of a worse (or the counts for others) does not.
 * (A swap within one status is past any check short of evaluating the
 * prefix again: a checksum is no signature, docs/sweeps.md.) */
static bool resumed_statuses_fit(const worker *resumed, const pe_run_options *opt,
                                 uint64_t want[4], uint64_t got[4])
{
    uint64_t left = opt->top_k;
    for (int k = 0; k < 4; k++) {
        const bool kept = !opt->status_mask || (opt->status_mask >> k & 1u);
        const uint64_t n = kept && opt->resume_counts ? opt->resume_counts->by_status[k] : 0;
        want[k] = n < left ? n : left;
        left -= want[k];
        got[k] = 0;
    }
    for (size_t i = 0; i < resumed->count; i++)
        got[resumed->rows[i].result.status]++;
    for (int k = 0; k < 4; k++)
        if (want[k] != got[k])
            return false;
    return true;
}

/* The rows kept before the restart, evaluated again (pure), not counted.
 * Fewer than top_k of them, so each is kept unless --status drops it: a
 * checkpoint of this run never holds such a row (its fingerprint covers
 * --status), so one that does was edited, and would lose a best plan. */
static pe_status keep_resumed_rows(worker *resumed, const pe_run_options *opt, pe_error *err)
{
    for (size_t i = 0; opt->top_k && i < opt->resume_row_count; i++) {
        const size_t before = resumed->count;
        if (opt->resume_rows[i] >= plans_total(resumed->sh->space))
            continue; /* refused before the run (checkpoint_check_plans) */
        if (!visit(resumed, opt->resume_rows[i], false))
            resumed->oom = true;
        else if (resumed->count == before)
            return pe_fail(err, PE_BAD_INPUT, opt->resume_path, 0, 0,
                           "damaged checkpoint: kept row %llu is of a status this run does not "
                           "keep (--status); remove it to start over",
                           (unsigned long long)opt->resume_rows[i]);
    }
    uint64_t want[4], got[4];
    if (opt->top_k && opt->resume_row_count && !resumed->oom &&
        !resumed_statuses_fit(resumed, opt, want, got))
        return pe_fail(err, PE_BAD_INPUT, opt->resume_path, 0, 0,
                       "damaged checkpoint: its kept rows are %llu ok, %llu over_time, %llu "
                       "over_memory, %llu invalid, where the best %llu of its counts are %llu, "
                       "%llu, %llu, %llu; remove it to start over",
                       (unsigned long long)got[0], (unsigned long long)got[1],
                       (unsigned long long)got[2], (unsigned long long)got[3],
                       (unsigned long long)opt->top_k, (unsigned long long)want[0],
                       (unsigned long long)want[1], (unsigned long long)want[2],
                       (unsigned long long)want[3]);
    return PE_OK;
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    for (;;) {
        if (sh->stop && *sh->stop)
            break;
        uint64_t c = atomic_fetch_add_explicit(&sh->next_chunk, 1, memory_order_relaxed);
        uint64_t room = sh->last - sh->start;
        if (c >= (room + PE_RUN_CHUNK - 1) / PE_RUN_CHUNK)
            break;
        uint64_t lo = sh->start + c * PE_RUN_CHUNK;
        uint64_t hi = room - c * PE_RUN_CHUNK > PE_RUN_CHUNK ? lo + PE_RUN_CHUNK : sh->last;
        const uint64_t evaluated_before = w->counts.evaluated;
        pe_plan_cursor cur;
        plans_seek(sh->space, lo, &cur);
        while (cur.index < hi) {
            pe_plan plan;
            uint64_t span;
            int axis;
            pe_skip skip = plans_cursor_plan(sh->space, &cur, &plan, &span, &axis);
            if (skip != PE_SKIP_NONE) { /* a whole skipped sub-tree at once */
                bool whole = span <= hi - cur.index;
                if (!whole)
                    span = hi - cur.index;
                if (cur.index >= sh->count_from)
                    w->counts.skipped[skip] += span;
                else if (cur.index + span > sh->count_from)
                    w->counts.skipped[skip] += cur.index + span - sh->count_from;
                if (whole)
                    plans_next_at_axis(sh->space, &cur, axis);
                else
                    plans_advance(sh->space, &cur, span);
                continue;
            }
            if (!visit_plan(w, plans_cursor_ctx(sh->space, &cur, sh->ctx), cur.index, &plan,
                            cur.index >= sh->count_from)) {
                w->oom = true;
                break;
            }
            plans_advance(sh->space, &cur, 1);
        }
        atomic_fetch_add_explicit(&sh->evaluated, w->counts.evaluated - evaluated_before,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&sh->done, hi - lo, memory_order_relaxed);
        if (w->oom)
            break;
    }
    atomic_fetch_sub_explicit(&sh->running, 1, memory_order_release);
    return NULL;
}

static void add_counts(pe_run_counts *to, const pe_run_counts *from)
{
    to->evaluated += from->evaluated;
    for (int i = 0; i < PE_SKIP_COUNT; i++)
        to->skipped[i] += from->skipped[i];
    for (int i = 0; i < 4; i++)
        to->by_status[i] += from->by_status[i];
    for (int i = 0; i < PE_RULE_COUNT; i++)
        to->by_rule[i] += from->by_rule[i];
}

/* Progress on stderr: plans done, plans/s, ETA; a few times a second. */
static void show_progress(shared *sh, uint64_t total, double t0, bool final)
{
    uint64_t done = atomic_load_explicit(&sh->done, memory_order_relaxed);
    double dt = now_s() - t0;
    double rate = dt > 0 ? (double)done / dt : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\r%llu/%llu combinations (%.1f%%), %.3g/s, ETA %.0f s   %s",
            (unsigned long long)done, (unsigned long long)total,
            total ? 100.0 * (double)done / (double)total : 100.0, rate, eta, final ? "\n" : "");
    fflush(stderr);
}

/* One progress line for a log (stderr off a terminal): whole numbers,
 * nothing redrawn. */
static void show_progress_line(shared *sh, const char *label, uint64_t total, double t0)
{
    uint64_t done = atomic_load_explicit(&sh->done, memory_order_relaxed);
    uint64_t evaluated = atomic_load_explicit(&sh->evaluated, memory_order_relaxed);
    double dt = now_s() - t0;
    double rate = dt > 0 ? (double)done / dt : 0;
    fprintf(stderr,
            "%s: progress: %llu of %llu combinations done (%.1f%%), %llu plans evaluated, "
            "%.0f plans/s, %.0f s elapsed, about %.0f s left\n",
            label ? label : "run", (unsigned long long)done, (unsigned long long)total,
            total ? 100.0 * (double)done / (double)total : 100.0,
            (unsigned long long)evaluated, dt > 0 ? (double)evaluated / dt : 0.0, dt,
            rate > 0 ? (double)(total - done) / rate : 0.0);
    fflush(stderr);
}

/* While the workers run: redraw (opt->progress) a few times a second, or
 * a line every opt->progress_every_s seconds. */
static void watch_workers(shared *sh, int idle, uint64_t total, const pe_run_options *opt,
                          double t0)
{
    double last_shown = opt->progress ? 0 : now_s(); /* a redraw at once, a line later */
    while (atomic_load_explicit(&sh->running, memory_order_acquire) > idle) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (opt->progress && now_s() - last_shown >= 0.25) {
            show_progress(sh, total, t0, false);
            last_shown = now_s();
        } else if (!opt->progress && now_s() - last_shown >= opt->progress_every_s) {
            show_progress_line(sh, opt->progress_label, total, t0);
            last_shown = now_s();
        }
    }
    if (opt->progress)
        show_progress(sh, total, t0, true);
}

/* Start the workers (or work here when no thread starts), show progress,
 * wait for them. */
static void run_workers(shared *sh, worker *ws, int threads, uint64_t total,
                        const pe_run_options *opt, double t0)
{
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    int started = 0;
    for (int t = 0; tids && t < threads; t++, started++)
        if (pthread_create(&tids[t], NULL, work, &ws[t]) != 0)
            break;
    if (started == 0) { /* no thread could start: work here */
        atomic_store(&sh->running, 1);
        work(&ws[0]);
    }
    if ((opt->progress || opt->progress_every_s > 0) && started > 0)
        watch_workers(sh, threads - started, total, opt, t0);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
}

/* Every worker's rows in one array (*rows, *n) and their counts into out;
 * frees the workers' rows. */
static pe_status collect_rows(worker *ws, int workers, const pe_run_options *opt,
                              pe_run_result *out, pe_row **rows, size_t *n, pe_error *err)
{
    pe_status st = PE_OK;
    *n = 0;
    for (int t = 0; t < workers; t++) {
        *n += ws[t].count;
        if (ws[t].oom)
            st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory keeping report rows");
    }
    *rows = st == PE_OK ? malloc((*n ? *n : 1) * sizeof **rows) : NULL;
    if (st == PE_OK && !*rows)
        st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory merging report rows");
    size_t k = 0;
    if (opt->resume_counts)
        add_counts(&out->counts, opt->resume_counts);
    for (int t = 0; t < workers; t++) {
        if (*rows && ws[t].count)
            memcpy(*rows + k, ws[t].rows, ws[t].count * sizeof **rows);
        k += ws[t].count;
        add_counts(&out->counts, &ws[t].counts);
        out->evaluated_here += ws[t].counts.evaluated;
        free(ws[t].rows);
    }
    return st;
}

/* Rank the rows into out; where the sweep stood. A full report's ranking
 * gives up on a stop request (then out is interrupted with no rows and
 * next == last: a resume re-evaluates for the rows but counts nothing
 * again); top-K rows (at most threads × K) are always ranked, since the
 * checkpoint keeps the best K. */
static void rank_rows(const shared *sh, const pe_run_options *opt, uint64_t resume,
                      uint64_t chunks, pe_row *rows, size_t n, pe_run_result *out)
{
    /* every chunk handed out was finished: the done prefix ends at the
     * first chunk not handed out */
    uint64_t handed = atomic_load(&sh->next_chunk);
    uint64_t reached = handed >= chunks ? sh->last : sh->start + handed * PE_RUN_CHUNK;
    if (reached < resume) /* stopped while re-evaluating the done prefix */
        reached = resume;
    out->next = reached > sh->last ? sh->last : reached;
    out->interrupted = out->next < sh->last;
    if (opt->top_k)
        rank_sort(rows, n);
    else if (out->interrupted || !rank_sort_until(rows, n, opt->stop)) {
        n = 0;
        out->interrupted = true;
    }
    if (opt->top_k && n > opt->top_k)
        n = (size_t)opt->top_k;
    out->rows = rows;
    out->row_count = n;
}

pe_status runner_run(const pe_plan_space *space, const pe_eval_ctx *ctx,
                     const pe_run_options *opt, pe_run_result *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    uint64_t first = opt->first, last = opt->last ? opt->last : plans_total(space);
    if (last > plans_total(space))
        last = plans_total(space);
    if (first > last)
        first = last;
    /* Top-K resume: the done prefix is represented by its kept rows alone;
     * a full report re-evaluates the prefix for its rows, counting nothing. */
    uint64_t resume = opt->resume_next > first ? opt->resume_next : first;
    if (resume > last)
        resume = last;
    shared sh = {.space = space,
                 .ctx = ctx,
                 .status_mask = opt->status_mask,
                 .top_k = opt->top_k,
                 .start = opt->top_k ? resume : first,
                 .last = last,
                 .count_from = resume,
                 .stop = opt->stop};
    rank_order_of(space->scenario, &sh.order);
    atomic_init(&sh.next_chunk, 0);
    atomic_init(&sh.done, 0);
    atomic_init(&sh.evaluated, 0);
    int threads = opt->threads < 1 ? 1 : opt->threads;
    uint64_t chunks = (last - sh.start + PE_RUN_CHUNK - 1) / PE_RUN_CHUNK;
    if ((uint64_t)threads > chunks)
        threads = chunks ? (int)chunks : 1;
    atomic_init(&sh.running, threads);
    worker *ws = calloc((size_t)threads + 1, sizeof *ws); /* +1: the resumed rows */
    if (!ws)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    for (int t = 0; t <= threads; t++)
        ws[t].sh = &sh;
    pe_status kept = keep_resumed_rows(&ws[threads], opt, err);
    if (kept != PE_OK) {
        free(ws[threads].rows);
        free(ws);
        return kept;
    }
    run_workers(&sh, ws, threads, last - sh.start, opt, t0);
    pe_row *rows = NULL;
    size_t n = 0;
    pe_status st = collect_rows(ws, threads + 1, opt, out, &rows, &n, err);
    free(ws);
    if (st != PE_OK) {
        free(rows);
        return st;
    }
    out->first = first;
    out->last = last;
    rank_rows(&sh, opt, resume, chunks, rows, n, out);
    out->wall_s = now_s() - t0;
    return PE_OK;
}

void runner_free(pe_run_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}
