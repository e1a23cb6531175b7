/* fields.c — the key tables of fields.h. Keys, ranges and defaults come from
 * docs/scenarios.md "A scenario file", "Ranges", "Plans", "Sweep", "expect",
 * "Presets" and docs/model.md §0; offsets point into the structs of scenario.h. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/scenario.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define NO PE_NO_OFFSET
#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x) /* a number macro as the text it is written with */

/* Enum texts, in the order of the C enums of scenario.h. */
static const char *const mlp_values[] = {"gelu", "swiglu", NULL};
static const char *const norm_values[] = {"layernorm", "rmsnorm", NULL};
static const char *const position_values[] = {"learned", "rotary", NULL};
static const char *const attention_values[] = {"standard", "flash", "mla", NULL};
static const char *const compute_values[] = {"bf16", "fp8", NULL};
static const char *const fp8_recipe_values[] = {"none",      "tensorwise", "rowwise", "delayed",
                                                "blockwise", "mxfp8",      NULL};
static const char *const topology_values[] = {"switch", "full_mesh", NULL};
static const char *const recompute_values[] = {"none", "selective", "full", NULL};
static const char *const schedule_values[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2",
                                              "dualpipe", NULL};
static const char *const fidelity_values[] = {"refined", "textbook", NULL};
static const char *const dp_algorithm_values[] = {"hierarchical", "flat", NULL};
static const char *const allreduce_values[] = {"ring", "auto", NULL};
static const char *const selective_values[] = {"attention", "op", NULL};
static const char *const recompute_method_values[] = {"uniform", "block", "every", NULL};
static const char *const recompute_modules_values[] = {"core_attn",
                                                       "layernorm mla_up_proj moe_act", NULL};
static const char *const save_values[] = {"sync", "async", NULL};
static const char *const cp_ring_values[] = {"none", "allgather", "alltoall", NULL};
static const char *const attention_kernel_values[] = {"none", "flash-attention-2",
                                                     "flash-attention-3", "cudnn", NULL};
static const char *const dp_grad_collective_values[] = {"reduce_scatter", "all_reduce", NULL};
static const char *const dp_grad_window_values[] = {"backward", "microbatch", NULL};
static const char *const finetune_values[] = {"full", "lora", NULL};
static const char *const lora_targets_values[] = {"all-linear", "attention", "mlp", NULL};
static const char *const base_quant_values[] = {"none", "nf4", "int8", NULL};
static const char *const ds_overlap_values[] = {"auto", "false", "true", NULL};
static const char *const rank_by_values[] = {"step_time", "mfu", "memory", "train_days",
                                             "interventions", NULL};

/* ------------------------------------------------------------ model */
#define M(f) offsetof(pe_model, f)
static const pe_field model_fields[] = {
    {"preset", PE_FT_PRESET, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "start from this catalog model; the keys below override it"},
    {"layers", PE_FT_INT, PE_RANGE_WHOLE, M(layers), NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "L, transformer layers"},
    {"hidden", PE_FT_INT, PE_RANGE_WHOLE, M(hidden), NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "h, hidden size"},
    {"heads", PE_FT_INT, PE_RANGE_WHOLE, M(heads), NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "a, attention heads (must divide hidden)"},
    {"kv_heads", PE_FT_INT, PE_RANGE_WHOLE, M(kv_heads), NO, NULL, 0, NULL, "heads",
     "g, key/value heads (GQA); not given: heads (computed by the loader)"},
    {"ffn_hidden", PE_FT_INT, PE_RANGE_WHOLE, M(ffn_hidden), NO, NULL, 0, NULL, "4*hidden",
     "f, MLP hidden size; not given: 4*hidden (computed by the loader)"},
    {"vocab", PE_FT_INT, PE_RANGE_WHOLE, M(vocab), NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "V, vocabulary size"},
    {"seq_len", PE_FT_INT, PE_RANGE_WHOLE, M(seq_len), NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "s, sequence length in tokens"},
    {"mlp", PE_FT_ENUM, PE_RANGE_NONE, M(mlp), NO, mlp_values, 0, NULL, "gelu",
     "gelu (2 matrices) or swiglu (3 matrices)"},
    {"norm", PE_FT_ENUM, PE_RANGE_NONE, M(norm), NO, norm_values, 0, NULL, "layernorm",
     "layernorm (2h parameters) or rmsnorm (h)"},
    {"bias", PE_FT_BOOL, PE_RANGE_NONE, M(bias), NO, NULL, 0, NULL, "true",
     "linear layers have biases"},
    {"dropout", PE_FT_BOOL, PE_RANGE_NONE, M(dropout), NO, NULL, 0, NULL, "true",
     "dropout on (its masks are stored)"},
    {"tied_embeddings", PE_FT_BOOL, PE_RANGE_NONE, M(tied_embeddings), NO, NULL, 0, NULL,
     "false", "input embedding and output layer share weights"},
    {"position", PE_FT_ENUM, PE_RANGE_NONE, M(position), NO, position_values, 0, NULL,
     "learned", "learned (s*h parameters) or rotary (none)"},
    {"attention", PE_FT_ENUM, PE_RANGE_NONE, M(attention), NO, attention_values, 0, NULL,
     "standard", "standard stores the score matrix; flash does not"},
    {"causal_flops", PE_FT_BOOL, PE_RANGE_NONE, M(causal_flops), NO, NULL, 0, NULL, "false",
     "count only the causal half of attention FLOPs"},
    {"params", PE_FT_NUMBER, PE_RANGE_PARAMS, M(params), M(has_params), NULL, 0, NULL, NULL,
     "the model's unique parameter count (docs/model.md P6); optional"},
    /* mixture of experts (docs/design/moe.md §0) */
    {"experts", PE_FT_INT, PE_RANGE_NONNEG, M(experts), NO, NULL, 0, NULL, "0",
     "E, routed experts per MoE layer (0 = a dense model)"},
    {"top_k", PE_FT_INT, PE_RANGE_WHOLE, M(top_k), NO, NULL, 0, NULL, NULL,
     "k, routed experts per token (required with experts)"},
    {"moe_ffn_hidden", PE_FT_INT, PE_RANGE_WHOLE, M(moe_ffn_hidden), NO, NULL, 0, NULL,
     "ffn_hidden",
     "f_e, hidden size of one routed or shared expert; not given: ffn_hidden (computed by the "
     "loader)"},
    {"shared_experts", PE_FT_INT, PE_RANGE_NONNEG, M(shared_experts), NO, NULL, 0, NULL, "0",
     "n_s, shared experts per MoE layer, each of size moe_ffn_hidden"},
    {"dense_layers", PE_FT_INT, PE_RANGE_NONNEG, M(dense_layers), NO, NULL, 0, NULL, "0",
     "L_d, leading dense layers"},
    {"moe_every", PE_FT_INT, PE_RANGE_WHOLE, M(moe_every), NO, NULL, 0, NULL, "1",
     "every n-th layer (from dense_layers on) is an MoE layer"},
    {"capacity_factor", PE_FT_NUMBER, PE_RANGE_FACTOR, M(capacity_factor),
     M(has_capacity_factor), NULL, 0, NULL, "dropless",
     "expert capacity factor; buffers padded to capacity"},
    {"moe_imbalance", PE_FT_NUMBER, PE_RANGE_IMBALANCE, M(moe_imbalance), NO, NULL, 0, NULL, "1",
     "load imbalance: tokens on the busiest expert rank / the mean (dropless)"},
    {"head_dim", PE_FT_INT, PE_RANGE_WHOLE, M(head_dim), M(has_head_dim), NULL, 0, NULL,
     "hidden/heads",
     "d, head dimension (Qwen3, gpt-oss differ from hidden/heads); not given: hidden/heads "
     "(computed by the model, docs/model.md P1)"},
    {"q_lora_rank", PE_FT_INT, PE_RANGE_NONNEG, M(q_lora_rank), NO, NULL, 0, NULL, "0",
     "mla: query compression rank (0 = no compression)"},
    {"kv_lora_rank", PE_FT_INT, PE_RANGE_WHOLE, M(kv_lora_rank), NO, NULL, 0, NULL, NULL,
     "mla: key/value compression rank (required with mla)"},
    {"qk_rope_head_dim", PE_FT_INT, PE_RANGE_WHOLE, M(qk_rope_head_dim), NO, NULL, 0, NULL,
     NULL, "mla: rotary part of the query/key head (required with mla)"},
    {"qk_nope_head_dim", PE_FT_INT, PE_RANGE_WHOLE, M(qk_nope_head_dim), NO, NULL, 0, NULL,
     NULL, "mla: non-rotary part of the query/key head (required with mla)"},
    {"v_head_dim", PE_FT_INT, PE_RANGE_WHOLE, M(v_head_dim), NO, NULL, 0, NULL, NULL,
     "mla: value head dimension (required with mla)"},
};
#undef M
const pe_fieldset pe_fields_model = {"model", "the transformer", model_fields,
                                     N_OF(model_fields)};

/* ------------------------------------------------------------ precision */
#define P(f) offsetof(pe_precision, f)
static const pe_field precision_fields[] = {
    {"param_bytes", PE_FT_NUMBER, PE_RANGE_ELEMENT_BYTES, P(param_bytes), NO, NULL, 0, NULL, "2",
     "bytes per weight"},
    {"grad_bytes", PE_FT_NUMBER, PE_RANGE_ELEMENT_BYTES, P(grad_bytes), NO, NULL, 0, NULL, "2",
     "bytes per gradient"},
    {"optimizer_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, P(optimizer_bytes), NO, NULL, 0, NULL,
     "12", "optimizer state bytes per parameter (fp32 master + Adam m and v)"},
    /* FP8 GEMMs and the EP dispatch (docs/design/moe.md §6) */
    {"compute", PE_FT_ENUM, PE_RANGE_NONE, P(compute), NO, compute_values, 0, NULL, "bf16",
     "GEMM precision: bf16, or fp8 (Transformer Engine: linear layers at the FP8 peak)"},
    {"fp8_weight_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, P(fp8_weight_bytes), NO, NULL, 0, NULL,
     "2", "fp8: bytes per FP8-GEMM parameter of the cached FP8 weight copies"},
    {"dispatch_bytes", PE_FT_NUMBER, PE_RANGE_ELEMENT_BYTES, P(dispatch_bytes), NO, NULL, 0, NULL,
     "2", "bytes per element of the expert-parallel dispatch all-to-all (1 = FP8)"},
    {"fp8_recipe", PE_FT_ENUM, PE_RANGE_NONE, P(fp8_recipe), NO, fp8_recipe_values, 0, NULL,
     "none",
     "fp8: the scaling recipe (F24, refined compute): none (F18's one FP8 rate), tensorwise, "
     "rowwise, delayed, blockwise or mxfp8 (its GEMM rate and its cast bytes)"},
};
#undef P
const pe_fieldset pe_fields_precision = {"precision", "bytes per parameter", precision_fields,
                                         N_OF(precision_fields)};

