/* test_memory_props_native.c — the properties of docs/model.md §12's
 * memory by phase on the PyTorch-native path as the catalog gives it: the
 * `torchtitan` and `torchtitan-2506` framework presets (FSDP2 = zero 3,
 * op-level selective checkpointing, the loss, M10–M13) on the llama3-8b and
 * llama3-70b presets, bf16 and FP8, over tp, pp (1F1B and interleaved), cp,
 * dp, micro-batch and recompute:
 *
 *   1. more GPUs under ZeRO-3/FSDP (dp doubled, the rest fixed) never raise
 *      the device total nor the peak;
 *   2. more recompute (none → selective → full) never raises any candidate
 *      stage's stored activations (A6, A15 for selective);
 *   3. a larger micro-batch (b doubled) never lowers the peak;
 *   4. the peak of every candidate stage is at least each phase's live set,
 *      the memory stage's peak is the report's, and reserved ≥ peak.
 *
 * and A16 (tp_gathered_inputs) against hand arithmetic: without it the
 * torchtitan presets broke property 2 (op-level selective above no
 * recompute under TP 8 with sp, since A4 split the gathered inputs by t),
 * and A20 (cp_ring_buffers) against hand arithmetic, with its property: a
 * larger cp never lowers it, and it is 0 at cp 1.
 *
 * The scenarios come from YAML through the loader and the built-in catalog,
 * so a preset or a loader change that breaks a property shows here, not only
 * the C fixtures of test_memory.c. The fine-tuning presets (fsdp, fsdp2,
 * torchtune, hf-trainer) get the same properties and three hand scenarios
 * (full fine-tune on 8 GPUs, LoRA on one, QLoRA on a 24 GB budget). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "catalog_fixture.h"
#include "input/load.h"
#include "model/memory.h"
#include "model/memory_native.h"

/* One scenario: model preset, framework preset, bf16 or fp8 linears
 * (torchao: no cached FP8 weight), on H100 nodes with a large global batch
 * so every dp below divides it. */
