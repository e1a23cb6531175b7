/* targets.h — T1: the smallest cluster that meets a scenario's targets: and
 * the best plan on it (docs/sweeps.md "Targets", docs/model.md §9).
 *
 * The targets are budgets of the whole run (targets.days is budgets.train_days,
 * targets.gpu_hours and targets.cost the T2 budgets), so a row meets them
 * exactly when its status is ok; T1 picks, among the ok rows, those of the
 * fewest GPUs, and of them the best-ranked. */
#ifndef PLANEVAL_TARGETS_H
#define PLANEVAL_TARGETS_H

#include <stddef.h>

#include "core/error.h"
#include "core/scenario.h"
#include "sweep/plans.h"
#include "sweep/rank.h"

/* T1 N* = min { N of an ok row }; the answer is the best-ranked ok row with N = N* */
#define PE_TEXT_T1                                                                                \
    {"T1", "smallest_cluster", "min N over the ok rows; the best-ranked row of that N", "GPUs",  \
     "a search over the design axes nodes/gpus"}

/* T1 over rows ranked by rank.h, for each type of sweep.cluster (one type
 * without it: the scenario's cluster): per_type[k].best is the answer on
 * type k (NULL without targets, or where no row of type k is ok; .unmet then
 * says which target and the best reached on it). PE_OK when some type meets
 * them; else PE_BAD_INPUT at the first target no row reaches (or at
 * targets: when each is reached alone but not together), naming the best
 * figure reached, on each type. per_type has space->slots[PE_AXIS_CLUSTER]
 * entries. */
typedef struct {
    const pe_row *best;
    char unmet[PE_MSG_MAX];
} pe_target_answer;

pe_status targets_answer(const pe_plan_space *space, const pe_row *rows, size_t n,
                         pe_target_answer *per_type, pe_error *err);

#endif
