/* test_catalog_presets.c — the catalog's datasheet and config presets
 * (docs/catalog.md) loaded through a scenario as a user names them, each
 * against hand arithmetic: model parameter counts (P5, P13/P14 from the
 * dimensions) exactly and within 1% of the published count; GPU and node
 * figures as their datasheets give them. Runs from the source directory. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog_fixture.h"
#include "input/load.h"
#include "model/params.h"

static pe_scenario load_text(const char *text)
{
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("t.yaml", text, strlen(text), catalog, &s, &err) != PE_OK) {
        char buf[2048];
        pe_error_format(&err, buf, sizeof buf);
        fail_msg("load failed: %s", buf);
    }
    return s;
}

static pe_scenario load_model(const char *model)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\nmodel: { preset: %s }\n"
             "cluster: { preset: h100-node, nodes: 1 }\n"
             "training: { global_batch: 8 }\n"
             "plans:\n  - { dp: 8 }\n",
             model);
    return load_text(text);
}

static pe_scenario load_cluster(const char *cluster)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\nmodel: { preset: llama3-8b }\n"
             "cluster: { preset: %s, nodes: 1 }\n"
             "training: { global_batch: 8 }\n"
             "plans:\n  - { dp: 8 }\n",
             cluster);
    return load_text(text);
}

typedef struct {
    const char *name;
    double total;     /* the hand count below, exact */
    double active;    /* with the input embedding (MoE), = total for dense */
    double published; /* the model card's or paper's total */
} model_count;

