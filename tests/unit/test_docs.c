/* test_docs.c — docs/scenarios.md documents the interface the code has:
 * every key of every descriptor table of src/core/fields.c is a row of its
 * section's key table ("| `key` |" between that section's heading and the
 * next), and every report column of src/core/columns.c is a row of the
 * "Report columns" table; every number and integer key's row gives its
 * range as the descriptor's text (fields_range_text). A key or column added
 * without its documentation, or a range changed in one place only, fails here. Runs from the source directory (CTest's WORKING_DIRECTORY). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/columns.h"
#include "core/fields.h"

#define DOC "docs/scenarios.md"

static char *doc;

static int read_doc(void **state)
{
    (void)state;
    FILE *f = fopen(DOC, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    doc = malloc((size_t)n + 1);
    if (!doc || fread(doc, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return -1;
    }
    doc[n] = '\0';
    fclose(f);
    return 0;
}

static int free_doc(void **state)
{
    (void)state;
    free(doc);
    return 0;
}

/* The text of the section under heading (a whole line), up to the next
 * heading of any level; fails when the heading is missing. */
static void section(const char *heading, const char **start, size_t *len)
{
    char line[256];
    snprintf(line, sizeof line, "\n%s\n", heading);
    const char *h = strstr(doc, line);
    if (!h)
        fail_msg("%s has no heading \"%s\"", DOC, heading);
    h += strlen(line);
    const char *end = strstr(h, "\n#");
    *start = h;
    *len = end ? (size_t)(end - h) : strlen(h);
}

static bool has_row(const char *text, size_t len, const char *name)
{
    char row[128];
    snprintf(row, sizeof row, "\n| `%s` |", name);
    size_t n = strlen(row);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(text + i, row, n) == 0)
            return true;
    return false;
}

/* The value cell of key's row ("| `key` | VALUE | ..."), or NULL. */
static const char *value_cell(const char *text, size_t len, const char *name, size_t *n)
{
    char row[128];
    snprintf(row, sizeof row, "\n| `%s` | ", name);
    size_t rl = strlen(row);
    for (size_t i = 0; i + rl <= len; i++)
        if (memcmp(text + i, row, rl) == 0) {
            const char *v = text + i + rl, *end = strstr(v, " |");
            *n = end ? (size_t)(end - v) : 0;
            return v;
        }
    return NULL;
}

/* A number or integer key's row gives its range as the loader's messages
 * word it (an integer's ">= 0" as "a whole number >= 0"). */
static void check_range_cell(const char *heading, const char *text, size_t len,
                             const pe_field *f)
{
    if ((f->type != PE_FT_INT && f->type != PE_FT_NUMBER) || f->range == PE_RANGE_NONE)
        return;
    char want[128];
    const char *r = fields_range_text(f->range);
    if (f->type == PE_FT_INT && strncmp(r, "a whole ", 8) != 0)
        snprintf(want, sizeof want, "a whole %s", r + 2);
    else
        snprintf(want, sizeof want, "%s", r);
    size_t n = 0;
    const char *v = value_cell(text, len, f->key, &n);
    if (!v || n < strlen(want) || memcmp(v, want, strlen(want)) != 0 ||
        (n > strlen(want) && strncmp(v + strlen(want), ", or `auto`", 11) != 0))
        fail_msg("%s: section \"%s\": the row of `%s` gives its range as \"%.*s\", its "
                 "descriptor as \"%s\"",
                 DOC, heading, f->key, v ? (int)n : 0, v ? v : "", want);
}

static void test_every_key(void **state)
{
    (void)state;
    static const struct {
        const pe_fieldset *set;
        const char *heading;
    } sections[] = {
        {&pe_fields_scenario, "### Top level"},
        {&pe_fields_model, "### `model`"},
        {&pe_fields_precision, "### `precision`"},
        {&pe_fields_cluster, "### `cluster`"},
        {&pe_fields_gpu, "### `cluster.gpu`"},
        {&pe_fields_intra_node, "### `cluster.intra_node`"},
        {&pe_fields_inter_node, "### `cluster.inter_node`"},
        {&pe_fields_training, "### `training`"},
        {&pe_fields_budgets, "### `budgets`"},
        {&pe_fields_overlap, "### `overlap`"},
        {&pe_fields_framework, "### `framework`"},
        {&pe_fields_plan, "### `plans[]`"},
        {&pe_fields_sweep, "### `sweep`"},
        {&pe_fields_expect, "### `expect[]`"},
        {&pe_fields_tolerance, "### `expect[].COLUMN`"},
        {&pe_fields_catalog, "### Catalog file"},
        {&pe_fields_question, "### `questions[]`"},
        {&pe_fields_submission, "### Submission file"},
        {&pe_fields_failures, "### `failures`"},
        {&pe_fields_checkpointing, "### `checkpointing`"},
        {&pe_fields_targets, "### `targets`"},
    };
    size_t n_sets = 0;
    for (size_t i = 0; pe_fieldsets[i]; i++)
        n_sets++;
    /* every table of fields.c has a section here */
    assert_int_equal(n_sets, sizeof sections / sizeof sections[0]);
    for (size_t i = 0; i < n_sets; i++) {
        bool listed = false;
        for (size_t j = 0; j < sizeof sections / sizeof sections[0]; j++)
            listed = listed || sections[j].set == pe_fieldsets[i];
        if (!listed)
            fail_msg("the key table \"%s\" (%s) has no section in this test", pe_fieldsets[i]->path,
                     pe_fieldsets[i]->help);
    }
    for (size_t j = 0; j < sizeof sections / sizeof sections[0]; j++) {
        const char *text;
        size_t len;
        section(sections[j].heading, &text, &len);
        for (size_t k = 0; k < sections[j].set->count; k++) {
            if (!has_row(text, len, sections[j].set->fields[k].key))
                fail_msg("%s: section \"%s\" lacks a row for the key `%s`", DOC,
                         sections[j].heading, sections[j].set->fields[k].key);
            check_range_cell(sections[j].heading, text, len, &sections[j].set->fields[k]);
        }
    }
}

static void test_every_column(void **state)
{
    (void)state;
    const char *text;
    size_t len;
    section("### Report columns", &text, &len);
    for (int i = 0; i < COL_COUNT; i++)
        if (!has_row(text, len, pe_columns[i].name))
            fail_msg("%s: \"Report columns\" lacks a row for `%s`", DOC, pe_columns[i].name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_every_column),
    };
    return cmocka_run_group_tests(tests, read_doc, free_doc);
}
