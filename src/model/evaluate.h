/* evaluate.h — scenario + plan → every figure of one report row.
 *
 * A pure function: no allocation, no I/O, no globals, so any number of
 * threads may call it on a shared, read-only pe_eval_ctx. Scenario-level
 * constants (P1–P6, F1–F4, diagnostics) are computed once by
 * evaluate_prepare() (prepare.h: one part per spec section);
 * evaluate_plan() does only per-plan work. The text of `reason` is not
 * built in the hot path: the result records which rules and budgets
 * failed, and evaluate_format_reason() (rules.c) writes the text on demand. */
#ifndef PLANEVAL_EVALUATE_H
#define PLANEVAL_EVALUATE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/compute.h"
#include "model/net.h"
#include "core/scenario.h"

/* Ordered as ranked (docs/model.md §9): ok first, invalid last. */
typedef enum { PE_STATUS_OK, PE_STATUS_OVER_TIME, PE_STATUS_OVER_MEMORY, PE_STATUS_INVALID } pe_plan_status;
/* S3, in core/columns.h's pe_bound_values order */
typedef enum {
    PE_BOUND_COMPUTE, PE_BOUND_COMMUNICATION, PE_BOUND_BUBBLE, PE_BOUND_OPTIMIZER, PE_BOUND_HOST
} pe_bound;
/* Interconnect tier an axis' collectives ran on. */
typedef enum { PE_TIER_NONE, PE_TIER_INTRA, PE_TIER_INTER } pe_tier;

const char *pe_plan_status_name(pe_plan_status v);
const char *pe_bound_name(pe_bound v);
const char *pe_tier_name(pe_tier v);

/* Bits of pe_result.failed: rules V1–V8 (bit n-1 for Vn), then budgets. */
enum {
    PE_FAIL_V1 = 1u << 0, PE_FAIL_V2 = 1u << 1, PE_FAIL_V3 = 1u << 2, PE_FAIL_V4 = 1u << 3,
    PE_FAIL_V5 = 1u << 4, PE_FAIL_V6 = 1u << 5, PE_FAIL_V7 = 1u << 6, PE_FAIL_V8 = 1u << 7,
    PE_FAIL_MEMORY = 1u << 8,
    PE_FAIL_STEP_TIME = 1u << 9,
    PE_FAIL_TRAIN_DAYS = 1u << 10,
    PE_FAIL_MIN_MFU = 1u << 11,
    /* rules of MoE and offload (docs/model.md §14, docs/design/moe.md §1) */
    PE_FAIL_V9 = 1u << 12,  /* ep divides experts (ep > 1 or etp ≠ tp needs an MoE model) */
    PE_FAIL_V10 = 1u << 13, /* ep·etp divides tp·cp·dp (parallel folding) */
    PE_FAIL_V11 = 1u << 14, /* etp divides moe_ffn_hidden; tp divides shared_experts·moe_ffn_hidden */
    PE_FAIL_V12 = 1u << 15, /* MoE with tp > 1 needs sequence parallel */
    PE_FAIL_V13 = 1u << 16, /* biased experts need etp = 1 */
    PE_FAIL_V14 = 1u << 17, /* etp and ep·etp aligned with the node */
    PE_FAIL_V15 = 1u << 18, /* offload_optimizer needs zero >= 1 and a host link */
    PE_FAIL_HOST_MEMORY = 1u << 19, /* offload: host memory per node over host_memory_gib (M8) */
    PE_FAIL_GPU_HOURS = 1u << 20,   /* T2: gpu_hours over targets.gpu_hours */
    PE_FAIL_COST = 1u << 21,        /* T2: cost over targets.cost */
};
#define PE_FAIL_RULES (0xffu | (0x7fu << 12))
/* Rules V1..V15 (their table, and bit ↔ rule: rules.h). */
#define PE_RULE_COUNT 15

