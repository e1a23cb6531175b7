/* scenario_options.c — the options of the commands over scenario files
 * (run, validate, check, merge, calibrate, explain; usage in command_help.c), then
 * the command over the expanded files. One option table for all of them;
 * each command takes the options its help lists (command_help.h) and reads
 * the fields of pe_command_options it needs. Long options are spelled in
 * full (long_options.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/evaluate.h"
#include "cli/command_help.h"
#include "cli/long_options.h"

enum {
    OPT_TOP = 256, OPT_THREADS, OPT_QUIET, OPT_CATALOG, OPT_PLAN, OPT_HELP, OPT_GOLDEN,
    OPT_UPDATE_GOLDEN, OPT_REL_TOL, OPT_STEP_TIME, OPT_PEAK_MEMORY, OPT_TABLE, OPT_SHARD, OPT_RESUME,
    OPT_HTML, OPT_STATUS, OPT_PARETO, OPT_DIGITS,
    OPT_ALLOW_PARTIAL, OPT_ABS_TOL, OPT_FIT, OPT_RANK_TOL, OPT_MAX_LINES, OPT_FORMAT, OPT_PROGRESS,
    OPT_PRIORS
};

static const struct option OPTIONS[] = {
    {"output", required_argument, NULL, 'o'},
    {"top", required_argument, NULL, OPT_TOP},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"catalog", required_argument, NULL, OPT_CATALOG},
    {"plan", required_argument, NULL, OPT_PLAN},
    {"help", no_argument, NULL, OPT_HELP},
    {"golden", required_argument, NULL, OPT_GOLDEN},
    {"update-golden", no_argument, NULL, OPT_UPDATE_GOLDEN},
    {"rel-tol", required_argument, NULL, OPT_REL_TOL},
    {"abs-tol", required_argument, NULL, OPT_ABS_TOL},
    {"step-time", required_argument, NULL, OPT_STEP_TIME},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"allow-partial", no_argument, NULL, OPT_ALLOW_PARTIAL},
    {"peak-memory", required_argument, NULL, OPT_PEAK_MEMORY},
    {"table", no_argument, NULL, OPT_TABLE},
    {"html", no_argument, NULL, OPT_HTML},
    {"status", required_argument, NULL, OPT_STATUS},
    {"pareto", no_argument, NULL, OPT_PARETO},
    {"digits", required_argument, NULL, OPT_DIGITS},
    {"fit", required_argument, NULL, OPT_FIT},
    {"rank-tol", required_argument, NULL, OPT_RANK_TOL},
    {"max-lines", required_argument, NULL, OPT_MAX_LINES},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"priors", required_argument, NULL, OPT_PRIORS},
    {NULL, 0, NULL, 0},
};

/* What an option's value did: taken, --help printed, or a usage error. */
enum { TAKEN = -1, HELP_SHOWN = 0 };

static int take_top(const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    opt->top_k = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] == '-' || opt->top_k == 0)
        return cli_usage_error("--top needs a whole number >= 1, got '%s'", arg);
    return TAKEN;
}

/* One whole number of I/N: decimal digits only, below 2^64 (strtoull
 * would take a sign or spaces, and clamp what overflows). */
static bool shard_number(const char *text, char stop, const char **end, unsigned long long *out)
{
    char *e;
    errno = 0;
    *out = strtoull(text, &e, 10);
    *end = e;
    return text[0] >= '0' && text[0] <= '9' && errno == 0 && *e == stop;
}

static int take_shard(const char *arg, pe_command_options *opt)
{
    unsigned long long i, n;
    const char *end;
    if (!shard_number(arg, '/', &end, &i) || !shard_number(end + 1, '\0', &end, &n) || n < 1 ||
        i >= n)
        return cli_usage_error("--shard needs I/N with 0 <= I < N < 2^64, got '%s'", arg);
    opt->shard_index = i;
    opt->shard_count = n;
    return TAKEN;
}

/* --step-time SECONDS, --peak-memory GIB (calibrate). */
static int take_measured(int c, const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (errno || *end || !(x > 0) || !isfinite(x))
        return cli_usage_error("--step-time and --peak-memory need a number > 0, got '%s'", arg);
    *(c == OPT_STEP_TIME ? &opt->measured_step_s : &opt->measured_peak_gib) = x;
    return TAKEN;
}

/* --rel-tol X, --abs-tol X (check --golden). */
static int take_tol(int c, const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (errno || *end || end == arg || !(x >= 0) || !isfinite(x))
        return cli_usage_error(c == OPT_REL_TOL ? "--rel-tol needs a number >= 0, got '%s'"
                                                : "--abs-tol needs a number >= 0, got '%s'",
                               arg);
    *(c == OPT_REL_TOL ? &opt->golden_rel_tol : &opt->golden_abs_tol) = x;
    return TAKEN;
}

