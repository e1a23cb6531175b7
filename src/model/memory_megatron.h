/* memory_megatron.h — docs/model.md §12 "Recompute by layer" (A18): which
 * layers `recompute: full` checkpoints, as Megatron-Core and torchtitan
 * spell it (framework recompute_method, recompute_num_layers). Neutral
 * (uniform, 1): A6's full-recompute term, operation for operation, and the
 * hot path does not call it. Inline: it runs for every plan. */
#ifndef PLANEVAL_MODEL_MEMORY_MEGATRON_H
#define PLANEVAL_MODEL_MEMORY_MEGATRON_H

#include <math.h>

#include "core/scenario.h"

/* A18 layer activations of a stage of L' layers in v model chunks, k
 * micro-batches in flight, under full recompute by layer:
 *   uniform N (Megatron-Core transformer_block.py _checkpointed_forward,
 *     recompute_method 'uniform': each chunk's layers checkpointed in
 *     groups of N, the group's input kept): A_in·g·k + min(N, L'/v)·A_max,
 *     g = v·⌈L'/(v·N)⌉ group inputs; backward recomputes one group at a time
 *   block N (recompute_method 'block': the first N layers of each chunk
 *     checkpointed, the others keep everything):
 *     A_in·n·k + A_keep·(L' − n)·k + [n > 0]·A_max, n = v·min(N, L'/v)
 *   every N (torchtitan apply_ac, selective_ac_option N: every N-th block
 *     of the rank wrapped in checkpoint_wrapper): as block with n = ⌊L'/N⌋
 * A_keep is the activations one stored layer keeps (A4, A4′ averaged over
 * the stage's layers), A_max the widest layer, recomputed in backward. */
#define PE_TEXT_A18 \
    {"A18", "layer activations under full recompute by layer (recompute_method)", \
     "uniform: A_in·v⌈L'/(vN)⌉·k + min(N, L'/v)·A_max; block: A_in·n·k + A_keep·(L' − n)·k " \
     "+ [n > 0]·A_max, n = v·min(N, L'/v); every: n = ⌊L'/N⌋", \
     "bytes", "§12"}
inline double act_stage_by_layer(pe_recompute_method method, double n_layers, double v,
                                 double a_in, double a_keep, double a_max, double ls, double k)
{
    const double per_chunk = ls / v;
    if (method == PE_RECOMPUTE_UNIFORM) {
        const double groups = v * ceil(per_chunk / n_layers);
        return a_in * groups * k + (n_layers < per_chunk ? n_layers : per_chunk) * a_max;
    }
    const double n = method == PE_RECOMPUTE_BLOCK
                         ? v * (n_layers < per_chunk ? n_layers : per_chunk)
                         : floor(ls / n_layers);
    return a_in * n * k + a_keep * (ls - n) * k + (n > 0.0 ? a_max : 0.0);
}

/* A17 what Megatron-LM's legacy GPT model (megatron/model/transformer.py,
 * NVIDIA/Megatron-LM@b35d061e; the default before --use-mcore-models) keeps
 * beyond A2, bytes per token of the tensor-parallel shard (so over t):
 *   swiglu: ParallelMLP's unfused swiglu (torch.chunk, F.silu(x[0]) * x[1]:
 *     bias_gelu_fusion off with --swiglu) keeps silu's output besides the
 *     fc1 output and the product: + 2f
 *   flash: the flash path keeps the attention output twice — the kernel's
 *     saved output (b s h d) and the contiguous copy the dense projection
 *     saves as its input — and K, V expanded to every head by
 *     repeat_interleave before the kernel: + 2·a·d + 4·(a − g)·d
 * (d = head_dim, else h/a; MLA is not in the legacy model: 0). */
#define PE_TEXT_A17 \
    {"A17", "Megatron-LM legacy model: activations beyond A2", \
     "[swiglu]·2f + [flash]·(2·a·d + 4·(a − g)·d), over t", "bytes/token", "§12"}
inline double act_legacy_extra(int swiglu, int flash, double f, double a, double g, double d)
{
    return (swiglu ? 2.0 * f : 0.0) + (flash ? 2.0 * a * d + 4.0 * (a - g) * d : 0.0);
}

/* A30 what Megatron-Core's Transformer Engine layers save beyond A1 for
 * the two norms, bytes per token (replicated like A1; split by t under
 * sequence parallelism, where each rank normalises its own tokens): the
 * fused norm + linear (TELayerNormColumnParallelLinear: linear_qkv with the
 * input norm, linear_fc1 with the pre-MLP norm) saves, besides its input and
 * the norm's output that A1 counts, the norm's fp32 statistics per token
 * (NVIDIA/TransformerEngine@d0067d0d transformer_engine/pytorch/module/
 * layernorm_linear.py _LayerNormLinear.forward: prepare_for_saving(inputmat,
 * ..., ln_out_to_save, mu, rsigma)): LayerNorm mu and rsigma (4 + 4),
 * RMSNorm rsigma alone (4; mu is None). Counted from the code. */
#define PE_TEXT_A30 \
    {"A30", "TE norm statistics saved per layer", \
     "2 norms·(LayerNorm 8: mu + rsigma fp32 | RMSNorm 4: rsigma fp32)", "bytes/token", "§12"}
inline double act_te_norm_stats(int layernorm)
{
    return 2.0 * (layernorm ? 8.0 : 4.0);
}

