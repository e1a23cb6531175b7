/* test_memory.c — docs/model.md §3, M1–M6 and A1–A8, against hand arithmetic
 * and the published figures (Korthikanti et al. 2022; Rajbhandari et al.
 * 2020 Table 1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/detail.h"
#include "model/memory.h"
#include "model/memory_megatron.h"
#include "model/memory_native.h"

/* GPT-3 per-token components: h = 12288, a = 96, s = 2048, δ = 1, f = 4h, g·d = h */
static void test_activation_components(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    /* A1 8h + 2δh = 10h = 122,880 */
    assert_true(act_rep(&s.model) == 122880.0);
    /* A2 4h + 4gd + 4f = 4h + 4h + 16h = 24h = 294,912 */
    assert_true(act_par(&s.model) == 294912.0);
    /* A3 (2 + 3δ)·a·s = 5·96·2048 = 983,040; full recompute keeps it (A5) */
    assert_true(act_att(&s.model, PE_RECOMPUTE_NONE) == 983040.0);
    assert_true(act_att(&s.model, PE_RECOMPUTE_FULL) == 983040.0);
    /* A3 = 0 for selective recompute and for flash attention */
    assert_true(act_att(&s.model, PE_RECOMPUTE_SELECTIVE) == 0.0);
    s.model.attention = PE_ATTENTION_FLASH;
    assert_true(act_att(&s.model, PE_RECOMPUTE_NONE) == 0.0);
    assert_true(act_att(&s.model, PE_RECOMPUTE_FULL) == 0.0);
    /* without dropout: A1 8h = 98,304; A3 2·a·s = 393,216 */
    s.model.attention = PE_ATTENTION_STANDARD;
    s.model.dropout = false;
    assert_true(act_rep(&s.model) == 98304.0);
    assert_true(act_att(&s.model, PE_RECOMPUTE_NONE) == 393216.0);
    /* swiglu, GQA g = 8: A2 4h + 4·8·128 + 6f = 49,152 + 4,096 + 6·49,152 = 348,160 */
    s.model.mlp = PE_MLP_SWIGLU;
    s.model.kv_heads = 8;
    assert_true(act_par(&s.model) == 348160.0);
}

/* A4: the docs/model.md check and Korthikanti's Table 2 forms. */
static void test_activation_layer(void **state)
{
    (void)state;
    const double rep = 122880, par = 294912, att = 983040;
    /* t = c = 1, no sp: s·b·(34h + 5as) = 2048·(417,792 + 983,040) = 2048·1,400,832
     *   = 2,868,903,936 = sbh(34 + 5as/h) = 25,165,824·114 */
    assert_true(act_layer(2048, 1, 1, 0, rep, par, att) == 2868903936.0);
    /* t = 8, no sp: sbh(10 + 24/t + 5as/(ht)) = 25,165,824·(10 + 3 + 10) = 578,813,952 */
    assert_true(act_layer(2048, 1, 8, 0, rep, par, att) == 578813952.0);
    /* t = 8, sp: sbh/t·(34 + 5as/h) = 2,868,903,936/8 = 358,612,992 */
    assert_true(act_layer(2048, 1, 8, 1, rep, par, att) == 358612992.0);
    /* t = 8, sp, selective (att = 0): 34·sbh/t = 34·25,165,824/8 = 106,954,752 */
    assert_true(act_layer(2048, 1, 8, 1, rep, par, 0) == 106954752.0);
    /* b = 4, c = 2 → s' = 1024: 1024·4·1,400,832 = 5,737,807,872 (= 2× the b = 1 figure) */
    assert_true(act_layer(1024, 4, 1, 0, rep, par, att) == 5737807872.0);
}

/* A5 full recompute and A6. */
static void test_full_recompute(void **state)
{
    (void)state;
    /* A_in = 2·s'·b·h = 2·2048·12288 = 50,331,648; with sp, t = 8: 6,291,456 */
    assert_true(act_input(2048, 1, 12288, 8, 0) == 50331648.0);
    assert_true(act_input(2048, 1, 12288, 8, 1) == 6291456.0);
    /* A6 full: A_in·(L/p)·k + A_layer = 6,291,456·12·8 + 358,612,992
     *        = 603,979,776 + 358,612,992 = 962,592,768 */
    assert_true(act_stage(358612992.0, 6291456.0, 12, 8, 1) == 962592768.0);
    /* A6 otherwise: A_layer·(L/p)·k = 106,954,752·12·8 = 10,267,656,192 */
    assert_true(act_stage(106954752.0, 6291456.0, 12, 8, 0) == 10267656192.0);
}

