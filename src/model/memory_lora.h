/* memory_lora.h — docs/model.md §3 "Parameter-efficient fine-tuning"
 * (training.finetune: lora): frozen base weights at their storage bytes
 * (M15), the adapters and their training state (M16), the frozen base's
 * working set (M17) and the adapters' activations (A27). Every term is off
 * under finetune: full, and the hot path does not call them then. Inline:
 * they run for every plan of a LoRA scenario. */
#ifndef PLANEVAL_MODEL_MEMORY_LORA_H
#define PLANEVAL_MODEL_MEMORY_LORA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/scenario.h"

/* M15 β_q, bytes per frozen linear weight. nf4: QLoRA (Dettmers et al.,
 * arXiv:2305.14314) §3 — 4-bit NF4 codes in blocks of 64 with one absmax
 * constant each, the constants themselves quantised to 8 bits in blocks of
 * 256 with one fp32 constant each (double quantisation): 4 + 8/64 +
 * 32/(64·256) = 4.127 bits = 0.515869140625 bytes. int8: bitsandbytes'
 * Int8Params, 1 byte a weight; its fp32 per-row scale (4 bytes per output
 * row, 4/in a weight: 0.1% at in = 4096) is left out, a number no
 * measurement supports and too small to show. none: param_bytes. */
#define PE_LORA_NF4_BYTES ((4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0)
#define PE_LORA_INT8_BYTES 1.0

/* M15 frozen base weights of a stage: the layers' linear weights N_lin
 * (P1's matmul weights, (L/p)·N_mm/t) at β_q, everything else (embeddings,
 * norms, biases, the output layer: bitsandbytes and PEFT quantise only the
 * transformer blocks' nn.Linear) at β_w; sharded by ZeRO-3/FSDP as the
 * weights are (M1). No gradient, no optimizer state. */
#define PE_TEXT_M15 \
    {"M15", "frozen base weights (lora)", \
     "[β_q·N_lin + β_w·(N_gpu − N_lin)] / (z ≥ 3 ? D : 1), N_lin = (L/p)·N_mm/t", "bytes", \
     "QLoRA §3"}
inline double mem_lora_base(double beta_w, double beta_q, double n_gpu, double n_lin,
                            int64_t zero, double D)
{
    const double rest = n_gpu > n_lin ? n_gpu - n_lin : 0.0;
    return (beta_q * n_lin + beta_w * rest) / (zero >= 3 ? D : 1.0);
}

/* A quantised base's parameters as ZeRO-3 and FSDP partition and gather
 * them: elements of its storage dtype, the model's (β_w bytes; PEFT's
 * QLoRA recipes set bnb_4bit_quant_storage to it), a quantised linear
 * weight β_q/β_w of one: n − (1 − β_q/β_w)·n_lin of n parameters with n_lin
 * linear weights (A29's N_s, X4's S_w at z = 3). n when β_q = β_w. */
inline double params_lora_storage(double n, double n_lin, double beta_q, double beta_w)
{
    return n - (1.0 - beta_q / beta_w) * n_lin;
}

/* M16 adapter parameters of one layer on one tensor-parallel rank: each
 * targeted linear (in → out) gets A (r × in) and B (out × r) (Hu et al.,
 * arXiv:2106.09685 §4.1; huggingface/peft tuners/lora/layer.py). Under TP,
 * PEFT's LoraParallelLinear (tuners/lora/tp_layer.py) splits B by output
 * rows of a column-parallel base and A by input columns of a row-parallel
 * one, the other matrix whole: r·(in + out/t) column-parallel (q, k, v,
 * gate, up), r·(in/t + out) row-parallel (o, down). rep and sh are the sums
 * of the whole and the split dimensions of the targeted linears:
 * N_ad = r·(rep + sh/t). */
#define PE_TEXT_M16 \
    {"M16", "adapter parameters per layer (lora)", \
     "r·(Σ whole dims + Σ split dims / t): r·(in + out/t) column-, r·(in/t + out) row-parallel", \
     "parameters", "LoRA §4.1; peft tp_layer.py"}
inline double params_lora_layer(double r, double rep, double sh, double t)
{
    return r * (rep + sh / t);
}

/* M17 the frozen base's transient working set, in place of M4. With a
 * quantised base, bitsandbytes dequantises each linear's weight to a bf16
 * copy before its forward and again before its backward matmul, freeing it
 * after (autograd/_functions.py MatMul4Bit: dequantize_4bit(B) then linear;
 * backward the same for the input gradient): the largest linear's copy,
 * β_w·max(in·out)/t. Under ZeRO-3/FSDP that copy is taken while two gathered
 * layers are held (the one computing, the one prefetched) at their storage
 * bytes, with the layer's adapter gradients; the gathered output layer
 * (2·β_w·V·h/t: frozen, not quantised, no gradient) comes after the last
 * layer, so the set is the larger of the two. x is one layer's weights on
 * one TP rank, [β_q·N_mm + β_w·(N_layer − N_mm)]/t; n_ad M16. */
