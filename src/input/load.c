/* load.c — a scenario file → pe_scenario (see load.h).
 *
 * YAML-level strictness lives in yamlutil.c (ydoc_parse, typed getters); the
 * keys, types, ranges and defaults in fields.c. This file holds the rules
 * between keys: presets applied first (docs/scenarios.md "Presets"), required
 * keys and the conditional ones (intra_node, inter_node: docs/model.md §0),
 * load-time model checks (docs/model.md §1), plans, sweep and expect.
 *
 * Every mistake of a file is reported in one pass: each step records its
 * errors in L->errs and returns PE_BAD_INPUT, and the loader goes on with the
 * next key, item or section. A rule between keys runs only when the keys it
 * reads loaded (the *_ok flags), so one mistake is not reported twice. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/canonical.h"
#include "core/columns.h"
#include "core/pipeline_layout.h"
#include "core/spreadsheet.h"
#include "input/load.h"
#include "input/yamlutil.h"

typedef struct {
    const pe_catalog *cat;
    const pe_ydoc *d; /* the scenario file */
    pe_scenario *s;
    pe_error *err;       /* the error of the step in progress */
    pe_error_list errs;  /* every error found so far */
    pe_error internal;   /* the first PE_INTERNAL error, when internal_set */
    bool internal_set;
    pe_applied top;
    char (*canon)[PE_NAME_MAX]; /* canonical text of each explicit plan */
    bool cluster_ok, training_ok, budgets_ok, plans_ok;
    bool model_ok; /* model: loaded, so its layers can check a pipeline_layout */
} loader;

#define IDX(set, key) y_field_index(&(set), key)

/* Record the error a step left in L->err (PE_BAD_INPUT) and return st. */
static pe_status keep(loader *L, pe_status st)
{
    if (st == PE_BAD_INPUT && pe_errors_add(&L->errs, L->err) != PE_OK)
        st = pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory");
    if (st == PE_INTERNAL && !L->internal_set) {
        L->internal = *L->err; /* later steps reuse L->err */
        L->internal_set = true;
    }
    return st;
}

/* An error at node n of d, recorded; returns PE_BAD_INPUT. */
__attribute__((format(printf, 4, 5))) static pe_status bad(loader *L, const pe_ydoc *d,
                                                           const yaml_node_t *n,
                                                           const char *fmt, ...)
{
    char msg[PE_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return keep(L, y_fail(L->err, d, n, "%s", msg));
}

static pe_status out_of_memory(loader *L)
{
    return keep(L, pe_fail(L->err, PE_INTERNAL, L->d->path, 0, 0, "out of memory"));
}

/* The worse of two statuses (PE_INTERNAL stops the load). */
static pe_status worse(pe_status a, pe_status b) { return a > b ? a : b; }

/* Every key's literal default, from its descriptor (core/fields.c). The
 * defaults computed from other keys are filled once those keys are known:
 * kv_heads, ffn_hidden and moe_ffn_hidden by model_computed_defaults, a
 * plan's sequence_parallel and etp by load_plan (scenario_sequence_parallel,
 * scenario_plan_defaults), name by load_name, fidelity by default_fidelity. */
static void set_defaults(pe_scenario *s)
{
    fields_store_defaults(&pe_fields_scenario, s);
    fields_store_defaults(&pe_fields_model, &s->model);
    fields_store_defaults(&pe_fields_precision, &s->precision);
    fields_store_defaults(&pe_fields_cluster, &s->cluster);
    fields_store_defaults(&pe_fields_gpu, &s->cluster.gpu);
    fields_store_defaults(&pe_fields_intra_node, &s->cluster.intra_node);
    fields_store_defaults(&pe_fields_inter_node, &s->cluster.inter_node);
    fields_store_defaults(&pe_fields_overlap, &s->overlap);
    fields_store_defaults(&pe_fields_training, &s->training);
}

/* Does mapping m hold an unknown key close to key (a typo, reported as
 * "unknown key … did you mean")? */
static bool has_misspelt(const pe_ydoc *d, const yaml_node_t *m, const pe_fieldset *set,
                         const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return false;
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = ydoc_node(d, p->key);
        if (!fields_find(set, y_text(k), y_len(k)) && y_suggest(y_text(k), y_len(k), &key, 1))
            return true;
    }
    return false;
}

/* "missing required key 'k' in path" at the mapping that lacks it, unless
 * the mapping has it misspelt (that error says it already). */
static pe_status missing(loader *L, const pe_fieldset *set, const yaml_node_t *at,
                         const char *path, const char *key, const char *why)
{
    const pe_ydoc *d = L->d;
    if (has_misspelt(d, at, set, key))
        return PE_BAD_INPUT;
    if (path[0])
        return bad(L, d, at, "missing required key '%s' in %s%s", key, path, why);
    return bad(L, d, at, "missing required key '%s'%s", key, why);
}

/* Every required key of set that *st did not see (each one an error). */
/* docs/sweeps.md "Sweeping the design": the scenario keys a sweep key may
 * give instead (the sweep key of the same name). */
static const struct {
    const pe_fieldset *set;
    const char *key;
} DESIGN_KEYS[] = {
    {&pe_fields_cluster, "nodes"}, {&pe_fields_training, "global_batch"}, {&pe_fields_model, "seq_len"}};

/* The sweep's value node of design key `key` of `set`, or NULL. */
static const yaml_node_t *design_axis_node(const loader *L, const pe_fieldset *set, const char *key)
{
    const yaml_node_t *sweep = L->top.value[IDX(pe_fields_scenario, "sweep")];
    if (!sweep || sweep->type != YAML_MAPPING_NODE)
        return NULL;
    for (size_t i = 0; i < sizeof DESIGN_KEYS / sizeof DESIGN_KEYS[0]; i++)
        if (DESIGN_KEYS[i].set == set && strcmp(DESIGN_KEYS[i].key, key) == 0) {
            const yaml_node_t *n = y_map_get(L->d, sweep, key);
            return n || i > 0 ? n : y_map_get(L->d, sweep, "gpus"); /* nodes, or gpus */
        }
    return NULL;
}

static pe_status check_required(loader *L, const pe_fieldset *set, const pe_applied *st,
                                const yaml_node_t *at, const char *path)
{
    pe_status status = PE_OK;
    for (size_t i = 0; i < set->count; i++)
        if ((set->fields[i].flags & PE_F_REQUIRED) && set->fields[i].type != PE_FT_MAP &&
            !st->set[i] && !design_axis_node(L, set, set->fields[i].key))
            status = worse(status, missing(L, set, at, path, set->fields[i].key, ""));
    return status;
}

/* y_apply over layers, every bad key recorded. */
static pe_status apply(loader *L, const pe_fieldset *set, const pe_layer *layers, size_t n,
                       const char *path, void *base, pe_applied *st)
{
    return y_apply_all(set, layers, n, path, base, st, L->err, &L->errs);
}

/* ------------------------------------------------------------ presets */

/* The names of one kind of preset, malloc'd (NULL and *n = 0 when none). */
static const char **preset_names(const pe_catalog *cat, const char *kind, size_t *n)
{
    *n = cat ? catalog_names(cat, kind, NULL, 0) : 0;
    const char **names = *n ? malloc(*n * sizeof *names) : NULL;
    if (names)
        *n = catalog_names(cat, kind, names, *n);
    else
        *n = 0;
    return names;
}

/* The closest names to name among names, joined by `last` ("or", "and"):
 * "'h100-node'", or when name begins several at a separator,
 * "'llama3-405b', 'llama3-70b' or 'llama3-8b'" (up to 3); false when none
 * is close. */
static bool closest_names(const char *name, const char **names, size_t n, const char *last,
                          char *buf, size_t size)
{
    size_t len = strlen(name), found = 0;
    const char *pick[3];
    for (size_t i = 0; i < n && found < 3; i++)
        if (strlen(names[i]) > len && strncmp(names[i], name, len) == 0 &&
            strchr("_-.", names[i][len]))
            pick[found++] = names[i];
    if (found < 2) {
        pick[0] = y_suggest(name, len, names, n);
        found = pick[0] != NULL;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < found; i++) {
        size_t used = strlen(buf);
        const char *sep = i == 0 ? "" : i + 1 == found ? last : ",";
        snprintf(buf + used, size - used, "%s%s'%s'", sep, i ? " " : "", pick[i]);
    }
    return found > 0;
}

/* " (did you mean 'h100-node'? 'h100-sxm' is a gpu preset)": the closest
 * name of this kind and of each other kind, or "(the catalog has no …)". */
static void preset_hint(const loader *L, const char *name, const char *kind, char *buf,
                        size_t size)
{
    static const char *const kinds[] = {"models", "gpus", "clusters", "frameworks"};
    static const char *const what[] = {"model", "gpu", "cluster", "framework"};
    char parts[4][3 * PE_NAME_MAX + 40], close[3 * PE_NAME_MAX + 16];
    size_t np = 0, n_own = 0;
    for (int pass = 0; pass < 2; pass++) /* this kind first, then the others */
        for (size_t k = 0; k < 4; k++) {
            if ((strcmp(kinds[k], kind) == 0) != (pass == 0))
                continue;
            size_t n;
            const char **names = preset_names(L->cat, kinds[k], &n);
            bool sug = closest_names(name, names, n, pass == 0 ? " or" : " and", close,
                                     sizeof close);
            if (pass == 0)
                n_own = n;
            if (sug && pass == 0)
                snprintf(parts[np++], sizeof parts[0], "did you mean %s?", close);
            else if (sug)
                snprintf(parts[np++], sizeof parts[0], "%s %s %s preset%s", close,
                         strstr(close, " and ") ? "are" : "is a", what[k],
                         strstr(close, " and ") ? "s" : "");
            free(names);
        }
    buf[0] = '\0';
    if (np == 0 && n_own == 0)
        snprintf(buf, size, " (the catalog has no %s)", kind);
    for (size_t i = 0; i < np; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s%s", i ? " " : " (", parts[i],
                 i + 1 == np ? ")" : "");
    }
}

/* Look up a preset named by node pn (in the scenario file). */
static pe_status find_preset(loader *L, const yaml_node_t *pn, const char *path,
                             const char *kind, const char *what, const pe_preset **out)
{
    char name[PE_NAME_MAX];
    if (pn->type == YAML_SEQUENCE_NODE && strcmp(path, "cluster.preset") == 0)
        return bad(L, L->d, pn,
                   "cluster.preset: expected a preset name, got a list (to compare several "
                   "cluster types, list them as sweep.cluster and leave cluster.preset out)");
    pe_status st = keep(L, y_get_name(L->d, pn, path, name, sizeof name, L->err));
    if (st)
        return st;
    *out = catalog_find(L->cat, kind, name);
    if (*out)
        return PE_OK;
    char hint[13 * PE_NAME_MAX + 260], q[96];
    preset_hint(L, name, kind, hint, sizeof hint);
    y_quote(name, strlen(name), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    return bad(L, L->d, pn, "%s: unknown %s preset %s%s", path, what, q, hint);
}

/* The catalog entries p stands for as layers, oldest first; how many. */
static size_t chain_layers(const loader *L, const pe_preset *p, pe_layer *layers)
{
    const pe_preset *chain[PE_PRESET_CHAIN_MAX];
    size_t n = catalog_chain(L->cat, p, chain, PE_PRESET_CHAIN_MAX);
    for (size_t l = 0; l < n; l++)
        layers[l] = (pe_layer){chain[l]->doc, chain[l]->node};
    return n;
}

/* The layers of a mapping that may name a preset: the preset's chain (the
 * entries it overrides, then it: catalog_chain), then the file; *n of them.
 * Without a preset: [absent, the file]. The file is always layers[*n - 1]. */
static pe_status preset_layers(loader *L, const yaml_node_t *node, const char *path,
                               const char *kind, const char *what, pe_layer *layers, size_t *n,
                               const pe_preset **preset)
{
    layers[0] = (pe_layer){NULL, NULL};
    layers[1] = (pe_layer){L->d, node};
    *n = 2;
    *preset = NULL;
    const yaml_node_t *pn = y_map_get(L->d, node, "preset");
    if (!pn)
        return PE_OK;
    char pp[PE_YPATH_MAX];
    y_path(pp, path, "preset");
    pe_status st = find_preset(L, pn, pp, kind, what, preset);
    if (st)
        return st;
    *n = chain_layers(L, *preset, layers) + 1;
    layers[*n - 1] = (pe_layer){L->d, node};
    return PE_OK;
}

/* The file's layer as 1, every preset layer as 0 (what the model's rules
 * between keys ask: did the file give it?). */
static void file_layer_as_one(pe_applied *a, size_t file_layer)
{
    for (size_t i = 0; i < PE_MAX_FIELDS; i++)
        if (a->set[i])
            a->layer[i] = (size_t)a->layer[i] == file_layer ? 1 : 0;
}

/* The layers of sub-mapping field i over the layers of its parent: one per
 * parent layer (absent where that layer does not give it). */
static void sub_layers(const pe_applied *a, size_t i, const pe_layer *parent, size_t n,
                       pe_layer *out)
{
    for (size_t l = 0; l < n; l++)
        out[l] = (pe_layer){parent[l].doc, a->per_layer[i][l]};
}

/* A node to point at for a rule between keys: the file's node of field i if
 * the file gave it, else `fallback` (a node of the file, e.g. `preset:`). */
static const yaml_node_t *file_node(const pe_applied *st, size_t i, int file_layer,
                                    const yaml_node_t *fallback)
{
    return st->set[i] && st->layer[i] == file_layer ? st->value[i] : fallback;
}

/* ------------------------------------------------------------ model */

/* docs/model.md §1: a divides h (the head dimension d = h/a is whole);
 * with head_dim or mla the head dimension is given: no rule. */
static pe_status check_heads(loader *L, const pe_applied *a, const yaml_node_t *fallback)
{
    const pe_model *m = &L->s->model;
    if (m->hidden % m->heads == 0 || m->has_head_dim || m->attention == PE_ATTENTION_MLA)
        return PE_OK;
    const yaml_node_t *at = file_node(a, IDX(pe_fields_model, "heads"), 1,
                                      file_node(a, IDX(pe_fields_model, "hidden"), 1, fallback));
    return bad(L, L->d, at,
               "model.heads = %lld does not divide model.hidden = %lld (the head "
               "dimension hidden/heads must be whole)",
               (long long)m->heads, (long long)m->hidden);
}

/* docs/model.md §1 and P6: with params,
 * N_layer = (params − N_embed − N_out|p=1 − norm(h)) / L must be > 0.
 * P3: N_embed = V·h + [learned]·s·h; P4 at p = 1: V·h unless tied. */
static pe_status check_params(loader *L, const pe_applied *a, const yaml_node_t *fallback)
{
    const pe_model *m = &L->s->model;
    if (!m->has_params)
        return PE_OK;
    double h = (double)m->hidden, V = (double)m->vocab, s = (double)m->seq_len;
    double n_embed = V * h + (m->position == PE_POSITION_LEARNED ? s * h : 0);
    double n_out = m->tied_embeddings ? 0 : V * h;
    double norm_h = m->norm == PE_NORM_LAYERNORM ? 2 * h : h;
    double rest = m->params - n_embed - n_out - norm_h;
    if (rest > 0)
        return PE_OK;
    size_t pi = IDX(pe_fields_model, "params");
    const yaml_node_t *at = file_node(a, pi, 1, fallback);
    char given[64];
    if (a->layer[pi] == 1)
        snprintf(given, sizeof given, "%.40s", y_text(at)); /* as written */
    else
        snprintf(given, sizeof given, "%.17g", m->params);
    return bad(L, L->d, at,
               "model.params = %s is too small for these dimensions: embeddings, "
               "output layer and final norm alone take %.0f parameters, which "
               "leaves nothing for the %lld layers (docs/model.md P6)",
               given, n_embed + n_out + norm_h, (long long)m->layers);
}

/* The node to point at for model key `key`: the file's, else `fallback`. */
static const yaml_node_t *model_node(const pe_applied *a, const char *key,
                                     const yaml_node_t *fallback)
{
    return file_node(a, IDX(pe_fields_model, key), 1, fallback);
}

/* docs/design/moe.md §1: the MLA dimensions with attention: mla
 * and only then; head_dim not with mla. */
static pe_status check_mla_keys(loader *L, const pe_applied *a, const yaml_node_t *fallback)
{
    static const char *const mla_keys[] = {"kv_lora_rank", "qk_rope_head_dim",
                                           "qk_nope_head_dim", "v_head_dim"};
    const pe_model *m = &L->s->model;
    const bool mla = m->attention == PE_ATTENTION_MLA;
    for (size_t i = 0; i < sizeof mla_keys / sizeof mla_keys[0]; i++) {
        if (mla && !a->set[IDX(pe_fields_model, mla_keys[i])])
            return missing(L, &pe_fields_model, fallback, "model", mla_keys[i],
                           " (needed by attention: mla)");
        if (!mla && a->set[IDX(pe_fields_model, mla_keys[i])])
            return bad(L, L->d, model_node(a, mla_keys[i], fallback),
                       "model.%s applies to attention: mla only", mla_keys[i]);
    }
    if (!mla && a->set[IDX(pe_fields_model, "q_lora_rank")])
        return bad(L, L->d, model_node(a, "q_lora_rank", fallback),
                   "model.q_lora_rank applies to attention: mla only");
    if (mla && m->has_head_dim)
        return bad(L, L->d, model_node(a, "head_dim", fallback),
                   "model.head_dim does not apply to attention: mla (its heads have "
                   "qk_nope_head_dim + qk_rope_head_dim and v_head_dim)");
    return PE_OK;
}

/* A variant of a preset: the file's `experts: 0` makes a dense model of an
 * MoE preset and its `attention:` other than mla a non-MLA one; the keys
 * the preset gave for what the file turned off no longer apply and go back
 * to their defaults (keys the file writes itself are still checked). */
static bool drop_preset_keys(pe_applied *a, const char *const *keys, size_t n)
{
    bool dropped = false;
    for (size_t i = 0; i < n; i++) {
        const size_t k = IDX(pe_fields_model, keys[i]);
        if (a->set[k] && a->layer[k] == 0)
            a->set[k] = false, dropped = true;
    }
    return dropped;
}

/* The keys back to their defaults (fields.c), given or not. */
static void reset_model_keys(pe_model *m, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fields_reset(&pe_fields_model, keys[i], m);
}

static void drop_variant_keys(pe_model *m, pe_applied *a)
{
    static const char *const moe_keys[] = {"top_k",        "moe_ffn_hidden", "shared_experts",
                                           "dense_layers", "moe_every",      "capacity_factor",
                                           "moe_imbalance"};
    static const char *const mla_keys[] = {"kv_lora_rank", "qk_rope_head_dim",
                                           "qk_nope_head_dim", "v_head_dim", "q_lora_rank"};
    const size_t n_moe = sizeof moe_keys / sizeof *moe_keys;
    const size_t n_mla = sizeof mla_keys / sizeof *mla_keys;
    const size_t ie = IDX(pe_fields_model, "experts"), ia = IDX(pe_fields_model, "attention");
    /* back to the defaults; a key the file writes is refused below anyway */
    if (m->experts == 0 && a->set[ie] && a->layer[ie] == 1 &&
        drop_preset_keys(a, moe_keys, n_moe))
        reset_model_keys(m, moe_keys, n_moe);
    if (m->attention != PE_ATTENTION_MLA && a->set[ia] && a->layer[ia] == 1 &&
        drop_preset_keys(a, mla_keys, n_mla))
        reset_model_keys(m, mla_keys, n_mla);
}

/* docs/design/moe.md §1: the MoE keys only with experts > 0 (as
 * Megatron's "moe_ffn_hidden_size is set but num_moe_experts is None"),
 * top_k required and ≤ experts, dense_layers ≤ layers, no params with
 * experts (P6 scales one N_layer). */
static pe_status check_moe_keys(loader *L, const pe_applied *a, const yaml_node_t *fallback)
{
    const pe_model *m = &L->s->model;
    static const char *const moe_keys[] = {"top_k",        "moe_ffn_hidden", "shared_experts",
                                           "dense_layers", "moe_every",      "capacity_factor",
                                           "moe_imbalance"};
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++)
        if (m->experts == 0 && a->set[IDX(pe_fields_model, moe_keys[i])])
            return bad(L, L->d, model_node(a, moe_keys[i], fallback),
                       "model.%s is set but model.experts is 0 (a dense model)", moe_keys[i]);
    if (m->experts == 0)
        return PE_OK;
    if (!a->set[IDX(pe_fields_model, "top_k")])
        return missing(L, &pe_fields_model, fallback, "model", "top_k",
                       " (needed when experts > 0)");
    if (m->top_k > m->experts)
        return bad(L, L->d, model_node(a, "top_k", fallback),
                   "model.top_k = %lld exceeds model.experts = %lld", (long long)m->top_k,
                   (long long)m->experts);
    if (m->dense_layers > m->layers)
        return bad(L, L->d, model_node(a, "dense_layers", fallback),
                   "model.dense_layers = %lld exceeds model.layers = %lld",
                   (long long)m->dense_layers, (long long)m->layers);
    if (m->has_params)
        return bad(L, L->d, model_node(a, "params", fallback),
                   "model.params cannot be combined with experts: the split between expert "
                   "and dense parameters is not determined (docs/model.md P6 scales one "
                   "layer)");
    return PE_OK;
}