typedef struct {
    pe_plan_status status;
    uint32_t failed; /* PE_FAIL_* bits; status follows from them */

    /* identity (filled for every plan, invalid too) */
    int64_t gpus;         /* N */
    int64_t microbatches; /* m; 0 when V5 fails */

    /* memory (M5 of the memory-worst stage), GiB */
    int worst_stage;
    double mem_weights_gib, mem_grads_gib, mem_optimizer_gib, mem_activations_gib;
    double mem_other_gib, mem_reserve_gib, mem_total_gib, mem_budget_gib, mem_headroom_gib;

    /* time (S1 columns of the time stage), seconds */
    int time_stage;
    double compute_s, tp_comm_s, cp_comm_s, bubble_s, pp_comm_s, dp_comm_s, optimizer_s;
    double step_time_s, comm_fraction, bubble_fraction;
    pe_bound bound;
    double bound_shift_s; /* S3's H: X4's compute under a longer collective, counted as
                           * communication (docs/model.md §8) */
    double tokens_per_s, mfu, hfu, tflops_per_gpu;
    bool has_train_days;
    double train_days, gpu_hours;

    int interventions;
    double state_total_gib, act_total_gib;

    /* interconnect tier of each axis' group (C1: n_out > 1 → inter) */
    pe_tier tier_tp, tier_cp, tier_dp, tier_pp;

    /* MoE and offload columns, appended after the v1 report (0 for a dense model) */
    double ep_comm_s;       /* EP all-to-all exposed per step (X10), part of S1 */
    double host_mem_gib;    /* offload: host memory per node (M8), 0 without offload */
    double mem_experts_gib; /* of which expert state (+ FP8 copy) on the memory stage */
    pe_tier tier_ep;

    /* S6 prediction interval, appended after them: refined model only */
    bool has_interval;
    double step_time_lo_s, step_time_hi_s;

    /* peak memory by phase (docs/model.md §12 M9–M13), appended; in the
     * textbook model peak = M5 − R, reserved = M5 and the phase "sum" */
    double mem_peak_gib;     /* the largest phase's allocated bytes, memory stage */
    double mem_reserved_gib; /* what the caching allocator holds at that peak */
    int mem_peak_phase;      /* pe_mem_phase */
    /* S7: gpu_hours at cluster.cost_per_gpu_hour; has_cost needs tokens and a price */
    bool has_cost;
    double cost;
    /* whole run (docs/model.md §15), appended after the MoE columns */
    bool has_energy;             /* tdp_w and training.tokens given */
    double energy_mwh;           /* R3 */
    double goodput;              /* R8, 1 without failures: */
    bool has_effective_train_days; /* train_days, and a goodput above 0 */
    double effective_train_days;   /* R9 */
    /* M23 the memory peak's prediction interval, appended last: refined model only */
    bool has_mem_interval;
    double mem_peak_lo_gib, mem_peak_hi_gib;
} pe_result;

/* Where S6's δ−, δ+ came from (docs/model.md §12 "Prediction intervals"). */
typedef enum {
    PE_INTERVAL_NONE,    /* textbook: no interval */
    PE_INTERVAL_GPU,     /* the GPU preset's, from calibrate's leave-one-out residuals */
    PE_INTERVAL_DEFAULT, /* no residuals for this GPU and framework: the stated default */
    PE_INTERVAL_FRAMEWORK, /* M23: the framework preset's, from the memory library's residuals */
} pe_interval_source;

/* M9's phases, in pe_mem_phase_name's order; PE_PHASE_SUM is the textbook's
 * sum of maxima (M5). */
typedef enum {
    PE_PHASE_SUM, PE_PHASE_FORWARD, PE_PHASE_BACKWARD, PE_PHASE_LOSS, PE_PHASE_OPTIMIZER
} pe_mem_phase;
#define PE_PHASE_COUNT 5
const char *pe_mem_phase_name(int v);

/* Scenario-level constants of an MoE model (docs/model.md §14,
 * docs/design/moe.md); on = 0 for a dense model, and then nothing below is
 * used. */
typedef struct {
    int on;                       /* E > 0 */
    int bias;                     /* experts have biases (V13) */
    int64_t experts, f_e, sh_f;   /* E, f_e, n_s·f_e (V9, V11) */
    double E, k, f_e_d, rho;      /* ρ = C with a capacity factor, else ι */
    double N_layer_d, N_dense_part, N_expert, N_att_rep; /* P12, P10 */
    double F_layer_d, F_layer_m;  /* F13; F14 + router + (ρ−1) rows: hardware per token */
    double F_att;                 /* F12 */
    double act_par_att, act_par_sh, act_router; /* A2 attention part, A10, A9 */
    double act_expert_inner;      /* (gelu ? 4 : 6)·f_e per routed token copy (A11) */
    double beta_d;                /* dispatch bytes */
    double N_total, N_active;     /* P13, P14 */
    double F8_layer_m;            /* F16: FP8 GEMM FLOPs per token of an MoE layer (with ρ) */
    double N8_layer_m_dense;      /* FP8-GEMM weights of an MoE layer: attention + shared */
    double N8_layer_m_expert;     /* FP8-GEMM weights of its E routed experts */
    double act_total_per_seq;     /* act_total_gib's bytes for one sequence */
} pe_moe_ctx;

