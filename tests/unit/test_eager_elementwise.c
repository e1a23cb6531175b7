/* test_eager_elementwise.c — docs/model.md §12 F28, the element-wise bytes
 * of torchtitan's Llama block run eagerly (framework eager_elementwise,
 * torchtitan's training.compile false) in F10's place, against hand
 * arithmetic; its neutrality (the key off, no framework, or the textbook
 * compute: the model of before bit for bit); and the property that more
 * element-wise bytes never make a step faster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eval_fixtures.h"
#include "model/compute.h"
#include "model/detail.h"

/* Llama 3 8B (the llama3-8b preset): L 32, h 4096, a 32, g 8 (d 128),
 * f 14336, V 128256, s 8192, swiglu, rmsnorm, rotary, flash, no dropout. */
static pe_model llama3_8b(void)
{
    return (pe_model){.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
                      .ffn_hidden = 14336, .vocab = 128256, .seq_len = 8192,
                      .mlp = PE_MLP_SWIGLU, .norm = PE_NORM_RMSNORM, .bias = false,
                      .dropout = false, .position = PE_POSITION_ROTARY,
                      .attention = PE_ATTENTION_FLASH};
}

/* The fixture's 8 MI300X nodes (5.3 TB/s) with the refined compute: e_max
 * 0.5, F_half 0, η_W 0.8; a framework present, eager or not. */
static pe_scenario scenario(pe_model m, bool eager, bool fused_rmsnorm)
{
    pe_scenario s = fx_gpt3(8);
    s.model = m;
    s.training.global_batch = 64;
    pe_gpu *g = &s.cluster.gpu;
    g->has_gemm_efficiency = true, g->gemm_efficiency = 0.5, g->elementwise_efficiency = 0.8;
    s.framework = (pe_framework){
        .present = true, .eager_elementwise = eager, .fused_rmsnorm = fused_rmsnorm};
    return s;
}

/* F28 bytes by hand, Llama 3 8B (h 4096, f 14336, a·d 4096, g·d 1024):
 * rep = 2·36·4096 + 2·6·4096 = 294912 + 49152 = 344064;
 * par = 10·14336 + 20·(4096 + 1024) + 4·(4096 + 1024)
 *     = 143360 + 102400 + 20480 = 266240 (repeat_kv: g 8 < a 32).
 * With fused_rmsnorm: rep = 2·4·4096 + 2·6·4096 = 81920 (F10's, δ 0).
 * F10 fused, for comparison: rep 81920, par = 6·14336 + 4·5120 = 106496.
 * Llama 2 13B (h 5120, a = g = 40, f 13824), fused_rmsnorm: rep = 20·5120
 * = 102400; par = 10·13824 + 20·(5120 + 5120) + 0 = 138240 + 204800 =
 * 343040 (no repeat_kv: g = a). */
static void test_f28_bytes(void **state)
{
    (void)state;
    double rep, par;
    const pe_model m = llama3_8b();
    compute_eager_elementwise_bytes(&m, false, &rep, &par);
    assert_true(rep == 344064.0 && par == 266240.0);
    compute_eager_elementwise_bytes(&m, true, &rep, &par);
    assert_true(rep == 81920.0 && par == 266240.0);
    double frep, fpar, att, out;
    compute_elementwise_bytes(&m, &frep, &fpar, &att, &out);
    assert_true(frep == 81920.0 && fpar == 106496.0);
    pe_model l13 = m;
    l13.hidden = 5120, l13.heads = l13.kv_heads = 40, l13.ffn_hidden = 13824;
    compute_eager_elementwise_bytes(&l13, true, &rep, &par);
    assert_true(rep == 102400.0 && par == 343040.0);
}

/* F28 through the evaluator, tp 1, b 1, s' = 8192 tokens per micro-batch,
 * W·η_W = 5.3e12·0.8 = 4.24e12 B/s, flash (att 0):
 * eager: 8192·(344064 + 266240)/4.24e12 = 1.1791533887e-3 s per layer;
 * eager with fused_rmsnorm: 8192·(81920 + 266240)/4.24e12 = 6.726713962e-4 s;
 * compiled (F10): 8192·(81920 + 106496)/4.24e12 = 3.640339321e-4 s. */