/* The model keys whose defaults are computed from other keys (their
 * descriptors' default_text says from which): docs/model.md §0, g = a and
 * f = 4h; docs/design/moe.md §0, f_e = f for an MoE model. */
static void model_computed_defaults(pe_model *m, const pe_applied *a)
{
    if (!a->set[IDX(pe_fields_model, "kv_heads")])
        m->kv_heads = m->heads;
    if (!a->set[IDX(pe_fields_model, "ffn_hidden")])
        m->ffn_hidden = 4 * m->hidden;
    if (m->experts > 0 && !a->set[IDX(pe_fields_model, "moe_ffn_hidden")])
        m->moe_ffn_hidden = m->ffn_hidden;
}

static pe_status load_model(loader *L, const yaml_node_t *node)
{
    pe_model *m = &L->s->model;
    pe_status st = keep(L, y_want_map(L->d, node, "model", L->err));
    pe_layer layers[PE_MAX_LAYERS];
    size_t n = 0;
    const pe_preset *preset;
    if (!st)
        st = preset_layers(L, node, "model", "models", "model", layers, &n, &preset);
    if (st)
        return st;
    pe_applied a;
    st = apply(L, &pe_fields_model, layers, n, "model", m, &a);
    file_layer_as_one(&a, n - 1);
    st = worse(st, check_required(L, &pe_fields_model, &a, node, "model"));
    if (st)
        return st; /* the rules below read every key */
    drop_variant_keys(m, &a);
    model_computed_defaults(m, &a);
    const yaml_node_t *pn = y_map_get(L->d, node, "preset");
    st = check_heads(L, &a, pn ? pn : node);
    st = worse(st, check_mla_keys(L, &a, pn ? pn : node));
    st = worse(st, check_moe_keys(L, &a, pn ? pn : node));
    return worse(st, check_params(L, &a, pn ? pn : node));
}

/* ------------------------------------------------------------ cluster */

/* The gpu preset a cluster preset's chain names last (the later entries'
 * gpu: {preset:} over the earlier ones'), or NULL. */
static const pe_preset *chain_gpu_preset(const loader *L, const pe_layer *gpu_layers, size_t n)
{
    for (size_t l = n; l-- > 0;) {
        const yaml_node_t *pgp =
            gpu_layers[l].node ? y_map_get(gpu_layers[l].doc, gpu_layers[l].node, "preset") : NULL;
        if (pgp)
            return catalog_find(L->cat, "gpus", y_text(pgp)); /* checked by catalog_open */
    }
    return NULL;
}

/* cluster.gpu: [the named gpu preset's chain, the cluster preset chain's gpu
 * keys, the file's gpu keys] (n cluster layers, the file's last); the gpu
 * preset named last wins (the file's over the cluster preset's). */
static pe_status load_gpu(loader *L, const yaml_node_t *node, const pe_layer *layers, size_t n,
                          const pe_applied *a)
{
    const pe_ydoc *d = L->d;
    size_t gi = IDX(pe_fields_cluster, "gpu");
    pe_layer cl[PE_MAX_LAYERS];
    sub_layers(a, gi, layers, n, cl);
    const yaml_node_t *gpu_file = cl[n - 1].node;
    if (!a->set[gi])
        return missing(L, &pe_fields_cluster, node, "cluster", "gpu", "");
    if (gpu_file && y_is_string(gpu_file)) {
        char q[96];
        y_quote(y_text(gpu_file), y_len(gpu_file), q, sizeof q);
        return bad(L, d, gpu_file,
                   "cluster.gpu: expected a mapping, got %s (to use a preset, write gpu: "
                   "{preset: %s})",
                   q, y_text(gpu_file));
    }
    pe_status st;
    if (gpu_file && (st = keep(L, y_want_map(d, gpu_file, "cluster.gpu", L->err))))
        return st;
    const yaml_node_t *gp = gpu_file ? y_map_get(d, gpu_file, "preset") : NULL;
    const pe_preset *gpreset = NULL;
    if (gp && (st = find_preset(L, gp, "cluster.gpu.preset", "gpus", "gpu", &gpreset)))
        return st;
    if (!gp)
        gpreset = chain_gpu_preset(L, cl, n - 1);
    pe_layer gl[PE_MAX_LAYERS];
    size_t k = gpreset ? chain_layers(L, gpreset, gl) : 0;
    for (size_t l = 0; l < n; l++)
        gl[k + l] = cl[l];
    pe_applied ga;
    st = apply(L, &pe_fields_gpu, gl, k + n, "cluster.gpu", &L->s->cluster.gpu, &ga);
    return worse(st, check_required(L, &pe_fields_gpu, &ga, gpu_file ? gpu_file : node,
                                    "cluster.gpu"));
}

/* The keys of the chosen topology that are missing (docs/scenarios.md "cluster.intra_node"). */
static pe_status check_topology_keys(loader *L, const pe_applied *ia, const yaml_node_t *at)
{
    const pe_intra_node *in = &L->s->cluster.intra_node;
    unsigned mine = in->topology == PE_TOPOLOGY_SWITCH ? PE_F_SWITCH : PE_F_FULL_MESH;
    pe_status st = PE_OK;
    for (size_t i = 0; i < pe_fields_intra_node.count; i++) {
        const pe_field *f = &pe_fields_intra_node.fields[i];
        if ((f->flags & mine) && !ia->set[i]) {
            char why[96];
            snprintf(why, sizeof why, " (topology %s needs %s)", pe_topology_name(in->topology),
                     mine == PE_F_SWITCH ? "bandwidth_gb_s" : "links and link_gb_s");
            st = worse(st,
                       missing(L, &pe_fields_intra_node, at, "cluster.intra_node", f->key, why));
        }
    }
    return st;
}

/* intra_node: required when G > 1 (docs/model.md §0); complete when given.
 * g_known: gpus_per_node loaded. */
static pe_status load_intra(loader *L, const yaml_node_t *node, const pe_layer *layers,
                            size_t n, const pe_applied *a, bool g_known)
{
    const pe_ydoc *d = L->d;
    pe_cluster *c = &L->s->cluster;
    size_t ii = IDX(pe_fields_cluster, "intra_node");
    pe_layer il[PE_MAX_LAYERS];
    sub_layers(a, ii, layers, n, il);
    const yaml_node_t *in_file = il[n - 1].node;
    pe_status st;
    if (in_file && (st = keep(L, y_want_map(d, in_file, "cluster.intra_node", L->err))))
        return st;
    if (!a->set[ii]) {
        if (g_known && c->gpus_per_node > 1)
            return missing(L, &pe_fields_cluster, node, "cluster", "intra_node",
                           " (needed when gpus_per_node > 1)");
        return PE_OK;
    }
    pe_applied ia;
    st = apply(L, &pe_fields_intra_node, il, n, "cluster.intra_node", &c->intra_node, &ia);
    if (!st)
        st = keep(L, y_check_topology(il, "cluster.intra_node", &c->intra_node, &ia, L->err));
    const yaml_node_t *at = in_file ? in_file : node;
    st = worse(st, check_required(L, &pe_fields_intra_node, &ia, at, "cluster.intra_node"));
    if (!st)
        st = check_topology_keys(L, &ia, at);
    c->intra_node.present = true;
    return st;
}

/* inter_node: required when nodes > 1 (docs/model.md §0). */
static pe_status load_inter(loader *L, const yaml_node_t *node, const pe_layer *layers,
                            size_t n, const pe_applied *a, bool nodes_known)
{
    const pe_ydoc *d = L->d;
    pe_cluster *c = &L->s->cluster;
    size_t ei = IDX(pe_fields_cluster, "inter_node");
    pe_layer el[PE_MAX_LAYERS];
    sub_layers(a, ei, layers, n, el);
    const yaml_node_t *ex_file = el[n - 1].node;
    pe_status st;
    if (ex_file && (st = keep(L, y_want_map(d, ex_file, "cluster.inter_node", L->err))))
        return st;
    if (!a->set[ei]) {
        if (nodes_known && c->nodes > 1)
            return missing(L, &pe_fields_cluster, node, "cluster", "inter_node",
                           " (needed when nodes > 1)");
        return PE_OK;
    }
    pe_applied ea;
    st = apply(L, &pe_fields_inter_node, el, n, "cluster.inter_node", &c->inter_node, &ea);
    st = worse(st, check_required(L, &pe_fields_inter_node, &ea, ex_file ? ex_file : node,
                                  "cluster.inter_node"));
    c->inter_node.present = true;
    return st;
}

/* One cluster into L->s->cluster: the preset pn names (cluster.preset, or an
 * item of sweep.cluster; NULL: none), then the file's cluster: block (node;
 * NULL when the file has none), then `own`, a sweep.cluster item's mapping
 * (NULL when the item is a name). `at`: where a rule between keys points. */
static pe_status load_one_cluster(loader *L, const yaml_node_t *node, const yaml_node_t *pn,
                                  const char *ppath, const yaml_node_t *own,
                                  const yaml_node_t *at)
{
    pe_cluster *c = &L->s->cluster;
    const pe_ydoc *d = L->d;
    pe_layer layers[PE_MAX_LAYERS] = {{NULL, NULL}};
    size_t n = 1;
    if (pn) {
        const pe_preset *preset;
        pe_status st = find_preset(L, pn, ppath, "clusters", "cluster", &preset);
        if (st)
            return st;
        n = chain_layers(L, preset, layers);
        snprintf(c->preset, sizeof c->preset, "%s", preset->name);
    }
    layers[n++] = (pe_layer){d, node};
    if (own)
        layers[n++] = (pe_layer){d, own};
    pe_applied a;
    pe_status top = apply(L, &pe_fields_cluster, layers, n, "cluster", c, &a);
    top = worse(top, check_required(L, &pe_fields_cluster, &a, at, "cluster"));
    /* N = nodes·G must itself be a whole number the model can hold. */
    if (!top && c->nodes > PE_INT_MAX / c->gpus_per_node)
        top = bad(L, d, at,
                  "cluster.nodes * cluster.gpus_per_node must be at most 2^53, got %lld * %lld",
                  (long long)c->nodes, (long long)c->gpus_per_node);
    if (top == PE_INTERNAL)
        return top;
    /* R may exceed hbm_gib (docs/scenarios.md: R >= 0 is the spec's only
     * rule): every plan is then over_memory, with a negative headroom. */
    pe_status st = load_gpu(L, at, layers, n, &a);
    st = worse(st, load_intra(L, at, layers, n, &a, top == PE_OK));
    return worse(st, worse(top, load_inter(L, at, layers, n, &a, top == PE_OK)));
}

