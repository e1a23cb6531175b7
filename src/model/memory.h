/* memory.h — docs/model.md §3, memory per GPU: model state M1–M4, activations
 * A1–A8 with the in-flight table k(stage), total M5. All sizes in bytes.
 *
 * Per-token activation sizes (A1–A3) depend on the model only and are
 * computed once; everything else is inline and runs per plan. */
#ifndef PLANEVAL_MODEL_MEMORY_H
#define PLANEVAL_MODEL_MEMORY_H

#include <stdint.h>

#include "core/scenario.h"

#define PE_GIB 1073741824.0 /* 2^30 */

/* M1 weights β_w·N_gpu / (z ≥ 3 ? D : 1) */
#define PE_TEXT_M1 {"M1", "weights", "β_w·N_gpu / (z ≥ 3 ? D : 1)", "bytes", "ZeRO §5"}
inline double mem_weights(double beta_w, double n_gpu, int64_t zero, double D)
{
    return beta_w * n_gpu / (zero >= 3 ? D : 1.0);
}

/* M2 gradients β_g·N_gpu / (z ≥ 2 ? D : 1) */
#define PE_TEXT_M2 {"M2", "gradients", "β_g·N_gpu / (z ≥ 2 ? D : 1)", "bytes", "ZeRO §5"}
inline double mem_grads(double beta_g, double n_gpu, int64_t zero, double D)
{
    return beta_g * n_gpu / (zero >= 2 ? D : 1.0);
}

/* M3 optimizer β_o·N_gpu / (z ≥ 1 ? D : 1) */
#define PE_TEXT_M3 {"M3", "optimizer", "β_o·N_gpu / (z ≥ 1 ? D : 1)", "bytes", "ZeRO §5"}
inline double mem_optimizer(double beta_o, double n_gpu, int64_t zero, double D)
{
    return beta_o * n_gpu / (zero >= 1 ? D : 1.0);
}

/* M4 ZeRO-3 working set [z = 3]·(2·β_w + β_g)·max(N_layer, V·h)/t */
#define PE_TEXT_M4 \
    {"M4", "ZeRO-3 working set", \
     "[z = 3]·(2·β_w + β_g)·max(N_layer, V·h)/t", \
     "bytes", "ZeRO §5"}
inline double mem_zero3_working(int64_t zero, double beta_w, double beta_g, double n_layer,
                                double vh, double t)
{
    return zero == 3 ? (2.0 * beta_w + beta_g) * (n_layer > vh ? n_layer : vh) / t : 0.0;
}

/* A1 replicated bytes per token: 8h + 2δh */
#define PE_TEXT_A1 \
    {"A1", "rep, replicated bytes per token", \
     "8h + 2δh", \
     "bytes/token", "Korthikanti eq. 1-4"}
double act_rep(const pe_model *m);
/* A2 TP-sharded bytes per token: 4h + 4·g·d + (gelu ? 4f : 6f) */
#define PE_TEXT_A2 \
    {"A2", "par, TP-sharded bytes per token", \
     "4h + 4·g·d + (gelu ? 4f : 6f)", \
     "bytes/token", "Korthikanti eq. 1-4"}
double act_par(const pe_model *m);
/* A2's attention part: 4h + 4·g·d; with head_dim 4·a·d + 4·g·d; MLA
 * 4·a·(d_qk + d_v) (docs/design/moe.md §3) */
double act_par_attention(const pe_model *m);
/* A13 (FP8): bytes per token Transformer Engine keeps in FP8
 * instead of BF16 for the attention-output projection's input: a·d_v
 * (standard h). The replicated QKV and MLP inputs save 2h, the fc2 input f. */
double act_fp8_saving_attention(const pe_model *m);
/* A3 attention-score bytes per token (2 + 3δ)·a·s; 0 for flash attention or
 * selective recompute. Full recompute counts att as recompute none (A5). */
#define PE_TEXT_A3 \
    {"A3", "att, attention-score bytes per token", \
     "(2 + 3δ)·a·s; 0 with flash attention or selective recompute", \
     "bytes/token", "Korthikanti eq. 1-4"}
