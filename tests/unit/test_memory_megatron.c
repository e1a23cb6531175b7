/* test_memory_megatron.c — docs/model.md §12 A18, full recompute by layer as
 * Megatron-Core (--recompute-method uniform|block, --recompute-num-layers)
 * and torchtitan (selective_ac_option N: every N-th layer) spell it,
 * against hand arithmetic; its neutrality; and that checkpointing more
 * layers never raises the activations. A17, what Megatron-LM's legacy
 * model keeps beyond A2, by hand. F27, A18's step part: the layers the
 * backward recomputes, the FLOPs and times they add (textbook F5 and the
 * refined F11), hfu's F_hw, and that more recomputed layers never make a
 * step faster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/compute.h"
#include "model/memory_megatron.h"

/* GPT-3 175B on 8 MI300X nodes, dp 1, tp 8 (sp), pp 8: L' = 12 layers a
 * stage, 1f1b with m = 1536 micro-batches, so k = 8 on stage 0. */
static pe_scenario gpt3(pe_recompute_method method, int64_t n)
{
    pe_scenario s = fx_gpt3(8);
    s.framework = (pe_framework){.present = true, .recompute_method = method,
                                 .recompute_num_layers = n};
    return s;
}

static pe_plan full_plan(void)
{
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = PE_RECOMPUTE_FULL;
    return p;
}

static double stage0_act(pe_recompute_method method, int64_t n, pe_detail *d)
{
    const pe_scenario s = gpt3(method, n);
    const pe_plan p = full_plan();
    pe_result r;
    fx_eval_detail(&s, &p, &r, d);
    assert_true(d->valid);
    return d->a6[0];
}

/* By hand, h 12288, a 96, s' 2048, b 1, t 8 with sp:
 *   A_in = 2·2048·1·12288/8 = 6,291,456
 *   A_layer (att as recompute none) = 2048·(rep + par + att)/8 with
 *   rep = 10h = 122,880, par = 24h = 294,912, att = 5·96·2048 = 983,040:
 *   2048·1,400,832/8 = 358,612,992
 *   uniform 1 (A6:full): 6,291,456·12·8 + 358,612,992 = 962,592,768
 *   uniform 3: ⌈12/3⌉ = 4 groups: 6,291,456·4·8 + 3·358,612,992 = 1,277,165,568
 *   block 4: n = 4: 6,291,456·4·8 + 358,612,992·8·8 + 358,612,992 = 23,511,171,072
 *   every 4: n = ⌊12/4⌋ = 3: 6,291,456·3·8 + 358,612,992·9·8 + 358,612,992
 *            = 26,329,743,360
 *   block 12 (every layer): n = 12: as uniform 1, 962,592,768 */
static void test_a18_hand(void **state)
{
    (void)state;
    pe_detail d;
    assert_rel(stage0_act(PE_RECOMPUTE_UNIFORM, 1, &d), 962592768.0, 1e-12);
    assert_rel(d.a_in, 6291456.0, 1e-12);
    assert_rel(d.a_layer, 358612992.0, 1e-12);
    assert_rel(d.k[0], 8.0, 0.0);
    assert_rel(stage0_act(PE_RECOMPUTE_UNIFORM, 3, &d), 1277165568.0, 1e-12);
    assert_rel(stage0_act(PE_RECOMPUTE_BLOCK, 4, &d), 23511171072.0, 1e-12);
    assert_rel(stage0_act(PE_RECOMPUTE_EVERY, 4, &d), 26329743360.0, 1e-12);
    assert_rel(stage0_act(PE_RECOMPUTE_BLOCK, 12, &d), 962592768.0, 1e-12);
    /* the function itself, interleaved: v = 2 chunks of 6 layers, block 4:
     * n = 2·min(4, 6) = 8: 1·8·2 + 10·(12 − 8)·2 + 10 = 106; uniform 4:
     * 2·⌈6/4⌉ = 4 groups: 1·4·2 + 4·10 = 48 */
    assert_rel(act_stage_by_layer(PE_RECOMPUTE_BLOCK, 4, 2, 1, 10, 10, 12, 2), 106.0, 1e-15);
    assert_rel(act_stage_by_layer(PE_RECOMPUTE_UNIFORM, 4, 2, 1, 10, 10, 12, 2), 48.0, 1e-15);
}

