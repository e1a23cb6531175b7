/* scenario.h — the plain data types every stage shares: model, precision,
 * cluster, training, budgets, overlap, plan, sweep, expectations, scenario.
 * No YAML, no CSV, no formulas here. Symbols and defaults: docs/model.md §0;
 * key names: docs/scenarios.md "A scenario file". Integer keys are int64_t (the
 * loader bounds them by 2^53); every derived quantity is a double. */
#ifndef PLANEVAL_SCENARIO_H
#define PLANEVAL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define PE_NAME_MAX 256 /* scenario, plan and preset names, bytes incl. NUL */
/* A scenario's name names its files, and the longest of them is the
 * temporary file of a shard's summary, .NAME.shard-I-of-N.summary.csv.tmp.HOST.PID
 * (I and N up to 20 digits, HOST up to 32 bytes, PID up to 10 digits):
 * 112 bytes besides NAME within a file name's 255 (NAME_MAX) leave 143;
 * 128 keeps room for a new suffix. */
#define PE_SCENARIO_NAME_FILE_MAX 128

typedef enum { PE_MLP_GELU, PE_MLP_SWIGLU } pe_mlp;
typedef enum { PE_NORM_LAYERNORM, PE_NORM_RMSNORM } pe_norm;
typedef enum { PE_POSITION_LEARNED, PE_POSITION_ROTARY } pe_position;
/* mla: multi-head latent attention (DeepSeek-V2/V3); stores no score matrix,
 * like flash (docs/design/moe.md §12.1). */
typedef enum { PE_ATTENTION_STANDARD, PE_ATTENTION_FLASH, PE_ATTENTION_MLA } pe_attention;
typedef enum { PE_COMPUTE_BF16, PE_COMPUTE_FP8 } pe_compute;
/* F24 the FP8 scaling recipe; none: F18's one FP8 rate, no cast work */
typedef enum {
    PE_FP8_RECIPE_NONE,
    PE_FP8_RECIPE_TENSORWISE,
    PE_FP8_RECIPE_ROWWISE,
    PE_FP8_RECIPE_DELAYED,
    PE_FP8_RECIPE_BLOCKWISE,
    PE_FP8_RECIPE_MXFP8
} pe_fp8_recipe;
typedef enum { PE_TOPOLOGY_SWITCH, PE_TOPOLOGY_FULL_MESH } pe_topology;
typedef enum { PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE, PE_RECOMPUTE_FULL } pe_recompute;
typedef enum {
    PE_SCHEDULE_1F1B,
    PE_SCHEDULE_INTERLEAVED,
    PE_SCHEDULE_GPIPE,
    PE_SCHEDULE_ZB_H1,
    PE_SCHEDULE_ZB_H2,
    PE_SCHEDULE_DUALPIPE /* §12 B6, A21, M14: refined only (DeepSeek-V3 §3.2.1) */
} pe_schedule;
typedef enum {
    PE_RANK_STEP_TIME,
    PE_RANK_MFU,
    PE_RANK_MEMORY,
    PE_RANK_TRAIN_DAYS,
    PE_RANK_INTERVENTIONS
} pe_rank_by;
/* docs/model.md §12: refined (default) applies the refinements the GPU, cluster
 * and framework supply; textbook forces every one of them to neutral (the
 * textbook model). */
typedef enum { PE_FIDELITY_REFINED, PE_FIDELITY_TEXTBOOK } pe_fidelity;
/* training.finetune (docs/model.md §3 M15–M17, A27): full trains every
 * weight; lora freezes the base and trains low-rank adapters (Hu et al.,
 * arXiv:2106.09685). */
typedef enum { PE_FINETUNE_FULL, PE_FINETUNE_LORA } pe_finetune;
/* training.lora_targets: the linears of a layer that get an adapter
 * (huggingface/peft "all-linear": every linear but the output layer) */
typedef enum { PE_LORA_ALL_LINEAR, PE_LORA_ATTENTION, PE_LORA_MLP } pe_lora_targets;
/* training.base_quant: how the frozen linear weights are stored (M15) */
typedef enum { PE_BASE_QUANT_NONE, PE_BASE_QUANT_NF4, PE_BASE_QUANT_INT8 } pe_base_quant;
/* C9: a ZeRO/DP collective spanning nodes as a two-level (hierarchical)
 * ring — C4 of the textbook model — or as one flat ring over every member. */
typedef enum { PE_DP_HIERARCHICAL, PE_DP_FLAT } pe_dp_algorithm;
/* C10: an all-reduce across nodes as a ring (the textbook model's C5) or, as NCCL's tuner
 * does, the faster of ring and tree. */
