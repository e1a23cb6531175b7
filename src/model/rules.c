/* rules.c — the validity rules V1–V15 (docs/model.md §1, §14; rules.h):
 * one row per rule with its check, its `reason` text and explain's line,
 * and the `reason` cell built from them and the §9 budgets. */
#include "model/rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline_layout.h"
#include "model/memory.h"

/* ------------------------------------------------------------- text */

struct pe_text {
    char *buf;
    size_t size, len;
    int items; /* entries written so far, for the "; " separator */
};

__attribute__((format(printf, 2, 3))) static void put(pe_text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    const int n = vsnprintf(dst, dst ? o->size - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* Start a new "; "-separated entry. */
static void entry(pe_text *o)
{
    if (o->items++)
        put(o, "; ");
}

/* Shortest text that reads back as v: fixed-point in the everyday range
 * (192, 0.5, 27.9), else %g. */
static void fmt_shortest(char *out, size_t size, double v)
{
    if (fabs(v) >= 1e-4 && fabs(v) < 1e15)
        for (int decimals = 0; decimals <= 17; decimals++) {
            snprintf(out, size, "%.*f", decimals, v);
            if (strtod(out, NULL) == v)
                return;
        }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* v with at least `decimals` decimals (%.Nf) or, with sig > 0, `sig`
 * significant digits (%.Ng), adding digits until the text still shows the
 * failed comparison against limit (v > limit when greater, else v < limit)
 * and is not a rounded-away 0. */
static void fmt_vs(char *out, size_t size, double v, int decimals, int sig, double limit,
                   int greater)
{
    for (int k = 0; k <= 17; k++) {
        if (sig > 0)
            snprintf(out, size, "%.*g", sig + k, v);
        else
            snprintf(out, size, "%.*f", decimals + k, v);
        const double back = strtod(out, NULL);
        if ((greater ? back > limit : back < limit) && (back != 0.0 || v == 0.0))
            return;
    }
}

int pe_product_text(char *buf, size_t size, const int64_t *factors, int n)
{
    int64_t product = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++)
        overflow |= __builtin_mul_overflow(product, factors[i], &product);
    if (!overflow)
        return snprintf(buf, size, "%lld", (long long)product);
    int len = 0;
    for (int i = 0; i < n && (size_t)len < size; i++)
        len += snprintf(buf + len, size - (size_t)len, "%s%lld", i ? "*" : "",
                        (long long)factors[i]);
    return len;
}

/* ------------------------------------------------------------- V1–V8 */

static bool holds_v1(const pe_eval_ctx *c, const pe_plan *p) { return rule_v1(c, p); }
static bool holds_v2(const pe_eval_ctx *c, const pe_plan *p) { return rule_v2(c, p); }
static bool holds_v3(const pe_eval_ctx *c, const pe_plan *p) { return rule_v3(c, p); }
static bool holds_v4(const pe_eval_ctx *c, const pe_plan *p) { return rule_v4(c, p); }
static bool holds_v5(const pe_eval_ctx *c, const pe_plan *p) { return rule_v5(c, p); }
static bool holds_v6(const pe_eval_ctx *c, const pe_plan *p) { return rule_v6(c, p); }
static bool holds_v7(const pe_eval_ctx *c, const pe_plan *p) { return rule_v7(c, p); }
static bool holds_v8(const pe_eval_ctx *c, const pe_plan *p) { return rule_v8(c, p); }

static void reason_v1(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    char prod[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->dp, p->tp, p->pp, p->cp}, 4);
    put(o, "V1: dp*tp*pp*cp=%s != gpus=%lld", prod, (long long)ctx->gpus);
    (void)r;
}

static void reason_v2(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long t = p->tp;
    put(o, "V2: tp=%lld does not divide", t);
    const char *sep = " ";
    if (ctx->heads % t) {
        put(o, "%sheads=%lld", sep, (long long)ctx->heads);
        sep = ", ";
    }
    if (ctx->kv_heads % t) {
        put(o, "%skv_heads=%lld", sep, (long long)ctx->kv_heads);
        sep = ", ";
    }
    if (ctx->ffn_hidden % t)
        put(o, "%sffn_hidden=%lld", sep, (long long)ctx->ffn_hidden);
    (void)r;
}

/* V3′: why the first/last stage layers do not add up. */
static void reason_uneven(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p)
{
    const long long L = ctx->layers, f = p->first_stage_layers, l = p->last_stage_layers;
    const long long q = p->pp - (f > 0) - (l > 0), R = L - f - l, v = p->virtual_stages;
    char given[96];
    snprintf(given, sizeof given, "%s%.0lld%s%s%.0lld", f ? "first_stage_layers=" : "", f,
             f && l ? " + " : "", l ? "last_stage_layers=" : "", l);
    if (p->pp == 1)
        put(o, "V3: with pp=1 the one stage holds all layers=%lld (%s)", L, given);
    else if (R < 0)
        put(o, "V3: %s exceed layers=%lld", given, L);
    else if (q == 0 || R == 0)
        put(o, "V3: %s leave %lld layers for %lld middle stages", given, R, q);
    else if (R % q)
        put(o, "V3: %s leave %lld layers, not divisible by %lld middle stages", given, R, q);
    else
        put(o, "V3: virtual_stages=%lld must divide the layers of every stage (%s, %lld per "
               "middle stage)", v, given, R / q);
}

static void reason_v3(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long pp = p->pp, v = p->virtual_stages;
    char prod[128], why[200];
    if (p->layout.count) { /* V3″ */
        pipeline_layout_fault(&p->layout, ctx->layers, p->pp, p->virtual_stages, why,
                              sizeof why);
        put(o, "V3: pipeline_layout: %s", why);
    } else if (p->first_stage_layers || p->last_stage_layers)
        reason_uneven(o, ctx, p); /* V3′ */
    else if (v == 1)
        put(o, "V3: pp=%lld does not divide layers=%lld", pp, (long long)ctx->layers);
    else {
        pe_product_text(prod, sizeof prod, (const int64_t[]){pp, v}, 2);
        put(o, "V3: pp*virtual_stages=%s does not divide layers=%lld", prod,
            (long long)ctx->layers);
    }
    (void)r;
}

static void reason_v4(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long t = p->tp, c = p->cp;
    if (ctx->seq_len % c)
        put(o, "V4: cp=%lld does not divide seq_len=%lld", c, (long long)ctx->seq_len);
    else
        put(o, "V4: tp=%lld does not divide seq_len/cp=%lld (sequence parallel)", t,
            (long long)(ctx->seq_len / c));
    (void)r;
}

static void reason_v5(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    char prod[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->micro_batch, p->dp}, 2);
    put(o, "V5: micro_batch*dp=%s does not divide global_batch=%lld", prod,
        (long long)ctx->global_batch);
    (void)r;
}

