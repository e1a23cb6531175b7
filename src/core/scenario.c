/* scenario.c — enum texts, plan defaults and canonical text, and releasing
 * what a scenario owns. */
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"

#define NAME_OF(table, v) \
    (((size_t)(v) < sizeof table / sizeof table[0]) ? table[(size_t)(v)] : "?")

const char *pe_mlp_name(pe_mlp v)
{
    static const char *const t[] = {"gelu", "swiglu"};
    return NAME_OF(t, v);
}
const char *pe_norm_name(pe_norm v)
{
    static const char *const t[] = {"layernorm", "rmsnorm"};
    return NAME_OF(t, v);
}
const char *pe_position_name(pe_position v)
{
    static const char *const t[] = {"learned", "rotary"};
    return NAME_OF(t, v);
}
const char *pe_attention_name(pe_attention v)
{
    static const char *const t[] = {"standard", "flash", "mla"};
    return NAME_OF(t, v);
}
void scenario_plan_defaults(pe_plan *p)
{
    if (p->ep == 0)
        p->ep = 1;
    if (p->etp == 0)
        p->etp = p->tp;
}

const char *pe_compute_name(pe_compute v)
{
    static const char *const t[] = {"bf16", "fp8"};
    return NAME_OF(t, v);
}
const char *pe_topology_name(pe_topology v)
{
    static const char *const t[] = {"switch", "full_mesh"};
    return NAME_OF(t, v);
}
const char *pe_recompute_name(pe_recompute v)
{
    static const char *const t[] = {"none", "selective", "full"};
    return NAME_OF(t, v);
}
const char *pe_schedule_name(pe_schedule v)
{
    static const char *const t[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2"};
    return NAME_OF(t, v);
}
const char *pe_rank_by_name(pe_rank_by v)
{
    static const char *const t[] = {"step_time", "mfu", "memory", "train_days", "interventions"};
    return NAME_OF(t, v);
}

const char *pe_fidelity_name(pe_fidelity v)
{
    static const char *const t[] = {"refined", "textbook"};
    return NAME_OF(t, v);
}
const char *pe_dp_algorithm_name(pe_dp_algorithm v)
{
    static const char *const t[] = {"hierarchical", "flat"};
    return NAME_OF(t, v);
}

const char *pe_allreduce_name(pe_allreduce v)
{
    static const char *const t[] = {"ring", "auto"};
    return NAME_OF(t, v);
}

const char *pe_ask_name(pe_ask v)
{
    static const char *const t[] = {"column",    "fits",      "comm_bound",
                                    "min_intervention", "best_plan", "chosen_plan"};
    return NAME_OF(t, v);
}

void scenario_force_textbook(pe_scenario *s)
{
    pe_gpu *g = &s->cluster.gpu;
    g->has_gemm_efficiency = false, g->gemm_efficiency = 0, g->gemm_half_gflop = 0;
    g->has_attention_efficiency = false, g->attention_efficiency = 0;
    g->elementwise_efficiency = 0, g->microbatch_overhead_us = 0;
    g->has_fp8_gemm_efficiency = false, g->fp8_gemm_efficiency = 0;
    s->cluster.intra_node.bus_efficiency = 1, s->cluster.intra_node.half_message_mb = 0;
    s->cluster.inter_node.bus_efficiency = 1, s->cluster.inter_node.half_message_mb = 0;
    memset(&s->framework, 0, sizeof s->framework);
    s->fidelity = PE_FIDELITY_TEXTBOOK;
}

static void axis_free(pe_axis *a) { free(a->values); }

void scenario_free(pe_scenario *s)
{
    if (!s)
        return;
    free(s->description);
    free(s->plans);
    pe_axis *axes[] = {&s->sweep.tp,        &s->sweep.pp,        &s->sweep.cp,
                       &s->sweep.dp,        &s->sweep.zero,      &s->sweep.recompute,
                       &s->sweep.micro_batch, &s->sweep.schedule, &s->sweep.virtual_stages,
                       &s->sweep.sequence_parallel, &s->sweep.ep, &s->sweep.etp,
                       &s->sweep.first_stage_layers, &s->sweep.last_stage_layers,
                       &s->sweep.offload_optimizer};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        axis_free(axes[i]);
    for (size_t i = 0; i < s->expect_count; i++) {
        for (size_t j = 0; j < s->expects[i].check_count; j++)
            free(s->expects[i].checks[j].text);
        free(s->expects[i].checks);
    }
    free(s->expects);
    free(s->questions);
    memset(s, 0, sizeof *s);
}

/* docs/scenarios.md "Plans" (canonical text). */
/* Append text / a non-negative integer; the hot path of every report row
 * and ranking tie, so no printf. */
static char *put_text(char *o, const char *end, const char *t)
{
    while (*t && o < end)
        *o++ = *t++;
    return o;
}

static char *put_int(char *o, const char *end, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 : (uint64_t)v; /* degrees are ≥ 0 */
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n && o < end)
        *o++ = digits[--n];
    return o;
}

int scenario_plan_canonical(const pe_plan *p, char *buf, size_t size)
{
    if (!size)
        return 0;
    char *o = buf, *end = buf + size - 1;
    o = put_text(o, end, "dp");
    o = put_int(o, end, p->dp);
    o = put_text(o, end, "-tp");
    o = put_int(o, end, p->tp);
    o = put_text(o, end, "-pp");
    o = put_int(o, end, p->pp);
    o = put_text(o, end, "-cp");
    o = put_int(o, end, p->cp);
    o = put_text(o, end, "-z");
    o = put_int(o, end, p->zero);
    o = put_text(o, end, "-");
    o = put_text(o, end, pe_recompute_name(p->recompute));
    o = put_text(o, end, "-mb");
    o = put_int(o, end, p->micro_batch);
    o = put_text(o, end, "-");
    o = put_text(o, end, pe_schedule_name(p->schedule));
    o = put_text(o, end, "-v");
    o = put_int(o, end, p->virtual_stages);
    o = put_text(o, end, p->sequence_parallel ? "-sp1" : "-sp0");
    if (p->ep > 1) {
        o = put_text(o, end, "-ep");
        o = put_int(o, end, p->ep);
    }
    if (p->etp != p->tp && p->etp > 0) {
        o = put_text(o, end, "-etp");
        o = put_int(o, end, p->etp);
    }
    if (p->first_stage_layers > 0) {
        o = put_text(o, end, "-fs");
        o = put_int(o, end, p->first_stage_layers);
    }
    if (p->last_stage_layers > 0) {
        o = put_text(o, end, "-ls");
        o = put_int(o, end, p->last_stage_layers);
    }
    if (p->offload_optimizer)
        o = put_text(o, end, "-off");
    *o = '\0';
    return (int)(o - buf);
}