typedef enum { PE_ALLREDUCE_RING, PE_ALLREDUCE_AUTO } pe_allreduce;
/* A15: what `recompute: selective` recomputes: Megatron's core attention, or
 * torchtitan's op-level policy (selective_ac_option = "op") */
typedef enum { PE_SELECTIVE_ATTENTION, PE_SELECTIVE_OP } pe_selective;
/* A18: which layers `recompute: full` checkpoints (Megatron --recompute-method;
 * torchtitan's selective_ac_option N is `every`) */
typedef enum { PE_RECOMPUTE_UNIFORM, PE_RECOMPUTE_BLOCK, PE_RECOMPUTE_EVERY } pe_recompute_method;
/* A20: the buffers of PyTorch's context-parallel ring attention, by how it
 * rotates the KV shards (torch _attention.py _RotateMethod); none: not modelled */
typedef enum { PE_CP_RING_NONE, PE_CP_RING_ALLGATHER, PE_CP_RING_ALLTOALL } pe_cp_ring;
/* A19: the modules `recompute: selective` recomputes, as Megatron-Core's
 * --recompute-modules spells them: core_attn (A3's selective, neutral), or
 * layernorm, mla_up_proj and moe_act together (DeepSeek-V3's report §3.2.3,
 * §3.3.3) */
typedef enum { PE_RECOMPUTE_MODULES_CORE_ATTN, PE_RECOMPUTE_MODULES_NORM_MLA_MOE_ACT }
pe_recompute_modules;
/* F30: the attention kernel a framework runs (the kernels of
 * scenarios/measurements/attention.csv); none: the GPU's own e_att */
typedef enum { PE_ATTENTION_KERNEL_NONE, PE_ATTENTION_KERNEL_FA2, PE_ATTENTION_KERNEL_FA3,
               PE_ATTENTION_KERNEL_CUDNN } pe_attention_kernel;
/* X25: the collective that reduces the gradients at ZeRO stage 1: a
 * reduce-scatter (the textbook X4), or an all-reduce of the whole gradient
 * (DeepSpeed's BF16_Optimizer under its pipeline engine) */
typedef enum { PE_DP_GRAD_REDUCE_SCATTER, PE_DP_GRAD_ALL_REDUCE } pe_dp_grad_collective;
/* X27: the compute the per-micro-batch gradient reduce-scatter of ZeRO stage 2
 * hides behind: its micro-batch's backward (the textbook X4), or the whole
 * micro-batch, forward and backward (reduced asynchronously, not waited on
 * before the next forward) */
typedef enum { PE_DP_GRAD_WINDOW_BACKWARD, PE_DP_GRAD_WINDOW_MICROBATCH } pe_dp_grad_window;
#define PE_RANK_BY_MAX 5 /* rank_by keys in one list: each at most once */

/* Text of each enum value as written in YAML and in reports. */
const char *pe_mlp_name(pe_mlp v);
const char *pe_norm_name(pe_norm v);
const char *pe_position_name(pe_position v);
const char *pe_attention_name(pe_attention v);
const char *pe_compute_name(pe_compute v);
const char *pe_topology_name(pe_topology v);
const char *pe_recompute_name(pe_recompute v);
const char *pe_schedule_name(pe_schedule v);
const char *pe_rank_by_name(pe_rank_by v);
const char *pe_fidelity_name(pe_fidelity v);
const char *pe_base_quant_name(pe_base_quant v);
const char *pe_dp_algorithm_name(pe_dp_algorithm v);
const char *pe_allreduce_name(pe_allreduce v);
const char *pe_attention_kernel_name(pe_attention_kernel v);

typedef struct {
    int64_t layers;     /* L */
    int64_t hidden;     /* h */
    int64_t heads;      /* a */
    int64_t kv_heads;   /* g, default a */
    int64_t ffn_hidden; /* f, default 4h */
    int64_t vocab;      /* V */
    int64_t seq_len;    /* s */
    pe_mlp mlp;
    pe_norm norm;
    bool bias;
    bool dropout; /* δ */
    bool tied_embeddings;
    pe_position position;
    pe_attention attention;
    bool causal_flops; /* κ = 0.5 when true */
    bool has_params;
    double params; /* P6, meaningful when has_params */
    /* --- mixture of experts, head_dim, MLA (docs/design/moe.md §0) --- */
    int64_t experts;          /* E routed experts per MoE layer; 0 = dense */
    int64_t top_k;            /* k */
    int64_t moe_ffn_hidden;   /* f_e, default f */
    int64_t shared_experts;   /* n_s, each of size f_e */
    int64_t dense_layers;     /* L_d leading dense layers */
    int64_t moe_every;        /* ν: layer i ≥ L_d is MoE iff i mod ν = 0 */
    bool has_capacity_factor; /* absent = dropless */
    double capacity_factor;   /* C */
    double moe_imbalance;     /* ι, busiest expert rank / mean, default 1 */
    bool has_head_dim;        /* absent: d = h/a, P1 unchanged */
    int64_t head_dim;         /* d */
    int64_t q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim; /* MLA */
} pe_model;

