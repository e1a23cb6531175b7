/* plans.c — index → plan over explicit plans + sweep, and a plan named by
 * name or canonical text. Rules: docs/scenarios.md "Sweeps" (auto candidates,
 * enumeration order) and docs/model.md §1 (which combinations are skipped
 * rather than reported). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "sweep/plans.h"

enum { MODE_DEFAULT, MODE_LIST, MODE_AUTO };

/* Candidate slots of micro_batch: auto (powers of two ≤ 64) and
 * virtual_stages: auto (2..16); filtered per combination in plans_at. */
static const int64_t MICRO_BATCH_AUTO[] = {1, 2, 4, 8, 16, 32, 64};
#define VIRTUAL_STAGES_AUTO_FIRST 2
#define VIRTUAL_STAGES_AUTO_LAST 16

const char *plans_skip_name(pe_skip k)
{
    static const char *const names[PE_SKIP_COUNT] = {
        "plan",
        "dp auto: N/(tp*pp*cp) not whole",
        "micro_batch auto: micro_batch*dp does not divide global_batch",
        "virtual_stages auto: pp*v does not divide layers",
        "virtual_stages applies to interleaved only",
        "interleaved needs virtual_stages >= 2",
        "sequence_parallel applies to tp > 1 only",
        "schedule applies to pp > 1 only",
        "ep and etp apply to MoE models only",
        "ep auto: ep*etp does not divide tp*cp*dp or fit the node (V10, V14)",
        "auto: fewer candidates on this design (nodes, seq_len)",
    };
    return (unsigned)k < PE_SKIP_COUNT ? names[k] : "?";
}

int plans_canonical(const pe_plan *p, char *buf, size_t size)
{
    return canonical_write(p, buf, size);
}

const char *plans_display_name(const pe_plan *p, char canon[PE_CANON_MAX])
{
    if (p->name[0])
        return p->name;
    plans_canonical(p, canon, PE_CANON_MAX);
    return canon;
}

/* Append v to a growing candidate list (at most `cap` entries). */
static void push(int64_t *list, uint64_t *n, int64_t v) { list[(*n)++] = v; }

static pe_status set_values(pe_plan_space *sp, int axis, const int64_t *v, uint64_t n,
                            pe_error *err)
{
    sp->values[axis] = malloc((n ? n : 1) * sizeof(int64_t));
    if (!sp->values[axis])
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    if (n)
        memcpy(sp->values[axis], v, n * sizeof(int64_t));
    sp->slots[axis] = n;
    return PE_OK;
}

/* docs/scenarios.md: tp auto = every t ≤ G with t | G, a, g, f; with
 * allow_cross_node_tp also multiples of G up to N that divide a, g and f. */
static uint64_t tp_auto(const pe_scenario *s, int64_t *out, uint64_t cap)
{
    const pe_model *m = &s->model;
    int64_t G = s->cluster.gpus_per_node, N = s->cluster.nodes * G;
    uint64_t n = 0;
    for (int64_t t = 1; t <= G && n < cap; t++)
        if (G % t == 0 && m->heads % t == 0 && m->kv_heads % t == 0 && m->ffn_hidden % t == 0)
            push(out, &n, t);
    if (s->cluster.allow_cross_node_tp)
        for (int64_t t = 2 * G; t <= N && n < cap; t += G)
            if (m->heads % t == 0 && m->kv_heads % t == 0 && m->ffn_hidden % t == 0)
                push(out, &n, t);
    return n;
}

