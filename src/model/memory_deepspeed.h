/* memory_deepspeed.h — docs/model.md §12 "DeepSpeed's ZeRO buffers" (A28,
 * A29, M18): the buffers DeepSpeed's ZeRO optimizer allocates beyond the
 * model state, sized by its zero_optimization keys (framework
 * deepspeed_zero, with memory_by_phase; neutral otherwise). Read from
 * microsoft/DeepSpeed v0.16.4 (38327e07): deepspeed/runtime/zero/config.py
 * (the defaults), stage_1_and_2.py, stage3.py, partitioned_param_coordinator.py.
 * All sizes in bytes; element counts as DeepSpeed counts them. Inline: they
 * run for every plan of a scenario that turns them on. */
#ifndef PLANEVAL_MODEL_MEMORY_DEEPSPEED_H
#define PLANEVAL_MODEL_MEMORY_DEEPSPEED_H

#include <stdbool.h>
#include <stdint.h>

/* A28 the reduce (ipg) buckets, B_r = reduce_bucket_size elements of the
 * 16-bit dtype (β_w). ZeRO 1-2 (stage_1_and_2.py backward()): with
 * contiguous_gradients each backward allocates one bucket, and a second
 * with overlap_comm ("double buffers to avoid data access conflict"),
 * freed when the gradients are reduced: backward only. ZeRO 3 (stage3.py
 * __init__: __ipg_bucket_flat_buffer, one, whatever overlap_comm): allocated
 * once, live in every phase. 0 at zero 0 or without contiguous_gradients,
 * and at zero 1 with bf16 weights and fp32 gradients, where DeepSpeed runs
 * its BF16_Optimizer instead (engine.py _do_optimizer_sanity_check:
 * bfloat16, grad_accum_dtype fp32, stage 1; bf16_optimizer.py keeps the
 * fp32 gradients in one flat buffer, M2, and steps on views of it: no
 * bucket, no M18; memory_step.h applies it, and with pp > 1 at zero 1-2
 * the pipeline engine's one bucket after the flush). */
#define PE_TEXT_A28 \
    {"A28", "DeepSpeed reduce (ipg) buckets", \
     "[contiguous_gradients]·B_r·β_w·(z ≤ 2 ? 1 + [overlap_comm] : 1), z ≥ 1; z ≤ 2 backward " \
     "only (pp > 1: one, after the flush, the optimizer phase max(A28, M18)), z = 3 every phase", \
     "bytes", "DeepSpeed stage_1_and_2.py backward, reduce_gradients; stage3.py __init__"}
inline double mem_ds_reduce_buckets(int64_t zero, int contiguous, int overlap, double bucket,
                                    double beta_w)
{
    if (zero < 1 || !contiguous)
        return 0.0;
    return bucket * beta_w * (zero <= 2 && overlap ? 2.0 : 1.0);
}

/* A29 ZeRO 3's gathered parameters (partitioned_param_coordinator.py
 * fetch_sub_module, __params_to_release). A module's parameters are
 * all-gathered when it runs, and the parameters of the modules next in the
 * trace are prefetched while fewer than min(P, L_live − n_available)
 * elements are in flight (P stage3_prefetch_bucket_size, L_live
 * stage3_max_live_parameters): G = X + min(P, max(L_live − X, 0)) elements
 * live, X the largest module's parameters (max(V·h, h·f)/t: the embedding
 * or output layer, else an MLP matrix). A parameter that is used again
 * within R = stage3_max_reuse_distance elements of the trace is not
 * released; at the turn from forward to backward the last layers' are
 * (a parameter d elements from the forward's end is reused about 2d
 * elements later, after the rest of the forward and the mirrored backward),
 * so K = min(R/2, N_gpu) elements stay gathered into the backward (an
 * approximation: the trace's exact order is not modelled). The backward
 * also holds the gathered module's full gradient before it is copied into
 * the bucket (β_g·X). Bytes: forward β_w·G, backward β_w·(G + K) + β_g·X,
 * loss β_w·(G + K); they replace M4's two layers. Never more elements than
 * the stage's parameters in G + K. */