typedef struct {
    double param_bytes;     /* β_w */
    double grad_bytes;      /* β_g */
    double optimizer_bytes; /* β_o */
    pe_compute compute;      /* GEMM precision (docs/design/moe.md §6) */
    double fp8_weight_bytes; /* β_8, TE's cached FP8 weight copies per FP8-GEMM parameter */
    double dispatch_bytes;   /* β_d, bytes per element of the EP dispatch all-to-all */
    pe_fp8_recipe fp8_recipe; /* F24 the scaling recipe of the FP8 GEMMs */
} pe_precision;

typedef struct {
    double hbm_gib;
    double peak_tflops;
    double hbm_tb_s;
    double flops_efficiency; /* e */
    /* refinements (docs/model.md §12); the defaults are neutral (the textbook F6) */
    bool has_gemm_efficiency;
    double gemm_efficiency;        /* F8 e_max; absent: compute as F6 */
    double gemm_half_gflop;        /* F8 F_half, GFLOP (10^9); 0 */
    bool gemm_half_measured;       /* F8: F_half is a kernel measurement, calibrate holds it */
    bool has_attention_efficiency;
    double attention_efficiency;   /* F9 e_att; default e_max */
    double attention_half_seq;     /* F22 s_half, keys per query reaching half of e_att; 0 */
    double attention_half_head_dim; /* F22 d_half of the head-dimension factor; 0 */
    double attention_causal_tile;  /* F22 B_c, causal kernels' tile (block skipping); 0 */
    bool attention_measured;       /* F41: e_att is a kernel measurement, calibrate holds it */
    bool gemm_measured;            /* F42: e_max and e_max8 are kernel measurements (explain) */
    double grouped_gemm_half_rows; /* F38 M_half, rows per expert at half the expert GEMMs' rate; 0 */
    double elementwise_efficiency; /* F10 η_W; 0 leaves element-wise work untimed */
    double microbatch_overhead_us; /* F11 t_mb, µs per micro-batch; 0 */
    bool has_peak_fp8_tflops, has_host_link_gb_s;
    double peak_fp8_tflops; /* dense FP8 TFLOP/s (compute: fp8) */
    bool has_fp8_gemm_efficiency;
    double fp8_gemm_efficiency; /* F18 e_max of FP8 GEMMs; default gemm_efficiency */
    double fp8_rowwise_gemm_efficiency; /* F42 e_row, rowwise FP8 kernel measured; 0: F24's r */
    double fp8_kernel_gemm_efficiency;  /* F42 e_k8, tensorwise FP8 kernel measured (no casts); 0 */
    double host_link_gb_s;  /* GPU↔host GB/s per direction (offload_optimizer) */
    /* S6 prediction interval from calibrate's leave-one-out residuals
     * (docs/model.md §12 "Prediction intervals"); absent: the stated default */
    bool has_step_time_interval;
    double step_time_below, step_time_above; /* S6 δ−, δ+ */
    int64_t step_time_interval_runs;         /* the residuals behind them; 0 */
    /* whole run (docs/model.md §15): board power; absent: no energy_mwh */
    bool has_tdp_w, has_idle_w;
    double tdp_w;  /* R1 P_TDP, the board's rated power, W */
    double idle_w; /* R1 P_idle, board power while it waits; default tdp_w */
    /* F30 each kernel's measured F22 numbers on this GPU (e_att, s_half);
     * 0: not measured, the GPU's attention_efficiency and attention_half_seq */
    double attention_fa2_efficiency, attention_fa2_half_seq;
    double attention_fa3_efficiency, attention_fa3_half_seq;
    double attention_cudnn_efficiency, attention_cudnn_half_seq;
    int64_t sm_count; /* F32 streaming multiprocessors of the chip (datasheet); 0: not given */
} pe_gpu;

