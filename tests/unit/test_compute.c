/* test_compute.c — docs/model.md §4, F1–F6, against hand arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"

/* F1, F2, F3, F4 for GPT-3 175B, B = 1536. */
static void test_gpt3_flops(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    const pe_model *m = &s.model;
    /* F1 2·N_mm + 4·s·h·κ = 2·1,811,939,328 + 4·2048·12288 = 3,623,878,656 + 100,663,296
     *    = 3,724,541,952 (N_mm from the dimensions, though params = 175e9 is set) */
    assert_true(compute_layer(m) == 3724541952.0);
    assert_true(compute_attention(m) == 100663296.0);
    /* F2 2·h·V = 2·12288·51200 = 1,258,291,200 */
    assert_true(compute_out(m) == 1258291200.0);
    /* F3 3·1536·2048·(96·3,724,541,952 + 1,258,291,200) = 9,437,184·358,814,318,592
     *    = 3,386,196,746,387,324,928 ≈ 3.386e18 */
    assert_rel(compute_model(m, 1536), 3386196746387324928.0, 1e-15);
    /* F4 x: full F_layer, selective 4·s·h·κ, none 0 */
    assert_true(compute_recompute(m, PE_RECOMPUTE_FULL) == 3724541952.0);
    assert_true(compute_recompute(m, PE_RECOMPUTE_SELECTIVE) == 100663296.0);
    assert_true(compute_recompute(m, PE_RECOMPUTE_NONE) == 0.0);
    /* F_hw = F_model + B·s·L·x: selective + 1536·2048·96·100,663,296 = 3,416,596,043,872,075,776;
     * full + 1536·2048·96·3,724,541,952 = 4,510,970,753,323,106,304; none = F_model */
    assert_rel(compute_hardware(m, 1536, PE_RECOMPUTE_SELECTIVE), 3416596043872075776.0, 1e-15);
    assert_rel(compute_hardware(m, 1536, PE_RECOMPUTE_FULL), 4510970753323106304.0, 1e-15);
    assert_true(compute_hardware(m, 1536, PE_RECOMPUTE_NONE) == compute_model(m, 1536));
    /* κ = 0.5 with causal_flops: 4·s·h·κ = 50,331,648; F1 3,673,210,304 + ... */
    s.model.causal_flops = true;
    assert_true(compute_kappa(m) == 0.5);
    assert_true(compute_attention(m) == 50331648.0);
    assert_true(compute_layer(m) == 3623878656.0 + 50331648.0);
}

/* F3 equals 72·B·s·L·h²·(1 + s/(6h) + V/(12·h·L)) for GPT shapes (f = 4h,
 * g = a, gelu, κ = 1): N_mm = 12h², so 3Bs(L(24h² + 4sh) + 2hV)
 * = 72BsLh² + 12BsLsh + 6BshV. */
static void test_f3_identity(void **state)
{
    (void)state;
    static const struct {
        int64_t L, h, a, V, s, B;
    } shapes[] = {
        {96, 12288, 96, 51200, 2048, 1536},  /* GPT-3 175B */
        {24, 2048, 16, 51200, 2048, 512},    /* GPT-3 1.3B */
        {105, 20480, 128, 51200, 2048, 2520}, /* MT-NLG 530B */
        {128, 25600, 160, 51200, 2048, 3072}, /* 1T */
        {12, 768, 12, 50257, 1024, 8},        /* GPT-2 small */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        pe_scenario sc = fx_gpt3(1);
        pe_model *m = &sc.model;
        m->layers = shapes[i].L;
        m->hidden = shapes[i].h;
        m->heads = shapes[i].a;
        m->kv_heads = shapes[i].a;
        m->ffn_hidden = 4 * shapes[i].h;
        m->vocab = shapes[i].V;
        m->seq_len = shapes[i].s;
        const double L = (double)shapes[i].L, h = (double)shapes[i].h, V = (double)shapes[i].V;
        const double s = (double)shapes[i].s, B = (double)shapes[i].B;
        const double narayanan = 72.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * L));
        assert_rel(compute_model(m, B), narayanan, 1e-12);
    }
}

