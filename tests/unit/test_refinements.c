/* test_refinements.c — docs/model.md §12 refinements against hand arithmetic
 * (F7–F11, C8, C9, X6–X8), their neutrality (v1 exactly), fidelity:
 * textbook, and the refined model's monotonicity: more bandwidth or
 * efficiency never slows a plan, a larger GEMM never has a lower
 * efficiency, overlap never slows a plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"
#include "model/compute.h"
#include "model/detail.h"
#include "model/pipeline.h"

/* F7 GPT-3 175B: QKV h × 3h, projection h × h, MLP in h × 4h, out 4h × h;
 * Σ K·N = 3h² + h² + 4h² + 4h² = 12h² = N_mm (P1) = 1,811,939,328. */
static void test_f7_shapes(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_gemm_shape g[PE_LAYER_GEMMS];
    compute_layer_gemms(&s.model, g);
    const double h = 12288;
    assert_true(g[0].K == h && g[0].N == 3 * h && !g[0].k_sharded);
    assert_true(g[1].K == h && g[1].N == h && g[1].k_sharded);
    assert_true(g[2].K == h && g[2].N == 4 * h && !g[2].k_sharded);
    assert_true(g[3].K == 4 * h && g[3].N == h && g[3].k_sharded);
    double sum = 0;
    for (int i = 0; i < PE_LAYER_GEMMS; i++)
        sum += g[i].K * g[i].N;
    assert_true(sum == 1811939328.0);
    /* swiglu: MLP in carries both gate and up, 2f wide */
    s.model.mlp = PE_MLP_SWIGLU;
    compute_layer_gemms(&s.model, g);
    assert_true(g[2].N == 8 * h);
}

/* F8 M = K = N = 1024: F = 2·1024³ = 2,147,483,648 FLOP; at peak·e_max =
 * 1e12 and t_half = 1e-3 s: 2.147483648e-3 + 1e-3 = 3.147483648e-3 s;
 * memory 2·3·1024²/2e12 = 3.145728e-6 s, so compute bound. With M = 1:
 * F = 2·1024² = 2,097,152 → 2.097152e-6 + 0 s at t_half 0; bytes
 * 2·(1024 + 1024² + 1024) = 2,101,248 over 2e12 = 1.050624e-6 s: still
 * compute; over W = 1e11: 2.101248e-5 s, memory bound. */
static void test_f8_gemm_time(void **state)
{
    (void)state;
    assert_rel(compute_gemm_time(1024, 1024, 1024, 1e12, 1e-3, 2e12), 3.147483648e-3, 1e-15);
    assert_rel(compute_gemm_time(1, 1024, 1024, 1e12, 0, 2e12), 2.097152e-6, 1e-15);
    assert_rel(compute_gemm_time(1, 1024, 1024, 1e12, 0, 1e11), 2.101248e-5, 1e-15);
    /* e(F) = e_max·F/(F + F_half): F = F_half gives half of e_max. With
     * e_max = 0.5, peak 2e12 (rate 1e12) and F_half = 2^31 FLOP (t_half =
     * 2.147483648e-3 s): τ = 2·2^31/1e12, e = F/(peak·τ) = 0.25. */
    const double tau = compute_gemm_time(1024, 1024, 1024, 1e12, 2.147483648e-3, 1e15);
    assert_rel(2147483648.0 / (2e12 * tau), 0.25, 1e-15);
    /* the evaluator's coefficient form gives the same time for the per-GPU
     * shape: QKV-like 4096 × 12288 × (36864/t), row-parallel (12288/t) × 12288 */
    const pe_gemm_shape col = {12288, 36864, 0}, row = {12288, 12288, 1};
    for (double t = 1; t <= 8; t *= 2) {
        const pe_gemm_coef cc = compute_gemm_coef(&col, 1e14, 2e12), rc = compute_gemm_coef(&row, 1e14, 2e12);
        assert_rel(compute_gemm_time_coef(&cc, 4096, 1 / t, 1e-4),
                   compute_gemm_time(4096, 12288, 36864 / t, 1e14, 1e-4, 2e12), 1e-12);
        assert_rel(compute_gemm_time_coef(&rc, 4096, 1 / t, 1e-4),
                   compute_gemm_time(4096, 12288 / t, 12288, 1e14, 1e-4, 2e12), 1e-12);
        assert_rel(compute_gemm_time_coef(&rc, 1, 1 / t, 0), /* memory bound: M = 1 */
                   compute_gemm_time(1, 12288 / t, 12288, 1e14, 0, 2e12), 1e-12);
    }
}

/* Property: a larger GEMM never has a lower efficiency F/(peak·τ), in any
 * dimension, with F_half and the roofline both active. */
static void test_f8_monotone(void **state)
{
    (void)state;
    const double rate = 0.7 * 312e12, t_half = 5e9 / rate, W = 2.039e12;
    for (double M = 1; M <= 65536; M *= 2)
        for (double K = 64; K <= 32768; K *= 4)
            for (double N = 64; N <= 32768; N *= 4) {
                const double e = 2 * M * K * N / compute_gemm_time(M, K, N, rate, t_half, W);
                const double eM = 4 * M * K * N / compute_gemm_time(2 * M, K, N, rate, t_half, W);
                const double eK = 4 * M * K * N / compute_gemm_time(M, 2 * K, N, rate, t_half, W);
                const double eN = 4 * M * K * N / compute_gemm_time(M, K, 2 * N, rate, t_half, W);
                assert_true(eM >= e * (1 - 1e-12) && eK >= e * (1 - 1e-12) &&
                            eN >= e * (1 - 1e-12));
            }
}

/* F10 GPT-3 (gelu, dropout, learned positions, standard attention):
 * rep = 8h + 2·(6 + 1)·h = 22h = 270,336; par = 4f = 16h = 196,608;
 * att = (4 + 5)·a·s = 9·96·2048 = 1,769,472; out = 12·V = 614,400. Flash
 * attention: att = 0; rotary adds 4·(h + g·d) = 8h = 98,304 to par. */
static void test_f10_bytes(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    double rep, par, att, out;
    compute_elementwise_bytes(&s.model, &rep, &par, &att, &out);
    assert_true(rep == 270336.0 && par == 196608.0 && att == 1769472.0 && out == 614400.0);
    s.model.attention = PE_ATTENTION_FLASH;
    s.model.position = PE_POSITION_ROTARY;
    compute_elementwise_bytes(&s.model, &rep, &par, &att, &out);
    assert_true(att == 0.0 && par == 196608.0 + 98304.0);
    assert_true(compute_elementwise_time(1e9, 0.0) == 0.0); /* η_W = 0: untimed */
    assert_rel(compute_elementwise_time(1e9, 2e12), 5e-4, 1e-15);
}

/* The refined compute of one plan, by hand. GPT-3 on 8 MI300X nodes (peak
 * 1307.4 TFLOP/s, W 5.3 TB/s), tp 8, pp 8, dp 1, b 1, sp on, recompute
 * none, m = 1536; e_max 0.5 (rate 653.7e12), F_half 0, e_att 0.25 (rate
 * 326.85e12), η_W 0.5 (2.65e12), t_mb 30 µs. M = 2048 tokens.
 * GEMMs per layer: F = 2·2048·12h²/8 = 2048·3h² = 927,712,935,936 FLOP
 * → 1.419172...e-3 s (compute bound). Core: 2048·4·2048·12288/8 /
 * 326.85e12 = 2.5769803776e10/326.85e12 = 7.884291...e-5 s. Element-wise:
 * 2048·(270336 + 196608 + 1769472)/8 = 572,522,496 bytes / 2.65e12 =
 * 2.16046...e-4 s. τ_lf = sum; τ_lb = 2·τ_lf. */
static void test_refined_plan(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5;
    g->has_attention_efficiency = true, g->attention_efficiency = 0.25;
    g->elementwise_efficiency = 0.5, g->microbatch_overhead_us = 30;
    const pe_plan p = fx_plan(1, 8, 8, 1);
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    const double gemm = 927712935936.0 / 653.7e12;
    const double core = 25769803776.0 / 326.85e12;
    const double ew = 572522496.0 / 2.65e12;
    assert_rel(d.tau_gemm, gemm, 1e-12);
    assert_rel(d.tau_core, core, 1e-12);
    assert_rel(d.tau_ew, ew, 1e-12);
    assert_rel(d.tau_lf, gemm + core + ew, 1e-12);
    assert_rel(d.tau_lb, 2 * (gemm + core + ew), 1e-12);
    /* stage 0 (not last): (L/p)·τ_lf + t_mb/3 = 12·τ_lf + 1e-5 */
    assert_rel(d.tau_f[0], 12 * (gemm + core + ew) + 1e-5, 1e-12);
    assert_rel(d.tau_b[0], 24 * (gemm + core + ew) + 2e-5, 1e-12);
    /* compute_s of the report is m·(τ_f + τ_b) of the time stage */
    assert_rel(r.compute_s, 1536 * (d.tau_f[d.time_stage] + d.tau_b[d.time_stage]), 1e-12);
}

