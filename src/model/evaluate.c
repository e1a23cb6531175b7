/* evaluate.c — scenario + plan → every figure of one report row: the
 * orchestrator of the spec's sections (docs/model.md).
 *
 * evaluate_prepare() runs each section's scenario-level preparation once
 * (prepare.h). evaluate_plan() is the hot path: no allocation, no I/O, no
 * globals, no formatting. It reads in the spec's order:
 *   rules        §1 V1–V15 (rules.h), returning early for an invalid plan
 *   layout       the candidate stages and their layers (layout.h)
 *   memory       §2–§3, the memory-worst stage (memory_step.h)
 *   compute      §4, §12 (compute_step.h)
 *   communication per layer, §5–§6 X1, X2, X9–X11 (comm_step.h)
 *   pipeline     §7 stage times, the time stage, the bubble (pipeline_step.h)
 *   communication per step on the time stage, §6 X3–X5, X12 (comm_step.h)
 *   step         §8 S1–S5, §9 budgets and status (step_result.h)
 * Each section fills its own part of one work record (pe_detail) from the
 * parts before it; MoE, FP8, offload and uneven stages are terms inside the
 * sections, 0 when off. */
#include "model/evaluate.h"

#include <string.h>

#include "core/columns.h"
#include "model/comm_step.h"
#include "model/compute_step.h"
#include "model/detail.h"
#include "model/layout.h"
#include "model/memory_step.h"
#include "model/pipeline_step.h"
#include "model/prepare.h"
#include "model/rules.h"
#include "model/step_result.h"

#define NAME_OF(table, v) \
    (((size_t)(v) < sizeof table / sizeof table[0]) ? table[(size_t)(v)] : "?")

const char *pe_plan_status_name(pe_plan_status v)
{
    static const char *const t[] = {"ok", "over_time", "over_memory", "invalid"};
    return NAME_OF(t, v);
}

const char *pe_bound_name(pe_bound v)
{
    return v >= 0 && v < PE_BOUND_VALUE_COUNT ? pe_bound_values[v] : "?";
}

const char *pe_mem_phase_name(int v)
{
    static const char *const t[] = {"sum", "forward", "backward", "loss", "optimizer"};
    return NAME_OF(t, v);
}

const char *pe_tier_name(pe_tier v)
{
    static const char *const t[] = {"none", "intra", "inter"};
    return NAME_OF(t, v);
}

void evaluate_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->scenario = sc;
    params_prepare(sc, ctx);   /* §0, §2 */
    memory_prepare(sc, ctx);   /* §3 */
    if (sc->training.finetune == PE_FINETUNE_LORA)
        memory_lora_prepare(sc, ctx); /* §3 M15–M17, A27 */
    compute_prepare(sc, ctx);  /* §4, §12 F7–F11, F21, §14 F13–F19 */
    comm_prepare(sc, ctx);     /* §5, §6, §12 X6–X8, X13, X14, §14 X12 */
    pipeline_prepare(sc, ctx); /* §7 B5 */
    step_prepare(sc, ctx);     /* §8 S6 */
    run_prepare(sc, ctx);      /* §15 R1–R8 */
    /* S3′ names the step's critical path under the refined model; textbook
     * reports keep the spec's S3 over the exposed columns */
    ctx->bound_by_critical_path = sc->fidelity == PE_FIDELITY_REFINED;
    ctx->dualpipe = sc->fidelity == PE_FIDELITY_REFINED; /* V6: textbook has no DualPipe */
}

/* The one code path of evaluate_plan() and evaluate_plan_detail(): the
 * spec's sections in order, each filling its part of the work record w.
 * Always inlined: with d = NULL (the hot path) the record stays local and
 * the compiler keeps only what the report needs; with ext = 0 (a dense
 * bf16 scenario, a v1 plan) it drops every MoE, FP8, offload and
 * uneven-stage term. */
ALWAYS_INLINE void eval_core(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d,
                             const int ext)
{
    int64_t m;
    const uint32_t failed = rules_check(ctx, pl, &m, ext); /* §1 */
    if (failed) {
        step_invalid(ctx, pl, failed, m, r);
        if (d) {
            memset(d, 0, sizeof *d);
            d->valid = false;
        }
        return;
    }
    const pe_layout q = layout_of(ctx, pl, m, ext);
    pe_detail w;
    if (d)
        memset(&w, 0, sizeof w); /* for explain: fields of refinements that are off read 0 */
    else if (q.moe)
        memset(&w.moe, 0, sizeof w.moe);
    layout_detail(&q, &w);
    memory_step(ctx, pl, &q, &w);     /* §2–§3 */
    compute_step(ctx, pl, &q, &w);    /* §4, §12 */
    comm_layer_step(ctx, pl, &q, &w); /* §5–§6 per layer */
    pipeline_step(ctx, pl, &q, &w);   /* §7 */
    comm_stage_step(ctx, pl, &q, &w); /* §6 per step, on the time stage */
    step_result(ctx, pl, &q, &w, r);  /* §8–§9 */
    if (d)
        *d = w;
}

/* The MoE, FP8, offload or uneven-stage keys in use: the scenario's (MoE,
 * FP8) or the plan's. */
static inline int plan_ext(const pe_eval_ctx *ctx, const pe_plan *pl)
{
    return ctx->ext | (pl->ep != 1) | (pl->etp != pl->tp) | pl->offload_optimizer |
           (pl->first_stage_layers != 0) | (pl->last_stage_layers != 0) |
           (pl->layout.count != 0);
}

void evaluate_plan(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r)
{
    if (plan_ext(ctx, pl))
        eval_core(ctx, pl, r, NULL, 1);
    else
        eval_core(ctx, pl, r, NULL, 0); /* the dense fast path */
}

void evaluate_plan_detail(const pe_eval_ctx *ctx, const pe_plan *pl, pe_result *r, pe_detail *d)
{
    eval_core(ctx, pl, r, d, 1);
}