/* The candidate slots of an `auto` axis (docs/scenarios.md "Sweep"). */
static uint64_t auto_candidates(const pe_scenario *s, int a, int64_t fallback, int64_t *cand,
                                uint64_t cap)
{
    int64_t N = s->cluster.nodes * s->cluster.gpus_per_node;
    uint64_t n = 0;
    switch (a) {
    case PE_AXIS_TP:
        n = tp_auto(s, cand, cap);
        break;
    case PE_AXIS_PP: /* every divisor p of L with p ≤ N */
        for (int64_t p = 1; p <= s->model.layers && p <= N; p++)
            if (s->model.layers % p == 0 && n < cap)
                push(cand, &n, p);
        break;
    case PE_AXIS_CP: /* powers of two c ≤ 64 with c | s */
        for (int64_t c = 1; c <= 64; c *= 2)
            if (s->model.seq_len % c == 0)
                push(cand, &n, c);
        break;
    case PE_AXIS_DP: /* one slot: N/(t·p·c), resolved per combination */
        push(cand, &n, 0);
        break;
    case PE_AXIS_MICRO_BATCH:
        for (size_t i = 0; i < sizeof MICRO_BATCH_AUTO / sizeof MICRO_BATCH_AUTO[0]; i++)
            push(cand, &n, MICRO_BATCH_AUTO[i]);
        break;
    case PE_AXIS_VIRTUAL_STAGES:
        for (int64_t v = VIRTUAL_STAGES_AUTO_FIRST; v <= VIRTUAL_STAGES_AUTO_LAST; v++)
            push(cand, &n, v);
        break;
    case PE_AXIS_EP: { /* divisors of E (a dense model: 1), filtered by V10, V14 */
        /* ascending, in O(√E) (E may be up to 2^53): those up to √E, then
         * their co-divisors E/d above √E from the largest d down */
        const int64_t E = s->model.experts;
        push(cand, &n, 1);
        int64_t e = 2;
        for (; e <= E / e && n < cap; e++) /* e·e ≤ E without overflow */
            if (E % e == 0)
                push(cand, &n, e);
        for (int64_t d = e - 1; d >= 1 && n < cap; d--)
            if (E % d == 0 && E / d > d)
                push(cand, &n, E / d);
        break;
    }
    default: /* the loader admits auto on the axes above only */
        push(cand, &n, fallback);
        break;
    }
    return n;
}

/* docs/model.md §1: with p = 1 every schedule is the same plan; the
 * first listed schedule that is not interleaved is kept (UINT64_MAX: none),
 * nor dualpipe, which needs p ≥ 2 (V6′). */
static uint64_t pp1_schedule_slot(const pe_plan_space *sp)
{
    for (uint64_t i = 0; i < sp->slots[PE_AXIS_SCHEDULE]; i++)
        if (sp->values[PE_AXIS_SCHEDULE][i] != PE_SCHEDULE_INTERLEAVED &&
            sp->values[PE_AXIS_SCHEDULE][i] != PE_SCHEDULE_DUALPIPE)
            return i;
    return UINT64_MAX;
}

/* The value an absent axis takes: its sweep key's literal default
 * (core/fields.c); a default in words is 0 here, which the plan resolves:
 * etp 0 is tp (scenario_plan_defaults), stage layers 0 the even share,
 * sequence_parallel tp > 1 (scenario_sequence_parallel). */
static int64_t axis_default(int axis)
{
    static const char *const keys[PE_AXIS_COUNT] = {
        "cluster",   "framework", "nodes",     "global_batch", "seq_len",
        "intra_node.bandwidth_gb_s", "intra_node.link_gb_s", "intra_node.latency_us",
        "inter_node.nic_gb_s", "inter_node.latency_us", "overlap.tp", "overlap.cp", "overlap.dp",
        "overlap.pp", "overlap.ep",
        "tp",        "pp",       "cp",        "dp",
        "zero",      "recompute", "micro_batch", "schedule",
        "virtual_stages", "sequence_parallel", "ep", "etp",
        "first_stage_layers", "last_stage_layers", "offload_optimizer"};
    const pe_field *f = fields_find(&pe_fields_sweep, keys[axis], strlen(keys[axis]));
    int64_t iv = 0;
    double dv = 0;
    return f && fields_default_value(f, &iv, &dv) ? iv : 0;
}

/* The link numbers and overlap fractions of design slots `slot` into s:
 * each number axis swept replaces that key (docs/sweeps.md "Sweeping the
 * design"). */