static pe_scenario load_native(const char *model, const char *framework, int fp8)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "fidelity: refined\n"
             "model: { preset: %s, seq_len: 8192 }\n"
             "precision: { grad_bytes: 4%s }\n"
             "cluster: { preset: h100-node, nodes: 1 }\n"
             "framework: %s\n"
             "training: { global_batch: 1024 }\n"
             "plans:\n  - { name: one, dp: 8, zero: 3 }\n",
             model, fp8 ? ", compute: fp8, fp8_weight_bytes: 0" : "", framework);
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("native.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

typedef struct {
    int64_t tp, pp, cp, v, b;
    pe_recompute rc;
} grid_point;

/* Evaluates one plan of the grid on dp data-parallel ranks (the cluster
 * sized to fit it); false when the plan breaks a rule (those are skipped). */
static bool eval_point(pe_scenario *s, const grid_point *g, int64_t dp, pe_result *r,
                       pe_detail *d)
{
    const int64_t gpus = dp * g->tp * g->pp * g->cp;
    if (gpus % 8 != 0)
        return false;
    s->cluster.nodes = gpus / 8;
    pe_plan p = fx_plan(dp, g->tp, g->pp, g->cp);
    p.zero = 3, p.micro_batch = g->b, p.recompute = g->rc, p.virtual_stages = g->v;
    p.schedule = g->v > 1 ? PE_SCHEDULE_INTERLEAVED : PE_SCHEDULE_1F1B;
    fx_eval_detail(s, &p, r, d);
    return r->status != PE_STATUS_INVALID;
}

/* Property 4 on one evaluated plan. */
static void check_phases(const pe_result *r, const pe_detail *d)
{
    for (int i = 0; i < d->stages; i++)
        for (int k = 1; k < PE_PHASE_COUNT; k++)
            if (!(d->peak[i] >= d->phase[i][k]))
                fail_msg("stage %d: peak %.17g below phase %d's %.17g", i, d->peak[i], k,
                         d->phase[i][k]);
    assert_rel(r->mem_peak_gib, d->peak[d->mem_stage] / GIB, 1e-12);
    assert_true(r->mem_reserved_gib >= r->mem_peak_gib);
    assert_true(r->mem_total_gib >= r->mem_reserved_gib);
}

/* Properties 1 and 3 at one grid point: dp doubled, then b doubled. Returns
 * the plans checked. */
static int check_dp_and_b(pe_scenario *s, const grid_point *g)
{
    int checked = 0;
    pe_result prev;
    bool have_prev = false;
    for (int64_t dp = 1; dp <= 64; dp *= 2) {
        pe_result r, r2;
        pe_detail d, d2;
        if (!eval_point(s, g, dp, &r, &d))
            continue;
        check_phases(&r, &d);
        if (have_prev) {
            if (!(r.mem_total_gib <= prev.mem_total_gib * (1 + 1e-12)))
                fail_msg("tp %lld pp %lld cp %lld v %lld b %lld rc %d: dp %lld total %.6f GiB > "
                         "dp %lld's %.6f", (long long)g->tp, (long long)g->pp, (long long)g->cp,
                         (long long)g->v, (long long)g->b, (int)g->rc, (long long)dp,
                         r.mem_total_gib, (long long)(dp / 2), prev.mem_total_gib);
            assert_true(r.mem_peak_gib <= prev.mem_peak_gib * (1 + 1e-12));
        }
        prev = r, have_prev = true;
        grid_point g2 = *g;
        g2.b = 2 * g->b;
        if (eval_point(s, &g2, dp, &r2, &d2)) {
            check_phases(&r2, &d2);
            if (!(r2.mem_peak_gib >= r.mem_peak_gib * (1 - 1e-12)))
                fail_msg("tp %lld pp %lld cp %lld dp %lld: b %lld peak %.6f GiB < b %lld's %.6f",
                         (long long)g->tp, (long long)g->pp, (long long)g->cp, (long long)dp,
                         (long long)g2.b, r2.mem_peak_gib, (long long)g->b, r.mem_peak_gib);
        }
        checked++;
    }
    return checked;
}

/* Property 2 at one grid point and dp: each candidate stage's A6 under
 * none ≥ selective ≥ full. Returns 1 when the plan is valid. */
static int check_recompute(pe_scenario *s, grid_point g, int64_t dp)
{
    pe_result r[3];
    pe_detail d[3];
    for (int rc = 0; rc < 3; rc++) {
        g.rc = (pe_recompute)rc;
        if (!eval_point(s, &g, dp, &r[rc], &d[rc]))
            return 0;
    }
    for (int rc = 1; rc < 3; rc++)
        for (int i = 0; i < d[rc].stages; i++)
            if (!(d[rc].a6[i] <= d[rc - 1].a6[i] * (1 + 1e-12)))
                fail_msg("tp %lld pp %lld cp %lld dp %lld b %lld stage %d: recompute %d keeps "
                         "%.17g bytes > recompute %d's %.17g", (long long)g.tp, (long long)g.pp,
                         (long long)g.cp, (long long)dp, (long long)g.b, i, rc, d[rc].a6[i],
                         rc - 1, d[rc - 1].a6[i]);
    return 1;
}

/* The grid over one scenario; returns the plans checked. */
static int check_scenario(pe_scenario *s)
{
    static const int64_t tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4}, cps[] = {1, 2};
    static const int64_t vs[] = {1, 2}, bs[] = {1, 2};
    int checked = 0;
    for (size_t a = 0; a < 4; a++)
        for (size_t c = 0; c < 3; c++)
            for (size_t e = 0; e < 2; e++)
                for (size_t f = 0; f < 2; f++)
                    for (size_t h = 0; h < 2; h++) {
                        grid_point g = {tps[a], pps[c], cps[e], vs[f], bs[h], PE_RECOMPUTE_NONE};
                        if (g.v > 1 && g.pp == 1)
                            continue;
                        for (int rc = 0; rc < 3; rc++) {
                            g.rc = (pe_recompute)rc;
                            checked += check_dp_and_b(s, &g);
                        }
                        for (int64_t dp = 1; dp <= 64; dp *= 2)
                            checked += check_recompute(s, g, dp);
                    }
    return checked;
}

