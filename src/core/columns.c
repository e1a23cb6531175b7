/* columns.c — the report's column table. */
#include <string.h>

#include "core/columns.h"

const pe_column_info pe_columns[COL_COUNT] = {
    {"rank", PE_COL_INT},
    {"scenario", PE_COL_TEXT},
    {"plan", PE_COL_TEXT},
    {"status", PE_COL_TEXT},
    {"reason", PE_COL_TEXT},
    {"gpus", PE_COL_INT},
    {"dp", PE_COL_INT},
    {"tp", PE_COL_INT},
    {"pp", PE_COL_INT},
    {"cp", PE_COL_INT},
    {"zero", PE_COL_INT},
    {"recompute", PE_COL_TEXT},
    {"schedule", PE_COL_TEXT},
    {"virtual_stages", PE_COL_INT},
    {"sequence_parallel", PE_COL_BOOL},
    {"micro_batch", PE_COL_INT},
    {"microbatches", PE_COL_INT},
    {"worst_stage", PE_COL_INT},
    {"mem_weights_gib", PE_COL_NUMBER},
    {"mem_grads_gib", PE_COL_NUMBER},
    {"mem_optimizer_gib", PE_COL_NUMBER},
    {"mem_activations_gib", PE_COL_NUMBER},
    {"mem_other_gib", PE_COL_NUMBER},
    {"mem_reserve_gib", PE_COL_NUMBER},
    {"mem_total_gib", PE_COL_NUMBER},
    {"mem_budget_gib", PE_COL_NUMBER},
    {"mem_headroom_gib", PE_COL_NUMBER},
    {"compute_s", PE_COL_NUMBER},
    {"tp_comm_s", PE_COL_NUMBER},
    {"cp_comm_s", PE_COL_NUMBER},
    {"bubble_s", PE_COL_NUMBER},
    {"pp_comm_s", PE_COL_NUMBER},
    {"dp_comm_s", PE_COL_NUMBER},
    {"optimizer_s", PE_COL_NUMBER},
    {"step_time_s", PE_COL_NUMBER},
    {"comm_fraction", PE_COL_NUMBER},
    {"bubble_fraction", PE_COL_NUMBER},
    {"bound", PE_COL_TEXT},
    {"tokens_per_s", PE_COL_NUMBER},
    {"mfu", PE_COL_NUMBER},
    {"hfu", PE_COL_NUMBER},
    {"tflops_per_gpu", PE_COL_NUMBER},
    {"train_days", PE_COL_NUMBER},
    {"gpu_hours", PE_COL_NUMBER},
    {"interventions", PE_COL_INT},
    {"state_total_gib", PE_COL_NUMBER},
    {"act_total_gib", PE_COL_NUMBER},
    {"links", PE_COL_TEXT},
    {"plan_index", PE_COL_INT},
    {"rank_by", PE_COL_TEXT},
    {"ep_comm_s", PE_COL_NUMBER},
    {"mem_experts_gib", PE_COL_NUMBER},
    {"step_time_lo_s", PE_COL_NUMBER},
    {"step_time_hi_s", PE_COL_NUMBER},
    {"mem_peak_gib", PE_COL_NUMBER},
    {"mem_reserved_gib", PE_COL_NUMBER},
    {"mem_peak_phase", PE_COL_TEXT},
    {"cost", PE_COL_NUMBER},
    {"nodes", PE_COL_INT},
    {"global_batch", PE_COL_INT},
    {"seq_len", PE_COL_INT},
    {"ep", PE_COL_INT},
    {"etp", PE_COL_INT},
    {"first_stage_layers", PE_COL_INT},
    {"last_stage_layers", PE_COL_INT},
    {"offload_optimizer", PE_COL_BOOL},
    {"energy_mwh", PE_COL_NUMBER},
    {"goodput", PE_COL_NUMBER},
    {"effective_train_days", PE_COL_NUMBER},
    {"cluster", PE_COL_TEXT},
    {"intra_node.bandwidth_gb_s", PE_COL_NUMBER},
    {"intra_node.link_gb_s", PE_COL_NUMBER},
    {"intra_node.latency_us", PE_COL_NUMBER},
    {"inter_node.nic_gb_s", PE_COL_NUMBER},
    {"inter_node.latency_us", PE_COL_NUMBER},
    {"overlap.tp", PE_COL_NUMBER},
    {"overlap.cp", PE_COL_NUMBER},
    {"overlap.dp", PE_COL_NUMBER},
    {"overlap.pp", PE_COL_NUMBER},
    {"overlap.ep", PE_COL_NUMBER},
    {"framework", PE_COL_TEXT},
    {"pipeline_layout", PE_COL_TEXT},
    {"mem_peak_lo_gib", PE_COL_NUMBER},
    {"mem_peak_hi_gib", PE_COL_NUMBER},
};

int columns_find(const char *name)
{
    for (int i = 0; i < COL_COUNT; i++)
        if (strcmp(pe_columns[i].name, name) == 0)
            return i;
    return -1;
}

bool columns_may_be_negative(pe_column col)
{
    return col == COL_MEM_HEADROOM_GIB;
}

const char *const pe_bound_values[PE_BOUND_VALUE_COUNT + 1] = {
    "compute", "communication", "bubble", "optimizer", "host", NULL};
