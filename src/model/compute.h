/* compute.h — docs/model.md §4, FLOPs F1–F6. Counts are per token unless said
 * otherwise; F1–F4 are scenario-level, F5–F6 run per plan (inline). */
#ifndef PLANEVAL_MODEL_COMPUTE_H
#define PLANEVAL_MODEL_COMPUTE_H

#include <math.h>

#include "core/scenario.h"

/* κ: 0.5 with causal_flops, else 1 */
double compute_kappa(const pe_model *m);
/* attention score/context FLOPs per token per layer, 4·s·h·κ (part of F1) */
double compute_attention(const pe_model *m);
/* F1 F_layer = 2·N_mm + 4·s·h·κ (N_mm from the dimensions, P1) */
#define PE_TEXT_F1 \
    {"F1", "F_layer, forward FLOPs per token per layer", \
     "2·N_mm + 4·s·h·κ", \
     "FLOP/token", "Narayanan §5.1"}
double compute_layer(const pe_model *m);
/* F2 F_out = 2·h·V */
#define PE_TEXT_F2 {"F2", "F_out, output layer", "2·h·V", "FLOP/token", "Narayanan §5.1"}
double compute_out(const pe_model *m);
/* F3 F_model = 3·B·s·(L·F_layer + F_out) per step */
#define PE_TEXT_F3 {"F3", "F_model per step", "3·B·s·(L·F_layer + F_out)", "FLOP", "Narayanan §5.1"}
double compute_model(const pe_model *m, double global_batch);
/* F25 (A15's op policy, torchtitan selective_ac_option "op"): the FLOPs per
 * token per layer that backward recomputes. parallelize_llama.py's
 * _custom_policy saves every op of _save_list (mm, the SDPA kernels, the
 * reduce-scatter) "except every second mm", counted per transformer block
 * in the order the block runs them: wq, wk, wv, wo, w1, w3, w2 (SwiGLU) or
 * wq, wk, wv, wo, w1, w2 (GELU). The second, fourth and sixth — wk, wo and
 * w3 (SwiGLU) or w2 (GELU), each h·f either way — are recomputed, the
 * attention core is not: 2·h·g·d + 2·a·d·h + 2·h·f (element-wise ops
 * recomputed too: bytes, not FLOPs, not timed). */
#define PE_TEXT_F25 \
    {"F25", "x_op, recomputed FLOPs per token per layer (op-level selective)", \
     "2·h·g·d (wk) + 2·a·d·h (wo) + 2·h·f (w3, or w2 without SwiGLU)", "FLOP", \
     "torchtitan parallelize_llama.py"}
inline double compute_op_sac_recompute(double h, double a, double g, double d, double f)
{
    return 2.0 * h * g * d + 2.0 * a * d * h + 2.0 * h * f;
}

/* F39 (framework op_sac_recompute_elementwise, with F25): what else the op
 * policy recomputes. _custom_policy marks every op outside _save_list
 * PREFER_RECOMPUTE (torchtitan parallelize_llama.py @395a52627, @9dec370,
 * models/llama3/parallelize_llama.py @820504e and @e7c0cae), so backward
 * re-runs the forward's element-wise ops — norms, rotary, SiLU·mul, the
 * residual adds — but not the attention core (SDPA is saved): one forward's
 * F10/F28 element-wise time less its attention part, e_f − e_att. Under
 * F35 the FP8 input casts are re-run too, less the amax pass where
 * _save_list keeps its output: tensorwise's torch.max(torch.abs(x)) is
 * aten.max (saved: its bf16 read, 2 of F24's c bytes, not re-run),
 * rowwise's torch.amax is aten.amax (not in _save_list: all c bytes again)
 * (pytorch/ao@eab345c, 6243040, 0afa4c1 float8_utils.py tensor_to_amax).
 * No FLOPs: HFU keeps F25's. */
#define PE_F39_AMAX_READ_BYTES 2.0 /* the amax pass's read of a bf16 element */
#define PE_TEXT_F39 \
    {"F39", "op-level SAC's recomputed element-wise ops and FP8 casts per layer (refined)", \
     "(e_f − e_att) + cast_f·(c − a)/c; a = 2 (tensorwise: aten.max saved), 0 (rowwise)", "s", \
     "torchtitan@9dec370 parallelize_llama.py _custom_policy"}
inline double compute_op_sac_elementwise(double ew_fwd, double ew_att, double cast_f, double c,
                                         double amax_saved)
{
    const double recast = c > 0.0 ? cast_f * (c - amax_saved) / c : 0.0;
    return (ew_fwd - ew_att) + recast;
}

/* F4 recompute FLOPs per token per layer: F_layer (full), 4·s·h·κ (selective), 0 */
#define PE_TEXT_F4 \
    {"F4", "x, recompute FLOPs per token per layer", \
     "F_layer (full), 4·s·h·κ (selective), 0 (none)", \
     "FLOP/token", "Korthikanti §5"}
double compute_recompute(const pe_model *m, pe_recompute recompute);
/* F4 F_hw = F_model + B·s·L·x */
double compute_hardware(const pe_model *m, double global_batch, pe_recompute recompute);

