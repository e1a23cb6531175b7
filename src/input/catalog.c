/* catalog.c — presets: the built-in catalog files (embedded at build time by
 * CMakeLists.txt from scenarios/catalog/ *.yaml) and the *.yaml and *.yml
 * files of --catalog DIR. Format and rules: catalog.h, docs/scenarios.md
 * "Presets". */
#include <stdlib.h>
#include <string.h>

#include "input/catalog.h"
#include "input/yamlfiles.h"
#include "input/yamlutil.h"

/* generated/catalog_data.c */
struct pe_embedded_file {
    const char *name;
    const char *data;
    size_t size;
};
extern const struct pe_embedded_file pe_embedded_catalog[];

struct pe_catalog {
    pe_ydoc **docs; /* each allocated apart: entries point into them */
    size_t ndocs, capdocs;
    pe_preset *entries; /* in load order; later ones override earlier ones */
    size_t count, cap;
};

static const char *const kinds[] = {"models", "gpus", "clusters", "frameworks"};

void catalog_free(pe_catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ndocs; i++) {
        ydoc_free(c->docs[i]);
        free(c->docs[i]);
    }
    free(c->docs);
    free(c->entries);
    free(c);
}

const pe_preset *catalog_find(const pe_catalog *c, const char *kind, const char *name)
{
    if (!c)
        return NULL;
    for (size_t i = c->count; i-- > 0;)
        if (strcmp(c->entries[i].kind, kind) == 0 && strcmp(c->entries[i].name, name) == 0)
            return &c->entries[i];
    return NULL;
}

size_t catalog_chain(const pe_catalog *c, const pe_preset *p, const pe_preset **out, size_t max)
{
    size_t n = 0;
    for (const pe_preset *e = c->entries; e <= p && e < c->entries + c->count; e++)
        if (strcmp(e->kind, p->kind) == 0 && strcmp(e->name, p->name) == 0) {
            if (n < max)
                out[n] = e;
            n++;
        }
    return n;
}

/* Each entry is overridden at most PE_PRESET_CHAIN_MAX - 1 times. */
static pe_status check_chains(const pe_catalog *c, pe_error *err)
{
    for (size_t i = 0; i < c->count; i++) {
        const pe_preset *e = &c->entries[i];
        if (catalog_chain(c, e, NULL, 0) > PE_PRESET_CHAIN_MAX)
            return y_fail(err, e->doc, e->node,
                          "%s.%s: overridden more than %d times (an override merges over the "
                          "entry before it; write the keys into fewer files)",
                          e->kind, e->name, PE_PRESET_CHAIN_MAX - 1);
    }
    return PE_OK;
}

const char *catalog_entry_file(const pe_preset *p) { return p->doc->path; }
int catalog_entry_line(const pe_preset *p) { return y_line(p->node); }

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t catalog_names(const pe_catalog *c, const char *kind, const char **names, size_t max)
{
    if (!c || c->count == 0)
        return 0;
    const char **all = malloc(c->count * sizeof *all);
    if (!all)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->entries[i].kind, kind) == 0)
            all[n++] = c->entries[i].name;
    qsort(all, n, sizeof *all, cmp_str);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(all[i], all[i - 1]) == 0)
            continue; /* overridden by a later file */
        if (names && unique < max)
            names[unique] = all[i];
        unique++;
    }
    free(all);
    return unique;
}

/* ------------------------------------------------------------ validation */

/* The worse of two statuses. */
static pe_status worse_of(pe_status a, pe_status b) { return a > b ? a : b; }

/* Record a check's error (PE_BAD_INPUT) in errs; returns st. */
static pe_status rec(pe_error_list *errs, pe_error *err, pe_status st)
{
    if (st == PE_BAD_INPUT && pe_errors_add(errs, err) != PE_OK)
        return pe_fail(err, PE_INTERNAL, err->file, 0, 0, "out of memory");
    return st;
}

