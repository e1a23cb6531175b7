/* test_comm.c — docs/model.md §5 (C1–C7) and §6 (X1–X5), against hand arithmetic.
 * Networks: the MI300X node (full mesh, 7 links × 64 GB/s, 2 µs; NIC 50 GB/s,
 * 5 µs; G = 8) and a switch node (450 GB/s per GPU, 2 µs). S = 1 GB. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/comm.h"

static pe_net mesh_net(void)
{
    pe_scenario s = fx_gpt3(8);
    return comm_net(&s.cluster);
}

static pe_net switch_net(void)
{
    pe_scenario s = fx_gpt3(8);
    s.cluster.intra_node = (pe_intra_node){
        .present = true, .topology = PE_TOPOLOGY_SWITCH, .bandwidth_gb_s = 450, .latency_us = 2};
    return comm_net(&s.cluster);
}

/* Unit conversion: GB/s → 10^9 B/s, µs → 10^-6 s; C3: B_out = nic_gb_s = 50 → 50e9 B/s per GPU. */
static void test_net_units(void **state)
{
    (void)state;
    const pe_net n = mesh_net();
    assert_true(n.full_mesh && n.links == 7.0 && n.link_bps == 64e9);
    assert_true(n.alpha_in == 2e-6 && n.out_bps == 50e9 && n.alpha_out == 5e-6);
    assert_true(switch_net().switch_bps == 450e9 && !switch_net().full_mesh);
}

/* C1 members per node and nodes spanned, G = 8. */
static void test_c1_placement(void **state)
{
    (void)state;
    const pe_net n = mesh_net();
    pe_group g = comm_group(&n, 8, 1); /* tp 8: floor(8/1) = 8 → n_in 8, n_out 1 */
    assert_true(g.n_in == 8.0 && g.n_out == 1.0);
    g = comm_group(&n, 2, 8); /* cp 2 at stride t = 8: max(1, 1) = 1 → n_in 1, n_out 2 */
    assert_true(g.n_in == 1.0 && g.n_out == 2.0);
    g = comm_group(&n, 64, 1); /* dp 64 at stride 1: n_in 8, n_out ceil(64/8) = 8 */
    assert_true(g.n_in == 8.0 && g.n_out == 8.0);
    g = comm_group(&n, 16, 8); /* dp 16 at stride 8: n_in 1, n_out 16 */
    assert_true(g.n_in == 1.0 && g.n_out == 16.0);
    g = comm_group(&n, 8, 2); /* pp 8 at stride t·c·dp = 2: min(8, 4) = 4, n_out 2 */
    assert_true(g.n_in == 4.0 && g.n_out == 2.0);
    g = comm_group(&n, 4, 16); /* stride 16 > G: floor(8/16) = 0 → max(1, 0) = 1, n_out 4 */
    assert_true(g.n_in == 1.0 && g.n_out == 4.0);
    g = comm_group(&n, 16, 1); /* cross-node tp 16: n_in 8, n_out 2 */
    assert_true(g.n_in == 8.0 && g.n_out == 2.0);
    g = comm_group(&n, 3, 1); /* ceil: 3 ≤ 8 → 1 node */
    assert_true(g.n_in == 3.0 && g.n_out == 1.0);
}

/* C2 intra-node bandwidth. */
static void test_c2_bandwidth(void **state)
{
    (void)state;
    pe_net n = mesh_net();
    assert_true(comm_bw_in(&n, 2) == 64e9);  /* a pair shares one link: min(1, 7)·64 */
    assert_true(comm_bw_in(&n, 4) == 192e9); /* min(3, 7)·64 */
    assert_true(comm_bw_in(&n, 8) == 448e9); /* all eight share seven: min(7, 7)·64 */
    n.links = 3;
    assert_true(comm_bw_in(&n, 8) == 192e9); /* capped by links: min(7, 3)·64 */
    const pe_net sw = switch_net();
    assert_true(comm_bw_in(&sw, 2) == 450e9 && comm_bw_in(&sw, 8) == 450e9);
}