/* F27 (A18's step part, docs/model.md §12 "Recompute by layer"): the layers
 * whose forward the backward of a stage of L' layers in v model chunks
 * re-runs under `recompute: full` by layer — exactly the layers A18
 * checkpoints: uniform N all L' (Megatron-Core recomputes each group of N
 * whole), block N the first N of each chunk, v·min(N, L'/v), every N
 * ⌊L'/N⌋ (torchtitan's checkpoint_wrapper counts the blocks it wraps from 1
 * and wraps those with count % N == 0). The other layers keep their
 * activations and recompute nothing; F5's backward and F11's τ_b take x of
 * F4 for these layers only. */
#define PE_TEXT_F27 \
    {"F27", "recomputed layers of a stage (full recompute by layer, recompute_method)", \
     "uniform: L'; block: v·min(N, L'/v); every: ⌊L'/N⌋", "layers", \
     "§12; Megatron-Core transformer_block.py, torchtitan parallelize_llama.py"}
inline double compute_recomputed_layers(pe_recompute_method method, double n_layers, double v,
                                        double ls)
{
    if (method == PE_RECOMPUTE_UNIFORM)
        return ls;
    if (method == PE_RECOMPUTE_BLOCK) {
        const double per_chunk = ls / v;
        return v * (n_layers < per_chunk ? n_layers : per_chunk);
    }
    return floor(ls / n_layers);
}

/* F5 forward FLOPs per micro-batch per GPU on a stage:
 * b·s'·[(L/p)·F_layer + (last ? F_out : 0)] / t */
#define PE_TEXT_F5 \
    {"F5", "f_fwd per micro-batch", \
     "b·s'·[(L/p)·F_layer + (last ? F_out : 0)] / t", \
     "FLOP", "Narayanan §5.1"}
inline double compute_fwd(double b, double s_local, double layers_per_stage, double f_layer,
                          double f_out, int last, double t)
{
    return b * s_local * (layers_per_stage * f_layer + (last ? f_out : 0.0)) / t;
}

/* F5 backward: 2·f_fwd + b·s'·(L/p)·x / t */
#define PE_TEXT_F5_BWD \
    {"F5:bwd", "f_bwd per micro-batch", \
     "2·f_fwd + b·s'·(L/p)·x / t", \
     "FLOP", "Narayanan §5.1"}
inline double compute_bwd(double f_fwd, double b, double s_local, double layers_per_stage,
                          double x, double t)
{
    return 2.0 * f_fwd + b * s_local * layers_per_stage * x / t;
}

/* F6 time of `flops` at the achieved rate peak·e */
#define PE_TEXT_F6 {"F6", "τ_f, τ_b", "f / (peak·e)", "s", "Narayanan §5.1"}
#define PE_TEXT_F6_ACCUM {"F6:accum", "τ_f, τ_b", "f / (peak·e), f / (peak·e) + F21", "s", "Narayanan §5.1"}
inline double compute_time(double flops, double rate) { return flops / rate; }

/* F6 τ_lf = b·s'·F_layer/t/(peak·e) */
#define PE_TEXT_F6_LAYER \
    {"F6:layer", "τ_lf, τ_lb, τ_att per layer", \
     "b·s'·F_layer/t/(peak·e), (2·b·s'·F_layer + b·s'·x)/t/(peak·e), b·s'·4·s·h·κ/t/(peak·e)", \
     "s", "Narayanan §5.1"}
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

/* ---- §12 refinements: compute by GEMM shape (F7–F11) ----
 * Used only when the GPU gives gemm_efficiency (and the scenario is not
 * fidelity: textbook); otherwise F6 above is the model. */

/* F7 the matrix multiplies of one layer's forward pass, per GPU, for M
 * tokens (M = b·s'): K × N after tensor-parallel sharding (QKV, attention
 * projection, MLP in (gelu f, swiglu 2f), MLP out). Filled per scenario
 * unsharded; k_sharded says which side t divides. */
typedef struct {
    double K, N;   /* unsharded */
    int k_sharded; /* 1: K/t (row-parallel), 0: N/t (column-parallel) */
} pe_gemm_shape;

#define PE_LAYER_GEMMS 4
void compute_layer_gemms(const pe_model *m, pe_gemm_shape out[PE_LAYER_GEMMS]);
/* F10 element-wise bytes per token of one layer's forward pass (bf16):
 * rep (sequence-sharded only with sp): 2 norms (read, write) 4h, 2 fused
 * bias-dropout-residual adds (read two, write one, a 1-byte mask) (6 + δ)h; par (TP-sharded): activation 4f (gelu) or 6f (swiglu),
 * rotary 4(h + g·d); att (TP-sharded, standard attention only): softmax
 * 4·a·s and its dropout 5δ·a·s; out (last stage, TP-sharded): fp32 logits
 * and loss 12·V. */
void compute_elementwise_bytes(const pe_model *m, double *rep, double *par, double *att,
                               double *out);

/* F7 the FLOPs of one layer GEMM for M tokens on one GPU: 2·M·K·N/t (one
 * of K, N is divided by t; the product is the same). */
inline double compute_gemm_flops(double M, const pe_gemm_shape *g, double t)
{
    return 2.0 * M * g->K * g->N / t;
}

