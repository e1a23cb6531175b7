/* validate.c — `planeval validate`: load and validate only (commands.h). */
#include <stdio.h>

#include "cli/commands.h"
#include "input/load.h"

static int worst(int a, int b) { return a > b ? a : b; }

int command_validate(const pe_catalog *catalog, const pe_file_list *files,
                     const pe_command_options *opt)
{
    int status = PE_OK;
    for (size_t i = 0; i < files->count; i++) {
        pe_scenario s;
        pe_error err = {0};
        pe_status st = load_scenario(files->paths[i], catalog, &s, &err);
        if (st != PE_OK) {
            opt->on_error(&err);
            status = worst(status, st);
            continue;
        }
        if (!opt->quiet)
            fprintf(stderr, "%s: ok (%s: %zu explicit plans%s)\n", files->paths[i], s.name,
                    s.plan_count, s.sweep.present ? " and a sweep" : "");
        scenario_free(&s);
    }
    return status;
}
