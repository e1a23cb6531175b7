/* prepare.h — the scenario-level half of the evaluation, one function per
 * spec section, each defined in its section's .c and called once by
 * evaluate_prepare() in this order (a later one may read what an earlier
 * one filled, never the other way round):
 *   params_prepare    §0 dimensions, P1–P6, P8–P14 of an MoE model (params.c)
 *   memory_prepare    M6 budget, β, A1–A3, A9–A13, M7's β_8, M8 (memory.c)
 *   memory_lora_prepare  M15–M17, A27 with training.finetune: lora (memory_lora.c)
 *   compute_prepare   F1–F4, F13–F16, §12 F7–F11, F17–F19, F21 (compute.c)
 *   comm_prepare      C2, C3 (C8), X2's head sizes, X6–X8, X12–X14 (comm.c)
 *   pipeline_prepare  B5 (pipeline.c)
 *   step_prepare      S6's δ−, δ+ (step.c)
 *   run_prepare       §15 R1–R8's scenario-level numbers (run.c) */
#ifndef PLANEVAL_MODEL_PREPARE_H
#define PLANEVAL_MODEL_PREPARE_H

#include "model/evaluate.h"

void params_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void memory_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void memory_lora_prepare(const pe_scenario *sc, pe_eval_ctx *ctx); /* M15–M17, A27 (lora) */
void compute_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void comm_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void pipeline_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void step_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);
void run_prepare(const pe_scenario *sc, pe_eval_ctx *ctx);

#endif
