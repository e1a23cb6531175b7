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

static const char USAGE[] =
    "usage: planeval COMMAND [OPTIONS] ...\n"
    "\n"
    "Evaluate distributed-training parallelism plans against memory and\n"
    "step-time budgets (the model: docs/model.md).\n"
    "\n"
    "commands:\n"
    "  run SCENARIO...        evaluate every plan, write DIR/<name>.csv ranked\n"
    "      -o, --output DIR   report directory (default: out)\n"
    "      --top K            write only the K best rows (the summary counts all)\n"
    "      --threads N        worker threads (default: online cores)\n"
    "      --quiet            no summary or progress on stderr\n"
    "      --shard I/N        evaluate the I-th of N equal parts of the plans (0 <= I < N);\n"
    "                         writes DIR/<name>.shard-I-of-N.csv, joined by `merge`\n"
    "      --resume           continue an interrupted run from DIR/<name>.checkpoint\n"
    "      --html             also write DIR/<name>.html: scatter, Pareto front, bars\n"
    "      --status LIST      write only these statuses (ok,over_time,over_memory,invalid)\n"
    "      --pareto           write only the Pareto-optimal plans (memory against rank_by)\n"
    "      --digits N         numbers to N significant digits (default: exact)\n"
    "      (SIGINT/SIGTERM during a sweep, or while its report is ranked or written,\n"
    "      write that checkpoint and no report; exit 130/143; a damaged checkpoint is\n"
    "      refused)\n"
    "  html REPORT.csv... [-o DIR]\n"
    "                         the HTML page of written reports: DIR/<stem>.html\n"
    "  merge REPORT.csv... -o FILE [--top K] [--allow-partial]\n"
    "                         join shard reports into the report one run gives; the\n"
    "                         summaries beside them must show every plan index once\n"
    "      --allow-partial    merge what is there, naming what is missing on stderr\n"
    "  validate SCENARIO...   load and validate only\n"
    "  check SCENARIO...      evaluate every expect: assertion; exit 1 on any miss\n"
    "      --golden DIR       also compare whole reports with DIR/<name>.csv\n"
    "      --rel-tol X        relative tolerance of numeric cells (default 1e-9)\n"
    "      --abs-tol X        absolute tolerance of numeric cells (default 0)\n"
    "      --top K            compare (or write) the K best rows only\n"
    "      --update-golden    rewrite the golden reports instead\n"
    "      --table            numeric assertions as a Markdown table: expected, got, error %\n"
    "  explain SCENARIO --plan NAME|CANONICAL\n"
    "                         every quantity of one plan: equation, numbers, source\n"
    "  calibrate SCENARIO --plan P --step-time SECONDS [--peak-memory GIB]\n"
    "                         solve flops_efficiency (and reserve_gib) from one\n"
    "                         measured run; prints the YAML lines to paste\n"
    "  calibrate RUNS.csv [--fit NUMBERS]\n"
    "                         fit up to four of gemm_efficiency, elementwise_efficiency,\n"
    "                         fp8_gemm_efficiency, gemm_half_gflop, attention_efficiency,\n"
    "                         microbatch_overhead_us (or the NUMBERS named) of one GPU\n"
    "                         type to many measured runs (header\n"
    "                         scenario,plan,column,value[,group]; docs/model.md)\n"
    "  grade KEY SUBMISSION... [-o FILE] [--gradebook FILE] [--quiet]\n"
    "                         grade students' answers against the questions: of a\n"
    "                         drill scenario; writes a grades CSV (default\n"
    "                         out/<name>-grades.csv)\n"
    "  memory [OPTIONS]       memory per GPU of one plan, no scenario file (--help)\n"
    "  collective [OPTIONS]   time and bus bandwidth of one collective (--help)\n"
    "  bubble [OPTIONS]       pipeline bubble and in-flight micro-batches (--help)\n"
    "  --help, --version      COMMAND --help: that command's options in full\n"
    "\n"
    "common options:\n"
    "  --catalog DIR          add or override presets from DIR/*.yaml and *.yml\n"
    "\n"
    "A SCENARIO argument that is a directory means every *.yaml and *.yml file in it\n"
    "(not recursive), in byte order of their names.\n"
    "exit status: 0 done, 1 a check failed, 2 bad input or usage, 3 internal or I/O error,\n"
    "130/143 a run interrupted by SIGINT/SIGTERM (checkpoint written)\n"
    "\n"
    "Every scenario key, its default, range and an example, the report's columns\n"
    "and the exit statuses: docs/scenarios.md in the source tree.\n";

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
        fputs(USAGE, stdout);
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

    const cli_context ctx = {USAGE, &stop_signal, install_stop_handlers};
    int status = cmd->handler ? cli_scenario_command(argc - 1, argv + 1, cmd->handler, &ctx)
                              : cmd->entry(argc - 1, argv + 1, &ctx);
    if (status == PE_INTERRUPTED) /* 130 for SIGINT, 143 for SIGTERM */
        return 128 + (stop_signal ? stop_signal : SIGINT);
    return status;
}
