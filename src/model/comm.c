/* comm.c — docs/model.md §5 collectives (C1–C7) and §6 per-axis communication
 * (X1–X5; §12 X6–X8, X13, X14; §14 X9–X12), and their preparation. */
#include "model/comm.h"

#include "model/compute.h"
#include "model/params.h"
#include "model/prepare.h"

extern inline double comm_pos(double x);
extern inline double comm_bw_in(const pe_net *net, int64_t n_in);
extern inline pe_group comm_group(const pe_net *net, int64_t n, int64_t k);
extern inline pe_tier comm_tier(const pe_group *g);
extern inline double comm_reduce_scatter(const pe_net *net, const pe_group *g, double S);
extern inline double comm_reduce_scatter_flat(const pe_net *net, const pe_group *g, double S);
extern inline double comm_dp_last_bucket(int64_t zero, double rs_g, double overlap, double tau_b,
                                         double frac);
extern inline double comm_slowed(double exposed, double comm, double phi);
extern inline double comm_contended(double exposed, double comm, double contention);
extern inline double comm_tp_micro_pipeline_parts(const double part[4], double t,
                                                 const double gemm_t[4], double overlap,
                                                 double contention);
extern inline double comm_tp_micro_pipeline(double t_ar, double t, const double gemm_t[4],
                                           double overlap, double contention);
extern inline double comm_tp_op_recompute(double t_ag, double hide, double r_qkv, double g_qkv,
                                          double r_in, double g_in, double contention);
extern inline double comm_all_reduce_tree(const pe_net *net, const pe_group *g, double S);
extern inline double comm_all_reduce(const pe_net *net, const pe_group *g, double S);
extern inline double comm_tied_bytes(double beta_g, double V, double h, double t);
extern inline double comm_all_to_all(const pe_net *net, const pe_group *g, double S);
extern inline double comm_p2p(const pe_net *net, const pe_group *g, double S);
extern inline double comm_cp_net_contention(int64_t channels, int64_t sm_count);
extern inline double comm_tp_bytes(double b, double s_local, double h);
extern inline double comm_tp_fwd(double layers_per_stage, double t_ar, double overlap,
                                 double tau_lf);
extern inline double comm_tp_bwd(double layers_per_stage, double t_ar, double overlap,
                                 double tau_lb, int full);
extern inline double comm_tp_bwd_async_one(double t_ar, int sp, int full, double w,
                                           double contention);
extern inline double comm_tp_bwd_async(double t_ar, int sp, int full, double w_qkv, double w_in,
                                       double contention);
extern inline double comm_tp_bwd_exposed(double layers_per_stage, double e_b, double overlap,
                                         double tau_lb);
extern inline double comm_optimizer_passes(double n_gpu, int64_t zero, double D,
                                           double s_per_param);
extern inline double comm_cp_bytes(double b, double s_local, double g, double d, double t);
extern inline double comm_cp_fwd(double layers_per_stage, double c, double t_p2p, double overlap,
                                 double tau_att);
extern inline double comm_cp_bwd(double layers_per_stage, double c, double t_p2p, double overlap,
                                 double tau_att, int recompute);
extern inline double comm_cp_allgather_fwd(double layers_per_stage, double t_ag);
extern inline double comm_dp_chunk_exposed(double t, double window, double v, double p);
extern inline double comm_pp_overlap(double overlap, int interleaved_only, int interleaved,
                                     double v);
extern inline double comm_dp_chunked(int64_t zero, double rs_g, double rs_w, double overlap,
                                     double tau_f, double tau_b, double v, double p);
extern inline double comm_cp_fwd_steps(double layers_per_stage, double c, double t_p2p,
                                       double overlap, double tau_att);
extern inline double comm_cp_bwd_steps(double layers_per_stage, double c, double t_p2p,
                                       double overlap, double tau_att, int recompute);