/* C8 reduce-scatter over 16 ranks at stride 1 on 2 nodes of the MI300X
 * mesh (B_in = 7·64 GB/s), S = 1 GB, η_max 0.8 inside and 0.5 across,
 * S_half 1 MB and 2 MB: intra 7/8·(1e9 + 1e6)/(448e9·0.8) + 7·2e-6
 * = 7/8·1.001e9/358.4e9 + 1.4e-5 = 2.443917...e-3 + 1.4e-5; inter
 * 1/2·(1e9/8 + 2e6)/(50e9·0.5) + 5e-6 = 0.5·1.27e8/25e9 + 5e-6 =
 * 2.54e-3 + 5e-6. C9 flat: 15/16·(1e9 + 2e6)/min(358.4e9, 8·25e9)
 * + 15·5e-6 = 0.9375·1.002e9/200e9 + 7.5e-5 = 4.696875e-3 + 7.5e-5. */
static void test_c8_c9(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(2);
    s.cluster.intra_node.bus_efficiency = 0.8, s.cluster.intra_node.half_message_mb = 1;
    s.cluster.inter_node.bus_efficiency = 0.5, s.cluster.inter_node.half_message_mb = 2;
    const pe_net net = comm_net(&s.cluster);
    const pe_group g = comm_group(&net, 16, 1);
    const double intra = 7.0 / 8.0 * 1.001e9 / 358.4e9 + 7 * 2e-6;
    const double inter = 0.5 * 1.27e8 / 25e9 + 5e-6;
    assert_rel(comm_reduce_scatter(&net, &g, 1e9), intra + inter, 1e-12);
    assert_rel(comm_reduce_scatter_flat(&net, &g, 1e9), 0.9375 * 1.002e9 / 200e9 + 7.5e-5, 1e-12);
    /* inside one node the flat ring is C4 */
    const pe_group g8 = comm_group(&net, 8, 1);
    assert_true(comm_reduce_scatter_flat(&net, &g8, 1e9) == comm_reduce_scatter(&net, &g8, 1e9));
    /* p2p across nodes: α_out + (S + S_half)/(B_out·η) = 5e-6 + 1.002e9/25e9 */
    const pe_group gp = comm_group(&net, 2, 8);
    assert_rel(comm_p2p(&net, &gp, 1e9), 5e-6 + 1.002e9 / 25e9, 1e-12);
}

/* C10 tree all-reduce over 16 ranks on 2 nodes of the MI300X mesh, 1 GB,
 * neutral C8: chain 7/8·1e9/448e9 + 7·2e-6 = 1.953125e-3 + 1.4e-5; tree
 * 1e9/(8·50e9) + ⌈log2 2⌉·5e-6 = 2.5e-3 + 5e-6; twice the sum =
 * 2·4.472125e-3 = 8.94425e-3. The ring (C5): 2·(1.967125e-3 + 1/2·1.25e8/50e9
 * + 5e-6) = 2·(1.967125e-3 + 1.25e-3 + 5e-6) = 6.44425e-3: faster here
 * (two nodes). Over 64 nodes at 1 MB the tree wins on latency. */
static void test_c10_tree(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(2);
    const pe_net net = comm_net(&s.cluster);
    const pe_group g = comm_group(&net, 16, 1);
    assert_rel(comm_all_reduce_tree(&net, &g, 1e9), 8.94425e-3, 1e-12);
    assert_rel(comm_all_reduce(&net, &g, 1e9), 6.44425e-3, 1e-12);
    s = fx_gpt3(64);
    const pe_net big = comm_net(&s.cluster);
    const pe_group g64 = comm_group(&big, 64, 8); /* one rank per node */
    /* ring 2·(63/64·1e6/50e9 + 63·5e-6) = 6.69375e-4; tree 2·(1e6/50e9 + 6·5e-6) = 1e-4 */
    assert_rel(comm_all_reduce(&big, &g64, 1e6), 6.69375e-4, 1e-12);
    assert_rel(comm_all_reduce_tree(&big, &g64, 1e6), 1e-4, 1e-12);
}

/* X7: z = 0, T_rs = 0.5 (T_ar = 1), overlap 1, τ_b = 2: X4 hides it all;
 * a bucket of a quarter leaves 0.25 exposed: max(0, 0.25·1 − 0) = 0.25.
 * τ_b = 0.9: X4 exposes 0.1, the bucket adds max(0, 0.25 − 0.1) = 0.15.
 * z = 1: T = T_rs = 0.5, τ_b = 2: 0.125. z ≥ 2: 0. X8: exposed 0.1 of
 * comm 1 with φ 0.2: 0.1 + 0.2·0.9 = 0.28. */
static void test_x7_x8(void **state)
{
    (void)state;
    assert_true(comm_dp_last_bucket(0, 0.5, 1.0, 2.0, 0.25) == 0.25);
    assert_rel(comm_dp_last_bucket(0, 0.5, 1.0, 0.9, 0.25), 0.15, 1e-12);
    assert_true(comm_dp_last_bucket(1, 0.5, 1.0, 2.0, 0.25) == 0.125);
    assert_true(comm_dp_last_bucket(2, 0.5, 1.0, 2.0, 0.25) == 0.0);
    assert_true(comm_dp_last_bucket(0, 0.5, 1.0, 2.0, 0.0) == 0.0);
    assert_rel(comm_slowed(0.1, 1.0, 0.2), 0.28, 1e-15);
    assert_true(comm_slowed(0.1, 1.0, 0.0) == 0.1);
}

/* X6: Megatron scatter/gather. GPT-3, 16 nodes, tp 8, pp 16, dp 1, sp off:
 * a pipeline hop crosses nodes with S_pp/t = 2·2048·12288/8 = 6,291,456
 * bytes: 5e-6 + 6291456/50e9 = 1.3082912e-4 s, then the tp all-gather of
 * S_pp = 50,331,648 bytes over the mesh: 7/8·S/448e9 + 7·2e-6. */
static void test_x6(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(16);
    s.framework.present = true;
    s.framework.pp_scatter_gather = true;
    pe_plan p = fx_plan(1, 8, 16, 1);
    p.sequence_parallel = false;
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_true(d.pp_hop_bytes == 6291456.0);
    assert_rel(d.t_p2p_pp, 5e-6 + 6291456.0 / 50e9 + 7.0 / 8.0 * 50331648.0 / 448e9 + 14e-6, 1e-12);
    p.sequence_parallel = true; /* with sp the hop is already S/t: no scatter/gather */
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(d.t_p2p_pp, 5e-6 + 6291456.0 / 50e9, 1e-12);
}

/* Every plan of a small grid, evaluated with the scenario as given and
 * with f applied to a copy: f must never make a plan slower. */
typedef void (*tweak_fn)(pe_scenario *s, pe_plan *p);
static void never_slower(const pe_scenario *base, tweak_fn f)
{
    static const int64_t tps[] = {1, 2, 8}, pps[] = {1, 4, 16};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            for (int z = 0; z <= 3; z++)
                for (int rc = 0; rc <= 2; rc++) {
                    pe_plan p = fx_plan(128 / (tps[i] * pps[j]), tps[i], pps[j], 1);
                    p.zero = z, p.recompute = (pe_recompute)rc;
                    p.overlap = (pe_overlap){0.5, 0.5, 0.5, 0.5, 0};
                    pe_scenario t = *base;
                    pe_plan q = p;
                    f(&t, &q);
                    const pe_result a = fx_eval(base, &p), b = fx_eval(&t, &q);
                    if (a.status == PE_STATUS_INVALID)
                        continue;
                    assert_true(b.step_time_s <= a.step_time_s * (1 + 1e-12));
                }
}

/* X13 per layer: T_ar 1, windows 0.4 (QKV) and 1.5 (MLP in), no sp, no
 * recompute: max(0, 1 − 0.4) + max(0, 1 − 1.5) = 0.6; sp and full
 * recompute, windows 0.2 and 0.6: 2 (recomputed forward) + 1 (the two
 * all-gathers, T_ar/2 each) + max(0, 0.5 − 0.2) + max(0, 0.5 − 0.6) = 3.3;
 * never above X1's (2 + 2·full)·T_ar, even with no window at all. */