/* k(stage) table, k_first (A7) and k_last (A8). */
static void test_inflight(void **state)
{
    (void)state;
    /* p = 8, m = 64, v = 3 */
    assert_true(act_inflight(PE_SCHEDULE_1F1B, 8, 64, 1, 0) == 8.0);  /* min(p, m) */
    assert_true(act_inflight(PE_SCHEDULE_1F1B, 8, 64, 1, 1) == 1.0);
    assert_true(act_inflight(PE_SCHEDULE_ZB_H1, 8, 64, 1, 0) == 8.0);
    assert_true(act_inflight(PE_SCHEDULE_ZB_H1, 8, 64, 1, 1) == 1.0);
    assert_true(act_inflight(PE_SCHEDULE_GPIPE, 8, 64, 1, 0) == 64.0); /* m */
    assert_true(act_inflight(PE_SCHEDULE_GPIPE, 8, 64, 1, 1) == 64.0);
    assert_true(act_inflight(PE_SCHEDULE_ZB_H2, 8, 64, 1, 0) == 15.0); /* 2p − 1 */
    assert_true(act_inflight(PE_SCHEDULE_ZB_H2, 8, 64, 1, 1) == 1.0);
    /* interleaved: p + (p−1)/v = 8 + 7/3 = 31/3 (a real division); p − (p−1)/v = 17/3 */
    assert_rel(act_inflight(PE_SCHEDULE_INTERLEAVED, 8, 64, 3, 0), 31.0 / 3.0, 1e-15);
    assert_rel(act_inflight(PE_SCHEDULE_INTERLEAVED, 8, 64, 3, 1), 17.0 / 3.0, 1e-15);
    /* capped by m: m = 4 → min(8, 4) = 4, min(15, 4) = 4, min(31/3, 4) = 4 */
    assert_true(act_inflight(PE_SCHEDULE_1F1B, 8, 4, 1, 0) == 4.0);
    assert_true(act_inflight(PE_SCHEDULE_ZB_H2, 8, 4, 1, 0) == 4.0);
    assert_true(act_inflight(PE_SCHEDULE_INTERLEAVED, 8, 4, 3, 0) == 4.0);
    /* p = 1: plain gradient accumulation, 1 whatever the schedule (gpipe too) */
    assert_true(act_inflight(PE_SCHEDULE_GPIPE, 1, 64, 1, 0) == 1.0);
    assert_true(act_inflight(PE_SCHEDULE_GPIPE, 1, 64, 1, 1) == 1.0);
    assert_true(act_inflight_first_chunk(PE_SCHEDULE_GPIPE, 1, 64, 1) == 1.0);
    assert_true(act_inflight_last_chunk(PE_SCHEDULE_GPIPE, 1, 64, 1) == 1.0);
    /* k_first: interleaved min(2p, m) = min(16, 64) = 16, min(16, 12) = 12; else k(0) */
    assert_true(act_inflight_first_chunk(PE_SCHEDULE_INTERLEAVED, 8, 64, 3) == 16.0);
    assert_true(act_inflight_first_chunk(PE_SCHEDULE_INTERLEAVED, 8, 12, 3) == 12.0);
    assert_true(act_inflight_first_chunk(PE_SCHEDULE_1F1B, 8, 64, 1) == 8.0);
    assert_true(act_inflight_first_chunk(PE_SCHEDULE_ZB_H2, 8, 64, 1) == 15.0);
    /* k_last: interleaved 1; else k(p−1): gpipe m = 64, 1f1b 1 */
    assert_true(act_inflight_last_chunk(PE_SCHEDULE_INTERLEAVED, 8, 64, 3) == 1.0);
    assert_true(act_inflight_last_chunk(PE_SCHEDULE_GPIPE, 8, 64, 1) == 64.0);
    assert_true(act_inflight_last_chunk(PE_SCHEDULE_1F1B, 8, 64, 1) == 1.0);
}

