/* memory_megatron.c — docs/model.md §12 A18, A17, A23, A24, A30, A31: the
 * external definitions of memory_megatron.h's inline functions. */
#include "model/memory_megatron.h"

extern inline double act_stage_by_layer(pe_recompute_method method, double n_layers, double v,
                                        double a_in, double a_keep, double a_max, double ls,
                                        double k);
extern inline double act_offload_kept_layers(double layers, double n_offloaded);
extern inline double act_pp_recv_grad(double s_local, double b, double h, double t, int sp);
extern inline double act_legacy_extra(int swiglu, int flash, double f, double a, double g,
                                      double d);
extern inline double act_te_norm_stats(int layernorm);
extern inline double act_te_attention_saved(int fused, int fp8, double a, double a_dv);
