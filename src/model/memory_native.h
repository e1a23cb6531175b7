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

#endif
