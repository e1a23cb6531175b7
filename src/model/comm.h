/* comm.h — docs/model.md §5 collectives on the topology (C1–C7) and §6
 * communication per axis with overlap (X1–X5). Times in seconds, sizes in
 * bytes, bandwidths in bytes/s. All inline: they run per plan. */
#ifndef PLANEVAL_MODEL_COMM_H
#define PLANEVAL_MODEL_COMM_H

#include <math.h>
#include <stdint.h>

#include "model/evaluate.h"
#include "model/net.h"
#include "core/scenario.h"

/* An axis group of n ranks at stride k, placed on nodes (C1) with its
 * intra-node bandwidth (C2). */
typedef struct {
    double n, n_in, n_out; /* C1 */
    double b_in;           /* C2, bytes/s; 0 when n_in = 1 (never used then) */
} pe_group;

/* pe_net of a cluster (GB/s → bytes/s, µs → s; absent tiers give zeros). */
pe_net comm_net(const pe_cluster *c);

/* max(0, x): exposed time after overlap (§6) */
inline double comm_pos(double x) { return x > 0.0 ? x : 0.0; }

/* C2 intra-node bandwidth per GPU for n_in members: switch → bandwidth_gb_s;
 * full_mesh → min(n_in − 1, links)·link_gb_s */
inline double comm_bw_in(const pe_net *net, int64_t n_in)
{
    if (!net->full_mesh)
        return net->switch_bps;
    const double peers = (double)(n_in - 1);
    return (peers < net->links ? peers : net->links) * net->link_bps;
}

/* C1 n_in = min(n, max(1, floor(G/k))), n_out = ceil(n / n_in); and C2 */
inline pe_group comm_group(const pe_net *net, int64_t n, int64_t k)
{
    int64_t per_node = net->gpus_per_node / k;
    if (per_node < 1)
        per_node = 1;
    const int64_t n_in = n < per_node ? n : per_node;
    const int64_t n_out = (n + n_in - 1) / n_in;
    pe_group g = {(double)n, (double)n_in, (double)n_out, comm_bw_in(net, n_in)};
    return g;
}

/* Tier the group's collectives run on: none (n = 1), inter (C1 n_out > 1), else intra. */
inline pe_tier comm_tier(const pe_group *g)
{
    return g->n == 1.0 ? PE_TIER_NONE : g->n_out > 1.0 ? PE_TIER_INTER : PE_TIER_INTRA;
}

/* C4 reduce-scatter (or all-gather) of S bytes, hierarchical ring:
 * (n_in−1)/n_in·S/B_in + (n_in−1)·α_in + (n_out−1)/n_out·(S/n_in)/B_out + (n_out−1)·α_out;
 * a phase whose member count is 1 costs 0. */
#define PE_TEXT_C4 \
    {"C4", "T_rs(S)", \
     "(n_in−1)/n_in·S/B_in + (n_in−1)·α_in + (n_out−1)/n_out·(S/n_in)/B_out + (n_out−1)·α_out", \
     "s", "Thakur 2005"}
inline double comm_reduce_scatter(const pe_net *net, const pe_group *g, double S)
{
    const double intra = g->n_in > 1.0 ? (g->n_in - 1.0) / g->n_in * (S + net->half_in) / g->b_in +
                                             (g->n_in - 1.0) * net->alpha_in
                                       : 0.0;
    const double inter = g->n_out > 1.0
                             ? (g->n_out - 1.0) / g->n_out * (S / g->n_in + net->half_out) / net->out_bps +
                                   (g->n_out - 1.0) * net->alpha_out
                             : 0.0;
    return intra + inter;
}

/* C9 reduce-scatter (or all-gather) of S bytes as one flat ring over all n
 * members (NCCL's ring; DeepSpeed ZeRO-3, FSDP): n−1 steps, each at the
 * slower of a GPU's intra-node link and the node's n_in NICs (a ring leaves
 * a node once per channel, and n_in channels use every NIC):
 * (n−1)/n·(S + S_half)/min(B_in, n_in·B_out) + (n−1)·α_out. Inside one node
 * it is C4. */
#define PE_TEXT_C9 \
    {"C9", "T_rs(S_g), T_rs(S_w): one flat ring over dp·c (framework)", \
     "(n−1)/n·(S + S_half)/min(B_in, n_in·B_out) + (n−1)·α_out", \
     "s", "Thakur 2005"}
inline double comm_reduce_scatter_flat(const pe_net *net, const pe_group *g, double S)
{
    if (g->n_out <= 1.0)
        return comm_reduce_scatter(net, g, S);
    const double nics = g->n_in * net->out_bps;
    const double bw = g->n_in > 1.0 && g->b_in < nics ? g->b_in : nics;
    return (g->n - 1.0) / g->n * (S + net->half_out) / bw + (g->n - 1.0) * net->alpha_out;
}

/* C10 all-reduce of S bytes as NCCL's tree across nodes: a reduce up and a
 * broadcast down, each the intra-node chain (n_in−1)/n_in·(S + S_half)/B_in
 * + (n_in−1)·α_in and a pipelined binary tree over the n_out nodes whose
 * data the node's n_in NICs share: (S + S_half)/(n_in·B_out) +
 * ⌈log2 n_out⌉·α_out. Inside one node (n_out = 1) it is C5. */
inline double comm_all_reduce_tree(const pe_net *net, const pe_group *g, double S)
{
    if (g->n_out <= 1.0)
        return 2.0 * comm_reduce_scatter(net, g, S);
    const double intra = g->n_in > 1.0 ? (g->n_in - 1.0) / g->n_in * (S + net->half_in) / g->b_in +
                                             (g->n_in - 1.0) * net->alpha_in
                                       : 0.0;
    const double inter =
        (S + net->half_out) / (g->n_in * net->out_bps) + ceil(log2(g->n_out)) * net->alpha_out;
    return 2.0 * (intra + inter);
}

/* C5 all-reduce = 2·T_rs(S) */
#define PE_TEXT_C5_TP {"C5:tp", "T_ar(S_tp)", "2·T_rs", "s", "Thakur 2005"}
#define PE_TEXT_C5 {"C5", "T_ar(S)", "2·T_rs(S)", "s", "Thakur 2005"}
inline double comm_all_reduce(const pe_net *net, const pe_group *g, double S)
{
    return 2.0 * comm_reduce_scatter(net, g, S);
}