typedef struct {
    bool present;
    pe_topology topology;
    int64_t links;         /* full_mesh */
    double link_gb_s;      /* full_mesh, per direction */
    double bandwidth_gb_s; /* switch, per GPU per direction */
    double latency_us;
    double bus_efficiency;  /* C8 η_max; 1 */
    double half_message_mb; /* C8 S_half, MB (10^6 bytes); 0 */
} pe_intra_node;

typedef struct {
    bool present;
    double nic_gb_s; /* per GPU per direction */
    double latency_us;
    double bus_efficiency;  /* C8 η_max; 1 */
    double half_message_mb; /* C8 S_half, MB (10^6 bytes); 0 */
} pe_inter_node;

typedef struct {
    int64_t nodes;
    int64_t gpus_per_node; /* G */
    bool allow_cross_node_tp;
    double reserve_gib; /* R */
    pe_gpu gpu;
    pe_intra_node intra_node;
    pe_inter_node inter_node;
    bool has_host_memory_gib;
    double host_memory_gib;    /* H_host per node (offload_optimizer) */
    double cpu_adam_gparams_s; /* R_cpu: CPU Adam 10^9 parameters/s per node */
    bool has_cost_per_gpu_hour;
    double cost_per_gpu_hour;  /* S7: price of one GPU for an hour, one currency */
    /* whole run (docs/model.md §15) */
    double node_overhead_w; /* R2 P_other: a node's draw besides its GPUs, W; 0 */
    double pue;             /* R3 facility energy / IT energy; 1 */
    char preset[PE_NAME_MAX]; /* the cluster preset named (cluster.preset, sweep.cluster); "" */
} pe_cluster;

typedef struct {
    int64_t global_batch; /* B */
    bool has_tokens;
    double tokens;
    /* parameter-efficient fine-tuning (M15–M17, A27); full: none of it */
    pe_finetune finetune;
    int64_t lora_rank;            /* r; 8 (peft LoraConfig's default) */
    pe_lora_targets lora_targets; /* all-linear */
    double lora_dropout;          /* p of lora_dropout; 0 (no saved copy) */
    pe_base_quant base_quant;     /* none */
} pe_training;

typedef struct {
    bool has_memory_gib, has_step_time_s, has_train_days, has_min_mfu;
    double memory_gib, step_time_s, train_days, min_mfu;
    /* T2: the whole run's GPU-hours and cost limits, set only by targets: (no
     * budgets: key of their own) */
    bool has_gpu_hours, has_cost;
    double gpu_hours, cost;
} pe_budgets;

/* targets: what the run must reach (docs/sweeps.md "Targets"): tokens
 * trained within days, gpu_hours or cost. tokens is training.tokens, days
 * is budgets.train_days; gpu_hours and cost are budgets.gpu_hours/cost.
 * Where each key stands, for the message when no design meets it. */
typedef enum { PE_TARGET_DAYS, PE_TARGET_GPU_HOURS, PE_TARGET_COST, PE_TARGET_COUNT } pe_target;
typedef struct {
    bool present;
    bool has_tokens, has_days, has_gpu_hours, has_cost;
    double tokens, days, gpu_hours, cost;
    int line, col;                                    /* the targets: key */
    int key_line[PE_TARGET_COUNT], key_col[PE_TARGET_COUNT]; /* each limit's key */
} pe_targets;

typedef struct {
    double tp, cp, dp, pp; /* each in [0, 1]; defaults 0, 1, 1, 0 */
    double ep;             /* EP all-to-all hidden behind MoE-layer compute, default 0 */
} pe_overlap;

#define PE_FLAGS_MAX 384 /* framework flags text, bytes incl. NUL */
/* Whole run (docs/model.md §15, R4–R9): interruptions and checkpoints.
 * Both maps or neither; without them goodput is 1. */
typedef enum { PE_SAVE_SYNC, PE_SAVE_ASYNC } pe_checkpoint_save;
const char *pe_checkpoint_save_name(pe_checkpoint_save v);

typedef struct {
    bool present;
    double interruptions_per_gpu_day; /* R6 λ; default Llama 3's 419/(54·16384) */
    double restart_minutes;           /* R8 R: failure to training again, minutes */
} pe_failures;

typedef struct {
    bool present;
    double write_gb_s;          /* R5 W_s: aggregate storage write bandwidth, GB/s */
    pe_checkpoint_save save;    /* R5 sync: training waits for the write; async: for a copy */
    bool has_interval_minutes;
    double interval_minutes;    /* R7 τ given; absent: Daly's optimum */
} pe_checkpointing;