/* F8 one GEMM of M×K by K×N: max((F + F_half)/(peak·e_max), bytes/W) with
 * F = 2·M·K·N, bytes = 2·(M·K + K·N + M·N): its achieved efficiency
 * e(F) = e_max·F/(F + F_half) rises with size and saturates at e_max,
 * bounded by the HBM roofline. gemm_rate = peak·e_max, t_half =
 * F_half/(peak·e_max). */
inline double compute_gemm_time(double M, double K, double N, double gemm_rate, double t_half,
                                double hbm_bps)
{
    const double flops = 2.0 * M * K * N;
    const double t_compute = flops / gemm_rate + t_half;
    const double t_memory = 2.0 * (M * K + K * N + M * N) / hbm_bps;
    return t_compute > t_memory ? t_compute : t_memory;
}

/* F8 per scenario, the coefficients of one GEMM's time in the tokens M and
 * 1/t, so the hot path multiplies only: compute M·flop/t + t_half, memory
 * M·(mem_m + mem_mt/t) + mem_kn/t (2·(MK + KN + MN)/W with one of K, N
 * divided by t). */
typedef struct {
    double flop;         /* 2·K·N/(peak·e_max) */
    double mem_m, mem_mt; /* 2·(unsharded side)/W, 2·(sharded side)/W */
    double mem_kn;       /* 2·K·N/W */
} pe_gemm_coef;

inline pe_gemm_coef compute_gemm_coef(const pe_gemm_shape *g, double gemm_rate, double hbm_bps)
{
    pe_gemm_coef c;
    c.flop = 2.0 * g->K * g->N / gemm_rate;
    c.mem_m = 2.0 * (g->k_sharded ? g->N : g->K) / hbm_bps;
    c.mem_mt = 2.0 * (g->k_sharded ? g->K : g->N) / hbm_bps;
    c.mem_kn = 2.0 * g->K * g->N / hbm_bps;
    return c;
}

/* F18 an FP8 GEMM: the compute side at peak_fp8·e_max, the
 * roofline with 1-byte inputs and weights and a 2-byte (bf16) output,
 * MK + KN + 2MN bytes (Transformer Engine's FP8 GEMMs). */
inline pe_gemm_coef compute_gemm_coef_fp8(const pe_gemm_shape *g, double gemm_rate,
                                          double hbm_bps)
{
    pe_gemm_coef c;
    c.flop = 2.0 * g->K * g->N / gemm_rate;
    c.mem_m = (g->k_sharded ? 2.0 * g->N : g->K) / hbm_bps;
    c.mem_mt = (g->k_sharded ? g->K : 2.0 * g->N) / hbm_bps;
    c.mem_kn = g->K * g->N / hbm_bps;
    return c;
}

/* F24 the FP8 scaling recipe (docs/model.md §12): the rate of its GEMMs
 * relative to the tensorwise FP8 rate F18 times (ratio, from
 * scenarios/measurements/fp8_gemm.csv, tests/derive_presets.py), and the
 * bytes each cast moves per element of a GEMM input (amax, scale, cast:
 * memory-bound work at W·η_W, F10). none: ratio 1, no bytes (F18 alone). */
typedef struct {
    const char *name;
    double rate_ratio;  /* recipe GEMM rate / tensorwise FP8 GEMM rate */
    double cast_bytes;  /* bytes moved per element cast (read, write, amax, scales) */
    const char *basis;  /* where the two numbers come from, for explain */
} pe_fp8_recipe_cost;
#define PE_TEXT_F24 \
    {"F24", "FP8 scaling recipe (refined)", \
     "F18 rate · r_recipe; + b·s'·c_recipe·(ΣK_col/(sp ? t : 1) + ΣK_row/t)/(W·η_W) per layer", \
     "s", "fp8_gemm.csv (pytorch/FBGEMM#2546); TE and torchao docs"}
pe_fp8_recipe_cost compute_fp8_recipe(pe_fp8_recipe recipe);

/* F42 the rowwise FP8 kernel measured on the GPU itself (docs/model.md §12,
 * GPU key fp8_rowwise_gemm_efficiency e_row): with fp8_recipe rowwise and
 * e_row > 0 the recipe's GEMMs run at peak_fp8·e_row, i.e. F24's ratio
 * becomes e_row/e_max8 and r is not applied on top (F24's r = 0.7961 is
 * itself a 500 W rowwise measurement over a 700 W tensorwise one, so on a
 * base measured at 500 W it would derate twice). Any other recipe, or
 * e_row = 0: F24's r unchanged. */
#define PE_TEXT_F42 \
    {"F42", "rowwise FP8 GEMM rate measured on the GPU (refined)", \
     "rowwise, e_row > 0: F18 rate · e_row/e_max8 = peak_fp8·e_row (F24's r not applied)", \
     "FLOP/s", "fp8_gemm.csv (pytorch/FBGEMM#2546, H100 500 W, row gemm only)"}
/* F42: does the measured rowwise rate replace F24's r (rowwise, e_row > 0,
 * e_max8 > 0)? The ratio: e_row/e_max8 when it does, r otherwise. */
bool compute_fp8_measured_rate_on(pe_fp8_recipe recipe, double e_max8, double e_row);
double compute_fp8_measured_rate_ratio(pe_fp8_recipe recipe, double r, double e_max8,
                                       double e_row);