/* F5, F6 per micro-batch on a stage: GPT-3, t = 8, p = 8 (L/p = 12), b = 1, s' = 2048. */
static void test_per_microbatch(void **state)
{
    (void)state;
    const double Fl = 3724541952.0, Fo = 1258291200.0, xs = 100663296.0;
    const double rate = 1307.4e12 * 0.5; /* 653.7e12 FLOP/s */
    /* F5 stage 0: 1·2048·12·3,724,541,952/8 = 11,441,792,876,544 */
    const double ff0 = compute_fwd(1, 2048, 12, Fl, Fo, 0, 8);
    assert_true(ff0 == 11441792876544.0);
    /* last stage adds F_out: 2048·(44,694,503,424 + 1,258,291,200)/8 = 11,763,915,423,744 */
    assert_true(compute_fwd(1, 2048, 12, Fl, Fo, 1, 8) == 11763915423744.0);
    /* F5 bwd, no recompute: 2·f_fwd */
    assert_true(compute_bwd(ff0, 1, 2048, 12, 0, 8) == 2.0 * ff0);
    /* selective: 2·11,441,792,876,544 + 2048·12·100,663,296/8 = 22,883,585,753,088 + 309,237,645,312
     *          = 23,192,823,398,400 */
    assert_true(compute_bwd(ff0, 1, 2048, 12, xs, 8) == 23192823398400.0);
    /* F6 τ_f = 11,441,792,876,544/653.7e12 = 0.0175031251 s */
    assert_rel(compute_time(ff0, rate), 0.017503125097971545, 1e-14);
    /* τ_lf = 2048·3,724,541,952/8/653.7e12 = 0.00145859376 s */
    assert_rel(compute_layer_fwd_time(1, 2048, Fl, 8, rate), 0.0014585937581642954, 1e-14);
    /* τ_lb (selective) = (2·2048·F_layer + 2048·4sh)/8/653.7e12 = 0.00295660897 s */
    assert_rel(compute_layer_bwd_time(1, 2048, Fl, xs, 8, rate), 0.0029566089692519503, 1e-14);
    /* τ_att = 2048·100,663,296/8/653.7e12 = 3.94214529e-5 s */
    assert_rel(compute_attention_time(1, 2048, xs, 8, rate), 3.942145292335934e-05, 1e-14);
}

/* Through the evaluator: compute_s = m·(τ_f + τ_b) of the time stage; hfu/mfu = F_hw/F_model. */
static void test_compute_column(void **state)
{
    (void)state;
    pe_scenario s = fx_gpt3(8);
    pe_plan p = fx_plan(1, 8, 8, 1);
    p.recompute = PE_RECOMPUTE_SELECTIVE;
    const pe_result r = fx_eval(&s, &p);
    /* m = 1536; last stage: τ_f = 11,763,915,423,744/653.7e12,
     * τ_b = (2·11,763,915,423,744 + 309,237,645,312)/653.7e12 → m·(τ_f + τ_b)
     * = 1536·35,601,003,916,544/653.7e12 = 83.6512 s */
    assert_int_equal(r.time_stage, 7);
    assert_rel(r.compute_s, 1536.0 * (11763915423744.0 + 23527830847488.0 + 309237645312.0) / 653.7e12,
               1e-13);
    /* hfu/mfu = F_hw/F_model = 3,416,596,043,872,075,776/3,386,196,746,387,324,928 */
    assert_rel(r.hfu / r.mfu, 3416596043872075776.0 / 3386196746387324928.0, 1e-13);
}

/* F25 torchtitan's op-level policy recomputes wk, wo and w3 (SwiGLU) or w2:
 * Llama 3 8B (h 4096, a 32, g 8, d 128, f 14336):
 * 2·4096·8·128 + 2·32·128·4096 + 2·4096·14336
 * = 8,388,608 + 33,554,432 + 117,440,512 = 159,383,552 FLOPs per token;
 * GPT-3 175B (h 12288, a = g = 96, d 128, f 49152):
 * 2·12288·96·128·2 + 2·12288·49152 = 603,979,776 + 1,207,959,552. */
/* F29 a column-parallel GEMM K = 1000, N = 2000 as t = 4 chunks of M/4 rows,
 * peak·e_max = 1e12 FLOP/s: flop = 2·1000·2000/1e12 = 4e-6 s per row (before
 * /t), t_half = 1e-3 s.
 *  W = 1e12 B/s, M = 8000: whole GEMM 8000/4·4e-6 + 1e-3 = 9e-3 s (memory
 *  8000·(2e-9 + 4e-9/4) + 4e-6/4 = 2.5e-5); one chunk of 2000 rows
 *  2000/4·4e-6 + 1e-3 = 3e-3, the four 1.2e-2 s (a third slower).
 *  t_half = 0: 8e-3 s both, bit for bit.
 *  W = 1e10 B/s, M = 100, t_half = 0 (memory bound): mem_m = 2e-7, mem_mt =
 *  4e-7, mem_kn = 4e-4; whole 100·(2e-7 + 1e-7) + 4e-4/4 = 1.3e-4 s (compute
 *  1e-4); one chunk of 25 rows 25·3e-7 + 1e-4 = 1.075e-4 (each reads the
 *  weight), the four 4.3e-4 s. */
