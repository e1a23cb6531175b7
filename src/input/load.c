/* load.c — a scenario file → pe_scenario (see load.h).
 *
 * YAML-level strictness lives in yamlutil.c (ydoc_parse, typed getters); the
 * keys, types, ranges and defaults in fields.c. This file holds the rules
 * between keys: presets applied first (interface.md "Presets"), required keys
 * and the conditional ones (intra_node, inter_node: model.md §0), load-time
 * model checks (model.md §1), plans, sweep and expect (interface.md "Plans",
 * "Sweep", "expect"). The first failure is the one reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/columns.h"
#include "input/load.h"
#include "input/yamlutil.h"

typedef struct {
    const pe_catalog *cat;
    const pe_ydoc *d; /* the scenario file */
    pe_scenario *s;
    pe_error *err;
    pe_applied top;
    char (*canon)[PE_NAME_MAX]; /* canonical text of each explicit plan */
} loader;

#define IDX(set, key) y_field_index(&(set), key)

/* model.md §0 defaults; derived ones (kv_heads, ffn_hidden,
 * sequence_parallel) are filled once the keys are known. */
static void set_defaults(pe_scenario *s)
{
    s->model.mlp = PE_MLP_GELU;
    s->model.norm = PE_NORM_LAYERNORM;
    s->model.bias = true;
    s->model.dropout = true;
    s->model.tied_embeddings = false;
    s->model.position = PE_POSITION_LEARNED;
    s->model.attention = PE_ATTENTION_STANDARD;
    s->model.causal_flops = false;
    s->precision.param_bytes = 2;
    s->precision.grad_bytes = 2;
    s->precision.optimizer_bytes = 12;
    s->cluster.gpu.flops_efficiency = 0.5;
    s->cluster.reserve_gib = 10;
    s->cluster.allow_cross_node_tp = false;
    s->overlap.tp = 0;
    s->overlap.cp = 1;
    s->overlap.dp = 1;
    s->overlap.pp = 0;
    s->rank_by = PE_RANK_STEP_TIME;
    /* issue 11 defaults (docs/design/moe.md §0) */
    s->model.moe_every = 1;
    s->model.moe_imbalance = 1;
    s->precision.compute = PE_COMPUTE_BF16;
    s->precision.fp8_weight_bytes = 2;
    s->precision.dispatch_bytes = 2;
    s->cluster.cpu_adam_gparams_s = 4;
    s->overlap.ep = 0;
}

/* "missing required key 'k' in path" at the mapping that lacks it. */
static pe_status missing(loader *L, const pe_ydoc *d, const yaml_node_t *at, const char *path,
                         const char *key, const char *why)
{
    if (path[0])
        return y_fail(L->err, d, at, "missing required key '%s' in %s%s", key, path, why);
    return y_fail(L->err, d, at, "missing required key '%s'%s", key, why);
}

static pe_status check_required(loader *L, const pe_fieldset *set, const pe_applied *st,
                                const yaml_node_t *at, const char *path)
{
    for (size_t i = 0; i < set->count; i++)
        if ((set->fields[i].flags & PE_F_REQUIRED) && !st->set[i])
            return missing(L, L->d, at, path, set->fields[i].key, "");
    return PE_OK;
}

/* Look up a preset named by node pn (in the scenario file). */
static pe_status find_preset(loader *L, const yaml_node_t *pn, const char *path,
                             const char *kind, const char *what, const pe_preset **out)
{
    char name[PE_NAME_MAX];
    pe_status st = y_get_name(L->d, pn, path, name, sizeof name, L->err);
    if (st)
        return st;
    *out = catalog_find(L->cat, kind, name);
    if (*out)
        return PE_OK;
    size_t n = L->cat ? catalog_names(L->cat, kind, NULL, 0) : 0;
    const char **names = n ? malloc(n * sizeof *names) : NULL;
    if (names)
        n = catalog_names(L->cat, kind, names, n);
    else
        n = 0;
    const char *sug = y_suggest(name, strlen(name), names, n);
    char hint[PE_NAME_MAX + 64] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    else if (n == 0)
        snprintf(hint, sizeof hint, " (the catalog has no %s)", kind);
    free(names);
    char q[96];
    y_quote(name, strlen(name), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    return y_fail(L->err, L->d, pn, "%s: unknown %s preset %s%s", path, what, q, hint);
}

/* A node to point at for a rule between keys: the file's node of field i if
 * the file gave it, else `fallback` (a node of the file, e.g. `preset:`). */
static const yaml_node_t *file_node(const pe_applied *st, size_t i, int file_layer,
                                    const yaml_node_t *fallback)
{
    return st->set[i] && st->layer[i] == file_layer ? st->value[i] : fallback;
}

/* ------------------------------------------------------------ model */

/* The node to point at for model key `key`: the file's, else `fallback`. */
static const yaml_node_t *model_node(const pe_applied *a, const char *key,
                                     const yaml_node_t *fallback)
{
    return file_node(a, IDX(pe_fields_model, key), 1, fallback);
}

/* Issue 11 rules between the MoE and MLA keys (docs/design/moe.md §1):
 * the MoE keys only with experts > 0 (as Megatron's "moe_ffn_hidden_size is
 * set but num_moe_experts is None"), top_k required and ≤ experts,
 * dense_layers ≤ layers, no params with experts (P6 scales one N_layer),
 * the MLA dimensions with attention: mla and only then. Defaults filled. */
static pe_status check_moe_keys(loader *L, const pe_applied *a, const yaml_node_t *fallback)
{
    pe_model *m = &L->s->model;
    static const char *const moe_keys[] = {"top_k",     "moe_ffn_hidden", "shared_experts",
                                           "dense_layers", "moe_every",   "capacity_factor",
                                           "moe_imbalance"};
    static const char *const mla_keys[] = {"kv_lora_rank", "qk_rope_head_dim",
                                           "qk_nope_head_dim", "v_head_dim"};
    const bool mla = m->attention == PE_ATTENTION_MLA;
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++)
        if (m->experts == 0 && a->set[IDX(pe_fields_model, moe_keys[i])])
            return y_fail(L->err, L->d, model_node(a, moe_keys[i], fallback),
                          "model.%s is set but model.experts is 0 (a dense model)", moe_keys[i]);
    for (size_t i = 0; i < sizeof mla_keys / sizeof mla_keys[0]; i++) {
        if (mla && !a->set[IDX(pe_fields_model, mla_keys[i])])
            return missing(L, L->d, fallback, "model", mla_keys[i], " (needed by attention: mla)");
        if (!mla && a->set[IDX(pe_fields_model, mla_keys[i])])
            return y_fail(L->err, L->d, model_node(a, mla_keys[i], fallback),
                          "model.%s applies to attention: mla only", mla_keys[i]);
    }
    if (!mla && a->set[IDX(pe_fields_model, "q_lora_rank")])
        return y_fail(L->err, L->d, model_node(a, "q_lora_rank", fallback),
                      "model.q_lora_rank applies to attention: mla only");
    if (mla && m->has_head_dim)
        return y_fail(L->err, L->d, model_node(a, "head_dim", fallback),
                      "model.head_dim does not apply to attention: mla (its heads have "
                      "qk_nope_head_dim + qk_rope_head_dim and v_head_dim)");
    if (m->experts == 0)
        return PE_OK;
    if (!a->set[IDX(pe_fields_model, "top_k")])
        return missing(L, L->d, fallback, "model", "top_k", " (needed when experts > 0)");
    if (m->top_k > m->experts)
        return y_fail(L->err, L->d, model_node(a, "top_k", fallback),
                      "model.top_k = %lld exceeds model.experts = %lld", (long long)m->top_k,
                      (long long)m->experts);
    if (m->dense_layers > m->layers)
        return y_fail(L->err, L->d, model_node(a, "dense_layers", fallback),
                      "model.dense_layers = %lld exceeds model.layers = %lld",
                      (long long)m->dense_layers, (long long)m->layers);
    if (m->has_params)
        return y_fail(L->err, L->d, model_node(a, "params", fallback),
                      "model.params cannot be combined with experts: the split between expert "
                      "and dense parameters is not determined (model.md P6 scales one layer)");
    if (!a->set[IDX(pe_fields_model, "moe_ffn_hidden")])
        m->moe_ffn_hidden = m->ffn_hidden; /* issue 11: default ffn_hidden */
    return PE_OK;
}