/* A16 by hand, llama3-8b (h 4096) at s 8192, b 1, tp 8 with sp, bf16:
 *   G = 4h = 16,384 bytes a token (the QKV and MLP inputs, 2h each)
 *   A16 = 8192·1·16384·(1 − 1/8) = 117,440,512 bytes over A4
 * with FP8 inputs (A13) G = 2h: 58,720,256; without sp, or t = 1: 0.
 * Through the loader: the torchtitan preset's none-recompute layer is A4 +
 * A16, the same scenario with tp_gathered_inputs: false is A4 alone. */
static void test_a16_hand(void **state)
{
    (void)state;
    assert_rel(act_gathered_inputs(8192, 1, 8, 1, 16384), 117440512.0, 1e-15);
    assert_rel(act_gathered_inputs(8192, 1, 8, 1, 8192), 58720256.0, 1e-15);
    assert_true(act_gathered_inputs(8192, 1, 8, 0, 16384) == 0.0);
    assert_true(act_gathered_inputs(8192, 1, 1, 1, 16384) == 0.0);
    pe_scenario s = load_native("llama3-8b", "torchtitan", 0);
    assert_true(s.framework.tp_gathered_inputs);
    grid_point g = {8, 1, 1, 1, 1, PE_RECOMPUTE_NONE};
    pe_result r, r0;
    pe_detail d, d0;
    assert_true(eval_point(&s, &g, 8, &r, &d));
    s.framework.tp_gathered_inputs = false;
    assert_true(eval_point(&s, &g, 8, &r0, &d0));
    assert_rel(d.a_layer - d0.a_layer, 117440512.0, 1e-12);
    /* op-level checkpointing saves no all-gather output: A15 unchanged,
     * but the layer its backward recomputes is A4 + A16 */
    s.framework.tp_gathered_inputs = true;
    g.rc = PE_RECOMPUTE_SELECTIVE;
    assert_true(eval_point(&s, &g, 8, &r, &d));
    s.framework.tp_gathered_inputs = false;
    assert_true(eval_point(&s, &g, 8, &r0, &d0));
    assert_true(d.a_layer == d0.a_layer);
    assert_rel(d.a_recompute - d0.a_recompute, 117440512.0, 1e-12);
    scenario_free(&s);
}

/* A20 by hand. llama3-405b (a 128 heads, d 128: a·d 16,384) on tp 8:
 * W = 16384/8 = 2,048; s' 32,768, b 1, so s'·b·W = 67,108,864:
 *   allgather, c 8, backward (4·8 + 38 = 70): 4,697,620,480 bytes
 *   allgather, c 8, forward  (4·8 + 8 = 40):  2,684,354,560
 *   alltoall,  c 8, backward (4·2 + 38 = 46): 3,087,007,744
 *   c 1: 0 (no ring).
 * Through the loader, llama3-8b (a·d = 32·128 = 4,096), s 8192 on cp 2
 * (s' 4,096), tp 1, b 1: s'·b·W = 16,777,216, backward (4·2 + 38 = 46)
 * 771,751,936, forward (4·2 + 8 = 16) 268,435,456; the torchtitan preset's
 * backward live set is the one with cp_ring_buffers none plus exactly that. */
static void test_a20_hand(void **state)
{
    (void)state;
    assert_rel(act_cp_ring(32768, 1, 16384, 8, 8, 1, 1), 4697620480.0, 1e-15);
    assert_rel(act_cp_ring(32768, 1, 16384, 8, 8, 1, 0), 2684354560.0, 1e-15);
    assert_rel(act_cp_ring(32768, 1, 16384, 8, 8, 0, 1), 3087007744.0, 1e-15);
    assert_true(act_cp_ring(32768, 1, 16384, 8, 1, 1, 1) == 0.0);
    assert_true(act_cp_ring(32768, 1, 0, 8, 8, 1, 1) == 0.0);
    pe_scenario s = load_native("llama3-8b", "torchtitan", 0);
    assert_int_equal(s.framework.cp_ring_buffers, PE_CP_RING_ALLGATHER);
    grid_point g = {1, 1, 2, 1, 1, PE_RECOMPUTE_FULL};
    pe_result r, r0;
    pe_detail d, d0;
    assert_true(eval_point(&s, &g, 4, &r, &d));
    assert_rel(d.a20_bwd, 771751936.0, 1e-15);
    assert_rel(d.a20_fwd, 268435456.0, 1e-15);
    s.framework.cp_ring_buffers = PE_CP_RING_NONE;
    assert_true(eval_point(&s, &g, 4, &r0, &d0));
    assert_rel(d.phase[0][2] - d0.phase[0][2], 771751936.0, 1e-9);
    assert_rel(d.phase[0][1] - d0.phase[0][1], 268435456.0, 1e-9);
    assert_true(d.phase[0][3] == d0.phase[0][3]); /* the loss holds no attention buffer */
    scenario_free(&s);
}