/* What a training framework does beyond the textbook (docs/model.md §12; a
 * `framework:` preset or mapping). Its overlap keys are merged into the
 * scenario's overlap defaults by the loader and not kept here. */
/* DeepSpeed's zero_optimization.overlap_comm: None (its default: true at
 * stage 3 only), false or true (docs/model.md §12 A28) */
typedef enum { PE_DS_OVERLAP_AUTO, PE_DS_OVERLAP_FALSE, PE_DS_OVERLAP_TRUE } pe_ds_overlap;
#define PE_DS_AUTO (-1.0) /* a DeepSpeed size given as Hugging Face's "auto" */

typedef struct {
    bool present;
    char name[PE_NAME_MAX];       /* the preset's name, "" when none */
    bool pp_scatter_gather;       /* X6: false */
    pe_dp_algorithm dp_algorithm; /* C9: hierarchical */
    pe_allreduce allreduce;       /* C10: ring */
    double dp_bucket_mb;          /* X7 last gradient bucket, MB; 0 */
    double comm_slowdown;         /* X8 compute slowdown under overlapped comm; 0 */
    bool tp_async_backward;       /* X13 input-gradient collectives behind wgrad GEMMs; false */
    double grad_accum_bytes;      /* F21 bytes per parameter per micro-batch; 0 */
    double optimizer_pass_bytes;  /* X14 bytes per parameter of the optimizer step; 0: X5 */
    bool bubble_by_stage;         /* B5 fill and drain at each stage's own pace; false */
    double moe_permute_bytes;     /* F23 bytes per hidden element per routed token copy; 0 */
    bool calibrated;              /* S6: the GPUs' intervals were measured on it; false */
    /* M23 the memory peak's prediction interval: δ−, δ+ from the memory
     * library's residuals of runs on this framework (has_: both given) */
    bool has_mem_peak_interval;
    double mem_peak_below, mem_peak_above;
    int64_t mem_peak_interval_runs; /* the residuals behind them; 0 */
    /* memory as the framework allocates it (docs/model.md §12 "Peak memory by
     * phase"); every key neutral: the textbook M5 with the flat reserve R */
    bool memory_by_phase;         /* M9 the peak over the step's phases, overheads M13; false */
    double loss_bytes;            /* A14 bytes per token and vocabulary entry at the loss; 4 */
    bool master_weights_only;     /* M10 z = 3: the fp32 master is the only weight shard; false */
    bool pp_unsharded_params;     /* M12 z = 3, p > 1: stage weights kept gathered; false */
    double optimizer_temp_bytes;  /* M11 optimizer-step temporaries per shard parameter; 0 */
    double workspace_mib;         /* M13 library workspaces in the allocator, MiB; 0 */
    double allocator_fragmentation; /* M13 reserved/allocated − 1 of the caching allocator; 0 */
    double cuda_context_gib;      /* M13 CUDA context and memory outside the allocator; 0 */
    pe_selective selective_recompute; /* A15 what selective keeps: attention (Megatron) */
    bool tp_gathered_inputs;      /* A16 TP+SP keeps the gathered matmul inputs whole; false */
    pe_recompute_method recompute_method; /* A18 which layers full recompute checkpoints */
    int64_t recompute_num_layers;  /* A18 N of --recompute-num-layers; 1 */
    bool megatron_legacy_model;    /* A17 Megatron-LM's legacy GPT model's activations; false */
    bool te_saved_tensors;         /* A30, A31 Transformer Engine's norm and softmax statistics,
                                    * FP8's bf16 attention output kept; false */
    pe_cp_ring cp_ring_buffers;    /* A20 CP ring attention's KV and gradient buffers; none */
    char flags[PE_FLAGS_MAX];     /* what the preset stands for (its flags); "" when none */
    double overlap_slowdown;      /* X15 compute's slowdown while a collective overlaps it; 0 */
    bool tp_micro_pipeline;       /* X16 async TP: each TP collective behind its own GEMM; false */
    double gemm_rate_scale;       /* F26 the stack's GEMM rate over the GPU preset's fitted one; 1 */
    int64_t pp_microbatch_group;  /* A6″ N contiguous micro-batches per model chunk, interleaved; 0: p */
    pe_recompute_modules recompute_modules; /* A19 what selective recomputes; core_attn */
    double cached_input_bytes;    /* A19 β_c bytes per cached linear or SwiGLU input element; 2 */
    double attention_output_bytes; /* A19 β_ao bytes per attention-output element kept; 2 */
    bool eager_elementwise;       /* F28 element-wise ops run eagerly (torch.compile off); false */
    bool fused_rmsnorm;           /* F28 eager with torchtitan's Triton RMSNorm; false */
    bool cp_kv_allgather;         /* X19 CP all-gathers K, V before attention, exposed; false */
    pe_attention_kernel attention_kernel; /* F30 the attention kernel the stack runs; none */
    int64_t comm_sms;             /* F32 SMs the EP all-to-all kernels hold while overlapped; 0 */
    bool tied_embedding_allreduce; /* X18 the first and last stage all-reduce the tied embedding's gradient; false */
    bool cpu_offloading;          /* A23 Megatron-Core activation offload to the host; false */
    int64_t cpu_offloading_num_layers; /* A23 N, the layers offloaded (< model.layers); 0 */
    bool tp_fp8_all_gather;       /* X22 tensorwise FP8: TP all-gathers carry float8; false */
    bool moe_dispatch_saved;      /* A25 the MoE dispatcher's saved indices and probs; false */
    int64_t nccl_channels;        /* A26 NCCL channels per communicator; 0: none counted */
    bool pp_recv_grad;            /* A24 the gradient a stage receives for its backward; false */
    bool attention_causal_work;   /* F33 time a causal kernel's computed half, not F9's count; false */
    bool tp_seq_dim_copy;         /* X28 DTensor's sequence-dimension copy beside each TP collective; false */
    pe_dp_grad_collective dp_grad_collective; /* X25 z = 1 gradients: reduce_scatter */
    double dp_grad_comm_bytes;    /* X26 bytes per gradient element on the wire; 0: grad_bytes */
    pe_dp_grad_window dp_grad_window; /* X27 z = 2 gradient window: backward */
    bool cp_ring_per_step;        /* X23 each CP ring transfer behind its own step's attention; false */
    int64_t cp_ring_net_channels; /* X33 NCCL channels (SMs) of a CP ring spanning nodes; 0 */
    bool dp_chunk_sync;           /* X30 interleaved: each model chunk's DP collectives in its own window; false */
    bool pp_overlap_interleaved_only; /* X34 overlap.pp only with the interleaved schedule, v > 1; false */
    bool tp_grad_sum_unfused;     /* X24, X29 async TP leaves the backward's summed-gradient reduce-scatters unfused; false */
    bool tp_fused_rs_reduce;      /* F34 async TP's fused reduce-scatter sums its t partials in a kernel of its own; false */
    bool tp_ag_shard_stage;       /* X32 async TP's fused all-gather first copies the local shard into its symmetric buffer, exposed; false */
    bool fp8_cast_by_role;        /* F35, F36 torchao Float8Linear's casts GEMM role by role; false */
    bool fp8_kernel_rate;         /* F42 FP8 GEMMs at the GPU's measured kernel rate e_k8; false */
    bool op_sac_recompute_elementwise; /* F39 op-level SAC re-runs the forward's element-wise ops; false */
    bool cp_ring_load_balance;    /* X31 PyTorch's load-balanced CP ring: its kernels' shapes and merge passes; false */
    bool ddp_grad_buckets;        /* M19 DDP's reducer buckets: a copy of every trained gradient at zero 0, D > 1; false */
    double unsharded_grad_bytes;  /* M22 bytes a parameter of FSDP's unsharded gradient in backward; 0: grad_bytes */
    /* DeepSpeed's ZeRO buffers (docs/model.md §12 A28, A29, M18), with
     * memory_by_phase; sizes in elements, DeepSpeed's defaults; PE_DS_AUTO:
     * Hugging Face's "auto", resolved from model.hidden by the evaluator */
    bool deepspeed_zero;              /* A28, A29, M18 on; false */
    double reduce_bucket_size;        /* A28 elements of an ipg bucket; 5e8 (auto: h²) */
    bool contiguous_gradients;        /* A28 the ipg buckets are allocated; true */
    pe_ds_overlap overlap_comm;       /* A28 two ipg buckets at zero 1-2; auto: zero 3 only */
    double stage3_prefetch_bucket_size; /* A29 elements prefetched; 5e7 (auto: 0.9·h²) */
    double stage3_max_live_parameters;  /* A29 elements gathered at most; 1e9 */
    double stage3_max_reuse_distance;   /* A29 reuse distance kept gathered; 1e9 */
    double stage3_param_persistence_threshold; /* A29 persistent numel limit; 1e5 (auto: 10·h) */
    double sub_group_size;            /* M18 zero 3 optimizer sub-group elements; 1e9 */
    double offload_copy_bytes;        /* X35 bytes a parameter each host copy of the offloaded
                                       * step moves; 0: X12's β_g and β_w */
} pe_framework;