static void test_x13_async_backward(void **state)
{
    (void)state;
    assert_rel(comm_tp_bwd_async(1.0, 0, 0, 0.4, 1.5, 0.0), 0.6, 1e-15);
    assert_rel(comm_tp_bwd_async(1.0, 1, 1, 0.2, 0.6, 0.0), 3.3, 1e-15);
    for (int sp = 0; sp <= 1; sp++)
        for (int full = 0; full <= 1; full++)
            assert_true(comm_tp_bwd_async(1.0, sp, full, 0.0, 0.0, 0.0) <= 2.0 + 2.0 * full);
    assert_rel(comm_tp_bwd_exposed(12, 0.6, 0.5, 1.0), 12 * 0.1, 1e-15);
    /* X15 inside X13, s = 0.25 (s/(1 + s) = 0.2), the same windows: no sp,
     * max(1 − 0.4, 0.2·1) + max(1 − 1.5, 0.2·1) = 0.6 + 0.2 = 0.8 (the
     * all-reduce MLP in's GEMM hid now ends 0.2 late); sp and full: 2 + 1
     * (recomputed forward and all-gathers, blocking: not slowed) +
     * max(0.5 − 0.2, 0.2·0.5) + max(0.5 − 0.6, 0.2·0.5) = 3 + 0.3 + 0.1 =
     * 3.4, where X15 on the sum, max(3.3, 0.2·4), would leave 3.3. */
    assert_rel(comm_tp_bwd_async(1.0, 0, 0, 0.4, 1.5, 0.2), 0.8, 1e-15);
    assert_rel(comm_tp_bwd_async(1.0, 1, 1, 0.2, 0.6, 0.2), 3.4, 1e-15);
    for (int sp = 0; sp <= 1; sp++)
        for (int full = 0; full <= 1; full++)
            for (double c = 0.0; c <= 0.5; c += 0.1) { /* more contention never less exposed */
                assert_true(comm_tp_bwd_async(1.0, sp, full, 0.3, 2.0, c + 0.1) >=
                            comm_tp_bwd_async(1.0, sp, full, 0.3, 2.0, c));
                assert_true(comm_tp_bwd_async(1.0, sp, full, 5.0, 5.0, c) <= 2.0 + 2.0 * full);
            }

    /* GPT-3 on 8 nodes, t 8, p 8, sp on, F6 rate 653.7e12 (no
     * gemm_efficiency), links slowed to 4 GB/s: T_ar = 2·(7/8·50331648/28e9
     * + 7·2e-6) = 3.173728e-3; QKV's weight gradient 2·2048·12288·4608 =
     * 231928233984 FLOP / 653.7e12 = 3.547931e-4 s, MLP in's 309237645312 /
     * 653.7e12 = 4.730574e-4 s; E_b = T_ar + (T_ar/2 − 3.547931e-4) +
     * (T_ar/2 − 4.730574e-4) = 2·T_ar − 8.278505e-4 = 5.5196055e-3 per
     * layer, against X1's 2·T_ar = 6.347456e-3. */
    pe_scenario s = fx_gpt3(8);
    s.cluster.intra_node.link_gb_s = 4;
    s.framework = (pe_framework){.present = true, .tp_async_backward = true};
    const pe_plan p = fx_plan(1, 8, 8, 1);
    pe_eval_ctx ctx;
    pe_result r, r1;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(d.t_ar_tp, 3.173728e-3, 1e-12);
    assert_rel(d.gemm_t[0], 231928233984.0 / 653.7e12, 1e-12);
    assert_rel(d.gemm_t[2], 309237645312.0 / 653.7e12, 1e-12);
    assert_rel(d.tp_bwd_layer, 2 * 3.173728e-3 - (231928233984.0 + 309237645312.0) / 653.7e12,
               1e-12);
    assert_rel(d.chi_tp_b, 12 * d.tp_bwd_layer, 1e-12); /* overlap.tp 0, L/p = 12 */
    s.framework.tp_async_backward = false;
    r1 = fx_eval(&s, &p);
    assert_rel(r1.tp_comm_s - r.tp_comm_s,
               1536.0 * 12 * (2 * 3.173728e-3 - d.tp_bwd_layer), 1e-9);
    /* compute: fp8 without gemm_efficiency (F16): the linear layers, their
     * weight gradients included, run at peak_fp8·e = 2614.8e12·0.5 =
     * 1307.4e12, so QKV's window is 231928233984 / 1307.4e12 = 1.773966e-4 s */
    s.framework.tp_async_backward = true;
    s.precision.compute = PE_COMPUTE_FP8, s.cluster.gpu.peak_fp8_tflops = 2614.8;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(d.gemm_t[0], 231928233984.0 / 1307.4e12, 1e-12);
    assert_rel(d.gemm_t[2], 309237645312.0 / 1307.4e12, 1e-12);
}

/* F21 and X14 on the refined plan of test_refined_plan (W·η_W = 5.3e12·0.5
 * = 2.65e12 bytes/s): 10 bytes per parameter each micro-batch adds
 * N_gpu·10/2.65e12 to τ_b of each stage; the optimizer step of 46 bytes
 * per parameter is N_gpu·46/2.65e12 (z = 0: the whole stage). */
static void test_f21_x14(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5, g->elementwise_efficiency = 0.5;
    pe_plan p = fx_plan(1, 8, 8, 1);
    const pe_result base = fx_eval(&s, &p);
    s.framework = (pe_framework){.present = true, .grad_accum_bytes = 10,
                                 .optimizer_pass_bytes = 46};
    pe_eval_ctx ctx;
    pe_result r;
    pe_detail d;
    evaluate_prepare(&s, &ctx);
    evaluate_plan_detail(&ctx, &p, &r, &d);
    const int ts = d.time_stage;
    assert_rel(d.t_accum[0], d.n_gpu[0] * 10 / 2.65e12, 1e-12);
    assert_rel(d.t_accum[1], d.n_gpu[1] * 10 / 2.65e12, 1e-12);
    assert_rel(r.compute_s - base.compute_s, 1536.0 * d.t_accum[ts], 1e-9);
    assert_rel(r.optimizer_s, d.n_gpu[ts] * 46 / 2.65e12, 1e-12);
    /* z = 2: gradients reduce-scattered every micro-batch, the accumulation
     * and the step run on the shard of D = dp = 8 */
    p = fx_plan(8, 8, 1, 1), p.zero = 2;
    evaluate_plan_detail(&ctx, &p, &r, &d);
    assert_rel(d.t_accum[0], d.n_gpu[0] / 8 * 10 / 2.65e12, 1e-12);
    assert_rel(r.optimizer_s, d.n_gpu[0] / 8 * 46 / 2.65e12, 1e-12);
}

/* B5 by hand: the other stages 1 + 2 (forward) and 3 + 4 (backward) → 1f1b
 * and gpipe 3 + 7 = 10, interleaved v 2: 5, zb-h1 the forwards: 3, zb-h2 0.
 * On GPT-3 (96 layers), t 8, p 8, the last stage carries the output layer
 * and is the slowest; the six middle stages equal stage 0, so the bubble is
 * 7·(t_f + t_b) of stage 0 where B1 counts 7 of stage 7, /v interleaved,
 * 7·t_f zb-h1. With first_stage_layers 18 at p 4 (stages of 18, 26, 26,
 * 26 layers) the middle candidate [2] stands for both middle stages:
 * t(0) + 2·t(mid). The step shortens by exactly what the bubble loses. */
static void test_b5_bubble_by_stage(void **state)
{
    (void)state;
    assert_rel(pipe_bubble_by_stage(PE_SCHEDULE_1F1B, 1, 1 + 2, 3 + 4), 10, 1e-15);
    assert_rel(pipe_bubble_by_stage(PE_SCHEDULE_GPIPE, 1, 3, 7), 10, 1e-15);
    assert_rel(pipe_bubble_by_stage(PE_SCHEDULE_INTERLEAVED, 2, 3, 7), 5, 1e-15);
    assert_rel(pipe_bubble_by_stage(PE_SCHEDULE_ZB_H1, 1, 3, 7), 3, 1e-15);
    assert_true(pipe_bubble_by_stage(PE_SCHEDULE_ZB_H2, 1, 3, 7) == 0.0);
    pe_scenario s = fx_gpt3(8);
    s.framework = (pe_framework){.present = true, .bubble_by_stage = true};
    pe_scenario off = s;
    off.framework.bubble_by_stage = false;
    static const pe_schedule sched[] = {PE_SCHEDULE_1F1B, PE_SCHEDULE_INTERLEAVED,
                                        PE_SCHEDULE_ZB_H1, PE_SCHEDULE_ZB_H2};
    for (size_t i = 0; i < 4; i++) {
        pe_plan p = fx_plan(1, 8, 8, 1);
        p.schedule = sched[i], p.virtual_stages = sched[i] == PE_SCHEDULE_INTERLEAVED ? 2 : 1;
        pe_result r;
        pe_detail d;
        fx_eval_detail(&s, &p, &r, &d);
        assert_int_equal(d.time_stage, 1);
        const double t0 = d.t_f[0] + d.t_b[0], t7 = d.t_f[1] + d.t_b[1];
        assert_true(t7 > t0);
        const double b5 = sched[i] == PE_SCHEDULE_1F1B          ? 7 * t0
                          : sched[i] == PE_SCHEDULE_INTERLEAVED ? 7 * t0 / 2
                          : sched[i] == PE_SCHEDULE_ZB_H1       ? 7 * d.t_f[0]
                                                                : 0.0;
        assert_rel(d.others_f, 7 * d.t_f[0], 1e-12);
        assert_rel(d.others_b, 7 * d.t_b[0], 1e-12);
        if (b5 > 0.0)
            assert_rel(r.bubble_s, b5, 1e-12);
        else
            assert_true(r.bubble_s == 0.0);
        const pe_result r_off = fx_eval(&off, &p);
        assert_rel(r_off.bubble_s, d.bubble_uniform, 1e-15);
        assert_rel(r_off.step_time_s - r.step_time_s, r_off.bubble_s - r.bubble_s, 1e-9);
        if (sched[i] == PE_SCHEDULE_1F1B)
            assert_rel(r_off.bubble_s, 7 * t7, 1e-12);
    }
    pe_plan u = fx_plan(2, 8, 4, 1);
    u.first_stage_layers = 18;
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &u, &r, &d);
    assert_int_equal(d.stages, 3);
    assert_int_equal(d.time_stage, 1);
    assert_rel(r.bubble_s, d.t_f[0] + d.t_b[0] + 2 * (d.t_f[2] + d.t_b[2]), 1e-12);
    assert_true(r.bubble_s < d.bubble_uniform);
}