/* --rank-tol N, --max-lines N (check --golden): a whole number >= 0. */
static int take_count(int c, const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '0' || arg[0] > '9')
        return cli_usage_error(c == OPT_RANK_TOL ? "--rank-tol needs a whole number >= 0, got '%s'"
                                                 : "--max-lines needs a whole number >= 0 (0: "
                                                   "every line), got '%s'",
                               arg);
    *(c == OPT_RANK_TOL ? &opt->golden_rank_tol : &opt->golden_max_lines) = n;
    return TAKEN;
}

/* --format text|junit|json (check). */
static int take_format(const char *arg, pe_command_options *opt)
{
    static const char *const names[] = {"text", "junit", "json"};
    for (int f = 0; f < 3; f++)
        if (strcmp(arg, names[f]) == 0) {
            opt->format = (pe_check_format)f;
            return TAKEN;
        }
    return cli_usage_error("--format needs text, junit or json, got '%s'", arg);
}

/* --status ok,over_time: the statuses a report writes. */
static int take_status(const char *arg, pe_command_options *opt)
{
    unsigned mask = 0;
    for (const char *p = arg;; p++) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < 4; k++)
            if (len == strlen(pe_plan_status_name((pe_plan_status)k)) &&
                strncmp(p, pe_plan_status_name((pe_plan_status)k), len) == 0)
                found = k;
        if (found < 0)
            return cli_usage_error("--status needs statuses from ok, over_time, over_memory, "
                                   "invalid, separated by commas, got '%s'", arg);
        mask |= 1u << found;
        p += len;
        if (!*p)
            break;
    }
    opt->status_mask = mask;
    return TAKEN;
}

/* --digits N: 1..17 significant digits (17 round-trips every double). */
static int take_digits(const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    long n = strtol(arg, &end, 10);
    if (errno || *end || end == arg || n < 1 || n > 17)
        return cli_usage_error("--digits needs a whole number in 1..17, got '%s'", arg);
    opt->digits = (int)n;
    return TAKEN;
}

/* --progress SECONDS: a progress line every SECONDS off a terminal, 0 none. */
static int take_progress(const char *arg, pe_command_options *opt)
{
    char *end;
    errno = 0;
    long n = strtol(arg, &end, 10);
    if (errno || *end || end == arg || arg[0] == '-' || arg[0] == '+' || n > 86400)
        return cli_usage_error("--progress needs a whole number of seconds in 0..86400 (0: no "
                               "progress), got '%s'", arg);
    opt->progress_s = (int)n;
    return TAKEN;
}

/* Options that do not go together (after every option is read). */
static int check_combinations(const pe_command_options *opt)
{
    if (opt->update_golden && !opt->golden_dir)
        return cli_usage_error("%s", "--update-golden needs --golden DIR");
    if (opt->format != PE_CHECK_TEXT && opt->table)
        return cli_usage_error("%s", "--format junit|json cannot be combined with --table (the "
                                     "table is Markdown for people)");
    if (opt->pareto && opt->status_mask && !(opt->status_mask & 1u << PE_STATUS_OK))
        return cli_usage_error("%s", "--pareto writes ok plans only: --status must include ok");
    if (opt->pareto && opt->shard_count)
        return cli_usage_error("%s", "--pareto cannot be combined with --shard (a shard's Pareto "
                                     "front is not the sweep's: merge the shards, then planeval "
                                     "html draws the front)");
    if (opt->digits && opt->shard_count)
        return cli_usage_error("%s", "--digits cannot be combined with --shard (merge re-ranks "
                                     "shards by their exact figures)");
    return TAKEN;
}

/* The long name of option c ("output" for -o). */
static const char *option_name(int c)
{
    for (const struct option *o = OPTIONS; o->name; o++)
        if (o->val == c)
            return o->name;
    return NULL;
}

/* --help: the command's own text, or the general usage. */
static int show_help(const char *command)
{
    const char *text = command_help_text(command);
    if (text)
        fputs(text, stdout);
    else
        command_usage_print(stdout);
    return HELP_SHOWN;
}