extern inline double comm_cp_allgather_bwd(double layers_per_stage, double t_ag, int recompute);
extern inline double comm_a2a_bytes(double b, double s_local, double k, double rho, double h,
                                    double beta, double t);
extern inline double comm_pp_bytes(double b, double s_local, double h, double t, int sp);
extern inline double comm_pp(double p, double m, double v, double t_p2p, double overlap,
                             double tau_f, double tau_b);
extern inline double comm_dp(int64_t zero, double m, double rs_g, double rs_w, double overlap,
                             double tau_f, double tau_b);
extern inline double comm_dp_critical_window(int64_t zero, double m, double rs_g, double rs_w,
                                             double overlap, double tau_f, double tau_b);
extern inline double comm_dp_grad_time(int64_t zero, bool all_reduce, double rs_g);
extern inline double comm_dp_grad_bytes(double beta_gc, double beta_g, double n_gpu);
extern inline double comm_dp_grad_tau(int64_t zero, bool microbatch, double tau_f, double tau_b);
extern inline double comm_optimizer(double n_gpu, int64_t zero, double D, double beta_w,
                                    double beta_g, double beta_o, double hbm_bps);
extern inline double comm_tp_seq_copy(double bytes, double ew_bps);
extern inline double comm_tp_micro_pipeline_unfused(const double part[4], double t,
                                                    const double gemm_t[4], double overlap,
                                                    double contention, const bool unfused[4]);

/* C8 η_max; 0 (a cluster built in code that never set it) is neutral. */
static double bus_eta(double eta) { return eta > 0.0 ? eta : 1.0; }

pe_net comm_net(const pe_cluster *c)
{
    pe_net net = {0};
    net.gpus_per_node = c->gpus_per_node;
    if (c->intra_node.present) {
        const double eta = bus_eta(c->intra_node.bus_efficiency);
        net.full_mesh = c->intra_node.topology == PE_TOPOLOGY_FULL_MESH;
        net.links = (double)c->intra_node.links;
        net.link_bps = c->intra_node.link_gb_s * 1e9 * eta; /* C8: ×1 when neutral, exact */
        net.switch_bps = c->intra_node.bandwidth_gb_s * 1e9 * eta;
        net.alpha_in = c->intra_node.latency_us / 1e6; /* µs → s, correctly rounded */
        net.half_in = c->intra_node.half_message_mb * 1e6;
    }
    if (c->inter_node.present) {
        net.out_bps = c->inter_node.nic_gb_s * 1e9 * bus_eta(c->inter_node.bus_efficiency); /* C3, C8 */
        net.alpha_out = c->inter_node.latency_us / 1e6; /* µs → s, correctly rounded */
        net.half_out = c->inter_node.half_message_mb * 1e6;
    }
    return net;
}

