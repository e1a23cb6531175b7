/* memory_native.h — memory terms of the PyTorch-native stack (torchtitan:
 * DTensor tensor parallelism, FSDP2) that docs/model.md §12 adds to the
 * phase model; each neutral unless a framework key turns it on. */
#ifndef PLANEVAL_MODEL_MEMORY_NATIVE_H
#define PLANEVAL_MODEL_MEMORY_NATIVE_H

/* A16 `tp_gathered_inputs`: with sequence parallelism, DTensor TP
 * all-gathers the sequence-split norm outputs before the column-parallel
 * matmuls (torchtitan parallelize_llama.py @9dec370: PrepareModuleInput
 * Shard(1) → Replicate() for attention and feed_forward, ColwiseParallel
 * wq/wk/wv and w1/w3), and aten.mm saves its input for the weight gradient
 * (PyTorch tools/autograd/derivatives.yaml, mm: mat2's gradient
 * self.t().mm(grad)), so the two gathered inputs (the QKV and the MLP
 * input, G = 4h bytes a token, 2h with FP8 inputs, A13) are kept whole,
 * where Megatron-Core re-gathers them in backward and A4 splits all of A1
 * by t. Extra bytes of one layer and micro-batch over A4:
 * s'·b·G·(1 − 1/t) when sp and t > 1, else 0. Not under A15 (op-level
 * checkpointing does not save all-gather outputs). */
#define PE_TEXT_A16 \
    {"A16", "TP+SP gathered matmul inputs kept whole (over A4)", \
     "[sp ∧ t > 1]·s'·b·G·(1 − 1/t), G = 4h (2h with FP8 inputs)", "bytes", "§12"}
inline double act_gathered_inputs(double s_local, double b, double t, int sp, double gathered)
{
    return sp && t > 1.0 ? s_local * b * gathered * (1.0 - 1.0 / t) : 0.0;
}

/* A20 `cp_ring_buffers`: PyTorch's context-parallel ring attention
 * (torch/distributed/tensor/experimental/_attention.py, read at pytorch
 * 0123248: _templated_ring_attention and its backward) runs one layer's SDPA
 * over the KV shards of all c ranks. torchtitan @9dec370 repeats K and V to
 * the a query heads before SDPA (models/llama/model.py repeat_kv), so on one
 * TP rank K and V are each W = a·d/t wide. Bytes per local token, n the KV
 * shards held at once: n = c with the all-gather rotater (_AllGatherRotater
 * keeps the gathered buffer; torchtitan's default context_parallel_rotate_method
 * "allgather", config_manager.py @9dec370), n = 2 with all-to-all (the shard
 * in use and the one arriving). Forward: n shards of bf16 K and V (4n·W), the
 * torch.cat copy sent (4W), _SDPAMerger's fp32 output (4W): (4n + 8)·W.
 * Backward: the n shards and the cat copy (4n·W + 4W), the fp32 dQ, dK, dV
 * accumulators (convert_to_f32: 12W), the fp32 dK,dV buffer sent and the one
 * received (dkv_rotater, all-to-all: 16W), one step's bf16 dQ, dK, dV (6W):
 * (4n + 38)·W. 0 at c = 1 (no ring); never smaller at a larger c. */
#define PE_TEXT_A20 \
    {"A20", "CP ring-attention buffers of one layer (backward; forward)", \
     "[c > 1]·s'·b·(a·d/t)·(4n + 38), forward (4n + 8), n = c (allgather) or 2 (alltoall)", \
     "bytes", "§12"}
inline double act_cp_ring(double s_local, double b, double width, double t, double c,
                          int allgather, int backward)
{
    if (c <= 1.0 || width <= 0.0)
        return 0.0;
    const double n = allgather ? c : 2.0;
    return s_local * b * (width / t) * (4.0 * n + (backward ? 38.0 : 8.0));
}

/* A22 the op-level policy's saved outputs that backward never reads (A15,
 * torchtitan selective_ac_option "op" @9dec370): w2's output, the block's
 * MLP output before the residual add (2h bytes a token, a row-parallel
 * partial sum, whole under TP). Eager (framework eager_elementwise, F28:
 * torchtitan without --training.compile) SAC caches the output of every op
 * its policy marks MUST_SAVE, needed or not (torch/utils/checkpoint.py
 * _CachingTorchDispatchMode; CheckpointPolicy's docstring: a save policy
 * "would save additional tensors not limited to ones that are actually
 * needed for gradient computation"); compiled, the policy is only a tag on
 * the joint graph's nodes and AOT Autograd's min-cut partitioner saves the
 * cut between the forward and what backward reads
 * (torch/_functorch/partitioners.py solve_min_cut: MUST_SAVE bans a node's
 * recomputation, required_bw_nodes feed the sink), so an output with no path
 * into backward — w2's, consumed by the add alone, whose gradient is the
 * identity — is never saved. Bytes per token and layer: eager ? 2h : 0. */
#define PE_TEXT_A22 \
    {"A22", "op-level saved outputs backward never reads (eager only)", \
     "[eager_elementwise]·2h (w2's output)", "bytes/token", \
     "torch/utils/checkpoint.py; torch/_functorch/partitioners.py"}
inline double act_op_eager_kept(double h, int eager) { return eager ? 2.0 * h : 0.0; }

#endif
