/* compute.c — docs/model.md §4, FLOPs F1–F6; §12 F7–F11, F21; §14 F12–F19;
 * and their preparation. */
#include "model/compute.h"

#include "model/params.h"
#include "model/prepare.h"

extern inline double compute_recomputed_layers(pe_recompute_method method, double n_layers,
                                               double v, double ls);
extern inline double compute_fwd(double b, double s_local, double layers_per_stage,
                                 double f_layer, double f_out, int last, double t);
extern inline double compute_bwd(double f_fwd, double b, double s_local, double layers_per_stage,
                                 double x, double t);
extern inline double compute_time(double flops, double rate);
extern inline double compute_layer_fwd_time(double b, double s_local, double f_layer, double t,
                                            double rate);
extern inline double compute_layer_bwd_time(double b, double s_local, double f_layer, double x,
                                            double t, double rate);
extern inline double compute_attention_time(double b, double s_local, double f_att, double t,
                                            double rate);

extern inline double compute_gemm_flops(double M, const pe_gemm_shape *g, double t);
extern inline double compute_gemm_time(double M, double K, double N, double gemm_rate,
                                       double t_half, double hbm_bps);
extern inline pe_gemm_coef compute_gemm_coef(const pe_gemm_shape *g, double gemm_rate,
                                             double hbm_bps);
extern inline double compute_gemm_time_coef(const pe_gemm_coef *c, double M, double inv_t,
                                            double t_half);
extern inline double compute_gemm_chunks_time_coef(const pe_gemm_coef *c, double M, double t,
                                                   double inv_t, double t_half);
extern inline double compute_grouped_gemm_efficiency(double M_e, double half_rows);
extern inline double compute_expert_gemm_time_coef(const pe_gemm_coef *c, double M_e,
                                                   double inv_etp, double t_half, double half_rows);
extern inline double compute_attention_shape(double s_local, double s_half, double tile);
extern inline double compute_attention_causal_work(bool causal_work, double tile, double kappa);
extern inline double compute_cp_ring_core_share(double c, double omega, double kappa,
                                                double shape_diag, double shape_half);
extern inline double compute_cp_ring_fwd_bytes(double c);
extern inline double compute_cp_ring_bwd_bytes(double c);
extern inline double compute_elementwise_time(double bytes, double ew_bps);
extern inline double compute_fp8_cast_gathered_share(bool sp, bool cast_before_gather, double inv_t);
extern inline pe_gemm_coef compute_gemm_coef_fp8(const pe_gemm_shape *g, double gemm_rate,
                                                 double hbm_bps);

void compute_layer_gemms(const pe_model *m, pe_gemm_shape out[PE_LAYER_GEMMS])
{
    const double h = (double)m->hidden, g = (double)m->kv_heads, d = params_head_dim(m);
    const double f = (double)m->ffn_hidden, k_in = m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0;
    out[0] = (pe_gemm_shape){h, h + 2.0 * g * d, 0}; /* QKV, column-parallel */
    out[1] = (pe_gemm_shape){h, h, 1};               /* attention projection, row-parallel */
    if (m->has_head_dim || m->attention == PE_ATTENTION_MLA) {
        /* F17: heads of head_dim (a·d ≠ h) or MLA. The projection
         * takes the a·d (MLA: a·d_v) attention outputs; every other
         * attention weight (MLA: the q and kv down- and up-projections) is
         * one column-parallel multiply of the same FLOPs and weight bytes. */
        pe_moe_params mp;
        params_moe(m, &mp);
        const double a = (double)m->heads;
        const double ad = m->attention == PE_ATTENTION_MLA ? a * (double)m->v_head_dim
                                                           : a * (double)m->head_dim;
        out[0] = (pe_gemm_shape){h, (mp.att_matmul - ad * h) / h, 0};
        out[1] = (pe_gemm_shape){ad, h, 1};
    }
    out[2] = (pe_gemm_shape){h, k_in * f, 0};        /* MLP in */
    out[3] = (pe_gemm_shape){f, h, 1};               /* MLP out */
}

