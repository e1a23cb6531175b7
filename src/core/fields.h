/* fields.h — the keys of every YAML mapping of a scenario (and of a catalog
 * file): name, type, range, default, help text.
 *
 * One const table per mapping, the single source for the loader (load.c,
 * catalog.c), `--help`, `explain` and the JSON schemas, and of every key's
 * default (the loader stores them through fields_store_defaults). The tables
 * are plain data: no YAML here. Key names, ranges and defaults come from docs/scenarios.md
 * "Scenario file" / "Ranges" and docs/model.md §0; the order of each table is the
 * order of docs/scenarios.md's example, so printed help reads like the spec. */
#ifndef PLANEVAL_FIELDS_H
#define PLANEVAL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PE_FT_INT,    /* integer literal only (96, not 96.0 or 1e2), |v| <= 2^53 */
    PE_FT_NUMBER, /* integer or float literal, finite */
    PE_FT_BOOL,   /* true/True/TRUE/false/False/FALSE */
    PE_FT_ENUM,   /* one of enum_values (text) */
    PE_FT_ENUM_LIST, /* one of enum_values, or a non-empty list of them, none twice (rank_by) */
    PE_FT_TEXT,   /* a string: plain (not a number/bool/null) or quoted */
    PE_FT_MAP,    /* a nested mapping: sub lists its keys */
    PE_FT_LIST,   /* a list (plans, expect) */
    PE_FT_PRESET  /* a catalog entry name (model.preset, cluster.preset, cluster.gpu.preset) */
} pe_field_type;

/* Value ranges of docs/scenarios.md "Ranges". Every number key has a
 * bounded range of physically meaningful values (fields_range_bounds): a
 * value outside it would only make a time, rate or size infinite or NaN, so
 * every figure of a report stays finite. */
typedef enum {
    PE_RANGE_NONE,
    PE_RANGE_WHOLE,      /* whole number >= 1 (<= 2^53): sizes, degrees, counts, global_batch */
    PE_RANGE_NONNEG,     /* >= 0: MoE/MLA counts (whole), tolerances */
    PE_RANGE_UNIT,       /* [0, 1]: overlap values, comm_slowdown */
    PE_RANGE_ZERO,       /* whole number 0..3: plan.zero (docs/model.md §0) */
    PE_RANGE_RATE,       /* [1e-3, 1e7]: GB/s, TB/s, TFLOP/s, 10^9 parameters/s */
    PE_RANGE_EFFICIENCY, /* [1e-3, 1]: efficiencies, min_mfu */
    PE_RANGE_EFFICIENCY_OR_ZERO, /* 0 or [1e-3, 1]: elementwise_efficiency (0: untimed) */
    PE_RANGE_ELEMENT_BYTES,      /* [1e-3, 64]: bytes of a weight, gradient, dispatch element */
    PE_RANGE_BYTES,              /* [0, 64]: optimizer, FP8-copy and accumulation bytes */
    PE_RANGE_PASS_BYTES,         /* [0, 1024]: bytes an optimizer pass moves per parameter */
    PE_RANGE_GIB,                /* [1e-3, 1e6]: memories in GiB */
    PE_RANGE_AMOUNT,     /* [0, 1e6]: reserve GiB, latencies µs (1 s), MB, GFLOP */
    PE_RANGE_PARAMS,     /* [1, 1e15]: parameter count */
    PE_RANGE_TOKENS,     /* [1, 1e18]: training tokens */
    PE_RANGE_FACTOR,     /* [1e-3, 1e3]: capacity_factor */
    PE_RANGE_IMBALANCE,  /* [1, 1e3]: moe_imbalance (busiest / mean) */
    PE_RANGE_BUDGET,     /* [1e-6, 1e9]: step-time seconds, training days */
    PE_RANGE_POINTS,     /* [1e-3, 1e6]: a question's points */
    PE_RANGE_WATTS,      /* [1, 1e5]: a GPU's board power, W */
    PE_RANGE_PUE,        /* [1, 10]: power usage effectiveness */
    PE_RANGE_FAILURE_RATE, /* [1e-9, 1]: interruptions per GPU-day */
    PE_RANGE_COUNT_      /* the number of ranges */
} pe_range;

/* A range's bounds and its text for messages, help and docs. */
typedef struct {
    double lo, hi;  /* lo <= v <= hi; hi is INFINITY when unbounded above */
    bool zero_too;  /* 0 is allowed below lo */
    const char *text; /* "a number from 0.001 to 1e7" */
} pe_range_bounds;

enum {
    PE_F_REQUIRED = 1u << 0,  /* must be given (in the file or by a preset) */
    PE_F_AUTO = 1u << 1,      /* accepts `auto` (plan dp; sweep dp tp pp cp micro_batch virtual_stages) */
    PE_F_SWITCH = 1u << 2,    /* intra_node key of topology: switch only */
    PE_F_FULL_MESH = 1u << 3, /* intra_node key of topology: full_mesh only */
    PE_F_NO_PRESET = 1u << 4, /* never set by a catalog preset (cluster.nodes) */
    PE_F_LOADER = 1u << 5     /* typed and stored by input/load.c, whose error says what the
                                 key accepts, not by y_apply (framework.sub_group_size) */
};

