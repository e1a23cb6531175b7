/* scenario.c — enum texts, plan defaults, and releasing what a scenario
 * owns. (A plan's canonical text: canonical.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
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
        fields_reset(&pe_fields_plan, "ep", p);
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
    static const char *const t[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2", "dualpipe"};
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
const char *pe_base_quant_name(pe_base_quant v)
{
    static const char *const t[] = {"none", "nf4", "int8"};
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

const char *pe_attention_kernel_name(pe_attention_kernel v)
{
    static const char *const t[] = {"none", "flash-attention-2", "flash-attention-3", "cudnn"};
    return NAME_OF(t, v);
}

const char *pe_checkpoint_save_name(pe_checkpoint_save v)
{
    static const char *const t[] = {"sync", "async"};
    return NAME_OF(t, v);
}

const char *pe_ask_name(pe_ask v)
{
    static const char *const t[] = {"column",    "fits",      "comm_bound",
                                    "min_intervention", "best_plan", "chosen_plan"};
    return NAME_OF(t, v);
}

const char *const pe_gpu_refinement_keys[] = {
    "gemm_efficiency",          "gemm_half_gflop",          "attention_efficiency",
    "elementwise_efficiency",   "microbatch_overhead_us",   "fp8_gemm_efficiency",
    "attention_half_seq",       "attention_half_head_dim",  "attention_causal_tile",
    "attention_fa2_efficiency", "attention_fa2_half_seq",   "attention_fa3_efficiency",
    "attention_fa3_half_seq",   "attention_cudnn_efficiency", "attention_cudnn_half_seq",
    "grouped_gemm_half_rows",   "fp8_rowwise_gemm_efficiency",
    "fp8_kernel_gemm_efficiency", NULL};
const char *const pe_link_refinement_keys[] = {"bus_efficiency", "half_message_mb", NULL};

void scenario_cluster_force_textbook(pe_cluster *c)
{
    /* a refinement's default (fields.c) is its neutral value */
    for (const char *const *k = pe_gpu_refinement_keys; *k; k++)
        fields_reset(&pe_fields_gpu, *k, &c->gpu);
    for (const char *const *k = pe_link_refinement_keys; *k; k++) {
        fields_reset(&pe_fields_intra_node, *k, &c->intra_node);
        fields_reset(&pe_fields_inter_node, *k, &c->inter_node);
    }
}

void scenario_force_textbook(pe_scenario *s)
{
    scenario_cluster_force_textbook(&s->cluster);
    for (size_t i = 0; s->sweep.clusters && i < s->sweep.cluster.count; i++)
        scenario_cluster_force_textbook(&s->sweep.clusters[i]);
    memset(&s->framework, 0, sizeof s->framework);
    fields_store_defaults(&pe_fields_framework, &s->framework);
    for (size_t i = 0; s->sweep.frameworks && i < s->sweep.framework.count; i++) {
        pe_framework *f = &s->sweep.frameworks[i]; /* dropped too; its name still says which */
        char name[PE_NAME_MAX];
        snprintf(name, sizeof name, "%s", f->name);
        *f = s->framework;
        snprintf(f->name, sizeof f->name, "%s", name);
    }
    s->fidelity = PE_FIDELITY_TEXTBOOK;
}

static void axis_free(pe_axis *a)
{
    free(a->values);
    free(a->numbers);
}

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
                       &s->sweep.offload_optimizer, &s->sweep.nodes, &s->sweep.gpus,
                       &s->sweep.global_batch, &s->sweep.seq_len, &s->sweep.cluster,
                       &s->sweep.intra_bandwidth_gb_s, &s->sweep.intra_link_gb_s,
                       &s->sweep.intra_latency_us, &s->sweep.inter_nic_gb_s,
                       &s->sweep.inter_latency_us, &s->sweep.overlap_tp,
                       &s->sweep.overlap_cp, &s->sweep.overlap_dp, &s->sweep.overlap_pp,
                       &s->sweep.overlap_ep, &s->sweep.framework};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        axis_free(axes[i]);
    free(s->sweep.clusters);
    free(s->sweep.frameworks);
    free(s->sweep.framework_overlaps);
    for (size_t i = 0; i < s->expect_count; i++) {
        for (size_t j = 0; j < s->expects[i].check_count; j++)
            free(s->expects[i].checks[j].text);
        free(s->expects[i].checks);
    }
    free(s->expects);
    free(s->questions);
    memset(s, 0, sizeof *s);
}