double act_att(const pe_model *m, pe_recompute recompute);

/* A4 A_layer = s'·b·[(sp ? (rep + par)/t : rep + par/t) + att/t] */
#define PE_TEXT_A4 \
    {"A4", "A_layer, one layer one micro-batch", \
     "s'·b·[(sp ? (rep + par)/t : rep + par/t) + att/t]", \
     "bytes", "Korthikanti eq. 1-4"}
inline double act_layer(double s_local, double b, double t, int sp, double rep, double par,
                        double att)
{
    return s_local * b * ((sp ? (rep + par) / t : rep + par / t) + att / t);
}

/* A5 A_in = 2·s'·b·h / (sp ? t : 1), the one input a layer keeps under full recompute */
#define PE_TEXT_A5 \
    {"A5", "A_in, layer input kept under full recompute", \
     "2·s'·b·h / (sp ? t : 1)", \
     "bytes", "Korthikanti §4.3"}
inline double act_input(double s_local, double b, double h, double t, int sp)
{
    return 2.0 * s_local * b * h / (sp ? t : 1.0);
}

/* k(stage): micro-batches in flight on stage 0 (last = 0) or p−1 (last = 1).
 * Korthikanti §4.2.3, Narayanan §2.2, Megatron's interleaved warm-up, Qi et
 * al. 2023. Interleaved: (p−1)/v is a real division — Megatron's rank r
 * warms up 2(p−r−1) + (v−1)p model chunks and holds one more, i.e.
 * v·p + p − 1 chunks of L/(p·v) layers on rank 0 = p + (p−1)/v stage-sized
 * micro-batches (v·p − p + 1 chunks = p − (p−1)/v on rank p−1), which is also
 * Korthikanti's L·(1 + (p−1)/(p·v)). */
inline double act_inflight(pe_schedule schedule, double p, double m, double v, int last)
{
    if (p == 1.0)
        return 1.0; /* plain gradient accumulation */
    double k;
    switch (schedule) {
    case PE_SCHEDULE_INTERLEAVED:
        k = last ? p - (p - 1.0) / v : p + (p - 1.0) / v;
        break;
    case PE_SCHEDULE_GPIPE:
        return m;
    case PE_SCHEDULE_ZB_H2:
        k = last ? 1.0 : 2.0 * p - 1.0;
        break;
    default: /* 1f1b, zb-h1 */
        k = last ? 1.0 : p;
        break;
    }
    return k < m ? k : m;
}

/* k(j) of any stage j (uneven stages or MoE layers: a middle stage can be
 * the memory-worst): 1f1b, zb-h1 min(p − j, m); interleaved min(p + (p−1−2j)/v, m);
 * gpipe m; zb-h2 min(2(p − j) − 1, m). j = 0 and p − 1 give act_inflight. */
inline double act_inflight_stage(pe_schedule schedule, double p, double m, double v, double j)
{
    if (p == 1.0)
        return 1.0;
    double k;
    switch (schedule) {
    case PE_SCHEDULE_INTERLEAVED: k = p + (p - 1.0 - 2.0 * j) / v; break;
    case PE_SCHEDULE_GPIPE: return m;
    case PE_SCHEDULE_ZB_H2: k = 2.0 * (p - j) - 1.0; break;
    default: k = p - j; break;
    }
    return k < m ? k : m;
}

/* A6″ k(j) of rank j under an interleaved schedule that runs N micro-batches
 * contiguously in each model chunk (framework pp_microbatch_group). Llama 3
 * (arXiv:2407.21783 §3.3.2, Fig. 6) makes N tunable between the depth-first
 * schedule (N = p, Narayanan et al. 2021) and the breadth-first one (N = m);
 * Megatron-Core's get_pp_rank_microbatches (microbatch_group_size_per_vp_stage,
 * default p) warms rank j up with 2(p−1−j) + (v−1)·N model chunks and holds one
 * more, at most all v·m: k = min(2(p−1−j) + (v−1)·N + 1, v·m)/v, written as
 * p + (p−1−2j + (v−1)(N−p))/v so that N = p is A6's interleaved row exactly.
 * N is taken in [p, m] (Megatron refuses N < p: the first backward needs p
 * forwards of a chunk; N > m is breadth-first, m). */