void compute_elementwise_bytes(const pe_model *m, double *rep, double *par, double *att,
                               double *out)
{
    const double h = (double)m->hidden, f = (double)m->ffn_hidden, a = (double)m->heads;
    const double g = (double)m->kv_heads, d = params_head_dim(m), s = (double)m->seq_len;
    const double delta = m->dropout ? 1.0 : 0.0;
    *rep = 2.0 * 4.0 * h + 2.0 * (6.0 + delta) * h; /* F10 */
    *par = (m->mlp == PE_MLP_SWIGLU ? 6.0 : 4.0) * f +
           (m->position == PE_POSITION_ROTARY ? 4.0 * (h + g * d) : 0.0);
    /* standard attention only: flash, and MLA (fused attention), keep the
     * softmax inside F9 */
    *att = m->attention != PE_ATTENTION_STANDARD ? 0.0 : (4.0 + 5.0 * delta) * a * s;
    *out = 12.0 * (double)m->vocab;
}

void compute_eager_elementwise_bytes(const pe_model *m, bool fused_rmsnorm, double *rep,
                                     double *par)
{
    const double h = (double)m->hidden, f = (double)m->ffn_hidden, a = (double)m->heads;
    const double g = (double)m->kv_heads, d = params_head_dim(m);
    const double delta = m->dropout ? 1.0 : 0.0; /* F10's mask byte, kept (Llama has none) */
    const double norm = m->norm == PE_NORM_RMSNORM && !fused_rmsnorm ? 36.0 * h : 4.0 * h;
    *rep = 2.0 * norm + 2.0 * (6.0 + delta) * h; /* F28: two norms, two residual adds */
    const double qk = a * d + g * d;   /* rotary's and repeat_kv's q and k elements */
    *par = (m->mlp == PE_MLP_SWIGLU ? 10.0 : 4.0) * f +
           (m->position == PE_POSITION_ROTARY ? 20.0 * qk : 0.0) + (g < a ? 4.0 * qk : 0.0);
}

double compute_kappa(const pe_model *m) { return m->causal_flops ? 0.5 : 1.0; }

double compute_attention(const pe_model *m)
{
    const double sa = (double)m->seq_len * (double)m->heads;
    if (m->attention == PE_ATTENTION_MLA) /* F12: 2·s·a·(d_qk + d_v)·κ */
        return 2.0 * sa *
               ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                (double)m->v_head_dim) *
               compute_kappa(m);
    if (m->has_head_dim) /* F12 with d_qk = d_v = d */
        return 4.0 * sa * (double)m->head_dim * compute_kappa(m);
    return 4.0 * (double)m->seq_len * (double)m->hidden * compute_kappa(m); /* F1 term */
}

double compute_layer(const pe_model *m)
{
    return 2.0 * params_matmul(m) + compute_attention(m); /* F1 */
}

double compute_out(const pe_model *m)
{
    return 2.0 * (double)m->hidden * (double)m->vocab; /* F2 */
}

double compute_model(const pe_model *m, double global_batch)
{
    return 3.0 * global_batch * (double)m->seq_len *
           ((double)m->layers * compute_layer(m) + compute_out(m)); /* F3 */
}

double compute_recompute(const pe_model *m, pe_recompute recompute)
{
    switch (recompute) { /* F4 */
    case PE_RECOMPUTE_FULL:
        return compute_layer(m);
    case PE_RECOMPUTE_SELECTIVE:
        return compute_attention(m);
    default:
        return 0.0;
    }
}

double compute_hardware(const pe_model *m, double global_batch, pe_recompute recompute)
{
    return compute_model(m, global_batch) + global_batch * (double)m->seq_len *
                                                (double)m->layers *
                                                compute_recompute(m, recompute); /* F4 */
}

/* ---- preparation (prepare.h) ---- */

/* F3′ and F4 of an MoE model: model FLOPs count the active experts with
 * ideal routing and no router (Megatron's num_floating_point_operations);
 * hardware FLOPs add the router GEMM, the (ρ−1) extra rows and recompute.
 * F13–F16 per token of a dense and an MoE layer. */
