/* compare_cmd.c — `planeval compare`: options and printing; the work is
 * output/compare.h's. */
#include <stdio.h>
#include <stdlib.h>

#include <getopt.h>

#include "cli/cli.h"
#include "cli/command_help.h"
#include "cli/long_options.h"
#include "output/compare.h"

/* Read every report (each mistake printed), then the table and the page. */
static int compare_reports(char *const *paths, int n, const char *page)
{
    pe_compare_rows rows = {0};
    int status = PE_OK;
    for (int i = 0; i < n; i++) {
        pe_error err = {0};
        pe_status st = compare_read_groups(paths[i], &rows, &err);
        if (st != PE_OK) {
            cli_print_error(&err);
            status = (int)st > status ? (int)st : status;
        }
    }
    if (status == PE_OK) {
        bool by_cost;
        compare_pareto(rows.rows, rows.n, &by_cost);
        /* the page first: a page that cannot be written (bad input for a
         * directory, an I/O error otherwise) is refused before stdout */
        pe_error err = {0};
        pe_status st = page ? compare_write_html(page, rows.rows, rows.n, by_cost, &err) : PE_OK;
        if (st != PE_OK) {
            cli_print_error(&err);
            status = (int)st;
        } else
            compare_write_text(stdout, rows.rows, rows.n, by_cost);
    }
    free(rows.rows);
    return status;
}

int cli_compare(int argc, char **argv, const cli_context *ctx)
{
    enum { C_HELP = 256 };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, C_HELP},
        {NULL, 0, NULL, 0},
    };
    (void)ctx;
    const char *page = NULL;
    char msg[256];
    if (!long_options_spelled_out(argc, argv, 1, options, "o:", msg, sizeof msg))
        return cli_usage_error("compare: %s", msg);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!cli_path_given("-o", optarg))
                return PE_BAD_INPUT;
            page = optarg;
            break;
        case C_HELP: fputs(command_help_text("compare"), stdout); return 0;
        default: return cli_usage_error("compare: unknown option '%s' or a missing value",
                                        argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("%s", "compare: no report given (planeval compare REPORT.csv... "
                                     "[-o FILE.html])");
    return compare_reports(argv + optind, argc - optind, page);
}
