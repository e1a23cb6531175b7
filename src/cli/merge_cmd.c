/* merge_cmd.c — `planeval merge REPORT.csv... -o FILE [--top K]
 * [--allow-partial] [--pareto]`: the output's checks (given, not one of the
 * inputs), then the join (merge/merge.h: the report and its summary) and
 * the line saying what was written. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "merge/merge.h"
#include "output/atomic_file.h"

int command_merge(const pe_catalog *catalog, const pe_file_list *files,
                  const pe_command_options *opt)
{
    (void)catalog;
    pe_error err = {0};
    pe_status st = PE_OK;
    if (!opt->output_given)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "merge needs -o FILE");
    for (size_t f = 0; st == PE_OK && f < files->count; f++)
        if (cli_same_file(opt->output_dir, files->paths[f]))
            st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0,
                         "-o %s is also an input (%s): writing it would destroy that report; "
                         "give another file", opt->output_dir, files->paths[f]);
    pe_merge_result done = {0};
    if (st == PE_OK) {
        atomic_file_clean_stale_beside(opt->output_dir); /* left by a killed merge */
        const pe_merge_options mo = {.output = opt->output_dir, .top_k = opt->top_k,
                                     .allow_partial = opt->allow_partial,
                                     .pareto = opt->pareto, .warnings = stderr};
        st = merge_reports(files->paths, files->count, &mo, &done, &err);
    }
    if (st == PE_OK && !opt->quiet)
        fprintf(stderr, "merged %zu %srows of %zu reports into %s%s%s\n", done.rows,
                opt->pareto ? "Pareto-optimal " : "", files->count, opt->output_dir,
                done.summary_written ? ", its summary into " : "",
                done.summary_written ? done.summary : "");
    if (st == PE_OK && !done.summary_written && !done.summary[0])
        fprintf(stderr, "planeval: warning: -o %s does not end in .csv: no summary written "
                        "beside it (planeval html finds NAME.summary.csv beside NAME.csv)\n",
                opt->output_dir);
    else if (st == PE_OK && !done.summary_written)
        fprintf(stderr, "planeval: warning: no summary written beside %s: a partial merge's "
                        "counts are not the sweep's (one an earlier merge left there is "
                        "removed)\n",
                opt->output_dir);
    if (st == PE_OK && done.warnings)
        fprintf(stderr, "planeval: warning: %s is a partial merge (%zu problem%s above)\n",
                opt->output_dir, done.warnings, done.warnings == 1 ? "" : "s");
    if (st != PE_OK)
        opt->on_error(&err);
    return st;
}