/* Scenario-level numbers of the whole run (docs/model.md §15, run.c). */
typedef struct {
    bool energy_on;            /* the GPU gives tdp_w */
    double idle_w, tdp_w;      /* R1 */
    double G, other_w;         /* R2 */
    double nodes, pue;         /* R3: N/G */
    bool goodput_on;           /* failures: and checkpointing: given */
    bool async;                /* R5 */
    double ckpt_bytes;         /* R4 C */
    double write_s;            /* R5 C/W_s: δ (sync) or δ_w (async) */
    double mtbi_s;             /* R6 M */
    double restart_s;          /* R8 R */
    double restart_eff_s;      /* R8 R' = R (+ δ_w async) */
    double interval_s;         /* R7 τ given, 0: Daly's optimum */
    double tau_sync, goodput_sync; /* R7, R8 of a sync save */
} pe_run_ctx;

/* training.finetune: lora (docs/model.md §3 M15–M17, A27), per scenario */
typedef struct {
    bool on;             /* finetune: lora */
    bool quantised;      /* base_quant nf4 or int8: M17's dequantised copy */
    double beta_q;       /* M15 bytes per frozen linear weight */
    double r;            /* lora_rank */
    double rep, sh;      /* M16 Σ whole and Σ TP-split dimensions of the targets */
    double targets;      /* A27 targeted linears per layer */
    double in_sum;       /* A27 Σ their input widths */
    double dequant;      /* M17 max(in·out) of a layer's linears (0: not quantised) */
    double act;          /* A27 bytes per token and layer (in act_rep) */
    double op_rep, op_par; /* A32 under op-level SAC: saved adapter outputs, whole and TP-split */
    /* F37 (docs/model.md §4): the adapters' GEMMs, A then B of each target:
     * K × N with split 0 (whole on every TP rank), 1 (K/t) or 2 (N/t) */
    int n_gemms;
    double ad_K[14], ad_N[14];
    int ad_split[14];
    double deq_bytes;    /* F37 (β_q + 2)·Σ in·out of a layer's linears per use (0: none) */
    double deq_bps;      /* F37 W·η_W of the dequantisation pass */
} pe_lora_ctx;

/* Scenario-level constants, computed once; opaque to callers but plain data
 * so it can live on the stack and be shared read-only between threads. Each
 * field is filled by the preparation of the section that owns it (prepare.h). */