/* ------------------------------------------------------------ cluster */
#define G(f) offsetof(pe_gpu, f)
static const pe_field gpu_fields[] = {
    {"preset", PE_FT_PRESET, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "start from this catalog GPU; the keys below override it"},
    {"hbm_gib", PE_FT_NUMBER, PE_RANGE_GIB, G(hbm_gib), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "GPU memory, GiB"},
    {"peak_tflops", PE_FT_NUMBER, PE_RANGE_RATE, G(peak_tflops), NO, NULL, PE_F_REQUIRED,
     NULL, NULL, "dense bf16 TFLOP/s"},
    {"hbm_tb_s", PE_FT_NUMBER, PE_RANGE_RATE, G(hbm_tb_s), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "HBM bandwidth, TB/s"},
    {"flops_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, G(flops_efficiency), NO, NULL, 0,
     NULL, "0.5", "e, achieved fraction of peak"},
    {"gemm_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, G(gemm_efficiency),
     G(has_gemm_efficiency), NULL, 0, NULL, "none",
     "F8 e_max: matrix multiplies timed one by one from their shapes (docs/model.md §12)"},
    {"gemm_half_gflop", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(gemm_half_gflop), NO, NULL, 0, NULL,
     "0", "F8 F_half: GFLOP of a matrix multiply that reaches half of e_max"},
    {"gemm_half_measured", PE_FT_BOOL, PE_RANGE_NONE, G(gemm_half_measured), NO, NULL, 0, NULL,
     "false", "F8: gemm_half_gflop is a kernel measurement (a fit of e(F) to matrix multiplies "
     "timed by shape), which calibrate holds instead of fitting or setting it neutral"},
    {"attention_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, G(attention_efficiency),
     G(has_attention_efficiency), NULL, 0, NULL, "gemm_efficiency",
     "F9 e_att: achieved fraction of peak of the attention core; not given: gemm_efficiency "
     "(taken by the model)"},
    {"attention_half_seq", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_half_seq), NO, NULL, 0,
     NULL, "0", "F22 s_half: keys per query (per context-parallel shard) at which the attention "
     "core reaches half of e_att (0: e_att at every length)"},
    {"attention_half_head_dim", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_half_head_dim), NO,
     NULL, 0, NULL, "0", "F22 d_half: head dimension at which the attention core's rate is half "
     "of its head-dimension asymptote; e_att is the figure at head dim 128 (0: no head-dim term)"},
    {"attention_causal_tile", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_causal_tile), NO, NULL,
     0, NULL, "0", "F22 B_c: tile (tokens) of a causal attention kernel that skips the blocks "
     "above the diagonal (0: no causal term)"},
    {"attention_measured", PE_FT_BOOL, PE_RANGE_NONE, G(attention_measured), NO, NULL, 0, NULL,
     "false", "F41: attention_efficiency is a kernel measurement (flat: the median of the GPU's "
     "causal training rows), which calibrate holds like F22's instead of setting it neutral"},
    {"gemm_measured", PE_FT_BOOL, PE_RANGE_NONE, G(gemm_measured), NO, NULL, 0, NULL, "false",
     "F42: gemm_efficiency and the FP8 GEMM efficiencies are kernel measurements (derived from "
     "scenarios/measurements by tests/derive_presets.py), not fits; explain names them so"},
    {"grouped_gemm_half_rows", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(grouped_gemm_half_rows), NO,
     NULL, 0, NULL, "0", "F38 M_half: rows per expert (M_e) at which the MoE expert GEMMs reach "
     "half of their large-M rate (0: the dense rate at every M_e)"},
    {"elementwise_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO, G(elementwise_efficiency), NO, NULL,
     0, NULL, "0", "F10 η_W: fraction of HBM bandwidth element-wise kernels reach (0: untimed)"},
    {"microbatch_overhead_us", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(microbatch_overhead_us), NO,
     NULL, 0, NULL, "0", "F11 t_mb: fixed time per micro-batch and stage, microseconds"},
    /* FP8 GEMMs and optimizer offload */
    {"peak_fp8_tflops", PE_FT_NUMBER, PE_RANGE_RATE, G(peak_fp8_tflops),
     G(has_peak_fp8_tflops), NULL, 0, NULL, NULL, "dense fp8 TFLOP/s (needed by compute: fp8)"},
    {"fp8_gemm_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, G(fp8_gemm_efficiency),
     G(has_fp8_gemm_efficiency), NULL, 0, NULL, "gemm_efficiency",
     "F18 e_max of the fp8 matrix multiplies, a fraction of peak_fp8_tflops (refined model); "
     "not given: gemm_efficiency (taken by the model)"},
    {"fp8_rowwise_gemm_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO,
     G(fp8_rowwise_gemm_efficiency), NO, NULL, 0, NULL, "0",
     "F42 e_row: the rowwise-scaled FP8 GEMM kernel's rate measured on this GPU, a fraction of "
     "peak_fp8_tflops, taken by fp8_recipe rowwise in place of F24's r on e_max8 (0: F24's r)"},
    {"fp8_kernel_gemm_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO,
     G(fp8_kernel_gemm_efficiency), NO, NULL, 0, NULL, "0",
     "F42 e_k8: the tensorwise FP8 GEMM kernel's rate measured on this GPU without any cast, a "
     "fraction of peak_fp8_tflops, taken in place of fp8_gemm_efficiency by a framework with "
     "fp8_kernel_rate (0: not measured, fp8_gemm_efficiency)"},
    {"host_link_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, G(host_link_gb_s),
     G(has_host_link_gb_s), NULL, 0, NULL, NULL,
     "GPU-host GB/s per direction (needed by offload_optimizer)"},
    /* S6 prediction interval (docs/model.md §12), written by calibrate */
    {"step_time_below", PE_FT_NUMBER, PE_RANGE_UNIT, G(step_time_below),
     G(has_step_time_interval), NULL, 0, NULL, "none",
     "S6 δ−: step_time_lo_s = step × (1 − δ−), from calibrate's leave-one-out residuals; "
     "not given: the stated default (refined model)"},
    {"step_time_above", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(step_time_above), NO, NULL, 0, NULL,
     "0", "S6 δ+: step_time_hi_s = step × (1 + δ+) (with step_time_below)"},
    {"step_time_interval_runs", PE_FT_INT, PE_RANGE_NONNEG, G(step_time_interval_runs), NO, NULL,
     0, NULL, "0", "S6: how many leave-one-out residuals gave step_time_below and _above"},
    /* whole run (docs/model.md §15) */
    {"tdp_w", PE_FT_NUMBER, PE_RANGE_WATTS, G(tdp_w), G(has_tdp_w), NULL, 0, NULL, NULL,
     "R1 P_TDP: the board's rated power (datasheet TDP), W; enables energy_mwh"},
    {"idle_w", PE_FT_NUMBER, PE_RANGE_WATTS, G(idle_w), G(has_idle_w), NULL, 0, NULL, "tdp_w",
     "R1 P_idle: board power while the GPU waits (communication, bubble), W; not given: tdp_w "
     "(taken by the model)"},
    /* F30 each attention kernel's measured F22 numbers, taken with framework.attention_kernel */
    {"attention_fa2_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO,
     G(attention_fa2_efficiency), NO, NULL, 0, NULL, "0",
     "F30 e_att of FlashAttention-2 on this GPU (framework.attention_kernel flash-attention-2; "
     "0: not measured, attention_efficiency)"},
    {"attention_fa2_half_seq", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_fa2_half_seq), NO,
     NULL, 0, NULL, "0", "F30 s_half of FlashAttention-2 on this GPU (with attention_fa2_efficiency)"},
    {"attention_fa3_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO,
     G(attention_fa3_efficiency), NO, NULL, 0, NULL, "0",
     "F30 e_att of FlashAttention-3 on this GPU (framework.attention_kernel flash-attention-3; "
     "0: not measured, attention_efficiency)"},
    {"attention_fa3_half_seq", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_fa3_half_seq), NO,
     NULL, 0, NULL, "0", "F30 s_half of FlashAttention-3 on this GPU (with attention_fa3_efficiency)"},
    {"attention_cudnn_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY_OR_ZERO,
     G(attention_cudnn_efficiency), NO, NULL, 0, NULL, "0",
     "F30 e_att of cuDNN's fused attention on this GPU (framework.attention_kernel cudnn; 0: "
     "not measured, attention_efficiency)"},
    {"attention_cudnn_half_seq", PE_FT_NUMBER, PE_RANGE_AMOUNT, G(attention_cudnn_half_seq), NO,
     NULL, 0, NULL, "0", "F30 s_half of cuDNN's fused attention on this GPU (with "
     "attention_cudnn_efficiency)"},
    {"sm_count", PE_FT_INT, PE_RANGE_NONNEG, G(sm_count), NO, NULL, 0, NULL, "0",
     "F32 S: the chip's streaming multiprocessors (NVIDIA's datasheet or architecture "
     "whitepaper), needed by framework.comm_sms (0: not given)"},
};
#undef G
const pe_fieldset pe_fields_gpu = {"cluster.gpu", "one GPU", gpu_fields, N_OF(gpu_fields)};

#define I(f) offsetof(pe_intra_node, f)
static const pe_field intra_fields[] = {
    {"topology", PE_FT_ENUM, PE_RANGE_NONE, I(topology), NO, topology_values, PE_F_REQUIRED,
     NULL, NULL, "switch or full_mesh"},
    {"links", PE_FT_INT, PE_RANGE_WHOLE, I(links), NO, NULL, PE_F_FULL_MESH, NULL, NULL,
     "full_mesh: links per GPU"},
    {"link_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, I(link_gb_s), NO, NULL, PE_F_FULL_MESH,
     NULL, NULL, "full_mesh: GB/s per link per direction"},
    {"bandwidth_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, I(bandwidth_gb_s), NO, NULL,
     PE_F_SWITCH, NULL, NULL, "switch: GB/s per GPU per direction"},
    {"latency_us", PE_FT_NUMBER, PE_RANGE_AMOUNT, I(latency_us), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "latency of one message, microseconds"},
    {"bus_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, I(bus_efficiency), NO, NULL, 0, NULL,
     "1", "C8 η_max: fraction of the nominal bandwidth large collectives reach"},
    {"half_message_mb", PE_FT_NUMBER, PE_RANGE_AMOUNT, I(half_message_mb), NO, NULL, 0, NULL,
     "0", "C8 S_half: message size (MB) reaching half of η_max"},
};
#undef I
const pe_fieldset pe_fields_intra_node = {
    "cluster.intra_node", "links between the GPUs of a node (required when gpus_per_node > 1)",
    intra_fields, N_OF(intra_fields)};

