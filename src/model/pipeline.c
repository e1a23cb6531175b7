/* pipeline.c — docs/model.md §7, pipeline bubble B1–B4 (§12 B5). */
#include "model/pipeline.h"

#include "model/prepare.h"

extern inline double pipe_stage_time(double tau, double chi_tp, double chi_cp);
extern inline double pipe_bubble(pe_schedule schedule, double p, double v, double t_f,
                                 double t_b);
extern inline double pipe_bubble_by_stage(pe_schedule schedule, double v, double others_f,
                                          double others_b);
extern inline double pipe_bubble_dualpipe(double p, double t_f, double t_b);
extern inline double pipe_bubble_fraction(double bubble, double m, double t_f, double t_b);

void pipeline_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    ctx->bubble_by_stage = sc->framework.present && sc->framework.bubble_by_stage; /* B5 */
}
