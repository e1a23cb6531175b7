/* explain.c — one plan's arithmetic, equation by equation (docs/model.md ids).
 *
 * Each quantity is printed as
 *   ID  what = formula
 *         = the numbers substituted
 *         = result unit                                  [source]
 * with the evaluator's own numbers (evaluate_plan_detail): nothing here
 * recomputes a model figure, so explain and the report cannot disagree. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/pipeline_layout.h"
#include "model/detail.h"
#include "model/formula.h"
#include "cli/explain.h"
#include "model/memory.h"
#include "model/memory_lora.h"
#include "model/memory_deepspeed.h"
#include "model/memory_megatron.h"
#include "model/memory_native.h"
#include "model/pipeline.h"
#include "model/rules.h"
#include "model/run.h"
#include "model/step.h"
#include "sweep/plans.h"

#define GIB 1073741824.0

/* docs/model.md §10 */
static const char *const SOURCES[][2] = {
    {"Korthikanti", "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models, arXiv:2205.05198 (2022)"},
    {"Narayanan", "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, arXiv:2104.04473 (2021)"},
    {"ZeRO", "Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter Models, arXiv:1910.02054 (2020)"},
    {"Micikevicius", "Micikevicius et al., Mixed Precision Training, arXiv:1710.03740 (2018)"},
    {"GPipe", "Huang et al., GPipe, arXiv:1811.06965 (2019)"},
    {"Qi", "Qi et al., Zero Bubble Pipeline Parallelism, arXiv:2401.10241 (2023)"},
    {"Thakur", "Thakur, Rabenseifner, Gropp, Optimization of Collective Communication Operations in MPICH, IJHPCA 19(1) (2005); NVIDIA nccl-tests doc/PERFORMANCE.md"},
    {"DAPPLE", "Fan et al., DAPPLE: A Pipelined Data Parallel Approach for Training Large Models, PPoPP 2021, arXiv:2007.01045: its planner's pipeline length (m−1)·max_j t_j + Σ_j t_j"},
    {"Liu", "Liu et al., Ring Attention with Blockwise Transformers, arXiv:2310.01889 (2023)"},
    {"Hockney", "Hockney, The communication challenge for MPP: Intel Paragon and Meiko CS-2, Parallel Computing 20(3) (1994); Hockney & Jesshope, Parallel Computers 2 (1988): performance r∞ and half-performance size n½"},
    {"Williams", "Williams, Waterman, Patterson, Roofline: an insightful visual performance model for multicore architectures, CACM 52(4) (2009)"},
    {"spec", "planeval docs/model.md (a definition of this tool, no outside source)"},
    {"Luccioni", "Luccioni, Viguier, Ligozat, Estimating the Carbon Footprint of BLOOM, a 176B Parameter Language Model, arXiv:2211.02001 (2022): energy as board power (TDP) x GPU-hours x PUE"},
    {"DGX", "NVIDIA DGX A100, DGX H100/H200 and DGX B200 datasheets: maximum system power (node_overhead_w of the catalog's DGX nodes)"},
    {"Llama3", "Llama Team, AI @ Meta, The Llama 3 Herd of Models, arXiv:2407.21783 (2024) §3.3.4: 419 unexpected interruptions in 54 days on 16,384 H100s"},
    {"Young", "Young, A first order approximation to the optimum checkpoint interval, Communications of the ACM 17(9):530-531 (1974)"},
    {"Daly", "Daly, A higher order estimate of the optimum checkpoint interval for restart dumps, Future Generation Computer Systems 22(3):303-312 (2006)"},
};

void explain_sources(FILE *out)
{
    fprintf(out, "\nSources:\n");
    for (size_t i = 0; i < sizeof SOURCES / sizeof SOURCES[0]; i++)
        fprintf(out, "  [%s] %s\n", SOURCES[i][0], SOURCES[i][1]);
}

/* ------------------------------------------------------------ lines */

static void heading(FILE *out, const char *title) { fprintf(out, "\n== %s\n", title); }

