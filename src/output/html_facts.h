/* html_facts.h — a scenario's facts and assumptions as key/value text: the
 * numbers the model used, for the HTML page and for the run's summary
 * ("fact: KEY" rows, which `planeval html` reads back).
 *
 * A textbook scenario's facts are the model, the GPUs, flops_efficiency
 * (default or set), reserve, links, overlap, training and budgets. A refined
 * one (docs/model.md §12) also names its fidelity, the framework and every
 * number it puts in force, the overlap in force (ep too), the GPU's
 * refinement numbers (F7–F11, F18: replacing flops_efficiency where
 * gemm_efficiency is given, as the model does), the links' C8 numbers, the
 * precision and, for an MoE model, the expert shape. */
#ifndef PLANEVAL_HTML_FACTS_H
#define PLANEVAL_HTML_FACTS_H

#include <stddef.h>

#include "core/scenario.h"

typedef struct {
    char key[64];
    char value[2048]; /* as much as a summary row holds: the longest, the framework's keys (over 1024 with X25-X27) */
} pe_html_fact;

#define PE_HTML_FACTS_MAX 24

/* The scenario's facts in out[0..max); the count. */
size_t html_scenario_facts(const pe_scenario *s, pe_html_fact *out, size_t max);

#endif
