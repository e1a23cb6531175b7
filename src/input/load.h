/* load.h — a YAML scenario file → a pe_scenario (libyaml document API).
 *
 * Strict: YAML 1.2 core typing, every key, default, range and rule of
 * docs/scenarios.md "A scenario file" and "Loading rules", docs/model.md §1
 * load-time checks. Presets from the catalog are applied first and the
 * file's keys override them key by key. On failure returns PE_BAD_INPUT (or
 * PE_INTERNAL for I/O) and leaves *out zeroed; err holds every mistake of
 * the file found in one pass (FILE:LINE:COL of each offending node, in file
 * order: the first in its fields, the others in err->more; error.h). Plans
 * come out fully resolved (defaults, dp: auto, sequence_parallel, merged
 * overlap); explicit-plan rule violations V1–V8 are NOT load errors (they
 * become invalid plans). */
#ifndef PLANEVAL_LOAD_H
#define PLANEVAL_LOAD_H

#include "input/catalog.h"
#include "core/error.h"
#include "core/scenario.h"

pe_status load_scenario(const char *path, const pe_catalog *catalog, pe_scenario *out,
                        pe_error *err);

/* Same, from a buffer; `path` is used in messages and for the default name. */
pe_status load_scenario_buffer(const char *path, const char *data, size_t size,
                               const pe_catalog *catalog, pe_scenario *out, pe_error *err);

#endif