static pe_status load_model(loader *L, const yaml_node_t *node)
{
    pe_model *m = &L->s->model;
    pe_status st = y_want_map(L->d, node, "model", L->err);
    if (st)
        return st;
    pe_layer layers[2] = {{NULL, NULL}, {L->d, node}};
    const yaml_node_t *pn = y_map_get(L->d, node, "preset");
    if (pn) {
        const pe_preset *p = NULL;
        st = find_preset(L, pn, "model.preset", "models", "model", &p);
        if (st)
            return st;
        layers[0] = (pe_layer){p->doc, p->node};
    }
    pe_applied a;
    st = y_apply(&pe_fields_model, layers, 2, "model", m, &a, L->err);
    if (!st)
        st = check_required(L, &pe_fields_model, &a, node, "model");
    if (st)
        return st;
    if (!a.set[IDX(pe_fields_model, "kv_heads")])
        m->kv_heads = m->heads; /* model.md §0: g defaults to a */
    if (!a.set[IDX(pe_fields_model, "ffn_hidden")])
        m->ffn_hidden = 4 * m->hidden; /* model.md §0: f defaults to 4h */
    st = check_moe_keys(L, &a, pn ? pn : node);
    if (st)
        return st;

    /* model.md §1: a divides h (the head dimension d = h/a is whole);
     * with head_dim or mla the head dimension is given, so no rule. */
    if (m->hidden % m->heads != 0 && !m->has_head_dim && m->attention != PE_ATTENTION_MLA) {
        const yaml_node_t *at = file_node(&a, IDX(pe_fields_model, "heads"), 1,
                                          file_node(&a, IDX(pe_fields_model, "hidden"), 1,
                                                    pn ? pn : node));
        return y_fail(L->err, L->d, at,
                      "model.heads = %lld does not divide model.hidden = %lld (the head "
                      "dimension hidden/heads must be whole)",
                      (long long)m->heads, (long long)m->hidden);
    }
    /* model.md §1 and P6: with params, N_layer = (params − N_embed − N_out|p=1 − norm(h)) / L
     * must be > 0. P3: N_embed = V·h + [learned]·s·h; P4 at p = 1: V·h unless tied. */
    if (m->has_params) {
        double h = (double)m->hidden, V = (double)m->vocab, s = (double)m->seq_len;
        double n_embed = V * h + (m->position == PE_POSITION_LEARNED ? s * h : 0);
        double n_out = m->tied_embeddings ? 0 : V * h;
        double norm_h = m->norm == PE_NORM_LAYERNORM ? 2 * h : h;
        double rest = m->params - n_embed - n_out - norm_h;
        if (!(rest > 0)) {
            size_t pi = IDX(pe_fields_model, "params");
            const yaml_node_t *at = file_node(&a, pi, 1, pn ? pn : node);
            char given[64];
            if (a.layer[pi] == 1)
                snprintf(given, sizeof given, "%.40s", y_text(at)); /* as written */
            else
                snprintf(given, sizeof given, "%.17g", m->params);
            return y_fail(L->err, L->d, at,
                          "model.params = %s is too small for these dimensions: embeddings, "
                          "output layer and final norm alone take %.0f parameters, which "
                          "leaves nothing for the %lld layers (model.md P6)",
                          given, n_embed + n_out + norm_h, (long long)m->layers);
        }
    }
    return PE_OK;
}

/* ------------------------------------------------------------ cluster */

/* The value of key `key` of the cluster's layer l, if a mapping was given. */
static const yaml_node_t *sub_of(const pe_applied *a, size_t i, int l)
{
    return a->per_layer[i][l];
}

