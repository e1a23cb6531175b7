/* command_help.c — each scenario command's `--help` and the options it
 * takes (command_help.h). One table: the text a user reads and the set
 * the parser enforces cannot drift apart, since both are written here. */
#include <stddef.h>
#include <string.h>

#include "cli/command_help.h"

typedef struct {
    const char *name;
    const char *options; /* long option names taken, each followed by a space */
    const char *help;
} command_help;

#define FOOTER                                                                            \
    "\n"                                                                                  \
    "Every scenario key (default, range, example), the report columns and the exit\n"   \
    "statuses: docs/scenarios.md in the planeval repository.\n"                          \
    "exit status: 0 done, 1 a check failed, 2 bad input or usage, 3 internal or I/O error\n"

#define COMMON                                                                            \
    "  --catalog DIR       add or override presets from DIR/*.yaml\n"                    \
    "  --help              this text\n"

static const command_help HELP[] = {
    {"run", "output top threads quiet shard resume html status pareto digits catalog help ",
     "usage: planeval run SCENARIO... [OPTIONS]\n"
     "\n"
     "Evaluate every plan of each scenario and write DIR/<name>.csv, ranked, and\n"
     "DIR/<name>.summary.csv (counts, best plan, wall time). A SCENARIO that is a\n"
     "directory means its scenario files, in byte order of their names.\n"
     "\n"
     "options:\n"
     "  -o, --output DIR    report directory (default: out)\n"
     "  --top K             write only the K best rows (the summary counts all)\n"
     "  --threads N         worker threads (default: online cores)\n"
     "  --quiet             no summary or progress on stderr\n"
     "  --shard I/N         evaluate the I-th of N equal parts of the plans (0 <= I < N);\n"
     "                      writes DIR/<name>.shard-I-of-N.csv, joined by `planeval merge`\n"
     "  --resume            continue an interrupted run from DIR/<name>.checkpoint\n"
     "                      (SIGINT/SIGTERM during a sweep write it; exit 130/143)\n"
     "  --html              also write DIR/<name>.html: facts, counts, a scatter of memory\n"
     "                      against step time with the budgets and the Pareto front, bars\n"
     "  --status LIST       write only these statuses (ok,over_time,over_memory,invalid)\n"
     "  --pareto            write only the Pareto-optimal plans (memory against rank_by)\n"
     "  --digits N          numbers to N significant digits (default: exact)\n" COMMON
         FOOTER},
    {"validate", "quiet catalog help ",
     "usage: planeval validate SCENARIO... [OPTIONS]\n"
     "\n"
     "Load and validate each scenario without evaluating it: one\n"
     "FILE:LINE:COL: error line per mistake, or `ok` with the plan count (for a\n"
     "sweep: its combinations and how many of them are plans).\n"
     "\n"
     "options:\n"
     "  --quiet             print errors only\n" COMMON FOOTER},
    {"check", "golden update-golden rel-tol abs-tol top table threads quiet catalog help ",
     "usage: planeval check SCENARIO... [OPTIONS]\n"
     "\n"
     "Evaluate every expect: assertion of each scenario: one line per miss\n"
     "(FILE:LINE:COL, scenario, plan, column, expected, got, error), then\n"
     "`N passed, N failed`; exit 1 on any miss.\n"
     "\n"
     "options:\n"
     "  --golden DIR        also compare each whole report with DIR/<name>.csv, plan by\n"
     "                      plan (rows matched by plan, not position): one line per\n"
     "                      differing cell, rank move, added or removed plan, and a\n"
     "                      summary line\n"
     "  --rel-tol X         relative tolerance of numeric cells (default 1e-9)\n"
     "  --abs-tol X         absolute tolerance of numeric cells (default 0); a cell\n"
     "                      matches within the larger of the two\n"
     "  --top K             with --golden: compare (or write) the K best rows only,\n"
     "                      as `run --top K` writes them\n"
     "  --update-golden     write the golden reports instead of comparing\n"
     "  --table             numeric assertions as a Markdown table: expected, got, error %\n"
     "  --threads N         worker threads (default: online cores)\n"
     "  --quiet             nothing on stderr but errors\n" COMMON FOOTER},
    {"explain", "plan quiet catalog help ",
     "usage: planeval explain SCENARIO --plan NAME|CANONICAL [OPTIONS]\n"
     "\n"
     "Every quantity of one plan: equation id, formula, the numbers substituted,\n"
     "result and source, so a hand calculation can be compared line by line.\n"
     "\n"
     "options:\n"
     "  --plan P            an explicit plan's name, or any canonical text\n"
     "                      dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-{schedule}-v{v}-sp{0|1}\n"
     "                      (e.g. dp8-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1), whether or not\n"
     "                      the scenario enumerates it\n" COMMON FOOTER},
    {"calibrate", "plan step-time peak-memory fit quiet catalog help ",
     "usage: planeval calibrate SCENARIO --plan P --step-time SECONDS [OPTIONS]\n"
     "       planeval calibrate RUNS.csv [--fit NUMBERS] [OPTIONS]\n"
     "\n"
     "With one scenario: solve flops_efficiency (and reserve_gib, given the measured\n"
     "peak memory) so the model reproduces one measured run of plan P; prints the\n"
     "YAML lines to paste into the scenario.\n"
     "\n"
     "With a runs file (header scenario,plan,column,value[,group]; scenario paths\n"
     "relative to the file; column step_time_s, tokens_per_s, mfu, hfu or\n"
     "tflops_per_gpu; group fit, predict or empty = fit): fit the refined model's\n"
     "numbers of one GPU type to every fit row by least squares on the log error;\n"
     "prints each row's error, the in-sample and leave-one-out mean error, the\n"
     "predict rows' error and the lines to paste under the GPU preset\n"
     "(docs/model.md, \"Calibration across runs\").\n"
     "\n"
     "options:\n"
     "  --plan P            an explicit plan's name, or any canonical text\n"
     "  --step-time S       the measured step time in seconds (required)\n"
     "  --peak-memory GIB   the measured peak memory per GPU in GiB\n"
     "  --fit NUMBERS       runs file: the numbers to fit (at most 4), comma-separated,\n"
     "                      from gemm_efficiency, elementwise_efficiency,\n"
     "                      fp8_gemm_efficiency, gemm_half_gflop, attention_efficiency,\n"
     "                      microbatch_overhead_us (default: the first k of them, k up to\n"
     "                      fit rows/2 with the smallest leave-one-out error); the\n"
     "                      others stay neutral\n" COMMON FOOTER},
    {"merge", "output top allow-partial quiet catalog help ",
     "usage: planeval merge REPORT.csv... -o FILE [OPTIONS]\n"
     "\n"
     "Join the shard reports of `run --shard I/N` into exactly the report one\n"
     "plain run writes (rows re-ranked and renumbered). The summary beside each\n"
     "report proves the shards cover every plan exactly once; a missing, cut or\n"
     "repeated shard is refused.\n"
     "\n"
     "options:\n"
     "  -o, --output FILE   the merged report (required)\n"
     "  --top K             keep the K best rows (give the same K as the runs)\n"
     "  --allow-partial     merge the shards that are there, naming what is missing\n"
     "  --quiet             no summary on stderr\n" COMMON FOOTER},
};

static const command_help *find(const char *command)
{
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        if (strcmp(HELP[i].name, command) == 0)
            return &HELP[i];
    return NULL;
}

const char *command_help_text(const char *command)
{
    const command_help *h = find(command);
    return h ? h->help : NULL;
}

/* Whether the space-separated list names option. */
static bool listed(const char *list, const char *option)
{
    size_t n = strlen(option);
    for (const char *p = list; (p = strstr(p, option)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && p[n] == ' ')
            return true;
    return false;
}

bool command_takes_option(const char *command, const char *option)
{
    const command_help *h = find(command);
    if (!h || listed(h->options, option))
        return true;
    /* An option no command lists (one added to the parser but not here yet)
     * is not refused: the table only keeps options from the wrong command. */
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        if (listed(HELP[i].options, option))
            return false;
    return true;
}