static void set_numbers(const pe_plan_space *sp, const uint64_t *slot, pe_scenario *s)
{
    const pe_sweep *w = &sp->scenario->sweep;
    pe_cluster *c = &s->cluster;
    pe_overlap *o = &s->overlap;
    const struct {
        int axis;
        const pe_axis *ax;
        double *field;
    } links[] = {{PE_AXIS_INTRA_BANDWIDTH, &w->intra_bandwidth_gb_s, &c->intra_node.bandwidth_gb_s},
                 {PE_AXIS_INTRA_LINK, &w->intra_link_gb_s, &c->intra_node.link_gb_s},
                 {PE_AXIS_INTRA_LATENCY, &w->intra_latency_us, &c->intra_node.latency_us},
                 {PE_AXIS_INTER_NIC, &w->inter_nic_gb_s, &c->inter_node.nic_gb_s},
                 {PE_AXIS_INTER_LATENCY, &w->inter_latency_us, &c->inter_node.latency_us},
                 {PE_AXIS_OVERLAP_TP, &w->overlap_tp, &o->tp},
                 {PE_AXIS_OVERLAP_CP, &w->overlap_cp, &o->cp},
                 {PE_AXIS_OVERLAP_DP, &w->overlap_dp, &o->dp},
                 {PE_AXIS_OVERLAP_PP, &w->overlap_pp, &o->pp},
                 {PE_AXIS_OVERLAP_EP, &w->overlap_ep, &o->ep}};
    for (size_t l = 0; l < sizeof links / sizeof links[0]; l++)
        if (links[l].ax->present && links[l].ax->numbers)
            *links[l].field = links[l].ax->numbers[sp->values[links[l].axis][slot[links[l].axis]]];
}

/* Design d: the scenario with design d's values, prepared; its auto axes'
 * own candidates (tp, pp and dp depend on N, cp on seq_len). */
static pe_status prepare_design(pe_plan_space *sp, uint64_t d, pe_error *err)
{
    pe_design *dz = &sp->designs[d];
    dz->scenario = *sp->scenario;
    uint64_t rest = d, slot[PE_DESIGN_AXES];
    for (int a = PE_DESIGN_AXES - 1; a >= 0; a--) {
        slot[a] = rest % sp->slots[a];
        rest /= sp->slots[a];
    }
    if (sp->scenario->sweep.clusters) /* the type first: the nodes axis then sizes it */
        dz->scenario.cluster =
            sp->scenario->sweep.clusters[sp->values[PE_AXIS_CLUSTER][slot[PE_AXIS_CLUSTER]]];
    if (sp->scenario->sweep.frameworks) { /* its overlap defaults; the overlap axes then over them */
        const int64_t f = sp->values[PE_AXIS_FRAMEWORK][slot[PE_AXIS_FRAMEWORK]];
        dz->scenario.framework = sp->scenario->sweep.frameworks[f];
        dz->scenario.overlap = sp->scenario->sweep.framework_overlaps[f];
    }
    dz->scenario.cluster.nodes = sp->values[PE_AXIS_NODES][slot[PE_AXIS_NODES]];
    dz->scenario.training.global_batch = sp->values[PE_AXIS_GLOBAL_BATCH][slot[PE_AXIS_GLOBAL_BATCH]];
    dz->scenario.model.seq_len = sp->values[PE_AXIS_SEQ_LEN][slot[PE_AXIS_SEQ_LEN]];
    set_numbers(sp, slot, &dz->scenario);
    evaluate_prepare(&dz->scenario, &dz->ctx); /* model/prepare.h: once per design */
    for (int a = 0; a < PE_AXIS_COUNT; a++) {
        dz->values[a] = sp->values[a];
        dz->slots[a] = sp->slots[a];
        if (sp->mode[a] != MODE_AUTO)
            continue;
        int64_t cand[128];
        uint64_t n = auto_candidates(&dz->scenario, a, 0, cand, sizeof cand / sizeof cand[0]);
        int64_t *own = malloc((n ? n : 1) * sizeof *own);
        if (!own)
            return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
        memcpy(own, cand, n * sizeof *own);
        dz->values[a] = own;
        dz->slots[a] = n;
    }
    return PE_OK;
}