/* X18 the tied embedding's gradient all-reduce (framework
 * tied_embedding_allreduce, docs/model.md §6): with tied_embeddings and
 * p > 1 the first stage's embedding and the last stage's output layer are
 * one weight held twice, and after the pipeline flush the two all-reduce
 * its gradient over their pair before the optimizer step — DeepSpeed's
 * PipelineEngine runs ReduceTiedGrads (deepspeed/runtime/pipe/schedule.py
 * TrainSchedule, at the batch's last step, before ReduceGrads and
 * OptimizerStep), Megatron-LM its embedding-gradient all-reduce likewise.
 * Nothing overlaps it. S = β_g·V·h/t (the vocabulary-parallel shard, in
 * the gradient's dtype: the BF16 optimizer's fp32 copy, _hp_grad). */
#define PE_TEXT_X18 \
    {"X18", "tied embedding gradient all-reduce (first and last stage)", \
     "T_ar(S_tied) over the pair, S_tied = β_g·V·h/t; in dp_comm_s, exposed", "s", \
     "DeepSpeed pipe/schedule.py TrainSchedule ReduceTiedGrads"}
inline double comm_tied_bytes(double beta_g, double V, double h, double t)
{
    return beta_g * V * h / t;
}

/* C6 all-to-all, S bytes sent per GPU:
 * (n_in−1)/n·S/B_in + (n_in−1)·α_in + (n−n_in)/n·S/B_out + (n_out−1)·α_out;
 * a phase whose member count is 1 costs 0. */
#define PE_TEXT_C6 \
    {"C6", "T_a2a(S)", \
     "(n_in−1)/n·S/B_in + (n_in−1)·α_in + (n − n_in)/n·S/B_out + (n_out−1)·α_out", \
     "s", "Thakur 2005"}
inline double comm_all_to_all(const pe_net *net, const pe_group *g, double S)
{
    const double intra =
        g->n_in > 1.0 ? (g->n_in - 1.0) / g->n * S / g->b_in + (g->n_in - 1.0) * net->alpha_in
                      : 0.0;
    const double inter = g->n_out > 1.0 ? (g->n - g->n_in) / g->n * S / net->out_bps +
                                              (g->n_out - 1.0) * net->alpha_out
                                        : 0.0;
    return intra + inter;
}

/* C7 one ring or pipeline hop of S bytes: α + S/B. Spanning nodes
 * (n_out > 1): every hop inter-node (α_out, B_out); otherwise one link
 * (full_mesh) or bandwidth_gb_s (switch) with α_in. n = 1 → 0. */
#define PE_TEXT_C7 \
    {"C7", "T_p2p(S)", \
     "α + S/B (inter-node α_out, B_out when the group spans nodes)", \
     "s", "Thakur 2005"}
inline double comm_p2p(const pe_net *net, const pe_group *g, double S)
{
    if (g->n == 1.0)
        return 0.0;
    if (g->n_out > 1.0)
        return net->alpha_out + (S + net->half_out) / net->out_bps;
    return net->alpha_in + (S + net->half_in) / (net->full_mesh ? net->link_bps : net->switch_bps);
}

/* X1 S_tp = 2·b·s'·h */
#define PE_TEXT_X1_S \
    {"X1:S", "S_tp, bytes per TP all-reduce", \
     "2·b·s'·h", \
     "bytes", "Korthikanti §3"}
inline double comm_tp_bytes(double b, double s_local, double h) { return 2.0 * b * s_local * h; }

/* X1 χ_tp,f = (L/p)·max(0, 2·T_ar − overlap.tp·τ_lf) */
#define PE_TEXT_X1_F \
    {"X1:f", "χ_tp,f", \
     "(L/p)·max(0, 2·T_ar − overlap.tp·τ_lf)", \
     "s", "Korthikanti §3"}
inline double comm_tp_fwd(double layers_per_stage, double t_ar, double overlap, double tau_lf)
{
    return layers_per_stage * comm_pos(2.0 * t_ar - overlap * tau_lf);
}


/* X13 (framework tp_async_backward, Megatron's asynchronous input-gradient
 * collectives): the backward tensor-parallel time of one column-parallel
 * block (QKV, MLP in, a shared expert's fc1: one of X1's all-reduce pairs)
 * before X1's overlap.tp window. The block launches its input-gradient
 * collective and runs its weight-gradient GEMM (time w) meanwhile: without
 * sp the all-reduce, max(0, T_ar − w) exposed; with sp the reduce-scatter,
 * max(0, T_ar/2 − w), and the all-gather of the output gradient before the
 * row-parallel backward, T_ar/2, blocking. Full recompute adds the
 * recomputed forward's T_ar, exposed. Never more than X1's
 * (1 + [full])·T_ar per block. With X15 (contention = s/(1 + s), 0: off)
 * the overlapped collective, and only it, is charged as X15 charges one
 * against its window, the GEMM slowed while they share the GPU:
 * max(part − w, part·s/(1 + s)); the blocking ones overlap nothing. */
#define PE_TEXT_X13 \
    {"X13", "E_b, backward TP time per layer (asynchronous input gradients)", \
     "2·[full]·T_ar + Σ max(T_ar − wgrad GEMM of QKV, MLP in, T_ar·s/(1 + s)) (X15's s)", "s", \
     "Megatron-LM async all-reduce"}
#define PE_TEXT_X13_SP \
    {"X13:sp", "E_b, backward TP time per layer (asynchronous input gradients)", \
     "2·[full]·T_ar + T_ar (the two all-gathers) + Σ max(T_ar/2 − wgrad GEMM of QKV, MLP in, T_ar/2·s/(1 + s)) (X15's s)", \
     "s", "Megatron-LM async all-reduce"}
inline double comm_contended(double exposed, double comm, double contention); /* X15, below */
inline double comm_tp_bwd_async_one(double t_ar, int sp, int full, double w, double contention)
{
    const double part = sp ? 0.5 * t_ar : t_ar;
    return (full ? t_ar : 0.0) + (sp ? part : 0.0) +
           comm_contended(comm_pos(part - w), part, contention);
}

/* X13 of a dense layer: its two column-parallel blocks (QKV, MLP in), X15's contention on each */
inline double comm_tp_bwd_async(double t_ar, int sp, int full, double w_qkv, double w_in,
                                double contention)
{
    return comm_tp_bwd_async_one(t_ar, sp, full, w_qkv, contention) +
           comm_tp_bwd_async_one(t_ar, sp, full, w_in, contention);
}