/* With a quantised frozen base (lora, base_quant nf4 or int8) ZeRO-3
 * partitions and all-gathers the quantised storage, not bf16 weights: PEFT's
 * QLoRA + ZeRO-3 recipe loads the model with bnb_4bit_quant_storage = its
 * torch dtype so that every parameter, the packed 4-bit ones included, is of
 * the one dtype DeepSpeed flattens (huggingface/peft docs/source/accelerate/
 * deepspeed.md "Use PEFT QLoRA and DeepSpeed with ZeRO3"; peft#1550), and
 * bitsandbytes' Params4bit holds the packed codes as that storage
 * (bitsandbytes nn/modules.py Params4bit, functional.py quantize_4bit; the
 * dequantisation to bf16 happens per matmul after the gather, M17). So DeepSpeed's
 * element counts (ds_numel: P, L_live, R) count storage elements of β_w
 * bytes, and a quantised linear weight is β_q/β_w of one: X = max(V·h,
 * (β_q/β_w)·h·f)/t, K's cap the stage's storage elements N_s = N_gpu −
 * (1 − β_q/β_w)·N_lin (M15's N_lin). β_q is M15's storage bytes, its
 * absmax constants included (0.127 of NF4's 4.127 bits), which stay whole
 * on each rank rather than gathered: an upper bound by that share. int8
 * (Int8Params) is counted the same way, though bitsandbytes#1451 reports
 * its ZeRO-3 loss wrong. Without a quantised base N_s = N_gpu (neutral). */
#define PE_TEXT_A29 \
    {"A29", "DeepSpeed ZeRO-3 gathered parameters by phase", \
     "G = X + min(P, max(L_live − X, 0)), K = min(R/2, N_s), in storage elements (quantised " \
     "base, lora: a linear weight β_q/β_w of one, N_s = N_gpu − (1 − β_q/β_w)·N_lin); forward " \
     "β_w·G, backward β_w·(G + K) + β_g·X, loss β_w·(G + K)", \
     "bytes", "DeepSpeed partitioned_param_coordinator.py; peft accelerate/deepspeed.md (QLoRA ZeRO3)"}

inline double mem_ds_gathered(double largest, double prefetch, double max_live)
{
    const double room = max_live - largest > 0.0 ? max_live - largest : 0.0;
    return largest + (prefetch < room ? prefetch : room);
}
/* zero 1 with bf16 weights and fp32 gradient accumulation is DeepSpeed's
 * BF16_Optimizer (engine.py _do_optimizer_sanity_check), not ZeRO's, unless
 * offload_optimizer sends it to ZeRO's (the check's not zero_cpu_offload): its
 * fp32 gradients are M2's flat buffer and its step's partitions views of it
 * (bf16_optimizer.py), so no A28 bucket and no M18 */
inline bool mem_ds_bf16_optimizer(int64_t zero, double beta_g, double beta_w, bool offload)
{
    /* engine.py: "... == 1 and not self.zero_cpu_offload()": offload keeps ZeRO's */
    return zero == 1 && beta_g == 4.0 && beta_w == 2.0 && !offload;
}
inline double mem_ds_reuse_kept(double reuse_distance, double n_gpu)
{
    const double k = 0.5 * reuse_distance;
    return k < n_gpu ? k : n_gpu;
}

/* A29's persistent parameters: ZeRO 3 never partitions a parameter of at
 * most T = stage3_param_persistence_threshold elements (stage3.py,
 * parameter_offload.py: ds_persist; the coordinator skips them when it
 * releases), so each is held whole beside its shard in every phase:
 * β_w·N_pers·(1 − 1/D), N_pers the elements of the stage's parameters that
 * small — a layer's norm weights (and biases), its bias vectors (the
 * projections', the MLP's) — counted at t = 1. */
