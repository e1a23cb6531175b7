/* commands.h — the commands `run`, `validate`, `check`, `explain`: thin compositions
 * of load → plans → evaluate → rank → write. Each takes the scenario files
 * (already expanded from directories) and returns the worst exit status
 * over them (error.h); errors are handed to opt->on_error, which main owns. */
#ifndef PLANEVAL_COMMANDS_H
#define PLANEVAL_COMMANDS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "input/catalog.h"
#include "core/error.h"

/* A sweep of more combinations than this gets a note on the memory a
 * report of every plan keeps (run without --top, check). */
#define BIG_SWEEP_COMBINATIONS 20000000u
/* Memory a full report takes per row kept, measured: peak RSS over rows of
 * full reports of 0.18 to 0.9 M rows (tests/bench scenarios, 1 and 2
 * threads) is 1000 ± 15 bytes. That is about twice sizeof(pe_row), 496
 * bytes: the workers' rows and the merged copy being ranked are both held
 * while merging (runner.c), plus a pointer a row to sort. */
#define FULL_REPORT_BYTES_PER_ROW 1000.0
/* A run's progress line off a terminal (a batch job's log), without
 * --progress: once a minute. */
#define RUN_PROGRESS_DEFAULT_S 60

typedef struct {
    char **paths; /* owned */
    size_t count, cap;
} pe_file_list;

/* Add dir/name (or path alone when name is NULL). */
pe_status file_list_add(pe_file_list *l, const char *path, const char *name);
void file_list_free(pe_file_list *l);

/* check --format: lines for people, or one document for a machine. */
typedef enum { PE_CHECK_TEXT, PE_CHECK_JUNIT, PE_CHECK_JSON } pe_check_format;

typedef struct {
    const char *output_dir; /* run: report directory; merge: the output file */
    bool output_given;      /* -o was given */
    uint64_t top_k;         /* run, merge, check --golden: 0 = every row */
    int threads;            /* ≥ 1 */
    bool quiet;
    const char *plan;       /* explain: NAME or CANONICAL */
    const char *golden_dir; /* check: compare whole reports with DIR/<name>.csv */
    bool update_golden;     /* check: rewrite them instead */
    double golden_rel_tol;  /* check: numeric cells' relative tolerance */
    double golden_abs_tol;  /* check: numeric cells' absolute tolerance */
    uint64_t golden_rank_tol;  /* check: a rank move of at most this is no failure */
    uint64_t golden_max_lines; /* check: difference lines printed per golden report; 0 = all */
    pe_check_format format;    /* check: --format text|junit|json */
    bool table;             /* check: print published vs predicted as a Markdown table */
    double measured_step_s; /* calibrate: measured step time, 0 = not given */
    double measured_peak_gib; /* calibrate: measured peak memory, 0 = not given */
    const char *fit_numbers; /* calibrate RUNS.csv: --fit a,b (names), NULL = the default */
    const char *priors_path; /* calibrate RUNS.csv: --priors FILE, NULL = none */
    uint64_t shard_index, shard_count; /* run: --shard I/N; count 0 = no shard */
    bool resume;            /* run: continue from the checkpoint */
    bool html;              /* run: also DIR/<name>.html (output/html.h) */
    unsigned status_mask;   /* run: --status, bit 1 << pe_plan_status; 0 = every status */
    bool pareto;            /* run: --pareto, only the Pareto-optimal plans */
    int digits;             /* run: --digits N, numbers to N significant digits; 0 = exact */
    bool allow_partial;     /* merge: join what is there, naming what is missing */
    int progress_s;         /* run: --progress SECONDS off a terminal; 0 = none, -1 = default */
    volatile sig_atomic_t *stop; /* run: set by SIGINT/SIGTERM */
    void (*on_error)(const pe_error *err);
} pe_command_options;

typedef int (*pe_command_fn)(const pe_catalog *catalog, const pe_file_list *files,
                             const pe_command_options *opt);

int command_run(const pe_catalog *catalog, const pe_file_list *files,
                const pe_command_options *opt);
int command_validate(const pe_catalog *catalog, const pe_file_list *files,
                     const pe_command_options *opt);
int command_check(const pe_catalog *catalog, const pe_file_list *files,
                  const pe_command_options *opt);
int command_calibrate(const pe_catalog *catalog, const pe_file_list *files,
                      const pe_command_options *opt);
int command_merge(const pe_catalog *catalog, const pe_file_list *files,
                  const pe_command_options *opt);
int command_explain(const pe_catalog *catalog, const pe_file_list *files,
                    const pe_command_options *opt);

#endif
