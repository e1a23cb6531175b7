/* pipeline.h — docs/model.md §7, pipeline bubble B1–B4.
 * t_f = τ_f + χ_tp,f + χ_cp,f and t_b = τ_b + χ_tp,b + χ_cp,b are the
 * per-micro-batch stage times including exposed TP and CP communication. */
#ifndef PLANEVAL_MODEL_PIPELINE_H
#define PLANEVAL_MODEL_PIPELINE_H

#include "core/scenario.h"

/* §7 per-micro-batch stage time t_f (or t_b): τ + χ_tp + χ_cp */
#define PE_TEXT_STAGE_TIME {"§7", "t_f, t_b", "τ + χ_tp + χ_cp", "s", "spec"}
#define PE_TEXT_STAGE_TIME_MOE {"§7:moe", "t_f, t_b", "τ + χ_tp + χ_cp + χ_ep + χ_etp", "s", "spec"}
inline double pipe_stage_time(double tau, double chi_tp, double chi_cp)
{
    return tau + chi_tp + chi_cp;
}

/* B1–B4 bubble per step; p = 1 → 0.
 *  B1 gpipe, 1f1b: (p−1)·(t_f + t_b)
 *  B2 interleaved: (p−1)·(t_f + t_b)/v
 *  B3 zb-h1: (p−1)·t_f
 *  B4 zb-h2: 0 */
#define PE_TEXT_B_1F1B {"B:1f1b", "bubble", "(p−1)·(t_f + t_b)   B1", "s", "GPipe; Narayanan §2.2"}
#define PE_TEXT_B_INTERLEAVED \
    {"B:interleaved", "bubble", "(p−1)·(t_f + t_b)/v   B2", "s", "GPipe; Narayanan §2.2"}
#define PE_TEXT_B_GPIPE {"B:gpipe", "bubble", "(p−1)·(t_f + t_b)   B1", "s", "GPipe; Narayanan §2.2"}
/* B2′ interleaved with a given pipeline_layout (V3″): the fill and drain
 * pass p−1 chunks of the time stage w at the pace of its largest chunk c_w,
 * so B2's v becomes v_w = L_w/c_w; chunks of equal size give B2 (v_w = v).
 * Llama 3 405B (Llama Team 2024 §3.3.2: the first chunk of stage 0 holds
 * only the embedding, the last of stage p−1 only the loss) then keeps B2. */
#define PE_TEXT_B_INTERLEAVED_LAYOUT \
    {"B2′", "bubble", "(p−1)·(t_f + t_b)/v_w, v_w = L_w/c_w   B2′", "s", \
     "Narayanan §2.2.2; Megatron-Core pipeline layout"}
#define PE_TEXT_B_ZB_H1 {"B:zb-h1", "bubble", "(p−1)·t_f   B3", "s", "Qi 2023"}
#define PE_TEXT_B_ZB_H2 {"B:zb-h2", "bubble", "0   B4", "s", "Qi 2023"}
#define PE_TEXT_B_P1 {"B:p1", "bubble", "0 (p = 1)", "s", "spec"}
/* B6 dualpipe (docs/model.md §12, refined only): DeepSeek-V3 Table 2 gives
 * (PP/2 − 1)(F&B + B − 3W) against 1F1B's (PP − 1)(F + B), F&B the time of
 * a forward and a backward chunk run overlapped, W the weight-gradient part
 * of B. Assumed from what the model has: F&B = t_f + t_b (the overlap hides
 * communication, which t_f, t_b already leave out where overlap.ep hides it;
 * no compute is saved), B = t_b and W = t_b/2 (the weight-gradient GEMMs are
 * half of the backward's, as B3 takes them), so B6 = (p/2 − 1)(t_f + t_b/2). */
#define PE_TEXT_B_DUALPIPE \
    {"B6", "bubble", "(p/2 − 1)·(F&B + B − 3W), F&B = t_f + t_b, B = t_b, W = t_b/2", "s", \
     "DeepSeek-V3 arXiv:2412.19437 §3.2.1 Table 2"}
inline double pipe_bubble_dualpipe(double p, double t_f, double t_b)
{
    const double fb = t_f + t_b, b = t_b, w = 0.5 * t_b; /* assumed, see above */
    return (0.5 * p - 1.0) * (fb + b - 3.0 * w);
}
inline double pipe_bubble(pe_schedule schedule, double p, double v, double t_f, double t_b)
{
    if (p == 1.0)
        return 0.0;
    switch (schedule) {
    case PE_SCHEDULE_INTERLEAVED:
        return (p - 1.0) * (t_f + t_b) / v; /* B2 */
    case PE_SCHEDULE_ZB_H1:
        return (p - 1.0) * t_f; /* B3 */
    case PE_SCHEDULE_ZB_H2:
        return 0.0; /* B4 */
    case PE_SCHEDULE_DUALPIPE:
        return pipe_bubble_dualpipe(p, t_f, t_b); /* B6 */
    default:
        return (p - 1.0) * (t_f + t_b); /* B1 */
    }
}

/* B5 (docs/model.md §12, framework bubble_by_stage): fill and drain pass
 * each stage at its own pace and only the steady phase runs at the slowest
 * stage's, so a step is (m−1)·t_w + Σ_j t_j (DAPPLE's planner) and the
 * bubble sums the other stages' times where B1–B4 count p−1 copies of the
 * slowest: others_f = Σ_{j≠w} t_f,j, others_b likewise.
 *  B1 gpipe, 1f1b: others_f + others_b;  B2 interleaved: the same / v;
 *  B3 zb-h1: others_f;  B4 zb-h2: 0. The caller keeps the smaller of B5 and
 *  B1–B4 (B3 picks the slowest stage by t_f + t_b, not by t_f). */
inline double pipe_bubble_by_stage(pe_schedule schedule, double v, double others_f,
                                   double others_b)
{
    switch (schedule) {
    case PE_SCHEDULE_INTERLEAVED:
        return (others_f + others_b) / v;
    case PE_SCHEDULE_ZB_H1:
        return others_f;
    case PE_SCHEDULE_ZB_H2:
        return 0.0;
    default:
        return others_f + others_b;
    }
}

/* §7 bubble_fraction = bubble / (m·(t_f + t_b)) */
#define PE_TEXT_B_FRACTION \
    {"§7:fraction", "bubble_fraction", \
     "bubble / (m·(t_f + t_b))", \
     "", "spec"}
inline double pipe_bubble_fraction(double bubble, double m, double t_f, double t_b)
{
    return bubble / (m * (t_f + t_b));
}

#endif