/* sweep.KEY's value node, or NULL (docs/sweeps.md "Sweeping the design"). */
static const yaml_node_t *sweep_key_node(const loader *L, const char *key)
{
    const yaml_node_t *sweep = L->top.value[IDX(pe_fields_scenario, "sweep")];
    return sweep && sweep->type == YAML_MAPPING_NODE ? y_map_get(L->d, sweep, key) : NULL;
}

static const yaml_node_t *sweep_cluster_node(const loader *L)
{
    return sweep_key_node(L, "cluster");
}

/* Item i of sweep.cluster: its preset's node and its own mapping (NULL for a
 * name); a repeat of an earlier item's preset, or a key the design owns, is
 * refused. */
static pe_status cluster_item(loader *L, const yaml_node_t *item, size_t i, const char *ip,
                              const yaml_node_t **pn, const yaml_node_t **own)
{
    const pe_ydoc *d = L->d;
    const pe_sweep *sw = &L->s->sweep;
    *own = item->type == YAML_MAPPING_NODE ? item : NULL;
    *pn = *own ? y_map_get(d, item, "preset") : item;
    if (*own && !*pn)
        return bad(L, d, item, "%s: missing required key 'preset' (each item of sweep.cluster "
                               "names a catalog cluster preset)", ip);
    if ((*pn)->type != YAML_SCALAR_NODE) {
        char desc[64];
        y_describe(*pn, desc, sizeof desc);
        return bad(L, d, *pn, "%s: expected a cluster preset name, got %s", ip, desc);
    }
    const yaml_node_t *sweep = L->top.value[IDX(pe_fields_scenario, "sweep")];
    const char *sizer = y_map_get(d, sweep, "nodes") ? "nodes" : "gpus";
    const yaml_node_t *swept = y_map_get(d, sweep, sizer), *mine = y_map_get(d, *own, "nodes");
    if (swept && mine)
        return bad(L, d, mine,
                   "%s.nodes: sweep.%s (line %d) sizes the cluster; give the nodes in one place",
                   ip, sizer, y_line(swept));
    for (size_t j = 0; j < i; j++)
        if (strcmp(sw->clusters[j].preset, y_text(*pn)) == 0)
            return bad(L, d, *pn,
                       "%s: the preset '%s' repeats sweep.cluster[%zu] (a value may appear once "
                       "in a list)", ip, y_text(*pn), j);
    return PE_OK;
}

/* One price for every GPU type of sweep.cluster would make each type's
 * cost wrong: each takes its preset's, or its item's own. */
static pe_status check_common_price(loader *L, const yaml_node_t *node, size_t n)
{
    const yaml_node_t *price = y_map_get(L->d, node, "cost_per_gpu_hour");
    if (!price || n < 2)
        return PE_OK;
    return bad(L, L->d, price,
               "cluster.cost_per_gpu_hour: one price for every type of sweep.cluster; give each "
               "its own (its preset's, or an item {preset: NAME, cost_per_gpu_hour: P})");
}

/* sweep.cluster: each item loaded as cluster: with its preset over the
 * file's cluster: block (node, may be NULL: what is common); the axis'
 * values are the items' indices, and the scenario keeps the first. */
static pe_status load_cluster_list(loader *L, const yaml_node_t *node, const yaml_node_t *list)
{
    pe_scenario *s = L->s;
    const pe_ydoc *d = L->d;
    pe_axis *ax = &s->sweep.cluster;
    const yaml_node_t *twice = y_map_get(d, node, "preset");
    ax->present = true, ax->line = y_line(list), ax->col = y_col(list);
    if (twice)
        return bad(L, d, list,
                   "sweep.cluster and cluster.preset (line %d) both set the cluster preset; give "
                   "it in one place: a list in sweep.cluster, or one preset in cluster.preset",
                   y_line(twice));
    if (list->type == YAML_MAPPING_NODE)
        return bad(L, d, list, "sweep.cluster: expected a list or a single value, got a mapping");
    const bool seq = list->type == YAML_SEQUENCE_NODE;
    const size_t n = seq ? (size_t)(list->data.sequence.items.top - list->data.sequence.items.start)
                         : 1;
    if (n == 0)
        return bad(L, d, list, "sweep.cluster: empty list; give at least one value");
    ax->values = calloc(n, sizeof *ax->values);
    s->sweep.clusters = calloc(n, sizeof *s->sweep.clusters);
    if (!ax->values || !s->sweep.clusters)
        return out_of_memory(L);
    const pe_cluster fresh = s->cluster; /* the defaults: each type starts from them */
    pe_status st = check_common_price(L, node, n);
    for (size_t i = 0; i < n && st != PE_INTERNAL; i++) {
        const yaml_node_t *item = seq ? ydoc_node(d, list->data.sequence.items.start[i]) : list;
        char ip[PE_YPATH_MAX], pp[PE_YPATH_MAX];
        y_path_index(ip, "sweep.cluster", i);
        const yaml_node_t *pn, *own;
        pe_status is = cluster_item(L, item, i, seq ? ip : "sweep.cluster", &pn, &own);
        y_path(pp, seq ? ip : "sweep.cluster", "preset");
        s->cluster = fresh;
        if (!is)
            is = load_one_cluster(L, node, pn, own ? pp : (seq ? ip : "sweep.cluster"), own,
                                  node ? node : item);
        s->sweep.clusters[i] = s->cluster;
        ax->values[ax->count++] = (int64_t)i;
        st = worse(st, is);
    }
    s->cluster = s->sweep.clusters[0];
    return st;
}

static pe_status load_cluster(loader *L, const yaml_node_t *node)
{
    const yaml_node_t *list = sweep_cluster_node(L);
    pe_status st = node ? keep(L, y_want_map(L->d, node, "cluster", L->err)) : PE_OK;
    if (st)
        return st;
    if (list)
        return load_cluster_list(L, node, list);
    return load_one_cluster(L, node, y_map_get(L->d, node, "preset"), "cluster.preset", NULL,
                            node);
}

/* The clusters a design may take: sweep.cluster's, else the scenario's one. */
static size_t design_clusters(const pe_scenario *s, const pe_cluster **c)
{
    *c = s->sweep.clusters ? s->sweep.clusters : &s->cluster;
    return s->sweep.clusters ? s->sweep.cluster.count : 1;
}

/* " (sweep.cluster: NAME)": which type of the list a rule is about; "" without one. */
static const char *cluster_note(const pe_scenario *s, const pe_cluster *c, char *buf, size_t size)
{
    buf[0] = '\0';
    if (s->sweep.clusters)
        snprintf(buf, size, " (sweep.cluster: %s)", c->preset);
    return buf;
}

/* ------------------------------------------------------------ framework */

/* A19: recompute_modules' mla_up_proj recomputes MLA's up-projections, so it
 * needs attention: mla; and selective_recompute op (A15) is another answer
 * to what recompute: selective keeps. */
static pe_status check_recompute_modules(loader *L, const pe_framework *fw, const pe_applied *a,
                                         const pe_layer *layers)
{
    const size_t ri = IDX(pe_fields_framework, "recompute_modules");
    if (!a->set[ri] || fw->recompute_modules != PE_RECOMPUTE_MODULES_NORM_MLA_MOE_ACT)
        return PE_OK;
    const yaml_node_t *at = a->value[ri];
    const pe_ydoc *d = layers[a->layer[ri]].doc;
    if (L->model_ok && L->s->model.attention != PE_ATTENTION_MLA)
        return bad(L, d, at,
                   "framework.recompute_modules: layernorm mla_up_proj moe_act needs model "
                   "attention: mla (mla_up_proj recomputes MLA's up-projections)");
    if (fw->selective_recompute == PE_SELECTIVE_OP)
        return bad(L, d, at,
                   "framework.recompute_modules: layernorm mla_up_proj moe_act and "
                   "selective_recompute: op both say what recompute: selective keeps; give one");
    return PE_OK;
}

/* A23: Megatron-Core's TransformerConfig refuses cpu_offloading_num_layers
 * outside [0, num_layers) ("CPU offloading can be done only for layers less
 * than num_layers"). */
static pe_status check_cpu_offloading(loader *L, const pe_framework *fw, const pe_applied *a,
                                      const pe_layer *layers)
{
    const size_t ni = IDX(pe_fields_framework, "cpu_offloading_num_layers");
    if (!fw->cpu_offloading || !a->set[ni] || !L->model_ok ||
        fw->cpu_offloading_num_layers < L->s->model.layers)
        return PE_OK;
    return bad(L, layers[a->layer[ni]].doc, a->value[ni],
               "framework.cpu_offloading_num_layers: %lld must be below model.layers (%lld), "
               "as Megatron-Core requires",
               (long long)fw->cpu_offloading_num_layers, (long long)L->s->model.layers);
}

/* One of DeepSpeed's sizes below that accepts auto: a number outside the
 * key's range, or anything but a number, is refused saying auto is accepted
 * too; a number in range (or one too large for a double: y_get_field's
 * message) is typed as y_apply would. */
static pe_status load_deepspeed_auto_size(loader *L, const pe_ydoc *d, const yaml_node_t *v,
                                          const char *path, const pe_field *f, double *dst)
{
    const pe_ykind k = y_kind(v);
    if (k != PE_Y_INT && k != PE_Y_FLOAT) {
        char desc[128];
        y_describe(v, desc, sizeof desc);
        return bad(L, d, v, "%s: expected auto or a number >= 0, got %s", path, desc);
    }
    const double x = strtod(y_text(v), NULL);
    if (isfinite(x) && !fields_in_range(f->range, x))
        return bad(L, d, v, "%s must be auto or %s, got %.*s", path, fields_range_text(f->range),
                   (int)y_len(v), y_text(v));
    int64_t iv = 0;
    return keep(L, y_get_field(d, v, path, f, &iv, dst, L->err));
}

/* A28, A29, M18: DeepSpeed's sizes. Hugging Face's Trainer fills three of
 * them when a config says "auto" (transformers integrations/deepspeed.py,
 * HfTrainerDeepSpeedConfig.trainer_config_finalize: reduce_bucket_size
 * hidden², stage3_prefetch_bucket_size 0.9·hidden², stage3_param_persistence_
 * threshold 10·hidden): auto is stored as PE_DS_AUTO and resolved from the
 * model by the evaluator. sub_group_size (M18) is an integer >= 0 with no
 * auto (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig:
 * sub_group_size: int = Field(1e9, ge=0)): "auto" is refused saying so. Any
 * other value is a number >= 0. overlap_comm is auto (DeepSpeed's None:
 * true at stage 3 only) or a boolean. */
static pe_status load_deepspeed_sizes(loader *L, pe_framework *fw, const pe_applied *a,
                                      const pe_layer *layers)
{
    static const char *const keys[] = {"reduce_bucket_size", "stage3_prefetch_bucket_size",
                                       "stage3_param_persistence_threshold", "sub_group_size"};
    static const bool auto_ok[] = {true, true, true, false};
    double *const dst[] = {&fw->reduce_bucket_size, &fw->stage3_prefetch_bucket_size,
                           &fw->stage3_param_persistence_threshold, &fw->sub_group_size};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const size_t i = IDX(pe_fields_framework, keys[k]);
        if (!a->set[i])
            continue;
        const yaml_node_t *v = a->value[i];
        const pe_ydoc *d = layers[a->layer[i]].doc;
        const pe_field *f = &pe_fields_framework.fields[i];
        char fp[PE_YPATH_MAX];
        y_path(fp, "framework", keys[k]);
        const bool is_auto = y_is_plain_word(v, "auto");
        pe_status st = PE_OK;
        if (is_auto && auto_ok[k])
            *dst[k] = PE_DS_AUTO;
        else if (is_auto)
            st = bad(L, d, v,
                     "%s: expected a number of elements >= 0, got \"auto\" (DeepSpeed has no "
                     "auto for it, and Hugging Face's Trainer fills auto only in "
                     "reduce_bucket_size, stage3_prefetch_bucket_size and "
                     "stage3_param_persistence_threshold)",
                     fp);
        else if (auto_ok[k])
            st = load_deepspeed_auto_size(L, d, v, fp, f, dst[k]);
        else {
            int64_t iv = 0;
            st = keep(L, y_get_field(d, v, fp, f, &iv, dst[k], L->err));
        }
        if (st)
            return st;
    }
    const size_t oi = IDX(pe_fields_framework, "overlap_comm"); /* auto, or true/false */
    if (!a->set[oi] || y_is_plain_word(a->value[oi], "auto"))
        return PE_OK;
    bool on = false;
    const pe_ydoc *d = layers[a->layer[oi]].doc;
    if (y_get_bool(d, a->value[oi], "framework.overlap_comm", &on, L->err))
        return bad(L, d, a->value[oi], "framework.overlap_comm: expected auto, true or false, got \"%.*s\"",
                   (int)y_len(a->value[oi]), y_text(a->value[oi]));
    fw->overlap_comm = on ? PE_DS_OVERLAP_TRUE : PE_DS_OVERLAP_FALSE;
    return PE_OK;
}

/* A28, A29, M18 are terms of the phases (M9): deepspeed_zero without
 * memory_by_phase would change nothing, which a user would not expect. */
static pe_status check_deepspeed_zero(loader *L, const pe_framework *fw, const pe_applied *a,
                                      const pe_layer *layers)
{
    const size_t di = IDX(pe_fields_framework, "deepspeed_zero");
    if (!fw->deepspeed_zero || fw->memory_by_phase)
        return PE_OK;
    return bad(L, layers[a->layer[di]].doc, a->value[di],
               "framework.deepspeed_zero: true needs memory_by_phase: true (A28, A29 and M18 "
               "are buffers of the step's phases, docs/model.md §12)");
}

/* A30, A31 count Transformer Engine's layers, which Megatron-LM's legacy
 * model (A17, its own layers) does not run: one of the two describes a run. */
static pe_status check_te_saved_tensors(loader *L, const pe_framework *fw, const pe_applied *a,
                                        const pe_layer *layers)
{
    const size_t ti = IDX(pe_fields_framework, "te_saved_tensors");
    if (!fw->te_saved_tensors || !fw->megatron_legacy_model)
        return PE_OK;
    return bad(L, layers[a->layer[ti]].doc, a->value[ti],
               "framework.te_saved_tensors: true and megatron_legacy_model: true cannot both "
               "hold (A30, A31 count Transformer Engine's layers, A17 the legacy model's own, "
               "docs/model.md §12)");
}

/* framework: a catalog name, or {preset: NAME, keys...} (docs/model.md §12). Its
 * overlap keys become the scenario's overlap defaults (the scenario's own
 * overlap: is applied after). Under fidelity: textbook it is read and
 * checked but has no effect. */
