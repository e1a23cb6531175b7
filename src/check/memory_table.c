/* memory_table.c — check --table's memory table (memory_table.h). */
#include "check/memory_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void memory_file_read(const char *path, const char *name, pe_memory_file *f)
{
    memset(f, 0, sizeof *f);
    const char *dash = strchr(name, '-');
    snprintf(f->source, sizeof f->source, "%.*s", dash ? (int)(dash - name) : (int)strlen(name),
             name);
    FILE *fp = fopen(path, "r");
    char line[512], word[PE_NAME_MAX];
    /* the lines start exactly so: an indented "#   source:" in a file's
     * provenance block is not one */
    while (fp && fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "# source: ", 10) && sscanf(line + 10, "%127[a-z0-9._-]", word) == 1)
            snprintf(f->source, sizeof f->source, "%s", word);
        else if (!strncmp(line, "# group: ", 9))
            sscanf(line + 9, "%15[a-z]", f->group);
        else if (!strncmp(line, "# metric: ", 10) && sscanf(line + 10, "%127[a-z_]", word) == 1)
            f->outcome_metric = !strcmp(word, "outcome");
    }
    if (fp)
        fclose(fp);
}

/* Whether c is a memory assertion, and if so the row it makes. */
static bool memory_row(const pe_memory_file *f, const pe_expect_check *c, const char *cell,
                       const pe_memory_interval *iv, pe_memory_row *r)
{
    memset(r, 0, sizeof *r);
    if (!strcmp(c->column, "status") && c->is_text && c->text) {
        const bool oom = !strcmp(c->text, "over_memory");
        if (!oom && !f->outcome_metric)
            return false;
        r->outcome = true;
        /* a run that fit is right as ok or over_time: memory is not what a
         * time budget fails on */
        r->right = oom ? !strcmp(cell, "over_memory")
                       : !strcmp(cell, "ok") || !strcmp(cell, "over_time");
    } else if (!strncmp(c->column, "mem_", 4) && !c->is_text) {
        char *end;
        const double got = strtod(cell, &end);
        r->has_error = cell[0] && !*end && c->value != 0;
        if (r->has_error)
            r->error_pct = 100.0 * (got - c->value) / fabs(c->value);
        /* M23 bounds the peak and, with the same ratios, the reserved and
         * device totals; not the state or activation terms */
        const bool peak_like = !strcmp(c->column, "mem_peak_gib") ||
                               !strcmp(c->column, "mem_reserved_gib") ||
                               !strcmp(c->column, "mem_total_gib");
        r->peak_like = r->has_error && peak_like;
        r->has_interval = r->peak_like && iv && iv->has;
        if (r->has_interval)
            r->inside = c->value >= got * iv->ratio_lo && c->value <= got * iv->ratio_hi;
    } else {
        return false;
    }
    memcpy(r->source, f->source, sizeof r->source);
    memcpy(r->group, f->group, sizeof r->group);
    return true;
}

bool memory_table_add(pe_memory_table *t, const pe_memory_file *f, const pe_expect_check *c,
                      const char *cell, const pe_memory_interval *iv)
{
    pe_memory_row row;
    if (!memory_row(f, c, cell, iv, &row))
        return true;
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        pe_memory_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows)
            return false;
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->count++] = row;
    return true;
}

/* One line: the rows of `source` in `group`; nothing when there are none. */
static void group_line(const pe_memory_table *t, const char *source, const char *group, FILE *out)
{
    size_t rows = 0, n = 0, outcomes = 0, right = 0;
    double sum = 0, max = 0;
    for (size_t i = 0; i < t->count; i++) {
        const pe_memory_row *r = &t->rows[i];
        if (strcmp(r->source, source) || strcmp(r->group, group))
            continue;
        rows++;
        if (r->outcome) {
            outcomes++;
            right += r->right;
        } else if (r->has_error) {
            n++;
            sum += fabs(r->error_pct);
            max = fabs(r->error_pct) > max ? fabs(r->error_pct) : max;
        }
    }
    if (!rows)
        return;
    char mean_text[32] = "—", max_text[32] = "—", right_text[48] = "—";
    if (n) {
        snprintf(mean_text, sizeof mean_text, "%.2f", sum / (double)n);
        snprintf(max_text, sizeof max_text, "%.2f", max);
    }
    if (outcomes)
        snprintf(right_text, sizeof right_text, "%zu of %zu", right, outcomes);
    fprintf(out, "| %s | %s | %zu | %s | %s | %s |\n", source, group[0] ? group : "(none)", n,
            mean_text, max_text, right_text);
}

void memory_table_print(const pe_memory_table *t, FILE *out)
{
    if (!t->count)
        return;
    fprintf(out, "\n| source | group | memory assertions | mean error %% | max error %% | "
                 "outcomes right (OOM or fits) |\n|---|---|---:|---:|---:|---:|\n");
    static const char *const groups[] = {"fit", "predict", ""};
    for (size_t i = 0; i < t->count; i++) {
        bool seen = false; /* printed already, at an earlier row of the same source */
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(t->rows[j].source, t->rows[i].source);
        for (size_t g = 0; !seen && g < 3; g++)
            group_line(t, t->rows[i].source, groups[g], out);
    }
}

/* M23's coverage of one source and group: its peak-like rows with an
 * interval, and how many published values lie inside. */
static void coverage_line(const pe_memory_table *t, const char *source, const char *group,
                          FILE *out, size_t *in_all, size_t *n_all)
{
    size_t n = 0, in = 0;
    for (size_t i = 0; i < t->count; i++) {
        const pe_memory_row *r = &t->rows[i];
        if (strcmp(r->source, source) || strcmp(r->group, group) || !r->has_interval)
            continue;
        n++;
        in += r->inside;
    }
    if (n)
        fprintf(out, "| %s | %s | %zu | %zu | %.1f |\n", source, group[0] ? group : "(none)", n,
                in, 100.0 * (double)in / (double)n);
    *in_all += in, *n_all += n;
}

void memory_table_print_coverage(const pe_memory_table *t, FILE *out)
{
    bool peaks = false;
    for (size_t i = 0; i < t->count && !peaks; i++)
        peaks = t->rows[i].peak_like;
    if (!peaks)
        return;
    fprintf(out, "\n| source | group | memory peaks with an interval | inside | coverage %% |\n"
                 "|---|---|---:|---:|---:|\n");
    static const char *const groups[] = {"fit", "predict", ""};
    size_t in = 0, n = 0;
    for (size_t i = 0; i < t->count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(t->rows[j].source, t->rows[i].source);
        for (size_t g = 0; !seen && g < 3; g++)
            coverage_line(t, t->rows[i].source, groups[g], out, &in, &n);
    }
    if (n)
        fprintf(out, "\nmemory intervals (M23, 80%%): %zu of %zu published memory peaks inside "
                     "(%.1f%%)\n", in, n, 100.0 * (double)in / (double)n);
    else
        fprintf(out, "\nmemory intervals (M23, 80%%): no memory peak with an interval\n");
}

void memory_table_free(pe_memory_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->count = t->cap = 0;
}
