/* report.c — ranked CSV rows through libcsv, into an atomic file (atomic_file.h). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "core/columns.h"
#include "core/pipeline_layout.h"
#include "output/atomic_file.h"
#include "output/digest.h"
#include "output/report.h"
#include "output/report_read.h"

struct pe_report {
    pe_atomic_file file;
    uint32_t crc; /* of every byte written */
    char storage[PE_REPORT_LINE_MAX]; /* one row being built */
    pe_line line;
};

/* Decimal text of v into buf (size ≥ 24); the length. */
static int int_text(char *buf, long long v)
{
    char digits[24];
    int n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

/* Shortest of %.15g, %.16g, %.17g that reads back as x: the reference
 * (and the fallback of the fast path below). */
static int format_double_printf(double x, char *buf, size_t size)
{
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return n;
}

/* 10^0 … 10^27: exact in a 64-bit mantissa (5^27 < 2^63), and exact as
 * written (the compiler rounds decimal literals correctly). */
static const long double P10[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* Does digits × 10^e10 round to the positive double ax? 1 yes, 0 no, -1
 * cannot tell. digits (< 2^57) and 10^|e10| are exact in long double, so
 * the one product or quotient L is within half a long-double ulp of the
 * exact value; unless L is that close to a midpoint between ax and a
 * neighbour, the exact value lies on the same side of it as L, and the
 * answer is certain without strtod. */
static int rounds_to(unsigned long long digits, int e10, long double lo, long double hi)
{
    if (e10 > 27 || e10 < -27)
        return -1;
    long double d = (long double)digits;
    long double L = e10 >= 0 ? d * P10[e10] : d / P10[-e10];
    /* more than a long-double ulp of L (2^-63 relative at most): a margin */
    long double margin = L * 0x1p-62L;
    if (fabsl(L - lo) <= margin || fabsl(L - hi) <= margin)
        return -1;
    return L > lo && L < hi;
}

/* (2·d ± 1)/2 × 10^e10 in long double: one rounding (2d+1 < 2^59 and the
 * power of ten are exact; halving is exact). */
static long double half_step(unsigned long long twice_plus, int e10)
{
    long double t = (long double)twice_plus;
    return (e10 >= 0 ? t * P10[e10] : t / P10[-e10]) / 2;
}

/* The integer d nearest to ax / 10^e10 — the digits printf prints, since
 * printf rounds the exact value correctly — from an estimate at most one
 * off. false when it cannot be certain (ax within a long-double ulp of a
 * midpoint d ± 1/2, a tie printf breaks by the exact value). */
static bool nearest_digits(unsigned long long estimate, int e10, double ax,
                           unsigned long long *out)
{
    if (e10 > 27 || e10 < -27 || estimate < 2)
        return false;
    for (unsigned long long dd = estimate - 1; dd <= estimate + 1; dd++) {
        long double below = half_step(2 * dd - 1, e10), above = half_step(2 * dd + 1, e10);
        if (fabsl(ax - below) <= below * 0x1p-62L || fabsl(ax - above) <= above * 0x1p-62L)
            return false;
        if (ax > below && ax < above) {
            *out = dd;
            return true;
        }
    }
    return false;
}

/* Write digits (P significant, trailing zeros allowed) with decimal
 * exponent X of the first digit, the way %.Pg would. */
static int write_g(char *buf, unsigned long long digits, int P, int X, bool negative)
{
    char d[24];
    for (int i = P - 1; i >= 0; i--, digits /= 10)
        d[i] = (char)('0' + digits % 10);
    int last = P - 1; /* %g drops trailing zeros */
    while (last > 0 && d[last] == '0')
        last--;
    int n = 0;
    if (negative)
        buf[n++] = '-';
    if (X < -4 || X >= P) { /* d.ddde±XX */
        buf[n++] = d[0];
        if (last > 0) {
            buf[n++] = '.';
            for (int i = 1; i <= last; i++)
                buf[n++] = d[i];
        }
        buf[n++] = 'e';
        buf[n++] = X < 0 ? '-' : '+';
        int ax = X < 0 ? -X : X;
        if (ax >= 100)
            buf[n++] = (char)('0' + ax / 100);
        buf[n++] = (char)('0' + ax / 10 % 10);
        buf[n++] = (char)('0' + ax % 10);
    } else if (X < 0) { /* 0.000ddd */
        buf[n++] = '0';
        buf[n++] = '.';
        for (int i = -1; i > X; i--)
            buf[n++] = '0';
        for (int i = 0; i <= last; i++)
            buf[n++] = d[i];
    } else { /* ddd.ddd */
        for (int i = 0; i <= X; i++)
            buf[n++] = i <= last ? d[i] : '0';
        if (last > X) {
            buf[n++] = '.';
            for (int i = X + 1; i <= last; i++)
                buf[n++] = d[i];
        }
    }
    buf[n] = '\0';
    return n;
}

int report_format_double(double x, char *buf, size_t size)
{
    /* Whole numbers below 2^53 (budgets, reserves, counts) print as
     * integers without printf: exact, and the common case of many cells. */
    if (size >= 24 && x == (double)(long long)x && fabs(x) < 9007199254740992.0 && !signbit(x))
        return int_text(buf, (long long)x);
    /* A double needs at most 17 significant digits to read back exactly;
     * fewer when they suffice keeps the report readable (0.1, not
     * 0.10000000000000001): the text is exactly format_double_printf's —
     * the first of %.15g, %.16g, %.17g that reads back — but printf is
     * slow (it was most of a full report's cost). So the correctly rounded
     * digits and the read-back test are decided in 64-bit long double
     * arithmetic wherever that is certain, and printf/strtod decide the
     * rest. The text is the same on every machine. */
    if (size < 40 || !isfinite(x) || x == 0)
        return format_double_printf(x, buf, size);
    /* The certainty arguments need long double arithmetic with a 64-bit
     * mantissa, as declared (LDBL_MANT_DIG) and as actually done: an
     * emulator (valgrind) may compute it in double precision. */
    volatile long double one = 1.0L, tiny = 0x1p-63L;
    if (LDBL_MANT_DIG < 64 || one + tiny == one)
        return format_double_printf(x, buf, size);
    bool negative = x < 0;
    double ax = fabs(x);
    int X = (int)floor(log10(ax));
    if (X < -10 || X > 42) /* the powers of ten used below are exact only to 10^27 */
        return format_double_printf(x, buf, size);
    long double scaled = X <= 16 ? (long double)ax * P10[16 - X] : (long double)ax / P10[X - 16];
    unsigned long long n17 = (unsigned long long)llroundl(scaled);
    if (n17 >= 100000000000000000ull) { /* log10 landed one decade low */
        X++;
        n17 = (n17 + 5) / 10;
    } else if (n17 < 10000000000000000ull) {
        return format_double_printf(x, buf, size);
    }
    static const unsigned long long div[] = {100, 10, 1};
    static const unsigned long long limit[] = {1000000000000000ull, 10000000000000000ull,
                                               100000000000000000ull};
    /* the midpoints between ax and its neighbours: exact in long double */
    const long double lo = ((long double)ax + (long double)nextafter(ax, 0)) / 2;
    const long double hi = ((long double)ax + (long double)nextafter(ax, INFINITY)) / 2;
    for (int P = 15; P <= 17; P++) {
        unsigned long long d = div[P - 15];
        unsigned long long estimate = (n17 + d / 2) / d;
        int Xp = X;
        if (estimate >= limit[P - 15]) { /* rounding carried into a new digit */
            estimate /= 10;
            Xp++;
        }
        int e10 = Xp - P + 1;
        unsigned long long digits;
        if (!nearest_digits(estimate, e10, ax, &digits))
            return format_double_printf(x, buf, size);
        if (digits >= limit[P - 15]) { /* 99…9.5 rounds up to 10…0 */
            digits /= 10;
            Xp++;
            e10++;
        }
        if (digits < limit[P - 15] / 10)
            return format_double_printf(x, buf, size);
        int r = rounds_to(digits, e10, lo, hi);
        if (r == 0)
            continue;
        int n = write_g(buf, digits, P, Xp, negative);
        if (r == 1 || strtod(buf, NULL) == x)
            return n;
    }
    return format_double_printf(x, buf, size);
}

static void put_raw(pe_line *l, const char *s, size_t n)
{
    if (l->len + n + 1 >= l->cap) {
        l->overflow = true;
        return;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

/* A cell: separated by a comma, quoted by libcsv only when it needs it. */
static void put_cell(pe_line *l, bool first, const char *s)
{
    if (!first)
        put_raw(l, ",", 1);
    size_t n = strlen(s);
    if (strpbrk(s, ",\"\r\n") == NULL) {
        put_raw(l, s, n);
        return;
    }
    size_t room = l->cap - l->len - 1;
    size_t need = csv_write(l->buf + l->len, room, s, n);
    if (need > room)
        l->overflow = true;
    else
        l->len += need;
}

pe_status report_write_lines(pe_report *w, const char *text, size_t n, pe_error *err)
{
    if (n && fwrite(text, 1, n, w->file.fp) != n)
        return pe_fail(err, PE_INTERNAL, w->file.path, 0, 0, "write failed: %s", strerror(errno));
    w->crc = digest_crc32(w->crc, text, n);
    return PE_OK;
}

uint32_t report_crc32(const pe_report *w) { return w->crc; }

static pe_status end_line(pe_report *w, pe_error *err)
{
    pe_line *l = &w->line;
    put_raw(l, "\n", 1);
    bool overflow = l->overflow;
    size_t n = l->len;
    l->len = 0;
    l->overflow = false;
    if (overflow)
        return pe_fail(err, PE_INTERNAL, w->file.path, 0, 0, "a report row exceeds %zu bytes", l->cap);
    return report_write_lines(w, l->buf, n, err);
}

pe_status report_open_cells(const char *path, const char *const *header, size_t n,
                            pe_report **out, pe_error *err)
{
    *out = NULL;
    pe_report *w = calloc(1, sizeof *w);
    if (!w)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    w->line = (pe_line){w->storage, sizeof w->storage, 0, false, 0, false, 0};
    pe_status st = atomic_file_open(&w->file, path, err);
    if (st != PE_OK) {
        free(w);
        return st;
    }
    st = report_write_cells(w, header, n, err);
    if (st != PE_OK) {
        report_abort(w);
        return st;
    }
    *out = w;
    return PE_OK;
}

pe_status report_write_cells(pe_report *w, const char *const *cells, size_t n, pe_error *err)
{
    for (size_t c = 0; c < n; c++)
        put_cell(&w->line, c == 0, cells[c] ? cells[c] : "");
    return end_line(w, err);
}

pe_status report_open(const char *path, pe_report **out, pe_error *err)
{
    const char *header[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++)
        header[c] = pe_columns[c].name;
    return report_open_cells(path, header, COL_COUNT, out, err);
}

/* The interconnect tier each parallel axis' group ran on; axes of degree 1
 * are left out ("" for a single GPU). */
static void format_links(const pe_result *r, char *buf, size_t size)
{
    const char *names[] = {"tp", "cp", "dp", "pp", "ep"}; /* ep: MoE plans only */
    const pe_tier tiers[] = {r->tier_tp, r->tier_cp, r->tier_dp, r->tier_pp, r->tier_ep};
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < 5 && n < size; i++)
        if (tiers[i] != PE_TIER_NONE)
            n += (size_t)snprintf(buf + n, size - n, "%s%s:%s", n ? " " : "", names[i],
                                  pe_tier_name(tiers[i]));
}

static int fmt_int(char *buf, size_t size, long long v)
{
    if (size < 24)
        return snprintf(buf, size, "%lld", v);
    return int_text(buf, v);
}

/* snprintf(buf, size, "%s", s) without printf: cells are copied a lot. */
static int copy_text(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (size == 0)
        return (int)n;
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
    return (int)n;
}

/* rank_by: one key, or a list as "step_time,memory" */

/* The design's link number of column col (docs/reports.md); false where its
 * cluster has no such link (one node, the other topology). */
static bool link_number(const pe_cluster *c, int col, double *out)
{
    const pe_intra_node *in = &c->intra_node;
    const bool sw = in->present && in->topology == PE_TOPOLOGY_SWITCH;
    const bool mesh = in->present && in->topology == PE_TOPOLOGY_FULL_MESH;
    switch (col) {
    case COL_INTRA_BANDWIDTH_GB_S: *out = in->bandwidth_gb_s; return sw;
    case COL_INTRA_LINK_GB_S: *out = in->link_gb_s; return mesh;
    case COL_INTRA_LATENCY_US: *out = in->latency_us; return in->present;
    case COL_INTER_NIC_GB_S: *out = c->inter_node.nic_gb_s; return c->inter_node.present;
    default: *out = c->inter_node.latency_us; return c->inter_node.present;
    }
}

static int format_rank_by(const pe_scenario *sc, char *buf, size_t size)
{
    if (sc->rank_by_count > 1) {
        pe_rank_order order;
        rank_order_of(sc, &order);
        return rank_order_format(&order, buf, size);
    }
    return copy_text(buf, size, pe_rank_by_name(sc->rank_by));
}

int report_format_cell(const pe_eval_ctx *ctx, const char *scenario, long long rank,
                       const pe_plan *p, const pe_row *row, pe_column col, char *buf,
                       size_t size)
{
    const pe_result *r = &row->result;
    buf[0] = '\0';
    /* docs/scenarios.md: an invalid plan fills rank … micro_batch only (our added
     * columns too: identical invalid rows stay identical, so their order
     * within a canonical-text tie cannot show). */
    if (r->status == PE_STATUS_INVALID && col >= COL_MICROBATCHES)
        return 0;
    if (col == COL_PLAN_INDEX)
        return snprintf(buf, size, "%llu", (unsigned long long)row->index);
    if (col == COL_RANK_BY)
        return format_rank_by(ctx->scenario, buf, size);
    double num;
    switch (col) {
    case COL_RANK: return fmt_int(buf, size, rank);
    case COL_SCENARIO: return copy_text(buf, size, scenario);
    case COL_PLAN: return copy_text(buf, size, row->name ? row->name : row->canon);
    case COL_STATUS: return copy_text(buf, size, pe_plan_status_name(r->status));
    case COL_REASON: return evaluate_format_reason(ctx, p, r, buf, size);
    case COL_GPUS: return fmt_int(buf, size, r->gpus);
    case COL_DP: return fmt_int(buf, size, p->dp);
    case COL_TP: return fmt_int(buf, size, p->tp);
    case COL_PP: return fmt_int(buf, size, p->pp);
    case COL_CP: return fmt_int(buf, size, p->cp);
    case COL_ZERO: return fmt_int(buf, size, p->zero);
    case COL_RECOMPUTE: return copy_text(buf, size, pe_recompute_name(p->recompute));
    case COL_SCHEDULE: return copy_text(buf, size, pe_schedule_name(p->schedule));
    case COL_VIRTUAL_STAGES: return fmt_int(buf, size, p->virtual_stages);
    case COL_SEQUENCE_PARALLEL: return copy_text(buf, size, p->sequence_parallel ? "true" : "false");
    case COL_MICRO_BATCH: return fmt_int(buf, size, p->micro_batch);
    case COL_MICROBATCHES: return fmt_int(buf, size, r->microbatches);
    case COL_WORST_STAGE: return fmt_int(buf, size, r->worst_stage);
    case COL_BOUND: return copy_text(buf, size, pe_bound_name(r->bound));
    case COL_MEM_PEAK_PHASE: return copy_text(buf, size, pe_mem_phase_name(r->mem_peak_phase));
    case COL_INTERVENTIONS: return fmt_int(buf, size, r->interventions);
    case COL_LINKS: format_links(r, buf, size); return (int)strlen(buf);
    case COL_NODES: return fmt_int(buf, size, ctx->scenario->cluster.nodes); /* the design's */
    case COL_GLOBAL_BATCH: return fmt_int(buf, size, ctx->scenario->training.global_batch);
    case COL_SEQ_LEN: return fmt_int(buf, size, ctx->scenario->model.seq_len);
    case COL_CLUSTER: return copy_text(buf, size, ctx->scenario->cluster.preset);
    case COL_FRAMEWORK: return copy_text(buf, size, ctx->scenario->framework.name);
    case COL_OVERLAP_TP: return report_format_double(p->overlap.tp, buf, size);
    case COL_OVERLAP_CP: return report_format_double(p->overlap.cp, buf, size);
    case COL_OVERLAP_DP: return report_format_double(p->overlap.dp, buf, size);
    case COL_OVERLAP_PP: return report_format_double(p->overlap.pp, buf, size);
    case COL_OVERLAP_EP: return report_format_double(p->overlap.ep, buf, size);
    case COL_INTRA_BANDWIDTH_GB_S: case COL_INTRA_LINK_GB_S: case COL_INTRA_LATENCY_US:
    case COL_INTER_NIC_GB_S: case COL_INTER_LATENCY_US:
        if (!link_number(&ctx->scenario->cluster, col, &num))
            return 0;
        break;
    case COL_EP: return fmt_int(buf, size, p->ep);
    case COL_ETP: return fmt_int(buf, size, p->etp);
    case COL_FIRST_STAGE_LAYERS: return fmt_int(buf, size, p->first_stage_layers); /* 0: even */
    case COL_LAST_STAGE_LAYERS: return fmt_int(buf, size, p->last_stage_layers);
    case COL_OFFLOAD_OPTIMIZER: return copy_text(buf, size, p->offload_optimizer ? "true" : "false");
    case COL_PIPELINE_LAYOUT: return pipeline_layout_write(&p->layout, buf, size); /* V3″ */
    default: /* a figure (report_read.h), empty where it does not apply */
        if (!report_column_value(r, p, col, &num))
            return 0;
        break;
    }
    return report_format_double(num, buf, size);
}

/* Is a number cell printf's inf, -inf, nan or -nan? (A finite number's text
 * starts with a digit, '-' then a digit, or '.'.) */
static bool nonfinite_text(const char *cell)
{
    const char c = cell[0] == '-' || cell[0] == '+' ? cell[1] : cell[0];
    return c == 'i' || c == 'n' || c == 'I' || c == 'N';
}

bool report_format_row(const pe_eval_ctx *ctx, const char *scenario, long long rank,
                       const pe_plan *p, const pe_row *row, pe_line *line)
{
    char cell[2048];
    for (int c = 0; c < COL_COUNT; c++) {
        int n = report_format_cell(ctx, scenario, rank, p, row, (pe_column)c, cell, sizeof cell);
        if (line->digits > 0 && pe_columns[c].kind == PE_COL_NUMBER && n > 0 &&
            (size_t)n < sizeof cell) /* --digits: for people, not for read-back */
            n = snprintf(cell, sizeof cell, "%.*g", line->digits, strtod(cell, NULL));
        if (pe_columns[c].kind == PE_COL_NUMBER && n > 0 && !line->nonfinite &&
            nonfinite_text(cell)) {
            line->nonfinite = true;
            line->nonfinite_column = c;
        }
        if (pe_columns[c].kind == PE_COL_TEXT || n < 0 || (size_t)n >= sizeof cell) {
            put_cell(line, c == 0, cell); /* text may need quoting */
        } else { /* numbers and booleans never do */
            if (c)
                put_raw(line, ",", 1);
            put_raw(line, cell, (size_t)n);
        }
    }
    put_raw(line, "\n", 1);
    return !line->overflow;
}

pe_status report_write_row(pe_report *w, const pe_eval_ctx *ctx, const char *scenario,
                           long long rank, const pe_plan *p, const pe_row *row, pe_error *err)
{
    pe_line *l = &w->line;
    bool ok = report_format_row(ctx, scenario, rank, p, row, l);
    size_t n = l->len;
    l->len = 0;
    l->overflow = false;
    if (!ok)
        return pe_fail(err, PE_INTERNAL, w->file.path, 0, 0, "a report row exceeds %zu bytes", l->cap);
    return report_write_lines(w, l->buf, n, err);
}

pe_status report_finish(pe_report *w, pe_error *err) { return atomic_file_finish(&w->file, err); }

pe_status report_publish(pe_report *w, pe_error *err)
{
    pe_status st = atomic_file_publish(&w->file, err);
    free(w);
    return st;
}

pe_status report_commit(pe_report *w, pe_error *err)
{
    pe_status st = report_finish(w, err);
    if (st != PE_OK) {
        report_abort(w);
        return st;
    }
    return report_publish(w, err);
}

pe_status report_commit_pair(pe_report *a, pe_report *b, pe_error *err)
{
    pe_status st = report_finish(a, err);
    if (st == PE_OK)
        st = report_finish(b, err);
    if (st != PE_OK) {
        report_abort(a);
        report_abort(b);
        return st;
    }
    /* Both are complete on disk: only a rename is left, which needs no
     * space. The summary names the report's checksum, so even a crash
     * between the two renames leaves a pair that `merge` refuses. */
    st = report_publish(a, err);
    if (st != PE_OK) {
        report_abort(b);
        return st;
    }
    return report_publish(b, err);
}

bool report_cells_fit(const char *const *cells, size_t n)
{
    char buf[PE_REPORT_LINE_MAX];
    pe_line l = {buf, sizeof buf, 0, false, 0, false, 0};
    for (size_t c = 0; c < n; c++)
        put_cell(&l, c == 0, cells[c] ? cells[c] : "");
    put_raw(&l, "\n", 1);
    return !l.overflow;
}

void report_abort(pe_report *w)
{
    if (!w)
        return;
    atomic_file_abort(&w->file);
    free(w);
}
