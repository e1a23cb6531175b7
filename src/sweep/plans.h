/* plans.h — the plans of a scenario, addressed by index.
 *
 * Index 0 .. explicit_count-1 are the explicit plans in file order; the
 * rest is the sweep's cross product in docs/scenarios.md's enumeration order
 * (tp, pp, cp, dp, zero, recompute, micro_batch, schedule, virtual_stages,
 * sequence_parallel, then ep, etp, first_stage_layers, last_stage_layers,
 * offload_optimizer; the last varies fastest). Every axis has a fixed
 * number of slots (an `auto` axis one slot per candidate), so index → plan
 * is arithmetic: shards and resume need no list of plans. A slot that is not
 * a plan (docs/model.md §1 "skipped" combinations) comes back as a pe_skip. */
#ifndef PLANEVAL_PLANS_H
#define PLANEVAL_PLANS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/canonical.h"
#include "core/error.h"
#include "core/scenario.h"
#include "model/evaluate.h"

typedef enum {
    PE_SKIP_NONE = 0,           /* a plan */
    PE_SKIP_DP_NOT_WHOLE,       /* dp: auto and N/(t·p·c) is not whole */
    PE_SKIP_MICRO_BATCH,        /* micro_batch: auto candidate with b·dp ∤ B */
    PE_SKIP_VIRTUAL_STAGES,     /* virtual_stages: auto candidate with p·v ∤ L */
    PE_SKIP_V_NOT_INTERLEAVED,  /* a schedule other than interleaved takes v = 1 once */
    PE_SKIP_INTERLEAVED_V_LT_2, /* interleaved with v < 2 */
    PE_SKIP_SP_TP1,             /* t = 1 takes sequence_parallel = false once */
    PE_SKIP_SCHEDULE_PP1,       /* p = 1 takes the first listed non-interleaved schedule once */
    PE_SKIP_EP_DENSE,           /* ep/etp values of a dense model other than ep 1, etp = tp */
    PE_SKIP_EP_AUTO,            /* ep: auto candidate failing V10 or V14's ep·etp alignment */
    PE_SKIP_DESIGN_AUTO,        /* an auto slot past the candidates of this design (nodes, seq_len) */
    PE_SKIP_COUNT
} pe_skip;

const char *plans_skip_name(pe_skip k);

enum {
    /* the design axes (docs/sweeps.md "Sweeping the design") come first: the
     * outermost, so one design's plans are one contiguous block of indices,
     * and a sweep without them numbers its plans as before */
    PE_AXIS_CLUSTER, /* sweep.cluster: slot i is the scenario's sweep.clusters[i] */
    PE_AXIS_FRAMEWORK, /* sweep.framework: slot i is sweep.frameworks[i] */
    PE_AXIS_NODES, PE_AXIS_GLOBAL_BATCH, PE_AXIS_SEQ_LEN,
    /* the link numbers (sweep.intra_node, sweep.inter_node): slot i is the axis' numbers[i] */
    PE_AXIS_INTRA_BANDWIDTH, PE_AXIS_INTRA_LINK, PE_AXIS_INTRA_LATENCY, PE_AXIS_INTER_NIC,
    PE_AXIS_INTER_LATENCY,
    /* the overlap switches (sweep.overlap): slot i is the axis' numbers[i] */
    PE_AXIS_OVERLAP_TP, PE_AXIS_OVERLAP_CP, PE_AXIS_OVERLAP_DP, PE_AXIS_OVERLAP_PP,
    PE_AXIS_OVERLAP_EP,
    PE_AXIS_TP, PE_AXIS_PP, PE_AXIS_CP, PE_AXIS_DP, PE_AXIS_ZERO, PE_AXIS_RECOMPUTE,
    PE_AXIS_MICRO_BATCH, PE_AXIS_SCHEDULE, PE_AXIS_VIRTUAL_STAGES, PE_AXIS_SP,
    /* the expert, stage and offload axes come last, so that a sweep that
     * sets none of them numbers its plans as it would without them */
    PE_AXIS_EP, PE_AXIS_ETP, PE_AXIS_FIRST_STAGE, PE_AXIS_LAST_STAGE, PE_AXIS_OFFLOAD,
    PE_AXIS_COUNT
};
#define PE_DESIGN_AXES 15   /* axes 0 .. PE_DESIGN_AXES-1 are the design's */
#define PE_DESIGN_MAX 16384 /* designs prepared at once (each ~6.8 KB) */

/* One design: the scenario with its design axes' values, prepared once
 * (model/prepare.h), and its own auto candidates. */
typedef struct {
    pe_scenario scenario; /* a shallow copy: shares what the scenario owns */
    pe_eval_ctx ctx;
    const int64_t *values[PE_AXIS_COUNT]; /* an auto axis' own list, else the space's */
    uint64_t slots[PE_AXIS_COUNT];
} pe_design;