/* A7 and A8. */
static void test_first_last_extras(void **state)
{
    (void)state;
    /* A7 δ·s'·b·h/(sp ? t : 1)·k_first: sp, t = 8, k = 16: 2048·12288/8·16 = 50,331,648 */
    assert_true(act_embed_mask(1, 2048, 1, 12288, 8, 1, 16) == 50331648.0);
    /* no sp (t ignored), k = 8: 25,165,824·8 = 201,326,592; no dropout → 0 */
    assert_true(act_embed_mask(1, 2048, 1, 12288, 8, 0, 8) == 201326592.0);
    assert_true(act_embed_mask(0, 2048, 1, 12288, 8, 0, 8) == 0.0);
    /* A8 (4·s'·b·h/(sp ? t : 1) + 4·s'·b·V/t)·k_last, sp, t = 8, k = 1:
     *    4·2048·12288/8 + 4·2048·51200/8 = 12,582,912 + 52,428,800 = 65,011,712 */
    assert_true(act_output(2048, 1, 12288, 51200, 8, 1, 1) == 65011712.0);
    /* t = 1, k = 1: 100,663,296 + 419,430,400 = 520,093,696 */
    assert_true(act_output(2048, 1, 12288, 51200, 1, 0, 1) == 520093696.0);
}

/* ZeRO paper Table 1: Ψ = 7.5e9, N_d = 64, K = 12, GB = 10^9. */
static void test_zero_table1(void **state)
{
    (void)state;
    const double psi = 7.5e9, D = 64;
    double m[4];
    for (int z = 0; z <= 3; z++)
        m[z] = mem_weights(2, psi, z, D) + mem_grads(2, psi, z, D) + mem_optimizer(12, psi, z, D);
    /* baseline (2 + 2 + 12)·7.5 = 120 GB */
    assert_true(m[0] == 120e9);
    /* P_os: 2Ψ + 2Ψ + 12Ψ/64 = 15 + 15 + 1.40625 = 31.40625 GB ("31.4") */
    assert_true(m[1] == 31.40625e9);
    assert_abs(m[1] / 1e9, 31.4, 0.05);
    /* P_os+g: 2Ψ + (2 + 12)Ψ/64 = 15 + 1.640625 = 16.640625 GB ("16.6") */
    assert_true(m[2] == 16.640625e9);
    assert_abs(m[2] / 1e9, 16.6, 0.05);
    /* P_os+g+p: 16Ψ/64 = 1.875 GB ("1.88") */
    assert_true(m[3] == 1.875e9);
    assert_abs(m[3] / 1e9, 1.88, 0.005);
}

/* M4 the ZeRO-3 working set. */
static void test_zero3_working_set(void **state)
{
    (void)state;
    const double nl = 173716518400.0 / 96.0; /* GPT-3 N_layer (P6) */
    /* z = 3, t = 1: (2·2 + 2)·max(N_layer, V·h) = 6·1,809,547,066.67 = 10,857,282,400 */
    assert_rel(mem_zero3_working(3, 2, 2, nl, 629145600.0, 1), 10857282400.0, 1e-15);
    /* t = 8: 1,357,160,300 */
    assert_rel(mem_zero3_working(3, 2, 2, nl, 629145600.0, 8), 1357160300.0, 1e-15);
    /* embedding larger than a layer (GPT-2 small: N_layer 7,087,872 < V·h = 38,597,376):
     *   6·38,597,376 = 231,584,256 */
    assert_true(mem_zero3_working(3, 2, 2, 7087872.0, 38597376.0, 1) == 231584256.0);
    /* z < 3 → 0 */
    assert_true(mem_zero3_working(2, 2, 2, nl, 629145600.0, 1) == 0.0);
}

