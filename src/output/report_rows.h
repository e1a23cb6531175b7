/* report_rows.h — write the ranked rows of a run (runner.h) as a report
 * at path, atomically (report.h), formatting rows on `threads` threads:
 * formatting numbers as text is most of the cost of a full report. */
#ifndef PLANEVAL_REPORT_ROWS_H
#define PLANEVAL_REPORT_ROWS_H

#include "core/error.h"
#include "model/evaluate.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

pe_status report_write_ranked(const char *path, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr, int threads,
                              pe_error *err);
/* The same with numbers to `digits` significant digits (--digits, for
 * people; 0: the exact shortest round-trip text, as above). */
pe_status report_write_ranked_digits(const char *path, const pe_plan_space *space,
                                     const pe_eval_ctx *ctx, const pe_run_result *rr,
                                     int threads, int digits, pe_error *err);

#endif