static pe_status load_framework(loader *L, const yaml_node_t *node, const char *path)
{
    pe_scenario *s = L->s;
    const pe_ydoc *d = L->d;
    const bool shorthand = y_is_string(node);
    pe_layer layers[PE_MAX_LAYERS] = {{NULL, NULL}, {d, shorthand ? NULL : node}};
    size_t n = 2;
    pe_status st;
    if (!shorthand && (st = keep(L, y_want_map(d, node, "framework", L->err))))
        return st;
    const yaml_node_t *pn = shorthand ? node : y_map_get(d, node, "preset");
    pe_framework fw;
    memset(&fw, 0, sizeof fw);
    fields_store_defaults(&pe_fields_framework, &fw); /* the neutral values */
    if (pn) {
        const pe_preset *p = NULL;
        st = find_preset(L, pn, shorthand ? path : "framework.preset", "frameworks", "framework",
                         &p);
        if (st)
            return st;
        n = chain_layers(L, p, layers) + 1;
        layers[n - 1] = (pe_layer){d, shorthand ? NULL : node};
        snprintf(fw.name, sizeof fw.name, "%s", p->name);
    }
    pe_applied a;
    st = apply(L, &pe_fields_framework, layers, n, "framework", &fw, &a);
    if (st == PE_INTERNAL)
        return st;
    size_t fi = IDX(pe_fields_framework, "flags"), oi = IDX(pe_fields_framework, "overlap");
    if (a.set[fi])
        st = worse(st, keep(L, y_get_label(layers[a.layer[fi]].doc, a.value[fi],
                                           "framework.flags", fw.flags, sizeof fw.flags,
                                           L->err)));
    pe_overlap ov = s->overlap;
    if (a.set[oi]) {
        pe_layer ol[PE_MAX_LAYERS];
        sub_layers(&a, oi, layers, n, ol);
        pe_applied oa;
        st = worse(st, apply(L, &pe_fields_overlap, ol, n, "framework.overlap", &ov, &oa));
    }
    st = worse(st, check_recompute_modules(L, &fw, &a, layers));
    st = worse(st, check_cpu_offloading(L, &fw, &a, layers));
    if (!st)
        st = load_deepspeed_sizes(L, &fw, &a, layers);
    st = worse(st, check_deepspeed_zero(L, &fw, &a, layers));
    st = worse(st, check_te_saved_tensors(L, &fw, &a, layers));
    if (st || s->fidelity == PE_FIDELITY_TEXTBOOK)
        return st;
    fw.present = true;
    s->framework = fw;
    s->overlap = ov;
    return PE_OK;
}

/* ------------------------------------------------------------ simple mappings */

static pe_status load_simple(loader *L, const pe_fieldset *set, const yaml_node_t *node,
                             void *base);

/* sweep.framework: each item loaded as framework: NAME, then the scenario's
 * overlap: over its defaults; the scenario keeps the first. */
static pe_status load_framework_list(loader *L, const yaml_node_t *framework,
                                     const yaml_node_t *list, const yaml_node_t *overlap)
{
    pe_scenario *s = L->s;
    const pe_ydoc *d = L->d;
    pe_axis *ax = &s->sweep.framework;
    ax->present = true, ax->line = y_line(list), ax->col = y_col(list);
    if (framework)
        return bad(L, d, list,
                   "sweep.framework and framework (line %d) both set the framework; give it in "
                   "one place: a list in sweep.framework, or one preset in framework",
                   y_line(framework));
    if (list->type == YAML_MAPPING_NODE)
        return bad(L, d, list, "sweep.framework: expected a list or a single value, got a mapping");
    const bool seq = list->type == YAML_SEQUENCE_NODE;
    const size_t n =
        seq ? (size_t)(list->data.sequence.items.top - list->data.sequence.items.start) : 1;
    if (n == 0)
        return bad(L, d, list, "sweep.framework: empty list; give at least one value");
    ax->values = calloc(n, sizeof *ax->values);
    s->sweep.frameworks = calloc(n, sizeof *s->sweep.frameworks);
    s->sweep.framework_overlaps = calloc(n, sizeof *s->sweep.framework_overlaps);
    if (!ax->values || !s->sweep.frameworks || !s->sweep.framework_overlaps)
        return out_of_memory(L);
    const pe_overlap fresh = s->overlap;
    const pe_framework none = s->framework;
    pe_status st = PE_OK;
    for (size_t i = 0; i < n && st == PE_OK; i++) {
        const yaml_node_t *item = seq ? ydoc_node(d, list->data.sequence.items.start[i]) : list;
        char ip[PE_YPATH_MAX];
        y_path_index(ip, "sweep.framework", i);
        for (size_t j = 0; j < i && item->type == YAML_SCALAR_NODE; j++)
            if (strcmp(s->sweep.frameworks[j].name, y_text(item)) == 0)
                return bad(L, d, item,
                           "%s: the preset '%s' repeats sweep.framework[%zu] (a value may "
                           "appear once in a list)", ip, y_text(item), j);
        if (!y_is_string(item))
            return bad(L, d, item, "%s: expected a framework preset name", seq ? ip : "sweep.framework");
        s->overlap = fresh, s->framework = none;
        st = load_framework(L, item, seq ? ip : "sweep.framework");
        if (!st && overlap) /* the scenario's overlap: over this framework's defaults */
            st = load_simple(L, &pe_fields_overlap, overlap, &s->overlap);
        snprintf(s->framework.name, sizeof s->framework.name, "%s", y_text(item));
        s->sweep.frameworks[i] = s->framework;
        s->sweep.framework_overlaps[i] = s->overlap;
        ax->values[ax->count++] = (int64_t)i;
    }
    s->framework = s->sweep.frameworks[0];
    s->overlap = s->sweep.framework_overlaps[0];
    return st;
}

/* framework: (its overlap defaults), then the scenario's overlap:; under
 * fidelity: textbook every refinement back to neutral (docs/model.md §12). */
static pe_status load_framework_overlap(loader *L, const yaml_node_t *framework,
                                        const yaml_node_t *overlap)
{
    const yaml_node_t *list = sweep_key_node(L, "framework");
    pe_status st = list       ? load_framework_list(L, framework, list, overlap)
                   : framework ? load_framework(L, framework, "framework")
                               : PE_OK;
    if (overlap && !list)
        st = worse(st, load_simple(L, &pe_fields_overlap, overlap, &L->s->overlap));
    if (L->s->fidelity == PE_FIDELITY_TEXTBOOK)
        scenario_force_textbook(L->s);
    return st;
}

static pe_status load_simple(loader *L, const pe_fieldset *set, const yaml_node_t *node,
                             void *base)
{
    pe_status st = keep(L, y_want_map(L->d, node, set->path, L->err));
    if (st)
        return st;
    pe_layer layer = {L->d, node};
    pe_applied a;
    st = apply(L, set, &layer, 1, set->path, base, &a);
    return worse(st, check_required(L, set, &a, node, set->path));
}

/* ------------------------------------------------------------ plans */

/* Is t a plan's canonical text (core/canonical.h)? When it is not, and it
 * begins as one (dp and a digit), *why says what is wrong with it; else
 * *why is "" (a plan name, misspelt or not, gets no lecture on canonical
 * texts). */
static bool canonical_valid(const loader *L, const char *t, char *why, size_t size)
{
    pe_plan p;
    pe_error e;
    why[0] = '\0';
    if (canonical_parse(t, &L->s->overlap, &p, &e) == PE_OK)
        return true;
    if (strncmp(t, "dp", 2) == 0 && t[2] >= '0' && t[2] <= '9')
        snprintf(why, size, " (as a canonical text: %.400s)", e.msg);
    return false;
}

/* docs/scenarios.md "Plans": an explicit plan's literal defaults (fields.c);
 * its overlap is the scenario's, merged key by key in load_plan. */
static void plan_defaults(const loader *L, const yaml_node_t *item, pe_plan *p)
{
    memset(p, 0, sizeof *p);
    fields_store_defaults(&pe_fields_plan, p);
    p->overlap = L->s->overlap;
    p->line = y_line(item);
    p->col = y_col(item);
}

/* An explicit dp: auto must divide, N/(t·p·c) whole (docs/scenarios.md "Plans"). */
static pe_status plan_dp_auto(loader *L, const yaml_node_t *dpn, const char *fp, pe_plan *p)
{
    if (!L->cluster_ok)
        return PE_OK; /* N is unknown: the cluster's error is reported */
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
        return bad(L, L->d, dpn,
                   "%s: auto needs N/(tp*pp*cp) to be whole, but N = %lld GPUs and "
                   "tp*pp*cp = %lld*%lld*%lld",
                   fp, (long long)n, (long long)p->tp, (long long)p->pp, (long long)p->cp);
    p->dp = n / prod;
    return PE_OK;
}

/* dp: a whole number or auto (required). keys_ok: tp, pp and cp loaded. */
static pe_status plan_dp(loader *L, const yaml_node_t *item, const char *path,
                         const pe_applied *a, bool keys_ok, pe_plan *p)
{
    size_t di = IDX(pe_fields_plan, "dp");
    if (!a->set[di])
        return missing(L, &pe_fields_plan, item, path, "dp", "");
    char fp[PE_YPATH_MAX];
    y_path(fp, path, "dp");
    const yaml_node_t *dpn = a->value[di];
    if (y_is_plain_word(dpn, "auto"))
        return keys_ok ? plan_dp_auto(L, dpn, fp, p) : PE_OK;
    if (y_kind(dpn) != PE_Y_INT) {
        char desc[128];
        y_describe(dpn, desc, sizeof desc);
        return bad(L, L->d, dpn, "%s: expected an integer or auto, got %s", fp, desc);
    }
    return keep(L, y_get_int(L->d, dpn, fp, PE_RANGE_WHOLE, &p->dp, L->err));
}

/* pipeline_layout: a list of whole numbers >= 0 (layers per virtual stage)
 * or Megatron-Core's string, into p->layout. */
static pe_status plan_layout_read(loader *L, const yaml_node_t *n, const char *fp, pe_plan *p)
{
    char why[200];
    if (y_is_string(n)) {
        char text[4096];
        if (y_len(n) >= sizeof text)
            return bad(L, L->d, n, "%s: longer than %zu characters", fp, sizeof text - 1);
        memcpy(text, y_text(n), y_len(n));
        text[y_len(n)] = '\0';
        if (!pipeline_layout_from_text(text, &p->layout, why, sizeof why))
            return bad(L, L->d, n, "%s: %s", fp, why);
        return PE_OK;
    }
    if (y_kind(n) != PE_Y_SEQ) {
        y_describe(n, why, sizeof why);
        return bad(L, L->d, n, "%s: expected a list of layers per virtual stage or a layout "
                               "string (\"E|t*4|t*4L\"), got %s", fp, why);
    }
    const yaml_node_item_t *it = n->data.sequence.items.start, *end = n->data.sequence.items.top;
    if (end - it > PE_LAYOUT_MAX)
        return bad(L, L->d, n, "%s: more than %d virtual stages", fp, PE_LAYOUT_MAX);
    if (it == end)
        return bad(L, L->d, n, "%s: an empty list (give the layers of each virtual stage)", fp);
    for (int32_t k = 0; it < end; it++, k++) {
        char ip[PE_YPATH_MAX];
        int64_t v = 0;
        y_path_index(ip, fp, (size_t)k);
        pe_status st = keep(L, y_get_int(L->d, ydoc_node(L->d, *it), ip, PE_RANGE_NONNEG, &v,
                                         L->err));
        if (st)
            return st;
        p->layout.layers[k] = (int32_t)(v > INT32_MAX ? INT32_MAX : v);
        p->layout.count = k + 1;
    }
    return PE_OK;
}

/* pipeline_layout against the plan and the model (V3″, core/pipeline_layout.h):
 * virtual_stages not given is the layout's count/pp; first/last_stage_layers
 * say the same thing another way and are refused beside it; the canonical
 * text that names the plan must fit. */
static pe_status plan_layout(loader *L, const char *path, const pe_applied *a, pe_plan *p)
{
    const size_t li = IDX(pe_fields_plan, "pipeline_layout");
    if (!a->set[li])
        return PE_OK;
    char fp[PE_YPATH_MAX], why[200];
    y_path(fp, path, "pipeline_layout");
    const yaml_node_t *n = a->value[li];
    pe_status st = plan_layout_read(L, n, fp, p);
    if (st)
        return st;
    if (a->set[IDX(pe_fields_plan, "first_stage_layers")] ||
        a->set[IDX(pe_fields_plan, "last_stage_layers")])
        return bad(L, L->d, n, "%s: give either pipeline_layout or first_stage_layers/"
                               "last_stage_layers, not both", fp);
    if (!a->set[IDX(pe_fields_plan, "virtual_stages")] && p->pp > 0 &&
        p->layout.count % p->pp == 0)
        p->virtual_stages = p->layout.count / p->pp;
    if (L->model_ok && pipeline_layout_fault(&p->layout, L->s->model.layers, p->pp,
                                             p->virtual_stages, why, sizeof why))
        return bad(L, L->d, n, "%s: %s", fp, why);
    char canon[1024];
    if (canonical_write(p, canon, sizeof canon) >= PE_NAME_MAX)
        return bad(L, L->d, n, "%s: too irregular for the plan's canonical text (%zu bytes, at "
                               "most %d)", fp, strlen(canon), PE_NAME_MAX - 1);
    return PE_OK;
}

static pe_status load_plan(loader *L, const yaml_node_t *item, size_t index, pe_plan *p)
{
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "plans", index);
    plan_defaults(L, item, p);
    pe_status st = keep(L, y_want_map(L->d, item, path, L->err));
    if (st)
        return st;
    pe_layer layer = {L->d, item};
    pe_applied a;
    pe_status keys = apply(L, &pe_fields_plan, &layer, 1, path, p, &a);
    size_t ni = IDX(pe_fields_plan, "name"), oi = IDX(pe_fields_plan, "overlap");
    size_t si = IDX(pe_fields_plan, "sequence_parallel");
    if (a.set[ni]) {
        y_path(fp, path, "name");
        st = keep(L, y_get_name(L->d, a.value[ni], fp, p->name, sizeof p->name, L->err));
        /* the name is a report cell: a spreadsheet runs one that starts
         * with = + - @ (after spaces) as a formula (core/spreadsheet.h) */
        size_t at, width;
        if (!st && spreadsheet_formula_start(p->name, strlen(p->name), &at, &width))
            st = keep(L, y_fail(L->err, L->d, a.value[ni],
                                "%s must not start with '%.*s': a spreadsheet opening the report "
                                "would run the cell as a formula", fp, (int)width, p->name + at));
    }
    if (a.set[oi]) {
        y_path(fp, path, "overlap");
        pe_layer ol = {L->d, a.value[oi]};
        pe_applied oa;
        pe_status os = keep(L, y_want_map(L->d, a.value[oi], fp, L->err));
        if (!os)
            os = apply(L, &pe_fields_overlap, &ol, 1, fp, &p->overlap, &oa);
        st = worse(st, os);
    }
    st = worse(st, worse(keys, plan_dp(L, item, path, &a, keys == PE_OK, p)));
    if (keys == PE_OK)
        st = worse(st, plan_layout(L, path, &a, p));
    p->sequence_parallel = scenario_sequence_parallel(p->tp, a.set[si], p->sequence_parallel);
    scenario_plan_defaults(p); /* etp = tp when not given */
    return st;
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

/* docs/scenarios.md "Plans": names unique among explicit plans; a default
 * name is the canonical text. Sorted, so a long list stays O(n log n). */
static pe_status check_plan_names(loader *L, const yaml_node_t *node)
{
    size_t n = L->s->plan_count;
    nameref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return out_of_memory(L);
    for (size_t i = 0; i < n; i++)
        refs[i] = (nameref){plan_effective_name(L, i), i};
    qsort(refs, n, sizeof *refs, nameref_cmp);
    pe_status st = PE_OK;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(refs[i].name, refs[i - 1].name) != 0)
            continue;
        size_t dup = refs[i].index, first = refs[i - 1].index;
        while (i + 1 < n && strcmp(refs[i + 1].name, refs[i].name) == 0)
            i++; /* one error per name: at its second occurrence */
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[dup]);
        const yaml_node_t *nn = y_map_get(L->d, item, "name");
        char q[96];
        const char *name = plan_effective_name(L, dup);
        y_quote(name, strlen(name), q, sizeof q);
        q[0] = q[strlen(q) - 1] = '\'';
        if (nn)
            st = bad(L, L->d, nn, "plans[%zu]: duplicate plan name %s (plans[%zu] has it too)",
                     dup, q, first);
        else
            st = bad(L, L->d, item,
                     "plans[%zu]: duplicate plan name %s (plans[%zu] has it too; an unnamed "
                     "plan is named by its canonical text): give one of them a name",
                     dup, q, first);
    }
    free(refs);
    return st;
}

