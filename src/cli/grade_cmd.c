/* grade_cmd.c — `planeval grade KEY SUBMISSION... [OPTIONS]`: its options
 * and the checks on its files (a submission given twice, an output that
 * is an input), then the grading (grade/grade.h) and its closing line. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/command_help.h"
#include "cli/long_options.h"
#include "grade/grade.h"

/* Grade, then the closing line (unless quiet) or the error. */
static int grade(const pe_catalog *catalog, const char *key, const pe_file_list *files,
                 const pe_grade_options *opt, bool quiet)
{
    pe_error err = {0};
    pe_grade_summary sum;
    const pe_grade_files subs = {files->paths, files->count};
    pe_status st = grade_submissions(catalog, key, &subs, opt, &sum, &err);
    if (st != PE_OK)
        cli_print_error(&err);
    else if (!quiet)
        fprintf(stderr,
                "%s: %zu submission%s graded, %zu rejected (see the error column), %zu "
                "superseded by a later file of the same student -> %s\n",
                sum.key_name, sum.graded, sum.graded == 1 ? "" : "s", sum.rejected,
                sum.superseded, sum.output);
    return st;
}

enum { G_CATALOG = 256, G_THREADS, G_QUIET, G_HELP, G_GRADEBOOK };
static const struct option GRADE_OPTIONS[] = {
    {"output", required_argument, NULL, 'o'},
    {"gradebook", required_argument, NULL, G_GRADEBOOK},
    {"catalog", required_argument, NULL, G_CATALOG},
    {"threads", required_argument, NULL, G_THREADS},
    {"quiet", no_argument, NULL, G_QUIET},
    {"help", no_argument, NULL, G_HELP},
    {NULL, 0, NULL, 0},
};

/* grade's options; -1 to go on, else the exit status (0 after --help). */
static int grade_options(int argc, char **argv, pe_grade_options *opt, bool *quiet,
                         const char **catalog_dir)
{
    char msg[256];
    if (!long_options_spelled_out(argc, argv, 1, GRADE_OPTIONS, "o:", msg, sizeof msg))
        return cli_usage_error("grade: %s", msg);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", GRADE_OPTIONS, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!cli_path_given("-o", optarg))
                return PE_BAD_INPUT;
            opt->output = optarg;
            break;
        case G_GRADEBOOK:
            if (!cli_path_given("--gradebook", optarg))
                return PE_BAD_INPUT;
            opt->gradebook = optarg;
            break;
        case G_CATALOG: *catalog_dir = optarg; break;
        case G_THREADS:
            if (!cli_parse_threads(optarg, &opt->threads))
                return cli_usage_error("--threads needs a whole number in 1..4096, got '%s'", optarg);
            break;
        case G_QUIET: *quiet = true; break;
        case G_HELP: fputs(command_help_text("grade"), stdout); return 0;
        default: return cli_usage_error("grade: unknown option '%s' or a missing value", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("%s", "grade: no key given (planeval grade KEY SUBMISSION...)");
    if (optind + 1 >= argc)
        return cli_usage_error("%s", "grade: no submission given (planeval grade KEY SUBMISSION...)");
    return -1;
}

/* Whether a and b name the same directory entry's file, links not
 * followed: a link to another submission is not that submission given
 * twice (grade refuses the link as a row of its own). */
static bool same_entry(const char *a, const char *b)
{
    struct stat sa, sb;
    return lstat(a, &sa) == 0 && lstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* A submission given twice, or an output that is the key, a submission or
 * the other output (it would overwrite it): refused before anything is
 * read (status 2), else -1. */
static int outputs_clash(const pe_grade_options *opt, const char *key, const pe_file_list *files)
{
    const char *outputs[2] = {opt->output, opt->gradebook};
    const char *names[2] = {"-o", "--gradebook"};
    if (outputs[0] && outputs[1] &&
        (strcmp(outputs[0], outputs[1]) == 0 || cli_same_file(outputs[0], outputs[1])))
        return cli_usage_error("grade: --gradebook %s is also the grades file (-o): give "
                               "another file", outputs[1]);
    for (size_t i = 0; i < files->count; i++)
        for (size_t j = i + 1; j < files->count; j++)
            if (same_entry(files->paths[i], files->paths[j])) {
                fprintf(stderr, "planeval: grade: %s is given twice (also as %s): a student's "
                        "file would supersede itself; give each submission once\n",
                        files->paths[j], files->paths[i]);
                return PE_BAD_INPUT;
            }
    for (int o = 0; o < 2; o++) {
        const char *clash = outputs[o] && cli_same_file(outputs[o], key) ? key : NULL;
        for (size_t i = 0; outputs[o] && !clash && i < files->count; i++)
            clash = cli_same_file(outputs[o], files->paths[i]) ? files->paths[i] : NULL;
        if (clash) {
            fprintf(stderr, "planeval: grade: %s %s is also an input (%s): writing it would "
                    "destroy it; give another file\n", names[o], outputs[o], clash);
            return PE_BAD_INPUT;
        }
    }
    return -1;
}

/* grade: KEY, then submissions (files or directories of *.yaml and *.yml), -o FILE. */
int cli_grade(int argc, char **argv, const cli_context *ctx)
{
    (void)ctx;
    pe_grade_options opt = {0};
    bool quiet = false;
    const char *catalog_dir = NULL;
    int status = grade_options(argc, argv, &opt, &quiet, &catalog_dir);
    if (status >= 0)
        return status;
    if (opt.threads == 0)
        opt.threads = cli_online_cores();
    pe_catalog *catalog = NULL;
    pe_status cst = cli_open_catalog(catalog_dir, &catalog);
    if (cst != PE_OK)
        return cst;
    pe_file_list files = {0};
    status = cli_expand_paths(argv + optind + 1, argc - optind - 1, &files);
    if (status == PE_BAD_INPUT) /* a grades file missing a student's work would mislead */
        fprintf(stderr, "planeval: grade: a submission above is missing: nothing written\n");
    else if (status == PE_OK && (status = outputs_clash(&opt, argv[optind], &files)) < 0)
        status = grade(catalog, argv[optind], &files, &opt, quiet);
    file_list_free(&files);
    catalog_free(catalog);
    return status;
}