/* Every design of the design axes, each prepared once; an auto axis gets
 * as many slots as its most candidates, the rest of a design's skipped. */
static pe_status prepare_designs(pe_plan_space *sp, pe_error *err)
{
    const pe_scenario *s = sp->scenario;
    uint64_t n = 1;
    for (int a = 0; a < PE_DESIGN_AXES; a++)
        n *= sp->slots[a]; /* each list is at most a few thousand values */
    if (n > PE_DESIGN_MAX)
        return pe_fail(err, PE_BAD_INPUT, s->file, s->sweep.line, s->sweep.col,
                       "sweep: %llu designs (the product of its design axes' values) exceed %d; "
                       "split the sweep into several scenarios",
                       (unsigned long long)n, PE_DESIGN_MAX);
    sp->designs = calloc(n, sizeof *sp->designs);
    if (!sp->designs)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    sp->design_count = n;
    pe_status st = PE_OK;
    for (uint64_t d = 0; d < n && st == PE_OK; d++)
        st = prepare_design(sp, d, err);
    for (int a = PE_DESIGN_AXES; a < PE_AXIS_COUNT && st == PE_OK; a++)
        for (uint64_t d = 0; d < n && sp->mode[a] == MODE_AUTO; d++)
            if (sp->designs[d].slots[a] > sp->slots[a])
                sp->slots[a] = sp->designs[d].slots[a];
    sp->sweep_count = 1;
    for (int a = 0; a < PE_AXIS_COUNT && st == PE_OK; a++)
        if (__builtin_mul_overflow(sp->sweep_count, sp->slots[a], &sp->sweep_count))
            st = pe_fail(err, PE_BAD_INPUT, s->file, s->sweep.line, s->sweep.col,
                         "sweep: the cross product of its values exceeds 2^64 combinations");
    for (int a = 0; a < PE_AXIS_COUNT; a++)
        if (sp->slots[a] > 1)
            sp->inner = a;
    uint64_t ds = 1;
    for (int a = PE_DESIGN_AXES - 1; a >= 0; a--) {
        sp->design_stride[a] = ds;
        ds *= sp->slots[a];
    }
    return st;
}

const pe_eval_ctx *plans_ctx(const pe_plan_space *sp, uint64_t index, const pe_eval_ctx *base)
{
    if (!sp->designs || index < sp->explicit_count || index >= plans_total(sp))
        return base;
    return &sp->designs[(index - sp->explicit_count) / sp->stride[PE_DESIGN_AXES - 1]].ctx;
}