/* F42 e_max8 (docs/model.md §12): with the framework's fp8_kernel_rate and a
 * GPU that gives fp8_kernel_gemm_efficiency e_k8 > 0, e_k8 (the tensorwise
 * kernel measured without casts: the stack counts its casts apart);
 * otherwise F18's fp8_gemm_efficiency, or gemm_efficiency without it. */
#define PE_TEXT_F42_KERNEL \
    {"F42:kernel", "FP8 GEMMs at the GPU's measured kernel rate (refined)", \
     "fp8_kernel_rate, e_k8 > 0: e_max8 = e_k8 (the GPU's tensorwise kernel, no casts)", \
     "of peak_fp8", "fp8_gemm.csv (the MAMF table's tensorwise rows)"}
double compute_fp8_gemm_efficiency(const pe_gpu *g, const pe_framework *fw);
/* F42: does the framework's fp8_kernel_rate take the GPU's measured kernel? */
bool compute_fp8_kernel_rate_on(const pe_gpu *g, const pe_framework *fw);

/* F35 torchao's casts GEMM role by GEMM role (framework fp8_cast_by_role,
 * tensorwise and rowwise; docs/model.md §12), read from
 * matmul_with_hp_or_float8_args at pytorch/ao@0afa4c1: forward casts the
 * input X (c bytes an element, F24's c); backward casts the output gradient
 * G for dgrad, G again for wgrad and the saved bf16 X again for wgrad. Under
 * tensorwise the two casts of G are the same op (one scale), which
 * compile's common-subexpression pass makes one (c); rowwise scales G by
 * rows for dgrad and by columns for wgrad: two (2c). wgrad's two operands
 * are made contiguous in the layout _scaled_mm takes (torchao float8_ops:
 * a column-major copy), 2 bytes (read 1, write 1) an element each. So
 * backward: tensorwise (c + 2)·G + (c + 2)·X, rowwise (2c + 2)·G + (c + 2)·X,
 * against F24's 2c·X. Bytes per token of a layer, in two parts (F36):
 * "gathered" the tensors TP all-gathers with sequence parallelism (the
 * column-parallel GEMMs' X, the row-parallel ones' G), "sharded" the rest
 * (X of the row-parallel GEMMs, G of the column-parallel ones: /t). */
typedef struct {
    double fwd_gathered, fwd_sharded; /* bytes per token, forward */
    double bwd_gathered, bwd_sharded; /* bytes per token, backward */
} pe_fp8_role_casts;
#define PE_TEXT_F35 \
    {"F35", "FP8 casts by GEMM role (refined)", \
     "fwd c·X; bwd tensorwise (c+2)·G + (c+2)·X, rowwise (2c+2)·G + (c+2)·X; X, G elements " \
     "per token of the layer GEMMs' inputs and output gradients, at W·η_W", \
     "s", "pytorch/ao@0afa4c1 float8_linear.py matmul_with_hp_or_float8_args"}
pe_fp8_role_casts compute_fp8_role_casts(pe_fp8_recipe recipe, double c,
                                         const pe_gemm_shape gemms[PE_LAYER_GEMMS]);
/* F36 where the cast runs: with sequence parallelism a TP all-gather
 * brings the column-parallel GEMMs' input X (forward) and the row-parallel
 * ones' output gradient G (backward) to every rank; torchao's Float8 TP
 * (X22, tensorwise with tp_fp8_all_gather) casts before the all-gather, on
 * the rank's 1/t, but otherwise the all-gather is bf16 and Float8Linear
 * casts the gathered tensor whole (torchtitan @820504e: rowwise "all-gather
 * happens in high precision"). Without sequence parallelism those tensors
 * are replicated: whole. */
#define PE_TEXT_F36 \
    {"F36", "FP8 casts of TP-gathered tensors (refined)", \
     "gathered part × (sp and X22 ? 1/t : 1), sharded part × 1/t", \
     "s", "torchtitan parallelize_llama.py @820504e; torchao float8_tensor_parallel.py"}
inline double compute_fp8_cast_gathered_share(bool sp, bool cast_before_gather, double inv_t)
{
    return sp && cast_before_gather ? inv_t : 1.0;
}

/* F26 the framework's GEMM rate (docs/model.md §12 "Compute by matrix
 * shape"): its matrix multiplies run at σ times the rate F8 and F18 give
 * with the GPU preset's numbers, which were fitted on Megatron-Core and
 * NeMo runs (Transformer Engine's kernels); σ = gemm_rate_scale, fitted by
 * calibrate on a framework's own runs (torchtitan: §13). 1 without a
 * framework (the loader leaves no framework's keys in force) or with the
 * key absent. */
#define PE_TEXT_F26 \
    {"F26", "framework GEMM rate (refined)", \
     "peak·e_max·σ (F8), peak_fp8·e_max8·σ (F18); σ = gemm_rate_scale", "FLOP/s", \
     "fitted by planeval calibrate on the framework's runs (torchtitan benchmarks)"}
inline double compute_gemm_rate_scale(const pe_framework *fw)
{
    return fw->present && fw->gemm_rate_scale > 0.0 ? fw->gemm_rate_scale : 1.0;
}