static pe_scenario refined_gpt3(void)
{
    pe_scenario s = fx_gpt3(16);
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.6, g->gemm_half_gflop = 2;
    g->has_attention_efficiency = true, g->attention_efficiency = 0.4;
    g->elementwise_efficiency = 0.6, g->microbatch_overhead_us = 20;
    s.cluster.intra_node.bus_efficiency = 0.8, s.cluster.intra_node.half_message_mb = 1;
    s.cluster.inter_node.bus_efficiency = 0.7, s.cluster.inter_node.half_message_mb = 4;
    s.framework = (pe_framework){.present = true, .pp_scatter_gather = true,
                                 .dp_algorithm = PE_DP_FLAT, .dp_bucket_mb = 100,
                                 .allreduce = PE_ALLREDUCE_AUTO,
                                 .comm_slowdown = 0.2, .bubble_by_stage = true};
    return s;
}

/* The plan tests' recompute loop index: 0 none, 1 selective, 2 full. */
static pe_recompute recompute_of(int rc)
{
    return rc == 0 ? PE_RECOMPUTE_NONE : rc == 1 ? PE_RECOMPUTE_SELECTIVE : PE_RECOMPUTE_FULL;
}

/* GPT-3 at dp 16, t 8 (sp on) under recompute rc: the plan tests' plan. */
static pe_plan tp8_plan(pe_recompute rc)
{
    pe_plan p = fx_plan(16, 8, 1, 1);
    p.recompute = rc;
    return p;
}

/* refined_gpt3 under torchtitan's op-level selective checkpointing:
 * F25's phase memory and the op policy (X21). */
static pe_scenario op_sac_gpt3(void)
{
    pe_scenario s = refined_gpt3();
    s.framework.memory_by_phase = true, s.framework.selective_recompute = PE_SELECTIVE_OP;
    return s;
}

/* refined_gpt3 under torchtitan's TP terms: X15's overlap slowdown 0.189
 * alone, X16's micro-pipeline, X28's copies, F25's phase memory and X21's
 * op-level selective recompute (the X28, X24, F34 and X32 scenario). */
static pe_scenario async_tp_gpt3(void)
{
    pe_scenario s = op_sac_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0.189;
    s.framework.tp_micro_pipeline = true, s.framework.tp_seq_dim_copy = true;
    return s;
}

/* Plan p under a key on and off: both results and detail records. */
typedef struct {
    pe_result on, off;
    pe_detail d, dof;
} on_off_eval;

static on_off_eval eval_on_off(const pe_scenario *on, const pe_scenario *off, const pe_plan *p)
{
    on_off_eval e;
    fx_eval_detail(on, p, &e.on, &e.d);
    fx_eval_detail(off, p, &e.off, &e.dof);
    return e;
}

/* A TP key's plan p key on and off under plain TP (p's overlap.tp, 0),
 * async TP (overlap.tp 1) and async TP without sequence parallelism. */
typedef struct {
    on_off_eval plain, async, no_sp;
} tp_key_evals;

static tp_key_evals eval_tp_key(const pe_scenario *on, const pe_scenario *off, pe_plan p)
{
    tp_key_evals e;
    e.plain = eval_on_off(on, off, &p);
    p.overlap.tp = 1;
    e.async = eval_on_off(on, off, &p);
    p.sequence_parallel = false;
    e.no_sp = eval_on_off(on, off, &p);
    return e;
}

/* A TP key that acts only under async TP: plain TP and sp off are bit for
 * bit the key off (and the key's own term there, plain_term and
 * no_sp_term, is 0); under async TP the key never speeds a plan and async
 * TP stays no slower than plain TP. */
static void assert_async_tp_only(const tp_key_evals *e, double plain_term, double no_sp_term)
{
    assert_true(e->plain.on.step_time_s == e->plain.off.step_time_s && plain_term == 0.0);
    assert_true(e->async.on.step_time_s > e->async.off.step_time_s &&
                e->async.on.step_time_s <= e->plain.on.step_time_s);
    assert_true(e->no_sp.on.step_time_s == e->no_sp.off.step_time_s && no_sp_term == 0.0);
}

static void more_bandwidth(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->cluster.intra_node.link_gb_s *= 1.5, s->cluster.inter_node.nic_gb_s *= 2;
    s->cluster.intra_node.bus_efficiency = 0.9, s->cluster.inter_node.bus_efficiency = 0.9;
    s->cluster.gpu.hbm_tb_s *= 1.2;
}
static void more_efficiency(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->cluster.gpu.gemm_efficiency = 0.7, s->cluster.gpu.attention_efficiency = 0.5;
    s->cluster.gpu.elementwise_efficiency = 0.8, s->cluster.gpu.gemm_half_gflop = 1;
}
static void more_overlap(pe_scenario *s, pe_plan *p)
{
    (void)s;
    p->overlap = (pe_overlap){1, 1, 1, 1, 0};
}
static void fewer_pass_bytes(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->framework.grad_accum_bytes /= 2, s->framework.optimizer_pass_bytes /= 2; /* F21, X14 */
}
static void by_stage(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->framework.present = true, s->framework.bubble_by_stage = true; /* B5 */
}
static void less_contention(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->framework.overlap_slowdown /= 2; /* X15 */
}
static void micro_pipeline(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->framework.present = true, s->framework.tp_micro_pipeline = false; /* X16 off: X1's window */
}
static void async_backward(pe_scenario *s, pe_plan *p)
{
    (void)p;
    s->framework.present = true, s->framework.tp_async_backward = true; /* X13 */
}

/* Monotonicity, on the refined model with every refinement on. */
static void test_properties(void **state)
{
    (void)state;
    const pe_scenario s = refined_gpt3();
    never_slower(&s, more_bandwidth);
    never_slower(&s, more_efficiency);
    never_slower(&s, more_overlap);
    never_slower(&s, async_backward);
    pe_scenario passes = refined_gpt3(); /* moving fewer bytes never slows a plan */
    passes.framework.grad_accum_bytes = 10, passes.framework.optimizer_pass_bytes = 60;
    never_slower(&passes, fewer_pass_bytes);
    const pe_scenario v1 = fx_gpt3(16);
    never_slower(&v1, more_overlap);
    never_slower(&v1, async_backward);
    never_slower(&v1, by_stage);
    pe_scenario no_b5 = refined_gpt3();
    no_b5.framework.bubble_by_stage = false;
    never_slower(&no_b5, by_stage);
    pe_scenario contended = refined_gpt3(); /* X15: a smaller slowdown never slows a plan */
    contended.framework.overlap_slowdown = 0.4;
    never_slower(&contended, less_contention);
    never_slower(&contended, more_overlap);
    never_slower(&contended, more_bandwidth);
    pe_scenario mp = contended; /* X16 */
    mp.framework.tp_micro_pipeline = true;
    never_slower(&mp, more_overlap);
    never_slower(&mp, more_bandwidth);
    never_slower(&mp, more_efficiency);
    never_slower(&mp, less_contention);
    never_slower(&mp, micro_pipeline); /* a GEMM's window is never more than its layer's */
    pe_scenario titan = mp; /* torchtitan's terms together: X15, X16, F25 (op policy) */
    titan.framework.memory_by_phase = true, titan.framework.selective_recompute = PE_SELECTIVE_OP;
    never_slower(&titan, more_bandwidth);
    never_slower(&titan, more_efficiency);
    never_slower(&titan, more_overlap);
    never_slower(&titan, less_contention);
}

/* X16 on whole plans (sp, tp 2 and 8, overlap.tp 1): the TP time per
 * micro-batch is the stage's layers times comm_tp_micro_pipeline of the
 * detail's T_ar and GEMM times (forward), (1 + [full]) times it
 * (backward); without sp, or off, X1's. */
static void test_x16_plans(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0.189;
    s.framework.tp_micro_pipeline = true;
    static const int64_t tps[] = {2, 8};
    for (size_t i = 0; i < 2; i++)
        for (int full = 0; full <= 1; full++) {
            pe_plan p = fx_plan(128 / tps[i] / 4, tps[i], 4, 1);
            p.overlap.tp = 1, p.recompute = full ? PE_RECOMPUTE_FULL : PE_RECOMPUTE_NONE;
            pe_result r;
            pe_detail d;
            fx_eval_detail(&s, &p, &r, &d);
            const double e = comm_tp_micro_pipeline(d.t_ar_tp, (double)tps[i], d.gemm_chunks_t, 1.0,
                                                    0.189 / 1.189);
            const double l = d.stage_layers[d.time_stage];
            assert_rel(d.tp_mp_layer, e, 1e-12);
            assert_rel(d.chi_tp_f, l * e, 1e-12);
            assert_rel(d.chi_tp_b, (full ? 2.0 : 1.0) * l * e, 1e-12);
            p.sequence_parallel = false;
            fx_eval_detail(&s, &p, &r, &d);
            assert_true(d.tp_mp_layer < 0.0);
        }
}

/* F29 on whole plans (refined GPT-3: F_half = 2 GFLOP at peak·e_max =
 * 1307.4e12·0.6 = 7.8444e14 FLOP/s, t_half = 2e9/7.8444e14 = 2.549588e-6 s;
 * its layer GEMMs are compute bound): with async TP (X16) each of the four
 * layer GEMMs runs as t chunks, each paying t_half, so τ_lf grows by
 * 4·(t − 1)·t_half over F8's whole GEMMs (t = 8: 28·t_half = 7.138846e-5 s)
 * and τ_lb by the same once (input gradients) plus τ_lf's with full
 * recompute; X16 hides each collective behind (t−1)/t of the chunked time.
 * Property: one layer's forward with its TP exposure is never faster than
 * the sum of its chunk GEMMs; and without X16 (sp off) nothing changes. */
