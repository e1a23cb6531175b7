/* lora_fixtures.h — scenarios for the LoRA unit tests, loaded from YAML
 * text through the built-in catalog (catalog_fixture.h), and the grid of
 * one-node plans their properties run over. */
#ifndef PLANEVAL_TEST_LORA_FIXTURES_H
#define PLANEVAL_TEST_LORA_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "catalog_fixture.h"
#include "input/load.h"

static inline pe_scenario load_text(const char *text)
{
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("lora.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

/* A scenario on one A100 node: model preset, fine-tune keys ("" for none),
 * framework line ("" for the textbook model). */
static inline pe_scenario load_node(const char *model, const char *finetune,
                                    const char *framework)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "%s"
             "model: { preset: %s, seq_len: 4096 }\n"
             "cluster: { preset: a100-node, nodes: 1 }\n"
             "training: { global_batch: 64%s%s }\n"
             "plans:\n  - { name: one, dp: 1 }\n",
             framework, model, finetune[0] ? ", " : "", finetune);
    return load_text(text);
}

typedef struct {
    int64_t tp, pp, zero, b;
    pe_recompute rc;
} grid_plan;

/* Each plan of the grid on one node (tp·pp·dp = 8) in turn. */
static inline size_t grid(grid_plan *out, size_t cap)
{
    static const int64_t tps[] = {1, 2, 8}, pps[] = {1, 2}, bs[] = {1, 4};
    static const pe_recompute rcs[] = {PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE,
                                       PE_RECOMPUTE_FULL};
    size_t n = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 2; b++)
            for (int64_t z = 0; z <= 3; z++)
                for (size_t c = 0; c < 2; c++)
                    for (size_t e = 0; e < 3 && n < cap; e++)
                        if (tps[a] * pps[b] <= 8)
                            out[n++] = (grid_plan){tps[a], pps[b], z, bs[c], rcs[e]};
    return n;
}

static inline pe_plan grid_to_plan(const pe_scenario *s, const grid_plan *g)
{
    pe_plan p = s->plans[0];
    p.tp = g->tp, p.pp = g->pp, p.dp = 8 / (g->tp * g->pp), p.zero = g->zero;
    p.micro_batch = g->b, p.recompute = g->rc, p.etp = g->tp;
    return p;
}

static const char *const MODELS[] = {"llama2-7b", "llama2-70b", "llama3-8b"};
static const char *const FRAMEWORKS[] = {"", "fidelity: refined\nframework: megatron-core\n"};

#endif