/* F28 the element-wise bytes per token of one layer's forward pass as eager
 * PyTorch runs torchtitan's Llama block (framework eager_elementwise: true, torchtitan's training.compile false; docs/model.md
 * §12 "Compute by matrix shape", the count per op): each op its own kernel,
 * reading its inputs and writing its output in HBM. rep: two RMSNorms of 36h
 * each (x.float() 2h+4h, pow 4h+4h, mean 4h, x·rsqrt 4h+4h, type_as 4h+2h,
 * ·weight 2h+2h), or 4h each with fused_rmsnorm or LayerNorm (one kernel, as
 * F10), and two residual adds 6h each (F10's (6 + δ)h with dropout); par: SwiGLU silu 2f+2f and the
 * product 4f+2f = 10f (gelu: F10's 4f), rotary 20 bytes per q and k element
 * (float() 2+4, complex multiply 4+4, type_as 4+2) over a·d + g·d, and
 * repeat_kv's copy of k and v to every head when g < a, 4(a·d + g·d).
 * Replaces F10's rep and par; att and out stay F10's. Backward: F10's
 * twice the forward (not counted per op). */
#define PE_TEXT_F28 \
    {"F28", "eager element-wise bytes (refined)", \
     "rep = 2·n + 2(6 + δ)h, n = 36h (4h fused_rmsnorm); par = 10f + 20(a·d + g·d) [+ 4(a·d + g·d), g < a]", \
     "bytes/token", \
     "torchtitan's Llama block run eagerly: models/llama/model.py, norms.py at 395a52627 and 9dec370"}
void compute_eager_elementwise_bytes(const pe_model *m, bool fused_rmsnorm, double *rep,
                                     double *par);
/* F28 in force: a framework that says eager_elementwise: true. */
inline bool compute_eager(const pe_framework *fw) { return fw->present && fw->eager_elementwise; }

/* F8 the time of one GEMM for M tokens, inv_t = 1/t: compute_gemm_time of
 * its per-GPU shape, from the coefficients. */
#define PE_TEXT_F7_8 \
    {"F7-8", "one GEMM of a layer", "max((F + F_half)/(peak·e_max), 2·(MK + KN + MN)/W)", "s", \
     "Hockney n½; Williams"}
inline double compute_gemm_time_coef(const pe_gemm_coef *c, double M, double inv_t, double t_half)
{
    const double t_compute = M * inv_t * c->flop + t_half;
    const double t_memory = M * (c->mem_m + c->mem_mt * inv_t) + c->mem_kn * inv_t;
    return t_compute > t_memory ? t_compute : t_memory;
}

/* F38 the MoE expert GEMMs' efficiency at the rows one expert receives:
 * a grouped GEMM (one kernel over the E/ep local experts, M split per
 * expert) tiles each expert's M_e rows on its own, and its rate falls as
 * M_e shrinks, in Hockney's form in rows: g(M_e) = M_e/(M_e + M_half), the
 * rate peak·e_max·g (F8, F18). Measured: DeepGEMM's grouped FP8 GEMMs on
 * H800 SXM5 (deepseek-ai/DeepGEMM README.md @55ab91f, contiguous and
 * masked layouts, 256 to 8192 rows per group; scenarios/measurements/
 * grouped_gemm.csv): M_half ≈ 123 rows. g is 1 at M_half = 0 (neutral) and
 * never falls as M_e grows (a test). */
#define PE_TEXT_F38 \
    {"F38", "MoE expert GEMM efficiency at M_e rows per expert (refined)", \
     "g(M_e) = M_e/(M_e + M_half); expert GEMM compute (M_e + M_half)·2KN/(peak·e_max)", "1", \
     "deepseek-ai/DeepGEMM README @55ab91f grouped GEMM tables; Hockney n½"}
inline double compute_grouped_gemm_efficiency(double M_e, double half_rows)
{
    return half_rows > 0.0 ? M_e / (M_e + half_rows) : 1.0;
}

/* F38 one expert GEMM of M_e rows, inv_etp = 1/etp: F8 with the compute
 * side at peak·e_max·g(M_e), i.e. M_half more rows' FLOPs, and the memory
 * side (the HBM roofline) of the M_e rows it moves. half_rows = 0 is F8 bit
 * for bit. */
inline double compute_expert_gemm_time_coef(const pe_gemm_coef *c, double M_e, double inv_etp,
                                            double t_half, double half_rows)
{
    const double t_compute = (M_e + half_rows) * inv_etp * c->flop + t_half;
    const double t_memory = M_e * (c->mem_m + c->mem_mt * inv_etp) + c->mem_kn * inv_etp;
    return t_compute > t_memory ? t_compute : t_memory;
}

/* F29 one layer GEMM as async TP's micro-pipeline runs it (X16): PyTorch's
 * fused_all_gather_matmul and fused_matmul_reduce_scatter
 * (torch/distributed/_symmetric_memory: _pipelined_all_gather_and_consume
 * chunks the gathered input into t row slices along dim 0, one matmul per
 * source rank; _pipelined_produce_and_all2all computes one output chunk of
 * M/t rows per destination rank) run t multiplies of M/t rows by the same
 * K × N' weight. Each is timed by F8 at its own shape: compute
 * (M/t)·flop/t + t_half (a smaller multiply sits lower on e(F)), memory
 * (M/t)·(mem_m + mem_mt/t) + mem_kn/t (each chunk reads the whole weight).
 * The t chunks together: t times one chunk,
 * max(M·flop/t + t·t_half, M·(mem_m + mem_mt/t) + mem_kn), written so that
 * with t_half = 0 and a compute-bound GEMM it is bit for bit F8's whole
 * GEMM. Never faster than the whole GEMM (a test). */