pe_status plans_init(const pe_scenario *s, pe_plan_space *sp, pe_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->scenario = s;
    sp->explicit_count = s->plan_count;
    if (!s->sweep.present)
        return PE_OK;

    const pe_sweep *w = &s->sweep;
    const pe_axis *axes[PE_AXIS_COUNT] = {
        &w->cluster,     &w->framework,   &w->nodes,       &w->global_batch, &w->seq_len,
        &w->intra_bandwidth_gb_s, &w->intra_link_gb_s, &w->intra_latency_us,
        &w->inter_nic_gb_s, &w->inter_latency_us, &w->overlap_tp, &w->overlap_cp,
        &w->overlap_dp, &w->overlap_pp, &w->overlap_ep,
        &w->tp,          &w->pp,       &w->cp,
        &w->dp,          &w->zero,     &w->recompute,
        &w->micro_batch, &w->schedule, &w->virtual_stages,
        &w->sequence_parallel, &w->ep, &w->etp,
        &w->first_stage_layers, &w->last_stage_layers, &w->offload_optimizer};
    int64_t defaults[PE_AXIS_COUNT];
    for (int a = 0; a < PE_AXIS_COUNT; a++)
        defaults[a] = axis_default(a);
    for (int a = PE_AXIS_CLUSTER; a < PE_DESIGN_AXES; a++)
        defaults[a] = 0; /* an index: sweep.clusters[0], a link axis' numbers[0] */
    defaults[PE_AXIS_NODES] = s->cluster.nodes; /* a design axis not swept: the scenario's */
    defaults[PE_AXIS_GLOBAL_BATCH] = s->training.global_batch;
    defaults[PE_AXIS_SEQ_LEN] = s->model.seq_len;
    pe_status st = PE_OK;
    sp->sweep_count = 1;
    for (int a = 0; a < PE_AXIS_COUNT && st == PE_OK; a++) {
        const pe_axis *ax = axes[a];
        if (!ax->present) {
            sp->mode[a] = MODE_DEFAULT;
            st = set_values(sp, a, &defaults[a], 1, err);
        } else if (!ax->is_auto) {
            sp->mode[a] = MODE_LIST;
            st = set_values(sp, a, ax->values, ax->count, err);
        } else {
            sp->mode[a] = MODE_AUTO;
            int64_t cand[128];
            uint64_t n = auto_candidates(s, a, defaults[a], cand, sizeof cand / sizeof cand[0]);
            st = set_values(sp, a, cand, n, err);
        }
        if (st == PE_OK && __builtin_mul_overflow(sp->sweep_count, sp->slots[a], &sp->sweep_count))
            st = pe_fail(err, PE_BAD_INPUT, s->file, w->line, w->col,
                         "sweep: the cross product of its values exceeds 2^64 combinations");
    }
    if (st != PE_OK) {
        plans_free(sp);
        return st;
    }
    /* inner: axes after it have one slot (always slot 0), so walks stop there */
    sp->inner = 0;
    for (int a = 0; a < PE_AXIS_COUNT; a++)
        if (sp->slots[a] > 1)
            sp->inner = a;
    sp->base_axes_only = s->model.experts == 0;
    for (int a = PE_AXIS_EP; a < PE_AXIS_COUNT; a++)
        sp->base_axes_only = sp->base_axes_only && sp->mode[a] == MODE_DEFAULT;
    sp->pp1_schedule_slot = pp1_schedule_slot(sp);
    sp->design_count = 1;
    bool design = false;
    for (int a = 0; a < PE_DESIGN_AXES; a++)
        design = design || axes[a]->present;
    st = design
             ? prepare_designs(sp, err)
             : PE_OK;
    if (st != PE_OK) {
        plans_free(sp);
        return st;
    }
    /* stride[a]: indices per step of axis a (the product of the inner axes) */
    uint64_t stride = 1;
    for (int a = PE_AXIS_COUNT - 1; a >= 0; a--) {
        sp->stride[a] = stride;
        stride *= sp->slots[a] ? sp->slots[a] : 1;
    }
    return PE_OK;
}

void plans_free(pe_plan_space *sp)
{
    for (uint64_t d = 0; sp->designs && d < sp->design_count; d++)
        for (int a = 0; a < PE_AXIS_COUNT; a++)
            if (sp->designs[d].values[a] != sp->values[a])
                free((void *)sp->designs[d].values[a]);
    free(sp->designs);
    for (int a = 0; a < PE_AXIS_COUNT; a++)
        free(sp->values[a]);
    memset(sp, 0, sizeof *sp);
}

static inline int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* The expert, stage and offload axes: ep, etp (a dense model takes only ep 1 and etp = tp, the
 * values an explicit plan may give it (V9), so each plan once; ep:
 * auto keeps the divisors of E with ep·etp | t·c·dp, V10, and ep·etp
 * dividing or a multiple of G, V14), stage layers, offload. */
