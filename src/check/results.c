/* results.c — a check's records and their JSON and JUnit forms (results.h).
 * Every string is copied in: the scenario, its rows and its golden
 * comparison are gone by the time the results are written. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/results.h"

static char *copy(const char *t)
{
    size_t n = strlen(t ? t : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, t ? t : "", n);
    return d;
}

/* Room for one more item in *items (n used of *cap, each size bytes). */
static bool grow(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, c * size);
    if (!p)
        return false;
    *items = p;
    *cap = c;
    return true;
}

static pe_status out_of_memory(pe_error *err)
{
    return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
}

pe_status results_add_scenario(pe_check_results *r, const char *file, pe_error *err)
{
    if (!grow((void **)&r->scenarios, &r->capscenarios, r->nscenarios, sizeof *r->scenarios))
        return out_of_memory(err);
    pe_scenario_result *s = &r->scenarios[r->nscenarios];
    s->file = copy(file);
    s->name = copy("");
    s->error = copy("");
    r->nscenarios++;
    return s->file && s->name && s->error ? PE_OK : out_of_memory(err);
}

/* Replace *field with a copy of text. */
static pe_status set_text(char **field, const char *text, pe_error *err)
{
    char *c = copy(text);
    if (!c)
        return out_of_memory(err);
    free(*field);
    *field = c;
    return PE_OK;
}

pe_status results_name_scenario(pe_check_results *r, const char *name, pe_error *err)
{
    return r->nscenarios ? set_text(&r->scenarios[r->nscenarios - 1].name, name, err) : PE_OK;
}

pe_status results_fail_scenario(pe_check_results *r, const pe_error *failure, pe_error *err)
{
    if (!r->nscenarios)
        return PE_OK;
    char first[PE_PATH_MAX + PE_MSG_MAX + 64];
    pe_error_format(failure, first, sizeof first);
    size_t n = strlen(first) + strlen(failure->more) + 2;
    char *text = malloc(n);
    if (!text)
        return out_of_memory(err);
    snprintf(text, n, "%s%s%.*s", first, failure->more[0] ? "\n" : "",
             /* the further errors, without their last newline */
             (int)(failure->more[0] ? strlen(failure->more) - 1 : 0), failure->more);
    pe_status st = set_text(&r->scenarios[r->nscenarios - 1].error, text, err);
    free(text);
    return st;
}

pe_status results_add_assertion(pe_check_results *r, const pe_expect_outcome *o, pe_error *err)
{
    if (!r->nscenarios ||
        !grow((void **)&r->assertions, &r->capassertions, r->nassertions, sizeof *r->assertions))
        return r->nscenarios ? out_of_memory(err) : PE_OK;
    pe_assertion_result *a = &r->assertions[r->nassertions++];
    *a = (pe_assertion_result){.scenario = r->nscenarios - 1, .file = copy(o->file),
                               .plan = copy(o->plan), .column = copy(o->column),
                               .message = copy(o->message), .line = o->line, .col = o->col,
                               .ok = o->ok};
    return a->file && a->plan && a->column && a->message ? PE_OK : out_of_memory(err);
}

pe_status results_add_golden(pe_check_results *r, const char *path, pe_golden_status status,
                             const pe_golden_diff *diff, const char *lines, pe_error *err)
{
    if (!r->nscenarios || !grow((void **)&r->golden, &r->capgolden, r->ngolden, sizeof *r->golden))
        return r->nscenarios ? out_of_memory(err) : PE_OK;
    pe_golden_result *g = &r->golden[r->ngolden++];
    *g = (pe_golden_result){.scenario = r->nscenarios - 1, .path = copy(path), .status = status,
                            .lines = copy(lines)};
    if (diff)
        g->diff = *diff;
    return g->path && g->lines ? PE_OK : out_of_memory(err);
}

pe_status results_add_stale(pe_check_results *r, const char *path, pe_error *err)
{
    if (!grow((void **)&r->stale, &r->capstale, r->nstale, sizeof *r->stale))
        return out_of_memory(err);
    r->stale[r->nstale] = copy(path);
    return r->stale[r->nstale++] ? PE_OK : out_of_memory(err);
}