static void test_f28_plans(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0.189;
    s.framework.tp_micro_pipeline = true;
    const double t_half = 2e9 / (1307.4e12 * 0.6);
    static const int64_t tps[] = {2, 4, 8};
    for (size_t i = 0; i < 3; i++)
        for (int full = 0; full <= 1; full++) {
            pe_plan p = fx_plan(128 / tps[i] / 4, tps[i], 4, 1);
            p.overlap.tp = 1, p.recompute = full ? PE_RECOMPUTE_FULL : PE_RECOMPUTE_NONE;
            pe_result r, r0;
            pe_detail d, d0;
            fx_eval_detail(&s, &p, &r, &d);
            const double more = 4.0 * ((double)tps[i] - 1.0) * t_half;
            assert_rel(d.tau_lf, d.tau_gemm + d.tau_core + d.tau_ew + more, 1e-9);
            assert_rel(d.tau_lb, 2.0 * d.tau_lf + (full ? d.tau_lf : 0.0) - more, 1e-9);
            double chunks = 0.0;
            for (int k = 0; k < 4; k++)
                chunks += d.gemm_chunks_t[k];
            assert_true(d.tau_lf + d.tp_mp_layer >= chunks);
            pe_scenario flat = s; /* F_half = 0: F8's whole GEMMs again, and never slower */
            flat.cluster.gpu.gemm_half_gflop = 0;
            fx_eval_detail(&flat, &p, &r0, &d0);
            assert_rel(d0.tau_lf, d0.tau_gemm + d0.tau_core + d0.tau_ew, 1e-12);
            assert_true(r.step_time_s > r0.step_time_s);
            p.overlap.tp = 0; /* plain TP (async TP off): nothing chunked */
            fx_eval_detail(&s, &p, &r, &d);
            assert_true(d.tau_lf == d.tau_gemm + d.tau_core + d.tau_ew);
            p.overlap.tp = 1, p.sequence_parallel = false; /* no X16, no F29 */
            fx_eval_detail(&s, &p, &r, &d);
            assert_true(d.tau_lf == d.tau_gemm + d.tau_core + d.tau_ew);
        }
}

/* X15 on whole plans (fx_gpt3 on 16 nodes, ZeRO-3 with overlap.dp 1): the
 * data-parallel time is max(X4's textbook exposure, s/(1 + s)·its
 * collectives), so a plan whose collectives X4 hides entirely now pays
 * s/(1 + s) of them, one whose collective outlasts its window pays the same
 * as before when that is larger; and s = 0 is bit for bit the model without it. */
static void test_x15_plans(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0; /* X8 off: X15 alone */
    pe_scenario slow = s;
    slow.framework.overlap_slowdown = 0.189;
    const double c = 0.189 / 1.189;
    int hidden = 0, longer = 0;
    static const int64_t shapes[][3] = {{128, 1, 1}, {64, 2, 1}, {16, 8, 1}, {8, 8, 2}};
    for (size_t i = 0; i < 4; i++)
        for (int64_t mb = 1; mb <= 4; mb *= 2) {
            pe_plan p = fx_plan(shapes[i][0], shapes[i][1], shapes[i][2], 1);
            p.zero = 3, p.micro_batch = mb, p.overlap = (pe_overlap){.dp = 1};
            pe_result a, b;
            pe_detail d0, d1;
            fx_eval_detail(&s, &p, &a, &d0);
            fx_eval_detail(&slow, &p, &b, &d1);
            assert_rel(d1.dp_comm_all, d0.dp_comm_all, 1e-12);
            const double want = d0.chi_dp > c * d0.dp_comm_all ? d0.chi_dp : c * d0.dp_comm_all;
            assert_rel(d1.chi_dp, want, 1e-12);
            assert_true(b.step_time_s >= a.step_time_s);
            hidden += d0.chi_dp == 0.0 && d1.chi_dp > 0.0;
            longer += d0.chi_dp > c * d0.dp_comm_all && d1.chi_dp == d0.chi_dp;
        }
    assert_true(hidden > 0 && longer > 0);
}

/* F25 on a whole plan (refined GPT-3, GELU, MHA, recompute selective):
 * with torchtitan's op policy (memory_by_phase, selective_recompute op)
 * x is F25's 1,811,939,328 FLOPs per token and backward recomputes
 * wk's third of QKV (g·d/(a·d + 2·g·d) = 1/3), all of attention out and
 * MLP out (GELU's w2), not the attention core; Megatron's policy keeps
 * the core and its element-wise recompute. */
static void test_f25_plans(void **state)
{
    (void)state;
    pe_scenario s = op_sac_gpt3();
    pe_scenario attn = s;
    attn.framework.selective_recompute = PE_SELECTIVE_ATTENTION;
    pe_plan p = tp8_plan(PE_RECOMPUTE_SELECTIVE);
    const on_off_eval e = eval_on_off(&s, &attn, &p); /* op policy, Megatron's */
    const pe_detail *d = &e.d, *da = &e.dof;
    assert_true(d->x == 1811939328.0);
    assert_rel(d->tau_lb, 2.0 * d->tau_lf + d->gemm_t[0] / 3.0 + d->gemm_t[1] + d->gemm_t[3], 1e-12);
    assert_rel(da->tau_lb, 2.0 * da->tau_lf + da->tau_core + da->tau_ew_att, 1e-12);
    assert_true(e.on.hfu > 0 && e.on.hfu != e.off.hfu);
}

/* F39 on whole plans (refined GPT-3 under torchtitan's op policy, bf16,
 * t = 8 with sp): op_sac_recompute_elementwise adds one forward's
 * element-wise time outside the core, τ_ew − τ_ew_att, to τ_lb (F25's
 * matmuls already there), and nothing to τ_lf or the FLOPs (HFU is F25's,
 * MFU F3's); nothing under recompute none or full, or under Megatron's
 * attention policy. */
static void test_f39_plans(void **state)
{
    (void)state;
    pe_scenario s = op_sac_gpt3();
    pe_scenario on = s;
    on.framework.op_sac_recompute_elementwise = true;
    pe_plan p = tp8_plan(PE_RECOMPUTE_SELECTIVE);
    p.sequence_parallel = true;
    on_off_eval e = eval_on_off(&on, &s, &p);
    const pe_detail *d = &e.d, *d0 = &e.dof;
    const pe_result *r = &e.on, *r0 = &e.off;
    assert_true(d->tau_ew > d->tau_ew_att && d->tau_rec_ew > 0.0 && d0->tau_rec_ew == 0.0);
    assert_rel(d->tau_rec_ew, d->tau_ew - d->tau_ew_att, 1e-12);
    assert_rel(d->tau_lb - d0->tau_lb, d->tau_ew - d->tau_ew_att, 1e-9);
    assert_true(d->tau_lf == d0->tau_lf && d->x == d0->x);
    assert_true(r->mfu < r0->mfu && r->hfu < r0->hfu && r->step_time_s > r0->step_time_s);
    for (int rc = PE_RECOMPUTE_NONE; rc <= PE_RECOMPUTE_FULL; rc += 2) {
        p.recompute = (pe_recompute)rc;
        e = eval_on_off(&on, &s, &p);
        assert_true(e.on.step_time_s == e.off.step_time_s && e.d.tau_rec_ew == 0.0);
    }
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    s.framework.selective_recompute = on.framework.selective_recompute = PE_SELECTIVE_ATTENTION;
    e = eval_on_off(&on, &s, &p);
    assert_true(e.on.step_time_s == e.off.step_time_s);
}

/* X21 on whole plans (refined GPT-3 under torchtitan's op policy: MHA, so
 * F25 recomputes wk's g·d/(a·d + 2·g·d) = 1/3 of QKV; GELU, so w2 and no
 * matmul after the MLP's all-gather, r = 0): with sp and t > 1 the
 * backward TP time per micro-batch is X16's (L/p)·E_f plus (L/p)·E_r,
 * E_r = comm_tp_op_recompute of the detail's T_ar and chunked GEMMs with
 * hide = (t−1)/t at overlap.tp 1 (0 at overlap.tp 0: 2·T_ar/2 = T_ar);
 * without X16, X1's backward plus (L/p)·T_ar; 0 with recompute none or
 * full (full re-runs all four, X16's (1 + [full])), without sp, and under
 * Megatron's attention policy. */