/* C4 reduce-scatter / all-gather and C5 all-reduce, S = 10^9 bytes. */
static void test_c4_c5(void **state)
{
    (void)state;
    const pe_net mesh = mesh_net(), sw = switch_net();
    const double S = 1e9;
    /* switch node, 8 members: 7/8·1e9/450e9 + 7·2e-6 = 0.00194444… + 0.000014 = 0.00195844… */
    pe_group g = comm_group(&sw, 8, 1);
    assert_rel(comm_reduce_scatter(&sw, &g, S), 0.0019584444444444445, 1e-14);
    assert_rel(comm_all_reduce(&sw, &g, S), 2 * 0.0019584444444444445, 1e-14);
    /* full-mesh pair: 1/2·1e9/64e9 + 1·2e-6 = 0.0078125 + 0.000002 = 0.0078145 */
    g = comm_group(&mesh, 2, 1);
    assert_rel(comm_reduce_scatter(&mesh, &g, S), 0.0078145, 1e-14);
    assert_rel(comm_all_reduce(&mesh, &g, S), 0.015629, 1e-14);
    /* all eight in the mesh: 7/8·1e9/448e9 + 7·2e-6 = 0.001953125 + 0.000014 = 0.001967125 */
    g = comm_group(&mesh, 8, 1);
    assert_rel(comm_reduce_scatter(&mesh, &g, S), 0.001967125, 1e-14);
    /* spanning 8 nodes (n 64, stride 1): + 7/8·(1e9/8)/50e9 + 7·5e-6 = 0.0021875 + 0.000035
     *   = 0.001967125 + 0.0022225 = 0.004189625 */
    g = comm_group(&mesh, 64, 1);
    assert_rel(comm_reduce_scatter(&mesh, &g, S), 0.004189625, 1e-14);
    assert_rel(comm_all_reduce(&mesh, &g, S), 0.00837925, 1e-14);
    /* one member per node (n 16, stride 8): intra phase costs 0 (n_in = 1; its full_mesh
     * bandwidth would be 0): 15/16·1e9/50e9 + 15·5e-6 = 0.01875 + 0.000075 = 0.018825 */
    g = comm_group(&mesh, 16, 8);
    assert_rel(comm_reduce_scatter(&mesh, &g, S), 0.018825, 1e-14);
    /* n = 1 → 0 */
    g = comm_group(&mesh, 1, 1);
    assert_true(comm_reduce_scatter(&mesh, &g, S) == 0.0 && comm_all_reduce(&mesh, &g, S) == 0.0);
}

/* C6 all-to-all, S = 10^9 bytes sent per GPU. */
static void test_c6_all_to_all(void **state)
{
    (void)state;
    const pe_net mesh = mesh_net();
    /* n 16 over 2 nodes: 7/16·1e9/448e9 + 7·2e-6 + 8/16·1e9/50e9 + 1·5e-6
     *   = 0.0009765625 + 0.000014 + 0.01 + 0.000005 = 0.0109955625 */
    pe_group g = comm_group(&mesh, 16, 1);
    assert_rel(comm_all_to_all(&mesh, &g, 1e9), 0.0109955625, 1e-14);
    /* n 8 in one node: 7/8·1e9/448e9 + 14e-6 = 0.001967125 (no inter phase) */
    g = comm_group(&mesh, 8, 1);
    assert_rel(comm_all_to_all(&mesh, &g, 1e9), 0.001967125, 1e-14);
    /* n 4 at stride 8 (one per node): intra 0; 3/4·1e9/50e9 + 3·5e-6 = 0.015 + 0.000015 */
    g = comm_group(&mesh, 4, 8);
    assert_rel(comm_all_to_all(&mesh, &g, 1e9), 0.015015, 1e-14);
    g = comm_group(&mesh, 1, 1);
    assert_true(comm_all_to_all(&mesh, &g, 1e9) == 0.0);
}

/* C7 one hop. */
static void test_c7_p2p(void **state)
{
    (void)state;
    const pe_net mesh = mesh_net(), sw = switch_net();
    /* in a mesh node: one link: 2e-6 + 1e9/64e9 = 0.015627 */
    pe_group g = comm_group(&mesh, 8, 1);
    assert_rel(comm_p2p(&mesh, &g, 1e9), 0.015627, 1e-14);
    /* switch: 2e-6 + 1e9/450e9 = 0.00222422… */
    g = comm_group(&sw, 8, 1);
    assert_rel(comm_p2p(&sw, &g, 1e9), 0.002224222222222222, 1e-14);
    /* spanning nodes (pp 8 at stride 2: n_out 2): every hop inter: 5e-6 + 1e9/50e9 = 0.020005 */
    g = comm_group(&mesh, 8, 2);
    assert_rel(comm_p2p(&mesh, &g, 1e9), 0.020005, 1e-14);
    g = comm_group(&mesh, 1, 8);
    assert_true(comm_p2p(&mesh, &g, 1e9) == 0.0);
}