/* X1 with X13: χ_tp,b = (L/p)·max(0, E_b − overlap.tp·τ_lb), E_b from comm_tp_bwd_async */
#define PE_TEXT_X1_B_ASYNC \
    {"X1:b-async", "χ_tp,b", \
     "(L/p)·max(0, E_b − overlap.tp·τ_lb)", \
     "s", "Korthikanti §3"}
inline double comm_tp_bwd_exposed(double layers_per_stage, double e_b, double overlap,
                                  double tau_lb)
{
    return layers_per_stage * comm_pos(e_b - overlap * tau_lb);
}

/* X1 χ_tp,b = (L/p)·max(0, (2 + 2·[full])·T_ar − overlap.tp·τ_lb): X13's
 * exposure with every backward collective blocking */
#define PE_TEXT_X1_B \
    {"X1:b", "χ_tp,b", \
     "(L/p)·max(0, (2 + 2·[full])·T_ar − overlap.tp·τ_lb)", \
     "s", "Korthikanti §3"}
inline double comm_tp_bwd(double layers_per_stage, double t_ar, double overlap, double tau_lb,
                          int full)
{
    return comm_tp_bwd_exposed(layers_per_stage, (2.0 + 2.0 * (full ? 1.0 : 0.0)) * t_ar,
                               overlap, tau_lb);
}

/* X9 bytes per GPU of one EP all-to-all: b·s'·k·ρ·h·β/t (β = β_d dispatch,
 * 2 combine) */
#define PE_TEXT_X9_S {"X9:S", "S_dispatch, S_combine", "b·s'·k·ρ·h·β/t", "bytes", "design §4"}
inline double comm_a2a_bytes(double b, double s_local, double k, double rho, double h,
                             double beta, double t)
{
    return b * s_local * k * rho * h * beta / t;
}

/* X2 S_kv = 2·b·s'·2·g·d/t bytes per hop */
#define PE_TEXT_X2_S {"X2:S", "S_kv, bytes per CP hop", "2·b·s'·2·g·d/t", "bytes", "Liu 2023"}
inline double comm_cp_bytes(double b, double s_local, double g, double d, double t)
{
    return 2.0 * b * s_local * 2.0 * g * d / t;
}

/* X2 χ_cp,f = (L/p)·max(0, (c−1)·T_p2p − overlap.cp·τ_att) */
#define PE_TEXT_X2_F \
    {"X2:f", "χ_cp,f", \
     "(L/p)·max(0, (c−1)·T_p2p − overlap.cp·τ_att)", \
     "s", "Liu 2023"}
inline double comm_cp_fwd(double layers_per_stage, double c, double t_p2p, double overlap,
                          double tau_att)
{
    return layers_per_stage * comm_pos((c - 1.0) * t_p2p - overlap * tau_att);
}

/* X2 χ_cp,b = (L/p)·max(0, (2 + [recompute ≠ none])·(c−1)·T_p2p − overlap.cp·2·τ_att) */
#define PE_TEXT_X2_B \
    {"X2:b", "χ_cp,b", \
     "(L/p)·max(0, (2 + [recompute ≠ none])·(c−1)·T_p2p − overlap.cp·2·τ_att)", \
     "s", "Liu 2023"}
inline double comm_cp_bwd(double layers_per_stage, double c, double t_p2p, double overlap,
                          double tau_att, int recompute)
{
    return layers_per_stage *
           comm_pos((2.0 + (recompute ? 1.0 : 0.0)) * (c - 1.0) * t_p2p - overlap * 2.0 * tau_att);
}

/* X23 (framework cp_ring_per_step): the CP ring as Transformer Engine runs
 * it (transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py, AttnFuncWithCPAndKVP2P): the local sequence is two
 * load-balanced chunks, so every one of the c ring steps computes the same
 * attention work, τ_att/c (causal: two of the 2c chunk-pair blocks each).
 * Forward: step i launches the K/V send/receive for step i+1 and computes
 * step i; c−1 transfers, each behind one step, none borrowing another's
 * window. Backward (computed twice the forward, X2's 2·τ_att): c
 * transfers, the first K/V alone, the c−2 middle ones K/V with the dK/dV
 * accumulated so far (2·S_kv), the last dK/dV alone, each behind one
 * step's 2·τ_att/c; a recomputed forward (recompute ≠ none) runs the
 * forward ring again. X2's ring-wide max(0, (c−1)·T − τ_att) lets every
 * transfer hide behind all of the attention; per step a transfer longer
 * than its step is exposed by the difference, every step. */
#define PE_TEXT_X23_F \
    {"X23:f", "χ_cp,f, the CP ring step by step (cp_ring_per_step)", \
     "(L/p)·(c−1)·max(0, T_p2p − overlap.cp·τ_att/c)", \
     "s", "Transformer Engine AttnFuncWithCPAndKVP2P"}
inline double comm_cp_fwd_steps(double layers_per_stage, double c, double t_p2p,
                                double overlap, double tau_att)
{
    if (c < 2.0)
        return 0.0;
    return layers_per_stage * (c - 1.0) * comm_pos(t_p2p - overlap * tau_att / c);
}

/* X23 backward: w = overlap.cp·2·τ_att/c;
 * (L/p)·[2·max(0, T_p2p − w) + (c−2)·max(0, 2·T_p2p − w) + [rc]·forward's (c−1)·max(...)] */
#define PE_TEXT_X23_B \
    {"X23:b", "χ_cp,b, the CP ring step by step (cp_ring_per_step)", \
     "(L/p)·[2·max(0, T_p2p − w) + (c−2)·max(0, 2·T_p2p − w) + [recompute ≠ none]·(c−1)·max(0, T_p2p − overlap.cp·τ_att/c)], w = overlap.cp·2·τ_att/c", \
     "s", "Transformer Engine AttnFuncWithCPAndKVP2P"}
inline double comm_cp_bwd_steps(double layers_per_stage, double c, double t_p2p,
                                double overlap, double tau_att, int recompute)
{
    if (c < 2.0)
        return 0.0;
    const double w = overlap * 2.0 * tau_att / c;
    const double ring = 2.0 * comm_pos(t_p2p - w) + (c - 2.0) * comm_pos(2.0 * t_p2p - w);
    const double again = recompute ? comm_cp_fwd_steps(1.0, c, t_p2p, overlap, tau_att) : 0.0;
    return layers_per_stage * (ring + again);
}