static void test_f28_time(void **state)
{
    (void)state;
    const pe_plan p = fx_plan(64, 1, 1, 1);
    const double want[3] = {1.1791533887e-3, 6.726713962e-4, 3.640339321e-4};
    const pe_scenario sc[3] = {scenario(llama3_8b(), true, false),
                               scenario(llama3_8b(), true, true),
                               scenario(llama3_8b(), false, false)};
    double step[3];
    for (int i = 0; i < 3; i++) {
        pe_result r;
        pe_detail d;
        fx_eval_detail(&sc[i], &p, &r, &d);
        assert_true(d.valid);
        assert_rel(d.tau_ew, want[i], 1e-9);
        step[i] = r.step_time_s;
    }
    assert_true(step[0] > step[1] && step[1] > step[2]);
}

/* Neutral: the key off is the model of before bit for bit, whether a
 * framework is present or not and whatever fused_rmsnorm says; and the
 * textbook compute (no gemm_efficiency: F6, no F10) ignores the key. */
static void test_f28_neutral(void **state)
{
    (void)state;
    const pe_plan plans[] = {fx_plan(64, 1, 1, 1), fx_plan(8, 8, 1, 1), fx_plan(4, 4, 4, 1)};
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        const pe_scenario off = scenario(llama3_8b(), false, false);
        pe_scenario none = off, fused_only = scenario(llama3_8b(), false, true);
        none.framework.present = false;
        const double t = fx_eval(&off, &plans[i]).step_time_s;
        assert_true(fx_eval(&none, &plans[i]).step_time_s == t);
        assert_true(fx_eval(&fused_only, &plans[i]).step_time_s == t);
        pe_scenario tb_off = off, tb_on = scenario(llama3_8b(), true, false);
        tb_off.cluster.gpu.has_gemm_efficiency = tb_on.cluster.gpu.has_gemm_efficiency = false;
        assert_true(fx_eval(&tb_off, &plans[i]).step_time_s ==
                    fx_eval(&tb_on, &plans[i]).step_time_s);
        /* an eager framework that is not in force (present false) does nothing */
        pe_scenario absent = scenario(llama3_8b(), true, false);
        absent.framework.present = false;
        assert_true(fx_eval(&absent, &plans[i]).step_time_s == t);
    }
}

/* Property: more element-wise bytes never make a step faster. For Llama 3
 * 8B, GPT-3 (gelu, layernorm, dropout, standard attention) and Mixtral
 * (MoE), over plans with TP and SP, pipeline, context parallelism, every
 * recompute and overlapped TP, the three byte counts in increasing order
 * (F10 fused ≤ F28 with fused_rmsnorm ≤ F28) give steps in the same order;
 * and F28's bytes are never below F10's for any of the models. */
static void test_f28_monotone(void **state)
{
    (void)state;
    const pe_model models[] = {llama3_8b(), fx_gpt3(1).model, fx_mixtral_8x7b()};
    const pe_plan base[] = {fx_plan(64, 1, 1, 1), fx_plan(8, 8, 1, 1), fx_plan(4, 4, 4, 1),
                            fx_plan(2, 8, 2, 2), fx_plan(16, 2, 2, 1)};
    const pe_recompute rc[] = {PE_RECOMPUTE_NONE, PE_RECOMPUTE_SELECTIVE, PE_RECOMPUTE_FULL};
    int strict = 0, valid = 0;
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        double frep, fpar, att, out, rep, par;
        compute_elementwise_bytes(&models[mi], &frep, &fpar, &att, &out);
        compute_eager_elementwise_bytes(&models[mi], false, &rep, &par);
        assert_true(rep >= frep && par >= fpar);
        for (size_t pi = 0; pi < sizeof base / sizeof base[0]; pi++)
            for (size_t ri = 0; ri < sizeof rc / sizeof rc[0]; ri++)
                for (int otp = 0; otp <= 1; otp++) {
                    pe_plan p = base[pi];
                    p.recompute = rc[ri], p.overlap.tp = otp;
                    double last = 0.0;
                    for (int k = 0; k < 3; k++) { /* fused, eager + fused_rmsnorm, eager */
                        pe_scenario s = scenario(models[mi], k > 0, k == 1);
                        s.model.seq_len = 4096;
                        const pe_result r = fx_eval(&s, &p);
                        if (r.status == PE_STATUS_INVALID)
                            break;
                        valid += k == 0;
                        assert_true(r.step_time_s >= last);
                        strict += k == 2 && r.step_time_s > last;
                        last = r.step_time_s;
                    }
                }
    }
    assert_true(valid > 20 && strict > 20); /* not vacuous: plans valid, the bytes moved them */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f28_bytes),
        cmocka_unit_test(test_f28_time),
        cmocka_unit_test(test_f28_neutral),
        cmocka_unit_test(test_f28_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
