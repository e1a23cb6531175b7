/* main.c — argument parsing, dispatch, printing errors, exit codes.
 * Exit status (interface.md): 0 done; 1 a check failed; 2 bad input or
 * usage; 3 an internal or I/O error; with several files, the highest. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/calc.h"
#include "input/catalog.h"
#include "cli/commands.h"
#include "core/error.h"
#include "cli/grade.h"

static void print_error(const pe_error *err)
{
    char buf[PE_PATH_MAX + PE_MSG_MAX + 64];
    pe_error_format(err, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

static int worst(int a, int b) { return a > b ? a : b; }

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
    "step-time budgets (model: the planeval v1 spec).\n"
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
    "      (SIGINT/SIGTERM during a sweep write that checkpoint; exit 130/143)\n"
    "  merge REPORT.csv... -o FILE [--top K]\n"
    "                         join shard reports into the report one run gives\n"
    "  validate SCENARIO...   load and validate only\n"
    "  check SCENARIO...      evaluate every expect: assertion; exit 1 on any miss\n"
    "      --golden DIR       also compare whole reports with DIR/<name>.csv\n"
    "      --rel-tol X        relative tolerance of numeric cells (default 1e-9)\n"
    "      --update-golden    rewrite the golden reports instead\n"
    "      --table            numeric assertions as a Markdown table: expected, got, error %\n"
    "  explain SCENARIO --plan NAME|CANONICAL\n"
    "                         every quantity of one plan: equation, numbers, source\n"
    "  calibrate SCENARIO --plan P --step-time SECONDS [--peak-memory GIB]\n"
    "                         solve flops_efficiency (and reserve_gib) from one\n"
    "                         measured run; prints the YAML lines to paste\n"
    "  calibrate RUNS.csv     fit gemm_efficiency, gemm_half_gflop, attention_efficiency and\n"
    "                         elementwise_efficiency of one GPU type to many measured runs\n"
    "                         (header scenario,plan,column,value[,group]; docs/model.md)\n"
    "  grade KEY SUBMISSION... [-o FILE] [--quiet]\n"
    "                         grade students' answers against the questions: of a\n"
    "                         drill scenario; writes a grades CSV (default\n"
    "                         out/<name>-grades.csv)\n"
    "  memory [OPTIONS]       memory per GPU of one plan, no scenario file (--help)\n"
    "  collective [OPTIONS]   time and bus bandwidth of one collective (--help)\n"
    "  bubble [OPTIONS]       pipeline bubble and in-flight micro-batches (--help)\n"
    "  --help, --version\n"
    "\n"
    "common options:\n"
    "  --catalog DIR          add or override presets from DIR/*.yaml\n"
    "\n"
    "A SCENARIO argument that is a directory means every *.yaml file in it\n"
    "(not recursive), in byte order of their names.\n"
    "exit status: 0 done, 1 a check failed, 2 bad input or usage, 3 internal or I/O error,\n"
    "130/143 a run interrupted by SIGINT/SIGTERM (checkpoint written)\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "planeval: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'planeval --help'.\n");
    return PE_BAD_INPUT;
}

/* --threads N: a whole number in 1..4096. */
static bool parse_threads(const char *text, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || end == text || n < 1 || n > 4096)
        return false;
    *out = (int)n;
    return true;
}

/* --threads default: the machine's online cores. */
static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The catalog, with --catalog DIR; a bad catalog is printed here. */
static pe_status open_catalog(const char *dir, pe_catalog **catalog)
{
    pe_error err = {0};
    pe_status st = catalog_open(dir, catalog, &err);
    if (st != PE_OK)
        print_error(&err);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_yaml_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

/* Expand arguments: a directory means its *.yaml files in byte order.
 * A missing path is reported (status 2) and skipped. */
static int expand_paths(char **args, int n, pe_file_list *out)
{
    int status = PE_OK;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            fprintf(stderr, "%s: error: %s\n", args[i], strerror(errno));
            status = worst(status, PE_BAD_INPUT);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (file_list_add(out, args[i], NULL) != PE_OK)
                return PE_INTERNAL;
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            fprintf(stderr, "%s: error: %s\n", args[i], strerror(errno));
            status = worst(status, PE_BAD_INPUT);
            continue;
        }
        size_t first = out->count;
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && has_yaml_suffix(e->d_name))
                if (file_list_add(out, args[i], e->d_name) != PE_OK) {
                    closedir(d);
                    return PE_INTERNAL;
                }
        closedir(d);
        qsort(out->paths + first, out->count - first, sizeof *out->paths, cmp_str);
    }
    return status;
}