/* Tier of each axis. */
static void test_tier(void **state)
{
    (void)state;
    const pe_net mesh = mesh_net();
    pe_group g = comm_group(&mesh, 1, 1);
    assert_int_equal(comm_tier(&g), PE_TIER_NONE);
    g = comm_group(&mesh, 8, 1);
    assert_int_equal(comm_tier(&g), PE_TIER_INTRA);
    g = comm_group(&mesh, 2, 8);
    assert_int_equal(comm_tier(&g), PE_TIER_INTER);
    assert_string_equal(pe_tier_name(PE_TIER_NONE), "none");
    assert_string_equal(pe_tier_name(PE_TIER_INTRA), "intra");
    assert_string_equal(pe_tier_name(PE_TIER_INTER), "inter");
}

/* X1 TP. */
static void test_x1_tp(void **state)
{
    (void)state;
    /* S_tp = 2·b·s'·h = 2·1·2048·12288 = 50,331,648 */
    assert_true(comm_tp_bytes(1, 2048, 12288) == 50331648.0);
    /* no overlap: (L/p)·2·T_ar = 12·2·0.5 = 12 */
    assert_true(comm_tp_fwd(12, 0.5, 0.0, 0.25) == 12.0);
    /* overlap 1: 12·max(0, 1 − 0.25) = 9 */
    assert_true(comm_tp_fwd(12, 0.5, 1.0, 0.25) == 9.0);
    /* hidden: 12·max(0, 1 − 2) = 0 */
    assert_true(comm_tp_fwd(12, 0.5, 1.0, 2.0) == 0.0);
    /* backward: 12·max(0, 2·0.5 − 0.5·0.5) = 12·0.75 = 9; full recompute (2 + 2)·0.5 − 0.25 = 1.75 → 21 */
    assert_true(comm_tp_bwd(12, 0.5, 0.5, 0.5, 0) == 9.0);
    assert_true(comm_tp_bwd(12, 0.5, 0.5, 0.5, 1) == 21.0);
}

/* X2 CP. */
static void test_x2_cp(void **state)
{
    (void)state;
    /* S_kv = 2·b·s'·2·g·d/t = 2·1·1024·2·96·128/8 = 6,291,456 */
    assert_true(comm_cp_bytes(1, 1024, 96, 128, 8) == 6291456.0);
    /* fwd: 12·max(0, (4−1)·0.5 − 1·0.25) = 12·1.25 = 15 */
    assert_true(comm_cp_fwd(12, 4, 0.5, 1.0, 0.25) == 15.0);
    /* bwd, no recompute: 12·max(0, 2·3·0.5 − 2·0.25) = 12·2.5 = 30; with recompute 3·3·0.5 − 0.5 = 4 → 48 */
    assert_true(comm_cp_bwd(12, 4, 0.5, 1.0, 0.25, 0) == 30.0);
    assert_true(comm_cp_bwd(12, 4, 0.5, 1.0, 0.25, 1) == 48.0);
    /* c = 1 → 0 */
    assert_true(comm_cp_fwd(12, 1, 0.5, 0.0, 0.25) == 0.0);
}

/* X19 all-gather CP (framework cp_kv_allgather), no overlap window:
 * fwd (L/p)·T_ag = 12·0.5 = 6; bwd (L/p)·2·T_ag = 12·2·0.5 = 12, with
 * recompute 12·3·0.5 = 18. */
static void test_x19_cp_allgather(void **state)
{
    (void)state;
    assert_true(comm_cp_allgather_fwd(12, 0.5) == 6.0);
    assert_true(comm_cp_allgather_bwd(12, 0.5, 0) == 12.0);
    assert_true(comm_cp_allgather_bwd(12, 0.5, 1) == 18.0);
    assert_true(comm_cp_allgather_fwd(12, 0.0) == 0.0 && comm_cp_allgather_bwd(12, 0.0, 1) == 0.0);
}