static void prepare_expert_flops(const pe_scenario *s, pe_eval_ctx *ctx)
{
    const pe_model *m = &s->model;
    pe_moe_ctx *e = &ctx->moe;
    pe_moe_params mp;
    params_moe(m, &mp);
    e->F_att = compute_attention(m);
    const double h = (double)m->hidden, k_mu = m->mlp == PE_MLP_GELU ? 2.0 : 3.0;
    const double routed = e->k * k_mu * h * e->f_e_d; /* k experts' weights per token */
    const double shared = (double)m->shared_experts * k_mu * h * e->f_e_d;
    const double f_model_m = 2.0 * (mp.att_matmul + shared + routed) + e->F_att; /* F14 */
    e->F_layer_d = compute_layer(m);                                              /* F13 */
    e->F_layer_m = f_model_m + 2.0 * h * e->E + 2.0 * (e->rho - 1.0) * routed;    /* F15 */
    const double Bs = (double)s->training.global_batch * (double)m->seq_len;
    const double n = mp.n_moe, nd = (double)m->layers - mp.n_moe;
    ctx->F_model = 3.0 * Bs * (nd * e->F_layer_d + n * f_model_m + ctx->F_out); /* F3′ */
    e->F8_layer_m = 2.0 * (mp.att_matmul + shared + e->rho * routed);           /* F16 */
    const double f_hw = 3.0 * Bs * (nd * e->F_layer_d + n * e->F_layer_m + ctx->F_out);
    ctx->F_hw[PE_RECOMPUTE_NONE] = f_hw;
    ctx->F_hw[PE_RECOMPUTE_SELECTIVE] = f_hw + Bs * (double)m->layers * e->F_att;
    ctx->F_hw[PE_RECOMPUTE_FULL] = f_hw + Bs * (nd * e->F_layer_d + n * e->F_layer_m);
}

/* F24 the recipes. Rates: the mean of pytorch/FBGEMM#2546's three H100
 * "gemm only" rows of a recipe (8192³, 65536×8192×7168, 65536×3584×8192)
 * over the H100 tensorwise row (1402.6 TFLOP/s, the MAMF table) of
 * fp8_gemm.csv: rowwise 1116.55/1402.6 = 0.7961, blockwise 842.35/1402.6 =
 * 0.6006 (tests/derive_presets.py recomputes both; an H100 ratio applied to
 * every GPU). delayed runs tensorwise's per-tensor-scaled GEMM (Transformer
 * Engine's DelayedScaling: one scale per tensor, from the amax history), so
 * 1 by construction; mxfp8 has no measurement in the CSV and keeps the
 * tensorwise rate. Cast bytes per element: current scaling (torchao's
 * tensorwise and rowwise dynamic scaling) reads the bf16 tensor once for
 * its amax and again to cast it, writing one FP8 byte: 2 + 2 + 1 = 5;
 * delayed scaling takes the scale from past amaxes and records this amax
 * in the cast: 2 + 1 = 3; blockwise (1×128 tiles, one fp32 scale each,
 * DeepSeek-V3 §3.3; TE Float8BlockScaling) and mxfp8 (32-element blocks,
 * one E8M0 byte each; TE MXFP8BlockScaling) find a block's amax in the
 * one pass: 2 + 1 + 4/128 and 2 + 1 + 1/32 = 3.03125. */
static const pe_fp8_recipe_cost FP8_RECIPES[] = {
    {"none", 1.0, 0.0, "F18's one FP8 rate, no cast work"},
    {"tensorwise", 1.0, 5.0, "the tensorwise rate; casts: amax pass + cast, 2 + 2 + 1 bytes"},
    {"rowwise", 0.7961, 5.0,
     "measured: pytorch/FBGEMM#2546 row gemm / tensorwise MAMF (H100); casts 2 + 2 + 1 bytes"},
    {"delayed", 1.0, 3.0, "tensorwise's GEMM (per-tensor scale); casts: 2 + 1 bytes, amax fused"},
    {"blockwise", 0.6006, 3.03125,
     "measured: pytorch/FBGEMM#2546 block gemm / tensorwise MAMF (H100); "
     "casts 2 + 1 + 4/128 bytes"},
    {"mxfp8", 1.0, 3.03125,
     "not measured: GEMM rate kept at tensorwise; casts 2 + 1 + 1/32 bytes"},
};