void results_free(pe_check_results *r)
{
    for (size_t i = 0; i < r->nscenarios; i++) {
        free(r->scenarios[i].file);
        free(r->scenarios[i].name);
        free(r->scenarios[i].error);
    }
    for (size_t i = 0; i < r->nassertions; i++) {
        free(r->assertions[i].file);
        free(r->assertions[i].plan);
        free(r->assertions[i].column);
        free(r->assertions[i].message);
    }
    for (size_t i = 0; i < r->ngolden; i++) {
        free(r->golden[i].path);
        free(r->golden[i].lines);
    }
    for (size_t i = 0; i < r->nstale; i++)
        free(r->stale[i]);
    free(r->scenarios);
    free(r->assertions);
    free(r->golden);
    free(r->stale);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ counts */

static const char *golden_status_name(pe_golden_status s)
{
    static const char *const names[] = {"pass", "fail", "missing", "written"};
    return names[s];
}

static bool golden_failed(const pe_golden_result *g)
{
    return g->status == PE_GOLDEN_FAIL || g->status == PE_GOLDEN_MISSING;
}

typedef struct {
    unsigned long long passed, failed, missing, errors;
} totals;

/* The counts of scenario i (or, with i SIZE_MAX, of the whole check), as
 * the closing line counts them: assertions and golden comparisons. */
static totals count(const pe_check_results *r, size_t i)
{
    totals t = {0, 0, 0, 0};
    for (size_t k = 0; k < r->nassertions; k++)
        if (i == SIZE_MAX || r->assertions[k].scenario == i) {
            t.passed += r->assertions[k].ok;
            t.failed += !r->assertions[k].ok;
        }
    for (size_t k = 0; k < r->ngolden; k++) {
        const pe_golden_result *g = &r->golden[k];
        if (i != SIZE_MAX && g->scenario != i)
            continue;
        if (golden_failed(g))
            t.failed++;
        else if (g->status == PE_GOLDEN_PASS)
            t.passed++;
        t.missing += g->status == PE_GOLDEN_MISSING;
    }
    for (size_t k = 0; k < r->nscenarios; k++)
        t.errors += (i == SIZE_MAX || k == i) && r->scenarios[k].error[0];
    return t;
}

/* The golden comparison of scenario i, or NULL. */
static const pe_golden_result *golden_of(const pe_check_results *r, size_t i)
{
    for (size_t k = 0; k < r->ngolden; k++)
        if (r->golden[k].scenario == i)
            return &r->golden[k];
    return NULL;
}

static unsigned long long not_printed(const pe_golden_diff *d)
{
    unsigned long long n = 0;
    for (int k = 0; k < PE_GOLDEN_KINDS; k++)
        n += d->not_printed[k];
    return n;
}

/* "3 cells differ in 2 plans; ..." (no path), or the missing report's line. */
static void golden_message(const pe_golden_result *g, char *buf, size_t size)
{
    const pe_golden_diff *d = &g->diff;
    if (g->status == PE_GOLDEN_MISSING)
        snprintf(buf, size, "%s: missing golden report: no such file (run with --update-golden "
                 "to write it)", g->path);
    else
        snprintf(buf, size, "%llu cells differ in %llu plans; %llu plans moved in rank; %llu "
                 "plans added, %llu removed; %llu columns differ", d->cells, d->plans, d->moved,
                 d->added, d->removed, d->columns);
}

/* ------------------------------------------------------------ JSON */

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* The difference lines as an array of strings, one a line. */
static void json_lines(FILE *out, const char *text)
{
    fputc('[', out);
    for (const char *p = text, *sep = ""; *p; sep = ", ") {
        size_t n = strcspn(p, "\n");
        char *line = malloc(n + 1);
        if (line) {
            memcpy(line, p, n);
            line[n] = '\0';
            fputs(sep, out);
            json_string(out, line);
            free(line);
        }
        p += n + (p[n] == '\n');
    }
    fputc(']', out);
}

static void json_scenarios(const pe_check_results *r, FILE *out)
{
    fputs("  \"scenarios\": [", out);
    for (size_t i = 0; i < r->nscenarios; i++) {
        const pe_scenario_result *s = &r->scenarios[i];
        totals t = count(r, i);
        const pe_golden_result *g = golden_of(r, i);
        fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", out);
        json_string(out, s->file);
        fputs(", \"name\": ", out);
        json_string(out, s->name);
        fprintf(out, ", \"status\": \"%s\", \"error\": ",
                s->error[0] ? "error" : t.failed ? "fail" : "pass");
        json_string(out, s->error);
        fprintf(out, ", \"passed\": %llu, \"failed\": %llu, \"golden\": \"%s\"}", t.passed,
                t.failed, g ? golden_status_name(g->status) : "none");
    }
    fputs(r->nscenarios ? "\n  ],\n" : "],\n", out);
}

static void json_assertions(const pe_check_results *r, FILE *out)
{
    fputs("  \"assertions\": [", out);
    for (size_t i = 0; i < r->nassertions; i++) {
        const pe_assertion_result *a = &r->assertions[i];
        fputs(i ? ",\n    {\"scenario\": " : "\n    {\"scenario\": ", out);
        json_string(out, r->scenarios[a->scenario].name);
        fputs(", \"file\": ", out);
        json_string(out, a->file);
        fprintf(out, ", \"line\": %d, \"col\": %d, \"plan\": ", a->line, a->col);
        json_string(out, a->plan);
        fputs(", \"column\": ", out);
        json_string(out, a->column);
        fprintf(out, ", \"status\": \"%s\", \"message\": ", a->ok ? "pass" : "fail");
        json_string(out, a->message);
        fputc('}', out);
    }
    fputs(r->nassertions ? "\n  ],\n" : "],\n", out);
}

static void json_golden(const pe_check_results *r, FILE *out)
{
    fputs("  \"golden\": [", out);
    for (size_t i = 0; i < r->ngolden; i++) {
        const pe_golden_result *g = &r->golden[i];
        const pe_golden_diff *d = &g->diff;
        fputs(i ? ",\n    {\"scenario\": " : "\n    {\"scenario\": ", out);
        json_string(out, r->scenarios[g->scenario].name);
        fputs(", \"path\": ", out);
        json_string(out, g->path);
        fprintf(out,
                ", \"status\": \"%s\", \"cells_differ\": %llu, \"plans_differ\": %llu, "
                "\"moved\": %llu, \"added\": %llu, \"removed\": %llu, \"columns_differ\": %llu, "
                "\"golden_rows\": %zu, \"fresh_rows\": %zu, \"lines_not_printed\": %llu, "
                "\"lines\": ",
                golden_status_name(g->status), d->cells, d->plans, d->moved, d->added,
                d->removed, d->columns, d->golden_rows, d->fresh_rows, not_printed(d));
        json_lines(out, g->lines);
        fputc('}', out);
    }
    fputs(r->ngolden ? "\n  ],\n" : "],\n", out);
}

void results_write_json(const pe_check_results *r, FILE *out)
{
    totals t = count(r, SIZE_MAX);
    fprintf(out,
            "{\n  \"passed\": %llu,\n  \"failed\": %llu,\n  \"missing_golden\": %llu,\n"
            "  \"stale_golden\": %zu,\n  \"errors\": %llu,\n",
            t.passed, t.failed, t.missing, r->nstale, t.errors);
    json_scenarios(r, out);
    json_assertions(r, out);
    json_golden(r, out);
    fputs("  \"stale_golden_reports\": [", out);
    for (size_t i = 0; i < r->nstale; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, r->stale[i]);
    }
    fputs("]\n}\n", out);
}