/* Dense (P2/P5, SwiGLU, RMSNorm, no biases): layer = h·a·d + 2·h·g·d + a·d·h
 * + 3·h·f + 2·h; total = L·layer + V·h·(tied ? 1 : 2) + h.
 * llama3.1-8b: 4096·4096·2 + 2·4096·1024 + 3·4096·14336 + 8192 = 33,554,432
 *   + 8,388,608 + 176,160,768 + 8,192 = 218,112,000; ×32 = 6,979,584,000 +
 *   2·128256·4096 = 1,050,673,152 + 4,096 → 8,030,261,248 ("8.03B").
 * llama3.1-70b: layer 855,654,400 ×80 = 68,452,352,000 + 2,101,346,304 +
 *   8,192 → 70,553,706,496 ("70.6B").
 * llama3.1-405b: layer 2·16384² + 2·16384·1024 + 3·16384·53248 + 32768 =
 *   536,870,912 + 33,554,432 + 2,617,245,696 + 32,768 = 3,187,703,808; ×126
 *   = 401,650,679,808 + 2·128256·16384 = 4,202,692,608 + 16,384 →
 *   405,853,388,800 ("405B").
 * llama3.2-1b (head dim 64, tied): 2·2048·2048 + 2·2048·512 + 3·2048·8192 +
 *   4096 = 8,388,608 + 2,097,152 + 50,331,648 + 4,096 = 60,821,504; ×16 =
 *   973,144,064 + 128256·2048 = 262,668,288 + 2,048 → 1,235,814,400 ("1.23B").
 * llama3.2-3b (tied): 2·3072² + 2·3072·1024 + 3·3072·8192 + 6144 =
 *   18,874,368 + 6,291,456 + 75,497,472 + 6,144 = 100,669,440; ×28 =
 *   2,818,744,320 + 128256·3072 = 394,002,432 + 3,072 → 3,212,749,824 ("3.21B").
 * llama2-13b: 4·5120² + 3·5120·13824 + 10240 = 104,857,600 + 212,336,640 +
 *   10,240 = 317,204,480; ×40 = 12,688,179,200 + 2·32000·5120 = 327,680,000
 *   + 5,120 → 13,015,864,320 ("13B").
 * mistral-7b: layer 218,112,000 (as llama3.1-8b) ×32 = 6,979,584,000 +
 *   2·32000·4096 = 262,144,000 + 4,096 → 7,241,732,096 ("7.24B").
 * qwen2.5-7b (d 128, g 4): 2·3584² + 2·3584·512 + 3·3584·18944 + 7168 =
 *   25,690,112 + 3,670,016 + 203,685,888 + 7,168 = 233,053,184; ×28 =
 *   6,525,489,152 + 2·152064·3584 = 1,089,994,752 + 3,584 → 7,615,487,488
 *   ("7.61B"; + 129,024 QKV biases not modelled).
 * qwen2.5-14b: 2·5120² + 2·5120·1024 + 3·5120·13824 + 10240 = 52,428,800 +
 *   10,485,760 + 212,336,640 + 10,240 = 275,261,440; ×48 = 13,212,549,120 +
 *   2·152064·5120 = 1,557,135,360 + 5,120 → 14,769,689,600 ("14.7B").
 * qwen2.5-32b: + 3·5120·27648 = 424,673,280 → layer 487,598,080; ×64 =
 *   31,206,277,120 + 1,557,135,360 + 5,120 → 32,763,417,600 ("32.5B": 0.8%).
 * qwen2.5-72b: 2·8192² + 2·8192·1024 + 3·8192·29568 + 16384 = 134,217,728 +
 *   16,777,216 + 726,663,168 + 16,384 = 877,674,496; ×80 = 70,213,959,680 +
 *   2·152064·8192 = 2,491,416,576 + 8,192 → 72,705,384,448 ("72.7B").
 * qwen3-8b (head_dim 128): 2·4096·4096 + 2·4096·1024 + 3·4096·12288 + 8192
 *   = 33,554,432 + 8,388,608 + 150,994,944 + 8,192 = 192,946,176; ×36 =
 *   6,946,062,336 + 2·151936·4096 = 1,244,659,712 + 4,096 → 8,190,726,144
 *   ("8.2B").
 * qwen3-14b: 2·5120² + 2·5120·1024 + 3·5120·17408 + 10240 = 52,428,800 +
 *   10,485,760 + 267,386,880 + 10,240 = 330,311,680; ×40 = 13,212,467,200 +
 *   2·151936·5120 = 1,555,824,640 + 5,120 → 14,768,296,960 ("14.8B").
 * qwen3-32b (a·d = 8192): 2·5120·8192 + 2·5120·1024 + 3·5120·25600 + 10240 =
 *   83,886,080 + 10,485,760 + 393,216,000 + 10,240 = 487,598,080; ×64 =
 *   31,206,277,120 + 1,555,824,640 + 5,120 → 32,762,106,880 ("32.8B").
 * olmo-2-7b (no grouping, q/k norms not modelled): 4·4096² + 3·4096·11008 +
 *   8192 = 67,108,864 + 135,266,304 + 8,192 = 202,383,360; ×32 =
 *   6,476,267,520 + 2·100352·4096 = 822,083,584 + 4,096 → 7,298,355,200
 *   ("7.3B").
 * olmo-2-13b: 4·5120² + 3·5120·13824 + 10240 = 317,204,480; ×40 =
 *   12,688,179,200 + 2·100352·5120 = 1,027,604,480 + 5,120 →
 *   13,715,788,800 ("13.7B").
 * phi-3-mini: 4·3072² + 3·3072·8192 + 6144 = 37,748,736 + 75,497,472 +
 *   6,144 = 113,252,352; ×32 = 3,624,075,264 + 2·32064·3072 = 197,001,216
 *   + 3,072 → 3,821,079,552 ("3.8B").
 *
 * MoE (P10-P14, docs/design/moe.md §8):
 * deepseek-v2-lite (MLA, no q compression): q 2048·16·192 = 6,291,456; kv_a
 *   2048·576 = 1,179,648; kv_b 512·16·256 = 2,097,152; o 16·128·2048 =
 *   4,194,304; kv norm 512 → 13,763,072. Dense layer + 3·2048·10944 =
 *   67,239,936 + 4,096 → 81,007,104. Expert 3·2048·1408 = 8,650,752; MoE
 *   layer: 64 experts 553,648,128 + 2 shared 17,301,504 + router 131,072 +
 *   norms 4,096 + attention → 584,847,872. Total 81,007,104 + 26·584,847,872
 *   = 15,206,044,672 + 2·102400·2048 = 419,430,400 + 2,048 → 15,706,484,224
 *   ("15.7B"). Active: 26·(13,763,072 + 17,301,504 + 131,072 + 4,096 +
 *   6·8,650,752) = 26·83,104,256 = 2,160,710,656 + 81,007,104 + 419,432,448
 *   → 2,661,150,208 ("2.4B" without the 209,715,200 input embedding).
 * gpt-oss-20b (biases, as gpt-oss-120b in test_moe.c): attention 26,542,080
 *   + 8,000 biases; expert 24,891,840 ×32 = 796,538,880; router 92,160 + 32;
 *   norms 5,760 → layer 823,186,912, ×24 = 19,756,485,888 + 2·201088·2880 =
 *   1,158,266,880 + 2,880 → 20,914,755,648 ("20.91B"). Active: 26,550,080 +
 *   4·24,891,840 + 92,192 + 5,760 = 126,215,392, ×24 = 3,029,169,408 +
 *   1,158,269,760 → 4,187,439,168 (3,608,305,728 = "3.61B" without the
 *   579,133,440 input embedding).
 * llama4-scout: attention 2·5120·5120 + 2·5120·1024 = 62,914,560; expert
 *   3·5120·8192 = 125,829,120, ×16 = 2,013,265,920; shared 125,829,120;
 *   router 81,920; norms 10,240 → layer 2,202,101,760, ×48 =
 *   105,700,884,480 + 2·202048·5120 = 2,068,971,520 + 5,120 →
 *   107,769,861,120 (the published 109B holds the vision encoder: 1.1%).
 *   Active: 62,914,560 + 2·125,829,120 + 81,920 + 10,240 = 314,664,960, ×48
 *   = 15,103,918,080 + 2,068,976,640 → 17,172,894,720 ("17B").
 * llama4-maverick: 24 MoE layers 62,914,560 + 128·125,829,120 =
 *   16,106,127,360 + 125,829,120 + router 655,360 + 10,240 = 16,295,536,640;
 *   24 dense layers 62,914,560 + 3·5120·16384 = 251,658,240 + 10,240 =
 *   314,583,040 → 24·16,610,119,680 = 398,642,872,320 + 2,068,976,640 →
 *   400,711,848,960 ("400B"). Active: 24·(62,914,560 + 2·125,829,120 +
 *   655,360 + 10,240 = 315,238,400) = 7,565,721,600 + 7,549,992,960 +
 *   2,068,976,640 → 17,184,691,200 ("17B"). */