/* M5/M6 through the evaluator: GPT-3, dp 64, ZeRO-3, p = 1 (one stage carries A7 and A8). */
static void test_totals_gpt3_zero3(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.zero = 3;
    p.micro_batch = 1;
    s.training.global_batch = 1536;
    const pe_result r = fx_eval(&s, &p);
    /* M1 = M2 = 2·175e9/64 = 5,468,750,000; M3 = 12·175e9/64 = 32,812,500,000
     * M4 = 10,857,282,400; A6 = 2,868,903,936·96·1 = 275,414,777,856
     * A7 = 2048·12288·1 = 25,165,824; A8 = 520,093,696; R = 10 GiB = 10,737,418,240
     * M5 = 341,304,738,016 B = 317.8648 GiB > 192 → over_memory */
    assert_rel(r.mem_weights_gib, 5468750000.0 / GIB, 1e-14);
    assert_rel(r.mem_grads_gib, 5468750000.0 / GIB, 1e-14);
    assert_rel(r.mem_optimizer_gib, 32812500000.0 / GIB, 1e-14);
    assert_rel(r.mem_activations_gib, 275414777856.0 / GIB, 1e-14);
    /* other = M4 + A7 + A8 = 10,857,282,400 + 25,165,824 + 520,093,696 = 11,402,541,920 */
    assert_rel(r.mem_other_gib, 11402541920.0 / GIB, 1e-14);
    assert_true(r.mem_reserve_gib == 10.0);
    assert_rel(r.mem_total_gib, 341304738016.0 / GIB, 1e-14);
    assert_true(r.mem_budget_gib == 192.0);
    assert_rel(r.mem_headroom_gib, 192.0 - 341304738016.0 / GIB, 1e-14);
    assert_int_equal(r.worst_stage, 0);
    assert_int_equal(r.status, PE_STATUS_OVER_MEMORY);
    assert_true(r.failed & PE_FAIL_MEMORY);
    /* the time figures are filled for an over_memory plan */
    assert_true(r.step_time_s > 0.0 && r.mfu > 0.0);
}

/* Diagnostics: state_total_gib, act_total_gib. */
static void test_diagnostics(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(8, 8, 1, 1); /* any valid plan: the diagnostics ignore it but b */
    pe_result r = fx_eval(&s, &p);
    /* 16·175e9/2^30 = 2,800,000,000,000/1,073,741,824 = 2607.703 GiB */
    assert_abs(r.state_total_gib, 2607.7, 0.05);
    assert_rel(r.state_total_gib, 2.8e12 / GIB, 1e-14);
    /* 2,868,903,936·96 = 275,414,777,856 B = 256.5 GiB exactly */
    assert_true(r.act_total_gib == 256.5);
    /* b = 2 doubles it */
    p.micro_batch = 2;
    r = fx_eval(&s, &p);
    assert_true(r.act_total_gib == 513.0);
}

/* Korthikanti et al. Fig. 1: 175B, t 8, p 8, interleaved v 3, b 1, sequence
 * parallel + selective recompute. Stage-0 layer activations (A6):
 * 34·s·b·h/t · (L/p) · (p + (p−1)/v) = 106,954,752 · 12 · 31/3 = 13,262,389,248 B
 * = 12.3515625 GiB — Korthikanti's 34·sbhL/t·(1 + (p−1)/(p·v)) exactly. The
 * paper's figure is A6 alone; A7 (embedding dropout mask, k_first = 2p = 16)
 * adds 2048·12288/8·16 = 50,331,648 B = 0.046875 GiB (A6 + A7 = 12.398 GiB). */
static void test_korthikanti_fig1(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8); /* 64 GPUs = 8·8·1 */
    s.training.global_batch = 64;
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.schedule = PE_SCHEDULE_INTERLEAVED;
    p.virtual_stages = 3;
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    p.sequence_parallel = true;
    const pe_result r = fx_eval(&s, &p);
    assert_int_equal(r.status == PE_STATUS_INVALID, 0);
    assert_int_equal(r.microbatches, 64);
    assert_int_equal(r.worst_stage, 0);
    assert_true(r.mem_activations_gib == 12.3515625);
    assert_abs(r.mem_activations_gib, 12.35, 0.005);
    /* other on stage 0 (z = 0: no M4) = A7 = 0.046875 GiB */
    assert_true(r.mem_other_gib == 0.046875);
}

/* Memory worst stage: the larger total; for 1f1b the first stage. */
static void test_worst_stage(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    pe_result r = fx_eval(&s, &p);
    /* 1f1b: k(0) = 8 vs k(7) = 1 → stage 0 */
    assert_int_equal(r.worst_stage, 0);
    /* gpipe: k = m on both; stage 7 carries A8·m (65,011,712·1536 ≈ 93 GiB) > stage 0's A7·m */
    p.schedule = PE_SCHEDULE_GPIPE;
    r = fx_eval(&s, &p);
    assert_int_equal(r.worst_stage, 7);
}