/* X3 PP. */
static void test_x3_pp(void **state)
{
    (void)state;
    /* S_pp = 2·b·s'·h/(sp ? t : 1): 2·2048·12288/8 = 6,291,456 with sp; 50,331,648 without */
    assert_true(comm_pp_bytes(1, 2048, 12288, 8, 1) == 6291456.0);
    assert_true(comm_pp_bytes(1, 2048, 12288, 8, 0) == 50331648.0);
    /* m·v·[max(0, T − ov·τ_f/v) + max(0, T − ov·τ_b/v)]
     *   = 64·2·[max(0, 0.5 − 0.5·0.5/2) + max(0, 0.5 − 0.5·4/2)] = 128·(0.375 + 0) = 48 */
    assert_true(comm_pp(8, 64, 2, 0.5, 0.5, 0.5, 4.0) == 48.0);
    /* no overlap: 64·1·(0.5 + 0.5) = 64 */
    assert_true(comm_pp(8, 64, 1, 0.5, 0.0, 0.5, 4.0) == 64.0);
    /* p = 1 → 0 */
    assert_true(comm_pp(1, 64, 1, 0.5, 0.0, 0.5, 4.0) == 0.0);
}

/* X4 DP/ZeRO per stage: rs_g = rs_w = 0.5, τ_f = 0.125, τ_b = 0.25, m = 10, overlap 1. */
static void test_x4_dp(void **state)
{
    (void)state;
    /* z0: max(0, 2·0.5 − 0.25) = 0.75 */
    assert_true(comm_dp(0, 10, 0.5, 0.5, 1.0, 0.125, 0.25) == 0.75);
    /* z1: (0.5 − 0.25) + (0.5 − 0.125) = 0.625 */
    assert_true(comm_dp(1, 10, 0.5, 0.5, 1.0, 0.125, 0.25) == 0.625);
    /* z2: 10·0.25 + 0.375 = 2.875 */
    assert_true(comm_dp(2, 10, 0.5, 0.5, 1.0, 0.125, 0.25) == 2.875);
    /* z3: 10·max(0, 2·0.5 + 0.5 − 0.375) = 11.25 */
    assert_true(comm_dp(3, 10, 0.5, 0.5, 1.0, 0.125, 0.25) == 11.25);
    /* z3 hidden entirely: τ large → 0 */
    assert_true(comm_dp(3, 10, 0.5, 0.5, 1.0, 1.0, 1.0) == 0.0);
}

/* X15 a collective of T under a window W with compute s = 0.25 slower
 * (contention s/(1 + s) = 0.2): T = 1, W = 2: the slowed window lasts
 * 2.5 > 1, so the collective is hidden but the window ends 1·0.2 = 0.2 late;
 * T = 1, W = 0.5: the window (0.625 slowed) ends before the collective, which
 * is exposed 1 − 0.5 = 0.5 (> 0.2); T = 1, W = 0.9: max(0.1, 0.2) = 0.2 —
 * between W and (1 + s)·W the slowed compute sets the stretch, not the
 * collective. Without overlap (W = 0) all of T is exposed; s = 0 is X4's max(). */
static void test_x15_contention(void **state)
{
    (void)state;
    const double c = 0.25 / (1.0 + 0.25);
    assert_true(fabs(comm_contended(comm_pos(1.0 - 2.0), 1.0, c) - 0.2) < 1e-15);
    assert_true(comm_contended(comm_pos(1.0 - 0.5), 1.0, c) == 0.5);
    assert_true(fabs(comm_contended(comm_pos(1.0 - 0.9), 1.0, c) - 0.2) < 1e-15);
    assert_true(comm_contended(comm_pos(1.0 - 0.0), 1.0, c) == 1.0);
    assert_true(comm_contended(comm_pos(1.0 - 2.0), 1.0, 0.0) == 0.0);
    /* the exposed time grows with T and with s, never with the window */
    double last = 0.0;
    for (double T = 0.0; T <= 4.0; T += 0.25) {
        const double e = comm_contended(comm_pos(T - 1.5), T, c);
        assert_true(e >= last && e <= T);
        assert_true(e >= comm_contended(comm_pos(T - 1.5), T, 0.1));
        assert_true(e >= comm_contended(comm_pos(T - 2.5), T, c));
        last = e;
    }
}