typedef struct {
    const pe_scenario *scenario;
    double N_mm, N_layer, N_embed, N_out_untied, norm_h; /* P1–P6 */
    double F_layer, F_out, F_model;                      /* F1–F3 */
    double budget_bytes;                                 /* M6 */
    double state_total_gib;                              /* §3 diagnostics */

    /* --- everything evaluate_plan needs, flat --- */
    int64_t gpus, gpus_per_node, layers, seq_len, global_batch; /* N, G, L, s, B */
    int64_t heads, kv_heads, ffn_hidden;
    int64_t agf_gcd;     /* gcd(a, g, f): V2 is "t divides it" */
    bool allow_cross_node_tp, tied;
    pe_attention attention;
    double L, h, g, d, V, s, B, N, Vh; /* dimensions as doubles */
    double delta;                      /* δ */
    double N_out_p1;                   /* P4 at p = 1 */
    double beta_w, beta_g, beta_o;
    double act_rep, act_par;           /* A1, A2 bytes per token */
    double act_att;                    /* A3 for recompute none (0 with flash) */
    double F_att;                      /* 4·s·h·κ */
    double x[3];                       /* F4 per pe_recompute */
    double F_hw[3];                    /* F4 per pe_recompute */
    double peak, rate, hbm_bps;        /* peak, peak·e, W (SI units) */
    double reserve_bytes;              /* R */
    double tokens_per_step;            /* B·s */
    pe_net net;                        /* C2, C3 inputs (C8 folded in) */

    /* §12 refinements, per scenario; all neutral under fidelity: textbook */
    bool bound_by_critical_path;       /* S3′: fidelity refined; textbook keeps S3 */
    bool dualpipe;                     /* V6: schedule dualpipe (B6, A21, M14) is refined only */
    bool refined_compute;              /* F7–F11: the GPU gives gemm_efficiency */
    pe_gemm_shape gemms[PE_LAYER_GEMMS]; /* F7 */
    pe_gemm_coef gemm_coef[PE_LAYER_GEMMS], out_coef; /* F8 per layer GEMM, output layer */
    double gemm_rate, t_half;          /* F8 peak·e_max, F_half/(peak·e_max) */
    double att_rate;                   /* F9 peak·e_att */
    double core_s;                     /* F9 F_att·ω/(peak·e_att), s per token at t = 1 (F33 ω) */
    bool att_by_shape;                 /* F22 s_half or B_c given */
    double att_half_seq, att_tile;     /* F22 s_half, B_c (tokens) */
    double att_head;                   /* F22 D(d), folded into core_s */
    double att_work;                   /* F33 useful causal FLOPs per F9 FLOP (1: off) */
    double att_kappa;                  /* F1 κ (X31) */
    bool cp_ring_lb;                   /* X31 PyTorch's load-balanced CP ring; false: F9·ω */
    double core_unit_s;                /* X31 F_att/(peak·e_att·D), s per token at t = 1 */
    double cp_ring_merge_w;             /* X31 a·d, the repeated K/V width at t = 1 */
    pe_attention_kernel_rate att_kernel; /* F30 e_att, s_half of the framework's kernel */
    double ew_bps;                     /* F10 W·η_W (0: untimed) */
    double ew_rep, ew_par, ew_att, ew_out; /* F10 bytes per token */
    double ew_rep_s, ew_par_s, ew_att_s, ew_out_s; /* F10 the same over W·η_W, s */
    double t_mb;                       /* F11 s per micro-batch */
    bool pp_scatter_gather, dp_flat;   /* X6, C9 */
    bool allreduce_auto;               /* C10 */
    double dp_bucket_bytes;            /* X7 */
    double comm_slowdown;              /* X8 φ */
    double overlap_contention;         /* X15 s/(1 + s), s = overlap_slowdown; 0: off */
    bool tied_allreduce;               /* X18 tied embedding's gradient all-reduce; false: off */
    bool dp_grad_allreduce;            /* X25 z = 1 gradients all-reduced; false: reduce-scatter */
    double dp_grad_comm_bytes;         /* X26 gradient bytes per element on the wire; 0: beta_g */
    bool dp_grad_window_mb;            /* X27 z = 2 gradient window τ_f + τ_b; false: τ_b */
    bool tp_micro_pipeline;            /* X16 */
    bool tp_fp8_gather;                /* X22 TP all-gathers in float8 (tensorwise) */
    bool tp_seq_copy;                  /* X28 DTensor's Shard(1) copy beside each unfused TP collective */
    bool tp_unfused_qkv, tp_unfused_in; /* X24 backward reduce-scatters async TP leaves unfused */
    bool tp_rs_reduce;                 /* F34 the fused reduce-scatter's own sum of t partials */
    bool tp_ag_stage;                  /* X32 the fused all-gather's exposed copy of its own shard */
    bool tp_async_bwd;                 /* X13 */
    bool cp_allgather;                 /* X19 in place of X2 */
    bool cp_ring_per_step;             /* X23 in place of X2's ring-wide window */
    double cp_net_contention;          /* X33 c/S on a CP ring spanning nodes; < 0: off (X15's) */
    double cp_net_channels, cp_net_sms; /* X33 c and S (for explain) */
    bool dp_chunk_sync;                /* X30 in place of X4's one-micro-batch windows */
    bool pp_overlap_interleaved_only;  /* X34 overlap.pp 0 unless interleaved with v > 1 */
    bool bubble_by_stage;              /* B5 */
    double accum_s_per_param;          /* F21 grad_accum_bytes/(W·η_W), 0: off */
    double opt_s_per_param;            /* X14 optimizer_pass_bytes/(W·η_W), 0: X5 */
    /* §12 refinements of §14's models (F17–F20) */
    double t_half_layer;               /* F18 t_half of the layer GEMMs (FP8 rate with fp8) */
    double gemm_rate8;                 /* F18 peak_fp8·e_max8 (fp8_gemm_efficiency), F24 · r */
    pe_fp8_recipe_cost fp8_cost;       /* F24 the scaling recipe's rate ratio and cast bytes */
    double cast_rep, cast_par;         /* F24 cast bytes per token: replicated, TP-sharded */
    bool cast_by_role;                 /* F35 torchao's casts role by role (fp8_cast_by_role) */
    bool cast_before_gather;           /* F36 X22's float8 TP casts the shard, not the gathered */
    pe_fp8_role_casts cast_roles;      /* F35 bytes per token; cast_roles_s over W·η_W, s */
    pe_fp8_role_casts cast_roles_s;
    pe_gemm_coef moe_coef[5];          /* F19 shared experts in/out, router, expert in/out */
    double ew_par_m_s;                 /* F19 element-wise TP-sharded s per token, MoE layer */
    double moe_permute_s;              /* F23 moe_permute_bytes·h/(W·η_W), s per routed copy */
    double moe_half_rows;              /* F38 M_half of the expert GEMMs, rows; 0: neutral */
    double comm_sms_stretch;           /* F32 c/(S − c), comm_sms of sm_count; 0: off */
    pe_gemm_shape moe_sh_fc1;          /* F19 the shared experts' fc1 (X13's window) */
    pe_moe_ctx moe;                    /* §14 mixture of experts */
    int ext;                           /* the MoE or FP8 terms are needed by the scenario */
    /* FP8 (docs/design/moe.md §6): 0 = every GEMM in bf16 */
    int fp8;
    double rate8;    /* peak_fp8·e */
    double F8_layer; /* F16: FP8 GEMM FLOPs per token of a dense layer (2·N_mm) */
    double beta_8;   /* β_8 bytes per FP8-GEMM parameter of the cached FP8 weights */
    double N8_layer; /* FP8-GEMM weights of a dense layer (N_mm) */
    /* optimizer offload (docs/design/moe.md §7) */
    double host_bps;        /* B_host, bytes/s per direction (0: not given) */
    double offload_d2h_bytes, offload_h2d_bytes; /* X12 (X35) bytes a parameter each way */
    double cpu_adam_rate;   /* R_cpu, parameters/s per node */
    double host_mem_bytes;  /* H_host (0: not checked) */
    /* S6 prediction interval (step.c's step_prepare) */
    pe_interval_source interval_source;
    double interval_below, interval_above; /* δ−, δ+ */
    /* M23 the memory peak's interval (step.c's step_prepare) */
    pe_interval_source mem_interval_source;
    double mem_interval_below, mem_interval_above; /* δ−, δ+ */
    /* peak memory by phase (docs/model.md §12 M9–M13); mem_phases false:
     * the textbook M5 */
    bool mem_phases;             /* M9 framework memory_by_phase */
    double loss_bytes;           /* A14 β_loss */
    bool master_only;            /* M10 */
    bool pp_unsharded;           /* M12 */
    double opt_temp_bytes;       /* M11 β_ot */
    bool ddp_buckets;            /* M19 DDP's bucket copy of the gradients */
    double unsharded_grad_bytes; /* M22 β_ug, the unsharded gradient's bytes in W_b (β_g when unset) */
    double workspace_bytes;      /* M13 W_lib */
    double fragmentation;        /* M13 f */
    double context_bytes;        /* M13 C_ctx */
    double nccl_channel_bytes;   /* A26 C·B (framework nccl_channels); 0: none */
    bool op_sac;                 /* A15 selective = torchtitan's op policy */
    double op_rec_share[4];      /* F25 share of each layer GEMM recomputed (op policy, dense) */
    bool op_sac_ew;              /* F39 the op policy re-runs the forward's element-wise ops */
    double op_sac_amax_saved;    /* F39 bytes an element of the cast's amax pass _save_list keeps */
    double act_op_rep, act_op_seq, act_op_par; /* A15 bytes per token: replicated, sp-split, TP */
    double act_gathered;         /* A16 bytes per token of A1 kept whole under TP+SP; 0 */
    pe_cp_ring cp_ring;          /* A20 how ring attention rotates KV; none */
    double cp_ring_width;        /* A20 a·d, the width of K (and V) after repeat_kv */
    /* A18 full recompute by layer (framework recompute_method, recompute_num_layers);
     * false: A6's full term (uniform, 1) */
    bool rc_by_layer;
    pe_recompute_method rc_method;
    double rc_layers;
    double act_legacy; /* A17 bytes per token added to A2 (framework megatron_legacy_model); 0 */
    double a30_rep; /* A30 TE norm statistics added to A1 (framework te_saved_tensors); 0 */
    double a31_att; /* A31 TE fused attention's saved extras added to A3 (te_saved_tensors); 0 */
    double pp_group;   /* A6″ N contiguous micro-batches per chunk (framework pp_microbatch_group); 0: A6 */
    double offload_layers; /* A23 N layers offloaded (framework cpu_offloading); 0: none */
    double a25_bytes; /* A25 bytes the dispatcher saves per token copy (framework moe_dispatch_saved); 0 */
    bool pp_recv_grad;     /* A24 the received output gradient in backward (framework pp_recv_grad) */
    /* A28, A29, M18 DeepSpeed's ZeRO buffers (framework deepspeed_zero, with
     * memory_by_phase); false: none. Sizes in elements, "auto" resolved */
    bool ds_zero;
    double ds_bucket;          /* A28 B_r reduce_bucket_size */
    bool ds_contiguous;        /* A28 contiguous_gradients */
    pe_ds_overlap ds_overlap;  /* A28 overlap_comm */
    double ds_prefetch;        /* A29 P stage3_prefetch_bucket_size */
    double ds_max_live;        /* A29 L_live stage3_max_live_parameters */
    double ds_reuse;           /* A29 R stage3_max_reuse_distance */
    double ds_threshold;       /* A29 T stage3_param_persistence_threshold */
    double ds_largest;         /* A29 X·t = max(V·h, h·f), the largest module's parameters */
    double ds_persist_layer;   /* A29 N_pers of one layer (t = 1) */
    double ds_persist_final;   /* A29 the final norm's elements if they persist */
    double ds_sub_group;       /* M18 S sub_group_size */
    /* A19 recompute_modules layernorm mla_up_proj moe_act: what recompute:
     * selective keeps per token (false: A1, A2, A10, A11 as they are) */
    bool a19;
    double a19_beta_c, a19_beta_ao;    /* β_c, β_ao */
    double a19_rep, a19_par;           /* replicated; TP-sharded of a dense layer */
    double a19_par_att, a19_par_sh;    /* an MoE layer's attention part; its shared experts */
    double a19_inner;                  /* an expert copy's 2·β_c·f_e */
    pe_run_ctx run;         /* §15 the whole run */
    pe_lora_ctx lora;       /* §3 M15–M17, A27 (training.finetune: lora); on false: full */
} pe_eval_ctx;