/* Neutral: uniform 1 (the keys' defaults) is A6:full bit for bit, with or
 * without a framework; the keys do nothing without recompute: full. */
static void test_a18_neutral(void **state)
{
    (void)state;
    pe_scenario none = gpt3(PE_RECOMPUTE_UNIFORM, 1);
    none.framework.present = false;
    const pe_scenario neutral = gpt3(PE_RECOMPUTE_UNIFORM, 1);
    const pe_scenario block = gpt3(PE_RECOMPUTE_BLOCK, 4);
    pe_plan p = full_plan();
    assert_true(fx_eval(&none, &p).mem_total_gib == fx_eval(&neutral, &p).mem_total_gib);
    for (int rc = PE_RECOMPUTE_NONE; rc < PE_RECOMPUTE_FULL; rc++) {
        p.recompute = (pe_recompute)rc;
        assert_true(fx_eval(&none, &p).mem_total_gib == fx_eval(&block, &p).mem_total_gib);
    }
}

/* More recompute never raises the activations: block with more layers
 * checkpointed, every with a smaller N, and any of them against none. */
static void test_a18_more_recompute_less_memory(void **state)
{
    (void)state;
    pe_detail d;
    const pe_scenario plain = fx_gpt3(8);
    pe_plan none = full_plan();
    none.recompute = PE_RECOMPUTE_NONE;
    pe_result r;
    fx_eval_detail(&plain, &none, &r, &d);
    const double stored = d.a6[0];
    double last = stored;
    for (int64_t n = 0; n <= 14; n++) { /* block 0 would be none: start at 1 */
        const double a = stage0_act(PE_RECOMPUTE_BLOCK, n < 1 ? 1 : n, &d);
        assert_true(a <= last * (1 + 1e-12));
        last = a;
    }
    last = 0.0;
    for (int64_t n = 1; n <= 14; n++) {
        const double a = stage0_act(PE_RECOMPUTE_EVERY, n, &d);
        assert_true(a >= last * (1 - 1e-12));
        assert_true(a <= stored * (1 + 1e-12) + d.a_layer);
        last = a;
    }
}

/* A17 by hand: GPT-3 175B's dimensions with swiglu, flash attention and 8
 * KV heads (h 12288, a 96, d 128, f 49152), tp 8 with sp, s' 2048, b 1:
 *   extra = 2f + 2·a·d + 4·(a − g)·d = 98,304 + 24,576 + 45,056 = 167,936
 *   A2 = 4h + 4gd + 6f = 49,152 + 4,096 + 294,912 = 348,160 (→ 516,096)
 *   A1 = 10h = 122,880 (dropout), A3 = 0 (flash)
 *   A_layer = 2048·(122,880 + 348,160)/8 = 120,586,240 without A17,
 *             2048·(122,880 + 516,096)/8 = 163,577,856 with it */
static void test_a17_hand(void **state)
{
    (void)state;
    assert_rel(act_legacy_extra(1, 1, 49152, 96, 8, 128), 167936.0, 1e-15);
    assert_rel(act_legacy_extra(0, 1, 49152, 96, 96, 128), 24576.0, 1e-15);
    assert_rel(act_legacy_extra(1, 0, 49152, 96, 8, 128), 98304.0, 1e-15);
    double a_layer[2];
    for (int legacy = 0; legacy <= 1; legacy++) {
        pe_scenario s = fx_gpt3(8);
        s.model.mlp = PE_MLP_SWIGLU, s.model.attention = PE_ATTENTION_FLASH;
        s.model.kv_heads = 8;
        s.framework = (pe_framework){.present = true, .recompute_num_layers = 1,
                                     .megatron_legacy_model = legacy};
        const pe_plan p = fx_plan(1, 8, 8, 1);
        pe_result r;
        pe_detail d;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.valid);
        a_layer[legacy] = d.a_layer;
    }
    assert_rel(a_layer[0], 120586240.0, 1e-12);
    assert_rel(a_layer[1], 163577856.0, 1e-12);
}

