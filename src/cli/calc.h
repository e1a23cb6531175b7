/* calc.h — quick calculators for the three questions the exercises
 * practise, no scenario file needed: `planeval memory` (does it fit?),
 * `planeval collective` (what does this collective cost on this
 * topology?), `planeval bubble` (what does this pipeline schedule waste?).
 *
 * `memory` and `collective` turn their options into a scenario text and load
 * it with the same strict loader, so presets, defaults, ranges and messages
 * are those of scenario files. Each prints its answer on stdout; errors come
 * back in err for main to print. argv[0] is the command name. */
#ifndef PLANEVAL_CALC_H
#define PLANEVAL_CALC_H

#include "input/catalog.h"
#include "core/error.h"

int calc_memory(int argc, char **argv, const pe_catalog *catalog, pe_error *err);
int calc_collective(int argc, char **argv, const pe_catalog *catalog, pe_error *err);
int calc_bubble(int argc, char **argv, pe_error *err);

#endif