/* A calculator: its own options; --catalog DIR may come first. */
static int run_calculator(const char *command, int argc, char **argv)
{
    const char *catalog_dir = NULL;
    if (argc >= 3 && strcmp(argv[1], "--catalog") == 0) {
        catalog_dir = argv[2];
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    pe_error err = {0};
    pe_catalog *catalog = NULL;
    int status = PE_OK;
    if (strcmp(command, "bubble") == 0) {
        status = calc_bubble(argc, argv, &err);
    } else if ((status = catalog_open(catalog_dir, &catalog, &err)) == PE_OK) {
        status = strcmp(command, "memory") == 0 ? calc_memory(argc, argv, catalog, &err)
                                                : calc_collective(argc, argv, catalog, &err);
    }
    if (status != PE_OK)
        print_error(&err);
    catalog_free(catalog);
    return status;
}

/* grade: KEY, then submissions (files or directories of *.yaml), -o FILE. */
static int run_grade(int argc, char **argv)
{
    enum { G_CATALOG = 256, G_THREADS, G_QUIET, G_HELP };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"catalog", required_argument, NULL, G_CATALOG},
        {"threads", required_argument, NULL, G_THREADS},
        {"quiet", no_argument, NULL, G_QUIET},
        {"help", no_argument, NULL, G_HELP},
        {NULL, 0, NULL, 0},
    };
    pe_grade_options opt = {.on_error = print_error};
    const char *catalog_dir = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (c) {
        case 'o': opt.output = optarg; break;
        case G_CATALOG: catalog_dir = optarg; break;
        case G_THREADS:
            if (!parse_threads(optarg, &opt.threads))
                return usage_error("--threads needs a whole number in 1..4096, got '%s'", optarg);
            break;
        case G_QUIET: opt.quiet = true; break;
        case G_HELP:
            fputs("usage: planeval grade KEY SUBMISSION... [-o FILE] [--quiet] [--catalog DIR]\n"
                  "KEY is a drill scenario with a questions: block; a SUBMISSION directory\n"
                  "means every *.yaml in it, in byte order. One CSV row per student per\n"
                  "question, then a total row per student.\n",
                  stdout);
            return 0;
        default: return usage_error("grade: unknown option '%s' or a missing value", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "grade: no key given (planeval grade KEY SUBMISSION...)");
    if (optind + 1 >= argc)
        return usage_error("%s", "grade: no submission given (planeval grade KEY SUBMISSION...)");
    if (opt.threads == 0)
        opt.threads = online_cores();
    pe_catalog *catalog = NULL;
    pe_status cst = open_catalog(catalog_dir, &catalog);
    if (cst != PE_OK)
        return cst;
    pe_file_list files = {0};
    int status = expand_paths(argv + optind + 1, argc - optind - 1, &files);
    if (status != PE_INTERNAL)
        status = worst(status, command_grade(catalog, argv[optind], &files, &opt));
    file_list_free(&files);
    catalog_free(catalog);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command given");
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0) {
        printf("planeval %s (scenario schema planeval/v1)\n", PLANEVAL_VERSION);
        return 0;
    }

    /* The calculators take their own options (calc.h). */
    if (strcmp(command, "memory") == 0 || strcmp(command, "collective") == 0 ||
        strcmp(command, "bubble") == 0)
        return run_calculator(command, argc - 1, argv + 1);
    if (strcmp(command, "grade") == 0)
        return run_grade(argc - 1, argv + 1);

    pe_command_fn handler = NULL;
    if (strcmp(command, "run") == 0)
        handler = command_run;
    else if (strcmp(command, "validate") == 0)
        handler = command_validate;
    else if (strcmp(command, "check") == 0)
        handler = command_check;
    else if (strcmp(command, "merge") == 0)
        handler = command_merge;
    else if (strcmp(command, "calibrate") == 0)
        handler = command_calibrate;
    else if (strcmp(command, "explain") == 0)
        handler = command_explain;
    else
        return usage_error("unknown command '%s'", command);

    enum {
        OPT_TOP = 256, OPT_THREADS, OPT_QUIET, OPT_CATALOG, OPT_PLAN, OPT_HELP, OPT_GOLDEN,
        OPT_UPDATE_GOLDEN, OPT_REL_TOL, OPT_STEP_TIME, OPT_PEAK_MEMORY, OPT_TABLE, OPT_SHARD, OPT_RESUME
    };
    static const struct option options[] = {
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
        {"step-time", required_argument, NULL, OPT_STEP_TIME},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"peak-memory", required_argument, NULL, OPT_PEAK_MEMORY},
        {"table", no_argument, NULL, OPT_TABLE},
        {NULL, 0, NULL, 0},
    };
    pe_command_options opt = {.output_dir = "out", .on_error = print_error, .golden_rel_tol = 1e-9,
                              .stop = &stop_signal};
    const char *catalog_dir = NULL;
    optind = 2;
    opterr = 0; /* one message, ours */
    int c;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o':
            opt.output_dir = optarg;
            opt.output_given = true;
            break;
        case OPT_TOP:
            errno = 0;
            opt.top_k = strtoull(optarg, &end, 10);
            if (errno || *end || optarg[0] == '-' || opt.top_k == 0)
                return usage_error("--top needs a whole number >= 1, got '%s'", optarg);
            break;
        case OPT_THREADS:
            if (!parse_threads(optarg, &opt.threads))
                return usage_error("--threads needs a whole number in 1..4096, got '%s'", optarg);
            break;
        case OPT_QUIET:
            opt.quiet = true;
            break;
        case OPT_CATALOG:
            catalog_dir = optarg;
            break;
        case OPT_PLAN:
            opt.plan = optarg;
            break;
        case OPT_HELP:
            fputs(USAGE, stdout);
            return 0;
        case OPT_GOLDEN:
            opt.golden_dir = optarg;
            break;
        case OPT_UPDATE_GOLDEN:
            opt.update_golden = true;
            break;
        case OPT_TABLE:
            opt.table = true;
            break;
        case OPT_SHARD: {
            unsigned long long i, n;
            char extra;
            if (sscanf(optarg, "%llu/%llu%c", &i, &n, &extra) != 2 || n < 1 || i >= n ||
                optarg[0] == '-' || strchr(optarg, '-'))
                return usage_error("--shard needs I/N with 0 <= I < N, got '%s'", optarg);
            opt.shard_index = i;
            opt.shard_count = n;
            break;
        }
        case OPT_RESUME:
            opt.resume = true;
            break;
        case OPT_STEP_TIME:
        case OPT_PEAK_MEMORY: {
            errno = 0;
            double x = strtod(optarg, &end);
            if (errno || *end || !(x > 0) || !isfinite(x))
                return usage_error("--step-time and --peak-memory need a number > 0, got '%s'",
                                   optarg);
            *(c == OPT_STEP_TIME ? &opt.measured_step_s : &opt.measured_peak_gib) = x;
            break;
        }
        case OPT_REL_TOL:
            errno = 0;
            opt.golden_rel_tol = strtod(optarg, &end);
            if (errno || *end || !(opt.golden_rel_tol >= 0))
                return usage_error("--rel-tol needs a number >= 0, got '%s'", optarg);
            break;
        default:
            return usage_error("unknown option '%s' or a missing value", argv[optind - 1]);
        }
    }
    if (opt.update_golden && !opt.golden_dir)
        return usage_error("%s", "--update-golden needs --golden DIR");
    if (opt.threads == 0)
        opt.threads = online_cores();

    if (optind >= argc)
        return usage_error("%s: no scenario given", command);
    if (handler == command_run)
        install_stop_handlers();

    pe_catalog *catalog = NULL;
    pe_status cst = open_catalog(catalog_dir, &catalog);
    if (cst != PE_OK)
        return cst;
    pe_file_list files = {0};
    int status = expand_paths(argv + optind, argc - optind, &files);
    if (status != PE_INTERNAL)
        status = worst(status, handler(catalog, &files, &opt));
    file_list_free(&files);
    catalog_free(catalog);
    if (status == PE_INTERRUPTED) /* 130 for SIGINT, 143 for SIGTERM */
        return 128 + (stop_signal ? stop_signal : SIGINT);
    return status;
}