/* A20's property: 0 at cp 1, and a larger cp never lowers it (the
 * all-gather buffer grows with c, all-to-all's stays two shards); through
 * the loader, the peak with the buffers is never below the peak without. */
static void test_a20_cp_monotone(void **state)
{
    (void)state;
    for (int ag = 0; ag < 2; ag++)
        for (int bwd = 0; bwd < 2; bwd++) {
            double prev = act_cp_ring(8192, 2, 4096, 1, 1, ag, bwd);
            assert_true(prev == 0.0);
            for (double c = 2; c <= 64; c *= 2) {
                const double now = act_cp_ring(8192, 2, 4096, 1, c, ag, bwd);
                assert_true(now > 0.0 && now >= prev);
                prev = now;
            }
        }
    pe_scenario s = load_native("llama3-70b", "torchtitan", 1);
    for (int64_t cp = 1; cp <= 8; cp *= 2) {
        grid_point g = {8, 1, cp, 1, 1, PE_RECOMPUTE_FULL};
        pe_result r, r0;
        pe_detail d, d0;
        s.framework.cp_ring_buffers = PE_CP_RING_ALLGATHER;
        assert_true(eval_point(&s, &g, 2, &r, &d));
        s.framework.cp_ring_buffers = PE_CP_RING_NONE;
        assert_true(eval_point(&s, &g, 2, &r0, &d0));
        assert_true(r.mem_peak_gib >= r0.mem_peak_gib);
        assert_true(cp > 1 ? d.a20_bwd > 0.0 : d.a20_bwd == 0.0);
    }
    scenario_free(&s);
}

static void test_native_properties(void **state)
{
    (void)state;
    static const char *const models[] = {"llama3-8b", "llama3-70b"};
    static const char *const frameworks[] = {"torchtitan", "torchtitan-2506"};
    int checked = 0;
    for (int m = 0; m < 2; m++)
        for (int f = 0; f < 2; f++)
            for (int fp8 = 0; fp8 < 2; fp8++) {
                pe_scenario s = load_native(models[m], frameworks[f], fp8);
                assert_true(s.framework.memory_by_phase);
                assert_int_equal(s.framework.selective_recompute, PE_SELECTIVE_OP);
                checked += check_scenario(&s);
                scenario_free(&s);
            }
    /* the grid is not vacuous: most of its plans are valid */
    print_message("native memory properties: %d plans checked\n", checked);
    assert_true(checked > 2000);
}

/* The PyTorch-native fine-tuning presets (fsdp, fsdp2, torchtune,
 * hf-trainer; scenarios/catalog/frameworks.yaml gives each number's code
 * reading) on the three hand scenarios, through the loader. */
static pe_scenario load_stack(const char *model, const char *framework, const char *precision,
                              int gpus, const char *training, const char *budget)
{
    char text[1024];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "fidelity: refined\n"
             "model: { preset: %s, seq_len: 2048 }\n"
             "precision: %s\n"
             "cluster: { preset: a100-node, nodes: 1, gpus_per_node: %d }\n"
             "%s"
             "framework: %s\n"
             "training: %s\n"
             "plans:\n  - { name: one, dp: %d, zero: %d, micro_batch: 2, recompute: full }\n",
             model, precision, gpus, budget, framework, training, gpus, gpus > 1 ? 3 : 0);
    pe_scenario s;
    pe_error err = {0};
    if (load_scenario_buffer("stack.yaml", text, strlen(text), catalog, &s, &err) != PE_OK)
        fail_msg("load failed: %s", err.msg);
    return s;
}

static void eval_first(pe_scenario *s, pe_result *r, pe_detail *d)
{
    fx_eval_detail(s, &s->plans[0], r, d);
    assert_int_equal(r->status, PE_STATUS_OK);
    check_phases(r, d);
}