typedef struct {
    const pe_scenario *scenario;
    uint64_t explicit_count;
    uint64_t sweep_count; /* product of the axes' slot counts; 0 without a sweep */
    /* Per axis: candidate values (auto lists already expanded) and kind. */
    int64_t *values[PE_AXIS_COUNT]; /* owned */
    uint64_t slots[PE_AXIS_COUNT];
    uint64_t stride[PE_AXIS_COUNT]; /* indices per step of each axis */
    int mode[PE_AXIS_COUNT]; /* private: list / auto / default */
    uint64_t pp1_schedule_slot; /* private: the schedule slot p = 1 keeps; UINT64_MAX: none */
    int inner;               /* private: the innermost axis with more than one slot (or 0) */
    bool base_axes_only;     /* private: a dense model, and no ep, etp, stage or offload axis */
    uint64_t design_count;   /* 1 without design axes */
    pe_design *designs;      /* owned; NULL without design axes */
    uint64_t design_stride[PE_DESIGN_AXES]; /* private: designs per step of each design axis */
} pe_plan_space;

/* Build the plan space; fails (PE_BAD_INPUT) only when the sweep's size
 * overflows 2^64. */
pe_status plans_init(const pe_scenario *s, pe_plan_space *space, pe_error *err);
void plans_free(pe_plan_space *space);

static inline uint64_t plans_total(const pe_plan_space *space)
{
    return space->explicit_count + space->sweep_count;
}

/* The prepared scenario an index is evaluated with: its design's, or
 * `base` (explicit plans, a sweep without design axes). */
const pe_eval_ctx *plans_ctx(const pe_plan_space *space, uint64_t index, const pe_eval_ctx *base);

/* Plan at index (< plans_total); PE_SKIP_NONE with *out filled, or the
 * reason the slot is not a plan. */
pe_skip plans_at(const pe_plan_space *space, uint64_t index, pe_plan *out);

/* Walking the plans in order without a division per index: a cursor keeps
 * the slots of its index (an odometer). */
typedef struct {
    uint64_t index;
    uint64_t slot[PE_AXIS_COUNT];
} pe_plan_cursor;

void plans_seek(const pe_plan_space *space, uint64_t index, pe_plan_cursor *c);
/* As plans_at at the cursor; *span ≥ 1 is how many consecutive indices
 * from here are known to skip the same way (1 for a plan): the rest of the
 * sub-tree below axis *span_axis. */
pe_skip plans_cursor_plan(const pe_plan_space *space, const pe_plan_cursor *c, pe_plan *out,
                          uint64_t *span, int *span_axis);
/* Advance past the rest of the sub-tree below `axis` (by the span above),
 * without a division. Only for sweep indices. */
void plans_next_at_axis(const pe_plan_space *space, pe_plan_cursor *c, int axis);
void plans_advance(const pe_plan_space *space, pe_plan_cursor *c, uint64_t n);
/* plans_ctx at the cursor, without a division. */
static inline const pe_eval_ctx *plans_cursor_ctx(const pe_plan_space *space,
                                                  const pe_plan_cursor *c, const pe_eval_ctx *base)
{
    if (!space->designs || c->index < space->explicit_count)
        return base;
    uint64_t d = 0;
    for (int a = 0; a < PE_DESIGN_AXES; a++)
        d += c->slot[a] * space->design_stride[a];
    return &space->designs[d].ctx;
}

/* The slot of design axis `axis` (< PE_DESIGN_AXES) a sweep index is
 * evaluated with (0 for an explicit plan): e.g. which type of sweep.cluster. */
static inline uint64_t plans_design_slot(const pe_plan_space *space, uint64_t index, int axis)
{
    if (index < space->explicit_count)
        return 0;
    return (index - space->explicit_count) / space->stride[axis] % space->slots[axis];
}

/* How many indices are plans; skipped[k] (may be NULL) the skips by
 * reason. Walks the indices without evaluating, a skipped sub-tree at a
 * time: what `validate` prints so a user can size a run. */
uint64_t plans_count(const pe_plan_space *space, uint64_t skipped[PE_SKIP_COUNT]);

/* The plan a reference names (docs/scenarios.md: a name is matched first,
 * then canonical text; explicit plans before the sweep). Any valid
 * canonical text names a plan, enumerated by the scenario's sweep or not. */
bool plans_find(const pe_plan_space *space, const char *ref, pe_plan *out);

/* The plan's canonical text (core/canonical.h: canonical_write). */
int plans_canonical(const pe_plan *p, char *buf, size_t size);

/* The plan's report name: its name, or its canonical text. */
const char *plans_display_name(const pe_plan *p, char canon[PE_CANON_MAX]);

#endif