#define PE_TEXT_A29_PERSIST \
    {"A29'", "DeepSpeed ZeRO-3 persistent parameters (every phase)", \
     "β_w·N_pers·(1 − 1/D), N_pers = elements of the tensors of ≤ T elements", "bytes", \
     "DeepSpeed stage3.py param_persistence_threshold"}
inline double mem_ds_persistent(double n_persistent, double beta_w, double D)
{
    return beta_w * n_persistent * (1.0 - 1.0 / D);
}
/* One tensor's elements if it persists (n ≤ T), else 0. */
inline double mem_ds_small(double n, double threshold) { return n <= threshold ? n : 0.0; }

/* M18 the fp32 gradient of the optimizer step. ZeRO 1-2 (stage_1_and_2.py
 * step): single_grad_partition = flatten(averaged_gradients).to(fp32) makes
 * the 16-bit flat copy (β_g, none when the gradients are fp32 already:
 * .to of an fp32 tensor is the tensor) and the fp32 partition (4) of all
 * N_gpu/D of the rank's partition at once; ZeRO 3 (stage3.py
 * _prepare_fp32_grad_for_sub_group, _release_sub_group) one optimizer
 * sub-group at a time, at most S = sub_group_size elements:
 * (4 + [β_g ≠ 4]·β_g)·(z = 3 ? min(N_gpu/D, S) : N_gpu/D), in the optimizer
 * phase. DeepSpeed's own estimate_zero2_model_states_mem_needs counts the
 * fp32 partition (its "4_grads_32bit"), not the transient 16-bit copy. */
#define PE_TEXT_M18 \
    {"M18", "DeepSpeed fp32 gradient partition of the step", \
     "(4 + [β_g ≠ 4]·β_g)·(z = 3 ? min(N_t/D, S) : N_t/D), z ≥ 1, N_t the trained parameters", \
     "bytes", \
     "DeepSpeed stage_1_and_2.py step, stage3.py _prepare_fp32_grad_for_sub_group"}
inline double mem_ds_fp32_grads(int64_t zero, double beta_g, double n_gpu, double D,
                                double sub_group)
{
    if (zero < 1)
        return 0.0;
    double n = n_gpu / D;
    if (zero == 3 && sub_group < n)
        n = sub_group;
    return (4.0 + (beta_g != 4.0 ? beta_g : 0.0)) * n;
}

/* M20 ZeRO-Offload on the GPU (framework deepspeed_zero with the plan's
 * offload_optimizer; DeepSpeed v0.16.4, 38327e07). What moves to the host
 * is M21's; what the GPU holds besides the 16-bit weights (M1, every one at
 * zero 1-2, the shard at zero 3), A28's buckets and A29's gathered set:
 *   zero 1-2 (stage_1_and_2.py, cpu_offload): contiguous_gradients is
 *     forced on ("CPU-Offload requires contiguous gradients"), so A28's
 *     buckets are there whatever the key; copy_grads_in_partition returns
 *     before it allocates grads_in_partition, so at zero 2 no gradient
 *     partition stays on the GPU (M2 = 0; at zero 1 the gradients of the
 *     micro-batches before the boundary still accumulate in param.grad, M2
 *     kept); __init__ allocates temp_grad_buffer_for_gpu_offload,
 *     largest_param_numel elements of the 16-bit dtype, on the GPU (every
 *     phase: β_w·n_max); async_inplace_copy_grad_to_fp32_buffer_from_gpu
 *     makes src_tensor.float() of one parameter's slice in the partition
 *     (grad_position's num_elements) before its copy to the pinned fp32
 *     partition (backward: at most 4·min(n_max, N_t/D)); step() runs
 *     CPU Adam on the host partition and copies it back with
 *     fp32_partition.to(device) before the 16-bit copy (optimizer phase:
 *     4·N_t/D, in place of M18, which offload makes 0: the step's fp32
 *     gradient is the host's single_partition_of_fp32_groups[i].grad).
 *   zero 3 (stage3.py, offload_optimizer): self.device is the CPU, so
 *     grad_partitions_flat_buffer (M2) is host memory; partition_grads
 *     copies each bucket's gradient partitions there and back to the GPU
 *     (grad_buffer.to(grad_partition.device), kept for the bucket: β_g·B_r/D)
 *     and casts one at a time to fp32 for the fp32 host gradient
 *     (grad_buffer.float(): at most 4·X/D, X the largest parameter): backward
 *     (β_g·B_r + 4·X)/D; _prepare_fp32_grad_for_sub_group runs only without
 *     offload (M18 = 0), and the updated fp32 sub-group reaches the 16-bit
 *     shard by a blocking copy_ across devices and dtypes, which PyTorch
 *     converts on the CPU "to avoid allocating extra GPU memory"
 *     (pytorch@007aa8ae aten/src/ATen/native/cuda/Copy.cu copy_kernel_cuda):
 *     nothing more in the optimizer phase.
 * n_max = max(V·h, h·f)/t, the largest parameter tensor (A29's X). 0 without
 * offload (neutral). */
