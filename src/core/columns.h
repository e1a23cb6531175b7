/* columns.h — the report's columns (docs/scenarios.md "The report"), in order,
 * with the kind of each cell. The single list the writer, the reader
 * (merge, check --golden) and the loader's `expect:` validation share. */
#ifndef PLANEVAL_COLUMNS_H
#define PLANEVAL_COLUMNS_H

#include <stdbool.h>

#include <stddef.h>

typedef enum { PE_COL_INT, PE_COL_NUMBER, PE_COL_TEXT, PE_COL_BOOL } pe_column_kind;

typedef enum {
    COL_RANK, COL_SCENARIO, COL_PLAN, COL_STATUS, COL_REASON, COL_GPUS, COL_DP, COL_TP,
    COL_PP, COL_CP, COL_ZERO, COL_RECOMPUTE, COL_SCHEDULE, COL_VIRTUAL_STAGES,
    COL_SEQUENCE_PARALLEL, COL_MICRO_BATCH, COL_MICROBATCHES, COL_WORST_STAGE,
    COL_MEM_WEIGHTS_GIB, COL_MEM_GRADS_GIB, COL_MEM_OPTIMIZER_GIB, COL_MEM_ACTIVATIONS_GIB,
    COL_MEM_OTHER_GIB, COL_MEM_RESERVE_GIB, COL_MEM_TOTAL_GIB, COL_MEM_BUDGET_GIB,
    COL_MEM_HEADROOM_GIB, COL_COMPUTE_S, COL_TP_COMM_S, COL_CP_COMM_S, COL_BUBBLE_S,
    COL_PP_COMM_S, COL_DP_COMM_S, COL_OPTIMIZER_S, COL_STEP_TIME_S, COL_COMM_FRACTION,
    COL_BUBBLE_FRACTION, COL_BOUND, COL_TOKENS_PER_S, COL_MFU, COL_HFU, COL_TFLOPS_PER_GPU,
    COL_TRAIN_DAYS, COL_GPU_HOURS, COL_INTERVENTIONS, COL_STATE_TOTAL_GIB, COL_ACT_TOTAL_GIB,
    /* added by planeval (docs/scenarios.md allows additions after the list) */
    COL_LINKS,      /* interconnect tier of each axis: "tp:intra dp:inter" */
    COL_PLAN_INDEX, /* the plan's position in the scenario's enumeration (input order) */
    COL_RANK_BY,    /* the scenario's rank_by: how this report is ordered */
    /* the MoE columns, after rank_by: a column never moves, so a report
     * reader keeps its indices when columns are added */
    COL_EP_COMM_S,       /* EP all-to-all time per step, part of step_time_s (0 dense) */
    COL_MEM_EXPERTS_GIB, /* of which expert state on the memory stage (0 dense) */
    COL_STEP_TIME_LO_S,  /* S6 prediction interval, refined model (empty in textbook) */
    COL_STEP_TIME_HI_S,
    COL_MEM_PEAK_GIB,     /* M9 peak allocated (textbook: M5 − R) */
    COL_MEM_RESERVED_GIB, /* M13 caching-allocator reserved (textbook: M5) */
    COL_MEM_PEAK_PHASE,   /* M9 the peak's phase (textbook: sum) */
    COL_COST,            /* S7: gpu_hours at cluster.cost_per_gpu_hour (empty without) */
    /* the design a row was evaluated on (sweep design axes, else the scenario's) */
    COL_NODES, COL_GLOBAL_BATCH, COL_SEQ_LEN,
    /* the plan keys the v1 columns leave out */
    COL_EP, COL_ETP, COL_FIRST_STAGE_LAYERS, COL_LAST_STAGE_LAYERS, COL_OFFLOAD_OPTIMIZER,
    /* the whole run (docs/model.md §15) */
    COL_ENERGY_MWH,           /* R3, empty without tdp_w or training.tokens */
    COL_GOODPUT,              /* R8, 1 without failures: */
    COL_EFFECTIVE_TRAIN_DAYS, /* R9, empty without training.tokens */
    COL_CLUSTER,              /* the design's cluster preset (sweep.cluster, cluster.preset) */
    /* the design's link numbers (sweep.intra_node/inter_node, else the cluster's) */
    COL_INTRA_BANDWIDTH_GB_S, COL_INTRA_LINK_GB_S, COL_INTRA_LATENCY_US, COL_INTER_NIC_GB_S,
    COL_INTER_LATENCY_US,
    /* the row's overlap fractions (sweep.overlap, else the plan's: docs/model.md §6) */
    COL_OVERLAP_TP, COL_OVERLAP_CP, COL_OVERLAP_DP, COL_OVERLAP_PP, COL_OVERLAP_EP,
    COL_FRAMEWORK, /* the design's framework preset (sweep.framework, framework:) */
    COL_PIPELINE_LAYOUT, /* a plan's pipeline_layout (V3″) as its canonical text; empty without */
    COL_MEM_PEAK_LO_GIB, /* M23 the memory peak's prediction interval, refined model (empty in */
    COL_MEM_PEAK_HI_GIB, /* textbook) */
    COL_COUNT
} pe_column;

typedef struct {
    const char *name;
    pe_column_kind kind;
} pe_column_info;

extern const pe_column_info pe_columns[COL_COUNT];

/* The values of the bound column (docs/model.md §8 S3), in tie order (a
 * tie goes to the earlier), NULL-terminated: the model names its pe_bound
 * with them and the loader checks an `expect:` on bound against them. */
#define PE_BOUND_VALUE_COUNT 5
extern const char *const pe_bound_values[PE_BOUND_VALUE_COUNT + 1];

/* Index of the column called name, or -1. */
int columns_find(const char *name);

/* Whether a number column's figure may be below zero: mem_headroom_gib
 * alone (budget − total, negative when over: docs/scenarios.md); every
 * other figure is a size, a time, a rate, a fraction, a count or a price. */
bool columns_may_be_negative(pe_column col);

#endif
