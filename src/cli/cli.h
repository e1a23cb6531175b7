/* cli.h — what the command files of cli/ share: printing an error, a usage
 * error's message and status, the common argument helpers (--threads, the
 * catalog, scenario directories) and what main hands every command (the
 * stop flag its signal handlers set). Private to cli/. */
#ifndef PLANEVAL_CLI_H
#define PLANEVAL_CLI_H

#include <signal.h>
#include <stdbool.h>

#include "cli/commands.h"
#include "core/error.h"
#include "input/catalog.h"

/* What main owns and a command may use. */
typedef struct {
    volatile sig_atomic_t *stop;       /* set by SIGINT/SIGTERM */
    void (*install_stop_handlers)(void); /* run: a signal stops the sweep */
} cli_context;

/* A command's entry: argv[0] is the command name; returns the exit status. */
typedef int (*cli_command_fn)(int argc, char **argv, const cli_context *ctx);

/* "file:line:col: message" on stderr. */
void cli_print_error(const pe_error *err);
/* "planeval: <fmt with arg>" and the --help hint on stderr; returns 2. */
int cli_usage_error(const char *fmt, const char *arg);
int cli_worst(int a, int b);

/* An option's path value (-o, --golden and the scenario commands'
 * --catalog, grade's --gradebook; grade's --catalog is a directory read,
 * never written under): "" would
 * be joined into "/NAME", a file in the root directory, and a path longer
 * than CLI_PATH_OPTION_MAX would be cut short in the PE_PATH_MAX paths of
 * the files written under it (a report in another directory), so both are
 * refused (a usage error, false). */
#define CLI_PATH_OPTION_MAX 512
bool cli_path_given(const char *option, const char *value);

/* Whether two paths name one existing file (same device and inode), so an
 * output may not overwrite one of its inputs. */
bool cli_same_file(const char *a, const char *b);
/* --threads N: a whole number in 1..4096. */
bool cli_parse_threads(const char *text, int *out);
/* --threads default: the machine's online cores. */
int cli_online_cores(void);
/* The catalog, with --catalog DIR; a bad catalog is printed here. */
pe_status cli_open_catalog(const char *dir, pe_catalog **catalog);
/* Expand arguments: a directory means its *.yaml files in byte order.
 * A missing path is reported (status 2) and skipped. */
int cli_expand_paths(char **args, int n, pe_file_list *out);

/* The same for arguments that must be files (merge's reports): a
 * directory is reported (status 2) and skipped too. */
int cli_expand_files(char **args, int n, pe_file_list *out);

/* The commands over scenario files (run, validate, check, merge,
 * calibrate, explain): their common options (scenario_options.c), then
 * the handler over the expanded files. */
int cli_scenario_command(int argc, char **argv, pe_command_fn handler, const cli_context *ctx);

/* grade (grade_cmd.c) and the calculators memory, collective, bubble (calc.c). */
int cli_grade(int argc, char **argv, const cli_context *ctx);
int cli_calculator(int argc, char **argv, const cli_context *ctx);
/* html REPORT.csv... (html_cmd.c). */
int cli_html(int argc, char **argv, const cli_context *ctx);
/* compare REPORT.csv... (compare_cmd.c). */
int cli_compare(int argc, char **argv, const cli_context *ctx);

#endif