#define PE_TEXT_M17 \
    {"M17", "frozen base working set (lora, replaces M4)", \
     "z = 3: max(2·x + β_g·N_ad + c, 2·β_w·V·h/t); else c; c = [quantised]·β_w·max(in·out)/t", \
     "bytes", "QLoRA §3; bitsandbytes MatMul4Bit"}
/* M17's x: one layer's weights on one TP rank, the N_mm linear weights at
 * β_q (the quantised base's storage) and the rest at β_w */
inline double mem_lora_layer_weights(double beta_q, double beta_w, double n_mm, double n_layer,
                                     double t)
{
    return (beta_q * n_mm + beta_w * (n_layer - n_mm)) / t;
}
inline double mem_lora_working(int64_t zero, double beta_w, double beta_g, double x,
                               double n_ad, double vh, double dequant, double t)
{
    const double copy = beta_w * dequant / t;
    if (zero != 3)
        return copy;
    const double gathered = 2.0 * x + beta_g * n_ad + copy, out = 2.0 * beta_w * vh / t;
    return gathered > out ? gathered : out;
}

/* A27 what the adapters keep for backward, bytes per token of one layer,
 * over A1–A2: peft's Linear.forward computes lora_B(lora_A(dropout(x)))·s,
 * so lora_B keeps its input, the r-wide output of lora_A (2r bytes); lora_A
 * keeps its input, which is x itself without dropout (kept already: A2
 * counts each linear's input for its weight gradient, and the frozen linear
 * no longer needs it, so x is kept once), else dropout's output (2·in) and
 * dropout's mask (in, one byte each): Σ over targets of 2r + [p > 0]·3·in.
 * Replicated like A1 (added to rep: lora_A's r-wide output is whole on every
 * TP rank), so split by t only with sequence parallelism. Recomputed with
 * the layer under recompute: full (A5 keeps the input only). */
#define PE_TEXT_A27 \
    {"A27", "adapter activations per token of one layer (lora, in A1's rep)", \
     "Σ_targets 2r + [lora_dropout > 0]·3·in", "bytes/token", "peft tuners/lora/layer.py"}
inline double act_lora(double r, double targets, double in_sum, int dropout)
{
    return 2.0 * r * targets + (dropout ? 3.0 * in_sum : 0.0);
}

/* A32 the adapters under op-level selective checkpointing (A15, framework
 * selective_recompute: op): what the policy saves of one targeted linear,
 * bytes a token of one layer. torchtitan's _custom_policy
 * (parallelize_llama.py @9dec370) counts every aten.mm a block runs and
 * saves the output of each but every second one (odd counts MUST_SAVE);
 * the count restarts with each block's checkpoint. The adapters' lora_A and
 * lora_B are bias-free linears, so each targeted linear runs three mms in a
 * row — the frozen base, then A, then B (peft tuners/lora/layer.py
 * Linear.forward: base_layer(x), then lora_B(lora_A(dropout(x)))) — and the
 * base linears keep their parity (two more mms a target): a base the policy
 * saves (q, v, gate, down with SwiGLU; position 1, 3, 5, 7 of the block's
 * linears) is followed by A (even: recomputed) and B (odd: saved, out wide),
 * a base it recomputes (k, o, up) by A (odd: saved, r wide) and B (even).
 * So a saved base adds B's output, 2·out bytes, split by t for a
 * column-parallel base (B split by rows, M16) and whole for a row-parallel
 * one (B whole), and a recomputed base adds A's r-wide output, 2r bytes,
 * whole on every TP rank. B's output after a row-parallel base (down) only
 * joins the residual add, whose gradient is the identity: like w2's output
 * (A22) eager SAC keeps it and the compiled partitioner does not
 * (eager = eager_elementwise). Dropout is not in the save list: it is
 * recomputed (A27's 3·in is not kept). saved_base: the base linear is at an
 * odd mm count; column: the base is column-parallel. Adds to A15's
 * replicated (rep) or TP-split (par) bytes. */
#define PE_TEXT_A32 \
    {"A32", "adapter outputs op-level SAC saves (lora, selective_recompute op)", \
     "Σ_targets [base saved] ? 2·out (/t column-parallel; row-parallel: [eager] whole) : 2r " \
     "(whole)", \
     "bytes/token", "torchtitan parallelize_llama.py @9dec370 _custom_policy; peft tuners/lora/layer.py"}
inline void act_lora_op_saved(double r, double out, bool saved_base, bool column, bool eager,
                              double *rep, double *par)
{
    if (!saved_base)
        *rep += 2.0 * r; /* A's output, read by B's weight gradient */
    else if (column)
        *par += 2.0 * out; /* B's output, the base output's size and split */
    else if (eager)
        *rep += 2.0 * out; /* B's output into the residual add: eager keeps it */
}

#endif
