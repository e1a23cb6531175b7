/* report_read.c — a report read back and its cells read as the writer
 * wrote them (report_read.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline_layout.h"
#include "output/report_read.h"

/* The interval cells, S6's of the step time and M23's of the memory peak:
 * empty in textbook mode. */
static bool interval_value(const pe_result *r, pe_column col, double *out)
{
    const bool step = col == COL_STEP_TIME_LO_S || col == COL_STEP_TIME_HI_S;
    if (!(step ? r->has_interval : r->has_mem_interval))
        return false;
    *out = col == COL_STEP_TIME_LO_S   ? r->step_time_lo_s
           : col == COL_STEP_TIME_HI_S ? r->step_time_hi_s
           : col == COL_MEM_PEAK_LO_GIB ? r->mem_peak_lo_gib
                                        : r->mem_peak_hi_gib;
    return true;
}

bool report_column_value(const pe_result *r, const pe_plan *p, pe_column col, double *out)
{
    /* docs/scenarios.md: an invalid plan fills rank … micro_batch only. */
    if (r->status == PE_STATUS_INVALID && col >= COL_MICROBATCHES)
        return false;
    double v;
    switch (col) {
    case COL_GPUS: v = (double)r->gpus; break;
    case COL_DP: v = (double)p->dp; break;
    case COL_TP: v = (double)p->tp; break;
    case COL_PP: v = (double)p->pp; break;
    case COL_CP: v = (double)p->cp; break;
    case COL_ZERO: v = (double)p->zero; break;
    case COL_VIRTUAL_STAGES: v = (double)p->virtual_stages; break;
    case COL_MICRO_BATCH: v = (double)p->micro_batch; break;
    case COL_MICROBATCHES: v = (double)r->microbatches; break;
    case COL_WORST_STAGE: v = r->worst_stage; break;
    case COL_MEM_WEIGHTS_GIB: v = r->mem_weights_gib; break;
    case COL_MEM_GRADS_GIB: v = r->mem_grads_gib; break;
    case COL_MEM_OPTIMIZER_GIB: v = r->mem_optimizer_gib; break;
    case COL_MEM_ACTIVATIONS_GIB: v = r->mem_activations_gib; break;
    case COL_MEM_OTHER_GIB: v = r->mem_other_gib; break;
    case COL_MEM_RESERVE_GIB: v = r->mem_reserve_gib; break;
    case COL_MEM_TOTAL_GIB: v = r->mem_total_gib; break;
    case COL_MEM_BUDGET_GIB: v = r->mem_budget_gib; break;
    case COL_MEM_HEADROOM_GIB: v = r->mem_headroom_gib; break;
    case COL_COMPUTE_S: v = r->compute_s; break;
    case COL_TP_COMM_S: v = r->tp_comm_s; break;
    case COL_CP_COMM_S: v = r->cp_comm_s; break;
    case COL_BUBBLE_S: v = r->bubble_s; break;
    case COL_PP_COMM_S: v = r->pp_comm_s; break;
    case COL_DP_COMM_S: v = r->dp_comm_s; break;
    case COL_OPTIMIZER_S: v = r->optimizer_s; break;
    case COL_STEP_TIME_S: v = r->step_time_s; break;
    case COL_COMM_FRACTION: v = r->comm_fraction; break;
    case COL_BUBBLE_FRACTION: v = r->bubble_fraction; break;
    case COL_TOKENS_PER_S: v = r->tokens_per_s; break;
    case COL_MFU: v = r->mfu; break;
    case COL_HFU: v = r->hfu; break;
    case COL_TFLOPS_PER_GPU: v = r->tflops_per_gpu; break;
    case COL_TRAIN_DAYS:
    case COL_GPU_HOURS:
        if (!r->has_train_days)
            return false;
        v = col == COL_TRAIN_DAYS ? r->train_days : r->gpu_hours;
        break;
    case COL_INTERVENTIONS: v = r->interventions; break;
    case COL_STATE_TOTAL_GIB: v = r->state_total_gib; break;
    case COL_ACT_TOTAL_GIB: v = r->act_total_gib; break;
    case COL_EP_COMM_S: v = r->ep_comm_s; break; /* 0 for a dense plan */
    case COL_MEM_EXPERTS_GIB: v = r->mem_experts_gib; break;
    case COL_STEP_TIME_LO_S:
    case COL_STEP_TIME_HI_S:
    case COL_MEM_PEAK_LO_GIB:
    case COL_MEM_PEAK_HI_GIB: return interval_value(r, col, out);
    case COL_MEM_PEAK_GIB: v = r->mem_peak_gib; break;
    case COL_MEM_RESERVED_GIB: v = r->mem_reserved_gib; break;
    case COL_COST: /* S7: empty without training.tokens or a price */
        if (!r->has_cost)
            return false;
        v = r->cost;
        break;
    case COL_ENERGY_MWH: /* §15: empty without tdp_w or training.tokens */
        if (!r->has_energy)
            return false;
        v = r->energy_mwh;
        break;
    case COL_GOODPUT: v = r->goodput; break;
    case COL_EFFECTIVE_TRAIN_DAYS:
        if (!r->has_effective_train_days)
            return false;
        v = r->effective_train_days;
        break;
    default: return false; /* rank, text and boolean columns */
    }
    *out = v;
    return true;
}