#define PE_NO_OFFSET ((size_t)-1)

typedef struct pe_fieldset pe_fieldset;

typedef struct {
    const char *key;
    pe_field_type type;
    pe_range range;
    size_t offset;     /* into the mapping's struct (scenario.h); PE_NO_OFFSET: set by code */
    size_t has_offset; /* a bool set to true when the key is given; PE_NO_OFFSET if none */
    const char *const *enum_values; /* PE_FT_ENUM: NULL-terminated, in enum order */
    unsigned flags;                 /* PE_F_* */
    const pe_fieldset *sub;         /* PE_FT_MAP / PE_FT_LIST of mappings: the nested keys */
    /* The default, as the docs print it and as the loader stores it: a
     * literal of the field's type ("2", "0.5", "true", "gelu") is the value
     * (fields_default_value); words ("4*hidden", "tp > 1") name a default
     * computed from other keys, each in one place that the help text names;
     * NULL when required or none. */
    const char *default_text;
    const char *help;
} pe_field;

struct pe_fieldset {
    const char *path; /* "model", "cluster.gpu", "plans[]", … */
    const char *help;
    const pe_field *fields;
    size_t count;
};

/* A question's default rel_tol by what it asks (docs/scenarios.md
 * "Questions"): the numbers of questions[].rel_tol's default_text and of the
 * loader, written once. */
#define PE_REL_TOL_COLUMN 0.01
#define PE_REL_TOL_CHOSEN_PLAN 0.05
#define PE_REL_TOL_BEST_PLAN 0

/* Scenario file (docs/scenarios.md "A scenario file"). */
extern const pe_fieldset pe_fields_scenario; /* top level */
extern const pe_fieldset pe_fields_model;
extern const pe_fieldset pe_fields_precision;
extern const pe_fieldset pe_fields_cluster;
extern const pe_fieldset pe_fields_gpu;
extern const pe_fieldset pe_fields_intra_node;
extern const pe_fieldset pe_fields_inter_node;
extern const pe_fieldset pe_fields_training;
extern const pe_fieldset pe_fields_budgets;
extern const pe_fieldset pe_fields_targets;
extern const pe_fieldset pe_fields_overlap;
extern const pe_fieldset pe_fields_framework;
extern const pe_fieldset pe_fields_failures;      /* docs/model.md §15 */
extern const pe_fieldset pe_fields_checkpointing; /* docs/model.md §15 */
extern const pe_fieldset pe_fields_plan;  /* one item of plans: */
extern const pe_fieldset pe_fields_sweep; /* offsets are of pe_axis members of pe_sweep */
extern const pe_fieldset pe_fields_expect;    /* the fixed keys of one expect item */
extern const pe_fieldset pe_fields_tolerance; /* {value, rel_tol | abs_tol} */
extern const pe_fieldset pe_fields_question;   /* one item of questions: (grading key) */
extern const pe_fieldset pe_fields_submission; /* a submission file (planeval grade) */
/* Catalog file (docs/scenarios.md "Presets and the catalog"): models:, gpus:, clusters:. */
extern const pe_fieldset pe_fields_catalog;

/* Every fieldset of a scenario or catalog file above (not yet the grading
 * ones, question and submission), NULL-terminated (for --help and the
 * schema test). */
extern const pe_fieldset *const pe_fieldsets[];

/* The field called key (len bytes, not NUL-terminated), or NULL. */
const pe_field *fields_find(const pe_fieldset *set, const char *key, size_t len);

/* "a whole number >= 1", "a number from 0.001 to 1e7", … for messages and help. */
const char *fields_range_text(pe_range r);

/* The bounds of r (PE_RANGE_NONE: every finite number). */
const pe_range_bounds *fields_range_bounds(pe_range r);

/* Is v (finite) inside r? Whole-number ranges also need v whole. */
bool fields_in_range(pe_range r, double v);

/* The field's default as a value: true with *ival (INT, BOOL, ENUM,
 * ENUM_LIST: the enum's index) or *dval (NUMBER) when default_text is a
 * literal of its type; false when the default is in words or there is none. */
bool fields_default_value(const pe_field *f, int64_t *ival, double *dval);

/* Store a value of f's type (iv for INT, BOOL and enums, dv for NUMBER) at
 * base + f->offset; the has_ flag is not touched. */
void fields_store(void *base, const pe_field *f, int64_t iv, double dv);

/* Every field of set with a literal default gets it, at base (the struct of
 * the set's mapping; never the sweep's, whose offsets are of pe_axis). */
void fields_store_defaults(const pe_fieldset *set, void *base);

/* The field called key back to "not given": zero, its has_ flag false,
 * then its literal default if it has one. */
void fields_reset(const pe_fieldset *set, const char *key, void *base);

#endif