/* The loss phase M9 sums on the one stage (pp 1: no U_w, U_g; W_lib 0). */
static double loss_phase(const pe_detail *d)
{
    return d->m1[0] + d->m2[0] + d->m3[0] + d->a6[0] + d->a7[0] + d->a8_in + d->a14;
}

/* Llama 3 8B full fine-tune on 8 A100-80GB, FSDP zero 3, s 2048, b 2,
 * recompute full; N = 8,030,261,248 parameters (llama3-8b preset), V 128,256,
 * h 4096. s·b·V = 2048·2·128256 = 525,336,576; A8_in = 4·2048·2·4096 =
 * 67,108,864.
 *   fsdp (fp32 FlatParameter, grad_bytes 4, M10): state 16·N/8 =
 *     16,060,522,496 bytes; loss 12·525,336,576 = 6,304,038,912; the
 *     optimizer phase adds AdamW foreach's 4·N/8 = 4,015,130,624.
 *   torchtune (bf16 throughout, optimizer_bytes 4): state (2 + 2 + 4)·N/8 =
 *     8,030,261,248; loss 6.5·525,336,576 = 3,414,687,744; fused AdamW: the
 *     optimizer phase is the state alone.
 *   fsdp2 (a bf16 model, the same precision as torchtune): state
 *     8,030,261,248; loss 12·525,336,576; foreach's bf16 sqrt 2·N/8 =
 *     2,007,565,312.
 *   hf-trainer on the same plan (its loss and optimizer as fsdp, but no M10:
 *     the bf16 weights are M1, 2·N/8 = 2,007,565,312 more).
 * Each peak is the loss phase, well below 80 GiB (fsdp ~22.4 GiB, torchtune
 * ~12.3 GiB): S + A6 + A7 + A8_in + A14, A6 + A7 the stored layer inputs. */
static void test_stack_full_finetune_hand(void **state)
{
    (void)state;
    const char *const fws[] = {"fsdp", "torchtune", "fsdp2", "hf-trainer"};
    const char *const prec[] = {"{ grad_bytes: 4 }", "{ grad_bytes: 2, optimizer_bytes: 4 }",
                                "{ grad_bytes: 2, optimizer_bytes: 4 }", "{ grad_bytes: 4 }"};
    const double state_bytes[] = {16060522496.0, 8030261248.0, 8030261248.0,
                                  16060522496.0 + 2007565312.0};
    const double loss_bytes[] = {6304038912.0, 3414687744.0, 6304038912.0, 6304038912.0};
    const double temp_bytes[] = {4015130624.0, 0.0, 2007565312.0, 4015130624.0};
    for (int f = 0; f < 4; f++) {
        pe_scenario s = load_stack("llama3-8b", fws[f], prec[f], 8, "{ global_batch: 16 }", "");
        pe_result r;
        pe_detail d;
        assert_true(s.framework.memory_by_phase);
        eval_first(&s, &r, &d);
        assert_rel(d.n_gpu[0], 8030261248.0, 1e-15);
        assert_rel(d.m1[0] + d.m2[0] + d.m3[0], state_bytes[f], 1e-12);
        assert_rel(d.a8_in, 67108864.0, 1e-15);
        assert_rel(d.a14, loss_bytes[f], 1e-15);
        assert_rel(d.phase[0][PE_PHASE_OPTIMIZER], state_bytes[f] + temp_bytes[f], 1e-12);
        assert_int_equal(d.peak_phase[0], PE_PHASE_LOSS);
        assert_rel(d.peak[0], loss_phase(&d), 1e-12);
        assert_true(r.mem_total_gib < 30.0 && r.mem_total_gib == r.mem_peak_gib);
        scenario_free(&s);
    }
}