#define E(f) offsetof(pe_inter_node, f)
static const pe_field inter_fields[] = {
    {"nic_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, E(nic_gb_s), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "GB/s per GPU per direction"},
    {"latency_us", PE_FT_NUMBER, PE_RANGE_AMOUNT, E(latency_us), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "latency of one message, microseconds"},
    {"bus_efficiency", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, E(bus_efficiency), NO, NULL, 0, NULL,
     "1", "C8 η_max: fraction of the nominal bandwidth large collectives reach"},
    {"half_message_mb", PE_FT_NUMBER, PE_RANGE_AMOUNT, E(half_message_mb), NO, NULL, 0, NULL,
     "0", "C8 S_half: message size (MB) reaching half of η_max"},
};
#undef E
const pe_fieldset pe_fields_inter_node = {"cluster.inter_node",
                                          "the network between nodes (required when nodes > 1)",
                                          inter_fields, N_OF(inter_fields)};

#define C(f) offsetof(pe_cluster, f)
static const pe_field cluster_fields[] = {
    {"preset", PE_FT_PRESET, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "start from this catalog cluster; the keys below override it"},
    {"nodes", PE_FT_INT, PE_RANGE_WHOLE, C(nodes), NO, NULL, PE_F_REQUIRED | PE_F_NO_PRESET,
     NULL, NULL, "nodes in the cluster (a preset never sets it)"},
    {"allow_cross_node_tp", PE_FT_BOOL, PE_RANGE_NONE, C(allow_cross_node_tp), NO, NULL, 0,
     NULL, "false", "allow tp groups larger than a node (V7)"},
    {"gpus_per_node", PE_FT_INT, PE_RANGE_WHOLE, C(gpus_per_node), NO, NULL, PE_F_REQUIRED,
     NULL, NULL, "G, GPUs per node"},
    {"reserve_gib", PE_FT_NUMBER, PE_RANGE_AMOUNT, C(reserve_gib), NO, NULL, 0, NULL, "10",
     "R, framework reserve per GPU, GiB (above hbm_gib: every plan over_memory)"},
    {"gpu", PE_FT_MAP, PE_RANGE_NONE, C(gpu), NO, NULL, PE_F_REQUIRED, &pe_fields_gpu, NULL,
     "the GPU"},
    {"intra_node", PE_FT_MAP, PE_RANGE_NONE, C(intra_node), NO, NULL, 0, &pe_fields_intra_node,
     NULL, "links inside a node"},
    {"inter_node", PE_FT_MAP, PE_RANGE_NONE, C(inter_node), NO, NULL, 0, &pe_fields_inter_node,
     NULL, "network between nodes"},
    /* optimizer offload */
    {"host_memory_gib", PE_FT_NUMBER, PE_RANGE_GIB, C(host_memory_gib),
     C(has_host_memory_gib), NULL, 0, NULL, NULL,
     "host memory per node, GiB (checked by offload_optimizer when given)"},
    {"cpu_adam_gparams_s", PE_FT_NUMBER, PE_RANGE_RATE, C(cpu_adam_gparams_s), NO, NULL, 0,
     NULL, "4", "CPU Adam rate per node, 10^9 parameters/s (offload_optimizer)"},
    /* the run's price (S7) */
    {"cost_per_gpu_hour", PE_FT_NUMBER, PE_RANGE_AMOUNT, C(cost_per_gpu_hour),
     C(has_cost_per_gpu_hour), NULL, 0, NULL, NULL,
     "price of one GPU for one hour, in one currency; enables the cost column (S7)"},
    /* whole run (docs/model.md §15) */
    {"node_overhead_w", PE_FT_NUMBER, PE_RANGE_AMOUNT, C(node_overhead_w), NO, NULL, 0, NULL,
     "0", "R2 P_other: a node's power besides its GPUs (CPUs, memory, NICs, fans), W"},
    {"pue", PE_FT_NUMBER, PE_RANGE_PUE, C(pue), NO, NULL, 0, NULL, "1",
     "R3 power usage effectiveness: facility energy over IT energy (1: IT energy only)"},
};
#undef C
const pe_fieldset pe_fields_cluster = {"cluster", "the machines", cluster_fields,
                                       N_OF(cluster_fields)};

/* ------------------------------------------------------------ training, budgets, overlap */
#define T(f) offsetof(pe_training, f)
static const pe_field training_fields[] = {
    {"global_batch", PE_FT_INT, PE_RANGE_WHOLE, T(global_batch), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "B, sequences per optimizer step"},
    {"tokens", PE_FT_NUMBER, PE_RANGE_TOKENS, T(tokens), T(has_tokens), NULL, 0, NULL, NULL,
     "tokens to train on; enables train_days and gpu_hours"},
    /* parameter-efficient fine-tuning (docs/model.md §3 M15–M17, A27) */
    {"finetune", PE_FT_ENUM, PE_RANGE_NONE, T(finetune), NO, finetune_values, 0, NULL, "full",
     "full (every weight trained) or lora (frozen base weights, trained low-rank adapters)"},
    {"lora_rank", PE_FT_INT, PE_RANGE_WHOLE, T(lora_rank), NO, NULL, 0, NULL, "8",
     "lora: r, the rank of each adapter (A is r x in, B is out x r)"},
    {"lora_targets", PE_FT_ENUM, PE_RANGE_NONE, T(lora_targets), NO, lora_targets_values, 0,
     NULL, "all-linear",
     "lora: the linears of each layer that get an adapter: all-linear (q, k, v, o and the MLP's), "
     "attention (q, k, v, o) or mlp"},
    {"lora_dropout", PE_FT_NUMBER, PE_RANGE_UNIT, T(lora_dropout), NO, NULL, 0, NULL, "0",
     "lora: dropout probability on each adapter's input (> 0 keeps a copy of the input and its "
     "mask, A27)"},
    {"base_quant", PE_FT_ENUM, PE_RANGE_NONE, T(base_quant), NO, base_quant_values, 0, NULL,
     "none",
     "lora: storage of the frozen linear weights: none (param_bytes), nf4 (QLoRA's NF4 with "
     "double quantisation, 4.127 bits) or int8 (1 byte)"},
};
#undef T
const pe_fieldset pe_fields_training = {"training", "the run", training_fields,
                                        N_OF(training_fields)};

#define B(f) offsetof(pe_budgets, f)
static const pe_field budget_fields[] = {
    {"memory_gib", PE_FT_NUMBER, PE_RANGE_GIB, B(memory_gib), B(has_memory_gib), NULL, 0,
     NULL, NULL, "memory per GPU, GiB (the budget is min(hbm_gib, this))"},
    {"step_time_s", PE_FT_NUMBER, PE_RANGE_BUDGET, B(step_time_s), B(has_step_time_s), NULL,
     0, NULL, NULL, "seconds per optimizer step"},
    {"train_days", PE_FT_NUMBER, PE_RANGE_BUDGET, B(train_days), B(has_train_days), NULL, 0,
     NULL, NULL, "days for training.tokens (needs training.tokens)"},
    {"min_mfu", PE_FT_NUMBER, PE_RANGE_EFFICIENCY, B(min_mfu), B(has_min_mfu), NULL, 0, NULL,
     NULL, "lowest acceptable MFU"},
};
#undef B
#define TG(f) offsetof(pe_targets, f)
static const pe_field target_fields[] = {
    {"tokens", PE_FT_NUMBER, PE_RANGE_TOKENS, TG(tokens), TG(has_tokens), NULL, 0, NULL, NULL,
     "tokens to train on (training.tokens; both given: equal)"},
    {"days", PE_FT_NUMBER, PE_RANGE_BUDGET, TG(days), TG(has_days), NULL, 0, NULL, NULL,
     "days to train them in: train_days <= days (budgets.train_days; both given: equal)"},
    {"gpu_hours", PE_FT_NUMBER, PE_RANGE_PARAMS, TG(gpu_hours), TG(has_gpu_hours), NULL, 0, NULL,
     NULL, "GPU-hours budget of the whole run: gpu_hours <= this (T2)"},
    {"cost", PE_FT_NUMBER, PE_RANGE_PARAMS, TG(cost), TG(has_cost), NULL, 0, NULL, NULL,
     "cost budget of the whole run, in cluster.cost_per_gpu_hour's currency: cost <= this "
     "(T2; needs the price)"},
};
#undef TG
const pe_fieldset pe_fields_targets = {"targets",
                                       "what the run must reach; the smallest cluster that meets "
                                       "it is reported (docs/sweeps.md)",
                                       target_fields, N_OF(target_fields)};

const pe_fieldset pe_fields_budgets = {"budgets", "limits a plan must meet (all optional)",
                                       budget_fields, N_OF(budget_fields)};

#define O(f) offsetof(pe_overlap, f)
static const pe_field overlap_fields[] = {
    {"tp", PE_FT_NUMBER, PE_RANGE_UNIT, O(tp), NO, NULL, 0, NULL, "0",
     "fraction of the compute window that hides TP communication"},
    {"cp", PE_FT_NUMBER, PE_RANGE_UNIT, O(cp), NO, NULL, 0, NULL, "1",
     "fraction of the compute window that hides CP communication"},
    {"dp", PE_FT_NUMBER, PE_RANGE_UNIT, O(dp), NO, NULL, 0, NULL, "1",
     "fraction of the compute window that hides DP/ZeRO communication"},
    {"pp", PE_FT_NUMBER, PE_RANGE_UNIT, O(pp), NO, NULL, 0, NULL, "0",
     "fraction of the compute window that hides PP communication"},
    {"ep", PE_FT_NUMBER, PE_RANGE_UNIT, O(ep), NO, NULL, 0, NULL, "0",
     "fraction of the MoE-layer compute that hides the EP all-to-all"},
};
#undef O
const pe_fieldset pe_fields_overlap = {"overlap",
                                       "communication hidden behind compute (docs/model.md §6)",
                                       overlap_fields, N_OF(overlap_fields)};

#define FW(f) offsetof(pe_framework, f)
static const pe_field framework_fields[] = {
    {"preset", PE_FT_PRESET, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "start from this catalog framework; the keys below override it"},
    {"overlap", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_overlap, NULL,
     "the framework's overlap defaults (the scenario's overlap: overrides them)"},
    {"pp_scatter_gather", PE_FT_BOOL, PE_RANGE_NONE, FW(pp_scatter_gather), NO, NULL, 0, NULL,
     "false", "X6: pipeline sends cross nodes as 1/t of the activation (Megatron)"},
    {"dp_algorithm", PE_FT_ENUM, PE_RANGE_NONE, FW(dp_algorithm), NO, dp_algorithm_values, 0,
     NULL, "hierarchical", "C9: ZeRO/DP collectives across nodes, hierarchical or flat ring"},
    {"allreduce", PE_FT_ENUM, PE_RANGE_NONE, FW(allreduce), NO, allreduce_values, 0, NULL, "ring",
     "C10: all-reduce across nodes as a ring, or auto: the faster of ring and tree (NCCL)"},
    {"dp_bucket_mb", PE_FT_NUMBER, PE_RANGE_AMOUNT, FW(dp_bucket_mb), NO, NULL, 0, NULL, "0",
     "X7: size of the last gradient bucket, MB, whose reduction is never hidden"},
    {"comm_slowdown", PE_FT_NUMBER, PE_RANGE_UNIT, FW(comm_slowdown), NO, NULL, 0, NULL, "0",
     "X8: fraction of hidden communication time added to compute (shared SMs, HBM)"},
    {"tp_async_backward", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_async_backward), NO, NULL, 0, NULL,
     "false",
     "X13: backward input-gradient TP collectives overlap the weight-gradient GEMMs (Megatron)"},
    {"grad_accum_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(grad_accum_bytes), NO, NULL, 0, NULL,
     "0", "F21: bytes per parameter moved to accumulate gradients, every micro-batch"},
    {"optimizer_pass_bytes", PE_FT_NUMBER, PE_RANGE_PASS_BYTES, FW(optimizer_pass_bytes), NO, NULL,
     0, NULL, "0",
     "X14: bytes per parameter the optimizer step moves, at W·η_W (0: X5's textbook count)"},
    {"bubble_by_stage", PE_FT_BOOL, PE_RANGE_NONE, FW(bubble_by_stage), NO, NULL, 0, NULL,
     "false", "B5: the bubble is the other stages' own times, not p−1 times the slowest's"},
    {"moe_permute_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(moe_permute_bytes), NO, NULL, 0, NULL,
     "0", "F23: bytes per hidden element of each routed token copy that the MoE token "
     "permutation and unpermutation move, forward, at W·η_W (0: untimed)"},
    {"calibrated", PE_FT_BOOL, PE_RANGE_NONE, FW(calibrated), NO, NULL, 0, NULL, "false",
     "S6: the GPU presets' intervals were measured on runs of this framework (else the "
     "stated default interval)"},
    /* M23 memory peak prediction interval (docs/model.md §12), from
     * tests/derive_memory_interval.py's residuals */
    {"mem_peak_below", PE_FT_NUMBER, PE_RANGE_UNIT, FW(mem_peak_below),
     FW(has_mem_peak_interval), NULL, 0, NULL, "none",
     "M23 δ−: mem_peak_lo_gib = mem_peak_gib × (1 − δ−), from the memory library's residuals of "
     "this framework's runs; not given: the stated default (refined model)"},
    {"mem_peak_above", PE_FT_NUMBER, PE_RANGE_AMOUNT, FW(mem_peak_above), NO, NULL, 0, NULL, "0",
     "M23 δ+: mem_peak_hi_gib = mem_peak_gib × (1 + δ+) (with mem_peak_below)"},
    {"mem_peak_interval_runs", PE_FT_INT, PE_RANGE_NONNEG, FW(mem_peak_interval_runs), NO, NULL,
     0, NULL, "0", "M23: how many memory residuals gave mem_peak_below and _above"},
    {"memory_by_phase", PE_FT_BOOL, PE_RANGE_NONE, FW(memory_by_phase), NO, NULL, 0, NULL,
     "false", "M9: peak memory is the largest phase of the step (forward, backward, loss, "
              "optimizer), with modelled overheads (M13) instead of reserve_gib"},
    {"loss_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(loss_bytes), NO, NULL, 0, NULL, "4",
     "A14: bytes per token and vocabulary entry live at the loss (logits, fp32 upcast, "
     "log-softmax, gradient), with memory_by_phase"},
    {"master_weights_only", PE_FT_BOOL, PE_RANGE_NONE, FW(master_weights_only), NO, NULL, 0,
     NULL, "false",
     "M10: under zero 3 the fp32 master is the only weight shard (FSDP2 mixed precision), "
     "with memory_by_phase"},
    {"pp_unsharded_params", PE_FT_BOOL, PE_RANGE_NONE, FW(pp_unsharded_params), NO, NULL, 0,
     NULL, "false",
     "M12: under zero 3 with pp > 1 each stage keeps its weights gathered from forward to "
     "backward (torchtitan), with memory_by_phase"},
    {"optimizer_temp_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(optimizer_temp_bytes), NO, NULL, 0,
     NULL, "0", "M11: temporaries of the optimizer step, bytes per parameter of the shard"},
    {"workspace_mib", PE_FT_NUMBER, PE_RANGE_AMOUNT, FW(workspace_mib), NO, NULL, 0, NULL, "0",
     "M13: library workspaces held in the caching allocator (cuBLAS), MiB"},
    {"allocator_fragmentation", PE_FT_NUMBER, PE_RANGE_UNIT, FW(allocator_fragmentation), NO,
     NULL, 0, NULL, "0", "M13: reserved over allocated memory of the caching allocator, less 1"},
    {"cuda_context_gib", PE_FT_NUMBER, PE_RANGE_AMOUNT, FW(cuda_context_gib), NO, NULL, 0, NULL,
     "0", "M13: CUDA context and buffers outside the caching allocator (NCCL), GiB"},
    {"selective_recompute", PE_FT_ENUM, PE_RANGE_NONE, FW(selective_recompute), NO,
     selective_values, 0, NULL, "attention",
     "A15: what recompute: selective keeps, with memory_by_phase: attention (Megatron: all but "
     "the core attention) or op (torchtitan selective_ac_option op: every other matmul output "
     "and the attention output)"},
    {"tp_gathered_inputs", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_gathered_inputs), NO, NULL, 0, NULL,
     "false",
     "A16: with sequence parallelism the all-gathered inputs of the QKV and MLP matmuls are "
     "kept whole for backward (PyTorch DTensor TP, torchtitan), not split by tp, with "
     "memory_by_phase"},
    {"overlap_slowdown", PE_FT_NUMBER, PE_RANGE_UNIT, FW(overlap_slowdown), NO, NULL, 0, NULL,
     "0", "X15: how much slower compute runs while an overlapped collective shares the GPU "
     "(0.189: 18.9% slower); a collective longer than its window stays exposed"},
    {"tp_micro_pipeline", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_micro_pipeline), NO, NULL, 0, NULL,
     "false", "X16: with sequence parallelism, overlap.tp hides each TP all-gather or "
     "reduce-scatter behind (t−1)/t of the GEMM it feeds or follows (PyTorch async TP), "
     "not behind the whole layer"},
    {"recompute_method", PE_FT_ENUM, PE_RANGE_NONE, FW(recompute_method), NO,
     recompute_method_values, 0, NULL, "uniform",
     "A18: the layers recompute: full checkpoints: uniform (groups of recompute_num_layers, "
     "Megatron --recompute-method uniform), block (the first recompute_num_layers of each "
     "stage, the rest stored; Megatron block) or every (every recompute_num_layers-th layer, "
     "the rest stored; torchtitan selective_ac_option N)"},
    {"recompute_num_layers", PE_FT_INT, PE_RANGE_WHOLE, FW(recompute_num_layers), NO, NULL, 0,
     NULL, "1", "A18: N of recompute_method (Megatron --recompute-num-layers, torchtitan "
     "selective_ac_option)"},
    {"megatron_legacy_model", PE_FT_BOOL, PE_RANGE_NONE, FW(megatron_legacy_model), NO, NULL, 0,
     NULL, "false",
     "A17: the activations of Megatron-LM's legacy GPT model (megatron/model, before "
     "--use-mcore-models): unfused swiglu, flash attention's output kept twice and K, V "
     "expanded to every head"},
    {"te_saved_tensors", PE_FT_BOOL, PE_RANGE_NONE, FW(te_saved_tensors), NO, NULL, 0, NULL,
     "false",
     "A30, A31: what Megatron-Core's Transformer Engine layers save for backward beyond "
     "A1-A3: the two norms' fp32 statistics (A30) and, without recompute, the fused "
     "attention's fp32 softmax statistics and, under FP8, its bf16 output beside the "
     "projection's FP8 input (A31); not with megatron_legacy_model"},
    {"gemm_rate_scale", PE_FT_NUMBER, PE_RANGE_FACTOR, FW(gemm_rate_scale), NO, NULL, 0, NULL,
     "1", "F26: the framework's matrix-multiply rate over the one the GPU preset's numbers "
     "give (e_max and e_max8 times it; refined compute only; 1: as fitted)"},
    {"pp_microbatch_group", PE_FT_INT, PE_RANGE_NONNEG, FW(pp_microbatch_group), NO, NULL, 0,
     NULL, "0",
     "A6″: N, the micro-batches an interleaved schedule runs contiguously in each model chunk "
     "(Llama 3's tunable N, Megatron-Core microbatch_group_size_per_vp_stage), taken in [pp, "
     "micro-batches]; more raise the micro-batches in flight (0: pp, the depth-first schedule)"},
    {"recompute_modules", PE_FT_ENUM, PE_RANGE_NONE, FW(recompute_modules), NO,
     recompute_modules_values, 0, NULL, "core_attn",
     "A19: what recompute: selective recomputes, as Megatron-Core's --recompute-modules: "
     "core_attn (the attention core only), or layernorm mla_up_proj moe_act (every RMSNorm, "
     "the MLA up-projections and the experts' SwiGLU; DeepSeek-V3), attention: mla only"},
    {"cached_input_bytes", PE_FT_NUMBER, PE_RANGE_ELEMENT_BYTES, FW(cached_input_bytes), NO,
     NULL, 0, NULL, "2",
     "A19: bytes per element of a linear's or SwiGLU's input kept for backward (1: FP8), "
     "with recompute_modules layernorm mla_up_proj moe_act"},
    {"attention_output_bytes", PE_FT_NUMBER, PE_RANGE_ELEMENT_BYTES, FW(attention_output_bytes),
     NO, NULL, 0, NULL, "2",
     "A19: bytes per element of the attention output kept for backward (1.5: E5M6), with "
     "recompute_modules layernorm mla_up_proj moe_act"},
    {"cp_ring_buffers", PE_FT_ENUM, PE_RANGE_NONE, FW(cp_ring_buffers), NO, cp_ring_values, 0,
     NULL, "none",
     "A20: with cp > 1, the KV shards and fp32 gradient buffers PyTorch's ring attention holds "
     "in one layer's attention: allgather (all cp KV shards, torchtitan's default "
     "context_parallel_rotate_method), alltoall (two) or none (not modelled), with "
     "memory_by_phase"},
    /* text only, read by input/load.c: printed by run and in the facts */
    {"flags", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, "none",
     "what the preset stands for: the framework's flags or settings as its users run it"},
    {"eager_elementwise", PE_FT_BOOL, PE_RANGE_NONE, FW(eager_elementwise), NO, NULL, 0, NULL,
     "false",
     "F28: the model's element-wise ops run eagerly, one kernel each (torchtitan with "
     "training.compile false): RMSNorm, rotary, SwiGLU, residual adds as torchtitan's Llama "
     "code moves them (false: F10's fused byte counts; refined compute only)"},
    {"fused_rmsnorm", PE_FT_BOOL, PE_RANGE_NONE, FW(fused_rmsnorm), NO, NULL, 0, NULL, "false",
     "F28: with eager_elementwise, RMSNorm is torchtitan's fused Triton kernel (model.norm_type "
     "fused_rmsnorm): read and write once, as F10"},
    {"cp_kv_allgather", PE_FT_BOOL, PE_RANGE_NONE, FW(cp_kv_allgather), NO, NULL, 0, NULL,
     "false",
     "X19: with cp > 1, context parallelism all-gathers K and V before attention and "
     "reduce-scatters their gradients, exposed (Llama 3, arXiv:2407.21783 §3.3.2), in place "
     "of X2's ring behind the attention core"},
    {"attention_kernel", PE_FT_ENUM, PE_RANGE_NONE, FW(attention_kernel), NO,
     attention_kernel_values, 0, NULL, "none",
     "F30: the attention kernel the stack runs (flash-attention-2, flash-attention-3, cudnn): "
     "F22's e_att and s_half from the GPU's measured numbers of that kernel "
     "(attention_fa2_efficiency, ...), the GPU's own where it has none (none: the GPU's)"},
    {"comm_sms", PE_FT_INT, PE_RANGE_NONNEG, FW(comm_sms), NO, NULL, 0, NULL, "0",
     "F32 c: SMs the expert-parallel all-to-all kernels hold while overlap.ep hides them "
     "behind an MoE layer's compute, which then runs on the other S − c (DeepSeek-V3: 20 of "
     "the H800's 132); needs cluster.gpu.sm_count; refined compute only (0: none held)"},
    {"tied_embedding_allreduce", PE_FT_BOOL, PE_RANGE_NONE, FW(tied_embedding_allreduce), NO,
     NULL, 0, NULL, "false",
     "X18: with model.tied_embeddings and pp > 1, the first and last stage all-reduce the "
     "embedding's gradient (grad_bytes per element) after the last backward, exposed "
     "(DeepSpeed's pipeline ReduceTiedGrads), in dp_comm_s"},
    {"cpu_offloading", PE_FT_BOOL, PE_RANGE_NONE, FW(cpu_offloading), NO, NULL, 0, NULL, "false",
     "A23: Megatron-Core's activation offload (TransformerConfig cpu_offloading, Transformer "
     "Engine's CPU offload): the first cpu_offloading_num_layers layers' activations go to "
     "host memory; on plans Megatron-Core accepts (pp 1, recompute none, dense layers)"},
    {"cpu_offloading_num_layers", PE_FT_INT, PE_RANGE_NONNEG, FW(cpu_offloading_num_layers), NO,
     NULL, 0, NULL, "0",
     "A23: N, the layers whose activations cpu_offloading moves to the host (Megatron-Core "
     "cpu_offloading_num_layers; below model.layers)"},
    {"tp_fp8_all_gather", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_fp8_all_gather), NO, NULL, 0, NULL,
     "false",
     "X22: with compute fp8 and fp8_recipe tensorwise, sequence parallelism and "
     "tp_micro_pipeline, every TP all-gather carries float8, 1 byte an element (torchao's "
     "Float8ColwiseParallel, Float8RowwiseParallel, PrepareFloat8ModuleInput in torchtitan); "
     "the reduce-scatters stay bf16"},
    {"moe_dispatch_saved", PE_FT_BOOL, PE_RANGE_NONE, FW(moe_dispatch_saved), NO, NULL, 0, NULL,
     "false",
     "A25: each MoE layer keeps, per micro-batch in flight, what Megatron-Core's all-to-all "
     "token dispatcher saves for backward beyond A9-A12: the permutation's int64 indices "
     "(sorted_indices, flat_sorted) and the fp32 permuted probs, 20 bytes a token copy"},
    {"pp_recv_grad", PE_FT_BOOL, PE_RANGE_NONE, FW(pp_recv_grad), NO, NULL, 0, NULL, "false",
     "A24: with memory_by_phase and pp > 1, the backward phase also holds the output gradient "
     "the stage received from the next one, 2·s'·b·h/(sp ? t : 1) bytes (Megatron-Core's "
     "send_forward_recv_backward; not on the last stage of a non-interleaved schedule)"},
    {"attention_causal_work", PE_FT_BOOL, PE_RANGE_NONE, FW(attention_causal_work), NO, NULL, 0,
     NULL, "false",
     "F33: on a GPU with attention_causal_tile, time the causal half a causal kernel computes "
     "(1/(2κ) of F9's count at F22's rate per useful FLOP) instead of F9's whole count; the "
     "FLOP count and mfu stay as counted (refined compute only)"},
    {"nccl_channels", PE_FT_INT, PE_RANGE_NONNEG, FW(nccl_channels), NO, NULL, 0, NULL, "0",
     "A26: with memory_by_phase, the NCCL channels of each communicator (NCCL_DEBUG=INFO prints "
     "them): NCCL's protocol buffers, 10 MiB a channel and connection pair, for the tp, cp, dp "
     "and ep groups and the pipeline's peers, in mem_total_gib, not in mem_reserved_gib "
     "(outside the caching allocator); 0: none counted"},
    {"tp_seq_dim_copy", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_seq_dim_copy), NO, NULL, 0, NULL, "false",
     "X28: with sequence parallelism and t > 1, every TP all-gather and reduce-scatter that "
     "async TP does not fuse also copies its gathered tensor once (read and write at W·η_W): "
     "DTensor's Shard(1) collectives on a [batch, sequence, hidden] layout chunk and cat "
     "around the dim-0 collective (torch distributed/_functional_collectives.py); in tp_comm_s"},
    {"dp_grad_collective", PE_FT_ENUM, PE_RANGE_NONE, FW(dp_grad_collective), NO,
     dp_grad_collective_values, 0, NULL, "reduce_scatter",
     "X25: at zero 1, the gradients are reduced by a reduce-scatter (X4) or by an all-reduce "
     "of the whole gradient, twice its time (DeepSpeed's BF16_Optimizer under its pipeline "
     "engine: _bf16_reduce_grads); other stages unchanged"},
    {"dp_grad_comm_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(dp_grad_comm_bytes), NO, NULL, 0,
     NULL, "0",
     "X26: bytes per element the data-parallel gradient collective carries, when the stack "
     "casts the accumulated gradients for it (DeepSpeed's communication_data_type: 2, bf16, "
     "for fp32-accumulated bf16 runs of 2022); 0: precision.grad_bytes"},
    {"dp_grad_window", PE_FT_ENUM, PE_RANGE_NONE, FW(dp_grad_window), NO, dp_grad_window_values,
     0, NULL, "backward",
     "X27: at zero 2, each micro-batch's gradient reduce-scatter hides behind that "
     "micro-batch's backward (X4) or, reduced asynchronously, behind its forward and backward "
     "(microbatch; Llama 3, arXiv:2407.21783 §3.3.2)"},
    {"cp_ring_per_step", PE_FT_BOOL, PE_RANGE_NONE, FW(cp_ring_per_step), NO, NULL, 0, NULL,
     "false",
     "X23: with cp > 1, each of the CP ring's K/V transfers hides behind one ring step's "
     "attention, τ_att/c (backward: K/V and their gradients behind 2·τ_att/c), as Transformer "
     "Engine's AttnFuncWithCPAndKVP2P runs the ring, instead of X2's whole ring behind the "
     "whole attention core"},
    {"cp_ring_net_channels", PE_FT_INT, PE_RANGE_NONNEG, FW(cp_ring_net_channels), NO, NULL, 0,
     NULL, "0",
     "X33 c: the channels, one SM each, NCCL gives each peer of a point-to-point ring that "
     "reaches a peer over the network (NCCL's NCHANNELS_PER_NET_PEER, 2); on a CP group that "
     "spans nodes the compute beside the ring's hidden transfers runs on S − c of "
     "cluster.gpu.sm_count, c/S of them charged in place of X15's s/(1 + s) (0, or no "
     "sm_count: X15's)"},
    {"dp_chunk_sync", PE_FT_BOOL, PE_RANGE_NONE, FW(dp_chunk_sync), NO, NULL, 0, NULL, "false",
     "X30: with the interleaved schedule (v > 1) and zero 0 or 1, each model chunk's gradient "
     "collective starts after its last micro-batch's backward and each chunk's weight "
     "all-gather before its first forward (Megatron-Core's interleaved schedule), so X4's "
     "collectives hide T/v at a time behind the chunks still to run, not all of T behind one "
     "micro-batch"},
    {"pp_overlap_interleaved_only", PE_FT_BOOL, PE_RANGE_NONE, FW(pp_overlap_interleaved_only), NO,
     NULL, 0, NULL, "false",
     "X34: overlap.pp hides the pipeline sends only with the interleaved schedule (v > 1); "
     "with 1F1B (v = 1) they are blocking, X3 at overlap.pp 0 (Megatron-Core's "
     "non-interleaved schedule refuses overlap_p2p_comm; Megatron-Bridge and NeMo set it only "
     "when vp > 1)"},
    {"tp_grad_sum_unfused", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_grad_sum_unfused), NO, NULL, 0,
     NULL, "false",
     "X24, X29: with tp_micro_pipeline and async TP (overlap.tp > 0), the backward's "
     "reduce-scatters whose input is a sum of matmuls (the input gradient of separate wq, wk, "
     "wv, and of SwiGLU's w1, w3) are not fused with a matmul (torch micro_pipeline_tp.py "
     "fuses only a reduce-scatter whose input one matmul produces): exposed whole, with "
     "tp_seq_dim_copy's copy beside each"},
    {"tp_fused_rs_reduce", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_fused_rs_reduce), NO, NULL, 0, NULL,
     "false",
     "F34: with tp_micro_pipeline and async TP (overlap.tp > 0), each fused matmul → "
     "reduce-scatter sums the t partial outputs it received in one more kernel after the "
     "pipeline (torch _symmetric_memory's _fused_matmul_reduce_scatter_impl: torch.sum over "
     "stacked_partials), reading S_tp and writing S_tp/t at W·η_W, exposed; in tp_comm_s"},
    {"tp_ag_shard_stage", PE_FT_BOOL, PE_RANGE_NONE, FW(tp_ag_shard_stage), NO, NULL, 0, NULL,
     "false",
     "X32: with tp_micro_pipeline and async TP (overlap.tp > 0), each fused all-gather → "
     "matmul first copies the rank's own shard into its symmetric-memory buffer and waits at "
     "a barrier before the first chunk (torch _symmetric_memory's "
     "_pipelined_multi_all_gather_and_consume: the copy is not overlapped), reading and "
     "writing S/t at W·η_W, exposed; in tp_comm_s"},
    {"fp8_cast_by_role", PE_FT_BOOL, PE_RANGE_NONE, FW(fp8_cast_by_role), NO, NULL, 0, NULL,
     "false",
     "F35, F36: with compute fp8 and fp8_recipe tensorwise or rowwise (refined compute), "
     "F24's casts counted GEMM role by GEMM role as torchao's Float8Linear makes them (the "
     "input once forward; backward the output gradient for dgrad and wgrad and the saved "
     "bf16 input again for wgrad) instead of backward = 2 x forward, and TP-gathered tensors "
     "cast whole unless X22 casts them before the all-gather"},
    {"fp8_kernel_rate", PE_FT_BOOL, PE_RANGE_NONE, FW(fp8_kernel_rate), NO, NULL, 0, NULL,
     "false",
     "F42: with compute fp8 (refined compute), the FP8 GEMMs at the GPU's measured tensorwise "
     "kernel rate fp8_kernel_gemm_efficiency (where the GPU gives one) instead of "
     "fp8_gemm_efficiency, fitted on runs whose casts it holds: for a stack that counts its "
     "casts apart (fp8_cast_by_role)"},
    {"op_sac_recompute_elementwise", PE_FT_BOOL, PE_RANGE_NONE, FW(op_sac_recompute_elementwise),
     NO, NULL, 0, NULL, "false",
     "F39: with selective_recompute op and recompute selective (refined compute, dense "
     "layers), backward also re-runs the forward's element-wise ops outside the attention "
     "core and the FP8 input casts (torchtitan's _custom_policy saves only _save_list's ops: "
     "mm, SDPA, reduce_scatter, max), at F10/F28's bytes; false: F25's recomputed matmuls "
     "only"},
    {"cp_ring_load_balance", PE_FT_BOOL, PE_RANGE_NONE, FW(cp_ring_load_balance), NO, NULL, 0,
     NULL, "false",
     "X31: with cp > 1 (refined compute), the attention core as PyTorch's load-balanced ring "
     "attention runs it (torch distributed/tensor/experimental/_attention.py "
     "_templated_ring_attention, enable_load_balance): one causal s'×s' kernel (F33's work) "
     "and c − 1 non-causal half blocks of s'²/2 each, keys per query s'/2, plus the ring's "
     "eager fp32 merge and gradient-accumulation passes at W·η_W"},
    {"ddp_grad_buckets", PE_FT_BOOL, PE_RANGE_NONE, FW(ddp_grad_buckets), NO, NULL, 0, NULL,
     "false",
     "M19: with memory_by_phase, zero 0 and more than one data-parallel rank, PyTorch DDP's "
     "reducer holds its buckets as a flat copy of every trained gradient "
     "(gradient_as_bucket_view False, DDP's default), grad_bytes each, in every phase"},
    {"unsharded_grad_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(unsharded_grad_bytes), NO, NULL, 0,
     NULL, "0",
     "M22: with memory_by_phase and zero 3, bytes a parameter of the gathered unit's unsharded "
     "gradient in the backward working set (FSDP1 with MixedPrecision(param_dtype=bfloat16) "
     "computes it in bf16, 2, and upcasts only the sharded gradient); 0: grad_bytes"},
    /* DeepSpeed's zero_optimization keys, spelled and defaulted as its
     * deepspeed/runtime/zero/config.py (v0.16.4); "auto" as Hugging Face's
     * Trainer resolves it (transformers integrations/deepspeed.py) */
    {"deepspeed_zero", PE_FT_BOOL, PE_RANGE_NONE, FW(deepspeed_zero), NO, NULL, 0, NULL, "false",
     "A28, A29, M18: with memory_by_phase, the buffers DeepSpeed's ZeRO optimizer allocates "
     "(reduce buckets, ZeRO-3's gathered and persistent parameters, the fp32 gradient "
     "partition of the step), sized by the keys below"},
    {"reduce_bucket_size", PE_FT_NUMBER, PE_RANGE_NONNEG, FW(reduce_bucket_size), NO, NULL,
     PE_F_AUTO, NULL, "5e8",
     "A28: elements of one gradient reduce (ipg) bucket, in the 16-bit dtype; auto: hidden² "
     "(Hugging Face's Trainer)"},
    {"contiguous_gradients", PE_FT_BOOL, PE_RANGE_NONE, FW(contiguous_gradients), NO, NULL, 0,
     NULL, "true", "A28: gradients are copied into the reduce buckets (allocated); false: none"},
    {"overlap_comm", PE_FT_ENUM, PE_RANGE_NONE, FW(overlap_comm), NO, ds_overlap_values,
     PE_F_AUTO, NULL, "auto",
     "A28: at zero 1-2, two reduce buckets (double buffering) instead of one; auto: "
     "DeepSpeed's default, true at zero 3 only"},
    {"stage3_prefetch_bucket_size", PE_FT_NUMBER, PE_RANGE_NONNEG,
     FW(stage3_prefetch_bucket_size), NO, NULL, PE_F_AUTO, NULL, "5e7",
     "A29: zero 3, elements of parameters all-gathered ahead of use; auto: 0.9·hidden²"},
    {"stage3_max_live_parameters", PE_FT_NUMBER, PE_RANGE_NONNEG,
     FW(stage3_max_live_parameters), NO, NULL, 0, NULL, "1e9",
     "A29: zero 3, elements of gathered parameters past which nothing more is prefetched"},
    {"stage3_max_reuse_distance", PE_FT_NUMBER, PE_RANGE_NONNEG, FW(stage3_max_reuse_distance),
     NO, NULL, 0, NULL, "1e9",
     "A29: zero 3, a parameter reused within this many elements is not released (at the turn "
     "from forward to backward)"},
    {"stage3_param_persistence_threshold", PE_FT_NUMBER, PE_RANGE_NONNEG,
     FW(stage3_param_persistence_threshold), NO, NULL, PE_F_AUTO, NULL, "1e5",
     "A29: zero 3, parameters of at most this many elements stay gathered all step (norms, "
     "biases); auto: 10·hidden"},
    {"sub_group_size", PE_FT_NUMBER, PE_RANGE_NONNEG, FW(sub_group_size), NO, NULL, PE_F_LOADER,
     NULL, "1e9",
     "M18: zero 3, elements of one optimizer sub-group, whose fp32 gradient the step makes at "
     "a time"},
    {"offload_copy_bytes", PE_FT_NUMBER, PE_RANGE_BYTES, FW(offload_copy_bytes), NO, NULL, 0, NULL,
     "0", "X35: with offload_optimizer, bytes per parameter each host copy of the optimizer step "
     "moves, gradients down and parameters up (DeepSpeed: 4, the fp32 copies it casts on the "
     "GPU); 0: X12's β_g and β_w"},
};
#undef FW
const pe_fieldset pe_fields_framework = {"framework",
                                         "what the training framework does (docs/model.md §12)",
                                         framework_fields, N_OF(framework_fields)};

