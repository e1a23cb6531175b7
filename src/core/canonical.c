/* canonical.c — writing a plan's canonical text, and reading it back with
 * every rule the writer implies (canonical.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/canonical.h"
#include "core/pipeline_layout.h"

/* ================================================================ writing */

/* Append text / a non-negative integer; the hot path of every report row
 * and ranking tie, so no printf. */
static char *put_text(char *o, const char *end, const char *t)
{
    while (*t && o < end)
        *o++ = *t++;
    return o;
}

static char *put_int(char *o, const char *end, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 : (uint64_t)v; /* degrees are ≥ 0 */
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n && o < end)
        *o++ = digits[--n];
    return o;
}

static char *put_tagged(char *o, const char *end, const char *tag, int64_t v)
{
    return put_int(put_text(o, end, tag), end, v);
}

int canonical_write(const pe_plan *p, char *buf, size_t size)
{
    if (!size)
        return 0;
    char *o = buf, *end = buf + size - 1;
    o = put_tagged(o, end, "dp", p->dp);
    o = put_tagged(o, end, "-tp", p->tp);
    o = put_tagged(o, end, "-pp", p->pp);
    o = put_tagged(o, end, "-cp", p->cp);
    o = put_tagged(o, end, "-z", p->zero);
    o = put_text(put_text(o, end, "-"), end, pe_recompute_name(p->recompute));
    o = put_tagged(o, end, "-mb", p->micro_batch);
    o = put_text(put_text(o, end, "-"), end, pe_schedule_name(p->schedule));
    o = put_tagged(o, end, "-v", p->virtual_stages);
    o = put_text(o, end, p->sequence_parallel ? "-sp1" : "-sp0");
    if (p->ep > 1)
        o = put_tagged(o, end, "-ep", p->ep);
    if (p->etp != p->tp && p->etp > 0)
        o = put_tagged(o, end, "-etp", p->etp);
    if (p->first_stage_layers > 0)
        o = put_tagged(o, end, "-fs", p->first_stage_layers);
    if (p->last_stage_layers > 0)
        o = put_tagged(o, end, "-ls", p->last_stage_layers);
    if (p->layout.count > 0) { /* pipeline_layout, V3″ */
        char body[PE_CANON_MAX];
        pipeline_layout_write(&p->layout, body, sizeof body);
        o = put_text(put_text(o, end, "-pl"), end, body);
    }
    if (p->offload_optimizer)
        o = put_text(o, end, "-off");
    *o = '\0';
    return (int)(o - buf);
}

/* ================================================================ reading */

#define VALUE_MAX ((int64_t)1 << 53) /* docs/scenarios.md "Ranges": at most 2^53 */

typedef struct {
    const char *text;
    const char *at; /* the next byte to read */
    pe_error *err;
} reader;

static size_t byte_of(const reader *r, const char *p) { return (size_t)(p - r->text) + 1; }

static bool starts(const char *p, const char *tag) { return strncmp(p, tag, strlen(tag)) == 0; }

/* Up to 12 bytes of the text from p, for a message: printable ASCII as it
 * is, any other byte as '?' (a message is one line of valid UTF-8, and the
 * text may come from anyone, e.g. a student's answer). */
#define SHOWN_MAX 12
static const char *shown(const char *p, char out[SHOWN_MAX + 1])
{
    size_t n = 0;
    for (; n < SHOWN_MAX && p[n]; n++)
        out[n] = p[n] >= 0x20 && p[n] < 0x7f ? p[n] : '?';
    out[n] = '\0';
    return out;
}

/* The error "expected WHAT at byte N": what is missing, where the text
 * stops matching. */
static pe_status expected(reader *r, const char *what)
{
    char found[SHOWN_MAX + 1];
    if (*r->at == '\0')
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                       "expected %s at byte %zu, found the end of the text", what,
                       byte_of(r, r->at));
    return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0, "expected %s at byte %zu, found '%s'",
                   what, byte_of(r, r->at), shown(r->at, found));
}

/* tag, then a whole number in [min, max] without leading zeros. */
static pe_status read_tagged(reader *r, const char *tag, const char *what, int64_t min,
                             int64_t max, int64_t *out)
{
    if (!starts(r->at, tag))
        return expected(r, what);
    const char *digits = r->at + strlen(tag), *s = digits;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        if (s - digits == 16)
            return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                           "%s at byte %zu: more than 16 digits (at most 2^53)", what,
                           byte_of(r, r->at));
        v = v * 10 + (*s++ - '0');
    }
    if (s == digits)
        return expected(r, what);
    if (*digits == '0' && s - digits > 1)
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                       "%s at byte %zu: '%.*s' has a leading zero", what, byte_of(r, r->at),
                       (int)(s - digits), digits);
    if (v < min)
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0, "%s at byte %zu: %lld is below %lld",
                       what, byte_of(r, r->at), (long long)v, (long long)min);
    if (v > max && max == VALUE_MAX)
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0, "%s at byte %zu: %lld is above 2^53",
                       what, byte_of(r, r->at), (long long)v);
    if (v > max)
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0, "%s at byte %zu: %lld is above %lld",
                       what, byte_of(r, r->at), (long long)v, (long long)max);
    *out = v;
    r->at = s;
    return PE_OK;
}