static void test_f28_chunks(void **state)
{
    (void)state;
    const pe_gemm_shape g = {.K = 1000, .N = 2000, .k_sharded = 0};
    const pe_gemm_coef c = compute_gemm_coef(&g, 1e12, 1e12);
    assert_rel(compute_gemm_time_coef(&c, 8000, 0.25, 1e-3), 9e-3, 1e-12);
    assert_rel(compute_gemm_chunks_time_coef(&c, 8000, 4, 0.25, 1e-3), 1.2e-2, 1e-12);
    assert_rel(4.0 * compute_gemm_time_coef(&c, 2000, 0.25, 1e-3), 1.2e-2, 1e-12);
    assert_true(compute_gemm_chunks_time_coef(&c, 8000, 4, 0.25, 0.0) ==
                compute_gemm_time_coef(&c, 8000, 0.25, 0.0));
    const pe_gemm_coef slow = compute_gemm_coef(&g, 1e12, 1e10);
    assert_rel(compute_gemm_time_coef(&slow, 100, 0.25, 0.0), 1.3e-4, 1e-12);
    assert_rel(compute_gemm_chunks_time_coef(&slow, 100, 4, 0.25, 0.0), 4.3e-4, 1e-12);
    /* t = 1: one chunk, the whole GEMM */
    assert_true(compute_gemm_chunks_time_coef(&c, 8000, 1, 1.0, 1e-3) ==
                compute_gemm_time_coef(&c, 8000, 1.0, 1e-3));
}

/* F29's property: t chunks of M/t rows are never faster than the whole GEMM
 * nor than t times one chunk timed alone by F8 (they are exactly that), over
 * shapes, sizes, t, F_half and bandwidth. */
static void test_f28_never_faster(void **state)
{
    (void)state;
    static const double dims[] = {128, 1000, 4096, 28672};
    static const double rows[] = {1, 64, 4096, 131072};
    for (int k = 0; k < 4; k++)
        for (int n = 0; n < 4; n++)
            for (int sh = 0; sh <= 1; sh++)
                for (int r = 0; r < 4; r++)
                    for (double t = 1; t <= 16; t *= 2)
                        for (double th = 0; th <= 1e-4; th += 5e-5)
                            for (double W = 1e10; W <= 1e13; W *= 100) {
                                const pe_gemm_shape g = {dims[k], dims[n], sh};
                                const pe_gemm_coef c = compute_gemm_coef(&g, 5e14, W);
                                const double M = rows[r] * t;
                                const double all = compute_gemm_chunks_time_coef(&c, M, t,
                                                                                 1.0 / t, th);
                                assert_true(all >= compute_gemm_time_coef(&c, M, 1.0 / t, th));
                                const double one = compute_gemm_time_coef(&c, M / t, 1.0 / t, th);
                                assert_rel(all, t * one, 1e-12);
                            }
}

static void test_f25_op_recompute(void **state)
{
    (void)state;
    assert_true(compute_op_sac_recompute(4096, 32, 8, 128, 14336) == 159383552.0);
    assert_true(compute_op_sac_recompute(12288, 96, 96, 128, 49152) == 1811939328.0);
}

/* F39 Llama 3 8B (h 4096, g·d 1024, f 14336) on TP 8 with sequence
 * parallelism, b 12, s' 8192: M = 98304 tokens, W·η_W = 2.4e12 (η_W 1).
 * F10 under compile: rep 20h = 81920, par 106496 bytes/token, both /8:
 * e_f = 98304·(10240 + 13312)/2.4e12 = 2315255808/2.4e12 = 9.6468992e-4 s,
 * e_att = 0 (flash). F35/F36 tensorwise with X22 (gathered share 1/8):
 * fwd c·X, c = 5: gathered 5·(4096 + 4096) = 40960 (wq|wk|wv in, w1|w3
 * in), sharded 5·(4096 + 14336) = 92160 (wo in, w2 in): cast_f =
 * 98304·(5120 + 11520)/2.4e12 = 6.815744e-4 s. Tensorwise keeps the amax
 * (aten.max in _save_list): the re-cast moves 3 of 5 bytes, 4.0894464e-4
 * s, F39 = 1.37363456e-3 s. Rowwise (aten.amax, not saved): all 5, F39 =
 * 9.6468992e-4 + 6.815744e-4 = 1.64626432e-3 s. bf16 (c = 0, no casts):
 * e_f alone. Megatron-style attention element-wise e_att is not re-run:
 * e_f = 1e-3, e_att = 4e-4 → 6e-4. */