void evaluate_prepare(const pe_scenario *s, pe_eval_ctx *ctx);

/* Fill *r for plan p. Every field is written. p's degrees, micro_batch and
 * virtual_stages must be ≥ 1 (the loader's ranges). */
void evaluate_plan(const pe_eval_ctx *ctx, const pe_plan *p, pe_result *r);

/* The same evaluation, also filling every intermediate quantity (detail.h)
 * for `explain` and `calibrate`: one code path with evaluate_plan(), so they
 * print the evaluator's own numbers. d->valid is false for an invalid plan. */
typedef struct pe_detail pe_detail;
void evaluate_plan_detail(const pe_eval_ctx *ctx, const pe_plan *p, pe_result *r, pe_detail *d);

/* The `reason` cell: every failed rule and budget with its numbers, in order
 * (rules V1..V15 as rules.c's table lists them, then memory, host memory,
 * step time, train days, MFU), joined by "; ". "" for an ok plan. Returns
 * the length written (snprintf semantics). Defined in rules.c. */
int evaluate_format_reason(const pe_eval_ctx *ctx, const pe_plan *p, const pe_result *r,
                           char *buf, size_t size);

/* The product of n whole numbers as text: its value, or — when it would
 * overflow 64 bits (hostile degrees up to 2^53) — the factors "a*b*c". */
int pe_product_text(char *buf, size_t size, const int64_t *factors, int n);

#endif