static const char F42_BASIS[] =
    "F42: e_row/e_max8, the rowwise kernel measured on this GPU (fp8_rowwise_gemm_efficiency); "
    "casts 2 + 2 + 1 bytes";

pe_fp8_recipe_cost compute_fp8_recipe(pe_fp8_recipe recipe)
{
    return FP8_RECIPES[recipe];
}

bool compute_fp8_measured_rate_on(pe_fp8_recipe recipe, double e_max8, double e_row)
{
    return recipe == PE_FP8_RECIPE_ROWWISE && e_row > 0.0 && e_max8 > 0.0;
}

double compute_fp8_measured_rate_ratio(pe_fp8_recipe recipe, double r, double e_max8,
                                       double e_row)
{
    return compute_fp8_measured_rate_on(recipe, e_max8, e_row) ? e_row / e_max8 : r;
}

bool compute_fp8_kernel_rate_on(const pe_gpu *g, const pe_framework *fw)
{
    return fw->present && fw->fp8_kernel_rate && g->fp8_kernel_gemm_efficiency > 0.0;
}

double compute_fp8_gemm_efficiency(const pe_gpu *g, const pe_framework *fw)
{
    if (compute_fp8_kernel_rate_on(g, fw))
        return g->fp8_kernel_gemm_efficiency; /* F42 the measured kernel, no casts */
    return g->has_fp8_gemm_efficiency ? g->fp8_gemm_efficiency : g->gemm_efficiency; /* F18 */
}

pe_fp8_role_casts compute_fp8_role_casts(pe_fp8_recipe recipe, double c,
                                         const pe_gemm_shape gemms[PE_LAYER_GEMMS])
{
    pe_fp8_role_casts r = {0.0, 0.0, 0.0, 0.0};
    const double layout = 2.0; /* F35 wgrad's operand copied into _scaled_mm's layout */
    const double g_bytes = (recipe == PE_FP8_RECIPE_ROWWISE ? 2.0 * c : c) + layout;
    for (int i = 0; i < PE_LAYER_GEMMS; i++) {
        const pe_gemm_shape *g = &gemms[i];
        /* column-parallel: X gathered, G sharded; row-parallel: X sharded, G gathered */
        double *x_fwd = g->k_sharded ? &r.fwd_sharded : &r.fwd_gathered;
        double *x_bwd = g->k_sharded ? &r.bwd_sharded : &r.bwd_gathered;
        double *g_bwd = g->k_sharded ? &r.bwd_gathered : &r.bwd_sharded;
        *x_fwd += c * g->K;
        *x_bwd += (c + layout) * g->K;
        *g_bwd += g_bytes * g->N;
    }
    return r;
}

/* F35, F36 with fp8_cast_by_role: the casts leave F24's element-wise bytes
 * and are timed role by role (compute_step.h). */
static bool prepare_fp8_role_casts(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_fp8_recipe rc = sc->precision.fp8_recipe;
    ctx->cast_by_role = ctx->fp8 && sc->framework.present && sc->framework.fp8_cast_by_role &&
                        (rc == PE_FP8_RECIPE_TENSORWISE || rc == PE_FP8_RECIPE_ROWWISE);
    if (!ctx->cast_by_role)
        return false;
    ctx->cast_before_gather = sc->framework.tp_fp8_all_gather && rc == PE_FP8_RECIPE_TENSORWISE;
    ctx->cast_roles = compute_fp8_role_casts(rc, ctx->fp8_cost.cast_bytes, ctx->gemms);
    const double inv_bw = ctx->ew_bps > 0.0 ? 1.0 / ctx->ew_bps : 0.0; /* η_W = 0: untimed */
    ctx->cast_roles_s = (pe_fp8_role_casts){
        ctx->cast_roles.fwd_gathered * inv_bw, ctx->cast_roles.fwd_sharded * inv_bw,
        ctx->cast_roles.bwd_gathered * inv_bw, ctx->cast_roles.bwd_sharded * inv_bw};
    return true;
}