/* ------------------------------------------------------------ whole run (docs/model.md §15) */
#define FA(f) offsetof(pe_failures, f)
static const pe_field failures_fields[] = {
    {"interruptions_per_gpu_day", PE_FT_NUMBER, PE_RANGE_FAILURE_RATE,
     FA(interruptions_per_gpu_day), NO, NULL, 0, NULL, "0.000473588",
     "R6 λ: unexpected job interruptions per GPU per day (default: Llama 3 405B's 419 in 54 "
     "days on 16,384 H100s, arXiv:2407.21783 §3.3.4)"},
    {"restart_minutes", PE_FT_NUMBER, PE_RANGE_BUDGET, FA(restart_minutes), NO, NULL,
     PE_F_REQUIRED, NULL, NULL,
     "R8 R: minutes from an interruption to training again (detect, reschedule, load)"},
};
#undef FA
const pe_fieldset pe_fields_failures = {
    "failures", "job interruptions (docs/model.md §15; needs checkpointing)", failures_fields,
    N_OF(failures_fields)};

#define CK(f) offsetof(pe_checkpointing, f)
static const pe_field checkpointing_fields[] = {
    {"write_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, CK(write_gb_s), NO, NULL, PE_F_REQUIRED, NULL,
     NULL, "R5 W_s: the storage's aggregate write bandwidth, GB/s"},
    {"save", PE_FT_ENUM, PE_RANGE_NONE, CK(save), NO, save_values, 0, NULL, "sync",
     "R5 sync: training waits for the write; async: only for the copy to host memory (needs "
     "cluster.gpu.host_link_gb_s)"},
    {"interval_minutes", PE_FT_NUMBER, PE_RANGE_BUDGET, CK(interval_minutes),
     CK(has_interval_minutes), NULL, 0, NULL, "Daly's optimum",
     "R7 τ: minutes of training between checkpoints; not given: Daly's optimum (computed by "
     "the model)"},
};
#undef CK
const pe_fieldset pe_fields_checkpointing = {
    "checkpointing", "how the run saves its state (docs/model.md §15; needs failures)",
    checkpointing_fields, N_OF(checkpointing_fields)};

