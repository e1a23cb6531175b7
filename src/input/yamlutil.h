/* yamlutil.h — strict YAML for the loader and the catalog (internal).
 *
 * ydoc_parse() turns a buffer into a libyaml document and refuses, with
 * FILE:LINE:COL, everything docs/scenarios.md "Loading rules" refuses at the
 * YAML level: syntax errors, text that is not UTF-8, several documents, an
 * empty file, explicit tags, merge keys, duplicate keys, YAML 1.1 look-alikes
 * (hex, octal, leading zeros, 1_000, .inf/.nan), more than
 * 100,000 nodes after alias expansion and nesting deeper than 64 levels.
 * After it succeeds every walk of the document is bounded (depth <= 64,
 * <= 100,000 nodes even through aliases), so the rest of the loader may
 * recurse freely.
 *
 * A UTF-8 byte-order mark at the start is skipped. YAML 1.1's yes/no/on/off
 * are strings (YAML 1.2): y_get_bool refuses them with "write true/false".
 *
 * The typed getters apply YAML 1.2 core typing and the ranges of fields.h;
 * y_apply() fills a struct from one or more mappings (a preset first, then
 * the file, key by key) through a fieldset table. */
#ifndef PLANEVAL_YAMLUTIL_H
#define PLANEVAL_YAMLUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "core/error.h"
#include "core/fields.h"
#include "core/scenario.h"

#define PE_YAML_MAX_NODES 100000 /* docs/scenarios.md: after alias expansion */
#define PE_YAML_MAX_DEPTH 64     /* docs/scenarios.md: nesting levels */
#define PE_YAML_MAX_FILE (64u << 20) /* bytes; a larger file is refused before parsing */
#define PE_INT_MAX ((int64_t)1 << 53) /* docs/scenarios.md "Ranges": integers at most 2^53 */
#define PE_YPATH_MAX 512              /* a key path in a message: plans[2].overlap.tp */

typedef struct pe_ydoc {
    char path[PE_PATH_MAX]; /* for messages */
    yaml_document_t doc;
    bool loaded;
} pe_ydoc;

/* Parse data (size bytes) with every check above; on failure d is left
 * unloaded (ydoc_free is still safe). */
pe_status ydoc_parse(pe_ydoc *d, const char *path, const char *data, size_t size, pe_error *err);
/* As ydoc_parse, but values that YAML 1.1 reads otherwise (hex, octal,
 * 1_000, .inf, ...) are left to y_check_values, so a caller that judges
 * parts of a document separately (grade: each answer on its own) can
 * refuse one part and keep the others. Keys are checked as by ydoc_parse. */
pe_status ydoc_parse_unchecked_values(pe_ydoc *d, const char *path, const char *data,
                                      size_t size, pe_error *err);
/* The checks ydoc_parse makes, on the subtree at n (path names it). */
pe_status y_check_values(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                         pe_error *err);
void ydoc_free(pe_ydoc *d);
yaml_node_t *ydoc_root(const pe_ydoc *d);
yaml_node_t *ydoc_node(const pe_ydoc *d, int id);

/* Read a whole file into a malloc'd buffer (NUL-terminated). */
pe_status pe_read_file(const char *path, char **data, size_t *size, pe_error *err);

/* ------------------------------------------------------------ typing */
typedef enum {
    PE_Y_NULL,   /* ~, null, Null, NULL, empty (plain) */
    PE_Y_BOOL,   /* true/True/TRUE/false/False/FALSE (plain) */
    PE_Y_INT,    /* [-+]?(0|[1-9][0-9]*) (plain) */
    PE_Y_FLOAT,  /* the YAML 1.2 core float pattern (plain) */
    PE_Y_STR,    /* any other plain scalar */
    PE_Y_QUOTED, /* single- or double-quoted, literal or folded: always a string */
    PE_Y_MAP,
    PE_Y_SEQ
} pe_ykind;

pe_ykind y_kind(const yaml_node_t *n);
/* A string node (plain string or quoted). */
bool y_is_string(const yaml_node_t *n);
/* A plain scalar whose text is exactly word (e.g. "auto"). */
bool y_is_plain_word(const yaml_node_t *n, const char *word);
const char *y_text(const yaml_node_t *n); /* scalar text ("" for collections) */
size_t y_len(const yaml_node_t *n);
int y_line(const yaml_node_t *n);
int y_col(const yaml_node_t *n);
/* What a node is, for "expected X, got Y": "\"96.0\"", "null", "a list", … */
void y_describe(const yaml_node_t *n, char *buf, size_t size);
/* text (len bytes) quoted for a message, truncated when long. */
void y_quote(const char *text, size_t len, char *buf, size_t size);

