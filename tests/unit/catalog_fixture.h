/* catalog_fixture.h — the built-in catalog, opened once for a cmocka group
 * of tests that load scenarios from YAML text (catalog_setup and
 * catalog_teardown as the group's setup and teardown). */
#ifndef PLANEVAL_TEST_CATALOG_FIXTURE_H
#define PLANEVAL_TEST_CATALOG_FIXTURE_H

#include "input/catalog.h"

static pe_catalog *catalog; /* the built-in catalog */

static int catalog_setup(void **state)
{
    (void)state;
    pe_error err = {0};
    return catalog_open(NULL, &catalog, &err) == PE_OK ? 0 : -1;
}

static int catalog_teardown(void **state)
{
    (void)state;
    catalog_free(catalog);
    return 0;
}

#endif