static void test_f39_op_sac_elementwise(void **state)
{
    (void)state;
    const double ef = 98304.0 * (81920.0 / 8.0 + 106496.0 / 8.0) / 2.4e12;
    const double cf = 98304.0 * (40960.0 / 8.0 + 92160.0 / 8.0) / 2.4e12;
    assert_rel(ef, 9.6468992e-4, 1e-12);
    assert_rel(cf, 6.815744e-4, 1e-12);
    assert_rel(compute_op_sac_elementwise(ef, 0.0, cf, 5.0, PE_F39_AMAX_READ_BYTES),
               1.37363456e-3, 1e-12);
    assert_rel(compute_op_sac_elementwise(ef, 0.0, cf, 5.0, 0.0), 1.64626432e-3, 1e-12);
    assert_rel(compute_op_sac_elementwise(ef, 0.0, 0.0, 0.0, 0.0), 9.6468992e-4, 1e-12);
    assert_rel(compute_op_sac_elementwise(1e-3, 4e-4, 0.0, 0.0, 0.0), 6e-4, 1e-12);
}

/* F34 one fused matmul → reduce-scatter's sum of its t partials: Llama 3
 * 8B at b 12, s' 8192, S_tp = 2·12·8192·4096 = 805306368 bytes, t = 8, on
 * 2.4 TB/s (η_W 1): read 805306368, write 805306368/8 = 100663296, so
 * 905969664/2.4e12 = 3.7748736e-4 s; t = 2: 1.5·805306368/2.4e12 =
 * 5.0331648e-4 s; W·η_W = 0 (nothing timed by bytes): 0. Never below the
 * read of the partials alone, S_tp/W. */
static void test_f34_fused_rs_reduce(void **state)
{
    (void)state;
    const double s_tp = 805306368.0;
    assert_true(fabs(compute_fused_rs_reduce(s_tp, 8.0, 2.4e12) - 3.7748736e-4) < 1e-18);
    assert_true(fabs(compute_fused_rs_reduce(s_tp, 2.0, 2.4e12) - 5.0331648e-4) < 1e-18);
    assert_true(compute_fused_rs_reduce(s_tp, 8.0, 0.0) == 0.0);
    for (double t = 2.0; t <= 64.0; t *= 2.0)
        assert_true(compute_fused_rs_reduce(s_tp, t, 2.4e12) >= s_tp / 2.4e12);
}

/* X32 one fused all-gather's copy of the local shard into its symmetric
 * buffer: Llama 3 8B at b 12, s' 8192, S_tp = 805306368 bytes gathered,
 * t = 8: the shard is 805306368/8 = 100663296 bytes, read and written,
 * 2·100663296/2.4e12 = 8.388608e-5 s; X22's float8 all-gather (S_tp/2 =
 * 402653184): 2·50331648/2.4e12 = 4.194304e-5 s; t = 2: 2·402653184/2.4e12
 * = 3.3554432e-4 s; W·η_W = 0: 0. At t ≥ 2 never more than S/W (read and
 * write of half the gathered tensor). */
static void test_x32_ag_shard_stage(void **state)
{
    (void)state;
    const double s_tp = 805306368.0;
    assert_true(fabs(compute_ag_shard_stage(s_tp, 8.0, 2.4e12) - 8.388608e-5) < 1e-18);
    assert_true(fabs(compute_ag_shard_stage(0.5 * s_tp, 8.0, 2.4e12) - 4.194304e-5) < 1e-18);
    assert_true(fabs(compute_ag_shard_stage(s_tp, 2.0, 2.4e12) - 3.3554432e-4) < 1e-18);
    assert_true(compute_ag_shard_stage(s_tp, 8.0, 0.0) == 0.0);
    for (double t = 2.0; t <= 64.0; t *= 2.0)
        assert_true(compute_ag_shard_stage(s_tp, t, 2.4e12) <= s_tp / 2.4e12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_flops),
        cmocka_unit_test(test_f3_identity),
        cmocka_unit_test(test_per_microbatch),
        cmocka_unit_test(test_compute_column),
        cmocka_unit_test(test_f25_op_recompute),
        cmocka_unit_test(test_f39_op_sac_elementwise),
        cmocka_unit_test(test_f28_chunks),
        cmocka_unit_test(test_f28_never_faster),
        cmocka_unit_test(test_f34_fused_rs_reduce),
        cmocka_unit_test(test_x32_ag_shard_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