/* X33 (framework cp_ring_net_channels): the CP ring's point-to-point
 * transfers hold few SMs when the group spans nodes. NCCL gives a
 * communicator's point-to-point operations p2pnChannelsPerPeer channels,
 * the least over its peers (NVIDIA/nccl@8c6c595, v2.19.3-1,
 * src/graph/paths.cc ncclTopoComputeP2pChannels), and a peer reached over
 * the network NCHANNELS_PER_NET_PEER of them, 2 (ncclTopoGetNchannels;
 * v2.21.5-1 starts there too); each channel is one thread block, one SM.
 * A ring step's send to the next rank and receive from the previous one
 * are one round of those channels. Compute beside them runs on S − c SMs,
 * (1 + s) slower with s = c/(S − c) (F32's stretch), and X15's exposed
 * max(T − W, T·s/(1 + s)) charges T·c/S of each hidden transfer: c/S in
 * place of X15's measured s/(1 + s), a collective average (many channels)
 * that a ring inside one node's NVLink (2 per NVLink, up to the
 * communicator's channels) keeps. Off (negative, X15's) at c = 0 or
 * without the GPU's SM count (or c >= S). */
#define PE_TEXT_X33 \
    {"X33", "the CP ring's contention across nodes (cp_ring_net_channels)", \
     "c/S (X15's s/(1 + s) with s = c/(S − c)), on a cp group spanning nodes", "", \
     "NCCL src/graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannels"}
inline double comm_cp_net_contention(int64_t channels, int64_t sm_count)
{
    if (channels <= 0 || sm_count <= channels)
        return -1.0;
    return (double)channels / (double)sm_count;
}

/* X19 (framework cp_kv_allgather): Llama 3's context parallelism
 * (arXiv:2407.21783 §3.3.2) "first all-gather[s] the key (K) and value (V)
 * tensors, and then compute[s] attention output for the local query (Q)
 * tensor chunk"; "the all-gather communication latency is exposed in the
 * critical path". T_ag is C4 on the cp group of the gathered c·S_kv bytes
 * (X2's bytes: the ring's c−1 hops carry the same), with no overlap window.
 * The counts are X2's: forward one all-gather; backward the all-gather
 * again (A1 keeps only the local K, V for backward) and the reduce-scatter
 * of dK, dV, one more all-gather when the forward is recomputed. */
#define PE_TEXT_X19 \
    {"X19", "T_ag, all-gather of K and V over cp (framework)", \
     "T_rs(c·S_kv)   (C4 on the cp group)", \
     "s", "Llama 3 §3.3.2"}
#define PE_TEXT_X19_F \
    {"X19:f", "χ_cp,f, all-gather CP, exposed", \
     "(L/p)·T_ag", \
     "s", "Llama 3 §3.3.2"}
inline double comm_cp_allgather_fwd(double layers_per_stage, double t_ag)
{
    return layers_per_stage * t_ag;
}

/* X19 χ_cp,b = (L/p)·(2 + [recompute ≠ none])·T_ag */
#define PE_TEXT_X19_B \
    {"X19:b", "χ_cp,b, all-gather CP, exposed", \
     "(L/p)·(2 + [recompute ≠ none])·T_ag", \
     "s", "Llama 3 §3.3.2"}
inline double comm_cp_allgather_bwd(double layers_per_stage, double t_ag, int recompute)
{
    return layers_per_stage * (2.0 + (recompute ? 1.0 : 0.0)) * t_ag;
}

/* X3 S_pp = 2·b·s'·h/(sp ? t : 1) */
#define PE_TEXT_X3_S \
    {"X3:S", "S_pp, bytes per pipeline hop", \
     "2·b·s'·h/(sp ? t : 1)", \
     "bytes", "Narayanan §2.2"}
inline double comm_pp_bytes(double b, double s_local, double h, double t, int sp)
{
    return 2.0 * b * s_local * h / (sp ? t : 1.0);
}

/* X3 χ_pp = m·v·[max(0, T_p2p − overlap.pp·τ_f/v) + max(0, T_p2p − overlap.pp·τ_b/v)]; 0 when p = 1 */
#define PE_TEXT_X3 \
    {"X3", "χ_pp", \
     "m·v·[max(0, T_p2p − overlap.pp·τ_f/v) + max(0, T_p2p − overlap.pp·τ_b/v)]", \
     "s", "Narayanan §2.2"}
inline double comm_pp(double p, double m, double v, double t_p2p, double overlap, double tau_f,
                      double tau_b)
{
    if (p == 1.0)
        return 0.0;
    return m * v * (comm_pos(t_p2p - overlap * tau_f / v) + comm_pos(t_p2p - overlap * tau_b / v));
}

/* X34 (framework pp_overlap_interleaved_only): the overlap.pp X3 uses.
 * Megatron-Core's non-interleaved 1F1B schedule raises on overlap_p2p_comm
 * (NVIDIA/Megatron-LM@b0cc2706 megatron/core/pipeline_parallel/schedules.py
 * forward_backward_pipelining_without_interleaving: "Non-interleaved
 * pipeline parallelism does not support overlapping p2p communication"),
 * and Megatron-Bridge's CommOverlapConfig sets overlap_p2p_comm only when
 * pp > 1 and vp > 1, batch_p2p_comm (blocking batched sends) otherwise
 * (NVIDIA-NeMo/Megatron-Bridge@21b02e0c src/megatron/bridge/training/
 * comm_overlap.py _get_model_comm_overlap_cfgs). So with v = 1 every send
 * is exposed: overlap.pp in force is 0. A code fact, not a measurement. */
#define PE_TEXT_X34 \
    {"X34", "overlap.pp in force (pp_overlap_interleaved_only)", \
     "overlap.pp with the interleaved schedule and v > 1, else 0", "", \
     "Megatron-Core schedules.py forward_backward_pipelining_without_interleaving"}
inline double comm_pp_overlap(double overlap, int interleaved_only, int interleaved, double v)
{
    return interleaved_only && !(interleaved && v > 1.0) ? 0.0 : overlap;
}