/* V6′ dualpipe: every condition it breaks, with its number */
static void reason_v6_dualpipe(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_result *r)
{
    const long long pp = p->pp, v = p->virtual_stages;
    if (!ctx->dualpipe) {
        put(o, "V6: dualpipe is a refinement (docs/model.md §12 B6), not in the textbook model");
        return;
    }
    put(o, "V6: dualpipe needs");
    const char *sep = " ";
    if (pp < 2 || pp % 2) {
        put(o, "%san even pp>=2 (pp=%lld)", sep, pp);
        sep = ", ";
    }
    if (v != 1) {
        put(o, "%svirtual_stages=1 (virtual_stages=%lld)", sep, v);
        sep = ", ";
    }
    if (!(r->failed & PE_FAIL_V5) && (r->microbatches % 2 || r->microbatches < 2 * pp))
        put(o, "%san even number of microbatches >= 2*pp=%lld (microbatches=%lld)", sep, 2 * pp,
            (long long)r->microbatches);
}

static void reason_v6(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long pp = p->pp, v = p->virtual_stages;
    if (p->schedule == PE_SCHEDULE_DUALPIPE) {
        reason_v6_dualpipe(o, ctx, p, r);
        return;
    }
    if (p->schedule != PE_SCHEDULE_INTERLEAVED) {
        put(o, "V6: %s needs virtual_stages=1 (virtual_stages=%lld)",
            pe_schedule_name(p->schedule), v);
        return;
    }
    put(o, "V6: interleaved needs");
    const char *sep = " ";
    if (pp < 2) {
        put(o, "%spp>=2 (pp=%lld)", sep, pp);
        sep = ", ";
    }
    if (v < 2) {
        put(o, "%svirtual_stages>=2 (virtual_stages=%lld)", sep, v);
        sep = ", ";
    }
    if (!(r->failed & PE_FAIL_V5) && r->microbatches % pp)
        put(o, "%smicrobatches=%lld to be a multiple of pp=%lld", sep,
            (long long)r->microbatches, pp);
    (void)ctx;
}

