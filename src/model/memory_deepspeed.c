/* memory_deepspeed.c — docs/model.md §12 A28, A29, M18: the external
 * definitions of memory_deepspeed.h's inline functions. */
#include "model/memory_deepspeed.h"

extern inline double mem_ds_reduce_buckets(int64_t zero, int contiguous, int overlap,
                                           double bucket, double beta_w);
extern inline double mem_ds_gathered(double largest, double prefetch, double max_live);
extern inline bool mem_ds_bf16_optimizer(int64_t zero, double beta_g, double beta_w);
extern inline double mem_ds_reuse_kept(double reuse_distance, double n_gpu);
extern inline double mem_ds_persistent(double n_persistent, double beta_w, double D);
extern inline double mem_ds_small(double n, double threshold);
extern inline double mem_ds_fp32_grads(int64_t zero, double beta_g, double n_gpu, double D,
                                       double sub_group);