static const model_count MODELS[] = {
    /* mpt-7b: 4096·(4096 + 2·4096) + 4096² + 2·4096·16384 = 201,326,592
     *   + 2·(2·4096) norms = 201,342,976; ×32 = 6,442,975,232 + 50432·4096
     *   = 206,569,472 (tied) + 8,192 → 6,649,552,896 ("6.7B").
     * mpt-30b: 12·7168² = 616,562,688 + 4·7168 = 616,591,360; ×48 =
     *   29,596,385,280 + 50432·7168 = 361,496,576 + 14,336 →
     *   29,957,896,192 ("29.95B": 0.03%). */
    /* nemotron-4-15b (d 128, g 8): 6144·(6144 + 2048) + 6144² + 2·6144·24576
     *   = 50,331,648 + 37,748,736 + 301,989,888 = 390,070,272 + 24,576 norms
     *   = 390,094,848; ×32 = 12,483,035,136 + 2·256000·6144 = 3,145,728,000
     *   + 12,288 → 15,628,775,424 (published 12.5B + 3.2B = 15.7B: 0.45%). */
    {"nemotron-4-15b", 15628775424.0, 15628775424.0, 15.7e9},
    {"mpt-7b", 6649552896.0, 6649552896.0, 6.7e9},
    {"mpt-30b", 29957896192.0, 29957896192.0, 29.95e9},
    {"llama3.1-8b", 8030261248.0, 8030261248.0, 8.03e9},
    {"llama3.1-70b", 70553706496.0, 70553706496.0, 70.6e9},
    {"llama3.1-405b", 405853388800.0, 405853388800.0, 405e9},
    {"llama3.2-1b", 1235814400.0, 1235814400.0, 1.23e9},
    {"llama3.2-3b", 3212749824.0, 3212749824.0, 3.21e9},
    {"llama2-13b", 13015864320.0, 13015864320.0, 13.0e9},
    {"mistral-7b", 7241732096.0, 7241732096.0, 7.24e9},
    {"qwen2.5-7b", 7615487488.0, 7615487488.0, 7.61e9},
    {"qwen2.5-14b", 14769689600.0, 14769689600.0, 14.7e9},
    {"qwen2.5-32b", 32763417600.0, 32763417600.0, 32.5e9},
    {"qwen2.5-72b", 72705384448.0, 72705384448.0, 72.7e9},
    {"qwen3-8b", 8190726144.0, 8190726144.0, 8.2e9},
    {"qwen3-14b", 14768296960.0, 14768296960.0, 14.8e9},
    {"qwen3-32b", 32762106880.0, 32762106880.0, 32.8e9},
    {"olmo-2-7b", 7298355200.0, 7298355200.0, 7.3e9},
    {"olmo-2-13b", 13715788800.0, 13715788800.0, 13.7e9},
    {"phi-3-mini", 3821079552.0, 3821079552.0, 3.8e9},
    {"deepseek-v2-lite", 15706484224.0, 2661150208.0, 15.7e9},
    {"gpt-oss-20b", 20914755648.0, 4187439168.0, 20.91e9},
    {"llama4-scout", 107769861120.0, 17172894720.0, 109e9},
    {"llama4-maverick", 400711848960.0, 17184691200.0, 400e9},
};