/* Property: with ZeRO-3, more data-parallel GPUs never raise the memory. */
static void test_zero3_more_dp_never_more_memory(void **state)
{
    (void)state;
    const int64_t tps[] = {1, 2, 8}, pps[] = {1, 4, 8};
    const pe_recompute rcs[] = {PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE, PE_RECOMPUTE_FULL};
    const pe_schedule scheds[] = {PE_SCHEDULE_1F1B, PE_SCHEDULE_GPIPE, PE_SCHEDULE_ZB_H2};
    int checked = 0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            for (size_t k = 0; k < 3; k++)
                for (size_t q = 0; q < 3; q++) {
                    double prev = INFINITY;
                    for (int64_t dp = 1; dp <= 512; dp *= 2) {
                        const int64_t gpus = dp * tps[i] * pps[j];
                        if (gpus % 8)
                            continue;
                        pe_scenario s = fx_gpt3(gpus / 8);
                        s.training.global_batch = 1024;
                        pe_plan p = fx_plan(dp, tps[i], pps[j], 1);
                        p.zero = 3;
                        p.recompute = rcs[k];
                        p.schedule = scheds[q];
                        const pe_result r = fx_eval(&s, &p);
                        assert_int_not_equal(r.status, PE_STATUS_INVALID);
                        assert_true(r.mem_total_gib <= prev);
                        prev = r.mem_total_gib;
                        checked++;
                    }
                }
    assert_true(checked > 100);
}

/* §12 M9–M13: a framework that allocates by phase (the torchtitan preset's
 * keys, with a context term and a round fragmentation). */
static pe_scenario fx_phases(void)
{
    pe_scenario s = fx_gpt3(8);
    s.framework.present = true;
    s.framework.memory_by_phase = true;
    s.framework.loss_bytes = 12;
    s.framework.master_weights_only = true;
    s.framework.optimizer_temp_bytes = 4;
    s.framework.allocator_fragmentation = 0.1;
    s.framework.cuda_context_gib = 0.5;
    return s;
}

/* GPT-3 175B, zero 3 over dp 64, p = 1, b = 1 (test_totals_gpt3_zero3's plan):
 *   M1 = 0 (M10: master_weights_only), M2 = 5,468,750,000, M3 = 32,812,500,000
 *   S = 38,281,250,000; A6 = 275,414,777,856; A7 = 2048·12288 = 25,165,824
 *   A8_in = 4·2048·12288 = 100,663,296; A14 = 12·2048·51200 = 1,258,291,200
 *   M4 = 10,857,282,400 = (2·2 + 2)·X, W_f = M4·4/6 = 7,238,188,266.67
 *   kept = S + A6 + A7 + A8_in = 313,821,856,976
 *   forward 321,060,045,242.67; backward kept + M4 = 324,679,139,376;
 *   loss kept + A14 = 315,080,148,176; optimizer S + 4·175e9/64 = 49,218,750,000
 *   peak = backward; reserved = 1.1·peak = 357,147,053,313.6;
 *   total = reserved + 0.5 GiB = 357,683,924,225.6
 *   other = peak − (M2 + M3 + A6) = 10,983,111,520 = M4 + A7 + A8_in */