static void reason_v7(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long t = p->tp, G = ctx->gpus_per_node;
    if (ctx->allow_cross_node_tp)
        put(o, "V7: tp=%lld neither divides nor is a multiple of gpus_per_node=%lld", t, G);
    else if (t > G && t % G == 0)
        put(o, "V7: tp=%lld does not divide gpus_per_node=%lld (allow_cross_node_tp is false)",
            t, G);
    else
        put(o, "V7: tp=%lld does not divide gpus_per_node=%lld", t, G);
    (void)r;
}

static void reason_v8(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long G = ctx->gpus_per_node;
    const long long tc = pe_mul_sat(p->tp, p->cp), tcd = pe_mul_sat(tc, p->dp);
    char prod[128];
    put(o, "V8:");
    const char *sep = " ";
    if (G % tc && tc % G) {
        pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp}, 2);
        put(o, "%stp*cp=%s neither divides nor is a multiple of gpus_per_node=%lld", sep, prod,
            G);
        sep = ", ";
    }
    if (G % tcd && tcd % G) {
        pe_product_text(prod, sizeof prod, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
        put(o, "%stp*cp*dp=%s neither divides nor is a multiple of gpus_per_node=%lld", sep,
            prod, G);
    }
    (void)r;
}

/* explain's lines: the check with the plan's numbers (after "Vn   ", before
 * "   ok"/"   FAILS") */

static int explain_v1(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    char prod[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->dp, p->tp, p->pp, p->cp}, 4);
    return snprintf(b, n, "dp·t·p·c = N: %lld·%lld·%lld·%lld = %s vs %lld", (long long)p->dp,
                    (long long)p->tp, (long long)p->pp, (long long)p->cp, prod,
                    (long long)ctx->gpus);
}

static int explain_v2(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    return snprintf(b, n, "t | a, g, f: %lld | %lld, %lld, %lld", (long long)p->tp,
                    (long long)ctx->heads, (long long)ctx->kv_heads, (long long)ctx->ffn_hidden);
}

static int explain_v3(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    char prod[128];
    if (p->layout.count) { /* V3″ */
        long long held = 0;
        for (int32_t k = 0; k < p->layout.count; k++)
            held += p->layout.layers[k];
        return snprintf(b, n, "pipeline_layout: %d virtual stages = p·v = %lld·%lld, holding "
                              "%lld = L = %lld layers", (int)p->layout.count, (long long)p->pp,
                        (long long)p->virtual_stages, held, (long long)ctx->layers);
    }
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->pp, p->virtual_stages}, 2);
    return snprintf(b, n, "p·v | L: %lld·%lld = %s | %lld", (long long)p->pp,
                    (long long)p->virtual_stages, prod, (long long)ctx->layers);
}

static int explain_v4(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    return snprintf(b, n, "c | s (and t | s/c with sp): %lld | %lld%s", (long long)p->cp,
                    (long long)ctx->seq_len, p->sequence_parallel && p->tp > 1 ? ", sp on" : "");
}

static int explain_v5(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    char prod[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->micro_batch, p->dp}, 2);
    return snprintf(b, n, "b·dp | B: %lld·%lld = %s | %lld", (long long)p->micro_batch,
                    (long long)p->dp, prod, (long long)ctx->global_batch);
}

static int explain_v6(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    (void)ctx;
    return snprintf(b, n, "schedule %s with v = %lld%s", pe_schedule_name(p->schedule),
                    (long long)p->virtual_stages,
                    p->schedule == PE_SCHEDULE_INTERLEAVED ? " (needs p ≥ 2, v ≥ 2, m mod p = 0)"
                    : p->schedule == PE_SCHEDULE_DUALPIPE
                        ? " (V6′ needs p ≥ 2 even, m even ≥ 2p, v = 1, fidelity refined)"
                        : " (needs v = 1)");
}

