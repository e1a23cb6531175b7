/* spreadsheet.h — what a spreadsheet opening a CSV runs as a formula: a
 * cell whose text starts with = + - @ or their full-width forms ＝ ＋ － ＠
 * (U+FF1D, U+FF0B, U+FF0D, U+FF20), after any run of Unicode spaces,
 * format characters and controls (categories Zs, Zl, Zp, Cf, Cc, Unicode
 * 15: U+00A0, U+3000, U+200B, U+FEFF, a tab, ...). The one test of it, for
 * the loader (a plan name, a report cell, is refused) and the grader (a
 * cell from a submission gets a leading quote). */
#ifndef PLANEVAL_SPREADSHEET_H
#define PLANEVAL_SPREADSHEET_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the len bytes of text (UTF-8) would start a formula; then *at
 * is the offset of the formula character and *width its length in bytes
 * (1, or 3 for a full-width form). */
bool spreadsheet_formula_start(const char *text, size_t len, size_t *at, size_t *width);

#endif