static void test_phases_hand(void **state)
{
    (void)state;
    pe_scenario s = fx_phases();
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.zero = 3;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.phase[0][PE_PHASE_FORWARD], 321060045242.66667, 1e-13);
    assert_rel(d.phase[0][PE_PHASE_BACKWARD], 324679139376.0, 1e-13);
    assert_rel(d.phase[0][PE_PHASE_LOSS], 315080148176.0, 1e-13);
    assert_rel(d.phase[0][PE_PHASE_OPTIMIZER], 49218750000.0, 1e-13);
    assert_int_equal(r.mem_peak_phase, PE_PHASE_BACKWARD);
    assert_string_equal(pe_mem_phase_name(r.mem_peak_phase), "backward");
    assert_true(r.mem_weights_gib == 0.0);
    assert_rel(r.mem_peak_gib, 324679139376.0 / GIB, 1e-13);
    assert_rel(r.mem_reserved_gib, 357147053313.6 / GIB, 1e-13);
    assert_rel(r.mem_total_gib, 357683924225.6 / GIB, 1e-13);
    assert_rel(r.mem_other_gib, 10983111520.0 / GIB, 1e-11);
    assert_rel(r.mem_reserve_gib, (357683924225.6 - 324679139376.0) / GIB, 1e-12);
    assert_rel(r.mem_headroom_gib, 192.0 - 357683924225.6 / GIB, 1e-13);
    assert_int_equal(r.status, PE_STATUS_OVER_MEMORY);
    /* without the ZeRO-3 working set (zero 1: M4 = 0) backward = kept and the
     * loss, kept + A14, is the peak */
    p.zero = 1;
    fx_eval_detail(&s, &p, &r, &d);
    assert_int_equal(r.mem_peak_phase, PE_PHASE_LOSS);
    /* A15 op-level selective, flash, t = 1, d = 128, g = a = 96, f = 49152,
     * compiled (eager_elementwise false: A22 = 0, no w2 output saved):
     * per token 2h + 0 + 4·96·128 + 2·96·128 + 4·96 + 2·49152
     *         = 24576 + 0 + 49152 + 24576 + 384 + 98304 = 196,992;
     * A_layer = 2048·196,992 = 403,439,616; backward also holds one layer
     * recomputed, A4 with flash: 2048·(10h + 4h + 4h + 16h) = 2048·34·12288
     * = 855,638,016 */
    s.model.attention = PE_ATTENTION_FLASH;
    s.framework.selective_recompute = PE_SELECTIVE_OP;
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.a_layer, 403439616.0, 1e-14);
    assert_rel(d.a_recompute, 855638016.0, 1e-14);
    assert_rel(d.a6[0], 403439616.0 * 96, 1e-14);
    /* A22 eager (eager_elementwise true): SAC's cache keeps w2's output too,
     * 2h = 24,576 a token more: 221,568 a token, A_layer 2048·221,568 =
     * 453,771,264, A6 96 layers of it; the recomputed layer is the same */
    s.framework.eager_elementwise = true;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.a_layer, 453771264.0, 1e-14);
    assert_rel(d.a_recompute, 855638016.0, 1e-14);
    assert_rel(d.a6[0], 453771264.0 * 96, 1e-14);
    assert_rel(act_op_eager_kept(12288.0, 1), 24576.0, 1e-15);
    assert_true(act_op_eager_kept(12288.0, 0) == 0.0);
    /* neutral off op-level SAC: with Megatron's selective the flag moves
     * nothing in memory (A4 with flash as recompute none) */
    s.framework.selective_recompute = PE_SELECTIVE_ATTENTION;
    fx_eval_detail(&s, &p, &r, &d);
    const double eager_a4 = d.a_layer;
    s.framework.eager_elementwise = false;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(d.a_layer == eager_a4);
}

/* A23 (framework cpu_offloading, cpu_offloading_num_layers N; Megatron-Core
 * with Transformer Engine's CPU offload) on GPT-3 175B, p = 1, b = 1,
 * recompute none: A_layer = 2048·(10h + 24h + 5·96·2048)
 *   = 2048·(122,880 + 294,912 + 983,040) = 2048·1,400,832 = 2,868,903,936;
 * N = 16 keeps L' = 96 − 16 + 1 = 81 layers: A6 = 81·2,868,903,936
 *   = 232,381,218,816 (without: 96 layers, 275,414,777,856).
 * Properties: A6 never rises with N (0…95) and the peak never falls with
 * the micro-batch (b 1…4 at N 16); not applied (A6 as without) with pp 2
 * or with recompute, which Megatron-Core refuses with cpu_offloading. */
