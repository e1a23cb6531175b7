/* run.c — docs/model.md §15, the whole run: the scenario-level numbers of
 * energy (R1–R3) and goodput (R4–R8), prepared once per scenario. */
#include "model/run.h"

#include "model/params.h"
#include "model/prepare.h"

extern inline double run_gpu_power(double idle_w, double tdp_w, double compute_s, double step_s);
extern inline double run_node_power(double G, double gpu_w, double other_w);
extern inline double run_energy_mwh(double nodes, double node_w, double pue, double days);
extern inline double run_mtbi_s(double per_gpu_day, double gpus);
extern inline double run_daly_interval(double delta, double M);
extern inline double run_goodput(double tau, double delta, double M, double restart_s);
extern inline double run_effective_days(double days, double goodput);

/* R4–R8 of failures: and checkpointing: (the loader gives both or neither). */
static void run_prepare_goodput(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    pe_run_ctx *r = &ctx->run;
    const pe_checkpointing *ck = &sc->checkpointing;
    r->goodput_on = sc->failures.present && ck->present;
    if (!r->goodput_on)
        return;
    const double n_total =
        ctx->moe.on ? ctx->moe.N_total : params_total(&sc->model, ctx->N_layer, 1);
    r->ckpt_bytes = n_total * (ctx->beta_w + ctx->beta_o);     /* R4 */
    r->write_s = r->ckpt_bytes / (ck->write_gb_s * 1e9);      /* R5 */
    r->async = ck->save == PE_SAVE_ASYNC;
    r->mtbi_s = run_mtbi_s(sc->failures.interruptions_per_gpu_day, ctx->N); /* R6 */
    r->restart_s = sc->failures.restart_minutes * 60.0;
    r->restart_eff_s = r->restart_s + (r->async ? r->write_s : 0.0);       /* R8 R' */
    r->interval_s = ck->has_interval_minutes ? ck->interval_minutes * 60.0 : 0.0;
    r->tau_sync = r->interval_s > 0.0 ? r->interval_s : run_daly_interval(r->write_s, r->mtbi_s);
    r->goodput_sync = run_goodput(r->tau_sync, r->write_s, r->mtbi_s, r->restart_eff_s);
}

void run_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    pe_run_ctx *r = &ctx->run;
    const pe_gpu *g = &sc->cluster.gpu;
    r->energy_on = g->has_tdp_w;
    r->tdp_w = g->tdp_w;
    r->idle_w = g->has_idle_w ? g->idle_w : g->tdp_w; /* R1: not given, the board at TDP */
    r->G = (double)sc->cluster.gpus_per_node;
    r->other_w = sc->cluster.node_overhead_w;
    r->nodes = ctx->N / r->G;
    r->pue = sc->cluster.pue;
    run_prepare_goodput(sc, ctx);
}
