/* checkpoint.c — reading and writing sweep checkpoints.
 *
 * The file is text: a body of `key value` lines, then one last line
 * `crc32 XXXXXXXX`, zlib's CRC-32 of every byte of the body. A checkpoint
 * is refused unless that line is there and matches: a changed digit, a
 * dropped or repeated line, a truncated file would otherwise resume into a
 * wrong top-K or wrong counts with no sign of it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/checkpoint.h"
#include "output/digest.h"
#include "output/atomic_file.h"
#include "sweep/plans.h"

/* The format's version: 3 since the skip and rule counts of MoE plans (a
 * format-2 file has fewer of them and cannot be resumed). */
#define MAGIC_WORD "planeval-checkpoint "
#define MAGIC MAGIC_WORD "3"
#define CRC_KEY "crc32 "
#define CRC_LINE_LEN 15 /* "crc32 " + 8 hex digits + "\n" */

pe_status checkpoint_fingerprint(const char *scenario_path, uint64_t top_k, uint64_t first,
                                 uint64_t last, uint32_t *out, pe_error *err)
{
    uint32_t crc = 0;
    pe_status st = digest_file_crc32(scenario_path, &crc, err);
    if (st != PE_OK)
        return st;
    const uint64_t opts[] = {top_k, first, last};
    crc = digest_crc32(crc, opts, sizeof opts);
    *out = digest_crc32(crc, PLANEVAL_VERSION, strlen(PLANEVAL_VERSION));
    return PE_OK;
}

static void write_list(FILE *fp, const char *key, const uint64_t *v, size_t n)
{
    fprintf(fp, "%s", key);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, " %" PRIu64, v[i]);
    fputc('\n', fp);
}

/* The body, in memory (open_memstream), so its checksum can follow it. */
static bool format_body(const pe_checkpoint *c, char **body, size_t *len)
{
    FILE *fp = open_memstream(body, len);
    if (!fp)
        return false;
    fprintf(fp, "%s\nfingerprint %08" PRIx32 "\n", MAGIC, c->fingerprint);
    fprintf(fp, "first %" PRIu64 "\nlast %" PRIu64 "\nnext %" PRIu64 "\ntop_k %" PRIu64 "\n",
            c->first, c->last, c->next, c->top_k);
    fprintf(fp, "evaluated %" PRIu64 "\n", c->counts.evaluated);
    write_list(fp, "skipped", c->counts.skipped, PE_SKIP_COUNT);
    write_list(fp, "status", c->counts.by_status, 4);
    write_list(fp, "rules", c->counts.by_rule, PE_RULE_COUNT);
    fprintf(fp, "rows %zu\n", c->row_count);
    for (size_t i = 0; i < c->row_count; i++)
        fprintf(fp, "%" PRIu64 "\n", c->rows[i]);
    bool ok = !ferror(fp);
    ok &= fclose(fp) == 0;
    return ok;
}

pe_status checkpoint_write(const char *path, const pe_checkpoint *c, pe_error *err)
{
    char *body = NULL;
    size_t len = 0;
    if (!format_body(c, &body, &len)) {
        free(body);
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    }
    pe_atomic_file f;
    pe_status st = atomic_file_open(&f, path, err);
    if (st != PE_OK) {
        free(body);
        return st;
    }
    bool ok = fwrite(body, 1, len, f.fp) == len;
    ok &= fprintf(f.fp, CRC_KEY "%08" PRIx32 "\n", digest_crc32(0, body, len)) == CRC_LINE_LEN;
    free(body);
    if (!ok) {
        st = pe_fail(err, PE_INTERNAL, path, 0, 0, "cannot write the checkpoint: %s",
                     strerror(errno));
        atomic_file_abort(&f);
        return st;
    }
    return atomic_file_commit(&f, err);
}

/* The whole file; NULL when it cannot be read. */
static char *slurp(FILE *fp, size_t *len)
{
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    while (buf) {
        *len += fread(buf + *len, 1, cap - *len, fp);
        if (*len < cap && !ferror(fp))
            return buf;
        if (*len < cap)
            break;
        char *more = realloc(buf, 2 * cap);
        if (!more)
            free(buf);
        buf = more;
        cap *= 2;
    }
    free(buf);
    return NULL;
}

