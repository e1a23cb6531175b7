/* comm.c — docs/model.md §5 collectives (C1–C7) and §6 per-axis communication (X1–X5). */
#include "model/comm.h"

extern inline double comm_pos(double x);
extern inline double comm_bw_in(const pe_net *net, int64_t n_in);
extern inline pe_group comm_group(const pe_net *net, int64_t n, int64_t k);
extern inline pe_tier comm_tier(const pe_group *g);
extern inline double comm_reduce_scatter(const pe_net *net, const pe_group *g, double S);
extern inline double comm_reduce_scatter_flat(const pe_net *net, const pe_group *g, double S);
extern inline double comm_dp_last_bucket(int64_t zero, double rs_g, double overlap, double tau_b,
                                         double frac);
extern inline double comm_slowed(double exposed, double comm, double phi);
extern inline double comm_all_reduce_tree(const pe_net *net, const pe_group *g, double S);
extern inline double comm_all_reduce(const pe_net *net, const pe_group *g, double S);
extern inline double comm_all_to_all(const pe_net *net, const pe_group *g, double S);
extern inline double comm_p2p(const pe_net *net, const pe_group *g, double S);
extern inline double comm_tp_bytes(double b, double s_local, double h);
extern inline double comm_tp_fwd(double layers_per_stage, double t_ar, double overlap,
                                 double tau_lf);
extern inline double comm_tp_bwd(double layers_per_stage, double t_ar, double overlap,
                                 double tau_lb, int full);
extern inline double comm_tp_bwd_async_one(double t_ar, int sp, int full, double w);
extern inline double comm_tp_bwd_async(double t_ar, int sp, int full, double w_qkv, double w_in);
extern inline double comm_tp_bwd_exposed(double layers_per_stage, double e_b, double overlap,
                                         double tau_lb);
extern inline double comm_optimizer_passes(double n_gpu, int64_t zero, double D,
                                           double s_per_param);
extern inline double comm_cp_bytes(double b, double s_local, double g, double d, double t);
extern inline double comm_cp_fwd(double layers_per_stage, double c, double t_p2p, double overlap,
                                 double tau_att);
extern inline double comm_cp_bwd(double layers_per_stage, double c, double t_p2p, double overlap,
                                 double tau_att, int recompute);
extern inline double comm_pp_bytes(double b, double s_local, double h, double t, int sp);
extern inline double comm_pp(double p, double m, double v, double t_p2p, double overlap,
                             double tau_f, double tau_b);
extern inline double comm_dp(int64_t zero, double m, double rs_g, double rs_w, double overlap,
                             double tau_f, double tau_b);
extern inline double comm_optimizer(double n_gpu, int64_t zero, double D, double beta_w,
                                    double beta_g, double beta_o, double hbm_bps);

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
