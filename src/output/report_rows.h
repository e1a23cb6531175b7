/* report_rows.h — write the ranked rows of a run (runner.h) as a report
 * at path, atomically (report.h), formatting rows on `threads` threads:
 * formatting numbers as text is most of the cost of a full report. */
#ifndef PLANEVAL_REPORT_ROWS_H
#define PLANEVAL_REPORT_ROWS_H

#include <signal.h>

#include "core/error.h"
#include "output/report.h"
#include "model/evaluate.h"
#include "sweep/plans.h"
#include "sweep/runner.h"

pe_status report_write_ranked(const char *path, const pe_plan_space *space,
                              const pe_eval_ctx *ctx, const pe_run_result *rr, int threads,
                              pe_error *err);

/* The rows alone, into an open report w (report.h; the caller commits or
 * aborts it). PE_INTERRUPTED as soon as *stop is non-zero (stop may be
 * NULL): a signal is honoured within a few thousand rows. */
pe_status report_write_ranked_rows(pe_report *w, const pe_plan_space *space,
                                   const pe_eval_ctx *ctx, const pe_run_result *rr, int threads,
                                   volatile sig_atomic_t *stop, pe_error *err);
/* The same with numbers to `digits` significant digits (--digits, for
 * people; 0: the exact shortest round-trip text, as above). */
pe_status report_write_ranked_rows_digits(pe_report *w, const pe_plan_space *space,
                                          const pe_eval_ctx *ctx, const pe_run_result *rr,
                                          int threads, int digits, volatile sig_atomic_t *stop,
                                          pe_error *err);

#endif
