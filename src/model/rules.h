/* rules.h — docs/model.md §1 and §14: the validity rules V1–V15 as one
 * table (pe_rules: id, the check, the reason text and explain's line), the
 * hot-path check that composes the same checks inline, and the count of
 * invalid plans by rule. A rule's PE_FAIL_* bit is in evaluate.h (the
 * result's interface); the table's row n − 1 is rule Vn. */
#ifndef PLANEVAL_MODEL_RULES_H
#define PLANEVAL_MODEL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/evaluate.h"
#include "model/layout.h"

typedef struct pe_text pe_text; /* the reason text being built (rules.c) */

typedef struct {
    const char *id;   /* "V1" … "V15" */
    uint32_t bit;     /* its PE_FAIL_* bit */
    const char *rule; /* the rule as docs/model.md states it */
    bool (*holds)(const pe_eval_ctx *ctx, const pe_plan *pl);
    /* the `reason` entry of a plan that breaks it */
    void (*reason)(pe_text *o, const pe_eval_ctx *ctx, const pe_plan *pl, const pe_result *r);
    /* explain's line: the check with the plan's numbers (NULL: not shown) */
    int (*explain)(char *buf, size_t size, const pe_eval_ctx *ctx, const pe_plan *pl);
} pe_rule;

extern const pe_rule pe_rules[PE_RULE_COUNT];

/* The PE_FAIL_* bit of rule Vn (n = 1…15): V1–V8 bits 0–7, V9–V15 bits 12–18. */
static inline uint32_t pe_rule_bit(int n) { return n <= 8 ? 1u << (n - 1) : 1u << (n + 3); }
/* The other way round: rule Vn's row n − 1 of pe_rules from its bit's position b. */
static inline int pe_rule_index(int b) { return b < 8 ? b : b - 4; }

/* The sweep's counts: one more in by_rule[n − 1] for every rule Vn in failed. */
static inline void pe_rules_count(uint32_t failed, uint64_t by_rule[PE_RULE_COUNT])
{
    for (uint32_t f = failed & PE_FAIL_RULES; f; f &= f - 1)
        by_rule[pe_rule_index(__builtin_ctz(f))]++;
}

/* ---- V1–V8 with integer arithmetic (inline: every plan runs them) ---- */

/* V5's micro-batches m = B/(b·dp), 0 when b·dp does not divide B */
ALWAYS_INLINE int64_t rule_microbatches(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t bdp = pe_mul_sat(pl->micro_batch, pl->dp);
    return ctx->global_batch % bdp == 0 ? ctx->global_batch / bdp : 0;
}

/* V1 dp·t·p·c = N */
ALWAYS_INLINE bool rule_v1(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t tcd = pe_mul_sat(pe_mul_sat(pl->tp, pl->cp), pl->dp);
    return pe_mul_sat(tcd, pl->pp) == ctx->gpus;
}

/* V2 t divides a, g and f */
ALWAYS_INLINE bool rule_v2(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return ctx->agf_gcd % pl->tp == 0;
}

/* V3 p·v divides L; V3′ with first/last_stage_layers: they add up
 * (layout_stage_layers, Megatron transformer_config.py); V3″ with a
 * pipeline_layout: p·v virtual stages holding L layers, none empty but
 * the first and last (Megatron pipeline_parallel_layer_layout.py) */
ALWAYS_INLINE bool rule_v3(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    if (pl->layout.count) /* V3″: a given pipeline_layout fits L, p and v */
        return layout_given_holds(ctx->layers, pl);
    if (pl->first_stage_layers || pl->last_stage_layers) {
        int64_t L0, Ll, Lmid;
        return layout_stage_layers(ctx->layers, pl, &L0, &Ll, &Lmid);
    }
    return ctx->layers % pe_mul_sat(pl->pp, pl->virtual_stages) == 0;
}

