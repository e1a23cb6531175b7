/* grade.c — `planeval grade` (see grade.h): the key's reference answers,
 * submissions read as untrusted YAML, the mistake matcher, the grades CSV.
 *
 * Reference answers come from the evaluator and the runner only: a column
 * of a plan is the report's figure (interface.md "Report CSV"), fits is
 * model.md M6, comm_bound is S3, the minimum intervention and the best plan
 * follow §9. A mistake is recomputed on a modified copy of the scenario
 * (reserve_gib 0, optimizer_bytes − 4, bandwidths × 2) or from the
 * evaluator's detail (k(0) = 1), or is arithmetic on the right value
 * (GB vs GiB: × 2^30/10^9; the bubble: f/(1+f), since (p−1)/(m+p−1) =
 * ((p−1)/m) / (1 + (p−1)/m)). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "model/detail.h"
#include "cli/grade.h"
#include "input/load.h"
#include "model/memory.h"
#include "sweep/plans.h"
#include "sweep/rank.h"
#include "output/report.h"
#include "sweep/runner.h"
#include "input/yamlutil.h"

#define GB_PER_GIB (PE_GIB / 1e9) /* 1.073741824 */
#define CELL_MAX 240              /* bytes of submitted text echoed in a cell */
#define TEXT_MAX 1024             /* expected, error and feedback cells */

static const char *const MISTAKE_NAMES[PE_MISTAKE_COUNT] = {
    "",
    "forgot the framework reserve",
    "GB vs GiB",
    "12 instead of 16 bytes per parameter",
    "2 instead of 16 bytes per parameter",
    "forgot the in-flight micro-batches on the first pipeline stage",
    "used bidirectional link bandwidth",
    "counted (p-1)/(m+p-1) instead of (p-1)/m",
};

const char *grade_mistake_name(pe_mistake m)
{
    return (unsigned)m < PE_MISTAKE_COUNT ? MISTAKE_NAMES[m] : "";
}

/* ================================================================ figures */

bool grade_column_value(const pe_result *r, const pe_plan *p, pe_column col, double *out)
{
    /* interface.md: an invalid plan fills rank … micro_batch only. */
    if (r->status == PE_STATUS_INVALID && col >= COL_MICROBATCHES)
        return false;
    double v;
    switch (col) {
    case COL_GPUS: v = (double)r->gpus; break;
    case COL_DP: v = (double)p->dp; break;
    case COL_TP: v = (double)p->tp; break;
    case COL_PP: v = (double)p->pp; break;
    case COL_CP: v = (double)p->cp; break;
    case COL_ZERO: v = (double)p->zero; break;
    case COL_VIRTUAL_STAGES: v = (double)p->virtual_stages; break;
    case COL_MICRO_BATCH: v = (double)p->micro_batch; break;
    case COL_MICROBATCHES: v = (double)r->microbatches; break;
    case COL_WORST_STAGE: v = r->worst_stage; break;
    case COL_MEM_WEIGHTS_GIB: v = r->mem_weights_gib; break;
    case COL_MEM_GRADS_GIB: v = r->mem_grads_gib; break;
    case COL_MEM_OPTIMIZER_GIB: v = r->mem_optimizer_gib; break;
    case COL_MEM_ACTIVATIONS_GIB: v = r->mem_activations_gib; break;
    case COL_MEM_OTHER_GIB: v = r->mem_other_gib; break;
    case COL_MEM_RESERVE_GIB: v = r->mem_reserve_gib; break;
    case COL_MEM_TOTAL_GIB: v = r->mem_total_gib; break;
    case COL_MEM_BUDGET_GIB: v = r->mem_budget_gib; break;
    case COL_MEM_HEADROOM_GIB: v = r->mem_headroom_gib; break;
    case COL_COMPUTE_S: v = r->compute_s; break;
    case COL_TP_COMM_S: v = r->tp_comm_s; break;
    case COL_CP_COMM_S: v = r->cp_comm_s; break;
    case COL_BUBBLE_S: v = r->bubble_s; break;
    case COL_PP_COMM_S: v = r->pp_comm_s; break;
    case COL_DP_COMM_S: v = r->dp_comm_s; break;
    case COL_OPTIMIZER_S: v = r->optimizer_s; break;
    case COL_STEP_TIME_S: v = r->step_time_s; break;
    case COL_COMM_FRACTION: v = r->comm_fraction; break;
    case COL_BUBBLE_FRACTION: v = r->bubble_fraction; break;
    case COL_TOKENS_PER_S: v = r->tokens_per_s; break;
    case COL_MFU: v = r->mfu; break;
    case COL_HFU: v = r->hfu; break;
    case COL_TFLOPS_PER_GPU: v = r->tflops_per_gpu; break;
    case COL_TRAIN_DAYS:
    case COL_GPU_HOURS:
        if (!r->has_train_days)
            return false;
        v = col == COL_TRAIN_DAYS ? r->train_days : r->gpu_hours;
        break;
    case COL_INTERVENTIONS: v = r->interventions; break;
    case COL_STATE_TOTAL_GIB: v = r->state_total_gib; break;
    case COL_ACT_TOTAL_GIB: v = r->act_total_gib; break;
    case COL_EP_COMM_S: v = r->ep_comm_s; break;             /* issue 11 */
    case COL_MEM_EXPERTS_GIB: v = r->mem_experts_gib; break; /* issue 11 */
    default: return false; /* rank, text and boolean columns */
    }
    *out = v;
    return true;
}

static bool is_gib_column(pe_column col)
{
    const char *n = pe_columns[col].name;
    size_t len = strlen(n);
    return len > 4 && strcmp(n + len - 4, "_gib") == 0;
}

static void eval_on(const pe_scenario *s, const pe_plan *p, pe_result *r)
{
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    evaluate_plan(&ctx, p, r);
}

/* Status from the failed bits (model.md §9: over_memory › over_time › ok). */
static pe_plan_status status_of(uint32_t failed)
{
    if (failed & PE_FAIL_RULES)
        return PE_STATUS_INVALID;
    if (failed & PE_FAIL_MEMORY)
        return PE_STATUS_OVER_MEMORY;
    return failed ? PE_STATUS_OVER_TIME : PE_STATUS_OK;
}

/* One micro-batch in flight on stage 0: A6 = A_layer·(L/p)·1 (full
 * recompute: A_in·(L/p)·1 + A_layer) and A7 with k_first = 1, everything
 * else as the evaluator has it (model.md A6, A7, M5). Variant 0 describes
 * stage 0; variant 1 the wrong model's memory-worst stage when that is the
 * last one. */