static void test_model_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof MODELS / sizeof MODELS[0]; i++) {
        const model_count *w = &MODELS[i];
        pe_scenario s = load_model(w->name);
        pe_moe_params mp;
        params_moe(&s.model, &mp);
        if (mp.total != w->total || mp.active != w->active)
            fail_msg("%s: total %.0f active %.0f, hand %.0f %.0f", w->name, mp.total,
                     mp.active, w->total, w->active);
        /* within 1% of the published count, except Llama 4's, whose
         * published totals hold the vision encoder (Scout 1.1%) */
        const double tol = strncmp(w->name, "llama4", 6) == 0 ? 0.02 : 0.01;
        if (fabs(mp.total / w->published - 1) > tol)
            fail_msg("%s: %.0f against the published %.0f", w->name, mp.total, w->published);
        scenario_free(&s);
    }
}

/* Tied embeddings where the config says tie_word_embeddings (Llama 3.2). */
static void test_tied(void **state)
{
    (void)state;
    pe_scenario s = load_model("llama3.2-1b");
    assert_true(s.model.tied_embeddings);
    scenario_free(&s);
    s = load_model("llama3.1-8b");
    assert_false(s.model.tied_embeddings);
    scenario_free(&s);
}

typedef struct {
    const char *cluster;
    double hbm_gib, peak, fp8, hbm_tb_s, tdp, intra_gb_s, nic_gb_s;
    int64_t gpus;
} node_figures;

/* Datasheet arithmetic (docs/model.md §0: sparse figures halved, NVLink
 * totals halved, NICs over 8):
 * b300-node: HGX B300 36 PF BF16 / 72 PF FP8 sparse / 8 → 2,250 / 4,500
 *   dense; 2.3 TB / 8 → 288 GB; NVLink5 1.8 TB/s / 2 → 900; ConnectX-8
 *   800 Gb/s / 8 → 100.
 * gb300-nvl72: 360 PF FP8 dense / 72 → 5,000; BF16 half → 2,500; 130 TB/s
 *   / 72 / 2 → 900; 800 Gb/s → 100.
 * dgx1-v100: 6 links × 25 GB/s, C2 min(8 − 1, 6)·25 = 150; 4 × 100 Gb/s /
 *   8 / 8 = 6.25 a GPU; no FP8 (0 here).
 * dgx2-v100: NVSwitch 6 × 25 = 150; 8 × 100 Gb/s / 8 / 16 = 6.25. */