static void test_x21_plans(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0.189;
    s.framework.tp_micro_pipeline = true;
    s.framework.memory_by_phase = true, s.framework.selective_recompute = PE_SELECTIVE_OP;
    const double c = 0.189 / 1.189;
    pe_result r;
    pe_detail d;
    for (int ov = 0; ov <= 1; ov++) {
        pe_plan p = fx_plan(16, 8, 1, 1);
        p.recompute = PE_RECOMPUTE_SELECTIVE, p.overlap.tp = ov;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.t_ag_tp == 0.5 * d.t_ar_tp); /* bf16: X22 off */
        const double e = comm_tp_op_recompute(d.t_ag_tp, ov * 7.0 / 8.0, 1.0 / 3.0,
                                              d.gemm_chunks_t[0], 0.0, d.gemm_chunks_t[2], c);
        const double l = d.stage_layers[d.time_stage];
        assert_true(d.tp_rec_layer > 0.0);
        assert_rel(d.tp_rec_layer, e, 1e-12);
        assert_rel(d.chi_tp_b, l * d.tp_mp_layer + l * e, 1e-12);
        if (!ov)
            assert_rel(d.tp_rec_layer, d.t_ar_tp, 1e-12);
        p.recompute = PE_RECOMPUTE_NONE;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.tp_rec_layer == 0.0);
        p.recompute = PE_RECOMPUTE_FULL;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.tp_rec_layer == 0.0);
        p.recompute = PE_RECOMPUTE_SELECTIVE, p.sequence_parallel = false;
        fx_eval_detail(&s, &p, &r, &d);
        assert_true(d.tp_rec_layer == 0.0);
    }
    pe_scenario plain = s; /* no micro-pipeline: X1's backward plus the re-run T_ar */
    plain.framework.tp_micro_pipeline = false;
    pe_plan p = tp8_plan(PE_RECOMPUTE_SELECTIVE);
    fx_eval_detail(&plain, &p, &r, &d);
    const double l = d.stage_layers[d.time_stage];
    assert_rel(d.tp_rec_layer, d.t_ar_tp, 1e-12);
    assert_rel(d.chi_tp_b, comm_contended(comm_tp_bwd(l, d.t_ar_tp, 0.0, d.tau_lb, 0),
                                          l * 2.0 * d.t_ar_tp, c) + l * d.t_ar_tp, 1e-12);
    pe_scenario attn = s; /* Megatron's selective: the core only, no collective re-run */
    attn.framework.selective_recompute = PE_SELECTIVE_ATTENTION;
    fx_eval_detail(&attn, &p, &r, &d);
    assert_true(d.tp_rec_layer == 0.0);
}

/* X22 on whole plans (the X21 scenario, compute fp8, tensorwise, the key
 * on): one TP all-gather T_ag = T_rs(S_tp/2) lies between T_ar/4 (half the
 * bytes) and T_ar/2, and the TP time per micro-batch is (L/p) times X16's
 * sum with T_ag before QKV and MLP in forward, before out and MLP out
 * backward (reduce-scatters T_ar/2), plus X21's re-run all-gathers at T_ag;
 * rowwise, the key off, or sp off: T_ag = T_ar/2 exactly.
 * Property: float8 all-gathers never slow a plan. */
static void test_x22_plans(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0.189;
    s.framework.tp_micro_pipeline = true, s.framework.tp_fp8_all_gather = true;
    s.framework.memory_by_phase = true, s.framework.selective_recompute = PE_SELECTIVE_OP;
    s.cluster.gpu.has_peak_fp8_tflops = true, s.cluster.gpu.peak_fp8_tflops = 2614.8;
    s.cluster.gpu.has_fp8_gemm_efficiency = true, s.cluster.gpu.fp8_gemm_efficiency = 0.5;
    s.precision.compute = PE_COMPUTE_FP8, s.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    pe_scenario rowwise = s, off = s;
    rowwise.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE;
    off.framework.tp_fp8_all_gather = false;
    const double c = 0.189 / 1.189;
    pe_result r, ro;
    pe_detail d, dr, dof;
    for (int ov = 0; ov <= 1; ov++)
        for (int rc = 0; rc <= 2; rc++) {
            pe_plan p = fx_plan(16, 8, 1, 1);
            p.overlap.tp = ov;
            p.recompute = recompute_of(rc);
            fx_eval_detail(&s, &p, &r, &d);
            const double ag = d.t_ag_tp, rs = 0.5 * d.t_ar_tp, l = d.stage_layers[d.time_stage];
            assert_true(ag > 0.25 * d.t_ar_tp && ag < rs);
            const double fwd[4] = {ag, rs, ag, rs}, bwd[4] = {rs, ag, rs, ag};
            const double e_f = comm_tp_micro_pipeline_parts(fwd, 8.0, d.gemm_chunks_t, ov, c);
            const double e_b = comm_tp_micro_pipeline_parts(bwd, 8.0, d.gemm_chunks_t, ov, c);
            const double e_r = rc == 1 ? comm_tp_op_recompute(ag, ov * 7.0 / 8.0, 1.0 / 3.0,
                                                              d.gemm_chunks_t[0], 0.0,
                                                              d.gemm_chunks_t[2], c)
                                       : 0.0;
            assert_rel(d.chi_tp_f, l * e_f, 1e-12);
            assert_rel(d.chi_tp_b, (rc == 2 ? l * e_f : 0.0) + l * e_b + l * e_r, 1e-12);
            fx_eval_detail(&rowwise, &p, &ro, &dr);
            assert_true(dr.t_ag_tp == 0.5 * dr.t_ar_tp);
            fx_eval_detail(&off, &p, &ro, &dof);
            assert_true(dof.t_ag_tp == 0.5 * dof.t_ar_tp);
            assert_true(r.step_time_s <= ro.step_time_s && r.tp_comm_s < ro.tp_comm_s);
            p.sequence_parallel = false;
            fx_eval_detail(&s, &p, &r, &d);
            assert_true(d.t_ag_tp == 0.5 * d.t_ar_tp);
        }
}

/* X22 without X16 (tp_micro_pipeline false): torchao's Float8ColwiseParallel
 * and PrepareFloat8ModuleInput cast before the all-gather whether or not
 * async TP is on (pytorch/ao@0e0fba8 torchao/float8/float8_tensor_parallel.py
 * _prepare_input_fn: the cast, then redistribute; pytorch/torchtitan@018740b
 * parallelize.py: apply_tp takes enable_float8_tensorwise_tp, and
 * maybe_enable_async_tp is a separate step after it). X1's pair of an
 * all-gather and a reduce-scatter is then T_ag + T_ar/2 in place of T_ar:
 * with overlap.tp 0, no recompute and comm_slowdown 0, χ_tp,f = (L/p)·2·pair
 * and χ_tp,b = (L/p)·2·pair, against (L/p)·2·T_ar with the key off; so
 * χ_tp,f(on)/χ_tp,f(off) = (T_ag + T_ar/2)/T_ar. Rowwise, or sp off: the
 * pair is T_ar exactly. */
static void test_x22_without_micro_pipeline(void **state)
{
    (void)state;
    pe_scenario s = refined_gpt3();
    s.framework.comm_slowdown = 0, s.framework.overlap_slowdown = 0;
    s.framework.tp_micro_pipeline = false, s.framework.tp_fp8_all_gather = true;
    s.cluster.gpu.has_peak_fp8_tflops = true, s.cluster.gpu.peak_fp8_tflops = 2614.8;
    s.cluster.gpu.has_fp8_gemm_efficiency = true, s.cluster.gpu.fp8_gemm_efficiency = 0.5;
    s.precision.compute = PE_COMPUTE_FP8, s.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    pe_scenario off = s, rowwise = s;
    off.framework.tp_fp8_all_gather = false;
    rowwise.precision.fp8_recipe = PE_FP8_RECIPE_ROWWISE;
    pe_plan p = fx_plan(16, 8, 1, 1);
    p.recompute = PE_RECOMPUTE_NONE;
    pe_result r, ro;
    pe_detail d, dof, dr;
    fx_eval_detail(&s, &p, &r, &d);
    fx_eval_detail(&off, &p, &ro, &dof);
    assert_true(d.tp_mp_layer < 0.0); /* X16 off: X1's path */
    assert_true(d.t_ag_tp > 0.25 * d.t_ar_tp && d.t_ag_tp < 0.5 * d.t_ar_tp);
    assert_true(d.t_tp_pair == d.t_ag_tp + 0.5 * d.t_ar_tp);
    assert_true(dof.t_tp_pair == dof.t_ar_tp && dof.t_ag_tp == 0.5 * dof.t_ar_tp);
    assert_rel(d.chi_tp_f / dof.chi_tp_f, d.t_tp_pair / d.t_ar_tp, 1e-12);
    assert_rel(d.chi_tp_b / dof.chi_tp_b, d.t_tp_pair / d.t_ar_tp, 1e-12);
    assert_true(r.tp_comm_s < ro.tp_comm_s);
    fx_eval_detail(&rowwise, &p, &ro, &dr);
    assert_true(dr.t_tp_pair == dr.t_ar_tp);
    p.sequence_parallel = false; /* all-reduces: no all-gather to cast */
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(d.t_tp_pair == d.t_ar_tp);
}

/* X28 on whole plans (the X21 scenario, the key on): plain TP (overlap.tp
 * 0) pays per layer 2·c_ag + 2·c_rs forward, once more with full
 * recompute, and X21's two re-run all-gathers' copies under op-level SAC,
 * c = 2·S/(W·η_W), S = S_tp (the fixture's W·η_W = hbm_tb_s·1e12·0.6);
 * with X22's float8 all-gathers c_ag takes S_tp/2. Async TP (overlap.tp 1,
 * X16's fused ops), sp off or the key off: none, the step bit for bit the
 * one without the key. Property: the copies never speed a plan. */
