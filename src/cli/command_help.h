/* command_help.h — every usage text, one source: `planeval --help` (each
 * command's synopsis) and `planeval COMMAND --help` (the usage, every
 * option the command takes, and where the scenario keys and report columns
 * are documented, docs/scenarios.md). */
#ifndef PLANEVAL_COMMAND_HELP_H
#define PLANEVAL_COMMAND_HELP_H

#include <stdbool.h>
#include <stdio.h>

/* The general usage: every command's synopsis and the common options. */
void command_usage_print(FILE *out);

/* The help text of a command, or NULL for one without its own. */
const char *command_help_text(const char *command);

/* Whether a command over scenario files takes the long option (its name
 * without "--"): false only for an option another command's help lists
 * and this one's does not. */
bool command_takes_option(const char *command, const char *option);

#endif
