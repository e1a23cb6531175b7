/* grade.h — grading drill submissions in batch, for `planeval grade KEY
 * SUBMISSION... [-o FILE]`.
 *
 * KEY is a drill scenario with a `questions:` block (scenario.h pe_question).
 * grade computes the reference answers from the scenario with the model of
 * docs/model.md, reads every submission (YAML, untrusted: parsed with the
 * loader's limits, yamlutil.h) and writes one grades CSV (libcsv; a
 * temporary file renamed into place):
 *
 *   student,question,expected,submitted,error,points_awarded,points_possible,feedback,file
 *
 * one row per student per question, then a row per unknown answer id, then
 * a `total` row per student. A submission that cannot be read (bad YAML, an
 * alias bomb, a wrong drill, a missing student id, a symbolic link, ...)
 * gets one row with the error and 0 points, and the rest of the class is
 * still graded; an error about a file not yet known to be a submission
 * never quotes the file's text (it may be any file the grader can read). Text
 * from a submission is never run by a spreadsheet as a formula
 * (grade_safe_cell). The same inputs always give the same bytes.
 *
 * Wrong numbers are matched against the usual mistakes by recomputing the
 * figure under each wrong assumption (pe_mistake), so the feedback can name
 * the mistake. */
#ifndef PLANEVAL_GRADE_H
#define PLANEVAL_GRADE_H

#include <stdbool.h>
#include <stddef.h>

#include "input/catalog.h"
#include "core/columns.h"
#include "core/error.h"
#include "model/evaluate.h"
#include "core/scenario.h"

typedef struct {
    const char *output; /* the grades CSV; NULL: out/<key name>-grades.csv */
    const char *gradebook; /* one row per student; NULL: none */
    int threads;        /* >= 1, for ranking the key's plans */
} pe_grade_options;

/* The submission files, directories already expanded. */
typedef struct {
    char *const *paths;
    size_t count;
} pe_grade_files;

/* What was graded, for the closing line. */
typedef struct {
    char key_name[PE_NAME_MAX];
    char output[PE_PATH_MAX]; /* the grades file written */
    size_t graded, rejected, superseded; /* submissions */
} pe_grade_summary;

/* Grade every submission in subs against the key scenario at key_path:
 * PE_OK when the grades file was written (rejected submissions are rows
 * of it, not failures), PE_BAD_INPUT for a bad key, PE_INTERNAL for I/O. */
pe_status grade_submissions(const pe_catalog *catalog, const char *key_path,
                            const pe_grade_files *subs, const pe_grade_options *opt,
                            pe_grade_summary *out, pe_error *err);

/* ------------------------------------------------------------ the mistake matcher */

typedef enum {
    PE_MISTAKE_NONE,
    PE_MISTAKE_RESERVE,       /* reserve_gib taken as 0 (docs/model.md M5) */
    PE_MISTAKE_GB_GIB,        /* bytes / 10^9 reported as GiB (docs/model.md §0) */
    PE_MISTAKE_BYTES_12,      /* 12 bytes per parameter: no fp32 master weights */
    PE_MISTAKE_BYTES_2,       /* 2 bytes per parameter: bf16 weights only */
    PE_MISTAKE_INFLIGHT,      /* one micro-batch in flight on stage 0 (A6, A7) */
    PE_MISTAKE_BIDIRECTIONAL, /* bidirectional link bandwidth: every *_gb_s doubled (§0) */
    PE_MISTAKE_BUBBLE,        /* bubble fraction (p-1)/(m+p-1) instead of (p-1)/m (§7) */
    PE_MISTAKE_COUNT
} pe_mistake;

/* "forgot the framework reserve", "GB vs GiB", ... */
const char *grade_mistake_name(pe_mistake m);

/* The figure of a report column in a result (integer columns as doubles);
 * false for text columns, rank, and a figure that does not apply (an
 * invalid plan's, train_days without training.tokens). */
bool grade_column_value(const pe_result *r, const pe_plan *p, pe_column col, double *out);

/* Plan p of scenario s evaluated under a wrong assumption (mistakes that
 * change the model: RESERVE, BYTES_12, BYTES_2, INFLIGHT, BIDIRECTIONAL),
 * by modifying a copy of the scenario (or, for INFLIGHT, the stage-0
 * activations of the evaluator's own detail). A mistake may come in a few
 * variants (BIDIRECTIONAL: every link, intra-node only, inter-node only;
 * INFLIGHT: the first stage, the wrong model's memory-worst stage). False
 * when the variant does not exist or the mistake changes nothing here. */
bool grade_mistake_result(const pe_scenario *s, const pe_plan *p, pe_mistake m, int variant,
                          pe_result *out);

/* The values column col of plan p takes under mistake m (each different
 * from the right value); returns how many were written (at most max). */
size_t grade_mistake_values(const pe_scenario *s, const pe_plan *p, pe_column col,
                            pe_mistake m, double *out, size_t max);

typedef struct {
    pe_mistake mistake; /* PE_MISTAKE_NONE: no mistake reproduces the number */
    pe_mistake also;    /* a second mistake made together (GB vs GiB), or NONE */
    double value;       /* the figure under the mistake(s) */
} pe_mistake_match;

/* |x - ref| within the tolerance (relative to |ref|, absolute, or exact). */
bool grade_within(double x, double ref, pe_tol_kind kind, double tol);

/* Which mistake reproduces `submitted` for column col of plan p, within
 * the tolerance: single mistakes first, the closest one winning (ties in
 * enum order), then GB vs GiB combined with another. A value that is
 * within the tolerance of `expected` never counts (indistinguishable). */
bool grade_match_mistake(const pe_scenario *s, const pe_plan *p, pe_column col, double expected,
                         double submitted, pe_tol_kind kind, double tol, pe_mistake_match *out);

/* ------------------------------------------------------------ plans and cells */

/* A canonical text (docs/scenarios.md) → a plan with the given overlap;
 * false for any text core/canonical.h refuses (sp1 with tp1 among them). */
bool grade_parse_canonical(const char *text, const pe_overlap *overlap, pe_plan *out);

/* Text of len bytes made safe for a CSV cell opened by a spreadsheet:
 * control characters become spaces and long text is cut at max_len bytes
 * (a UTF-8 boundary) with "..."; then a cell that starts a formula
 * (core/spreadsheet.h: = + - @ or ＝ ＋ － ＠ after any Unicode spaces,
 * format characters and controls) gets a leading single quote — checked
 * after the normalisation, on the text as written. out must hold max_len + 8
 * bytes. */
void grade_safe_cell(const char *in, size_t len, size_t max_len, char *out, size_t size);

#endif
