/* main.c — dispatch and exit codes: which command file runs (one per
 * command in cli/, each parsing its own options), the signal handlers of a
 * run, and the exit status.
 * Exit status (docs/scenarios.md): 0 done; 1 a check failed; 2 bad input or
 * usage; 3 an internal or I/O error; with several files, the highest;
 * 128 + signal for a run a signal stopped. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/command_help.h"
#include "cli/commands.h"

/* The one piece of global state: what a signal handler may touch. Workers
 * read it between chunks (runner.h) and stop; run writes a checkpoint. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A command over scenario files: the common options (scenario_options.c),
 * then its handler (commands.h). */
typedef struct {
    const char *name;
    pe_command_fn handler; /* NULL: entry parses its own options */
    cli_command_fn entry;
} command;

static const command COMMANDS[] = {
    {"run", command_run, NULL},
    {"validate", command_validate, NULL},
    {"check", command_check, NULL},
    {"merge", command_merge, NULL},
    {"calibrate", command_calibrate, NULL},
    {"explain", command_explain, NULL},
    {"grade", NULL, cli_grade},
    {"html", NULL, cli_html},
    {"compare", NULL, cli_compare},
    /* The calculators take their own options (calc.h). */
    {"memory", NULL, cli_calculator},
    {"collective", NULL, cli_calculator},
    {"bubble", NULL, cli_calculator},
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("%s", "no command given");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        command_usage_print(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("planeval %s (scenario schema planeval/v1)\n", PLANEVAL_VERSION);
        return 0;
    }
    const command *cmd = NULL;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0] && !cmd; i++)
        if (strcmp(name, COMMANDS[i].name) == 0)
            cmd = &COMMANDS[i];
    if (!cmd)
        return cli_usage_error("unknown command '%s'", name);

    const cli_context ctx = {&stop_signal, install_stop_handlers};
    int status = cmd->handler ? cli_scenario_command(argc - 1, argv + 1, cmd->handler, &ctx)
                              : cmd->entry(argc - 1, argv + 1, &ctx);
    if (status == PE_INTERRUPTED) /* 130 for SIGINT, 143 for SIGTERM */
        return 128 + (stop_signal ? stop_signal : SIGINT);
    return status;
}
