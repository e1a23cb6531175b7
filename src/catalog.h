/* catalog.h — presets for models, GPUs and clusters.
 *
 * The built-in entries are the YAML files under scenarios/catalog/, embedded
 * into the binary at build time, so the tool works from any directory.
 * catalog_open() parses them, then (optionally) every *.yaml file of
 * extra_dir, whose entries add to or override the built-in ones. */
#ifndef PLANEVAL_CATALOG_H
#define PLANEVAL_CATALOG_H

#include "error.h"

typedef struct pe_catalog pe_catalog;

pe_status catalog_open(const char *extra_dir, pe_catalog **out, pe_error *err);
void catalog_free(pe_catalog *c);

/* Names of the entries of one kind ("models", "gpus", "clusters"), for
 * --help and "did you mean"; returns the count, fills up to max names. */
size_t catalog_names(const pe_catalog *c, const char *kind, const char **names, size_t max);

#endif
