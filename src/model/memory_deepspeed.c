/* memory_deepspeed.c — docs/model.md §12 A28, A29, M18, M20, M21: the external
 * definitions of memory_deepspeed.h's inline functions. */
#include "model/memory_deepspeed.h"

extern inline double mem_ds_reduce_buckets(int64_t zero, int contiguous, int overlap,
                                           double bucket, double beta_w);
extern inline double mem_ds_gathered(double largest, double prefetch, double max_live);
extern inline bool mem_ds_bf16_optimizer(int64_t zero, double beta_g, double beta_w, bool offload);
extern inline double mem_ds_offload_every(int64_t zero, double beta_w, double n_max);
extern inline double mem_ds_offload_backward(int64_t zero, double beta_g, double n_max,
                                             double bucket, double part, double D);
extern inline double mem_ds_offload_step(int64_t zero, double part);
extern inline double mem_ds_offload_host(int64_t zero, double beta_o, double beta_w,
                                         double beta_g, double part, double n_max, double m);
extern inline double mem_ds_reuse_kept(double reuse_distance, double n_gpu);
extern inline double mem_ds_persistent(double n_persistent, double beta_w, double D);
extern inline double mem_ds_small(double n, double threshold);
extern inline double mem_ds_fp32_grads(int64_t zero, double beta_g, double n_gpu, double D,
                                       double sub_group);