static void test_x28_plans(void **state)
{
    (void)state;
    pe_scenario s = async_tp_gpt3();
    pe_scenario off = s;
    off.framework.tp_seq_dim_copy = false;
    const double w = s.cluster.gpu.hbm_tb_s * 1e12 * 0.6;
    pe_result r, ro;
    pe_detail d, dof;
    for (int ov = 0; ov <= 1; ov++)
        for (int rc = 0; rc <= 2; rc++) {
            pe_plan p = fx_plan(16, 8, 1, 1);
            p.overlap.tp = ov;
            p.recompute = recompute_of(rc);
            fx_eval_detail(&s, &p, &r, &d);
            fx_eval_detail(&off, &p, &ro, &dof);
            const double l = d.stage_layers[d.time_stage];
            if (ov) { /* async TP: fused, no copy */
                assert_true(d.tp_copy_layer == 0.0 && r.step_time_s == ro.step_time_s);
                continue;
            }
            const double c = 2.0 * d.s_tp / w, e = 4.0 * c, rec = rc == 1 ? 2.0 * c : 0.0;
            assert_rel(d.tp_copy_ag, c, 1e-12);
            assert_rel(d.tp_copy_layer, e, 1e-12);
            assert_rel(d.chi_tp_f - dof.chi_tp_f, l * e, 1e-9);
            assert_rel(d.chi_tp_b - dof.chi_tp_b, l * ((rc == 2 ? 2.0 : 1.0) * e + rec), 1e-9);
            assert_true(r.step_time_s > ro.step_time_s && r.tp_comm_s > ro.tp_comm_s);
            p.sequence_parallel = false;
            fx_eval_detail(&s, &p, &r, &d);
            fx_eval_detail(&off, &p, &ro, &dof);
            assert_true(d.tp_copy_layer == 0.0 && r.step_time_s == ro.step_time_s);
        }
    pe_scenario fp8 = s; /* X22: the all-gathers' copies of float8 tensors */
    fp8.framework.tp_fp8_all_gather = true;
    fp8.cluster.gpu.has_peak_fp8_tflops = true, fp8.cluster.gpu.peak_fp8_tflops = 2614.8;
    fp8.cluster.gpu.has_fp8_gemm_efficiency = true, fp8.cluster.gpu.fp8_gemm_efficiency = 0.5;
    fp8.precision.compute = PE_COMPUTE_FP8, fp8.precision.fp8_recipe = PE_FP8_RECIPE_TENSORWISE;
    pe_plan p = fx_plan(16, 8, 1, 1);
    fx_eval_detail(&fp8, &p, &r, &d);
    assert_rel(d.tp_copy_ag, d.s_tp / w, 1e-12);
    assert_rel(d.tp_copy_rs, 2.0 * d.s_tp / w, 1e-12);
}

/* X24 and X29 on whole plans (the X28 scenario with tp_grad_sum_unfused;
 * GPT-3's GELU MLP and the same model with SwiGLU): under async TP
 * (overlap.tp 1) the backward's exposure per layer is X24's sum over
 * X16's backward parts with QKV's reduce-scatter unfused, and MLP in's too
 * with SwiGLU, i.e. the key-off E_b plus, for each unfused one, what X16
 * had hidden of its T_ar/2; X29 adds c_rs = 2·S_tp/(W·η_W) per unfused
 * one (the fixture's W·η_W = hbm_tb_s·1e12·0.6). χ_tp,b grows by exactly
 * (L/p)·(ΔE_b + n_u·c_rs), χ_tp,f not at all. Plain TP (overlap.tp 0),
 * sp off: the step bit for bit the key-off one. Properties: async TP never
 * slower than the same plan without it (overlap.tp 0), more overlap
 * (0.5 → 1) never slower, the key never speeds a plan. */
static void test_x24_plans(void **state)
{
    (void)state;
    pe_scenario s = async_tp_gpt3();
    s.framework.tp_grad_sum_unfused = true;
    const double w = s.cluster.gpu.hbm_tb_s * 1e12 * 0.6, c = 0.189 / 1.189;
    static const int64_t tps[] = {2, 4, 8};
    for (int swi = 0; swi <= 1; swi++)
        for (size_t i = 0; i < 3; i++)
            for (int rc = 0; rc <= 2; rc++) {
                pe_scenario on = s;
                on.model.mlp = swi ? PE_MLP_SWIGLU : PE_MLP_GELU;
                pe_scenario off = on;
                off.framework.tp_grad_sum_unfused = false;
                pe_plan p = fx_plan(128 / tps[i], tps[i], 1, 1);
                p.recompute = recompute_of(rc);
                const tp_key_evals e = eval_tp_key(&on, &off, p);
                const pe_detail *d = &e.async.d, *dof = &e.async.dof;
                assert_async_tp_only(&e, e.plain.d.tp_copy_unfused, e.no_sp.d.tp_copy_unfused);
                const double r0 = e.plain.on.step_time_s, r1 = e.async.on.step_time_s;
                p.overlap.tp = 0.5;
                const double r5 = fx_eval(&on, &p).step_time_s;
                const double rs = 0.5 * d->t_ar_tp, bwd[4] = {rs, rs, rs, rs};
                const bool u[4] = {true, false, swi == 1, false};
                const double e_b = comm_tp_micro_pipeline_unfused(bwd, (double)tps[i],
                                                                  d->gemm_chunks_t, 1.0, c, u);
                const double n_u = swi ? 2.0 : 1.0, l = d->stage_layers[d->time_stage];
                assert_rel(d->tp_mp_bwd_layer, e_b, 1e-12);
                assert_rel(d->tp_unfused_layer, n_u * rs, 1e-12);
                assert_rel(d->tp_copy_unfused, n_u * 2.0 * d->s_tp / w, 1e-12);
                assert_true(d->chi_tp_f == dof->chi_tp_f);
                assert_rel(d->chi_tp_b - dof->chi_tp_b,
                           l * (e_b - dof->tp_mp_bwd_layer + d->tp_copy_unfused), 1e-9);
                assert_true(r1 <= r5 && r5 <= r0); /* more overlap never slower */
            }
}

/* F34 on whole plans (the X24 scenario, GELU and SwiGLU, with
 * tp_fused_rs_reduce): under async TP each fused reduce-scatter adds
 * r = (1 + 1/t)·S_tp/(W·η_W) (the fixture's W·η_W = hbm_tb_s·1e12·0.6):
 * χ_tp,f by exactly (L/p)·2r (wo, w2), χ_tp,b by (L/p)·([full]·2r + n_f·r),
 * n_f the backward reduce-scatters X24 leaves fused (GELU: MLP in's, 1;
 * SwiGLU: none; X24 off: 2). Plain TP (overlap.tp 0) and sp off: bit for
 * bit the key off. Property: with X28's copies on (as the presets have
 * them), async TP with the sums is still never slower than overlap.tp 0,
 * and the key never speeds a plan. */
static void test_f34_plans(void **state)
{
    (void)state;
    pe_scenario s = async_tp_gpt3();
    s.framework.tp_fused_rs_reduce = true;
    const double w = s.cluster.gpu.hbm_tb_s * 1e12 * 0.6;
    for (int x24 = 0; x24 <= 1; x24++)
        for (int swi = 0; swi <= 1; swi++)
            for (int rc = 0; rc <= 2; rc++) {
                pe_scenario on = s;
                on.model.mlp = swi ? PE_MLP_SWIGLU : PE_MLP_GELU;
                on.framework.tp_grad_sum_unfused = x24;
                pe_scenario off = on;
                off.framework.tp_fused_rs_reduce = false;
                pe_plan p = tp8_plan(recompute_of(rc));
                const tp_key_evals e = eval_tp_key(&on, &off, p);
                const pe_detail *d = &e.async.d, *dof = &e.async.dof;
                const double r = (1.0 + 1.0 / 8.0) * d->s_tp / w;
                const double n_f = x24 ? (swi ? 0.0 : 1.0) : 2.0, l = d->stage_layers[d->time_stage];
                assert_rel(d->tp_reduce, r, 1e-12);
                assert_rel(d->chi_tp_f - dof->chi_tp_f, l * 2.0 * r, 1e-9);
                assert_rel(d->chi_tp_b - dof->chi_tp_b + 1.0,
                           1.0 + l * ((rc == 2 ? 2.0 : 0.0) * r + n_f * r), 1e-12);
                assert_async_tp_only(&e, e.plain.d.tp_reduce, e.no_sp.d.tp_reduce);
            }
}

/* X32 on whole plans (the F34 scenario, GELU and SwiGLU, every recompute,
 * with tp_ag_shard_stage): under async TP each fused all-gather adds
 * c = 2·(S_tp/t)/(W·η_W) (the fixture's W·η_W = hbm_tb_s·1e12·0.6):
 * χ_tp,f by exactly (L/p)·2c (QKV, MLP in), χ_tp,b by
 * (L/p)·([full]·2c + 2c + [X21]·2c) (out's and MLP out's input-gradient
 * all-gathers; op-level selective recompute re-runs two more, X21). Plain
 * TP (overlap.tp 0) and sp off: bit for bit the key off. Property: the key
 * never speeds a plan, and with X28's copies async TP stays no slower than
 * overlap.tp 0. */