/* F24 the recipe's GEMM rate on F18's, and its casts as F10 element-wise
 * bytes per token: each FP8 GEMM's input of K elements, replicated for the
 * column-parallel GEMMs (QKV, fc1), TP-sharded for the row-parallel ones
 * (projection, fc2); the backward's casts (output gradients, the
 * transposed copies) come with §12's backward = 2 × forward. Weights are
 * cast once a step into M7's cached copies and not counted. */
static void prepare_fp8_recipe(const pe_scenario *sc, pe_eval_ctx *ctx, double e8)
{
    const pe_fp8_recipe rc = ctx->fp8 ? sc->precision.fp8_recipe : PE_FP8_RECIPE_NONE;
    const double e_row = sc->cluster.gpu.fp8_rowwise_gemm_efficiency;
    ctx->fp8_cost = compute_fp8_recipe(rc);
    if (compute_fp8_measured_rate_on(rc, e8, e_row)) { /* F42 */
        ctx->fp8_cost.rate_ratio = compute_fp8_measured_rate_ratio(rc, ctx->fp8_cost.rate_ratio,
                                                                   e8, e_row);
        ctx->fp8_cost.basis = F42_BASIS;
    }
    ctx->gemm_rate8 *= ctx->fp8_cost.rate_ratio;
    ctx->cast_rep = ctx->cast_par = 0.0;
    if (prepare_fp8_role_casts(sc, ctx)) /* F35, F36 instead of F24's bytes per token */
        return;
    for (int i = 0; i < PE_LAYER_GEMMS; i++) {
        const pe_gemm_shape *g = &ctx->gemms[i];
        *(g->k_sharded ? &ctx->cast_par : &ctx->cast_rep) += ctx->fp8_cost.cast_bytes * g->K;
    }
    ctx->ew_rep += ctx->cast_rep, ctx->ew_par += ctx->cast_par;
}

/* F8–F10 as coefficients of M and 1/t (the hot path only multiplies); F18
 * the layer GEMMs' FP8 coefficients with compute: fp8. */
static void prepare_coefficients(pe_eval_ctx *ctx)
{
    for (int i = 0; i < PE_LAYER_GEMMS; i++)
        ctx->gemm_coef[i] = ctx->fp8 ? compute_gemm_coef_fp8(&ctx->gemms[i], ctx->gemm_rate8,
                                                             ctx->hbm_bps)
                                     : compute_gemm_coef(&ctx->gemms[i], ctx->gemm_rate,
                                                         ctx->hbm_bps);
    const pe_gemm_shape out = {ctx->h, ctx->V, 0}; /* the output layer, column-parallel */
    ctx->out_coef = compute_gemm_coef(&out, ctx->gemm_rate, ctx->hbm_bps);
    ctx->core_s = ctx->att_head < 1.0 ? ctx->F_att / (ctx->att_rate * ctx->att_head) /* F22 */
                                      : ctx->F_att / ctx->att_rate;
    ctx->core_unit_s = ctx->core_s; /* X31: before F33's ω */
    ctx->core_s *= ctx->att_work; /* F33 (1: off, exact) */
    const double inv_bw = ctx->ew_bps > 0.0 ? 1.0 / ctx->ew_bps : 0.0; /* η_W = 0: untimed */
    ctx->ew_rep_s = ctx->ew_rep * inv_bw, ctx->ew_par_s = ctx->ew_par * inv_bw;
    ctx->ew_att_s = ctx->ew_att * inv_bw, ctx->ew_out_s = ctx->ew_out * inv_bw;
}