static const node_figures NODES[] = {
    {"b300-node", 288, 2250, 4500, 8, 1100, 900, 100, 8},
    {"gb300-nvl72", 279, 2500, 5000, 8, 1400, 900, 100, 72},
    {"dgx1-v100", 32, 125, 0, 0.9, 300, 150, 6.25, 8},
    {"dgx2-v100", 32, 125, 0, 0.9, 300, 150, 6.25, 16},
};

static void test_nodes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof NODES / sizeof NODES[0]; i++) {
        const node_figures *w = &NODES[i];
        pe_scenario s = load_cluster(w->cluster);
        const pe_gpu *g = &s.cluster.gpu;
        const pe_intra_node *in = &s.cluster.intra_node;
        const double intra = in->topology == PE_TOPOLOGY_SWITCH
                                 ? in->bandwidth_gb_s
                                 : (double)(in->links < w->gpus - 1 ? in->links : w->gpus - 1) *
                                       in->link_gb_s;
        if (g->hbm_gib != w->hbm_gib || g->peak_tflops != w->peak ||
            g->hbm_tb_s != w->hbm_tb_s || g->tdp_w != w->tdp || intra != w->intra_gb_s ||
            s.cluster.inter_node.nic_gb_s != w->nic_gb_s ||
            s.cluster.gpus_per_node != w->gpus ||
            (w->fp8 > 0) != g->has_peak_fp8_tflops ||
            (w->fp8 > 0 && g->peak_fp8_tflops != w->fp8))
            fail_msg("%s: figures differ from the datasheet arithmetic", w->cluster);
        /* datasheet-only: no fitted number, so refined takes nothing new */
        assert_false(g->has_gemm_efficiency);
        scenario_free(&s);
    }
}

/* The datasheet GPUs: dense peaks are half the sparse headline, FP8 twice
 * BF16 where the chip has it; Ampere and Volta have no FP8 peak. */
static void test_gpu_peaks(void **state)
{
    (void)state;
    static const struct {
        const char *gpu;
        double peak, fp8; /* fp8 0: none */
    } G[] = {
        {"h100-pcie", 756, 1513},  /* 1,513 / 3,026 sparse */
        {"h100-nvl", 835.5, 1670.5}, /* 1,671 / 3,341 sparse */
        {"l40s", 362.05, 733},     /* datasheet dense figures */
        {"l4", 121, 242.5},        /* 242 / 485 sparse */
        {"rtx-6000-ada", 364.2, 728.5},
        {"rtx-4090", 165.2, 330.3}, /* FP32 accumulate */
        {"a6000", 154.8, 0},       /* 309.7 sparse */
        {"rtx-3090", 71, 0},
        {"v100-16gb", 125, 0},
    };
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "schema: planeval/v1\nmodel: { preset: llama3-8b }\n"
                 "cluster: { nodes: 1, gpus_per_node: 1, gpu: { preset: %s } }\n"
                 "training: { global_batch: 8 }\n"
                 "plans:\n  - { dp: 1 }\n",
                 G[i].gpu);
        pe_scenario s = load_text(text);
        const pe_gpu *g = &s.cluster.gpu;
        if (g->peak_tflops != G[i].peak || g->has_peak_fp8_tflops != (G[i].fp8 > 0) ||
            (G[i].fp8 > 0 && g->peak_fp8_tflops != G[i].fp8))
            fail_msg("%s: peaks differ from the datasheet arithmetic", G[i].gpu);
        assert_true(g->has_tdp_w);
        scenario_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_counts),
        cmocka_unit_test(test_tied),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_gpu_peaks),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