static pe_status load_cluster(loader *L, const yaml_node_t *node)
{
    pe_cluster *c = &L->s->cluster;
    const pe_ydoc *d = L->d;
    pe_status st = y_want_map(d, node, "cluster", L->err);
    if (st)
        return st;
    pe_layer layers[2] = {{NULL, NULL}, {d, node}};
    const yaml_node_t *pn = y_map_get(d, node, "preset");
    if (pn) {
        const pe_preset *p = NULL;
        st = find_preset(L, pn, "cluster.preset", "clusters", "cluster", &p);
        if (st)
            return st;
        layers[0] = (pe_layer){p->doc, p->node};
    }
    pe_applied a;
    st = y_apply(&pe_fields_cluster, layers, 2, "cluster", c, &a, L->err);
    if (st)
        return st;
    for (size_t i = 0; i < pe_fields_cluster.count; i++) {
        const pe_field *f = &pe_fields_cluster.fields[i];
        if ((f->flags & PE_F_REQUIRED) && f->type != PE_FT_MAP && !a.set[i])
            return missing(L, d, node, "cluster", f->key, "");
    }
    /* N = nodes·G must itself be a whole number the model can hold. */
    if (c->nodes > PE_INT_MAX / c->gpus_per_node)
        return y_fail(L->err, d, node,
                      "cluster.nodes * cluster.gpus_per_node must be at most 2^53, got %lld * "
                      "%lld",
                      (long long)c->nodes, (long long)c->gpus_per_node);

    /* gpu: [the named gpu preset, the cluster preset's gpu keys, the file's
     * gpu keys]; the gpu preset named last wins (the file's over the
     * cluster preset's). */
    size_t gi = IDX(pe_fields_cluster, "gpu");
    const yaml_node_t *gpu_pre = sub_of(&a, gi, 0), *gpu_file = sub_of(&a, gi, 1);
    if (!gpu_pre && !gpu_file)
        return missing(L, d, node, "cluster", "gpu", "");
    if (gpu_file && y_is_string(gpu_file)) {
        char q[96];
        y_quote(y_text(gpu_file), y_len(gpu_file), q, sizeof q);
        return y_fail(L->err, d, gpu_file,
                      "cluster.gpu: expected a mapping, got %s (to use a preset, write gpu: "
                      "{preset: %s})",
                      q, y_text(gpu_file));
    }
    if (gpu_file && (st = y_want_map(d, gpu_file, "cluster.gpu", L->err)))
        return st;
    pe_layer gl[3] = {{NULL, NULL}, {layers[0].doc, gpu_pre}, {d, gpu_file}};
    const yaml_node_t *gp = gpu_file ? y_map_get(d, gpu_file, "preset") : NULL;
    const pe_preset *gpreset = NULL;
    if (gp) {
        st = find_preset(L, gp, "cluster.gpu.preset", "gpus", "gpu", &gpreset);
        if (st)
            return st;
    } else if (gpu_pre) {
        const yaml_node_t *pgp = y_map_get(layers[0].doc, gpu_pre, "preset");
        if (pgp)
            gpreset = catalog_find(L->cat, "gpus", y_text(pgp)); /* checked by catalog_open */
    }
    if (gpreset)
        gl[0] = (pe_layer){gpreset->doc, gpreset->node};
    pe_applied ga;
    st = y_apply(&pe_fields_gpu, gl, 3, "cluster.gpu", &c->gpu, &ga, L->err);
    if (!st)
        st = check_required(L, &pe_fields_gpu, &ga, gpu_file ? gpu_file : node, "cluster.gpu");
    if (st)
        return st;

    /* intra_node: required when G > 1 (model.md §0); complete when given
     * (interface.md "Ranges"). */
    size_t ii = IDX(pe_fields_cluster, "intra_node");
    const yaml_node_t *in_pre = sub_of(&a, ii, 0), *in_file = sub_of(&a, ii, 1);
    if (in_file && (st = y_want_map(d, in_file, "cluster.intra_node", L->err)))
        return st;
    if (in_pre || in_file) {
        pe_layer il[2] = {{layers[0].doc, in_pre}, {d, in_file}};
        pe_applied ia;
        st = y_apply(&pe_fields_intra_node, il, 2, "cluster.intra_node", &c->intra_node, &ia,
                     L->err);
        if (!st)
            st = y_check_topology(il, "cluster.intra_node", &c->intra_node, &ia, L->err);
        if (st)
            return st;
        const yaml_node_t *at = in_file ? in_file : node;
        st = check_required(L, &pe_fields_intra_node, &ia, at, "cluster.intra_node");
        if (st)
            return st;
        unsigned mine = c->intra_node.topology == PE_TOPOLOGY_SWITCH ? PE_F_SWITCH : PE_F_FULL_MESH;
        for (size_t i = 0; i < pe_fields_intra_node.count; i++) {
            const pe_field *f = &pe_fields_intra_node.fields[i];
            if ((f->flags & mine) && !ia.set[i]) {
                char why[96];
                snprintf(why, sizeof why, " (topology %s needs %s)",
                         pe_topology_name(c->intra_node.topology),
                         mine == PE_F_SWITCH ? "bandwidth_gb_s" : "links and link_gb_s");
                return missing(L, d, at, "cluster.intra_node", f->key, why);
            }
        }
        c->intra_node.present = true;
    } else if (c->gpus_per_node > 1) {
        return missing(L, d, node, "cluster", "intra_node", " (needed when gpus_per_node > 1)");
    }

    /* inter_node: required when nodes > 1 (model.md §0). */
    size_t ei = IDX(pe_fields_cluster, "inter_node");
    const yaml_node_t *ex_pre = sub_of(&a, ei, 0), *ex_file = sub_of(&a, ei, 1);
    if (ex_file && (st = y_want_map(d, ex_file, "cluster.inter_node", L->err)))
        return st;
    if (ex_pre || ex_file) {
        pe_layer el[2] = {{layers[0].doc, ex_pre}, {d, ex_file}};
        pe_applied ea;
        st = y_apply(&pe_fields_inter_node, el, 2, "cluster.inter_node", &c->inter_node, &ea,
                     L->err);
        if (!st)
            st = check_required(L, &pe_fields_inter_node, &ea, ex_file ? ex_file : node,
                                "cluster.inter_node");
        if (st)
            return st;
        c->inter_node.present = true;
    } else if (c->nodes > 1) {
        return missing(L, d, node, "cluster", "inter_node", " (needed when nodes > 1)");
    }
    return PE_OK;
}

/* ------------------------------------------------------------ simple mappings */

static pe_status load_simple(loader *L, const pe_fieldset *set, const yaml_node_t *node,
                             void *base)
{
    pe_status st = y_want_map(L->d, node, set->path, L->err);
    if (st)
        return st;
    pe_layer layer = {L->d, node};
    pe_applied a;
    st = y_apply(set, &layer, 1, set->path, base, &a, L->err);
    if (!st)
        st = check_required(L, set, &a, node, set->path);
    return st;
}

/* ------------------------------------------------------------ plans */

/* interface.md "Canonical text". */
static void canonical_text(const pe_plan *p, char *buf, size_t size)
{
    int n = snprintf(buf, size, "dp%lld-tp%lld-pp%lld-cp%lld-z%lld-%s-mb%lld-%s-v%lld-sp%d",
                     (long long)p->dp, (long long)p->tp, (long long)p->pp, (long long)p->cp,
                     (long long)p->zero, pe_recompute_name(p->recompute),
                     (long long)p->micro_batch, pe_schedule_name(p->schedule),
                     (long long)p->virtual_stages, p->sequence_parallel ? 1 : 0);
    /* issue 11 tail, as sweep/plans.c writes it */
    if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%s%.0lld%s%.0lld%s%.0lld%s%.0lld%s",
                 p->ep > 1 ? "-ep" : "", p->ep > 1 ? (long long)p->ep : 0LL,
                 p->etp != p->tp ? "-etp" : "", p->etp != p->tp ? (long long)p->etp : 0LL,
                 p->first_stage_layers ? "-fs" : "", (long long)p->first_stage_layers,
                 p->last_stage_layers ? "-ls" : "", (long long)p->last_stage_layers,
                 p->offload_optimizer ? "-off" : "");
}

static bool eat(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0)
        return false;
    *p += n;
    return true;
}

/* A whole number >= 1 without leading zeros (at most 16 digits). */
static bool eat_whole(const char **p)
{
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return false;
    size_t n = 0;
    while (*s >= '0' && *s <= '9' && n < 17)
        s++, n++;
    if (n > 16)
        return false;
    *p = s;
    return true;
}

static bool eat_word(const char **p, const char *const *values, const char *after)
{
    for (size_t i = 0; values[i]; i++) {
        const char *q = *p;
        if (eat(&q, values[i]) && strncmp(q, after, strlen(after)) == 0) {
            *p = q;
            return true;
        }
    }
    return false;
}

/* Issue 11's optional tail of a canonical text, in order: -ep{n} -etp{n}
 * -fs{n} -ls{n} -off (sweep/plans.h). */
static bool canonical_tail_valid(const char *p)
{
    static const char *const tags[] = {"-ep", "-etp", "-fs", "-ls"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        const char *q = p;
        if (eat(&q, tags[i]) && eat_whole(&q))
            p = q;
    }
    eat(&p, "-off");
    return *p == '\0';
}