/* §12 F7–F11, when the GPU gives gemm_efficiency (the loader has set every
 * refinement neutral under fidelity: textbook); §14 F18: with MoE or FP8 the
 * FP8 GEMM rate peak_fp8·e_max8, and with compute: fp8 the layer GEMMs at it
 * (same F_half, FP8 roofline). */
static void prepare_refined(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_gpu *g = &sc->cluster.gpu;
    compute_layer_gemms(&sc->model, ctx->gemms);                          /* F7 */
    const double sigma = compute_gemm_rate_scale(&sc->framework);         /* F26 */
    ctx->gemm_rate = ctx->peak * g->gemm_efficiency * sigma;              /* F8 */
    ctx->t_half = g->gemm_half_gflop * 1e9 / ctx->gemm_rate;
    ctx->att_kernel = compute_attention_kernel(g, sc->framework.attention_kernel); /* F30 */
    ctx->att_rate = ctx->peak * ctx->att_kernel.efficiency;                 /* F9 */
    /* F22: by shape when a preset or the scenario gives s_half, d_half or B_c */
    ctx->att_by_shape = ctx->att_kernel.half_seq > 0.0 || g->attention_causal_tile > 0.0;
    ctx->att_half_seq = ctx->att_kernel.half_seq, ctx->att_tile = g->attention_causal_tile;
    ctx->att_work = compute_attention_causal_work(sc->framework.attention_causal_work,
                                                  g->attention_causal_tile,
                                                  compute_kappa(&sc->model)); /* F33 */
    ctx->att_kappa = compute_kappa(&sc->model);
    ctx->cp_ring_lb = sc->framework.cp_ring_load_balance; /* X31 */
    ctx->cp_ring_merge_w = (double)sc->model.heads * compute_attention_head_dim(&sc->model);
    ctx->att_head = compute_attention_head_factor(compute_attention_head_dim(&sc->model),
                                                  g->attention_half_head_dim);
    ctx->ew_bps = ctx->hbm_bps * g->elementwise_efficiency;               /* F10 */
    compute_elementwise_bytes(&sc->model, &ctx->ew_rep, &ctx->ew_par, &ctx->ew_att,
                              &ctx->ew_out);
    if (compute_eager(&sc->framework)) /* F28 replaces F10's fused rep and par */
        compute_eager_elementwise_bytes(&sc->model, sc->framework.fused_rmsnorm, &ctx->ew_rep,
                                        &ctx->ew_par);
    ctx->t_mb = g->microbatch_overhead_us / 1e6;                          /* F11 */
    if (ctx->ext) {
        const double e8 = compute_fp8_gemm_efficiency(g, &sc->framework); /* F18, F42 */
        ctx->gemm_rate8 = g->peak_fp8_tflops * 1e12 * e8 * sigma; /* F18, F26 */
        prepare_fp8_recipe(sc, ctx, e8);                   /* F24, F42 */
    }
    ctx->t_half_layer = ctx->fp8 ? g->gemm_half_gflop * 1e9 / ctx->gemm_rate8 : ctx->t_half;
    prepare_coefficients(ctx);
}

/* §14 F19 an MoE layer's shared-expert, router and routed-expert GEMMs
 * (F18's FP8 coefficients with compute: fp8; the router stays bf16) and its
 * element-wise bytes. */