/* A model or GPU entry: its keys, and no preset. */
static pe_status check_model_or_gpu(const pe_ydoc *d, const char *kind, const yaml_node_t *entry,
                                    const char *path, pe_error *err, pe_error_list *errs)
{
    pe_applied st;
    pe_layer layer = {d, entry};
    const pe_fieldset *set = kind[0] == 'm' ? &pe_fields_model : &pe_fields_gpu;
    pe_model m;
    pe_gpu g;
    pe_status s = y_apply_all(set, &layer, 1, path, kind[0] == 'm' ? (void *)&m : (void *)&g,
                              &st, err, errs);
    size_t pi = y_field_index(set, "preset");
    if (s != PE_INTERNAL && st.set[pi])
        s = rec(errs, err,
                y_fail(err, d, st.key[pi],
                       "%s: a catalog %s cannot name another preset; write its keys out", path,
                       kind[0] == 'm' ? "model" : "GPU"));
    return s;
}

/* The gpu, intra_node and inter_node mappings of a cluster entry. */
static pe_status check_cluster_parts(const pe_ydoc *d, const pe_applied *st, const char *path,
                                     pe_cluster *cl, pe_error *err, pe_error_list *errs)
{
    char sub[PE_YPATH_MAX];
    pe_status s = PE_OK;
    const yaml_node_t *gpu = st->value[y_field_index(&pe_fields_cluster, "gpu")];
    if (gpu) {
        y_path(sub, path, "gpu");
        pe_applied gst;
        pe_layer gl = {d, gpu};
        s = y_apply_all(&pe_fields_gpu, &gl, 1, sub, &cl->gpu, &gst, err, errs);
        const yaml_node_t *pn = gst.value[y_field_index(&pe_fields_gpu, "preset")];
        if (s != PE_INTERNAL && pn) {
            char name[PE_NAME_MAX], pp[PE_YPATH_MAX];
            y_path(pp, sub, "preset");
            /* existence is checked once every file is read (catalog_open) */
            s = worse_of(s, rec(errs, err, y_get_name(d, pn, pp, name, sizeof name, err)));
        }
    }
    const yaml_node_t *intra = st->value[y_field_index(&pe_fields_cluster, "intra_node")];
    if (intra && s != PE_INTERNAL) {
        y_path(sub, path, "intra_node");
        pe_applied ist;
        pe_layer il = {d, intra};
        pe_status is = y_apply_all(&pe_fields_intra_node, &il, 1, sub, &cl->intra_node, &ist,
                                   err, errs);
        if (!is)
            is = rec(errs, err, y_check_topology(&il, sub, &cl->intra_node, &ist, err));
        s = worse_of(s, is);
    }
    const yaml_node_t *inter = st->value[y_field_index(&pe_fields_cluster, "inter_node")];
    if (inter && s != PE_INTERNAL) {
        y_path(sub, path, "inter_node");
        pe_applied est;
        pe_layer el = {d, inter};
        s = worse_of(s, y_apply_all(&pe_fields_inter_node, &el, 1, sub, &cl->inter_node, &est,
                                    err, errs));
    }
    return s;
}

/* A catalog entry is checked with the scenario's tables (types, ranges,
 * unknown keys); no key is required, since the file completes it. Every
 * mistake is recorded in errs. */
/* A framework entry (docs/model.md §12): its keys and its overlap mapping;
 * it names no preset. */
static pe_status check_framework(const pe_ydoc *d, const yaml_node_t *entry, const char *path,
                                 pe_error *err, pe_error_list *errs)
{
    pe_applied st;
    pe_layer layer = {d, entry};
    pe_framework fw;
    pe_status s = y_apply_all(&pe_fields_framework, &layer, 1, path, &fw, &st, err, errs);
    if (s == PE_INTERNAL)
        return s;
    size_t pi = y_field_index(&pe_fields_framework, "preset");
    if (st.set[pi])
        s = worse_of(s, rec(errs, err,
                            y_fail(err, d, st.key[pi],
                                   "%s: a catalog framework cannot name another preset; write "
                                   "its keys out",
                                   path)));
    const yaml_node_t *ov = st.value[y_field_index(&pe_fields_framework, "overlap")];
    if (!ov || s == PE_INTERNAL)
        return s;
    char sub[PE_YPATH_MAX];
    y_path(sub, path, "overlap");
    pe_overlap o;
    pe_applied ost;
    pe_layer ol = {d, ov};
    return worse_of(s, y_apply_all(&pe_fields_overlap, &ol, 1, sub, &o, &ost, err, errs));
}