/* Is t a syntactically valid canonical text (a plan a sweep may generate)? */
static bool canonical_valid(const char *t)
{
    static const char *const rec[] = {"none", "selective", "full", NULL};
    static const char *const sch[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2", NULL};
    const char *p = t;
    return eat(&p, "dp") && eat_whole(&p) && eat(&p, "-tp") && eat_whole(&p) &&
           eat(&p, "-pp") && eat_whole(&p) && eat(&p, "-cp") && eat_whole(&p) &&
           eat(&p, "-z") && *p >= '0' && *p <= '3' && (p++, eat(&p, "-")) &&
           eat_word(&p, rec, "-mb") && eat(&p, "-mb") && eat_whole(&p) && eat(&p, "-") &&
           eat_word(&p, sch, "-v") && eat(&p, "-v") && eat_whole(&p) && eat(&p, "-sp") &&
           (*p == '0' || *p == '1') && canonical_tail_valid(p + 1);
}

static pe_status load_plan(loader *L, const yaml_node_t *item, size_t index, pe_plan *p)
{
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "plans", index);
    pe_status st = y_want_map(L->d, item, path, L->err);
    if (st)
        return st;
    memset(p, 0, sizeof *p);
    /* interface.md "Plans": defaults */
    p->tp = p->pp = p->cp = 1;
    p->zero = 0;
    p->recompute = PE_RECOMPUTE_NONE;
    p->micro_batch = 1;
    p->schedule = PE_SCHEDULE_1F1B;
    p->virtual_stages = 1;
    p->overlap = L->s->overlap;
    p->line = y_line(item);
    p->col = y_col(item);
    pe_layer layer = {L->d, item};
    pe_applied a;
    st = y_apply(&pe_fields_plan, &layer, 1, path, p, &a, L->err);
    if (st)
        return st;
    size_t ni = IDX(pe_fields_plan, "name"), di = IDX(pe_fields_plan, "dp");
    size_t oi = IDX(pe_fields_plan, "overlap"), si = IDX(pe_fields_plan, "sequence_parallel");
    if (a.set[ni]) {
        y_path(fp, path, "name");
        st = y_get_name(L->d, a.value[ni], fp, p->name, sizeof p->name, L->err);
        if (st)
            return st;
    }
    if (a.set[oi]) {
        y_path(fp, path, "overlap");
        pe_layer ol = {L->d, a.value[oi]};
        pe_applied oa;
        st = y_want_map(L->d, a.value[oi], fp, L->err);
        if (!st)
            st = y_apply(&pe_fields_overlap, &ol, 1, fp, &p->overlap, &oa, L->err);
        if (st)
            return st;
    }
    if (!a.set[di])
        return missing(L, L->d, item, path, "dp", "");
    y_path(fp, path, "dp");
    const yaml_node_t *dpn = a.value[di];
    if (y_is_plain_word(dpn, "auto")) {
        /* interface.md: an explicit dp: auto must divide, N/(t·p·c) whole. */
        int64_t n = L->s->cluster.nodes * L->s->cluster.gpus_per_node;
        int64_t prod = 1;
        bool whole = true;
        const int64_t f[3] = {p->tp, p->pp, p->cp};
        for (int k = 0; k < 3 && whole; k++) {
            if (f[k] > n / prod)
                whole = false; /* already larger than N */
            else
                prod *= f[k];
        }
        if (!whole || n % prod != 0)
            return y_fail(L->err, L->d, dpn,
                          "%s: auto needs N/(tp*pp*cp) to be whole, but N = %lld GPUs and "
                          "tp*pp*cp = %lld*%lld*%lld",
                          fp, (long long)n, (long long)p->tp, (long long)p->pp,
                          (long long)p->cp);
        p->dp = n / prod;
    } else if (y_kind(dpn) != PE_Y_INT) {
        char desc[128];
        y_describe(dpn, desc, sizeof desc);
        return y_fail(L->err, L->d, dpn, "%s: expected an integer or auto, got %s", fp, desc);
    } else if ((st = y_get_int(L->d, dpn, fp, PE_RANGE_WHOLE, &p->dp, L->err))) {
        return st;
    }
    /* model.md §0: sp defaults to tp > 1 and is forced false when tp = 1. */
    if (!a.set[si])
        p->sequence_parallel = p->tp > 1;
    if (p->tp == 1)
        p->sequence_parallel = false;
    scenario_plan_defaults(p); /* issue 11: ep 1, etp = tp */
    return PE_OK;
}

typedef struct {
    const char *name;
    size_t index;
} nameref;

static int nameref_cmp(const void *a, const void *b)
{
    const nameref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

static const char *plan_effective_name(const loader *L, size_t i)
{
    return L->s->plans[i].name[0] ? L->s->plans[i].name : L->canon[i];
}

static pe_status load_plans(loader *L, const yaml_node_t *node)
{
    pe_status st = y_want_seq(L->d, node, "plans", L->err);
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return PE_OK;
    L->s->plans = calloc(n, sizeof *L->s->plans);
    L->canon = calloc(n, sizeof *L->canon);
    if (!L->s->plans || !L->canon)
        return pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        st = load_plan(L, item, i, &L->s->plans[i]);
        if (st)
            return st;
        L->s->plan_count = i + 1;
        canonical_text(&L->s->plans[i], L->canon[i], sizeof L->canon[i]);
    }
    /* interface.md: names unique among explicit plans; a default name is the
     * canonical text. Sorted, so a long list stays O(n log n). */
    nameref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        refs[i] = (nameref){plan_effective_name(L, i), i};
    qsort(refs, n, sizeof *refs, nameref_cmp);
    size_t dup = SIZE_MAX, first = 0;
    for (size_t i = 1; i < n; i++)
        if (strcmp(refs[i].name, refs[i - 1].name) == 0 &&
            (i < 2 || strcmp(refs[i - 2].name, refs[i].name) != 0) && refs[i].index < dup) {
            dup = refs[i].index;
            first = refs[i - 1].index;
        }
    free(refs);
    if (dup == SIZE_MAX)
        return PE_OK;
    const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[dup]);
    const yaml_node_t *nn = y_map_get(L->d, item, "name");
    char q[96];
    const char *name = plan_effective_name(L, dup);
    y_quote(name, strlen(name), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    if (nn)
        return y_fail(L->err, L->d, nn, "plans[%zu]: duplicate plan name %s (plans[%zu] has it too)",
                      dup, q, first);
    return y_fail(L->err, L->d, item,
                  "plans[%zu]: duplicate plan name %s (plans[%zu] has it too; an unnamed plan "
                  "is named by its canonical text): give one of them a name",
                  dup, q, first);
}

/* ------------------------------------------------------------ sweep */

