/* formula.h — the text of the spec's equations as explain prints them: id,
 * what it is, the formula, the unit and the source. Each section header
 * writes its equations' text (a PE_TEXT_* macro) beside the function that
 * computes them; pe_formula_find() looks one up by its key, the id or, for
 * a second form of one equation, "id:variant" (e.g. "A6:full"). */
#ifndef PLANEVAL_MODEL_FORMULA_H
#define PLANEVAL_MODEL_FORMULA_H

typedef struct {
    const char *key;     /* "M1", "A6:full" */
    const char *what;    /* its name */
    const char *formula; /* as docs/model.md writes it */
    const char *unit;    /* of its value */
    const char *source;  /* the short tag of explain's Sources list */
} pe_formula;

/* The equation of `key`; NULL when no section has it. */
const pe_formula *pe_formula_find(const char *key);

#endif