/* ------------------------------------------------------------ plans, sweep */
#define PL(f) offsetof(pe_plan, f)
static const pe_field plan_fields[] = {
    {"name", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, "the canonical text",
     "unique among explicit plans"},
    {"dp", PE_FT_INT, PE_RANGE_WHOLE, PL(dp), NO, NULL, PE_F_REQUIRED | PE_F_AUTO, NULL, NULL,
     "data parallel degree, or auto = N/(tp*pp*cp)"},
    {"tp", PE_FT_INT, PE_RANGE_WHOLE, PL(tp), NO, NULL, 0, NULL, "1", "tensor parallel degree"},
    {"pp", PE_FT_INT, PE_RANGE_WHOLE, PL(pp), NO, NULL, 0, NULL, "1",
     "pipeline parallel degree"},
    {"cp", PE_FT_INT, PE_RANGE_WHOLE, PL(cp), NO, NULL, 0, NULL, "1",
     "context parallel degree"},
    {"zero", PE_FT_INT, PE_RANGE_ZERO, PL(zero), NO, NULL, 0, NULL, "0", "ZeRO stage 0..3"},
    {"recompute", PE_FT_ENUM, PE_RANGE_NONE, PL(recompute), NO, recompute_values, 0, NULL,
     "none", "activation recomputation"},
    {"micro_batch", PE_FT_INT, PE_RANGE_WHOLE, PL(micro_batch), NO, NULL, 0, NULL, "1",
     "b, sequences per micro-batch"},
    {"schedule", PE_FT_ENUM, PE_RANGE_NONE, PL(schedule), NO, schedule_values, 0, NULL, "1f1b",
     "pipeline schedule"},
    {"virtual_stages", PE_FT_INT, PE_RANGE_WHOLE, PL(virtual_stages), NO, NULL, 0, NULL, "1",
     "v, model chunks per pipeline rank (interleaved)"},
    {"sequence_parallel", PE_FT_BOOL, PE_RANGE_NONE, PL(sequence_parallel), NO, NULL, 0, NULL,
     "tp > 1",
     "Megatron sequence parallelism (forced false when tp = 1); not given: tp > 1 (computed by "
     "the loader)"},
    {"overlap", PE_FT_MAP, PE_RANGE_NONE, PL(overlap), NO, NULL, 0, &pe_fields_overlap,
     "the scenario's", "merged key by key over the scenario's overlap"},
    /* expert parallelism, uneven pipeline stages, optimizer offload */
    {"ep", PE_FT_INT, PE_RANGE_WHOLE, PL(ep), NO, NULL, 0, NULL, "1",
     "expert-parallel degree (MoE models)"},
    {"etp", PE_FT_INT, PE_RANGE_WHOLE, PL(etp), NO, NULL, 0, NULL, "tp",
     "expert tensor-parallel degree (MoE models); not given: tp (computed once tp is known)"},
    {"first_stage_layers", PE_FT_INT, PE_RANGE_WHOLE, PL(first_stage_layers), NO, NULL, 0, NULL,
     "an even split", "layers on the first pipeline stage"},
    {"last_stage_layers", PE_FT_INT, PE_RANGE_WHOLE, PL(last_stage_layers), NO, NULL, 0, NULL,
     "an even split", "layers on the last pipeline stage"},
    {"offload_optimizer", PE_FT_BOOL, PE_RANGE_NONE, PL(offload_optimizer), NO, NULL, 0, NULL,
     "false", "optimizer states and master weights in host memory, CPU Adam (ZeRO-Offload)"},
    /* any pipeline layout (V3″): read by input/load.c, a list or Megatron's string */
    {"pipeline_layout", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, "an even split",
     "transformer layers of each virtual stage (p*v of them, chunk r of stage j at r*p + j): a "
     "list of whole numbers, or Megatron-Core's layout string (\"E|t*7|...|t*7L\")"},
};
#undef PL
const pe_fieldset pe_fields_plan = {"plans[]", "one explicit plan", plan_fields,
                                    N_OF(plan_fields)};