/* A cell quoted for a message: control characters escaped, long text cut. */
const char *report_quote_cell(const char *cell, char buf[96])
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)cell; *c && n < 80; c++) {
        if (*c >= 0x20 && *c != 0x7f) {
            buf[n++] = (char)*c;
        } else {
            n += (size_t)snprintf(buf + n, 96 - n, "\\x%02x", *c);
        }
    }
    if (strlen(cell) > 80 && n < 92)
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    buf[n < 96 ? n : 95] = '\0';
    return buf;
}

int report_cell_status(const char *s)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(s, pe_plan_status_name((pe_plan_status)k)) == 0)
            return k;
    return -1;
}

static int enum_of(const char *s, const char *(*name)(int), int count)
{
    for (int k = 0; k < count; k++)
        if (strcmp(s, name(k)) == 0)
            return k;
    return -1;
}
static const char *recompute_name(int v) { return pe_recompute_name((pe_recompute)v); }
static const char *schedule_name(int v) { return pe_schedule_name((pe_schedule)v); }

/* A whole cell as a number, as the report writes it: no spaces, nothing
 * after it ("=1+1" is not a number). An empty cell is 0 when allowed. */
bool report_cell_number(const char *cell, bool may_be_empty, double *out)
{
    if (!cell[0]) {
        *out = 0;
        return may_be_empty;
    }
    /* The writer's forms only: [-]digits[.digits][e[+-]digits]. strtod
     * alone also reads "inf", "nan", "0x10" and "1e999" (as inf), none of
     * which a report holds: a shard or page built from one would show it. */
    const char *s = cell + (cell[0] == '-');
    size_t digits = strspn(s, "0123456789");
    s += digits;
    if (*s == '.') {
        size_t frac = strspn(s + 1, "0123456789");
        digits += frac;
        s += 1 + frac;
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s += 1 + (s[1] == '+' || s[1] == '-');
        size_t exp = strspn(s, "0123456789");
        if (exp == 0)
            return false;
        s += exp;
    }
    if (*s != '\0')
        return false;
    *out = strtod(cell, NULL);
    return isfinite(*out);
}