#define PE_TEXT_A6_GROUP \
    {"A6″", "k(j), micro-batches in flight with N contiguous per model chunk", \
     "min(p + (p−1−2j + (v−1)·(N−p))/v, m), N in [p, max(p, m)]", "micro-batches", \
     "Llama 3 §3.3.2 Fig. 6; Megatron-Core schedules.py"}
/* A6″ N as taken: in [p, max(p, m)] (N > m: breadth-first; N < p: depth-first) */
inline double act_group_size(double p, double m, double n_group)
{
    const double n = n_group < m ? n_group : m;
    return n > p ? n : p;
}
inline double act_inflight_grouped(double p, double m, double v, double n_group, double j)
{
    if (p == 1.0)
        return 1.0;
    const double n = act_group_size(p, m, n_group);
    const double k = p + (p - 1.0 - 2.0 * j + (v - 1.0) * (n - p)) / v;
    return k < m ? k : m;
}

/* A21 dualpipe (docs/model.md §12, refined only): DeepSeek-V3 Table 2 holds
 * PP + 1 micro-batches of activations on every rank (1F1B: PP on rank 0);
 * rank j runs stage j for the micro-batches entering at rank 0 and stage
 * p−1−j for those entering at rank p−1, so its activations are k = p + 1
 * micro-batches of the mean of the two stages' (A6 of each, halved; equal
 * stages give (p+1)·A6's per-micro-batch term), at most m. */
#define PE_TEXT_A21 \
    {"A21", "activations on a DualPipe rank", \
     "(A6(j) + A6(p−1−j))/2 with k = min(p + 1, m)", "bytes", \
     "DeepSeek-V3 arXiv:2412.19437 §3.2.1 Table 2"}
inline double act_inflight_dualpipe(double p, double m)
{
    if (p == 1.0)
        return 1.0;
    const double k = p + 1.0;
    return k < m ? k : m;
}

/* M14 dualpipe: rank j holds the parameters of stage j and of stage p−1−j
 * (Table 2's "2×"), and with them their gradients, optimizer shard and FP8
 * copies: the state of both stages (M1–M3, M7) is summed. Assumed: each copy
 * keeps its own optimizer shard over its own data-parallel group, as the
 * report does not say that the two copies share one. */
#define PE_TEXT_M14 \
    {"M14", "state on a DualPipe rank", "M1–M3, M7 of stage j + of stage p−1−j", "bytes", \
     "DeepSeek-V3 arXiv:2412.19437 §3.2.1 Table 2"}

/* A7's k_first: micro-batches in flight in stage 0's first model chunk:
 * k(0), except interleaved min(2p, m) (the first chunk's warm-up runs ahead). */
inline double act_inflight_first_chunk(pe_schedule schedule, double p, double m, double v)
{
    if (p > 1.0 && schedule == PE_SCHEDULE_INTERLEAVED)
        return 2.0 * p < m ? 2.0 * p : m;
    return act_inflight(schedule, p, m, v, 0);
}

/* A8's k_last: micro-batches in flight in the last stage's last chunk:
 * k(p−1), except interleaved 1. */
inline double act_inflight_last_chunk(pe_schedule schedule, double p, double m, double v)
{
    if (p > 1.0 && schedule == PE_SCHEDULE_INTERLEAVED)
        return 1.0;
    return act_inflight(schedule, p, m, v, 1);
}

/* A6 layer activations on a stage: A_layer·(L/p)·k, with full recompute
 * A_in·(L/p)·k + A_layer (one layer being recomputed; A_layer then computed
 * with att as for recompute none). */
#define PE_TEXT_A6 {"A6", "layer activations", "A_layer·(L/p)·k", "bytes", "Korthikanti §4"}
#define PE_TEXT_A6_FULL \
    {"A6:full", "layer activations", \
     "A_in·(L/p)·k + A_layer", \
     "bytes", "Korthikanti §4"}