static int explain_v7(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    return snprintf(b, n, "t | G: %lld | %lld%s", (long long)p->tp,
                    (long long)ctx->gpus_per_node,
                    ctx->allow_cross_node_tp ? " (or G | t: allow_cross_node_tp)" : "");
}

static int explain_v8(char *b, size_t n, const pe_eval_ctx *ctx, const pe_plan *p)
{
    char p1[128], p2[128];
    pe_product_text(p1, sizeof p1, (const int64_t[]){p->tp, p->cp}, 2);
    pe_product_text(p2, sizeof p2, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
    return snprintf(b, n, "t·c = %s and t·c·dp = %s each divide G = %lld or are multiples of it",
                    p1, p2, (long long)ctx->gpus_per_node);
}

/* ------------------------------------------------------------- V9–V15 */

static bool divides(int64_t a, int64_t b) { return a > 0 && b % a == 0; }

/* V9 ep divides experts; without experts ep = 1 and etp = tp */
static bool holds_v9(const pe_eval_ctx *ctx, const pe_plan *p)
{
    if (!ctx->moe.on)
        return p->ep == 1 && p->etp == p->tp;
    return divides(p->ep, ctx->moe.experts);
}

/* V10 ep·etp divides tp·cp·dp (Megatron-Core's parallel folding) */
static bool holds_v10(const pe_eval_ctx *ctx, const pe_plan *p)
{
    /* degrees up to 2^53 each: a product past 64 bits divides nothing a
     * cluster has (V1 fails beside it), and is not computed */
    int64_t eg, tcd;
    if (!ctx->moe.on)
        return true;
    if (__builtin_mul_overflow(p->ep, p->etp, &eg) ||
        __builtin_mul_overflow(p->tp, p->cp, &tcd) || __builtin_mul_overflow(tcd, p->dp, &tcd))
        return false;
    return divides(eg, tcd);
}

/* V11 etp divides f_e; tp divides n_s·f_e */
static bool holds_v11(const pe_eval_ctx *ctx, const pe_plan *p)
{
    const pe_moe_ctx *e = &ctx->moe;
    return !e->on || (divides(p->etp, e->f_e) && (e->sh_f == 0 || divides(p->tp, e->sh_f)));
}

/* V12 MoE with tp > 1 needs sequence parallelism */
static bool holds_v12(const pe_eval_ctx *ctx, const pe_plan *p)
{
    return !ctx->moe.on || !(p->tp > 1 && !p->sequence_parallel);
}

/* V13 experts with biases need etp = 1 */
static bool holds_v13(const pe_eval_ctx *ctx, const pe_plan *p)
{
    return !ctx->moe.on || !(ctx->moe.bias && p->etp != 1);
}

/* V14 etp and ep·etp each divide G or are multiples of it (etp: with
 * allow_cross_node_tp) */
static bool holds_v14(const pe_eval_ctx *ctx, const pe_plan *p)
{
    if (!ctx->moe.on)
        return true;
    int64_t eg;
    if (__builtin_mul_overflow(p->ep, p->etp, &eg))
        return false; /* past 64 bits: no node size divides it (as V10) */
    const int64_t etp = p->etp, G = ctx->gpus_per_node;
    const bool etp_ok = divides(etp, G) || (ctx->allow_cross_node_tp && etp % G == 0);
    return etp_ok && (divides(eg, G) || eg % G == 0);
}

/* V15 offload needs ZeRO ≥ 1 and a GPU↔host link to time (X12; a canonical
 * text reaches here without the loader's host_link check) */
static bool holds_v15(const pe_eval_ctx *ctx, const pe_plan *p)
{
    return !(p->offload_optimizer && (p->zero < 1 || !(ctx->host_bps > 0.0)));
}

static void reason_v9(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const long long ep = p->ep, etp = p->etp, t = p->tp;
    if (!ctx->moe.on) {
        if (ep != 1)
            put(o, "V9: ep=%lld needs an MoE model (model.experts is 0)", ep);
        else
            put(o, "V9: etp=%lld needs an MoE model (model.experts is 0; a dense model's "
                   "etp is tp=%lld)", etp, t);
    } else {
        put(o, "V9: ep=%lld does not divide experts=%lld", ep, (long long)ctx->moe.experts);
    }
    (void)r;
}

static void reason_v10(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    char prod[128], grid[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->ep, p->etp}, 2);
    pe_product_text(grid, sizeof grid, (const int64_t[]){p->tp, p->cp, p->dp}, 3);
    put(o, "V10: ep*etp=%s does not divide tp*cp*dp=%s (expert and dense grids fold the "
           "same GPUs)", prod, grid);
    (void)ctx, (void)r;
}

