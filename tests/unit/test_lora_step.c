/* test_lora_step.c — docs/model.md §4 F37 (training.finetune: lora): the
 * step's compute with a frozen base against hand arithmetic, and the
 * properties over a grid of plans:
 *
 *   1. LoRA (base_quant none, r ≤ 64) is never slower than the full
 *      fine-tune of the same plan (see check_plan for why not at r = 256);
 *   2. a larger rank is never faster;
 *   3. base_quant nf4 is never faster than none at zero ≤ 2, and its
 *      compute never faster at zero 3 (where its step may be: ZeRO-3
 *      all-gathers the packed 4-bit storage, fewer bytes than bf16, X4).
 *
 * Each property runs over tp, pp, zero, recompute, micro-batch, and both
 * the textbook model (F6) and the refined compute by shape (F7–F11). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "lora_fixtures.h"

/* Llama 2 7B on one A100, s = 512, b = 1, textbook (F6), with the given
 * fine-tune keys ("" for a full fine-tune). */
static pe_scenario load_7b_one_gpu(const char *finetune)
{
    char text[768];
    snprintf(text, sizeof text,
             "schema: planeval/v1\n"
             "model: { preset: llama2-7b, seq_len: 512 }\n"
             "cluster: { preset: a100-node, nodes: 1, gpus_per_node: 1 }\n"
             "training: { global_batch: 16%s%s }\n"
             "plans:\n  - { name: one, dp: 1 }\n",
             finetune[0] ? ", " : "", finetune);
    return load_text(text);
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

/* F37 by hand, Llama 2 7B (h 4096, f 11,008, L 32), r = 8 all-linear, one
 * GPU (t = 1), M = b·s' = 512 tokens:
 *   N_mm = 4·4096² + 3·4096·11,008 = 202,375,168 (P1)
 *   the base's backward GEMMs a layer: full 4·M·N_mm = 414,464,344,064,
 *     lora (input gradient only) 2·M·N_mm = 207,232,172,032 = wg, removed
 *   adapters: r·Σ(in + out) = 8·78,080 = 624,640 weights a layer (M16),
 *     forward 2·M·624,640 = 639,631,360 FLOPs (x·A and ·B), backward twice
 *   the frozen output layer's weight gradient (V 32,000): M·2hV
 *     = 512·262,144,000 = 134,217,728,000
 *   F5 stage sums over 32 layers, recompute none:
 *     f_fwd + 32·639,631,360 = + 20,468,203,520
 *     f_bwd + 32·(2·639,631,360 − 207,232,172,032) − 134,217,728,000
 *       = − 6,590,493,097,984 − 134,217,728,000 = − 6,724,710,825,984
 *   nf4 dequantisation a layer per use: (0.515869140625 + 2)·202,375,168
 *     = 404,750,336 + 104,399,104 = 509,149,440 bytes at W·η_W */
static void test_lora_step_llama2_7b(void **state)
{
    (void)state;
    pe_scenario full = load_7b_one_gpu("");
    pe_scenario lora = load_7b_one_gpu("finetune: lora, lora_rank: 8, lora_targets: all-linear");
    pe_scenario qlora = load_7b_one_gpu(
        "finetune: lora, lora_rank: 8, lora_targets: all-linear, base_quant: nf4");
    pe_result rf, rl, rq;
    pe_detail df, dl, dq;
    fx_eval_detail(&full, &full.plans[0], &rf, &df);
    fx_eval_detail(&lora, &lora.plans[0], &rl, &dl);
    fx_eval_detail(&qlora, &qlora.plans[0], &rq, &dq);
    assert_true(dl.lora_wg_flop == 207232172032.0);
    assert_true(dl.lora_ad_flop == 639631360.0);
    assert_true(close_to(dl.f_fwd[0] - df.f_fwd[0], 20468203520.0));
    assert_true(close_to(dl.f_bwd[0] - df.f_bwd[0], -6724710825984.0));
    assert_true(dl.lora_dq_t == 0.0); /* base_quant none: no dequantisation */
    pe_eval_ctx ctx;
    evaluate_prepare(&qlora, &ctx);
    assert_true(ctx.lora.deq_bytes == 509149440.0);
    assert_true(dq.lora_dq_t == 509149440.0 / ctx.lora.deq_bps);
    /* textbook times: the FLOPs at peak·e, the dequantisation once forward
     * and once backward in each of the 32 layers */
    assert_true(close_to(dl.tau_b[0] - df.tau_b[0], -6724710825984.0 / ctx.rate));
    assert_true(close_to(dq.tau_f[0] - dl.tau_f[0], 32.0 * dq.lora_dq_t));
    assert_true(close_to(dq.tau_b[0] - dl.tau_b[0], 32.0 * dq.lora_dq_t));
    assert_true(rl.step_time_s < rf.step_time_s && rq.step_time_s > rl.step_time_s);
    scenario_free(&full), scenario_free(&lora), scenario_free(&qlora);
}

static double step(const pe_scenario *s, const pe_plan *p) { return fx_eval(s, p).step_time_s; }
/* property 3's figure: the step at zero ≤ 2, the compute at zero 3 */
static double quant_figure(const pe_scenario *s, const pe_plan *p)
{
    const pe_result r = fx_eval(s, p);
    return p->zero == 3 ? r.compute_s : r.step_time_s;
}

#define N_RANKS 4
#define N_QUANTS 2
/* Property 1 for ranks up to 64; properties 2 and 3 against the neighbours.
 * Not at every rank: PEFT's LoraParallelLinear keeps A of a column-parallel
 * base whole, so every TP rank computes x·A over all its tokens; at r = 256
 * and t = 8 (Llama 2 7B: 256·(28,672 + 49,408/8) = 8,921,088 adapter
 * weights a rank against N_mm/8 = 25,296,896) the adapters' 3·2·M·8,921,088
 * FLOPs outweigh the 2·M·25,296,896 of the weight gradients saved. */
static void check_plan(const char *model, const pe_scenario *full,
                       pe_scenario s[N_RANKS][N_QUANTS], const pe_plan *p, const int *ranks)
{
    const double tf = step(full, p);
    for (size_t k = 0; k < N_RANKS; k++) {
        const double none = step(&s[k][0], p);
        if (ranks[k] <= 64 && !(none <= tf))
            fail_msg("%s tp%lld pp%lld z%lld b%lld rc%d r%d: lora %.9g s above full %.9g s",
                     model, (long long)p->tp, (long long)p->pp, (long long)p->zero,
                     (long long)p->micro_batch, (int)p->recompute, ranks[k], none, tf);
        const double qn = quant_figure(&s[k][0], p), q4 = quant_figure(&s[k][1], p);
        if (!(q4 >= qn))
            fail_msg("%s r%d z%lld: nf4 %.9g s below none %.9g s", model, ranks[k],
                     (long long)p->zero, q4, qn);
        for (size_t q = 0; k > 0 && q < N_QUANTS; q++)
            if (!(step(&s[k][q], p) >= step(&s[k - 1][q], p)))
                fail_msg("%s: rank %d faster than rank %d", model, ranks[k], ranks[k - 1]);
    }
}

static void test_lora_step_properties(void **state)
{
    (void)state;
    grid_plan g[128];
    const size_t n = grid(g, 128);
    static const int ranks[N_RANKS] = {8, 16, 64, 256};
    static const char *const quants[N_QUANTS] = {"none", "nf4"};
    char keys[160];
    for (size_t m = 0; m < 3; m++)
        for (size_t f = 0; f < 2; f++) {
            pe_scenario full = load_node(MODELS[m], "", FRAMEWORKS[f]);
            pe_scenario s[N_RANKS][N_QUANTS];
            for (size_t k = 0; k < N_RANKS; k++)
                for (size_t q = 0; q < N_QUANTS; q++) {
                    snprintf(keys, sizeof keys, "finetune: lora, lora_rank: %d, base_quant: %s",
                             ranks[k], quants[q]);
                    s[k][q] = load_node(MODELS[m], keys, FRAMEWORKS[f]);
                }
            for (size_t i = 0; i < n; i++) {
                const pe_plan p = grid_to_plan(&full, &g[i]);
                check_plan(MODELS[m], &full, s, &p, ranks);
            }
            for (size_t k = 0; k < N_RANKS; k++)
                for (size_t q = 0; q < N_QUANTS; q++)
                    scenario_free(&s[k][q]);
            scenario_free(&full);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lora_step_llama2_7b),
        cmocka_unit_test(test_lora_step_properties),
    };
    return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
