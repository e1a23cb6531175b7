/* validate.c — `planeval validate`: load and validate only (commands.h).
 * The "ok" line of each good file, with its plan counts, is what validate
 * exists to print: it goes to stdout (a script reads the counts there);
 * errors go to stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "input/load.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

static int worst(int a, int b) { return a > b ? a : b; }

/* What a run of the file would evaluate: explicit plans, and a sweep's
 * combinations and how many of them are plans (plans.h; no evaluation),
 * so a user can size a run before starting it. */
/* docs/sweeps.md "Sweeping the design": the plans of each value of each
 * design axis, a design (one block of indices) at a time. */
static void print_design_axes(const pe_plan_space *space)
{
    static const char *const names[PE_DESIGN_AXES] = {
        "cluster", "framework", "nodes", "global_batch", "seq_len", "intra_node.bandwidth_gb_s",
        "intra_node.link_gb_s", "intra_node.latency_us", "inter_node.nic_gb_s",
        "inter_node.latency_us", "overlap.tp", "overlap.cp", "overlap.dp", "overlap.pp",
        "overlap.ep"};
    const pe_axis *const links[PE_DESIGN_AXES] = {
        [PE_AXIS_INTRA_BANDWIDTH] = &space->scenario->sweep.intra_bandwidth_gb_s,
        [PE_AXIS_INTRA_LINK] = &space->scenario->sweep.intra_link_gb_s,
        [PE_AXIS_INTRA_LATENCY] = &space->scenario->sweep.intra_latency_us,
        [PE_AXIS_INTER_NIC] = &space->scenario->sweep.inter_nic_gb_s,
        [PE_AXIS_INTER_LATENCY] = &space->scenario->sweep.inter_latency_us,
        [PE_AXIS_OVERLAP_TP] = &space->scenario->sweep.overlap_tp,
        [PE_AXIS_OVERLAP_CP] = &space->scenario->sweep.overlap_cp,
        [PE_AXIS_OVERLAP_DP] = &space->scenario->sweep.overlap_dp,
        [PE_AXIS_OVERLAP_PP] = &space->scenario->sweep.overlap_pp,
        [PE_AXIS_OVERLAP_EP] = &space->scenario->sweep.overlap_ep};
    const pe_scenario *s = space->scenario;
    const uint64_t block = space->stride[PE_DESIGN_AXES - 1];
    uint64_t *plans = calloc(space->design_count, sizeof *plans);
    if (!plans)
        return;
    for (uint64_t d = 0; d < space->design_count; d++) {
        const uint64_t first = space->explicit_count + d * block;
        plans[d] = runner_count_plans(space, first, first + block);
    }
    for (int a = 0; a < PE_DESIGN_AXES; a++) {
        if (space->slots[a] < 2)
            continue;
        printf("  sweep.%s:", names[a]);
        for (uint64_t v = 0; v < space->slots[a]; v++) {
            uint64_t n = 0;
            for (uint64_t d = 0; d < space->design_count; d++)
                if (d / space->design_stride[a] % space->slots[a] == v)
                    n += plans[d];
            if (links[a] && links[a]->numbers) /* a link number */
                printf("%s %.15g: %llu plans", v ? "," : "",
                       links[a]->numbers[space->values[a][v]], (unsigned long long)n);
            else if (a == PE_AXIS_CLUSTER || a == PE_AXIS_FRAMEWORK) /* by its preset's name */
                printf("%s %s: %llu plans", v ? "," : "",
                       a == PE_AXIS_CLUSTER ? s->sweep.clusters[space->values[a][v]].preset
                                            : s->sweep.frameworks[space->values[a][v]].name,
                       (unsigned long long)n);
            else
                printf("%s %lld: %llu plans", v ? "," : "", (long long)space->values[a][v],
                       (unsigned long long)n);
        }
        printf("\n");
    }
    free(plans);
}

static pe_status print_size(const char *path, const pe_scenario *s, pe_error *err)
{
    if (!s->sweep.present) {
        printf("%s: ok (%s: %zu explicit plans)\n", path, s->name, s->plan_count);
        return PE_OK;
    }
    pe_plan_space space;
    pe_status st = plans_init(s, &space, err);
    if (st != PE_OK)
        return st;
    if (space.sweep_count > 10000000000ull) { /* counting alone would take minutes */
        printf("%s: ok (%s: %zu explicit plans and a sweep of %llu combinations, too "
               "many to count its plans here)\n",
               path, s->name, s->plan_count, (unsigned long long)space.sweep_count);
        plans_free(&space);
        return PE_OK;
    }
    uint64_t plans = plans_count(&space, NULL) - space.explicit_count;
    printf("%s: ok (%s: %zu explicit plans and a sweep of %llu combinations: %llu plans, %llu "
           "skipped)\n",
           path, s->name, s->plan_count, (unsigned long long)space.sweep_count,
           (unsigned long long)plans, (unsigned long long)(space.sweep_count - plans));
    if (space.designs)
        print_design_axes(&space);
    plans_free(&space);
    return PE_OK;
}

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
        if (!opt->quiet) {
            st = print_size(files->paths[i], &s, &err);
            fflush(stdout); /* in file order beside the errors on stderr */
        }
        if (st != PE_OK) {
            opt->on_error(&err);
            status = worst(status, st);
        }
        scenario_free(&s);
    }
    return status;
}
