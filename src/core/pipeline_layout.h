/* pipeline_layout.h — a plan's pipeline_layout (scenario.h
 * pe_pipeline_layout; docs/model.md V3″, docs/scenarios.md "Plans"): read
 * from Megatron-Core's string form, written and read back as the `-pl` part
 * of a canonical text, and checked against the model's layers and the
 * plan's p and v — one checker for the loader (a load error) and for V3″
 * (plans that reach the evaluator as canonical texts). */
#ifndef PLANEVAL_CORE_PIPELINE_LAYOUT_H
#define PLANEVAL_CORE_PIPELINE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/scenario.h"

/* Megatron-Core's --pipeline-model-parallel-layout string (megatron/core/
 * transformer/pipeline_parallel_layer_layout.py, parse_str_to_list):
 * virtual stages split by '|', 'E' the embedding, 't' a transformer layer,
 * 'L' the loss, "x*n" n copies of one character, "(...)*n" n copies of a
 * group, ',' and spaces cosmetic. 'E' must open the first stage and 'L'
 * close the last (Megatron asserts both, once each); 'm' (an MTP layer)
 * is not modelled. 1 and *out filled, or 0 with why (one line). */
int pipeline_layout_from_text(const char *text, pe_pipeline_layout *out, char *why, size_t n);

/* 0 when the layout fits a model of L layers on p stages of v chunks:
 * p·v virtual stages, L layers in all, none empty but the first and last
 * (they hold the embedding and the loss). Else the first fault as one line
 * in why (e.g. "30 virtual stages; pp=16 x virtual_stages=2 needs 32"). */
int pipeline_layout_fault(const pe_pipeline_layout *lay, int64_t L, int64_t p, int64_t v,
                          char *why, size_t n);

/* Layers of pipeline stage j (its v chunks: virtual stages r·p + j), and
 * the most any one chunk of it holds. */
int64_t pipeline_layout_stage(const pe_pipeline_layout *lay, int64_t p, int64_t j);
int64_t pipeline_layout_chunk_max(const pe_pipeline_layout *lay, int64_t p, int64_t j);

/* The `-pl` body of a canonical text: the counts joined by '.', a run of
 * n ≥ 2 equal counts written "x*n" (Llama 3 405B: "0.1*126.0"). Returns the
 * length (the text may be cut at size − 1). */
int pipeline_layout_write(const pe_pipeline_layout *lay, char *buf, size_t size);

/* Reads what pipeline_layout_write writes from s (stops at the first byte
 * that cannot continue it, *end): 1, or 0 with why. Refused: a leading
 * zero, "*0", "*1", a run split in two ("1.1", "1*2.1"), more than
 * PE_LAYOUT_MAX stages. */
int pipeline_layout_read(const char *s, const char **end, pe_pipeline_layout *out, char *why,
                         size_t n);

#endif