/* ------------------------------------------------------------ JUnit */

/* Text for an XML attribute or element: the five entities, line breaks
 * and tabs as references, other control characters (not XML 1.0) as '?'. */
static void xml_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\t': fputs("&#9;", out); break;
        default: fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
        }
}

/* <testcase classname="SUITE" name="NAME" file="FILE"[ line="N"] */
static void junit_case_open(FILE *out, const char *suite, const char *name, const char *file,
                            int line)
{
    fputs("    <testcase classname=\"", out);
    xml_text(out, suite);
    fputs("\" name=\"", out);
    xml_text(out, name);
    fputs("\" file=\"", out);
    xml_text(out, file);
    if (line)
        fprintf(out, "\" line=\"%d", line);
    fputs("\">\n", out);
}

/* <failure|error|skipped type="TYPE" message="MESSAGE">BODY</...></testcase> */
static void junit_case_close(FILE *out, const char *tag, const char *type, const char *message,
                             const char *body)
{
    if (tag) {
        fprintf(out, "      <%s type=\"%s\" message=\"", tag, type);
        xml_text(out, message);
        fputs("\">", out);
        xml_text(out, body);
        fprintf(out, "</%s>\n", tag);
    }
    fputs("    </testcase>\n", out);
}

static void junit_assertions(const pe_check_results *r, size_t i, const char *suite, FILE *out)
{
    char name[PE_PATH_MAX + 256];
    for (size_t k = 0; k < r->nassertions; k++) {
        const pe_assertion_result *a = &r->assertions[k];
        if (a->scenario != i)
            continue;
        if (strcmp(a->column, "best_plan") == 0)
            snprintf(name, sizeof name, "best_plan '%s'", a->plan);
        else
            snprintf(name, sizeof name, "plan '%s': %s", a->plan, a->column);
        junit_case_open(out, suite, name, a->file, a->line);
        junit_case_close(out, a->ok ? NULL : "failure", "assertion", a->message, "");
    }
}