bool report_cell_uint(const char *cell, uint64_t *out)
{
    if (!cell[0] || cell[0] < '0' || cell[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(cell, &end, 10);
    *out = v;
    return *end == '\0' && errno == 0;
}

/* The plan's columns of a row into p; NULL, or a message and the column. */
const char *report_cell_plan(const char *const *c, pe_plan *p, int *col)
{
    const int int_cols[] = {COL_DP, COL_TP, COL_PP, COL_CP, COL_ZERO, COL_MICRO_BATCH,
                            COL_VIRTUAL_STAGES};
    int64_t *int_fields[] = {&p->dp, &p->tp, &p->pp, &p->cp, &p->zero, &p->micro_batch,
                             &p->virtual_stages};
    for (size_t i = 0; i < sizeof int_cols / sizeof int_cols[0]; i++) {
        *col = int_cols[i];
        uint64_t v;
        if (!report_cell_uint(c[int_cols[i]], &v) || v > INT64_MAX)
            return "a plan column is not a whole number";
        *int_fields[i] = (int64_t)v;
    }
    int rc = enum_of(c[COL_RECOMPUTE], recompute_name, 3);
    int sc = enum_of(c[COL_SCHEDULE], schedule_name, 5);
    *col = rc < 0 ? COL_RECOMPUTE : COL_SCHEDULE;
    if (rc < 0 || sc < 0)
        return "unknown recompute or schedule";
    p->recompute = (pe_recompute)rc;
    p->schedule = (pe_schedule)sc;
    *col = COL_SEQUENCE_PARALLEL;
    if (strcmp(c[COL_SEQUENCE_PARALLEL], "true") != 0 &&
        strcmp(c[COL_SEQUENCE_PARALLEL], "false") != 0)
        return "sequence_parallel is neither true nor false";
    p->sequence_parallel = strcmp(c[COL_SEQUENCE_PARALLEL], "true") == 0;
    return NULL;
}

/* The first text cell of a row that the writer could not have written: a
 * boolean that is neither true nor false, a bound that is none of S3's, a
 * pipeline_layout that is not a canonical layout text (empty cells are
 * figures that do not apply). NULL, or why and the column (*col). */
static const char *report_cell_text_fault(char *const *c, int *col)
{
    for (int k = 0; k < COL_COUNT; k++) {
        *col = k;
        if (!c[k][0])
            continue;
        if (pe_columns[k].kind == PE_COL_BOOL && strcmp(c[k], "true") != 0 &&
            strcmp(c[k], "false") != 0)
            return "neither true nor false";
    }
    *col = COL_BOUND;
    if (c[COL_BOUND][0]) {
        bool known = false;
        for (int i = 0; pe_bound_values[i]; i++)
            known |= strcmp(c[COL_BOUND], pe_bound_values[i]) == 0;
        if (!known)
            return "not a bound (compute, communication, bubble, optimizer, host)";
    }
    *col = COL_PIPELINE_LAYOUT;
    if (c[COL_PIPELINE_LAYOUT][0]) {
        pe_pipeline_layout lay;
        const char *end;
        char why[160];
        if (!pipeline_layout_read(c[COL_PIPELINE_LAYOUT], &end, &lay, why, sizeof why) || *end)
            return "not a pipeline layout as a report writes it";
    }
    return NULL;
}

/* The refusal of a table that is no report of this version, or PE_OK. */
static pe_status report_shape(const char *path, const pe_csv_table *t, pe_error *err)
{
    if (t->rows == 0 || t->cols[0] != COL_COUNT)
        return pe_fail(err, PE_BAD_INPUT, path, 1, 1,
                       "not a planeval report: expected %d columns in the header", COL_COUNT);
    char b[96];
    for (int c = 0; c < COL_COUNT; c++)
        if (strcmp(t->cells[0][c], pe_columns[c].name) != 0)
            return pe_fail(err, PE_BAD_INPUT, path, t->lines[0], c + 1,
                           "not a planeval report of this version: column %d is '%s', "
                           "expected '%s'", c + 1, report_quote_cell(t->cells[0][c], b), pe_columns[c].name);
    int bad_col = 0;
    for (size_t r = 1; r < t->rows; r++) {
        if (t->cols[r] != COL_COUNT)
            return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], 1,
                           "row has %zu cells, expected %d", t->cols[r], COL_COUNT);
        /* every figure as the writer writes it, or empty (a figure that
         * does not apply): what is read back is written again (merge), and
         * no report shows inf or nan */
        for (int c = 0; c < COL_COUNT; c++) {
            const char *cell = t->cells[r][c];
            double v;
            uint64_t u;
            bool ok = pe_columns[c].kind == PE_COL_NUMBER ? report_cell_number(cell, true, &v)
                      : pe_columns[c].kind == PE_COL_INT  ? !cell[0] || report_cell_uint(cell, &u)
                                                          : true;
            if (!ok)
                return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], c + 1,
                               "%s: not a %s: '%s'", pe_columns[c].name,
                               pe_columns[c].kind == PE_COL_INT
                                   ? "whole number"
                                   : "number (a finite decimal, as a report writes it)",
                               report_quote_cell(cell, b));
            if (pe_columns[c].kind == PE_COL_NUMBER && v < 0 &&
                !columns_may_be_negative((pe_column)c))
                return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], c + 1,
                               "%s: not a number >= 0: '%s'", pe_columns[c].name,
                               report_quote_cell(cell, b));
        }
        const char *why = report_cell_text_fault(t->cells[r], &bad_col);
        if (why)
            return pe_fail(err, PE_BAD_INPUT, path, t->lines[r], bad_col + 1, "%s: %s: '%s'",
                           pe_columns[bad_col].name, why,
                           report_quote_cell(t->cells[r][bad_col], b));
    }
    return PE_OK;
}

/* A report of this version: its header, COL_COUNT cells in every row. On a
 * refusal nothing is kept (as csv_table_read keeps nothing on its own). */
pe_status report_read(const char *path, pe_csv_table *t, pe_error *err)
{
    pe_status st = csv_table_read(path, t, err);
    if (st == PE_OK)
        st = report_shape(path, t, err);
    if (st != PE_OK)
        csv_table_free(t);
    return st;
}