static pe_status check_entry(const pe_ydoc *d, const char *kind, const yaml_node_t *entry,
                             const char *path, pe_error *err, pe_error_list *errs)
{
    if (strcmp(kind, "models") == 0 || strcmp(kind, "gpus") == 0)
        return check_model_or_gpu(d, kind, entry, path, err, errs);
    if (strcmp(kind, "frameworks") == 0)
        return check_framework(d, entry, path, err, errs);
    pe_applied st;
    pe_layer layer = {d, entry};
    pe_cluster cl;
    memset(&cl, 0, sizeof cl);
    pe_status s = y_apply_all(&pe_fields_cluster, &layer, 1, path, &cl, &st, err, errs);
    if (s == PE_INTERNAL)
        return s;
    size_t pi = y_field_index(&pe_fields_cluster, "preset");
    size_t ni = y_field_index(&pe_fields_cluster, "nodes");
    if (st.set[pi])
        s = worse_of(s, rec(errs, err,
                            y_fail(err, d, st.key[pi],
                                   "%s: a catalog cluster cannot name another cluster preset",
                                   path)));
    if (st.set[ni])
        s = worse_of(s, rec(errs, err,
                            y_fail(err, d, st.key[ni],
                                   "%s: a cluster preset never sets nodes; the scenario gives "
                                   "cluster.nodes",
                                   path)));
    return s == PE_INTERNAL ? s : worse_of(s, check_cluster_parts(d, &st, path, &cl, err, errs));
}

static pe_status add_entry(pe_catalog *c, const pe_ydoc *d, const char *kind,
                           const yaml_node_t *node, const char *name)
{
    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        pe_preset *e = realloc(c->entries, cap * sizeof *e);
        if (!e)
            return PE_INTERNAL;
        c->entries = e;
        c->cap = cap;
    }
    pe_preset *p = &c->entries[c->count++];
    memset(p, 0, sizeof *p);
    snprintf(p->kind, sizeof p->kind, "%s", kind);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->doc = d;
    p->node = node;
    return PE_OK;
}

/* One entry of a kind: its name and keys checked, every mistake recorded
 * in errs. */
static pe_status check_named_entry(const pe_ydoc *d, const char *kind, const yaml_node_t *kn,
                                   const yaml_node_t *vn, char *name, pe_error *err,
                                   pe_error_list *errs)
{
    char path_e[PE_YPATH_MAX];
    pe_status s = y_get_name(d, kn, kind, name, PE_NAME_MAX, err);
    if (!s && !y_valid_name(name)) {
        char q[96];
        y_quote(name, strlen(name), q, sizeof q);
        s = y_fail(err, d, kn, "%s: preset name %s must match [a-z0-9._-]+", kind, q);
    }
    if (s)
        return rec(errs, err, s);
    y_path(path_e, kind, name);
    s = y_want_map(d, vn, path_e, err);
    return s ? rec(errs, err, s) : check_entry(d, kind, vn, path_e, err, errs);
}

/* The entries of `models:`, `gpus:` or `clusters:` (mapping m): the good
 * ones added, every mistake of the bad ones recorded in errs. PE_INTERNAL
 * stops. */
static pe_status add_kind(pe_catalog *c, const pe_ydoc *d, const char *kind,
                          const yaml_node_t *m, pe_error_list *errs, pe_error *err)
{
    pe_status s = y_want_map(d, m, kind, err);
    if (s)
        return rec(errs, err, s) == PE_INTERNAL ? PE_INTERNAL : PE_OK;
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = ydoc_node(d, p->key), *vn = ydoc_node(d, p->value);
        char name[PE_NAME_MAX];
        s = check_named_entry(d, kind, kn, vn, name, err, errs);
        if (s == PE_INTERNAL)
            return s;
        if (s == PE_OK && add_entry(c, d, kind, vn, name))
            return pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
    }
    return PE_OK;
}

