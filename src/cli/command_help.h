/* command_help.h — `planeval COMMAND --help` for the commands over
 * scenario files (run, validate, check, explain, calibrate, merge): the
 * usage, every option the command takes, and where the scenario keys and
 * report columns are documented (docs/scenarios.md). */
#ifndef PLANEVAL_COMMAND_HELP_H
#define PLANEVAL_COMMAND_HELP_H

#include <stdbool.h>

/* The help text of a command, or NULL for one without its own. */
const char *command_help_text(const char *command);

/* Whether the command takes the long option (its name without "--"):
 * false only for an option another command's help lists and this one's
 * does not. */
bool command_takes_option(const char *command, const char *option);

#endif