static void prepare_refined_experts(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_moe_ctx *e = &ctx->moe;
    const double rate = ctx->fp8 ? ctx->gemm_rate8 : ctx->gemm_rate;
    const double h = ctx->h, k_in = m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0, fe = e->f_e_d;
    const double nsf = (double)e->sh_f; /* n_s·f_e */
    const pe_gemm_shape shapes[5] = {ctx->moe_sh_fc1, {nsf, h, 1}, {h, e->E, 0},
                                     {h, k_in * fe, 0}, {fe, h, 1}};
    for (int i = 0; i < 5; i++)
        ctx->moe_coef[i] = i == 2 || !ctx->fp8
                               ? compute_gemm_coef(&shapes[i], i == 2 ? ctx->gemm_rate : rate,
                                                   ctx->hbm_bps)
                               : compute_gemm_coef_fp8(&shapes[i], rate, ctx->hbm_bps);
    const double act = m->mlp == PE_MLP_SWIGLU ? 6.0 : 4.0; /* F10's activation bytes */
    const double ew_par_m = ctx->ew_par + act * ((e->rho * e->k + (double)m->shared_experts) * fe -
                                                 (double)m->ffn_hidden);
    ctx->ew_par_m_s = ctx->ew_bps > 0.0 ? ew_par_m / ctx->ew_bps : 0.0;
    ctx->moe_half_rows = sc->cluster.gpu.grouped_gemm_half_rows; /* F38 */
    const pe_framework *fw = &sc->framework; /* F23, a memory-bound pass like F21 */
    ctx->moe_permute_s = fw->present && fw->moe_permute_bytes > 0.0
                             ? fw->moe_permute_bytes * h /
                                   compute_pass_bps(&sc->cluster.gpu, ctx->hbm_bps)
                             : 0.0;
}

pe_attention_kernel_rate compute_attention_kernel(const pe_gpu *g, pe_attention_kernel kernel)
{
    const double own = g->has_attention_efficiency ? g->attention_efficiency : g->gemm_efficiency;
    pe_attention_kernel_rate r = {own, g->attention_half_seq, false};
    const double e[] = {0.0, g->attention_fa2_efficiency, g->attention_fa3_efficiency,
                        g->attention_cudnn_efficiency};
    const double s_half[] = {0.0, g->attention_fa2_half_seq, g->attention_fa3_half_seq,
                             g->attention_cudnn_half_seq};
    if (kernel > PE_ATTENTION_KERNEL_NONE && kernel <= PE_ATTENTION_KERNEL_CUDNN &&
        e[kernel] > 0.0) /* F30: that kernel measured on this GPU */
        r = (pe_attention_kernel_rate){e[kernel], s_half[kernel], true};
    return r;
}

double compute_attention_head_factor(double d, double d_half)
{
    if (d_half <= 0.0)
        return 1.0;
    const double f = d / (d + d_half) * (128.0 + d_half) / 128.0; /* F22 */
    return f < 1.0 ? f : 1.0;
}

double compute_attention_head_dim(const pe_model *m)
{
    if (m->attention == PE_ATTENTION_MLA)
        return 0.5 * ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                      (double)m->v_head_dim);
    if (m->has_head_dim)
        return (double)m->head_dim;
    return (double)m->hidden / (double)m->heads;
}

extern inline double compute_op_sac_recompute(double h, double a, double g, double d, double f);
extern inline double compute_op_sac_elementwise(double ew_fwd, double ew_att, double cast_f,
                                                double c, double amax_saved);
extern inline double compute_gemm_rate_scale(const pe_framework *fw);
extern inline bool compute_eager(const pe_framework *fw);
extern inline double compute_comm_sms_stretch(int64_t comm_sms, int64_t sm_count);
extern inline double compute_comm_sms_time(double tau, double overlap_ep, double stretch);
extern inline double compute_fused_rs_reduce(double s_tp, double t, double ew_bps);
extern inline double compute_ag_shard_stage(double s_ag, double t, double ew_bps);

/* F25 with A15's op policy (ctx->op_sac, from memory_prepare) on a dense
 * model: x and the hardware FLOPs of recompute: selective are the unsaved
 * matmuls', and the refined model times them as those GEMMs' shares —
 * wk's g·d of QKV's a·d + 2·g·d columns, all of wo, w3's half of SwiGLU's
 * MLP-in (or all of MLP-out without SwiGLU). */