static pe_status load_plans(loader *L, const yaml_node_t *node)
{
    pe_status st = keep(L, y_want_seq(L->d, node, "plans", L->err));
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return PE_OK;
    L->s->plans = calloc(n, sizeof *L->s->plans);
    L->canon = calloc(n, sizeof *L->canon);
    if (!L->s->plans || !L->canon)
        return out_of_memory(L);
    for (size_t i = 0; i < n && st != PE_INTERNAL; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        st = worse(st, load_plan(L, item, i, &L->s->plans[i]));
        L->s->plan_count = i + 1;
        canonical_write(&L->s->plans[i], L->canon[i], sizeof L->canon[i]);
    }
    return st ? st : check_plan_names(L, node);
}

/* ------------------------------------------------------------ sweep */

static pe_status sweep_unknown_key(loader *L, const yaml_node_t *k)
{
    const pe_ydoc *d = L->d;
    if (y_is_plain_word(k, "name"))
        return bad(L, d, k, "sweep cannot vary '%s' (a sweep takes the plan keys except name)",
                   y_text(k));
    const char *keys[PE_MAX_FIELDS];
    for (size_t i = 0; i < pe_fields_sweep.count; i++)
        keys[i] = pe_fields_sweep.fields[i].key;
    char q[96];
    y_quote(y_text(k), y_len(k), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    const char *sug = y_suggest(y_text(k), y_len(k), keys, pe_fields_sweep.count);
    char where[160];
    y_key_places(&pe_fields_sweep, y_text(k), y_len(k), where, sizeof where);
    if (where[0])
        return bad(L, d, k, "unknown key %s in sweep (%s belongs under %s)", q, q, where);
    if (sug)
        return bad(L, d, k, "unknown key %s in sweep (did you mean '%s'?)", q, sug);
    return bad(L, d, k, "unknown key %s in sweep (docs/scenarios.md lists the keys)", q);
}

typedef struct {
    int64_t value;
    size_t index;
} indexed_value;

static int cmp_indexed(const void *a, const void *b)
{
    const indexed_value *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* docs/scenarios.md "Sweep": a value may not repeat within one
 * list. The first item (in file order) that repeats an earlier one is
 * named; sorting keeps a long list linear-logarithmic. Called once every
 * item of the list parsed (ax->values[i] is item i). */
static pe_status check_sweep_repeats(loader *L, const yaml_node_t *list, const char *path,
                                     const pe_axis *ax)
{
    if (list->type != YAML_SEQUENCE_NODE || ax->count < 2)
        return PE_OK;
    indexed_value *v = malloc(ax->count * sizeof *v);
    if (!v)
        return out_of_memory(L);
    for (size_t i = 0; i < ax->count; i++)
        v[i] = (indexed_value){ax->values[i], i};
    qsort(v, ax->count, sizeof *v, cmp_indexed);
    size_t repeat = SIZE_MAX, earlier = 0;
    for (size_t i = 1; i < ax->count; i++)
        if (v[i].value == v[i - 1].value && v[i].index < repeat &&
            (i < 2 || v[i - 2].value != v[i].value)) { /* a run's second item */
            repeat = v[i].index;
            earlier = v[i - 1].index;
        }
    free(v);
    if (repeat == SIZE_MAX)
        return PE_OK;
    const yaml_node_t *item = ydoc_node(L->d, list->data.sequence.items.start[repeat]);
    char q[96];
    y_quote(y_text(item), y_len(item), q, sizeof q);
    return bad(L, L->d, item,
               "%s[%zu]: the value %s repeats %s[%zu] (a value may appear once in a list)", path,
               repeat, q, path, earlier);
}

/* The values of one sweep key v (a list or a single value) into ax. */
static pe_status load_axis_values(loader *L, const pe_field *f, const yaml_node_t *v,
                                  const char *path, pe_axis *ax)
{
    const pe_ydoc *d = L->d;
    char ip[PE_YPATH_MAX];
    size_t n = v->type == YAML_SEQUENCE_NODE
                   ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start)
                   : 1;
    if (n == 0)
        return bad(L, d, v, "%s: empty list; give at least one value", path);
    ax->values = calloc(n, sizeof *ax->values);
    ax->numbers = f->type == PE_FT_NUMBER ? calloc(n, sizeof *ax->numbers) : NULL;
    if (!ax->values || (f->type == PE_FT_NUMBER && !ax->numbers))
        return out_of_memory(L);
    pe_status st = PE_OK;
    for (size_t i = 0; i < n && st != PE_INTERNAL; i++) {
        const yaml_node_t *item =
            v->type == YAML_SEQUENCE_NODE ? ydoc_node(d, v->data.sequence.items.start[i]) : v;
        if (v->type == YAML_SEQUENCE_NODE)
            y_path_index(ip, path, i);
        else
            snprintf(ip, sizeof ip, "%s", path);
        if (y_is_plain_word(item, "auto")) {
            st = bad(L, d, item, "%s: auto stands alone, never inside a list (write %s: auto)",
                     ip, f->key);
            continue;
        }
        if (item->type != YAML_SCALAR_NODE) {
            char desc[64];
            y_describe(item, desc, sizeof desc);
            st = bad(L, d, item, "%s: expected a single value, got %s", ip, desc);
            continue;
        }
        double dv = 0;
        pe_status vs = keep(L, y_get_field(d, item, ip, f, &ax->values[ax->count], &dv, L->err));
        if (!vs && f->type == PE_FT_NUMBER) { /* a number axis: its bits, for the repeat check */
            ax->numbers[ax->count] = dv;
            memcpy(&ax->values[ax->count], &dv, sizeof dv);
        }
        if (!vs)
            ax->count++;
        st = worse(st, vs);
    }
    st = st ? st : check_sweep_repeats(L, v, path, ax);
    for (size_t i = 0; ax->numbers && i < ax->count; i++)
        ax->values[i] = (int64_t)i; /* a number axis' slots index its numbers */
    return st;
}

/* A design key (sweep.nodes, …) that the file also gives in its own place
 * (cluster.nodes, …): one value would silently win, so neither does. */
static pe_status design_set_twice(loader *L, const yaml_node_t *k, const char *key)
{
    static const char *const owners[] = {"cluster", "training", "model"};
    if (strcmp(key, "gpus") == 0 && y_map_get(L->d, L->top.value[IDX(pe_fields_scenario, "sweep")],
                                              "nodes"))
        return bad(L, L->d, k, "sweep.gpus and sweep.nodes both size the cluster; give one");
    if (strcmp(key, "gpus") == 0)
        key = "nodes"; /* gpus stands for cluster.nodes */
    for (size_t i = 0; i < sizeof DESIGN_KEYS / sizeof DESIGN_KEYS[0]; i++) {
        if (strcmp(DESIGN_KEYS[i].key, key) != 0)
            continue;
        const yaml_node_t *own = L->top.value[IDX(pe_fields_scenario, owners[i])];
        const yaml_node_t *at = own && own->type == YAML_MAPPING_NODE ? y_map_get(L->d, own, key)
                                                                      : NULL;
        if (at)
            return bad(L, L->d, k,
                       "sweep.%s and %s.%s (line %d) both set %s; give it in one place: a list "
                       "in sweep.%s, or one value in %s.%s",
                       y_text(k), owners[i], key, y_line(at), key, y_text(k), owners[i], key);
    }
    return PE_OK;
}

/* sweep.intra_node / sweep.inter_node: each key a number axis replacing
 * that cluster key (then not given in the file's cluster: block). */
static pe_status load_link_axes(loader *L, const pe_field *f, const yaml_node_t *v)
{
    const pe_ydoc *d = L->d;
    if (v->type != YAML_MAPPING_NODE) {
        char desc[64];
        y_describe(v, desc, sizeof desc);
        return bad(L, d, v, "sweep.%s: expected a mapping of its %s (%s: [...]), got %s", f->key,
                   strcmp(f->key, "overlap") == 0 ? "fractions" : "link numbers",
                   f->sub->fields[0].key, desc);
    }
    /* where the file gives the same keys: overlap:, cluster.intra_node, cluster.inter_node */
    const bool overlap = strcmp(f->key, "overlap") == 0;
    const yaml_node_t *own =
        overlap ? L->top.value[IDX(pe_fields_scenario, "overlap")]
                : y_map_get(d, L->top.value[IDX(pe_fields_scenario, "cluster")], f->key);
    char owner[PE_YPATH_MAX], keys[160] = "";
    y_path(owner, overlap ? "" : "cluster", f->key);
    for (size_t i = 0; i < f->sub->count; i++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s",
                 i == 0 ? "" : i + 1 == f->sub->count ? " and " : ", ", f->sub->fields[i].key);
    pe_status st = PE_OK;
    for (const yaml_node_pair_t *pr = v->data.mapping.pairs.start;
         pr < v->data.mapping.pairs.top && st != PE_INTERNAL; pr++) {
        const yaml_node_t *k = ydoc_node(d, pr->key), *val = ydoc_node(d, pr->value);
        const pe_field *lf = fields_find(f->sub, y_text(k), y_len(k));
        char path[PE_YPATH_MAX], base[PE_YPATH_MAX];
        y_path(base, "sweep", f->key);
        if (!lf) {
            char q[96];
            y_quote(y_text(k), y_len(k), q, sizeof q);
            st = worse(st, bad(L, d, k, "unknown key %s in %s (it sweeps %s)", q, base, keys));
            continue;
        }
        y_path(path, base, lf->key);
        const yaml_node_t *twice = y_map_get(d, own, lf->key);
        if (twice) {
            st = worse(st, bad(L, d, k,
                               "%s and %s.%s (line %d) both set %s; give it in one place: a list "
                               "in %s, or one value in %s.%s",
                               path, owner, lf->key, y_line(twice), lf->key, path, owner,
                               lf->key));
            continue;
        }
        pe_axis *ax = (pe_axis *)((char *)&L->s->sweep + lf->offset);
        ax->present = true, ax->line = y_line(val), ax->col = y_col(val);
        if (val->type == YAML_MAPPING_NODE)
            st = worse(st, bad(L, d, val, "%s: expected a list or a single value, got a mapping",
                               path));
        else
            st = worse(st, load_axis_values(L, lf, val, path, ax));
    }
    return st;
}

/* One key of sweep: a list, a single value or auto. */
static pe_status load_axis(loader *L, const yaml_node_t *k, const yaml_node_t *v)
{
    const pe_field *f = fields_find(&pe_fields_sweep, y_text(k), y_len(k));
    if (!f)
        return sweep_unknown_key(L, k);
    if (strcmp(f->key, "cluster") == 0 || strcmp(f->key, "framework") == 0)
        return PE_OK; /* loaded with cluster: and framework: (load_*_list) */
    if (f->type == PE_FT_MAP)
        return load_link_axes(L, f, v);
    pe_axis *ax = (pe_axis *)((char *)&L->s->sweep + f->offset);
    char path[PE_YPATH_MAX];
    y_path(path, "sweep", f->key);
    ax->present = true;
    ax->line = y_line(v);
    ax->col = y_col(v);
    pe_status twice = design_set_twice(L, k, f->key);
    if (twice)
        return twice;
    if (v->type == YAML_MAPPING_NODE)
        return bad(L, L->d, v, "%s: expected a list or a single value, got a mapping", path);
    if (y_is_plain_word(v, "auto")) {
        if (!(f->flags & PE_F_AUTO))
            return bad(L, L->d, v,
                       "%s: auto is not allowed for %s (only dp, tp, pp, cp, micro_batch, "
                       "virtual_stages and ep)",
                       path, f->key);
        ax->is_auto = true;
        return PE_OK;
    }
    return load_axis_values(L, f, v, path, ax);
}

/* docs/scenarios.md "Sweep": a sweep listing interleaved gives a v >= 2. */
static pe_status check_interleaved(loader *L, const yaml_node_t *node)
{
    const pe_sweep *sw = &L->s->sweep;
    for (size_t i = 0; i < sw->schedule.count; i++) {
        if (sw->schedule.values[i] != PE_SCHEDULE_INTERLEAVED)
            continue;
        bool ok = sw->virtual_stages.is_auto;
        for (size_t j = 0; j < sw->virtual_stages.count; j++)
            ok = ok || sw->virtual_stages.values[j] >= 2;
        if (ok)
            break;
        const yaml_node_t *sn = y_map_get(L->d, node, "schedule");
        const yaml_node_t *at = sn->type == YAML_SEQUENCE_NODE
                                    ? ydoc_node(L->d, sn->data.sequence.items.start[i])
                                    : sn;
        return bad(L, L->d, at,
                   "sweep.schedule lists interleaved, but sweep.virtual_stages gives no value "
                   ">= 2 (interleaved needs virtual_stages >= 2)");
    }
    return PE_OK;
}

/* sweep.gpus: the cluster sized by its GPUs in all, each a whole number of
 * nodes (N = nodes·G), so it becomes sweep.nodes. */
static pe_status design_gpus_as_nodes(loader *L, const yaml_node_t *node)
{
    pe_sweep *sw = &L->s->sweep;
    if (!sw->gpus.present)
        return PE_OK;
    const int64_t G = L->s->cluster.gpus_per_node;
    const yaml_node_t *list = y_map_get(L->d, node, "gpus");
    pe_status st = PE_OK;
    const pe_cluster *c;
    for (size_t i = 0, nc = design_clusters(L->s, &c); i < nc; i++)
        if (c[i].gpus_per_node != G)
            return bad(L, L->d, list,
                       "sweep.gpus: the types of sweep.cluster have nodes of %lld (%s) and %lld "
                       "(%s) GPUs; size them by sweep.nodes",
                       (long long)G, c[0].preset, (long long)c[i].gpus_per_node, c[i].preset);
    for (size_t i = 0; i < sw->gpus.count; i++)
        if (sw->gpus.values[i] % G != 0)
            st = worse(st, bad(L, L->d,
                               list->type == YAML_SEQUENCE_NODE
                                   ? ydoc_node(L->d, list->data.sequence.items.start[i])
                                   : list,
                               "sweep.gpus: %lld GPUs are not whole nodes of %lld "
                               "(cluster.gpus_per_node)",
                               (long long)sw->gpus.values[i], (long long)G));
    if (st != PE_OK)
        return st;
    sw->nodes = sw->gpus; /* the values move: gpus keeps none */
    sw->gpus = (pe_axis){.present = true, .line = sw->nodes.line, .col = sw->nodes.col};
    for (size_t i = 0; i < sw->nodes.count; i++)
        sw->nodes.values[i] /= G;
    return PE_OK;
}

/* The design axes' first values are the scenario's own (the design of
 * index 0: validate's facts, explain, html); every nodes value is checked
 * as cluster.nodes is (N within 2^53, a network between nodes). */
static pe_status check_design_nodes(loader *L, const yaml_node_t *node)
{
    pe_scenario *s = L->s;
    const pe_sweep *sw = &s->sweep;
    if (sw->global_batch.present)
        s->training.global_batch = sw->global_batch.values[0];
    if (sw->seq_len.present)
        s->model.seq_len = sw->seq_len.values[0];
    pe_status st = L->cluster_ok ? design_gpus_as_nodes(L, node) : PE_OK;
    if (!sw->nodes.present || st != PE_OK)
        return st;
    s->cluster.nodes = sw->nodes.values[0];
    const yaml_node_t *list = y_map_get(L->d, node, sw->gpus.present ? "gpus" : "nodes");
    const pe_cluster *c;
    const size_t nc = design_clusters(s, &c);
    char note[PE_NAME_MAX + 32];
    for (size_t i = 0; i < sw->nodes.count && L->cluster_ok; i++) {
        const yaml_node_t *at =
            list->type == YAML_SEQUENCE_NODE ? ydoc_node(L->d, list->data.sequence.items.start[i])
                                             : list;
        for (size_t k = 0; k < nc; k++) {
            const int64_t n = sw->nodes.values[i], G = c[k].gpus_per_node;
            pe_status ks = PE_OK;
            if (n > PE_INT_MAX / G)
                ks = bad(L, L->d, at,
                         "sweep.nodes * cluster.gpus_per_node must be at most 2^53, got %lld * "
                         "%lld%s",
                         (long long)n, (long long)G, cluster_note(s, &c[k], note, sizeof note));
            else if (n > 1 && !c[k].inter_node.present)
                ks = bad(L, L->d, at,
                         "sweep.nodes: %lld nodes need cluster.inter_node (the network between "
                         "nodes)%s",
                         (long long)n, cluster_note(s, &c[k], note, sizeof note));
            st = worse(st, ks);
            if (ks)
                break; /* one message an item */
        }
    }
    return st;
}

/* The link axes' clusters: every type takes them (its intra_node of the
 * axis' topology, its inter_node); the first values are the scenario's own
 * (the design of index 0). */
static pe_status check_link_axes(loader *L)
{
    pe_scenario *s = L->s;
    pe_sweep *sw = &s->sweep;
    const struct {
        pe_axis *ax;
        const char *group, *key;
        int need; /* 0 inter_node, 1 switch, 2 full_mesh, 3 any intra_node */
    } links[] = {{&sw->intra_bandwidth_gb_s, "intra_node", "bandwidth_gb_s", 1},
                 {&sw->intra_link_gb_s, "intra_node", "link_gb_s", 2},
                 {&sw->intra_latency_us, "intra_node", "latency_us", 3},
                 {&sw->inter_nic_gb_s, "inter_node", "nic_gb_s", 0},
                 {&sw->inter_latency_us, "inter_node", "latency_us", 0}};
    static const char *const lacks[] = {"has one node: nothing crosses inter_node",
                                        "has no intra_node of topology switch to vary",
                                        "has no intra_node of topology full_mesh to vary",
                                        "has no intra_node to vary"};
    static const size_t fields[] = {offsetof(pe_cluster, intra_node.bandwidth_gb_s),
                                    offsetof(pe_cluster, intra_node.link_gb_s),
                                    offsetof(pe_cluster, intra_node.latency_us),
                                    offsetof(pe_cluster, inter_node.nic_gb_s),
                                    offsetof(pe_cluster, inter_node.latency_us)};
    pe_cluster *c = sw->clusters ? sw->clusters : &s->cluster;
    const size_t nc = sw->clusters ? sw->cluster.count : 1;
    char note[PE_NAME_MAX + 32];
    for (size_t l = 0; l < sizeof links / sizeof links[0]; l++) {
        if (!links[l].ax->present || !links[l].ax->count)
            continue;
        const int need = links[l].need;
        for (size_t k = 0; k < nc; k++) {
            const pe_intra_node *in = &c[k].intra_node;
            const pe_topology want = need == 1 ? PE_TOPOLOGY_SWITCH : PE_TOPOLOGY_FULL_MESH;
            int64_t nodes = c[k].nodes; /* the most nodes of any design */
            for (size_t i = 0; i < sw->nodes.count; i++)
                nodes = sw->nodes.values[i] > nodes ? sw->nodes.values[i] : nodes;
            const bool ok = need == 0   ? c[k].inter_node.present && nodes > 1
                            : need == 3 ? in->present
                                        : in->present && in->topology == want;
            const yaml_node_t *group = y_map_get(L->d, L->top.value[IDX(pe_fields_scenario, "sweep")],
                                                 links[l].group);
            if (!ok)
                return bad(L, L->d, y_map_get(L->d, group, links[l].key),
                           "sweep.%s.%s: the cluster %s%s", links[l].group,
                           links[l].key, lacks[need], cluster_note(s, &c[k], note, sizeof note));
            /* the first value is the type's own (the design of index 0) */
            *(double *)((char *)&c[k] + fields[l]) = links[l].ax->numbers[0];
        }
        *(double *)((char *)&s->cluster + fields[l]) = links[l].ax->numbers[0];
    }
    return PE_OK;
}

/* sweep.overlap: its first values are the scenario's own overlap (the
 * design of index 0: validate's and run's facts, explain). */
static void overlap_first_values(pe_scenario *s)
{
    const pe_sweep *sw = &s->sweep;
    const pe_axis *axes[] = {&sw->overlap_tp, &sw->overlap_cp, &sw->overlap_dp, &sw->overlap_pp,
                             &sw->overlap_ep};
    double *fields[] = {&s->overlap.tp, &s->overlap.cp, &s->overlap.dp, &s->overlap.pp,
                        &s->overlap.ep};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        if (axes[i]->present && axes[i]->count)
            *fields[i] = axes[i]->numbers[0];
}

static pe_status load_sweep(loader *L, const yaml_node_t *node)
{
    pe_sweep *sw = &L->s->sweep;
    pe_status st = keep(L, y_want_map(L->d, node, "sweep", L->err));
    if (st)
        return st;
    sw->present = true;
    sw->line = y_line(node);
    sw->col = y_col(node);
    for (const yaml_node_pair_t *pr = node->data.mapping.pairs.start;
         pr < node->data.mapping.pairs.top && st != PE_INTERNAL; pr++)
        st = worse(st, load_axis(L, ydoc_node(L->d, pr->key), ydoc_node(L->d, pr->value)));
    if (!sw->dp.present)
        st = worse(st, missing(L, &pe_fields_sweep, node, "sweep", "dp", ""));
    st = st ? st : check_design_nodes(L, node);
    st = st || !L->cluster_ok ? st : check_link_axes(L);
    if (!st)
        overlap_first_values(L->s);
    return st ? st : check_interleaved(L, node);
}

/* ------------------------------------------------------------ expect */

static pe_status check_text_domain(loader *L, const yaml_node_t *n, const char *path,
                                   int column)
{
    /* Text columns with a closed set of values: a typo would only ever fail
     * the check, so it is a load error with "did you mean". */
    static const char *const status[] = {"ok", "over_time", "over_memory", "invalid", NULL};
    static const char *const rec[] = {"none", "selective", "full", NULL};
    static const char *const sch[] = {"1f1b",  "interleaved", "gpipe", "zb-h1",
                                      "zb-h2", "dualpipe",    NULL};
    const char *const *values = column == COL_STATUS      ? status
                                : column == COL_BOUND     ? pe_bound_values
                                : column == COL_RECOMPUTE ? rec
                                : column == COL_SCHEDULE  ? sch
                                                          : NULL;
    if (!values)
        return PE_OK;
    int ignored;
    return keep(L, y_get_enum(L->d, n, path, values, &ignored, L->err));
}

/* The report column a check's key k names (-1 and an error when none). */
static int check_column(loader *L, const yaml_node_t *k, const char *ipath, size_t max)
{
    int col = y_len(k) < max ? columns_find(y_text(k)) : -1;
    if (col == COL_SCENARIO) {
        bad(L, L->d, k,
            "%s.scenario: the scenario column cannot be checked (expect takes any report "
            "column except plan and scenario)",
            ipath);
        return -1;
    }
    if (col >= 0)
        return col;
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
        bad(L, L->d, k, "unknown key %s in %s (not a report column; did you mean '%s'?)", q,
            ipath, sug);
    else
        bad(L, L->d, k, "unknown key %s in %s (not a report column; docs/scenarios.md lists them)",
            q, ipath);
    return -1;
}

/* A numeric check: a bare number (exact), {value}, {value, rel_tol} or
 * {value, abs_tol}. */
static pe_status check_numeric(loader *L, const yaml_node_t *v, const char *path,
                               pe_expect_check *c)
{
    const pe_ydoc *d = L->d;
    if (v->type != YAML_MAPPING_NODE)
        return keep(L, y_get_number(d, v, path, PE_RANGE_NONE, &c->value, L->err));
    pe_layer layer = {d, v};
    pe_applied a;
    pe_status st = apply(L, &pe_fields_tolerance, &layer, 1, path, NULL, &a);
    size_t vi = IDX(pe_fields_tolerance, "value"), ri = IDX(pe_fields_tolerance, "rel_tol");
    size_t ai = IDX(pe_fields_tolerance, "abs_tol");
    char sub[PE_YPATH_MAX];
    y_path(sub, path, "value");
    if (!a.set[vi])
        st = worse(st, missing(L, &pe_fields_tolerance, v, path, "value", ""));
    else
        st = worse(st, keep(L, y_get_number(d, a.value[vi], sub, PE_RANGE_NONE, &c->value,
                                            L->err)));
    if (a.set[ri] && a.set[ai]) {
        const yaml_node_t *second = a.key[ri]->start_mark.index > a.key[ai]->start_mark.index
                                        ? a.key[ri]
                                        : a.key[ai];
        return worse(st, bad(L, d, second, "%s: give rel_tol or abs_tol, not both", path));
    }
    if (a.set[ri] || a.set[ai]) {
        size_t ti = a.set[ri] ? ri : ai;
        y_path(sub, path, pe_fields_tolerance.fields[ti].key);
        c->tol_kind = a.set[ri] ? PE_TOL_REL : PE_TOL_ABS;
        st = worse(st, keep(L, y_get_number(d, a.value[ti], sub, PE_RANGE_NONNEG, &c->tol,
                                            L->err)));
    }
    return st;
}

static pe_status load_check(loader *L, const yaml_node_t *k, const yaml_node_t *v,
                            const char *ipath, pe_expect_check *c)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX];
    int col = check_column(L, k, ipath, sizeof c->column);
    if (col < 0)
        return PE_BAD_INPUT; /* recorded */
    y_path(path, ipath, pe_columns[col].name);
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
            st = keep(L, y_get_text(d, v, path, &c->text, L->err));
        return st;
    case PE_COL_BOOL: {
        bool b = false;
        c->is_text = true;
        st = keep(L, y_get_bool(d, v, path, &b, L->err));
        if (st)
            return st;
        c->text = strdup(b ? "true" : "false");
        return c->text ? PE_OK : out_of_memory(L);
    }
    case PE_COL_INT:
    case PE_COL_NUMBER: break;
    }
    return check_numeric(L, v, path, c);
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