/* Parse one catalog file and add its entries. */
static pe_status add_file(pe_catalog *c, const char *path, const char *data, size_t size,
                          pe_error *err)
{
    if (c->ndocs == c->capdocs) {
        size_t cap = c->capdocs ? 2 * c->capdocs : 8;
        pe_ydoc **docs = realloc(c->docs, cap * sizeof *docs);
        if (!docs)
            return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
        c->docs = docs;
        c->capdocs = cap;
    }
    pe_ydoc *d = calloc(1, sizeof *d);
    if (!d)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    pe_status s = ydoc_parse(d, path, data, size, err);
    if (s) {
        free(d);
        return s;
    }
    c->docs[c->ndocs++] = d; /* owned by c from here on */
    const yaml_node_t *root = ydoc_root(d);
    if (root->type != YAML_MAPPING_NODE) {
        char desc[128];
        y_describe(root, desc, sizeof desc);
        return y_fail(err, d, root,
                      "a catalog file is a mapping with models:, gpus:, clusters: or frameworks:, got %s",
                      desc);
    }
    pe_applied st;
    pe_layer layer = {d, root};
    s = y_apply(&pe_fields_catalog, &layer, 1, "", NULL, &st, err);
    if (s)
        return s;
    pe_error_list errs = {0};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && s != PE_INTERNAL; k++) {
        const yaml_node_t *m = st.value[y_field_index(&pe_fields_catalog, kinds[k])];
        if (m)
            s = add_kind(c, d, kinds[k], m, &errs, err);
    }
    if (s == PE_INTERNAL) {
        pe_errors_free(&errs);
        return s;
    }
    return pe_errors_pack(&errs, err); /* every mistake of the file */
}

/* Cluster presets name GPU presets that must exist once every file is read
 * (a later file may define the GPU). */
static pe_status check_gpu_references(const pe_catalog *c, pe_error *err)
{
    for (size_t i = 0; i < c->count; i++) {
        const pe_preset *e = &c->entries[i];
        if (strcmp(e->kind, "clusters") != 0)
            continue;
        const yaml_node_t *gpu = y_map_get(e->doc, e->node, "gpu");
        const yaml_node_t *pn = gpu ? y_map_get(e->doc, gpu, "preset") : NULL;
        if (!pn || catalog_find(c, "gpus", y_text(pn)))
            continue;
        const char *names[256];
        size_t n = catalog_names(c, "gpus", names, 256);
        const char *sug = y_suggest(y_text(pn), y_len(pn), names, n < 256 ? n : 256);
        char hint[PE_NAME_MAX + 32] = "";
        if (sug)
            snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
        return y_fail(err, e->doc, pn, "clusters.%s.gpu.preset: unknown gpu preset '%s'%s",
                      e->name, y_text(pn), hint);
    }
    return PE_OK;
}

/* --catalog DIR: its *.yaml and *.yml files, in byte order of their names. */
static pe_status add_dir(pe_catalog *c, const char *dir, pe_error *err)
{
    char **names = NULL;
    size_t n = 0;
    pe_status s = yaml_files_in(dir, &names, &n, err);
    for (size_t i = 0; i < n && !s; i++) {
        char path[PE_PATH_MAX];
        int w = snprintf(path, sizeof path, "%s%s%s", dir,
                         dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        if (w < 0 || (size_t)w >= sizeof path) {
            s = pe_fail(err, PE_BAD_INPUT, dir, 0, 0, "catalog path too long");
            break;
        }
        char *data = NULL;
        size_t size = 0;
        s = pe_read_file(path, &data, &size, err);
        if (!s)
            s = add_file(c, path, data, size, err);
        free(data);
    }
    yaml_files_free(names, n);
    return s;
}

pe_status catalog_open(const char *extra_dir, pe_catalog **out, pe_error *err)
{
    *out = NULL;
    pe_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    pe_status s = PE_OK;
    for (const struct pe_embedded_file *f = pe_embedded_catalog; f->name && !s; f++) {
        char path[PE_PATH_MAX];
        snprintf(path, sizeof path, "scenarios/catalog/%s", f->name);
        s = add_file(c, path, f->data, f->size, err);
    }
    if (!s && extra_dir)
        s = add_dir(c, extra_dir, err);
    if (!s)
        s = check_gpu_references(c, err);
    if (!s)
        s = check_chains(c, err);
    if (s) {
        catalog_free(c);
        return s;
    }
    *out = c;
    return PE_OK;
}