#define PE_TEXT_F29 \
    {"F29", "one layer GEMM as t chunks of M/t rows (async TP, refined)", \
     "t·max((F/t + F_half)/(peak·e_max), 2·((M/t)·K + K·N + (M/t)·N)/W)", "s", \
     "PyTorch _symmetric_memory fused_all_gather_matmul / fused_matmul_reduce_scatter; Hockney n½"}
inline double compute_gemm_chunks_time_coef(const pe_gemm_coef *c, double M, double t,
                                            double inv_t, double t_half)
{
    const double t_compute = M * inv_t * c->flop + t * t_half;
    const double t_memory = M * (c->mem_m + c->mem_mt * inv_t) + c->mem_kn;
    return t_compute > t_memory ? t_compute : t_memory;
}

/* F22 the attention core's efficiency by shape, a factor on e_att (F9):
 * the keys one query sees per kernel call, s_k = s' (s/c per context-parallel
 * shard) or s'/2 causal (block skipping leaves the average query half the
 * keys), in Hockney's form s_k/(s_k + s_half); a causal kernel also computes
 * the diagonal tiles whole, half of them masked: useful/computed =
 * (s'/2)/(s'/2 + B_c/2) = s'/(s' + B_c). FlashAttention-3 Fig. 5
 * (arXiv:2407.08608), FlashAttention-2 §3.1.1 (arXiv:2307.08691).
 * s_half = 0 and B_c = 0 give 1 (neutral; the hot path then skips it). */
#define PE_TEXT_F22 \
    {"F22", "attention core efficiency by shape (refined)", \
     "e_att·D(d)·s_k/(s_k + s_half)·(causal ? s'/(s' + B_c) : 1), s_k = causal ? s'/2 : s'", \
     "", "FlashAttention-3 Fig. 5 (arXiv:2407.08608); FlashAttention-2 §3.1.1"}
inline double compute_attention_shape(double s_local, double s_half, double tile)
{
    const double s_k = tile > 0.0 ? 0.5 * s_local : s_local;
    const double seq = s_k / (s_k + s_half);
    return tile > 0.0 ? seq * s_local / (s_local + tile) : seq;
}
/* F33 a causal kernel's work against F9's count: F22 times the core per
 * useful causal FLOP (the rate per FLOP the kernel computes, times
 * s'/(s' + B_c) for the diagonal tiles it computes whole), and the useful
 * causal half is s'²/2 of the κ·s'² F9 counts, so with attention_causal_work
 * on a GPU with a causal tile (B_c > 0) the core takes 1/(2κ) of F9's FLOPs
 * at F22's rate: the kernel's (s'² + s'·B_c)/2 at its own rate, (s' + B_c)/(2s')
 * of Megatron's κ = 1 count; κ = 0.5 (causal_flops) already counts the half,
 * so 1 (no double halving). Off, or B_c = 0 (an e_att per FLOP as F9 counts
 * them, as the A100's 2·R_causal), 1. FlashAttention-2 §3.1.1
 * (arXiv:2307.08691): causal masking skips about half of the blocks. */
#define PE_TEXT_F33 \
    {"F33", "a causal kernel's useful FLOPs per F9 FLOP (refined)", \
     "ω = attention_causal_work and B_c > 0 ? 1/(2κ) : 1; core = F9·ω/(peak·F22)", "", \
     "FlashAttention-2 §3.1.1 (arXiv:2307.08691); FlashAttention-3 Fig. 5 causal"}
inline double compute_attention_causal_work(bool causal_work, double tile, double kappa)
{
    return causal_work && tile > 0.0 ? 0.5 / kappa : 1.0;
}
/* X31 (framework cp_ring_load_balance): the attention core of one CP rank as
 * PyTorch's load-balanced ring attention computes it (torch
 * distributed/tensor/experimental/_attention.py, _templated_ring_attention
 * and _templated_ring_attention_backward with _cp_options.enable_load_balance,
 * default True; read at pytorch@0123248, the load balancing from
 * pytorch/pytorch#132442, 2024-09, reported on by default in #141429,
 * 2024-11). Each rank holds chunks r and 2c − 1 − r of the sequence (s'
 * tokens). Step 0 runs SDPA with is_causal on the local s' × s' block: the
 * causal kernel, F33's work ω of its s'² pairs at F22's causal rate. Each of
 * the c − 1 other steps runs it without a mask on half a block — all s'
 * queries against the first half of the arrived K/V (i ≤ rank) or the second
 * half of the queries against all of it (i > rank) — s'²/2 pairs, all
 * useful, at F22's non-causal rate with s_k keys per query: s'/2 on the
 * rank that waits on the rest (rank c − 1 takes the first case at every
 * step; the per-layer all-gather makes every rank wait on it). Of F9's
 * κ·c·s'² pairs per rank: the share ω/(c·S_d) + (c − 1)/(2κ·c·S_h), S_d =
 * F22(s') causal, S_h = F22(s'/2) non-causal. The backward re-runs the same
 * ring (the same blocks), so F5's backward = 2 × forward holds for it. */