static bool inflight_result(const pe_scenario *s, const pe_plan *p, int variant,
                            pe_result *out)
{
    if (variant > 1 || p->pp < 2)
        return false;
    pe_eval_ctx ctx;
    evaluate_prepare(s, &ctx);
    pe_detail d;
    evaluate_plan_detail(&ctx, p, out, &d);
    if (!d.valid || !(d.k[0] > 1))
        return false;
    const bool full = p->recompute == PE_RECOMPUTE_FULL;
    const double a6 = full ? d.a_in * d.lps + d.a_layer : d.a_layer * d.lps;
    const double a7 = d.k_first > 0 ? d.a7[0] / d.k_first : d.a7[0];
    const double tot0 = d.total[0] - d.a6[0] - d.a7[0] + a6 + a7;
    const bool last = variant == 1;
    if (last && !(d.total[1] > tot0))
        return false;
    const int i = last ? 1 : 0;
    const double total = last ? d.total[1] : tot0;
    out->worst_stage = last ? (int)(p->pp - 1) : 0;
    out->mem_weights_gib = d.m1[i] / PE_GIB;
    out->mem_grads_gib = d.m2[i] / PE_GIB;
    out->mem_optimizer_gib = d.m3[i] / PE_GIB;
    out->mem_activations_gib = (last ? d.a6[1] : a6) / PE_GIB;
    out->mem_other_gib = (d.m4 + (last ? d.a7[1] : a7) + d.a8[i]) / PE_GIB;
    out->mem_total_gib = total / PE_GIB;
    out->mem_headroom_gib = out->mem_budget_gib - out->mem_total_gib;
    const double worst = tot0 > d.total[1] ? tot0 : d.total[1];
    out->failed &= ~(uint32_t)PE_FAIL_MEMORY;
    if (!(worst <= ctx.budget_bytes)) /* M6 */
        out->failed |= PE_FAIL_MEMORY;
    out->status = status_of(out->failed);
    return true;
}

bool grade_mistake_result(const pe_scenario *s, const pe_plan *p, pe_mistake m, int variant,
                          pe_result *out)
{
    pe_scenario alt = *s; /* shallow: the evaluator only reads it */
    const pe_precision *pr = &s->precision;
    const bool sixteen = pr->param_bytes + pr->grad_bytes + pr->optimizer_bytes == 16;
    const bool in = s->cluster.intra_node.present && s->cluster.gpus_per_node > 1;
    const bool ex = s->cluster.inter_node.present && s->cluster.nodes > 1;
    switch (m) {
    case PE_MISTAKE_RESERVE:
        if (variant != 0 || !(s->cluster.reserve_gib > 0))
            return false;
        alt.cluster.reserve_gib = 0;
        break;
    case PE_MISTAKE_BYTES_12: /* 2 + 2 + 8: Adam's m and v without the fp32 master copy */
        if (variant != 0 || !sixteen || pr->optimizer_bytes < 4)
            return false;
        alt.precision.optimizer_bytes = pr->optimizer_bytes - 4;
        break;
    case PE_MISTAKE_BYTES_2: /* the bf16 weights alone */
        if (variant != 0 || !sixteen || pr->param_bytes != 2)
            return false;
        alt.precision.grad_bytes = 0;
        alt.precision.optimizer_bytes = 0;
        break;
    case PE_MISTAKE_BIDIRECTIONAL:
        /* variant 0: every link; 1: intra-node only; 2: inter-node only */
        if (variant > 2 || (variant == 0 && !in && !ex) || (variant > 0 && !(in && ex)))
            return false;
        if (variant != 2 && in) {
            alt.cluster.intra_node.link_gb_s *= 2;
            alt.cluster.intra_node.bandwidth_gb_s *= 2;
        }
        if (variant != 1 && ex)
            alt.cluster.inter_node.nic_gb_s *= 2;
        break;
    case PE_MISTAKE_INFLIGHT: return inflight_result(s, p, variant, out);
    default: return false;
    }
    eval_on(&alt, p, out);
    return out->status != PE_STATUS_INVALID;
}

static void push_unique(double *out, size_t *n, size_t max, double v, double right)
{
    /* a mistake that leaves the figure as it is (to rounding) changes nothing */
    if (*n >= max || !isfinite(v) || fabs(v - right) <= 1e-12 * fabs(right))
        return;
    for (size_t i = 0; i < *n; i++)
        if (out[i] == v)
            return;
    out[(*n)++] = v;
}

size_t grade_mistake_values(const pe_scenario *s, const pe_plan *p, pe_column col,
                            pe_mistake m, double *out, size_t max)
{
    pe_result r;
    double v;
    eval_on(s, p, &r);
    if (!grade_column_value(&r, p, col, &v))
        return 0;
    size_t n = 0;
    if (m == PE_MISTAKE_GB_GIB) {
        if (is_gib_column(col) && v != 0) /* bytes / 10^9 written as GiB */
            push_unique(out, &n, max, v * GB_PER_GIB, v);
        return n;
    }
    if (m == PE_MISTAKE_BUBBLE) {
        /* model.md §7: bubble_fraction = (p−1)/m for B1; the other formula
         * is (p−1)/(m+p−1) = f/(1+f). */
        if (col == COL_BUBBLE_FRACTION && v > 0)
            push_unique(out, &n, max, v / (1 + v), v);
        return n;
    }
    for (int variant = 0; variant < 4; variant++) {
        pe_result w;
        double x;
        if (grade_mistake_result(s, p, m, variant, &w) && grade_column_value(&w, p, col, &x))
            push_unique(out, &n, max, x, v);
    }
    return n;
}

bool grade_within(double x, double ref, pe_tol_kind kind, double tol)
{
    switch (kind) {
    case PE_TOL_REL: return fabs(x - ref) <= tol * fabs(ref);
    case PE_TOL_ABS: return fabs(x - ref) <= tol;
    case PE_TOL_EXACT: break;
    }
    return x == ref;
}

static double rel_dist(double x, double ref)
{
    double d = fabs(x - ref);
    return ref != 0 ? d / fabs(ref) : d;
}

static void consider(pe_mistake_match *best, bool *found, double *best_d, double cand,
                     pe_mistake m, pe_mistake also, double expected, double submitted,
                     pe_tol_kind kind, double tol)
{
    if (!isfinite(cand) || grade_within(cand, expected, kind, tol) ||
        grade_within(expected, cand, kind, tol))
        return; /* indistinguishable from the right answer */
    if (!grade_within(submitted, cand, kind, tol))
        return;
    double d = rel_dist(submitted, cand);
    if (!*found || d < *best_d) {
        *found = true;
        *best_d = d;
        *best = (pe_mistake_match){m, also, cand};
    }
}

bool grade_match_mistake(const pe_scenario *s, const pe_plan *p, pe_column col, double expected,
                         double submitted, pe_tol_kind kind, double tol, pe_mistake_match *out)
{
    enum { MAXV = 8 };
    double vals[MAXV];
    bool found = false;
    double best_d = 0;
    *out = (pe_mistake_match){PE_MISTAKE_NONE, PE_MISTAKE_NONE, 0};
    for (int m = 1; m < PE_MISTAKE_COUNT; m++) {
        size_t n = grade_mistake_values(s, p, col, (pe_mistake)m, vals, MAXV);
        for (size_t i = 0; i < n; i++)
            consider(out, &found, &best_d, vals[i], (pe_mistake)m, PE_MISTAKE_NONE, expected,
                     submitted, kind, tol);
    }
    if (found || !is_gib_column(col))
        return found;
    /* Two at once: a model mistake, and the result in GB. */
    for (int m = 1; m < PE_MISTAKE_COUNT; m++) {
        if (m == PE_MISTAKE_GB_GIB || m == PE_MISTAKE_BUBBLE)
            continue;
        size_t n = grade_mistake_values(s, p, col, (pe_mistake)m, vals, MAXV);
        for (size_t i = 0; i < n; i++)
            consider(out, &found, &best_d, vals[i] * GB_PER_GIB, (pe_mistake)m,
                     PE_MISTAKE_GB_GIB, expected, submitted, kind, tol);
    }
    return found;
}

