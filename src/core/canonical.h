/* canonical.h — a plan's canonical text (docs/scenarios.md "Plans"): the one
 * writer and the one reader of it, used by the loader (expect:, questions:),
 * the sweep (plans_find) and the grader (plan answers).
 *
 *   dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-{schedule}-v{v}-sp{0|1}
 *
 * then only what differs from the default, in this order, so a dense plan's
 * text has no tail: -ep{ep} (ep > 1), -etp{etp} (etp ≠ tp), -fs{L_0} and
 * -ls{L_last} (when given), -pl{layout} (a pipeline_layout: its counts per
 * virtual stage joined by '.', a run written x*n, e.g. -pl0.1*126.0),
 * -off (offload_optimizer). */
#ifndef PLANEVAL_CANONICAL_H
#define PLANEVAL_CANONICAL_H

#include <stddef.h>

#include "core/error.h"
#include "core/scenario.h"

/* Longest canonical text: ten integers ≤ 2^53 (16 digits each) and the
 * words, about 220 bytes. */
#define PE_CANON_MAX 256

/* The plan's canonical text, at most size − 1 characters and a NUL; returns
 * the length written. */
int canonical_write(const pe_plan *p, char *buf, size_t size);

/* The plan (no name, the given overlap, ep and etp resolved) whose canonical
 * text is exactly `text`: PE_OK, or PE_BAD_INPUT with err->msg saying what
 * is wrong and at which byte (no file, line or column: the caller knows where
 * the text stands). Refused: anything canonical_write never prints — leading
 * zeros, a degree of 0, a ZeRO stage above 3, unknown words, a value above
 * 2^53, a tail out of order, -ep1, -etp equal to tp, and sp1 with tp1 (the
 * loader forces sequence parallelism off at tp = 1, docs/model.md §0). */
pe_status canonical_parse(const char *text, const pe_overlap *overlap, pe_plan *out,
                          pe_error *err);

#endif