inline double act_stage(double a_layer, double a_in, double layers_per_stage, double k, int full)
{
    return full ? a_in * layers_per_stage * k + a_layer : a_layer * layers_per_stage * k;
}

/* A7 stage 0: embedding dropout mask δ·s'·b·h/(sp ? t : 1)·k_first */
#define PE_TEXT_A7 \
    {"A7", "embedding dropout mask (stage 0)", \
     "δ·s'·b·h/(sp ? t : 1)·k_first", \
     "bytes", "Korthikanti §4"}
inline double act_embed_mask(double delta, double s_local, double b, double h, double t, int sp,
                             double k_first)
{
    return delta * s_local * b * h / (sp ? t : 1.0) * k_first;
}

/* A8 last stage: (4·s'·b·h/(sp ? t : 1) + 4·s'·b·V/t)·k_last (final norm and
 * output-layer inputs, fp32 logits) */
#define PE_TEXT_A8 \
    {"A8", "output layer inputs and fp32 logits (last stage)", \
     "(4·s'·b·h/(sp ? t : 1) + 4·s'·b·V/t)·k_last", \
     "bytes", "Korthikanti §4"}
inline double act_output(double s_local, double b, double h, double V, double t, int sp,
                         double k_last)
{
    return (4.0 * s_local * b * h / (sp ? t : 1.0) + 4.0 * s_local * b * V / t) * k_last;
}

/* A11 routed token copies per GPU and micro-batch:
 * b·s'·k·ρ/t·(etp·β_in·h + c_e·f_e), β_in = 2 (1 with FP8) and
 * c_e = gelu ? 4 : 6, less 1 with FP8 (A13 keeps the fc2 input in FP8):
 * the text names both, so it holds for either precision (docs/design/moe.md §2) */
#define PE_TEXT_A11 \
    {"A11", "routed token copies per layer", \
     "b·s'·k·ρ/t·(etp·β_in·h + c_e·f_e)", \
     "bytes", "design §2"}
inline double act_moe_routed(double b, double s_local, double k, double rho, double t,
                             double etp, double beta_in, double h, double inner)
{
    return b * s_local * k * rho / t * (etp * beta_in * h + inner);
}

/* A12 dispatch/permutation buffers of one layer: b·s'·k·ρ·h·(β_d + 2·etp)/t */
#define PE_TEXT_A12 \
    {"A12", "dispatch buffers (mem_other)", \
     "b·s'·k·ρ·h·(β_d + 2·etp)/t", \
     "bytes", "design §2"}
inline double act_moe_dispatch(double b, double s_local, double k, double rho, double h,
                               double beta_d, double etp, double t)
{
    return b * s_local * k * rho * h * (beta_d + 2.0 * etp) / t;
}

/* A25 what Megatron-Core's all-to-all token dispatcher saves for backward per
 * MoE layer and micro-batch, beyond A9–A12 (NVIDIA/Megatron-LM
 * megatron/core/transformer/moe/moe_utils.py permute, unfused path, at
 * 00611e6eeb0b; token_dispatcher.py at 0014f13713bf hands the permuted probs
 * to the experts and calls unpermute without probs). Per token copy:
 * sorted_indices (int64, 8: index_select saves it, the dispatcher keeps it
 * for unpermute's scatter_add), flat_sorted (int64, 8: the probs' gather
 * saves it) and the permuted probs (fp32, 4: the experts' weighted activation
 * multiplies by them and keeps them) — 20 bytes. b·s'·k·ρ/t copies as A11
 * (ρ: drop-and-pad makes E·capacity of them). The permuted tokens themselves
 * are not added: index_select and the all-to-all save no activation, and the
 * all-to-all output is A11's fc1 input; the routing map is argsorted, not
 * saved; the router's logits and probs are A9's 8E; the transient send and
 * receive buffers A12's. */
#define PE_A25_BYTES_PER_COPY 20.0
#define PE_TEXT_A25 \
    {"A25", "dispatcher's saved indices and probs per MoE layer", \
     "b·s'·k·ρ/t·β_25, β_25 = 8 + 8 + 4", \
     "bytes", "Megatron-Core moe_utils.py permute @00611e6e"}
