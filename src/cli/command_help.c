/* command_help.c — every usage text (command_help.h): each command's
 * `--help`, its lines in the general usage, and for the commands over
 * scenario files the options it takes. One table: the text a user reads
 * and the set the parser enforces cannot drift apart, since both are
 * written here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/command_help.h"

typedef struct {
    const char *name;
    const char *options;  /* long option names taken, each followed by a space;
                             NULL: the command parses its own */
    const char *synopsis; /* its lines in the general usage */
    const char *help;     /* COMMAND --help */
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
    {"run", "output top threads quiet progress shard resume html status pareto digits catalog help ",
     "  run SCENARIO...        evaluate every plan, write DIR/<name>.csv ranked\n",
     "usage: planeval run SCENARIO... [OPTIONS]\n"
     "\n"
     "Evaluate every plan of each scenario and write DIR/<name>.csv, ranked, and\n"
     "DIR/<name>.summary.csv (counts, best plan, wall time). A SCENARIO that is a\n"
     "directory means its scenario files, in byte order of their names.\n"
     "With targets: (docs/sweeps.md), a line on stdout names the smallest cluster\n"
     "that meets them and the best plan on it (with sweep.cluster, a line for each\n"
     "type: met, or not met with the best reached); when none does: exit 2, no report.\n"
     "\n"
     "options:\n"
     "  -o, --output DIR    report directory (default: out)\n"
     "  --top K             write only the K best rows (the summary counts all)\n"
     "  --threads N         worker threads (default: online cores)\n"
     "  --quiet             no summary or progress on stderr\n"
     "  --progress SECONDS  off a terminal (a batch job's log), a progress line every\n"
     "                      SECONDS (default 60; 0: none); a terminal redraws it\n"
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
    {"html", NULL,
     "  html REPORT.csv... [-o DIR]\n"
     "                         the HTML page of written reports: DIR/<stem>.html\n",
    "usage: planeval html REPORT.csv... [-o DIR] [--quiet]\n"
    "The HTML page of each report (written by run, or joined by merge) as\n"
    "DIR/<stem>.html (default DIR: out), with the facts and counts of\n"
    "<stem>.summary.csv when it lies beside the report. Open it in a browser:\n"
    "one file, nothing fetched.\n"},
    {"compare", NULL,
     "  compare REPORT... [-o FILE.html]\n"
     "                         across reports (clusters): each one's best plan and the\n"
     "                         Pareto front of cost, days and memory headroom\n",
    "usage: planeval compare REPORT.csv... [-o FILE.html]\n"
    "Across reports written by run (one cluster type each, training.tokens given),\n"
    "the best plan of each: gpus, days (effective_train_days: train_days over the\n"
    "goodput, docs/model.md §15), cost (or gpu_hours where a report has no cost),\n"
    "goodput, energy_mwh, memory headroom, step time; and which are Pareto-optimal:\n"
    "no other is no worse on price, days and headroom and better on one. The\n"
    "table goes to stdout; -o also writes it as an HTML page with a scatter of\n"
    "price against days and the front.\n"
    "A design sweep's report (sweep.cluster, sweep.nodes, ...) gives one line per\n"
    "design, its varying axes named (cluster=h100-node nodes=16), its best plan\n"
    "the design's first ok row; the page then draws one line per cluster type\n"
    "through its sizes (in order of gpus) with a legend.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   also write this HTML page\n"
    "  --help              this text\n" FOOTER},
    {"merge", "output top allow-partial pareto quiet catalog help ",
     "  merge REPORT.csv... -o FILE [--top K] [--allow-partial] [--pareto]\n"
     "                         join shard reports into the report one run gives; the\n"
     "                         summaries beside them must show every plan index once\n",
     "usage: planeval merge REPORT.csv... -o FILE [OPTIONS]\n"
     "\n"
     "Join the shard reports of `run --shard I/N` into exactly the report one\n"
     "plain run writes (rows re-ranked and renumbered), and beside it the summary\n"
     "that run writes (FILE's .csv becomes .summary.csv; not for a partial merge).\n"
     "The summary beside each report proves the shards cover every plan exactly\n"
     "once; a missing, cut or repeated shard is refused.\n"
     "\n"
     "options:\n"
     "  -o, --output FILE   the merged report (required)\n"
     "  --top K             keep the K best rows (give the same K as the runs)\n"
     "  --allow-partial     merge the shards that are there, naming what is missing\n"
     "  --pareto            write only the Pareto-optimal plans (as run --pareto)\n"
     "  --quiet             no summary on stderr\n" COMMON FOOTER},
    {"validate", "quiet catalog help ",
     "  validate SCENARIO...   load and validate only\n",
     "usage: planeval validate SCENARIO... [OPTIONS]\n"
     "\n"
     "Load and validate each scenario without evaluating it: one\n"
     "FILE:LINE:COL: error line per mistake on stderr, or `ok` with the plan\n"
     "count on stdout (for a sweep: its combinations and how many of them are\n"
     "plans).\n"
     "\n"
     "options:\n"
     "  --quiet             print errors only (no ok lines)\n" COMMON FOOTER},
    {"check", "golden update-golden rel-tol abs-tol rank-tol max-lines top table format threads "
              "quiet catalog help ",
     "  check SCENARIO...      evaluate every expect: assertion; exit 1 on any miss\n",
     "usage: planeval check SCENARIO... [OPTIONS]\n"
     "\n"
     "Evaluate every expect: assertion of each scenario: one line per miss\n"
     "(FILE:LINE:COL, scenario, plan, column, expected, got, error), then\n"
     "`N passed, N failed`; exit 1 on any miss.\n"
     "\n"
     "options:\n"
     "  --golden DIR        also compare each whole report with DIR/<name>.csv, plan by\n"
     "                      plan (rows matched by plan, not position or plan_index):\n"
     "                      one line per differing cell, rank move, added or removed\n"
     "                      plan, and a summary line\n"
     "  --rel-tol X         relative tolerance of numeric cells (default 1e-9)\n"
     "  --abs-tol X         absolute tolerance of numeric cells (default 0); a cell\n"
     "                      matches within the larger of the two\n"
     "  --rank-tol N        a plan moved N places or fewer among the plans both\n"
     "                      reports hold is no failure (default 0); plans of one status\n"
     "                      whose rank_by figures match within the tolerance are tied:\n"
     "                      their order is no move\n"
     "  --max-lines N       at most N difference lines per golden report, then one line\n"
     "                      counting the rest by kind (default 50; 0: every line)\n"
     "  --top K             with --golden: compare (or write) the K best rows only,\n"
     "                      as `run --top K` writes them\n"
     "  --update-golden     write the golden reports instead of comparing\n"
     "                      (a golden report not there fails as 'missing golden\n"
     "                      report'; *.csv in DIR no scenario checked writes are\n"
     "                      listed as stale, which is no failure)\n"
     "  --table             numeric assertions as a Markdown table: expected, got, error %\n"
     "                      then per source and group the time assertions, the same\n"
     "                      per framework preset (the scenario's framework:, '(none)'\n"
     "                      last) and group, the memory assertions per source and\n"
     "                      group (mem_* columns; OOM/fits status outcomes),\n"
     "                      and how many published step times fall inside their\n"
     "                      S6 80% prediction interval\n"
     "  --format F          text (default), junit or json: stdout is then one JUnit XML\n"
     "                      or JSON document of every scenario, assertion and golden\n"
     "                      report (not with --table)\n"
     "  --threads N         worker threads (default: online cores)\n"
     "  --quiet             nothing on stderr but errors\n" COMMON FOOTER},
    {"explain", "plan quiet catalog help ",
     "  explain SCENARIO --plan NAME|CANONICAL\n"
     "                         every quantity of one plan: equation, numbers, source\n",
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
    {"calibrate", "plan step-time peak-memory fit priors threads quiet catalog help ",
     "  calibrate SCENARIO --plan P --step-time SECONDS [--peak-memory GIB]\n"
     "                         solve flops_efficiency (and reserve_gib) from one\n"
     "                         measured run; prints the YAML lines to paste\n"
     "  calibrate RUNS.csv [--fit NUMBERS] [--priors FILE]\n"
     "                         fit up to four of gemm_efficiency, elementwise_efficiency,\n"
     "                         fp8_gemm_efficiency, gemm_half_gflop, attention_efficiency,\n"
     "                         microbatch_overhead_us (or the NUMBERS named) of one GPU\n"
     "                         type to many measured runs (header\n"
     "                         scenario,plan,column,value[,group]; docs/model.md)\n",
     "usage: planeval calibrate SCENARIO --plan P --step-time SECONDS [OPTIONS]\n"
     "       planeval calibrate RUNS.csv [--fit NUMBERS] [--priors FILE] [--threads N] [OPTIONS]\n"
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
     "(docs/model.md, \"Calibration across runs\"), then S6's step_time_below,\n"
     "step_time_above and step_time_interval_runs: the 80% prediction interval from\n"
     "the fit rows' leave-one-out residuals (docs/model.md, \"Prediction intervals\").\n"
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
     "                      others stay neutral, a measured one at its value\n"
     "                      (gemm_half_measured; F22's and F41's attention_efficiency)\n"
     "  --priors FILE       runs file: regularise the fit toward measured values (CSV\n"
     "                      number,value,width,basis; scenarios/calibration/priors/*.csv);\n"
     "                      without --fit the priors' numbers are fitted; a number the\n"
     "                      runs do not constrain stays at its measured value\n"
     "  --fit gemm_rate_scale  (or a priors file naming it) fit F26, a framework's GEMM\n"
     "                      rate, alone: runs of one framework preset, of any GPU types,\n"
     "                      each keeping its GPU preset's numbers; prints the line to\n"
     "                      paste under the framework preset\n"
     "  --threads N         runs file: the leave-one-out refits on N threads (default:\n"
     "                      online cores; the output is the same for any N)\n" COMMON FOOTER},
    {"grade", NULL,
     "  grade KEY SUBMISSION... [-o FILE] [--gradebook FILE] [--quiet]\n"
     "                         grade students' answers against the questions: of a\n"
     "                         drill scenario; writes a grades CSV (default\n"
     "                         out/<name>-grades.csv)\n",
    "usage: planeval grade KEY SUBMISSION... [OPTIONS]\n"
    "\n"
    "Grade students' answers against the questions: block of a drill scenario\n"
    "(KEY). A SUBMISSION directory means its *.yaml and *.yml files, in byte\n"
    "order of their names.\n"
    "The grades file has one row per student per question, then a total row per\n"
    "student; a submission that cannot be read is a row with its error and 0\n"
    "points, and a malformed answer costs that answer only.\n"
    "\n"
    "Several files of one student: the last by name (byte order of the paths)\n"
    "is graded; each other one is a row saying it is superseded by that file.\n"
    "Each student has one total.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the grades file (default out/<key name>-grades.csv)\n"
    "  --gradebook FILE    also one row per student: student, points, possible,\n"
    "                      percent, the file graded, a note (in byte order of the\n"
    "                      ids); a rejected file is a row too, 0 points, its error\n"
    "                      in the note, named by its file when no id can be read\n"
    "  --threads N         worker threads for ranking the key's plans\n"
    "  --quiet             no summary on stderr\n"
    "  --catalog DIR       add or override presets from DIR/*.yaml\n"
    "  --help              this text\n"
    "\n"
    "A missing SUBMISSION is an error (exit 2) and nothing is written.\n"
    "Submissions and questions: docs/scenarios.md and schemas/submission.schema.json.\n"},
    {"memory", NULL,
     "  memory [OPTIONS]       memory per GPU of one plan, no scenario file (--help)\n",
    "usage: planeval memory [MODEL] [CLUSTER] [PLAN] [--explain]\n"
    "\n"
    "Memory per GPU of one plan (docs/model.md §2-§3), no scenario file needed.\n"
    "model:   --model PRESET and/or --layers --hidden --heads --kv-heads --ffn-hidden\n"
    "         --vocab --seq-len --params --mlp --attention --norm --position\n"
    "cluster: --cluster PRESET (default mi300x-node) --gpu PRESET --hbm-gib\n"
    "         --reserve-gib --gpus-per-node; --nodes N (default: gpus / gpus_per_node,\n"
    "         and a plan on part of a node uses only its GPUs)\n"
    "plan:    every key of a scenario's plan as --KEY VALUE, '_' spelled '-'\n"
    "         (docs/scenarios.md \"plans[]\"; 'overlap' aside): --dp (default 1;\n"
    "         with --nodes, GPUs / (tp*pp*cp)) --tp --pp --cp --zero --recompute\n"
    "         --micro-batch --schedule --virtual-stages --sequence-parallel true|false\n"
    "         --ep --etp --first-stage-layers --last-stage-layers\n"
    "         --offload-optimizer true|false, ...\n"
    "         --global-batch (default dp * micro_batch * 4 * pp, i.e. m = 4 pp)\n"
    "fine-tune: --finetune full|lora --lora-rank R --lora-targets all-linear|attention|mlp\n"
    "         --lora-dropout P --base-quant none|nf4|int8 (docs/model.md M15-M17, A27)\n"
    "precision: every precision key: --param-bytes --grad-bytes --optimizer-bytes\n"
    "         (e.g. 8-bit Adam) --compute bf16|fp8 --fp8-recipe ...\n"
    "refined: --fidelity textbook|refined; --framework PRESET and every framework key\n"
    "         (--selective-recompute op, --recompute-method every, --memory-by-phase\n"
    "         true, ...): the peak by phase, reserved and device total (M9-M19)\n"
    "  --explain   print each equation with the numbers substituted\n"
    "  --catalog DIR  add or override presets from DIR/*.yaml, merged key by key\n"
    "Presets: see scenarios/catalog/.\n"},
    {"collective", NULL,
     "  collective [OPTIONS]   time and bus bandwidth of one collective (--help)\n",
    "usage: planeval collective --op OP --bytes S --group N [--stride K] [TOPOLOGY] [--explain]\n"
    "\n"
    "Time and bus bandwidth of one collective on a node topology (docs/model.md §5).\n"
    "  --op OP       all-reduce | reduce-scatter | all-gather | all-to-all | p2p\n"
    "  --bytes S     buffer size: 1e9, 512MiB, 2GB, ... (all-to-all: bytes sent per GPU)\n"
    "  --group N     members; --stride K distance between members' ranks (default 1)\n"
    "topology: --cluster PRESET (default mi300x-node), or override any of\n"
    "  --gpus-per-node G --topology switch|full_mesh --bandwidth-gb-s B (switch)\n"
    "  --links L --link-gb-s B (full_mesh) --intra-latency-us A\n"
    "  --nic-gb-s B --inter-latency-us A        (GB/s = 1e9 bytes/s per direction)\n"
    "  --explain     print each equation with the numbers substituted\n"},
    {"bubble", NULL,
     "  bubble [OPTIONS]       pipeline bubble and in-flight micro-batches (--help)\n",
    "usage: planeval bubble --schedule S --pp P --microbatches M [--virtual-stages V]\n"
    "                       [--tf X --tb Y] [--explain]\n"
    "\n"
    "Pipeline bubble fraction and micro-batches in flight (docs/model.md §3 k(stage), §7).\n"
    "  --schedule S        1f1b | interleaved | gpipe | zb-h1 | zb-h2 (default 1f1b)\n"
    "  --pp P              pipeline stages\n"
    "  --microbatches M    micro-batches per step per pipeline (m)\n"
    "  --virtual-stages V  model chunks per rank (interleaved only, >= 2)\n"
    "  --tf X, --tb Y      per-micro-batch forward and backward stage times\n"
    "                      (default 1 and 2: backward = 2 x forward, F5)\n"
    "  --explain           print each equation with the numbers substituted\n"},
};

/* The general usage around the commands' synopses. */
#define USAGE_HEAD                                                                        \
    "usage: planeval COMMAND [OPTIONS] ...\n"                                              \
    "\n"                                                                                   \
    "Evaluate distributed-training parallelism plans against memory and\n"                \
    "step-time budgets (the model: docs/model.md).\n"                                      \
    "\n"                                                                                   \
    "commands:\n"
#define USAGE_TAIL                                                                        \
    "  --help, --version      COMMAND --help: that command's options in full\n"           \
    "\n"                                                                                   \
    "common options:\n"                                                                    \
    "  --catalog DIR          add or override presets from DIR/*.yaml and *.yml\n"        \
    "\n"                                                                                   \
    "A SCENARIO argument that is a directory means every *.yaml and *.yml file in it\n"   \
    "(not recursive), in byte order of their names.\n"                                    \
    "exit status: 0 done, 1 a check failed, 2 bad input or usage, 3 internal or I/O error,\n" \
    "130/143 a run interrupted by SIGINT/SIGTERM (checkpoint written)\n"                  \
    "\n"                                                                                   \
    "Every scenario key, its default, range and an example, the report's columns\n"       \
    "and the exit statuses: docs/scenarios.md in the source tree.\n"

void command_usage_print(FILE *out)
{
    fputs(USAGE_HEAD, out);
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        fputs(HELP[i].synopsis, out);
    fputs(USAGE_TAIL, out);
}

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
    if (!h || !h->options || listed(h->options, option))
        return true;
    /* An option no command lists (one added to the parser but not here yet)
     * is not refused: the table only keeps options from the wrong command. */
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        if (HELP[i].options && listed(HELP[i].options, option))
            return false;
    return true;
}
