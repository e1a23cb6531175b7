/* grade_mistakes.c — the mistake matcher of `planeval grade` (grade.h):
 * a report column's figure, the figure under each usual mistake, which
 * mistake reproduces a submitted number or a wrong true/false, and what
 * the feedback says about it.
 *
 * A mistake is recomputed on a modified copy of the scenario (reserve_gib
 * 0, optimizer_bytes − 4, bandwidths × 2) or from the evaluator's detail
 * (k(0) = 1), or is arithmetic on the right value (GB vs GiB: × 2^30/10^9;
 * the bubble: f/(1+f), since (p−1)/(m+p−1) = ((p−1)/m) / (1 + (p−1)/m)). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grade/grade_internal.h"
#include "model/detail.h"
#include "model/memory.h"
#include "output/report_read.h"

#define GB_PER_GIB (PE_GIB / 1e9) /* 1.073741824 */

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
    return report_column_value(r, p, col, out);
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

/* The status the evaluator gives these failed bits (docs/model.md §9:
 * over_memory, GPU or host, › over_time › ok). The model has no function
 * for it (evaluate.c writes it inline), so it is restated here. */
static pe_plan_status status_of(uint32_t failed)
{
    if (failed & PE_FAIL_RULES)
        return PE_STATUS_INVALID;
    if (failed & (PE_FAIL_MEMORY | PE_FAIL_HOST_MEMORY))
        return PE_STATUS_OVER_MEMORY;
    return failed ? PE_STATUS_OVER_TIME : PE_STATUS_OK;
}

/* The memory columns of candidate stage i (0, 1 = the last, 2 = a middle
 * one; detail.h) as the evaluator writes them for its worst stage, with
 * stage 0's activations a6 and a7 given. */
static void stage_memory(const pe_plan *p, const pe_detail *d, int i, double a6, double a7,
                         double total, pe_result *out)
{
    out->worst_stage = i == 0 ? 0 : i == 1 ? (int)(p->pp - 1) : (int)d->mid_stage;
    const double a12 = d->moe.n_moe[i] > 0 ? d->moe.a12 : 0.0; /* 0 for a dense model */
    out->mem_weights_gib = d->m1[i] / PE_GIB;
    out->mem_grads_gib = d->m2[i] / PE_GIB;
    out->mem_optimizer_gib = d->m3[i] / PE_GIB;
    out->mem_activations_gib = (i == 0 ? a6 : d->a6[i]) / PE_GIB;
    out->mem_other_gib = (d->m4 + (i == 0 ? a7 : d->a7[i]) + d->a8[i] + a12) / PE_GIB;
    out->mem_experts_gib = d->moe.mem_experts[i] / PE_GIB;
    out->mem_total_gib = total / PE_GIB;
    out->mem_headroom_gib = out->mem_budget_gib - out->mem_total_gib;
}

/* One micro-batch in flight on stage 0: the evaluator's own stage-0
 * activations (its detail record: A6, or A6' with the MoE layers, on the
 * stage's own layers) and A7 taken at k(0) = k_first = 1, everything else
 * as the evaluator has it (docs/model.md A6, A7, M5, M6). A6 is k(0) times
 * the in-flight part, plus under full recompute the widest layer's
 * activations, which do not scale with k. Variant 0 describes stage 0;
 * variant 1 the wrong model's memory-worst stage when that is another. */
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
    const double per_mb = full ? d.a_in * d.stage_layers[0] : d.a6[0] / d.k[0];
    const double a6 = full ? d.a6[0] - (d.k[0] - 1.0) * per_mb : per_mb;
    const double a7 = d.k_first > 0 ? d.a7[0] / d.k_first : d.a7[0];
    double total[3] = {d.total[0] - d.a6[0] - d.a7[0] + a6 + a7, d.total[1], d.total[2]};
    int worst = 0, other = 1; /* the wrong model's worst stage, and the worst but stage 0 */
    for (int i = 1; i < d.stages; i++) {
        other = total[i] > total[other] ? i : other;
        worst = total[i] > total[worst] ? i : worst;
    }
    if (variant == 1 && worst == 0)
        return false;
    const int i = variant == 1 ? other : 0;
    stage_memory(p, &d, i, a6, a7, total[i], out);
    out->failed &= ~(uint32_t)PE_FAIL_MEMORY;
    if (!mem_fits(total[worst], ctx.budget_bytes)) /* M6 */
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
        /* docs/model.md §7: bubble_fraction = (p−1)/m for B1; the other formula
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

/* The first model mistake under which plan p's fits (or comm_bound) is
 * `answer`; PE_MISTAKE_NONE when none. */
pe_mistake grade_flip_mistake(const pe_scenario *s, const pe_plan *p, pe_ask ask, bool answer)
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
void grade_mistake_explain(const pe_scenario *s, const pe_plan *p, pe_mistake m, char *buf,
                            size_t size)
{
    switch (m) {
    case PE_MISTAKE_RESERVE:
        snprintf(buf, size,
                 "forgot the framework reserve: that is the figure without reserve_gib = %g "
                 "GiB per GPU (docs/model.md M5)",
                 s->cluster.reserve_gib);
        return;
    case PE_MISTAKE_GB_GIB:
        snprintf(buf, size,
                 "GB vs GiB: that is the figure off by the factor 2^30/10^9 = 1.0737 (memory "
                 "is reported in GiB = 2^30 bytes; GB = 10^9 bytes, docs/model.md §0)");
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
                 "holds k(0) = %g micro-batches (docs/model.md A6)",
                 pe_schedule_name(p->schedule), (long long)p->pp, d.valid ? d.k[0] : 0.0);
        return;
    }
    case PE_MISTAKE_BIDIRECTIONAL:
        snprintf(buf, size,
                 "used bidirectional link bandwidth: that is the figure with twice the "
                 "per-direction bandwidth; *_gb_s are per direction (a link quoted as 128 GB/s "
                 "bidirectional is 64 GB/s, docs/model.md §0)");
        return;
    case PE_MISTAKE_BUBBLE:
        snprintf(buf, size,
                 "counted (p-1)/(m+p-1) instead of (p-1)/m: bubble_fraction is the bubble "
                 "relative to the m micro-batches' work, bubble / (m*(t_f + t_b)) (docs/model.md §7)");
        return;
    default: buf[0] = '\0'; return;
    }
}