/* X4 DP/ZeRO exposed time per step; rs_g = T_rs(β_g·N_gpu), rs_w = T_rs(β_w·N_gpu):
 *  z=0 max(0, T_ar(S_g) − ov·τ_b)
 *  z=1 max(0, T_rs(S_g) − ov·τ_b) + max(0, T_rs(S_w) − ov·τ_f)
 *  z=2 m·max(0, T_rs(S_g) − ov·τ_b) + max(0, T_rs(S_w) − ov·τ_f)
 *  z=3 m·max(0, 2·T_rs(S_w) + T_rs(S_g) − ov·(τ_f + τ_b)) */
/* X4's bytes. With finetune: lora N_gpu is the trained N_t (M16's
 * adapters), and S_w at z = 3 every weight, a quantised base as its
 * storage N_s (A29: ZeRO-3 and FSDP all-gather the packed quantised
 * parameters); explain says so on a LoRA plan's line. */
#define PE_TEXT_X4_S {"X4:S", "S_g, S_w (time stage)", "β_g·N_gpu, β_w·N_gpu", "bytes", "ZeRO §5"}
#define PE_TEXT_X4_Z0 \
    {"X4:z0", "χ_dp, DP/ZeRO per step", \
     "max(0, T_ar(S_g) − overlap.dp·τ_b)   (z = 0, T_ar = 2·T_rs)", "s", "ZeRO §5"}
#define PE_TEXT_X4_Z1 \
    {"X4:z1", "χ_dp, DP/ZeRO per step", \
     "max(0, T_rs(S_g) − overlap.dp·τ_b) + max(0, T_rs(S_w) − overlap.dp·τ_f)   (z = 1)", \
     "s", "ZeRO §5"}
#define PE_TEXT_X4_Z2 \
    {"X4:z2", "χ_dp, DP/ZeRO per step", \
     "m·max(0, T_rs(S_g) − overlap.dp·τ_b) + max(0, T_rs(S_w) − overlap.dp·τ_f)   (z = 2)", \
     "s", "ZeRO §5"}
#define PE_TEXT_X4_Z3 \
    {"X4:z3", "χ_dp, DP/ZeRO per step", \
     "m·max(0, 2·T_rs(S_w) + T_rs(S_g) − overlap.dp·(τ_f + τ_b))   (z = 3)", "s", "ZeRO §5"}
inline double comm_dp(int64_t zero, double m, double rs_g, double rs_w, double overlap,
                      double tau_f, double tau_b)
{
    switch (zero) {
    case 0:
        return comm_pos(2.0 * rs_g - overlap * tau_b); /* T_ar = 2·T_rs (C5) */
    case 1:
        return comm_pos(rs_g - overlap * tau_b) + comm_pos(rs_w - overlap * tau_f);
    case 2:
        return m * comm_pos(rs_g - overlap * tau_b) + comm_pos(rs_w - overlap * tau_f);
    default:
        return m * comm_pos(2.0 * rs_w + rs_g - overlap * (tau_f + tau_b));
    }
}

/* X30 (framework dp_chunk_sync): X4 under Megatron-Core's interleaved
 * schedule (megatron/core/pipeline_parallel/schedules.py,
 * forward_backward_pipelining_with_interleaving): a model chunk's gradient
 * reduce-scatter (z = 1; all-reduce, z = 0) is launched after that chunk's
 * last micro-batch backward (is_last_microbatch_for_model_chunk,
 * grad_sync_func[chunk]) and a chunk's weight all-gather before its first
 * forward (param_sync_func). The last backwards run chunk v−1 to 0, p
 * micro-batches each (m a multiple of p), so chunk c's T/v has its own
 * last backward w/v and the c·p·w/v of the chunks after it, w =
 * overlap.dp·τ_b of one micro-batch (all v chunks); the collectives queue
 * on one communicator, finishing max over c of (c + 1)·T/v − (c·p + 1)·w/v
 * after the backward: linear in c, so at c = 0 or c = v − 1:
 * exposed = max(0, (T − w)/v, T − ((v − 1)·p + 1)·w/v). The weights'
 * all-gathers mirror it over the forward (w = overlap.dp·τ_f). v = 1 is X4. */
#define PE_TEXT_X30 \
    {"X30", "χ_dp, each model chunk in its own window (dp_chunk_sync, interleaved, z ≤ 1)", \
     "f(T_g, τ_b) + f(T_rs(S_w), τ_f) (z = 0: f(2·T_rs(S_g), τ_b)), f(T, τ) = max(0, (T − w)/v, T − ((v−1)·p + 1)·w/v), w = overlap.dp·τ", \
     "s", "Megatron-Core schedules.py forward_backward_pipelining_with_interleaving"}
inline double comm_dp_chunk_exposed(double t, double window, double v, double p)
{
    const double first = (t - window) / v;
    const double all = t - ((v - 1.0) * p + 1.0) * window / v;
    return comm_pos(first > all ? first : all);
}

/* X30 of X4's z = 0 and z = 1 terms; rs_g is X25's T_g (the gradient collective's time) */
inline double comm_dp_chunked(int64_t zero, double rs_g, double rs_w, double overlap,
                              double tau_f, double tau_b, double v, double p)
{
    if (zero == 0)
        return comm_dp_chunk_exposed(2.0 * rs_g, overlap * tau_b, v, p);
    return comm_dp_chunk_exposed(rs_g, overlap * tau_b, v, p) +
           comm_dp_chunk_exposed(rs_w, overlap * tau_f, v, p);
}

/* S3 the critical path of X4: the compute of each of X4's overlap windows
 * that runs under a collective longer than the window (its max() is the
 * collective's side: the collective, not the compute, sets that stretch of
 * the step): Σ overlap·window over X4's terms with T > overlap·window,
 * times m where X4 has m; the same arguments as comm_dp. */
inline double comm_dp_critical_window(int64_t zero, double m, double rs_g, double rs_w,
                                      double overlap, double tau_f, double tau_b)
{
    const double wf = overlap * tau_f, wb = overlap * tau_b;
    switch (zero) {
    case 0:
        return 2.0 * rs_g > wb ? wb : 0.0;
    case 1:
        return (rs_g > wb ? wb : 0.0) + (rs_w > wf ? wf : 0.0);
    case 2:
        return m * (rs_g > wb ? wb : 0.0) + (rs_w > wf ? wf : 0.0);
    default:
        return 2.0 * rs_w + rs_g > wf + wb ? m * (wf + wb) : 0.0;
    }
}