/* best_plan: NAME stands alone. */
static pe_status check_best_plan_alone(loader *L, const yaml_node_t *item, const char *path)
{
    pe_status st = PE_OK;
    for (const yaml_node_pair_t *pr = item->data.mapping.pairs.start;
         pr < item->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = ydoc_node(L->d, pr->key);
        if (!(y_len(k) == 9 && memcmp(y_text(k), "best_plan", 9) == 0))
            st = bad(L, L->d, k,
                     "%s: best_plan takes no other keys (use plan: NAME to check columns)",
                     path);
    }
    return st;
}

/* plan: NAME and the report columns to check. */
static pe_status load_checks(loader *L, const yaml_node_t *item, const char *path, pe_expect *e)
{
    size_t n = (size_t)(item->data.mapping.pairs.top - item->data.mapping.pairs.start) - 1;
    if (n == 0)
        return PE_OK;
    e->checks = calloc(n, sizeof *e->checks);
    if (!e->checks)
        return out_of_memory(L);
    pe_status st = PE_OK;
    for (const yaml_node_pair_t *pr = item->data.mapping.pairs.start;
         pr < item->data.mapping.pairs.top && st != PE_INTERNAL; pr++) {
        const yaml_node_t *k = ydoc_node(L->d, pr->key), *v = ydoc_node(L->d, pr->value);
        if (y_len(k) == 4 && memcmp(y_text(k), "plan", 4) == 0)
            continue;
        st = worse(st, load_check(L, k, v, path, &e->checks[e->check_count]));
        e->check_count++; /* counted even on failure, so its text is freed */
    }
    return st;
}

static pe_status load_expect_item(loader *L, const yaml_node_t *item, size_t index,
                                  pe_expect *e)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "expect", index);
    pe_status st = keep(L, y_want_map(d, item, path, L->err));
    if (st)
        return st;
    e->line = y_line(item);
    e->col = y_col(item);
    const yaml_node_t *best = y_map_get(d, item, "best_plan"), *plan = y_map_get(d, item, "plan");
    if (best && plan) {
        const yaml_node_t *bk = map_key(d, item, "best_plan"), *pk = map_key(d, item, "plan");
        const yaml_node_t *second = bk->start_mark.index > pk->start_mark.index ? bk : pk;
        return bad(L, d, second, "%s: give plan: or best_plan:, not both", path);
    }
    if (!best && !plan)
        return bad(L, d, item,
                   "%s: needs plan: NAME (with report columns to check) or best_plan: NAME",
                   path);
    e->kind = best ? PE_EXPECT_BEST_PLAN : PE_EXPECT_PLAN;
    y_path(fp, path, best ? "best_plan" : "plan");
    st = keep(L, y_get_name(d, best ? best : plan, fp, e->plan, sizeof e->plan, L->err));
    if (best)
        return worse(st, check_best_plan_alone(L, item, path));
    return worse(st, load_checks(L, item, path, e));
}

/* An expect reference names an explicit plan, an explicit plan's canonical
 * text, or — when there is a sweep — any valid canonical text. */