/* A31 what Transformer Engine's fused attention (FusedAttnFunc, the cuDNN
 * and flash backends of DotProductAttention) saves beyond A2's q, k, v and
 * output, bytes per token of the tensor-parallel shard (so over t; a = the
 * heads), kept only without recompute (Megatron's selective checkpoints
 * core_attn, whose saved tensors are rebuilt in backward):
 *   the fp32 softmax statistics, log Σ e^(x − max x), one per head and
 *     query token (TE@d0067d0d transformer_engine/pytorch/cpp_extensions/
 *     fused_attn.py fused_attn_fwd: aux_ctx_tensors [softmaxStats
 *     [b, h, s, 1] float32, rng_state]): 4a
 *   under FP8 (fp8_dpa off, Megatron's default), the bf16 output out_f16
 *     (TE@d0067d0d attention/dot_product_attention/backends.py
 *     FusedAttnFunc.forward: f16_tensors = (q, k, v, out_f16)) beside the
 *     FP8 copy of it that linear_proj saves (A13's a·d_v; module/linear.py
 *     saved_inputmat = the quantized inputmat): 2·a·d_v. In bf16 the two
 *     are one tensor (linear_proj's input is a view of the output).
 * 0 with the standard (unfused) attention, whose scores are A3. Counted
 * from the code. */
#define PE_TEXT_A31 \
    {"A31", "TE fused attention's saved statistics (and FP8's bf16 output)", \
     "[fused]·(4·a + [fp8]·2·a·d_v), over t, recompute none", "bytes/token", "§12"}
inline double act_te_attention_saved(int fused, int fp8, double a, double a_dv)
{
    return fused ? 4.0 * a + (fp8 ? 2.0 * a_dv : 0.0) : 0.0;
}

/* A23 Megatron-Core's activation offload (TransformerConfig cpu_offloading,
 * cpu_offloading_num_layers N; Transformer Engine's get_cpu_offload_context,
 * AsyncDoubleBufferGroupOffloadHandler): the activations of layers 0…N−1
 * (groups current_group < num_offload_group) are copied to the host on a
 * side stream, one group at a time: group i's GPU copy is released at the
 * end of layer window_map[i] = ⌊L/N⌋·(i+1) − 1 (+ the remainder spread over
 * the first L mod N), when group i+1's copy starts; backward reloads group
 * i at the start of layer window_map[i]'s backward. At layer j ≥ N the GPU
 * holds the stored layers N…j and the groups whose window is still open,
 * at most L − N + 1 layers, reached at the last layer (forward's end, where
 * group N−1 is in flight; backward's start, where it is reloaded) — so A6
 * with L' = L − N + [N > 0] layers. Megatron-Core accepts it only with
 * pp 1 and without recompute (transformer_config.py __post_init__), so the
 * model applies it there (and on dense layers), elsewhere 0 (explain says
 * so). Never more layers than without it; N = 0 is A6. */
#define PE_TEXT_A23 \
    {"A23", "layers whose activations stay on the GPU under cpu_offloading", \
     "L' = L − N + [N > 0] (pp 1, recompute none, dense)", "layers", \
     "Megatron-Core transformer_config.py; Transformer Engine cpu_offload.py"}
inline double act_offload_kept_layers(double layers, double n_offloaded)
{
    if (n_offloaded <= 0.0)
        return layers;
    const double kept = layers - n_offloaded + 1.0;
    return kept < layers ? kept : layers;
}

/* A24 the pipeline receive buffer a stage holds beyond A6 (framework
 * pp_recv_grad, with memory_by_phase). NVIDIA/Megatron-LM@4dabc623
 * megatron/core/pipeline_parallel/schedules.py,
 * forward_backward_pipelining_without_interleaving: in the 1F1B steady
 * state `output_tensor_grad = send_forward_recv_backward(...)` receives the
 * gradient of the stage's output, then `backward_step(input_tensor,
 * output_tensor, output_tensor_grad, ...)` runs with it held, so it is live
 * at the backward's start, where A6's k micro-batches are all still stored
 * (p2p_communication.py: shape (s'/t if sequence_parallel, b, h),
 * pipeline_dtype bf16, 2 bytes). Not added: the received input tensor, kept
 * in input_tensors for the backward, is the layer input A1 already counts;
 * the sent output tensor, after `deallocate_output_tensor(output_tensor[0],
 * config.deallocate_pipeline_outputs)`, keeps one element (`out.data =
 * torch.empty((1,))`); the input gradient backward_step returns is made at
 * the backward's end, when the micro-batch's A6 share is freed. The last
 * stage of a non-interleaved schedule receives no gradient (its comes from
 * the loss, A14); under interleaving and DualPipe every rank holds a chunk
 * that is not the model's last, so every rank receives one. Bytes, once:
 * one micro-batch is in backward at a time. */
#define PE_TEXT_A24 \
    {"A24", "received output gradient held through a stage's backward (pp_recv_grad)", \
     "2·s'·b·h/(sp ? t : 1), not on the last stage of a non-interleaved schedule", "bytes", \
     "Megatron-Core schedules.py send_forward_recv_backward"}
inline double act_pp_recv_grad(double s_local, double b, double h, double t, int sp)
{
    return 2.0 * s_local * b * h / (sp ? t : 1.0);
}

#endif