static void prepare_op_sac(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const double a = (double)m->heads, g = (double)m->kv_heads, f = (double)m->ffn_hidden;
    const double d = m->has_head_dim ? (double)m->head_dim : params_head_dim(m);
    const double x_op = compute_op_sac_recompute(ctx->h, a, g, d, f);
    const double Bs = (double)sc->training.global_batch * (double)m->seq_len;
    ctx->x[PE_RECOMPUTE_SELECTIVE] = x_op;
    ctx->F_hw[PE_RECOMPUTE_SELECTIVE] =
        ctx->F_hw[PE_RECOMPUTE_NONE] + Bs * (double)m->layers * x_op;
    const int swiglu = m->mlp == PE_MLP_SWIGLU;
    ctx->op_rec_share[0] = g * d / (a * d + 2.0 * g * d);
    ctx->op_rec_share[1] = 1.0;
    ctx->op_rec_share[2] = swiglu ? 0.5 : 0.0;
    ctx->op_rec_share[3] = swiglu ? 0.0 : 1.0;
    ctx->op_sac_ew = sc->framework.present && sc->framework.op_sac_recompute_elementwise; /* F39 */
    ctx->op_sac_amax_saved =
        sc->precision.fp8_recipe == PE_FP8_RECIPE_TENSORWISE ? PE_F39_AMAX_READ_BYTES : 0.0;
}

double compute_pass_bps(const pe_gpu *g, double hbm_bps)
{
    const double eta_w = g->elementwise_efficiency; /* also without F7–F11 */
    return eta_w > 0.0 ? hbm_bps * eta_w : hbm_bps;
}

void compute_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_gpu *g = &sc->cluster.gpu;
    const pe_framework *fw = &sc->framework;
    const double B = (double)sc->training.global_batch;
    ctx->peak = g->peak_tflops * 1e12;
    ctx->rate = ctx->peak * g->flops_efficiency; /* peak·e */
    ctx->hbm_bps = g->hbm_tb_s * 1e12;            /* W */
    ctx->F_layer = compute_layer(m);              /* F1 */
    ctx->F_out = compute_out(m);                  /* F2 */
    ctx->F_att = compute_attention(m);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++)
        ctx->x[rc] = compute_recompute(m, (pe_recompute)rc); /* F4 */
    if (ctx->moe.on) {
        prepare_expert_flops(sc, ctx); /* F3′, F4, F13–F16 */
    } else {
        ctx->F_model = compute_model(m, B); /* F3 */
        for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc++)
            ctx->F_hw[rc] = compute_hardware(m, B, (pe_recompute)rc); /* F4 */
    }
    if (ctx->op_sac && !ctx->moe.on)
        prepare_op_sac(sc, ctx); /* F25 */
    if (ctx->fp8) { /* F16: the linear layers at the FP8 peak */
        ctx->rate8 = g->peak_fp8_tflops * 1e12 * g->flops_efficiency;
        ctx->F8_layer = 2.0 * ctx->N8_layer;
    }
    /* F19 the shared experts' first GEMM (fc1, gate and up together with
     * swiglu): h × k_μ·n_s·f_e, column-parallel (also X13's window) */
    ctx->moe_sh_fc1 = (pe_gemm_shape){ctx->h,
                                      (m->mlp == PE_MLP_SWIGLU ? 2.0 : 1.0) * (double)ctx->moe.sh_f, 0};
    ctx->refined_compute = g->has_gemm_efficiency;
    if (ctx->refined_compute)
        prepare_refined(sc, ctx);
    else if (fw->present && fw->tp_async_backward)
        compute_layer_gemms(m, ctx->gemms); /* X13 windows at F6's rate */
    if (ctx->refined_compute && ctx->moe.on)
        prepare_refined_experts(sc, ctx);
    ctx->comm_sms_stretch = ctx->refined_compute && ctx->moe.on && fw->present /* F32 */
                                ? compute_comm_sms_stretch(fw->comm_sms, g->sm_count)
                                : 0.0;
    /* F21 (framework grad_accum_bytes): a memory-bound pass at W·η_W */
    ctx->accum_s_per_param = fw->present ? fw->grad_accum_bytes / compute_pass_bps(g, ctx->hbm_bps)
                                         : 0.0;
}