static pe_status check_plan_ref(loader *L, const pe_expect *e, const yaml_node_t *item,
                                size_t index)
{
    for (size_t i = 0; i < L->s->plan_count; i++)
        if (strcmp(L->s->plans[i].name, e->plan) == 0 || strcmp(L->canon[i], e->plan) == 0)
            return PE_OK;
    char why[PE_MSG_MAX / 2];
    const bool canonical = canonical_valid(L, e->plan, why, sizeof why);
    if (L->s->sweep.present && canonical)
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
    char hint[PE_MSG_MAX / 2] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    else if (canonical)
        snprintf(hint, sizeof hint, " (no explicit plan has that canonical text, and there is "
                                    "no sweep)");
    else
        snprintf(hint, sizeof hint, "%s", why);
    char q[96];
    y_quote(e->plan, strlen(e->plan), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    pe_status st = bad(L, L->d, at, "expect[%zu].%s: no plan named %s%s", index, key, q, hint);
    free(names);
    return st;
}

static pe_status load_expect(loader *L, const yaml_node_t *node)
{
    pe_status st = keep(L, y_want_seq(L->d, node, "expect", L->err));
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return PE_OK;
    L->s->expects = calloc(n, sizeof *L->s->expects);
    if (!L->s->expects)
        return out_of_memory(L);
    for (size_t i = 0; i < n && st != PE_INTERNAL; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        L->s->expect_count = i + 1;
        pe_status is = load_expect_item(L, item, i, &L->s->expects[i]);
        if (!is && L->plans_ok) /* else a name would look unknown */
            is = check_plan_ref(L, &L->s->expects[i], item, i);
        st = worse(st, is);
    }
    return st;
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
    char why[PE_MSG_MAX / 2];
    if (canonical_valid(L, ref, why, sizeof why))
        return PE_OK;
    const char **names = L->s->plan_count ? malloc(L->s->plan_count * sizeof *names) : NULL;
    size_t n = 0;
    if (names)
        for (size_t i = 0; i < L->s->plan_count; i++)
            if (L->s->plans[i].name[0])
                names[n++] = L->s->plans[i].name;
    const char *sug = y_suggest(ref, strlen(ref), names, n);
    char hint[PE_MSG_MAX / 2] = "";
    if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    else
        snprintf(hint, sizeof hint, "%s", why);
    char q[96];
    y_quote(ref, strlen(ref), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    pe_status st = bad(L, L->d, at,
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
    pe_status st = keep(L, y_get_name(L->d, v, path, q->column, sizeof q->column, L->err));
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
        return bad(L, L->d, v,
                   "%s: rank depends on the whole run, not on the plan; ask best_plan instead",
                   path);
    if (col >= 0)
        return bad(L, L->d, v,
                   "%s: %s is not a numeric column (ask fits or comm_bound for yes/no "
                   "questions)",
                   path, qt);
    const char *sug = y_suggest(y_text(v), y_len(v), names, n);
    if (sug)
        return bad(L, L->d, v, "%s: unknown report column %s (did you mean '%s'?)", path, qt,
                   sug);
    return bad(L, L->d, v, "%s: unknown report column %s", path, qt);
}

#define QV(k_) (a->value[IDX(pe_fields_question, k_)])
#define QK(k_) (a->key[IDX(pe_fields_question, k_)])

/* Keys that belong to other kinds of question are errors, like keys of the
 * other topology (docs/scenarios.md "Questions"). */
static pe_status question_foreign_keys(loader *L, const pe_applied *a, const char *path,
                                       const pe_question *q)
{
    const pe_ydoc *d = L->d;
    const char *ask = pe_ask_name(q->ask);
    const bool wants_plan = q->ask == PE_ASK_COLUMN || q->ask == PE_ASK_FITS ||
                            q->ask == PE_ASK_COMM_BOUND;
    const bool has_rel = QV("rel_tol") != NULL, has_abs = QV("abs_tol") != NULL;
    if (!wants_plan && QV("plan"))
        return bad(L, d, QK("plan"),
                   "%s: ask %s takes no plan (the student's answer is the plan)", path, ask);
    if (q->ask != PE_ASK_COLUMN && QV("column"))
        return bad(L, d, QK("column"), "%s: ask %s takes no column (only ask: column does)",
                   path, ask);
    if (has_rel && has_abs) {
        const yaml_node_t *second =
            QK("rel_tol")->start_mark.index > QK("abs_tol")->start_mark.index ? QK("rel_tol")
                                                                               : QK("abs_tol");
        return bad(L, d, second, "%s: give rel_tol or abs_tol, not both", path);
    }
    if ((q->ask == PE_ASK_FITS || q->ask == PE_ASK_COMM_BOUND ||
         q->ask == PE_ASK_MIN_INTERVENTION) &&
        (has_rel || has_abs))
        return bad(L, d, has_rel ? QK("rel_tol") : QK("abs_tol"),
                   "%s: ask %s takes no tolerance (the answer is right or wrong)", path, ask);
    if (q->ask != PE_ASK_COLUMN && has_abs)
        return bad(L, d, QK("abs_tol"),
                   "%s: ask %s compares relative to the best plan: use rel_tol", path, ask);
    return PE_OK;
}

/* The plan and column a question asks about, and its tolerance. */
static pe_status question_target(loader *L, const pe_applied *a, const yaml_node_t *item,
                                 const char *path, pe_question *q)
{
    const pe_ydoc *d = L->d;
    char fp[PE_YPATH_MAX];
    pe_status st = PE_OK;
    if (q->ask == PE_ASK_COLUMN || q->ask == PE_ASK_FITS || q->ask == PE_ASK_COMM_BOUND) {
        y_path(fp, path, "plan");
        if (!QV("plan"))
            st = missing(L, &pe_fields_question, item, path, "plan", "");
        else if (!(st = keep(L, y_get_name(d, QV("plan"), fp, q->plan, sizeof q->plan, L->err))) &&
                 L->plans_ok)
            st = check_question_plan(L, QV("plan"), fp, q->plan);
    }
    if (q->ask == PE_ASK_COLUMN) {
        y_path(fp, path, "column");
        if (!QV("column"))
            st = worse(st, missing(L, &pe_fields_question, item, path, "column",
                                   " (ask: column names a report column)"));
        else
            st = worse(st, check_question_column(L, QV("column"), fp, q));
    }
    /* The default tolerance by what is asked (fields.h) */
    q->tol_kind = PE_TOL_REL;
    q->tol = q->ask == PE_ASK_COLUMN        ? PE_REL_TOL_COLUMN
             : q->ask == PE_ASK_CHOSEN_PLAN ? PE_REL_TOL_CHOSEN_PLAN
                                            : PE_REL_TOL_BEST_PLAN;
    if (QV("rel_tol") || QV("abs_tol")) {
        const char *key = QV("rel_tol") ? "rel_tol" : "abs_tol";
        y_path(fp, path, key);
        q->tol_kind = QV("rel_tol") ? PE_TOL_REL : PE_TOL_ABS;
        st = worse(st, keep(L, y_get_number(d, QV(key), fp, PE_RANGE_NONNEG, &q->tol, L->err)));
    }
    return st;
}

static pe_status load_question(loader *L, const yaml_node_t *item, size_t index, pe_question *q)
{
    const pe_ydoc *d = L->d;
    char path[PE_YPATH_MAX], fp[PE_YPATH_MAX];
    y_path_index(path, "questions", index);
    pe_status st = keep(L, y_want_map(d, item, path, L->err));
    if (st)
        return st;
    memset(q, 0, sizeof *q);
    fields_store_defaults(&pe_fields_question, q);
    q->line = y_line(item);
    q->col = y_col(item);
    pe_layer layer = {d, item};
    pe_applied qa, *a = &qa;
    st = apply(L, &pe_fields_question, &layer, 1, path, q, a);
    st = worse(st, check_required(L, &pe_fields_question, a, item, path));
    if (st)
        return st;
    y_path(fp, path, "id");
    st = keep(L, y_get_name(d, QV("id"), fp, q->id, sizeof q->id, L->err));
    if (!st && !y_valid_name(q->id)) {
        char qt[96];
        y_quote(q->id, strlen(q->id), qt, sizeof qt);
        st = bad(L, d, QV("id"), "%s must match [a-z0-9._-]+, got %s", fp, qt);
    }
    pe_status ks = question_foreign_keys(L, a, path, q);
    if (ks)
        return worse(st, ks);
    return worse(st, question_target(L, a, item, path, q));
}

#undef QV
#undef QK

/* Ids are unique (a submission answers by id); sorted, O(n log n). */
static pe_status check_question_ids(loader *L, const yaml_node_t *node)
{
    size_t n = L->s->question_count;
    nameref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return out_of_memory(L);
    for (size_t i = 0; i < n; i++)
        refs[i] = (nameref){L->s->questions[i].id, i};
    qsort(refs, n, sizeof *refs, nameref_cmp);
    pe_status st = PE_OK;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(refs[i].name, refs[i - 1].name) != 0)
            continue;
        size_t dup = refs[i].index, first = refs[i - 1].index;
        while (i + 1 < n && strcmp(refs[i + 1].name, refs[i].name) == 0)
            i++; /* one error per id: at its second occurrence */
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[dup]);
        st = bad(L, L->d, y_map_get(L->d, item, "id"),
                 "questions[%zu]: duplicate question id '%s' (questions[%zu] has it too)", dup,
                 L->s->questions[dup].id, first);
    }
    free(refs);
    return st;
}

static pe_status load_questions(loader *L, const yaml_node_t *node)
{
    pe_status st = keep(L, y_want_seq(L->d, node, "questions", L->err));
    if (st)
        return st;
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return bad(L, L->d, node, "questions: empty list; give at least one question");
    L->s->questions = calloc(n, sizeof *L->s->questions);
    if (!L->s->questions)
        return out_of_memory(L);
    for (size_t i = 0; i < n && st != PE_INTERNAL; i++) {
        const yaml_node_t *item = ydoc_node(L->d, node->data.sequence.items.start[i]);
        st = worse(st, load_question(L, item, i, &L->s->questions[i]));
        L->s->question_count = i + 1;
    }
    return st ? st : check_question_ids(L, node);
}

/* ------------------------------------------------------------ top level */

/* docs/scenarios.md: name defaults to the file's stem (the base name
 * without its last extension). */
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

/* A name of dots only ("." or "..") would name a hidden report file
 * ("...csv") or a directory's own entries: refused, as the name's help says. */
static bool only_dots(const char *name)
{
    return name[strspn(name, ".")] == '\0';
}

#define TOP(key) (L->top.value[IDX(pe_fields_scenario, key)])

static pe_status load_schema_tag(loader *L, const yaml_node_t *root)
{
    const yaml_node_t *n = TOP("schema");
    if (!n)
        return missing(L, &pe_fields_scenario, root, "", "schema", " (write schema: planeval/v1)");
    if (!y_is_string(n) || strcmp(y_text(n), "planeval/v1") != 0 || y_len(n) != 11) {
        char desc[128];
        y_describe(n, desc, sizeof desc);
        return bad(L, L->d, n, "schema must be planeval/v1, got %s", desc);
    }
    return PE_OK;
}

/* name: (or the file's stem) and description:. */
static pe_status load_name(loader *L, const yaml_node_t *root)
{
    const pe_ydoc *d = L->d;
    pe_scenario *s = L->s;
    const yaml_node_t *n;
    pe_status st = PE_OK;
    if ((n = TOP("name")) != NULL) {
        st = keep(L, y_get_name(d, n, "name", s->name, sizeof s->name, L->err));
        if (!st && !y_valid_name(s->name)) {
            char q[96];
            y_quote(s->name, strlen(s->name), q, sizeof q);
            st = bad(L, d, n, "name must match [a-z0-9._-]+, got %s", q);
        } else if (!st && only_dots(s->name)) {
            char q[96];
            y_quote(s->name, strlen(s->name), q, sizeof q);
            st = bad(L, d, n,
                     "name must not be only dots (it names the report file NAME.csv), got %s", q);
        } else if (!st && strlen(s->name) > PE_SCENARIO_NAME_FILE_MAX) {
            st = bad(L, d, n,
                     "name is %zu bytes, at most %d: it names the report files, and the "
                     "longest (.NAME.shard-I-of-N.summary.csv.tmp.HOST.PID) must fit a file name",
                     strlen(s->name), PE_SCENARIO_NAME_FILE_MAX);
        }
    } else {
        char stem[PE_PATH_MAX];
        file_stem(d->path, stem, sizeof stem);
        if (!y_valid_name(stem) || only_dots(stem) || strlen(stem) > PE_SCENARIO_NAME_FILE_MAX) {
            char q[96];
            y_quote(stem, strlen(stem), q, sizeof q);
            st = bad(L, d, root,
                     "no name: given, and the file stem %s is not a valid name "
                     "([a-z0-9._-]+, not only dots, at most %d bytes): add name: or rename the "
                     "file",
                     q, PE_SCENARIO_NAME_FILE_MAX);
        } else {
            memcpy(s->name, stem, strlen(stem) + 1); /* < PE_NAME_MAX: checked above */
        }
    }
    if ((n = TOP("description")) != NULL)
        st = worse(st, keep(L, y_get_text(d, n, "description", &s->description, L->err)));
    return st;
}

/* A required section: missing, or loaded by load. */
static pe_status required_section(loader *L, const yaml_node_t *root, const char *key,
                                  pe_status (*load)(loader *, const yaml_node_t *))
{
    const yaml_node_t *n = TOP(key);
    return n ? load(L, n) : missing(L, &pe_fields_scenario, root, "", key, "");
}

/* The LoRA keys (M15–M17, A27) describe an adapter; with finetune: full
 * there is none, so one given there is refused at the key. */
static pe_status check_lora_keys(loader *L, const yaml_node_t *n)
{
    static const char *const keys[] = {"lora_rank", "lora_targets", "lora_dropout", "base_quant"};
    if (L->s->training.finetune == PE_FINETUNE_LORA)
        return PE_OK;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const yaml_node_t *at = y_map_get(L->d, n, keys[i]);
        if (at)
            return bad(L, L->d, at,
                       "training.%s needs training.finetune: lora (a full fine-tune trains every "
                       "weight and has no adapter)",
                       keys[i]);
    }
    return PE_OK;
}

static pe_status load_training(loader *L, const yaml_node_t *n)
{
    const pe_status st = load_simple(L, &pe_fields_training, n, &L->s->training);
    return st == PE_OK ? check_lora_keys(L, n) : st;
}

/* rank_by: one key or a list, each breaking the ties of the one before. */
static pe_status load_rank_by(loader *L, const yaml_node_t *n)
{
    pe_scenario *s = L->s;
    int keys[PE_RANK_BY_MAX];
    size_t count = 0;
    const pe_field *f = fields_find(&pe_fields_scenario, "rank_by", 7);
    pe_status st = keep(L, y_get_enum_list(L->d, n, "rank_by", f->enum_values, keys,
                                           PE_RANK_BY_MAX, &count, L->err));
    for (size_t i = 0; st == PE_OK && i < count; i++)
        s->rank_by_list[i] = (pe_rank_by)keys[i];
    if (st != PE_OK)
        return st;
    s->rank_by_count = count;
    s->rank_by = s->rank_by_list[0];
    for (size_t i = 0; i < count; i++)
        if (L->training_ok && keys[i] == PE_RANK_TRAIN_DAYS && !s->training.has_tokens)
            st = bad(L, L->d,
                     n->type == YAML_SEQUENCE_NODE
                         ? ydoc_node(L->d, n->data.sequence.items.start[i])
                         : n,
                     "rank_by: train_days needs training.tokens (docs/model.md §9)");
    return st;
}

/* The refinement keys a file may write itself (docs/model.md §12). */
static bool names_refinement_key(const pe_ydoc *d, const yaml_node_t *map, const char *const *keys)
{
    for (const char *const *k = keys; *k; k++) /* y_map_get: NULL for a non-mapping */
        if (y_map_get(d, map, *k))
            return true;
    return false;
}

/* Without a fidelity: key the scenario is refined only when it names a
 * refinement itself: a framework:, or a refinement key written in its own
 * cluster (not one a preset supplies). Otherwise it is the textbook model,
 * exactly (docs/model.md §12, "Which model a scenario gets"). */
static pe_fidelity default_fidelity(const loader *L)
{
    const pe_ydoc *d = L->d;
    if (TOP("framework") || sweep_key_node(L, "framework"))
        return PE_FIDELITY_REFINED;
    /* the cluster: block, and each item of sweep.cluster that is a mapping */
    const yaml_node_t *list = sweep_cluster_node(L);
    const size_t items = list && list->type == YAML_SEQUENCE_NODE
                             ? (size_t)(list->data.sequence.items.top -
                                        list->data.sequence.items.start)
                             : 0;
    bool named = false;
    for (size_t i = 0; i <= items && !named; i++) {
        const yaml_node_t *cluster =
            i == 0 ? TOP("cluster") : ydoc_node(d, list->data.sequence.items.start[i - 1]);
        const char *const *link = pe_link_refinement_keys;
        named = names_refinement_key(d, y_map_get(d, cluster, "gpu"), pe_gpu_refinement_keys) ||
                names_refinement_key(d, y_map_get(d, cluster, "intra_node"), link) ||
                names_refinement_key(d, y_map_get(d, cluster, "inter_node"), link);
    }
    return named ? PE_FIDELITY_REFINED : PE_FIDELITY_TEXTBOOK;
}

/* failures: and checkpointing: (docs/model.md §15): both or neither, each
 * with its required numbers; an async save copies through the host link. */
static pe_status load_whole_run(loader *L)
{
    pe_scenario *s = L->s;
    const yaml_node_t *fn = TOP("failures"), *cn = TOP("checkpointing");
    pe_status st = PE_OK;
    if (fn) {
        fields_store_defaults(&pe_fields_failures, &s->failures);
        pe_status fs = load_simple(L, &pe_fields_failures, fn, &s->failures);
        s->failures.present = fs == PE_OK;
        st = worse(st, fs);
    }
    if (cn) {
        fields_store_defaults(&pe_fields_checkpointing, &s->checkpointing);
        pe_status cs = load_simple(L, &pe_fields_checkpointing, cn, &s->checkpointing);
        s->checkpointing.present = cs == PE_OK;
        st = worse(st, cs);
    }
    if (fn && !cn)
        st = worse(st, bad(L, L->d, fn,
                           "failures needs checkpointing (write_gb_s: how fast the run saves "
                           "its state; docs/model.md §15)"));
    if (cn && !fn)
        st = worse(st, bad(L, L->d, cn,
                           "checkpointing needs failures (restart_minutes: what an "
                           "interruption costs; docs/model.md §15)"));
    const pe_cluster *c;
    char note[PE_NAME_MAX + 32];
    for (size_t i = 0, nc = design_clusters(s, &c); i < nc; i++)
        if (s->checkpointing.present && s->checkpointing.save == PE_SAVE_ASYNC && L->cluster_ok &&
            !c[i].gpu.has_host_link_gb_s)
            return worse(st, bad(L, L->d, y_map_get(L->d, cn, "save"),
                                 "checkpointing.save: async needs cluster.gpu.host_link_gb_s "
                                 "(the GPU-host bandwidth its copy runs at)%s",
                                 cluster_note(s, &c[i], note, sizeof note)));
    return st;
}