static pe_skip moe_of_slots(const pe_plan_space *sp, const pe_scenario *s, const uint64_t *slot,
                            pe_plan *out, int *axis)
{
    const int64_t *const *v = (const int64_t *const *)sp->values;
    const bool moe = sp->scenario->model.experts > 0;
    if (sp->base_axes_only) { /* the plan defaults, without a look at the axes */
        out->ep = 1, out->etp = out->tp;
        out->first_stage_layers = out->last_stage_layers = 0;
        out->offload_optimizer = false;
        *axis = PE_AXIS_COUNT - 1;
        return PE_SKIP_NONE;
    }
    out->ep = v[PE_AXIS_EP][slot[PE_AXIS_EP]];
    *axis = PE_AXIS_EP;
    if (!moe && out->ep != 1)
        return PE_SKIP_EP_DENSE;
    out->etp = v[PE_AXIS_ETP][slot[PE_AXIS_ETP]];
    *axis = PE_AXIS_ETP;
    if (!moe && out->etp != 0 && out->etp != out->tp) /* 0: the default, "tp" */
        return PE_SKIP_EP_DENSE;
    if (out->etp == 0 || !moe)
        out->etp = out->tp;
    if (sp->mode[PE_AXIS_EP] == MODE_AUTO) {
        const int64_t grid = mul_sat(mul_sat(out->tp, out->cp), out->dp);
        const int64_t eg = mul_sat(out->ep, out->etp), G = s->cluster.gpus_per_node;
        if (eg > grid || grid % eg != 0 || (G % eg != 0 && eg % G != 0)) /* V10, V14 */
            return PE_SKIP_EP_AUTO;
    }
    out->first_stage_layers = v[PE_AXIS_FIRST_STAGE][slot[PE_AXIS_FIRST_STAGE]];
    out->last_stage_layers = v[PE_AXIS_LAST_STAGE][slot[PE_AXIS_LAST_STAGE]];
    out->offload_optimizer = v[PE_AXIS_OFFLOAD][slot[PE_AXIS_OFFLOAD]] != 0;
    *axis = PE_AXIS_COUNT - 1;
    return PE_SKIP_NONE;
}

/* The plan of sweep slots `slot`; on a skip, *axis is the innermost axis
 * the skip depends on (every index that agrees on axes 0..*axis skips the
 * same way). */
/* The design of sweep slots `slot` (its scenario and candidate values), or
 * the skip of an auto slot past this design's candidates. */
static pe_skip design_of_slots(const pe_plan_space *sp, const uint64_t *slot,
                               const pe_scenario **s, const int64_t *const **v, int *axis)
{
    *s = sp->scenario;
    *v = (const int64_t *const *)sp->values;
    if (!sp->designs)
        return PE_SKIP_NONE;
    uint64_t d = 0;
    for (int a = 0; a < PE_DESIGN_AXES; a++)
        d += slot[a] * sp->design_stride[a];
    const pe_design *dz = &sp->designs[d];
    *s = &dz->scenario;
    *v = dz->values;
    for (int a = PE_DESIGN_AXES; a < PE_AXIS_COUNT; a++)
        if (slot[a] >= dz->slots[a]) { /* only an auto axis has fewer */
            *axis = a;
            return PE_SKIP_DESIGN_AUTO;
        }
    return PE_SKIP_NONE;
}