#define PE_TEXT_X31 \
    {"X31", "attention core of PyTorch's load-balanced CP ring (refined)", \
     "F_att/(peak·e_att·D)·[ω/(c·S_d) + (c − 1)/(2κ·c·S_h)], S_d = F22(s') causal, " \
     "S_h = (s'/2)/(s'/2 + s_half)", \
     "s", "pytorch/pytorch torch/distributed/tensor/experimental/_attention.py " \
     "_templated_ring_attention (enable_load_balance)"}
inline double compute_cp_ring_core_share(double c, double omega, double kappa, double shape_diag,
                                         double shape_half)
{
    return omega / (c * shape_diag) + (c - 1.0) / (2.0 * kappa * c * shape_half);
}
/* X31 the ring's own passes, eager element-wise kernels over one rank's
 * s' × W (W = a·d/t, the repeated K/V torchtitan passes: models/llama
 * repeat_kv), in bytes per element, counted from the same code for the rank
 * of the longest steps (c − 1: every step i ≤ rank, none partial).
 * Forward: K and V made contiguous (read + write bf16, 2·4), the torch.cat of
 * K and V before each of the c − 1 sends (2·4 each), each step's output cast
 * to fp32 (_SDPAMerger.step: 2 + 4), each of the c − 1 merges out − σ(Δlse)·
 * (out − block_out) in fp32 (three passes: 12 + 8 + 12), the result cast back
 * (4 + 2): 8 + 8(c − 1) + 6c + 32(c − 1) + 6. Backward: three fp32 zeros
 * (12), K and V contiguous (8), the c − 1 K/V cats (8 each), step 0's
 * dK += and dV += in fp32 (2·10), each later step's _partial_update of dK
 * and dV (half added, 5, and torch.cat whole, 8: 2·13), the fp32 torch.cat
 * of dK and dV before each of the c sends (16), dQ += at every step (10),
 * dQ cast back (6) and the last received dK, dV cast back (12):
 * 58 + 34(c − 1) + 26c. The kernels' own traffic is in their measured rate. */
#define PE_TEXT_X31_BYTES \
    {"X31:bytes", "the CP ring's merge and accumulation passes per element of s'×W (refined)", \
     "forward 14 + 40·(c − 1) + 6c, backward 58 + 34·(c − 1) + 26c bytes; b·s'·W·bytes/(W_hbm·η_W)", \
     "bytes", "pytorch/pytorch torch/distributed/tensor/experimental/_attention.py " \
     "_SDPAMerger, _templated_ring_attention_backward"}
inline double compute_cp_ring_fwd_bytes(double c)
{
    return 14.0 + 40.0 * (c - 1.0) + 6.0 * c;
}
inline double compute_cp_ring_bwd_bytes(double c)
{
    return 58.0 + 34.0 * (c - 1.0) + 26.0 * c;
}
/* F34 (framework tp_fused_rs_reduce, with X16 and async TP): torch's
 * _fused_matmul_reduce_scatter_impl (torch/distributed/_symmetric_memory)
 * computes the t output chunks, sends each to the rank that owns it
 * (_pipelined_produce_and_all2all into stacked_partials) and, after the
 * pipeline, sums the t partials it received in one more kernel on the
 * compute stream ("the transpose and reduction produce contiguous result in
 * a single reduction kernel": torch.sum over dim 0), which NCCL's
 * reduce-scatter does inside the ring. The kernel reads the t partials,
 * S_tp bytes (the whole M × N output in the activation's dtype), and writes
 * S_tp/t: (1 + 1/t)·S_tp/(W·η_W), exposed (nothing overlaps it); 0 when
 * nothing is timed by bytes (W·η_W = 0). */
#define PE_TEXT_F34 \
    {"F34", "the sum of t partials after one fused matmul → reduce-scatter (async TP)", \
     "(1 + 1/t)·S_tp/(W·η_W) per fused reduce-scatter: 2 a layer forward (wo, w2), backward those X24 fuses", \
     "s", "torch distributed/_symmetric_memory _fused_matmul_reduce_scatter_impl"}
inline double compute_fused_rs_reduce(double s_tp, double t, double ew_bps)
{
    return ew_bps > 0.0 && t > 0.0 ? (1.0 + 1.0 / t) * s_tp / ew_bps : 0.0;
}
/* X32 (framework tp_ag_shard_stage, with X16 and async TP): torch's
 * _pipelined_multi_all_gather_and_consume (torch/distributed/_symmetric_memory,
 * pytorch@0e9ed9c) first copies the rank's own shard into its local p2p
 * (symmetric-memory) buffer on the compute stream ("mv"), then waits at a
 * barrier, and only then runs the first chunk's matmul: "to prevent
 * suboptimal scenarios, we are giving up the chance to overlap mv and b with
 * the first shard_consumer for now". The copy reads and writes the shard,
 * S/t bytes each (S the gathered bytes: S_tp, X22's S_tp/2 in float8):
 * 2·(S/t)/(W·η_W) per fused all-gather, exposed; 0 when nothing is timed by
 * bytes (W·η_W = 0). Counted from the code, no number fitted; the barrier
 * (a few µs) is not timed. */