/* F27 by hand: L' = 12 layers in v chunks.
 *   uniform 3: every layer, 12; block 4 (v 1): 4; block 4 (v 2): 2·min(4, 6) = 8;
 *   block 14: min(14, 12) = 12; every 4: ⌊12/4⌋ = 3; every 5: ⌊12/5⌋ = 2;
 *   every 1: 12; every 13: 0. */
static void test_f26_layers_hand(void **state)
{
    (void)state;
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_UNIFORM, 3, 1, 12), 12.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_BLOCK, 4, 1, 12), 4.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_BLOCK, 4, 2, 12), 8.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_BLOCK, 14, 1, 12), 12.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_EVERY, 4, 1, 12), 3.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_EVERY, 5, 1, 12), 2.0, 0.0);
    assert_rel(compute_recomputed_layers(PE_RECOMPUTE_EVERY, 1, 1, 12), 12.0, 0.0);
    assert_true(compute_recomputed_layers(PE_RECOMPUTE_EVERY, 13, 1, 12) == 0.0);
}

/* F27 in F5 (textbook compute), GPT-3 175B, tp 8, pp 8, stage 0 (L' = 12,
 * no output layer), b 1, s' 2048, x = F_layer (full):
 *   F_layer = 2·12·12288² + 4·2048·12288 = 3,623,878,656 + 100,663,296
 *           = 3,724,541,952
 *   f_fwd = 1·2048·12·3,724,541,952/8 = 11,441,792,876,544
 *   f_bwd uniform = 3·f_fwd = 34,325,378,629,632
 *   f_bwd block 4 = 2·f_fwd + 2048·4·F_layer/8 = 26,697,516,711,936
 *   f_bwd every 4 (3 layers) = 2·f_fwd + 2048·3·F_layer/8 = 25,744,033,972,224
 * hfu: F_hw/F_model = hfu/mfu; block 4 recomputes R = 8 stages·4 = 32 of
 * the 96 layers, so F_hw − F_model is a third of uniform's. */
static void test_f26_textbook_hand(void **state)
{
    (void)state;
    pe_detail d;
    pe_result r;
    const pe_plan p = full_plan();
    const pe_scenario uni = gpt3(PE_RECOMPUTE_UNIFORM, 1), blk = gpt3(PE_RECOMPUTE_BLOCK, 4);
    const pe_scenario ev = gpt3(PE_RECOMPUTE_EVERY, 4);
    fx_eval_detail(&uni, &p, &r, &d);
    assert_rel(d.f_fwd[0], 11441792876544.0, 1e-12);
    assert_rel(d.f_bwd[0], 34325378629632.0, 1e-12);
    assert_rel(d.rec_layers[0], 12.0, 0.0);
    const double extra_uni = r.hfu / r.mfu - 1.0;
    fx_eval_detail(&blk, &p, &r, &d);
    assert_rel(d.rec_layers[0], 4.0, 0.0);
    assert_rel(d.f_bwd[0], 26697516711936.0, 1e-12);
    assert_rel(r.hfu / r.mfu - 1.0, extra_uni / 3.0, 1e-9);
    fx_eval_detail(&ev, &p, &r, &d);
    assert_rel(d.rec_layers[0], 3.0, 0.0);
    assert_rel(d.f_bwd[0], 25744033972224.0, 1e-12);
    assert_rel(r.hfu / r.mfu - 1.0, extra_uni / 4.0, 1e-9); /* R = 8·3 = 24 of 96 */
}

static pe_scenario refined(pe_recompute_method method, int64_t n)
{
    pe_scenario s = gpt3(method, n);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5;
    g->has_attention_efficiency = true, g->attention_efficiency = 0.25;
    g->elementwise_efficiency = 0.5, g->microbatch_overhead_us = 30;
    return s;
}

/* F27 in F11 (refined compute), stage 0, no output layer, t_mb 30 µs:
 *   uniform: τ_b = 12·τ_lb + 2·t_mb/3 with τ_lb = 3·τ_lf: 36·τ_lf + 2e-5 s
 *   block 4: the 8 stored layers recompute nothing: 24·τ_lf + 4·τ_lf + 2e-5
 *            = 28·τ_lf + 2e-5 s; τ_f = 12·τ_lf + 1e-5 s either way */