static pe_skip plan_of_slots(const pe_plan_space *sp, const uint64_t *slot, pe_plan *out,
                             int *axis)
{
    const pe_scenario *s;
    const int64_t *const *v;
    const pe_skip design_skip = design_of_slots(sp, slot, &s, &v, axis);
    if (design_skip != PE_SKIP_NONE)
        return design_skip;
    out->name[0] = '\0';
    out->line = out->col = 0;
    out->layout.count = 0; /* a pipeline_layout is an explicit plan's only */
    out->overlap = s->overlap;
    out->tp = v[PE_AXIS_TP][slot[PE_AXIS_TP]];
    out->pp = v[PE_AXIS_PP][slot[PE_AXIS_PP]];
    out->cp = v[PE_AXIS_CP][slot[PE_AXIS_CP]];
    if (sp->mode[PE_AXIS_DP] == MODE_AUTO) {
        int64_t N = s->cluster.nodes * s->cluster.gpus_per_node;
        int64_t tpc = mul_sat(mul_sat(out->tp, out->pp), out->cp);
        if (tpc > N || N % tpc != 0) {
            *axis = PE_AXIS_DP;
            return PE_SKIP_DP_NOT_WHOLE;
        }
        out->dp = N / tpc;
    } else {
        out->dp = v[PE_AXIS_DP][slot[PE_AXIS_DP]];
    }
    out->zero = v[PE_AXIS_ZERO][slot[PE_AXIS_ZERO]];
    out->recompute = (pe_recompute)v[PE_AXIS_RECOMPUTE][slot[PE_AXIS_RECOMPUTE]];
    out->micro_batch = v[PE_AXIS_MICRO_BATCH][slot[PE_AXIS_MICRO_BATCH]];
    if (sp->mode[PE_AXIS_MICRO_BATCH] == MODE_AUTO) {
        int64_t bdp = mul_sat(out->micro_batch, out->dp);
        if (bdp > s->training.global_batch || s->training.global_batch % bdp != 0) {
            *axis = PE_AXIS_MICRO_BATCH;
            return PE_SKIP_MICRO_BATCH;
        }
    }
    out->schedule = (pe_schedule)v[PE_AXIS_SCHEDULE][slot[PE_AXIS_SCHEDULE]];
    /* docs/model.md §1: with p = 1 only the first listed schedule
     * that is not interleaved is a plan; the others are skipped. */
    if (out->pp == 1 && slot[PE_AXIS_SCHEDULE] != sp->pp1_schedule_slot) {
        *axis = PE_AXIS_SCHEDULE;
        return PE_SKIP_SCHEDULE_PP1;
    }
    /* docs/model.md §1: virtual_stages values apply to interleaved only (other
     * schedules take v = 1 once); interleaved with v < 2 is skipped. */
    *axis = PE_AXIS_VIRTUAL_STAGES;
    if (out->schedule != PE_SCHEDULE_INTERLEAVED) {
        if (slot[PE_AXIS_VIRTUAL_STAGES] != 0)
            return PE_SKIP_V_NOT_INTERLEAVED;
        out->virtual_stages = 1;
    } else {
        out->virtual_stages = v[PE_AXIS_VIRTUAL_STAGES][slot[PE_AXIS_VIRTUAL_STAGES]];
        if (sp->mode[PE_AXIS_VIRTUAL_STAGES] == MODE_AUTO) {
            int64_t pv = mul_sat(out->pp, out->virtual_stages);
            if (pv > s->model.layers || s->model.layers % pv != 0)
                return PE_SKIP_VIRTUAL_STAGES;
        }
        if (out->virtual_stages < 2)
            return PE_SKIP_INTERLEAVED_V_LT_2;
    }
    /* sequence_parallel values apply only when t > 1; t = 1 takes false once. */
    *axis = PE_AXIS_SP;
    if (sp->mode[PE_AXIS_SP] == MODE_DEFAULT) {
        out->sequence_parallel = scenario_sequence_parallel(out->tp, false, false);
    } else if (out->tp == 1) {
        if (slot[PE_AXIS_SP] != 0)
            return PE_SKIP_SP_TP1;
        out->sequence_parallel = false;
    } else {
        out->sequence_parallel = v[PE_AXIS_SP][slot[PE_AXIS_SP]] != 0;
    }
    return moe_of_slots(sp, s, slot, out, axis);
}

static void decode(const pe_plan_space *sp, uint64_t rest, uint64_t *slot)
{
    for (int a = sp->inner + 1; a < PE_AXIS_COUNT; a++)
        slot[a] = 0; /* one slot each */
    for (int a = sp->inner; a >= 0; a--) { /* the last axis varies fastest */
        slot[a] = rest % sp->slots[a];
        rest /= sp->slots[a];
    }
}

pe_skip plans_at(const pe_plan_space *sp, uint64_t index, pe_plan *out)
{
    if (index < sp->explicit_count) {
        *out = sp->scenario->plans[index];
        return PE_SKIP_NONE;
    }
    uint64_t slot[PE_AXIS_COUNT];
    decode(sp, index - sp->explicit_count, slot);
    int axis;
    return plan_of_slots(sp, slot, out, &axis);
}

