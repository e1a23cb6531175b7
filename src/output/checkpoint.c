/* checkpoint.c — reading and writing sweep checkpoints. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/checkpoint.h"
#include "output/report.h"

#define MAGIC "planeval-checkpoint 1"
#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

pe_status checkpoint_fingerprint(const char *scenario_path, uint64_t top_k, uint64_t first,
                                 uint64_t last, uint64_t *out, pe_error *err)
{
    FILE *fp = fopen(scenario_path, "rb");
    if (!fp)
        return pe_fail(err, PE_INTERNAL, scenario_path, 0, 0, "cannot read: %s", strerror(errno));
    uint64_t h = FNV_OFFSET;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        h = fnv(h, buf, n);
    fclose(fp);
    const uint64_t opts[] = {top_k, first, last};
    h = fnv(h, opts, sizeof opts);
    h = fnv(h, PLANEVAL_VERSION, strlen(PLANEVAL_VERSION));
    *out = h;
    return PE_OK;
}

static void write_list(FILE *fp, const char *key, const uint64_t *v, size_t n)
{
    fprintf(fp, "%s", key);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, " %" PRIu64, v[i]);
    fputc('\n', fp);
}

pe_status checkpoint_write(const char *path, const pe_checkpoint *c, pe_error *err)
{
    pe_status st = report_make_parent_dirs(path, err);
    if (st != PE_OK)
        return st;
    char tmp[PE_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "w");
    if (!fp)
        return pe_fail(err, PE_INTERNAL, tmp, 0, 0, "cannot write: %s", strerror(errno));
    fprintf(fp, "%s\nfingerprint %016" PRIx64 "\n", MAGIC, c->fingerprint);
    fprintf(fp, "first %" PRIu64 "\nlast %" PRIu64 "\nnext %" PRIu64 "\ntop_k %" PRIu64 "\n",
            c->first, c->last, c->next, c->top_k);
    fprintf(fp, "evaluated %" PRIu64 "\n", c->counts.evaluated);
    write_list(fp, "skipped", c->counts.skipped, PE_SKIP_COUNT);
    write_list(fp, "status", c->counts.by_status, 4);
    write_list(fp, "rules", c->counts.by_rule, PE_RULE_COUNT);
    fprintf(fp, "rows %zu\n", c->row_count);
    for (size_t i = 0; i < c->row_count; i++)
        fprintf(fp, "%" PRIu64 "\n", c->rows[i]);
    bool ok = fflush(fp) == 0 && !ferror(fp);
    ok &= fclose(fp) == 0;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "cannot write the checkpoint: %s",
                       strerror(errno));
    }
    return PE_OK;
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

pe_status checkpoint_read(const char *path, pe_checkpoint *c, pe_error *err)
{
    memset(c, 0, sizeof *c);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "cannot read: %s", strerror(errno));
    char line[64];
    bool ok = fgets(line, sizeof line, fp) && strncmp(line, MAGIC, strlen(MAGIC)) == 0;
    char word[32];
    ok = ok && fscanf(fp, "%31s %" SCNx64, word, &c->fingerprint) == 2;
    ok = ok && read_list(fp, "first", &c->first, 1) && read_list(fp, "last", &c->last, 1) &&
         read_list(fp, "next", &c->next, 1) && read_list(fp, "top_k", &c->top_k, 1) &&
         read_list(fp, "evaluated", &c->counts.evaluated, 1) &&
         read_list(fp, "skipped", c->counts.skipped, PE_SKIP_COUNT) &&
         read_list(fp, "status", c->counts.by_status, 4) &&
         read_list(fp, "rules", c->counts.by_rule, PE_RULE_COUNT);
    uint64_t rows = 0;
    ok = ok && read_list(fp, "rows", &rows, 1) && rows <= (c->top_k ? c->top_k : 0) &&
         c->first <= c->next && c->next <= c->last;
    if (ok && rows) {
        c->rows = malloc(rows * sizeof *c->rows);
        ok = c->rows != NULL;
        for (uint64_t i = 0; ok && i < rows; i++)
            ok = fscanf(fp, "%" SCNu64, &c->rows[i]) == 1;
        c->row_count = (size_t)rows;
    }
    fclose(fp);
    if (!ok) {
        checkpoint_free(c);
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "not a planeval checkpoint (or a damaged one): remove it to start over");
    }
    return PE_OK;
}

void checkpoint_free(pe_checkpoint *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
