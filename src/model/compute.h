/* compute.h — docs/model.md §4, FLOPs F1–F6. Counts are per token unless said
 * otherwise; F1–F4 are scenario-level, F5–F6 run per plan (inline). */
#ifndef PLANEVAL_MODEL_COMPUTE_H
#define PLANEVAL_MODEL_COMPUTE_H

#include "core/scenario.h"

/* κ: 0.5 with causal_flops, else 1 */
double compute_kappa(const pe_model *m);
/* attention score/context FLOPs per token per layer, 4·s·h·κ (part of F1) */
double compute_attention(const pe_model *m);
/* F1 F_layer = 2·N_mm + 4·s·h·κ (N_mm from the dimensions, P1) */
double compute_layer(const pe_model *m);
/* F2 F_out = 2·h·V */
double compute_out(const pe_model *m);
/* F3 F_model = 3·B·s·(L·F_layer + F_out) per step */
double compute_model(const pe_model *m, double global_batch);
/* F4 recompute FLOPs per token per layer: F_layer (full), 4·s·h·κ (selective), 0 */
double compute_recompute(const pe_model *m, pe_recompute recompute);
/* F4 F_hw = F_model + B·s·L·x */
double compute_hardware(const pe_model *m, double global_batch, pe_recompute recompute);

/* F5 forward FLOPs per micro-batch per GPU on a stage:
 * b·s'·[(L/p)·F_layer + (last ? F_out : 0)] / t */
inline double compute_fwd(double b, double s_local, double layers_per_stage, double f_layer,
                          double f_out, int last, double t)
{
    return b * s_local * (layers_per_stage * f_layer + (last ? f_out : 0.0)) / t;
}

/* F5 backward: 2·f_fwd + b·s'·(L/p)·x / t */
inline double compute_bwd(double f_fwd, double b, double s_local, double layers_per_stage,
                          double x, double t)
{
    return 2.0 * f_fwd + b * s_local * layers_per_stage * x / t;
}

/* F6 time of `flops` at the achieved rate peak·e */
inline double compute_time(double flops, double rate) { return flops / rate; }

/* F6 τ_lf = b·s'·F_layer/t/(peak·e) */
inline double compute_layer_fwd_time(double b, double s_local, double f_layer, double t,
                                     double rate)
{
    return b * s_local * f_layer / t / rate;
}

/* F6 τ_lb = (2·b·s'·F_layer + b·s'·x)/t/(peak·e) */
inline double compute_layer_bwd_time(double b, double s_local, double f_layer, double x, double t,
                                     double rate)
{
    return (2.0 * b * s_local * f_layer + b * s_local * x) / t / rate;
}

/* F6 τ_att = b·s'·4·s·h·κ/t/(peak·e) */
inline double compute_attention_time(double b, double s_local, double f_att, double t,
                                     double rate)
{
    return b * s_local * f_att / t / rate;
}

#endif
