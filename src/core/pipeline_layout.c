/* pipeline_layout.c — a plan's pipeline layout read, written and checked
 * (pipeline_layout.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/pipeline_layout.h"

/* ============================================================ Megatron form */

#define UNROLLED_MAX 8192 /* bytes of the string with every "*n" unrolled */

/* n decimal digits at *s (n ≤ 6) into *out; the cursor moves past them. */
static bool read_count(const char **s, long *out)
{
    long v = 0;
    int digits = 0;
    while (**s >= '0' && **s <= '9' && digits < 7)
        v = v * 10 + (*(*s)++ - '0'), digits++;
    *out = v;
    return digits > 0 && digits < 7;
}

/* Appends len bytes of t, times copies, to o (capacity UNROLLED_MAX). */
static bool append(char *o, size_t *used, const char *t, size_t len, long copies)
{
    for (long c = 0; c < copies; c++) {
        if (*used + len >= UNROLLED_MAX)
            return false;
        memcpy(o + *used, t, len);
        *used += len;
    }
    return true;
}

/* One pass of Megatron's unrolling: with groups, "(...)*n" (no nesting, as
 * its regex); without, "x*n". Cosmetic ',' and spaces are dropped. */
static bool unroll(const char *in, char *o, bool groups, char *why, size_t n)
{
    size_t used = 0;
    for (const char *s = in; *s;) {
        const char *close = groups && *s == '(' ? strchr(s, ')') : NULL;
        long copies;
        if (close && close[1] == '*') {
            const char *c = close + 2;
            if (!read_count(&c, &copies))
                return snprintf(why, n, "'*' after ')' needs a count of 1 to 6 digits"), false;
            if (!append(o, &used, s + 1, (size_t)(close - s - 1), copies))
                return snprintf(why, n, "longer than %d characters unrolled", UNROLLED_MAX), false;
            s = c;
        } else if (!groups && s[1] == '*') {
            const char *c = s + 2;
            if (!read_count(&c, &copies))
                return snprintf(why, n, "'*' after '%c' needs a count of 1 to 6 digits", *s),
                       false;
            if (!append(o, &used, s, 1, copies))
                return snprintf(why, n, "longer than %d characters unrolled", UNROLLED_MAX), false;
            s = c;
        } else {
            if (*s != ',' && *s != ' ' && !append(o, &used, s, 1, 1))
                return snprintf(why, n, "longer than %d characters unrolled", UNROLLED_MAX), false;
            s++;
        }
    }
    o[used] = '\0';
    return true;
}

/* The unrolled text's stages into out; E first, L last, once each. */
static int count_stages(const char *u, pe_pipeline_layout *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    const size_t len = strlen(u);
    for (size_t i = 0; i <= len; i++) {
        const char ch = u[i];
        if (ch == '|' || ch == '\0') {
            if (++out->count > PE_LAYOUT_MAX)
                return snprintf(why, n, "more than %d virtual stages", PE_LAYOUT_MAX), 0;
            continue;
        }
        if (out->count >= PE_LAYOUT_MAX)
            return snprintf(why, n, "more than %d virtual stages", PE_LAYOUT_MAX), 0;
        if (ch == 't')
            out->layers[out->count]++;
        else if (ch == 'E' && i != 0)
            return snprintf(why, n, "'E' (the embedding) must open the first virtual stage, "
                                    "once"), 0;
        else if (ch == 'L' && i + 1 != len)
            return snprintf(why, n, "'L' (the loss) must close the last virtual stage, once"), 0;
        else if (ch == 'm')
            return snprintf(why, n, "'m' (a multi-token-prediction layer) is not modelled"), 0;
        else if (ch != 'E' && ch != 'L')
            return snprintf(why, n, "'%c' is not a layer: E (embedding), t (transformer "
                                    "layer), L (loss), '|' between virtual stages",
                            ch >= 0x20 && ch < 0x7f ? ch : '?'), 0;
    }
    if (len == 0 || u[0] != 'E')
        return snprintf(why, n, "the first virtual stage must open with 'E' (the embedding)"), 0;
    if (u[len - 1] != 'L')
        return snprintf(why, n, "the last virtual stage must close with 'L' (the loss)"), 0;
    return 1;
}