/* Option c (getopt_long's answer) with its value optarg. */
static int take_option(int c, char **argv, pe_command_options *opt, const char **catalog_dir)
{
    switch (c) {
    case 'o':
        if (!cli_path_given("-o", optarg))
            return PE_BAD_INPUT;
        opt->output_dir = optarg;
        opt->output_given = true;
        return TAKEN;
    case OPT_TOP: return take_top(optarg, opt);
    case OPT_THREADS:
        if (!cli_parse_threads(optarg, &opt->threads))
            return cli_usage_error("--threads needs a whole number in 1..4096, got '%s'", optarg);
        return TAKEN;
    case OPT_QUIET: opt->quiet = true; return TAKEN;
    case OPT_CATALOG:
        *catalog_dir = optarg;
        return cli_path_given("--catalog", optarg) ? TAKEN : PE_BAD_INPUT;
    case OPT_PLAN: opt->plan = optarg; return TAKEN;
    case OPT_HELP: return show_help(argv[0]);
    case OPT_GOLDEN:
        opt->golden_dir = optarg;
        return cli_path_given("--golden", optarg) ? TAKEN : PE_BAD_INPUT;
    case OPT_UPDATE_GOLDEN: opt->update_golden = true; return TAKEN;
    case OPT_TABLE: opt->table = true; return TAKEN;
    case OPT_SHARD: return take_shard(optarg, opt);
    case OPT_RESUME: opt->resume = true; return TAKEN;
    case OPT_ALLOW_PARTIAL: opt->allow_partial = true; return TAKEN;
    case OPT_STEP_TIME:
    case OPT_PEAK_MEMORY: return take_measured(c, optarg, opt);
    case OPT_HTML: opt->html = true; return TAKEN;
    case OPT_STATUS: return take_status(optarg, opt);
    case OPT_PARETO: opt->pareto = true; return TAKEN;
    case OPT_DIGITS: return take_digits(optarg, opt);
    case OPT_FIT: opt->fit_numbers = optarg; return TAKEN; /* names checked by calibrate */
    case OPT_PROGRESS: return take_progress(optarg, opt);
    case OPT_PRIORS:
        opt->priors_path = optarg;
        return cli_path_given("--priors", optarg) ? TAKEN : PE_BAD_INPUT;
    case OPT_REL_TOL:
    case OPT_ABS_TOL: return take_tol(c, optarg, opt);
    case OPT_RANK_TOL:
    case OPT_MAX_LINES: return take_count(c, optarg, opt);
    case OPT_FORMAT: return take_format(optarg, opt);
    default: return cli_usage_error("unknown option '%s' or a missing value", argv[optind - 1]);
    }
}

/* "planeval: COMMAND: message" and the command's --help hint; returns 2. */
static int command_usage_error(const char *command, const char *message)
{
    fprintf(stderr, "planeval: %s: %s\nTry 'planeval %s --help'.\n", command, message, command);
    return PE_BAD_INPUT;
}

/* The handler over the files of argv[first..]: catalog, expansion, run. */
static int run_over_files(int argc, char **argv, int first, const char *catalog_dir,
                          pe_command_fn handler, const pe_command_options *opt)
{
    pe_catalog *catalog = NULL;
    pe_status cst = cli_open_catalog(catalog_dir, &catalog);
    if (cst != PE_OK)
        return cst;
    pe_file_list files = {0};
    /* merge's reports are one run's shards, not independent files: one
     * missing stops it before anything is written */
    const bool shards = handler == command_merge;
    int status = shards ? cli_expand_files(argv + first, argc - first, &files)
                        : cli_expand_paths(argv + first, argc - first, &files);
    if (shards && status == PE_BAD_INPUT)
        fprintf(stderr, "planeval: merge: a report above is missing: nothing written\n");
    else if (status != PE_INTERNAL)
        status = cli_worst(status, handler(catalog, &files, opt));
    file_list_free(&files);
    catalog_free(catalog);
    return status;
}

int cli_scenario_command(int argc, char **argv, pe_command_fn handler, const cli_context *ctx)
{
    pe_command_options opt = {.output_dir = "out", .on_error = cli_print_error,
                              .golden_rel_tol = 1e-9, .golden_max_lines = 50,
                              .stop = ctx->stop, .progress_s = -1};
    const char *catalog_dir = NULL;
    char msg[256];
    if (!long_options_spelled_out(argc, argv, 1, OPTIONS, "o:", msg, sizeof msg))
        return command_usage_error(argv[0], msg);
    optind = 1;
    opterr = 0; /* one message, ours */
    int c;
    while ((c = getopt_long(argc, argv, "o:", OPTIONS, NULL)) != -1) {
        const char *name = option_name(c);
        if (name && !command_takes_option(argv[0], name)) {
            snprintf(msg, sizeof msg, "%s does not take --%s", argv[0], name);
            return command_usage_error(argv[0], msg);
        }
        int taken = take_option(c, argv, &opt, &catalog_dir);
        if (taken != TAKEN)
            return taken;
    }
    int combination = check_combinations(&opt);
    if (combination != TAKEN)
        return combination;
    if (opt.threads == 0)
        opt.threads = cli_online_cores();
    if (optind >= argc)
        return cli_usage_error(handler == command_merge ? "%s: no report given"
                                                        : "%s: no scenario given",
                               argv[0]);
    /* explain and calibrate read one scenario (or one runs file): a second
     * path (a typo, or words after `--`) is refused before anything is
     * loaded or printed, not dropped as a missing file beside the output */
    if ((handler == command_explain || handler == command_calibrate) && argc - optind != 1) {
        snprintf(msg, sizeof msg, "%s takes exactly one scenario", argv[0]);
        return command_usage_error(argv[0], msg);
    }
    if (handler == command_run)
        ctx->install_stop_handlers();
    return run_over_files(argc, argv, optind, catalog_dir, handler, &opt);
}