inline double act_moe_dispatch_saved(double b, double s_local, double k, double rho, double t,
                                     double bytes_per_copy)
{
    return b * s_local * k * rho / t * bytes_per_copy;
}

/* A4′ one MoE layer: s'·b·[(sp ? (rep + par_att + 8E + par_sh)/t
 *                          : rep + (par_att + par_sh)/t + 8E) + att/t] + A_routed */
#define PE_TEXT_A4_MOE \
    {"A4'", "A_layer of an MoE layer", \
     "attention part + router 8E + shared + A11", \
     "bytes", "design §2"}
inline double act_moe_layer(double s_local, double b, double t, int sp, double rep,
                            double par_att, double router, double par_sh, double att,
                            double routed)
{
    return s_local * b *
               ((sp ? (rep + par_att + router + par_sh) / t
                    : rep + (par_att + par_sh) / t + router) +
                att / t) +
           routed;
}

/* M5 M_total(stage) = M1 + M2 + M3 + M4 + A6 + (A7 and/or A8) + R, added left
 * to right; a7 or a8 is 0 on a stage that does not carry it. */
#define PE_TEXT_M5 {"M5", "M_total", "M1 + M2 + M3 + M4 + A6 + A7/A8 + R", "bytes", "spec"}
inline double mem_total(double m1, double m2, double m3, double m4, double a6, double a7,
                        double a8, double reserve)
{
    return m1 + m2 + m3 + m4 + a6 + a7 + a8 + reserve;
}

/* M6 the plan fits when the worst stage's total ≤ budget (bytes) */
#define PE_TEXT_M6 \
    {"M6", "fits", \
     "max over stages M_total ≤ min(HBM, budgets.memory_gib)", \
     "bytes", "spec"}
inline int mem_fits(double total, double budget) { return total <= budget; }

/* Peak memory by phase (docs/model.md §12 "Peak memory by phase", framework
 * memory_by_phase; neutral: M5). Per candidate stage, bytes. */

/* A14 the loss of one micro-batch on the last stage: β_loss·s'·b·V/t, the
 * logits and what the loss keeps of them at its peak (torchtitan: bf16
 * logits, their fp32 upcast, log-softmax and its gradient). Only one
 * micro-batch is ever at the loss: its backward follows at once. */
#define PE_TEXT_A14 {"A14", "loss live set (last stage)", "β_loss·s'·b·V/t", "bytes", "§12"}
inline double mem_loss(double beta_loss, double s_local, double b, double V, double t)
{
    return beta_loss * s_local * b * V / t;
}

/* A15 torchtitan's op-level selective checkpointing (selective_ac_option
 * "op", parallelize_llama.py @9dec370): a block keeps its input and the
 * outputs of the ops of its save list — every other matmul (wq, wv, w1, w2
 * of wq wk wv wo w1 w3 w2) and the flash/efficient attention (output and
 * logsumexp); everything else is recomputed in backward. Bytes per token:
 * seq = 2h (the block input, split by sp), rep = A22 (w2's output, a
 * row-parallel partial sum before its reduce-scatter: 2h kept in eager mode
 * only, memory_native.h), par = 2·a·d (wq) + 2·g·d (wv) + 2·a·d + 4a
 * (attention output, logsumexp) + 2f (w1). */
#define PE_TEXT_A15 \
    {"A15", "A_layer under op-level selective checkpointing", \
     "s'·b·[(sp ? 2h/t : 2h) + A22 + (4·a·d + 2·g·d + 4a + 2f)/t]", "bytes", "§12"}
inline double act_layer_op(double s_local, double b, double t, int sp, double seq, double rep,
                           double par)
{
    return s_local * b * ((sp ? seq / t : seq) + rep + par / t);
}