/* X25 (framework dp_grad_collective all_reduce): at z = 1 the gradients are
 * reduced by an all-reduce of the whole gradient, T_ar = 2·T_rs (C5), not a
 * reduce-scatter, in X4's gradient term (and X7's, X15's): DeepSpeed's
 * BF16_Optimizer under its pipeline engine (deepspeed/runtime/pipe/engine.py
 * _exec_reduce_grads -> _bf16_reduce_grads -> buffered_allreduce_fallback of
 * the optimizer's whole flat gradient), each rank then updating its own
 * partition and all-gathering the weights (X4's T_rs(S_w) term). Other
 * stages unchanged: z = 0 is an all-reduce already, z ≥ 2 shards the
 * gradients it keeps. rs_g = T_rs of the gradient bytes (X26). */
#define PE_TEXT_X25 \
    {"X25", "gradient all-reduce at z = 1 (dp_grad_collective all_reduce)", \
     "T_g = T_ar(S_g′) = 2·T_rs(S_g′) in X4's gradient term, in place of T_rs(S_g′)", "s", \
     "DeepSpeed pipe/engine.py _bf16_reduce_grads"}
inline double comm_dp_grad_time(int64_t zero, bool all_reduce, double rs_g)
{
    return all_reduce && zero == 1 ? 2.0 * rs_g : rs_g;
}

/* X26 (framework dp_grad_comm_bytes): the bytes the gradient collective
 * carries, S_g′ = β_gc·N_gpu, when the stack casts the gradients it
 * accumulated in β_g bytes for the collective (DeepSpeed's engine.py
 * allreduce_bucket: tensor.to(communication_data_type), bf16 by default for
 * bf16 runs before DeepSpeed 0.9); β_gc = 0 is β_g, X4's own S_g. */
#define PE_TEXT_X26 \
    {"X26", "gradient bytes on the wire (dp_grad_comm_bytes)", \
     "S_g′ = β_gc·N_gpu (β_gc = 0: β_g, S_g′ = S_g), in C4's T_rs(S_g)", "bytes", \
     "DeepSpeed engine.py communication_data_type"}
inline double comm_dp_grad_bytes(double beta_gc, double beta_g, double n_gpu)
{
    return (beta_gc > 0.0 ? beta_gc : beta_g) * n_gpu;
}

/* X27 (framework dp_grad_window microbatch): at z = 2 each micro-batch's
 * gradient reduce-scatter runs asynchronously, not waited on before the
 * next forward, so it hides behind the micro-batch's whole compute, τ_f +
 * τ_b, not only its backward (Llama 3, arXiv:2407.21783 §3.3.2: FSDP "can
 * tolerate longer network latency by asynchronously prefetching sharded
 * model weights and reducing gradients"); the weights' one all-gather per
 * step (not resharded) precedes the first backward, so no window is
 * counted twice. Returns the τ X4's gradient term takes; other stages τ_b
 * (z ≤ 1 reduce once, after the last backward; z = 3 already τ_f + τ_b). */
#define PE_TEXT_X27 \
    {"X27", "gradient window at z = 2 (dp_grad_window microbatch)", \
     "τ_g = τ_f + τ_b in place of τ_b in X4's z = 2 gradient term", "s", \
     "arXiv:2407.21783 §3.3.2"}
inline double comm_dp_grad_tau(int64_t zero, bool microbatch, double tau_f, double tau_b)
{
    return microbatch && zero == 2 ? tau_f + tau_b : tau_b;
}

/* X7 the last gradient bucket (a fraction `frac` = min(1, bucket/S_g) of
 * the gradient reduction) starts only when backward ends, so at least that
 * much is exposed, once per step (z ≤ 1): the extra over X4's gradient term,
 * max(0, frac·T − max(0, T − overlap·τ_b)), T = T_ar(S_g) (z = 0) or
 * T_rs(S_g) (z = 1). 0 for z ≥ 2 and for frac = 0. */
#define PE_TEXT_X7 \
    {"X7", "last gradient bucket, never hidden", \
     "max(0, min(1, bucket/S_g)·T − max(0, T − overlap.dp·τ_b)), included in χ_dp above", \
     "s", "PyTorch DDP; Megatron-Core DDP"}
inline double comm_dp_last_bucket(int64_t zero, double rs_g, double overlap, double tau_b,
                                  double frac)
{
    if (zero > 1)
        return 0.0;
    const double T = zero == 0 ? 2.0 * rs_g : rs_g;
    return comm_pos(frac * T - comm_pos(T - overlap * tau_b));
}

/* X8 compute slows while overlapped communication shares the GPU (SMs and
 * HBM): a fraction φ of the hidden part of a communication time `comm`
 * whose exposed part is `exposed` is charged: exposed + φ·(comm − exposed). */
inline double comm_slowed(double exposed, double comm, double phi)
{
    return exposed + phi * (comm - exposed);
}

/* X15 compute runs s times slower while an overlapped collective shares the
 * GPU (SMs for the NCCL kernels, HBM for their copies): a collective of T
 * seconds against a window of W seconds of compute. While the collective
 * runs the window advances at 1/(1 + s): if the slowed window, (1 + s)·W,
 * outlasts T, the window ends T·s/(1 + s) late; otherwise the collective
 * sets that stretch, T − W late. Exposed: max(T − W, T·s/(1 + s)), which is
 * max(0, T − W) at s = 0 (X1–X4's max()). Applied here as
 * max(exposed, contention·T) with exposed X1's, X2's, X4's or X9–X11's
 * max(0, T − overlap·window) and contention = s/(1 + s) (prepared once);
 * where one count sums several windows (X13's blocks, X4's z = 1, 2 terms)
 * it is their sum, a lower bound of the sum of the windows' own. */
#define PE_TEXT_X15 \
    {"X15", "exposed under contention", \
     "max(max(0, T − overlap·window), T·s/(1 + s)), s = overlap_slowdown", "s", \
     "arXiv:2507.03114"}
inline double comm_contended(double exposed, double comm, double contention)
{
    const double slowed = contention * comm;
    return exposed > slowed ? exposed : slowed;
}