/* X33 the CP ring's contention across nodes: c channels of S SMs, compute
 * on S − c, s = c/(S − c), X15's s/(1 + s) = c/S: NCCL's 2 network
 * channels of the H100's 132 SMs, 2/132 = 0.0151515; a ring step of
 * T = 0.00147992 s hidden behind a window of 0.00430501 s is charged
 * T·c/S = 0.00147992·2/132 = 2.24230e-05 s (X15's s = 0.189:
 * 0.00147992·0.189/1.189 = 2.35243e-04 s). Off (negative): no channels,
 * no SM count, or c >= S. */
static void test_x33_cp_net_contention(void **state)
{
    (void)state;
    const double c = comm_cp_net_contention(2, 132);
    assert_true(fabs(c - 2.0 / 132.0) < 1e-15);
    assert_true(fabs(c - 0.0151515) < 1e-7);
    const double s = 2.0 / 130.0; /* F32's stretch c/(S − c) */
    assert_true(fabs(c - s / (1.0 + s)) < 1e-15);
    const double T = 0.00147992;
    assert_true(fabs(comm_contended(comm_pos(T - 0.00430501), T, c) - 2.24230e-05) < 1e-10);
    assert_true(fabs(comm_contended(comm_pos(T - 0.00430501), T, 0.189 / 1.189) - 2.35243e-04) <
                1e-9);
    /* a transfer longer than its window stays exposed by the difference */
    assert_true(comm_contended(comm_pos(T - 0.001), T, c) == comm_pos(T - 0.001));
    assert_true(comm_cp_net_contention(0, 132) < 0.0);
    assert_true(comm_cp_net_contention(2, 0) < 0.0);
    assert_true(comm_cp_net_contention(132, 132) < 0.0);
}

/* X16 a layer's four TP collectives at t = 4, T_ar = 1 (each T_ar/2 =
 * 0.5), GEMM times g = {0.4, 0.2, 0.8, 0.8}, overlap 1: each hides behind
 * 3/4 of its GEMM: max(0, 0.5 − 0.3) + max(0, 0.5 − 0.15) + 0 + 0 = 0.55;
 * with s = 0.25 (s/(1 + s) = 0.2, 0.1 a collective):
 * 0.2 + 0.35 + 0.1 + 0.1 = 0.75; overlap 0: 4·0.5 = 2 = X1's 2·T_ar. */
static void test_x16_micro_pipeline(void **state)
{
    (void)state;
    const double g[4] = {0.4, 0.2, 0.8, 0.8};
    assert_true(fabs(comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.0) - 0.55) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.2) - 0.75) < 1e-15);
    assert_true(comm_tp_micro_pipeline(1.0, 4.0, g, 0.0, 0.2) == 2.0);
    /* never below X1's window of the whole layer (τ_lf ≥ Σ g = 2.2) */
    assert_true(comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.0) >= comm_tp_fwd(1.0, 1.0, 1.0, 2.2));
}

/* X21 the two all-gathers an op-level selective recompute re-runs, T_ar = 1
 * (each T_ag = T_ar/2 = 0.5), t = 4 with X16 at overlap 1 (hide = 3/4), QKV
 * g = 0.8 with wk's r = 1/6 recomputed, MLP in g = 0.8 with w3's r = 1/2:
 * max(0, 0.5 − 0.75·(1/6)·0.8) + max(0, 0.5 − 0.75·0.5·0.8) = 0.4 + 0.2 = 0.6;
 * s/(1 + s) = 0.2 (a floor of 0.1 each) changes nothing; MLP in g = 2:
 * 0.75·0.5·2 = 0.75 ≥ 0.5, so 0 exposed, the floor 0.1: 0.4 + 0.1 = 0.5;
 * hide 0 (no micro-pipeline): 0.5 + 0.5 = 1 = T_ar, the forward's two
 * all-gathers; r = 0 (GELU: no recomputed matmul after the MLP's gather):
 * that all-gather hides nothing, 0.5. */