static void test_a23_offload(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    s.framework.present = true;
    s.framework.cpu_offloading = true;
    s.framework.cpu_offloading_num_layers = 16;
    pe_plan p = fx_plan(64, 1, 1, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.a_layer, 2868903936.0, 1e-14);
    assert_rel(d.a6[0], 232381218816.0, 1e-14);
    assert_rel(act_offload_kept_layers(96.0, 16.0), 81.0, 1e-15);
    assert_true(act_offload_kept_layers(96.0, 0.0) == 96.0);
    double last = INFINITY;
    for (int64_t n = 0; n < 96; n++) {
        s.framework.cpu_offloading_num_layers = n;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.a6[0] <= last);
        if (n == 0)
            assert_rel(d.a6[0], 275414777856.0, 1e-14);
        last = d.a6[0];
    }
    s.framework.cpu_offloading_num_layers = 16;
    double peak = 0.0;
    for (int64_t b = 1; b <= 4; b++) {
        p.micro_batch = b;
        const pe_result rb = fx_eval(&s, &p);
        assert_true(rb.mem_peak_gib >= peak);
        peak = rb.mem_peak_gib;
    }
    p.micro_batch = 1;
    s.framework.cpu_offloading = false;
    fx_eval_detail(&s, &p, &r, &d);
    const double off_none = d.a6[0];
    assert_rel(off_none, 275414777856.0, 1e-14);
    s.framework.cpu_offloading = true;
    p.recompute = PE_RECOMPUTE_SELECTIVE; /* refused by Megatron-Core: A6 as without */
    fx_eval_detail(&s, &p, &r, &d);
    const double sel_on = d.a6[0];
    s.framework.cpu_offloading = false;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(sel_on == d.a6[0]);
    s.framework.cpu_offloading = true;
    p.recompute = PE_RECOMPUTE_NONE;
    p.pp = 2, p.dp = 32; /* refused with pp > 1: A6 as without */
    fx_eval_detail(&s, &p, &r, &d);
    const double pp_on = d.a6[0];
    s.framework.cpu_offloading = false;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(pp_on == d.a6[0]);
}

/* Textbook (no memory_by_phase): peak = M5 − R, reserved = M5, phase sum. */
static void test_phases_neutral(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.zero = 3;
    const pe_result r = fx_eval(&s, &p);
    assert_rel(r.mem_peak_gib, 341304738016.0 / GIB - 10.0, 1e-13);
    assert_true(r.mem_reserved_gib == r.mem_total_gib);
    assert_int_equal(r.mem_peak_phase, PE_PHASE_SUM);
    assert_string_equal(pe_mem_phase_name(r.mem_peak_phase), "sum");
}

/* A19 (framework recompute_modules layernorm mla_up_proj moe_act, docs/model.md
 * §12) on DeepSeek-V3, h 7168, a 128, f 18432, MLA q 1536 kv 512 rope 64
 * v 128, experts f_e 2048 top-8, 1 shared; β_c = 1, β_ao = 1.5:
 *   rep = 4·7168 + 2·1536 + 2·(512 + 64) = 28,672 + 3,072 + 1,152 = 32,896
 *   attention = 1.5·128·128 + 4·128 = 24,576 + 512 = 25,088
 *   dense MLP = 4·18432 + 1·18432 = 92,160; dense par = 117,248
 *   expert copy inner = 2·1·2048 = 4,096; shared 1·4,096
 *   routed per token = 8·(1·7168 + 4,096) = 90,112
 *   dense A4 = 4096·(32,896 + 117,248) = 4096·150,144 = 614,989,824
 *   MoE A4′ = 4096·(32,896 + 25,088 + 8·256 + 4,096) + 4096·90,112
 *           = 4096·(64,128 + 90,112) = 4096·154,240 = 631,767,040
 * Neutral: the default recompute_modules (core_attn) and recompute none give
 * what no framework gives. */