static bool fits_of(const pe_result *r)
{
    return r->status != PE_STATUS_INVALID && !(r->failed & PE_FAIL_MEMORY);
}

static bool comm_bound_of(const pe_result *r)
{
    return r->status != PE_STATUS_INVALID && r->bound == PE_BOUND_COMMUNICATION;
}

/* The first model mistake under which plan p's fits (or comm_bound) is
 * `answer`; PE_MISTAKE_NONE when none. */
static pe_mistake flip_mistake(const pe_scenario *s, const pe_plan *p, pe_ask ask, bool answer)
{
    static const pe_mistake model[] = {PE_MISTAKE_RESERVE, PE_MISTAKE_BYTES_12,
                                       PE_MISTAKE_BYTES_2, PE_MISTAKE_INFLIGHT,
                                       PE_MISTAKE_BIDIRECTIONAL};
    for (size_t i = 0; i < sizeof model / sizeof model[0]; i++)
        for (int variant = 0; variant < 4; variant++) {
            pe_result w;
            if (!grade_mistake_result(s, p, model[i], variant, &w))
                continue;
            bool v = ask == PE_ASK_COMM_BOUND ? comm_bound_of(&w) : fits_of(&w);
            if (v == answer)
                return model[i];
        }
    return PE_MISTAKE_NONE;
}

/* What the mistake is, for the feedback cell. */
static void mistake_explain(const pe_scenario *s, const pe_plan *p, pe_mistake m, char *buf,
                            size_t size)
{
    switch (m) {
    case PE_MISTAKE_RESERVE:
        snprintf(buf, size,
                 "forgot the framework reserve: that is the figure without reserve_gib = %g "
                 "GiB per GPU (model.md M5)",
                 s->cluster.reserve_gib);
        return;
    case PE_MISTAKE_GB_GIB:
        snprintf(buf, size,
                 "GB vs GiB: that is the figure off by the factor 2^30/10^9 = 1.0737 (memory "
                 "is reported in GiB = 2^30 bytes; GB = 10^9 bytes, model.md §0)");
        return;
    case PE_MISTAKE_BYTES_12:
        snprintf(buf, size,
                 "12 instead of 16 bytes per parameter: that is the figure without the fp32 "
                 "master weights; mixed-precision Adam keeps 2 (bf16 weights) + 2 (gradients) "
                 "+ 12 (fp32 master copy, m, v) = 16 bytes per parameter (ZeRO §3)");
        return;
    case PE_MISTAKE_BYTES_2:
        snprintf(buf, size,
                 "2 instead of 16 bytes per parameter: that counts only the bf16 weights; "
                 "gradients and optimizer state add 14 bytes per parameter (ZeRO §3)");
        return;
    case PE_MISTAKE_INFLIGHT: {
        pe_eval_ctx ctx;
        pe_result r;
        pe_detail d;
        evaluate_prepare(s, &ctx);
        evaluate_plan_detail(&ctx, p, &r, &d);
        snprintf(buf, size,
                 "forgot the in-flight micro-batches on the first pipeline stage: that is the "
                 "figure with one micro-batch of activations, but under %s with pp=%lld stage 0 "
                 "holds k(0) = %g micro-batches (model.md A6)",
                 pe_schedule_name(p->schedule), (long long)p->pp, d.valid ? d.k[0] : 0.0);
        return;
    }
    case PE_MISTAKE_BIDIRECTIONAL:
        snprintf(buf, size,
                 "used bidirectional link bandwidth: that is the figure with twice the "
                 "per-direction bandwidth; *_gb_s are per direction (a link quoted as 128 GB/s "
                 "bidirectional is 64 GB/s, model.md §0)");
        return;
    case PE_MISTAKE_BUBBLE:
        snprintf(buf, size,
                 "counted (p-1)/(m+p-1) instead of (p-1)/m: bubble_fraction is the bubble "
                 "relative to the m micro-batches' work, bubble / (m*(t_f + t_b)) (model.md §7)");
        return;
    default: buf[0] = '\0'; return;
    }
}

/* ================================================================ plans */

static bool eat(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0)
        return false;
    *p += n;
    return true;
}

/* A whole number >= 1 without leading zeros, at most 2^53. */
static bool eat_whole(const char **p, int64_t *out)
{
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return false;
    int64_t v = 0;
    size_t n = 0;
    while (*s >= '0' && *s <= '9') {
        if (++n > 16)
            return false;
        v = v * 10 + (*s++ - '0');
    }
    if (v > PE_INT_MAX)
        return false;
    *out = v;
    *p = s;
    return true;
}

static bool eat_word(const char **p, const char *const *values, const char *after, int *out)
{
    for (int i = 0; values[i]; i++) {
        const char *q = *p;
        if (eat(&q, values[i]) && strncmp(q, after, strlen(after)) == 0) {
            *p = q;
            *out = i;
            return true;
        }
    }
    return false;
}