#define SW(f) offsetof(pe_sweep, f)
/* sweep.intra_node, sweep.inter_node: the link numbers as design axes (each a
 * list or value of that cluster key, its range; offsets into pe_sweep) */
static const pe_field sweep_intra_node_fields[] = {
    {"bandwidth_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, SW(intra_bandwidth_gb_s), NO, NULL, 0, NULL,
     "cluster.intra_node.bandwidth_gb_s", "list or value (topology: switch)"},
    {"link_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, SW(intra_link_gb_s), NO, NULL, 0, NULL,
     "cluster.intra_node.link_gb_s", "list or value (topology: full_mesh)"},
    {"latency_us", PE_FT_NUMBER, PE_RANGE_AMOUNT, SW(intra_latency_us), NO, NULL, 0, NULL,
     "cluster.intra_node.latency_us", "list or value"},
};
static const pe_fieldset sweep_intra_node_set = {
    "sweep.intra_node", "the link numbers inside a node swept (replacing the cluster's)",
    sweep_intra_node_fields, N_OF(sweep_intra_node_fields)};
static const pe_field sweep_inter_node_fields[] = {
    {"nic_gb_s", PE_FT_NUMBER, PE_RANGE_RATE, SW(inter_nic_gb_s), NO, NULL, 0, NULL,
     "cluster.inter_node.nic_gb_s", "list or value"},
    {"latency_us", PE_FT_NUMBER, PE_RANGE_AMOUNT, SW(inter_latency_us), NO, NULL, 0, NULL,
     "cluster.inter_node.latency_us", "list or value"},
};
static const pe_fieldset sweep_inter_node_set = {
    "sweep.inter_node", "the link numbers between nodes swept (replacing the cluster's)",
    sweep_inter_node_fields, N_OF(sweep_inter_node_fields)};