/* X16 (framework tp_micro_pipeline, with sequence parallelism): PyTorch's
 * asynchronous TP (torch.distributed._symmetric_memory's
 * fused_all_gather_matmul and fused_matmul_reduce_scatter, which
 * torch.compile's micro_pipeline_tp pass puts in place of an all-gather
 * before, or a reduce-scatter after, a matmul) splits each collective of a
 * layer's four GEMMs (QKV, attention out, MLP in, MLP out: an all-gather
 * or a reduce-scatter of T_ar/2 each) into t − 1 steps, each hidden
 * behind one of the matmul's t chunks; the chunk that needs no remote
 * shard (all-gather) or that the last step waits for (reduce-scatter)
 * hides nothing. Per collective: max(0, T_ar/2 − overlap.tp·(t−1)/t·g_i)
 * with X15's contention, g_i the GEMM's time (F8); per layer the sum over
 * the four. Backward runs the same four patterns on the input-gradient
 * GEMMs (the same shapes, so the same g_i), full recompute once more. */
#define PE_TEXT_X16 \
    {"X16", "E_f, forward TP exposed per layer (async TP micro-pipeline)", \
     "Σ_i max(max(0, T_i − overlap.tp·(t−1)/t·g_i), T_i·s/(1 + s)), i = QKV, out, MLP in, MLP out; T_i = T_ar/2 (X22: T_ag for the all-gathers)", \
     "s", "PyTorch async TP"}
/* X16 with each GEMM's own collective time part[i] (X22: an all-gather in
 * float8 is shorter than a reduce-scatter): Σ_i max(max(0, part_i −
 * hide·g_i), part_i·s/(1 + s)); all four T_ar/2 is X16's E_f. */
inline double comm_tp_micro_pipeline_parts(const double part[4], double t, const double gemm_t[4],
                                           double overlap, double contention)
{
    const double hide = overlap * (t - 1.0) / t;
    double sum = 0.0;
    for (int i = 0; i < 4; i++)
        sum += comm_contended(comm_pos(part[i] - hide * gemm_t[i]), part[i], contention);
    return sum;
}
inline double comm_tp_micro_pipeline(double t_ar, double t, const double gemm_t[4],
                                     double overlap, double contention)
{
    const double part = 0.5 * t_ar, parts[4] = {part, part, part, part};
    return comm_tp_micro_pipeline_parts(parts, t, gemm_t, overlap, contention);
}

/* X22 (framework tp_fp8_all_gather, compute fp8 with the tensorwise recipe,
 * sequence parallelism; with or without X16): torchtitan's float8 TP. parallelize_llama.py @820504e sets
 * enable_float8_tensorwise_tp = float8 and not rowwise ("float8 all-gather
 * with TP is only supported for tensorwise scaling recipes. For rowwise
 * recipes, we use regular TP and all-gather happens in high precision") and
 * then applies torchao's Float8ColwiseParallel, Float8RowwiseParallel and
 * PrepareFloat8ModuleInput (torchao/float8/float8_tensor_parallel.py): the
 * block input is cast to float8 (e4m3) before its Shard(1) → Replicate
 * all-gather, and _NoopFwToFloat8BwDynamic casts each output gradient to
 * float8 (e5m2) before the backward's all-gather. Every TP all-gather then
 * carries 1 byte an element: T_ag = T_rs(S_tp/2) (C4: the bytes halve, the
 * latency terms do not); the reduce-scatters (after wo and w2 forward, of
 * the input gradients backward) stay bf16, T_ar/2. Forward the all-gathers
 * feed QKV and MLP in, backward they feed the input-gradient GEMMs of
 * attention out and MLP out (X16's backward patterns), and X21's re-run
 * ones are all-gathers too. Without X16 X1's pair is T_ag + T_ar/2 in
 * place of T_ar (the cast precedes the redistribute in torchao's
 * _prepare_input_fn at pytorch/ao@0e0fba8f, async TP or not). Neutral
 * (T_ag = T_ar/2) otherwise. */
#define PE_TEXT_X22 \
    {"X22", "T_ag, one TP all-gather in float8 (tensorwise FP8 TP)", \
     "T_rs(S_tp/2) (C4); E_f parts QKV, MLP in T_ag, out, MLP out T_ar/2; E_b the reverse", \
     "s", "torchao float8_tensor_parallel.py; torchtitan parallelize_llama.py @820504e"}

/* X28 (framework tp_seq_dim_copy, sequence parallelism, t > 1, dense
 * layers, refined compute): DTensor's Shard(1) collectives. torchtitan's
 * tensors are [batch, sequence, hidden] and its SequenceParallel regions
 * Shard(1); the functional collectives run on dim 0, so all_gather_tensor
 * with gather_dim 1 is all_gather_into_tensor then torch.cat(torch.chunk(
 * res, n, dim=0), dim=1), and reduce_scatter_tensor with scatter_dim 1 the
 * reverse cat before it (torch distributed/_functional_collectives.py):
 * one copy of the gathered tensor, read and written, 2·S/(W·η_W) with S =
 * S_tp (X22: S_tp/2 for a float8 all-gather). pytorch/torchtitan#437
 * measures "for 8k seq len, batch size 1 on H100, these two cats take about
 * 0.18 ms out of 3 ms of FFN compute". Async TP's fused ops
 * (X16 with overlap.tp > 0) take the gathered dimension themselves: none.
 * Per layer one pass has four (two all-gathers, two reduce-scatters; the
 * backward the transposes), X21's re-run all-gathers two more. */
#define PE_TEXT_X28 \
    {"X28", "DTensor Shard(1) copies beside the TP collectives, per layer and pass", \
     "E_c = 2·c_ag + 2·c_rs, c = 2·S/(W·η_W), S = S_tp (X22: S_tp/2 for an all-gather); " \
     "χ_tp,f += (L/p)·E_c, χ_tp,b += (L/p)·((1 + [full])·E_c + [X21]·2·c_ag); 0 under async TP", \
     "s", "torch distributed/_functional_collectives.py; pytorch/torchtitan#437"}
inline double comm_tp_seq_copy(double bytes, double ew_bps)
{
    return ew_bps > 0.0 ? 2.0 * bytes / ew_bps : 0.0;
}