static pe_status load_sweep(loader *L, const yaml_node_t *node)
{
    const pe_ydoc *d = L->d;
    pe_sweep *sw = &L->s->sweep;
    pe_status st = y_want_map(d, node, "sweep", L->err);
    if (st)
        return st;
    sw->present = true;
    sw->line = y_line(node);
    sw->col = y_col(node);
    const char *keys[PE_MAX_FIELDS];
    for (size_t i = 0; i < pe_fields_sweep.count; i++)
        keys[i] = pe_fields_sweep.fields[i].key;
    for (const yaml_node_pair_t *pr = node->data.mapping.pairs.start;
         pr < node->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = ydoc_node(d, pr->key), *v = ydoc_node(d, pr->value);
        const pe_field *f = fields_find(&pe_fields_sweep, y_text(k), y_len(k));
        char path[PE_YPATH_MAX], ip[PE_YPATH_MAX];
        if (!f) {
            if (y_is_plain_word(k, "name") || y_is_plain_word(k, "overlap"))
                return y_fail(L->err, d, k,
                              "sweep cannot vary '%s' (a sweep takes the plan keys except name "
                              "and overlap)",
                              y_text(k));
            char q[96];
            y_quote(y_text(k), y_len(k), q, sizeof q);
            q[0] = q[strlen(q) - 1] = '\'';
            const char *sug = y_suggest(y_text(k), y_len(k), keys, pe_fields_sweep.count);
            if (sug)
                return y_fail(L->err, d, k, "unknown key %s in sweep (did you mean '%s'?)", q,
                              sug);
            return y_fail(L->err, d, k, "unknown key %s in sweep", q);
        }
        pe_axis *ax = (pe_axis *)((char *)sw + f->offset);
        y_path(path, "sweep", f->key);
        ax->present = true;
        ax->line = y_line(v);
        ax->col = y_col(v);
        if (v->type == YAML_MAPPING_NODE) {
            return y_fail(L->err, d, v, "%s: expected a list or a single value, got a mapping",
                          path);
        }
        if (y_is_plain_word(v, "auto")) {
            if (!(f->flags & PE_F_AUTO))
                return y_fail(L->err, d, v,
                              "%s: auto is not allowed for %s (only dp, tp, pp, cp, micro_batch, "
                              "virtual_stages and ep)",
                              path, f->key);
            ax->is_auto = true;
            continue;
        }
        size_t n = v->type == YAML_SEQUENCE_NODE
                       ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start)
                       : 1;
        if (n == 0)
            return y_fail(L->err, d, v, "%s: empty list; give at least one value", path);
        ax->values = calloc(n, sizeof *ax->values);
        if (!ax->values)
            return pe_fail(L->err, PE_INTERNAL, d->path, 0, 0, "out of memory");
        for (size_t i = 0; i < n; i++) {
            const yaml_node_t *item =
                v->type == YAML_SEQUENCE_NODE ? ydoc_node(d, v->data.sequence.items.start[i]) : v;
            if (v->type == YAML_SEQUENCE_NODE)
                y_path_index(ip, path, i);
            else
                snprintf(ip, sizeof ip, "%s", path);
            if (y_is_plain_word(item, "auto"))
                return y_fail(L->err, d, item,
                              "%s: auto stands alone, never inside a list (write %s: auto)", ip,
                              f->key);
            if (item->type != YAML_SCALAR_NODE) {
                char desc[64];
                y_describe(item, desc, sizeof desc);
                return y_fail(L->err, d, item, "%s: expected a single value, got %s", ip, desc);
            }
            double dv = 0;
            st = y_get_field(d, item, ip, f, &ax->values[i], &dv, L->err);
            if (st)
                return st;
            ax->count = i + 1;
        }
    }
    if (!sw->dp.present)
        return missing(L, d, node, "sweep", "dp", "");
    /* interface.md "Sweep": a sweep listing interleaved gives a v >= 2. */
    for (size_t i = 0; i < sw->schedule.count; i++) {
        if (sw->schedule.values[i] != PE_SCHEDULE_INTERLEAVED)
            continue;
        bool ok = sw->virtual_stages.is_auto;
        for (size_t j = 0; j < sw->virtual_stages.count; j++)
            ok = ok || sw->virtual_stages.values[j] >= 2;
        if (ok)
            break;
        const yaml_node_t *sn = y_map_get(d, node, "schedule");
        const yaml_node_t *at = sn->type == YAML_SEQUENCE_NODE
                                    ? ydoc_node(d, sn->data.sequence.items.start[i])
                                    : sn;
        return y_fail(L->err, d, at,
                      "sweep.schedule lists interleaved, but sweep.virtual_stages gives no value "
                      ">= 2 (interleaved needs virtual_stages >= 2)");
    }
    return PE_OK;
}

/* ------------------------------------------------------------ expect */

static pe_status check_text_domain(loader *L, const yaml_node_t *n, const char *path,
                                   int column)
{
    /* Text columns with a closed set of values: a typo would only ever fail
     * the check, so it is a load error with "did you mean". */
    static const char *const status[] = {"ok", "over_time", "over_memory", "invalid", NULL};
    static const char *const bound[] = {"compute", "communication", "bubble", NULL};
    static const char *const rec[] = {"none", "selective", "full", NULL};
    static const char *const sch[] = {"1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2", NULL};
    const char *const *values = column == COL_STATUS      ? status
                                : column == COL_BOUND     ? bound
                                : column == COL_RECOMPUTE ? rec
                                : column == COL_SCHEDULE  ? sch
                                                          : NULL;
    if (!values)
        return PE_OK;
    int ignored;
    return y_get_enum(L->d, n, path, values, &ignored, L->err);
}

static pe_status load_check(loader *L, const yaml_node_t *k, const yaml_node_t *v,
                            const char *ipath, pe_expect_check *c)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX];
    int col = -1;
    if (y_len(k) < sizeof c->column)
        col = columns_find(y_text(k));
    if (col < 0) {
        const char *names[COL_COUNT];
        size_t n = 0;
        for (int i = 0; i < COL_COUNT; i++)
            if (i != COL_PLAN && i != COL_SCENARIO)
                names[n++] = pe_columns[i].name;
        const char *sug = y_suggest(y_text(k), y_len(k), names, n);
        char q[96];
        y_quote(y_text(k), y_len(k), q, sizeof q);
        q[0] = q[strlen(q) - 1] = '\'';
        if (sug)
            return y_fail(L->err, d, k,
                          "unknown key %s in %s (not a report column; did you mean '%s'?)", q,
                          ipath, sug);
        return y_fail(L->err, d, k, "unknown key %s in %s (not a report column)", q, ipath);
    }
    y_path(path, ipath, pe_columns[col].name);
    if (col == COL_SCENARIO)
        return y_fail(L->err, d, k,
                      "%s: the scenario column cannot be checked (expect takes any report "
                      "column except plan and scenario)",
                      path);
    snprintf(c->column, sizeof c->column, "%s", pe_columns[col].name);
    c->line = y_line(k);
    c->col = y_col(k);
    c->tol_kind = PE_TOL_EXACT;
    pe_status st;
    switch (pe_columns[col].kind) {
    case PE_COL_TEXT:
        c->is_text = true;
        st = check_text_domain(L, v, path, col);
        if (!st)
            st = y_get_text(d, v, path, &c->text, L->err);
        return st;
    case PE_COL_BOOL: {
        bool b = false;
        c->is_text = true;
        st = y_get_bool(d, v, path, &b, L->err);
        if (st)
            return st;
        c->text = strdup(b ? "true" : "false");
        return c->text ? PE_OK : pe_fail(L->err, PE_INTERNAL, d->path, 0, 0, "out of memory");
    }
    case PE_COL_INT:
    case PE_COL_NUMBER: break;
    }
    if (v->type != YAML_MAPPING_NODE)
        return y_get_number(d, v, path, PE_RANGE_NONE, &c->value, L->err);
    /* {value, rel_tol} or {value, abs_tol}; {value} alone is exact. */
    pe_layer layer = {d, v};
    pe_applied a;
    st = y_apply(&pe_fields_tolerance, &layer, 1, path, NULL, &a, L->err);
    if (st)
        return st;
    size_t vi = IDX(pe_fields_tolerance, "value"), ri = IDX(pe_fields_tolerance, "rel_tol");
    size_t ai = IDX(pe_fields_tolerance, "abs_tol");
    if (!a.set[vi])
        return missing(L, d, v, path, "value", "");
    char sub[PE_YPATH_MAX];
    y_path(sub, path, "value");
    st = y_get_number(d, a.value[vi], sub, PE_RANGE_NONE, &c->value, L->err);
    if (st)
        return st;
    if (a.set[ri] && a.set[ai]) {
        const yaml_node_t *second = a.key[ri]->start_mark.index > a.key[ai]->start_mark.index
                                        ? a.key[ri]
                                        : a.key[ai];
        return y_fail(L->err, d, second, "%s: give rel_tol or abs_tol, not both", path);
    }
    if (a.set[ri] || a.set[ai]) {
        size_t ti = a.set[ri] ? ri : ai;
        y_path(sub, path, pe_fields_tolerance.fields[ti].key);
        c->tol_kind = a.set[ri] ? PE_TOL_REL : PE_TOL_ABS;
        return y_get_number(d, a.value[ti], sub, PE_RANGE_NONNEG, &c->tol, L->err);
    }
    return PE_OK;
}

