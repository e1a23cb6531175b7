/* params.h — docs/model.md §2, parameter counts P1–P7.
 *
 * Pure functions of the model dimensions. Everything scenario-level (P1–P6)
 * is called once by evaluate_prepare(); P7 runs per plan and is inline. */
#ifndef PLANEVAL_MODEL_PARAMS_H
#define PLANEVAL_MODEL_PARAMS_H

#include <stdint.h>

#include "core/scenario.h"

/* head dim d = h / a (§0) */
double params_head_dim(const pe_model *m);
/* norm(h): 2h for layernorm, h for rmsnorm (§0) */
double params_norm(const pe_model *m);
/* P1 matmul weights per layer h·(h + 2·g·d) + h·h + k_μ·h·f */
#define PE_TEXT_P1 \
    {"P1", "N_mm, matmul weights per layer", \
     "h·(h + 2·g·d) + h·h + k_μ·h·f", \
     "parameters", "Narayanan §5.1"}
double params_matmul(const pe_model *m);
/* P2 parameters per layer from the dimensions */
#define PE_TEXT_P2 \
    {"P2", "N_layer", \
     "N_mm + [bias]·(biases) + 2·norm(h)", \
     "parameters", "Narayanan §5.1"}
double params_layer_dims(const pe_model *m);
/* P3 V·h + [learned]·s·h */
#define PE_TEXT_P3 \
    {"P3", "N_embed", \
     "V·h + [position = learned]·s·h", \
     "parameters", "Narayanan §5.1"}
double params_embed(const pe_model *m);
/* P4 output layer at pipeline depth p (tied: 0 at p = 1, V·h otherwise) */
#define PE_TEXT_P4 \
    {"P4", "N_out", \
     "V·h (tied: 0 at p = 1, else the last stage's copy)", \
     "parameters", "spec"}
double params_out(const pe_model *m, int64_t p);
/* P5 L·N_layer + N_embed + N_out + norm(h) at pipeline depth p */
double params_total(const pe_model *m, double n_layer, int64_t p);
/* P6 N_layer fixed by model.params: (params − N_embed − N_out|p=1 − norm(h)) / L */
#define PE_TEXT_P6 \
    {"P6", "N_layer from model.params", \
     "(params − N_embed − N_out|p=1 − norm(h)) / L", \
     "parameters", "spec"}
double params_layer_from_params(const pe_model *m);
/* N_layer the model uses: P6 when model.params is given, else P2 */
double params_layer(const pe_model *m);

/* ---- MoE, head_dim, MLA (docs/model.md §14, docs/design/moe.md §0.1–§0.2) ---- */

/* P8/P9 MoE layers among layers [a, b): layer i is MoE iff E > 0, i ≥ L_d
 * and i mod ν = 0; with a' = max(a, L_d): ⌊(b−1)/ν⌋ − ⌊(a'−1)/ν⌋ (floor). */
int64_t params_moe_layers(const pe_model *m, int64_t a, int64_t b);

/* Scenario-level parameter counts of a model with experts, head_dim or MLA. */
typedef struct {
    double att;            /* P10 N_att: attention weights (+ MLA latent norms) */
    double att_matmul;     /* P10 without the latent norms (FLOPs) */
    double att_rep;        /* P10 N_att,rep: MLA down-projections + latent norms, TP-replicated */
    double layer_dense;    /* P12 N_layer^d */
    double moe_dense_part; /* P12 N_layer^m,dense-part: attention, shared experts, router, norms */
    double moe_expert;     /* P12 N_layer^m,expert: the E routed experts (+ their biases) */
    double expert_one;     /* one routed expert's matmul weights k_μ·h·f_e */
    double n_moe;          /* P9 MoE layers of the model, n_moe(0, L) */
    double total;          /* P13 */
    double active;         /* P14 (input embedding included) */
} pe_moe_params;

/* P10–P14; for E = 0 without head_dim or mla: layer_dense = P2, total = P5. */
void params_moe(const pe_model *m, pe_moe_params *out);

/* P7 N_gpu(stage) = [(L/p)·N_layer + (first ? N_embed : 0) + (last ? N_out + norm(h) : 0)] / t */
#define PE_TEXT_P7 \
    {"P7", "N_gpu", \
     "[(L/p)·N_layer + (first ? N_embed) + (last ? N_out + norm(h))] / t", \
     "parameters", "spec"}
inline double params_gpu(double layers_per_stage, double n_layer, double n_embed, double n_out,
                         double norm_h, int first, int last, double t)
{
    return (layers_per_stage * n_layer + (first ? n_embed : 0.0) + (last ? n_out + norm_h : 0.0)) /
           t;
}

/* P16 expert parameters per GPU on a stage: n_moe·N_expert/(ep·etp) */
#define PE_TEXT_P16 \
    {"P16", "expert parameters per GPU", \
     "n_moe·N_expert/(ep·etp)", \
     "parameters", "design §2"}
inline double params_expert_gpu(double n_moe, double n_expert, double ep, double etp)
{
    return n_moe * n_expert / (ep * etp);
}

#endif