bool grade_parse_canonical(const char *text, const pe_overlap *overlap, pe_plan *out)
{
    static const char *const rec[] = {"none", "selective", "full", NULL};
    static const char *const sch[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2", NULL};
    pe_plan p;
    memset(&p, 0, sizeof p);
    const char *c = text;
    int r = 0, sc = 0;
    if (!(eat(&c, "dp") && eat_whole(&c, &p.dp) && eat(&c, "-tp") && eat_whole(&c, &p.tp) &&
          eat(&c, "-pp") && eat_whole(&c, &p.pp) && eat(&c, "-cp") && eat_whole(&c, &p.cp) &&
          eat(&c, "-z")))
        return false;
    if (*c < '0' || *c > '3')
        return false;
    p.zero = *c++ - '0';
    if (!(eat(&c, "-") && eat_word(&c, rec, "-mb", &r) && eat(&c, "-mb") &&
          eat_whole(&c, &p.micro_batch) && eat(&c, "-") && eat_word(&c, sch, "-v", &sc) &&
          eat(&c, "-v") && eat_whole(&c, &p.virtual_stages) && eat(&c, "-sp")))
        return false;
    if (*c != '0' && *c != '1')
        return false;
    const char sp_digit = *c++;
    /* issue 11's optional tail: -ep{n} -etp{n} -fs{n} -ls{n} -off */
    int64_t *const tail_value[] = {&p.ep, &p.etp, &p.first_stage_layers, &p.last_stage_layers};
    static const char *const tail_tag[] = {"-ep", "-etp", "-fs", "-ls"};
    for (size_t i = 0; i < 4; i++) {
        const char *q = c;
        if (eat(&q, tail_tag[i]) && eat_whole(&q, tail_value[i]))
            c = q;
    }
    p.offload_optimizer = eat(&c, "-off");
    if (*c != '\0')
        return false;
    p.recompute = (pe_recompute)r;
    p.schedule = (pe_schedule)sc;
    p.sequence_parallel = sp_digit == '1' && p.tp > 1; /* model.md §0 */
    p.overlap = *overlap;
    scenario_plan_defaults(&p); /* issue 11: ep 1, etp = tp */
    *out = p;
    return true;
}

/* ================================================================ cells */

static bool starts_formula(const unsigned char *s, size_t len)
{
    if (len == 0)
        return false;
    if (strchr("=+-@\t\r", s[0]) && s[0] != '\0')
        return true;
    /* full-width ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20) */
    if (len >= 3 && s[0] == 0xEF &&
        ((s[1] == 0xBC && (s[2] == 0x9D || s[2] == 0x8B || s[2] == 0x8D)) ||
         (s[1] == 0xBC && s[2] == 0xA0)))
        return true;
    return false;
}

void grade_safe_cell(const char *in, size_t len, size_t max_len, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0, skip = 0;
    if (size < 8) {
        if (size)
            out[0] = '\0';
        return;
    }
    while (skip < len && s[skip] == ' ')
        skip++;
    if (starts_formula(s, len) || starts_formula(s + skip, len - skip))
        out[o++] = '\'';
    size_t n = len;
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
}

/* %.6g: what the expected cell and the feedback show. */
static void fmt_num(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.6g", v);
}

/* Points rounded to hundredths, without trailing zeros: 1, 0.5, 2.67. */
static void fmt_points(double v, char *buf, size_t size)
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

/* ================================================================ the grades file */

static const char *const HEADER[] = {"student",        "question",        "expected",
                                     "submitted",      "error",           "points_awarded",
                                     "points_possible", "feedback",       "file"};
enum { NCOLS = sizeof HEADER / sizeof HEADER[0] };

/* The grades file goes through the report writer (libcsv quoting, a
 * temporary file renamed into place); a row's write error is kept and
 * reported when the file is committed. */
typedef struct {
    pe_report *w;
    pe_status st;
    pe_error err;
} out_file;

/* One row: cells are already safe (grade_safe_cell) or generated by us. */
typedef struct {
    const char *cell[NCOLS];
} row;

static void put_row(out_file *o, const row *r)
{
    if (o->st == PE_OK)
        o->st = report_write_cells(o->w, r->cell, NCOLS, &o->err);
}

static pe_status out_open(out_file *o, const char *path, pe_error *err)
{
    memset(o, 0, sizeof *o);
    return report_open_cells(path, HEADER, NCOLS, &o->w, err);
}

static pe_status out_commit(out_file *o, pe_error *err)
{
    if (o->st != PE_OK) {
        report_abort(o->w);
        *err = o->err;
        return o->st;
    }
    return report_commit(o->w, err);
}

static void out_abort(out_file *o) { report_abort(o->w); }

/* ================================================================ the key */

typedef struct {
    pe_plan plan;     /* the plan asked about, or the reference plan */
    pe_result result; /* its evaluation */
    char shown[PE_NAME_MAX + PE_CANON_MAX + 8]; /* "name (canonical)" or canonical */
    double value;     /* column: the expected number */
    int interventions; /* min_intervention: the fewest that fit */
    double step;      /* chosen_plan: the fastest ok plan's step time */
    pe_rank_key key;  /* best_plan: rank 1's keys */
    char expected[TEXT_MAX];
} key_answer;

typedef struct {
    const pe_scenario *s;
    pe_eval_ctx ctx;
    key_answer *ans; /* one per question */
    double possible; /* sum of points */
} grader;

static void show_plan(const pe_plan *p, const char *name, char *buf, size_t size)
{
    char canon[PE_CANON_MAX];
    plans_canonical(p, canon, sizeof canon);
    if (name && name[0] && strcmp(name, canon) != 0)
        snprintf(buf, size, "%s (%s)", name, canon);
    else
        snprintf(buf, size, "%s", canon);
}

/* The key's plan reference: an explicit plan's name or canonical text (as
 * `expect` resolves it), else any canonical text with the scenario's overlap. */
static bool key_plan(const pe_scenario *s, const char *ref, pe_plan *out)
{
    for (size_t i = 0; i < s->plan_count; i++)
        if (strcmp(s->plans[i].name, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    char canon[PE_CANON_MAX];
    for (size_t i = 0; i < s->plan_count; i++) {
        plans_canonical(&s->plans[i], canon, sizeof canon);
        if (strcmp(canon, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    }
    return grade_parse_canonical(ref, &s->overlap, out);
}

__attribute__((format(printf, 4, 5))) static pe_status
key_fail(pe_error *err, const pe_scenario *s, const pe_question *q, const char *fmt, ...)
{
    char msg[PE_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pe_fail(err, PE_BAD_INPUT, s->file, q->line, q->col, "question %s: %.900s", q->id,
                   msg);
}

/* Reference answers of every question (rows: the scenario's ranked plans). */
static pe_status key_prepare(grader *g, const pe_plan_space *space, const pe_run_result *rr,
                             pe_error *err)
{
    const pe_scenario *s = g->s;
    for (size_t i = 0; i < s->question_count; i++) {
        const pe_question *q = &s->questions[i];
        key_answer *k = &g->ans[i];
        g->possible += q->points;
        char num[64], reason[TEXT_MAX];
        switch (q->ask) {
        case PE_ASK_COLUMN:
        case PE_ASK_FITS:
        case PE_ASK_COMM_BOUND: {
            if (!key_plan(s, q->plan, &k->plan))
                return key_fail(err, s, q, "no plan named '%s'", q->plan);
            evaluate_plan(&g->ctx, &k->plan, &k->result);
            show_plan(&k->plan, k->plan.name, k->shown, sizeof k->shown);
            if (k->result.status == PE_STATUS_INVALID) {
                evaluate_format_reason(&g->ctx, &k->plan, &k->result, reason, sizeof reason);
                return key_fail(err, s, q, "plan '%s' is invalid (%s), so it has no answer",
                                q->plan, reason);
            }
            if (q->ask == PE_ASK_COLUMN) {
                int col = columns_find(q->column);
                if (col < 0 || !grade_column_value(&k->result, &k->plan, (pe_column)col, &k->value))
                    return key_fail(err, s, q, "%s does not apply to plan '%s'", q->column,
                                    q->plan);
                fmt_num(k->value, k->expected, sizeof k->expected);
            } else {
                bool v = q->ask == PE_ASK_FITS ? fits_of(&k->result) : comm_bound_of(&k->result);
                snprintf(k->expected, sizeof k->expected, "%s", v ? "true" : "false");
            }
            break;
        }
        case PE_ASK_MIN_INTERVENTION: {
            /* model.md §9: the fewest knobs moved among plans that fit
             * (M6); the fastest of those, then canonical text, shown. */
            const pe_row *best = NULL;
            for (size_t r = 0; r < rr->row_count; r++) {
                const pe_row *w = &rr->rows[r];
                if (!fits_of(&w->result))
                    continue;
                if (!best || w->result.interventions < best->result.interventions ||
                    (w->result.interventions == best->result.interventions &&
                     (w->result.step_time_s < best->result.step_time_s ||
                      (w->result.step_time_s == best->result.step_time_s &&
                       strcmp(w->canon, best->canon) < 0))))
                    best = w;
            }
            if (!best)
                return key_fail(err, s, q, "no plan of %s fits in memory, so %s has no answer",
                                s->name, "min_intervention");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->interventions = best->result.interventions;
            show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            snprintf(k->expected, sizeof k->expected, "%d interventions, e.g. %s",
                     k->interventions, k->shown);
            break;
        }
        case PE_ASK_BEST_PLAN: {
            const pe_row *best = rr->row_count ? &rr->rows[0] : NULL;
            if (!best || best->result.status != PE_STATUS_OK)
                return key_fail(err, s, q, "no plan of %s meets the budgets, so %s has no answer",
                                s->name, "best_plan");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->key = best->key;
            show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            snprintf(k->expected, sizeof k->expected, "%s", k->shown);
            break;
        }
        case PE_ASK_CHOSEN_PLAN: {
            const pe_row *best = NULL;
            for (size_t r = 0; r < rr->row_count; r++) {
                const pe_row *w = &rr->rows[r];
                if (w->result.status != PE_STATUS_OK)
                    continue;
                if (!best || w->result.step_time_s < best->result.step_time_s ||
                    (w->result.step_time_s == best->result.step_time_s &&
                     strcmp(w->canon, best->canon) < 0))
                    best = w;
            }
            if (!best)
                return key_fail(err, s, q, "no plan of %s meets the budgets, so %s has no answer",
                                s->name, "chosen_plan");
            plans_at(space, best->index, &k->plan);
            k->result = best->result;
            k->step = best->result.step_time_s;
            show_plan(&k->plan, best->name, k->shown, sizeof k->shown);
            fmt_num(k->step, num, sizeof num);
            snprintf(k->expected, sizeof k->expected, "meets the budgets; fastest: %s, %s s",
                     k->shown, num);
            break;
        }
        }
    }
    return PE_OK;
}

/* ================================================================ one answer */

typedef struct {
    char submitted[CELL_MAX + 16];
    char error[TEXT_MAX];
    char feedback[TEXT_MAX];
    double awarded;
    bool right; /* full points */
} verdict;

/* "L:C: message" of a failed read (the file is in its own column). */
static void error_text(const pe_error *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "%d:%d: %.900s", e->line, e->col, e->msg);
    else
        snprintf(buf, size, "%s", e->msg);
}

/* The text of a scalar answer as written, or what the node is. */
static void answer_text(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_SCALAR_NODE) {
        snprintf(buf, size, "%.*s", (int)(y_len(n) < size ? y_len(n) : size - 1), y_text(n));
        return;
    }
    y_describe(n, buf, size);
}

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
        fmt_num(q->tol, t, sizeof t);
        snprintf(buf, size, "within %s", t);
    } else if (q->tol > 0) {
        fmt_num(100 * q->tol, t, sizeof t);
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

static void grade_number(const grader *g, const pe_question *q, const key_answer *k,
                         const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    double x;
    if (y_get_number(d, n, path, PE_RANGE_NONE, &x, &e) != PE_OK) {
        error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "answer with a number (no units): %s of %s",
                 q->column, k->shown);
        return;
    }
    char tol[64], off[64], cmd[PE_NAME_MAX + 64];
    tol_text(q, tol, sizeof tol);
    if (grade_within(x, k->value, q->tol_kind, q->tol)) {
        v->awarded = q->points;
        v->right = true;
        snprintf(v->feedback, sizeof v->feedback, "correct (%s)", tol);
        return;
    }
    pct_text(x, k->value, off, sizeof off);
    snprintf(v->feedback, sizeof v->feedback, "wrong: off by %s (needs %s)", off, tol);
    pe_mistake_match mm;
    int col = columns_find(q->column);
    if (grade_match_mistake(g->s, &k->plan, (pe_column)col, k->value, x, q->tol_kind, q->tol,
                            &mm)) {
        char why[TEXT_MAX / 2];
        mistake_explain(g->s, &k->plan, mm.mistake, why, sizeof why);
        add(v->feedback, sizeof v->feedback, "; %s", why);
        if (mm.also != PE_MISTAKE_NONE) {
            mistake_explain(g->s, &k->plan, mm.also, why, sizeof why);
            add(v->feedback, sizeof v->feedback, "; and %s", why);
        }
        return;
    }
    snprintf(cmd, sizeof cmd, "%s", k->plan.name[0] ? k->plan.name : "");
    if (!cmd[0])
        plans_canonical(&k->plan, cmd, sizeof cmd);
    add(v->feedback, sizeof v->feedback,
        "; no usual mistake gives this number: compare your working with planeval explain "
        "%s --plan %s",
        g->s->name, cmd);
}

static void memory_text(const pe_result *r, char *buf, size_t size)
{
    char a[64], b[64];
    fmt_num(r->mem_total_gib, a, sizeof a);
    fmt_num(r->mem_budget_gib, b, sizeof b);
    snprintf(buf, size, "mem_total_gib %s %s budget %s GiB", a, fits_of(r) ? "<=" : ">", b);
}

static void bound_text(const pe_result *r, char *buf, size_t size)
{
    char a[64], b[64], c[64];
    fmt_num(r->compute_s, a, sizeof a);
    fmt_num(r->tp_comm_s + r->cp_comm_s + r->pp_comm_s + r->dp_comm_s + r->ep_comm_s, b, sizeof b);
    fmt_num(r->bubble_s, c, sizeof c);
    snprintf(buf, size, "bound is %s: compute %s s, communication %s s, bubble %s s (model.md S3)",
             pe_bound_name(r->bound), a, b, c);
}

static void grade_bool(const grader *g, const pe_question *q, const key_answer *k,
                       const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    bool x;
    if (y_get_bool(d, n, path, &x, &e) != PE_OK) {
        error_text(&e, v->error, sizeof v->error);
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
    pe_mistake m = flip_mistake(g->s, &k->plan, q->ask, x);
    if (m != PE_MISTAKE_NONE) {
        char ex[TEXT_MAX / 2];
        mistake_explain(g->s, &k->plan, m, ex, sizeof ex);
        add(v->feedback, sizeof v->feedback, "; that answer is what a usual mistake gives: %s",
            ex);
    }
}

/* A plan answer: an explicit plan's name, a canonical text, or a mapping
 * of plan keys (interface.md "Plans"; no name, no overlap). */
static pe_status read_plan(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *n,
                           const char *path, pe_plan *out, char *shown, size_t shown_size,
                           pe_error *err)
{
    if (y_is_string(n)) {
        char text[PE_NAME_MAX];
        pe_status st = y_get_label(d, n, path, text, sizeof text, err);
        if (st)
            return st;
        for (size_t i = 0; i < s->plan_count; i++)
            if (strcmp(s->plans[i].name, text) == 0) {
                *out = s->plans[i]; /* as the drill defines it, overlap included */
                show_plan(out, text, shown, shown_size);
                return PE_OK;
            }
        if (grade_parse_canonical(text, &s->overlap, out)) {
            show_plan(out, NULL, shown, shown_size);
            return PE_OK;
        }
        char q[96];
        y_quote(text, strlen(text), q, sizeof q);
        return y_fail(err, d, n,
                      "%s: %s is not a plan: write the canonical text "
                      "dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-{schedule}-v{v}-sp{0|1} "
                      "(e.g. dp8-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1) or a mapping of plan keys",
                      path, q);
    }
    if (n->type != YAML_MAPPING_NODE) {
        char desc[128];
        y_describe(n, desc, sizeof desc);
        return y_fail(err, d, n,
                      "%s: expected a plan (canonical text or a mapping of plan keys), got %s",
                      path, desc);
    }
    pe_plan p;
    memset(&p, 0, sizeof p);
    p.tp = p.pp = p.cp = 1; /* interface.md "Plans": defaults */
    p.recompute = PE_RECOMPUTE_NONE;
    p.micro_batch = 1;
    p.schedule = PE_SCHEDULE_1F1B;
    p.virtual_stages = 1;
    p.overlap = s->overlap;
    pe_layer layer = {d, n};
    pe_applied a;
    pe_status st = y_apply(&pe_fields_plan, &layer, 1, path, &p, &a, err);
    if (st)
        return st;
    const char *fixed[] = {"name", "overlap"};
    for (size_t i = 0; i < 2; i++) {
        size_t fi = y_field_index(&pe_fields_plan, fixed[i]);
        if (a.set[fi])
            return y_fail(err, d, a.key[fi],
                          "%s: an answer's plan takes no %s (overlap is the drill's)", path,
                          fixed[i]);
    }
    size_t di = y_field_index(&pe_fields_plan, "dp");
    if (!a.set[di])
        return y_fail(err, d, n, "missing required key 'dp' in %s", path);
    char fp[PE_YPATH_MAX];
    y_path(fp, path, "dp");
    const yaml_node_t *dpn = a.value[di];
    if (y_is_plain_word(dpn, "auto")) {
        int64_t N = s->cluster.nodes * s->cluster.gpus_per_node, prod = 1;
        const int64_t f[3] = {p.tp, p.pp, p.cp};
        bool whole = true;
        for (int i = 0; i < 3 && whole; i++) {
            if (f[i] > N / prod)
                whole = false;
            else
                prod *= f[i];
        }
        if (!whole || N % prod != 0)
            return y_fail(err, d, dpn,
                          "%s: auto needs N/(tp*pp*cp) to be whole, but N = %lld GPUs and "
                          "tp*pp*cp = %lld*%lld*%lld",
                          fp, (long long)N, (long long)p.tp, (long long)p.pp, (long long)p.cp);
        p.dp = N / prod;
    } else if ((st = y_get_int(d, dpn, fp, PE_RANGE_WHOLE, &p.dp, err))) {
        return st;
    }
    if (!a.set[y_field_index(&pe_fields_plan, "sequence_parallel")])
        p.sequence_parallel = p.tp > 1; /* model.md §0 */
    if (p.tp == 1)
        p.sequence_parallel = false;
    scenario_plan_defaults(&p); /* issue 11: ep 1, etp = tp */
    *out = p;
    show_plan(out, NULL, shown, shown_size);
    return PE_OK;
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
        pe_mistake m = flip_mistake(g->s, p, PE_ASK_FITS, true);
        if (m != PE_MISTAKE_NONE)
            add(buf, size, "; it would fit only under a usual mistake: %s",
                grade_mistake_name(m));
    }
}

/* Which knobs a plan moves (model.md §9). */
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

static void grade_plan(const grader *g, const pe_question *q, const key_answer *k,
                       const pe_ydoc *d, const yaml_node_t *n, const char *path, verdict *v)
{
    pe_error e = {0};
    pe_plan p;
    char shown[PE_NAME_MAX + PE_CANON_MAX + 8];
    if (read_plan(g->s, d, n, path, &p, shown, sizeof shown, &e) != PE_OK) {
        error_text(&e, v->error, sizeof v->error);
        snprintf(v->feedback, sizeof v->feedback, "answer with a plan");
        return;
    }
    grade_safe_cell(shown, strlen(shown), CELL_MAX, v->submitted, sizeof v->submitted);
    pe_result r;
    evaluate_plan(&g->ctx, &p, &r);
    char a[64], b[64], off[64], knobs[64];
    switch (q->ask) {
    case PE_ASK_MIN_INTERVENTION: {
        if (!fits_of(&r)) {
            not_ok_text(g, &p, &r, v->feedback, sizeof v->feedback);
            return;
        }
        char mem[128];
        memory_text(&r, mem, sizeof mem);
        knobs_text(&p, knobs, sizeof knobs);
        if (r.interventions <= k->interventions) {
            v->awarded = q->points;
            v->right = true;
            snprintf(v->feedback, sizeof v->feedback,
                     "correct: fits (%s) with %d intervention%s%s%s%s",
                     mem, r.interventions, r.interventions == 1 ? "" : "s",
                     knobs[0] ? " (" : "", knobs, knobs[0] ? ")" : "");
            if (r.interventions < k->interventions)
                add(v->feedback, sizeof v->feedback, "; fewer than the key's %d",
                    k->interventions);
            return;
        }
        v->awarded = q->points / 2; /* it fits, but moves more knobs than needed */
        snprintf(v->feedback, sizeof v->feedback,
                 "half marks: fits (%s) but moves %d knobs (%s); %d suffice, e.g. %s",
                 mem, r.interventions, knobs, k->interventions, k->shown);
        return;
    }
    case PE_ASK_BEST_PLAN: {
        if (r.status != PE_STATUS_OK) {
            not_ok_text(g, &p, &r, v->feedback, sizeof v->feedback);
            return;
        }
        pe_rank_key key;
        rank_key_of(g->s->rank_by, &r, &key);
        bool tie = q->tol > 0 ? key.status == k->key.status &&
                                    grade_within(key.key1, k->key.key1, PE_TOL_REL, q->tol) &&
                                    grade_within(key.key2, k->key.key2, PE_TOL_REL, q->tol)
                              : rank_compare_keys(&key, &k->key) == 0;
        if (tie) {
            v->awarded = q->points;
            v->right = true;
            char canon[PE_CANON_MAX], kc[PE_CANON_MAX];
            plans_canonical(&p, canon, sizeof canon);
            plans_canonical(&k->plan, kc, sizeof kc);
            if (strcmp(canon, kc) == 0)
                snprintf(v->feedback, sizeof v->feedback, "correct: rank 1 by %s",
                         pe_rank_by_name(g->s->rank_by));
            else
                snprintf(v->feedback, sizeof v->feedback, "correct: ties with rank 1 (%s) by %s",
                         k->shown, pe_rank_by_name(g->s->rank_by));
            return;
        }
        fmt_num(r.step_time_s, a, sizeof a);
        fmt_num(k->result.step_time_s, b, sizeof b);
        pct_text(r.step_time_s, k->result.step_time_s, off, sizeof off);
        snprintf(v->feedback, sizeof v->feedback,
                 "wrong: meets the budgets but is not the best by %s: step_time %s s vs %s s "
                 "(%s)",
                 pe_rank_by_name(g->s->rank_by), a, b, off);
        if (g->s->rank_by == PE_RANK_INTERVENTIONS)
            add(v->feedback, sizeof v->feedback, ", %d interventions vs %d", r.interventions,
                k->result.interventions);
        return;
    }
    case PE_ASK_CHOSEN_PLAN: {
        if (r.status != PE_STATUS_OK) {
            not_ok_text(g, &p, &r, v->feedback, sizeof v->feedback);
            return;
        }
        fmt_num(r.step_time_s, a, sizeof a);
        fmt_num(k->step, b, sizeof b);
        if (r.step_time_s <= k->step * (1 + q->tol)) {
            v->awarded = q->points;
            v->right = true;
            pct_text(r.step_time_s, k->step, off, sizeof off);
            snprintf(v->feedback, sizeof v->feedback,
                     "correct: meets the budgets; step_time %s s vs the fastest plan's %s s (%s)",
                     a, b, off);
            return;
        }
        /* Partial credit in proportion to speed: best / yours. */
        const double score = k->step / r.step_time_s;
        v->awarded = q->points * score;
        char sc[32], slower[32];
        fmt_num(round(score * 1000) / 10, sc, sizeof sc);
        snprintf(slower, sizeof slower, "%.3g", 100 * (r.step_time_s / k->step - 1));
        snprintf(v->feedback, sizeof v->feedback,
                 "meets the budgets, but step_time %s s is %s%% slower than the fastest plan "
                 "(%s, %s s): %s%% of the points",
                 a, slower, k->shown, b, sc);
        return;
    }
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
    answer_text(n, raw, sizeof raw);
    grade_safe_cell(raw, strlen(raw), CELL_MAX, v->submitted, sizeof v->submitted);
    if (n->type == YAML_SCALAR_NODE && y_len(n) > CELL_MAX) {
        /* the cut text above; the length is part of the story */
        char t[64];
        snprintf(t, sizeof t, " (%zu bytes)", y_len(n));
        add(v->submitted, sizeof v->submitted, "%s", t);
    }
    switch (q->ask) {
    case PE_ASK_COLUMN: grade_number(g, q, k, d, n, path, v); break;
    case PE_ASK_FITS:
    case PE_ASK_COMM_BOUND: grade_bool(g, q, k, d, n, path, v); break;
    default: grade_plan(g, q, k, d, n, path, v); break;
    }
}

/* ================================================================ one submission */

typedef struct {
    char **ids; /* students graded so far, and the file of each */
    char **files;
    size_t count, cap;
} seen_list;

static void seen_free(seen_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->ids[i]);
        free(l->files[i]);
    }
    free(l->ids);
    free(l->files);
}

static bool seen_add(seen_list *l, const char *id, const char *file)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **a = realloc(l->ids, cap * sizeof *a);
        if (!a)
            return false;
        l->ids = a;
        char **b = realloc(l->files, cap * sizeof *b);
        if (!b)
            return false;
        l->files = b;
        l->cap = cap;
    }
    l->ids[l->count] = strdup(id);
    l->files[l->count] = strdup(file);
    if (!l->ids[l->count] || !l->files[l->count]) {
        free(l->ids[l->count]);
        free(l->files[l->count]);
        return false;
    }
    l->count++;
    return true;
}

