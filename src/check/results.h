/* results.h — what one `check` found, kept for a machine to read: every
 * scenario (loaded and evaluated, or the error that stopped it), every
 * assertion's outcome, every golden comparison, the stale golden reports;
 * written as one JSON object or as JUnit XML (check --format json|junit,
 * docs/scenarios.md "Commands"). */
#ifndef PLANEVAL_RESULTS_H
#define PLANEVAL_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "check/expect.h"
#include "check/golden.h"
#include "core/error.h"

typedef enum {
    PE_GOLDEN_PASS,    /* the reports match */
    PE_GOLDEN_FAIL,    /* they differ: a regression, or a change to review */
    PE_GOLDEN_MISSING, /* no golden report to compare with: not written yet */
    PE_GOLDEN_WRITTEN  /* --update-golden wrote it */
} pe_golden_status;

typedef struct {
    char *file, *name; /* name "" when the file did not load */
    char *error;       /* the error that stopped it, "" when none */
} pe_scenario_result;

typedef struct {
    size_t scenario; /* index into scenarios */
    char *file, *plan, *column, *message;
    int line, col;
    bool ok;
} pe_assertion_result;

typedef struct {
    size_t scenario;
    char *path;
    pe_golden_status status;
    pe_golden_diff diff;
    char *lines; /* the difference lines as printed (text mode), "" when none */
} pe_golden_result;

typedef struct {
    pe_scenario_result *scenarios;
    size_t nscenarios, capscenarios;
    pe_assertion_result *assertions;
    size_t nassertions, capassertions;
    pe_golden_result *golden;
    size_t ngolden, capgolden;
    char **stale; /* golden reports no checked scenario writes, in byte order */
    size_t nstale, capstale;
} pe_check_results;

/* A scenario file begins: the records that follow are its own. */
pe_status results_add_scenario(pe_check_results *r, const char *file, pe_error *err);
/* The current scenario's name once it loaded, or the error that stopped it. */
pe_status results_name_scenario(pe_check_results *r, const char *name, pe_error *err);
pe_status results_fail_scenario(pe_check_results *r, const pe_error *failure, pe_error *err);
/* One assertion of the current scenario. */
pe_status results_add_assertion(pe_check_results *r, const pe_expect_outcome *o, pe_error *err);
/* Its golden comparison (diff NULL when there was none: missing, written). */
pe_status results_add_golden(pe_check_results *r, const char *path, pe_golden_status status,
                             const pe_golden_diff *diff, const char *lines, pe_error *err);
pe_status results_add_stale(pe_check_results *r, const char *path, pe_error *err);
void results_free(pe_check_results *r);

/* The whole check as one JSON object, or as JUnit XML (a testsuite per
 * scenario: a testcase for the scenario itself, one per assertion, one for
 * its golden report; one more testsuite of skipped testcases, the stale
 * golden reports). */
void results_write_json(const pe_check_results *r, FILE *out);
void results_write_junit(const pe_check_results *r, FILE *out);

#endif