static void test_f26_refined_hand(void **state)
{
    (void)state;
    pe_detail d;
    pe_result r;
    const pe_plan p = full_plan();
    const pe_scenario uni = refined(PE_RECOMPUTE_UNIFORM, 1), blk = refined(PE_RECOMPUTE_BLOCK, 4);
    fx_eval_detail(&uni, &p, &r, &d);
    const double lf = d.tau_lf, tau_f = d.tau_f[0];
    assert_rel(d.tau_lb, 3.0 * lf, 1e-12);
    assert_rel(d.tau_b[0], 36.0 * lf + 2e-5, 1e-12);
    fx_eval_detail(&blk, &p, &r, &d);
    assert_rel(d.tau_lf, lf, 0.0);
    assert_rel(d.tau_f[0], tau_f, 0.0);
    assert_rel(d.tau_b[0], 28.0 * lf + 2e-5, 1e-12);
}

/* Neutral: uniform 1 times the step as A6:full's recompute of every layer,
 * bit for bit; the keys change no time without recompute: full. */
static void test_f26_neutral(void **state)
{
    (void)state;
    for (int ref = 0; ref <= 1; ref++) {
        pe_scenario none = ref ? refined(PE_RECOMPUTE_UNIFORM, 1) : gpt3(PE_RECOMPUTE_UNIFORM, 1);
        none.framework.present = false;
        const pe_scenario neutral = ref ? refined(PE_RECOMPUTE_UNIFORM, 1)
                                        : gpt3(PE_RECOMPUTE_UNIFORM, 1);
        const pe_scenario block = ref ? refined(PE_RECOMPUTE_BLOCK, 4)
                                      : gpt3(PE_RECOMPUTE_BLOCK, 4);
        pe_plan p = full_plan();
        pe_result a = fx_eval(&none, &p), b = fx_eval(&neutral, &p);
        assert_true(a.step_time_s == b.step_time_s && a.hfu == b.hfu);
        for (int rc = PE_RECOMPUTE_NONE; rc < PE_RECOMPUTE_FULL; rc++) {
            p.recompute = (pe_recompute)rc;
            a = fx_eval(&none, &p), b = fx_eval(&block, &p);
            assert_true(a.step_time_s == b.step_time_s && a.hfu == b.hfu);
        }
    }
}

/* Property: more recomputed layers never make a step faster — block with a
 * larger N, every with a smaller N — and every by-layer plan lies between
 * recompute: none and full, on the textbook and the refined compute, with
 * and without interleaving (v 2: block counts per chunk). */
static void test_f26_more_recompute_never_faster(void **state)
{
    (void)state;
    for (int ref = 0; ref <= 1; ref++)
        for (int64_t v = 1; v <= 2; v++) {
            pe_plan p = full_plan();
            p.virtual_stages = v, p.schedule = v > 1 ? PE_SCHEDULE_INTERLEAVED : p.schedule;
            pe_scenario plain = ref ? refined(PE_RECOMPUTE_UNIFORM, 1)
                                    : gpt3(PE_RECOMPUTE_UNIFORM, 1);
            const double t_full = fx_eval(&plain, &p).step_time_s;
            p.recompute = PE_RECOMPUTE_NONE;
            const double t_none = fx_eval(&plain, &p).step_time_s;
            p.recompute = PE_RECOMPUTE_FULL;
            assert_true(t_none < t_full);
            double last = t_none;
            for (int64_t n = 1; n <= 14; n++) {
                const pe_scenario s = ref ? refined(PE_RECOMPUTE_BLOCK, n)
                                          : gpt3(PE_RECOMPUTE_BLOCK, n);
                const double t = fx_eval(&s, &p).step_time_s;
                assert_true(t >= last * (1 - 1e-12) && t <= t_full * (1 + 1e-12));
                last = t;
            }
            last = t_full;
            for (int64_t n = 1; n <= 14; n++) {
                const pe_scenario s = ref ? refined(PE_RECOMPUTE_EVERY, n)
                                          : gpt3(PE_RECOMPUTE_EVERY, n);
                const double t = fx_eval(&s, &p).step_time_s;
                assert_true(t <= last * (1 + 1e-12) && t >= t_none * (1 - 1e-12));
                last = t;
            }
        }
}