/* Llama 3 8B LoRA (r 8, all-linear) on one A100-80GB, zero 0, bf16 with
 * bf16 adapters and AdamW states (torchtune's dtype bf16), b 2, s 2048, full
 * recompute. The frozen base is 2·N = 16,060,522,496 bytes (M15, β_q = β_w);
 * the adapters N_ad = 32·8·Σ(in + out) over q (4096 + 4096), k and v
 * (4096 + 1024 each), o (4096 + 4096), gate, up and down (4096 + 14336
 * each) = 32·8·(8192 + 5120 + 5120 + 8192 + 3·18432) = 32·8·81,920 =
 * 20,971,520: weights 2·N_ad, gradients 2·N_ad = 41,943,040, AdamW 4·N_ad =
 * 83,886,080. The loss: torchtune 6.5·525,336,576 = 3,414,687,744, the HF
 * model's 12·525,336,576 = 6,304,038,912: the peaks (both at the loss)
 * differ by exactly 2,889,351,168 bytes, and the optimizer phases by HF's
 * foreach temporaries on the adapters, 4·N_ad = 83,886,080 (torchtune's
 * fused AdamW has none). */
static void test_stack_lora_hand(void **state)
{
    (void)state;
    const char *lora = "{ global_batch: 16, finetune: lora, lora_rank: 8, lora_targets: all-linear }";
    const char *prec = "{ grad_bytes: 2, optimizer_bytes: 4 }";
    pe_scenario tt = load_stack("llama3-8b", "torchtune", prec, 1, lora, "");
    pe_scenario hf = load_stack("llama3-8b", "hf-trainer", prec, 1, lora, "");
    pe_result rt, rh;
    pe_detail dt, dh;
    eval_first(&tt, &rt, &dt);
    eval_first(&hf, &rh, &dh);
    assert_rel(dt.n_train[0], 20971520.0, 1e-15);
    assert_rel(dt.m15[0], 16060522496.0, 1e-15);
    assert_rel(dt.m2[0], 41943040.0, 1e-15);
    assert_rel(dt.m3[0], 83886080.0, 1e-15);
    assert_rel(dt.a14, 3414687744.0, 1e-15);
    assert_rel(dh.a14, 6304038912.0, 1e-15);
    assert_int_equal(dt.peak_phase[0], PE_PHASE_LOSS);
    assert_int_equal(dh.peak_phase[0], PE_PHASE_LOSS);
    assert_rel(dh.peak[0] - dt.peak[0], 2889351168.0, 1e-9);
    assert_rel(dh.phase[0][PE_PHASE_OPTIMIZER] - dt.phase[0][PE_PHASE_OPTIMIZER], 83886080.0,
               1e-9);
    assert_true(rt.mem_total_gib < 24.0 && rh.mem_total_gib < 24.0);
    scenario_free(&tt);
    scenario_free(&hf);
}

/* Llama 2 7B QLoRA (nf4, r 8, all-linear) on a 24 GB GPU (budgets
 * memory_gib 24 on an A100), torchtune's recipe: b 2, s 2048, full
 * recompute. M15 = (2113/4096)·32·202,375,168 + 2·(6,738,415,616 −
 * 32·202,375,168) = 3,340,771,328 + 524,820,480 = 3,865,591,808 bytes (the
 * tests/lora file's figure); N_ad = 32·8·78,080 = 19,988,480;
 * the loss 6.5·2048·2·32000 = 851,968,000 bytes (V 32,000). It fits: the
 * peak is the loss phase, ~6.1 GiB, under 24. */
static void test_stack_qlora_hand(void **state)
{
    (void)state;
    pe_scenario s = load_stack("llama2-7b", "torchtune", "{ grad_bytes: 2, optimizer_bytes: 4 }", 1,
                               "{ global_batch: 16, finetune: lora, lora_rank: 8, "
                               "lora_targets: all-linear, base_quant: nf4 }",
                               "budgets: { memory_gib: 24 }\n");
    pe_result r;
    pe_detail d;
    eval_first(&s, &r, &d);
    assert_rel(d.m15[0], 3865591808.0, 1e-12);
    assert_rel(d.n_train[0], 19988480.0, 1e-15);
    assert_rel(d.a14, 851968000.0, 1e-15);
    assert_int_equal(d.peak_phase[0], PE_PHASE_LOSS);
    assert_true(r.mem_total_gib < 24.0 && r.mem_headroom_gib > 0.0);
    scenario_free(&s);
}

