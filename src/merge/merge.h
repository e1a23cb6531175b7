/* merge.h — the shard reports of one sweep (`run --shard I/N`) joined into
 * exactly the report one run gives, after proving from the summaries
 * beside them that they are all of it (merge.c says how). */
#ifndef PLANEVAL_MERGE_H
#define PLANEVAL_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

typedef struct {
    const char *output;  /* the merged report */
    uint64_t top_k;      /* keep the K best rows; 0: every row */
    bool allow_partial;  /* a missing part is a warning, not an error */
    bool pareto;         /* write only the Pareto-optimal rows (as run --pareto) */
    FILE *warnings;      /* where each warning of a partial merge goes */
} pe_merge_options;

typedef struct {
    size_t rows;     /* rows written */
    size_t warnings; /* what is missing, with allow_partial */
    size_t pareto_optimal; /* of the rows kept */
    char summary[PE_PATH_MAX + 32]; /* beside the output; "" when its name has no .csv */
    bool summary_written; /* false: a partial merge (any summary there removed), or no path */
} pe_merge_result;

/* Join the reports at paths[0..count) into opt->output (written to a
 * temporary file and renamed into place), with the summary one run over
 * the whole sweep writes beside it (summary.h; a complete merge only). */
pe_status merge_reports(char *const *paths, size_t count, const pe_merge_options *opt,
                        pe_merge_result *out, pe_error *err);

#endif