static void test_x21_op_recompute(void **state)
{
    (void)state;
    assert_true(fabs(comm_tp_op_recompute(0.5, 0.75, 1.0 / 6.0, 0.8, 0.5, 0.8, 0.0) - 0.6) < 1e-15);
    assert_true(fabs(comm_tp_op_recompute(0.5, 0.75, 1.0 / 6.0, 0.8, 0.5, 0.8, 0.2) - 0.6) < 1e-15);
    assert_true(fabs(comm_tp_op_recompute(0.5, 0.75, 1.0 / 6.0, 0.8, 0.5, 2.0, 0.2) - 0.5) < 1e-15);
    assert_true(comm_tp_op_recompute(0.5, 0.0, 1.0 / 6.0, 0.8, 0.5, 0.8, 0.2) == 1.0);
    assert_true(fabs(comm_tp_op_recompute(0.5, 0.75, 1.0 / 6.0, 0.8, 0.0, 0.8, 0.0) - 0.9) < 1e-15);
    /* never more than T_ar, never less than X16's exposure of the same two
     * all-gathers behind their whole GEMMs (r = 1) */
    const double g[4] = {0.8, 0.0, 0.8, 0.0};
    for (double r = 0.0; r <= 1.0; r += 0.125) {
        const double e = comm_tp_op_recompute(0.5, 0.75, r, 0.8, r, 0.8, 0.2);
        assert_true(e <= 1.0);
        assert_true(e >= comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.2) - 1.0); /* minus the two RS */
    }
}

/* X28 one DTensor Shard(1) copy: read and write the gathered tensor at
 * W·η_W. Llama 3 8B at b 12, s' 8192: S_tp = 2·12·8192·4096 = 805306368
 * bytes; on the Grand Teton H100 (2.4 TB/s, η_W 1): 2·805306368/2.4e12 =
 * 6.7108864e-4 s; X22's float8 all-gather half the bytes, 3.3554432e-4 s;
 * per layer 2·c_ag + 2·c_rs = 4·6.7108864e-4 = 2.68435456e-3 s (bf16).
 * W·η_W = 0 (textbook compute, nothing timed by bytes): 0. */
static void test_x28_seq_copy(void **state)
{
    (void)state;
    const double s_tp = 2.0 * 12 * 8192 * 4096;
    assert_true(s_tp == 805306368.0);
    assert_true(fabs(comm_tp_seq_copy(s_tp, 2.4e12) - 6.7108864e-4) < 1e-18);
    assert_true(fabs(comm_tp_seq_copy(0.5 * s_tp, 2.4e12) - 3.3554432e-4) < 1e-18);
    assert_true(fabs(4.0 * comm_tp_seq_copy(s_tp, 2.4e12) - 2.68435456e-3) < 1e-17);
    assert_true(comm_tp_seq_copy(s_tp, 0.0) == 0.0);
}

/* X24 the backward's four TP collectives with the reduce-scatters async TP
 * leaves unfused: t = 4, overlap 1 (hide 3/4), T_i = 0.5 each, g = {0.4,
 * 0.2, 0.8, 0.8} as X16's test. All fused (no u_i) is X16's sum bit for
 * bit, 0.55 (0.75 with s/(1 + s) = 0.2). QKV unfused (GELU: u = 1, 0, 0,
 * 0): 0.5 + max(0, 0.5 − 0.15) + 0 + 0 = 0.85; with 0.2: 0.5 + 0.35 + 0.1
 * + 0.1 = 1.05. QKV and MLP in unfused (SwiGLU): 0.5 + 0.35 + 0.5 + 0 =
 * 1.35; with 0.2: 0.5 + 0.35 + 0.5 + 0.1 = 1.45. Overlap 0: 4·0.5 = 2 =
 * plain TP's, whatever is unfused. Properties: unfusing never shortens,
 * more overlap never lengthens, never above plain TP's 2. */