/* A19 recompute_modules "layernorm mla_up_proj moe_act" (Megatron-Core's
 * --recompute-modules names for what DeepSeek-V3's report §3.2.3 and §3.3.3
 * describe) under recompute: selective: every RMSNorm and the MLA
 * up-projections are recomputed in backward, so a layer keeps per token the
 * two norm inputs (4h, BF16), the MLA latents c_q, c_kv and k_pe (their
 * norms' inputs), the attention output β_ao·a·d_v (E5M6: 1.5) and its
 * logsumexp 4a, and the MLP's cached inputs: dense SwiGLU input 4f (gelu 2f)
 * plus fc2's input β_c·f; an expert keeps its SwiGLU input in FP8,
 * 2·β_c·f_e, and recomputes the output (moe_act); a routed copy keeps its
 * dispatched input β_c·h (A11's β_in). These replace A1, A2, A10 and A11's
 * per-token counts in A4/A4′ (A13's FP8 rule is β_c then). */
#define PE_TEXT_A19 \
    {"A19", "bytes per token kept with layernorm, mla_up_proj, moe_act recomputed", \
     "rep 4h + 2·q_c + 2·(kv_c + d_rope); par β_ao·a·d_v + 4a + (4f + β_c·f | 2β_c·n_s·f_e); " \
     "routed copy β_c·h + 2β_c·f_e", \
     "bytes/token", "DeepSeek-V3 §3.2.3, §3.3.3"}
double act_modules_rep(const pe_model *m);
double act_modules_par_attention(const pe_model *m, double beta_ao);
double act_modules_mlp_dense(const pe_model *m, double beta_c);
inline double act_modules_expert_inner(double beta_c, double f_e) { return 2.0 * beta_c * f_e; }

/* M10 with master_weights_only and z = 3 the weight shard is the optimizer's
 * fp32 master (in M3), so M1 holds no bf16 shard: β_g + β_o = 16 bytes a
 * parameter for FSDP2 mixed precision, not β_w + β_g + β_o = 18. */
#define PE_TEXT_M10 \
    {"M10", "weights under FSDP mixed precision", \
     "[master_weights_only ∧ z = 3] ? 0 : M1", "bytes", "§12"}
inline double mem_weights_refined(double m1, int master_only, int64_t zero)
{
    return master_only && zero == 3 ? 0.0 : m1;
}

/* M11 optimizer-step temporaries β_ot·N_gpu/(z ≥ 1 ? D : 1) (foreach Adam's
 * sqrt of the second moment; Megatron's fp32 copy of the gradient shard) */
#define PE_TEXT_M11 \
    {"M11", "optimizer-step temporaries", "β_ot·N_gpu/(z ≥ 1 ? D : 1)", "bytes", "§12"}
inline double mem_optimizer_temp(double beta_ot, double n_gpu, int64_t zero, double D)
{
    return beta_ot * n_gpu / (zero >= 1 ? D : 1.0);
}

/* M19 with ddp_grad_buckets (PyTorch DDP, gradient_as_bucket_view False, its
 * default): the reducer allocates each bucket's flattened `gradients` tensor
 * at construction (pytorch@ad78a7b3 torch/csrc/distributed/c10d/reducer.cpp
 * Reducer::initialize_buckets) over every parameter that requires a
 * gradient (pytorch@25562d3d torch/nn/parallel/distributed.py; its
 * docstring: gradient_as_bucket_view "can reduce peak memory usage, where
 * the saved memory size will be equal to the total gradients size"), and
 * copies each gradient in and out of it: β_g·N_t more bytes, in every phase,
 * at z = 0 and D > 1 (DDP wraps nothing on one rank; ZeRO/FSDP shard the
 * gradients instead). */
#define PE_TEXT_M19 \
    {"M19", "DDP's bucket copy of the gradients", "[z = 0 ∧ D > 1]·β_g·N_t", "bytes", "§12"}
inline double mem_ddp_buckets(int on, int64_t zero, double D, double beta_g, double n_train)
{
    return on && zero == 0 && D > 1.0 ? beta_g * n_train : 0.0;
}

