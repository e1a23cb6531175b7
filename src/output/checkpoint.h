/* checkpoint.h — where an interrupted sweep stood: the done prefix of its
 * index range, what it had counted, and the indices of the rows it kept
 * (top-K mode). A text file written atomically beside the report; its
 * fingerprint ties it to the scenario file's bytes and the run's options,
 * so --resume never continues a different sweep. */
#ifndef PLANEVAL_CHECKPOINT_H
#define PLANEVAL_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

typedef struct {
    uint32_t fingerprint;
    uint64_t first, last, next, top_k;
    pe_run_counts counts;
    uint64_t *rows; /* owned */
    size_t row_count;
} pe_checkpoint;

/* CRC-32 (digest.h) of a file's bytes, continued over the run options
 * that shape the result (top_k, shard range) and planeval's version. */
pe_status checkpoint_fingerprint(const char *scenario_path, uint64_t top_k, uint64_t first,
                                 uint64_t last, uint32_t *out, pe_error *err);

/* Written to a temporary file and renamed; its last line is the CRC-32 of
 * everything before it. */
pe_status checkpoint_write(const char *path, const pe_checkpoint *c, pe_error *err);
/* PE_OK and c filled; PE_BAD_INPUT when the file is not a checkpoint or
 * its checksum does not match (any damage). */
pe_status checkpoint_read(const char *path, pe_checkpoint *c, pe_error *err);
/* PE_OK when every kept row of c is a plan of space and there are as
 * many as its counts call for (min(top_k, plans of the statuses kept));
 * else PE_BAD_INPUT, a damaged checkpoint (checkpoint_read has already
 * refused rows outside the done prefix, repeated rows and counts that do
 * not add up). */
pe_status checkpoint_check_plans(const char *path, const pe_checkpoint *c,
                                 const pe_plan_space *space, unsigned status_mask,
                                 pe_error *err);
void checkpoint_free(pe_checkpoint *c);

#endif