/* V4 c divides s; with sp and t > 1, t also divides s/c */
ALWAYS_INLINE bool rule_v4(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t t = pl->tp, c = pl->cp;
    return ctx->seq_len % c == 0 &&
           !(pl->sequence_parallel && t > 1 && (ctx->seq_len / c) % t != 0);
}

/* V5 b·dp divides B */
ALWAYS_INLINE bool rule_v5(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return ctx->global_batch % pe_mul_sat(pl->micro_batch, pl->dp) == 0;
}

/* V6 interleaved needs p ≥ 2, v ≥ 2 and m a multiple of p; other schedules v = 1.
 * V6′ dualpipe needs an even p ≥ 2, an even m ≥ 2p, v = 1 and the refined
 * model: deepseek-ai/DualPipe dualpipe.py's step() asserts num_ranks % 2 == 0,
 * num_chunks % 2 == 0 and num_chunks >= num_ranks * 2 (half of the m
 * micro-batches enter at each end). */
ALWAYS_INLINE bool rule_v6(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t p = pl->pp, v = pl->virtual_stages;
    if (pl->schedule == PE_SCHEDULE_DUALPIPE) /* V6′: DeepSeek-V3 §3.2.1, refined only */
        return ctx->dualpipe && v == 1 && p >= 2 && p % 2 == 0 &&
               (!rule_v5(ctx, pl) || (rule_microbatches(ctx, pl) % 2 == 0 &&
                                      rule_microbatches(ctx, pl) >= 2 * p));
    if (pl->schedule != PE_SCHEDULE_INTERLEAVED)
        return v == 1;
    return p >= 2 && v >= 2 && (!rule_v5(ctx, pl) || rule_microbatches(ctx, pl) % p == 0);
}

/* V7 t divides G (or, with allow_cross_node_tp, G divides t) */
ALWAYS_INLINE bool rule_v7(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t t = pl->tp, G = ctx->gpus_per_node;
    return G % t == 0 || (ctx->allow_cross_node_tp && t > G && t % G == 0);
}

/* V8 t·c and t·c·dp each divide G or are multiples of it */
ALWAYS_INLINE bool rule_v8(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    const int64_t G = ctx->gpus_per_node;
    const int64_t tc = pe_mul_sat(pl->tp, pl->cp), tcd = pe_mul_sat(tc, pl->dp);
    return (G % tc == 0 || tc % G == 0) && (G % tcd == 0 || tcd % G == 0);
}

/* V9–V15 (experts, offload): the table's checks, for a plan that uses
 * expert parallelism or offload or a scenario with experts. */
uint32_t rules_check_experts(const pe_eval_ctx *ctx, const pe_plan *pl);

/* Every rule the plan breaks (PE_FAIL_V* bits) and its micro-batches m (0
 * when V5 fails). ext = 0: a dense scenario's v1 plan, V9–V15 cannot fail. */
ALWAYS_INLINE uint32_t rules_check(const pe_eval_ctx *ctx, const pe_plan *pl, int64_t *m_out,
                                   int ext)
{
    *m_out = rule_microbatches(ctx, pl);
    uint32_t f = (uint32_t)!rule_v1(ctx, pl) * PE_FAIL_V1 | (uint32_t)!rule_v2(ctx, pl) * PE_FAIL_V2 |
                 (uint32_t)!rule_v3(ctx, pl) * PE_FAIL_V3 | (uint32_t)!rule_v4(ctx, pl) * PE_FAIL_V4 |
                 (uint32_t)!rule_v5(ctx, pl) * PE_FAIL_V5 | (uint32_t)!rule_v6(ctx, pl) * PE_FAIL_V6 |
                 (uint32_t)!rule_v7(ctx, pl) * PE_FAIL_V7 | (uint32_t)!rule_v8(ctx, pl) * PE_FAIL_V8;
    if (ext && (ctx->moe.on || pl->ep != 1 || pl->etp != pl->tp || pl->offload_optimizer))
        f |= rules_check_experts(ctx, pl);
    return f;
}

#endif