static const pe_field sweep_overlap_fields[] = {
    {"tp", PE_FT_NUMBER, PE_RANGE_UNIT, SW(overlap_tp), NO, NULL, 0, NULL, "overlap.tp",
     "list or value"},
    {"cp", PE_FT_NUMBER, PE_RANGE_UNIT, SW(overlap_cp), NO, NULL, 0, NULL, "overlap.cp",
     "list or value"},
    {"dp", PE_FT_NUMBER, PE_RANGE_UNIT, SW(overlap_dp), NO, NULL, 0, NULL, "overlap.dp",
     "list or value"},
    {"pp", PE_FT_NUMBER, PE_RANGE_UNIT, SW(overlap_pp), NO, NULL, 0, NULL, "overlap.pp",
     "list or value"},
    {"ep", PE_FT_NUMBER, PE_RANGE_UNIT, SW(overlap_ep), NO, NULL, 0, NULL, "overlap.ep",
     "list or value"},
};
static const pe_fieldset sweep_overlap_set = {
    "sweep.overlap", "the overlap fractions swept (replacing the scenario's and the framework's)",
    sweep_overlap_fields, N_OF(sweep_overlap_fields)};
static const pe_field sweep_fields[] = {
    {"tp", PE_FT_INT, PE_RANGE_WHOLE, SW(tp), NO, NULL, PE_F_AUTO, NULL, "1",
     "list, value or auto"},
    {"pp", PE_FT_INT, PE_RANGE_WHOLE, SW(pp), NO, NULL, PE_F_AUTO, NULL, "1",
     "list, value or auto"},
    {"cp", PE_FT_INT, PE_RANGE_WHOLE, SW(cp), NO, NULL, PE_F_AUTO, NULL, "1",
     "list, value or auto"},
    {"dp", PE_FT_INT, PE_RANGE_WHOLE, SW(dp), NO, NULL, PE_F_REQUIRED | PE_F_AUTO, NULL, NULL,
     "list, value or auto (N/(tp*pp*cp), skipped when not whole)"},
    {"zero", PE_FT_INT, PE_RANGE_ZERO, SW(zero), NO, NULL, 0, NULL, "0", "list or value"},
    {"recompute", PE_FT_ENUM, PE_RANGE_NONE, SW(recompute), NO, recompute_values, 0, NULL,
     "none", "list or value"},
    {"micro_batch", PE_FT_INT, PE_RANGE_WHOLE, SW(micro_batch), NO, NULL, PE_F_AUTO, NULL, "1",
     "list, value or auto"},
    {"schedule", PE_FT_ENUM, PE_RANGE_NONE, SW(schedule), NO, schedule_values, 0, NULL, "1f1b",
     "list or value"},
    {"virtual_stages", PE_FT_INT, PE_RANGE_WHOLE, SW(virtual_stages), NO, NULL, PE_F_AUTO, NULL,
     "1", "list, value or auto (interleaved only)"},
    {"sequence_parallel", PE_FT_BOOL, PE_RANGE_NONE, SW(sequence_parallel), NO, NULL, 0, NULL,
     "tp > 1", "list or value (applies when tp > 1)"},
    /* expert parallelism, uneven pipeline stages, optimizer offload */
    {"ep", PE_FT_INT, PE_RANGE_WHOLE, SW(ep), NO, NULL, PE_F_AUTO, NULL, "1",
     "list, value or auto (divisors of experts that fit the grid)"},
    {"etp", PE_FT_INT, PE_RANGE_WHOLE, SW(etp), NO, NULL, 0, NULL, "tp", "list or value"},
    {"first_stage_layers", PE_FT_INT, PE_RANGE_WHOLE, SW(first_stage_layers), NO, NULL, 0,
     NULL, "an even split", "list or value"},
    {"last_stage_layers", PE_FT_INT, PE_RANGE_WHOLE, SW(last_stage_layers), NO, NULL, 0, NULL,
     "an even split", "list or value"},
    {"offload_optimizer", PE_FT_BOOL, PE_RANGE_NONE, SW(offload_optimizer), NO, NULL, 0, NULL,
     "false", "list or value"},
    /* the design: scenario-level keys swept (each in one place: here or its own key) */
    {"nodes", PE_FT_INT, PE_RANGE_WHOLE, SW(nodes), NO, NULL, 0, NULL, "cluster.nodes",
     "list or value of cluster.nodes (then not given there)"},
    {"gpus", PE_FT_INT, PE_RANGE_WHOLE, SW(gpus), NO, NULL, 0, NULL, "cluster.nodes",
     "list or value of the GPUs in all (each a multiple of gpus_per_node), instead of nodes"},
    {"global_batch", PE_FT_INT, PE_RANGE_WHOLE, SW(global_batch), NO, NULL, 0, NULL,
     "training.global_batch", "list or value of training.global_batch (then not given there)"},
    {"seq_len", PE_FT_INT, PE_RANGE_WHOLE, SW(seq_len), NO, NULL, 0, NULL, "model.seq_len",
     "list or value of model.seq_len (then not given in model:; a preset's is replaced)"},
    {"cluster", PE_FT_PRESET, PE_RANGE_NONE, SW(cluster), NO, NULL, 0, NULL, "cluster.preset",
     "list or value of catalog cluster presets, each loaded as cluster: with that preset (then "
     "no cluster.preset; the cluster: block, optional, gives what is common); an item may be "
     "a mapping {preset: NAME, cluster keys...} of that type's own keys"},
    {"framework", PE_FT_PRESET, PE_RANGE_NONE, SW(framework), NO, NULL, 0, NULL, "framework",
     "list or value of catalog framework presets, each as framework: NAME (then no framework: "
     "key); its overlap defaults, then the scenario's overlap:"},
    {"intra_node", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &sweep_intra_node_set,
     "cluster.intra_node", "link numbers inside a node as design axes: bandwidth_gb_s, "
     "link_gb_s, latency_us, each a list or value (then not given in cluster.intra_node)"},
    {"inter_node", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &sweep_inter_node_set,
     "cluster.inter_node", "link numbers between nodes as design axes: nic_gb_s, latency_us, "
     "each a list or value (then not given in cluster.inter_node)"},
    {"overlap", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &sweep_overlap_set, "overlap",
     "the overlap switches as design axes: tp, cp, dp, pp, ep, each a list or value of "
     "fractions (then not given in overlap:; a framework's default is replaced)"},
};
#undef SW
const pe_fieldset pe_fields_sweep = {"sweep", "the cross product of these values",
                                     sweep_fields, N_OF(sweep_fields)};

/* ------------------------------------------------------------ expect */
static const pe_field expect_fields[] = {
    {"best_plan", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "NAME or CANONICAL: the rank-1 plan"},
    {"plan", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "NAME or CANONICAL, with report columns as further keys"},
};
const pe_fieldset pe_fields_expect = {
    "expect[]", "an assertion; besides these keys, any report column except plan and scenario",
    expect_fields, N_OF(expect_fields)};

static const pe_field tolerance_fields[] = {
    {"value", PE_FT_NUMBER, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "expected value"},
    {"rel_tol", PE_FT_NUMBER, PE_RANGE_NONNEG, NO, NO, NULL, 0, NULL, NULL,
     "relative tolerance"},
    {"abs_tol", PE_FT_NUMBER, PE_RANGE_NONNEG, NO, NO, NULL, 0, NULL, NULL,
     "absolute tolerance"},
};
const pe_fieldset pe_fields_tolerance = {"expect[].COLUMN",
                                         "{value} exact, or with rel_tol or abs_tol (not both)",
                                         tolerance_fields, N_OF(tolerance_fields)};

/* ------------------------------------------------------------ questions (grading key) */
static const char *const ask_values[] = {"column",      "fits",      "comm_bound",
                                         "min_intervention", "best_plan", "chosen_plan",
                                         NULL};
#define Q(f) offsetof(pe_question, f)
static const pe_field question_fields[] = {
    {"id", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "[a-z0-9._-]+, unique; submissions answer by this id"},
    {"ask", PE_FT_ENUM, PE_RANGE_NONE, Q(ask), NO, ask_values, PE_F_REQUIRED, NULL, NULL,
     "column (a number of a plan), fits or comm_bound (yes/no of a plan), min_intervention, "
     "best_plan or chosen_plan (a plan)"},
    {"plan", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "column, fits, comm_bound: the plan asked about (a name or canonical text)"},
    {"column", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, 0, NULL, NULL,
     "column: the numeric report column asked for (e.g. mem_total_gib)"},
    {"points", PE_FT_NUMBER, PE_RANGE_POINTS, Q(points), NO, NULL, 0, NULL, "1",
     "points for a right answer"},
    {"rel_tol", PE_FT_NUMBER, PE_RANGE_NONNEG, NO, NO, NULL, 0, NULL,
     TEXT_OF(PE_REL_TOL_COLUMN) " (column), " TEXT_OF(PE_REL_TOL_CHOSEN_PLAN)
     " (chosen_plan), " TEXT_OF(PE_REL_TOL_BEST_PLAN) " (best_plan)",
     "relative tolerance: of the number (column), of the best plan's step time for full "
     "points (chosen_plan), of the rank keys (best_plan)"},
    {"abs_tol", PE_FT_NUMBER, PE_RANGE_NONNEG, NO, NO, NULL, 0, NULL, NULL,
     "absolute tolerance instead of rel_tol (column only)"},
};
#undef Q
const pe_fieldset pe_fields_question = {
    "questions[]", "one question of the grading key (planeval grade)", question_fields,
    N_OF(question_fields)};

/* ------------------------------------------------------------ submission (planeval grade) */
static const pe_field submission_fields[] = {
    {"student", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "the student's id (text or a whole number)"},
    {"drill", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "the name of the drill scenario answered"},
    {"answers", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "question id -> a number, true/false, or a plan (canonical text, plan name or a "
     "mapping of plan keys)"},
};
const pe_fieldset pe_fields_submission = {"", "a submission graded by planeval grade",
                                          submission_fields, N_OF(submission_fields)};