static void reason_v11(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    const pe_moe_ctx *e = &ctx->moe;
    if (e->f_e % p->etp)
        put(o, "V11: etp=%lld does not divide moe_ffn_hidden=%lld", (long long)p->etp,
            (long long)e->f_e);
    else
        put(o, "V11: tp=%lld does not divide shared_experts*moe_ffn_hidden=%lld",
            (long long)p->tp, (long long)e->sh_f);
    (void)r;
}

static void reason_v12(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    put(o, "V12: MoE with tp=%lld needs sequence_parallel (Megatron-Core)", (long long)p->tp);
    (void)ctx, (void)r;
}

static void reason_v13(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    put(o, "V13: experts with biases need etp=1 (etp=%lld)", (long long)p->etp);
    (void)ctx, (void)r;
}

static void reason_v14(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    char prod[128];
    pe_product_text(prod, sizeof prod, (const int64_t[]){p->ep, p->etp}, 2);
    put(o, "V14: etp=%lld and ep*etp=%s must each divide or be a multiple of "
           "gpus_per_node=%lld", (long long)p->etp, prod, (long long)ctx->gpus_per_node);
    (void)r;
}

static void reason_v15(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r)
{
    if (p->zero < 1)
        put(o, "V15: offload_optimizer needs zero>=1 (zero=%lld)", (long long)p->zero);
    else
        put(o, "V15: offload_optimizer needs the GPU's host_link_gb_s");
    (void)ctx, (void)r;
}

/* ------------------------------------------------------------- the table */

const pe_rule pe_rules[PE_RULE_COUNT] = {
    {"V1", PE_FAIL_V1, "dp·t·p·c = N", holds_v1, reason_v1, explain_v1},
    {"V2", PE_FAIL_V2, "t divides a, g and f", holds_v2, reason_v2, explain_v2},
    {"V3", PE_FAIL_V3, "p·v divides L (V3′: first/last stage layers add up)", holds_v3,
     reason_v3, explain_v3},
    {"V4", PE_FAIL_V4, "c divides s; with sp and t > 1, t also divides s/c", holds_v4, reason_v4,
     explain_v4},
    {"V5", PE_FAIL_V5, "b·dp divides B", holds_v5, reason_v5, explain_v5},
    {"V6", PE_FAIL_V6, "interleaved needs p ≥ 2, v ≥ 2 and m a multiple of p; others v = 1",
     holds_v6, reason_v6, explain_v6},
    {"V7", PE_FAIL_V7, "t divides G (or, with allow_cross_node_tp, G divides t)", holds_v7,
     reason_v7, explain_v7},
    {"V8", PE_FAIL_V8, "t·c and t·c·dp each divide G or are multiples of it", holds_v8,
     reason_v8, explain_v8},
    {"V9", PE_FAIL_V9, "ep divides experts (ep > 1 or etp ≠ tp needs an MoE model)", holds_v9,
     reason_v9, NULL},
    {"V10", PE_FAIL_V10, "ep·etp divides tp·cp·dp (parallel folding)", holds_v10, reason_v10,
     NULL},
    {"V11", PE_FAIL_V11, "etp divides moe_ffn_hidden; tp divides shared_experts·moe_ffn_hidden",
     holds_v11, reason_v11, NULL},
    {"V12", PE_FAIL_V12, "MoE with tp > 1 needs sequence parallel", holds_v12, reason_v12, NULL},
    {"V13", PE_FAIL_V13, "biased experts need etp = 1", holds_v13, reason_v13, NULL},
    {"V14", PE_FAIL_V14, "etp and ep·etp aligned with the node", holds_v14, reason_v14, NULL},
    {"V15", PE_FAIL_V15, "offload_optimizer needs zero ≥ 1 and a host link", holds_v15,
     reason_v15, NULL},
};