static void test_x24_unfused(void **state)
{
    (void)state;
    const double g[4] = {0.4, 0.2, 0.8, 0.8}, part[4] = {0.5, 0.5, 0.5, 0.5};
    const bool none[4] = {false, false, false, false}, gelu[4] = {true, false, false, false};
    const bool swiglu[4] = {true, false, true, false};
    assert_true(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.0, none) ==
                comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.0));
    assert_true(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.2, none) ==
                comm_tp_micro_pipeline(1.0, 4.0, g, 1.0, 0.2));
    assert_true(fabs(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.0, gelu) - 0.85) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.2, gelu) - 1.05) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.0, swiglu) - 1.35) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_unfused(part, 4.0, g, 1.0, 0.2, swiglu) - 1.45) < 1e-15);
    assert_true(comm_tp_micro_pipeline_unfused(part, 4.0, g, 0.0, 0.2, swiglu) == 2.0);
    for (double ov = 0.0; ov <= 1.0; ov += 0.125) {
        const double e_none = comm_tp_micro_pipeline_unfused(part, 4.0, g, ov, 0.2, none);
        const double e_gelu = comm_tp_micro_pipeline_unfused(part, 4.0, g, ov, 0.2, gelu);
        const double e_swi = comm_tp_micro_pipeline_unfused(part, 4.0, g, ov, 0.2, swiglu);
        assert_true(e_none <= e_gelu && e_gelu <= e_swi && e_swi <= 2.0);
        assert_true(comm_tp_micro_pipeline_unfused(part, 4.0, g, ov + 0.125, 0.2, swiglu) <= e_swi);
    }
}

/* X22 X16 with each collective's own time: t = 4, overlap 1 (hide 3/4),
 * g = {0.4, 0.2, 0.8, 0.8} as X16's test; float8 all-gathers T_ag = 0.25
 * before QKV and MLP in, reduce-scatters 0.5 after out and MLP out:
 * max(0, 0.25 − 0.3) + max(0, 0.5 − 0.15) + max(0, 0.25 − 0.6) +
 * max(0, 0.5 − 0.6) = 0 + 0.35 + 0 + 0 = 0.35; s/(1 + s) = 0.2:
 * 0.05 + 0.35 + 0.05 + 0.1 = 0.55. Backward's order (all-gathers before
 * out and MLP out): 0.2 + 0.1 + 0 + 0 = 0.3; with 0.2: 0.2 + 0.1 + 0.1 +
 * 0.05 = 0.45. All four 0.5 is X16's E_f, bit for bit; float8 never
 * slower. */
static void test_x22_parts(void **state)
{
    (void)state;
    const double g[4] = {0.4, 0.2, 0.8, 0.8};
    const double fwd[4] = {0.25, 0.5, 0.25, 0.5}, bwd[4] = {0.5, 0.25, 0.5, 0.25};
    const double same[4] = {0.5, 0.5, 0.5, 0.5};
    assert_true(fabs(comm_tp_micro_pipeline_parts(fwd, 4.0, g, 1.0, 0.0) - 0.35) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_parts(fwd, 4.0, g, 1.0, 0.2) - 0.55) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_parts(bwd, 4.0, g, 1.0, 0.0) - 0.3) < 1e-15);
    assert_true(fabs(comm_tp_micro_pipeline_parts(bwd, 4.0, g, 1.0, 0.2) - 0.45) < 1e-15);
    for (int ov = 0; ov <= 1; ov++)
        for (int c = 0; c <= 1; c++) {
            const double x16 = comm_tp_micro_pipeline(1.0, 4.0, g, ov, 0.2 * c);
            assert_true(comm_tp_micro_pipeline_parts(same, 4.0, g, ov, 0.2 * c) == x16);
            assert_true(comm_tp_micro_pipeline_parts(fwd, 4.0, g, ov, 0.2 * c) <= x16);
            assert_true(comm_tp_micro_pipeline_parts(bwd, 4.0, g, ov, 0.2 * c) <= x16);
        }
}

/* X5 optimizer: N_gpu·(2 + 2 + 2·12)/W, W = 5.3e12. */
static void test_x5_optimizer(void **state)
{
    (void)state;
    /* z0: 175e9·28/5.3e12 = 0.92452830… */
    assert_rel(comm_optimizer(175e9, 0, 64, 2, 2, 12, 5.3e12), 0.9245283018867925, 1e-14);
    /* z≥1: 175e9/64·28/5.3e12 = 0.01444575… */
    assert_rel(comm_optimizer(175e9, 1, 64, 2, 2, 12, 5.3e12), 0.014445754716981132, 1e-14);
    assert_rel(comm_optimizer(175e9, 3, 64, 2, 2, 12, 5.3e12), 0.014445754716981132, 1e-14);
}