int pipeline_layout_from_text(const char *text, pe_pipeline_layout *out, char *why, size_t n)
{
    char grouped[UNROLLED_MAX], flat[UNROLLED_MAX]; /* 16 KiB of stack, no shared state */
    if (strlen(text) >= UNROLLED_MAX)
        return snprintf(why, n, "longer than %d characters", UNROLLED_MAX), 0;
    if (!unroll(text, grouped, true, why, n) || !unroll(grouped, flat, false, why, n))
        return 0;
    return count_stages(flat, out, why, n);
}

/* ============================================================ checking */

int64_t pipeline_layout_stage(const pe_pipeline_layout *lay, int64_t p, int64_t j)
{
    int64_t sum = 0;
    for (int64_t k = j; k < lay->count; k += p)
        sum += lay->layers[k];
    return sum;
}

int64_t pipeline_layout_chunk_max(const pe_pipeline_layout *lay, int64_t p, int64_t j)
{
    int64_t most = 0;
    for (int64_t k = j; k < lay->count; k += p)
        most = lay->layers[k] > most ? lay->layers[k] : most;
    return most;
}

int pipeline_layout_fault(const pe_pipeline_layout *lay, int64_t L, int64_t p, int64_t v,
                          char *why, size_t n)
{
    const long long count = lay->count;
    if (p < 1 || count % p != 0)
        return snprintf(why, n, "%lld virtual stages, not a multiple of pp=%lld", count,
                        (long long)p), 1;
    if (count / p != v)
        return snprintf(why, n, "%lld virtual stages; pp=%lld x virtual_stages=%lld needs %lld",
                        count, (long long)p, (long long)v, (long long)(p * v)), 1;
    long long sum = 0;
    for (long long k = 0; k < count; k++) {
        if (lay->layers[k] < 0 || (lay->layers[k] == 0 && k != 0 && k + 1 != count))
            return snprintf(why, n,
                            "virtual stage %lld (chunk %lld of stage %lld) holds no layer: only "
                            "the first (the embedding) and the last (the loss) may",
                            k, k / p, k % p), 1;
        sum += lay->layers[k];
    }
    if (sum != L)
        return snprintf(why, n, "the virtual stages hold %lld layers, the model has layers=%lld",
                        sum, (long long)L), 1;
    return 0;
}

/* ============================================================ canonical part */

int pipeline_layout_write(const pe_pipeline_layout *lay, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (int32_t k = 0; k < lay->count;) {
        int32_t run = 1;
        while (k + run < lay->count && lay->layers[k + run] == lay->layers[k])
            run++;
        char item[32];
        int len = run > 1 ? snprintf(item, sizeof item, "%s%d*%d", k ? "." : "",
                                     (int)lay->layers[k], (int)run)
                          : snprintf(item, sizeof item, "%s%d", k ? "." : "",
                                     (int)lay->layers[k]);
        if (size && used + (size_t)len < size)
            memcpy(buf + used, item, (size_t)len + 1);
        else if (size)
            buf[size - 1] = '\0';
        used += (size_t)len;
        k += run;
    }
    return (int)used;
}

/* A whole number without a leading zero (at most 6 digits). */
static bool read_whole(const char **s, long *out)
{
    const char *start = *s;
    if (!read_count(s, out))
        return false;
    return !(*start == '0' && *s - start > 1);
}

int pipeline_layout_read(const char *s, const char **end, pe_pipeline_layout *out, char *why,
                         size_t n)
{
    memset(out, 0, sizeof *out);
    long prev = -1;
    for (;;) {
        long layers, run = 1;
        if (!read_whole(&s, &layers))
            return *end = s, snprintf(why, n, "expected a layer count without a leading zero"), 0;
        if (*s == '*' && (++s, !read_whole(&s, &run) || run < 2))
            return *end = s, snprintf(why, n, "a run is written x*n with n >= 2"), 0;
        if (layers == prev)
            return *end = s, snprintf(why, n, "a run of %ld is written once, as %ld*n", layers,
                                      layers), 0;
        if (out->count + run > PE_LAYOUT_MAX)
            return *end = s, snprintf(why, n, "more than %d virtual stages", PE_LAYOUT_MAX), 0;
        for (long i = 0; i < run; i++)
            out->layers[out->count++] = (int32_t)layers;
        prev = layers;
        if (*s != '.' || s[1] < '0' || s[1] > '9')
            break;
        s++;
    }
    *end = s;
    return 1;
}
