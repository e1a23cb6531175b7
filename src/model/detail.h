/* detail.h — every intermediate quantity of one plan's evaluation, for
 * `explain` and `calibrate`. evaluate_plan_detail() fills it from the very
 * same code path as evaluate_plan() (the hot path passes no detail, and the
 * compiler drops the stores), so explain prints the evaluator's own numbers.
 * Arrays [3] hold stage 0, stage p−1 (equal when p = 1) and, with uneven
 * stages or MoE layers and p ≥ 3, a middle stage [2] (stage 1 or, for MoE,
 * the middle stage with the most MoE layers). Bytes, FLOPs, seconds. Filled
 * only for valid plans (valid == true).
 *
 * Each field has one writer, the section named in its group's heading
 * (layout.h, memory_step.h, compute_step.h, comm_step.h, pipeline_step.h);
 * a section reads only what the sections before it wrote. */
#ifndef PLANEVAL_DETAIL_H
#define PLANEVAL_DETAIL_H

#include <stdbool.h>

#include "model/evaluate.h"
#include "model/comm.h"

struct pe_detail {
    /* layout */
    bool valid;
    double lps, s_local, D, m;                 /* L/p, s', dp·c, micro-batches */
    double stage_layers[3];                    /* layers of each stage held (L/p if even) */
    int64_t mid_stage;                         /* the middle candidate's stage (1 unless MoE) */
    int stages;                                /* candidate stages in the arrays: 2, or 3 */
    /* memory (§2 P4, P7, §3) */
    double n_out, n_gpu[3];                    /* P4, P7 (P15 with experts) */
    double n_train[3], m15[3];                 /* trained parameters (M16 with lora), M15 */
    double m1[3], m2[3], m3[3], m4;            /* M1–M4 (M1 with M7; M3 0 with offload) */
    double m7[3];                              /* M7 FP8 weight copies in m1 (experts' too) */
    double att, a_layer, a_in;                 /* A3 (as used), A4, A5 */
    double k[3], k_first, k_last;              /* in-flight micro-batches */
    double a6[3], a7[3], a8[3];                /* A6; A7, A8 as carried by each stage */
    double total[3];                           /* M5 (M13's total with memory_by_phase) */
    double phase[3][PE_PHASE_COUNT];           /* M9 each phase's live bytes ([0]: unused) */
    double peak[3], reserved[3];               /* M9 the largest phase, M13 reserved */
    int peak_phase[3];                         /* M9 pe_mem_phase of peak[i] */
    double a8_in, a14;                         /* A8's output-layer inputs, A14 the loss */
    double w_fwd, w_bwd, unsharded[3], unsharded_grads[3]; /* M4 by phase, M12 */
    double a_recompute;                        /* A15 the layer backward recomputes */
    double a20_fwd, a20_bwd;                   /* A20 CP ring attention buffers by phase */
    double a23_layers;                         /* A23 N offloaded on this plan; 0: none */
    double a24;                                /* A24 the received output gradient; 0: none */
    double a24_stage[3];                       /* A24 as candidate stage i holds it in backward */
    double a26[3];                             /* A26 NCCL buffers of candidate stage i; 0: none */
    double ds_a28[3];                          /* A28 DeepSpeed reduce buckets of stage i; 0: none */
    double ds_gathered, ds_kept[3];            /* A29 G and K, elements; 0: none */
    double ds_x, ds_n_s[3];                    /* A29 X and K's cap N_s, storage elements */
    double ds_w[3][PE_PHASE_COUNT];            /* A29 gathered-parameter bytes by phase; 0 */
    double ds_persist[3];                      /* A29' persistent parameters, bytes */
    double ds_m18[3];                          /* M18 fp32 gradient partition of the step */
    double ds_off_every[3], ds_off_bwd[3], ds_off_step[3]; /* M20 ZeRO-Offload's GPU buffers; 0 */
    double ds_off_host[3];                     /* M21 host bytes per GPU under ZeRO-Offload; 0 */
    double m19[3];                             /* M19 DDP's bucket copy of the gradients; 0: none */
    int mem_stage;                             /* 0, 1 or 2 (index into the arrays) */
    /* compute (§4, §12) */
    double x;                                  /* F4 per token per layer */
    double f_fwd[3], f_bwd[3];                 /* F5 */
    double tau_f[3], tau_b[3], tau_lf, tau_lb, tau_att; /* F6 (F16, F11/F20; τ_b with F21) */
    double lora_ad_flop, lora_wg_flop;         /* F37 per layer: adapters' forward, base wgrad */
    double lora_ad_t, lora_wg_t, lora_dq_t;    /* F37 their times, and one dequantisation */
    double lora_out_t;                         /* F37 the frozen output layer's wgrad time */
    double gemm_t[PE_LAYER_GEMMS];             /* F8 each forward GEMM of a layer */
    double tau_gemm, tau_core, tau_ew, tau_ew_att, tau_out; /* F8–F10 per layer / output */
    double t_accum[3];                         /* F21 per micro-batch, in tau_b */
    double att_shape;                          /* F22 the sequence and causal factor (1: off) */
    double cp_ring_share, cp_ring_shape_half;  /* X31 the core's share of F_att/(peak·F22), S_h */
    double core_f9;                            /* F9 the core before X31 (= tau_core when off) */
    double cp_ring_f, cp_ring_b;               /* X31 the ring's merge passes per layer, s */
    double rec_layers[3];                      /* F27 layers each stage's backward recomputes */
    double f_hw;                               /* F4 (F27 by layer) F_hw of the plan, for hfu */
    double gemm_chunks_t[PE_LAYER_GEMMS];      /* F29 each GEMM as async TP's t chunks (X16's g_i) */
    double tau_chunks;                         /* F29 Σ_i (chunks − whole GEMM) per layer, in τ_lf */
    double tau_cast_f, tau_cast_b;             /* F35, F36 a layer's FP8 casts, in τ_lf and τ_lb */
    double tau_rec_ew;                         /* F39 op SAC's recomputed element-wise, in τ_lb */
    /* communication per layer (§5, §6 X1, X2) */
    pe_group g_tp, g_cp, g_dp, g_pp;           /* C1, C2 */
    double s_tp, t_ar_tp;                      /* X1 */
    double t_ar_tp_tree;                       /* C10 (0 when not considered) */
    double tp_bwd_layer;                       /* X13 backward TP time per layer before overlap.tp */
    double tp_mp_layer;                        /* X16 forward TP exposed per layer; < 0: X1's */
    double tp_rec_layer;                       /* X21 op-level recompute's TP all-gathers per layer */
    double t_ag_tp;                            /* X22 one TP all-gather (T_ar/2 unless in float8) */
    double t_tp_pair;                          /* X1 one all-gather and reduce-scatter pair: T_ar, X22: T_ag + T_ar/2 */
    double tp_mp_bwd_layer;                    /* X16 backward TP exposed per layer (X22's parts) */
    double tp_copy_ag, tp_copy_rs;             /* X28 one Shard(1) copy beside an all-gather, a reduce-scatter */
    double tp_copy_ag_bytes;                   /* X28 S of c_ag: S_tp, or S_tp/2 (X22's float8 all-gather) */
    double tp_copy_layer, tp_copy_rec;         /* X28 per layer one pass's four, X21's two re-run */
    double tp_unfused_layer;                   /* X24 of tp_mp_bwd_layer, the unfused reduce-scatters */
    double tp_copy_unfused;                    /* X29 their Shard(1) copies per layer (backward) */
    double tp_reduce, tp_reduce_f, tp_reduce_b; /* F34 one fused RS's sum; per layer forward, backward */
    double tp_stage, tp_stage_f, tp_stage_b;    /* X32 one fused AG's shard copy; per layer forward, backward */
    double s_kv, t_p2p_cp;                     /* X2 */
    double t_ag_cp;                            /* X19 all-gather of c·S_kv (0: X2's ring) */
    double chi_st[3][4];                       /* χ_tp,f/b and χ_cp,f/b of each stage */
    bool chi_per_stage;                        /* chi_st holds each stage's own χ (uneven) */
    /* pipeline (§7) */
    double t_f[3], t_b[3];                     /* §7 */
    int time_stage;                            /* 0, 1 or 2 (index into the arrays) */
    double chi_tp_f, chi_tp_b, chi_cp_f, chi_cp_b; /* X1, X2 of the time stage */
    double bubble;                             /* B1–B4, or B5 when smaller */
    double bubble_uniform;                     /* B1–B4 on the time stage (B5's cap) */
    double others_f, others_b;                 /* B5: Σ over the other stages of t_f, t_b */
    /* communication per step, on the time stage (§6 X3–X5) */
    double s_pp, t_p2p_pp, chi_pp;             /* X3 */
    double pp_hop_bytes;                       /* X6: bytes crossing the pipeline link */
    double s_g, s_w, t_rs_g, t_rs_w, chi_dp;   /* X4 (time stage) */
    double n_w;                                /* X4 S_w's elements: N_t, at z = 3 N_gpu or N_s */
    double s_gc, t_g, tau_g;                   /* X26 wire bytes, X25 gradient time, X27 window τ */
    double s_gc_exp;                           /* X26 the expert gradients' wire bytes (edp group); 0 dense */
    double dp_critical;                        /* S3: X4's windows under a longer collective */
    double dp_last_bucket;                     /* X7 extra exposure */
    double dp_comm_all;                        /* X15: X4's collectives, s (its T) */
    double dp_exposed;                         /* X4 + X7 before X15 and X8 */
    pe_group g_tied;                           /* X18 the first and last stage */
    double s_tied, t_tied;                     /* X18 bytes, all-reduce time (in chi_dp) */
    double t_ar_dp_tree;                       /* C10 (0 when not considered) */
    double optimizer;                          /* X5 (X14, X5′, X12) */
    /* mixture of experts (docs/design/moe.md), zeros for a dense model; by
     * section: layout n_moe, D_e; memory n_exp … a12; compute tau_ml*, M_e …
     * t_sh_in; communication g_*, s_*, t_ep, t_rs_etp, χ */
    struct {
        double n_moe[3], n_exp[3];             /* P9 MoE layers, P16 expert parameters per GPU */
        double D_e;                            /* edp = t·c·dp/(ep·etp) */
        double mem_experts[3];                 /* expert M1+M2+M3 */
        double a_layer_m, a_routed, a12;       /* A4', A11, A12 */
        double a25;                            /* A25, inside a_layer_m */
        double s_disp, s_comb, t_ep;           /* X9 */
        double chi_ep_f[3], chi_ep_b[3];       /* X10 */
        double s_etp, t_rs_etp, chi_etp_f[3], chi_etp_b[3]; /* X11 */
        double tau_mlf, tau_mlb;               /* one MoE layer's forward/backward time */
        double M_e, t_exp, t_sh, t_router;     /* F19 rows per local expert; GEMM times */
        double t_sh_in;                        /* the shared experts' fc1 (X13's window) */
        double t_perm;                         /* F23 permutation and unpermutation, forward */
        double tau_mlf_all_sms, tau_mlb_all_sms; /* F32 τ_ml before the SMs given to the a2a */
        pe_group g_ep, g_etp, g_edp;           /* C11 */
        double ep_comm;                        /* ep_comm_s */
    } moe;
    /* optimizer offload (design §7), zeros without offload: host is
     * memory's (M8), the rest communication's (X12) */
    struct {
        double n_sh;                 /* this GPU's optimizer shard, parameters */
        double t_d2h, t_h2d, t_cpu;  /* X12 */
        double window;               /* X12 the last backward's window left for T_d2h */
        double host;                 /* M8 bytes per node */
    } off;
};

#endif
