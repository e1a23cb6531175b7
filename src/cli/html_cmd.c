/* html_cmd.c — `planeval html`: reports read back, pages written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <getopt.h>

#include "cli/cli.h"
#include "cli/command_help.h"
#include "cli/long_options.h"
#include "cli/html_cmd.h"
#include "output/atomic_file.h"
#include "output/html_read.h"


/* DIR/<stem>.html of a report path. */
static void page_path(const char *report, const char *dir, char *out, size_t size)
{
    const char *base = strrchr(report, '/');
    base = base ? base + 1 : report;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".csv") == 0)
        len -= 4;
    snprintf(out, size, "%s/%.*s.html", dir, (int)len, base);
}

static pe_status one_report(const char *report, const char *dir, bool quiet, pe_error *err)
{
    pe_html_page *page = calloc(1, sizeof *page);
    if (!page)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    pe_html_source src;
    pe_status st = html_read_report(report, page, &src, err);
    char path[PE_PATH_MAX + 64];
    page_path(report, dir, path, sizeof path);
    if (st == PE_OK) {
        st = html_write(path, page, src.points, src.n, err);
        html_source_free(&src);
    }
    if (st == PE_OK && !quiet)
        fprintf(stderr, "%s -> %s\n", report, path);
    free(page);
    return st;
}

int html_reports(char *const *paths, int n, const char *dir, bool quiet,
                 void (*on_error)(const pe_error *err))
{
    int status = PE_OK;
    atomic_file_clean_stale(dir); /* left by a killed html or run --html */
    for (int i = 0; i < n; i++) {
        /* two reports with one stem would write one page */
        pe_error err = {0};
        pe_status st = PE_OK;
        char mine[PE_PATH_MAX + 64], other[PE_PATH_MAX + 64];
        page_path(paths[i], dir, mine, sizeof mine);
        for (int j = 0; j < i && st == PE_OK; j++) {
            page_path(paths[j], dir, other, sizeof other);
            if (strcmp(mine, other) == 0)
                st = pe_fail(&err, PE_BAD_INPUT, paths[i], 0, 0,
                             "its page would be %s, as the page of %s: give reports of "
                             "different file names", mine, paths[j]);
        }
        if (st == PE_OK)
            st = one_report(paths[i], dir, quiet, &err);
        if (st != PE_OK) {
            on_error(&err);
            status = (int)st > status ? (int)st : status;
        }
    }
    return status;
}

int cli_html(int argc, char **argv, const cli_context *ctx)
{
    enum { H_QUIET = 256, H_HELP };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, H_QUIET},
        {"help", no_argument, NULL, H_HELP},
        {NULL, 0, NULL, 0},
    };
    (void)ctx;
    const char *dir = "out";
    bool quiet = false;
    char msg[256];
    if (!long_options_spelled_out(argc, argv, 1, options, "o:", msg, sizeof msg))
        return cli_usage_error("html: %s", msg);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!cli_path_given("-o", optarg))
                return PE_BAD_INPUT;
            dir = optarg;
            break;
        case H_QUIET: quiet = true; break;
        case H_HELP: fputs(command_help_text("html"), stdout); return 0;
        default: return cli_usage_error("html: unknown option '%s' or a missing value",
                                        argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("%s", "html: no report given (planeval html REPORT.csv... [-o DIR])");
    return html_reports(argv + optind, argc - optind, dir, quiet, cli_print_error);
}