static bool read_list(FILE *fp, const char *key, uint64_t *v, size_t n)
{
    char word[32];
    if (fscanf(fp, "%31s", word) != 1 || strcmp(word, key) != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (fscanf(fp, "%" SCNu64, &v[i]) != 1)
            return false;
    return true;
}

/* The body's fields into c; false when they are not a checkpoint's. */
static bool parse_body(char *body, size_t len, pe_checkpoint *c)
{
    FILE *fp = fmemopen(body, len, "r");
    if (!fp)
        return false;
    char line[64], word[32];
    bool ok = fgets(line, sizeof line, fp) && strcmp(line, MAGIC "\n") == 0;
    ok = ok && fscanf(fp, "%31s %" SCNx32, word, &c->fingerprint) == 2 &&
         strcmp(word, "fingerprint") == 0;
    ok = ok && read_list(fp, "first", &c->first, 1) && read_list(fp, "last", &c->last, 1) &&
         read_list(fp, "next", &c->next, 1) && read_list(fp, "top_k", &c->top_k, 1) &&
         read_list(fp, "evaluated", &c->counts.evaluated, 1) &&
         read_list(fp, "skipped", c->counts.skipped, PE_SKIP_COUNT) &&
         read_list(fp, "status", c->counts.by_status, 4) &&
         read_list(fp, "rules", c->counts.by_rule, PE_RULE_COUNT);
    uint64_t rows = 0;
    ok = ok && read_list(fp, "rows", &rows, 1) && rows <= c->top_k && c->first <= c->next &&
         c->next <= c->last;
    if (ok && rows) {
        c->rows = malloc(rows * sizeof *c->rows);
        ok = c->rows != NULL;
        for (uint64_t i = 0; ok && i < rows; i++)
            ok = fscanf(fp, "%" SCNu64, &c->rows[i]) == 1;
        c->row_count = (size_t)rows;
    }
    int after = ok ? fscanf(fp, " %31s", word) : 0;
    ok = ok && after == EOF; /* nothing after the rows */
    fclose(fp);
    return ok;
}

static const char *check_sum(const char *buf, size_t len)
{
    if (len < CRC_LINE_LEN || buf[len - 1] != '\n' ||
        memcmp(buf + len - CRC_LINE_LEN, CRC_KEY, strlen(CRC_KEY)) != 0 ||
        (len > CRC_LINE_LEN && buf[len - CRC_LINE_LEN - 1] != '\n'))
        return "it has no checksum line at its end (truncated?)";
    char hex[9];
    memcpy(hex, buf + len - CRC_LINE_LEN + strlen(CRC_KEY), 8);
    hex[8] = '\0';
    char *end;
    unsigned long want = strtoul(hex, &end, 16);
    if (*end || strspn(hex, "0123456789abcdef") != 8)
        return "its checksum line is damaged";
    if (digest_crc32(0, buf, len - CRC_LINE_LEN) != (uint32_t)want)
        return "its checksum does not match its contents (changed or cut short)";
    return NULL;
}

/* A first line "planeval-checkpoint N" with N a whole number (up to 8
 * digits) other than this format's: the message naming N; else NULL (a
 * first line of any other shape is refused by parse_body as not a
 * checkpoint, so no stray bytes of it reach the message). */
static const char *other_format(const char *buf, size_t len, char *out, size_t size)
{
    const size_t mw = strlen(MAGIC_WORD);
    if (len <= mw || memcmp(buf, MAGIC_WORD, mw) != 0)
        return NULL;
    size_t n = 0;
    while (mw + n < len && n <= 8 && buf[mw + n] >= '0' && buf[mw + n] <= '9')
        n++;
    if (n == 0 || n > 8 || mw + n >= len || buf[mw + n] != '\n' ||
        (n == strlen(MAGIC) - mw && memcmp(buf + mw, MAGIC + mw, n) == 0))
        return NULL;
    snprintf(out, size, "it is another planeval's (format %.*s, this one reads %s)", (int)n,
             buf + mw, MAGIC + mw);
    return out;
}

static int cmp_index(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A checksum proves only that the file is what some writer wrote: the
 * counts must add up to the done prefix [first, next), and each kept row
 * must be a distinct index inside it (a row outside it would rank a plan
 * the resumed sweep evaluates again twice; a repeated one, one plan
 * twice). NULL, or what is wrong, in buf. */
static const char *inconsistent(const pe_checkpoint *c, char *buf, size_t size)
{
    uint64_t skipped = 0, by_status = 0;
    for (int i = 1; i < PE_SKIP_COUNT; i++)
        skipped += c->counts.skipped[i];
    for (int i = 0; i < 4; i++)
        by_status += c->counts.by_status[i];
    if (c->counts.skipped[0] || c->counts.evaluated + skipped != c->next - c->first ||
        by_status != c->counts.evaluated) {
        snprintf(buf, size, "its counts (%" PRIu64 " plans evaluated, %" PRIu64 " skipped, %"
                 PRIu64 " by status) do not add up to the %" PRIu64 " plan indices done",
                 c->counts.evaluated, skipped, by_status, c->next - c->first);
        return buf;
    }
    uint64_t *sorted = malloc((c->row_count ? c->row_count : 1) * sizeof *sorted);
    if (!sorted)
        return "out of memory checking its rows";
    if (c->row_count)
        memcpy(sorted, c->rows, c->row_count * sizeof *sorted);
    qsort(sorted, c->row_count, sizeof *sorted, cmp_index);
    const char *why = NULL;
    for (size_t i = 0; i < c->row_count && !why; i++) {
        if (sorted[i] < c->first || sorted[i] >= c->next)
            snprintf(buf, size, "kept row %" PRIu64 " lies outside the plan indices done [%"
                     PRIu64 ", %" PRIu64 ")", sorted[i], c->first, c->next);
        else if (i && sorted[i] == sorted[i - 1])
            snprintf(buf, size, "kept row %" PRIu64 " appears twice", sorted[i]);
        else
            continue;
        why = buf;
    }
    free(sorted);
    return why;
}

pe_status checkpoint_check_plans(const char *path, const pe_checkpoint *c,
                                 const pe_plan_space *space, unsigned status_mask,
                                 pe_error *err)
{
    char why[160] = "";
    uint64_t eligible = 0;
    for (int k = 0; k < 4; k++)
        if (!status_mask || status_mask >> k & 1u)
            eligible += c->counts.by_status[k];
    const uint64_t want = c->top_k && eligible > c->top_k ? c->top_k : eligible;
    for (size_t i = 0; i < c->row_count && !why[0]; i++) {
        pe_plan plan;
        pe_skip skip = c->rows[i] < plans_total(space) ? plans_at(space, c->rows[i], &plan)
                                                       : PE_SKIP_COUNT;
        if (skip != PE_SKIP_NONE)
            snprintf(why, sizeof why, "kept row %" PRIu64 " is not a plan of this sweep",
                     c->rows[i]);
    }
    if (!why[0] && c->top_k && c->row_count != want)
        snprintf(why, sizeof why, "it keeps %zu rows where its counts call for %" PRIu64
                 " (the best %" PRIu64 " of %" PRIu64 " plans kept)", c->row_count, want,
                 c->top_k, eligible);
    if (why[0])
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "damaged checkpoint: %s; remove it to start over", why);
    return PE_OK;
}

pe_status checkpoint_read(const char *path, pe_checkpoint *c, pe_error *err)
{
    memset(c, 0, sizeof *c);
    struct stat sb; /* a FIFO would block the run, a directory reads as nothing */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "not a regular file, so not a checkpoint; remove it to start over");
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "cannot read: %s", strerror(errno));
    size_t len = 0;
    char *buf = slurp(fp, &len);
    fclose(fp);
    if (!buf)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "cannot read the checkpoint");
    const char *why = check_sum(buf, len);
    char other[96];
    if (!why)
        why = other_format(buf, len, other, sizeof other);
    if (!why && !parse_body(buf, len - CRC_LINE_LEN, c))
        why = "its contents are not a planeval checkpoint's";
    char detail[200];
    if (!why)
        why = inconsistent(c, detail, sizeof detail);
    free(buf);
    if (why) {
        checkpoint_free(c);
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "damaged checkpoint: %s; remove it to start over", why);
    }
    return PE_OK;
}

void checkpoint_free(pe_checkpoint *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
