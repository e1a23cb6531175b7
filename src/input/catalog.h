/* catalog.h — presets for models, GPUs and clusters.
 *
 * The built-in entries are the YAML files under scenarios/catalog/, embedded
 * into the binary at build time, so the tool works from any directory.
 * catalog_open() parses them, then (optionally) every *.yaml and *.yml file
 * of extra_dir (in byte order of their names; a directory with none is an
 * error), whose entries add to or override (key by key) the built-in ones.
 *
 * A catalog file holds any of the mappings `models:`, `gpus:`, `clusters:`,
 * from a preset name ([a-z0-9._-]+) to the keys of `model`, `cluster.gpu`
 * and `cluster` (docs/scenarios.md "Presets and the catalog"), checked as strictly as a scenario
 * file: types, ranges, unknown keys. Entries are partial (no key is
 * required). A cluster entry names its GPU as `gpu: {preset: NAME}` (which
 * may be followed by GPU keys that override that preset) and never sets
 * `nodes`; model and GPU entries do not name presets. An error names the
 * catalog file and line. */
#ifndef PLANEVAL_CATALOG_H
#define PLANEVAL_CATALOG_H

#include "core/error.h"

typedef struct pe_catalog pe_catalog;

pe_status catalog_open(const char *extra_dir, pe_catalog **out, pe_error *err);
void catalog_free(pe_catalog *c);

/* Names of the entries of one kind ("models", "gpus", "clusters"), for
 * --help and "did you mean": each name once (an overridden entry is not
 * repeated), in byte order. Returns how many there are and fills up to max
 * of them (names may be NULL when max is 0); the strings belong to c. */
size_t catalog_names(const pe_catalog *c, const char *kind, const char **names, size_t max);

/* One preset (its YAML stays owned by the catalog). Defined in yamlutil.h
 * for the loader; opaque elsewhere. */
typedef struct pe_preset pe_preset;

/* The entry called name of one kind ("models", "gpus", "clusters"), the
 * latest one when --catalog overrides a built-in; NULL if none (or c NULL). */
const pe_preset *catalog_find(const pe_catalog *c, const char *kind, const char *name);

/* An entry of --catalog DIR named like an earlier one (built in, or of an
 * earlier file) overrides it key by key: the earlier entry's keys stay
 * unless the later one gives them (nested mappings too: cluster gpu,
 * intra_node, inter_node; framework overlap). An entry may be overridden
 * at most PE_PRESET_CHAIN_MAX - 1 times. */
#define PE_PRESET_CHAIN_MAX 3

/* The entries p stands for, oldest first, p last: what it overrides, then
 * p. Returns how many (1..PE_PRESET_CHAIN_MAX), filling up to max. */
size_t catalog_chain(const pe_catalog *c, const pe_preset *p, const pe_preset **out, size_t max);

/* Where an entry was defined: its file (the built-ins read
 * "scenarios/catalog/NAME.yaml") and 1-based line. */
const char *catalog_entry_file(const pe_preset *p);
int catalog_entry_line(const pe_preset *p);

#endif