/* M19 by hand: DDP's bucket copy, β_g·N_t at zero 0 on D > 1 ranks, else 0.
 *   mem_ddp_buckets(on, z 0, D 8, β_g 4, N_t 1e9) = 4e9 bytes; off, z 1, z 3
 *   or D 1: 0.
 * Through the loader, hf-trainer (ddp_grad_buckets true), Llama 3 8B, fp32
 * gradients, 8 GPUs, zero 0: 4·8,030,261,248 = 32,121,044,992 bytes in each
 * of the four phases over the same plan with the key false; LoRA r 8
 * all-linear with bf16 adapter gradients: 2·20,971,520 = 41,943,040. */
static void test_m19_ddp_buckets_hand(void **state)
{
    (void)state;
    assert_rel(mem_ddp_buckets(1, 0, 8.0, 4.0, 1e9), 4e9, 1e-15);
    assert_true(mem_ddp_buckets(0, 0, 8.0, 4.0, 1e9) == 0.0);
    assert_true(mem_ddp_buckets(1, 1, 8.0, 4.0, 1e9) == 0.0);
    assert_true(mem_ddp_buckets(1, 3, 8.0, 4.0, 1e9) == 0.0);
    assert_true(mem_ddp_buckets(1, 0, 1.0, 4.0, 1e9) == 0.0);
    const char *const training[] = {
        "{ global_batch: 16 }",
        "{ global_batch: 16, finetune: lora, lora_rank: 8, lora_targets: all-linear }"};
    const char *const prec[] = {"{ grad_bytes: 4 }", "{ grad_bytes: 2, optimizer_bytes: 4 }"};
    const double m19[] = {32121044992.0, 41943040.0};
    for (int k = 0; k < 2; k++) {
        pe_scenario s = load_stack("llama3-8b", "hf-trainer", prec[k], 8, training[k], "");
        assert_true(s.framework.ddp_grad_buckets);
        s.plans[0].zero = 0;
        pe_result r, r0;
        pe_detail d, d0;
        fx_eval_detail(&s, &s.plans[0], &r, &d);
        s.framework.ddp_grad_buckets = false;
        fx_eval_detail(&s, &s.plans[0], &r0, &d0);
        check_phases(&r, &d);
        assert_rel(d.m19[0], m19[k], 1e-15);
        assert_true(d0.m19[0] == 0.0);
        for (int ph = PE_PHASE_FORWARD; ph <= PE_PHASE_OPTIMIZER; ph++)
            assert_rel(d.phase[0][ph] - d0.phase[0][ph], m19[k], 1e-9);
        scenario_free(&s);
    }
    /* zero 3 (FSDP) and one GPU hold none */
    pe_scenario z3 = load_stack("llama3-8b", "hf-trainer", "{ grad_bytes: 4 }", 8,
                                "{ global_batch: 16 }", "");
    pe_scenario one = load_stack("llama3-8b", "hf-trainer", "{ grad_bytes: 4 }", 1,
                                 "{ global_batch: 16 }", "");
    pe_result r;
    pe_detail d;
    fx_eval_detail(&z3, &z3.plans[0], &r, &d);
    assert_true(d.m19[0] == 0.0);
    fx_eval_detail(&one, &one.plans[0], &r, &d);
    assert_true(d.m19[0] == 0.0);
    scenario_free(&z3);
    scenario_free(&one);
}

/* Properties 1–4 of the file's head on the fine-tuning presets. */
static void test_stack_properties(void **state)
{
    (void)state;
    static const char *const models[] = {"llama3-8b", "llama3-70b"};
    static const char *const frameworks[] = {"fsdp", "fsdp2", "torchtune", "hf-trainer"};
    int checked = 0;
    for (int m = 0; m < 2; m++)
        for (int f = 0; f < 4; f++) {
            pe_scenario s = load_native(models[m], frameworks[f], 0);
            assert_true(s.framework.memory_by_phase);
            checked += check_scenario(&s);
            scenario_free(&s);
        }
    print_message("fine-tuning stack memory properties: %d plans checked\n", checked);
    assert_true(checked > 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a16_hand),
        cmocka_unit_test(test_a20_hand),
        cmocka_unit_test(test_a20_cp_monotone),
        cmocka_unit_test(test_native_properties),
        cmocka_unit_test(test_stack_full_finetune_hand),
        cmocka_unit_test(test_stack_lora_hand),
        cmocka_unit_test(test_stack_qlora_hand),
        cmocka_unit_test(test_m19_ddp_buckets_hand),
        cmocka_unit_test(test_stack_properties),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