#define PE_TEXT_M20 \
    {"M20", "DeepSpeed ZeRO-Offload on the GPU (offload_optimizer)", \
     "z ≤ 2: every phase β_w·n_max, backward + 4·min(n_max, N_t/D), optimizer 4·N_t/D (M18 0), M2 0 at z = 2; " \
     "z = 3: backward (β_g·B_r + 4·n_max)/D, M2 0, M18 0", \
     "bytes", "DeepSpeed stage_1_and_2.py cpu_offload, stage3.py offload_optimizer; pytorch Copy.cu"}
inline double mem_ds_offload_every(int64_t zero, double beta_w, double n_max)
{
    return zero <= 2 ? beta_w * n_max : 0.0; /* temp_grad_buffer_for_gpu_offload */
}
inline double mem_ds_offload_backward(int64_t zero, double beta_g, double n_max, double bucket,
                                      double part, double D)
{
    if (zero <= 2) /* the slice of one parameter inside this rank's partition */
        return 4.0 * (n_max < part ? n_max : part);
    return (beta_g * bucket + 4.0 * n_max) / D;
}
inline double mem_ds_offload_step(int64_t zero, double part)
{
    return zero <= 2 ? 4.0 * part : 0.0; /* fp32_partition.to(device), part = N_t/D */
}

/* M21 host memory per GPU under ZeRO-Offload, in place of M8's (β_o + β_g)
 * share: the fp32 master and the CPU optimizer's states (β_o, DeepSpeedCPUAdam
 * on the host partition) and the fp32 gradient partition (4) of N_t/D
 * parameters, pinned; zero 1-2 add temp_grad_buffer_for_cpu_offload (β_w·n_max)
 * and, with gradient accumulation (m > 1), accumulated_grads_in_cpu, one
 * 16-bit buffer per partition parameter (β_w·N_t/D); zero 3 adds
 * grad_partitions_flat_buffer, the gradient partitions in their
 * accumulation dtype (β_g·N_t/D). A node holds G of them (M8's check
 * against host_memory_gib). */
#define PE_TEXT_M21 \
    {"M21", "DeepSpeed ZeRO-Offload host memory per GPU", \
     "(β_o + 4)·N_t/D + (z ≤ 2 ? β_w·n_max + [m > 1]·β_w·N_t/D : β_g·N_t/D); a node G of them", \
     "bytes", "DeepSpeed stage_1_and_2.py __init__, async_accumulate_grad_in_cpu_via_gpu; stage3.py"}
inline double mem_ds_offload_host(int64_t zero, double beta_o, double beta_w, double beta_g,
                                  double part, double n_max, double m)
{
    if (zero <= 2)
        return (beta_o + 4.0) * part + beta_w * n_max + (m > 1.0 ? beta_w * part : 0.0);
    return (beta_o + 4.0 + beta_g) * part;
}

#endif
