/* explain_cmd.c — `planeval explain SCENARIO --plan P`: one plan's every
 * quantity, formatted by explain.c (commands.h). */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/explain.h"
#include "input/load.h"
#include "model/evaluate.h"
#include "sweep/plans.h"

int command_explain(const pe_catalog *catalog, const pe_file_list *files,
                    const pe_command_options *opt)
{
    pe_error err = {0};
    pe_status st = PE_OK;
    if (files->count != 1)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "explain takes exactly one scenario");
    else if (!opt->plan)
        st = pe_fail(&err, PE_BAD_INPUT, NULL, 0, 0, "explain needs --plan NAME|CANONICAL");
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    pe_scenario s;
    st = load_scenario(files->paths[0], catalog, &s, &err);
    if (st != PE_OK) {
        opt->on_error(&err);
        return st;
    }
    pe_plan_space space;
    st = plans_init(&s, &space, &err);
    if (st == PE_OK) {
        pe_plan plan;
        if (plans_find(&space, opt->plan, &plan)) {
            pe_eval_ctx ctx;
            evaluate_prepare(&s, &ctx);
            explain_plan(stdout, &ctx, &plan, EXPLAIN_ALL);
        } else {
            st = pe_fail(&err, PE_BAD_INPUT, s.file, 0, 0,
                         "no plan named '%s': give an explicit plan's name, or any "
                         "canonical text dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-"
                         "{schedule}-v{v}-sp{0|1} (sp1 only with tp > 1), such as "
                         "dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0",
                         opt->plan);
        }
        plans_free(&space);
    }
    if (st != PE_OK)
        opt->on_error(&err);
    scenario_free(&s);
    return st;
}