void comm_prepare(const pe_scenario *sc, pe_eval_ctx *ctx)
{
    const pe_model *m = &sc->model;
    const pe_cluster *cl = &sc->cluster;
    const pe_framework *fw = &sc->framework;
    ctx->net = comm_net(cl); /* C2, C3 (C8 folded in) */
    /* X2 carries K and V of g heads of size d: of head_dim with head_dim; with
     * MLA the expanded K, V of a heads, a·(d_qk + d_v) = 2·a·d */
    ctx->g = (double)m->kv_heads;
    ctx->d = params_head_dim(m);
    if (m->has_head_dim)
        ctx->d = (double)m->head_dim;
    if (m->attention == PE_ATTENTION_MLA) {
        ctx->g = (double)m->heads;
        ctx->d = ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim +
                  (double)m->v_head_dim) / 2.0;
    }
    ctx->pp_scatter_gather = fw->present && fw->pp_scatter_gather;           /* X6 */
    ctx->dp_flat = fw->present && fw->dp_algorithm == PE_DP_FLAT;             /* C9 */
    ctx->allreduce_auto = fw->present && fw->allreduce == PE_ALLREDUCE_AUTO;  /* C10 */
    ctx->dp_bucket_bytes = fw->present ? fw->dp_bucket_mb * 1e6 : 0.0;        /* X7 */
    ctx->comm_slowdown = fw->present ? fw->comm_slowdown : 0.0;               /* X8 */
    ctx->overlap_contention = fw->present ? fw->overlap_slowdown / (1.0 + fw->overlap_slowdown)
                                          : 0.0; /* X15 */
    ctx->tp_async_bwd = fw->present && fw->tp_async_backward;                 /* X13 */
    ctx->tp_micro_pipeline = fw->present && fw->tp_micro_pipeline;           /* X16 */
    ctx->cp_allgather = fw->present && fw->cp_kv_allgather;                   /* X19 */
    ctx->cp_ring_per_step = fw->present && fw->cp_ring_per_step;              /* X23 */
    ctx->cp_net_contention = comm_cp_net_contention(fw->present ? fw->cp_ring_net_channels : 0,
                                                    cl->gpu.sm_count); /* X33 */
    ctx->cp_net_channels = fw->present ? (double)fw->cp_ring_net_channels : 0.0;
    ctx->cp_net_sms = (double)cl->gpu.sm_count;
    ctx->dp_chunk_sync = fw->present && fw->dp_chunk_sync;                    /* X30 */
    ctx->pp_overlap_interleaved_only = fw->present && fw->pp_overlap_interleaved_only; /* X34 */
    ctx->tied_allreduce = fw->present && fw->tied_embedding_allreduce &&
                          sc->model.tied_embeddings; /* X18 */
    ctx->dp_grad_allreduce = fw->present && fw->dp_grad_collective == PE_DP_GRAD_ALL_REDUCE;
    ctx->dp_grad_comm_bytes = fw->present ? fw->dp_grad_comm_bytes : 0.0; /* X26 */
    ctx->dp_grad_window_mb = fw->present && fw->dp_grad_window == PE_DP_GRAD_WINDOW_MICROBATCH;
    ctx->tp_fp8_gather = fw->present && fw->tp_fp8_all_gather &&
                         sc->precision.compute == PE_COMPUTE_FP8 &&
                         sc->precision.fp8_recipe == PE_FP8_RECIPE_TENSORWISE; /* X22 */
    ctx->tp_seq_copy = fw->present && fw->tp_seq_dim_copy; /* X28 */
    /* X24: the input gradient of wq, wk, wv (and of SwiGLU's w1, w3) is a sum of matmuls */
    ctx->tp_unfused_qkv = fw->present && fw->tp_grad_sum_unfused;
    ctx->tp_unfused_in = ctx->tp_unfused_qkv && m->mlp == PE_MLP_SWIGLU;
    ctx->tp_rs_reduce = fw->present && fw->tp_fused_rs_reduce; /* F34 */
    ctx->tp_ag_stage = fw->present && fw->tp_ag_shard_stage;   /* X32 */
    ctx->opt_s_per_param = fw->present ? fw->optimizer_pass_bytes /
                                             compute_pass_bps(&cl->gpu, ctx->hbm_bps)
                                       : 0.0; /* X14 */
    ctx->host_bps = cl->gpu.has_host_link_gb_s ? cl->gpu.host_link_gb_s * 1e9 : 0.0; /* X12 */
    /* X35: the bytes the framework's host copies move (DeepSpeed casts to
     * fp32 on the GPU both ways), else X12's gradient and weight bytes */
    const double copy_bytes = fw->present ? fw->offload_copy_bytes : 0.0;
    ctx->offload_d2h_bytes = copy_bytes > 0.0 ? copy_bytes : ctx->beta_g;
    ctx->offload_h2d_bytes = copy_bytes > 0.0 ? copy_bytes : ctx->beta_w;
    ctx->cpu_adam_rate = cl->cpu_adam_gparams_s * 1e9;
}