static void test_a19_hand(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(256);
    s.model = fx_deepseek_v3();
    s.training.global_batch = 4096;
    const pe_model *m = &s.model;
    assert_true(act_modules_rep(m) == 32896.0);
    assert_true(act_modules_par_attention(m, 1.5) == 25088.0);
    assert_true(act_modules_mlp_dense(m, 1.0) == 92160.0);
    assert_true(act_modules_expert_inner(1.0, 2048.0) == 4096.0);
    pe_plan p = fx_plan(2048, 1, 1, 1);
    p.ep = 64, p.etp = 1;
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    pe_result base, r;
    pe_detail d0, d;
    fx_eval_detail(&s, &p, &base, &d0);
    s.framework.present = true; /* core_attn, the default: neutral */
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(r.mem_total_gib == base.mem_total_gib && d.moe.a_layer_m == d0.moe.a_layer_m);
    s.framework.recompute_modules = PE_RECOMPUTE_MODULES_NORM_MLA_MOE_ACT;
    s.framework.cached_input_bytes = 2.0, s.framework.attention_output_bytes = 2.0;
    fx_eval_detail(&s, &p, &r, &d);
    /* recomputing more keeps less, even at BF16 */
    assert_true(d.a_layer < d0.a_layer && d.moe.a_layer_m < d0.moe.a_layer_m);
    s.framework.cached_input_bytes = 1.0, s.framework.attention_output_bytes = 1.5;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.a_layer, 614989824.0, 1e-15);
    assert_rel(d.moe.a_routed, 4096.0 * 90112.0, 1e-15);
    assert_rel(d.moe.a_layer_m, 631767040.0, 1e-15);
    p.recompute = PE_RECOMPUTE_NONE; /* A19 is what selective keeps: none is A4 */
    pe_result rn, rn0;
    fx_eval_detail(&s, &p, &rn, &d);
    s.framework.present = false;
    fx_eval_detail(&s, &p, &rn0, &d0);
    assert_true(rn.mem_total_gib == rn0.mem_total_gib && d.a_layer == d0.a_layer);
}

/* Properties under the phase model (§12): the peak is at least every
 * phase's live set; more GPUs under ZeRO-3 never raise memory; more
 * recompute never raises the stored activations; a larger micro-batch never
 * lowers the peak. Over a grid of plans, op-level selective too. */
static void test_phases_properties(void **state)
{
    (void)state;
    pe_scenario s = fx_phases();
    s.model.attention = PE_ATTENTION_FLASH;
    s.framework.pp_unsharded_params = true;
    int checked = 0;
    for (int op = 0; op < 2; op++) {
        s.framework.selective_recompute = op ? PE_SELECTIVE_OP : PE_SELECTIVE_ATTENTION;
        for (int64_t pp = 1; pp <= 4; pp *= 2)
            for (int64_t b = 1; b <= 4; b *= 2) {
                double prev_dp = INFINITY;
                for (int64_t dp = 8; dp <= 32; dp *= 2) {
                    s.cluster.nodes = dp * pp / 8, s.cluster.inter_node.present = true;
                    double prev_rc = INFINITY;
                    for (int rc = 0; rc < 3; rc++) {
                        pe_plan p = fx_plan(dp, 1, pp, 1);
                        p.zero = 3, p.micro_batch = b, p.recompute = (pe_recompute)rc;
                        s.training.global_batch = 256;
                        pe_result r;
                        pe_detail d;
                        fx_eval_detail(&s, &p, &r, &d);
                        assert_int_not_equal(r.status, PE_STATUS_INVALID);
                        for (int i = 0; i < d.stages; i++)
                            for (int k = 1; k < PE_PHASE_COUNT; k++)
                                assert_true(d.peak[i] >= d.phase[i][k]);
                        assert_true(r.mem_activations_gib <= prev_rc);
                        prev_rc = r.mem_activations_gib;
                        if (rc == 0) {
                            assert_true(r.mem_total_gib <= prev_dp * (1 + 1e-12));
                            prev_dp = r.mem_total_gib;
                        }
                        pe_plan p2 = p;
                        p2.micro_batch = 2 * b;
                        const pe_result r2 = fx_eval(&s, &p2);
                        assert_true(r2.mem_peak_gib >= r.mem_peak_gib);
                        checked++;
                    }
                }
            }
    }
    assert_true(checked == 2 * 3 * 3 * 3 * 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_activation_components),
        cmocka_unit_test(test_activation_layer),
        cmocka_unit_test(test_full_recompute),
        cmocka_unit_test(test_inflight),
        cmocka_unit_test(test_first_last_extras),
        cmocka_unit_test(test_zero_table1),
        cmocka_unit_test(test_zero3_working_set),
        cmocka_unit_test(test_totals_gpt3_zero3),
        cmocka_unit_test(test_diagnostics),
        cmocka_unit_test(test_korthikanti_fig1),
        cmocka_unit_test(test_worst_stage),
        cmocka_unit_test(test_zero3_more_dp_never_more_memory),
        cmocka_unit_test(test_phases_hand),
        cmocka_unit_test(test_a23_offload),
        cmocka_unit_test(test_phases_neutral),
        cmocka_unit_test(test_phases_properties),
        cmocka_unit_test(test_a19_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