/* ------------------------------------------------------------ top level */
#define S(f) offsetof(pe_scenario, f)
static const pe_field scenario_fields[] = {
    {"schema", PE_FT_TEXT, PE_RANGE_NONE, NO, NO, NULL, PE_F_REQUIRED, NULL, NULL,
     "the version tag, exactly planeval/v1"},
    {"name", PE_FT_TEXT, PE_RANGE_NONE, S(name), NO, NULL, 0, NULL, "the file's stem",
     "[a-z0-9._-]+, not only dots; names the report file; not given: the file's stem (computed by the "
     "loader)"},
    {"description", PE_FT_TEXT, PE_RANGE_NONE, S(description), NO, NULL, 0, NULL, NULL,
     "free text"},
    {"model", PE_FT_MAP, PE_RANGE_NONE, S(model), NO, NULL, PE_F_REQUIRED, &pe_fields_model,
     NULL, "the transformer"},
    {"precision", PE_FT_MAP, PE_RANGE_NONE, S(precision), NO, NULL, 0, &pe_fields_precision,
     NULL, "bytes per parameter"},
    {"cluster", PE_FT_MAP, PE_RANGE_NONE, S(cluster), NO, NULL, PE_F_REQUIRED,
     &pe_fields_cluster, NULL, "the machines"},
    {"training", PE_FT_MAP, PE_RANGE_NONE, S(training), NO, NULL, PE_F_REQUIRED,
     &pe_fields_training, NULL, "the run"},
    {"budgets", PE_FT_MAP, PE_RANGE_NONE, S(budgets), NO, NULL, 0, &pe_fields_budgets, NULL,
     "limits (all optional)"},
    {"overlap", PE_FT_MAP, PE_RANGE_NONE, S(overlap), NO, NULL, 0, &pe_fields_overlap, NULL,
     "communication overlap fractions"},
    {"fidelity", PE_FT_ENUM, PE_RANGE_NONE, S(fidelity), NO, fidelity_values, 0, NULL,
     "textbook unless a refinement is named",
     "refined, or textbook: every refinement neutral (the textbook model of docs/model.md); "
     "not given: computed by the loader from the refinements the file names"},
    {"framework", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_framework, NULL,
     "a catalog framework name, or {preset: NAME, ...keys}"},
    {"rank_by", PE_FT_ENUM_LIST, PE_RANGE_NONE, S(rank_by), NO, rank_by_values, 0, NULL,
     "step_time",
     "ranking key, or a list of keys each breaking the ties of the one before (train_days "
     "needs training.tokens)"},
    {"plans", PE_FT_LIST, PE_RANGE_NONE, S(plans), NO, NULL, 0, &pe_fields_plan, NULL,
     "explicit plans"},
    {"sweep", PE_FT_MAP, PE_RANGE_NONE, S(sweep), NO, NULL, 0, &pe_fields_sweep, NULL,
     "the cross product of plan values"},
    {"expect", PE_FT_LIST, PE_RANGE_NONE, S(expects), NO, NULL, 0, &pe_fields_expect, NULL,
     "assertions for planeval check"},
    {"questions", PE_FT_LIST, PE_RANGE_NONE, S(questions), NO, NULL, 0, &pe_fields_question,
     NULL, "the grading key of a drill, for planeval grade"},
    {"failures", PE_FT_MAP, PE_RANGE_NONE, S(failures), NO, NULL, 0, &pe_fields_failures, NULL,
     "job interruptions: goodput and effective_train_days (docs/model.md §15)"},
    {"checkpointing", PE_FT_MAP, PE_RANGE_NONE, S(checkpointing), NO, NULL, 0,
     &pe_fields_checkpointing, NULL, "how the run saves its state (docs/model.md §15)"},
    {"targets", PE_FT_MAP, PE_RANGE_NONE, S(targets), NO, NULL, 0, &pe_fields_targets, NULL,
     "tokens and days, gpu_hours or cost: the smallest cluster that meets them"},
};
#undef S
const pe_fieldset pe_fields_scenario = {"", "a scenario file (schema planeval/v1)",
                                        scenario_fields, N_OF(scenario_fields)};

/* ------------------------------------------------------------ catalog file */
static const pe_field catalog_fields[] = {
    {"models", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_model, NULL,
     "preset name -> keys of model"},
    {"gpus", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_gpu, NULL,
     "preset name -> keys of cluster.gpu"},
    {"clusters", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_cluster, NULL,
     "preset name -> keys of cluster (never nodes; gpu: {preset: NAME} names a GPU)"},
    {"frameworks", PE_FT_MAP, PE_RANGE_NONE, NO, NO, NULL, 0, &pe_fields_framework, NULL,
     "preset name -> keys of framework"},
};
const pe_fieldset pe_fields_catalog = {"", "a catalog file", catalog_fields,
                                       N_OF(catalog_fields)};

const pe_fieldset *const pe_fieldsets[] = {
    &pe_fields_scenario, &pe_fields_model,    &pe_fields_precision, &pe_fields_cluster,
    &pe_fields_gpu,      &pe_fields_intra_node, &pe_fields_inter_node, &pe_fields_training,
    &pe_fields_budgets,  &pe_fields_overlap,  &pe_fields_framework, &pe_fields_plan,      &pe_fields_sweep,
    &pe_fields_expect,   &pe_fields_tolerance, &pe_fields_catalog,  &pe_fields_question,
    &pe_fields_submission, &pe_fields_failures, &pe_fields_checkpointing, &pe_fields_targets, NULL};

const pe_field *fields_find(const pe_fieldset *set, const char *key, size_t len)
{
    for (size_t i = 0; i < set->count; i++) {
        const char *k = set->fields[i].key;
        if (strlen(k) == len && memcmp(k, key, len) == 0)
            return &set->fields[i];
    }
    return NULL;
}

/* The ranges (fields.h): each bound chosen wide of every real machine and
 * model, and narrow enough that no key at a bound makes a figure infinite.
 * The text is the bounds as docs/scenarios.md prints them. */
static const pe_range_bounds range_bounds[PE_RANGE_COUNT_] = {
    [PE_RANGE_NONE] = {-DBL_MAX, DBL_MAX, false, ""},
    [PE_RANGE_WHOLE] = {1, 9007199254740992.0, false, "a whole number >= 1"},
    [PE_RANGE_NONNEG] = {0, INFINITY, false, "a number >= 0"},
    [PE_RANGE_UNIT] = {0, 1, false, "a number in [0, 1]"},
    [PE_RANGE_ZERO] = {0, 3, false, "a whole number from 0 to 3"},
    [PE_RANGE_RATE] = {1e-3, 1e7, false, "a number from 0.001 to 1e7"},
    [PE_RANGE_EFFICIENCY] = {1e-3, 1, false, "a number from 0.001 to 1"},
    [PE_RANGE_EFFICIENCY_OR_ZERO] = {1e-3, 1, true, "0 or a number from 0.001 to 1"},
    [PE_RANGE_ELEMENT_BYTES] = {1e-3, 64, false, "a number from 0.001 to 64"},
    [PE_RANGE_BYTES] = {0, 64, false, "a number from 0 to 64"},
    [PE_RANGE_PASS_BYTES] = {0, 1024, false, "a number from 0 to 1024"},
    [PE_RANGE_GIB] = {1e-3, 1e6, false, "a number from 0.001 to 1e6"},
    [PE_RANGE_AMOUNT] = {0, 1e6, false, "a number from 0 to 1e6"},
    [PE_RANGE_PARAMS] = {1, 1e15, false, "a number from 1 to 1e15"},
    [PE_RANGE_TOKENS] = {1, 1e18, false, "a number from 1 to 1e18"},
    [PE_RANGE_FACTOR] = {1e-3, 1e3, false, "a number from 0.001 to 1000"},
    [PE_RANGE_IMBALANCE] = {1, 1e3, false, "a number from 1 to 1000"},
    [PE_RANGE_BUDGET] = {1e-6, 1e9, false, "a number from 1e-6 to 1e9"},
    [PE_RANGE_POINTS] = {1e-3, 1e6, false, "a number from 0.001 to 1e6"},
    [PE_RANGE_WATTS] = {1, 1e5, false, "a number from 1 to 1e5"},
    [PE_RANGE_PUE] = {1, 10, false, "a number from 1 to 10"},
    [PE_RANGE_FAILURE_RATE] = {1e-9, 1, false, "a number from 1e-9 to 1"},
};

const pe_range_bounds *fields_range_bounds(pe_range r)
{
    return &range_bounds[r < PE_RANGE_COUNT_ ? r : PE_RANGE_NONE];
}

const char *fields_range_text(pe_range r) { return fields_range_bounds(r)->text; }

bool fields_in_range(pe_range r, double v)
{
    const pe_range_bounds *b = fields_range_bounds(r);
    if ((r == PE_RANGE_WHOLE || r == PE_RANGE_ZERO) && v != floor(v))
        return false;
    return (b->zero_too && v == 0) || (v >= b->lo && v <= b->hi);
}

/* Is text all of an integer / a number literal? (A literal default is a
 * plain non-negative decimal: "0", "12", "0.5".) */
static bool read_int(const char *text, int64_t *out)
{
    if (*text < '0' || *text > '9')
        return false;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}

static bool read_number(const char *text, double *out)
{
    if (*text < '0' || *text > '9') /* not strtod's "nan" or "inf" either */
        return false;
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}

static bool read_enum(const char *const *values, const char *text, int64_t *out)
{
    for (int64_t i = 0; values && values[i]; i++)
        if (strcmp(values[i], text) == 0) {
            *out = i;
            return true;
        }
    return false;
}

bool fields_default_value(const pe_field *f, int64_t *ival, double *dval)
{
    const char *t = f->default_text;
    if (!t)
        return false;
    switch (f->type) {
    case PE_FT_INT: return read_int(t, ival);
    case PE_FT_NUMBER: return read_number(t, dval);
    case PE_FT_BOOL:
        *ival = strcmp(t, "true") == 0;
        return *ival || strcmp(t, "false") == 0;
    case PE_FT_ENUM:
    case PE_FT_ENUM_LIST: return read_enum(f->enum_values, t, ival);
    default: return false;
    }
}

/* C enums of scenario.h are stored through an int. */
_Static_assert(sizeof(pe_mlp) == sizeof(int) && sizeof(pe_schedule) == sizeof(int) &&
                   sizeof(pe_topology) == sizeof(int) && sizeof(pe_rank_by) == sizeof(int),
               "enums are int-sized");

void fields_store(void *base, const pe_field *f, int64_t iv, double dv)
{
    char *p = (char *)base + f->offset;
    switch (f->type) {
    case PE_FT_INT: memcpy(p, &iv, sizeof iv); break;
    case PE_FT_NUMBER: memcpy(p, &dv, sizeof dv); break;
    case PE_FT_BOOL: {
        bool b = iv != 0;
        memcpy(p, &b, sizeof b);
        break;
    }
    case PE_FT_ENUM:
    case PE_FT_ENUM_LIST: {
        int e = (int)iv;
        memcpy(p, &e, sizeof e);
        break;
    }
    default: break;
    }
}

static void store_default(void *base, const pe_field *f)
{
    int64_t iv = 0;
    double dv = 0;
    if (f->offset != PE_NO_OFFSET && fields_default_value(f, &iv, &dv))
        fields_store(base, f, iv, dv);
}

void fields_store_defaults(const pe_fieldset *set, void *base)
{
    for (size_t i = 0; i < set->count; i++)
        store_default(base, &set->fields[i]);
}

void fields_reset(const pe_fieldset *set, const char *key, void *base)
{
    const pe_field *f = fields_find(set, key, strlen(key));
    if (!f || f->offset == PE_NO_OFFSET)
        return;
    fields_store(base, f, 0, 0);
    if (f->has_offset != PE_NO_OFFSET) {
        bool no = false;
        memcpy((char *)base + f->has_offset, &no, sizeof no);
    }
    store_default(base, f);
}
