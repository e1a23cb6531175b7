/* formula.c — the sections' equation texts (formula.h) in one table, in
 * the spec's order. */
#include "model/formula.h"

#include <string.h>

#include "model/compute.h"
#include "model/memory.h"
#include "model/params.h"

static const pe_formula FORMULAS[] = {
    PE_TEXT_P1, PE_TEXT_P2, PE_TEXT_P3, PE_TEXT_P4, PE_TEXT_P6, PE_TEXT_P7, PE_TEXT_P16,
    PE_TEXT_M1, PE_TEXT_M2, PE_TEXT_M3, PE_TEXT_M4, PE_TEXT_A1, PE_TEXT_A2, PE_TEXT_A3,
    PE_TEXT_A4, PE_TEXT_A5, PE_TEXT_A6, PE_TEXT_A6_FULL, PE_TEXT_A7, PE_TEXT_A8, PE_TEXT_M5,
    PE_TEXT_M6, PE_TEXT_A11, PE_TEXT_A4_MOE, PE_TEXT_A12, PE_TEXT_F1, PE_TEXT_F2, PE_TEXT_F3,
    PE_TEXT_F4, PE_TEXT_F5, PE_TEXT_F5_BWD,
};

const pe_formula *pe_formula_find(const char *key)
{
    for (size_t i = 0; i < sizeof FORMULAS / sizeof FORMULAS[0]; i++)
        if (strcmp(FORMULAS[i].key, key) == 0)
            return &FORMULAS[i];
    return NULL;
}