/* targets: (docs/sweeps.md "Targets"): tokens is training.tokens and days is
 * budgets.train_days — one number each, so both given must be equal — while
 * gpu_hours and cost become the T2 budgets; cost needs a price. */
static pe_status load_targets(loader *L, const yaml_node_t *n)
{
    pe_scenario *s = L->s;
    pe_targets *t = &s->targets;
    pe_status st = load_simple(L, &pe_fields_targets, n, t);
    if (st != PE_OK || !L->training_ok || !L->cluster_ok)
        return st;
    static const char *const keys[PE_TARGET_COUNT] = {"days", "gpu_hours", "cost"};
    t->present = true;
    t->line = y_line(n), t->col = y_col(n);
    for (int k = 0; k < PE_TARGET_COUNT; k++) {
        const yaml_node_t *at = y_map_get(L->d, n, keys[k]);
        t->key_line[k] = at ? y_line(at) : t->line, t->key_col[k] = at ? y_col(at) : t->col;
    }
    if (!t->has_days && !t->has_gpu_hours && !t->has_cost)
        return bad(L, L->d, n, "targets: give days, gpu_hours or cost (what the run must reach)");
    const yaml_node_t *tr = TOP("training"), *bu = TOP("budgets");
    if (t->has_tokens && s->training.has_tokens && t->tokens != s->training.tokens)
        return bad(L, L->d, y_map_get(L->d, n, "tokens"),
                   "targets.tokens = %.17g and training.tokens = %.17g (line %d) differ; give "
                   "the tokens in one place",
                   t->tokens, s->training.tokens, y_line(y_map_get(L->d, tr, "tokens")));
    if (t->has_tokens)
        s->training.has_tokens = true, s->training.tokens = t->tokens;
    if (t->has_days && s->budgets.has_train_days && t->days != s->budgets.train_days)
        return bad(L, L->d, y_map_get(L->d, n, "days"),
                   "targets.days = %.17g and budgets.train_days = %.17g (line %d) differ; give "
                   "the days in one place",
                   t->days, s->budgets.train_days, y_line(y_map_get(L->d, bu, "train_days")));
    if (!t->has_tokens && !s->training.has_tokens)
        return bad(L, L->d, n, "targets: give tokens (or training.tokens): the run's length");
    const pe_cluster *c;
    char note[PE_NAME_MAX + 32];
    for (size_t i = 0, nc = design_clusters(s, &c); i < nc && t->has_cost; i++)
        if (!c[i].has_cost_per_gpu_hour)
            return bad(L, L->d, y_map_get(L->d, n, "cost"),
                       "targets.cost needs a price: cluster.cost_per_gpu_hour (T2)%s",
                       cluster_note(s, &c[i], note, sizeof note));
    if (t->has_days)
        s->budgets.has_train_days = true, s->budgets.train_days = t->days;
    s->budgets.has_gpu_hours = t->has_gpu_hours, s->budgets.gpu_hours = t->gpu_hours;
    s->budgets.has_cost = t->has_cost, s->budgets.cost = t->cost;
    return PE_OK;
}

/* model, precision, cluster, training, budgets, framework, overlap, rank_by. */
static pe_status load_sections(loader *L, const yaml_node_t *root)
{
    pe_scenario *s = L->s;
    const yaml_node_t *n;
    if (!TOP("fidelity"))
        s->fidelity = default_fidelity(L);
    pe_status st = required_section(L, root, "model", load_model);
    L->model_ok = st == PE_OK;
    if ((n = TOP("precision")))
        st = worse(st, load_simple(L, &pe_fields_precision, n, &s->precision));
    pe_status cs = !TOP("cluster") && sweep_cluster_node(L) ? load_cluster(L, NULL)
                                                             : required_section(L, root, "cluster",
                                                                                load_cluster);
    L->cluster_ok = cs == PE_OK;
    pe_status ts = required_section(L, root, "training", load_training);
    L->training_ok = ts == PE_OK;
    st = worse(st, worse(cs, ts));
    if ((n = TOP("budgets"))) {
        pe_status bs = load_simple(L, &pe_fields_budgets, n, &s->budgets);
        L->budgets_ok = bs == PE_OK;
        st = worse(st, bs);
    }
    if ((n = TOP("targets")) && (!TOP("budgets") || L->budgets_ok))
        st = worse(st, load_targets(L, n));
    if (L->budgets_ok && L->training_ok && s->budgets.has_train_days && !s->training.has_tokens)
        st = worse(st, bad(L, L->d, y_map_get(L->d, TOP("budgets"), "train_days"),
                           "budgets.train_days needs training.tokens (docs/model.md §9)"));
    if (!TOP("fidelity") && s->fidelity == PE_FIDELITY_TEXTBOOK) {
        const pe_cluster *cs_;
        const size_t nc = design_clusters(s, &cs_);
        for (size_t i = 0; i < nc; i++) {
            const pe_cluster *c = &cs_[i];
            s->refinements_unused = s->refinements_unused || c->gpu.has_gemm_efficiency ||
                                    c->intra_node.bus_efficiency != 1 ||
                                    (c->inter_node.present && c->inter_node.bus_efficiency != 1);
        }
    }
    st = worse(st, load_framework_overlap(L, TOP("framework"), TOP("overlap")));
    if ((n = TOP("rank_by")))
        st = worse(st, load_rank_by(L, n));
    return worse(st, load_whole_run(L));
}

/* F32: framework.comm_sms needs the GPU's SM count and must leave compute
 * at least one SM (the error is at the key where the scenario writes it). */
static pe_status check_comm_sms(loader *L, const yaml_node_t *root, const pe_cluster *c,
                                size_t nc)
{
    const pe_scenario *s = L->s;
    const int64_t cs = s->framework.present ? s->framework.comm_sms : 0;
    const yaml_node_t *fw = y_map_get(L->d, root, "framework");
    const yaml_node_t *at = fw && y_map_get(L->d, fw, "comm_sms") ? y_map_get(L->d, fw, "comm_sms")
                            : fw                                  ? fw
                                                                  : root;
    char note[PE_NAME_MAX + 32];
    for (size_t i = 0; i < nc && cs > 0; i++) {
        if (c[i].gpu.sm_count <= 0)
            return bad(L, L->d, at,
                       "framework.comm_sms needs cluster.gpu.sm_count (the chip's streaming "
                       "multiprocessors, docs/model.md F32)%s",
                       cluster_note(s, &c[i], note, sizeof note));
        if (cs >= c[i].gpu.sm_count)
            return bad(L, L->d, at,
                       "framework.comm_sms %lld leaves no SM for compute: cluster.gpu.sm_count "
                       "is %lld%s",
                       (long long)cs, (long long)c[i].gpu.sm_count,
                       cluster_note(s, &c[i], note, sizeof note));
    }
    return PE_OK;
}

/* What the GPU must describe for the keys used: fp8 GEMMs need its
 * FP8 peak (V16 as a load rule), offload_optimizer its host link. */
static pe_status check_gpu_needs(loader *L, const yaml_node_t *root)
{
    const pe_scenario *s = L->s;
    pe_status st = PE_OK;
    const pe_cluster *c;
    const size_t nc = design_clusters(s, &c);
    char note[PE_NAME_MAX + 32];
    for (size_t i = 0; i < nc && st == PE_OK; i++)
        if (s->precision.compute == PE_COMPUTE_FP8 && !c[i].gpu.has_peak_fp8_tflops)
            st = bad(L, L->d, y_map_get(L->d, y_map_get(L->d, root, "precision"), "compute"),
                     "precision.compute: fp8 needs cluster.gpu.peak_fp8_tflops (this GPU has "
                     "none: FP8 tensor cores came with Hopper, Ada and MI300)%s",
                     cluster_note(s, &c[i], note, sizeof note));
    if (s->precision.fp8_recipe != PE_FP8_RECIPE_NONE && s->precision.compute != PE_COMPUTE_FP8)
        st = worse(st, bad(L, L->d,
                           y_map_get(L->d, y_map_get(L->d, root, "precision"), "fp8_recipe"),
                           "precision.fp8_recipe needs compute: fp8 (a scaling recipe of FP8 "
                           "GEMMs; these GEMMs run in bf16)"));
    bool offload = false;
    for (size_t i = 0; i < s->plan_count; i++)
        offload = offload || s->plans[i].offload_optimizer;
    for (size_t i = 0; i < s->sweep.offload_optimizer.count; i++)
        offload = offload || s->sweep.offload_optimizer.values[i];
    for (size_t i = 0; i < nc; i++)
        if (offload && !c[i].gpu.has_host_link_gb_s)
            return worse(st, bad(L, L->d,
                                 y_map_get(L->d, root, "cluster") ? y_map_get(L->d, root, "cluster")
                                                                  : sweep_cluster_node(L),
                                 "offload_optimizer needs cluster.gpu.host_link_gb_s (the "
                                 "GPU-host bandwidth per direction)%s",
                                 cluster_note(s, &c[i], note, sizeof note)));
    return worse(st, check_comm_sms(L, root, c, nc));
}

/* schedule dualpipe is a refinement (docs/model.md §12 B6, A21, M14): the
 * textbook model has no DualPipe, so a textbook scenario naming it is refused
 * at the value (a plan's schedule, or the item of sweep.schedule). */
static pe_status check_refined_schedules(loader *L)
{
    const pe_scenario *s = L->s;
    if (s->fidelity != PE_FIDELITY_TEXTBOOK)
        return PE_OK;
    static const char msg[] = "%s: schedule dualpipe is a refinement (docs/model.md §12 B6), not "
                              "in the textbook model: give fidelity: refined";
    const yaml_node_t *plans = TOP("plans");
    for (size_t i = 0; i < s->plan_count; i++)
        if (s->plans[i].schedule == PE_SCHEDULE_DUALPIPE) {
            char item_path[PE_YPATH_MAX], path[PE_YPATH_MAX];
            y_path_index(item_path, "plans", i);
            y_path(path, item_path, "schedule");
            const yaml_node_t *item = ydoc_node(L->d, plans->data.sequence.items.start[i]);
            const yaml_node_t *sn = y_map_get(L->d, item, "schedule");
            return bad(L, L->d, sn ? sn : item, msg, path);
        }
    const pe_sweep *sw = &s->sweep;
    for (size_t i = 0; sw->present && i < sw->schedule.count; i++)
        if (sw->schedule.values[i] == PE_SCHEDULE_DUALPIPE) {
            const yaml_node_t *sn = y_map_get(L->d, TOP("sweep"), "schedule");
            const yaml_node_t *at = sn->type == YAML_SEQUENCE_NODE
                                        ? ydoc_node(L->d, sn->data.sequence.items.start[i])
                                        : sn;
            return bad(L, L->d, at, msg, "sweep.schedule");
        }
    return PE_OK;
}

/* finetune: lora (M15–M17, A27) is modelled for dense models with bf16
 * GEMMs and the optimizer on the GPU; the other combinations are refused at
 * training.finetune rather than charged with terms written for full training. */
static pe_status check_finetune(loader *L, const yaml_node_t *root)
{
    const pe_scenario *s = L->s;
    if (s->training.finetune != PE_FINETUNE_LORA)
        return PE_OK;
    const yaml_node_t *at = y_map_get(L->d, y_map_get(L->d, root, "training"), "finetune");
    const char *why = NULL;
    if (s->model.experts > 0)
        why = "a mixture-of-experts model (experts > 0)";
    else if (s->model.attention == PE_ATTENTION_MLA)
        why = "attention: mla";
    else if (s->precision.compute == PE_COMPUTE_FP8)
        why = "precision.compute: fp8";
    bool offload = false;
    for (size_t i = 0; i < s->plan_count; i++)
        offload = offload || s->plans[i].offload_optimizer;
    for (size_t i = 0; i < s->sweep.offload_optimizer.count; i++)
        offload = offload || s->sweep.offload_optimizer.values[i];
    if (!why && offload)
        why = "offload_optimizer";
    if (!why)
        return PE_OK;
    return bad(L, L->d, at,
               "training.finetune: lora is not modelled with %s (docs/model.md M15–M17 cover "
               "dense models with bf16 GEMMs and the optimizer on the GPU)",
               why);
}

/* plans, sweep, expect, questions. */
static pe_status load_plan_sections(loader *L, const yaml_node_t *root)
{
    const yaml_node_t *plans = TOP("plans"), *sweep = TOP("sweep"), *n;
    pe_status ps = plans ? load_plans(L, plans) : PE_OK;
    pe_status ss = sweep ? load_sweep(L, sweep) : PE_OK;
    L->plans_ok = ps == PE_OK && ss == PE_OK;
    pe_status st = worse(ps, ss);
    if (L->plans_ok && L->s->plan_count == 0 && !L->s->sweep.present)
        st = bad(L, L->d, plans ? plans : root,
                 "no plans to evaluate: give plans: (a non-empty list) or sweep:");
    if (L->plans_ok && L->cluster_ok)
        st = worse(st, check_gpu_needs(L, root)); /* fp8 peak, host link */
    if (L->plans_ok)
        st = worse(st, check_refined_schedules(L)); /* dualpipe: refined only */
    if (L->plans_ok && L->model_ok && L->training_ok)
        st = worse(st, check_finetune(L, root)); /* lora: dense, bf16, no offload */
    if ((n = TOP("expect")))
        st = worse(st, load_expect(L, n));
    if ((n = TOP("questions")))
        st = worse(st, load_questions(L, n));
    return st;
}

static pe_status load_root(loader *L)
{
    const yaml_node_t *root = ydoc_root(L->d);
    /* A file that is not a scenario (a wrong path, a link to any file the
     * user can read) is refused without echoing its text: a single value is
     * not quoted, and without schema: nothing else is checked, since every
     * key would be quoted as an unknown key. */
    if (root->type != YAML_MAPPING_NODE)
        return bad(L, L->d, root,
                   "a scenario file is a mapping of keys (schema, model, cluster, ...), got %s",
                   root->type == YAML_SEQUENCE_NODE ? "a list" : "a single value");
    if (!y_map_get(L->d, root, "schema"))
        return missing(L, &pe_fields_scenario, root, "", "schema", " (write schema: planeval/v1)");
    set_defaults(L->s);
    pe_layer layer = {L->d, root};
    pe_status st = apply(L, &pe_fields_scenario, &layer, 1, "", L->s, &L->top);
    st = worse(st, load_schema_tag(L, root));
    st = worse(st, load_name(L, root));
    if (st == PE_INTERNAL)
        return st;
    st = worse(st, load_sections(L, root));
    if (st == PE_INTERNAL)
        return st;
    return worse(st, load_plan_sections(L, root));
}

#undef TOP

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
    if (st == PE_BAD_INPUT && L.errs.total == 0)
        keep(&L, st); /* a step that failed without recording: never accept the file */
    if (st == PE_INTERNAL) {
        pe_errors_free(&L.errs);
        if (L.internal_set)
            *err = L.internal;
    } else {
        st = pe_errors_pack(&L.errs, err);
    }
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