/* The key node of key in mapping m (which has it). */
static const yaml_node_t *map_key(const pe_ydoc *d, const yaml_node_t *m, const char *key)
{
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = ydoc_node(d, p->key);
        if (y_len(k) == strlen(key) && memcmp(y_text(k), key, y_len(k)) == 0)
            return k;
    }
    return m;
}

static pe_status load_expect_item(loader *L, const yaml_node_t *item, size_t index,
                                  pe_expect *e)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "expect", index);
    pe_status st = y_want_map(d, item, path, L->err);
    if (st)
        return st;
    e->line = y_line(item);
    e->col = y_col(item);
    const yaml_node_t *best = y_map_get(d, item, "best_plan"), *plan = y_map_get(d, item, "plan");
    if (best && plan) {
        const yaml_node_t *bk = map_key(d, item, "best_plan"), *pk = map_key(d, item, "plan");
        const yaml_node_t *second = bk->start_mark.index > pk->start_mark.index ? bk : pk;
        return y_fail(L->err, d, second, "%s: give plan: or best_plan:, not both", path);
    }
    if (!best && !plan)
        return y_fail(L->err, d, item,
                      "%s: needs plan: NAME (with report columns to check) or best_plan: NAME",
                      path);
    e->kind = best ? PE_EXPECT_BEST_PLAN : PE_EXPECT_PLAN;
    y_path(fp, path, best ? "best_plan" : "plan");
    st = y_get_name(d, best ? best : plan, fp, e->plan, sizeof e->plan, L->err);
    if (st)
        return st;
    size_t n = (size_t)(item->data.mapping.pairs.top - item->data.mapping.pairs.start) - 1;
    if (best) {
        for (const yaml_node_pair_t *pr = item->data.mapping.pairs.start;
             pr < item->data.mapping.pairs.top; pr++) {
            const yaml_node_t *k = ydoc_node(d, pr->key);
            if (!(y_len(k) == 9 && memcmp(y_text(k), "best_plan", 9) == 0))
                return y_fail(L->err, d, k,
                              "%s: best_plan takes no other keys (use plan: NAME to check "
                              "columns)",
                              path);
        }
        return PE_OK;
    }
    if (n == 0)
        return PE_OK;
    e->checks = calloc(n, sizeof *e->checks);
    if (!e->checks)
        return pe_fail(L->err, PE_INTERNAL, d->path, 0, 0, "out of memory");
    for (const yaml_node_pair_t *pr = item->data.mapping.pairs.start;
         pr < item->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = ydoc_node(d, pr->key), *v = ydoc_node(d, pr->value);
        if (y_len(k) == 4 && memcmp(y_text(k), "plan", 4) == 0)
            continue;
        st = load_check(L, k, v, path, &e->checks[e->check_count]);
        e->check_count++; /* counted even on failure, so its text is freed */
        if (st)
            return st;
    }
    return PE_OK;
}

/* An expect reference names an explicit plan, an explicit plan's canonical
 * text, or — when there is a sweep — any valid canonical text. */
static pe_status check_plan_ref(loader *L, const pe_expect *e, const yaml_node_t *item,
                                size_t index)
{
    for (size_t i = 0; i < L->s->plan_count; i++)
        if (strcmp(L->s->plans[i].name, e->plan) == 0 || strcmp(L->canon[i], e->plan) == 0)
            return PE_OK;
    if (L->s->sweep.present && canonical_valid(e->plan))
        return PE_OK;
    const char *key = e->kind == PE_EXPECT_BEST_PLAN ? "best_plan" : "plan";
    const yaml_node_t *at = y_map_get(L->d, item, key);
    const char **names = L->s->plan_count ? malloc(L->s->plan_count * sizeof *names) : NULL;
    size_t n = 0;
    if (names)
        for (size_t i = 0; i < L->s->plan_count; i++)
            if (L->s->plans[i].name[0])
                names[n++] = L->s->plans[i].name;
    const char *sug = y_suggest(e->plan, strlen(e->plan), names, n);
    char hint[PE_NAME_MAX + 40] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    else if (!L->s->sweep.present && canonical_valid(e->plan))
        snprintf(hint, sizeof hint, " (no explicit plan has that canonical text, and there is "
                                    "no sweep)");
    char q[96];
    y_quote(e->plan, strlen(e->plan), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    pe_status st = y_fail(L->err, L->d, at, "expect[%zu].%s: no plan named %s%s", index, key, q,
                          hint);
    free(names);
    return st;
}

static pe_status load_expect(loader *L, const yaml_node_t *node)
{
    pe_status st = y_want_seq(L->d, node, "expect", L->err);
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return PE_OK;
    L->s->expects = calloc(n, sizeof *L->s->expects);
    if (!L->s->expects)
        return pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        L->s->expect_count = i + 1;
        st = load_expect_item(L, item, i, &L->s->expects[i]);
        if (!st)
            st = check_plan_ref(L, &L->s->expects[i], item, i);
        if (st)
            return st;
    }
    return PE_OK;
}

/* ------------------------------------------------------------ questions */

/* A question's plan: an explicit plan's name, or any valid canonical text
 * (grade evaluates a canonical text even when no plan of the scenario has it). */