/* Fill err at node n of d (n may be NULL: then the file only). */
pe_status y_fail(pe_error *err, const pe_ydoc *d, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "base.key" / "base[i]" ("key" when base is ""). */
void y_path(char *out, const char *base, const char *key);
void y_path_index(char *out, const char *base, size_t i);

/* The candidate word begins up to a separator when there is exactly one
 * (mem_total -> mem_total_gib), else the closest of cands[0..n) to word
 * (case-insensitive edit distance <= 2, <= 1 for short words), or NULL. */
const char *y_suggest(const char *word, size_t len, const char *const *cands, size_t n);

/* Where else in a scenario key (len bytes) is a key, when set is one of the
 * scenario's mappings: "cluster", "cluster.intra_node or
 * cluster.inter_node", "the top level"; "" when nowhere else. */
void y_key_places(const pe_fieldset *set, const char *key, size_t len, char *buf, size_t size);

/* The value of key in mapping m, or NULL (m must be a mapping). */
yaml_node_t *y_map_get(const pe_ydoc *d, const yaml_node_t *m, const char *key);

/* Typed values of a field at `path` (for messages): ranges of fields.h,
 * integers bounded by 2^53, enums with "did you mean". */
pe_status y_get_int(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_range r,
                    int64_t *out, pe_error *err);
pe_status y_get_number(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_range r,
                       double *out, pe_error *err);
pe_status y_get_bool(const pe_ydoc *d, const yaml_node_t *n, const char *path, bool *out,
                     pe_error *err);
/* One enum value or a non-empty list of them, none twice (PE_FT_ENUM_LIST):
 * out[0..*count) in the order written; at most max. */
pe_status y_get_enum_list(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                          const char *const *values, int *out, size_t max, size_t *count,
                          pe_error *err);
pe_status y_get_enum(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                     const char *const *values, int *out, pe_error *err);
/* A string of 1..max-1 bytes without NUL characters, copied into buf;
 * other control characters allowed (text neutralised later, a student id). */
pe_status y_get_label(const pe_ydoc *d, const yaml_node_t *n, const char *path, char *buf,
                      size_t max, pe_error *err);
/* The same, without control characters: names of scenarios and plans. */
pe_status y_get_name(const pe_ydoc *d, const yaml_node_t *n, const char *path, char *buf,
                     size_t max, pe_error *err);
/* A string of any length (may be empty), malloc'd. */
pe_status y_get_text(const pe_ydoc *d, const yaml_node_t *n, const char *path, char **out,
                     pe_error *err);
/* A mapping / a list, else "expected a mapping, got …". */
pe_status y_want_map(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_error *err);
pe_status y_want_seq(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_error *err);
/* One scalar of field f (INT, NUMBER, BOOL or ENUM) as an int64 (enum index,
 * bool 0/1) or a double. */
pe_status y_get_field(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                      const pe_field *f, int64_t *ival, double *dval, pe_error *err);

/* ------------------------------------------------------------ applying mappings */
#define PE_MAX_LAYERS 8 /* a gpu: its preset chain, the cluster preset chain's, the file */
#define PE_MAX_FIELDS 96 /* keys of the longest table (framework); test_load checks each fits */

/* One source mapping: a catalog preset or the scenario file. */
typedef struct {
    const pe_ydoc *doc;
    const yaml_node_t *node; /* a mapping, or NULL (the layer is absent) */
} pe_layer;

/* What y_apply saw, per field of the fieldset. */
typedef struct {
    bool set[PE_MAX_FIELDS];
    int layer[PE_MAX_FIELDS];              /* the last layer that gave the key */
    const yaml_node_t *key[PE_MAX_FIELDS]; /* its key node and value node there */
    const yaml_node_t *value[PE_MAX_FIELDS];
    const yaml_node_t *per_layer[PE_MAX_FIELDS][PE_MAX_LAYERS];     /* value in each layer */
    const yaml_node_t *per_layer_key[PE_MAX_FIELDS][PE_MAX_LAYERS]; /* key in each layer */
} pe_applied;

/* Apply layers[0..n) in order over base (a struct of the fieldset's type):
 * unknown keys are errors ("did you mean"); INT, NUMBER, BOOL and ENUM keys
 * with an offset (and without PE_F_AUTO or PE_F_LOADER) are typed,
 * range-checked and stored, later layers overriding earlier ones; every other
 * key (TEXT, MAP, LIST, PRESET, auto, the loader's) is only recorded in *st
 * for the caller. */
pe_status y_apply(const pe_fieldset *set, const pe_layer *layers, size_t n, const char *path,
                  void *base, pe_applied *st, pe_error *err);
/* The same, going on after a bad key: each error is added to errs (then
 * PE_BAD_INPUT is returned once every key was seen; err holds the last).
 * An unknown key that belongs to another mapping of a scenario says which
 * ("'nodes' belongs under cluster"). */
pe_status y_apply_all(const pe_fieldset *set, const pe_layer *layers, size_t n, const char *path,
                      void *base, pe_applied *st, pe_error *err, pe_error_list *errs);

/* Index of key in set (the field must exist). */
size_t y_field_index(const pe_fieldset *set, const char *key);

/* The intra_node topology rule (docs/scenarios.md "Ranges"): keys of the other
 * topology are errors when written in the layer that chose the topology or
 * in a later one; a preset's keys of the other topology are dropped when a
 * later layer changes the topology. Clears st->set of dropped keys. */
pe_status y_check_topology(const pe_layer *layers, const char *path, pe_intra_node *in,
                           pe_applied *st, pe_error *err);

/* ------------------------------------------------------------ catalog entries */
/* One preset of the catalog (catalog.c owns the documents). */
struct pe_preset {
    char kind[16]; /* "models", "gpus", "clusters", "frameworks" */
    char name[PE_NAME_MAX];
    const pe_ydoc *doc;
    const yaml_node_t *node; /* the entry's mapping */
};

/* [a-z0-9._-]+ : scenario names (docs/scenarios.md) and preset names. */
bool y_valid_name(const char *s);

#endif