/* A plan's pipeline_layout (docs/scenarios.md "Plans", docs/model.md V3″):
 * the transformer layers of each virtual stage, in Megatron-Core's order —
 * virtual stage k = r·p + j is model chunk r of pipeline rank j, and layers
 * run in k order (pipeline_parallel_layer_layout.py). The embedding is on
 * virtual stage 0 and the loss on the last, as Megatron requires; only
 * they may hold no transformer layer. */
#define PE_LAYOUT_MAX 256 /* virtual stages p·v a layout may list */
typedef struct {
    int32_t count;                 /* virtual stages listed; 0: no layout given */
    int32_t layers[PE_LAYOUT_MAX]; /* transformer layers of virtual stage k */
} pe_pipeline_layout;

typedef struct {
    char name[PE_NAME_MAX]; /* "" when the plan has no name */
    int64_t dp, tp, pp, cp;
    int64_t zero; /* z, 0..3 */
    pe_recompute recompute;
    int64_t micro_batch;    /* b */
    pe_schedule schedule;
    int64_t virtual_stages; /* v */
    bool sequence_parallel; /* already resolved: default tp > 1, false when tp = 1 */
    pe_overlap overlap;     /* already merged over the scenario's */
    int line, col;          /* where the plan stands in its file; 0 for sweep plans */
    /* --- expert parallelism, uneven stages, offload --- */
    int64_t ep;                /* expert-parallel degree, default 1 */
    int64_t etp;               /* expert tensor-parallel degree, already resolved (default tp) */
    int64_t first_stage_layers; /* L_0; 0 = the even share */
    int64_t last_stage_layers;  /* L_last; 0 = the even share */
    bool offload_optimizer;    /* optimizer states + master weights in host memory */
    pe_pipeline_layout layout; /* pipeline_layout (V3″); count 0: V3/V3′'s split */
} pe_plan;

