/* report.c — ranked CSV rows through libcsv, atomic file replace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "columns.h"
#include "report.h"

struct pe_report {
    FILE *fp;
    char path[PE_PATH_MAX];
    char tmp[PE_PATH_MAX + 32];
    char line[8192]; /* one row being built */
    size_t len;
    bool overflow;
};

int report_format_double(double x, char *buf, size_t size)
{
    /* A double needs at most 17 significant digits to read back exactly;
     * fewer when they suffice keeps the report readable (0.1, not
     * 0.10000000000000001). */
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return n;
}

pe_status report_make_parent_dirs(const char *path, pe_error *err)
{
    char dir[PE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return PE_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot create directory: %s",
                           strerror(errno));
        *p = '/';
    }
    if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot create directory: %s",
                       strerror(errno));
    return PE_OK;
}

static void put_raw(pe_report *w, const char *s, size_t n)
{
    if (w->len + n + 1 >= sizeof w->line) {
        w->overflow = true;
        return;
    }
    memcpy(w->line + w->len, s, n);
    w->len += n;
}

/* A cell: separated by a comma, quoted by libcsv only when it needs it. */
static void put_cell(pe_report *w, bool first, const char *s)
{
    if (!first)
        put_raw(w, ",", 1);
    size_t n = strlen(s);
    if (strpbrk(s, ",\"\r\n") == NULL) {
        put_raw(w, s, n);
        return;
    }
    size_t room = sizeof w->line - w->len - 1;
    size_t need = csv_write(w->line + w->len, room, s, n);
    if (need > room)
        w->overflow = true;
    else
        w->len += need;
}

static void put_int(pe_report *w, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    put_cell(w, false, b);
}

static void put_num(pe_report *w, double v)
{
    char b[40];
    report_format_double(v, b, sizeof b);
    put_cell(w, false, b);
}

static pe_status end_line(pe_report *w, pe_error *err)
{
    put_raw(w, "\n", 1);
    if (w->overflow)
        return pe_fail(err, PE_INTERNAL, w->path, 0, 0, "a report row exceeds %zu bytes",
                       sizeof w->line);
    if (fwrite(w->line, 1, w->len, w->fp) != w->len)
        return pe_fail(err, PE_INTERNAL, w->path, 0, 0, "write failed: %s", strerror(errno));
    w->len = 0;
    return PE_OK;
}

pe_status report_open(const char *path, pe_report **out, pe_error *err)
{
    *out = NULL;
    pe_status st = report_make_parent_dirs(path, err);
    if (st != PE_OK)
        return st;
    pe_report *w = calloc(1, sizeof *w);
    if (!w)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid());
    w->fp = fopen(w->tmp, "w");
    if (!w->fp) {
        st = pe_fail(err, PE_INTERNAL, w->tmp, 0, 0, "cannot write: %s", strerror(errno));
        free(w);
        return st;
    }
    for (int c = 0; c < COL_COUNT; c++)
        put_cell(w, c == 0, pe_columns[c].name);
    st = end_line(w, err);
    if (st != PE_OK) {
        report_abort(w);
        return st;
    }
    *out = w;
    return PE_OK;
}

static void put_links(pe_report *w, const pe_result *r)
{
    /* The interconnect tier each parallel axis' group ran on; axes of
     * degree 1 are left out ("" for a single GPU). */
    char b[64] = "";
    const char *names[] = {"tp", "cp", "dp", "pp"};
    const pe_tier tiers[] = {r->tier_tp, r->tier_cp, r->tier_dp, r->tier_pp};
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        if (tiers[i] != PE_TIER_NONE)
            n += (size_t)snprintf(b + n, sizeof b - n, "%s%s:%s", n ? " " : "", names[i],
                                  pe_tier_name(tiers[i]));
    put_cell(w, false, b);
}

pe_status report_write_row(pe_report *w, const pe_eval_ctx *ctx, const char *scenario,
                           long long rank, const pe_plan *p, const pe_row *row, pe_error *err)
{
    const pe_result *r = &row->result;
    char reason[2048];
    evaluate_format_reason(ctx, p, r, reason, sizeof reason);

    char b[32];
    snprintf(b, sizeof b, "%lld", rank);
    put_cell(w, true, b);
    put_cell(w, false, scenario);
    put_cell(w, false, row->name ? row->name : row->canon);
    put_cell(w, false, pe_plan_status_name(r->status));
    put_cell(w, false, reason);
    put_int(w, r->gpus);
    put_int(w, p->dp);
    put_int(w, p->tp);
    put_int(w, p->pp);
    put_int(w, p->cp);
    put_int(w, p->zero);
    put_cell(w, false, pe_recompute_name(p->recompute));
    put_cell(w, false, pe_schedule_name(p->schedule));
    put_int(w, p->virtual_stages);
    put_cell(w, false, p->sequence_parallel ? "true" : "false");
    put_int(w, p->micro_batch);
    if (r->status == PE_STATUS_INVALID) {
        /* interface.md: an invalid plan fills rank … micro_batch only. */
        for (int c = COL_MICROBATCHES; c < COL_COUNT; c++)
            put_cell(w, false, "");
        return end_line(w, err);
    }
    put_int(w, r->microbatches);
    put_int(w, r->worst_stage);
    const double mem[] = {r->mem_weights_gib,  r->mem_grads_gib,     r->mem_optimizer_gib,
                          r->mem_activations_gib, r->mem_other_gib,  r->mem_reserve_gib,
                          r->mem_total_gib,    r->mem_budget_gib,    r->mem_headroom_gib,
                          r->compute_s,        r->tp_comm_s,         r->cp_comm_s,
                          r->bubble_s,         r->pp_comm_s,         r->dp_comm_s,
                          r->optimizer_s,      r->step_time_s,       r->comm_fraction,
                          r->bubble_fraction};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        put_num(w, mem[i]);
    put_cell(w, false, pe_bound_name(r->bound));
    put_num(w, r->tokens_per_s);
    put_num(w, r->mfu);
    put_num(w, r->hfu);
    put_num(w, r->tflops_per_gpu);
    if (r->has_train_days) {
        put_num(w, r->train_days);
        put_num(w, r->gpu_hours);
    } else {
        put_cell(w, false, "");
        put_cell(w, false, "");
    }
    put_int(w, r->interventions);
    put_num(w, r->state_total_gib);
    put_num(w, r->act_total_gib);
    put_links(w, r);
    return end_line(w, err);
}

pe_status report_commit(pe_report *w, pe_error *err)
{
    pe_status st = PE_OK;
    if (fflush(w->fp) != 0 || ferror(w->fp))
        st = pe_fail(err, PE_INTERNAL, w->path, 0, 0, "write failed: %s", strerror(errno));
    if (fclose(w->fp) != 0 && st == PE_OK)
        st = pe_fail(err, PE_INTERNAL, w->path, 0, 0, "write failed: %s", strerror(errno));
    w->fp = NULL;
    if (st == PE_OK && rename(w->tmp, w->path) != 0)
        st = pe_fail(err, PE_INTERNAL, w->path, 0, 0, "cannot rename %s into place: %s", w->tmp,
                     strerror(errno));
    if (st != PE_OK)
        remove(w->tmp);
    free(w);
    return st;
}

void report_abort(pe_report *w)
{
    if (!w)
        return;
    if (w->fp)
        fclose(w->fp);
    remove(w->tmp);
    free(w);
}