/* ZeRO-3 dp traffic per step grows with m: GPT-3, dp 64, t = p = 1, z = 3.
 * N_gpu = 175e9, S_w = S_g = 350e9 B over (64, stride 1): n_in 8, n_out 8:
 * T_rs = 7/8·S/448e9 + 14e-6 + 7/8·(S/8)/50e9 + 35e-6 = 0.68359375 + 0.765625 + 0.000049
 *      = 1.44926775 s; per micro-batch 2·T_rs(S_w) + T_rs(S_g) = 4.34780325 s. */
static void test_zero3_dp_grows_with_m(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(64, 1, 1, 1);
    p.zero = 3;
    p.overlap.dp = 0.0;
    double prev = 0.0;
    for (int64_t m = 1; m <= 32; m *= 2) {
        s.training.global_batch = 64 * m;
        const pe_result r = fx_eval(&s, &p);
        assert_int_equal(r.microbatches, m);
        assert_rel(r.dp_comm_s, (double)m * 4.34780325, 1e-12);
        assert_true(r.dp_comm_s > prev);
        prev = r.dp_comm_s;
    }
    /* with overlap 1 it still never shrinks as m grows */
    p.overlap.dp = 1.0;
    prev = 0.0;
    for (int64_t m = 1; m <= 32; m *= 2) {
        s.training.global_batch = 64 * m;
        const pe_result r = fx_eval(&s, &p);
        assert_true(r.dp_comm_s >= prev);
        prev = r.dp_comm_s;
    }
    assert_true(prev > 0.0);
}

/* Tiers through the evaluator (64 MI300X GPUs). */
static void test_eval_tiers(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(8, 8, 1, 1); /* tp 8 in a node; dp 8 at stride 8: one per node */
    pe_result r = fx_eval(&s, &p);
    assert_int_equal(r.tier_tp, PE_TIER_INTRA);
    assert_int_equal(r.tier_cp, PE_TIER_NONE);
    assert_int_equal(r.tier_dp, PE_TIER_INTER);
    assert_int_equal(r.tier_pp, PE_TIER_NONE);
    p = fx_plan(2, 2, 4, 4); /* cp 4 at stride 2: n_in 4 (intra); dp·c = 8 at stride 2: n_in 4, n_out 2;
                                pp 4 at stride t·c·dp = 16: inter */
    r = fx_eval(&s, &p);
    assert_int_equal(r.tier_tp, PE_TIER_INTRA);
    assert_int_equal(r.tier_cp, PE_TIER_INTRA);
    assert_int_equal(r.tier_dp, PE_TIER_INTER);
    assert_int_equal(r.tier_pp, PE_TIER_INTER);
    s = fx_gpt3(1); /* one node: pp 4 at stride 2 → n_in 4 → intra */
    p = fx_plan(2, 1, 4, 1);
    r = fx_eval(&s, &p);
    assert_int_equal(r.tier_pp, PE_TIER_INTRA);
    assert_int_equal(r.tier_dp, PE_TIER_INTRA);
    assert_int_equal(r.tier_tp, PE_TIER_NONE);
    s = fx_gpt3(2); /* two nodes: pp 8 at stride 2: n_in 4, n_out 2 → inter */
    p = fx_plan(2, 1, 8, 1);
    r = fx_eval(&s, &p);
    assert_int_equal(r.tier_pp, PE_TIER_INTER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_net_units),     cmocka_unit_test(test_c1_placement),
        cmocka_unit_test(test_c2_bandwidth),  cmocka_unit_test(test_c4_c5),
        cmocka_unit_test(test_c6_all_to_all), cmocka_unit_test(test_c7_p2p),
        cmocka_unit_test(test_tier),          cmocka_unit_test(test_x1_tp),
        cmocka_unit_test(test_x2_cp),         cmocka_unit_test(test_x3_pp),
        cmocka_unit_test(test_x4_dp),         cmocka_unit_test(test_x5_optimizer),
        cmocka_unit_test(test_zero3_dp_grows_with_m), cmocka_unit_test(test_eval_tiers),
        cmocka_unit_test(test_x15_contention), cmocka_unit_test(test_x16_micro_pipeline),
        cmocka_unit_test(test_x33_cp_net_contention),
        cmocka_unit_test(test_x19_cp_allgather),
        cmocka_unit_test(test_x21_op_recompute), cmocka_unit_test(test_x22_parts),
        cmocka_unit_test(test_x28_seq_copy),
        cmocka_unit_test(test_x24_unfused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