static pe_status check_question_plan(loader *L, const yaml_node_t *at, const char *path,
                                     const char *ref)
{
    for (size_t i = 0; i < L->s->plan_count; i++)
        if (strcmp(L->s->plans[i].name, ref) == 0 || strcmp(L->canon[i], ref) == 0)
            return PE_OK;
    if (canonical_valid(ref))
        return PE_OK;
    const char **names = L->s->plan_count ? malloc(L->s->plan_count * sizeof *names) : NULL;
    size_t n = 0;
    if (names)
        for (size_t i = 0; i < L->s->plan_count; i++)
            if (L->s->plans[i].name[0])
                names[n++] = L->s->plans[i].name;
    const char *sug = y_suggest(ref, strlen(ref), names, n);
    char hint[PE_NAME_MAX + 40] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    char q[96];
    y_quote(ref, strlen(ref), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    pe_status st = y_fail(L->err, L->d, at,
                          "%s: no plan named %s%s; give an explicit plan's name or a canonical "
                          "text such as dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                          path, q, hint);
    free(names);
    return st;
}

/* A question's column: a numeric report column other than rank (a rank
 * depends on the whole run, not on the plan). */
static pe_status check_question_column(loader *L, const yaml_node_t *v, const char *path,
                                       pe_question *q)
{
    pe_status st = y_get_name(L->d, v, path, q->column, sizeof q->column, L->err);
    if (st)
        return st;
    int col = columns_find(q->column);
    if (col >= 0 && col != COL_RANK &&
        (pe_columns[col].kind == PE_COL_NUMBER || pe_columns[col].kind == PE_COL_INT))
        return PE_OK;
    const char *names[COL_COUNT];
    size_t n = 0;
    for (int i = 0; i < COL_COUNT; i++)
        if (i != COL_RANK &&
            (pe_columns[i].kind == PE_COL_NUMBER || pe_columns[i].kind == PE_COL_INT))
            names[n++] = pe_columns[i].name;
    char qt[96];
    y_quote(y_text(v), y_len(v), qt, sizeof qt);
    qt[0] = qt[strlen(qt) - 1] = '\'';
    if (col == COL_RANK)
        return y_fail(L->err, L->d, v, "%s: rank depends on the whole run, not on the plan; ask "
                                       "best_plan instead", path);
    if (col >= 0)
        return y_fail(L->err, L->d, v,
                      "%s: %s is not a numeric column (ask fits or comm_bound for yes/no "
                      "questions)",
                      path, qt);
    const char *sug = y_suggest(y_text(v), y_len(v), names, n);
    if (sug)
        return y_fail(L->err, L->d, v, "%s: unknown report column %s (did you mean '%s'?)", path,
                      qt, sug);
    return y_fail(L->err, L->d, v, "%s: unknown report column %s", path, qt);
}

static pe_status load_question(loader *L, const yaml_node_t *item, size_t index, pe_question *q)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "questions", index);
    pe_status st = y_want_map(d, item, path, L->err);
    if (st)
        return st;
    memset(q, 0, sizeof *q);
    q->points = 1;
    q->line = y_line(item);
    q->col = y_col(item);
    pe_layer layer = {d, item};
    pe_applied a;
    st = y_apply(&pe_fields_question, &layer, 1, path, q, &a, L->err);
    if (!st)
        st = check_required(L, &pe_fields_question, &a, item, path);
    if (st)
        return st;
#define QV(k_) (a.value[IDX(pe_fields_question, k_)])
#define QK(k_) (a.key[IDX(pe_fields_question, k_)])
    y_path(fp, path, "id");
    st = y_get_name(d, QV("id"), fp, q->id, sizeof q->id, L->err);
    if (st)
        return st;
    if (!y_valid_name(q->id)) {
        char qt[96];
        y_quote(q->id, strlen(q->id), qt, sizeof qt);
        return y_fail(L->err, d, QV("id"), "%s must match [a-z0-9._-]+, got %s", fp, qt);
    }
    const char *ask = pe_ask_name(q->ask);
    const bool wants_plan = q->ask == PE_ASK_COLUMN || q->ask == PE_ASK_FITS ||
                            q->ask == PE_ASK_COMM_BOUND;
    /* Keys that belong to other kinds of question are errors, like keys of
     * the other topology (interface.md "Ranges"). */
    if (!wants_plan && QV("plan"))
        return y_fail(L->err, d, QK("plan"),
                      "%s: ask %s takes no plan (the student's answer is the plan)", path, ask);
    if (q->ask != PE_ASK_COLUMN && QV("column"))
        return y_fail(L->err, d, QK("column"),
                      "%s: ask %s takes no column (only ask: column does)", path, ask);
    const bool has_rel = QV("rel_tol") != NULL, has_abs = QV("abs_tol") != NULL;
    if (has_rel && has_abs) {
        const yaml_node_t *second =
            QK("rel_tol")->start_mark.index > QK("abs_tol")->start_mark.index ? QK("rel_tol")
                                                                               : QK("abs_tol");
        return y_fail(L->err, d, second, "%s: give rel_tol or abs_tol, not both", path);
    }
    if ((q->ask == PE_ASK_FITS || q->ask == PE_ASK_COMM_BOUND ||
         q->ask == PE_ASK_MIN_INTERVENTION) &&
        (has_rel || has_abs))
        return y_fail(L->err, d, has_rel ? QK("rel_tol") : QK("abs_tol"),
                      "%s: ask %s takes no tolerance (the answer is right or wrong)", path, ask);
    if (q->ask != PE_ASK_COLUMN && has_abs)
        return y_fail(L->err, d, QK("abs_tol"),
                      "%s: ask %s compares relative to the best plan: use rel_tol", path, ask);
    if (wants_plan) {
        if (!QV("plan"))
            return missing(L, d, item, path, "plan", "");
        y_path(fp, path, "plan");
        st = y_get_name(d, QV("plan"), fp, q->plan, sizeof q->plan, L->err);
        if (!st)
            st = check_question_plan(L, QV("plan"), fp, q->plan);
        if (st)
            return st;
    }
    if (q->ask == PE_ASK_COLUMN) {
        if (!QV("column"))
            return missing(L, d, item, path, "column", " (ask: column names a report column)");
        y_path(fp, path, "column");
        if ((st = check_question_column(L, QV("column"), fp, q)))
            return st;
    }
    /* Default tolerances (fields.c). */
    q->tol_kind = PE_TOL_REL;
    q->tol = q->ask == PE_ASK_COLUMN ? 0.01 : q->ask == PE_ASK_CHOSEN_PLAN ? 0.05 : 0;
    if (has_rel || has_abs) {
        const char *key = has_rel ? "rel_tol" : "abs_tol";
        y_path(fp, path, key);
        q->tol_kind = has_rel ? PE_TOL_REL : PE_TOL_ABS;
        st = y_get_number(d, QV(key), fp, PE_RANGE_NONNEG, &q->tol, L->err);
    }
#undef QV
#undef QK
    return st;
}

static pe_status load_questions(loader *L, const yaml_node_t *node)
{
    pe_status st = y_want_seq(L->d, node, "questions", L->err);
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return y_fail(L->err, L->d, node, "questions: empty list; give at least one question");
    L->s->questions = calloc(n, sizeof *L->s->questions);
    if (!L->s->questions)
        return pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        st = load_question(L, item, i, &L->s->questions[i]);
        if (st)
            return st;
        L->s->question_count = i + 1;
    }
    /* Ids are unique (a submission answers by id); sorted, O(n log n). */
    nameref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        refs[i] = (nameref){L->s->questions[i].id, i};
    qsort(refs, n, sizeof *refs, nameref_cmp);
    size_t dup = SIZE_MAX, first = 0;
    for (size_t i = 1; i < n; i++)
        if (strcmp(refs[i].name, refs[i - 1].name) == 0 && refs[i].index < dup) {
            dup = refs[i].index;
            first = refs[i - 1].index;
        }
    free(refs);
    if (dup == SIZE_MAX)
        return PE_OK;
    /* the first occurrence of a duplicated id precedes dup in the sort */
    for (size_t i = 0; i < dup; i++)
        if (strcmp(L->s->questions[i].id, L->s->questions[dup].id) == 0) {
            first = i;
            break;
        }
    const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[dup]);
    return y_fail(L->err, L->d, y_map_get(L->d, item, "id"),
                  "questions[%zu]: duplicate question id '%s' (questions[%zu] has it too)", dup,
                  L->s->questions[dup].id, first);
}

