/* html_facts.c — a scenario's facts (html_facts.h). A refined scenario's
 * numbers are printed through the key tables of core/fields.h, so each is
 * named as the scenario file and the catalog name it, and a key added to a
 * table (a new framework setting) is not left out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fields.h"
#include "output/html_facts.h"

/* ------------------------------------------------------------ text */

typedef struct {
    char buf[sizeof ((pe_html_fact *)0)->value];
    size_t n;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    if (t->n >= sizeof t->buf - 1)
        return; /* full: the fact is cut, as snprintf cuts it */
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->n = t->n + (size_t)k < sizeof t->buf ? t->n + (size_t)k : sizeof t->buf - 1;
}

static void fact(pe_html_fact *out, size_t max, size_t *n, const char *key, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

static void fact(pe_html_fact *out, size_t max, size_t *n, const char *key, const char *fmt, ...)
{
    if (*n >= max)
        return;
    snprintf(out[*n].key, sizeof out[*n].key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out[*n].value, sizeof out[*n].value, fmt, ap);
    va_end(ap);
    (*n)++;
}

/* ------------------------------------------------------------ one key's value */

static bool field_given(const pe_field *f, const void *base)
{
    bool given = true;
    if (f->has_offset != PE_NO_OFFSET)
        memcpy(&given, (const char *)base + f->has_offset, sizeof given);
    return given;
}

/* The stored value of f in base, as the scenario file writes it. */
static void add_value(text *t, const pe_field *f, const void *base)
{
    const char *p = (const char *)base + f->offset;
    int64_t i;
    double d;
    bool b;
    int e;
    switch (f->type) {
    case PE_FT_INT: memcpy(&i, p, sizeof i); add(t, "%lld", (long long)i); break;
    case PE_FT_NUMBER: /* a size given as `auto` (framework reduce_bucket_size, ...) says so */
        memcpy(&d, p, sizeof d);
        if ((f->flags & PE_F_AUTO) && d == PE_DS_AUTO)
            add(t, "auto");
        else
            add(t, "%.6g", d);
        break;
    case PE_FT_BOOL: memcpy(&b, p, sizeof b); add(t, "%s", b ? "true" : "false"); break;
    case PE_FT_ENUM:
        memcpy(&e, p, sizeof e);
        add(t, "%s", f->enum_values && e >= 0 ? f->enum_values[e] : "?");
        break;
    default: add(t, "?"); break;
    }
}

/* "key value": the value the model takes. A key not given whose default is
 * another key of its table (attention_efficiency: gemm_efficiency) shows
 * that key's value, saying whose; one whose default is a word shows the
 * word (capacity_factor: dropless). */
static void add_field(text *t, const pe_fieldset *set, const void *base, const char *key)
{
    const pe_field *f = fields_find(set, key, strlen(key));
    if (!f || f->offset == PE_NO_OFFSET)
        return;
    add(t, "%s%s ", t->n ? ", " : "", key);
    if (field_given(f, base)) {
        add_value(t, f, base);
        return;
    }
    const char *word = f->default_text ? f->default_text : "none";
    const pe_field *other = fields_find(set, word, strlen(word));
    if (other && other->offset != PE_NO_OFFSET && field_given(other, base)) {
        add_value(t, other, base);
        add(t, " (%s's)", word);
    } else {
        add(t, "%s", word);
    }
}

/* Every number of a table (no preset, no nested mapping). */
static void add_table(text *t, const pe_fieldset *set, const void *base)
{
    for (size_t i = 0; i < set->count; i++)
        if (set->fields[i].type != PE_FT_PRESET && set->fields[i].type != PE_FT_MAP)
            add_field(t, set, base, set->fields[i].key);
}

/* ------------------------------------------------------------ textbook facts */

static void model_fact(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    const pe_model *m = &s->model;
    fact(out, max, n, "model",
         "%lld layers, hidden %lld, %lld heads (%lld kv), ffn %lld, vocab %lld, seq_len %lld, "
         "%s, %s attention%s",
         (long long)m->layers, (long long)m->hidden, (long long)m->heads, (long long)m->kv_heads,
         (long long)m->ffn_hidden, (long long)m->vocab, (long long)m->seq_len,
         pe_mlp_name(m->mlp), pe_attention_name(m->attention),
         m->has_params ? "; params given" : "");
}

static void flops_efficiency_fact(const pe_scenario *s, pe_html_fact *out, size_t max,
                                  size_t *n)
{
    const pe_gpu *g = &s->cluster.gpu;
    fact(out, max, n, "flops_efficiency", "%.6g (%s)", g->flops_efficiency,
         g->flops_efficiency == 0.5
             ? "the default, not calibrated: planeval calibrate solves it from one real run"
             : "set by the scenario or its cluster preset, e.g. calibrated; default 0.5");
}

/* intra_node and inter_node; refined: with their C8 numbers. */
static void link_facts(const pe_scenario *s, bool refined, pe_html_fact *out, size_t max,
                       size_t *n)
{
    const pe_cluster *c = &s->cluster;
    text t = {.n = 0};
    if (c->intra_node.present && c->intra_node.topology == PE_TOPOLOGY_FULL_MESH)
        add(&t, "full mesh, %lld links x %.6g GB/s, %.6g us", (long long)c->intra_node.links,
            c->intra_node.link_gb_s, c->intra_node.latency_us);
    else if (c->intra_node.present)
        add(&t, "switch, %.6g GB/s, %.6g us", c->intra_node.bandwidth_gb_s,
            c->intra_node.latency_us);
    if (c->intra_node.present && refined) {
        add(&t, " (C8: ");
        text c8 = {.n = 0};
        add_field(&c8, &pe_fields_intra_node, &c->intra_node, "bus_efficiency");
        add_field(&c8, &pe_fields_intra_node, &c->intra_node, "half_message_mb");
        add(&t, "%s)", c8.buf);
    }
    if (c->intra_node.present)
        fact(out, max, n, "intra_node", "%s", t.buf);
    if (!c->inter_node.present)
        return;
    t.n = 0;
    t.buf[0] = '\0';
    add(&t, "%.6g GB/s NIC, %.6g us", c->inter_node.nic_gb_s, c->inter_node.latency_us);
    if (refined) {
        text c8 = {.n = 0};
        add_field(&c8, &pe_fields_inter_node, &c->inter_node, "bus_efficiency");
        add_field(&c8, &pe_fields_inter_node, &c->inter_node, "half_message_mb");
        add(&t, " (C8: %s)", c8.buf);
    }
    fact(out, max, n, "inter_node", "%s", t.buf);
}

static void budget_facts(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    const pe_budgets *b = &s->budgets;
    char mem[48] = "none (the GPU's HBM)", step[48] = "none";
    if (b->has_memory_gib)
        snprintf(mem, sizeof mem, "%.6g GiB", b->memory_gib);
    if (b->has_step_time_s)
        snprintf(step, sizeof step, "%.6g s", b->step_time_s);
    fact(out, max, n, "budgets", "memory %s, step time %s%s%s", mem, step,
         b->has_train_days ? ", train_days" : "", b->has_min_mfu ? ", min_mfu" : "");
    if (b->has_memory_gib)
        fact(out, max, n, "budget: memory_gib", "%.17g", b->memory_gib);
    if (b->has_step_time_s)
        fact(out, max, n, "budget: step_time_s", "%.17g", b->step_time_s);
}

/* ------------------------------------------------------------ refined facts */

static void experts_fact(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    static const char *const keys[] = {"experts",     "top_k",           "moe_ffn_hidden",
                                       "shared_experts", "dense_layers", "moe_every",
                                       "capacity_factor", "moe_imbalance"};
    text t = {.n = 0};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        add_field(&t, &pe_fields_model, &s->model, keys[i]);
    add_field(&t, &pe_fields_precision, &s->precision, "dispatch_bytes");
    add(&t, "; ep and etp: each plan's, the -ep and -etp of its canonical text (none: ep 1, "
            "etp = tp)");
    fact(out, max, n, "experts", "%s", t.buf);
}

/* What times compute: F7–F11 from gemm_efficiency on (flops_efficiency then
 * unused), else F6's flops_efficiency; the FP8 GEMMs' rate (F16, F18). */
static void compute_facts(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    static const char *const keys[] = {"gemm_efficiency", "gemm_half_gflop",
                                       "attention_efficiency", "elementwise_efficiency",
                                       "microbatch_overhead_us", "attention_half_seq",
                                       "attention_half_head_dim", "attention_causal_tile"};
    const pe_gpu *g = &s->cluster.gpu;
    const bool fp8 = s->precision.compute == PE_COMPUTE_FP8;
    text t = {.n = 0};
    if (g->has_gemm_efficiency) {
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            add_field(&t, &pe_fields_gpu, g, keys[i]);
        if (g->gemm_half_measured) /* F8's measured F_half, shown only where it is set */
            add_field(&t, &pe_fields_gpu, g, "gemm_half_measured");
        if (g->attention_measured) /* F41, shown only where it is set */
            add_field(&t, &pe_fields_gpu, g, "attention_measured");
        if (g->gemm_measured) /* F42, shown only where it is set */
            add_field(&t, &pe_fields_gpu, g, "gemm_measured");
        if (fp8)
            add_field(&t, &pe_fields_gpu, g, "fp8_gemm_efficiency");
        if (fp8 && g->fp8_rowwise_gemm_efficiency > 0.0) /* F42, shown only where it is set */
            add_field(&t, &pe_fields_gpu, g, "fp8_rowwise_gemm_efficiency");
        if (fp8 && s->framework.present && s->framework.fp8_kernel_rate &&
            g->fp8_kernel_gemm_efficiency > 0.0) /* F42, shown only where it is taken */
            add_field(&t, &pe_fields_gpu, g, "fp8_kernel_gemm_efficiency");
        fact(out, max, n, "gpu_refinements", "by matrix shape (F7-F11%s), instead of "
             "flops_efficiency: %s", fp8 ? ", F18" : "", t.buf);
        return;
    }
    flops_efficiency_fact(s, out, max, n);
    add_field(&t, &pe_fields_gpu, g, "elementwise_efficiency");
    fact(out, max, n, "gpu_refinements", "none in force: no gemm_efficiency, so F6 times every "
         "FLOP at peak x flops_efficiency%s; %s (F21, X14: 0 is the full HBM bandwidth)",
         fp8 ? " (FP8 GEMMs: peak_fp8_tflops x flops_efficiency, F16)" : "", t.buf);
}

static void precision_fact(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    const pe_precision *p = &s->precision;
    text t = {.n = 0};
    add_field(&t, &pe_fields_precision, p, "compute");
    if (p->compute == PE_COMPUTE_FP8) {
        add(&t, " (the linear layers' GEMMs at ");
        text peak = {.n = 0};
        add_field(&peak, &pe_fields_gpu, &s->cluster.gpu, "peak_fp8_tflops");
        add(&t, "%s)", peak.buf);
        add_field(&t, &pe_fields_precision, p, "fp8_weight_bytes");
    }
    add_field(&t, &pe_fields_precision, p, "param_bytes");
    add_field(&t, &pe_fields_precision, p, "grad_bytes");
    add_field(&t, &pe_fields_precision, p, "optimizer_bytes");
    fact(out, max, n, "precision", "%s", t.buf);
}

static void framework_facts(const pe_scenario *s, pe_html_fact *out, size_t max, size_t *n)
{
    const pe_framework *fw = &s->framework;
    text t = {.n = 0};
    /* a design sweep's facts are its first design's: say so where an axis
     * moves them (each row's own value is in its report columns) */
    const char *fw_swept = s->sweep.framework.present
                               ? "swept by sweep.framework (each row's is its framework column); "
                                 "the first design's: "
                               : "";
    const pe_sweep *w = &s->sweep;
    const bool ov_swept = w->overlap_tp.present || w->overlap_cp.present ||
                          w->overlap_dp.present || w->overlap_pp.present || w->overlap_ep.present;
    if (fw->present) {
        add_table(&t, &pe_fields_framework, fw);
        fact(out, max, n, "framework", "%s%s: %s", fw_swept,
             fw->name[0] ? fw->name : "the scenario's keys", t.buf);
        if (fw->flags[0]) /* what the preset stands for, as its users run it */
            fact(out, max, n, "framework_flags", "%s", fw->flags);
    } else {
        fact(out, max, n, "framework", "none: X6-X8, X13, X14, F21 and B5 at their neutral "
             "values (docs/model.md §12)");
    }
    t.n = 0;
    t.buf[0] = '\0';
    add_table(&t, &pe_fields_overlap, &s->overlap);
    char from[PE_NAME_MAX + 32] = "the defaults";
    if (fw->present && fw->name[0])
        snprintf(from, sizeof from, "the framework %s's overlap", fw->name);
    else if (fw->present)
        snprintf(from, sizeof from, "the framework's overlap");
    fact(out, max, n, "overlap", "%s%s in force (%s, then the scenario's overlap:; a plan's "
         "own overlap: overrides it)",
         ov_swept ? "swept by sweep.overlap (each row's are its overlap.* columns); the first "
                    "design's: "
                  : "",
         t.buf, from);
}

/* ------------------------------------------------------------ the facts */

size_t html_scenario_facts(const pe_scenario *s, pe_html_fact *out, size_t max)
{
    size_t n = 0;
    const pe_cluster *c = &s->cluster;
    const bool refined = s->fidelity == PE_FIDELITY_REFINED;
    model_fact(s, out, max, &n);
    if (refined && s->model.experts > 0)
        experts_fact(s, out, max, &n);
    fact(out, max, &n, "gpus", "%lld nodes x %lld GPUs = %lld", (long long)c->nodes,
         (long long)c->gpus_per_node, (long long)(c->nodes * c->gpus_per_node));
    fact(out, max, &n, "gpu", "%.6g GiB HBM, %.6g TFLOP/s peak, %.6g TB/s", c->gpu.hbm_gib,
         c->gpu.peak_tflops, c->gpu.hbm_tb_s);
    if (refined) {
        fact(out, max, &n, "fidelity", "refined (docs/model.md §12): the refinement "
             "numbers below are the ones the model used");
        compute_facts(s, out, max, &n);
        precision_fact(s, out, max, &n);
    } else {
        flops_efficiency_fact(s, out, max, &n);
    }
    fact(out, max, &n, "reserve", "%.6g GiB per GPU", c->reserve_gib);
    link_facts(s, refined, out, max, &n);
    if (refined)
        framework_facts(s, out, max, &n);
    else
        fact(out, max, &n, "overlap", "tp %.6g, cp %.6g, dp %.6g, pp %.6g", s->overlap.tp,
             s->overlap.cp, s->overlap.dp, s->overlap.pp);
    fact(out, max, &n, "training", "global batch %lld sequences%s",
         (long long)s->training.global_batch,
         s->training.has_tokens ? ", tokens given (train_days)" : "");
    if (s->training.finetune == PE_FINETUNE_LORA) { /* docs/model.md §3 M15–M17, A27 */
        static const char *const targets[] = {"all-linear", "attention", "mlp"};
        fact(out, max, &n, "finetune", "lora: rank %lld on %s, dropout %.6g, base weights %s",
             (long long)s->training.lora_rank, targets[s->training.lora_targets],
             s->training.lora_dropout, pe_base_quant_name(s->training.base_quant));
    }
    budget_facts(s, out, max, &n);
    return n;
}