static const char *seen_find(const seen_list *l, const char *id)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->ids[i], id) == 0)
            return l->files[i];
    return NULL;
}

typedef struct {
    size_t submissions, rejected;
} tally;

/* Rows of a submission that could not be read: the error, then the total. */
static void write_rejected(out_file *o, const grader *g, const char *student, const char *file,
                           const pe_error *e)
{
    char msg[TEXT_MAX], safe_msg[TEXT_MAX + 8], total[32], possible[32];
    error_text(e, msg, sizeof msg);
    grade_safe_cell(msg, strlen(msg), TEXT_MAX - 8, safe_msg, sizeof safe_msg);
    fmt_points(g->possible, possible, sizeof possible);
    fmt_points(0, total, sizeof total);
    row r = {{student, "", "", "", safe_msg, "0", "0", "submission rejected: nothing graded",
              file}};
    put_row(o, &r);
    row t = {{student, "total", "", "", safe_msg, total, possible,
              "submission rejected: fix the error and resubmit", file}};
    put_row(o, &t);
}

/* The student id: text, or a whole number written plainly. */
static pe_status read_student(const pe_ydoc *d, const yaml_node_t *n, char *buf, size_t size,
                              pe_error *err)
{
    if (y_kind(n) == PE_Y_INT && y_text(n)[0] != '-' && y_text(n)[0] != '+') {
        if (y_len(n) >= size)
            return y_fail(err, d, n, "student is too long (%zu bytes; at most %zu)", y_len(n),
                          size - 1);
        snprintf(buf, size, "%s", y_text(n));
        return PE_OK;
    }
    return y_get_label(d, n, "student", buf, size, err);
}