/* One sweep axis: absent (the plan default), `auto`, or a list of values.
 * Enum axes (recompute, schedule) hold the enum value; booleans 0/1. */
typedef struct {
    bool present;
    bool is_auto;
    size_t count;
    int64_t *values; /* owned */
    double *numbers; /* owned: a number axis' values (the link numbers); values then 0..count-1 */
    int line, col;
} pe_axis;

typedef struct {
    bool present;
    pe_axis tp, pp, cp, dp, zero, recompute, micro_batch, schedule, virtual_stages,
        sequence_parallel;
    pe_axis ep, etp, first_stage_layers, last_stage_layers, offload_optimizer;
    /* design axes (docs/sweeps.md "Sweeping the design"): scenario-level values, each
     * replacing cluster.nodes, training.global_batch or model.seq_len; the loader
     * stores the first value in the scenario itself (the design of index 0) */
    pe_axis nodes, global_batch, seq_len;
    pe_axis gpus; /* total GPUs, instead of nodes: the loader turns it into nodes (N/G) */
    /* sweep.cluster: catalog cluster presets, each loaded as `cluster:` with
     * that preset (the scenario's cluster: block gives what is common); the
     * axis' values are 0..count-1, indices into clusters (owned); the loader
     * stores clusters[0] in the scenario itself */
    pe_axis cluster;
    pe_cluster *clusters;
    /* the link numbers (sweep.intra_node, sweep.inter_node): number axes, each
     * replacing that key of every cluster type; the loader stores the first */
    pe_axis intra_bandwidth_gb_s, intra_link_gb_s, intra_latency_us;
    pe_axis inter_nic_gb_s, inter_latency_us;
    /* the overlap switches (sweep.overlap): number axes, each replacing that
     * overlap fraction (over the framework's defaults) */
    pe_axis overlap_tp, overlap_cp, overlap_dp, overlap_pp, overlap_ep;
    /* sweep.framework: catalog framework presets, each loaded as framework:
     * NAME; values 0..count-1 index frameworks and framework_overlaps (the
     * overlap each gives: its defaults, then the scenario's overlap:), owned */
    pe_axis framework;
    pe_framework *frameworks;
    pe_overlap *framework_overlaps;
    int line, col;
} pe_sweep;

typedef enum { PE_TOL_EXACT, PE_TOL_REL, PE_TOL_ABS } pe_tol_kind;

/* One assertion of an `expect:` item: a report column compared with a value. */
typedef struct {
    char column[64];
    bool is_text;
    char *text;      /* owned; text columns */
    double value;    /* numeric columns */
    pe_tol_kind tol_kind;
    double tol;
    int line, col;
} pe_expect_check;