/* M22 the backward working set W_b = (2β_w + β_ug)·X at z = 3, M4 = (2β_w +
 * β_g)·X with the unsharded gradient at β_ug bytes (unsharded_grad_bytes)
 * instead of β_g. FSDP1 (pytorch@00ae0bc9 torch/distributed/fsdp/
 * _runtime_utils.py _post_backward_hook) finds the unsharded gradient in
 * flat_param.grad, which autograd computed in the dtype of the unsharded
 * flat parameter, MixedPrecision's param_dtype (bf16: 2 bytes); it is cast
 * to _reduce_dtype only if that differs (reduce_dtype None is param_dtype),
 * reduce-scattered into new_sharded_grad = empty_like(chunks[0]) and only
 * that shard is upcast to the fp32 parameter dtype
 * (_cast_grad_to_param_dtype). So β_g = 4, the sharded gradient's bytes,
 * overstates the unsharded one by 2X. β_ug = β_g gives M4 bit for bit
 * (neutral); m4 = 0 (z < 3) stays 0. */
#define PE_TEXT_M22 \
    {"M22", "FSDP's unsharded gradient in the backward working set", \
     "W_b = M4·(2β_w + β_ug)/(2β_w + β_g) = (2β_w + β_ug)·X, β_ug = unsharded_grad_bytes", \
     "bytes", "pytorch@00ae0bc9 torch/distributed/fsdp/_runtime_utils.py _post_backward_hook"}
inline double mem_backward_working(double m4, double beta_w, double beta_g, double beta_ug)
{
    if (beta_ug == beta_g)
        return m4;
    return m4 * (2.0 * beta_w + beta_ug) / (2.0 * beta_w + beta_g);
}

/* M12 with pp_unsharded_params, z = 3 and p > 1 the stage keeps its weights
 * gathered from its first forward to its last backward (torchtitan
 * parallelize_llama.py @9dec370: reshard_after_forward = False under
 * pipeline parallelism), and its gradients unsharded until the last
 * micro-batch's backward (torch.distributed.pipelining stage.py:
 * set_requires_gradient_sync(False), set_reshard_after_backward(False) for
 * every backward but the last), in the gradients' dtype:
 * U_w = β_w·N_gpu·(1 − [¬master_only]/D) in every phase but the optimizer's,
 * U_g = β_g·N_gpu·(1 − 1/D) in backward and at the loss (the shards M1 and M2
 * already count taken out). */
#define PE_TEXT_M12 \
    {"M12", "stage weights and gradients kept unsharded (PP with FSDP)", \
     "[pp_unsharded ∧ z = 3 ∧ p > 1]·N_gpu·(β_w·(1 − [¬master_only]/D), β_g·(1 − 1/D))", \
     "bytes", "§12"}
inline double mem_pp_unsharded(int on, int64_t zero, double p, double beta, double n_gpu,
                               int sharded_copy, double D)
{
    return on && zero == 3 && p > 1.0 ? beta * n_gpu * (1.0 - (sharded_copy ? 1.0 / D : 0.0))
                                      : 0.0;
}

/* M9 the live set of each phase on a stage, S = M1 + M2 + M3 (M10, M7):
 *   forward   S + A6 + A7 + A8_in + U + W_f + W_lib       W_f = 2β_w·X (two layers gathered)
 *   backward  S + A6 + A7 + A8_in + U + W_b + W_lib       W_b = M4, or β_g·X with U > 0
 *   loss      S + A6 + A7 + A8_in + U + A14 + W_lib       (the last stage only)
 *   optimizer S + M11 + W_lib
 * and the peak is the largest (a tie goes to the earlier phase). */
#define PE_TEXT_M9 \
    {"M9", "peak over the step's phases", \
     "max(forward, backward, loss, optimizer) live sets", "bytes", "§12"}
inline int mem_peak_phase(const double *phase, int last)
{
    int best = 1; /* PE_PHASE_FORWARD */
    for (int k = 2; k <= 4; k++)
        if ((k != 3 || last) && phase[k] > phase[best])
            best = k;
    return best;
}

/* M13 reserved = peak·(1 + f) (the caching allocator's blocks over the bytes
 * in use); the device total adds what lives outside the allocator, C_ctx. */
#define PE_TEXT_M13 \
    {"M13", "reserved and device total", \
     "reserved = peak·(1 + f); total = reserved + C_ctx + A26", "bytes", "§12"}