/* X24 (framework tp_grad_sum_unfused, with X16 and async TP, overlap.tp >
 * 0): the backward collectives torch.compile's micro_pipeline_tp pass
 * leaves as they are. It fuses a reduce-scatter only with the one matmul
 * that produces its input (_find_producer_matmul: aten.mm, _scaled_mm or a
 * reshape → mm → reshape; anything else, "no producer matmul found ...,
 * skipping"). An all-gather's output feeding several matmuls (wq, wk, wv;
 * w1, w3) is fused with all of them forward, but backward autograd sums
 * their input gradients (dq·Wq + dk·Wk + dv·Wv, dh1·W1 + dh3·W3) before the
 * all-gather's backward, a reduce-scatter: its producer is an add, so the
 * reduce-scatters after QKV's and (SwiGLU) MLP in's input-gradient GEMMs
 * run as plain TP runs them, exposed whole (T_ar/2, no window). The two
 * backward all-gathers (before wo's and w2's input-gradient GEMMs, one
 * matmul each) stay fused (X16). unfused[i] marks those parts. */
#define PE_TEXT_X24 \
    {"X24", "E_b, backward TP exposed per layer with the reduce-scatters async TP leaves unfused", \
     "Σ_i (u_i ? T_i : max(max(0, T_i − overlap.tp·(t−1)/t·g_i), T_i·s/(1 + s))), u = (QKV 1, out 0, " \
     "MLP in [SwiGLU], MLP out 0); T_i X16's backward parts", \
     "s", "torch _inductor/fx_passes/micro_pipeline_tp.py fuse_matmul_reduce_scatter"}
inline double comm_tp_micro_pipeline_unfused(const double part[4], double t,
                                             const double gemm_t[4], double overlap,
                                             double contention, const bool unfused[4])
{
    const double hide = overlap * (t - 1.0) / t;
    double sum = 0.0;
    for (int i = 0; i < 4; i++)
        sum += unfused[i] ? part[i]
                          : comm_contended(comm_pos(part[i] - hide * gemm_t[i]), part[i],
                                           contention);
    return sum;
}

/* X29 (X24 with X28's tp_seq_dim_copy): the reduce-scatters X24 leaves
 * unfused keep DTensor's Shard(1) split and cat (micro_pipeline_tp.py
 * replaces the split → cat → reduce_scatter pattern only when it fuses
 * it): one copy of S_tp each, c_rs = 2·S_tp/(W·η_W) (X28), per layer
 * (1 + [SwiGLU])·c_rs in the backward. */
#define PE_TEXT_X29 \
    {"X29", "Shard(1) copies beside the reduce-scatters X24 leaves unfused, per layer (backward)", \
     "E_u = n_u·c_rs, n_u = 1 + [SwiGLU] (X24's unfused), c_rs = 2·S_tp/(W·η_W) (X28); χ_tp,b += (L/p)·E_u", \
     "s", "torch _functional_collectives.py; _inductor/fx_passes/micro_pipeline_tp.py"}

/* X21 (A15's op policy under TP with sequence parallelism, dense layers):
 * the TP all-gathers the recomputed forward of an op-level selective block
 * re-runs. torchtitan's _custom_policy (torchtitan/models/llama3/
 * parallelize_llama.py @820504e, the commit of the asyncTP 2025-06
 * benchmark) saves the ops of _save_list — aten.mm but every second one,
 * the SDPA kernels, _c10d_functional.reduce_scatter_tensor, aten.max — and
 * marks every other op PREFER_RECOMPUTE: all_gather_into_tensor is not in
 * the list, so the gathered input of attention's and the MLP's
 * column-parallel matmuls (A16: A15 keeps no all-gather output), which
 * their weight-gradient GEMMs and the recomputed wk and w3 (F25) need, is
 * gathered again in backward; the two reduce-scatters are saved and do not
 * re-run. Each re-run all-gather (T_ar/2) hides, under X16's micro-pipeline
 * (hide = overlap.tp·(t−1)/t; 0 without it), only behind the matmul fused
 * with it, the recomputed share r_i of that GEMM (F25: wk of wq wk wv,
 * w3 of w1 w3, none without SwiGLU; the weight-gradient GEMMs take the
 * gathered input transposed and are not fused), X15's contention on each:
 * Σ_i max(max(0, T_ag − hide·r_i·g_i), T_ag·s/(1 + s)), i = QKV, MLP in,
 * T_ag = T_ar/2 (X22: the float8 all-gather's). Never below 0 and never
 * above 2·T_ag (the forward's two all-gathers). */
#define PE_TEXT_X21 \
    {"X21", "E_r, TP all-gathers the op-level recompute re-runs per layer", \
     "Σ_i max(max(0, T_ag − hide·r_i·g_i), T_ag·s/(1 + s)), i = QKV, MLP in, T_ag = T_ar/2 (X22: float8); " \
     "hide = overlap.tp·(t−1)/t with X16, else 0; r_i F25's recomputed share", \
     "s", "torchtitan parallelize_llama.py _save_list @820504e"}
inline double comm_tp_op_recompute(double t_ag, double hide, double r_qkv, double g_qkv,
                                   double r_in, double g_in, double contention)
{
    const double part = t_ag; /* T_ar/2, or X22's float8 all-gather */
    return comm_contended(comm_pos(part - hide * r_qkv * g_qkv), part, contention) +
           comm_contended(comm_pos(part - hide * r_in * g_in), part, contention);
}

/* X14 (framework optimizer_pass_bytes): the optimizer step as the
 * framework runs it, every pass over this GPU's shard of the parameters
 * (N_gpu/(z ≥ 1 ? D : 1)) at W·η_W: s_per_param = bytes/(W·η_W). */
#define PE_TEXT_X14 \
    {"X14", "optimizer step, the framework's passes", \
     "(N_gpu/(z ≥ 1 ? D : 1) + N_experts/(z ≥ 1 ? D_e : 1))·optimizer_pass_bytes/(W·η_W)", \
     "s", "Megatron-LM optimizer"}
inline double comm_optimizer_passes(double n_gpu, int64_t zero, double D, double s_per_param)
{
    return n_gpu / (zero >= 1 ? D : 1.0) * s_per_param;
}

/* X5 optimizer step, memory bound: N_gpu/(z ≥ 1 ? D : 1)·(β_w + β_g + 2·β_o)/W */
#define PE_TEXT_X5 \
    {"X5", "optimizer step", \
     "N_gpu/(z ≥ 1 ? D : 1)·(β_w + β_g + 2·β_o)/W", \
     "s", "spec"}
inline double comm_optimizer(double n_gpu, int64_t zero, double D, double beta_w, double beta_g,
                             double beta_o, double hbm_bps)
{
    return n_gpu / (zero >= 1 ? D : 1.0) * (beta_w + beta_g + 2.0 * beta_o) / hbm_bps;
}

#endif