/* The table's rows V9–V15, called directly rather than through the table's
 * pointers so that they inline (every plan of an MoE sweep runs them);
 * test_evaluate checks that the two agree. */
uint32_t rules_check_experts(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return (uint32_t)!holds_v9(ctx, pl) * PE_FAIL_V9 | (uint32_t)!holds_v10(ctx, pl) * PE_FAIL_V10 |
           (uint32_t)!holds_v11(ctx, pl) * PE_FAIL_V11 | (uint32_t)!holds_v12(ctx, pl) * PE_FAIL_V12 |
           (uint32_t)!holds_v13(ctx, pl) * PE_FAIL_V13 | (uint32_t)!holds_v14(ctx, pl) * PE_FAIL_V14 |
           (uint32_t)!holds_v15(ctx, pl) * PE_FAIL_V15;
}

/* ------------------------------------------------------------- budgets */

/* §9 budgets: memory, host memory (M8), step time, train days, MFU, each
 * with both numbers. */
static void reason_budgets(pe_text *o, const pe_eval_ctx *ctx, const pe_result *r, uint32_t f)
{
    char a[512], lim[64];
    if (f & PE_FAIL_MEMORY) {
        entry(o);
        fmt_vs(a, sizeof a, r->mem_total_gib, 2, 0, r->mem_budget_gib, 1);
        fmt_shortest(lim, sizeof lim, r->mem_budget_gib);
        put(o, "memory: %s GiB > budget %s GiB", a, lim);
    }
    if (f & PE_FAIL_HOST_MEMORY) {
        entry(o);
        const double host_gib = ctx->host_mem_bytes / PE_GIB;
        fmt_vs(a, sizeof a, r->host_mem_gib, 2, 0, host_gib, 1);
        fmt_shortest(lim, sizeof lim, host_gib);
        put(o, "host memory: %s GiB > host_memory_gib %s GiB (offload_optimizer)", a, lim);
    }
    const pe_budgets *bu = &ctx->scenario->budgets;
    if (f & PE_FAIL_STEP_TIME) {
        entry(o);
        fmt_vs(a, sizeof a, r->step_time_s, 1, 0, bu->step_time_s, 1);
        fmt_shortest(lim, sizeof lim, bu->step_time_s);
        put(o, "step_time: %s s > budget %s s", a, lim);
    }
    if (f & PE_FAIL_TRAIN_DAYS) {
        entry(o);
        fmt_vs(a, sizeof a, r->train_days, 1, 0, bu->train_days, 1);
        fmt_shortest(lim, sizeof lim, bu->train_days);
        put(o, "train_days: %s > budget %s", a, lim);
    }
    if (f & PE_FAIL_MIN_MFU) {
        entry(o);
        fmt_vs(a, sizeof a, r->mfu, 0, 2, bu->min_mfu, 0);
        fmt_shortest(lim, sizeof lim, bu->min_mfu);
        put(o, "mfu: %s < min_mfu %s", a, lim);
    }
    if (f & PE_FAIL_GPU_HOURS) { /* T2 */
        entry(o);
        fmt_vs(a, sizeof a, r->gpu_hours, 1, 0, bu->gpu_hours, 1);
        fmt_shortest(lim, sizeof lim, bu->gpu_hours);
        put(o, "gpu_hours: %s > targets.gpu_hours %s", a, lim);
    }
    if (f & PE_FAIL_COST) { /* T2 */
        entry(o);
        fmt_vs(a, sizeof a, r->cost, 1, 0, bu->cost, 1);
        fmt_shortest(lim, sizeof lim, bu->cost);
        put(o, "cost: %s > targets.cost %s", a, lim);
    }
}

int evaluate_format_reason(const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r,
                           char *buf, size_t size)
{
    pe_text o = {buf, size, 0, 0};
    if (buf && size)
        buf[0] = '\0';
    for (int i = 0; i < PE_RULE_COUNT; i++)
        if (r->failed & pe_rules[i].bit) {
            entry(&o);
            pe_rules[i].reason(&o, ctx, p, r);
        }
    reason_budgets(&o, ctx, r, r->failed); /* §9 */
    return (int)o.len;
}