/* A24 with memory_by_phase on GPT-3 175B, dp 1, tp 8 (sp), pp 8, 1f1b,
 * global batch g (m = g micro-batches of 1), recompute selective. */
static void a24_eval(bool recv, pe_schedule sched, int64_t global_batch, pe_detail *d)
{
    pe_scenario s = fx_gpt3(8);
    s.framework = (pe_framework){.present = true, .memory_by_phase = true, .loss_bytes = 4.0,
                                 .recompute_num_layers = 1, .pp_recv_grad = recv};
    s.training.global_batch = global_batch;
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    p.schedule = sched;
    if (sched == PE_SCHEDULE_INTERLEAVED)
        p.virtual_stages = 2;
    pe_result r;
    fx_eval_detail(&s, &p, &r, d);
    assert_true(d->valid);
}

/* By hand, s' 2048, b 1, h 12288, t 8 with sp, bf16 (2 bytes):
 *   A24 = 2·2048·1·12288/8 = 6,291,456 bytes, added to stage 0's backward
 *   phase only (forward, loss, optimizer unchanged); the last stage of
 *   1f1b receives no gradient (0); under interleaving (v 2) it does:
 *   6,291,456 there too. pp_recv_grad false: 0 everywhere (neutral). */
static void test_a24_hand(void **state)
{
    (void)state;
    pe_detail off, on;
    a24_eval(false, PE_SCHEDULE_1F1B, 1536, &off);
    a24_eval(true, PE_SCHEDULE_1F1B, 1536, &on);
    assert_rel(on.a24_stage[0], 6291456.0, 1e-12);
    assert_rel(on.phase[0][2] - off.phase[0][2], 6291456.0, 1e-12);
    assert_true(on.phase[0][1] == off.phase[0][1]);
    assert_true(on.phase[0][4] == off.phase[0][4]);
    assert_true(on.a24_stage[1] == 0.0);
    assert_true(on.phase[1][2] == off.phase[1][2]);
    assert_true(on.phase[1][3] == off.phase[1][3]);
    pe_detail inter_off, inter_on;
    a24_eval(false, PE_SCHEDULE_INTERLEAVED, 1536, &inter_off);
    a24_eval(true, PE_SCHEDULE_INTERLEAVED, 1536, &inter_on);
    assert_rel(inter_on.phase[1][2] - inter_off.phase[1][2], 6291456.0, 1e-12);
}

/* Property: more micro-batches in flight (m from 1 to 16, so k(0) =
 * min(8, m) grows) never lower stage 0's backward phase or its peak with
 * A24, and A24 never lowers either against pp_recv_grad false. */
static void test_a24_more_in_flight_never_lower(void **state)
{
    (void)state;
    double prev_bwd = 0.0, prev_peak = 0.0;
    for (int64_t m = 1; m <= 16; m++) {
        pe_detail off, on;
        a24_eval(false, PE_SCHEDULE_1F1B, m, &off);
        a24_eval(true, PE_SCHEDULE_1F1B, m, &on);
        assert_true(on.phase[0][2] >= off.phase[0][2]);
        assert_true(on.peak[0] >= off.peak[0]);
        assert_true(on.phase[0][2] >= prev_bwd);
        assert_true(on.peak[0] >= prev_peak);
        prev_bwd = on.phase[0][2], prev_peak = on.peak[0];
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a18_hand),
        cmocka_unit_test(test_a18_neutral),
        cmocka_unit_test(test_a18_more_recompute_less_memory),
        cmocka_unit_test(test_a17_hand),
        cmocka_unit_test(test_f26_layers_hand),
        cmocka_unit_test(test_f26_textbook_hand),
        cmocka_unit_test(test_f26_refined_hand),
        cmocka_unit_test(test_f26_neutral),
        cmocka_unit_test(test_f26_more_recompute_never_faster),
        cmocka_unit_test(test_a24_hand),
        cmocka_unit_test(test_a24_more_in_flight_never_lower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