static void junit_golden(const pe_golden_result *g, const char *suite, const char *file,
                         FILE *out)
{
    char name[PE_PATH_MAX + 32], message[PE_PATH_MAX + 256];
    snprintf(name, sizeof name, "golden report %s", g->path);
    junit_case_open(out, suite, name, file, 0);
    golden_message(g, message, sizeof message);
    junit_case_close(out, golden_failed(g) ? "failure" : NULL,
                     g->status == PE_GOLDEN_MISSING ? "missing-golden" : "golden-diff", message,
                     g->lines);
}

/* One scenario's testsuite: the scenario (an error when it did not load
 * or evaluate), its assertions, its golden report. */
static void junit_scenario(const pe_check_results *r, size_t i, FILE *out)
{
    const pe_scenario_result *s = &r->scenarios[i];
    const char *suite = s->name[0] ? s->name : s->file;
    totals t = count(r, i);
    const pe_golden_result *g = golden_of(r, i);
    size_t tests = 1 + (size_t)(t.passed + t.failed) + (g && g->status == PE_GOLDEN_WRITTEN);
    fputs("  <testsuite name=\"", out);
    xml_text(out, suite);
    fprintf(out, "\" tests=\"%zu\" failures=\"%llu\" errors=\"%llu\" skipped=\"0\" file=\"",
            tests, t.failed, t.errors);
    xml_text(out, s->file);
    fputs("\">\n", out);
    junit_case_open(out, suite, "loads and evaluates", s->file, 0);
    junit_case_close(out, s->error[0] ? "error" : NULL, "error", s->error, s->error);
    junit_assertions(r, i, suite, out);
    if (g)
        junit_golden(g, suite, s->file, out);
    fputs("  </testsuite>\n", out);
}

void results_write_junit(const pe_check_results *r, FILE *out)
{
    totals t = count(r, SIZE_MAX);
    size_t written = 0;
    for (size_t k = 0; k < r->ngolden; k++)
        written += r->golden[k].status == PE_GOLDEN_WRITTEN;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"planeval check\" tests=\"%llu\" failures=\"%llu\" "
                 "errors=\"%llu\" skipped=\"%zu\">\n",
            (unsigned long long)(r->nscenarios + written + r->nstale) + t.passed + t.failed,
            t.failed, t.errors,
            r->nstale);
    for (size_t i = 0; i < r->nscenarios; i++)
        junit_scenario(r, i, out);
    if (r->nstale) {
        fprintf(out, "  <testsuite name=\"stale golden reports\" tests=\"%zu\" failures=\"0\" "
                     "errors=\"0\" skipped=\"%zu\">\n", r->nstale, r->nstale);
        for (size_t i = 0; i < r->nstale; i++) {
            junit_case_open(out, "stale golden reports", r->stale[i], r->stale[i], 0);
            junit_case_close(out, "skipped", "stale-golden",
                             "stale golden report: no scenario checked writes it", "");
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
}