/* Rows of one submission. Whatever is wrong with it (unreadable, not YAML,
 * hostile, another drill, a student graded twice) is its row, never an
 * error of the run. */
static void grade_submission(out_file *o, const grader *g, seen_list *seen, const char *path,
                             tally *t)
{
    const pe_scenario *s = g->s;
    char file[PE_PATH_MAX + 16], student[PE_NAME_MAX], safe_student[PE_NAME_MAX + 16];
    grade_safe_cell(path, strlen(path), PE_PATH_MAX, file, sizeof file);
    safe_student[0] = '\0';
    t->submissions++;
    pe_error e = {0};
    char *data = NULL;
    size_t size = 0;
    pe_ydoc d;
    memset(&d, 0, sizeof d);
    /* Anything wrong with the file is the submission's row, not the run's. */
    pe_status st = pe_read_file(path, &data, &size, &e);
    if (st == PE_OK)
        st = ydoc_parse(&d, path, data, size, &e);
    free(data);
    const yaml_node_t *root = st == PE_OK ? ydoc_root(&d) : NULL;
    pe_applied a;
    if (st == PE_OK && root->type != YAML_MAPPING_NODE) {
        char desc[128];
        y_describe(root, desc, sizeof desc);
        st = y_fail(&e, &d, root, "a submission is a mapping (student, drill, answers), got %s",
                    desc);
    }
    if (st == PE_OK) {
        pe_layer layer = {&d, root};
        st = y_apply(&pe_fields_submission, &layer, 1, "", NULL, &a, &e);
    }
    if (st == PE_OK)
        for (size_t i = 0; i < pe_fields_submission.count && st == PE_OK; i++)
            if (!a.set[i])
                st = y_fail(&e, &d, root, "missing required key '%s'",
                            pe_fields_submission.fields[i].key);
#define SV(k_) (a.value[y_field_index(&pe_fields_submission, k_)])
    if (st == PE_OK) {
        st = read_student(&d, SV("student"), student, sizeof student, &e);
        if (st == PE_OK)
            grade_safe_cell(student, strlen(student), PE_NAME_MAX, safe_student,
                            sizeof safe_student);
    }
    if (st == PE_OK) {
        char drill[PE_NAME_MAX];
        st = y_get_label(&d, SV("drill"), "drill", drill, sizeof drill, &e);
        if (st == PE_OK && strcmp(drill, s->name) != 0) {
            char q[96];
            y_quote(drill, strlen(drill), q, sizeof q);
            st = y_fail(&e, &d, SV("drill"),
                        "wrong drill: the submission answers %s, but this key grades \"%s\"", q,
                        s->name);
        }
    }
    const yaml_node_t *answers = st == PE_OK ? SV("answers") : NULL;
#undef SV
    if (st == PE_OK)
        st = y_want_map(&d, answers, "answers", &e);
    if (st == PE_OK) {
        const char *prev = seen_find(seen, student);
        if (prev)
            st = pe_fail(&e, PE_BAD_INPUT, path, 0, 0,
                         "student '%s' was already graded from %s; one submission per student",
                         student, prev);
        else if (!seen_add(seen, student, path))
            st = pe_fail(&e, PE_INTERNAL, path, 0, 0, "out of memory");
    }
    if (st != PE_OK) {
        t->rejected++;
        write_rejected(o, g, safe_student, file, &e);
        ydoc_free(&d);
        return;
    }

    /* One row per question of the key, in key order. */
    double total = 0;
    size_t right = 0;
    char pts[32], possible[32], err_cell[TEXT_MAX + 8], fb_cell[TEXT_MAX + 8], qid[PE_NAME_MAX + 8];
    char exp_cell[TEXT_MAX + 8];
    for (size_t i = 0; i < s->question_count; i++) {
        const pe_question *q = &s->questions[i];
        verdict v;
        memset(&v, 0, sizeof v);
        const yaml_node_t *n = y_map_get(&d, answers, q->id);
        if (n)
            grade_answer(g, i, &d, n, &v);
        else
            snprintf(v.feedback, sizeof v.feedback, "not answered");
        v.awarded = round(v.awarded * 100) / 100;
        total += v.awarded;
        right += v.right;
        fmt_points(v.awarded, pts, sizeof pts);
        fmt_points(q->points, possible, sizeof possible);
        grade_safe_cell(v.error, strlen(v.error), TEXT_MAX - 8, err_cell, sizeof err_cell);
        grade_safe_cell(v.feedback, strlen(v.feedback), TEXT_MAX - 8, fb_cell, sizeof fb_cell);
        grade_safe_cell(q->id, strlen(q->id), PE_NAME_MAX, qid, sizeof qid);
        grade_safe_cell(g->ans[i].expected, strlen(g->ans[i].expected), TEXT_MAX - 8, exp_cell,
                        sizeof exp_cell);
        row r = {{safe_student, qid, exp_cell, v.submitted, err_cell, pts, possible,
                  fb_cell, file}};
        put_row(o, &r);
    }
    /* Answers to questions the key does not have, in file order; a row
     * each for the first UNKNOWN_ROWS, then one row counting the rest (a
     * hostile file may hold 50,000 of them). */
    enum { UNKNOWN_ROWS = 20 };
    size_t unknown = 0;
    const char *ids[256];
    size_t nid = 0;
    for (size_t i = 0; i < s->question_count && nid < 256; i++)
        ids[nid++] = s->questions[i].id;
    for (const yaml_node_pair_t *pr = answers->data.mapping.pairs.start;
         pr < answers->data.mapping.pairs.top; pr++) {
        const yaml_node_t *kn = ydoc_node(&d, pr->key), *vn = ydoc_node(&d, pr->value);
        bool known = false;
        for (size_t i = 0; i < s->question_count && !known; i++)
            known = y_len(kn) == strlen(s->questions[i].id) &&
                    memcmp(y_text(kn), s->questions[i].id, y_len(kn)) == 0;
        if (known || ++unknown > UNKNOWN_ROWS)
            continue;
        char q[96], msg[TEXT_MAX], raw[CELL_MAX + 1], sub[CELL_MAX + 16];
        y_quote(y_text(kn), y_len(kn), q, sizeof q);
        q[0] = q[strlen(q) - 1] = '\'';
        const char *sug = y_suggest(y_text(kn), y_len(kn), ids, nid);
        snprintf(msg, sizeof msg, "%d:%d: unknown question id %s%s%s%s", y_line(kn), y_col(kn),
                 q, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
        grade_safe_cell(msg, strlen(msg), TEXT_MAX - 8, err_cell, sizeof err_cell);
        grade_safe_cell(y_text(kn), y_len(kn), CELL_MAX, qid, sizeof qid);
        answer_text(vn, raw, sizeof raw);
        grade_safe_cell(raw, strlen(raw), CELL_MAX, sub, sizeof sub);
        row r = {{safe_student, qid, "", sub, err_cell, "0", "0",
                  "not graded: the drill has no such question", file}};
        put_row(o, &r);
    }
    if (unknown > UNKNOWN_ROWS) {
        snprintf(err_cell, sizeof err_cell, "%zu more unknown question ids",
                 unknown - UNKNOWN_ROWS);
        row r = {{safe_student, "", "", "", err_cell, "0", "0",
                  "not graded: the drill has no such questions", file}};
        put_row(o, &r);
    }
    fmt_points(total, pts, sizeof pts);
    fmt_points(g->possible, possible, sizeof possible);
    snprintf(fb_cell, sizeof fb_cell, "%zu of %zu questions right", right, s->question_count);
    row tr = {{safe_student, "total", "", "", "", pts, possible, fb_cell, file}};
    put_row(o, &tr);
    ydoc_free(&d);
}

/* ================================================================ the command */

static pe_status grade_all(const pe_scenario *s, const pe_file_list *subs,
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
        st = key_prepare(&g, &space, &rr, err);
    out_file o;
    bool open = false;
    if (st == PE_OK) {
        st = out_open(&o, out_path, err);
        open = st == PE_OK;
    }
    seen_list seen = {0};
    for (size_t i = 0; st == PE_OK && i < subs->count; i++)
        grade_submission(&o, &g, &seen, subs->paths[i], t);
    if (open) {
        if (st == PE_OK)
            st = out_commit(&o, err);
        else
            out_abort(&o);
    }
    seen_free(&seen);
    runner_free(&rr);
    plans_free(&space);
    free(g.ans);
    return st;
}

int command_grade(const pe_catalog *catalog, const char *key_path, const pe_file_list *subs,
                  const pe_grade_options *opt)
{
    pe_scenario s;
    pe_error err = {0};
    pe_status st = load_scenario(key_path, catalog, &s, &err);
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    if (s.question_count == 0) {
        pe_fail(&err, PE_BAD_INPUT, key_path, 0, 0,
                "the key has no questions: block; grade needs a drill scenario with a grading "
                "key");
        opt->on_error(&err);
        scenario_free(&s);
        return PE_BAD_INPUT;
    }
    char out_path[PE_PATH_MAX];
    if (opt->output)
        snprintf(out_path, sizeof out_path, "%s", opt->output);
    else
        snprintf(out_path, sizeof out_path, "out/%s-grades.csv", s.name);
    tally t = {0, 0};
    st = grade_all(&s, subs, opt, out_path, &t, &err);
    if (st != PE_OK)
        opt->on_error(&err);
    else if (!opt->quiet)
        fprintf(stderr, "%s: %zu submission%s graded, %zu rejected (see the error column) -> %s\n",
                s.name, t.submissions - t.rejected, t.submissions - t.rejected == 1 ? "" : "s",
                t.rejected, out_path);
    scenario_free(&s);
    return st;
}
