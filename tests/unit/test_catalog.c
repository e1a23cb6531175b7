/* test_catalog.c — the preset catalog: the built-in files, --catalog DIR
 * adding and overriding entries (docs/scenarios.md "Presets and the catalog"), and refusals of
 * bad catalog files, which name the catalog file. Runs from the source
 * directory (CTest's WORKING_DIRECTORY). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "input/catalog.h"

#define FIXTURE "tests/unit/catalog_fixture"

static void test_builtin(void **state)
{
    (void)state;
    pe_catalog *c = NULL;
    pe_error err = {0};
    pe_status st = catalog_open(NULL, &c, &err);
    if (st != PE_OK) {
        char buf[2048];
        pe_error_format(&err, buf, sizeof buf);
        fail_msg("built-in catalog refused: %s", buf);
    }
    /* the shipped catalog's data is someone else's; only these must exist */
    assert_non_null(catalog_find(c, "models", "gpt3-175b"));
    assert_non_null(catalog_find(c, "gpus", "mi300x"));
    assert_non_null(catalog_find(c, "gpus", "h100-sxm"));
    assert_null(catalog_find(c, "models", "mi300x")); /* kinds are separate */
    const pe_preset *p = catalog_find(c, "models", "gpt3-175b");
    assert_string_equal(catalog_entry_file(p), "scenarios/catalog/models.yaml");
    assert_true(catalog_entry_line(p) > 0);
    catalog_free(c);
}

static void test_fixture(void **state)
{
    (void)state;
    pe_catalog *c = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open(FIXTURE, &c, &err), PE_OK);
    /* b-override.yaml comes after a-base.yaml and overrides tinygpu */
    const pe_preset *p = catalog_find(c, "gpus", "tinygpu");
    assert_non_null(p);
    assert_string_equal(catalog_entry_file(p), FIXTURE "/b-override.yaml");
    assert_int_equal(catalog_entry_line(p), 3);
    p = catalog_find(c, "clusters", "tinynode");
    assert_string_equal(catalog_entry_file(p), FIXTURE "/a-base.yaml");
    /* names: unique, byte order; the count even when max is smaller */
    size_t total = catalog_names(c, "gpus", NULL, 0);
    const char **names = malloc((total + 1) * sizeof *names);
    assert_non_null(names);
    assert_int_equal(catalog_names(c, "gpus", names, total), total);
    for (size_t i = 1; i < total; i++)
        assert_true(strcmp(names[i - 1], names[i]) < 0);
    size_t seen = 0;
    for (size_t i = 0; i < total; i++)
        seen += strcmp(names[i], "tinygpu") == 0;
    assert_int_equal(seen, 1);
    const char *one[1];
    assert_int_equal(catalog_names(c, "gpus", one, 1), total);
    assert_null(catalog_find(c, "models", "nope"));
    assert_int_equal(catalog_names(c, "widgets", NULL, 0), 0);
    free(names);
    catalog_free(c);
    catalog_free(NULL);
    assert_null(catalog_find(NULL, "models", "tiny"));
}

/* Write one file into a fresh directory and open it as --catalog DIR. */
static void assert_catalog_refused(const char *file, const char *text, const char *expected)
{
    char dir[] = "/tmp/planeval-catalog-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    pe_catalog *c = NULL;
    pe_error err = {0};
    pe_status st = catalog_open(dir, &c, &err);
    unlink(path);
    rmdir(dir);
    assert_int_equal(st, PE_BAD_INPUT);
    assert_null(c);
    char buf[2048], want[2048];
    pe_error_format(&err, buf, sizeof buf);
    snprintf(want, sizeof want, "%s/%s", dir, expected);
    assert_string_equal(buf, want);
}

static void test_refusals(void **state)
{
    (void)state;
    assert_catalog_refused("c.yaml", "clusters:\n  n:\n    nodes: 4\n",
                           "c.yaml:3:5: error: clusters.n: a cluster preset never sets nodes; the "
                           "scenario gives cluster.nodes");
    assert_catalog_refused("c.yaml", "clusters:\n  n:\n    gpu: {preset: h100-sx}\n",
                           "c.yaml:3:19: error: clusters.n.gpu.preset: unknown gpu preset "
                           "'h100-sx' (did you mean 'h100-sxm'?)");
    assert_catalog_refused("c.yaml", "clusters:\n  n:\n    gpu: h100-sxm\n",
                           "c.yaml:3:10: error: clusters.n.gpu: expected a mapping, got "
                           "\"h100-sxm\"");
    assert_catalog_refused("c.yaml", "gpus:\n  g: {hbm_gb: 80}\n",
                           "c.yaml:2:7: error: unknown key 'hbm_gb' in gpus.g (did you mean "
                           "'hbm_gib'?)");
    assert_catalog_refused("c.yaml", "gpus:\n  g: {hbm_gib: yes}\n",
                           "c.yaml:2:16: error: gpus.g.hbm_gib: expected a number, got \"yes\"");
    assert_catalog_refused("c.yaml", "models:\n  m: {layers: 0}\n",
                           "c.yaml:2:15: error: models.m.layers must be a whole number >= 1, got 0");
    assert_catalog_refused("c.yaml", "models:\n  m: {preset: gpt3-175b}\n",
                           "c.yaml:2:7: error: models.m: a catalog model cannot name another "
                           "preset; write its keys out");
    assert_catalog_refused("c.yaml", "models:\n  Big: {layers: 2}\n",
                           "c.yaml:2:3: error: models: preset name \"Big\" must match "
                           "[a-z0-9._-]+");
    assert_catalog_refused("c.yaml", "modles: {}\n",
                           "c.yaml:1:1: error: unknown key 'modles' (did you mean 'models'?)");
    assert_catalog_refused("c.yaml", "- 1\n",
                           "c.yaml:1:1: error: a catalog file is a mapping with models:, gpus: or "
                           "clusters:, got a list");
    assert_catalog_refused("c.yaml", "gpus:\n  g: {hbm_gib: 1}\n  g: {hbm_gib: 2}\n",
                           "c.yaml:3:3: error: duplicate key 'g' in gpus (first given at line 2)");
    assert_catalog_refused("c.yaml", "",
                           "c.yaml:1:1: error: the file is empty (no YAML document)");
    assert_catalog_refused(
        "c.yaml", "clusters:\n  n:\n    intra_node: {topology: switch, links: 2}\n",
        "c.yaml:3:36: error: 'links' is a key of topology full_mesh, but "
        "clusters.n.intra_node.topology is switch");

    pe_catalog *c = NULL;
    pe_error err = {0};
    assert_int_equal(catalog_open("tests/unit/no-such-dir", &c, &err), PE_BAD_INPUT);
    assert_string_equal(err.file, "tests/unit/no-such-dir");
    assert_null(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_fixture),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