typedef enum { PE_EXPECT_BEST_PLAN, PE_EXPECT_PLAN } pe_expect_kind;

typedef struct {
    pe_expect_kind kind;
    char plan[PE_NAME_MAX]; /* a plan name or canonical text */
    size_t check_count;
    pe_expect_check *checks; /* owned; empty for best_plan */
    int line, col;
} pe_expect;

/* One question of a drill's grading key (`questions:`, `planeval grade`).
 * What is asked: */
typedef enum {
    PE_ASK_COLUMN,           /* a numeric report column of a named plan */
    PE_ASK_FITS,             /* yes/no: the named plan fits in memory (docs/model.md M6) */
    PE_ASK_COMM_BOUND,       /* yes/no: the named plan's bound is communication (S3) */
    PE_ASK_MIN_INTERVENTION, /* a plan: the fewest interventions (§9) that fits */
    PE_ASK_BEST_PLAN,        /* a plan: rank 1 under the budgets and rank_by */
    PE_ASK_CHOSEN_PLAN       /* a plan of the student's choice that meets the budgets */
} pe_ask;

const char *pe_ask_name(pe_ask v);

typedef struct {
    char id[PE_NAME_MAX];   /* [a-z0-9._-]+, unique among questions */
    pe_ask ask;
    char plan[PE_NAME_MAX]; /* column, fits, comm_bound: a plan name or canonical text */
    char column[64];        /* column: the report column */
    double points;          /* > 0, default 1 */
    pe_tol_kind tol_kind;   /* PE_TOL_REL or PE_TOL_ABS, defaults filled by the loader */
    double tol;
    int line, col;
} pe_question;

typedef struct {
    char file[PE_PATH_MAX]; /* the file it was loaded from */
    char name[PE_NAME_MAX];
    char *description; /* owned, may be NULL */
    pe_model model;
    pe_precision precision;
    pe_cluster cluster;
    pe_training training;
    pe_budgets budgets;
    pe_targets targets;
    pe_overlap overlap;
    pe_fidelity fidelity;
    /* textbook only because the file names no refinement, while its presets
     * carry refinement numbers (fitted GEMM efficiency, measured links):
     * `run` and `calibrate` point at fidelity: refined (docs/model.md §12) */
    bool refinements_unused;
    pe_framework framework;
    pe_rank_by rank_by; /* the first (or only) rank_by key */
    /* rank_by as a list: each key breaks the ties of the one before;
     * rank_by_list[0] == rank_by. A count of 0 means [rank_by]. */
    pe_rank_by rank_by_list[PE_RANK_BY_MAX];
    size_t rank_by_count;
    size_t plan_count;
    pe_plan *plans; /* owned: explicit plans in file order */
    pe_sweep sweep;
    size_t expect_count;
    pe_expect *expects; /* owned */
    size_t question_count;
    pe_question *questions; /* owned: the grading key, in file order */
    pe_failures failures;           /* docs/model.md §15 */
    pe_checkpointing checkpointing; /* docs/model.md §15 */
} pe_scenario;

/* docs/model.md §0: a plan's sequence parallelism, tp > 1 when not given and
 * off at tp = 1 whatever is given; the one rule of the loader and the sweep. */
static inline bool scenario_sequence_parallel(int64_t tp, bool given, bool value)
{
    return tp > 1 && (!given || value);
}

/* The plan defaults that depend on other keys: ep 0 (not given) → 1, etp 0
 * (not given) → tp (Megatron-Core's default). Loader, grader and sweep call
 * it last. */
void scenario_plan_defaults(pe_plan *p);

/* fidelity: textbook (docs/model.md §12): every refinement field back to its
 * neutral value, its default in core/fields.c, and the framework dropped, so
 * the scenario evaluates as the textbook model. (The framework's overlap
 * defaults are applied by the loader only in refined mode.) */
void scenario_force_textbook(pe_scenario *s);
/* The cluster's part of it (the GPU's and the links' refinements), for each
 * cluster of sweep.cluster as well. */
/* The refinement keys of a GPU and of a link (NULL-terminated): what
 * textbook mode resets to their neutral defaults, and what makes a scenario
 * that writes one in its own cluster refined by default (docs/model.md §12). */
extern const char *const pe_gpu_refinement_keys[];
extern const char *const pe_link_refinement_keys[];
void scenario_cluster_force_textbook(pe_cluster *c);

/* Release everything a scenario owns; leaves *s zeroed. Safe on a zeroed struct. */
void scenario_free(pe_scenario *s);

#endif