static void test_x32_plans(void **state)
{
    (void)state;
    pe_scenario s = async_tp_gpt3();
    s.framework.tp_fused_rs_reduce = true, s.framework.tp_ag_shard_stage = true;
    const double w = s.cluster.gpu.hbm_tb_s * 1e12 * 0.6;
    for (int swi = 0; swi <= 1; swi++)
        for (int rc = 0; rc <= 2; rc++) {
            pe_scenario on = s;
            on.model.mlp = swi ? PE_MLP_SWIGLU : PE_MLP_GELU;
            pe_scenario off = on;
            off.framework.tp_ag_shard_stage = false;
            pe_plan p = tp8_plan(recompute_of(rc));
            const tp_key_evals e = eval_tp_key(&on, &off, p);
            const pe_detail *d = &e.async.d, *dof = &e.async.dof;
            const double c = 2.0 * (d->s_tp / 8.0) / w, l = d->stage_layers[d->time_stage];
            const double n_b = (rc == 2 ? 2.0 : 0.0) + 2.0 + (rc == 1 ? 2.0 : 0.0);
            assert_rel(d->tp_stage, c, 1e-12);
            assert_rel(d->chi_tp_f - dof->chi_tp_f, l * 2.0 * c, 1e-9);
            assert_rel(d->chi_tp_b - dof->chi_tp_b + 1.0, 1.0 + l * n_b * c, 1e-12);
            assert_async_tp_only(&e, e.plain.d.tp_stage, e.no_sp.d.tp_stage);
        }
}

/* Property: more recompute never speeds a step. Under torchtitan's terms
 * (X15, X16, F25, X21) and without them, at t = 1, 2, 4, 8, sp on and off,
 * overlap.tp 0 and 1, micro-batches 1 and 4, zero 1 and 3: with recompute
 * none ≤ selective ≤ full the compute part never shrinks, nor does the step
 * without its DP collectives (X4), nor the step where X4's collectives are
 * hidden alike (dp_comm_s equal). The TP part alone need not grow: full
 * recompute re-runs the all-gathers behind whole GEMMs, X21's op-level one
 * behind F25's recomputed shares. Where X4's collectives are exposed, full
 * recompute's longer backward is a longer window for them (X4 counts compute
 * only, not exposed TP time), and a step of it can come out below the
 * selective one's (TP 2, sp, overlap.tp 1, zero 3, micro-batch 1: 92.38 s
 * against 92.99 s): docs/model.md X21 says so. */
static void test_recompute_never_faster(void **state)
{
    (void)state;
    pe_scenario titan = refined_gpt3();
    titan.framework.comm_slowdown = 0, titan.framework.overlap_slowdown = 0.189;
    titan.framework.tp_micro_pipeline = true;
    titan.framework.memory_by_phase = true, titan.framework.selective_recompute = PE_SELECTIVE_OP;
    const pe_scenario plain = refined_gpt3();
    const pe_scenario *scs[] = {&titan, &plain};
    static const int64_t tps[] = {1, 2, 4, 8};
    static const pe_recompute order[] = {PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE,
                                         PE_RECOMPUTE_FULL};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < 4; i++)
            for (int bits = 0; bits < 16; bits++) {
                pe_plan p = fx_plan(128 / tps[i], tps[i], 1, 1);
                p.sequence_parallel = tps[i] > 1 && (bits & 1);
                p.overlap.tp = (bits >> 1) & 1;
                p.micro_batch = (bits & 4) ? 4 : 1;
                p.zero = (bits & 8) ? 3 : 1;
                pe_result last = {0};
                for (size_t j = 0; j < 3; j++) {
                    p.recompute = order[j];
                    const pe_result r = fx_eval(scs[k], &p);
                    if (j > 0) {
                        assert_true(r.compute_s >= last.compute_s);
                        assert_true(r.step_time_s - r.dp_comm_s >=
                                    last.step_time_s - last.dp_comm_s);
                        if (r.dp_comm_s == last.dp_comm_s) /* X4 hidden both times */
                            assert_true(r.step_time_s >= last.step_time_s);
                    }
                    last = r;
                }
            }
}

/* Neutral values reproduce v1 bit for bit; scenario_force_textbook sets
 * them all back, so a refined scenario in textbook mode equals v1. */
/* X19 (framework cp_kv_allgather) on GPT-3 over 16 nodes, dp 4, tp 8,
 * pp 1, cp 4: the cp group (4 members at stride 8) spans 4 nodes (n_in 1,
 * n_out 4). S_kv = 2·b·s'·2·g·d/t = 2·1·512·2·96·128/8 = 3,145,728 bytes
 * (s' = 2048/4); the gathered 4·S_kv = 12,582,912 bytes; C4: T_ag = 3/4·
 * 12582912/50e9 + 3·5e-6 = 1.887437e-4 + 1.5e-5 = 2.037437e-4 s, the same
 * bytes and latencies as X2's three hops 3·(5e-6 + 3145728/50e9). Exposed,
 * all of it: χ_cp,f = 96·T_ag, χ_cp,b = 96·2·T_ag, and cp_comm_s =
 * m·(χ_cp,f + χ_cp,b) with m = 1536/4 = 384 (micro-batch 1); with full
 * recompute the backward 96·3·T_ag. Off (the key false), X2's ring behind
 * τ_att, exactly the result without a framework. */
static void test_x19_plans(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(16);
    pe_plan p = fx_plan(4, 8, 1, 4);
    const pe_result v1 = fx_eval(&s, &p);
    s.framework = (pe_framework){.present = true};
    pe_result r;
    pe_detail d;
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(r.step_time_s == v1.step_time_s && r.cp_comm_s == v1.cp_comm_s);
    assert_true(d.t_ag_cp == 0.0);
    s.framework.cp_kv_allgather = true;
    fx_eval_detail(&s, &p, &r, &d);
    const double t_ag = 0.75 * 12582912.0 / 50e9 + 3 * 5e-6;
    assert_rel(d.t_ag_cp, t_ag, 1e-12);
    assert_rel(d.t_ag_cp, 3 * d.t_p2p_cp, 1e-12);
    assert_rel(d.chi_cp_f, 96 * t_ag, 1e-12);
    assert_rel(d.chi_cp_b, 96 * 2 * t_ag, 1e-12);
    assert_rel(r.cp_comm_s, 384 * 96 * 3 * t_ag, 1e-9);
    assert_true(r.cp_comm_s > v1.cp_comm_s && r.step_time_s > v1.step_time_s);
    p.recompute = PE_RECOMPUTE_FULL;
    fx_eval_detail(&s, &p, &r, &d);
    assert_rel(d.chi_cp_b, 96 * 3 * t_ag, 1e-12);
    /* cp 1: no context-parallel communication either way */
    p = fx_plan(16, 8, 1, 1);
    fx_eval_detail(&s, &p, &r, &d);
    assert_true(r.cp_comm_s == 0.0 && d.t_ag_cp == 0.0);
}

static void test_neutral_and_textbook(void **state)
{
    (void)state;
    const pe_scenario v1 = fx_gpt3(16);
    pe_scenario neutral = fx_gpt3(16);
    neutral.cluster.intra_node.bus_efficiency = 1, neutral.cluster.inter_node.bus_efficiency = 1;
    neutral.framework.present = true; /* a framework whose keys are all neutral */
    pe_scenario textbook = refined_gpt3();
    scenario_force_textbook(&textbook);
    assert_int_equal(textbook.fidelity, PE_FIDELITY_TEXTBOOK);
    static const int64_t tps[] = {1, 8}, pps[] = {1, 16};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++)
            for (int z = 0; z <= 3; z++) {
                pe_plan p = fx_plan(128 / (tps[i] * pps[j]), tps[i], pps[j], 1);
                p.zero = z;
                p.sequence_parallel = false;
                const pe_result a = fx_eval(&v1, &p), b = fx_eval(&neutral, &p),
                                c = fx_eval(&textbook, &p);
                assert_true(a.step_time_s == b.step_time_s && a.step_time_s == c.step_time_s);
                assert_true(a.pp_comm_s == b.pp_comm_s && a.dp_comm_s == c.dp_comm_s);
                assert_true(a.compute_s == c.compute_s && a.tp_comm_s == c.tp_comm_s);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f7_shapes),    cmocka_unit_test(test_f8_gemm_time),
        cmocka_unit_test(test_f8_monotone),  cmocka_unit_test(test_f10_bytes),
        cmocka_unit_test(test_refined_plan), cmocka_unit_test(test_c8_c9),
        cmocka_unit_test(test_x7_x8),        cmocka_unit_test(test_x6),
        cmocka_unit_test(test_c10_tree),     cmocka_unit_test(test_x13_async_backward),
        cmocka_unit_test(test_f21_x14),      cmocka_unit_test(test_b5_bubble_by_stage),
        cmocka_unit_test(test_properties),   cmocka_unit_test(test_neutral_and_textbook),
        cmocka_unit_test(test_x15_plans),    cmocka_unit_test(test_x16_plans),
        cmocka_unit_test(test_f28_plans),
        cmocka_unit_test(test_f25_plans),
        cmocka_unit_test(test_f39_plans),
        cmocka_unit_test(test_x19_plans),
        cmocka_unit_test(test_x21_plans),   cmocka_unit_test(test_recompute_never_faster),
        cmocka_unit_test(test_x22_plans),
        cmocka_unit_test(test_x22_without_micro_pipeline),
        cmocka_unit_test(test_x28_plans),
        cmocka_unit_test(test_x24_plans),
        cmocka_unit_test(test_f34_plans),
        cmocka_unit_test(test_x32_plans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
