/* yamlfiles.h — the YAML files of a directory (scenarios, submissions, a
 * --catalog DIR): every *.yaml and *.yml file in it, not hidden, not
 * recursive, in byte order of their names (docs/scenarios.md "Commands").
 * A directory with none is an error naming it (PE_BAD_INPUT); one that
 * cannot be read too. */
#ifndef PLANEVAL_YAMLFILES_H
#define PLANEVAL_YAMLFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Does name end in .yaml or .yml (with something before it)? */
bool yaml_file_name(const char *name);

/* The names (not paths) of dir's YAML files, malloc'd, sorted; *count >= 1
 * on success. Free with yaml_files_free. */
pe_status yaml_files_in(const char *dir, char ***names, size_t *count, pe_error *err);
void yaml_files_free(char **names, size_t count);

#endif