/* One quantity: id, name, formula, substitution (printf), value, unit, source. */
__attribute__((format(printf, 4, 5))) static void eq_begin(FILE *out, const char *id,
                                                          const char *what, const char *fmt, ...)
{
    fprintf(out, "%-4s %s = ", id, what);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

__attribute__((format(printf, 2, 3))) static void eq_subst(FILE *out, const char *fmt, ...)
{
    fprintf(out, "       = ");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

static void eq_value(FILE *out, double value, const char *unit, const char *source)
{
    char v[64];
    if (strcmp(unit, "bytes") == 0)
        snprintf(v, sizeof v, "%.6g bytes = %.6g GiB", value, value / GIB);
    else
        snprintf(v, sizeof v, "%.6g %s", value, unit);
    fprintf(out, "       = %-52s [%s]\n", v, source);
}

/* One equation of the model's formula table (model/formula.h), printed as
 * eq_begin prints it: "ID   what = formula", what the table's name (and the
 * stage, when given) or, with eq_formula_as, the caller's. */
static void eq_formula_line(FILE *out, const pe_formula *f, const char *what, const char *stage)
{
    const int id_len = (int)strcspn(f->key, ":"); /* "A6:full" prints as A6 */
    char id[16];
    snprintf(id, sizeof id, "%.*s", id_len, f->key);
    if (stage)
        fprintf(out, "%-4s %s %s = %s\n", id, what, stage, f->formula);
    else
        fprintf(out, "%-4s %s = %s\n", id, what, f->formula);
}

static void eq_formula(FILE *out, const char *key, const char *stage)
{
    const pe_formula *f = pe_formula_find(key);
    eq_formula_line(out, f, f->what, stage);
}

static void eq_formula_as(FILE *out, const char *key, const char *what)
{
    eq_formula_line(out, pe_formula_find(key), what, NULL);
}

/* Its value, with the table's unit and source. */
static void eq_result(FILE *out, double value, const char *key)
{
    const pe_formula *f = pe_formula_find(key);
    eq_value(out, value, f->unit, f->source);
}

/* Stage label for the arrays of pe_detail. */
static const char *stage_name(int i, const pe_plan *pl, const pe_detail *d, char buf[32])
{
    const long long p = pl->pp;
    if (p == 1)
        return "(the one stage)";
    snprintf(buf, 32, "(stage %lld)", i == 0 ? 0LL : i == 1 ? p - 1 : (long long)d->mid_stage);
    return buf;
}

/* Stages the arrays of pe_detail hold: 1 (p = 1), 2, or 3 with uneven
 * stages or MoE layers and p ≥ 3 ([2] is a middle stage). */
static int shown_stages(const pe_plan *p, const pe_detail *d)
{
    return p->pp == 1 ? 1 : d->stages;
}

static const char *yes(bool b) { return b ? "ok" : "FAILS"; }

/* ------------------------------------------------------------ sections */

/* §1: each rule of the model's table that explain shows, with the plan's
 * numbers (model/rules.c), and whether it holds. */
static void explain_validity(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                             const pe_result *r)
{
    heading(out, "Plan validity (docs/model.md §1)");
    char line[512];
    for (int i = 0; i < PE_RULE_COUNT; i++) {
        const pe_rule *rule = &pe_rules[i];
        if (!rule->explain)
            continue;
        rule->explain(line, sizeof line, ctx, p);
        fprintf(out, "%-4s %s   %s\n", rule->id, line, yes(!(r->failed & rule->bit)));
    }
}

/* One stage's term of P15 as printed: "[..]/t + L_j·N_att,rep·(1 − 1/t)". */
static void p15_term(char *buf, size_t size, const pe_eval_ctx *ctx, const pe_plan *p,
                     const pe_detail *d, int i)
{
    const pe_moe_ctx *e = &ctx->moe;
    const bool first = i == 0 || p->pp == 1, last = i == 1 || p->pp == 1;
    const double n = d->moe.n_moe[i], nd = d->stage_layers[i] - n, t = (double)p->tp;
    snprintf(buf, size, "[%g·%.6g + %g·%.6g + %.6g + %.6g]/%g + %g·%.6g·(1 − 1/%g)", nd,
             e->N_layer_d, n, e->N_dense_part, first ? ctx->N_embed : 0.0,
             last ? d->n_out + ctx->norm_h : 0.0, t, d->stage_layers[i], e->N_att_rep, t);
}

/* §2 P15 (experts): a stage's dense parameters per GPU, the MoE layers'
 * attention, router and shared experts beside the dense layers, as
 * mem_stage_state counts them (the experts themselves are P16's); under
 * dualpipe (M14) a rank's two stages, the middle one's mirror taken equal
 * to it. */
static void explain_p15(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                        const pe_detail *d, int i)
{
    char sb[32], what[96], one[256], two[256] = "";
    snprintf(what, sizeof what, "N_gpu, dense parameters per GPU %s", stage_name(i, p, d, sb));
    eq_begin(out, "P15", what,
             "[(L_j − n_j)·N_layer^d + n_j·N^m,d + (first ? N_embed) + (last ? N_out + "
             "norm(h))]/t + L_j·N_att,rep·(1 − 1/t)");
    p15_term(one, sizeof one, ctx, p, d, i);
    const bool dual = p->schedule == PE_SCHEDULE_DUALPIPE && p->pp > 1;
    if (dual)
        p15_term(two, sizeof two, ctx, p, d, i == 0 ? 1 : i == 1 ? 0 : i);
    eq_subst(out, "%s%s%s  (%sthe experts: P16)", one, dual ? " + " : "", two,
             dual ? "M14: this stage and its mirror; " : "");
    eq_value(out, d->n_gpu[i], "parameters", "design §2");
}

static void explain_params(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                           const pe_detail *d)
{
    const pe_model *m = &ctx->scenario->model;
    heading(out, "Parameters (docs/model.md §2)");
    double k_mu = m->mlp == PE_MLP_SWIGLU ? 3 : 2;
    eq_formula(out, "P1", NULL);
    eq_subst(out, "%g·(%g + 2·%g·%g) + %g·%g + %g·%g·%lld", ctx->h, ctx->h, ctx->g, ctx->d,
             ctx->h, ctx->h, k_mu, ctx->h, (long long)m->ffn_hidden);
    eq_result(out, ctx->N_mm, "P1");
    if (m->has_params) {
        eq_formula(out, "P6", NULL);
        eq_subst(out, "(%.6g − %.6g − %.6g − %g) / %g", m->params, ctx->N_embed, ctx->N_out_p1,
                 ctx->norm_h, ctx->L);
        eq_result(out, ctx->N_layer, "P6");
    } else {
        eq_formula(out, "P2", NULL);
        eq_subst(out, "%.6g + %s + 2·%g", ctx->N_mm, m->bias ? "biases" : "0", ctx->norm_h);
        eq_result(out, ctx->N_layer, "P2");
    }
    eq_formula(out, "P3", NULL);
    eq_subst(out, "%g·%g + %d·%g·%g", ctx->V, ctx->h, m->position == PE_POSITION_LEARNED,
             ctx->s, ctx->h);
    eq_result(out, ctx->N_embed, "P3");
    eq_formula(out, "P4", NULL);
    eq_subst(out, "%s", ctx->tied && p->pp == 1 ? "0 (tied, p = 1)" : "V·h");
    eq_result(out, d->n_out, "P4");
    char sb[32];
    for (int i = 0; i < (shown_stages(p, d)); i++) {
        bool first = i == 0, last = i == 1 || p->pp == 1;
        if (ctx->moe.on) {
            explain_p15(out, ctx, p, d, i);
            continue;
        }
        eq_formula(out, "P7", stage_name(i, p, d, sb));
        eq_subst(out, "[%g·%.6g + %.6g + %.6g] / %lld", d->stage_layers[i], ctx->N_layer,
                 first ? ctx->N_embed : 0.0, last ? d->n_out + ctx->norm_h : 0.0,
                 (long long)p->tp);
        eq_result(out, d->n_gpu[i], "P7");
    }
}

/* §12 M14: under dualpipe the M1–M3 above are of a rank's two stages. */
static void explain_m14(FILE *out, const pe_plan *p, const pe_detail *d)
{
    char sb[32];
    for (int i = 0, stages = shown_stages(p, d); i < stages; i++) {
        const char *st = stage_name(i, p, d, sb);
        const double j = i == 0 ? 0.0 : i == 1 ? (double)p->pp - 1.0 : (double)d->mid_stage;
        eq_formula(out, "M14", st);
        eq_subst(out, "stages %g and %g%s: N_gpu = %.6g, M1 + M2 + M3 = %.6g + %.6g + %.6g", j,
                 (double)p->pp - 1.0 - j, i == 2 ? " (the mirror taken equal to this one)" : "",
                 d->n_gpu[i], d->m1[i], d->m2[i], d->m3[i]);
        eq_result(out, d->m1[i] + d->m2[i] + d->m3[i], "M14");
    }
}

/* §12 A21: a DualPipe rank's activations, k = min(p + 1, m). */
static void explain_a21(FILE *out, const pe_plan *p, const pe_detail *d, int i, const char *st)
{
    eq_formula(out, "A21", st);
    eq_subst(out, "k = min(%lld + 1, %g) = %g; (A6 of this stage + A6 of its mirror)/2, "
                  "A_layer = %.6g (dense), stage layers %g",
             (long long)p->pp, d->m, d->k[i], d->a_layer, d->stage_layers[i]);
    eq_result(out, d->a6[i], "A21");
}

/* §3 M16 one layer's adapters on one TP rank, and M17 the frozen base's
 * working set (training.finetune: lora). */
static void explain_lora_layer(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d)
{
    const pe_lora_ctx *lo = &ctx->lora;
    const double t = (double)p->tp;
    const double n_ad = params_lora_layer(lo->r, lo->rep, lo->sh, t);
    eq_formula(out, "M16", NULL);
    eq_subst(out, "%g·(%g + %g/%g)  (r = lora_rank; %g targeted linears)", lo->r, lo->rep, lo->sh,
             t, lo->targets);
    eq_result(out, n_ad, "M16");
    const double x = mem_lora_layer_weights(lo->beta_q, ctx->beta_w, ctx->N_mm, ctx->N_layer, t);
    eq_formula(out, "M17", NULL);
    const double c = ctx->beta_w * lo->dequant / t;
    eq_subst(out, "c = %g·%.6g/%g = %.6g; x = (%.12g·%.6g + %g·(%.6g − %.6g))/%g = %.6g",
             ctx->beta_w, lo->dequant, t, c, lo->beta_q, ctx->N_mm, ctx->beta_w, ctx->N_layer,
             ctx->N_mm, t, x);
    if (p->zero == 3)
        eq_subst(out, "max(2·%.6g + %g·%.6g + %.6g, 2·%g·%.6g/%g)", x, ctx->beta_g, n_ad, c,
                 ctx->beta_w, ctx->Vh, t);
    eq_result(out, d->m4, "M17");
}

/* §3 M15 and M16's states on each stage (training.finetune: lora): M1 the
 * frozen base and the adapters, M2 and M3 the adapters' alone. */
static void explain_lora_state(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d)
{
    const pe_lora_ctx *lo = &ctx->lora;
    const long long z = p->zero;
    const double t = (double)p->tp;
    fprintf(out, "     finetune: lora, base_quant %s: β_q = %.12g bytes per frozen linear weight "
                 "(nf4: (4 + 8/64 + 32/(64·256))/8, QLoRA §3)\n",
            pe_base_quant_name(ctx->scenario->training.base_quant), lo->beta_q);
    char sb[32];
    for (int i = 0; i < shown_stages(p, d); i++) {
        const char *st = stage_name(i, p, d, sb);
        const double n_lin = d->stage_layers[i] * ctx->N_mm / t;
        eq_formula(out, "M15", st);
        eq_subst(out, "[%.12g·%.6g + %g·(%.6g − %.6g)] / %g", lo->beta_q, n_lin, ctx->beta_w,
                 d->n_gpu[i], n_lin, z >= 3 ? d->D : 1.0);
        eq_result(out, d->m15[i], "M15");
        fprintf(out, "     adapters (M16) %s: N_ad = %g layers · M16 = %.6g\n", st,
                d->stage_layers[i], d->n_train[i]);
        eq_begin(out, "M1", "weights (lora)", "M15 + β_w·N_ad / (z ≥ 3 ? D : 1)");
        eq_subst(out, "%.6g + %g·%.6g / %g", d->m15[i], ctx->beta_w, d->n_train[i],
                 z >= 3 ? d->D : 1.0);
        eq_result(out, d->m1[i], "M1");
        eq_begin(out, "M2", "gradients (lora: the adapters' alone)", "β_g·N_ad / (z ≥ 2 ? D : 1)");
        eq_subst(out, "%g·%.6g / %g", ctx->beta_g, d->n_train[i], z >= 2 ? d->D : 1.0);
        eq_result(out, d->m2[i], "M2");
        eq_begin(out, "M3", "optimizer (lora: the adapters' alone)", "β_o·N_ad / (z ≥ 1 ? D : 1)");
        eq_subst(out, "%g·%.6g / %g", ctx->beta_o, d->n_train[i], z >= 1 ? d->D : 1.0);
        eq_result(out, d->m3[i], "M3");
    }
    explain_lora_layer(out, ctx, p, d);
}

/* §3 one of M1–M3 (M1′–M3′ with experts) on one stage: β·N_gpu over D
 * when z ≥ zmin, + β·N_exp over edp with experts; M1 adds M7's FP8 weight
 * copies, and under M10 its shard is 0; M3 is 0 when offloaded (M3″). The
 * textbook line where none of these applies. */
static void explain_state_term(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d, int i, const char *st, int which)
{
    static const char *const ids[] = {"M1", "M2", "M3"};
    static const char *const whats[] = {"weights", "gradients", "optimizer"};
    static const char *const primes[] = {" with experts (M1′)", " with experts (M2′)",
                                         " with experts (M3′)"};
    static const char *const betas[] = {"β_w", "β_g", "β_o"};
    const double beta[] = {ctx->beta_w, ctx->beta_g, ctx->beta_o};
    const double value[] = {d->m1[i], d->m2[i], d->m3[i]};
    const long long z = p->zero, zmin = 3 - which;
    const bool moe = ctx->moe.on, m7 = which == 0 && ctx->fp8;
    const bool m10 = which == 0 && !ctx->lora.on && ctx->mem_phases && ctx->master_only && z == 3;
    const bool off = which == 2 && p->offload_optimizer;
    const double shard = z >= zmin ? d->D : 1.0, shard_e = z >= zmin ? d->moe.D_e : 1.0;
    if (!moe && !m7 && !m10 && !off) { /* the textbook line */
        eq_formula(out, ids[which], st);
        eq_subst(out, "%g·%.6g / %g", beta[which], d->n_gpu[i], shard);
        eq_result(out, value[which], ids[which]);
        return;
    }
    char what[96], state[120], formula[200], expr[160];
    snprintf(what, sizeof what, "%s%s %s", whats[which], moe ? primes[which] : "", st);
    snprintf(state, sizeof state, "%s·N_gpu / (z ≥ %lld ? D : 1)", betas[which], zmin);
    if (moe)
        snprintf(state + strlen(state), sizeof state - strlen(state),
                 " + %s·N_exp / (z ≥ %lld ? edp : 1)", betas[which], zmin);
    snprintf(formula, sizeof formula, off ? "0 (M3″: offload_optimizer)" : m10 ? "[¬M10]·(%s)%s" : "%s%s",
             state, m7 ? " + M7" : "");
    if (off || m10)
        snprintf(expr, sizeof expr, "0");
    else if (moe)
        snprintf(expr, sizeof expr, "%g·%.6g / %g + %g·%.6g / %g", beta[which], d->n_gpu[i],
                 shard, beta[which], d->moe.n_exp[i], shard_e);
    else
        snprintf(expr, sizeof expr, "%g·%.6g / %g", beta[which], d->n_gpu[i], shard);
    if (m7)
        snprintf(expr + strlen(expr), sizeof expr - strlen(expr), " + %.6g", d->m7[i]);
    eq_begin(out, ids[which], what, "%s", formula);
    eq_subst(out, "%s  (%s%s%s%s)", expr,
             off ? "the optimizer state lives on the host" : moe && !m10 ? "N_exp = P16" : "",
             m10 ? "M10: master_weights_only at z = 3, the shard is M3's fp32 master" : "",
             m7 && (moe || m10) ? "; " : "", m7 ? "M7: FP8 weight copies" : "");
    eq_result(out, value[which], ids[which]);
}

static void explain_state_stage(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                const pe_detail *d, int i, const char *st)
{
    for (int which = 0; which < 3; which++)
        explain_state_term(out, ctx, p, d, i, st, which);
}

/* §3 M1–M4: model state per stage. */
static void explain_state(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                          const pe_detail *d)
{
    const long long z = p->zero;
    const double t = (double)p->tp;
    heading(out, "Memory per GPU (docs/model.md §3)");
    fprintf(out, "     D = dp·c = %lld·%lld = %g (ZeRO sharding group); z = %lld\n",
            (long long)p->dp, (long long)p->cp, d->D, z);
    if (ctx->lora.on) {
        explain_lora_state(out, ctx, p, d); /* M15–M17 in place of M1–M4 */
        return;
    }
    char sb[32];
    int stages = shown_stages(p, d);
    for (int i = 0; i < stages; i++)
        explain_state_stage(out, ctx, p, d, i, stage_name(i, p, d, sb));
    if (p->schedule == PE_SCHEDULE_DUALPIPE && p->pp > 1)
        explain_m14(out, p, d);
    eq_formula(out, "M4", NULL);
    eq_subst(out, "%d·(2·%g + %g)·max(%.6g, %.6g)/%g", z == 3, ctx->beta_w, ctx->beta_g,
             ctx->N_layer, ctx->Vh, t);
    eq_result(out, d->m4, "M4");

}

/* §12 A19: what recompute: selective keeps per token when every RMSNorm, the
 * MLA up-projections and the experts' SwiGLU are recomputed (framework
 * recompute_modules layernorm mla_up_proj moe_act), with its numbers. */
static void explain_a19(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_model *m = &ctx->scenario->model;
    const double a = (double)m->heads, f = (double)m->ffn_hidden;
    eq_formula(out, "A19", NULL);
    fprintf(out, "       (β_c = %g cached_input_bytes, β_ao = %g attention_output_bytes; "
                 "in place of A1, A2, A10 and A11's counts under recompute: selective)\n",
            ctx->a19_beta_c, ctx->a19_beta_ao);
    eq_subst(out, "rep 4·%g + 2·%lld + 2·(%lld + %lld) = %.6g", ctx->h, (long long)m->q_lora_rank,
             (long long)m->kv_lora_rank, (long long)m->qk_rope_head_dim, ctx->a19_rep);
    eq_subst(out, "par, dense layer %g·%g·%g + 4·%g + %g·%g + %g·%g = %.6g", ctx->a19_beta_ao, a,
             (double)m->v_head_dim, a, m->mlp == PE_MLP_GELU ? 2.0 : 4.0, f, ctx->a19_beta_c, f,
             ctx->a19_par);
    if (ctx->moe.on)
        eq_subst(out, "par, MoE layer attention %.6g + shared %lld·2·%g·%g = %.6g; routed copy "
                      "β_in %g·h, c_e·f_e = 2·%g·%g = %.6g",
                 ctx->a19_par_att, (long long)m->shared_experts, ctx->a19_beta_c, ctx->moe.f_e_d,
                 ctx->a19_par_sh, ctx->a19_beta_c, ctx->a19_beta_c, ctx->moe.f_e_d,
                 ctx->a19_inner);
    eq_value(out, ctx->a19_rep, "bytes/token (rep)", "DeepSeek-V3 §3.2.3, §3.3.3");
}

/* §12 A30 (joins A1) and A31 (joins A3 without recompute): what Transformer
 * Engine's layers save beyond Korthikanti's tensors (framework te_saved_tensors). */
static void explain_te_saved(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p)
{
    const pe_model *m = &ctx->scenario->model;
    if (ctx->a30_rep <= 0.0)
        return;
    eq_formula(out, "A30", NULL);
    eq_subst(out, "2 norms·%g  (%s: %s fp32)", ctx->a30_rep / 2.0,
             m->norm == PE_NORM_LAYERNORM ? "LayerNorm" : "RMSNorm",
             m->norm == PE_NORM_LAYERNORM ? "mu 4 + rsigma 4" : "rsigma 4");
    eq_result(out, ctx->a30_rep, "A30");
    const bool kept = p->recompute != PE_RECOMPUTE_SELECTIVE;
    const bool fused = ctx->attention != PE_ATTENTION_STANDARD;
    eq_formula(out, "A31", NULL);
    eq_subst(out, "[%s]·(4·%g + [%s]·2·%g)%s", fused ? "fused" : "not fused", (double)m->heads,
             ctx->fp8 ? "fp8" : "not fp8", act_fp8_saving_attention(m),
             kept ? "" : "  (recompute selective: core attention rebuilt in backward, 0)");
    eq_result(out, kept ? ctx->a31_att : 0.0, "A31");
}

/* §3 A1–A5: activation bytes per token and per layer. */
static void explain_act_layer(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                              const pe_detail *d)
{
    const pe_model *m = &ctx->scenario->model;
    const double t = (double)p->tp, b = (double)p->micro_batch;
    const int sp = p->sequence_parallel;
    double ffn = (double)m->ffn_hidden;
    eq_formula(out, "A1", NULL);
    eq_subst(out, "8·%g + 2·%g·%g", ctx->h, ctx->delta, ctx->h);
    eq_result(out, ctx->act_rep - ctx->lora.act - ctx->a30_rep, "A1");
    explain_te_saved(out, ctx, p);
    if (ctx->lora.on) { /* A27, added to A1's rep */
        eq_formula(out, "A27", NULL);
        eq_subst(out, "2·%g·%g + %d·3·%g  (lora_dropout %g)", ctx->lora.r, ctx->lora.targets,
                 ctx->scenario->training.lora_dropout > 0.0, ctx->lora.in_sum,
                 ctx->scenario->training.lora_dropout);
        eq_result(out, ctx->lora.act, "A27");
    }
    if (ctx->act_legacy > 0.0) { /* §12 A17, added to A2 */
        eq_formula(out, "A17", NULL);
        eq_subst(out, "[%s]·2·%g + [%s]·(2·%g·%g + 4·(%g − %g)·%g)",
                 m->mlp == PE_MLP_SWIGLU ? "swiglu" : "not swiglu", ffn,
                 ctx->attention == PE_ATTENTION_FLASH ? "flash" : "not flash", (double)m->heads,
                 ctx->d, (double)m->heads, ctx->g, ctx->d);
        eq_result(out, ctx->act_legacy, "A17");
    }
    eq_formula(out, "A2", NULL);
    eq_subst(out, "4·%g + 4·%g·%g + %g·%g%s", ctx->h, ctx->g, ctx->d,
             m->mlp == PE_MLP_GELU ? 4.0 : 6.0, ffn, ctx->act_legacy > 0.0 ? " + A17" : "");
    eq_result(out, ctx->act_par, "A2");
    eq_formula(out, "A3", NULL);
    eq_subst(out, "%s%s", d->att == 0 ? (ctx->attention != PE_ATTENTION_STANDARD ? "0 (flash)" : "0 (selective recompute)")
                                    : ctx->attention != PE_ATTENTION_STANDARD ? "0 (flash)" : "(2 + 3δ)·a·s",
             d->att > 0.0 && ctx->a31_att > 0.0 ? " + A31" : "");
    eq_result(out, d->att, "A3");
    const bool a19 = ctx->a19 && p->recompute == PE_RECOMPUTE_SELECTIVE;
    if (a19)
        explain_a19(out, ctx);
    const double rep = a19 ? ctx->a19_rep : ctx->act_rep, par = a19 ? ctx->a19_par : ctx->act_par;
    eq_formula(out, "A4", NULL);
    if (sp)
        eq_subst(out, "%g·%g·[(%g + %g)/%g + %g/%g]   (s' = s/c = %g/%lld)", d->s_local, b,
                 rep, par, t, d->att, t, ctx->s, (long long)p->cp);
    else
        eq_subst(out, "%g·%g·[%g + %g/%g + %g/%g]   (s' = s/c = %g/%lld)", d->s_local, b,
                 rep, par, t, d->att, t, ctx->s, (long long)p->cp);
    eq_result(out, d->a_layer, "A4");
    if (p->recompute == PE_RECOMPUTE_FULL) {
        eq_formula(out, "A5", NULL);
        eq_subst(out, "2·%g·%g·%g / %g", d->s_local, b, ctx->h, sp ? t : 1.0);
        eq_result(out, d->a_in, "A5");
    }
}

/* A8 as the model carried it on each stage shown (the same a8[] M5 adds):
 * the final norm and logits sit on the last stage ([1], or [0] when p = 1);
 * stage 0 and a middle stage carry none. */
static void explain_a8(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    const double t = (double)p->tp, b = (double)p->micro_batch;
    const int sp = p->sequence_parallel, last = p->pp == 1 ? 0 : 1;
    char sb[32];
    for (int i = 0; i < shown_stages(p, d); i++) {
        eq_formula(out, "A8", stage_name(i, p, d, sb));
        if (i == last || d->a8[i] > 0.0) /* M14: under dualpipe rank 0 holds stage p−1 too */
            eq_subst(out, "(4·%g·%g·%g/%g + 4·%g·%g·%g/%g)·%g", d->s_local, b, ctx->h,
                     sp ? t : 1.0, d->s_local, b, ctx->V, t, d->k_last);
        else
            eq_subst(out, "0 (the output layer is on stage %lld)", (long long)p->pp - 1);
        eq_result(out, d->a8[i], "A8");
    }
}

/* S3 with the competing figures: X4's windows that run under a longer
 * collective move from compute to communication (docs/model.md §8). */
static void explain_bound(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                          const pe_result *r)
{
    const double comm = r->tp_comm_s + r->cp_comm_s + r->pp_comm_s + r->dp_comm_s + r->ep_comm_s;
    const double crit = r->bound_shift_s;
    if (!ctx->bound_by_critical_path) {
        fprintf(out, "S3   bound = the largest of compute_s %.6g, communication %.6g (the exposed "
                     "columns) and bubble_s %.6g (a tie to the earlier)\n",
                r->compute_s, comm, r->bubble_s);
        fprintf(out, "       = %s\n", pe_bound_name(r->bound));
        if (crit > 0.0)
            fprintf(out, "       note: %.6g s of compute_s runs inside X4 windows whose collective "
                         "is longer, so the collective sets that stretch of the step; "
                         "fidelity: refined names the critical path (S3′, docs/model.md §12)\n",
                    crit);
        return;
    }
    fprintf(out, "S3   bound = the largest part of the step on its critical path (a tie to the "
                 "earlier)\n");
    fprintf(out, "       compute %.6g = compute_s %.6g − %.6g under X4 collectives longer than "
                 "their window\n",
            r->compute_s - crit, r->compute_s, crit);
    fprintf(out, "       communication %.6g = exposed %.6g + %.6g\n", comm + crit, comm, crit);
    fprintf(out, "       bubble %.6g, %s %.6g\n", r->bubble_s,
            p->offload_optimizer ? "host (offloaded optimizer step)" : "optimizer", r->optimizer_s);
    fprintf(out, "       = %s\n", pe_bound_name(r->bound));
}

/* §12 A18: full recompute by layer (framework recompute_method), stage i. */
static void explain_a18(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                        int i, const char *st)
{
    static const char *const method[] = {"uniform", "block", "every"};
    eq_formula(out, "A18", st);
    eq_subst(out, "recompute_method %s, recompute_num_layers %g, L' = %g, v = %lld, k = %g, "
                  "A_in = %.6g, A_layer = %.6g",
             method[ctx->rc_method], ctx->rc_layers, d->stage_layers[i],
             (long long)p->virtual_stages, d->k[i], d->a_in, d->a_layer);
    eq_result(out, d->a6[i], "A18");
}

/* §12 A23: activation offload (framework cpu_offloading), stage i: the layers
 * left on the GPU, then A6 with them; or why this plan offloads nothing. */
static bool explain_a23(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                        int i, const char *st)
{
    if (ctx->offload_layers <= 0.0)
        return false;
    eq_formula(out, "A23", st);
    if (d->a23_layers <= 0.0) {
        eq_subst(out, "not applied: Megatron-Core offloads only with pp 1 and recompute none "
                      "(this plan: pp %lld, recompute %s), dense layers",
                 (long long)p->pp, pe_recompute_name(p->recompute));
        return false;
    }
    const double kept = act_offload_kept_layers(d->stage_layers[i], d->a23_layers);
    eq_subst(out, "%g − %g + 1 (cpu_offloading_num_layers %g: one offloaded layer in flight)",
             d->stage_layers[i], d->a23_layers, d->a23_layers);
    eq_value(out, kept, "layers", pe_formula_find("A23")->source);
    eq_formula(out, "A6", st);
    eq_subst(out, "%.6g·%g·%g", d->a_layer, kept, d->k[i]);
    eq_result(out, d->a6[i], "A6");
    return true;
}

/* A6″ k of candidate stage i with N contiguous micro-batches per chunk. */
static void explain_a6_group(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                             const pe_detail *d, int i, const char *st)
{
    const double pp = (double)p->pp, v = (double)p->virtual_stages;
    const double j = i == 0 ? 0.0 : i == 1 ? pp - 1.0 : (double)d->mid_stage;
    const double n = act_group_size(pp, d->m, ctx->pp_group);
    eq_formula(out, "A6″", st);
    eq_subst(out, "min(%g + (%g − 1 − 2·%g + (%g − 1)·(%g − %g))/%g, %g)   "
                  "(pp_microbatch_group %g, taken as N = %g)",
             pp, pp, j, v, n, pp, v, d->m, ctx->pp_group, n);
    eq_result(out, d->k[i], "A6″");
}

/* §3 k, A6–A8: activations per stage. */
static void explain_act_stage(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                              const pe_detail *d)
{
    const double t = (double)p->tp, b = (double)p->micro_batch;
    const int sp = p->sequence_parallel;
    const int stages = shown_stages(p, d);
    char sb[32], what[96];
    for (int i = 0; i < stages; i++) {
        const char *st = stage_name(i, p, d, sb);
        if (p->schedule == PE_SCHEDULE_DUALPIPE && p->pp > 1) {
            explain_a21(out, p, d, i, st);
            continue;
        }
        if (ctx->pp_group > 0.0 && p->schedule == PE_SCHEDULE_INTERLEAVED) {
            explain_a6_group(out, ctx, p, d, i, st);
        } else {
            snprintf(what, sizeof what, "k, micro-batches in flight %s", st);
            eq_begin(out, "k", what,
                     "table of docs/model.md §3 for schedule %s, p = %lld, m = %g, v = %lld",
                     pe_schedule_name(p->schedule), (long long)p->pp, d->m,
                     (long long)p->virtual_stages);
            eq_value(out, d->k[i], "micro-batches", "Korthikanti §4.2.3, Narayanan §2.2");
        }
        const bool full = p->recompute == PE_RECOMPUTE_FULL;
        if (full && ctx->rc_by_layer && d->stage_layers[i] > 0.0) {
            explain_a18(out, ctx, p, d, i, st);
            continue;
        }
        if (explain_a23(out, ctx, p, d, i, st))
            continue;
        eq_formula(out, full ? "A6:full" : "A6", st);
        if (full) {
            eq_subst(out, "%.6g·%g·%g + %.6g", d->a_in, d->stage_layers[i], d->k[i], d->a_layer);
        } else {
            eq_subst(out, "%.6g·%g·%g", d->a_layer, d->stage_layers[i], d->k[i]);
        }
        eq_result(out, d->a6[i], full ? "A6:full" : "A6");
    }
    eq_formula(out, "A7", NULL);
    eq_subst(out, "%g·%g·%g·%g/%g·%g", ctx->delta, d->s_local, b, ctx->h, sp ? t : 1.0, d->k_first);
    eq_result(out, d->a7[0], "A7");
    explain_a8(out, ctx, p, d);
}

/* §3 M5, M6 and the whole-model diagnostics. */
static void explain_mem_totals(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d, const pe_result *r)
{
    const int stages = shown_stages(p, d);
    char sb[32];
    for (int i = 0; i < stages; i++) {
        eq_formula(out, "M5", stage_name(i, p, d, sb));
        eq_subst(out, "%.6g + %.6g + %.6g + %.6g + %.6g + %.6g + %.6g", d->m1[i], d->m2[i],
                 d->m3[i], d->m4, d->a6[i], d->a7[i] + d->a8[i], ctx->reserve_bytes);
        eq_result(out, d->total[i], "M5");
    }
    eq_formula(out, "M6", NULL);
    eq_subst(out, "%.6g GiB ≤ %.6g GiB: %s (memory-worst stage %d)", r->mem_total_gib,
             r->mem_budget_gib, r->mem_total_gib <= r->mem_budget_gib ? "yes" : "NO",
             r->worst_stage);
    fprintf(out, "     diagnostics: state_total_gib = (β_w+β_g+β_o)·N_total|p=1 / 2^30 = %.6g GiB; "
                 "act_total_gib = A_layer(t=c=1, no sp, no recompute)·L / 2^30 = %.6g GiB\n",
            r->state_total_gib, r->act_total_gib);
}


/* A22: what the op-level policy saves that backward never reads (w2's
 * output), kept by eager SAC only; printed with A15. */
static void explain_a22(FILE *out, const pe_eval_ctx *ctx)
{
    const bool eager = ctx->scenario->framework.eager_elementwise;
    eq_formula(out, "A22", NULL);
    eq_subst(out, "[eager_elementwise %s]·2·%g (%s)", eager ? "true" : "false", ctx->h,
             eager ? "eager SAC caches every saved op's output" :
                     "compiled: the min-cut partitioner saves only what backward reads");
    eq_result(out, ctx->act_op_rep - ctx->lora.op_rep, "A22");
}

/* A32: the adapters' mm outputs op-level SAC saves (lora), in A15's
 * replicated and TP-split bytes; printed with A15. */
static void explain_a32(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p)
{
    if (!ctx->lora.on)
        return;
    eq_formula(out, "A32", NULL);
    eq_subst(out, "whole %g + split %g/%lld  (r %g, %g targets; a saved base adds B's output, a "
                  "recomputed one A's; eager_elementwise %s)",
             ctx->lora.op_rep, ctx->lora.op_par, (long long)p->tp, ctx->lora.r, ctx->lora.targets,
             ctx->scenario->framework.eager_elementwise ? "true" : "false");
    eq_result(out, ctx->lora.op_rep + ctx->lora.op_par / (double)p->tp, "A32");
}

/* §12 M22 (framework unsharded_grad_bytes): the unsharded gradient of the
 * backward working set at its own bytes; printed only when it is not β_g. */
static void explain_m22(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    if (ctx->unsharded_grad_bytes == ctx->beta_g || p->zero != 3 || ctx->lora.on ||
        d->unsharded[0] > 0.0)
        return;
    eq_formula(out, "M22", NULL);
    eq_subst(out, "%.6g·(2·%g + %g)/(2·%g + %g)  (M4 with the unsharded gradient at "
                  "unsharded_grad_bytes %g, not grad_bytes %g)",
             d->m4, ctx->beta_w, ctx->unsharded_grad_bytes, ctx->beta_w, ctx->beta_g,
             ctx->unsharded_grad_bytes, ctx->beta_g);
    eq_result(out, d->w_bwd, "M22");
}

/* §12 M9–M13, A14, A15: the framework's numbers, then each stage's phases. */
static void explain_phase_terms(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                const pe_detail *d)
{
    const pe_framework *fw = &ctx->scenario->framework;
    fprintf(out, "     memory by phase (framework %s): loss_bytes %g, master_weights_only %s, "
                 "pp_unsharded_params %s, optimizer_temp_bytes %g, workspace_mib %g, "
                 "allocator_fragmentation %g (%s), cuda_context_gib %g%s, "
                 "selective_recompute %s\n",
            fw->name[0] ? fw->name : "the scenario's keys", ctx->loss_bytes,
            ctx->master_only ? "true" : "false", ctx->pp_unsharded ? "true" : "false",
            ctx->opt_temp_bytes, ctx->workspace_bytes / 1048576.0, ctx->fragmentation,
            ctx->fragmentation > 0.0 ? "fitted: docs/model.md §12" : "not measured",
            ctx->context_bytes / GIB, ctx->context_bytes > 0.0 ? "" : " (not measured)",
            ctx->op_sac ? "op" : "attention");
    if (ctx->op_sac && p->recompute == PE_RECOMPUTE_SELECTIVE) {
        eq_formula(out, "A15", NULL);
        eq_subst(out, "%g·%lld·[%s%g + %g + %g/%lld]", d->s_local, (long long)p->micro_batch,
                 p->sequence_parallel ? "1/t·" : "", ctx->act_op_seq, ctx->act_op_rep,
                 ctx->act_op_par, (long long)p->tp);
        eq_result(out, d->a_layer, "A15");
        explain_a22(out, ctx);
        explain_a32(out, ctx, p);
        fprintf(out, "     backward recomputes one layer (A4, no recompute): %.6g bytes = %.6g GiB\n",
                d->a_recompute, d->a_recompute / GIB);
    }
    if (ctx->act_gathered > 0.0) {
        eq_formula(out, "A16", NULL);
        eq_subst(out, "[sp %s ∧ t %lld > 1]·%g·%lld·%g·(1 − 1/%lld)",
                 p->sequence_parallel ? "on" : "off", (long long)p->tp, d->s_local,
                 (long long)p->micro_batch, ctx->act_gathered, (long long)p->tp);
        eq_result(out, act_gathered_inputs(d->s_local, (double)p->micro_batch, (double)p->tp,
                                           p->sequence_parallel, ctx->act_gathered),
                  "A16");
    }
    if (ctx->cp_ring != PE_CP_RING_NONE) {
        const int ag = ctx->cp_ring == PE_CP_RING_ALLGATHER;
        eq_formula(out, "A20", NULL);
        eq_subst(out, "[c %lld > 1]·%g·%lld·(%g/%lld)·(4·%g + 38), forward (4·%g + 8) (%s)",
                 (long long)p->cp, d->s_local, (long long)p->micro_batch, ctx->cp_ring_width,
                 (long long)p->tp, ag ? (double)p->cp : 2.0, ag ? (double)p->cp : 2.0,
                 ag ? "allgather: n = c" : "alltoall: n = 2");
        fprintf(out, "       forward %.6g bytes = %.6g GiB\n", d->a20_fwd, d->a20_fwd / GIB);
        eq_result(out, d->a20_bwd, "A20");
    }
    eq_formula(out, "A14", NULL);
    eq_subst(out, "%g·%g·%lld·%g/%lld", ctx->loss_bytes, d->s_local, (long long)p->micro_batch,
             ctx->V, (long long)p->tp);
    eq_result(out, d->a14, "A14");
    fprintf(out, "     A8's output-layer inputs, kept per micro-batch in flight: %.6g bytes\n",
            d->a8_in);
    fprintf(out, "M4   working set by phase: forward W_f = %.6g bytes, backward W_b = %.6g bytes\n",
            d->w_fwd, d->w_bwd);
    explain_m22(out, ctx, p, d);
}

/* §12 A24 (framework pp_recv_grad), stage i: the output gradient it received
 * for the backward of one micro-batch, or why it holds none. */
static void explain_a24(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                        int i, const char *st)
{
    if (!ctx->pp_recv_grad)
        return;
    eq_formula(out, "A24", st);
    if (d->a24_stage[i] <= 0.0) {
        eq_subst(out, "0: %s", p->pp <= 1 ? "pp 1, no pipeline receive"
                                          : "the last stage receives no gradient (A14's loss)");
        return;
    }
    eq_subst(out, "2·%g·%lld·%g/%g, in the backward phase", d->s_local,
             (long long)p->micro_batch, ctx->h, p->sequence_parallel ? (double)p->tp : 1.0);
    eq_result(out, d->a24_stage[i], "A24");
}

/* §12 A26 (framework nccl_channels), stage i: NCCL's buffers outside the
 * caching allocator, in the device total only. */
static void explain_a26(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                        int i, const char *st)
{
    if (ctx->nccl_channel_bytes <= 0.0)
        return;
    const bool wraps =
        p->schedule == PE_SCHEDULE_INTERLEAVED || p->schedule == PE_SCHEDULE_DUALPIPE;
    const double peers = mem_nccl_pp_peers((double)p->pp, wraps, i == 2);
    const double sets = d->a26[i] / ctx->nccl_channel_bytes;
    eq_formula(out, "A26", st);
    eq_subst(out,
             "%g channels·%g·(sets(tp %lld) %g + sets(cp %lld) %g + sets(dp %lld) %g + "
             "sets(ep %lld) %g + pipeline peers %g·2) = %g sets (outside the allocator: in "
             "mem_total_gib, not mem_reserved_gib)",
             ctx->nccl_channel_bytes / PE_A26_BYTES_PER_SET, PE_A26_BYTES_PER_SET,
             (long long)p->tp, mem_nccl_sets((double)p->tp), (long long)p->cp,
             mem_nccl_sets((double)p->cp), (long long)p->dp, mem_nccl_sets((double)p->dp),
             (long long)p->ep, mem_nccl_sets((double)p->ep), peers, sets);
    eq_result(out, d->a26[i], "A26");
}

/* §12 M20, M21 (deepspeed_zero with offload_optimizer), stage i:
 * ZeRO-Offload's GPU buffers by phase and its host memory per GPU. */
static void explain_ds_offload(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d, int i, const char *st)
{
    if (!p->offload_optimizer)
        return;
    const int64_t z = p->zero;
    const double n_max = ctx->ds_largest / (double)p->tp;
    const double part = d->ds_off_step[i] / 4.0;
    eq_formula(out, "M20", st);
    if (z <= 2)
        eq_subst(out, "n_max = %.6g/%lld = %.6g: every phase %g·n_max = %.6g, backward + "
                      "4·min(n_max, N_t/D) = %.6g, optimizer 4·N_t/D = 4·%.6g = %.6g (in place of "
                      "M18); M2 on the GPU %s",
                 ctx->ds_largest, (long long)p->tp, n_max, ctx->beta_w, d->ds_off_every[i],
                 d->ds_off_bwd[i], part, d->ds_off_step[i],
                 z == 2 ? "0 (no grads_in_partition)" : "kept (zero 1: accumulated in param.grad)");
    else
        eq_subst(out, "backward (%g·%.6g + 4·%.6g)/%g = %.6g; M2 on the GPU 0 "
                      "(grad_partitions_flat_buffer on the host), M18 0",
                 ctx->beta_g, ctx->ds_bucket, n_max, d->D, d->ds_off_bwd[i]);
    eq_result(out, d->ds_off_every[i] + d->ds_off_bwd[i], "M20");
    eq_formula(out, "M21", st);
    if (z <= 2)
        eq_subst(out, "(%g + 4)·N_t/D + %g·%.6g + [m %g > 1]·%g·N_t/D, a node %d of them",
                 ctx->beta_o, ctx->beta_w, n_max, d->m, ctx->beta_w, (int)ctx->gpus_per_node);
    else
        eq_subst(out, "(%g + 4 + %g)·N_t/D, a node %d of them", ctx->beta_o, ctx->beta_g,
                 (int)ctx->gpus_per_node);
    eq_result(out, d->ds_off_host[i], "M21");
}

/* §12 A28, A29, M18 (framework deepspeed_zero), stage i: DeepSpeed's ZeRO
 * buffers with the sizes they took ("auto" resolved) and the phase each is
 * live in. */
static void explain_deepspeed(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                              const pe_detail *d, int i, const char *st)
{
    if (!ctx->ds_zero)
        return;
    const int64_t z = p->zero;
    const bool piped = z <= 2 && p->pp > 1; /* the PipelineEngine's one bucket after the flush */
    const bool two = z <= 2 && !piped && ctx->ds_overlap == PE_DS_OVERLAP_TRUE; /* doubled */
    if (mem_ds_bf16_optimizer(z, ctx->beta_g, ctx->beta_w, p->offload_optimizer)) {
        fprintf(out, "A28, M18 %s: 0 bytes: zero 1 with bf16 weights and fp32 gradients is "
                     "DeepSpeed's BF16_Optimizer (its fp32 gradients are M2, its step's "
                     "partitions views of them; no reduce bucket)\n",
                st);
        return;
    }
    eq_formula(out, "A28", st);
    const bool forced = p->offload_optimizer && z <= 2 && !ctx->ds_contiguous;
    eq_subst(out, "[contiguous_gradients %s]·%.6g·%g·%d (zero %lld: %s)",
             forced ? "true: forced by offload_optimizer" : ctx->ds_contiguous ? "true" : "false",
             ctx->ds_bucket, ctx->beta_w, two ? 2 : 1,
             (long long)z,
             z < 1    ? "no ZeRO optimizer, none"
             : piped  ? "pp > 1: once, after the pipeline flush; the optimizer phase holds the "
                        "larger of it and M18"
             : z <= 2 ? "each backward"
                      : "every phase");
    eq_result(out, d->ds_a28[i], "A28");
    if (z == 3) {
        eq_formula(out, "A29", st);
        if (ctx->lora.on && ctx->lora.quantised) /* the quantised base's storage elements */
            eq_subst(out, "X = max(%.6g, %g/%g·%.6g)/%lld = %.6g, P %.6g, L_live %.6g: G = %.6g; "
                          "R %.6g: K = min(R/2, N_s = %.6g − (1 − %g/%g)·%.6g = %.6g) = %.6g "
                          "storage elements (quantised base)",
                     ctx->Vh, ctx->lora.beta_q, ctx->beta_w, ctx->h * (double)ctx->ffn_hidden,
                     (long long)p->tp, d->ds_x, ctx->ds_prefetch, ctx->ds_max_live,
                     d->ds_gathered, ctx->ds_reuse, d->n_gpu[i], ctx->lora.beta_q, ctx->beta_w,
                     d->stage_layers[i] * ctx->N_mm / (double)p->tp, d->ds_n_s[i], d->ds_kept[i]);
        else
            eq_subst(out, "X = %.6g/%lld, P %.6g, L_live %.6g: G = %.6g; R %.6g: K = min(R/2, "
                          "N_gpu %.6g) = %.6g elements",
                     ctx->ds_largest, (long long)p->tp, ctx->ds_prefetch, ctx->ds_max_live,
                     d->ds_gathered, ctx->ds_reuse, d->n_gpu[i], d->ds_kept[i]);
        fprintf(out, "       forward %.6g, backward %.6g, loss %.6g bytes (in place of M4)\n",
                d->ds_w[i][1], d->ds_w[i][2], d->ds_w[i][3]);
        eq_formula(out, "A29'", st);
        eq_subst(out, "T %.6g: %g per layer + %g final norm, ·%g·(1 − 1/%g), every phase",
                 ctx->ds_threshold, ctx->ds_persist_layer, ctx->ds_persist_final, ctx->beta_w,
                 (double)p->dp * (double)p->cp);
        eq_result(out, d->ds_persist[i], "A29'");
    }
    eq_formula(out, "M18", st);
    const double bg = ctx->beta_g != 4.0 ? ctx->beta_g : 0.0;
    const char *n_t = ctx->lora.on ? "M16's adapters: only they require gradients" : "N_gpu";
    if (p->offload_optimizer)
        eq_subst(out, "0 (offload_optimizer: the step's fp32 gradient partition is on the host, M21)");
    else if (z < 1)
        eq_subst(out, "0 (zero 0: no ZeRO optimizer partition)");
    else if (z == 3)
        eq_subst(out, "(4 + %g)·min(%.6g/%g, %.6g), in the optimizer phase  (N_t/D, S = "
                      "sub_group_size; N_t = %s)",
                 bg, d->n_train[i], d->D, ctx->ds_sub_group, n_t);
    else
        eq_subst(out, "(4 + %g)·%.6g/%g, in the optimizer phase  (N_t/D; N_t = %s)", bg,
                 d->n_train[i], d->D, n_t);
    eq_result(out, d->ds_m18[i], "M18");
    explain_ds_offload(out, ctx, p, d, i, st);
}

static void explain_phases(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                           const pe_detail *d, const pe_result *r)
{
    char sb[32];
    heading(out, "Peak memory by phase (docs/model.md §12 M9–M13)");
    explain_phase_terms(out, ctx, p, d);
    for (int i = 0; i < shown_stages(p, d); i++) {
        const char *st = stage_name(i, p, d, sb);
        eq_formula(out, "M12", st);
        eq_subst(out, "U_w = %.6g bytes, U_g = %.6g bytes", d->unsharded[i],
                 d->unsharded_grads[i]);
        explain_a24(out, ctx, p, d, i, st);
        explain_deepspeed(out, ctx, p, d, i, st);
        if (d->m19[i] > 0.0) { /* M19: DDP's buckets, in S of every phase */
            eq_formula(out, "M19", st);
            eq_subst(out, "%g·%.6g = %.6g bytes (zero 0, D = %g), added to S in every phase", ctx->beta_g,
                     d->m19[i] / ctx->beta_g, d->m19[i], d->D);
        }
        eq_formula(out, "M9", st);
        fprintf(out, "       forward %.6g, backward %.6g, loss %.6g, optimizer %.6g bytes "
                     "(S = M1 (M10) + M2 + M3 = %.6g, A6 = %.6g, A7 = %.6g, W_lib = %.6g)\n",
                d->phase[i][1], d->phase[i][2], d->phase[i][3], d->phase[i][4],
                d->m1[i] + d->m2[i] + d->m3[i], d->a6[i], d->a7[i], ctx->workspace_bytes);
        eq_subst(out, "peak %s = %.6g bytes = %.6g GiB", pe_mem_phase_name(d->peak_phase[i]),
                 d->peak[i], d->peak[i] / GIB);
        eq_formula(out, "M13", st);
        eq_subst(out, "%.6g·(1 + %g) = %.6g; + %.6g", d->peak[i], ctx->fragmentation,
                 d->reserved[i], ctx->context_bytes);
        explain_a26(out, ctx, p, d, i, st);
        eq_result(out, d->total[i], "M13");
    }
    fprintf(out, "     memory stage %d: mem_peak_gib %.6g (%s), mem_reserved_gib %.6g, "
                 "mem_total_gib %.6g ≤ budget %.6g GiB: %s\n",
            r->worst_stage, r->mem_peak_gib, pe_mem_phase_name(r->mem_peak_phase),
            r->mem_reserved_gib, r->mem_total_gib, r->mem_budget_gib,
            r->mem_total_gib <= r->mem_budget_gib ? "yes" : "NO");
}

/* §12 M23: the memory peak's interval, with the δ± it took and where they
 * came from (the framework preset's memory residuals, or the stated default);
 * the same ratios on the reserved and device totals. */
static void explain_mem_interval(FILE *out, const pe_eval_ctx *ctx, const pe_result *r)
{
    const pe_framework *fw = &ctx->scenario->framework;
    if (ctx->mem_interval_source == PE_INTERVAL_NONE) {
        fprintf(out, "M23  no memory interval in textbook mode (mem_peak_lo_gib, "
                     "mem_peak_hi_gib empty)\n");
        return;
    }
    eq_formula(out, "M23", NULL);
    if (ctx->mem_interval_source == PE_INTERVAL_FRAMEWORK)
        fprintf(out, "     δ− = %.6g, δ+ = %.6g: the framework %s's, from %lld residuals of its "
                     "published memory runs (80%%; an error spread, not a measurement)\n",
                ctx->mem_interval_below, ctx->mem_interval_above, fw->name,
                (long long)fw->mem_peak_interval_runs);
    else
        fprintf(out, "     δ− = %.6g, δ+ = %.6g: the stated default, not a measurement: %s\n",
                ctx->mem_interval_below, ctx->mem_interval_above,
                fw->present ? "no memory runs of this framework in the library"
                            : "no framework named");
    eq_subst(out, "%.6g·(1 − %.6g) = %.6g GiB, %.6g·(1 + %.6g) = %.6g GiB", r->mem_peak_gib,
             ctx->mem_interval_below, r->mem_peak_lo_gib, r->mem_peak_gib,
             ctx->mem_interval_above, r->mem_peak_hi_gib);
    fprintf(out, "     the same ratios: mem_reserved_gib %.6g in [%.6g, %.6g], mem_total_gib "
                 "%.6g in [%.6g, %.6g]\n",
            r->mem_reserved_gib, mem_interval_lo(r->mem_reserved_gib, ctx->mem_interval_below),
            mem_interval_hi(r->mem_reserved_gib, ctx->mem_interval_above), r->mem_total_gib,
            mem_interval_lo(r->mem_total_gib, ctx->mem_interval_below),
            mem_interval_hi(r->mem_total_gib, ctx->mem_interval_above));
}

static void explain_memory(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                           const pe_detail *d, const pe_result *r)
{
    explain_state(out, ctx, p, d);
    explain_act_layer(out, ctx, p, d);
    explain_act_stage(out, ctx, p, d);
    if (ctx->mem_phases)
        explain_phases(out, ctx, p, d, r);
    else
        explain_mem_totals(out, ctx, p, d, r);
    explain_mem_interval(out, ctx, r);
}

static void explain_group(FILE *out, const char *axis, const pe_group *g, long long k,
                          const pe_eval_ctx *ctx)
{
    fprintf(out, "C1   %s group: n = %g, stride k = %lld: n_in = min(n, max(1, floor(G/k))) = "
                 "min(%g, max(1, floor(%lld/%lld))) = %g, n_out = ceil(n/n_in) = %g -> %s\n",
            axis, g->n, k, g->n, (long long)ctx->gpus_per_node, k, g->n_in, g->n_out,
            g->n == 1 ? "no communication" : g->n_out > 1 ? "inter-node" : "intra-node");
    if (g->n_in > 1) {
        if (ctx->net.full_mesh)
            fprintf(out, "C2   %s B_in = min(n_in − 1, links)·link_gb_s = min(%g, %g)·%g GB/s = %g GB/s\n",
                    axis, g->n_in - 1, ctx->net.links, ctx->net.link_bps / 1e9, g->b_in / 1e9);
        else
            fprintf(out, "C2   %s B_in = bandwidth_gb_s = %g GB/s (switch)\n", axis, g->b_in / 1e9);
    }
}

/* C4 with the numbers substituted. */
static void explain_rs(FILE *out, const char *what, const pe_group *g, const pe_net *net,
                       double S, double value)
{
    eq_formula_as(out, "C4", what);
    if (g->n_in == 1 && g->n_out == 1) {
        eq_subst(out, "0 (a group of one: no communication)");
    } else {
        char intra[160] = "0 (n_in = 1)", inter[160] = "0 (n_out = 1)";
        if (g->n_in > 1)
            snprintf(intra, sizeof intra, "%g/%g·%.6g/%.6g + %g·%g", g->n_in - 1, g->n_in, S,
                     g->b_in, g->n_in - 1, net->alpha_in);
        if (g->n_out > 1)
            snprintf(inter, sizeof inter, "%g/%g·(%.6g/%g)/%.6g + %g·%g", g->n_out - 1, g->n_out,
                     S, g->n_in, net->out_bps, g->n_out - 1, net->alpha_out);
        eq_subst(out, "%s + %s", intra, inter);
    }
    eq_result(out, value, "C4");
}

/* C7 with the numbers substituted. */
static void explain_p2p(FILE *out, const char *what, const pe_group *g, const pe_net *net,
                        double S, double value)
{
    eq_formula_as(out, "C7", what);
    if (g->n == 1)
        eq_subst(out, "0 (a group of one: no communication)");
    else if (g->n_out > 1)
        eq_subst(out, "%g + %.6g/%.6g   (spans %g nodes: inter-node)", net->alpha_out, S,
                 net->out_bps, g->n_out);
    else
        eq_subst(out, "%g + %.6g/%.6g   (inside a node: %s)", net->alpha_in, S,
                 net->full_mesh ? net->link_bps : net->switch_bps,
                 net->full_mesh ? "one link" : "bandwidth_gb_s");
    eq_result(out, value, "C7");
}

/* §12 F30: the framework's attention kernel and the numbers F22 takes from
 * it: the GPU's measurement of that kernel, or the GPU's own e_att when it
 * has none (said so); nothing when the framework names no kernel. */
static void explain_attention_kernel(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_attention_kernel k = ctx->scenario->framework.attention_kernel;
    if (k == PE_ATTENTION_KERNEL_NONE)
        return;
    const pe_attention_kernel_rate *r = &ctx->att_kernel;
    const char *key[] = {"", "fa2", "fa3", "cudnn"};
    eq_formula(out, "F30", NULL);
    if (r->measured)
        eq_subst(out, "%s measured on this GPU: e_att %g (attention_%s_efficiency), s_half %g "
                      "(attention_%s_half_seq); its forward and backward rows of "
                      "scenarios/measurements/attention.csv",
                 pe_attention_kernel_name(k), r->efficiency, key[k], r->half_seq, key[k]);
    else
        eq_subst(out, "%s not measured on this GPU (no attention_%s_efficiency): the GPU's own "
                      "e_att %g, s_half %g",
                 pe_attention_kernel_name(k), key[k], r->efficiency, r->half_seq);
    eq_result(out, r->efficiency, "F30");
}

/* §12 F33: the useful causal FLOPs per F9 FLOP a causal kernel (B_c > 0)
 * computes, with κ and what it amounts to in the kernel's own work. */
static void explain_causal_work(FILE *out, const pe_eval_ctx *ctx, double s, double tile)
{
    const double kappa = compute_kappa(&ctx->scenario->model);
    eq_formula(out, "F33", NULL);
    if (ctx->scenario->framework.attention_causal_work)
        eq_subst(out, "1/(2·%g)   (the kernel computes (s'² + s'·B_c)/2 = %.6g of F9's κ = 1 "
                      "count, F22 charging the diagonal tiles: (%g + %g)/(2·%g))",
                 kappa, (s + tile) / (2.0 * s), s, tile, s);
    else
        eq_subst(out, "1   (framework.attention_causal_work false: F9's κ = %g count at F22's "
                      "rate per useful FLOP)",
                 kappa);
    eq_result(out, ctx->att_work, "F33");
}

/* §12 F22: the attention core's efficiency by shape, with the numbers it
 * took (only when a preset or the scenario gives s_half, d_half or B_c). */
static void explain_attention_shape(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d)
{
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    if (!ctx->att_by_shape && !(ctx->att_head < 1.0))
        return;
    const double dh = compute_attention_head_dim(&ctx->scenario->model);
    eq_formula(out, "F22:head", NULL);
    if (g->attention_half_head_dim > 0.0)
        eq_subst(out, "min(1, %g/(%g + %g)·(128 + %g)/128)", dh, dh, g->attention_half_head_dim,
                 g->attention_half_head_dim);
    else
        eq_subst(out, "1   (attention_half_head_dim 0)");
    eq_result(out, ctx->att_head, "F22:head");
    eq_formula(out, "F22", NULL);
    const double s = d->s_local, tile = ctx->att_tile, s_k = tile > 0.0 ? 0.5 * s : s;
    if (tile > 0.0)
        eq_subst(out, "%g·%.6g·%g/(%g + %g)·%g/(%g + %g)   (causal: s_k = s'/2, s' = %g)",
                 ctx->att_rate / ctx->peak, ctx->att_head, s_k, s_k, ctx->att_half_seq, s, s,
                 tile, s);
    else
        eq_subst(out, "%g·%.6g·%g/(%g + %g)   (s_k = s' = %g)", ctx->att_rate / ctx->peak,
                 ctx->att_head, s_k, s_k, ctx->att_half_seq, s);
    eq_result(out, ctx->att_rate / ctx->peak * ctx->att_head * d->att_shape, "F22");
    if (tile > 0.0)
        explain_causal_work(out, ctx, s, tile);
}

/* §12 X31: with cp_ring_load_balance and c > 1, the attention core as
 * PyTorch's load-balanced ring computes it (the causal diagonal block at
 * F33's work, c − 1 non-causal half blocks) and the ring's merge passes. */
static void explain_cp_ring_core(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                 const pe_detail *d, double M)
{
    if (d->cp_ring_share <= 0.0)
        return;
    const double c = (double)p->cp, t = (double)p->tp, s = d->s_local;
    eq_formula(out, "X31", NULL);
    eq_subst(out, "%g·%.6g/%g/(%.6g·%.6g)·[%g/(%g·%.6g) + (%g − 1)/(2·%g·%g·%.6g)]   "
                  "(step 0: causal %g × %g at F33's ω = %g; %g non-causal half blocks %g × %g, "
                  "S_h = %g/(%g + %g); code: torch _attention.py _templated_ring_attention)",
             M, ctx->F_att, t, ctx->att_rate, ctx->att_head, ctx->att_work, c, d->att_shape, c,
             ctx->att_kappa, c, d->cp_ring_shape_half, s, s, ctx->att_work, c - 1.0, s,
             0.5 * s, 0.5 * s, 0.5 * s, ctx->att_half_seq);
    eq_subst(out, "share of F_att/(peak·e_att·D) = %.6g (F9 with F33 and F22 took %.6g)",
             d->cp_ring_share, ctx->att_work / d->att_shape);
    eq_result(out, d->tau_core, "X31");
    eq_formula(out, "X31:bytes", NULL);
    eq_subst(out, "%g·%g/%g·(%g, %g) / %.6g   (W = a·d = %g, the K/V torchtitan repeats; "
                  "bytes counted from torch _attention.py: _SDPAMerger and the backward's "
                  "fp32 accumulation)",
             M, ctx->cp_ring_merge_w, t, compute_cp_ring_fwd_bytes(c),
             compute_cp_ring_bwd_bytes(c), ctx->ew_bps, ctx->cp_ring_merge_w);
    fprintf(out, "       = forward %.6g s, backward %.6g s a layer (in τ_lf and τ_lb; the "
                 "recomputed forward repeats the forward's)\n",
            d->cp_ring_f, d->cp_ring_b);
}

/* §12 F42: printed only where the GPU's measured rowwise kernel rate
 * replaces F24's r (so every other explain output stays as it was). */
static void explain_fp8_rowwise_measured(FILE *out, const pe_eval_ctx *ctx, double e_max8)
{
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    const double e_row = g->fp8_rowwise_gemm_efficiency;
    if (!ctx->fp8 ||
        !compute_fp8_measured_rate_on(ctx->scenario->precision.fp8_recipe, e_max8, e_row))
        return;
    eq_formula(out, "F42", NULL);
    eq_subst(out, "rowwise at the kernel rate measured on this GPU (fp8_rowwise_gemm_efficiency "
                  "e_row = %g, measured: fp8_gemm.csv): r = e_row/e_max8 = %g/%g = %g, "
                  "in place of F24's %g",
             e_row, e_row, e_max8, e_row / e_max8,
             compute_fp8_recipe(PE_FP8_RECIPE_ROWWISE).rate_ratio);
    eq_result(out, g->peak_fp8_tflops * 1e12 * e_row, "F42");
}

/* §12 F42: printed only where the framework's fp8_kernel_rate takes the
 * GPU's measured kernel rate (so every other explain output stays as it was). */
static void explain_fp8_kernel_rate(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    const pe_framework *fw = &ctx->scenario->framework;
    if (!compute_fp8_kernel_rate_on(g, fw))
        return;
    eq_formula(out, "F42:kernel", NULL);
    eq_subst(out, "framework %s counts its casts apart: e_max8 = e_k8 = %g (measured: "
                  "fp8_kernel_gemm_efficiency, fp8_gemm.csv), not fp8_gemm_efficiency %g",
             fw->name, g->fp8_kernel_gemm_efficiency,
             g->has_fp8_gemm_efficiency ? g->fp8_gemm_efficiency : g->gemm_efficiency);
    eq_result(out, compute_fp8_gemm_efficiency(g, fw), "F42:kernel");
}

/* §12 F35, F36: with fp8_cast_by_role, the casts role by role (bytes per
 * token, gathered and sharded parts), where the gathered part is cast, and
 * the forward and backward cast time per layer the evaluator took. */
static void explain_fp8_role_casts(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                   const pe_detail *d, double M)
{
    const pe_fp8_role_casts *r = &ctx->cast_roles;
    const double c = ctx->fp8_cost.cast_bytes, t = (double)p->tp;
    const bool row = ctx->scenario->precision.fp8_recipe == PE_FP8_RECIPE_ROWWISE;
    eq_formula(out, "F24", NULL);
    eq_subst(out, "fp8_recipe %s: r = %g (%s); casts c = %g bytes/element, counted by F35",
             ctx->fp8_cost.name, ctx->fp8_cost.rate_ratio, ctx->fp8_cost.basis, c);
    eq_formula(out, "F35", NULL);
    eq_subst(out, "G: %g bytes/element (%s), X backward: %g + 2 = %g: forward %g gathered + %g "
                  "sharded, backward %g gathered + %g sharded bytes/token (counts read from torchao's "
                  "code, no fusion assumed: not measured)",
             row ? 2.0 * c + 2.0 : c + 2.0, row ? "2c + 2, rows for dgrad, columns for wgrad"
                                               : "c + 2, one cast for dgrad and wgrad",
             c, c + 2.0, r->fwd_gathered, r->fwd_sharded, r->bwd_gathered, r->bwd_sharded);
    const double gs = compute_fp8_cast_gathered_share(p->sequence_parallel,
                                                      ctx->cast_before_gather, 1.0 / t);
    eq_subst(out, "backward per layer %g·(%g·%g + %g/%g)/%.6g (F24's: twice the forward)", M,
             r->bwd_gathered, gs, r->bwd_sharded, t, ctx->ew_bps);
    eq_result(out, d->tau_cast_b, "F35");
    eq_formula(out, "F36", NULL);
    eq_subst(out, "gathered share %g (%s); forward per layer %g·(%g·%g + %g/%g)/%.6g", gs,
             ctx->cast_before_gather ? "X22: cast before the all-gather"
                                     : "bf16 all-gather, then the cast, or replicated",
             M, r->fwd_gathered, gs, r->fwd_sharded, t, ctx->ew_bps);
    eq_result(out, d->tau_cast_f, "F36");
}

/* §12 F24: the FP8 scaling recipe's GEMM rate ratio on F18 and its casts,
 * bytes per token that F10 below includes, and their time per layer. */
static void explain_fp8_recipe(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, double M)
{
    const pe_fp8_recipe_cost *c = &ctx->fp8_cost;
    const double t = (double)p->tp, rep_t = p->sequence_parallel ? t : 1.0;
    eq_formula(out, "F24", NULL);
    eq_subst(out, "fp8_recipe %s: r = %g (%s); casts c = %g bytes/element: %g bytes/token "
                  "replicated, %g sharded (in F10)",
             c->name, c->rate_ratio, c->basis, c->cast_bytes, ctx->cast_rep, ctx->cast_par);
    const double s = ctx->ew_bps > 0.0
                         ? M * (ctx->cast_rep / rep_t + ctx->cast_par / t) / ctx->ew_bps
                         : 0.0; /* η_W = 0: F10 untimed */
    eq_subst(out, "%g·(%g/%g + %g/%g)/%.6g per layer forward (backward twice)", M,
             ctx->cast_rep, rep_t, ctx->cast_par, t, ctx->ew_bps);
    eq_result(out, s, "F24");
}

/* §12 F26: the framework's GEMM rate σ on F8 and F18 (printed only when it
 * is not 1, so every other explain output stays as it was). */
static void explain_gemm_rate_scale(FILE *out, const pe_eval_ctx *ctx)
{
    const double sigma = compute_gemm_rate_scale(&ctx->scenario->framework);
    if (sigma == 1.0)
        return;
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    eq_formula(out, "F26", NULL);
    eq_subst(out, "framework %s: σ = %g; peak·e_max·σ = %.6g·%g·%g%s",
             ctx->scenario->framework.name[0] ? ctx->scenario->framework.name
                                              : "(the scenario's keys)",
             sigma, ctx->peak, g->gemm_efficiency, sigma,
             ctx->fp8 ? "; the fp8 layer GEMMs at F18's rate times σ" : "");
    fprintf(out, "       σ: fitted on the 16 torchtitan fit runs by `planeval calibrate "
                 "scenarios/calibration/torchtitan.csv --priors "
                 "scenarios/calibration/priors/torchtitan.csv` in the torchtitan presets "
                 "(constrained: yes); a value given otherwise is the scenario's own\n");
    eq_result(out, ctx->gemm_rate, "F26");
}

/* §12 F28: torchtitan's eager element-wise bytes in F10's place (printed
 * only with eager_elementwise: true, so every other explain output stays as
 * it was). */
static void explain_eager_elementwise(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_framework *fw = &ctx->scenario->framework;
    if (!compute_eager(fw))
        return;
    const pe_model *m = &ctx->scenario->model;
    double rep, par;
    compute_eager_elementwise_bytes(m, fw->fused_rmsnorm, &rep, &par);
    const bool py_norm = m->norm == PE_NORM_RMSNORM && !fw->fused_rmsnorm;
    eq_formula(out, "F28", NULL);
    eq_subst(out, "eager_elementwise%s: rep = 2·%g·%g + 2·%g·%g = %g, par = %g; bytes per token "
                  "and layer, forward (in F10's place)",
             fw->fused_rmsnorm ? ", fused_rmsnorm" : "", py_norm ? 36.0 : 4.0, ctx->h,
             m->dropout ? 7.0 : 6.0, ctx->h, rep, par);
    fprintf(out, "       norm %s, %s, rotary %s, repeat_kv %s: byte counts of torchtitan's "
                 "Llama code (docs/model.md §12 F28), not fitted; backward twice (F10's rule)\n",
            py_norm ? "36h" : "4h", m->mlp == PE_MLP_SWIGLU ? "SwiGLU 10f" : "activation 4f",
            m->position == PE_POSITION_ROTARY ? "20(a·d + g·d)" : "none",
            m->kv_heads < m->heads ? "4(a·d + g·d)" : "none");
    eq_result(out, rep + par, "F28");
}

/* §12 F7–F11: the compute times by GEMM shape, attention core, element-wise
 * bytes and per-micro-batch overhead (when the GPU gives gemm_efficiency). */
static void explain_refined_compute(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                    const pe_detail *d)
{
    static const char *const NAMES[PE_LAYER_GEMMS] = {"QKV", "attention projection", "MLP in",
                                                      "MLP out"};
    const double t = (double)p->tp, M = (double)p->micro_batch * d->s_local;
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    fprintf(out, "     refined compute (docs/model.md §12): e_max = %g, F_half = %g GFLOP, "
                 "e_att = %g, η_W = %g, t_mb = %g µs; M = b·s' = %g tokens\n",
            g->gemm_efficiency, g->gemm_half_gflop, ctx->att_rate / ctx->peak,
            g->elementwise_efficiency, g->microbatch_overhead_us, M);
    const pe_model *m = &ctx->scenario->model;
    if (m->has_head_dim || m->attention == PE_ATTENTION_MLA)
        fprintf(out, "F17  attention GEMMs: projection from the a·%s outputs; every other "
                     "attention weight as one column-parallel multiply of its FLOPs\n",
                m->attention == PE_ATTENTION_MLA ? "d_v" : "head_dim");
    if (ctx->fp8) { /* F18's rate before F24's recipe ratio and F26's σ */
        const double rate8 = ctx->gemm_rate8 / ctx->fp8_cost.rate_ratio /
                             compute_gemm_rate_scale(&ctx->scenario->framework);
        fprintf(out, "F18  the layer GEMMs in fp8: peak_fp8·e_max8 = %.6g FLOP/s (e_max8 = %g), "
                     "roofline (MK + KN + 2MN)/W (efficiencies below are against the bf16 peak)\n",
                rate8, rate8 / (g->peak_fp8_tflops * 1e12));
        explain_fp8_kernel_rate(out, ctx);                                            /* F42 */
        explain_fp8_rowwise_measured(out, ctx, rate8 / (g->peak_fp8_tflops * 1e12)); /* F42 */
    }
    explain_gemm_rate_scale(out, ctx); /* F26 */
    if (ctx->cast_by_role)
        explain_fp8_role_casts(out, ctx, p, d, M); /* F24, F35, F36 */
    else if (ctx->fp8 && ctx->scenario->precision.fp8_recipe != PE_FP8_RECIPE_NONE)
        explain_fp8_recipe(out, ctx, p, M); /* F24 */
    for (int i = 0; i < PE_LAYER_GEMMS; i++) {
        const pe_gemm_shape *s = &ctx->gemms[i];
        const double K = s->k_sharded ? s->K / t : s->K, N = s->k_sharded ? s->N : s->N / t;
        const double F = 2.0 * M * K * N;
        char what[96];
        snprintf(what, sizeof what, "%s GEMM %g×%g×%g, F = 2·M·K·N = %.6g FLOP", NAMES[i], M, K, N, F);
        eq_formula_as(out, "F7-8", what);
        if (ctx->fp8) /* F18 */
            eq_subst(out, "max((%.6g + %.6g)/%.6g, (%g + %g + 2·%g)/%.6g)", F,
                     g->gemm_half_gflop * 1e9, ctx->gemm_rate8,
                     M * K, K * N, M * N, ctx->hbm_bps);
        else
            eq_subst(out, "max((%.6g + %.6g)/%.6g, 2·(%g + %g + %g)/%.6g)", F,
                     g->gemm_half_gflop * 1e9, ctx->gemm_rate, M * K, K * N, M * N, ctx->hbm_bps);
        fprintf(out, "       = %.6g s (efficiency F/(peak·τ) = %.4g)%*s[Hockney n½; Williams]\n",
                d->gemm_t[i], F / (ctx->peak * d->gemm_t[i]), 8, "");
    }
    explain_attention_kernel(out, ctx); /* F30 */
    explain_attention_shape(out, ctx, d);
    eq_formula(out, "F9", NULL);
    if (ctx->att_by_shape || ctx->att_head < 1.0) /* F22's e_att */
        eq_subst(out, "%g·%.6g/%g·%g / (%.6g·%.6g·%.6g)", M, ctx->F_att, t, ctx->att_work,
                 ctx->att_rate, ctx->att_head, d->att_shape);
    else
        eq_subst(out, "%g·%.6g/%g / %.6g", M, ctx->F_att, t, ctx->att_rate);
    eq_result(out, d->core_f9, "F9");
    explain_cp_ring_core(out, ctx, p, d, M); /* X31 */
    explain_eager_elementwise(out, ctx); /* F28 */
    eq_formula(out, "F10", NULL);
    eq_subst(out, "%g·(%g/%g + %g/%g + %g/%g) / %.6g", M, ctx->ew_rep,
             p->sequence_parallel ? t : 1.0, ctx->ew_par, t, ctx->ew_att, t, ctx->ew_bps);
    eq_result(out, d->tau_ew, "F10");
    eq_formula(out, "F7-10", NULL);
    eq_result(out, d->tau_out, "F7-10");
    eq_formula(out, "F8-10", NULL);
    fprintf(out, "       = %.6g s, %.6g s, %.6g s\n", d->tau_lf, d->tau_lb, d->tau_att);
    const int stages = shown_stages(p, d);
    for (int i = 0; i < stages; i++) {
        char sb[32], what[96];
        snprintf(what, sizeof what, "τ_f, τ_b %s, %g layers", stage_name(i, p, d, sb),
                 d->stage_layers[i]);
        eq_formula_as(out, ctx->accum_s_per_param > 0 ? "F11/F20:accum" : "F11/F20", what);
        fprintf(out, "       = %.6g s, %.6g s\n", d->tau_f[i], d->tau_b[i]);
        if (ctx->rc_by_layer && p->recompute == PE_RECOMPUTE_FULL) /* F27 */
            fprintf(out, "       τ_b less the recomputed forward of the %g stored layers (F27: %g "
                         "of %g recomputed)\n",
                    d->stage_layers[i] - d->rec_layers[i], d->rec_layers[i], d->stage_layers[i]);
    }
}

/* §4 F1–F6. */
/* F39: the element-wise ops and FP8 casts the op policy re-runs (framework
 * op_sac_recompute_elementwise), one layer's time in τ_lb. */
static void explain_f39(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d)
{
    const double c = ctx->fp8_cost.cast_bytes, a = ctx->op_sac_amax_saved;
    eq_formula(out, "F39", NULL);
    if (c > 0.0 && d->tau_cast_f > 0.0)
        eq_subst(out, "(%.6g − %.6g) + %.6g·(%g − %g)/%g", d->tau_ew, d->tau_ew_att, d->tau_cast_f,
                 c, a, c);
    else
        eq_subst(out, "(%.6g − %.6g) + 0 (no FP8 casts by role)", d->tau_ew, d->tau_ew_att);
    fprintf(out, "       e_f, e_att: F10/F28's forward element-wise time (byte counts of the "
                 "framework's code, not fitted); cast_f: F35/F36's forward casts; a: the amax "
                 "read _save_list keeps (aten.max: tensorwise); under compile the partitioner "
                 "may skip some (an upper bound)   [torchtitan@9dec370 parallelize_llama.py "
                 "_custom_policy; pytorch/ao@0afa4c1 float8_utils.py tensor_to_amax]\n");
    eq_result(out, d->tau_rec_ew, "F39");
}

/* F25: what torchtitan's op-level policy recomputes (A15), as FLOPs and,
 * with the refined model, as the recomputed GEMMs' time per layer. */
static void explain_op_sac(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d)
{
    const pe_model *m = &ctx->scenario->model;
    const double d_h = m->has_head_dim ? (double)m->head_dim : (double)m->hidden / (double)m->heads;
    eq_formula(out, "F25", NULL);
    eq_subst(out, "2·%g·%g·%g + 2·%g·%g·%g + 2·%g·%g", ctx->h, (double)m->kv_heads, d_h,
             (double)m->heads, d_h, ctx->h, ctx->h, (double)m->ffn_hidden);
    eq_result(out, d->x, "F25");
    if (ctx->refined_compute)
        fprintf(out, "     timed (F8): %.4g·QKV %.6g + %g·out %.6g + %g·MLP in %.6g + %g·MLP out %.6g "
                     "s per layer, in τ_lb   [torchtitan parallelize_llama.py]\n",
                ctx->op_rec_share[0], d->gemm_t[0], ctx->op_rec_share[1], d->gemm_t[1],
                ctx->op_rec_share[2], d->gemm_t[2], ctx->op_rec_share[3], d->gemm_t[3]);
    if (ctx->refined_compute && ctx->op_sac_ew)
        explain_f39(out, ctx, d);
}

/* §12 F27: the layers each stage's backward recomputes under full
 * recompute by layer (A18's recompute_method), and the FLOPs they add. */
static void explain_f27(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    static const char *const method[] = {"uniform", "block", "every"};
    const double t = (double)p->tp, b = (double)p->micro_batch;
    char sb[32];
    for (int i = 0; i < shown_stages(p, d); i++) {
        eq_formula(out, "F27", stage_name(i, p, d, sb));
        eq_subst(out, "recompute_method %s, recompute_num_layers %g, L' = %g, v = %lld",
                 method[ctx->rc_method], ctx->rc_layers, d->stage_layers[i],
                 (long long)p->virtual_stages);
        fprintf(out, "       = %g of %g layers recomputed: %g·%g·%g·%.6g/%g = %.6g FLOP per "
                     "micro-batch in the backward (the other %g keep their activations)\n",
                d->rec_layers[i], d->stage_layers[i], b, d->s_local, d->rec_layers[i], d->x, t,
                b * d->s_local * d->rec_layers[i] * d->x / t,
                d->stage_layers[i] - d->rec_layers[i]);
    }
}

/* F37 (finetune: lora): the per-layer terms F5, F6 or F11 below already hold */
static void explain_f37(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    const pe_lora_ctx *lo = &ctx->lora;
    const double M = (double)p->micro_batch * d->s_local, t = (double)p->tp;
    eq_formula(out, "F37", NULL);
    fprintf(out, "       adapters forward 2·%g·%g·(%g + %g/%g) = %.6g FLOP a layer (backward twice%s)\n",
            M, lo->r, lo->rep, lo->sh, t, d->lora_ad_flop,
            p->recompute == PE_RECOMPUTE_FULL ? ", recomputed once" : "");
    fprintf(out, "       frozen base: no weight-gradient GEMMs, 2·%g·%.6g/%g = %.6g FLOP a layer "
                 "less in F5's backward\n",
            M, ctx->N_mm, t, d->lora_wg_flop);
    fprintf(out, "       times a layer: adapters %.6g s%s, weight gradients saved %.6g s\n",
            d->lora_ad_t, ctx->refined_compute ? " (F8 each GEMM)" : "", d->lora_wg_t);
    if (lo->quantised)
        fprintf(out, "       dequantisation %.6g B/%g / %.6g B/s = %.6g s a layer per forward and "
                     "backward (bitsandbytes' kernel as HBM traffic, no measurement)\n",
                lo->deq_bytes, t, lo->deq_bps, d->lora_dq_t);
    fprintf(out, "       frozen output layer: %g·%.6g/%g FLOP, %.6g s less in the last stage's backward\n",
            M, ctx->F_out, t, d->lora_out_t);
    fprintf(out, "       F5, F6 and F11 below include these; F3's F_model (MFU) does not\n");
}

/* F5 of stage i; with LoRA (F37) f_fwd and f_bwd hold the adapters' FLOPs,
 * less the frozen base's weight gradients and the frozen output layer's,
 * and the substitution shows those terms so that it evaluates to the result. */
static void explain_f5(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                       int i, const char *st)
{
    const double t = (double)p->tp, b = (double)p->micro_batch;
    const bool last = i == 1 || p->pp == 1, lora = ctx->lora.on;
    const double ls = d->stage_layers[i];
    const double rec = p->recompute == PE_RECOMPUTE_FULL ? d->rec_layers[i] : 0.0;
    char fwd[96] = "", bwd[192] = "";
    if (lora) {
        snprintf(fwd, sizeof fwd, " + %g·%.6g  (F37: + L'·ad)", ls, d->lora_ad_flop);
        int n = snprintf(bwd, sizeof bwd, " + %g·%.6g − %g·%.6g", rec, d->lora_ad_flop, ls,
                         d->lora_wg_flop);
        if (last)
            snprintf(bwd + n, sizeof bwd - (size_t)n, " − %g·%g·%.6g / %g", b, d->s_local,
                     ctx->F_out, t);
        strncat(bwd, last ? "  (F37: + L_rec·ad − L'·wg − b·s'·F_out/t)"
                          : "  (F37: + L_rec·ad − L'·wg)",
                sizeof bwd - strlen(bwd) - 1);
    }
    eq_formula(out, "F5", st);
    eq_subst(out, "%g·%g·[%g·%.6g + %.6g] / %g%s", b, d->s_local, ls, ctx->F_layer,
             last ? ctx->F_out : 0.0, t, fwd);
    eq_result(out, d->f_fwd[i], "F5");
    eq_formula(out, "F5:bwd", st);
    eq_subst(out, "2·%.6g + %g·%g·%g·%.6g / %g%s", d->f_fwd[i], b, d->s_local, d->rec_layers[i],
             d->x, t, bwd); /* L/p, or F27's recomputed layers */
    eq_result(out, d->f_bwd[i], "F5:bwd");
}

/* F6 of stage i; a quantised LoRA base (F37) adds its dequantisation time,
 * L'·dq to τ_f and (L' + L_rec)·dq to τ_b, which FLOPs do not hold. */
static void explain_f6(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d,
                       int i, const char *st)
{
    const double ls = d->stage_layers[i];
    const double rec = p->recompute == PE_RECOMPUTE_FULL ? d->rec_layers[i] : 0.0;
    char dqf[64] = "", dqb[96] = "";
    if (ctx->lora.on && ctx->lora.quantised) {
        snprintf(dqf, sizeof dqf, " + %g·%.6g", ls, d->lora_dq_t);
        snprintf(dqb, sizeof dqb, " + (%g + %g)·%.6g", ls, rec, d->lora_dq_t);
    }
    const char *note = dqf[0] ? "  (F37: + L'·dq, + (L' + L_rec)·dq)" : "";
    if (ctx->accum_s_per_param > 0) { /* τ_b includes F21's pass, printed below */
        eq_formula(out, "F6:accum", st);
        eq_subst(out, "%.6g / %.6g%s, %.6g / %.6g%s + %.6g%s", d->f_fwd[i], ctx->rate, dqf,
                 d->f_bwd[i], ctx->rate, dqb, d->t_accum[i], note);
    } else {
        eq_formula(out, "F6", st);
        eq_subst(out, "%.6g / %.6g%s, %.6g / %.6g%s%s", d->f_fwd[i], ctx->rate, dqf, d->f_bwd[i],
                 ctx->rate, dqb, note);
    }
    fprintf(out, "       = %.6g s, %.6g s\n", d->tau_f[i], d->tau_b[i]);
}

static void explain_compute(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_detail *d)
{
    char sb[32], what[96];
    const int stages = shown_stages(p, d);
    heading(out, "Compute (docs/model.md §4)");
    eq_formula(out, "F1", NULL);
    eq_subst(out, "2·%.6g + 4·%g·%g·%g", ctx->N_mm, ctx->s, ctx->h,
             ctx->scenario->model.causal_flops ? 0.5 : 1.0);
    eq_result(out, ctx->F_layer, "F1");
    eq_formula(out, "F2", NULL);
    eq_subst(out, "2·%g·%g", ctx->h, ctx->V);
    eq_result(out, ctx->F_out, "F2");
    eq_formula(out, "F3", NULL);
    eq_subst(out, "3·%g·%g·(%g·%.6g + %.6g)", ctx->B, ctx->s, ctx->L, ctx->F_layer, ctx->F_out);
    eq_result(out, ctx->F_model, "F3");
    eq_formula(out, "F4", NULL);
    eq_subst(out, "%s", pe_recompute_name(p->recompute));
    eq_result(out, d->x, "F4");
    if (ctx->op_sac && !ctx->moe.on && p->recompute == PE_RECOMPUTE_SELECTIVE)
        explain_op_sac(out, ctx, d);
    if (ctx->rc_by_layer && p->recompute == PE_RECOMPUTE_FULL)
        explain_f27(out, ctx, p, d);
    if (ctx->lora.on)
        explain_f37(out, ctx, p, d);
    for (int i = 0; i < stages; i++) {
        const char *st = stage_name(i, p, d, sb);
        explain_f5(out, ctx, p, d, i, st);
        if (ctx->refined_compute)
            continue; /* the times come from F7–F11 below */
        if (ctx->fp8) { /* F16 replaced F6's times: two rates (GEMM precision below) */
            eq_formula(out, ctx->accum_s_per_param > 0 ? "F16:accum" : "F16", st);
            fprintf(out, "       = %.6g s, %.6g s\n", d->tau_f[i], d->tau_b[i]);
            continue;
        }
        explain_f6(out, ctx, p, d, i, st);
    }
    if (ctx->refined_compute) {
        explain_refined_compute(out, ctx, p, d);
    } else {
        eq_formula(out, "F6:layer", NULL);
        fprintf(out, "       = %.6g s, %.6g s, %.6g s\n", d->tau_lf, d->tau_lb, d->tau_att);
    }
    if (ctx->accum_s_per_param > 0)
        for (int i = 0; i < stages; i++) {
            snprintf(what, sizeof what, "gradient accumulation per micro-batch %s, in τ_b above",
                     stage_name(i, p, d, sb));
            const bool shard = p->zero >= 2;
            eq_formula_as(out, "F21", what);
            eq_subst(out, "(%.6g/%g + %.6g/%g)·%.6g s per parameter", d->n_gpu[i],
                     shard ? d->D : 1.0, d->moe.n_exp[i], shard && ctx->moe.on ? d->moe.D_e : 1.0,
                     ctx->accum_s_per_param);
            eq_result(out, d->t_accum[i], "F21");
        }
}

/* §5 groups, §6 X1 and X2: the communication of every layer. */
/* X24: the backward reduce-scatters async TP leaves unfused (E_b below);
 * X29: their Shard(1) copies (the time stage's layers). */
static void explain_tp_unfused(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d,
                               double hide)
{
    const double lt = d->stage_layers[d->time_stage], rs = d->t_ar_tp / 2;
    eq_formula(out, "X24", NULL);
    eq_subst(out, "QKV %.6g (unfused: dq·Wq + dk·Wk + dv·Wv) + out max(max(0, %.6g − %.6g·%.6g), "
                  "%.6g·%.6g) + MLP in %s + MLP out max(max(0, %.6g − %.6g·%.6g), %.6g·%.6g)",
             rs, d->t_ag_tp, hide, d->gemm_chunks_t[1], d->t_ag_tp, ctx->overlap_contention,
             ctx->tp_unfused_in ? "unfused (dh1·W1 + dh3·W3)" : "fused (one matmul, X16)",
             d->t_ag_tp, hide, d->gemm_chunks_t[3], d->t_ag_tp, ctx->overlap_contention);
    fprintf(out, "       of it unfused, exposed whole: %.6g s a layer, %g·%.6g = %.6g s a step "
                 "(a reduce-scatter fuses only with the one matmul producing its input)\n",
            d->tp_unfused_layer, lt, d->tp_unfused_layer, lt * d->tp_unfused_layer);
    eq_result(out, d->tp_mp_bwd_layer, "X24");
    if (d->tp_copy_unfused <= 0)
        return;
    eq_formula(out, "X29", NULL);
    eq_subst(out, "%g·2·%.6g/%.6g (c_rs, X28's copy; %g unfused reduce-scatter%s a layer)",
             ctx->tp_unfused_in ? 2.0 : 1.0, d->s_tp, ctx->ew_bps, ctx->tp_unfused_in ? 2.0 : 1.0,
             ctx->tp_unfused_in ? "s" : "");
    eq_result(out, d->tp_copy_unfused, "X29");
    fprintf(out, "     in χ_tp,b below: (L/p)·E_u = %g·%.6g = %.6g s   [torch "
                 "_functional_collectives.py; _inductor/fx_passes/micro_pipeline_tp.py]\n",
            lt, d->tp_copy_unfused, lt * d->tp_copy_unfused);
}

/* X32: each fused all-gather's copy of the local shard into its symmetric
 * buffer before the first chunk, and what it adds to χ_tp,f and χ_tp,b. */
static void explain_tp_shard_stage(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                   const pe_detail *d)
{
    const double lt = d->stage_layers[d->time_stage];
    const bool full = p->recompute == PE_RECOMPUTE_FULL;
    eq_formula(out, "X32", NULL);
    eq_subst(out, "2·(%.6g/%lld)/%.6g (S %s)", ctx->tp_fp8_gather ? d->s_tp / 2 : d->s_tp,
             (long long)p->tp, ctx->ew_bps, ctx->tp_fp8_gather ? "= S_tp/2, X22's float8" : "= S_tp");
    eq_result(out, d->tp_stage, "X32");
    fprintf(out, "     in χ_tp,f and χ_tp,b below: %g·%.6g = %.6g s forward (QKV, MLP in), %g·(%.6g + %.6g) = "
                 "%.6g s backward (%sout, MLP out%s); the copy is not overlapped (the code gives up "
                 "overlapping it with the first chunk), the barrier untimed   [pytorch@0e9ed9c "
                 "_symmetric_memory _pipelined_multi_all_gather_and_consume]\n",
            lt, d->tp_stage_f, lt * d->tp_stage_f, lt, full ? d->tp_stage_f : 0.0, d->tp_stage_b,
            lt * ((full ? d->tp_stage_f : 0.0) + d->tp_stage_b),
            full ? "full recompute's forward; " : "",
            d->tp_stage_b > d->tp_stage_f ? ", X21's two re-run all-gathers" : "");
}

/* X16: the async-TP micro-pipeline's forward exposure per layer and X1's
 * counts from it (the time stage's layers). */
static void explain_tp_micro(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                             const pe_detail *d)
{
    const double hide = p->overlap.tp * ((double)p->tp - 1.0) / (double)p->tp;
    const double lt = d->stage_layers[d->time_stage];
    if (ctx->refined_compute && p->overlap.tp > 0) { /* F29: X16's g_i, each GEMM as t chunks */
        eq_formula(out, "F29", NULL);
        eq_subst(out, "%lld chunks of M/t = %.6g rows, t_half = %.6g s each: QKV %.6g (whole %.6g), "
                      "out %.6g (%.6g), MLP in %.6g (%.6g), MLP out %.6g (%.6g) s",
                 (long long)p->tp, (double)p->micro_batch * d->s_local / (double)p->tp,
                 ctx->t_half_layer, d->gemm_chunks_t[0], d->gemm_t[0], d->gemm_chunks_t[1],
                 d->gemm_t[1], d->gemm_chunks_t[2], d->gemm_t[2], d->gemm_chunks_t[3], d->gemm_t[3]);
        fprintf(out, "       = %.6g s per layer more in τ_lf (once more in τ_lb: the input-gradient "
                     "GEMMs; the weight-gradient ones are not chunked)%s\n",
                d->tau_chunks,
                ctx->t_half_layer > 0 ? ""
                                      : "; F_half = 0 (the GPU's fitted value): e(F) flat, no loss");
    }
    if (ctx->tp_fp8_gather) { /* X22: the all-gathers in float8 */
        eq_formula(out, "X22", NULL);
        eq_subst(out, "T_rs(S_tp/2) = T_rs(%.6g bytes) over tp; the reduce-scatters T_ar/2 = %.6g s",
                 d->s_tp / 2, d->t_ar_tp / 2);
        eq_result(out, d->t_ag_tp, "X22");
    }
    eq_formula(out, "X16", NULL);
    eq_subst(out, "Σ max(max(0, T_i − %.6g·g_i), T_i·%.6g), T_i = %.6g, %.6g, %.6g, %.6g (QKV and MLP in "
                  "all-gathers, out and MLP out reduce-scatters), g_i = %.6g, %.6g, %.6g, %.6g",
             hide, ctx->overlap_contention, d->t_ag_tp, d->t_ar_tp / 2, d->t_ag_tp, d->t_ar_tp / 2,
             d->gemm_chunks_t[0], d->gemm_chunks_t[1], d->gemm_chunks_t[2], d->gemm_chunks_t[3]);
    eq_result(out, d->tp_mp_layer, "X16");
    if (d->tp_unfused_layer > 0)
        explain_tp_unfused(out, ctx, d, hide);
    if (d->tp_reduce > 0) { /* F34: each fused reduce-scatter's own sum of t partials */
        eq_formula(out, "F34", NULL);
        eq_subst(out, "(1 + 1/%lld)·%.6g/%.6g", (long long)p->tp, d->s_tp, ctx->ew_bps);
        eq_result(out, d->tp_reduce, "F34");
        fprintf(out, "     in χ_tp,f and χ_tp,b below: %g·%.6g = %.6g s forward (wo, w2), %g·(%s%.6g) = "
                     "%.6g s backward (the reduce-scatters X16 fuses there)   [torch "
                     "_symmetric_memory _fused_matmul_reduce_scatter_impl]\n",
                lt, d->tp_reduce_f, lt * d->tp_reduce_f, lt,
                p->recompute == PE_RECOMPUTE_FULL ? "E_f's + " : "", d->tp_reduce_b,
                lt * ((p->recompute == PE_RECOMPUTE_FULL ? d->tp_reduce_f : 0.0) + d->tp_reduce_b));
    }
    if (d->tp_stage > 0)
        explain_tp_shard_stage(out, ctx, p, d);
    const char *x28 = d->tp_copy_layer > 0 ? " (+ X28's (L/p)·E_c below)"
                      : d->tp_stage > 0    ? " (+ F34's sums, X32's copies above)"
                      : d->tp_reduce > 0   ? " (+ F34's sums above)"
                                           : "";
    fprintf(out, "X1   with X16: χ_tp,f = (L/p)·E_f = %g·%.6g%s = %.6g s, χ_tp,b = [full]·(L/p)·E_f + (L/p)·E_b "
                 "(E_b = %.6g s: the same GEMMs, all-gathers before out and MLP out%s%s) "
                 "(+ X21's (L/p)·E_r%s below) = %.6g s   [PyTorch async TP]\n",
            lt, d->tp_mp_layer, x28, d->chi_tp_f, d->tp_mp_bwd_layer,
            ctx->tp_fp8_gather ? ", X22" : "",
            d->tp_unfused_layer > 0 ? (d->tp_copy_unfused > 0 ? "; X24's, + X29's (L/p)·E_u" : "; X24's")
                                    : "",
            d->tp_copy_layer > 0 ? ", X28's" : "", d->chi_tp_b);
}

/* X21: the TP all-gathers the op-level recompute re-runs, per layer, and
 * what they add to χ_tp,b (the time stage's layers). */
static void explain_tp_op_recompute(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                    const pe_detail *d)
{
    const bool mp = d->tp_mp_layer >= 0;
    const double hide = mp ? p->overlap.tp * ((double)p->tp - 1.0) / (double)p->tp : 0.0;
    const double *g = mp ? d->gemm_chunks_t : d->gemm_t;
    const double lt = d->stage_layers[d->time_stage];
    eq_formula(out, "X21", NULL);
    eq_subst(out, "max(max(0, %.6g − %.6g·%.4g·%.6g), %.6g·%.6g) + max(max(0, %.6g − %.6g·%.4g·%.6g), "
                  "%.6g·%.6g)   (QKV: wk recomputed, MLP in: w3; hide %s)",
             d->t_ag_tp, hide, ctx->op_rec_share[0], g[0], d->t_ag_tp,
             ctx->overlap_contention, d->t_ag_tp, hide, ctx->op_rec_share[2], g[2],
             d->t_ag_tp, ctx->overlap_contention,
             mp ? "= overlap.tp·(t−1)/t, X16's chunked g_i" : "0: no micro-pipeline");
    eq_result(out, d->tp_rec_layer, "X21");
    fprintf(out, "     added to χ_tp,b above: (L/p)·E_r = %g·%.6g = %.6g s   [torchtitan parallelize_llama.py "
                 "_save_list @820504e]\n",
            lt, d->tp_rec_layer, lt * d->tp_rec_layer);
}

/* X28: DTensor's Shard(1) copies beside the TP collectives async TP does
 * not fuse, per layer, and what they add to χ_tp,f and χ_tp,b. */
static void explain_tp_seq_copies(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                  const pe_detail *d)
{
    const double lt = d->stage_layers[d->time_stage];
    const double full = p->recompute == PE_RECOMPUTE_FULL ? 2.0 : 1.0;
    eq_formula(out, "X28", NULL); /* the bytes each copy charges, and the time from them */
    eq_subst(out, "c_ag = 2·%.6g/%.6g = %.6g s (%s), c_rs = 2·%.6g/%.6g = %.6g s; E_c = 2·c_ag + 2·c_rs",
             d->tp_copy_ag_bytes, ctx->ew_bps, d->tp_copy_ag,
             d->tp_copy_ag_bytes < d->s_tp ? "X22: float8, S_tp/2" : "S_tp", d->s_tp, ctx->ew_bps,
             d->tp_copy_rs);
    eq_result(out, d->tp_copy_layer, "X28");
    fprintf(out, "     in χ_tp,f and χ_tp,b above: (L/p)·E_c = %g·%.6g = %.6g s forward, %g·(%g·%.6g + %.6g "
                 "(X21's two re-run all-gathers)) = %.6g s backward   [torch "
                 "distributed/_functional_collectives.py; pytorch/torchtitan#437]\n",
            lt, d->tp_copy_layer, lt * d->tp_copy_layer, lt, full, d->tp_copy_layer,
            d->tp_copy_rec, lt * (full * d->tp_copy_layer + d->tp_copy_rec));
}

/* X23 (framework cp_ring_per_step): the ring step by step, each transfer
 * against one step's attention τ_att/c (backward 2·τ_att/c), on the time
 * stage's lt layers; the numbers X15 then charges are in chi_cp_f/b. */
static void explain_cp_ring_steps(FILE *out, const pe_plan *p, const pe_detail *d, double lt)
{
    const double c = (double)p->cp, ov = p->overlap.cp, T = d->t_p2p_cp;
    const double step_f = ov * d->tau_att / c, step_b = 2.0 * step_f;
    fprintf(out, "     X23 ring step: T_p2p = %.6g s against one step's attention "
                 "overlap.cp·τ_att/c = %g·%.6g/%g = %.6g s (backward 2·τ_att/c = %.6g s): %s\n",
            T, ov, d->tau_att, c, step_f, step_b,
            T > step_f ? "longer, the difference exposed every step" : "hidden");
    eq_formula(out, "X23:f", NULL);
    eq_subst(out, "%g·%g·max(0, %.6g − %.6g)", lt, c - 1.0, T, step_f);
    eq_result(out, d->chi_cp_f, "X23:f");
    eq_formula(out, "X23:b", NULL);
    eq_subst(out, "%g·[2·max(0, %.6g − %.6g) + %g·max(0, 2·%.6g − %.6g)%s]", lt, T, step_b,
             c - 2.0, T, step_b,
             p->recompute != PE_RECOMPUTE_NONE ? " + the forward ring again" : "");
    eq_result(out, d->chi_cp_b, "X23:b");
}

/* X33 (framework cp_ring_net_channels): the contention the CP counts
 * below charge on the ring's hidden transfers, c/S across nodes. */
static void explain_cp_contention(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d)
{
    if (ctx->cp_net_contention < 0.0)
        return;
    if (d->g_cp.n_out <= 1.0) {
        fprintf(out, "     X33 the cp group is inside one node (NVLink channels): X15's "
                     "contention %.6g stays on the ring\n",
                ctx->overlap_contention);
        return;
    }
    eq_formula(out, "X33", NULL);
    eq_subst(out, "%g/%g   (%g network channels of the %g SMs; X15's %.6g not charged on the ring)",
             ctx->cp_net_channels, ctx->cp_net_sms, ctx->cp_net_channels, ctx->cp_net_sms,
             ctx->overlap_contention);
    eq_result(out, ctx->cp_net_contention, "X33");
}

/* §6 X2 (the K/V ring behind the attention core) or X19 (framework
 * cp_kv_allgather: the all-gather of K and V, exposed) on the time stage. */
static void explain_cp_comm(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_detail *d)
{
    const double t = (double)p->tp, b = (double)p->micro_batch;
    const double lt = d->stage_layers[d->time_stage]; /* the time stage's layers */
    const pe_overlap *ov = &p->overlap;
    const pe_net *net = &ctx->net;
    if (p->cp <= 1) {
        fprintf(out, "X2   c = 1: no context-parallel communication\n");
        return;
    }
    eq_formula(out, "X2:S", NULL);
    eq_subst(out, "2·%g·%g·2·%g·%g/%g", b, d->s_local, ctx->g, ctx->d, t);
    eq_result(out, d->s_kv, "X2:S");
    const double rc = p->recompute != PE_RECOMPUTE_NONE ? 3.0 : 2.0;
    if (ctx->cp_allgather) { /* X19 */
        explain_rs(out, "T_ag(c·S_kv) over cp", &d->g_cp, net, (double)p->cp * d->s_kv,
                   d->t_ag_cp);
        eq_formula(out, "X19", NULL);
        eq_subst(out, "T_rs(%lld·%.6g), C4 above: K and V all-gathered before attention, no "
                      "overlap window (\"exposed in the critical path\"; cp_kv_allgather)",
                 (long long)p->cp, d->s_kv);
        eq_result(out, d->t_ag_cp, "X19");
        eq_formula(out, "X19:f", NULL);
        eq_subst(out, "%g·%.6g", lt, d->t_ag_cp);
        eq_result(out, d->chi_cp_f, "X19:f");
        eq_formula(out, "X19:b", NULL);
        eq_subst(out, "%g·%g·%.6g", lt, rc, d->t_ag_cp);
        eq_result(out, d->chi_cp_b, "X19:b");
        return;
    }
    explain_p2p(out, "T_p2p(S_kv)", &d->g_cp, net, d->s_kv, d->t_p2p_cp);
    explain_cp_contention(out, ctx, d);
    if (ctx->cp_ring_per_step) {
        explain_cp_ring_steps(out, p, d, lt);
        return;
    }
    eq_formula(out, "X2:f", NULL);
    eq_subst(out, "%g·max(0, %lld·%.6g − %g·%.6g)", lt, (long long)p->cp - 1, d->t_p2p_cp,
             ov->cp, d->tau_att);
    eq_result(out, d->chi_cp_f, "X2:f");
    eq_formula(out, "X2:b", NULL);
    eq_subst(out, "%g·max(0, %g·%lld·%.6g − %g·2·%.6g)", lt, rc, (long long)p->cp - 1,
             d->t_p2p_cp, ov->cp, d->tau_att);
    eq_result(out, d->chi_cp_b, "X2:b");
}

static void explain_layer_comm(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d)
{
    const double b = (double)p->micro_batch;
    const pe_overlap *ov = &p->overlap;
    const pe_net *net = &ctx->net;
    heading(out, "Collectives and overlap (docs/model.md §5-§6)");
    fprintf(out, "     ranks laid out tp, cp, dp, pp innermost first; G = %lld GPUs per node; "
                 "α_in = %g µs, α_out = %g µs, B_out = %g GB/s\n",
            (long long)ctx->gpus_per_node, net->alpha_in * 1e6, net->alpha_out * 1e6,
            net->out_bps / 1e9);
    const pe_cluster *cl = &ctx->scenario->cluster;
    if (net->half_in > 0 || net->half_out > 0 || cl->intra_node.bus_efficiency != 1 ||
        (cl->inter_node.present && cl->inter_node.bus_efficiency != 1))
        fprintf(out, "C8   η_max intra/inter = %g/%g (in every bandwidth below), S_half = %g/%g MB "
                     "added to every message: busbw(S) = η_max·B·S/(S + S_half)   [Hockney n½]\n",
                cl->intra_node.bus_efficiency, cl->inter_node.present ? cl->inter_node.bus_efficiency : 1.0,
                net->half_in / 1e6, net->half_out / 1e6);
    explain_group(out, "tp", &d->g_tp, 1, ctx);
    explain_group(out, "cp", &d->g_cp, p->tp, ctx);
    explain_group(out, "dp", &d->g_dp, p->tp, ctx);
    explain_group(out, "pp", &d->g_pp, p->tp * p->cp * p->dp, ctx);
    eq_formula(out, "X1:S", NULL);
    eq_subst(out, "2·%g·%g·%g", b, d->s_local, ctx->h);
    eq_result(out, d->s_tp, "X1:S");
    explain_rs(out, "T_rs(S_tp) over tp", &d->g_tp, net, d->s_tp, d->t_ar_tp / 2);
    if (d->t_ar_tp_tree > 0)
        fprintf(out, "C10  tree all-reduce over tp = 2·[chain in the node + (S + S_half)/(n_in·B_out) "
                     "+ ⌈log2 n_out⌉·α_out] = %.6g s; T_ar below is the faster of ring and tree   "
                     "[NCCL]\n", d->t_ar_tp_tree);
    eq_formula(out, "C5:tp", NULL);
    eq_result(out, d->t_ar_tp, "C5:tp");
    const double lt = d->stage_layers[d->time_stage]; /* the time stage's layers */
    if (d->tp_mp_layer >= 0) {
        explain_tp_micro(out, ctx, p, d);
    } else {
        if (d->t_tp_pair != d->t_ar_tp) { /* X22 without X16: the pairs' all-gathers in float8 */
            eq_formula(out, "X22", NULL);
            eq_subst(out, "T_rs(S_tp/2) = T_rs(%.6g bytes) over tp; the reduce-scatters T_ar/2 = "
                          "%.6g s; X1's pair in place of T_ar: %.6g + %.6g = %.6g s",
                     d->s_tp / 2, d->t_ar_tp / 2, d->t_ag_tp, d->t_ar_tp / 2, d->t_tp_pair);
            eq_result(out, d->t_ag_tp, "X22");
        }
        eq_formula(out, "X1:f", NULL);
        eq_subst(out, "%g·max(0, 2·%.6g − %g·%.6g)", lt, d->t_tp_pair, ov->tp, d->tau_lf);
        eq_result(out, d->chi_tp_f, "X1:f");
        if (ctx->tp_async_bwd) { /* X13 */
            const bool sp = p->sequence_parallel, full = p->recompute == PE_RECOMPUTE_FULL;
            eq_formula(out, sp ? "X13:sp" : "X13", NULL);
            const double part = sp ? d->t_ar_tp / 2 : d->t_ar_tp, c = ctx->overlap_contention;
            eq_subst(out, "%g·%.6g + %g + max(%.6g − %.6g, %.6g·%.6g) + max(%.6g − %.6g, %.6g·%.6g)"
                          "   (X15: s/(1 + s) = %.6g)",
                     full ? 2.0 : 0.0, d->t_ar_tp, sp ? d->t_ar_tp : 0.0, part, d->gemm_t[0], part,
                     c, part, d->gemm_t[2], part, c, c);
            eq_result(out, d->tp_bwd_layer, "X13");
            eq_formula(out, "X1:b-async", NULL);
            eq_subst(out, "%g·max(0, %.6g − %g·%.6g)", lt, d->tp_bwd_layer, ov->tp, d->tau_lb);
        } else {
            eq_formula(out, "X1:b", NULL);
            eq_subst(out, "%g·max(0, %g·%.6g − %g·%.6g)", lt,
                     p->recompute == PE_RECOMPUTE_FULL ? 4.0 : 2.0, d->t_tp_pair, ov->tp,
                     d->tau_lb);
        }
        eq_result(out, d->chi_tp_b, "X1:b");
    }
    if (d->tp_rec_layer > 0)
        explain_tp_op_recompute(out, ctx, p, d);
    if (d->tp_copy_layer > 0)
        explain_tp_seq_copies(out, ctx, p, d);
    explain_cp_comm(out, ctx, p, d);
}

/* §12 X34 (framework pp_overlap_interleaved_only): the overlap.pp X3 uses,
 * with its line when the key is on; the plan's overlap.pp otherwise. */
static double explain_pp_overlap(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p)
{
    const int interleaved = p->schedule == PE_SCHEDULE_INTERLEAVED;
    const double v = (double)p->virtual_stages;
    const double o = comm_pp_overlap(p->overlap.pp, ctx->pp_overlap_interleaved_only,
                                     interleaved, v);
    if (!ctx->pp_overlap_interleaved_only)
        return o;
    eq_formula(out, "X34", NULL);
    fprintf(out, "       = %g   (%s, v = %g: %s)%*s[§12]\n", o,
            interleaved ? "interleaved" : "not interleaved", v,
            interleaved && v > 1.0 ? "the plan's overlap.pp" : "the sends blocking", 8, "");
    return o;
}

/* §7 t_f, t_b of each stage; §6 X3 on the time stage. */
static void explain_stage_times(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                const pe_detail *d, const pe_result *r)
{
    const double t = (double)p->tp, b = (double)p->micro_batch, m = d->m;
    const pe_net *net = &ctx->net;
    char sb[32];
    const int stages = shown_stages(p, d);
    const int ts = d->time_stage;
    for (int i = 0; i < stages; i++) {
        /* uneven stages and the middle candidate: each stage its own χ */
        const double *chi = d->chi_per_stage ? d->chi_st[i] : (const double[4]){d->chi_tp_f,
                                                  d->chi_tp_b, d->chi_cp_f, d->chi_cp_b};
        const double ep_f = d->moe.chi_ep_f[i] + d->moe.chi_etp_f[i];
        const double ep_b = d->moe.chi_ep_b[i] + d->moe.chi_etp_b[i];
        if (ep_f != 0 || ep_b != 0) { /* MoE layers: X10, X11 join the stage (§14) */
            eq_formula(out, "§7:moe", stage_name(i, p, d, sb));
            eq_subst(out, "%.6g + %.6g + %.6g + %.6g, %.6g + %.6g + %.6g + %.6g", d->tau_f[i],
                     chi[0], chi[2], ep_f, d->tau_b[i], chi[1], chi[3], ep_b);
        } else {
            eq_formula(out, "§7", stage_name(i, p, d, sb));
            eq_subst(out, "%.6g + %.6g + %.6g, %.6g + %.6g + %.6g", d->tau_f[i], chi[0], chi[2],
                     d->tau_b[i], chi[1], chi[3]);
        }
        fprintf(out, "       = %.6g s, %.6g s\n", d->t_f[i], d->t_b[i]);
    }
    fprintf(out, "     time stage (larger t_f + t_b, ties to stage 0): stage %d\n", r->time_stage);
    if (p->pp > 1) {
        eq_formula(out, "X3:S", NULL);
        eq_subst(out, "2·%g·%g·%g/%g", b, d->s_local, ctx->h, p->sequence_parallel ? t : 1.0);
        eq_result(out, d->s_pp, "X3:S");
        if (d->pp_hop_bytes != d->s_pp) {
            eq_formula(out, "X6", NULL);
            eq_subst(out, "S_pp/t = %.6g/%g = %.6g bytes across nodes", d->s_pp, t, d->pp_hop_bytes);
            eq_result(out, d->t_p2p_pp, "X6");
        } else {
            explain_p2p(out, "T_p2p(S_pp)", &d->g_pp, net, d->s_pp, d->t_p2p_pp);
        }
        const double ov_pp = explain_pp_overlap(out, ctx, p); /* X34 */
        eq_formula(out, "X3", NULL);
        eq_subst(out, "%g·%lld·[max(0, %.6g − %g·%.6g/%lld) + max(0, %.6g − %g·%.6g/%lld)]", m,
                 (long long)p->virtual_stages, d->t_p2p_pp, ov_pp, d->tau_f[ts],
                 (long long)p->virtual_stages, d->t_p2p_pp, ov_pp, d->tau_b[ts],
                 (long long)p->virtual_stages);
        eq_result(out, d->chi_pp, "X3");
    } else {
        fprintf(out, "X3   p = 1: no pipeline communication\n");
    }
}

/* §6 X4, X5 on the time stage. */
/* X4's line: its stage's formula with the numbers it took; x4 the exposed time in force */
static void explain_dp_x4(FILE *out, const pe_plan *p, const pe_detail *d, double x4)
{
    static const char *const X4[] = {"X4:z0", "X4:z1", "X4:z2", "X4:z3"};
    /* X27's τ_g: τ_b unless set */
    const double m = d->m, tf = d->tau_f[d->time_stage], tb = d->tau_g, o = p->overlap.dp;
    eq_formula(out, X4[p->zero], NULL);
    switch (p->zero) {
    case 0:
        eq_subst(out, "max(0, 2·%.6g − %g·%.6g)",
                 d->t_ar_dp_tree > 0 && d->t_ar_dp_tree < 2 * d->t_rs_g ? d->t_ar_dp_tree / 2
                                                                        : d->t_rs_g,
                 o, tb); /* C10: the tree when it is faster */
        break;
    case 1:
        eq_subst(out, "max(0, %.6g − %g·%.6g) + max(0, %.6g − %g·%.6g)", d->t_g, o, tb,
                 d->t_rs_w, o, tf); /* t_g: X25's all-reduce when set */
        break;
    case 2:
        eq_subst(out, "%g·max(0, %.6g − %g·%.6g) + max(0, %.6g − %g·%.6g)", m, d->t_g, o, tb,
                 d->t_rs_w, o, tf);
        break;
    default:
        eq_subst(out, "%g·max(0, 2·%.6g + %.6g − %g·(%.6g + %.6g))", m, d->t_rs_w, d->t_rs_g, o,
                 tf, tb);
        break;
    }
    eq_result(out, x4, X4[p->zero]);
}

/* X30 (framework dp_chunk_sync) in place of X4's line when in force: each
 * collective against its chunks' windows; x4 is the exposed time in force
 * (X7's last bucket included, as X4's line shows it). 0 when not in force. */
static int explain_dp_chunked(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                              const pe_detail *d, double x4)
{
    if (!(ctx->dp_chunk_sync && p->schedule == PE_SCHEDULE_INTERLEAVED &&
          p->virtual_stages > 1 && p->zero <= 1))
        return 0;
    const double v = (double)p->virtual_stages, pp = (double)p->pp, o = p->overlap.dp;
    const double wb = o * d->tau_g, wf = o * d->tau_f[d->time_stage];
    const double k = (v - 1.0) * pp + 1.0;
    eq_formula(out, "X30", NULL);
    if (p->zero == 0)
        eq_subst(out, "max(0, (2·%.6g − %.6g)/%g, 2·%.6g − %g·%.6g/%g)   (v = %g, p = %g)",
                 d->t_g, wb, v, d->t_g, k, wb, v, v, pp);
    else
        eq_subst(out, "max(0, (%.6g − %.6g)/%g, %.6g − %g·%.6g/%g) + max(0, (%.6g − %.6g)/%g, "
                      "%.6g − %g·%.6g/%g)   (v = %g, p = %g)",
                 d->t_g, wb, v, d->t_g, k, wb, v, d->t_rs_w, wf, v, d->t_rs_w, k, wf, v, v, pp);
    eq_result(out, x4, "X30");
    return 1;
}

static void explain_dp_comm(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_detail *d)
{
    const pe_net *net = &ctx->net;
    const int ts = d->time_stage;
    eq_formula(out, "X4:S", NULL);
    eq_subst(out, "%g·%.6g, %g·%.6g%s", ctx->beta_g, d->n_train[ts], ctx->beta_w, d->n_w,
             !ctx->lora.on ? ""
             : p->zero == 3 && ctx->lora.quantised
                 ? "  (lora: N_t the adapters; S_w every weight, the quantised base as its "
                   "storage N_s, §12 A29)"
             : p->zero == 3 ? "  (lora: N_t the adapters; S_w every weight)"
                            : "  (lora: N_t the adapters, for both)");
    fprintf(out, "       = %.6g bytes, %.6g bytes\n", d->s_g, d->s_w);
    if (ctx->dp_flat && d->g_dp.n_out > 1) {
        eq_formula(out, "C9", NULL);
        fprintf(out, "       = %.6g s, %.6g s%*s[NCCL ring; Thakur 2005]\n", d->t_rs_g,
                d->t_rs_w, 30, "");
    } else {
        explain_rs(out, "T_rs(S_g) over dp·c", &d->g_dp, net, d->s_gc, d->t_rs_g); /* X26 */
        explain_rs(out, "T_rs(S_w) over dp·c", &d->g_dp, net, d->s_w, d->t_rs_w);
    }
    const double tied = ctx->tied_allreduce && p->pp > 1 ? d->t_tied : 0.0; /* X18, below */
    const double x4 = ctx->overlap_contention > 0 ? d->dp_exposed : d->chi_dp - tied;
    if (!explain_dp_chunked(out, ctx, p, d, x4))
        explain_dp_x4(out, p, d, x4);
    if (d->t_ar_dp_tree > 0)
        fprintf(out, "C10  tree all-reduce of S_g over dp·c = %.6g s against the ring's 2·T_rs = "
                     "%.6g s: X4 takes the faster   [NCCL]\n", d->t_ar_dp_tree, 2 * d->t_rs_g);
    if (ctx->dp_bucket_bytes > 0 && p->zero <= 1) {
        eq_formula(out, "X7", NULL);
        eq_subst(out, "bucket %.6g bytes of S_g %.6g%s", ctx->dp_bucket_bytes,
                 d->s_gc + d->s_gc_exp, /* the bytes on the wire (X26), experts' included */
                 d->s_gc_exp > 0 ? " (with the experts')" : "");
        eq_result(out, d->dp_last_bucket, "X7");
    }
    if (ctx->comm_slowdown > 0)
        fprintf(out, "X8   every exposed time above includes φ·(its hidden part), φ = %g (compute "
                     "slowed by overlapped communication)\n", ctx->comm_slowdown);
    if (ctx->overlap_contention > 0) { /* X15 on X4's collectives */
        eq_formula(out, "X15", NULL);
        eq_subst(out, "max(%.6g, %.6g·%.6g)   (X4 above; s = %g: every X1, X2, X9–X11 "
                      "count above is at least its collectives times s/(1 + s) too)",
                 d->dp_exposed, ctx->overlap_contention, d->dp_comm_all,
                 ctx->overlap_contention / (1.0 - ctx->overlap_contention));
        eq_result(out, d->chi_dp - tied, "X15");
    }
    if (ctx->opt_s_per_param > 0) {
        const bool shard = p->zero >= 1;
        eq_formula(out, "X14", NULL);
        eq_subst(out, "(%.6g/%g + %.6g/%g)·%.6g s per parameter", d->n_gpu[ts],
                 shard ? d->D : 1.0, d->moe.n_exp[ts], shard && ctx->moe.on ? d->moe.D_e : 1.0,
                 ctx->opt_s_per_param);
        eq_result(out, d->optimizer, "X14");
        return;
    }
    eq_formula(out, "X5", NULL);
    eq_subst(out, "%.6g/%g·(%g + %g + 2·%g)/%.6g", d->n_gpu[ts], p->zero >= 1 ? d->D : 1.0,
             ctx->beta_w, ctx->beta_g, ctx->beta_o, ctx->hbm_bps);
    eq_result(out, d->optimizer, "X5");

}

/* X18 (framework tied_embedding_allreduce): the first and last stage's
 * all-reduce of the tied embedding's gradient, added to dp_comm_s. */
static void explain_x18(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    eq_formula(out, "X18", NULL);
    eq_subst(out, "S_tied = %g·%g·%g/%g = %.6g bytes; C5 over the pair (n_in %g, n_out %g) = 2·T_rs",
             ctx->beta_g, ctx->V, ctx->h, (double)p->tp, d->s_tied,
             d->g_tied.n_in, d->g_tied.n_out);
    eq_subst(out, "dp_comm_s = X4 %.6g + X18 %.6g", d->chi_dp - d->t_tied, d->t_tied);
    eq_result(out, d->t_tied, "X18");
}

/* X25–X27 (framework dp_grad_collective, dp_grad_comm_bytes, dp_grad_window):
 * what the gradient collective of X4 above took in place of the textbook's. */
static void explain_dp_grad(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_detail *d)
{
    if (ctx->dp_grad_comm_bytes > 0) { /* the bytes X4's T_rs carried, experts' included */
        const int ts = d->time_stage;
        eq_formula(out, "X26", NULL);
        if (d->s_gc_exp > 0)
            eq_subst(out, "%g·%.6g over dp·c + %g·%.6g of the experts over edp (accumulated in "
                          "β_g = %g bytes), T_rs(S_g′) = %.6g s in X4 above, the two groups' together",
                     ctx->dp_grad_comm_bytes, d->n_train[ts], ctx->dp_grad_comm_bytes,
                     d->moe.n_exp[ts], ctx->beta_g, d->t_rs_g);
        else
            eq_subst(out, "%g·%.6g (accumulated in β_g = %g bytes), T_rs(S_g′) = %.6g s in X4 above",
                     ctx->dp_grad_comm_bytes, d->n_train[ts], ctx->beta_g, d->t_rs_g);
        eq_result(out, d->s_gc + d->s_gc_exp, "X26");
    }
    if (ctx->dp_grad_allreduce && p->zero == 1) {
        eq_formula(out, "X25", NULL);
        eq_subst(out, "2·%.6g, in X4 above", d->t_rs_g);
        eq_result(out, d->t_g, "X25");
    }
    if (ctx->dp_grad_window_mb && p->zero == 2) {
        eq_formula(out, "X27", NULL);
        eq_subst(out, "%.6g + %.6g, in X4 above", d->tau_f[d->time_stage],
                 d->tau_b[d->time_stage]);
        eq_result(out, d->tau_g, "X27");
    }
}

/* §12 B5: the other stages' own times; the bubble is the smaller of B5 and
 * B1–B4. */
static void explain_b5(FILE *out, const pe_plan *p, const pe_detail *d)
{
    static const char *const B[] = {"Σ_{j≠w} (t_f,j + t_b,j)", "Σ_{j≠w} (t_f,j + t_b,j)/v",
                                    "Σ_{j≠w} (t_f,j + t_b,j)", "Σ_{j≠w} t_f,j", "0"};
    const int ts = d->time_stage, mid = d->stages == 3 ? 2 : 0;
    eq_begin(out, "B5", "bubble by stage (framework bubble_by_stage)",
             "min(B above, %s), the p−2 middle stages at the %s stage's t",
             B[p->schedule], d->stages == 3 ? "middle" : "first");
    eq_subst(out, "Σ_{j≠w} t_f,j = %.6g + %.6g + %lld·%.6g − %.6g = %.6g s", d->t_f[0], d->t_f[1],
             (long long)(p->pp - 2), d->t_f[mid], d->t_f[ts], d->others_f);
    eq_subst(out, "Σ_{j≠w} t_b,j = %.6g + %.6g + %lld·%.6g − %.6g = %.6g s", d->t_b[0], d->t_b[1],
             (long long)(p->pp - 2), d->t_b[mid], d->t_b[ts], d->others_b);
    eq_value(out, d->bubble, "s", "DAPPLE");
}

/* The pipeline_layout in force (V3″): the layout as the canonical text
 * writes it, and each candidate stage's chunks. */
static void explain_layout(FILE *out, const pe_plan *p, const pe_detail *d)
{
    char text[PE_CANON_MAX];
    pipeline_layout_write(&p->layout, text, sizeof text);
    fprintf(out, "     pipeline layout (V3″): %d virtual stages = pp %lld x v %lld, layers per "
                 "virtual stage k (chunk k/p of stage k mod p, the embedding on 0, the loss on "
                 "%d): %s\n",
            (int)p->layout.count, (long long)p->pp, (long long)p->virtual_stages,
            (int)p->layout.count - 1, text);
    const int64_t at[3] = {0, p->pp - 1, d->mid_stage};
    for (int i = 0; i < d->stages; i++) {
        fprintf(out, "       stage %lld: %g layers in chunks", (long long)at[i],
                d->stage_layers[i]);
        const char *sep = " ";
        for (int64_t k = at[i]; k < p->layout.count; k += p->pp, sep = " + ")
            fprintf(out, "%s%d", sep, (int)p->layout.layers[k]);
        fprintf(out, "%s\n", i == 2 ? " (the middle candidate)" : "");
    }
}

/* B2′: interleaving over a given pipeline_layout, v_w = L_w/c_w of the
 * time stage w. */
static void explain_b2_layout(FILE *out, const pe_plan *p, const pe_detail *d)
{
    const int ts = d->time_stage;
    const int64_t w = ts == 0 ? 0 : ts == 1 ? p->pp - 1 : d->mid_stage;
    const int64_t Lw = pipeline_layout_stage(&p->layout, p->pp, w);
    const int64_t cw = pipeline_layout_chunk_max(&p->layout, p->pp, w);
    eq_formula(out, "B2′", NULL);
    eq_subst(out, "p = %lld, stage w = %lld: L_w = %lld, c_w = %lld, v_w = %.6g, t_f = %.6g, "
                  "t_b = %.6g", (long long)p->pp, (long long)w, (long long)Lw, (long long)cw,
             cw > 0 ? (double)Lw / (double)cw : (double)p->virtual_stages, d->t_f[ts], d->t_b[ts]);
    eq_result(out, d->bubble_uniform, "B2′");
}

/* §7 B1–B4 and §8 S1–S5. */
static void explain_bubble_step(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                                const pe_detail *d, const pe_result *r)
{
    const double m = d->m;
    const int ts = d->time_stage;
    heading(out, "Pipeline bubble (docs/model.md §7)");
    static const char *const B[] = {"B:1f1b",  "B:interleaved", "B:gpipe",
                                    "B:zb-h1", "B:zb-h2",       "B6"};
    if (p->layout.count && p->pp > 1 && p->schedule == PE_SCHEDULE_INTERLEAVED) {
        explain_b2_layout(out, p, d);
    } else {
        eq_formula(out, p->pp == 1 ? "B:p1" : B[p->schedule], NULL);
        eq_subst(out, "p = %lld, v = %lld, t_f = %.6g, t_b = %.6g", (long long)p->pp,
                 (long long)p->virtual_stages, d->t_f[ts], d->t_b[ts]);
        eq_result(out, d->bubble_uniform, B[p->schedule]); /* the schedule's source, p = 1 too */
    }
    if (ctx->bubble_by_stage && p->pp > 1)
        explain_b5(out, p, d);
    eq_formula(out, "§7:fraction", NULL);
    eq_subst(out, "%.6g / (%g·%.6g)", d->bubble, m, d->t_f[ts] + d->t_b[ts]);
    eq_result(out, r->bubble_fraction, "§7:fraction");

    heading(out, "Step time (docs/model.md §8)");
    fprintf(out, "     compute_s   = m·(τ_f + τ_b)     = %g·(%.6g + %.6g) = %.6g s\n", m,
            d->tau_f[ts], d->tau_b[ts], r->compute_s);
    fprintf(out, "     tp_comm_s   = m·(χ_tp,f + χ_tp,b) = %.6g s\n", r->tp_comm_s);
    fprintf(out, "     cp_comm_s   = m·(χ_cp,f + χ_cp,b) = %.6g s\n", r->cp_comm_s);
    fprintf(out, "     bubble_s    = %.6g s\n     pp_comm_s   = %.6g s\n     dp_comm_s   = %.6g s\n"
                 "     optimizer_s = %.6g s\n",
            r->bubble_s, r->pp_comm_s, r->dp_comm_s, r->optimizer_s);
    eq_formula(out, "S1", NULL);
    eq_result(out, r->step_time_s, "S1");
    eq_formula(out, "S2", NULL);
    eq_result(out, r->comm_fraction, "S2");
    explain_bound(out, ctx, p, r);
    eq_formula(out, "S4:tokens", NULL);
    eq_subst(out, "%g·%g / %.6g", ctx->B, ctx->s, r->step_time_s);
    eq_result(out, r->tokens_per_s, "S4:tokens");
    eq_formula(out, "S4:mfu", NULL);
    eq_subst(out, "%.6g / (%.6g·%g·%.6g)", ctx->F_model, r->step_time_s, ctx->N, ctx->peak);
    eq_result(out, r->mfu, "S4:mfu");
    fprintf(out, "S4   hfu = F_hw/(step·N·peak) = %.6g; tflops_per_gpu = F_model/(step·N)/1e12 = %.6g\n",
            r->hfu, r->tflops_per_gpu);
    if (ctx->rc_by_layer && p->recompute == PE_RECOMPUTE_FULL)
        fprintf(out, "       F_hw = %.6g FLOP (F27: F_hw(none) %.6g + (F_hw(full) %.6g − F_hw(none))"
                     "·R/L, R the recomputed layers of the p stages)\n",
                d->f_hw, ctx->F_hw[PE_RECOMPUTE_NONE], ctx->F_hw[PE_RECOMPUTE_FULL]);
    if (r->has_train_days) {
        eq_formula(out, "S5", NULL);
        eq_subst(out, "%.6g / %.6g / 86400", ctx->scenario->training.tokens, r->tokens_per_s);
        eq_result(out, r->train_days, "S5");
        fprintf(out, "S5   gpu_hours = N·train_days·24 = %.6g\n", r->gpu_hours);
    }
    if (r->has_cost) {
        eq_formula(out, "S7", NULL);
        eq_subst(out, "%.6g · %.6g", r->gpu_hours, ctx->scenario->cluster.cost_per_gpu_hour);
        eq_result(out, r->cost, "S7");
    }
    const pe_budgets *bu = &ctx->scenario->budgets;
    if (bu->has_gpu_hours || bu->has_cost) { /* T2: targets.gpu_hours, targets.cost */
        eq_formula(out, "T2", NULL);
        if (bu->has_gpu_hours)
            fprintf(out, "     gpu_hours %.6g > targets.gpu_hours %.6g: %s\n", r->gpu_hours,
                    bu->gpu_hours, step_over_target(r->gpu_hours, bu->gpu_hours) ? "over" : "met");
        if (bu->has_cost)
            fprintf(out, "     cost %.6g > targets.cost %.6g: %s\n", r->cost, bu->cost,
                    step_over_target(r->cost, bu->cost) ? "over" : "met");
    }
}

/* §8 S6: the prediction interval, with the δ± it took and where they came
 * from (the GPU preset's leave-one-out residuals, or the stated default). */
static void explain_interval(FILE *out, const pe_eval_ctx *ctx, const pe_result *r)
{
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    if (ctx->interval_source == PE_INTERVAL_NONE) {
        fprintf(out, "S6   no prediction interval in textbook mode (step_time_lo_s, "
                     "step_time_hi_s empty)\n");
        return;
    }
    eq_formula(out, "S6", NULL);
    if (ctx->interval_source == PE_INTERVAL_GPU)
        fprintf(out, "     δ− = %.6g, δ+ = %.6g: the GPU preset's, from %lld leave-one-out "
                     "residuals of its calibration runs (80%%)\n",
                ctx->interval_below, ctx->interval_above, (long long)g->step_time_interval_runs);
    else
        fprintf(out, "     δ− = %.6g, δ+ = %.6g: the stated default, not a measurement: %s\n",
                ctx->interval_below, ctx->interval_above,
                g->has_step_time_interval
                    ? "the GPU's runs were on other frameworks than this one"
                    : "no calibration runs for this GPU");
    eq_subst(out, "%.6g·(1 − %.6g) = %.6g s, %.6g·(1 + %.6g) = %.6g s", r->step_time_s,
             ctx->interval_below, r->step_time_lo_s, r->step_time_s, ctx->interval_above,
             r->step_time_hi_s);
}

/* §15 R1–R3: the run's energy, with the numbers it took. */
static void explain_energy(FILE *out, const pe_eval_ctx *ctx, const pe_result *r)
{
    const pe_run_ctx *k = &ctx->run;
    const double gpu_w = run_gpu_power(k->idle_w, k->tdp_w, r->compute_s, r->step_time_s);
    eq_formula(out, "R1", NULL);
    eq_subst(out, "%g + (%g − %g)·%.6g/%.6g%s", k->idle_w, k->tdp_w, k->idle_w, r->compute_s,
             r->step_time_s,
             ctx->scenario->cluster.gpu.has_idle_w ? "" : "  (idle_w not given: tdp_w)");
    eq_result(out, gpu_w, "R1");
    const double node_w = run_node_power(k->G, gpu_w, k->other_w);
    eq_formula(out, "R2", NULL);
    eq_subst(out, "%g·%.6g + %g", k->G, gpu_w, k->other_w);
    eq_result(out, node_w, "R2");
    eq_formula(out, "R3", NULL);
    eq_subst(out, "%.6g·%.6g·%g·%.6g·24 / 10^6", k->nodes, node_w, k->pue, r->effective_train_days);
    eq_result(out, r->energy_mwh, "R3");
}

/* §15 R4–R9: checkpoints, interruptions and goodput, with their numbers. */
static void explain_goodput(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d,
                            const pe_result *r)
{
    const pe_run_ctx *k = &ctx->run;
    const pe_scenario *s = ctx->scenario;
    const int ms = d->mem_stage;
    const double shard = d->m1[ms] + d->m3[ms];
    eq_formula(out, "R4", NULL);
    eq_subst(out, "N_total·(%g + %g); c_gpu = M1 + M3 = %.6g GiB", ctx->beta_w, ctx->beta_o,
             shard / GIB);
    eq_result(out, k->ckpt_bytes, "R4");
    const double delta = k->async ? shard / ctx->host_bps : k->write_s;
    eq_formula(out, "R5", NULL);
    if (k->async)
        eq_subst(out, "async: %.6g / %.6g B/s; δ_w = C/W_s = %.6g s behind training", shard,
                 ctx->host_bps, k->write_s);
    else
        eq_subst(out, "sync: %.6g / (%g·10^9 B/s)", k->ckpt_bytes, s->checkpointing.write_gb_s);
    eq_result(out, delta, "R5");
    eq_formula(out, "R6", NULL);
    eq_subst(out, "86400 / (%g·%g)", s->failures.interruptions_per_gpu_day, ctx->N);
    eq_result(out, k->mtbi_s, "R6");
    const double tau = k->interval_s > 0.0 ? k->interval_s : run_daly_interval(delta, k->mtbi_s);
    eq_formula(out, "R7:young", NULL);
    eq_result(out, sqrt(2.0 * delta * k->mtbi_s), "R7:young");
    eq_formula(out, "R7", k->interval_s > 0.0 ? "(given: interval_minutes)" : NULL);
    eq_subst(out, "δ = %.6g s, M = %.6g s", delta, k->mtbi_s);
    eq_result(out, tau, "R7");
    eq_formula(out, "R8", NULL);
    eq_subst(out, "%.6g / (%.6g·e^(%.6g/%.6g)·(e^((%.6g + %.6g)/%.6g) − 1))  (R' = R%s)", tau,
             k->mtbi_s, k->restart_eff_s, k->mtbi_s, tau, delta, k->mtbi_s,
             k->async ? " + δ_w" : "");
    eq_result(out, r->goodput, "R8");
    eq_formula(out, "R8:lost", NULL);
    eq_result(out, (tau + delta) / 2.0 + (k->async ? k->write_s : 0.0), "R8:lost");
}

/* §15: the whole run, when the scenario gives what it needs. */
static void explain_whole_run(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d,
                              const pe_result *r)
{
    if (!ctx->run.goodput_on && !r->has_energy)
        return;
    heading(out, "The whole run (docs/model.md §15)");
    if (ctx->run.goodput_on)
        explain_goodput(out, ctx, d, r);
    if (r->has_effective_train_days) {
        eq_formula(out, "R9", NULL);
        eq_subst(out, "%.6g / %.6g", r->train_days, r->goodput);
        eq_result(out, r->effective_train_days, "R9");
    }
    if (r->has_energy)
        explain_energy(out, ctx, r);
}

/* §14: the expert parts of memory and time (docs/design/moe.md). */
static void explain_moe_memory(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                               const pe_detail *d, const pe_result *r)
{
    const pe_moe_ctx *e = &ctx->moe;
    char sb[32];
    heading(out, "Mixture of experts: memory (docs/design/moe.md §2)");
    fprintf(out, "     E = %g experts, top_k = %g, f_e = %g, rho = %g; ep = %lld, etp = %lld\n",
            e->E, e->k, e->f_e_d, e->rho, (long long)p->ep, (long long)p->etp);
    fprintf(out, "P13  N_total = %.6g parameters; P14 N_active = %.6g (input embedding included)\n",
            e->N_total, e->N_active);
    eq_formula(out, "edp", NULL);
    eq_subst(out, "%lld·%lld·%lld/(%lld·%lld)", (long long)p->tp, (long long)p->cp,
             (long long)p->dp, (long long)p->ep, (long long)p->etp);
    eq_result(out, d->moe.D_e, "edp");
    for (int i = 0; i < shown_stages(p, d); i++) {
        fprintf(out, "P9   MoE layers %s = %g of %g\n", stage_name(i, p, d, sb), d->moe.n_moe[i],
                d->stage_layers[i]);
        eq_formula(out, "P16", NULL);
        eq_subst(out, "%g·%.6g/(%lld·%lld)", d->moe.n_moe[i], e->N_expert, (long long)p->ep,
                 (long long)p->etp);
        eq_result(out, d->moe.n_exp[i], "P16");
        eq_formula(out, "M'", NULL);
        eq_result(out, d->moe.mem_experts[i], "M'");
    }
    eq_formula(out, "A11", NULL);
    /* β_in and c_e as the model took them: A13 halves β_in and drops one
     * f_e of c_e with FP8 (ctx->moe.act_expert_inner is c_e·f_e); A19 sets both */
    const bool a19 = ctx->a19 && p->recompute == PE_RECOMPUTE_SELECTIVE;
    const double beta_in = a19 ? ctx->a19_beta_c : ctx->fp8 ? 1.0 : 2.0;
    const double c_e = (a19 ? ctx->a19_inner : e->act_expert_inner) / e->f_e_d;
    eq_subst(out, "%lld·%.6g·%g·%g/%lld·(%lld·%g·%.6g + %g·%.6g)  (β_in = %g, c_e = %g%s)",
             (long long)p->micro_batch, ctx->s / (double)p->cp, e->k, e->rho, (long long)p->tp,
             (long long)p->etp, beta_in, ctx->h, c_e, e->f_e_d, beta_in, c_e,
             a19 ? ": A19" : ctx->fp8 ? ": FP8, A13" : "");
    eq_result(out, d->moe.a_routed, "A11");
    if (ctx->a25_bytes > 0.0) { /* A25 (framework moe_dispatch_saved), inside A4' */
        eq_formula(out, "A25", NULL);
        eq_subst(out,
                 "%lld·%.6g·%g·%g/%lld·%g  (sorted_indices 8 + flat_sorted 8 + probs 4; "
                 "added to A4')",
                 (long long)p->micro_batch, ctx->s / (double)p->cp, e->k, e->rho,
                 (long long)p->tp, ctx->a25_bytes);
        eq_result(out, d->moe.a25, "A25");
    }
    eq_formula(out, "A4'", NULL);
    eq_result(out, d->moe.a_layer_m, "A4'");
    eq_formula(out, "A12", NULL);
    eq_result(out, d->moe.a12, "A12");
    fprintf(out, "     mem_experts_gib (of which, memory stage) = %.6g GiB\n", r->mem_experts_gib);
}

/* F32 (framework comm_sms): the MoE layer's overlapped share on the SMs the
 * all-to-all kernels leave; printed only when comm_sms is in force. */
static void explain_f32(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, const pe_detail *d)
{
    const int64_t c = ctx->scenario->framework.comm_sms, S = ctx->scenario->cluster.gpu.sm_count;
    eq_formula(out, "F32", NULL);
    if (p->ep <= 1 || p->overlap.ep <= 0.0) {
        eq_subst(out, "c = %lld of S = %lld SMs, but %s: no overlapped all-to-all, τ_ml as F19",
                 (long long)c, (long long)S, p->ep <= 1 ? "ep = 1" : "overlap.ep = 0");
        return;
    }
    eq_subst(out, "c/(S − c) = %lld/(%lld − %lld) = %.6g, overlap.ep = %g: τ_mlf %.6g·%.6g, "
                  "τ_mlb %.6g·%.6g   (X15 not charged on the all-to-all)",
             (long long)c, (long long)S, (long long)c, ctx->comm_sms_stretch, p->overlap.ep,
             d->moe.tau_mlf_all_sms, 1.0 + p->overlap.ep * ctx->comm_sms_stretch,
             d->moe.tau_mlb_all_sms, 1.0 + p->overlap.ep * ctx->comm_sms_stretch);
    eq_subst(out, "%.6g s, %.6g s   [DeepSeek-V3 arXiv:2412.19437 §3.2.2, §3.5.1]",
             d->moe.tau_mlf, d->moe.tau_mlb);
}

static void explain_moe_time(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                             const pe_detail *d, const pe_result *r)
{
    const pe_moe_ctx *e = &ctx->moe;
    const int ts = d->time_stage;
    heading(out, "Mixture of experts: time (docs/design/moe.md §3–§4)");
    fprintf(out, "F13   F_layer (dense layer) = %.6g FLOPs/token; F15 F_layer (MoE layer, with "
                 "router and rho) = %.6g\n", e->F_layer_d, e->F_layer_m);
    fprintf(out, "     expert and shared-expert GEMMs in %s, router in bf16 (see above)\n",
            ctx->fp8 ? "fp8" : "bf16");
    if (ctx->refined_compute) {
        eq_formula(out, "F19", NULL);
        eq_subst(out, "M_e = b·s'·k·ρ·ep·etp/(t·E) = %g rows per local expert; experts %.6g s, "
                      "shared %.6g s, router %.6g s",
                 d->moe.M_e, d->moe.t_exp, d->moe.t_sh, d->moe.t_router);
        if (ctx->moe_half_rows > 0.0) {
            eq_formula(out, "F38", NULL);
            eq_subst(out, "g(%g) = %g/(%g + %g) = %.6g of the large-M rate, in the experts' "
                          "%.6g s   (M_half: grouped_gemm_half_rows, the GPU's; the h800 preset's 123 is "
                          "measured: DeepGEMM's H800 tables, scenarios/measurements/grouped_gemm.csv)",
                     d->moe.M_e, d->moe.M_e, d->moe.M_e, ctx->moe_half_rows,
                     compute_grouped_gemm_efficiency(d->moe.M_e, ctx->moe_half_rows),
                     d->moe.t_exp);
        }
        if (ctx->moe_permute_s > 0.0) {
            eq_formula(out, "F23", NULL);
            eq_subst(out, "%g/%g·%g·%g·%g·%g / %.6g   (moe_permute_bytes·h over the pass rate)",
                     (double)p->micro_batch * d->s_local, (double)p->tp, e->k, e->rho,
                     ctx->scenario->framework.moe_permute_bytes, ctx->h,
                     compute_pass_bps(&ctx->scenario->cluster.gpu, ctx->hbm_bps));
            eq_result(out, d->moe.t_perm, "F23");
        }
        eq_result(out, ctx->comm_sms_stretch > 0.0 ? d->moe.tau_mlf_all_sms : d->moe.tau_mlf,
                  "F19");
        if (ctx->comm_sms_stretch > 0.0)
            explain_f32(out, ctx, p, d);
    }
    explain_group(out, "ep", &d->moe.g_ep, (long long)p->etp, ctx);
    eq_formula(out, "X9:S", NULL);
    eq_subst(out, "%.6g, %.6g bytes per GPU", d->moe.s_disp, d->moe.s_comb);
    eq_formula(out, "X9", NULL);
    eq_result(out, d->moe.t_ep, "X9");
    eq_formula(out, "X10", NULL);
    eq_subst(out, "%.6g, %.6g (tau_mlf %.6g, tau_mlb %.6g)", d->moe.chi_ep_f[ts],
             d->moe.chi_ep_b[ts], d->moe.tau_mlf, d->moe.tau_mlb);
    eq_formula(out, "X11", NULL);
    eq_subst(out, "%.6g, %.6g s per micro-batch", d->moe.chi_etp_f[ts], d->moe.chi_etp_b[ts]);
    eq_begin(out, "S1'", "step_time_s", "the seven columns + ep_comm_s");
    eq_subst(out, "... + ep_comm_s = ... + m·(χ_ep,f + χ_ep,b) = ... + %.6g", r->ep_comm_s);
    eq_value(out, r->step_time_s, "s", "docs/model.md §8");
}

/* §14: which GEMMs run in which precision (design §6, F16), and the
 * optimizer offload (§7, X12, M8). */
static void explain_precision(FILE *out, const pe_eval_ctx *ctx)
{
    heading(out, "GEMM precision (docs/design/moe.md §6)");
    fprintf(out, "     fp8 at peak_fp8·e = %.6g FLOP/s: QKV (or MLA q/kv projections), attention "
                 "output, MLP fc1/fc2, routed and shared experts (fprop, dgrad, wgrad)\n",
            ctx->rate8);
    fprintf(out, "     bf16 at peak·e = %.6g FLOP/s: attention scores and context, router, "
                 "output layer; MFU stays relative to the bf16 peak\n",
            ctx->rate);
    fprintf(out, "F16  fp8 FLOPs per token of a dense layer = 2·N_mm = %.6g; M7 FP8 weight "
                 "copies %g bytes per FP8-GEMM parameter (in mem_weights)\n",
            ctx->F8_layer, ctx->beta_8);
    if (ctx->refined_compute)
        fprintf(out, "     refined compute: the rates above are not used; F18 times each fp8 "
                     "GEMM from its shape at peak_fp8·e_max (docs/model.md §14)\n");
}

static void explain_offload(FILE *out, const pe_eval_ctx *ctx, const pe_detail *d,
                            const pe_result *r)
{
    heading(out, "Optimizer offload (docs/design/moe.md §7, ZeRO-Offload)");
    fprintf(out, "     N_sh = this GPU's optimizer shard = %.6g parameters; M3 on the GPU = 0\n",
            d->off.n_sh);
    const double x35 = ctx->scenario->framework.present
                           ? ctx->scenario->framework.offload_copy_bytes : 0.0;
    if (x35 > 0.0)
        fprintf(out, "X35   bytes a parameter each host copy moves = offload_copy_bytes = %g (the "
                     "framework's fp32 copies, in place of β_g %g and β_w %g)\n",
                x35, ctx->beta_g, ctx->beta_w);
    fprintf(out, "X12   T_d2h = %g·N_sh/B_host = %.6g s (hidden behind the last backward's "
                 "overlap.dp·τ_b less what X4 hides there: %.6g s), T_cpu = N_sh·G/R_cpu = "
                 "%.6g s, T_h2d = %g·N_sh/B_host = %.6g s (%s)\n",
            ctx->offload_d2h_bytes, d->off.t_d2h, d->off.window, d->off.t_cpu,
            ctx->offload_h2d_bytes, d->off.t_h2d, x35 > 0.0 ? "X35's bytes" : "β_g and β_w");
    fprintf(out, "X12   optimizer_s = max(0, T_d2h − window) + T_cpu + T_h2d\n");
    fprintf(out, "     optimizer_s = %.6g s; M8 host memory per node = %.6g GiB\n",
            r->optimizer_s, r->host_mem_gib);
}

static void explain_time(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                         const pe_detail *d, const pe_result *r)
{
    if (ctx->fp8)
        explain_precision(out, ctx);
    explain_compute(out, ctx, p, d);
    explain_layer_comm(out, ctx, p, d);
    explain_stage_times(out, ctx, p, d, r);
    explain_dp_comm(out, ctx, p, d);
    explain_dp_grad(out, ctx, p, d);
    if (ctx->tied_allreduce && p->pp > 1)
        explain_x18(out, ctx, p, d);
    explain_bubble_step(out, ctx, p, d, r);
    explain_interval(out, ctx, r);
    if (ctx->moe.on)
        explain_moe_time(out, ctx, p, d, r);
    if (p->offload_optimizer)
        explain_offload(out, ctx, d, r);
    explain_whole_run(out, ctx, d, r);
}

/* The basis of a refinement number, as docs/catalog.md "Basis of each
 * preset number" states it for the catalog's presets: the collective
 * plateaus are measured (tests/derive_presets.py derives them from
 * scenarios/measurements/collectives.csv); the compute numbers are fitted
 * to published runs by calibrate (each at or under its measured kernel
 * ceiling), except a gemm_efficiency held at the textbook 0.5; a number at
 * its neutral value is "neutral". */
static const char *basis_fitted(double v, double neutral)
{
    return v == neutral ? "neutral" : "fitted";
}

/* F42's kernel rates are measurements: the GPU's own (gemm_measured), or
 * its tensorwise kernel row where the framework's fp8_kernel_rate takes it */
static const char *basis_fp8_gemm(const pe_eval_ctx *ctx)
{
    const pe_gpu *g = &ctx->scenario->cluster.gpu;
    const pe_framework *fw = &ctx->scenario->framework;
    if (compute_fp8_kernel_rate_on(g, fw))
        return "measured (F42: the tensorwise kernel row of fp8_gemm.csv)";
    if (g->gemm_measured && g->has_fp8_gemm_efficiency)
        return "measured (F42: fp8_gemm.csv)";
    return g->has_fp8_gemm_efficiency ? "fitted" : "= e_max";
}

static void explain_basis(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_scenario *s = ctx->scenario;
    const pe_gpu *g = &s->cluster.gpu;
    const double eta_in = s->cluster.intra_node.bus_efficiency;
    const double eta_out = s->cluster.inter_node.present ? s->cluster.inter_node.bus_efficiency : 1;
    fprintf(out, "     basis: peak %g TFLOP/s, HBM %g TB/s, link bandwidths: datasheet (not measured); "
                 "latency_us: not measured; C8 η_max %g/%g: %s",
            g->peak_tflops, g->hbm_tb_s, eta_in, eta_out,
            eta_in == 1 && eta_out == 1 ? "neutral" : "measured");
    if (ctx->refined_compute)
        fprintf(out, "; e_max %g: %s; F_half %g: %s; e_att %g: %s; η_W %g: %s; t_mb %g: %s",
                g->gemm_efficiency,
                g->gemm_measured              ? "measured (F42: gemm.csv)"
                : g->gemm_efficiency == 0.5 ? "not measured (textbook 0.5)"
                                              : "fitted",
                g->gemm_half_gflop,
                g->gemm_half_measured ? "measured (F8: gemm_shapes.csv)"
                                      : basis_fitted(g->gemm_half_gflop, 0),
                ctx->att_rate / ctx->peak,
                /* F22's GPUs carry the kernel's measured asymptote, the rest a fit */
                g->attention_half_seq > 0 ? "measured (F22)"
                : g->attention_measured && g->has_attention_efficiency
                    ? "measured (F41: median of the causal training rows)"
                : g->has_attention_efficiency ? "fitted" : "= e_max",
                g->elementwise_efficiency, basis_fitted(g->elementwise_efficiency, 0),
                g->microbatch_overhead_us, basis_fitted(g->microbatch_overhead_us, 0));
    if (ctx->refined_compute && ctx->fp8)
        fprintf(out, "; e_max8 %g: %s", ctx->gemm_rate8 / (g->peak_fp8_tflops * 1e12),
                basis_fp8_gemm(ctx));
    if (ctx->refined_compute && ctx->moe_half_rows > 0.0) /* shown only where it is set */
        fprintf(out, "; F38 M_half %g: measured (grouped_gemm.csv)", ctx->moe_half_rows);
    fprintf(out, " (measured: derived from scenarios/measurements; fitted: calibrate on published "
                 "runs, under the measured ceiling; docs/catalog.md)\n");
}

/* Which refinements of docs/model.md §12 are on; nothing in textbook mode
 * or when every one is neutral. */
static void explain_fidelity(FILE *out, const pe_eval_ctx *ctx)
{
    const pe_scenario *s = ctx->scenario;
    const bool net = ctx->net.half_in > 0 || ctx->net.half_out > 0 ||
                     s->cluster.intra_node.bus_efficiency != 1 ||
                     (s->cluster.inter_node.present && s->cluster.inter_node.bus_efficiency != 1);
    if (!ctx->refined_compute && !net && !s->framework.present)
        return;
    fprintf(out, "     refined model (docs/model.md §12; fidelity: textbook turns it off):%s%s%s%s\n",
            ctx->refined_compute ? " compute by GEMM shape (F7-F11)" : "",
            net ? " measured collectives (C8)" : "", s->framework.present ? " framework " : "",
            s->framework.present ? (s->framework.name[0] ? s->framework.name : "(keys)") : "");
    explain_basis(out, ctx);
}

/* The framework's flags (what its preset stands for: a number no source
 * measures is named there, e.g. torchtitan's untimed async TP) and the
 * overlap this plan runs with. */
static void explain_framework(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p)
{
    const pe_framework *fw = &ctx->scenario->framework;
    if (!fw->present)
        return;
    if (fw->flags[0])
        fprintf(out, "     framework flags: %s\n", fw->flags);
    fprintf(out, "     overlap in force: tp %g, cp %g, dp %g, pp %g, ep %g (the framework's, then "
                 "the scenario's and the plan's overlap:)\n",
            p->overlap.tp, p->overlap.cp, p->overlap.dp, p->overlap.pp, p->overlap.ep);
}

void explain_plan(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p, unsigned sections)
{
    pe_result r;
    pe_detail d;
    evaluate_plan_detail(ctx, p, &r, &d);
    const pe_scenario *s = ctx->scenario;
    char canon[PE_CANON_MAX];
    plans_canonical(p, canon, sizeof canon);
    fprintf(out, "planeval explain: scenario %s, plan %s\n", s->name, p->name[0] ? p->name : canon);
    fprintf(out, "     canonical %s\n", canon);
    fprintf(out, "     N = nodes·G = %lld·%lld = %lld GPUs; B = %lld; s = %lld; b = %lld\n",
            (long long)s->cluster.nodes, (long long)s->cluster.gpus_per_node,
            (long long)ctx->gpus, (long long)ctx->global_batch, (long long)ctx->seq_len,
            (long long)p->micro_batch);
    explain_fidelity(out, ctx);
    explain_framework(out, ctx, p);
    if (sections & EXPLAIN_VALIDITY)
        explain_validity(out, ctx, p, &r);
    if (r.status == PE_STATUS_INVALID) {
        char reason[2048];
        evaluate_format_reason(ctx, p, &r, reason, sizeof reason);
        fprintf(out, "\nstatus: invalid (%s)\n", reason);
        return;
    }
    fprintf(out, "     m = B/(b·dp) = %lld/(%lld·%lld) = %g micro-batches; s' = s/c = %g; L/p = %g layers per stage\n",
            (long long)ctx->global_batch, (long long)p->micro_batch, (long long)p->dp, d.m,
            d.s_local, d.lps);
    if (p->layout.count)
        explain_layout(out, p, &d);
    if (p->first_stage_layers || p->last_stage_layers || p->layout.count)
        fprintf(out, "     uneven stages: below, L/p is each stage's own layers L_j: stage 0 %g, "
                     "stage %lld %g, middle %g\n",
                d.stage_layers[0], (long long)p->pp - 1, d.stage_layers[1], d.stage_layers[2]);
    if (sections & EXPLAIN_PARAMS)
        explain_params(out, ctx, p, &d);
    if ((sections & EXPLAIN_MEMORY) == EXPLAIN_MEMORY)
        explain_memory(out, ctx, p, &d, &r);
    if ((sections & EXPLAIN_MEMORY) == EXPLAIN_MEMORY && ctx->moe.on)
        explain_moe_memory(out, ctx, p, &d, &r);
    if (sections & EXPLAIN_TIME)
        explain_time(out, ctx, p, &d, &r);
    heading(out, "Budgets and status (docs/model.md §9)");
    char reason[2048];
    evaluate_format_reason(ctx, p, &r, reason, sizeof reason);
    fprintf(out, "status: %s%s%s%s\n", pe_plan_status_name(r.status), reason[0] ? " (" : "",
            reason, reason[0] ? ")" : "");
    fprintf(out, "interventions: %d (z > 0, recompute ≠ none, t > 1, p > 1, c > 1 count 1 each)\n",
            r.interventions);
    explain_sources(out);
}

void explain_memory_summary(FILE *out, const pe_eval_ctx *ctx, const pe_plan *p,
                            const pe_result *r)
{
    char canon[PE_CANON_MAX];
    plans_canonical(p, canon, sizeof canon);
    fprintf(out, "plan              %s\n", canon);
    if (r->status == PE_STATUS_INVALID) {
        char reason[2048];
        evaluate_format_reason(ctx, p, r, reason, sizeof reason);
        fprintf(out, "status            invalid (%s)\n", reason);
        return;
    }
    fprintf(out, "worst_stage       %d\n", r->worst_stage);
    fprintf(out, "weights           %10.3f GiB   M1\n", r->mem_weights_gib);
    fprintf(out, "gradients         %10.3f GiB   M2\n", r->mem_grads_gib);
    fprintf(out, "optimizer         %10.3f GiB   M3\n", r->mem_optimizer_gib);
    fprintf(out, "activations       %10.3f GiB   A6\n", r->mem_activations_gib);
    fprintf(out, "other             %10.3f GiB   M4 + A7/A8\n", r->mem_other_gib);
    fprintf(out, "reserve           %10.3f GiB   R\n", r->mem_reserve_gib);
    if (ctx->mem_phases) { /* the framework's memory by phase (docs/model.md §12 M9, M13) */
        fprintf(out, "peak              %10.3f GiB   M9: allocated, at the %s phase\n",
                r->mem_peak_gib, pe_mem_phase_name(r->mem_peak_phase));
        fprintf(out, "reserved          %10.3f GiB   M13: what the caching allocator holds\n",
                r->mem_reserved_gib);
        fprintf(out, "total             %10.3f GiB   M13: reserved + context + NCCL buffers\n",
                r->mem_total_gib);
    } else
        fprintf(out, "total             %10.3f GiB   M5\n", r->mem_total_gib);
    if (r->has_mem_interval) { /* M23, at the peak's ratios on the total */
        const double lo = mem_interval_lo(r->mem_total_gib, ctx->mem_interval_below),
                     hi = mem_interval_hi(r->mem_total_gib, ctx->mem_interval_above);
        char range[64];
        snprintf(range, sizeof range, "%.3f..%.3f", lo, hi);
        fprintf(out, "interval %19s GiB   M23: the total's 80%% interval (δ− %.4g, δ+ %.4g: %s)%s\n",
                range, ctx->mem_interval_below, ctx->mem_interval_above,
                ctx->mem_interval_source == PE_INTERVAL_FRAMEWORK
                    ? "the framework's memory residuals"
                    : "the stated default, not a measurement",
                r->mem_total_gib <= r->mem_budget_gib && hi > r->mem_budget_gib
                    ? "; its high end is over the budget"
                    : "");
    }
    fprintf(out, "budget            %10.3f GiB   M6: %s (headroom %.3f GiB)\n", r->mem_budget_gib,
            r->mem_total_gib <= r->mem_budget_gib ? "fits" : "DOES NOT FIT", r->mem_headroom_gib);
    fprintf(out, "state_total       %10.3f GiB   whole model, no parallelism\n", r->state_total_gib);
    fprintf(out, "act_total         %10.3f GiB   whole model, one micro-batch, no parallelism\n",
            r->act_total_gib);
}

void explain_bubble(FILE *out, pe_schedule schedule, double p, double m, double v, double t_f,
                    double t_b)
{
    double bubble = pipe_bubble(schedule, p, v, t_f, t_b);
    heading(out, "Pipeline bubble (docs/model.md §7) and in-flight micro-batches (§3)");
    static const char *const B[] = {"B1 (p−1)·(t_f + t_b)", "B2 (p−1)·(t_f + t_b)/v",
                                    "B1 (p−1)·(t_f + t_b)", "B3 (p−1)·t_f", "B4 0"};
    fprintf(out, "%s = ", p == 1 ? "p = 1: 0" : B[schedule]);
    switch (p == 1 ? PE_SCHEDULE_ZB_H2 : schedule) {
    case PE_SCHEDULE_INTERLEAVED:
        fprintf(out, "(%g−1)·(%g + %g)/%g", p, t_f, t_b, v);
        break;
    case PE_SCHEDULE_ZB_H1:
        fprintf(out, "(%g−1)·%g", p, t_f);
        break;
    case PE_SCHEDULE_ZB_H2:
        fprintf(out, "0");
        break;
    default:
        fprintf(out, "(%g−1)·(%g + %g)", p, t_f, t_b);
        break;
    }
    fprintf(out, " = %g   [%s]\n", bubble,
            schedule >= PE_SCHEDULE_ZB_H1 ? "Qi 2023" : "GPipe; Narayanan §2.2");
    fprintf(out, "bubble_fraction = bubble / (m·(t_f + t_b)) = %g / (%g·%g) = %g\n", bubble, m,
            t_f + t_b, pipe_bubble_fraction(bubble, m, t_f, t_b));
    fprintf(out, "k(0) = %g, k(p−1) = %g: %s\n", act_inflight(schedule, p, m, v, 0),
            act_inflight(schedule, p, m, v, 1),
            p == 1 ? "p = 1, plain gradient accumulation: 1"
            : schedule == PE_SCHEDULE_INTERLEAVED ? "min(p + (p−1)/v, m), min(p − (p−1)/v, m)"
            : schedule == PE_SCHEDULE_GPIPE       ? "m, m"
            : schedule == PE_SCHEDULE_ZB_H2       ? "min(2p − 1, m), 1"
                                                  : "min(p, m), 1");
    fprintf(out, "   [Korthikanti §4.2.3; Narayanan §2.2; Qi 2023]\n");
}

void explain_collective(FILE *out, const pe_cluster *cluster, int op, double bytes, long long n,
                        long long k)
{
    pe_net net = comm_net(cluster);
    pe_group g = comm_group(&net, n, k);
    pe_eval_ctx ctx = {.gpus_per_node = cluster->gpus_per_node, .net = net};
    heading(out, "Collective (docs/model.md §5)");
    explain_group(out, "collective", &g, k, &ctx);
    fprintf(out, "C3   B_out = nic_gb_s = %g GB/s, α_in = %g µs, α_out = %g µs\n", net.out_bps / 1e9,
            net.alpha_in * 1e6, net.alpha_out * 1e6);
    double rs = comm_reduce_scatter(&net, &g, bytes);
    switch (op) {
    case 0:
        explain_rs(out, "T_rs(S)", &g, &net, bytes, rs);
        eq_formula(out, "C5", NULL);
        eq_result(out, comm_all_reduce(&net, &g, bytes), "C5");
        break;
    case 1:
    case 2:
        explain_rs(out, "T_rs(S) (all-gather: the same)", &g, &net, bytes, rs);
        break;
    case 3:
        eq_formula(out, "C6", NULL);
        eq_subst(out, "%g/%g·%.6g/%.6g + %g·%g + %g/%g·%.6g/%.6g + %g·%g", g.n_in - 1, g.n, bytes,
                 g.b_in, g.n_in - 1, net.alpha_in, g.n - g.n_in, g.n, bytes, net.out_bps,
                 g.n_out - 1, net.alpha_out);
        eq_result(out, comm_all_to_all(&net, &g, bytes), "C6");
        break;
    default:
        explain_p2p(out, "T_p2p(S)", &g, &net, bytes, comm_p2p(&net, &g, bytes));
        break;
    }
}