/* ------------------------------------------------------------ top level */

/* Issue 11: what the GPU must describe for the keys used: fp8 GEMMs need its
 * FP8 peak (V16 as a load rule), offload_optimizer its host link. */
static pe_status check_gpu_needs(loader *L)
{
    const pe_scenario *s = L->s;
    const yaml_node_t *root = ydoc_root(L->d);
    if (s->precision.compute == PE_COMPUTE_FP8 && !s->cluster.gpu.has_peak_fp8_tflops)
        return y_fail(L->err, L->d, y_map_get(L->d, y_map_get(L->d, root, "precision"), "compute"),
                      "precision.compute: fp8 needs cluster.gpu.peak_fp8_tflops (this GPU has "
                      "none: FP8 tensor cores came with Hopper, Ada and MI300)");
    bool offload = false;
    for (size_t i = 0; i < s->plan_count; i++)
        offload = offload || s->plans[i].offload_optimizer;
    for (size_t i = 0; i < s->sweep.offload_optimizer.count; i++)
        offload = offload || s->sweep.offload_optimizer.values[i];
    if (offload && !s->cluster.gpu.has_host_link_gb_s)
        return y_fail(L->err, L->d, y_map_get(L->d, root, "cluster"),
                      "offload_optimizer needs cluster.gpu.host_link_gb_s (the GPU-host "
                      "bandwidth per direction)");
    return PE_OK;
}

/* interface.md: name defaults to the file's stem (the base name without its
 * last extension). */
static void file_stem(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len >= size)
        len = size - 1;
    memcpy(buf, base, len);
    buf[len] = '\0';
}

static pe_status load_root(loader *L)
{
    const pe_ydoc *d = L->d;
    pe_scenario *s = L->s;
    const yaml_node_t *root = ydoc_root(d);
    pe_status st;
    if (root->type != YAML_MAPPING_NODE) {
        char desc[128];
        y_describe(root, desc, sizeof desc);
        return y_fail(L->err, d, root,
                      "a scenario file is a mapping of keys (schema, model, cluster, ...), got %s",
                      desc);
    }
    set_defaults(s);
    pe_layer layer = {d, root};
    pe_applied *a = &L->top;
    st = y_apply(&pe_fields_scenario, &layer, 1, "", s, a, L->err);
    if (st)
        return st;
#define TOP(key) (a->value[IDX(pe_fields_scenario, key)])

    const yaml_node_t *n = TOP("schema");
    if (!n)
        return missing(L, d, root, "", "schema", " (write schema: planeval/v1)");
    if (!y_is_string(n) || strcmp(y_text(n), "planeval/v1") != 0 || y_len(n) != 11) {
        char desc[128];
        y_describe(n, desc, sizeof desc);
        return y_fail(L->err, d, n, "schema must be planeval/v1, got %s", desc);
    }

    if ((n = TOP("name")) != NULL) {
        st = y_get_name(d, n, "name", s->name, sizeof s->name, L->err);
        if (st)
            return st;
        if (!y_valid_name(s->name)) {
            char q[96];
            y_quote(s->name, strlen(s->name), q, sizeof q);
            return y_fail(L->err, d, n, "name must match [a-z0-9._-]+, got %s", q);
        }
    } else {
        char stem[PE_PATH_MAX];
        file_stem(d->path, stem, sizeof stem);
        if (!y_valid_name(stem) || strlen(stem) >= PE_NAME_MAX) {
            char q[96];
            y_quote(stem, strlen(stem), q, sizeof q);
            return y_fail(L->err, d, root,
                          "no name: given, and the file stem %s is not a valid name "
                          "([a-z0-9._-]+, at most 255 bytes): add name: or rename the file",
                          q);
        }
        memcpy(s->name, stem, strlen(stem) + 1); /* < PE_NAME_MAX: checked above */
    }
    if ((n = TOP("description")) != NULL) {
        st = y_get_text(d, n, "description", &s->description, L->err);
        if (st)
            return st;
    }

    if (!(n = TOP("model")))
        return missing(L, d, root, "", "model", "");
    if ((st = load_model(L, n)))
        return st;
    if ((n = TOP("precision")) && (st = load_simple(L, &pe_fields_precision, n, &s->precision)))
        return st;
    if (!(n = TOP("cluster")))
        return missing(L, d, root, "", "cluster", "");
    if ((st = load_cluster(L, n)))
        return st;
    if (!(n = TOP("training")))
        return missing(L, d, root, "", "training", "");
    if ((st = load_simple(L, &pe_fields_training, n, &s->training)))
        return st;
    if ((n = TOP("budgets")) && (st = load_simple(L, &pe_fields_budgets, n, &s->budgets)))
        return st;
    if (s->budgets.has_train_days && !s->training.has_tokens)
        return y_fail(L->err, d, y_map_get(d, TOP("budgets"), "train_days"),
                      "budgets.train_days needs training.tokens (model.md §9)");
    if ((n = TOP("overlap")) && (st = load_simple(L, &pe_fields_overlap, n, &s->overlap)))
        return st;
    if (s->rank_by == PE_RANK_TRAIN_DAYS && !s->training.has_tokens)
        return y_fail(L->err, d, TOP("rank_by"),
                      "rank_by: train_days needs training.tokens (model.md §9)");

    const yaml_node_t *plans = TOP("plans"), *sweep = TOP("sweep");
    if (plans && (st = load_plans(L, plans)))
        return st;
    if ((sweep && (st = load_sweep(L, sweep))) || (st = check_gpu_needs(L))) /* issue 11 */
        return st;
    if (s->plan_count == 0 && !s->sweep.present)
        return y_fail(L->err, d, plans ? plans : root,
                      "no plans to evaluate: give plans: (a non-empty list) or sweep:");
    if ((n = TOP("expect")) && (st = load_expect(L, n)))
        return st;
    if ((n = TOP("questions")) && (st = load_questions(L, n)))
        return st;
#undef TOP
    return PE_OK;
}

pe_status load_scenario_buffer(const char *path, const char *data, size_t size,
                               const pe_catalog *catalog, pe_scenario *out, pe_error *err)
{
    memset(out, 0, sizeof *out);
    pe_ydoc d;
    pe_status st = ydoc_parse(&d, path, data, size, err);
    if (st)
        return st;
    loader L;
    memset(&L, 0, sizeof L);
    L.cat = catalog;
    L.d = &d;
    L.s = out;
    L.err = err;
    snprintf(out->file, sizeof out->file, "%s", path);
    st = load_root(&L);
    free(L.canon);
    ydoc_free(&d);
    if (st)
        scenario_free(out);
    return st;
}

pe_status load_scenario(const char *path, const pe_catalog *catalog, pe_scenario *out,
                        pe_error *err)
{
    memset(out, 0, sizeof *out);
    char *data = NULL;
    size_t size = 0;
    pe_status st = pe_read_file(path, &data, &size, err);
    if (st)
        return st;
    st = load_scenario_buffer(path, data, size, catalog, out, err);
    free(data);
    return st;
}