#define PE_TEXT_X32 \
    {"X32", "the copy of the local shard into the symmetric buffer before a fused all-gather → matmul (async TP)", \
     "2·(S/t)/(W·η_W) per fused all-gather: 2 a layer forward (QKV, MLP in), backward 2 (out, MLP out) + X21's re-run 2, full recompute's forward once more", \
     "s", "pytorch@0e9ed9c torch/distributed/_symmetric_memory/__init__.py _pipelined_multi_all_gather_and_consume"}
inline double compute_ag_shard_stage(double s_ag, double t, double ew_bps)
{
    return ew_bps > 0.0 && t > 0.0 ? 2.0 * (s_ag / t) / ew_bps : 0.0;
}
/* F22 D(d) = min(1, [d/(d + d_half)]·[(128 + d_half)/128]): the head
 * dimension's factor against e_att, the figure at d = 128 (no kernel of
 * FlashAttention-3 Fig. 5 is faster at d 256 than at 128); 1 when d_half = 0. */
#define PE_TEXT_F22_HEAD \
    {"F22:head", "attention core head-dimension factor (refined)", \
     "D(d) = min(1, d/(d + d_half)·(128 + d_half)/128)", "", \
     "FlashAttention-3 Fig. 5 (arXiv:2407.08608)"}
double compute_attention_head_factor(double d, double d_half);
/* F30 the attention kernel's own F22 numbers: the framework names the
 * kernel it runs (attention_kernel), and the GPU gives that kernel's
 * measured asymptote e_att and half-length s_half (attention_fa2_*, _fa3_*,
 * _cudnn_*: each the F22 fit of the kernel's forward and backward rows of
 * scenarios/measurements/attention.csv, tests/derive_presets.py); a kernel
 * the GPU has no numbers for, or none named, keeps the GPU's own e_att
 * (attention_efficiency, else e_max) and s_half: measured is then false.
 * d_half and B_c stay the GPU's (no kernel's head-dim or tile rows). */
#define PE_TEXT_F30 \
    {"F30", "the attention kernel's measured e_att and s_half (refined)", \
     "(e_att, s_half) = (e_k, s_half,k) of the framework's attention_kernel k where the GPU " \
     "gives them, else the GPU's", "", \
     "scenarios/measurements/attention.csv (FlashAttention-3 Fig. 5-6, arXiv:2407.08608)"}
typedef struct {
    double efficiency; /* e_att */
    double half_seq;   /* s_half, tokens */
    bool measured;     /* the kernel's own numbers (false: the GPU's) */
} pe_attention_kernel_rate;
pe_attention_kernel_rate compute_attention_kernel(const pe_gpu *g, pe_attention_kernel kernel);
/* F22 the head dimension the attention kernel runs at: head_dim, h/a, or
 * with MLA the mean of d_qk and d_v (QKᵀ and AV run at each). */
double compute_attention_head_dim(const pe_model *m);

/* F21, X14: the rate of a memory-bound pass, W·η_W (W when η_W is not given) */
double compute_pass_bps(const pe_gpu *g, double hbm_bps);

/* F32 an MoE layer's compute beside its overlapped EP all-to-all on the SMs
 * the communication kernels leave (docs/model.md §12 "Compute by matrix
 * shape"): DeepSeek-V3 §3.2.2 (arXiv:2412.19437) runs its dispatch and
 * combine kernels on c = 20 of the H800's S = 132 SMs for as long as
 * DualPipe overlaps them with the other micro-batch's compute, which is
 * launched on the S − c left (§3.5.1: "we allocate 20 out of the 132 SMs
 * ... for this purpose, which will limit the computational throughput").
 * The partition holds for the whole overlapped layer, not only while bytes
 * move, so the overlapped share overlap.ep of τ_ml runs at (S − c)/S of the
 * rate: τ_ml·(1 + overlap.ep·c/(S − c)). stretch = c/(S − c), 0: off. */
#define PE_TEXT_F32 \
    {"F32", "MoE layer compute on the SMs the overlapped all-to-all leaves (refined)", \
     "τ_ml·(1 + overlap.ep·c/(S − c)) with ep > 1; c = comm_sms, S = sm_count", "s", \
     "DeepSeek-V3 arXiv:2412.19437 §3.2.2, §3.5.1"}
inline double compute_comm_sms_stretch(int64_t comm_sms, int64_t sm_count)
{
    return comm_sms > 0 && sm_count > comm_sms ? (double)comm_sms / (double)(sm_count - comm_sms)
                                               : 0.0;
}
inline double compute_comm_sms_time(double tau, double overlap_ep, double stretch)
{
    return tau * (1.0 + overlap_ep * stretch);
}

/* F10 element-wise time of `bytes` at W·η_W; 0 when η_W = 0 (untimed). */
inline double compute_elementwise_time(double bytes, double ew_bps)
{
    return ew_bps > 0.0 ? bytes / ew_bps : 0.0;
}

#endif