/* "-" then one of the enum's names (name(i) for i < count): its index. */
static pe_status read_word(reader *r, const char *(*name)(int), int count, const char *what,
                           int *out)
{
    if (*r->at == '-')
        for (int i = 0; i < count; i++)
            if (starts(r->at + 1, name(i))) {
                r->at += 1 + strlen(name(i));
                *out = i;
                return PE_OK;
            }
    return expected(r, what);
}

static const char *recompute_name(int i) { return pe_recompute_name((pe_recompute)i); }
static const char *schedule_name(int i) { return pe_schedule_name((pe_schedule)i); }

/* The ten fields every text has. */
static pe_status read_fields(reader *r, pe_plan *p)
{
    const int64_t any = VALUE_MAX;
    int rec = 0, sch = 0;
    int64_t sp = 0;
    pe_status st = read_tagged(r, "dp", "dp{dp}", 1, any, &p->dp);
    if (!st)
        st = read_tagged(r, "-tp", "-tp{tp}", 1, any, &p->tp);
    if (!st)
        st = read_tagged(r, "-pp", "-pp{pp}", 1, any, &p->pp);
    if (!st)
        st = read_tagged(r, "-cp", "-cp{cp}", 1, any, &p->cp);
    if (!st)
        st = read_tagged(r, "-z", "-z{0..3}", 0, 3, &p->zero);
    if (!st)
        st = read_word(r, recompute_name, PE_RECOMPUTE_FULL + 1, "-{none|selective|full}", &rec);
    if (!st)
        st = read_tagged(r, "-mb", "-mb{micro_batch}", 1, any, &p->micro_batch);
    if (!st)
        st = read_word(r, schedule_name, PE_SCHEDULE_DUALPIPE + 1,
                       "-{1f1b|interleaved|gpipe|zb-h1|zb-h2|dualpipe}", &sch);
    if (!st)
        st = read_tagged(r, "-v", "-v{virtual_stages}", 1, any, &p->virtual_stages);
    if (!st)
        st = read_tagged(r, "-sp", "-sp{0|1}", 0, 1, &sp);
    p->recompute = (pe_recompute)rec;
    p->schedule = (pe_schedule)sch;
    p->sequence_parallel = sp == 1;
    return st;
}

/* The optional tail, each part at most once and in canonical_write's
 * order; ep 1 and etp = tp are the defaults and never written. */
static pe_status read_tail(reader *r, pe_plan *p)
{
    const int64_t any = VALUE_MAX;
    pe_status st = PE_OK;
    if (starts(r->at, "-ep")) {
        const char *at = r->at;
        st = read_tagged(r, "-ep", "-ep{ep}", 1, any, &p->ep);
        if (!st && p->ep == 1)
            return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                           "-ep1 at byte %zu: ep 1 is the default and is written as no -ep",
                           byte_of(r, at));
    }
    if (!st && starts(r->at, "-etp")) {
        const char *at = r->at;
        st = read_tagged(r, "-etp", "-etp{etp}", 1, any, &p->etp);
        if (!st && p->etp == p->tp)
            return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                           "-etp%lld at byte %zu equals tp: etp = tp is the default and is "
                           "written as no -etp",
                           (long long)p->etp, byte_of(r, at));
    }
    if (!st && starts(r->at, "-fs"))
        st = read_tagged(r, "-fs", "-fs{first_stage_layers}", 1, any, &p->first_stage_layers);
    if (!st && starts(r->at, "-ls"))
        st = read_tagged(r, "-ls", "-ls{last_stage_layers}", 1, any, &p->last_stage_layers);
    if (!st && starts(r->at, "-pl")) {
        const char *at = r->at, *stop;
        char why[160];
        if (!pipeline_layout_read(at + 3, &stop, &p->layout, why, sizeof why))
            return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0, "-pl{layout} at byte %zu: %s",
                           byte_of(r, at), why);
        r->at = stop;
    }
    if (!st && strcmp(r->at, "-off") == 0)
        p->offload_optimizer = true, r->at += 4;
    char found[SHOWN_MAX + 1];
    if (!st && *r->at != '\0')
        return pe_fail(r->err, PE_BAD_INPUT, NULL, 0, 0,
                       "unexpected '%s' at byte %zu: after -sp{0|1} only -ep{ep}, "
                       "-etp{etp}, -fs{n}, -ls{n}, -pl{layout} and -off may follow, in that "
                       "order",
                       shown(r->at, found), byte_of(r, r->at));
    return st;
}

pe_status canonical_parse(const char *text, const pe_overlap *overlap, pe_plan *out,
                          pe_error *err)
{
    pe_plan p;
    memset(&p, 0, sizeof p);
    reader r = {text, text, err};
    pe_status st = read_fields(&r, &p);
    if (!st)
        st = read_tail(&r, &p);
    if (st)
        return st;
    if (p.sequence_parallel && p.tp == 1)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "sp1 with tp1: sequence parallelism needs tp > 1 (a plan with tp = 1 "
                       "has it off: write sp0)");
    p.overlap = *overlap;
    scenario_plan_defaults(&p); /* ep 1 and etp = tp when the tail does not say */
    *out = p;
    return PE_OK;
}