inline double mem_reserved(double peak, double fragmentation)
{
    return peak * (1.0 + fragmentation);
}

/* M23 the 80% prediction interval of mem_peak_gib (refined model): lo =
 * peak·(1 − δ−), hi = peak·(1 + δ+), δ± ≥ 0, so lo ≤ peak ≤ hi; the same
 * ratios bound mem_reserved_gib and mem_total_gib. δ± are the framework
 * preset's (tests/derive_memory_interval.py: the memory library's fit-group
 * residuals of its runs, leave-one-out where a memory number was fitted on
 * them), else S6's stated default, 1/3 and 1/2. */
#define PE_TEXT_M23 \
    {"M23", "mem_peak_lo_gib, mem_peak_hi_gib", "peak·(1 − δ−), peak·(1 + δ+)", "GiB", \
     "the memory library's residuals (docs/model.md §12)"}
inline double mem_interval_lo(double peak, double below) { return peak * (1.0 - below); }
inline double mem_interval_hi(double peak, double above) { return peak * (1.0 + above); }

/* A26 NCCL's communicator buffers (framework nccl_channels C; 0: neutral),
 * outside PyTorch's caching allocator (NCCL cudaMallocs or cuMem-maps them
 * itself), so in the device total only, never in reserved. Per channel and
 * connection NCCL holds one buffer per protocol (NVIDIA/nccl v2.21.5-1
 * src/init.cc: DEFAULT_LL_BUFFSIZE 8·512·8·16 = 524,288, DEFAULT_LL128_BUFFSIZE
 * 120·640·8·8 = 4,915,200, DEFAULT_BUFFSIZE 4 MiB = 4,194,304 bytes, the
 * NCCL_BUFFSIZE default; src/transport/p2p.cc: the sender holds Simple's
 * under P2P read, the receiver LL's and LL128's), 9,633,792 bytes a
 * connection pair, rounded up to cuMem's 2 MiB granularity: B = 10,485,760
 * (the size of the buffers NVIDIA/nccl#1685's ALLOC log shows on H100). A
 * communicator of n ranks connects its ring (one pair a channel) and its
 * tree (one pair at n = 2, two on an interior rank of the chain) at init:
 * sets(n) = 0 (n ≤ 1), 2 (n = 2), 3 (n > 2). PyTorch's ProcessGroupNCCL
 * makes one communicator per process group and device, and one two-rank
 * communicator per peer for point-to-point sends (the pipeline's
 * neighbours). A26 = C·B·(sets(t) + sets(c) + sets(d) + sets(ep) +
 * n_pp·sets(2)). */
#define PE_A26_BYTES_PER_SET 10485760.0
#define PE_TEXT_A26 \
    {"A26", "NCCL communicator buffers outside the allocator", \
     "C·B·(sets(t) + sets(c) + sets(d) + sets(ep) + n_pp·sets(2)), B = 10 MiB, " \
     "sets(n) = 0, 2, 3 for n ≤ 1, 2, > 2", \
     "bytes", "NVIDIA/nccl v2.21.5-1 init.cc, p2p.cc"}
inline double mem_nccl_sets(double n)
{
    return n <= 1.0 ? 0.0 : n <= 2.0 ? 2.0 : 3.0;
}
/* A26's n_pp, the pipeline neighbours a stage's rank sends to: none at
 * p = 1, one at p = 2 and at the ends of a pipeline whose chunks do not wrap
 * around, two in the middle and on every rank when they wrap (interleaved,
 * DualPipe). */
inline double mem_nccl_pp_peers(double p, bool wraps, bool middle)
{
    return p <= 1.0 ? 0.0 : p <= 2.0 ? 1.0 : (middle || wraps) ? 2.0 : 1.0;
}
inline double mem_nccl_buffers(double channel_bytes, double t, double c, double d, double ep,
                               double pp_peers)
{
    return channel_bytes * (mem_nccl_sets(t) + mem_nccl_sets(c) + mem_nccl_sets(d) +
                            mem_nccl_sets(ep) + pp_peers * mem_nccl_sets(2.0));
}

#endif