void plans_seek(const pe_plan_space *sp, uint64_t index, pe_plan_cursor *c)
{
    c->index = index;
    if (index >= sp->explicit_count && index < plans_total(sp))
        decode(sp, index - sp->explicit_count, c->slot);
}

pe_skip plans_cursor_plan(const pe_plan_space *sp, const pe_plan_cursor *c, pe_plan *out,
                          uint64_t *span, int *span_axis)
{
    *span = 1;
    *span_axis = PE_AXIS_COUNT - 1;
    if (c->index < sp->explicit_count) {
        *out = sp->scenario->plans[c->index];
        return PE_SKIP_NONE;
    }
    int axis = PE_AXIS_COUNT - 1;
    pe_skip k = plan_of_slots(sp, c->slot, out, &axis);
    if (k != PE_SKIP_NONE) {
        /* the rest of the sub-tree below `axis` skips alike: its size minus
         * where the cursor stands in it */
        uint64_t within = 0;
        for (int b = axis + 1; b <= sp->inner; b++)
            within += c->slot[b] * sp->stride[b];
        *span = sp->stride[axis] - within;
        *span_axis = axis;
    }
    return k;
}

void plans_next_at_axis(const pe_plan_space *sp, pe_plan_cursor *c, int axis)
{
    uint64_t within = 0;
    for (int b = axis + 1; b <= sp->inner; b++) { /* later axes stay at slot 0 */
        within += c->slot[b] * sp->stride[b];
        c->slot[b] = 0;
    }
    c->index += sp->stride[axis] - within;
    for (int a = axis; a >= 0; a--) { /* carry */
        if (++c->slot[a] < sp->slots[a])
            return;
        c->slot[a] = 0;
    }
}

void plans_advance(const pe_plan_space *sp, pe_plan_cursor *c, uint64_t n)
{
    c->index += n;
    if (c->index < sp->explicit_count || c->index >= plans_total(sp))
        return; /* explicit plans need no slots; past the end there are none */
    if (n != 1 || c->index == sp->explicit_count) {
        decode(sp, c->index - sp->explicit_count, c->slot);
        return;
    }
    /* odometer: the last axis varies fastest (axes after `inner` never move) */
    for (int a = sp->inner; a >= 0; a--) {
        if (++c->slot[a] < sp->slots[a])
            return;
        c->slot[a] = 0;
    }
}

uint64_t plans_count(const pe_plan_space *sp, uint64_t skipped[PE_SKIP_COUNT])
{
    uint64_t plans = sp->explicit_count, total = plans_total(sp);
    if (skipped)
        memset(skipped, 0, PE_SKIP_COUNT * sizeof *skipped);
    pe_plan_cursor c;
    plans_seek(sp, sp->explicit_count, &c);
    while (c.index < total) {
        pe_plan p;
        uint64_t span;
        int axis;
        pe_skip k = plans_cursor_plan(sp, &c, &p, &span, &axis);
        if (k == PE_SKIP_NONE) {
            plans++;
            plans_advance(sp, &c, 1);
            continue;
        }
        if (skipped)
            skipped[k] += span;
        plans_next_at_axis(sp, &c, axis);
    }
    return plans;
}

bool plans_find(const pe_plan_space *space, const char *ref, pe_plan *out)
{
    const pe_scenario *s = space->scenario;
    for (size_t i = 0; i < s->plan_count; i++)
        if (strcmp(s->plans[i].name, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    char canon[PE_CANON_MAX];
    for (size_t i = 0; i < s->plan_count; i++) { /* an explicit plan keeps its own overlap */
        plans_canonical(&s->plans[i], canon, sizeof canon);
        if (strcmp(canon, ref) == 0) {
            *out = s->plans[i];
            return true;
        }
    }
    /* Any other canonical text is the plan a sweep would enumerate for it,
     * whether or not this scenario's sweep does: no scan of the sweep. */
    pe_error why; /* plans_find answers yes or no; the caller words the error */
    return canonical_parse(ref, &s->overlap, out, &why) == PE_OK;
}
